//===- GpuDevice.h - What the CUDA device and its emulation share -*- C++ -*-===//
//
// The "cuda" device (CudaDevice.cpp: the driver API) and the
// "cuda-emulator" (EmulatedDevice.cpp: host memory, kernels compiled for
// the host) differ only in their raw operations: allocating and freeing
// device memory, copying, running a queue. What a device builds on those is
// here and shared, so that the emulator exercises it exactly as the GPU
// does: the caching allocator of intermediates, weights uploaded once,
// staging between host and device memory.
//
//===----------------------------------------------------------------------===//

#ifndef TELAR_RUNTIME_CUDA_GPUDEVICE_H
#define TELAR_RUNTIME_CUDA_GPUDEVICE_H

#include "telar/runtime/Device.h"

#include <atomic>
#include <map>
#include <mutex>
#include <vector>

namespace telar::runtime::gpu {

class GpuDevice;

/// The device's memory for intermediates: blocks from the device's raw
/// allocation (256-byte aligned, sizes rounded up to 256), freed blocks
/// kept by size for reuse (up to 1 GiB; a raw allocation that fails
/// releases them and retries), statistics as the CPU's allocator keeps
/// them. One stream uses the blocks, so a block freed while kernels still
/// read it is safe to hand out again: its next use is ordered after them.
class GpuAllocator final : public DeviceAllocator {
public:
  explicit GpuAllocator(GpuDevice &device) : device(device) {}
  /// Frees nothing: the device it belongs to is gone by then, so each
  /// device frees the live and cached blocks in its own destructor.
  ~GpuAllocator() override = default;
  void *allocate(size_t alignment, size_t bytes, std::string &error) override;
  void deallocate(void *ptr) override;
  void freeLiveBlocks() override;
  size_t getCurrentBytes() const override { return current.load(); }
  size_t getPeakBytes() const override { return peak.load(); }
  void resetPeakBytes() override { peak.store(current.load()); }
  void setMemoryLimit(size_t bytes) override { limit = bytes; }
  size_t getMemoryLimit() const override { return limit; }
  size_t getCachedBytes() const override;
  void releaseCachedMemory() override;

private:
  /// releaseCachedMemory with `mutex` held.
  void releaseCacheLocked();

  GpuDevice &device;
  mutable std::mutex mutex;
  /// Live blocks: their requested and allocated sizes.
  std::map<void *, std::pair<size_t, size_t>> live;
  std::map<size_t, std::vector<void *>> cache;
  size_t cached = 0;
  std::atomic<size_t> current{0}, peak{0};
  size_t limit = SIZE_MAX;
};

/// A GPU device: its memory space is the device's own.
class GpuDevice : public Device {
public:
  GpuDevice() : allocator(*this) {}
  MemorySpace getMemorySpace() const override { return MemorySpace::Device; }
  DeviceAllocator &getAllocator() override { return allocator; }
  /// Host to host by memcpy; the rest by the device's copy, on its queue.
  void copy(void *dst, MemorySpace dstSpace, const void *src,
            MemorySpace srcSpace, size_t bytes) override;
  /// Each weight uploaded to a block of device memory of its own (not
  /// counted as intermediates), once; writable or not, programs read those
  /// blocks.
  std::unique_ptr<DeviceWeights>
  loadWeights(const std::vector<HostSpan> &weights,
              const std::vector<HostSpan> &mappings, bool writable) override;
  const void *setWeightsBinding(const void *) override { return nullptr; }

  /// Raw device memory: `bytes` (> 0) aligned to 256, or null with the
  /// reason in `error`.
  virtual void *rawAllocate(size_t bytes, std::string &error) = 0;
  virtual void rawFree(void *ptr) = 0;
  /// Copies between device buffers or between a device buffer and host
  /// memory (`dstSpace`, `srcSpace` say which; not both host), ordered
  /// on the queue; throws Error.
  virtual void rawCopy(void *dst, MemorySpace dstSpace, const void *src,
                       MemorySpace srcSpace, size_t bytes) = 0;

protected:
  GpuAllocator allocator;
};

/// The launch limits of CUDA devices of compute capability 8.0 to 9.0
/// (block: 1024 threads, z at most 64; grid: x < 2^31, y and z < 65536):
/// false with the reason when `grid` and `block` break them, so that the
/// emulator refuses what a GPU would.
bool checkLaunchLimits(const int64_t grid[3], const int64_t block[3],
                       std::string &error);

} // namespace telar::runtime::gpu

#endif // TELAR_RUNTIME_CUDA_GPUDEVICE_H
