//===- LowerReductions.cpp - Reductions and normalisations to linalg ------===//
//
// Reductions are linalg.generic ops whose reduced dimensions are `reduction`
// iterators and whose accumulators have the kept dimensions only; epilogues
// (mean's division, softmax's normalisation, ...) are all-parallel generics
// that linalg-fuse-elementwise-ops merges afterwards. `keepdims` is a
// tensor.expand_shape of the accumulator.
//
// Floats narrower than f32 are accumulated in f32 (the default stash type of
// the ONNX normalisations), integer L2 / log-sum reductions in f64.
//
//===----------------------------------------------------------------------===//

#include "LoweringUtils.h"
#include "telar/dialects/Telar/TelarOps.h"
#include "telar/passes/lowering/Patterns.h"

#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;
using namespace mlir::telar;

namespace {

using BodyFn =
    llvm::function_ref<SmallVector<Value>(OpBuilder &, Location, ValueRange)>;
using ScalarFn = llvm::function_ref<Value(OpBuilder &, Location, ValueRange)>;

//===----------------------------------------------------------------------===//
// Scalar helpers
//===----------------------------------------------------------------------===//

/// `v` converted to `type` (a no-op when it already has it).
Value toType(OpBuilder &b, Location loc, Value v, Type type,
             bool isUnsigned = false) {
  return convertScalar(b, loc, v, type, isUnsigned, isUnsigned);
}

int64_t normalizeAxis(int64_t axis, int64_t rank) {
  return axis < 0 ? axis + rank : axis;
}

/// Smallest / largest value of a (signless) type read as signed or unsigned.
TypedAttr lowest(Type type, bool isUnsigned) {
  if (auto it = dyn_cast<IntegerType>(type); it && isUnsigned)
    return IntegerAttr::get(it, APInt::getMinValue(it.getWidth()));
  return lowestValue(type);
}
TypedAttr highest(Type type, bool isUnsigned) {
  if (auto it = dyn_cast<IntegerType>(type); it && isUnsigned)
    return IntegerAttr::get(it, APInt::getMaxValue(it.getWidth()));
  return highestValue(type);
}

Value add(OpBuilder &b, Location loc, Value x, Value y) {
  if (isa<FloatType>(x.getType()))
    return arith::AddFOp::create(b, loc, x, y);
  return arith::AddIOp::create(b, loc, x, y);
}
Value sub(OpBuilder &b, Location loc, Value x, Value y) {
  if (isa<FloatType>(x.getType()))
    return arith::SubFOp::create(b, loc, x, y);
  return arith::SubIOp::create(b, loc, x, y);
}
Value mul(OpBuilder &b, Location loc, Value x, Value y) {
  if (isa<FloatType>(x.getType()))
    return arith::MulFOp::create(b, loc, x, y);
  return arith::MulIOp::create(b, loc, x, y);
}
Value div(OpBuilder &b, Location loc, Value x, Value y, bool isUnsigned) {
  if (isa<FloatType>(x.getType()))
    return arith::DivFOp::create(b, loc, x, y);
  if (isUnsigned)
    return arith::DivUIOp::create(b, loc, x, y);
  return arith::DivSIOp::create(b, loc, x, y);
}
Value maximum(OpBuilder &b, Location loc, Value x, Value y, bool isUnsigned) {
  if (isa<FloatType>(x.getType()))
    return arith::MaximumFOp::create(b, loc, x, y); // propagates NaN
  if (isUnsigned || x.getType().isInteger(1))
    return arith::MaxUIOp::create(b, loc, x, y);
  return arith::MaxSIOp::create(b, loc, x, y);
}
Value minimum(OpBuilder &b, Location loc, Value x, Value y, bool isUnsigned) {
  if (isa<FloatType>(x.getType()))
    return arith::MinimumFOp::create(b, loc, x, y);
  if (isUnsigned || x.getType().isInteger(1))
    return arith::MinUIOp::create(b, loc, x, y);
  return arith::MinSIOp::create(b, loc, x, y);
}
Value absolute(OpBuilder &b, Location loc, Value x, bool isUnsigned) {
  if (isa<FloatType>(x.getType()))
    return math::AbsFOp::create(b, loc, x);
  if (isUnsigned)
    return x;
  return math::AbsIOp::create(b, loc, x);
}

/// `x` strictly before `y` in the order (greater first when `largest`).
Value precedes(OpBuilder &b, Location loc, Value x, Value y, bool largest,
               bool isUnsigned) {
  if (isa<FloatType>(x.getType()))
    return arith::CmpFOp::create(
        b, loc, largest ? arith::CmpFPredicate::OGT : arith::CmpFPredicate::OLT,
        x, y);
  bool u = isUnsigned || x.getType().isInteger(1);
  arith::CmpIPredicate p =
      largest ? (u ? arith::CmpIPredicate::ugt : arith::CmpIPredicate::sgt)
              : (u ? arith::CmpIPredicate::ult : arith::CmpIPredicate::slt);
  return arith::CmpIOp::create(b, loc, p, x, y);
}
Value equal(OpBuilder &b, Location loc, Value x, Value y) {
  if (isa<FloatType>(x.getType()))
    return arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OEQ, x, y);
  return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, x, y);
}

/// linalg.index of loop `dim`, as i64.
Value loopIndex(OpBuilder &b, Location loc, int64_t dim) {
  Value i = linalg::IndexOp::create(b, loc, dim);
  return arith::IndexCastOp::create(b, loc, b.getI64Type(), i);
}

//===----------------------------------------------------------------------===//
// Iteration spaces
//===----------------------------------------------------------------------===//

/// The loops of a reduction over some dimensions of a static shape: the
/// reduced ones and the kept ones (the accumulator's dimensions).
struct Space {
  MLIRContext *ctx;
  SmallVector<int64_t> shape;
  SmallVector<bool> reduced;

  Space(MLIRContext *ctx, ArrayRef<int64_t> shape, ArrayRef<int64_t> axes)
      : ctx(ctx), shape(shape), reduced(shape.size(), false) {
    for (int64_t a : axes)
      reduced[normalizeAxis(a, rank())] = true;
  }

  int64_t rank() const { return static_cast<int64_t>(shape.size()); }
  AffineMap fullMap() const {
    return AffineMap::getMultiDimIdentityMap(rank(), ctx);
  }
  AffineMap keptMap() const {
    SmallVector<AffineExpr> exprs;
    for (int64_t i = 0; i < rank(); ++i)
      if (!reduced[i])
        exprs.push_back(getAffineDimExpr(i, ctx));
    return AffineMap::get(rank(), 0, exprs, ctx);
  }
  /// Operand broadcast against the full shape (numpy rules).
  AffineMap broadcast(Value v) const {
    return broadcastMap(ctx, cast<ShapedType>(v.getType()), rank());
  }
  /// Operand indexed by one loop (a per-channel parameter).
  AffineMap along(int64_t dim) const {
    return AffineMap::get(rank(), 0, getAffineDimExpr(dim, ctx), ctx);
  }
  RankedTensorType keptType(Type element) const {
    SmallVector<int64_t> kept;
    for (int64_t i = 0; i < rank(); ++i)
      if (!reduced[i])
        kept.push_back(shape[i]);
    return RankedTensorType::get(kept, element);
  }
  RankedTensorType fullType(Type element) const {
    return RankedTensorType::get(shape, element);
  }
  int64_t count() const {
    int64_t n = 1;
    for (int64_t i = 0; i < rank(); ++i)
      if (reduced[i])
        n *= shape[i];
    return n;
  }
  SmallVector<utils::IteratorType> iterators() const {
    SmallVector<utils::IteratorType> its;
    for (bool r : reduced)
      its.push_back(r ? utils::IteratorType::reduction
                      : utils::IteratorType::parallel);
    return its;
  }
};

/// A reduction over `space`: `full` operands read whole, `kept` operands at
/// the kept dimensions, one accumulator per entry of `inits` (kept-shaped).
/// `body` receives full..., kept..., accumulators... and yields the new
/// accumulators.
SmallVector<Value> reduce(OpBuilder &b, Location loc, const Space &space,
                          ValueRange full, ValueRange kept, ValueRange inits,
                          BodyFn body) {
  SmallVector<AffineMap> maps(full.size(), space.fullMap());
  maps.append(kept.size() + inits.size(), space.keptMap());
  SmallVector<Value> inputs(full.begin(), full.end());
  inputs.append(kept.begin(), kept.end());
  auto generic = linalg::GenericOp::create(
      b, loc, TypeRange(inits), inputs, inits, maps, space.iterators(),
      [&](OpBuilder &nb, Location nloc, ValueRange args) {
        linalg::YieldOp::create(nb, nloc, body(nb, nloc, args));
      });
  return SmallVector<Value>(generic.getResults().begin(),
                            generic.getResults().end());
}

/// An all-parallel generic over the full shape of `space`; each operand comes
/// with its indexing map.
Value mapFull(OpBuilder &b, Location loc, const Space &space, Type element,
              ArrayRef<std::pair<Value, AffineMap>> operands, ScalarFn body) {
  SmallVector<Value> inputs;
  SmallVector<AffineMap> maps;
  for (auto [v, m] : operands) {
    inputs.push_back(v);
    maps.push_back(m);
  }
  maps.push_back(space.fullMap());
  RankedTensorType type = space.fullType(element);
  auto generic = linalg::GenericOp::create(
      b, loc, TypeRange{type}, inputs, ValueRange{emptyTensor(b, loc, type)},
      maps, parallelIterators(space.rank()),
      [&](OpBuilder &nb, Location nloc, ValueRange args) {
        linalg::YieldOp::create(nb, nloc, body(nb, nloc, args.drop_back()));
      });
  return generic.getResult(0);
}

/// An elementwise generic over kept-shaped tensors of `space`.
Value mapKept(OpBuilder &b, Location loc, const Space &space, Type element,
              ValueRange operands, ScalarFn body) {
  return buildElementwise(b, loc, space.keptType(element), operands, body);
}

/// Reshapes a kept-shaped tensor to `resultType`: the same tensor, or with
/// the reduced dimensions reinserted as size 1 (keepdims).
Value restoreRank(OpBuilder &b, Location loc, const Space &space, Value kept,
                  RankedTensorType resultType) {
  auto keptType = cast<RankedTensorType>(kept.getType());
  if (resultType.getRank() == keptType.getRank())
    return kept;
  SmallVector<ReassociationIndices> groups;
  ReassociationIndices leading;
  for (int64_t i = 0; i < space.rank(); ++i) {
    if (!space.reduced[i]) {
      groups.push_back(leading);
      leading.clear();
      groups.back().push_back(i);
    } else if (groups.empty()) {
      leading.push_back(i);
    } else {
      groups.back().push_back(i);
    }
  }
  // Rank 0 to all-ones expands with no groups.
  return tensor::ExpandShapeOp::create(b, loc, resultType, kept, groups);
}

/// Sum of `term(x)` over the reduced dimensions of `space`, `x` converted to
/// (float) `acc`, from zero.
Value sumOf(OpBuilder &b, Location loc, const Space &space, Value x, Type acc,
            function_ref<Value(OpBuilder &, Location, Value)> term) {
  Value zero = filledTensor(b, loc, space.keptType(acc), scalarAttr(acc, 0.0));
  return reduce(b, loc, space, {x}, {}, {zero},
                [&](OpBuilder &nb, Location l, ValueRange a) {
                  Value v = term(nb, l, toType(nb, l, a[0], acc));
                  return SmallVector<Value>{add(nb, l, a[1], v)};
                })[0];
}

/// Maximum of `x` over the reduced dimensions of `space`, in `acc`.
Value maxOf(OpBuilder &b, Location loc, const Space &space, Value x, Type acc,
            bool isUnsigned) {
  Value seed = filledTensor(b, loc, space.keptType(acc), lowestValue(acc));
  return reduce(b, loc, space, {x}, {}, {seed},
                [&](OpBuilder &nb, Location l, ValueRange a) {
                  Value v = toType(nb, l, a[0], acc, isUnsigned);
                  return SmallVector<Value>{maximum(nb, l, a[1], v, false)};
                })[0];
}

/// Sum of e^(x - shift) over the reduced dimensions of `space`, in float
/// `acc`; `shift` is kept-shaped.
Value sumOfShiftedExp(OpBuilder &b, Location loc, const Space &space, Value x,
                      Value shift, Type acc, bool isUnsigned) {
  Value zero = filledTensor(b, loc, space.keptType(acc), scalarAttr(acc, 0.0));
  return reduce(b, loc, space, {x}, {shift}, {zero},
                [&](OpBuilder &nb, Location l, ValueRange a) {
                  Value d =
                      sub(nb, l, toType(nb, l, a[0], acc, isUnsigned), a[1]);
                  return SmallVector<Value>{
                      add(nb, l, a[2], math::ExpOp::create(nb, l, d))};
                })[0];
}

/// A kept-shaped float sum divided by the number of reduced elements.
Value divideByCount(OpBuilder &b, Location loc, const Space &space, Value sum,
                    Type acc) {
  double n = static_cast<double>(space.count());
  return mapKept(b, loc, space, acc, {sum},
                 [&](OpBuilder &nb, Location l, ValueRange a) -> Value {
                   return arith::DivFOp::create(nb, l, a[0],
                                                scalarConstant(nb, l, acc, n));
                 });
}

/// Sum and sum of squared deviations of `x` over the reduced dimensions of
/// `space`, two-pass, in `acc`; returns (mean, variance) kept tensors.
std::pair<Value, Value> meanAndVariance(OpBuilder &b, Location loc,
                                        const Space &space, Value x, Type acc) {
  Value zero = filledTensor(b, loc, space.keptType(acc), scalarAttr(acc, 0.0));
  Value sum = reduce(b, loc, space, {x}, {}, {zero},
                     [&](OpBuilder &nb, Location l, ValueRange a) {
                       return SmallVector<Value>{
                           add(nb, l, a[1], toType(nb, l, a[0], acc))};
                     })[0];
  Value mean = divideByCount(b, loc, space, sum, acc);
  Value sq =
      reduce(b, loc, space, {x}, {mean}, {zero},
             [&](OpBuilder &nb, Location l, ValueRange a) {
               Value d = sub(nb, l, toType(nb, l, a[0], acc), a[1]);
               return SmallVector<Value>{add(nb, l, a[2], mul(nb, l, d, d))};
             })[0];
  Value var = divideByCount(b, loc, space, sq, acc);
  return {mean, var};
}

/// 1 / sqrt(var + eps), kept-shaped.
Value inverseStdDev(OpBuilder &b, Location loc, const Space &space, Value var,
                    Type acc, double epsilon) {
  return mapKept(b, loc, space, acc, {var},
                 [&](OpBuilder &nb, Location l, ValueRange a) -> Value {
                   Value v =
                       add(nb, l, a[0], scalarConstant(nb, l, acc, epsilon));
                   Value sd = math::SqrtOp::create(nb, l, v);
                   return arith::DivFOp::create(
                       nb, l, scalarConstant(nb, l, acc, 1.0), sd);
                 });
}

//===----------------------------------------------------------------------===//
// reduce_*
//===----------------------------------------------------------------------===//

enum class ReduceKind {
  Sum,
  Mean,
  Max,
  Min,
  Prod,
  L1,
  L2,
  SumSquare,
  LogSum,
  LogSumExp
};

template <typename OpTy, ReduceKind Kind>
struct ReduceLowering : OpConversionPattern<OpTy> {
  using OpConversionPattern<OpTy>::OpConversionPattern;
  LogicalResult
  matchAndRewrite(OpTy op, typename OpTy::Adaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value input = adaptor.getInput();
    auto inType = cast<RankedTensorType>(input.getType());
    auto resultType = cast<RankedTensorType>(
        this->getTypeConverter()->convertType(op.getType()));
    bool isUnsigned =
        op.getInput().getType().getElementType().isUnsignedInteger();
    Type element = inType.getElementType();
    bool isFloat = isa<FloatType>(element);
    constexpr bool needsFloat = Kind == ReduceKind::L2 ||
                                Kind == ReduceKind::LogSum ||
                                Kind == ReduceKind::LogSumExp;
    Type acc = !isFloat && needsFloat ? rewriter.getF64Type()
                                      : accumulatorType(element);
    // No axes: all of them (noop_with_empty_axes is resolved on import).
    SmallVector<int64_t> axes(op.getAxes());
    if (axes.empty())
      axes = llvm::to_vector(llvm::seq<int64_t>(0, inType.getRank()));
    Space space(rewriter.getContext(), inType.getShape(), axes);
    RankedTensorType keptAcc = space.keptType(acc);
    OpBuilder &b = rewriter;

    Value result;
    if constexpr (Kind == ReduceKind::LogSumExp) {
      // log(sum(e^(x - m))) + m with m the maximum (0 when infinite).
      Value max = maxOf(b, loc, space, input, acc, isUnsigned);
      Value shift =
          mapKept(b, loc, space, acc, {max},
                  [&](OpBuilder &nb, Location l, ValueRange a) -> Value {
                    Value inf = math::AbsFOp::create(nb, l, a[0]);
                    Value isInf = arith::CmpFOp::create(
                        nb, l, arith::CmpFPredicate::OEQ, inf,
                        arith::ConstantOp::create(nb, l, highestValue(acc)));
                    return arith::SelectOp::create(
                        nb, l, isInf, scalarConstant(nb, l, acc, 0.0), a[0]);
                  });
      Value sum = sumOfShiftedExp(b, loc, space, input, shift, acc, isUnsigned);
      result = mapKept(b, loc, space, element, {sum, shift},
                       [&](OpBuilder &nb, Location l, ValueRange a) -> Value {
                         Value y =
                             add(nb, l, math::LogOp::create(nb, l, a[0]), a[1]);
                         return toType(nb, l, y, element, isUnsigned);
                       });
    } else {
      TypedAttr initValue;
      switch (Kind) {
      case ReduceKind::Max:
        initValue = lowest(acc, isUnsigned);
        break;
      case ReduceKind::Min:
        initValue = highest(acc, isUnsigned);
        break;
      case ReduceKind::Prod:
        initValue = scalarAttr(acc, 1.0);
        break;
      default:
        initValue = scalarAttr(acc, 0.0);
      }
      Value init = filledTensor(b, loc, keptAcc, initValue);
      Value red = reduce(
          b, loc, space, {input}, {}, {init},
          [&](OpBuilder &nb, Location l, ValueRange a) {
            Value x = toType(nb, l, a[0], acc, isUnsigned);
            Value r = a[1];
            switch (Kind) {
            case ReduceKind::Max:
              return SmallVector<Value>{maximum(nb, l, r, x, isUnsigned)};
            case ReduceKind::Min:
              return SmallVector<Value>{minimum(nb, l, r, x, isUnsigned)};
            case ReduceKind::Prod:
              return SmallVector<Value>{mul(nb, l, r, x)};
            case ReduceKind::L1:
              x = absolute(nb, l, x, isUnsigned);
              break;
            case ReduceKind::L2:
            case ReduceKind::SumSquare:
              x = mul(nb, l, x, x);
              break;
            default:
              break;
            }
            return SmallVector<Value>{add(nb, l, r, x)};
          })[0];
      double n = static_cast<double>(space.count());
      result = mapKept(b, loc, space, element, {red},
                       [&](OpBuilder &nb, Location l, ValueRange a) -> Value {
                         Value y = a[0];
                         if (Kind == ReduceKind::Mean)
                           y = div(nb, l, y, scalarConstant(nb, l, acc, n),
                                   isUnsigned);
                         else if (Kind == ReduceKind::L2)
                           y = math::SqrtOp::create(nb, l, y);
                         else if (Kind == ReduceKind::LogSum)
                           y = math::LogOp::create(nb, l, y);
                         return toType(nb, l, y, element, isUnsigned);
                       });
    }
    rewriter.replaceOp(op, restoreRank(b, loc, space, result, resultType));
    return success();
  }
};

//===----------------------------------------------------------------------===//
// arg_max / arg_min, hardmax
//===----------------------------------------------------------------------===//

/// Index (i64, kept-shaped) of the first (or last) largest (or smallest)
/// element along `axis`.
Value argReduce(OpBuilder &b, Location loc, Value input, int64_t axis,
                bool largest, bool last, bool isUnsigned) {
  auto type = cast<RankedTensorType>(input.getType());
  Type element = type.getElementType();
  Space space(b.getContext(), type.getShape(), {axis});
  Value best = filledTensor(b, loc, space.keptType(element),
                            largest ? lowest(element, isUnsigned)
                                    : highest(element, isUnsigned));
  Value index = filledTensor(b, loc, space.keptType(b.getI64Type()),
                             b.getI64IntegerAttr(0));
  return reduce(
      b, loc, space, {input}, {}, {best, index},
      [&](OpBuilder &nb, Location l, ValueRange a) {
        Value x = a[0], bestV = a[1], bestI = a[2];
        Value i = loopIndex(nb, l, axis);
        // Ties go to the lower (or higher) index whatever the visiting
        // order; the initial index 0 wins when nothing beats the seed.
        Value tieBreak = arith::CmpIOp::create(
            nb, l, last ? arith::CmpIPredicate::sgt : arith::CmpIPredicate::slt,
            i, bestI);
        Value take = arith::OrIOp::create(
            nb, l, precedes(nb, l, x, bestV, largest, isUnsigned),
            arith::AndIOp::create(nb, l, equal(nb, l, x, bestV), tieBreak));
        return SmallVector<Value>{
            arith::SelectOp::create(nb, l, take, x, bestV),
            arith::SelectOp::create(nb, l, take, i, bestI)};
      })[1];
}

template <typename OpTy, bool Largest>
struct ArgReduceLowering : OpConversionPattern<OpTy> {
  using OpConversionPattern<OpTy>::OpConversionPattern;
  LogicalResult
  matchAndRewrite(OpTy op, typename OpTy::Adaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto inType = cast<RankedTensorType>(adaptor.getInput().getType());
    auto resultType = cast<RankedTensorType>(
        this->getTypeConverter()->convertType(op.getType()));
    int64_t axis =
        normalizeAxis(static_cast<int64_t>(op.getAxis()), inType.getRank());
    bool isUnsigned =
        op.getInput().getType().getElementType().isUnsignedInteger();
    Value index = argReduce(rewriter, loc, adaptor.getInput(), axis, Largest,
                            op.getSelectLastIndex(), isUnsigned);
    Space space(rewriter.getContext(), inType.getShape(), {axis});
    rewriter.replaceOp(op,
                       restoreRank(rewriter, loc, space, index, resultType));
    return success();
  }
};

struct HardmaxLowering : OpConversionPattern<HardmaxOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(HardmaxOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto type = cast<RankedTensorType>(adaptor.getInput().getType());
    int64_t axis =
        normalizeAxis(static_cast<int64_t>(op.getAxis()), type.getRank());
    Value index = argReduce(rewriter, loc, adaptor.getInput(), axis,
                            /*largest=*/true, /*last=*/false, false);
    Space space(rewriter.getContext(), type.getShape(), {axis});
    Type element = type.getElementType();
    Value result = mapFull(
        rewriter, loc, space, element, {{index, space.keptMap()}},
        [&](OpBuilder &b, Location l, ValueRange a) -> Value {
          Value hit = arith::CmpIOp::create(b, l, arith::CmpIPredicate::eq,
                                            loopIndex(b, l, axis), a[0]);
          return arith::SelectOp::create(b, l, hit,
                                         scalarConstant(b, l, element, 1.0),
                                         scalarConstant(b, l, element, 0.0));
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

//===----------------------------------------------------------------------===//
// softmax, log_softmax, lp_norm
//===----------------------------------------------------------------------===//

template <typename OpTy, bool Log>
struct SoftmaxLowering : OpConversionPattern<OpTy> {
  using OpConversionPattern<OpTy>::OpConversionPattern;
  LogicalResult
  matchAndRewrite(OpTy op, typename OpTy::Adaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value x = adaptor.getInput();
    auto type = cast<RankedTensorType>(x.getType());
    Type element = type.getElementType();
    Type acc = accumulatorType(element);
    int64_t axis =
        normalizeAxis(static_cast<int64_t>(op.getAxis()), type.getRank());
    Space space(rewriter.getContext(), type.getShape(), {axis});
    OpBuilder &b = rewriter;
    // Subtract the maximum so that e^x cannot overflow.
    Value max = maxOf(b, loc, space, x, acc, /*isUnsigned=*/false);
    Value sum = sumOfShiftedExp(b, loc, space, x, max, acc,
                                /*isUnsigned=*/false);
    Value result = mapFull(
        b, loc, space, element,
        {{x, space.fullMap()}, {max, space.keptMap()}, {sum, space.keptMap()}},
        [&](OpBuilder &nb, Location l, ValueRange a) -> Value {
          Value d = sub(nb, l, toType(nb, l, a[0], acc), a[1]);
          Value y;
          if (Log)
            y = sub(nb, l, d, math::LogOp::create(nb, l, a[2]));
          else
            y = arith::DivFOp::create(nb, l, math::ExpOp::create(nb, l, d),
                                      a[2]);
          return toType(nb, l, y, element);
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

struct LpNormLowering : OpConversionPattern<LpNormOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(LpNormOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    int64_t p = static_cast<int64_t>(op.getP());
    if (p != 1 && p != 2)
      return rewriter.notifyMatchFailure(op, "p must be 1 or 2");
    Location loc = op.getLoc();
    Value x = adaptor.getInput();
    auto type = cast<RankedTensorType>(x.getType());
    Type element = type.getElementType();
    Type acc = accumulatorType(element);
    int64_t axis =
        normalizeAxis(static_cast<int64_t>(op.getAxis()), type.getRank());
    Space space(rewriter.getContext(), type.getShape(), {axis});
    OpBuilder &b = rewriter;
    Value sum = sumOf(b, loc, space, x, acc,
                      [&](OpBuilder &nb, Location l, Value v) -> Value {
                        if (p == 1)
                          return math::AbsFOp::create(nb, l, v);
                        return mul(nb, l, v, v);
                      });
    // A zero norm gives zeros (onnxruntime), not NaN.
    Value result = mapFull(
        b, loc, space, element, {{x, space.fullMap()}, {sum, space.keptMap()}},
        [&](OpBuilder &nb, Location l, ValueRange a) -> Value {
          Value norm = p == 1 ? a[1] : Value(math::SqrtOp::create(nb, l, a[1]));
          Value z = scalarConstant(nb, l, acc, 0.0);
          Value isZero =
              arith::CmpFOp::create(nb, l, arith::CmpFPredicate::OEQ, norm, z);
          Value y =
              arith::DivFOp::create(nb, l, toType(nb, l, a[0], acc), norm);
          y = arith::SelectOp::create(nb, l, isZero, z, y);
          return toType(nb, l, y, element);
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

//===----------------------------------------------------------------------===//
// Normalisations
//===----------------------------------------------------------------------===//

/// (x - mean) * rstd * scale (+ bias) over `space`, statistics over its
/// reduced dims; scale and the optional bias are read through their maps.
Value normalize(OpBuilder &b, Location loc, const Space &space, Value x,
                Value scale, AffineMap scaleMap, Value bias, AffineMap biasMap,
                Type element, double epsilon) {
  Type acc = accumulatorType(element);
  auto [mean, var] = meanAndVariance(b, loc, space, x, acc);
  Value rstd = inverseStdDev(b, loc, space, var, acc, epsilon);
  SmallVector<std::pair<Value, AffineMap>> operands = {{x, space.fullMap()},
                                                       {mean, space.keptMap()},
                                                       {rstd, space.keptMap()},
                                                       {scale, scaleMap}};
  if (bias)
    operands.push_back({bias, biasMap});
  return mapFull(b, loc, space, element, operands,
                 [&](OpBuilder &nb, Location l, ValueRange a) -> Value {
                   Value y = mul(
                       nb, l, sub(nb, l, toType(nb, l, a[0], acc), a[1]), a[2]);
                   y = mul(nb, l, y, toType(nb, l, a[3], acc));
                   if (bias)
                     y = add(nb, l, y, toType(nb, l, a[4], acc));
                   return toType(nb, l, y, element);
                 });
}

struct LayerNormLowering : OpConversionPattern<LayerNormOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(LayerNormOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value x = adaptor.getInput();
    auto type = cast<RankedTensorType>(x.getType());
    int64_t axis =
        normalizeAxis(static_cast<int64_t>(op.getAxis()), type.getRank());
    if (axis >= type.getRank())
      return rewriter.notifyMatchFailure(op, "axis out of range");
    Space space(rewriter.getContext(), type.getShape(),
                llvm::to_vector(llvm::seq<int64_t>(axis, type.getRank())));
    Value scale = adaptor.getScale(), bias = adaptor.getBias();
    Value result =
        normalize(rewriter, loc, space, x, scale, space.broadcast(scale), bias,
                  bias ? space.broadcast(bias) : AffineMap(),
                  type.getElementType(), op.getEpsilon().convertToDouble());
    rewriter.replaceOp(op, result);
    return success();
  }
};

struct RMSNormLowering : OpConversionPattern<RMSNormOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(RMSNormOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value x = adaptor.getInput();
    auto type = cast<RankedTensorType>(x.getType());
    Type element = type.getElementType();
    Type acc = accumulatorType(element);
    int64_t axis =
        normalizeAxis(static_cast<int64_t>(op.getAxis()), type.getRank());
    if (axis >= type.getRank())
      return rewriter.notifyMatchFailure(op, "axis out of range");
    Space space(rewriter.getContext(), type.getShape(),
                llvm::to_vector(llvm::seq<int64_t>(axis, type.getRank())));
    OpBuilder &b = rewriter;
    Value sq =
        sumOf(b, loc, space, x, acc, [&](OpBuilder &nb, Location l, Value v) {
          return mul(nb, l, v, v);
        });
    Value meanSq = divideByCount(b, loc, space, sq, acc);
    Value rstd = inverseStdDev(b, loc, space, meanSq, acc,
                               op.getEpsilon().convertToDouble());
    Value scale = adaptor.getScale();
    Value result =
        mapFull(b, loc, space, element,
                {{x, space.fullMap()},
                 {rstd, space.keptMap()},
                 {scale, space.broadcast(scale)}},
                [&](OpBuilder &nb, Location l, ValueRange a) -> Value {
                  Value y = mul(nb, l, toType(nb, l, a[0], acc), a[1]);
                  y = mul(nb, l, y, toType(nb, l, a[2], acc));
                  return toType(nb, l, y, element);
                });
    rewriter.replaceOp(op, result);
    return success();
  }
};

struct BatchNormLowering : OpConversionPattern<BatchNormOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(BatchNormOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value x = adaptor.getInput();
    auto type = cast<RankedTensorType>(x.getType());
    Type element = type.getElementType();
    Type acc = accumulatorType(element);
    Space space(rewriter.getContext(), type.getShape(), {});
    // A 1-D input is N samples of one channel.
    AffineMap channel =
        type.getRank() >= 2
            ? space.along(1)
            : AffineMap::get(space.rank(), 0,
                             getAffineConstantExpr(0, rewriter.getContext()));
    double eps = op.getEpsilon().convertToDouble();
    Value result =
        mapFull(rewriter, loc, space, element,
                {{x, space.fullMap()},
                 {adaptor.getScale(), channel},
                 {adaptor.getBias(), channel},
                 {adaptor.getMean(), channel},
                 {adaptor.getVariance(), channel}},
                [&](OpBuilder &b, Location l, ValueRange a) -> Value {
                  auto v = [&](int i) { return toType(b, l, a[i], acc); };
                  Value sd = math::SqrtOp::create(
                      b, l, add(b, l, v(4), scalarConstant(b, l, acc, eps)));
                  Value y =
                      arith::DivFOp::create(b, l, sub(b, l, v(0), v(3)), sd);
                  y = add(b, l, mul(b, l, y, v(1)), v(2));
                  return toType(b, l, y, element);
                });
    rewriter.replaceOp(op, result);
    return success();
  }
};

struct InstanceNormLowering : OpConversionPattern<InstanceNormOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(InstanceNormOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Value x = adaptor.getInput();
    auto type = cast<RankedTensorType>(x.getType());
    if (type.getRank() < 3)
      return rewriter.notifyMatchFailure(op, "input must be N x C x D1 ...");
    SmallVector<int64_t> spatial;
    for (int64_t i = 2; i < type.getRank(); ++i)
      spatial.push_back(i);
    Space space(rewriter.getContext(), type.getShape(), spatial);
    Value result =
        normalize(rewriter, op.getLoc(), space, x, adaptor.getScale(),
                  space.along(1), adaptor.getBias(), space.along(1),
                  type.getElementType(), op.getEpsilon().convertToDouble());
    rewriter.replaceOp(op, result);
    return success();
  }
};

struct GroupNormLowering : OpConversionPattern<GroupNormOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(GroupNormOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value x = adaptor.getInput();
    auto type = cast<RankedTensorType>(x.getType());
    int64_t groups = static_cast<int64_t>(op.getNumGroups());
    if (type.getRank() < 2 || groups <= 0 || type.getDimSize(1) % groups)
      return rewriter.notifyMatchFailure(
          op, "input must be N x C x ... with C a multiple of num_groups");
    auto scaleType = cast<RankedTensorType>(adaptor.getScale().getType());
    int64_t channels = type.getDimSize(1), perGroup = channels / groups;
    if (scaleType.getRank() != 1 || scaleType.getDimSize(0) != channels)
      return rewriter.notifyMatchFailure(op,
                                         "scale and bias must be per channel");
    // N x C x S... is viewed as N x G x C/G x S...; statistics over all but
    // the first two dimensions.
    SmallVector<int64_t> shape = {type.getDimSize(0), groups, perGroup};
    SmallVector<ReassociationIndices> groupsMap = {{0}, {1, 2}};
    for (int64_t i = 2; i < type.getRank(); ++i) {
      shape.push_back(type.getDimSize(i));
      groupsMap.push_back({i + 1});
    }
    Type element = type.getElementType();
    auto grouped = RankedTensorType::get(shape, element);
    Value xg =
        tensor::ExpandShapeOp::create(rewriter, loc, grouped, x, groupsMap);
    auto expandParam = [&](Value v) -> Value {
      auto t = RankedTensorType::get(
          {groups, perGroup},
          cast<RankedTensorType>(v.getType()).getElementType());
      return tensor::ExpandShapeOp::create(
          rewriter, loc, t, v, ArrayRef<ReassociationIndices>{{0, 1}});
    };
    SmallVector<int64_t> axes;
    for (int64_t i = 2; i < static_cast<int64_t>(shape.size()); ++i)
      axes.push_back(i);
    Space space(rewriter.getContext(), shape, axes);
    MLIRContext *ctx = rewriter.getContext();
    AffineMap paramMap = AffineMap::get(
        space.rank(), 0, {getAffineDimExpr(1, ctx), getAffineDimExpr(2, ctx)},
        ctx);
    Value y =
        normalize(rewriter, loc, space, xg, expandParam(adaptor.getScale()),
                  paramMap, expandParam(adaptor.getBias()), paramMap, element,
                  op.getEpsilon().convertToDouble());
    rewriter.replaceOpWithNewOp<tensor::CollapseShapeOp>(op, type, y,
                                                         groupsMap);
    return success();
  }
};

struct MeanVarianceNormLowering : OpConversionPattern<MeanVarianceNormOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(MeanVarianceNormOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value x = adaptor.getInput();
    auto type = cast<RankedTensorType>(x.getType());
    Type element = type.getElementType();
    Type acc = accumulatorType(element);
    Space space(rewriter.getContext(), type.getShape(), op.getAxes());
    auto [mean, var] = meanAndVariance(rewriter, loc, space, x, acc);
    // (x - mean) / sqrt(var), without epsilon as onnxruntime computes it.
    Value result = mapFull(
        rewriter, loc, space, element,
        {{x, space.fullMap()}, {mean, space.keptMap()}, {var, space.keptMap()}},
        [&](OpBuilder &b, Location l, ValueRange a) -> Value {
          Value d = sub(b, l, toType(b, l, a[0], acc), a[1]);
          Value y =
              arith::DivFOp::create(b, l, d, math::SqrtOp::create(b, l, a[2]));
          return toType(b, l, y, element);
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

struct LRNLowering : OpConversionPattern<LRNOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(LRNOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value x = adaptor.getInput();
    auto type = cast<RankedTensorType>(x.getType());
    int64_t size = static_cast<int64_t>(op.getSize());
    int64_t rank = type.getRank();
    if (rank < 2 || size <= 0)
      return rewriter.notifyMatchFailure(op, "input must be N x C x ...");
    Type element = type.getElementType();
    Type acc = accumulatorType(element);
    MLIRContext *ctx = rewriter.getContext();
    Space space(ctx, type.getShape(), {});
    OpBuilder &b = rewriter;

    // Squares, zero-padded along the channels: the window of channel c is
    // [c - floor((size-1)/2), c + ceil((size-1)/2)].
    Value sq = mapFull(b, loc, space, acc, {{x, space.fullMap()}},
                       [&](OpBuilder &nb, Location l, ValueRange a) -> Value {
                         Value v = toType(nb, l, a[0], acc);
                         return mul(nb, l, v, v);
                       });
    int64_t before = (size - 1) / 2, after = size - 1 - before;
    SmallVector<OpFoldResult> low(rank, b.getIndexAttr(0)),
        high(rank, b.getIndexAttr(0));
    low[1] = b.getIndexAttr(before);
    high[1] = b.getIndexAttr(after);
    SmallVector<int64_t> paddedShape(type.getShape());
    paddedShape[1] += size - 1;
    auto paddedType = RankedTensorType::get(paddedShape, acc);
    Value padded = tensor::PadOp::create(b, loc, paddedType, sq, low, high,
                                         scalarConstant(b, loc, acc, 0.0),
                                         /*nofold=*/false);

    // sum[n, c, ...] = sum_k padded[n, c + k, ...]; the window tensor only
    // gives loop k its extent.
    SmallVector<AffineExpr> paddedExprs;
    for (int64_t i = 0; i < rank; ++i)
      paddedExprs.push_back(i == 1 ? getAffineDimExpr(1, ctx) +
                                         getAffineDimExpr(rank, ctx)
                                   : getAffineDimExpr(i, ctx));
    SmallVector<AffineMap> maps = {
        AffineMap::get(rank + 1, 0, paddedExprs, ctx),
        AffineMap::get(rank + 1, 0, getAffineDimExpr(rank, ctx), ctx),
        AffineMap::getMultiDimIdentityMap(rank + 1, ctx).getMajorSubMap(rank)};
    SmallVector<utils::IteratorType> its = parallelIterators(rank);
    its.push_back(utils::IteratorType::reduction);
    Value window = emptyTensor(b, loc, RankedTensorType::get({size}, acc));
    Value zero =
        filledTensor(b, loc, space.fullType(acc), scalarAttr(acc, 0.0));
    Value sum = linalg::GenericOp::create(
                    b, loc, TypeRange{zero.getType()},
                    ValueRange{padded, window}, ValueRange{zero}, maps, its,
                    [&](OpBuilder &nb, Location l, ValueRange a) {
                      linalg::YieldOp::create(nb, l, add(nb, l, a[2], a[0]));
                    })
                    .getResult(0);

    double alphaOverSize = op.getAlpha().convertToDouble() / size;
    double beta = op.getBeta().convertToDouble();
    double bias = op.getBias().convertToDouble();
    Value result = mapFull(
        b, loc, space, element, {{x, space.fullMap()}, {sum, space.fullMap()}},
        [&](OpBuilder &nb, Location l, ValueRange a) -> Value {
          Value base =
              add(nb, l, scalarConstant(nb, l, acc, bias),
                  mul(nb, l, scalarConstant(nb, l, acc, alphaOverSize), a[1]));
          Value den = math::PowFOp::create(nb, l, base,
                                           scalarConstant(nb, l, acc, beta));
          Value y = arith::DivFOp::create(nb, l, toType(nb, l, a[0], acc), den);
          return toType(nb, l, y, element);
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

//===----------------------------------------------------------------------===//
// cum_sum, top_k
//===----------------------------------------------------------------------===//

struct CumSumLowering : OpConversionPattern<CumSumOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(CumSumOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value x = adaptor.getInput();
    auto type = cast<RankedTensorType>(x.getType());
    int64_t rank = type.getRank();
    if (rank == 0)
      return rewriter.notifyMatchFailure(op, "rank-0 input");
    int64_t axis = normalizeAxis(static_cast<int64_t>(op.getAxis()), rank);
    MLIRContext *ctx = rewriter.getContext();
    // out[.., i, ..] = sum over k of x[.., k, ..] where k is in the prefix
    // (or suffix) of i: loops d0..d(rank-1) are the output, loop `rank` is k.
    SmallVector<AffineExpr> inExprs;
    for (int64_t i = 0; i < rank; ++i)
      inExprs.push_back(getAffineDimExpr(i == axis ? rank : i, ctx));
    SmallVector<AffineMap> maps = {
        AffineMap::get(rank + 1, 0, inExprs, ctx),
        AffineMap::getMultiDimIdentityMap(rank + 1, ctx).getMajorSubMap(rank)};
    SmallVector<utils::IteratorType> its = parallelIterators(rank);
    its.push_back(utils::IteratorType::reduction);
    Type element = type.getElementType();
    Value zero = filledTensor(rewriter, loc, type, scalarAttr(element, 0.0));
    bool exclusive = op.getExclusive(), reverse = op.getReverse();
    arith::CmpIPredicate pred = reverse
                                    ? (exclusive ? arith::CmpIPredicate::sgt
                                                 : arith::CmpIPredicate::sge)
                                    : (exclusive ? arith::CmpIPredicate::slt
                                                 : arith::CmpIPredicate::sle);
    Value result =
        linalg::GenericOp::create(
            rewriter, loc, TypeRange{type}, ValueRange{x}, ValueRange{zero},
            maps, its,
            [&](OpBuilder &b, Location l, ValueRange a) {
              Value in = arith::CmpIOp::create(
                  b, l, pred, loopIndex(b, l, rank), loopIndex(b, l, axis));
              Value sum = add(b, l, a[1], a[0]);
              linalg::YieldOp::create(
                  b, l, Value(arith::SelectOp::create(b, l, in, sum, a[1])));
            })
            .getResult(0);
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// k rounds of selection along the axis: round j picks, per row, the best
/// element that comes strictly after round j-1's pick in the order (value,
/// then lower index first). O(k * n) per row, no mask needed.
struct TopKLowering : OpConversionPattern<TopKOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(TopKOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value x = adaptor.getInput();
    auto type = cast<RankedTensorType>(x.getType());
    int64_t rank = type.getRank();
    if (rank == 0)
      return rewriter.notifyMatchFailure(op, "rank-0 input");
    int64_t axis = normalizeAxis(static_cast<int64_t>(op.getAxis()), rank);
    int64_t k = static_cast<int64_t>(op.getK());
    bool largest = op.getLargest();
    bool isUnsigned =
        op.getInput().getType().getElementType().isUnsignedInteger();
    Type element = type.getElementType();
    auto valuesType = cast<RankedTensorType>(
        getTypeConverter()->convertType(op.getValues().getType()));
    auto indicesType = cast<RankedTensorType>(op.getIndices().getType());
    Space space(rewriter.getContext(), type.getShape(), {axis});
    Type i64 = rewriter.getI64Type();
    OpBuilder &b = rewriter;

    Value c0 = arith::ConstantIndexOp::create(b, loc, 0);
    Value ck = arith::ConstantIndexOp::create(b, loc, k);
    Value c1 = arith::ConstantIndexOp::create(b, loc, 1);
    // Round j reads round j-1's picks from position j-1 of the results and
    // writes its own at position j, both with generics comparing the axis
    // index to j (O(k) per row and round, no dynamic slices) that update the
    // loop-carried results in place.
    Space out(rewriter.getContext(), valuesType.getShape(), {axis});
    auto loop = scf::ForOp::create(
        b, loc, c0, ck, c1,
        ValueRange{filledTensor(b, loc, valuesType, lowestValue(element)),
                   filledTensor(b, loc, indicesType, b.getI64IntegerAttr(0))},
        [&](OpBuilder &lb, Location l, Value j, ValueRange iter) {
          Value jI64 = arith::IndexCastOp::create(lb, l, i64, j);
          Value first =
              arith::CmpIOp::create(lb, l, arith::CmpIPredicate::eq, j, c0);
          Value prevPos = arith::SubIOp::create(
              lb, l, jI64, arith::ConstantIntOp::create(lb, l, i64, 1));
          SmallVector<Value> prev = reduce(
              lb, l, out, {iter[0], iter[1]}, {},
              {filledTensor(lb, l, out.keptType(element), lowestValue(element)),
               filledTensor(lb, l, out.keptType(i64), lb.getI64IntegerAttr(0))},
              [&](OpBuilder &nb, Location bl, ValueRange a) {
                Value here =
                    arith::CmpIOp::create(nb, bl, arith::CmpIPredicate::eq,
                                          loopIndex(nb, bl, axis), prevPos);
                return SmallVector<Value>{
                    arith::SelectOp::create(nb, bl, here, a[0], a[2]),
                    arith::SelectOp::create(nb, bl, here, a[1], a[3])};
              });
          Value initV = filledTensor(lb, l, space.keptType(element),
                                     lowestValue(element));
          Value initI = filledTensor(lb, l, space.keptType(i64),
                                     lb.getI64IntegerAttr(-1));
          SmallVector<Value> best = reduce(
              lb, l, space, {x}, {prev[0], prev[1]}, {initV, initI},
              [&](OpBuilder &nb, Location bl, ValueRange a) {
                Value v = a[0], pv = a[1], pi = a[2];
                Value bestV = a[3], bestI = a[4];
                Value m = loopIndex(nb, bl, axis);
                auto before = [&](Value v1, Value i1, Value v2, Value i2) {
                  Value lt = arith::CmpIOp::create(
                      nb, bl, arith::CmpIPredicate::slt, i1, i2);
                  return arith::OrIOp::create(
                      nb, bl, precedes(nb, bl, v1, v2, largest, isUnsigned),
                      arith::AndIOp::create(nb, bl, equal(nb, bl, v1, v2), lt));
                };
                Value eligible =
                    arith::OrIOp::create(nb, bl, first, before(pv, pi, v, m));
                Value none = arith::CmpIOp::create(
                    nb, bl, arith::CmpIPredicate::slt, bestI,
                    scalarConstant(nb, bl, i64, 0.0));
                Value better = arith::OrIOp::create(nb, bl, none,
                                                    before(v, m, bestV, bestI));
                Value take = arith::AndIOp::create(nb, bl, eligible, better);
                return SmallVector<Value>{
                    arith::SelectOp::create(nb, bl, take, v, bestV),
                    arith::SelectOp::create(nb, bl, take, m, bestI)};
              });
          SmallVector<AffineMap> maps = {out.keptMap(), out.keptMap(),
                                         out.fullMap(), out.fullMap()};
          auto update = linalg::GenericOp::create(
              lb, l, TypeRange{iter[0].getType(), iter[1].getType()},
              ValueRange{best[0], best[1]}, ValueRange{iter[0], iter[1]}, maps,
              parallelIterators(rank),
              [&](OpBuilder &nb, Location bl, ValueRange a) {
                Value here =
                    arith::CmpIOp::create(nb, bl, arith::CmpIPredicate::eq,
                                          loopIndex(nb, bl, axis), jI64);
                linalg::YieldOp::create(
                    nb, bl,
                    ValueRange{
                        arith::SelectOp::create(nb, bl, here, a[0], a[2]),
                        arith::SelectOp::create(nb, bl, here, a[1], a[3])});
              });
          scf::YieldOp::create(lb, l, update.getResults());
        });
    rewriter.replaceOp(op, {loop.getResult(0), loop.getResult(1)});
    return success();
  }
};

} // namespace

void telar::populateReductionLoweringPatterns(const TypeConverter &converter,
                                              RewritePatternSet &patterns) {
  patterns.add<
      ReduceLowering<ReduceSumOp, ReduceKind::Sum>,
      ReduceLowering<ReduceMeanOp, ReduceKind::Mean>,
      ReduceLowering<ReduceMaxOp, ReduceKind::Max>,
      ReduceLowering<ReduceMinOp, ReduceKind::Min>,
      ReduceLowering<ReduceProdOp, ReduceKind::Prod>,
      ReduceLowering<ReduceL1Op, ReduceKind::L1>,
      ReduceLowering<ReduceL2Op, ReduceKind::L2>,
      ReduceLowering<ReduceSumSquareOp, ReduceKind::SumSquare>,
      ReduceLowering<ReduceLogSumOp, ReduceKind::LogSum>,
      ReduceLowering<ReduceLogSumExpOp, ReduceKind::LogSumExp>,
      ArgReduceLowering<ArgMaxOp, true>, ArgReduceLowering<ArgMinOp, false>,
      HardmaxLowering, SoftmaxLowering<SoftmaxOp, false>,
      SoftmaxLowering<LogSoftmaxOp, true>, LpNormLowering, LayerNormLowering,
      RMSNormLowering, BatchNormLowering, InstanceNormLowering,
      GroupNormLowering, MeanVarianceNormLowering, LRNLowering, CumSumLowering,
      TopKLowering>(converter, patterns.getContext());
}
