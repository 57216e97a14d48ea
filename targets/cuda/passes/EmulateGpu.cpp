//===- EmulateGpu.cpp - GPU kernels run on the CPU -------------------------===//
//
// The outlined kernels become host functions taking their block and thread
// indices; each launch becomes loops over the grid's blocks and the block's
// threads calling them. Exact for kernels whose threads do not communicate
// (all that telar-linalg-to-gpu writes); the rest is refused by name.
//
//===----------------------------------------------------------------------===//

#include "telar/targets/cuda/Passes.h"

#include "mlir/IR/IRMapping.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/IR/SymbolTable.h"

namespace mlir::telar {
#define GEN_PASS_DEF_TELAREMULATEGPU
#include "telar/targets/cuda/Passes.h.inc"
} // namespace mlir::telar

using namespace mlir;

namespace {

/// The argument index of a kernel's emulated function that holds `dim` of
/// the block index (0), thread index (3), grid size (6) or block size (9).
constexpr unsigned kBlockId = 0, kThreadId = 3, kGridDim = 6, kBlockDim = 9,
                   kNumLaunchArgs = 12;

unsigned dimIndex(gpu::Dimension dim) {
  switch (dim) {
  case gpu::Dimension::x:
    return 0;
  case gpu::Dimension::y:
    return 1;
  case gpu::Dimension::z:
    return 2;
  }
  llvm_unreachable("unknown dimension");
}

/// Why `kernel` cannot be emulated thread after thread, or empty.
std::string whyNotEmulated(gpu::GPUFuncOp kernel, Operation *&where) {
  where = kernel;
  if (kernel.getNumWorkgroupAttributions() || kernel.getNumPrivateAttributions())
    return "it has workgroup or private memory attributions";
  std::string why;
  kernel.walk([&](Operation *op) {
    if (op == kernel.getOperation() ||
        isa<gpu::BlockIdOp, gpu::ThreadIdOp, gpu::GridDimOp, gpu::BlockDimOp,
            gpu::ReturnOp>(op))
      return WalkResult::advance();
    if (op->getDialect() && op->getDialect()->getNamespace() == "gpu") {
      why = "'" + op->getName().getStringRef().str() +
            "' makes its threads depend on each other";
      where = op;
      return WalkResult::interrupt();
    }
    if (isa<memref::AtomicRMWOp, memref::GenericAtomicRMWOp>(op)) {
      why = "'" + op->getName().getStringRef().str() + "' is atomic";
      where = op;
      return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  return why;
}

/// The host function running one thread of `kernel`.
FailureOr<func::FuncOp> emulateKernel(OpBuilder &b, gpu::GPUModuleOp module,
                                      gpu::GPUFuncOp kernel) {
  Operation *where = nullptr;
  std::string why = whyNotEmulated(kernel, where);
  if (!why.empty())
    return where->emitError() << "kernel '" << module.getName()
                              << "::" << kernel.getName()
                              << "' cannot be emulated on the CPU: " << why;
  MLIRContext *ctx = b.getContext();
  SmallVector<Type> inputs(kNumLaunchArgs, b.getIndexType());
  llvm::append_range(inputs, kernel.getArgumentTypes());
  std::string name = ("__telar_emulated_" + module.getName() + "_" +
                      kernel.getName())
                         .str();
  auto fn = func::FuncOp::create(b, kernel.getLoc(), name,
                                 FunctionType::get(ctx, inputs, {}));
  fn.setPrivate();
  IRMapping mapping;
  kernel.getBody().cloneInto(&fn.getBody(), mapping);
  Block &entry = fn.getBody().front();
  for (unsigned i = 0; i < kNumLaunchArgs; ++i)
    entry.insertArgument(i, b.getIndexType(), kernel.getLoc());
  auto launchArg = [&](unsigned base, gpu::Dimension dim) -> Value {
    return entry.getArgument(base + dimIndex(dim));
  };
  IRRewriter rewriter(ctx);
  fn.walk([&](Operation *op) {
    Value replacement;
    if (auto id = dyn_cast<gpu::BlockIdOp>(op))
      replacement = launchArg(kBlockId, id.getDimension());
    else if (auto id = dyn_cast<gpu::ThreadIdOp>(op))
      replacement = launchArg(kThreadId, id.getDimension());
    else if (auto dim = dyn_cast<gpu::GridDimOp>(op))
      replacement = launchArg(kGridDim, dim.getDimension());
    else if (auto dim = dyn_cast<gpu::BlockDimOp>(op))
      replacement = launchArg(kBlockDim, dim.getDimension());
    if (replacement) {
      rewriter.replaceOp(op, replacement);
      return;
    }
    if (auto ret = dyn_cast<gpu::ReturnOp>(op)) {
      rewriter.setInsertionPoint(ret);
      rewriter.replaceOpWithNewOp<func::ReturnOp>(ret, ret.getOperands());
    }
  });
  return fn;
}

/// `launch` as loops over its blocks (parallel) and threads calling `fn`.
LogicalResult emulateLaunch(gpu::LaunchFuncOp launch, func::FuncOp fn) {
  if (launch.getAsyncToken() || !launch.getAsyncDependencies().empty())
    return launch.emitError("an asynchronous launch cannot be emulated");
  if (launch.getClusterSizeX())
    return launch.emitError("a launch with clusters cannot be emulated");
  OpBuilder b(launch);
  Location loc = launch.getLoc();
  gpu::KernelDim3 grid = launch.getGridSizeOperandValues();
  gpu::KernelDim3 block = launch.getBlockSizeOperandValues();
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  Value one = arith::ConstantIndexOp::create(b, loc, 1);
  SmallVector<Value> operands = llvm::to_vector(launch.getKernelOperands());
  SmallVector<Value> zeros = {zero, zero, zero}, ones = {one, one, one};
  SmallVector<Value> gridSizes = {grid.z, grid.y, grid.x};
  SmallVector<Value> blockSizes = {block.z, block.y, block.x};
  SmallVector<Value> dims = {grid.x, grid.y, grid.z, block.x, block.y, block.z};
  auto blocks = scf::ParallelOp::create(b, loc, zeros, gridSizes, ones);
  b.setInsertionPoint(blocks.getBody()->getTerminator());
  SmallVector<Value> blockIvs(blocks.getInductionVars()); // z, y, x
  scf::buildLoopNest(
      b, loc, zeros, blockSizes, ones,
      [&](OpBuilder &nb, Location, ValueRange threadIvs) {
        SmallVector<Value> args = {blockIvs[2], blockIvs[1], blockIvs[0],
                                   threadIvs[2], threadIvs[1], threadIvs[0]};
        llvm::append_range(args, dims);
        llvm::append_range(args, operands);
        func::CallOp::create(nb, loc, fn, args);
      });
  launch.erase();
  return success();
}

struct TelarEmulateGpu
    : public telar::impl::TelarEmulateGpuBase<TelarEmulateGpu> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    OpBuilder b = OpBuilder::atBlockEnd(module.getBody());
    llvm::StringMap<func::FuncOp> emulated; // "module::kernel"
    SmallVector<gpu::GPUModuleOp> gpuModules(module.getOps<gpu::GPUModuleOp>());
    for (gpu::GPUModuleOp gpuModule : gpuModules)
      for (gpu::GPUFuncOp kernel : gpuModule.getOps<gpu::GPUFuncOp>()) {
        if (!kernel.isKernel()) {
          kernel.emitError("device functions are not emulated yet");
          return signalPassFailure();
        }
        FailureOr<func::FuncOp> fn = emulateKernel(b, gpuModule, kernel);
        if (failed(fn))
          return signalPassFailure();
        emulated[(gpuModule.getName() + "::" + kernel.getName()).str()] = *fn;
      }
    SmallVector<gpu::LaunchFuncOp> launches;
    module.walk([&](gpu::LaunchFuncOp op) { launches.push_back(op); });
    for (gpu::LaunchFuncOp launch : launches) {
      std::string key = (launch.getKernelModuleName().getValue() +
                         "::" + launch.getKernelName().getValue())
                            .str();
      auto it = emulated.find(key);
      if (it == emulated.end()) {
        launch.emitError() << "no kernel '" << key << "' to emulate";
        return signalPassFailure();
      }
      if (failed(emulateLaunch(launch, it->second)))
        return signalPassFailure();
    }
    for (gpu::GPUModuleOp gpuModule : gpuModules)
      gpuModule.erase();
    module->removeAttr(gpu::GPUDialect::getContainerModuleAttrName());
  }
};

} // namespace
