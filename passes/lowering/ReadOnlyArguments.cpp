//===- ReadOnlyArguments.cpp - Inputs and weights are read-only -----------===//

#include "telar/passes/lowering/Passes.h"

namespace mlir::telar {
#define GEN_PASS_DEF_TELARREADONLYARGUMENTS
#include "telar/passes/lowering/Passes.h.inc"
} // namespace mlir::telar

using namespace mlir;

namespace {
struct TelarReadOnlyArguments
    : public telar::impl::TelarReadOnlyArgumentsBase<TelarReadOnlyArguments> {
  void runOnOperation() override {
    BoolAttr no = BoolAttr::get(&getContext(), false);
    getOperation().walk([&](func::FuncOp fn) {
      if (fn.isExternal())
        return;
      for (unsigned i = 0; i < fn.getNumArguments(); ++i)
        if (isa<TensorType>(fn.getArgument(i).getType()))
          fn.setArgAttr(i, "bufferization.writable", no);
    });
  }
};
} // namespace
