//===- Matmul.cpp - Matmul and batch matmul kernels -----------------------===//
//
// Matmul and batch matmul on f32 strided memrefs, and the GEMM every
// kernel's products go through. Every product goes to the runtime's own
// GEMM (Gemm.cpp: AVX-512 or AVX2+FMA, chosen by the CPU) or, on CPUs with neither, to OpenBLAS's cblas_sgemm;
// products with one output row or column go to OpenBLAS's sgemv. The
// operands may be arbitrary views (offsets, transposes, non-unit strides):
// the GEMM packs them itself; for OpenBLAS each one is passed as it is when
// one of its strides is 1 (as a transposed operand when that is the row
// stride) and packed into a dense temporary otherwise.
//
// Threads: one pool for everything, libomp's, which the programs' parallel
// loops use too. The GEMMs run single-threaded (OpenBLAS too: Blas.cpp
// loads it so) and the kernels split their work (column or row blocks of a
// GEMM, batch elements, images) across OpenMP threads themselves. Two pools
// would oversubscribe the cores: libomp's workers spin for 200 ms after each
// parallel loop (KMP_BLOCKTIME) while OpenBLAS's threads want the same
// cores. This file is compiled with -fopenmp but linked against libomp,
// which implements GCC's GOMP_* entry points.
//
//===----------------------------------------------------------------------===//

#include "Blas.h"
#include "KernelSupport.h"

#include <algorithm>
#include <climits>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <vector>

using telar::runtime::detail::blas;
namespace detail = telar::runtime::detail;
using namespace telar::runtime::kernels;

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

/// How an operand is handed to cblas_sgemm (row-major interface).
struct Operand {
  const float *p;
  CBLAS_TRANSPOSE trans;
  int ld;
};

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

/// A strided vector for BLAS level 2: `p[i * inc]`.
struct Vector {
  float *p;
  int64_t size, inc;
};

/// The increment to pass BLAS for `v`, packing it into `scratch` when its
/// stride is not a positive int (BLAS reads negative increments backwards).
int prepareVector(Vector &v, std::vector<float> &scratch) {
  if (v.size <= 1)
    return 1;
  if (v.inc > 0 && fitsInt(v.inc))
    return static_cast<int>(v.inc);
  scratch.resize(static_cast<size_t>(v.size));
  for (int64_t i = 0; i < v.size; ++i)
    scratch[i] = v.p[i * v.inc];
  v = {scratch.data(), v.size, 1};
  return 1;
}

/// y += op(a) . x (y = op(a) . x without `accumulate`) with `a` prepared
/// as a BLAS operand of logical shape rows x cols (GEMM with one output row
/// or column: OpenBLAS 0.3.21 does not forward those to GEMV itself, and
/// GEMV reads `a` without packing).
void gemvAccumulate(const Operand &a, int64_t rows, int64_t cols, Vector x,
                    Vector y, bool accumulate) {
  // Zeroed rather than beta = 0: OpenBLAS scales y by beta, and NaN * 0 in
  // an uninitialised y would stay NaN.
  if (!accumulate)
    for (int64_t i = 0; i < y.size; ++i)
      y.p[i * y.inc] = 0.0f;
  std::vector<float> scratchX, scratchY;
  int incx = prepareVector(x, scratchX);
  Vector original = y;
  int incy = prepareVector(y, scratchY);
  // The stored matrix is rows x cols (no-trans) or cols x rows (trans).
  // Shared out by rows of y across the threads (at least 64 each): a GEMV
  // streams `a` once, at memory's speed, and two cores stream about twice
  // as fast as one (ResNet-18's classifier, 512 x 1000, 2 threads: 0.16 ->
  // 0.105 ms; at 64 x 64, 0.082 -> 0.052). Its multiply-adds count
  // kGemvWorkWeight times against kMinParallelWork: each reads 4 bytes from
  // memory where a GEMM's reuse a register.
  constexpr double kGemvWorkWeight = 16;
  double work = double(rows) * double(cols) * kGemvWorkWeight;
  int64_t parts = std::max<int64_t>(
      1, std::min<int64_t>({availableThreads(), rows / 64,
                            static_cast<int64_t>(work / kMinParallelWork)}));
#pragma omp parallel for schedule(static) num_threads(parts) if (parts > 1)
  for (int64_t part = 0; part < parts; ++part) {
    int64_t r0 = rows * part / parts, r1 = rows * (part + 1) / parts;
    float *yp = y.p + r0 * incy;
    if (a.trans == CblasNoTrans)
      blas().sgemv(CblasRowMajor, CblasNoTrans, int(r1 - r0), int(cols), 1.0f,
                   a.p + r0 * a.ld, a.ld, x.p, incx, 1.0f, yp, incy);
    else
      blas().sgemv(CblasRowMajor, CblasTrans, int(cols), int(r1 - r0), 1.0f,
                   a.p + r0, a.ld, x.p, incx, 1.0f, yp, incy);
  }
  if (y.p != original.p)
    for (int64_t i = 0; i < y.size; ++i)
      original.p[i * original.inc] = y.p[i];
}

/// Whether the runtime's GEMM (rather than OpenBLAS) computes c += a . b.
bool usesOwnGemm(GemmKernel kernel, const View &c) {
  return kernel != GemmKernel::OpenBlas && c.rows > 1 && c.cols > 1;
}

/// b packed ahead of time when it is constant (a weight) and the runtime's
/// GEMM will read it, else null.
const detail::PackedB *constantB(const Env &env, const View &a,
                                 const View &b, const View &c) {
  if (!usesOwnGemm(env.kernel, c) || a.cols == 0)
    return nullptr;
  return detail::constantPackedB(env.constants, env.kernel, b);
}

/// c += a . b for views of matching shapes, or c = a . b without
/// `accumulate` (c's old contents are then never read); `packed`: b's
/// panels packed ahead of time, if any (a PackedB of the whole of b, see
/// Gemm.h).
void gemmWith(const Env &env, const View &a, const View &b, const View &c,
              const detail::PackedB *packed, bool accumulate) {
  int64_t m = c.rows, n = c.cols, k = a.cols;
  if (m == 0 || n == 0)
    return;
  if (k == 0) { // an empty sum
    if (!accumulate)
      for (int64_t i = 0; i < m; ++i)
        for (int64_t j = 0; j < n; ++j)
          c.at(i, j) = 0.0f;
    return;
  }
  GemmKernel kernel = env.kernel;
  if (usesOwnGemm(kernel, c)) {
    detail::gemm(kernel, a, b, c, packed, accumulate);
    return;
  }
  // The kernels' entry points refuse larger products (fitsBlas).
  if (!fitsInt(m) || !fitsInt(n) || !fitsInt(k))
    fatal("sgemm", "matrix of %lldx%lldx%lld is too large for BLAS",
          static_cast<long long>(m), static_cast<long long>(n),
          static_cast<long long>(k));
  std::vector<float> scratchA, scratchB;
  if (n == 1) {
    // c[:, 0] += a . b[:, 0]
    gemvAccumulate(prepare(a, scratchA), m, k, {b.p, k, b.rs}, {c.p, m, c.rs},
                   accumulate);
    return;
  }
  if (m == 1) {
    // c[0, :] += b^T . a[0, :]
    Operand ob = prepare(b, scratchB);
    ob.trans = flip(ob.trans);
    gemvAccumulate(ob, n, k, {a.p, k, a.cs}, {c.p, n, c.cs}, accumulate);
    return;
  }
  Operand oa = prepare(a, scratchA);
  Operand ob = prepare(b, scratchB);
  // beta = 0: OpenBLAS's GEMM then stores zeros before adding, never
  // reading c.
  float beta = accumulate ? 1.0f : 0.0f;
  int ldc;
  if (asRowMajor(c, ldc)) {
    blas().sgemm(CblasRowMajor, oa.trans, ob.trans, m, n, k, 1.0f, oa.p, oa.ld,
                 ob.p, ob.ld, beta, c.p, ldc);
  } else if (asTransposed(c, ldc)) {
    // c^T += b^T . a^T, with c^T row-major.
    blas().sgemm(CblasRowMajor, flip(ob.trans), flip(oa.trans), n, m, k, 1.0f,
                 ob.p, ob.ld, oa.p, oa.ld, beta, c.p, ldc);
  } else {
    std::vector<float> dense;
    if (accumulate)
      pack(c, dense);
    else
      dense.assign(static_cast<size_t>(m * n), 0.0f);
    blas().sgemm(CblasRowMajor, oa.trans, ob.trans, m, n, k, 1.0f, oa.p, oa.ld,
                 ob.p, ob.ld, beta, dense.data(), n);
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < n; ++j)
        c.at(i, j) = dense[i * n + j];
  }
}
} // namespace

namespace telar::runtime::kernels {

/// c += a . b (c = a . b without `accumulate`) for views of matching
/// shapes (b packed once when constant).
void gemmAccumulate(const Env &env, const View &a, const View &b, const View &c,
                    bool accumulate) {
  gemmWith(env, a, b, c, constantB(env, a, b, c), accumulate);
}

/// c += a . b (c = a . b without `accumulate`), split into blocks of
/// columns (or rows, when c is tall) run on the OpenMP threads.
void parallelGemm(const Env &env, const View &a, const View &b, const View &c,
                  bool accumulate) {
  int64_t m = c.rows, n = c.cols, k = a.cols;
  double work = double(m) * double(n) * double(k);
  bool splitColumns = n >= m;
  int64_t extent = splitColumns ? n : m;
  GemmKernel kernel = env.kernel;
  int64_t tile = splitColumns ? detail::gemmTileCols(kernel)
                              : detail::gemmTileRows(kernel);
  int64_t unit = (kMinBlock + tile - 1) / tile * tile;
  int64_t blocks = std::min<int64_t>(
      {availableThreads(), static_cast<int64_t>(work / kMinParallelWork),
       extent / unit});
  // Looked up (or packed) once for all blocks: column blocks start at
  // multiples of `unit`, whole panels of the packed b.
  const detail::PackedB *packed = constantB(env, a, b, c);
  // A GEMV (one row or column of c: OpenBLAS's sgemv, usesOwnGemm) splits
  // itself (gemvAccumulate).
  if (blocks <= 1 || m == 1 || n == 1) {
    gemmWith(env, a, b, c, packed, accumulate);
    return;
  }
#pragma omp parallel for num_threads(blocks) schedule(static, 1)
  for (int64_t i = 0; i < blocks; ++i) {
    // Block edges at multiples of `unit` (blocks stay non-empty: the
    // unrounded edges are at least `unit` apart).
    int64_t lo = i == 0 ? 0 : extent * i / blocks / unit * unit;
    int64_t hi =
        i + 1 == blocks ? extent : extent * (i + 1) / blocks / unit * unit;
    if (splitColumns) {
      detail::PackedB columns;
      if (packed) {
        columns = *packed;
        columns.col0 += lo;
      }
      gemmWith(env, a, {b.p + lo * b.cs, b.rows, hi - lo, b.rs, b.cs},
               {c.p + lo * c.cs, c.rows, hi - lo, c.rs, c.cs},
               packed ? &columns : nullptr, accumulate);
    } else {
      gemmWith(env, {a.p + lo * a.rs, hi - lo, a.cols, a.rs, a.cs}, b,
               {c.p + lo * c.rs, hi - lo, c.cols, c.rs, c.cs}, packed,
               accumulate);
    }
  }
}


} // namespace telar::runtime::kernels

extern "C" {

int telarrt_matmul_f32(TelarContext *ctx, TelarMemRef2F32 *a,
                       TelarMemRef2F32 *b, TelarMemRef2F32 *c, int64_t flags) {
  const char *kernel = "telarrt_matmul_f32";
  KernelTimer timer(ctx, kernel, [&] {
    return dims(a) + " . " + dims(b) + " -> " + dims(c) + flagNames(flags);
  });
  if (!checkFlags(ctx, kernel, flags, TELAR_KERNEL_ACCUMULATE))
    return TELAR_STATUS_INVALID_ARGUMENT;
  if (a->sizes[0] != c->sizes[0] || b->sizes[1] != c->sizes[1] ||
      a->sizes[1] != b->sizes[0])
    return detail::fail(ctx, TELAR_STATUS_INVALID_ARGUMENT,
                        "%s: shapes %lldx%lld . %lldx%lld -> %lldx%lld",
                        kernel, (long long)a->sizes[0], (long long)a->sizes[1],
                        (long long)b->sizes[0], (long long)b->sizes[1],
                        (long long)c->sizes[0], (long long)c->sizes[1]);
  if (!fitsBlas(c->sizes[0], c->sizes[1], a->sizes[1]))
    return detail::fail(ctx, TELAR_STATUS_INVALID_ARGUMENT,
                        "%s: a %lldx%lldx%lld product is too large", kernel,
                        (long long)c->sizes[0], (long long)c->sizes[1],
                        (long long)a->sizes[1]);
  return guarded(ctx, kernel, [&]() -> int {
    parallelGemm(envOf(ctx),
                 {a->aligned + a->offset, a->sizes[0], a->sizes[1],
                  a->strides[0], a->strides[1]},
                 {b->aligned + b->offset, b->sizes[0], b->sizes[1],
                  b->strides[0], b->strides[1]},
                 {c->aligned + c->offset, c->sizes[0], c->sizes[1],
                  c->strides[0], c->strides[1]},
                 (flags & TELAR_KERNEL_ACCUMULATE) != 0);
    return TELAR_STATUS_OK;
  });
}

static int batchMatmul(TelarContext *ctx, const char *kernel,
                       TelarMemRef3F32 *a, TelarMemRef3F32 *b,
                       TelarMemRef3F32 *c, int64_t flags) {
  if (!checkFlags(ctx, kernel, flags, TELAR_KERNEL_ACCUMULATE))
    return TELAR_STATUS_INVALID_ARGUMENT;
  bool accumulate = (flags & TELAR_KERNEL_ACCUMULATE) != 0;
  if (a->sizes[0] != c->sizes[0] || b->sizes[0] != c->sizes[0] ||
      a->sizes[1] != c->sizes[1] || b->sizes[2] != c->sizes[2] ||
      a->sizes[2] != b->sizes[1])
    return detail::fail(
        ctx, TELAR_STATUS_INVALID_ARGUMENT,
        "%s: shapes %lldx%lldx%lld . %lldx%lldx%lld -> %lldx%lldx%lld", kernel,
        (long long)a->sizes[0], (long long)a->sizes[1], (long long)a->sizes[2],
        (long long)b->sizes[0], (long long)b->sizes[1], (long long)b->sizes[2],
        (long long)c->sizes[0], (long long)c->sizes[1], (long long)c->sizes[2]);
  if (!fitsBlas(c->sizes[1], c->sizes[2], a->sizes[2]))
    return detail::fail(ctx, TELAR_STATUS_INVALID_ARGUMENT,
                        "%s: a %lldx%lldx%lld product is too large", kernel,
                        (long long)c->sizes[1], (long long)c->sizes[2],
                        (long long)a->sizes[2]);
  Env env = envOf(ctx);
  auto item = [&](int64_t i, auto gemm) {
    gemm(env,
         View{a->aligned + a->offset + i * a->strides[0], a->sizes[1],
              a->sizes[2], a->strides[1], a->strides[2]},
         View{b->aligned + b->offset + i * b->strides[0], b->sizes[1],
              b->sizes[2], b->strides[1], b->strides[2]},
         View{c->aligned + c->offset + i * c->strides[0], c->sizes[1],
              c->sizes[2], c->strides[1], c->strides[2]},
         accumulate);
  };
  int64_t batch = c->sizes[0];
  double work = double(c->sizes[1]) * double(c->sizes[2]) * double(a->sizes[2]);
  int threads = availableThreads();
  // Batch elements to threads when there are enough of them or when each
  // is too small to split; otherwise split each product.
  if (threads > 1 && batch > 1 && work * batch >= kMinParallelWork &&
      (batch >= threads || work < kMinParallelWork * threads)) {
    int64_t used = std::min<int64_t>(threads, batch);
#pragma omp parallel for num_threads(used) schedule(static)
    for (int64_t i = 0; i < batch; ++i)
      item(i, gemmAccumulate);
  } else {
    for (int64_t i = 0; i < batch; ++i)
      item(i, parallelGemm);
  }
  return TELAR_STATUS_OK;
}

int telarrt_batch_matmul_f32(TelarContext *ctx, TelarMemRef3F32 *a,
                             TelarMemRef3F32 *b, TelarMemRef3F32 *c,
                             int64_t flags) {
  const char *kernel = "telarrt_batch_matmul_f32";
  KernelTimer timer(ctx, kernel, [&] {
    return dims(a) + " . " + dims(b) + " -> " + dims(c) + flagNames(flags);
  });
  return guarded(ctx, kernel,
                 [&] { return batchMatmul(ctx, kernel, a, b, c, flags); });
}

} // extern "C"
