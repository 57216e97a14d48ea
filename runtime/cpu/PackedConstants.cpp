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
// Compiled with -fopenmp (run by libomp, like the kernels): a first use
// outside a parallel region packs on all threads.
//
//===----------------------------------------------------------------------===//

#include "Gemm.h"
#include "HugePages.h"
#include "telar/runtime/Runtime.h"
#include "telar/runtime/abi/CpuKernels.h"

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
  int64_t window; // 0: b as it is; else a conv filter's interleaved order

  bool operator<(const Key &o) const {
    return std::tie(p, rows, cols, rs, cs, kernel, window) <
           std::tie(o.p, o.rows, o.cols, o.rs, o.cs, o.kernel, o.window);
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

/// Floats of all of a k x n matrix's panels for `kernel`.
int64_t packedFloats(GemmKernel kernel, int64_t k, int64_t n) {
  int64_t nr = gemmTileCols(kernel);
  return k * ((n + nr - 1) / nr * nr);
}

/// Packs all of `b` for `kernel` into `data` (packedFloats of it), block by
/// block or panel by panel (PackedB::panelMajor).
PackedB packAll(GemmKernel kernel, const MatrixView &b, float *data,
                bool panelMajor = false) {
  int64_t k = b.rows, n = b.cols;
  int64_t nr = gemmTileCols(kernel);
  int64_t kc = gemmPanelDepth(kernel, k);
  int64_t stride = (n + nr - 1) / nr * nr;
  // Tasks of up to 8 panels of one block.
  constexpr int64_t kPanelsPerTask = 8;
  int64_t blocks = (k + kc - 1) / kc;
  int64_t chunks = (stride / nr + kPanelsPerTask - 1) / kPanelsPerTask;
  int64_t tasks = blocks * chunks;
#pragma omp parallel for if (tasks > 1 && !omp_in_parallel()) schedule(dynamic)
  for (int64_t t = 0; t < tasks; ++t) {
    int64_t pc = t / chunks * kc, depth = std::min(kc, k - pc);
    int64_t j0 = t % chunks * kPanelsPerTask * nr;
    int64_t cols = std::min(kPanelsPerTask * nr, n - j0);
    if (!panelMajor) {
      gemmPackB(kernel, b, pc, depth, j0, cols,
                data + pc * stride + j0 * depth);
      continue;
    }
    for (int64_t j = j0; j < j0 + cols; j += nr)
      gemmPackB(kernel, b, pc, depth, j, std::min(nr, n - j),
                data + j * k + pc * nr);
  }
  return {data, kernel, kc, stride, 0, panelMajor};
}

/// The transpose of the F x (C * window) filter `a` with its rows in the
/// interleaved order (block, window position, channel in block), dense.
std::vector<float> interleavedTranspose(const MatrixView &a, int64_t window) {
  int64_t f = a.rows, depth = a.cols;
  std::vector<float> t(static_cast<size_t>(depth * f));
  for (int64_t k = 0; k < depth; ++k) {
    int64_t block = k / (window * kChannelBlock);
    int64_t pos = k / kChannelBlock % window, c = k % kChannelBlock;
    int64_t row = (block * kChannelBlock + c) * window + pos;
    for (int64_t j = 0; j < f; ++j)
      t[k * f + j] = a.at(j, row);
  }
  return t;
}

/// Packs all of `b` for `kernel` into `e` (b in the interleaved order of a
/// conv filter's transpose when window > 0: b is then the filter); leaves
/// e.data null when out of memory (the GEMM then packs as it goes).
void pack(Entry &e, GemmKernel kernel, const MatrixView &b, int64_t window) {
  std::vector<float> t;
  MatrixView src = b;
  if (window > 0) {
    t = interleavedTranspose(b, window);
    src = {t.data(), b.cols, b.rows, b.rows, 1};
  }
  e.bytes = (static_cast<size_t>(packedFloats(kernel, src.rows, src.cols)) *
                 sizeof(float) +
             63) /
            64 * 64;
  e.data = static_cast<float *>(allocateBuffer(64, e.bytes));
  if (!e.data) {
    e.bytes = 0;
    return;
  }
  e.packed = packAll(kernel, src, e.data, /*panelMajor=*/window > 0);
}

/// constantPackedB, or with window > 0 constantPackedConvFilter.
const PackedB *constantPacked(ConstantCache *cache, GemmKernel kernel,
                              const MatrixView &b, int64_t window);

} // namespace

const PackedB *
telar::runtime::detail::constantPackedB(ConstantCache *cache,
                                        GemmKernel kernel,
                                        const MatrixView &b) {
  return constantPacked(cache, kernel, b, 0);
}

const PackedB *telar::runtime::detail::constantPackedConvFilter(
    ConstantCache *cache, GemmKernel kernel, const MatrixView &filter,
    int64_t window) {
  return constantPacked(cache, kernel, filter, window);
}

int64_t telar::runtime::detail::convFilterFloats(GemmKernel kernel,
                                                 const MatrixView &filter) {
  return packedFloats(kernel, filter.cols, filter.rows);
}

PackedB telar::runtime::detail::packConvFilter(GemmKernel kernel,
                                               const MatrixView &filter,
                                               int64_t window, float *dst) {
  if (window == 0)
    return packAll(kernel, filter.transposed(), dst);
  std::vector<float> t = interleavedTranspose(filter, window);
  return packAll(kernel, {t.data(), filter.cols, filter.rows, filter.rows, 1},
                 dst, /*panelMajor=*/true);
}

namespace {
const PackedB *constantPacked(ConstantCache *cache, GemmKernel kernel,
                              const MatrixView &b, int64_t window) {
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
        c.entries[{b.p, b.rows, b.cols, b.rs, b.cs, kernel, window}];
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
    pack(*e, kernel, b, window);
    c.bytes.fetch_add(e->bytes, std::memory_order_relaxed);
  });
  return e->data ? &e->packed : nullptr;
}
} // namespace

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
