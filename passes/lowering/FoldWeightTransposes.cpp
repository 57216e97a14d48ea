//===- FoldWeightTransposes.cpp - Transpose weights at compile time -------===//

#include "telar/dialects/Telar/TelarOps.h"
#include "telar/passes/lowering/Passes.h"

#include "mlir/IR/DialectResourceBlobManager.h"
#include "llvm/ADT/StringExtras.h"

namespace mlir::telar {
#define GEN_PASS_DEF_TELARFOLDWEIGHTTRANSPOSES
#include "telar/passes/lowering/Passes.h.inc"
} // namespace mlir::telar

using namespace mlir;

namespace {

/// Copies `data` (row-major `shape`, `elementBytes` per element) into the
/// layout of its transpose by `perm`: result dim i is source dim perm[i].
std::vector<char> transposeBytes(ArrayRef<char> data, ArrayRef<int64_t> shape,
                                 ArrayRef<int64_t> perm, int64_t elementBytes) {
  int64_t rank = shape.size();
  SmallVector<int64_t> srcStrides(rank, 1);
  for (int64_t d = rank - 2; d >= 0; --d)
    srcStrides[d] = srcStrides[d + 1] * shape[d + 1];
  SmallVector<int64_t> outShape, strideOfOut;
  for (int64_t p : perm) {
    outShape.push_back(shape[p]);
    strideOfOut.push_back(srcStrides[p]);
  }
  std::vector<char> out(data.size());
  SmallVector<int64_t> index(rank, 0);
  int64_t count = static_cast<int64_t>(data.size()) / elementBytes;
  for (int64_t flat = 0; flat < count; ++flat) {
    int64_t src = 0;
    for (int64_t d = 0; d < rank; ++d)
      src += index[d] * strideOfOut[d];
    std::memcpy(out.data() + flat * elementBytes,
                data.data() + src * elementBytes, elementBytes);
    // Next output index, row-major.
    for (int64_t d = rank - 1; d >= 0; --d) {
      if (++index[d] < outShape[d])
        break;
      index[d] = 0;
    }
  }
  return out;
}

struct TelarFoldWeightTransposes
    : public telar::impl::TelarFoldWeightTransposesBase<
          TelarFoldWeightTransposes> {
  void runOnOperation() override {
    SmallVector<telar::TransposeOp> transposes;
    getOperation().walk([&](telar::TransposeOp op) {
      auto constant = op.getInput().getDefiningOp<telar::ConstantOp>();
      if (constant && isa<DenseResourceElementsAttr>(constant.getValue()))
        transposes.push_back(op);
    });
    for (telar::TransposeOp op : transposes) {
      auto constant = op.getInput().getDefiningOp<telar::ConstantOp>();
      auto resource = cast<DenseResourceElementsAttr>(constant.getValue());
      AsmResourceBlob *blob = resource.getRawHandle().getBlob();
      auto type = cast<RankedTensorType>(op.getInput().getType());
      Type element = type.getElementType();
      if (!blob || !type.hasStaticShape() || !element.isIntOrFloat())
        continue;
      int64_t elementBytes = (element.getIntOrFloatBitWidth() + 7) / 8;
      if (static_cast<int64_t>(blob->getData().size()) !=
          type.getNumElements() * elementBytes)
        continue; // Not the plain row-major layout this pass understands.
      ArrayRef<int64_t> perm = op.getPerm();
      std::vector<char> bytes =
          transposeBytes(blob->getData(), type.getShape(), perm, elementBytes);
      std::string name = (resource.getRawHandle().getKey() + ".transposed." +
                          llvm::join(llvm::map_range(perm,
                                                     [](int64_t p) {
                                                       return std::to_string(p);
                                                     }),
                                     "_"))
                             .str();
      auto resultType = cast<RankedTensorType>(op.getType());
      OpBuilder b(op);
      auto attr = DenseResourceElementsAttr::get(
          resultType, name,
          HeapAsmResourceBlob::allocateAndCopyWithAlign(
              ArrayRef<char>(bytes), 64, /*dataIsMutable=*/false));
      Value folded = telar::ConstantOp::create(b, op.getLoc(), resultType, attr);
      op.replaceAllUsesWith(folded);
      op.erase();
      if (constant->use_empty())
        constant.erase();
    }
  }
};

} // namespace
