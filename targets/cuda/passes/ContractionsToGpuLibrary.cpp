//===- ContractionsToGpuLibrary.cpp - Matmuls as the runtime's GEMM calls -===//
//
// A GPU program's matmuls and batched matmuls (f32, or bfloat16 into f32)
// go to the runtime's GEMM (abi/Gpu.h's telarrt_gpu_matmul_f32: cuBLASLt
// on a GPU, the CPU runtime's GEMM on the CUDA emulator) instead of a
// generated kernel of one thread per output element. The operands'
// layouts are static: the call gets each buffer's device address (its
// offset applied) and its batch, row and column strides in elements, so
// the runtime needs no descriptor. A matmul whose output was just
// zero-filled overwrites it (the fill goes); one whose output was just
// filled with a Linear's bias gets it in the GEMM's epilogue
// (telarrt_gpu_matmul_bias_f32; the broadcast goes); otherwise it
// accumulates, as the linalg op does.
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
constexpr llvm::StringLiteral kMatmulBiasFn = "telarrt_gpu_matmul_bias_f32";

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

/// `v` through reshaping views (collapse, expand) to the buffer they view.
Value viewedBuffer(Value v) {
  while (Operation *def = v.getDefiningOp()) {
    if (!isa<memref::CollapseShapeOp, memref::ExpandShapeOp>(def))
      break;
    v = def->getOperand(0);
  }
  return v;
}

/// What a product's output held before it: what the GEMM call can take
/// over (zeros: it overwrites; a bias along the rows: its epilogue adds
/// it), and the ops it then replaces.
struct OutputInit {
  enum Kind { Unknown, Zero, Bias } kind = Unknown;
  /// Kind::Bias: the f32 vector, one value per column.
  Value bias;
  SmallVector<Operation *> replaced;
};

/// How `writer` fills all of `buffer`: zeros (a fill, or a generic
/// yielding a zero constant), a contiguous f32 vector of n broadcast along
/// its last dimension (a Linear's bias), or Unknown.
OutputInit classifyWriter(Operation *writer, Value buffer, int64_t n) {
  OutputInit init;
  if (auto fill = dyn_cast<linalg::FillOp>(writer)) {
    if (fill.hasPureBufferSemantics() && fill.getOutputs().size() == 1 &&
        fill.getOutputs()[0] == buffer &&
        matchPattern(fill.getInputs()[0], m_AnyZeroFloat()))
      init.kind = OutputInit::Zero;
    return init;
  }
  auto generic = dyn_cast<linalg::GenericOp>(writer);
  if (!generic || !generic.hasPureBufferSemantics() ||
      generic.getNumDpsInits() != 1 || generic.getDpsInits()[0] != buffer ||
      generic.getNumParallelLoops() != generic.getNumLoops() ||
      generic.getNumDpsInputs() > 1)
    return init;
  SmallVector<AffineMap> maps = generic.getIndexingMapsArray();
  Block &body = *generic.getBody();
  Value yielded = body.getTerminator()->getOperand(0);
  if (!maps.back().isIdentity() || body.getOperations().size() != 1)
    return init;
  if (generic.getNumDpsInputs() == 0) {
    if (matchPattern(yielded, m_AnyZeroFloat()))
      init.kind = OutputInit::Zero;
    return init;
  }
  unsigned loops = generic.getNumLoops();
  auto vector = dyn_cast<MemRefType>(generic.getDpsInputs()[0].getType());
  if (yielded == body.getArgument(0) && vector &&
      vector.getElementType().isF32() && vector.hasStaticShape() &&
      vector.getRank() == 1 && vector.getDimSize(0) == n &&
      vector.getLayout().isIdentity() &&
      maps[0] == AffineMap::get(loops, 0,
                                getAffineDimExpr(loops - 1,
                                                 writer->getContext()))) {
    init.kind = OutputInit::Bias;
    init.bias = generic.getDpsInputs()[0];
  }
  return init;
}

/// The ops that write `buffer` or read it, through its reshaping views.
void collectAccesses(Value buffer, SmallVectorImpl<Operation *> &writers,
                     SmallVectorImpl<Operation *> &readers) {
  for (OpOperand &use : buffer.getUses()) {
    Operation *user = use.getOwner();
    if (isa<memref::CollapseShapeOp, memref::ExpandShapeOp>(user)) {
      collectAccesses(user->getResult(0), writers, readers);
    } else if (isa<memref::DeallocOp>(user)) {
      continue;
    } else if (auto copy = dyn_cast<memref::CopyOp>(user)) {
      (use.get() == copy.getTarget() ? writers : readers).push_back(user);
    } else if (auto linalgOp = dyn_cast<linalg::LinalgOp>(user);
               linalgOp && linalgOp.isDpsInit(&use)) {
      writers.push_back(user);
    } else {
      readers.push_back(user); // a linalg input, or anything else
    }
  }
}

/// What the output `out` of `op` (n columns) holds when `op` runs, as
/// written by the last op before it that touches memory: in place, or by a
/// copy of a buffer written once (bufferization copies an init several
/// products share). A writer nothing else reads goes with the copy.
OutputInit outputInitBefore(Operation *op, Value out, int64_t n) {
  Operation *prev = op->getPrevNode();
  while (prev && isMemoryEffectFree(prev))
    prev = prev->getPrevNode();
  if (!prev)
    return {};
  Value root = viewedBuffer(out);
  if (auto copy = dyn_cast<memref::CopyOp>(prev)) {
    if (copy.getTarget() != out)
      return {};
    // The one write of the source before the copy (others may follow).
    Value source = viewedBuffer(copy.getSource());
    SmallVector<Operation *> writers, readers;
    collectAccesses(source, writers, readers);
    Operation *writer = nullptr;
    for (Operation *w : writers) {
      if (w->getBlock() != copy->getBlock())
        return {};
      if (w->isBeforeInBlock(copy)) {
        if (writer)
          return {};
        writer = w;
      }
    }
    if (!writer)
      return {};
    OutputInit init = classifyWriter(writer, source, n);
    if (init.kind == OutputInit::Unknown)
      return {};
    init.replaced.push_back(copy);
    if (writers.size() == 1 && readers.size() == 1)
      init.replaced.push_back(writer);
    return init;
  }
  OutputInit init = classifyWriter(prev, root, n);
  if (init.kind != OutputInit::Unknown)
    init.replaced.push_back(prev);
  return init;
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

      // Zeros before: the call overwrites; a bias (not batched): its
      // epilogue adds it; else it accumulates into what is there.
      int64_t flags = TELAR_GPU_ACCUMULATE;
      Value bias;
      OutputInit init = outputInitBefore(op, c->buffer, n);
      if (init.kind == OutputInit::Zero ||
          (init.kind == OutputInit::Bias && batch == 1)) {
        flags = 0;
        bias = init.bias;
        for (Operation *replaced : init.replaced)
          replaced->erase();
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
      if (bias)
        args.push_back(
            addressOf(builder, loc, MatrixOperand{bias, 0, {}, false}));
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
      SmallVector<Type> types(bias ? 4 : 3, ptr);
      types.append(4 + 9 + 1, i64);
      func::FuncOp callee = telar::declareRuntimeFunction(
          module, bias ? kMatmulBiasFn : kMatmulFn, types);
      func::CallOp::create(builder, loc, callee, args);
      op->erase();
    }
  }
};

} // namespace
