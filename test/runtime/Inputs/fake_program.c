/* A stand-in for a program telarc compiles, with the artifact ABI of
 * docs/Artifact.md (context and status), for testing the runtime without
 * the compiler:
 *
 *   inputs:  x float32[2,3], flags int64[3]
 *   weights: w float32[2,3], m float32[3,4]
 *   outputs: sum        float32[2,3] = x + w
 *            out/prod:0 float32[2,4] = (x + w) . m
 *            positive   bool[2,3]    = x > 0
 *            total      int64[]      = sum(flags)
 *
 * The product goes through the runtime's matmul with a transposed view of
 * (x + w) and both temporaries come from the tracked allocator, alive
 * together: peak intermediate memory is 6*4 + 8*4 = 56 bytes. As generated
 * code does, every fallible call is checked and the program returns its
 * status at once (without freeing: the runtime frees what is left).
 *
 * A second entry point, telar_entry_bad_matmul, passes the matmul kernel
 * mismatched shapes (for the kernel's status path). */

#include <stddef.h>
#include <stdint.h>
#include <string.h>

typedef struct {
  float *allocated;
  float *aligned;
  int64_t offset;
  int64_t sizes[2];
  int64_t strides[2];
} M2;

typedef struct TelarContext TelarContext;
void *telarrt_alloc(TelarContext *ctx, size_t size);
void telarrt_free(TelarContext *ctx, void *ptr);
int telarrt_matmul_f32(TelarContext *ctx, M2 *a, M2 *b, M2 *c, int64_t flags);

/* TELAR_STATUS_OUT_OF_MEMORY */
enum { kOutOfMemory = 1 };

static int run(TelarContext *ctx, void **buffers, int64_t k) {
  const float *x = buffers[0];
  const int64_t *flags = buffers[1];
  const float *w = buffers[2];
  float *m = buffers[3];
  float *sum = buffers[4];
  float *prod = buffers[5];
  uint8_t *positive = buffers[6];
  int64_t *total = buffers[7];

  /* (x + w) transposed: 3x2, row-major. */
  float *t = telarrt_alloc(ctx, 6 * sizeof(float));
  if (!t)
    return kOutOfMemory;
  float *acc = telarrt_alloc(ctx, 8 * sizeof(float));
  if (!acc)
    return kOutOfMemory;
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 3; ++j) {
      sum[i * 3 + j] = x[i * 3 + j] + w[i * 3 + j];
      t[j * 2 + i] = sum[i * 3 + j];
      positive[i * 3 + j] = x[i * 3 + j] > 0;
    }
  memset(acc, 0, 8 * sizeof(float));
  M2 a = {t, t, 0, {2, k}, {1, 2}}; /* a view of t transposed */
  M2 b = {m, m, 0, {3, 4}, {4, 1}};
  M2 c = {acc, acc, 0, {2, 4}, {4, 1}};
  int status = telarrt_matmul_f32(ctx, &a, &b, &c, 1 /* accumulate */);
  if (status)
    return status;
  memcpy(prod, acc, 8 * sizeof(float));
  telarrt_free(ctx, acc);
  telarrt_free(ctx, t);

  *total = flags[0] + flags[1] + flags[2];
  return 0;
}

int telar_entry(TelarContext *ctx, void **buffers) {
  return run(ctx, buffers, 3);
}

int telar_entry_bad_matmul(TelarContext *ctx, void **buffers) {
  return run(ctx, buffers, 2);
}
