//===- LoweringUtils.cpp - Shared helpers of the linalg lowering ----------===//

#include "LoweringUtils.h"

#include "mlir/Dialect/Utils/ReshapeOpsUtils.h"

#include <limits>

using namespace mlir;

AffineMap telar::broadcastMap(MLIRContext *ctx, ShapedType operandType,
                              int64_t resultRank) {
  int64_t rank = operandType.getRank();
  SmallVector<AffineExpr> exprs;
  for (int64_t i = 0; i < rank; ++i) {
    int64_t resultDim = resultRank - rank + i;
    if (operandType.getDimSize(i) == 1)
      exprs.push_back(getAffineConstantExpr(0, ctx));
    else
      exprs.push_back(getAffineDimExpr(resultDim, ctx));
  }
  return AffineMap::get(resultRank, 0, exprs, ctx);
}

Value telar::emptyTensor(OpBuilder &b, Location loc, RankedTensorType type) {
  return tensor::EmptyOp::create(b, loc, type.getShape(),
                                 type.getElementType());
}

Value telar::filledTensor(OpBuilder &b, Location loc, RankedTensorType type,
                          TypedAttr value) {
  Value init = emptyTensor(b, loc, type);
  Value scalar = arith::ConstantOp::create(b, loc, value);
  return linalg::FillOp::create(b, loc, scalar, init).getResult(0);
}

SmallVector<AffineMap> telar::identityMaps(MLIRContext *ctx, int64_t rank,
                                           int n) {
  return SmallVector<AffineMap>(n, AffineMap::getMultiDimIdentityMap(rank, ctx));
}

SmallVector<utils::IteratorType> telar::parallelIterators(int64_t n) {
  return SmallVector<utils::IteratorType>(n, utils::IteratorType::parallel);
}

Value telar::buildElementwise(OpBuilder &b, Location loc,
                              RankedTensorType resultType, ValueRange operands,
                              ScalarBuilder body) {
  MLIRContext *ctx = b.getContext();
  int64_t rank = resultType.getRank();
  SmallVector<AffineMap> maps;
  for (Value operand : operands)
    maps.push_back(
        broadcastMap(ctx, cast<ShapedType>(operand.getType()), rank));
  maps.push_back(AffineMap::getMultiDimIdentityMap(rank, ctx));
  Value init = emptyTensor(b, loc, resultType);
  auto generic = linalg::GenericOp::create(
      b, loc, TypeRange{resultType}, operands, ValueRange{init}, maps,
      parallelIterators(rank),
      [&](OpBuilder &nb, Location nloc, ValueRange args) {
        Value result = body(nb, nloc, args.drop_back());
        linalg::YieldOp::create(nb, nloc, result);
      });
  return generic.getResult(0);
}

TypedAttr telar::scalarAttr(Type type, double value) {
  if (auto ft = dyn_cast<FloatType>(type))
    return FloatAttr::get(ft, value);
  if (type.isIndex())
    return IntegerAttr::get(type, static_cast<int64_t>(value));
  auto it = cast<IntegerType>(type);
  return IntegerAttr::get(it, APInt(it.getWidth(), static_cast<int64_t>(value),
                                    /*isSigned=*/true, /*implicitTrunc=*/true));
}

Value telar::scalarConstant(OpBuilder &b, Location loc, Type type,
                            double value) {
  return arith::ConstantOp::create(b, loc, scalarAttr(type, value));
}

TypedAttr telar::lowestValue(Type type) {
  if (auto ft = dyn_cast<FloatType>(type))
    return FloatAttr::get(
        ft, APFloat::getInf(ft.getFloatSemantics(), /*Negative=*/true));
  auto it = cast<IntegerType>(type);
  if (it.getWidth() == 1 || it.isUnsigned())
    return IntegerAttr::get(it, APInt::getMinValue(it.getWidth()));
  return IntegerAttr::get(it, APInt::getSignedMinValue(it.getWidth()));
}

TypedAttr telar::highestValue(Type type) {
  if (auto ft = dyn_cast<FloatType>(type))
    return FloatAttr::get(ft, APFloat::getInf(ft.getFloatSemantics()));
  auto it = cast<IntegerType>(type);
  if (it.getWidth() == 1 || it.isUnsigned())
    return IntegerAttr::get(it, APInt::getMaxValue(it.getWidth()));
  return IntegerAttr::get(it, APInt::getSignedMaxValue(it.getWidth()));
}

Type telar::signlessElementType(Type type) {
  if (auto it = dyn_cast<IntegerType>(type); it && !it.isSignless())
    return IntegerType::get(type.getContext(), it.getWidth());
  return type;
}

telar::TelarTypeConverter::TelarTypeConverter() {
  addConversion([](Type t) { return t; });
  addConversion([](RankedTensorType t) -> Type {
    return t.clone(signlessElementType(t.getElementType()));
  });
}

Value telar::convertScalar(OpBuilder &b, Location loc, Value v, Type toType,
                           bool fromUnsigned, bool toUnsigned) {
  Type from = v.getType();
  if (from == toType)
    return v;
  auto fromF = dyn_cast<FloatType>(from);
  auto toF = dyn_cast<FloatType>(toType);
  bool fromBool = from.isInteger(1);
  bool toBool = toType.isInteger(1);
  fromUnsigned = fromUnsigned || fromBool;
  if (toBool) {
    if (fromF) {
      Value zero = scalarConstant(b, loc, from, 0.0);
      return arith::CmpFOp::create(b, loc, arith::CmpFPredicate::UNE, v, zero);
    }
    Value zero = scalarConstant(b, loc, from, 0.0);
    return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne, v, zero);
  }
  if (fromF && toF) {
    if (fromF.getWidth() < toF.getWidth())
      return arith::ExtFOp::create(b, loc, toType, v);
    return arith::TruncFOp::create(b, loc, toType, v);
  }
  if (fromF) {
    if (toUnsigned)
      return arith::FPToUIOp::create(b, loc, toType, v);
    return arith::FPToSIOp::create(b, loc, toType, v);
  }
  if (toF) {
    if (fromUnsigned)
      return arith::UIToFPOp::create(b, loc, toType, v);
    return arith::SIToFPOp::create(b, loc, toType, v);
  }
  unsigned fromW = from.getIntOrFloatBitWidth();
  unsigned toW = toType.getIntOrFloatBitWidth();
  if (fromW == toW)
    return arith::BitcastOp::create(b, loc, toType, v);
  if (fromW > toW)
    return arith::TruncIOp::create(b, loc, toType, v);
  if (fromUnsigned)
    return arith::ExtUIOp::create(b, loc, toType, v);
  return arith::ExtSIOp::create(b, loc, toType, v);
}

bool telar::hasStaticShapes(Operation *op) {
  auto isStatic = [](Type t) {
    auto rt = dyn_cast<RankedTensorType>(t);
    return rt && rt.hasStaticShape();
  };
  return llvm::all_of(op->getOperandTypes(), isStatic) &&
         llvm::all_of(op->getResultTypes(), isStatic);
}

Type telar::accumulatorType(Type element) {
  if (auto ft = dyn_cast<FloatType>(element); ft && ft.getWidth() < 32)
    return Float32Type::get(element.getContext());
  return element;
}

Value telar::reshapeTensor(OpBuilder &b, Location loc, Value v,
                           RankedTensorType type) {
  auto srcType = cast<RankedTensorType>(v.getType());
  if (srcType.getShape() == type.getShape())
    return v;
  int64_t srcRank = srcType.getRank(), dstRank = type.getRank();
  // A rank-0 tensor has one element: every dimension of the other side is 1.
  if (srcRank == 0)
    return tensor::ExpandShapeOp::create(b, loc, type, v,
                                         ArrayRef<ReassociationIndices>{});
  if (dstRank == 0)
    return tensor::CollapseShapeOp::create(b, loc, type, v,
                                           ArrayRef<ReassociationIndices>{});
  if (srcRank != dstRank) {
    if (auto groups = getReassociationIndicesForReshape(srcType, type)) {
      if (srcRank > dstRank)
        return tensor::CollapseShapeOp::create(b, loc, type, v, *groups);
      return tensor::ExpandShapeOp::create(b, loc, type, v, *groups);
    }
  }
  // Otherwise through the shape of the smallest groups of consecutive dims
  // whose sizes multiply to the same on both sides: each source group
  // collapses into one dim, which expands into its result group. Collapsing
  // only within groups keeps a reshape of a strided view a view where it
  // can be one ([197, 1, 384] columns of a [197, 1, 1152] buffer to
  // [197, 6, 64]: attention's heads), where collapsing everything would copy.
  ArrayRef<int64_t> src = srcType.getShape(), dst = type.getShape();
  SmallVector<ReassociationIndices> srcGroups, dstGroups;
  SmallVector<int64_t> mid;
  bool grouped = !llvm::is_contained(src, 0);
  int64_t i = 0, j = 0;
  while (grouped && i < srcRank && j < dstRank) {
    ReassociationIndices sg = {i}, dg = {j};
    int64_t ps = src[i++], pd = dst[j++];
    while (ps != pd) {
      if (ps < pd && i < srcRank) {
        sg.push_back(i);
        ps *= src[i++];
      } else if (pd < ps && j < dstRank) {
        dg.push_back(j);
        pd *= dst[j++];
      } else {
        grouped = false;
        break;
      }
    }
    srcGroups.push_back(sg);
    dstGroups.push_back(dg);
    mid.push_back(ps);
  }
  // What is left on one side is unit dims: they join the last group.
  for (; grouped && i < srcRank; ++i)
    srcGroups.back().push_back(i);
  for (; grouped && j < dstRank; ++j)
    dstGroups.back().push_back(j);
  if (!grouped) {
    srcGroups = {llvm::to_vector(llvm::seq<int64_t>(0, srcRank))};
    dstGroups = {llvm::to_vector(llvm::seq<int64_t>(0, dstRank))};
    mid = {srcType.getNumElements()};
  }
  Value midValue = v;
  if (static_cast<int64_t>(mid.size()) != srcRank)
    midValue = tensor::CollapseShapeOp::create(
        b, loc, RankedTensorType::get(mid, srcType.getElementType()), v,
        srcGroups);
  if (static_cast<int64_t>(mid.size()) == dstRank)
    return midValue;
  return tensor::ExpandShapeOp::create(b, loc, type, midValue, dstGroups);
}

Value telar::transposeTensor(OpBuilder &b, Location loc, Value v,
                             ArrayRef<int64_t> perm) {
  if (llvm::equal(perm, llvm::seq<int64_t>(0, perm.size())))
    return v;
  auto type = cast<RankedTensorType>(v.getType());
  SmallVector<int64_t> shape;
  for (int64_t p : perm)
    shape.push_back(type.getDimSize(p));
  // A permutation that keeps the dimensions larger than 1 in order only
  // moves unit dimensions: the same elements in the same order, a reshape
  // rather than a copy (the [1, S, D] <-> [S, 1, D] transposes around
  // attention).
  SmallVector<int64_t> moved;
  for (int64_t p : perm)
    if (type.getDimSize(p) != 1)
      moved.push_back(p);
  if (llvm::is_sorted(moved))
    return reshapeTensor(b, loc, v, type.clone(shape));
  Value init = emptyTensor(b, loc, type.clone(shape));
  return linalg::TransposeOp::create(b, loc, v, init, perm)->getResult(0);
}
