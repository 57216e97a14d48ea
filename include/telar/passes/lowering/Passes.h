//===- Passes.h - Telar lowering passes -------------------------*- C++ -*-===//
#ifndef TELAR_PASSES_LOWERING_PASSES_H
#define TELAR_PASSES_LOWERING_PASSES_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Pass/Pass.h"

namespace mlir::telar {

#define GEN_PASS_DECL
#include "telar/passes/lowering/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "telar/passes/lowering/Passes.h.inc"

} // namespace mlir::telar

#endif // TELAR_PASSES_LOWERING_PASSES_H
