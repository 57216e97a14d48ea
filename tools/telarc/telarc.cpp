//===- telarc.cpp - The Telar compiler's main -----------------------------===//
//
// telarc: the driver of Driver.cpp (telar/driver/Telarc.h) as a program. See
// Driver.cpp for the command line.
//
//===----------------------------------------------------------------------===//

#include "telar/driver/Telarc.h"

#include "llvm/Support/InitLLVM.h"

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  return mlir::telar::driver::runTelarc(argc, argv);
}
