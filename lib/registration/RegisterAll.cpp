//===- RegisterAll.cpp - Register everything a Telar tool uses ------------===//

#include "telar/InitAllTelar.h"
#include "telar/codegen/Pipeline.h"
#include "telar/dialects/Telar/TelarDialect.h"
#include "telar/passes/abi/Passes.h"
#include "telar/passes/autodiff/Passes.h"
#include "telar/passes/lowering/Passes.h"
#include "telar/passes/partition/Passes.h"
#include "telar/targets/cpu/CpuPipeline.h"
#include "telar/targets/cpu/CpuTargetBackend.h"
#include "telar/targets/cpu/Passes.h"
#include "telar/targets/cuda/CudaPipeline.h"
#include "telar/targets/cuda/CudaTargetBackend.h"
#include "telar/targets/cuda/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Func/Extensions/AllExtensions.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Shard/IR/ShardDialect.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Target/LLVMIR/Dialect/All.h"

void mlir::telar::registerAllTelar(DialectRegistry &registry) {
  registry.insert<TelarDialect, func::FuncDialect, arith::ArithDialect,
                  math::MathDialect, tensor::TensorDialect,
                  linalg::LinalgDialect, shard::ShardDialect, scf::SCFDialect,
                  memref::MemRefDialect, bufferization::BufferizationDialect,
                  LLVM::LLVMDialect>();
  func::registerAllExtensions(registry);
  // The lowering pipeline needs the bufferization, inlining and
  // LLVM-conversion interface models of most upstream dialects (and the
  // omp dialect for threads); they all live in libMLIR.so anyway.
  registerAllDialects(registry);
  registerAllExtensions(registry);
  registerAllToLLVMIRTranslations(registry);
  registerGradientInterfaces(registry);
}

void mlir::telar::registerAllTelarPasses() {
  registerTelarAbiPasses();
  registerTelarAutodiffPasses();
  registerTelarLoweringPasses();
  registerTelarPartitionPasses();
  registerTelarCpuPasses();
  registerTelarCudaPasses();
  // Upstream passes: all of them are in libMLIR.so anyway, and the lowering
  // pipeline uses passes from most dialects.
  registerAllPasses();
  registerTelarPipelines();
  registerCpuPipelines();
  registerCudaPipelines();
}

void mlir::telar::registerAllTargetBackends() {
  registerCpuTargetBackend();
  registerCudaTargetBackend();
}
