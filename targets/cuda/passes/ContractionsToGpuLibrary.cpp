//===- ContractionsToGpuLibrary.cpp - Matmuls as the runtime's GEMM calls -===//
//
// A GPU program's matmuls and batched matmuls (f32, or bfloat16 into f32)
// go to the runtime's GEMM
// (abi/Gpu.h's telarrt_gpu_matmul_f32: cuBLASLt on a GPU, the CPU
// runtime's GEMM on the CUDA emulator) instead of a generated kernel of one
// thread per output element. The operands' layouts are static: the call
// gets each buffer's device address (its offset applied) and its batch,
// row and column strides in elements, so the runtime needs no descriptor.
// A matmul whose output was just zero-filled overwrites it (the fill
// goes); otherwise it accumulates, as the linalg op does (the bias a
// contraction's output was initialized with stays a kernel before it).
//
//===----------------------------------------------------------------------===//

#include "telar/passes/abi/RuntimeContext.h"
#include "telar/runtime/abi/Gpu.h"
#include "telar/targets/cuda/Passes.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace mlir::telar {
#define GEN_PASS_DEF_TELARCONTRACTIONSTOGPULIBRARY
#include "telar/targets/cuda/Passes.h.inc"
} // namespace mlir::telar

using namespace mlir;

namespace {

constexpr llvm::StringLiteral kMatmulFn = "telarrt_gpu_matmul_f32";

/// A matrix operand as the call passes it: its buffer and (batch, row,
/// column) strides in elements.
struct MatrixOperand {
  Value buffer;
  int64_t offset;
  std::array<int64_t, 3> strides;
  bool bf16;
};

/// The static layout of an f32 or bfloat16 buffer of rank 2 (no batch:
/// stride 0) or 3, or nothing.
std::optional<MatrixOperand> matrixOperand(Value v) {
  auto type = dyn_cast<MemRefType>(v.getType());
  if (!type || !type.hasStaticShape() ||
      !(type.getElementType().isF32() || type.getElementType().isBF16()) ||
      (type.getRank() != 2 && type.getRank() != 3))
    return std::nullopt;
  SmallVector<int64_t> strides;
  int64_t offset;
  if (failed(type.getStridesAndOffset(strides, offset)) ||
      ShapedType::isDynamic(offset) ||
      llvm::any_of(strides, ShapedType::isDynamic))
    return std::nullopt;
  if (strides.size() == 2)
    strides.insert(strides.begin(), 0);
  return MatrixOperand{v, offset, {strides[0], strides[1], strides[2]},
                       type.getElementType().isBF16()};
}

/// The op before `op` that touches `out` when it is a zero fill of exactly
/// `out` (ops without memory effects between are skipped), else null.
linalg::FillOp zeroFillBefore(Operation *op, Value out) {
  for (Operation *prev = op->getPrevNode(); prev; prev = prev->getPrevNode()) {
    if (auto fill = dyn_cast<linalg::FillOp>(prev)) {
      if (fill.hasPureBufferSemantics() && fill.getOutputs().size() == 1 &&
          fill.getOutputs()[0] == out)
        return matchPattern(fill.getInputs()[0], m_AnyZeroFloat()) ? fill
                                                                   : nullptr;
    }
    if (isMemoryEffectFree(prev))
      continue;
    return nullptr; // may write `out` (or a view of it)
  }
  return nullptr;
}

/// The buffer's device address with its static offset applied, as a
/// pointer.
Value addressOf(OpBuilder &b, Location loc, const MatrixOperand &m) {
  Value index =
      memref::ExtractAlignedPointerAsIndexOp::create(b, loc, m.buffer);
  Value bits = arith::IndexCastOp::create(b, loc, b.getI64Type(), index);
  if (m.offset != 0)
    bits = arith::AddIOp::create(
        b, loc, bits,
        arith::ConstantOp::create(
            b, loc, b.getI64IntegerAttr(m.offset * (m.bf16 ? 2 : 4))));
  return LLVM::IntToPtrOp::create(b, loc, LLVM::LLVMPointerType::get(
                                              b.getContext()),
                                  bits);
}

struct TelarContractionsToGpuLibrary
    : public telar::impl::TelarContractionsToGpuLibraryBase<
          TelarContractionsToGpuLibrary> {
  using Base::Base;

  void runOnOperation() override {
    func::FuncOp fn = getOperation();
    SmallVector<linalg::LinalgOp> ops;
    fn.walk([&](linalg::LinalgOp op) {
      if (!op.hasPureBufferSemantics())
        return;
      if (auto mm = dyn_cast<linalg::MatmulOp>(op.getOperation());
          mm && !mm.hasUserDefinedMaps())
        ops.push_back(op);
      if (auto bmm = dyn_cast<linalg::BatchMatmulOp>(op.getOperation());
          bmm && !bmm.hasUserDefinedMaps())
        ops.push_back(op);
    });
    if (ops.empty())
      return;
    Value context = telar::getRuntimeContext(fn);
    if (!context) {
      ops.front().emitError("a GPU library call needs the enclosing "
                            "function's runtime context (run "
                            "telar-add-runtime-context first)");
      return signalPassFailure();
    }
    MLIRContext *ctx = &getContext();
    Type i64 = IntegerType::get(ctx, 64);
    Type ptr = LLVM::LLVMPointerType::get(ctx);
    auto module = fn->getParentOfType<ModuleOp>();
    for (linalg::LinalgOp op : ops) {
      std::optional<MatrixOperand> a = matrixOperand(op->getOperand(0));
      std::optional<MatrixOperand> b = matrixOperand(op->getOperand(1));
      std::optional<MatrixOperand> c = matrixOperand(op->getOperand(2));
      // f32 or bfloat16 inputs (both), into f32.
      if (!a || !b || !c || a->bf16 != b->bf16 || c->bf16)
        continue;
      ArrayRef<int64_t> shapeA = cast<MemRefType>(a->buffer.getType()).getShape();
      ArrayRef<int64_t> shapeC = cast<MemRefType>(c->buffer.getType()).getShape();
      int64_t batch = shapeC.size() == 3 ? shapeC[0] : 1;
      int64_t m = shapeC[shapeC.size() - 2], n = shapeC.back();
      int64_t k = shapeA.back();
      // Flops below which a kernel launch of ours is as good.
      if (2 * batch * m * n * k < minFlops)
        continue;
      // The runtime's rule (abi/Gpu.h).
      if (!telarrt_gpu_gemm_operand_ok(m, k, a->strides[1], a->strides[2]) ||
          !telarrt_gpu_gemm_operand_ok(k, n, b->strides[1], b->strides[2]) ||
          !(c->strides[2] == 1 || n == 1) || !(m == 1 || c->strides[1] >= n))
        continue;

      int64_t flags = TELAR_GPU_ACCUMULATE;
      linalg::FillOp fill = zeroFillBefore(op, c->buffer);
      if (fill) {
        flags = 0;
        fill->erase();
      }
      if (tf32)
        flags |= TELAR_GPU_TF32;
      if (a->bf16)
        flags |= TELAR_GPU_BF16;
      OpBuilder builder(op);
      Location loc = op.getLoc();
      SmallVector<Value> args = {context, addressOf(builder, loc, *a),
                                 addressOf(builder, loc, *b),
                                 addressOf(builder, loc, *c)};
      DenseMap<int64_t, Value> constants; // each value once
      auto constant = [&](int64_t v) -> Value {
        Value &c = constants[v];
        if (!c)
          c = arith::ConstantOp::create(builder, loc,
                                        builder.getI64IntegerAttr(v));
        return c;
      };
      for (int64_t v : {batch, m, n, k})
        args.push_back(constant(v));
      for (const MatrixOperand *operand : {&*a, &*b, &*c})
        for (int64_t stride : operand->strides)
          args.push_back(constant(stride));
      args.push_back(constant(flags));
      SmallVector<Type> types = {ptr, ptr, ptr};
      types.append(4 + 9 + 1, i64);
      func::FuncOp callee =
          telar::declareRuntimeFunction(module, kMatmulFn, types);
      func::CallOp::create(builder, loc, callee, args);
      op->erase();
    }
  }
};

} // namespace
