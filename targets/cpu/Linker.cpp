//===- Linker.cpp - Link an object into a shared library with lld ---------===//

#include "telar/targets/cpu/CpuCodegen.h"

#include "lld/Common/Driver.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

LLD_HAS_DRIVER(elf)

using namespace mlir;

LogicalResult telar::linkSharedLibrary(StringRef objectPath,
                                       StringRef libraryPath,
                                       std::string &error) {
  std::string object = objectPath.str();
  std::string output = libraryPath.str();
  std::string soname = llvm::sys::path::filename(libraryPath).str();
  // Undefined symbols are allowed (the default for -shared): the runtime
  // library, libomp and libm provide them in the loading process.
  std::vector<const char *> args = {
      "ld.lld",    "-shared", "--eh-frame-hdr", "-z",   "noexecstack",
      "-z",        "relro",   "-z",             "now",  "--hash-style=gnu",
      "-soname",   soname.c_str(), "-o",        output.c_str(),
      object.c_str()};
  std::string diagnostics;
  llvm::raw_string_ostream errs(diagnostics);
  lld::Result result =
      lld::lldMain(args, llvm::nulls(), errs, {{lld::Gnu, &lld::elf::link}});
  if (result.retCode != 0) {
    error = "linking " + output + " failed: " + diagnostics;
    return failure();
  }
  return success();
}
