//===- Explain.cpp - Planning, pricing and explaining a plan --------------===//

#include "telar/planner/Explain.h"
#include "telar/dialects/Telar/TelarDialect.h"
#include "telar/sharding/OpSharding.h"
#include "telar/sharding/Completion.h"
#include "telar/sharding/core/DeviceLimit.h"

#include "mlir/IR/Diagnostics.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"

#include "telar/sharding/core/CrossMesh.h"

#include <chrono>
#include <cmath>
#include <map>
#include <set>

using namespace mlir;
using namespace mlir::telar;
using namespace mlir::telar::planner;
using telar_sharding::Mesh;
using telar_sharding::Plan;
using telar_sharding::PlanStage;
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

//===----------------------------------------------------------------------===//
// Pipelined plans
//===----------------------------------------------------------------------===//

/// The seconds of sending `v` (a global microbatch shape) from `from` on
/// stage a's submesh to `to` on stage b's: the messages the runtime sends
/// (getCrossMeshMessages) when available, else the bytes spread over the
/// smaller submesh; the slowest rank's bytes at the level joining the two.
static double transferSeconds(Value v, const Sharding &fromSharding,
                              const PlanStage &from, const Sharding &toSharding,
                              const PlanStage &to, const Profile &profile,
                              int64_t &bytesOut) {
  auto type = cast<RankedTensorType>(v.getType());
  int64_t elementBytes = getElementBytes(type.getElementType());
  std::vector<int64_t> shape(type.getShape().begin(), type.getShape().end());
  int64_t total = elementBytes;
  for (int64_t d : shape)
    total *= d;
  int64_t nodeSize = profile.getNodeSize();
  int64_t na = from.mesh.getNumDevices(), nb = to.mesh.getNumDevices();
  int64_t lo = std::min(from.firstRank, to.firstRank);
  int64_t hi = std::max(from.firstRank + na, to.firstRank + nb) - 1;
  bool sameNode = lo / nodeSize == hi / nodeSize;
  const telar_planner::LinkLevel &level =
      sameNode ? profile.levels.front() : profile.levels.back();
  double slowest = 0;
  bytesOut = 0;
  Sharding a = fromSharding, b = toSharding;
  a.partial.clear();
  b.partial.clear();
  std::map<int64_t, double> perRank;
  // Neither side partial (the stage outputs are resolved), so this does
  // not throw.
  for (const telar_sharding::BoxMessage &m : telar_sharding::getCrossMeshMessages(
           shape, elementBytes, from.mesh, a, from.firstRank, to.mesh, b,
           to.firstRank)) {
    if (m.fromRank == m.toRank)
      continue;
    perRank[m.fromRank] += double(m.bytes);
    bytesOut += m.bytes;
  }
  for (auto &[rank, bytes] : perRank)
    slowest = std::max(slowest, bytes);
  if (perRank.empty() && bytesOut == 0)
    return 0;
  (void)total;
  double bandwidth = level.bandwidth > 0 ? level.bandwidth : 1e30;
  return level.latency + slowest / bandwidth;
}

FailureOr<std::shared_ptr<PricedPipeline>>
mlir::telar::planner::pricePipelinePlan(func::FuncOp main, const Plan &plan,
                                        const Profile &profile) {
  auto out = std::make_shared<PricedPipeline>();
  int64_t M = plan.schedule ? plan.schedule->microbatches : 1;
  out->microbatches = M;
  out->virtualStages = plan.schedule ? plan.schedule->virtualStages : 1;
  out->schedule = plan.schedule ? plan.schedule->kind : "gpipe";
  out->program = main->getParentOfType<ModuleOp>().clone();
  auto program = out->program->lookupSymbol<func::FuncOp>("main");
  if (failed(makeMicrobatches(program, M)))
    return failure();
  std::vector<PlanStage> stages = plan.stages;
  llvm::DenseSet<Operation *> fromWeights = getWeightOnlyOps(program);
  std::map<std::string, Value> names = getValueNames(program);
  llvm::DenseMap<Value, std::string> nameOf = getNamesByValue(program);
  if (stages.empty()) {
    // A schedule alone: one stage of every op on the top-level mesh.
    PlanStage only;
    only.mesh = plan.mesh;
    only.shardings = plan.shardings;
    for (Operation &op : program.getBody().front().without_terminator())
      if (!fromWeights.count(&op))
        for (Value r : op.getResults())
          if (nameOf.count(r))
            only.ops.push_back(nameOf[r]);
    stages.push_back(std::move(only));
  }
  int64_t V = std::max<int64_t>(out->virtualStages, 1);
  out->positions = std::max<int64_t>(int64_t(stages.size()) / V, 1);
  // Ops by stage, in program order.
  llvm::DenseMap<Operation *, int64_t> stageOf;
  for (size_t s = 0; s < stages.size(); ++s)
    for (const std::string &name : stages[s].ops) {
      auto it = names.find(name);
      if (it == names.end())
        return mlir::emitError(main.getLoc()) << "stages[" << s << "].ops: unknown value '"
                                << name << "'";
      Operation *op = it->second.getDefiningOp();
      if (!op)
        return mlir::emitError(main.getLoc()) << "stages[" << s << "].ops: '" << name
                                << "' is a graph input, computed by no op";
      stageOf.try_emplace(op, int64_t(s));
    }
  std::vector<std::vector<Operation *>> opsOf(stages.size());
  for (Operation &op : program.getBody().front().without_terminator()) {
    auto it = stageOf.find(&op);
    if (it != stageOf.end())
      opsOf[it->second].push_back(&op);
  }
  for (size_t s = 0; s < stages.size(); ++s) {
    PricedPipeline::Stage stage;
    stage.function = buildStageFunction(program, opsOf[s]);
    stage.numOps = int64_t(opsOf[s].size());
    const StageFunction &f = *stage.function;
    func::FuncOp stageFunc = f.func;
    llvm::DenseMap<Value, std::string> localOf = getNamesByValue(stageFunc);
    Plan local;
    local.mesh = stages[s].mesh;
    for (const auto &[name, sharding] : stages[s].shardings) {
      auto it = names.find(name);
      if (it == names.end())
        return mlir::emitError(main.getLoc()) << "stages[" << s
                                << "].shardings: unknown value '" << name
                                << "'";
      auto in = f.fromMain.find(it->second);
      if (in == f.fromMain.end())
        continue; // a value the stage does not use
      auto ln = localOf.find(in->second);
      if (ln != localOf.end())
        local.shardings[ln->second] = sharding;
    }
    FailureOr<PricedPlan> priced = pricePlan(stageFunc, local, profile);
    if (failed(priced))
      return mlir::emitError(main.getLoc()) << "stage " << s << " cannot be priced";
    stage.priced = std::move(*priced);
    stage.description = llvm::formatv("{0} ops", stage.numOps).str();
    out->stages.push_back(std::move(stage));
  }
  // Transfers: every input of stage b computed by stage a < b.
  for (size_t b = 0; b < out->stages.size(); ++b) {
    const StageFunction &fb = *out->stages[b].function;
    for (auto [i, v] : llvm::enumerate(fb.inputs)) {
      Operation *def = v.getDefiningOp();
      if (!def)
        continue;
      auto it = stageOf.find(def);
      if (it == stageOf.end() || size_t(it->second) >= b)
        continue;
      size_t a = size_t(it->second);
      const StageFunction &fa = *out->stages[a].function;
      Value inA = fa.fromMain.lookup(v);
      func::FuncOp funcB = fb.func;
      Value inB = funcB.getArgument(i);
      auto sa = out->stages[a].priced.completed.values.find(inA);
      auto sb = out->stages[b].priced.completed.values.find(inB);
      if (sa == out->stages[a].priced.completed.values.end() ||
          sb == out->stages[b].priced.completed.values.end())
        continue;
      int64_t bytes = 0;
      out->stages[a].transferSeconds +=
          transferSeconds(v, sa->second, stages[a], sb->second, stages[b],
                          profile, bytes);
      out->stages[a].transferBytes += bytes;
    }
  }
  std::vector<double> seconds;
  for (PricedPipeline::Stage &stage : out->stages) {
    stage.seconds = stage.priced.cost.latency + stage.transferSeconds;
    seconds.push_back(stage.seconds);
  }
  int64_t P = out->positions;
  std::vector<double> busy(P, 0);
  for (size_t s = 0; s < seconds.size(); ++s)
    busy[s % P] += seconds[s];
  if (V > 1) {
    double maxPos = *std::max_element(busy.begin(), busy.end());
    double maxStage = *std::max_element(seconds.begin(), seconds.end());
    out->latency = double(M) * maxPos + double(P - 1) * maxStage;
  } else {
    out->latency = getPipelineLatency(seconds, M);
  }
  double work = 0;
  for (double b : busy)
    work += double(M) * b;
  out->bubble = out->latency > 0 ? 1 - work / (double(P) * out->latency) : 0;
  // The completed plan, in plan value names.
  out->plan = plan;
  out->plan.stages.clear();
  out->plan.mesh = Mesh();
  out->plan.shardings.clear();
  for (size_t s = 0; s < stages.size(); ++s) {
    PlanStage ps = stages[s];
    ps.shardings.clear();
    const StageFunction &f = *out->stages[s].function;
    func::FuncOp stageFunc = f.func;
    std::map<std::string, Value> localNames = getValueNames(stageFunc);
    for (const auto &[name, sharding] : out->stages[s].priced.plan.shardings) {
      auto it = localNames.find(name);
      if (it == localNames.end())
        continue;
      auto back = f.toMain.find(it->second);
      if (back == f.toMain.end())
        continue;
      auto global = nameOf.find(back->second);
      if (global != nameOf.end())
        ps.shardings[global->second] = sharding;
    }
    out->plan.stages.push_back(std::move(ps));
  }
  if (!out->plan.schedule)
    out->plan.schedule = telar_sharding::PlanSchedule();
  return out;
}

/// The totals of a pipelined plan as a PricedPlan (for the runner-ups and
/// the one-stage fields): compute and communication summed over the stages
/// (per microbatch), latency the pipeline's, memory the largest stage's.
static PricedPlan summarize(const PricedPipeline &p) {
  PricedPlan out;
  out.plan = p.plan;
  for (const PricedPipeline::Stage &s : p.stages) {
    out.cost.computeSeconds += s.priced.cost.computeSeconds;
    out.cost.commSeconds += s.priced.cost.commSeconds + s.transferSeconds;
    out.cost.weightBytes =
        std::max(out.cost.weightBytes, s.priced.cost.weightBytes);
    out.cost.peakActivationBytes = std::max(out.cost.peakActivationBytes,
                                            s.priced.cost.peakActivationBytes);
    out.cost.memoryBytes =
        std::max(out.cost.memoryBytes, s.priced.cost.memoryBytes);
  }
  out.cost.latency = p.latency;
  return out;
}

FailureOr<PlanningResult> mlir::telar::planner::planAndPrice(
    func::FuncOp main, const Profile &profile,
    const std::optional<Plan> &userPlan,
    const std::optional<SearchOptions> &search, bool alternatives) {
  PlanningResult result;
  Plan plan;
  if (search) {
    SearchOptions options = *search;
    if (options.devices > telar_sharding::kMaxDevices)
      return mlir::emitError(main.getLoc())
             << "--devices " << options.devices << " is more than the "
             << telar_sharding::kMaxDevices << " devices Telar supports";
    if (userPlan)
      options.constraints = userPlan;
    result.memoryLimit =
        options.memoryLimit > 0 ? options.memoryLimit : profile.memoryBytes;
    const PipelineOptions &po = options.pipeline;
    bool forced = po.stages >= 2;
    bool pipelines = !po.disabled && po.stages != 1 && !userPlan &&
                     (options.devices >= 2 || forced);
    if (userPlan && (po.stages >= 2 || po.microbatches > 1))
      return mlir::emitError(main.getLoc())
             << "--pipeline-stages and --microbatches do not combine with "
                "--plan";
    // The one-stage plan (unless a pipeline is forced); when it does not
    // fit, its error stands only if no pipeline fits either.
    std::vector<std::string> oneStageErrors;
    result.oneStageLatency = std::numeric_limits<double>::infinity();
    if (!forced) {
      FailureOr<SearchResult> found = failure();
      {
        std::optional<ScopedDiagnosticHandler> capture;
        if (pipelines)
          capture.emplace(main.getContext(), [&](Diagnostic &d) {
            if (d.getSeverity() == DiagnosticSeverity::Error)
              oneStageErrors.push_back(d.str());
            return success();
          });
        // With pipelines competing, the one-stage search has half the
        // time limit.
        SearchOptions one = options;
        if (pipelines)
          one.timeLimitSeconds = options.timeLimitSeconds / 2;
        found = searchPlan(main, profile, one);
      }
      if (succeeded(found)) {
        plan = found->plan;
        result.oneStageLatency =
            found->meshes[found->chosen].solution.objective;
        result.search = std::move(*found);
      } else if (!pipelines) {
        return failure();
      }
    }
    if (pipelines) {
      SearchOptions popts = options;
      // The rest of the time limit, at least half of it.
      if (result.search)
        popts.timeLimitSeconds =
            std::max(options.timeLimitSeconds / 2,
                     options.timeLimitSeconds - result.search->seconds);
      FailureOr<std::optional<PipelineSearchResult>> piped =
          searchPipeline(main, profile, popts);
      if (failed(piped))
        return failure();
      // With one microbatch a pipeline runs its stages one after another:
      // unforced, it is chosen only when no one-stage plan fits.
      bool competes =
          *piped && (forced || (*piped)->microbatches > 1 || !result.search);
      if (competes && (forced || (*piped)->latency < result.oneStageLatency)) {
        FailureOr<std::shared_ptr<PricedPipeline>> priced =
            pricePipelinePlan(main, (*piped)->plan, profile);
        if (failed(priced))
          return failure();
        result.pipeline = *priced;
        result.pipelineSearch = std::move(**piped);
      } else if (*piped) {
        result.pipelineSearch = std::move(**piped);
      }
      if (!result.pipeline && !result.search) {
        for (const std::string &e : oneStageErrors) {
          InFlightDiagnostic d = mlir::emitError(main.getLoc()) << e;
          d.attachNote() << "no pipeline of two or more stages fits either";
        }
        if (oneStageErrors.empty())
          mlir::emitError(main.getLoc()) << "no plan fits";
        return failure();
      }
    }
  } else {
    if (!userPlan)
      return mlir::emitError(main.getLoc()) << "no plan to price";
    plan = *userPlan;
    result.memoryLimit = profile.memoryBytes;
    if (!plan.stages.empty() || plan.schedule) {
      FailureOr<std::shared_ptr<PricedPipeline>> priced =
          pricePipelinePlan(main, plan, profile);
      if (failed(priced))
        return failure();
      result.pipeline = *priced;
    }
  }
  if (result.pipeline) {
    result.chosen = summarize(*result.pipeline);
    result.chosen.plan.costJson = plan.costJson;
    return result;
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

/// "model: 12 split, data: 3 split, 2 partial" over a stage's values.
static std::string summarizeShardings(const PricedPlan &priced) {
  const Mesh &mesh = priced.plan.mesh;
  if (mesh.getNumAxes() == 0)
    return "one device";
  std::vector<int64_t> split(mesh.getNumAxes(), 0);
  int64_t partial = 0, replicated = 0;
  for (const auto &[name, sharding] : priced.plan.shardings) {
    std::vector<int64_t> axes = sharding.getSplitAxes();
    for (int64_t a : axes)
      ++split[a];
    if (axes.empty() && !sharding.isPartial())
      ++replicated;
    if (sharding.isPartial())
      ++partial;
  }
  std::string out;
  for (int64_t a = 0; a < mesh.getNumAxes(); ++a)
    out += (out.empty() ? "" : ", ") + mesh.axisNames[a] + " splits " +
           std::to_string(split[a]);
  if (partial)
    out += ", " + std::to_string(partial) + " partial";
  out += ", " + std::to_string(replicated) + " replicated";
  return out;
}

static std::string formatSeconds(double s);
static std::string formatBytes(double bytes);

/// A training step's phases (the ops' telar.phase: forward, backward,
/// optimizer) and what its weights are.
static void printTrainingPhases(llvm::raw_ostream &os, const PlanCost &cost) {
  struct Phase {
    double compute = 0, comm = 0;
    int64_t sent = 0, collectives = 0;
  };
  std::map<std::string, Phase> phases;
  for (const OpCost &op : cost.ops) {
    auto tag = op.op->getAttrOfType<StringAttr>(
        TelarDialect::PhaseAttrHelper::getNameStr());
    Phase &p = phases[tag ? tag.getValue().str() : "forward"];
    p.compute += op.compute.seconds;
    p.comm += op.commSeconds;
    for (const PricedStep &s : op.comm)
      if (s.step.kind != telar_sharding::StepKind::LocalSlice) {
        p.sent += s.step.bytesSent;
        ++p.collectives;
      }
  }
  os << "  training step phases:\n";
  for (const char *name : {"forward", "backward", "optimizer"}) {
    const Phase &p = phases[name];
    os << llvm::formatv("    {0,-10} compute {1,10}, communication {2,10} "
                        "({3} collective{4}, {5} sent per device)\n",
                        name, formatSeconds(p.compute), formatSeconds(p.comm),
                        p.collectives, p.collectives == 1 ? "" : "s",
                        formatBytes(double(p.sent)));
  }
  os << "  weights per device: parameters "
     << formatBytes(double(cost.parameterBytes)) << ", optimizer state "
     << formatBytes(double(cost.optimizerStateBytes)) << ", constants "
     << formatBytes(double(cost.weightBytes - cost.parameterBytes -
                           cost.optimizerStateBytes))
     << " (gradients and the activations kept for the backward are in the "
        "peak activations)\n";
}

static void printPipelineExplain(llvm::raw_ostream &os,
                                 const PlanningResult &result,
                                 const Profile &profile) {
  const PricedPipeline &p = *result.pipeline;
  int64_t devices = 0;
  for (const telar_sharding::PlanStage &s : p.plan.stages)
    devices = std::max(devices, s.firstRank + s.mesh.getNumDevices());
  os << "Telar plan: pipeline of " << p.stages.size() << " stages on "
     << devices << " devices, " << p.microbatches << " microbatch(es), schedule "
     << p.schedule;
  if (p.virtualStages > 1)
    os << " (" << p.positions << " positions x " << p.virtualStages
       << " virtual stages)";
  os << ", profile '" << profile.name << "'\n";
  if (result.pipelineSearch) {
    const PipelineSearchResult &ps = *result.pipelineSearch;
    os << llvm::formatv("  search: {0} {1}, {2} stage costs from {3} "
                        "planOnMesh calls, {4:F2} s",
                        ps.numUnits, ps.layerUnits ? "layer units" : "op units",
                        ps.stageCosts, ps.planOnMeshCalls, ps.seconds);
    os << "; one stage: "
       << (std::isfinite(result.oneStageLatency)
               ? formatSeconds(result.oneStageLatency)
               : std::string(result.search ? "-"
                             : ps.stages.size() >= 2 && result.oneStageLatency ==
                                       std::numeric_limits<double>::infinity() &&
                                   true
                                 ? "not searched or does not fit"
                                 : "-"))
       << "\n";
    if (ps.perMicrobatches.size() > 1) {
      os << "  per microbatch count:";
      for (auto [m, t] : ps.perMicrobatches)
        os << " M=" << m << " "
           << (std::isfinite(t) ? formatSeconds(t) : std::string("-"));
      os << "\n";
    }
  }
  os << "\n";
  os << llvm::formatv("  {0,-5} {1,-30} {2,-20} {3,10}  {4,-44} {5,10} {6,10} "
                      "{7,10} {8,10} {9,10}\n",
                      "stage", "layers / ops", "submesh", "first rank",
                      "shardings", "compute", "comm", "send", "time/mb",
                      "memory");
  os << "  " << std::string(170, '-') << "\n";
  for (size_t s = 0; s < p.stages.size(); ++s) {
    const PricedPipeline::Stage &st = p.stages[s];
    const telar_sharding::PlanStage &ps = p.plan.stages[s];
    std::string what = st.description;
    if (result.pipelineSearch && s < result.pipelineSearch->stages.size())
      what = result.pipelineSearch->stages[s].description + " (" +
             std::to_string(st.numOps) + " ops)";
    std::string summary = summarizeShardings(st.priced);
    if (summary.size() > 44)
      summary = summary.substr(0, 41) + "...";
    os << llvm::formatv("  {0,-5} {1,-30} {2,-20} {3,10}  {4,-44} {5,10} "
                        "{6,10} {7,10} {8,10} {9,10}\n",
                        s, what,
                        ps.mesh.getNumAxes() ? ps.mesh.str() : "one device",
                        ps.firstRank, summary,
                        formatSeconds(st.priced.cost.computeSeconds),
                        formatSeconds(st.priced.cost.commSeconds),
                        formatSeconds(st.transferSeconds),
                        formatSeconds(st.seconds),
                        formatBytes(double(st.priced.cost.memoryBytes)));
  }
  os << "  " << std::string(170, '-') << "\n";
  os << "  predicted latency " << formatSeconds(p.latency) << " for the batch ("
     << p.microbatches << " microbatch(es): sum of stage times + (M - 1) x "
        "the slowest), predicted bubble "
     << llvm::formatv("{0:F1}", 100 * p.bubble) << " %\n";
  os << "  memory per device: at most "
     << formatBytes(double(result.chosen.cost.memoryBytes)) << " (stage "
        "programs at microbatch shape), limit "
     << formatBytes(result.memoryLimit) << "\n";
}

void mlir::telar::planner::printExplain(llvm::raw_ostream &os,
                                        func::FuncOp main,
                                        const PlanningResult &result,
                                        const Profile &profile) {
  if (result.pipeline)
    return printPipelineExplain(os, result, profile);
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
  if (main->getParentOfType<ModuleOp>()->hasAttr(
          TelarDialect::TrainingAttrHelper::getNameStr()))
    printTrainingPhases(os, cost);
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

static llvm::json::Object getPipelineCostJson(const PlanningResult &result) {
  const PricedPipeline &p = *result.pipeline;
  const PlanCost &total = result.chosen.cost;
  llvm::json::Array stages;
  for (size_t s = 0; s < p.stages.size(); ++s) {
    const PricedPipeline::Stage &st = p.stages[s];
    const telar_sharding::PlanStage &ps = p.plan.stages[s];
    llvm::json::Object o{
        {"stage", int64_t(s)},
        {"mesh", ps.mesh.getNumAxes() ? ps.mesh.str() : std::string("")},
        {"first_rank", ps.firstRank},
        {"devices", ps.mesh.getNumDevices()},
        {"ops", st.numOps},
        {"latency_s", st.seconds},
        {"compute_s", st.priced.cost.computeSeconds},
        {"comm_s", st.priced.cost.commSeconds},
        {"transfer_s", st.transferSeconds},
        {"transfer_bytes", st.transferBytes},
        {"memory_bytes", st.priced.cost.memoryBytes},
        {"weight_bytes", st.priced.cost.weightBytes},
        {"peak_activation_bytes", st.priced.cost.peakActivationBytes}};
    if (result.pipelineSearch && s < result.pipelineSearch->stages.size())
      o["layers"] = result.pipelineSearch->stages[s].description;
    stages.push_back(std::move(o));
  }
  llvm::json::Object out{{"latency_s", p.latency},
                         {"compute_s", total.computeSeconds},
                         {"comm_s", total.commSeconds},
                         {"memory_bytes", total.memoryBytes},
                         {"weight_bytes", total.weightBytes},
                         {"peak_activation_bytes", total.peakActivationBytes},
                         {"bubble", p.bubble},
                         {"microbatches", p.microbatches},
                         {"schedule", p.schedule},
                         {"virtual_stages", p.virtualStages},
                         {"stages", std::move(stages)},
                         {"memory_limit", result.memoryLimit}};
  return out;
}

std::string mlir::telar::planner::getCostJson(const PlanningResult &result) {
  llvm::json::Value value =
      result.pipeline ? llvm::json::Value(getPipelineCostJson(result))
                      : toJson(result.chosen.cost, result.chosen.plan.mesh);
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
  if (result.pipelineSearch) {
    const PipelineSearchResult &ps = *result.pipelineSearch;
    llvm::json::Array perM;
    for (auto [m, t] : ps.perMicrobatches) {
      llvm::json::Object o{{"microbatches", m}};
      if (std::isfinite(t))
        o["latency_s"] = t;
      perM.push_back(std::move(o));
    }
    llvm::json::Object pipeline{{"seconds", ps.seconds},
                                {"units", ps.numUnits},
                                {"layer_units", ps.layerUnits},
                                {"plan_on_mesh_calls", ps.planOnMeshCalls},
                                {"stage_costs", ps.stageCosts},
                                {"stages", int64_t(ps.stages.size())},
                                {"predicted_latency", ps.latency},
                                {"chosen", bool(result.pipeline)},
                                {"per_microbatches", std::move(perM)}};
    if (std::isfinite(result.oneStageLatency))
      pipeline["one_stage_latency"] = result.oneStageLatency;
    llvm::json::Object *search = object->getObject("search");
    if (!search) {
      object->try_emplace("search", llvm::json::Object{});
      search = object->getObject("search");
    }
    search->try_emplace("pipeline", std::move(pipeline));
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
