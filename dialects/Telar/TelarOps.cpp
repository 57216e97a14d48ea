//===- TelarOps.cpp - telar op definitions --------------------------------===//
//
// The ODS-generated op classes. Per-op C++ lives next to it by family:
// DataMovementOps.cpp, NNOps.cpp, Folders.cpp.
//
//===----------------------------------------------------------------------===//

#include "telar/dialects/Telar/TelarOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/OpImplementation.h"

using namespace mlir;
using namespace mlir::telar;

#include "telar/dialects/Telar/TelarInterfaces.cpp.inc"

#define GET_OP_CLASSES
#include "telar/dialects/Telar/TelarOps.cpp.inc"
