/*===- Abi.h - The C ABI that generated programs call -------------*- C -*-===*\
|*                                                                            *|
|* Exported by libtelar_runtime.so with default visibility; programs leave    *|
|* these symbols undefined and resolve them at dlopen time (docs/Artifact.md) *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/

#ifndef TELAR_RUNTIME_ABI_H
#define TELAR_RUNTIME_ABI_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* MLIR's strided memref descriptors of f32, ranks 2 to 4: element
 * (i, j) of a rank-2 one is aligned[offset + i*strides[0] + j*strides[1]]. */
typedef struct TelarMemRef2F32 {
  float *allocated;
  float *aligned;
  int64_t offset;
  int64_t sizes[2];
  int64_t strides[2];
} TelarMemRef2F32;

typedef struct TelarMemRef3F32 {
  float *allocated;
  float *aligned;
  int64_t offset;
  int64_t sizes[3];
  int64_t strides[3];
} TelarMemRef3F32;

typedef struct TelarMemRef4F32 {
  float *allocated;
  float *aligned;
  int64_t offset;
  int64_t sizes[4];
  int64_t strides[4];
} TelarMemRef4F32;

/* Tracked allocation of intermediates. Returned pointers are 64-byte
 * aligned (or `alignment`-aligned when larger) and never null for a
 * successful call; size 0 is allowed. Out of memory aborts with a message. */
void *_mlir_memref_to_llvm_alloc(size_t size);
void *_mlir_memref_to_llvm_aligned_alloc(size_t alignment, size_t size);
void _mlir_memref_to_llvm_free(void *ptr);

/* c += a . b */
void _mlir_ciface_telarrt_matmul_f32(TelarMemRef2F32 *a, TelarMemRef2F32 *b,
                                     TelarMemRef2F32 *c);
/* c[i] += a[i] . b[i] */
void _mlir_ciface_telarrt_batch_matmul_f32(TelarMemRef3F32 *a,
                                           TelarMemRef3F32 *b,
                                           TelarMemRef3F32 *c);
/* out[n, f, y, x] += sum_{c, ky, kx} in[n, c, y*sh + ky*dh, x*sw + kx*dw]
 *                                   * filter[f, c, ky, kx]
 * (the input is already padded). */
void _mlir_ciface_telarrt_conv2d_nchw_f32(TelarMemRef4F32 *in,
                                          TelarMemRef4F32 *filter,
                                          TelarMemRef4F32 *out, int64_t sh,
                                          int64_t sw, int64_t dh, int64_t dw);

/* Threads for OpenMP parallel loops (libomp), which the kernels above use
 * too (their GEMMs run single-threaded on them). */
void telarrt_set_num_threads(int threads);
int telarrt_get_num_threads(void);

/* The GEMM behind the kernels: the runtime's own for AVX-512 or AVX2+FMA,
 * or OpenBLAS. The default is TELARRT_GEMM_AUTO, the fastest this CPU runs,
 * unless the environment variable TELAR_GEMM_KERNEL (auto, openblas, avx2,
 * avx512) says otherwise. telarrt_set_gemm_kernel returns the kernel now in
 * use (AUTO resolved), or -1 without changing it when the CPU cannot run
 * the one asked for. Not to be called while kernels run. */
enum {
  TELARRT_GEMM_AUTO = 0,
  TELARRT_GEMM_OPENBLAS = 1,
  TELARRT_GEMM_AVX2 = 2,
  TELARRT_GEMM_AVX512 = 3
};
int telarrt_set_gemm_kernel(int kernel);
int telarrt_get_gemm_kernel(void);

/* Allocator statistics: bytes currently allocated through the functions
 * above, and the peak since the last reset (the reset sets it to current). */
size_t telarrt_current_bytes(void);
size_t telarrt_peak_bytes(void);
void telarrt_reset_peak_bytes(void);

/* Freed blocks of 64 KiB or more are kept (up to 1 GiB in all) and handed
 * out again for allocations of the same size, so that a program's runs do
 * not map and fault in their intermediates anew each time. These are not
 * counted as current bytes. telarrt_release_cached_memory frees them all;
 * telarrt_cached_bytes says how many bytes are kept. */
void telarrt_release_cached_memory(void);
size_t telarrt_cached_bytes(void);

/* Bytes of the packed copies of constant GEMM operands (weights) the
 * runtime keeps (runtime/README.md): packed once, on first use, freed when
 * their artifact is destroyed. */
size_t telarrt_prepacked_bytes(void);

#ifdef __cplusplus
}
#endif

#endif /* TELAR_RUNTIME_ABI_H */
