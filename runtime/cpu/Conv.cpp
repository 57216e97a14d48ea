//===- Conv.cpp - NCHW convolution kernels --------------------------------===//
//
// telarrt_conv2d_nchw_f32 and telarrt_conv2d_nchw_bias_f32: the method
// chosen per convolution (direct or GEMM on phase planes, ConvPlanes.cpp;
// im2col panels; the im2col matrix), channel-blocked operands through NCHW
// copies where the direct path does not take them.
//
//===----------------------------------------------------------------------===//

#include "KernelSupport.h"

#include <algorithm>
#include <functional>
#include <optional>
#include <vector>

namespace detail = telar::runtime::detail;

namespace telar::runtime::kernels {

/// Sets every element of `out` to 0 (relu: to max(out, 0) instead; NaN
/// stays NaN).
void overwriteOutput(TelarMemRef4F32 *out, bool relu) {
  const int64_t *os = out->sizes, *ost = out->strides;
  float *p = out->aligned + out->offset;
  for (int64_t i = 0; i < os[0]; ++i)
    for (int64_t j = 0; j < os[1]; ++j)
      for (int64_t y = 0; y < os[2]; ++y)
        for (int64_t x = 0; x < os[3]; ++x) {
          float &v = p[i * ost[0] + j * ost[1] + y * ost[2] + x * ost[3]];
          v = relu && (v > 0.0f || v != v) ? v : 0.0f;
        }
}

/// out = bias (out += bias with `accumulate`) on every pixel of each
/// filter's output.
void addBias(TelarMemRef4F32 *out, const float *bias,
                    int64_t biasStride, bool accumulate) {
  const int64_t *os = out->sizes, *ost = out->strides;
  float *p = out->aligned + out->offset;
  for (int64_t i = 0; i < os[0]; ++i)
    for (int64_t j = 0; j < os[1]; ++j) {
      float b = bias[j * biasStride];
      for (int64_t y = 0; y < os[2]; ++y) {
        float *row = p + i * ost[0] + j * ost[1] + y * ost[2];
        for (int64_t x = 0; x < os[3]; ++x)
          row[x * ost[3]] = accumulate ? row[x * ost[3]] + b : b;
      }
    }
}

/// An N x C x P array (P pixels) from NCHW to channel-blocked (NCHW16c)
/// order, or back.
void convertBlocked(const float *src, float *dst, int64_t n, int64_t c,
                           int64_t p, bool toBlocked) {
  constexpr int64_t kBlock = detail::kChannelBlock;
  for (int64_t i = 0; i < n * c; ++i) {
    int64_t img = i / c, ch = i % c;
    int64_t at = (img * c + ch / kBlock * kBlock) * p + ch % kBlock;
    for (int64_t q = 0; q < p; ++q) {
      if (toBlocked)
        dst[at + q * kBlock] = src[i * p + q];
      else
        dst[i * p + q] = src[at + q * kBlock];
    }
  }
}

/// A convolution call whose channel-blocked operands (`blockedIn`,
/// `blockedOut`) its direct path does not take (another method, several
/// images): `call` computes it on NCHW copies of them (out's only when
/// `accumulate` reads it), and out gets the result back blocked. `in` may
/// be null (a call whose input is never blocked): `call` then gets null.
int
viaNchw(TelarMemRef4F32 *in, bool blockedIn, TelarMemRef4F32 *out,
        bool blockedOut, bool accumulate,
        const std::function<int(TelarMemRef4F32 *, TelarMemRef4F32 *)> &call) {
  TelarMemRef4F32 inCopy = in ? *in : TelarMemRef4F32{}, outCopy = *out;
  std::vector<float> inData, outData;
  auto plain = [](TelarMemRef4F32 &m, std::vector<float> &data, bool read) {
    const int64_t *s = m.sizes;
    data.resize(static_cast<size_t>(s[0] * s[1] * s[2] * s[3]));
    if (read)
      convertBlocked(m.aligned + m.offset, data.data(), s[0], s[1], s[2] * s[3],
                     /*toBlocked=*/false);
    m.allocated = m.aligned = data.data();
    m.offset = 0;
  };
  if (blockedIn)
    plain(inCopy, inData, /*read=*/true);
  if (blockedOut)
    plain(outCopy, outData, accumulate);
  int status = call(in ? &inCopy : nullptr, &outCopy);
  if (status == TELAR_STATUS_OK && blockedOut) {
    const int64_t *s = out->sizes;
    convertBlocked(outData.data(), out->aligned + out->offset, s[0], s[1],
                   s[2] * s[3], /*toBlocked=*/true);
  }
  return status;
}

/// The filter as an F x (C*KH*KW) matrix, when its elements collapse into
/// one (strided) run per filter.
std::optional<View> filterMatrix(const TelarMemRef4F32 *filter) {
  const int64_t *fs = filter->sizes, *fst = filter->strides;
  int64_t col;
  if (!collapsedStride(fs, fst, 1, 4, col))
    return std::nullopt;
  return View{filter->aligned + filter->offset, fs[0], fs[1] * fs[2] * fs[3],
              fst[0], col};
}

/// Whether a fused call may take its direct path: the runtime's own GEMM
/// kernels, the AUTO or DIRECT method, and an output whose rows of pixels
/// are contiguous (or a single pixel).
bool fusesDirectly(const Env &env, const TelarMemRef4F32 *out) {
  const int64_t *os = out->sizes, *ost = out->strides;
  int64_t outCol;
  return env.kernel != GemmKernel::OpenBlas &&
         (convMethod == TELARRT_CONV_AUTO ||
          convMethod == TELARRT_CONV_DIRECT) &&
         os[2] > 0 && os[3] > 0 && collapsedStride(os, ost, 2, 4, outCol) &&
         (outCol == 1 || os[2] * os[3] == 1);
}

int conv2dNchw(TelarContext *ctx, const char *kernel,
                      TelarMemRef4F32 *in, TelarMemRef4F32 *filter,
                      const TelarMemRef1F32 *biasRef, TelarMemRef4F32 *out,
                      int64_t sh, int64_t sw, int64_t dh, int64_t dw,
                      int64_t padTop, int64_t padLeft, int64_t flags) {
  if (int status = checkConv(ctx, kernel, in, filter, biasRef, out, sh, sw, dh,
                             dw, padTop, padLeft, flags))
    return status;
  const int64_t *is = in->sizes, *fs = filter->sizes, *os = out->sizes;
  int64_t n = is[0], c = is[1], h = is[2], w = is[3];
  int64_t f = fs[0], kh = fs[2], kw = fs[3];
  int64_t oh = os[2], ow = os[3];
  const float *bias =
      biasRef ? biasRef->aligned + biasRef->offset : nullptr;
  int64_t biasStride = biasRef ? biasRef->strides[0] : 0;
  bool accumulate = flags & TELAR_KERNEL_ACCUMULATE;
  bool relu = flags & TELAR_KERNEL_RELU;
  int64_t depth = c * kh * kw, pixels = oh * ow;
  bool blockedIn = flags & TELAR_KERNEL_BLOCKED_INPUT,
       blockedOut = flags & TELAR_KERNEL_BLOCKED_OUTPUT;
  // Channel-blocked operands: computed directly on them (one image), else
  // through NCHW copies.
  bool blockedDirect = fusesDirectly(envOf(ctx), out) && n == 1 && f > 0 &&
                       pixels > 0 && depth > 0;
  if ((blockedIn || blockedOut) && !blockedDirect)
    return viaNchw(in, blockedIn, out, blockedOut, accumulate,
                   [&](TelarMemRef4F32 *plainIn, TelarMemRef4F32 *plainOut) {
                     return conv2dNchw(ctx, kernel, plainIn, filter, biasRef,
                                       plainOut, sh, sw, dh, dw, padTop,
                                       padLeft, flags & ~kBlockedFlags);
                   });
  if (n == 0 || f == 0 || pixels == 0 || depth == 0) {
    // An empty sum: c = 0 (ACCUMULATE unset: c is not read), plus the bias,
    // then the ReLU.
    if (bias)
      addBias(out, bias, biasStride, accumulate);
    else if (!accumulate)
      overwriteOutput(out, /*relu=*/false);
    if (relu)
      overwriteOutput(out, /*relu=*/true);
    return TELAR_STATUS_OK;
  }
  // Whether every window lies inside the image (no padding read).
  int64_t padBottom = (oh - 1) * sh + (kh - 1) * dh + 1 - padTop - h,
          padRight = (ow - 1) * sw + (kw - 1) * dw + 1 - padLeft - w;
  bool inside = padTop == 0 && padLeft == 0 && padBottom <= 0 &&
                padRight <= 0;

  const int64_t *ist = in->strides, *fst = filter->strides, *ost = out->strides;
  const float *input = in->aligned + in->offset;
  float *output = out->aligned + out->offset;

  // The filter as an F x (C*KH*KW) matrix.
  std::vector<float> packedFilter;
  View filterView{filter->aligned + filter->offset, f, depth, fst[0], 0};
  if (std::optional<View> matrix = filterMatrix(filter)) {
    filterView = *matrix;
  } else {
    packedFilter.resize(static_cast<size_t>(f * depth));
    for (int64_t i = 0; i < f; ++i)
      for (int64_t ci = 0; ci < c; ++ci)
        for (int64_t y = 0; y < kh; ++y)
          for (int64_t x = 0; x < kw; ++x)
            packedFilter[((i * c + ci) * kh + y) * kw + x] =
                filterView
                    .p[i * fst[0] + ci * fst[1] + y * fst[2] + x * fst[3]];
    filterView = {packedFilter.data(), f, depth, depth, 1};
  }

  // Each image's output as an F x (OH*OW) matrix; when the output pixels do
  // not collapse, accumulate into a dense temporary and add it back.
  int64_t outCol;
  bool outCollapses = collapsedStride(os, ost, 2, 4, outCol);

  // Each image's im2col matrix: (C*KH*KW) x (OH*OW). A 1x1 unit-stride
  // kernel reads the input in place when its pixels collapse.
  int64_t pixelStrides[2] = {ist[2] * sh, ist[3] * sw};
  int64_t pixelSizes[2] = {oh, ow};
  int64_t inCol;
  bool direct = kh == 1 && kw == 1 && inside &&
                collapsedStride(pixelSizes, pixelStrides, 0, 2, inCol);

  // With the runtime's GEMM and an output whose pixels have unit stride,
  // the GEMM packs its panels of the im2col matrix straight from the input
  // (no im2col matrix, no second packing pass). Work goes to threads as
  // whole images when there are enough of them to keep the threads evenly
  // busy, else each image is split into blocks of output pixels (or of
  // filters, when there are more filters than pixels) on micro-tile
  // boundaries.
  Env env = envOf(ctx);
  GemmKernel gemmKernel = env.kernel;
  bool ownGemm = gemmKernel != GemmKernel::OpenBlas;
  bool unitPixels = outCollapses && (outCol == 1 || pixels == 1);
  // AUTO: phase planes, computed directly (when the filter is a packed
  // constant or the output large), except for 1x1 kernels. Measured on
  // ResNet-18's layers (telar-conv-bench --methods, the methods taking
  // turns): direct 1.15-1.3x the speed of the planes' GEMM on the 3x3
  // layers and up to 1.25x on the 7x7 stem, 1 and 2 threads; the planes'
  // GEMM 1.03-1.30x the panels' speed on the stride-1 3x3 layers, but the
  // strided 1x1 ones, which read a quarter of their input, go 1.05-1.3x
  // faster with the panels (picked straight from the image) than with
  // either on planes at 56 x 56 and 28 x 28. Computed directly, though,
  // from one plane of interleaved channels and the filter packed once (a
  // registered constant, as an artifact's weights are), the strided 1x1
  // ones beat the panels: ResNet-18's three at 224 x 224 in the model, 1
  // thread, 0.62 -> 0.48 ms in all; 2 threads 0.42 -> 0.27 (Sapphire
  // Rapids VM; telar-conv-bench --methods, alone: 0.31 against 0.35).
  if (blockedIn || blockedOut) {
    PlanesTarget target{output, oh * ow * detail::kChannelBlock,
                        ow * detail::kChannelBlock};
    convPhasePlanes(
        env, filterView, input, ist, output, ost,
        {n, c, h, w, f, kh, kw, oh, ow, sh, sw, dh, dw, padTop, padLeft},
        accumulate, relu, bias, biasStride, DirectChoice::Always,
        blockedOut ? &target : nullptr, /*givenPlanes=*/nullptr,
        /*toPool=*/nullptr, blockedIn);
    return TELAR_STATUS_OK;
  }
  bool pointwise = kh == 1 && kw == 1;
  // (Looked up, and packed, only for AUTO: a method asked for reads none.)
  bool directPointwise =
      convMethod == TELARRT_CONV_AUTO && pointwise && (sh > 1 || sw > 1) &&
      ownGemm &&
      c % detail::kChannelBlock == 0 &&
      detail::constantPackedConvFilter(env.constants, gemmKernel, filterView,
                                       /*window=*/1) != nullptr;
  DirectChoice directChoice =
      convMethod == TELARRT_CONV_DIRECT ? DirectChoice::Always
      : convMethod == TELARRT_CONV_AUTO ? DirectChoice::Auto
                                        : DirectChoice::Never;
  if (ownGemm && unitPixels &&
      (convMethod == TELARRT_CONV_DIRECT ||
       convMethod == TELARRT_CONV_PHASE_PLANES ||
       (convMethod == TELARRT_CONV_AUTO && (!pointwise || directPointwise)))) {
    convPhasePlanes(env, filterView, input, ist, output, ost,
                    {n, c, h, w, f, kh, kw, oh, ow, sh, sw, dh, dw, padTop,
                     padLeft},
                    accumulate, relu, bias, biasStride, directChoice);
    return TELAR_STATUS_OK;
  }
  // The other ways add the bias to the output first.
  if (bias) {
    addBias(out, bias, biasStride, accumulate);
    accumulate = true;
  }
  if (ownGemm && unitPixels && !direct &&
      convMethod != TELARRT_CONV_IM2COL) {
    int threads = availableThreads();
    double work = double(f) * double(depth) * double(pixels) * double(n);
    bool splitColumns = pixels >= f;
    int64_t extent = splitColumns ? pixels : f;
    int64_t tileSize = splitColumns ? detail::gemmTileCols(gemmKernel)
                                    : detail::gemmTileRows(gemmKernel);
    int64_t unit = (kMinBlock + tileSize - 1) / tileSize * tileSize;
    int64_t perImage = 1;
    if (threads > 1 && work >= kMinParallelWork &&
        !(n % threads == 0 || n >= 4 * threads))
      perImage = std::max<int64_t>(
          1, std::min<int64_t>(
                 {threads,
                  static_cast<int64_t>(work / double(n) / kMinParallelWork),
                  extent / unit}));
    int64_t items = n * perImage;
    bool parallel = threads > 1 && items > 1 && work >= kMinParallelWork;
    int used = static_cast<int>(std::min<int64_t>(threads, items));
#pragma omp parallel for if (parallel) num_threads(used) schedule(static)
    for (int64_t item = 0; item < items; ++item) {
      int64_t img = item / perImage, i = item % perImage;
      // Block edges at multiples of `unit` (non-empty: the unrounded edges
      // are at least `unit` apart).
      int64_t lo = i == 0 ? 0 : extent * i / perImage / unit * unit;
      int64_t hi = i + 1 == perImage
                       ? extent
                       : extent * (i + 1) / perImage / unit * unit;
      detail::Im2colB conv{input + img * ist[0], ist[1], ist[2], ist[3],
                           h, w, kh, kw, sh, sw, dh, dw, padTop, padLeft,
                           ow, 0, relu};
      float *imageOut = output + img * ost[0];
      if (splitColumns) {
        conv.p0 = lo;
        detail::gemmIm2col(gemmKernel, filterView, conv,
                           {imageOut + lo * outCol, f, hi - lo, ost[1], 1},
                           accumulate);
      } else {
        detail::gemmIm2col(gemmKernel,
                           {filterView.p + lo * filterView.rs, hi - lo, depth,
                            filterView.rs, filterView.cs},
                           conv,
                           {imageOut + lo * ost[1], hi - lo, pixels, ost[1], 1},
                           accumulate);
      }
    }
    return TELAR_STATUS_OK;
  }

  // Otherwise: the image's im2col matrix, materialised.
  // Output pixels in tiles whose im2col matrix (depth x tile) stays in L2,
  // so that the GEMM reads it from there rather than from memory; tiles are
  // whole GEMM panels (32 columns). Kernels with a deep im2col (where a
  // tile would be narrow) and 1x1 kernels read in place keep one tile per
  // image.
  int64_t tile = pixels;
  if (!direct) {
    int64_t fit = kIm2colTileBytes / (depth * int64_t(sizeof(float)));
    fit = fit / 32 * 32;
    if (fit >= kMinIm2colTile && fit < pixels) {
      int64_t count = (pixels + fit - 1) / fit;
      tile = ((pixels + count - 1) / count + 31) / 32 * 32;
    }
  }
  int64_t tiles = (pixels + tile - 1) / tile;

  // Pixels [p0, p1) of one image; `inner` says whether to use the threads
  // inside it.
  auto convolveTile = [&](int64_t img, int64_t p0, int64_t p1, bool inner) {
    int64_t len = p1 - p0;
    const float *image = input + img * ist[0];
    View colView;
    if (direct) {
      colView = {const_cast<float *>(image) + p0 * inCol, c, len, ist[1],
                 inCol};
    } else {
      float *columns = scratch(0, static_cast<size_t>(depth * len));
      bool split = inner && double(depth) * double(len) >= (1 << 16);
#pragma omp parallel for if (split) schedule(static)
      for (int64_t r = 0; r < depth; ++r) {
        int64_t ci = r / (kh * kw), y = r / kw % kh, x = r % kw;
        float *dst = columns + r * len;
        // Output columns [xlo, xhi) read inside the image (the others, and
        // rows outside it, read the zero padding).
        int64_t off = padLeft - x * dw;
        int64_t xlo = off <= 0 ? 0 : (off + sw - 1) / sw;
        int64_t xhi = std::min<int64_t>(
            ow, w - 1 + off < 0 ? 0 : (w - 1 + off) / sw + 1);
        // Output row by output row (the first and last may be partial).
        int64_t oy = p0 / ow, ox = p0 % ow;
        for (int64_t p = p0; p < p1; ++oy, ox = 0) {
          int64_t count = std::min(ow - ox, p1 - p);
          int64_t iy = oy * sh + y * dh - padTop;
          int64_t lo = std::clamp(xlo, ox, ox + count),
                  hi = std::clamp(xhi, lo, ox + count);
          if (iy < 0 || iy >= h)
            lo = hi = ox + count;
          std::fill(dst, dst + (lo - ox), 0.0f);
          std::fill(dst + (hi - ox), dst + count, 0.0f);
          if (lo < hi) {
            const float *line = image + ci * ist[1] + iy * ist[2] +
                                (lo * sw + x * dw - padLeft) * ist[3];
            float *d = dst + (lo - ox);
            if (sw * ist[3] == 1)
              std::copy(line, line + (hi - lo), d);
            else
              for (int64_t i = 0; i < hi - lo; ++i)
                d[i] = line[i * sw * ist[3]];
          }
          dst += count;
          p += count;
        }
      }
      colView = {columns, depth, len, len, 1};
    }

    auto gemm = inner ? parallelGemm : gemmAccumulate;
    float *imageOut = output + img * ost[0];
    if (outCollapses) {
      gemm(env, filterView, colView,
           {imageOut + p0 * outCol, f, len, ost[1], outCol}, accumulate);
      return;
    }
    float *dense = scratch(1, static_cast<size_t>(f * len));
    gemm(env, filterView, colView, {dense, f, len, len, 1}, false);
    for (int64_t i = 0; i < f; ++i)
      for (int64_t p = p0; p < p1; ++p) {
        float &o = imageOut[i * ost[1] + p / ow * ost[2] + p % ow * ost[3]];
        float v = dense[i * len + (p - p0)];
        o = accumulate ? o + v : v;
      }
  };

  // Tiles (of all images) to threads when there are enough of them to keep
  // the threads evenly busy or when each is too small to split; otherwise
  // the threads work inside each tile.
  int threads = availableThreads();
  int64_t items = n * tiles;
  double work = double(f) * double(depth) * double(pixels) * double(n);
  double itemWork = work / double(items);
  if (threads > 1 && items > 1 && work >= kMinParallelWork &&
      ((items >= threads && (items % threads == 0 || items >= 4 * threads)) ||
       itemWork < kMinParallelWork * threads)) {
    int64_t used = std::min<int64_t>(threads, items);
#pragma omp parallel for num_threads(used) schedule(static)
    for (int64_t item = 0; item < items; ++item) {
      int64_t img = item / tiles, p0 = item % tiles * tile;
      convolveTile(img, p0, std::min(pixels, p0 + tile), /*inner=*/false);
    }
  } else {
    for (int64_t img = 0; img < n; ++img)
      for (int64_t p0 = 0; p0 < pixels; p0 += tile)
        convolveTile(img, p0, std::min(pixels, p0 + tile), /*inner=*/true);
  }
  if (relu)
    overwriteOutput(out, /*relu=*/true);
  return TELAR_STATUS_OK;
}

} // namespace telar::runtime::kernels

extern "C" {

using namespace telar::runtime::kernels;

int telarrt_conv2d_nchw_f32(TelarContext *ctx, TelarMemRef4F32 *in,
                            TelarMemRef4F32 *filter, TelarMemRef4F32 *out,
                            int64_t sh, int64_t sw, int64_t dh, int64_t dw,
                            int64_t pad_top, int64_t pad_left,
                            int64_t flags) {
  const char *kernel = "telarrt_conv2d_nchw_f32";
  KernelTimer timer(ctx, kernel, [&] {
    return convShape(in, filter, out, sh, sw, dh, dw, pad_top, pad_left,
                     flags);
  });
  return guarded(ctx, kernel, [&] {
    return conv2dNchw(ctx, kernel, in, filter, nullptr, out, sh, sw, dh, dw,
                      pad_top, pad_left, flags);
  });
}

int telarrt_conv2d_nchw_bias_f32(TelarContext *ctx, TelarMemRef4F32 *in,
                                 TelarMemRef4F32 *filter,
                                 TelarMemRef1F32 *bias, TelarMemRef4F32 *out,
                                 int64_t sh, int64_t sw, int64_t dh,
                                 int64_t dw, int64_t pad_top, int64_t pad_left,
                                 int64_t flags) {
  const char *kernel = "telarrt_conv2d_nchw_bias_f32";
  KernelTimer timer(ctx, kernel, [&] {
    return convShape(in, filter, out, sh, sw, dh, dw, pad_top, pad_left,
                     flags);
  });
  return guarded(ctx, kernel, [&] {
    return conv2dNchw(ctx, kernel, in, filter, bias, out, sh, sw, dh, dw,
                      pad_top, pad_left, flags);
  });
}

} // extern "C"
