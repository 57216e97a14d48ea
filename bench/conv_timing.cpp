//===- conv_timing.cpp - One convolution's best time, for Python ----------===//
//
// libtelar_conv_timing.so: telar_bench_conv_best() times the runtime's
// convolution (bias and ReLU epilogue, the filter registered as a constant,
// as an artifact's weights are) on one layer shape, so that
// bench/conv_vs_onnxruntime.py can take turns with onnxruntime in one
// process. Asserts nothing about speed.
//
//===----------------------------------------------------------------------===//

#include "telar/runtime/Abi.h"
#include "telar/runtime/Runtime.h"

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <random>
#include <vector>

namespace {
double now() {
  return std::chrono::duration<double>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}
} // namespace

/// The best of the runs that fill `min_time` seconds of an NCHW
/// convolution of a 1 x c x hw x hw input by f filters of k x k (stride
/// and padding on every side as given), with a bias and the ReLU, on
/// `threads` threads; with `flush`, 64 MiB are written before each run
/// (caches as cold as in a model). Negative on a kernel error.
extern "C" __attribute__((visibility("default"))) double
telar_bench_conv_best(int64_t c, int64_t f, int64_t hw, int64_t k,
                      int64_t stride, int64_t pad, int threads,
                      double min_time, int flush) {
  static telar::runtime::Context context;
  static telar::runtime::PrepackedWeights weights;
  context.setPrepackedWeights(&weights);
  telarrt_set_num_threads(threads);
  int64_t oh = (hw + 2 * pad - k) / stride + 1;
  std::mt19937 rng(1);
  std::uniform_real_distribution<float> dist(-1, 1);
  std::vector<float> in(c * hw * hw), filter(f * c * k * k), bias(f),
      out(f * oh * oh);
  for (std::vector<float> *v : {&in, &filter, &bias})
    for (float &x : *v)
      x = dist(rng);
  weights.registerRange(filter.data(), filter.size() * sizeof(float));
  weights.registerRange(bias.data(), bias.size() * sizeof(float));
  TelarMemRef4F32 di = {in.data(), in.data(), 0, {1, c, hw, hw},
                        {c * hw * hw, hw * hw, hw, 1}};
  TelarMemRef4F32 df = {filter.data(), filter.data(), 0, {f, c, k, k},
                        {c * k * k, k * k, k, 1}};
  TelarMemRef4F32 dout = {out.data(), out.data(), 0, {1, f, oh, oh},
                          {f * oh * oh, oh * oh, oh, 1}};
  TelarMemRef1F32 db = {bias.data(), bias.data(), 0, {f}, {1}};
  static std::vector<char> junk;
  if (flush)
    junk.resize(64 << 20);
  double best = -1;
  auto run = [&] {
    return telarrt_conv2d_nchw_bias_f32(context.get(), &di, &df, &db, &dout,
                                        stride, stride, 1, 1, pad, pad,
                                        TELAR_KERNEL_RELU) == TELAR_STATUS_OK;
  };
  bool ok = run() && run(); // the first packs the filter
  for (double t0 = now(); ok && now() - t0 < min_time;) {
    if (flush)
      for (size_t i = 0; i < junk.size(); i += 64)
        ++junk[i];
    double a = now();
    ok = run();
    double t = now() - a;
    best = best < 0 ? t : std::min(best, t);
  }
  weights.unregisterRange(filter.data(), filter.size() * sizeof(float));
  weights.unregisterRange(bias.data(), bias.size() * sizeof(float));
  return ok ? best : -1;
}
