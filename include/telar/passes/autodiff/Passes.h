//===- Passes.h - Telar autodiff passes -------------------------*- C++ -*-===//
#ifndef TELAR_PASSES_AUTODIFF_PASSES_H
#define TELAR_PASSES_AUTODIFF_PASSES_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Pass/Pass.h"

#include <memory>

namespace mlir {
class DialectRegistry;
} // namespace mlir

namespace mlir::telar {

#define GEN_PASS_DECL
#include "telar/passes/autodiff/Passes.h.inc"

/// Attaches the telar ops' GradientOpInterface models (their VJPs, one file
/// per op family in passes/autodiff) to `registry`'s telar dialect.
void registerGradientInterfaces(DialectRegistry &registry);

#define GEN_PASS_REGISTRATION
#include "telar/passes/autodiff/Passes.h.inc"

} // namespace mlir::telar

#endif // TELAR_PASSES_AUTODIFF_PASSES_H
