//===- TestPasses.td - Telar's test passes -----------------*- tablegen -*-===//
//
// Passes that expose analyses to lit (Triton style), in library
// TelarTestPasses, registered by telar-opt only.
//
//===----------------------------------------------------------------------===//

#ifndef TELAR_TEST_TESTPASSES_TD
#define TELAR_TEST_TESTPASSES_TD

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


def TestTelarLiveSet : Pass<"test-telar-live-set", "func::FuncOp"> {
  let summary = "Print the live-set (memory) analysis as remarks";
  let description = [{
    Runs `telar::LiveSetAnalysis` (include/telar/analysis/LiveSet.h) on
    each function and prints it: on every op of the entry block but the
    terminator, the bytes of intermediate tensors alive while it runs and
    the bytes it defines, with `(largest)` on the first op where the
    largest set is alive; on the function, the largest set.

    ```
    remark: live: 96 bytes (largest); defines: 32 bytes
    remark: largest live set: 96 bytes
    ```

    Inputs, constants and returned values are not counted; reshapes,
    squeezes and unsqueezes are views that keep their operand alive.
  }];
}

#endif // TELAR_TEST_TESTPASSES_TD
