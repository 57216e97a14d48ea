/* A stand-in for an SPMD program telarc compiles for a 2x2 mesh (data=2,
 * model=2; rank = 2 * data + model), calling the collective ABI of
 * docs/Artifact.md the way generated code does (every status checked):
 *
 *   inputs:  x     float32[8,4] split [["data"], []]   local [4,4]
 *   weights: w     float32[4,8] split [[], ["model"]]  local [4,4] (per rank)
 *            b     float32[4]   replicated
 *   outputs: y         float32[8,8] [["data"], ["model"]]  = x . w
 *            rows      float32[8,8] [["data"], []]         = x . w
 *                      (y's blocks all-gathered over model, dim 1)
 *            total     float32[4]   replicated = column sums of x, + b
 *                      (all-reduce sum over data)
 *            xmax      float32[]    replicated = max of x
 *                      (all-reduce max over data and model)
 *            scattered float32[8,4] [["data"], ["model"]] = 3 x
 *                      (reduce-scatter over model of (m + 1) x, m the
 *                      model coordinate, which local_slice finds)
 *            yt        float32[8,8] [["data", "model"], []] = x . w
 *                      (y all-to-all over model: rows split, columns
 *                      joined)
 *
 * A second entry point, telar_entry_bad_axes, calls an all-reduce on an
 * axis the mesh does not have (for the collectives' status path).
 */

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "telar/runtime/Abi.h"

enum {
  kF32 = TELAR_DTYPE_F32,
  kI64 = TELAR_DTYPE_I64,
  kSum = TELAR_REDUCE_SUM,
  kMax = TELAR_REDUCE_MAX
};
enum { kData = 1, kModel = 2 }; /* axis bit masks */

#define CHECK(call)                                                            \
  do {                                                                         \
    int status_ = (call);                                                      \
    if (status_)                                                               \
      return status_;                                                          \
  } while (0)

int telar_entry(TelarContext *ctx, void **buffers) {
  const float *x = buffers[0]; /* [4][4] */
  const float *b = buffers[1]; /* [4] (weights.safetensors comes first) */
  const float *w = buffers[2]; /* [4][4] */
  float *y = buffers[3];       /* [4][4] */
  float *rows = buffers[4];    /* [4][8] */
  float *total = buffers[5];   /* [4] */
  float *xmax = buffers[6];    /* [] */
  float *scattered = buffers[7]; /* [4][2] */
  float *yt = buffers[8];        /* [2][8] */

  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 4; ++j) {
      float acc = 0;
      for (int k = 0; k < 4; ++k)
        acc += x[i * 4 + k] * w[k * 4 + j];
      y[i * 4 + j] = acc;
    }
  /* [4][G=2][4]: this rank's columns at [.][m][.]. */
  CHECK(telarrt_all_gather(ctx, kF32, kModel, y, rows, 4, 4));

  float sums[4] = {0, 0, 0, 0};
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 4; ++j)
      sums[j] += x[i * 4 + j];
  CHECK(telarrt_all_reduce(ctx, kF32, kSum, kData, sums, total, 4));
  for (int j = 0; j < 4; ++j)
    total[j] += b[j];

  float local = x[0];
  for (int i = 1; i < 16; ++i)
    local = x[i] > local ? x[i] : local;
  CHECK(telarrt_all_reduce(ctx, kF32, kMax, kData | kModel, &local, xmax, 1));

  /* The model coordinate: element m of [0, 1]. */
  int64_t iota[2] = {0, 1}, m = -1;
  CHECK(telarrt_local_slice(ctx, kI64, kModel, iota, &m, 1, 1));
  float contribution[16];
  for (int i = 0; i < 16; ++i)
    contribution[i] = (float)(m + 1) * x[i];
  /* [4][G=2][2] -> [4][2]. */
  CHECK(telarrt_reduce_scatter(ctx, kF32, kSum, kModel, contribution,
                               scattered, 4, 2));

  /* Rows of y in 2 pieces of [2][4] ([1][G][8]); received as [2][G][4]. */
  CHECK(telarrt_all_to_all(ctx, kF32, kModel, y, yt, 1, 8, 2, 4));
  return 0;
}

int telar_entry_bad_axes(TelarContext *ctx, void **buffers) {
  float one = 1, out = 0;
  (void)buffers;
  CHECK(telarrt_all_reduce(ctx, kF32, kSum, 4, &one, &out, 1));
  return 0;
}
