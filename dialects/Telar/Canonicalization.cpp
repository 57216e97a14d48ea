//===- Canonicalization.cpp - Rewrite patterns of telar ops ---------------===//
//
// The patterns canonicalize applies besides the folders (Folders.cpp):
// rewrites that create ops, which a folder may not.
//
//===----------------------------------------------------------------------===//

#include "telar/dialects/Telar/TelarDialect.h"
#include "telar/dialects/Telar/TelarOps.h"

#include "mlir/IR/PatternMatch.h"

using namespace mlir;
using namespace mlir::telar;

namespace {

/// transpose(matmul(A, B)) of matrices where A or B is a transpose:
/// matmul(B^T, A^T), whose transposes cancel those of A and B. A linear
/// layer's weight gradient, (X^T dY)^T, becomes dY^T X: one transpose of the
/// batch-sized dY instead of X^T and of the weight-sized product.
struct TransposeOfMatMulOfTranspose : OpRewritePattern<TransposeOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(TransposeOp op,
                                PatternRewriter &rewriter) const override {
    auto mm = op.getInput().getDefiningOp<MatMulOp>();
    if (!mm || !mm->hasOneUse() || op.getPerm().size() != 2 ||
        cast<RankedTensorType>(mm.getLhs().getType()).getRank() != 2 ||
        cast<RankedTensorType>(mm.getRhs().getType()).getRank() != 2)
      return failure();
    auto lhsT = mm.getLhs().getDefiningOp<TransposeOp>();
    auto rhsT = mm.getRhs().getDefiningOp<TransposeOp>();
    if (!lhsT && !rhsT)
      return failure();
    Location loc = op.getLoc();
    StringRef phaseName = TelarDialect::PhaseAttrHelper::getNameStr();
    Attribute phase = op->getAttr(phaseName);
    auto swapped = [&](Value v, TransposeOp t) -> Value {
      if (t)
        return t.getInput();
      auto transposed =
          TransposeOp::create(rewriter, loc, v, ArrayRef<int64_t>{1, 0});
      if (phase)
        transposed->setAttr(phaseName, phase);
      return transposed;
    };
    Value lhs = swapped(mm.getRhs(), rhsT), rhs = swapped(mm.getLhs(), lhsT);
    auto product = MatMulOp::create(rewriter, loc, op.getType(), lhs, rhs);
    // The transpose's names (a gradient's P@grad) and phase go with it.
    product->setDiscardableAttrs(op->getDiscardableAttrDictionary());
    rewriter.replaceOp(op, product.getResult());
    return success();
  }
};

} // namespace

void TransposeOp::getCanonicalizationPatterns(RewritePatternSet &results,
                                              MLIRContext *context) {
  results.add<TransposeOfMatMulOfTranspose>(context);
}
