//===- Artifact.h - Compile a telar module into an artifact dir -*- C++ -*-===//
//
// The target-independent driver of telarc --target: the program prepared
// (telar-prepare-program), its interface read and its weights written as
// safetensors, the target's translation and serialisation, and
// manifest.json describing it all (docs/Artifact.md).
//
//===----------------------------------------------------------------------===//
#ifndef TELAR_CODEGEN_ARTIFACT_H
#define TELAR_CODEGEN_ARTIFACT_H

#include "telar/artifact/Manifest.h"
#include "telar/launch/LaunchFiles.h"
#include "telar/sharding/Plan.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Support/LLVM.h"

#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace mlir::telar {

class TargetBackend;

/// The artifact format version written into manifest.json (the schema's,
/// include/telar/artifact/Manifest.h); the runtime refuses other versions.
using ::telar_artifact::kArtifactFormatVersion;

/// Callbacks told when a compile stage starts (its 1-based index among
/// `count`) and when it ends (its wall time).
struct StageCallbacks {
  std::function<void(StringRef stage, int index, int count)> onBegin;
  std::function<void(StringRef stage, double seconds)> onEnd;
};

/// Runs the named stages of a compilation in a fixed order, timing each and
/// reporting it to the callbacks.
class CompileStages {
public:
  CompileStages(std::vector<std::string> names, const StageCallbacks &callbacks)
      : names(std::move(names)), callbacks(callbacks) {}

  /// Runs `fn` as the stage `name`, which must be the next one declared.
  LogicalResult run(StringRef name, function_ref<LogicalResult()> fn);

private:
  std::vector<std::string> names;
  const StageCallbacks &callbacks;
  size_t next = 0;
};

struct ArtifactOptions {
  std::string outputDir;
  /// The model file, hashed into the manifest (may be empty).
  std::string modelPath;
  StageCallbacks stages;
  /// The parallelization plan (telarc --plan/--mesh), parsed; none for a
  /// single-device artifact.
  std::optional<telar_sharding::Plan> plan;
  /// The launch files of a multi-rank artifact (launch/, LaunchFiles.h),
  /// completed by resolveLaunchOptions for its world size.
  LaunchOptions launch;
  /// Whether a multi-rank artifact gets its launch/ folder (not the stages
  /// of a pipeline: the pipeline's directory has it).
  bool launchFiles = true;
  /// When set, receives the manifest written (a pipeline reads its stages'
  /// interfaces from it).
  ::telar_artifact::Manifest *writtenManifest = nullptr;
  /// A training step's export template (ImportOptions::exportTemplate),
  /// written as kExportModelFileName and named by the manifest's
  /// training.export_model; empty: none.
  std::string exportTemplate;
  /// Write no weight bytes: the manifest names kRandomWeightsFile, and the
  /// runtime fills the weights with seeded random values at load (a
  /// benchmark of a model too large to carry; single-device artifacts).
  bool randomWeights = false;
};

/// The file of a training artifact's export template.
inline constexpr char kExportModelFileName[] = "model.onnx";

/// Whether `plan` compiles to a pipelined artifact (manifest version 4):
/// it has stages, or a schedule of more than one microbatch.
bool isPipelinedPlan(const telar_sharding::Plan &plan);

/// The world size of `plan`: the ranks its stages cover, or its mesh's
/// devices.
int64_t getPlanWorldSize(const telar_sharding::Plan &plan);

/// Compiles `module` (telar dialect, canonicalised, with @main) for
/// `target` into `options.outputDir`. With `options.plan`, the program is
/// completed once (completePlan), written as plan.json,
/// annotated (annotateWithPlan) and partitioned (telar-partition); a module already partitioned (local types, a
/// `shard.grid`, sharded weights as all_slice chains) compiles as it is. The module is consumed (lowered in
/// place). The passes it runs are buildTargetPipeline's (TargetBackend.h),
/// with the program's interface read between the preparation and the
/// translation. A multi-rank artifact gets its launch/ folder
/// (writeLaunchFiles) just before its manifest. Errors are emitted as MLIR diagnostics or returned in
/// `error`.
LogicalResult compileArtifact(ModuleOp module, TargetBackend &target,
                              const ArtifactOptions &options,
                              std::string &error);

/// compileArtifact for a pipelined plan (isPipelinedPlan), which it calls
/// for one (lib/codegen/PipelineArtifact.cpp): the program of one
/// microbatch (makeMicrobatchProgram), the stages split
/// (splitStages), each stage compiled by compileArtifact into
/// `stage<s>/` on its submesh with its shardings (its boundary outputs
/// never partial), then plan.json, the version-4 manifest (the stages, the
/// transfers between them as getCrossMeshMessages' messages, the
/// schedule table of buildSchedule per world rank) and the launch files for
/// the world size (docs/Artifact.md, "Pipelined artifacts").
LogicalResult compilePipelineArtifact(ModuleOp module, TargetBackend &target,
                                      const ArtifactOptions &options,
                                      std::string &error);

/// The completed plan of a partitioned artifact, next to its manifest.
inline constexpr char kPlanFileName[] = "plan.json";

/// numpy's name of an element type ("float32", "int64", "bool", ...), or ""
/// when the artifact cannot carry it.
std::string numpyDtypeName(Type elementType);

/// safetensors' dtype code ("F32", "I64", "BOOL", ...), or "".
std::string safetensorsDtype(Type elementType);

} // namespace mlir::telar

#endif // TELAR_CODEGEN_ARTIFACT_H
