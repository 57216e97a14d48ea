//===- EmulatedKernelEntries.cpp - Entry points of emulated kernels -------===//
//
// In a kernel library for the CUDA emulator, lowered to the LLVM dialect
// with bare-pointer buffers: each launcher `__telar_launch_<kernel>(gx, gy,
// gz, bx, by, bz, args...)` gets an exported entry point
// `telar_emulated_<kernel>(slots, gx, gy, gz, bx, by, bz)` reading the
// kernel's arguments from the runtime's 64-bit slots (abi/Gpu.h) as a GPU
// reads its kernelParams; the launcher becomes internal (inlined).
//
//===----------------------------------------------------------------------===//

#include "telar/targets/cuda/Passes.h"

namespace mlir::telar {
#define GEN_PASS_DEF_TELAREMULATEDKERNELENTRIES
#include "telar/targets/cuda/Passes.h.inc"
} // namespace mlir::telar

using namespace mlir;

namespace {

struct TelarEmulatedKernelEntries
    : public telar::impl::TelarEmulatedKernelEntriesBase<
          TelarEmulatedKernelEntries> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    MLIRContext *ctx = module.getContext();
    Type ptr = LLVM::LLVMPointerType::get(ctx);
    Type i64 = IntegerType::get(ctx, 64);
    Type voidType = LLVM::LLVMVoidType::get(ctx);
    SmallVector<LLVM::LLVMFuncOp> launchers;
    for (auto fn : module.getOps<LLVM::LLVMFuncOp>())
      if (!fn.isExternal() &&
          fn.getName().starts_with(telar::kEmulatedLauncherPrefix))
        launchers.push_back(fn);
    OpBuilder b = OpBuilder::atBlockEnd(module.getBody());
    for (LLVM::LLVMFuncOp launcher : launchers) {
      Location loc = launcher.getLoc();
      ArrayRef<Type> params = launcher.getFunctionType().getParams();
      if (params.size() < 6 || !llvm::all_of(params.take_front(6), [&](Type t) {
            return t == i64;
          })) {
        launcher.emitError("a launcher takes the grid and block sizes (six "
                           "i64) first");
        return signalPassFailure();
      }
      std::string name =
          (telar::kEmulatedEntryPrefix +
           launcher.getName().drop_front(telar::kEmulatedLauncherPrefix.size()))
              .str();
      SmallVector<Type> entryParams = {ptr};
      entryParams.append(6, i64);
      auto entry = LLVM::LLVMFuncOp::create(
          b, loc, name, LLVM::LLVMFunctionType::get(voidType, entryParams));
      OpBuilder eb = OpBuilder::atBlockBegin(entry.addEntryBlock(b));
      Value slots = entry.getArgument(0);
      SmallVector<Value> args(entry.getArguments().drop_front());
      for (auto [i, type] : llvm::enumerate(params.drop_front(6))) {
        if (!isa<LLVM::LLVMPointerType, IntegerType, FloatType>(type)) {
          launcher.emitError() << "kernel argument " << i << " of type "
                               << type << " has no argument slot";
          return signalPassFailure();
        }
        // Slot i, read as the argument's type from its first bytes (the
        // runtime's slots are little-endian, as a GPU's kernelParams).
        Value at = LLVM::GEPOp::create(eb, loc, ptr, i64, slots,
                                       ArrayRef<LLVM::GEPArg>{int32_t(i)});
        args.push_back(LLVM::LoadOp::create(eb, loc, type, at));
      }
      LLVM::CallOp::create(eb, loc, launcher, args);
      LLVM::ReturnOp::create(eb, loc, ValueRange());
      launcher.setLinkage(LLVM::Linkage::Internal);
    }
    // The threads' functions are the launchers' alone: internal, so that
    // only the entry points are exported (and LLVM may inline them).
    for (auto fn : module.getOps<LLVM::LLVMFuncOp>())
      if (!fn.isExternal() &&
          fn.getName().starts_with(telar::kEmulatedThreadPrefix))
        fn.setLinkage(LLVM::Linkage::Internal);
  }
};

} // namespace
