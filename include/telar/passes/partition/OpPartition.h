//===- OpPartition.h - What telar-partition makes of one op -----*- C++ -*-===//
//
// The partitioner's per-op derivation, public so that the cost model
// (lib/planner) and the search price exactly what telar-partition emits:
// which factors of an op's sharding rule it keeps whole, the mesh axes of
// each factor given the shardings its operands arrive with, the shardings
// the operands are resharded to before the local op runs (they differ from
// what arrives only where a split had to be gathered) and the shardings its
// results come out with (before the local slices to their annotations).
// telar-partition itself calls these functions: there is no second copy.
//
//===----------------------------------------------------------------------===//
#ifndef TELAR_PASSES_PARTITION_OPPARTITION_H
#define TELAR_PASSES_PARTITION_OPPARTITION_H

#include "telar/dialects/Telar/TelarAttrs.h"
#include "telar/sharding/core/Reshard.h"
#include "telar/sharding/core/Sharding.h"

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Operation.h"
#include "mlir/Support/LLVM.h"
#include "llvm/ADT/SmallVector.h"

#include <optional>
#include <string>
#include <vector>

namespace mlir::telar::partition {

/// What one op runs on after telar-partition: the mesh axes of each factor
/// of its rule (major to minor), the sharding each operand is resharded to
/// (from what it arrives with) and the sharding each result is produced
/// with, partial along the axes of its split reduction factors and of the
/// partial operands it carries.
struct LocalAssignment {
  std::vector<std::vector<int64_t>> factorAxes;
  std::vector<telar_sharding::Sharding> operands, results;
};

/// Which factors of `op`'s rule the partitioner keeps whole whatever the
/// plan says: the rule's need-replication factors, product reductions (no
/// partial kind), the factors the op's family names, and every factor of
/// an op that has no family.
SmallVector<bool> getWholeFactors(Operation *op, ShardingRuleAttr rule);

/// The assignment telar-partition derives for `op` (an op with a sharding
/// rule) whose operands arrive sharded as `wanted` (one per operand, after
/// the resharding their uses are annotated with). Fails with `error` set
/// to the message telar-partition reports at the op: operands that split a
/// loop differently, a mesh axis splitting two loops, a partial operand the
/// op cannot take, a result sharding its dims cannot carry.
FailureOr<LocalAssignment>
getLocalAssignment(Operation *op, ArrayRef<telar_sharding::Sharding> wanted,
                   const telar_sharding::Mesh &mesh, std::string &error);

/// Bytes per element as the runtime stores them (booleans take one byte).
int64_t getElementBytes(Type elementType);

/// The resharding steps telar-partition emits (one shard collective each)
/// for a tensor of `globalType` going from `from` to `to`: those of
/// telar_sharding::reshard with the element size above; none when equal.
std::optional<std::vector<telar_sharding::ReshardStep>>
getReshardSteps(RankedTensorType globalType,
                const telar_sharding::Sharding &from,
                const telar_sharding::Sharding &to,
                const telar_sharding::Mesh &mesh, std::string &error);

/// The steps that take result `j` of `op` from the sharding its operands
/// give it (`produced`) to the one it is annotated with: local slices only,
/// else (with an error at `op`: telar-partition rejects the plan) failure.
FailureOr<std::vector<telar_sharding::ReshardStep>>
getResultSliceSteps(Operation *op, unsigned j,
                    const telar_sharding::Sharding &produced,
                    const telar_sharding::Sharding &annotated,
                    const telar_sharding::Mesh &mesh);

} // namespace mlir::telar::partition

#endif // TELAR_PASSES_PARTITION_OPPARTITION_H
