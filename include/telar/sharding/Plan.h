//===- Plan.h - A parallelization plan and plan.json ------------*- C++ -*-===//
//
// A Plan is data (DESIGN.md): a mesh and shardings of named values (ONNX
// tensor names: graph inputs, initializers, node outputs). Hand-written
// plans, scripts and the planner all read and write plan.json through the
// one serializer here (docs/Plan.md). A plan may name only some values; the
// compiler completes the rest by propagation (telar-apply-plan).
//
//===----------------------------------------------------------------------===//

#ifndef TELAR_SHARDING_PLAN_H
#define TELAR_SHARDING_PLAN_H

#include "telar/sharding/Sharding.h"

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace telar_sharding {

struct Plan {
  Mesh mesh;
  /// By value name; axis indices refer to `mesh`.
  std::map<std::string, Sharding> shardings;
  /// The predicted cost breakdown (the planner's cost model), as the JSON
  /// text of plan.json's "cost" object; empty when not priced. Read and
  /// written verbatim: compiling a plan never depends on it.
  std::string costJson;
};

/// Parses plan.json text. `meshOverride` (telarc --mesh) supplies the mesh
/// of a plan that names none, and must equal the plan's mesh when it names
/// one. Errors (nullopt, `error` set, naming the value): malformed JSON or
/// core fields, an axis not in the mesh, an axis used twice in one
/// sharding, an unknown reduction. Unknown top-level or per-sharding fields
/// are skipped with a message in `warnings`.
std::optional<Plan> parsePlanJson(std::string_view text,
                                  const std::optional<Mesh> &meshOverride,
                                  std::string &error,
                                  std::vector<std::string> &warnings);

/// plan.json text (stable: names sorted, two-space indentation), which
/// parsePlanJson reads back to an equal Plan.
std::string writePlanJson(const Plan &plan);

} // namespace telar_sharding

#endif // TELAR_SHARDING_PLAN_H
