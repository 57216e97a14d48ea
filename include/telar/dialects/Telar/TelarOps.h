//===- TelarOps.h - telar graph ops -----------------------------*- C++ -*-===//
#ifndef TELAR_DIALECTS_TELAR_TELAROPS_H
#define TELAR_DIALECTS_TELAR_TELAROPS_H

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "telar/dialects/Telar/ShapeInference.h"
#include "telar/dialects/Telar/ShardingRule.h"
#include "telar/dialects/Telar/TelarAttrs.h"
#include "telar/dialects/Telar/TelarDialect.h"

#include "telar/dialects/Telar/TelarInterfaces.h.inc"

#define GET_OP_CLASSES
#include "telar/dialects/Telar/TelarOps.h.inc"

namespace mlir::telar {
/// While alive, the telar ops' folders on this thread take dense constant
/// operands and results of up to `elements` elements, instead of the
/// kDefaultElements that keep import-time folding to shape math.
class FoldLimitScope {
public:
  static constexpr int64_t kDefaultElements = 4096;
  explicit FoldLimitScope(int64_t elements);
  ~FoldLimitScope();
  FoldLimitScope(const FoldLimitScope &) = delete;
  FoldLimitScope &operator=(const FoldLimitScope &) = delete;

private:
  int64_t saved;
};

/// The resource (weight) key for an ONNX value name: letters, digits, '_'
/// and '.' kept, anything else '_', and "w_" in front when it would be
/// empty or start with a digit or '.'.
std::string weightKey(llvm::StringRef name);

/// `value` as a weight resource named weightKey(`name`) (a copy of its
/// elements, a splat expanded); a resource already is returned as is.
/// Integer, float and complex elements only (not i1).
ElementsAttr toWeightResource(ElementsAttr value, llvm::StringRef name);
} // namespace mlir::telar

#endif // TELAR_DIALECTS_TELAR_TELAROPS_H
