//===- Blas.cpp - OpenBLAS, loaded at run time ----------------------------===//
//
// The runtime dlopens OpenBLAS instead of linking it, to choose its kernels:
// OpenBLAS picks them in its library constructor from OPENBLAS_CORETYPE or
// its CPU detection, and Debian's 0.3.21 does not know every CPU: AMD's
// AVX-512 ones (Zen 4, Zen 5) get its AVX2 "Haswell" kernels at about half
// the speed of its AVX-512 "SkylakeX" ones, and a Sapphire Rapids Xeon in a
// VM (CPUID model "Intel Xeon Processor") gets its SSE3 "Prescott" ones
// (512^3 sgemm at 20 against 51 GFLOP/s with SkylakeX). So, unless the user
// set OPENBLAS_CORETYPE, the runtime asks for SkylakeX on any CPU with
// AVX-512 (F, BW, VL, DQ, CD) and for Haswell on any other with AVX2 and
// FMA: what OpenBLAS detects on the CPUs it knows, kernel for kernel. OPENBLAS_NUM_THREADS=1 keeps OpenBLAS from
// starting a thread pool it would never use (the kernels run it
// single-threaded on libomp's threads). Both variables are set only while
// OpenBLAS loads, so that other libraries in the process (numpy's OpenBLAS)
// do not see them.
//
//===----------------------------------------------------------------------===//

#include "Blas.h"
#include "telar/runtime/abi/CpuKernels.h"

#include <cstdio>
#include <cstdlib>
#include <dlfcn.h>
#include <memory>
#include <string>

using namespace telar::runtime::detail;

namespace {

/// The OpenBLAS core type whose kernels this CPU runs best, or null (let
/// OpenBLAS detect).
const char *coreTypeFor() {
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
      __builtin_cpu_supports("avx512vl") &&
      __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512cd"))
    return "SkylakeX";
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"))
    return "Haswell";
  return nullptr;
}

/// Sets an environment variable the user did not set, until destroyed.
class ScopedDefaultEnv {
public:
  ScopedDefaultEnv(const char *name, const char *value) : name(name) {
    if (!std::getenv(name))
      set = setenv(name, value, 0) == 0;
  }
  ~ScopedDefaultEnv() {
    if (set)
      unsetenv(name);
  }

private:
  const char *name;
  bool set = false;
};

[[noreturn]] void fail(const std::string &why) {
  std::fprintf(stderr, "telar runtime: cannot load OpenBLAS: %s\n",
               why.c_str());
  std::abort();
}

Blas load() {
  void *handle;
  {
    ScopedDefaultEnv threads("OPENBLAS_NUM_THREADS", "1");
    std::unique_ptr<ScopedDefaultEnv> core;
    if (const char *type = coreTypeFor())
      core = std::make_unique<ScopedDefaultEnv>("OPENBLAS_CORETYPE", type);
    handle = dlopen("libopenblas.so.0", RTLD_NOW | RTLD_LOCAL);
    if (!handle)
      handle = dlopen("libopenblas.so", RTLD_NOW | RTLD_LOCAL);
  }
  if (!handle) {
    const char *why = dlerror();
    fail(why ? why : "libopenblas.so.0 not found");
  }
  auto symbol = [&](const char *name) {
    void *p = dlsym(handle, name);
    if (!p)
      fail(std::string("no symbol ") + name);
    return p;
  };
  Blas b;
  b.sgemm = reinterpret_cast<decltype(b.sgemm)>(symbol("cblas_sgemm"));
  b.sgemv = reinterpret_cast<decltype(b.sgemv)>(symbol("cblas_sgemv"));
  b.setNumThreads = reinterpret_cast<decltype(b.setNumThreads)>(
      symbol("openblas_set_num_threads"));
  b.coreName =
      reinterpret_cast<decltype(b.coreName)>(symbol("openblas_get_corename"));
  b.setNumThreads(1);
  return b;
}

} // namespace

const Blas &telar::runtime::detail::blas() {
  static const Blas b = load();
  return b;
}

const char *telarrt_blas_core_name(void) { return blas().coreName(); }

// Load while the process is (normally) still single-threaded: setenv and
// getenv are not thread-safe.
__attribute__((constructor)) static void loadBlasEarly() { (void)blas(); }
