//===- ConvPlanes.cpp - Convolution on phase planes -----------------------===//
//
// The convolution on phase planes, directly or through the GEMM
// (convPhasePlanes; KernelSupport.h and below).
//
//===----------------------------------------------------------------------===//

#include "KernelSupport.h"

#include <algorithm>
#include <cassert>
#include <cstring>

namespace detail = telar::runtime::detail;

namespace {
/// floor(a / b) for b > 0.
int64_t floorDiv(int64_t a, int64_t b) {
  return a >= 0 ? a / b : -((-a + b - 1) / b);
}
} // namespace

namespace telar::runtime::kernels {

/// The convolution on phase planes (TELARRT_CONV_PHASE_PLANES): each
/// image's zero-padded input P is split into sh x sw planes, plane (py, px)
/// holding P[r * sh + py][col * sw + px] for hq x wq positions (r, col).
/// Output pixel (oy, ox) at kernel position (y, x) reads P[oy * sh + y * dh]
/// [ox * sw + x * dw], which is position (oy + y * dh / sh, ox + x * dw / sw)
/// of plane (y * dh % sh, x * dw % sw). Numbering the output pixels
/// q = oy * wq + ox, with wq - ow extra columns per output row that are
/// computed and dropped, turns each row (ci, y, x) of the im2col matrix into
/// one contiguous run of a plane, which the GEMM packs with two vector
/// loads (OffsetRowsB): no im2col matrix, no padding checks, no runs; the
/// price is the planes (a copy of the input) and the extra columns (2 of
/// every 58 at 56 x 56, 2 of 9 at 7 x 7). A unit-stride convolution
/// without padding reads its input in place as its one plane. The GEMM
/// writes output rows of wq columns into a per-thread tile, copied into the
/// output without the extra columns (with the accumulation and the ReLU);
/// with wq == ow it writes the output itself.
/// The filter `a` is F x (C*KH*KW); the output's pixels have unit stride.
/// With `bias` (F values `biasStride` apart), bias[f] goes into the copy
/// (or, writing the output itself, into each block before its GEMM).
///
/// When the output has fewer columns than a micro-tile has (small maps,
/// e.g. ResNet-18's last stage at 64 x 64: 6 columns of 32) and at least
/// two micro-tiles of filters, the product is transposed: the pixels
/// become the rows (packed straight from the planes, gemmOffsetColumnsA)
/// and the filters the columns (the filter's transpose, packed once per
/// artifact when it is a registered constant), so no lanes idle; the tile
/// is then transposed into the output.
///
/// Computed directly (`choice`; DirectConv in Gemm.h) there is no GEMM:
/// output rows and filter panels go to threads, each computing its part
/// with the direct micro-kernel over the planes, whose channels are
/// interleaved in blocks of kChannelBlock when they divide C (the filter
/// then packed in their order, panel-major).
///
/// Two convolutions in a row (telarrt_conv2d_pair_nchw_f32) pass the planes
/// between them: the first, computed directly, writes its output into
/// `toPlanes` (DirectConv::planes: the second's planes, whose borders the
/// caller zeroes) instead of `output`; the second reads `givenPlanes` (its
/// own planes, channels interleaved, computed directly) instead of copying
/// `input` into planes. A channel-blocked output (TELAR_KERNEL_BLOCKED_OUTPUT)
/// is such a target without the borders, which `accumulate` then adds to;
/// a channel-blocked input (`blockedInput`, interleaved planes only) is
/// copied into the planes row by row, no transpose.
void convPhasePlanes(const Env &env, const View &a, const float *input,
                     const int64_t *ist, float *output, const int64_t *ost,
                     const ConvShape &s, bool accumulate, bool relu,
                     const float *bias, int64_t biasStride, DirectChoice choice,
                     const PlanesTarget *toPlanes,
                     const float *givenPlanes,
                     const detail::DirectPool *toPool, bool blockedInput) {
  GemmKernel kernel = env.kernel;
  int64_t spanH = (s.kh - 1) * s.dh, spanW = (s.kw - 1) * s.dw;
  int64_t phases = s.sh * s.sw;
  // Direct on whole blocks of channels: planes of interleaved channels.
  constexpr int64_t kBlock = detail::kChannelBlock;
  bool blocks = s.c % kBlock == 0;
  int64_t window = s.kh * s.kw;
  const detail::PackedB *directFilter = nullptr;
  if (choice != DirectChoice::Never)
    directFilter =
        blocks ? detail::constantPackedConvFilter(env.constants, kernel, a,
                                                  window)
               : detail::constantPackedB(env.constants, kernel, a.transposed());
  bool directMethod =
      choice == DirectChoice::Always ||
      (choice == DirectChoice::Auto &&
       (directFilter || s.n * s.oh * s.ow >= kDirectMinPixelsToPack));
  bool interleaved = directMethod && blocks;
  assert((!toPool || (directMethod && !accumulate && !toPlanes)) &&
         "pooling needs the direct method");
  assert(!toPlanes || directMethod);
  assert((!givenPlanes || interleaved) && (!blockedInput || interleaved) &&
         "planes need the direct method");
  bool inPlace = !interleaved && s.sh == 1 && s.sw == 1 && s.padTop == 0 &&
                 s.padLeft == 0 &&
                 ist[3] == 1 && s.oh + spanH <= s.h && s.ow + spanW <= s.w &&
                 ist[2] >= s.w;
  int64_t wq = inPlace ? ist[2] : s.ow + spanW / s.sw;
  int64_t hq = s.oh + spanH / s.sh;
  int64_t planeSize = hq * wq;
  int64_t channelStride = inPlace ? ist[1] : phases * planeSize;
  int64_t depth = s.c * s.kh * s.kw;
  int64_t columns = (s.oh - 1) * wq + s.ow;
  bool direct = wq == s.ow;

  // The planes the kernel reads (a 1x1 stride-2 kernel reads one of 4),
  // and each im2col row's offset: the parts of kernel row y and kernel
  // column x once, then per channel.
  std::vector<char> planeUsed(static_cast<size_t>(phases), 0);
  std::vector<int64_t> rowPart(static_cast<size_t>(s.kh)),
      colPart(static_cast<size_t>(s.kw));
  for (int64_t y = 0; y < s.kh; ++y)
    rowPart[y] = (y * s.dh % s.sh) * s.sw * planeSize + y * s.dh / s.sh * wq;
  for (int64_t x = 0; x < s.kw; ++x)
    colPart[x] = (x * s.dw % s.sw) * planeSize + x * s.dw / s.sw;
  for (int64_t y = 0; y < s.kh; ++y)
    for (int64_t x = 0; x < s.kw; ++x)
      planeUsed[y * s.dh % s.sh * s.sw + x * s.dw % s.sw] = 1;
  std::vector<int64_t> offsets(static_cast<size_t>(depth));
  if (interleaved) {
    // k = (channel block, kernel position, channel in the block).
    for (int64_t cb = 0, k = 0; cb < s.c / kBlock; ++cb)
      for (int64_t y = 0; y < s.kh; ++y)
        for (int64_t x = 0; x < s.kw; ++x)
          for (int64_t cl = 0; cl < kBlock; ++cl)
            offsets[k++] = cb * kBlock * channelStride +
                           (rowPart[y] + colPart[x]) * kBlock + cl;
  } else {
    for (int64_t ci = 0, k = 0; ci < s.c; ++ci)
      for (int64_t y = 0; y < s.kh; ++y)
        for (int64_t x = 0; x < s.kw; ++x)
          offsets[k++] = ci * channelStride + rowPart[y] + colPart[x];
  }

  // Work items: blocks of filters times tiles of columns, both of whole
  // micro-tiles. Each thread gets the same number of items; the split of
  // the filters is the one (dividing the threads) that gives the fewest
  // micro-tiles to the busiest thread (at 14 x 14, 256 filters, 2 threads:
  // 7 column panels split 4 + 3 against 22 row panels 11 + 11). Then the
  // columns are cut into tiles whose output rows fit in L2.
  int64_t tileCols = detail::gemmTileCols(kernel);
  int64_t tileRows = detail::gemmTileRows(kernel);
  int64_t colPanels = (columns + tileCols - 1) / tileCols;
  int64_t rowPanels = (s.f + tileRows - 1) / tileRows;
  int threads = availableThreads();
  double work = double(s.f) * double(depth) * double(columns);
  bool parallel = threads > 1 && work >= kMinParallelWork;
  auto ceilDiv = [](int64_t a, int64_t b) { return (a + b - 1) / b; };
  int64_t rowBlocks = 1, colGroups = 1;
  if (parallel) {
    int64_t best = -1;
    for (int64_t rb = 1; rb <= threads; ++rb) {
      if (threads % rb || rb > rowPanels || threads / rb > colPanels)
        continue;
      int64_t cost = ceilDiv(colPanels, threads / rb) * ceilDiv(rowPanels, rb);
      if (best < 0 || cost < best) {
        best = cost;
        rowBlocks = rb;
        colGroups = threads / rb;
      }
    }
  }
  int64_t blockRows = ceilDiv(rowPanels, rowBlocks) * tileRows;
  int64_t fitPanels = std::max<int64_t>(
      1, kConvTileBytes / int64_t(sizeof(float)) / blockRows / tileCols);
  // Tiles: a multiple of the column groups, each at most fitPanels wide.
  int64_t colTiles =
      std::min(colPanels, ceilDiv(ceilDiv(colPanels, fitPanels), colGroups) *
                              colGroups);
  int64_t colTile = ceilDiv(colPanels, colTiles) * tileCols;
  colTiles = ceilDiv(columns, colTile);
  int64_t items = colTiles * rowBlocks;
  // Transposed (pixels as rows): blocks of filters, whole micro-tiles of
  // columns, one per thread.
  bool transposed = columns < tileCols && s.f >= 2 * tileCols;
  const detail::PackedB *packedFilter = nullptr;
  if (transposed) {
    rowBlocks = 1;
    colTiles = 1;
    items = parallel ? std::min<int64_t>(threads, ceilDiv(s.f, tileCols)) : 1;
    packedFilter =
        detail::constantPackedB(env.constants, kernel, a.transposed());
  }
  // Direct (TELARRT_CONV_DIRECT): groups of output rows times groups of
  // filter panels, the split (dividing the threads) that gives the busiest
  // thread the least work. On a tie, over interleaved planes, the split
  // whose threads read the fewest bytes each (their part of the planes plus
  // their part of the filter): rows for ResNet-18's 56 x 56 layers (0.86
  // MB of planes, 0.15 MB of filter; 2 threads: 0.82 -> 0.77 ms each, the
  // strided 64 -> 128 one 0.48 -> 0.43), filters for its small maps and
  // large filters (64 x 64 input: rows made the whole model 1.3x slower);
  // over planes of single channels (the stem's 3) filters first (rows:
  // 0.84 -> 0.97 ms).
  int64_t panels = ceilDiv(s.f, tileCols);
  int64_t pixelGroups = 1, filterGroups = 1;
  detail::PackedB ownFilter{};
  if (directMethod) {
    transposed = false;
    if (parallel) {
      int64_t best = -1;
      double bestBytes = 0;
      double planeBytes = double(s.c) * double(channelStride),
             filterBytes = double(s.f) * double(depth);
      // In a pair (telarrt_conv2d_pair_nchw_f32) with a small filter, rows
      // on a tie: each thread then reads mostly the intermediate's rows it
      // wrote itself (ResNet-18 at 64 x 64, its two 64-channel pairs on 2
      // threads: 0.150 -> 0.139 ms each; with large filters the threads
      // would each read all of them: the whole model 1.3x slower).
      bool pairRows = (toPlanes || givenPlanes) &&
                      filterBytes * sizeof(float) <= kPairRowsMaxFilterBytes;
      for (int64_t fg = threads; fg >= 1; --fg) {
        if (threads % fg || fg > panels || threads / fg > s.oh)
          continue;
        int64_t cost = ceilDiv(s.oh, threads / fg) * ceilDiv(panels, fg);
        double bytes = planeBytes / double(threads / fg) + filterBytes / fg;
        if (best < 0 || cost < best ||
            (cost == best && pairRows && fg < filterGroups) ||
            (cost == best && !pairRows && interleaved && bytes < bestBytes)) {
          best = cost;
          bestBytes = bytes;
          filterGroups = fg;
          pixelGroups = threads / fg;
        }
      }
    }
    // Pooled: each thread takes whole output planes (a window may span
    // any rows).
    if (toPool) {
      pixelGroups = 1;
      filterGroups = parallel ? std::min<int64_t>(threads, panels) : 1;
    }
    items = pixelGroups * filterGroups;
    if (!directFilter) {
      // Not a registered constant: pack the filter's transpose now, as the
      // constant cache would have.
      ownFilter = detail::packConvFilter(
          kernel, a, interleaved ? window : 0,
          scratch(2, static_cast<size_t>(detail::convFilterFloats(kernel, a))));
      directFilter = &ownFilter;
    }
  }
  // Transposed block b: filters [filterEdge(b), filterEdge(b + 1)).
  auto filterEdge = [&](int64_t b) {
    return b == items ? s.f
                      : std::min(s.f, ceilDiv(s.f, tileCols) * b / items *
                                          tileCols);
  };
  parallel = parallel && items > 1;
  int used = parallel ? static_cast<int>(std::min<int64_t>(threads, items))
                      : 1;
  // Row block b: filters [rowEdge(b), rowEdge(b + 1)).
  auto rowEdge = [&](int64_t b) {
    return std::min(s.f, (rowPanels * b + rowBlocks / 2) / rowBlocks *
                             tileRows);
  };

  float *planes =
      inPlace || givenPlanes
          ? nullptr
          : scratch(0, static_cast<size_t>(s.c * channelStride));
  for (int64_t img = 0; img < s.n; ++img) {
    const float *image = givenPlanes ? nullptr : input + img * ist[0];
    const float *base = givenPlanes ? givenPlanes : inPlace ? image : planes;
    float *imageOut = toPlanes ? nullptr : output + img * ost[0];
#pragma omp parallel num_threads(used) if (parallel)
    {
      if (givenPlanes) {
        // Filled by the convolution before.
      } else if (interleaved) {
        // Block by block and plane by plane: each row interleaves the rows
        // of kBlock channels (zero rows and columns for the padding).
#pragma omp for schedule(static)
        for (int64_t bp = 0; bp < s.c / kBlock * phases; ++bp) {
          int64_t cb = bp / phases, py = bp % phases / s.sw, px = bp % s.sw;
          if (!planeUsed[py * s.sw + px])
            continue;
          float *plane = planes + cb * kBlock * channelStride +
                         (py * s.sw + px) * planeSize * kBlock;
          int64_t lo =
              std::clamp<int64_t>(-floorDiv(px - s.padLeft, s.sw), 0, wq);
          int64_t hi = std::clamp<int64_t>(
              floorDiv(s.w - 1 + s.padLeft - px, s.sw) + 1, lo, wq);
          const float *rows[kBlock];
          for (int64_t r = 0; r < hq; ++r) {
            float *row = plane + r * wq * kBlock;
            int64_t iy = r * s.sh + py - s.padTop;
            if (iy < 0 || iy >= s.h || lo == hi) {
              std::fill(row, row + wq * kBlock, 0.0f);
              continue;
            }
            std::fill(row, row + lo * kBlock, 0.0f);
            std::fill(row + hi * kBlock, row + wq * kBlock, 0.0f);
            if (blockedInput) {
              // Already interleaved: whole pixels (kBlock channels) apart.
              const float *src = image + (cb * s.h + iy) * s.w * kBlock +
                                 (lo * s.sw + px - s.padLeft) * kBlock;
              if (s.sw == 1) {
                std::copy(src, src + (hi - lo) * kBlock, row + lo * kBlock);
                continue;
              }
              for (int64_t i = lo; i < hi; ++i, src += s.sw * kBlock)
                std::copy(src, src + kBlock, row + i * kBlock);
              continue;
            }
            for (int64_t cl = 0; cl < kBlock; ++cl)
              rows[cl] = image + (cb * kBlock + cl) * ist[1] + iy * ist[2] +
                         (lo * s.sw + px - s.padLeft) * ist[3];
            detail::interleaveChannels(kernel, rows, s.sw * ist[3], hi - lo,
                                       row + lo * kBlock);
          }
        }
      } else if (!inPlace) {
        // Plane by plane (a 3-channel stem has 12 planes to share out).
#pragma omp for schedule(static)
        for (int64_t cp = 0; cp < s.c * phases; ++cp) {
          int64_t ci = cp / phases, py = cp % phases / s.sw, px = cp % s.sw;
          if (!planeUsed[py * s.sw + px])
            continue;
          float *plane =
              planes + ci * channelStride + (py * s.sw + px) * planeSize;
          // Plane columns [lo, hi) lie inside the image.
          int64_t lo =
              std::clamp<int64_t>(-floorDiv(px - s.padLeft, s.sw), 0, wq);
          int64_t hi = std::clamp<int64_t>(
              floorDiv(s.w - 1 + s.padLeft - px, s.sw) + 1, lo, wq);
          for (int64_t r = 0; r < hq; ++r) {
            float *row = plane + r * wq;
            int64_t iy = r * s.sh + py - s.padTop;
            if (iy < 0 || iy >= s.h || lo == hi) {
              std::fill(row, row + wq, 0.0f);
              continue;
            }
            std::fill(row, row + lo, 0.0f);
            std::fill(row + hi, row + wq, 0.0f);
            const float *line = image + ci * ist[1] + iy * ist[2] +
                                (lo * s.sw + px - s.padLeft) * ist[3];
            int64_t step = s.sw * ist[3];
            if (step == 1)
              std::copy(line, line + (hi - lo), row + lo);
            else
              for (int64_t i = lo; i < hi; ++i, line += step)
                row[i] = *line;
          }
        }
      }
      int64_t directItems = directMethod ? items : 0;
#pragma omp for schedule(static) nowait
      for (int64_t item = 0; item < directItems; ++item) {
        int64_t pg = item / filterGroups, fg = item % filterGroups;
        int64_t pixelStride = interleaved ? kBlock : 1;
        detail::DirectConv d{base,
                             offsets.data(),
                             depth,
                             pixelStride,
                             wq * pixelStride,
                             s.ow,
                             kDirectBlockPixels,
                             imageOut,
                             ost[1],
                             bias,
                             biasStride,
                             accumulate,
                             relu};
        d.pool = toPool;
        if (toPlanes) {
          d.planes = toPlanes->origin;
          d.planesBlockStride = toPlanes->blockStride;
          d.planesRowStride = toPlanes->rowStride;
        }
        detail::convDirect(
            kernel, d, *directFilter, s.oh * pg / pixelGroups,
            s.oh * (pg + 1) / pixelGroups,
            std::min(s.f, panels * fg / filterGroups * tileCols),
            std::min(s.f, panels * (fg + 1) / filterGroups * tileCols));
      }
      int64_t transposedItems = transposed ? items : 0;
      int64_t plainItems = transposed || directMethod ? 0 : items;
#pragma omp for schedule(static) nowait
      for (int64_t item = 0; item < transposedItems; ++item) {
        int64_t f0 = filterEdge(item), f1 = filterEdge(item + 1);
        if (f0 >= f1)
          continue;
        // tile[q][f - f0] = sum_k planes[offsets[k] + q] * filter[f][k].
        detail::PackedB columnsOf;
        if (packedFilter) {
          columnsOf = *packedFilter;
          columnsOf.col0 += f0;
        }
        View wt = a.transposed();
        int64_t ldt = f1 - f0;
        float *tile = scratch(1, static_cast<size_t>(columns * ldt));
        detail::gemmOffsetColumnsA(
            kernel, {base, offsets.data()}, depth,
            {wt.p + f0 * wt.cs, wt.rows, ldt, wt.rs, wt.cs},
            packedFilter ? &columnsOf : nullptr, {tile, columns, ldt, ldt, 1},
            /*accumulate=*/false);
        for (int64_t f = f0; f < f1; ++f) {
          float b = bias ? bias[f * biasStride] : 0.0f;
          float *dst = imageOut + f * ost[1];
          for (int64_t q = 0; q < columns; ++q) {
            int64_t oy = q / wq, ox = q % wq;
            if (ox >= s.ow)
              continue;
            float &o = dst[oy * s.ow + ox];
            float v = tile[q * ldt + (f - f0)] + b;
            v = accumulate ? o + v : v;
            o = relu && v < 0.0f ? 0.0f : v;
          }
        }
      }
#pragma omp for schedule(static) nowait
      for (int64_t item = 0; item < plainItems; ++item) {
        int64_t rb = item / colTiles, ct = item % colTiles;
        int64_t r0 = rowEdge(rb);
        int64_t r1 = rb + 1 == rowBlocks ? s.f : rowEdge(rb + 1);
        if (r0 >= r1)
          continue;
        int64_t c0 = ct * colTile, c1 = std::min(columns, c0 + colTile);
        View rows{a.p + r0 * a.rs, r1 - r0, depth, a.rs, a.cs};
        if (direct) {
          if (bias)
            for (int64_t i = r0; i < r1; ++i) {
              float *o = imageOut + i * ost[1];
              float b = bias[i * biasStride];
              for (int64_t q = c0; q < c1; ++q)
                o[q] = accumulate ? o[q] + b : b;
            }
          detail::gemmOffsetRows(
              kernel, rows, {base + c0, offsets.data(), relu},
              {imageOut + r0 * ost[1] + c0, r1 - r0, c1 - c0, ost[1], 1},
              accumulate || bias);
          continue;
        }
        int64_t ldt = c1 - c0;
        float *tile = scratch(1, static_cast<size_t>((r1 - r0) * ldt));
        detail::gemmOffsetRows(kernel, rows, {base + c0, offsets.data()},
                               {tile, r1 - r0, ldt, ldt, 1},
                               /*accumulate=*/false);
        // The tile's output rows without their extra columns.
        for (int64_t q = c0; q < c1;) {
          int64_t oy = q / wq, ox = q % wq;
          int64_t end = std::min(c1, (oy + 1) * wq);
          int64_t count = std::min(end, oy * wq + s.ow) - q;
          for (int64_t i = r0; i < r1 && count > 0; ++i) {
            const float *src = tile + (i - r0) * ldt + (q - c0);
            float *dst = imageOut + i * ost[1] + oy * s.ow + ox;
            float b = bias ? bias[i * biasStride] : 0.0f;
            // Each case its own loop, for the vectoriser; NaN stays NaN
            // under the ReLU (arith.maximumf).
            if (!accumulate && !relu && !bias) {
              std::copy(src, src + count, dst);
            } else if (!accumulate && !relu) {
              for (int64_t t = 0; t < count; ++t)
                dst[t] = src[t] + b;
            } else if (!accumulate) {
              for (int64_t t = 0; t < count; ++t) {
                float v = src[t] + b;
                dst[t] = v < 0.0f ? 0.0f : v;
              }
            } else if (!relu) {
              for (int64_t t = 0; t < count; ++t)
                dst[t] = dst[t] + (src[t] + b);
            } else {
              for (int64_t t = 0; t < count; ++t) {
                float v = dst[t] + (src[t] + b);
                dst[t] = v < 0.0f ? 0.0f : v;
              }
            }
          }
          q = end;
        }
      }
    }
  }
}
} // namespace telar::runtime::kernels
