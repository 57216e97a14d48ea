//===- PartitionInternal.h - Shared by telar-partition's files --*- C++ -*-===//
//
// The driver (Partition.cpp) rebuilds every telar op on local types from
// what its sharding rule gives (OpSharding.h: the factors' axes, the local
// attributes, which partial operands it takes); PartitionReductions.cpp
// scales reduce_mean's local means; ReshardEmitter.cpp turns
// telar_sharding::reshard's steps into shard collectives.
//
//===----------------------------------------------------------------------===//
#ifndef TELAR_PASSES_PARTITION_PARTITIONINTERNAL_H
#define TELAR_PASSES_PARTITION_PARTITIONINTERNAL_H

#include "telar/dialects/Telar/TelarOps.h"
#include "telar/sharding/OpSharding.h"
#include "telar/sharding/core/Reshard.h"
#include "telar/sharding/core/Sharding.h"

#include "mlir/Dialect/Shard/IR/ShardOps.h"
#include "mlir/IR/Builders.h"

namespace mlir::telar::partition {

using telar_sharding::Mesh;
using telar_sharding::ReductionKind;
using telar_sharding::Sharding;

/// The module's grid: its symbol and the mesh it describes.
struct GridInfo {
  FlatSymbolRefAttr symbol;
  Mesh mesh;
};

/// One op being partitioned: its rule and the mesh axes of each factor, the
/// shardings its operands get and its results have before any final slice.
struct OpPartition {
  Operation *op = nullptr; // the global op
  ShardingRuleAttr rule;
  const GridInfo *grid = nullptr;
  /// Per factor, the mesh axes that split it, major to minor.
  std::vector<std::vector<int64_t>> factorAxes;
  /// What each operand is resharded to, and what each result is before the
  /// slices to its annotated sharding (getLocalAssignment's).
  std::vector<Sharding> operands, results;

  /// The product of the sizes of `factor`'s axes.
  int64_t getSplit(int64_t factor) const;
  /// The per-rank size of `factor`.
  int64_t getLocalSize(int64_t factor) const {
    return rule.getFactorSizes()[factor] / getSplit(factor);
  }
  /// The local type of result `i`.
  RankedTensorType getLocalResultType(unsigned i) const;
};

/// The values that replace the results of `local`, the local reduce_mean
/// of `p`: its local means scaled by 1 / (the number of blocks of its
/// reduced loops) into partial sums.
SmallVector<Value> scaleLocalMeans(OpBuilder &b, Operation *local,
                                   const OpPartition &p);

/// Emits `steps` (of a tensor of element type `elementType`) on the local
/// value `value`, one shard collective per step, each marked `telar.bytes`.
/// Returns the new local value.
Value emitSteps(OpBuilder &b, Location loc, Value value, Type elementType,
                ArrayRef<telar_sharding::ReshardStep> steps,
                const GridInfo &grid);

/// Emits the steps of getReshardSteps from `from` to `to` for the local
/// value `value` of a tensor of `globalType` (emitSteps). With
/// `onlySlices`, a step that communicates is an error (reported on
/// `diagOp`). Returns the new local value.
FailureOr<Value> emitReshard(OpBuilder &b, Location loc, Value value,
                             RankedTensorType globalType, const Sharding &from,
                             const Sharding &to, const GridInfo &grid,
                             Operation *diagOp, bool onlySlices = false);

/// `sharding` in plan.json notation with axis names.
std::string format(const Sharding &sharding, const Mesh &mesh);

} // namespace mlir::telar::partition

#endif // TELAR_PASSES_PARTITION_PARTITIONINTERNAL_H
