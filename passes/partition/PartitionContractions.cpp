//===- PartitionContractions.cpp - matmul and einsum ----------------------===//
//
// Contractions run on their local blocks as they are: batch and free loops
// split locally, a split contracted loop (matmul's k, an einsum's summed
// labels) leaves a partial sum, which the driver derives from the rule's
// reduction factors. Neither op holds a size in its attributes (an einsum
// equation names labels, not extents). A contraction is linear in each
// operand, so one partial-sum operand gives a partial-sum result.
//
//===----------------------------------------------------------------------===//

#include "PartitionInternal.h"

using namespace mlir;
using namespace mlir::telar;

namespace mlir::telar::partition {

void addContractionPartitioners(PartitionerRegistry &registry) {
  OpPartitioner contraction;
  contraction.acceptsPartial = [](Operation *, ArrayRef<Sharding> operands) {
    return onePartialSum(operands);
  };
  registry.add<MatMulOp, EinsumOp>(contraction);
}

} // namespace mlir::telar::partition
