//===- FoldWeightTransposes.cpp - Transpose weights at compile time -------===//

#include "telar/dialects/Telar/TelarOps.h"
#include "telar/passes/lowering/Passes.h"

#include "mlir/Dialect/Shard/IR/ShardOps.h"
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

/// The all_slice ops between a transpose's input and the weight constant
/// they cut (innermost last), and that constant; a null constant when the
/// input is not such a chain.
telar::ConstantOp getSlicedWeight(Value input,
                                  SmallVectorImpl<shard::AllSliceOp> &chain) {
  while (auto slice = input.getDefiningOp<shard::AllSliceOp>()) {
    chain.push_back(slice);
    input = slice.getInput();
  }
  auto constant = input.getDefiningOp<telar::ConstantOp>();
  if (!constant || !isa<DenseResourceElementsAttr>(constant.getValue()))
    return nullptr;
  return constant;
}

RankedTensorType permuteType(RankedTensorType type, ArrayRef<int64_t> perm) {
  SmallVector<int64_t> shape;
  for (int64_t p : perm)
    shape.push_back(type.getDimSize(p));
  return RankedTensorType::get(shape, type.getElementType());
}

struct TelarFoldWeightTransposes
    : public telar::impl::TelarFoldWeightTransposesBase<
          TelarFoldWeightTransposes> {
  void runOnOperation() override {
    SmallVector<telar::TransposeOp> transposes;
    getOperation().walk([&](telar::TransposeOp op) {
      SmallVector<shard::AllSliceOp> chain;
      if (getSlicedWeight(op.getInput(), chain))
        transposes.push_back(op);
    });
    for (telar::TransposeOp op : transposes) {
      SmallVector<shard::AllSliceOp> chain;
      telar::ConstantOp constant = getSlicedWeight(op.getInput(), chain);
      auto resource = cast<DenseResourceElementsAttr>(constant.getValue());
      AsmResourceBlob *blob = resource.getRawHandle().getBlob();
      auto type = cast<RankedTensorType>(constant.getType());
      Type element = type.getElementType();
      if (!blob || !type.hasStaticShape() || !element.isIntOrFloat())
        continue;
      int64_t elementBytes = (element.getIntOrFloatBitWidth() + 7) / 8;
      if (static_cast<int64_t>(blob->getData().size()) !=
          type.getNumElements() * elementBytes)
        continue; // Not the plain row-major layout this pass understands.
      ArrayRef<int64_t> perm = op.getPerm();
      // The whole weight is transposed; a sharded weight's slices then cut
      // the transposed blocks: slicing dim d of the weight is slicing dim
      // i (perm[i] = d) of its transpose.
      std::vector<char> bytes =
          transposeBytes(blob->getData(), type.getShape(), perm, elementBytes);
      std::string name = (resource.getRawHandle().getKey() + ".transposed." +
                          llvm::join(llvm::map_range(perm,
                                                     [](int64_t p) {
                                                       return std::to_string(p);
                                                     }),
                                     "_"))
                             .str();
      RankedTensorType globalType = permuteType(type, perm);
      OpBuilder b(op);
      auto attr = DenseResourceElementsAttr::get(
          globalType, name,
          HeapAsmResourceBlob::allocateAndCopyWithAlign(
              ArrayRef<char>(bytes), 64, /*dataIsMutable=*/false));
      Value folded = telar::ConstantOp::create(b, op.getLoc(), globalType, attr);
      SmallVector<int64_t> inverse(perm.size());
      for (auto [i, p] : llvm::enumerate(perm))
        inverse[p] = i;
      for (shard::AllSliceOp slice : llvm::reverse(chain))
        folded = shard::AllSliceOp::create(
            b, slice.getLoc(),
            permuteType(cast<RankedTensorType>(slice.getType()), perm), folded,
            slice.getGrid(), slice.getGridAxes(),
            inverse[slice.getSliceAxis().getSExtValue()]);
      op.replaceAllUsesWith(folded);
      op.erase();
      for (shard::AllSliceOp slice : chain) {
        if (!slice->use_empty())
          break;
        slice.erase();
      }
      if (constant->use_empty())
        constant.erase();
    }
  }
};

} // namespace
