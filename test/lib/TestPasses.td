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
    its kind (with its reduction when not a sum: `all_reduce<max>`), the mesh axes of its group (by name, from the grid's
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

def TestTelarCostModel : Pass<"test-telar-cost-model", "ModuleOp"> {
  let summary = "Print what the cost model prices a plan at, as remarks";
  let description = [{
    Completes a plan on `@main` as `telar-apply-plan` does (`plan=FILE`,
    plan.json, with `mesh=`; without `plan=`, the JSON text of the module's
    `test.plan` string attribute, one plan per `-split-input-file` case),
    prices it with `telar::planner::evaluatePlan` on the hardware profile
    `profile=` (a shipped name or a profile JSON file; default `cpu`) and
    prints, on every op of `@main`, its compute on its local shapes and each
    resharding step telar-partition will emit for it (kind, mesh axes by
    name, local input and output shapes, bytes each rank sends, seconds), in
    emission order (a return's are the outputs' resolutions):

    ```
    remark: compute 3.048e-06 s, 2048 flops, 1536 bytes
    remark: compute 0 s, 0 flops, 0 bytes; all_reduce over [model]: [4x16] -> [4x16], 256 bytes, 1.256e-06 s
    ```

    then on `@main` the totals: latency, compute, communication, the memory
    per device (weights and peak of live activations) and the bytes sent per
    set of mesh axes. The module is left as it is (but see `annotate`); a
    plan the partitioner would reject is an error at the op. With `drop-uses=all` (or `unary`:
    those of ops with one operand) the completed plan's use shardings are
    dropped before pricing (what a plan of value shardings alone asks of the
    partitioner: its own gathers). With `annotate`, the plan as priced is
    then written into the module as `telar-apply-plan` writes it, so that
    `-test-telar-cost-model=annotate -telar-partition -test-telar-collectives`
    shows what is priced next to what is emitted for the same plan; a plan
    the cost model rejects is then still written (its error reported), so
    that telar-partition shows whether it rejects it the same way.
  }];
  let options = [
    Option<"planFile", "plan", "std::string", /*default=*/"\"\"",
           "The plan.json to price">,
    Option<"meshSpec", "mesh", "std::string", /*default=*/"\"\"",
           "The mesh, e.g. data=2,model=2 (as telar-apply-plan's)">,
    Option<"profileName", "profile", "std::string", /*default=*/"\"cpu\"",
           "The hardware profile: a shipped name or a JSON file">,
    Option<"dropUses", "drop-uses", "std::string", /*default=*/"\"\"",
           "Price the completed plan without some of its use shardings, so "
           "that telar-partition's own gathers do the resharding: `all`, or "
           "`unary` (the uses of ops with one operand)">,
    Option<"annotate", "annotate", "bool", /*default=*/"false",
           "Then write the plan as priced into the module, as "
           "telar-apply-plan does (the input of telar-partition)">
  ];
}

def TestTelarSimulateRanks : Pass<"test-telar-simulate-ranks", "ModuleOp"> {
  let summary = "Run every rank of a partitioned program inside one function";
  let description = [{
    Rewrites each function of a partitioned module (`telar-partition`'s
    output: local types, shard collectives, `telar.sharding` and
    `telar.global_shape` on arguments and results) into a single-device
    function with the global signature that runs all ranks of the mesh
    side by side: each input is cut into every rank's block
    (`telar_sharding::getBlockOffsets`), the body is cloned once per rank,
    each collective becomes telar ops over its group members' values
    (members numbered row-major over their coordinates on the grid axes, in
    the listed order), and the outputs are assembled from the ranks'
    blocks. Lowered and run with the JIT next to the original program, it
    checks the partitioner's output numerically without a runtime.
  }];
}

#endif // TELAR_TEST_TESTPASSES_TD
