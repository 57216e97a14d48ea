//===- PartitionReductions.cpp - Reductions, softmax and normalisations ---===//
//
// A split reduced axis leaves partial results that the driver derives from
// the rule's reduction factors (sum, max, min). What this family adds:
// reduce_mean's local means are scaled by 1 / (the number of blocks) into
// partial sums (the annotation's partial kind is "sum"), and stay whole
// for integer tensors, whose means do not scale exactly. reduce_prod has no
// partial kind in annotations, so the driver gathers its reduced axes; the
// non-combinable reductions (reduce_l2, log-sum, log-sum-exp, arg_max/min)
// and the normalised axes of softmax and the norms are need-replication
// factors in their rules and are gathered too (replicated statistics).
//
//===----------------------------------------------------------------------===//

#include "PartitionInternal.h"

using namespace mlir;
using namespace mlir::telar;

namespace mlir::telar::partition {

/// The number of blocks reduce_mean's reduced loops are split into.
static int64_t getMeanSplit(const OpPartition &p) {
  int64_t split = 1;
  for (int64_t f = 0; f < p.rule.getNumFactors(); ++f)
    if (p.rule.getKind(f) == FactorKind::Mean)
      split *= p.getSplit(f);
  return split;
}

void addReductionPartitioners(PartitionerRegistry &registry) {
  auto kindIs = [](ReductionKind want) {
    return [want](Operation *, ArrayRef<Sharding> operands) {
      return allPartialAlike(operands,
                             [want](ReductionKind k) { return k == want; });
    };
  };
  OpPartitioner sum;
  sum.acceptsPartial = kindIs(ReductionKind::Sum);
  registry.add<ReduceSumOp>(sum);
  OpPartitioner max;
  max.acceptsPartial = kindIs(ReductionKind::Max);
  registry.add<ReduceMaxOp>(max);
  OpPartitioner min;
  min.acceptsPartial = kindIs(ReductionKind::Min);
  registry.add<ReduceMinOp>(min);

  OpPartitioner mean;
  mean.acceptsPartial = kindIs(ReductionKind::Sum);
  mean.wholeFactors = [](const OpPartition &p, SmallVectorImpl<int64_t> &out) {
    auto type = cast<RankedTensorType>(p.op->getResult(0).getType());
    if (isa<FloatType>(type.getElementType()))
      return;
    for (int64_t f = 0; f < p.rule.getNumFactors(); ++f)
      if (p.rule.getKind(f) == FactorKind::Mean)
        out.push_back(f);
  };
  mean.finish = [](OpBuilder &b, Operation *local,
                   const OpPartition &p) -> SmallVector<Value> {
    Value result = local->getResult(0);
    int64_t split = getMeanSplit(p);
    if (split == 1)
      return {result};
    auto type = cast<RankedTensorType>(result.getType());
    auto floatType = cast<FloatType>(type.getElementType());
    llvm::APFloat scale(1.0 / static_cast<double>(split));
    bool lost;
    scale.convert(floatType.getFloatSemantics(),
                  llvm::APFloat::rmNearestTiesToEven, &lost);
    auto scalarType = RankedTensorType::get({}, floatType);
    Value c = ConstantOp::create(b, local->getLoc(),
                                 DenseElementsAttr::get(scalarType, scale));
    return {MulOp::create(b, local->getLoc(), result, c).getResult()};
  };
  registry.add<ReduceMeanOp>(mean);

  // Parallel loops only (the reduced or normalised axes stay whole by
  // their rules), no attribute holds a size.
  OpPartitioner plain;
  registry.add<ReduceProdOp, ReduceL1Op, ReduceL2Op, ReduceSumSquareOp,
               ReduceLogSumOp, ReduceLogSumExpOp, ArgMaxOp, ArgMinOp,
               SoftmaxOp, LogSoftmaxOp, HardmaxOp, LpNormOp, LayerNormOp,
               RMSNormOp, BatchNormOp, InstanceNormOp, GroupNormOp,
               MeanVarianceNormOp, LRNOp>(plain);
}

} // namespace mlir::telar::partition
