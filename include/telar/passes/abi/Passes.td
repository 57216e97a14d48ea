//===- Passes.td - Telar runtime-ABI passes ----------------*- tablegen -*-===//

#ifndef TELAR_PASSES_ABI_PASSES_TD
#define TELAR_PASSES_ABI_PASSES_TD

include "mlir/Pass/PassBase.td"

// The passes of passes/abi (library TelarAbiPasses): what every target's
// program does to reach the runtime through the core and collective ABIs
// (include/telar/runtime/, docs/Artifact.md): the context argument and
// status result, checked runtime calls, collectives as runtime calls.

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

def TelarLowerCollectives : Pass<"telar-lower-collectives", "ModuleOp"> {
  let summary = "Lower shard collectives on local tensors to runtime calls";
  let description = [{
    Runs in the CPU translation right after `telar-lower-to-linalg`, on
    tensors, before bufferization. Each `shard.all_reduce`,
    `shard.all_gather`, `shard.reduce_scatter`, `shard.all_to_all` and
    `shard.all_slice` of a partitioned program (static local shapes)
    becomes a call of the runtime's collective C ABI
    (`include/telar/runtime/Abi.h`, docs/Artifact.md):

    ```mlir
    %y = shard.all_gather %x on @mesh grid_axes = [1] gather_axis = 1
        : tensor<4x8xf32> -> tensor<4x16xf32>
    // becomes
    %in = bufferization.to_buffer %x read_only : tensor<4x8xf32> to memref<4x8xf32>
    %out = memref.alloc() {alignment = 64 : i64} : memref<4x16xf32>
    // (the buffers' aligned pointers as !llvm.ptr: %pin, %pout)
    %s = func.call @telarrt_all_gather(%ctx, %dtype, %axes, %pin, %pout,
                                       %outer, %inner)
        : (!llvm.ptr, i64, i64, !llvm.ptr, !llvm.ptr, i64, i64) -> i32
    %y = bufferization.to_tensor %out restrict writable : memref<4x16xf32> to tensor<4x16xf32>
    ```

    - `dtype` is the element type's `TELAR_DTYPE_*` code (f32, f16, bf16,
      f64, i64, i32, i8, i1 as bool); `reduction` the `TELAR_REDUCE_*` code
      (sum, max, min, product; other kinds are an error).
    - `axes` is the group as a bit mask: bit i for axis i of the module's
      `shard.grid`. The runtime numbers a group's members row-major over
      the axes in ascending order, so a collective other than an
      all-reduce over several axes must list its `grid_axes` in ascending
      order (an error otherwise).
    - Counts are elements, in the [outer][G][inner] form of Abi.h (G the
      group size, the product of the axes' sizes): for an all-gather
      along dim d of a local input of shape S, outer = S[0] * ... *
      S[d-1] and inner = S[d] * ... * S[rank-1]; for a reduce-scatter or
      an all-slice along d, outer likewise and inner = (S[d] / G) *
      S[d+1] * ...; an all-to-all gives (splitOuter, splitInner) from its
      input and split axis and (concatOuter, concatInner) from its result
      and concat axis; an all-reduce the element count. An all-slice is
      `telarrt_local_slice` (no communication: a device's block depends on
      its coordinates, known only at run time).
    - The input's buffer is read in place (`to_buffer read_only`; a
      non-contiguous one is copied by the bufferization); the result is a
      new contiguous buffer, so results of @main are written directly into
      the caller's output buffers after `buffer-results-to-out-params`.
    - The callees are private declarations whose first argument (the
      `TelarContext *`) is marked `telar.runtime_context` and which are
      marked `telar.runtime_status`: the call passes a null placeholder,
      which `telar-add-runtime-context` replaces with the calling
      function's context, and `telar-lower-runtime-calls` checks the
      returned status (the program returns it at once when not OK).

    Grids no longer referenced afterwards are erased (LLVM IR translation
    does not know them). A program with collectives needs the runtime: with `runtime=false` (a
    pipeline without runtime calls) a collective is an error, as are
    collectives on memrefs, dynamic shapes, an all-reduce that changes the
    element type, and grids of dynamic size.
  }];
  let options = [
    Option<"runtime", "runtime", "bool", /*default=*/"true",
           "The pipeline gives functions the runtime context (off: a "
           "collective is an error)">
  ];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::bufferization::BufferizationDialect",
                           "::mlir::func::FuncDialect",
                           "::mlir::LLVM::LLVMDialect",
                           "::mlir::memref::MemRefDialect"];
}

#endif // TELAR_PASSES_ABI_PASSES_TD
