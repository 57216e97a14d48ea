//===- ShardingRule.cpp - Per-op sharding rules ---------------------------===//

#include "telar/dialects/Telar/ShardingRule.h"
#include "telar/dialects/Telar/ShapeInference.h"

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Operation.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;

namespace mlir::telar {

static RankedTensorType rankedType(Value v) {
  return cast<RankedTensorType>(v.getType());
}

void ShardingRule::print(llvm::raw_ostream &os, unsigned numOperands) const {
  auto printMaps = [&](ArrayRef<AffineMap> maps) {
    os << '(';
    llvm::interleaveComma(maps, os, [&](AffineMap map) {
      os << '[';
      llvm::interleaveComma(map.getResults(), os,
                            [&](AffineExpr e) { e.print(os); });
      os << ']';
    });
    os << ')';
  };
  ArrayRef<AffineMap> all(maps);
  printMaps(all.take_front(numOperands));
  os << " -> ";
  printMaps(all.drop_front(numOperands));
  os << " {";
  unsigned reduction = 0;
  llvm::interleaveComma(iterators, os, [&](utils::IteratorType t) {
    if (t == utils::IteratorType::parallel) {
      os << "parallel";
      return;
    }
    os << "reduction";
    if (reduction < reductionKinds.size())
      os << ':' << shard::stringifyReductionKind(reductionKinds[reduction++]);
  });
  os << '}';
}

/// Maps the trailing dims of a tensor of `shape` onto the trailing loops of
/// `loopShape` (numpy broadcasting); broadcast (size-1) dims map to 0.
static AffineMap broadcastMap(ArrayRef<int64_t> shape,
                              ArrayRef<int64_t> loopShape, MLIRContext *ctx) {
  SmallVector<AffineExpr> exprs;
  int64_t offset = loopShape.size() - shape.size();
  for (int64_t i = 0, e = shape.size(); i < e; ++i) {
    int64_t loop = i + offset;
    if (loop < 0 || (shape[i] == 1 && loopShape[loop] != 1))
      exprs.push_back(getAffineConstantExpr(0, ctx));
    else
      exprs.push_back(getAffineDimExpr(loop, ctx));
  }
  return AffineMap::get(loopShape.size(), 0, exprs, ctx);
}

ShardingRule elementwiseRule(Operation *op) {
  ShardingRule rule;
  MLIRContext *ctx = op->getContext();
  ArrayRef<int64_t> loops = rankedType(op->getResult(0)).getShape();
  rule.iterators.assign(loops.size(), utils::IteratorType::parallel);
  for (Value v : op->getOperands())
    rule.maps.push_back(broadcastMap(rankedType(v).getShape(), loops, ctx));
  for (Value v : op->getResults())
    rule.maps.push_back(broadcastMap(rankedType(v).getShape(), loops, ctx));
  return rule;
}

ShardingRule reduceRule(Operation *op, ArrayRef<int64_t> axes, bool keepDims,
                        shard::ReductionKind kind) {
  ShardingRule rule;
  MLIRContext *ctx = op->getContext();
  auto inType = rankedType(op->getOperand(0));
  int64_t rank = inType.getRank();
  SmallVector<bool> reduced(rank, axes.empty());
  for (int64_t axis : axes)
    if (auto a = normalizeAxis(axis, rank))
      reduced[*a] = true;
  SmallVector<AffineExpr> outExprs;
  for (int64_t i = 0; i < rank; ++i) {
    if (reduced[i]) {
      rule.iterators.push_back(utils::IteratorType::reduction);
      rule.reductionKinds.push_back(kind);
      if (keepDims)
        outExprs.push_back(getAffineConstantExpr(0, ctx));
    } else {
      rule.iterators.push_back(utils::IteratorType::parallel);
      outExprs.push_back(getAffineDimExpr(i, ctx));
    }
  }
  rule.maps.push_back(AffineMap::getMultiDimIdentityMap(rank, ctx));
  for (unsigned i = 1, e = op->getNumOperands(); i < e; ++i)
    rule.maps.push_back(AffineMap::get(
        rank, 0,
        SmallVector<AffineExpr>(rankedType(op->getOperand(i)).getRank(),
                                getAffineConstantExpr(0, ctx)),
        ctx));
  for (unsigned i = 0, e = op->getNumResults(); i < e; ++i)
    rule.maps.push_back(AffineMap::get(rank, 0, outExprs, ctx));
  return rule;
}

/// Drops the loops marked in `whole` from `rule`: every tensor dim they
/// index becomes constant (kept whole), and the loop leaves the iteration
/// space, with its reduction kind if it had one.
static void dropLoops(ShardingRule &rule, ArrayRef<bool> whole,
                      MLIRContext *ctx) {
  SmallVector<AffineExpr> replacements;
  SmallVector<utils::IteratorType> iterators;
  SmallVector<shard::ReductionKind> kinds;
  unsigned next = 0, reduction = 0;
  for (auto [i, type] : llvm::enumerate(rule.iterators)) {
    bool isReduction = type == utils::IteratorType::reduction;
    if (whole[i]) {
      replacements.push_back(getAffineConstantExpr(0, ctx));
    } else {
      replacements.push_back(getAffineDimExpr(next++, ctx));
      iterators.push_back(type);
      if (isReduction)
        kinds.push_back(rule.reductionKinds[reduction]);
    }
    reduction += isReduction;
  }
  for (AffineMap &map : rule.maps)
    map = map.replaceDimsAndSymbols(replacements, {}, next, 0);
  rule.iterators = std::move(iterators);
  rule.reductionKinds = std::move(kinds);
}

ShardingRule keepWholeRule(Operation *op, ArrayRef<int64_t> axes) {
  ShardingRule rule = elementwiseRule(op);
  int64_t rank = rankedType(op->getResult(0)).getRank();
  SmallVector<bool> whole(rank, false);
  for (int64_t axis : axes)
    if (auto a = normalizeAxis(axis, rank))
      whole[*a] = true;
  dropLoops(rule, whole, op->getContext());
  return rule;
}

ShardingRule keepReducedWholeRule(Operation *op, ArrayRef<int64_t> axes,
                                  bool keepDims) {
  ShardingRule rule =
      reduceRule(op, axes, keepDims, shard::ReductionKind::Generic);
  SmallVector<bool> whole;
  for (utils::IteratorType t : rule.iterators)
    whole.push_back(t == utils::IteratorType::reduction);
  dropLoops(rule, whole, op->getContext());
  return rule;
}

ShardingRule replicatedOperandsRule(Operation *op) {
  ShardingRule rule;
  MLIRContext *ctx = op->getContext();
  int64_t rank = rankedType(op->getResult(0)).getRank();
  rule.iterators.assign(rank, utils::IteratorType::parallel);
  for (Value v : op->getOperands())
    rule.maps.push_back(AffineMap::get(
        rank, 0,
        SmallVector<AffineExpr>(rankedType(v).getRank(),
                                getAffineConstantExpr(0, ctx)),
        ctx));
  for (Value v : op->getResults()) {
    auto shape = rankedType(v).getShape();
    if ((int64_t)shape.size() == rank) {
      rule.maps.push_back(AffineMap::getMultiDimIdentityMap(rank, ctx));
    } else {
      rule.maps.push_back(AffineMap::get(
          rank, 0,
          SmallVector<AffineExpr>(shape.size(), getAffineConstantExpr(0, ctx)),
          ctx));
    }
  }
  return rule;
}

ShardingRule windowRule(Operation *op, ArrayRef<int64_t> kernel,
                        ArrayRef<int64_t> strides, ArrayRef<int64_t> pads,
                        ArrayRef<int64_t> dilations) {
  ShardingRule rule;
  MLIRContext *ctx = op->getContext();
  int64_t spatial = kernel.size();
  int64_t numLoops = 2 + 2 * spatial;
  rule.iterators.assign(2 + spatial, utils::IteratorType::parallel);
  rule.iterators.append(spatial, utils::IteratorType::reduction);
  rule.reductionKinds.assign(spatial, shard::ReductionKind::Generic);
  SmallVector<AffineExpr> in{getAffineDimExpr(0, ctx), getAffineDimExpr(1, ctx)};
  SmallVector<AffineExpr> out(in);
  for (int64_t i = 0; i < spatial; ++i) {
    AffineExpr o = getAffineDimExpr(2 + i, ctx);
    AffineExpr w = getAffineDimExpr(2 + spatial + i, ctx);
    in.push_back(o * strides[i] + w * dilations[i] - pads[i]);
    out.push_back(o);
  }
  rule.maps.push_back(AffineMap::get(numLoops, 0, in, ctx));
  rule.maps.push_back(AffineMap::get(numLoops, 0, out, ctx));
  return rule;
}

} // namespace mlir::telar
