//===- ExplainPage.cpp - The data of telarc --explain-html ----------------===//
//
// What the plan page (lib/view) draws, as JSON: the mesh, the cost
// breakdown (plan.json's "cost", the same numbers as --explain), the meshes
// the search tried, the largest weights and activations with each rank's
// block (the sharding core's getBlockOffsets: the page does no sharding
// math of its own), and for a pipeline its schedule table timed with the
// stages' predicted seconds (simulateSchedule).
//
//===----------------------------------------------------------------------===//

#include "telar/planner/Explain.h"

#include "telar/sharding/core/Schedule.h"

#include "mlir/IR/BuiltinTypes.h"
#include "llvm/Support/JSON.h"

#include <algorithm>

using namespace mlir;
using namespace mlir::telar::planner;
using telar_sharding::Mesh;
using telar_sharding::Sharding;

namespace {

/// Values drawn per kind: the largest (a model has hundreds).
constexpr size_t kMaxWeights = 16, kMaxActivations = 8;

llvm::json::Array meshJson(const Mesh &mesh) {
  llvm::json::Array axes;
  for (int64_t i = 0; i < mesh.getNumAxes(); ++i)
    axes.push_back(llvm::json::Object{{"name", mesh.axisNames[size_t(i)]},
                                      {"size", mesh.axisSizes[size_t(i)]}});
  return axes;
}

std::string elementName(Type type) {
  std::string s;
  llvm::raw_string_ostream os(s);
  type.print(os);
  return s;
}

struct Drawn {
  std::string name;
  RankedTensorType type;
  int64_t bytes = 0;
  bool weight = false;
  Sharding sharding;
};

llvm::json::Object valueJson(const Drawn &v, const Mesh &mesh) {
  std::vector<int64_t> shape(v.type.getShape().begin(),
                             v.type.getShape().end());
  llvm::json::Array dims, blocks;
  for (const std::vector<int64_t> &axes : v.sharding.dims) {
    llvm::json::Array names;
    for (int64_t a : axes)
      names.push_back(mesh.axisNames[size_t(a)]);
    dims.push_back(std::move(names));
  }
  llvm::json::Array partial;
  for (const auto &[axis, kind] : v.sharding.partial)
    partial.push_back(mesh.axisNames[size_t(axis)]);
  for (int64_t r = 0; r < mesh.getNumDevices(); ++r) {
    llvm::json::Array offsets;
    for (int64_t o :
         telar_sharding::getBlockOffsets(shape, v.sharding, mesh, r))
      offsets.push_back(o);
    blocks.push_back(std::move(offsets));
  }
  llvm::json::Array shapeJson, local;
  for (int64_t d : shape)
    shapeJson.push_back(d);
  for (int64_t d : telar_sharding::getLocalShape(shape, v.sharding, mesh))
    local.push_back(d);
  return llvm::json::Object{{"name", v.name},
                            {"weight", v.weight},
                            {"dtype", elementName(v.type.getElementType())},
                            {"shape", std::move(shapeJson)},
                            {"local_shape", std::move(local)},
                            {"bytes", v.bytes},
                            {"dims", std::move(dims)},
                            {"partial", std::move(partial)},
                            {"blocks", std::move(blocks)}};
}

/// The largest weights and activations of a one-stage plan.
llvm::json::Array valuesJson(const PricedPlan &priced) {
  const Mesh &mesh = priced.completed.mesh;
  std::vector<Drawn> weights, activations;
  for (const auto &[name, value] : priced.completed.names) {
    auto type = dyn_cast<RankedTensorType>(value.getType());
    auto it = priced.completed.values.find(value);
    // Scalars are not worth a picture.
    if (!type || !type.hasStaticShape() || type.getRank() == 0 ||
        it == priced.completed.values.end())
      continue;
    Drawn d;
    d.name = name;
    d.type = type;
    d.bytes = type.getNumElements() *
              std::max<int64_t>(1, type.getElementTypeBitWidth() / 8);
    Operation *def = value.getDefiningOp();
    d.weight = def && (def->getName().getStringRef() == "telar.constant" ||
                       def->getName().getStringRef() == "telar.variable");
    d.sharding = it->second;
    (d.weight ? weights : activations).push_back(std::move(d));
  }
  auto largest = [](std::vector<Drawn> &list, size_t count) {
    std::stable_sort(list.begin(), list.end(),
                     [](const Drawn &a, const Drawn &b) {
                       return a.bytes > b.bytes;
                     });
    if (list.size() > count)
      list.resize(count);
  };
  largest(weights, kMaxWeights);
  largest(activations, kMaxActivations);
  llvm::json::Array out;
  for (const std::vector<Drawn> *list : {&weights, &activations})
    for (const Drawn &d : *list)
      out.push_back(valueJson(d, mesh));
  return out;
}

/// The schedule table of a pipeline, timed with its stages' seconds.
llvm::json::Object ganttJson(const PricedPipeline &p) {
  std::string error;
  std::optional<telar_sharding::ScheduleKind> kind =
      telar_sharding::parseScheduleKindName(p.schedule);
  const int64_t S = int64_t(p.stages.size());
  std::optional<telar_sharding::PipelineSchedule> table;
  if (kind)
    table = telar_sharding::buildSchedule(*kind, p.positions, p.virtualStages,
                                          p.microbatches,
                                          /*forwardOnly=*/true, {}, error);
  if (!table)
    return llvm::json::Object{{"error", error.empty() ? "no schedule" : error}};
  std::vector<double> seconds;
  for (const PricedPipeline::Stage &stage : p.stages)
    seconds.push_back(stage.seconds);
  if (int64_t(seconds.size()) != S || S != table->getNumStages())
    return llvm::json::Object{{"error", "stages and schedule disagree"}};
  telar_sharding::ScheduleTiming timing =
      telar_sharding::simulateSchedule(*table, seconds, {});
  llvm::json::Array positions;
  for (size_t q = 0; q < timing.steps.size(); ++q) {
    llvm::json::Array steps;
    for (const telar_sharding::TimedStep &t : timing.steps[q])
      steps.push_back(llvm::json::Object{
          {"kind", telar_sharding::getPipelineStepKindName(t.step.kind)},
          {"stage", t.step.stage},
          {"microbatch", t.step.microbatch},
          {"peer", t.step.peerStage},
          {"start_s", t.start},
          {"end_s", t.end}});
    // The ranks of the position: those of its first stage (stage q).
    llvm::json::Array ranks;
    const telar_sharding::PlanStage &ps = p.plan.stages[q];
    for (int64_t r = 0; r < ps.mesh.getNumDevices(); ++r)
      ranks.push_back(ps.firstRank + r);
    positions.push_back(llvm::json::Object{{"position", int64_t(q)},
                                           {"ranks", std::move(ranks)},
                                           {"steps", std::move(steps)}});
  }
  return llvm::json::Object{{"positions", std::move(positions)},
                            {"makespan_s", timing.makespan},
                            {"bubble", timing.bubbleFraction}};
}

const char *searchStatus(const MeshSearch &m) {
  using Status = telar_planner::IlpSolution::Status;
  if (m.skipped)
    return "not searched (the time limit was used up)";
  if (m.solution.hasSolution())
    return "predicted";
  if (m.solution.status == Status::Beaten)
    return "no plan cheaper than the chosen one";
  if (m.solution.status == Status::Infeasible)
    return "does not fit";
  return "no plan within the time limit";
}

} // namespace

std::string mlir::telar::planner::getExplainPageJson(
    const PlanningResult &result, const Profile &profile,
    llvm::StringRef model) {
  const telar_sharding::Plan &plan = result.chosen.plan;
  int64_t devices = plan.mesh.getNumDevices();
  for (const telar_sharding::PlanStage &stage : plan.stages)
    devices = std::max(devices, stage.firstRank + stage.mesh.getNumDevices());
  llvm::json::Object page{{"kind", "plan"},
                          {"model", model.str()},
                          {"profile", profile.name},
                          {"devices", devices},
                          {"mesh", meshJson(plan.mesh)}};
  llvm::Expected<llvm::json::Value> cost = llvm::json::parse(
      getCostJson(result));
  if (cost)
    page["cost"] = std::move(*cost);
  else
    llvm::consumeError(cost.takeError());
  llvm::json::Array searched;
  if (result.search)
    for (size_t i = 0; i < result.search->meshes.size(); ++i) {
      const MeshSearch &m = result.search->meshes[i];
      llvm::json::Object o{{"mesh", m.mesh.str()},
                           {"status", searchStatus(m)},
                           {"chosen", i == result.search->chosen}};
      if (m.solution.hasSolution())
        o["latency_s"] = m.solution.objective;
      searched.push_back(std::move(o));
    }
  page["searched"] = std::move(searched);
  if (result.pipeline) {
    page["gantt"] = ganttJson(*result.pipeline);
  } else {
    page["values"] = valuesJson(result.chosen);
  }
  std::string text;
  llvm::raw_string_ostream os(text);
  os << llvm::json::Value(std::move(page));
  return text;
}
