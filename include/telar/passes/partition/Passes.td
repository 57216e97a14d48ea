//===- Passes.td - Telar partitioning passes ---------------*- tablegen -*-===//

#ifndef TELAR_PASSES_PARTITION_PASSES_TD
#define TELAR_PASSES_PARTITION_PASSES_TD

include "mlir/Pass/PassBase.td"

// The passes of passes/partition (library TelarPartitionPasses): a plan
// attached to the IR, and the SPMD program made from it.

def TelarApplyPlan : Pass<"telar-apply-plan", "ModuleOp"> {
  let summary = "Complete a plan and annotate @main with its shardings";
  let description = [{
    Reads a plan (`plan=FILE`, plan.json as docs/Plan.md describes; `mesh=`
    supplies or checks its mesh, and alone means a plan naming nothing),
    binds its names to values of `@main` (arguments by `telar.name`, op
    results by `telar.result_names`), completes it by propagation through
    every op's sharding rule (docs/Plan.md) and writes the result as `shard`
    annotations, the input of `telar-partition`:

    * one `shard.grid @mesh` with the axis names in `telar.axis_names`;
    * for every tensor value that is not replicated, one `shard.shard` (with
      its `shard.sharding`) right after its definition, through which all
      its uses go; partial axes are named in `telar.partial` on the
      `shard.sharding`;
    * for every use whose op wants another sharding than the value's, a
      `shard.shard ... annotate_for_users` with the wanted one (never
      partial: a partial value is resolved where it is used).

    ```mlir
    shard.grid @mesh(shape = 2) {telar.axis_names = ["data"]}
    func.func @main(%arg0: tensor<8x16xf32> {telar.name = "x"}) -> ... {
      %s = shard.sharding @mesh split_axes = [[0], []] : !shard.sharding
      %x = shard.shard %arg0 to %s : tensor<8x16xf32>
      ...
    ```

    A mesh without axes (or a plan of one device) leaves the module as it
    is. Bad plans are errors naming the value: an unknown name (with the
    closest names), an axis not in the mesh or used twice, a dimension the
    axes do not divide, a partial graph input or output, a partial value its
    op cannot produce.
  }];
  let options = [
    Option<"planFile", "plan", "std::string", /*default=*/"\"\"",
           "The plan.json to apply">,
    Option<"meshSpec", "mesh", "std::string", /*default=*/"\"\"",
           "The mesh, e.g. data=2,model=2: for a plan that names none (it "
           "must equal a plan's own), or alone for a plan naming nothing">
  ];
  let dependentDialects = ["::mlir::shard::ShardDialect"];
}

def TelarPartition : Pass<"telar-partition", "ModuleOp"> {
  let summary = "Turn an annotated program into one SPMD program with shard collectives";
  let description = [{
    Input: a module with one `shard.grid` (its axes named by
    `telar.axis_names`) whose functions are annotated as
    `telar-apply-plan` leaves them: a value that is not replicated has one
    `shard.shard` right after its definition, and a use that wants another
    sharding goes through `shard.shard ... annotate_for_users`. Output: the
    same program on every rank, on local (per-rank) tensor types, with no
    `shard.shard` or `shard.sharding` left; communication is explicit as
    `shard.all_gather`, `shard.all_slice`, `shard.all_to_all`,
    `shard.all_reduce` and `shard.reduce_scatter` (`on @grid grid_axes =
    [...]`), one per step of the resharding function
    (`telar_sharding::reshard`, include/telar/sharding/core/Reshard.h), each
    marked `telar.bytes` with the bytes a rank sends in it.

    Each telar op is rebuilt on its local operands from its
    `#telar.sharding_rule`: a factor's mesh axes are the axes of the operand
    dimensions that hold it (operands that disagree are an error naming the
    op); a split parallel factor runs locally; a split reduction factor
    leaves a partial result (reduce_mean's partial means are scaled into
    partial sums); factors only results have are computed whole and then
    sliced (`shard.all_slice`), as are results annotated with more axes than
    the operands give. The result's annotated sharding must be reachable
    from what the operands give by local slices only, else it is an error.
    A split factor the op cannot run split (the rule's whole factors:
    need-replication factors and product reductions; a product's minor
    factor under an unsplit major one) is gathered first: the program is
    never wrong, only slower. Attributes that hold global sizes get local
    ones (reshape and expand shapes, slice bounds of unsliced axes, resize
    sizes, conv groups).

    A partial operand is accepted where the op's rule says so
    (`partial_alike`, `partial_one`; docs/TelarAttributes.md): data
    movement; add/sub of equally partial values; mul and div by a
    non-partial value; matmul and einsum with one partial operand;
    reduce_sum/max/min of their own kind. Its results are then partial on
    the same axes; anywhere else a partial operand is an error. All of
    this is derived from the rule alone (include/telar/sharding/OpSharding.h),
    by the functions the planner prices plans with.

    Function arguments and results get local types and, when not
    replicated, `telar.sharding` (axis names per dimension) and
    `telar.global_shape`; results must not be partial. A weight
    (`telar.constant dense_resource<...>`) stays global and is followed by
    the `shard.all_slice` steps to its local block.
  }];
  let dependentDialects = ["::mlir::shard::ShardDialect",
                           "::mlir::func::FuncDialect"];
}

def TelarMicrobatch : Pass<"telar-microbatch", "ModuleOp"> {
  let summary = "Rewrite @main into the program of one microbatch";
  let description = [{
    The program one microbatch of a pipeline runs
    (`makeMicrobatchProgram`, include/telar/sharding/Microbatch.h):
    the batch B is dim 0 of @main's first input; with `count=M` every input
    whose dim 0 is B is split M ways along dim 0, the others go whole to
    every microbatch. Microbatching is data parallelism executed in
    sequence, without its layout constraint: the batch is followed from the
    inputs through every op's sharding rule as one parallel factor, held
    anywhere in its dimension (a sequence-first attention merges it into
    `[S * B, D]`), and that factor shrinks M times; attributes holding its
    size get the local one (telar-partition's localisation: reshape and
    expand shapes, slice bounds, ...) and result types are inferred again.
    What remains is a plain telar program at microbatch shape whose values
    have the names they had (`telar.name`, `telar.result_names` and the
    derived names of docs/Plan.md).

    ```mlir
    func.func @main(%x: tensor<8x16xf32> {telar.name = "x"}) -> tensor<8x4xf32>
    // with count=2 becomes
    func.func @main(%x: tensor<4x16xf32> {telar.name = "x"}) -> tensor<4x4xf32>
    ```

    A value the batch's size that does not come from the inputs (a
    constant, an expand) is used with its first block when all M blocks
    are equal (a constant becomes that block, an expand broadcasts to the
    microbatch). Errors, at the op and naming it: `M` that does not divide
    the batch (`--microbatches 3 does not divide the batch (4, dim 0 of
    'input_ids')`), an op whose microbatches would meet (the batch a
    reduction of it or a factor it computes whole, spread over several of
    its loops, a value the batch's size whose blocks differ), an output
    holding the batch inside a dimension (its parts would not concatenate).
    `count=1` leaves the program as it is. The pass reports the split as a
    remark on @main: the dim of each input (-1: whole) and of each result
    that microbatches concatenate along (-1: every microbatch computes all
    of it).
  }];
  let options = [
    Option<"count", "count", "int64_t", /*default=*/"2",
           "The number of microbatches">
  ];
}

def TelarSplitStages : Pass<"telar-split-stages", "ModuleOp"> {
  let summary = "Check a pipeline's stage lists and make one stage's program";
  let description = [{
    The stage split of a pipelined plan (`splitStages` and
    `buildStageModule`, include/telar/passes/partition/SplitStages.h), as
    telarc compiles each stage of a plan with `"stages"` (docs/Plan.md),
    for lit tests: `stages=` lists per stage (separated by `;`) the names
    of the values its ops compute (separated by `,`), as a plan's
    `stages[i].ops` do.

    The lists are checked against @main: every op is in exactly one stage,
    except ops computed from weights and constants alone (constants, a
    transpose or cast of a weight), which may be in none and are copied into
    every stage that uses them; a value is used only in its stage or later
    ones. Each boundary value (computed in one stage, used in later ones) is
    reported as a remark on @main. With `stage=K` the module becomes the
    program of stage K: @main takes the graph inputs the stage uses and the
    boundary values it receives (named by `telar.name`), and returns the
    boundary values it sends, then the graph outputs it computes (named by
    `telar.output_names`; the last stage returns graph inputs and
    weight-only values that are outputs). Every op result carries its name
    of the whole program in `telar.result_names`, so plan names mean the
    same values in the stage's program.

    ```mlir
    // -telar-split-stages="stages=h;y stage=1"
    func.func @main(%x: tensor<8x16xf32> {telar.name = "x"}) -> tensor<8x4xf32> {
      %h = telar.relu %x {telar.result_names = ["h"]} ...
      %y = telar.matmul %h, %w {telar.result_names = ["y"]} ...
    // becomes
    func.func @main(%h: tensor<8x16xf32> {telar.name = "h"}) -> tensor<8x4xf32>
        attributes {telar.output_names = ["y"]} {
      %w = telar.constant {telar.result_names = ["w"]} ...
      %y = telar.matmul %h, %w {telar.result_names = ["y"]} ...
    ```

    Errors name the value: `stages[1].ops: unknown value 'x'`, a graph
    input listed, a value in two stages, `value 'x' is in no stage`, `value
    'x' is used in stage 0 but computed in stage 1`, a stage that computes
    nothing.
  }];
  let options = [
    Option<"stages", "stages", "std::string", /*default=*/"\"\"",
           "Per stage (separated by ';') the names of the values its ops "
           "compute (separated by ',')">,
    Option<"stage", "stage", "int64_t", /*default=*/"-1",
           "The stage whose program the module becomes (-1: only check and "
           "report the boundaries)">
  ];
  let dependentDialects = ["::mlir::func::FuncDialect"];
}

#endif // TELAR_PASSES_PARTITION_PASSES_TD
