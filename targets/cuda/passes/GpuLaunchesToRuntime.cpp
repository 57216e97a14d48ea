//===- GpuLaunchesToRuntime.cpp - A GPU program's host code ---------------===//
//
// The host program of a GPU target: its kernel launches become calls of
// the runtime's telarrt_gpu_launch (abi/Gpu.h) with the kernel's index in
// the program's kernel table and its arguments in 64-bit slots; constant
// buffers (memref.global) are uploaded to device buffers; the kernel
// modules go (they are compiled apart). Host code must not read or write
// buffers, which live in the device's memory: such an op is an error.
//
//===----------------------------------------------------------------------===//

#include "telar/dialects/Telar/TelarDialect.h"
#include "telar/passes/abi/RuntimeContext.h"
#include "telar/targets/cuda/Passes.h"

#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/MapVector.h"

namespace mlir::telar {
#define GEN_PASS_DEF_TELARGPULAUNCHESTORUNTIME
#include "telar/targets/cuda/Passes.h.inc"
} // namespace mlir::telar

using namespace mlir;

namespace {

constexpr llvm::StringLiteral kLaunchFn = "telarrt_gpu_launch";
constexpr llvm::StringLiteral kUploadFn = "telarrt_gpu_upload";

/// A buffer's aligned base pointer as an `i64` (its offset, static, is the
/// kernel's to apply: buffers are passed as bare pointers).
Value basePointerBits(OpBuilder &b, Location loc, Value buffer) {
  Value index = memref::ExtractAlignedPointerAsIndexOp::create(b, loc, buffer);
  return arith::IndexCastOp::create(b, loc, b.getI64Type(), index);
}

/// The 64-bit slot of a kernel argument (abi/Gpu.h), or null when its type
/// cannot be passed: read from the slot's first bytes as its own type (a
/// GPU's kernel parameter, the emulator's load), an integer sign-extended
/// (a bool zero-extended) and a float's bits give the value back.
Value argumentSlot(OpBuilder &b, Location loc, Value value) {
  Type type = value.getType();
  Type i64 = b.getI64Type();
  if (isa<MemRefType>(type))
    return basePointerBits(b, loc, value);
  if (type.isIndex())
    return arith::IndexCastOp::create(b, loc, i64, value);
  if (auto integer = dyn_cast<IntegerType>(type)) {
    if (integer.getWidth() == 64)
      return value;
    if (integer.getWidth() == 1) // a bool: 0 or 1 in its byte
      return arith::ExtUIOp::create(b, loc, i64, value);
    if (integer.getWidth() < 64)
      return arith::ExtSIOp::create(b, loc, i64, value);
    return {};
  }
  if (type.isF64())
    return arith::BitcastOp::create(b, loc, i64, value);
  if (type.isF32()) {
    Value bits = arith::BitcastOp::create(b, loc, b.getI32Type(), value);
    return arith::ExtUIOp::create(b, loc, i64, bits);
  }
  return {};
}

/// The first host op that reads or writes a buffer other than `slots`.
Operation *findBufferAccess(func::FuncOp fn, Value slots) {
  Operation *found = nullptr;
  fn.walk([&](Operation *op) {
    if (isa<gpu::LaunchFuncOp, func::CallOp>(op))
      return WalkResult::advance();
    auto effects = dyn_cast<MemoryEffectOpInterface>(op);
    if (!effects)
      return WalkResult::advance();
    SmallVector<MemoryEffects::EffectInstance> list;
    effects.getEffects(list);
    for (const MemoryEffects::EffectInstance &e : list) {
      if (!isa<MemoryEffects::Read, MemoryEffects::Write>(e.getEffect()))
        continue;
      if (slots && e.getValue() == slots)
        continue;
      found = op;
      return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  return found;
}

struct TelarGpuLaunchesToRuntime
    : public telar::impl::TelarGpuLaunchesToRuntimeBase<
          TelarGpuLaunchesToRuntime> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    MLIRContext *ctx = module.getContext();
    Type i64 = IntegerType::get(ctx, 64);
    Type ptr = LLVM::LLVMPointerType::get(ctx);
    // The kernel table: each kernel once, in the order first launched.
    llvm::MapVector<SymbolRefAttr, int64_t> table;
    SmallVector<func::FuncOp> functions(module.getOps<func::FuncOp>());
    for (func::FuncOp fn : functions) {
      if (fn.isExternal())
        continue;
      SmallVector<gpu::LaunchFuncOp> launches;
      fn.walk([&](gpu::LaunchFuncOp op) { launches.push_back(op); });
      SmallVector<memref::GetGlobalOp> globals;
      fn.walk([&](memref::GetGlobalOp op) { globals.push_back(op); });
      if (launches.empty() && globals.empty())
        continue;
      Value context = telar::getRuntimeContext(fn);
      if (!context) {
        fn.emitError("a GPU program's host function needs the runtime "
                     "context (telar-add-runtime-context)");
        return signalPassFailure();
      }
      OpBuilder b = OpBuilder::atBlockBegin(&fn.getBody().front());
      Location loc = fn.getLoc();
      // One array of argument slots per function, as large as its largest
      // launch needs.
      size_t maxArgs = 1;
      for (gpu::LaunchFuncOp launch : launches)
        maxArgs = std::max<size_t>(maxArgs, launch.getNumKernelOperands());
      Value slots = memref::AllocaOp::create(
          b, loc, MemRefType::get({int64_t(maxArgs)}, i64));
      func::FuncOp launchFn = telar::declareRuntimeFunction(
          module, kLaunchFn, {i64, i64, i64, i64, i64, i64, i64, ptr, i64});

      for (gpu::LaunchFuncOp launch : launches) {
        if (launch.getAsyncToken() || !launch.getAsyncDependencies().empty() ||
            launch.getClusterSizeX() || launch.getDynamicSharedMemorySize()) {
          launch.emitError("only synchronous launches without clusters or "
                           "dynamic shared memory reach the runtime");
          return signalPassFailure();
        }
        OpBuilder lb(launch);
        Location l = launch.getLoc();
        SymbolRefAttr kernel = launch.getKernel();
        int64_t index = table.insert({kernel, int64_t(table.size())})
                            .first->second;
        for (auto [i, operand] : llvm::enumerate(launch.getKernelOperands())) {
          Value slot = argumentSlot(lb, l, operand);
          if (!slot) {
            launch.emitError() << "kernel argument " << i << " of type "
                               << operand.getType()
                               << " cannot be passed to a GPU kernel";
            return signalPassFailure();
          }
          Value at = arith::ConstantIndexOp::create(lb, l, int64_t(i));
          memref::StoreOp::create(lb, l, slot, slots, at);
        }
        auto asI64 = [&](Value index) -> Value {
          return arith::IndexCastOp::create(lb, l, i64, index);
        };
        gpu::KernelDim3 grid = launch.getGridSizeOperandValues();
        gpu::KernelDim3 block = launch.getBlockSizeOperandValues();
        Value slotsPtr = LLVM::IntToPtrOp::create(
            lb, l, ptr, basePointerBits(lb, l, slots));
        SmallVector<Value> args = {
            context,
            arith::ConstantOp::create(lb, l, lb.getI64IntegerAttr(index)),
            asI64(grid.x),
            asI64(grid.y),
            asI64(grid.z),
            asI64(block.x),
            asI64(block.y),
            asI64(block.z),
            slotsPtr,
            arith::ConstantOp::create(
                lb, l,
                lb.getI64IntegerAttr(int64_t(launch.getNumKernelOperands())))};
        func::CallOp::create(lb, l, launchFn, args);
        launch.erase();
      }

      // Constants: a device buffer each, uploaded where the constant is
      // taken and freed at every return.
      func::FuncOp uploadFn =
          telar::declareRuntimeFunction(module, kUploadFn, {ptr, ptr, i64});
      SmallVector<func::ReturnOp> returns;
      fn.walk([&](func::ReturnOp op) { returns.push_back(op); });
      for (memref::GetGlobalOp global : globals) {
        auto type = cast<MemRefType>(global.getType());
        if (!type.hasStaticShape() || !type.getLayout().isIdentity()) {
          global.emitError("a constant buffer of a GPU program needs a "
                           "static shape and an identity layout");
          return signalPassFailure();
        }
        OpBuilder gb(global);
        gb.setInsertionPointAfter(global);
        Location l = global.getLoc();
        auto buffer =
            memref::AllocOp::create(gb, l, type, gb.getI64IntegerAttr(64));
        global.getResult().replaceAllUsesWith(buffer.getResult());
        int64_t bytes = type.getNumElements() *
                        int64_t(type.getElementTypeBitWidth() / 8);
        Value dst = LLVM::IntToPtrOp::create(gb, l, ptr,
                                             basePointerBits(gb, l, buffer));
        Value src = LLVM::IntToPtrOp::create(gb, l, ptr,
                                             basePointerBits(gb, l, global));
        Value size =
            arith::ConstantOp::create(gb, l, gb.getI64IntegerAttr(bytes));
        SmallVector<Value> uploadArgs = {context, dst, src, size};
        func::CallOp::create(gb, l, uploadFn, uploadArgs);
        for (func::ReturnOp ret : returns) {
          OpBuilder rb(ret);
          memref::DeallocOp::create(rb, ret.getLoc(), buffer);
        }
      }

      if (Operation *op = findBufferAccess(fn, slots)) {
        op->emitError("host code of a GPU program reads or writes a buffer "
                      "(the device's memory): only kernels may");
        return signalPassFailure();
      }
    }

    // What the artifact's kernel table lists, in index order.
    SmallVector<Attribute> kernels;
    for (auto &entry : table)
      kernels.push_back(entry.first);
    module->setAttr(telar::TelarDialect::GpuKernelsAttrHelper::getNameStr(),
                    ArrayAttr::get(ctx, kernels));
    for (gpu::GPUModuleOp gpuModule :
         llvm::make_early_inc_range(module.getOps<gpu::GPUModuleOp>()))
      gpuModule.erase();
    module->removeAttr(gpu::GPUDialect::getContainerModuleAttrName());
  }
};

} // namespace
