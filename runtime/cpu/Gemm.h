//===- Gemm.h - The runtime's own f32 GEMM ----------------------*- C++ -*-===//
//
// A BLIS-style single-precision GEMM (packed panels, a register-blocked
// micro-kernel, cache blocking) compiled for AVX-512 and for AVX2+FMA and
// chosen at run time by what the CPU supports. The kernels (Matmul.cpp,
// Conv*.cpp) call it for every product, with OpenBLAS as the fallback on
// CPUs that have neither (and for matrix-vector products).
//
//===----------------------------------------------------------------------===//

#ifndef TELAR_RUNTIME_GEMM_H
#define TELAR_RUNTIME_GEMM_H

#include <cstdint>

namespace telar::runtime::detail {

/// A rank-2 strided f32 view: element (i, j) is p[i * rs + j * cs]. Strides
/// may be anything (zero, negative, non-unit).
struct MatrixView {
  float *p;
  int64_t rows, cols, rs, cs;

  float &at(int64_t i, int64_t j) const { return p[i * rs + j * cs]; }
  MatrixView transposed() const { return {p, cols, rows, cs, rs}; }
};

/// The GEMM implementations (the values of TELARRT_GEMM_* in Abi.h).
enum class GemmKernel { Auto = 0, OpenBlas = 1, Avx2 = 2, Avx512 = 3 };

/// Whether this CPU (and OS) runs `kernel`; OpenBlas and Auto always.
bool gemmKernelSupported(GemmKernel kernel);

/// The fastest kernel this CPU runs.
GemmKernel bestGemmKernel();

/// Micro-tile shape of `kernel` (rows x columns of C per micro-kernel
/// call), for splitting work across threads on tile boundaries; 1 x 1 for
/// OpenBlas.
int gemmTileRows(GemmKernel kernel);
int gemmTileCols(GemmKernel kernel);

/// A `b` packed ahead of time for one kernel (Avx2 or Avx512): all of its
/// panels, kc-deep block after kc-deep block (kc = gemmPanelDepth); each
/// block holds ceil(n / NR) panels of depth x NR, row-major, the last one
/// zero-padded. The panel of the block starting at row `pc` (depth d) and
/// of the columns starting at `col` (a multiple of NR) is at
/// data + pc * stride + col * d. A view of the columns from `col0` on (a
/// multiple of NR) uses the same data.
struct PackedB {
  const float *data;
  GemmKernel kernel;
  int64_t kc;     // depth of the blocks (the last may be shallower)
  int64_t stride; // floats per row of a block: ceil(n / NR) * NR
  int64_t col0;   // the view's first column in the packed matrix
  /// Panel-major instead (convolution filters, for convDirect only, which
  /// reads a panel's blocks in turn: one sequential stream it prefetches
  /// ahead in): the block at row `pc` of the panel at column `col` is at
  /// data + col * k + pc * NR (k the depth of the matrix).
  bool panelMajor = false;
};

/// The depth of the blocks the GEMM of `kernel` cuts a contraction of
/// length `k` into (what a PackedB must use).
int64_t gemmPanelDepth(GemmKernel kernel, int64_t k);

/// Packs rows [k0, k0 + kc) and columns [j0, j0 + nc) of `b` (j0 a multiple
/// of NR) into ceil(nc / NR) panels of kc x NR at `dst`, as PackedB lays
/// them out.
void gemmPackB(GemmKernel kernel, const MatrixView &b, int64_t k0, int64_t kc,
               int64_t j0, int64_t nc, float *dst);

/// c += a . b on the calling thread with `kernel` (Avx2 or Avx512, which
/// the CPU must support); without `accumulate`, c = a . b (c's old
/// contents are never read: garbage or NaNs in it do not matter). Shapes
/// must match (a: m x k, b: k x n, c: m x n); any strides; c must not
/// overlap a or b. With `packed` (packed for `kernel`, of `b`), b's panels
/// are read from there instead of packed.
void gemm(GemmKernel kernel, const MatrixView &a, const MatrixView &b,
          const MatrixView &c, const PackedB *packed, bool accumulate);

/// The im2col matrix of one image of an NCHW convolution, as the `b` of a
/// GEMM that packs its panels straight from the image (no im2col matrix in
/// between): row r = (ci * kh + y) * kw + x and column j (output pixel
/// q = p0 + j, row-major over the output: oy = q / ow, ox = q % ow) hold
/// image[ci * cs + iy * hs + ix * ws] with iy = oy * sh + y * dh - padTop and
/// ix = ox * sw + x * dw - padLeft, or 0 when (iy, ix) is outside the
/// h x w image (implicit zero padding).
struct Im2colB {
  const float *image;
  int64_t cs, hs, ws;       // input strides: channel, row, column
  int64_t h, w;             // input size
  int64_t kh, kw;           // kernel size
  int64_t sh, sw, dh, dw;   // strides and dilations
  int64_t padTop, padLeft;  // zero rows above, zero columns left of the image
  int64_t ow;               // output width
  int64_t p0;               // the output pixel of column 0
  bool relu = false;        // epilogue of gemmIm2col: then c = max(c, 0)
};

/// c += a . b (c = a . b without `accumulate`, as for gemm()) with `b` the
/// k x n im2col matrix `conv` (k = a.cols, n = c.cols), on the calling
/// thread with `kernel` (Avx2 or Avx512), then c = max(c, 0) when conv.relu
/// (each block of c once it is complete).
/// c's columns must be contiguous (c.cs == 1, or one column). Bitwise the
/// same as gemm() on the materialised im2col matrix (same blocking, same
/// order of operations).
void gemmIm2col(GemmKernel kernel, const MatrixView &a, const Im2colB &conv,
                const MatrixView &c, bool accumulate);

/// The `b` of a GEMM whose rows are contiguous runs at offsets from `base`:
/// element (k, j) is base[rowOffsets[k] + j] (rowOffsets has a.cols
/// entries). A convolution's im2col matrix is one over its input laid out
/// as phase planes (convPhasePlanes in ConvPlanes.cpp). Its panels are packed
/// as an im2col matrix's are (one row is two vector loads: measured faster
/// than reading the unaligned rows in place, ~15 % at 7 x 7).
struct OffsetRowsB {
  const float *base;
  const int64_t *rowOffsets;
  bool relu = false; // epilogue of gemmOffsetRows: then c = max(c, 0)
};

/// c += a . b (c = a . b without `accumulate`, as for gemm()) with `b` the
/// matrix `rows` describes (its panels packed from there), on the calling
/// thread with `kernel` (Avx2 or Avx512), then c = max(c, 0) when rows.relu (each block of c once it is
/// complete). c's columns must be contiguous (c.cs == 1, or one column).
/// The same blocking and order of operations as gemm(), so bitwise the
/// same result as gemm() on the materialised b (with the same c).
void gemmOffsetRows(GemmKernel kernel, const MatrixView &a,
                    const OffsetRowsB &rows, const MatrixView &c,
                    bool accumulate);

/// c += a . b (c = a . b without `accumulate`) with `a` the m x k matrix
/// (m = c.rows) whose element (i, k) is a.base[a.rowOffsets[k] + i]: a
/// convolution's transposed im2col matrix over phase planes, with the
/// pixels as rows. `b` and `packed` as for gemm(); c's columns must be
/// contiguous. On the calling thread with `kernel` (Avx2 or Avx512).
void gemmOffsetColumnsA(GemmKernel kernel, const OffsetRowsB &a, int64_t k,
                        const MatrixView &b, const PackedB *packed,
                        const MatrixView &c, bool accumulate);

/// Channels per block of interleaved planes (DirectConv).
constexpr int64_t kChannelBlock = 16;

/// One image's convolution over phase planes computed directly: output
/// pixel (oy, ox) of filter f is
///   out[f * filterStride + oy * ow + ox]
///     = sum_k base[oy * rowStride + ox * pixelStride + offsets[k]]
///       * filter[f][k]
/// (plus bias[f * biasStride] with `bias`; plus the old value with
/// `accumulate`; then max(0, .) with `relu`). Its micro-kernel takes
/// output pixels as its rows, broadcast from the planes in place (nothing
/// of the input is packed), and kNR filters as its columns, read from the
/// packed transpose of the filter; tiles follow the output rows, so no
/// lane computes a pixel that is dropped. The results go through a
/// per-thread tile of blockPixels pixels at most, transposed into the
/// output with the epilogue. With `planes`, the output goes instead (with
/// the epilogue but no accumulation) into another convolution's planes of
/// interleaved channels, no transpose: output pixel (oy, ox) of filter f at
///   planes[(f / kChannelBlock) * planesBlockStride + oy * planesRowStride
///          + ox * kChannelBlock + f % kChannelBlock].
struct DirectConv {
  const float *base;      // the planes (or the input read in place)
  const int64_t *offsets; // depth entries: where contraction index k reads
  int64_t depth;          // C * KH * KW
  int64_t pixelStride;    // between output pixels in the planes: 1 or
                          // kChannelBlock (interleaved channels)
  int64_t rowStride;      // between output rows in the planes
  int64_t ow;             // output width
  int64_t blockPixels;    // pixels per tile block (whole output rows)
  float *out;             // filter 0's output map (ow-wide rows, dense)
  int64_t filterStride;   // between filters' output maps
  const float *bias = nullptr;
  int64_t biasStride = 0;
  bool accumulate = false, relu = false;
  /// Instead of `out`: planes of interleaved channels (a pair's
  /// intermediate, or a channel-blocked output, accumulated into with
  /// `accumulate`): filter f's pixel (y, x) at planes[f / kChannelBlock *
  /// planesBlockStride + y * planesRowStride + x * kChannelBlock + f %
  /// kChannelBlock].
  float *planes = nullptr;
  int64_t planesBlockStride = 0, planesRowStride = 0;
  /// Instead of `out`: the max pooling of the output (over the oh rows the
  /// caller's row range must span, unpadded: windows clipped to the
  /// output), with the bias and the ReLU after the max (the same values),
  /// no accumulation; the output itself is never stored.
  const struct DirectPool *pool = nullptr;
};

/// The max pooling a DirectConv applies to its output (dilation 1):
/// pooled pixel (py, px) of filter f at out[f * filterStride + py * ow + px]
/// is the max over the window's rows py * sh - padTop + [0, kh) and columns
/// px * sw - padLeft + [0, kw) that lie inside the convolution's oh x ow.
struct DirectPool {
  float *out;
  int64_t filterStride, oh, ow, kh, kw, sh, sw, padTop, padLeft;
  /// Nonzero: the pooled output channel-blocked instead (NCHW16c, pixel
  /// (py, px) of filter f at out[f / kChannelBlock * blockStride + (py * ow
  /// + px) * kChannelBlock + f % kChannelBlock]; filterStride unused).
  int64_t blockStride = 0;
};

/// Output rows [y0, y1) of filters [f0, f1) of `conv` on the calling
/// thread with `kernel` (Avx2 or Avx512), `filter` the filter's transpose
/// (depth x F) packed for it (col0 0; f0 a multiple of gemmTileCols).
void convDirect(GemmKernel kernel, const DirectConv &conv,
                const PackedB &filter, int64_t y0, int64_t y1, int64_t f0,
                int64_t f1);

/// dst[x * kChannelBlock + c] = rows[c][x * step] for x < n, c <
/// kChannelBlock, with `kernel` (Avx2 or Avx512): a block of channel rows
/// interleaved, as the planes of a DirectConv with pixelStride
/// kChannelBlock hold them.
void interleaveChannels(GemmKernel kernel, const float *const *rows,
                        int64_t step, int64_t n, float *dst);

/// One image plane's max pooling: out[oy * outRow + ox] = the max of
/// in[iy * inRow + ix] over iy = oy * sh + ky * dh - padTop, ix = ox * sw +
/// kx * dw - padLeft (ky < kh, kx < kw) inside the h x w image (-inf for a
/// window wholly outside), NaN when any of them is (arith.maximumf).
struct MaxPoolPlane {
  const float *in;
  int64_t h, w, inRow;
  float *out;
  int64_t oh, ow, outRow;
  int64_t kh, kw, sh, sw, dh, dw, padTop, padLeft;
};

/// Computes `p` with `kernel` (Avx2 or Avx512) on the calling thread,
/// W output pixels of a row at a time.
void maxPoolPlane(GemmKernel kernel, const MaxPoolPlane &p);

class ConstantCache;

/// The packed form of `b` for `kernel` when `b` lies wholly inside a range
/// registered as constant in `cache` (PrepackedWeights in Runtime.h; may be
/// null: none), built on first use and kept until the range is
/// unregistered; null otherwise (also when TELAR_GEMM_PREPACK=0, or when
/// out of memory for the copy). Thread-safe.
const PackedB *constantPackedB(ConstantCache *cache, GemmKernel kernel,
                               const MatrixView &b);

/// The packed transpose of the F x (C * window) filter `filter` of a
/// convolution over interleaved planes (C a multiple of kChannelBlock,
/// window = KH * KW), with the contraction in their order: channel block,
/// then window position, then channel within the block; panel-major. As
/// constantPackedB: built on first use when `filter` is a registered
/// constant, else null.
const PackedB *constantPackedConvFilter(ConstantCache *cache,
                                        GemmKernel kernel,
                                        const MatrixView &filter,
                                        int64_t window);

/// The same packed into `dst` now (convFilterFloats floats); with window
/// 0, the filter's transpose as it is, as constantPackedB packs it.
PackedB packConvFilter(GemmKernel kernel, const MatrixView &filter,
                       int64_t window, float *dst);
int64_t convFilterFloats(GemmKernel kernel, const MatrixView &filter);

} // namespace telar::runtime::detail

#endif // TELAR_RUNTIME_GEMM_H
