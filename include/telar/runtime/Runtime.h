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

/// Every error of the runtime library: a message meant for the user. The
/// artifact library's, so that the manifest reader's errors are the
/// runtime's.
using Error = artifact::Error;

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

/// Element types, shapes and tensor descriptions: the artifact library's
/// (include/telar/artifact/Manifest.h).
using artifact::DType;
using artifact::dtypeName;
using artifact::dtypeSize;
using artifact::formatShape;
using artifact::formatType;
using artifact::numElements;
using artifact::parseDType;
using artifact::Shape;
using artifact::TensorSpec;

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

/// manifest.json, held and checked by the artifact library: parsed with
/// artifact::parseManifest, its parts named as the runtime names them.
using artifact::Manifest;
using artifact::PipelineMessageSpec;
using artifact::PipelineSpec;
using artifact::PipelineStageSpec;
using artifact::PipelineStepSpec;
using artifact::PipelineTensorSpec;
using artifact::PipelineTransferSpec;
using artifact::ProgramSpec;
using artifact::TrainingParameterSpec;
using artifact::TrainingSpec;
using artifact::WeightSpec;

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
  ///
  /// A GPU artifact's program (its host program and kernels) runs on a
  /// device of the target's kind ("cuda"), which loads its kernels here;
  /// without a usable GPU the load fails with the reason. `emulate`: on
  /// that device's emulator instead ("cuda-emulator": host memory, the
  /// kernels compiled for the CPU by telarc --emulation); refused for an
  /// artifact without an emulation of its kernels, or not for a GPU.
  static std::unique_ptr<Artifact>
  load(const std::string &directory, const std::string &program = "",
       std::shared_ptr<comm::Communicator> world = nullptr,
       bool emulate = false);
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
  /// manifest's inputs and outputs (count, dtype, local shape). On a
  /// device with memory of its own (a GPU, or its emulator) the tensors are
  /// copied to and from buffers of the device's allocator.
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
  /// The values of the weights filled at load (telarc --random-weights).
  std::vector<std::unique_ptr<char[]>> randomWeights;
  /// The weights' values in weightFiles' mappings (or randomWeights; one
  /// span per weight) and the mappings themselves.
  std::vector<HostSpan> weightSpans, mappingSpans;
  std::unique_ptr<Context> context;
  /// Declared after weightFiles and context: the device's weights go
  /// before the mappings and the device.
  std::unique_ptr<DeviceWeights> deviceWeights;
  /// A GPU program's kernels, loaded on the context's device (null for a
  /// CPU program).
  std::unique_ptr<DeviceKernels> deviceKernels;
  int64_t rank = 0;
  std::shared_ptr<comm::Communicator> world;
  std::shared_ptr<comm::MeshCommunicator> mesh;
  void *programHandle = nullptr;
  TelarEntryFn entry = nullptr;
};

/// Buffers of a device's allocator holding a run's inputs and outputs, for
/// a device with memory of its own (a GPU): inputs uploaded from host
/// memory, outputs copied back after the run (ordered on the device's
/// queue: synchronize it before reading them). Freed with this object.
class StagedBuffers {
public:
  explicit StagedBuffers(Device &device) : device(device) {}
  ~StagedBuffers();
  StagedBuffers(const StagedBuffers &) = delete;
  StagedBuffers &operator=(const StagedBuffers &) = delete;
  /// A buffer of `bytes` for `name` (in messages); throws RunError (out of
  /// memory).
  void *allocate(size_t bytes, const std::string &name);
  /// A buffer holding a copy of `bytes` of host memory `host`.
  void *upload(const void *host, size_t bytes, const std::string &name);
  /// Copies `bytes` of `buffer` (one of these) to host memory `host`.
  void download(void *host, const void *buffer, size_t bytes);
  /// Bytes staged (counted by the device's allocator).
  size_t getBytes() const { return total; }

private:
  Device &device;
  std::vector<void *> blocks;
  size_t total = 0;
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
