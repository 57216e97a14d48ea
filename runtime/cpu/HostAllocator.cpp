//===- HostAllocator.cpp - The CPU device's tracked host memory -----------===//
//
// Generated programs allocate every intermediate buffer through
// telarrt_alloc / telarrt_aligned_alloc and release it through telarrt_free,
// each with the program's context, whose device's allocator this is for
// the CPU device. Each block carries a header just before
// the returned pointer (the malloc'd base, the requested size, the size and
// alignment of the underlying allocation, its neighbours in the context's
// list of live blocks), so free needs no lookup and the byte counts are
// exact; the live list lets the runtime free what a failed run (which
// returns early, skipping its frees) left allocated.
//
// A program allocates the same intermediates on every run, and large blocks
// come from mmap: freeing them unmaps them, so every run would fault their
// pages in again (and the kernel zero them). Freed blocks of 64 KiB or more
// are kept instead, per context (its device), in free lists by allocation size
// (rounded up to whole pages) and alignment, and handed out again for the same
// size; at most 1 GiB in all (beyond that they are freed), until
// telarrt_context_release_cached_memory or the context's end. The current
// and peak byte counts are of live blocks only. Blocks of 2 MiB or more ask
// for transparent huge pages (HugePages.h).
//
//===----------------------------------------------------------------------===//

#include "CpuDevice.h"
#include "HugePages.h"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <new>

using namespace telar::runtime::detail;

namespace {

/// Every block is at least this aligned (a cache line, and what AVX-512
/// loads like).
constexpr size_t kMinAlignment = 64;
static_assert(sizeof(BlockHeader) <= kMinAlignment,
              "header must fit the padding");

/// Freed blocks at least this large are cached for reuse.
constexpr size_t kMinCachedBytes = size_t(64) << 10;
/// The most bytes a context's cache holds.
constexpr size_t kMaxCachedBytes = size_t(1) << 30;
/// Cached sizes are rounded up to this.
constexpr size_t kPage = 4096;

BlockHeader *headerOf(void *ptr) {
  return reinterpret_cast<BlockHeader *>(static_cast<char *>(ptr) -
                                         sizeof(BlockHeader));
}

} // namespace

void *HostAllocator::allocate(size_t alignment, size_t size,
                              std::string &error) {
  auto outOfMemory = [&](const char *why) -> void * {
    char text[256];
    std::snprintf(text, sizeof(text),
                  "out of memory: cannot allocate %zu bytes of intermediates "
                  "(%s; %zu bytes allocated)",
                  size, why, currentBytes.load(std::memory_order_relaxed));
    error = text;
    return nullptr;
  };
  if (alignment < kMinAlignment)
    alignment = kMinAlignment;
  // aligned_alloc wants a power of two; round odd requests up.
  if (alignment & (alignment - 1)) {
    size_t a = kMinAlignment;
    while (a < alignment && a <= SIZE_MAX / 2)
      a <<= 1;
    alignment = a;
  }
  // The header lives in the first `alignment` bytes, the block after it;
  // aligned_alloc also wants a multiple of the alignment.
  size_t total;
  if (alignment > SIZE_MAX / 4 ||
      __builtin_add_overflow(size, 2 * alignment - 1, &total) ||
      total > SIZE_MAX - kPage)
    return outOfMemory("the size overflows");

  // Counted first, so that concurrent allocations cannot pass the limit.
  size_t now = currentBytes.fetch_add(size, std::memory_order_relaxed) + size;
  if (now < size || now > memoryLimit) {
    currentBytes.fetch_sub(size, std::memory_order_relaxed);
    char why[96];
    std::snprintf(why, sizeof(why), "the context's memory limit is %zu bytes",
                  memoryLimit);
    return outOfMemory(why);
  }

  total = total / alignment * alignment;
  char *base = nullptr;
  if (total >= kMinCachedBytes) {
    // Whole pages (a multiple of any alignment below a page, and of larger
    // ones already), so that nearby sizes share a free list.
    total = (total + kPage - 1) / kPage * kPage;
    base = static_cast<char *>(cache.take(total, alignment));
  }
  if (!base)
    base = static_cast<char *>(allocateBuffer(alignment, total));
  if (!base) {
    currentBytes.fetch_sub(size, std::memory_order_relaxed);
    return outOfMemory("malloc failed");
  }
  char *block = base + alignment;
  auto *header = reinterpret_cast<BlockHeader *>(block - sizeof(BlockHeader));
  *header = BlockHeader{base, size, total, alignment, nullptr, nullptr};
  {
    std::lock_guard<std::mutex> lock(liveMutex);
    header->next = live;
    if (live)
      live->prev = header;
    live = header;
  }

  size_t peak = peakBytes.load(std::memory_order_relaxed);
  while (now > peak &&
         !peakBytes.compare_exchange_weak(peak, now, std::memory_order_relaxed))
    ;
  return block;
}

void HostAllocator::release(BlockHeader *header) {
  currentBytes.fetch_sub(header->size, std::memory_order_relaxed);
  if (header->total < kMinCachedBytes ||
      !cache.put(header->base, header->total, header->alignment))
    std::free(header->base);
}

void HostAllocator::deallocate(void *ptr) {
  if (!ptr)
    return;
  BlockHeader *header = headerOf(ptr);
  {
    std::lock_guard<std::mutex> lock(liveMutex);
    if (header->prev)
      header->prev->next = header->next;
    else
      live = header->next;
    if (header->next)
      header->next->prev = header->prev;
  }
  release(header);
}

void HostAllocator::freeLiveBlocks() {
  BlockHeader *blocks;
  {
    std::lock_guard<std::mutex> lock(liveMutex);
    blocks = live;
    live = nullptr;
  }
  while (blocks) {
    BlockHeader *next = blocks->next;
    release(blocks);
    blocks = next;
  }
}

HostAllocator::~HostAllocator() {
  freeLiveBlocks();
  cache.release();
}

//===----------------------------------------------------------------------===//
// BlockCache
//===----------------------------------------------------------------------===//

void *BlockCache::take(size_t total, size_t alignment) {
  std::lock_guard<std::mutex> lock(mutex);
  auto it = lists.find({total, alignment});
  if (it == lists.end() || it->second.empty())
    return nullptr;
  void *base = it->second.back();
  it->second.pop_back();
  cached -= total;
  return base;
}

bool BlockCache::put(void *base, size_t total, size_t alignment) {
  std::lock_guard<std::mutex> lock(mutex);
  if (cached + total > kMaxCachedBytes)
    return false;
  lists[{total, alignment}].push_back(base);
  cached += total;
  return true;
}

void BlockCache::release() {
  std::lock_guard<std::mutex> lock(mutex);
  for (auto &[k, blocks] : lists)
    for (void *base : blocks)
      std::free(base);
  lists.clear();
  cached = 0;
}

size_t BlockCache::cachedBytes() const {
  std::lock_guard<std::mutex> lock(mutex);
  return cached;
}
