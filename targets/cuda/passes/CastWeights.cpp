//===- CastWeights.cpp - A prepared program's f32 weights as bfloat16 -----===//
//
// `--dtype bf16`: the weights (matrices and up; vectors stay f32) are
// rounded once, at compile time, so the artifact stores (and the device
// holds) half the bytes. Each weight
// argument changes type and its blob is rewritten in place; the program
// reads it through a telar.cast back to f32, which telar-narrow-storage
// folds into whatever reads the weight.
//
//===----------------------------------------------------------------------===//

#include "telar/dialects/Telar/TelarOps.h"
#include "telar/targets/cuda/Passes.h"

#include "mlir/IR/AsmState.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/DialectResourceBlobManager.h"

#include <cstring>

namespace mlir::telar {
#define GEN_PASS_DEF_TELARCASTWEIGHTS
#include "telar/targets/cuda/Passes.h.inc"
} // namespace mlir::telar

using namespace mlir;

namespace {

/// f32 to bfloat16, rounding to nearest even (NaNs stay quiet NaNs).
uint16_t toBf16(float value) {
  uint32_t bits;
  std::memcpy(&bits, &value, sizeof(bits));
  if ((bits & 0x7fffffffu) > 0x7f800000u)
    return uint16_t((bits >> 16) | 0x40);
  bits += 0x7fffu + ((bits >> 16) & 1);
  return uint16_t(bits >> 16);
}

struct TelarCastWeights
    : public telar::impl::TelarCastWeightsBase<TelarCastWeights> {
  void runOnOperation() override {
    func::FuncOp fn = getOperation();
    if (fn.isExternal())
      return;
    MLIRContext *ctx = &getContext();
    Type f32 = Float32Type::get(ctx), bf16 = BFloat16Type::get(ctx);
    StringRef weightAttr = telar::TelarDialect::WeightAttrHelper::getNameStr();
    auto &blobs =
        DenseResourceElementsHandle::getManagerInterface(ctx).getBlobManager();
    Block &entry = fn.getBody().front();
    auto builder = OpBuilder::atBlockBegin(&entry);
    bool changed = false;
    for (BlockArgument arg : entry.getArguments()) {
      auto name = fn.getArgAttrOfType<StringAttr>(arg.getArgNumber(),
                                                  weightAttr);
      auto type = dyn_cast<RankedTensorType>(arg.getType());
      // Vectors (biases, norms' scales) stay f32: few bytes, and a bias in
      // the GEMM's epilogue must be f32.
      if (!name || !type || type.getElementType() != f32 ||
          type.getRank() < 2)
        continue;
      if (auto *blob = blobs.lookup(name.getValue());
          blob && blob->getBlob()) {
        ArrayRef<char> data = blob->getBlob()->getData();
        std::vector<uint16_t> narrow(data.size() / sizeof(float));
        for (size_t i = 0; i < narrow.size(); ++i) {
          float value;
          std::memcpy(&value, data.data() + i * sizeof(float), sizeof(value));
          narrow[i] = toBf16(value);
        }
        blob->setBlob(HeapAsmResourceBlob::allocateAndCopyWithAlign(
            ArrayRef<char>(reinterpret_cast<const char *>(narrow.data()),
                           narrow.size() * sizeof(uint16_t)),
            alignof(uint16_t)));
      }
      arg.setType(type.clone(bf16));
      auto widened = telar::CastOp::create(builder, arg.getLoc(), arg, f32);
      arg.replaceAllUsesExcept(widened, widened);
      changed = true;
    }
    if (changed)
      fn.setType(FunctionType::get(ctx, entry.getArgumentTypes(),
                                   fn.getResultTypes()));
  }
};

} // namespace
