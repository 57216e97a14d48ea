//===- NormalizationGradients.cpp - VJPs of softmax and normalisation -----===//
//
// Softmax and log-softmax from their results; layer and RMS normalisation
// recompute their statistics from the input (they are not results of the
// forward op) and give the input's, the scale's and the bias's gradients.
// Inference-mode batch normalisation is an affine map per channel of its
// operands mean and variance, which get gradients too (frozen as a rule).
// (Training-mode batch normalisation imports as the ops of its formula.)
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

LogicalResult batchNormVjp(Operation *op, GradientBuilder &g,
                           ArrayRef<Value> dys, SmallVectorImpl<Value> &dxs) {
  // y = (x - mean) r scale + bias per channel (axis 1), r = 1/sqrt(var+eps).
  auto bn = cast<BatchNormOp>(op);
  Value x = bn.getInput(), dy = dys[0];
  int64_t rank = shapeOf(x).size(), channels = shapeOf(x)[1];
  SmallVector<int64_t> perChannel(rank, 1), others = {0};
  perChannel[1] = channels;
  for (int64_t d = 2; d < rank; ++d)
    others.push_back(d);
  auto bcast = [&](Value v) { return g.reshape(v, perChannel); };
  Value r = g.div(g.scalar(x, 1.0),
                  g.sqrt(g.add(bn.getVariance(),
                               g.scalar(x, double(bn.getEpsilon().convertToFloat())))));
  Value centred = g.sub(x, bcast(bn.getMean()));
  Value scaleR = g.mul(bn.getScale(), r);
  Value sumDy = g.reduceSum(dy, others, /*keepdims=*/false);
  Value sumDyCentred = g.reduceSum(g.mul(dy, centred), others, false);
  dxs[0] = g.mul(dy, bcast(scaleR));
  dxs[1] = g.mul(sumDyCentred, r);
  dxs[2] = sumDy;
  dxs[3] = g.neg(g.mul(sumDy, scaleR));
  // d/dvar of (var+eps)^-1/2 = -r^3 / 2.
  dxs[4] = g.mul(g.mul(sumDyCentred, bn.getScale()),
                 g.mulScalar(g.mul(g.mul(r, r), r), -0.5));
  return success();
}

} // namespace

void mlir::telar::autodiff::registerNormalizationGradients(MLIRContext *ctx) {
  attachGradient<SoftmaxOp, softmaxVjp>(ctx);
  attachGradient<LogSoftmaxOp, logSoftmaxVjp>(ctx);
  attachGradient<LayerNormOp, layerNormVjp>(ctx);
  attachGradient<RMSNormOp, rmsNormVjp>(ctx);
  attachGradient<BatchNormOp, batchNormVjp>(ctx);
}
