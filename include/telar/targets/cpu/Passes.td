//===- Passes.td - Telar CPU target passes -----------------*- tablegen -*-===//

#ifndef TELAR_TARGETS_CPU_PASSES_TD
#define TELAR_TARGETS_CPU_PASSES_TD

include "mlir/Pass/PassBase.td"

// The passes of targets/cpu/passes (library TelarCpuPasses): the CPU
// target's own steps: the CPU the program is for, calls of the runtime's
// CPU kernels and their channel-blocked buffers after bufferization, loops
// on OpenMP threads.

def TelarSetCpuTarget : Pass<"telar-set-cpu-target", "ModuleOp"> {
  let summary = "Attach the CPU the program is generated for as telar.target";
  let description = [{
    The first step of the CPU target's translation: resolves `cpu`
    (`native`: this machine's CPU name and the features LLVM detects on it;
    else an LLVM CPU name, checked against the X86 target's list) and
    attaches the result to the module as
    `telar.target = #telar.target<"cpu", triple = ..., chip = ...,
    features = ...>`. The CPU code generation reads it back (chip, features
    and triple of the object it emits) and the artifact's manifest records
    it, so the IR printed at any later stage (`telarc --emit=llvm`) names
    the target it is for. An unknown CPU name is an error naming it.
  }];
  let options = [
    Option<"cpu", "cpu", "std::string", /*default=*/"\"native\"",
           "The CPU: 'native' (this machine, with the vector extensions it "
           "has) or an LLVM CPU name such as x86-64-v3 or skylake-avx512">
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

#endif // TELAR_TARGETS_CPU_PASSES_TD
