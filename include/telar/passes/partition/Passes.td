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

#endif // TELAR_PASSES_PARTITION_PASSES_TD
