//===- DataMovementGradients.cpp - VJPs of shape and data movement --------===//
//
// Views move the gradient back (reshape, transpose by the inverse
// permutation); broadcasts sum it; slices and pads pad or crop it; concat
// and split slice or join it; gathers scatter-add it into zeros (an
// embedding's rows used twice get both rows' gradients), scatters gather it
// back, and top-k scatters its values' gradient to where they were taken.
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
  int64_t rank = inShape.size();
  // The gradient spread back over the input, one sliced axis at a time:
  // a step s > 1 interleaves s - 1 zeros after each element (a size-1
  // axis padded to s, then merged), then the axis is padded with zeros
  // where the slice began and ended (clamped as ONNX clamps; negative pads
  // crop what a step ran past).
  Value dx = dys[0];
  for (auto [i, axisAttr] : llvm::enumerate(slice.getAxes())) {
    int64_t axis = positiveAxis(axisAttr, rank);
    int64_t dim = inShape[axis], step = slice.getSteps()[i];
    if (step < 1)
      return op->emitError("has no gradient yet: a slice with step ")
             << step << " (only positive steps are differentiated)";
    int64_t start = slice.getStarts()[i];
    if (start < 0)
      start += dim;
    start = std::clamp<int64_t>(start, 0, dim);
    SmallVector<int64_t> shape(shapeOf(dx));
    int64_t count = shape[axis];
    if (step > 1) {
      SmallVector<int64_t> split(shape);
      split.insert(split.begin() + axis + 1, 1);
      SmallVector<int64_t> pads(2 * (rank + 1), 0);
      pads[rank + 1 + axis + 1] = step - 1;
      dx = padWithZeros(g, g.reshape(dx, split), pads);
      shape[axis] = count * step;
      dx = g.reshape(dx, shape);
    }
    SmallVector<int64_t> pads(2 * rank, 0);
    pads[axis] = start;
    pads[rank + axis] = dim - start - shape[axis];
    dx = padWithZeros(g, dx, pads);
  }
  dxs[0] = dx;
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
  int64_t rank = dataShape.size();
  int64_t axis = positiveAxis(int64_t(gather.getAxis()), rank);
  int64_t indexRank = shapeOf(indices).size();
  // The result is data[:axis] + indices + data[axis+1:]. Its gradient,
  // the index dimensions moved in front and flattened to N rows, is
  // scatter-added into zeros of the data with the gathered axis in front
  // ([N, 1] indices), then that axis is moved back.
  SmallVector<int64_t> toFront;
  for (int64_t d = 0; d < indexRank; ++d)
    toFront.push_back(axis + d);
  for (int64_t d = 0; d < axis; ++d)
    toFront.push_back(d);
  for (int64_t d = axis + indexRank; d < rank - 1 + indexRank; ++d)
    toFront.push_back(d);
  int64_t n = 1;
  for (int64_t d : shapeOf(indices))
    n *= d;
  SmallVector<int64_t> permuted = {dataShape[axis]}, rows = {n};
  for (int64_t d = 0; d < rank; ++d)
    if (d != axis) {
      permuted.push_back(dataShape[d]);
      rows.push_back(dataShape[d]);
    }
  OpBuilder &b = g.getBuilder();
  Value idx = g.cast(indices, b.getI64Type());
  // Negative indices count from the back.
  Value size = g.scalar(idx, double(dataShape[axis]));
  idx = g.where(LessOp::create(b, g.getLoc(), idx, g.scalar(idx, 0.0)),
                g.add(idx, size), idx);
  Value updates = g.reshape(g.transpose(dys[0], toFront), rows);
  auto zerosType = RankedTensorType::get(
      permuted, cast<ShapedType>(data.getType()).getElementType());
  Value scattered = ScatterNDOp::create(b, g.getLoc(), g.zeros(zerosType),
                                        g.reshape(idx, {n, 1}), updates, "add");
  // Axis 0 of `scattered` is data's `axis`.
  SmallVector<int64_t> back;
  for (int64_t d = 0; d < rank; ++d)
    back.push_back(d < axis ? d + 1 : (d == axis ? 0 : d));
  dxs[0] = g.transpose(scattered, back);
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

LogicalResult gatherNdVjp(Operation *op, GradientBuilder &g,
                          ArrayRef<Value> dys, SmallVectorImpl<Value> &dxs) {
  auto gather = cast<GatherNDOp>(op);
  if (gather.getBatchDims() != 0)
    return op->emitError("has no gradient yet: a gather_nd with batch_dims ")
           << gather.getBatchDims();
  Value data = gather.getData();
  dxs[0] = ScatterNDOp::create(g.getBuilder(), g.getLoc(),
                               g.zeros(data.getType()), gather.getIndices(),
                               dys[0], "add");
  return success();
}

/// scatter_elements / scatter_nd without a reduction: the data's gradient
/// is the result's where nothing was written (zeros scattered over it),
/// the updates' is the result's gathered where they were written.
template <typename ScatterOpT>
LogicalResult scatterVjp(Operation *op, GradientBuilder &g,
                         ArrayRef<Value> dys, SmallVectorImpl<Value> &dxs) {
  auto scatter = cast<ScatterOpT>(op);
  if (!isFloatTensor(scatter.getData()))
    return success();
  OpBuilder &b = g.getBuilder();
  Value dy = dys[0], indices = scatter.getIndices();
  Value updates = scatter.getUpdates();
  if (scatter.getReduction() == "add") {
    dxs[0] = dy;
  } else if (scatter.getReduction() == "none") {
    Value cleared;
    if constexpr (std::is_same_v<ScatterOpT, ScatterElementsOp>)
      cleared = ScatterElementsOp::create(b, g.getLoc(), dy, indices,
                                          g.zeros(updates.getType()),
                                          scatter.getAxis(), "none");
    else
      cleared = ScatterNDOp::create(b, g.getLoc(), dy, indices,
                                    g.zeros(updates.getType()), "none");
    dxs[0] = cleared;
  } else {
    return op->emitError("has no gradient yet: a scatter with reduction '")
           << scatter.getReduction() << "'";
  }
  if constexpr (std::is_same_v<ScatterOpT, ScatterElementsOp>)
    dxs[2] = GatherElementsOp::create(b, g.getLoc(), dy, indices,
                                      scatter.getAxis());
  else
    dxs[2] = GatherNDOp::create(b, g.getLoc(), dy, indices, 0);
  return success();
}

/// top_k: the values' gradient scattered back to where they were taken.
LogicalResult topKVjp(Operation *op, GradientBuilder &g, ArrayRef<Value> dys,
                      SmallVectorImpl<Value> &dxs) {
  auto topk = cast<TopKOp>(op);
  Value input = topk.getInput();
  if (!dys[0] || !isFloatTensor(input))
    return success();
  dxs[0] = ScatterElementsOp::create(g.getBuilder(), g.getLoc(),
                                     g.zeros(input.getType()),
                                     topk.getIndices(), dys[0],
                                     topk.getAxis(), "add");
  return success();
}

} // namespace

void mlir::telar::autodiff::registerDataMovementGradients(MLIRContext *ctx) {
  attachGradient<GatherNDOp, gatherNdVjp>(ctx);
  attachGradient<ScatterElementsOp, scatterVjp<ScatterElementsOp>>(ctx);
  attachGradient<ScatterNDOp, scatterVjp<ScatterNDOp>>(ctx);
  attachGradient<TopKOp, topKVjp>(ctx);
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
