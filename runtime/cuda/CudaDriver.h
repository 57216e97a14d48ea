//===- CudaDriver.h - The CUDA driver API, loaded at run time ---*- C++ -*-===//
//
// The few driver entry points the CUDA device uses, found at run time: the
// driver library (libcuda.so.1) is dlopened and each function looked up
// with cuGetProcAddress for the CUDA 12 ABI, as IREE's CUDA HAL does. So
// the runtime builds and starts without the CUDA toolkit or a driver, and a
// machine without a GPU gets a plain message instead of a loader error.
// The types are declared here (their C ABI is stable), not taken from the
// toolkit's cuda.h: the CPU build must not need the toolkit.
//
//===----------------------------------------------------------------------===//

#ifndef TELAR_RUNTIME_CUDA_CUDADRIVER_H
#define TELAR_RUNTIME_CUDA_CUDADRIVER_H

#include <cstddef>
#include <initializer_list>
#include <string>

namespace telar::runtime::cuda {

using CUresult = int;
using CUdevice = int;
using CUdeviceptr = unsigned long long;
using CUcontext = struct CUctx_st *;
using CUmodule = struct CUmod_st *;
using CUfunction = struct CUfunc_st *;
using CUstream = struct CUstream_st *;
using CUevent = struct CUevent_st *;

inline constexpr CUresult CUDA_SUCCESS = 0;
inline constexpr CUresult CUDA_ERROR_NOT_READY = 600;
/// cuDeviceGetAttribute: the compute capability's major and minor.
inline constexpr int CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR = 75;
inline constexpr int CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR = 76;
inline constexpr unsigned CU_STREAM_NON_BLOCKING = 1;
inline constexpr unsigned CU_EVENT_DISABLE_TIMING = 2;

/// The driver's functions (null until loaded).
struct CudaDriver {
  CUresult (*cuInit)(unsigned flags);
  CUresult (*cuGetErrorName)(CUresult error, const char **name);
  CUresult (*cuGetErrorString)(CUresult error, const char **text);
  CUresult (*cuDeviceGetCount)(int *count);
  CUresult (*cuDeviceGet)(CUdevice *device, int ordinal);
  CUresult (*cuDeviceGetName)(char *name, int length, CUdevice device);
  CUresult (*cuDeviceGetAttribute)(int *value, int attribute,
                                   CUdevice device);
  CUresult (*cuDevicePrimaryCtxRetain)(CUcontext *context, CUdevice device);
  CUresult (*cuDevicePrimaryCtxRelease)(CUdevice device);
  CUresult (*cuCtxSetCurrent)(CUcontext context);
  CUresult (*cuStreamCreate)(CUstream *stream, unsigned flags);
  CUresult (*cuStreamDestroy)(CUstream stream);
  CUresult (*cuStreamSynchronize)(CUstream stream);
  CUresult (*cuStreamWaitEvent)(CUstream stream, CUevent event,
                                unsigned flags);
  CUresult (*cuEventCreate)(CUevent *event, unsigned flags);
  CUresult (*cuEventDestroy)(CUevent event);
  CUresult (*cuEventRecord)(CUevent event, CUstream stream);
  CUresult (*cuEventQuery)(CUevent event);
  CUresult (*cuEventSynchronize)(CUevent event);
  CUresult (*cuEventElapsedTime)(float *milliseconds, CUevent start,
                                 CUevent end);
  CUresult (*cuMemAlloc)(CUdeviceptr *pointer, size_t bytes);
  CUresult (*cuMemFree)(CUdeviceptr pointer);
  CUresult (*cuMemcpyHtoDAsync)(CUdeviceptr dst, const void *src,
                                size_t bytes, CUstream stream);
  CUresult (*cuMemcpyDtoHAsync)(void *dst, CUdeviceptr src, size_t bytes,
                                CUstream stream);
  CUresult (*cuMemcpyDtoDAsync)(CUdeviceptr dst, CUdeviceptr src,
                                size_t bytes, CUstream stream);
  CUresult (*cuModuleLoadData)(CUmodule *module, const void *image);
  CUresult (*cuModuleUnload)(CUmodule module);
  CUresult (*cuModuleGetFunction)(CUfunction *function, CUmodule module,
                                  const char *name);
  CUresult (*cuLaunchKernel)(CUfunction function, unsigned gx, unsigned gy,
                             unsigned gz, unsigned bx, unsigned by,
                             unsigned bz, unsigned sharedBytes,
                             CUstream stream, void **params, void **extra);

  /// "CUDA_ERROR_OUT_OF_MEMORY (2): out of memory", from the driver when it
  /// can say, else from the codes known here.
  std::string describe(CUresult result) const;
};

/// The driver, loaded and initialised (cuInit) once per process; throws
/// Error saying why not (no driver library: no NVIDIA driver installed;
/// the toolkit's stub library; a driver too old; cuInit's error).
const CudaDriver &getCudaDriver();

/// The first of the libraries `names` that dlopen (now, local) loads, or
/// null with the loader's reason for the first name in `why`.
void *openFirstLibrary(std::initializer_list<const char *> names,
                       std::string &why);

/// Throws Error("<what>: <describe(result)>") unless `result` is success.
void check(CUresult result, const std::string &what);

} // namespace telar::runtime::cuda

#endif // TELAR_RUNTIME_CUDA_CUDADRIVER_H
