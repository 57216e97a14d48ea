/*===- abi/CpuKernels.h - The CPU device's kernels ----------------*- C -*-===*\
|*                                                                            *|
|* What generated CPU programs call beyond the core (abi/Core.h): the         *|
|* kernels on MLIR's strided memref descriptors of f32 (host pointers: the    *|
|* CPU device's memory) and the CPU's tuning settings (threads, convolution   *|
|* method, GEMM). Exported by the CPU device's library                        *|
|* (libtelar_runtime_cpu.so, runtime/cpu); docs/Artifact.md.                  *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/

#ifndef TELAR_RUNTIME_ABI_CPUKERNELS_H
#define TELAR_RUNTIME_ABI_CPUKERNELS_H

#include "telar/runtime/abi/Core.h"

#ifdef __cplusplus
extern "C" {
#endif

/* MLIR's strided memref descriptors of f32, ranks 1 to 4: element
 * (i, j) of a rank-2 one is aligned[offset + i*strides[0] + j*strides[1]]. */
typedef struct TelarMemRef1F32 {
  float *allocated;
  float *aligned;
  int64_t offset;
  int64_t sizes[1];
  int64_t strides[1];
} TelarMemRef1F32;

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
/*===----------------------------------------------------------------------===
 * Kernels (every call takes the program's context first)
 *===----------------------------------------------------------------------===*/

/* The kernels return a status (recorded in the context when not OK). Each
 * contraction kernel takes a trailing `flags`, a set of: */
enum {
  /* c += product; without it c = product (c's old contents are not read:
   * garbage or NaNs in it do not matter). */
  TELAR_KERNEL_ACCUMULATE = 1,
  /* then c = max(c, 0) (convolutions only for now) */
  TELAR_KERNEL_RELU = 2,
  /* Convolutions: `in` (the pair's first flags: its `in`) holds its N x C
   * x H x W values channel-blocked, NCHW16c: (n, c, y, x) at
   * ((n * C / 16 + c / 16) * H * W + y * W + x) * 16 + c % 16 of a dense
   * buffer, C a multiple of TELARRT_CONV_CHANNEL_BLOCK. The compiler sets
   * it on a buffer only runtime convolutions write and read (ResNet's
   * activations between its blocks): no NCHW round trip between them. */
  TELAR_KERNEL_BLOCKED_INPUT = 4,
  /* Likewise `out` (the pair's second flags; the pooling's output of
   * telarrt_conv2d_maxpool_nchw_f32), accumulated into as such. */
  TELAR_KERNEL_BLOCKED_OUTPUT = 8
};
/* c (+)= a . b */
int telarrt_matmul_f32(TelarContext *ctx, TelarMemRef2F32 *a,
                       TelarMemRef2F32 *b, TelarMemRef2F32 *c, int64_t flags);
/* c[i] (+)= a[i] . b[i] */
int telarrt_batch_matmul_f32(TelarContext *ctx, TelarMemRef3F32 *a,
                             TelarMemRef3F32 *b, TelarMemRef3F32 *c,
                             int64_t flags);
/* out[n, f, y, x] (+)= sum_{c, ky, kx} in[n, c, y*sh + ky*dh - pad_top,
 *                                         x*sw + kx*dw - pad_left]
 *                                    * filter[f, c, ky, kx]
 * where input rows and columns outside the image read as 0 (bottom and
 * right padding are implied by the output size); `+=` with
 * TELAR_KERNEL_ACCUMULATE, then max(out, 0) with TELAR_KERNEL_RELU. */
int telarrt_conv2d_nchw_f32(TelarContext *ctx, TelarMemRef4F32 *in,
                            TelarMemRef4F32 *filter, TelarMemRef4F32 *out,
                            int64_t sh, int64_t sw, int64_t dh, int64_t dw,
                            int64_t pad_top, int64_t pad_left, int64_t flags);
/* The same plus bias[f] on every output pixel of filter f (bias has F
 * elements, any stride): out = bias + conv, or out += bias + conv with
 * TELAR_KERNEL_ACCUMULATE, then the ReLU. The bias is added with the
 * result, not as a pass over the output beforehand. */
int telarrt_conv2d_nchw_bias_f32(TelarContext *ctx, TelarMemRef4F32 *in,
                                 TelarMemRef4F32 *filter,
                                 TelarMemRef1F32 *bias, TelarMemRef4F32 *out,
                                 int64_t sh, int64_t sw, int64_t dh,
                                 int64_t dw, int64_t pad_top, int64_t pad_left,
                                 int64_t flags);

/* Two convolutions in a row whose intermediate nothing else reads (a
 * residual block's pair of 3x3s): mid = conv(in, filter_a) as
 * telarrt_conv2d_nchw_bias_f32 computes it with strides sh x sw, dilations
 * dh x dw, pad_top, pad_left, bias_a and flags_a (TELAR_KERNEL_RELU at
 * most: mid is overwritten), of N x F_a x mid_h x mid_w; then out (+)=
 * conv(mid, filter_b) with unit strides and dilations, pad_top_b,
 * pad_left_b, bias_b and flags_b. A bias with no elements is none. mid is
 * never stored as NCHW: when both are computed directly (DIRECT, or AUTO:
 * the runtime's own GEMM, one image, F_a a multiple of
 * TELARRT_CONV_CHANNEL_BLOCK) the first writes
 * mid straight into the second's planes of interleaved channels (no
 * transpose after the first, no copy into planes before the second). */
enum { TELARRT_CONV_CHANNEL_BLOCK = 16 };
int telarrt_conv2d_pair_nchw_f32(
    TelarContext *ctx, TelarMemRef4F32 *in, TelarMemRef4F32 *filter_a,
    TelarMemRef1F32 *bias_a, TelarMemRef4F32 *filter_b,
    TelarMemRef1F32 *bias_b, TelarMemRef4F32 *out, int64_t sh, int64_t sw,
    int64_t dh, int64_t dw, int64_t pad_top, int64_t pad_left, int64_t flags_a,
    int64_t mid_h, int64_t mid_w, int64_t pad_top_b, int64_t pad_left_b,
    int64_t flags_b);

/* A convolution and the max pooling of its output, which nothing else
 * reads (ResNet's stem): mid = conv(in, filter) as
 * telarrt_conv2d_nchw_bias_f32 computes it (strides, dilations, padding,
 * bias; flags: TELAR_KERNEL_RELU at most), N x F x conv_h x conv_w; then out
 * = the max over kh x kw windows of mid with strides pool_sh x pool_sw,
 * pool_pad_top and pool_pad_left, as telarrt_maxpool2d_nchw_f32 computes
 * it (dilation 1). A bias with no elements is none. When the convolution
 * is computed directly (DIRECT, or AUTO with the runtime's own GEMM; one
 * image) mid is never stored: each thread pools blocks of its filters'
 * output rows while they are in its cache. */
int telarrt_conv2d_maxpool_nchw_f32(
    TelarContext *ctx, TelarMemRef4F32 *in, TelarMemRef4F32 *filter,
    TelarMemRef1F32 *bias, TelarMemRef4F32 *out, int64_t sh, int64_t sw,
    int64_t dh, int64_t dw, int64_t pad_top, int64_t pad_left, int64_t flags,
    int64_t conv_h, int64_t conv_w, int64_t kh, int64_t kw, int64_t pool_sh,
    int64_t pool_sw, int64_t pool_pad_top, int64_t pool_pad_left);

/* out[n, c, oy, ox] = the max of in[n, c, oy*sh + ky*dh - pad_top,
 * ox*sw + kx*dw - pad_left] over the kh x kw window, positions outside the
 * image left out (padding of -inf; bottom and right padding follow from
 * the output size, each side below the window's span), NaN when any is
 * NaN (arith.maximumf). Overwrites out (its old contents are not read). */
int telarrt_maxpool2d_nchw_f32(TelarContext *ctx, TelarMemRef4F32 *in,
                               TelarMemRef4F32 *out, int64_t kh, int64_t kw,
                               int64_t sh, int64_t sw, int64_t dh, int64_t dw,
                               int64_t pad_top, int64_t pad_left);

/*===----------------------------------------------------------------------===
 * Settings
 *===----------------------------------------------------------------------===*/

/* Threads for OpenMP parallel loops (libomp), which the kernels above use
 * too (their GEMMs run single-threaded on them). Process-wide: libomp's
 * setting of the calling thread, not a context's. */
void telarrt_set_num_threads(int threads);
int telarrt_get_num_threads(void);

/* Pins those threads one to a CPU: thread i of the team (the caller is
 * thread 0) to CPU cpus[(s + i) % n], where cpus are the n CPUs this
 * process may run on (its affinity when first asked, in order) and s is
 * first_slot, or with first_slot < 0 the index of the CPU the caller runs
 * on now. Several processes sharing the CPUs give each its own slots
 * (e.g. local rank x threads). Leaves the threads to the OS and returns 0
 * with fewer than 2 threads, more threads than CPUs, inside a parallel
 * region, or when OMP_PROC_BIND, OMP_PLACES, KMP_AFFINITY or
 * GOMP_CPU_AFFINITY is set (libomp places them then); -1 when the OS
 * refused (the threads keep the process's CPUs); else the number of
 * threads pinned. Why: an OS may keep two of the threads on one CPU while
 * another idles, up to a whole process (some VMs' schedulers pack threads
 * onto few vCPUs), and each fork and join then waits for a thread switch.
 * telarrt_set_num_threads with a different count unpins them; bind again
 * after it. Process-wide; not while a program runs. */
int telarrt_bind_threads(int first_slot);
/* Gives the threads back the process's CPUs. */
void telarrt_unbind_threads(void);
/* The CPUs the threads are pinned to (thread i on cpus[i]; at most
 * `capacity` written, cpus may be null with capacity 0); returns how many
 * threads are pinned, 0 when none. */
int telarrt_bound_thread_cpus(int *cpus, int capacity);

/* The multiply-adds each thread's share of a kernel must have for the
 * kernel to split its work across the threads (default 2^18, or the
 * environment variable TELAR_KERNEL_MIN_PARALLEL_WORK when the runtime
 * loads): smaller products run on the calling thread, where forking would
 * cost more than it saves. Returns the previous value; values below 1 are
 * clamped to 1. Process-wide; not while a program runs. */
double telarrt_set_kernel_min_parallel_work(double multiply_adds);

/* How telarrt_conv2d_nchw_f32 computes with the runtime's GEMM kernels
 * (with OpenBLAS it always materialises the im2col matrix): AUTO picks per
 * convolution; DIRECT computes on phase planes (below; channels
 * interleaved in blocks of 16 when they divide) without a GEMM, output
 * pixels broadcast from the planes against the packed filter's transpose;
 * PHASE_PLANES packs the im2col rows from a copy of the padded input split
 * by stride phase, where each row is one contiguous run (computing a few
 * extra output columns it drops); IM2COL_PANELS packs the GEMM's panels
 * straight from the input; IM2COL materialises the im2col matrix (a 1x1
 * unit-stride convolution reads its input in place). AUTO takes DIRECT
 * when the filter is a registered constant or the output has 1024 pixels
 * or more, else PHASE_PLANES, except IM2COL_PANELS for strided 1x1 kernels
 * and IM2COL for unit-stride ones. Outputs whose pixels are not contiguous
 * always take IM2COL. The default is AUTO, or the environment variable
 * TELAR_CONV_METHOD (auto, direct, planes, panels, im2col) when the
 * runtime loads.
 * Returns the previous method, or -1 (nothing changed) for an unknown one.
 * Process-wide; not while a program runs. Results differ at most in
 * rounding. */
enum {
  TELARRT_CONV_AUTO = 0,
  TELARRT_CONV_PHASE_PLANES = 1,
  TELARRT_CONV_IM2COL_PANELS = 2,
  TELARRT_CONV_IM2COL = 3,
  TELARRT_CONV_DIRECT = 4
};
int telarrt_set_conv_method(int method);

/* The kernels OpenBLAS runs (openblas_get_corename, e.g. "SkylakeX"): the
 * runtime asks for SkylakeX on CPUs with AVX-512 and Haswell on those with
 * AVX2 and FMA when it loads OpenBLAS, unless OPENBLAS_CORETYPE is set. */
const char *telarrt_blas_core_name(void);

/* The GEMM behind a context's kernels: the runtime's own for AVX-512 or
 * AVX2+FMA, or OpenBLAS. A new context uses TELARRT_GEMM_AUTO, the fastest
 * this CPU runs, unless the environment variable TELAR_GEMM_KERNEL (auto,
 * openblas, avx2, avx512) says otherwise. telarrt_context_set_gemm_kernel
 * returns the kernel now in use (AUTO resolved), or -1 without changing it
 * when the CPU cannot run the one asked for. Not to be called while the
 * context runs a program. */
enum {
  TELARRT_GEMM_AUTO = 0,
  TELARRT_GEMM_OPENBLAS = 1,
  TELARRT_GEMM_AVX2 = 2,
  TELARRT_GEMM_AVX512 = 3
};
int telarrt_context_set_gemm_kernel(TelarContext *ctx, int kernel);
int telarrt_context_get_gemm_kernel(const TelarContext *ctx);

#ifdef __cplusplus
}
#endif

#endif /* TELAR_RUNTIME_ABI_CPUKERNELS_H */
