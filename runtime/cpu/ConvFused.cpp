//===- ConvFused.cpp - Fused convolution pairs and pooling ----------------===//
//
// telarrt_conv2d_pair_nchw_f32 (two convolutions in a row, the
// intermediate passed as planes) and telarrt_conv2d_maxpool_nchw_f32 (a
// convolution pooled while its output is in cache).
//
//===----------------------------------------------------------------------===//

#include "KernelSupport.h"

#include <algorithm>
#include <optional>

namespace detail = telar::runtime::detail;
using namespace telar::runtime::kernels;

/// The fused calls' bias: one with no elements is none (null), unless the
/// filter has none either (then its size is checked like any other).
static const TelarMemRef1F32 *biasOrNone(const TelarMemRef1F32 *bias,
                                         const TelarMemRef4F32 *filter) {
  return bias && bias->sizes[0] == 0 && filter->sizes[0] != 0 ? nullptr
                                                               : bias;
}

/// A bias's first element and stride, or null and 0 without one.
static const float *biasData(const TelarMemRef1F32 *bias) {
  return bias ? bias->aligned + bias->offset : nullptr;
}
static int64_t biasStrideOf(const TelarMemRef1F32 *bias) {
  return bias ? bias->strides[0] : 0;
}

/// The descriptor of a dense NCHW intermediate of the fused calls, with no
/// data until materialiseIntermediate gives it some.
static TelarMemRef4F32 denseIntermediate(int64_t n, int64_t c, int64_t h,
                                         int64_t w) {
  return {nullptr, nullptr, 0, {n, c, h, w}, {c * h * w, h * w, w, 1}};
}
static void materialiseIntermediate(TelarMemRef4F32 &mid) {
  const int64_t *s = mid.sizes;
  mid.allocated = mid.aligned = scratch(
      3, static_cast<size_t>(std::max<int64_t>(1, s[0] * s[1] * s[2] * s[3])));
}

static_assert(detail::kChannelBlock == TELARRT_CONV_CHANNEL_BLOCK,
              "the pair call's channel blocks are the planes'");

/// Two convolutions in a row (telarrt_conv2d_pair_nchw_f32): the first's
/// output `mid` (midH x midW) goes straight into the second's planes of
/// interleaved channels when both are computed directly (the runtime's own
/// GEMM kernels, AUTO or DIRECT, one image, mid's channels a multiple of
/// kChannelBlock): no NCHW copy of mid, no transpose in the first's
/// epilogue, no copy into planes before the second. Otherwise mid goes
/// through a scratch buffer and two ordinary calls.
static int conv2dPair(TelarContext *ctx, const char *kernel,
                      TelarMemRef4F32 *in, TelarMemRef4F32 *filterA,
                      const TelarMemRef1F32 *biasA, TelarMemRef4F32 *filterB,
                      const TelarMemRef1F32 *biasB, TelarMemRef4F32 *out,
                      int64_t sh, int64_t sw, int64_t dh, int64_t dw,
                      int64_t padTop, int64_t padLeft, int64_t flagsA,
                      int64_t midH, int64_t midW, int64_t padTopB,
                      int64_t padLeftB, int64_t flagsB) {
  // The intermediate is never channel-blocked: the first's input and the
  // second's output may be.
  if (!checkFlags(ctx, kernel, flagsA,
                  TELAR_KERNEL_RELU | TELAR_KERNEL_BLOCKED_INPUT) ||
      !checkFlags(ctx, kernel, flagsB,
                  TELAR_KERNEL_ACCUMULATE | TELAR_KERNEL_RELU |
                      TELAR_KERNEL_BLOCKED_OUTPUT))
    return TELAR_STATUS_INVALID_ARGUMENT;
  if (midH < 0 || midW < 0)
    return detail::fail(ctx, TELAR_STATUS_INVALID_ARGUMENT,
                        "%s: a %lldx%lld intermediate", kernel,
                        (long long)midH, (long long)midW);
  biasA = biasOrNone(biasA, filterA);
  biasB = biasOrNone(biasB, filterB);
  int64_t n = in->sizes[0], mc = filterA->sizes[0];
  TelarMemRef4F32 mid = denseIntermediate(n, mc, midH, midW);
  Env env = envOf(ctx);
  const int64_t *fbs = filterB->sizes, *os = out->sizes, *ost = out->strides;
  std::optional<View> matrixA = filterMatrix(filterA),
                      matrixB = filterMatrix(filterB);
  bool fast = fusesDirectly(env, out) && n == 1 && mc > 0 &&
              mc % detail::kChannelBlock == 0 && midH > 0 && midW > 0 &&
              os[1] > 0 && in->sizes[1] > 0 && filterA->sizes[2] > 0 &&
              filterA->sizes[3] > 0 && fbs[2] > 0 && fbs[3] > 0 && matrixA &&
              matrixB;
  if (!fast) {
    materialiseIntermediate(mid);
    int status = conv2dNchw(ctx, kernel, in, filterA, biasA, &mid, sh, sw, dh,
                            dw, padTop, padLeft, flagsA);
    if (status != TELAR_STATUS_OK)
      return status;
    return conv2dNchw(ctx, kernel, &mid, filterB, biasB, out, 1, 1, 1, 1,
                      padTopB, padLeftB, flagsB);
  }
  // Both checked as the ordinary calls check them (mid's data unread).
  if (int status = checkConv(ctx, kernel, in, filterA, biasA, &mid, sh, sw,
                             dh, dw, padTop, padLeft, flagsA))
    return status;
  if (int status = checkConv(ctx, kernel, &mid, filterB, biasB, out, 1, 1, 1,
                             1, padTopB, padLeftB, flagsB))
    return status;
  int64_t kh = fbs[2], kw = fbs[3], oh = os[2], ow = os[3];
  // The second's planes (one phase): hq x wq pixels per channel block,
  // mid at (padTopB, padLeftB), zeros around it.
  constexpr int64_t kBlock = detail::kChannelBlock;
  int64_t hq = oh + kh - 1, wq = ow + kw - 1;
  int64_t blockStride = kBlock * hq * wq, rowStride = kBlock * wq;
  float *planes = scratch(3, static_cast<size_t>(mc * hq * wq));
  for (int64_t b = 0; b < mc / kBlock; ++b) {
    float *block = planes + b * blockStride;
    for (int64_t r = 0; r < hq; ++r) {
      float *row = block + r * rowStride;
      if (r < padTopB || r >= padTopB + midH) {
        std::fill(row, row + rowStride, 0.0f);
        continue;
      }
      std::fill(row, row + padLeftB * kBlock, 0.0f);
      std::fill(row + (padLeftB + midW) * kBlock, row + rowStride, 0.0f);
    }
  }
  // The first convolution, into the planes.
  const int64_t *is = in->sizes, *fas = filterA->sizes;
  int64_t noStrides[4] = {0, 0, 0, 0};
  PlanesTarget target{planes + padTopB * rowStride + padLeftB * kBlock,
                      blockStride, rowStride};
  convPhasePlanes(
      env, *matrixA, in->aligned + in->offset, in->strides, nullptr, noStrides,
      {n, is[1], is[2], is[3], mc, fas[2], fas[3], midH, midW, sh, sw, dh, dw,
       padTop, padLeft},
      /*accumulate=*/false, flagsA & TELAR_KERNEL_RELU, biasData(biasA),
      biasStrideOf(biasA), DirectChoice::Always, &target,
      /*givenPlanes=*/nullptr, /*toPool=*/nullptr,
      flagsA & TELAR_KERNEL_BLOCKED_INPUT);
  // The second, from them.
  float *output = out->aligned + out->offset;
  PlanesTarget blockedOut{output, oh * ow * kBlock, ow * kBlock};
  convPhasePlanes(env, *matrixB, nullptr, noStrides, output, ost,
                  {n, mc, midH, midW, fbs[0], kh, kw, oh, ow, 1, 1, 1, 1,
                   padTopB, padLeftB},
                  flagsB & TELAR_KERNEL_ACCUMULATE, flagsB & TELAR_KERNEL_RELU,
                  biasData(biasB), biasStrideOf(biasB), DirectChoice::Always,
                  flagsB & TELAR_KERNEL_BLOCKED_OUTPUT ? &blockedOut : nullptr,
                  planes);
  return TELAR_STATUS_OK;
}

/// A convolution and the max pooling of its output, which nothing else
/// reads (telarrt_conv2d_maxpool_nchw_f32): when it is computed directly
/// (the runtime's own GEMM, AUTO or DIRECT, one image) each thread takes
/// whole filters and pools blocks of its output rows straight from its
/// tile (DirectConv::pool), the output never stored. Otherwise the output
/// goes through a scratch buffer, the convolution and the pooling.
static int conv2dMaxPool(TelarContext *ctx, const char *kernel,
                         TelarMemRef4F32 *in, TelarMemRef4F32 *filter,
                         const TelarMemRef1F32 *biasRef, TelarMemRef4F32 *out,
                         int64_t sh, int64_t sw, int64_t dh, int64_t dw,
                         int64_t padTop, int64_t padLeft, int64_t flags,
                         int64_t convH, int64_t convW, int64_t kh, int64_t kw,
                         int64_t poolSh, int64_t poolSw, int64_t poolTop,
                         int64_t poolLeft) {
  if (!checkFlags(ctx, kernel, flags, TELAR_KERNEL_RELU | kBlockedFlags) ||
      ((flags & TELAR_KERNEL_BLOCKED_OUTPUT) &&
       !checkBlocked(ctx, kernel, out, "output")))
    return TELAR_STATUS_INVALID_ARGUMENT;
  // The convolution's own flags (its output, the intermediate, is plain).
  int64_t convFlags = flags & ~TELAR_KERNEL_BLOCKED_OUTPUT;
  bool blockedOut = flags & TELAR_KERNEL_BLOCKED_OUTPUT;
  if (convH < 0 || convW < 0)
    return detail::fail(ctx, TELAR_STATUS_INVALID_ARGUMENT,
                        "%s: a %lldx%lld convolution output", kernel,
                        (long long)convH, (long long)convW);
  biasRef = biasOrNone(biasRef, filter);
  int64_t n = in->sizes[0], f = filter->sizes[0];
  // The convolution's output.
  TelarMemRef4F32 mid = denseIntermediate(n, f, convH, convW);
  if (int status = checkConv(ctx, kernel, in, filter, biasRef, &mid, sh, sw, dh,
                             dw, padTop, padLeft, convFlags))
    return status;
  const int64_t *os = out->sizes, *ost = out->strides;
  if (os[0] != n || os[1] != f || kh < 1 || kw < 1)
    return detail::fail(ctx, TELAR_STATUS_INVALID_ARGUMENT,
        "%s: the pooling's output %lldx%lldx%lldx%lld does not match the "
        "convolution's %lldx%lldx%lldx%lld", kernel, (long long)os[0],
        (long long)os[1], (long long)os[2], (long long)os[3], (long long)n,
        (long long)f, (long long)convH, (long long)convW);
  if (!checkWindow(ctx, kernel, convH, convW, os[2], os[3], kh, kw, poolSh,
                   poolSw, 1, 1, poolTop, poolLeft))
    return TELAR_STATUS_INVALID_ARGUMENT;
  Env env = envOf(ctx);
  const int64_t *is = in->sizes, *fs = filter->sizes;
  std::optional<View> matrix = filterMatrix(filter);
  bool fast = fusesDirectly(env, out) && n == 1 && f > 0 && is[1] > 0 &&
              fs[2] > 0 && fs[3] > 0 && convH > 0 && convW > 0 && matrix;
  if (!fast) {
    materialiseIntermediate(mid);
    int status = conv2dNchw(ctx, kernel, in, filter, biasRef, &mid, sh, sw, dh,
                            dw, padTop, padLeft, convFlags);
    if (status != TELAR_STATUS_OK)
      return status;
    return viaNchw(/*in=*/nullptr, /*blockedIn=*/false, out, blockedOut,
                   /*accumulate=*/false,
                   [&](TelarMemRef4F32 *, TelarMemRef4F32 *plainOut) {
                     return maxPool2dNchw(ctx, kernel, &mid, plainOut, kh, kw,
                                          poolSh, poolSw, 1, 1, poolTop,
                                          poolLeft);
                   });
  }
  detail::DirectPool pool{out->aligned + out->offset, ost[1], os[2], os[3], kh,
                          kw, poolSh, poolSw, poolTop, poolLeft};
  if (blockedOut)
    pool.blockStride = os[2] * os[3] * detail::kChannelBlock;
  int64_t noStrides[4] = {0, 0, 0, 0};
  convPhasePlanes(
      env, *matrix, in->aligned + in->offset, in->strides, nullptr, noStrides,
      {n, is[1], is[2], is[3], f, fs[2], fs[3], convH, convW, sh, sw, dh, dw,
       padTop, padLeft},
      /*accumulate=*/false, flags & TELAR_KERNEL_RELU, biasData(biasRef),
      biasStrideOf(biasRef), DirectChoice::Always,
      /*toPlanes=*/nullptr, /*givenPlanes=*/nullptr, &pool,
      flags & TELAR_KERNEL_BLOCKED_INPUT);
  return TELAR_STATUS_OK;
}

extern "C" {

int telarrt_conv2d_pair_nchw_f32(
    TelarContext *ctx, TelarMemRef4F32 *in, TelarMemRef4F32 *filter_a,
    TelarMemRef1F32 *bias_a, TelarMemRef4F32 *filter_b,
    TelarMemRef1F32 *bias_b, TelarMemRef4F32 *out, int64_t sh, int64_t sw,
    int64_t dh, int64_t dw, int64_t pad_top, int64_t pad_left, int64_t flags_a,
    int64_t mid_h, int64_t mid_w, int64_t pad_top_b, int64_t pad_left_b,
    int64_t flags_b) {
  const char *kernel = "telarrt_conv2d_pair_nchw_f32";
  KernelTimer timer(ctx, kernel, [&] {
    std::string mid = std::to_string(in->sizes[0]) + "x" +
                      std::to_string(filter_a->sizes[0]) + "x" +
                      std::to_string(mid_h) + "x" + std::to_string(mid_w);
    return dims(in) + " * " + dims(filter_a) + " -> " + mid + " stride " +
           std::to_string(sh) + "x" + std::to_string(sw) + " pad " +
           std::to_string(pad_top) + "x" + std::to_string(pad_left) +
           flagNames(flags_a) + "; * " + dims(filter_b) + " -> " + dims(out) +
           " pad " + std::to_string(pad_top_b) + "x" +
           std::to_string(pad_left_b) + flagNames(flags_b);
  });
  return guarded(ctx, kernel, [&] {
    return conv2dPair(ctx, kernel, in, filter_a, bias_a, filter_b, bias_b, out,
                      sh, sw, dh, dw, pad_top, pad_left, flags_a, mid_h, mid_w,
                      pad_top_b, pad_left_b, flags_b);
  });
}

int telarrt_conv2d_maxpool_nchw_f32(
    TelarContext *ctx, TelarMemRef4F32 *in, TelarMemRef4F32 *filter,
    TelarMemRef1F32 *bias, TelarMemRef4F32 *out, int64_t sh, int64_t sw,
    int64_t dh, int64_t dw, int64_t pad_top, int64_t pad_left, int64_t flags,
    int64_t conv_h, int64_t conv_w, int64_t kh, int64_t kw, int64_t pool_sh,
    int64_t pool_sw, int64_t pool_pad_top, int64_t pool_pad_left) {
  const char *kernel = "telarrt_conv2d_maxpool_nchw_f32";
  KernelTimer timer(ctx, kernel, [&] {
    return dims(in) + " * " + dims(filter) + " -> " +
           std::to_string(in->sizes[0]) + "x" +
           std::to_string(filter->sizes[0]) + "x" + std::to_string(conv_h) +
           "x" + std::to_string(conv_w) + " stride " + std::to_string(sh) +
           "x" + std::to_string(sw) + " pad " + std::to_string(pad_top) + "x" +
           std::to_string(pad_left) +
           flagNames(flags & ~TELAR_KERNEL_BLOCKED_OUTPUT) + "; max " +
           std::to_string(kh) + "x" + std::to_string(kw) + " stride " +
           std::to_string(pool_sh) + "x" + std::to_string(pool_sw) + " -> " +
           dims(out) + flagNames(flags & TELAR_KERNEL_BLOCKED_OUTPUT);
  });
  return guarded(ctx, kernel, [&] {
    return conv2dMaxPool(ctx, kernel, in, filter, bias, out, sh, sw, dh, dw,
                         pad_top, pad_left, flags, conv_h, conv_w, kh, kw,
                         pool_sh, pool_sw, pool_pad_top, pool_pad_left);
  });
}

} // extern "C"
