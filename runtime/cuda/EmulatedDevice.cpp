//===- EmulatedDevice.cpp - The CUDA device emulated on the CPU -----------===//
//
// The "cuda-emulator" driver of Device.h (telar-run --emulate): a CUDA
// device whose memory is host memory, whose queue runs work in order on the
// calling thread and whose kernels are the same kernel IR compiled for the
// host (telarc --emulation: the artifact's emulation library, one
// `telar_emulated_<module>_<function>(args, gx, gy, gz, bx, by, bz)` per
// kernel, running the grid's blocks and threads). Everything else is the
// CUDA device's own code (GpuDevice.h): the caching allocator, weights
// uploaded to device memory, inputs and outputs staged through copies, the
// launch ABI's argument slots and CUDA's launch limits. The programs' GEMM
// calls (cuBLASLt's on a GPU) run the CPU runtime's batched matmul on the
// same buffers, under the same call contract (bfloat16 operands widened
// to f32 copies first; a bias epilogue added after). Buffers are
// reported as device memory, so a host program that touched one, or a
// caller that forgot to stage, is caught here as on a GPU.
//
//===----------------------------------------------------------------------===//

#include "GpuDevice.h"
#include "../comm/HalfFloat.h"
#include "telar/runtime/Runtime.h"
#include "telar/runtime/abi/CpuKernels.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <dlfcn.h>
#include <vector>

using namespace telar::runtime;

namespace {

class EmulatedEvent final : public Event {
public:
  bool isComplete() const override { return true; }
  void wait() const override {}
};

class EmulatedQueue final : public Queue {
public:
  void enqueue(std::function<void()> work) override { work(); }
  std::unique_ptr<Event> recordEvent() override {
    return std::make_unique<EmulatedEvent>();
  }
  void waitEvent(const Event &event) override { event.wait(); }
  void synchronize() override {}
  void *getNativeHandle() const override { return nullptr; }
};

/// A kernel compiled for the host: runs every block and thread of a launch.
using EmulatedKernelFn = void (*)(const int64_t *args, int64_t gx, int64_t gy,
                                  int64_t gz, int64_t bx, int64_t by,
                                  int64_t bz);

class EmulatedKernels final : public DeviceKernels {
public:
  explicit EmulatedKernels(const ProgramKernels &program) {
    if (program.emulationLibrary.empty())
      throw Error("the program's kernels were not compiled for the CPU: "
                  "compile the artifact with telarc --target cuda "
                  "--emulation to run it with --emulate");
    std::string path = program.emulationLibrary;
    if (path.front() != '/' && path.compare(0, 2, "./") != 0)
      path = "./" + path;
    library = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!library) {
      const char *why = dlerror();
      throw Error("cannot load the emulated kernels '" +
                  program.emulationLibrary + "': " +
                  (why ? why : "unknown error"));
    }
    for (const KernelRef &k : program.kernels) {
      std::string symbol = "telar_emulated_" + k.module + "_" + k.function;
      void *fn = dlsym(library, symbol.c_str());
      if (!fn)
        throw Error("the emulated kernels '" + program.emulationLibrary +
                    "' have no " + symbol + " (kernel '" + k.function +
                    "' of module '" + k.module + "')");
      functions.push_back(reinterpret_cast<EmulatedKernelFn>(fn));
    }
  }
  ~EmulatedKernels() override {
    if (library)
      dlclose(library);
  }
  size_t size() const override { return functions.size(); }
  bool launch(size_t index, const int64_t grid[3], const int64_t block[3],
              const int64_t *args, size_t,
              std::string &error) const override {
    if (!gpu::checkLaunchLimits(grid, block, error)) {
      error = "kernel " + std::to_string(index) + " launched with " + error;
      return false;
    }
    functions[index](args, grid[0], grid[1], grid[2], block[0], block[1],
                     block[2]);
    return true;
  }

private:
  void *library = nullptr;
  std::vector<EmulatedKernelFn> functions;
};

/// The CPU runtime's batched matmul (abi/CpuKernels.h), which serves the
/// GPU programs' GEMM calls (cuBLASLt's on a GPU) under the same contract.
using CpuBatchMatmulFn = int (*)(TelarContext *, TelarMemRef3F32 *,
                                 TelarMemRef3F32 *, TelarMemRef3F32 *,
                                 int64_t);

class EmulatedDevice final : public gpu::GpuDevice {
public:
  ~EmulatedDevice() override {
    allocator.freeLiveBlocks();
    allocator.releaseCachedMemory();
  }
  const char *getKind() const override { return "cuda-emulator"; }
  Queue &getQueue() override { return queue; }
  void *rawAllocate(size_t bytes, std::string &error) override {
    void *p = std::aligned_alloc(256, (bytes + 255) / 256 * 256);
    if (!p)
      error = "out of memory: cannot allocate " + std::to_string(bytes) +
              " bytes of (emulated) device memory";
    return p;
  }
  void rawFree(void *ptr) override { std::free(ptr); }
  void rawCopy(void *dst, MemorySpace, const void *src, MemorySpace,
               size_t bytes) override {
    std::memcpy(dst, src, bytes);
  }
  std::unique_ptr<DeviceKernels>
  loadKernels(const ProgramKernels &kernels) override {
    return std::make_unique<EmulatedKernels>(kernels);
  }

  /// On a CPU context of its own (made on first use: the CPU device's
  /// library loads then), with the CPU's GEMM kernels.
  bool matmul(const MatmulCall &call, std::string &error) override {
    if (!cpu) {
      cpu = std::make_unique<Context>(createDevice("cpu"));
      cpuBatchMatmul = reinterpret_cast<CpuBatchMatmulFn>(
          dlsym(RTLD_DEFAULT, "telarrt_batch_matmul_f32"));
      if (!cpuBatchMatmul) {
        error = "the CPU runtime's telarrt_batch_matmul_f32 is not loaded";
        return false;
      }
    }
    auto view = [](const float *data, int64_t batch, int64_t rows,
                   int64_t cols, const int64_t strides[3]) {
      TelarMemRef3F32 m{};
      m.allocated = m.aligned = const_cast<float *>(data);
      m.sizes[0] = batch;
      m.sizes[1] = rows;
      m.sizes[2] = cols;
      std::copy(strides, strides + 3, m.strides);
      return m;
    };
    // bfloat16 operands widened (exactly) into f32 copies of the same
    // layout.
    auto operand = [&](const void *data, int64_t rows, int64_t cols,
                       const int64_t strides[3], std::vector<float> &wide) {
      if (!call.bf16)
        return static_cast<const float *>(data);
      int64_t span = 1 + (call.batch - 1) * strides[0] +
                     (rows - 1) * strides[1] + (cols - 1) * strides[2];
      const auto *narrow = static_cast<const uint16_t *>(data);
      wide.resize(span);
      for (int64_t i = 0; i < span; ++i)
        wide[i] = comm::detail::bf16ToFloat(narrow[i]);
      return static_cast<const float *>(wide.data());
    };
    std::vector<float> wideA, wideB;
    TelarMemRef3F32 a =
        view(operand(call.a, call.m, call.k, call.aStrides, wideA), call.batch,
             call.m, call.k, call.aStrides);
    TelarMemRef3F32 b =
        view(operand(call.b, call.k, call.n, call.bStrides, wideB), call.batch,
             call.k, call.n, call.bStrides);
    TelarMemRef3F32 c = view(call.c, call.batch, call.m, call.n, call.cStrides);
    int64_t flags = call.accumulate ? TELAR_KERNEL_ACCUMULATE : 0;
    if (cpuBatchMatmul(cpu->get(), &a, &b, &c, flags) != TELAR_STATUS_OK) {
      error = std::string("the emulated GEMM (the CPU runtime's "
                          "telarrt_batch_matmul_f32): ") +
              telarrt_context_error(cpu->get());
      telarrt_context_clear_error(cpu->get());
      return false;
    }
    // The epilogue: the bias added to every row.
    if (call.bias)
      for (int64_t p = 0; p < call.batch; ++p)
        for (int64_t i = 0; i < call.m; ++i)
          for (int64_t j = 0; j < call.n; ++j)
            call.c[p * call.cStrides[0] + i * call.cStrides[1] +
                   j * call.cStrides[2]] += call.bias[j];
    return true;
  }

private:
  EmulatedQueue queue;
  std::unique_ptr<Context> cpu;
  CpuBatchMatmulFn cpuBatchMatmul = nullptr;
};

/// Registered when libtelar_runtime_cuda.so loads.
struct RegisterEmulatedDevice {
  RegisterEmulatedDevice() {
    registerDeviceDriver("cuda-emulator",
                         [] { return std::make_unique<EmulatedDevice>(); });
  }
} registerEmulatedDevice;

} // namespace
