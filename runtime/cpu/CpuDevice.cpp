//===- CpuDevice.cpp - The CPU device -------------------------------------===//
//
// The CPU driver of Device.h (CpuDevice.h says what it holds), registered
// as "cpu" when the library loads.
//
//===----------------------------------------------------------------------===//

#include "CpuDevice.h"
#include "telar/runtime/Runtime.h"

#include <cstring>

using namespace telar::runtime;
using namespace telar::runtime::cpu;

// libomp (declared here rather than through omp.h, which would be GCC's).
extern "C" int omp_get_max_threads(void);

namespace {

/// Every CPU event is complete: the queue ran its work before recording.
class CpuEvent final : public Event {
public:
  bool isComplete() const override { return true; }
  void wait() const override {}
};

/// An artifact's weights on the CPU: the mappings themselves (registered
/// for packing), or private copies when writable.
class CpuWeights final : public DeviceWeights {
public:
  CpuWeights(const std::vector<HostSpan> &weights,
             const std::vector<HostSpan> &mappings, bool writable) {
    this->writable = writable;
    if (writable) {
      // Copies the kernels may update: never registered for packing (a
      // packed copy would go stale after an update).
      for (const HostSpan &w : weights) {
        // 64-byte aligned, as the mappings' tensors are at least; never
        // null, even when empty.
        size_t bytes = (w.bytes + 63) / 64 * 64;
        void *p = std::aligned_alloc(64, bytes ? bytes : 64);
        if (!p)
          throw Error("out of memory copying " + std::to_string(w.bytes) +
                      " bytes of weights");
        if (w.bytes)
          std::memcpy(p, w.data, w.bytes);
        copies.emplace_back(p);
        data.push_back(p);
      }
      return;
    }
    for (const HostSpan &w : weights)
      data.push_back(const_cast<void *>(w.data));
    // Read-only and unchanged while mapped: GEMMs may pack their weights
    // once (the destructor unregisters them).
    for (const HostSpan &m : mappings)
      if (m.data && m.bytes) {
        prepacked.registerRange(m.data, m.bytes);
        ranges.push_back(m);
      }
  }
  ~CpuWeights() override {
    // Frees the packed copies (before the mappings go).
    for (const HostSpan &m : ranges)
      prepacked.unregisterRange(m.data, m.bytes);
  }
  size_t getDerivedBytes() const override { return prepacked.getBytes(); }
  const void *getBinding() const override {
    return writable ? nullptr : prepacked.getCache();
  }

private:
  struct Free {
    void operator()(void *p) const { std::free(p); }
  };
  PrepackedWeights prepacked;
  std::vector<HostSpan> ranges;
  std::vector<std::unique_ptr<void, Free>> copies;
};

/// The "cpu" driver, registered when the library loads. Its programs
/// resolve the kernels (this library) and libomp's __kmpc_* and GOMP_*.
const bool registered = [] {
  registerDeviceDriver(
      "cpu", [] { return std::make_unique<CpuDevice>(); },
      {reinterpret_cast<const void *>(&telarrt_matmul_f32),
       reinterpret_cast<const void *>(&omp_get_max_threads)});
  return true;
}();

} // namespace

std::unique_ptr<Event> CpuQueue::recordEvent() {
  return std::make_unique<CpuEvent>();
}

void CpuDevice::copy(void *dst, MemorySpace dstSpace, const void *src,
                     MemorySpace srcSpace, size_t bytes) {
  // Host memory on both sides, whatever they say: in order, at once.
  (void)dstSpace;
  (void)srcSpace;
  if (bytes)
    std::memmove(dst, src, bytes);
}

std::unique_ptr<DeviceWeights>
CpuDevice::loadWeights(const std::vector<HostSpan> &weights,
                       const std::vector<HostSpan> &mappings, bool writable) {
  return std::make_unique<CpuWeights>(weights, mappings, writable);
}

const void *CpuDevice::setWeightsBinding(const void *binding) {
  detail::ConstantCache *previous = constants;
  constants = static_cast<detail::ConstantCache *>(const_cast<void *>(binding));
  return previous;
}

void CpuDevice::setKernelProfiling(bool enabled) {
  profile = enabled ? std::make_unique<detail::KernelProfile>() : nullptr;
}

std::vector<KernelProfileEntry> CpuDevice::getKernelProfile() const {
  if (!profile)
    return {};
  std::lock_guard<std::mutex> lock(profile->mutex);
  return profile->entries;
}

void Context::setPrepackedWeights(const PrepackedWeights *weights) {
  if (std::strcmp(getDevice().getKind(), "cpu") != 0)
    throw Error(std::string("packed weights are the CPU device's; this "
                            "context's device is '") +
                getDevice().getKind() + "'");
  getDevice().setWeightsBinding(weights ? weights->getCache() : nullptr);
}
