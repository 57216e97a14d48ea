//===- CudaDevice.cpp - The CUDA device: an NVIDIA GPU --------------------===//
//
// The "cuda" driver of Device.h over the CUDA driver API (CudaDriver.h,
// loaded at run time): the primary context of the GPU, one non-blocking
// stream (the queue), device memory from cuMemAlloc behind the caching
// allocator, weights uploaded once, kernel modules loaded once per program
// (the cubin for the artifact's GPU, else its PTX for the driver to JIT)
// and launched with cuLaunchKernel on the stream.
//
// Not yet: CUDA Graph capture of a whole step, timing with CUDA events,
// picking a GPU by local rank (it uses the first GPU visible:
// CUDA_VISIBLE_DEVICES chooses).
//
//===----------------------------------------------------------------------===//

#include "CudaDriver.h"
#include "GpuDevice.h"
#include "telar/runtime/FileUtil.h"
#include "telar/runtime/Runtime.h"

#include <map>

using namespace telar::runtime;
using namespace telar::runtime::cuda;

namespace {

class CudaEvent final : public Event {
public:
  CudaEvent(const CudaDriver &driver, CUstream stream) : driver(driver) {
    check(driver.cuEventCreate(&event, CU_EVENT_DISABLE_TIMING),
          "cuEventCreate");
    check(driver.cuEventRecord(event, stream), "cuEventRecord");
  }
  ~CudaEvent() override { driver.cuEventDestroy(event); }
  bool isComplete() const override {
    CUresult r = driver.cuEventQuery(event);
    if (r == CUDA_ERROR_NOT_READY)
      return false;
    check(r, "cuEventQuery");
    return true;
  }
  void wait() const override {
    check(driver.cuEventSynchronize(event), "cuEventSynchronize");
  }
  CUevent get() const { return event; }

private:
  const CudaDriver &driver;
  CUevent event = nullptr;
};

class CudaQueue final : public Queue {
public:
  CudaQueue(const CudaDriver &driver, CUstream stream)
      : driver(driver), stream(stream) {}
  /// Host code that enqueues device work (a program's entry point): run at
  /// once, on the calling thread.
  void enqueue(std::function<void()> work) override { work(); }
  std::unique_ptr<Event> recordEvent() override {
    return std::make_unique<CudaEvent>(driver, stream);
  }
  void waitEvent(const Event &event) override {
    if (auto *cuda = dynamic_cast<const CudaEvent *>(&event))
      check(driver.cuStreamWaitEvent(stream, cuda->get(), 0),
            "cuStreamWaitEvent");
    else
      event.wait();
  }
  void synchronize() override {
    check(driver.cuStreamSynchronize(stream), "cuStreamSynchronize");
  }
  void *getNativeHandle() const override { return stream; }

private:
  const CudaDriver &driver;
  CUstream stream;
};

class CudaKernels final : public DeviceKernels {
  static constexpr size_t kStackParams = 32;

public:
  CudaKernels(const CudaDriver &driver, CUstream stream,
              const ProgramKernels &program)
      : driver(driver), stream(stream) {
    std::map<std::string, CUmodule> byName;
    for (const KernelRef &k : program.kernels) {
      CUmodule &module = byName[k.module];
      if (!module) {
        module = loadModule(program.directory, k.module);
        modules.push_back(module);
      }
      CUfunction function = nullptr;
      check(driver.cuModuleGetFunction(&function, module, k.function.c_str()),
            "kernel '" + k.function + "' of module '" + k.module + "'");
      functions.push_back(function);
    }
  }
  ~CudaKernels() override {
    for (CUmodule m : modules)
      driver.cuModuleUnload(m);
  }
  size_t size() const override { return functions.size(); }
  bool launch(size_t index, const int64_t grid[3], const int64_t block[3],
              const int64_t *args, size_t numArgs,
              std::string &error) const override {
    if (!gpu::checkLaunchLimits(grid, block, error))
      return false;
    // kernelParams[i] points at the parameter's value: slot i (abi/Gpu.h);
    // on the stack for the usual few arguments (a launch is a hot path).
    void *onStack[kStackParams];
    std::vector<void *> onHeap(numArgs > kStackParams ? numArgs : 0);
    void **params = onHeap.empty() ? onStack : onHeap.data();
    for (size_t i = 0; i < numArgs; ++i)
      params[i] = const_cast<int64_t *>(args + i);
    CUresult r = driver.cuLaunchKernel(
        functions[index], unsigned(grid[0]), unsigned(grid[1]),
        unsigned(grid[2]), unsigned(block[0]), unsigned(block[1]),
        unsigned(block[2]), 0, stream, params, nullptr);
    if (r != CUDA_SUCCESS) {
      error = "cuLaunchKernel of kernel " + std::to_string(index) + ": " +
              driver.describe(r);
      return false;
    }
    return true;
  }

private:
  /// The module's cubin, else its PTX (JIT-compiled by the driver, e.g.
  /// for a newer GPU than the cubin's).
  CUmodule loadModule(const std::string &directory, const std::string &name) {
    std::string why;
    for (const char *extension : {".cubin", ".ptx"}) {
      std::string path = directory + "/" + name + extension;
      if (!detail::isRegularFile(path))
        continue;
      std::string image = detail::readFile(path); // PTX: NUL-terminated
      CUmodule module = nullptr;
      CUresult r = driver.cuModuleLoadData(&module, image.c_str());
      if (r == CUDA_SUCCESS)
        return module;
      why += (why.empty() ? "" : "; ") + path + ": " + driver.describe(r);
    }
    throw Error("cannot load kernel module '" + name + "' on the GPU" +
                (why.empty() ? " (no " + name + ".cubin or .ptx in " +
                                   directory + ")"
                             : ": " + why));
  }

  const CudaDriver &driver;
  CUstream stream;
  std::vector<CUmodule> modules;
  std::vector<CUfunction> functions;
};

class CudaDevice final : public gpu::GpuDevice {
public:
  CudaDevice() : driver(getCudaDriver()) {
    int count = 0;
    check(driver.cuDeviceGetCount(&count), "cuDeviceGetCount");
    if (count == 0)
      throw Error("the CUDA driver sees no GPU (CUDA_VISIBLE_DEVICES may "
                  "hide them); telar-run --emulate runs a CUDA artifact's "
                  "kernels on the CPU");
    check(driver.cuDeviceGet(&device, 0), "cuDeviceGet");
    check(driver.cuDevicePrimaryCtxRetain(&context, device),
          "cuDevicePrimaryCtxRetain");
    makeCurrent();
    check(driver.cuStreamCreate(&stream, CU_STREAM_NON_BLOCKING),
          "cuStreamCreate");
    queue = std::make_unique<CudaQueue>(driver, stream);
  }
  ~CudaDevice() override {
    // No check (a destructor must not throw): a failing driver here only
    // leaks what the process's end frees anyway.
    driver.cuCtxSetCurrent(context);
    driver.cuStreamSynchronize(stream);
    allocator.freeLiveBlocks();
    allocator.releaseCachedMemory();
    driver.cuStreamDestroy(stream);
    driver.cuDevicePrimaryCtxRelease(device);
  }
  const char *getKind() const override { return "cuda"; }
  Queue &getQueue() override {
    makeCurrent();
    return *queue;
  }

  void *rawAllocate(size_t bytes, std::string &error) override {
    makeCurrent();
    CUdeviceptr p = 0;
    CUresult r = driver.cuMemAlloc(&p, bytes);
    if (r != CUDA_SUCCESS) {
      error = "out of memory: cuMemAlloc of " + std::to_string(bytes) +
              " bytes: " + driver.describe(r);
      return nullptr;
    }
    return reinterpret_cast<void *>(p);
  }
  void rawFree(void *ptr) override {
    // Called from destructors too: no check.
    driver.cuCtxSetCurrent(context);
    driver.cuMemFree(reinterpret_cast<CUdeviceptr>(ptr));
  }
  void rawCopy(void *dst, MemorySpace dstSpace, const void *src,
               MemorySpace srcSpace, size_t bytes) override {
    makeCurrent();
    auto address = [](const void *p) {
      return reinterpret_cast<CUdeviceptr>(p);
    };
    if (srcSpace == MemorySpace::Host)
      check(driver.cuMemcpyHtoDAsync(address(dst), src, bytes, stream),
            "cuMemcpyHtoDAsync");
    else if (dstSpace == MemorySpace::Host)
      check(driver.cuMemcpyDtoHAsync(dst, address(src), bytes, stream),
            "cuMemcpyDtoHAsync");
    else
      check(driver.cuMemcpyDtoDAsync(address(dst), address(src), bytes,
                                     stream),
            "cuMemcpyDtoDAsync");
  }
  std::unique_ptr<DeviceKernels>
  loadKernels(const ProgramKernels &kernels) override {
    makeCurrent();
    return std::make_unique<CudaKernels>(driver, stream, kernels);
  }

private:
  /// The GPU's primary context, current on the calling thread.
  void makeCurrent() const {
    check(driver.cuCtxSetCurrent(context), "cuCtxSetCurrent");
  }

  const CudaDriver &driver;
  CUdevice device = 0;
  CUcontext context = nullptr;
  CUstream stream = nullptr;
  std::unique_ptr<CudaQueue> queue;
};

/// Registered when libtelar_runtime_cuda.so loads; a device is made (and
/// the driver loaded) only when asked for.
struct RegisterCudaDevice {
  RegisterCudaDevice() {
    registerDeviceDriver("cuda", [] { return std::make_unique<CudaDevice>(); });
  }
} registerCudaDevice;

} // namespace
