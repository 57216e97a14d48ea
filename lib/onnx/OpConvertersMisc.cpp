//===- OpConvertersMisc.cpp - Constants, shape queries, TopK, Resize, ... -===//
//
// Shape, Size, ConstantOfShape, Range and EyeLike are computed here and
// become telar.constant (static shapes make them compile-time values).
//
//===----------------------------------------------------------------------===//

#include "ImporterInternal.h"

#include "telar/dialects/Telar/TelarOps.h"

#include <cmath>
#include <cstring>

using namespace mlir;
using namespace mlir::telar;
using namespace mlir::telar::onnx_import;

namespace {

/// Little-endian bytes of `values` converted to `et`.
std::vector<char> rawFromDoubles(Type et, llvm::ArrayRef<double> values) {
  unsigned bits = et.getIntOrFloatBitWidth();
  unsigned width = bits < 8 ? 1 : bits / 8; // bool, 4-bit: one byte
  std::vector<char> raw(values.size() * width);
  for (size_t i = 0; i < values.size(); ++i) {
    uint64_t word;
    if (auto ft = llvm::dyn_cast<FloatType>(et)) {
      llvm::APFloat f(values[i]);
      bool lost;
      f.convert(ft.getFloatSemantics(), llvm::APFloat::rmNearestTiesToEven,
                &lost);
      word = f.bitcastToAPInt().getZExtValue();
    } else if (bits == 1) {
      word = values[i] != 0.0;
    } else {
      word = static_cast<uint64_t>(static_cast<int64_t>(values[i]));
    }
    std::memcpy(raw.data() + i * width, &word, width);
  }
  return raw;
}

Value constantOf(OpContext &c, RankedTensorType type,
                 llvm::ArrayRef<double> values) {
  std::vector<char> raw = rawFromDoubles(type.getElementType(), values);
  ElementsAttr attr = makeElements(type, raw, c.node.output_size() ? c.node.output(0) : "");
  return c.create<ConstantOp>({}, {c.named("value", attr)});
}

LogicalResult convertShape(OpContext &c) {
  Value x = c.required(0, "data");
  if (!x)
    return failure();
  int64_t rank = rankOf(x);
  int64_t start = c.getInt("start", 0), end = c.getInt("end", rank);
  auto clampIdx = [&](int64_t v) {
    if (v < 0)
      v += rank;
    return std::clamp<int64_t>(v, 0, rank);
  };
  start = clampIdx(start);
  end = clampIdx(end);
  llvm::SmallVector<int64_t> dims;
  for (int64_t i = start; i < end; ++i)
    dims.push_back(shapeOf(x)[i]);
  return c.done(c.constI64(dims));
}

LogicalResult convertSize(OpContext &c) {
  Value x = c.required(0, "data");
  if (!x)
    return failure();
  auto type = RankedTensorType::get({}, c.b.getI64Type());
  return c.done(c.constant(
      DenseElementsAttr::get(type, tensorType(x).getNumElements())));
}

LogicalResult convertConstantOfShape(OpContext &c) {
  auto shape = c.constInts(0, "input");
  if (failed(shape))
    return failure();
  for (int64_t d : *shape)
    if (d < 0)
      return c.fail("input shape has a negative dim " + llvm::Twine(d));
  DenseElementsAttr fill;
  if (const auto *a = c.attr("value")) {
    ElementsAttr v = c.tensors.convert(a->t(), c.loc);
    if (!v)
      return failure();
    auto dense = llvm::dyn_cast<DenseElementsAttr>(v);
    if (!dense || dense.getNumElements() != 1)
      return c.fail("attribute 'value' must hold exactly one element");
    fill = dense;
  } else {
    fill = DenseElementsAttr::get(RankedTensorType::get({1}, c.b.getF32Type()),
                                  0.0f);
  }
  auto type = RankedTensorType::get(*shape, fill.getElementType());
  return c.done(c.constant(
      DenseElementsAttr::get(type, *fill.getValues<Attribute>().begin())));
}

LogicalResult convertRange(OpContext &c) {
  Value start = c.required(0, "start");
  if (!start)
    return failure();
  Type et = elementTypeOf(start);
  auto s = c.constFloats(0, "start");
  auto l = succeeded(s) ? c.constFloats(1, "limit") : FailureOr<llvm::SmallVector<double>>(failure());
  auto d = succeeded(l) ? c.constFloats(2, "delta") : FailureOr<llvm::SmallVector<double>>(failure());
  if (failed(d))
    return failure();
  if (s->size() != 1 || l->size() != 1 || d->size() != 1)
    return c.fail("start, limit and delta must be scalars");
  double st = (*s)[0], lim = (*l)[0], delta = (*d)[0];
  if (delta == 0)
    return c.fail("delta must be nonzero");
  double count = std::max(std::ceil((lim - st) / delta), 0.0);
  if (count > (1 << 26))
    return c.fail("range of " + llvm::Twine(static_cast<int64_t>(count)) +
                  " elements is too large");
  llvm::SmallVector<double> values;
  for (int64_t i = 0; i < static_cast<int64_t>(count); ++i)
    values.push_back(st + i * delta);
  auto type = RankedTensorType::get({static_cast<int64_t>(count)}, et);
  return c.done(constantOf(c, type, values));
}

LogicalResult convertEyeLike(OpContext &c) {
  Value x = c.required(0, "input");
  if (!x)
    return failure();
  if (rankOf(x) != 2)
    return c.fail("input must be 2-D, got rank " + llvm::Twine(rankOf(x)));
  Type et = elementTypeOf(x);
  if (c.hasAttr("dtype")) {
    et = onnxElementType(c.getContext(), c.getInt("dtype", 1));
    if (!et)
      return c.fail("unsupported element type (ONNX data type " +
                    llvm::Twine(c.getInt("dtype", 1)) + ") in attribute 'dtype'");
  }
  int64_t rows = shapeOf(x)[0], cols = shapeOf(x)[1], k = c.getInt("k", 0);
  llvm::SmallVector<double> values(rows * cols, 0.0);
  for (int64_t i = 0; i < rows; ++i)
    if (i + k >= 0 && i + k < cols)
      values[i * cols + i + k] = 1.0;
  return c.done(constantOf(c, RankedTensorType::get({rows, cols}, et), values));
}

LogicalResult convertConstant(OpContext &c) {
  if (c.node.attribute_size() != 1)
    return c.fail("expects exactly one attribute, got " +
                  llvm::Twine(c.node.attribute_size()));
  const auto &a = c.node.attribute(0);
  const std::string &name = a.name();
  ElementsAttr value;
  if (name == "value") {
    value = c.tensors.convert(a.t(), c.loc);
    if (!value)
      return failure();
  } else if (name == "value_float") {
    value = DenseElementsAttr::get(RankedTensorType::get({}, c.b.getF32Type()),
                                   a.f());
  } else if (name == "value_int") {
    value = DenseElementsAttr::get(RankedTensorType::get({}, c.b.getI64Type()),
                                   static_cast<int64_t>(a.i()));
  } else if (name == "value_floats") {
    llvm::SmallVector<double> fs(a.floats().begin(), a.floats().end());
    value = llvm::cast<ElementsAttr>(
        makeElements(RankedTensorType::get({(int64_t)fs.size()}, c.b.getF32Type()),
                     [&] {
                       std::vector<char> r;
                       for (float f : a.floats()) {
                         char b[4];
                         std::memcpy(b, &f, 4);
                         r.insert(r.end(), b, b + 4);
                       }
                       return r;
                     }(),
                     c.node.output(0)));
  } else if (name == "value_ints") {
    std::vector<char> r;
    for (int64_t v : a.ints()) {
      char b[8];
      std::memcpy(b, &v, 8);
      r.insert(r.end(), b, b + 8);
    }
    value = makeElements(
        RankedTensorType::get({(int64_t)a.ints_size()}, c.b.getI64Type()), r,
        c.node.output(0));
  } else if (name == "value_string" || name == "value_strings") {
    return c.fail("unsupported element type string");
  } else if (name == "sparse_value") {
    return c.fail("sparse tensors are not supported");
  } else {
    return c.fail("unknown attribute '" + name + "'");
  }
  return c.done(c.create<ConstantOp>({}, {c.named("value", value)}));
}

LogicalResult convertOneHot(OpContext &c) {
  Value idx = c.required(0, "indices"), values = idx ? c.required(2, "values") : Value();
  if (!values)
    return failure();
  auto depth = c.constFloats(1, "depth");
  if (failed(depth))
    return failure();
  if (depth->size() != 1)
    return c.fail("input 'depth' must be a scalar");
  if (!llvm::isa<IntegerType>(elementTypeOf(idx)))
    idx = c.create<CastOp>({idx}, {c.named("to", TypeAttr::get(c.b.getI64Type()))});
  if (!idx)
    return failure();
  return c.done(c.create<OneHotOp>(
      {idx, values}, {c.i64("depth", static_cast<int64_t>((*depth)[0])),
                      c.i64("axis", c.getInt("axis", -1))}));
}

LogicalResult convertTopK(OpContext &c) {
  Value x = c.required(0, "X");
  if (!x)
    return failure();
  int64_t k;
  if (c.opset >= 10) {
    auto kv = c.constInts(1, "K");
    if (failed(kv))
      return failure();
    if (kv->size() != 1)
      return c.fail("input 'K' must hold one value");
    k = (*kv)[0];
  } else {
    k = c.getInt("k", 1);
  }
  auto results = c.createMulti<TopKOp>(
      {x}, {c.i64("k", k), c.i64("axis", c.getInt("axis", -1)),
            c.boolean("largest", c.getInt("largest", 1) != 0),
            c.boolean("sorted", c.getInt("sorted", 1) != 0)});
  if (results.size() != 2)
    return failure();
  c.results[0] = results[0];
  if (c.results.size() > 1)
    c.results[1] = results[1];
  return success();
}

LogicalResult convertCumSum(OpContext &c) {
  Value x = c.required(0, "x");
  if (!x)
    return failure();
  auto axis = c.constInts(1, "axis");
  if (failed(axis))
    return failure();
  if (axis->size() != 1)
    return c.fail("input 'axis' must be a scalar");
  return c.done(c.create<CumSumOp>(
      {x}, {c.i64("axis", (*axis)[0]),
            c.boolean("exclusive", c.getInt("exclusive", 0) != 0),
            c.boolean("reverse", c.getInt("reverse", 0) != 0)}));
}

LogicalResult convertTrilu(OpContext &c) {
  Value x = c.required(0, "input");
  if (!x)
    return failure();
  int64_t k = 0;
  auto kv = c.optConstInts(1, "k");
  if (failed(kv))
    return failure();
  if (*kv) {
    if ((*kv)->size() != 1)
      return c.fail("input 'k' must be a scalar");
    k = (**kv)[0];
  }
  return c.done(c.create<TriluOp>(
      {x}, {c.boolean("upper", c.getInt("upper", 1) != 0), c.i64("k", k)}));
}

/// Builds telar.resize from per-axis scales or sizes.
LogicalResult buildResize(OpContext &c, Value x,
                          std::optional<llvm::SmallVector<double>> scales,
                          std::optional<llvm::SmallVector<int64_t>> sizes,
                          llvm::SmallVector<int64_t> axes,
                          llvm::ArrayRef<NamedAttribute> extra) {
  int64_t rank = rankOf(x);
  llvm::ArrayRef<int64_t> in = shapeOf(x);
  if (axes.empty())
    for (int64_t i = 0; i < rank; ++i)
      axes.push_back(i);
  if (failed(c.normalizeAxes(axes, rank)))
    return failure();
  llvm::SmallVector<float> fullScales(rank, 1.0f);
  llvm::SmallVector<int64_t> fullSizes(in.begin(), in.end());
  if (sizes) {
    if (sizes->size() != axes.size())
      return c.fail("sizes has " + llvm::Twine(sizes->size()) +
                    " values, expected " + llvm::Twine(axes.size()));
    std::string policy = c.getString("keep_aspect_ratio_policy", "stretch");
    if (policy != "stretch") {
      double scale = policy == "not_larger" ? 1e300 : 0.0;
      for (size_t j = 0; j < axes.size(); ++j) {
        double s = in[axes[j]] ? double((*sizes)[j]) / in[axes[j]] : 1.0;
        scale = policy == "not_larger" ? std::min(scale, s) : std::max(scale, s);
      }
      for (size_t j = 0; j < axes.size(); ++j) {
        fullScales[axes[j]] = static_cast<float>(scale);
        fullSizes[axes[j]] =
            static_cast<int64_t>(std::floor(scale * in[axes[j]] + 0.5));
      }
    } else {
      for (size_t j = 0; j < axes.size(); ++j) {
        fullSizes[axes[j]] = (*sizes)[j];
        fullScales[axes[j]] =
            in[axes[j]] ? static_cast<float>((*sizes)[j]) / in[axes[j]] : 1.0f;
      }
    }
  } else if (scales) {
    if (scales->size() != axes.size())
      return c.fail("scales has " + llvm::Twine(scales->size()) +
                    " values, expected " + llvm::Twine(axes.size()));
    for (size_t j = 0; j < axes.size(); ++j) {
      float s = static_cast<float>((*scales)[j]);
      if (!(s > 0))
        return c.fail("scales must be positive");
      fullScales[axes[j]] = s;
      fullSizes[axes[j]] =
          static_cast<int64_t>(std::floor(double(in[axes[j]]) * double(s)));
    }
  } else {
    return c.fail("one of 'scales' and 'sizes' must be given");
  }
  llvm::SmallVector<NamedAttribute> attrs(extra.begin(), extra.end());
  attrs.push_back(c.f32s("scales", fullScales));
  attrs.push_back(c.i64s("sizes", fullSizes));
  return c.done(c.create<ResizeOp>({x}, attrs));
}

LogicalResult convertResize(OpContext &c) {
  Value x = c.required(0, "X");
  if (!x)
    return failure();
  if (c.getInt("antialias", 0) != 0)
    return c.fail("antialias is not supported");
  std::string ctm = c.getString("coordinate_transformation_mode", "half_pixel");
  if (ctm == "tf_crop_and_resize")
    return c.fail("coordinate_transformation_mode 'tf_crop_and_resize' (roi) "
                  "is not supported");
  std::optional<llvm::SmallVector<double>> scales;
  std::optional<llvm::SmallVector<int64_t>> sizes;
  if (c.has(3)) {
    auto s = c.constInts(3, "sizes");
    if (failed(s))
      return failure();
    if (!s->empty())
      sizes = *s;
  }
  if (!sizes && c.has(2)) {
    auto s = c.constFloats(2, "scales");
    if (failed(s))
      return failure();
    if (!s->empty())
      scales = *s;
  }
  llvm::SmallVector<NamedAttribute> extra{
      c.str("mode", c.getString("mode", "nearest")),
      c.str("coordinate_transformation_mode", ctm),
      c.str("nearest_mode", c.getString("nearest_mode", "round_prefer_floor")),
      c.f32("cubic_coeff_a", c.getFloat("cubic_coeff_a", -0.75)),
      c.boolean("exclude_outside", c.getInt("exclude_outside", 0) != 0),
      c.f32("extrapolation_value", c.getFloat("extrapolation_value", 0.0))};
  return buildResize(c, x, scales, sizes, c.getInts("axes"), extra);
}

LogicalResult convertUpsample(OpContext &c) {
  Value x = c.required(0, "X");
  if (!x)
    return failure();
  std::optional<llvm::SmallVector<double>> scales;
  if (c.has(1)) {
    auto s = c.constFloats(1, "scales");
    if (failed(s))
      return failure();
    scales = *s;
  } else {
    scales = c.getFloats("scales");
  }
  std::string mode = c.getString("mode", "nearest");
  llvm::SmallVector<NamedAttribute> extra{
      c.str("mode", mode == "bilinear" ? "linear" : mode),
      c.str("coordinate_transformation_mode", "asymmetric"),
      c.str("nearest_mode", "floor")};
  return buildResize(c, x, scales, std::nullopt, {}, extra);
}

LogicalResult convertRotaryEmbedding(OpContext &c) {
  Value x = c.required(0, "X"), cosC = x ? c.required(1, "cos_cache") : Value();
  Value sinC = cosC ? c.required(2, "sin_cache") : Value();
  if (!sinC)
    return failure();
  llvm::SmallVector<Value> operands{x, cosC, sinC};
  if (c.has(3))
    operands.push_back(c.in(3));
  return c.done(c.create<RotaryEmbeddingOp>(
      operands,
      {c.boolean("interleaved", c.getInt("interleaved", 0) != 0),
       c.i64("rotary_embedding_dim", c.getInt("rotary_embedding_dim", 0)),
       c.i64("num_heads", c.getInt("num_heads", 0))}));
}

} // namespace

void mlir::telar::onnx_import::registerMiscConverters(ConverterTable &t) {
  t["Shape"] = {convertShape};
  t["Size"] = {convertSize};
  t["ConstantOfShape"] = {convertConstantOfShape};
  t["Range"] = {convertRange};
  t["EyeLike"] = {convertEyeLike};
  t["Constant"] = {convertConstant};
  t["OneHot"] = {convertOneHot};
  t["TopK"] = {convertTopK};
  t["CumSum"] = {convertCumSum};
  t["Trilu"] = {convertTrilu, 14};
  t["Resize"] = {convertResize};
  t["Upsample"] = {convertUpsample};
  t["RotaryEmbedding"] = {convertRotaryEmbedding, 23};
}
