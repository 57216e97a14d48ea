//===- CudaPipeline.cpp - The CUDA target's pass pipelines ----------------===//

#include "telar/targets/cuda/CudaPipeline.h"
#include "telar/codegen/Pipeline.h"
#include "telar/passes/abi/Passes.h"
#include "telar/passes/lowering/Passes.h"
#include "telar/targets/cpu/CpuPipeline.h"
#include "telar/targets/cpu/Passes.h"
#include "telar/targets/cuda/Passes.h"

#include "mlir/Conversion/AffineToStandard/AffineToStandard.h"
#include "mlir/Conversion/GPUToNVVM/GPUToNVVMPass.h"
#include "mlir/Conversion/ReconcileUnrealizedCasts/ReconcileUnrealizedCasts.h"
#include "mlir/Conversion/SCFToControlFlow/SCFToControlFlow.h"
#include "mlir/Dialect/Bufferization/Pipelines/Passes.h"
#include "mlir/Dialect/Bufferization/Transforms/Passes.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/GPU/Transforms/Passes.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"

using namespace mlir;

bool telar::isSupportedCudaChip(StringRef chip) {
  return llvm::is_contained(kCudaChips, chip);
}

void telar::buildCudaWeightPreparationPipeline(
    OpPassManager &pm, const CudaPipelineOptions &options) {
  if (options.dtype == "bf16")
    pm.addNestedPass<func::FuncOp>(createTelarCastWeights());
}

void telar::buildCudaTranslationPipeline(OpPassManager &pm,
                                         const CudaPipelineOptions &options) {
  // bf16: the tensors between kernels stored narrow, first (on tensors).
  if (options.dtype == "bf16")
    pm.addNestedPass<func::FuncOp>(createTelarNarrowStorage());
  // Constant powers as products (x^2: x * x; libdevice's powf is not
  // linked), then exp, erf and tanh as polynomials, as on the CPU.
  pm.addPass(createTelarConstantPowers());
  pm.addPass(createTelarApproximateMath());
  buildBufferizationPipeline(pm);
  if (options.runtime)
    pm.addPass(createTelarAddRuntimeContext());
  bufferization::buildBufferDeallocationPipeline(pm);
  pm.addNestedPass<func::FuncOp>(createTelarEarlyDealloc());
  // Contractions to the runtime's GEMM (cuBLASLt), which needs the context.
  if (options.runtime) {
    TelarContractionsToGpuLibraryOptions library;
    library.tf32 = options.dtype == "tf32";
    pm.addNestedPass<func::FuncOp>(createTelarContractionsToGpuLibrary(library));
  }
  TelarLinalgToGpuOptions kernels;
  kernels.blockSize = options.blockSize;
  pm.addNestedPass<func::FuncOp>(createTelarLinalgToGpu(kernels));
  pm.addPass(createGpuKernelOutliningPass());
  pm.addPass(createTelarMergeGpuModules());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
}

void telar::buildCudaKernelPipeline(OpPassManager &pm,
                                    const CudaPipelineOptions &options) {
  GpuNVVMAttachTargetOptions target;
  target.chip = options.gpu;
  target.optLevel = 3;
  pm.addPass(createGpuNVVMAttachTarget(target));
  OpPassManager &kernels = pm.nest<gpu::GPUModuleOp>();
  kernels.addPass(memref::createExpandStridedMetadataPass());
  kernels.addPass(createLowerAffinePass());
  kernels.addPass(createSCFToControlFlowPass());
  ConvertGpuOpsToNVVMOpsOptions nvvm;
  // Static shapes: a buffer is its base pointer (the runtime passes one
  // pointer per kernel argument).
  nvvm.useBarePtrCallConv = true;
  kernels.addPass(createConvertGpuOpsToNVVMOps(nvvm));
  kernels.addPass(createTelarLibdeviceToIntrinsics());
  kernels.addPass(createReconcileUnrealizedCastsPass());
  kernels.addPass(createCanonicalizerPass());
  GpuModuleToBinaryPassOptions binary;
  binary.compilationTarget = "isa"; // PTX text
  pm.addPass(createGpuModuleToBinaryPass(binary));
}

namespace {
/// Host code (the emulation's, the host program's) to the LLVM dialect by
/// the CPU target's lowering: no runtime kernels, no threads; compiled for
/// `cpu` when the programs are for the runtime.
void buildHostCodeLowering(OpPassManager &pm,
                           const telar::CudaPipelineOptions &options,
                           StringRef cpu, bool runtimeAllocator,
                           bool barePtrCallConv = false) {
  telar::CpuPipelineOptions host;
  host.libraryCalls = false;
  host.runtimeAllocator = runtimeAllocator;
  host.parallel = false;
  host.barePtrCallConv = barePtrCallConv;
  if (options.runtime) {
    telar::TelarSetCpuTargetOptions target;
    target.cpu = cpu.str();
    pm.addPass(telar::createTelarSetCpuTarget(target));
  }
  telar::buildCpuLoopsToLLVMPipeline(pm, host);
}
} // namespace

void telar::buildCudaEmulationPipeline(OpPassManager &pm,
                                       const CudaPipelineOptions &options) {
  pm.addPass(createTelarEmulateGpu());
  // The host the emulation runs on: this machine's CPU.
  buildHostCodeLowering(pm, options, "native", options.runtime);
}

void telar::buildCudaHostPipeline(OpPassManager &pm,
                                  const CudaPipelineOptions &options) {
  pm.addPass(createTelarGpuLaunchesToRuntime());
  // The host of the GPU, not this machine: a CPU any x86-64 server has
  // (the host code only calls the runtime).
  buildHostCodeLowering(pm, options, kCudaHostCpu, options.runtime);
}

void telar::buildCudaKernelLibraryPipeline(OpPassManager &pm,
                                           const CudaPipelineOptions &options) {
  TelarEmulateGpuOptions emulate;
  emulate.library = true;
  pm.addPass(createTelarEmulateGpu(emulate));
  // The emulator runs where the artifact is compiled, as a rule; kernels
  // allocate nothing; buffers are the slots' pointers.
  buildHostCodeLowering(pm, options, "native", /*runtimeAllocator=*/false,
                        /*barePtrCallConv=*/true);
  pm.addPass(createTelarEmulatedKernelEntries());
}

namespace {
void buildGpuLowering(OpPassManager &pm,
                      const telar::CudaPipelineOptions &options) {
  telar::buildProgramPreparationPipeline(pm);
  telar::buildCudaWeightPreparationPipeline(pm, options);
  telar::buildFusedLinalgPipeline(pm, options.runtime);
  telar::buildCudaTranslationPipeline(pm, options);
}
} // namespace

void telar::registerCudaPipelines() {
  PassPipelineRegistration<CudaPipelineOptions>(
      "telar-lower-to-gpu",
      "Lower telar (tensors, static shapes) to GPU kernels: "
      "telar-lower-to-fused-linalg, bufferization, one gpu.launch per "
      "linalg op (telar-linalg-to-gpu), kernels outlined into one gpu.module "
      "(telar-merge-gpu-modules)",
      buildGpuLowering);
  PassPipelineRegistration<CudaPipelineOptions>(
      "telar-lower-to-ptx",
      "telar-lower-to-gpu, then the kernels through NVVM to PTX (the "
      "program's gpu.binary; --gpu picks the architecture)",
      [](OpPassManager &pm, const CudaPipelineOptions &options) {
        buildGpuLowering(pm, options);
        buildCudaKernelPipeline(pm, options);
      });
  PassPipelineRegistration<CudaPipelineOptions>(
      "telar-lower-to-gpu-host",
      "telar-lower-to-gpu, then the host program of a GPU target: launches "
      "and constants as runtime calls (telar-gpu-launches-to-runtime), to "
      "the LLVM dialect",
      [](OpPassManager &pm, const CudaPipelineOptions &options) {
        buildGpuLowering(pm, options);
        buildCudaHostPipeline(pm, options);
      });
  PassPipelineRegistration<CudaPipelineOptions>(
      "telar-lower-to-emulated-kernels",
      "telar-lower-to-gpu, then the kernels alone for the CUDA emulator: "
      "compiled for the host with an exported entry point each "
      "(telar-emulate-gpu{library}, telar-emulated-kernel-entries)",
      [](OpPassManager &pm, const CudaPipelineOptions &options) {
        buildGpuLowering(pm, options);
        buildCudaKernelLibraryPipeline(pm, options);
      });
  PassPipelineRegistration<CudaPipelineOptions>(
      "telar-lower-to-emulated-gpu",
      "telar-lower-to-gpu, then the kernels run on the CPU "
      "(telar-emulate-gpu) and everything to the LLVM dialect",
      [](OpPassManager &pm, const CudaPipelineOptions &options) {
        buildGpuLowering(pm, options);
        buildCudaEmulationPipeline(pm, options);
      });
}
