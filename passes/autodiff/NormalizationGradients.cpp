//===- NormalizationGradients.cpp - VJPs of softmax and normalisation -----===//
//
// Softmax and log-softmax from their results; layer and RMS normalisation
// recompute their statistics from the input (they are not results of the
// forward op) and give the input's, the scale's and the bias's gradients.
//
//===----------------------------------------------------------------------===//

#include "GradientBuilder.h"

using namespace mlir;
using namespace mlir::telar;
using namespace mlir::telar::autodiff;

namespace {

LogicalResult softmaxVjp(Operation *op, GradientBuilder &g,
                         ArrayRef<Value> dys, SmallVectorImpl<Value> &dxs) {
  // dx = y (dy - sum(dy y)).
  auto softmax = cast<SoftmaxOp>(op);
  Value y = softmax.getResult(), dy = dys[0];
  int64_t axis = positiveAxis(softmax.getAxis(), shapeOf(y).size());
  Value dot = g.reduceSum(g.mul(dy, y), {axis}, /*keepdims=*/true);
  dxs[0] = g.mul(y, g.sub(dy, dot));
  return success();
}

LogicalResult logSoftmaxVjp(Operation *op, GradientBuilder &g,
                            ArrayRef<Value> dys, SmallVectorImpl<Value> &dxs) {
  // dx = dy - exp(y) sum(dy).
  auto lsm = cast<LogSoftmaxOp>(op);
  Value y = lsm.getResult(), dy = dys[0];
  int64_t axis = positiveAxis(lsm.getAxis(), shapeOf(y).size());
  Value total = g.reduceSum(dy, {axis}, /*keepdims=*/true);
  dxs[0] = g.sub(dy, g.mul(g.exp(y), total));
  return success();
}

/// The normalised axes, from `axis` to the last.
SmallVector<int64_t> trailingAxes(Value x, int64_t axis) {
  int64_t rank = shapeOf(x).size();
  SmallVector<int64_t> axes;
  for (int64_t d = positiveAxis(axis, rank); d < rank; ++d)
    axes.push_back(d);
  return axes;
}

/// The statistics of a normalisation over `axes`, recomputed from its
/// input: xhat (the normalised input) and rstd (1/sigma, kept dims);
/// `centred` subtracts the mean first (layer norm; RMS norm does not).
std::pair<Value, Value> normalize(GradientBuilder &g, Value x,
                                  ArrayRef<int64_t> axes, double eps,
                                  bool centred) {
  Value c = centred ? g.sub(x, g.reduceMean(x, axes, true)) : x;
  Value var = g.reduceMean(g.mul(c, c), axes, true);
  Value rstd = ReciprocalOp::create(g.getBuilder(), g.getLoc(),
                                    g.sqrt(g.add(var, g.scalar(var, eps))));
  return {g.mul(c, rstd), rstd};
}

/// Given xhat (the normalised input), rstd (1/sigma, kept dims) and dxhat,
/// dx = rstd (dxhat - [mean(dxhat)] - xhat mean(dxhat xhat)); the first
/// mean only when the mean was subtracted (layer norm, not RMS norm).
Value normInputGradient(GradientBuilder &g, ArrayRef<int64_t> axes,
                        Value xhat, Value rstd, Value dxhat, bool centred) {
  Value inner = g.sub(
      dxhat, g.mul(xhat, g.reduceMean(g.mul(dxhat, xhat), axes, true)));
  if (centred)
    inner = g.sub(inner, g.reduceMean(dxhat, axes, true));
  return g.mul(rstd, inner);
}

LogicalResult layerNormVjp(Operation *op, GradientBuilder &g,
                           ArrayRef<Value> dys, SmallVectorImpl<Value> &dxs) {
  auto ln = cast<LayerNormOp>(op);
  Value x = ln.getInput(), scale = ln.getScale(), dy = dys[0];
  SmallVector<int64_t> axes = trailingAxes(x, ln.getAxis());
  auto [xhat, rstd] = normalize(g, x, axes,
                                ln.getEpsilon().convertToDouble(), true);
  dxs[0] = normInputGradient(g, axes, xhat, rstd, g.mul(dy, scale),
                             /*centred=*/true);
  dxs[1] = g.sumToShape(g.mul(dy, xhat), scale.getType());
  if (Value bias = ln.getBias())
    dxs[2] = g.sumToShape(dy, bias.getType());
  return success();
}

LogicalResult rmsNormVjp(Operation *op, GradientBuilder &g, ArrayRef<Value> dys,
                         SmallVectorImpl<Value> &dxs) {
  auto rms = cast<RMSNormOp>(op);
  Value x = rms.getInput(), scale = rms.getScale(), dy = dys[0];
  SmallVector<int64_t> axes = trailingAxes(x, rms.getAxis());
  auto [xhat, rstd] = normalize(g, x, axes,
                                rms.getEpsilon().convertToDouble(), false);
  dxs[0] = normInputGradient(g, axes, xhat, rstd, g.mul(dy, scale),
                             /*centred=*/false);
  dxs[1] = g.sumToShape(g.mul(dy, xhat), scale.getType());
  return success();
}

} // namespace

void mlir::telar::autodiff::registerNormalizationGradients(MLIRContext *ctx) {
  attachGradient<SoftmaxOp, softmaxVjp>(ctx);
  attachGradient<LogSoftmaxOp, logSoftmaxVjp>(ctx);
  attachGradient<LayerNormOp, layerNormVjp>(ctx);
  attachGradient<RMSNormOp, rmsNormVjp>(ctx);
}
