//===- LibdeviceToIntrinsics.cpp - libdevice calls as instructions --------===//

#include "telar/targets/cuda/Passes.h"

#include "llvm/ADT/StringSwitch.h"

namespace mlir::telar {
#define GEN_PASS_DEF_TELARLIBDEVICETOINTRINSICS
#include "telar/targets/cuda/Passes.h.inc"
} // namespace mlir::telar

using namespace mlir;

namespace {

/// The intrinsic that computes libdevice's `name`, built in place of
/// `call`, or null when there is none (the f32 functions end in 'f').
Value buildIntrinsic(OpBuilder &b, LLVM::CallOp call, StringRef name) {
  Type type = call.getResult().getType();
  if (!type.isF32() && !type.isF64())
    return {};
  if (type.isF32()) {
    if (!name.consume_back("f"))
      return {};
  }
  ValueRange args = call.getArgOperands();
  Location loc = call.getLoc();
  auto unary = [&](auto tag) -> Value {
    using Op = decltype(tag);
    return args.size() == 1 ? Op::create(b, loc, type, args[0]).getResult()
                            : Value();
  };
  if (name == "__nv_fma" && args.size() == 3)
    return LLVM::FMAOp::create(b, loc, type, args[0], args[1], args[2]);
  if (name == "__nv_copysign" && args.size() == 2)
    return LLVM::CopySignOp::create(b, loc, type, args[0], args[1]);
  if (name == "__nv_floor")
    return unary(LLVM::FFloorOp());
  if (name == "__nv_ceil")
    return unary(LLVM::FCeilOp());
  if (name == "__nv_trunc")
    return unary(LLVM::FTruncOp());
  if (name == "__nv_rint")
    return unary(LLVM::RoundEvenOp());
  if (name == "__nv_sqrt")
    return unary(LLVM::SqrtOp());
  if (name == "__nv_fabs")
    return unary(LLVM::FAbsOp());
  return {};
}

struct TelarLibdeviceToIntrinsics
    : public telar::impl::TelarLibdeviceToIntrinsicsBase<
          TelarLibdeviceToIntrinsics> {
  void runOnOperation() override {
    SmallVector<LLVM::CallOp> calls;
    getOperation().walk([&](LLVM::CallOp call) {
      std::optional<StringRef> callee = call.getCallee();
      if (callee && callee->starts_with("__nv_") && call.getNumResults() == 1)
        calls.push_back(call);
    });
    for (LLVM::CallOp call : calls) {
      OpBuilder b(call);
      if (Value v = buildIntrinsic(b, call, *call.getCallee())) {
        call.getResult().replaceAllUsesWith(v);
        call.erase();
      }
    }
    // Declarations nothing calls any more.
    SmallVector<LLVM::LLVMFuncOp> unused;
    for (auto fn : getOperation().getOps<LLVM::LLVMFuncOp>())
      if (fn.isExternal() && fn.getName().starts_with("__nv_") &&
          SymbolTable::symbolKnownUseEmpty(fn, getOperation()))
        unused.push_back(fn);
    for (LLVM::LLVMFuncOp fn : unused)
      fn.erase();
  }
};

} // namespace
