//===- TelarDialect.cpp - The telar graph dialect -------------------------===//

#include "telar/dialects/Telar/TelarDialect.h"
#include "telar/dialects/Telar/TelarOps.h"

using namespace mlir;
using namespace mlir::telar;

#include "telar/dialects/Telar/TelarDialect.cpp.inc"

void TelarDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "telar/dialects/Telar/TelarOps.cpp.inc"
      >();
  registerAttributes();
}

Operation *TelarDialect::materializeConstant(OpBuilder &builder,
                                             Attribute value, Type type,
                                             Location loc) {
  auto elements = dyn_cast<ElementsAttr>(value);
  if (!elements || elements.getType() != type)
    return nullptr;
  return ConstantOp::create(builder, loc, elements);
}
