//===- CudaDevice.cpp - The CUDA device: an NVIDIA GPU --------------------===//
//
// The "cuda" driver of Device.h over the CUDA driver API (CudaDriver.h,
// loaded at run time): the primary context of the GPU, one non-blocking
// stream (the queue), device memory from cuMemAlloc behind the caching
// allocator, weights uploaded once, kernel modules loaded once per program
// (the cubin for the artifact's GPU, else its PTX for the driver to JIT)
// and launched with cuLaunchKernel on the stream; the programs' matrix
// products on cuBLASLt (CublasLt.h, loaded on the first one) on the same
// stream.
//
// Events are timed on request (Queue::recordTimedEvent: telar-run --bench).
// Not yet: CUDA Graph capture of a whole step, picking a GPU by local rank
// (it uses the first GPU visible: CUDA_VISIBLE_DEVICES chooses).
//
//===----------------------------------------------------------------------===//

#include "CublasLt.h"
#include "CudaDriver.h"
#include "GpuDevice.h"
#include "telar/runtime/FileUtil.h"
#include "telar/runtime/Runtime.h"

#include <array>
#include <map>

using namespace telar::runtime;
using namespace telar::runtime::cuda;

namespace {

class CudaEvent final : public Event {
public:
  /// Recorded on `stream`; `timed`: with the GPU's timestamp.
  CudaEvent(const CudaDriver &driver, CUstream stream, bool timed = false)
      : driver(driver), timed(timed) {
    check(driver.cuEventCreate(&event, timed ? 0 : CU_EVENT_DISABLE_TIMING),
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
  std::optional<double> millisecondsSince(const Event &start) const override {
    auto *from = dynamic_cast<const CudaEvent *>(&start);
    if (!timed || !from || !from->timed)
      return std::nullopt;
    wait();
    float ms = 0;
    check(driver.cuEventElapsedTime(&ms, from->event, event),
          "cuEventElapsedTime");
    return double(ms);
  }
  CUevent get() const { return event; }

private:
  const CudaDriver &driver;
  CUevent event = nullptr;
  bool timed;
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
  std::unique_ptr<Event> recordTimedEvent() override {
    return std::make_unique<CudaEvent>(driver, stream, /*timed=*/true);
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

/// A GPU program's matrix products on cuBLASLt (CublasLt.h): one handle
/// and workspace per device, and per distinct call (shapes, strides,
/// accumulation) its descriptors and the heuristic's algorithm, made on
/// first use. cuBLASLt is column-major: the row-major c = a . b is computed
/// as c^T = b^T . a^T, each matrix read in place (transposed or not by its
/// layout).
class CudaGemm {
public:
  CudaGemm(const CublasLt &lt, void *workspace, size_t workspaceBytes)
      : lt(lt), workspace(workspace), workspaceBytes(workspaceBytes) {
    check(lt, lt.cublasLtCreate(&handle), "cublasLtCreate");
  }
  ~CudaGemm() {
    for (auto &[key, plan] : plans) {
      for (cublasLtMatrixLayout_t layout : plan.layouts)
        lt.cublasLtMatrixLayoutDestroy(layout);
      lt.cublasLtMatmulDescDestroy(plan.desc);
    }
    lt.cublasLtDestroy(handle);
  }

  void run(const MatmulCall &call, CUstream stream) {
    const Plan &plan = planFor(call);
    // The bias's address is the call's, not the plan's (the descriptor is
    // read when the product is enqueued).
    if (call.bias)
      check(lt,
            lt.cublasLtMatmulDescSetAttribute(
                plan.desc, CUBLASLT_MATMUL_DESC_BIAS_POINTER, &call.bias,
                sizeof(call.bias)),
            "cublasLtMatmulDescSetAttribute(BIAS_POINTER)");
    float alpha = 1.0f, beta = call.accumulate ? 1.0f : 0.0f;
    check(lt,
          lt.cublasLtMatmul(handle, plan.desc, &alpha, call.b, plan.layouts[0],
                            call.a, plan.layouts[1], &beta, call.c,
                            plan.layouts[2], call.c, plan.layouts[2],
                            &plan.algo, workspace, workspaceBytes, stream),
          "cublasLtMatmul of " + describe(call));
  }

private:
  struct Plan {
    cublasLtMatmulDesc_t desc = nullptr;
    /// b^T, a^T, c^T (also d's).
    cublasLtMatrixLayout_t layouts[3] = {};
    CublasLtAlgo algo{};
  };
  using Key = std::array<int64_t, 17>;

  static std::string describe(const MatmulCall &call) {
    return std::to_string(call.batch) + " x " + std::to_string(call.m) +
           "x" + std::to_string(call.k) + " . " + std::to_string(call.k) +
           "x" + std::to_string(call.n);
  }

  /// The column-major layout whose op (N or T) is x^T, for a rows x cols
  /// matrix x with these strides (contiguous along rows or columns: the
  /// runtime's core checked).
  cublasLtMatrixLayout_t layoutOfTranspose(int type, int64_t rows,
                                           int64_t cols,
                                           const int64_t strides[3],
                                           int64_t batch, int &op) {
    int64_t rs = strides[1], cs = strides[2];
    // Row-contiguous: its memory, column-major, is x^T (cols x rows), used
    // as is; else column-contiguous: it is x (rows x cols), transposed.
    bool rowMajor = (cs == 1 || cols == 1) && (rows == 1 || rs >= cols);
    op = rowMajor ? CUBLAS_OP_N : CUBLAS_OP_T;
    uint64_t layoutRows = rowMajor ? cols : rows;
    uint64_t layoutCols = rowMajor ? rows : cols;
    int64_t ld = rowMajor ? (rows == 1 ? cols : rs) : (cols == 1 ? rows : cs);
    cublasLtMatrixLayout_t layout = nullptr;
    check(lt,
          lt.cublasLtMatrixLayoutCreate(&layout, type, layoutRows,
                                        layoutCols, ld),
          "cublasLtMatrixLayoutCreate");
    if (batch > 1) {
      int32_t count = int32_t(batch);
      int64_t offset = strides[0];
      check(lt,
            lt.cublasLtMatrixLayoutSetAttribute(
                layout, CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT, &count,
                sizeof(count)),
            "cublasLtMatrixLayoutSetAttribute(BATCH_COUNT)");
      check(lt,
            lt.cublasLtMatrixLayoutSetAttribute(
                layout, CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET, &offset,
                sizeof(offset)),
            "cublasLtMatrixLayoutSetAttribute(STRIDED_BATCH_OFFSET)");
    }
    return layout;
  }

  const Plan &planFor(const MatmulCall &call) {
    Key key = {call.batch,       call.m,           call.n,
               call.k,           call.aStrides[0], call.aStrides[1],
               call.aStrides[2], call.bStrides[0], call.bStrides[1],
               call.bStrides[2], call.cStrides[0], call.cStrides[1],
               call.cStrides[2], call.accumulate,    call.tf32,
               call.bf16,        call.bias != nullptr};
    auto found = plans.find(key);
    if (found != plans.end())
      return found->second;
    Plan plan;
    check(lt,
          lt.cublasLtMatmulDescCreate(&plan.desc,
                                      call.tf32 && !call.bf16
                                          ? CUBLAS_COMPUTE_32F_FAST_TF32
                                          : CUBLAS_COMPUTE_32F,
                                      CUDA_R_32F),
          "cublasLtMatmulDescCreate");
    int opB = 0, opA = 0, opC = 0;
    int inputType = call.bf16 ? CUDA_R_16BF : CUDA_R_32F;
    plan.layouts[0] = layoutOfTranspose(inputType, call.k, call.n,
                                        call.bStrides, call.batch, opB);
    plan.layouts[1] = layoutOfTranspose(inputType, call.m, call.k,
                                        call.aStrides, call.batch, opA);
    plan.layouts[2] = layoutOfTranspose(CUDA_R_32F, call.m, call.n,
                                        call.cStrides, call.batch, opC);
    check(lt,
          lt.cublasLtMatmulDescSetAttribute(
              plan.desc, CUBLASLT_MATMUL_DESC_TRANSA, &opB, sizeof(opB)),
          "cublasLtMatmulDescSetAttribute(TRANSA)");
    check(lt,
          lt.cublasLtMatmulDescSetAttribute(
              plan.desc, CUBLASLT_MATMUL_DESC_TRANSB, &opA, sizeof(opA)),
          "cublasLtMatmulDescSetAttribute(TRANSB)");
    if (call.bias) {
      // c^T's rows are c's columns: one bias value each.
      uint32_t epilogue = CUBLASLT_EPILOGUE_BIAS;
      check(lt,
            lt.cublasLtMatmulDescSetAttribute(
                plan.desc, CUBLASLT_MATMUL_DESC_EPILOGUE, &epilogue,
                sizeof(epilogue)),
            "cublasLtMatmulDescSetAttribute(EPILOGUE)");
    }
    cublasLtMatmulPreference_t preference = nullptr;
    check(lt, lt.cublasLtMatmulPreferenceCreate(&preference),
          "cublasLtMatmulPreferenceCreate");
    uint64_t bytes = workspaceBytes;
    lt.cublasLtMatmulPreferenceSetAttribute(
        preference, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &bytes,
        sizeof(bytes));
    CublasLtHeuristicResult result{};
    int returned = 0;
    cublasStatus_t status = lt.cublasLtMatmulAlgoGetHeuristic(
        handle, plan.desc, plan.layouts[0], plan.layouts[1], plan.layouts[2],
        plan.layouts[2], preference, 1, &result, &returned);
    lt.cublasLtMatmulPreferenceDestroy(preference);
    if (status != CUBLAS_STATUS_SUCCESS || returned == 0) {
      for (cublasLtMatrixLayout_t layout : plan.layouts)
        lt.cublasLtMatrixLayoutDestroy(layout);
      lt.cublasLtMatmulDescDestroy(plan.desc);
      throw Error("cuBLASLt has no algorithm for the matrix product " +
                  describe(call) +
                  (status != CUBLAS_STATUS_SUCCESS ? ": " + lt.describe(status)
                                                   : std::string()));
    }
    plan.algo = result.algo;
    return plans.emplace(key, plan).first->second;
  }

  const CublasLt &lt;
  cublasLtHandle_t handle = nullptr;
  void *workspace;
  size_t workspaceBytes;
  std::map<Key, Plan> plans;
};

/// cuBLASLt's workspace per device (what its heuristics may use).
constexpr size_t kGemmWorkspaceBytes = size_t(32) << 20;

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
    gemm.reset();
    if (gemmWorkspace)
      rawFree(gemmWorkspace);
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

  /// On cuBLASLt, loaded (with its workspace) on the first call.
  bool matmul(const MatmulCall &call, std::string &error) override {
    makeCurrent();
    if (!gemm) {
      const CublasLt &lt = getCublasLt();
      gemmWorkspace = rawAllocate(kGemmWorkspaceBytes, error);
      if (!gemmWorkspace)
        return false;
      gemm = std::make_unique<CudaGemm>(lt, gemmWorkspace,
                                        kGemmWorkspaceBytes);
    }
    gemm->run(call, stream);
    return true;
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
  void *gemmWorkspace = nullptr;
  std::unique_ptr<CudaGemm> gemm;
};

/// Registered when libtelar_runtime_cuda.so loads; a device is made (and
/// the driver loaded) only when asked for.
struct RegisterCudaDevice {
  RegisterCudaDevice() {
    registerDeviceDriver("cuda", [] { return std::make_unique<CudaDevice>(); });
  }
} registerCudaDevice;

} // namespace
