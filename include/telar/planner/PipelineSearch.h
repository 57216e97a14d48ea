//===- PipelineSearch.h - Pipeline stages: the inter-operator search -*- C++ -*-===//
//
// Alpa's inter-operator pass (Zheng et al., OSDI'22 §5): the program is cut
// into stages at unit boundaries (its repeated layers, findRepeatedLayers,
// or op-level cut points where few values cross when there are fewer
// layers than stages), each stage placed on a submesh (1 x 2^k devices
// within a node, or whole nodes) so that the submeshes tile the devices in
// rank order, and a dynamic program chooses the cuts and the submeshes
// that minimise the pipeline's latency for M microbatches,
//
//     sum_s t_s + (M - 1) max_s t_s,
//
// t_s being stage s's time for one microbatch: the intra-operator plan of
// its ops on its submesh (planOnMesh, on a function holding just the
// stage's ops, at microbatch shape) plus its sends to the later stages.
// Repeated layers are planned once per submesh shape: a stage of k layers
// is planned on a function of two with layerCount = k, and the plan the
// search finds for the most and the fewest layers is taken for the counts
// in between when it is the same plan (bisecting where it is not). The
// memory limit holds per stage.
//
//===----------------------------------------------------------------------===//

#ifndef TELAR_PLANNER_PIPELINESEARCH_H
#define TELAR_PLANNER_PIPELINESEARCH_H

#include "telar/planner/Search.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"
#include "llvm/ADT/DenseMap.h"

#include <functional>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace mlir::telar::planner {

/// A part of @main as a function of its own, for planning and pricing one
/// stage: the ops given (in program order) plus the ops computed from
/// weights alone that they use (cloned); arguments are the values of @main
/// they read (graph inputs, values of earlier ops; `telar.name` = their plan
/// name), results the values they compute that other ops or the outputs use.
struct StageFunction {
  OwningOpRef<ModuleOp> module;
  func::FuncOp func;
  /// Value of `func` -> the value of @main it stands for, and back.
  llvm::DenseMap<Value, Value> toMain, fromMain;
  /// @main values read and produced (in argument / result order).
  std::vector<Value> inputs, outputs;
};

/// The ops of `main` computed from weights alone (constants, a transpose or
/// cast of one): they belong to no stage.
llvm::DenseSet<Operation *> getWeightOnlyOps(func::FuncOp main);

/// `ops`: ops of main's body (not the terminator), each once.
std::unique_ptr<StageFunction> buildStageFunction(func::FuncOp main,
                                                  ArrayRef<Operation *> ops);

/// Plan value name of every named value of `main` (getValueNames inverted).
llvm::DenseMap<Value, std::string> getNamesByValue(func::FuncOp main);

//===----------------------------------------------------------------------===//
// The dynamic program, over an abstract stage cost
//===----------------------------------------------------------------------===//

struct StageDpProblem {
  int64_t numUnits = 0;
  int64_t devices = 0;
  /// Submeshes smaller than a node start at a multiple of their size (they
  /// do not straddle a node); whole-node ones at a node boundary.
  int64_t nodeSize = std::numeric_limits<int64_t>::max();
  std::vector<int64_t> submeshSizes;
  int64_t microbatches = 1;
  int64_t minStages = 1, maxStages = std::numeric_limits<int64_t>::max();
  /// Seconds of one microbatch of units [begin, end) on a submesh of
  /// submeshSizes[j]; nullopt: does not fit (or not a candidate).
  std::function<std::optional<double>(int64_t begin, int64_t end, size_t j)>
      cost;
};

struct StageDpStage {
  int64_t begin = 0, end = 0;
  size_t submesh = 0;
  int64_t firstRank = 0;
  double seconds = 0;
};

struct StageDpSolution {
  std::vector<StageDpStage> stages;
  double objective = std::numeric_limits<double>::infinity();
};

/// sum_s t_s + (M - 1) max_s t_s of these stage times.
double getPipelineLatency(const std::vector<double> &stageSeconds,
                          int64_t microbatches);

/// The minimum over every split of the units into consecutive stages (their
/// count within [minStages, maxStages]) and every assignment of submeshes
/// that tiles the devices in order (first ranks are the prefix sums). Alpa's
/// formulation: for each candidate t_max (a stage time), the least sum of
/// stage times with every stage within t_max, by DP over (stages, units,
/// devices used). nullopt when nothing fits.
std::optional<StageDpSolution> solveStageDp(const StageDpProblem &problem);
/// The same by enumerating every split and assignment (small problems: the
/// tests' reference).
std::optional<StageDpSolution>
solveStageBruteForce(const StageDpProblem &problem);

//===----------------------------------------------------------------------===//
// The search
//===----------------------------------------------------------------------===//

struct PipelineSearchResult {
  /// The plan: `stages` (each stage's value names, submesh, first rank and
  /// shardings at microbatch shape) and `schedule`.
  telar_sharding::Plan plan;
  /// Per stage: the units, the predicted seconds per microbatch (compute,
  /// communication within the stage and sends), what the units are.
  struct Stage {
    int64_t beginUnit = 0, endUnit = 0;
    double seconds = 0;
    std::string description; // "layers 0-11 (+ 12 ops before)"
  };
  std::vector<Stage> stages;
  int64_t microbatches = 1, virtualStages = 1;
  telar_sharding::ScheduleKind schedule = telar_sharding::ScheduleKind::GPipe;
  /// The DP's objective (seconds for the whole batch).
  double latency = 0;
  /// Statistics.
  int64_t numUnits = 0;
  bool layerUnits = false;
  int64_t planOnMeshCalls = 0, stageCosts = 0;
  double seconds = 0;
  /// The best latency per microbatch count tried (M, latency; inf: none).
  std::vector<std::pair<int64_t, double>> perMicrobatches;
};

/// The batch (dim 0 of the first non-weight input) and the microbatch
/// counts the search tries: options.microbatches when given, else the
/// divisors of the batch up to 16 (1 when the microbatch program is not
/// available).
std::vector<int64_t> getMicrobatchCandidates(func::FuncOp main,
                                             const PipelineOptions &options);

/// Whether this build can make microbatch programs (stagec's
/// makeMicrobatchProgram).
bool haveMicrobatchProgram();

/// Rewrites the module holding `main` (a clone: it is changed in place) into
/// the program of one of `microbatches` microbatches. Errors are emitted.
LogicalResult makeMicrobatches(func::FuncOp main, int64_t microbatches);

/// Searches the pipelines of `main` with at least two stages (exactly
/// options.pipeline.stages when given). Returns nullopt when none fits (the
/// caller's one-stage plan competes); fails with an error when the options
/// are inconsistent or a forced pipeline does not fit.
FailureOr<std::optional<PipelineSearchResult>>
searchPipeline(func::FuncOp main, const telar_planner::Profile &profile,
               const SearchOptions &options);

} // namespace mlir::telar::planner

#endif // TELAR_PLANNER_PIPELINESEARCH_H
