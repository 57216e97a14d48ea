//===- LinalgToLoops.cpp - Loops, parallel only where it pays --------------===//

#include "telar/targets/cpu/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/Utils/Utils.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/PatternMatch.h"

namespace mlir::telar {
#define GEN_PASS_DEF_TELARLINALGTOLOOPS
#include "telar/targets/cpu/Passes.h.inc"
} // namespace mlir::telar

using namespace mlir;

namespace {

/// Replaces `op` by an scf.parallel over its first `keep` dimensions (none:
/// plain scf.for loops) around scf.for loops over the others.
void splitParallelLoop(scf::ParallelOp op, unsigned keep);

/// An N-d scf.parallel becomes an scf.parallel over its leading dimensions
/// (enough of them for `minOuterPoints` iterations, never the innermost)
/// with sequential scf.for loops inside. OpenMP would otherwise collapse all
/// dimensions into one linear loop that recomputes each index with div/rem,
/// which the LLVM vectoriser cannot vectorise; an innermost scf.for over
/// contiguous elements vectorises.
void keepInnerLoopsSequential(scf::ParallelOp op, int64_t minOuterPoints) {
  unsigned n = op.getNumLoops();
  if (n < 2)
    return;
  unsigned keep = 1;
  int64_t points = 1;
  for (; keep < n - 1; ++keep) {
    unsigned d = keep - 1;
    std::optional<int64_t> lb = getConstantIntValue(op.getLowerBound()[d]);
    std::optional<int64_t> ub = getConstantIntValue(op.getUpperBound()[d]);
    std::optional<int64_t> st = getConstantIntValue(op.getStep()[d]);
    if (!lb || !ub || !st)
      break;
    points *= (*ub - *lb + *st - 1) / *st;
    if (points >= minOuterPoints)
      break;
  }
  splitParallelLoop(op, keep);
}

void splitParallelLoop(scf::ParallelOp op, unsigned keep) {
  OpBuilder b(op);
  Location loc = op.getLoc();
  IRMapping mapping;
  auto buildInner = [&](OpBuilder &ib) {
    scf::buildLoopNest(
        ib, loc, op.getLowerBound().drop_front(keep),
        op.getUpperBound().drop_front(keep), op.getStep().drop_front(keep),
        [&](OpBuilder &nb, Location, ValueRange ivs) {
          for (auto [oldIv, newIv] :
               llvm::zip(ValueRange(op.getInductionVars()).drop_front(keep),
                         ivs))
            mapping.map(oldIv, newIv);
          for (Operation &inner : op.getBody()->without_terminator())
            nb.clone(inner, mapping);
        });
  };
  if (keep == 0) {
    buildInner(b);
    op.erase();
    return;
  }
  auto outer = scf::ParallelOp::create(
      b, loc, op.getLowerBound().take_front(keep),
      op.getUpperBound().take_front(keep), op.getStep().take_front(keep));
  b.setInsertionPoint(outer.getBody()->getTerminator());
  for (unsigned i = 0; i < keep; ++i)
    mapping.map(op.getInductionVars()[i], outer.getInductionVars()[i]);
  buildInner(b);
  op.erase();
}

/// Window reductions (pools, depthwise convolutions) have their reduction
/// loops innermost, reading the input at `o*s + k`: no loop is contiguous
/// and nothing vectorises. When the innermost loop is a reduction that no
/// input reads contiguously (as its plain last dimension), the parallel
/// loop of the output's last dimension moves innermost instead: it writes
/// the output contiguously and reads the input with a constant stride.
/// Returns the (possibly new) op to lower.
linalg::LinalgOp moveOutputColumnInnermost(RewriterBase &rewriter,
                                           linalg::LinalgOp op) {
  unsigned n = op.getNumLoops();
  if (n < 2 || op.getNumDpsInits() != 1)
    return op;
  SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
  unsigned inner = n - 1;
  if (iterators[inner] != utils::IteratorType::reduction)
    return op;
  AffineMap outMap = op.getMatchingIndexingMap(op.getDpsInitOperand(0));
  if (outMap.getNumResults() == 0)
    return op;
  auto column = dyn_cast<AffineDimExpr>(outMap.getResults().back());
  if (!column ||
      iterators[column.getPosition()] != utils::IteratorType::parallel)
    return op;
  for (OpOperand *input : op.getDpsInputOperands()) {
    AffineMap map = op.getMatchingIndexingMap(input);
    // Inputs that do not vary with the output's column (a pool's window
    // shape, a depthwise filter) are read the same either way.
    if (map.getNumResults() == 0 ||
        !map.isFunctionOfDim(column.getPosition()))
      continue;
    auto last = dyn_cast<AffineDimExpr>(map.getResults().back());
    if (last && last.getPosition() == inner)
      return op; // A contiguous reduction (row sums): keep it innermost.
  }
  SmallVector<unsigned> order;
  for (unsigned i = 0; i < n; ++i)
    if (i != column.getPosition())
      order.push_back(i);
  order.push_back(column.getPosition());
  rewriter.setInsertionPoint(op);
  auto generic = dyn_cast<linalg::GenericOp>(op.getOperation());
  if (!generic) {
    FailureOr<linalg::GenericOp> generalized =
        linalg::generalizeNamedOp(rewriter, op);
    if (failed(generalized))
      return op;
    generic = *generalized;
  }
  FailureOr<linalg::GenericOp> interchanged =
      linalg::interchangeGenericOp(rewriter, generic, order);
  return failed(interchanged) ? linalg::LinalgOp(generic)
                              : linalg::LinalgOp(*interchanged);
}

/// The cost of one iteration of `op`'s body, in rough scalar operations:
/// each operand read or written, plus each payload op, transcendental math
/// and divisions weighted by what they cost once expanded (math.exp and
/// friends become ~10-20 instructions in libm or LLVM's expansions). A copy
/// costs 2, an add 4, an erf-based GELU after telar-approximate-math about
/// 50.
int64_t iterationCost(linalg::LinalgOp op) {
  int64_t cost = op->getNumOperands();
  op->walk([&](Operation *inner) {
    if (inner == op.getOperation() || inner->hasTrait<OpTrait::IsTerminator>())
      return;
    if (isa<math::ExpOp, math::Exp2Op, math::ExpM1Op, math::LogOp,
            math::Log2Op, math::Log1pOp, math::TanhOp, math::ErfOp,
            math::PowFOp, math::SinOp, math::CosOp, math::AtanOp,
            math::Atan2Op, math::SqrtOp, math::RsqrtOp, math::CbrtOp>(inner))
      cost += 16;
    else if (isa<arith::DivFOp, arith::RemFOp, arith::DivSIOp, arith::DivUIOp,
                 arith::RemSIOp, arith::RemUIOp>(inner))
      cost += 4;
    else if (!isa<arith::ConstantOp, linalg::IndexOp>(inner))
      cost += 1;
  });
  return cost;
}

/// The work of `op`: iterations times their cost; dynamic ranges count as
/// `unknown` (so that an op of unknown size runs on threads).
int64_t loopNestWork(linalg::LinalgOp op, int64_t unknown) {
  int64_t points = 1;
  for (int64_t range : op.getStaticLoopRanges()) {
    if (ShapedType::isDynamic(range))
      return unknown;
    points *= range;
  }
  return points * iterationCost(op);
}

struct TelarLinalgToLoops
    : public telar::impl::TelarLinalgToLoopsBase<TelarLinalgToLoops> {
  using Base::Base;
  void runOnOperation() override {
    // memref.copy would become a call to MLIR's `memrefCopy` runtime helper
    // for strided views; as a linalg.copy it becomes plain (vectorisable)
    // loops instead.
    SmallVector<memref::CopyOp> copies;
    getOperation().walk([&](memref::CopyOp op) { copies.push_back(op); });
    for (memref::CopyOp copy : copies) {
      OpBuilder b(copy);
      linalg::CopyOp::create(b, copy.getLoc(), copy.getSource(),
                             copy.getTarget());
      copy.erase();
    }

    SmallVector<linalg::LinalgOp> ops;
    getOperation().walk([&](linalg::LinalgOp op) {
      if (op.hasPureBufferSemantics())
        ops.push_back(op);
    });
    IRRewriter rewriter(&getContext());
    for (linalg::LinalgOp op : ops) {
      op = moveOutputColumnInnermost(rewriter, op);
      rewriter.setInsertionPoint(op);
      FailureOr<linalg::LinalgLoops> loops =
          loopNestWork(op, minParallelWork) >= minParallelWork
              ? linalg::linalgOpToParallelLoops(rewriter, op)
              : linalg::linalgOpToLoops(rewriter, op);
      if (failed(loops)) {
        op.emitError() << "cannot lower to loops";
        return signalPassFailure();
      }
      rewriter.eraseOp(op);
      if (loops->empty())
        continue; // A 0-d op: no loops.
      // Only the outermost loop runs on threads: a parallel loop inside a
      // sequential one (after moveOutputColumnInnermost) would fork a
      // thread team per outer iteration. Innermost first: splitting a loop
      // clones its body.
      for (Operation *loop : llvm::reverse(llvm::drop_begin(*loops)))
        if (auto parallel = dyn_cast<scf::ParallelOp>(loop))
          splitParallelLoop(parallel, /*keep=*/0);
      if (auto parallel = dyn_cast<scf::ParallelOp>(loops->front()))
        keepInnerLoopsSequential(parallel, /*minOuterPoints=*/64);
    }
  }
};
} // namespace
