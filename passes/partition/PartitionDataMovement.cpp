//===- PartitionDataMovement.cpp - Reshapes, slices, gathers, ... ---------===//
//
// The rules keep whole every axis whose elements move between blocks
// (concat's and split's axis, sliced, padded and tiled axes, gather's
// gathered axis, top_k's axis, one_hot's depth, trilu's matrix, cum_sum's
// axis), so the attributes on those axes stay global and right. Attributes
// that hold sizes of split axes get local ones here: reshape's and
// expand's target shapes, and the bounds of slice axes that are kept
// whole-range. A reshape is a product of factors; a split that does not
// map onto them (a block straddling factors) is gathered by the driver, and
// a result annotated with more axes than the operands give is sliced.
// Moving elements is linear, so partial operands stay partial.
//
//===----------------------------------------------------------------------===//

#include "PartitionInternal.h"

using namespace mlir;
using namespace mlir::telar;

namespace mlir::telar::partition {

/// The target shape is the local result shape.
static LogicalResult localizeShape(Operation *local, const OpPartition &p) {
  local->setAttr("shape", DenseI64ArrayAttr::get(
                              local->getContext(),
                              p.getLocalResultType(0).getShape()));
  return success();
}

/// Only operand `index` may be partial (any kind).
static std::function<bool(Operation *, ArrayRef<Sharding>)>
onlyOperandPartial(unsigned index) {
  return [index](Operation *, ArrayRef<Sharding> operands) {
    for (auto [i, s] : llvm::enumerate(operands))
      if (s.isPartial() && i != index)
        return false;
    return true;
  };
}

void addDataMovementPartitioners(PartitionerRegistry &registry) {
  auto anyKind = [](ReductionKind) { return true; };
  auto alike = [anyKind](Operation *, ArrayRef<Sharding> operands) {
    return allPartialAlike(operands, anyKind);
  };

  OpPartitioner reshape;
  reshape.localize = localizeShape;
  reshape.acceptsPartial = alike;
  registry.add<ReshapeOp, ExpandOp>(reshape);

  // Axes kept at full range (start 0, step 1: what the rule lets split)
  // get the local extent.
  OpPartitioner slice;
  slice.acceptsPartial = alike;
  slice.localize = [](Operation *local, const OpPartition &p) -> LogicalResult {
    auto op = cast<SliceOp>(local);
    auto in = cast<RankedTensorType>(op.getInput().getType());
    auto globalIn = cast<RankedTensorType>(p.op->getOperand(0).getType());
    auto globalOut = cast<RankedTensorType>(p.op->getResult(0).getType());
    SmallVector<int64_t> starts(op.getStarts()), ends(op.getEnds());
    for (auto [i, axis] : llvm::enumerate(op.getAxes())) {
      int64_t a = axis < 0 ? axis + in.getRank() : axis;
      if (in.getDimSize(a) == globalIn.getDimSize(a))
        continue; // Whole: the global bounds are the local ones.
      if (globalOut.getDimSize(a) != globalIn.getDimSize(a) ||
          op.getSteps()[i] != 1)
        return p.op->emitError("slices split axis ") << a;
      starts[i] = 0;
      ends[i] = in.getDimSize(a);
    }
    op.setStarts(starts);
    op.setEnds(ends);
    return success();
  };
  registry.add<SliceOp>(slice);

  OpPartitioner moves;
  moves.acceptsPartial = alike;
  registry.add<TransposeOp, SqueezeOp, UnsqueezeOp, ConcatOp, SplitOp,
               TileOp>(moves);

  OpPartitioner gather;
  gather.acceptsPartial = onlyOperandPartial(0);
  registry.add<GatherOp, GatherElementsOp, GatherNDOp>(gather);

  // Their moved axes are whole by their rules; no attribute holds the size
  // of a split axis.
  OpPartitioner plain;
  registry.add<PadOp, ScatterElementsOp, ScatterNDOp, OneHotOp, TopKOp,
               CumSumOp, TriluOp, DepthToSpaceOp, SpaceToDepthOp>(plain);
}

} // namespace mlir::telar::partition
