//===- OpSharding.h - What one op becomes on a mesh -------------*- C++ -*-===//
//
// The per-op derivation from an op's sharding rule alone, below both the
// partitioner (telar-partition emits it) and the planner (the cost model and
// the search price it): the factors that stay whole, the mesh axes of each
// factor given the shardings its operands arrive with, the shardings the
// operands are resharded to before the local op runs (they differ from what
// arrives only where a split had to be gathered), the shardings its results
// come out with (before the local slices to their annotations), the
// resharding steps between two shardings, and the attributes that hold
// global sizes rewritten to local ones. Everything here reads the rule
// (#telar.sharding_rule: kinds, whole factors, partial operands) and the
// op's types; nothing is told per op family.
//
//===----------------------------------------------------------------------===//
#ifndef TELAR_SHARDING_OPSHARDING_H
#define TELAR_SHARDING_OPSHARDING_H

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

namespace mlir::telar {

/// What one op runs on after telar-partition: the mesh axes of each factor
/// of its rule (major to minor), the sharding each operand is resharded to
/// (from what it arrives with) and the sharding each result is produced
/// with, partial along the axes of its split reduction factors and of the
/// partial operands it carries.
struct LocalAssignment {
  std::vector<std::vector<int64_t>> factorAxes;
  std::vector<telar_sharding::Sharding> operands, results;
};

/// The pending reduction a split reduction factor of this kind leaves (a
/// split mean leaves partial sums, which telar-partition scales); none for
/// products and non-reductions.
std::optional<telar_sharding::ReductionKind> getPartialKind(FactorKind kind);

/// The factors of `rule` that stay whole whatever a plan says
/// (ShardingRuleAttr::isWholeFactor: need-replication factors and product
/// reductions).
SmallVector<bool> getWholeFactors(ShardingRuleAttr rule);

/// Whether an op with `rule` takes operands sharded as `operands`, some of
/// them partial, as they are (its rule's partial_alike or partial_one);
/// its results are then partial on the same axes and kinds.
bool acceptsPartialOperands(ShardingRuleAttr rule,
                            ArrayRef<telar_sharding::Sharding> operands);

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

/// The local type of a tensor of `globalType` sharded as `sharding`.
RankedTensorType getLocalType(RankedTensorType globalType,
                              const telar_sharding::Sharding &sharding,
                              const telar_sharding::Mesh &mesh);

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

/// Rewrites the attributes of `local` (a clone of the telar op `global` on
/// local operands) that hold global sizes to the local ones of `assignment`
/// on `mesh`, before its result types are inferred: reshape's and expand's
/// target shapes, the bounds of slice axes kept whole-range, resize's
/// sizes, a split convolution's group count. Other ops hold no size of a
/// factor their rule lets split. Errors are emitted at `global`.
LogicalResult localizeAttributes(Operation *local, Operation *global,
                                 const LocalAssignment &assignment,
                                 const telar_sharding::Mesh &mesh);

} // namespace mlir::telar

#endif // TELAR_SHARDING_OPSHARDING_H
