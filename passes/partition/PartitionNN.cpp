//===- PartitionNN.cpp - Convolutions, pools, resize, rotary embedding ----===//
//
// Convolutions and pools split their batch and channels locally (a split
// input-channel sum leaves a partial result); their input windows are
// need-replication factors, so a split spatial axis is gathered and each
// rank computes its block of output rows from the whole input (the output
// spatial factors only results have, sliced by the driver). What this
// family adds: a split convolution group count is local (groups split with
// the channels), and resize's `sizes` is the local output shape.
//
//===----------------------------------------------------------------------===//

#include "PartitionInternal.h"

using namespace mlir;
using namespace mlir::telar;

namespace mlir::telar::partition {

/// conv / conv_transpose: the group factor is the major factor of the
/// output channels (pruned when there is one group).
static LogicalResult localizeGroups(Operation *local, const OpPartition &p) {
  auto group = local->getAttrOfType<IntegerAttr>("group");
  if (!group || group.getInt() <= 1)
    return success();
  DimMappingAttr channels = p.rule.getResultMappings()[0].getDims()[1];
  if (channels.getFactors().empty())
    return success();
  int64_t g = channels.getFactors().front();
  if (p.rule.getFactorSizes()[g] != group.getInt())
    return success(); // Not the group factor (a fallback rule).
  local->setAttr("group", IntegerAttr::get(group.getType(),
                                           group.getInt() / p.getSplit(g)));
  return success();
}

void addNNPartitioners(PartitionerRegistry &registry) {
  OpPartitioner conv;
  conv.localize = localizeGroups;
  conv.acceptsPartial = [](Operation *, ArrayRef<Sharding> operands) {
    // Linear in the input (operand 0) without a bias.
    return operands.size() == 2 && onePartialSum(operands, {0});
  };
  registry.add<ConvOp, ConvTransposeOp>(conv);

  OpPartitioner resize;
  resize.localize = [](Operation *local, const OpPartition &p) {
    auto sizes = local->getAttrOfType<DenseI64ArrayAttr>("sizes");
    if (sizes && !sizes.empty())
      local->setAttr("sizes", DenseI64ArrayAttr::get(
                                  local->getContext(),
                                  p.getLocalResultType(0).getShape()));
    return success();
  };
  registry.add<ResizeOp>(resize);

  OpPartitioner plain;
  registry.add<MaxPoolOp, AveragePoolOp, RotaryEmbeddingOp>(plain);
}

} // namespace mlir::telar::partition
