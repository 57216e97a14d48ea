//===- BenchUtil.h - What the C++ benchmarks share --------------*- C++ -*-===//
//
// Random operands and best-of-rounds timing for bench/gemm.cpp and
// bench/conv.cpp (header-only: each is its own executable).
//
//===----------------------------------------------------------------------===//

#ifndef TELAR_BENCH_BENCHUTIL_H
#define TELAR_BENCH_BENCHUTIL_H

#include <algorithm>
#include <chrono>
#include <functional>
#include <random>
#include <vector>

namespace telar::bench {

/// `n` values uniform in [-1, 1), the same for the same seed.
inline std::vector<float> randomVector(size_t n, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(-1, 1);
  std::vector<float> v(n);
  for (float &x : v)
    x = dist(rng);
  return v;
}

/// Seconds per call of each of `fs`: the best of `rounds` rounds of at
/// least `minTime / rounds` each, after one warm-up call of each (scratch
/// buffers, threads, packed weights), the functions taking turns round by
/// round (so that a slow phase of the machine hits them all alike).
inline std::vector<double>
timeEach(const std::vector<std::function<void()>> &fs, double minTime,
         int rounds) {
  using Clock = std::chrono::steady_clock;
  std::vector<double> best(fs.size(), 1e30);
  for (const auto &f : fs)
    f();
  for (int round = 0; round < rounds; ++round)
    for (size_t i = 0; i < fs.size(); ++i) {
      int calls = 0;
      auto start = Clock::now();
      double elapsed;
      do {
        fs[i]();
        ++calls;
        elapsed = std::chrono::duration<double>(Clock::now() - start).count();
      } while (elapsed < minTime / rounds);
      best[i] = std::min(best[i], elapsed / calls);
    }
  return best;
}

/// Seconds per call of `f` (timeEach of one function).
inline double timeIt(const std::function<void()> &f, double minTime,
                     int rounds) {
  return timeEach({f}, minTime, rounds)[0];
}

} // namespace telar::bench

#endif // TELAR_BENCH_BENCHUTIL_H
