//===- CpuTargetBackend.h - The CPU target ----------------------*- C++ -*-===//
//
// `--target cpu`: the CPU pipeline down to the LLVM dialect
// (buildCpuTranslationPipeline), native code for the chosen CPU generated in
// process by LLVM (Codegen.h) and linked by lld into programs/main.so.
// Its flags (`--cpu`, `--library-calls`, `--min-parallel-work`) are
// telarc's.
//
//===----------------------------------------------------------------------===//
#ifndef TELAR_CODEGEN_CPUTARGETBACKEND_H
#define TELAR_CODEGEN_CPUTARGETBACKEND_H

#include "telar/codegen/Pipeline.h"
#include "telar/codegen/TargetBackend.h"

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

#endif // TELAR_CODEGEN_CPUTARGETBACKEND_H
