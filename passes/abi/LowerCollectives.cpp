//===- LowerCollectives.cpp - Shard collectives become runtime calls ------===//
//
// A partitioned program communicates through shard collectives on local
// tensors; the runtime implements them behind the collective C ABI of
// include/telar/runtime/Abi.h. This pass, on tensors before bufferization,
// replaces each collective by a call of that ABI on contiguous buffers
// (the pass description in Passes.td has the details). The calls take the
// program's context, which does not exist yet: they pass a placeholder
// that telar-add-runtime-context replaces.
//
//===----------------------------------------------------------------------===//

#include "telar/passes/abi/Passes.h"
#include "telar/passes/abi/RuntimeContext.h"
#include "telar/runtime/Abi.h"

#include "mlir/Dialect/Shard/IR/ShardOps.h"
#include "mlir/IR/SymbolTable.h"

namespace mlir::telar {
#define GEN_PASS_DEF_TELARLOWERCOLLECTIVES
#include "telar/passes/abi/Passes.h.inc"
} // namespace mlir::telar

using namespace mlir;

namespace {

/// Abi.h's code of an element type, or none.
std::optional<int64_t> dtypeCode(Type t) {
  if (t.isF32())
    return TELAR_DTYPE_F32;
  if (t.isF16())
    return TELAR_DTYPE_F16;
  if (t.isBF16())
    return TELAR_DTYPE_BF16;
  if (t.isF64())
    return TELAR_DTYPE_F64;
  if (t.isInteger(64))
    return TELAR_DTYPE_I64;
  if (t.isInteger(32))
    return TELAR_DTYPE_I32;
  if (t.isInteger(8))
    return TELAR_DTYPE_I8;
  if (t.isInteger(1))
    return TELAR_DTYPE_BOOL;
  return std::nullopt;
}

std::optional<int64_t> reductionCode(shard::ReductionKind kind) {
  switch (kind) {
  case shard::ReductionKind::Sum:
    return TELAR_REDUCE_SUM;
  case shard::ReductionKind::Max:
    return TELAR_REDUCE_MAX;
  case shard::ReductionKind::Min:
    return TELAR_REDUCE_MIN;
  case shard::ReductionKind::Product:
    return TELAR_REDUCE_PROD;
  default:
    return std::nullopt;
  }
}

int64_t product(ArrayRef<int64_t> v) {
  int64_t p = 1;
  for (int64_t x : v)
    p *= x;
  return p;
}

/// A collective's call: the callee, the integer arguments before the
/// buffers (dtype, [reduction,] axes) and after them (the counts).
struct CollectiveCall {
  StringRef callee;
  SmallVector<int64_t> before, after;
};

class Lowering {
public:
  explicit Lowering(ModuleOp module) : module(module) {}

  /// Checks `op` and computes its call; emits an error on failure.
  FailureOr<CollectiveCall> analyze(Operation *op);
  void replace(Operation *op, const CollectiveCall &call);

private:
  /// The group of `axes` on the op's grid: its bit mask and size.
  FailureOr<std::pair<int64_t, int64_t>> group(Operation *op,
                                               FlatSymbolRefAttr gridName,
                                               ArrayRef<int16_t> axes,
                                               bool ordered);
  func::FuncOp declare(StringRef name, unsigned numBefore, unsigned numAfter);

  ModuleOp module;
  SymbolTableCollection symbols;
};

FailureOr<std::pair<int64_t, int64_t>>
Lowering::group(Operation *op, FlatSymbolRefAttr gridName,
                ArrayRef<int16_t> axes, bool ordered) {
  auto grid =
      symbols.lookupNearestSymbolFrom<shard::GridOp>(op, gridName);
  if (!grid)
    return op->emitError("refers to the grid ")
           << gridName << ", which the module does not define";
  ArrayRef<int64_t> shape = grid.getShape();
  int64_t mask = 0, size = 1;
  for (auto [i, axis] : llvm::enumerate(axes)) {
    if (axis < 0 || axis >= int64_t(shape.size()) || axis >= 63)
      return op->emitError("grid axis ")
             << axis << " is not an axis of " << gridName;
    if (ShapedType::isDynamic(shape[axis]))
      return op->emitError("grid axis ")
             << axis << " of " << gridName
             << " has a dynamic size; collectives need static grids";
    // The runtime numbers a group's members row-major over its axes in
    // ascending order; a gather/scatter over [1, 0] would need the other
    // order.
    if (ordered && i > 0 && axes[i - 1] >= axis) {
      InFlightDiagnostic diag =
          op->emitError("grid axes must be listed in ascending order (the "
                        "runtime's member order in a group), got [");
      llvm::interleaveComma(axes, diag);
      return diag << "]";
    }
    mask |= int64_t(1) << axis;
    size *= shape[axis];
  }
  return std::make_pair(mask, size);
}

FailureOr<CollectiveCall> Lowering::analyze(Operation *op) {
  auto inType = dyn_cast<RankedTensorType>(op->getOperand(0).getType());
  auto outType = dyn_cast<RankedTensorType>(op->getResult(0).getType());
  if (!inType || !outType)
    return op->emitError("collectives are lowered on tensors (run "
                         "telar-lower-collectives before bufferization)");
  if (!inType.hasStaticShape() || !outType.hasStaticShape())
    return op->emitError("collectives need static shapes, got ")
           << inType << " -> " << outType;
  if (inType.getElementType() != outType.getElementType())
    return op->emitError("a collective that changes the element type (")
           << inType.getElementType() << " -> " << outType.getElementType()
           << ") is not supported";
  std::optional<int64_t> dtype = dtypeCode(inType.getElementType());
  if (!dtype)
    return op->emitError("the runtime's collectives do not carry the element "
                         "type ")
           << inType.getElementType();
  ArrayRef<int64_t> in = inType.getShape(), out = outType.getShape();
  auto reduction = [&](shard::ReductionKind kind) -> FailureOr<int64_t> {
    std::optional<int64_t> code = reductionCode(kind);
    if (!code)
      return op->emitError("the runtime has no '")
             << shard::stringifyReductionKind(kind) << "' reduction";
    return *code;
  };
  // The [outer][G][inner] split of `shape` at `dim`, for the side whose
  // dim `dim` is G times the other side's (`blockDim` is that other
  // side's size): outer = the dims before, inner = the block and after.
  auto counts = [](ArrayRef<int64_t> shape, int64_t dim, int64_t blockDim) {
    return std::make_pair(product(shape.take_front(dim)),
                          blockDim * product(shape.drop_front(dim + 1)));
  };
  auto checkDim = [&](int64_t dim, StringRef what) -> LogicalResult {
    if (dim < 0 || dim >= inType.getRank())
      return op->emitError() << what << " " << dim << " is out of range";
    return success();
  };
  auto checkBlock = [&](int64_t whole, int64_t block, int64_t size,
                        int64_t dim) -> LogicalResult {
    if (whole != block * size)
      return op->emitError("dimension ")
             << dim << " has size " << whole << ", expected " << block
             << " times the group size " << size;
    return success();
  };

  CollectiveCall call;
  if (auto ar = dyn_cast<shard::AllReduceOp>(op)) {
    auto g = group(op, ar.getGridAttr(), ar.getGridAxes(), /*ordered=*/false);
    FailureOr<int64_t> red = reduction(ar.getReduction());
    if (failed(g) || failed(red))
      return failure();
    call.callee = "telarrt_all_reduce";
    call.before = {*dtype, *red, g->first};
    call.after = {product(in)};
    return call;
  }
  if (auto ag = dyn_cast<shard::AllGatherOp>(op)) {
    auto g = group(op, ag.getGridAttr(), ag.getGridAxes(), true);
    int64_t d = ag.getGatherAxis().getSExtValue();
    if (failed(g) || failed(checkDim(d, "gather axis")) ||
        failed(checkBlock(out[d], in[d], g->second, d)))
      return failure();
    auto [outer, inner] = counts(in, d, in[d]);
    call.callee = "telarrt_all_gather";
    call.before = {*dtype, g->first};
    call.after = {outer, inner};
    return call;
  }
  if (auto rs = dyn_cast<shard::ReduceScatterOp>(op)) {
    auto g = group(op, rs.getGridAttr(), rs.getGridAxes(), true);
    FailureOr<int64_t> red = reduction(rs.getReduction());
    int64_t d = rs.getScatterAxis().getSExtValue();
    if (failed(g) || failed(red) || failed(checkDim(d, "scatter axis")) ||
        failed(checkBlock(in[d], out[d], g->second, d)))
      return failure();
    auto [outer, inner] = counts(in, d, out[d]);
    call.callee = "telarrt_reduce_scatter";
    call.before = {*dtype, *red, g->first};
    call.after = {outer, inner};
    return call;
  }
  if (auto as = dyn_cast<shard::AllSliceOp>(op)) {
    auto g = group(op, as.getGridAttr(), as.getGridAxes(), true);
    int64_t d = as.getSliceAxis().getSExtValue();
    if (failed(g) || failed(checkDim(d, "slice axis")) ||
        failed(checkBlock(in[d], out[d], g->second, d)))
      return failure();
    auto [outer, inner] = counts(in, d, out[d]);
    call.callee = "telarrt_local_slice";
    call.before = {*dtype, g->first};
    call.after = {outer, inner};
    return call;
  }
  auto a2a = cast<shard::AllToAllOp>(op);
  auto g = group(op, a2a.getGridAttr(), a2a.getGridAxes(), true);
  int64_t s = a2a.getSplitAxis().getSExtValue();
  int64_t c = a2a.getConcatAxis().getSExtValue();
  if (failed(g) || failed(checkDim(s, "split axis")) ||
      failed(checkDim(c, "concat axis")))
    return failure();
  int64_t size = g->second;
  if (in[s] % size != 0)
    return op->emitError("split dimension ")
           << s << " (size " << in[s] << ") is not divisible by the group size "
           << size;
  // Each piece is the input with dim s divided by G; the result stacks the
  // G pieces along dim c.
  SmallVector<int64_t> piece(in);
  piece[s] /= size;
  SmallVector<int64_t> expected(piece);
  expected[c] *= size;
  if (ArrayRef<int64_t>(expected) != out)
    return op->emitError("the result shape does not match an all-to-all of "
                         "the input over a group of ")
           << size;
  auto [splitOuter, splitInner] = counts(in, s, piece[s]);
  auto [concatOuter, concatInner] = counts(out, c, piece[c]);
  call.callee = "telarrt_all_to_all";
  call.before = {*dtype, g->first};
  call.after = {splitOuter, splitInner, concatOuter, concatInner};
  return call;
}

func::FuncOp Lowering::declare(StringRef name, unsigned numBefore,
                               unsigned numAfter) {
  MLIRContext *ctx = module.getContext();
  Type ptr = LLVM::LLVMPointerType::get(ctx), i64 = IntegerType::get(ctx, 64);
  SmallVector<Type> args(numBefore, i64);
  args.append({ptr, ptr});
  args.append(numAfter, i64);
  return telar::declareRuntimeFunction(module, name, args);
}

void Lowering::replace(Operation *op, const CollectiveCall &call) {
  func::FuncOp callee =
      declare(call.callee, call.before.size(), call.after.size());
  OpBuilder b(op);
  Location loc = op->getLoc();
  MLIRContext *ctx = b.getContext();
  Type ptr = LLVM::LLVMPointerType::get(ctx);
  auto inType = cast<RankedTensorType>(op->getOperand(0).getType());
  auto outType = cast<RankedTensorType>(op->getResult(0).getType());
  auto i64 = [&](int64_t v) -> Value {
    return arith::ConstantOp::create(b, loc, b.getI64IntegerAttr(v));
  };
  // The buffer's first element: identity layouts have offset 0.
  auto pointer = [&](Value buffer) -> Value {
    Value index =
        memref::ExtractAlignedPointerAsIndexOp::create(b, loc, buffer);
    Value int64 = arith::IndexCastOp::create(b, loc, b.getI64Type(), index);
    return LLVM::IntToPtrOp::create(b, loc, ptr, int64);
  };

  // The context: a placeholder telar-add-runtime-context replaces.
  SmallVector<Value> args = {LLVM::ZeroOp::create(b, loc, ptr)};
  for (int64_t v : call.before)
    args.push_back(i64(v));
  SmallVector<Value> counts;
  for (int64_t v : call.after)
    counts.push_back(i64(v));
  auto inBuffer = bufferization::ToBufferOp::create(
      b, loc, MemRefType::get(inType.getShape(), inType.getElementType()),
      op->getOperand(0), /*read_only=*/true);
  // The call reads the buffer through a pointer, which bufferization does
  // not see: the to_buffer is the read it analyses. Each is distinct, so CSE
  // cannot merge a later collective's read of the same tensor into an
  // earlier one (whose buffer bufferization may then reuse in between).
  inBuffer->setAttr("collective_read",
                    DistinctAttr::create(b.getUnitAttr()));
  auto outBuffer = memref::AllocOp::create(
      b, loc, MemRefType::get(outType.getShape(), outType.getElementType()),
      b.getI64IntegerAttr(64));
  args.push_back(pointer(inBuffer));
  args.push_back(pointer(outBuffer));
  llvm::append_range(args, counts);
  func::CallOp::create(b, loc, callee, args);
  Value result = bufferization::ToTensorOp::create(
      b, loc, outType, outBuffer, /*restrict=*/true, /*writable=*/true);
  op->getResult(0).replaceAllUsesWith(result);
  op->erase();
}

struct TelarLowerCollectives
    : public telar::impl::TelarLowerCollectivesBase<TelarLowerCollectives> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<Operation *> collectives;
    module.walk([&](Operation *op) {
      if (isa<shard::AllReduceOp, shard::AllGatherOp, shard::ReduceScatterOp,
              shard::AllToAllOp, shard::AllSliceOp>(op))
        collectives.push_back(op);
    });
    if (collectives.empty())
      return eraseGrids(module);
    if (!runtime) {
      collectives.front()->emitError(
          "collectives are runtime calls: the pipeline must use the runtime "
          "(library calls or the runtime allocator)");
      return signalPassFailure();
    }
    Lowering lowering(module);
    SmallVector<CollectiveCall> calls;
    bool failedAny = false;
    for (Operation *op : collectives) {
      FailureOr<CollectiveCall> call = lowering.analyze(op);
      if (failed(call))
        failedAny = true;
      else
        calls.push_back(*call);
    }
    if (failedAny)
      return signalPassFailure();
    for (auto [op, call] : llvm::zip(collectives, calls))
      lowering.replace(op, call);
    eraseGrids(module);
  }

  /// The grids have done their work (the manifest's mesh is read before
  /// the translation); LLVM IR translation does not know them.
  static void eraseGrids(ModuleOp module) {
    for (auto grid : llvm::make_early_inc_range(module.getOps<shard::GridOp>()))
      if (SymbolTable::symbolKnownUseEmpty(grid, module))
        grid.erase();
  }
};

} // namespace
