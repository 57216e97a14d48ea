//===- Blas.h - OpenBLAS, loaded at run time --------------------*- C++ -*-===//

#ifndef TELAR_RUNTIME_BLAS_H
#define TELAR_RUNTIME_BLAS_H

#include <cblas.h>

namespace telar::runtime::detail {

/// The OpenBLAS entry points the kernels use.
struct Blas {
  decltype(&cblas_sgemm) sgemm;
  decltype(&cblas_sgemv) sgemv;
  decltype(&openblas_set_num_threads) setNumThreads;
  decltype(&openblas_get_corename) coreName;
};

/// OpenBLAS, dlopened once (when the runtime library loads), single-threaded.
/// Aborts with a message when it cannot be loaded.
const Blas &blas();

} // namespace telar::runtime::detail

#endif // TELAR_RUNTIME_BLAS_H
