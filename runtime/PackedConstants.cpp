//===- PackedConstants.cpp - GEMM operands packed once --------------------===//
//
// Weights are the `b` of most GEMMs a transformer runs, and they are the
// same on every run: memory-mapped read-only from the artifact's
// safetensors files. Each Artifact owns a PrepackedWeights (Runtime.h) and
// registers its mappings there as constant; while it runs a program on a
// context, a GEMM of that context whose `b` lies wholly inside one gets all
// of b's panels packed once (PackedB, Gemm.h), on first use, and reads them
// from then on instead of packing them on every call. The packed copies are
// kept per (pointer, shape, strides, kernel) until their range is
// unregistered or the PrepackedWeights is destroyed.
//
// Compiled with -fopenmp (run by libomp, like Kernels.cpp): a first use
// outside a parallel region packs on all threads.
//
//===----------------------------------------------------------------------===//

#include "Gemm.h"
#include "telar/runtime/Abi.h"
#include "telar/runtime/Runtime.h"

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <tuple>
#include <vector>

using namespace telar::runtime::detail;

extern "C" int omp_in_parallel(void);

namespace {

/// What a packed copy is packed from and for.
struct Key {
  const float *p;
  int64_t rows, cols, rs, cs;
  GemmKernel kernel;

  bool operator<(const Key &o) const {
    return std::tie(p, rows, cols, rs, cs, kernel) <
           std::tie(o.p, o.rows, o.cols, o.rs, o.cs, o.kernel);
  }
};

struct Entry {
  std::once_flag once;
  PackedB packed{};
  float *data = nullptr;
  size_t bytes = 0;
  /// The bytes of memory `b` spans, [lo, hi).
  uintptr_t lo = 0, hi = 0;

  ~Entry() { std::free(data); }
};

} // namespace

namespace telar::runtime::detail {
class ConstantCache {
public:
  std::mutex mutex;
  /// Registered ranges [begin, end), possibly repeated.
  std::vector<std::pair<uintptr_t, uintptr_t>> ranges;
  std::map<Key, std::unique_ptr<Entry>> entries;
  /// ranges.size(), read without the lock (the common case: none).
  std::atomic<size_t> rangeCount{0};
  std::atomic<size_t> bytes{0};

  bool covered(uintptr_t lo, uintptr_t hi) const {
    for (const auto &[begin, end] : ranges)
      if (begin <= lo && hi <= end)
        return true;
    return false;
  }
};
} // namespace telar::runtime::detail

namespace {

bool prepackEnabled() {
  static const bool enabled = [] {
    const char *env = std::getenv("TELAR_GEMM_PREPACK");
    return !(env && !std::strcmp(env, "0"));
  }();
  return enabled;
}

/// The bytes b's elements span, [lo, hi).
std::pair<uintptr_t, uintptr_t> span(const MatrixView &b) {
  int64_t lo = 0, hi = 0;
  for (auto [size, stride] : {std::pair(b.rows, b.rs), std::pair(b.cols, b.cs)}) {
    int64_t reach = (size - 1) * stride;
    (reach < 0 ? lo : hi) += reach;
  }
  auto base = reinterpret_cast<uintptr_t>(b.p);
  return {base + lo * sizeof(float), base + (hi + 1) * sizeof(float)};
}

/// Packs all of `b` for `kernel` into `e`; leaves e.data null when out of
/// memory (the GEMM then packs as it goes).
void pack(Entry &e, GemmKernel kernel, const MatrixView &b) {
  int64_t k = b.rows, n = b.cols;
  int64_t nr = gemmTileCols(kernel);
  int64_t kc = gemmPanelDepth(kernel, k);
  int64_t stride = (n + nr - 1) / nr * nr;
  e.bytes = (static_cast<size_t>(k * stride) * sizeof(float) + 63) / 64 * 64;
  e.data = static_cast<float *>(std::aligned_alloc(64, e.bytes));
  if (!e.data) {
    e.bytes = 0;
    return;
  }
  // Tasks of up to 8 panels of one block.
  constexpr int64_t kPanelsPerTask = 8;
  int64_t blocks = (k + kc - 1) / kc;
  int64_t chunks = (stride / nr + kPanelsPerTask - 1) / kPanelsPerTask;
  int64_t tasks = blocks * chunks;
  float *data = e.data;
#pragma omp parallel for if (tasks > 1 && !omp_in_parallel()) schedule(dynamic)
  for (int64_t t = 0; t < tasks; ++t) {
    int64_t pc = t / chunks * kc, depth = std::min(kc, k - pc);
    int64_t j0 = t % chunks * kPanelsPerTask * nr;
    int64_t cols = std::min(kPanelsPerTask * nr, n - j0);
    gemmPackB(kernel, b, pc, depth, j0, cols, data + pc * stride + j0 * depth);
  }
  e.packed = {data, kernel, kc, stride, 0};
}

} // namespace

const PackedB *
telar::runtime::detail::constantPackedB(ConstantCache *cache,
                                        GemmKernel kernel,
                                        const MatrixView &b) {
  if (!cache)
    return nullptr;
  ConstantCache &c = *cache;
  if (c.rangeCount.load(std::memory_order_acquire) == 0 || !prepackEnabled() ||
      (kernel != GemmKernel::Avx2 && kernel != GemmKernel::Avx512) ||
      b.rows <= 0 || b.cols <= 0)
    return nullptr;
  auto [lo, hi] = span(b);
  Entry *e;
  {
    std::lock_guard<std::mutex> lock(c.mutex);
    if (!c.covered(lo, hi))
      return nullptr;
    std::unique_ptr<Entry> &slot =
        c.entries[{b.p, b.rows, b.cols, b.rs, b.cs, kernel}];
    if (!slot) {
      slot = std::make_unique<Entry>();
      slot->lo = lo;
      slot->hi = hi;
    }
    e = slot.get();
  }
  // Packed outside the lock (other operands may be packed meanwhile);
  // concurrent users of this one wait for it.
  std::call_once(e->once, [&] {
    pack(*e, kernel, b);
    c.bytes.fetch_add(e->bytes, std::memory_order_relaxed);
  });
  return e->data ? &e->packed : nullptr;
}

using telar::runtime::PrepackedWeights;

PrepackedWeights::PrepackedWeights()
    : cache(std::make_unique<telar::runtime::detail::ConstantCache>()) {}

PrepackedWeights::~PrepackedWeights() = default;

void PrepackedWeights::registerRange(const void *data, size_t bytes) {
  if (!data || bytes == 0)
    return;
  ConstantCache &c = *cache;
  std::lock_guard<std::mutex> lock(c.mutex);
  auto begin = reinterpret_cast<uintptr_t>(data);
  c.ranges.emplace_back(begin, begin + bytes);
  c.rangeCount.store(c.ranges.size(), std::memory_order_release);
}

void PrepackedWeights::unregisterRange(const void *data, size_t bytes) {
  if (!data || bytes == 0)
    return;
  ConstantCache &c = *cache;
  std::lock_guard<std::mutex> lock(c.mutex);
  auto begin = reinterpret_cast<uintptr_t>(data);
  auto it = std::find(c.ranges.begin(), c.ranges.end(),
                      std::pair(begin, begin + bytes));
  if (it == c.ranges.end())
    return;
  c.ranges.erase(it);
  c.rangeCount.store(c.ranges.size(), std::memory_order_release);
  // Drop the packed copies no registered range covers any more.
  for (auto e = c.entries.begin(); e != c.entries.end();) {
    if (c.covered(e->second->lo, e->second->hi)) {
      ++e;
      continue;
    }
    c.bytes.fetch_sub(e->second->bytes, std::memory_order_relaxed);
    e = c.entries.erase(e);
  }
}

size_t PrepackedWeights::getBytes() const {
  return cache->bytes.load(std::memory_order_relaxed);
}
