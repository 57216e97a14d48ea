//===- TelarOps.cpp - telar op definitions --------------------------------===//
//
// The ODS-generated op classes. Per-op C++ lives next to it by family:
// DataMovementOps.cpp, NNOps.cpp, Folders.cpp.
//
//===----------------------------------------------------------------------===//

#include "telar/dialects/Telar/TelarOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/OpImplementation.h"
#include "llvm/ADT/StringExtras.h"

using namespace mlir;
using namespace mlir::telar;

#include "telar/dialects/Telar/TelarInterfaces.cpp.inc"

std::string mlir::telar::weightKey(llvm::StringRef name) {
  std::string key;
  for (char c : name)
    key.push_back(llvm::isAlnum(c) || c == '_' || c == '.' ? c : '_');
  if (key.empty() || llvm::isDigit(key.front()) || key.front() == '.')
    key.insert(0, "w_");
  return key;
}

#define GET_OP_CLASSES
#include "telar/dialects/Telar/TelarOps.cpp.inc"
