//===- gemm.cpp - The runtime's GEMM against OpenBLAS ---------------------===//
//
// telar-gemm-bench [--threads N] [--min-time SECONDS] [--only SUBSTRING]
//
// GFLOP/s of the runtime's kernels (matmul, batch matmul, conv) with the
// GEMM the runtime picks for this CPU against the same kernels on OpenBLAS
// (whose core type the environment's OPENBLAS_CORETYPE decides), on one
// thread and on N (default: every hardware thread); then, on one thread,
// the runtime's GEMM adding to its output (TELAR_KERNEL_ACCUMULATE) against
// overwriting it (flags 0, as compiled programs call it after a zero fill,
// which is then gone; the accumulating side is timed with that fill). Prints
// ratios; asserts nothing about speed.
//
//===----------------------------------------------------------------------===//

#include "BenchUtil.h"
#include "telar/runtime/Abi.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <memory>
#include <string>
#include <thread>
#include <vector>

namespace {

using telar::bench::randomVector;
using telar::bench::timeIt;

const char *kernelName(int k) {
  switch (k) {
  case TELARRT_GEMM_OPENBLAS:
    return "openblas";
  case TELARRT_GEMM_AVX2:
    return "avx2";
  case TELARRT_GEMM_AVX512:
    return "avx512";
  }
  return "?";
}

/// The context the kernels run on (its GEMM choice is what is compared).
TelarContext *context = nullptr;
/// The kernels' flags; with `zeroFirst`, the output is zero-filled before
/// each call (what programs did before the overwriting kernels).
int64_t flags = TELAR_KERNEL_ACCUMULATE;
bool zeroFirst = false;

void zero(std::vector<float> &v) {
  if (zeroFirst)
    std::fill(v.begin(), v.end(), 0.0f);
}

struct Case {
  std::string name;
  double flops;
  std::function<void()> run;
};

/// C[m x n] += A[m x k] . B[k x n], B optionally stored transposed
/// (B = W^T for a row-major W[n x k], as in Gemm with transB).
Case matmul(int64_t m, int64_t k, int64_t n, bool transB) {
  auto a = std::make_shared<std::vector<float>>(randomVector(m * k, 1));
  auto b = std::make_shared<std::vector<float>>(randomVector(k * n, 2));
  auto c = std::make_shared<std::vector<float>>(m * n, 0.0f);
  std::string name = std::to_string(m) + "x" + std::to_string(k) + "x" +
                     std::to_string(n) + (transB ? " (B^T)" : "");
  return {name, 2.0 * m * n * k, [=] {
            TelarMemRef2F32 da{a->data(), a->data(), 0, {m, k}, {k, 1}};
            TelarMemRef2F32 db{b->data(), b->data(), 0, {k, n},
                               {transB ? 1 : n, transB ? k : 1}};
            TelarMemRef2F32 dc{c->data(), c->data(), 0, {m, n}, {n, 1}};
            zero(*c);
            telarrt_matmul_f32(context, &da, &db, &dc, flags);
          }};
}

/// Batched C[s] += A[s] . B[s] (attention-like heads).
Case batchMatmul(int64_t batch, int64_t m, int64_t k, int64_t n,
                 bool transB) {
  auto a = std::make_shared<std::vector<float>>(randomVector(batch * m * k, 1));
  auto b = std::make_shared<std::vector<float>>(randomVector(batch * k * n, 2));
  auto c = std::make_shared<std::vector<float>>(batch * m * n, 0.0f);
  std::string name = std::to_string(batch) + "x[" + std::to_string(m) + "x" +
                     std::to_string(k) + "x" + std::to_string(n) + "]" +
                     (transB ? " (B^T)" : "");
  return {name, 2.0 * batch * m * n * k, [=] {
            TelarMemRef3F32 da{
                a->data(), a->data(), 0, {batch, m, k}, {m * k, k, 1}};
            TelarMemRef3F32 db{b->data(),
                               b->data(),
                               0,
                               {batch, k, n},
                               {k * n, transB ? 1 : n, transB ? k : 1}};
            TelarMemRef3F32 dc{
                c->data(), c->data(), 0, {batch, m, n}, {m * n, n, 1}};
            zero(*c);
            telarrt_batch_matmul_f32(context, &da, &db, &dc, flags);
          }};
}

/// A 3x3 (or 1x1) convolution of one padded NCHW image.
Case conv(int64_t c, int64_t hw, int64_t f, int64_t kernel) {
  int64_t padded = hw + kernel - 1;
  auto in = std::make_shared<std::vector<float>>(
      randomVector(c * padded * padded, 1));
  auto w = std::make_shared<std::vector<float>>(
      randomVector(f * c * kernel * kernel, 2));
  auto out = std::make_shared<std::vector<float>>(f * hw * hw, 0.0f);
  std::string name = "conv " + std::to_string(c) + "->" + std::to_string(f) +
                     " " + std::to_string(kernel) + "x" +
                     std::to_string(kernel) + " @" + std::to_string(hw) + "x" +
                     std::to_string(hw);
  return {name, 2.0 * f * c * kernel * kernel * hw * hw, [=] {
            TelarMemRef4F32 di{in->data(),
                               in->data(),
                               0,
                               {1, c, padded, padded},
                               {c * padded * padded, padded * padded, padded,
                                1}};
            TelarMemRef4F32 dw{w->data(),
                               w->data(),
                               0,
                               {f, c, kernel, kernel},
                               {c * kernel * kernel, kernel * kernel, kernel,
                                1}};
            TelarMemRef4F32 dout{out->data(),
                                 out->data(),
                                 0,
                                 {1, f, hw, hw},
                                 {f * hw * hw, hw * hw, hw, 1}};
            zero(*out);
            telarrt_conv2d_nchw_f32(context, &di, &dw, &dout, 1, 1, 1, 1, 0,
                                    0, flags);
          }};
}

} // namespace

int main(int argc, char **argv) {
  int threads = std::max(1u, std::thread::hardware_concurrency());
  double minTime = 0.3;
  std::string only;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg == "--threads" && i + 1 < argc) {
      threads = std::max(1, std::atoi(argv[++i]));
    } else if (arg == "--min-time" && i + 1 < argc) {
      minTime = std::atof(argv[++i]);
    } else if (arg == "--only" && i + 1 < argc) {
      only = argv[++i];
    } else {
      std::fprintf(stderr,
                   "usage: telar-gemm-bench [--threads N] [--min-time S] "
                   "[--only SUBSTRING]\n");
      return 2;
    }
  }
  context = telarrt_context_create();
  if (!context) {
    std::fprintf(stderr, "telar-gemm-bench: out of memory\n");
    return 1;
  }
  int ours = telarrt_context_set_gemm_kernel(context, TELARRT_GEMM_AUTO);
  const char *core = std::getenv("OPENBLAS_CORETYPE");
  std::printf("ours: %s; OpenBLAS kernels: %s (OPENBLAS_CORETYPE %s)\n",
              kernelName(ours), telarrt_blas_core_name(),
              core ? core : "unset");

  std::vector<Case> cases = {
      matmul(512, 512, 512, false),     matmul(1024, 1024, 1024, false),
      matmul(128, 512, 2048, false),    matmul(128, 2048, 512, false),
      matmul(128, 512, 2048, true),     matmul(197, 384, 1536, true),
      batchMatmul(8, 16, 64, 16, true), batchMatmul(8, 16, 16, 64, false),
      batchMatmul(8, 128, 64, 128, true), conv(64, 56, 64, 3),
      conv(256, 14, 256, 1),
      // Small products (the mini models: hidden 128, 32 tokens, 8 heads).
      matmul(32, 128, 384, false),      matmul(32, 128, 128, false),
      batchMatmul(8, 32, 16, 32, true), batchMatmul(8, 32, 32, 16, false),
  };
  std::vector<int> threadCounts = {1};
  if (threads > 1)
    threadCounts.push_back(threads);

  std::printf("%-26s %8s %10s %10s %7s\n", "GFLOP/s (m x k x n)", "threads",
              kernelName(ours), "openblas", "ratio");
  for (const Case &c : cases)
    for (int t : threadCounts) {
      if (c.name.find(only) == std::string::npos)
        continue;
      telarrt_set_num_threads(t);
      telarrt_context_set_gemm_kernel(context, ours);
      double tOurs = timeIt(c.run, minTime, /*rounds=*/3);
      telarrt_context_set_gemm_kernel(context, TELARRT_GEMM_OPENBLAS);
      double tBlas = timeIt(c.run, minTime, /*rounds=*/3);
      std::printf("%-26s %8d %10.1f %10.1f %7.2f\n", c.name.c_str(), t,
                  c.flops / tOurs * 1e-9, c.flops / tBlas * 1e-9,
                  tBlas / tOurs);
      std::fflush(stdout);
    }
  std::printf("\n%-26s %8s %10s %10s %7s\n", "GFLOP/s (m x k x n)", "threads",
              "fill+acc", "overwrite", "ratio");
  telarrt_set_num_threads(1);
  telarrt_context_set_gemm_kernel(context, ours);
  for (const Case &c : cases) {
    if (c.name.find(only) == std::string::npos)
      continue;
    flags = TELAR_KERNEL_ACCUMULATE;
    zeroFirst = true;
    double tAcc = timeIt(c.run, minTime, /*rounds=*/3);
    flags = 0;
    zeroFirst = false;
    double tOver = timeIt(c.run, minTime, /*rounds=*/3);
    std::printf("%-26s %8d %10.1f %10.1f %7.2f\n", c.name.c_str(), 1,
                c.flops / tAcc * 1e-9, c.flops / tOver * 1e-9, tAcc / tOver);
    std::fflush(stdout);
  }
  flags = TELAR_KERNEL_ACCUMULATE;
  telarrt_context_destroy(context);
  return 0;
}
