//===- FoldConstants.cpp - Evaluate constant subgraphs at compile time ----===//
//
// The importer folds shape math (small plain constants); this pass folds
// the rest of what depends on constants only, weights included: T5's
// relative position bias (positions -> buckets through abs, log, casts and
// clips -> a gather from the bias table -> a transpose) would otherwise be
// recomputed on every run. The ops' own folders do the arithmetic, with
// their element limit raised (FoldLimitScope).
//
//===----------------------------------------------------------------------===//

#include "telar/dialects/Telar/TelarOps.h"
#include "telar/passes/lowering/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/StringExtras.h"

namespace mlir::telar {
#define GEN_PASS_DEF_TELARFOLDCONSTANTS
#include "telar/passes/lowering/Passes.h.inc"
} // namespace mlir::telar

using namespace mlir;

namespace {

/// Bytes of a static tensor of ints or floats, or -1 for other types.
int64_t tensorBytes(Type type) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  if (!tensor || !tensor.hasStaticShape() ||
      !tensor.getElementType().isIntOrFloat())
    return -1;
  int64_t bits = tensor.getElementType().getIntOrFloatBitWidth();
  return tensor.getNumElements() * ((bits + 7) / 8);
}

/// A constant's value as a dense attribute (a resource's blob copied), or
/// null when its layout is not plain row-major elements.
DenseElementsAttr asDense(Attribute value) {
  if (auto dense = dyn_cast<DenseElementsAttr>(value))
    return dense;
  auto resource = dyn_cast<DenseResourceElementsAttr>(value);
  if (!resource)
    return {};
  AsmResourceBlob *blob = resource.getRawHandle().getBlob();
  auto type = cast<RankedTensorType>(resource.getType());
  if (!blob || type.getElementType().isInteger(1) ||
      static_cast<int64_t>(blob->getData().size()) != tensorBytes(type))
    return {};
  return DenseElementsAttr::getFromRawBuffer(type, blob->getData());
}

/// The weight key of a folded value: the importer's spelling of
/// `folded.<name>`.
std::string resourceKey(StringRef name) {
  return telar::weightKey(("folded." + name).str());
}

struct TelarFoldConstants
    : public telar::impl::TelarFoldConstantsBase<TelarFoldConstants> {
  using Base::Base;

  void runOnOperation() override {
    getOperation().walk([&](func::FuncOp func) {
      if (!func.isExternal())
        foldBlock(func.getBody().front());
    });
  }

  void foldBlock(Block &block) {
    // What each value is known to be: constants' attributes as they are
    // (resources are copied into dense attributes only when an op reads
    // them), folded results as dense attributes.
    DenseMap<Value, Attribute> known;
    llvm::SetVector<Operation *> folded;
    int64_t limit = maxBytes;
    for (Operation &op : block) {
      if (auto constant = dyn_cast<telar::ConstantOp>(op)) {
        known[constant.getResult()] = constant.getValue();
        continue;
      }
      // Operands over the limit too: the folders would refuse them after
      // a weight had been copied for nothing.
      auto fits = [&](Type t) {
        int64_t bytes = tensorBytes(t);
        return bytes >= 0 && bytes <= limit;
      };
      if (!isa<telar::TelarDialect>(op.getDialect()) ||
          op.getNumRegions() != 0 || op.getNumResults() == 0 ||
          !llvm::all_of(
              op.getOperands(),
              [&](Value v) { return known.count(v) && fits(v.getType()); }) ||
          !llvm::all_of(op.getResultTypes(), fits))
        continue;
      SmallVector<Attribute> operands;
      for (Value v : op.getOperands()) {
        DenseElementsAttr dense = asDense(known[v]);
        if (!dense)
          break;
        known[v] = dense;
        operands.push_back(dense);
      }
      if (operands.size() != op.getNumOperands())
        continue;
      SmallVector<OpFoldResult> results;
      {
        // Elements, bounded by the bytes checked above.
        telar::FoldLimitScope scope(limit);
        if (failed(op.fold(operands, results)) || results.empty())
          continue;
      }
      SmallVector<Attribute> values;
      for (OpFoldResult r : results) {
        Attribute value =
            isa<Value>(r) ? known.lookup(cast<Value>(r)) : cast<Attribute>(r);
        if (!isa_and_nonnull<DenseElementsAttr>(value))
          break;
        values.push_back(value);
      }
      if (values.size() != op.getNumResults())
        continue;
      for (auto [result, value] : llvm::zip(op.getResults(), values))
        known[result] = value;
      folded.insert(&op);
    }
    materialize(folded, known);
  }

  /// Replaces the folded results that ops left in the program still use by
  /// constants, then erases the folded ops and the constants nothing reads
  /// any more.
  void materialize(const llvm::SetVector<Operation *> &folded,
                   const DenseMap<Value, Attribute> &known) {
    StringRef namesAttr =
        telar::TelarDialect::ResultNamesAttrHelper::getNameStr();
    llvm::SetVector<Operation *> inputs;
    for (Operation *op : folded) {
      for (Value v : op->getOperands())
        if (Operation *def = v.getDefiningOp();
            def && isa<telar::ConstantOp>(def))
          inputs.insert(def);
      auto names = op->getAttrOfType<ArrayAttr>(namesAttr);
      for (OpResult result : op->getResults()) {
        if (llvm::all_of(result.getUsers(), [&](Operation *user) {
              return folded.contains(user);
            }))
          continue;
        auto value = cast<DenseElementsAttr>(known.lookup(result));
        auto type = cast<RankedTensorType>(result.getType());
        StringRef name;
        if (names && result.getResultNumber() < names.size())
          if (auto s = dyn_cast<StringAttr>(names[result.getResultNumber()]))
            name = s.getValue();
        ElementsAttr attr = value;
        // Large results become weights (outlined, stored with the others)
        // rather than constants in the code.
        if (!value.isSplat() && !type.getElementType().isInteger(1) &&
            type.getNumElements() > inlineElements)
          attr = DenseResourceElementsAttr::get(
              type, resourceKey(name.empty() ? "value" : name),
              HeapAsmResourceBlob::allocateAndCopyWithAlign(
                  value.getRawData(), 64, /*dataIsMutable=*/false));
        OpBuilder b(op);
        auto constant = telar::ConstantOp::create(b, op->getLoc(), type, attr);
        if (!name.empty())
          constant->setAttr(namesAttr, b.getStrArrayAttr({name}));
        SmallVector<OpOperand *> uses;
        for (OpOperand &use : result.getUses())
          if (!folded.contains(use.getOwner()))
            uses.push_back(&use);
        for (OpOperand *use : uses)
          use->set(constant);
      }
    }
    for (Operation *op : llvm::reverse(folded))
      op->erase();
    for (Operation *op : inputs)
      if (op->use_empty())
        op->erase();
  }
};

} // namespace
