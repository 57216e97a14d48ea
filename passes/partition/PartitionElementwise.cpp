//===- PartitionElementwise.cpp - Elementwise ops and constants -----------===//
//
// Elementwise ops run on their local blocks as they are: their rule aligns
// every operand with the result (numpy broadcasting), and no attribute
// holds a size. Constants have no operands: they are computed whole and
// sliced to their annotation by the driver (a weight's slices become its
// per-rank shard at compile time). What this family adds is which partial
// operands stay partial: sums through add, sub and neg, and through mul and
// div by a non-partial value; maxima through max, minima through min.
//
//===----------------------------------------------------------------------===//

#include "PartitionInternal.h"

using namespace mlir;
using namespace mlir::telar;

namespace mlir::telar::partition {

void addElementwisePartitioners(PartitionerRegistry &registry) {
  OpPartitioner plain;
  registry.add<
      ConstantOp, AbsOp, AcosOp, AcoshOp, AsinOp, AsinhOp, AtanOp, AtanhOp,
      BitwiseNotOp, CeilOp, CeluOp, ClipOp, CosOp, CoshOp, EluOp, ErfOp,
      ExpOp, FloorOp, GeluOp, HardSigmoidOp, HardSwishOp, LeakyReluOp, LogOp,
      MishOp, NotOp, ReciprocalOp, ReluOp, RoundOp, SeluOp, ShrinkOp,
      SigmoidOp, SignOp, SinOp, SinhOp, SoftplusOp, SoftsignOp, SqrtOp, TanOp,
      TanhOp, ThresholdedReluOp, IsInfOp, IsNaNOp, CastOp, WhereOp, AndOp,
      BitShiftOp, BitwiseAndOp, BitwiseOrOp, BitwiseXorOp, EqualOp,
      GreaterEqualOp, GreaterOp, LessEqualOp, LessOp, ModOp, OrOp, XorOp, PReluOp,
      PowOp>(plain);

  auto isSum = [](ReductionKind k) { return k == ReductionKind::Sum; };
  OpPartitioner linear;
  linear.acceptsPartial = [isSum](Operation *, ArrayRef<Sharding> operands) {
    return allPartialAlike(operands, isSum);
  };
  registry.add<AddOp, SubOp, NegOp>(linear);

  OpPartitioner scale;
  scale.acceptsPartial = [](Operation *, ArrayRef<Sharding> operands) {
    return onePartialSum(operands);
  };
  registry.add<MulOp>(scale);

  OpPartitioner divide;
  divide.acceptsPartial = [](Operation *, ArrayRef<Sharding> operands) {
    return onePartialSum(operands, /*candidates=*/{0});
  };
  registry.add<DivOp>(divide);

  OpPartitioner maximum;
  maximum.acceptsPartial = [](Operation *, ArrayRef<Sharding> operands) {
    return allPartialAlike(operands,
                           [](ReductionKind k) { return k == ReductionKind::Max; });
  };
  registry.add<MaxOp>(maximum);
  OpPartitioner minimum;
  minimum.acceptsPartial = [](Operation *, ArrayRef<Sharding> operands) {
    return allPartialAlike(operands,
                           [](ReductionKind k) { return k == ReductionKind::Min; });
  };
  registry.add<MinOp>(minimum);
}

} // namespace mlir::telar::partition
