//===- CublasLt.cpp - cuBLASLt, loaded at run time ------------------------===//

#include "CublasLt.h"
#include "telar/runtime/Runtime.h"

#include <dlfcn.h>
#include <mutex>

using namespace telar::runtime;
using namespace telar::runtime::cuda;

namespace {

struct Loaded {
  CublasLt lt{};
  std::string error; // why cuBLASLt is unusable, or ""
};

void load(Loaded &loaded) {
  std::string why;
  // The toolkit's major versions this runtime was written against, newest
  // first: the GEMM interface used here is the same in both.
  void *library = openFirstLibrary(
      {"libcublasLt.so.13", "libcublasLt.so.12", "libcublasLt.so"}, why);
  if (!library) {
    loaded.error = "no cuBLASLt (" + why +
                   "): a CUDA artifact's matrix products need the CUDA "
                   "toolkit's libcublasLt (CUDA 12 or 13) on the library "
                   "path";
    return;
  }
  CublasLt &lt = loaded.lt;
  struct Entry {
    const char *name;
    void **slot;
  };
#define TELAR_CUBLASLT_ENTRY(name) {#name, reinterpret_cast<void **>(&lt.name)}
  const Entry entries[] = {
      TELAR_CUBLASLT_ENTRY(cublasLtCreate),
      TELAR_CUBLASLT_ENTRY(cublasLtDestroy),
      TELAR_CUBLASLT_ENTRY(cublasLtGetStatusString),
      TELAR_CUBLASLT_ENTRY(cublasLtMatmulDescCreate),
      TELAR_CUBLASLT_ENTRY(cublasLtMatmulDescDestroy),
      TELAR_CUBLASLT_ENTRY(cublasLtMatmulDescSetAttribute),
      TELAR_CUBLASLT_ENTRY(cublasLtMatrixLayoutCreate),
      TELAR_CUBLASLT_ENTRY(cublasLtMatrixLayoutDestroy),
      TELAR_CUBLASLT_ENTRY(cublasLtMatrixLayoutSetAttribute),
      TELAR_CUBLASLT_ENTRY(cublasLtMatmulPreferenceCreate),
      TELAR_CUBLASLT_ENTRY(cublasLtMatmulPreferenceDestroy),
      TELAR_CUBLASLT_ENTRY(cublasLtMatmulPreferenceSetAttribute),
      TELAR_CUBLASLT_ENTRY(cublasLtMatmulAlgoGetHeuristic),
      TELAR_CUBLASLT_ENTRY(cublasLtMatmul),
  };
#undef TELAR_CUBLASLT_ENTRY
  for (const Entry &e : entries) {
    *e.slot = dlsym(library, e.name);
    if (!*e.slot) {
      loaded.error = std::string("cuBLASLt has no ") + e.name +
                     ": the library found is too old (CUDA 12 or 13 needed)";
      return;
    }
  }
}

} // namespace

std::string CublasLt::describe(cublasStatus_t status) const {
  const char *text =
      cublasLtGetStatusString ? cublasLtGetStatusString(status) : nullptr;
  return "cuBLAS status " + std::to_string(status) +
         (text ? std::string(": ") + text : std::string());
}

const CublasLt &telar::runtime::cuda::getCublasLt() {
  static Loaded loaded;
  static std::once_flag once;
  std::call_once(once, [] { load(loaded); });
  if (!loaded.error.empty())
    throw Error(loaded.error);
  return loaded.lt;
}

void telar::runtime::cuda::check(const CublasLt &lt, cublasStatus_t status,
                                 const std::string &what) {
  if (status != CUBLAS_STATUS_SUCCESS)
    throw Error(what + ": " + lt.describe(status));
}
