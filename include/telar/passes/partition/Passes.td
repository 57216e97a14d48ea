//===- Passes.td - Telar partitioning passes ---------------*- tablegen -*-===//

#ifndef TELAR_PASSES_PARTITION_PASSES_TD
#define TELAR_PASSES_PARTITION_PASSES_TD

include "mlir/Pass/PassBase.td"

// The passes of passes/partition (library TelarPartitionPasses): from a
// program annotated with shardings to one SPMD program on local shapes.

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
    (`telar_sharding::reshard`, include/telar/sharding/Reshard.h), each
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
    A split factor the op cannot run split (need-replication factors, a
    product's minor factor under an unsplit major one, a product
    reduction, any factor of an op the partitioner has no family for) is
    gathered first: the program is never wrong, only slower. Attributes that
    hold global sizes get local ones (reshape and expand shapes, slice
    bounds of unsliced axes, resize sizes, conv groups).

    A partial operand is accepted where the result stays a partial of the
    same kind (data movement; add/sub of equally partial values; mul and
    div by a non-partial value; matmul and einsum with one partial operand;
    reduce_sum/max/min of their own kind); anywhere else it is an error.

    Function arguments and results get local types and, when not
    replicated, `telar.sharding` (axis names per dimension) and
    `telar.global_shape`; results must not be partial. A weight
    (`telar.constant dense_resource<...>`) stays global and is followed by
    the `shard.all_slice` steps to its local block.
  }];
  let dependentDialects = ["::mlir::shard::ShardDialect",
                           "::mlir::func::FuncDialect"];
}

#endif // TELAR_PASSES_PARTITION_PASSES_TD
