//===- LowerElementwise.cpp - Elementwise telar ops to linalg.generic -----===//
//
// Every elementwise op becomes one all-parallel linalg.generic with
// broadcasting indexing maps; its body is built by the op's `scalar`
// overload below. Signedness comes from the telar op's original types
// (lowered tensors are signless).
//
// Floats narrower than f32 (f16, bf16, f8) are computed in f32 and rounded
// back: a single operation rounded once to the narrow type gives the same
// result as native narrow arithmetic, and libm only has f32/f64 functions.
//
//===----------------------------------------------------------------------===//

#include "LoweringUtils.h"
#include "telar/dialects/Telar/TelarOps.h"
#include "telar/passes/lowering/Patterns.h"

#include <cmath>

using namespace mlir;
using namespace mlir::telar;

namespace {

/// What a scalar body needs to know besides its arguments.
struct ScalarContext {
  Type elementType; // computation type of the data operands (signless)
  bool isUnsigned;  // original operand element type was unsigned
  bool isFloat() const { return isa<FloatType>(elementType); }
};

Value cst(OpBuilder &b, Location loc, const ScalarContext &c, double v) {
  return scalarConstant(b, loc, c.elementType, v);
}

/// Integer constant of `type` for a (float) attribute value, clamped to the
/// range of the original signed or unsigned type.
Value clampedIntConstant(OpBuilder &b, Location loc, IntegerType type,
                         bool isUnsigned, double v) {
  unsigned w = type.getWidth();
  APInt bits;
  if (isUnsigned) {
    if (!(v > 0))
      bits = APInt(w, 0);
    else if (v >= std::ldexp(1.0, static_cast<int>(w)))
      bits = APInt::getMaxValue(w);
    else
      bits = APInt(w, static_cast<uint64_t>(v));
  } else {
    double lo = -std::ldexp(1.0, static_cast<int>(w) - 1);
    if (!(v > lo))
      bits = APInt::getSignedMinValue(w);
    else if (v >= -lo)
      bits = APInt::getSignedMaxValue(w);
    else
      bits = APInt(w, static_cast<int64_t>(v), /*isSigned=*/true);
  }
  return arith::ConstantOp::create(b, loc, IntegerAttr::get(type, bits));
}

Value cmpF(OpBuilder &b, Location loc, arith::CmpFPredicate p, Value x,
           Value y) {
  return arith::CmpFOp::create(b, loc, p, x, y);
}
Value cmpI(OpBuilder &b, Location loc, arith::CmpIPredicate p, Value x,
           Value y) {
  return arith::CmpIOp::create(b, loc, p, x, y);
}
Value select(OpBuilder &b, Location loc, Value c, Value t, Value f) {
  return arith::SelectOp::create(b, loc, c, t, f);
}
Value mulF(OpBuilder &b, Location loc, Value x, Value y) {
  return arith::MulFOp::create(b, loc, x, y);
}
Value addF(OpBuilder &b, Location loc, Value x, Value y) {
  return arith::AddFOp::create(b, loc, x, y);
}
Value subF(OpBuilder &b, Location loc, Value x, Value y) {
  return arith::SubFOp::create(b, loc, x, y);
}
Value divF(OpBuilder &b, Location loc, Value x, Value y) {
  return arith::DivFOp::create(b, loc, x, y);
}

/// A comparison of two numbers of the context's type.
Value compare(OpBuilder &b, Location loc, const ScalarContext &c,
              arith::CmpFPredicate fp, arith::CmpIPredicate sp,
              arith::CmpIPredicate up, Value x, Value y) {
  if (c.isFloat())
    return cmpF(b, loc, fp, x, y);
  return cmpI(b, loc, c.isUnsigned ? up : sp, x, y);
}

/// ln(1 + e^x) without overflow: max(x, 0) + log1p(e^-|x|).
Value softplus(OpBuilder &b, Location loc, const ScalarContext &c, Value x) {
  Value zero = cst(b, loc, c, 0.0);
  Value pos = arith::MaximumFOp::create(b, loc, x, zero);
  Value negAbs = arith::NegFOp::create(b, loc, math::AbsFOp::create(b, loc, x));
  Value tail =
      math::Log1pOp::create(b, loc, math::ExpOp::create(b, loc, negAbs));
  return addF(b, loc, pos, tail);
}

/// alpha * (e^x - 1).
Value scaledExpm1(OpBuilder &b, Location loc, const ScalarContext &c, Value x,
                  double alpha) {
  Value em1 = subF(b, loc, math::ExpOp::create(b, loc, x), cst(b, loc, c, 1.0));
  return mulF(b, loc, cst(b, loc, c, alpha), em1);
}

//===----------------------------------------------------------------------===//
// Unary arithmetic
//===----------------------------------------------------------------------===//

Value scalar(AbsOp, OpBuilder &b, Location loc, ValueRange a,
             const ScalarContext &c) {
  if (c.isFloat())
    return math::AbsFOp::create(b, loc, a[0]);
  if (c.isUnsigned)
    return a[0];
  return math::AbsIOp::create(b, loc, a[0]);
}
Value scalar(NegOp, OpBuilder &b, Location loc, ValueRange a,
             const ScalarContext &c) {
  if (c.isFloat())
    return arith::NegFOp::create(b, loc, a[0]);
  return arith::SubIOp::create(b, loc, cst(b, loc, c, 0.0), a[0]);
}
Value scalar(SignOp, OpBuilder &b, Location loc, ValueRange a,
             const ScalarContext &c) {
  Value x = a[0];
  Value zero = cst(b, loc, c, 0.0), one = cst(b, loc, c, 1.0);
  if (c.isFloat()) {
    // Zero (and NaN) map to themselves.
    Value neg = select(b, loc, cmpF(b, loc, arith::CmpFPredicate::OLT, x, zero),
                       cst(b, loc, c, -1.0), x);
    return select(b, loc, cmpF(b, loc, arith::CmpFPredicate::OGT, x, zero), one,
                  neg);
  }
  if (c.isUnsigned)
    return select(b, loc, cmpI(b, loc, arith::CmpIPredicate::ne, x, zero), one,
                  zero);
  Value neg = select(b, loc, cmpI(b, loc, arith::CmpIPredicate::slt, x, zero),
                     cst(b, loc, c, -1.0), zero);
  return select(b, loc, cmpI(b, loc, arith::CmpIPredicate::sgt, x, zero), one,
                neg);
}
Value scalar(ExpOp, OpBuilder &b, Location loc, ValueRange a,
             const ScalarContext &) {
  return math::ExpOp::create(b, loc, a[0]);
}
Value scalar(LogOp, OpBuilder &b, Location loc, ValueRange a,
             const ScalarContext &) {
  return math::LogOp::create(b, loc, a[0]);
}
Value scalar(SqrtOp, OpBuilder &b, Location loc, ValueRange a,
             const ScalarContext &) {
  return math::SqrtOp::create(b, loc, a[0]);
}
Value scalar(ReciprocalOp, OpBuilder &b, Location loc, ValueRange a,
             const ScalarContext &c) {
  return divF(b, loc, cst(b, loc, c, 1.0), a[0]);
}
Value scalar(FloorOp, OpBuilder &b, Location loc, ValueRange a,
             const ScalarContext &) {
  return math::FloorOp::create(b, loc, a[0]);
}
Value scalar(CeilOp, OpBuilder &b, Location loc, ValueRange a,
             const ScalarContext &) {
  return math::CeilOp::create(b, loc, a[0]);
}
Value scalar(RoundOp, OpBuilder &b, Location loc, ValueRange a,
             const ScalarContext &) {
  // ONNX Round rounds halves to even.
  return math::RoundEvenOp::create(b, loc, a[0]);
}

//===----------------------------------------------------------------------===//
// Trigonometric and hyperbolic
//===----------------------------------------------------------------------===//

template <typename MathOp>
Value mathUnary(OpBuilder &b, Location loc, ValueRange a) {
  return MathOp::create(b, loc, a[0]);
}
Value scalar(SinOp, OpBuilder &b, Location loc, ValueRange a,
             const ScalarContext &) {
  return mathUnary<math::SinOp>(b, loc, a);
}
Value scalar(CosOp, OpBuilder &b, Location loc, ValueRange a,
             const ScalarContext &) {
  return mathUnary<math::CosOp>(b, loc, a);
}
Value scalar(TanOp, OpBuilder &b, Location loc, ValueRange a,
             const ScalarContext &) {
  return mathUnary<math::TanOp>(b, loc, a);
}
Value scalar(AsinOp, OpBuilder &b, Location loc, ValueRange a,
             const ScalarContext &) {
  return mathUnary<math::AsinOp>(b, loc, a);
}
Value scalar(AcosOp, OpBuilder &b, Location loc, ValueRange a,
             const ScalarContext &) {
  return mathUnary<math::AcosOp>(b, loc, a);
}
Value scalar(AtanOp, OpBuilder &b, Location loc, ValueRange a,
             const ScalarContext &) {
  return mathUnary<math::AtanOp>(b, loc, a);
}
Value scalar(SinhOp, OpBuilder &b, Location loc, ValueRange a,
             const ScalarContext &) {
  return mathUnary<math::SinhOp>(b, loc, a);
}
Value scalar(CoshOp, OpBuilder &b, Location loc, ValueRange a,
             const ScalarContext &) {
  return mathUnary<math::CoshOp>(b, loc, a);
}
Value scalar(AsinhOp, OpBuilder &b, Location loc, ValueRange a,
             const ScalarContext &) {
  return mathUnary<math::AsinhOp>(b, loc, a);
}
Value scalar(AcoshOp, OpBuilder &b, Location loc, ValueRange a,
             const ScalarContext &) {
  return mathUnary<math::AcoshOp>(b, loc, a);
}
Value scalar(AtanhOp, OpBuilder &b, Location loc, ValueRange a,
             const ScalarContext &) {
  return mathUnary<math::AtanhOp>(b, loc, a);
}
Value scalar(TanhOp, OpBuilder &b, Location loc, ValueRange a,
             const ScalarContext &) {
  return mathUnary<math::TanhOp>(b, loc, a);
}
Value scalar(ErfOp, OpBuilder &b, Location loc, ValueRange a,
             const ScalarContext &) {
  return mathUnary<math::ErfOp>(b, loc, a);
}

//===----------------------------------------------------------------------===//
// Activations
//===----------------------------------------------------------------------===//

Value scalar(SigmoidOp, OpBuilder &b, Location loc, ValueRange a,
             const ScalarContext &c) {
  Value one = cst(b, loc, c, 1.0);
  Value e = math::ExpOp::create(b, loc, arith::NegFOp::create(b, loc, a[0]));
  return divF(b, loc, one, addF(b, loc, one, e));
}
Value scalar(ReluOp, OpBuilder &b, Location loc, ValueRange a,
             const ScalarContext &c) {
  Value zero = cst(b, loc, c, 0.0);
  if (c.isFloat())
    return arith::MaximumFOp::create(b, loc, a[0], zero);
  if (c.isUnsigned)
    return a[0];
  return arith::MaxSIOp::create(b, loc, a[0], zero);
}
Value scalar(SoftplusOp, OpBuilder &b, Location loc, ValueRange a,
             const ScalarContext &c) {
  return softplus(b, loc, c, a[0]);
}
Value scalar(SoftsignOp, OpBuilder &b, Location loc, ValueRange a,
             const ScalarContext &c) {
  Value den =
      addF(b, loc, cst(b, loc, c, 1.0), math::AbsFOp::create(b, loc, a[0]));
  return divF(b, loc, a[0], den);
}
/// max(0, min(1, alpha * x + beta)).
Value hardSigmoid(OpBuilder &b, Location loc, const ScalarContext &c, Value x,
                  double alpha, double beta) {
  Value y = addF(b, loc, mulF(b, loc, cst(b, loc, c, alpha), x),
                 cst(b, loc, c, beta));
  y = arith::MinimumFOp::create(b, loc, y, cst(b, loc, c, 1.0));
  return arith::MaximumFOp::create(b, loc, y, cst(b, loc, c, 0.0));
}
Value scalar(HardSwishOp, OpBuilder &b, Location loc, ValueRange a,
             const ScalarContext &c) {
  return mulF(b, loc, a[0], hardSigmoid(b, loc, c, a[0], 1.0 / 6.0, 0.5));
}
Value scalar(HardSigmoidOp op, OpBuilder &b, Location loc, ValueRange a,
             const ScalarContext &c) {
  return hardSigmoid(b, loc, c, a[0], op.getAlpha().convertToDouble(),
                     op.getBeta().convertToDouble());
}
Value scalar(MishOp, OpBuilder &b, Location loc, ValueRange a,
             const ScalarContext &c) {
  Value t = math::TanhOp::create(b, loc, softplus(b, loc, c, a[0]));
  return mulF(b, loc, a[0], t);
}
Value scalar(GeluOp op, OpBuilder &b, Location loc, ValueRange a,
             const ScalarContext &c) {
  Value x = a[0];
  Value half = cst(b, loc, c, 0.5), one = cst(b, loc, c, 1.0);
  Value inner;
  if (op.getApproximate() == "tanh") {
    // tanh(sqrt(2/pi) * (x + 0.044715 x^3))
    Value x3 = mulF(b, loc, x, mulF(b, loc, x, x));
    Value s = addF(b, loc, x, mulF(b, loc, cst(b, loc, c, 0.044715), x3));
    inner = math::TanhOp::create(
        b, loc,
        mulF(b, loc, cst(b, loc, c, 0.7978845608028654 /* sqrt(2/pi) */), s));
  } else {
    inner = math::ErfOp::create(
        b, loc,
        mulF(b, loc, x, cst(b, loc, c, 0.7071067811865476 /* 1/sqrt(2) */)));
  }
  return mulF(b, loc, mulF(b, loc, half, x), addF(b, loc, one, inner));
}
Value scalar(LeakyReluOp op, OpBuilder &b, Location loc, ValueRange a,
             const ScalarContext &c) {
  Value x = a[0];
  Value alpha = cst(b, loc, c, op.getAlpha().convertToDouble());
  Value neg = cmpF(b, loc, arith::CmpFPredicate::OLT, x, cst(b, loc, c, 0.0));
  return select(b, loc, neg, mulF(b, loc, alpha, x), x);
}
Value scalar(EluOp op, OpBuilder &b, Location loc, ValueRange a,
             const ScalarContext &c) {
  Value x = a[0];
  Value neg = cmpF(b, loc, arith::CmpFPredicate::OLT, x, cst(b, loc, c, 0.0));
  return select(b, loc, neg,
                scaledExpm1(b, loc, c, x, op.getAlpha().convertToDouble()), x);
}
Value scalar(CeluOp op, OpBuilder &b, Location loc, ValueRange a,
             const ScalarContext &c) {
  Value x = a[0];
  double alpha = op.getAlpha().convertToDouble();
  Value zero = cst(b, loc, c, 0.0);
  Value e =
      scaledExpm1(b, loc, c, divF(b, loc, x, cst(b, loc, c, alpha)), alpha);
  return addF(b, loc, arith::MaximumFOp::create(b, loc, x, zero),
              arith::MinimumFOp::create(b, loc, e, zero));
}
Value scalar(SeluOp op, OpBuilder &b, Location loc, ValueRange a,
             const ScalarContext &c) {
  Value x = a[0];
  Value le = cmpF(b, loc, arith::CmpFPredicate::OLE, x, cst(b, loc, c, 0.0));
  Value y =
      select(b, loc, le,
             scaledExpm1(b, loc, c, x, op.getAlpha().convertToDouble()), x);
  return mulF(b, loc, cst(b, loc, c, op.getGamma().convertToDouble()), y);
}
Value scalar(ThresholdedReluOp op, OpBuilder &b, Location loc, ValueRange a,
             const ScalarContext &c) {
  Value x = a[0];
  Value gt = cmpF(b, loc, arith::CmpFPredicate::OGT, x,
                  cst(b, loc, c, op.getAlpha().convertToDouble()));
  return select(b, loc, gt, x, cst(b, loc, c, 0.0));
}
Value scalar(ShrinkOp op, OpBuilder &b, Location loc, ValueRange a,
             const ScalarContext &c) {
  // Integers are compared and shifted in f32, as onnxruntime does, and
  // truncated back.
  Type f32 = b.getF32Type();
  Value x = c.isFloat() ? a[0] : convertScalar(b, loc, a[0], f32, c.isUnsigned);
  Type t = x.getType();
  double lambd = op.getLambd().convertToDouble();
  Value bias = scalarConstant(b, loc, t, op.getBias().convertToDouble());
  Value below = cmpF(b, loc, arith::CmpFPredicate::OLT, x,
                     scalarConstant(b, loc, t, -lambd));
  Value above = cmpF(b, loc, arith::CmpFPredicate::OGT, x,
                     scalarConstant(b, loc, t, lambd));
  Value zero = scalarConstant(b, loc, t, 0.0);
  Value y = select(b, loc, below, addF(b, loc, x, bias),
                   select(b, loc, above, subF(b, loc, x, bias), zero));
  if (c.isFloat())
    return y;
  return convertScalar(b, loc, y, c.elementType, false, c.isUnsigned);
}
Value scalar(ClipOp op, OpBuilder &b, Location loc, ValueRange a,
             const ScalarContext &c) {
  Value x = a[0];
  auto bound = [&](double v) -> Value {
    if (auto it = dyn_cast<IntegerType>(c.elementType))
      return clampedIntConstant(b, loc, it, c.isUnsigned, v);
    return cst(b, loc, c, v);
  };
  if (std::optional<APFloat> lo = op.getMin()) {
    Value v = bound(lo->convertToDouble());
    if (c.isFloat())
      x = arith::MaximumFOp::create(b, loc, x, v);
    else if (c.isUnsigned)
      x = arith::MaxUIOp::create(b, loc, x, v);
    else
      x = arith::MaxSIOp::create(b, loc, x, v);
  }
  // Applied last: when min > max every element becomes max.
  if (std::optional<APFloat> hi = op.getMax()) {
    Value v = bound(hi->convertToDouble());
    if (c.isFloat())
      x = arith::MinimumFOp::create(b, loc, x, v);
    else if (c.isUnsigned)
      x = arith::MinUIOp::create(b, loc, x, v);
    else
      x = arith::MinSIOp::create(b, loc, x, v);
  }
  return x;
}
Value scalar(NotOp, OpBuilder &b, Location loc, ValueRange a,
             const ScalarContext &c) {
  return arith::XOrIOp::create(b, loc, a[0], cst(b, loc, c, 1.0));
}
Value scalar(BitwiseNotOp, OpBuilder &b, Location loc, ValueRange a,
             const ScalarContext &c) {
  return arith::XOrIOp::create(b, loc, a[0], cst(b, loc, c, -1.0));
}
Value scalar(IsNaNOp, OpBuilder &b, Location loc, ValueRange a,
             const ScalarContext &) {
  return cmpF(b, loc, arith::CmpFPredicate::UNO, a[0], a[0]);
}
Value scalar(IsInfOp op, OpBuilder &b, Location loc, ValueRange a,
             const ScalarContext &c) {
  auto ft = cast<FloatType>(c.elementType);
  auto isInf = [&](bool negative) {
    Value inf = arith::ConstantOp::create(
        b, loc,
        FloatAttr::get(ft, APFloat::getInf(ft.getFloatSemantics(), negative)));
    return cmpF(b, loc, arith::CmpFPredicate::OEQ, a[0], inf);
  };
  Value result = scalarConstant(b, loc, b.getI1Type(), 0.0);
  if (op.getDetectPositive())
    result = isInf(false);
  if (op.getDetectNegative())
    result = arith::OrIOp::create(b, loc, result, isInf(true));
  return result;
}

//===----------------------------------------------------------------------===//
// Binary arithmetic
//===----------------------------------------------------------------------===//

Value scalar(AddOp, OpBuilder &b, Location loc, ValueRange a,
             const ScalarContext &c) {
  if (c.isFloat())
    return addF(b, loc, a[0], a[1]);
  return arith::AddIOp::create(b, loc, a[0], a[1]);
}
Value scalar(SubOp, OpBuilder &b, Location loc, ValueRange a,
             const ScalarContext &c) {
  if (c.isFloat())
    return subF(b, loc, a[0], a[1]);
  return arith::SubIOp::create(b, loc, a[0], a[1]);
}
Value scalar(MulOp, OpBuilder &b, Location loc, ValueRange a,
             const ScalarContext &c) {
  if (c.isFloat())
    return mulF(b, loc, a[0], a[1]);
  return arith::MulIOp::create(b, loc, a[0], a[1]);
}
Value scalar(DivOp, OpBuilder &b, Location loc, ValueRange a,
             const ScalarContext &c) {
  if (c.isFloat())
    return divF(b, loc, a[0], a[1]);
  // Integer division truncates toward zero.
  if (c.isUnsigned)
    return arith::DivUIOp::create(b, loc, a[0], a[1]);
  return arith::DivSIOp::create(b, loc, a[0], a[1]);
}
Value scalar(PowOp, OpBuilder &b, Location loc, ValueRange a,
             const ScalarContext &c) {
  if (c.isFloat())
    return math::PowFOp::create(b, loc, a[0], a[1]);
  // Integer powers: computed in f64 and truncated, as onnxruntime does
  // (negative exponents give 0 or +-1 accordingly).
  Type f64 = b.getF64Type();
  Value x = convertScalar(b, loc, a[0], f64, c.isUnsigned);
  Value y = convertScalar(b, loc, a[1], f64, c.isUnsigned);
  Value p = math::PowFOp::create(b, loc, x, y);
  return convertScalar(b, loc, p, c.elementType, false, c.isUnsigned);
}
Value scalar(MaxOp, OpBuilder &b, Location loc, ValueRange a,
             const ScalarContext &c) {
  if (c.isFloat())
    return arith::MaximumFOp::create(b, loc, a[0], a[1]); // propagates NaN
  if (c.isUnsigned)
    return arith::MaxUIOp::create(b, loc, a[0], a[1]);
  return arith::MaxSIOp::create(b, loc, a[0], a[1]);
}
Value scalar(MinOp, OpBuilder &b, Location loc, ValueRange a,
             const ScalarContext &c) {
  if (c.isFloat())
    return arith::MinimumFOp::create(b, loc, a[0], a[1]);
  if (c.isUnsigned)
    return arith::MinUIOp::create(b, loc, a[0], a[1]);
  return arith::MinSIOp::create(b, loc, a[0], a[1]);
}
Value scalar(PReluOp, OpBuilder &b, Location loc, ValueRange a,
             const ScalarContext &c) {
  Value neg =
      cmpF(b, loc, arith::CmpFPredicate::OLT, a[0], cst(b, loc, c, 0.0));
  return select(b, loc, neg, mulF(b, loc, a[1], a[0]), a[0]);
}
Value scalar(ModOp op, OpBuilder &b, Location loc, ValueRange a,
             const ScalarContext &c) {
  Value x = a[0], y = a[1];
  if (c.isUnsigned)
    return arith::RemUIOp::create(b, loc, x, y);
  Value zero = cst(b, loc, c, 0.0);
  // C remainder: the sign of the dividend.
  Value r = c.isFloat() ? Value(arith::RemFOp::create(b, loc, x, y))
                        : Value(arith::RemSIOp::create(b, loc, x, y));
  if (op.getFmod())
    return r;
  // Python remainder: a nonzero result takes the sign of the divisor.
  Value fix;
  if (c.isFloat()) {
    Value nonzero = cmpF(b, loc, arith::CmpFPredicate::ONE, r, zero);
    Value rNeg = cmpF(b, loc, arith::CmpFPredicate::OLT, r, zero);
    Value yNeg = cmpF(b, loc, arith::CmpFPredicate::OLT, y, zero);
    Value differ = arith::XOrIOp::create(b, loc, rNeg, yNeg);
    fix = arith::AndIOp::create(b, loc, nonzero, differ);
    return select(b, loc, fix, addF(b, loc, r, y), r);
  }
  Value nonzero = cmpI(b, loc, arith::CmpIPredicate::ne, r, zero);
  Value rNeg = cmpI(b, loc, arith::CmpIPredicate::slt, r, zero);
  Value yNeg = cmpI(b, loc, arith::CmpIPredicate::slt, y, zero);
  Value differ = arith::XOrIOp::create(b, loc, rNeg, yNeg);
  fix = arith::AndIOp::create(b, loc, nonzero, differ);
  return select(b, loc, fix, arith::AddIOp::create(b, loc, r, y), r);
}
Value scalar(BitShiftOp op, OpBuilder &b, Location loc, ValueRange a,
             const ScalarContext &c) {
  Value x = a[0], n = a[1];
  unsigned width = c.elementType.getIntOrFloatBitWidth();
  // Shifting by the width or more is poison in LLVM: give 0 (or the sign
  // for arithmetic right shifts) as a shift one bit at a time would.
  Value w = cst(b, loc, c, width);
  Value tooFar = cmpI(b, loc, arith::CmpIPredicate::uge, n, w);
  if (!op.getLeft() && !c.isUnsigned) {
    Value clamped = select(b, loc, tooFar, cst(b, loc, c, width - 1), n);
    return arith::ShRSIOp::create(b, loc, x, clamped);
  }
  Value shifted = op.getLeft() ? Value(arith::ShLIOp::create(b, loc, x, n))
                               : Value(arith::ShRUIOp::create(b, loc, x, n));
  return select(b, loc, tooFar, cst(b, loc, c, 0.0), shifted);
}

//===----------------------------------------------------------------------===//
// Logical, bitwise and comparisons
//===----------------------------------------------------------------------===//

Value scalar(AndOp, OpBuilder &b, Location loc, ValueRange a,
             const ScalarContext &) {
  return arith::AndIOp::create(b, loc, a[0], a[1]);
}
Value scalar(OrOp, OpBuilder &b, Location loc, ValueRange a,
             const ScalarContext &) {
  return arith::OrIOp::create(b, loc, a[0], a[1]);
}
Value scalar(XorOp, OpBuilder &b, Location loc, ValueRange a,
             const ScalarContext &) {
  return arith::XOrIOp::create(b, loc, a[0], a[1]);
}
Value scalar(BitwiseAndOp, OpBuilder &b, Location loc, ValueRange a,
             const ScalarContext &) {
  return arith::AndIOp::create(b, loc, a[0], a[1]);
}
Value scalar(BitwiseOrOp, OpBuilder &b, Location loc, ValueRange a,
             const ScalarContext &) {
  return arith::OrIOp::create(b, loc, a[0], a[1]);
}
Value scalar(BitwiseXorOp, OpBuilder &b, Location loc, ValueRange a,
             const ScalarContext &) {
  return arith::XOrIOp::create(b, loc, a[0], a[1]);
}
Value scalar(EqualOp, OpBuilder &b, Location loc, ValueRange a,
             const ScalarContext &c) {
  return compare(b, loc, c, arith::CmpFPredicate::OEQ, arith::CmpIPredicate::eq,
                 arith::CmpIPredicate::eq, a[0], a[1]);
}
Value scalar(LessOp, OpBuilder &b, Location loc, ValueRange a,
             const ScalarContext &c) {
  return compare(b, loc, c, arith::CmpFPredicate::OLT,
                 arith::CmpIPredicate::slt, arith::CmpIPredicate::ult, a[0],
                 a[1]);
}
Value scalar(LessEqualOp, OpBuilder &b, Location loc, ValueRange a,
             const ScalarContext &c) {
  return compare(b, loc, c, arith::CmpFPredicate::OLE,
                 arith::CmpIPredicate::sle, arith::CmpIPredicate::ule, a[0],
                 a[1]);
}
Value scalar(GreaterOp, OpBuilder &b, Location loc, ValueRange a,
             const ScalarContext &c) {
  return compare(b, loc, c, arith::CmpFPredicate::OGT,
                 arith::CmpIPredicate::sgt, arith::CmpIPredicate::ugt, a[0],
                 a[1]);
}
Value scalar(GreaterEqualOp, OpBuilder &b, Location loc, ValueRange a,
             const ScalarContext &c) {
  return compare(b, loc, c, arith::CmpFPredicate::OGE,
                 arith::CmpIPredicate::sge, arith::CmpIPredicate::uge, a[0],
                 a[1]);
}
Value scalar(WhereOp, OpBuilder &b, Location loc, ValueRange a,
             const ScalarContext &) {
  return select(b, loc, a[0], a[1], a[2]);
}

/// The operand whose element type the computation uses (where's condition
/// is not it).
template <typename OpTy> constexpr unsigned dataOperand() {
  return std::is_same_v<OpTy, WhereOp> ? 1 : 0;
}

/// Floats narrower than f32 are computed in f32.
bool isNarrowFloat(Type t) {
  auto ft = dyn_cast<FloatType>(t);
  return ft && ft.getWidth() < 32;
}

/// One pattern for every elementwise op: maps + body from `scalar(OpTy)`.
template <typename OpTy>
struct ElementwiseLowering : OpConversionPattern<OpTy> {
  using OpConversionPattern<OpTy>::OpConversionPattern;
  LogicalResult
  matchAndRewrite(OpTy op, typename OpTy::Adaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto resultType = cast<RankedTensorType>(
        this->getTypeConverter()->convertType(op.getType()));
    Type origElement =
        cast<ShapedType>(op->getOperand(dataOperand<OpTy>()).getType())
            .getElementType();
    Type element = signlessElementType(origElement);
    bool narrow = isNarrowFloat(element);
    Type f32 = rewriter.getF32Type();
    ScalarContext ctx{narrow ? f32 : element, origElement.isUnsignedInteger()};
    Value result = buildElementwise(
        rewriter, op.getLoc(), resultType, adaptor.getOperands(),
        [&](OpBuilder &b, Location loc, ValueRange args) -> Value {
          if (!narrow)
            return scalar(op, b, loc, args, ctx);
          SmallVector<Value> wide;
          for (Value v : args)
            wide.push_back(v.getType() == element
                               ? arith::ExtFOp::create(b, loc, f32, v)
                               : v);
          Value r = scalar(op, b, loc, wide, ctx);
          if (r.getType() == f32)
            r = arith::TruncFOp::create(b, loc, element, r);
          return r;
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// cast: ONNX Cast semantics via convertScalar, with signedness from the
/// original types.
struct CastLowering : OpConversionPattern<CastOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(CastOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto resultType =
        cast<RankedTensorType>(getTypeConverter()->convertType(op.getType()));
    Type fromOrig = op.getInput().getType().getElementType();
    Type toOrig = op.getType().getElementType();
    Type to = resultType.getElementType();
    bool fromUnsigned = fromOrig.isUnsignedInteger();
    bool toUnsigned = toOrig.isUnsignedInteger();
    Value result = buildElementwise(
        rewriter, op.getLoc(), resultType, adaptor.getInput(),
        [&](OpBuilder &b, Location loc, ValueRange args) -> Value {
          Value v = args[0];
          auto fromF = dyn_cast<FloatType>(v.getType());
          auto toF = dyn_cast<FloatType>(to);
          // Between distinct float types of one width (f16 <-> bf16, the
          // f8 kinds) go through f32.
          if (fromF && toF && fromF != toF &&
              fromF.getWidth() == toF.getWidth())
            v = arith::ExtFOp::create(b, loc, b.getF32Type(), v);
          return convertScalar(b, loc, v, to, fromUnsigned, toUnsigned);
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

} // namespace

void telar::populateElementwiseLoweringPatterns(const TypeConverter &converter,
                                                RewritePatternSet &patterns) {
  patterns.add<
      // Unary.
      ElementwiseLowering<AbsOp>, ElementwiseLowering<NegOp>,
      ElementwiseLowering<SignOp>, ElementwiseLowering<ExpOp>,
      ElementwiseLowering<LogOp>, ElementwiseLowering<SqrtOp>,
      ElementwiseLowering<ReciprocalOp>, ElementwiseLowering<FloorOp>,
      ElementwiseLowering<CeilOp>, ElementwiseLowering<RoundOp>,
      ElementwiseLowering<SinOp>, ElementwiseLowering<CosOp>,
      ElementwiseLowering<TanOp>, ElementwiseLowering<AsinOp>,
      ElementwiseLowering<AcosOp>, ElementwiseLowering<AtanOp>,
      ElementwiseLowering<SinhOp>, ElementwiseLowering<CoshOp>,
      ElementwiseLowering<AsinhOp>, ElementwiseLowering<AcoshOp>,
      ElementwiseLowering<AtanhOp>, ElementwiseLowering<TanhOp>,
      ElementwiseLowering<SigmoidOp>, ElementwiseLowering<ReluOp>,
      ElementwiseLowering<ErfOp>, ElementwiseLowering<SoftplusOp>,
      ElementwiseLowering<SoftsignOp>, ElementwiseLowering<HardSwishOp>,
      ElementwiseLowering<MishOp>, ElementwiseLowering<NotOp>,
      ElementwiseLowering<BitwiseNotOp>, ElementwiseLowering<GeluOp>,
      ElementwiseLowering<LeakyReluOp>, ElementwiseLowering<EluOp>,
      ElementwiseLowering<CeluOp>, ElementwiseLowering<SeluOp>,
      ElementwiseLowering<HardSigmoidOp>,
      ElementwiseLowering<ThresholdedReluOp>, ElementwiseLowering<ShrinkOp>,
      ElementwiseLowering<ClipOp>, ElementwiseLowering<IsNaNOp>,
      ElementwiseLowering<IsInfOp>,
      // Binary and ternary.
      ElementwiseLowering<AddOp>, ElementwiseLowering<SubOp>,
      ElementwiseLowering<MulOp>, ElementwiseLowering<DivOp>,
      ElementwiseLowering<PowOp>, ElementwiseLowering<MaxOp>,
      ElementwiseLowering<MinOp>, ElementwiseLowering<PReluOp>,
      ElementwiseLowering<ModOp>, ElementwiseLowering<BitShiftOp>,
      ElementwiseLowering<AndOp>, ElementwiseLowering<OrOp>,
      ElementwiseLowering<XorOp>, ElementwiseLowering<BitwiseAndOp>,
      ElementwiseLowering<BitwiseOrOp>, ElementwiseLowering<BitwiseXorOp>,
      ElementwiseLowering<EqualOp>, ElementwiseLowering<LessOp>,
      ElementwiseLowering<LessEqualOp>, ElementwiseLowering<GreaterOp>,
      ElementwiseLowering<GreaterEqualOp>, ElementwiseLowering<WhereOp>,
      CastLowering>(converter, patterns.getContext());
}
