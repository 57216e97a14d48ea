//===- CpuCodegen.h - LLVM dialect to a native shared library ---*- C++ -*-===//
//
// In-process native code generation: the LLVM-dialect module becomes LLVM
// IR, gets the C entry point of docs/Artifact.md, is optimised (O3, loop and
// SLP vectorisation for the target CPU) and emitted as an object by LLVM's
// TargetMachine; lld links the object into a shared library. No system
// compiler or linker runs.
//
//===----------------------------------------------------------------------===//
#ifndef TELAR_TARGETS_CPU_CPUCODEGEN_H
#define TELAR_TARGETS_CPU_CPUCODEGEN_H

#include "telar/codegen/TargetBackend.h"
#include "telar/targets/cpu/CpuTarget.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Support/LLVM.h"

#include <string>

namespace mlir::telar {

/// Translates `module` (LLVM dialect, with a `@main` taking one memref
/// descriptor per buffer) to LLVM IR, adds the entry point of docs/Artifact.md
/// calling `@main` with dense descriptors of the given static shapes
/// (unless `entryPoint` is false: a library of functions, no `@main`),
/// optimises it and writes an object file to `objectPath`.
LogicalResult emitObjectFile(ModuleOp module,
                             ArrayRef<SmallVector<int64_t>> bufferShapes,
                             const CpuTarget &target, StringRef objectPath,
                             std::string &error, bool entryPoint = true);

/// Links one object into a shared library with the in-process lld.
/// Runtime symbols (allocator, kernels, OpenMP) stay undefined and resolve
/// at load time against the process's runtime library.
LogicalResult linkSharedLibrary(StringRef objectPath, StringRef libraryPath,
                                std::string &error);

/// The program `interface` of an artifact as a native shared library,
/// `programs/<name>.so`, from `module` (LLVM dialect for `target`): code
/// generation (emitObjectFile) in stage "generating native code", then
/// "linking" (the object goes); returns the program's manifest entry
/// (library, entry point, weight files). The CPU target's serialization,
/// and the CUDA target's emulated program.
FailureOr<artifact::ProgramSpec>
writeProgramLibrary(ModuleOp module, const ProgramInterface &interface,
                    const CpuTarget &target, ArtifactWriter &writer,
                    CompileStages &stages, std::string &error);

} // namespace mlir::telar

#endif // TELAR_TARGETS_CPU_CPUCODEGEN_H
