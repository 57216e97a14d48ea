/*===- abi/Collectives.h - Collectives programs call --------------*- C -*-===*\
|*                                                                            *|
|* The collectives of SPMD programs among the devices of the context's mesh   *|
|* (runtime/comm). Buffers are in the memory of the context's device and      *|
|* the collectives are ordered on its queue (telarrt_context_queue) after     *|
|* the work enqueued before them: for the CPU device, host memory and in-     *|
|* order execution on the calling thread (a call returns when its result      *|
|* is in `out`); a GPU device's stream is what NCCL takes. Exported by the    *|
|* runtime's core library; docs/Artifact.md.                                  *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/

#ifndef TELAR_RUNTIME_ABI_COLLECTIVES_H
#define TELAR_RUNTIME_ABI_COLLECTIVES_H

#include "telar/runtime/abi/Core.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Element types of collective buffers. */
enum {
  TELAR_DTYPE_F32 = 0,
  TELAR_DTYPE_F16 = 1,
  TELAR_DTYPE_BF16 = 2,
  TELAR_DTYPE_F64 = 3,
  TELAR_DTYPE_I64 = 4,
  TELAR_DTYPE_I32 = 5,
  TELAR_DTYPE_I8 = 6,
  TELAR_DTYPE_BOOL = 7 /* one byte, 0 or 1 */
};

/* Reductions. */
enum {
  TELAR_REDUCE_SUM = 0,
  TELAR_REDUCE_MAX = 1,
  TELAR_REDUCE_MIN = 2,
  TELAR_REDUCE_PROD = 3
};

/* A collective runs among the devices of the context's mesh whose
 * coordinates differ only on the axes of `axes`, a bit mask (bit i: mesh
 * axis i, the first axis of the manifest's mesh being axis 0). A device's
 * index g in that group of G is row-major over its coordinates on those
 * axes in ascending axis order. Buffers are contiguous, row-major and do
 * not overlap; counts are elements. A context without a mesh (a
 * single-device run) treats every group as one device. The calls return a
 * status, recorded in the context when not OK (TELAR_STATUS_COMM_ERROR for
 * a failed transport).
 *
 * all_reduce:     out[i] = reduce over the group of in[i], i < count.
 * all_gather:     in is [outer][inner]; out is [outer][G][inner] with
 *                 member g's block at [.][g][.].
 * reduce_scatter: in is [outer][G][inner]; out is [outer][inner], the
 *                 reduction over the group of block [.][g][.] for member g.
 * all_to_all:     in is [splitOuter][G][splitInner]; piece p (the
 *                 [splitOuter][splitInner] elements at [.][p][.]) goes to
 *                 member p; out is [concatOuter][G][concatInner] with the
 *                 piece received from member p at [.][p][.]. Both sides
 *                 hold the same number of elements.
 * local_slice:    in is [outer][G][inner]; out is [outer][inner], block
 *                 [.][g][.] of member g. No communication. */
int telarrt_all_reduce(TelarContext *ctx, int64_t dtype, int64_t reduction,
                       int64_t axes, const void *in, void *out, int64_t count);
int telarrt_all_gather(TelarContext *ctx, int64_t dtype, int64_t axes,
                       const void *in, void *out, int64_t outer,
                       int64_t inner);
int telarrt_reduce_scatter(TelarContext *ctx, int64_t dtype,
                           int64_t reduction, int64_t axes, const void *in,
                           void *out, int64_t outer, int64_t inner);
int telarrt_all_to_all(TelarContext *ctx, int64_t dtype, int64_t axes,
                       const void *in, void *out, int64_t splitOuter,
                       int64_t splitInner, int64_t concatOuter,
                       int64_t concatInner);
int telarrt_local_slice(TelarContext *ctx, int64_t dtype, int64_t axes,
                        const void *in, void *out, int64_t outer,
                        int64_t inner);

#ifdef __cplusplus
}
#endif

#endif /* TELAR_RUNTIME_ABI_COLLECTIVES_H */
