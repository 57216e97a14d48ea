//===- CublasLt.h - cuBLASLt, loaded at run time ----------------*- C++ -*-===//
//
// The few cuBLASLt entry points the CUDA device's GEMM uses, found at run
// time like the driver (CudaDriver.h): libcublasLt is dlopened on the
// first GEMM call, so the runtime builds and starts without the toolkit,
// and only a program with library calls needs the library. The types and
// the enum values used are declared here (their C ABI is stable), not
// taken from the toolkit's cublasLt.h.
//
//===----------------------------------------------------------------------===//

#ifndef TELAR_RUNTIME_CUDA_CUBLASLT_H
#define TELAR_RUNTIME_CUDA_CUBLASLT_H

#include "CudaDriver.h"

#include <cstddef>
#include <cstdint>
#include <string>

namespace telar::runtime::cuda {

using cublasStatus_t = int;
using cublasLtHandle_t = struct cublasLtContext *;
using cublasLtMatmulDesc_t = struct cublasLtMatmulDescOpaque_st *;
using cublasLtMatrixLayout_t = struct cublasLtMatrixLayoutOpaque_st *;
using cublasLtMatmulPreference_t = struct cublasLtMatmulPreferenceOpaque_st *;

/// cublasLtMatmulAlgo_t: semi-opaque, 64 bytes.
struct CublasLtAlgo {
  uint64_t data[8];
};
/// cublasLtMatmulHeuristicResult_t.
struct CublasLtHeuristicResult {
  CublasLtAlgo algo;
  size_t workspaceSize;
  cublasStatus_t state;
  float wavesCount;
  int reserved[4];
};

inline constexpr cublasStatus_t CUBLAS_STATUS_SUCCESS = 0;
inline constexpr int CUBLAS_OP_N = 0, CUBLAS_OP_T = 1;
/// cublasComputeType_t and cudaDataType_t.
inline constexpr int CUBLAS_COMPUTE_32F = 68;
inline constexpr int CUBLAS_COMPUTE_32F_FAST_TF32 = 77;
inline constexpr int CUDA_R_32F = 0;
inline constexpr int CUDA_R_16BF = 14;
/// cublasLtMatmulDescAttributes_t (int32_t values).
inline constexpr int CUBLASLT_MATMUL_DESC_TRANSA = 3;
inline constexpr int CUBLASLT_MATMUL_DESC_TRANSB = 4;
/// uint32_t cublasLtEpilogue_t; a device pointer.
inline constexpr int CUBLASLT_MATMUL_DESC_EPILOGUE = 7;
inline constexpr int CUBLASLT_MATMUL_DESC_BIAS_POINTER = 8;
inline constexpr uint32_t CUBLASLT_EPILOGUE_BIAS = 4;
/// cublasLtMatrixLayoutAttribute_t: int32_t count, int64_t offset.
inline constexpr int CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT = 5;
inline constexpr int CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET = 6;
/// cublasLtMatmulPreferenceAttributes_t: uint64_t bytes.
inline constexpr int CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES = 1;

/// cuBLASLt's functions (null until loaded).
struct CublasLt {
  cublasStatus_t (*cublasLtCreate)(cublasLtHandle_t *handle);
  cublasStatus_t (*cublasLtDestroy)(cublasLtHandle_t handle);
  const char *(*cublasLtGetStatusString)(cublasStatus_t status);
  cublasStatus_t (*cublasLtMatmulDescCreate)(cublasLtMatmulDesc_t *desc,
                                             int computeType, int scaleType);
  cublasStatus_t (*cublasLtMatmulDescDestroy)(cublasLtMatmulDesc_t desc);
  cublasStatus_t (*cublasLtMatmulDescSetAttribute)(cublasLtMatmulDesc_t desc,
                                                   int attribute,
                                                   const void *value,
                                                   size_t bytes);
  cublasStatus_t (*cublasLtMatrixLayoutCreate)(cublasLtMatrixLayout_t *layout,
                                               int type, uint64_t rows,
                                               uint64_t cols, int64_t ld);
  cublasStatus_t (*cublasLtMatrixLayoutDestroy)(cublasLtMatrixLayout_t layout);
  cublasStatus_t (*cublasLtMatrixLayoutSetAttribute)(
      cublasLtMatrixLayout_t layout, int attribute, const void *value,
      size_t bytes);
  cublasStatus_t (*cublasLtMatmulPreferenceCreate)(
      cublasLtMatmulPreference_t *preference);
  cublasStatus_t (*cublasLtMatmulPreferenceDestroy)(
      cublasLtMatmulPreference_t preference);
  cublasStatus_t (*cublasLtMatmulPreferenceSetAttribute)(
      cublasLtMatmulPreference_t preference, int attribute, const void *value,
      size_t bytes);
  cublasStatus_t (*cublasLtMatmulAlgoGetHeuristic)(
      cublasLtHandle_t handle, cublasLtMatmulDesc_t desc,
      cublasLtMatrixLayout_t a, cublasLtMatrixLayout_t b,
      cublasLtMatrixLayout_t c, cublasLtMatrixLayout_t d,
      cublasLtMatmulPreference_t preference, int requested,
      CublasLtHeuristicResult *results, int *returned);
  cublasStatus_t (*cublasLtMatmul)(
      cublasLtHandle_t handle, cublasLtMatmulDesc_t desc, const void *alpha,
      const void *a, cublasLtMatrixLayout_t aLayout, const void *b,
      cublasLtMatrixLayout_t bLayout, const void *beta, const void *c,
      cublasLtMatrixLayout_t cLayout, void *d, cublasLtMatrixLayout_t dLayout,
      const CublasLtAlgo *algo, void *workspace, size_t workspaceBytes,
      CUstream stream);

  /// "CUBLAS_STATUS_NOT_SUPPORTED (15): ..." when the library can say.
  std::string describe(cublasStatus_t status) const;
};

/// cuBLASLt, loaded once per process (libcublasLt.so.13, .so.12, then
/// .so); throws Error saying why not.
const CublasLt &getCublasLt();

/// Throws Error("<what>: <describe(status)>") unless `status` is success.
void check(const CublasLt &lt, cublasStatus_t status, const std::string &what);

} // namespace telar::runtime::cuda

#endif // TELAR_RUNTIME_CUDA_CUBLASLT_H
