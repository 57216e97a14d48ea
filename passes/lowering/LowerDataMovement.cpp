//===- LowerDataMovement.cpp - Data-movement telar ops to linalg/tensor ---===//
//
// Reshapes become tensor.collapse_shape/expand_shape, transposes
// linalg.transpose, slices and concatenations extract_slice/insert_slice,
// constant pads tensor.pad. Ops that read at computed positions (gathers,
// non-constant pads, one_hot, resize, rotary_embedding) become one
// all-parallel linalg.generic over the result whose body reads with
// tensor.extract; scatters are sequential scf.for loops of tensor.insert
// (ONNX applies duplicate indices in order). Index tensors are read with
// ONNX's negative-index wrap and then clamped into range, so that a bad
// index reads or writes inside the tensor instead of outside it.
//
//===----------------------------------------------------------------------===//

#include "LoweringUtils.h"
#include "telar/dialects/Telar/TelarOps.h"
#include "telar/passes/lowering/Patterns.h"

#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Utils/ReshapeOpsUtils.h"

#include <cmath>

using namespace mlir;
using namespace mlir::telar;

namespace {

//===----------------------------------------------------------------------===//
// Helpers
//===----------------------------------------------------------------------===//

Value indexConstant(OpBuilder &b, Location loc, int64_t v) {
  return arith::ConstantIndexOp::create(b, loc, v);
}

int64_t normalizedAxis(int64_t axis, int64_t rank) {
  return axis < 0 ? axis + rank : axis;
}

/// `linalg.index` of every loop of the enclosing generic.
SmallVector<Value> loopIndices(OpBuilder &b, Location loc, int64_t n) {
  SmallVector<Value> indices;
  for (int64_t i = 0; i < n; ++i)
    indices.push_back(linalg::IndexOp::create(b, loc, i));
  return indices;
}

/// Turns an element of an index tensor into a position along a dimension of
/// size `dim`: negative values count from the back (ONNX), and the result is
/// clamped into [0, dim) so that an out-of-range index stays in bounds.
Value positionFromIndex(OpBuilder &b, Location loc, Value v, int64_t dim,
                        bool isUnsigned) {
  Type indexType = b.getIndexType();
  Value last = indexConstant(b, loc, std::max<int64_t>(dim - 1, 0));
  if (isUnsigned) {
    Value i = arith::IndexCastUIOp::create(b, loc, indexType, v);
    return arith::MinUIOp::create(b, loc, i, last);
  }
  Value i = arith::IndexCastOp::create(b, loc, indexType, v);
  Value zero = indexConstant(b, loc, 0);
  Value negative =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, i, zero);
  Value wrapped = arith::AddIOp::create(b, loc, i, indexConstant(b, loc, dim));
  i = arith::SelectOp::create(b, loc, negative, wrapped, i);
  i = arith::MaxSIOp::create(b, loc, i, zero);
  return arith::MinSIOp::create(b, loc, i, last);
}

bool isUnsignedTensor(Value v) {
  return cast<ShapedType>(v.getType()).getElementType().isUnsignedInteger();
}

SmallVector<OpFoldResult> indexAttrs(OpBuilder &b, ArrayRef<int64_t> values) {
  return llvm::map_to_vector(values, [&](int64_t v) -> OpFoldResult {
    return b.getIndexAttr(v);
  });
}

Value extractSlice(OpBuilder &b, Location loc, Value src,
                   ArrayRef<int64_t> offsets, ArrayRef<int64_t> sizes,
                   ArrayRef<int64_t> strides) {
  return tensor::ExtractSliceOp::create(b, loc, src, indexAttrs(b, offsets),
                                        indexAttrs(b, sizes),
                                        indexAttrs(b, strides));
}

/// An all-parallel generic over `resultType` with the given inputs and
/// input maps (the output map is the identity).
Value buildGeneric(OpBuilder &b, Location loc, RankedTensorType resultType,
                   ValueRange inputs, ArrayRef<AffineMap> inputMaps,
                   ScalarBuilder body) {
  int64_t rank = resultType.getRank();
  SmallVector<AffineMap> maps(inputMaps);
  maps.push_back(AffineMap::getMultiDimIdentityMap(rank, b.getContext()));
  Value init = emptyTensor(b, loc, resultType);
  return linalg::GenericOp::create(
             b, loc, TypeRange{resultType}, inputs, ValueRange{init}, maps,
             parallelIterators(rank),
             [&](OpBuilder &nb, Location nloc, ValueRange args) {
               linalg::YieldOp::create(nb, nloc,
                                       body(nb, nloc, args.drop_back()));
             })
      .getResult(0);
}

//===----------------------------------------------------------------------===//
// Per-op lowerings: one `lower` overload per op, returning the new result.
//===----------------------------------------------------------------------===//

FailureOr<Value> lower(ReshapeOp, ReshapeOp::Adaptor adaptor,
                       RankedTensorType resultType, OpBuilder &b,
                       Location loc) {
  return reshapeTensor(b, loc, adaptor.getInput(), resultType);
}
FailureOr<Value> lower(SqueezeOp, SqueezeOp::Adaptor adaptor,
                       RankedTensorType resultType, OpBuilder &b,
                       Location loc) {
  return reshapeTensor(b, loc, adaptor.getInput(), resultType);
}
FailureOr<Value> lower(UnsqueezeOp, UnsqueezeOp::Adaptor adaptor,
                       RankedTensorType resultType, OpBuilder &b,
                       Location loc) {
  return reshapeTensor(b, loc, adaptor.getInput(), resultType);
}

FailureOr<Value> lower(TransposeOp op, TransposeOp::Adaptor adaptor,
                       RankedTensorType, OpBuilder &b, Location loc) {
  return transposeTensor(b, loc, adaptor.getInput(), op.getPerm());
}

FailureOr<Value> lower(ConcatOp op, ConcatOp::Adaptor adaptor,
                       RankedTensorType resultType, OpBuilder &b,
                       Location loc) {
  if (adaptor.getInputs().size() == 1)
    return adaptor.getInputs().front();
  int64_t rank = resultType.getRank();
  int64_t axis = normalizedAxis(static_cast<int64_t>(op.getAxis()), rank);
  Value result = emptyTensor(b, loc, resultType);
  SmallVector<int64_t> offsets(rank, 0), strides(rank, 1);
  for (Value input : adaptor.getInputs()) {
    ArrayRef<int64_t> shape = cast<RankedTensorType>(input.getType()).getShape();
    if (shape[axis] == 0)
      continue;
    result = tensor::InsertSliceOp::create(
        b, loc, input, result, indexAttrs(b, offsets), indexAttrs(b, shape),
        indexAttrs(b, strides));
    offsets[axis] += shape[axis];
  }
  return result;
}

/// Positive steps are one strided extract_slice; an axis with a negative
/// step extracts its elements in increasing order, then a generic reads
/// that axis backwards (an affine `n - 1 - d` map).
FailureOr<Value> lower(SliceOp op, SliceOp::Adaptor adaptor,
                       RankedTensorType resultType, OpBuilder &b,
                       Location loc) {
  auto inType = cast<RankedTensorType>(adaptor.getInput().getType());
  int64_t rank = inType.getRank();
  SmallVector<int64_t> offsets(rank, 0), strides(rank, 1);
  SmallVector<int64_t> sizes(resultType.getShape());
  SmallVector<bool> reversed(rank, false);
  for (auto [i, rawAxis] : llvm::enumerate(op.getAxes())) {
    int64_t axis = normalizedAxis(rawAxis, rank);
    int64_t dim = inType.getDimSize(axis);
    int64_t start = op.getStarts()[i], step = op.getSteps()[i];
    if (start < 0)
      start += dim;
    if (step > 0) {
      offsets[axis] = std::clamp<int64_t>(start, 0, dim);
      strides[axis] = step;
    } else {
      start = std::clamp<int64_t>(start, 0, dim - 1);
      offsets[axis] = start + (sizes[axis] - 1) * step;
      strides[axis] = -step;
      reversed[axis] = sizes[axis] > 1;
    }
  }
  Value sliced = adaptor.getInput();
  if (ArrayRef<int64_t>(sizes) != inType.getShape() || llvm::any_of(strides, [](int64_t s) {
        return s != 1;
      }))
    sliced = extractSlice(b, loc, sliced, offsets, sizes, strides);
  if (!llvm::is_contained(reversed, true))
    return sliced;
  SmallVector<AffineExpr> exprs;
  for (int64_t i = 0; i < rank; ++i) {
    AffineExpr d = b.getAffineDimExpr(i);
    exprs.push_back(reversed[i] ? sizes[i] - 1 - d : d);
  }
  AffineMap map = AffineMap::get(rank, 0, exprs, b.getContext());
  return buildGeneric(b, loc, resultType, sliced, map,
                      [](OpBuilder &, Location, ValueRange args) {
                        return args[0];
                      });
}

/// out[pre, idx..., post] = data[pre, indices[idx...], post].
FailureOr<Value> lower(GatherOp op, GatherOp::Adaptor adaptor,
                       RankedTensorType resultType, OpBuilder &b,
                       Location loc) {
  Value data = adaptor.getData(), indices = adaptor.getIndices();
  auto dataType = cast<RankedTensorType>(data.getType());
  int64_t r = dataType.getRank();
  int64_t q = cast<RankedTensorType>(indices.getType()).getRank();
  int64_t axis = normalizedAxis(static_cast<int64_t>(op.getAxis()), r);
  int64_t outRank = resultType.getRank();
  SmallVector<AffineExpr> exprs;
  for (int64_t i = 0; i < q; ++i)
    exprs.push_back(b.getAffineDimExpr(axis + i));
  AffineMap map = AffineMap::get(outRank, 0, exprs, b.getContext());
  return buildGeneric(
      b, loc, resultType, indices, map,
      [&](OpBuilder &nb, Location nloc, ValueRange args) -> Value {
        SmallVector<Value> loops = loopIndices(nb, nloc, outRank);
        SmallVector<Value> at(loops.begin(), loops.begin() + axis);
        at.push_back(positionFromIndex(nb, nloc, args[0],
                                       dataType.getDimSize(axis), false));
        at.append(loops.begin() + axis + q, loops.end());
        return tensor::ExtractOp::create(nb, nloc, data, at);
      });
}

/// out[i] = data[i with i[axis] replaced by indices[i]].
FailureOr<Value> lower(GatherElementsOp op, GatherElementsOp::Adaptor adaptor,
                       RankedTensorType resultType, OpBuilder &b,
                       Location loc) {
  Value data = adaptor.getData();
  auto dataType = cast<RankedTensorType>(data.getType());
  int64_t rank = dataType.getRank();
  int64_t axis = normalizedAxis(static_cast<int64_t>(op.getAxis()), rank);
  return buildGeneric(
      b, loc, resultType, adaptor.getIndices(),
      AffineMap::getMultiDimIdentityMap(rank, b.getContext()),
      [&](OpBuilder &nb, Location nloc, ValueRange args) -> Value {
        SmallVector<Value> at = loopIndices(nb, nloc, rank);
        at[axis] = positionFromIndex(nb, nloc, args[0],
                                     dataType.getDimSize(axis), false);
        return tensor::ExtractOp::create(nb, nloc, data, at);
      });
}

/// Appends to `at` the data positions one index tuple names: the tuple
/// stands in `indices` at `prefix` (indices' last dimension runs over it);
/// entry j is a position along a data dimension of size dims[j].
void appendTuplePositions(OpBuilder &b, Location loc, Value indices,
                          ValueRange prefix, ArrayRef<int64_t> dims,
                          SmallVectorImpl<Value> &at) {
  SmallVector<Value> tuple(prefix);
  tuple.push_back(Value());
  for (auto [j, dim] : llvm::enumerate(dims)) {
    tuple.back() = indexConstant(b, loc, static_cast<int64_t>(j));
    Value v = tensor::ExtractOp::create(b, loc, indices, tuple);
    at.push_back(positionFromIndex(b, loc, v, dim, false));
  }
}

/// out[batch, idx, tail] = data[batch, indices[batch, idx, :], tail].
FailureOr<Value> lower(GatherNDOp op, GatherNDOp::Adaptor adaptor,
                       RankedTensorType resultType, OpBuilder &b,
                       Location loc) {
  Value data = adaptor.getData(), indices = adaptor.getIndices();
  auto dataType = cast<RankedTensorType>(data.getType());
  auto indicesType = cast<RankedTensorType>(indices.getType());
  int64_t batch = static_cast<int64_t>(op.getBatchDims());
  int64_t q = indicesType.getRank();
  int64_t k = indicesType.getShape().back();
  int64_t outRank = resultType.getRank();
  return buildGeneric(
      b, loc, resultType, {}, {},
      [&](OpBuilder &nb, Location nloc, ValueRange) -> Value {
        SmallVector<Value> loops = loopIndices(nb, nloc, outRank);
        SmallVector<Value> at(loops.begin(), loops.begin() + batch);
        appendTuplePositions(nb, nloc, indices,
                             ValueRange(loops).take_front(q - 1),
                             dataType.getShape().slice(batch, k), at);
        at.append(loops.begin() + q - 1, loops.end());
        return tensor::ExtractOp::create(nb, nloc, data, at);
      });
}

/// Combines the destination's current value with an update.
Value scatterCombine(OpBuilder &b, Location loc, StringRef reduction,
                     Value old, Value update, bool isUnsigned) {
  Type type = old.getType();
  if (isa<FloatType>(type)) {
    if (reduction == "add")
      return arith::AddFOp::create(b, loc, old, update);
    if (reduction == "mul")
      return arith::MulFOp::create(b, loc, old, update);
    if (reduction == "max")
      return arith::MaximumFOp::create(b, loc, old, update);
    return arith::MinimumFOp::create(b, loc, old, update);
  }
  if (type.isInteger(1)) {
    if (reduction == "add" || reduction == "max")
      return arith::OrIOp::create(b, loc, old, update);
    return arith::AndIOp::create(b, loc, old, update);
  }
  if (reduction == "add")
    return arith::AddIOp::create(b, loc, old, update);
  if (reduction == "mul")
    return arith::MulIOp::create(b, loc, old, update);
  if (reduction == "max")
    return isUnsigned ? Value(arith::MaxUIOp::create(b, loc, old, update))
                      : Value(arith::MaxSIOp::create(b, loc, old, update));
  return isUnsigned ? Value(arith::MinUIOp::create(b, loc, old, update))
                    : Value(arith::MinSIOp::create(b, loc, old, update));
}

/// A sequential loop nest over the updates, inserting each into the
/// destination at the position `target` computes from the loop indices.
Value scatterLoop(
    OpBuilder &b, Location loc, Value data, Value updates,
    StringRef reduction, bool isUnsigned,
    function_ref<SmallVector<Value>(OpBuilder &, Location, ValueRange)>
        target) {
  auto updatesType = cast<RankedTensorType>(updates.getType());
  if (updatesType.getNumElements() == 0)
    return data;
  SmallVector<Value> lbs, ubs, steps;
  for (int64_t d : updatesType.getShape()) {
    lbs.push_back(indexConstant(b, loc, 0));
    ubs.push_back(indexConstant(b, loc, d));
    steps.push_back(indexConstant(b, loc, 1));
  }
  scf::LoopNest nest = scf::buildLoopNest(
      b, loc, lbs, ubs, steps, ValueRange{data},
      [&](OpBuilder &nb, Location nloc, ValueRange ivs,
          ValueRange iter) -> scf::ValueVector {
        SmallVector<Value> at = target(nb, nloc, ivs);
        Value update = tensor::ExtractOp::create(nb, nloc, updates, ivs);
        if (reduction != "none") {
          Value old = tensor::ExtractOp::create(nb, nloc, iter[0], at);
          update =
              scatterCombine(nb, nloc, reduction, old, update, isUnsigned);
        }
        return {tensor::InsertOp::create(nb, nloc, update, iter[0], at)};
      });
  return nest.results.front();
}

FailureOr<Value> lower(ScatterElementsOp op, ScatterElementsOp::Adaptor adaptor,
                       RankedTensorType, OpBuilder &b, Location loc) {
  Value indices = adaptor.getIndices();
  auto dataType = cast<RankedTensorType>(adaptor.getData().getType());
  int64_t axis =
      normalizedAxis(static_cast<int64_t>(op.getAxis()), dataType.getRank());
  return scatterLoop(
      b, loc, adaptor.getData(), adaptor.getUpdates(), op.getReduction(),
      isUnsignedTensor(op.getData()),
      [&](OpBuilder &nb, Location nloc, ValueRange ivs) {
        SmallVector<Value> at(ivs);
        Value v = tensor::ExtractOp::create(nb, nloc, indices, ivs);
        at[axis] = positionFromIndex(nb, nloc, v, dataType.getDimSize(axis),
                                     false);
        return at;
      });
}

FailureOr<Value> lower(ScatterNDOp op, ScatterNDOp::Adaptor adaptor,
                       RankedTensorType, OpBuilder &b, Location loc) {
  Value indices = adaptor.getIndices();
  auto dataType = cast<RankedTensorType>(adaptor.getData().getType());
  auto indicesType = cast<RankedTensorType>(indices.getType());
  int64_t q = indicesType.getRank();
  int64_t k = indicesType.getShape().back();
  return scatterLoop(
      b, loc, adaptor.getData(), adaptor.getUpdates(), op.getReduction(),
      isUnsignedTensor(op.getData()),
      [&](OpBuilder &nb, Location nloc, ValueRange ivs) {
        SmallVector<Value> at;
        appendTuplePositions(nb, nloc, indices, ivs.take_front(q - 1),
                             dataType.getShape().take_front(k), at);
        llvm::append_range(at, ivs.drop_front(q - 1));
        return at;
      });
}

FailureOr<Value> lower(ExpandOp, ExpandOp::Adaptor adaptor,
                       RankedTensorType resultType, OpBuilder &b,
                       Location loc) {
  if (adaptor.getInput().getType() == resultType)
    return adaptor.getInput();
  return buildElementwise(
      b, loc, resultType, adaptor.getInput(),
      [](OpBuilder &, Location, ValueRange args) { return args[0]; });
}

/// Broadcast to [r0, d0, r1, d1, ...] (the input read with the d_i loops),
/// then collapse each (r_i, d_i) pair.
FailureOr<Value> lower(TileOp op, TileOp::Adaptor adaptor,
                       RankedTensorType resultType, OpBuilder &b,
                       Location loc) {
  Value input = adaptor.getInput();
  auto inType = cast<RankedTensorType>(input.getType());
  if (inType == resultType)
    return input;
  int64_t rank = inType.getRank();
  SmallVector<int64_t> shape;
  SmallVector<AffineExpr> exprs;
  SmallVector<ReassociationIndices> groups;
  for (int64_t i = 0; i < rank; ++i) {
    shape.push_back(static_cast<int64_t>(op.getRepeats()[i]));
    shape.push_back(inType.getDimSize(i));
    exprs.push_back(b.getAffineDimExpr(2 * i + 1));
    groups.push_back({2 * i, 2 * i + 1});
  }
  auto wideType = RankedTensorType::get(shape, inType.getElementType());
  Value wide = buildGeneric(
      b, loc, wideType, input,
      AffineMap::get(2 * rank, 0, exprs, b.getContext()),
      [](OpBuilder &, Location, ValueRange args) { return args[0]; });
  return tensor::CollapseShapeOp::create(b, loc, resultType, wide, groups)
      .getResult();
}

/// Negative pads crop first (as onnxruntime does); then `constant` is a
/// tensor.pad and the other modes a generic reading the cropped input at
/// a reflected, clamped or wrapped position.
FailureOr<Value> lower(PadOp op, PadOp::Adaptor adaptor,
                       RankedTensorType resultType, OpBuilder &b,
                       Location loc) {
  Value input = adaptor.getInput();
  auto inType = cast<RankedTensorType>(input.getType());
  int64_t rank = inType.getRank();
  ArrayRef<int64_t> pads = op.getPads();
  SmallVector<int64_t> low(rank), high(rank), offsets(rank), sizes(rank);
  bool crop = false;
  for (int64_t i = 0; i < rank; ++i) {
    int64_t lo = pads[i], hi = pads[i + rank];
    offsets[i] = std::max<int64_t>(-lo, 0);
    sizes[i] = inType.getDimSize(i) - offsets[i] - std::max<int64_t>(-hi, 0);
    crop |= lo < 0 || hi < 0;
    low[i] = std::max<int64_t>(lo, 0);
    high[i] = std::max<int64_t>(hi, 0);
  }
  if (crop)
    input = extractSlice(b, loc, input, offsets, sizes,
                         SmallVector<int64_t>(rank, 1));
  if (cast<RankedTensorType>(input.getType()) == resultType)
    return input;
  Type elementType = resultType.getElementType();
  if (op.getMode() == "constant") {
    Value pad = arith::ConstantOp::create(
        b, loc, scalarAttr(elementType, op.getValue().convertToDouble()));
    return tensor::PadOp::create(b, loc, resultType, input,
                                 indexAttrs(b, low), indexAttrs(b, high), pad)
        .getResult();
  }
  // Nothing to read from: ONNX leaves this undefined; onnxruntime rejects it.
  if (llvm::is_contained(sizes, 0)) {
    op.emitOpError("mode '")
        << op.getMode() << "' needs a non-empty input to pad from";
    return failure();
  }
  StringRef mode = op.getMode();
  return buildGeneric(
      b, loc, resultType, {}, {},
      [&](OpBuilder &nb, Location nloc, ValueRange) -> Value {
        SmallVector<Value> at = loopIndices(nb, nloc, rank);
        for (int64_t i = 0; i < rank; ++i) {
          if (low[i] == 0 && high[i] == 0)
            continue;
          int64_t d = sizes[i];
          Value zero = indexConstant(nb, nloc, 0);
          Value x = arith::SubIOp::create(nb, nloc, at[i],
                                          indexConstant(nb, nloc, low[i]));
          // Positive remainder of x by m.
          auto positiveRem = [&](int64_t m) -> Value {
            Value mv = indexConstant(nb, nloc, m);
            Value r = arith::RemSIOp::create(nb, nloc, x, mv);
            Value neg = arith::CmpIOp::create(
                nb, nloc, arith::CmpIPredicate::slt, r, zero);
            Value shifted = arith::AddIOp::create(nb, nloc, r, mv);
            return arith::SelectOp::create(nb, nloc, neg, shifted, r);
          };
          if (mode == "edge" || (mode == "reflect" && d == 1)) {
            x = arith::MaxSIOp::create(nb, nloc, x, zero);
            x = arith::MinSIOp::create(nb, nloc, x,
                                       indexConstant(nb, nloc, d - 1));
          } else if (mode == "wrap") {
            x = positiveRem(d);
          } else {
            // Reflection without repeating the edge has period 2(d-1).
            int64_t period = 2 * (d - 1);
            Value m = positiveRem(period);
            Value inside = arith::CmpIOp::create(
                nb, nloc, arith::CmpIPredicate::slt, m,
                indexConstant(nb, nloc, d));
            Value mirrored = arith::SubIOp::create(
                nb, nloc, indexConstant(nb, nloc, period), m);
            x = arith::SelectOp::create(nb, nloc, inside, m, mirrored);
          }
          at[i] = x;
        }
        return tensor::ExtractOp::create(nb, nloc, input, at);
      });
}

/// out[.., j, ..] = (indices[..] wrapped by depth == j) ? on : off.
FailureOr<Value> lower(OneHotOp op, OneHotOp::Adaptor adaptor,
                       RankedTensorType resultType, OpBuilder &b,
                       Location loc) {
  Value indices = adaptor.getIndices();
  int64_t outRank = resultType.getRank();
  int64_t axis = normalizedAxis(static_cast<int64_t>(op.getAxis()), outRank);
  int64_t depth = static_cast<int64_t>(op.getDepth());
  bool isUnsigned = isUnsignedTensor(op.getIndices());
  Value values = adaptor.getValues();
  Value off = tensor::ExtractOp::create(b, loc, values,
                                        ValueRange{indexConstant(b, loc, 0)});
  Value on = tensor::ExtractOp::create(b, loc, values,
                                       ValueRange{indexConstant(b, loc, 1)});
  SmallVector<AffineExpr> exprs;
  for (int64_t i = 0; i < outRank; ++i)
    if (i != axis)
      exprs.push_back(b.getAffineDimExpr(i));
  AffineMap map = AffineMap::get(outRank, 0, exprs, b.getContext());
  return buildGeneric(
      b, loc, resultType, indices, map,
      [&](OpBuilder &nb, Location nloc, ValueRange args) -> Value {
        Type i64 = nb.getI64Type();
        Value v = convertScalar(nb, nloc, args[0], i64, isUnsigned);
        if (!isUnsigned) {
          Value zero = scalarConstant(nb, nloc, i64, 0);
          Value negative = arith::CmpIOp::create(
              nb, nloc, arith::CmpIPredicate::slt, v, zero);
          Value wrapped = arith::AddIOp::create(
              nb, nloc, v, scalarConstant(nb, nloc, i64, depth));
          v = arith::SelectOp::create(nb, nloc, negative, wrapped, v);
        }
        Value j = arith::IndexCastOp::create(
            nb, nloc, i64, linalg::IndexOp::create(nb, nloc, axis));
        Value hit =
            arith::CmpIOp::create(nb, nloc, arith::CmpIPredicate::eq, v, j);
        return arith::SelectOp::create(nb, nloc, hit, on, off);
      });
}

/// Keeps x[.., i, j] where j - i >= k (upper) or j - i <= k (lower).
FailureOr<Value> lower(TriluOp op, TriluOp::Adaptor adaptor,
                       RankedTensorType resultType, OpBuilder &b,
                       Location loc) {
  int64_t rank = resultType.getRank();
  int64_t k = static_cast<int64_t>(op.getK());
  bool upper = op.getUpper();
  Type elementType = resultType.getElementType();
  return buildGeneric(
      b, loc, resultType, adaptor.getInput(),
      AffineMap::getMultiDimIdentityMap(rank, b.getContext()),
      [&](OpBuilder &nb, Location nloc, ValueRange args) -> Value {
        Type i64 = nb.getI64Type();
        auto loop = [&](int64_t d) -> Value {
          return arith::IndexCastOp::create(
              nb, nloc, i64, linalg::IndexOp::create(nb, nloc, d));
        };
        Value diff =
            arith::SubIOp::create(nb, nloc, loop(rank - 1), loop(rank - 2));
        Value keep = arith::CmpIOp::create(
            nb, nloc,
            upper ? arith::CmpIPredicate::sge : arith::CmpIPredicate::sle,
            diff, scalarConstant(nb, nloc, i64, static_cast<double>(k)));
        return arith::SelectOp::create(
            nb, nloc, keep, args[0], scalarConstant(nb, nloc, elementType, 0));
      });
}

/// `input` expanded to `split` (by `splitGroups`), transposed by `perm`
/// and collapsed to `resultType` (by `mergeGroups`).
Value blockShuffle(OpBuilder &b, Location loc, Value input,
                   ArrayRef<int64_t> split,
                   ArrayRef<ReassociationIndices> splitGroups,
                   ArrayRef<int64_t> perm, RankedTensorType resultType,
                   ArrayRef<ReassociationIndices> mergeGroups) {
  auto inType = cast<RankedTensorType>(input.getType());
  Value expanded = tensor::ExpandShapeOp::create(
      b, loc, RankedTensorType::get(split, inType.getElementType()), input,
      splitGroups);
  Value moved = transposeTensor(b, loc, expanded, perm);
  return tensor::CollapseShapeOp::create(b, loc, resultType, moved, mergeGroups)
      .getResult();
}

/// DCR: [N, C, H, W] -> [N, b, b, C', H, W] -> [N, C', H, b, W, b];
/// CRD: [N, C', b, b, H, W] -> the same; then collapse to [N, C', Hb, Wb].
FailureOr<Value> lower(DepthToSpaceOp op, DepthToSpaceOp::Adaptor adaptor,
                       RankedTensorType resultType, OpBuilder &b,
                       Location loc) {
  Value input = adaptor.getInput();
  auto inType = cast<RankedTensorType>(input.getType());
  int64_t bs = static_cast<int64_t>(op.getBlocksize());
  int64_t n = inType.getDimSize(0), c = inType.getDimSize(1),
          h = inType.getDimSize(2), w = inType.getDimSize(3);
  int64_t cOut = c / (bs * bs);
  bool dcr = op.getMode() == "DCR";
  SmallVector<int64_t> split =
      dcr ? SmallVector<int64_t>{n, bs, bs, cOut, h, w}
          : SmallVector<int64_t>{n, cOut, bs, bs, h, w};
  SmallVector<int64_t> perm = dcr ? SmallVector<int64_t>{0, 3, 4, 1, 5, 2}
                                  : SmallVector<int64_t>{0, 1, 4, 2, 5, 3};
  return blockShuffle(b, loc, input, split, {{0}, {1, 2, 3}, {4}, {5}}, perm,
                      resultType, {{0}, {1}, {2, 3}, {4, 5}});
}

/// [N, C, H, W] -> [N, C, H', b, W', b] -> [N, b, b, C, H', W'] -> collapse.
FailureOr<Value> lower(SpaceToDepthOp op, SpaceToDepthOp::Adaptor adaptor,
                       RankedTensorType resultType, OpBuilder &b,
                       Location loc) {
  Value input = adaptor.getInput();
  auto inType = cast<RankedTensorType>(input.getType());
  int64_t bs = static_cast<int64_t>(op.getBlocksize());
  int64_t n = inType.getDimSize(0), c = inType.getDimSize(1),
          h = inType.getDimSize(2), w = inType.getDimSize(3);
  return blockShuffle(b, loc, input, {n, c, h / bs, bs, w / bs, bs},
                      {{0}, {1}, {2, 3}, {4, 5}}, {0, 3, 5, 1, 2, 4},
                      resultType, {{0}, {1, 2, 3}, {4}, {5}});
}

//===----------------------------------------------------------------------===//
// resize
//===----------------------------------------------------------------------===//

/// The input positions and weights one output position of one axis reads.
struct Taps {
  SmallVector<int64_t> index; // clamped into the input
  SmallVector<double> weight;
};

/// The `n` indices of [0, limit) nearest to x, ties to the smaller index,
/// in increasing order (the ONNX reference's _get_neighbor_idxes).
SmallVector<int64_t> nearestIndices(double x, int64_t n, int64_t limit) {
  int64_t window = 2 * n + 1;
  int64_t lo = static_cast<int64_t>(std::floor(x)) - n;
  lo = std::max<int64_t>(std::min(lo, limit - window), 0);
  int64_t hi = std::min(limit, lo + window);
  SmallVector<int64_t> candidates =
      llvm::to_vector(llvm::seq<int64_t>(lo, hi));
  llvm::stable_sort(candidates, [&](int64_t a, int64_t b) {
    double da = std::abs(x - a), db = std::abs(x - b);
    return da != db ? da < db : a < b;
  });
  candidates.resize(std::min<int64_t>(n, candidates.size()));
  llvm::sort(candidates);
  return candidates;
}

/// The taps of every output position of one axis, computed at compile time
/// in double precision following the ONNX reference implementation.
SmallVector<Taps> resizeTaps(ResizeOp op, int64_t in, int64_t out,
                             float scaleAttr) {
  // When the importer derived the scale from `sizes` it is out/in rounded
  // to f32; the reference uses out/in exactly.
  double scale = static_cast<float>(static_cast<double>(out) / in) == scaleAttr
                     ? static_cast<double>(out) / in
                     : static_cast<double>(scaleAttr);
  double outWidth = scale * in;
  StringRef ctm = op.getCoordinateTransformationMode();
  StringRef mode = op.getMode();
  StringRef nearestMode = op.getNearestMode();
  double a = op.getCubicCoeffA().convertToDouble();
  int64_t n = mode == "cubic" ? 4 : 2;
  int64_t pad = n / 2;
  SmallVector<Taps> taps;
  for (int64_t o = 0; o < out; ++o) {
    double x = static_cast<double>(o), xo;
    if (ctm == "align_corners")
      xo = outWidth == 1 ? 0.0 : x * (in - 1) / (outWidth - 1);
    else if (ctm == "asymmetric")
      xo = x / scale;
    else if (ctm == "pytorch_half_pixel")
      xo = outWidth == 1 ? -0.5 : (x + 0.5) / scale - 0.5;
    else if (ctm == "half_pixel_symmetric") {
      double adjustment = out / outWidth;
      double offset = in / 2.0 * (1 - adjustment);
      xo = offset + (x + 0.5) / scale - 0.5;
    } else if (ctm == "tf_half_pixel_for_nn")
      xo = (x + 0.5) / scale;
    else // half_pixel
      xo = (x + 0.5) / scale - 0.5;
    double ratio = xo == std::floor(xo) ? 1.0 : xo - std::floor(xo);
    SmallVector<double> coeffs;
    if (mode == "nearest") {
      bool ceil = ratio == 1.0 || nearestMode == "ceil" ||
                  (nearestMode == "round_prefer_floor" && ratio > 0.5) ||
                  (nearestMode == "round_prefer_ceil" && ratio >= 0.5);
      coeffs = {ceil ? 0.0 : 1.0, ceil ? 1.0 : 0.0};
    } else if (mode == "linear") {
      coeffs = {1 - ratio, ratio};
    } else {
      double r1 = ratio + 1, s = 1 - ratio, s1 = s + 1;
      coeffs = {((a * r1 - 5 * a) * r1 + 8 * a) * r1 - 4 * a,
                ((a + 2) * ratio - (a + 3)) * ratio * ratio + 1,
                ((a + 2) * s - (a + 3)) * s * s + 1,
                ((a * s1 - 5 * a) * s1 + 8 * a) * s1 - 4 * a};
    }
    SmallVector<int64_t> idx = nearestIndices(xo + pad, n, in + 2 * pad);
    Taps t;
    for (auto [j, padded] : llvm::enumerate(idx)) {
      int64_t i = padded - pad;
      double c = coeffs[j];
      if (op.getExcludeOutside() && mode != "nearest" && (i < 0 || i >= in))
        c = 0;
      if (mode == "nearest" && c == 0)
        continue;
      t.index.push_back(std::clamp<int64_t>(i, 0, in - 1));
      t.weight.push_back(c);
    }
    if (op.getExcludeOutside() && mode != "nearest") {
      double sum = 0;
      for (double c : t.weight)
        sum += c;
      for (double &c : t.weight)
        c /= sum;
    }
    taps.push_back(std::move(t));
  }
  return taps;
}

/// Whether every output position o reads exactly input position o.
bool isIdentity(ArrayRef<Taps> taps, int64_t in) {
  if (static_cast<int64_t>(taps.size()) != in)
    return false;
  for (auto [o, t] : llvm::enumerate(taps)) {
    double self = 0;
    for (auto [i, w] : llvm::zip(t.index, t.weight)) {
      if (i == static_cast<int64_t>(o))
        self += w;
      else if (w != 0)
        return false;
    }
    if (self != 1)
      return false;
  }
  return true;
}

/// Every output element is a weighted sum of input elements whose
/// positions along each resized axis come from per-axis tables (constants
/// computed here); nearest reads one element, linear 2^r, cubic 4^r.
FailureOr<Value> lower(ResizeOp op, ResizeOp::Adaptor adaptor,
                       RankedTensorType resultType, OpBuilder &b,
                       Location loc) {
  Value input = adaptor.getInput();
  auto inType = cast<RankedTensorType>(input.getType());
  Type elementType = inType.getElementType();
  bool nearest = op.getMode() == "nearest";
  auto floatType = dyn_cast<FloatType>(elementType);
  if (!nearest && !floatType) {
    op.emitOpError("mode '")
        << op.getMode() << "' is only lowered for float tensors, got "
        << elementType;
    return failure();
  }
  if (llvm::is_contained(inType.getShape(), 0)) {
    op.emitOpError("cannot resize an empty input to a non-empty result");
    return failure();
  }
  // Weights and sums in f32 for narrower floats.
  Type computeType = floatType && floatType.getWidth() < 32
                         ? Type(b.getF32Type())
                         : elementType;
  int64_t rank = inType.getRank();
  MLIRContext *ctx = b.getContext();

  struct Axis {
    int64_t dim;
    int64_t numTaps;
    unsigned firstArg; // index tables, then (unless nearest) weight tables
  };
  SmallVector<Axis> axes;
  SmallVector<Value> inputs;
  SmallVector<AffineMap> maps;
  for (int64_t d = 0; d < rank; ++d) {
    int64_t in = inType.getDimSize(d), out = resultType.getDimSize(d);
    SmallVector<Taps> taps = resizeTaps(op, in, out, op.getScales()[d]);
    if (isIdentity(taps, in))
      continue;
    int64_t numTaps = taps.front().index.size();
    axes.push_back({d, numTaps, static_cast<unsigned>(inputs.size())});
    AffineMap map = AffineMap::get(rank, 0, b.getAffineDimExpr(d), ctx);
    auto indexType = RankedTensorType::get({out}, b.getI64Type());
    auto weightType = RankedTensorType::get({out}, computeType);
    for (int64_t t = 0; t < numTaps; ++t) {
      SmallVector<int64_t> table;
      for (const Taps &tap : taps)
        table.push_back(tap.index[t]);
      inputs.push_back(arith::ConstantOp::create(
          b, loc, DenseElementsAttr::get(indexType, ArrayRef<int64_t>(table))));
      maps.push_back(map);
    }
    if (nearest)
      continue;
    for (int64_t t = 0; t < numTaps; ++t) {
      SmallVector<Attribute> weights;
      for (const Taps &tap : taps)
        weights.push_back(b.getFloatAttr(computeType, tap.weight[t]));
      inputs.push_back(arith::ConstantOp::create(
          b, loc, DenseElementsAttr::get(weightType, weights)));
      maps.push_back(map);
    }
  }
  if (axes.empty())
    return input;

  return buildGeneric(
      b, loc, resultType, inputs, maps,
      [&](OpBuilder &nb, Location nloc, ValueRange args) -> Value {
        SmallVector<Value> at = loopIndices(nb, nloc, rank);
        // Each combination of one tap per resized axis, odometer style.
        SmallVector<int64_t> choice(axes.size(), 0);
        Value sum;
        while (true) {
          Value weight;
          for (auto [a, axis] : llvm::enumerate(axes)) {
            Value idx = args[axis.firstArg + choice[a]];
            at[axis.dim] = arith::IndexCastOp::create(
                nb, nloc, nb.getIndexType(), idx);
            if (nearest)
              continue;
            Value w = args[axis.firstArg + axis.numTaps + choice[a]];
            weight = weight ? Value(arith::MulFOp::create(nb, nloc, weight, w))
                            : w;
          }
          Value v = tensor::ExtractOp::create(nb, nloc, input, at);
          if (nearest)
            return v;
          v = convertScalar(nb, nloc, v, computeType);
          Value term = arith::MulFOp::create(nb, nloc, weight, v);
          sum = sum ? Value(arith::AddFOp::create(nb, nloc, sum, term)) : term;
          int64_t a = 0;
          for (; a < static_cast<int64_t>(axes.size()); ++a) {
            if (++choice[a] < axes[a].numTaps)
              break;
            choice[a] = 0;
          }
          if (a == static_cast<int64_t>(axes.size()))
            break;
        }
        return convertScalar(nb, nloc, sum, elementType);
      });
}

//===----------------------------------------------------------------------===//
// rotary_embedding
//===----------------------------------------------------------------------===//

/// ONNX RotaryEmbedding-23: the first R features of each head rotate in
/// pairs (x1, x2) -> (cos*x1 - sin*x2, sin*x1 + cos*x2); pairs are
/// (2i, 2i+1) when interleaved, else (i, i + R/2). Each output element
/// reads itself and its partner.
FailureOr<Value> lower(RotaryEmbeddingOp op, RotaryEmbeddingOp::Adaptor adaptor,
                       RankedTensorType resultType, OpBuilder &b,
                       Location loc) {
  Value input = adaptor.getInput();
  Value cosCache = adaptor.getCosCache(), sinCache = adaptor.getSinCache();
  Value positions = adaptor.getPositionIds();
  auto inType = cast<RankedTensorType>(input.getType());
  auto cacheType = cast<RankedTensorType>(cosCache.getType());
  int64_t rank = inType.getRank();
  int64_t numHeads = static_cast<int64_t>(op.getNumHeads());
  int64_t headSize = rank == 4 ? inType.getDimSize(3)
                               : inType.getDimSize(2) / numHeads;
  int64_t rot = static_cast<int64_t>(op.getRotaryEmbeddingDim());
  if (rot == 0)
    rot = headSize;
  int64_t half = rot / 2;
  bool interleaved = op.getInterleaved();
  return buildGeneric(
      b, loc, resultType, input,
      AffineMap::getMultiDimIdentityMap(rank, b.getContext()),
      [&](OpBuilder &nb, Location nloc, ValueRange args) -> Value {
        auto c = [&](int64_t v) { return indexConstant(nb, nloc, v); };
        auto cmp = [&](arith::CmpIPredicate p, Value x, Value y) -> Value {
          return arith::CmpIOp::create(nb, nloc, p, x, y);
        };
        auto select = [&](Value cond, Value x, Value y) -> Value {
          return arith::SelectOp::create(nb, nloc, cond, x, y);
        };
        SmallVector<Value> at = loopIndices(nb, nloc, rank);
        Value batch = at[0];
        Value seq = rank == 4 ? at[2] : at[1];
        Value feature = at.back(), d = feature, headBase;
        if (rank == 3) {
          d = arith::RemUIOp::create(nb, nloc, feature, c(headSize));
          headBase = arith::SubIOp::create(nb, nloc, feature, d);
        }
        Value rotates = cmp(arith::CmpIPredicate::ult, d, c(rot));
        // Angle index i and partner feature of d (d itself past R).
        Value angle, partner, second;
        if (interleaved) {
          angle = arith::DivUIOp::create(nb, nloc, d, c(2));
          partner = arith::XOrIOp::create(nb, nloc, d, c(1));
          Value odd = arith::AndIOp::create(nb, nloc, d, c(1));
          second = cmp(arith::CmpIPredicate::ne, odd, c(0));
        } else {
          second = cmp(arith::CmpIPredicate::uge, d, c(half));
          Value lowHalf = arith::SubIOp::create(nb, nloc, d, c(half));
          angle = select(second, lowHalf, d);
          Value highHalf = arith::AddIOp::create(nb, nloc, d, c(half));
          partner = select(second, lowHalf, highHalf);
        }
        angle = select(rotates, angle, c(0));
        partner = select(rotates, partner, d);
        if (headBase)
          partner = arith::AddIOp::create(nb, nloc, headBase, partner);
        SmallVector<Value> partnerAt(at);
        partnerAt.back() = partner;
        Value self = args[0];
        Value other = tensor::ExtractOp::create(nb, nloc, input, partnerAt);
        SmallVector<Value> cacheAt;
        if (positions) {
          Value p = tensor::ExtractOp::create(nb, nloc, positions,
                                              ValueRange{batch, seq});
          cacheAt = {positionFromIndex(nb, nloc, p, cacheType.getDimSize(0),
                                       false),
                     angle};
        } else {
          Value cacheBatch = cacheType.getDimSize(0) == 1 ? c(0) : batch;
          cacheAt = {cacheBatch, seq, angle};
        }
        Value cos = tensor::ExtractOp::create(nb, nloc, cosCache, cacheAt);
        Value sin = tensor::ExtractOp::create(nb, nloc, sinCache, cacheAt);
        Value x1 = select(second, other, self);
        Value x2 = select(second, self, other);
        auto mul = [&](Value x, Value y) -> Value {
          return arith::MulFOp::create(nb, nloc, x, y);
        };
        Value real = arith::SubFOp::create(nb, nloc, mul(cos, x1), mul(sin, x2));
        Value imag = arith::AddFOp::create(nb, nloc, mul(sin, x1), mul(cos, x2));
        return select(rotates, select(second, imag, real), self);
      });
}

//===----------------------------------------------------------------------===//
// Patterns
//===----------------------------------------------------------------------===//

/// One pattern for every single-result op: static shapes required, a
/// result without elements is just tensor.empty, else `lower(OpTy)`.
template <typename OpTy>
struct DataMovementLowering : OpConversionPattern<OpTy> {
  using OpConversionPattern<OpTy>::OpConversionPattern;
  LogicalResult
  matchAndRewrite(OpTy op, typename OpTy::Adaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto resultType = cast<RankedTensorType>(
        this->getTypeConverter()->convertType(op.getType()));
    if (resultType.getNumElements() == 0) {
      rewriter.replaceOp(op, emptyTensor(rewriter, op.getLoc(), resultType));
      return success();
    }
    FailureOr<Value> result =
        lower(op, adaptor, resultType, rewriter, op.getLoc());
    if (failed(result))
      return failure();
    rewriter.replaceOp(op, *result);
    return success();
  }
};

/// One extract_slice per piece.
struct SplitLowering : OpConversionPattern<SplitOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(SplitOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Value input = adaptor.getInput();
    auto inType = cast<RankedTensorType>(input.getType());
    int64_t rank = inType.getRank();
    int64_t axis = normalizedAxis(static_cast<int64_t>(op.getAxis()), rank);
    SmallVector<int64_t> offsets(rank, 0), strides(rank, 1);
    SmallVector<Value> results;
    for (Type type : op.getResultTypes()) {
      auto resultType =
          cast<RankedTensorType>(getTypeConverter()->convertType(type));
      if (resultType == inType)
        results.push_back(input);
      else if (resultType.getNumElements() == 0)
        results.push_back(emptyTensor(rewriter, op.getLoc(), resultType));
      else
        results.push_back(extractSlice(rewriter, op.getLoc(), input, offsets,
                                       resultType.getShape(), strides));
      offsets[axis] += resultType.getDimSize(axis);
    }
    rewriter.replaceOp(op, results);
    return success();
  }
};

} // namespace

void telar::populateDataMovementLoweringPatterns(const TypeConverter &converter,
                                                RewritePatternSet &patterns) {
  patterns.add<
      DataMovementLowering<ReshapeOp>, DataMovementLowering<TransposeOp>,
      DataMovementLowering<SqueezeOp>, DataMovementLowering<UnsqueezeOp>,
      DataMovementLowering<ConcatOp>, DataMovementLowering<SliceOp>,
      DataMovementLowering<GatherOp>, DataMovementLowering<GatherElementsOp>,
      DataMovementLowering<GatherNDOp>,
      DataMovementLowering<ScatterElementsOp>,
      DataMovementLowering<ScatterNDOp>, DataMovementLowering<ExpandOp>,
      DataMovementLowering<TileOp>, DataMovementLowering<PadOp>,
      DataMovementLowering<OneHotOp>, DataMovementLowering<TriluOp>,
      DataMovementLowering<ResizeOp>, DataMovementLowering<DepthToSpaceOp>,
      DataMovementLowering<SpaceToDepthOp>,
      DataMovementLowering<RotaryEmbeddingOp>, SplitLowering>(
      converter, patterns.getContext());
}
