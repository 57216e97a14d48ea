//===- NNOps.cpp - Neural-network ops: inference, rules, verifiers --------===//
//
// Result-type inference, sharding rules and verifiers of the telar ops that
// are not plain elementwise or data movement: normalisations, contractions
// (matmul, einsum), convolutions, resize, depth/space rearrangement and
// rotary embeddings.
//
// Inference is also the ops' verifier and runs on whatever the importer (or
// a fuzzer) produces, so it checks every rank, size and attribute it relies
// on before using it, and reports problems through emitOptionalError.
//
//===----------------------------------------------------------------------===//

#include "telar/dialects/Telar/TelarOps.h"

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Diagnostics.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/raw_ostream.h"

#include <cmath>

using namespace mlir;
using namespace mlir::telar;

static constexpr int64_t kDynamic = ShapedType::kDynamic;

static bool isDynamic(int64_t d) { return ShapedType::isDynamic(d); }

/// Two dimensions agree when equal or when either is unknown.
static bool dimsAgree(int64_t a, int64_t b) {
  return isDynamic(a) || isDynamic(b) || a == b;
}

/// The static one of two agreeing dimensions, if any.
static int64_t mergeDims(int64_t a, int64_t b) { return isDynamic(a) ? b : a; }

/// `a * b`, or nullopt on overflow; dynamic when either is.
static std::optional<int64_t> mulDims(int64_t a, int64_t b) {
  if (isDynamic(a) || isDynamic(b))
    return kDynamic;
  int64_t r;
  if (__builtin_mul_overflow(a, b, &r) || isDynamic(r))
    return std::nullopt;
  return r;
}

/// `a + b` for sizes, nullopt on overflow.
static std::optional<int64_t> addDims(int64_t a, int64_t b) {
  int64_t r;
  if (__builtin_add_overflow(a, b, &r) || isDynamic(r))
    return std::nullopt;
  return r;
}

static RankedTensorType asRanked(Type type) {
  return dyn_cast_or_null<RankedTensorType>(type);
}

/// Fails unless every listed type is a ranked tensor.
static LogicalResult requireRanked(std::optional<Location> loc, StringRef op,
                                   ArrayRef<std::pair<StringRef, Type>> named) {
  for (auto [name, type] : named)
    if (!asRanked(type))
      return emitOptionalError(loc, op, ": ", name,
                               " must be a ranked tensor, got ", type);
  return success();
}

/// Fails unless `other` has the element type of `ref`.
static LogicalResult requireSameElementType(std::optional<Location> loc,
                                            StringRef op, StringRef refName,
                                            RankedTensorType ref,
                                            StringRef otherName,
                                            RankedTensorType other) {
  if (ref.getElementType() == other.getElementType())
    return success();
  return emitOptionalError(loc, op, ": ", otherName, " ", other,
                           " must have the element type of ", refName, " ",
                           ref);
}

/// Fails unless `param` is a rank-1 tensor of `size` elements (per-channel
/// scale, bias, statistics).
static LogicalResult requireVector(std::optional<Location> loc, StringRef op,
                                   StringRef name, RankedTensorType param,
                                   int64_t size, StringRef what) {
  if (param.getRank() != 1 || !dimsAgree(param.getDimSize(0), size))
    return emitOptionalError(loc, op, ": ", name, " must have shape [",
                             isDynamic(size) ? std::string("?")
                                             : std::to_string(size),
                             "] (", what, "), got ", param);
  return success();
}

/// Fails unless `param` broadcasts unidirectionally to `shape`: at most its
/// rank, aligned to the trailing dimensions, each dimension 1 or equal.
static LogicalResult requireBroadcastsTo(std::optional<Location> loc,
                                         StringRef op, StringRef name,
                                         RankedTensorType param,
                                         ArrayRef<int64_t> shape) {
  ArrayRef<int64_t> p = param.getShape();
  bool ok = p.size() <= shape.size();
  for (size_t i = 0; ok && i < p.size(); ++i) {
    int64_t d = shape[shape.size() - p.size() + i];
    ok = p[i] == 1 || dimsAgree(p[i], d);
  }
  if (!ok)
    return emitOptionalError(loc, op, ": ", name, " ", param,
                             " does not broadcast to the input shape ",
                             toString(shape));
  return success();
}

//===----------------------------------------------------------------------===//
// Sharding rule construction
//===----------------------------------------------------------------------===//

using Dim = ShardingRuleBuilder::Dim;

/// The dimensions of `type`, each a need-replication factor of its own.
static SmallVector<Dim> wholeDims(ShardingRuleBuilder &b, Type type) {
  SmallVector<Dim> dims;
  for (int64_t d : cast<RankedTensorType>(type).getShape())
    dims.push_back(b.dim(b.addFactor(d, FactorKind::NeedReplication)));
  return dims;
}

/// One parallel factor per result dimension (N x C x ...) except those in
/// `whole`, which are need-replication factors. The first operand and the
/// result have the result's shape; rank-1 operands are per-channel vectors
/// of the channel's factor (axis 1; a rank-1 input has one implicit
/// channel, and its vectors stay whole).
static ShardingRuleAttr perChannelRule(Operation *op, ArrayRef<bool> whole) {
  ShardingRuleBuilder b(op);
  ArrayRef<int64_t> shape =
      cast<RankedTensorType>(op->getResult(0).getType()).getShape();
  int64_t rank = shape.size();
  SmallVector<Dim> full;
  for (int64_t d = 0; d < rank; ++d)
    full.push_back(whole[d] ? b.whole(d, shape[d]) : b.dim(b.addFactor(shape[d])));
  for (auto [i, type] : llvm::enumerate(op->getOperandTypes())) {
    if (i == 0) {
      b.setOperand(0, full);
      continue;
    }
    auto t = cast<RankedTensorType>(type);
    if (rank > 1 && t.getRank() == 1 && t.getDimSize(0) == shape[1])
      b.setOperand(i, {full[1]});
    else
      b.setOperand(i, wholeDims(b, t));
  }
  b.setResult(0, full);
  return b.build();
}

/// Every axis listed in `whole` (of the first operand and the result, which
/// have one shape) stays whole; the others are parallel; other operands
/// stay whole.
static ShardingRuleAttr firstOperandRule(Operation *op, ArrayRef<bool> whole) {
  ShardingRuleBuilder b(op);
  auto in = cast<RankedTensorType>(op->getOperand(0).getType());
  auto out = cast<RankedTensorType>(op->getResult(0).getType());
  SmallVector<Dim> inDims, outDims;
  for (int64_t d = 0; d < out.getRank(); ++d) {
    if (d < in.getRank() && !whole[d] && in.getDimSize(d) == out.getDimSize(d)) {
      int64_t f = b.addFactor(out.getDimSize(d));
      inDims.push_back(b.dim(f));
      outDims.push_back(b.dim(f));
      continue;
    }
    if (d < in.getRank())
      inDims.push_back(
          b.dim(b.addFactor(in.getDimSize(d), FactorKind::NeedReplication)));
    outDims.push_back(b.dim(b.addFactor(out.getDimSize(d))));
  }
  for (int64_t d = out.getRank(); d < in.getRank(); ++d)
    inDims.push_back(
        b.dim(b.addFactor(in.getDimSize(d), FactorKind::NeedReplication)));
  b.setOperand(0, inDims);
  for (unsigned i = 1, e = op->getNumOperands(); i < e; ++i)
    b.setOperand(i, wholeDims(b, op->getOperand(i).getType()));
  b.setResult(0, outDims);
  return b.build();
}

//===----------------------------------------------------------------------===//
// Normalisations
//===----------------------------------------------------------------------===//

/// layer_norm / rms_norm: checks input, axis and the trailing-broadcast
/// parameters; returns the normalised axis.
static FailureOr<int64_t>
checkTrailingNorm(std::optional<Location> loc, StringRef op, Type inputType,
                  int64_t axis, ArrayRef<std::pair<StringRef, Type>> params,
                  bool sameElementType) {
  SmallVector<std::pair<StringRef, Type>> all = {{"input", inputType}};
  all.append(params.begin(), params.end());
  if (failed(requireRanked(loc, op, all)))
    return failure();
  auto input = cast<RankedTensorType>(inputType);
  if (input.getRank() < 1)
    return emitOptionalError(loc, op, ": input must have rank >= 1, got ",
                             input);
  std::optional<int64_t> a = normalizeAxis(axis, input.getRank());
  if (!a)
    return emitOptionalError(loc, op, ": axis ", axis,
                             " is out of range for input ", input);
  for (auto [name, type] : params) {
    auto p = cast<RankedTensorType>(type);
    if (sameElementType &&
        failed(requireSameElementType(loc, op, "input", input, name, p)))
      return failure();
    if (failed(requireBroadcastsTo(loc, op, name, p, input.getShape())))
      return failure();
  }
  return *a;
}

static SmallVector<bool> wholeFrom(int64_t rank, int64_t first) {
  SmallVector<bool> whole(rank, false);
  for (int64_t i = std::max<int64_t>(first, 0); i < rank; ++i)
    whole[i] = true;
  return whole;
}

/// Rule of the trailing-axes norms: the axes from `axis` on stay whole, in
/// the input, the result and the parameters (aligned to the trailing axes,
/// size-1 dimensions broadcast); replicated when the axis is invalid.
static ShardingRuleAttr trailingNormRule(Operation *op, int64_t axis) {
  auto result = cast<RankedTensorType>(op->getResult(0).getType());
  std::optional<int64_t> a = normalizeAxis(axis, result.getRank());
  if (!a)
    return replicatedOperandsRule(op);
  return keepWholeRule(op, llvm::to_vector(llvm::seq<int64_t>(*a, result.getRank())));
}

/// Checks an N x C x ... input and returns C (1 for a rank-1 input).
static FailureOr<int64_t> checkChannelInput(std::optional<Location> loc,
                                            StringRef op, Type inputType,
                                            int64_t minRank, StringRef layout) {
  auto input = asRanked(inputType);
  if (!input)
    return emitOptionalError(loc, op, ": input must be a ranked tensor, got ",
                             inputType);
  if (input.getRank() < minRank)
    return emitOptionalError(loc, op, ": input must have rank >= ", minRank,
                             " (", layout, "), got ", input);
  return input.getRank() > 1 ? input.getDimSize(1) : 1;
}

LogicalResult GeluOp::verify() {
  StringRef a = getApproximate();
  if (a != "none" && a != "tanh")
    return emitOpError("approximate must be \"none\" or \"tanh\", got \"")
           << a << "\"";
  return success();
}

LogicalResult LpNormOp::verify() {
  int64_t p = static_cast<int64_t>(getP());
  if (p != 1 && p != 2)
    return emitOpError("p must be 1 or 2, got ") << p;
  return success();
}

LogicalResult LayerNormOp::inferReturnTypes(MLIRContext *,
                                            std::optional<Location> loc,
                                            Adaptor adaptor,
                                            SmallVectorImpl<Type> &results) {
  SmallVector<std::pair<StringRef, Type>> params = {
      {"scale", adaptor.getScale().getType()}};
  if (adaptor.getBias())
    params.push_back({"bias", adaptor.getBias().getType()});
  if (failed(checkTrailingNorm(loc, "layer_norm", adaptor.getInput().getType(),
                               static_cast<int64_t>(adaptor.getAxis()), params,
                               /*sameElementType=*/true)))
    return failure();
  results.push_back(adaptor.getInput().getType());
  return success();
}

ShardingRuleAttr LayerNormOp::buildShardingRule() {
  return trailingNormRule(getOperation(), static_cast<int64_t>(getAxis()));
}

// ONNX RMSNormalization lets scale (V) differ from the input (T); the result
// has the scale's element type.
LogicalResult RMSNormOp::inferReturnTypes(MLIRContext *,
                                          std::optional<Location> loc,
                                          Adaptor adaptor,
                                          SmallVectorImpl<Type> &results) {
  Type scale = adaptor.getScale().getType();
  if (failed(checkTrailingNorm(loc, "rms_norm", adaptor.getInput().getType(),
                               static_cast<int64_t>(adaptor.getAxis()),
                               {{"scale", scale}},
                               /*sameElementType=*/false)))
    return failure();
  auto input = cast<RankedTensorType>(adaptor.getInput().getType());
  results.push_back(
      input.clone(cast<RankedTensorType>(scale).getElementType()));
  return success();
}

ShardingRuleAttr RMSNormOp::buildShardingRule() {
  return trailingNormRule(getOperation(), static_cast<int64_t>(getAxis()));
}

// ONNX BatchNormalization allows scale/bias (T1) and mean/var (T2) to differ
// from the input's type (T); each is a [C] vector.
LogicalResult BatchNormOp::inferReturnTypes(MLIRContext *,
                                            std::optional<Location> loc,
                                            Adaptor adaptor,
                                            SmallVectorImpl<Type> &results) {
  Type inputType = adaptor.getInput().getType();
  FailureOr<int64_t> c =
      checkChannelInput(loc, "batch_norm", inputType, 1, "N x C x ...");
  if (failed(c))
    return failure();
  std::pair<StringRef, Type> params[] = {
      {"scale", adaptor.getScale().getType()},
      {"bias", adaptor.getBias().getType()},
      {"mean", adaptor.getMean().getType()},
      {"variance", adaptor.getVariance().getType()}};
  if (failed(requireRanked(loc, "batch_norm", params)))
    return failure();
  for (auto [name, type] : params)
    if (failed(requireVector(loc, "batch_norm", name,
                             cast<RankedTensorType>(type), *c,
                             "one per channel")))
      return failure();
  results.push_back(inputType);
  return success();
}

// Running statistics are constants: every axis is parallel.
ShardingRuleAttr BatchNormOp::buildShardingRule() {
  int64_t rank = cast<RankedTensorType>(getType()).getRank();
  return perChannelRule(getOperation(), SmallVector<bool>(rank, false));
}

LogicalResult InstanceNormOp::inferReturnTypes(MLIRContext *,
                                               std::optional<Location> loc,
                                               Adaptor adaptor,
                                               SmallVectorImpl<Type> &results) {
  Type inputType = adaptor.getInput().getType();
  FailureOr<int64_t> c =
      checkChannelInput(loc, "instance_norm", inputType, 3, "N x C x D1 x ...");
  if (failed(c))
    return failure();
  std::pair<StringRef, Type> params[] = {
      {"scale", adaptor.getScale().getType()},
      {"bias", adaptor.getBias().getType()}};
  if (failed(requireRanked(loc, "instance_norm", params)))
    return failure();
  auto input = cast<RankedTensorType>(inputType);
  for (auto [name, type] : params) {
    auto p = cast<RankedTensorType>(type);
    if (failed(requireSameElementType(loc, "instance_norm", "input", input,
                                      name, p)) ||
        failed(requireVector(loc, "instance_norm", name, p, *c,
                             "one per channel")))
      return failure();
  }
  results.push_back(inputType);
  return success();
}

// Statistics are per (sample, channel) over the spatial axes: those stay
// whole.
ShardingRuleAttr InstanceNormOp::buildShardingRule() {
  int64_t rank = cast<RankedTensorType>(getType()).getRank();
  return perChannelRule(getOperation(), wholeFrom(rank, 2));
}

LogicalResult GroupNormOp::inferReturnTypes(MLIRContext *,
                                            std::optional<Location> loc,
                                            Adaptor adaptor,
                                            SmallVectorImpl<Type> &results) {
  Type inputType = adaptor.getInput().getType();
  FailureOr<int64_t> c =
      checkChannelInput(loc, "group_norm", inputType, 2, "N x C x D1 x ...");
  if (failed(c))
    return failure();
  int64_t groups = static_cast<int64_t>(adaptor.getNumGroups());
  if (groups < 1)
    return emitOptionalError(
        loc, "group_norm: num_groups must be positive, got ", groups);
  if (!isDynamic(*c) && *c % groups != 0)
    return emitOptionalError(loc, "group_norm: ", *c,
                             " channels do not divide into ", groups,
                             " groups");
  std::pair<StringRef, Type> params[] = {
      {"scale", adaptor.getScale().getType()},
      {"bias", adaptor.getBias().getType()}};
  if (failed(requireRanked(loc, "group_norm", params)))
    return failure();
  auto input = cast<RankedTensorType>(inputType);
  for (auto [name, type] : params) {
    auto p = cast<RankedTensorType>(type);
    if (failed(requireSameElementType(loc, "group_norm", "input", input, name,
                                      p)) ||
        failed(
            requireVector(loc, "group_norm", name, p, *c, "one per channel")))
      return failure();
  }
  results.push_back(inputType);
  return success();
}

// Statistics span a group of channels and the spatial axes. The channel
// axis is (group, channel in group): groups are parallel, the channels of a
// group and the spatial axes stay whole; the per-channel scale and bias are
// the same product.
ShardingRuleAttr GroupNormOp::buildShardingRule() {
  auto type = cast<RankedTensorType>(getType());
  int64_t rank = type.getRank();
  int64_t c = rank > 1 ? type.getDimSize(1) : kDynamic;
  int64_t groups = static_cast<int64_t>(getNumGroups());
  if (rank < 2 || isDynamic(c) || groups < 1 || c % groups != 0)
    return perChannelRule(getOperation(), wholeFrom(rank, 1));
  ShardingRuleBuilder b(getOperation());
  int64_t g = b.addFactor(groups);
  int64_t cg = b.addFactor(c / groups, FactorKind::NeedReplication);
  Dim channel = b.product({g, cg});
  SmallVector<Dim> full = {b.dim(b.addFactor(type.getDimSize(0))), channel};
  for (int64_t d = 2; d < rank; ++d)
    full.push_back(b.whole(d, type.getDimSize(d)));
  b.setOperand(0, full);
  for (unsigned i = 1; i < 3; ++i) {
    auto t = cast<RankedTensorType>(getOperand(i).getType());
    if (t.getRank() == 1 && t.getDimSize(0) == c)
      b.setOperand(i, {channel});
    else
      b.setOperand(i, wholeDims(b, t));
  }
  b.setResult(0, full);
  return b.build();
}

LogicalResult
MeanVarianceNormOp::inferReturnTypes(MLIRContext *, std::optional<Location> loc,
                                     Adaptor adaptor,
                                     SmallVectorImpl<Type> &results) {
  auto input = asRanked(adaptor.getInput().getType());
  if (!input)
    return emitOptionalError(
        loc, "mean_variance_norm: input must be a ranked tensor");
  SmallVector<bool> seen(input.getRank(), false);
  for (int64_t axis : adaptor.getAxes()) {
    std::optional<int64_t> a = normalizeAxis(axis, input.getRank());
    if (!a)
      return emitOptionalError(loc, "mean_variance_norm: axis ", axis,
                               " is out of range for input ", input);
    if (seen[*a])
      return emitOptionalError(loc, "mean_variance_norm: axis ", axis,
                               " is listed twice in ", toString(adaptor.getAxes()));
    seen[*a] = true;
  }
  results.push_back(input);
  return success();
}

ShardingRuleAttr MeanVarianceNormOp::buildShardingRule() {
  return keepWholeRule(getOperation(), getAxes());
}

LogicalResult LRNOp::inferReturnTypes(MLIRContext *,
                                      std::optional<Location> loc,
                                      Adaptor adaptor,
                                      SmallVectorImpl<Type> &results) {
  if (failed(checkChannelInput(loc, "lrn", adaptor.getInput().getType(), 2,
                               "N x C x ...")))
    return failure();
  int64_t size = static_cast<int64_t>(adaptor.getSize());
  if (size < 1)
    return emitOptionalError(loc, "lrn: size must be positive, got ", size);
  results.push_back(adaptor.getInput().getType());
  return success();
}

// The window runs across channels: the channel axis stays whole.
ShardingRuleAttr LRNOp::buildShardingRule() {
  return keepWholeRule(getOperation(), {1});
}

//===----------------------------------------------------------------------===//
// MatMul
//===----------------------------------------------------------------------===//

LogicalResult MatMulOp::inferReturnTypes(MLIRContext *,
                                         std::optional<Location> loc,
                                         Adaptor adaptor,
                                         SmallVectorImpl<Type> &results) {
  Type lt = adaptor.getLhs().getType(), rt = adaptor.getRhs().getType();
  if (failed(requireRanked(loc, "matmul", {{"lhs", lt}, {"rhs", rt}})))
    return failure();
  auto lhs = cast<RankedTensorType>(lt), rhs = cast<RankedTensorType>(rt);
  if (lhs.getRank() < 1 || rhs.getRank() < 1)
    return emitOptionalError(loc, "matmul: operands must have rank >= 1, got ",
                             lhs, " and ", rhs);
  if (failed(requireSameElementType(loc, "matmul", "lhs", lhs, "rhs", rhs)))
    return failure();
  // Numpy: a 1-D lhs is a row [1, K], a 1-D rhs a column [K, 1]; the added
  // dimension is dropped from the result.
  ArrayRef<int64_t> a = lhs.getShape(), b = rhs.getShape();
  int64_t k1 = a.back(), k2 = b.size() == 1 ? b[0] : b[b.size() - 2];
  if (!dimsAgree(k1, k2))
    return emitOptionalError(loc, "matmul: contracted dimensions differ: lhs ",
                             lhs, " has ", k1, ", rhs ", rhs, " has ", k2);
  ArrayRef<int64_t> aBatch = a.drop_back(a.size() >= 2 ? 2 : 1);
  ArrayRef<int64_t> bBatch = b.drop_back(b.size() >= 2 ? 2 : 1);
  std::optional<SmallVector<int64_t>> batch = broadcastShapes(aBatch, bBatch);
  if (!batch)
    return emitOptionalError(loc, "matmul: batch dimensions ", toString(aBatch),
                             " of lhs ", lhs, " and ", toString(bBatch), " of rhs ",
                             rhs, " do not broadcast");
  SmallVector<int64_t> shape = *batch;
  if (a.size() >= 2)
    shape.push_back(a[a.size() - 2]);
  if (b.size() >= 2)
    shape.push_back(b.back());
  results.push_back(RankedTensorType::get(shape, lhs.getElementType()));
  return success();
}

// Factors: the result's batch dims..., m (2-D+ lhs), n (2-D+ rhs), k (sum).
// An operand's size-1 batch dim against a larger one is a broadcast.
ShardingRuleAttr MatMulOp::buildShardingRule() {
  auto lhs = cast<RankedTensorType>(getLhs().getType());
  auto rhs = cast<RankedTensorType>(getRhs().getType());
  auto result = cast<RankedTensorType>(getType());
  int64_t lr = lhs.getRank(), rr = rhs.getRank();
  int64_t lb = std::max<int64_t>(lr - 2, 0), rb = std::max<int64_t>(rr - 2, 0);
  int64_t nb = std::max(lb, rb);
  if (lr < 1 || rr < 1 || result.getRank() != nb + (lr >= 2) + (rr >= 2))
    return withOnePartial(replicatedOperandsRule(getOperation()), kPartialSum);
  int64_t kl = lhs.getShape().back(),
          kr = rr == 1 ? rhs.getDimSize(0) : rhs.getDimSize(rr - 2);
  if (!dimsAgree(kl, kr))
    return withOnePartial(replicatedOperandsRule(getOperation()), kPartialSum);

  ShardingRuleBuilder b(getOperation());
  SmallVector<int64_t> batch;
  for (int64_t i = 0; i < nb; ++i)
    batch.push_back(b.addFactor(result.getDimSize(i)));
  std::optional<int64_t> m, n;
  if (lr >= 2)
    m = b.addFactor(lhs.getDimSize(lr - 2));
  if (rr >= 2)
    n = b.addFactor(rhs.getDimSize(rr - 1));
  int64_t k = b.addFactor(mergeDims(kl, kr), FactorKind::Sum);

  auto batchDims = [&](RankedTensorType t, int64_t count) {
    SmallVector<Dim> dims;
    for (int64_t i = 0; i < count; ++i) {
      int64_t rd = nb - count + i, size = t.getDimSize(i);
      if (size == result.getDimSize(rd) || isDynamic(size))
        dims.push_back(b.dim(batch[rd]));
      else if (size == 1)
        dims.push_back(b.broadcast(batch[rd]));
      else
        dims.push_back(b.dim(b.addFactor(size, FactorKind::NeedReplication)));
    }
    return dims;
  };
  SmallVector<Dim> lhsDims = batchDims(lhs, lb);
  if (m)
    lhsDims.push_back(b.dim(*m));
  lhsDims.push_back(b.dim(k));
  SmallVector<Dim> rhsDims = batchDims(rhs, rb);
  rhsDims.push_back(b.dim(k));
  if (n)
    rhsDims.push_back(b.dim(*n));
  SmallVector<Dim> outDims;
  for (int64_t f : batch)
    outDims.push_back(b.dim(f));
  if (m)
    outDims.push_back(b.dim(*m));
  if (n)
    outDims.push_back(b.dim(*n));
  b.setOperand(0, lhsDims);
  b.setOperand(1, rhsDims);
  b.setResult(0, outDims);
  return withOnePartial(b.build(), kPartialSum);
}

//===----------------------------------------------------------------------===//
// Einsum
//===----------------------------------------------------------------------===//

LogicalResult EinsumOp::inferReturnTypes(MLIRContext *,
                                         std::optional<Location> loc,
                                         Adaptor adaptor,
                                         SmallVectorImpl<Type> &results) {
  EinsumEquationAttr eq = adaptor.getEquation();
  if (!eq)
    return emitOptionalError(loc, "einsum: needs an equation");
  ValueRange inputs = adaptor.getInputs();
  if (inputs.empty())
    return emitOptionalError(loc, "einsum: needs at least one input");
  if (inputs.size() != eq.getNumInputs())
    return emitOptionalError(loc, "einsum: equation \"", eq.str(), "\" has ",
                             eq.getNumInputs(),
                             " input terms but the op has ", inputs.size(),
                             " inputs");
  // Size of each label; unset labels are absent.
  SmallVector<std::optional<int64_t>> sizes(EinsumEquationAttr::kNumLabels);
  RankedTensorType first;
  for (auto [i, value] : llvm::enumerate(inputs)) {
    auto t = asRanked(value.getType());
    if (!t)
      return emitOptionalError(loc, "einsum: input ", i,
                               " must be a ranked tensor, got ",
                               value.getType());
    if (!first)
      first = t;
    else if (failed(requireSameElementType(loc, "einsum", "input 0", first,
                                           "input " + std::to_string(i), t)))
      return failure();
    ArrayRef<int64_t> term = eq.getInputLabels(i);
    if (static_cast<int64_t>(term.size()) != t.getRank()) {
      std::string letters;
      for (int64_t l : term)
        letters += EinsumEquationAttr::getLabelLetter(l);
      return emitOptionalError(loc, "einsum: term \"", letters, "\" has ",
                               term.size(), " letters but input ", i, " ", t,
                               " has rank ", t.getRank());
    }
    for (auto [j, label] : llvm::enumerate(term)) {
      std::optional<int64_t> &size = sizes[label];
      int64_t d = t.getDimSize(j);
      char ch = EinsumEquationAttr::getLabelLetter(label);
      if (size && !dimsAgree(*size, d))
        return emitOptionalError(loc, "einsum: letter '", StringRef(&ch, 1),
                                 "' has size ", *size, " and ", d, " (input ",
                                 i, " ", t, ")");
      size = size ? mergeDims(*size, d) : d;
    }
  }
  SmallVector<int64_t> shape;
  for (int64_t label : eq.getOutputLabels())
    shape.push_back(*sizes[label]);
  results.push_back(RankedTensorType::get(shape, first.getElementType()));
  return success();
}

// One factor per label: output labels are parallel, the others sums. A
// label repeated within an input (a diagonal) cannot be split on its own
// in one dimension and not the other: it must stay whole, and its further
// occurrences in that input are need-replication factors of their own.
ShardingRuleAttr EinsumOp::buildShardingRule() {
  EinsumEquationAttr eq = getEquation();
  if (eq.getNumInputs() != getInputs().size())
    return withOnePartial(replicatedOperandsRule(getOperation()), kPartialSum);
  // A label's size is its static size where any input knows it.
  SmallVector<std::optional<int64_t>> sizes(EinsumEquationAttr::kNumLabels);
  SmallVector<bool> diagonal(EinsumEquationAttr::kNumLabels, false);
  for (auto [i, value] : llvm::enumerate(getInputs())) {
    auto t = cast<RankedTensorType>(value.getType());
    ArrayRef<int64_t> term = eq.getInputLabels(i);
    if (static_cast<int64_t>(term.size()) != t.getRank())
      return withOnePartial(replicatedOperandsRule(getOperation()), kPartialSum);
    for (auto [j, label] : llvm::enumerate(term)) {
      int64_t d = t.getDimSize(j);
      if (sizes[label] && !dimsAgree(*sizes[label], d))
        return withOnePartial(replicatedOperandsRule(getOperation()), kPartialSum);
      sizes[label] = sizes[label] ? mergeDims(*sizes[label], d) : d;
      if (llvm::is_contained(term.take_front(j), label))
        diagonal[label] = true;
    }
  }
  ShardingRuleBuilder b(getOperation());
  SmallVector<int64_t> factor(EinsumEquationAttr::kNumLabels, -1);
  ArrayRef<int64_t> out = eq.getOutputLabels();
  auto factorOf = [&](int64_t label) {
    if (factor[label] < 0) {
      FactorKind kind = diagonal[label]             ? FactorKind::NeedReplication
                        : llvm::is_contained(out, label) ? FactorKind::Parallel
                                                         : FactorKind::Sum;
      factor[label] = b.addFactor(*sizes[label], kind);
    }
    return factor[label];
  };
  for (int64_t label : out)
    factorOf(label);
  for (size_t i = 0, e = eq.getNumInputs(); i < e; ++i) {
    ArrayRef<int64_t> term = eq.getInputLabels(i);
    SmallVector<Dim> dims;
    for (auto [j, label] : llvm::enumerate(term)) {
      if (llvm::is_contained(term.take_front(j), label))
        dims.push_back(
            b.dim(b.addFactor(*sizes[label], FactorKind::NeedReplication)));
      else
        dims.push_back(b.dim(factorOf(label)));
    }
    b.setOperand(i, dims);
  }
  SmallVector<Dim> outDims;
  for (int64_t label : out)
    outDims.push_back(b.dim(factorOf(label)));
  b.setResult(0, outDims);
  return withOnePartial(b.build(), kPartialSum);
}

//===----------------------------------------------------------------------===//
// Convolution
//===----------------------------------------------------------------------===//

/// Checks what conv and conv_transpose share: ranks, element types, group,
/// and the attribute lengths and values. Returns the spatial rank.
static FailureOr<int64_t>
checkConvCommon(std::optional<Location> loc, StringRef op, Type inputType,
                Type weightType, Type biasType, ArrayRef<int64_t> strides,
                ArrayRef<int64_t> pads, ArrayRef<int64_t> dilations,
                int64_t group) {
  SmallVector<std::pair<StringRef, Type>> named = {{"input", inputType},
                                                   {"weight", weightType}};
  if (biasType)
    named.push_back({"bias", biasType});
  if (failed(requireRanked(loc, op, named)))
    return failure();
  auto input = cast<RankedTensorType>(inputType);
  auto weight = cast<RankedTensorType>(weightType);
  if (input.getRank() < 3)
    return emitOptionalError(loc, op,
                             ": input must have rank >= 3 (N x C x D1 x ...), "
                             "got ",
                             input);
  if (weight.getRank() != input.getRank())
    return emitOptionalError(loc, op, ": weight ", weight, " must have rank ",
                             input.getRank(), " like the input ", input);
  if (failed(requireSameElementType(loc, op, "input", input, "weight", weight)))
    return failure();
  if (biasType &&
      failed(requireSameElementType(loc, op, "input", input, "bias",
                                    cast<RankedTensorType>(biasType))))
    return failure();
  int64_t k = input.getRank() - 2;
  if (static_cast<int64_t>(strides.size()) != k ||
      static_cast<int64_t>(dilations.size()) != k ||
      static_cast<int64_t>(pads.size()) != 2 * k)
    return emitOptionalError(
        loc, op, ": ", k, " spatial axes need ", k, " strides, ", k,
        " dilations and ", 2 * k, " pads, got strides ", toString(strides),
        ", dilations ", toString(dilations), ", pads ", toString(pads));
  for (int64_t i = 0; i < k; ++i) {
    if (strides[i] < 1 || dilations[i] < 1)
      return emitOptionalError(loc, op,
                               ": strides and dilations must be positive, got "
                               "strides ",
                               toString(strides), ", dilations ", toString(dilations));
    int64_t kernel = weight.getDimSize(2 + i);
    if (!isDynamic(kernel) && kernel < 1)
      return emitOptionalError(loc, op, ": kernel size ", kernel, " of weight ",
                               weight, " must be positive");
  }
  if (llvm::any_of(pads, [](int64_t p) { return p < 0; }))
    return emitOptionalError(loc, op, ": pads must not be negative, got ",
                             toString(pads));
  if (group < 1)
    return emitOptionalError(loc, op, ": group must be positive, got ", group);
  return k;
}

LogicalResult ConvOp::inferReturnTypes(MLIRContext *,
                                       std::optional<Location> loc,
                                       Adaptor adaptor,
                                       SmallVectorImpl<Type> &results) {
  Type biasType = adaptor.getBias() ? adaptor.getBias().getType() : Type();
  int64_t group = static_cast<int64_t>(adaptor.getGroup());
  FailureOr<int64_t> k = checkConvCommon(
      loc, "conv", adaptor.getInput().getType(), adaptor.getWeight().getType(),
      biasType, adaptor.getStrides(), adaptor.getPads(), adaptor.getDilations(),
      group);
  if (failed(k))
    return failure();
  auto input = cast<RankedTensorType>(adaptor.getInput().getType());
  auto weight = cast<RankedTensorType>(adaptor.getWeight().getType());
  // weight: [M, C/group, k1, ...].
  int64_t c = input.getDimSize(1), m = weight.getDimSize(0),
          cg = weight.getDimSize(1);
  std::optional<int64_t> expected = mulDims(cg, group);
  if (!expected || !dimsAgree(c, *expected))
    return emitOptionalError(loc, "conv: input ", input, " has ", c,
                             " channels but weight ", weight, " with group ",
                             group, " expects ", cg, " x ", group);
  if (!isDynamic(m) && m % group != 0)
    return emitOptionalError(loc, "conv: ", m, " output channels of weight ",
                             weight, " do not divide into ", group, " groups");
  if (biasType && failed(requireVector(loc, "conv", "bias",
                                       cast<RankedTensorType>(biasType), m,
                                       "one per output channel")))
    return failure();
  SmallVector<int64_t> shape = {input.getDimSize(0), m};
  ArrayRef<int64_t> strides = adaptor.getStrides(), pads = adaptor.getPads(),
                    dilations = adaptor.getDilations();
  for (int64_t i = 0; i < *k; ++i) {
    int64_t in = input.getDimSize(2 + i), kernel = weight.getDimSize(2 + i);
    if (isDynamic(in) || isDynamic(kernel)) {
      shape.push_back(kDynamic);
      continue;
    }
    // windowOutputSize does plain arithmetic: rule out overflow first.
    std::optional<int64_t> span = mulDims(kernel - 1, dilations[i]);
    std::optional<int64_t> padded = addDims(in, pads[i]);
    if (padded)
      padded = addDims(*padded, pads[i + *k]);
    if (!span || !padded)
      return emitOptionalError(loc, "conv: spatial axis ", i, " of input ",
                               input, " with kernel ", kernel, ", dilation ",
                               dilations[i], " and pads ", pads[i], ", ",
                               pads[i + *k], " overflows");
    int64_t out = windowOutputSize(in, kernel, strides[i], pads[i],
                                   pads[i + *k], dilations[i],
                                   /*ceilMode=*/false);
    if (out < 1)
      return emitOptionalError(loc, "conv: spatial axis ", i, " of input ",
                               input, " is too small for kernel ", kernel,
                               " with dilation ", dilations[i], " and pads ",
                               pads[i], ", ", pads[i + *k]);
    shape.push_back(out);
  }
  results.push_back(RankedTensorType::get(shape, input.getElementType()));
  return success();
}

/// The spatial dimensions of a convolution's input, weight and output: one
/// factor shared by input and output where the window is a single element
/// that moves one step (kernel 1, stride 1, no pads), the weight's
/// dimension being a unit; else, the input's and the weight's dimensions
/// are need-replication factors and the output's a parallel one (a window
/// needs a halo, which the rule does not claim comes free with a split).
static void convSpatialDims(ShardingRuleBuilder &b, RankedTensorType input,
                            RankedTensorType weight, RankedTensorType output,
                            ArrayRef<int64_t> strides, ArrayRef<int64_t> pads,
                            ArrayRef<int64_t> outputPadding,
                            SmallVectorImpl<Dim> &in, SmallVectorImpl<Dim> &w,
                            SmallVectorImpl<Dim> &out) {
  int64_t k = input.getRank() - 2;
  for (int64_t i = 0; i < k; ++i) {
    int64_t inSize = input.getDimSize(2 + i), outSize = output.getDimSize(2 + i);
    bool pointwise = weight.getDimSize(2 + i) == 1 && strides[i] == 1 &&
                     pads[i] == 0 && pads[k + i] == 0 &&
                     (outputPadding.empty() || outputPadding[i] == 0) &&
                     inSize == outSize;
    if (pointwise) {
      int64_t f = b.addFactor(inSize);
      in.push_back(b.dim(f));
      w.push_back(b.unit());
      out.push_back(b.dim(f));
      continue;
    }
    in.push_back(b.dim(b.addFactor(inSize, FactorKind::NeedReplication)));
    w.push_back(b.dim(b.addFactor(weight.getDimSize(2 + i),
                                  FactorKind::NeedReplication)));
    out.push_back(b.dim(b.addFactor(outSize)));
  }
}

// Factors: n; the group g, the output channels of a group mg and the input
// channels of a group cg (a sum): input channel = (g, cg), weight
// [(g, mg), cg, ...], output channel and bias = (g, mg); and the spatial
// dimensions (convSpatialDims).
ShardingRuleAttr ConvOp::buildShardingRule() {
  // Linear in the input without a bias: a partial sum goes through.
  auto partial = [&](ShardingRuleAttr rule) {
    return getBias() ? rule : withOnePartial(rule, kPartialSum, {0});
  };
  auto input = cast<RankedTensorType>(getInput().getType());
  auto weight = cast<RankedTensorType>(getWeight().getType());
  auto output = cast<RankedTensorType>(getType());
  int64_t k = input.getRank() - 2;
  int64_t group = static_cast<int64_t>(getGroup());
  ArrayRef<int64_t> strides = getStrides(), pads = getPads();
  int64_t m = weight.getDimSize(0), cg = weight.getDimSize(1);
  if (k < 1 || weight.getRank() != k + 2 || output.getRank() != k + 2 ||
      static_cast<int64_t>(strides.size()) != k ||
      static_cast<int64_t>(pads.size()) != 2 * k || group < 1 ||
      isDynamic(m) || isDynamic(cg) || m % group != 0 ||
      input.getDimSize(1) != cg * group)
    return partial(replicatedOperandsRule(getOperation()));

  ShardingRuleBuilder b(getOperation());
  int64_t n = b.addFactor(input.getDimSize(0));
  int64_t g = b.addFactor(group), mg = b.addFactor(m / group);
  int64_t ic = b.addFactor(cg, FactorKind::Sum);
  Dim outChannel = b.product({g, mg});
  SmallVector<Dim> in = {b.dim(n), b.product({g, ic})};
  SmallVector<Dim> w = {outChannel, cg == 1 ? b.unit() : b.dim(ic)};
  SmallVector<Dim> out = {b.dim(n), outChannel};
  convSpatialDims(b, input, weight, output, strides, pads, {}, in, w, out);
  b.setOperand(0, in);
  b.setOperand(1, w);
  if (getBias())
    b.setOperand(2, {outChannel});
  b.setResult(0, out);
  return partial(b.build());
}

LogicalResult
ConvTransposeOp::inferReturnTypes(MLIRContext *, std::optional<Location> loc,
                                  Adaptor adaptor,
                                  SmallVectorImpl<Type> &results) {
  Type biasType = adaptor.getBias() ? adaptor.getBias().getType() : Type();
  int64_t group = static_cast<int64_t>(adaptor.getGroup());
  FailureOr<int64_t> k = checkConvCommon(
      loc, "conv_transpose", adaptor.getInput().getType(),
      adaptor.getWeight().getType(), biasType, adaptor.getStrides(),
      adaptor.getPads(), adaptor.getDilations(), group);
  if (failed(k))
    return failure();
  auto input = cast<RankedTensorType>(adaptor.getInput().getType());
  auto weight = cast<RankedTensorType>(adaptor.getWeight().getType());
  ArrayRef<int64_t> outputPadding = adaptor.getOutputPadding();
  if (static_cast<int64_t>(outputPadding.size()) != *k ||
      llvm::any_of(outputPadding, [](int64_t p) { return p < 0; }))
    return emitOptionalError(loc, "conv_transpose: output_padding must hold ",
                             *k, " non-negative values, got ",
                             toString(outputPadding));
  // weight: [C, M/group, k1, ...].
  int64_t c = input.getDimSize(1), wc = weight.getDimSize(0),
          mg = weight.getDimSize(1);
  if (!dimsAgree(c, wc))
    return emitOptionalError(loc, "conv_transpose: input ", input, " has ", c,
                             " channels but weight ", weight, " has ", wc);
  int64_t channels = mergeDims(c, wc);
  if (!isDynamic(channels) && channels % group != 0)
    return emitOptionalError(loc, "conv_transpose: ", channels,
                             " input channels do not divide into ", group,
                             " groups");
  std::optional<int64_t> m = mulDims(mg, group);
  if (!m)
    return emitOptionalError(loc, "conv_transpose: output channels ", mg,
                             " x group ", group, " overflow");
  if (biasType && failed(requireVector(loc, "conv_transpose", "bias",
                                       cast<RankedTensorType>(biasType), *m,
                                       "one per output channel")))
    return failure();
  SmallVector<int64_t> shape = {input.getDimSize(0), *m};
  ArrayRef<int64_t> strides = adaptor.getStrides(), pads = adaptor.getPads(),
                    dilations = adaptor.getDilations();
  for (int64_t i = 0; i < *k; ++i) {
    int64_t in = input.getDimSize(2 + i), kernel = weight.getDimSize(2 + i);
    if (isDynamic(in) || isDynamic(kernel)) {
      shape.push_back(kDynamic);
      continue;
    }
    // stride*(in-1) + output_padding + ((kernel-1)*dilation+1) - pads.
    // Pads and output_padding are non-negative, so negating them is safe.
    std::optional<int64_t> out = mulDims(in - 1, strides[i]);
    std::optional<int64_t> window = mulDims(kernel - 1, dilations[i]);
    for (std::optional<int64_t> term :
         {window, std::optional<int64_t>(outputPadding[i]),
          std::optional<int64_t>(1), std::optional<int64_t>(-pads[i]),
          std::optional<int64_t>(-pads[i + *k])})
      out = out && term ? addDims(*out, *term) : std::nullopt;
    if (in < 1 || !out || *out < 1)
      return emitOptionalError(
          loc, "conv_transpose: spatial axis ", i, " of input ", input,
          " with kernel ", kernel, ", stride ", strides[i], ", dilation ",
          dilations[i], ", output_padding ", outputPadding[i], " and pads ",
          pads[i], ", ", pads[i + *k], " gives no valid output size");
    shape.push_back(*out);
  }
  results.push_back(RankedTensorType::get(shape, input.getElementType()));
  return success();
}

// Factors: n; the group g, the input channels of a group cg (a sum) and
// the output channels of a group mg: input channel = (g, cg), weight
// [(g, cg), mg, ...], output channel and bias = (g, mg); and the spatial
// dimensions (convSpatialDims: an output position gathers input positions
// (o + pad - w * dilation) / stride, so split outputs read whole inputs).
ShardingRuleAttr ConvTransposeOp::buildShardingRule() {
  // Linear in the input without a bias: a partial sum goes through.
  auto partial = [&](ShardingRuleAttr rule) {
    return getBias() ? rule : withOnePartial(rule, kPartialSum, {0});
  };
  auto input = cast<RankedTensorType>(getInput().getType());
  auto weight = cast<RankedTensorType>(getWeight().getType());
  auto output = cast<RankedTensorType>(getType());
  int64_t k = input.getRank() - 2;
  int64_t group = static_cast<int64_t>(getGroup());
  ArrayRef<int64_t> strides = getStrides(), pads = getPads();
  int64_t c = input.getDimSize(1), mg = weight.getDimSize(1);
  if (k < 1 || weight.getRank() != k + 2 || output.getRank() != k + 2 ||
      static_cast<int64_t>(strides.size()) != k ||
      static_cast<int64_t>(pads.size()) != 2 * k ||
      static_cast<int64_t>(getOutputPadding().size()) != k || group < 1 ||
      isDynamic(c) || isDynamic(mg) || c % group != 0 ||
      weight.getDimSize(0) != c || output.getDimSize(1) != mg * group)
    return partial(replicatedOperandsRule(getOperation()));

  ShardingRuleBuilder b(getOperation());
  int64_t n = b.addFactor(input.getDimSize(0));
  int64_t g = b.addFactor(group), cg = b.addFactor(c / group, FactorKind::Sum);
  int64_t m = b.addFactor(mg);
  Dim inChannel = b.product({g, cg}), outChannel = b.product({g, m});
  SmallVector<Dim> in = {b.dim(n), inChannel};
  SmallVector<Dim> w = {inChannel, mg == 1 ? b.unit() : b.dim(m)};
  SmallVector<Dim> out = {b.dim(n), outChannel};
  convSpatialDims(b, input, weight, output, strides, pads, getOutputPadding(),
                  in, w, out);
  b.setOperand(0, in);
  b.setOperand(1, w);
  if (getBias())
    b.setOperand(2, {outChannel});
  b.setResult(0, out);
  return partial(b.build());
}

//===----------------------------------------------------------------------===//
// Resize, depth/space rearrangement
//===----------------------------------------------------------------------===//

LogicalResult ResizeOp::inferReturnTypes(MLIRContext *,
                                         std::optional<Location> loc,
                                         Adaptor adaptor,
                                         SmallVectorImpl<Type> &results) {
  auto input = asRanked(adaptor.getInput().getType());
  if (!input)
    return emitOptionalError(loc, "resize: input must be a ranked tensor");
  ArrayRef<int64_t> sizes = adaptor.getSizes();
  if (static_cast<int64_t>(sizes.size()) != input.getRank())
    return emitOptionalError(loc, "resize: sizes ", toString(sizes), " has ",
                             sizes.size(), " values but the input ", input,
                             " has rank ", input.getRank());
  if (llvm::any_of(sizes, [](int64_t s) { return s < 1; }))
    return emitOptionalError(loc, "resize: sizes must be positive, got ",
                             toString(sizes));
  results.push_back(RankedTensorType::get(sizes, input.getElementType()));
  return success();
}

LogicalResult ResizeOp::verify() {
  auto input = cast<RankedTensorType>(getInput().getType());
  auto result = cast<RankedTensorType>(getType());
  ArrayRef<float> scales = getScales();
  if (static_cast<int64_t>(scales.size()) != input.getRank())
    return emitOpError("needs one scale per input axis (")
           << input.getRank() << "), got " << scales.size();
  for (float s : scales)
    if (!std::isfinite(s) || s <= 0)
      return emitOpError("scales must be positive and finite, got ") << s;
  // Malformed sizes are reported by inference; here, a well-formed `sizes`
  // that disagrees with the declared result.
  ArrayRef<int64_t> sizes = getSizes();
  if (sizes.size() == scales.size() &&
      llvm::all_of(sizes, [](int64_t s) { return s >= 1; }) &&
      sizes != result.getShape())
    return emitOpError("sizes ")
           << toString(getSizes()) << " must equal the result shape "
           << toString(result.getShape());
  StringRef mode = getMode();
  if (mode != "nearest" && mode != "linear" && mode != "cubic")
    return emitOpError("mode must be \"nearest\", \"linear\" or \"cubic\", "
                       "got \"")
           << mode << "\"";
  StringRef ctm = getCoordinateTransformationMode();
  if (ctm == "tf_crop_and_resize")
    return emitOpError("coordinate_transformation_mode \"tf_crop_and_resize\" "
                       "needs an roi, which telar.resize does not carry");
  if (!llvm::is_contained({"half_pixel", "half_pixel_symmetric",
                           "pytorch_half_pixel", "align_corners", "asymmetric",
                           "tf_half_pixel_for_nn"},
                          ctm))
    return emitOpError("unknown coordinate_transformation_mode \"")
           << ctm << "\"";
  StringRef nearest = getNearestMode();
  if (!llvm::is_contained(
          {"round_prefer_floor", "round_prefer_ceil", "floor", "ceil"},
          nearest))
    return emitOpError("unknown nearest_mode \"") << nearest << "\"";
  return success();
}

// An axis that keeps its size with scale 1 maps every output index to the
// same input index in every mode (nearest, linear and cubic interpolation
// at an integer coordinate return that element), so it is parallel; a
// resized axis stays whole in the input (the output's is a parallel factor
// of its own: each device resamples its block of outputs from the whole
// axis).
ShardingRuleAttr ResizeOp::buildShardingRule() {
  auto input = cast<RankedTensorType>(getInput().getType());
  auto result = cast<RankedTensorType>(getType());
  ArrayRef<float> scales = getScales();
  SmallVector<bool> whole;
  for (int64_t i = 0; i < result.getRank(); ++i)
    whole.push_back(!(i < input.getRank() && !isDynamic(input.getDimSize(i)) &&
                      input.getDimSize(i) == result.getDimSize(i) &&
                      (i >= static_cast<int64_t>(scales.size()) ||
                       scales[i] == 1.0f)));
  return firstOperandRule(getOperation(), whole);
}

/// Checks the NCHW input and block size of depth_to_space / space_to_depth.
static FailureOr<RankedTensorType> checkBlockOp(std::optional<Location> loc,
                                                StringRef op, Type inputType,
                                                int64_t blocksize) {
  auto input = asRanked(inputType);
  if (!input || input.getRank() != 4)
    return emitOptionalError(loc, op,
                             ": input must be a rank-4 tensor (N x C x H x W), "
                             "got ",
                             inputType);
  if (blocksize < 1)
    return emitOptionalError(loc, op, ": blocksize must be positive, got ",
                             blocksize);
  if (!mulDims(blocksize, blocksize))
    return emitOptionalError(loc, op, ": blocksize ", blocksize,
                             " is too large");
  return input;
}

/// The rule of depth_to_space / space_to_depth: the batch is parallel and
/// the channel and spatial axes are products of the same factors: for
/// depth_to_space, input channel (i, j, c) (DCR) or (c, i, j) (CRD), output
/// [(h, i), (w, j)] with i, j the block offsets; space_to_depth is the
/// inverse (DCR). With unknown channel or spatial sizes only the batch is
/// parallel.
static ShardingRuleAttr blockRule(Operation *op, bool toSpace, bool crd,
                                  int64_t bs) {
  auto depthType = cast<RankedTensorType>(
      (toSpace ? op->getOperand(0) : op->getResult(0)).getType());
  auto spaceType = cast<RankedTensorType>(
      (toSpace ? op->getResult(0) : op->getOperand(0)).getType());
  ShardingRuleBuilder b(op);
  auto staticCHW = [](RankedTensorType t) {
    return t.getRank() == 4 && llvm::none_of(t.getShape().drop_front(),
                                             ShapedType::isDynamic);
  };
  if (!staticCHW(depthType) || !staticCHW(spaceType) || bs < 1 ||
      depthType.getDimSize(0) != spaceType.getDimSize(0)) {
    auto in = cast<RankedTensorType>(op->getOperand(0).getType());
    auto out = cast<RankedTensorType>(op->getResult(0).getType());
    SmallVector<bool> whole(out.getRank(), true);
    if (!whole.empty() && in.getRank() > 0 && in.getDimSize(0) == out.getDimSize(0))
      whole[0] = false;
    return firstOperandRule(op, whole);
  }
  int64_t n = b.addFactor(depthType.getDimSize(0));
  int64_t i = b.addFactor(bs), j = b.addFactor(bs);
  int64_t c = b.addFactor(spaceType.getDimSize(1));
  int64_t h = b.addFactor(depthType.getDimSize(2));
  int64_t w = b.addFactor(depthType.getDimSize(3));
  SmallVector<Dim> depth = {b.dim(n), crd ? b.product({c, i, j}) : b.product({i, j, c}),
                            b.dim(h), b.dim(w)};
  SmallVector<Dim> space = {b.dim(n), b.dim(c), b.product({h, i}),
                            b.product({w, j})};
  b.setOperand(0, toSpace ? depth : space);
  b.setResult(0, toSpace ? space : depth);
  return b.build();
}

LogicalResult DepthToSpaceOp::inferReturnTypes(MLIRContext *,
                                               std::optional<Location> loc,
                                               Adaptor adaptor,
                                               SmallVectorImpl<Type> &results) {
  int64_t bs = static_cast<int64_t>(adaptor.getBlocksize());
  FailureOr<RankedTensorType> input =
      checkBlockOp(loc, "depth_to_space", adaptor.getInput().getType(), bs);
  if (failed(input))
    return failure();
  StringRef mode = adaptor.getMode();
  if (mode != "DCR" && mode != "CRD")
    return emitOptionalError(loc,
                             "depth_to_space: mode must be \"DCR\" or "
                             "\"CRD\", got \"",
                             mode, "\"");
  ArrayRef<int64_t> in = input->getShape();
  int64_t block = bs * bs;
  if (!isDynamic(in[1]) && in[1] % block != 0)
    return emitOptionalError(loc, "depth_to_space: ", in[1],
                             " channels of input ", *input,
                             " do not divide by blocksize^2 = ", block);
  std::optional<int64_t> h = mulDims(in[2], bs), w = mulDims(in[3], bs);
  if (!h || !w)
    return emitOptionalError(loc, "depth_to_space: output of input ", *input,
                             " with blocksize ", bs, " is too large");
  int64_t c = isDynamic(in[1]) ? kDynamic : in[1] / block;
  results.push_back(
      RankedTensorType::get({in[0], c, *h, *w}, input->getElementType()));
  return success();
}

ShardingRuleAttr DepthToSpaceOp::buildShardingRule() {
  return blockRule(getOperation(), /*toSpace=*/true, getMode() == "CRD",
                   static_cast<int64_t>(getBlocksize()));
}

LogicalResult SpaceToDepthOp::inferReturnTypes(MLIRContext *,
                                               std::optional<Location> loc,
                                               Adaptor adaptor,
                                               SmallVectorImpl<Type> &results) {
  int64_t bs = static_cast<int64_t>(adaptor.getBlocksize());
  FailureOr<RankedTensorType> input =
      checkBlockOp(loc, "space_to_depth", adaptor.getInput().getType(), bs);
  if (failed(input))
    return failure();
  ArrayRef<int64_t> in = input->getShape();
  for (int64_t i : {2, 3})
    if (!isDynamic(in[i]) && in[i] % bs != 0)
      return emitOptionalError(loc, "space_to_depth: spatial sizes of input ",
                               *input, " must be multiples of blocksize ", bs);
  std::optional<int64_t> c = mulDims(in[1], bs * bs);
  if (!c)
    return emitOptionalError(loc, "space_to_depth: output of input ", *input,
                             " with blocksize ", bs, " is too large");
  auto div = [&](int64_t d) { return isDynamic(d) ? kDynamic : d / bs; };
  results.push_back(RankedTensorType::get({in[0], *c, div(in[2]), div(in[3])},
                                          input->getElementType()));
  return success();
}

ShardingRuleAttr SpaceToDepthOp::buildShardingRule() {
  return blockRule(getOperation(), /*toSpace=*/false, /*crd=*/false,
                   static_cast<int64_t>(getBlocksize()));
}

//===----------------------------------------------------------------------===//
// Rotary embedding
//===----------------------------------------------------------------------===//

// Input [B, H, S, D] or [B, S, H*D] with num_heads. Caches are [B, S, R/2]
// (batch may be 1), or [P, R/2] indexed by position_ids [B, S]; R is
// rotary_embedding_dim, or D when 0.
LogicalResult
RotaryEmbeddingOp::inferReturnTypes(MLIRContext *, std::optional<Location> loc,
                                    Adaptor adaptor,
                                    SmallVectorImpl<Type> &results) {
  constexpr StringLiteral op = "rotary_embedding";
  SmallVector<std::pair<StringRef, Type>> named = {
      {"input", adaptor.getInput().getType()},
      {"cos_cache", adaptor.getCosCache().getType()},
      {"sin_cache", adaptor.getSinCache().getType()}};
  if (adaptor.getPositionIds())
    named.push_back({"position_ids", adaptor.getPositionIds().getType()});
  if (failed(requireRanked(loc, op, named)))
    return failure();
  auto input = cast<RankedTensorType>(named[0].second);
  auto cos = cast<RankedTensorType>(named[1].second);
  auto sin = cast<RankedTensorType>(named[2].second);
  int64_t numHeads = static_cast<int64_t>(adaptor.getNumHeads());
  int64_t rotaryDim = static_cast<int64_t>(adaptor.getRotaryEmbeddingDim());
  if (numHeads < 0 || rotaryDim < 0)
    return emitOptionalError(loc, op,
                             ": num_heads and rotary_embedding_dim must not be "
                             "negative, got ",
                             numHeads, " and ", rotaryDim);
  int64_t batch, seq, headSize;
  if (input.getRank() == 4) {
    batch = input.getDimSize(0);
    seq = input.getDimSize(2);
    headSize = input.getDimSize(3);
    if (numHeads > 0 && !dimsAgree(numHeads, input.getDimSize(1)))
      return emitOptionalError(loc, op, ": num_heads = ", numHeads,
                               " disagrees with input ", input,
                               " [batch, heads, seq, head_size]");
  } else if (input.getRank() == 3) {
    batch = input.getDimSize(0);
    seq = input.getDimSize(1);
    if (numHeads == 0)
      return emitOptionalError(loc, op, ": a rank-3 input ", input,
                               " [batch, seq, hidden] needs num_heads > 0");
    int64_t hidden = input.getDimSize(2);
    if (!isDynamic(hidden) && hidden % numHeads != 0)
      return emitOptionalError(loc, op, ": hidden size ", hidden,
                               " does not divide into ", numHeads, " heads");
    headSize = isDynamic(hidden) ? kDynamic : hidden / numHeads;
  } else {
    return emitOptionalError(loc, op,
                             ": input must be [batch, heads, seq, head_size] "
                             "or [batch, seq, hidden], got ",
                             input);
  }
  int64_t rot = rotaryDim > 0 ? rotaryDim : headSize;
  if (!isDynamic(rot) &&
      (rot % 2 != 0 || (!isDynamic(headSize) && rot > headSize)))
    return emitOptionalError(loc, op, ": the rotary dimension ", rot,
                             " must be even and at most the head size ",
                             headSize);
  if (failed(
          requireSameElementType(loc, op, "input", input, "cos_cache", cos)) ||
      failed(requireSameElementType(loc, op, "input", input, "sin_cache", sin)))
    return failure();
  if (cos.getShape() != sin.getShape())
    return emitOptionalError(loc, op, ": cos_cache ", cos, " and sin_cache ",
                             sin, " must have the same shape");
  // The caches' last dim C holds rotary_dim / 2 angles; with partial
  // rotation ONNX also allows head_size / 2 entries (the reference slices
  // the first rotary_dim / 2), so rotary_dim / 2 <= C <= head_size / 2.
  int64_t half = isDynamic(rot) ? kDynamic : rot / 2;
  int64_t maxHalf = isDynamic(headSize) ? kDynamic : headSize / 2;
  auto cacheDimOk = [&](int64_t c) {
    if (isDynamic(c))
      return true;
    if (!isDynamic(half) && c < half)
      return false;
    return isDynamic(maxHalf) || c <= maxHalf;
  };
  // Partial rotation: the message gives the range of C.
  bool partial = !isDynamic(half) && half != maxHalf;
  std::string range =
      partial ? " with rotary_dim / 2 = " + std::to_string(half) +
                    " <= C <= head_size / 2" +
                    (isDynamic(maxHalf) ? std::string()
                                        : " = " + std::to_string(maxHalf))
              : std::string();
  if (auto pos = adaptor.getPositionIds()) {
    auto ids = cast<RankedTensorType>(pos.getType());
    if (ids.getRank() != 2 || !dimsAgree(ids.getDimSize(0), batch) ||
        !dimsAgree(ids.getDimSize(1), seq))
      return emitOptionalError(loc, op, ": position_ids ", ids,
                               " must be [batch, seq] of input ", input);
    if (cos.getRank() != 2 || !cacheDimOk(cos.getDimSize(1))) {
      if (partial)
        return emitOptionalError(loc, op,
                                 ": with position_ids the caches must be "
                                 "[max_position, C]",
                                 range, ", got ", cos);
      return emitOptionalError(loc, op,
                               ": with position_ids the caches must "
                               "be [max_position, ",
                               half, "], got ", cos);
    }
  } else if (cos.getRank() != 3 ||
             !(cos.getDimSize(0) == 1 || dimsAgree(cos.getDimSize(0), batch)) ||
             !dimsAgree(cos.getDimSize(1), seq) ||
             !cacheDimOk(cos.getDimSize(2))) {
    if (partial) {
      std::string dims = toString({batch, seq});
      dims.insert(dims.size() - 1, ", C");
      return emitOptionalError(loc, op,
                               ": without position_ids the caches must be "
                               "[batch, seq, C] = ",
                               dims, range, ", got ", cos);
    }
    return emitOptionalError(loc, op,
                             ": without position_ids the caches must be "
                             "[batch, seq, rotary_dim / 2] = ",
                             toString({batch, seq, half}), ", got ", cos);
  }
  results.push_back(input);
  return success();
}

// Batch, heads and sequence are parallel (each position rotates on its own);
// the feature axis, whose halves or neighbours pair up, stays whole, as does
// a [batch, seq, hidden] input's hidden axis. Caches [batch or 1, seq, C]
// follow batch (or broadcast against it) and sequence; caches indexed by
// position_ids stay whole, and the ids follow batch and sequence.
ShardingRuleAttr RotaryEmbeddingOp::buildShardingRule() {
  auto input = cast<RankedTensorType>(getInput().getType());
  int64_t rank = input.getRank();
  if (rank != 3 && rank != 4)
    return replicatedOperandsRule(getOperation());
  int64_t seqAxis = rank == 4 ? 2 : 1;
  ShardingRuleBuilder b(getOperation());
  SmallVector<Dim> x;
  SmallVector<int64_t> f;
  for (int64_t i = 0; i < rank - 1; ++i) {
    f.push_back(b.addFactor(input.getDimSize(i)));
    x.push_back(b.dim(f.back()));
  }
  x.push_back(b.whole(rank - 1, input.getDimSize(rank - 1)));
  b.setOperand(0, x);
  auto cacheDims = [&](Type type) {
    auto t = cast<RankedTensorType>(type);
    if (getPositionIds() || t.getRank() != 3 ||
        t.getDimSize(1) != input.getDimSize(seqAxis))
      return wholeDims(b, t);
    SmallVector<Dim> dims;
    if (t.getDimSize(0) == input.getDimSize(0))
      dims.push_back(b.dim(f[0]));
    else if (t.getDimSize(0) == 1)
      dims.push_back(b.broadcast(f[0]));
    else
      return wholeDims(b, t);
    dims.push_back(b.dim(f[seqAxis]));
    dims.push_back(b.whole(-1, t.getDimSize(2)));
    return dims;
  };
  b.setOperand(1, cacheDims(getCosCache().getType()));
  b.setOperand(2, cacheDims(getSinCache().getType()));
  if (Value ids = getPositionIds()) {
    auto t = cast<RankedTensorType>(ids.getType());
    if (t.getRank() == 2 && t.getDimSize(0) == input.getDimSize(0) &&
        t.getDimSize(1) == input.getDimSize(seqAxis))
      b.setOperand(3, {b.dim(f[0]), b.dim(f[seqAxis])});
    else
      b.setOperand(3, wholeDims(b, t));
  }
  b.setResult(0, x);
  return b.build();
}
