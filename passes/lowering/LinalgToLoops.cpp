//===- LinalgToLoops.cpp - Loops, parallel only where it pays --------------===//

#include "telar/passes/Passes.h"

#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/IR/PatternMatch.h"

namespace mlir::telar {
#define GEN_PASS_DEF_TELARLINALGTOLOOPS
#include "telar/passes/Passes.h.inc"
} // namespace mlir::telar

using namespace mlir;

namespace {
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
    }
  }
};
} // namespace
