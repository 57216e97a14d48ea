//===- OutlineWeights.cpp - Weight constants become @main arguments -------===//

#include "telar/dialects/Telar/TelarOps.h"
#include "telar/passes/lowering/Passes.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/DialectResourceBlobManager.h"

namespace mlir::telar {
#define GEN_PASS_DEF_TELAROUTLINEWEIGHTS
#include "telar/passes/lowering/Passes.h.inc"
} // namespace mlir::telar

using namespace mlir;

namespace {
struct TelarOutlineWeights
    : public telar::impl::TelarOutlineWeightsBase<TelarOutlineWeights> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    // Without a program entry (a library of functions, as the lowering's
    // numeric tests are) there is nothing to outline.
    auto main = module.lookupSymbol<func::FuncOp>("main");
    if (!main || main.isExternal())
      return;
    Block &entry = main.getBody().front();
    // Resource name -> the argument replacing it (one per resource + type).
    llvm::MapVector<std::pair<StringRef, Type>, BlockArgument> args;
    SmallVector<telar::ConstantOp> constants;
    main.walk([&](telar::ConstantOp op) {
      if (isa<DenseResourceElementsAttr>(op.getValue()))
        constants.push_back(op);
    });
    MLIRContext *ctx = &getContext();
    auto weightAttrName = StringAttr::get(
        ctx, telar::TelarDialect::WeightAttrHelper::getNameStr());
    for (telar::ConstantOp op : constants) {
      auto res = cast<DenseResourceElementsAttr>(op.getValue());
      StringRef name = res.getRawHandle().getKey();
      auto key = std::make_pair(name, op.getType());
      auto it = args.find(key);
      if (it == args.end()) {
        unsigned index = main.getNumArguments();
        if (failed(main.insertArgument(
                index, op.getType(),
                DictionaryAttr::get(
                    ctx, {NamedAttribute(weightAttrName,
                                         StringAttr::get(ctx, name))}),
                op.getLoc())))
          return signalPassFailure();
        it = args.insert({key, entry.getArgument(index)}).first;
      }
      op.replaceAllUsesWith(it->second);
      op.erase();
    }
  }
};
} // namespace
