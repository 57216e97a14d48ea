//===- FuseElementwise.cpp - Elementwise fusion that keeps named ops ------===//

#include "telar/passes/lowering/Passes.h"

#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/Tensor/Transforms/Transforms.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::telar {
#define GEN_PASS_DEF_TELARFUSEELEMENTWISE
#include "telar/passes/lowering/Passes.h.inc"
} // namespace mlir::telar

using namespace mlir;

namespace {

bool isNamedLinalgOp(Operation *op) {
  return op && isa<linalg::LinalgOp>(op) && !isa<linalg::GenericOp>(op);
}

struct TelarFuseElementwise
    : public telar::impl::TelarFuseElementwiseBase<TelarFuseElementwise> {
  void runOnOperation() override {
    MLIRContext *ctx = &getContext();
    // A transpose whose only reader is a generic becomes a generic too,
    // which then fuses into an elementwise one: the consumer reads the
    // transposed operand in place (attention's queries: heads split off,
    // transposed and scaled in one pass instead of two).
    SmallVector<linalg::TransposeOp> transposes;
    getOperation().walk([&](linalg::TransposeOp op) {
      if (op->hasOneUse() && isa<linalg::GenericOp>(*op->user_begin()))
        transposes.push_back(op);
    });
    IRRewriter rewriter(ctx);
    for (linalg::TransposeOp op : transposes) {
      rewriter.setInsertionPoint(op);
      (void)linalg::generalizeNamedOp(rewriter, op);
    }
    linalg::ControlFusionFn control = [](OpOperand *operand) {
      Operation *producer = operand->get().getDefiningOp();
      return producer && producer->hasOneUse() &&
             !isNamedLinalgOp(producer) &&
             !isNamedLinalgOp(operand->getOwner());
    };
    RewritePatternSet patterns(ctx);
    linalg::populateElementwiseOpsFusionPatterns(patterns, control);
    linalg::populateFoldReshapeOpsByExpansionPatterns(patterns, control);
    linalg::populateEraseUnusedOperandsAndResultsPatterns(patterns);
    tensor::populateFoldTensorEmptyPatterns(patterns);
    linalg::GenericOp::getCanonicalizationPatterns(patterns, ctx);
    tensor::CollapseShapeOp::getCanonicalizationPatterns(patterns, ctx);
    tensor::ExpandShapeOp::getCanonicalizationPatterns(patterns, ctx);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace
