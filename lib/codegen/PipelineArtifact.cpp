//===- PipelineArtifact.cpp - Compile a pipelined plan --------------------===//
//
// compilePipelineArtifact (include/telar/codegen/Artifact.h): a pipelined
// artifact is a directory of complete artifacts, one per stage, plus the
// version-4 manifest that ties them together: which ranks run which stage,
// the messages that move each boundary value between the stages' submeshes
// (telar_sharding::getCrossMeshMessages, the function the planner prices
// them with) and each rank's schedule table (telar_sharding::buildSchedule).
//
//===----------------------------------------------------------------------===//

#include "telar/codegen/Artifact.h"
#include "telar/codegen/ArtifactWriter.h"
#include "telar/codegen/TargetBackend.h"
#include "telar/dialects/Telar/ShapeInference.h"
#include "telar/dialects/Telar/TelarDialect.h"
#include "telar/launch/LaunchFiles.h"
#include "telar/passes/partition/SplitStages.h"
#include "telar/sharding/Completion.h"
#include "telar/sharding/Microbatch.h"
#include "telar/sharding/OpSharding.h"
#include "telar/sharding/Plan.h"
#include "telar/sharding/core/CrossMesh.h"
#include "telar/sharding/core/Schedule.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/ToolOutputFile.h"

#include <algorithm>
#include <set>

using namespace mlir;

namespace mlir::telar {

namespace {

using telar_sharding::Mesh;
using telar_sharding::Plan;
using telar_sharding::PlanStage;
using telar_sharding::Sharding;

std::string stageDirectory(int64_t s) { return "stage" + std::to_string(s); }

const artifact::TensorSpec *findEntry(ArrayRef<artifact::TensorSpec> list,
                                      StringRef name) {
  for (const artifact::TensorSpec &e : list)
    if (e.name == name)
      return &e;
  return nullptr;
}

/// The graph's inputs and outputs at full batch, as the top-level manifest
/// lists them (unsharded: telar-run reads and writes whole tensors).
LogicalResult describeInterface(func::FuncOp main, const TargetBackend &target,
                                std::vector<artifact::TensorSpec> &inputs,
                                std::vector<artifact::TensorSpec> &outputs,
                                std::string &error) {
  auto check = [&](Type type, const std::string &what,
                   const std::string &name,
                   std::vector<artifact::TensorSpec> &list) -> LogicalResult {
    RankedTensorType ranked;
    if (failed(checkInterfaceType(type, what, target, ranked, error)))
      return failure();
    list.push_back(describeTensor(name, ranked));
    return success();
  };
  for (unsigned i = 0; i < main.getNumArguments(); ++i) {
    auto name = main.getArgAttrOfType<StringAttr>(
        i, TelarDialect::NameAttrHelper::getNameStr());
    std::string n = name ? name.str() : "input" + std::to_string(i);
    if (failed(check(main.getArgument(i).getType(), "input '" + n + "'", n,
                     inputs)))
      return failure();
  }
  auto names = main->getAttrOfType<ArrayAttr>(
      TelarDialect::OutputNamesAttrHelper::getNameStr());
  for (unsigned i = 0; i < main.getNumResults(); ++i) {
    std::string n = "output" + std::to_string(i);
    if (names && i < names.size())
      if (auto s = dyn_cast<StringAttr>(names[i]))
        n = s.str();
    if (failed(check(main.getResultTypes()[i], "output '" + n + "'", n,
                     outputs)))
      return failure();
  }
  return success();
}

/// The stages' layout on the world: stage s on position s mod P (virtual
/// stages share their position's submesh), positions on disjoint ranks
/// tiling [0, W). Returns W, or 0 with `error` set.
int64_t checkLayout(const std::vector<PlanStage> &stages, int64_t positions,
                    std::vector<int64_t> &positionOfRank, std::string &error) {
  int64_t world = 0;
  for (auto [s, stage] : llvm::enumerate(stages)) {
    std::string at = "stages[" + std::to_string(s) + "]";
    if (stage.firstRank < 0) {
      error = at + ".first_rank: " + std::to_string(stage.firstRank) +
              " is below 0";
      return 0;
    }
    const PlanStage &first = stages[s % positions];
    if (int64_t(s) >= positions &&
        (!(stage.mesh == first.mesh) || stage.firstRank != first.firstRank)) {
      error = at + " is a virtual stage of position " +
              std::to_string(s % positions) + ": it needs the mesh and " +
              "first_rank of stages[" + std::to_string(s % positions) +
              "] (" + (first.mesh.getNumAxes() ? first.mesh.str() : "one device") +
              " from rank " + std::to_string(first.firstRank) + ")";
      return 0;
    }
    world = std::max(world, stage.firstRank + stage.mesh.getNumDevices());
  }
  positionOfRank.assign(world, -1);
  for (int64_t p = 0; p < positions; ++p) {
    const PlanStage &stage = stages[p];
    for (int64_t r = stage.firstRank;
         r < stage.firstRank + stage.mesh.getNumDevices(); ++r) {
      if (positionOfRank[r] >= 0) {
        error = "stages[" + std::to_string(positionOfRank[r]) + "] and stages[" +
                std::to_string(p) + "] both run on rank " + std::to_string(r) +
                " (the stages' submeshes must be disjoint)";
        return 0;
      }
      positionOfRank[r] = p;
    }
  }
  for (int64_t r = 0; r < world; ++r)
    if (positionOfRank[r] < 0) {
      error = "rank " + std::to_string(r) + " is in no stage (the stages' " +
              "ranks must tile 0.." + std::to_string(world - 1) + ")";
      return 0;
    }
  return world;
}

} // namespace

bool isPipelinedPlan(const Plan &plan) {
  return !plan.stages.empty() ||
         (plan.schedule && plan.schedule->microbatches > 1);
}

int64_t getPlanWorldSize(const Plan &plan) {
  if (plan.stages.empty())
    return plan.mesh.getNumDevices();
  int64_t world = 0;
  for (const PlanStage &s : plan.stages)
    world = std::max(world, s.firstRank + s.mesh.getNumDevices());
  return world;
}

LogicalResult compilePipelineArtifact(ModuleOp module, TargetBackend &target,
                                      const ArtifactOptions &options,
                                      std::string &error) {
  const Plan &plan = *options.plan;
  auto main = module.lookupSymbol<func::FuncOp>("main");
  telar_sharding::PlanSchedule schedule =
      plan.schedule.value_or(telar_sharding::PlanSchedule());
  int64_t M = schedule.microbatches, V = schedule.virtualStages;
  std::optional<telar_sharding::ScheduleKind> kind =
      telar_sharding::parseScheduleKindName(schedule.kind);
  if (!kind) {
    error = "schedule.kind: unknown schedule '" + schedule.kind +
            "' (gpipe, 1f1b or interleaved)";
    return failure();
  }
  if (M < 1 || V < 1) {
    error = "schedule: microbatches and virtual_stages must be at least 1";
    return failure();
  }

  // The stages: a plan without "stages" is one stage of every op on its
  // mesh (its ops listed once the program is known).
  std::vector<PlanStage> stages = plan.stages;
  bool implicitStage = stages.empty();
  if (implicitStage) {
    PlanStage whole;
    whole.mesh = plan.mesh;
    whole.shardings = plan.shardings;
    stages.push_back(std::move(whole));
  }
  int64_t S = stages.size();
  if (S % V != 0) {
    error = "schedule.virtual_stages: " + std::to_string(V) +
            " virtual stages per position do not divide the " +
            std::to_string(S) + " stages";
    return failure();
  }
  int64_t P = S / V;
  std::vector<int64_t> positionOfRank;
  int64_t world = checkLayout(stages, P, positionOfRank, error);
  if (world == 0)
    return failure();

  std::vector<artifact::TensorSpec> graphInputs, graphOutputs;
  if (failed(describeInterface(main, target, graphInputs, graphOutputs, error)))
    return failure();

  std::vector<std::string> stageNames = {"microbatching", "splitting stages"};
  for (int64_t s = 0; s < S; ++s) {
    const PlanStage &stage = stages[s];
    int64_t n = stage.mesh.getNumDevices();
    stageNames.push_back(
        "compiling stage " + std::to_string(s) + " of " + std::to_string(S) +
        " (" + stageDirectory(s) + "/, " +
        (n == 1 ? "rank " + std::to_string(stage.firstRank)
                : "ranks " + std::to_string(stage.firstRank) + "-" +
                      std::to_string(stage.firstRank + n - 1)) +
        ")");
  }
  stageNames.push_back("writing manifest");
  CompileStages progress(stageNames, options.stages);

  if (llvm::sys::fs::create_directories(options.outputDir)) {
    error = "cannot create " + options.outputDir;
    return failure();
  }

  // The program of one microbatch: every stage program and sharding is at
  // microbatch shape.
  FailureOr<MicrobatchInfo> info;
  if (failed(progress.run("microbatching", [&]() -> LogicalResult {
        info = makeMicrobatchProgram(main, M);
        return info;
      })))
    return failure();

  FailureOr<StageSplit> split;
  if (failed(progress.run("splitting stages", [&]() -> LogicalResult {
        std::vector<std::vector<std::string>> lists;
        for (const PlanStage &stage : stages)
          lists.push_back(stage.ops);
        if (implicitStage) {
          // Every op by the name of one of its results.
          llvm::DenseSet<Operation *> listed;
          for (auto &[name, v] : getValueNames(main))
            if (Operation *op = v.getDefiningOp())
              if (listed.insert(op).second)
                lists[0].push_back(name);
        }
        split = splitStages(main, lists);
        return split;
      })))
    return failure();

  // Each stage: its program compiled as any artifact, on its submesh with
  // its shardings; the boundary values it sends are never partial (what
  // crosses is a resolved value).
  std::map<std::string, Value> names = getValueNames(main);
  std::vector<artifact::Manifest> stageManifests(S);
  for (int64_t s = 0; s < S; ++s) {
    if (failed(progress.run(stageNames[2 + s], [&]() -> LogicalResult {
          const PlanStage &stage = stages[s];
          OwningOpRef<ModuleOp> program = buildStageModule(main, *split, s);
          Plan stagePlan;
          stagePlan.mesh = stage.mesh;
          stagePlan.shardings = stage.shardings;
          for (const std::string &out : split->stages[s].outputs) {
            auto it = stagePlan.shardings.find(out);
            if (it != stagePlan.shardings.end())
              it->second.partial.clear();
          }
          ArtifactOptions sub;
          sub.outputDir = options.outputDir + "/" + stageDirectory(s);
          sub.modelPath = options.modelPath;
          sub.plan = std::move(stagePlan);
          sub.launchFiles = false;
          sub.randomWeights = options.randomWeights;
          sub.writtenManifest = &stageManifests[s];
          if (succeeded(compileArtifact(*program, target, sub, error)))
            return success();
          if (!error.empty())
            error = "stage " + std::to_string(s) + ": " + error;
          return failure();
        })))
      return failure();
  }

  return progress.run("writing manifest", [&]() -> LogicalResult {
    artifact::PipelineSpec pipeline;
    pipeline.microbatches = M;
    pipeline.schedule = telar_sharding::getScheduleKindName(*kind);
    pipeline.virtualStages = V;
    for (int64_t s = 0; s < S; ++s)
      pipeline.stages.push_back({stageDirectory(s), stages[s].firstRank,
                                 stages[s].mesh.getNumDevices()});
    if (info->inputDims.size() != graphInputs.size() ||
        info->outputDims.size() != graphOutputs.size()) {
      error = "internal error: the microbatch split does not cover @main's "
              "inputs and outputs";
      return failure();
    }
    for (auto [i, input] : llvm::enumerate(graphInputs))
      pipeline.inputs.push_back({input.name, info->inputDims[i], -1});
    for (auto [i, output] : llvm::enumerate(graphOutputs))
      pipeline.outputs.push_back(
          {output.name, info->outputDims[i], split->outputStages[i]});

    // The transfers: per boundary value and receiving stage, the messages
    // from the sender's sharding to the receiver's.
    std::set<std::pair<int64_t, int64_t>> pairs;
    for (const StageBoundary &b : split->boundaries) {
      for (int64_t to : b.toStages) {
        const PlanStage &from = stages[b.fromStage], &into = stages[to];
        const artifact::TensorSpec *sent =
            findEntry(stageManifests[b.fromStage].outputs, b.name);
        const artifact::TensorSpec *received =
            findEntry(stageManifests[to].inputs, b.name);
        if (!sent || !received) {
          error = "internal error: boundary value '" + b.name +
                  "' is missing from stage " +
                  std::to_string(sent ? to : b.fromStage) + "'s manifest";
          return failure();
        }
        // The stage manifests leave replicated values' shardings out.
        auto shardingOf = [](const artifact::TensorSpec &t) {
          return t.sharding.dims.empty()
                     ? Sharding::getReplicated(int64_t(t.shape.size()))
                     : t.sharding;
        };
        Sharding fromSharding = shardingOf(*sent);
        Sharding toSharding = shardingOf(*received);
        Type element =
            cast<RankedTensorType>(names.at(b.name).getType()).getElementType();
        std::vector<telar_sharding::BoxMessage> messages =
            telar_sharding::getCrossMeshMessages(
                sent->shape, getElementBytes(element), from.mesh,
                fromSharding, from.firstRank, into.mesh, toSharding,
                into.firstRank);
        artifact::PipelineTransferSpec transfer;
        transfer.name = b.name;
        transfer.fromStage = b.fromStage;
        transfer.toStage = to;
        transfer.dtype = sent->dtype;
        transfer.shape = sent->shape;
        for (const telar_sharding::BoxMessage &m : messages)
          transfer.messages.push_back(
              {m.fromRank, m.toRank, m.fromOffsets, m.toOffsets, m.sizes});
        pipeline.transfers.push_back(std::move(transfer));
        pairs.insert({b.fromStage, to});
      }
    }

    // The schedule, then each rank's list: its position's steps, a send or
    // recv listing the transfers of that stage pair this rank takes part
    // in (none: the step is not this rank's).
    std::vector<telar_sharding::StageEdge> edges;
    for (auto [from, to] : pairs)
      edges.push_back({from, to});
    // A pipeline with no value crossing still runs its stages in order.
    if (edges.empty())
      for (int64_t s = 0; s + 1 < S; ++s)
        edges.push_back({s, s + 1});
    std::string scheduleError;
    std::optional<telar_sharding::PipelineSchedule> table =
        telar_sharding::buildSchedule(*kind, P, V, M, /*forwardOnly=*/true,
                                      edges, scheduleError);
    if (!table) {
      error = "schedule: " + scheduleError;
      return failure();
    }
    using Step = telar_sharding::ScheduleStep;
    for (int64_t r = 0; r < world; ++r) {
      std::vector<artifact::PipelineStepSpec> steps;
      for (const Step &step : table->steps[positionOfRank[r]]) {
        artifact::PipelineStepSpec entry;
        entry.op = step.kind;
        entry.microbatch = step.microbatch;
        entry.stage = step.stage;
        switch (step.kind) {
        case Step::Kind::Forward:
        case Step::Kind::Backward:
          break;
        case Step::Kind::Optimizer:
          entry.microbatch = -1;
          break;
        case Step::Kind::Send:
        case Step::Kind::Recv: {
          // The transfers of this stage pair and kind (values, or their
          // gradients) this rank takes part in.
          bool send = step.kind == Step::Kind::Send;
          int64_t from = send ? step.stage : step.peerStage;
          int64_t to = send ? step.peerStage : step.stage;
          for (auto [t, transfer] : llvm::enumerate(pipeline.transfers)) {
            if (transfer.fromStage != from || transfer.toStage != to ||
                transfer.gradient != step.gradient)
              continue;
            bool mine = llvm::any_of(transfer.messages, [&](const auto &m) {
              return (send ? m.fromRank : m.toRank) == r;
            });
            if (mine)
              entry.transfers.push_back(t);
          }
          if (entry.transfers.empty())
            continue;
          break;
        }
        }
        steps.push_back(std::move(entry));
      }
      pipeline.scheduleTable.push_back(std::move(steps));
    }

    // The whole plan, as given.
    {
      std::string path = options.outputDir + "/" + kPlanFileName;
      std::error_code ec;
      llvm::ToolOutputFile out(path, ec, llvm::sys::fs::OF_Text);
      if (ec) {
        error = "cannot write " + path + ": " + ec.message();
        return failure();
      }
      out.os() << telar_sharding::writePlanJson(plan);
      out.keep();
    }

    // The manifest: the graph's interface at full batch, the target of the
    // stages, no programs or weights of its own.
    const artifact::Manifest &first = stageManifests.front();
    artifact::Manifest manifest;
    manifest.formatVersion = artifact::kArtifactFormatVersion;
    manifest.telarVersion = first.telarVersion;
    manifest.modelPath = first.modelPath;
    manifest.modelSha256 = first.modelSha256;
    manifest.targetKind = first.targetKind;
    manifest.targetTriple = first.targetTriple;
    manifest.targetChip = first.targetChip;
    manifest.targetFeatures = first.targetFeatures;
    manifest.inputs = graphInputs;
    manifest.outputs = graphOutputs;
    manifest.worldSize = world;
    manifest.pipeline = std::move(pipeline);
    if (world > 1 && options.launchFiles) {
      LaunchOptions launch = options.launch;
      error = resolveLaunchOptions(launch, world, options.modelPath);
      if (!error.empty() ||
          !writeLaunchFiles(options.outputDir, manifest, launch, error))
        return failure();
    }
    std::string path =
        options.outputDir + "/" + artifact::kManifestFileName;
    std::error_code ec;
    llvm::ToolOutputFile out(path, ec, llvm::sys::fs::OF_Text);
    if (ec) {
      error = "cannot write " + path + ": " + ec.message();
      return failure();
    }
    out.os() << artifact::writeManifestJson(manifest);
    out.keep();
    return success();
  });
}

} // namespace mlir::telar
