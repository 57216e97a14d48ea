//===- CpuDevice.h - The CPU device -----------------------------*- C++ -*-===//
//
// Internal to the CPU device library. The CPU device (Device.h): host
// memory through a HostAllocator (tracked blocks, a cache of freed ones),
// a queue that runs its work in order on the calling thread, weights used
// in place from their read-only mappings (packed once for the GEMM) or as
// private copies when writable, and the state its kernels read on every
// call (the GEMM, the packed weights of the program running, the kernel
// profile). Kernels reach it through their context: cpuDeviceOf(ctx).
//
//===----------------------------------------------------------------------===//

#ifndef TELAR_RUNTIME_CPU_CPUDEVICE_H
#define TELAR_RUNTIME_CPU_CPUDEVICE_H

#include "../Context.h"
#include "Gemm.h"
#include "telar/runtime/Device.h"

#include <atomic>
#include <cassert>
#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

namespace telar::runtime::detail {

/// Free lists of freed blocks by (total size, alignment) (HostAllocator.cpp).
class BlockCache {
public:
  /// A cached block of exactly `total` bytes aligned to `alignment`, or
  /// null.
  void *take(size_t total, size_t alignment);
  /// Keeps a freed block; false when the cache is full (the caller frees
  /// it).
  bool put(void *base, size_t total, size_t alignment);
  void release();
  size_t cachedBytes() const;
  ~BlockCache() { release(); }

private:
  mutable std::mutex mutex;
  std::map<std::pair<size_t, size_t>, std::vector<void *>> lists;
  size_t cached = 0;
};

/// The header stored just before each block the allocator hands out; live
/// blocks are linked so that those a failed run leaves behind can be freed.
struct BlockHeader {
  void *base;
  size_t size;      // requested
  size_t total;     // allocated (from base)
  size_t alignment; // of the allocation
  BlockHeader *prev, *next;
};

/// Host memory for a context's programs (HostAllocator.cpp says how).
class HostAllocator final : public DeviceAllocator {
public:
  ~HostAllocator() override;
  void *allocate(size_t alignment, size_t bytes, std::string &error) override;
  void deallocate(void *ptr) override;
  void freeLiveBlocks() override;
  size_t getCurrentBytes() const override {
    return currentBytes.load(std::memory_order_relaxed);
  }
  size_t getPeakBytes() const override {
    return peakBytes.load(std::memory_order_relaxed);
  }
  void resetPeakBytes() override {
    peakBytes.store(getCurrentBytes(), std::memory_order_relaxed);
  }
  void setMemoryLimit(size_t bytes) override { memoryLimit = bytes; }
  size_t getMemoryLimit() const override { return memoryLimit; }
  size_t getCachedBytes() const override { return cache.cachedBytes(); }
  void releaseCachedMemory() override { cache.release(); }

private:
  void release(BlockHeader *header);

  std::atomic<size_t> currentBytes{0};
  std::atomic<size_t> peakBytes{0};
  size_t memoryLimit = SIZE_MAX;
  BlockCache cache;
  std::mutex liveMutex;
  BlockHeader *live = nullptr;
};

class ConstantCache; // PackedConstants.cpp

/// Kernel times by (kernel, shape) (Context::setKernelProfiling).
struct KernelProfile {
  std::mutex mutex;
  std::map<std::pair<std::string, std::string>, size_t> index;
  std::vector<KernelProfileEntry> entries;
};

/// The GEMM a new CPU device uses: TELAR_GEMM_KERNEL (openblas, avx2,
/// avx512; unset or auto: the fastest the CPU runs), read once.
GemmKernel defaultGemmKernel();

} // namespace telar::runtime::detail

namespace telar::runtime::cpu {

/// The CPU device's queue: work runs at once, on the calling thread, so
/// every event is complete when recorded.
class CpuQueue final : public Queue {
public:
  void enqueue(std::function<void()> work) override { work(); }
  std::unique_ptr<Event> recordEvent() override;
  void waitEvent(const Event &event) override { event.wait(); }
  void synchronize() override {}
  void *getNativeHandle() const override { return nullptr; }
};

class CpuDevice final : public Device {
public:
  const char *getKind() const override { return "cpu"; }
  MemorySpace getMemorySpace() const override { return MemorySpace::Host; }
  DeviceAllocator &getAllocator() override { return allocator; }
  Queue &getQueue() override { return queue; }
  void copy(void *dst, MemorySpace dstSpace, const void *src,
            MemorySpace srcSpace, size_t bytes) override;
  std::unique_ptr<DeviceWeights>
  loadWeights(const std::vector<HostSpan> &weights,
              const std::vector<HostSpan> &mappings, bool writable) override;
  const void *setWeightsBinding(const void *binding) override;
  void setKernelProfiling(bool enabled) override;
  std::vector<KernelProfileEntry> getKernelProfile() const override;

  // What the kernels read on every call (Matmul.cpp's Env, KernelTimer).
  detail::GemmKernel gemmKernel = detail::defaultGemmKernel();
  /// The packed weights of the artifact running (null: none are packed
  /// ahead of time).
  detail::ConstantCache *constants = nullptr;
  /// The kernels' times while profiling (null: off).
  std::unique_ptr<detail::KernelProfile> profile;

private:
  detail::HostAllocator allocator;
  CpuQueue queue;
};

/// The CPU device of a context CPU kernels are called with.
inline CpuDevice &cpuDeviceOf(const TelarContext *ctx) {
  assert(ctx->device && ctx->device->getMemorySpace() == MemorySpace::Host &&
         "CPU kernels on a context whose device is not the CPU");
  return static_cast<CpuDevice &>(*ctx->device);
}

} // namespace telar::runtime::cpu

#endif // TELAR_RUNTIME_CPU_CPUDEVICE_H
