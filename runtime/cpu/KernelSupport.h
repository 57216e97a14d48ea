//===- KernelSupport.h - What the kernels' files share ----------*- C++ -*-===//
//
// Internal to the runtime library: the helpers, constants and settings the
// kernels of the C ABI (Abi.h) share across their files: Matmul.cpp (the
// GEMM every product goes through), Conv.cpp, ConvPlanes.cpp,
// ConvFused.cpp, Pooling.cpp, KernelChecks.cpp (operand checks) and
// KernelSettings.cpp (threads, methods, scratch buffers). Everything here is
// per call, never per element: the hot loops live inside the files.
//
//===----------------------------------------------------------------------===//

#ifndef TELAR_RUNTIME_KERNELSUPPORT_H
#define TELAR_RUNTIME_KERNELSUPPORT_H

#include "CpuDevice.h"
#include "Gemm.h"
#include "telar/runtime/Trace.h"
#include "telar/runtime/abi/CpuKernels.h"

#include <chrono>
#include <climits>
#include <cstdint>
#include <functional>
#include <mutex>
#include <new>
#include <optional>
#include <string>
#include <utility>

namespace telar::runtime::kernels {

using detail::GemmKernel;
using detail::MatrixView;

/// A rank-2 strided view: element (i, j) is p[i * rs + j * cs].
using View = MatrixView;

/// What the kernels of one call use, from its context: the GEMM and the
/// packed weights of the artifact running.
struct Env {
  GemmKernel kernel;
  detail::ConstantCache *constants;
};

inline bool fitsInt(int64_t v) { return v >= 0 && v <= INT_MAX; }

/// Multiply-adds a thread's share of a kernel must have for the split to
/// pay (telarrt_set_kernel_min_parallel_work; KernelSettings.cpp).
extern double kMinParallelWork;

/// How convolutions feed their GEMM (TELARRT_CONV_*; KernelSettings.cpp).
extern int convMethod;

/// Threads available to a kernel: none extra inside a parallel region.
int availableThreads();

/// Per-thread scratch buffers (slot 0: im2col or planes, 1: a dense output
/// or tile, 2: a packed filter, 3: the planes between the two convolutions
/// of a pair), grown as needed and kept, uninitialised.
float *scratch(int slot, size_t floats);

/// The smallest block of rows or columns a thread gets (rounded up to a
/// whole number of the GEMM's micro-tiles).
constexpr int64_t kMinBlock = 16;

/// Bytes of the output tile of a convolution on phase planes (a part of
/// L2).
constexpr int64_t kConvTileBytes = 256 << 10;

/// Output pixels per tile block of a direct convolution (DirectConv in
/// Gemm.h): its tile (pixels x 32 filters) fills a part of L2.
constexpr int64_t kDirectBlockPixels = 256;

/// The largest filter (bytes) for which the convolutions of a pair split
/// their work by output rows on a tie (convPhasePlanes).
constexpr double kPairRowsMaxFilterBytes = 256 << 10;

/// Output pixels from which AUTO computes a convolution directly although
/// its filter must be packed on the call (not a registered constant): the
/// packing then costs a few percent at most.
constexpr int64_t kDirectMinPixelsToPack = 1024;

/// Bytes of an im2col tile (a part of L2; Zen 5 has 1 MiB per core) and its
/// fewest columns.
constexpr int64_t kIm2colTileBytes = 512 << 10;
constexpr int64_t kMinIm2colTile = 64;

/// c += a . b (c = a . b without `accumulate`) for views of matching
/// shapes (b packed once when constant; Matmul.cpp).
void gemmAccumulate(const Env &env, const View &a, const View &b,
                    const View &c, bool accumulate);
/// The same split into blocks of columns (or rows, when c is tall) run on
/// the OpenMP threads.
void parallelGemm(const Env &env, const View &a, const View &b, const View &c,
                  bool accumulate);

/// The single stride of dimensions [first, last) of a view collapsed into
/// one, or false when they do not form one evenly strided sequence.
/// Dimensions of size 1 place no constraint.
bool collapsedStride(const int64_t *sizes, const int64_t *strides, int first,
                     int last, int64_t &stride);

/// The kernels' view of `ctx`.
inline Env envOf(const TelarContext *ctx) {
  const cpu::CpuDevice &device = cpu::cpuDeviceOf(ctx);
  return {device.gemmKernel, device.constants};
}

/// Whether a product of m x k by k x n fits the BLAS interface (int
/// dimensions), which OpenBLAS and the sgemv paths need.
inline bool fitsBlas(int64_t m, int64_t n, int64_t k) {
  return fitsInt(m) && fitsInt(n) && fitsInt(k);
}

/// Checks a kernel's flags (TELAR_KERNEL_*) against those it takes.
bool checkFlags(TelarContext *ctx, const char *kernel, int64_t flags,
                int64_t allowed);

/// Runs a kernel body, turning an allocation failure (std::bad_alloc from
/// its temporaries) into a status.
template <typename Fn> int guarded(TelarContext *ctx, const char *kernel,
                                   Fn &&fn) {
  try {
    return fn();
  } catch (const std::bad_alloc &) {
    return detail::fail(ctx, TELAR_STATUS_OUT_OF_MEMORY,
                        "%s: out of memory for a temporary buffer", kernel);
  }
}

/// "AxBxC" of a memref's sizes.
template <typename MemRef> std::string dims(const MemRef *m) {
  std::string s;
  for (int64_t size : m->sizes)
    s += (s.empty() ? "" : "x") + std::to_string(size);
  return s;
}

/// " acc", " relu", " blocked-in", " blocked-out" for a kernel's flags.
std::string flagNames(int64_t flags);

/// A convolution's operands for the kernel profile.
std::string convShape(const TelarMemRef4F32 *in, const TelarMemRef4F32 *filter,
                      const TelarMemRef4F32 *out, int64_t sh, int64_t sw,
                      int64_t dh, int64_t dw, int64_t padTop, int64_t padLeft,
                      int64_t flags);

/// Times one kernel call into its context's profile, when profiling is on
/// (Context::setKernelProfiling): `shape()` describes the operands, and
/// calls of a kernel with the same description add up. And records it as a
/// span of a trace being recorded (telar/runtime/Trace.h).
template <typename Shape> class KernelTimer {
public:
  KernelTimer(TelarContext *ctx, const char *kernel, Shape shape)
      : profile(cpu::cpuDeviceOf(ctx).profile.get()),
        tracing(telar::runtime::trace::enabled()), kernel(kernel),
        shape(std::move(shape)) {
    if (profile || tracing)
      start = std::chrono::steady_clock::now();
  }
  ~KernelTimer() {
    if (!profile && !tracing)
      return;
    std::chrono::steady_clock::time_point end =
        std::chrono::steady_clock::now();
    if (tracing)
      telar::runtime::trace::record(
          "kernel", kernel, start, end,
          "\"shape\": " + telar::runtime::trace::quote(shape()));
    if (!profile)
      return;
    double seconds = std::chrono::duration<double>(end - start).count();
    std::pair<std::string, std::string> key(kernel, shape());
    std::lock_guard<std::mutex> lock(profile->mutex);
    auto [it, added] = profile->index.emplace(key, profile->entries.size());
    if (added)
      profile->entries.push_back({key.first, key.second, 0, 0.0});
    telar::runtime::KernelProfileEntry &e = profile->entries[it->second];
    ++e.calls;
    e.seconds += seconds;
  }

private:
  detail::KernelProfile *profile;
  bool tracing;
  const char *kernel;
  Shape shape;
  std::chrono::steady_clock::time_point start;
};
template <typename Shape>
KernelTimer(TelarContext *, const char *, Shape) -> KernelTimer<Shape>;

/// Checks a sliding window's geometry (convolutions, pooling): positive
/// strides and dilations, and each output row's (column's) window
/// overlapping the image, the padding on each side smaller than the
/// window's span.
bool checkWindow(TelarContext *ctx, const char *kernel, int64_t h, int64_t w,
                 int64_t oh, int64_t ow, int64_t kh, int64_t kw, int64_t sh,
                 int64_t sw, int64_t dh, int64_t dw, int64_t padTop,
                 int64_t padLeft);

constexpr int64_t kBlockedFlags =
    TELAR_KERNEL_BLOCKED_INPUT | TELAR_KERNEL_BLOCKED_OUTPUT;

/// Whether `m` may hold channel-blocked values (TELAR_KERNEL_BLOCKED_*):
/// a dense buffer (NCHW strides) of whole channel blocks.
bool checkBlocked(TelarContext *ctx, const char *kernel,
                  const TelarMemRef4F32 *m, const char *what);

/// Checks a convolution's operands as telarrt_conv2d_nchw_bias_f32 takes
/// them (`biasRef` may be null); TELAR_STATUS_OK when they hold.
int checkConv(TelarContext *ctx, const char *kernel, const TelarMemRef4F32 *in,
              const TelarMemRef4F32 *filter, const TelarMemRef1F32 *biasRef,
              const TelarMemRef4F32 *out, int64_t sh, int64_t sw, int64_t dh,
              int64_t dw, int64_t padTop, int64_t padLeft, int64_t flags);

/// Whether a convolution on phase planes is computed directly
/// (DirectConv in Gemm.h): under AUTO when its filter is a packed constant,
/// or its output large enough to pay for packing the filter on the call.
enum class DirectChoice { Never, Auto, Always };

/// One NCHW convolution's geometry (sizes of the unpadded input).
struct ConvShape {
  int64_t n, c, h, w, f, kh, kw, oh, ow, sh, sw, dh, dw, padTop, padLeft;
};

/// Where a convolution on phase planes writes planes instead of its
/// output (convPhasePlanes, ConvPlanes.cpp).
struct PlanesTarget {
  float *origin; // output pixel (0, 0) of filter 0
  int64_t blockStride, rowStride;
};

/// The convolution on phase planes (ConvPlanes.cpp, which says how).
void convPhasePlanes(const Env &env, const View &a, const float *input,
                     const int64_t *ist, float *output, const int64_t *ost,
                     const ConvShape &s, bool accumulate, bool relu,
                     const float *bias, int64_t biasStride, DirectChoice choice,
                     const PlanesTarget *toPlanes = nullptr,
                     const float *givenPlanes = nullptr,
                     const detail::DirectPool *toPool = nullptr,
                     bool blockedInput = false);

/// Sets every element of `out` to 0 (relu: to max(out, 0) instead; NaN
/// stays NaN; Conv.cpp).
void overwriteOutput(TelarMemRef4F32 *out, bool relu);

/// A convolution call whose channel-blocked operands its direct path does
/// not take, computed on NCHW copies of them (Conv.cpp).
int viaNchw(TelarMemRef4F32 *in, bool blockedIn, TelarMemRef4F32 *out,
            bool blockedOut, bool accumulate,
            const std::function<int(TelarMemRef4F32 *, TelarMemRef4F32 *)> &call);

/// The filter as an F x (C*KH*KW) matrix, when its elements collapse into
/// one (strided) run per filter.
std::optional<View> filterMatrix(const TelarMemRef4F32 *filter);

/// Whether a fused call may take its direct path: the runtime's own GEMM
/// kernels, the AUTO or DIRECT method, and an output whose rows of pixels
/// are contiguous (or a single pixel).
bool fusesDirectly(const Env &env, const TelarMemRef4F32 *out);

/// telarrt_conv2d_nchw_bias_f32's computation (Conv.cpp; `kernel` names
/// it in errors).
int conv2dNchw(TelarContext *ctx, const char *kernel, TelarMemRef4F32 *in,
               TelarMemRef4F32 *filter, const TelarMemRef1F32 *biasRef,
               TelarMemRef4F32 *out, int64_t sh, int64_t sw, int64_t dh,
               int64_t dw, int64_t padTop, int64_t padLeft, int64_t flags);

/// telarrt_maxpool2d_nchw_f32's computation (Pooling.cpp).
int maxPool2dNchw(TelarContext *ctx, const char *kernel, TelarMemRef4F32 *in,
                  TelarMemRef4F32 *out, int64_t kh, int64_t kw, int64_t sh,
                  int64_t sw, int64_t dh, int64_t dw, int64_t pad_top,
                  int64_t pad_left);

} // namespace telar::runtime::kernels

#endif // TELAR_RUNTIME_KERNELSUPPORT_H
