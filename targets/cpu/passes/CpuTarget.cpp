//===- CpuTarget.cpp - The CPU code is generated for ----------------------===//
//
// `--cpu=` resolved against LLVM's X86 target, its #telar.target form, and
// telar-set-cpu-target, which attaches that to the module.
//
//===----------------------------------------------------------------------===//

#include "telar/targets/cpu/CpuTarget.h"
#include "telar/dialects/Telar/TelarDialect.h"
#include "telar/targets/cpu/Passes.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/MC/MCSubtargetInfo.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/TargetParser/Host.h"
#include "llvm/TargetParser/Triple.h"

namespace mlir::telar {
#define GEN_PASS_DEF_TELARSETCPUTARGET
#include "telar/targets/cpu/Passes.h.inc"
} // namespace mlir::telar

using namespace mlir;

telar::TargetAttr telar::CpuTarget::toAttr(MLIRContext *context) const {
  return TargetAttr::get(context, kCpuTargetKind, triple, cpu, features);
}

telar::CpuTarget telar::CpuTarget::fromAttr(TargetAttr attr) {
  return {attr.getTriple().str(), attr.getChip().str(),
          attr.getFeatures().str()};
}

const llvm::Target *telar::lookupNativeTarget(const llvm::Triple &triple,
                                              std::string &error) {
  static bool initialized = [] {
    llvm::InitializeNativeTarget();
    llvm::InitializeNativeTargetAsmPrinter();
    return true;
  }();
  (void)initialized;
  return llvm::TargetRegistry::lookupTarget(triple, error);
}

FailureOr<telar::CpuTarget> telar::resolveCpuTarget(StringRef cpu,
                                                    std::string &error) {
  CpuTarget target;
  target.triple = llvm::sys::getDefaultTargetTriple();
  const llvm::Target *llvmTarget =
      lookupNativeTarget(llvm::Triple(target.triple), error);
  if (!llvmTarget)
    return failure();
  if (cpu.empty() || cpu == "native") {
    target.cpu = llvm::sys::getHostCPUName().str();
    SmallVector<std::string> features;
    for (const auto &feature : llvm::sys::getHostCPUFeatures())
      features.push_back((feature.second ? "+" : "-") + feature.first().str());
    llvm::sort(features);
    target.features = llvm::join(features, ",");
    return target;
  }
  std::unique_ptr<llvm::MCSubtargetInfo> sti(
      llvmTarget->createMCSubtargetInfo(llvm::Triple(target.triple), "", ""));
  if (!sti || !sti->isCPUStringValid(cpu)) {
    error = ("unknown CPU '" + cpu +
             "' (use 'native', or an LLVM CPU name such as x86-64-v3, "
             "x86-64-v4, skylake-avx512, znver4)")
                .str();
    return failure();
  }
  target.cpu = cpu.str();
  return target;
}

FailureOr<telar::CpuTarget> telar::getModuleCpuTarget(ModuleOp module,
                                                      std::string &error) {
  auto attr = dyn_cast_or_null<TargetAttr>(
      module->getAttr(TelarDialect::TargetAttrHelper::getNameStr()));
  if (!attr) {
    error = "the module has no #telar.target (telar-set-cpu-target attaches "
            "it)";
    return failure();
  }
  if (attr.getKind() != kCpuTargetKind) {
    error = ("the module is translated for target '" + attr.getKind() +
             "', not 'cpu'")
                .str();
    return failure();
  }
  return CpuTarget::fromAttr(attr);
}

namespace {
struct SetCpuTarget
    : public telar::impl::TelarSetCpuTargetBase<SetCpuTarget> {
  using TelarSetCpuTargetBase::TelarSetCpuTargetBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    std::string error;
    FailureOr<telar::CpuTarget> target = telar::resolveCpuTarget(cpu, error);
    if (failed(target)) {
      module.emitError(error);
      return signalPassFailure();
    }
    module->setAttr(telar::TelarDialect::TargetAttrHelper::getNameStr(),
                    target->toAttr(&getContext()));
  }
};
} // namespace
