//===- Gemm.h - The runtime's own f32 GEMM ----------------------*- C++ -*-===//
//
// A BLIS-style single-precision GEMM (packed panels, a register-blocked
// micro-kernel, cache blocking) compiled for AVX-512 and for AVX2+FMA and
// chosen at run time by what the CPU supports. The kernels in Kernels.cpp
// call it for every product, with OpenBLAS as the fallback on CPUs that have
// neither (and for matrix-vector products).
//
//===----------------------------------------------------------------------===//

#ifndef TELAR_RUNTIME_GEMM_H
#define TELAR_RUNTIME_GEMM_H

#include <cstdint>

namespace telar::runtime::detail {

/// A rank-2 strided f32 view: element (i, j) is p[i * rs + j * cs]. Strides
/// may be anything (zero, negative, non-unit).
struct MatrixView {
  float *p;
  int64_t rows, cols, rs, cs;

  float &at(int64_t i, int64_t j) const { return p[i * rs + j * cs]; }
  MatrixView transposed() const { return {p, cols, rows, cs, rs}; }
};

/// The GEMM implementations (the values of TELARRT_GEMM_* in Abi.h).
enum class GemmKernel { Auto = 0, OpenBlas = 1, Avx2 = 2, Avx512 = 3 };

/// Whether this CPU (and OS) runs `kernel`; OpenBlas and Auto always.
bool gemmKernelSupported(GemmKernel kernel);

/// The fastest kernel this CPU runs.
GemmKernel bestGemmKernel();

/// Micro-tile shape of `kernel` (rows x columns of C per micro-kernel
/// call), for splitting work across threads on tile boundaries; 1 x 1 for
/// OpenBlas.
int gemmTileRows(GemmKernel kernel);
int gemmTileCols(GemmKernel kernel);

/// c += a . b on the calling thread with `kernel` (Avx2 or Avx512, which
/// the CPU must support). Shapes must match (a: m x k, b: k x n, c: m x n);
/// any strides; c must not overlap a or b.
void gemm(GemmKernel kernel, const MatrixView &a, const MatrixView &b,
          const MatrixView &c);

} // namespace telar::runtime::detail

#endif // TELAR_RUNTIME_GEMM_H
