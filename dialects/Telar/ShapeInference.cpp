//===- ShapeInference.cpp - Shared result-type inference ------------------===//

#include "telar/dialects/Telar/ShapeInference.h"

#include "mlir/IR/Diagnostics.h"
#include "llvm/ADT/STLExtras.h"

using namespace mlir;

namespace mlir::telar {

std::string toString(Type type) {
  std::string s;
  llvm::raw_string_ostream os(s);
  os << type;
  return s;
}

std::string toString(ArrayRef<int64_t> dims) {
  std::string s;
  llvm::raw_string_ostream os(s);
  os << '[';
  llvm::interleaveComma(dims, os, [&](int64_t d) {
    if (ShapedType::isDynamic(d))
      os << '?';
    else
      os << d;
  });
  os << ']';
  return s;
}

std::optional<SmallVector<int64_t>> broadcastShapes(ArrayRef<int64_t> a,
                                                    ArrayRef<int64_t> b) {
  size_t rank = std::max(a.size(), b.size());
  SmallVector<int64_t> out(rank);
  for (size_t i = 0; i < rank; ++i) {
    int64_t da = i < rank - a.size() ? 1 : a[i - (rank - a.size())];
    int64_t db = i < rank - b.size() ? 1 : b[i - (rank - b.size())];
    if (da == db || db == 1) {
      out[i] = da;
    } else if (da == 1) {
      out[i] = db;
    } else if (ShapedType::isDynamic(da) || ShapedType::isDynamic(db)) {
      out[i] = ShapedType::isDynamic(da) ? db : da;
    } else {
      return std::nullopt;
    }
  }
  return out;
}

std::optional<int64_t> normalizeAxis(int64_t axis, int64_t rank) {
  if (axis < -rank || axis >= rank)
    return std::nullopt;
  return axis < 0 ? axis + rank : axis;
}

LogicalResult checkAxis(std::optional<Location> loc, Type type, int64_t axis) {
  auto ranked = dyn_cast<RankedTensorType>(type);
  if (!ranked)
    return emitOptionalError(loc, "expected a ranked tensor, got ", type);
  if (!normalizeAxis(axis, ranked.getRank()))
    return emitOptionalError(loc, "axis ", axis, " is out of range for ",
                             toString(type), " (rank ", ranked.getRank(), ")");
  return success();
}

LogicalResult inferWithElementType(Type type, Type elementType,
                                   SmallVectorImpl<Type> &results) {
  auto ranked = cast<RankedTensorType>(type);
  results.push_back(RankedTensorType::get(ranked.getShape(), elementType));
  return success();
}

LogicalResult inferBroadcast(std::optional<Location> loc,
                             ArrayRef<Type> operands, Type resultElementType,
                             SmallVectorImpl<Type> &results) {
  auto first = cast<RankedTensorType>(operands.front());
  SmallVector<int64_t> shape(first.getShape());
  for (Type t : operands.drop_front()) {
    auto ranked = cast<RankedTensorType>(t);
    if (ranked.getElementType() != first.getElementType())
      return emitOptionalError(loc, "operands have different element types: ",
                               toString(first), " and ", toString(ranked));
    auto b = broadcastShapes(shape, ranked.getShape());
    if (!b)
      return emitOptionalError(loc, "operand shapes do not broadcast: ",
                               toString(first), " and ", toString(ranked));
    shape = *b;
  }
  results.push_back(RankedTensorType::get(
      shape, resultElementType ? resultElementType : first.getElementType()));
  return success();
}

LogicalResult inferWhere(std::optional<Location> loc, Type cond, Type lhs,
                         Type rhs, SmallVectorImpl<Type> &results) {
  SmallVector<Type> values;
  if (failed(inferBroadcast(loc, {lhs, rhs}, nullptr, values)))
    return failure();
  auto c = cast<RankedTensorType>(cond);
  auto v = cast<RankedTensorType>(values.front());
  auto shape = broadcastShapes(c.getShape(), v.getShape());
  if (!shape)
    return emitOptionalError(loc, "condition ", toString(c),
                             " does not broadcast with ", toString(v));
  results.push_back(RankedTensorType::get(*shape, v.getElementType()));
  return success();
}

LogicalResult inferReduce(std::optional<Location> loc, Type input,
                          ArrayRef<int64_t> axes, bool keepDims,
                          Type resultElementType,
                          SmallVectorImpl<Type> &results) {
  auto type = cast<RankedTensorType>(input);
  int64_t rank = type.getRank();
  SmallVector<bool> reduced(rank, axes.empty());
  for (int64_t axis : axes) {
    auto a = normalizeAxis(axis, rank);
    if (!a)
      return emitOptionalError(loc, "reduction axis ", axis,
                               " is out of range for ", toString(type));
    if (reduced[*a])
      return emitOptionalError(loc, "reduction axis ", axis, " is repeated");
    reduced[*a] = true;
  }
  SmallVector<int64_t> shape;
  for (int64_t i = 0; i < rank; ++i) {
    if (!reduced[i])
      shape.push_back(type.getDimSize(i));
    else if (keepDims)
      shape.push_back(1);
  }
  results.push_back(RankedTensorType::get(
      shape, resultElementType ? resultElementType : type.getElementType()));
  return success();
}

LogicalResult inferArgReduce(std::optional<Location> loc, Type input,
                             int64_t axis, bool keepDims,
                             SmallVectorImpl<Type> &results) {
  auto type = cast<RankedTensorType>(input);
  if (type.getRank() == 0)
    return emitOptionalError(loc, "expected a tensor of rank >= 1");
  return inferReduce(loc, input, {axis}, keepDims,
                     IntegerType::get(input.getContext(), 64), results);
}

int64_t windowOutputSize(int64_t in, int64_t kernel, int64_t stride,
                         int64_t padBegin, int64_t padEnd, int64_t dilation,
                         bool ceilMode) {
  if (ShapedType::isDynamic(in))
    return ShapedType::kDynamic;
  int64_t span = (kernel - 1) * dilation + 1;
  int64_t avail = in + padBegin + padEnd - span;
  if (avail < 0 || stride <= 0)
    return -1;
  int64_t out = (ceilMode ? (avail + stride - 1) / stride : avail / stride) + 1;
  // With ceil_mode, the last window must start inside the input or the
  // begin padding (ONNX and PyTorch agree on this).
  if (ceilMode && (out - 1) * stride >= in + padBegin)
    --out;
  return out;
}

LogicalResult inferPool(std::optional<Location> loc, Type input,
                        ArrayRef<int64_t> kernel, ArrayRef<int64_t> strides,
                        ArrayRef<int64_t> pads, ArrayRef<int64_t> dilations,
                        bool ceilMode, SmallVectorImpl<Type> &results) {
  auto type = cast<RankedTensorType>(input);
  int64_t spatial = type.getRank() - 2;
  if (spatial < 1)
    return emitOptionalError(loc, "pooling needs an N x C x spatial... input, got ",
                             toString(type));
  if ((int64_t)kernel.size() != spatial || (int64_t)strides.size() != spatial ||
      (int64_t)dilations.size() != spatial || (int64_t)pads.size() != 2 * spatial)
    return emitOptionalError(
        loc, "pooling over ", spatial, " spatial axes needs ", spatial,
        " kernel sizes, strides and dilations and ", 2 * spatial,
        " pads; got ", kernel.size(), ", ", strides.size(), ", ",
        dilations.size(), " and ", pads.size());
  SmallVector<int64_t> shape(type.getShape().take_front(2));
  for (int64_t i = 0; i < spatial; ++i) {
    if (kernel[i] < 1 || strides[i] < 1 || dilations[i] < 1 || pads[i] < 0 ||
        pads[i + spatial] < 0)
      return emitOptionalError(loc, "pooling kernel sizes, strides and "
                                    "dilations must be positive and pads "
                                    "non-negative");
    int64_t out = windowOutputSize(type.getDimSize(i + 2), kernel[i], strides[i],
                                   pads[i], pads[i + spatial], dilations[i],
                                   ceilMode);
    if (out != ShapedType::kDynamic && out < 1)
      return emitOptionalError(loc, "pooling window of ", kernel[i],
                               " does not fit spatial axis ", i, " of ",
                               toString(type));
    shape.push_back(out);
  }
  results.push_back(RankedTensorType::get(shape, type.getElementType()));
  return success();
}

} // namespace mlir::telar
