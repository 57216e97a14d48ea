//===- TelarOps.cpp - telar op definitions --------------------------------===//
//
// The ODS-generated op classes. Per-op C++ lives next to it by family:
// DataMovementOps.cpp, NNOps.cpp, Folders.cpp.
//
//===----------------------------------------------------------------------===//

#include "telar/dialects/Telar/TelarOps.h"

#include "mlir/IR/DialectResourceBlobManager.h"

#include <cstring>

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

ElementsAttr mlir::telar::toWeightResource(ElementsAttr value,
                                           llvm::StringRef name) {
  if (isa<DenseResourceElementsAttr>(value))
    return value;
  auto dense = cast<DenseElementsAttr>(value);
  auto type = cast<ShapedType>(dense.getType());
  ArrayRef<char> raw = dense.getRawData();
  int64_t count = type.getNumElements();
  size_t elementBytes = count ? raw.size() / (dense.isSplat() ? 1 : count) : 0;
  auto blob = HeapAsmResourceBlob::allocate(elementBytes * count, 64,
                                            /*dataIsMutable=*/true);
  MutableArrayRef<char> bytes = blob.getMutableData();
  if (dense.isSplat())
    for (int64_t i = 0; i < count; ++i)
      std::memcpy(bytes.data() + i * elementBytes, raw.data(), elementBytes);
  else
    std::memcpy(bytes.data(), raw.data(), raw.size());
  return DenseResourceElementsAttr::get(type, weightKey(name), std::move(blob));
}

LogicalResult mlir::telar::VariableOp::verify() {
  if (getName().empty())
    return emitOpError("needs a name");
  return success();
}

#define GET_OP_CLASSES
#include "telar/dialects/Telar/TelarOps.cpp.inc"
