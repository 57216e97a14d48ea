//===- PartitionReductions.cpp - reduce_mean's local means ----------------===//
//
// A split reduced axis leaves partial results of the kind of its factor
// (the rule's reduction kinds; OpSharding.h derives them). reduce_mean
// alone needs more: its local means are scaled by 1 / (the number of
// blocks) into partial sums, the kind its partial results are annotated
// with. Means of integers do not scale exactly: their rules keep the
// reduced axes whole.
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

SmallVector<Value> scaleLocalMeans(OpBuilder &b, Operation *local,
                                   const OpPartition &p) {
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
}

} // namespace mlir::telar::partition
