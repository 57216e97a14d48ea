//===- GpuDevice.cpp - What the CUDA device and its emulation share -------===//

#include "GpuDevice.h"
#include "telar/runtime/Runtime.h"

#include <cstring>

using namespace telar::runtime;
using namespace telar::runtime::gpu;

namespace {
constexpr size_t kGpuAlignment = 256;
constexpr size_t kMaxCachedBytes = size_t(1) << 30;
} // namespace

//===----------------------------------------------------------------------===//
// GpuAllocator
//===----------------------------------------------------------------------===//

void *GpuAllocator::allocate(size_t alignment, size_t bytes,
                             std::string &error) {
  if (alignment > kGpuAlignment) {
    error = "cannot allocate device memory aligned to " +
            std::to_string(alignment) + " bytes (at most 256)";
    return nullptr;
  }
  if (bytes > SIZE_MAX - kGpuAlignment) {
    error = "cannot allocate " + std::to_string(bytes) + " bytes";
    return nullptr;
  }
  size_t total = std::max(kGpuAlignment,
                          (bytes + kGpuAlignment - 1) / kGpuAlignment *
                              kGpuAlignment);
  std::lock_guard<std::mutex> lock(mutex);
  size_t now = current.load();
  if (bytes > limit || now > limit - bytes) {
    error = "out of memory: cannot allocate " + std::to_string(bytes) +
            " bytes of intermediates (the context's memory limit is " +
            std::to_string(limit) + " bytes; " + std::to_string(now) +
            " bytes allocated)";
    return nullptr;
  }
  void *p = nullptr;
  auto it = cache.find(total);
  if (it != cache.end() && !it->second.empty()) {
    p = it->second.back();
    it->second.pop_back();
    cached -= total;
  } else {
    p = device.rawAllocate(total, error);
    if (!p && cached) {
      // Give the blocks kept for reuse back, then try once more.
      releaseCacheLocked();
      error.clear();
      p = device.rawAllocate(total, error);
    }
    if (!p)
      return nullptr;
  }
  live[p] = {bytes, total};
  size_t after = current.fetch_add(bytes) + bytes;
  size_t old = peak.load();
  while (after > old && !peak.compare_exchange_weak(old, after)) {
  }
  return p;
}

void GpuAllocator::deallocate(void *ptr) {
  if (!ptr)
    return;
  std::lock_guard<std::mutex> lock(mutex);
  auto it = live.find(ptr);
  if (it == live.end())
    return; // not a block of this allocator
  auto [bytes, total] = it->second;
  live.erase(it);
  current.fetch_sub(bytes);
  // Every size is kept: a GPU's free (cuMemFree) waits for the device,
  // while a block reused from the cache is ordered after its last use by
  // the stream itself.
  if (cached + total <= kMaxCachedBytes) {
    cache[total].push_back(ptr);
    cached += total;
    return;
  }
  device.rawFree(ptr);
}

void GpuAllocator::freeLiveBlocks() {
  std::lock_guard<std::mutex> lock(mutex);
  for (auto &[ptr, sizes] : live) {
    current.fetch_sub(sizes.first);
    device.rawFree(ptr);
  }
  live.clear();
}

size_t GpuAllocator::getCachedBytes() const {
  std::lock_guard<std::mutex> lock(mutex);
  return cached;
}

void GpuAllocator::releaseCachedMemory() {
  std::lock_guard<std::mutex> lock(mutex);
  releaseCacheLocked();
}

void GpuAllocator::releaseCacheLocked() {
  for (auto &[size, blocks] : cache)
    for (void *block : blocks)
      device.rawFree(block);
  cache.clear();
  cached = 0;
}

//===----------------------------------------------------------------------===//
// GpuDevice
//===----------------------------------------------------------------------===//

namespace {
/// Weights in blocks of device memory of their own.
class GpuWeights final : public DeviceWeights {
public:
  GpuWeights(GpuDevice &device, const std::vector<HostSpan> &weights,
             bool writable)
      : device(device) {
    this->writable = writable;
    for (const HostSpan &w : weights) {
      std::string error;
      void *p = device.rawAllocate(std::max<size_t>(w.bytes, 1), error);
      if (!p) {
        release();
        throw Error("cannot upload " + std::to_string(w.bytes) +
                    " bytes of weights to the " + device.getKind() +
                    " device: " + error);
      }
      data.push_back(p);
      if (w.bytes)
        device.rawCopy(p, MemorySpace::Device, w.data, MemorySpace::Host,
                       w.bytes);
    }
    // The host's mappings may go once uploaded.
    device.getQueue().synchronize();
  }
  ~GpuWeights() override { release(); }

private:
  void release() {
    for (void *p : data)
      device.rawFree(p);
    data.clear();
  }
  GpuDevice &device;
};
} // namespace

void GpuDevice::copy(void *dst, MemorySpace dstSpace, const void *src,
                     MemorySpace srcSpace, size_t bytes) {
  if (!bytes)
    return;
  if (dstSpace == MemorySpace::Host && srcSpace == MemorySpace::Host) {
    std::memcpy(dst, src, bytes);
    return;
  }
  rawCopy(dst, dstSpace, src, srcSpace, bytes);
}

std::unique_ptr<DeviceWeights>
GpuDevice::loadWeights(const std::vector<HostSpan> &weights,
                       const std::vector<HostSpan> &, bool writable) {
  return std::make_unique<GpuWeights>(*this, weights, writable);
}

bool telar::runtime::gpu::checkLaunchLimits(const int64_t grid[3],
                                            const int64_t block[3],
                                            std::string &error) {
  const int64_t gridLimit[3] = {(int64_t(1) << 31) - 1, 65535, 65535};
  const int64_t blockLimit[3] = {1024, 1024, 64};
  const char *dims = "xyz";
  for (int d = 0; d < 3; ++d) {
    if (grid[d] < 1 || grid[d] > gridLimit[d]) {
      error = "a grid of " + std::to_string(grid[d]) + " blocks along " +
              dims[d] + " (CUDA allows 1 to " + std::to_string(gridLimit[d]) +
              ")";
      return false;
    }
    if (block[d] < 1 || block[d] > blockLimit[d]) {
      error = "a block of " + std::to_string(block[d]) + " threads along " +
              dims[d] + " (CUDA allows 1 to " +
              std::to_string(blockLimit[d]) + ")";
      return false;
    }
  }
  if (block[0] * block[1] * block[2] > 1024) {
    error = "a block of " + std::to_string(block[0] * block[1] * block[2]) +
            " threads (CUDA allows at most 1024)";
    return false;
  }
  return true;
}
