//===- HugePages.h - Large buffers on transparent huge pages ----*- C++ -*-===//
//
// Internal to the runtime library. The kernels stream through large
// buffers (packed weights of several MiB, activations, convolution planes);
// on 4 KiB pages every 4 KiB is a TLB entry and a stop for the hardware
// prefetchers. Debian's kernels give anonymous memory transparent huge
// pages only where asked (`madvise` mode), so buffers of kHugePageBytes or
// more are allocated on a 2 MiB boundary and asked for them
// (MADV_HUGEPAGE). TELAR_HUGE_PAGES=0 turns this off.
//
//===----------------------------------------------------------------------===//

#ifndef TELAR_RUNTIME_HUGEPAGES_H
#define TELAR_RUNTIME_HUGEPAGES_H

#include <cstddef>

namespace telar::runtime::detail {

/// The size of a huge page, and the smallest buffer asked to use them.
constexpr size_t kHugePageBytes = size_t(2) << 20;

/// std::aligned_alloc(alignment, bytes) (alignment a power of two, bytes a
/// multiple of it), but on a huge-page boundary with MADV_HUGEPAGE when
/// `bytes` is at least kHugePageBytes (and TELAR_HUGE_PAGES is not 0): its
/// whole huge pages can then be huge. Released with std::free. Null when
/// out of memory.
void *allocateBuffer(size_t alignment, size_t bytes);

/// A kernel's per-thread scratch buffer: grown as needed (uninitialised,
/// whole 4 KiB pages, 64-byte aligned, from allocateBuffer) and kept.
class ScratchBuffer {
public:
  ScratchBuffer() = default;
  ScratchBuffer(const ScratchBuffer &) = delete;
  ScratchBuffer &operator=(const ScratchBuffer &) = delete;
  ~ScratchBuffer();
  /// At least `floats` floats; null when out of memory (the buffer is then
  /// empty).
  float *reserve(size_t floats);

private:
  float *data = nullptr;
  size_t size = 0;
};

} // namespace telar::runtime::detail

#endif // TELAR_RUNTIME_HUGEPAGES_H
