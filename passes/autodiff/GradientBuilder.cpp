//===- GradientBuilder.cpp - Helpers the VJPs build telar ops with --------===//

#include "GradientBuilder.h"

#include "telar/passes/autodiff/Passes.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/DialectRegistry.h"

using namespace mlir;
using namespace mlir::telar;
using namespace mlir::telar::autodiff;

Value GradientBuilder::scalar(Type like, double value) {
  Type element = mlir::cast<ShapedType>(like).getElementType();
  auto type = RankedTensorType::get({}, element);
  Attribute attr;
  if (auto f = dyn_cast<FloatType>(element))
    attr = DenseElementsAttr::get(type, b.getFloatAttr(f, value));
  else
    attr = DenseElementsAttr::get(
        type, b.getIntegerAttr(element, static_cast<int64_t>(value)));
  return ConstantOp::create(b, loc, mlir::cast<ElementsAttr>(attr));
}

Value GradientBuilder::zeros(Type type) {
  auto shaped = mlir::cast<RankedTensorType>(type);
  Attribute zero = b.getZeroAttr(shaped.getElementType());
  return ConstantOp::create(
      b, loc, mlir::cast<ElementsAttr>(DenseElementsAttr::get(shaped, zero)));
}

Value GradientBuilder::cast(Value a, Type elementType) {
  if (mlir::cast<ShapedType>(a.getType()).getElementType() == elementType)
    return a;
  return CastOp::create(b, loc, a, TypeAttr::get(elementType),
                        b.getBoolAttr(true));
}

Value GradientBuilder::reshape(Value a, ArrayRef<int64_t> shape) {
  if (shapeOf(a) == shape)
    return a;
  return ReshapeOp::create(b, loc, a, shape);
}

Value GradientBuilder::transpose(Value a, ArrayRef<int64_t> perm) {
  bool identity = true;
  for (auto [i, p] : llvm::enumerate(perm))
    identity &= int64_t(i) == p;
  if (identity)
    return a;
  return TransposeOp::create(b, loc, a, perm);
}

Value GradientBuilder::expand(Value a, ArrayRef<int64_t> shape) {
  if (shapeOf(a) == shape)
    return a;
  return ExpandOp::create(b, loc, a, shape);
}

Value GradientBuilder::reduceSum(Value a, ArrayRef<int64_t> axes,
                                 bool keepdims) {
  if (axes.empty())
    return a;
  return ReduceSumOp::create(b, loc, a, axes, keepdims);
}

Value GradientBuilder::reduceMean(Value a, ArrayRef<int64_t> axes,
                                  bool keepdims) {
  if (axes.empty())
    return a;
  return ReduceMeanOp::create(b, loc, a, axes, keepdims);
}

Value GradientBuilder::sumToShape(Value grad, Type target) {
  ArrayRef<int64_t> to = mlir::cast<RankedTensorType>(target).getShape();
  ArrayRef<int64_t> from = shapeOf(grad);
  if (from == to)
    return grad;
  int64_t lead = int64_t(from.size()) - int64_t(to.size());
  SmallVector<int64_t> leading, ones;
  for (int64_t d = 0; d < lead; ++d)
    leading.push_back(d);
  for (int64_t d = 0; d < int64_t(to.size()); ++d)
    if (to[d] == 1 && from[lead + d] != 1)
      ones.push_back(lead + d);
  // One reduction over both kinds, kept, then the leading ones dropped.
  SmallVector<int64_t> axes(leading);
  axes.append(ones);
  Value summed = reduceSum(grad, axes, /*keepdims=*/true);
  return reshape(summed, to);
}

void mlir::telar::registerGradientInterfaces(DialectRegistry &registry) {
  registry.addExtension(+[](MLIRContext *ctx, TelarDialect *) {
    registerElementwiseGradients(ctx);
    registerContractionGradients(ctx);
    registerConvolutionGradients(ctx);
    registerReductionGradients(ctx);
    registerNormalizationGradients(ctx);
    registerDataMovementGradients(ctx);
  });
}
