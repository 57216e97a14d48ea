//===- ImporterFuzzer.cpp - libFuzzer target for the ONNX importer --------===//
//
// Feeds arbitrary bytes to the importer as a binary ModelProto (or, when the
// first byte is 't', the rest as `.onnxtext`) and verifies whatever module
// comes out. Any crash, sanitizer report or hang is a bug: malformed models
// must get an error. Run with bench/fuzz-importer.sh.
//
//===----------------------------------------------------------------------===//

#include "telar/InitAllTelar.h"
#include "telar/onnx/Importer.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"

#include <cstddef>
#include <cstdint>

using namespace mlir;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static MLIRContext *ctx = [] {
    DialectRegistry registry;
    telar::registerAllTelar(registry);
    auto *c = new MLIRContext(registry, MLIRContext::Threading::DISABLED);
    c->loadAllAvailableDialects();
    return c;
  }();
  // Errors are expected; keep them off the terminal.
  ScopedDiagnosticHandler quiet(ctx, [](Diagnostic &) { return success(); });
  llvm::StringRef bytes(reinterpret_cast<const char *>(data), size);
  bool isText = !bytes.empty() && bytes.front() == 't';
  if (isText)
    bytes = bytes.drop_front();
  telar::ImportOptions options;
  OwningOpRef<ModuleOp> module = telar::importModelBytes(
      *ctx, bytes, /*baseDir=*/"", "fuzz-input", options, isText);
  if (module)
    (void)verify(*module);
  return 0;
}
