//===- Device.h - The device a runtime context runs programs on -*- C++ -*-===//
//
// After IREE's HAL (runtime/src/iree/hal: device.h, allocator.h; one driver
// per backend under hal/drivers): a Device owns memory of its own (host
// memory for the CPU, GPU memory for CUDA), copies between it and the host,
// a queue (a stream) that programs, copies and collectives are ordered on,
// and events to wait on. Each TelarContext (Abi.h) holds one; the core of
// the runtime (artifacts, contexts, the executor) goes through it only.
//
// Drivers: "cpu" (runtime/cpu: the kernels, OpenMP, OpenBLAS as fallback;
// its queue runs work in order on the calling thread and its memory is the
// host's) and "cuda" (runtime/cuda: the CUDA driver API, dlopened, or its
// emulation on the host). A driver registers a factory under its kind (registerDeviceDriver);
// createDevice finds it, loading the driver's library on first use.
//
//===----------------------------------------------------------------------===//

#ifndef TELAR_RUNTIME_DEVICE_H
#define TELAR_RUNTIME_DEVICE_H

#include "telar/runtime/abi/Core.h"

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace telar::runtime {

/// Where a buffer lives: in host memory, or in a device's own memory (which
/// the host cannot read; copies go through Device::copy). TELAR_MEMORY_*
/// in Abi.h.
enum class MemorySpace : uint8_t {
  Host = TELAR_MEMORY_HOST,
  Device = TELAR_MEMORY_DEVICE,
};
/// "host" or "device".
const char *memorySpaceName(MemorySpace space);

/// The time a context's runtime kernels took, per kernel and operand shapes
/// (Context::setKernelProfiling).
struct KernelProfileEntry {
  std::string kernel; // telarrt_conv2d_nchw_bias_f32, ...
  std::string shape;  // operand sizes, strides of the window, flags
  int64_t calls = 0;
  double seconds = 0; // wall time inside the kernel, summed over the calls
};

/// A point in a queue: complete once everything enqueued before it is.
class Event {
public:
  virtual ~Event();
  /// Whether the work before the event has completed.
  virtual bool isComplete() const = 0;
  /// Blocks the calling thread until it has.
  virtual void wait() const = 0;
  /// The device's time from `start` (an event of the same queue recorded
  /// with Queue::recordTimedEvent, as this one) to this event, in
  /// milliseconds, once both have completed; none where the device keeps
  /// no such clock (the CPU, the CUDA emulator).
  virtual std::optional<double> millisecondsSince(const Event &start) const {
    (void)start;
    return std::nullopt;
  }
};

/// A device's queue (a stream): work enqueued on it runs in the order
/// enqueued. Programs, copies and collectives of a context all go on its
/// device's queue. Errors of enqueued work surface as exceptions of the
/// call that runs it (enqueue on the CPU; synchronize on an asynchronous
/// device).
class Queue {
public:
  virtual ~Queue();
  /// Runs `work` (host code, which may enqueue device work itself) after
  /// everything enqueued before. The CPU's queue runs it at once on the
  /// calling thread.
  virtual void enqueue(std::function<void()> work) = 0;
  /// An event complete once everything enqueued so far is.
  virtual std::unique_ptr<Event> recordEvent() = 0;
  /// The same, timed by the device where it can (Event::millisecondsSince;
  /// CUDA events), which costs more than recordEvent on a GPU.
  virtual std::unique_ptr<Event> recordTimedEvent() { return recordEvent(); }
  /// Work enqueued after this call waits for `event` (of any queue).
  virtual void waitEvent(const Event &event) = 0;
  /// Blocks the calling thread until everything enqueued has completed.
  virtual void synchronize() = 0;
  /// The native handle (a CUstream for CUDA), or null (the CPU's).
  virtual void *getNativeHandle() const = 0;
};

/// A device's memory, with the statistics a context reports
/// (Context::getCurrentBytes, ...): bytes live, the peak since the last
/// reset, a limit, blocks kept for reuse. Thread-safe.
class DeviceAllocator {
public:
  virtual ~DeviceAllocator();
  /// `bytes` of the device's memory aligned to `alignment` (at least 64),
  /// or null with the reason in `error` (the memory limit, the system out
  /// of memory, an overflowing size). Size 0 is allowed.
  virtual void *allocate(size_t alignment, size_t bytes,
                         std::string &error) = 0;
  /// Frees a block of this allocator (null: nothing).
  virtual void deallocate(void *ptr) = 0;
  /// Frees every block still allocated (those a failed run left behind).
  virtual void freeLiveBlocks() = 0;

  virtual size_t getCurrentBytes() const = 0;
  virtual size_t getPeakBytes() const = 0;
  virtual void resetPeakBytes() = 0;
  /// SIZE_MAX: none.
  virtual void setMemoryLimit(size_t bytes) = 0;
  virtual size_t getMemoryLimit() const = 0;
  /// Freed blocks kept for reuse (not counted as current bytes).
  virtual size_t getCachedBytes() const = 0;
  virtual void releaseCachedMemory() = 0;
};

/// A [data, data + bytes) range of host memory.
struct HostSpan {
  const void *data = nullptr;
  size_t bytes = 0;
};

/// An artifact's weights as a device holds them (Device::loadWeights).
class DeviceWeights {
public:
  virtual ~DeviceWeights();
  size_t size() const { return data.size(); }
  /// Weight `index` in the device's memory (what programs are given).
  void *getData(size_t index) const { return data[index]; }
  /// Whether programs (training's optimizer steps) may update them in
  /// place.
  bool isWritable() const { return writable; }
  /// Bytes the device keeps beside them (the CPU: packed copies for its
  /// GEMM, made on first use).
  virtual size_t getDerivedBytes() const { return 0; }
  /// What Device::setWeightsBinding takes for a run on these weights.
  virtual const void *getBinding() const { return nullptr; }

protected:
  std::vector<void *> data;
  bool writable = false;
};

/// A kernel of a GPU program: function `function` of kernel module
/// `module` (the manifest's "kernels").
struct KernelRef {
  std::string module;
  std::string function;
};

/// A GPU program's kernels as its artifact holds them: `directory` has
/// `<module>.cubin` (for the artifact's GPU) and `<module>.ptx` per
/// module; `emulationLibrary`, when not empty, the same kernels compiled
/// for the host (telarc --emulation), exporting
/// `telar_emulated_<module>_<function>` (docs/Artifact.md). Paths are
/// the files' own (the artifact's directory prefixed).
struct ProgramKernels {
  std::string directory;
  std::vector<KernelRef> kernels;
  std::string emulationLibrary;
};

/// A program's kernels loaded on a device (Device::loadKernels), launched
/// by index (the host program's telarrt_gpu_launch, abi/Gpu.h) in the
/// order of the device's queue.
class DeviceKernels {
public:
  virtual ~DeviceKernels();
  virtual size_t size() const = 0;
  /// Enqueues kernel `index` (< size()) on a grid of `grid` blocks of
  /// `block` threads (x, y, z) with the 64-bit argument slots `args`
  /// (abi/Gpu.h); false with the reason in `error` when it cannot.
  virtual bool launch(size_t index, const int64_t grid[3],
                      const int64_t block[3], const int64_t *args,
                      size_t numArgs, std::string &error) const = 0;
};

/// A matrix product a GPU program asks of its device (abi/Gpu.h's
/// telarrt_gpu_matmul_f32, whose layout rules the runtime's core checked):
/// c[p] (+)= a[p] . b[p] for p < batch, a[p] m x k, b[p] k x n, element
/// (i, j) of x[p] at x[p * strides[0] + i * strides[1] + j * strides[2]].
struct MatmulCall {
  /// f32, or bfloat16 with `bf16`.
  const void *a = nullptr, *b = nullptr;
  float *c = nullptr;
  int64_t batch = 1, m = 0, n = 0, k = 0;
  int64_t aStrides[3] = {}, bStrides[3] = {}, cStrides[3] = {};
  bool accumulate = false;
  /// The inputs may be rounded to TF32 (tensor cores).
  bool tf32 = false;
  /// a and b hold bfloat16 (the products summed in f32).
  bool bf16 = false;
  /// n values added to every row of the product (the epilogue), or null.
  const float *bias = nullptr;
};

/// One device (Device.h's header comment). Not copyable; a context owns
/// its device, and runs one program at a time on it.
class Device {
public:
  virtual ~Device();
  Device() = default;
  Device(const Device &) = delete;
  Device &operator=(const Device &) = delete;

  /// The driver's kind ("cpu").
  virtual const char *getKind() const = 0;
  /// Where its buffers live (Host for the CPU).
  virtual MemorySpace getMemorySpace() const = 0;
  virtual DeviceAllocator &getAllocator() = 0;
  const DeviceAllocator &getAllocator() const {
    return const_cast<Device *>(this)->getAllocator();
  }
  virtual Queue &getQueue() = 0;

  /// Copies `bytes` from `src` (in `srcSpace`) to `dst` (in `dstSpace`),
  /// ordered on the queue: host to device, device to host, device to
  /// device (host to host too). Host buffers must stay valid until the
  /// copy completes (at once on the CPU).
  virtual void copy(void *dst, MemorySpace dstSpace, const void *src,
                    MemorySpace srcSpace, size_t bytes) = 0;

  /// Makes `weights` (host memory, one span per weight) the device's:
  /// uploaded to its memory, or for a host device used in place. `mappings`
  /// are the read-only file mappings that hold them, which stay mapped and
  /// unchanged while the result lives (the CPU packs the weights found
  /// there once, for its GEMM). `writable`: the weights may be updated in
  /// place (training), each a private copy, never the mapping itself.
  virtual std::unique_ptr<DeviceWeights>
  loadWeights(const std::vector<HostSpan> &weights,
              const std::vector<HostSpan> &mappings, bool writable) = 0;
  /// What the device's kernels know of the weights of the program about
  /// to run (DeviceWeights::getBinding; null: none); returns the previous
  /// binding, to be put back after the run.
  virtual const void *setWeightsBinding(const void *binding) = 0;

  /// Loads a GPU program's kernels, once (modules loaded, functions
  /// looked up); throws Error when they cannot be (a missing image, a
  /// driver error), or when the device runs no GPU kernels (the CPU).
  virtual std::unique_ptr<DeviceKernels>
  loadKernels(const ProgramKernels &kernels);

  /// Enqueues a GPU program's matrix product (cuBLASLt on a GPU, the CPU
  /// runtime's GEMM on the CUDA emulator); false with the reason in
  /// `error` when it cannot (devices without GPU programs: always).
  virtual bool matmul(const MatmulCall &call, std::string &error);

  /// Starts (clearing what was recorded) or stops timing the kernels of
  /// the programs run on the device; what was recorded, in the order first
  /// called. Devices that cannot record nothing.
  virtual void setKernelProfiling(bool enabled) { (void)enabled; }
  virtual std::vector<KernelProfileEntry> getKernelProfile() const {
    return {};
  }
};

/// Makes a device of a driver.
using DeviceFactory = std::function<std::unique_ptr<Device>()>;
/// Kinds: "cpu" (runtime/cpu), "cuda" (an NVIDIA GPU through the CUDA
/// driver) and "cuda-emulator" (the CUDA device's memory, copies and
/// launches with the kernels compiled for the host: telar-run --emulate),
/// the last two in runtime/cuda. A kind's driver library is named after
/// the kind up to its first '-'.
/// Registers the driver of devices of `kind` (a driver library does this
/// when it loads); a second registration of a kind replaces the first.
/// `programSymbols`: a symbol of each library the driver's programs resolve
/// their undefined symbols against (its kernels, libomp), which
/// exposeRuntimeSymbols (Runtime.h) makes global.
void registerDeviceDriver(const std::string &kind, DeviceFactory factory,
                          std::vector<const void *> programSymbols = {});
/// A new device of `kind` ("cpu"); throws Error (Runtime.h) when no driver
/// of that kind can be found. A driver not registered yet is loaded from
/// its library beside the core's (libtelar_runtime_<kind up to '-'>.so), with its
/// symbols global.
std::unique_ptr<Device> createDevice(const std::string &kind = "cpu");
/// The program symbols of every driver registered (registerDeviceDriver).
std::vector<const void *> getDriverProgramSymbols();

} // namespace telar::runtime

#endif // TELAR_RUNTIME_DEVICE_H
