//===- CpuPipeline.h - The CPU target's pass pipelines ----------*- C++ -*-===//
//
// The CPU target's translation, from the fused linalg every target starts
// from (codegen/Pipeline.h) to the LLVM dialect its code generation takes,
// and the named pipeline telar-opt runs for it:
//
//   telar-lower-to-llvm   telar-lower-to-fused-linalg + the CPU translation
//                         (what `telarc --emit=llvm` and `--target cpu` run)
//
//===----------------------------------------------------------------------===//
#ifndef TELAR_TARGETS_CPU_CPUPIPELINE_H
#define TELAR_TARGETS_CPU_CPUPIPELINE_H

#include "telar/targets/cpu/ParallelWork.h"

#include "mlir/Pass/PassOptions.h"

namespace mlir {
class OpPassManager;
namespace telar {

struct CpuPipelineOptions : public PassPipelineOptions<CpuPipelineOptions> {
  Option<std::string> cpu{
      *this, "cpu",
      llvm::cl::desc("The CPU to generate code for: 'native' (this machine) "
                     "or an LLVM CPU name (telar-set-cpu-target; programs "
                     "that call the runtime only)"),
      llvm::cl::init("native")};
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
  Option<bool> barePtrCallConv{
      *this, "bare-ptr-call-conv",
      llvm::cl::desc("Functions take a buffer as its bare pointer (static "
                     "shapes; the CUDA emulator's kernel libraries), not "
                     "its memref descriptor"),
      llvm::cl::init(false)};
  Option<int64_t> minParallelWork{
      *this, "min-parallel-work",
      llvm::cl::desc("Work (iterations times operations per iteration) "
                     "from which a loop nest runs on threads"),
      llvm::cl::init(kDefaultMinParallelWork)};

  /// Whether the programs call the runtime (and so take its context).
  bool usesRuntime() const { return libraryCalls || runtimeAllocator; }
};

/// The CPU target's translation: the CPU attached as `telar.target`
/// (telar-set-cpu-target; when the programs call the runtime), then the fused linalg of buildFusedLinalgPipeline
/// (static shapes) through bufferization, the runtime's kernels and loops
/// down to the LLVM dialect.
void buildCpuTranslationPipeline(OpPassManager &pm,
                                 const CpuPipelineOptions &options);

/// The end of buildCpuTranslationPipeline: loops (scf, affine) on memrefs,
/// OpenMP regions where `options.parallel`, to the LLVM dialect (runtime
/// calls lowered where the programs use the runtime). The CUDA target's
/// CPU emulation ends with it too.
void buildCpuLoopsToLLVMPipeline(OpPassManager &pm,
                                 const CpuPipelineOptions &options);

/// `telar-lower-to-llvm`: buildProgramPreparationPipeline,
/// buildFusedLinalgPipeline, then buildCpuTranslationPipeline.
void buildCpuLoweringPipeline(OpPassManager &pm,
                              const CpuPipelineOptions &options);

/// Registers `telar-lower-to-llvm`.
void registerCpuPipelines();

} // namespace telar
} // namespace mlir

#endif // TELAR_TARGETS_CPU_CPUPIPELINE_H
