//===- Artifact.cpp - Compile a telar module into an artifact directory ---===//

#include "telar/codegen/Artifact.h"
#include "telar/analysis/LiveSet.h"
#include "telar/codegen/ArtifactWriter.h"
#include "telar/codegen/Pipeline.h"
#include "telar/codegen/TargetBackend.h"
#include "telar/dialects/Telar/ShapeInference.h"
#include "telar/dialects/Telar/TelarDialect.h"
#include "telar/dialects/Telar/TelarOps.h"
#include "telar/passes/partition/Passes.h"
#include "telar/sharding/Completion.h"
#include "telar/sharding/Plan.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Shard/IR/ShardOps.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinDialect.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/ToolOutputFile.h"

#include <chrono>

using namespace mlir;

// Defined inside the namespace: `telar` alone would be ambiguous with the
// manifest schema's ::telar.
namespace mlir::telar {

namespace {
/// The names of an element type in the manifest (numpy's) and in
/// safetensors; empty when the artifact cannot carry the type.
std::pair<std::string, std::string> dtypeNames(Type t) {
  if (t.isF32()) return {"float32", "F32"};
  if (t.isF64()) return {"float64", "F64"};
  if (t.isF16()) return {"float16", "F16"};
  if (t.isBF16()) return {"bfloat16", "BF16"};
  if (t.isInteger(1)) return {"bool", "BOOL"};
  if (auto it = dyn_cast<IntegerType>(t)) {
    unsigned w = it.getWidth();
    if (w != 8 && w != 16 && w != 32 && w != 64)
      return {};
    std::string bits = std::to_string(w);
    if (it.isUnsigned())
      return {"uint" + bits, "U" + bits};
    return {"int" + bits, "I" + bits};
  }
  return {};
}
} // namespace

std::string numpyDtypeName(Type t) { return dtypeNames(t).first; }

std::string safetensorsDtype(Type t) { return dtypeNames(t).second; }

LogicalResult checkInterfaceType(Type type, const std::string &what,
                                 const TargetBackend &target,
                                 RankedTensorType &ranked, std::string &error) {
  ranked = dyn_cast<RankedTensorType>(type);
  if (!ranked || !ranked.hasStaticShape()) {
    error = what + " has the dynamic type " + toString(type) +
            "; give static shapes with --input-shape NAME=DxD...";
    return failure();
  }
  if (!target.supportsElementType(ranked.getElementType())) {
    error = what + " has the element type " +
            toString(ranked.getElementType()) + ", which the " +
            target.getName().upper() + " target does not support";
    return failure();
  }
  return success();
}

LogicalResult CompileStages::run(StringRef name,
                                 function_ref<LogicalResult()> fn) {
  assert(next < names.size() && names[next] == name &&
         "stages run in the order they were declared");
  int index = static_cast<int>(++next);
  if (callbacks.onBegin)
    callbacks.onBegin(name, index, static_cast<int>(names.size()));
  auto start = std::chrono::steady_clock::now();
  LogicalResult result = fn();
  std::chrono::duration<double> took = std::chrono::steady_clock::now() - start;
  if (callbacks.onEnd)
    callbacks.onEnd(name, took.count());
  return result;
}

SmallVector<SmallVector<int64_t>> ProgramInterface::getBufferShapes() const {
  SmallVector<SmallVector<int64_t>> shapes;
  for (const ProgramTensor &t : inputs)
    shapes.emplace_back(t.type.getShape());
  for (const ProgramWeight &w : weights)
    shapes.emplace_back(w.type.getShape());
  for (const ProgramTensor &t : outputs)
    shapes.emplace_back(t.type.getShape());
  return shapes;
}

namespace {

/// The mesh of a partitioned program: its one `shard.grid` (axis names
/// from telar.axis_names, `axis<i>` without them, as telar-outline-weights
/// names them), or none.
LogicalResult readMesh(ModuleOp module, ProgramInterface &interface,
                       std::string &error) {
  auto grids = llvm::to_vector(module.getOps<shard::GridOp>());
  if (grids.empty())
    return success();
  if (grids.size() > 1) {
    error = "a partitioned program has one shard.grid, this one has " +
            std::to_string(grids.size());
    return failure();
  }
  shard::GridOp grid = grids.front();
  auto names = grid->getAttrOfType<ArrayAttr>(
      telar::TelarDialect::AxisNamesAttrHelper::getNameStr());
  telar_sharding::Mesh mesh;
  for (auto [i, size] : llvm::enumerate(grid.getShape())) {
    if (ShapedType::isDynamic(size)) {
      error = "the grid @" + grid.getSymName().str() +
              " has a dynamic size; a partitioned program needs a static mesh";
      return failure();
    }
    mesh.axisNames.push_back(names && i < names.size()
                                 ? cast<StringAttr>(names[i]).str()
                                 : "axis" + std::to_string(i));
    mesh.axisSizes.push_back(size);
  }
  interface.mesh = std::move(mesh);
  return success();
}

/// telar.sharding / telar.global_shape of an argument or result (`attrs`)
/// into `t`, checked against the mesh.
LogicalResult readShardingAttrs(DictionaryAttr attrs,
                                const ProgramInterface &interface,
                                const std::string &what, ProgramTensor &t,
                                std::string &error) {
  if (!attrs)
    return success();
  using Dialect = telar::TelarDialect;
  auto sharding =
      attrs.getAs<ArrayAttr>(Dialect::ShardingAttrHelper::getNameStr());
  auto global =
      attrs.getAs<DenseI64ArrayAttr>(Dialect::GlobalShapeAttrHelper::getNameStr());
  if (!sharding && !global)
    return success();
  if (!sharding || !global) {
    error = what + " needs both telar.sharding and telar.global_shape";
    return failure();
  }
  if (!interface.mesh) {
    error = what + " is sharded, but the module has no shard.grid";
    return failure();
  }
  AxisNames names;
  for (Attribute dim : sharding) {
    names.emplace_back();
    for (Attribute axis : cast<ArrayAttr>(dim))
      names.back().push_back(cast<StringAttr>(axis).str());
  }
  t.globalShape.assign(global.asArrayRef().begin(), global.asArrayRef().end());
  std::optional<telar_sharding::Sharding> resolved = resolveSharding(
      names, t.globalShape, t.type, *interface.mesh, what, error);
  if (!resolved)
    return failure();
  // Replicated after all: the manifest leaves it out.
  if (!resolved->isReplicated())
    t.sharding = std::move(*resolved);
  return success();
}

/// The inputs and outputs of @main, read before the lowering changes their
/// types (ui8 -> i8). Each needs a static shape and an element type the
/// target supports.
LogicalResult readInputsAndOutputs(func::FuncOp main,
                                   const TargetBackend &target,
                                   ProgramInterface &interface,
                                   std::string &error) {
  auto checkType = [&](Type type, const std::string &what,
                       RankedTensorType &ranked) {
    return checkInterfaceType(type, what, target, ranked, error);
  };
  FunctionType fnType = main.getFunctionType();
  for (unsigned i = 0; i < fnType.getNumInputs(); ++i) {
    auto name = main.getArgAttrOfType<StringAttr>(
        i, telar::TelarDialect::NameAttrHelper::getNameStr());
    ProgramTensor t{name ? name.str() : "input" + std::to_string(i), {}};
    std::string what = "input '" + t.name + "'";
    if (failed(checkType(fnType.getInput(i), what, t.type)) ||
        failed(readShardingAttrs(main.getArgAttrDict(i), interface, what, t,
                                 error)))
      return failure();
    interface.inputs.push_back(t);
  }
  auto outputNames = main->getAttrOfType<ArrayAttr>(
      telar::TelarDialect::OutputNamesAttrHelper::getNameStr());
  // A training step's variables: their weights' resource keys.
  llvm::StringMap<std::string> variableKeys;
  main.walk([&](telar::VariableOp v) {
    if (auto res = dyn_cast<DenseResourceElementsAttr>(v.getValue()))
      variableKeys[v.getName()] = res.getRawHandle().getKey().str();
  });
  for (unsigned i = 0; i < fnType.getNumResults(); ++i) {
    ProgramTensor t{"output" + std::to_string(i), {}};
    if (outputNames && i < outputNames.size())
      if (auto s = dyn_cast<StringAttr>(outputNames[i]))
        t.name = s.str();
    if (auto updates = main.getResultAttrOfType<StringAttr>(
            i, telar::TelarDialect::UpdatesAttrHelper::getNameStr())) {
      auto key = variableKeys.find(updates.getValue());
      if (key == variableKeys.end()) {
        error = "output '" + t.name + "' updates the variable '" +
                updates.getValue().str() + "', which @main does not read";
        return failure();
      }
      t.updates = key->second;
    }
    std::string what = "output '" + t.name + "'";
    if (failed(checkType(fnType.getResult(i), what, t.type)) ||
        failed(readShardingAttrs(main.getResultAttrDict(i), interface, what,
                                 t, error)))
      return failure();
    interface.outputs.push_back(t);
  }
  return success();
}

/// The manifest's "training" of a training step (the module's
/// telar.training), or none.
std::optional<artifact::TrainingSpec> readTraining(ModuleOp module) {
  auto attr = module->getAttrOfType<DictionaryAttr>(
      telar::TelarDialect::TrainingAttrHelper::getNameStr());
  if (!attr)
    return std::nullopt;
  artifact::TrainingSpec t;
  for (NamedAttribute entry : attr) {
    StringRef key = entry.getName().getValue();
    if (key == "loss")
      t.loss = cast<StringAttr>(entry.getValue()).str();
    else if (key == "optimizer")
      t.optimizer = cast<StringAttr>(entry.getValue()).str();
    else if (auto f = dyn_cast<FloatAttr>(entry.getValue()))
      t.hyperparameters[key.str()] = f.getValueAsDouble();
    else if (auto names = dyn_cast<ArrayAttr>(entry.getValue());
             names && key == "parameters")
      for (Attribute n : names) {
        std::string name = cast<StringAttr>(n).str();
        t.parameters.push_back({name, name + "@new"});
      }
  }
  return t;
}

/// The weights telar-outline-weights appended to @main's arguments (after
/// the inputs), with their bytes: the resource blobs, which stay in the
/// context after the constants referencing them are gone.
LogicalResult readWeights(func::FuncOp main, const TargetBackend &target,
                          ProgramInterface &interface, std::string &error) {
  auto &blobs =
      DenseResourceElementsHandle::getManagerInterface(main.getContext())
          .getBlobManager();
  llvm::StringMap<unsigned> shardedUses;
  for (unsigned i = interface.inputs.size(); i < main.getNumArguments(); ++i) {
    auto name = main.getArgAttrOfType<StringAttr>(
        i, telar::TelarDialect::WeightAttrHelper::getNameStr());
    if (!name) {
      error = "argument " + std::to_string(i) +
              " of the prepared @main is neither an input nor a weight";
      return failure();
    }
    auto type = cast<RankedTensorType>(main.getArgument(i).getType());
    auto *entry = blobs.lookup(name.getValue());
    if (!entry || !entry->getBlob()) {
      error = "the model's weights were elided; compile the model itself";
      return failure();
    }
    ProgramWeight w{name.str(), type, entry->getBlob()->getData()};
    // A sharded weight's blob is the global tensor (the writer cuts it).
    RankedTensorType stored = type;
    ProgramTensor sharded{w.name, type};
    if (failed(readShardingAttrs(main.getArgAttrDict(i), interface,
                                 "weight '" + w.name + "'", sharded, error)))
      return failure();
    if (!sharded.globalShape.empty()) {
      stored = RankedTensorType::get(sharded.globalShape,
                                     type.getElementType());
      w.globalShape = sharded.globalShape;
      w.sharding = sharded.sharding;
      // Sharded weights come last (telar-outline-weights): the program's
      // weight buffers follow the manifest's files, replicated first.
    } else if (!interface.weights.empty() &&
               interface.weights.back().isSharded()) {
      error = "the replicated weight '" + w.name +
              "' follows a sharded one in @main's arguments";
      return failure();
    }
    int64_t bytes = LiveSetAnalysis::getTensorBytes(stored);
    if (static_cast<int64_t>(w.data.size()) != bytes) {
      error = "weight '" + w.name + "' holds " +
              std::to_string(w.data.size()) + " bytes, its type " +
              toString(stored) + " needs " + std::to_string(bytes);
      return failure();
    }
    if (!target.supportsElementType(type.getElementType())) {
      error = "weight '" + w.name + "' has the element type " +
              toString(type.getElementType()) + ", which the " +
              target.getName().upper() + " target does not support";
      return failure();
    }
    // One weight sliced two ways (a shared initializer used by ops the plan
    // splits differently) is two tensors of the per-rank file: the later
    // ones are stored under "NAME#K".
    if (w.isSharded()) {
      unsigned &uses = shardedUses[w.name];
      if (uses++)
        w.name += "#" + std::to_string(uses - 1);
    }
    interface.weights.push_back(w);
  }
  return success();
}

/// Writes `bytes` to the artifact's file `path`; the reason in `error`.
LogicalResult writeArtifactFile(const std::string &path, StringRef bytes,
                                std::string &error) {
  std::error_code ec;
  llvm::ToolOutputFile out(path, ec, llvm::sys::fs::OF_None);
  if (ec) {
    error = "cannot write " + path + ": " + ec.message();
    return failure();
  }
  out.os() << bytes;
  out.keep();
  return success();
}

} // namespace

LogicalResult compileArtifact(ModuleOp module, TargetBackend &target,
                                     const ArtifactOptions &options,
                                     std::string &error) {
  auto main = module.lookupSymbol<func::FuncOp>("main");
  if (!main || main.isExternal()) {
    error = "the module has no @main function";
    return failure();
  }
  if (failed(target.checkOptions(options.plan.has_value(), error)))
    return failure();
  if (options.plan && isPipelinedPlan(*options.plan)) {
    if (readTraining(module)) {
      error = "pipelined training (a plan with stages) is not supported "
              "yet; train on one stage (data and tensor parallel plans)";
      return failure();
    }
    return compilePipelineArtifact(module, target, options, error);
  }
  std::vector<std::string> stageNames;
  if (options.plan)
    stageNames.push_back("partitioning");
  stageNames.insert(stageNames.end(),
                    {"writing weights",
                     target.getTranslationStageName().str()});
  for (StringRef stage : target.getSerializationStageNames())
    stageNames.push_back(stage.str());
  stageNames.push_back("writing manifest");
  CompileStages stages(stageNames, options.stages);

  ArtifactWriter writer(options.outputDir);
  if (failed(writer.createDirectories(error)))
    return failure();

  // With a plan: the plan completed (written as plan.json next to the
  // manifest), applied and partitioned into one SPMD program on local
  // shapes with shard collectives.
  if (options.plan &&
      failed(stages.run("partitioning", [&]() -> LogicalResult {
        FailureOr<CompletedPlan> completed = completePlan(main, *options.plan);
        if (failed(completed))
          return failure();
        telar_sharding::Plan named = getNamedPlan(*completed);
        named.costJson = options.plan->costJson;
        if (failed(writeArtifactFile(writer.getPath(kPlanFileName),
                                     telar_sharding::writePlanJson(named),
                                     error)))
          return failure();
        // The plan completed once: annotated as telar-apply-plan would,
        // then partitioned. A mesh without axes leaves one device.
        if (options.plan->mesh.getNumAxes() == 0)
          return success();
        // The annotations are shard ops (the pass would declare the dialect
        // as a dependency).
        module.getContext()->loadDialect<shard::ShardDialect>();
        annotateWithPlan(module, main, *completed);
        PassManager pm(module.getContext());
        pm.addPass(createTelarPartition());
        if (failed(pm.run(module)))
          return failure();
        main = module.lookupSymbol<func::FuncOp>("main");
        return success();
      })))
    return failure();

  std::optional<artifact::TrainingSpec> training = readTraining(module);
  ProgramInterface interface;
  interface.name = "main";
  if (failed(readMesh(module, interface, error)) ||
      failed(readInputsAndOutputs(main, target, interface, error)))
    return failure();

  // Stage 1: the program prepared (weights transposed and outlined into
  // arguments); the weights' blobs go to safetensors.
  int64_t liveSetBytes = 0;
  if (failed(stages.run("writing weights", [&]() -> LogicalResult {
        PassManager pm(module.getContext());
        buildPreparationPipeline(pm, target);
        if (failed(pm.run(module)) ||
            failed(readWeights(main, target, interface, error)))
          return failure();
        // Memory, measured on the prepared graph (transposed weights are
        // no longer intermediates).
        liveSetBytes = LiveSetAnalysis(main).getLargestLiveSetBytes();
        if (options.randomWeights) {
          // Each rank would fill its block as if it were the whole weight.
          auto sharded = llvm::find_if(interface.weights,
                                       [](const ProgramWeight &w) {
                                         return w.isSharded();
                                       });
          if (sharded != interface.weights.end()) {
            error = "--random-weights cannot fill sharded weights ('" +
                    sharded->name +
                    "' is sharded by the plan); use a plan that replicates "
                    "the weights (data parallel, pipeline stages) or none";
            return failure();
          }
          if (!interface.weights.empty()) {
            writer.recordWeightFile(artifact::kRandomWeightsFile,
                                    interface.weights);
            interface.weightFiles.push_back(artifact::kRandomWeightsFile);
          }
          return success();
        }
        std::string dir = ArtifactWriter::kWeightsDir;
        std::string file = dir + "/weights.safetensors";
        // Replicated weights once; each rank's blocks of the sharded ones
        // in its own file.
        std::string shards =
            dir + "/shard-" + artifact::kRankPlaceholder + ".safetensors";
        SmallVector<ProgramWeight> replicated, sharded;
        for (const ProgramWeight &w : interface.weights)
          (w.isSharded() ? sharded : replicated).push_back(w);
        // The program reads a file only when it holds weights.
        if (!replicated.empty() || sharded.empty())
          if (failed(writer.writeWeightFile(file, replicated, error)))
            return failure();
        if (!replicated.empty())
          interface.weightFiles.push_back(file);
        if (sharded.empty())
          return success();
        if (!interface.mesh) {
          error = "sharded weights need the module's shard.grid";
          return failure();
        }
        interface.weightFiles.push_back(shards);
        return writer.writeShardedWeightFiles(shards, sharded,
                                              *interface.mesh, error);
      })))
    return failure();

  // Stage 2: the translation (the shared prefix, then the target's).
  if (failed(stages.run(target.getTranslationStageName(), [&] {
        PassManager pm(module.getContext());
        buildTranslationPipeline(pm, target);
        return pm.run(module);
      })))
    return failure();

  // The target's stages: its program files.
  if (failed(target.serialize(module, interface, writer, stages, error)))
    return failure();

  // Last, the manifest, so that a directory with a manifest is a complete
  // artifact.
  return stages.run("writing manifest", [&]() -> LogicalResult {
    writer.setModel(options.modelPath);
    // Inputs and outputs with their global shapes: the files telar-run
    // reads and writes are whole tensors.
    auto describe = [](const ProgramTensor &t) {
      artifact::TensorSpec entry = describeTensor(t.name, t.type);
      if (!t.globalShape.empty())
        entry.shape = t.globalShape;
      entry.sharding = t.sharding;
      entry.updates = t.updates;
      return entry;
    };
    SmallVector<artifact::TensorSpec> inputs, outputs;
    for (const ProgramTensor &t : interface.inputs)
      inputs.push_back(describe(t));
    for (const ProgramTensor &t : interface.outputs)
      outputs.push_back(describe(t));
    writer.setInputs(inputs);
    writer.setOutputs(outputs);
    if (interface.mesh)
      writer.setMesh(*interface.mesh);
    if (training && !options.exportTemplate.empty()) {
      if (failed(writeArtifactFile(writer.getPath(kExportModelFileName),
                                   options.exportTemplate, error)))
        return failure();
      training->exportModel = kExportModelFileName;
    }
    if (training)
      writer.setTraining(*training);
    writer.setLargestLiveSetBytes(liveSetBytes);
    // The launchers' files, for every artifact that runs on several ranks.
    artifact::Manifest manifest = writer.getManifest();
    if (options.writtenManifest)
      *options.writtenManifest = manifest;
    if (options.launchFiles && manifest.worldSize > 1) {
      LaunchOptions launch = options.launch;
      error = resolveLaunchOptions(launch, manifest.worldSize,
                                   options.modelPath);
      if (!error.empty() ||
          !writeLaunchFiles(options.outputDir, manifest, launch, error))
        return failure();
    }
    return writer.writeManifest(error);
  });
}

} // namespace mlir::telar
