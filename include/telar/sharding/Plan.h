//===- Plan.h - A parallelization plan and plan.json ------------*- C++ -*-===//
//
// A Plan is data (DESIGN.md): a mesh and shardings of named values (ONNX
// tensor names: graph inputs, initializers, node outputs). Hand-written
// plans, scripts and the planner all read and write plan.json through the
// one serializer here (docs/Plan.md). A plan may name only some values; the
// compiler completes the rest by propagation (telar-apply-plan).
//
// A pipelined plan lists stages instead: each a contiguous part of the
// program, its submesh (on ranks [firstRank, firstRank + devices) of the
// world) and its shardings, plus a schedule (microbatches, virtual stages).
//
//===----------------------------------------------------------------------===//

#ifndef TELAR_SHARDING_PLAN_H
#define TELAR_SHARDING_PLAN_H

#include "telar/sharding/core/Sharding.h"

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace telar_sharding {

/// One pipeline stage of a plan.
struct PlanStage {
  /// Names of the values this stage's ops compute (plan value names), in
  /// program order. Ops computed from weights/constants alone may be in no
  /// stage: they are copied into every stage using them.
  std::vector<std::string> ops;
  /// The submesh (no axes: one device).
  Mesh mesh;
  /// The world rank of the submesh's rank 0 (ranks row-major over `mesh`).
  int64_t firstRank = 0;
  /// On `mesh`, at microbatch shapes.
  std::map<std::string, Sharding> shardings;

  bool operator==(const PlanStage &other) const {
    return ops == other.ops && mesh == other.mesh &&
           firstRank == other.firstRank && shardings == other.shardings;
  }
};

/// How the microbatches of a pipelined plan run.
struct PlanSchedule {
  /// "gpipe" | "1f1b" | "interleaved".
  std::string kind = "gpipe";
  int64_t microbatches = 1;
  int64_t virtualStages = 1;

  bool operator==(const PlanSchedule &other) const {
    return kind == other.kind && microbatches == other.microbatches &&
           virtualStages == other.virtualStages;
  }
};

struct Plan {
  Mesh mesh;
  /// By value name; axis indices refer to `mesh`.
  std::map<std::string, Sharding> shardings;
  /// The predicted cost breakdown (the planner's cost model), as the JSON
  /// text of plan.json's "cost" object; empty when not priced. Read and
  /// written verbatim: compiling a plan never depends on it.
  std::string costJson;
  /// The pipeline stages; empty: one stage (`mesh` and `shardings` above,
  /// which are empty when `stages` is not).
  std::vector<PlanStage> stages;
  /// The schedule; with no `stages`, one stage of every op on `mesh`,
  /// microbatched.
  std::optional<PlanSchedule> schedule;
};

/// Parses plan.json text. `meshOverride` (telarc --mesh) supplies the mesh
/// of a plan that names none, and must equal the plan's mesh when it names
/// one. Errors (nullopt, `error` set, naming the value): malformed JSON or
/// core fields, an axis not in the mesh, an axis used twice in one
/// sharding, an unknown reduction; with "stages": a top-level "mesh" or
/// "shardings" that is not empty, --mesh, a stage field of the wrong type
/// (named by its path: `stages[1].first_rank: ...`); a "schedule" of an
/// unknown kind or counts below 1. Unknown top-level, per-stage, schedule
/// or per-sharding fields are skipped with a message in `warnings`.
std::optional<Plan> parsePlanJson(std::string_view text,
                                  const std::optional<Mesh> &meshOverride,
                                  std::string &error,
                                  std::vector<std::string> &warnings);

/// plan.json text (stable: names sorted, two-space indentation), which
/// parsePlanJson reads back to an equal Plan.
std::string writePlanJson(const Plan &plan);

} // namespace telar_sharding

#endif // TELAR_SHARDING_PLAN_H
