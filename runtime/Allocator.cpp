//===- Allocator.cpp - Tracked allocation of program intermediates
//---------===//
//
// Generated programs allocate every intermediate buffer through
// _mlir_memref_to_llvm_alloc / _aligned_alloc and release it through
// _mlir_memref_to_llvm_free. Each block carries a small header just before
// the returned pointer (the malloc'd base and the requested size), so free
// needs no lookup and the byte counts are exact.
//
//===----------------------------------------------------------------------===//

#include "telar/runtime/Abi.h"

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace {

std::atomic<size_t> currentBytes{0};
std::atomic<size_t> peakBytes{0};

/// Stored immediately before each returned pointer.
struct Header {
  void *base;
  size_t size;
};

/// Every block is at least this aligned (a cache line, and what AVX-512
/// loads like).
constexpr size_t kMinAlignment = 64;
static_assert(sizeof(Header) <= kMinAlignment, "header must fit the padding");

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
  if (__builtin_add_overflow(size, 2 * alignment - 1, &total))
    outOfMemory(size);
  total = total / alignment * alignment;
  char *base = static_cast<char *>(std::aligned_alloc(alignment, total));
  if (!base)
    outOfMemory(size);
  char *block = base + alignment;
  Header header{base, size};
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
  std::free(header.base);
}

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
