//===- DataMovementOps.cpp - Shape and data-movement ops ------------------===//
//
// Result-type inference, verifiers and sharding rules of the ops that move
// data without arithmetic: reshape, transpose, (un)squeeze, concat, split,
// slice, gather/scatter, expand, tile, pad, one_hot, top_k.
//
//===----------------------------------------------------------------------===//

#include "telar/dialects/Telar/TelarOps.h"

#include "llvm/ADT/STLExtras.h"

using namespace mlir;
using namespace mlir::telar;

using Types = SmallVectorImpl<Type>;
using OptLoc = std::optional<Location>;

static RankedTensorType tensorOf(Value v) {
  return cast<RankedTensorType>(v.getType());
}

static int64_t product(ArrayRef<int64_t> shape) {
  int64_t p = 1;
  for (int64_t d : shape)
    p *= d;
  return p;
}

/// Normalises a list of distinct axes against `rank`.
static FailureOr<SmallVector<int64_t>> normalizeAxes(OptLoc loc,
                                                     ArrayRef<int64_t> axes,
                                                     int64_t rank,
                                                     StringRef what) {
  SmallVector<int64_t> out;
  for (int64_t axis : axes) {
    auto a = normalizeAxis(axis, rank);
    if (!a)
      return emitOptionalError(loc, what, " axis ", axis,
                               " is out of range for rank ", rank);
    if (llvm::is_contained(out, *a))
      return emitOptionalError(loc, what, " axis ", axis, " is repeated");
    out.push_back(*a);
  }
  return out;
}

using Dim = ShardingRuleBuilder::Dim;

//===----------------------------------------------------------------------===//
// reshape
//===----------------------------------------------------------------------===//

LogicalResult ReshapeOp::inferReturnTypes(MLIRContext *, OptLoc loc,
                                          Adaptor adaptor, Types &results) {
  auto in = tensorOf(adaptor.getInput());
  ArrayRef<int64_t> shape = adaptor.getShape();
  if (llvm::any_of(shape, [](int64_t d) { return d < 0; }))
    return emitOptionalError(loc, "reshape target shape ", toString(shape),
                             " must be fully resolved (no -1 or negative dims)");
  if (in.hasStaticShape() && product(in.getShape()) != product(shape))
    return emitOptionalError(loc, "cannot reshape ", toString(in), " (",
                             product(in.getShape()), " elements) to ",
                             toString(shape), " (", product(shape), " elements)");
  results.push_back(RankedTensorType::get(shape, in.getElementType()));
  return success();
}

/// Walks input and result dimensions from the major end, splitting the
/// larger of the two current (remaining) sizes by the smaller: each step
/// is a factor of both dimensions. `2x12` to `6x4`: 2 | 6 gives i = 2 (the
/// input's dim 0, the major part of the result's dim 0), 3 | 12 gives
/// j = 3, then k = 4: `([i, (j, k)]) -> ([(i, j), k])`. Size-1 dimensions
/// are units. When the smaller size does not divide the larger (`6x4` to
/// `4x6`), the reshape is no product of factors: the input stays whole.
ShardingRuleAttr ReshapeOp::buildShardingRule() {
  ArrayRef<int64_t> in = getInput().getType().getShape();
  ArrayRef<int64_t> out = getType().getShape();
  if (!getInput().getType().hasStaticShape() || product(in) == 0)
    return withPartialAlike(replicatedOperandsRule(getOperation()), kAnyPartialKind);
  ShardingRuleBuilder b(getOperation());
  SmallVector<Dim> inDims(in.size(), b.unit()), outDims(out.size(), b.unit());
  size_t i = 0, j = 0;
  int64_t ri = 1, ro = 1; // What is left of in[i - 1] and out[j - 1].
  while (true) {
    while (ri == 1 && i < in.size())
      ri = in[i++];
    while (ro == 1 && j < out.size())
      ro = out[j++];
    if (ri == 1 || ro == 1)
      break;
    int64_t size = std::min(ri, ro);
    if (std::max(ri, ro) % size != 0)
      return withPartialAlike(replicatedOperandsRule(getOperation()), kAnyPartialKind);
    int64_t f = b.addFactor(size);
    inDims[i - 1].factors.push_back(f);
    outDims[j - 1].factors.push_back(f);
    ri /= size;
    ro /= size;
  }
  b.setOperand(0, inDims);
  b.setResult(0, outDims);
  return withPartialAlike(b.build(), kAnyPartialKind);
}

//===----------------------------------------------------------------------===//
// transpose
//===----------------------------------------------------------------------===//

LogicalResult TransposeOp::inferReturnTypes(MLIRContext *, OptLoc loc,
                                            Adaptor adaptor, Types &results) {
  auto in = tensorOf(adaptor.getInput());
  ArrayRef<int64_t> perm = adaptor.getPerm();
  int64_t rank = in.getRank();
  SmallVector<bool> seen(rank, false);
  if ((int64_t)perm.size() != rank)
    return emitOptionalError(loc, "transpose permutation ", toString(perm),
                             " must have one entry per dimension of ", toString(in));
  SmallVector<int64_t> shape;
  for (int64_t p : perm) {
    if (p < 0 || p >= rank || seen[p])
      return emitOptionalError(loc, "transpose permutation ", toString(perm),
                               " is not a permutation of 0..", rank - 1);
    seen[p] = true;
    shape.push_back(in.getDimSize(p));
  }
  results.push_back(RankedTensorType::get(shape, in.getElementType()));
  return success();
}

ShardingRuleAttr TransposeOp::buildShardingRule() {
  ArrayRef<int64_t> shape = getInput().getType().getShape();
  ShardingRuleBuilder b(getOperation());
  SmallVector<Dim> in, out;
  for (int64_t d : shape)
    in.push_back(b.dim(b.addFactor(d)));
  for (int64_t p : getPerm())
    out.push_back(in[p]);
  b.setOperand(0, in);
  b.setResult(0, out);
  return withPartialAlike(b.build(), kAnyPartialKind);
}

//===----------------------------------------------------------------------===//
// squeeze / unsqueeze
//===----------------------------------------------------------------------===//

LogicalResult SqueezeOp::inferReturnTypes(MLIRContext *, OptLoc loc,
                                          Adaptor adaptor, Types &results) {
  auto in = tensorOf(adaptor.getInput());
  auto axes = normalizeAxes(loc, adaptor.getAxes(), in.getRank(), "squeeze");
  if (failed(axes))
    return failure();
  SmallVector<int64_t> shape;
  for (int64_t i = 0; i < in.getRank(); ++i) {
    bool listed = llvm::is_contained(*axes, i);
    if (listed && in.getDimSize(i) != 1)
      return emitOptionalError(loc, "cannot squeeze axis ", i, " of ", toString(in),
                               ": its size is not 1");
    if (listed || (axes->empty() && in.getDimSize(i) == 1))
      continue;
    shape.push_back(in.getDimSize(i));
  }
  results.push_back(RankedTensorType::get(shape, in.getElementType()));
  return success();
}

/// Squeeze and unsqueeze: the dims of `full` (the input of a squeeze, the
/// result of an unsqueeze) at its unit axes are units; every other dim is a
/// factor the other side has too, in the same order.
static ShardingRuleAttr unitAxesRule(Operation *op, RankedTensorType full,
                                     function_ref<bool(int64_t)> isUnitAxis,
                                     bool fullIsOperand) {
  ShardingRuleBuilder b(op);
  SmallVector<Dim> fullDims, otherDims;
  for (int64_t i = 0; i < full.getRank(); ++i) {
    if (isUnitAxis(i)) {
      fullDims.push_back(b.unit());
      continue;
    }
    fullDims.push_back(b.dim(b.addFactor(full.getDimSize(i))));
    otherDims.push_back(fullDims.back());
  }
  b.setOperand(0, fullIsOperand ? fullDims : otherDims);
  b.setResult(0, fullIsOperand ? otherDims : fullDims);
  return b.build();
}

// Removed axes are units of the input.
ShardingRuleAttr SqueezeOp::buildShardingRule() {
  auto in = getInput().getType();
  SmallVector<int64_t> axes;
  for (int64_t a : getAxes())
    axes.push_back(*normalizeAxis(a, in.getRank()));
  return withPartialAlike(unitAxesRule(
      getOperation(), in,
      [&](int64_t i) {
        return axes.empty() ? in.getDimSize(i) == 1
                            : llvm::is_contained(axes, i);
      },
      /*fullIsOperand=*/true), kAnyPartialKind);
}

LogicalResult UnsqueezeOp::inferReturnTypes(MLIRContext *, OptLoc loc,
                                            Adaptor adaptor, Types &results) {
  auto in = tensorOf(adaptor.getInput());
  int64_t outRank = in.getRank() + adaptor.getAxes().size();
  auto axes = normalizeAxes(loc, adaptor.getAxes(), outRank, "unsqueeze");
  if (failed(axes))
    return failure();
  SmallVector<int64_t> shape;
  int64_t next = 0;
  for (int64_t i = 0; i < outRank; ++i)
    shape.push_back(llvm::is_contained(*axes, i) ? 1 : in.getDimSize(next++));
  results.push_back(RankedTensorType::get(shape, in.getElementType()));
  return success();
}

// Inserted axes are units of the result.
ShardingRuleAttr UnsqueezeOp::buildShardingRule() {
  auto out = getType();
  SmallVector<int64_t> axes;
  for (int64_t a : getAxes())
    axes.push_back(*normalizeAxis(a, out.getRank()));
  return withPartialAlike(unitAxesRule(
      getOperation(), out,
      [&](int64_t i) { return llvm::is_contained(axes, i); },
      /*fullIsOperand=*/false), kAnyPartialKind);
}

//===----------------------------------------------------------------------===//
// concat / split
//===----------------------------------------------------------------------===//

LogicalResult ConcatOp::inferReturnTypes(MLIRContext *, OptLoc loc,
                                         Adaptor adaptor, Types &results) {
  if (adaptor.getInputs().empty())
    return emitOptionalError(loc, "concat needs at least one input");
  auto first = tensorOf(adaptor.getInputs().front());
  auto axis = normalizeAxis(static_cast<int64_t>(adaptor.getAxis()), first.getRank());
  if (!axis)
    return emitOptionalError(loc, "concat axis ", static_cast<int64_t>(adaptor.getAxis()),
                             " is out of range for ", toString(first));
  SmallVector<int64_t> shape(first.getShape());
  for (Value v : adaptor.getInputs().drop_front()) {
    auto t = tensorOf(v);
    if (t.getRank() != first.getRank() ||
        t.getElementType() != first.getElementType())
      return emitOptionalError(loc, "concat inputs ", toString(first), " and ",
                               toString(t), " differ in rank or element type");
    for (int64_t i = 0; i < t.getRank(); ++i) {
      if (i == *axis) {
        shape[i] = ShapedType::isDynamic(shape[i]) || t.isDynamicDim(i)
                       ? ShapedType::kDynamic
                       : shape[i] + t.getDimSize(i);
      } else if (t.getDimSize(i) != shape[i]) {
        return emitOptionalError(loc, "concat inputs ", toString(first), " and ",
                                 toString(t), " differ in dimension ", i,
                                 ", which is not the concat axis ", *axis);
      }
    }
  }
  results.push_back(RankedTensorType::get(shape, first.getElementType()));
  return success();
}

ShardingRuleAttr ConcatOp::buildShardingRule() {
  return withPartialAlike(keepWholeRule(getOperation(), {static_cast<int64_t>(getAxis())}), kAnyPartialKind);
}

LogicalResult SplitOp::inferReturnTypes(MLIRContext *, OptLoc loc,
                                        Adaptor adaptor, Types &results) {
  auto in = tensorOf(adaptor.getInput());
  auto axis = normalizeAxis(static_cast<int64_t>(adaptor.getAxis()), in.getRank());
  if (!axis)
    return emitOptionalError(loc, "split axis ", static_cast<int64_t>(adaptor.getAxis()),
                             " is out of range for ", toString(in));
  ArrayRef<int64_t> sizes = adaptor.getSizes();
  if (sizes.empty())
    return emitOptionalError(loc, "split needs at least one piece");
  int64_t total = 0;
  for (int64_t s : sizes) {
    if (s < 0)
      return emitOptionalError(loc, "split sizes ", toString(sizes),
                               " must be non-negative");
    total += s;
  }
  if (!in.isDynamicDim(*axis) && total != in.getDimSize(*axis))
    return emitOptionalError(loc, "split sizes ", toString(sizes), " add up to ",
                             total, ", not to dimension ", *axis, " of ",
                             toString(in));
  for (int64_t s : sizes) {
    SmallVector<int64_t> shape(in.getShape());
    shape[*axis] = s;
    results.push_back(RankedTensorType::get(shape, in.getElementType()));
  }
  return success();
}

ShardingRuleAttr SplitOp::buildShardingRule() {
  return withPartialAlike(keepWholeRule(getOperation(), {static_cast<int64_t>(getAxis())}), kAnyPartialKind);
}

//===----------------------------------------------------------------------===//
// slice
//===----------------------------------------------------------------------===//

/// ONNX Slice semantics for one axis: clamps start/end, returns the count.
static int64_t sliceCount(int64_t dim, int64_t start, int64_t end,
                          int64_t step) {
  auto clamp = [](int64_t v, int64_t lo, int64_t hi) {
    return std::max(lo, std::min(v, hi));
  };
  if (dim == 0)
    return 0;
  if (start < 0)
    start += dim;
  if (end < 0)
    end += dim;
  if (step > 0) {
    start = clamp(start, 0, dim);
    end = clamp(end, 0, dim);
    return end > start ? (end - start + step - 1) / step : 0;
  }
  start = clamp(start, 0, dim - 1);
  end = clamp(end, -1, dim - 1);
  return start > end ? (start - end + (-step) - 1) / (-step) : 0;
}

LogicalResult SliceOp::inferReturnTypes(MLIRContext *, OptLoc loc,
                                        Adaptor adaptor, Types &results) {
  auto in = tensorOf(adaptor.getInput());
  ArrayRef<int64_t> starts = adaptor.getStarts(), ends = adaptor.getEnds(),
                    steps = adaptor.getSteps();
  auto axes = normalizeAxes(loc, adaptor.getAxes(), in.getRank(), "slice");
  if (failed(axes))
    return failure();
  if (starts.size() != axes->size() || ends.size() != axes->size() ||
      steps.size() != axes->size())
    return emitOptionalError(loc, "slice needs one start, end and step per "
                                  "axis; got ",
                             axes->size(), " axes, ", starts.size(),
                             " starts, ", ends.size(), " ends, ", steps.size(),
                             " steps");
  SmallVector<int64_t> shape(in.getShape());
  for (auto [i, axis] : llvm::enumerate(*axes)) {
    if (steps[i] == 0)
      return emitOptionalError(loc, "slice step must not be 0");
    if (!in.isDynamicDim(axis))
      shape[axis] = sliceCount(in.getDimSize(axis), starts[i], ends[i], steps[i]);
  }
  results.push_back(RankedTensorType::get(shape, in.getElementType()));
  return success();
}

ShardingRuleAttr SliceOp::buildShardingRule() {
  SmallVector<int64_t> sliced;
  auto in = getInput().getType();
  for (auto [i, axis] : llvm::enumerate(getAxes())) {
    int64_t a = *normalizeAxis(axis, in.getRank());
    // A full-size slice with step 1 is the identity on that axis; any other
    // (shorter, or reversed) slice moves elements across blocks.
    if (getType().getDimSize(a) != in.getDimSize(a) || getSteps()[i] != 1)
      sliced.push_back(a);
  }
  return withPartialAlike(keepWholeRule(getOperation(), sliced), kAnyPartialKind);
}

//===----------------------------------------------------------------------===//
// gather / scatter
//===----------------------------------------------------------------------===//

LogicalResult GatherOp::inferReturnTypes(MLIRContext *, OptLoc loc,
                                         Adaptor adaptor, Types &results) {
  auto data = tensorOf(adaptor.getData());
  auto indices = tensorOf(adaptor.getIndices());
  auto axis = normalizeAxis(static_cast<int64_t>(adaptor.getAxis()), data.getRank());
  if (!axis)
    return emitOptionalError(loc, "gather axis ", static_cast<int64_t>(adaptor.getAxis()),
                             " is out of range for ", toString(data));
  SmallVector<int64_t> shape(data.getShape().take_front(*axis));
  llvm::append_range(shape, indices.getShape());
  llvm::append_range(shape, data.getShape().drop_front(*axis + 1));
  results.push_back(RankedTensorType::get(shape, data.getElementType()));
  return success();
}

// Result = data[:axis] + indices + data[axis+1:]: those dimensions follow
// the result's factors; the gathered axis of the data stays whole.
ShardingRuleAttr GatherOp::buildShardingRule() {
  auto data = getData().getType();
  int64_t axis = *normalizeAxis(getAxis(), data.getRank());
  int64_t q = getIndices().getType().getRank();
  auto out = getType();
  ShardingRuleBuilder b(getOperation());
  SmallVector<Dim> outDims;
  for (int64_t d : out.getShape())
    outDims.push_back(b.dim(b.addFactor(d)));
  SmallVector<Dim> dataDims, indexDims;
  for (int64_t i = 0; i < data.getRank(); ++i) {
    if (i < axis)
      dataDims.push_back(outDims[i]);
    else if (i == axis)
      dataDims.push_back(b.dim(b.addFactor(data.getDimSize(i),
                                           FactorKind::NeedReplication)));
    else
      dataDims.push_back(outDims[i - 1 + q]);
  }
  for (int64_t i = 0; i < q; ++i)
    indexDims.push_back(outDims[axis + i]);
  b.setOperand(0, dataDims);
  b.setOperand(1, indexDims);
  b.setResult(0, outDims);
  return withOnePartial(b.build(), kAnyPartialKind, {0});
}

LogicalResult GatherElementsOp::inferReturnTypes(MLIRContext *, OptLoc loc,
                                                 Adaptor adaptor,
                                                 Types &results) {
  auto data = tensorOf(adaptor.getData());
  auto indices = tensorOf(adaptor.getIndices());
  if (data.getRank() != indices.getRank() || data.getRank() == 0)
    return emitOptionalError(loc, "gather_elements data ", toString(data),
                             " and indices ", toString(indices),
                             " must have the same rank >= 1");
  if (failed(checkAxis(loc, data, static_cast<int64_t>(adaptor.getAxis()))))
    return failure();
  results.push_back(
      RankedTensorType::get(indices.getShape(), data.getElementType()));
  return success();
}

// Indices and result share their factors. A data dimension of the result's
// size other than the axis follows them; the axis, and dimensions where the
// indices are smaller than the data (the blocks would differ), stay whole.
ShardingRuleAttr GatherElementsOp::buildShardingRule() {
  auto data = getData().getType();
  auto out = getType();
  int64_t axis = *normalizeAxis(getAxis(), data.getRank());
  ShardingRuleBuilder b(getOperation());
  SmallVector<Dim> outDims, dataDims;
  for (int64_t i = 0; i < out.getRank(); ++i) {
    outDims.push_back(b.dim(b.addFactor(out.getDimSize(i))));
    if (i != axis && data.getDimSize(i) == out.getDimSize(i))
      dataDims.push_back(outDims.back());
    else
      dataDims.push_back(b.dim(b.addFactor(data.getDimSize(i),
                                           FactorKind::NeedReplication)));
  }
  b.setOperand(0, dataDims);
  b.setOperand(1, outDims);
  b.setResult(0, outDims);
  return withOnePartial(b.build(), kAnyPartialKind, {0});
}

LogicalResult GatherNDOp::inferReturnTypes(MLIRContext *, OptLoc loc,
                                           Adaptor adaptor, Types &results) {
  auto data = tensorOf(adaptor.getData());
  auto indices = tensorOf(adaptor.getIndices());
  int64_t b = static_cast<int64_t>(adaptor.getBatchDims());
  if (indices.getRank() < 1 || b < 0 || b >= std::min(data.getRank(), indices.getRank()) + (b == 0))
    return emitOptionalError(loc, "gather_nd: batch_dims ", b,
                             " is invalid for data ", toString(data),
                             " and indices ", toString(indices));
  int64_t last = indices.getShape().back();
  if (ShapedType::isDynamic(last) || last < 1 || b + last > data.getRank())
    return emitOptionalError(loc, "gather_nd: the last dimension of indices ",
                             toString(indices), " must be between 1 and ",
                             data.getRank() - b);
  for (int64_t i = 0; i < b; ++i)
    if (data.getDimSize(i) != indices.getDimSize(i))
      return emitOptionalError(loc, "gather_nd: batch dimension ", i,
                               " differs between data ", toString(data),
                               " and indices ", toString(indices));
  SmallVector<int64_t> shape(indices.getShape().drop_back());
  llvm::append_range(shape, data.getShape().drop_front(b + last));
  results.push_back(RankedTensorType::get(shape, data.getElementType()));
  return success();
}

ShardingRuleAttr GatherNDOp::buildShardingRule() {
  return withOnePartial(replicatedOperandsRule(getOperation()), kAnyPartialKind, {0});
}

static LogicalResult checkScatterReduction(OptLoc loc, StringRef r) {
  if (r != "none" && r != "add" && r != "mul" && r != "max" && r != "min")
    return emitOptionalError(loc, "scatter reduction '", r,
                             "' is not one of none, add, mul, max, min");
  return success();
}

LogicalResult ScatterElementsOp::inferReturnTypes(MLIRContext *, OptLoc loc,
                                                  Adaptor adaptor,
                                                  Types &results) {
  auto data = tensorOf(adaptor.getData());
  auto indices = tensorOf(adaptor.getIndices());
  auto updates = tensorOf(adaptor.getUpdates());
  if (indices.getShape() != updates.getShape() ||
      data.getRank() != indices.getRank() || data.getRank() == 0)
    return emitOptionalError(loc, "scatter_elements: indices ", toString(indices),
                             " and updates ", toString(updates),
                             " must have the same shape, and the rank of data ",
                             toString(data));
  if (updates.getElementType() != data.getElementType())
    return emitOptionalError(loc, "scatter_elements: updates ", toString(updates),
                             " must have the element type of data ", toString(data));
  if (failed(checkAxis(loc, data, static_cast<int64_t>(adaptor.getAxis()))))
    return failure();
  if (failed(checkScatterReduction(loc, adaptor.getReduction())))
    return failure();
  results.push_back(data);
  return success();
}

ShardingRuleAttr ScatterElementsOp::buildShardingRule() {
  return keepWholeRule(getOperation(),
                       llvm::to_vector(llvm::seq<int64_t>(
                           0, getData().getType().getRank())));
}

LogicalResult ScatterNDOp::inferReturnTypes(MLIRContext *, OptLoc loc,
                                            Adaptor adaptor, Types &results) {
  auto data = tensorOf(adaptor.getData());
  auto indices = tensorOf(adaptor.getIndices());
  auto updates = tensorOf(adaptor.getUpdates());
  if (indices.getRank() < 1)
    return emitOptionalError(loc, "scatter_nd: indices must have rank >= 1");
  int64_t k = indices.getShape().back();
  if (ShapedType::isDynamic(k) || k < 1 || k > data.getRank())
    return emitOptionalError(loc, "scatter_nd: the last dimension of indices ",
                             toString(indices), " must be between 1 and the rank of ",
                             toString(data));
  SmallVector<int64_t> expected(indices.getShape().drop_back());
  llvm::append_range(expected, data.getShape().drop_front(k));
  if (updates.getShape() != ArrayRef<int64_t>(expected) ||
      updates.getElementType() != data.getElementType())
    return emitOptionalError(loc, "scatter_nd: updates ", toString(updates),
                             " must have shape ", toString(expected),
                             " and the element type of data ", toString(data));
  if (failed(checkScatterReduction(loc, adaptor.getReduction())))
    return failure();
  results.push_back(data);
  return success();
}

ShardingRuleAttr ScatterNDOp::buildShardingRule() {
  return replicatedOperandsRule(getOperation());
}

//===----------------------------------------------------------------------===//
// expand / tile / pad
//===----------------------------------------------------------------------===//

LogicalResult ExpandOp::inferReturnTypes(MLIRContext *, OptLoc loc,
                                         Adaptor adaptor, Types &results) {
  auto in = tensorOf(adaptor.getInput());
  auto shape = broadcastShapes(in.getShape(), adaptor.getShape());
  if (!shape || llvm::any_of(adaptor.getShape(), [](int64_t d) { return d < 0; }))
    return emitOptionalError(loc, "cannot expand ", toString(in), " to shape ",
                             toString(adaptor.getShape()));
  results.push_back(RankedTensorType::get(*shape, in.getElementType()));
  return success();
}

ShardingRuleAttr ExpandOp::buildShardingRule() {
  return withPartialAlike(elementwiseRule(getOperation()), kAnyPartialKind);
}

LogicalResult TileOp::inferReturnTypes(MLIRContext *, OptLoc loc,
                                       Adaptor adaptor, Types &results) {
  auto in = tensorOf(adaptor.getInput());
  ArrayRef<int64_t> repeats = adaptor.getRepeats();
  if ((int64_t)repeats.size() != in.getRank() ||
      llvm::any_of(repeats, [](int64_t r) { return r < 0; }))
    return emitOptionalError(loc, "tile needs one non-negative repeat count "
                                  "per dimension of ",
                             toString(in), ", got ", toString(repeats));
  SmallVector<int64_t> shape;
  for (auto [d, r] : llvm::zip(in.getShape(), repeats))
    shape.push_back(ShapedType::isDynamic(d) ? d : d * r);
  results.push_back(RankedTensorType::get(shape, in.getElementType()));
  return success();
}

ShardingRuleAttr TileOp::buildShardingRule() {
  SmallVector<int64_t> tiled;
  for (auto [i, r] : llvm::enumerate(getRepeats()))
    if (r != 1)
      tiled.push_back(i);
  return withPartialAlike(keepWholeRule(getOperation(), tiled), kAnyPartialKind);
}

LogicalResult PadOp::inferReturnTypes(MLIRContext *, OptLoc loc,
                                      Adaptor adaptor, Types &results) {
  auto in = tensorOf(adaptor.getInput());
  ArrayRef<int64_t> pads = adaptor.getPads();
  int64_t rank = in.getRank();
  if ((int64_t)pads.size() != 2 * rank)
    return emitOptionalError(loc, "pad needs ", 2 * rank, " pads for ",
                             toString(in), " (begin pads, then end pads), got ",
                             pads.size());
  SmallVector<int64_t> shape;
  for (int64_t i = 0; i < rank; ++i) {
    int64_t d = in.getDimSize(i);
    if (ShapedType::isDynamic(d)) {
      shape.push_back(d);
      continue;
    }
    int64_t out = d + pads[i] + pads[i + rank];
    if (out < 0)
      return emitOptionalError(loc, "pads ", toString(pads), " crop dimension ", i,
                               " of ", toString(in), " below zero");
    shape.push_back(out);
  }
  results.push_back(RankedTensorType::get(shape, in.getElementType()));
  return success();
}

LogicalResult PadOp::verify() {
  StringRef mode = getMode();
  if (mode != "constant" && mode != "reflect" && mode != "edge" &&
      mode != "wrap")
    return emitOpError("mode '")
           << mode << "' is not one of constant, reflect, edge, wrap";
  return success();
}

ShardingRuleAttr PadOp::buildShardingRule() {
  SmallVector<int64_t> padded;
  int64_t rank = getInput().getType().getRank();
  ArrayRef<int64_t> pads = getPads();
  for (int64_t i = 0; i < rank; ++i)
    if (pads[i] != 0 || pads[i + rank] != 0)
      padded.push_back(i);
  return keepWholeRule(getOperation(), padded);
}

//===----------------------------------------------------------------------===//
// one_hot / top_k
//===----------------------------------------------------------------------===//

LogicalResult OneHotOp::inferReturnTypes(MLIRContext *, OptLoc loc,
                                         Adaptor adaptor, Types &results) {
  auto indices = tensorOf(adaptor.getIndices());
  auto values = tensorOf(adaptor.getValues());
  if (values.getRank() != 1 || values.getDimSize(0) != 2)
    return emitOptionalError(loc, "one_hot values must be a 2-element [off, on] "
                                  "tensor, got ",
                             toString(values));
  if (static_cast<int64_t>(adaptor.getDepth()) < 1)
    return emitOptionalError(loc, "one_hot depth must be positive, got ",
                             static_cast<int64_t>(adaptor.getDepth()));
  auto axis = normalizeAxis(static_cast<int64_t>(adaptor.getAxis()), indices.getRank() + 1);
  if (!axis)
    return emitOptionalError(loc, "one_hot axis ", static_cast<int64_t>(adaptor.getAxis()),
                             " is out of range for ", toString(indices));
  SmallVector<int64_t> shape(indices.getShape());
  shape.insert(shape.begin() + *axis, static_cast<int64_t>(adaptor.getDepth()));
  results.push_back(RankedTensorType::get(shape, values.getElementType()));
  return success();
}

// The indices' factors are the result's; the depth axis stays whole, since
// element j of it is `index == j` and a block would need its global offset;
// the [off, on] values stay whole.
ShardingRuleAttr OneHotOp::buildShardingRule() {
  auto out = getType();
  int64_t axis = *normalizeAxis(getAxis(), out.getRank());
  ShardingRuleBuilder b(getOperation());
  SmallVector<Dim> indexDims, outDims;
  for (int64_t i = 0; i < out.getRank(); ++i) {
    if (i == axis) {
      outDims.push_back(
          b.dim(b.addFactor(out.getDimSize(i), FactorKind::NeedReplication)));
      continue;
    }
    outDims.push_back(b.dim(b.addFactor(out.getDimSize(i))));
    indexDims.push_back(outDims.back());
  }
  b.setOperand(0, indexDims);
  b.setOperand(1, {b.dim(b.addFactor(getValues().getType().getDimSize(0),
                                     FactorKind::NeedReplication))});
  b.setResult(0, outDims);
  return b.build();
}

LogicalResult TopKOp::inferReturnTypes(MLIRContext *ctx, OptLoc loc,
                                       Adaptor adaptor, Types &results) {
  auto in = tensorOf(adaptor.getInput());
  auto axis = normalizeAxis(static_cast<int64_t>(adaptor.getAxis()), in.getRank());
  if (!axis)
    return emitOptionalError(loc, "top_k axis ", static_cast<int64_t>(adaptor.getAxis()),
                             " is out of range for ", toString(in));
  int64_t k = static_cast<int64_t>(adaptor.getK());
  if (k < 0 || (!in.isDynamicDim(*axis) && k > in.getDimSize(*axis)))
    return emitOptionalError(loc, "top_k: k = ", k,
                             " must be between 0 and dimension ", *axis,
                             " of ", toString(in));
  SmallVector<int64_t> shape(in.getShape());
  shape[*axis] = k;
  results.push_back(RankedTensorType::get(shape, in.getElementType()));
  results.push_back(RankedTensorType::get(shape, IntegerType::get(ctx, 64)));
  return success();
}

ShardingRuleAttr TopKOp::buildShardingRule() {
  return keepWholeRule(getOperation(), {static_cast<int64_t>(getAxis())});
}
