//===- Pipeline.h - The telar -> LLVM dialect pass pipeline ------*- C++ -*-===//
//
// One place builds the lowering pipeline (IREE style), used by telarc and
// registered in telar-opt as `telar-lower-to-llvm` so lit tests and users
// can run it alone.
//
//===----------------------------------------------------------------------===//
#ifndef TELAR_CODEGEN_PIPELINE_H
#define TELAR_CODEGEN_PIPELINE_H

#include "mlir/Pass/PassOptions.h"

namespace mlir {
class OpPassManager;
namespace telar {

struct CpuPipelineOptions : public PassPipelineOptions<CpuPipelineOptions> {
  Option<bool> libraryCalls{
      *this, "library-calls",
      llvm::cl::desc("Send large f32 matmuls/convolutions to the runtime's "
                     "GEMM kernels (programs then need libtelar_runtime)"),
      llvm::cl::init(true)};
  Option<bool> runtimeAllocator{
      *this, "runtime-allocator",
      llvm::cl::desc("Allocate through the runtime (telarrt_alloc/free), "
                     "which tracks peak memory; off = malloc/free"),
      llvm::cl::init(true)};
  Option<bool> parallel{
      *this, "parallel",
      llvm::cl::desc("Run parallel loops on OpenMP threads"),
      llvm::cl::init(true)};
  Option<int64_t> minParallelWork{
      *this, "min-parallel-work",
      llvm::cl::desc("Iteration-space size from which a loop nest runs on "
                     "threads"),
      llvm::cl::init(32768)};
};

/// Tensor-level telar (weights already outlined, static shapes) down to the
/// LLVM dialect.
void buildCpuLoweringPipeline(OpPassManager &pm,
                              const CpuPipelineOptions &options);

/// Registers `telar-lower-to-llvm` for telar-opt.
void registerCpuLoweringPipeline();

} // namespace telar
} // namespace mlir

#endif // TELAR_CODEGEN_PIPELINE_H
