//===- Pooling.cpp - Max pooling kernel -----------------------------------===//
//
// telarrt_maxpool2d_nchw_f32: vector rows (Gemm.h's maxPoolPlane) or
// element by element.
//
//===----------------------------------------------------------------------===//

#include "KernelSupport.h"

#include <cmath>
#include <limits>

namespace detail = telar::runtime::detail;

namespace telar::runtime::kernels {

/// telarrt_maxpool2d_nchw_f32's computation (`kernel` names it in errors).
int maxPool2dNchw(TelarContext *ctx, const char *kernel,
                         TelarMemRef4F32 *in, TelarMemRef4F32 *out,
                         int64_t kh, int64_t kw, int64_t sh, int64_t sw,
                         int64_t dh, int64_t dw, int64_t pad_top,
                         int64_t pad_left) {
  const int64_t *is = in->sizes, *os = out->sizes;
  int64_t n = is[0], c = is[1], h = is[2], w = is[3], oh = os[2],
          ow = os[3];
  if (os[0] != n || os[1] != c || kh < 1 || kw < 1)
    return detail::fail(ctx, TELAR_STATUS_INVALID_ARGUMENT,
        "%s: input %lldx%lldx%lldx%lld, window %lldx%lld and output "
        "%lldx%lldx%lldx%lld do not match",
        kernel, (long long)n, (long long)c, (long long)h, (long long)w,
        (long long)kh, (long long)kw, (long long)os[0], (long long)os[1],
        (long long)oh, (long long)ow);
  if (!checkWindow(ctx, kernel, h, w, oh, ow, kh, kw, sh, sw, dh, dw,
                   pad_top, pad_left))
    return TELAR_STATUS_INVALID_ARGUMENT;
  const float *input = in->aligned + in->offset;
  float *output = out->aligned + out->offset;
  const int64_t *ist = in->strides, *ost = out->strides;
  GemmKernel gemmKernel = envOf(ctx).kernel;
  // The vector path wants rows of unit stride; anything else (or a CPU
  // without AVX2) goes element by element.
  bool vector = gemmKernel != GemmKernel::OpenBlas &&
                (ist[3] == 1 || w <= 1) && (ost[3] == 1 || ow <= 1);
  // A window element costs ~16 times a GEMM's multiply-add (a share of
  // a dependent chain of vector maxima against one FMA lane): weighted
  // so against the kernels' threshold (ResNet-18 at 64 x 64, 64 x 32 x 32
  // -> 16 x 16, 2 threads: 0.051 -> 0.025 ms).
  constexpr double kPoolWorkWeight = 16;
  double work = double(n * c) * double(oh * ow) * double(kh * kw) *
                kPoolWorkWeight;
  bool parallel = availableThreads() > 1 && work >= kMinParallelWork;
#pragma omp parallel for collapse(2) schedule(static) if (parallel)
  for (int64_t img = 0; img < n; ++img)
    for (int64_t ch = 0; ch < c; ++ch) {
      const float *plane = input + img * ist[0] + ch * ist[1];
      float *dst = output + img * ost[0] + ch * ost[1];
      if (vector) {
        detail::maxPoolPlane(gemmKernel, {plane, h, w, ist[2], dst, oh, ow,
                                          ost[2], kh, kw, sh, sw, dh, dw,
                                          pad_top, pad_left});
        continue;
      }
      for (int64_t oy = 0; oy < oh; ++oy)
        for (int64_t ox = 0; ox < ow; ++ox) {
          float m = -std::numeric_limits<float>::infinity();
          for (int64_t ky = 0; ky < kh; ++ky) {
            int64_t iy = oy * sh + ky * dh - pad_top;
            for (int64_t kx = 0; kx < kw && iy >= 0 && iy < h; ++kx) {
              int64_t ix = ox * sw + kx * dw - pad_left;
              if (ix < 0 || ix >= w)
                continue;
              float v = plane[iy * ist[2] + ix * ist[3]];
              m = std::isnan(m) || v < m ? m : v; // NaN sticks
            }
          }
          dst[oy * ost[2] + ox * ost[3]] = m;
        }
    }
  return TELAR_STATUS_OK;
}

} // namespace telar::runtime::kernels

extern "C" {

using namespace telar::runtime::kernels;

int telarrt_maxpool2d_nchw_f32(TelarContext *ctx, TelarMemRef4F32 *in,
                               TelarMemRef4F32 *out, int64_t kh, int64_t kw,
                               int64_t sh, int64_t sw, int64_t dh, int64_t dw,
                               int64_t pad_top, int64_t pad_left) {
  const char *kernel = "telarrt_maxpool2d_nchw_f32";
  KernelTimer timer(ctx, kernel, [&] {
    return dims(in) + " -> " + dims(out) + " window " + std::to_string(kh) +
           "x" + std::to_string(kw) + " stride " + std::to_string(sh) + "x" +
           std::to_string(sw);
  });
  return guarded(ctx, kernel, [&] {
    return maxPool2dNchw(ctx, kernel, in, out, kh, kw, sh, sw, dh, dw, pad_top,
                         pad_left);
  });
}

} // extern "C"
