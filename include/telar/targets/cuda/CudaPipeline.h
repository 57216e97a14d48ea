//===- CudaPipeline.h - The CUDA target's pass pipelines --------*- C++ -*-===//
//
// From the shared translation prefix (fused linalg on tensors) to GPU
// kernels:
//
//   buildCudaTranslationPipeline   bufferized, each linalg op one
//                                  gpu.launch (telar-linalg-to-gpu), the
//                                  kernels outlined into a gpu.module
//   then either
//   buildCudaKernelPipeline        the gpu.modules through NVVM to PTX
//                                  (LLVM's NVPTX back end in process): a
//                                  gpu.binary per module
//   buildCudaHostPipeline          the host program: launches and
//                                  constants as runtime calls, to the LLVM
//                                  dialect (for a generic x86-64 host)
//   buildCudaKernelLibraryPipeline the kernels alone compiled for this CPU,
//                                  an entry point each (the emulator's
//                                  library: telar-run --emulate)
//   or (tests: one standalone program)
//   buildCudaEmulationPipeline     the launches as loops running the
//                                  kernels on the CPU (telar-emulate-gpu),
//                                  then the CPU target's lowering
//
//===----------------------------------------------------------------------===//
#ifndef TELAR_TARGETS_CUDA_CUDAPIPELINE_H
#define TELAR_TARGETS_CUDA_CUDAPIPELINE_H

#include "mlir/Pass/PassOptions.h"

#include <string>

namespace mlir {
class OpPassManager;
namespace telar {

/// The GPU architectures --gpu takes, oldest first.
inline constexpr const char *kCudaChips[] = {"sm_80", "sm_86", "sm_89",
                                             "sm_90"};
inline constexpr const char *kDefaultCudaChip = "sm_90";
/// The CPU the host programs are compiled for: any x86-64 server's.
inline constexpr const char *kCudaHostCpu = "x86-64-v2";

/// The compute types of --dtype, and those implemented so far.
inline constexpr const char *kCudaDtypes[] = {"fp32", "tf32", "bf16", "fp16"};
inline constexpr const char *kImplementedCudaDtypes[] = {"fp32", "tf32",
                                                          "bf16"};

/// Whether `chip` is one of kCudaChips.
bool isSupportedCudaChip(StringRef chip);

struct CudaPipelineOptions : public PassPipelineOptions<CudaPipelineOptions> {
  Option<std::string> gpu{
      *this, "gpu",
      llvm::cl::desc("The GPU architecture: sm_80, sm_86, sm_89 or sm_90"),
      llvm::cl::init(kDefaultCudaChip)};
  Option<int64_t> blockSize{
      *this, "block-size",
      llvm::cl::desc("Threads per block of the kernels"),
      llvm::cl::init(256)};
  Option<std::string> dtype{
      *this, "dtype",
      llvm::cl::desc("The compute type: fp32 (default), tf32 (matrix "
                     "products on tensor cores with TF32 inputs) or bf16 "
                     "(weights and the tensors between kernels stored as "
                     "bfloat16, computed in f32)"),
      llvm::cl::init("fp32")};
  Option<bool> runtime{
      *this, "runtime",
      llvm::cl::desc("Programs for the runtime (its context argument and "
                     "allocator); off: standalone programs mlir-runner "
                     "runs (the emulation's tests)"),
      llvm::cl::init(false)};
};

/// The weights in the storage type of `options.dtype` (after
/// telar-prepare-program): telar-cast-weights for bf16, else nothing.
void buildCudaWeightPreparationPipeline(OpPassManager &pm,
                                        const CudaPipelineOptions &options);
void buildCudaTranslationPipeline(OpPassManager &pm,
                                  const CudaPipelineOptions &options);
void buildCudaKernelPipeline(OpPassManager &pm,
                             const CudaPipelineOptions &options);
void buildCudaHostPipeline(OpPassManager &pm,
                           const CudaPipelineOptions &options);
void buildCudaKernelLibraryPipeline(OpPassManager &pm,
                                    const CudaPipelineOptions &options);
void buildCudaEmulationPipeline(OpPassManager &pm,
                                const CudaPipelineOptions &options);

/// telar-opt's pipelines: telar-lower-to-gpu (preparation, the shared
/// prefix, the translation), then telar-lower-to-ptx (the kernels to PTX),
/// telar-lower-to-gpu-host (the host program),
/// telar-lower-to-emulated-kernels (the emulator's kernel library) or
/// telar-lower-to-emulated-gpu (one program running the kernels on the
/// CPU).
void registerCudaPipelines();

} // namespace telar
} // namespace mlir

#endif // TELAR_TARGETS_CUDA_CUDAPIPELINE_H
