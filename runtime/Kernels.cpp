//===- Kernels.cpp - Library kernels called by generated programs ----------===//
//
// Matmul, batch matmul and NCHW convolution on f32 strided memrefs, on top
// of OpenBLAS's cblas_sgemm. The operands may be arbitrary views (offsets,
// transposes, non-unit strides); each one is passed to BLAS as it is when
// one of its strides is 1 (as a transposed operand when that is the row
// stride) and packed into a dense temporary otherwise.
//
//===----------------------------------------------------------------------===//

#include "telar/runtime/Abi.h"

#include <cblas.h>

#include <algorithm>
#include <climits>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <vector>

extern "C" {
// libomp (declared here rather than through omp.h, which would be GCC's).
void omp_set_num_threads(int);
int omp_get_max_threads(void);
}

namespace {

[[noreturn]] void fatal(const char *kernel, const char *format, ...) {
  std::fprintf(stderr, "telar runtime: %s: ", kernel);
  va_list args;
  va_start(args, format);
  std::vfprintf(stderr, format, args);
  va_end(args);
  std::fprintf(stderr, "\n");
  std::abort();
}

/// A rank-2 strided view: element (i, j) is p[i * rs + j * cs].
struct View {
  float *p;
  int64_t rows, cols, rs, cs;

  float &at(int64_t i, int64_t j) const { return p[i * rs + j * cs]; }
};

/// How an operand is handed to cblas_sgemm (row-major interface).
struct Operand {
  const float *p;
  CBLAS_TRANSPOSE trans;
  int ld;
};

bool fitsInt(int64_t v) { return v >= 0 && v <= INT_MAX; }

/// `v` as a row-major matrix with leading dimension `ld`, if its layout
/// allows (unit column stride, rows far enough apart).
bool asRowMajor(const View &v, int &ld) {
  int64_t minLd = std::max<int64_t>(1, v.cols);
  if (v.cols > 1 && v.cs != 1)
    return false;
  int64_t l = v.rows <= 1 ? minLd : v.rs;
  if (l < minLd || !fitsInt(l))
    return false;
  ld = static_cast<int>(l);
  return true;
}

/// `v` as the transpose of a row-major matrix (unit row stride).
bool asTransposed(const View &v, int &ld) {
  View t{v.p, v.cols, v.rows, v.cs, v.rs};
  return asRowMajor(t, ld);
}

/// Copies a view into a dense row-major buffer.
void pack(const View &v, std::vector<float> &buffer) {
  buffer.resize(static_cast<size_t>(v.rows * v.cols));
  for (int64_t i = 0; i < v.rows; ++i)
    for (int64_t j = 0; j < v.cols; ++j)
      buffer[i * v.cols + j] = v.at(i, j);
}

Operand prepare(const View &v, std::vector<float> &scratch) {
  int ld;
  if (asRowMajor(v, ld))
    return {v.p, CblasNoTrans, ld};
  if (asTransposed(v, ld))
    return {v.p, CblasTrans, ld};
  pack(v, scratch);
  return {scratch.data(), CblasNoTrans,
          static_cast<int>(std::max<int64_t>(1, v.cols))};
}

CBLAS_TRANSPOSE flip(CBLAS_TRANSPOSE t) {
  return t == CblasNoTrans ? CblasTrans : CblasNoTrans;
}

/// c += a . b for views of matching shapes.
void gemmAccumulate(const View &a, const View &b, const View &c) {
  int64_t m = c.rows, n = c.cols, k = a.cols;
  if (m == 0 || n == 0 || k == 0)
    return;
  if (!fitsInt(m) || !fitsInt(n) || !fitsInt(k))
    fatal("sgemm", "matrix of %lldx%lldx%lld is too large for BLAS",
          static_cast<long long>(m), static_cast<long long>(n),
          static_cast<long long>(k));
  std::vector<float> scratchA, scratchB;
  Operand oa = prepare(a, scratchA);
  Operand ob = prepare(b, scratchB);
  int ldc;
  if (asRowMajor(c, ldc)) {
    cblas_sgemm(CblasRowMajor, oa.trans, ob.trans, m, n, k, 1.0f, oa.p, oa.ld,
                ob.p, ob.ld, 1.0f, c.p, ldc);
  } else if (asTransposed(c, ldc)) {
    // c^T += b^T . a^T, with c^T row-major.
    cblas_sgemm(CblasRowMajor, flip(ob.trans), flip(oa.trans), n, m, k, 1.0f,
                ob.p, ob.ld, oa.p, oa.ld, 1.0f, c.p, ldc);
  } else {
    std::vector<float> dense;
    pack(c, dense);
    cblas_sgemm(CblasRowMajor, oa.trans, ob.trans, m, n, k, 1.0f, oa.p, oa.ld,
                ob.p, ob.ld, 1.0f, dense.data(), n);
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < n; ++j)
        c.at(i, j) = dense[i * n + j];
  }
}

/// The single stride of dimensions [first, last) of a view collapsed into
/// one, or false when they do not form one evenly strided sequence.
/// Dimensions of size 1 place no constraint.
bool collapsedStride(const int64_t *sizes, const int64_t *strides, int first,
                     int last, int64_t &stride) {
  // Walk from the innermost dimension out: each non-unit dimension must
  // step over exactly the elements inside it.
  int64_t inner = 1;    // elements covered so far
  int64_t unit = 0;     // stride of one step of the collapsed dimension
  bool haveUnit = false;
  for (int d = last - 1; d >= first; --d) {
    if (sizes[d] == 1)
      continue;
    if (!haveUnit) {
      unit = strides[d];
      haveUnit = true;
    } else if (strides[d] != unit * inner) {
      return false;
    }
    inner *= sizes[d];
  }
  stride = haveUnit ? unit : 1;
  return true;
}

} // namespace

extern "C" {

void _mlir_ciface_telarrt_matmul_f32(TelarMemRef2F32 *a, TelarMemRef2F32 *b,
                                     TelarMemRef2F32 *c) {
  if (a->sizes[0] != c->sizes[0] || b->sizes[1] != c->sizes[1] ||
      a->sizes[1] != b->sizes[0])
    fatal("telarrt_matmul_f32", "shapes %lldx%lld . %lldx%lld -> %lldx%lld",
          (long long)a->sizes[0], (long long)a->sizes[1],
          (long long)b->sizes[0], (long long)b->sizes[1],
          (long long)c->sizes[0], (long long)c->sizes[1]);
  gemmAccumulate({a->aligned + a->offset, a->sizes[0], a->sizes[1],
                  a->strides[0], a->strides[1]},
                 {b->aligned + b->offset, b->sizes[0], b->sizes[1],
                  b->strides[0], b->strides[1]},
                 {c->aligned + c->offset, c->sizes[0], c->sizes[1],
                  c->strides[0], c->strides[1]});
}

void _mlir_ciface_telarrt_batch_matmul_f32(TelarMemRef3F32 *a,
                                           TelarMemRef3F32 *b,
                                           TelarMemRef3F32 *c) {
  if (a->sizes[0] != c->sizes[0] || b->sizes[0] != c->sizes[0] ||
      a->sizes[1] != c->sizes[1] || b->sizes[2] != c->sizes[2] ||
      a->sizes[2] != b->sizes[1])
    fatal("telarrt_batch_matmul_f32",
          "shapes %lldx%lldx%lld . %lldx%lldx%lld -> %lldx%lldx%lld",
          (long long)a->sizes[0], (long long)a->sizes[1],
          (long long)a->sizes[2], (long long)b->sizes[0],
          (long long)b->sizes[1], (long long)b->sizes[2],
          (long long)c->sizes[0], (long long)c->sizes[1],
          (long long)c->sizes[2]);
  for (int64_t i = 0; i < c->sizes[0]; ++i)
    gemmAccumulate({a->aligned + a->offset + i * a->strides[0], a->sizes[1],
                    a->sizes[2], a->strides[1], a->strides[2]},
                   {b->aligned + b->offset + i * b->strides[0], b->sizes[1],
                    b->sizes[2], b->strides[1], b->strides[2]},
                   {c->aligned + c->offset + i * c->strides[0], c->sizes[1],
                    c->sizes[2], c->strides[1], c->strides[2]});
}

void _mlir_ciface_telarrt_conv2d_nchw_f32(TelarMemRef4F32 *in,
                                          TelarMemRef4F32 *filter,
                                          TelarMemRef4F32 *out, int64_t sh,
                                          int64_t sw, int64_t dh, int64_t dw) {
  const char *kernel = "telarrt_conv2d_nchw_f32";
  const int64_t *is = in->sizes, *fs = filter->sizes, *os = out->sizes;
  int64_t n = is[0], c = is[1], h = is[2], w = is[3];
  int64_t f = fs[0], kh = fs[2], kw = fs[3];
  int64_t oh = os[2], ow = os[3];
  if (os[0] != n || fs[1] != c || os[1] != f)
    fatal(kernel,
          "input %lldx%lldx%lldx%lld, filter %lldx%lldx%lldx%lld and output "
          "%lldx%lldx%lldx%lld do not match",
          (long long)n, (long long)c, (long long)h, (long long)w,
          (long long)f, (long long)fs[1], (long long)kh, (long long)kw,
          (long long)os[0], (long long)os[1], (long long)oh, (long long)ow);
  if (sh < 1 || sw < 1 || dh < 1 || dw < 1)
    fatal(kernel, "strides and dilations must be positive (%lld %lld %lld "
                  "%lld)",
          (long long)sh, (long long)sw, (long long)dh, (long long)dw);
  int64_t depth = c * kh * kw, pixels = oh * ow;
  if (n == 0 || f == 0 || pixels == 0 || depth == 0)
    return;
  if ((oh - 1) * sh + (kh - 1) * dh >= h || (ow - 1) * sw + (kw - 1) * dw >= w)
    fatal(kernel,
          "a %lldx%lld output with kernel %lldx%lld, strides %lldx%lld and "
          "dilations %lldx%lld reads past the %lldx%lld (padded) input",
          (long long)oh, (long long)ow, (long long)kh, (long long)kw,
          (long long)sh, (long long)sw, (long long)dh, (long long)dw,
          (long long)h, (long long)w);

  const int64_t *ist = in->strides, *fst = filter->strides,
                *ost = out->strides;
  const float *input = in->aligned + in->offset;
  float *output = out->aligned + out->offset;

  // The filter as an F x (C*KH*KW) matrix.
  int64_t filterCol;
  std::vector<float> packedFilter;
  View filterView{filter->aligned + filter->offset, f, depth, fst[0], 0};
  if (collapsedStride(fs, fst, 1, 4, filterCol)) {
    filterView.cs = filterCol;
  } else {
    packedFilter.resize(static_cast<size_t>(f * depth));
    for (int64_t i = 0; i < f; ++i)
      for (int64_t ci = 0; ci < c; ++ci)
        for (int64_t y = 0; y < kh; ++y)
          for (int64_t x = 0; x < kw; ++x)
            packedFilter[((i * c + ci) * kh + y) * kw + x] =
                filterView.p[i * fst[0] + ci * fst[1] + y * fst[2] + x * fst[3]];
    filterView = {packedFilter.data(), f, depth, depth, 1};
  }

  // Each image's output as an F x (OH*OW) matrix; when the output pixels do
  // not collapse, accumulate into a dense temporary and add it back.
  int64_t outCol;
  bool outCollapses = collapsedStride(os, ost, 2, 4, outCol);
  std::vector<float> dense;

  // Each image's im2col matrix: (C*KH*KW) x (OH*OW). A 1x1 unit-stride
  // kernel reads the input in place when its pixels collapse.
  int64_t pixelStrides[2] = {ist[2] * sh, ist[3] * sw};
  int64_t pixelSizes[2] = {oh, ow};
  int64_t inCol;
  bool direct = kh == 1 && kw == 1 &&
                collapsedStride(pixelSizes, pixelStrides, 0, 2, inCol);
  std::vector<float> columns;
  if (!direct)
    columns.resize(static_cast<size_t>(depth * pixels));

  for (int64_t img = 0; img < n; ++img) {
    const float *image = input + img * ist[0];
    View colView;
    if (direct) {
      colView = {const_cast<float *>(image), c, pixels, ist[1], inCol};
    } else {
      for (int64_t ci = 0; ci < c; ++ci)
        for (int64_t y = 0; y < kh; ++y)
          for (int64_t x = 0; x < kw; ++x) {
            float *row = &columns[((ci * kh + y) * kw + x) * pixels];
            const float *src = image + ci * ist[1] + y * dh * ist[2] +
                               x * dw * ist[3];
            for (int64_t oy = 0; oy < oh; ++oy) {
              const float *line = src + oy * sh * ist[2];
              float *dst = row + oy * ow;
              if (sw == 1 && ist[3] == 1)
                std::copy(line, line + ow, dst);
              else
                for (int64_t ox = 0; ox < ow; ++ox)
                  dst[ox] = line[ox * sw * ist[3]];
            }
          }
      colView = {columns.data(), depth, pixels, pixels, 1};
    }

    float *imageOut = output + img * ost[0];
    if (outCollapses) {
      gemmAccumulate(filterView, colView,
                     {imageOut, f, pixels, ost[1], outCol});
    } else {
      dense.assign(static_cast<size_t>(f * pixels), 0.0f);
      gemmAccumulate(filterView, colView, {dense.data(), f, pixels, pixels, 1});
      for (int64_t i = 0; i < f; ++i)
        for (int64_t oy = 0; oy < oh; ++oy)
          for (int64_t ox = 0; ox < ow; ++ox)
            imageOut[i * ost[1] + oy * ost[2] + ox * ost[3]] +=
                dense[(i * oh + oy) * ow + ox];
    }
  }
}

void telarrt_set_num_threads(int threads) {
  if (threads < 1)
    threads = 1;
  omp_set_num_threads(threads);
  openblas_set_num_threads(threads);
}

int telarrt_get_num_threads(void) { return omp_get_max_threads(); }

} // extern "C"
