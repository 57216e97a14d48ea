//===- ElementwiseGradients.cpp - VJPs of elementwise ops -----------------===//
//
// Unary math and activations, casts, and the binary ops with ONNX
// broadcasting (whose gradients are summed back to each operand's shape).
//
//===----------------------------------------------------------------------===//

#include "GradientBuilder.h"

#include <cmath>

using namespace mlir;
using namespace mlir::telar;
using namespace mlir::telar::autodiff;

namespace {

Value in(Operation *op, unsigned i = 0) { return op->getOperand(i); }
Value out(Operation *op) { return op->getResult(0); }

/// d/dx of a unary op whose derivative is `factor` (of x and y): dy * factor.
template <Value (*Factor)(GradientBuilder &, Value x, Value y)>
LogicalResult unary(Operation *op, GradientBuilder &g, ArrayRef<Value> dys,
                    SmallVectorImpl<Value> &dxs) {
  dxs[0] = g.mul(dys[0], Factor(g, in(op), out(op)));
  return success();
}

Value expFactor(GradientBuilder &, Value, Value y) { return y; }
Value logFactor(GradientBuilder &g, Value x, Value) {
  return g.div(g.scalar(x, 1.0), x);
}
Value sqrtFactor(GradientBuilder &g, Value, Value y) {
  return g.div(g.scalar(y, 0.5), y);
}
Value reciprocalFactor(GradientBuilder &g, Value, Value y) {
  return g.neg(g.mul(y, y));
}
Value tanhFactor(GradientBuilder &g, Value, Value y) {
  return g.sub(g.scalar(y, 1.0), g.mul(y, y));
}
Value sigmoidFactor(GradientBuilder &g, Value, Value y) {
  return g.mul(y, g.sub(g.scalar(y, 1.0), y));
}
Value absFactor(GradientBuilder &g, Value x, Value) {
  return SignOp::create(g.getBuilder(), g.getLoc(), x);
}
Value erfFactor(GradientBuilder &g, Value x, Value) {
  // 2/sqrt(pi) * exp(-x^2)
  return g.mulScalar(g.exp(g.neg(g.mul(x, x))), 2.0 / std::sqrt(M_PI));
}
Value softplusFactor(GradientBuilder &g, Value x, Value) {
  return SigmoidOp::create(g.getBuilder(), g.getLoc(), x);
}
Value sinFactor(GradientBuilder &g, Value x, Value) {
  return CosOp::create(g.getBuilder(), g.getLoc(), x);
}
Value cosFactor(GradientBuilder &g, Value x, Value) {
  return g.neg(SinOp::create(g.getBuilder(), g.getLoc(), x));
}

LogicalResult negVjp(Operation *, GradientBuilder &g, ArrayRef<Value> dys,
                     SmallVectorImpl<Value> &dxs) {
  dxs[0] = g.neg(dys[0]);
  return success();
}

LogicalResult reluVjp(Operation *op, GradientBuilder &g, ArrayRef<Value> dys,
                      SmallVectorImpl<Value> &dxs) {
  Value x = in(op);
  dxs[0] = g.where(g.greater(x, g.scalar(x, 0.0)), dys[0],
                   g.scalar(dys[0], 0.0));
  return success();
}

LogicalResult leakyReluVjp(Operation *op, GradientBuilder &g,
                           ArrayRef<Value> dys, SmallVectorImpl<Value> &dxs) {
  Value x = in(op);
  double alpha = cast<LeakyReluOp>(op).getAlpha().convertToDouble();
  dxs[0] = g.where(g.greater(x, g.scalar(x, 0.0)), dys[0],
                   g.mulScalar(dys[0], alpha));
  return success();
}

LogicalResult geluVjp(Operation *op, GradientBuilder &g, ArrayRef<Value> dys,
                      SmallVectorImpl<Value> &dxs) {
  Value x = in(op);
  Value factor;
  if (cast<GeluOp>(op).getApproximate() == "tanh") {
    // y = x/2 (1 + t), t = tanh(k (x + c x^3)):
    // y' = (1 + t)/2 + x/2 (1 - t^2) k (1 + 3 c x^2).
    const double k = std::sqrt(2.0 / M_PI), c = 0.044715;
    Value x2 = g.mul(x, x);
    Value u = g.mulScalar(g.add(x, g.mulScalar(g.mul(x2, x), c)), k);
    Value t = TanhOp::create(g.getBuilder(), g.getLoc(), u);
    Value one = g.scalar(x, 1.0);
    Value du = g.mulScalar(g.add(one, g.mulScalar(x2, 3.0 * c)), k);
    factor = g.add(g.mulScalar(g.add(one, t), 0.5),
                   g.mul(g.mulScalar(x, 0.5),
                         g.mul(g.sub(one, g.mul(t, t)), du)));
  } else {
    // y = x Phi(x): y' = Phi(x) + x phi(x).
    Value cdf = g.mulScalar(
        g.add(g.scalar(x, 1.0), ErfOp::create(g.getBuilder(), g.getLoc(),
                                              g.mulScalar(x, M_SQRT1_2))),
        0.5);
    Value pdf = g.mulScalar(g.exp(g.mulScalar(g.mul(x, x), -0.5)),
                            1.0 / std::sqrt(2.0 * M_PI));
    factor = g.add(cdf, g.mul(x, pdf));
  }
  dxs[0] = g.mul(dys[0], factor);
  return success();
}

LogicalResult clipVjp(Operation *op, GradientBuilder &g, ArrayRef<Value> dys,
                      SmallVectorImpl<Value> &dxs) {
  // The gradient passes where the input was not clipped.
  auto clip = cast<ClipOp>(op);
  Value x = in(op), dx = dys[0], zero = g.scalar(dx, 0.0);
  if (auto lo = clip.getMin())
    dx = g.where(LessOp::create(g.getBuilder(), g.getLoc(), x,
                                g.scalar(x, lo->convertToDouble())),
                 zero, dx);
  if (auto hi = clip.getMax())
    dx = g.where(g.greater(x, g.scalar(x, hi->convertToDouble())), zero, dx);
  dxs[0] = dx;
  return success();
}

LogicalResult castVjp(Operation *op, GradientBuilder &g, ArrayRef<Value> dys,
                      SmallVectorImpl<Value> &dxs) {
  // Integer inputs have no gradient; float to float casts it back.
  if (isFloatTensor(in(op)) && isFloatTensor(out(op)))
    dxs[0] = g.cast(dys[0], cast<ShapedType>(in(op).getType()).getElementType());
  return success();
}

/// Each operand's gradient, summed to its shape; only float operands.
void setBroadcast(Operation *op, GradientBuilder &g, unsigned i, Value grad,
                  SmallVectorImpl<Value> &dxs) {
  if (isFloatTensor(op->getOperand(i)))
    dxs[i] = g.sumToShape(grad, op->getOperand(i).getType());
}

LogicalResult addVjp(Operation *op, GradientBuilder &g, ArrayRef<Value> dys,
                     SmallVectorImpl<Value> &dxs) {
  setBroadcast(op, g, 0, dys[0], dxs);
  setBroadcast(op, g, 1, dys[0], dxs);
  return success();
}

LogicalResult subVjp(Operation *op, GradientBuilder &g, ArrayRef<Value> dys,
                     SmallVectorImpl<Value> &dxs) {
  setBroadcast(op, g, 0, dys[0], dxs);
  setBroadcast(op, g, 1, g.neg(dys[0]), dxs);
  return success();
}

LogicalResult mulVjp(Operation *op, GradientBuilder &g, ArrayRef<Value> dys,
                     SmallVectorImpl<Value> &dxs) {
  setBroadcast(op, g, 0, g.mul(dys[0], in(op, 1)), dxs);
  setBroadcast(op, g, 1, g.mul(dys[0], in(op, 0)), dxs);
  return success();
}

LogicalResult divVjp(Operation *op, GradientBuilder &g, ArrayRef<Value> dys,
                     SmallVectorImpl<Value> &dxs) {
  Value a = in(op, 0), c = in(op, 1);
  Value da = g.div(dys[0], c);
  setBroadcast(op, g, 0, da, dxs);
  // d(a/c)/dc = -(a/c)/c: -dy y / c = -da y.
  setBroadcast(op, g, 1, g.neg(g.mul(da, out(op))), dxs);
  return success();
}

LogicalResult powVjp(Operation *op, GradientBuilder &g, ArrayRef<Value> dys,
                     SmallVectorImpl<Value> &dxs) {
  Value a = in(op, 0), e = in(op, 1);
  OpBuilder &b = g.getBuilder();
  // d/da = e a^(e-1); d/de = a^e ln a.
  Value em1 = g.sub(e, g.scalar(e, 1.0));
  Value da = g.mul(dys[0], g.mul(e, PowOp::create(b, g.getLoc(), a, em1)));
  setBroadcast(op, g, 0, da, dxs);
  setBroadcast(op, g, 1,
               g.mul(dys[0], g.mul(out(op), LogOp::create(b, g.getLoc(), a))),
               dxs);
  return success();
}

/// max/min: the gradient goes to the operand that was taken (to the first
/// on ties).
template <bool IsMax>
LogicalResult extremumVjp(Operation *op, GradientBuilder &g,
                          ArrayRef<Value> dys, SmallVectorImpl<Value> &dxs) {
  Value a = in(op, 0), c = in(op, 1), dy = dys[0];
  OpBuilder &b = g.getBuilder();
  Value takesA = IsMax ? Value(GreaterEqualOp::create(b, g.getLoc(), a, c))
                       : Value(LessEqualOp::create(b, g.getLoc(), a, c));
  Value zero = g.scalar(dy, 0.0);
  setBroadcast(op, g, 0, g.where(takesA, dy, zero), dxs);
  setBroadcast(op, g, 1, g.where(takesA, zero, dy), dxs);
  return success();
}

LogicalResult whereVjp(Operation *op, GradientBuilder &g, ArrayRef<Value> dys,
                       SmallVectorImpl<Value> &dxs) {
  Value cond = in(op, 0), dy = dys[0], zero = g.scalar(dy, 0.0);
  if (isFloatTensor(in(op, 1)))
    dxs[1] = g.sumToShape(g.where(cond, dy, zero), in(op, 1).getType());
  if (isFloatTensor(in(op, 2)))
    dxs[2] = g.sumToShape(g.where(cond, zero, dy), in(op, 2).getType());
  return success();
}

} // namespace

void mlir::telar::autodiff::registerElementwiseGradients(MLIRContext *ctx) {
  attachGradient<NegOp, negVjp>(ctx);
  attachGradient<ExpOp, unary<expFactor>>(ctx);
  attachGradient<LogOp, unary<logFactor>>(ctx);
  attachGradient<SqrtOp, unary<sqrtFactor>>(ctx);
  attachGradient<ReciprocalOp, unary<reciprocalFactor>>(ctx);
  attachGradient<TanhOp, unary<tanhFactor>>(ctx);
  attachGradient<SigmoidOp, unary<sigmoidFactor>>(ctx);
  attachGradient<AbsOp, unary<absFactor>>(ctx);
  attachGradient<ErfOp, unary<erfFactor>>(ctx);
  attachGradient<SoftplusOp, unary<softplusFactor>>(ctx);
  attachGradient<SinOp, unary<sinFactor>>(ctx);
  attachGradient<CosOp, unary<cosFactor>>(ctx);
  attachGradient<ReluOp, reluVjp>(ctx);
  attachGradient<LeakyReluOp, leakyReluVjp>(ctx);
  attachGradient<GeluOp, geluVjp>(ctx);
  attachGradient<ClipOp, clipVjp>(ctx);
  attachGradient<CastOp, castVjp>(ctx);
  attachGradient<AddOp, addVjp>(ctx);
  attachGradient<SubOp, subVjp>(ctx);
  attachGradient<MulOp, mulVjp>(ctx);
  attachGradient<DivOp, divVjp>(ctx);
  attachGradient<PowOp, powVjp>(ctx);
  attachGradient<MaxOp, extremumVjp<true>>(ctx);
  attachGradient<MinOp, extremumVjp<false>>(ctx);
  attachGradient<WhereOp, whereVjp>(ctx);
}
