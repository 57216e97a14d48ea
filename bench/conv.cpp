//===- conv.cpp - The runtime's convolution on ResNet-18's layers ---------===//
//
// telar-conv-bench [--threads N] [--min-time SECONDS] [--only SUBSTRING]
//                  [--explicit-pad] [--relu] [--batch B] [--image N]
//                  [--methods]
//
// Milliseconds and GFLOP/s of telarrt_conv2d_nchw_f32 on each distinct
// convolution of ResNet-18 at 224x224 (NxN with --image N, a multiple of
// 32: each layer's map scaled by N/224; batch 1 unless --batch), with the
// GEMM the runtime picks for this CPU, and the total over the network's 20
// convolutions (each layer times the number of times it occurs). The
// padding is implicit (pad_top/pad_left, the unpadded image as input)
// unless --explicit-pad passes an input padded beforehand (as before the
// kernels took pads); --relu asks for the ReLU epilogue. --methods times
// each conv method (telarrt_set_conv_method: the GEMM on phase planes,
// direct, im2col panels, im2col) on each layer, taking turns round by
// round, and prints the speed of direct relative to the planes' GEMM
// (planes ms / direct ms). Each filter is registered as a constant, as
// an artifact's weights are (so the kernels that want a packed copy of it
// make one once, not on every call). Asserts nothing about speed.
//
//===----------------------------------------------------------------------===//

#include "BenchUtil.h"
#include "telar/runtime/Abi.h"
#include "telar/runtime/Runtime.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <thread>
#include <vector>

namespace {

using telar::bench::randomVector;
using telar::bench::timeEach;

struct Layer {
  const char *name;
  int64_t c, f, k, stride, pad, hw; // input channels, filters, kernel, input
  int count;                        // occurrences in ResNet-18
};

// ResNet-18's convolutions (torchvision): the 7x7 stem, then per stage the
// 3x3s (the first of stages 2-4 strided) and the 1x1 strided downsample.
const Layer kLayers[] = {
    {"conv1 7x7/2 3->64 @224", 3, 64, 7, 2, 3, 224, 1},
    {"layer1 3x3 64->64 @56", 64, 64, 3, 1, 1, 56, 4},
    {"layer2.0 3x3/2 64->128 @56", 64, 128, 3, 2, 1, 56, 1},
    {"layer2 3x3 128->128 @28", 128, 128, 3, 1, 1, 28, 3},
    {"layer2 ds 1x1/2 64->128 @56", 64, 128, 1, 2, 0, 56, 1},
    {"layer3.0 3x3/2 128->256 @28", 128, 256, 3, 2, 1, 28, 1},
    {"layer3 3x3 256->256 @14", 256, 256, 3, 1, 1, 14, 3},
    {"layer3 ds 1x1/2 128->256 @28", 128, 256, 1, 2, 0, 28, 1},
    {"layer4.0 3x3/2 256->512 @14", 256, 512, 3, 2, 1, 14, 1},
    {"layer4 3x3 512->512 @7", 512, 512, 3, 1, 1, 7, 3},
    {"layer4 ds 1x1/2 256->512 @14", 256, 512, 1, 2, 0, 14, 1},
};

/// The conv methods --methods compares (TELARRT_CONV_*), by name.
struct Method {
  const char *name;
  int value;
};
const Method kMethods[] = {{"planes", TELARRT_CONV_PHASE_PLANES},
                           {"direct", TELARRT_CONV_DIRECT},
                           {"panels", TELARRT_CONV_IM2COL_PANELS},
                           {"im2col", TELARRT_CONV_IM2COL}};

TelarMemRef4F32 dense(float *p, int64_t n, int64_t c, int64_t h, int64_t w) {
  return {p, p, 0, {n, c, h, w}, {c * h * w, h * w, w, 1}};
}

} // namespace

int main(int argc, char **argv) {
  int threads = std::max(1u, std::thread::hardware_concurrency());
  double minTime = 0.3;
  std::string only;
  bool explicitPad = false, relu = false, methods = false;
  int64_t batch = 1, imageSize = 224;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg == "--threads" && i + 1 < argc) {
      threads = std::max(1, std::atoi(argv[++i]));
    } else if (arg == "--min-time" && i + 1 < argc) {
      minTime = std::atof(argv[++i]);
    } else if (arg == "--only" && i + 1 < argc) {
      only = argv[++i];
    } else if (arg == "--batch" && i + 1 < argc) {
      batch = std::max(1, std::atoi(argv[++i]));
    } else if (arg == "--image" && i + 1 < argc &&
               std::atoi(argv[i + 1]) > 0 && std::atoi(argv[i + 1]) % 32 == 0) {
      imageSize = std::atoi(argv[++i]);
    } else if (arg == "--explicit-pad") {
      explicitPad = true;
    } else if (arg == "--relu") {
      relu = true;
    } else if (arg == "--methods") {
      methods = true;
    } else {
      std::fprintf(stderr,
                   "usage: telar-conv-bench [--threads N] [--min-time S] "
                   "[--only SUBSTRING] [--explicit-pad] [--relu] "
                   "[--batch B] [--image N (multiple of 32)] [--methods]\n");
      return 2;
    }
  }
  telarrt_set_num_threads(threads);
  telar::runtime::Context owner;
  telar::runtime::PrepackedWeights weights;
  owner.setPrepackedWeights(&weights);
  TelarContext *context = owner.get();
  std::printf("threads %d, batch %lld, image %lldx%lld, %s padding%s\n",
              threads, (long long)batch, (long long)imageSize, (long long)imageSize,
              explicitPad ? "explicit" : "implicit",
              relu ? ", ReLU epilogue" : "");
  if (methods) {
    std::printf("%-32s", "layer (ms)");
    for (const Method &m : kMethods)
      std::printf(" %9s", m.name);
    std::printf(" %15s\n", "planes / direct");
  } else {
    std::printf("%-32s %9s %9s %9s\n", "layer", "ms", "GFLOP/s", "x count");
  }
  double total = 0;
  std::vector<double> totals(std::size(kMethods), 0.0);
  for (const Layer &l : kLayers) {
    if (!only.empty() && std::string(l.name).find(only) == std::string::npos)
      continue;
    int64_t hw = l.hw * imageSize / 224;
    // The name with this image's map size ("... @16" at 64 x 64).
    std::string name = l.name;
    name = name.substr(0, name.rfind('@') + 1) + std::to_string(hw);
    int64_t out = (hw + 2 * l.pad - l.k) / l.stride + 1;
    int64_t in = explicitPad ? hw + 2 * l.pad : hw;
    int64_t pad = explicitPad ? 0 : l.pad;
    std::vector<float> image = randomVector(batch * l.c * in * in, 1);
    if (explicitPad) // zero borders
      for (int64_t p = 0; p < batch * l.c; ++p)
        for (int64_t y = 0; y < in; ++y)
          for (int64_t x = 0; x < in; ++x)
            if (y < l.pad || x < l.pad || y >= in - l.pad || x >= in - l.pad)
              image[(p * in + y) * in + x] = 0;
    std::vector<float> filter = randomVector(l.f * l.c * l.k * l.k, 2);
    // Registered for this layer only (a later layer's filter may reuse the
    // address).
    struct Registration {
      telar::runtime::PrepackedWeights &weights;
      const std::vector<float> &data;
      Registration(telar::runtime::PrepackedWeights &w,
                   const std::vector<float> &d)
          : weights(w), data(d) {
        weights.registerRange(data.data(), data.size() * sizeof(float));
      }
      ~Registration() {
        weights.unregisterRange(data.data(), data.size() * sizeof(float));
      }
    } registration(weights, filter);
    std::vector<float> result(batch * l.f * out * out, 0.0f);
    TelarMemRef4F32 di = dense(image.data(), batch, l.c, in, in);
    TelarMemRef4F32 df = dense(filter.data(), l.f, l.c, l.k, l.k);
    TelarMemRef4F32 dout = dense(result.data(), batch, l.f, out, out);
    int64_t flags = TELAR_KERNEL_ACCUMULATE | (relu ? TELAR_KERNEL_RELU : 0);
    auto conv = [&] {
      if (telarrt_conv2d_nchw_f32(context, &di, &df, &dout, l.stride,
                                  l.stride, 1, 1, pad, pad, flags) !=
          TELAR_STATUS_OK) {
        std::fprintf(stderr, "%s\n", telarrt_context_error(context));
        std::exit(1);
      }
    };
    if (methods) {
      std::vector<std::function<void()>> fs;
      for (const Method &m : kMethods)
        fs.push_back([&, m] {
          telarrt_set_conv_method(m.value);
          conv();
        });
      std::vector<double> t =
          timeEach(fs, minTime * std::size(kMethods), /*rounds=*/5);
      telarrt_set_conv_method(TELARRT_CONV_AUTO);
      std::printf("%-32s", name.c_str());
      for (size_t i = 0; i < t.size(); ++i) {
        std::printf(" %9.3f", t[i] * 1e3);
        totals[i] += t[i] * l.count;
      }
      std::printf(" %15.2f\n", t[0] / t[1]);
      continue;
    }
    double s = timeEach({conv}, minTime, /*rounds=*/5)[0];
    double flops = 2.0 * batch * l.f * l.c * l.k * l.k * out * out;
    std::printf("%-32s %9.3f %9.1f %9.3f\n", name.c_str(), s * 1e3, flops / s / 1e9,
                s * 1e3 * l.count);
    total += s * l.count;
  }
  if (methods) {
    std::printf("%-32s", "total (x count)");
    for (double t : totals)
      std::printf(" %9.3f", t * 1e3);
    std::printf(" %15.2f\n", totals[0] / totals[1]);
  } else {
    std::printf("%-32s %9.3f\n", "total (x count)", total * 1e3);
  }
  return 0;
}
