//===- Allocator.cpp - Tracked allocation of program intermediates -------===//
//
// Generated programs allocate every intermediate buffer through
// _mlir_memref_to_llvm_alloc / _aligned_alloc and release it through
// _mlir_memref_to_llvm_free. Each block carries a small header just before
// the returned pointer (the malloc'd base, the requested size, the size and
// alignment of the underlying allocation), so free needs no lookup and the
// byte counts are exact.
//
// A program allocates the same intermediates on every run, and large blocks
// come from mmap: freeing them unmaps them, so every run would fault their
// pages in again (and the kernel zero them). Freed blocks of 64 KiB or more
// are kept instead, in free lists by allocation size (rounded up to whole
// pages) and alignment, and handed out again for the same size; at most
// 1 GiB in all (beyond that they are freed), until
// telarrt_release_cached_memory. The current and peak byte counts are of
// live blocks only.
//
//===----------------------------------------------------------------------===//

#include "telar/runtime/Abi.h"

#include <atomic>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <utility>
#include <vector>

namespace {

std::atomic<size_t> currentBytes{0};
std::atomic<size_t> peakBytes{0};

/// Stored immediately before each returned pointer.
struct Header {
  void *base;
  size_t size;      // requested
  size_t total;     // allocated (from base)
  size_t alignment; // of the allocation
};

/// Every block is at least this aligned (a cache line, and what AVX-512
/// loads like).
constexpr size_t kMinAlignment = 64;
static_assert(sizeof(Header) <= kMinAlignment, "header must fit the padding");

/// Freed blocks at least this large are cached for reuse.
constexpr size_t kMinCachedBytes = size_t(64) << 10;
/// The most bytes the cache holds.
constexpr size_t kMaxCachedBytes = size_t(1) << 30;
/// Cached sizes are rounded up to this.
constexpr size_t kPage = 4096;

/// Free lists of blocks by (total size, alignment).
class BlockCache {
public:
  /// A cached block of exactly `total` bytes aligned to `alignment`, or
  /// null.
  void *take(size_t total, size_t alignment) {
    std::lock_guard<std::mutex> lock(mutex);
    auto it = lists.find(key(total, alignment));
    if (it == lists.end() || it->second.empty())
      return nullptr;
    void *base = it->second.back();
    it->second.pop_back();
    cached -= total;
    return base;
  }

  /// Keeps a freed block; false when the cache is full (the caller frees
  /// it).
  bool put(void *base, size_t total, size_t alignment) {
    std::lock_guard<std::mutex> lock(mutex);
    if (cached + total > kMaxCachedBytes)
      return false;
    lists[key(total, alignment)].push_back(base);
    cached += total;
    return true;
  }

  void release() {
    std::lock_guard<std::mutex> lock(mutex);
    for (auto &[k, blocks] : lists)
      for (void *base : blocks)
        std::free(base);
    lists.clear();
    cached = 0;
  }

  size_t cachedBytes() {
    std::lock_guard<std::mutex> lock(mutex);
    return cached;
  }

private:
  static std::pair<size_t, size_t> key(size_t total, size_t alignment) {
    return {total, alignment};
  }

  std::mutex mutex;
  std::map<std::pair<size_t, size_t>, std::vector<void *>> lists;
  size_t cached = 0;
};

/// Never destroyed: programs may free blocks during static destruction.
BlockCache &blockCache() {
  static BlockCache *cache = new BlockCache;
  return *cache;
}

[[noreturn]] void outOfMemory(size_t size) {
  std::fprintf(stderr,
               "telar runtime: out of memory allocating %zu bytes (%zu bytes "
               "of intermediates already allocated)\n",
               size, currentBytes.load());
  std::abort();
}

void *allocate(size_t alignment, size_t size) {
  if (alignment < kMinAlignment)
    alignment = kMinAlignment;
  // aligned_alloc wants a power of two; round odd requests up.
  if (alignment & (alignment - 1)) {
    size_t a = kMinAlignment;
    while (a < alignment)
      a <<= 1;
    alignment = a;
  }
  // The header lives in the first `alignment` bytes, the block after it;
  // aligned_alloc also wants a multiple of the alignment.
  size_t total;
  if (__builtin_add_overflow(size, 2 * alignment - 1, &total) ||
      total > SIZE_MAX - kPage)
    outOfMemory(size);
  total = total / alignment * alignment;
  char *base = nullptr;
  if (total >= kMinCachedBytes) {
    // Whole pages (a multiple of any alignment below a page, and of larger
    // ones already), so that nearby sizes share a free list.
    total = (total + kPage - 1) / kPage * kPage;
    base = static_cast<char *>(blockCache().take(total, alignment));
  }
  if (!base)
    base = static_cast<char *>(std::aligned_alloc(alignment, total));
  if (!base)
    outOfMemory(size);
  char *block = base + alignment;
  Header header{base, size, total, alignment};
  std::memcpy(block - sizeof(Header), &header, sizeof(Header));

  size_t now = currentBytes.fetch_add(size, std::memory_order_relaxed) + size;
  size_t peak = peakBytes.load(std::memory_order_relaxed);
  while (now > peak &&
         !peakBytes.compare_exchange_weak(peak, now, std::memory_order_relaxed))
    ;
  return block;
}

} // namespace

extern "C" {

void *_mlir_memref_to_llvm_alloc(size_t size) {
  return allocate(kMinAlignment, size);
}

void *_mlir_memref_to_llvm_aligned_alloc(size_t alignment, size_t size) {
  return allocate(alignment, size);
}

void _mlir_memref_to_llvm_free(void *ptr) {
  if (!ptr)
    return;
  Header header;
  std::memcpy(&header, static_cast<char *>(ptr) - sizeof(Header),
              sizeof(Header));
  currentBytes.fetch_sub(header.size, std::memory_order_relaxed);
  if (header.total < kMinCachedBytes ||
      !blockCache().put(header.base, header.total, header.alignment))
    std::free(header.base);
}

void telarrt_release_cached_memory(void) { blockCache().release(); }

size_t telarrt_cached_bytes(void) { return blockCache().cachedBytes(); }

size_t telarrt_current_bytes(void) {
  return currentBytes.load(std::memory_order_relaxed);
}

size_t telarrt_peak_bytes(void) {
  return peakBytes.load(std::memory_order_relaxed);
}

void telarrt_reset_peak_bytes(void) {
  peakBytes.store(currentBytes.load(std::memory_order_relaxed),
                  std::memory_order_relaxed);
}

} // extern "C"
