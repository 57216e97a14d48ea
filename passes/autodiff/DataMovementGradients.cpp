//===- DataMovementGradients.cpp - VJPs of shape and data movement --------===//
//
// Views move the gradient back (reshape, transpose by the inverse
// permutation); broadcasts sum it; slices and pads pad or crop it; concat
// and split slice or join it; gathers scatter-add it into zeros (an
// embedding's rows used twice get both rows' gradients).
//
//===----------------------------------------------------------------------===//

#include "GradientBuilder.h"

using namespace mlir;
using namespace mlir::telar;
using namespace mlir::telar::autodiff;

namespace {

/// `v` padded with zeros by `pads` (begins, then ends; negative crops).
Value padWithZeros(GradientBuilder &g, Value v, ArrayRef<int64_t> pads) {
  OpBuilder &b = g.getBuilder();
  return PadOp::create(b, g.getLoc(), v, b.getDenseI64ArrayAttr(pads),
                       b.getStringAttr("constant"), b.getF64FloatAttr(0.0));
}

/// The gradient reshaped to the input's shape: reshape, squeeze, unsqueeze.
LogicalResult reshapeVjp(Operation *op, GradientBuilder &g,
                         ArrayRef<Value> dys, SmallVectorImpl<Value> &dxs) {
  if (isFloatTensor(op->getOperand(0)))
    dxs[0] = g.reshape(dys[0], shapeOf(op->getOperand(0)));
  return success();
}

LogicalResult transposeVjp(Operation *op, GradientBuilder &g,
                           ArrayRef<Value> dys, SmallVectorImpl<Value> &dxs) {
  ArrayRef<int64_t> perm = cast<TransposeOp>(op).getPerm();
  SmallVector<int64_t> inverse(perm.size());
  for (auto [i, p] : llvm::enumerate(perm))
    inverse[p] = i;
  dxs[0] = g.transpose(dys[0], inverse);
  return success();
}

LogicalResult expandVjp(Operation *op, GradientBuilder &g, ArrayRef<Value> dys,
                        SmallVectorImpl<Value> &dxs) {
  dxs[0] = g.sumToShape(dys[0], op->getOperand(0).getType());
  return success();
}

LogicalResult sliceVjp(Operation *op, GradientBuilder &g, ArrayRef<Value> dys,
                       SmallVectorImpl<Value> &dxs) {
  auto slice = cast<SliceOp>(op);
  ArrayRef<int64_t> inShape = shapeOf(slice.getInput());
  ArrayRef<int64_t> outShape = shapeOf(slice.getResult());
  int64_t rank = inShape.size();
  // The gradient padded with zeros where the slice cut: begin pads are the
  // starts (clamped as ONNX clamps them), end pads what is left.
  SmallVector<int64_t> pads(2 * rank, 0);
  for (auto [i, axisAttr] : llvm::enumerate(slice.getAxes())) {
    int64_t axis = positiveAxis(axisAttr, rank);
    int64_t dim = inShape[axis];
    if (slice.getSteps()[i] != 1)
      return op->emitError("has no gradient yet: a slice with step ")
             << slice.getSteps()[i] << " (only step 1 is differentiated)";
    int64_t start = slice.getStarts()[i];
    if (start < 0)
      start += dim;
    start = std::clamp<int64_t>(start, 0, dim);
    pads[axis] = start;
    pads[rank + axis] = dim - start - outShape[axis];
  }
  dxs[0] = padWithZeros(g, dys[0], pads);
  return success();
}

LogicalResult padVjp(Operation *op, GradientBuilder &g, ArrayRef<Value> dys,
                     SmallVectorImpl<Value> &dxs) {
  auto pad = cast<PadOp>(op);
  if (pad.getMode() != "constant")
    return op->emitError("has no gradient yet: a pad in mode '")
           << pad.getMode() << "' (only constant pads are differentiated)";
  // Negative pads crop: the gradient is the padded region cut away.
  SmallVector<int64_t> crop;
  for (int64_t p : pad.getPads())
    crop.push_back(-p);
  dxs[0] = padWithZeros(g, dys[0], crop);
  return success();
}

LogicalResult concatVjp(Operation *op, GradientBuilder &g, ArrayRef<Value> dys,
                        SmallVectorImpl<Value> &dxs) {
  auto concat = cast<ConcatOp>(op);
  int64_t rank = shapeOf(concat.getResult()).size();
  int64_t axis = positiveAxis(int64_t(concat.getAxis()), rank);
  int64_t offset = 0;
  for (auto [i, input] : llvm::enumerate(concat.getInputs())) {
    int64_t size = shapeOf(input)[axis];
    if (isFloatTensor(input))
      dxs[i] = SliceOp::create(g.getBuilder(), g.getLoc(), dys[0],
                               ArrayRef<int64_t>{axis},
                               ArrayRef<int64_t>{offset},
                               ArrayRef<int64_t>{offset + size},
                               ArrayRef<int64_t>{1});
    offset += size;
  }
  return success();
}

LogicalResult splitVjp(Operation *op, GradientBuilder &g, ArrayRef<Value> dys,
                       SmallVectorImpl<Value> &dxs) {
  auto split = cast<SplitOp>(op);
  SmallVector<Value> pieces;
  for (auto [result, dy] : llvm::zip(split.getResults(), dys))
    pieces.push_back(dy ? dy : g.zeros(result.getType()));
  dxs[0] = ConcatOp::create(g.getBuilder(), g.getLoc(), pieces,
                            split.getAxis());
  return success();
}

LogicalResult gatherVjp(Operation *op, GradientBuilder &g, ArrayRef<Value> dys,
                        SmallVectorImpl<Value> &dxs) {
  auto gather = cast<GatherOp>(op);
  Value data = gather.getData(), indices = gather.getIndices();
  ArrayRef<int64_t> dataShape = shapeOf(data);
  int64_t axis = positiveAxis(int64_t(gather.getAxis()), int64_t(dataShape.size()));
  if (axis != 0)
    return op->emitError("has no gradient yet: a gather along axis ")
           << axis << " (only axis 0, an embedding, is differentiated)";
  // Scatter-add the rows' gradients into zeros: indices [N, 1], updates
  // [N, rest of data].
  int64_t n = 1;
  for (int64_t d : shapeOf(indices))
    n *= d;
  SmallVector<int64_t> rows = {n};
  rows.append(dataShape.begin() + 1, dataShape.end());
  OpBuilder &b = g.getBuilder();
  Value idx = g.reshape(g.cast(indices, b.getI64Type()), {n, 1});
  dxs[0] = ScatterNDOp::create(b, g.getLoc(), g.zeros(data.getType()), idx,
                               g.reshape(dys[0], rows), "add");
  return success();
}

LogicalResult gatherElementsVjp(Operation *op, GradientBuilder &g,
                                ArrayRef<Value> dys,
                                SmallVectorImpl<Value> &dxs) {
  auto gather = cast<GatherElementsOp>(op);
  Value data = gather.getData();
  dxs[0] = ScatterElementsOp::create(g.getBuilder(), g.getLoc(),
                                     g.zeros(data.getType()),
                                     gather.getIndices(), dys[0],
                                     gather.getAxis(), "add");
  return success();
}

} // namespace

void mlir::telar::autodiff::registerDataMovementGradients(MLIRContext *ctx) {
  attachGradient<ReshapeOp, reshapeVjp>(ctx);
  attachGradient<SqueezeOp, reshapeVjp>(ctx);
  attachGradient<UnsqueezeOp, reshapeVjp>(ctx);
  attachGradient<TransposeOp, transposeVjp>(ctx);
  attachGradient<ExpandOp, expandVjp>(ctx);
  attachGradient<SliceOp, sliceVjp>(ctx);
  attachGradient<PadOp, padVjp>(ctx);
  attachGradient<ConcatOp, concatVjp>(ctx);
  attachGradient<SplitOp, splitVjp>(ctx);
  attachGradient<GatherOp, gatherVjp>(ctx);
  attachGradient<GatherElementsOp, gatherElementsVjp>(ctx);
}
