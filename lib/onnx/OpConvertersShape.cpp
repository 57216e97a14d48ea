//===- OpConvertersShape.cpp - Reshape, slicing, gather/scatter, pad ------===//
//
// Shape-like inputs (Reshape's shape, Slice's starts, Pad's pads, ...) must
// be constants after folding; they become the telar ops' attributes.
//
//===----------------------------------------------------------------------===//

#include "ImporterInternal.h"

#include "telar/dialects/Telar/TelarOps.h"

using namespace mlir;
using namespace mlir::telar;
using namespace mlir::telar::onnx_import;

namespace {

std::string shapeStr(llvm::ArrayRef<int64_t> s) {
  std::string out = "[";
  for (size_t i = 0; i < s.size(); ++i)
    out += (i ? ", " : "") + std::to_string(s[i]);
  return out + "]";
}

/// Normalises every axis against `rank`; fails naming the bad one.
LogicalResult convertReshape(OpContext &c) {
  Value x = c.required(0, "data");
  if (!x)
    return failure();
  auto target = c.constInts(1, "shape");
  if (failed(target))
    return failure();
  bool allowZero = c.opset >= 14 && c.getInt("allowzero", 0) != 0;
  llvm::ArrayRef<int64_t> in = shapeOf(x);
  llvm::SmallVector<int64_t> shape(*target);
  int64_t inferred = -1, known = 1, total = tensorType(x).getNumElements();
  for (size_t i = 0; i < shape.size(); ++i) {
    if (shape[i] == 0 && !allowZero) {
      if (i >= in.size())
        return c.fail("shape " + shapeStr(*target) + " copies dim " +
                      llvm::Twine(i) + " (0) but the input has rank " +
                      llvm::Twine(in.size()));
      shape[i] = in[i];
    }
    if (shape[i] == -1) {
      if (inferred >= 0)
        return c.fail("shape " + shapeStr(*target) + " has more than one -1");
      inferred = i;
      continue;
    }
    if (shape[i] < 0)
      return c.fail("shape " + shapeStr(*target) + " has a negative dim");
    known *= shape[i];
  }
  if (inferred >= 0) {
    if (known == 0 || total % known != 0)
      return c.fail("cannot reshape " + shapeStr(in) + " to " +
                    shapeStr(*target));
    shape[inferred] = total / known;
  } else if (known != total) {
    return c.fail("cannot reshape " + shapeStr(in) + " (" +
                  llvm::Twine(total) + " elements) to " + shapeStr(*target) +
                  " (" + llvm::Twine(known) + " elements)");
  }
  return c.done(c.create<ReshapeOp>({x}, {c.i64s("shape", shape)}));
}

LogicalResult convertFlatten(OpContext &c) {
  Value x = c.required(0, "input");
  if (!x)
    return failure();
  int64_t rank = rankOf(x), axis = c.getInt("axis", 1);
  if (axis < -rank || axis > rank)
    return c.fail("axis " + llvm::Twine(axis) + " is out of range for rank " +
                  llvm::Twine(rank));
  if (axis < 0)
    axis += rank;
  int64_t outer = 1, inner = 1;
  for (int64_t i = 0; i < rank; ++i)
    (i < axis ? outer : inner) *= shapeOf(x)[i];
  return c.done(c.create<ReshapeOp>({x}, {c.i64s("shape", {outer, inner})}));
}

LogicalResult convertTranspose(OpContext &c) {
  Value x = c.required(0, "data");
  if (!x)
    return failure();
  llvm::SmallVector<int64_t> perm = c.getInts("perm");
  if (!c.hasAttr("perm"))
    for (int64_t i = rankOf(x) - 1; i >= 0; --i)
      perm.push_back(i);
  return c.done(c.create<TransposeOp>({x}, {c.i64s("perm", perm)}));
}

LogicalResult convertSqueeze(OpContext &c) {
  Value x = c.required(0, "data");
  if (!x)
    return failure();
  llvm::SmallVector<int64_t> axes;
  if (c.opset >= 13) {
    auto given = c.optConstInts(1, "axes");
    if (failed(given))
      return failure();
    if (*given)
      axes = **given;
  } else {
    axes = c.getInts("axes");
  }
  if (failed(c.normalizeAxes(axes, rankOf(x))))
    return failure();
  return c.done(c.create<SqueezeOp>({x}, {c.i64s("axes", axes)}));
}

LogicalResult convertUnsqueeze(OpContext &c) {
  Value x = c.required(0, "data");
  if (!x)
    return failure();
  llvm::SmallVector<int64_t> axes;
  if (c.opset >= 13) {
    auto given = c.constInts(1, "axes");
    if (failed(given))
      return failure();
    axes = *given;
  } else {
    axes = c.getInts("axes");
  }
  if (failed(c.normalizeAxes(axes, rankOf(x) + axes.size())))
    return failure();
  llvm::sort(axes);
  return c.done(c.create<UnsqueezeOp>({x}, {c.i64s("axes", axes)}));
}

LogicalResult convertConcat(OpContext &c) {
  llvm::SmallVector<Value> operands;
  for (unsigned i = 0; i < c.numInputs(); ++i)
    if (Value v = c.in(i))
      operands.push_back(v);
  if (operands.empty())
    return c.fail("needs at least one input");
  if (!c.hasAttr("axis"))
    return c.fail("missing attribute 'axis'");
  return c.done(c.create<ConcatOp>(operands, {c.i64("axis", c.getInt("axis", 0))}));
}

LogicalResult convertSplit(OpContext &c) {
  Value x = c.required(0, "input");
  if (!x)
    return failure();
  int64_t rank = rankOf(x), axis = c.getInt("axis", 0);
  auto n = normalizeAxis(axis, rank);
  if (!n)
    return c.fail("axis " + llvm::Twine(axis) + " is out of range for rank " +
                  llvm::Twine(rank));
  int64_t dim = shapeOf(x)[*n];
  llvm::SmallVector<int64_t> sizes;
  if (c.opset >= 13) {
    auto given = c.optConstInts(1, "split");
    if (failed(given))
      return failure();
    if (*given)
      sizes = **given;
  } else {
    sizes = c.getInts("split");
  }
  int64_t outputs = c.node.output_size();
  if (sizes.empty()) {
    bool hasNum = c.opset >= 18 && c.hasAttr("num_outputs");
    int64_t parts = hasNum ? c.getInt("num_outputs", outputs) : outputs;
    if (parts <= 0)
      return c.fail("cannot split into " + llvm::Twine(parts) + " parts");
    if (dim % parts != 0 && !hasNum)
      return c.fail("cannot split dim " + llvm::Twine(dim) + " into " +
                    llvm::Twine(parts) + " equal parts");
    int64_t chunk = (dim + parts - 1) / parts;
    for (int64_t i = 0, left = dim; i < parts; ++i) {
      sizes.push_back(std::min(chunk, left));
      left -= sizes.back();
    }
  }
  if ((int64_t)sizes.size() != outputs)
    return c.fail("split sizes " + shapeStr(sizes) + " give " +
                  llvm::Twine(sizes.size()) + " parts but the node has " +
                  llvm::Twine(outputs) + " outputs");
  auto results = c.createMulti<SplitOp>(
      {x}, {c.i64("axis", *n), c.i64s("sizes", sizes)});
  if (results.size() != (size_t)outputs)
    return failure();
  for (int64_t i = 0; i < outputs; ++i)
    c.results[i] = results[i];
  return success();
}

LogicalResult convertSlice(OpContext &c) {
  Value x = c.required(0, "data");
  if (!x)
    return failure();
  int64_t rank = rankOf(x);
  llvm::SmallVector<int64_t> starts, ends, axes, steps;
  if (c.opset < 10) {
    starts = c.getInts("starts");
    ends = c.getInts("ends");
    axes = c.getInts("axes");
  } else {
    auto s = c.constInts(1, "starts");
    auto e = succeeded(s) ? c.constInts(2, "ends") : FailureOr<llvm::SmallVector<int64_t>>(failure());
    if (failed(e))
      return failure();
    starts = *s;
    ends = *e;
    auto a = c.optConstInts(3, "axes");
    auto st = succeeded(a) ? c.optConstInts(4, "steps")
                           : FailureOr<std::optional<llvm::SmallVector<int64_t>>>(failure());
    if (failed(st))
      return failure();
    if (*a)
      axes = **a;
    if (*st)
      steps = **st;
  }
  if (axes.empty())
    for (size_t i = 0; i < starts.size(); ++i)
      axes.push_back(i);
  if (steps.empty())
    steps.assign(starts.size(), 1);
  if (ends.size() != starts.size() || axes.size() != starts.size() ||
      steps.size() != starts.size())
    return c.fail("starts, ends, axes and steps must have the same length");
  for (int64_t s : steps)
    if (s == 0)
      return c.fail("steps must be nonzero");
  if (failed(c.normalizeAxes(axes, rank)))
    return failure();
  return c.done(c.create<SliceOp>(
      {x}, {c.i64s("axes", axes), c.i64s("starts", starts),
            c.i64s("ends", ends), c.i64s("steps", steps)}));
}

/// Casts integer indices to i64 (gather_nd/scatter_nd want i64).
Value toI64(OpContext &c, Value v) {
  if (elementTypeOf(v).isInteger(64) && !elementTypeOf(v).isUnsignedInteger())
    return v;
  return c.create<CastOp>({v}, {c.named("to", TypeAttr::get(c.b.getI64Type()))});
}

LogicalResult convertGather(OpContext &c) {
  Value d = c.required(0, "data"), i = d ? c.required(1, "indices") : Value();
  if (!i)
    return failure();
  return c.done(c.create<GatherOp>({d, i}, {c.i64("axis", c.getInt("axis", 0))}));
}

LogicalResult convertGatherElements(OpContext &c) {
  Value d = c.required(0, "data"), i = d ? c.required(1, "indices") : Value();
  if (!i)
    return failure();
  return c.done(
      c.create<GatherElementsOp>({d, i}, {c.i64("axis", c.getInt("axis", 0))}));
}

LogicalResult convertGatherND(OpContext &c) {
  Value d = c.required(0, "data"), i = d ? c.required(1, "indices") : Value();
  if (!i || !(i = toI64(c, i)))
    return failure();
  return c.done(c.create<GatherNDOp>(
      {d, i}, {c.i64("batch_dims", c.getInt("batch_dims", 0))}));
}

LogicalResult convertScatterElements(OpContext &c) {
  Value d = c.required(0, "data"), i = d ? c.required(1, "indices") : Value();
  Value u = i ? c.required(2, "updates") : Value();
  if (!u)
    return failure();
  return c.done(c.create<ScatterElementsOp>(
      {d, i, u}, {c.i64("axis", c.getInt("axis", 0)),
                  c.str("reduction", c.getString("reduction", "none"))}));
}

LogicalResult convertScatterND(OpContext &c) {
  Value d = c.required(0, "data"), i = d ? c.required(1, "indices") : Value();
  Value u = i ? c.required(2, "updates") : Value();
  if (!u || !(i = toI64(c, i)))
    return failure();
  return c.done(c.create<ScatterNDOp>(
      {d, i, u}, {c.str("reduction", c.getString("reduction", "none"))}));
}

LogicalResult convertExpand(OpContext &c) {
  Value x = c.required(0, "input");
  if (!x)
    return failure();
  auto shape = c.constInts(1, "shape");
  if (failed(shape))
    return failure();
  return c.done(c.create<ExpandOp>({x}, {c.i64s("shape", *shape)}));
}

LogicalResult convertTile(OpContext &c) {
  Value x = c.required(0, "input");
  if (!x)
    return failure();
  auto repeats = c.constInts(1, "repeats");
  if (failed(repeats))
    return failure();
  return c.done(c.create<TileOp>({x}, {c.i64s("repeats", *repeats)}));
}

LogicalResult convertPad(OpContext &c) {
  Value x = c.required(0, "data");
  if (!x)
    return failure();
  int64_t rank = rankOf(x);
  llvm::SmallVector<int64_t> pads;
  double value = 0.0;
  if (c.opset < 11) {
    pads = c.getInts("pads");
    value = c.getFloat("value", 0.0);
  } else {
    auto p = c.constInts(1, "pads");
    if (failed(p))
      return failure();
    pads = *p;
    if (c.has(2)) {
      auto v = c.constFloats(2, "constant_value");
      if (failed(v))
        return failure();
      if (v->size() > 1)
        return c.fail("input 'constant_value' must be a scalar");
      if (!v->empty())
        value = (*v)[0];
    }
    auto axes = c.optConstInts(3, "axes");
    if (failed(axes))
      return failure();
    if (*axes) {
      llvm::SmallVector<int64_t> ax = **axes;
      if (failed(c.normalizeAxes(ax, rank)))
        return failure();
      if (pads.size() != 2 * ax.size())
        return c.fail("pads has " + llvm::Twine(pads.size()) +
                      " values but axes lists " + llvm::Twine(ax.size()) +
                      " axes");
      llvm::SmallVector<int64_t> full(2 * rank, 0);
      for (size_t j = 0; j < ax.size(); ++j) {
        full[ax[j]] = pads[j];
        full[ax[j] + rank] = pads[j + ax.size()];
      }
      pads = full;
    }
  }
  if ((int64_t)pads.size() != 2 * rank)
    return c.fail("pads has " + llvm::Twine(pads.size()) +
                  " values, expected " + llvm::Twine(2 * rank));
  return c.done(c.create<PadOp>(
      {x}, {c.i64s("pads", pads), c.str("mode", c.getString("mode", "constant")),
            c.f64("value", value)}));
}

LogicalResult convertDepthToSpace(OpContext &c) {
  Value x = c.required(0, "input");
  if (!x)
    return failure();
  return c.done(c.create<DepthToSpaceOp>(
      {x}, {c.i64("blocksize", c.getInt("blocksize", 1)),
            c.str("mode", c.getString("mode", "DCR"))}));
}

LogicalResult convertSpaceToDepth(OpContext &c) {
  Value x = c.required(0, "input");
  if (!x)
    return failure();
  return c.done(c.create<SpaceToDepthOp>(
      {x}, {c.i64("blocksize", c.getInt("blocksize", 1))}));
}

} // namespace

void mlir::telar::onnx_import::registerShapeConverters(ConverterTable &t) {
  t["Reshape"] = {convertReshape};
  t["Flatten"] = {convertFlatten};
  t["Transpose"] = {convertTranspose};
  t["Squeeze"] = {convertSqueeze};
  t["Unsqueeze"] = {convertUnsqueeze};
  t["Concat"] = {convertConcat};
  t["Split"] = {convertSplit};
  t["Slice"] = {convertSlice};
  t["Gather"] = {convertGather};
  t["GatherElements"] = {convertGatherElements};
  t["GatherND"] = {convertGatherND};
  t["ScatterElements"] = {convertScatterElements};
  t["Scatter"] = {convertScatterElements};
  t["ScatterND"] = {convertScatterND};
  t["Expand"] = {convertExpand};
  t["Tile"] = {convertTile};
  t["Pad"] = {convertPad};
  t["DepthToSpace"] = {convertDepthToSpace};
  t["SpaceToDepth"] = {convertSpaceToDepth};
}
