//===- Explain.h - Planning, pricing and explaining a plan ------*- C++ -*-===//
//
// What telarc does with plans: with --devices it searches one
// (Search.h); any plan, searched or given, is completed and priced by the
// cost model exactly as telar-partition will emit it (CostModel.h); with
// --explain the price is printed as a table (per op, repeated layers once;
// totals; the runner-ups: pure data parallelism and the best pure tensor
// parallelism), and plan.json's "cost" holds the same breakdown.
//
//===----------------------------------------------------------------------===//

#ifndef TELAR_PLANNER_EXPLAIN_H
#define TELAR_PLANNER_EXPLAIN_H

#include "telar/planner/CostModel.h"
#include "telar/planner/Search.h"

#include "llvm/Support/raw_ostream.h"

#include <optional>
#include <string>
#include <vector>

namespace mlir::telar::planner {

/// A plan priced by the cost model.
struct PricedPlan {
  telar_sharding::Plan plan;
  CompletedPlan completed;
  PlanCost cost;
};

/// A runner-up of the chosen plan, for comparison.
struct Alternative {
  std::string name; // "pure data parallelism", ...
  /// Empty when it could be priced, else why not.
  std::string unavailable;
  PricedPlan priced;
};

struct PlanningResult {
  PricedPlan chosen;
  std::optional<SearchResult> search;
  std::vector<Alternative> alternatives;
  /// The memory limit the plan was chosen under (bytes per device).
  double memoryLimit = 0;
};

/// Completes `plan` on `main` and prices it. Errors are emitted.
FailureOr<PricedPlan> pricePlan(func::FuncOp main,
                                const telar_sharding::Plan &plan,
                                const Profile &profile);

/// With `search` set: plans automatically (the user's plan, if any, as
/// constraints), then prices the result and, when `alternatives`, the
/// runner-ups. Without: prices the user's plan.
FailureOr<PlanningResult>
planAndPrice(func::FuncOp main, const Profile &profile,
             const std::optional<telar_sharding::Plan> &userPlan,
             const std::optional<SearchOptions> &search, bool alternatives);

/// The --explain table.
void printExplain(llvm::raw_ostream &os, func::FuncOp main,
                  const PlanningResult &result, const Profile &profile);

/// plan.json's "cost": the cost model's breakdown (toJson) plus the
/// search's statistics and the runner-ups' totals.
std::string getCostJson(const PlanningResult &result);

} // namespace mlir::telar::planner

#endif // TELAR_PLANNER_EXPLAIN_H
