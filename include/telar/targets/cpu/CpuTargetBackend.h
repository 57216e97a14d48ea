//===- CpuTargetBackend.h - The CPU target ----------------------*- C++ -*-===//
//
// `--target cpu`: the CPU pipeline down to the LLVM dialect
// (buildCpuTranslationPipeline, CpuPipeline.h), native code for the chosen
// CPU generated in process by LLVM (CpuCodegen.h) and linked by lld into
// programs/main.so.
// Its flags (`--cpu`, `--library-calls`, `--min-parallel-work`) are
// telarc's.
//
//===----------------------------------------------------------------------===//
#ifndef TELAR_TARGETS_CPU_CPUTARGETBACKEND_H
#define TELAR_TARGETS_CPU_CPUTARGETBACKEND_H

#include "telar/codegen/TargetBackend.h"
#include "telar/targets/cpu/ParallelWork.h"

#include <memory>
#include <string>

namespace mlir::telar {

struct CpuTargetOptions {
  /// `--cpu=`: "native" (this machine, with the vector extensions it has)
  /// or an LLVM CPU name.
  std::string cpu = "native";
  /// `--library-calls`: large f32 contractions call the runtime's kernels.
  bool libraryCalls = true;
  /// Parallel loops on OpenMP threads.
  bool parallel = true;
  /// `--min-parallel-work`: the work from which a generated loop nest runs
  /// on threads (telar-linalg-to-loops' option).
  int64_t minParallelWork = kDefaultMinParallelWork;
};

std::unique_ptr<TargetBackend>
createCpuTargetBackend(const CpuTargetOptions &options = {});

/// Registers the CPU target as "cpu" (flags: --cpu, --library-calls,
/// --min-parallel-work).
void registerCpuTargetBackend();

} // namespace mlir::telar

#endif // TELAR_TARGETS_CPU_CPUTARGETBACKEND_H
