//===- TestPasses.h - Telar's test passes -----------------------*- C++ -*-===//
//
// Passes that print analyses as remarks for lit tests. Registered by
// telar-opt only: no production library or tool links them.
//
//===----------------------------------------------------------------------===//
#ifndef TELAR_TEST_TESTPASSES_H
#define TELAR_TEST_TESTPASSES_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Pass/Pass.h"

namespace mlir::telar {

#define GEN_PASS_DECL
#include "TestPasses.h.inc"

#define GEN_PASS_REGISTRATION
#include "TestPasses.h.inc"

} // namespace mlir::telar

#endif // TELAR_TEST_TESTPASSES_H
