//===- Completion.h - Complete a plan by propagation ------------*- C++ -*-===//
//
// A plan names the shardings of some values; completion gives every tensor
// value of @main a sharding, by propagating the named ones through each
// op's typed sharding rule (ShardingRuleOpInterface), forward and backward,
// with conflicts resolved by the cheaper resharding in bytes
// (telar_sharding::reshard). docs/Plan.md states the rules; telar-apply-plan
// writes the result into the IR, telarc --emit=plan prints it.
//
//===----------------------------------------------------------------------===//

#ifndef TELAR_SHARDING_COMPLETION_H
#define TELAR_SHARDING_COMPLETION_H

#include "telar/dialects/Telar/TelarAttrs.h"
#include "telar/sharding/Plan.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Value.h"
#include "llvm/ADT/DenseMap.h"

#include <map>
#include <string>

namespace mlir::telar {

/// The sharding of every tensor value of @main, and of every use that wants
/// another one than its value has.
struct CompletedPlan {
  telar_sharding::Mesh mesh;
  /// Every tensor value (arguments and op results of @main's body): the
  /// sharding it is produced with, partial where a split reduction leaves it
  /// so.
  llvm::DenseMap<Value, telar_sharding::Sharding> values;
  /// The uses (operands of ops and of func.return) whose op wants the
  /// operand with another sharding than its value's; never partial.
  llvm::DenseMap<OpOperand *, telar_sharding::Sharding> uses;
  /// The values named in the IR (arguments by telar.name, results by
  /// telar.result_names), by name.
  std::map<std::string, Value> names;
};

/// The names plans use for the tensor values of `main`: graph inputs by
/// their telar.name, op results by telar.result_names (ONNX names), and
/// every other op result by a derived name, "<ONNX node>#<k>" for the k-th
/// unnamed result among the ops imported from that node (program order),
/// or "<op name>#<k>" for ops that carry no node name (canonicalisation's).
/// Deterministic for a given model and telarc, so a plan that names a
/// derived name means the same value when compiled again.
std::map<std::string, Value> getValueNames(func::FuncOp main);

/// Reads plan.json from `planFile` (parsePlanJson), with the mesh of
/// `meshSpec` ("data=2,model=2", may be empty) as its --mesh; with no file,
/// a plan naming nothing on that mesh. Errors (and the plan's warnings) are
/// emitted at `loc`.
FailureOr<telar_sharding::Plan> loadPlan(Location loc, StringRef planFile,
                                         StringRef meshSpec);

/// Binds `plan`'s names to values of `main`, checks their shardings
/// against the values' types, and completes them. Emits an error naming the
/// value (and op) and fails on: an unknown name (with the closest names),
/// a sharding of the wrong rank or whose axes do not divide a dimension, a
/// partial graph input or output, a partial value that its op cannot
/// produce, and a named sharding its op cannot produce.
FailureOr<CompletedPlan> completePlan(func::FuncOp main,
                                      const telar_sharding::Plan &plan);

/// Factor-level helpers of completion's rule reading, shared with the
/// planner's strategy enumeration (so a strategy means what completion reads
/// back from the plan it writes). Tensors are numbered operands first, then
/// results.
///
/// The sharding of tensor `t` when the factors of `rule` take `factorAxes`
/// (per factor, mesh axes major to minor); for a result, partial along the
/// axes of split reduction factors it does not hold. Sets `invalid` to a
/// factor the tensor cannot carry (a minor factor split under a major one
/// not split completely, a factor in two dimensions), else leaves it.
telar_sharding::Sharding
deriveTensorSharding(ShardingRuleAttr rule, const telar_sharding::Mesh &mesh,
                     unsigned t,
                     const std::vector<std::vector<int64_t>> &factorAxes,
                     int64_t &invalid);
/// The factor axes that `sharding` of tensor `t` determines (completion's
/// reading of a named tensor), one entry per factor it determines.
std::map<int64_t, std::vector<int64_t>>
extractFactorAxes(ShardingRuleAttr rule, const telar_sharding::Mesh &mesh,
                  unsigned t, const telar_sharding::Sharding &sharding);
/// Whether completion lets factors of `kind` take mesh axes (parallel, and
/// reductions with a partial kind: sum, mean, max, min).
bool isSplittableFactor(FactorKind kind);

/// The completed plan as a Plan: the sharding of every named value (as
/// produced, so partial where it is). telarc --emit=plan prints it.
telar_sharding::Plan getNamedPlan(const CompletedPlan &completed);

} // namespace mlir::telar

#endif // TELAR_SHARDING_COMPLETION_H
