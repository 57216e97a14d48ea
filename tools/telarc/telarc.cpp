//===- telarc.cpp - The Telar compiler driver ------------------------------===//
//
//   telarc model.onnx --emit=mlir [-o out.mlir] [--input-shape NAME=DxD]...
//                     [--bind-input NAME=FILE]...
//
// Imports the model (ONNX protobuf or .onnxtext), canonicalises it (shape
// subgraphs fold away) and prints the telar IR. Exits 0 on success and 1 on
// any error; errors name the node, op type and opset.
//
//===----------------------------------------------------------------------===//

#include "telar/InitAllTelar.h"
#include "telar/onnx/Importer.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/OperationSupport.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Support/FileUtilities.h"
#include "mlir/Transforms/Passes.h"
#include "llvm/Config/llvm-config.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/ToolOutputFile.h"
#include "llvm/Support/raw_ostream.h"

#ifndef TELAR_VERSION
#define TELAR_VERSION "0.0.0"
#endif

using namespace mlir;
namespace cl = llvm::cl;

namespace {
enum class EmitKind { MLIR };

cl::OptionCategory telarcCategory("telarc options");

cl::opt<std::string> inputFile(cl::Positional,
                               cl::desc("<model.onnx | model.onnxtext>"),
                               cl::cat(telarcCategory));

cl::opt<EmitKind> emit(
    "emit", cl::desc("What to produce"), cl::init(EmitKind::MLIR),
    cl::values(clEnumValN(EmitKind::MLIR, "mlir",
                          "the imported telar graph IR, canonicalised")),
    cl::cat(telarcCategory));

cl::opt<std::string> outputFile("o", cl::desc("Output file (default: stdout)"),
                                cl::value_desc("file"), cl::init("-"),
                                cl::cat(telarcCategory));

cl::list<std::string> inputShapes(
    "input-shape",
    cl::desc("Static shape of a graph input, e.g. input_ids=4x128 "
             "(repeatable; fixes symbolic dims)"),
    cl::value_desc("NAME=DxD..."), cl::cat(telarcCategory));

cl::list<std::string> bindInputs(
    "bind-input",
    cl::desc("Bind a graph input to a constant read from FILE, a numpy .npy "
             "or an ONNX TensorProto .pb (repeatable; for inputs that "
             "determine shapes, e.g. Reshape's shape)"),
    cl::value_desc("NAME=FILE"), cl::cat(telarcCategory));

cl::opt<bool> listOps("list-ops",
                      cl::desc("Print the supported ONNX op types, one per "
                               "line, and exit"),
                      cl::cat(telarcCategory));

cl::opt<bool> elideWeights(
    "elide-weights",
    cl::desc("Elide weight blobs (dense_resource data) in the printed IR"),
    cl::cat(telarcCategory));

std::string sourceName;

/// Prints diagnostics as "FILE: error: message" plus attached notes.
LogicalResult printDiagnostic(Diagnostic &diag) {
  auto &os = llvm::errs();
  os << (sourceName.empty() ? "telarc" : sourceName) << ": ";
  switch (diag.getSeverity()) {
  case DiagnosticSeverity::Error: os << "error: "; break;
  case DiagnosticSeverity::Warning: os << "warning: "; break;
  case DiagnosticSeverity::Note: os << "note: "; break;
  case DiagnosticSeverity::Remark: os << "remark: "; break;
  }
  os << diag.str() << "\n";
  for (Diagnostic &note : diag.getNotes())
    os << "  note: " << note.str() << "\n";
  return success();
}

int run(int argc, char **argv) {
  cl::SetVersionPrinter([](llvm::raw_ostream &os) {
    os << "telarc " << TELAR_VERSION << " (LLVM " << LLVM_VERSION_STRING
       << ")\n";
  });
  cl::HideUnrelatedOptions(telarcCategory);
  cl::ParseCommandLineOptions(argc, argv,
                              "telarc - the Telar ONNX compiler\n\n"
                              "Imports an ONNX model (.onnx protobuf or "
                              ".onnxtext) into the telar dialect.\n");

  if (listOps) {
    for (const std::string &op : telar::supportedOpTypes())
      llvm::outs() << op << "\n";
    return 0;
  }
  if (inputFile.empty()) {
    llvm::errs() << "telarc: error: no input model given (see --help)\n";
    return 1;
  }
  sourceName = inputFile;

  telar::ImportOptions options;
  for (const std::string &spec : inputShapes) {
    std::string err = telar::parseInputShapeOption(spec, options);
    if (!err.empty()) {
      llvm::errs() << "telarc: error: " << err << "\n";
      return 1;
    }
  }

  for (const std::string &spec : bindInputs) {
    std::string err = telar::parseBindInputOption(spec, options);
    if (!err.empty()) {
      llvm::errs() << "telarc: error: " << err << "\n";
      return 1;
    }
  }

  DialectRegistry registry;
  telar::registerAllTelar(registry);
  MLIRContext ctx(registry);
  ScopedDiagnosticHandler handler(&ctx, printDiagnostic);

  OwningOpRef<ModuleOp> module =
      telar::importModelFile(ctx, inputFile, options);
  if (!module)
    return 1;

  PassManager pm(&ctx);
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  if (failed(pm.run(*module)))
    return 1;

  std::string err;
  auto out = openOutputFile(outputFile, &err);
  if (!out) {
    llvm::errs() << "telarc: error: " << err << "\n";
    return 1;
  }
  OpPrintingFlags flags;
  if (elideWeights) {
    // MLIR renders a blob to hex before deciding to elide it, which touches
    // every byte of memory-mapped weights; printing in local scope skips the
    // resource section altogether (the dense_resource<...> names remain).
    flags.elideLargeResourceString();
    flags.useLocalScope();
  }
  module->print(out->os(), flags);
  out->os() << "\n";
  out->keep();
  return 0;
}
} // namespace

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  return run(argc, argv);
}
