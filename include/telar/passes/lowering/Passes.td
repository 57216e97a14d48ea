//===- Passes.td - Telar lowering passes -------------------*- tablegen -*-===//

#ifndef TELAR_PASSES_LOWERING_PASSES_TD
#define TELAR_PASSES_LOWERING_PASSES_TD

include "mlir/Pass/PassBase.td"

// The passes of passes/lowering (library TelarLoweringPasses): telar to
// linalg and the target-independent steps around it and bufferization.

def TelarOutlineWeights : Pass<"telar-outline-weights", "ModuleOp"> {
  let summary = "Turn weight constants into trailing arguments of @main";
  let description = [{
    Every `telar.constant dense_resource<...>` in `@main` becomes a new
    argument of `@main`, appended after the model inputs and marked
    `{telar.weight = "<resource name>"}`. The compiled program then takes
    weights as buffers that the runtime memory-maps from the artifact's
    safetensors file, rather than baking them into the code. Identical
    resources used twice become one argument. A module without a defined
    `@main` is left as it is.

    In a partitioned program (`telar-partition`) a sharded weight is its
    global constant followed by `shard.all_slice` ops that cut the local
    block. Such a chain becomes one argument of the local type, marked
    with the weight's name, its `telar.sharding` (per dimension the names
    of the grid axes the slices split it by, major to minor, from the
    grid's `telar.axis_names`; `axis<i>` without them) and its
    `telar.global_shape`; the artifact writer then stores each rank's block
    in that rank's weight file (docs/Artifact.md). A value of the chain
    used by other ops than slices is an argument of its own (the whole
    constant: a replicated weight). Replicated weights come before the
    sharded ones, the order of the artifact's weight files.

    ```mlir
    func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
      %w = telar.constant dense_resource<w0> : tensor<4xf32>
      ...
    // becomes
    func.func @main(%x: tensor<4xf32>, %w: tensor<4xf32> {telar.weight = "w0"}) -> ...

    %w = telar.constant dense_resource<w1> : tensor<16x32xf32>
    %s = shard.all_slice %w on @mesh grid_axes = [1] slice_axis = 1
        : tensor<16x32xf32> -> tensor<16x16xf32>
    // becomes an argument
    %s: tensor<16x16xf32> {telar.weight = "w1", telar.sharding = [[], ["model"]],
                           telar.global_shape = array<i64: 16, 32>}
    ```
  }];
}

def TelarFoldWeightTransposes : Pass<"telar-fold-weight-transposes", "ModuleOp"> {
  let summary = "Transpose weights at compile time";
  let description = [{
    A `telar.transpose` of a weight (`telar.constant dense_resource<...>`)
    becomes a new weight holding the transposed data, named
    `<weight>.transposed.<perm>`; the program then neither copies the
    weight on every run nor hides it from the runtime's cache of packed
    constant GEMM operands (Gemm's `transB` weights, as torch exports
    `nn.Linear` inside attention). The original stays if other ops use it.
    A transpose of a sharded weight's local block (the weight constant,
    then `shard.all_slice` ops, as `telar-partition` leaves it) becomes the
    same slices of the transposed weight, their slice dims permuted, so
    that `telar-outline-weights` stores the transposed blocks.
  }];
}

def TelarFoldConstants : Pass<"telar-fold-constants", "ModuleOp"> {
  let summary = "Evaluate at compile time what depends on constants only";
  let description = [{
    Every telar op whose operands are all `telar.constant`s (weights,
    `dense_resource`, included) or results folded before it, and whose
    results have static shapes of at most `max-bytes` bytes each, is
    evaluated by its folder and goes; the results still used become
    constants, named after the ONNX values (`telar.result_names`). Results
    of more than `inline-elements` elements become weights named
    `folded.<value>` (outlined and stored like the others; splats and
    booleans stay attributes). Constants no longer read go too. The importer folds only
    small plain constants (shape math); this pass removes the rest, such as
    T5's relative position bias (buckets from positions through abs, log,
    casts and clips, then a gather from the bias table and a transpose),
    which would otherwise be computed on every run. An op without a folder
    for its operands (a matmul, a float cast that rounds) stays, and so
    does everything after it.
  }];
  let options = [
    Option<"maxBytes", "max-bytes", "int64_t", /*default=*/"16777216",
           "Largest result (bytes) an op is folded into">,
    Option<"inlineElements", "inline-elements", "int64_t", /*default=*/"4096",
           "Folded results with more elements become weights">
  ];
}

def TelarLowerToLinalg : Pass<"telar-lower-to-linalg", "ModuleOp"> {
  let summary = "Lower telar ops to linalg, tensor, arith and math on tensors";
  let description = [{
    Every telar op becomes linalg (named ops for contractions and
    convolutions, `linalg.generic` for elementwise ops, reductions and
    normalisations), `tensor` (reshapes, slices, pads, concatenation) and
    `arith`/`math` for the scalar bodies. Shapes must be static; an op with
    no lowering, or with dynamic shapes, is reported with its name.
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect", "::mlir::math::MathDialect",
    "::mlir::linalg::LinalgDialect", "::mlir::tensor::TensorDialect",
    "::mlir::scf::SCFDialect", "::mlir::bufferization::BufferizationDialect"
  ];
}

def TelarFoldAddIntoContractionInit
    : Pass<"telar-fold-add-into-contraction-init", "ModuleOp"> {
  let summary = "Fold bias and residual adds into the init of the contraction they follow";
  let description = [{
    On tensors: an elementwise `linalg.generic` computing `C + X` (all
    loops parallel, identity output map), where `C` is the only use of a
    `linalg.matmul`, `linalg.batch_matmul` or `linalg.conv_2d_nchw_fchw`
    (possibly through `tensor.expand_shape` / `tensor.collapse_shape` ops
    with no other user) whose init is a `linalg.fill` of zero, becomes that
    contraction with init `X`: broadcast to the add's shape when its
    indexing map is not the identity (a bias), and reshaped back to the
    contraction's. The add and its pass over the output are gone; the
    contraction adds its product to the bias. Runs per rank after
    partitioning and before elementwise fusion (which would merge the add
    into other elementwise work): a partial product that an all-reduce sums
    is never followed by the add directly, so it never takes the bias.
  }];
  let dependentDialects = ["::mlir::linalg::LinalgDialect",
                           "::mlir::tensor::TensorDialect"];
}

def TelarFuseElementwise : Pass<"telar-fuse-elementwise", "ModuleOp"> {
  let summary = "Fuse elementwise linalg.generic chains, keeping named ops";
  let description = [{
    Upstream's elementwise fusion on tensors (a producer with one use is
    fused into its consumer's body) plus folding of reshapes by expansion,
    but never across a named linalg op: `linalg-fuse-elementwise-ops` would
    push the reshapes around `linalg.matmul` into it and rewrite it as a
    generic, which then no longer reaches the GEMM library. The one named
    op that does fuse is a `linalg.transpose` whose only user is an
    elementwise `linalg.generic`: it becomes a generic first, so that the
    consumer reads the transposed operand in place (attention's queries
    split into heads and scaled in one pass); a transpose feeding a
    contraction stays (the library calls read it through strides).
  }];
  let dependentDialects = ["::mlir::linalg::LinalgDialect",
                           "::mlir::tensor::TensorDialect"];
}

def TelarReadOnlyArguments : Pass<"telar-read-only-arguments", "ModuleOp"> {
  let summary = "Mark tensor arguments of defined functions read-only for bufferization";
  let description = [{
    Model inputs and weights are read-only buffers in the runtime's ABI
    (weights are memory-mapped from the artifact). This sets
    `bufferization.writable = false` on every tensor argument, so that
    one-shot bufferization copies instead of writing into one (e.g. a
    scatter whose destination is a weight).
  }];
}

def TelarApproximateMath : Pass<"telar-approximate-math"> {
  let summary = "Polynomial approximations of f32 math functions";
  let description = [{
    Replaces the listed f32 `math` ops by MLIR's polynomial approximations
    (range reduction + minimax polynomials in arith), which the loop
    vectoriser turns into SIMD code; otherwise each element is a scalar call
    into libm (`erff`, `expf`), which took a third of a small GPT's time.
    The approximations are within a few ulp and keep the special values
    (inf, NaN) of the functions.
  }];
  let options = [
    ListOption<"ops", "ops", "std::string",
               "math op mnemonics to approximate (default: erf, exp, tanh)">
  ];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::math::MathDialect",
                           "::mlir::vector::VectorDialect"];
}

def TelarEarlyDealloc : Pass<"telar-early-dealloc", "func::FuncOp"> {
  let summary = "Free each buffer right after its last use";
  let description = [{
    Upstream's ownership-based deallocation frees buffers at the end of
    their block, so in a model's single-block `@main` every intermediate
    stays allocated to the end and the peak is the sum of them all. This
    pass moves each `memref.dealloc` of a buffer up to just after the last
    op in its block that uses the buffer or any alias of it (views,
    reshapes, casts, or any memref a user derives from it, and anything
    computed from its address, `memref.extract_aligned_pointer_as_index`,
    as runtime calls take buffers), so that the peak is close to the
    largest set of buffers alive at once.
  }];
}

#endif // TELAR_PASSES_LOWERING_PASSES_TD
