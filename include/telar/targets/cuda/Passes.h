//===- Passes.h - Telar CUDA target passes ----------------------*- C++ -*-===//
#ifndef TELAR_TARGETS_CUDA_PASSES_H
#define TELAR_TARGETS_CUDA_PASSES_H

#include "telar/dialects/Telar/TelarDialect.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Pass/Pass.h"

namespace mlir::telar {

/// The names of a kernel's emulation in a kernel library
/// (telar-emulate-gpu{library}): the launcher running a whole grid, and the
/// exported entry point taking the runtime's argument slots
/// (telar-emulated-kernel-entries, abi/Gpu.h).
inline constexpr llvm::StringLiteral kEmulatedLauncherPrefix =
    "__telar_launch_";
inline constexpr llvm::StringLiteral kEmulatedEntryPrefix = "telar_emulated_";
/// The prefix of the host functions running a kernel's threads
/// (telar-emulate-gpu).
inline constexpr llvm::StringLiteral kEmulatedThreadPrefix =
    "__telar_emulated_";

#define GEN_PASS_DECL
#include "telar/targets/cuda/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "telar/targets/cuda/Passes.h.inc"

} // namespace mlir::telar

#endif // TELAR_TARGETS_CUDA_PASSES_H
