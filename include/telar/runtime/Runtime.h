//===- Runtime.h - Load and run Telar artifacts -----------------*- C++ -*-===//
//
// The runtime side of Telar (libtelar_runtime.so): plain C++17, no MLIR or
// LLVM. It loads an artifact directory (docs/Artifact.md): parses and checks
// manifest.json, memory-maps the weights, dlopens the program library and
// runs it on caller-provided buffers.
//
// Errors are reported by throwing telar::runtime::Error, whose message names
// the file and the field or tensor at fault.
//
//===----------------------------------------------------------------------===//

#ifndef TELAR_RUNTIME_RUNTIME_H
#define TELAR_RUNTIME_RUNTIME_H

#include "telar/artifact/Manifest.h"
#include "telar/runtime/Abi.h"
#include "telar/runtime/Device.h"
#include "telar/sharding/core/Sharding.h"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace telar::runtime {

/// The manifest schema (include/telar/artifact/Manifest.h).
namespace artifact = ::telar_artifact;

/// Every error of the runtime library: a message meant for the user.
class Error : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};

/// A program that ran and failed: its status (TELAR_STATUS_*, not OK) and
/// the context's message.
class RunError : public Error {
public:
  RunError(int status, const std::string &message)
      : Error(message), status(status) {}
  int getStatus() const { return status; }

private:
  int status;
};

/// The name of a status code ("out of memory", ...).
const char *statusName(int status);

//===----------------------------------------------------------------------===//
// Element types and tensor types
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

/// A named tensor of the manifest. In a multi-rank artifact an input's or
/// output's `shape` is the global one and `sharding` says how it is split
/// on the mesh (mesh axis indices per dimension; no dimensions: replicated).
struct TensorSpec {
  std::string name;
  DType dtype = DType::Float32;
  Shape shape;
  telar_sharding::Sharding sharding;

  int64_t numElements() const { return runtime::numElements(shape); }
  size_t byteSize() const { return numElements() * dtypeSize(dtype); }
  std::string typeString() const { return formatType(dtype, shape); }
  /// Some dimension is split.
  bool isSharded() const;
};

/// A dense, row-major tensor owning a 64-byte aligned, zero-initialised
/// buffer (never null, even when empty), in host memory (the memory space
/// of every tensor made here; Artifact::run checks that its device takes
/// them).
class Tensor {
public:
  Tensor() = default;
  Tensor(DType dtype, Shape shape);

  DType getDType() const { return dtype; }
  const Shape &getShape() const { return shape; }
  int64_t getNumElements() const { return runtime::numElements(shape); }
  size_t getByteSize() const { return bytes; }
  std::string typeString() const { return formatType(dtype, shape); }
  MemorySpace getMemorySpace() const { return space; }

  void *data() { return storage.get(); }
  const void *data() const { return storage.get(); }
  template <typename T> T *data() { return static_cast<T *>(data()); }
  template <typename T> const T *data() const {
    return static_cast<const T *>(data());
  }

private:
  struct Free {
    void operator()(void *p) const;
  };
  DType dtype = DType::Float32;
  Shape shape;
  size_t bytes = 0;
  MemorySpace space = MemorySpace::Host;
  std::unique_ptr<void, Free> storage;
};

/// Element `index` of a dense `dtype` buffer as a double (for printing and
/// comparisons; float16/bfloat16 are widened exactly).
double elementAsDouble(DType dtype, const void *data, int64_t index);

//===----------------------------------------------------------------------===//
// The manifest
//===----------------------------------------------------------------------===//

/// The artifact format version this runtime reads (the schema's).
using artifact::kArtifactFormatVersion;

/// A weight: `shape` is what the program sees (its local block); a sharded
/// weight's `globalShape` is that of the whole tensor (the same as `shape`
/// when not sharded).
struct WeightSpec : TensorSpec {
  /// The safetensors file, relative to the artifact directory; "{rank}" in
  /// it stands for the rank number.
  std::string file;
  Shape globalShape;
};

/// name, library (relative to the artifact directory), entry, and the
/// weight files it reads (artifact::ProgramEntry).
using ProgramSpec = artifact::ProgramEntry;

/// Version 4: a stage of a pipelined artifact, the complete artifact in
/// `directory` (relative to the pipelined one) on world ranks [firstRank,
/// firstRank + numRanks).
struct PipelineStageSpec {
  std::string directory;
  int64_t firstRank = 0;
  int64_t numRanks = 1;
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
};

/// One box of a boundary value: from world rank `fromRank`'s local block,
/// at `fromOffsets`, to `toRank`'s, at `toOffsets`, of shape `sizes`.
struct PipelineMessageSpec {
  int64_t fromRank = 0, toRank = 0;
  Shape fromOffsets, toOffsets, sizes;
  int64_t numElements() const { return runtime::numElements(sizes); }
};

/// A boundary value `name` computed by stage `fromStage` and used by stage
/// `toStage` (`shape`: the global microbatch shape), moved as `messages`
/// (sorted by sender, then receiver).
struct PipelineTransferSpec {
  std::string name;
  int64_t fromStage = 0, toStage = 0;
  DType dtype = DType::Float32;
  Shape shape;
  std::vector<PipelineMessageSpec> messages;
};

/// One step of a rank's schedule.
struct PipelineStepSpec {
  enum class Op { Forward, Backward, Send, Recv };
  Op op = Op::Forward;
  int64_t microbatch = 0;
  /// Forward/backward: the stage computed; send: the sender; recv: the
  /// receiver.
  int64_t stage = 0;
  /// Send/recv: the transfers (indices, ascending) this rank has messages
  /// in.
  std::vector<int64_t> transfers;
};
/// "forward", "backward", "send", "recv".
const char *getPipelineOpName(PipelineStepSpec::Op op);

/// A version-4 manifest's "pipeline", checked (Manifest::parse): S stages,
/// a multiple of the virtual stages V, on P = S / V positions (stage s on
/// position s mod P; the positions' ranks tile the world); every graph
/// input and output listed once, split evenly; transfers forward, between
/// ranks of their stages; per world rank a schedule list whose steps name
/// its own stages, with each (stage, microbatch) computed once, after its
/// receives and before its sends, and each message sent and received once.
struct PipelineSpec {
  int64_t microbatches = 1;
  std::string schedule = "gpipe";
  int64_t virtualStages = 1;
  std::vector<PipelineStageSpec> stages;
  std::vector<PipelineTensorSpec> inputs;  // the manifest's input order
  std::vector<PipelineTensorSpec> outputs; // the manifest's output order
  std::vector<PipelineTransferSpec> transfers;
  std::vector<std::vector<PipelineStepSpec>> scheduleTable;

  int64_t getNumStages() const { return int64_t(stages.size()); }
  int64_t getNumPositions() const {
    return getNumStages() / std::max<int64_t>(1, virtualStages);
  }
  int64_t getPosition(int64_t stage) const { return stage % getNumPositions(); }
  /// The position whose ranks hold world rank `rank` (-1: none).
  int64_t getPositionOfRank(int64_t rank) const;
};

/// manifest.json (include/telar/artifact/Manifest.h), checked: known format
/// and version, every required field present with the right type, known
/// dtypes, non-negative dimensions, unique tensor and program names,
/// relative paths that stay inside the artifact, every program's weight
/// files named by some weight, once; in version 3, the mesh (unique axis
/// names, sizes >= 1), a world size that is the mesh's device count, and
/// shardings that name mesh axes at most once and split dimensions evenly
/// (a sharded weight's local shape is its global shape's block, and its
/// file has "{rank}" in it); in version 4, a pipeline (PipelineSpec) with
/// the world size and no mesh, programs or weights.
struct Manifest {
  int64_t formatVersion = 0;
  std::string telarVersion;
  std::string modelPath, modelSha256;
  std::string targetKind, targetTriple, targetChip, targetFeatures;
  std::vector<ProgramSpec> programs;
  std::vector<TensorSpec> inputs;
  std::vector<TensorSpec> outputs;
  std::vector<WeightSpec> weights;
  /// The compiler's lower bound for intermediate memory (the largest set of
  /// intermediate tensors alive at once), or -1 when the manifest has none.
  int64_t largestLiveSetBytes = -1;
  /// The device mesh (no axes: a single-device artifact) and the number of
  /// ranks the artifact runs on (1 without a mesh).
  telar_sharding::Mesh mesh;
  int64_t worldSize = 1;
  /// A pipelined artifact's stages, transfers and schedule (version 4).
  std::optional<PipelineSpec> pipeline;

  bool hasMesh() const { return !mesh.axisNames.empty(); }
  bool isPipelined() const { return pipeline.has_value(); }
  /// The block of input or output `spec` that rank `rank` holds: its shape
  /// (the global shape when replicated) and where it starts.
  Shape getLocalShape(const TensorSpec &spec) const;
  Shape getBlockOffsets(const TensorSpec &spec, int64_t rank) const;
  /// `sharding` in the manifest's notation, [["data"], []].
  std::string formatSharding(const telar_sharding::Sharding &sharding) const;

  /// Parses manifest text; `origin` (the file name) prefixes error messages.
  static Manifest parse(std::string_view text, const std::string &origin);

  /// The program called `name`; with an empty name, "main" or the only one.
  /// Throws Error naming the programs there are.
  const ProgramSpec &selectProgram(const std::string &name,
                                   const std::string &origin) const;
  /// The weights `program` takes, in manifest order (those of its files).
  std::vector<const WeightSpec *> weightsOf(const ProgramSpec &program) const;
};

//===----------------------------------------------------------------------===//
// Contexts and packed weights
//===----------------------------------------------------------------------===//

namespace detail {
class ConstantCache;
}
namespace comm {
class Communicator;     // telar/runtime/Comm.h
class MeshCommunicator; // telar/runtime/Comm.h
} // namespace comm

/// The packed copies of constant GEMM operands (runtime/README.md, "Weights
/// packed once"): the CPU device's (runtime/cpu). The CPU device keeps one
/// for an artifact's memory-mapped weights (Device::loadWeights) and hands
/// it to the context it runs on. Registered ranges [data, data +
/// bytes) must hold the same values, and stay mapped, until unregistered.
/// GEMMs whose `b` lies wholly inside a registered range pack it once, on
/// first use, and reuse the packed copy; unregistering frees the copies no
/// other registered range covers, destruction all of them. Ranges may
/// overlap or be registered more than once (each registration is
/// unregistered once). Not to be changed while kernels that read a range
/// run.
class PrepackedWeights {
public:
  PrepackedWeights();
  ~PrepackedWeights();
  PrepackedWeights(const PrepackedWeights &) = delete;
  PrepackedWeights &operator=(const PrepackedWeights &) = delete;

  void registerRange(const void *data, size_t bytes);
  void unregisterRange(const void *data, size_t bytes);
  /// Bytes of the packed copies held.
  size_t getBytes() const;

  detail::ConstantCache *getCache() const { return cache.get(); }

private:
  std::unique_ptr<detail::ConstantCache> cache;
};

/// Owns a TelarContext (Abi.h): the device (Device.h: its memory, queue
/// and, for the CPU, GEMM choice), mesh and first error of the programs
/// run on it. One program at a time per context.
class Context {
public:
  /// On a CPU device of its own. Throws Error when out of memory or when
  /// no CPU driver is found.
  Context();
  /// On `device` (not null).
  explicit Context(std::unique_ptr<Device> device);
  TelarContext *get() const { return ctx.get(); }
  /// The device its programs run on.
  Device &getDevice() const;

  size_t getCurrentBytes() const { return telarrt_context_current_bytes(get()); }
  size_t getPeakBytes() const { return telarrt_context_peak_bytes(get()); }
  void resetPeakBytes() { telarrt_context_reset_peak_bytes(get()); }
  size_t getCachedBytes() const { return telarrt_context_cached_bytes(get()); }
  void releaseCachedMemory() { telarrt_context_release_cached_memory(get()); }
  void setMemoryLimit(size_t bytes) {
    telarrt_context_set_memory_limit(get(), bytes);
  }
  /// TELARRT_GEMM_*; see telarrt_context_set_gemm_kernel (CPU devices
  /// only).
  int setGemmKernel(int kernel) {
    return telarrt_context_set_gemm_kernel(get(), kernel);
  }
  int getGemmKernel() const { return telarrt_context_get_gemm_kernel(get()); }
  /// The packed weights the kernels use (null: none); Artifact::run sets its
  /// own for the time of a run. CPU devices only (throws Error otherwise).
  void setPrepackedWeights(const PrepackedWeights *weights);
  /// The mesh communicator the collectives of programs run on this context
  /// use (null: none, a single device; Artifact::run then lends the
  /// artifact's for the run). Shared: a context keeps it alive.
  void setMeshCommunicator(std::shared_ptr<comm::MeshCommunicator> mesh);
  comm::MeshCommunicator *getMeshCommunicator() const { return mesh.get(); }
  /// Starts (clearing what was recorded) or stops timing the runtime
  /// kernels (matmuls, convolutions, pooling) the programs run on this
  /// context call; a few microseconds per call while on.
  void setKernelProfiling(bool enabled);
  /// What was recorded, in the order first called.
  std::vector<KernelProfileEntry> getKernelProfile() const;
  int getStatus() const { return telarrt_context_status(get()); }
  std::string getError() const { return telarrt_context_error(get()); }
  void clearError() { telarrt_context_clear_error(get()); }

private:
  struct Destroy {
    void operator()(TelarContext *c) const { telarrt_context_destroy(c); }
  };
  std::unique_ptr<TelarContext, Destroy> ctx;
  std::shared_ptr<comm::MeshCommunicator> mesh;
};

//===----------------------------------------------------------------------===//
// Artifacts
//===----------------------------------------------------------------------===//

class SafetensorsFile;

/// A loaded artifact: the checked manifest, one of its programs (library
/// loaded), the memory-mapped weight files that program reads (checked
/// against the manifest), the packed copies of its weights and a context
/// of its own, ready to run. A multi-rank artifact (a manifest with a mesh)
/// is loaded once per rank, on a world communicator of its world size: the
/// rank maps its own weight files ("{rank}" replaced by its number), its
/// programs' buffers are the local blocks of the inputs and outputs, and
/// their collectives run on a MeshCommunicator over the world.
class Artifact {
public:
  /// Loads program `program` (empty: "main", or the only one) of the
  /// artifact in `directory`, as rank world->getRank() of `world` (null:
  /// one process, rank 0). Everything is checked here, before anything
  /// runs: the manifest, that the world has the manifest's world size,
  /// that every referenced file exists, the presence, dtype and shape of
  /// each weight of the program's weight files, and that the program
  /// library loads and exports its entry point. Only the program's weight
  /// files are mapped. Not collective: ranks whose load failed must tell
  /// the others before anyone runs (telar-run agrees on it first).
  static std::unique_ptr<Artifact>
  load(const std::string &directory, const std::string &program = "",
       std::shared_ptr<comm::Communicator> world = nullptr);
  ~Artifact();

  Artifact(const Artifact &) = delete;
  Artifact &operator=(const Artifact &) = delete;

  const Manifest &getManifest() const { return manifest; }
  const std::string &getDirectory() const { return directory; }
  /// The program loaded.
  const ProgramSpec &getProgram() const { return manifest.programs[program]; }
  /// The weights it takes (manifest order).
  const std::vector<const WeightSpec *> &getWeights() const { return weights; }

  /// Total bytes of the weights the program reads.
  size_t getWeightsBytes() const;
  /// Bytes of the packed copies of its weights made so far.
  size_t getPrepackedBytes() const {
    return deviceWeights ? deviceWeights->getDerivedBytes() : 0;
  }
  /// The program's weights as its context's device holds them (manifest
  /// order; the CPU's: the read-only mappings, or private copies once
  /// writable).
  const DeviceWeights &getDeviceWeights() const { return *deviceWeights; }
  /// Makes the weights writable in place (training updates them): on the
  /// CPU, private copies of the mapped values, which the runs that follow
  /// read instead (and which no GEMM packs ahead of time). Not while a run
  /// is under way.
  void makeWeightsWritable();

  /// The artifact's own context, which run() without one uses.
  Context &getContext() const { return *context; }

  /// This process's rank and the number of ranks (0 and 1 for a
  /// single-device artifact).
  int64_t getRank() const { return rank; }
  int64_t getWorldSize() const { return manifest.worldSize; }
  /// The mesh communicator the program's collectives run on (null for a
  /// single-device artifact).
  comm::MeshCommunicator *getMeshCommunicator() const { return mesh.get(); }
  /// The shape of this rank's block of input or output `spec` (its shape
  /// when not sharded).
  Shape getLocalShape(const TensorSpec &spec) const {
    return manifest.getLocalShape(spec);
  }

  /// Allocates (zeroed) output tensors of the manifest's types: this
  /// rank's blocks.
  std::vector<Tensor> allocateOutputs() const;
  /// This rank's block of input `index`, given the whole (global) input;
  /// throws Error when its dtype or shape is not the manifest's.
  Tensor sliceInput(size_t index, const Tensor &global) const;
  /// The whole outputs, assembled from every rank's blocks `local` (in
  /// manifest order): on rank 0 the global tensors, elsewhere an empty
  /// vector. Collective over the world (every rank calls it); throws
  /// comm::CommError when the transport fails.
  std::vector<Tensor> gatherOutputs(const std::vector<Tensor> &local) const;
  /// The same for output `index` alone: its whole on rank 0 (elsewhere an
  /// empty tensor). Collective over the world when it is sharded.
  Tensor gatherOutput(size_t index, const Tensor &local) const;

  /// Runs the program once on `ctx` (its error is cleared first).
  /// `inputs` and `outputs` hold one dense buffer per manifest
  /// input/output, in manifest order; their sizes are the caller's
  /// responsibility (use the Tensor overload to have them checked). When
  /// the program fails, frees the intermediates it left allocated and
  /// throws RunError with the status and the context's message. Runs on
  /// different contexts may overlap; runs on one context may not.
  void run(Context &ctx, const std::vector<const void *> &inputs,
           const std::vector<void *> &outputs) const;
  void run(const std::vector<const void *> &inputs,
           const std::vector<void *> &outputs) const {
    run(*context, inputs, outputs);
  }

  /// Runs the program once after checking that the tensors match the
  /// manifest's inputs and outputs (count, dtype, local shape).
  void run(Context &ctx, const std::vector<Tensor> &inputs,
           std::vector<Tensor> &outputs) const;
  void run(const std::vector<Tensor> &inputs,
           std::vector<Tensor> &outputs) const {
    run(*context, inputs, outputs);
  }

private:
  Artifact() = default;

  std::string directory;
  Manifest manifest;
  /// Index of the program loaded in manifest.programs.
  size_t program = 0;
  std::vector<const WeightSpec *> weights;
  std::vector<std::unique_ptr<SafetensorsFile>> weightFiles;
  /// The weights' values in weightFiles' mappings (one span per weight)
  /// and the mappings themselves.
  std::vector<HostSpan> weightSpans, mappingSpans;
  std::unique_ptr<Context> context;
  /// Declared after weightFiles and context: the device's weights go
  /// before the mappings and the device.
  std::unique_ptr<DeviceWeights> deviceWeights;
  int64_t rank = 0;
  std::shared_ptr<comm::Communicator> world;
  std::shared_ptr<comm::MeshCommunicator> mesh;
  void *programHandle = nullptr;
  TelarEntryFn entry = nullptr;
};

/// Makes the runtime's core library and the libraries of the device drivers
/// registered (the CPU's kernels and libomp, which generated programs
/// resolve their undefined symbols against; Device.h) globally visible in
/// this process, so that a program can be dlopened even when the runtime
/// itself was loaded with RTLD_LOCAL (e.g. from Python). Artifact::load
/// calls it.
void exposeRuntimeSymbols();

} // namespace telar::runtime

#endif // TELAR_RUNTIME_RUNTIME_H
