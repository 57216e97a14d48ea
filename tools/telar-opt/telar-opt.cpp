//===- telar-opt.cpp - Telar's opt-style driver ---------------------------===//
//
// Behaves like mlir-opt with the telar dialect, Telar's passes and
// pipelines, the upstream dialects and passes the pipeline uses, and the
// test passes of test/lib (only this tool registers those).
//
//===----------------------------------------------------------------------===//

#include "TestPasses.h"
#include "telar/InitAllTelar.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"

int main(int argc, char **argv) {
  mlir::DialectRegistry registry;
  mlir::telar::registerAllTelar(registry);
  mlir::telar::registerAllTelarPasses();
  mlir::telar::registerTelarTestPasses();
  return mlir::asMainReturnCode(mlir::MlirOptMain(
      argc, argv, "Telar optimizer driver\n", registry));
}
