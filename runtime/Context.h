//===- Context.h - The state behind a TelarContext --------------*- C++ -*-===//
//
// Internal to the runtime library. A TelarContext (Abi.h) holds all the
// state a running program reaches: its allocator (byte counts, the cache of
// freed blocks, the live blocks, a memory limit), the GEMM its kernels use,
// the packed weights of the artifact it runs, the mesh communicator its
// collectives use, and the first error of a run.
// Nothing of this is process-global.
//
//===----------------------------------------------------------------------===//

#ifndef TELAR_RUNTIME_CONTEXT_H
#define TELAR_RUNTIME_CONTEXT_H

#include "Gemm.h"
#include "telar/runtime/Runtime.h"

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

namespace telar::runtime::comm {
class MeshCommunicator; // include/telar/runtime/Comm.h
} // namespace telar::runtime::comm

namespace telar::runtime::detail {

/// Free lists of freed blocks by (total size, alignment) (Allocator.cpp).
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

class ConstantCache; // PackedConstants.cpp

/// Kernel times by (kernel, shape) (Context::setKernelProfiling).
struct KernelProfile {
  std::mutex mutex;
  std::map<std::pair<std::string, std::string>, size_t> index;
  std::vector<KernelProfileEntry> entries;
};

/// The GEMM a new context uses: TELAR_GEMM_KERNEL (openblas, avx2, avx512;
/// unset or auto: the fastest the CPU runs), read once.
GemmKernel defaultGemmKernel();

} // namespace telar::runtime::detail

struct TelarContext {
  // Allocator (Allocator.cpp).
  std::atomic<size_t> currentBytes{0};
  std::atomic<size_t> peakBytes{0};
  size_t memoryLimit = SIZE_MAX;
  telar::runtime::detail::BlockCache cache;
  std::mutex liveMutex;
  telar::runtime::detail::BlockHeader *live = nullptr;

  // Kernels.
  telar::runtime::detail::GemmKernel gemmKernel =
      telar::runtime::detail::defaultGemmKernel();
  /// The packed weights of the artifact running on this context (null:
  /// none are packed ahead of time).
  telar::runtime::detail::ConstantCache *constants = nullptr;
  /// The mesh the collectives (runtime/comm/Collectives.cpp) run on (not
  /// owned; null: a single device). Set by Context::setMeshCommunicator,
  /// or lent by Artifact::run for a run.
  telar::runtime::comm::MeshCommunicator *mesh = nullptr;
  /// The kernels' times while profiling (null: off).
  std::unique_ptr<telar::runtime::detail::KernelProfile> profile;

  // The first error.
  std::mutex errorMutex;
  std::atomic<int> status{0};
  std::string message;

  ~TelarContext();
};

namespace telar::runtime::detail {
/// Records an error in `ctx` (first one wins), formatted printf-style;
/// returns `status`.
int fail(TelarContext *ctx, int status, const char *format, ...)
    __attribute__((format(printf, 3, 4)));
} // namespace telar::runtime::detail

#endif // TELAR_RUNTIME_CONTEXT_H
