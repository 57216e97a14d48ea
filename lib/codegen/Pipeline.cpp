//===- Pipeline.cpp - The telar -> LLVM dialect pass pipeline --------------===//

#include "telar/codegen/Pipeline.h"

#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "llvm/Support/ErrorHandling.h"
#include "llvm/Support/FormatVariadic.h"

#include <limits>

using namespace mlir;

void telar::buildCpuLoweringPipeline(OpPassManager &pm,
                                     const CpuPipelineOptions &options) {
  // Programs that call the runtime get its context (docs/Artifact.md).
  bool usesRuntime = options.libraryCalls || options.runtimeAllocator;
  // Written as one textual pipeline so that it reads like (and can be pasted
  // into) a telar-opt/mlir-opt command line.
  std::string text = llvm::formatv(
      "telar-lower-to-linalg,canonicalize,telar-fuse-elementwise,cse,"
      "telar-approximate-math,"
      // Function-boundary bufferization with identity layouts (arguments
      // read-only), results turned into caller-provided out-params (the
      // runtime passes output buffers); the final allocs are hoisted into
      // them.
      "telar-read-only-arguments,"
      "one-shot-bufferize{{bufferize-function-boundaries=1 "
      "function-boundary-type-conversion=identity-layout-map},"
      "buffer-results-to-out-params{{hoist-static-allocs=1 "
      "modify-public-functions=1},"
      // The runtime ABI: a context argument and a status result.
      "{5}"
      "{0}"
      "buffer-deallocation-pipeline,func.func(telar-early-dealloc),"
      "func.func(telar-linalg-to-loops{{min-parallel-work={1}}),"
      // canonicalize inlines the alloca scopes scf-to-openmp wraps loop
      // bodies in: scf-to-cf would otherwise split them into several blocks,
      // which memref.alloca_scope does not allow.
      "{2}"
      "expand-strided-metadata,lower-affine,convert-scf-to-cf,"
      "finalize-memref-to-llvm{{use-generic-functions={3}},"
      "convert-math-to-llvm,convert-math-to-libm,convert-arith-to-llvm,"
      "convert-index-to-llvm,convert-cf-to-llvm,convert-func-to-llvm,"
      "{4}"
      "{6}"
      "reconcile-unrealized-casts,canonicalize",
      options.libraryCalls ? "telar-linalg-to-library-calls," : "",
      options.parallel ? int64_t(options.minParallelWork)
                       : std::numeric_limits<int64_t>::max(),
      options.parallel ? "convert-scf-to-openmp,canonicalize," : "",
      options.runtimeAllocator ? "1" : "0",
      options.parallel ? "convert-openmp-to-llvm," : "",
      usesRuntime ? "telar-add-runtime-context," : "",
      usesRuntime ? "telar-lower-runtime-calls," : "");
  if (failed(parsePassPipeline(text, pm)))
    llvm::report_fatal_error("telar: the built-in CPU pipeline does not parse");
}

void telar::registerCpuLoweringPipeline() {
  PassPipelineRegistration<CpuPipelineOptions>(
      "telar-lower-to-llvm",
      "Lower telar (tensors, static shapes) to the LLVM dialect for the CPU",
      buildCpuLoweringPipeline);
}
