//===- RuntimeContext.h - The runtime context in lowered IR -----*- C++ -*-===//
//
// How lowered programs carry the runtime ABI's context (docs/Artifact.md):
// a leading `!llvm.ptr` argument marked kRuntimeContextAttr, added by
// telar-add-runtime-context; runtime functions that return a status are
// marked kRuntimeStatusAttr.
//
//===----------------------------------------------------------------------===//
#ifndef TELAR_PASSES_ABI_RUNTIMECONTEXT_H
#define TELAR_PASSES_ABI_RUNTIMECONTEXT_H

#include "telar/dialects/Telar/TelarDialect.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Interfaces/FunctionInterfaces.h"

namespace mlir::telar {

/// Argument attribute (unit) of a function's runtime context argument.
inline constexpr llvm::StringLiteral kRuntimeContextAttr =
    TelarDialect::RuntimeContextAttrHelper::getNameStr();
/// Function attribute (unit) of runtime functions that return an i32
/// status (non-zero: failed, the message is in the context).
inline constexpr llvm::StringLiteral kRuntimeStatusAttr =
    TelarDialect::RuntimeStatusAttrHelper::getNameStr();

/// The runtime context argument of `fn`, or null.
inline Value getRuntimeContext(FunctionOpInterface fn) {
  if (fn.isExternal())
    return {};
  for (unsigned i = 0, e = fn.getNumArguments(); i < e; ++i)
    if (fn.getArgAttr(i, kRuntimeContextAttr))
      return fn.getArgument(i);
  return {};
}

/// The private declaration of runtime function `name` in `module` (made
/// once): the context (`!llvm.ptr`, marked kRuntimeContextAttr), then
/// `argsAfterContext`, returning an `i32` status (marked
/// kRuntimeStatusAttr, so telar-lower-runtime-calls checks it).
func::FuncOp declareRuntimeFunction(ModuleOp module, StringRef name,
                                    ArrayRef<Type> argsAfterContext);

} // namespace mlir::telar

#endif // TELAR_PASSES_ABI_RUNTIMECONTEXT_H
