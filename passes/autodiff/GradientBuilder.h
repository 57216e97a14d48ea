//===- GradientBuilder.h - Helpers the VJPs build telar ops with -*- C++ -*-===//
//
// The op families' VJPs (passes/autodiff/*Gradients.cpp) and the training
// step write their math through GradientBuilder: telar ops with inferred
// result types, scalar constants of a tensor's element type, and the
// reduction of a broadcast gradient back to its operand's shape.
//
//===----------------------------------------------------------------------===//

#ifndef TELAR_PASSES_AUTODIFF_GRADIENTBUILDER_H
#define TELAR_PASSES_AUTODIFF_GRADIENTBUILDER_H

#include "telar/dialects/Telar/TelarOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"

namespace mlir::telar::autodiff {

class GradientBuilder {
public:
  GradientBuilder(OpBuilder &b, Location loc) : b(b), loc(loc) {}

  OpBuilder &getBuilder() { return b; }
  Location getLoc() const { return loc; }

  /// A rank-0 constant `value` of `like`'s element type (`like` a tensor
  /// value or type).
  Value scalar(Type like, double value);
  Value scalar(Value like, double value) { return scalar(like.getType(), value); }
  /// Zeros of `type`.
  Value zeros(Type type);

  Value add(Value a, Value c) { return AddOp::create(b, loc, a, c); }
  Value sub(Value a, Value c) { return SubOp::create(b, loc, a, c); }
  Value mul(Value a, Value c) { return MulOp::create(b, loc, a, c); }
  Value div(Value a, Value c) { return DivOp::create(b, loc, a, c); }
  Value neg(Value a) { return NegOp::create(b, loc, a); }
  Value mulScalar(Value a, double s) { return mul(a, scalar(a, s)); }
  Value exp(Value a) { return ExpOp::create(b, loc, a); }
  Value sqrt(Value a) { return SqrtOp::create(b, loc, a); }
  Value where(Value c, Value x, Value y) {
    return WhereOp::create(b, loc, c, x, y);
  }
  Value greater(Value a, Value c) { return GreaterOp::create(b, loc, a, c); }
  Value equal(Value a, Value c) { return EqualOp::create(b, loc, a, c); }
  Value cast(Value a, Type elementType);
  Value reshape(Value a, ArrayRef<int64_t> shape);
  Value transpose(Value a, ArrayRef<int64_t> perm);
  /// `a` broadcast to `shape` (telar.expand).
  Value expand(Value a, ArrayRef<int64_t> shape);
  /// Sum over `axes` (sorted, non-negative), kept as size-1 dimensions
  /// when `keepdims`.
  Value reduceSum(Value a, ArrayRef<int64_t> axes, bool keepdims);
  Value reduceMean(Value a, ArrayRef<int64_t> axes, bool keepdims);

  /// The gradient `grad` of a broadcast result reduced to the shape of the
  /// operand of type `target` that was broadcast (ONNX/numpy rules: leading
  /// dimensions summed away, size-1 dimensions summed with keepdims);
  /// `grad` itself when the shapes agree.
  Value sumToShape(Value grad, Type target);

private:
  OpBuilder &b;
  Location loc;
};

/// The dimensions of `type`.
inline ArrayRef<int64_t> shapeOf(Value v) {
  return cast<RankedTensorType>(v.getType()).getShape();
}
inline bool isFloatTensor(Value v) {
  return isa<FloatType>(cast<ShapedType>(v.getType()).getElementType());
}
/// `axis` (negative counts from the back) within [0, rank).
inline int64_t positiveAxis(int64_t axis, int64_t rank) {
  return axis < 0 ? axis + rank : axis;
}

/// A VJP: `dys` one per result (null: no gradient), `dxs` set to one per
/// operand (null already: no gradient).
using VjpFn = LogicalResult (*)(Operation *op, GradientBuilder &g,
                                ArrayRef<Value> dys,
                                SmallVectorImpl<Value> &dxs);

/// The GradientOpInterface model of `OpT` whose VJP is `Fn`.
template <typename OpT, VjpFn Fn>
struct GradientModel
    : GradientOpInterface::ExternalModel<GradientModel<OpT, Fn>, OpT> {
  LogicalResult buildGradients(Operation *op, OpBuilder &b,
                               ArrayRef<Value> dys,
                               SmallVectorImpl<Value> &dxs) const {
    GradientBuilder g(b, op->getLoc());
    dxs.assign(op->getNumOperands(), Value());
    return Fn(op, g, dys, dxs);
  }
};
template <typename OpT, VjpFn Fn>
void attachGradient(MLIRContext *ctx) {
  OpT::template attachInterface<GradientModel<OpT, Fn>>(*ctx);
}

// The families' models, attached by registerGradientInterfaces.
void registerElementwiseGradients(MLIRContext *ctx);
void registerContractionGradients(MLIRContext *ctx);
void registerConvolutionGradients(MLIRContext *ctx);
void registerReductionGradients(MLIRContext *ctx);
void registerNormalizationGradients(MLIRContext *ctx);
void registerDataMovementGradients(MLIRContext *ctx);

} // namespace mlir::telar::autodiff

#endif // TELAR_PASSES_AUTODIFF_GRADIENTBUILDER_H
