//===- LowerToLinalg.cpp - The telar-lower-to-linalg pass ------------------===//
//
// Collects the per-family patterns (Lower*.cpp) and runs one partial
// conversion: telar is illegal afterwards. Unsigned integer tensors become
// signless (arith only knows signless integers); patterns read signedness
// from the original telar op when it matters.
//
//===----------------------------------------------------------------------===//

#include "LoweringUtils.h"
#include "telar/dialects/Telar/TelarOps.h"
#include "telar/passes/lowering/Patterns.h"
#include "telar/passes/lowering/Passes.h"

#include "mlir/Dialect/Func/Transforms/FuncConversions.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "mlir/Transforms/DialectConversion.h"

namespace mlir::telar {
#define GEN_PASS_DEF_TELARLOWERTOLINALG
#include "telar/passes/lowering/Passes.h.inc"
} // namespace mlir::telar

using namespace mlir;
using namespace mlir::telar;

namespace {

struct LowerConstant : OpConversionPattern<ConstantOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(ConstantOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto type = cast<RankedTensorType>(
        getTypeConverter()->convertType(op.getType()));
    TypedAttr value = cast<TypedAttr>(op.getValue());
    if (type != op.getType()) {
      if (auto dense = dyn_cast<DenseElementsAttr>(value))
        value = dense.bitcast(type.getElementType());
      else if (auto res = dyn_cast<DenseResourceElementsAttr>(value))
        value = DenseResourceElementsAttr::get(type, res.getRawHandle());
      else
        return rewriter.notifyMatchFailure(op, "unsupported constant kind");
    }
    rewriter.replaceOpWithNewOp<arith::ConstantOp>(op, type, value);
    return success();
  }
};

struct TelarLowerToLinalg
    : public telar::impl::TelarLowerToLinalgBase<TelarLowerToLinalg> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    // Static shapes are a precondition: report every offender by name
    // instead of a generic legalization failure.
    bool dynamic = false;
    module.walk([&](Operation *op) {
      if (!isa<TelarDialect>(op->getDialect()) || hasStaticShapes(op))
        return;
      op->emitError() << "'" << op->getName()
                      << "' has dynamic shapes; code generation needs static "
                         "shapes (give them with --input-shape)";
      dynamic = true;
    });
    if (dynamic)
      return signalPassFailure();

    MLIRContext *ctx = &getContext();
    TelarTypeConverter converter;
    ConversionTarget target(*ctx);
    target.addIllegalDialect<TelarDialect>();
    target.addLegalDialect<arith::ArithDialect, math::MathDialect,
                           linalg::LinalgDialect, tensor::TensorDialect,
                           scf::SCFDialect,
                           bufferization::BufferizationDialect>();
    target.addDynamicallyLegalOp<func::FuncOp>([&](func::FuncOp op) {
      return converter.isSignatureLegal(op.getFunctionType()) &&
             converter.isLegal(&op.getBody());
    });
    target.addDynamicallyLegalOp<func::ReturnOp, func::CallOp>(
        [&](Operation *op) { return converter.isLegal(op); });

    RewritePatternSet patterns(ctx);
    patterns.add<LowerConstant>(converter, ctx);
    populateFunctionOpInterfaceTypeConversionPattern<func::FuncOp>(patterns,
                                                                   converter);
    populateReturnOpTypeConversionPattern(patterns, converter);
    populateCallOpTypeConversionPattern(patterns, converter);
    populateElementwiseLoweringPatterns(converter, patterns);
    populateReductionLoweringPatterns(converter, patterns);
    populateDataMovementLoweringPatterns(converter, patterns);
    populateContractionLoweringPatterns(converter, patterns);
    // Ops without any pattern get a message of their own; ops whose
    // patterns do not match (an unsupported attribute) get the conversion
    // driver's "failed to legalize" with the pattern's reason.
    llvm::DenseSet<OperationName> lowered;
    for (const auto &pattern : patterns.getNativePatterns())
      if (std::optional<OperationName> root = pattern->getRootKind())
        lowered.insert(*root);
    bool missing = false;
    llvm::DenseSet<OperationName> reported;
    module.walk([&](Operation *op) {
      // One error per op kind, at its first occurrence.
      if (isa<TelarDialect>(op->getDialect()) &&
          !lowered.contains(op->getName()) &&
          reported.insert(op->getName()).second) {
        op->emitError() << "'" << op->getName()
                        << "' cannot be compiled yet: it has no lowering";
        missing = true;
      }
    });
    if (missing)
      return signalPassFailure();
    if (failed(applyPartialConversion(module, target, std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace
