//===- Artifact.h - Compile a telar module into an artifact dir -*- C++ -*-===//
//
// The CPU back end of telarc: weights outlined and written as safetensors,
// the program lowered, compiled and linked into programs/main.so, and
// manifest.json describing it all (docs/Artifact.md).
//
//===----------------------------------------------------------------------===//
#ifndef TELAR_CODEGEN_ARTIFACT_H
#define TELAR_CODEGEN_ARTIFACT_H

#include "telar/artifact/Manifest.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Support/LLVM.h"

#include <functional>
#include <string>

namespace mlir::telar {

/// The artifact format version written into manifest.json (the schema's,
/// include/telar/artifact/Manifest.h); the runtime refuses other versions.
using ::telar_artifact::kArtifactFormatVersion;

struct CpuArtifactOptions {
  std::string outputDir;
  /// The model file, hashed into the manifest (may be empty).
  std::string modelPath;
  /// `--cpu=`: "native" (host) or an LLVM CPU name.
  std::string cpu = "native";
  bool libraryCalls = true;
  bool parallel = true;
  /// Called when a stage starts and when it ends (with its wall time).
  std::function<void(StringRef stage, int index, int count)> onStageBegin;
  std::function<void(StringRef stage, double seconds)> onStageEnd;
};

/// Compiles `module` (telar dialect, canonicalised, with @main) into
/// `options.outputDir`. The module is consumed (lowered in place). Errors
/// are emitted as MLIR diagnostics or returned in `error`.
LogicalResult compileCpuArtifact(ModuleOp module,
                                 const CpuArtifactOptions &options,
                                 std::string &error);

/// numpy's name of an element type ("float32", "int64", "bool", ...), or ""
/// when the artifact cannot carry it.
std::string numpyDtypeName(Type elementType);

/// safetensors' dtype code ("F32", "I64", "BOOL", ...), or "".
std::string safetensorsDtype(Type elementType);

} // namespace mlir::telar

#endif // TELAR_CODEGEN_ARTIFACT_H
