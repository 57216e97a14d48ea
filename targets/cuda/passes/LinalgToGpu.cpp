//===- LinalgToGpu.cpp - One GPU kernel per linalg op on buffers ----------===//
//
// The plain mapping of the CUDA target: the parallel points of an op, one
// per thread; its reductions as loops inside the thread. No shared memory
// and no barriers, so the kernels are correct at any launch size and the
// CPU emulation runs them exactly.
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

LogicalResult convertToLaunch(RewriterBase &rewriter, linalg::LinalgOp op,
                              int64_t blockSize) {
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
    SmallVector<Value> ivs(numParallel);
    Value rest = linear;
    for (int64_t d = int64_t(numParallel) - 1; d >= 0; --d) {
      Value range = index(inner, ranges[d]);
      ivs[d] = d == 0 ? rest : arith::RemUIOp::create(inner, loc, rest, range);
      if (d > 0)
        rest = arith::DivUIOp::create(inner, loc, rest, range);
    }
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
      if (failed(convertToLaunch(rewriter, op, blockSize)))
        return signalPassFailure();
    if (failed(wrapHostAccesses(rewriter, getOperation())))
      return signalPassFailure();
  }
};

} // namespace
