//===- TargetBackend.cpp - The registry of code targets -------------------===//

#include "telar/codegen/TargetBackend.h"
#include "telar/codegen/Pipeline.h"

#include "llvm/ADT/StringMap.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/ManagedStatic.h"

using namespace mlir;
using namespace mlir::telar;

TargetBackend::~TargetBackend() = default;

void telar::buildTranslationPipeline(OpPassManager &pm,
                                     const TargetBackend &target) {
  buildFusedLinalgPipeline(pm);
  target.buildTranslationPipeline(pm);
}

void telar::buildPreparationPipeline(OpPassManager &pm,
                                     const TargetBackend &target) {
  buildProgramPreparationPipeline(pm);
  target.buildWeightPreparationPipeline(pm);
}

void telar::buildTargetPipeline(OpPassManager &pm,
                                const TargetBackend &target) {
  buildPreparationPipeline(pm, target);
  buildTranslationPipeline(pm, target);
}

SmallVector<std::string>
telar::getGivenFlags(ArrayRef<llvm::cl::Option *> flags) {
  SmallVector<std::string> given;
  for (llvm::cl::Option *flag : flags)
    if (flag->getNumOccurrences())
      given.push_back("--" + flag->ArgStr.str());
  return given;
}

namespace {
struct Registry {
  llvm::StringMap<TargetBackendInfo> targets;
  bool flagsRegistered = false;
};
llvm::ManagedStatic<Registry> registry;
} // namespace

void telar::registerTargetBackend(TargetBackendInfo info) {
  std::string name = info.name;
  registry->targets.try_emplace(name, std::move(info));
}

const TargetBackendInfo *telar::lookupTargetBackend(StringRef name) {
  auto it = registry->targets.find(name);
  return it == registry->targets.end() ? nullptr : &it->second;
}

SmallVector<std::string> telar::getRegisteredTargetBackendNames() {
  SmallVector<std::string> names;
  for (const auto &entry : registry->targets)
    names.push_back(entry.getKey().str());
  llvm::sort(names);
  return names;
}

void telar::registerTargetBackendFlags(llvm::cl::OptionCategory &category) {
  if (registry->flagsRegistered)
    return;
  registry->flagsRegistered = true;
  for (const std::string &name : getRegisteredTargetBackendNames())
    if (const TargetBackendInfo *info = lookupTargetBackend(name);
        info->registerFlags)
      info->registerFlags(category);
}
