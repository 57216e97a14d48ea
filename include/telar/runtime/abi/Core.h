/*===- abi/Core.h - The core of the programs' C ABI ---------------*- C -*-===*\
|*                                                                            *|
|* What every generated program calls, whatever its device: contexts, their   *|
|* status and first error, memory spaces, the queue an entry point runs on,   *|
|* allocation in the device's memory and its statistics. Exported by the      *|
|* runtime's core library (libtelar_runtime.so); docs/Artifact.md.            *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/

#ifndef TELAR_RUNTIME_ABI_CORE_H
#define TELAR_RUNTIME_ABI_CORE_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/*===----------------------------------------------------------------------===
 * Contexts and status
 *===----------------------------------------------------------------------===*/

/* Everything a program calls goes through a context: its device (memory:
 * byte counts, block cache, memory limit; the queue; for the CPU device the
 * GEMM it uses and the packed weights of the artifact it runs), the mesh
 * of its collectives, and the first error of a run. A context runs one
 * program at a time (its calls may come from any of that run's OpenMP
 * threads); different contexts may run programs concurrently. */
typedef struct TelarContext TelarContext;
/* Status codes: what entry points and fallible runtime calls return. */
enum {
  TELAR_STATUS_OK = 0,
  /* An allocation failed (malloc, or the context's memory limit). */
  TELAR_STATUS_OUT_OF_MEMORY = 1,
  /* A runtime call got operands it cannot handle (e.g. mismatched shapes:
   * a compiler bug, not a user error). */
  TELAR_STATUS_INVALID_ARGUMENT = 2,
  /* A collective failed in its transport (MPI error, a peer gone). */
  TELAR_STATUS_COMM_ERROR = 3,
  /* The device failed (a GPU driver error, a kernel that could not be
   * launched). */
  TELAR_STATUS_DEVICE_ERROR = 4
};

/* The entry point every program exports (docs/Artifact.md):
 *   int telar_entry(TelarContext *ctx, void **buffers);
 * It returns TELAR_STATUS_OK, or the status of the first runtime call that
 * failed, at once (the context holds that call's message). */
typedef int (*TelarEntryFn)(TelarContext *ctx, void **buffers);

/* A new context on a CPU device of its own (GEMM: TELAR_GEMM_KERNEL or the
 * best; no memory limit), or null when out of memory or no CPU driver is
 * found. Destroying it frees its cached blocks and any blocks a failed run
 * left allocated. */
TelarContext *telarrt_context_create(void);
void telarrt_context_destroy(TelarContext *ctx);

/* Where buffers live: the host's memory, or a device's own (a GPU's). A
 * context's device has one (the CPU device's is the host's): the buffers an
 * entry point is given, the blocks telarrt_alloc returns and the buffers
 * of collectives are in it. */
enum { TELAR_MEMORY_HOST = 0, TELAR_MEMORY_DEVICE = 1 };
int telarrt_context_memory_space(const TelarContext *ctx);

/* The queue (stream) of a context's device, which an entry point runs on:
 * the kernels it launches and the collectives it calls are ordered on it.
 * The CPU device's queue runs everything in order on the calling thread;
 * a CUDA program launches its kernels on telarrt_queue_native_handle (a
 * CUstream; null for the CPU). */
typedef struct TelarQueue TelarQueue;
TelarQueue *telarrt_context_queue(TelarContext *ctx);
void *telarrt_queue_native_handle(TelarQueue *queue);

/* The first error since the last clear: its status (TELAR_STATUS_OK when
 * none) and its message ("" when none). Errors are sticky: later failures
 * keep the first message. */
int telarrt_context_status(const TelarContext *ctx);
const char *telarrt_context_error(const TelarContext *ctx);
void telarrt_context_clear_error(TelarContext *ctx);
/* Records `status` (non-zero) with `message` unless an error is already
 * recorded; returns `status`. For runtime calls (and later collectives)
 * that fail. */
int telarrt_context_fail(TelarContext *ctx, int status, const char *message);

/* The most bytes of intermediates allocated at once through this context
 * (SIZE_MAX, the default: no limit); an allocation beyond it fails with
 * TELAR_STATUS_OUT_OF_MEMORY. */
void telarrt_context_set_memory_limit(TelarContext *ctx, size_t bytes);
size_t telarrt_context_memory_limit(const TelarContext *ctx);

/*===----------------------------------------------------------------------===
 * Allocation (every call takes the program's context first)
 *===----------------------------------------------------------------------===*/

/* Tracked allocation of intermediates in the memory of the context's
 * device. Returned pointers are 64-byte
 * aligned (or `alignment`-aligned when larger); size 0 is allowed. On
 * failure: null, with TELAR_STATUS_OUT_OF_MEMORY recorded in the context.
 * A block is freed through the context that allocated it. */
void *telarrt_alloc(TelarContext *ctx, size_t size);
void *telarrt_aligned_alloc(TelarContext *ctx, size_t alignment, size_t size);
void telarrt_free(TelarContext *ctx, void *ptr);
/* Frees every block still allocated through `ctx`: those a failed run left
 * behind (a program returns at its first failure, without its frees).
 * Artifact::run does this after a failed run. Not while a program runs on
 * the context. */
void telarrt_context_free_live_blocks(TelarContext *ctx);

/*===----------------------------------------------------------------------===
 * Statistics
 *===----------------------------------------------------------------------===*/

/* Allocator statistics of a context: bytes currently allocated through it,
 * and the peak since the last reset (the reset sets it to current). */
size_t telarrt_context_current_bytes(const TelarContext *ctx);
size_t telarrt_context_peak_bytes(const TelarContext *ctx);
void telarrt_context_reset_peak_bytes(TelarContext *ctx);

/* Freed blocks of 64 KiB or more are kept by their context (up to 1 GiB)
 * and handed out again for allocations of the same size, so that a
 * program's runs do not map and fault in their intermediates anew each
 * time. These are not counted as current bytes.
 * telarrt_context_release_cached_memory frees them all. */
void telarrt_context_release_cached_memory(TelarContext *ctx);
size_t telarrt_context_cached_bytes(const TelarContext *ctx);

#ifdef __cplusplus
}
#endif

#endif /* TELAR_RUNTIME_ABI_CORE_H */
