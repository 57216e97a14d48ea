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
    A test pass (Triton style: analyses exposed for lit). For every telar
    op it emits one remark with the op's `#telar.sharding_rule`, as
    `ShardingRuleOpInterface::getShardingRule` returns it, e.g. for a
    matmul

    ```
    #telar.sharding_rule<([i, k], [k, j]) -> ([i, j]) {i=4, j=8, k=16} reduction={k:sum}>
    ```

    and checks it: the rule must match the op's operand and result types,
    and the printed text must parse back to the same attribute; a telar op
    without a rule is an error. A rule written on any op as its
    `sharding_rule` attribute is checked against that op's types (remark
    "sharding rule matches the op's types", or the mismatch as an error),
    which is how the verifier is tested.
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

def TestTelarCollectives : Pass<"test-telar-collectives", "func::FuncOp"> {
  let summary = "Print every collective of a partitioned program as a remark";
  let description = [{
    For every shard collective of a function (`telar-partition`'s output):
    its kind, the mesh axes of its group (by name, from the grid's
    `telar.axis_names`), its local input and output shapes, its element
    type and the bytes each rank sends in it (the `telar.bytes` the
    partitioner copied from the resharding step); then, on the function,
    the number of collectives and the bytes per rank in all. A collective
    without `telar.bytes` is an error.

    ```
    remark: all_reduce over [model]: [8x32] -> [8x32] f32, 1024 bytes per rank
    remark: 1 collectives, 1024 bytes per rank
    ```
  }];
}

#endif // TELAR_TEST_TESTPASSES_TD
