//===- Allocator.cpp - Contexts and their tracked allocation --------------===//
//
// Generated programs allocate every intermediate buffer through
// telarrt_alloc / telarrt_aligned_alloc and release it through telarrt_free,
// each with the program's context. Each block carries a header just before
// the returned pointer (the malloc'd base, the requested size, the size and
// alignment of the underlying allocation, its neighbours in the context's
// list of live blocks), so free needs no lookup and the byte counts are
// exact; the live list lets the runtime free what a failed run (which
// returns early, skipping its frees) left allocated.
//
// A program allocates the same intermediates on every run, and large blocks
// come from mmap: freeing them unmaps them, so every run would fault their
// pages in again (and the kernel zero them). Freed blocks of 64 KiB or more
// are kept instead, per context, in free lists by allocation size (rounded
// up to whole pages) and alignment, and handed out again for the same size;
// at most 1 GiB in all (beyond that they are freed), until
// telarrt_context_release_cached_memory or the context's end. The current
// and peak byte counts are of live blocks only. Blocks of 2 MiB or more ask
// for transparent huge pages (HugePages.h).
//
//===----------------------------------------------------------------------===//

#include "Context.h"
#include "HugePages.h"
#include "telar/runtime/Abi.h"

#include <cstdarg>
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

void *outOfMemory(TelarContext *ctx, size_t size, const char *why) {
  fail(ctx, TELAR_STATUS_OUT_OF_MEMORY,
       "out of memory: cannot allocate %zu bytes of intermediates (%s; %zu "
       "bytes allocated)",
       size, why, ctx->currentBytes.load(std::memory_order_relaxed));
  return nullptr;
}

void *allocate(TelarContext *ctx, size_t alignment, size_t size) {
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
    return outOfMemory(ctx, size, "the size overflows");

  // Counted first, so that concurrent allocations cannot pass the limit.
  size_t now =
      ctx->currentBytes.fetch_add(size, std::memory_order_relaxed) + size;
  if (now < size || now > ctx->memoryLimit) {
    ctx->currentBytes.fetch_sub(size, std::memory_order_relaxed);
    char why[96];
    std::snprintf(why, sizeof(why), "the context's memory limit is %zu bytes",
                  ctx->memoryLimit);
    return outOfMemory(ctx, size, why);
  }

  total = total / alignment * alignment;
  char *base = nullptr;
  if (total >= kMinCachedBytes) {
    // Whole pages (a multiple of any alignment below a page, and of larger
    // ones already), so that nearby sizes share a free list.
    total = (total + kPage - 1) / kPage * kPage;
    base = static_cast<char *>(ctx->cache.take(total, alignment));
  }
  if (!base)
    base = static_cast<char *>(allocateBuffer(alignment, total));
  if (!base) {
    ctx->currentBytes.fetch_sub(size, std::memory_order_relaxed);
    return outOfMemory(ctx, size, "malloc failed");
  }
  char *block = base + alignment;
  auto *header = reinterpret_cast<BlockHeader *>(block - sizeof(BlockHeader));
  *header = BlockHeader{base, size, total, alignment, nullptr, nullptr};
  {
    std::lock_guard<std::mutex> lock(ctx->liveMutex);
    header->next = ctx->live;
    if (ctx->live)
      ctx->live->prev = header;
    ctx->live = header;
  }

  size_t peak = ctx->peakBytes.load(std::memory_order_relaxed);
  while (now > peak && !ctx->peakBytes.compare_exchange_weak(
                           peak, now, std::memory_order_relaxed))
    ;
  return block;
}

void release(TelarContext *ctx, BlockHeader *header) {
  ctx->currentBytes.fetch_sub(header->size, std::memory_order_relaxed);
  if (header->total < kMinCachedBytes ||
      !ctx->cache.put(header->base, header->total, header->alignment))
    std::free(header->base);
}

} // namespace

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

//===----------------------------------------------------------------------===//
// Errors
//===----------------------------------------------------------------------===//

int telar::runtime::detail::fail(TelarContext *ctx, int status,
                                 const char *format, ...) {
  char text[512];
  va_list args;
  va_start(args, format);
  std::vsnprintf(text, sizeof(text), format, args);
  va_end(args);
  return telarrt_context_fail(ctx, status, text);
}

TelarContext::~TelarContext() {
  telarrt_context_free_live_blocks(this);
  cache.release();
}

extern "C" {

TelarContext *telarrt_context_create(void) {
  return new (std::nothrow) TelarContext();
}

void telarrt_context_destroy(TelarContext *ctx) { delete ctx; }

int telarrt_context_status(const TelarContext *ctx) {
  return ctx->status.load(std::memory_order_acquire);
}

const char *telarrt_context_error(const TelarContext *ctx) {
  // Written once, before status is published; cleared only between runs.
  return ctx->status.load(std::memory_order_acquire) ? ctx->message.c_str()
                                                     : "";
}

void telarrt_context_clear_error(TelarContext *ctx) {
  std::lock_guard<std::mutex> lock(ctx->errorMutex);
  ctx->status.store(TELAR_STATUS_OK, std::memory_order_release);
  ctx->message.clear();
}

int telarrt_context_fail(TelarContext *ctx, int status, const char *message) {
  if (status == TELAR_STATUS_OK)
    return status;
  std::lock_guard<std::mutex> lock(ctx->errorMutex);
  if (ctx->status.load(std::memory_order_relaxed) == TELAR_STATUS_OK) {
    try {
      ctx->message = message ? message : "";
    } catch (...) {
      // Out of memory for the message: the status still tells.
    }
    ctx->status.store(status, std::memory_order_release);
  }
  return status;
}

void telarrt_context_set_memory_limit(TelarContext *ctx, size_t bytes) {
  ctx->memoryLimit = bytes;
}

size_t telarrt_context_memory_limit(const TelarContext *ctx) {
  return ctx->memoryLimit;
}

void *telarrt_alloc(TelarContext *ctx, size_t size) {
  return allocate(ctx, kMinAlignment, size);
}

void *telarrt_aligned_alloc(TelarContext *ctx, size_t alignment, size_t size) {
  return allocate(ctx, alignment, size);
}

void telarrt_free(TelarContext *ctx, void *ptr) {
  if (!ptr)
    return;
  BlockHeader *header = headerOf(ptr);
  {
    std::lock_guard<std::mutex> lock(ctx->liveMutex);
    if (header->prev)
      header->prev->next = header->next;
    else
      ctx->live = header->next;
    if (header->next)
      header->next->prev = header->prev;
  }
  release(ctx, header);
}

void telarrt_context_free_live_blocks(TelarContext *ctx) {
  BlockHeader *live;
  {
    std::lock_guard<std::mutex> lock(ctx->liveMutex);
    live = ctx->live;
    ctx->live = nullptr;
  }
  while (live) {
    BlockHeader *next = live->next;
    release(ctx, live);
    live = next;
  }
}

void telarrt_context_release_cached_memory(TelarContext *ctx) {
  ctx->cache.release();
}

size_t telarrt_context_cached_bytes(const TelarContext *ctx) {
  return ctx->cache.cachedBytes();
}

size_t telarrt_context_current_bytes(const TelarContext *ctx) {
  return ctx->currentBytes.load(std::memory_order_relaxed);
}

size_t telarrt_context_peak_bytes(const TelarContext *ctx) {
  return ctx->peakBytes.load(std::memory_order_relaxed);
}

void telarrt_context_reset_peak_bytes(TelarContext *ctx) {
  ctx->peakBytes.store(ctx->currentBytes.load(std::memory_order_relaxed),
                       std::memory_order_relaxed);
}

} // extern "C"
