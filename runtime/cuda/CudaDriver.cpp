//===- CudaDriver.cpp - The CUDA driver API, loaded at run time -----------===//

#include "CudaDriver.h"
#include "telar/runtime/Runtime.h"

#include <dlfcn.h>
#include <mutex>

using namespace telar::runtime;
using namespace telar::runtime::cuda;

namespace {

/// The driver API version whose function variants are asked for (the _v2
/// entry points of cuMemAlloc, cuStreamDestroy, ...).
constexpr int kDriverApiVersion = 12000;

/// Names of the results this runtime may meet, for when the driver cannot
/// name them itself (the stub library, a failed load).
const char *knownResultName(CUresult result) {
  switch (result) {
  case 1: return "CUDA_ERROR_INVALID_VALUE";
  case 2: return "CUDA_ERROR_OUT_OF_MEMORY";
  case 3: return "CUDA_ERROR_NOT_INITIALIZED";
  case 34: return "CUDA_ERROR_STUB_LIBRARY";
  case 35: return "CUDA_ERROR_INSUFFICIENT_DRIVER";
  case 100: return "CUDA_ERROR_NO_DEVICE";
  case 200: return "CUDA_ERROR_INVALID_IMAGE";
  case 209: return "CUDA_ERROR_NO_BINARY_FOR_GPU";
  case 218: return "CUDA_ERROR_INVALID_PTX";
  case 222: return "CUDA_ERROR_UNSUPPORTED_PTX_VERSION";
  case 500: return "CUDA_ERROR_NOT_FOUND";
  case 700: return "CUDA_ERROR_ILLEGAL_ADDRESS";
  case 701: return "CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES";
  case 719: return "CUDA_ERROR_LAUNCH_FAILED";
  default: return "CUDA error";
  }
}

using GetProcAddressFn = CUresult (*)(const char *symbol, void **function,
                                      int cudaVersion, unsigned long long flags,
                                      int *symbolStatus);

struct Loaded {
  CudaDriver driver{};
  std::string error; // why the driver is unusable, or ""
};

/// What a driver library without a GPU behind it means for the user.
std::string noGpuHint() {
  return "this machine has no usable NVIDIA GPU; telar-run --emulate runs a "
         "CUDA artifact's kernels on the CPU (compiled with telarc "
         "--emulation)";
}

void load(Loaded &loaded) {
  std::string why;
  void *library = openFirstLibrary({"libcuda.so.1", "libcuda.so"}, why);
  if (!library) {
    loaded.error = "no CUDA driver (" + why + "): " + noGpuHint();
    return;
  }
  auto getProcAddress = reinterpret_cast<GetProcAddressFn>(
      dlsym(library, "cuGetProcAddress_v2"));
  if (!getProcAddress) {
    loaded.error = "the CUDA driver is older than CUDA 12 (it has no "
                   "cuGetProcAddress_v2): update the NVIDIA driver";
    return;
  }
  CudaDriver &d = loaded.driver;
  struct Entry {
    const char *name;
    void **slot;
  };
  // Each entry point by its name, into the member of that name.
#define TELAR_CUDA_ENTRY(name) {#name, reinterpret_cast<void **>(&d.name)}
  const Entry entries[] = {
      TELAR_CUDA_ENTRY(cuInit),
      TELAR_CUDA_ENTRY(cuGetErrorName),
      TELAR_CUDA_ENTRY(cuGetErrorString),
      TELAR_CUDA_ENTRY(cuDeviceGetCount),
      TELAR_CUDA_ENTRY(cuDeviceGet),
      TELAR_CUDA_ENTRY(cuDeviceGetName),
      TELAR_CUDA_ENTRY(cuDeviceGetAttribute),
      TELAR_CUDA_ENTRY(cuDevicePrimaryCtxRetain),
      TELAR_CUDA_ENTRY(cuDevicePrimaryCtxRelease),
      TELAR_CUDA_ENTRY(cuCtxSetCurrent),
      TELAR_CUDA_ENTRY(cuStreamCreate),
      TELAR_CUDA_ENTRY(cuStreamDestroy),
      TELAR_CUDA_ENTRY(cuStreamSynchronize),
      TELAR_CUDA_ENTRY(cuStreamWaitEvent),
      TELAR_CUDA_ENTRY(cuEventCreate),
      TELAR_CUDA_ENTRY(cuEventDestroy),
      TELAR_CUDA_ENTRY(cuEventRecord),
      TELAR_CUDA_ENTRY(cuEventQuery),
      TELAR_CUDA_ENTRY(cuEventSynchronize),
      TELAR_CUDA_ENTRY(cuEventElapsedTime),
      TELAR_CUDA_ENTRY(cuMemAlloc),
      TELAR_CUDA_ENTRY(cuMemFree),
      TELAR_CUDA_ENTRY(cuMemcpyHtoDAsync),
      TELAR_CUDA_ENTRY(cuMemcpyDtoHAsync),
      TELAR_CUDA_ENTRY(cuMemcpyDtoDAsync),
      TELAR_CUDA_ENTRY(cuModuleLoadData),
      TELAR_CUDA_ENTRY(cuModuleUnload),
      TELAR_CUDA_ENTRY(cuModuleGetFunction),
      TELAR_CUDA_ENTRY(cuLaunchKernel),
  };
#undef TELAR_CUDA_ENTRY

  for (const Entry &e : entries) {
    int status = 0;
    CUresult r = getProcAddress(e.name, e.slot, kDriverApiVersion,
                                /*CU_GET_PROC_ADDRESS_DEFAULT=*/0, &status);
    if (r != CUDA_SUCCESS || !*e.slot) {
      loaded.error = std::string("the CUDA driver has no usable ") + e.name +
                     " (" + d.describe(r) + ")";
      if (r == 34)
        loaded.error += ": the library found is the CUDA toolkit's stub, "
                        "not an NVIDIA driver; " + noGpuHint();
      return;
    }
  }
  CUresult r = d.cuInit(0);
  if (r != CUDA_SUCCESS) {
    loaded.error = "the CUDA driver did not initialise (cuInit: " +
                   d.describe(r) + ")";
    if (r == 34 || r == 100)
      loaded.error += ": " + noGpuHint();
  }
}

} // namespace

std::string CudaDriver::describe(CUresult result) const {
  const char *name = nullptr, *text = nullptr;
  if (cuGetErrorName && cuGetErrorName(result, &name) != CUDA_SUCCESS)
    name = nullptr;
  if (cuGetErrorString && cuGetErrorString(result, &text) != CUDA_SUCCESS)
    text = nullptr;
  std::string out = std::string(name ? name : knownResultName(result)) +
                    " (" + std::to_string(result) + ")";
  if (text)
    out += ": " + std::string(text);
  return out;
}

void *telar::runtime::cuda::openFirstLibrary(
    std::initializer_list<const char *> names, std::string &why) {
  for (const char *name : names) {
    if (void *library = dlopen(name, RTLD_NOW | RTLD_LOCAL))
      return library;
    if (why.empty()) {
      const char *text = dlerror();
      why = text ? text : name;
    }
  }
  return nullptr;
}

const CudaDriver &telar::runtime::cuda::getCudaDriver() {
  static Loaded loaded;
  static std::once_flag once;
  std::call_once(once, [] { load(loaded); });
  if (!loaded.error.empty())
    throw Error(loaded.error);
  return loaded.driver;
}

void telar::runtime::cuda::check(CUresult result, const std::string &what) {
  if (result != CUDA_SUCCESS)
    throw Error(what + ": " + getCudaDriver().describe(result));
}
