//===- Context.cpp - Contexts: device, errors, allocation -----------------===//
//
// The context half of the C ABI (Abi.h) and the C++ Context over it. A
// context's memory is its device's: telarrt_alloc and the byte counts go to
// the device's allocator (for the CPU device, runtime/cpu/HostAllocator.cpp;
// one virtual call per allocation, none per element).
//
//===----------------------------------------------------------------------===//

#include "Context.h"
#include "telar/runtime/Comm.h"
#include "telar/runtime/Runtime.h"
#include "telar/runtime/abi/Core.h"
#include "telar/runtime/abi/Gpu.h"

#include <algorithm>
#include <cstdarg>
#include <cstdio>
#include <new>

using namespace telar::runtime;

int telar::runtime::detail::fail(TelarContext *ctx, int status,
                                 const char *format, ...) {
  char text[512];
  va_list args;
  va_start(args, format);
  std::vsnprintf(text, sizeof(text), format, args);
  va_end(args);
  return telarrt_context_fail(ctx, status, text);
}

namespace {
DeviceAllocator &allocatorOf(const TelarContext *ctx) {
  return ctx->device->getAllocator();
}

void *allocate(TelarContext *ctx, size_t alignment, size_t size) {
  std::string error;
  void *p = allocatorOf(ctx).allocate(alignment, size, error);
  if (!p)
    telarrt_context_fail(ctx, TELAR_STATUS_OUT_OF_MEMORY, error.c_str());
  return p;
}
} // namespace

extern "C" {

TelarContext *telarrt_context_create(void) {
  try {
    auto ctx = std::make_unique<TelarContext>();
    ctx->device = createDevice("cpu");
    return ctx.release();
  } catch (...) {
    return nullptr;
  }
}

void telarrt_context_destroy(TelarContext *ctx) { delete ctx; }

int telarrt_context_memory_space(const TelarContext *ctx) {
  return static_cast<int>(ctx->device->getMemorySpace());
}

TelarQueue *telarrt_context_queue(TelarContext *ctx) {
  return reinterpret_cast<TelarQueue *>(&ctx->device->getQueue());
}

void *telarrt_queue_native_handle(TelarQueue *queue) {
  return reinterpret_cast<Queue *>(queue)->getNativeHandle();
}

int telarrt_context_status(const TelarContext *ctx) {
  return ctx->status.load(std::memory_order_acquire);
}

const char *telarrt_context_error(const TelarContext *ctx) {
  // Written once, before status is published; cleared only between runs.
  return ctx->status.load(std::memory_order_acquire) ? ctx->message.c_str()
                                                     : "";
}

void telarrt_context_clear_error(TelarContext *ctx) {
  std::lock_guard<std::mutex> lock(ctx->errorMutex);
  ctx->status.store(TELAR_STATUS_OK, std::memory_order_release);
  ctx->message.clear();
}

int telarrt_context_fail(TelarContext *ctx, int status, const char *message) {
  if (status == TELAR_STATUS_OK)
    return status;
  std::lock_guard<std::mutex> lock(ctx->errorMutex);
  if (ctx->status.load(std::memory_order_relaxed) == TELAR_STATUS_OK) {
    try {
      ctx->message = message ? message : "";
    } catch (...) {
      // Out of memory for the message: the status still tells.
    }
    ctx->status.store(status, std::memory_order_release);
  }
  return status;
}

void telarrt_context_set_memory_limit(TelarContext *ctx, size_t bytes) {
  allocatorOf(ctx).setMemoryLimit(bytes);
}

size_t telarrt_context_memory_limit(const TelarContext *ctx) {
  return allocatorOf(ctx).getMemoryLimit();
}

void *telarrt_alloc(TelarContext *ctx, size_t size) {
  return allocate(ctx, 64, size);
}

void *telarrt_aligned_alloc(TelarContext *ctx, size_t alignment, size_t size) {
  return allocate(ctx, alignment, size);
}

void telarrt_free(TelarContext *ctx, void *ptr) {
  allocatorOf(ctx).deallocate(ptr);
}

void telarrt_context_free_live_blocks(TelarContext *ctx) {
  allocatorOf(ctx).freeLiveBlocks();
}

void telarrt_context_release_cached_memory(TelarContext *ctx) {
  allocatorOf(ctx).releaseCachedMemory();
}

size_t telarrt_context_cached_bytes(const TelarContext *ctx) {
  return allocatorOf(ctx).getCachedBytes();
}

size_t telarrt_context_current_bytes(const TelarContext *ctx) {
  return allocatorOf(ctx).getCurrentBytes();
}

size_t telarrt_context_peak_bytes(const TelarContext *ctx) {
  return allocatorOf(ctx).getPeakBytes();
}

void telarrt_context_reset_peak_bytes(TelarContext *ctx) {
  allocatorOf(ctx).resetPeakBytes();
}

int telarrt_gpu_launch(TelarContext *ctx, int64_t kernel, int64_t gx,
                       int64_t gy, int64_t gz, int64_t bx, int64_t by,
                       int64_t bz, const int64_t *args, int64_t numArgs) {
  const DeviceKernels *kernels = ctx->kernels;
  if (!kernels)
    return detail::fail(ctx, TELAR_STATUS_DEVICE_ERROR,
                        "kernel %lld launched on a context without GPU "
                        "kernels (a GPU program runs through Artifact::run)",
                        static_cast<long long>(kernel));
  if (kernel < 0 || size_t(kernel) >= kernels->size() || numArgs < 0)
    return detail::fail(ctx, TELAR_STATUS_DEVICE_ERROR,
                        "kernel %lld launched, but the program has %zu "
                        "kernels",
                        static_cast<long long>(kernel), kernels->size());
  const int64_t grid[3] = {gx, gy, gz}, block[3] = {bx, by, bz};
  std::string error;
  if (!kernels->launch(size_t(kernel), grid, block, args, size_t(numArgs),
                       error))
    return telarrt_context_fail(ctx, TELAR_STATUS_DEVICE_ERROR,
                                error.c_str());
  return TELAR_STATUS_OK;
}

int telarrt_gpu_matmul_bias_f32(TelarContext *ctx, const void *a,
                                const void *b, float *c, const float *bias,
                                int64_t batch, int64_t m, int64_t n, int64_t k,
                                int64_t a_batch, int64_t a_row, int64_t a_col,
                                int64_t b_batch, int64_t b_row, int64_t b_col,
                                int64_t c_batch, int64_t c_row, int64_t c_col,
                                int64_t flags) {
  MatmulCall call;
  call.bias = bias;
  call.a = a;
  call.b = b;
  call.c = c;
  call.batch = batch;
  call.m = m;
  call.n = n;
  call.k = k;
  const int64_t strides[3][3] = {{a_batch, a_row, a_col},
                                 {b_batch, b_row, b_col},
                                 {c_batch, c_row, c_col}};
  std::copy(strides[0], strides[0] + 3, call.aStrides);
  std::copy(strides[1], strides[1] + 3, call.bStrides);
  std::copy(strides[2], strides[2] + 3, call.cStrides);
  call.accumulate = flags & TELAR_GPU_ACCUMULATE;
  call.tf32 = flags & TELAR_GPU_TF32;
  call.bf16 = flags & TELAR_GPU_BF16;
  if (batch < 1 || m < 1 || n < 1 || k < 1 ||
      (flags & ~int64_t(TELAR_GPU_ACCUMULATE | TELAR_GPU_TF32 |
                       TELAR_GPU_BF16)) ||
      !telarrt_gpu_gemm_operand_ok(m, k, a_row, a_col) ||
      !telarrt_gpu_gemm_operand_ok(k, n, b_row, b_col) ||
      !(c_col == 1 || n == 1) || !(m == 1 || c_row >= n))
    return detail::fail(
        ctx, TELAR_STATUS_INVALID_ARGUMENT,
        "telarrt_gpu_matmul_f32: a layout the GEMM does not take: batch "
        "%lld, %lld x %lld . %lld x %lld, strides a (%lld, %lld, %lld) b "
        "(%lld, %lld, %lld) c (%lld, %lld, %lld), flags %lld",
        (long long)batch, (long long)m, (long long)k, (long long)k,
        (long long)n, (long long)a_batch, (long long)a_row, (long long)a_col,
        (long long)b_batch, (long long)b_row, (long long)b_col,
        (long long)c_batch, (long long)c_row, (long long)c_col,
        (long long)flags);
  std::string error;
  try {
    if (ctx->device->matmul(call, error))
      return TELAR_STATUS_OK;
  } catch (const std::exception &e) {
    error = e.what();
  }
  return telarrt_context_fail(ctx, TELAR_STATUS_DEVICE_ERROR, error.c_str());
}

int telarrt_gpu_matmul_f32(TelarContext *ctx, const void *a, const void *b,
                           float *c, int64_t batch, int64_t m, int64_t n,
                           int64_t k, int64_t a_batch, int64_t a_row,
                           int64_t a_col, int64_t b_batch, int64_t b_row,
                           int64_t b_col, int64_t c_batch, int64_t c_row,
                           int64_t c_col, int64_t flags) {
  return telarrt_gpu_matmul_bias_f32(ctx, a, b, c, nullptr, batch, m, n, k,
                                     a_batch, a_row, a_col, b_batch, b_row,
                                     b_col, c_batch, c_row, c_col, flags);
}

int telarrt_gpu_upload(TelarContext *ctx, void *dst, const void *src,
                       int64_t bytes) {
  try {
    ctx->device->copy(dst, ctx->device->getMemorySpace(), src,
                      MemorySpace::Host, size_t(bytes));
  } catch (const std::exception &e) {
    return telarrt_context_fail(ctx, TELAR_STATUS_DEVICE_ERROR, e.what());
  }
  return TELAR_STATUS_OK;
}

} // extern "C"

//===----------------------------------------------------------------------===//
// Context
//===----------------------------------------------------------------------===//

Context::Context() : Context(createDevice("cpu")) {}

Context::Context(std::unique_ptr<Device> device) {
  if (!device)
    throw Error("a runtime context needs a device");
  TelarContext *c = new (std::nothrow) TelarContext();
  if (!c)
    throw Error("out of memory creating a runtime context");
  ctx.reset(c);
  c->device = std::move(device);
}

void Context::setMeshCommunicator(
    std::shared_ptr<comm::MeshCommunicator> communicator) {
  mesh = std::move(communicator);
  // Its buffers are in the device's memory, its collectives on its queue.
  if (mesh)
    mesh->setDevice(&getDevice());
  get()->mesh = mesh.get();
}

Device &Context::getDevice() const { return *get()->device; }

void Context::setKernelProfiling(bool enabled) {
  getDevice().setKernelProfiling(enabled);
}

std::vector<KernelProfileEntry> Context::getKernelProfile() const {
  return getDevice().getKernelProfile();
}
