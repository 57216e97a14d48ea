//===- ReductionGradients.cpp - VJPs of reductions ------------------------===//
//
// The Reduce family: the result's gradient broadcast back over the reduced
// axes (scaled for a mean, masked to the extremum for max/min, times 2x for
// a sum of squares).
//
//===----------------------------------------------------------------------===//

#include "GradientBuilder.h"

using namespace mlir;
using namespace mlir::telar;
using namespace mlir::telar::autodiff;

namespace {

/// The reduced axes of `op` (all when its `axes` is empty), sorted.
template <typename ReduceOpT>
SmallVector<int64_t> reducedAxes(ReduceOpT op) {
  int64_t rank = shapeOf(op.getInput()).size();
  SmallVector<int64_t> axes;
  for (int64_t a : op.getAxes())
    axes.push_back(positiveAxis(a, rank));
  if (axes.empty())
    for (int64_t d = 0; d < rank; ++d)
      axes.push_back(d);
  llvm::sort(axes);
  return axes;
}

/// `v` (a result of `op`, or its gradient) broadcast back to the input's
/// shape: the reduced axes put back as size 1 when dropped, then expanded.
template <typename ReduceOpT>
Value broadcastBack(GradientBuilder &g, ReduceOpT op, Value v) {
  ArrayRef<int64_t> inShape = shapeOf(op.getInput());
  SmallVector<int64_t> kept(inShape);
  for (int64_t a : reducedAxes(op))
    kept[a] = 1;
  return g.expand(g.reshape(v, kept), inShape);
}

template <typename ReduceOpT>
LogicalResult sumVjp(Operation *op, GradientBuilder &g, ArrayRef<Value> dys,
                     SmallVectorImpl<Value> &dxs) {
  auto reduce = cast<ReduceOpT>(op);
  if (!isFloatTensor(reduce.getInput()))
    return success();
  dxs[0] = broadcastBack(g, reduce, dys[0]);
  return success();
}

LogicalResult meanVjp(Operation *op, GradientBuilder &g, ArrayRef<Value> dys,
                      SmallVectorImpl<Value> &dxs) {
  auto reduce = cast<ReduceMeanOp>(op);
  if (!isFloatTensor(reduce.getInput()))
    return success();
  int64_t count = 1;
  for (int64_t a : reducedAxes(reduce))
    count *= shapeOf(reduce.getInput())[a];
  dxs[0] = g.mulScalar(broadcastBack(g, reduce, dys[0]), 1.0 / double(count));
  return success();
}

LogicalResult sumSquareVjp(Operation *op, GradientBuilder &g,
                           ArrayRef<Value> dys, SmallVectorImpl<Value> &dxs) {
  auto reduce = cast<ReduceSumSquareOp>(op);
  Value x = reduce.getInput();
  dxs[0] = g.mul(broadcastBack(g, reduce, dys[0]), g.mulScalar(x, 2.0));
  return success();
}

/// max/min: the gradient goes to every element equal to the extremum.
template <typename ReduceOpT>
LogicalResult extremumVjp(Operation *op, GradientBuilder &g,
                          ArrayRef<Value> dys, SmallVectorImpl<Value> &dxs) {
  auto reduce = cast<ReduceOpT>(op);
  Value x = reduce.getInput();
  Value taken = g.equal(x, broadcastBack(g, reduce, reduce.getResult()));
  dxs[0] = g.where(taken, broadcastBack(g, reduce, dys[0]),
                   g.scalar(x, 0.0));
  return success();
}

} // namespace

void mlir::telar::autodiff::registerReductionGradients(MLIRContext *ctx) {
  attachGradient<ReduceSumOp, sumVjp<ReduceSumOp>>(ctx);
  attachGradient<ReduceMeanOp, meanVjp>(ctx);
  attachGradient<ReduceSumSquareOp, sumSquareVjp>(ctx);
  attachGradient<ReduceMaxOp, extremumVjp<ReduceMaxOp>>(ctx);
  attachGradient<ReduceMinOp, extremumVjp<ReduceMinOp>>(ctx);
}
