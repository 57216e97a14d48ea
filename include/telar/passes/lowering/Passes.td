//===- Passes.td - Telar lowering passes -------------------*- tablegen -*-===//

#ifndef TELAR_PASSES_LOWERING_PASSES_TD
#define TELAR_PASSES_LOWERING_PASSES_TD

include "mlir/Pass/PassBase.td"

// The passes of passes/lowering (library TelarLoweringPasses): telar to
// linalg, and the CPU pipeline's own steps around bufferization.

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

def TelarLinalgToLibraryCalls : Pass<"telar-linalg-to-library-calls", "ModuleOp"> {
  let summary = "Replace large f32 linalg contractions on memrefs by runtime calls";
  let description = [{
    After bufferization, `linalg.matmul`, `linalg.batch_matmul` and
    `linalg.conv_2d_nchw_fchw` on f32 memrefs whose work exceeds
    `min-flops` become calls into the runtime's kernels
    (`telarrt_matmul_f32`, `telarrt_batch_matmul_f32`,
    `telarrt_conv2d_nchw_f32`, with the C interface for memref
    descriptors): the runtime's own AVX-512/AVX2 GEMM, OpenBLAS on other
    CPUs. Smaller ones stay linalg and are compiled inline.
    The calls accumulate into the output, as the linalg ops do (flags
    `TELAR_KERNEL_ACCUMULATE`), except where the output buffer was
    zero-filled by a `linalg.fill` just before (same block, nothing reading
    or writing the buffer or a view of it in between; the buffer an
    allocation or a function argument): that fill is erased and the call
    overwrites the output (flags 0); a zero-filled buffer copied into the
    output counts too (the copy goes, and the fill once nothing reads it),
    as does a `linalg.generic` yielding zero. An operand of a matmul or
    batch matmul that a `linalg.transpose` fills for the contraction alone
    becomes the `memref.transpose` view of the transpose's input
    (unwritten in between): the kernels take any strides, so the copy
    goes. "Alone": nothing else touches the buffer between the two, and
    after the contraction it is only overwritten whole by another
    transpose or freed (one buffer serves every layer once bufferization
    has shared their `tensor.empty`); the buffer goes with its last use.
    Likewise a matmul or batch matmul that overwrites a buffer whose next
    use is a `linalg.transpose` copying it whole elsewhere (attention's
    heads back to tokens), and which is afterwards only overwritten whole
    or freed, writes the transposed view of the copy's destination (its
    allocation moved up when it came after the contraction) and the copy
    goes.
    A convolution whose input is what bufferization leaves of a zero
    `tensor.pad` (an alloc filled with 0, the source copied into its
    interior, nothing else reading it, the source not written in between)
    reads the source instead, with `pad_top`/`pad_left` (implicit padding;
    the padded copy goes with its last reader); pads as wide as the kernel's
    span stay explicit. An elementwise `max(x, 0)` (`arith.maximumf`) that is
    the first reader of the convolution's local output buffer, in place or
    (as the buffer's last reader) into a local buffer of the same type,
    becomes the kernel's ReLU epilogue (`TELAR_KERNEL_RELU`); the ReLU's
    later readers then read the convolution's buffer (bufferization may
    give several ReLUs one buffer, which keeps its earlier readers). A
    convolution whose output was just set to a bias (a `linalg.broadcast`
    of a 1-D buffer along dimensions 0, 2 and 3, or the `linalg.generic`
    form of one; directly, or through a copy of a shared broadcast, as for
    zero fills; the bias buffer an allocation or argument unwritten since,
    or a constant global) calls `telarrt_conv2d_nchw_bias_f32` instead,
    which adds the bias with the result: the broadcast (or the copy) goes
    and the call overwrites. A residual connection after an overwriting
    convolution (an elementwise `out + skip`, or `max(out + skip, 0)`, the
    first and last reader of its output) folds into it: the convolution
    accumulates into `skip`'s buffer instead (`TELAR_KERNEL_ACCUMULATE`,
    with the ReLU as `TELAR_KERNEL_RELU`) and the sum's readers read that
    buffer, when `skip` is a local allocation of the same type that the
    convolution does not read and nothing uses between the convolution
    and the sum or after it (ResNet-18's 8 residual blocks). Two
    convolutions in a row become one `telarrt_conv2d_pair_nchw_f32` call
    where the second was, when the second (unit strides and dilations)
    reads as its input a local allocation of one image whose channels come
    in whole blocks of `TELARRT_CONV_CHANNEL_BLOCK` (16), which only the
    first (overwriting it) and the second use, and nothing between them
    writes memory: the call takes the first's operands, bias and flags,
    the intermediate's height and width, the second's padding and flags (a
    bias with no elements for none), and the intermediate goes (the
    runtime passes it between the two in its planes of interleaved
    channels: ResNet-18's 8 residual blocks, conv1 then conv2). Likewise
    a convolution whose output only a max pooling (dilation 1) reads, one
    image, becomes one `telarrt_conv2d_maxpool_nchw_f32` call where the
    pooling was (the convolution's operands, bias and flags, its output's
    height and width, the pooling's window, strides and padding), and the
    convolution's output goes (ResNet-18's stem). A
    `linalg.pooling_nchw_max` whose output was just filled with -inf calls
    `telarrt_maxpool2d_nchw_f32`, which overwrites it (the fill goes),
    reading an input padded with -inf unpadded as convolutions do.
    Each call
    takes the enclosing function's runtime context first (from
    `telar-add-runtime-context`) and returns an `i32` status (the callee is
    marked `telar.runtime_status`), which `telar-lower-runtime-calls`
    checks.
  }];
  let options = [
    Option<"minFlops", "min-flops", "int64_t", /*default=*/"4096",
           "Contractions with fewer multiply-adds stay inline">
  ];
  let dependentDialects = ["::mlir::func::FuncDialect",
                           "::mlir::memref::MemRefDialect",
                           "::mlir::LLVM::LLVMDialect"];
}

def TelarBlockConvActivations
    : Pass<"telar-block-conv-activations", "ModuleOp"> {
  let summary = "Keep buffers only convolution calls use in the runtime's channel-blocked order";
  let description = [{
    After `telar-linalg-to-library-calls`: a local allocation (4-D f32,
    static shape, identity layout, one image, channels a multiple of
    `TELARRT_CONV_CHANNEL_BLOCK`) whose every use is a `memref.dealloc` or
    a `memref.cast` that
    only runtime convolution calls (`telarrt_conv2d_nchw_f32`,
    `telarrt_conv2d_nchw_bias_f32`, `telarrt_conv2d_pair_nchw_f32`,
    `telarrt_conv2d_maxpool_nchw_f32`) take as their input or output holds
    its values channel-blocked (NCHW16c): each such call gets
    `TELAR_KERNEL_BLOCKED_INPUT` (the pair's first flags) or
    `TELAR_KERNEL_BLOCKED_OUTPUT` (the pair's second flags) set on the
    flags for that operand. Nothing else reads or writes the buffer, so
    its layout is the calls' affair: the runtime's direct kernels then move
    whole pixels of 16 channels in and out of their planes, no transposes
    (ResNet-18's activations from the stem's pooling to the input of layer
    4's first block; bufferization gives layer 4's outputs the buffer the
    average pooling reads). A buffer any other op uses (a view, a copy, generated code, the
    function's results) stays NCHW.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect"];
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

def TelarLinalgToLoops : Pass<"telar-linalg-to-loops", "func::FuncOp"> {
  let summary = "Linalg ops on memrefs to loops, parallel ones only when they pay";
  let description = [{
    Each linalg op becomes loops: an `scf.parallel` over its leading
    parallel dimensions when its work is at least `min-parallel-work`
    (so that the OpenMP conversion runs it on threads), sequential `scf.for`
    otherwise, since forking threads (about 2 us with spinning workers,
    20 us with sleeping ones, plus moving the data to another core's cache)
    costs more than a small op. The work is the iteration count times the
    cost of one iteration: one per operand read or written plus one per
    payload op, 4 per division, 16 per transcendental `math` op (a copy
    costs 2 per point, an add 4, an erf-based GELU about 50). The default,
    2^18, was measured on a 2-vCPU Sapphire Rapids VM: against 2^20, the
    layer norms, residual adds and softmaxes of 128-197-token transformers
    (d 384-512) run on both threads, 2-4 % faster end to end, while the
    32-token ones keep most of their loops sequential (no different);
    2^17 gained 1-3 % more on the former but lost 5-10 % on the latter.
    Only the outermost loops are parallel
    (enough of them for 64 iterations); the innermost loop stays sequential
    so that LLVM vectorises it. Window reductions (pools) get the output's
    column loop innermost instead of the window loops. `memref.copy` becomes
    loops too (no call to MLIR's `memrefCopy` helper).
  }];
  let options = [
    Option<"minParallelWork", "min-parallel-work", "int64_t",
           /*default=*/"::mlir::telar::kDefaultMinParallelWork",
           "Work (iterations times operations per iteration) from which a "
           "loop nest runs on threads">
  ];
  let dependentDialects = ["::mlir::scf::SCFDialect",
                           "::mlir::memref::MemRefDialect",
                           "::mlir::linalg::LinalgDialect"];
}

def TelarMergeParallelRegions
    : Pass<"telar-merge-parallel-regions", "func::FuncOp"> {
  let summary = "Consecutive OpenMP parallel regions become one";
  let description = [{
    After `convert-scf-to-openmp` every parallel loop has its own
    `omp.parallel`: a fork and a join of the thread team per loop. Two
    regions with only movable ops between them become one region running
    both worksharing loops, whose implicit end-of-loop barrier keeps them
    in order (a barrier costs a fraction of a fork-join). Movable:
    allocations and side-effect-free ops without regions (they move before
    the first region when their operands allow) and deallocations (they
    move after the second). Regions with clauses (threads, if, private,
    reductions) or `nowait` loops are left alone, and so is anything
    separated by a runtime call or a sequential loop.
  }];
}

def TelarAddRuntimeContext : Pass<"telar-add-runtime-context", "ModuleOp"> {
  let summary = "Give public functions the runtime context and a status result";
  let description = [{
    The runtime ABI (docs/Artifact.md): everything a program calls goes
    through the `TelarContext *` its entry point is given, and the program
    returns a status. After bufferization (results already out-params),
    every public function definition gets a leading `!llvm.ptr` argument
    marked `telar.runtime_context`, and an `i32` result: 0
    (`TELAR_STATUS_OK`) at each return. Later passes pass that argument to
    the runtime calls (`telar-linalg-to-library-calls`) and return early
    when one fails (`telar-lower-runtime-calls`). Calls made before the
    context existed (`telar-lower-collectives`, on tensors) go to
    declarations whose argument is marked `telar.runtime_context`: they get
    the calling function's context in that argument (a call in a function
    without one is an error). Functions that already have a context are
    left alone; a public function with results, or one called inside the
    module, is an error (its callers would need the context too).
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::func::FuncDialect",
                           "::mlir::LLVM::LLVMDialect"];
}

def TelarLowerRuntimeCalls : Pass<"telar-lower-runtime-calls", "ModuleOp"> {
  let summary = "Runtime calls of LLVM-dialect programs take the context and are checked";
  let description = [{
    Runs on the LLVM dialect, after `finalize-memref-to-llvm` and
    `convert-func-to-llvm`, in functions that have a
    `telar.runtime_context` argument:

    - the generic allocation calls of `finalize-memref-to-llvm`
      (`_mlir_memref_to_llvm_alloc`, `_aligned_alloc`, `_free`) become
      `telarrt_alloc(ctx, size)`, `telarrt_aligned_alloc(ctx, alignment,
      size)` and `telarrt_free(ctx, ptr)`;
    - the runtime kernels' C-interface declarations
      (`_mlir_ciface_telarrt_<name>`) are renamed `telarrt_<name>`, the
      runtime's symbols (their descriptor-unpacking wrappers become
      `telarrt_<name>_unpacked`);
    - every fallible call is checked and the function returns at once when
      it fails: a null allocation returns `TELAR_STATUS_OUT_OF_MEMORY`
      (1), a non-zero status from a kernel (declared with
      `telar.runtime_status`) returns that status. The runtime has recorded
      the message in the context.

    A fallible call inside a nested region (an OpenMP parallel region),
    which cannot return, is an error; so is a runtime call in a function
    without a context. The `telar.runtime_context` marker is removed at the
    end (the context stays the function's first argument), since LLVM IR
    translation does not know it (from declarations' arguments as well).
  }];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect"];
}

#endif // TELAR_PASSES_LOWERING_PASSES_TD
