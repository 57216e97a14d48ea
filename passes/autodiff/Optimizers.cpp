//===- Optimizers.cpp - The optimizers' updates as telar ops --------------===//

#include "Optimizers.h"

using namespace mlir;
using namespace mlir::telar;
using namespace mlir::telar::autodiff;

SmallVector<StringRef>
mlir::telar::autodiff::getOptimizerState(const OptimizerOptions &options) {
  if (options.kind == "adamw")
    return {"m", "v"};
  if (options.momentum != 0)
    return {"momentum"};
  return {};
}

SmallVector<Value> mlir::telar::autodiff::buildOptimizerUpdate(
    GradientBuilder &g, const OptimizerOptions &options, Value param,
    Value grad, ArrayRef<Value> state, Value lr, Value step) {
  Type element = cast<ShapedType>(param.getType()).getElementType();
  lr = g.cast(lr, element);
  if (options.kind == "adamw") {
    // torch.optim.AdamW, one tensor at a time:
    //   p *= 1 - lr wd
    //   m = b1 m + (1 - b1) g;  v = b2 v + (1 - b2) g^2
    //   p -= lr / (1 - b1^t) * m / (sqrt(v) / sqrt(1 - b2^t) + eps)
    Value t = g.cast(step, element);
    Value decayed = param;
    if (options.weightDecay != 0)
      decayed = g.mul(param, g.sub(g.scalar(lr, 1.0),
                                   g.mulScalar(lr, options.weightDecay)));
    Value m = g.add(g.mulScalar(state[0], options.beta1),
                    g.mulScalar(grad, 1.0 - options.beta1));
    Value v = g.add(g.mulScalar(state[1], options.beta2),
                    g.mulScalar(g.mul(grad, grad), 1.0 - options.beta2));
    OpBuilder &b = g.getBuilder();
    auto correction = [&](double beta) {
      return g.sub(g.scalar(t, 1.0),
                   PowOp::create(b, g.getLoc(), g.scalar(t, beta), t));
    };
    Value stepSize = g.div(lr, correction(options.beta1));
    Value denom = g.add(g.div(g.sqrt(v), g.sqrt(correction(options.beta2))),
                        g.scalar(v, options.epsilon));
    Value updated = g.sub(decayed, g.mul(stepSize, g.div(m, denom)));
    return {updated, m, v};
  }
  // torch.optim.SGD (dampening 0, no Nesterov): d = g + wd p;
  // buf = momentum buf + d (buf starts at zero, so the first step's buffer
  // is d, as PyTorch's); p -= lr buf.
  Value d = grad;
  if (options.weightDecay != 0)
    d = g.add(d, g.mulScalar(param, options.weightDecay));
  SmallVector<Value> result;
  Value buffer;
  if (options.momentum != 0) {
    buffer = g.add(g.mulScalar(state[0], options.momentum), d);
    d = buffer;
  }
  result.push_back(g.sub(param, g.mul(lr, d)));
  if (buffer)
    result.push_back(buffer);
  return result;
}
