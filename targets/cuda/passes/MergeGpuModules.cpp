//===- MergeGpuModules.cpp - All of a program's kernels in one module -----===//
//
// gpu-kernel-outlining makes one gpu.module per kernel; compiled apart, each
// costs an LLVM module through NVPTX and a ptxas process. This pass moves
// every kernel (and what the kernels reference) into one gpu.module, so a
// program's kernels are one PTX file, one cubin and one driver module.
//
//===----------------------------------------------------------------------===//

#include "telar/targets/cuda/Passes.h"

#include "mlir/IR/OperationSupport.h"
#include "mlir/IR/SymbolTable.h"

namespace mlir::telar {
#define GEN_PASS_DEF_TELARMERGEGPUMODULES
#include "telar/targets/cuda/Passes.h.inc"
} // namespace mlir::telar

using namespace mlir;

namespace {

struct TelarMergeGpuModules
    : public telar::impl::TelarMergeGpuModulesBase<TelarMergeGpuModules> {
  using TelarMergeGpuModulesBase::TelarMergeGpuModulesBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<gpu::GPUModuleOp> sources(module.getOps<gpu::GPUModuleOp>());
    if (sources.empty())
      return;
    for (gpu::GPUModuleOp source : sources)
      if (!sameAttributesButName(source, sources.front())) {
        source.emitError("gpu.modules with different attributes (targets, "
                         "offloading handlers) cannot be merged");
        return signalPassFailure();
      }

    SymbolTable top(module);
    OpBuilder b(sources.front());
    auto merged = gpu::GPUModuleOp::create(b, sources.front().getLoc(),
                                           moduleName.getValue());
    for (NamedAttribute a : sources.front()->getAttrs())
      if (a.getName() != SymbolTable::getSymbolAttrName())
        merged->setAttr(a.getName(), a.getValue());
    top.insert(merged); // renamed when the name is taken
    SymbolTable kernels(merged);

    // Where each kernel went: (old module, old function) -> new function.
    DenseMap<std::pair<StringAttr, StringAttr>, StringAttr> moved;
    for (gpu::GPUModuleOp source : sources) {
      StringAttr sourceName = source.getNameAttr();
      // Other symbols first (what the kernels use, e.g. globals): one copy
      // of each; a different one of the same name is renamed.
      SmallVector<Operation *> ops;
      for (Operation &op : source.getBody()->without_terminator())
        ops.push_back(&op);
      for (Operation *op : ops) {
        auto symbol = dyn_cast<SymbolOpInterface>(op);
        if (!symbol || isa<gpu::GPUFuncOp>(op))
          continue;
        StringAttr oldName = symbol.getNameAttr();
        if (Operation *existing = kernels.lookup(oldName)) {
          if (OperationEquivalence::isEquivalentTo(
                  existing, op, OperationEquivalence::ignoreValueEquivalence,
                  nullptr, OperationEquivalence::IgnoreLocations)) {
            op->erase();
            continue;
          }
        }
        op->moveBefore(merged.getBody(), merged.getBody()->end());
        StringAttr newName = kernels.insert(op);
        if (newName != oldName &&
            failed(SymbolTable::replaceAllSymbolUses(oldName, newName,
                                                     source))) {
          op->emitError("cannot rename its uses in the kernels");
          return signalPassFailure();
        }
      }
      // The kernels; the kernel of a module of one is named after it
      // (unique in the program): outlining names every kernel after its
      // host function.
      SmallVector<gpu::GPUFuncOp> fns(source.getOps<gpu::GPUFuncOp>());
      for (gpu::GPUFuncOp fn : fns) {
        StringAttr oldName = fn.getNameAttr();
        if (fns.size() == 1)
          fn.setName(sourceName);
        fn->moveBefore(merged.getBody(), merged.getBody()->end());
        moved[{sourceName, oldName}] = kernels.insert(fn);
      }
      source.erase();
    }

    StringAttr mergedName = merged.getNameAttr();
    WalkResult result = module.walk([&](gpu::LaunchFuncOp launch) {
      SymbolRefAttr kernel = launch.getKernel();
      auto it = moved.find({kernel.getRootReference(),
                            kernel.getLeafReference()});
      if (it == moved.end()) {
        launch.emitError("launches a kernel that is not in a gpu.module of "
                         "this program");
        return WalkResult::interrupt();
      }
      launch.setKernelAttr(SymbolRefAttr::get(
          mergedName, {FlatSymbolRefAttr::get(it->second)}));
      return WalkResult::advance();
    });
    if (result.wasInterrupted())
      signalPassFailure();
  }

  /// Whether the two modules' attributes differ only in their names.
  static bool sameAttributesButName(gpu::GPUModuleOp a, gpu::GPUModuleOp b) {
    auto rest = [](gpu::GPUModuleOp m) {
      SmallVector<NamedAttribute> attrs;
      for (NamedAttribute attr : m->getAttrs())
        if (attr.getName() != SymbolTable::getSymbolAttrName())
          attrs.push_back(attr);
      return attrs;
    };
    return rest(a) == rest(b);
  }
};

} // namespace
