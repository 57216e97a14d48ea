//===- KernelSettings.cpp - The kernels' process-wide settings ------------===//
//
// The settings the kernels share across contexts (threads, the smallest
// work worth splitting, the convolution method, the default GEMM), their
// C ABI (Abi.h's "Settings and statistics"), and the per-thread scratch
// buffers. Threads: one pool for everything, libomp's (Matmul.cpp); this
// file is compiled with -fopenmp but linked against libomp.
//
//===----------------------------------------------------------------------===//

#include "HugePages.h"
#include "KernelSupport.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <new>

namespace detail = telar::runtime::detail;
using namespace telar::runtime::kernels;

extern "C" {
// libomp (declared here rather than through omp.h, which would be GCC's).
void omp_set_num_threads(int);
int omp_get_max_threads(void);
int omp_in_parallel(void);
void kmp_set_blocktime(int msec);
}

namespace {
/// How long (ms) libomp's idle workers spin before they sleep, unless
/// KMP_BLOCKTIME says otherwise (telarrt_set_num_threads).
constexpr int kDefaultBlocktimeMs = 1;
} // namespace

namespace telar::runtime::kernels {

/// Multiply-adds a thread's share of a kernel must have for the split to
/// pay (telarrt_set_kernel_min_parallel_work): 2^18, a few microseconds of
/// one core's GEMM, against a fork-join of ~2 us with libomp's workers
/// spinning. Measured on the mini models (hidden 128, 32 tokens) at 2
/// threads: 2^18 ran 10-40 % faster than 2^20 or 2^21, and faster than one
/// thread. A product below it runs on the calling thread.
double kMinParallelWork = [] {
  const char *env = std::getenv("TELAR_KERNEL_MIN_PARALLEL_WORK");
  double w = env && *env ? std::atof(env) : 0;
  return w >= 1 ? w : double(1 << 18);
}();

/// Threads available to a kernel: none extra inside a parallel region.
int availableThreads() {
  return omp_in_parallel() ? 1 : std::max(1, omp_get_max_threads());
}

/// How convolutions feed their GEMM (TELARRT_CONV_* in Abi.h): the
/// environment's TELAR_CONV_METHOD (auto, direct, planes, panels, im2col)
/// when the runtime loads, then telarrt_set_conv_method.
int convMethod = [] {
  const char *env = std::getenv("TELAR_CONV_METHOD");
  if (!env || !*env || !std::strcmp(env, "auto"))
    return int(TELARRT_CONV_AUTO);
  if (!std::strcmp(env, "direct"))
    return int(TELARRT_CONV_DIRECT);
  if (!std::strcmp(env, "planes"))
    return int(TELARRT_CONV_PHASE_PLANES);
  if (!std::strcmp(env, "panels"))
    return int(TELARRT_CONV_IM2COL_PANELS);
  if (!std::strcmp(env, "im2col"))
    return int(TELARRT_CONV_IM2COL);
  std::fprintf(stderr,
               "telar runtime: ignoring TELAR_CONV_METHOD=%s (expected auto, "
               "direct, planes, panels or im2col)\n",
               env);
  return int(TELARRT_CONV_AUTO);
}();

/// Per-thread scratch buffers (slot 0: im2col or planes, 1: a dense output
/// or tile, 2: a packed filter, 3: the planes between the two convolutions
/// of a pair), grown as needed and kept, uninitialised.
float *scratch(int slot, size_t floats) {
  thread_local detail::ScratchBuffer buffers[4];
  float *p = buffers[slot].reserve(floats);
  if (!p)
    throw std::bad_alloc();
  return p;
}

} // namespace telar::runtime::kernels

GemmKernel telar::runtime::detail::defaultGemmKernel() {
  // The environment, read once: a setting of the process, which each new
  // context starts from.
  static const GemmKernel kernel = [] {
    const char *env = std::getenv("TELAR_GEMM_KERNEL");
    GemmKernel want = GemmKernel::Auto;
    if (env && !std::strcmp(env, "openblas"))
      want = GemmKernel::OpenBlas;
    else if (env && !std::strcmp(env, "avx2"))
      want = GemmKernel::Avx2;
    else if (env && !std::strcmp(env, "avx512"))
      want = GemmKernel::Avx512;
    else if (env && *env && std::strcmp(env, "auto"))
      std::fprintf(stderr,
                   "telar runtime: ignoring TELAR_GEMM_KERNEL=%s (expected "
                   "auto, openblas, avx2 or avx512)\n",
                   env);
    if (want == GemmKernel::Auto || !detail::gemmKernelSupported(want))
      want = detail::bestGemmKernel();
    return want;
  }();
  return kernel;
}

extern "C" {

void telarrt_set_num_threads(int threads) {
  if (threads < 1)
    threads = 1;
  // Pinned threads of another team size would leave some threads pinned
  // and others not (telarrt_bind_threads).
  if (threads != omp_get_max_threads())
    telarrt_unbind_threads();
  // The kernels split work across libomp's threads; OpenBLAS stays
  // single-threaded (Blas.cpp).
  omp_set_num_threads(threads);
  // libomp's workers spin for KMP_BLOCKTIME (200 ms by default) after each
  // parallel region before they sleep. A run forks regions microseconds
  // apart, so some spinning keeps forks at ~2 us instead of the ~20 us of
  // waking sleeping workers; but 200 ms of spinning between runs takes a
  // core from whatever else runs (on a 2-core machine, a whole time slice
  // of the next run's own thread). 1 ms covers the gaps within a run.
  static const bool userBlocktime = std::getenv("KMP_BLOCKTIME") != nullptr;
  if (!userBlocktime)
    kmp_set_blocktime(kDefaultBlocktimeMs);
}

int telarrt_get_num_threads(void) { return omp_get_max_threads(); }

int telarrt_set_conv_method(int method) {
  if (method < TELARRT_CONV_AUTO || method > TELARRT_CONV_DIRECT)
    return -1;
  int old = convMethod;
  convMethod = method;
  return old;
}

double telarrt_set_kernel_min_parallel_work(double multiplyAdds) {
  double old = kMinParallelWork;
  kMinParallelWork = std::max(1.0, multiplyAdds);
  return old;
}

int telarrt_context_set_gemm_kernel(TelarContext *ctx, int kernel) {
  if (kernel < TELARRT_GEMM_AUTO || kernel > TELARRT_GEMM_AVX512)
    return -1;
  auto want = static_cast<GemmKernel>(kernel);
  if (!detail::gemmKernelSupported(want))
    return -1;
  if (want == GemmKernel::Auto)
    want = detail::bestGemmKernel();
  telar::runtime::cpu::cpuDeviceOf(ctx).gemmKernel = want;
  return static_cast<int>(want);
}

int telarrt_context_get_gemm_kernel(const TelarContext *ctx) {
  return static_cast<int>(
      telar::runtime::cpu::cpuDeviceOf(ctx).gemmKernel);
}

} // extern "C"
