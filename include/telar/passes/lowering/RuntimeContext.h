//===- RuntimeContext.h - The runtime context in lowered IR -----*- C++ -*-===//
//
// How lowered programs carry the runtime ABI's context (docs/Artifact.md):
// a leading `!llvm.ptr` argument marked kRuntimeContextAttr, added by
// telar-add-runtime-context; runtime functions that return a status are
// marked kRuntimeStatusAttr.
//
//===----------------------------------------------------------------------===//
#ifndef TELAR_PASSES_LOWERING_RUNTIMECONTEXT_H
#define TELAR_PASSES_LOWERING_RUNTIMECONTEXT_H

#include "mlir/Interfaces/FunctionInterfaces.h"

namespace mlir::telar {

/// Argument attribute (unit) of a function's runtime context argument.
inline constexpr char kRuntimeContextAttr[] = "telar.runtime_context";
/// Function attribute (unit) of runtime functions that return an i32
/// status (non-zero: failed, the message is in the context).
inline constexpr char kRuntimeStatusAttr[] = "telar.runtime_status";

/// The runtime context argument of `fn`, or null.
inline Value getRuntimeContext(FunctionOpInterface fn) {
  if (fn.isExternal())
    return {};
  for (unsigned i = 0, e = fn.getNumArguments(); i < e; ++i)
    if (fn.getArgAttr(i, kRuntimeContextAttr))
      return fn.getArgument(i);
  return {};
}

} // namespace mlir::telar

#endif // TELAR_PASSES_LOWERING_RUNTIMECONTEXT_H
