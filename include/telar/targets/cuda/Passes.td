//===- Passes.td - Telar CUDA target passes ----------------*- tablegen -*-===//

#ifndef TELAR_TARGETS_CUDA_PASSES_TD
#define TELAR_TARGETS_CUDA_PASSES_TD

include "mlir/Pass/PassBase.td"

// The passes of targets/cuda/passes (library TelarCudaPasses): the CUDA
// target's own steps: linalg ops on buffers as GPU kernels, and those
// kernels emulated on the CPU.

def TelarCastWeights : Pass<"telar-cast-weights", "func::FuncOp"> {
  let summary = "Store a prepared program's f32 weights as bfloat16";
  let description = [{
    After `telar-prepare-program` (weights outlined into arguments marked
    `telar.weight`, their bytes in resource blobs of the same name), for
    `telarc --target cuda --dtype bf16`: every f32 weight argument of rank
    two or more (matrices, embeddings, convolution kernels) becomes
    bfloat16 (its blob rounded to nearest even, once, at compile time, so
    the artifact stores and uploads half the bytes) and its uses read it
    through a `telar.cast` back to f32, which `telar-narrow-storage` later
    folds into the kernels and GEMMs that read the weight:

    ```mlir
    func.func @main(%w: tensor<64x64xbf16> {telar.weight = "fc.weight"}) {
      %0 = telar.cast %w {to = f32} : (tensor<64x64xbf16>) -> tensor<64x64xf32>
    ```

    Vectors (biases, normalisation scales and shifts: few bytes) stay f32,
    as PyTorch's autocast keeps them, so a bias can go to the GEMM's
    epilogue. A weight whose blob is absent (elided IR) changes its type
    alone.
  }];
  let dependentDialects = ["telar::TelarDialect"];
}

def TelarNarrowStorage : Pass<"telar-narrow-storage", "func::FuncOp"> {
  let summary = "Keep the tensors between kernels in bfloat16, computing in f32";
  let description = [{
    On fused linalg on tensors (before bufferization), for `telarc --target
    cuda --dtype bf16`: the values one kernel writes and others read are
    stored as bfloat16, while every kernel still computes in f32 (each
    fused region widens what it reads and rounds what it writes once):

    - the f32 result of an all-parallel `linalg.generic` (a fused
      elementwise region) becomes bfloat16 (`arith.truncf` before the
      yield) when every use can read it so: an input of a `linalg.generic`
      (`arith.extf` at the top of its body), of a `linalg.matmul` or
      `linalg.batch_matmul` (rebuilt with the bfloat16 operand: products
      summed in f32, into the f32 output), of another structured op (a
      convolution, a pooling, a broadcast: made a generic), of a
      `tensor.extract` (the scalar widened), or of
      a view (`tensor.expand_shape`, `tensor.collapse_shape`,
      `tensor.extract_slice`), a `tensor.pad` (its value rounded) or a
      `linalg.transpose` whose result can;
    - a generic that only widens bfloat16 (`telar-cast-weights`' casts)
      goes: the readers that can take bfloat16 read its input instead;
    - a matmul left with one bfloat16 and one f32 operand gets the f32 one
      rounded by a kernel of its own (the GEMM takes two of one type).

    What stays f32: reductions' outputs (sums, maxima, normalisation
    statistics accumulate in f32), contractions' outputs, the inits they
    accumulate into, the program's inputs and results, and anything read
    by an op not listed above.
  }];
  let dependentDialects = ["arith::ArithDialect", "linalg::LinalgDialect",
                           "tensor::TensorDialect"];
}

def TelarLinalgToGpu : Pass<"telar-linalg-to-gpu", "func::FuncOp"> {
  let summary = "Turn each linalg op on buffers into one gpu.launch";
  let description = [{
    After bufferization, every linalg op with buffer semantics (a fused
    elementwise region, a reduction, a contraction) and every
    `memref.copy` becomes one `gpu.launch`: its parallel dimensions
    (moved outermost) are flattened and spread one point per thread,
    `block-size` threads per block along x and as many blocks as the
    points need; a thread past the last point does nothing; the
    reduction dimensions run as loops inside the thread, in their
    order (the result is accumulated in place, as the CPU's loops do).
    An op without parallel dimensions runs on one thread.

    What still reads or writes a buffer after that (the loops of a
    scatter, which are no linalg op) runs as a kernel of one thread, in
    place, each op of the function's body that does; a scalar loaded from
    an argument (an input or weight, read-only) for kernels is loaded by
    each of them instead: a GPU program's host code never touches the
    device's memory (another op whose result the host needs is an error).

    A reduction of rows at least `row-reduction-min` long (one output,
    one reduction dimension, innermost once the parallel ones are moved
    out, a payload yielding `combiner(%out, e)` with a float add, mul, max
    or min) runs instead as one block per row of the largest power of two
    threads up to `block-size` and the row's length: each thread folds the
    elements tid, tid + threads, ... (from the combiner's identity). For
    f32 on whole warps, each warp combines its threads' shares by
    butterfly shuffles (`gpu.shuffle xor`, offsets 16 to 1), its first
    lane writes the warp's value to shared memory (a workgroup
    attribution, one value per warp), one `gpu.barrier`, and every warp
    combines those values by shuffles again; otherwise the shares are
    combined by a tree in shared memory, one `gpu.barrier` after each
    level. Barriers and shuffles are all at the kernel's top level; thread
    0 folds the total into the output. The order of the additions differs
    from the loop's (floating-point sums may differ in their last bits).
    An op with dynamic loop ranges is an error.

    ```mlir
    // linalg.generic over [4, 16] (parallel, reduction) becomes
    gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, ...)
               threads(%tx, %ty, %tz) in (%sx = %c4, ...) {
      // point %tx + %bx * 4 < 4: row %tx; scf.for over the 16 columns
    }
    ```
  }];
  let dependentDialects = ["gpu::GPUDialect", "scf::SCFDialect",
                           "arith::ArithDialect", "affine::AffineDialect",
                           "memref::MemRefDialect"];
  let options = [
    Option<"blockSize", "block-size", "int64_t", /*default=*/"256",
           "Threads per block (x) of the kernels; fewer when an op has fewer "
           "points">,
    Option<"rowReductionMin", "row-reduction-min", "int64_t", /*default=*/"32",
           "Rows from this length on are reduced by a block each (0: never)">
  ];
}

def TelarContractionsToGpuLibrary : Pass<"telar-contractions-to-gpu-library", "func::FuncOp"> {
  let summary = "Matmuls and batched matmuls as calls of the runtime's GPU GEMM";
  let description = [{
    Before `telar-linalg-to-gpu`, on buffers with the runtime context: each
    `linalg.matmul` and `linalg.batch_matmul` of f32, or of bfloat16 inputs
    into an f32 output (static layouts), becomes a call of `telarrt_gpu_matmul_f32` (abi/Gpu.h; cuBLASLt on a
    GPU, the CPU runtime's GEMM on the CUDA emulator):

    ```mlir
    %p = llvm.inttoptr %a_address : i64 to !llvm.ptr // offset applied
    %s = func.call @telarrt_gpu_matmul_f32(%ctx, %pa, %pb, %pc,
        %batch, %m, %n, %k, %a_batch_stride, %a_row_stride, %a_col_stride,
        ..., %flags) : (...) -> i32
    ```

    with the operands' strides in elements (a matrix without batch has
    batch stride 0) and `flags` TELAR_GPU_ACCUMULATE unless the output
    was zero-filled just before (the fill goes: the call overwrites). A
    product (not batched) whose output was filled just before by a
    broadcast of a contiguous f32 vector along its rows (a Linear's bias)
    calls `telarrt_gpu_matmul_bias_f32` instead, the vector's address after
    c's: cuBLASLt's bias epilogue adds it, and the broadcast goes. "Just
    before" is in place, or through a `memref.copy` of a buffer written
    once before it (bufferization copies an init several products share):
    the copy goes, and its writer with the last copy that read it. Plus
    TELAR_GPU_TF32 with `tf32` (`telarc --dtype tf32`) and TELAR_GPU_BF16
    for bfloat16 inputs (offsets applied in their elements' bytes). An
    operand the GEMM cannot take (neither its rows nor its columns
    contiguous; the output's columns not contiguous) leaves its op to be a
    generated kernel, as are products under `min-flops`.
  }];
  let dependentDialects = ["arith::ArithDialect", "func::FuncDialect",
                           "LLVM::LLVMDialect", "memref::MemRefDialect"];
  let options = [
    Option<"minFlops", "min-flops", "int64_t", /*default=*/"0",
           "Products of fewer flops (2 * batch * m * n * k) stay generated "
           "kernels">,
    Option<"tf32", "tf32", "bool", /*default=*/"false",
           "Let the products round their inputs to TF32 (tensor cores; "
           "TELAR_GPU_TF32)">
  ];
}

def TelarEmulateGpu : Pass<"telar-emulate-gpu", "ModuleOp"> {
  let summary = "Run outlined GPU kernels on the CPU: each launch as loops over blocks and threads";
  let description = [{
    The CPU emulation of the CUDA target's kernels, from the same kernel
    IR the NVVM path compiles (the outlined `gpu.func`s of the
    `gpu.module`s): each kernel becomes a host function
    `@__telar_emulated_<module>_<kernel>` taking the block and thread
    indices and the grid and block sizes (x, y, z: twelve `index`
    arguments) before the kernel's own, then its workgroup (shared)
    buffers; `gpu.block_id`, `gpu.thread_id`, `gpu.grid_dim` and
    `gpu.block_dim` read those arguments. Each `gpu.launch_func` becomes an
    `scf.parallel` over the grid's blocks (blocks are independent in CUDA:
    they may run on threads), in which each block allocates its workgroup
    buffers (host memory) and runs `scf.for` loops over its threads, z, y
    then x, calling the host function; the `gpu.module`s go.

    A kernel with `gpu.barrier`s at its top level becomes one host function
    per stretch between them (`..._s0`, `..._s1`, ...), each recomputing
    what it uses of the earlier stretches when that is pure (indices,
    constants); each block runs every thread through one stretch before
    the next, which is what a barrier guarantees. A scalar that is not
    pure crossing a barrier is kept per thread in a block-local buffer
    (stored where it is made, loaded in each later stretch: a GPU keeps it
    in the thread's registers). A `gpu.shuffle` at the top level becomes
    an exchange through a block-wide buffer of its own: the value stored
    at the thread's linear index, a barrier, the partner lane's value
    loaded (xor, down, up, idx within `width` in warps of 32; out of range:
    the thread's own value, valid false). Both need the kernel's
    `known_block_size`. Errors: barriers and shuffles inside control flow,
    private memory attributions and atomics (not emulated yet). Not
    emulated: timing, memory spaces (the host's memory serves all), and the
    floating-point differences of the GPU's own math (approximate `ex2`,
    fused multiply-adds): the host's math is used.
  }];
  let dependentDialects = ["scf::SCFDialect", "func::FuncDialect",
                           "arith::ArithDialect"];
  let options = [
    Option<"library", "library", "bool", /*default=*/"false",
           "Make a kernel library for the CUDA emulator instead: each "
           "kernel gets a public launcher `@__telar_launch_<module>_<kernel>` "
           "(grid x, y, z, block x, y, z, then the kernel's arguments) running "
           "its loops; the host functions go">
  ];
}

def TelarEmulatedKernelEntries : Pass<"telar-emulated-kernel-entries", "ModuleOp"> {
  let summary = "Exported entry points of emulated kernels, reading the runtime's argument slots";
  let description = [{
    The last step of a kernel library for the CUDA emulator
    (`telar-run --emulate`), on the LLVM dialect after
    `telar-emulate-gpu{library}` and the CPU lowering with bare-pointer
    buffers: each launcher `@__telar_launch_<kernel>` gets an exported
    `@telar_emulated_<kernel>(%slots: !llvm.ptr, %gx, %gy, %gz, %bx, %by,
    %bz: i64)`, which reads argument i from the i-th 64-bit slot (as its
    own type: a pointer, an integer, a float, from the slot's first bytes)
    and calls the launcher, made internal. The slots are those the host
    program passes to `telarrt_gpu_launch` (abi/Gpu.h), whose addresses
    are a GPU's kernel parameters: the emulator reads the same bytes.
  }];
  let dependentDialects = ["LLVM::LLVMDialect"];
}

def TelarGpuLaunchesToRuntime : Pass<"telar-gpu-launches-to-runtime", "ModuleOp"> {
  let summary = "A GPU program's host code: launches and constants as runtime calls";
  let description = [{
    The host program of the CUDA target (after `gpu-kernel-outlining`; its
    functions have the runtime context): each `gpu.launch_func` becomes

    ```mlir
    // the arguments in 64-bit slots: a buffer's aligned base pointer (the
    // kernel applies its static offset), an index or integer extended,
    // a float's bits
    memref.store %bits0, %slots[%c0] : memref<2xi64>
    ...
    %s = func.call @telarrt_gpu_launch(%ctx, %kernel, %gx, %gy, %gz,
                                       %bx, %by, %bz, %slots_ptr, %n)
    ```

    with `%kernel` the kernel's index in the module's kernel table
    `telar.gpu_kernels` (each kernel once, in the order first launched:
    the artifact lists it) and one slot array per function (`memref.alloca`,
    as long as its largest launch). Each constant buffer
    (`memref.get_global`) becomes a device buffer filled by
    `telarrt_gpu_upload` where it is taken, freed at the returns. The
    callees are runtime declarations whose status
    `telar-lower-runtime-calls` checks. The `gpu.module`s go (compiled
    apart: PTX, and the emulator's library).

    Host code must not touch buffers, which are in the device's memory: an
    op that reads or writes one (a load, a store, a copy left on the
    host) is an error, as are asynchronous launches, clusters, dynamic
    shared memory and kernel arguments other than buffers, indices,
    integers of up to 64 bits (a bool zero-extended, the others
    sign-extended), f32 and f64.
  }];
  let dependentDialects = ["arith::ArithDialect", "func::FuncDialect",
                           "LLVM::LLVMDialect", "memref::MemRefDialect"];
}

def TelarMergeGpuModules : Pass<"telar-merge-gpu-modules", "ModuleOp"> {
  let summary = "All of a program's GPU kernels in one gpu.module";
  let description = [{
    After `gpu-kernel-outlining`, which makes one `gpu.module` per kernel:
    every kernel moves into one `gpu.module` (`module-name`, renamed when
    the program has another symbol of that name), and the launches follow.
    A kernel alone in its module takes the module's name (outlining names
    every kernel after its host function, `@main_kernel_3::@main_kernel`
    becomes `@kernels::@main_kernel_3`); other clashing names are made
    unique. What the kernels reference (a global, a declaration) is kept
    once when its copies are the same, else renamed with its uses.

    So a program's kernels are one LLVM module through NVPTX, one PTX
    file, one `ptxas` run and one module for the driver to load: most of
    the CUDA target's compile time was spent per module. Modules with
    different attributes (targets) are an error.

    ```mlir
    gpu.launch_func @main_kernel_0::@main_kernel ...
    // becomes
    gpu.launch_func @kernels::@main_kernel_0 ...
    ```
  }];
  let options = [
    Option<"moduleName", "module-name", "std::string", /*default=*/"\"kernels\"",
           "The name of the merged gpu.module">
  ];
}

def TelarConstantPowers : Pass<"telar-constant-powers"> {
  let summary = "Powers with a constant exponent as products";
  let description = [{
    MLIR's algebraic simplification of `math.powf` and `math.fpowi` with a
    constant exponent: `x^2` is `x * x`, `x^3` `x * x * x`, `x^0.5`
    `sqrt(x)`, `x^-1` `1 / x`, ... (RMSNorm's and T5's squares). On the
    GPU this spares a libdevice `powf` (not linked); exact for negative
    bases too, unlike an `exp(y * log(x))` expansion. Other powers stay.
  }];
}

def TelarLibdeviceToIntrinsics : Pass<"telar-libdevice-to-intrinsics", "gpu::GPUModuleOp"> {
  let summary = "libdevice calls the GPU has instructions for as LLVM intrinsics";
  let description = [{
    After `convert-gpu-to-nvvm`, which calls libdevice for every math op:
    the calls of `__nv_fma`, `__nv_floor`, `__nv_ceil`, `__nv_trunc`,
    `__nv_rint`, `__nv_sqrt`, `__nv_fabs` and `__nv_copysign` (f32: the `f`
    suffix, and f64) become the LLVM intrinsics NVPTX selects to single
    instructions (`fma.rn`, `cvt.rmi`, `sqrt.rn`, `abs`, ...), and their
    declarations go: the kernels' PTX then needs no libdevice (a file of
    the CUDA toolkit) for them. The CPU emulation computes the same
    operations with the host's instructions. Other libdevice calls stay
    (the CUDA target says which when PTX still calls one).
  }];
  let dependentDialects = ["LLVM::LLVMDialect"];
}

#endif // TELAR_TARGETS_CUDA_PASSES_TD
