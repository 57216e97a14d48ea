//===- Importer.h - ONNX model import into the telar dialect ---*- C++ -*-===//
//
// Reads an ONNX model (binary protobuf `.onnx` or textual `.onnxtext`) and
// builds a module holding `func.func @main` of `telar` ops with static shapes.
// Weights become blob resources (memory-mapped when the model's data is
// external). Errors are reported through MLIR diagnostics; the import
// functions then return a null module.
//
//===----------------------------------------------------------------------===//
#ifndef TELAR_ONNX_IMPORTER_H
#define TELAR_ONNX_IMPORTER_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/ADT/StringSet.h"

#include <string>
#include <vector>

namespace mlir {
class MLIRContext;
} // namespace mlir

namespace mlir::telar {

struct ImportOptions {
  /// Static shapes for graph inputs, by input name; they replace the model's
  /// declared shape (and fix its symbolic dimensions).
  llvm::StringMap<llvm::SmallVector<int64_t>> inputShapes;
  /// Values for graph inputs, by input name: the path of a numpy `.npy` file
  /// or a binary ONNX TensorProto (`.pb`). Such an input becomes a constant
  /// (so shape-determining inputs fold); the value's element type must be
  /// the declared one and its shape must match the declared static dims.
  llvm::StringMap<std::string> inputValues;
  /// Training (telarc --train): every floating-point initializer not named
  /// in `frozen` becomes a `telar.variable` (a trainable parameter) instead
  /// of a constant. An entry of `frozen` with `*`, `?` or `[` is a glob
  /// pattern (`layer1.*` freezes a layer). Naming in `frozen` anything but
  /// an initializer (a pattern that matches none) is an
  /// error.
  bool trainableInitializers = false;
  llvm::StringSet<> frozen;
  /// With `trainableInitializers`: receives the model as a serialized
  /// ModelProto whose trainable initializers hold no data (the artifact's
  /// weights do; telar-run --export-onnx fills them with the trained
  /// values) and whose other initializers hold theirs inline (external data
  /// read in). Left empty, with a warning, when that model would pass
  /// protobuf's 2 GB limit.
  std::string *exportTemplate = nullptr;
};

/// Imports the model at `path`: `.onnxtext` is parsed as the ONNX textual
/// syntax, anything else as a binary ModelProto. External data files are
/// resolved relative to the model's folder.
OwningOpRef<ModuleOp> importModelFile(MLIRContext &ctx, llvm::StringRef path,
                                      const ImportOptions &options);

/// Imports a model held in memory. `baseDir` is the folder external data is
/// resolved against (empty: external data is refused); `sourceName` names
/// the model in locations and messages. When `isText` the bytes are parsed
/// as `.onnxtext`.
OwningOpRef<ModuleOp> importModelBytes(MLIRContext &ctx, llvm::StringRef bytes,
                                       llvm::StringRef baseDir,
                                       llvm::StringRef sourceName,
                                       const ImportOptions &options,
                                       bool isText = false);

/// The ONNX op types (default domain) the importer converts, sorted.
std::vector<std::string> supportedOpTypes();

/// Parses "NAME=4x128" (also "NAME=" for a scalar) into `options`; returns
/// an error message, empty on success.
std::string parseInputShapeOption(llvm::StringRef spec, ImportOptions &options);

/// Parses "NAME=FILE" into `options.inputValues`; returns an error message,
/// empty on success.
std::string parseBindInputOption(llvm::StringRef spec, ImportOptions &options);

} // namespace mlir::telar

#endif // TELAR_ONNX_IMPORTER_H
