/*===- abi/Gpu.h - What GPU host programs call --------------------*- C -*-===*\
|*                                                                            *|
|* The calls of a GPU target's host program (telarc --target cuda): it        *|
|* allocates its intermediates in the device's memory (abi/Core.h), and       *|
|* launches the program's kernels and uploads its constants through these,    *|
|* in the order of the context's queue. Exported by the runtime's core        *|
|* library (libtelar_runtime.so), which hands them to the context's device:   *|
|* the CUDA device (runtime/cuda) launches on its stream, the CUDA            *|
|* emulator runs the same kernels compiled for the host; docs/Artifact.md.    *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/

#ifndef TELAR_RUNTIME_ABI_GPU_H
#define TELAR_RUNTIME_ABI_GPU_H

#include "telar/runtime/abi/Core.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Launches kernel `kernel` (its index in the program's kernel table, the
 * manifest's "kernels") on a grid of gx * gy * gz blocks of bx * by * bz
 * threads, after the work enqueued before it. `args` holds one 64-bit slot
 * per kernel parameter, in order: a buffer's device address, an integer
 * (sign-extended), or a float's bits (an f32 in the low 32 bits), so that
 * the address of slot i is the CUDA driver's kernelParams[i] on a
 * little-endian host. The slots are read before the call returns.
 * Returns TELAR_STATUS_OK, or TELAR_STATUS_DEVICE_ERROR (the context says
 * why: no kernels bound to the context, an index out of range, the
 * driver's error). */
int telarrt_gpu_launch(TelarContext *ctx, int64_t kernel, int64_t gx,
                       int64_t gy, int64_t gz, int64_t bx, int64_t by,
                       int64_t bz, const int64_t *args, int64_t numArgs);

/* Copies `bytes` of host memory `src` (a constant of the program) to the
 * device buffer `dst`, in the queue's order. */
int telarrt_gpu_upload(TelarContext *ctx, void *dst, const void *src,
                       int64_t bytes);

/* A product of matrices in the device's memory, batched, into f32:
 *   c[p] = a[p] . b[p]    (c[p] += a[p] . b[p] with TELAR_GPU_ACCUMULATE)
 * a and b hold f32, or bfloat16 with TELAR_GPU_BF16 (both); the products
 * are summed in f32 (with TELAR_GPU_TF32 f32 inputs may be rounded to
 * TF32, 10 bits of mantissa, to run on tensor cores)
 * for p < batch, a[p] m x k, b[p] k x n, c[p] m x n, where element (i, j)
 * of x[p] is x[p * x_batch + i * x_row + j * x_col] (strides in elements,
 * any batch stride, 0 included). a and b must be contiguous along their
 * rows (col stride 1, row stride >= columns) or along their columns (row
 * stride 1, col stride >= rows), c along its rows (a stride of a size-1
 * dimension is free); c must not overlap a or b. Without
 * TELAR_GPU_ACCUMULATE c's old contents are not read. In the queue's
 * order: cuBLASLt on a GPU (fp32 compute, or TF32 tensor cores), the CPU
 * runtime's GEMM on the CUDA emulator (always fp32; bfloat16 operands
 * widened first). Returns TELAR_STATUS_OK, TELAR_STATUS_INVALID_ARGUMENT
 * (a layout it cannot take) or TELAR_STATUS_DEVICE_ERROR (the library's
 * error, in the context). */
enum { TELAR_GPU_ACCUMULATE = 1, TELAR_GPU_TF32 = 2, TELAR_GPU_BF16 = 4 };
/* Whether a rows x cols operand with these strides is one
 * telarrt_gpu_matmul_f32 takes as a or b (contiguous along its rows or
 * along its columns); c must besides have col stride 1 (or one column). */
static inline int telarrt_gpu_gemm_operand_ok(int64_t rows, int64_t cols,
                                              int64_t row_stride,
                                              int64_t col_stride) {
  int row_major = (col_stride == 1 || cols == 1) &&
                  (rows == 1 || row_stride >= cols);
  int col_major = (row_stride == 1 || rows == 1) &&
                  (cols == 1 || col_stride >= rows);
  return row_major || col_major;
}
int telarrt_gpu_matmul_f32(TelarContext *ctx, const void *a, const void *b,
                           float *c, int64_t batch, int64_t m, int64_t n,
                           int64_t k, int64_t a_batch, int64_t a_row,
                           int64_t a_col, int64_t b_batch, int64_t b_row,
                           int64_t b_col, int64_t c_batch, int64_t c_row,
                           int64_t c_col, int64_t flags);
/* telarrt_gpu_matmul_f32 with a bias in its epilogue: c[p](i, j) = (a[p] .
 * b[p])(i, j) + bias[j] (plus c's old value with TELAR_GPU_ACCUMULATE), the
 * contiguous f32 vector `bias` of n values in the device's memory (a
 * Linear's bias: cuBLASLt's CUBLASLT_EPILOGUE_BIAS on a GPU, added after
 * the CPU's GEMM on the emulator). */
int telarrt_gpu_matmul_bias_f32(TelarContext *ctx, const void *a,
                                const void *b, float *c, const float *bias,
                                int64_t batch, int64_t m, int64_t n, int64_t k,
                                int64_t a_batch, int64_t a_row, int64_t a_col,
                                int64_t b_batch, int64_t b_row, int64_t b_col,
                                int64_t c_batch, int64_t c_row, int64_t c_col,
                                int64_t flags);

#ifdef __cplusplus
}
#endif

#endif /* TELAR_RUNTIME_ABI_GPU_H */
