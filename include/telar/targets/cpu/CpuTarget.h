//===- CpuTarget.h - The CPU code is generated for --------------*- C++ -*-===//
//
// `--cpu=` resolved to an LLVM triple, CPU name and features, and its
// `#telar.target<"cpu", ...>` form, which telar-set-cpu-target attaches to
// the module and the CPU target's code generation reads back.
//
//===----------------------------------------------------------------------===//
#ifndef TELAR_TARGETS_CPU_CPUTARGET_H
#define TELAR_TARGETS_CPU_CPUTARGET_H

#include "telar/dialects/Telar/TelarAttrs.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Support/LLVM.h"

#include <string>

namespace llvm {
class Target;
class Triple;
} // namespace llvm

namespace mlir::telar {

/// The kind of `#telar.target` the CPU target generates for.
inline constexpr llvm::StringLiteral kCpuTargetKind = "cpu";

/// The CPU code is generated for.
struct CpuTarget {
  std::string triple;
  std::string cpu;
  std::string features; // "+avx2,+fma,-avx512f,..."

  TargetAttr toAttr(MLIRContext *context) const;
  static CpuTarget fromAttr(TargetAttr attr);
};

/// Resolves `--cpu=`: "" or "native" is the host CPU with its detected
/// features; anything else is an LLVM CPU name (e.g. x86-64-v3,
/// skylake-avx512), checked against the target's list.
FailureOr<CpuTarget> resolveCpuTarget(StringRef cpu, std::string &error);

/// The CPU target `module` was translated for (its `telar.target`), or
/// failure with `error` set when it has none or one of another kind.
FailureOr<CpuTarget> getModuleCpuTarget(ModuleOp module, std::string &error);

/// LLVM's target for `triple`, with the native target initialised once.
const llvm::Target *lookupNativeTarget(const llvm::Triple &triple,
                                       std::string &error);

} // namespace mlir::telar

#endif // TELAR_TARGETS_CPU_CPUTARGET_H
