//===- PartitionInternal.h - Shared by telar-partition's files --*- C++ -*-===//
//
// The driver (Partition.cpp) rebuilds every telar op on local types from
// its sharding rule; the op families (Partition<Family>.cpp) say what the
// rule alone does not: factors the op cannot run split, attributes that
// hold global sizes, fix-ups after the local op, and the partial operands
// an op accepts. ReshardEmitter.cpp turns telar_sharding::reshard's steps
// into shard collectives.
//
//===----------------------------------------------------------------------===//
#ifndef TELAR_PASSES_PARTITION_PARTITIONINTERNAL_H
#define TELAR_PASSES_PARTITION_PARTITIONINTERNAL_H

#include "telar/dialects/Telar/TelarOps.h"
#include "telar/passes/partition/OpPartition.h"
#include "telar/sharding/core/Reshard.h"
#include "telar/sharding/core/Sharding.h"

#include "mlir/Dialect/Shard/IR/ShardOps.h"
#include "mlir/IR/Builders.h"
#include "llvm/ADT/StringMap.h"

#include <functional>

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

/// What an op family adds to the rule. Every member may be empty.
struct OpPartitioner {
  /// Adds factors of `op`'s rule that must not be split (on top of the
  /// rule's need-replication factors); their operand dims are gathered.
  std::function<void(Operation *op, ShardingRuleAttr rule,
                     SmallVectorImpl<int64_t> &)>
      wholeFactors;
  /// Rewrites attributes of the local op (`local`, a clone of the global op
  /// on local operands) that hold global sizes, before its result types are
  /// inferred.
  std::function<LogicalResult(Operation *local, const OpPartition &)> localize;
  /// Runs after the local op; returns the values that replace its results
  /// (reduce_mean's scaling).
  std::function<SmallVector<Value>(OpBuilder &, Operation *local,
                                   const OpPartition &)>
      finish;
  /// Whether the op takes the given operand shardings, some of them
  /// partial; on success the results are partial on the same axes.
  std::function<bool(Operation *, ArrayRef<Sharding>)> acceptsPartial;
};

/// The op families, by op name. An op without an entry is computed whole
/// (its operands gathered), which is slow but never wrong.
class PartitionerRegistry {
public:
  template <typename... Ops>
  void add(const OpPartitioner &p) {
    (map.try_emplace(Ops::getOperationName(), p), ...);
  }
  const OpPartitioner *lookup(Operation *op) const {
    auto it = map.find(op->getName().getStringRef());
    return it == map.end() ? nullptr : &it->second;
  }

private:
  llvm::StringMap<OpPartitioner> map;
};

/// The op families of all Partition<Family>.cpp files, built once.
const PartitionerRegistry &getPartitionerRegistry();

/// The pending reduction a split reduction factor of this kind leaves
/// (partial means are scaled into partial sums); none for products and
/// non-reductions.
std::optional<ReductionKind> getPartialKind(FactorKind kind);

void addElementwisePartitioners(PartitionerRegistry &registry);
void addContractionPartitioners(PartitionerRegistry &registry);
void addReductionPartitioners(PartitionerRegistry &registry);
void addDataMovementPartitioners(PartitionerRegistry &registry);
void addNNPartitioners(PartitionerRegistry &registry);

/// Partial-operand policies shared by families.
/// Every partial operand has the same partial axes and kinds as the first
/// partial one, and `allowed` accepts that kind.
bool allPartialAlike(ArrayRef<Sharding> operands,
                     function_ref<bool(ReductionKind)> allowed);
/// Exactly one operand (among `candidates`, all when empty) is partial,
/// with sums only.
bool onePartialSum(ArrayRef<Sharding> operands,
                   ArrayRef<unsigned> candidates = {});

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

/// The local type of a tensor of `globalType` sharded as `sharding`.
RankedTensorType getLocalType(RankedTensorType globalType,
                              const Sharding &sharding, const Mesh &mesh);

/// `sharding` in plan.json notation with axis names.
std::string format(const Sharding &sharding, const Mesh &mesh);

} // namespace mlir::telar::partition

#endif // TELAR_PASSES_PARTITION_PARTITIONINTERNAL_H
