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

/// Loops over the blocks of a `grid` (parallel) and the threads of a
/// `block` (x, y, z each), calling the thread function `fn` of a kernel
/// with `operands`.
void buildLaunchLoops(OpBuilder &b, Location loc, func::FuncOp fn,
                      ArrayRef<Value> grid, ArrayRef<Value> block,
                      ValueRange operands) {
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  Value one = arith::ConstantIndexOp::create(b, loc, 1);
  SmallVector<Value> zeros = {zero, zero, zero}, ones = {one, one, one};
  SmallVector<Value> gridSizes = {grid[2], grid[1], grid[0]};
  SmallVector<Value> blockSizes = {block[2], block[1], block[0]};
  SmallVector<Value> dims = {grid[0], grid[1], grid[2],
                             block[0], block[1], block[2]};
  auto blocks = scf::ParallelOp::create(b, loc, zeros, gridSizes, ones);
  OpBuilder::InsertionGuard guard(b);
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
}

/// `launch` as loops over its blocks (parallel) and threads calling `fn`.
LogicalResult emulateLaunch(gpu::LaunchFuncOp launch, func::FuncOp fn) {
  if (launch.getAsyncToken() || !launch.getAsyncDependencies().empty())
    return launch.emitError("an asynchronous launch cannot be emulated");
  if (launch.getClusterSizeX())
    return launch.emitError("a launch with clusters cannot be emulated");
  OpBuilder b(launch);
  gpu::KernelDim3 grid = launch.getGridSizeOperandValues();
  gpu::KernelDim3 block = launch.getBlockSizeOperandValues();
  buildLaunchLoops(b, launch.getLoc(), fn, {grid.x, grid.y, grid.z},
                   {block.x, block.y, block.z}, launch.getKernelOperands());
  launch.erase();
  return success();
}

/// The public launcher of a kernel's emulation (library mode): the grid and
/// block sizes (x, y, z) and the kernel's arguments, running every thread.
func::FuncOp buildLauncher(OpBuilder &b, gpu::GPUModuleOp module,
                           gpu::GPUFuncOp kernel, func::FuncOp fn) {
  Location loc = kernel.getLoc();
  SmallVector<Type> inputs(6, b.getIndexType());
  llvm::append_range(inputs, kernel.getArgumentTypes());
  std::string name =
      (telar::kEmulatedLauncherPrefix + module.getName() + "_" +
       kernel.getName())
          .str();
  auto launcher = func::FuncOp::create(
      b, loc, name, FunctionType::get(b.getContext(), inputs, {}));
  OpBuilder body = OpBuilder::atBlockBegin(launcher.addEntryBlock());
  SmallVector<Value> args(launcher.getArguments());
  buildLaunchLoops(body, loc, fn, ArrayRef(args).take_front(3),
                   ArrayRef(args).slice(3, 3), ArrayRef(args).drop_front(6));
  func::ReturnOp::create(body, loc);
  return launcher;
}

struct TelarEmulateGpu
    : public telar::impl::TelarEmulateGpuBase<TelarEmulateGpu> {
  using TelarEmulateGpuBase::TelarEmulateGpuBase;
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
        if (library)
          buildLauncher(b, gpuModule, kernel, *fn);
      }
    if (library) {
      // The kernels alone: the host functions (and what only they use) go.
      llvm::SmallPtrSet<Operation *, 16> keep;
      for (auto &entry : emulated)
        keep.insert(entry.second);
      for (func::FuncOp fn :
           llvm::make_early_inc_range(module.getOps<func::FuncOp>()))
        if (!keep.contains(fn) &&
            !fn.getName().starts_with(telar::kEmulatedLauncherPrefix))
          fn.erase();
      for (memref::GlobalOp global :
           llvm::make_early_inc_range(module.getOps<memref::GlobalOp>()))
        if (SymbolTable::symbolKnownUseEmpty(global, module))
          global.erase();
      for (gpu::GPUModuleOp gpuModule : gpuModules)
        gpuModule.erase();
      module->removeAttr(gpu::GPUDialect::getContainerModuleAttrName());
      return;
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
