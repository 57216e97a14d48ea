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
#include "telar/planner/PipelineSearch.h"
#include "telar/planner/Search.h"

#include "llvm/Support/raw_ostream.h"

#include <memory>
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

/// A pipelined plan priced: each stage's plan completed and priced on its
/// stage function (at microbatch shape), the transfers between stages, the
/// pipeline's latency and bubble.
struct PricedPipeline {
  /// The microbatch program the stage functions were cut from.
  OwningOpRef<ModuleOp> program;
  struct Stage {
    std::unique_ptr<StageFunction> function;
    PricedPlan priced; // on function->func, local names
    /// Sends to later stages, seconds per microbatch.
    double transferSeconds = 0;
    int64_t transferBytes = 0;
    /// priced.cost.latency + transferSeconds.
    double seconds = 0;
    int64_t numOps = 0;
    std::string description;
  };
  std::vector<Stage> stages;
  int64_t microbatches = 1, virtualStages = 1, positions = 1;
  std::string schedule = "gpipe";
  /// For the whole batch (PipelineSearch.h's objective), and the predicted
  /// idle fraction: 1 - sum over positions of their busy time / (positions
  /// x latency).
  double latency = 0, bubble = 0;
  /// The plan, each stage's shardings completed (plan value names).
  telar_sharding::Plan plan;
};

/// Prices a plan with `stages` or a `schedule`: the microbatch program, the
/// stage functions of the stages' op lists, each stage completed and priced
/// (errors emitted, naming the stage).
FailureOr<std::shared_ptr<PricedPipeline>>
pricePipelinePlan(func::FuncOp main, const telar_sharding::Plan &plan,
                  const Profile &profile);

struct PlanningResult {
  PricedPlan chosen;
  /// A pipelined plan: its stages (then `chosen` holds the plan with
  /// stages and the totals only).
  std::shared_ptr<PricedPipeline> pipeline;
  std::optional<PipelineSearchResult> pipelineSearch;
  /// The one-stage search's predicted latency (inf: none fits), when the
  /// pipelines competed with it.
  double oneStageLatency = 0;
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

/// The data of the plan page (telarc --explain-html, lib/view): the mesh,
/// plan.json's "cost", the meshes searched, the largest weights and
/// activations with each rank's block offsets, and for a pipeline its
/// schedule table timed with the stages' predicted seconds. `model` names
/// the model in the page.
std::string getExplainPageJson(const PlanningResult &result,
                               const Profile &profile, llvm::StringRef model);

} // namespace mlir::telar::planner

#endif // TELAR_PLANNER_EXPLAIN_H
