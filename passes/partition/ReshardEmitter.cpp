//===- ReshardEmitter.cpp - Resharding steps as shard collectives ---------===//
//
// The one place telar-partition creates communication: the steps that
// telar_sharding::reshard returns, one shard op per step, so that what the
// cost model prices (the same function's steps) is what runs.
//
//===----------------------------------------------------------------------===//

#include "PartitionInternal.h"

#include "telar/dialects/Telar/TelarDialect.h"

using namespace mlir;
using namespace mlir::telar;
using namespace mlir::telar::partition;

namespace mlir::telar::partition {

std::string format(const Sharding &sharding, const Mesh &mesh) {
  return telar_sharding::formatSharding(sharding, mesh);
}

static shard::ReductionKind toShardReduction(ReductionKind kind) {
  switch (kind) {
  case ReductionKind::Sum:
    return shard::ReductionKind::Sum;
  case ReductionKind::Max:
    return shard::ReductionKind::Max;
  case ReductionKind::Min:
    return shard::ReductionKind::Min;
  case ReductionKind::Prod:
    return shard::ReductionKind::Product;
  }
  llvm_unreachable("unknown reduction kind");
}

FailureOr<Value> emitReshard(OpBuilder &b, Location loc, Value value,
                             RankedTensorType globalType, const Sharding &from,
                             const Sharding &to, const GridInfo &grid,
                             Operation *diagOp, bool onlySlices) {
  if (from == to)
    return value;
  const Mesh &mesh = grid.mesh;
  std::string error;
  auto steps = getReshardSteps(globalType, from, to, mesh, error);
  if (!steps) {
    diagOp->emitError() << "cannot reshard " << globalType << " from "
                        << format(from, mesh) << " to " << format(to, mesh)
                        << ": " << error;
    return failure();
  }
  if (onlySlices)
    for (const telar_sharding::ReshardStep &step : *steps)
      if (step.kind != telar_sharding::StepKind::LocalSlice) {
        diagOp->emitError()
            << "needs a " << telar_sharding::getStepKindName(step.kind)
            << " to turn " << format(from, mesh) << " into "
            << format(to, mesh);
        return failure();
      }
  return emitSteps(b, loc, value, globalType.getElementType(), *steps, grid);
}

Value emitSteps(OpBuilder &b, Location loc, Value value, Type elementType,
                ArrayRef<telar_sharding::ReshardStep> steps,
                const GridInfo &grid) {
  MLIRContext *ctx = b.getContext();
  StringRef bytesName = TelarDialect::BytesAttrHelper::getNameStr();
  for (const telar_sharding::ReshardStep &step : steps) {
    SmallVector<int16_t> axes(step.axes.begin(), step.axes.end());
    auto axesAttr = DenseI16ArrayAttr::get(ctx, axes);
    auto type = RankedTensorType::get(step.outputShape, elementType);
    IntegerAttr dim = b.getIndexAttr(step.dim);
    Operation *op = nullptr;
    switch (step.kind) {
    case telar_sharding::StepKind::AllGather:
      op = shard::AllGatherOp::create(b, loc, type, grid.symbol, axesAttr,
                                      value, dim);
      break;
    case telar_sharding::StepKind::LocalSlice:
      op = shard::AllSliceOp::create(b, loc, type, grid.symbol, axesAttr,
                                     value, dim);
      break;
    case telar_sharding::StepKind::AllToAll:
      op = shard::AllToAllOp::create(b, loc, type, grid.symbol, axesAttr,
                                     value, dim,
                                     b.getIndexAttr(step.concatDim));
      break;
    case telar_sharding::StepKind::AllReduce:
      op = shard::AllReduceOp::create(
          b, loc, type, grid.symbol, axesAttr, value,
          shard::ReductionKindAttr::get(ctx, toShardReduction(step.reduction)));
      break;
    case telar_sharding::StepKind::ReduceScatter:
      op = shard::ReduceScatterOp::create(
          b, loc, type, grid.symbol, axesAttr, value,
          shard::ReductionKindAttr::get(ctx, toShardReduction(step.reduction)),
          dim);
      break;
    }
    op->setAttr(bytesName, b.getI64IntegerAttr(step.bytesSent));
    value = op->getResult(0);
  }
  return value;
}

} // namespace mlir::telar::partition
