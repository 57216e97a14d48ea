//===- LowerElementwise.cpp - Elementwise telar ops to linalg.generic -----===//
//
// Every elementwise op becomes one all-parallel linalg.generic with
// broadcasting indexing maps; its body is built by the op's `scalar`
// overload below. Signedness comes from the telar op's original types
// (lowered tensors are signless).
//
//===----------------------------------------------------------------------===//

#include "LoweringUtils.h"
#include "telar/dialects/Telar/TelarOps.h"
#include "telar/passes/Lowering.h"

using namespace mlir;
using namespace mlir::telar;

namespace {

/// What a scalar body needs to know besides its arguments.
struct ScalarContext {
  Type elementType;   // lowered (signless) element type of the operands
  bool isUnsigned;    // original operand element type was unsigned
  bool isFloat() const { return isa<FloatType>(elementType); }
};

Value scalar(AddOp, OpBuilder &b, Location loc, ValueRange a,
             const ScalarContext &c) {
  if (c.isFloat())
    return arith::AddFOp::create(b, loc, a[0], a[1]);
  return arith::AddIOp::create(b, loc, a[0], a[1]);
}
Value scalar(SubOp, OpBuilder &b, Location loc, ValueRange a,
             const ScalarContext &c) {
  if (c.isFloat())
    return arith::SubFOp::create(b, loc, a[0], a[1]);
  return arith::SubIOp::create(b, loc, a[0], a[1]);
}
Value scalar(MulOp, OpBuilder &b, Location loc, ValueRange a,
             const ScalarContext &c) {
  if (c.isFloat())
    return arith::MulFOp::create(b, loc, a[0], a[1]);
  return arith::MulIOp::create(b, loc, a[0], a[1]);
}
Value scalar(DivOp, OpBuilder &b, Location loc, ValueRange a,
             const ScalarContext &c) {
  if (c.isFloat())
    return arith::DivFOp::create(b, loc, a[0], a[1]);
  if (c.isUnsigned)
    return arith::DivUIOp::create(b, loc, a[0], a[1]);
  return arith::DivSIOp::create(b, loc, a[0], a[1]);
}
Value scalar(ExpOp, OpBuilder &b, Location loc, ValueRange a,
             const ScalarContext &) {
  return math::ExpOp::create(b, loc, a[0]);
}
Value scalar(TanhOp, OpBuilder &b, Location loc, ValueRange a,
             const ScalarContext &) {
  return math::TanhOp::create(b, loc, a[0]);
}
Value scalar(ReluOp, OpBuilder &b, Location loc, ValueRange a,
             const ScalarContext &c) {
  Value zero = scalarConstant(b, loc, c.elementType, 0.0);
  return arith::MaximumFOp::create(b, loc, a[0], zero);
}

/// One pattern for every elementwise op: maps + body from `scalar(OpTy)`.
template <typename OpTy>
struct ElementwiseLowering : OpConversionPattern<OpTy> {
  using OpConversionPattern<OpTy>::OpConversionPattern;
  LogicalResult
  matchAndRewrite(OpTy op, typename OpTy::Adaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto resultType = cast<RankedTensorType>(
        this->getTypeConverter()->convertType(op.getType()));
    Type origElement =
        cast<ShapedType>(op->getOperand(0).getType()).getElementType();
    ScalarContext ctx{signlessElementType(origElement),
                      origElement.isUnsignedInteger()};
    Value result = buildElementwise(
        rewriter, op.getLoc(), resultType, adaptor.getOperands(),
        [&](OpBuilder &b, Location loc, ValueRange args) {
          return scalar(op, b, loc, args, ctx);
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

} // namespace

void telar::populateElementwiseLoweringPatterns(const TypeConverter &converter,
                                                RewritePatternSet &patterns) {
  patterns.add<ElementwiseLowering<AddOp>, ElementwiseLowering<SubOp>,
               ElementwiseLowering<MulOp>, ElementwiseLowering<DivOp>,
               ElementwiseLowering<ExpOp>, ElementwiseLowering<TanhOp>,
               ElementwiseLowering<ReluOp>>(converter, patterns.getContext());
}
