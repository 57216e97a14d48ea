//===- ApproximateMath.cpp - Vectorisable f32 math functions --------------===//

#include "telar/passes/lowering/Passes.h"

#include "mlir/Dialect/Math/Transforms/Passes.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::telar {
#define GEN_PASS_DEF_TELARAPPROXIMATEMATH
#include "telar/passes/lowering/Passes.h.inc"
} // namespace mlir::telar

using namespace mlir;

namespace {
struct TelarApproximateMath
    : public telar::impl::TelarApproximateMathBase<TelarApproximateMath> {
  using Base::Base;
  void runOnOperation() override {
    SmallVector<std::string> names(ops.begin(), ops.end());
    if (names.empty())
      names = {"erf", "exp", "tanh"};
    RewritePatternSet patterns(&getContext());
    populateMathPolynomialApproximationPatterns(
        patterns, [&](StringRef name) {
          // Upstream passes operation names ("math.erf").
          name.consume_front("math.");
          return llvm::is_contained(names, name);
        });
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};
} // namespace
