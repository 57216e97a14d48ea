//===- Passes.h - Telar passes ----------------------------------*- C++ -*-===//
#ifndef TELAR_PASSES_PASSES_H
#define TELAR_PASSES_PASSES_H

#include "mlir/Pass/Pass.h"

namespace mlir::telar {

#define GEN_PASS_DECL
#include "telar/passes/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "telar/passes/Passes.h.inc"

} // namespace mlir::telar

#endif // TELAR_PASSES_PASSES_H
