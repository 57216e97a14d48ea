//===- Gemm.cpp - The runtime's own f32 GEMM ------------------------------===//
//
// GemmImpl.inc compiled twice, for AVX-512 (micro-tile 12 x 32, 24 zmm
// accumulators) and for AVX2+FMA (6 x 16, 12 ymm accumulators), each under
// a target pragma so that the rest of the library (and the process) still
// runs on CPUs without them; gemm() dispatches to the one asked for.
//
//===----------------------------------------------------------------------===//

#include "Gemm.h"
#include "HugePages.h"

// GCC 12 warns about the deliberately uninitialised _mm512_undefined_ps()
// inside its own shuffle intrinsics.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <immintrin.h>
#include <limits>
#include <memory>
#include <new>
#include <type_traits>
#include <utility>
#include <vector>

using namespace telar::runtime::detail;

namespace {

/// Per-thread scratch buffers for packed panels: slot 0 holds B's, 1 A's,
/// 2 a dense copy of C, 3 a direct convolution's tile, 4 its pooled tile
/// (DirectConv::pool). They grow as needed
/// and live as long as the thread (libomp's workers persist, so
/// steady-state GEMMs allocate nothing).
float *workspace(int slot, size_t floats) {
  thread_local ScratchBuffer buffers[5];
  float *p = buffers[slot].reserve(floats);
  if (!p) {
    std::fprintf(stderr,
                 "telar runtime: out of memory for GEMM scratch (%zu bytes)\n",
                 floats * sizeof(float));
    std::abort();
  }
  return p;
}

/// Cache blocking (in elements) and when to skip packing.
struct Blocking {
  int64_t kc; // rows of B per packed block (panel depth)
  int64_t mc; // rows of A per packed block
  int64_t nc; // columns of B per packed block
  int64_t directBMaxRows; // read B in place (contiguous rows) up to this m
  int64_t panelBMaxRows;  // pack B panel by panel up to this m
  // Pack A (else read in place) from this row stride on, when at least 4
  // B panels reuse it. The micro-kernel's rows of A read in place are that
  // many streams of lines: measured on Zen 4 (32 KiB 8-way L1, whose sets
  // repeat every 4 KiB), 12 rows 2 KiB apart cost 3-5 % and 8 KiB apart up
  // to a third (128 x 2048 x 512: median 68 -> 93 GFLOP/s), against one
  // packed panel; with rows of 256 floats or fewer, or 2 panels of B,
  // packing cost 3-7 % (with one panel, half the speed).
  int64_t packAMinRowStride;
};

} // namespace

#if defined(__clang__)
#define TELAR_TARGET_PUSH(T)                                                   \
  _Pragma(TELAR_STR(clang attribute push(__attribute__((target(T))),          \
                                         apply_to = function)))
#define TELAR_TARGET_POP _Pragma("clang attribute pop")
#define TELAR_STR(x) #x
#else
#define TELAR_TARGET_PUSH(T)                                                   \
  _Pragma("GCC push_options") _Pragma(TELAR_STR(GCC target(T)))
#define TELAR_TARGET_POP _Pragma("GCC pop_options")
#define TELAR_STR(x) #x
#endif

//===----------------------------------------------------------------------===//
// AVX-512
//===----------------------------------------------------------------------===//

TELAR_TARGET_PUSH("avx512f,avx512bw,avx512vl,avx512dq,avx2,fma")
namespace {
namespace avx512 {

struct Isa {
  using V = __m512;
  using Mask = __mmask16;
  static constexpr int kWidth = 16;
  static constexpr int kMR = 12;
  /// 28 accumulators of the 32 registers: two rows of a 7 x 7 map, one
  /// row of a 14 x 14 one (12 left 10 of 24 accumulators idle on both: 7
  /// pixels a tile). ResNet-18 at 224, 1 thread: 1.05x over 12.
  static constexpr int kDirectMaxPixels = 14;

  static V zero() { return _mm512_setzero_ps(); }
  static V load(const float *p) { return _mm512_loadu_ps(p); }
  static void store(float *p, V v) { _mm512_storeu_ps(p, v); }
  /// The first n (clamped to [0, 16]) lanes.
  static Mask mask(int n) {
    return n >= 16 ? Mask(0xFFFF) : n <= 0 ? Mask(0) : Mask((1u << n) - 1);
  }
  /// Lanes [lo, hi) (clamped to [0, 16]).
  static Mask maskRange(int lo, int hi) { return Mask(mask(hi) & ~mask(lo)); }
  static V loadMasked(const float *p, Mask m) {
    return _mm512_maskz_loadu_ps(m, p);
  }
  static void storeMasked(float *p, Mask m, V v) {
    _mm512_mask_storeu_ps(p, m, v);
  }
  /// p[0], p[2], ..., p[2 * (n - 1)] (n <= 16) in the first n lanes (the
  /// others undefined) from the loads of p[0..15] and p[16..31] masked by
  /// mask(2n - 1) and mask(2n - 17) (so nothing beyond p[2 * (n - 1)]).
  static V loadEven(const float *p, Mask loMask, Mask hiMask) {
    V lo = loadMasked(p, loMask);
    V hi = loadMasked(p + 16, hiMask);
    const __m512i even = _mm512_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14, 16, 18,
                                           20, 22, 24, 26, 28, 30);
    return _mm512_permutex2var_ps(lo, even, hi);
  }
  static V broadcast(const float *p) { return _mm512_set1_ps(*p); }
  /// a in the lanes of m, b elsewhere.
  static V select(Mask m, V a, V b) { return _mm512_mask_blend_ps(m, b, a); }
  /// max(acc, x), NaN when either is (arith.maximumf; VRANGEPS's max
  /// does not keep NaNs).
  static V maxNan(V acc, V x) {
    return _mm512_mask_mov_ps(_mm512_max_ps(acc, x),
                              _mm512_cmp_ps_mask(acc, acc, _CMP_UNORD_Q), acc);
  }
  static V fma(V a, V b, V c) { return _mm512_fmadd_ps(a, b, c); }
  static V add(V a, V b) { return _mm512_add_ps(a, b); }
  static V max(V a, V b) { return _mm512_max_ps(a, b); }

  /// Transposes the 16 x 16 matrix whose rows are r[0..15].
  static void transpose(V r[16]) {
    V t[16], u[16];
    for (int i = 0; i < 8; ++i) {
      t[2 * i] = _mm512_unpacklo_ps(r[2 * i], r[2 * i + 1]);
      t[2 * i + 1] = _mm512_unpackhi_ps(r[2 * i], r[2 * i + 1]);
    }
    // u[4g + q]: column 4L + q of rows 4g..4g+3, in each 128-bit lane L.
    for (int g = 0; g < 4; ++g) {
      u[4 * g + 0] = _mm512_shuffle_ps(t[4 * g], t[4 * g + 2], 0x44);
      u[4 * g + 1] = _mm512_shuffle_ps(t[4 * g], t[4 * g + 2], 0xEE);
      u[4 * g + 2] = _mm512_shuffle_ps(t[4 * g + 1], t[4 * g + 3], 0x44);
      u[4 * g + 3] = _mm512_shuffle_ps(t[4 * g + 1], t[4 * g + 3], 0xEE);
    }
    for (int h = 0; h < 2; ++h)
      for (int q = 0; q < 4; ++q) {
        t[8 * h + q] =
            _mm512_shuffle_f32x4(u[8 * h + q], u[8 * h + 4 + q], 0x88);
        t[8 * h + 4 + q] =
            _mm512_shuffle_f32x4(u[8 * h + q], u[8 * h + 4 + q], 0xDD);
      }
    for (int j = 0; j < 8; ++j) {
      r[j] = _mm512_shuffle_f32x4(t[j], t[8 + j], 0x88);
      r[8 + j] = _mm512_shuffle_f32x4(t[j], t[8 + j], 0xDD);
    }
  }
};

// Measured on one Zen 5 core (bench/gemm.cpp); packAMinRowStride on Zen 4.
Blocking blocking = {256, 144, 2048, 48, 512, 320};

#include "GemmImpl.inc"

} // namespace avx512
} // namespace
TELAR_TARGET_POP

//===----------------------------------------------------------------------===//
// AVX2 + FMA
//===----------------------------------------------------------------------===//

TELAR_TARGET_PUSH("avx2,fma")
namespace {
namespace avx2 {

struct Isa {
  using V = __m256;
  using Mask = __m256i;
  static constexpr int kWidth = 8;
  static constexpr int kMR = 6;
  /// 12 accumulators, 2 filter vectors and a broadcast: all 16 registers.
  static constexpr int kDirectMaxPixels = 6;

  static V zero() { return _mm256_setzero_ps(); }
  static V load(const float *p) { return _mm256_loadu_ps(p); }
  static void store(float *p, V v) { _mm256_storeu_ps(p, v); }
  static Mask mask(int n) {
    return _mm256_cmpgt_epi32(_mm256_set1_epi32(n),
                              _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
  }
  /// Lanes [lo, hi) (clamped to [0, 8]).
  static Mask maskRange(int lo, int hi) {
    return _mm256_andnot_si256(mask(lo), mask(hi));
  }
  static V loadMasked(const float *p, Mask m) {
    return _mm256_maskload_ps(p, m);
  }
  static void storeMasked(float *p, Mask m, V v) {
    _mm256_maskstore_ps(p, m, v);
  }
  /// p[0], p[2], ..., p[2 * (n - 1)] (n <= 8) in the first n lanes (the
  /// others undefined) from the loads of p[0..7] and p[8..15] masked by
  /// mask(2n - 1) and mask(2n - 9) (so nothing beyond p[2 * (n - 1)]).
  static V loadEven(const float *p, Mask loMask, Mask hiMask) {
    V lo = loadMasked(p, loMask);
    V hi = loadMasked(p + 8, hiMask);
    // [lo0 lo2 hi0 hi2 | lo4 lo6 hi4 hi6], then 64-bit lanes 0, 2, 1, 3.
    V t = _mm256_shuffle_ps(lo, hi, 0x88);
    return _mm256_castpd_ps(
        _mm256_permute4x64_pd(_mm256_castps_pd(t), 0xD8));
  }
  static V broadcast(const float *p) { return _mm256_broadcast_ss(p); }
  static V select(Mask m, V a, V b) {
    return _mm256_blendv_ps(b, a, _mm256_castsi256_ps(m));
  }
  static V maxNan(V acc, V x) {
    return _mm256_blendv_ps(_mm256_max_ps(acc, x), acc,
                            _mm256_cmp_ps(acc, acc, _CMP_UNORD_Q));
  }
  static V fma(V a, V b, V c) { return _mm256_fmadd_ps(a, b, c); }
  static V add(V a, V b) { return _mm256_add_ps(a, b); }
  static V max(V a, V b) { return _mm256_max_ps(a, b); }

  /// Transposes the 8 x 8 matrix whose rows are r[0..7].
  static void transpose(V r[8]) {
    V t[8], u[8];
    for (int i = 0; i < 4; ++i) {
      t[2 * i] = _mm256_unpacklo_ps(r[2 * i], r[2 * i + 1]);
      t[2 * i + 1] = _mm256_unpackhi_ps(r[2 * i], r[2 * i + 1]);
    }
    for (int g = 0; g < 2; ++g) {
      u[4 * g + 0] = _mm256_shuffle_ps(t[4 * g], t[4 * g + 2], 0x44);
      u[4 * g + 1] = _mm256_shuffle_ps(t[4 * g], t[4 * g + 2], 0xEE);
      u[4 * g + 2] = _mm256_shuffle_ps(t[4 * g + 1], t[4 * g + 3], 0x44);
      u[4 * g + 3] = _mm256_shuffle_ps(t[4 * g + 1], t[4 * g + 3], 0xEE);
    }
    for (int q = 0; q < 4; ++q) {
      r[q] = _mm256_permute2f128_ps(u[q], u[4 + q], 0x20);
      r[4 + q] = _mm256_permute2f128_ps(u[q], u[4 + q], 0x31);
    }
  }
};

// packAMinRowStride as for AVX-512: the AVX2 kernel on Zen 4 measured the
// same or faster with it (bench ViT p50 41-47 -> 34-41 ms, GPT unchanged).
Blocking blocking = {256, 144, 2048, 48, 512, 320};

#include "GemmImpl.inc"

} // namespace avx2
} // namespace
TELAR_TARGET_POP

//===----------------------------------------------------------------------===//
// Dispatch
//===----------------------------------------------------------------------===//

bool telar::runtime::detail::gemmKernelSupported(GemmKernel kernel) {
  __builtin_cpu_init();
  switch (kernel) {
  case GemmKernel::Avx512:
    return __builtin_cpu_supports("avx512f") &&
           __builtin_cpu_supports("avx512bw") &&
           __builtin_cpu_supports("avx512vl") &&
           __builtin_cpu_supports("avx512dq") &&
           __builtin_cpu_supports("fma") && __builtin_cpu_supports("avx2");
  case GemmKernel::Avx2:
    return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
  case GemmKernel::Auto:
  case GemmKernel::OpenBlas:
    return true;
  }
  return false;
}

GemmKernel telar::runtime::detail::bestGemmKernel() {
  static const GemmKernel best =
      gemmKernelSupported(GemmKernel::Avx512) ? GemmKernel::Avx512
      : gemmKernelSupported(GemmKernel::Avx2) ? GemmKernel::Avx2
                                              : GemmKernel::OpenBlas;
  return best;
}

int telar::runtime::detail::gemmTileRows(GemmKernel kernel) {
  return kernel == GemmKernel::Avx512 ? avx512::kMR
         : kernel == GemmKernel::Avx2 ? avx2::kMR
                                      : 1;
}

int telar::runtime::detail::gemmTileCols(GemmKernel kernel) {
  return kernel == GemmKernel::Avx512 ? avx512::kNR
         : kernel == GemmKernel::Avx2 ? avx2::kNR
                                      : 1;
}

int64_t telar::runtime::detail::gemmPanelDepth(GemmKernel kernel, int64_t k) {
  return kernel == GemmKernel::Avx512 ? avx512::panelDepth(k)
                                      : avx2::panelDepth(k);
}

void telar::runtime::detail::gemmPackB(GemmKernel kernel, const MatrixView &b,
                                       int64_t k0, int64_t kc, int64_t j0,
                                       int64_t nc, float *dst) {
  MatrixView nb = b;
  if (nb.rows == 1)
    nb.rs = 1;
  if (nb.cols == 1)
    nb.cs = 1;
  if (kernel == GemmKernel::Avx512)
    avx512::packB(nb, k0, kc, j0, nc, dst, nc);
  else
    avx2::packB(nb, k0, kc, j0, nc, dst, nc);
}

namespace {
/// Handles a product with nothing to compute: an empty c, or an empty sum
/// (c = 0 unless accumulating). Returns whether it did.
bool emptyProduct(const MatrixView &a, const MatrixView &c, bool accumulate) {
  if (c.rows == 0 || c.cols == 0)
    return true;
  if (a.cols != 0)
    return false;
  if (!accumulate)
    for (int64_t i = 0; i < c.rows; ++i)
      for (int64_t j = 0; j < c.cols; ++j)
        c.at(i, j) = 0.0f;
  return true;
}

/// `v` with stride 1 on a dimension of size 1, so that the layout checks
/// see a single row or column as contiguous whatever its stride.
MatrixView normalise(MatrixView v) {
  if (v.rows == 1)
    v.rs = 1;
  if (v.cols == 1)
    v.cs = 1;
  return v;
}
} // namespace

void telar::runtime::detail::gemm(GemmKernel kernel, const MatrixView &a,
                                  const MatrixView &b, const MatrixView &c,
                                  const PackedB *packed, bool accumulate) {
  if (emptyProduct(a, c, accumulate))
    return;
  MatrixView na = normalise(a), nb = normalise(b), nc = normalise(c);
  if (packed && packed->kernel != kernel)
    packed = nullptr;
  if (kernel == GemmKernel::Avx512)
    avx512::gemmAnyLayout(na, nb, nc, packed, accumulate);
  else
    avx2::gemmAnyLayout(na, nb, nc, packed, accumulate);
}

namespace {
/// gemmUnitColumns of `kernel` for the entry points that read b (or a)
/// through `conv`, `rowsB` or `colsA` (the views then only give shapes);
/// c's columns must be contiguous (`entry` names the caller when not).
void unitColumnsGemm(const char *entry, GemmKernel kernel, const MatrixView &a,
                     const MatrixView &b, const MatrixView &c,
                     const PackedB *packed, bool accumulate,
                     const Im2colB *conv, const OffsetRowsB *rowsB,
                     const OffsetRowsB *colsA) {
  if (emptyProduct(a, c, accumulate))
    return;
  MatrixView na = normalise(a), nb = normalise(b), nc = normalise(c);
  if (nc.cs != 1) {
    std::fprintf(stderr,
                 "telar runtime: %s needs an output with contiguous "
                 "columns\n",
                 entry);
    std::abort();
  }
  if (packed && packed->kernel != kernel)
    packed = nullptr;
  if (kernel == GemmKernel::Avx512)
    avx512::gemmUnitColumns(na, nb, nc, packed, accumulate, conv, rowsB,
                            colsA);
  else
    avx2::gemmUnitColumns(na, nb, nc, packed, accumulate, conv, rowsB, colsA);
}
} // namespace

void telar::runtime::detail::gemmIm2col(GemmKernel kernel, const MatrixView &a,
                                        const Im2colB &conv,
                                        const MatrixView &c, bool accumulate) {
  unitColumnsGemm("gemmIm2col", kernel, a, {nullptr, a.cols, c.cols, 0, 0}, c,
                  nullptr, accumulate, &conv, nullptr, nullptr);
}

void telar::runtime::detail::gemmOffsetRows(GemmKernel kernel,
                                            const MatrixView &a,
                                            const OffsetRowsB &b,
                                            const MatrixView &c,
                                            bool accumulate) {
  unitColumnsGemm("gemmOffsetRows", kernel, a,
                  {nullptr, a.cols, c.cols, 0, 0}, c, nullptr, accumulate,
                  nullptr, &b, nullptr);
}

void telar::runtime::detail::maxPoolPlane(GemmKernel kernel,
                                          const MaxPoolPlane &p) {
  if (kernel == GemmKernel::Avx512)
    avx512::maxPoolPlane(p);
  else
    avx2::maxPoolPlane(p);
}

void telar::runtime::detail::interleaveChannels(GemmKernel kernel,
                                                const float *const *rows,
                                                int64_t step, int64_t n,
                                                float *dst) {
  if (kernel == GemmKernel::Avx512)
    avx512::interleaveChannels(rows, step, n, dst);
  else
    avx2::interleaveChannels(rows, step, n, dst);
}

void telar::runtime::detail::convDirect(GemmKernel kernel,
                                        const DirectConv &conv,
                                        const PackedB &filter, int64_t y0,
                                        int64_t y1, int64_t f0, int64_t f1) {
  if (y0 >= y1 || f0 >= f1)
    return;
  if (filter.kernel != kernel) {
    std::fprintf(stderr, "telar runtime: convDirect's filter is packed for "
                         "another kernel\n");
    std::abort();
  }
  if (kernel == GemmKernel::Avx512)
    avx512::convDirect(conv, filter, y0, y1, f0, f1);
  else
    avx2::convDirect(conv, filter, y0, y1, f0, f1);
}

void telar::runtime::detail::gemmOffsetColumnsA(
    GemmKernel kernel, const OffsetRowsB &a, int64_t k, const MatrixView &b,
    const PackedB *packed, const MatrixView &c, bool accumulate) {
  unitColumnsGemm("gemmOffsetColumnsA", kernel, {nullptr, c.rows, k, 0, 0}, b,
                  c, packed, accumulate, nullptr, nullptr, &a);
}
