//===- Folders.cpp - Constant folding of telar ops ------------------------===//
//
// Folders are what make ONNX shape subgraphs (Shape -> Gather -> Unsqueeze ->
// Concat -> Reshape, ConstantOfShape, Range, ...) disappear at import time:
// the importer creates ops with `createOrFold`, so a computation on small
// constant tensors becomes a `telar.constant`. Only plain `dense` constants of
// at most FoldLimitScope::kDefaultElements elements fold (weights, resources,
// are never touched), unless a FoldLimitScope raises the limit:
// telar-fold-constants hands the folders larger constants, resources
// included, as dense attributes.
//
//===----------------------------------------------------------------------===//

#include "telar/dialects/Telar/TelarOps.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Matchers.h"
#include "llvm/ADT/APSInt.h"

#include <cmath>

using namespace mlir;
using namespace mlir::telar;

/// The most elements a folded constant (operand or result) may have on this
/// thread: FoldLimitScope::kDefaultElements unless a FoldLimitScope says
/// otherwise.
static thread_local int64_t maxFoldElements = FoldLimitScope::kDefaultElements;

FoldLimitScope::FoldLimitScope(int64_t elements) : saved(maxFoldElements) {
  maxFoldElements = elements;
}
FoldLimitScope::~FoldLimitScope() { maxFoldElements = saved; }

/// The constant operand as a foldable dense attribute, or null.
static DenseElementsAttr foldable(Attribute attr) {
  auto dense = dyn_cast_or_null<DenseElementsAttr>(attr);
  if (!dense || dense.getNumElements() > maxFoldElements)
    return {};
  return dense;
}

/// Whether integer comparisons (and division) treat the element type as
/// unsigned. `i1` is a boolean: true (1) > false (0), not -1 < 0.
static bool isUnsigned(Type elementType) {
  auto it = dyn_cast<IntegerType>(elementType);
  return it && (it.isUnsigned() || it.getWidth() == 1);
}

OpFoldResult ConstantOp::fold(FoldAdaptor) { return getValue(); }

//===----------------------------------------------------------------------===//
// Elementwise arithmetic
//===----------------------------------------------------------------------===//

namespace {
using IntFn = function_ref<std::optional<APInt>(const APInt &, const APInt &,
                                                bool isUnsigned)>;
using FloatFn =
    function_ref<std::optional<APFloat>(const APFloat &, const APFloat &)>;
} // namespace

/// Broadcasting elementwise fold of two dense constants. `resultType` may
/// have an i1 element type (comparisons): then the callbacks return 0/1.
static Attribute foldBinary(Attribute lhsAttr, Attribute rhsAttr,
                           RankedTensorType resultType, IntFn intFn,
                           FloatFn floatFn) {
  DenseElementsAttr lhs = foldable(lhsAttr), rhs = foldable(rhsAttr);
  if (!lhs || !rhs || !resultType.hasStaticShape() ||
      resultType.getNumElements() > maxFoldElements)
    return {};
  Type elementType = lhs.getElementType();
  ArrayRef<int64_t> outShape = resultType.getShape();
  auto index = [&](DenseElementsAttr a, int64_t linear) {
    // Map a result index to the (broadcast) operand's linear index.
    ArrayRef<int64_t> shape = a.getType().getShape();
    int64_t offset = outShape.size() - shape.size(), result = 0, stride = 1;
    for (int64_t d = outShape.size() - 1; d >= 0; --d) {
      int64_t coord = linear % outShape[d];
      linear /= outShape[d];
      if (d >= offset) {
        int64_t size = shape[d - offset];
        result += (size == 1 ? 0 : coord) * stride;
        stride *= size;
      }
    }
    return result;
  };
  bool predicate = resultType.getElementType().isInteger(1) &&
                   !elementType.isInteger(1);
  int64_t n = resultType.getNumElements();
  if (isa<FloatType>(elementType)) {
    if (!floatFn)
      return {};
    auto l = llvm::to_vector(lhs.getValues<APFloat>());
    auto r = llvm::to_vector(rhs.getValues<APFloat>());
    SmallVector<APFloat> floats;
    SmallVector<APInt> ints;
    for (int64_t i = 0; i < n; ++i) {
      auto v = floatFn(l[index(lhs, i)], r[index(rhs, i)]);
      if (!v)
        return {};
      if (predicate)
        ints.push_back(APInt(1, !v->isZero()));
      else
        floats.push_back(*v);
    }
    if (predicate)
      return DenseElementsAttr::get(resultType, ints);
    return DenseElementsAttr::get(resultType, floats);
  }
  if (!intFn || !isa<IntegerType>(elementType))
    return {};
  bool u = isUnsigned(elementType);
  auto l = llvm::to_vector(lhs.getValues<APInt>());
  auto r = llvm::to_vector(rhs.getValues<APInt>());
  SmallVector<APInt> ints;
  for (int64_t i = 0; i < n; ++i) {
    auto v = intFn(l[index(lhs, i)], r[index(rhs, i)], u);
    if (!v)
      return {};
    ints.push_back(predicate ? APInt(1, !v->isZero()) : *v);
  }
  return DenseElementsAttr::get(resultType, ints);
}

static std::optional<APInt> boolInt(bool b, const APInt &like) {
  return APInt(like.getBitWidth(), b);
}
static std::optional<APFloat> boolFloat(bool b) { return APFloat(b ? 1.0f : 0.0f); }

OpFoldResult AddOp::fold(FoldAdaptor a) {
  return foldBinary(
      a.getLhs(), a.getRhs(), getType(),
      [](const APInt &x, const APInt &y, bool) -> std::optional<APInt> {
        return x + y;
      },
      [](const APFloat &x, const APFloat &y) -> std::optional<APFloat> {
        return x + y;
      });
}

OpFoldResult SubOp::fold(FoldAdaptor a) {
  return foldBinary(
      a.getLhs(), a.getRhs(), getType(),
      [](const APInt &x, const APInt &y, bool) -> std::optional<APInt> {
        return x - y;
      },
      [](const APFloat &x, const APFloat &y) -> std::optional<APFloat> {
        return x - y;
      });
}

OpFoldResult MulOp::fold(FoldAdaptor a) {
  return foldBinary(
      a.getLhs(), a.getRhs(), getType(),
      [](const APInt &x, const APInt &y, bool) -> std::optional<APInt> {
        return x * y;
      },
      [](const APFloat &x, const APFloat &y) -> std::optional<APFloat> {
        return x * y;
      });
}

OpFoldResult DivOp::fold(FoldAdaptor a) {
  return foldBinary(
      a.getLhs(), a.getRhs(), getType(),
      [](const APInt &x, const APInt &y, bool u) -> std::optional<APInt> {
        if (y.isZero())
          return std::nullopt; // Leave division by zero to run time.
        return u ? x.udiv(y) : x.sdiv(y);
      },
      [](const APFloat &x, const APFloat &y) -> std::optional<APFloat> {
        return x / y;
      });
}

OpFoldResult MaxOp::fold(FoldAdaptor a) {
  return foldBinary(
      a.getLhs(), a.getRhs(), getType(),
      [](const APInt &x, const APInt &y, bool u) -> std::optional<APInt> {
        return (u ? x.ugt(y) : x.sgt(y)) ? x : y;
      },
      [](const APFloat &x, const APFloat &y) -> std::optional<APFloat> {
        return llvm::maximum(x, y);
      });
}

OpFoldResult MinOp::fold(FoldAdaptor a) {
  return foldBinary(
      a.getLhs(), a.getRhs(), getType(),
      [](const APInt &x, const APInt &y, bool u) -> std::optional<APInt> {
        return (u ? x.ult(y) : x.slt(y)) ? x : y;
      },
      [](const APFloat &x, const APFloat &y) -> std::optional<APFloat> {
        return llvm::minimum(x, y);
      });
}

#define TELAR_COMPARE_FOLDER(OP, INT, FLOAT)                                   \
  OpFoldResult OP::fold(FoldAdaptor a) {                                       \
    return foldBinary(                                                         \
        a.getLhs(), a.getRhs(), getType(),                                     \
        [](const APInt &x, const APInt &y, bool u) {                           \
          (void)u;                                                             \
          return boolInt(INT, x);                                              \
        },                                                                     \
        [](const APFloat &x, const APFloat &y) {                               \
          auto c = x.compare(y);                                               \
          (void)c;                                                             \
          return boolFloat(FLOAT);                                             \
        });                                                                    \
  }
TELAR_COMPARE_FOLDER(EqualOp, x == y, c == APFloat::cmpEqual)
TELAR_COMPARE_FOLDER(LessOp, u ? x.ult(y) : x.slt(y), c == APFloat::cmpLessThan)
TELAR_COMPARE_FOLDER(LessEqualOp, u ? x.ule(y) : x.sle(y),
                     c == APFloat::cmpLessThan || c == APFloat::cmpEqual)
TELAR_COMPARE_FOLDER(GreaterOp, u ? x.ugt(y) : x.sgt(y),
                     c == APFloat::cmpGreaterThan)
TELAR_COMPARE_FOLDER(GreaterEqualOp, u ? x.uge(y) : x.sge(y),
                     c == APFloat::cmpGreaterThan || c == APFloat::cmpEqual)
#undef TELAR_COMPARE_FOLDER

OpFoldResult AndOp::fold(FoldAdaptor a) {
  return foldBinary(
      a.getLhs(), a.getRhs(), getType(),
      [](const APInt &x, const APInt &y, bool) -> std::optional<APInt> {
        return x & y;
      },
      nullptr);
}
OpFoldResult OrOp::fold(FoldAdaptor a) {
  return foldBinary(
      a.getLhs(), a.getRhs(), getType(),
      [](const APInt &x, const APInt &y, bool) -> std::optional<APInt> {
        return x | y;
      },
      nullptr);
}
OpFoldResult XorOp::fold(FoldAdaptor a) {
  return foldBinary(
      a.getLhs(), a.getRhs(), getType(),
      [](const APInt &x, const APInt &y, bool) -> std::optional<APInt> {
        return x ^ y;
      },
      nullptr);
}

OpFoldResult ModOp::fold(FoldAdaptor a) {
  bool fmod = getFmod();
  return foldBinary(
      a.getLhs(), a.getRhs(), getType(),
      [fmod](const APInt &x, const APInt &y, bool u) -> std::optional<APInt> {
        if (y.isZero())
          return std::nullopt;
        if (u)
          return x.urem(y);
        // srem takes the dividend's sign (fmod); ONNX's default takes the
        // divisor's.
        APInt r = x.srem(y);
        if (!fmod && !r.isZero() && r.isNegative() != y.isNegative())
          r += y;
        return r;
      },
      nullptr);
}

/// Elementwise fold of an integer unary op on a small dense constant.
static Attribute foldUnaryInt(Attribute attr, RankedTensorType type,
                              function_ref<APInt(const APInt &)> fn) {
  DenseElementsAttr in = foldable(attr);
  if (!in || !isa<IntegerType>(in.getElementType()))
    return {};
  return in.mapValues(type.getElementType(), fn);
}

OpFoldResult NegOp::fold(FoldAdaptor a) {
  return foldUnaryInt(a.getInput(), getType(),
                      [](const APInt &x) { return -x; });
}

OpFoldResult AbsOp::fold(FoldAdaptor a) {
  bool u = isUnsigned(getType().getElementType());
  return foldUnaryInt(a.getInput(), getType(), [u](const APInt &x) {
    return u ? x : x.abs();
  });
}

OpFoldResult NotOp::fold(FoldAdaptor a) {
  return foldUnaryInt(a.getInput(), getType(),
                      [](const APInt &x) { return ~x; });
}

/// Elementwise fold of a float unary op on a dense f32 or f64 constant, with
/// the C library's function, which the generated code calls too (LLVM
/// lowers llvm.log.f32 to logf).
static Attribute foldUnaryFloat(Attribute attr, RankedTensorType type,
                                float (*f32)(float), double (*f64)(double)) {
  DenseElementsAttr in = foldable(attr);
  if (!in)
    return {};
  Type element = in.getElementType();
  if (!element.isF32() && !element.isF64())
    return {};
  return in.mapValues(element, [&](const APFloat &x) {
    if (element.isF32())
      return APFloat(f32(x.convertToFloat())).bitcastToAPInt();
    return APFloat(f64(x.convertToDouble())).bitcastToAPInt();
  });
}

OpFoldResult LogOp::fold(FoldAdaptor a) {
  return foldUnaryFloat(
      a.getInput(), getType(), [](float x) { return std::log(x); },
      [](double x) { return std::log(x); });
}

OpFoldResult ClipOp::fold(FoldAdaptor a) {
  DenseElementsAttr in = foldable(a.getInput());
  if (!in)
    return {};
  std::optional<APFloat> lo = getMin(), hi = getMax();
  if (auto it = dyn_cast<IntegerType>(in.getElementType())) {
    // Integer bounds only when they are whole numbers the type holds (the
    // lowering clamps others to its range).
    bool u = isUnsigned(it);
    auto bound = [&](std::optional<APFloat> v) -> std::optional<APInt> {
      if (!v)
        return APInt();
      APSInt r(it.getWidth(), u);
      bool isExact = false;
      if (v->convertToInteger(r, APFloat::rmTowardZero, &isExact) !=
              APFloat::opOK ||
          !isExact)
        return std::nullopt;
      return r;
    };
    std::optional<APInt> l = bound(lo), h = bound(hi);
    if (!l || !h)
      return {};
    // Applied in this order: when min > max every element becomes max.
    return in.mapValues(it, [&](const APInt &x) {
      APInt y = x;
      if (lo && (u ? y.ult(*l) : y.slt(*l)))
        y = *l;
      if (hi && (u ? y.ugt(*h) : y.sgt(*h)))
        y = *h;
      return y;
    });
  }
  auto ft = dyn_cast<FloatType>(in.getElementType());
  if (!ft)
    return {};
  auto convert = [&](std::optional<APFloat> v) -> std::optional<APFloat> {
    if (!v)
      return v;
    bool lost = false;
    APFloat r = *v;
    r.convert(ft.getFloatSemantics(), APFloat::rmNearestTiesToEven, &lost);
    return r;
  };
  std::optional<APFloat> l = convert(lo), h = convert(hi);
  // maximumf/minimumf, as the lowering: NaN stays NaN.
  return in.mapValues(ft, [&](const APFloat &x) {
    APFloat y = x;
    if (l)
      y = llvm::maximum(y, *l);
    if (h)
      y = llvm::minimum(y, *h);
    return y.bitcastToAPInt();
  });
}

// Ops whose folding is not worth it for shape math.
OpFoldResult PowOp::fold(FoldAdaptor) { return {}; }
OpFoldResult PReluOp::fold(FoldAdaptor) { return {}; }
OpFoldResult BitwiseAndOp::fold(FoldAdaptor) { return {}; }
OpFoldResult BitwiseOrOp::fold(FoldAdaptor) { return {}; }
OpFoldResult BitwiseXorOp::fold(FoldAdaptor) { return {}; }
OpFoldResult BitShiftOp::fold(FoldAdaptor) { return {}; }

OpFoldResult WhereOp::fold(FoldAdaptor a) {
  DenseElementsAttr c = foldable(a.getCondition()), l = foldable(a.getLhs()),
                    r = foldable(a.getRhs());
  RankedTensorType type = getType();
  if (!c || !l || !r || !type.hasStaticShape())
    return {};
  // Only the common splat-condition or same-shape cases; broadcasting of the
  // values is done by materialising them first.
  auto expand = [&](DenseElementsAttr x) -> SmallVector<Attribute> {
    if (x.isSplat())
      return SmallVector<Attribute>(type.getNumElements(),
                                    x.getSplatValue<Attribute>());
    if (x.getType().getShape() == type.getShape())
      return llvm::to_vector(x.getValues<Attribute>());
    return {};
  };
  auto lv = expand(l), rv = expand(r);
  if (lv.empty() || rv.empty() ||
      (!c.isSplat() && c.getType().getShape() != type.getShape()))
    return {};
  SmallVector<Attribute> out;
  auto conds = llvm::to_vector(c.getValues<bool>());
  for (int64_t i = 0, e = type.getNumElements(); i < e; ++i)
    out.push_back(conds[c.isSplat() ? 0 : i] ? lv[i] : rv[i]);
  return DenseElementsAttr::get(type, out);
}

OpFoldResult CastOp::fold(FoldAdaptor a) {
  if (getInput().getType() == getType())
    return getInput();
  DenseElementsAttr in = foldable(a.getInput());
  if (!in)
    return {};
  Type from = in.getElementType(), to = getType().getElementType();
  auto fromInt = dyn_cast<IntegerType>(from);
  auto toInt = dyn_cast<IntegerType>(to);
  auto fromFloat = dyn_cast<FloatType>(from);
  auto toFloat = dyn_cast<FloatType>(to);
  if (fromInt && toInt) {
    return in.mapValues(to, [&](const APInt &v) {
      if (toInt.getWidth() == 1)
        return APInt(1, !v.isZero());
      return fromInt.isUnsigned() || fromInt.getWidth() == 1
                 ? v.zextOrTrunc(toInt.getWidth())
                 : v.sextOrTrunc(toInt.getWidth());
    });
  }
  // Casts to floats fold only when every value converts exactly (window
  // functions and Range limits computed from integer inputs); the rounding
  // and saturation rules of inexact ones stay with the runtime.
  bool exact = true;
  if (fromInt && toFloat && toFloat.getWidth() >= 16) {
    SmallVector<APFloat> out;
    for (const APInt &v : in.getValues<APInt>()) {
      APFloat f(toFloat.getFloatSemantics());
      bool isSigned = !fromInt.isUnsigned() && fromInt.getWidth() != 1;
      exact &= f.convertFromAPInt(v, isSigned, APFloat::rmNearestTiesToEven) ==
               APFloat::opOK;
      out.push_back(f);
    }
    if (exact)
      return DenseElementsAttr::get(getType(), out);
    return {};
  }
  if (fromFloat && toFloat && toFloat.getWidth() >= 16 &&
      fromFloat.getWidth() >= 16) {
    SmallVector<APFloat> out;
    for (APFloat f : in.getValues<APFloat>()) {
      bool lost = false;
      exact &= f.convert(toFloat.getFloatSemantics(),
                         APFloat::rmNearestTiesToEven, &lost) == APFloat::opOK &&
               !lost;
      out.push_back(f);
    }
    if (exact)
      return DenseElementsAttr::get(getType(), out);
    return {};
  }
  // Float to integer truncates, as the runtime's fptosi/fptoui do (T5's
  // relative position buckets); only NaNs and values out of range (poison
  // at run time) refuse.
  if (fromFloat && toInt && toInt.getWidth() > 1) {
    SmallVector<APInt> out;
    bool inRange = true;
    for (const APFloat &f : in.getValues<APFloat>()) {
      APSInt v(toInt.getWidth(), toInt.isUnsigned());
      bool isExact = false;
      inRange &= (f.convertToInteger(v, APFloat::rmTowardZero, &isExact) &
                  APFloat::opInvalidOp) == 0;
      out.push_back(v);
    }
    if (inRange)
      return DenseElementsAttr::get(getType(), out);
  }
  return {};
}

//===----------------------------------------------------------------------===//
// Data movement
//===----------------------------------------------------------------------===//

static OpFoldResult foldReshapeLike(Value input, Attribute attr,
                                    RankedTensorType type) {
  if (input.getType() == type)
    return input;
  if (DenseElementsAttr in = foldable(attr))
    return in.reshape(type);
  return {};
}

OpFoldResult ReshapeOp::fold(FoldAdaptor a) {
  return foldReshapeLike(getInput(), a.getInput(), getType());
}
OpFoldResult SqueezeOp::fold(FoldAdaptor a) {
  return foldReshapeLike(getInput(), a.getInput(), getType());
}
OpFoldResult UnsqueezeOp::fold(FoldAdaptor a) {
  return foldReshapeLike(getInput(), a.getInput(), getType());
}

OpFoldResult ExpandOp::fold(FoldAdaptor a) {
  if (getInput().getType() == getType())
    return getInput();
  DenseElementsAttr in = foldable(a.getInput());
  if (in && in.isSplat() && getType().hasStaticShape() &&
      getType().getNumElements() <= maxFoldElements)
    return DenseElementsAttr::get(getType(), in.getSplatValue<Attribute>());
  return {};
}

/// Row-major strides of a static shape.
static SmallVector<int64_t> stridesOf(ArrayRef<int64_t> shape) {
  SmallVector<int64_t> strides(shape.size(), 1);
  for (int64_t i = (int64_t)shape.size() - 2; i >= 0; --i)
    strides[i] = strides[i + 1] * shape[i + 1];
  return strides;
}

/// Builds a result by computing, for each result coordinate, the linear index
/// of the input element it copies.
static Attribute gatherElements(
    DenseElementsAttr in, RankedTensorType type,
    function_ref<int64_t(ArrayRef<int64_t> coord)> sourceIndex) {
  if (!type.hasStaticShape() || type.getNumElements() > maxFoldElements)
    return {};
  auto values = llvm::to_vector(in.getValues<Attribute>());
  ArrayRef<int64_t> shape = type.getShape();
  SmallVector<int64_t> coord(shape.size(), 0);
  SmallVector<Attribute> out;
  for (int64_t i = 0, e = type.getNumElements(); i < e; ++i) {
    int64_t rem = i;
    for (int64_t d = shape.size() - 1; d >= 0; --d) {
      coord[d] = rem % shape[d];
      rem /= shape[d];
    }
    int64_t src = sourceIndex(coord);
    if (src < 0 || src >= (int64_t)values.size())
      return {};
    out.push_back(values[src]);
  }
  return DenseElementsAttr::get(type, out);
}

OpFoldResult TransposeOp::fold(FoldAdaptor a) {
  ArrayRef<int64_t> perm = getPerm();
  if (llvm::equal(perm, llvm::seq<int64_t>(0, perm.size())))
    return getInput();
  // transpose(transpose(x, inner), perm) = transpose(x, inner o perm):
  // result dimension j is x's dimension inner[perm[j]].
  if (auto inner = getInput().getDefiningOp<TransposeOp>()) {
    SmallVector<int64_t> composed;
    for (int64_t p : perm)
      composed.push_back(inner.getPerm()[p]);
    if (llvm::equal(composed, llvm::seq<int64_t>(0, composed.size())))
      return inner.getInput();
    getInputMutable().assign(inner.getInput());
    setPerm(composed);
    return getResult();
  }
  DenseElementsAttr in = foldable(a.getInput());
  if (!in)
    return {};
  if (in.isSplat())
    return in.reshape(getType());
  auto strides = stridesOf(in.getType().getShape());
  return gatherElements(in, getType(), [&](ArrayRef<int64_t> coord) {
    int64_t src = 0;
    for (auto [i, p] : llvm::enumerate(perm))
      src += coord[i] * strides[p];
    return src;
  });
}

OpFoldResult SliceOp::fold(FoldAdaptor a) {
  if (getInput().getType() == getType() &&
      llvm::all_of(getSteps(), [](int64_t s) { return s == 1; }))
    return getInput();
  DenseElementsAttr in = foldable(a.getInput());
  if (!in)
    return {};
  auto inType = in.getType();
  int64_t rank = inType.getRank();
  SmallVector<int64_t> start(rank, 0), step(rank, 1);
  for (auto [i, axis] : llvm::enumerate(getAxes())) {
    int64_t ax = *normalizeAxis(axis, rank);
    int64_t dim = inType.getDimSize(ax);
    int64_t s = getStarts()[i];
    if (s < 0)
      s += dim;
    s = getSteps()[i] > 0 ? std::clamp<int64_t>(s, 0, dim)
                          : std::clamp<int64_t>(s, 0, dim - 1);
    start[ax] = s;
    step[ax] = getSteps()[i];
  }
  auto strides = stridesOf(inType.getShape());
  return gatherElements(in, getType(), [&](ArrayRef<int64_t> coord) {
    int64_t src = 0;
    for (int64_t d = 0; d < rank; ++d)
      src += (start[d] + coord[d] * step[d]) * strides[d];
    return src;
  });
}

OpFoldResult ConcatOp::fold(FoldAdaptor a) {
  if (getInputs().size() == 1)
    return getInputs().front();
  SmallVector<DenseElementsAttr> ins;
  for (Attribute attr : a.getInputs()) {
    DenseElementsAttr d = foldable(attr);
    if (!d)
      return {};
    ins.push_back(d);
  }
  RankedTensorType type = getType();
  if (!type.hasStaticShape() || type.getNumElements() > maxFoldElements)
    return {};
  int64_t axis = *normalizeAxis(getAxis(), type.getRank());
  // Row-major: the result is, for each outer index, the inputs' axis blocks
  // one after another.
  int64_t outer = 1;
  for (int64_t d = 0; d < axis; ++d)
    outer *= type.getDimSize(d);
  SmallVector<SmallVector<Attribute>> values;
  for (DenseElementsAttr d : ins)
    values.push_back(llvm::to_vector(d.getValues<Attribute>()));
  SmallVector<Attribute> out;
  for (int64_t o = 0; o < outer; ++o)
    for (auto [d, vals] : llvm::zip(ins, values)) {
      int64_t block = d.getNumElements() / std::max<int64_t>(outer, 1);
      out.append(vals.begin() + o * block, vals.begin() + (o + 1) * block);
    }
  return DenseElementsAttr::get(type, out);
}

OpFoldResult GatherOp::fold(FoldAdaptor a) {
  DenseElementsAttr data = foldable(a.getData()),
                    indices = foldable(a.getIndices());
  if (!data || !indices)
    return {};
  auto dataType = data.getType();
  int64_t axis = *normalizeAxis(getAxis(), dataType.getRank());
  int64_t q = indices.getType().getRank();
  int64_t axisSize = dataType.getDimSize(axis);
  auto idx = llvm::to_vector(indices.getValues<APInt>());
  auto idxStrides = stridesOf(indices.getType().getShape());
  auto strides = stridesOf(dataType.getShape());
  return gatherElements(data, getType(), [&](ArrayRef<int64_t> coord) {
    int64_t linear = 0;
    for (int64_t i = 0; i < q; ++i)
      linear += coord[axis + i] * idxStrides[i];
    int64_t k = idx[linear].getSExtValue();
    if (k < 0)
      k += axisSize;
    if (k < 0 || k >= axisSize)
      return int64_t(-1);
    int64_t src = k * strides[axis];
    for (int64_t d = 0; d < axis; ++d)
      src += coord[d] * strides[d];
    for (int64_t d = axis + 1; d < dataType.getRank(); ++d)
      src += coord[d - 1 + q] * strides[d];
    return src;
  });
}
