//===- NarrowStorage.cpp - Tensors between kernels in bfloat16 ------------===//
//
// `--dtype bf16` halves the bytes the kernels move: what one fused region
// writes for others is stored as bfloat16, but each region computes in f32
// (its inputs widened as it reads them, its results rounded once as it
// writes them), and reductions and contractions accumulate into f32. The
// rewrite is local: a producer narrows only when every reader can read
// bfloat16 as it is (a generic's input, a GEMM operand, an extracted
// scalar, through views and transposes); otherwise the value stays f32.
//
//===----------------------------------------------------------------------===//

#include "telar/targets/cuda/Passes.h"

#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/IR/PatternMatch.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/SetVector.h"

namespace mlir::telar {
#define GEN_PASS_DEF_TELARNARROWSTORAGE
#include "telar/targets/cuda/Passes.h.inc"
} // namespace mlir::telar

using namespace mlir;

namespace {

bool isF32Tensor(Value v) {
  auto type = dyn_cast<RankedTensorType>(v.getType());
  return type && type.getElementType().isF32();
}

/// A matmul or batched matmul without user-defined maps: the ops a narrow
/// operand is rebuilt into.
bool isPlainContraction(Operation *op) {
  if (auto mm = dyn_cast<linalg::MatmulOp>(op))
    return !mm.hasUserDefinedMaps();
  if (auto bmm = dyn_cast<linalg::BatchMatmulOp>(op))
    return !bmm.hasUserDefinedMaps();
  return false;
}

/// Ops whose result is their source's elements rearranged (a pad adds its
/// padding value): they pass bfloat16 on.
bool isView(Operation *op) {
  return isa<tensor::ExpandShapeOp, tensor::CollapseShapeOp,
             tensor::ExtractSliceOp, tensor::PadOp>(op);
}

bool allUsesTakeNarrow(Value v);

/// Whether the f32 tensor read through `use` could be read as bfloat16.
bool takesNarrow(OpOperand &use) {
  Operation *user = use.getOwner();
  if (isa<tensor::ExtractOp>(user))
    return true;
  if (isView(user))
    return use.getOperandNumber() == 0 && allUsesTakeNarrow(user->getResult(0));
  auto linalgOp = dyn_cast<linalg::LinalgOp>(user);
  if (!linalgOp || !linalgOp.isDpsInput(&use))
    return false;
  if (auto transpose = dyn_cast<linalg::TransposeOp>(user))
    return allUsesTakeNarrow(transpose.getResult()[0]);
  // A generic, a plain matmul, or another structured op (a convolution, a
  // pooling, a broadcast: made a generic).
  return true;
}

bool allUsesTakeNarrow(Value v) {
  return !v.use_empty() && llvm::all_of(v.getUses(), [](OpOperand &use) {
    return takesNarrow(use);
  });
}

/// A generic that only widens bfloat16 to f32 (one input, identity maps).
bool isWidening(linalg::GenericOp op) {
  if (op.getNumDpsInputs() != 1 || op.getNumDpsInits() != 1 ||
      op.getNumParallelLoops() != op.getNumLoops() ||
      !llvm::all_of(op.getIndexingMapsArray(),
                    [](AffineMap m) { return m.isIdentity(); }))
    return false;
  Block &body = *op.getBody();
  if (body.getOperations().size() != 2)
    return false;
  auto ext = dyn_cast<arith::ExtFOp>(body.front());
  return ext && ext.getIn() == body.getArgument(0) &&
         ext.getIn().getType().isBF16() && ext.getType().isF32() &&
         body.getTerminator()->getOperand(0) == ext.getResult();
}

/// The operands of each reader of `uses`, grouped by reader in the order
/// they come.
llvm::MapVector<Operation *, SmallVector<unsigned>>
groupByReader(ArrayRef<OpOperand *> uses) {
  llvm::MapVector<Operation *, SmallVector<unsigned>> readers;
  for (OpOperand *use : uses)
    readers[use->getOwner()].push_back(use->getOperandNumber());
  return readers;
}

class Narrowing {
public:
  explicit Narrowing(MLIRContext *ctx)
      : narrow(BFloat16Type::get(ctx)), wide(Float32Type::get(ctx)) {}

  /// Set when a reader could not be made to read bfloat16.
  bool failedToRead = false;

  /// The `operands` of `user` now hold bfloat16 tensors where they held f32
  /// ones (uses takesNarrow accepted): the reader made to read them.
  void readNarrow(Operation *user, ArrayRef<unsigned> operands) {
    OpBuilder b(user);
    if (auto extract = dyn_cast<tensor::ExtractOp>(user)) {
      b.setInsertionPointAfter(extract);
      extract.getResult().setType(narrow);
      auto widened =
          arith::ExtFOp::create(b, extract.getLoc(), wide, extract.getResult());
      extract.getResult().replaceAllUsesExcept(widened, widened);
      return;
    }
    if (isView(user)) {
      // A pad's value rounded once, where it is yielded.
      if (auto pad = dyn_cast<tensor::PadOp>(user)) {
        Operation *yield = pad.getBody()->getTerminator();
        b.setInsertionPoint(yield);
        yield->setOperand(0, arith::TruncFOp::create(b, pad.getLoc(), narrow,
                                                     yield->getOperand(0)));
      }
      retypeAndFollow(user->getResult(0));
      return;
    }
    if (isPlainContraction(user)) {
      contractions.insert(user);
      return;
    }
    if (auto transpose = dyn_cast<linalg::TransposeOp>(user)) {
      // The copy in bfloat16, into a bfloat16 init of its own.
      Value init = transpose.getInit();
      transpose.getInitMutable().assign(tensor::EmptyOp::create(
          b, transpose.getLoc(),
          cast<RankedTensorType>(init.getType()).getShape(), narrow));
      for (BlockArgument arg : transpose.getRegion().getArguments())
        arg.setType(narrow);
      retypeAndFollow(transpose.getResult()[0]);
      return;
    }
    // A generic, or another structured op made one, whose body widens what
    // it reads.
    auto generic = dyn_cast<linalg::GenericOp>(user);
    if (!generic) {
      IRRewriter rewriter(user->getContext());
      rewriter.setInsertionPoint(user);
      FailureOr<linalg::GenericOp> general =
          linalg::generalizeNamedOp(rewriter, cast<linalg::LinalgOp>(user));
      if (failed(general)) {
        user->emitError("cannot read a bfloat16 operand: the op has no "
                        "generic form");
        failedToRead = true;
        return;
      }
      generic = *general;
    }
    b.setInsertionPointToStart(generic.getBody());
    for (unsigned operand : operands) {
      BlockArgument arg =
          generic.getMatchingBlockArgument(&generic->getOpOperand(operand));
      arg.setType(narrow);
      auto widened = arith::ExtFOp::create(b, generic.getLoc(), wide, arg);
      arg.replaceAllUsesExcept(widened, widened);
    }
  }

  /// Result `index` of an all-parallel generic written in bfloat16: rounded
  /// once before the yield, into a bfloat16 init.
  void narrowResult(linalg::GenericOp op, unsigned index) {
    OpBuilder b(op);
    OpOperand *init = op.getDpsInitOperand(index);
    init->set(tensor::EmptyOp::create(
        b, op.getLoc(),
        cast<RankedTensorType>(init->get().getType()).getShape(), narrow));
    op.getMatchingBlockArgument(init).setType(narrow);
    Operation *yield = op.getBody()->getTerminator();
    b.setInsertionPoint(yield);
    yield->setOperand(index, arith::TruncFOp::create(
                                 b, op.getLoc(), narrow,
                                 yield->getOperand(index)));
    retypeAndFollow(op->getResult(index));
  }

  /// The readers of a widening's result that take bfloat16 read its input
  /// instead.
  void bypassWidening(linalg::GenericOp op) {
    Value input = op.getDpsInputs()[0];
    SmallVector<OpOperand *> moved;
    for (OpOperand &use : op->getResult(0).getUses())
      if (takesNarrow(use))
        moved.push_back(&use);
    auto readers = groupByReader(moved);
    for (OpOperand *use : moved)
      use->set(input);
    for (auto &[reader, operands] : readers)
      readNarrow(reader, operands);
  }

  /// The matmuls given a bfloat16 operand, rebuilt with both operands
  /// bfloat16 (an f32 one rounded by a kernel) and their region's casts.
  void rebuildContractions() {
    for (Operation *op : contractions) {
      OpBuilder b(op);
      Location loc = op->getLoc();
      SmallVector<Value> inputs = {op->getOperand(0), op->getOperand(1)};
      // Rounded where the f32 operand is made, not between the output's
      // fill and the product (the GEMM call overwrites a zero-filled
      // output only when nothing runs between).
      for (Value &input : inputs)
        if (isF32Tensor(input)) {
          OpBuilder::InsertionGuard guard(b);
          b.setInsertionPointAfterValue(input);
          input = round(b, loc, input);
        }
      Value init = op->getOperand(2);
      Operation *rebuilt;
      if (isa<linalg::MatmulOp>(op))
        rebuilt = linalg::MatmulOp::create(b, loc, TypeRange{init.getType()},
                                           inputs, ValueRange{init});
      else
        rebuilt = linalg::BatchMatmulOp::create(
            b, loc, TypeRange{init.getType()}, inputs, ValueRange{init});
      op->replaceAllUsesWith(rebuilt);
      op->erase();
    }
    contractions.clear();
  }

private:
  /// `v`'s element type to bfloat16 (its shape kept), then its readers.
  void retypeAndFollow(Value v) {
    v.setType(cast<RankedTensorType>(v.getType()).clone(narrow));
    SmallVector<OpOperand *> uses =
        llvm::map_to_vector(v.getUses(), [](OpOperand &use) { return &use; });
    for (auto &[reader, operands] : groupByReader(uses))
      readNarrow(reader, operands);
  }

  /// `v` rounded to bfloat16 by an elementwise kernel.
  Value round(OpBuilder &b, Location loc, Value v) {
    auto type = cast<RankedTensorType>(v.getType());
    Value init = tensor::EmptyOp::create(b, loc, type.getShape(), narrow);
    SmallVector<AffineMap> maps(
        2, AffineMap::getMultiDimIdentityMap(type.getRank(), b.getContext()));
    SmallVector<utils::IteratorType> iterators(type.getRank(),
                                               utils::IteratorType::parallel);
    auto op = linalg::GenericOp::create(
        b, loc, TypeRange{init.getType()}, ValueRange{v}, ValueRange{init},
        maps, iterators, [&](OpBuilder &nb, Location nl, ValueRange args) {
          Value r = arith::TruncFOp::create(nb, nl, narrow, args[0]);
          linalg::YieldOp::create(nb, nl, r);
        });
    return op.getResult(0);
  }

  Type narrow, wide;
  llvm::SetVector<Operation *> contractions;
};

struct TelarNarrowStorage
    : public telar::impl::TelarNarrowStorageBase<TelarNarrowStorage> {
  void runOnOperation() override {
    func::FuncOp fn = getOperation();
    Narrowing narrowing(&getContext());
    SmallVector<linalg::GenericOp> generics;
    fn.walk([&](linalg::GenericOp op) { generics.push_back(op); });
    for (linalg::GenericOp op : generics) {
      if (isWidening(op)) {
        // Readers that take bfloat16 read the input; the rest keep this.
        narrowing.bypassWidening(op);
        if (op->use_empty())
          op->erase();
        continue;
      }
      if (op.getNumParallelLoops() != op.getNumLoops())
        continue; // a reduction: its output accumulates in f32
      for (OpResult result : op->getResults()) {
        OpOperand *init = op.getDpsInitOperand(result.getResultNumber());
        if (isF32Tensor(result) && !op.payloadUsesValueFromOperand(init) &&
            allUsesTakeNarrow(result))
          narrowing.narrowResult(op, result.getResultNumber());
      }
    }
    narrowing.rebuildContractions();
    if (narrowing.failedToRead)
      signalPassFailure();
  }
};

} // namespace
