//===- LinalgToLibraryCalls.cpp - Contractions become runtime calls -------===//
//
// Large f32 matmuls and convolutions go to the runtime's GEMM kernels:
// generated loops ran the benchmark GPT 2-3x and ResNet-18 over 10x slower
// (bench/cpu_vs_onnxruntime --telarc-arg=--library-calls=false); the
// runtime's GEMM reaches ~220 GFLOP/s a core here. Operands are cast to
// fully dynamic strided memrefs so one runtime entry point serves every
// shape; the callee gets memref descriptors through MLIR's C interface
// (`_mlir_ciface_<name>`, which telar-lower-runtime-calls names
// `telarrt_<name>`), after the function's runtime context, and returns a
// status. A trailing `flags` (TELAR_KERNEL_* in Abi.h) says whether the call
// adds to its output (as the linalg op does) or overwrites it: the latter
// when the output was just zero-filled, whose fill then goes.
//
//===----------------------------------------------------------------------===//

#include "telar/passes/lowering/Passes.h"
#include "telar/passes/lowering/RuntimeContext.h"

#include "telar/runtime/Abi.h"

#include "mlir/Dialect/Linalg/IR/LinalgInterfaces.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Interfaces/ViewLikeInterface.h"

namespace mlir::telar {
#define GEN_PASS_DEF_TELARLINALGTOLIBRARYCALLS
#include "telar/passes/lowering/Passes.h.inc"
} // namespace mlir::telar

using namespace mlir;

namespace {

/// memref<?x...x?xf32, strided<[?, ...], offset: ?>> of the given rank.
MemRefType dynamicStridedType(MLIRContext *ctx, int64_t rank, Type element) {
  SmallVector<int64_t> shape(rank, ShapedType::kDynamic);
  SmallVector<int64_t> strides(rank, ShapedType::kDynamic);
  auto layout =
      StridedLayoutAttr::get(ctx, ShapedType::kDynamic, strides);
  return MemRefType::get(shape, element, layout);
}

bool isF32Memref(Value v) {
  auto t = dyn_cast<MemRefType>(v.getType());
  return t && t.getElementType().isF32() && t.hasStaticShape();
}

/// Declares (once) `name` taking the given operand types and returning an
/// i32 status, with the C interface so the runtime receives descriptor
/// pointers.
func::FuncOp declareCallee(ModuleOp module, StringRef name,
                           TypeRange argTypes) {
  if (auto f = module.lookupSymbol<func::FuncOp>(name))
    return f;
  OpBuilder b = OpBuilder::atBlockEnd(module.getBody());
  auto fn = func::FuncOp::create(
      b, module.getLoc(), name,
      b.getFunctionType(argTypes, {b.getI32Type()}));
  fn.setPrivate();
  fn->setAttr("llvm.emit_c_interface", b.getUnitAttr());
  fn->setAttr(telar::kRuntimeStatusAttr, b.getUnitAttr());
  return fn;
}

/// The views of `root` (results of view-like ops on it, transitively) and
/// `root` itself.
void collectAliases(Value root, llvm::SmallPtrSetImpl<Value> &aliases) {
  SmallVector<Value> work = {root};
  while (!work.empty()) {
    Value v = work.pop_back_val();
    if (!aliases.insert(v).second)
      continue;
    for (Operation *user : v.getUsers())
      if (auto view = dyn_cast<ViewLikeOpInterface>(user))
        if (view.getViewSource() == v)
          for (Value r : user->getResults())
            work.push_back(r);
  }
}

/// The `linalg.fill` of zero that `op`'s output buffer got just before `op`
/// (in the same block, nothing touching the buffer or a view of it in
/// between), which `op` may overwrite instead of adding to; else null. The
/// buffer must be an allocation or a function argument, whose aliases are
/// all SSA views of it (not a global, which get_global may alias).
linalg::FillOp zeroFillBefore(linalg::LinalgOp op) {
  if (op.getNumDpsInits() != 1)
    return nullptr;
  Value out = op.getDpsInitOperand(0)->get();
  // The buffer the output views, and every view of it.
  Value root = out;
  while (auto view = root.getDefiningOp<ViewLikeOpInterface>())
    root = view.getViewSource();
  auto arg = dyn_cast<BlockArgument>(root);
  bool functionArgument =
      arg && arg.getOwner()->isEntryBlock() &&
      isa<FunctionOpInterface>(arg.getOwner()->getParentOp());
  if (!functionArgument && !root.getDefiningOp<memref::AllocOp>() &&
      !root.getDefiningOp<memref::AllocaOp>())
    return nullptr;
  llvm::SmallPtrSet<Value, 8> aliases;
  collectAliases(root, aliases);
  for (Operation *prev = op->getPrevNode(); prev; prev = prev->getPrevNode()) {
    if (auto fill = dyn_cast<linalg::FillOp>(prev)) {
      if (fill.hasPureBufferSemantics() && fill.getOutputs().size() == 1 &&
          fill.getOutputs()[0] == out) {
        // -0.0 too: the product never is -0.0 where 0 + product is not
        // itself (the kernels' sums start from +0.0).
        if (matchPattern(fill.getInputs()[0], m_AnyZeroFloat()))
          return fill;
        return nullptr;
      }
    }
    // Anything else in between must not touch the buffer: free of memory
    // effects, or with none of its operands (or regions' captures) a view
    // of it.
    if (isMemoryEffectFree(prev))
      continue;
    bool touches = false;
    prev->walk([&](Operation *nested) {
      for (Value v : nested->getOperands())
        if (aliases.contains(v))
          touches = true;
    });
    if (touches)
      return nullptr;
  }
  return nullptr;
}

void replaceWithCall(linalg::LinalgOp op, Value context, StringRef callee,
                     ArrayRef<int64_t> intArgs) {
  ModuleOp module = op->getParentOfType<ModuleOp>();
  OpBuilder b(op);
  Location loc = op.getLoc();
  SmallVector<Value> args = {context};
  SmallVector<Type> types = {context.getType()};
  for (Value v : op->getOperands()) {
    auto t = cast<MemRefType>(v.getType());
    auto dyn = dynamicStridedType(b.getContext(), t.getRank(),
                                  t.getElementType());
    args.push_back(memref::CastOp::create(b, loc, dyn, v));
    types.push_back(dyn);
  }
  for (int64_t i : intArgs) {
    args.push_back(arith::ConstantOp::create(b, loc, b.getI64IntegerAttr(i)));
    types.push_back(b.getI64Type());
  }
  func::FuncOp fn = declareCallee(module, callee, types);
  func::CallOp::create(b, loc, fn, args);
  op->erase();
}

int64_t product(ArrayRef<int64_t> v) {
  int64_t p = 1;
  for (int64_t x : v)
    p *= x;
  return p;
}

struct TelarLinalgToLibraryCalls
    : public telar::impl::TelarLinalgToLibraryCallsBase<
          TelarLinalgToLibraryCalls> {
  using Base::Base;
  void runOnOperation() override {
    SmallVector<linalg::LinalgOp> matmuls, batchMatmuls, convs;
    bool missingContext = false;
    getOperation().walk([&](linalg::LinalgOp op) {
      if (!op.hasPureBufferSemantics() ||
          !llvm::all_of(op->getOperands(), isF32Memref))
        return;
      if (auto mm = dyn_cast<linalg::MatmulOp>(op.getOperation())) {
        if (!mm.hasUserDefinedMaps() && work(op) >= minFlops)
          matmuls.push_back(op);
      } else if (auto bmm =
                     dyn_cast<linalg::BatchMatmulOp>(op.getOperation())) {
        if (!bmm.hasUserDefinedMaps() && work(op) >= minFlops)
          batchMatmuls.push_back(op);
      } else if (isa<linalg::Conv2DNchwFchwOp>(op.getOperation())) {
        if (work(op) >= minFlops)
          convs.push_back(op);
      }
    });
    auto contextOf = [&](linalg::LinalgOp op) -> Value {
      auto fn = op->getParentOfType<FunctionOpInterface>();
      Value context = fn ? telar::getRuntimeContext(fn) : Value();
      if (!context && !missingContext) {
        op.emitError("a runtime call needs the enclosing function's runtime "
                     "context (run telar-add-runtime-context first)");
        missingContext = true;
      }
      return context;
    };
    for (auto *list : {&matmuls, &batchMatmuls, &convs})
      for (linalg::LinalgOp op : *list)
        contextOf(op);
    if (missingContext)
      return signalPassFailure();
    for (linalg::LinalgOp op : matmuls)
      replaceWithCall(op, contextOf(op), "telarrt_matmul_f32",
                      {overwriteFlags(op)});
    for (linalg::LinalgOp op : batchMatmuls)
      replaceWithCall(op, contextOf(op), "telarrt_batch_matmul_f32",
                      {overwriteFlags(op)});
    for (linalg::LinalgOp op : convs) {
      auto conv = cast<linalg::Conv2DNchwFchwOp>(op.getOperation());
      SmallVector<int64_t> args;
      for (APInt s : conv.getStrides().getValues<APInt>())
        args.push_back(s.getSExtValue());
      for (APInt d : conv.getDilations().getValues<APInt>())
        args.push_back(d.getSExtValue());
      // Padding (top, left): the input comes padded.
      args.push_back(0);
      args.push_back(0);
      args.push_back(overwriteFlags(op));
      replaceWithCall(op, contextOf(op), "telarrt_conv2d_nchw_f32", args);
    }
  }

  /// The call's flags: overwrite the output (and erase its fill) when it
  /// was just zero-filled, else accumulate into it as the linalg op does.
  static int64_t overwriteFlags(linalg::LinalgOp op) {
    if (linalg::FillOp fill = zeroFillBefore(op)) {
      fill->erase();
      return 0;
    }
    return TELAR_KERNEL_ACCUMULATE;
  }

  /// Multiply-adds of a contraction: the product of all loop ranges.
  static int64_t work(linalg::LinalgOp op) {
    return product(op.getStaticLoopRanges());
  }
};

} // namespace
