/* A stand-in for a program telarc compiles, with the artifact ABI of
 * docs/Artifact.md, for testing the runtime without the compiler:
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
 * together: peak intermediate memory is 6*4 + 8*4 = 56 bytes. */

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

void *_mlir_memref_to_llvm_alloc(size_t size);
void _mlir_memref_to_llvm_free(void *ptr);
void _mlir_ciface_telarrt_matmul_f32(M2 *a, M2 *b, M2 *c);

void telar_main_entry(void **buffers) {
  const float *x = buffers[0];
  const int64_t *flags = buffers[1];
  const float *w = buffers[2];
  float *m = buffers[3];
  float *sum = buffers[4];
  float *prod = buffers[5];
  uint8_t *positive = buffers[6];
  int64_t *total = buffers[7];

  /* (x + w) transposed: 3x2, row-major. */
  float *t = _mlir_memref_to_llvm_alloc(6 * sizeof(float));
  float *acc = _mlir_memref_to_llvm_alloc(8 * sizeof(float));
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 3; ++j) {
      sum[i * 3 + j] = x[i * 3 + j] + w[i * 3 + j];
      t[j * 2 + i] = sum[i * 3 + j];
      positive[i * 3 + j] = x[i * 3 + j] > 0;
    }
  memset(acc, 0, 8 * sizeof(float));
  M2 a = {t, t, 0, {2, 3}, {1, 2}}; /* a view of t transposed */
  M2 b = {m, m, 0, {3, 4}, {4, 1}};
  M2 c = {acc, acc, 0, {2, 4}, {4, 1}};
  _mlir_ciface_telarrt_matmul_f32(&a, &b, &c);
  memcpy(prod, acc, 8 * sizeof(float));
  _mlir_memref_to_llvm_free(acc);
  _mlir_memref_to_llvm_free(t);

  *total = flags[0] + flags[1] + flags[2];
}
