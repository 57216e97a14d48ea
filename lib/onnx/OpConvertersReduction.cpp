//===- OpConvertersReduction.cpp - Reductions, softmax, normalisation -----===//

#include "ImporterInternal.h"

#include "telar/dialects/Telar/TelarOps.h"

using namespace mlir;
using namespace mlir::telar;
using namespace mlir::telar::onnx_import;

namespace {

/// The opset from which the op takes `axes` as an input.
template <typename OpTy, int AxesInputOpset>
LogicalResult convertReduce(OpContext &c) {
  Value x = c.required(0, "data");
  if (!x)
    return failure();
  llvm::SmallVector<int64_t> axes;
  bool noop = false;
  if (c.opset >= AxesInputOpset) {
    auto given = c.optConstInts(1, "axes");
    if (failed(given))
      return failure();
    if (*given)
      axes = **given;
    noop = c.getInt("noop_with_empty_axes", 0) != 0;
  } else {
    axes = c.getInts("axes");
  }
  if (axes.empty() && noop)
    return c.done(x);
  int64_t rank = rankOf(x);
  if (failed(c.normalizeAxes(axes, rank)))
    return failure();
  return c.done(c.create<OpTy>(
      {x}, {c.i64s("axes", axes), c.boolean("keepdims", c.getInt("keepdims", 1) != 0)}));
}

template <typename OpTy>
LogicalResult convertArgReduce(OpContext &c) {
  Value x = c.required(0, "data");
  if (!x)
    return failure();
  return c.done(c.create<OpTy>(
      {x}, {c.i64("axis", c.getInt("axis", 0)),
            c.boolean("keepdims", c.getInt("keepdims", 1) != 0),
            c.boolean("select_last_index", c.getInt("select_last_index", 0) != 0)}));
}

/// Softmax, LogSoftmax, Hardmax. Before opset 13 the input is coerced to 2-D
/// at `axis` and the op runs over the flattened trailing part.
template <typename OpTy>
LogicalResult convertSoftmaxLike(OpContext &c) {
  Value x = c.required(0, "input");
  if (!x)
    return failure();
  int64_t rank = rankOf(x);
  if (c.opset >= 13)
    return c.done(c.create<OpTy>({x}, {c.i64("axis", c.getInt("axis", -1))}));
  int64_t axis = c.getInt("axis", 1);
  auto n = rank == 0 ? std::optional<int64_t>(0) : normalizeAxis(axis, rank);
  if (!n)
    return c.fail("axis " + llvm::Twine(axis) + " is out of range for rank " +
                  llvm::Twine(rank));
  if (rank > 0 && *n == rank - 1)
    return c.done(c.create<OpTy>({x}, {c.i64("axis", -1)}));
  llvm::ArrayRef<int64_t> shape = shapeOf(x);
  int64_t outer = 1, inner = 1;
  for (int64_t i = 0; i < rank; ++i)
    (i < *n ? outer : inner) *= shape[i];
  Value flat = c.create<ReshapeOp>({x}, {c.i64s("shape", {outer, inner})});
  Value y = flat ? c.create<OpTy>({flat}, {c.i64("axis", 1)}) : Value();
  return c.done(y ? c.create<ReshapeOp>({y}, {c.i64s("shape", shape)}) : Value());
}

/// The negative log-likelihood of `logProb` ([N, C, d...]) at the classes
/// `target` ([N, d...]), weighted per class by `weight` ([C], optional),
/// positions whose target is `ignore_index` left out, then reduced as
/// `reduction` says (mean divides by the weights taken): ONNX's
/// NegativeLogLikelihoodLoss, written with gather_elements and where so
/// that it needs no op of its own (and its gradient comes from theirs).
Value buildNllLoss(OpContext &c, Value logProb, Value target, Value weight) {
  std::string reduction = c.getString("reduction", "mean");
  if (reduction != "mean" && reduction != "sum" && reduction != "none") {
    (void)c.fail("reduction '" + reduction + "' is none of mean, sum, none");
    return {};
  }
  if (rankOf(logProb) < 2 || rankOf(target) != rankOf(logProb) - 1) {
    (void)c.fail("expected input [N, C, d...] and target [N, d...]");
    return {};
  }
  Type indexType = elementTypeOf(target), floatType = elementTypeOf(logProb);
  Value ignored, safe = target;
  if (const auto *ii = c.attr("ignore_index")) {
    ignored = c.create<EqualOp>({target, c.scalar(indexType, ii->i())});
    if (!ignored)
      return {};
    // Ignored positions read class 0; their weight is 0.
    safe = c.create<WhereOp>({ignored, c.scalar(indexType, 0), target});
  }
  Value index = safe ? c.create<UnsqueezeOp>({safe}, {c.i64s("axes", {1})})
                     : Value();
  Value picked = index ? c.create<GatherElementsOp>({logProb, index},
                                                    {c.i64("axis", 1)})
                       : Value();
  picked = picked ? c.create<SqueezeOp>({picked}, {c.i64s("axes", {1})})
                  : Value();
  if (!picked)
    return {};
  Value w;
  if (weight)
    w = c.create<GatherOp>({weight, safe}, {c.i64("axis", 0)});
  if (ignored) {
    Value keep = c.create<WhereOp>({ignored, c.scalar(floatType, 0.0),
                                    c.scalar(floatType, 1.0)});
    w = w ? c.create<MulOp>({w, keep}) : keep;
  }
  Value loss = c.create<NegOp>({picked});
  if (w)
    loss = c.create<MulOp>({loss, w});
  if (!loss || reduction == "none")
    return loss;
  auto all = [&](Value v) {
    return c.create<ReduceSumOp>(
        {v}, {c.i64s("axes", {}), c.boolean("keepdims", false)});
  };
  if (reduction == "sum")
    return all(loss);
  if (!w)
    return c.create<ReduceMeanOp>(
        {loss}, {c.i64s("axes", {}), c.boolean("keepdims", false)});
  return c.create<DivOp>({all(loss), all(w)});
}

LogicalResult convertNllLoss(OpContext &c) {
  Value input = c.required(0, "input"), target = c.required(1, "target");
  if (!input || !target)
    return failure();
  return c.done(buildNllLoss(c, input, target, c.in(2)));
}

/// SoftmaxCrossEntropyLoss: log-softmax over the classes (axis 1), then the
/// NLL loss; the optional second output is the log-softmax.
LogicalResult convertSoftmaxCrossEntropyLoss(OpContext &c) {
  Value scores = c.required(0, "scores"), labels = c.required(1, "labels");
  if (!scores || !labels)
    return failure();
  Value logProb = c.create<LogSoftmaxOp>({scores}, {c.i64("axis", 1)});
  if (!logProb)
    return failure();
  if (c.results.size() > 1)
    c.results[1] = logProb;
  return c.done(buildNllLoss(c, logProb, labels, c.in(2)));
}

LogicalResult convertLayerNorm(OpContext &c) {
  Value x = c.required(0, "X"), scale = x ? c.required(1, "Scale") : Value();
  if (!scale)
    return failure();
  llvm::SmallVector<Value> operands{x, scale};
  if (c.has(2))
    operands.push_back(c.in(2));
  int64_t axis = c.getInt("axis", -1);
  double epsilon = c.getFloat("epsilon", 1e-5);
  if (failed(c.done(c.create<LayerNormOp>(
          operands, {c.i64("axis", axis), c.f32("epsilon", epsilon)}))))
    return failure();
  if (!c.used(1) && !c.used(2))
    return success();

  // Mean and InvStdDev, computed in the stash type as the ONNX function
  // body does: Mean = ReduceMean(X), InvStdDev = 1 / sqrt(ReduceMean((X -
  // Mean)^2) + epsilon), over axes [axis, rank), kept as size 1.
  int64_t rank = rankOf(x);
  auto norm = normalizeAxis(axis, rank);
  if (!norm)
    return c.fail("axis " + llvm::Twine(axis) + " is out of range for rank " +
                  llvm::Twine(rank));
  int64_t stashType = c.getInt("stash_type", 1);
  Type stash = onnxElementType(c.getContext(), static_cast<int32_t>(stashType));
  if (!stash || !llvm::isa<FloatType>(stash))
    return c.fail("stash_type " + llvm::Twine(stashType) +
                  " is not a floating-point type");
  Value xs = x;
  if (elementTypeOf(x) != stash)
    xs = c.create<CastOp>({x}, {c.named("to", TypeAttr::get(stash))});
  llvm::SmallVector<int64_t> axes;
  for (int64_t a = *norm; a < rank; ++a)
    axes.push_back(a);
  auto reduceAttrs = {c.i64s("axes", axes), c.boolean("keepdims", true)};
  Value mean = xs ? c.create<ReduceMeanOp>({xs}, reduceAttrs) : Value();
  Value d = mean ? c.create<SubOp>({xs, mean}) : Value();
  Value dd = d ? c.create<MulOp>({d, d}) : Value();
  Value var = dd ? c.create<ReduceMeanOp>({dd}, reduceAttrs) : Value();
  Value eps = c.scalar(stash, epsilon);
  Value ve = var && eps ? c.create<AddOp>({var, eps}) : Value();
  Value sd = ve ? c.create<SqrtOp>({ve}) : Value();
  Value inv = sd ? c.create<ReciprocalOp>({sd}) : Value();
  if (!inv)
    return failure();
  c.results[1] = mean;
  c.results[2] = inv;
  return success();
}

LogicalResult convertRMSNorm(OpContext &c) {
  Value x = c.required(0, "X"), scale = x ? c.required(1, "scale") : Value();
  if (!scale)
    return failure();
  return c.done(c.create<RMSNormOp>(
      {x, scale}, {c.i64("axis", c.getInt("axis", -1)),
                   c.f32("epsilon", c.getFloat("epsilon", 1e-5))}));
}

/// BatchNormalization with training_mode = 1: the batch's statistics
/// (population variance over every axis but the channels) normalise the
/// input, and outputs 1 and 2 are the running mean and variance moved by
/// `momentum` towards them (ONNX's formula). Written with reductions and
/// arithmetic, so that training differentiates through the statistics.
LogicalResult convertBatchNormTraining(OpContext &c,
                                       llvm::ArrayRef<Value> operands) {
  Value x = operands[0];
  int64_t rank = rankOf(x);
  if (rank < 2)
    return c.fail("expected an input [N, C, ...]");
  llvm::SmallVector<int64_t> axes = {0}, perChannel(rank, 1);
  for (int64_t d = 2; d < rank; ++d)
    axes.push_back(d);
  perChannel[1] = shapeOf(x)[1];
  Type element = elementTypeOf(x);
  auto mean = [&](Value v) {
    return v ? c.create<ReduceMeanOp>(
                   {v}, {c.i64s("axes", axes), c.boolean("keepdims", true)})
             : Value();
  };
  auto channels = [&](Value v) {
    return v ? c.create<ReshapeOp>({v}, {c.i64s("shape", perChannel)})
             : Value();
  };
  Value mu = mean(x);
  Value centred = mu ? c.create<SubOp>({x, mu}) : Value();
  Value var = centred ? mean(c.create<MulOp>({centred, centred})) : Value();
  Value denom =
      var ? c.create<SqrtOp>({c.create<AddOp>(
                {var, c.scalar(element, c.getFloat("epsilon", 1e-5))})})
          : Value();
  Value y = denom ? c.create<DivOp>({centred, denom}) : Value();
  y = y ? c.create<MulOp>({y, channels(operands[1])}) : Value();
  y = y ? c.create<AddOp>({y, channels(operands[2])}) : Value();
  if (!y)
    return failure();
  c.results[0] = y;
  double momentum = c.getFloat("momentum", 0.9);
  for (unsigned i = 1; i < 3 && i < c.results.size(); ++i) {
    if (!c.used(i))
      continue;
    Value stat = i == 1 ? mu : var;
    Value flat = c.create<ReshapeOp>(
        {stat}, {c.i64s("shape", {shapeOf(x)[1]})});
    Value kept = c.create<MulOp>({operands[2 + i],
                                  c.scalar(element, momentum)});
    Value moved = flat ? c.create<MulOp>({flat, c.scalar(element,
                                                         1.0 - momentum)})
                       : Value();
    c.results[i] = kept && moved ? c.create<AddOp>({kept, moved}) : Value();
    if (!c.results[i])
      return failure();
  }
  return success();
}

LogicalResult convertBatchNorm(OpContext &c) {
  llvm::SmallVector<Value> operands;
  const char *names[] = {"X", "scale", "B", "input_mean", "input_var"};
  for (unsigned i = 0; i < 5; ++i) {
    Value v = c.required(i, names[i]);
    if (!v)
      return failure();
    operands.push_back(v);
  }
  if (c.getInt("training_mode", 0) != 0)
    return convertBatchNormTraining(c, operands);
  for (unsigned i = 1; i < c.results.size(); ++i)
    if (c.used(i))
      return c.fail("the running mean/variance outputs are those of "
                    "training_mode = 1");
  return c.done(c.create<BatchNormOp>(
      operands, {c.f32("epsilon", c.getFloat("epsilon", 1e-5))}));
}

LogicalResult convertInstanceNorm(OpContext &c) {
  Value x = c.required(0, "input"), s = x ? c.required(1, "scale") : Value();
  Value b = s ? c.required(2, "B") : Value();
  if (!b)
    return failure();
  return c.done(c.create<InstanceNormOp>(
      {x, s, b}, {c.f32("epsilon", c.getFloat("epsilon", 1e-5))}));
}

LogicalResult convertGroupNorm(OpContext &c) {
  Value x = c.required(0, "X"), s = x ? c.required(1, "scale") : Value();
  Value b = s ? c.required(2, "bias") : Value();
  if (!b)
    return failure();
  if (!c.hasAttr("num_groups"))
    return c.fail("missing attribute 'num_groups'");
  int64_t groups = c.getInt("num_groups", 1);
  // Opsets 18-20 give scale and bias per group: repeat them per channel.
  if (rankOf(x) >= 2 && groups > 0 && shapeOf(x)[1] % groups == 0) {
    int64_t channels = shapeOf(x)[1];
    auto perChannel = [&](Value v) -> Value {
      if (rankOf(v) != 1 || shapeOf(v)[0] != groups || groups == channels)
        return v;
      Value u = c.create<UnsqueezeOp>({v}, {c.i64s("axes", {1})});
      Value e = u ? c.create<ExpandOp>(
                        {u}, {c.i64s("shape", {groups, channels / groups})})
                  : Value();
      return e ? c.create<ReshapeOp>({e}, {c.i64s("shape", {channels})}) : Value();
    };
    s = perChannel(s);
    b = s ? perChannel(b) : Value();
    if (!b)
      return failure();
  }
  return c.done(c.create<GroupNormOp>(
      {x, s, b}, {c.i64("num_groups", groups),
                  c.f32("epsilon", c.getFloat("epsilon", 1e-5))}));
}

LogicalResult convertLpNorm(OpContext &c) {
  Value x = c.required(0, "input");
  if (!x)
    return failure();
  return c.done(c.create<LpNormOp>(
      {x}, {c.i64("axis", c.getInt("axis", -1)), c.i64("p", c.getInt("p", 2))}));
}

LogicalResult convertMVN(OpContext &c) {
  Value x = c.required(0, "X");
  if (!x)
    return failure();
  llvm::SmallVector<int64_t> axes = c.getInts("axes");
  if (!c.hasAttr("axes"))
    axes = {0, 2, 3};
  int64_t rank = rankOf(x);
  if (failed(c.normalizeAxes(axes, rank)))
    return failure();
  return c.done(c.create<MeanVarianceNormOp>({x}, {c.i64s("axes", axes)}));
}

LogicalResult convertLRN(OpContext &c) {
  Value x = c.required(0, "X");
  if (!x)
    return failure();
  if (!c.hasAttr("size"))
    return c.fail("missing attribute 'size'");
  return c.done(c.create<LRNOp>(
      {x}, {c.i64("size", c.getInt("size", 1)),
            c.f32("alpha", c.getFloat("alpha", 1e-4)),
            c.f32("beta", c.getFloat("beta", 0.75)),
            c.f32("bias", c.getFloat("bias", 1.0))}));
}

template <typename OpTy>
LogicalResult convertGlobalPool(OpContext &c) {
  Value x = c.required(0, "X");
  if (!x)
    return failure();
  if (rankOf(x) < 3)
    return c.fail("input must have rank >= 3 (N, C, spatial...), got rank " +
                  llvm::Twine(rankOf(x)));
  llvm::SmallVector<int64_t> axes;
  for (int64_t i = 2; i < rankOf(x); ++i)
    axes.push_back(i);
  return c.done(
      c.create<OpTy>({x}, {c.i64s("axes", axes), c.boolean("keepdims", true)}));
}

} // namespace

void mlir::telar::onnx_import::registerReductionConverters(ConverterTable &t) {
  t["ReduceSum"] = {convertReduce<ReduceSumOp, 13>};
  t["ReduceMean"] = {convertReduce<ReduceMeanOp, 18>};
  t["ReduceMax"] = {convertReduce<ReduceMaxOp, 18>};
  t["ReduceMin"] = {convertReduce<ReduceMinOp, 18>};
  t["ReduceProd"] = {convertReduce<ReduceProdOp, 18>};
  t["ReduceL1"] = {convertReduce<ReduceL1Op, 18>};
  t["ReduceL2"] = {convertReduce<ReduceL2Op, 18>};
  t["ReduceLogSum"] = {convertReduce<ReduceLogSumOp, 18>};
  t["ReduceLogSumExp"] = {convertReduce<ReduceLogSumExpOp, 18>};
  t["ReduceSumSquare"] = {convertReduce<ReduceSumSquareOp, 18>};
  t["ArgMax"] = {convertArgReduce<ArgMaxOp>};
  t["ArgMin"] = {convertArgReduce<ArgMinOp>};
  t["Softmax"] = {convertSoftmaxLike<SoftmaxOp>};
  t["LogSoftmax"] = {convertSoftmaxLike<LogSoftmaxOp>};
  t["Hardmax"] = {convertSoftmaxLike<HardmaxOp>};
  t["LayerNormalization"] = {convertLayerNorm, 17};
  t["NegativeLogLikelihoodLoss"] = {convertNllLoss, 12};
  t["SoftmaxCrossEntropyLoss"] = {convertSoftmaxCrossEntropyLoss, 12};
  t["RMSNormalization"] = {convertRMSNorm, 23};
  t["BatchNormalization"] = {convertBatchNorm};
  t["InstanceNormalization"] = {convertInstanceNorm};
  t["GroupNormalization"] = {convertGroupNorm, 18};
  t["LpNormalization"] = {convertLpNorm};
  t["MeanVarianceNormalization"] = {convertMVN};
  t["LRN"] = {convertLRN};
  t["GlobalAveragePool"] = {convertGlobalPool<ReduceMeanOp>};
  t["GlobalMaxPool"] = {convertGlobalPool<ReduceMaxOp>};
}
