//===- RuntimeContext.cpp - Thread the runtime context, check statuses ----===//
//
// The runtime ABI (docs/Artifact.md): a program's entry point gets a
// `TelarContext *` and returns a status; every runtime call takes the
// context, and a failed call makes the program return its status at once.
// telar-add-runtime-context adds the context argument and the status result
// (before the runtime calls are created); telar-lower-runtime-calls, on the
// LLVM dialect, gives the allocation calls the context, names the kernels'
// symbols and checks every fallible call.
//
//===----------------------------------------------------------------------===//

#include "telar/passes/abi/Passes.h"
#include "telar/passes/abi/RuntimeContext.h"
#include "telar/runtime/Abi.h"

#include "mlir/IR/SymbolTable.h"
#include "llvm/ADT/StringSwitch.h"

namespace mlir::telar {
#define GEN_PASS_DEF_TELARADDRUNTIMECONTEXT
#define GEN_PASS_DEF_TELARLOWERRUNTIMECALLS
#include "telar/passes/abi/Passes.h.inc"
} // namespace mlir::telar

using namespace mlir;
using telar::kRuntimeContextAttr;
using telar::kRuntimeStatusAttr;

namespace {


struct TelarAddRuntimeContext
    : public telar::impl::TelarAddRuntimeContextBase<TelarAddRuntimeContext> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    MLIRContext *ctx = &getContext();
    for (func::FuncOp fn : module.getOps<func::FuncOp>()) {
      if (fn.isExternal() || fn.isPrivate() || telar::getRuntimeContext(fn))
        continue;
      if (fn.getNumResults() != 0) {
        fn.emitError("a function given the runtime context must not have "
                     "results (its results are out-params by now)");
        return signalPassFailure();
      }
      if (!SymbolTable::symbolKnownUseEmpty(fn, module)) {
        fn.emitError("a function given the runtime context must not be "
                     "called inside the module");
        return signalPassFailure();
      }
      auto attrs = DictionaryAttr::get(
          ctx, {NamedAttribute(StringAttr::get(ctx, kRuntimeContextAttr),
                               UnitAttr::get(ctx))});
      Type i32 = IntegerType::get(ctx, 32);
      if (failed(fn.insertArgument(0, LLVM::LLVMPointerType::get(ctx), attrs,
                                   fn.getLoc())) ||
          failed(fn.insertResult(0, i32, DictionaryAttr())))
        return signalPassFailure();
      // Its only result is now a status; the outputs are out-params.
      fn->setAttr(kRuntimeStatusAttr, UnitAttr::get(ctx));
      fn.walk([&](func::ReturnOp ret) {
        OpBuilder b(ret);
        Value ok = arith::ConstantIntOp::create(b, ret.getLoc(), i32, 0);
        ret->setOperands(ok);
      });
    }
    if (failed(passContextToCallees(module)))
      signalPassFailure();
  }

  /// Calls of declarations whose argument is marked telar.runtime_context
  /// (created before the context existed, e.g. by telar-lower-collectives)
  /// get the caller's context in that argument.
  LogicalResult passContextToCallees(ModuleOp module) {
    SymbolTableCollection symbols;
    WalkResult result = module.walk([&](func::CallOp call) {
      auto callee = symbols.lookupNearestSymbolFrom<func::FuncOp>(
          call, call.getCalleeAttr());
      if (!callee)
        return WalkResult::advance();
      for (unsigned i = 0, e = callee.getNumArguments(); i < e; ++i) {
        if (!callee.getArgAttr(i, kRuntimeContextAttr))
          continue;
        auto fn = call->getParentOfType<func::FuncOp>();
        Value context = fn ? telar::getRuntimeContext(fn) : Value();
        if (!context) {
          call.emitError("calls '")
              << callee.getName()
              << "', which takes the runtime context, in a function without "
                 "one (only public functions get a context)";
          return WalkResult::interrupt();
        }
        call->setOperand(i, context);
      }
      return WalkResult::advance();
    });
    return failure(result.wasInterrupted());
  }
};

/// Which allocation function of finalize-memref-to-llvm's generic ones a
/// callee is, and the runtime's name for it.
StringRef runtimeAllocName(StringRef callee) {
  return llvm::StringSwitch<StringRef>(callee)
      .Case("_mlir_memref_to_llvm_alloc", "telarrt_alloc")
      .Case("_mlir_memref_to_llvm_aligned_alloc", "telarrt_aligned_alloc")
      .Case("_mlir_memref_to_llvm_free", "telarrt_free")
      .Default("");
}

struct TelarLowerRuntimeCalls
    : public telar::impl::TelarLowerRuntimeCallsBase<TelarLowerRuntimeCalls> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    if (failed(renameKernels(module)))
      return signalPassFailure();
    SmallVector<LLVM::LLVMFuncOp> fns(module.getOps<LLVM::LLVMFuncOp>());
    for (LLVM::LLVMFuncOp fn : fns)
      if (!fn.isExternal() && failed(lowerCalls(module, fn)))
        return signalPassFailure();
    // The marker has done its work; LLVM IR translation does not know it.
    // (Declarations mark the argument their callers pass the context in.)
    auto marker = StringAttr::get(&getContext(), kRuntimeContextAttr);
    for (LLVM::LLVMFuncOp fn : fns)
      for (unsigned i = 0, e = fn.getNumArguments(); i < e; ++i)
        if (fn.getArgAttr(i, marker))
          fn.removeArgAttr(i, marker);
    // The generic allocation functions are no longer called.
    for (StringRef name :
         {"_mlir_memref_to_llvm_alloc", "_mlir_memref_to_llvm_aligned_alloc",
          "_mlir_memref_to_llvm_free"})
      if (auto decl = module.lookupSymbol<LLVM::LLVMFuncOp>(name))
        if (SymbolTable::symbolKnownUseEmpty(decl, module))
          decl.erase();
  }

  /// `_mlir_ciface_telarrt_X` (the C interface the kernels implement)
  /// becomes `telarrt_X`, its unpacking wrapper `telarrt_X_unpacked`.
  LogicalResult renameKernels(ModuleOp module) {
    MLIRContext *ctx = &getContext();
    constexpr StringLiteral prefix = "_mlir_ciface_";
    SmallVector<LLVM::LLVMFuncOp> decls;
    for (LLVM::LLVMFuncOp fn : module.getOps<LLVM::LLVMFuncOp>())
      if (fn.isExternal() && fn.getName().starts_with("_mlir_ciface_telarrt_"))
        decls.push_back(fn);
    for (LLVM::LLVMFuncOp decl : decls) {
      std::string name = decl.getName().drop_front(prefix.size()).str();
      if (auto wrapper = module.lookupSymbol<LLVM::LLVMFuncOp>(name)) {
        auto unpacked = StringAttr::get(ctx, name + "_unpacked");
        if (failed(SymbolTable::replaceAllSymbolUses(wrapper, unpacked,
                                                     module)))
          return wrapper.emitError("cannot rename ") << name;
        wrapper.setSymName(unpacked);
      }
      if (failed(SymbolTable::replaceAllSymbolUses(
              decl, StringAttr::get(ctx, name), module)))
        return decl.emitError("cannot rename ") << decl.getName();
      decl.setSymName(name);
    }
    return success();
  }

  LLVM::LLVMFuncOp declare(ModuleOp module, StringRef name,
                           LLVM::LLVMFunctionType type) {
    if (auto fn = module.lookupSymbol<LLVM::LLVMFuncOp>(name))
      return fn;
    OpBuilder b = OpBuilder::atBlockBegin(module.getBody());
    return LLVM::LLVMFuncOp::create(b, module.getLoc(), name, type);
  }

  LogicalResult lowerCalls(ModuleOp module, LLVM::LLVMFuncOp fn) {
    MLIRContext *ctx = &getContext();
    Value context = telar::getRuntimeContext(fn);
    auto ptrTy = LLVM::LLVMPointerType::get(ctx);
    auto i32 = IntegerType::get(ctx, 32);

    // (call, whether it returns a pointer that is null on failure rather
    // than a status)
    SmallVector<std::pair<LLVM::CallOp, bool>> fallible;
    SmallVector<LLVM::CallOp> calls;
    fn.walk([&](LLVM::CallOp call) { calls.push_back(call); });
    for (LLVM::CallOp call : calls) {
      std::optional<StringRef> callee = call.getCallee();
      if (!callee)
        continue;
      StringRef runtimeName = runtimeAllocName(*callee);
      if (!runtimeName.empty()) {
        if (!context)
          return call.emitError("the runtime allocator needs the runtime "
                                "context, which '")
                 << fn.getName() << "' does not have";
        SmallVector<Value> args = {context};
        llvm::append_range(args, call.getArgOperands());
        SmallVector<Type> argTypes;
        for (Value v : args)
          argTypes.push_back(v.getType());
        Type result = call.getNumResults()
                          ? call.getResult().getType()
                          : LLVM::LLVMVoidType::get(ctx);
        LLVM::LLVMFuncOp decl = declare(
            module, runtimeName, LLVM::LLVMFunctionType::get(result, argTypes));
        OpBuilder b(call);
        auto replacement = LLVM::CallOp::create(b, call.getLoc(), decl, args);
        call->replaceAllUsesWith(replacement);
        call.erase();
        if (runtimeName != "telarrt_free")
          fallible.push_back({replacement, true});
        continue;
      }
      auto target = module.lookupSymbol<LLVM::LLVMFuncOp>(*callee);
      if (context && target && target->hasAttr(kRuntimeStatusAttr))
        fallible.push_back({call, false});
    }
    if (fallible.empty())
      return success();

    auto fnType = fn.getFunctionType();
    if (fnType.getReturnType() != i32)
      return fn.emitError("a function with a runtime context must return an "
                          "i32 status");
    // One block returns the status of the first failure.
    Block *failBlock = new Block();
    fn.getBody().push_back(failBlock);
    Value status = failBlock->addArgument(i32, fn.getLoc());
    OpBuilder b = OpBuilder::atBlockBegin(failBlock);
    LLVM::ReturnOp::create(b, fn.getLoc(), status);

    for (auto [call, returnsPointer] : fallible) {
      if (call->getParentOp() != fn)
        return call.emitError("a fallible runtime call inside a nested region "
                              "(e.g. an OpenMP parallel region) cannot "
                              "return its status");
      Location loc = call.getLoc();
      Block *before = call->getBlock();
      Block *after = before->splitBlock(std::next(call->getIterator()));
      b.setInsertionPointToEnd(before);
      Value failedCond, code;
      if (returnsPointer) {
        Value null = LLVM::ZeroOp::create(b, loc, ptrTy);
        failedCond = LLVM::ICmpOp::create(b, loc, LLVM::ICmpPredicate::eq,
                                          call.getResult(), null);
        code = LLVM::ConstantOp::create(b, loc, i32,
                                        int32_t(TELAR_STATUS_OUT_OF_MEMORY));
      } else {
        Value ok = LLVM::ConstantOp::create(b, loc, i32, 0);
        failedCond = LLVM::ICmpOp::create(b, loc, LLVM::ICmpPredicate::ne,
                                          call.getResult(), ok);
        code = call.getResult();
      }
      // Failure is the unlikely way.
      LLVM::CondBrOp::create(b, loc, failedCond, failBlock, ValueRange{code},
                             after, ValueRange{},
                             std::make_pair(uint32_t(1), uint32_t(2000)));
    }
    return success();
  }
};

} // namespace

func::FuncOp mlir::telar::declareRuntimeFunction(
    ModuleOp module, StringRef name, ArrayRef<Type> argsAfterContext) {
  if (auto fn = module.lookupSymbol<func::FuncOp>(name))
    return fn;
  OpBuilder b = OpBuilder::atBlockEnd(module.getBody());
  SmallVector<Type> args = {LLVM::LLVMPointerType::get(module.getContext())};
  llvm::append_range(args, argsAfterContext);
  auto fn = func::FuncOp::create(b, module.getLoc(), name,
                                 b.getFunctionType(args, {b.getI32Type()}));
  fn.setPrivate();
  fn.setArgAttr(0, kRuntimeContextAttr, b.getUnitAttr());
  fn->setAttr(kRuntimeStatusAttr, b.getUnitAttr());
  return fn;
}
