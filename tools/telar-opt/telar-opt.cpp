//===- telar-opt.cpp - Telar's opt-style driver ---------------------------===//
//
// Behaves like mlir-opt with the telar dialect, Telar's passes and the
// upstream dialects and passes the pipeline uses.
//
//===----------------------------------------------------------------------===//

#include "telar/InitAllTelar.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"

int main(int argc, char **argv) {
  mlir::DialectRegistry registry;
  mlir::telar::registerAllTelar(registry);
  mlir::telar::registerAllTelarPasses();
  return mlir::asMainReturnCode(mlir::MlirOptMain(
      argc, argv, "Telar optimizer driver\n", registry));
}
