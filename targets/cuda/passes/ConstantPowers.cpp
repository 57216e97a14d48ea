//===- ConstantPowers.cpp - Powers with constant exponents as products ----===//

#include "telar/targets/cuda/Passes.h"

#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Math/Transforms/Passes.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::telar {
#define GEN_PASS_DEF_TELARCONSTANTPOWERS
#include "telar/targets/cuda/Passes.h.inc"
} // namespace mlir::telar

using namespace mlir;

namespace {
struct TelarConstantPowers
    : public telar::impl::TelarConstantPowersBase<TelarConstantPowers> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    populateMathAlgebraicSimplificationPatterns(patterns);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      return signalPassFailure();
  }
};
} // namespace
