//===- CudaTargetBackend.h - The CUDA target ---------------------*- C++ -*-===//
//
// `--target cuda`: GPU kernels through NVVM to PTX (and cubins when the
// toolkit's ptxas is installed), with the same kernels emulated on the CPU
// (--emulation) for telar-run --emulate. Registered as "cuda".
//
//===----------------------------------------------------------------------===//
#ifndef TELAR_TARGETS_CUDA_CUDATARGETBACKEND_H
#define TELAR_TARGETS_CUDA_CUDATARGETBACKEND_H

#include "telar/codegen/TargetBackend.h"
#include "telar/targets/cuda/CudaPipeline.h"

#include <memory>
#include <string>

namespace mlir::telar {

struct CudaTargetOptions {
  /// `--gpu=`: the GPU architecture (kCudaChips).
  std::string gpu = kDefaultCudaChip;
  /// `--emulation`: the host program with its kernels run on the CPU.
  bool emulation = false;
  /// `--dtype`: the compute type (kCudaDtypes; fp32, tf32 or bf16 so far).
  std::string dtype = "fp32";
};

std::unique_ptr<TargetBackend>
createCudaTargetBackend(const CudaTargetOptions &options = {});

/// Adds the "cuda" target (and its --gpu and --emulation flags) to the
/// registry.
void registerCudaTargetBackend();

} // namespace mlir::telar

#endif // TELAR_TARGETS_CUDA_CUDATARGETBACKEND_H
