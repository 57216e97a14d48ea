//===- OpConvertersElementwise.cpp - Unary, binary, variadic, cast --------===//

#include "ImporterInternal.h"

#include "telar/dialects/Telar/TelarOps.h"

using namespace mlir;
using namespace mlir::telar;
using namespace mlir::telar::onnx_import;

namespace {

template <typename OpTy>
LogicalResult unary(OpContext &c) {
  Value x = c.required(0, "X");
  if (!x)
    return failure();
  return c.done(c.create<OpTy>({x}));
}

template <typename OpTy>
LogicalResult binary(OpContext &c) {
  Value a = c.required(0, "A"), b = a ? c.required(1, "B") : Value();
  if (!b)
    return failure();
  return c.done(c.create<OpTy>({a, b}));
}

/// Max/Min/Sum as a left-to-right chain of binary ops.
template <typename OpTy>
Value chain(OpContext &c) {
  if (c.numInputs() == 0) {
    (void)c.fail("needs at least one input");
    return {};
  }
  Value acc = c.required(0, "data_0");
  for (unsigned i = 1; acc && i < c.numInputs(); ++i) {
    Value next = c.required(i, "data_" + std::to_string(i));
    acc = next ? c.create<OpTy>({acc, next}) : Value();
  }
  return acc;
}

template <typename OpTy>
LogicalResult variadic(OpContext &c) {
  return c.done(chain<OpTy>(c));
}

LogicalResult convertMean(OpContext &c) {
  Value sum = chain<AddOp>(c);
  if (!sum)
    return failure();
  if (c.numInputs() == 1)
    return c.done(sum);
  Value n = c.scalar(elementTypeOf(sum), static_cast<double>(c.numInputs()));
  return c.done(n ? c.create<DivOp>({sum, n}) : Value());
}

LogicalResult convertIdentity(OpContext &c) {
  return c.done(c.required(0, "input"));
}

LogicalResult convertDropout(OpContext &c) {
  Value x = c.required(0, "data");
  if (!x)
    return failure();
  if (c.has(2)) {
    auto training = c.constInts(2, "training_mode");
    if (failed(training))
      return failure();
    if (!training->empty() && (*training)[0] != 0)
      return c.fail("training mode (training_mode = true) is not supported");
  }
  c.results[0] = x;
  if (c.used(1)) {
    auto type = RankedTensorType::get(shapeOf(x), c.b.getI1Type());
    Value mask = c.constant(DenseElementsAttr::get(type, true));
    if (!mask)
      return failure();
    c.results[1] = mask;
  }
  return success();
}

LogicalResult convertCast(OpContext &c) {
  Value x = c.required(0, "input");
  if (!x)
    return failure();
  int64_t to = c.getInt("to", 0);
  Type et = onnxElementType(c.getContext(), static_cast<int32_t>(to));
  if (!et)
    return c.fail("unsupported element type (ONNX data type " +
                  llvm::Twine(to) + ") in attribute 'to'");
  llvm::SmallVector<NamedAttribute> attrs{c.named("to", TypeAttr::get(et))};
  if (c.opset >= 19)
    attrs.push_back(c.boolean("saturate", c.getInt("saturate", 1) != 0));
  return c.done(c.create<CastOp>({x}, attrs));
}

LogicalResult convertCastLike(OpContext &c) {
  Value x = c.required(0, "input"), like = x ? c.required(1, "target_type") : Value();
  if (!like)
    return failure();
  llvm::SmallVector<NamedAttribute> attrs{
      c.named("to", TypeAttr::get(elementTypeOf(like)))};
  if (c.opset >= 19)
    attrs.push_back(c.boolean("saturate", c.getInt("saturate", 1) != 0));
  return c.done(c.create<CastOp>({x}, attrs));
}

LogicalResult convertPow(OpContext &c) {
  Value x = c.required(0, "X"), y = x ? c.required(1, "Y") : Value();
  if (!y)
    return failure();
  if (elementTypeOf(y) != elementTypeOf(x))
    y = c.create<CastOp>(
        {y}, {c.named("to", TypeAttr::get(elementTypeOf(x)))});
  return c.done(y ? c.create<PowOp>({x, y}) : Value());
}

LogicalResult convertMod(OpContext &c) {
  Value a = c.required(0, "A"), b = a ? c.required(1, "B") : Value();
  if (!b)
    return failure();
  return c.done(
      c.create<ModOp>({a, b}, {c.boolean("fmod", c.getInt("fmod", 0) != 0)}));
}

LogicalResult convertBitShift(OpContext &c) {
  Value a = c.required(0, "X"), b = a ? c.required(1, "Y") : Value();
  if (!b)
    return failure();
  std::string dir = c.getString("direction", "");
  if (dir != "LEFT" && dir != "RIGHT")
    return c.fail("attribute 'direction' must be LEFT or RIGHT, got '" + dir +
                  "'");
  return c.done(c.create<BitShiftOp>({a, b}, {c.boolean("left", dir == "LEFT")}));
}

LogicalResult convertWhere(OpContext &c) {
  Value cond = c.required(0, "condition");
  Value x = cond ? c.required(1, "X") : Value();
  Value y = x ? c.required(2, "Y") : Value();
  if (!y)
    return failure();
  return c.done(c.create<WhereOp>({cond, x, y}));
}

LogicalResult convertGelu(OpContext &c) {
  Value x = c.required(0, "X");
  if (!x)
    return failure();
  return c.done(c.create<GeluOp>(
      {x}, {c.str("approximate", c.getString("approximate", "none"))}));
}

/// Unary op with float attributes copied under the same names.
template <typename OpTy>
LogicalResult unaryWithFloats(OpContext &c,
                              llvm::ArrayRef<std::pair<const char *, double>> fs) {
  Value x = c.required(0, "X");
  if (!x)
    return failure();
  llvm::SmallVector<NamedAttribute> attrs;
  for (auto [name, dflt] : fs)
    attrs.push_back(c.f32(name, c.getFloat(name, dflt)));
  return c.done(c.create<OpTy>({x}, attrs));
}

LogicalResult convertLeakyRelu(OpContext &c) {
  return unaryWithFloats<LeakyReluOp>(c, {{"alpha", 0.01}});
}
LogicalResult convertElu(OpContext &c) {
  return unaryWithFloats<EluOp>(c, {{"alpha", 1.0}});
}
LogicalResult convertCelu(OpContext &c) {
  return unaryWithFloats<CeluOp>(c, {{"alpha", 1.0}});
}
LogicalResult convertSelu(OpContext &c) {
  return unaryWithFloats<SeluOp>(
      c, {{"alpha", 1.67326319217681884765625}, {"gamma", 1.05070102214813232421875}});
}
LogicalResult convertHardSigmoid(OpContext &c) {
  return unaryWithFloats<HardSigmoidOp>(c, {{"alpha", 0.2}, {"beta", 0.5}});
}
LogicalResult convertThresholdedRelu(OpContext &c) {
  return unaryWithFloats<ThresholdedReluOp>(c, {{"alpha", 1.0}});
}
LogicalResult convertShrink(OpContext &c) {
  return unaryWithFloats<ShrinkOp>(c, {{"bias", 0.0}, {"lambd", 0.5}});
}

LogicalResult convertIsInf(OpContext &c) {
  Value x = c.required(0, "X");
  if (!x)
    return failure();
  return c.done(c.create<IsInfOp>(
      {x}, {c.boolean("detect_positive", c.getInt("detect_positive", 1) != 0),
            c.boolean("detect_negative", c.getInt("detect_negative", 1) != 0)}));
}

LogicalResult convertClip(OpContext &c) {
  Value x = c.required(0, "input");
  if (!x)
    return failure();
  llvm::SmallVector<NamedAttribute> attrs;
  if (c.opset < 11) {
    if (c.hasAttr("min"))
      attrs.push_back(c.f64("min", c.getFloat("min", 0)));
    if (c.hasAttr("max"))
      attrs.push_back(c.f64("max", c.getFloat("max", 0)));
  } else {
    const char *names[] = {"", "min", "max"};
    for (unsigned i = 1; i <= 2; ++i) {
      if (!c.has(i))
        continue;
      auto v = c.constFloats(i, names[i]);
      if (failed(v))
        return failure();
      if (v->size() != 1)
        return c.fail(llvm::Twine("input '") + names[i] +
                      "' must be a scalar, got " + llvm::Twine(v->size()) +
                      " elements");
      attrs.push_back(c.f64(names[i], (*v)[0]));
    }
  }
  return c.done(c.create<ClipOp>({x}, attrs));
}

} // namespace

void mlir::telar::onnx_import::registerElementwiseConverters(ConverterTable &t) {
  t["Abs"] = {unary<AbsOp>};
  t["Neg"] = {unary<NegOp>};
  t["Exp"] = {unary<ExpOp>};
  t["Log"] = {unary<LogOp>};
  t["Sqrt"] = {unary<SqrtOp>};
  t["Reciprocal"] = {unary<ReciprocalOp>};
  t["Floor"] = {unary<FloorOp>};
  t["Ceil"] = {unary<CeilOp>};
  t["Round"] = {unary<RoundOp>};
  t["Sign"] = {unary<SignOp>};
  t["Sin"] = {unary<SinOp>};
  t["Cos"] = {unary<CosOp>};
  t["Tan"] = {unary<TanOp>};
  t["Asin"] = {unary<AsinOp>};
  t["Acos"] = {unary<AcosOp>};
  t["Atan"] = {unary<AtanOp>};
  t["Sinh"] = {unary<SinhOp>};
  t["Cosh"] = {unary<CoshOp>};
  t["Asinh"] = {unary<AsinhOp>};
  t["Acosh"] = {unary<AcoshOp>};
  t["Atanh"] = {unary<AtanhOp>};
  t["Tanh"] = {unary<TanhOp>};
  t["Sigmoid"] = {unary<SigmoidOp>};
  t["Relu"] = {unary<ReluOp>};
  t["Erf"] = {unary<ErfOp>};
  t["Not"] = {unary<NotOp>};
  t["Softplus"] = {unary<SoftplusOp>};
  t["Softsign"] = {unary<SoftsignOp>};
  t["HardSwish"] = {unary<HardSwishOp>, 14};
  t["Mish"] = {unary<MishOp>, 18};
  t["BitwiseNot"] = {unary<BitwiseNotOp>, 18};
  t["IsNaN"] = {unary<IsNaNOp>};
  t["IsInf"] = {convertIsInf};
  t["Gelu"] = {convertGelu, 20};
  t["LeakyRelu"] = {convertLeakyRelu};
  t["Elu"] = {convertElu};
  t["Selu"] = {convertSelu};
  t["Celu"] = {convertCelu, 12};
  t["HardSigmoid"] = {convertHardSigmoid};
  t["ThresholdedRelu"] = {convertThresholdedRelu};
  t["Shrink"] = {convertShrink};
  t["Clip"] = {convertClip};
  t["Cast"] = {convertCast};
  t["CastLike"] = {convertCastLike, 15};
  t["Identity"] = {convertIdentity};
  t["Dropout"] = {convertDropout};

  t["Add"] = {binary<AddOp>};
  t["Sub"] = {binary<SubOp>};
  t["Mul"] = {binary<MulOp>};
  t["Div"] = {binary<DivOp>};
  t["Pow"] = {convertPow};
  t["Mod"] = {convertMod};
  t["Equal"] = {binary<EqualOp>};
  t["Less"] = {binary<LessOp>};
  t["Greater"] = {binary<GreaterOp>};
  t["LessOrEqual"] = {binary<LessEqualOp>, 12};
  t["GreaterOrEqual"] = {binary<GreaterEqualOp>, 12};
  t["And"] = {binary<AndOp>};
  t["Or"] = {binary<OrOp>};
  t["Xor"] = {binary<XorOp>};
  t["BitwiseAnd"] = {binary<BitwiseAndOp>, 18};
  t["BitwiseOr"] = {binary<BitwiseOrOp>, 18};
  t["BitwiseXor"] = {binary<BitwiseXorOp>, 18};
  t["BitShift"] = {convertBitShift};
  t["PRelu"] = {binary<PReluOp>};
  t["Where"] = {convertWhere};
  t["Max"] = {variadic<MaxOp>};
  t["Min"] = {variadic<MinOp>};
  t["Sum"] = {variadic<AddOp>};
  t["Mean"] = {convertMean};
}
