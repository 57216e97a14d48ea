//===- Manifest.h - The schema, reader and writer of manifest.json -*- C++ -*-===//
//
// The artifact library (lib/artifact, TelarArtifact): the one description of
// manifest.json (docs/Artifact.md), used by the compiler (telarc writes it)
// and the runtime (which reads it) alike. It holds the format name and
// versions, every field name, the one set of structs a manifest is held in,
// the checked reader and the writer. Plain C++17 without MLIR or LLVM; the
// reader (built with exceptions, nlohmann-json inside) throws
// telar_artifact::Error naming the file and the field at fault, the writer
// throws nothing, so that code built without exceptions (the compiler)
// calls it too.
//
// The namespace is telar_artifact, as the other plain-C++ libraries the
// compiler shares with the runtime (telar_sharding): the compiler's code
// lives in mlir::telar and writes `telar::` under `using namespace mlir`,
// which a ::telar namespace would make ambiguous. The compiler names it
// mlir::telar::artifact, the runtime telar::runtime::artifact.
//
//===----------------------------------------------------------------------===//

#ifndef TELAR_ARTIFACT_MANIFEST_H
#define TELAR_ARTIFACT_MANIFEST_H

#include "telar/sharding/core/Schedule.h"
#include "telar/sharding/core/Sharding.h"

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace telar_artifact {

/// The value of the "format" field.
inline constexpr char kFormatName[] = "telar-artifact";

/// The artifact format version written into manifest.json. The runtime
/// reads it and every version from kOldestReadableFormatVersion on. History:
/// 1, `void telar_main_entry(void **)`, one program; 2, `int
/// telar_entry(TelarContext *, void **)` (the context ABI,
/// include/telar/runtime/Abi.h), programs name the weight files they read;
/// 3, multi-rank artifacts: a device mesh, the world size, the sharding of
/// inputs, outputs and weights, per-rank weight files ("{rank}" in a path)
/// and the collective ABI. A version-3 manifest without a mesh, and every
/// version-2 one, is a single-device artifact; 4, pipelined artifacts: a
/// "pipeline" object (stages in sub-directories, each a complete version-3
/// artifact, the transfers between them and the schedule table). A
/// version-4 manifest without a pipeline reads as version 3.
inline constexpr int64_t kArtifactFormatVersion = 4;
inline constexpr int64_t kOldestReadableFormatVersion = 2;
/// The version an artifact without a pipeline is written with (a pipeline's
/// stages among them): what it holds means what it meant in version 3.
inline constexpr int64_t kUnpipelinedFormatVersion = 3;

/// In a weight's `file` (and a program's `weight_files`), replaced by the
/// rank number: each rank maps its own file.
inline constexpr char kRankPlaceholder[] = "{rank}";

/// As a weight's `file` (and in a program's `weight_files`): no file; the
/// runtime fills the weight with seeded random values when it loads the
/// artifact (telarc --random-weights: artifacts for benchmarks only).
inline constexpr char kRandomWeightsFile[] = "@random";

/// The manifest's file name inside the artifact directory.
inline constexpr char kManifestFileName[] = "manifest.json";

/// The entry point telarc's programs export (Abi.h: TelarEntryFn).
inline constexpr char kDefaultEntryName[] = "telar_entry";

/// Field names. Nested objects' fields are prefixed with the object's name.
namespace key {
inline constexpr char kFormat[] = "format";
inline constexpr char kFormatVersion[] = "format_version";
inline constexpr char kTelarVersion[] = "telar_version";

inline constexpr char kModel[] = "model";
inline constexpr char kModelPath[] = "path";
inline constexpr char kModelSha256[] = "sha256";

inline constexpr char kTarget[] = "target";
inline constexpr char kTargetKind[] = "kind";
inline constexpr char kTargetTriple[] = "triple";
/// The chip (CPU name, GPU architecture) of #telar.target; "cpu" before
/// targets other than the CPU existed (still read).
inline constexpr char kTargetChip[] = "chip";
inline constexpr char kTargetCpu[] = "cpu";
inline constexpr char kTargetFeatures[] = "features";

inline constexpr char kPrograms[] = "programs";
inline constexpr char kProgramName[] = "name";
inline constexpr char kProgramLibrary[] = "library";
inline constexpr char kProgramEntry[] = "entry";
inline constexpr char kProgramWeightFiles[] = "weight_files";
/// Optional, GPU programs (the library is the host program): the folder of
/// the kernel modules (<module>.cubin, <module>.ptx), the kernel table the
/// host program launches by index ([{"module", "function"}]), and the
/// library of the same kernels compiled for the host (telarc --emulation),
/// for telar-run --emulate.
inline constexpr char kProgramKernelDirectory[] = "kernel_directory";
inline constexpr char kProgramKernels[] = "kernels";
inline constexpr char kProgramKernelModule[] = "module";
inline constexpr char kProgramKernelFunction[] = "function";
inline constexpr char kProgramEmulationLibrary[] = "emulation_library";

inline constexpr char kInputs[] = "inputs";
inline constexpr char kOutputs[] = "outputs";
inline constexpr char kWeights[] = "weights";
inline constexpr char kTensorName[] = "name";
inline constexpr char kTensorDType[] = "dtype";
inline constexpr char kTensorShape[] = "shape";
inline constexpr char kWeightFile[] = "file";
/// Version 3: per tensor dimension the mesh axes (names) that split it,
/// major to minor (absent: replicated); on inputs and outputs `shape` is the
/// global shape, on weights the local one with the global one in
/// `global_shape`.
inline constexpr char kTensorSharding[] = "sharding";
inline constexpr char kWeightGlobalShape[] = "global_shape";

/// Version 3: the device mesh {"axes": [names], "shape": [sizes]} and the
/// number of ranks (the product of the sizes).
inline constexpr char kMesh[] = "mesh";
inline constexpr char kMeshAxes[] = "axes";
inline constexpr char kMeshShape[] = "shape";
inline constexpr char kWorldSize[] = "world_size";

/// Version 4: the pipeline of a pipelined artifact (docs/Artifact.md,
/// "Pipelined artifacts").
inline constexpr char kPipeline[] = "pipeline";
inline constexpr char kPipelineMicrobatches[] = "microbatches";
inline constexpr char kPipelineSchedule[] = "schedule";
inline constexpr char kPipelineVirtualStages[] = "virtual_stages";
inline constexpr char kPipelineStages[] = "stages";
inline constexpr char kStageDirectory[] = "directory";
inline constexpr char kStageFirstRank[] = "first_rank";
inline constexpr char kStageNumRanks[] = "num_ranks";
inline constexpr char kPipelineInputs[] = "inputs";
inline constexpr char kPipelineOutputs[] = "outputs";
inline constexpr char kPipelineTensorName[] = "name";
inline constexpr char kPipelineMicrobatchDim[] = "microbatch_dim";
inline constexpr char kPipelineOutputStage[] = "stage";
inline constexpr char kPipelineTransfers[] = "transfers";
inline constexpr char kTransferName[] = "name";
inline constexpr char kTransferFromStage[] = "from_stage";
inline constexpr char kTransferToStage[] = "to_stage";
inline constexpr char kTransferDType[] = "dtype";
inline constexpr char kTransferShape[] = "shape";
inline constexpr char kTransferMessages[] = "messages";
inline constexpr char kMessageFromRank[] = "from_rank";
inline constexpr char kMessageToRank[] = "to_rank";
inline constexpr char kMessageFromOffsets[] = "from_offsets";
inline constexpr char kMessageToOffsets[] = "to_offsets";
inline constexpr char kMessageSizes[] = "sizes";
inline constexpr char kPipelineScheduleTable[] = "schedule_table";
inline constexpr char kTransferGradient[] = "gradient";
inline constexpr char kStepOp[] = "op";
inline constexpr char kStepMicrobatch[] = "microbatch";
inline constexpr char kStepStage[] = "stage";
inline constexpr char kStepTransfers[] = "transfers";

/// Of a training step's output: the weight (its name) whose value the
/// output replaces once the step has run.
inline constexpr char kTensorUpdates[] = "updates";
/// A training step's artifact (telarc --train): the loss, the optimizer and
/// its hyper-parameters, the trained parameters.
inline constexpr char kTraining[] = "training";
inline constexpr char kTrainingLoss[] = "loss";
inline constexpr char kTrainingOptimizer[] = "optimizer";
inline constexpr char kTrainingHyperparameters[] = "hyperparameters";
inline constexpr char kTrainingParameters[] = "parameters";
inline constexpr char kTrainingParameterName[] = "name";
inline constexpr char kTrainingParameterOutput[] = "output";
inline constexpr char kTrainingExportModel[] = "export_model";

inline constexpr char kMemory[] = "memory";
inline constexpr char kMemoryLargestLiveSetBytes[] = "largest_live_set_bytes";
} // namespace key

/// Every error of the reader (and of the runtime, whose Error it is): a
/// message meant for the user, naming the file and the field at fault.
class Error : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};

//===----------------------------------------------------------------------===//
// Element types and shapes
//===----------------------------------------------------------------------===//

/// The element types of the artifact format, named as numpy names them.
enum class DType : uint8_t {
  Float32,
  Float64,
  Float16,
  BFloat16,
  Int8,
  Int16,
  Int32,
  Int64,
  UInt8,
  UInt16,
  UInt32,
  UInt64,
  Bool,
};

/// Parses a numpy dtype name ("float32", "int64", "bool", ...).
std::optional<DType> parseDType(std::string_view name);
/// The numpy name of `dtype`.
const char *dtypeName(DType dtype);
/// Bytes per element (bool is one byte).
size_t dtypeSize(DType dtype);

using Shape = std::vector<int64_t>;

/// Product of the dimensions (1 for a scalar).
int64_t numElements(const Shape &shape);
/// "[2,3]" ("[]" for a scalar).
std::string formatShape(const Shape &shape);
/// "float32[2,3]".
std::string formatType(DType dtype, const Shape &shape);

/// `path` with every "{rank}" replaced by `rank`.
std::string expandRankPath(std::string path, int64_t rank);

//===----------------------------------------------------------------------===//
// The manifest
//===----------------------------------------------------------------------===//

/// A named tensor of the manifest: a static shape (empty for a scalar). In
/// a multi-rank artifact an input's or output's `shape` is the global one
/// and `sharding` says how it is split on the mesh (mesh axis indices per
/// dimension, written as axis names; no dimensions: replicated, not
/// written); the program's buffers are the local blocks.
struct TensorSpec {
  std::string name;
  DType dtype = DType::Float32;
  Shape shape;
  telar_sharding::Sharding sharding = {};
  /// Outputs of a training step: the weight whose value this output
  /// replaces after each step ("": none).
  std::string updates = {};

  int64_t numElements() const { return telar_artifact::numElements(shape); }
  size_t byteSize() const { return numElements() * dtypeSize(dtype); }
  std::string typeString() const { return formatType(dtype, shape); }
  /// Some dimension is split.
  bool isSharded() const;
  bool operator==(const TensorSpec &o) const {
    return name == o.name && dtype == o.dtype && shape == o.shape &&
           sharding == o.sharding && updates == o.updates;
  }
};

/// A weight: tensor `name` of the safetensors file `file` (relative to the
/// artifact directory; "{rank}" in it stands for the rank number). Names are
/// unique per file, so the shards of one weight in several files may share
/// a name. `shape` is what the program sees (its local block); a sharded
/// weight's `globalShape` is that of the whole tensor (the reader sets it to
/// `shape` when the manifest has none).
struct WeightSpec : TensorSpec {
  std::string file;
  Shape globalShape = {};
  bool operator==(const WeightSpec &o) const {
    return TensorSpec::operator==(o) && file == o.file &&
           globalShape == o.globalShape;
  }
};

/// A program: a shared library (relative path) exporting `entry`. One
/// program per rank or pipeline stage; a single-device artifact has one,
/// called "main". It is called with the buffers of every manifest input,
/// then every weight whose file is in `weightFiles` (manifest order), then
/// every manifest output. A runtime running this program maps only those
/// files.
/// A GPU kernel of a program: function `function` of kernel module
/// `module`.
struct KernelSpec {
  std::string module;
  std::string function;
  bool operator==(const KernelSpec &o) const {
    return module == o.module && function == o.function;
  }
};

struct ProgramSpec {
  std::string name;
  std::string library;
  std::string entry = kDefaultEntryName;
  std::vector<std::string> weightFiles;
  /// A GPU program (`library` its host program): the folder of its kernel
  /// modules, its kernels in the order the host program numbers them, and
  /// the same kernels compiled for the host ("" when not compiled with
  /// --emulation). Empty for a CPU program.
  std::string kernelDirectory;
  std::vector<KernelSpec> kernels;
  std::string emulationLibrary;
  bool isGpuProgram() const { return !kernelDirectory.empty(); }
  bool operator==(const ProgramSpec &o) const {
    return name == o.name && library == o.library && entry == o.entry &&
           weightFiles == o.weightFiles &&
           kernelDirectory == o.kernelDirectory && kernels == o.kernels &&
           emulationLibrary == o.emulationLibrary;
  }
};

/// Version 4: a stage of a pipelined artifact, the complete artifact in
/// `directory` (relative to the pipelined one) on world ranks [firstRank,
/// firstRank + numRanks).
struct PipelineStageSpec {
  std::string directory;
  int64_t firstRank = 0;
  int64_t numRanks = 1;
  bool operator==(const PipelineStageSpec &o) const {
    return directory == o.directory && firstRank == o.firstRank &&
           numRanks == o.numRanks;
  }
};

/// A graph input or output of a pipeline: the dimension microbatches split
/// (inputs) or are concatenated along (outputs); -1: an input every
/// microbatch takes whole, an output the same for every microbatch (the
/// first's is taken). `stage`: the stage computing an output (-1 on
/// inputs).
struct PipelineTensorSpec {
  std::string name;
  int64_t microbatchDim = 0;
  int64_t stage = -1;
  bool operator==(const PipelineTensorSpec &o) const {
    return name == o.name && microbatchDim == o.microbatchDim &&
           stage == o.stage;
  }
};

/// One box of a boundary value: from world rank `fromRank`'s local block,
/// at `fromOffsets`, to `toRank`'s, at `toOffsets`, of shape `sizes`.
struct PipelineMessageSpec {
  int64_t fromRank = 0, toRank = 0;
  Shape fromOffsets, toOffsets, sizes;
  int64_t numElements() const { return telar_artifact::numElements(sizes); }
  bool operator==(const PipelineMessageSpec &o) const {
    return fromRank == o.fromRank && toRank == o.toRank &&
           fromOffsets == o.fromOffsets && toOffsets == o.toOffsets &&
           sizes == o.sizes;
  }
};

/// A boundary value `name` computed by stage `fromStage` and used by stage
/// `toStage` (`shape`: the global microbatch shape), moved as `messages`
/// (sorted by sender, then receiver). A `gradient` transfer moves the
/// gradient of the value `name` back, in a backward pass: from the stage
/// that used it (`fromStage`, the later one) to the stage that computed it
/// (`toStage`).
struct PipelineTransferSpec {
  std::string name;
  int64_t fromStage = 0, toStage = 0;
  DType dtype = DType::Float32;
  Shape shape;
  bool gradient = false;
  std::vector<PipelineMessageSpec> messages;
  bool operator==(const PipelineTransferSpec &o) const {
    return name == o.name && fromStage == o.fromStage &&
           toStage == o.toStage && dtype == o.dtype && shape == o.shape &&
           gradient == o.gradient && messages == o.messages;
  }
};

/// One step of a rank's schedule (telar_sharding::PipelineStepKind): a stage's
/// forward or backward pass on a microbatch, the optimizer update of a
/// stage's weights (once, after its last backward; no microbatch: -1), or
/// the sends or receives of transfers (values or their gradients).
struct PipelineStepSpec {
  using Op = telar_sharding::PipelineStepKind;
  Op op = Op::Forward;
  int64_t microbatch = 0;
  /// Forward/backward/optimizer: the stage computed; send: the sender;
  /// recv: the receiver.
  int64_t stage = 0;
  /// Send/recv: the transfers (indices, ascending) this rank has messages
  /// in.
  std::vector<int64_t> transfers = {};

  bool isTransfer() const { return op == Op::Send || op == Op::Recv; }
  bool operator==(const PipelineStepSpec &o) const {
    return op == o.op && microbatch == o.microbatch && stage == o.stage &&
           transfers == o.transfers;
  }
};

/// A version-4 manifest's "pipeline", checked (parseManifest): S stages,
/// a multiple of the virtual stages V, on P = S / V positions (stage s on
/// position s mod P; the positions' ranks tile the world); every graph
/// input and output listed once, split evenly; value transfers forward and
/// gradient transfers backward, between ranks of their stages; per world
/// rank a schedule list whose steps name its own stages, with each (stage,
/// microbatch) computed forward once, after its receives and before its
/// sends; a training schedule (one with backward steps) computes each
/// backward once, after its forward and its gradients' receives and before
/// their sends, and each stage's optimizer step once, after its last
/// backward; each message sent and received once, in an order that cannot
/// deadlock.
struct PipelineSpec {
  int64_t microbatches = 1;
  std::string schedule = "gpipe";
  int64_t virtualStages = 1;
  std::vector<PipelineStageSpec> stages;
  std::vector<PipelineTensorSpec> inputs;  // the manifest's input order
  std::vector<PipelineTensorSpec> outputs; // the manifest's output order
  std::vector<PipelineTransferSpec> transfers;
  /// One list per world rank.
  std::vector<std::vector<PipelineStepSpec>> scheduleTable;

  int64_t getNumStages() const { return int64_t(stages.size()); }
  int64_t getNumPositions() const {
    return getNumStages() / (virtualStages < 1 ? 1 : virtualStages);
  }
  int64_t getPosition(int64_t stage) const { return stage % getNumPositions(); }
  /// The position whose ranks hold world rank `rank` (-1: none).
  int64_t getPositionOfRank(int64_t rank) const;
  /// Some step is a backward pass (the artifact trains).
  bool isTraining() const;
  bool operator==(const PipelineSpec &o) const {
    return microbatches == o.microbatches && schedule == o.schedule &&
           virtualStages == o.virtualStages && stages == o.stages &&
           inputs == o.inputs && outputs == o.outputs &&
           transfers == o.transfers && scheduleTable == o.scheduleTable;
  }
};

/// A trained parameter: its ONNX initializer name and the output holding
/// its value after each step.
struct TrainingParameterSpec {
  std::string name;
  std::string output;
  bool operator==(const TrainingParameterSpec &o) const {
    return name == o.name && output == o.output;
  }
};

/// A training step's artifact: the program returns the loss (output
/// `loss`) and the new value of every variable (outputs with `updates`),
/// and takes the learning rate `@lr` (and, for adamw, the step number
/// `@step`) as inputs the runtime supplies.
struct TrainingSpec {
  std::string loss;
  std::string optimizer;
  /// lr (telar-run's default learning rate), weight_decay, momentum, ...
  std::map<std::string, double> hyperparameters;
  std::vector<TrainingParameterSpec> parameters;
  /// The source model with its trainable initializers empty (relative to
  /// the artifact; telar-run --export-onnx fills them); empty when none.
  std::string exportModel;
  /// The hyper-parameter `key`, or `fallback`.
  double get(const std::string &key, double fallback) const;
  bool operator==(const TrainingSpec &o) const {
    return loss == o.loss && optimizer == o.optimizer &&
           hyperparameters == o.hyperparameters &&
           parameters == o.parameters && exportModel == o.exportModel;
  }
};

/// manifest.json. The reader checks: known format and version, every
/// required field present with the right type, known dtypes, non-negative
/// dimensions, unique tensor and program names, relative paths that stay
/// inside the artifact, every program's weight files named by some weight,
/// once; in version 3, the mesh (unique axis names, sizes >= 1), a world
/// size that is the mesh's device count, and shardings that name mesh axes
/// at most once and split dimensions evenly (a sharded weight's local shape
/// is its global shape's block, and its file has "{rank}" in it); in
/// version 4, a pipeline (PipelineSpec) with the world size and no mesh,
/// programs or weights. The writer writes optional fields only when set.
struct Manifest {
  int64_t formatVersion = kArtifactFormatVersion;
  std::string telarVersion;
  std::string modelPath, modelSha256;
  /// #telar.target: the kind ("cpu", ...), the target triple, the chip (CPU
  /// name or GPU architecture) and the features.
  std::string targetKind, targetTriple, targetChip, targetFeatures;
  std::vector<ProgramSpec> programs;
  std::vector<TensorSpec> inputs;
  std::vector<TensorSpec> outputs;
  std::vector<WeightSpec> weights;
  /// The compiler's lower bound for intermediate memory (the largest set of
  /// intermediate tensors alive at once), or -1 when unknown (not written).
  int64_t largestLiveSetBytes = -1;
  /// The device mesh (no axes: a single-device artifact, not written) and
  /// the number of ranks the artifact runs on (written when above 1 or with
  /// a mesh or pipeline).
  telar_sharding::Mesh mesh;
  int64_t worldSize = 1;
  /// A pipelined artifact's stages, transfers and schedule (version 4; with
  /// `worldSize`, no mesh, no programs or weights).
  std::optional<PipelineSpec> pipeline;
  /// A training step's (its outputs' `updates` name its weights).
  std::optional<TrainingSpec> training;

  bool hasMesh() const { return !mesh.axisNames.empty(); }
  bool isPipelined() const { return pipeline.has_value(); }
  bool isTraining() const { return training.has_value(); }
  /// The block of input or output `spec` that rank `rank` holds: its shape
  /// (the global shape when replicated) and where it starts.
  Shape getLocalShape(const TensorSpec &spec) const;
  Shape getBlockOffsets(const TensorSpec &spec, int64_t rank) const;
  /// `sharding` in the manifest's notation, [["data"], []].
  std::string formatSharding(const telar_sharding::Sharding &sharding) const;

  /// The program called `name`; with an empty name, "main" or the only one.
  /// Throws Error naming the programs there are.
  const ProgramSpec &selectProgram(const std::string &name,
                                   const std::string &origin) const;
  /// The weights `program` takes, in manifest order (those of its files).
  std::vector<const WeightSpec *> weightsOf(const ProgramSpec &program) const;

  bool operator==(const Manifest &o) const;
  bool operator!=(const Manifest &o) const { return !(*this == o); }
};

/// Parses and checks manifest text (see Manifest); `origin` (the file name)
/// prefixes error messages. Throws Error.
Manifest parseManifest(std::string_view text, const std::string &origin);

/// manifest.json's text for `m` (ending in a new line): two spaces per
/// level, one field per line, arrays of numbers and of strings on one line.
/// Writes what it is given (checking is the reader's, and the writer's
/// caller's, business); never throws.
std::string writeManifestJson(const Manifest &m);

} // namespace telar_artifact

#endif // TELAR_ARTIFACT_MANIFEST_H
