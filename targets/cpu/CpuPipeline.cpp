//===- CpuPipeline.cpp - The CPU target's pass pipelines ------------------===//

#include "telar/targets/cpu/CpuPipeline.h"
#include "telar/codegen/Pipeline.h"
#include "telar/passes/abi/Passes.h"
#include "telar/passes/lowering/Passes.h"
#include "telar/targets/cpu/Passes.h"

#include "mlir/Conversion/AffineToStandard/AffineToStandard.h"
#include "mlir/Conversion/ArithToLLVM/ArithToLLVM.h"
#include "mlir/Conversion/ControlFlowToLLVM/ControlFlowToLLVM.h"
#include "mlir/Conversion/FuncToLLVM/ConvertFuncToLLVMPass.h"
#include "mlir/Conversion/IndexToLLVM/IndexToLLVM.h"
#include "mlir/Conversion/MathToLLVM/MathToLLVM.h"
#include "mlir/Conversion/MathToLibm/MathToLibm.h"
#include "mlir/Conversion/MemRefToLLVM/MemRefToLLVM.h"
#include "mlir/Conversion/OpenMPToLLVM/ConvertOpenMPToLLVM.h"
#include "mlir/Conversion/ReconcileUnrealizedCasts/ReconcileUnrealizedCasts.h"
#include "mlir/Conversion/SCFToControlFlow/SCFToControlFlow.h"
#include "mlir/Conversion/SCFToOpenMP/SCFToOpenMP.h"
#include "mlir/Dialect/Bufferization/Pipelines/Passes.h"
#include "mlir/Dialect/Bufferization/Transforms/Passes.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"

#include <limits>

using namespace mlir;

void telar::buildCpuTranslationPipeline(OpPassManager &pm,
                                        const CpuPipelineOptions &options) {
  bool usesRuntime = options.usesRuntime();
  // Programs for the runtime say which CPU they are for (the artifact's
  // code generation and manifest read it). Standalone ones (no runtime
  // calls: run by mlir-runner, which knows no telar dialect) do not.
  if (usesRuntime) {
    TelarSetCpuTargetOptions target;
    target.cpu = options.cpu;
    pm.addPass(createTelarSetCpuTarget(target));
  }
  pm.addPass(createTelarApproximateMath());

  // Function-boundary bufferization with identity layouts (arguments
  // read-only), results turned into caller-provided out-params (the runtime
  // passes output buffers); the final allocs are hoisted into them.
  buildBufferizationPipeline(pm);
  // The runtime ABI (docs/Artifact.md): programs that call the runtime get
  // a context argument and a status result.
  if (usesRuntime)
    pm.addPass(createTelarAddRuntimeContext());
  if (options.libraryCalls) {
    pm.addPass(createTelarLinalgToLibraryCalls());
    pm.addPass(createTelarBlockConvActivations());
  }
  bufferization::buildBufferDeallocationPipeline(pm);
  pm.addNestedPass<func::FuncOp>(createTelarEarlyDealloc());

  // Loops: parallel ones on OpenMP threads when large enough.
  TelarLinalgToLoopsOptions loops;
  loops.minParallelWork = options.parallel
                              ? int64_t(options.minParallelWork)
                              : std::numeric_limits<int64_t>::max();
  pm.addNestedPass<func::FuncOp>(createTelarLinalgToLoops(loops));
  if (options.parallel) {
    pm.addPass(createConvertSCFToOpenMPPass());
    // Inlines the alloca scopes scf-to-openmp wraps loop bodies in:
    // scf-to-cf would otherwise split them into several blocks, which
    // memref.alloca_scope does not allow.
    pm.addPass(createCanonicalizerPass());
    pm.addNestedPass<func::FuncOp>(createTelarMergeParallelRegions());
  }
  buildCpuLoopsToLLVMPipeline(pm, options);
}

void telar::buildCpuLoopsToLLVMPipeline(OpPassManager &pm,
                                        const CpuPipelineOptions &options) {
  // Everything to the LLVM dialect.
  pm.addPass(memref::createExpandStridedMetadataPass());
  pm.addPass(createLowerAffinePass());
  pm.addPass(createSCFToControlFlowPass());
  FinalizeMemRefToLLVMConversionPassOptions memrefToLLVM;
  memrefToLLVM.useGenericFunctions = options.runtimeAllocator;
  pm.addPass(createFinalizeMemRefToLLVMConversionPass(memrefToLLVM));
  pm.addPass(createConvertMathToLLVMPass());
  pm.addPass(createConvertMathToLibmPass());
  pm.addPass(createArithToLLVMConversionPass());
  pm.addPass(createConvertIndexToLLVMPass());
  pm.addPass(createConvertControlFlowToLLVMPass());
  ConvertFuncToLLVMPassOptions funcToLLVM;
  funcToLLVM.useBarePtrCallConv = options.barePtrCallConv;
  pm.addPass(createConvertFuncToLLVMPass(funcToLLVM));
  if (options.parallel)
    pm.addPass(createConvertOpenMPToLLVMPass());
  // Runtime calls take the context and are checked.
  if (options.usesRuntime())
    pm.addPass(createTelarLowerRuntimeCalls());
  pm.addPass(createReconcileUnrealizedCastsPass());
  pm.addPass(createCanonicalizerPass());
}

void telar::buildCpuLoweringPipeline(OpPassManager &pm,
                                     const CpuPipelineOptions &options) {
  buildProgramPreparationPipeline(pm);
  buildFusedLinalgPipeline(pm, options.usesRuntime());
  buildCpuTranslationPipeline(pm, options);
}

void telar::registerCpuPipelines() {
  PassPipelineRegistration<CpuPipelineOptions>(
      "telar-lower-to-llvm",
      "Lower telar (tensors, static shapes) to the LLVM dialect for the CPU: "
      "telar-lower-to-fused-linalg, then the CPU target's translation (what "
      "telarc runs)",
      buildCpuLoweringPipeline);
}
