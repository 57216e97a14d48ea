//===- LinalgToLoops.cpp - Loops, parallel only where it pays --------------===//

#include "telar/passes/Passes.h"

#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/SCF/Utils/Utils.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/PatternMatch.h"

namespace mlir::telar {
#define GEN_PASS_DEF_TELARLINALGTOLOOPS
#include "telar/passes/Passes.h.inc"
} // namespace mlir::telar

using namespace mlir;

namespace {

/// An N-d scf.parallel becomes an scf.parallel over its leading dimensions
/// (enough of them for `minOuterPoints` iterations, never the innermost)
/// with sequential scf.for loops inside. OpenMP would otherwise collapse all dimensions into one
/// linear loop that recomputes each index with div/rem, which the LLVM
/// vectoriser cannot vectorise; an innermost scf.for over contiguous
/// elements vectorises.
void keepInnerLoopsSequential(scf::ParallelOp op, int64_t minOuterPoints) {
  unsigned n = op.getNumLoops();
  if (n < 2)
    return;
  unsigned keep = 1;
  int64_t points = 1;
  for (; keep < n - 1; ++keep) {
    std::optional<int64_t> lb = getConstantIntValue(op.getLowerBound()[keep - 1]);
    std::optional<int64_t> ub = getConstantIntValue(op.getUpperBound()[keep - 1]);
    std::optional<int64_t> st = getConstantIntValue(op.getStep()[keep - 1]);
    if (!lb || !ub || !st)
      break;
    points *= (*ub - *lb + *st - 1) / *st;
    if (points >= minOuterPoints)
      break;
  }
  OpBuilder b(op);
  Location loc = op.getLoc();
  auto outer = scf::ParallelOp::create(
      b, loc, op.getLowerBound().take_front(keep),
      op.getUpperBound().take_front(keep), op.getStep().take_front(keep));
  b.setInsertionPoint(outer.getBody()->getTerminator());
  IRMapping mapping;
  for (unsigned i = 0; i < keep; ++i)
    mapping.map(op.getInductionVars()[i], outer.getInductionVars()[i]);
  scf::buildLoopNest(
      b, loc, op.getLowerBound().drop_front(keep),
      op.getUpperBound().drop_front(keep), op.getStep().drop_front(keep),
      [&](OpBuilder &nb, Location, ValueRange ivs) {
        for (auto [oldIv, newIv] :
             llvm::zip(ValueRange(op.getInductionVars()).drop_front(keep), ivs))
          mapping.map(oldIv, newIv);
        for (Operation &inner : op.getBody()->without_terminator())
          nb.clone(inner, mapping);
      });
  op.erase();
}

struct TelarLinalgToLoops
    : public telar::impl::TelarLinalgToLoopsBase<TelarLinalgToLoops> {
  using Base::Base;
  void runOnOperation() override {
    // memref.copy would become a call to MLIR's `memrefCopy` runtime helper
    // for strided views; as a linalg.copy it becomes plain (vectorisable)
    // loops instead.
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
      if (op.hasPureBufferSemantics())
        ops.push_back(op);
    });
    IRRewriter rewriter(&getContext());
    for (linalg::LinalgOp op : ops) {
      int64_t points = 1;
      for (int64_t range : op.getStaticLoopRanges())
        points = ShapedType::isDynamic(range) ? minParallelWork
                                              : points * range;
      rewriter.setInsertionPoint(op);
      FailureOr<linalg::LinalgLoops> loops =
          points >= minParallelWork
              ? linalg::linalgOpToParallelLoops(rewriter, op)
              : linalg::linalgOpToLoops(rewriter, op);
      if (failed(loops)) {
        op.emitError() << "cannot lower to loops";
        return signalPassFailure();
      }
      rewriter.eraseOp(op);
      for (Operation *loop : *loops)
        if (auto parallel = dyn_cast<scf::ParallelOp>(loop))
          keepInnerLoopsSequential(parallel, /*minOuterPoints=*/64);
    }
  }
};
} // namespace
