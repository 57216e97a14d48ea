//===- Strategies.h - Enumerating an op's sharding strategies ---*- C++ -*-===//
//
// A strategy of an op is one assignment of mesh axes to the factors (loops)
// of its #telar.sharding_rule, and the shardings of its operands and
// results that follow. Strategies come from the rule alone, never from a
// per-model list: data parallelism (batch loops), Megatron's column and row
// splits (parallel and reduction loops of a matmul), head, sequence and
// expert splits are all assignments of this enumeration.
//
//===----------------------------------------------------------------------===//

#ifndef TELAR_PLANNER_STRATEGIES_H
#define TELAR_PLANNER_STRATEGIES_H

#include "telar/dialects/Telar/TelarAttrs.h"
#include "telar/sharding/core/Sharding.h"

#include "llvm/ADT/ArrayRef.h"

#include <vector>

namespace mlir::telar::planner {

struct Strategy {
  /// Per factor of the rule, the mesh axes splitting it (major to minor).
  std::vector<std::vector<int64_t>> factorAxes;
  /// What each operand is wanted with (never partial) and what each result
  /// is produced with (partial along the axes of split reduction factors).
  std::vector<telar_sharding::Sharding> operands, results;
};

/// Every assignment of the mesh's axes to the factors of `rule` that the
/// shapes allow: each axis splits one factor or none; the factors that take
/// axes are splittable (completion's rule) and not `whole`; a factor's axes
/// (in mesh order) divide its size; every tensor can carry the assignment
/// (block-valid products); split reductions leave one kind of partial
/// result; and completion, reading the results back, recovers the same
/// assignment (so a plan that names the results means this strategy). The
/// all-replicated strategy is first.
std::vector<Strategy> enumerateStrategies(ShardingRuleAttr rule,
                                          const telar_sharding::Mesh &mesh,
                                          llvm::ArrayRef<bool> whole);

/// Every non-partial sharding of a tensor of `shape` on `mesh` with each
/// dimension's axes in mesh order and dividing it; replicated first.
std::vector<telar_sharding::Sharding>
enumerateShardings(llvm::ArrayRef<int64_t> shape,
                   const telar_sharding::Mesh &mesh);

} // namespace mlir::telar::planner

#endif // TELAR_PLANNER_STRATEGIES_H
