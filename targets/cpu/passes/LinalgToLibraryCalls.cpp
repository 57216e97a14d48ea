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

#include "telar/passes/abi/RuntimeContext.h"
#include "telar/targets/cpu/Passes.h"

#include "telar/runtime/Abi.h"

#include "mlir/Dialect/Linalg/IR/LinalgInterfaces.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Interfaces/ViewLikeInterface.h"

namespace mlir::telar {
#define GEN_PASS_DEF_TELARLINALGTOLIBRARYCALLS
#include "telar/targets/cpu/Passes.h.inc"
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

/// Whether `op` writes zeros to all of `out` without reading anything: a
/// `linalg.fill` of zero, or the generic form fusion leaves of one (no
/// inputs, a body that yields a zero constant). -0.0 too: a product never
/// is -0.0 where 0 + product would differ from it (the kernels' sums start
/// from +0.0).
bool isZeroFillOf(Operation *op, Value out) {
  if (auto fill = dyn_cast<linalg::FillOp>(op))
    return fill.hasPureBufferSemantics() && fill.getOutputs().size() == 1 &&
           fill.getOutputs()[0] == out &&
           matchPattern(fill.getInputs()[0], m_AnyZeroFloat());
  auto g = dyn_cast<linalg::GenericOp>(op);
  if (!g || !g.hasPureBufferSemantics() || g.getNumDpsInputs() != 0 ||
      g.getNumDpsInits() != 1 || g.getDpsInitOperand(0)->get() != out ||
      g.getNumParallelLoops() != g.getNumLoops() ||
      !g.getMatchingIndexingMap(g.getDpsInitOperand(0)).isIdentity())
    return false;
  Block &body = g.getRegion().front();
  auto yield = dyn_cast<linalg::YieldOp>(body.front());
  return yield && yield.getNumOperands() == 1 &&
         matchPattern(yield.getOperand(0), m_AnyZeroFloat());
}

/// The 1-D buffer whose broadcast along dimensions 0, 2 and 3 `op` writes
/// to all of the rank-4 `out`, reading nothing else (a conv's bias: a
/// `linalg.broadcast`, or the generic form of one); else null.
Value biasBroadcastInto(Operation *op, Value out) {
  auto outType = dyn_cast<MemRefType>(out.getType());
  if (!outType || outType.getRank() != 4)
    return {};
  if (auto bc = dyn_cast<linalg::BroadcastOp>(op)) {
    if (!bc.hasPureBufferSemantics() || bc.getInit() != out ||
        bc.getDimensions() != ArrayRef<int64_t>{0, 2, 3})
      return {};
    return bc.getInput();
  }
  auto g = dyn_cast<linalg::GenericOp>(op);
  if (!g || !g.hasPureBufferSemantics() || g.getNumDpsInputs() != 1 ||
      g.getNumDpsInits() != 1 || g.getDpsInitOperand(0)->get() != out ||
      g.getNumParallelLoops() != g.getNumLoops() ||
      !g.getMatchingIndexingMap(g.getDpsInitOperand(0)).isIdentity())
    return {};
  OpOperand *input = g.getDpsInputOperand(0);
  MLIRContext *ctx = op->getContext();
  if (g.getMatchingIndexingMap(input) !=
      AffineMap::get(4, 0, getAffineDimExpr(1, ctx)))
    return {};
  Block &body = g.getRegion().front();
  auto yield = dyn_cast<linalg::YieldOp>(body.front());
  if (!yield || yield.getNumOperands() != 1 ||
      yield.getOperand(0) != body.getArgument(0))
    return {};
  return input->get();
}

/// The op that set all of `out` last before `before` as `sets` says (in the
/// same block, nothing touching the buffer or a view of it in between):
/// one `sets` accepts, or a `memref.copy` into it from a buffer that was
/// itself so set then (found the same way, `depth` levels deep); else null.
/// The buffer must be an allocation or a function argument, whose aliases
/// are all SSA views of it (not a global, which get_global may alias).
Operation *initWriterBefore(Operation *before, Value out, int depth,
                            function_ref<bool(Operation *, Value)> sets) {
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
  for (Operation *prev = before->getPrevNode(); prev;
       prev = prev->getPrevNode()) {
    if (sets(prev, out))
      return prev;
    if (auto copy = dyn_cast<memref::CopyOp>(prev);
        copy && copy.getTarget() == out && depth > 0 &&
        !aliases.contains(copy.getSource()))
      return initWriterBefore(copy, copy.getSource(), depth - 1, sets)
                 ? prev
                 : nullptr;
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

/// The op that made all of `out` zero last before `before`
/// (initWriterBefore with zero fills, isZeroFillOf).
Operation *zeroWriterBefore(Operation *before, Value out, int depth) {
  return initWriterBefore(before, out, depth, isZeroFillOf);
}

/// Whether `op` broadcasts a bias into all of `buffer` (biasBroadcastInto).
bool isBiasBroadcastOf(Operation *op, Value buffer) {
  return static_cast<bool>(biasBroadcastInto(op, buffer));
}

/// The allocation or function argument that `v` views, or null (a global,
/// or something else whose aliases need not be SSA views of it).
Value localBuffer(Value v) {
  while (auto view = v.getDefiningOp<ViewLikeOpInterface>())
    v = view.getViewSource();
  auto arg = dyn_cast<BlockArgument>(v);
  if (arg && arg.getOwner()->isEntryBlock() &&
      isa<FunctionOpInterface>(arg.getOwner()->getParentOp()))
    return v;
  if (v.getDefiningOp<memref::AllocOp>() || v.getDefiningOp<memref::AllocaOp>())
    return v;
  return nullptr;
}

/// Whether `v` is a constant global (memref.get_global of one), which
/// nothing writes.
bool isConstantGlobal(Value v) {
  auto get = v.getDefiningOp<memref::GetGlobalOp>();
  if (!get)
    return false;
  auto global = SymbolTable::lookupNearestSymbolFrom<memref::GlobalOp>(
      get, get.getNameAttr());
  return global && global.getConstant();
}

/// Whether any op strictly between `from` and `to` (same block) may write
/// `buffer` or a view of it (conservatively: has memory effects and takes
/// one of them).
bool writtenBetween(Operation *from, Operation *to, Value buffer) {
  llvm::SmallPtrSet<Value, 8> aliases;
  collectAliases(buffer, aliases);
  for (Operation *op = from->getNextNode(); op && op != to;
       op = op->getNextNode()) {
    if (isMemoryEffectFree(op))
      continue;
    bool touches = false;
    op->walk([&](Operation *nested) {
      for (Value v : nested->getOperands())
        if (aliases.contains(v)) {
          // Reading it is fine.
          auto effects = dyn_cast<MemoryEffectOpInterface>(nested);
          if (!effects || effects.getEffectOnValue<MemoryEffects::Write>(v) ||
              effects.getEffectOnValue<MemoryEffects::Free>(v))
            touches = true;
        }
    });
    if (touches)
      return true;
  }
  return false;
}

/// The ops that use `buffer` or a view of it, other than the views.
llvm::SmallPtrSet<Operation *, 8> bufferUsers(Value buffer) {
  llvm::SmallPtrSet<Value, 8> aliases;
  collectAliases(buffer, aliases);
  llvm::SmallPtrSet<Operation *, 8> users;
  for (Value v : aliases)
    for (Operation *user : v.getUsers())
      if (!isa<ViewLikeOpInterface>(user))
        users.insert(user);
  return users;
}

/// The `linalg.transpose` that fills `alloc` for `op` alone, or null: the
/// last op before `op` (same block) to touch the buffer or a view of it,
/// with nothing touching it after `op` but an op that overwrites it whole
/// without reading it (a later transpose into it, a dealloc). Bufferized
/// programs reuse a buffer across layers (tensor.empty ops are CSE'd), so
/// other uses before the transpose and after such an overwrite are fine.
linalg::TransposeOp transposeFeeding(memref::AllocOp alloc, Operation *op) {
  llvm::SmallPtrSet<Operation *, 8> users = bufferUsers(alloc.getResult());
  if (llvm::any_of(users, [&](Operation *user) {
        return user->getBlock() != op->getBlock();
      }))
    return nullptr;
  linalg::TransposeOp transpose;
  for (Operation *it = op->getPrevNode(); it && !transpose;
       it = it->getPrevNode())
    if (users.contains(it)) {
      auto t = dyn_cast<linalg::TransposeOp>(it);
      if (!t || t.getInit() != alloc.getResult() || !t.hasPureBufferSemantics())
        return nullptr;
      transpose = t;
    }
  if (!transpose)
    return nullptr;
  for (Operation *it = op->getNextNode(); it; it = it->getNextNode())
    if (users.contains(it)) {
      auto t = dyn_cast<linalg::TransposeOp>(it);
      if ((t && t.getInit() == alloc.getResult()) || isa<memref::DeallocOp>(it))
        return transpose;
      return nullptr;
    }
  return transpose;
}

/// Operands of `op` (a matmul or batch matmul going to the runtime, which
/// takes any strides) that are an allocation a `linalg.transpose` fills
/// for `op` alone (transposeFeeding): the transposed view of the
/// transpose's input (memref.transpose) replaces it, and the copy goes,
/// when that input is an allocation or argument not written in between.
void foldTransposedOperands(linalg::LinalgOp op) {
  for (OpOperand *operand : op.getDpsInputOperands()) {
    auto alloc = operand->get().getDefiningOp<memref::AllocOp>();
    if (!alloc)
      continue;
    linalg::TransposeOp transpose = transposeFeeding(alloc, op);
    if (!transpose)
      continue;
    Value input = transpose.getInput();
    Value root = localBuffer(input);
    if (!root || writtenBetween(transpose, op, root))
      continue;
    OpBuilder b(op);
    AffineMap map = AffineMap::getPermutationMap(transpose.getPermutation(),
                                                 b.getContext());
    Value view = memref::TransposeOp::create(b, op.getLoc(), input,
                                             AffineMapAttr::get(map));
    operand->set(view);
    transpose->erase();
    if (alloc->use_empty())
      alloc->erase();
  }
}

/// The buffer `v` is a view of (through subviews, casts, reshapes).
Value rootBuffer(Value v) {
  while (auto view = v.getDefiningOp<ViewLikeOpInterface>())
    v = view.getViewSource();
  return v;
}

/// When `op` (a contraction that overwrites its output) writes an
/// allocation whose next use is a `linalg.transpose` copying it whole into
/// another buffer, after which it is only overwritten whole (a transpose or
/// fill into it) or freed: `op` writes the transposed view of that other
/// buffer instead (the kernels take any strides) and the copy goes, as do
/// attention's heads going back to tokens. Not when nothing orders the
/// other buffer's uses between the two, or `op` reads it.
void foldTransposedResult(linalg::LinalgOp op) {
  if (op.getNumDpsInits() != 1)
    return;
  auto alloc = op.getDpsInitOperand(0)->get().getDefiningOp<memref::AllocOp>();
  if (!alloc)
    return;
  auto nextUser = [&](Value buffer, Operation *after) -> Operation * {
    llvm::SmallPtrSet<Operation *, 8> users = bufferUsers(buffer);
    for (Operation *it = after->getNextNode(); it; it = it->getNextNode())
      if (users.contains(it) || llvm::any_of(users, [&](Operation *u) {
            return u != it && it->isAncestor(u);
          }))
        return it;
    return nullptr;
  };
  auto transpose =
      dyn_cast_or_null<linalg::TransposeOp>(nextUser(alloc.getResult(), op));
  if (!transpose || transpose.getInput() != alloc.getResult() ||
      !transpose.hasPureBufferSemantics())
    return;
  Operation *after = nextUser(alloc.getResult(), transpose);
  if (after) {
    auto t = dyn_cast<linalg::TransposeOp>(after);
    auto fill = dyn_cast<linalg::FillOp>(after);
    if (!(t && t.getInit() == alloc.getResult()) &&
        !(fill && fill.getOutputs()[0] == alloc.getResult()) &&
        !isa<memref::DeallocOp>(after))
      return;
  }
  Value dest = transpose.getInit();
  // The other buffer must exist at `op`: an allocation between the two
  // moves up (bufferization allocates just before the copy).
  if (Operation *def = dest.getDefiningOp();
      def && def->getBlock() == op->getBlock() && op->isBeforeInBlock(def)) {
    if (!isa<memref::AllocOp>(def) || def->getNumOperands() != 0)
      return;
    def->moveBefore(op);
  }
  Value root = rootBuffer(dest);
  for (Value in : op->getOperands())
    if (in != alloc.getResult() && rootBuffer(in) == root)
      return;
  Operation *between = nextUser(root, op);
  if (between && between != transpose.getOperation())
    return;
  ArrayRef<int64_t> perm = transpose.getPermutation();
  SmallVector<unsigned> inverse(perm.size());
  for (auto [i, p] : llvm::enumerate(perm))
    inverse[p] = i;
  OpBuilder b(op);
  Value view = memref::TransposeOp::create(
      b, op.getLoc(), dest,
      AffineMapAttr::get(
          AffineMap::getPermutationMap(inverse, b.getContext())));
  op.getDpsInitOperand(0)->set(view);
  // The buffer stays (canonicalization removes it unused): it may be the
  // source of a zero-filled copy this pass still tracks (sharedFills).
  transpose->erase();
}

void replaceWithCall(linalg::LinalgOp op, Value context, StringRef callee,
                     ArrayRef<int64_t> intArgs,
                     std::optional<SmallVector<Value>> memrefs = {}) {
  ModuleOp module = op->getParentOfType<ModuleOp>();
  OpBuilder b(op);
  Location loc = op.getLoc();
  SmallVector<Value> args = {context};
  SmallVector<Type> types = {context.getType()};
  for (Value v : memrefs ? *memrefs : SmallVector<Value>(op->getOperands())) {
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

//===----------------------------------------------------------------------===//
// Convolutions: implicit padding and the ReLU epilogue
//===----------------------------------------------------------------------===//

/// Whether `a` and `b` may share memory: unless their root buffers are
/// distinct allocations (or one is an allocation and the other a function
/// argument or a global, which it cannot be).
bool mayAlias(Value a, Value b) {
  Value ra = rootBuffer(a), rb = rootBuffer(b);
  if (ra == rb)
    return true;
  auto isAlloc = [](Value v) {
    return v.getDefiningOp<memref::AllocOp>() ||
           v.getDefiningOp<memref::AllocaOp>();
  };
  return !isAlloc(ra) && !isAlloc(rb);
}

/// Whether `op` may write (or free) memory that `buffer` may alias.
bool mayWrite(Operation *op, Value buffer) {
  if (auto call = dyn_cast<func::CallOp>(op)) {
    // A runtime kernel (or any callee) reaches memory through its operands
    // only (telar functions have no mutable globals).
    return llvm::any_of(call.getOperands(), [&](Value v) {
      return isa<BaseMemRefType>(v.getType()) && mayAlias(v, buffer);
    });
  }
  std::optional<SmallVector<MemoryEffects::EffectInstance>> effects =
      getEffectsRecursively(op);
  if (!effects)
    return true;
  return llvm::any_of(*effects, [&](const MemoryEffects::EffectInstance &e) {
    if (!isa<MemoryEffects::Write, MemoryEffects::Free>(e.getEffect()))
      return false;
    Value v = e.getValue();
    return !v || mayAlias(v, buffer);
  });
}

/// Whether `v` is the constant +0.0 (a convolution's padding).
bool isPosZeroConstant(Value v) {
  APFloat f(0.0f);
  return matchPattern(v, m_ConstantFloat(&f)) && f.isPosZero();
}

/// Whether `v` is the constant -inf (a max pooling's padding and start).
bool isNegInfConstant(Value v) {
  APFloat f(0.0f);
  return matchPattern(v, m_ConstantFloat(&f)) && f.isInfinity() &&
         f.isNegative();
}

/// Whether `op` writes the constant `isValue` accepts to every element of
/// its one output, reading nothing: a linalg.fill, or the linalg.map /
/// linalg.generic without inputs that bufferized tensor.pad leaves (its
/// body yields the pad value, next to unused linalg.index ops).
bool isFillWith(Operation *op, Value buffer,
                function_ref<bool(Value)> isValue) {
  if (auto fill = dyn_cast<linalg::FillOp>(op))
    return fill.getOutputs().front() == buffer &&
           isValue(fill.getInputs().front());
  auto linalgOp = dyn_cast<linalg::LinalgOp>(op);
  if (!linalgOp || !isa<linalg::GenericOp, linalg::MapOp>(op) ||
      linalgOp.getNumDpsInputs() != 0 || linalgOp.getNumDpsInits() != 1 ||
      linalgOp.getDpsInitOperand(0)->get() != buffer ||
      linalgOp.getNumLoops() != linalgOp.getNumParallelLoops() ||
      !linalgOp.getMatchingIndexingMap(linalgOp.getDpsInitOperand(0))
           .isIdentity())
    return false;
  Block &body = op->getRegion(0).front();
  auto yield = cast<linalg::YieldOp>(body.getTerminator());
  return yield.getNumOperands() == 1 && isValue(yield.getOperand(0)) &&
         llvm::all_of(body.without_terminator(), [](Operation &inner) {
           return isa<linalg::IndexOp>(inner) && inner.use_empty();
         });
}

/// What bufferization leaves of a tensor.pad with 0 that only convolutions
/// read (or with -inf that only max poolings read): `padded` =
/// memref.alloc, filled with the pad value, then `source` copied into its
/// subview at [0, 0, top, left]. The readers can read `source` instead,
/// with top/left padding (bottom/right follow from the output).
struct ZeroPadding {
  Value padded, source;
  int64_t top, left, bottom, right;
  Operation *fill;
  memref::SubViewOp subview;
  memref::CopyOp copy;
};

std::optional<ZeroPadding> matchPadding(Value padded, bool forPooling) {
  if (!padded.getDefiningOp<memref::AllocOp>())
    return std::nullopt;
  ZeroPadding pad{padded, {}, 0, 0, 0, 0, nullptr, {}, {}};
  for (Operation *user : padded.getUsers()) {
    if (auto sub = dyn_cast<memref::SubViewOp>(user)) {
      if (pad.subview || !sub->hasOneUse())
        return std::nullopt;
      pad.subview = sub;
      pad.copy = dyn_cast<memref::CopyOp>(*sub->user_begin());
      if (!pad.copy || pad.copy.getTarget() != sub.getResult())
        return std::nullopt;
    } else if (isFillWith(user, padded, forPooling ? isNegInfConstant
                                                    : isPosZeroConstant)) {
      if (pad.fill)
        return std::nullopt;
      pad.fill = user;
    } else if (!(forPooling ? isa<linalg::PoolingNchwMaxOp>(user)
                            : isa<linalg::Conv2DNchwFchwOp>(user)) ||
               cast<linalg::LinalgOp>(user).getDpsInputOperand(0)->get() !=
                   padded) {
      return std::nullopt; // read or written otherwise
    }
  }
  if (!pad.fill || !pad.subview)
    return std::nullopt;
  // In one block: the fill, then the copy.
  Block *block = padded.getParentBlock();
  if (pad.fill->getBlock() != block || pad.copy->getBlock() != block ||
      !pad.fill->isBeforeInBlock(pad.copy))
    return std::nullopt;
  // The source fills a whole-image window: unit strides, offsets only
  // along the spatial axes.
  memref::SubViewOp sub = pad.subview;
  ArrayRef<int64_t> offsets = sub.getStaticOffsets(),
                    sizes = sub.getStaticSizes(),
                    strides = sub.getStaticStrides();
  auto full = cast<MemRefType>(padded.getType()).getShape();
  if (offsets.size() != 4 || ShapedType::isDynamicShape(offsets) ||
      ShapedType::isDynamicShape(sizes) ||
      llvm::any_of(strides, [](int64_t s) { return s != 1; }) ||
      offsets[0] != 0 || offsets[1] != 0 || sizes[0] != full[0] ||
      sizes[1] != full[1] || sub.getDroppedDims().any())
    return std::nullopt;
  pad.source = pad.copy.getSource();
  pad.top = offsets[2];
  pad.left = offsets[3];
  pad.bottom = full[2] - sizes[2] - offsets[2];
  pad.right = full[3] - sizes[3] - offsets[3];
  return pad;
}

/// Whether `conv` (a convolution or pooling: its second input gives the
/// window) can read `pad`'s source in place of the padded buffer: it
/// follows the copy in the same block with nothing in between that may
/// overwrite the source, and the runtime's kernel takes the padding (each
/// side below the kernel's span).
template <typename WindowOp>
bool canReadUnpadded(WindowOp conv, const ZeroPadding &pad) {
  if (conv->getBlock() != pad.copy->getBlock() ||
      !pad.copy->isBeforeInBlock(conv))
    return false;
  // The window: the filter's last two dimensions, or the pooling window.
  auto kernel = cast<MemRefType>(conv.getInputs()[1].getType()).getShape();
  auto dilations = conv.getDilations().template getValues<int64_t>();
  int64_t kh = kernel[kernel.size() - 2], kw = kernel.back();
  int64_t spanH = (kh - 1) * dilations[0] + 1,
          spanW = (kw - 1) * dilations[1] + 1;
  if (pad.top >= spanH || pad.bottom >= spanH || pad.left >= spanW ||
      pad.right >= spanW)
    return false;
  for (Operation *op = pad.copy->getNextNode(); op != conv.getOperation();
       op = op->getNextNode())
    if (mayWrite(op, pad.source))
      return false;
  return true;
}

/// Whether `map` reads each loop's own position (an identity map, or one
/// that indexes a size-1 dimension with the constant 0, as the elementwise
/// lowering writes for broadcasts of size 1).
bool isIdentityOn(AffineMap map, ArrayRef<int64_t> shape) {
  if (map.getNumResults() != map.getNumDims() ||
      map.getNumResults() != shape.size())
    return false;
  for (auto [i, e] : llvm::enumerate(map.getResults())) {
    auto dim = dyn_cast<AffineDimExpr>(e);
    auto cst = dyn_cast<AffineConstantExpr>(e);
    if (!(dim && dim.getPosition() == i) &&
        !(cst && cst.getValue() == 0 && shape[i] == 1))
      return false;
  }
  return true;
}

/// The elementwise `dst = max(src, 0)` (arith.maximumf: NaN propagates,
/// as in the kernel's epilogue) of the same shape: src if `op` is one.
Value reluSource(Operation *op) {
  auto generic = dyn_cast<linalg::GenericOp>(op);
  if (!generic || generic.getNumDpsInputs() != 1 ||
      generic.getNumDpsInits() != 1 ||
      generic.getNumLoops() != generic.getNumParallelLoops())
    return {};
  Value src = generic.getDpsInputOperand(0)->get();
  Value dst = generic.getDpsInitOperand(0)->get();
  auto srcType = dyn_cast<MemRefType>(src.getType());
  auto dstType = dyn_cast<MemRefType>(dst.getType());
  if (!srcType || !dstType || srcType.getShape() != dstType.getShape() ||
      !isIdentityOn(generic.getIndexingMapsArray()[0], srcType.getShape()) ||
      !generic.getIndexingMapsArray()[1].isIdentity())
    return {};
  Block &body = generic.getRegion().front();
  auto yield = cast<linalg::YieldOp>(body.getTerminator());
  if (body.getOperations().size() != 2 || yield.getNumOperands() != 1)
    return {};
  auto max = yield.getOperand(0).getDefiningOp<arith::MaximumFOp>();
  if (!max || max->getBlock() != &body)
    return {};
  Value in = body.getArgument(0);
  Value other = max.getLhs() == in   ? max.getRhs()
                : max.getRhs() == in ? max.getLhs()
                                     : Value();
  APFloat zero(0.0f);
  if (!other || !matchPattern(other, m_ConstantFloat(&zero)) ||
      !zero.isPosZero())
    return {};
  return src;
}

/// The first op after `conv` (an ancestor in its block) that uses the
/// conv's output buffer `out` (a local allocation), when it is the last
/// one too (`out` is dead after it) or writes `out` itself (`writes` gives
/// the buffer an op writes); else null.
Operation *soleLaterUser(linalg::Conv2DNchwFchwOp conv,
                         function_ref<Value(Operation *)> writes) {
  Value out = conv.getOutputs()[0];
  if (!out.getDefiningOp<memref::AllocOp>())
    return nullptr;
  Block *block = conv->getBlock();
  // The users after the conv (by their ancestors in the conv's block).
  SmallVector<Operation *> later;
  for (Operation *user : out.getUsers()) {
    Operation *top = block->findAncestorOpInBlock(*user);
    if (!top)
      return nullptr;
    if (top != conv.getOperation() && !top->isBeforeInBlock(conv))
      later.push_back(top);
  }
  if (later.empty())
    return nullptr;
  Operation *first = *llvm::min_element(
      later, [](Operation *a, Operation *b) { return a->isBeforeInBlock(b); });
  if (writes(first) == out)
    return first;
  if (llvm::any_of(later, [&](Operation *op) { return op != first; }))
    return nullptr;
  return first;
}

/// Whether `dst` can take `from`'s place after `op` overwrote all of it:
/// a local allocation of `from`'s type (its earlier contents then matter to
/// nobody after `op`).
bool canTakeOver(Value dst, Value from) {
  return dst.getType() == from.getType() &&
         dst.getDefiningOp<memref::AllocOp>();
}

/// Replaces `op` (an elementwise op that writes all of `from`) by `to`
/// holding its result: the uses of `from` after `op` (in its block, which
/// holds every use of a local allocation) become uses of `to`, and `op`
/// goes. (Allocations left unused go at the end of the pass.)
void replaceWrite(Operation *op, Value from, Value to) {
  Block *block = op->getBlock();
  if (from != to)
    from.replaceUsesWithIf(to, [&](OpOperand &use) {
      Operation *top = block->findAncestorOpInBlock(*use.getOwner());
      return top && op->isBeforeInBlock(top);
    });
  op->erase();
}

/// The ReLU a conv's result goes through, if the kernel can do it as its
/// epilogue: `max(out, 0)` into `dst`, the first thing that reads the
/// conv's output buffer `out` (a local buffer) afterwards, and either in
/// place (`dst` is `out`) or the last (`out` is dead after it) into a local
/// buffer of the same type, which `out` then replaces from the ReLU on
/// (bufferization reuses one buffer for the ReLUs of several convs).
linalg::GenericOp matchReluEpilogue(linalg::Conv2DNchwFchwOp conv) {
  Value out = conv.getOutputs()[0];
  Operation *first = soleLaterUser(conv, [](Operation *op) -> Value {
    return reluSource(op) ? cast<linalg::GenericOp>(op).getDpsInitOperand(0)
                                ->get()
                          : Value();
  });
  if (!first || reluSource(first) != out)
    return {};
  auto relu = cast<linalg::GenericOp>(first);
  Value dst = relu.getDpsInitOperand(0)->get();
  if (dst != out && !canTakeOver(dst, out))
    return {};
  return relu;
}

/// A residual connection after a conv: `dst = out + other` or
/// `dst = max(out + other, 0)` (either order), elementwise over the same
/// shape, the first op after the conv that reads its output `out` and the
/// last (or in place).
struct ResidualAdd {
  linalg::GenericOp op;
  Value other;
  bool relu;
};

std::optional<ResidualAdd> matchResidualAdd(linalg::Conv2DNchwFchwOp conv) {
  Value out = conv.getOutputs()[0];
  auto isAdd = [&](Operation *op) -> std::optional<ResidualAdd> {
    auto g = dyn_cast<linalg::GenericOp>(op);
    if (!g || g.getNumDpsInputs() != 2 || g.getNumDpsInits() != 1 ||
        g.getNumLoops() != g.getNumParallelLoops())
      return std::nullopt;
    auto type = cast<MemRefType>(out.getType());
    for (OpOperand &operand : g->getOpOperands()) {
      auto t = dyn_cast<MemRefType>(operand.get().getType());
      if (!t || t.getShape() != type.getShape() ||
          !isIdentityOn(g.getMatchingIndexingMap(&operand), t.getShape()))
        return std::nullopt;
    }
    if (!g.getMatchingIndexingMap(g.getDpsInitOperand(0)).isIdentity())
      return std::nullopt;
    Value a = g.getDpsInputOperand(0)->get(), b = g.getDpsInputOperand(1)->get();
    if ((a == out) == (b == out))
      return std::nullopt;
    Block &body = g.getRegion().front();
    auto yield = cast<linalg::YieldOp>(body.getTerminator());
    if (yield.getNumOperands() != 1)
      return std::nullopt;
    Value result = yield.getOperand(0);
    bool relu = false;
    if (auto max = result.getDefiningOp<arith::MaximumFOp>()) {
      auto isPosZero = [](Value v) {
        APFloat zero(0.0f);
        return matchPattern(v, m_ConstantFloat(&zero)) && zero.isPosZero();
      };
      if (isPosZero(max.getRhs()))
        result = max.getLhs();
      else if (isPosZero(max.getLhs()))
        result = max.getRhs();
      else
        return std::nullopt;
      relu = true;
    }
    auto add = result.getDefiningOp<arith::AddFOp>();
    if (!add || add->getBlock() != &body ||
        body.getOperations().size() != (relu ? 3u : 2u))
      return std::nullopt;
    Value x = body.getArgument(0), y = body.getArgument(1);
    if (!((add.getLhs() == x && add.getRhs() == y) ||
          (add.getLhs() == y && add.getRhs() == x)))
      return std::nullopt;
    return ResidualAdd{g, a == out ? b : a, relu};
  };
  Operation *first = soleLaterUser(conv, [&](Operation *op) -> Value {
    return isAdd(op) ? cast<linalg::GenericOp>(op).getDpsInitOperand(0)->get()
                     : Value();
  });
  if (!first)
    return std::nullopt;
  return isAdd(first);
}

/// Folds a residual connection after `conv` (which overwrites its output)
/// into it: the conv accumulates into the other addend's buffer instead,
/// with the ReLU as its epilogue when there is one, and that buffer
/// replaces the sum's from then on. The other addend must be a local
/// allocation of the same type that nothing uses after the sum or between
/// the conv and the sum, and that the conv does not read. Returns the
/// flags to add (ACCUMULATE, and RELU) or 0 when nothing was folded.
int64_t foldResidualAdd(linalg::Conv2DNchwFchwOp conv) {
  std::optional<ResidualAdd> res = matchResidualAdd(conv);
  if (!res)
    return 0;
  Value out = conv.getOutputs()[0], x = res->other;
  Value dst = res->op.getDpsInitOperand(0)->get();
  if (!canTakeOver(x, out) || (dst != x && dst != out && !canTakeOver(dst, out)))
    return 0;
  for (Value in : conv.getInputs())
    if (mayAlias(in, x))
      return 0;
  // x: untouched from the conv to the sum, and dead after it.
  Block *block = conv->getBlock();
  llvm::SmallPtrSet<Value, 8> aliases;
  collectAliases(x, aliases);
  for (Value alias : aliases)
    for (Operation *user : alias.getUsers()) {
      if (isa<ViewLikeOpInterface>(user))
        continue;
      Operation *top = block->findAncestorOpInBlock(*user);
      if (!top)
        return 0;
      if (top != res->op.getOperation() && conv->isBeforeInBlock(top))
        return 0;
    }
  conv->setOperand(conv.getDpsInitOperand(0)->getOperandNumber(), x);
  // dst's value lives in x from the sum on.
  replaceWrite(res->op, dst, x);
  return TELAR_KERNEL_ACCUMULATE | (res->relu ? TELAR_KERNEL_RELU : 0);
}

/// Appends a sliding-window op's strides, dilations, pad_top and pad_left
/// to `args`, reading an unpadded input in place of a copy padded with the
/// op's padding value (0, or -inf for a pooling), which goes with its last
/// reader.
template <typename WindowOp>
void appendWindowArgs(WindowOp op, bool pooling, SmallVector<int64_t> &args) {
  for (APInt s : op.getStrides().template getValues<APInt>())
    args.push_back(s.getSExtValue());
  for (APInt d : op.getDilations().template getValues<APInt>())
    args.push_back(d.getSExtValue());
  int64_t top = 0, left = 0;
  Value padded = op.getInputs()[0];
  if (std::optional<ZeroPadding> pad = matchPadding(padded, pooling)) {
    if (canReadUnpadded(op, *pad)) {
      op->setOperand(0, pad->source);
      top = pad->top;
      left = pad->left;
      if (llvm::all_of(padded.getUsers(), [&](Operation *user) {
            return user == pad->fill || user == pad->subview.getOperation();
          })) {
        pad->copy->erase();
        pad->subview->erase();
        pad->fill->erase();
        padded.getDefiningOp()->erase();
      }
    }
  }
  args.append({top, left});
}

/// The conv's runtime call arguments after its operands: strides,
/// dilations, pad_top, pad_left, flags. Reads an unpadded input in place
/// of a zero-padded copy (which goes when nothing else reads it) and
/// folds a ReLU of the result into the call (RELU).
SmallVector<int64_t> prepareConvCall(linalg::Conv2DNchwFchwOp conv) {
  SmallVector<int64_t> args;
  appendWindowArgs(conv, /*pooling=*/false, args);
  int64_t flags = TELAR_KERNEL_ACCUMULATE;
  if (linalg::GenericOp relu = matchReluEpilogue(conv)) {
    Value out = conv.getOutputs()[0];
    replaceWrite(relu, relu.getDpsInitOperand(0)->get(), out);
    flags |= TELAR_KERNEL_RELU;
  }
  args.push_back(flags);
  return args;
}

/// The max pooling's runtime call arguments after its operands (window,
/// strides, dilations, pad_top, pad_left), when its output was just set to
/// -inf (the fill goes: the call overwrites); reads an unpadded input in
/// place of a copy padded with -inf, as convolutions do. None (the op
/// stays) when the output held anything else.
std::optional<SmallVector<int64_t>>
preparePoolCall(linalg::PoolingNchwMaxOp pool) {
  Value out = pool.getOutputs()[0];
  Operation *init = initWriterBefore(
      pool, out, /*depth=*/0, [](Operation *op, Value buffer) {
        return isFillWith(op, buffer, isNegInfConstant);
      });
  if (!init)
    return std::nullopt;
  init->erase();
  auto window = cast<MemRefType>(pool.getInputs()[1].getType()).getShape();
  SmallVector<int64_t> args = {window[0], window[1]};
  appendWindowArgs(pool, /*pooling=*/true, args);
  return args;
}

struct TelarLinalgToLibraryCalls
    : public telar::impl::TelarLinalgToLibraryCallsBase<
          TelarLinalgToLibraryCalls> {
  using Base::Base;
  void runOnOperation() override {
    SmallVector<linalg::LinalgOp> matmuls, batchMatmuls, convs, pools;
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
      } else if (isa<linalg::PoolingNchwMaxOp>(op.getOperation())) {
        if (work(op) >= minFlops)
          pools.push_back(op);
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
    for (auto *list : {&matmuls, &batchMatmuls, &convs, &pools})
      for (linalg::LinalgOp op : *list)
        contextOf(op);
    if (missingContext)
      return signalPassFailure();
    // Transposed operands as strided views (before the calls: the views
    // are cast like any operand).
    for (auto *list : {&matmuls, &batchMatmuls})
      for (linalg::LinalgOp op : *list)
        foldTransposedOperands(op);
    // The convolutions' padding and epilogues first, while every op
    // between a pad's copy and its conv is still linalg (whose effects
    // say exactly what they write, unlike the calls).
    SmallVector<SmallVector<int64_t>> convArgs;
    SmallVector<Value> convBiases;
    for (linalg::LinalgOp op : convs) {
      convArgs.push_back(
          prepareConvCall(cast<linalg::Conv2DNchwFchwOp>(op.getOperation())));
      // Overwrite rather than accumulate when the output was just zeroed,
      // or add the bias it was just set to.
      int64_t &flags = convArgs.back().back();
      flags = (flags & ~int64_t(TELAR_KERNEL_ACCUMULATE)) | overwriteFlags(op);
      Value bias;
      if (flags & TELAR_KERNEL_ACCUMULATE) {
        bias = foldBiasInit(op);
        if (bias)
          flags &= ~int64_t(TELAR_KERNEL_ACCUMULATE);
      }
      // An overwriting conv whose result only a residual add (and ReLU)
      // reads accumulates into the other addend instead.
      if (!(flags & (TELAR_KERNEL_ACCUMULATE | TELAR_KERNEL_RELU)))
        flags |= foldResidualAdd(
            cast<linalg::Conv2DNchwFchwOp>(op.getOperation()));
      convBiases.push_back(bias);
    }
    // The poolings' padding likewise (the ones whose output held anything
    // but -inf stay linalg).
    SmallVector<std::optional<SmallVector<int64_t>>> poolArgs;
    for (linalg::LinalgOp op : pools)
      poolArgs.push_back(
          preparePoolCall(cast<linalg::PoolingNchwMaxOp>(op.getOperation())));
    // Pairs of convolutions, one call each: the second reads what the
    // first wrote (and nothing else does).
    DenseMap<Operation *, size_t> convIndex;
    for (auto [i, op] : llvm::enumerate(convs))
      convIndex[op.getOperation()] = i;
    SmallVector<int64_t> firstOfPair(convs.size(), -1);
    SmallVector<bool> fused(convs.size(), false);
    for (auto [j, op] : llvm::enumerate(convs)) {
      auto conv = cast<linalg::Conv2DNchwFchwOp>(op.getOperation());
      linalg::Conv2DNchwFchwOp first = pairFirst(conv, convArgs[j]);
      if (!first)
        continue;
      size_t i = convIndex.lookup(first.getOperation());
      if (fused[i] || fused[j] ||
          (convArgs[i].back() & TELAR_KERNEL_ACCUMULATE))
        continue;
      firstOfPair[j] = static_cast<int64_t>(i);
      fused[i] = fused[j] = true;
    }
    // A convolution whose output only a max pooling reads: one call.
    SmallVector<int64_t> pooledConv(pools.size(), -1);
    for (auto [j, op] : llvm::enumerate(pools)) {
      if (!poolArgs[j])
        continue;
      auto first = dyn_cast_or_null<linalg::Conv2DNchwFchwOp>(
          fusableProducer(op, op->getOperand(0)));
      if (!first || !convIndex.count(first.getOperation()))
        continue;
      size_t i = convIndex.lookup(first.getOperation());
      const SmallVector<int64_t> &pa = *poolArgs[j];
      // Dilations 1 (args: window, strides, dilations, pads).
      if (fused[i] || pa[4] != 1 || pa[5] != 1 ||
          (convArgs[i].back() & TELAR_KERNEL_ACCUMULATE))
        continue;
      pooledConv[j] = static_cast<int64_t>(i);
      fused[i] = true;
    }
    // Overwriting contractions may write a transposed view of where their
    // result is copied to.
    for (auto [list, callee] :
         {std::pair(&matmuls, "telarrt_matmul_f32"),
          std::pair(&batchMatmuls, "telarrt_batch_matmul_f32")})
      for (linalg::LinalgOp op : *list) {
        int64_t flags = overwriteFlags(op);
        if (!(flags & TELAR_KERNEL_ACCUMULATE))
          foldTransposedResult(op);
        replaceWithCall(op, contextOf(op), callee, {flags});
      }
    for (auto [j, op] : llvm::enumerate(convs)) {
      if (firstOfPair[j] < 0)
        continue;
      size_t i = static_cast<size_t>(firstOfPair[j]);
      replaceWithPairCall(convs[i], op, contextOf(op), convArgs[i],
                          convArgs[j], convBiases[i], convBiases[j]);
    }
    for (auto [op, args, bias, isFused] :
         llvm::zip(convs, convArgs, convBiases, fused)) {
      if (isFused)
        continue;
      if (!bias) {
        replaceWithCall(op, contextOf(op), "telarrt_conv2d_nchw_f32", args);
        continue;
      }
      SmallVector<Value> operands(op->getOperands());
      operands.insert(operands.begin() + 2, bias);
      replaceWithCall(op, contextOf(op), "telarrt_conv2d_nchw_bias_f32", args,
                      operands);
    }
    for (auto [j, op] : llvm::enumerate(pools)) {
      if (!poolArgs[j])
        continue;
      auto pool = cast<linalg::PoolingNchwMaxOp>(op.getOperation());
      if (pooledConv[j] >= 0) {
        size_t i = static_cast<size_t>(pooledConv[j]);
        replaceWithPooledConvCall(convs[i], pool, contextOf(op), convArgs[i],
                                  *poolArgs[j], convBiases[i]);
        continue;
      }
      replaceWithCall(op, contextOf(op), "telarrt_maxpool2d_nchw_f32",
                      *poolArgs[j],
                      SmallVector<Value>{pool.getInputs()[0],
                                         pool.getOutputs()[0]});
    }
    eraseUnreadFills();
    // The buffers the folds left unused.
    getOperation().walk([](memref::AllocOp alloc) {
      if (alloc->use_empty())
        alloc->erase();
    });
  }

  /// The op (a convolution) whose output `consumer` reads as `mid`, when
  /// one call can compute both where `consumer` is: `mid` is a local
  /// allocation of one image that only the two use (the producer writing
  /// it as its only output, not reading it; the consumer not writing it),
  /// and nothing between them writes memory.
  static Operation *fusableProducer(linalg::LinalgOp consumer, Value mid) {
    auto alloc = mid.getDefiningOp<memref::AllocOp>();
    if (!alloc || cast<MemRefType>(mid.getType()).getDimSize(0) != 1 ||
        llvm::is_contained(consumer.getDpsInits(), mid))
      return nullptr;
    linalg::LinalgOp producer;
    for (Operation *user : mid.getUsers()) {
      if (user == consumer.getOperation())
        continue;
      auto op = dyn_cast<linalg::LinalgOp>(user);
      if (producer || !op || op.getNumDpsInits() != 1 ||
          op.getDpsInitOperand(0)->get() != mid ||
          llvm::is_contained(op.getDpsInputs(), mid))
        return nullptr;
      producer = op;
    }
    if (!producer || producer->getBlock() != consumer->getBlock() ||
        !producer->isBeforeInBlock(consumer))
      return nullptr;
    for (Operation *op = producer->getNextNode();
         op != consumer.getOperation(); op = op->getNextNode())
      if (!isMemoryEffectFree(op) && !isa<memref::AllocOp>(op))
        return nullptr;
    return producer.getOperation();
  }

  /// The conv whose output `second` reads as its input, when one call can
  /// compute both (telarrt_conv2d_pair_nchw_f32; fusableProducer): the
  /// intermediate's channels come in whole blocks of 16 (the runtime then
  /// passes it between them in its planes of interleaved channels), the
  /// second has unit strides and dilations (`args`: its call's) and reads
  /// it once.
  static linalg::Conv2DNchwFchwOp pairFirst(linalg::Conv2DNchwFchwOp second,
                                           ArrayRef<int64_t> args) {
    if (args.size() != 7 || args[0] != 1 || args[1] != 1 || args[2] != 1 ||
        args[3] != 1)
      return {};
    Value mid = second.getInputs()[0];
    if (cast<MemRefType>(mid.getType()).getDimSize(1) %
                TELARRT_CONV_CHANNEL_BLOCK !=
            0 ||
        second.getInputs()[1] == mid)
      return {};
    return dyn_cast_or_null<linalg::Conv2DNchwFchwOp>(
        fusableProducer(second, mid));
  }

  /// `bias`, or (null) a buffer with no elements, which the fused calls
  /// take for none.
  static Value biasOrNone(OpBuilder &b, Location loc, Value bias) {
    if (bias)
      return bias;
    return memref::AllocaOp::create(b, loc,
                                    MemRefType::get({0}, b.getF32Type()));
  }

  /// Replaces the convolutions `first` and `second` (which reads `first`'s
  /// output, pairFirst) by one telarrt_conv2d_pair_nchw_f32 call where
  /// `second` was: the operands of both, a bias with no elements for none.
  void replaceWithPairCall(linalg::LinalgOp first, linalg::LinalgOp second,
                           Value context, ArrayRef<int64_t> firstArgs,
                           ArrayRef<int64_t> secondArgs, Value firstBias,
                           Value secondBias) {
    OpBuilder b(second);
    Location loc = second.getLoc();
    Value mid = second->getOperand(0);
    auto midType = cast<MemRefType>(mid.getType());
    SmallVector<Value> operands = {
        first->getOperand(0),
        first->getOperand(1),
        biasOrNone(b, loc, firstBias),
        second->getOperand(1),
        biasOrNone(b, loc, secondBias),
        second.getDpsInitOperand(0)->get()};
    SmallVector<int64_t> args(firstArgs);
    args.append({midType.getDimSize(2), midType.getDimSize(3), secondArgs[4],
                 secondArgs[5], secondArgs[6]});
    replaceWithCall(second, context, "telarrt_conv2d_pair_nchw_f32", args,
                    operands);
    first->erase();
  }

  /// Replaces the convolution `conv` and the max pooling `pool` of its
  /// output (fusableProducer) by one telarrt_conv2d_maxpool_nchw_f32 call
  /// where the pooling was: the convolution's operands, bias (none: no
  /// elements) and call arguments, its output's height and width, the
  /// pooling's window, strides and padding.
  void replaceWithPooledConvCall(linalg::LinalgOp conv,
                                 linalg::PoolingNchwMaxOp pool, Value context,
                                 ArrayRef<int64_t> convArgs,
                                 ArrayRef<int64_t> poolArgs, Value bias) {
    OpBuilder b(pool);
    Location loc = pool.getLoc();
    Value mid = pool.getInputs()[0];
    auto midType = cast<MemRefType>(mid.getType());
    SmallVector<Value> operands = {
        conv->getOperand(0), conv->getOperand(1),
        biasOrNone(b, loc, bias),
        pool.getOutputs()[0]};
    SmallVector<int64_t> args(convArgs);
    args.append({midType.getDimSize(2), midType.getDimSize(3), poolArgs[0],
                 poolArgs[1], poolArgs[2], poolArgs[3], poolArgs[6],
                 poolArgs[7]});
    replaceWithCall(pool, context, "telarrt_conv2d_maxpool_nchw_f32", args,
                    operands);
    conv->erase();
  }

  /// The bias `op`'s (a conv's) output was just set to, whose broadcast (or
  /// copy of a shared broadcast) then goes: the call adds it with the
  /// result. Null when there is none, or when the bias buffer may change
  /// between the broadcast and the conv.
  Value foldBiasInit(linalg::LinalgOp op) {
    Value out = op.getDpsInitOperand(0)->get();
    Operation *writer = initWriterBefore(op, out, /*depth=*/1,
                                         isBiasBroadcastOf);
    if (!writer)
      return {};
    Operation *broadcast = writer;
    Value source = out;
    if (auto copy = dyn_cast<memref::CopyOp>(writer)) {
      source = copy.getSource();
      broadcast = initWriterBefore(copy, source, 0, isBiasBroadcastOf);
    }
    Value bias = biasBroadcastInto(broadcast, source);
    if (!isConstantGlobal(bias) &&
        (!localBuffer(bias) ||
         writtenBetween(broadcast, op.getOperation(), bias)))
      return {};
    if (source != out)
      sharedFills.insert(source);
    writer->erase();
    return bias;
  }

  /// The call's flags: overwrite the output (and erase what zeroed it)
  /// when it was just zeroed, else accumulate into it as the linalg op
  /// does. A zero fill shared through copies (tensor-level CSE merges the
  /// fills of equal shapes; bufferization copies the one buffer into each
  /// output) loses the copy; the fill itself goes once no copy reads it.
  int64_t overwriteFlags(linalg::LinalgOp op) {
    if (op.getNumDpsInits() != 1)
      return TELAR_KERNEL_ACCUMULATE;
    Operation *writer =
        zeroWriterBefore(op, op.getDpsInitOperand(0)->get(), /*depth=*/1);
    if (!writer)
      return TELAR_KERNEL_ACCUMULATE;
    if (auto copy = dyn_cast<memref::CopyOp>(writer))
      sharedFills.insert(copy.getSource());
    writer->erase();
    return 0;
  }

  /// Allocations zero-filled (or set to a bias) that only copies read,
  /// whose fills go (with them) once those copies are gone.
  llvm::SetVector<Value> sharedFills;
  void eraseUnreadFills() {
    for (Value buffer : sharedFills) {
      auto alloc = buffer.getDefiningOp<memref::AllocOp>();
      if (!alloc)
        continue;
      SmallVector<Operation *> users(alloc->getUsers());
      if (!llvm::all_of(users, [&](Operation *u) {
            return isZeroFillOf(u, buffer) || isBiasBroadcastOf(u, buffer);
          }))
        continue;
      for (Operation *u : users)
        u->erase();
      alloc->erase();
    }
    sharedFills.clear();
  }

  /// Multiply-adds of a contraction: the product of all loop ranges.
  static int64_t work(linalg::LinalgOp op) {
    return product(op.getStaticLoopRanges());
  }
};

} // namespace
