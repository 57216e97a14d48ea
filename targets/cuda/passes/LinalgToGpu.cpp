//===- LinalgToGpu.cpp - One GPU kernel per linalg op on buffers ----------===//
//
// The mapping of the CUDA target: the parallel points of an op, one per
// thread, its reductions as loops inside the thread; a reduction of long
// rows, one block per row combining its threads' shares in shared memory
// (barriers at the kernel's top level, which the CPU emulation runs level
// by level).
//
//===----------------------------------------------------------------------===//

#include "telar/targets/cuda/Passes.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/SCF/Utils/Utils.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Transforms/RegionUtils.h"

namespace mlir::telar {
#define GEN_PASS_DEF_TELARLINALGTOGPU
#include "telar/targets/cuda/Passes.h.inc"
} // namespace mlir::telar

using namespace mlir;

namespace {

/// `op` with its parallel dimensions outermost (in their order), then its
/// reduction dimensions (in theirs); a named op is generalized first.
FailureOr<linalg::GenericOp> parallelDimsFirst(RewriterBase &rewriter,
                                               linalg::LinalgOp op) {
  rewriter.setInsertionPoint(op);
  auto generic = dyn_cast<linalg::GenericOp>(op.getOperation());
  if (!generic) {
    FailureOr<linalg::GenericOp> generalized =
        linalg::generalizeNamedOp(rewriter, op);
    if (failed(generalized))
      return failure();
    generic = *generalized;
  }
  SmallVector<utils::IteratorType> iterators =
      generic.getIteratorTypesArray();
  SmallVector<unsigned> order;
  for (unsigned d = 0; d < iterators.size(); ++d)
    if (iterators[d] == utils::IteratorType::parallel)
      order.push_back(d);
  for (unsigned d = 0; d < iterators.size(); ++d)
    if (iterators[d] != utils::IteratorType::parallel)
      order.push_back(d);
  bool identity = true;
  for (unsigned d = 0; d < order.size(); ++d)
    identity = identity && order[d] == d;
  if (identity)
    return generic;
  return linalg::interchangeGenericOp(rewriter, generic, order);
}

/// One iteration of `op` at the loop indices `ivs`: its operands loaded,
/// its payload, its yields stored (an output is read and written in place,
/// so a reduction accumulates across the iterations).
void emitPoint(OpBuilder &b, Location loc, linalg::GenericOp op,
               ValueRange ivs) {
  IRMapping mapping;
  Block *body = op.getBody();
  SmallVector<SmallVector<Value>> outputIndices;
  for (OpOperand &operand : op->getOpOperands()) {
    BlockArgument arg = body->getArgument(operand.getOperandNumber());
    Value value = operand.get();
    bool isInit = op.isDpsInit(&operand);
    if (!isa<MemRefType>(value.getType())) {
      mapping.map(arg, value); // A scalar operand.
      if (isInit)
        outputIndices.emplace_back();
      continue;
    }
    AffineMap map = op.getMatchingIndexingMap(&operand);
    SmallVector<Value> indices;
    for (unsigned r = 0; r < map.getNumResults(); ++r)
      indices.push_back(affine::AffineApplyOp::create(
          b, loc, map.getSubMap({r}), ivs));
    // An output only the payload's yield writes need not be read (no
    // block argument use): skip the load.
    if (!isInit || !arg.use_empty())
      mapping.map(arg, memref::LoadOp::create(b, loc, value, indices));
    if (isInit)
      outputIndices.push_back(std::move(indices));
  }
  for (Operation &inner : body->without_terminator()) {
    if (auto index = dyn_cast<linalg::IndexOp>(inner)) {
      mapping.map(index.getResult(), ivs[index.getDim()]);
      continue;
    }
    b.clone(inner, mapping);
  }
  auto yield = cast<linalg::YieldOp>(body->getTerminator());
  for (auto [i, yielded] : llvm::enumerate(yield.getValues())) {
    Value target = op.getDpsInits()[i];
    memref::StoreOp::create(b, loc, mapping.lookupOrDefault(yielded), target,
                            outputIndices[i]);
  }
}

/// A reduction whose rows a block reduces together: one output, one
/// (innermost) reduction dimension, and a payload yielding
/// `combiner(%out, e)` with `e` independent of `%out`.
struct RowReduction {
  Operation *combiner;
  /// The combiner's other operand (`e`).
  Value element;
  TypedAttr identity;
};

/// The combiner and its identity when `op` (parallel dimensions first) is a
/// row reduction a block can run (float add, mul, max or min).
std::optional<RowReduction> matchRowReduction(linalg::GenericOp op) {
  if (op.getNumDpsInits() != 1 || op.getNumReductionLoops() != 1 ||
      op.getNumLoops() != op.getNumParallelLoops() + 1)
    return std::nullopt;
  Block *body = op.getBody();
  BlockArgument out = body->getArgument(op.getNumDpsInputs());
  auto type = dyn_cast<FloatType>(out.getType());
  if (!type || !out.hasOneUse())
    return std::nullopt;
  auto yield = cast<linalg::YieldOp>(body->getTerminator());
  Operation *combiner = yield.getValues()[0].getDefiningOp();
  if (!combiner || combiner->getBlock() != body ||
      combiner->getNumOperands() != 2 || *out.getUsers().begin() != combiner)
    return std::nullopt;
  Value element = combiner->getOperand(0) == out ? combiner->getOperand(1)
                                                  : combiner->getOperand(0);
  if (element == out)
    return std::nullopt;
  const llvm::fltSemantics &sem = type.getFloatSemantics();
  std::optional<APFloat> identity;
  if (isa<arith::AddFOp>(combiner))
    identity = APFloat::getZero(sem);
  else if (isa<arith::MulFOp>(combiner))
    identity = APFloat::getOne(sem);
  else if (isa<arith::MaximumFOp, arith::MaxNumFOp>(combiner))
    identity = APFloat::getInf(sem, /*Negative=*/true);
  else if (isa<arith::MinimumFOp, arith::MinNumFOp>(combiner))
    identity = APFloat::getInf(sem);
  if (!identity)
    return std::nullopt;
  return RowReduction{combiner, element, FloatAttr::get(type, *identity)};
}

/// `combiner` (a binary op of the payload) applied to `lhs` and `rhs`.
Value combine(OpBuilder &b, Operation *combiner, Value lhs, Value rhs) {
  IRMapping mapping;
  mapping.map(combiner->getOperand(0), lhs);
  mapping.map(combiner->getOperand(1), rhs);
  return b.clone(*combiner, mapping)->getResult(0);
}

/// The reduced element `e` of a row reduction at the loop indices `ivs`:
/// the inputs loaded, the payload but its combiner cloned.
Value emitElement(OpBuilder &b, Location loc, linalg::GenericOp op,
                  const RowReduction &reduction, ValueRange ivs) {
  IRMapping mapping;
  Block *body = op.getBody();
  for (OpOperand *operand : op.getDpsInputOperands()) {
    BlockArgument arg = body->getArgument(operand->getOperandNumber());
    Value value = operand->get();
    if (!isa<MemRefType>(value.getType())) {
      mapping.map(arg, value);
      continue;
    }
    AffineMap map = op.getMatchingIndexingMap(operand);
    SmallVector<Value> indices;
    for (unsigned r = 0; r < map.getNumResults(); ++r)
      indices.push_back(affine::AffineApplyOp::create(
          b, loc, map.getSubMap({r}), ivs));
    if (!arg.use_empty())
      mapping.map(arg, memref::LoadOp::create(b, loc, value, indices));
  }
  for (Operation &inner : body->without_terminator()) {
    if (&inner == reduction.combiner)
      continue;
    if (auto index = dyn_cast<linalg::IndexOp>(inner)) {
      mapping.map(index.getResult(), ivs[index.getDim()]);
      continue;
    }
    b.clone(inner, mapping);
  }
  return mapping.lookupOrDefault(reduction.element);
}

/// Constants the kernel body uses from outside are cloned into it: they
/// would otherwise become kernel arguments when it is outlined.
void sinkConstants(gpu::LaunchOp launch) {
  SetVector<Value> above;
  getUsedValuesDefinedAbove(launch.getBody(), above);
  Block &body = launch.getBody().front();
  OpBuilder b = OpBuilder::atBlockBegin(&body);
  for (Value v : above) {
    Operation *def = v.getDefiningOp();
    if (!def || !def->hasTrait<OpTrait::ConstantLike>())
      continue;
    Value copy = b.clone(*def)->getResult(0);
    replaceAllUsesInRegionWith(v, copy, launch.getBody());
  }
}

/// The parallel indices of point `linear` (row-major over `ranges`).
SmallVector<Value> delinearize(OpBuilder &b, Location loc, Value linear,
                               ArrayRef<int64_t> ranges) {
  SmallVector<Value> ivs(ranges.size());
  Value rest = linear;
  for (int64_t d = int64_t(ranges.size()) - 1; d >= 0; --d) {
    Value range = arith::ConstantIndexOp::create(b, loc, ranges[d]);
    ivs[d] = d == 0 ? rest : arith::RemUIOp::create(b, loc, rest, range);
    if (d > 0)
      rest = arith::DivUIOp::create(b, loc, rest, range);
  }
  return ivs;
}

/// `v` combined over the `lanes` (a power of two up to 32) first lanes of
/// each warp by butterfly shuffles: every lane of them ends with the total.
Value warpReduce(OpBuilder &b, Location loc, Value v, int64_t lanes,
                 const RowReduction &reduction) {
  for (int64_t offset = lanes / 2; offset >= 1; offset /= 2) {
    Value other =
        gpu::ShuffleOp::create(b, loc, v, offset, 32, gpu::ShuffleMode::XOR)
            .getShuffleResult();
    v = combine(b, reduction.combiner, v, other);
  }
  return v;
}

/// A row reduction as one block per row (the op's parallel points): each
/// thread folds a strided share of the row; with f32 and whole warps, each
/// warp combines its shares by shuffles, its first lane writes the warp's
/// value to shared memory, and (one barrier later) the first warp combines
/// those by shuffles too; otherwise the shares are combined in shared
/// memory by a tree (a barrier between its levels, unrolled). Thread 0
/// folds the result into the output. Every barrier and shuffle is at the
/// kernel's top level, which telar-emulate-gpu requires.
void convertRowReduction(RewriterBase &rewriter, linalg::GenericOp generic,
                         const RowReduction &reduction, int64_t points,
                         int64_t threads) {
  Location loc = generic.getLoc();
  SmallVector<int64_t> ranges = generic.getStaticLoopRanges();
  unsigned numParallel = generic.getNumParallelLoops();
  int64_t extent = ranges.back();
  Type element = reduction.identity.getType();
  rewriter.setInsertionPoint(generic);
  auto index = [&](OpBuilder &b, int64_t v) -> Value {
    return arith::ConstantIndexOp::create(b, loc, v);
  };
  Value one = index(rewriter, 1);
  bool shuffles = element.isF32() && threads % 32 == 0;
  int64_t warps = threads / 32;
  SmallVector<Type> workgroup;
  if (!shuffles || warps > 1)
    workgroup.push_back(MemRefType::get(
        {shuffles ? warps : threads}, element, MemRefLayoutAttrInterface{},
        gpu::AddressSpaceAttr::get(rewriter.getContext(),
                                   gpu::AddressSpace::Workgroup)));
  auto launch = gpu::LaunchOp::create(
      rewriter, loc, index(rewriter, points), one, one,
      index(rewriter, threads), one, one, /*dynamicSharedMemorySize=*/nullptr,
      /*asyncTokenType=*/nullptr, /*asyncDependencies=*/{},
      /*workgroupAttributions=*/workgroup);
  Block &body = launch.getBody().front();
  Value buffer;
  if (!workgroup.empty())
    buffer = launch.getWorkgroupAttributions()[0];
  OpBuilder b = OpBuilder::atBlockEnd(&body);
  Value tid = launch.getThreadIds().x;
  SmallVector<Value> rowIvs = delinearize(
      b, loc, launch.getBlockIds().x, ArrayRef(ranges).take_front(numParallel));

  // This thread's share: elements tid, tid + threads, ... of the row.
  Value identity = arith::ConstantOp::create(b, loc, reduction.identity);
  auto share = scf::ForOp::create(
      b, loc, tid, index(b, extent), index(b, threads), ValueRange{identity},
      [&](OpBuilder &fb, Location, Value r, ValueRange acc) {
        SmallVector<Value> ivs(rowIvs);
        ivs.push_back(r);
        Value e = emitElement(fb, loc, generic, reduction, ivs);
        scf::YieldOp::create(fb, loc,
                             combine(fb, reduction.combiner, acc[0], e));
      });
  Value total;
  if (shuffles) {
    total = warpReduce(b, loc, share.getResult(0), 32, reduction);
    if (warps > 1) {
      // Each warp's first lane writes its value; the first warp (every
      // warp, alike: shuffles need whole warps) combines them.
      Value lane = arith::RemUIOp::create(b, loc, tid, index(b, 32));
      Value warp = arith::DivUIOp::create(b, loc, tid, index(b, 32));
      Value first = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                                          lane, index(b, 0));
      auto write = scf::IfOp::create(b, loc, first, /*withElse=*/false);
      OpBuilder wb = write.getThenBodyBuilder();
      memref::StoreOp::create(wb, loc, total, buffer, warp);
      gpu::BarrierOp::create(b, loc);
      Value inRange = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult,
                                            lane, index(b, warps));
      Value at = arith::SelectOp::create(b, loc, inRange, lane, index(b, 0));
      Value value = memref::LoadOp::create(b, loc, buffer, at);
      value = arith::SelectOp::create(b, loc, inRange, value, identity);
      total = warpReduce(b, loc, value, warps, reduction);
    }
  } else {
    memref::StoreOp::create(b, loc, share.getResult(0), buffer, tid);
    gpu::BarrierOp::create(b, loc);
    // The tree: at each level the first half of the threads folds in the
    // second half's values.
    for (int64_t half = threads / 2; half >= 1; half /= 2) {
      Value active = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult,
                                           tid, index(b, half));
      auto guard = scf::IfOp::create(b, loc, active, /*withElse=*/false);
      OpBuilder tb = guard.getThenBodyBuilder();
      Value mine = memref::LoadOp::create(tb, loc, buffer, tid);
      Value partner = arith::AddIOp::create(tb, loc, tid, index(tb, half));
      Value other = memref::LoadOp::create(tb, loc, buffer, partner);
      memref::StoreOp::create(
          tb, loc, combine(tb, reduction.combiner, mine, other), buffer, tid);
      gpu::BarrierOp::create(b, loc);
    }
  }
  // Thread 0 folds the row's value into the output (which holds the
  // reduction's initial value, as the loops would).
  Value first = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, tid,
                                      index(b, 0));
  auto guard = scf::IfOp::create(b, loc, first, /*withElse=*/false);
  OpBuilder tb = guard.getThenBodyBuilder();
  OpOperand *init = generic.getDpsInitOperand(0);
  AffineMap map = generic.getMatchingIndexingMap(init);
  SmallVector<Value> ivs(rowIvs);
  ivs.push_back(index(tb, 0));
  SmallVector<Value> outIndices;
  for (unsigned r = 0; r < map.getNumResults(); ++r)
    outIndices.push_back(
        affine::AffineApplyOp::create(tb, loc, map.getSubMap({r}), ivs));
  Value old = memref::LoadOp::create(tb, loc, init->get(), outIndices);
  if (!shuffles)
    total = memref::LoadOp::create(tb, loc, buffer, index(tb, 0));
  memref::StoreOp::create(tb, loc, combine(tb, reduction.combiner, old, total),
                          init->get(), outIndices);
  gpu::TerminatorOp::create(b, loc);
  rewriter.eraseOp(generic);
  sinkConstants(launch);
}

LogicalResult convertToLaunch(RewriterBase &rewriter, linalg::LinalgOp op,
                              int64_t blockSize, int64_t rowReductionMin) {
  Location loc = op.getLoc();
  FailureOr<linalg::GenericOp> maybeGeneric = parallelDimsFirst(rewriter, op);
  if (failed(maybeGeneric))
    return op.emitError("cannot be generalized into one GPU kernel");
  linalg::GenericOp generic = *maybeGeneric;
  SmallVector<int64_t> ranges = generic.getStaticLoopRanges();
  if (llvm::any_of(ranges, ShapedType::isDynamic))
    return generic.emitError("a GPU kernel needs static loop ranges");
  unsigned numParallel = generic.getNumParallelLoops();
  int64_t points = 1;
  for (unsigned d = 0; d < numParallel; ++d)
    points *= ranges[d];
  if (llvm::is_contained(ranges, 0)) {
    rewriter.eraseOp(generic); // Nothing to compute.
    return success();
  }
  // Long rows: a block per row.
  if (rowReductionMin > 0 && ranges.back() >= rowReductionMin)
    if (std::optional<RowReduction> reduction = matchRowReduction(generic)) {
      int64_t threads = 1;
      while (threads * 2 <= std::min(blockSize, ranges.back()))
        threads *= 2;
      convertRowReduction(rewriter, generic, *reduction, points, threads);
      return success();
    }
  int64_t threads = std::min(blockSize, points);
  int64_t blocks = (points + threads - 1) / threads;

  rewriter.setInsertionPoint(generic);
  auto index = [&](OpBuilder &b, int64_t v) -> Value {
    return arith::ConstantIndexOp::create(b, loc, v);
  };
  Value one = index(rewriter, 1);
  auto launch = gpu::LaunchOp::create(rewriter, loc, index(rewriter, blocks),
                                      one, one, index(rewriter, threads), one,
                                      one);
  Block &launchBody = launch.getBody().front();
  OpBuilder b = OpBuilder::atBlockEnd(&launchBody);
  // The point of this thread: block x * threads + thread x.
  Value linear = arith::AddIOp::create(
      b, loc,
      arith::MulIOp::create(b, loc, launch.getBlockIds().x,
                            index(b, threads)),
      launch.getThreadIds().x);
  auto emitBody = [&](OpBuilder &inner) {
    // The parallel indices, row-major from the linear point.
    SmallVector<Value> ivs = delinearize(
        inner, loc, linear, ArrayRef(ranges).take_front(numParallel));
    SmallVector<Value> lbs, ubs, steps;
    for (unsigned d = numParallel; d < ranges.size(); ++d) {
      lbs.push_back(index(inner, 0));
      ubs.push_back(index(inner, ranges[d]));
      steps.push_back(index(inner, 1));
    }
    scf::buildLoopNest(inner, loc, lbs, ubs, steps,
                       [&](OpBuilder &nb, Location, ValueRange reductionIvs) {
                         SmallVector<Value> all(ivs);
                         llvm::append_range(all, reductionIvs);
                         emitPoint(nb, loc, generic, all);
                       });
  };
  if (points % threads == 0) {
    emitBody(b);
  } else {
    Value inRange = arith::CmpIOp::create(
        b, loc, arith::CmpIPredicate::ult, linear, index(b, points));
    auto guard = scf::IfOp::create(b, loc, inRange, /*withElse=*/false);
    OpBuilder inner = guard.getThenBodyBuilder();
    emitBody(inner);
  }
  gpu::TerminatorOp::create(b, loc);
  rewriter.eraseOp(generic);
  sinkConstants(launch);
  return success();
}

/// Whether `op` (or an op inside it, kernels aside) reads or writes a
/// buffer.
bool accessesBuffers(Operation *op) {
  bool found = false;
  op->walk<WalkOrder::PreOrder>([&](Operation *inner) {
    if (isa<gpu::LaunchOp>(inner))
      return WalkResult::skip();
    auto effects = dyn_cast<MemoryEffectOpInterface>(inner);
    if (!effects)
      return WalkResult::advance();
    SmallVector<MemoryEffects::EffectInstance> list;
    effects.getEffects(list);
    for (const MemoryEffects::EffectInstance &e : list)
      if (isa<MemoryEffects::Read, MemoryEffects::Write>(e.getEffect()) &&
          e.getValue() && isa<MemRefType>(e.getValue().getType())) {
        found = true;
        return WalkResult::interrupt();
      }
    return WalkResult::advance();
  });
  return found;
}

/// What is left on the host after the linalg ops became kernels and still
/// touches buffers (the loops of a scatter, say): each such op of the
/// function's body runs as a kernel of one thread, in place, so that host
/// code never reads or writes the device's memory.
LogicalResult wrapHostAccesses(IRRewriter &rewriter, func::FuncOp fn) {
  SmallVector<Operation *> ops;
  for (Block &block : fn.getBody())
    for (Operation &op : block)
      if (!isa<gpu::LaunchOp>(op) && accessesBuffers(&op))
        ops.push_back(&op);
  for (Operation *op : ops) {
    // A scalar read from an argument (read-only: an input or weight) for
    // kernels: each kernel reads it itself.
    auto load = dyn_cast<memref::LoadOp>(op);
    if (load && isa<BlockArgument>(load.getMemRef()) &&
        llvm::all_of(load->getUsers(), [](Operation *user) {
          return user->getParentOfType<gpu::LaunchOp>();
        })) {
      SmallVector<OpOperand *> uses;
      for (OpOperand &use : load->getUses())
        uses.push_back(&use);
      for (OpOperand *use : uses) {
        auto launch = use->getOwner()->getParentOfType<gpu::LaunchOp>();
        Block &body = launch.getBody().front();
        OpBuilder b = OpBuilder::atBlockBegin(&body);
        use->set(b.clone(*load)->getResult(0));
      }
      rewriter.eraseOp(load);
      continue;
    }
    if (op->getNumResults())
      return op->emitError("reads a buffer for a value the host needs: a "
                           "GPU program's host code cannot");
    WalkResult kernels = op->walk([](gpu::LaunchOp) {
      return WalkResult::interrupt();
    });
    if (kernels.wasInterrupted())
      return op->emitError("reads or writes buffers on the host around "
                           "kernels: a GPU program's host code cannot");
    Location loc = op->getLoc();
    rewriter.setInsertionPoint(op);
    Value one = arith::ConstantIndexOp::create(rewriter, loc, 1);
    auto launch =
        gpu::LaunchOp::create(rewriter, loc, one, one, one, one, one, one);
    Block &body = launch.getBody().front();
    op->moveBefore(&body, body.end());
    OpBuilder b = OpBuilder::atBlockEnd(&body);
    gpu::TerminatorOp::create(b, loc);
    sinkConstants(launch);
  }
  return success();
}

struct TelarLinalgToGpu
    : public telar::impl::TelarLinalgToGpuBase<TelarLinalgToGpu> {
  using Base::Base;
  void runOnOperation() override {
    if (blockSize < 1) {
      getOperation().emitError("block-size must be at least 1");
      return signalPassFailure();
    }
    // A copy is a kernel too.
    SmallVector<memref::CopyOp> copies;
    getOperation().walk([&](memref::CopyOp op) { copies.push_back(op); });
    for (memref::CopyOp copy : copies) {
      OpBuilder b(copy);
      linalg::CopyOp::create(b, copy.getLoc(), copy.getSource(),
                             copy.getTarget());
      copy.erase();
    }
    SmallVector<linalg::LinalgOp> ops;
    getOperation().walk([&](linalg::LinalgOp op) {
      if (op.hasPureBufferSemantics() && !op->getParentOfType<gpu::LaunchOp>())
        ops.push_back(op);
    });
    IRRewriter rewriter(&getContext());
    for (linalg::LinalgOp op : ops)
      if (failed(convertToLaunch(rewriter, op, blockSize, rowReductionMin)))
        return signalPassFailure();
    if (failed(wrapHostAccesses(rewriter, getOperation())))
      return signalPassFailure();
  }
};

} // namespace
