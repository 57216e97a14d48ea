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

#include "mlir/IR/AffineExpr.h"
#include "mlir/IR/AffineMap.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Diagnostics.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/raw_ostream.h"

#include <cmath>

using namespace mlir;
using namespace mlir::telar;

using utils::IteratorType;

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

namespace {
/// Collects the maps of a rule over a fixed number of loops.
struct RuleBuilder {
  MLIRContext *ctx;
  ShardingRule rule;

  RuleBuilder(Operation *op) : ctx(op->getContext()) {}

  unsigned numLoops() const { return rule.iterators.size(); }
  unsigned addLoop(IteratorType type,
                   shard::ReductionKind kind = shard::ReductionKind::Sum) {
    rule.iterators.push_back(type);
    if (type == IteratorType::reduction)
      rule.reductionKinds.push_back(kind);
    return rule.iterators.size() - 1;
  }
  unsigned addParallel() { return addLoop(IteratorType::parallel); }
  unsigned addSum() { return addLoop(IteratorType::reduction); }

  AffineExpr d(unsigned i) const { return getAffineDimExpr(i, ctx); }
  AffineExpr zero() const { return getAffineConstantExpr(0, ctx); }
  void map(ArrayRef<AffineExpr> exprs) {
    rule.maps.push_back(AffineMap::get(numLoops(), 0, exprs, ctx));
  }

  /// The rule, without loops that index no tensor (those of axes kept
  /// whole), as keepWholeRule does.
  ShardingRule finish() {
    SmallVector<AffineExpr> replacements;
    ShardingRule out;
    unsigned reduction = 0;
    for (unsigned i = 0, e = numLoops(); i < e; ++i) {
      bool isReduction = rule.iterators[i] == IteratorType::reduction;
      if (llvm::any_of(rule.maps,
                       [&](AffineMap m) { return m.isFunctionOfDim(i); })) {
        replacements.push_back(d(out.iterators.size()));
        out.iterators.push_back(rule.iterators[i]);
        if (isReduction)
          out.reductionKinds.push_back(rule.reductionKinds[reduction]);
      } else {
        replacements.push_back(zero());
      }
      reduction += isReduction;
    }
    for (AffineMap m : rule.maps)
      out.maps.push_back(
          m.replaceDimsAndSymbols(replacements, {}, out.iterators.size(), 0));
    return out;
  }
};
} // namespace

/// Loops = the result's dimensions, all parallel. Every operand and result
/// aligns to the trailing result dimensions (numpy); a dimension maps to 0
/// when `whole[resultDim]` or when it is a size-1 broadcast, else to its
/// loop. Used by layer_norm / rms_norm, whose scale and bias broadcast
/// against the trailing axes.
static ShardingRule trailingAlignedRule(Operation *op, ArrayRef<bool> whole) {
  RuleBuilder b(op);
  auto result = cast<RankedTensorType>(op->getResult(0).getType());
  int64_t rank = result.getRank();
  for (int64_t i = 0; i < rank; ++i)
    b.addParallel();
  auto mapValue = [&](Type type) {
    auto t = cast<RankedTensorType>(type);
    int64_t r = t.getRank();
    SmallVector<AffineExpr> exprs;
    for (int64_t i = 0; i < r; ++i) {
      int64_t rd = rank - r + i;
      bool keep = rd >= 0 && !whole[rd] &&
                  !(t.getDimSize(i) == 1 && result.getDimSize(rd) != 1);
      exprs.push_back(keep ? b.d(rd) : b.zero());
    }
    b.map(exprs);
  };
  for (Type t : op->getOperandTypes())
    mapValue(t);
  mapValue(result);
  return b.finish();
}

/// Loops = the result's dimensions (NC...), all parallel. The first operand
/// and the result keep the dimensions in `whole` whole; rank-1 operands are
/// per-channel vectors indexed by the channel loop (or 0 when the channel is
/// whole or the vector broadcasts).
static ShardingRule perChannelRule(Operation *op, ArrayRef<bool> whole) {
  RuleBuilder b(op);
  auto result = cast<RankedTensorType>(op->getResult(0).getType());
  int64_t rank = result.getRank();
  for (int64_t i = 0; i < rank; ++i)
    b.addParallel();
  auto full = [&]() {
    SmallVector<AffineExpr> exprs;
    for (int64_t i = 0; i < rank; ++i)
      exprs.push_back(whole[i] ? b.zero() : b.d(i));
    b.map(exprs);
  };
  for (auto [i, type] : llvm::enumerate(op->getOperandTypes())) {
    auto t = cast<RankedTensorType>(type);
    if (i == 0) {
      full();
      continue;
    }
    // Per-channel vector [C]; the channel is axis 1 (a rank-1 input has
    // one implicit channel).
    bool channelLoop = rank > 1 && !whole[1] && t.getRank() == 1 &&
                       t.getDimSize(0) == result.getDimSize(1) &&
                       t.getDimSize(0) != 1;
    SmallVector<AffineExpr> exprs(t.getRank(), b.zero());
    if (channelLoop)
      exprs[0] = b.d(1);
    b.map(exprs);
  }
  full();
  return b.finish();
}

/// Loops = the result's dimensions, all parallel; dimension `i` of the first
/// operand maps to loop `i` when `parallel[i]`, else to 0; every other
/// operand is replicated.
static ShardingRule firstOperandRule(Operation *op, ArrayRef<bool> parallel) {
  RuleBuilder b(op);
  auto result = cast<RankedTensorType>(op->getResult(0).getType());
  int64_t rank = result.getRank();
  for (int64_t i = 0; i < rank; ++i)
    b.addParallel();
  for (auto [i, type] : llvm::enumerate(op->getOperandTypes())) {
    int64_t r = cast<RankedTensorType>(type).getRank();
    SmallVector<AffineExpr> exprs;
    for (int64_t j = 0; j < r; ++j)
      exprs.push_back(i == 0 && j < rank && parallel[j] ? b.d(j) : b.zero());
    b.map(exprs);
  }
  SmallVector<AffineExpr> exprs;
  for (int64_t i = 0; i < rank; ++i)
    exprs.push_back(b.d(i));
  b.map(exprs);
  return b.finish();
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

/// Rule of the trailing-axes norms; replicated when the axis is invalid.
static ShardingRule trailingNormRule(Operation *op, int64_t axis) {
  auto result = cast<RankedTensorType>(op->getResult(0).getType());
  std::optional<int64_t> a = normalizeAxis(axis, result.getRank());
  if (!a)
    return replicatedOperandsRule(op);
  return trailingAlignedRule(op, wholeFrom(result.getRank(), *a));
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

ShardingRule LayerNormOp::getShardingRule() {
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

ShardingRule RMSNormOp::getShardingRule() {
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
ShardingRule BatchNormOp::getShardingRule() {
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
ShardingRule InstanceNormOp::getShardingRule() {
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

// Statistics span a group of channels and the spatial axes, so those stay
// whole; channels are parallel only when every group is one channel.
ShardingRule GroupNormOp::getShardingRule() {
  auto type = cast<RankedTensorType>(getType());
  SmallVector<bool> whole = wholeFrom(type.getRank(), 1);
  if (type.getRank() > 1 &&
      type.getDimSize(1) == static_cast<int64_t>(getNumGroups()))
    whole[1] = false;
  return perChannelRule(getOperation(), whole);
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

ShardingRule MeanVarianceNormOp::getShardingRule() {
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
ShardingRule LRNOp::getShardingRule() {
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

// Loops: result batch dims..., m (2-D+ lhs), n (2-D+ rhs), k (sum). Batch
// dims an operand broadcasts (size 1) map to 0.
ShardingRule MatMulOp::getShardingRule() {
  auto lhs = cast<RankedTensorType>(getLhs().getType());
  auto rhs = cast<RankedTensorType>(getRhs().getType());
  auto result = cast<RankedTensorType>(getType());
  int64_t lr = lhs.getRank(), rr = rhs.getRank();
  int64_t lb = std::max<int64_t>(lr - 2, 0), rb = std::max<int64_t>(rr - 2, 0);
  int64_t nb = std::max(lb, rb);
  if (lr < 1 || rr < 1 || result.getRank() != nb + (lr >= 2) + (rr >= 2))
    return replicatedOperandsRule(getOperation());

  RuleBuilder b(getOperation());
  for (int64_t i = 0; i < nb; ++i)
    b.addParallel();
  std::optional<unsigned> m, n;
  if (lr >= 2)
    m = b.addParallel();
  if (rr >= 2)
    n = b.addParallel();
  unsigned k = b.addSum();

  auto batchExprs = [&](RankedTensorType t, int64_t count) {
    SmallVector<AffineExpr> exprs;
    for (int64_t i = 0; i < count; ++i) {
      int64_t rd = nb - count + i;
      bool broadcast = t.getDimSize(i) == 1 && result.getDimSize(rd) != 1;
      exprs.push_back(broadcast ? b.zero() : b.d(rd));
    }
    return exprs;
  };
  SmallVector<AffineExpr> lhsExprs = batchExprs(lhs, lb);
  if (m)
    lhsExprs.push_back(b.d(*m));
  lhsExprs.push_back(b.d(k));
  SmallVector<AffineExpr> rhsExprs = batchExprs(rhs, rb);
  rhsExprs.push_back(b.d(k));
  if (n)
    rhsExprs.push_back(b.d(*n));
  SmallVector<AffineExpr> outExprs;
  for (int64_t i = 0; i < nb; ++i)
    outExprs.push_back(b.d(i));
  if (m)
    outExprs.push_back(b.d(*m));
  if (n)
    outExprs.push_back(b.d(*n));
  b.map(lhsExprs);
  b.map(rhsExprs);
  b.map(outExprs);
  return b.finish();
}

//===----------------------------------------------------------------------===//
// Einsum
//===----------------------------------------------------------------------===//

namespace {
struct EinsumEquation {
  SmallVector<std::string> inputs;
  std::string output;
};
} // namespace

/// Parses an explicit equation `ab,bc->ac` (letters only; spaces ignored).
static FailureOr<EinsumEquation> parseEinsum(std::optional<Location> loc,
                                             StringRef equation) {
  std::string eq;
  for (char ch : equation)
    if (ch != ' ')
      eq.push_back(ch);
  StringRef s(eq);
  if (s.contains('.'))
    return emitOptionalError(loc, "einsum: equation \"", equation,
                             "\" has an ellipsis; the importer must expand "
                             "'...' into letters");
  size_t arrow = s.find("->");
  if (arrow == StringRef::npos)
    return emitOptionalError(loc, "einsum: equation \"", equation,
                             "\" needs an explicit output ('->')");
  EinsumEquation result;
  SmallVector<StringRef> terms;
  s.take_front(arrow).split(terms, ',');
  for (StringRef term : terms)
    result.inputs.push_back(term.str());
  result.output = s.drop_front(arrow + 2).str();
  auto checkLetters = [&](StringRef term) -> LogicalResult {
    for (char ch : term) {
      if (llvm::isAlpha(ch))
        continue;
      // Name printable characters; others (e.g. UTF-8 bytes) by code.
      std::string what =
          llvm::isPrint(ch)
              ? "'" + std::string(1, ch) + "'"
              : "byte " + llvm::utohexstr(static_cast<unsigned char>(ch));
      return emitOptionalError(loc, "einsum: equation \"", equation, "\" has ",
                               what, " where a letter is expected");
    }
    return success();
  };
  for (StringRef term : result.inputs)
    if (failed(checkLetters(term)))
      return failure();
  if (failed(checkLetters(result.output)))
    return failure();
  for (auto [i, ch] : llvm::enumerate(result.output)) {
    if (StringRef(result.output).take_front(i).contains(ch))
      return emitOptionalError(loc, "einsum: output letter '",
                               StringRef(&ch, 1), "' appears twice in \"",
                               equation, "\"");
    char letter = ch; // Lambdas cannot capture structured bindings in C++17.
    if (llvm::none_of(result.inputs, [&](const std::string &t) {
          return StringRef(t).contains(letter);
        }))
      return emitOptionalError(loc, "einsum: output letter '",
                               StringRef(&ch, 1), "' appears in no input of \"",
                               equation, "\"");
  }
  return result;
}

/// The op's loops, one per distinct letter: output letters first, then the
/// reduced letters in order of first appearance.
static std::string einsumLoops(const EinsumEquation &eq) {
  std::string loops = eq.output;
  for (const std::string &term : eq.inputs)
    for (char ch : term)
      if (!StringRef(loops).contains(ch))
        loops.push_back(ch);
  return loops;
}

LogicalResult EinsumOp::inferReturnTypes(MLIRContext *,
                                         std::optional<Location> loc,
                                         Adaptor adaptor,
                                         SmallVectorImpl<Type> &results) {
  FailureOr<EinsumEquation> eq = parseEinsum(loc, adaptor.getEquation());
  if (failed(eq))
    return failure();
  ValueRange inputs = adaptor.getInputs();
  if (inputs.empty())
    return emitOptionalError(loc, "einsum: needs at least one input");
  if (inputs.size() != eq->inputs.size())
    return emitOptionalError(loc, "einsum: equation \"", adaptor.getEquation(),
                             "\" has ", eq->inputs.size(),
                             " input terms but the op has ", inputs.size(),
                             " inputs");
  // Size of each letter (0..255); unset letters are absent.
  SmallVector<std::optional<int64_t>> sizes(256);
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
    const std::string &term = eq->inputs[i];
    if (static_cast<int64_t>(term.size()) != t.getRank())
      return emitOptionalError(loc, "einsum: term \"", term, "\" has ",
                               term.size(), " letters but input ", i, " ", t,
                               " has rank ", t.getRank());
    for (auto [j, ch] : llvm::enumerate(term)) {
      std::optional<int64_t> &size = sizes[static_cast<unsigned char>(ch)];
      int64_t d = t.getDimSize(j);
      if (size && !dimsAgree(*size, d))
        return emitOptionalError(loc, "einsum: letter '", StringRef(&ch, 1),
                                 "' has size ", *size, " and ", d, " (input ",
                                 i, " ", t, ")");
      size = size ? mergeDims(*size, d) : d;
    }
  }
  SmallVector<int64_t> shape;
  for (char ch : eq->output)
    shape.push_back(*sizes[static_cast<unsigned char>(ch)]);
  results.push_back(RankedTensorType::get(shape, first.getElementType()));
  return success();
}

ShardingRule EinsumOp::getShardingRule() {
  FailureOr<EinsumEquation> eq = parseEinsum(std::nullopt, getEquation());
  if (failed(eq) || eq->inputs.size() != getInputs().size())
    return replicatedOperandsRule(getOperation());
  std::string loops = einsumLoops(*eq);
  RuleBuilder b(getOperation());
  for (size_t i = 0; i < loops.size(); ++i) {
    if (i < eq->output.size())
      b.addParallel();
    else
      b.addSum();
  }
  auto mapTerm = [&](StringRef term) {
    SmallVector<AffineExpr> exprs;
    for (char ch : term)
      exprs.push_back(b.d(StringRef(loops).find(ch)));
    b.map(exprs);
  };
  for (const std::string &term : eq->inputs)
    mapTerm(term);
  mapTerm(eq->output);
  return b.finish();
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

// Loops (n, oc, o_1..o_k, ic, w_1..w_k); ic runs over the input channels of
// one group and, with the window loops, is a sum. The input's spatial index
// is o*stride + w*dilation: the pad offset is left out, since it shifts the
// window without changing which loops index the axis (the halo the planner
// derives from the expression is the same).
ShardingRule ConvOp::getShardingRule() {
  auto input = cast<RankedTensorType>(getInput().getType());
  auto weight = cast<RankedTensorType>(getWeight().getType());
  int64_t k = input.getRank() - 2;
  int64_t group = static_cast<int64_t>(getGroup());
  ArrayRef<int64_t> strides = getStrides(), dilations = getDilations();
  if (k < 1 || weight.getRank() != k + 2 ||
      static_cast<int64_t>(strides.size()) != k ||
      static_cast<int64_t>(dilations.size()) != k || group < 1)
    return replicatedOperandsRule(getOperation());

  RuleBuilder b(getOperation());
  unsigned n = b.addParallel(), oc = b.addParallel();
  SmallVector<unsigned> o, w;
  for (int64_t i = 0; i < k; ++i)
    o.push_back(b.addParallel());
  unsigned ic = b.addSum();
  for (int64_t i = 0; i < k; ++i)
    w.push_back(b.addSum());

  // Input channel of (oc, ic): ic within the group of oc.
  AffineExpr channel = b.d(ic);
  int64_t m = weight.getDimSize(0), cg = weight.getDimSize(1);
  if (group > 1) {
    if (isDynamic(m) || isDynamic(cg) || m % group != 0)
      channel = b.zero();
    else
      channel = b.d(oc).floorDiv(m / group) * cg + b.d(ic);
  }
  SmallVector<AffineExpr> inputExprs = {b.d(n), channel};
  SmallVector<AffineExpr> weightExprs = {b.d(oc), b.d(ic)};
  SmallVector<AffineExpr> outExprs = {b.d(n), b.d(oc)};
  for (int64_t i = 0; i < k; ++i) {
    inputExprs.push_back(b.d(o[i]) * strides[i] + b.d(w[i]) * dilations[i]);
    weightExprs.push_back(b.d(w[i]));
    outExprs.push_back(b.d(o[i]));
  }
  b.map(inputExprs);
  b.map(weightExprs);
  if (getBias())
    b.map({b.d(oc)});
  b.map(outExprs);
  return b.finish();
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

// Loops = result dims, all parallel. Each sample is independent, so the
// batch follows the loop. An output position gathers input positions
// (o + pad - w*dilation) / stride, which are not an affine function of the
// output loops, so the input's channel and spatial axes stay whole, as does
// the weight; with one group the weight's output-channel axis and the bias
// follow the output-channel loop, since each output channel reads only its
// own filters.
ShardingRule ConvTransposeOp::getShardingRule() {
  auto result = cast<RankedTensorType>(getType());
  auto weight = cast<RankedTensorType>(getWeight().getType());
  RuleBuilder b(getOperation());
  int64_t rank = result.getRank();
  for (int64_t i = 0; i < rank; ++i)
    b.addParallel();
  bool byChannel = getGroup() == 1 && rank >= 2;
  SmallVector<AffineExpr> inputExprs(
      cast<RankedTensorType>(getInput().getType()).getRank(), b.zero());
  if (!inputExprs.empty() && rank >= 1)
    inputExprs[0] = b.d(0);
  SmallVector<AffineExpr> weightExprs(weight.getRank(), b.zero());
  if (byChannel && weight.getRank() >= 2)
    weightExprs[1] = b.d(1);
  b.map(inputExprs);
  b.map(weightExprs);
  if (Value bias = getBias()) {
    SmallVector<AffineExpr> biasExprs(
        cast<RankedTensorType>(bias.getType()).getRank(), b.zero());
    if (byChannel && biasExprs.size() == 1)
      biasExprs[0] = b.d(1);
    b.map(biasExprs);
  }
  SmallVector<AffineExpr> outExprs;
  for (int64_t i = 0; i < rank; ++i)
    outExprs.push_back(b.d(i));
  b.map(outExprs);
  return b.finish();
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
// at an integer coordinate return that element), so it is parallel; the
// resized axes stay whole.
ShardingRule ResizeOp::getShardingRule() {
  auto input = cast<RankedTensorType>(getInput().getType());
  auto result = cast<RankedTensorType>(getType());
  ArrayRef<float> scales = getScales();
  SmallVector<bool> parallel;
  for (int64_t i = 0; i < result.getRank(); ++i)
    parallel.push_back(
        i < input.getRank() && !isDynamic(input.getDimSize(i)) &&
        input.getDimSize(i) == result.getDimSize(i) &&
        (i >= static_cast<int64_t>(scales.size()) || scales[i] == 1.0f));
  return firstOperandRule(getOperation(), parallel);
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

/// Batch follows the loop; the rearranged axes stay whole.
static ShardingRule batchOnlyRule(Operation *op) {
  auto result = cast<RankedTensorType>(op->getResult(0).getType());
  SmallVector<bool> parallel(result.getRank(), false);
  if (!parallel.empty())
    parallel[0] = true;
  return firstOperandRule(op, parallel);
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

ShardingRule DepthToSpaceOp::getShardingRule() {
  return batchOnlyRule(getOperation());
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

ShardingRule SpaceToDepthOp::getShardingRule() {
  return batchOnlyRule(getOperation());
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
// a [batch, seq, hidden] input's hidden axis. Caches indexed by position_ids
// are replicated; the ids follow batch and sequence.
ShardingRule RotaryEmbeddingOp::getShardingRule() {
  auto input = cast<RankedTensorType>(getInput().getType());
  int64_t rank = input.getRank();
  if (rank != 3 && rank != 4)
    return replicatedOperandsRule(getOperation());
  unsigned seqAxis = rank == 4 ? 2 : 1;
  RuleBuilder b(getOperation());
  for (int64_t i = 0; i < rank; ++i)
    b.addParallel();
  SmallVector<AffineExpr> xExprs;
  for (int64_t i = 0; i < rank; ++i)
    xExprs.push_back(i == rank - 1 ? b.zero() : b.d(i));
  b.map(xExprs);
  auto cacheExprs = [&](Type type) {
    auto t = cast<RankedTensorType>(type);
    SmallVector<AffineExpr> exprs(t.getRank(), b.zero());
    if (!getPositionIds() && t.getRank() == 3) {
      if (t.getDimSize(0) == input.getDimSize(0) && t.getDimSize(0) != 1)
        exprs[0] = b.d(0);
      exprs[1] = b.d(seqAxis);
    }
    return exprs;
  };
  b.map(cacheExprs(getCosCache().getType()));
  b.map(cacheExprs(getSinCache().getType()));
  if (Value ids = getPositionIds()) {
    SmallVector<AffineExpr> exprs(
        cast<RankedTensorType>(ids.getType()).getRank(), b.zero());
    if (exprs.size() == 2) {
      exprs[0] = b.d(0);
      exprs[1] = b.d(seqAxis);
    }
    b.map(exprs);
  }
  b.map(xExprs);
  return b.finish();
}
