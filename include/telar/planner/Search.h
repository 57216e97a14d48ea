//===- Search.h - Choosing a plan: meshes, strategies, the ILP --*- C++ -*-===//
//
// The automatic planner (telarc --devices N): for each candidate mesh, one
// strategy per op enumerated from its sharding rule (Strategies.h), ops
// that only follow their producer merged into its decision, repeated layers
// recognised structurally and decided once, resharding priced on the edges
// by the cost model (CostModel.h, the resharding function's steps), the
// memory limit as constraints, solved as an integer program with CBC
// (Ilp.h). The result is a Plan (plan.json), compiled like a user's.
//
// The search works on one function and one mesh at a time
// (planOnMesh), so a pipeline-stage search can call it per (layers,
// submesh) pair.
//
//===----------------------------------------------------------------------===//

#ifndef TELAR_PLANNER_SEARCH_H
#define TELAR_PLANNER_SEARCH_H

#include "telar/planner/Ilp.h"
#include "telar/planner/Profile.h"
#include "telar/sharding/core/Schedule.h"
#include "telar/sharding/Plan.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

#include <functional>
#include <limits>
#include <optional>
#include <string>
#include <vector>

namespace mlir::telar::planner {

/// The pipeline level of the search (PipelineSearch.h).
struct PipelineOptions {
  /// The number of stages: 0 searches (1 and more), 1 is no pipeline, N
  /// forces N (telarc --pipeline-stages).
  int64_t stages = 0;
  /// Only the one-stage plans (telarc --no-pipeline).
  bool disabled = false;
  /// Microbatches: 0 searches the divisors of the batch up to 16.
  int64_t microbatches = 0;
  /// Virtual stages per position (interleaved schedules).
  int64_t virtualStages = 1;
  /// The schedule; none: gpipe (interleaved with virtual stages).
  std::optional<telar_sharding::ScheduleKind> schedule;
};

struct SearchOptions {
  /// The number of devices (required).
  int64_t devices = 0;
  /// A fixed mesh (telarc --mesh); else every factorisation of `devices`
  /// into at most 3 axes that the profile's node size allows.
  std::optional<telar_sharding::Mesh> mesh;
  /// Shardings the plan must keep (a partial --plan); its mesh, if it has
  /// axes, fixes the mesh too.
  std::optional<telar_sharding::Plan> constraints;
  /// Bytes per device; 0: the profile's capacity.
  double memoryLimit = 0;
  /// For all meshes together.
  double timeLimitSeconds = 60;
  /// Progress lines ("mesh 2/5: x=2,y=4 ...").
  std::function<void(const std::string &)> progress;
  /// Pipelines (searchPlan itself plans one stage; planAndPrice adds the
  /// pipelines of searchPipeline).
  PipelineOptions pipeline;
};

/// The repeated layers of `main`'s body. Ops computed from weights alone
/// (constants, and a transpose or cast of one, which layers may share) are
/// left out of the comparison: `sequence` lists the other ops (indices into
/// the body), and its positions [start, start + period * count) are `count`
/// consecutive copies of `period` ops that are the same up to their weights
/// (count < 2: none).
struct LayerStructure {
  std::vector<int64_t> sequence;
  int64_t start = 0, period = 0, count = 0;

  /// Per op of the body: its counterpart in the first layer (itself outside
  /// the later layers).
  std::vector<int64_t> getRepresentatives(int64_t numOps) const;
  /// Per op of the body: the layer it belongs to (0..count-1), -1 before
  /// the layers, -2 after, -3 for ops left out of the sequence.
  std::vector<int64_t> getInstances(int64_t numOps) const;
};
LayerStructure findRepeatedLayers(func::FuncOp main);

/// What the search did on one mesh.
struct MeshSearch {
  telar_sharding::Mesh mesh;
  telar_planner::IlpSolution solution;
  /// Problem size after merging and tying.
  int64_t numNodes = 0, numStrategies = 0;
  /// The plan found (when solution.hasSolution()).
  telar_sharding::Plan plan;
  /// The least memory per device any choice needs on this mesh (set when
  /// no plan fits).
  double minimumMemory = 0;
  /// Not searched: the time limit was used up on the meshes before.
  bool skipped = false;
  /// Seconds spent building the integer program (0: the time limit ran out
  /// first).
  double buildSeconds = 0;
};

struct SearchResult {
  /// The chosen plan (mesh and the sharding of every named value).
  telar_sharding::Plan plan;
  /// Index into `meshes` of the chosen one.
  size_t chosen = 0;
  std::vector<MeshSearch> meshes;
  /// Structure the search used.
  int64_t numOps = 0;
  LayerStructure layers;
  double seconds = 0;
};


/// The meshes --devices N considers on `profile`: every ordered
/// factorisation of N into at most 3 axes of size >= 2 such that each axis
/// lies within a node or spans whole nodes (ranks are row-major, the last
/// axis minor). Axes are named "x", "y", "z" (renamed after planning).
std::vector<telar_sharding::Mesh>
enumerateMeshes(int64_t devices, const telar_planner::Profile &profile);

/// Names the axes of an automatic mesh (the planner's "x", "y", "z") by
/// what they split: "data" for an axis splitting the first dimension of an
/// argument of `main` (a graph input, or a stage's input), "model"
/// otherwise (numbered when several axes share a role: "model2").
telar_sharding::Plan nameMeshAxes(func::FuncOp main,
                                  const telar_sharding::Plan &plan);

/// How planOnMesh solves its integer program.
enum class Solver {
  /// CBC, with resharding priced lazily (bounds, then exact prices for the
  /// pairs a solution uses).
  Cbc,
  /// Every combination of strategies, every pair priced exactly up front:
  /// the reference the tests compare CBC with (small graphs only).
  BruteForce,
};

/// Plans `main` on one mesh. `memoryLimit` in bytes per device; only plans
/// cheaper than `cutoff` are searched for (none: solution status Beaten).
/// `layerCount`: price `main`'s repeated layers (findRepeatedLayers) as if
/// there were that many (their compute, weights and the uses between them),
/// so that a pipeline stage of k layers is planned on a function of two.
MeshSearch planOnMesh(func::FuncOp main, const telar_sharding::Mesh &mesh,
                      const telar_planner::Profile &profile,
                      const std::optional<telar_sharding::Plan> &constraints,
                      double memoryLimit, double timeLimitSeconds,
                      double cutoff = std::numeric_limits<double>::infinity(),
                      Solver solver = Solver::Cbc,
                      std::optional<int64_t> layerCount = std::nullopt);

/// Plans `main`: every candidate mesh, the cheapest plan that fits. Emits
/// an error and fails when no mesh fits ("does not fit", with the bytes
/// needed per device and the capacity) or the options are inconsistent.
FailureOr<SearchResult> searchPlan(func::FuncOp main,
                                   const telar_planner::Profile &profile,
                                   const SearchOptions &options);

} // namespace mlir::telar::planner

#endif // TELAR_PLANNER_SEARCH_H
