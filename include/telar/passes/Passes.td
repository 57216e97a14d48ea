//===- Passes.td - Telar passes ----------------------------*- tablegen -*-===//

#ifndef TELAR_PASSES_TD
#define TELAR_PASSES_TD

include "mlir/Pass/PassBase.td"

def TestTelarShardingRules : Pass<"test-telar-sharding-rules"> {
  let summary = "Print every telar op's sharding rule as a remark";
  let description = [{
    A test pass (Triton style: analyses exposed for lit). For each op that
    implements the `shard` dialect's ShardingInterface it emits one remark
    with the op's rule on one line: the indexing map of every operand, then
    of every result, and the loops' iterator types, e.g.

    ```
    ([d0, d2], [d2, d1]) -> ([d0, d1]) {parallel, parallel, reduction:sum}
    ```

    Expressions are affine in the loops `d<i>`; a constant means the
    dimension is not split by any loop (broadcast, or kept whole).
  }];
}

#endif // TELAR_PASSES_TD
