//===- HugePages.cpp - Large buffers on transparent huge pages ------------===//

#include "HugePages.h"

#include <cstdlib>
#include <cstring>

#include <sys/mman.h>

using namespace telar::runtime::detail;

namespace {
/// TELAR_HUGE_PAGES: unset or anything but "0" asks for huge pages.
const bool hugePagesWanted = [] {
  const char *env = std::getenv("TELAR_HUGE_PAGES");
  return !(env && std::strcmp(env, "0") == 0);
}();

constexpr size_t kSmallPageBytes = 4096;
} // namespace

void *telar::runtime::detail::allocateBuffer(size_t alignment, size_t bytes) {
  if (!hugePagesWanted || bytes < kHugePageBytes ||
      alignment > kHugePageBytes)
    return std::aligned_alloc(alignment, bytes);
  // Not rounded up to whole huge pages: the last part of one stays on small
  // pages rather than wasting up to 2 MiB.
  void *p = nullptr;
  if (posix_memalign(&p, kHugePageBytes, bytes) != 0)
    return nullptr;
  // Advice only (a kernel without THP leaves the buffer as it is); the
  // range covers the buffer's last small page, which is the allocation's.
  madvise(p, (bytes + kSmallPageBytes - 1) / kSmallPageBytes * kSmallPageBytes,
          MADV_HUGEPAGE);
  return p;
}

ScratchBuffer::~ScratchBuffer() { std::free(data); }

float *ScratchBuffer::reserve(size_t floats) {
  if (floats <= size)
    return data;
  std::free(data);
  size = 0;
  size_t bytes = (floats * sizeof(float) + kSmallPageBytes - 1) /
                 kSmallPageBytes * kSmallPageBytes;
  data = static_cast<float *>(allocateBuffer(64, bytes));
  if (data)
    size = bytes / sizeof(float);
  return data;
}
