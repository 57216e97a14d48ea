//===- Passes.h - Telar CPU target passes -----------------------*- C++ -*-===//
#ifndef TELAR_TARGETS_CPU_PASSES_H
#define TELAR_TARGETS_CPU_PASSES_H

#include "telar/targets/cpu/ParallelWork.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Pass/Pass.h"

namespace mlir::telar {

#define GEN_PASS_DECL
#include "telar/targets/cpu/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "telar/targets/cpu/Passes.h.inc"

} // namespace mlir::telar

#endif // TELAR_TARGETS_CPU_PASSES_H
