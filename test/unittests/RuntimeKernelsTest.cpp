//===- RuntimeKernelsTest.cpp - The runtime's GEMM-backed kernels ---------===//
//
// matmul, batch_matmul and conv2d_nchw against naive loops, on strided views
// covering every path of the kernels: dense, transposed (unit row stride),
// packed (no unit stride), offsets, padded leading dimensions, and the
// transposed/packed output cases; with every GEMM the CPU runs (the
// runtime's AVX-512 and AVX2 ones, OpenBLAS), on shapes around their
// micro-tile and cache-block edges, on one thread and on several; and with
// `b` registered as constant (packed once and reused). Each both adding to
// the output (TELAR_KERNEL_ACCUMULATE) and overwriting it (an output full of
// NaNs, which must not leak into the result).
//
//===----------------------------------------------------------------------===//

#include "telar/runtime/Abi.h"
#include "telar/runtime/Runtime.h"

#include <gtest/gtest.h>
#include <immintrin.h>

#include <array>
#include <cmath>
#include <cstring>
#include <functional>
#include <initializer_list>
#include <limits>
#include <numeric>
#include <random>
#include <string>
#include <vector>

namespace {

using telar::runtime::Context;
using telar::runtime::PrepackedWeights;

/// The context the tests' kernel calls run on, and the packed weights it
/// uses (the ranges the tests register as constant).
PrepackedWeights &weights() {
  static PrepackedWeights *w = new PrepackedWeights();
  return *w;
}
TelarContext *ctx() {
  static Context *c = [] {
    auto *context = new Context();
    context->setPrepackedWeights(&weights());
    return context;
  }();
  return c->get();
}

const char *gemmKernelName(int kernel) {
  switch (kernel) {
  case TELARRT_GEMM_OPENBLAS:
    return "openblas";
  case TELARRT_GEMM_AVX2:
    return "avx2";
  case TELARRT_GEMM_AVX512:
    return "avx512";
  }
  return "?";
}

/// Runs `body` once with each GEMM this CPU runs, then restores the
/// default.
void forEachGemmKernel(const std::function<void()> &body) {
  int saved = telarrt_context_get_gemm_kernel(ctx());
  for (int kernel :
       {TELARRT_GEMM_OPENBLAS, TELARRT_GEMM_AVX2, TELARRT_GEMM_AVX512}) {
    if (telarrt_context_set_gemm_kernel(ctx(), kernel) != kernel)
      continue; // not on this CPU
    SCOPED_TRACE(gemmKernelName(kernel));
    body();
  }
  telarrt_context_set_gemm_kernel(ctx(), saved);
}

/// A strided view of a rank-R f32 tensor with its own storage: a layout
/// given by a permutation of the dimensions (outermost first in memory),
/// a gap after each dimension and a leading offset.
template <int R> struct StridedTensor {
  std::vector<float> storage;
  int64_t offset = 0;
  std::array<int64_t, R> sizes{}, strides{};

  StridedTensor(std::array<int64_t, R> sizes, std::array<int, R> order,
                int64_t gap, int64_t offset, std::mt19937 &rng)
      : offset(offset), sizes(sizes) {
    // order[0] is the outermost dimension in memory; each dimension steps
    // over the inner ones plus `gap` unused elements (innermost gap: a
    // non-unit innermost stride).
    int64_t step = 1 + gap;
    for (int i = R - 1; i >= 0; --i) {
      strides[order[i]] = step;
      step = step * sizes[order[i]] + gap;
    }
    storage.assign(offset + step + 8, std::nanf(""));
    std::uniform_real_distribution<float> dist(-1, 1);
    forEach([&](const std::array<int64_t, R> &idx) { at(idx) = dist(rng); });
  }

  float &at(const std::array<int64_t, R> &idx) {
    int64_t p = offset;
    for (int i = 0; i < R; ++i)
      p += idx[i] * strides[i];
    return storage[p];
  }

  template <typename F> void forEach(F f) {
    std::array<int64_t, R> idx{};
    int64_t n = 1;
    for (int64_t s : sizes)
      n *= s;
    for (int64_t k = 0; k < n; ++k) {
      f(idx);
      for (int i = R - 1; i >= 0; --i) {
        if (++idx[i] < sizes[i])
          break;
        idx[i] = 0;
      }
    }
  }

  template <typename Desc> Desc descriptor() {
    Desc d;
    d.allocated = d.aligned = storage.data();
    d.offset = offset;
    for (int i = 0; i < R; ++i) {
      d.sizes[i] = sizes[i];
      d.strides[i] = strides[i];
    }
    return d;
  }
};

struct Layout {
  const char *name;
  std::array<int, 2> order;
  int64_t gap;
};
// Row-major (dense, padded), column-major (a transposed view) and a layout
// with no unit stride (packed by the kernel).
const Layout kLayouts[] = {{"rowmajor", {0, 1}, 0},
                           {"padded", {0, 1}, 0},
                           {"colmajor", {1, 0}, 0},
                           {"strided", {0, 1}, 1}};

StridedTensor<2> matrix(int64_t r, int64_t c, const Layout &l, int64_t offset,
                        std::mt19937 &rng) {
  StridedTensor<2> t({r, c}, l.order, l.gap, offset, rng);
  if (std::string(l.name) == "padded") {
    // Re-lay out with a leading dimension larger than the row.
    StridedTensor<2> p({r, c}, {0, 1}, 0, offset, rng);
    p.strides = {c + 3, 1};
    p.storage.assign(offset + r * (c + 3) + 8, std::nanf(""));
    t.forEach([&](const std::array<int64_t, 2> &i) { p.at(i) = t.at(i); });
    return p;
  }
  return t;
}

void expectNear(float got, double want, const std::string &where) {
  ASSERT_NEAR(got, want, 1e-4 * (1 + std::fabs(want))) << where;
}

/// The kernels' flags for adding to the output or overwriting it.
int64_t flagsFor(bool accumulate) {
  return accumulate ? TELAR_KERNEL_ACCUMULATE : 0;
}

/// Fills a tensor's elements (not its padding) with NaN: an output the
/// overwriting kernels must never read.
template <int R> void poison(StridedTensor<R> &t) {
  t.forEach([&](const std::array<int64_t, R> &i) { t.at(i) = std::nanf(""); });
}

void checkMatmul(int64_t m, int64_t k, int64_t n, const Layout &la,
                 const Layout &lb, const Layout &lc, std::mt19937 &rng,
                 bool accumulate = true) {
  auto a = matrix(m, k, la, 3, rng);
  auto b = matrix(k, n, lb, 0, rng);
  auto c = matrix(m, n, lc, 5, rng);
  auto c0 = c;
  if (!accumulate)
    poison(c);
  auto da = a.descriptor<TelarMemRef2F32>();
  auto db = b.descriptor<TelarMemRef2F32>();
  auto dc = c.descriptor<TelarMemRef2F32>();
  EXPECT_EQ(telarrt_matmul_f32(ctx(), &da, &db, &dc, flagsFor(accumulate)),
            TELAR_STATUS_OK);
  std::string where = std::string(la.name) + " x " + lb.name + " -> " +
                      lc.name + " " + std::to_string(m) + "x" +
                      std::to_string(k) + "x" + std::to_string(n) +
                      (accumulate ? " +=" : " =");
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) {
      double want = accumulate ? c0.at({i, j}) : 0.0;
      for (int64_t p = 0; p < k; ++p)
        want += double(a.at({i, p})) * b.at({p, j});
      expectNear(c.at({i, j}), want, where);
    }
  // Elements outside the view are untouched (NaN stays NaN).
  size_t nans = 0, nans0 = 0;
  for (float v : c.storage)
    nans += std::isnan(v);
  for (float v : c0.storage)
    nans0 += std::isnan(v);
  EXPECT_EQ(nans, nans0) << where;
}

TEST(RuntimeKernels, MatmulAllLayouts) {
  std::mt19937 rng(1);
  const std::array<int64_t, 3> shapes[] = {{5, 7, 3}, {1, 4, 6}, {6, 4, 1},
                                           {1, 5, 1}, {3, 1, 2}, {16, 33, 9}};
  forEachGemmKernel([&] {
    for (const auto &[m, k, n] : shapes)
      for (const Layout &la : kLayouts)
        for (const Layout &lb : kLayouts)
          for (const Layout &lc : kLayouts)
            checkMatmul(m, k, n, la, lb, lc, rng);
  });
}

TEST(RuntimeKernels, MatmulOverwriteAllLayouts) {
  std::mt19937 rng(12);
  const std::array<int64_t, 3> shapes[] = {{5, 7, 3}, {1, 4, 6}, {6, 4, 1},
                                           {1, 5, 1}, {3, 1, 2}, {16, 33, 9},
                                           {4, 0, 5}};
  forEachGemmKernel([&] {
    for (const auto &[m, k, n] : shapes)
      for (const Layout &la : kLayouts)
        for (const Layout &lb : kLayouts)
          for (const Layout &lc : kLayouts)
            checkMatmul(m, k, n, la, lb, lc, rng, /*accumulate=*/false);
  });
}

/// Products with one output row or column (GEMVs) shared out by rows of
/// the output across 2 and 3 threads (the threshold lowered to 1: slices
/// of 64 rows or more), every layout, accumulating and overwriting.
TEST(RuntimeKernels, GemvSplitAcrossThreads) {
  std::mt19937 rng(21);
  int savedThreads = telarrt_get_num_threads();
  double savedWork = telarrt_set_kernel_min_parallel_work(1);
  const std::array<int64_t, 3> shapes[] = {{1, 37, 200}, {190, 29, 1},
                                           {1, 5, 64}, {130, 3, 1}};
  for (int threads : {2, 3}) {
    telarrt_set_num_threads(threads);
    SCOPED_TRACE("threads " + std::to_string(threads));
    for (const auto &[m, k, n] : shapes)
      for (const Layout &la : kLayouts)
        for (const Layout &lb : kLayouts)
          for (const Layout &lc : kLayouts)
            for (bool accumulate : {true, false})
              checkMatmul(m, k, n, la, lb, lc, rng, accumulate);
  }
  telarrt_set_num_threads(savedThreads);
  telarrt_set_kernel_min_parallel_work(savedWork);
}

TEST(RuntimeKernels, GemmKernelSelection) {
  int saved = telarrt_context_get_gemm_kernel(ctx());
  EXPECT_GE(saved, TELARRT_GEMM_OPENBLAS);
  EXPECT_LE(saved, TELARRT_GEMM_AVX512);
  EXPECT_EQ(telarrt_context_set_gemm_kernel(ctx(), TELARRT_GEMM_OPENBLAS),
            TELARRT_GEMM_OPENBLAS);
  EXPECT_EQ(telarrt_context_get_gemm_kernel(ctx()), TELARRT_GEMM_OPENBLAS);
  EXPECT_EQ(telarrt_context_set_gemm_kernel(ctx(), 7), -1);
  EXPECT_EQ(telarrt_context_set_gemm_kernel(ctx(), -2), -1);
  EXPECT_EQ(telarrt_context_get_gemm_kernel(ctx()), TELARRT_GEMM_OPENBLAS);
  // AUTO resolves to a concrete kernel.
  int best = telarrt_context_set_gemm_kernel(ctx(), TELARRT_GEMM_AUTO);
  EXPECT_GE(best, TELARRT_GEMM_OPENBLAS);
  EXPECT_EQ(telarrt_context_get_gemm_kernel(ctx()), best);
  telarrt_context_set_gemm_kernel(ctx(), saved);
}

/// Shapes around the micro-tiles' edges (AVX-512: 12 x 32, AVX2: 6 x 16)
/// and the cache blocks' (k beyond one 256-deep panel; m up to 48 rows (b
/// read in place), up to 512 (b packed panel by panel), beyond (b packed in
/// blocks, rows in blocks of 144); n beyond a 2048-column block; a packed
/// when its rows are 320 or more apart and b has 4 panels), with
/// every combination of layouts of a, b and c in turn.
TEST(RuntimeKernels, GemmEdgeShapes) {
  std::mt19937 rng(6);
  forEachGemmKernel([&] {
    int combo = 0;
    auto next = [&](int64_t m, int64_t k, int64_t n) {
      const Layout &la = kLayouts[combo % 4];
      const Layout &lb = kLayouts[combo / 4 % 4];
      const Layout &lc = kLayouts[combo / 16 % 4];
      ++combo;
      checkMatmul(m, k, n, la, lb, lc, rng);
    };
    for (int64_t m : {1, 2, 5, 6, 7, 11, 12, 13, 25})
      for (int64_t n : {1, 2, 7, 8, 9, 15, 16, 17, 31, 32, 33, 65})
        for (int64_t k : {1, 2, 17, 64})
          next(m, k, n);
    for (int i = 0; i < 64; ++i) {
      next(13, 300, 33);  // two k blocks (balanced)
      next(12, 700, 17);  // three
      next(13, 330, 130); // a packed (rows >= 320 apart, 5 panels of b)
    }
    for (int i = 0; i < 16; ++i) {
      next(49, 20, 40);   // b packed by panels
      next(530, 9, 35);   // b packed in blocks; four row blocks
      next(5, 3, 2100);   // two column blocks
    }
    for (int i = 0; i < 4; ++i)
      next(520, 2, 2100);
  });
}

/// Overwriting (the micro-kernel's store, full and edge tiles; only the
/// first of several k blocks overwrites) on the same edges.
TEST(RuntimeKernels, GemmOverwriteEdgeShapes) {
  std::mt19937 rng(13);
  forEachGemmKernel([&] {
    int combo = 0;
    auto next = [&](int64_t m, int64_t k, int64_t n) {
      const Layout &la = kLayouts[combo % 4];
      const Layout &lb = kLayouts[combo / 4 % 4];
      const Layout &lc = kLayouts[combo / 16 % 4];
      ++combo;
      checkMatmul(m, k, n, la, lb, lc, rng, /*accumulate=*/false);
    };
    for (int64_t m : {1, 2, 6, 7, 12, 13, 25})
      for (int64_t n : {1, 2, 9, 16, 17, 32, 33})
        for (int64_t k : {1, 17, 64})
          next(m, k, n);
    for (int i = 0; i < 16; ++i) {
      next(13, 300, 33); // two k blocks
      next(12, 700, 17); // three
      next(25, 700, 129); // a packed, three k blocks
      next(49, 20, 40);  // b packed by panels
      next(530, 9, 35);  // b packed in blocks; four row blocks
      next(5, 3, 2100);  // two column blocks
    }
  });
}

/// Zero (broadcast) and negative strides, and operands of one row or
/// column whose other stride is arbitrary.
TEST(RuntimeKernels, GemmOddStrides) {
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> dist(-1, 1);
  forEachGemmKernel([&] {
    for (auto [m, k, n] : {std::array<int64_t, 3>{13, 20, 33},
                           std::array<int64_t, 3>{3, 5, 70},
                           std::array<int64_t, 3>{40, 1, 3}}) {
      std::vector<float> a(k), b(k * n), c(m * n + 1);
      for (float &x : a)
        x = dist(rng);
      for (float &x : b)
        x = dist(rng);
      for (float &x : c)
        x = dist(rng);
      std::vector<float> c0 = c;
      // Every row of a is the same vector (row stride 0); b's rows are
      // stored last to first (row stride -n); c is column-major after one
      // element of offset (which must stay untouched).
      TelarMemRef2F32 da{a.data(), a.data(), 0, {m, k}, {0, 1}};
      TelarMemRef2F32 db{b.data(), b.data(), (k - 1) * n, {k, n}, {-n, 1}};
      TelarMemRef2F32 dc{c.data(), c.data(), 1, {m, n}, {1, m}};
      EXPECT_EQ(
          telarrt_matmul_f32(ctx(), &da, &db, &dc, TELAR_KERNEL_ACCUMULATE),
          TELAR_STATUS_OK);
      for (int64_t i = 0; i < m; ++i)
        for (int64_t j = 0; j < n; ++j) {
          double want = c0[1 + i + j * m];
          for (int64_t p = 0; p < k; ++p)
            want += double(a[p]) * b[(k - 1 - p) * n + j];
          expectNear(c[1 + i + j * m], want, "odd strides");
        }
      EXPECT_EQ(c[0], c0[0]);
    }
    // A single row of a with a huge row stride, a single column of b with a
    // huge column stride.
    std::vector<float> a(8), b(8 * 3), c(3 * 5);
    for (float &x : a)
      x = dist(rng);
    for (float &x : b)
      x = dist(rng);
    TelarMemRef2F32 da{a.data(), a.data(), 0, {1, 8}, {1 << 30, 1}};
    TelarMemRef2F32 db{b.data(), b.data(), 0, {8, 1}, {3, 1 << 30}};
    TelarMemRef2F32 dc{c.data(), c.data(), 2, {1, 1}, {1 << 30, 1 << 30}};
    EXPECT_EQ(telarrt_matmul_f32(ctx(), &da, &db, &dc, TELAR_KERNEL_ACCUMULATE),
              TELAR_STATUS_OK);
    double want = 0;
    for (int p = 0; p < 8; ++p)
      want += double(a[p]) * b[3 * p];
    expectNear(c[2], want, "1x8x1");
  });
}

TEST(RuntimeKernels, MatmulEmptyContraction) {
  std::mt19937 rng(2);
  auto a = matrix(3, 0, kLayouts[0], 0, rng);
  auto b = matrix(0, 2, kLayouts[0], 0, rng);
  auto c = matrix(3, 2, kLayouts[0], 0, rng);
  auto c0 = c;
  auto da = a.descriptor<TelarMemRef2F32>();
  auto db = b.descriptor<TelarMemRef2F32>();
  auto dc = c.descriptor<TelarMemRef2F32>();
  EXPECT_EQ(telarrt_matmul_f32(ctx(), &da, &db, &dc, TELAR_KERNEL_ACCUMULATE),
            TELAR_STATUS_OK);
  // Bitwise: the padding is NaN.
  EXPECT_EQ(std::memcmp(c.storage.data(), c0.storage.data(),
                        c.storage.size() * sizeof(float)),
            0);
}

void checkBatchMatmul(int64_t batch, int64_t m, int64_t k, int64_t n,
                      std::mt19937 &rng, bool accumulate = true) {
  // Batch not outermost in memory (as in a view of [M, B, K]), transposed
  // matrices, and an output with no unit stride.
  const std::array<int, 3> orders[] = {
      {0, 1, 2}, {1, 0, 2}, {0, 2, 1}, {2, 1, 0}};
  for (const auto &oa : orders)
    for (const auto &ob : orders)
      for (int64_t gap : {0, 1}) {
        StridedTensor<3> a({batch, m, k}, oa, 0, 1, rng);
        StridedTensor<3> b({batch, k, n}, ob, 0, 2, rng);
        StridedTensor<3> c({batch, m, n}, oa, gap, 0, rng);
        auto c0 = c;
        if (!accumulate)
          poison(c);
        auto da = a.descriptor<TelarMemRef3F32>();
        auto db = b.descriptor<TelarMemRef3F32>();
        auto dc = c.descriptor<TelarMemRef3F32>();
        EXPECT_EQ(telarrt_batch_matmul_f32(ctx(), &da, &db, &dc,
                                           flagsFor(accumulate)),
                  TELAR_STATUS_OK);
        for (int64_t s = 0; s < batch; ++s)
          for (int64_t i = 0; i < m; ++i)
            for (int64_t j = 0; j < n; ++j) {
              double want = accumulate ? c0.at({s, i, j}) : 0.0;
              for (int64_t p = 0; p < k; ++p)
                want += double(a.at({s, i, p})) * b.at({s, p, j});
              expectNear(c.at({s, i, j}), want, "batch matmul");
            }
      }
}

TEST(RuntimeKernels, BatchMatmulStridedBatches) {
  std::mt19937 rng(3);
  forEachGemmKernel([&] {
    checkBatchMatmul(4, 5, 6, 3, rng);
    checkBatchMatmul(3, 16, 64, 16, rng); // attention heads
    checkBatchMatmul(2, 13, 16, 33, rng);
    checkBatchMatmul(4, 5, 6, 3, rng, /*accumulate=*/false);
    checkBatchMatmul(3, 16, 64, 16, rng, /*accumulate=*/false);
    checkBatchMatmul(2, 13, 300, 33, rng, /*accumulate=*/false);
  });
}

struct ConvCase {
  std::array<int64_t, 4> input;  // N C H W (of the image, unpadded)
  std::array<int64_t, 2> kernel; // F, and KH (= KW unless kw says)
  int64_t sh, sw, dh, dw;
  // Zero padding: top, left (the kernel's pad_top, pad_left), bottom,
  // right (implied by the output size).
  std::array<int64_t, 4> pads = {0, 0, 0, 0};
  // KW of a kernel that is not square (0: KH).
  int64_t kw = 0;

  int64_t getKW() const { return kw ? kw : kernel[1]; }
};

/// Runs `cc` with `flags` (ACCUMULATE: onto a random output, else onto
/// NaNs, which must not be read) and checks it against naive loops that
/// read 0 outside the image. The input is a view of the first w columns of
/// a tensor `inExtraColumns` wider. With `bias`, through
/// telarrt_conv2d_nchw_bias_f32 with a random bias (every other element of
/// a buffer). With `constantFilter`, the filter lies in a range registered
/// as constant (an artifact's weight): the kernels pack it once.
void checkConv(const ConvCase &cc, const std::array<int, 4> &inOrder,
               const std::array<int, 4> &filterOrder,
               const std::array<int, 4> &outOrder, int64_t outGap,
               std::mt19937 &rng, int64_t flags = TELAR_KERNEL_ACCUMULATE,
               int64_t inExtraColumns = 0, bool bias = false,
               bool constantFilter = false) {
  auto [n, c, h, w] = cc.input;
  auto [pt, pl, pb, pr] = cc.pads;
  int64_t f = cc.kernel[0], kh = cc.kernel[1], kw = cc.getKW();
  int64_t oh = (h + pt + pb - cc.dh * (kh - 1) - 1) / cc.sh + 1;
  int64_t ow = (w + pl + pr - cc.dw * (kw - 1) - 1) / cc.sw + 1;
  StridedTensor<4> in({n, c, h, w + inExtraColumns}, inOrder, 0, 2, rng);
  StridedTensor<4> filter({f, c, kh, kw}, filterOrder, 0, 0, rng);
  StridedTensor<4> out({n, f, oh, ow}, outOrder, outGap, 1, rng);
  bool accumulate = flags & TELAR_KERNEL_ACCUMULATE;
  if (!accumulate)
    out.forEach([&](const std::array<int64_t, 4> &o) {
      out.at(o) = std::nanf("");
    });
  auto out0 = out;
  if (!accumulate)
    poison(out);
  auto di = in.descriptor<TelarMemRef4F32>();
  di.sizes[3] = w;
  auto df = filter.descriptor<TelarMemRef4F32>();
  auto dout = out.descriptor<TelarMemRef4F32>();
  std::vector<float> biasData(static_cast<size_t>(2 * f), std::nanf(""));
  std::uniform_real_distribution<float> dist(-1, 1);
  for (int64_t i = 0; i < f; ++i)
    biasData[2 * i] = dist(rng);
  TelarMemRef1F32 db{biasData.data(), biasData.data(), 0, {f}, {2}};
  const void *filterData = filter.storage.data();
  size_t filterBytes = filter.storage.size() * sizeof(float);
  if (constantFilter)
    weights().registerRange(filterData, filterBytes);
  int status = bias ? telarrt_conv2d_nchw_bias_f32(ctx(), &di, &df, &db,
                                                   &dout, cc.sh, cc.sw, cc.dh,
                                                   cc.dw, pt, pl, flags)
                    : telarrt_conv2d_nchw_f32(ctx(), &di, &df, &dout, cc.sh,
                                              cc.sw, cc.dh, cc.dw, pt, pl,
                                              flags);
  if (constantFilter)
    weights().unregisterRange(filterData, filterBytes);
  ASSERT_EQ(status, TELAR_STATUS_OK) << telarrt_context_error(ctx());
  out.forEach([&](const std::array<int64_t, 4> &o) {
    double want = accumulate ? out0.at(o) : 0.0;
    if (bias)
      want += biasData[2 * o[1]];
    for (int64_t ci = 0; ci < c; ++ci)
      for (int64_t y = 0; y < kh; ++y)
        for (int64_t x = 0; x < kw; ++x) {
          int64_t iy = o[2] * cc.sh + y * cc.dh - pt,
                  ix = o[3] * cc.sw + x * cc.dw - pl;
          if (iy >= 0 && iy < h && ix >= 0 && ix < w)
            want += double(in.at({o[0], ci, iy, ix})) *
                    filter.at({o[1], ci, y, x});
        }
    if (flags & TELAR_KERNEL_RELU)
      want = std::max(want, 0.0);
    expectNear(out.at(o), want, "conv");
  });
}

TEST(RuntimeKernels, Conv2dNchw) {
  std::mt19937 rng(4);
  const ConvCase cases[] = {
      {{2, 3, 7, 6}, {4, 3}, 1, 1, 1, 1}, // plain 3x3
      {{1, 2, 9, 8}, {3, 3}, 2, 1, 1, 2}, // strides and dilations
      {{2, 4, 5, 5}, {3, 1}, 1, 1, 1, 1}, // 1x1: reads the input in place
      {{1, 3, 6, 7}, {2, 1}, 2, 3, 1, 1}, // strided 1x1
      {{3, 1, 4, 4}, {1, 4}, 1, 1, 1, 1}, // kernel covers the input
      // Deep im2col matrices, done in tiles of output pixels (a tile that
      // ends inside an output row).
      {{2, 64, 18, 18}, {8, 3}, 1, 1, 1, 1},
      {{1, 64, 35, 35}, {4, 3}, 2, 2, 1, 1},
  };
  const std::array<int, 4> nchw = {0, 1, 2, 3}, nhwc = {0, 2, 3, 1},
                           hwcf = {2, 3, 1, 0};
  forEachGemmKernel([&] {
    for (const ConvCase &cc : cases) {
      checkConv(cc, nchw, nchw, nchw, 0, rng);
      // Channels-last input, a filter stored [KH, KW, C, F] (packed), an
      // output whose pixels do not collapse.
      checkConv(cc, nhwc, hwcf, nchw, 1, rng);
      checkConv(cc, nchw, nchw, nhwc, 0, rng);
      // Overwriting, on the im2col panels, the im2col matrix and a dense
      // temporary for an output whose pixels do not collapse.
      checkConv(cc, nchw, nchw, nchw, 0, rng, /*flags=*/0);
      checkConv(cc, nhwc, hwcf, nchw, 1, rng, /*flags=*/0);
      checkConv(cc, nchw, nchw, nhwc, 0, rng, /*flags=*/0);
    }
  });
}

/// Sizes large enough for the kernels to split their work across threads:
/// column and row blocks of a GEMM, batch elements, images, im2col rows.
TEST(RuntimeKernels, ParallelSplits) {
  int saved = telarrt_get_num_threads();
  telarrt_set_num_threads(4);
  // The threshold these cases were written for (the default, but a
  // TELAR_KERNEL_MIN_PARALLEL_WORK in the environment must not change them).
  double savedWork = telarrt_set_kernel_min_parallel_work(1 << 18);
  std::mt19937 rng(5);
  forEachGemmKernel([&] {
    for (const Layout &la : kLayouts)
      for (const Layout &lc : kLayouts) {
        checkMatmul(40, 300, 130, la, kLayouts[0], lc, rng); // column blocks
        checkMatmul(150, 200, 20, la, kLayouts[2], lc, rng); // row blocks
        checkMatmul(1, 1000, 600, la, kLayouts[2], lc, rng); // GEMV blocks
        checkMatmul(600, 1000, 1, la, kLayouts[3], lc, rng);
      }
    checkMatmul(301, 50, 7, kLayouts[0], kLayouts[1], kLayouts[2], rng);
    checkBatchMatmul(9, 24, 40, 33, rng); // batch elements
    checkBatchMatmul(2, 64, 80, 96, rng); // blocks of each product
    checkMatmul(40, 300, 130, kLayouts[0], kLayouts[0], kLayouts[0], rng,
                /*accumulate=*/false);
    checkMatmul(150, 200, 20, kLayouts[2], kLayouts[2], kLayouts[3], rng,
                /*accumulate=*/false);
    checkMatmul(1, 1000, 600, kLayouts[0], kLayouts[2], kLayouts[0], rng,
                /*accumulate=*/false);
    checkBatchMatmul(9, 24, 40, 33, rng, /*accumulate=*/false);
    checkBatchMatmul(2, 64, 80, 96, rng, /*accumulate=*/false);
    const std::array<int, 4> nchw = {0, 1, 2, 3}, nhwc = {0, 2, 3, 1};
    for (const ConvCase &cc :
         {ConvCase{{1, 8, 30, 30}, {16, 3}, 1, 1, 1, 1},
          ConvCase{{5, 4, 12, 12}, {8, 3}, 1, 1, 1, 1},
          ConvCase{{1, 32, 20, 20}, {24, 1}, 1, 1, 1, 1},
          // Pixel tiles of several images to threads; tiles of one image
          // each split across the threads.
          ConvCase{{3, 64, 18, 18}, {8, 3}, 1, 1, 1, 1},
          ConvCase{{1, 64, 34, 34}, {16, 3}, 1, 1, 1, 1}}) {
      checkConv(cc, nchw, nchw, nchw, 0, rng);
      checkConv(cc, nhwc, nchw, nchw, 1, rng);
      checkConv(cc, nchw, nchw, nchw, 0, rng, /*flags=*/0);
      checkConv(cc, nhwc, nchw, nchw, 1, rng, /*flags=*/0);
    }
  });
  telarrt_set_num_threads(saved);
  telarrt_set_kernel_min_parallel_work(savedWork);
}

/// Runs `body` with each way of feeding the GEMM a convolution asks for
/// (TELARRT_CONV_*), then restores the default.
void forEachConvMethod(const std::function<void()> &body) {
  for (int method : {TELARRT_CONV_AUTO, TELARRT_CONV_DIRECT,
                     TELARRT_CONV_PHASE_PLANES, TELARRT_CONV_IM2COL_PANELS,
                     TELARRT_CONV_IM2COL}) {
    ASSERT_GE(telarrt_set_conv_method(method), 0);
    SCOPED_TRACE("conv method " + std::to_string(method));
    body();
  }
  telarrt_set_conv_method(TELARRT_CONV_AUTO);
}

/// Runs `body` on each case on each of `threads`, GEMM kernel and conv
/// method, with the case in the trace; restores the thread count.
void forEachConvSetting(std::initializer_list<int> threads,
                        const std::vector<ConvCase> &cases,
                        const std::function<void(const ConvCase &)> &body) {
  int saved = telarrt_get_num_threads();
  for (int t : threads) {
    telarrt_set_num_threads(t);
    SCOPED_TRACE("threads " + std::to_string(t));
    forEachGemmKernel([&] {
      forEachConvMethod([&] {
        for (const ConvCase &cc : cases) {
          SCOPED_TRACE(
              std::to_string(cc.input[1]) + "x" + std::to_string(cc.input[2]) +
              "x" + std::to_string(cc.input[3]) + " kernel " +
              std::to_string(cc.kernel[1]) + "x" + std::to_string(cc.getKW()) +
              " stride " + std::to_string(cc.sh) + "x" +
              std::to_string(cc.sw) + " pads " +
              std::to_string(cc.pads[0]) + "," + std::to_string(cc.pads[1]) +
              "," + std::to_string(cc.pads[2]) + "," +
              std::to_string(cc.pads[3]));
          body(cc);
        }
      });
    });
  }
  telarrt_set_num_threads(saved);
}

// Kernels that are not square (1xN, Nx1, 3x5), strided and padded, on every
// conv method, GEMM kernel and operand layout: with square kernels only, a
// window's column counted from KH instead of KW goes unseen.
TEST(RuntimeKernels, Conv2dNonSquareKernels) {
  std::mt19937 rng(11);
  const std::vector<ConvCase> cases = {
      {{1, 3, 9, 11}, {4, 1}, 1, 1, 1, 1, {0, 3, 0, 3}, 7},   // 1x7
      {{2, 4, 11, 7}, {5, 3}, 2, 1, 1, 1, {1, 0, 1, 0}, 1},   // 3x1, stride 2
      {{1, 8, 12, 13}, {6, 3}, 1, 1, 1, 1, {1, 2, 1, 2}, 5},  // 3x5
      {{1, 16, 14, 15}, {8, 3}, 2, 2, 1, 1, {1, 2, 1, 2}, 5}, // 3x5, stride 2
      {{1, 8, 13, 9}, {4, 5}, 1, 2, 1, 1, {2, 1, 2, 1}, 3},   // 5x3, stride 1x2
  };
  const std::array<int, 4> nchw = {0, 1, 2, 3}, nhwc = {0, 2, 3, 1},
                           hwcf = {2, 3, 1, 0};
  forEachConvSetting({1, 2}, cases, [&](const ConvCase &cc) {
    checkConv(cc, nchw, nchw, nchw, 0, rng);
    checkConv(cc, nchw, nchw, nchw, 0, rng, /*flags=*/0);
    checkConv(cc, nhwc, hwcf, nchw, 1, rng);
    checkConv(cc, nchw, nchw, nchw, 0, rng, TELAR_KERNEL_RELU, 0,
              /*bias=*/true);
  });
}

TEST(RuntimeKernels, ConvMethodRejectsUnknown) {
  EXPECT_EQ(telarrt_set_conv_method(5), -1);
  EXPECT_EQ(telarrt_set_conv_method(-1), -1);
  EXPECT_EQ(telarrt_set_conv_method(TELARRT_CONV_AUTO), TELARRT_CONV_AUTO);
}

/// The runtime's GEMM reads a convolution's im2col matrix from the input
/// itself, through phase planes or panels packed straight from the image:
/// runs of output pixels across output rows (outputs narrower and wider
/// than a panel, odd sizes), strides 1 and 2 (vector loads) and others
/// (element by element), dilations, 1x1 / 3x3 / 7x7 kernels, depths across
/// several panel blocks, more filters than the GEMM packs panel by panel,
/// a channels-last input, an input read in place as its own plane (rows
/// wider than the image); on one thread and on 2, 3 and 4 (images to
/// threads; each image split into pixel blocks or filter blocks).
TEST(RuntimeKernels, Conv2dIm2colPanels) {
  // The threshold these cases were written for (see ParallelSplits).
  double savedWork = telarrt_set_kernel_min_parallel_work(1 << 18);
  std::mt19937 rng(9);
  const std::vector<ConvCase> cases = {
      {{1, 3, 23, 23}, {8, 7}, 2, 2, 1, 1},   // 7x7 stride 2 (a stem)
      {{2, 5, 13, 11}, {7, 3}, 1, 1, 1, 1},   // odd sizes, 9 x 11 outputs
      {{1, 64, 20, 19}, {16, 3}, 1, 1, 1, 1}, // depth 576: several blocks
      {{1, 16, 41, 39}, {5, 3}, 2, 2, 1, 1},  // stride 2, 20 x 19 outputs
      {{3, 8, 9, 70}, {12, 3}, 1, 2, 1, 1},   // wider than a panel
      {{1, 7, 17, 15}, {9, 1}, 2, 2, 1, 1},   // 1x1 stride 2 (downsample)
      {{2, 6, 15, 16}, {4, 3}, 3, 1, 2, 2},   // stride 3, dilation 2
      {{1, 40, 9, 9}, {70, 3}, 1, 1, 1, 1},   // more filters than pixels
      {{1, 4, 9, 8}, {530, 3}, 1, 1, 1, 1},   // over 512 filters
      {{4, 3, 12, 12}, {2, 5}, 1, 3, 1, 1},   // 4 images, stride 3
      {{2, 16, 10, 9}, {20, 1}, 1, 1, 1, 1},  // 1x1: one plane, in place
      {{1, 12, 11, 13}, {6, 3}, 1, 1, 3, 2},  // dilated, in place
      // Fewer output columns than a micro-tile, many filters: the pixels
      // as the GEMM's rows (transposed).
      {{2, 16, 6, 6}, {80, 3}, 1, 1, 1, 1},   // 4x4 outputs, 80 filters
      {{1, 24, 7, 7}, {130, 3}, 2, 2, 1, 1},  // stride 2, 3x3 outputs
      {{1, 8, 6, 6}, {70, 1}, 2, 2, 1, 1},    // 1x1 stride 2
  };
  const std::array<int, 4> nchw = {0, 1, 2, 3}, nhwc = {0, 2, 3, 1};
  forEachConvSetting({1, 2, 3, 4}, cases, [&](const ConvCase &cc) {
    checkConv(cc, nchw, nchw, nchw, 0, rng);
    checkConv(cc, nhwc, nchw, nchw, 0, rng);
    checkConv(cc, nchw, nchw, nchw, 0, rng, /*flags=*/0);
    checkConv(cc, nchw, nchw, nchw, 0, rng, /*flags=*/0,
              /*inExtraColumns=*/3);
  });
  telarrt_set_kernel_min_parallel_work(savedWork);
}

/// Implicit zero padding (pad_top / pad_left; bottom and right implied by
/// the output size), against naive loops that read 0 outside the image:
/// the GEMM's panels packed from the image (runs clipped at the left and
/// right edges, rows above and below), the materialised im2col matrix
/// (OpenBLAS; outputs whose pixels do not collapse), strides 1, 2 and 3,
/// dilations, asymmetric pads, odd sizes, images smaller than the kernel
/// and wider than a panel; on one thread and on 2 and 3.
TEST(RuntimeKernels, Conv2dImplicitPadding) {
  std::mt19937 rng(12);
  const std::vector<ConvCase> cases = {
      {{1, 3, 23, 23}, {8, 7}, 2, 2, 1, 1, {3, 3, 3, 3}},  // the 7x7 stem
      {{2, 5, 13, 11}, {7, 3}, 1, 1, 1, 1, {1, 1, 1, 1}},  // odd sizes
      {{1, 16, 15, 17}, {5, 3}, 2, 2, 1, 1, {1, 1, 1, 1}}, // stride 2
      {{1, 16, 14, 14}, {6, 3}, 2, 2, 1, 1, {1, 1, 0, 0}}, // implied 0
      {{1, 4, 7, 7}, {9, 3}, 1, 1, 1, 1, {1, 1, 1, 1}},    // 7x7 maps
      {{1, 64, 14, 14}, {16, 3}, 1, 1, 1, 1, {1, 1, 1, 1}}, // deep: blocks
      {{2, 6, 15, 16}, {4, 3}, 3, 1, 2, 2, {2, 1, 0, 3}},  // dilation 2
      {{1, 3, 9, 40}, {5, 3}, 1, 2, 1, 1, {2, 0, 1, 2}},   // wider than 32
      {{1, 2, 4, 3}, {3, 5}, 1, 1, 1, 1, {2, 2, 2, 2}},    // image < kernel
      {{1, 3, 12, 12}, {5, 5}, 1, 3, 1, 2, {4, 1, 0, 4}},  // stride 3
      {{1, 8, 9, 9}, {70, 3}, 1, 1, 1, 1, {1, 1, 1, 1}},   // filter blocks
      {{1, 7, 17, 15}, {9, 1}, 2, 2, 1, 1, {0, 0, 0, 0}},  // 1x1 stride 2
  };
  const std::array<int, 4> nchw = {0, 1, 2, 3}, nhwc = {0, 2, 3, 1};
  forEachConvSetting({1, 2, 3}, cases, [&](const ConvCase &cc) {
    checkConv(cc, nchw, nchw, nchw, 0, rng);
    checkConv(cc, nhwc, nchw, nchw, 0, rng); // element by element
    checkConv(cc, nchw, nchw, nchw, 1, rng); // im2col materialised
    checkConv(cc, nchw, nchw, nchw, 0, rng, TELAR_KERNEL_ACCUMULATE,
              /*inExtraColumns=*/2);
    checkConv(cc, nchw, nchw, nchw, 0, rng, /*flags=*/0,
              /*inExtraColumns=*/0, /*bias=*/true);
  });
}

/// The flags: without ACCUMULATE the output is overwritten (its NaNs are
/// never read); RELU clamps the result at 0 (with and without padding and
/// accumulation, every path, several threads).
TEST(RuntimeKernels, Conv2dFlags) {
  std::mt19937 rng(13);
  const std::vector<ConvCase> cases = {
      {{1, 5, 13, 11}, {7, 3}, 1, 1, 1, 1, {1, 1, 1, 1}},
      {{2, 16, 12, 12}, {12, 3}, 2, 2, 1, 1, {1, 1, 0, 0}},
      {{1, 64, 9, 9}, {40, 3}, 1, 1, 1, 1, {0, 0, 0, 0}},
      {{1, 32, 8, 8}, {24, 1}, 1, 1, 1, 1, {0, 0, 0, 0}}, // read in place
      {{1, 0, 5, 5}, {3, 3}, 1, 1, 1, 1, {1, 1, 1, 1}},   // an empty sum
      {{1, 8, 4, 4}, {96, 3}, 1, 1, 1, 1, {1, 1, 1, 1}},  // transposed
  };
  const std::array<int, 4> nchw = {0, 1, 2, 3};
  forEachConvSetting({1, 2}, cases, [&](const ConvCase &cc) {
    for (int64_t flags :
         {int64_t(0), int64_t(TELAR_KERNEL_RELU),
          int64_t(TELAR_KERNEL_ACCUMULATE | TELAR_KERNEL_RELU)}) {
      SCOPED_TRACE("flags " + std::to_string(flags));
      checkConv(cc, nchw, nchw, nchw, 0, rng, flags);
      checkConv(cc, nchw, nchw, nchw, 1, rng, flags);
      // With a bias: added with the result (phase planes) or to the output
      // beforehand; an output whose pixels do not collapse.
      for (int64_t f2 : {flags, flags | TELAR_KERNEL_ACCUMULATE}) {
        checkConv(cc, nchw, nchw, nchw, 0, rng, f2, 0, /*bias=*/true);
        checkConv(cc, nchw, nchw, nchw, 1, rng, f2, 0, /*bias=*/true);
      }
    }
  });
}

/// Filters registered as constants, as an artifact's weights are: AUTO
/// then computes the convolutions directly from the filter packed once,
/// strided 1x1 ones included when their channels interleave in blocks of
/// 16 (ResNet's downsampling), with every flag, bias and thread count, the
/// filter's blocks prefetched ahead across several panels of filters.
TEST(RuntimeKernels, Conv2dConstantFilter) {
  std::mt19937 rng(17);
  const std::vector<ConvCase> cases = {
      {{1, 32, 14, 14}, {72, 1}, 2, 2, 1, 1},          // strided 1x1
      {{2, 16, 9, 11}, {40, 1}, 2, 2, 1, 1},           // odd sizes
      {{1, 48, 8, 8}, {16, 1}, 3, 1, 1, 1},            // stride 3x1
      {{1, 24, 10, 10}, {32, 1}, 2, 2, 1, 1},          // 24 channels: panels
      {{1, 32, 7, 7}, {80, 3}, 1, 1, 1, 1, {1, 1, 1, 1}},
      {{1, 32, 14, 14}, {64, 3}, 2, 2, 1, 1, {1, 1, 1, 1}},
      {{1, 32, 12, 12}, {64, 3}, 1, 1, 1, 1, {1, 2, 1, 2}, 5}, // 3x5
      {{1, 16, 9, 16}, {32, 1}, 1, 2, 1, 1, {0, 3, 0, 3}, 7},  // 1x7
  };
  const std::array<int, 4> nchw = {0, 1, 2, 3};
  int saved = telarrt_get_num_threads();
  for (int threads : {1, 2}) {
    telarrt_set_num_threads(threads);
    SCOPED_TRACE("threads " + std::to_string(threads));
    forEachGemmKernel([&] {
      for (const ConvCase &cc : cases) {
        SCOPED_TRACE(std::to_string(cc.input[1]) + "x" +
                     std::to_string(cc.input[2]) + " kernel " +
                     std::to_string(cc.kernel[1]) + "x" +
                     std::to_string(cc.getKW()) + " stride " +
                     std::to_string(cc.sh));
        for (int64_t flags :
             {int64_t(0), int64_t(TELAR_KERNEL_ACCUMULATE | TELAR_KERNEL_RELU)})
          for (bool bias : {false, true})
            checkConv(cc, nchw, nchw, nchw, 0, rng, flags, 0, bias,
                      /*constantFilter=*/true);
      }
    });
  }
  telarrt_set_num_threads(saved);
  EXPECT_EQ(weights().getBytes(), 0u);
}

/// One convolution of a pair (telarrt_conv2d_pair_nchw_f32): F filters of
/// K x K, stride, padding top/left (bottom/right implied by the sizes).
struct PairConv {
  int64_t f, k, stride, padTop, padLeft, padBottom, padRight;
};

/// out[n][f][oy][ox] of `x` (N x C x H x W, dense) convolved with `filter`
/// (F x C x K x K) in doubles, zeros outside the image, plus `bias` (when
/// not empty), then the ReLU with `relu`.
std::vector<double> naiveConv(const std::vector<double> &x, int64_t n,
                              int64_t c, int64_t h, int64_t w,
                              const StridedTensor<4> &filter,
                              const std::vector<float> &bias,
                              const PairConv &pc, bool relu, int64_t &oh,
                              int64_t &ow) {
  oh = (h + pc.padTop + pc.padBottom - pc.k) / pc.stride + 1;
  ow = (w + pc.padLeft + pc.padRight - pc.k) / pc.stride + 1;
  auto &f = const_cast<StridedTensor<4> &>(filter);
  std::vector<double> y(static_cast<size_t>(n * pc.f * oh * ow));
  for (int64_t i = 0; i < n; ++i)
    for (int64_t fi = 0; fi < pc.f; ++fi)
      for (int64_t oy = 0; oy < oh; ++oy)
        for (int64_t ox = 0; ox < ow; ++ox) {
          double sum = bias.empty() ? 0.0 : bias[fi];
          for (int64_t ci = 0; ci < c; ++ci)
            for (int64_t ky = 0; ky < pc.k; ++ky)
              for (int64_t kx = 0; kx < pc.k; ++kx) {
                int64_t iy = oy * pc.stride + ky - pc.padTop,
                        ix = ox * pc.stride + kx - pc.padLeft;
                if (iy >= 0 && iy < h && ix >= 0 && ix < w)
                  sum += x[((i * c + ci) * h + iy) * w + ix] *
                         f.at({fi, ci, ky, kx});
              }
          y[((i * pc.f + fi) * oh + oy) * ow + ox] =
              relu ? std::max(sum, 0.0) : sum;
        }
  return y;
}

/// Runs `body` on 1 and 2 threads (every loop on threads), each GEMM kernel
/// and each method that may compute a fused call directly (AUTO, DIRECT)
/// or not (PHASE_PLANES), with them in the trace; restores the settings.
void forEachFusedConvSetting(const std::function<void()> &body) {
  int saved = telarrt_get_num_threads();
  double savedWork = telarrt_set_kernel_min_parallel_work(1);
  for (int threads : {1, 2}) {
    telarrt_set_num_threads(threads);
    SCOPED_TRACE("threads " + std::to_string(threads));
    forEachGemmKernel([&] {
      for (int method : {TELARRT_CONV_AUTO, TELARRT_CONV_DIRECT,
                         TELARRT_CONV_PHASE_PLANES}) {
        ASSERT_GE(telarrt_set_conv_method(method), 0);
        SCOPED_TRACE("conv method " + std::to_string(method));
        body();
      }
    });
  }
  telarrt_set_conv_method(TELARRT_CONV_AUTO);
  telarrt_set_kernel_min_parallel_work(savedWork);
  telarrt_set_num_threads(saved);
}

/// Runs the pair a then b on an N x C x H x W input against naiveConv
/// twice: flagsB ACCUMULATE onto a random output (else onto NaNs), biases
/// with no elements for none, filters registered as constants or not.
void checkConvPair(std::array<int64_t, 4> input, const PairConv &a,
                   const PairConv &b, int64_t flagsA, int64_t flagsB,
                   bool biases, bool constantFilters, std::mt19937 &rng) {
  auto [n, c, h, w] = input;
  const std::array<int, 4> nchw = {0, 1, 2, 3};
  StridedTensor<4> in({n, c, h, w}, nchw, 0, 1, rng);
  StridedTensor<4> fa({a.f, c, a.k, a.k}, nchw, 0, 0, rng);
  StridedTensor<4> fb({b.f, a.f, b.k, b.k}, nchw, 0, 0, rng);
  std::uniform_real_distribution<float> dist(-1, 1);
  std::vector<float> biasA, biasB;
  if (biases) {
    for (int64_t i = 0; i < a.f; ++i)
      biasA.push_back(dist(rng));
    for (int64_t i = 0; i < b.f; ++i)
      biasB.push_back(dist(rng));
  }
  std::vector<double> x;
  in.forEach([&](const std::array<int64_t, 4> &i) { x.push_back(in.at(i)); });
  int64_t midH, midW, oh, ow;
  std::vector<double> mid = naiveConv(x, n, c, h, w, fa, biasA, a,
                                      flagsA & TELAR_KERNEL_RELU, midH, midW);
  std::vector<double> want =
      naiveConv(mid, n, a.f, midH, midW, fb, biasB, b,
                /*relu=*/false, oh, ow);
  StridedTensor<4> out({n, b.f, oh, ow}, nchw, 0, 2, rng);
  bool accumulate = flagsB & TELAR_KERNEL_ACCUMULATE;
  if (!accumulate)
    poison(out);
  auto out0 = out;
  auto di = in.descriptor<TelarMemRef4F32>();
  auto dfa = fa.descriptor<TelarMemRef4F32>();
  auto dfb = fb.descriptor<TelarMemRef4F32>();
  auto dout = out.descriptor<TelarMemRef4F32>();
  TelarMemRef1F32 dba{biasA.data(), biasA.data(), 0,
                      {int64_t(biasA.size())}, {1}};
  TelarMemRef1F32 dbb{biasB.data(), biasB.data(), 0,
                      {int64_t(biasB.size())}, {1}};
  if (constantFilters)
    for (auto *t : {&fa, &fb})
      weights().registerRange(t->storage.data(),
                              t->storage.size() * sizeof(float));
  int status = telarrt_conv2d_pair_nchw_f32(
      ctx(), &di, &dfa, &dba, &dfb, &dbb, &dout, a.stride, a.stride, 1, 1,
      a.padTop, a.padLeft, flagsA, midH, midW, b.padTop, b.padLeft, flagsB);
  if (constantFilters)
    for (auto *t : {&fa, &fb})
      weights().unregisterRange(t->storage.data(),
                                t->storage.size() * sizeof(float));
  ASSERT_EQ(status, TELAR_STATUS_OK) << telarrt_context_error(ctx());
  out.forEach([&](const std::array<int64_t, 4> &o) {
    double v = want[((o[0] * b.f + o[1]) * oh + o[2]) * ow + o[3]];
    if (accumulate)
      v += out0.at(o);
    if (flagsB & TELAR_KERNEL_RELU)
      v = std::max(v, 0.0);
    expectNear(out.at(o), v, "conv pair");
  });
}

/// Two convolutions in one call: the first writes its result straight
/// into the second's planes (32 or 16 channels, a strided first, a 1x1 or
/// unpadded second, a first on 7 channels: not interleaved), or through an
/// NCHW intermediate (20 channels, two images, OpenBLAS, the GEMM methods),
/// with each flag, bias and thread count.
TEST(RuntimeKernels, Conv2dPair) {
  std::mt19937 rng(23);
  struct Case {
    std::array<int64_t, 4> input;
    PairConv a, b;
  };
  const Case cases[] = {
      {{1, 16, 10, 10}, {32, 3, 1, 1, 1, 1, 1}, {24, 3, 1, 1, 1, 1, 1}},
      {{1, 16, 11, 9}, {16, 3, 2, 1, 1, 1, 1}, {40, 3, 1, 1, 1, 1, 1}},
      {{1, 7, 12, 12}, {32, 3, 1, 1, 1, 1, 1}, {16, 1, 1, 0, 0, 0, 0}},
      {{1, 32, 9, 9}, {16, 3, 1, 1, 1, 1, 1}, {8, 3, 1, 0, 0, 0, 0}},
      {{1, 16, 8, 8}, {20, 3, 1, 1, 1, 1, 1}, {16, 3, 1, 1, 1, 1, 1}},
      {{2, 16, 6, 6}, {16, 3, 1, 1, 1, 1, 1}, {16, 3, 1, 1, 1, 1, 1}},
  };
  forEachFusedConvSetting([&] {
    for (size_t i = 0; i < std::size(cases); ++i) {
      SCOPED_TRACE("case " + std::to_string(i));
      const Case &cs = cases[i];
      for (int64_t flagsA : {int64_t(0), int64_t(TELAR_KERNEL_RELU)})
        for (int64_t flagsB :
             {int64_t(0), int64_t(TELAR_KERNEL_ACCUMULATE),
              int64_t(TELAR_KERNEL_ACCUMULATE | TELAR_KERNEL_RELU)})
          checkConvPair(cs.input, cs.a, cs.b, flagsA, flagsB,
                        /*biases=*/flagsB != 0,
                        /*constantFilters=*/flagsA != 0, rng);
    }
  });
  EXPECT_EQ(weights().getBytes(), 0u);
}

/// A pair whose first convolution would accumulate, or whose intermediate
/// does not match the first's output, is refused with a message.
TEST(RuntimeKernels, Conv2dPairRejectsBadOperands) {
  std::mt19937 rng(29);
  const std::array<int, 4> nchw = {0, 1, 2, 3};
  StridedTensor<4> in({1, 16, 6, 6}, nchw, 0, 0, rng);
  StridedTensor<4> fa({16, 16, 3, 3}, nchw, 0, 0, rng);
  StridedTensor<4> fb({16, 16, 3, 3}, nchw, 0, 0, rng);
  StridedTensor<4> out({1, 16, 6, 6}, nchw, 0, 0, rng);
  auto di = in.descriptor<TelarMemRef4F32>();
  auto dfa = fa.descriptor<TelarMemRef4F32>();
  auto dfb = fb.descriptor<TelarMemRef4F32>();
  auto dout = out.descriptor<TelarMemRef4F32>();
  TelarMemRef1F32 none{nullptr, nullptr, 0, {0}, {1}};
  EXPECT_EQ(telarrt_conv2d_pair_nchw_f32(ctx(), &di, &dfa, &none, &dfb, &none,
                                         &dout, 1, 1, 1, 1, 1, 1,
                                         TELAR_KERNEL_ACCUMULATE, 6, 6, 1, 1,
                                         0),
            TELAR_STATUS_INVALID_ARGUMENT);
  EXPECT_NE(std::string(telarrt_context_error(ctx())).find("unsupported flags"),
            std::string::npos);
  telarrt_context_clear_error(ctx());
  EXPECT_EQ(telarrt_conv2d_pair_nchw_f32(ctx(), &di, &dfa, &none, &dfb, &none,
                                         &dout, 1, 1, 1, 1, 1, 1, 0, 3, 6, 1,
                                         1, 0),
            TELAR_STATUS_INVALID_ARGUMENT);
  EXPECT_NE(std::string(telarrt_context_error(ctx())).find("padding"),
            std::string::npos)
      << telarrt_context_error(ctx());
  telarrt_context_clear_error(ctx());
}

/// A dense N x C x H x W buffer's descriptor.
TelarMemRef4F32 denseDescriptor(std::vector<float> &data,
                                std::array<int64_t, 4> s) {
  return {data.data(),
          data.data(),
          0,
          {s[0], s[1], s[2], s[3]},
          {s[1] * s[2] * s[3], s[2] * s[3], s[3], 1}};
}

/// An N x C x H x W array from NCHW into channel-blocked order
/// (TELAR_KERNEL_BLOCKED_*: NCHW16c), or back.
std::vector<float> reblock(const std::vector<float> &x,
                           std::array<int64_t, 4> s, bool toBlocked) {
  constexpr int64_t kBlock = TELARRT_CONV_CHANNEL_BLOCK;
  std::vector<float> y(x.size());
  int64_t p = s[2] * s[3];
  for (int64_t i = 0; i < s[0] * s[1]; ++i) {
    int64_t img = i / s[1], c = i % s[1];
    int64_t at = (img * s[1] + c / kBlock * kBlock) * p + c % kBlock;
    for (int64_t q = 0; q < p; ++q) {
      if (toBlocked)
        y[at + q * kBlock] = x[i * p + q];
      else
        y[i * p + q] = x[at + q * kBlock];
    }
  }
  return y;
}

/// Channel-blocked operands (TELAR_KERNEL_BLOCKED_INPUT/OUTPUT) give what
/// the same call gives on NCHW ones: a residual block's pair (in place,
/// as ResNet's blocks run), a strided pair, a strided 1x1 convolution
/// accumulating into a blocked output with a bias and the ReLU, a 3x3 one
/// reading a blocked input into a plain output, the stem's convolution
/// and pooling into a blocked output; computed directly or (two images,
/// OpenBLAS, the other methods) through NCHW copies; on 1 and 2 threads.
/// A buffer that cannot be blocked is refused with a message.
TEST(RuntimeKernels, Conv2dChannelBlocked) {
  std::mt19937 rng(37);
  std::uniform_real_distribution<float> dist(-1, 1);
  auto random = [&](size_t count) {
    std::vector<float> v(count);
    for (float &x : v)
      x = dist(rng);
    return v;
  };
  auto count = [](std::array<int64_t, 4> s) {
    return static_cast<size_t>(s[0] * s[1] * s[2] * s[3]);
  };
  // One call on `in` and `out` (dense NCHW data or their blocked copies).
  using Call = std::function<int(TelarMemRef4F32 *, TelarMemRef4F32 *,
                                 int64_t blockedFlags)>;
  // Runs `call` plain and blocked (inBlocked, outBlocked: which operands;
  // inPlace: out is in), compares the outputs.
  auto check = [&](std::array<int64_t, 4> inShape,
                   std::array<int64_t, 4> outShape, bool inBlocked,
                   bool outBlocked, bool inPlace, int64_t inFlag,
                   int64_t outFlag, const Call &call) {
    std::vector<float> in = random(count(inShape));
    std::vector<float> out = inPlace ? in : random(count(outShape));
    std::vector<float> plainIn = in, plainOut = out;
    auto dIn = denseDescriptor(plainIn, inShape);
    auto dOut = denseDescriptor(inPlace ? plainIn : plainOut, outShape);
    ASSERT_EQ(call(&dIn, &dOut, 0), TELAR_STATUS_OK)
        << telarrt_context_error(ctx());
    std::vector<float> want = inPlace ? plainIn : plainOut;
    std::vector<float> bIn = inBlocked ? reblock(in, inShape, true) : in;
    std::vector<float> bOut = outBlocked ? reblock(out, outShape, true) : out;
    auto dbIn = denseDescriptor(bIn, inShape);
    auto dbOut = denseDescriptor(inPlace ? bIn : bOut, outShape);
    ASSERT_EQ(call(&dbIn, &dbOut,
                   (inBlocked ? inFlag : 0) | (outBlocked ? outFlag : 0)),
              TELAR_STATUS_OK)
        << telarrt_context_error(ctx());
    std::vector<float> got = inPlace ? bIn : bOut;
    if (outBlocked)
      got = reblock(got, outShape, false);
    for (size_t i = 0; i < want.size(); ++i)
      expectNear(got[i], want[i], "blocked element " + std::to_string(i));
  };
  auto pairCall = [&](std::vector<float> &fa, std::vector<float> &fb,
                      std::array<int64_t, 4> fas, std::array<int64_t, 4> fbs,
                      int64_t stride, int64_t midH, int64_t midW,
                      int64_t flagsB) -> Call {
    return [&, fas, fbs, stride, midH, midW,
            flagsB](TelarMemRef4F32 *in, TelarMemRef4F32 *out, int64_t b) {
      auto dfa = denseDescriptor(fa, fas), dfb = denseDescriptor(fb, fbs);
      TelarMemRef1F32 none{nullptr, nullptr, 0, {0}, {1}};
      return telarrt_conv2d_pair_nchw_f32(
          ctx(), in, &dfa, &none, &dfb, &none, out, stride, stride, 1, 1, 1, 1,
          TELAR_KERNEL_RELU | (b & TELAR_KERNEL_BLOCKED_INPUT), midH, midW, 1,
          1, flagsB | (b & TELAR_KERNEL_BLOCKED_OUTPUT));
    };
  };
  std::vector<float> f32 = random(32 * 32 * 9), f16 = random(32 * 16 * 9),
                     f1 = random(32 * 16), bias = random(32),
                     stem = random(16 * 3 * 9);
  const int64_t accRelu = TELAR_KERNEL_ACCUMULATE | TELAR_KERNEL_RELU;
  forEachFusedConvSetting([&] {
    for (int64_t images : {1, 2}) {
      SCOPED_TRACE("images " + std::to_string(images));
      // A residual block in place: blocked in and out, or either.
      for (int both = 0; both < 3; ++both)
        check({images, 32, 9, 8}, {images, 32, 9, 8}, both != 1, both != 2,
              /*inPlace=*/both == 0, TELAR_KERNEL_BLOCKED_INPUT,
              TELAR_KERNEL_BLOCKED_OUTPUT,
              pairCall(f32, f32, {32, 32, 3, 3}, {32, 32, 3, 3}, 1, 9, 8,
                       accRelu));
      // Strided, 16 -> 32 -> 16 channels, overwriting.
      check({images, 16, 11, 10}, {images, 16, 6, 5}, true, true, false,
            TELAR_KERNEL_BLOCKED_INPUT, TELAR_KERNEL_BLOCKED_OUTPUT,
            pairCall(f16, f16, {32, 16, 3, 3}, {16, 32, 3, 3}, 2, 6, 5, 0));
      // A downsampling 1x1/2 with a bias into a blocked output; a 3x3 from
      // a blocked input into a plain one.
      for (bool pointwise : {true, false})
        check({images, 16, 10, 10},
              {images, 32, pointwise ? 5 : 10, pointwise ? 5 : 10}, true,
              pointwise, false, TELAR_KERNEL_BLOCKED_INPUT,
              TELAR_KERNEL_BLOCKED_OUTPUT,
              [&, pointwise](TelarMemRef4F32 *in, TelarMemRef4F32 *out,
                             int64_t b) {
                int64_t k = pointwise ? 1 : 3, st = pointwise ? 2 : 1;
                auto df = denseDescriptor(pointwise ? f1 : f16, {32, 16, k, k});
                TelarMemRef1F32 db{bias.data(), bias.data(), 0, {32}, {1}};
                return telarrt_conv2d_nchw_bias_f32(ctx(), in, &df, &db, out,
                                                    st, st, 1, 1, k / 2, k / 2,
                                                    accRelu | b);
              });
      // The stem: 3 channels in, the pooled 16 out blocked.
      check({images, 3, 20, 18}, {images, 16, 5, 5}, false, true, false, 0,
            TELAR_KERNEL_BLOCKED_OUTPUT,
            [&](TelarMemRef4F32 *in, TelarMemRef4F32 *out, int64_t b) {
              auto df = denseDescriptor(stem, {16, 3, 3, 3});
              TelarMemRef1F32 db{bias.data(), bias.data(), 0, {16}, {1}};
              return telarrt_conv2d_maxpool_nchw_f32(
                  ctx(), in, &df, &db, out, 2, 2, 1, 1, 1, 1,
                  TELAR_KERNEL_RELU | b, 10, 9, 3, 3, 2, 2, 1, 1);
            });
    }
  });
  // 20 channels cannot be blocked.
  std::vector<float> in20 = random(20 * 36), out16 = random(16 * 36),
                     f20 = random(16 * 20 * 9);
  auto di = denseDescriptor(in20, {1, 20, 6, 6});
  auto df = denseDescriptor(f20, {16, 20, 3, 3});
  auto dout = denseDescriptor(out16, {1, 16, 6, 6});
  EXPECT_EQ(telarrt_conv2d_nchw_f32(ctx(), &di, &df, &dout, 1, 1, 1, 1, 1, 1,
                                    TELAR_KERNEL_BLOCKED_INPUT),
            TELAR_STATUS_INVALID_ARGUMENT);
  EXPECT_NE(std::string(telarrt_context_error(ctx())).find("channel-blocked"),
            std::string::npos)
      << telarrt_context_error(ctx());
  telarrt_context_clear_error(ctx());
}

/// A convolution and the max pooling of its output in one call
/// (telarrt_conv2d_maxpool_nchw_f32) against naiveConv and a naive pooling:
/// pooled straight from the direct convolution's tile (a 7x7/2 stem-like
/// one whose 65 x 115 output pools in two blocks of rows, a 3x3 one, a
/// narrow map, overlapping 3x3/1 windows) or through the fallback (two
/// images, OpenBLAS, the GEMM methods), with the ReLU, a bias, a
/// registered filter, on 1 and 2 threads.
TEST(RuntimeKernels, Conv2dMaxPool) {
  std::mt19937 rng(31);
  struct Case {
    std::array<int64_t, 4> input;
    PairConv conv;
    int64_t kh, kw, sh, sw, padTop, padLeft;
  };
  const Case cases[] = {
      {{1, 3, 130, 230}, {32, 7, 2, 3, 3, 3, 3}, 3, 3, 2, 2, 1, 1},
      {{1, 16, 15, 17}, {40, 3, 1, 1, 1, 1, 1}, 2, 2, 2, 2, 0, 0},
      {{1, 8, 9, 6}, {16, 3, 1, 1, 1, 1, 1}, 3, 3, 1, 1, 1, 1},
      {{2, 4, 12, 12}, {32, 3, 2, 1, 1, 1, 1}, 3, 3, 2, 2, 1, 1},
  };
  const std::array<int, 4> nchw = {0, 1, 2, 3};
  int saved = telarrt_get_num_threads();
  double savedWork = telarrt_set_kernel_min_parallel_work(1);
  for (size_t ci = 0; ci < std::size(cases); ++ci) {
    SCOPED_TRACE("case " + std::to_string(ci));
    const Case &cs = cases[ci];
    auto [n, c, h, w] = cs.input;
    StridedTensor<4> in({n, c, h, w}, nchw, 0, 1, rng);
    StridedTensor<4> filter({cs.conv.f, c, cs.conv.k, cs.conv.k}, nchw, 0, 0,
                            rng);
    std::vector<float> bias;
    std::uniform_real_distribution<float> dist(-1, 1);
    for (int64_t i = 0; i < cs.conv.f; ++i)
      bias.push_back(dist(rng));
    std::vector<double> x;
    in.forEach([&](const std::array<int64_t, 4> &i) { x.push_back(in.at(i)); });
    for (int64_t flags : {int64_t(0), int64_t(TELAR_KERNEL_RELU)}) {
      bool withBias = flags != 0;
      int64_t ch, cw;
      std::vector<double> conv =
          naiveConv(x, n, c, h, w, filter, withBias ? bias : std::vector<float>{},
                    cs.conv, flags & TELAR_KERNEL_RELU, ch, cw);
      int64_t oh = (ch + 2 * cs.padTop - cs.kh) / cs.sh + 1;
      int64_t ow = (cw + 2 * cs.padLeft - cs.kw) / cs.sw + 1;
      std::vector<double> want(static_cast<size_t>(n * cs.conv.f * oh * ow),
                               -INFINITY);
      for (int64_t i = 0; i < n * cs.conv.f; ++i)
        for (int64_t oy = 0; oy < oh; ++oy)
          for (int64_t ox = 0; ox < ow; ++ox)
            for (int64_t ky = 0; ky < cs.kh; ++ky)
              for (int64_t kx = 0; kx < cs.kw; ++kx) {
                int64_t y = oy * cs.sh + ky - cs.padTop,
                        xx = ox * cs.sw + kx - cs.padLeft;
                if (y >= 0 && y < ch && xx >= 0 && xx < cw) {
                  double &m = want[(i * oh + oy) * ow + ox];
                  m = std::max(m, conv[(i * ch + y) * cw + xx]);
                }
              }
      for (int threads : {1, 2}) {
        telarrt_set_num_threads(threads);
        SCOPED_TRACE("threads " + std::to_string(threads) + " flags " +
                     std::to_string(flags));
        forEachGemmKernel([&] {
          for (int method : {TELARRT_CONV_AUTO, TELARRT_CONV_DIRECT,
                             TELARRT_CONV_PHASE_PLANES}) {
            ASSERT_GE(telarrt_set_conv_method(method), 0);
            SCOPED_TRACE("conv method " + std::to_string(method));
            StridedTensor<4> out({n, cs.conv.f, oh, ow}, nchw, 0, 2, rng);
            poison(out);
            auto di = in.descriptor<TelarMemRef4F32>();
            auto df = filter.descriptor<TelarMemRef4F32>();
            auto dout = out.descriptor<TelarMemRef4F32>();
            TelarMemRef1F32 db{bias.data(), bias.data(), 0,
                               {withBias ? cs.conv.f : 0}, {1}};
            if (withBias)
              weights().registerRange(filter.storage.data(),
                                      filter.storage.size() * sizeof(float));
            int status = telarrt_conv2d_maxpool_nchw_f32(
                ctx(), &di, &df, &db, &dout, cs.conv.stride, cs.conv.stride, 1,
                1, cs.conv.padTop, cs.conv.padLeft, flags, ch, cw, cs.kh, cs.kw,
                cs.sh, cs.sw, cs.padTop, cs.padLeft);
            if (withBias)
              weights().unregisterRange(filter.storage.data(),
                                        filter.storage.size() * sizeof(float));
            ASSERT_EQ(status, TELAR_STATUS_OK) << telarrt_context_error(ctx());
            out.forEach([&](const std::array<int64_t, 4> &o) {
              expectNear(out.at(o),
                         want[((o[0] * cs.conv.f + o[1]) * oh + o[2]) * ow +
                              o[3]],
                         "conv + max pool");
            });
          }
        });
      }
    }
  }
  telarrt_set_conv_method(TELARRT_CONV_AUTO);
  telarrt_set_kernel_min_parallel_work(savedWork);
  telarrt_set_num_threads(saved);
  EXPECT_EQ(weights().getBytes(), 0u);
}

/// A fused pooling whose convolution would accumulate, or whose window
/// does not fit the convolution's output, is refused with a message.
TEST(RuntimeKernels, Conv2dMaxPoolRejectsBadOperands) {
  std::mt19937 rng(37);
  const std::array<int, 4> nchw = {0, 1, 2, 3};
  StridedTensor<4> in({1, 3, 8, 8}, nchw, 0, 0, rng);
  StridedTensor<4> filter({16, 3, 3, 3}, nchw, 0, 0, rng);
  StridedTensor<4> out({1, 16, 4, 4}, nchw, 0, 0, rng);
  auto di = in.descriptor<TelarMemRef4F32>();
  auto df = filter.descriptor<TelarMemRef4F32>();
  auto dout = out.descriptor<TelarMemRef4F32>();
  TelarMemRef1F32 none{nullptr, nullptr, 0, {0}, {1}};
  EXPECT_EQ(telarrt_conv2d_maxpool_nchw_f32(ctx(), &di, &df, &none, &dout, 1,
                                            1, 1, 1, 1, 1,
                                            TELAR_KERNEL_ACCUMULATE, 8, 8, 2,
                                            2, 2, 2, 0, 0),
            TELAR_STATUS_INVALID_ARGUMENT);
  EXPECT_NE(std::string(telarrt_context_error(ctx())).find("unsupported flags"),
            std::string::npos);
  telarrt_context_clear_error(ctx());
  // 4 x 4 windows of 2 x 2, 3 apart, would read 3 rows below 8 x 8.
  EXPECT_EQ(telarrt_conv2d_maxpool_nchw_f32(ctx(), &di, &df, &none, &dout, 1,
                                            1, 1, 1, 1, 1, 0, 8, 8, 2, 2, 3, 3,
                                            0, 0),
            TELAR_STATUS_INVALID_ARGUMENT);
  EXPECT_NE(std::string(telarrt_context_error(ctx())).find("padding"),
            std::string::npos)
      << telarrt_context_error(ctx());
  telarrt_context_clear_error(ctx());
}

/// Runs one matmul of (a copy of) `c` and returns the result's storage.
std::vector<float> runMatmul(StridedTensor<2> &a, StridedTensor<2> &b,
                             StridedTensor<2> c, bool accumulate = true) {
  if (!accumulate)
    poison(c);
  auto da = a.descriptor<TelarMemRef2F32>();
  auto db = b.descriptor<TelarMemRef2F32>();
  auto dc = c.descriptor<TelarMemRef2F32>();
  EXPECT_EQ(telarrt_matmul_f32(ctx(), &da, &db, &dc, flagsFor(accumulate)),
            TELAR_STATUS_OK);
  return c.storage;
}

bool sameBits(const std::vector<float> &x, const std::vector<float> &y) {
  return x.size() == y.size() &&
         !std::memcmp(x.data(), y.data(), x.size() * sizeof(float));
}

/// Whether the runtime's own GEMM (which packs constant operands) runs an
/// m x n product with the kernel now chosen.
bool packsConstants(int64_t m, int64_t n) {
  return telarrt_context_get_gemm_kernel(ctx()) != TELARRT_GEMM_OPENBLAS && m > 1 && n > 1;
}

/// A GEMM whose b lies in a registered constant range computes exactly
/// what it computes otherwise (same blocking, same order of operations), on
/// every layout of b, shapes around the tile and block edges, one thread
/// and four (column blocks then share one packed b), repeatedly, and after
/// the range is unregistered; the packed copies are counted and freed.
TEST(RuntimeKernels, ConstantBPackedOnce) {
  int savedThreads = telarrt_get_num_threads();
  double savedWork = telarrt_set_kernel_min_parallel_work(1 << 18);
  std::mt19937 rng(8);
  const std::array<int64_t, 3> shapes[] = {
      {2, 1, 2},    {5, 7, 3},    {13, 17, 33}, {12, 64, 65},
      {13, 300, 33}, {12, 700, 17}, {49, 20, 40}, {530, 9, 35},
      {5, 3, 2100}, {40, 300, 130}, {150, 200, 20}, {1, 50, 40},
      {40, 50, 1},  {13, 340, 130}};
  ASSERT_EQ(weights().getBytes(), 0u);
  forEachGemmKernel([&] {
    for (int threads : {1, 4}) {
      telarrt_set_num_threads(threads);
      for (const auto &[m, k, n] : shapes)
        for (const Layout &lb : kLayouts) {
          std::string where = std::string(lb.name) + " " + std::to_string(m) +
                              "x" + std::to_string(k) + "x" +
                              std::to_string(n) + ", " +
                              std::to_string(threads) + " threads";
          auto a = matrix(m, k, kLayouts[0], 1, rng);
          auto b = matrix(k, n, lb, 2, rng);
          auto c = matrix(m, n, kLayouts[0], 0, rng);
          std::vector<float> want = runMatmul(a, b, c);
          std::vector<float> wantOverwrite = runMatmul(a, b, c, false);
          EXPECT_EQ(weights().getBytes(), 0u) << where;

          const void *data = b.storage.data();
          size_t bytes = b.storage.size() * sizeof(float);
          weights().registerRange(data, bytes);
          for (int repeat = 0; repeat < 3; ++repeat) {
            EXPECT_TRUE(sameBits(runMatmul(a, b, c), want))
                << where << ", call " << repeat;
            EXPECT_TRUE(sameBits(runMatmul(a, b, c, false), wantOverwrite))
                << where << ", overwriting, call " << repeat;
          }
          if (packsConstants(m, n))
            EXPECT_GE(weights().getBytes(), size_t(k * n * 4)) << where;
          else
            EXPECT_EQ(weights().getBytes(), 0u) << where;
          weights().unregisterRange(data, bytes);
          EXPECT_EQ(weights().getBytes(), 0u) << where;
          EXPECT_TRUE(sameBits(runMatmul(a, b, c), want)) << where;
        }
    }
  });
  telarrt_set_num_threads(savedThreads);
  telarrt_set_kernel_min_parallel_work(savedWork);
}

/// Only operands wholly inside a registered range are packed; overlapping
/// registrations keep the copies they cover; an unknown range is ignored.
TEST(RuntimeKernels, ConstantRanges) {
  int saved = telarrt_context_get_gemm_kernel(ctx());
  if (telarrt_context_set_gemm_kernel(ctx(), TELARRT_GEMM_AUTO) == TELARRT_GEMM_OPENBLAS)
    GTEST_SKIP() << "the runtime's GEMM does not run on this CPU";
  std::mt19937 rng(9);
  auto a = matrix(20, 40, kLayouts[0], 0, rng);
  auto b = matrix(40, 50, kLayouts[0], 0, rng);
  auto c = matrix(20, 50, kLayouts[0], 0, rng);
  std::vector<float> want = runMatmul(a, b, c);
  const char *data = reinterpret_cast<const char *>(b.storage.data());
  size_t bytes = b.storage.size() * sizeof(float);

  // Half of b: not packed.
  weights().registerRange(data, bytes / 2);
  EXPECT_TRUE(sameBits(runMatmul(a, b, c), want));
  EXPECT_EQ(weights().getBytes(), 0u);
  // All of b, twice (once through a larger range): packed once.
  weights().registerRange(data, bytes);
  weights().registerRange(data - 64, bytes + 128);
  EXPECT_TRUE(sameBits(runMatmul(a, b, c), want));
  size_t packed = weights().getBytes();
  EXPECT_GE(packed, 40u * 64 * 4); // 50 columns padded to whole panels
  EXPECT_TRUE(sameBits(runMatmul(a, b, c), want));
  EXPECT_EQ(weights().getBytes(), packed);
  // Not registered: nothing happens.
  weights().unregisterRange(data + 4, bytes);
  EXPECT_EQ(weights().getBytes(), packed);
  // Still covered by the larger range, then by nothing.
  weights().unregisterRange(data, bytes);
  EXPECT_EQ(weights().getBytes(), packed);
  weights().unregisterRange(data - 64, bytes + 128);
  EXPECT_EQ(weights().getBytes(), 0u);
  weights().unregisterRange(data, bytes / 2);
  EXPECT_TRUE(sameBits(runMatmul(a, b, c), want));
  EXPECT_EQ(weights().getBytes(), 0u);
  telarrt_context_set_gemm_kernel(ctx(), saved);
}

/// Batch matmul with a constant b (e.g. experts' weights [E, K, N], or one
/// matrix broadcast over the batch): each element's b packed once, the
/// results unchanged, on both of the kernel's ways of using threads.
TEST(RuntimeKernels, ConstantBatchB) {
  int savedThreads = telarrt_get_num_threads();
  std::mt19937 rng(10);
  forEachGemmKernel([&] {
    for (auto [batch, m, k, n] : {std::array<int64_t, 4>{4, 24, 40, 33},
                                  std::array<int64_t, 4>{2, 64, 80, 96},
                                  std::array<int64_t, 4>{3, 5, 300, 70}})
      for (int64_t batchStride : {int64_t(-1), int64_t(0)}) {
        telarrt_set_num_threads(4);
        StridedTensor<3> a({batch, m, k}, {0, 1, 2}, 0, 0, rng);
        // b: [batch, k, n] transposed per element, or one k x n matrix
        // broadcast (batch stride 0).
        StridedTensor<3> b({batch, k, n}, {0, 2, 1}, 0, 0, rng);
        if (batchStride == 0)
          b.strides[0] = 0;
        StridedTensor<3> c({batch, m, n}, {0, 1, 2}, 0, 0, rng);
        auto run = [&] {
          StridedTensor<3> out = c;
          auto da = a.descriptor<TelarMemRef3F32>();
          auto db = b.descriptor<TelarMemRef3F32>();
          auto dc = out.descriptor<TelarMemRef3F32>();
          EXPECT_EQ(telarrt_batch_matmul_f32(ctx(), &da, &db, &dc,
                                             TELAR_KERNEL_ACCUMULATE),
                    TELAR_STATUS_OK);
          return out.storage;
        };
        std::vector<float> want = run();
        const void *data = b.storage.data();
        size_t bytes = b.storage.size() * sizeof(float);
        weights().registerRange(data, bytes);
        EXPECT_TRUE(sameBits(run(), want));
        EXPECT_TRUE(sameBits(run(), want));
        if (packsConstants(m, n)) {
          size_t elements = batchStride == 0 ? 1 : batch;
          EXPECT_GE(weights().getBytes(), elements * k * n * 4);
        }
        weights().unregisterRange(data, bytes);
        EXPECT_EQ(weights().getBytes(), 0u);
      }
  });
  telarrt_set_num_threads(savedThreads);
}

/// Kernels given operands they cannot handle return a status with a
/// message in the context (they used to abort).
TEST(RuntimeKernels, InvalidOperands) {
  Context context;
  std::vector<float> x(64, 1.0f);
  TelarMemRef2F32 a{x.data(), x.data(), 0, {2, 3}, {3, 1}};
  TelarMemRef2F32 b{x.data(), x.data(), 0, {4, 2}, {2, 1}};
  TelarMemRef2F32 c{x.data(), x.data(), 0, {2, 2}, {2, 1}};
  EXPECT_EQ(
      telarrt_matmul_f32(context.get(), &a, &b, &c, TELAR_KERNEL_ACCUMULATE),
      TELAR_STATUS_INVALID_ARGUMENT);
  EXPECT_EQ(context.getError(), "telarrt_matmul_f32: shapes 2x3 . 4x2 -> 2x2");
  context.clearError();
  TelarMemRef3F32 a3{x.data(), x.data(), 0, {2, 2, 2}, {4, 2, 1}};
  TelarMemRef3F32 c3{x.data(), x.data(), 0, {3, 2, 2}, {4, 2, 1}};
  EXPECT_EQ(telarrt_batch_matmul_f32(context.get(), &a3, &a3, &c3,
                                     TELAR_KERNEL_ACCUMULATE),
            TELAR_STATUS_INVALID_ARGUMENT);
  EXPECT_EQ(context.getError(), "telarrt_batch_matmul_f32: shapes 2x2x2 . "
                                "2x2x2 -> 3x2x2");
  context.clearError();
  TelarMemRef4F32 in{x.data(), x.data(), 0, {1, 1, 3, 3}, {9, 9, 3, 1}};
  TelarMemRef4F32 filter{x.data(), x.data(), 0, {1, 1, 2, 2}, {4, 4, 2, 1}};
  TelarMemRef4F32 out{x.data(), x.data(), 0, {1, 1, 2, 2}, {4, 4, 2, 1}};
  EXPECT_EQ(telarrt_conv2d_nchw_f32(context.get(), &in, &filter, &out, 0, 1,
                                    1, 1, 0, 0, TELAR_KERNEL_ACCUMULATE),
            TELAR_STATUS_INVALID_ARGUMENT);
  EXPECT_EQ(context.getError(), "telarrt_conv2d_nchw_f32: strides and "
                                "dilations must be positive (0 1 1 1)");
  context.clearError();
  // Padding as wide as the 2x2 kernel (top), and an output needing it at
  // the bottom.
  EXPECT_EQ(telarrt_conv2d_nchw_f32(context.get(), &in, &filter, &out, 1, 1,
                                    1, 1, 2, 0, TELAR_KERNEL_ACCUMULATE),
            TELAR_STATUS_INVALID_ARGUMENT);
  EXPECT_EQ(context.getError(),
            "telarrt_conv2d_nchw_f32: a 2x2 output with kernel 2x2, strides "
            "1x1 and dilations 1x1 needs padding 2 0 -2 0 (top, left, "
            "bottom, right) around the 3x3 input: each must be at least 0 "
            "and below the kernel's span");
  context.clearError();
  EXPECT_EQ(telarrt_conv2d_nchw_f32(context.get(), &in, &filter, &out, 3, 1,
                                    1, 1, 0, 0, TELAR_KERNEL_ACCUMULATE),
            TELAR_STATUS_INVALID_ARGUMENT);
  EXPECT_EQ(context.getError(),
            "telarrt_conv2d_nchw_f32: a 2x2 output with kernel 2x2, strides "
            "3x1 and dilations 1x1 needs padding 0 0 2 0 (top, left, "
            "bottom, right) around the 3x3 input: each must be at least 0 "
            "and below the kernel's span");
  context.clearError();
  EXPECT_EQ(telarrt_conv2d_nchw_f32(context.get(), &in, &filter, &out, 1, 1, 1,
                                    1, 0, 0, 16),
            TELAR_STATUS_INVALID_ARGUMENT);
  EXPECT_EQ(context.getError(),
            "telarrt_conv2d_nchw_f32: unsupported flags 0x10");
  context.clearError();
  // A bias that is not one value per filter.
  TelarMemRef1F32 bias{x.data(), x.data(), 0, {2}, {1}};
  EXPECT_EQ(telarrt_conv2d_nchw_bias_f32(context.get(), &in, &filter, &bias,
                                         &out, 1, 1, 1, 1, 0, 0, 0),
            TELAR_STATUS_INVALID_ARGUMENT);
  EXPECT_EQ(context.getError(),
            "telarrt_conv2d_nchw_bias_f32: a bias of 2 values for 1 filters");
  context.clearError();
  // Flags a kernel does not take.
  context.clearError();
  TelarMemRef2F32 sq{x.data(), x.data(), 0, {2, 2}, {2, 1}};
  EXPECT_EQ(telarrt_matmul_f32(context.get(), &sq, &sq, &c,
                               TELAR_KERNEL_ACCUMULATE | TELAR_KERNEL_RELU),
            TELAR_STATUS_INVALID_ARGUMENT);
  EXPECT_EQ(context.getError(), "telarrt_matmul_f32: unsupported flags 0x2");
  context.clearError();
  EXPECT_EQ(telarrt_batch_matmul_f32(context.get(), &a3, &a3, &a3, 8),
            TELAR_STATUS_INVALID_ARGUMENT);
  EXPECT_EQ(context.getError(),
            "telarrt_batch_matmul_f32: unsupported flags 0x8");
}

/// The packed copies belong to the PrepackedWeights (an artifact's) that
/// the context runs with: another one, or a context without one, packs
/// nothing of them.
TEST(RuntimeKernels, PrepackedWeightsAreTheirOwn) {
  Context context;
  if (context.setGemmKernel(TELARRT_GEMM_AUTO) == TELARRT_GEMM_OPENBLAS)
    GTEST_SKIP() << "the runtime's GEMM does not run on this CPU";
  std::mt19937 rng(11);
  auto a = matrix(20, 40, kLayouts[0], 0, rng);
  auto b = matrix(40, 50, kLayouts[0], 0, rng);
  auto c = matrix(20, 50, kLayouts[0], 0, rng);
  auto da = a.descriptor<TelarMemRef2F32>();
  auto db = b.descriptor<TelarMemRef2F32>();
  auto dc = c.descriptor<TelarMemRef2F32>();
  PrepackedWeights one, two;
  one.registerRange(b.storage.data(), b.storage.size() * sizeof(float));
  two.registerRange(b.storage.data(), b.storage.size() * sizeof(float));
  // No packed weights: nothing packed.
  EXPECT_EQ(
      telarrt_matmul_f32(context.get(), &da, &db, &dc, TELAR_KERNEL_ACCUMULATE),
      TELAR_STATUS_OK);
  EXPECT_EQ(one.getBytes(), 0u);
  EXPECT_EQ(two.getBytes(), 0u);
  context.setPrepackedWeights(&one);
  EXPECT_EQ(
      telarrt_matmul_f32(context.get(), &da, &db, &dc, TELAR_KERNEL_ACCUMULATE),
      TELAR_STATUS_OK);
  EXPECT_GE(one.getBytes(), 40u * 64 * 4);
  EXPECT_EQ(two.getBytes(), 0u);
  context.setPrepackedWeights(&two);
  EXPECT_EQ(
      telarrt_matmul_f32(context.get(), &da, &db, &dc, TELAR_KERNEL_ACCUMULATE),
      TELAR_STATUS_OK);
  EXPECT_EQ(two.getBytes(), one.getBytes());
  one.unregisterRange(b.storage.data(), b.storage.size() * sizeof(float));
  EXPECT_EQ(one.getBytes(), 0u);
  EXPECT_GT(two.getBytes(), 0u);
  context.setPrepackedWeights(nullptr);
}

} // namespace

namespace {
/// One max pooling case: input N x C x H x W, window, strides, dilations,
/// top/left padding (the output size follows, bottom/right padding as
/// ONNX's MaxPool with pads [top, left, bottom, right] would give it).
struct PoolCase {
  std::array<int64_t, 4> input;
  int64_t kh, kw, sh, sw, dh, dw, top, left, bottom, right;
};

/// The reference: each window's max over the positions inside the image,
/// NaN when any of them is NaN, -inf for none.
float poolRef(StridedTensor<4> &in, const PoolCase &pc, int64_t n, int64_t c,
              int64_t oy, int64_t ox) {
  float m = -std::numeric_limits<float>::infinity();
  for (int64_t ky = 0; ky < pc.kh; ++ky)
    for (int64_t kx = 0; kx < pc.kw; ++kx) {
      int64_t iy = oy * pc.sh + ky * pc.dh - pc.top;
      int64_t ix = ox * pc.sw + kx * pc.dw - pc.left;
      if (iy < 0 || ix < 0 || iy >= pc.input[2] || ix >= pc.input[3])
        continue;
      float v = in.at({n, c, iy, ix});
      if (std::isnan(v) || std::isnan(m))
        m = std::nanf("");
      else
        m = std::max(m, v);
    }
  return m;
}
} // namespace

/// telarrt_maxpool2d_nchw_f32 against the reference, bitwise (a max is
/// exact), with NaNs in the input, for strides 1, 2 and 3 (the vector
/// paths and the element-by-element one), dilations, padding on every
/// side, rows wider than a vector, strided layouts, every GEMM kernel
/// setting (OpenBLAS: element by element) and 1, 2 and 4 threads (the
/// planes of 3 images of 3 channels shared out across them).
TEST(RuntimeKernels, MaxPool2dNchw) {
  const PoolCase cases[] = {
      {{1, 4, 112, 112}, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1}, // ResNet's
      {{1, 2, 7, 150}, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1},   // 2 groups of vectors
      {{3, 3, 10, 21}, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1},   // 9 planes
      {{2, 3, 9, 40}, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1},    // stride 1, wide
      {{1, 2, 11, 13}, 2, 3, 3, 3, 1, 1, 0, 1, 1, 2},   // stride 3
      {{1, 3, 15, 37}, 3, 2, 2, 2, 2, 3, 2, 1, 0, 2},   // dilated
      {{1, 1, 5, 5}, 5, 5, 1, 1, 1, 1, 4, 4, 4, 4},     // windows at edges
  };
  std::mt19937 rng(7);
  int saved = telarrt_get_num_threads();
  // Small planes on threads too.
  double savedWork = telarrt_set_kernel_min_parallel_work(1);
  for (int threads : {1, 2, 4}) {
    telarrt_set_num_threads(threads);
    forEachGemmKernel([&] {
      for (const PoolCase &pc : cases) {
        SCOPED_TRACE("input " + std::to_string(pc.input[2]) + "x" +
                     std::to_string(pc.input[3]) + " stride " +
                     std::to_string(pc.sh) + "x" + std::to_string(pc.sw));
        int64_t oh = (pc.input[2] + pc.top + pc.bottom -
                      (pc.kh - 1) * pc.dh - 1) / pc.sh + 1;
        int64_t ow = (pc.input[3] + pc.left + pc.right -
                      (pc.kw - 1) * pc.dw - 1) / pc.sw + 1;
        for (int64_t gap : {0, 3}) {
          StridedTensor<4> in(pc.input, {0, 1, 2, 3}, gap, 5, rng);
          in.at({0, 0, 1, 2}) = std::nanf("");
          in.at({0, pc.input[1] - 1, pc.input[2] - 1, pc.input[3] - 1}) =
              std::nanf("");
          StridedTensor<4> out({pc.input[0], pc.input[1], oh, ow},
                               {1, 0, 2, 3}, gap, 2, rng);
          TelarMemRef4F32 di = in.descriptor<TelarMemRef4F32>();
          TelarMemRef4F32 dout = out.descriptor<TelarMemRef4F32>();
          ASSERT_EQ(telarrt_maxpool2d_nchw_f32(ctx(), &di, &dout, pc.kh,
                                               pc.kw, pc.sh, pc.sw, pc.dh,
                                               pc.dw, pc.top, pc.left),
                    TELAR_STATUS_OK)
              << telarrt_context_error(ctx());
          out.forEach([&](const std::array<int64_t, 4> &i) {
            float want = poolRef(in, pc, i[0], i[1], i[2], i[3]);
            float got = out.at(i);
            if (std::isnan(want))
              ASSERT_TRUE(std::isnan(got)) << i[2] << "," << i[3];
            else
              ASSERT_EQ(got, want) << i[0] << "," << i[1] << "," << i[2]
                                   << "," << i[3] << " gap " << gap;
          });
        }
      }
    });
  }
  telarrt_set_num_threads(saved);
  telarrt_set_kernel_min_parallel_work(savedWork);
  // Padding as wide as the window: an error naming the kernel.
  std::vector<float> x(16), y(16);
  TelarMemRef4F32 di = {x.data(), x.data(), 0, {1, 1, 4, 4}, {16, 16, 4, 1}};
  TelarMemRef4F32 dout = {y.data(), y.data(), 0, {1, 1, 4, 4}, {16, 16, 4, 1}};
  EXPECT_EQ(telarrt_maxpool2d_nchw_f32(ctx(), &di, &dout, 3, 3, 1, 1, 1, 1, 3,
                                       1),
            TELAR_STATUS_INVALID_ARGUMENT);
  EXPECT_NE(std::string(telarrt_context_error(ctx()))
                .find("telarrt_maxpool2d_nchw_f32"),
            std::string::npos);
  telarrt_context_clear_error(ctx());
}

//===----------------------------------------------------------------------===//
// float -> bfloat16, as generated code calls it on CPUs without AVX-512 BF16
//===----------------------------------------------------------------------===//

extern "C" __m128 __truncsfbf2(float x);

TEST(RuntimeKernels, TruncateFloatToBFloat16) {
  auto bf16 = [](uint32_t floatBits) {
    float x;
    std::memcpy(&x, &floatBits, sizeof(x));
    return static_cast<uint16_t>(
        _mm_cvtsi128_si32(_mm_castps_si128(__truncsfbf2(x))));
  };
  EXPECT_EQ(bf16(0x3f800000), 0x3f80);  // 1
  EXPECT_EQ(bf16(0xc0000000), 0xc000);  // -2
  EXPECT_EQ(bf16(0x3f808000), 0x3f80);  // a tie: to the even 0x3f80
  EXPECT_EQ(bf16(0x3f818000), 0x3f82);  // a tie: to the even 0x3f82
  EXPECT_EQ(bf16(0x3f808001), 0x3f81);  // above the tie: up
  EXPECT_EQ(bf16(0x3f807fff), 0x3f80);  // below the tie: down
  EXPECT_EQ(bf16(0x7f7fc99e), 0x7f80);  // 3.4e38: past the largest, infinity
  EXPECT_EQ(bf16(0x7f800000), 0x7f80);  // infinity
  EXPECT_EQ(bf16(0x00000001), 0x0000);  // the smallest denormal: zero
  EXPECT_EQ(bf16(0x7fc00000), 0x7fc0);  // quiet NaN
  EXPECT_EQ(bf16(0x7f800001), 0x7fc0);  // signalling NaN: quiet, not infinity
  EXPECT_EQ(bf16(0xffc00000), 0xffc0);  // negative NaN
}
