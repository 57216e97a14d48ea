//===- Kernels.cpp - Library kernels called by generated programs ---------===//
//
// Matmul, batch matmul and NCHW convolution on f32 strided memrefs. Every
// product goes to the runtime's own GEMM (Gemm.cpp: AVX-512 or AVX2+FMA,
// chosen by the CPU) or, on CPUs with neither, to OpenBLAS's cblas_sgemm;
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
#include "Context.h"
#include "Gemm.h"
#include "HugePages.h"
#include "telar/runtime/Abi.h"

#include <algorithm>
#include <atomic>
#include <cassert>
#include <chrono>
#include <climits>
#include <cmath>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <limits>
#include <new>
#include <optional>
#include <string>
#include <utility>
#include <vector>

using telar::runtime::detail::blas;
using telar::runtime::detail::GemmKernel;
using telar::runtime::detail::MatrixView;
namespace detail = telar::runtime::detail;

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
using View = MatrixView;

/// What the kernels of one call use, from its context: the GEMM and the
/// packed weights of the artifact running.
struct Env {
  GemmKernel kernel;
  detail::ConstantCache *constants;
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

/// c += a . b (c = a . b without `accumulate`) for views of matching
/// shapes (b packed once when constant).
void gemmAccumulate(const Env &env, const View &a, const View &b, const View &c,
                    bool accumulate) {
  gemmWith(env, a, b, c, constantB(env, a, b, c), accumulate);
}

/// The single stride of dimensions [first, last) of a view collapsed into
/// one, or false when they do not form one evenly strided sequence.
/// Dimensions of size 1 place no constraint.
bool collapsedStride(const int64_t *sizes, const int64_t *strides, int first,
                     int last, int64_t &stride) {
  // Walk from the innermost dimension out: each non-unit dimension must
  // step over exactly the elements inside it.
  int64_t inner = 1; // elements covered so far
  int64_t unit = 0;  // stride of one step of the collapsed dimension
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

} // namespace

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

namespace {
/// The kernels' view of `ctx`.
Env envOf(const TelarContext *ctx) { return {ctx->gemmKernel, ctx->constants}; }

/// Whether a product of m x k by k x n fits the BLAS interface (int
/// dimensions), which OpenBLAS and the sgemv paths need.
bool fitsBlas(int64_t m, int64_t n, int64_t k) {
  return fitsInt(m) && fitsInt(n) && fitsInt(k);
}

/// Checks a kernel's flags (TELAR_KERNEL_*) against those it takes.
bool checkFlags(TelarContext *ctx, const char *kernel, int64_t flags,
                int64_t allowed) {
  if ((flags & ~allowed) == 0)
    return true;
  detail::fail(ctx, TELAR_STATUS_INVALID_ARGUMENT,
               "%s: unsupported flags 0x%llx", kernel,
               (long long)(flags & ~allowed));
  return false;
}

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
std::string flagNames(int64_t flags) {
  return std::string(flags & TELAR_KERNEL_ACCUMULATE ? " acc" : "") +
         (flags & TELAR_KERNEL_RELU ? " relu" : "") +
         (flags & TELAR_KERNEL_BLOCKED_INPUT ? " blocked-in" : "") +
         (flags & TELAR_KERNEL_BLOCKED_OUTPUT ? " blocked-out" : "");
}

/// A convolution's operands for the kernel profile.
std::string convShape(const TelarMemRef4F32 *in, const TelarMemRef4F32 *filter,
                      const TelarMemRef4F32 *out, int64_t sh, int64_t sw,
                      int64_t dh, int64_t dw, int64_t padTop, int64_t padLeft,
                      int64_t flags) {
  std::string s = dims(in) + " * " + dims(filter) + " -> " + dims(out) +
                  " stride " + std::to_string(sh) + "x" + std::to_string(sw) +
                  " pad " + std::to_string(padTop) + "x" +
                  std::to_string(padLeft);
  if (dh != 1 || dw != 1)
    s += " dilation " + std::to_string(dh) + "x" + std::to_string(dw);
  return s + flagNames(flags);
}

/// Times one kernel call into its context's profile, when profiling is on
/// (Context::setKernelProfiling): `shape()` describes the operands, and
/// calls of a kernel with the same description add up.
template <typename Shape> class KernelTimer {
public:
  KernelTimer(TelarContext *ctx, const char *kernel, Shape shape)
      : profile(ctx->profile.get()), kernel(kernel), shape(std::move(shape)) {
    if (profile)
      start = std::chrono::steady_clock::now();
  }
  ~KernelTimer() {
    if (!profile)
      return;
    double seconds = std::chrono::duration<double>(
                         std::chrono::steady_clock::now() - start)
                         .count();
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
  const char *kernel;
  Shape shape;
  std::chrono::steady_clock::time_point start;
};
template <typename Shape>
KernelTimer(TelarContext *, const char *, Shape) -> KernelTimer<Shape>;
} // namespace

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

/// Sets every element of `out` to 0 (relu: to max(out, 0) instead; NaN
/// stays NaN).
static void overwriteOutput(TelarMemRef4F32 *out, bool relu) {
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

namespace {
/// Whether a convolution on phase planes is computed directly
/// (DirectConv in Gemm.h): under AUTO when its filter is a packed constant,
/// or its output large enough to pay for packing the filter on the call.
enum class DirectChoice { Never, Auto, Always };

/// One NCHW convolution's geometry (sizes of the unpadded input).
struct ConvShape {
  int64_t n, c, h, w, f, kh, kw, oh, ow, sh, sw, dh, dw, padTop, padLeft;
};

/// floor(a / b) for b > 0.
int64_t floorDiv(int64_t a, int64_t b) {
  return a >= 0 ? a / b : -((-a + b - 1) / b);
}

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
struct PlanesTarget {
  float *origin; // output pixel (0, 0) of filter 0
  int64_t blockStride, rowStride;
};
void convPhasePlanes(const Env &env, const View &a, const float *input,
                     const int64_t *ist, float *output, const int64_t *ost,
                     const ConvShape &s, bool accumulate, bool relu,
                     const float *bias, int64_t biasStride, DirectChoice choice,
                     const PlanesTarget *toPlanes = nullptr,
                     const float *givenPlanes = nullptr,
                     const detail::DirectPool *toPool = nullptr,
                     bool blockedInput = false) {
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
} // namespace

/// out = bias (out += bias with `accumulate`) on every pixel of each
/// filter's output.
static void addBias(TelarMemRef4F32 *out, const float *bias,
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

/// Checks a sliding window's geometry (convolutions, pooling): positive
/// strides and dilations, and each output row's (column's) window
/// overlapping the image, the padding on each side smaller than the
/// window's span.
static bool checkWindow(TelarContext *ctx, const char *kernel, int64_t h,
                        int64_t w, int64_t oh, int64_t ow, int64_t kh,
                        int64_t kw, int64_t sh, int64_t sw, int64_t dh,
                        int64_t dw, int64_t padTop, int64_t padLeft) {
  if (sh < 1 || sw < 1 || dh < 1 || dw < 1) {
    detail::fail(ctx, TELAR_STATUS_INVALID_ARGUMENT,
          "%s: strides and dilations must be positive (%lld %lld %lld "
          "%lld)",
          kernel, (long long)sh, (long long)sw, (long long)dh, (long long)dw);
    return false;
  }
  int64_t spanH = (kh - 1) * dh + 1, spanW = (kw - 1) * dw + 1;
  int64_t padBottom = (oh - 1) * sh + spanH - padTop - h,
          padRight = (ow - 1) * sw + spanW - padLeft - w;
  if (oh > 0 && ow > 0 &&
      (padTop < 0 || padLeft < 0 || padTop >= spanH || padLeft >= spanW ||
       padBottom >= spanH || padRight >= spanW)) {
    detail::fail(ctx, TELAR_STATUS_INVALID_ARGUMENT,
          "%s: a %lldx%lld output with kernel %lldx%lld, strides %lldx%lld and "
          "dilations %lldx%lld needs padding %lld %lld %lld %lld (top, left, "
          "bottom, right) around the %lldx%lld input: each must be at least 0 "
          "and below the kernel's span",
          kernel, (long long)oh, (long long)ow, (long long)kh, (long long)kw,
          (long long)sh, (long long)sw, (long long)dh, (long long)dw,
          (long long)padTop, (long long)padLeft, (long long)padBottom,
          (long long)padRight, (long long)h, (long long)w);
    return false;
  }
  return true;
}

constexpr int64_t kBlockedFlags =
    TELAR_KERNEL_BLOCKED_INPUT | TELAR_KERNEL_BLOCKED_OUTPUT;

/// Whether `m` may hold channel-blocked values (TELAR_KERNEL_BLOCKED_*):
/// a dense buffer (NCHW strides) of whole channel blocks.
static bool checkBlocked(TelarContext *ctx, const char *kernel,
                         const TelarMemRef4F32 *m, const char *what) {
  const int64_t *s = m->sizes, *st = m->strides;
  bool dense = st[3] == 1 && st[2] == s[3] && st[1] == s[2] * s[3] &&
               st[0] == s[1] * s[2] * s[3];
  if (dense && s[1] % detail::kChannelBlock == 0)
    return true;
  detail::fail(ctx, TELAR_STATUS_INVALID_ARGUMENT,
               "%s: a channel-blocked %s must be dense with channels in "
               "blocks of %d (%lldx%lldx%lldx%lld, strides %lld, %lld, "
               "%lld, %lld)",
               kernel, what, int(detail::kChannelBlock), (long long)s[0],
               (long long)s[1], (long long)s[2], (long long)s[3],
               (long long)st[0], (long long)st[1], (long long)st[2],
               (long long)st[3]);
  return false;
}

/// An N x C x P array (P pixels) from NCHW to channel-blocked (NCHW16c)
/// order, or back.
static void convertBlocked(const float *src, float *dst, int64_t n, int64_t c,
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
static int
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

/// Checks a convolution's operands as telarrt_conv2d_nchw_bias_f32 takes
/// them (`biasRef` may be null); TELAR_STATUS_OK when they hold.
static int checkConv(TelarContext *ctx, const char *kernel,
                     const TelarMemRef4F32 *in, const TelarMemRef4F32 *filter,
                     const TelarMemRef1F32 *biasRef,
                     const TelarMemRef4F32 *out, int64_t sh, int64_t sw,
                     int64_t dh, int64_t dw, int64_t padTop, int64_t padLeft,
                     int64_t flags) {
  const int64_t *is = in->sizes, *fs = filter->sizes, *os = out->sizes;
  int64_t n = is[0], c = is[1], h = is[2], w = is[3];
  int64_t f = fs[0], kh = fs[2], kw = fs[3];
  int64_t oh = os[2], ow = os[3];
  if (os[0] != n || fs[1] != c || os[1] != f)
    return detail::fail(ctx, TELAR_STATUS_INVALID_ARGUMENT,
          "%s: input %lldx%lldx%lldx%lld, filter %lldx%lldx%lldx%lld and output "
          "%lldx%lldx%lldx%lld do not match",
          kernel, (long long)n, (long long)c, (long long)h, (long long)w, (long long)f,
          (long long)fs[1], (long long)kh, (long long)kw, (long long)os[0],
          (long long)os[1], (long long)oh, (long long)ow);
  if (!checkWindow(ctx, kernel, h, w, oh, ow, kh, kw, sh, sw, dh, dw, padTop,
                   padLeft) ||
      !checkFlags(ctx, kernel, flags,
                  TELAR_KERNEL_ACCUMULATE | TELAR_KERNEL_RELU | kBlockedFlags))
    return TELAR_STATUS_INVALID_ARGUMENT;
  if ((flags & TELAR_KERNEL_BLOCKED_INPUT) &&
      !checkBlocked(ctx, kernel, in, "input"))
    return TELAR_STATUS_INVALID_ARGUMENT;
  if ((flags & TELAR_KERNEL_BLOCKED_OUTPUT) &&
      !checkBlocked(ctx, kernel, out, "output"))
    return TELAR_STATUS_INVALID_ARGUMENT;
  if (biasRef && biasRef->sizes[0] != f)
    return detail::fail(ctx, TELAR_STATUS_INVALID_ARGUMENT,
                        "%s: a bias of %lld values for %lld filters", kernel,
                        (long long)biasRef->sizes[0], (long long)f);
  int64_t depth = c * kh * kw, pixels = oh * ow;
  if (n != 0 && f != 0 && pixels != 0 && depth != 0 &&
      !fitsBlas(f, pixels, depth))
    return detail::fail(ctx, TELAR_STATUS_INVALID_ARGUMENT,
                        "%s: a %lldx%lldx%lld product is too large", kernel,
                        (long long)f, (long long)pixels, (long long)depth);
  return TELAR_STATUS_OK;
}

/// The filter as an F x (C*KH*KW) matrix, when its elements collapse into
/// one (strided) run per filter.
static std::optional<View> filterMatrix(const TelarMemRef4F32 *filter) {
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
static bool fusesDirectly(const Env &env, const TelarMemRef4F32 *out) {
  const int64_t *os = out->sizes, *ost = out->strides;
  int64_t outCol;
  return env.kernel != GemmKernel::OpenBlas &&
         (convMethod == TELARRT_CONV_AUTO ||
          convMethod == TELARRT_CONV_DIRECT) &&
         os[2] > 0 && os[3] > 0 && collapsedStride(os, ost, 2, 4, outCol) &&
         (outCol == 1 || os[2] * os[3] == 1);
}

static int conv2dNchw(TelarContext *ctx, const char *kernel,
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

/// telarrt_maxpool2d_nchw_f32's computation (`kernel` names it in errors).
static int maxPool2dNchw(TelarContext *ctx, const char *kernel,
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

void telarrt_set_num_threads(int threads) {
  if (threads < 1)
    threads = 1;
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
  ctx->gemmKernel = want;
  return static_cast<int>(want);
}

int telarrt_context_get_gemm_kernel(const TelarContext *ctx) {
  return static_cast<int>(ctx->gemmKernel);
}

} // extern "C"
