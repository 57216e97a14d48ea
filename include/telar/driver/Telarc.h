//===- Telarc.h - telarc's command line as a function --------*- C++ -*-===//
//
// The whole of telarc (tools/telarc/Driver.cpp) behind one call, so that
// telarc's main and the Python package (python/telar) run the same driver:
// same flags, same checks, same messages.
//
//===----------------------------------------------------------------------===//

#ifndef TELAR_DRIVER_TELARC_H
#define TELAR_DRIVER_TELARC_H

#include <string>
#include <vector>

namespace mlir::telar::driver {

/// Runs telarc on `argv` (argv[0] the program name) and returns its exit
/// status (0 success, 1 any error). Prints what telarc prints, to this
/// process's standard output and error. May be called again in the same
/// process: every flag starts from its default. Never exits the process on
/// a bad flag (it prints the error and returns 1); --help and --version
/// still exit, as LLVM's command line does. Not reentrant (telarc's flags
/// are LLVM's global options): one call at a time per process.
int runTelarc(int argc, char **argv);

/// One of telarc's flags as --help lists it.
struct TelarcFlag {
  std::string name;  // without dashes
  std::string kind;  // "bool", "value" or "list" (may be repeated)
  std::string value; // the value's name in --help ("N", "FILE", ...)
  std::string help;
};

/// Every flag telarc takes (its own, the targets', training's and the
/// launch files'), in name order.
std::vector<TelarcFlag> getTelarcFlags();

/// The version telarc --version prints ("0.1.0").
const char *getTelarcVersion();

} // namespace mlir::telar::driver

#endif // TELAR_DRIVER_TELARC_H
