//===- Explain.cpp - Planning, pricing and explaining a plan --------------===//

#include "telar/planner/Explain.h"
#include "telar/dialects/Telar/TelarDialect.h"
#include "telar/sharding/Completion.h"

#include "mlir/IR/Diagnostics.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"

#include <map>

using namespace mlir;
using namespace mlir::telar;
using namespace mlir::telar::planner;
using telar_sharding::Mesh;
using telar_sharding::Plan;
using telar_sharding::Sharding;

FailureOr<PricedPlan> mlir::telar::planner::pricePlan(func::FuncOp main,
                                                      const Plan &plan,
                                                      const Profile &profile) {
  FailureOr<CompletedPlan> completed = completePlan(main, plan);
  if (failed(completed))
    return failure();
  FailureOr<PlanCost> cost = evaluatePlan(main, *completed, profile);
  if (failed(cost))
    return failure();
  PricedPlan out;
  out.plan = getNamedPlan(*completed);
  out.plan.costJson = plan.costJson;
  out.completed = std::move(*completed);
  out.cost = std::move(*cost);
  return out;
}

/// Prices `plan` with its diagnostics captured into `why` instead of
/// printed (for runner-ups, whose failure is no error of the compile).
static std::optional<PricedPlan> pricePlanQuietly(func::FuncOp main,
                                                  const Plan &plan,
                                                  const Profile &profile,
                                                  std::string &why) {
  ScopedDiagnosticHandler handler(main.getContext(), [&](Diagnostic &d) {
    if (d.getSeverity() == DiagnosticSeverity::Error && why.empty())
      why = d.str();
    return success();
  });
  FailureOr<PricedPlan> priced = pricePlan(main, plan, profile);
  if (failed(priced)) {
    if (why.empty())
      why = "cannot be priced";
    return std::nullopt;
  }
  return std::move(*priced);
}

/// Pure data parallelism: every graph input split along its first
/// dimension over one axis of all devices where it divides, the rest
/// completed by propagation.
static Alternative getDataParallel(func::FuncOp main, const Profile &profile,
                                   int64_t devices) {
  Alternative a;
  a.name = "pure data parallelism";
  Plan plan;
  plan.mesh.axisNames = {"data"};
  plan.mesh.axisSizes = {devices};
  StringRef nameAttr = TelarDialect::NameAttrHelper::getNameStr();
  bool any = false;
  for (BlockArgument arg : main.getArguments()) {
    auto name = main.getArgAttrOfType<StringAttr>(arg.getArgNumber(), nameAttr);
    auto type = dyn_cast<RankedTensorType>(arg.getType());
    if (!name || !type || type.getRank() == 0 || type.isDynamicDim(0) ||
        type.getDimSize(0) % devices != 0)
      continue;
    Sharding s = Sharding::getReplicated(type.getRank());
    s.dims[0] = {0};
    plan.shardings[name.getValue().str()] = s;
    any = true;
  }
  if (!any) {
    a.unavailable = "no graph input has a first dimension that " +
                    std::to_string(devices) + " devices divide";
    return a;
  }
  std::optional<PricedPlan> priced =
      pricePlanQuietly(main, plan, profile, a.unavailable);
  if (priced)
    a.priced = std::move(*priced);
  return a;
}

/// The best pure tensor-parallel plan: one "model" axis of all devices,
/// graph inputs replicated, the rest searched.
static Alternative getTensorParallel(func::FuncOp main, const Profile &profile,
                                     int64_t devices, double memoryLimit,
                                     double timeLimit) {
  Alternative a;
  a.name = "best pure tensor parallelism";
  Mesh mesh;
  mesh.axisNames = {"model"};
  mesh.axisSizes = {devices};
  Plan constraints;
  constraints.mesh = mesh;
  StringRef nameAttr = TelarDialect::NameAttrHelper::getNameStr();
  for (BlockArgument arg : main.getArguments()) {
    auto name = main.getArgAttrOfType<StringAttr>(arg.getArgNumber(), nameAttr);
    auto type = dyn_cast<RankedTensorType>(arg.getType());
    if (name && type)
      constraints.shardings[name.getValue().str()] =
          Sharding::getReplicated(type.getRank());
  }
  MeshSearch s =
      planOnMesh(main, mesh, profile, constraints, memoryLimit, timeLimit);
  if (!s.solution.hasSolution()) {
    a.unavailable = "no tensor-parallel plan fits the memory limit";
    return a;
  }
  std::optional<PricedPlan> priced =
      pricePlanQuietly(main, s.plan, profile, a.unavailable);
  if (priced)
    a.priced = std::move(*priced);
  return a;
}

FailureOr<PlanningResult> mlir::telar::planner::planAndPrice(
    func::FuncOp main, const Profile &profile,
    const std::optional<Plan> &userPlan,
    const std::optional<SearchOptions> &search, bool alternatives) {
  PlanningResult result;
  Plan plan;
  if (search) {
    SearchOptions options = *search;
    if (userPlan)
      options.constraints = userPlan;
    FailureOr<SearchResult> found = searchPlan(main, profile, options);
    if (failed(found))
      return failure();
    plan = found->plan;
    result.search = std::move(*found);
    result.memoryLimit =
        options.memoryLimit > 0 ? options.memoryLimit : profile.memoryBytes;
  } else {
    if (!userPlan)
      return main.emitError() << "no plan to price";
    plan = *userPlan;
    result.memoryLimit = profile.memoryBytes;
  }
  FailureOr<PricedPlan> priced = pricePlan(main, plan, profile);
  if (failed(priced))
    return failure();
  result.chosen = std::move(*priced);
  int64_t devices = result.chosen.plan.mesh.getNumDevices();
  if (alternatives && devices > 1) {
    double timeLimit = search ? search->timeLimitSeconds : 60;
    result.alternatives.push_back(getDataParallel(main, profile, devices));
    result.alternatives.push_back(getTensorParallel(
        main, profile, devices, search ? search->memoryLimit : 0, timeLimit));
  }
  return result;
}

//===----------------------------------------------------------------------===//
// The table
//===----------------------------------------------------------------------===//

static std::string formatSeconds(double s) {
  if (s == 0)
    return "0";
  if (s < 1e-3)
    return llvm::formatv("{0:F1} us", s * 1e6).str();
  if (s < 1)
    return llvm::formatv("{0:F3} ms", s * 1e3).str();
  return llvm::formatv("{0:F3} s", s).str();
}

static std::string formatBytes(double bytes) {
  const char *units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  int u = 0;
  while (bytes >= 1024 && u < 4) {
    bytes /= 1024;
    ++u;
  }
  if (u == 0)
    return llvm::formatv("{0} B", int64_t(bytes)).str();
  return llvm::formatv("{0:F1} {1}", bytes, units[u]).str();
}

static std::string formatAxes(const std::vector<int64_t> &axes,
                              const Mesh &mesh) {
  std::string out = "[";
  for (size_t i = 0; i < axes.size(); ++i)
    out += (i ? "," : "") + mesh.axisNames[axes[i]];
  return out + "]";
}

/// The name an op is shown by: its first ONNX result name, else its op
/// name.
static std::string labelOf(Operation *op) {
  StringRef resultNames = TelarDialect::ResultNamesAttrHelper::getNameStr();
  if (auto names = op->getAttrOfType<ArrayAttr>(resultNames))
    for (Attribute a : names)
      if (auto s = dyn_cast<StringAttr>(a))
        if (!s.getValue().empty())
          return s.getValue().str();
  return "";
}

/// Op labels keep their end (the distinctive part of an ONNX name),
/// shardings their start (the dims before the partial axes).
static std::string truncate(std::string s, size_t width, bool keepEnd = true) {
  if (s.size() <= width)
    return s;
  if (!keepEnd)
    return s.substr(0, width - 3) + "...";
  return "..." + s.substr(s.size() - (width - 3));
}

void mlir::telar::planner::printExplain(llvm::raw_ostream &os,
                                        func::FuncOp main,
                                        const PlanningResult &result,
                                        const Profile &profile) {
  const PricedPlan &chosen = result.chosen;
  const Mesh &mesh = chosen.plan.mesh;
  const PlanCost &cost = chosen.cost;
  os << "Telar plan: " << (mesh.getNumAxes() ? mesh.str() : "one device")
     << " (" << mesh.getNumDevices() << " devices), profile '" << profile.name
     << "'\n";
  std::vector<int64_t> instance;
  if (result.search) {
    const SearchResult &s = *result.search;
    const MeshSearch &m = s.meshes[s.chosen];
    os << llvm::formatv("  search: {0} mesh(es) in {1:F2} s; on this mesh {2} "
                        "decisions, {3} strategies, {4} variables, {5} "
                        "constraints, ",
                        s.meshes.size(), s.seconds, m.numNodes,
                        m.numStrategies, m.solution.numVariables,
                        m.solution.numConstraints);
    if (m.solution.status == telar_planner::IlpSolution::Status::Optimal)
      os << "optimal\n";
    else
      os << llvm::formatv("time limit hit: best plan so far, gap {0:F1}%\n",
                          100 * m.solution.getGap());
    if (s.layers.count >= 2) {
      os << "  " << s.layers.count << " repeated layers of "
         << s.layers.period
         << " ops: the first shown (rows marked L), each of its rows counts "
            "once per layer\n";
      instance = s.layers.getInstances(s.numOps);
    }
    for (const MeshSearch &other : s.meshes) {
      os << "    mesh " << llvm::left_justify(other.mesh.str(), 28);
      if (other.skipped)
        os << "not searched (the time limit was used up)";
      else if (other.solution.hasSolution())
        os << "predicted " << formatSeconds(other.solution.objective);
      else if (other.solution.status ==
               telar_planner::IlpSolution::Status::Beaten)
        os << "no plan cheaper than the chosen one";
      else if (other.solution.status ==
               telar_planner::IlpSolution::Status::Infeasible)
        os << "does not fit (needs at least "
           << formatBytes(other.minimumMemory) << " per device)";
      else
        os << "no plan within the time limit";
      if (&other == &m)
        os << "  <- chosen";
      os << "\n";
    }
  }
  os << "\n";
  os << llvm::formatv("  {0,-40} {1,-48} {2,10} {3,10} {4,10}  {5}\n", "op",
                      "result sharding", "compute", "comm", "sent/dev",
                      "collectives");
  os << "  " << std::string(138, '-') << "\n";
  llvm::DenseMap<Operation *, int64_t> index;
  int64_t n = 0;
  for (Operation &op : main.getBody().front())
    index[&op] = n++;
  for (const OpCost &op : cost.ops) {
    int64_t i = index.lookup(op.op);
    int64_t layer = i < int64_t(instance.size()) ? instance[i] : -1;
    if (layer >= 1)
      continue;
    // Rows that cost nothing (weights sliced in place) say nothing.
    bool free = op.compute.seconds == 0 && op.commSeconds == 0 &&
                llvm::all_of(op.comm, [](const PricedStep &p) {
                  return p.step.kind == telar_sharding::StepKind::LocalSlice;
                });
    if (free)
      continue;
    bool inLayer = layer == 0;
    std::string label = op.op->getName().stripDialect().str();
    std::string name = labelOf(op.op);
    if (!name.empty())
      label += " " + name;
    if (inLayer)
      label = "L " + label;
    std::string sharding;
    if (op.op->getNumResults() > 0) {
      auto it = chosen.completed.values.find(op.op->getResult(0));
      if (it != chosen.completed.values.end())
        sharding = telar_sharding::formatSharding(it->second, mesh);
    }
    int64_t sent = 0;
    std::map<std::string, int> kinds;
    for (const PricedStep &p : op.comm) {
      sent += p.step.bytesSent;
      if (p.step.kind != telar_sharding::StepKind::LocalSlice)
        ++kinds[std::string(telar_sharding::getStepKindName(p.step.kind)) +
                formatAxes(p.step.axes, mesh)];
    }
    std::string collectives;
    for (auto &[k, count] : kinds)
      collectives += (collectives.empty() ? "" : ", ") +
                     (count > 1 ? std::to_string(count) + "x " : "") + k;
    os << llvm::formatv("  {0,-40} {1,-48} {2,10} {3,10} {4,10}  {5}\n",
                        truncate(label, 40), truncate(sharding, 48, false),
                        formatSeconds(op.compute.seconds),
                        formatSeconds(op.commSeconds), formatBytes(sent),
                        collectives);
  }
  os << "  " << std::string(138, '-') << "\n";
  os << "  predicted latency " << formatSeconds(cost.latency) << " (compute "
     << formatSeconds(cost.computeSeconds) << ", communication "
     << formatSeconds(cost.commSeconds) << ")\n";
  os << "  memory per device " << formatBytes(cost.memoryBytes)
     << " (weights " << formatBytes(cost.weightBytes)
     << " + peak activations " << formatBytes(cost.peakActivationBytes)
     << "), limit " << formatBytes(result.memoryLimit) << "\n";
  if (!cost.bytesPerAxes.empty()) {
    os << "  sent per device:";
    bool first = true;
    for (const auto &[axes, bytes] : cost.bytesPerAxes) {
      os << (first ? " " : ", ") << formatAxes(axes, mesh) << " "
         << formatBytes(bytes);
      first = false;
    }
    os << "\n";
  }
  if (result.search && result.search->meshes[result.search->chosen].solution
                               .hasSolution()) {
    double ilp = result.search->meshes[result.search->chosen].solution.objective;
    if (std::abs(ilp - cost.latency) > 0.01 * std::max(ilp, cost.latency))
      os << "  note: the search predicted " << formatSeconds(ilp)
         << "; completion of the plan priced it " << formatSeconds(cost.latency)
         << "\n";
  }
  for (const Alternative &a : result.alternatives) {
    os << "  runner-up, " << a.name << ": ";
    if (!a.unavailable.empty()) {
      os << "n/a (" << a.unavailable << ")\n";
      continue;
    }
    const PlanCost &c = a.priced.cost;
    os << formatSeconds(c.latency);
    if (cost.latency > 0)
      os << llvm::formatv(" ({0:F2}x the chosen plan)", c.latency / cost.latency);
    os << ", memory " << formatBytes(c.memoryBytes) << " per device";
    if (double(c.memoryBytes) > result.memoryLimit)
      os << " (does not fit)";
    os << " on " << a.priced.plan.mesh.str() << "\n";
  }
}

std::string mlir::telar::planner::getCostJson(const PlanningResult &result) {
  llvm::json::Value value =
      toJson(result.chosen.cost, result.chosen.plan.mesh);
  llvm::json::Object *object = value.getAsObject();
  if (!object)
    return "";
  object->try_emplace("memory_limit", result.memoryLimit);
  if (result.search) {
    const SearchResult &s = *result.search;
    llvm::json::Array meshes;
    for (const MeshSearch &m : s.meshes) {
      llvm::json::Object o{{"mesh", m.mesh.str()},
                           {"decisions", m.numNodes},
                           {"strategies", m.numStrategies},
                           {"variables", m.solution.numVariables},
                           {"constraints", m.solution.numConstraints}};
      if (m.skipped) {
        o["status"] = "not_searched";
        meshes.push_back(std::move(o));
        continue;
      }
      switch (m.solution.status) {
      case telar_planner::IlpSolution::Status::Optimal:
        o["status"] = "optimal";
        break;
      case telar_planner::IlpSolution::Status::TimeLimit:
        o["status"] = "time_limit";
        o["gap"] = m.solution.getGap();
        break;
      case telar_planner::IlpSolution::Status::Infeasible:
        o["status"] = "does_not_fit";
        o["minimum_memory"] = m.minimumMemory;
        break;
      case telar_planner::IlpSolution::Status::NoSolution:
        o["status"] = "no_solution";
        break;
      case telar_planner::IlpSolution::Status::Beaten:
        o["status"] = "beaten";
        break;
      }
      if (m.solution.hasSolution())
        o["predicted_latency"] = m.solution.objective;
      meshes.push_back(std::move(o));
    }
    llvm::json::Object search{{"seconds", s.seconds},
                              {"ops", s.numOps},
                              {"meshes", std::move(meshes)}};
    if (s.layers.count >= 2)
      search["layers"] = llvm::json::Object{{"ops", s.layers.period},
                                            {"count", s.layers.count}};
    object->try_emplace("search", std::move(search));
  }
  llvm::json::Array alternatives;
  for (const Alternative &a : result.alternatives) {
    llvm::json::Object o{{"name", a.name}};
    if (!a.unavailable.empty()) {
      o["unavailable"] = a.unavailable;
    } else {
      o["mesh"] = a.priced.plan.mesh.str();
      o["latency"] = a.priced.cost.latency;
      o["memory_bytes"] = a.priced.cost.memoryBytes;
    }
    alternatives.push_back(std::move(o));
  }
  if (!alternatives.empty())
    object->try_emplace("alternatives", std::move(alternatives));
  std::string text;
  llvm::raw_string_ostream os(text);
  os << value;
  return text;
}
