//===- Pipeline.h - Telar's named pass pipelines ----------------*- C++ -*-===//
//
// One place builds the pass pipelines (IREE style), from typed pass
// constructors. telarc runs them through its target backend
// (TargetBackend.h); telar-opt registers them by name so that lit tests and
// users run exactly what telarc runs:
//
//   telar-prepare-program   target-independent: weights transposed at
//                           compile time, then outlined into arguments
//   telar-lower-to-llvm     telar-prepare-program + the CPU target's
//                           translation to the LLVM dialect
//
//===----------------------------------------------------------------------===//
#ifndef TELAR_CODEGEN_PIPELINE_H
#define TELAR_CODEGEN_PIPELINE_H

#include "telar/passes/lowering/ParallelWork.h"

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
      llvm::cl::desc("Work (iterations times operations per iteration) "
                     "from which a loop nest runs on threads"),
      llvm::cl::init(kDefaultMinParallelWork)};
};

/// What follows the import: canonicalisation (which folds the shape
/// subgraphs away) and CSE. Its result is what `telarc --emit=mlir` prints.
void buildImportCleanupPipeline(OpPassManager &pm);

/// `telar-prepare-program`: target-independent steps between the graph IR
/// and a target's translation (telar-fold-weight-transposes,
/// telar-outline-weights). Afterwards @main takes the weights as trailing
/// arguments marked `telar.weight`.
void buildProgramPreparationPipeline(OpPassManager &pm);

/// telar-prepare-program, then telar-lower-to-linalg: the program in
/// linalg/tensor/arith/math that the CPU translation continues from (what
/// `telarc --emit=linalg` prints).
void buildLowerToLinalgPipeline(OpPassManager &pm);

/// The CPU target's translation: a prepared telar program (static shapes)
/// through linalg, bufferization and loops down to the LLVM dialect.
void buildCpuTranslationPipeline(OpPassManager &pm,
                                 const CpuPipelineOptions &options);

/// `telar-lower-to-llvm`: buildProgramPreparationPipeline, then
/// buildCpuTranslationPipeline.
void buildCpuLoweringPipeline(OpPassManager &pm,
                              const CpuPipelineOptions &options);

/// Registers `telar-prepare-program` and `telar-lower-to-llvm`.
void registerTelarPipelines();

} // namespace telar
} // namespace mlir

#endif // TELAR_CODEGEN_PIPELINE_H
