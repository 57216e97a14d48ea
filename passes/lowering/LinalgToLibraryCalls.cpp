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
// status.
//
//===----------------------------------------------------------------------===//

#include "telar/passes/lowering/Passes.h"
#include "telar/passes/lowering/RuntimeContext.h"

#include "mlir/Dialect/Linalg/IR/LinalgInterfaces.h"
#include "mlir/IR/SymbolTable.h"

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
      replaceWithCall(op, contextOf(op), "telarrt_matmul_f32", {});
    for (linalg::LinalgOp op : batchMatmuls)
      replaceWithCall(op, contextOf(op), "telarrt_batch_matmul_f32", {});
    for (linalg::LinalgOp op : convs) {
      auto conv = cast<linalg::Conv2DNchwFchwOp>(op.getOperation());
      SmallVector<int64_t> args;
      for (APInt s : conv.getStrides().getValues<APInt>())
        args.push_back(s.getSExtValue());
      for (APInt d : conv.getDilations().getValues<APInt>())
        args.push_back(d.getSExtValue());
      replaceWithCall(op, contextOf(op), "telarrt_conv2d_nchw_f32", args);
    }
  }

  /// Multiply-adds of a contraction: the product of all loop ranges.
  static int64_t work(linalg::LinalgOp op) {
    return product(op.getStaticLoopRanges());
  }
};

} // namespace
