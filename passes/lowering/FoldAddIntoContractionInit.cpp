//===- FoldAddIntoContractionInit.cpp - Bias adds become GEMM inits -------===//
//
// A linear layer lowers to a matmul into a zero-filled tensor, then an
// elementwise add of its bias (broadcast over the rows), often through the
// reshape that gives the product its batch dimensions back: a pass that
// writes the output, the GEMM, and a pass that reads it again and writes it
// once more. Since a contraction adds to its init, the bias (or a residual)
// can be the init instead: the add disappears, and the fill becomes the
// bias's broadcast. Runs on tensors, per rank after partitioning: a partial
// sum (a matmul followed by an all-reduce) never meets its bias here, since
// the add then reads the all-reduce, not the matmul.
//
//===----------------------------------------------------------------------===//

#include "telar/passes/lowering/Passes.h"

#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"

namespace mlir::telar {
#define GEN_PASS_DEF_TELARFOLDADDINTOCONTRACTIONINIT
#include "telar/passes/lowering/Passes.h.inc"
} // namespace mlir::telar

using namespace mlir;

namespace {

/// The contractions whose init may take the add: the ones the runtime's
/// kernels run (any init; they add to it).
bool isFoldableContraction(Operation *op) {
  if (auto mm = dyn_cast<linalg::MatmulOp>(op))
    return !mm.hasUserDefinedMaps();
  if (auto bmm = dyn_cast<linalg::BatchMatmulOp>(op))
    return !bmm.hasUserDefinedMaps();
  return isa<linalg::Conv2DNchwFchwOp>(op);
}

/// An elementwise add of a contraction's result (through reshapes) and
/// another operand, with what the rewrite needs.
struct Candidate {
  linalg::GenericOp add;
  unsigned contractionInput; // the input of `add` fed by the contraction
  linalg::LinalgOp contraction;
  SmallVector<Operation *> reshapes; // from the contraction to `add`
};

/// Whether `g` is `out = in0 + in1` (either order) over all-parallel loops
/// with an identity output map.
bool isBinaryAdd(linalg::GenericOp g) {
  if (g.getNumDpsInputs() != 2 || g.getNumDpsInits() != 1 ||
      g->getNumResults() != 1 ||
      g.getNumParallelLoops() != g.getNumLoops() ||
      !g.getMatchingIndexingMap(g.getDpsInitOperand(0)).isIdentity())
    return false;
  Block &body = g.getRegion().front();
  if (body.getOperations().size() != 2)
    return false;
  auto addf = dyn_cast<arith::AddFOp>(body.front());
  auto yield = dyn_cast<linalg::YieldOp>(body.back());
  if (!addf || !yield || yield.getNumOperands() != 1 ||
      yield.getOperand(0) != addf.getResult())
    return false;
  Value a = addf.getLhs(), b = addf.getRhs();
  Value in0 = body.getArgument(0), in1 = body.getArgument(1);
  return (a == in0 && b == in1) || (a == in1 && b == in0);
}

/// The contraction feeding input `i` of `g` (through reshapes that have no
/// other user), if it has a zero-filled init and no other user.
std::optional<Candidate> matchInput(linalg::GenericOp g, unsigned i) {
  OpOperand *operand = g.getDpsInputOperand(i);
  if (!g.getMatchingIndexingMap(operand).isIdentity())
    return std::nullopt;
  Candidate c{g, i, nullptr, {}};
  Value v = operand->get();
  while (true) {
    if (!v.hasOneUse())
      return std::nullopt;
    Operation *def = v.getDefiningOp();
    if (!def)
      return std::nullopt;
    if (isa<tensor::ExpandShapeOp, tensor::CollapseShapeOp>(def)) {
      c.reshapes.push_back(def);
      v = def->getOperand(0);
      continue;
    }
    if (!isFoldableContraction(def))
      return std::nullopt;
    c.contraction = cast<linalg::LinalgOp>(def);
    break;
  }
  if (!c.contraction.hasPureTensorSemantics() ||
      c.contraction->getNumResults() != 1)
    return std::nullopt;
  auto fill =
      c.contraction.getDpsInitOperand(0)->get().getDefiningOp<linalg::FillOp>();
  if (!fill || !matchPattern(fill.getInputs()[0], m_AnyZeroFloat()))
    return std::nullopt;
  std::reverse(c.reshapes.begin(), c.reshapes.end());
  return c;
}

/// Rewrites `add(reshapes(contraction(init = 0)), x)` into
/// `reshapes(contraction(init = reshapes^-1(broadcast(x))))`.
void fold(Candidate &c) {
  linalg::GenericOp g = c.add;
  OpBuilder b(g);
  Location loc = g.getLoc();
  auto resultType = cast<RankedTensorType>(g->getResult(0).getType());
  OpOperand *other = g.getDpsInputOperand(1 - c.contractionInput);
  Value x = other->get();
  AffineMap map = g.getMatchingIndexingMap(other);
  // x over the add's whole iteration space (a bias: broadcast).
  if (!map.isIdentity() || x.getType() != resultType) {
    Value empty = tensor::EmptyOp::create(b, loc, resultType.getShape(),
                                          resultType.getElementType());
    unsigned rank = resultType.getRank();
    SmallVector<AffineMap> maps = {map, b.getMultiDimIdentityMap(rank)};
    SmallVector<utils::IteratorType> iterators(rank,
                                               utils::IteratorType::parallel);
    x = linalg::GenericOp::create(
            b, loc, TypeRange{resultType}, ValueRange{x}, ValueRange{empty},
            maps, iterators,
            [](OpBuilder &nb, Location nloc, ValueRange args) {
              linalg::YieldOp::create(nb, nloc, args[0]);
            })
            ->getResult(0);
  }
  // Back through the reshapes to the contraction's shape.
  for (Operation *r : llvm::reverse(c.reshapes)) {
    auto srcType = cast<RankedTensorType>(r->getOperand(0).getType());
    if (auto expand = dyn_cast<tensor::ExpandShapeOp>(r))
      x = tensor::CollapseShapeOp::create(b, loc, srcType, x,
                                          expand.getReassociationIndices());
    else
      x = tensor::ExpandShapeOp::create(
          b, loc, srcType, x,
          cast<tensor::CollapseShapeOp>(r).getReassociationIndices());
  }
  // The contraction with x as its init, and its reshapes, at the add.
  IRMapping mapping;
  Operation *contraction = b.clone(*c.contraction, mapping);
  OpOperand *oldInit = c.contraction.getDpsInitOperand(0);
  Value oldFill = oldInit->get();
  contraction->setOperand(oldInit->getOperandNumber(), x);
  mapping.map(c.contraction->getResult(0), contraction->getResult(0));
  Value result = contraction->getResult(0);
  for (Operation *r : c.reshapes)
    result = b.clone(*r, mapping)->getResult(0);
  g->getResult(0).replaceAllUsesWith(result);
  g->erase();
  for (Operation *r : llvm::reverse(c.reshapes))
    r->erase();
  c.contraction->erase();
  if (Operation *fill = oldFill.getDefiningOp(); fill && fill->use_empty())
    fill->erase();
}

struct TelarFoldAddIntoContractionInit
    : public telar::impl::TelarFoldAddIntoContractionInitBase<
          TelarFoldAddIntoContractionInit> {
  void runOnOperation() override {
    SmallVector<linalg::GenericOp> adds;
    getOperation().walk([&](linalg::GenericOp g) {
      if (g.hasPureTensorSemantics() && isBinaryAdd(g))
        adds.push_back(g);
    });
    for (linalg::GenericOp g : adds) {
      // Either side of the add may be the contraction (the first that is).
      std::optional<Candidate> c = matchInput(g, 0);
      if (!c)
        c = matchInput(g, 1);
      if (!c)
        continue;
      auto other = g.getDpsInputOperand(1 - c->contractionInput)->get();
      if (getElementTypeOrSelf(other.getType()) !=
          getElementTypeOrSelf(g->getResult(0).getType()))
        continue;
      fold(*c);
    }
  }
};

} // namespace
