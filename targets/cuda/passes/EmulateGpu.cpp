//===- EmulateGpu.cpp - GPU kernels run on the CPU -------------------------===//
//
// The outlined kernels become host functions taking their block and thread
// indices, one per stretch between the kernel's barriers (which must be at
// its top level); each launch becomes loops over the grid's blocks and, per
// block, its workgroup buffers and for each stretch the block's threads
// calling it. Exact for such kernels: a barrier is where every thread has
// run the stretch before it. Shuffles at the top level become exchanges
// through block-wide buffers between barriers, and what a thread keeps
// across a barrier is kept per thread in a block-local buffer. The rest
// (atomics, barriers and shuffles in control flow) is refused by name.
//
//===----------------------------------------------------------------------===//

#include "telar/targets/cuda/Passes.h"

#include "mlir/IR/IRMapping.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

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

/// Why `kernel` cannot be emulated thread after thread, a stretch between
/// barriers at a time, or empty.
std::string whyNotEmulated(gpu::GPUFuncOp kernel, Operation *&where) {
  where = kernel;
  if (kernel.getNumPrivateAttributions())
    return "it has private memory attributions";
  if (!kernel.getBody().hasOneBlock())
    return "its body has several blocks";
  Block *entry = &kernel.getBody().front();
  std::string why;
  kernel.walk([&](Operation *op) {
    if (op == kernel.getOperation() ||
        isa<gpu::BlockIdOp, gpu::ThreadIdOp, gpu::GridDimOp, gpu::BlockDimOp,
            gpu::ReturnOp>(op))
      return WalkResult::advance();
    if (isa<gpu::BarrierOp>(op)) {
      if (op->getBlock() == entry)
        return WalkResult::advance();
      why = "a 'gpu.barrier' inside control flow (only barriers at the "
            "kernel's top level are emulated)";
      where = op;
      return WalkResult::interrupt();
    }
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

/// Whether `v` can be recomputed after a barrier: a block argument, or the
/// result of an op without memory effects or regions whose operands can.
bool isRecomputable(Value v, Block *entry,
                    llvm::DenseMap<Value, bool> &memo) {
  Operation *def = v.getDefiningOp();
  if (!def || def->getBlock() != entry)
    return true;
  auto [it, inserted] = memo.try_emplace(v, false);
  if (!inserted)
    return it->second;
  bool ok = isMemoryEffectFree(def) && def->getNumRegions() == 0 &&
            llvm::all_of(def->getOperands(), [&](Value operand) {
              return isRecomputable(operand, entry, memo);
            });
  return memo[v] = ok;
}

/// Rewrites `kernel` so that its threads can run one after the other, a
/// stretch between barriers at a time, as GPU code written for warps and
/// registers assumes they do not:
///  - each `gpu.shuffle` at the top level becomes an exchange through a
///    block-wide buffer of its own (the value stored at the thread's
///    linear index, a barrier, the partner lane's loaded; a partner out of
///    range gives the thread's own value and `false`, as NVVM's clamped
///    shuffles do): with every thread of the block at the shuffle, which
///    the top level guarantees, that is the warp's exchange;
///  - a scalar that crosses a barrier and cannot be recomputed (a share of
///    a reduction, a shuffle's result) is kept per thread in a block-local
///    buffer, stored where it is made and loaded in each later stretch that
///    uses it, as a GPU keeps it in the thread's registers.
/// Both need the kernel's known block size (the buffers' length).
LogicalResult prepareForEmulation(gpu::GPUFuncOp kernel, StringRef module) {
  Block *entry = &kernel.getBody().front();
  SmallVector<gpu::ShuffleOp> shuffles;
  for (Operation &op : *entry)
    if (auto shuffle = dyn_cast<gpu::ShuffleOp>(op))
      shuffles.push_back(shuffle);
  bool hasBarrier = llvm::any_of(
      *entry, [](Operation &op) { return isa<gpu::BarrierOp>(op); });
  if (shuffles.empty() && !hasBarrier)
    return success();
  std::optional<ArrayRef<int32_t>> known = kernel.getKnownBlockSize();
  int64_t threads = 1;
  if (known)
    for (int32_t d : *known)
      threads *= d;
  auto needKnownSize = [&](Operation *where) {
    return where->emitError()
           << "kernel '" << module << "::" << kernel.getName()
           << "' cannot be emulated on the CPU: its shuffles and the values "
              "its threads keep across barriers need a known block size "
              "(known_block_size)";
  };
  MLIRContext *ctx = kernel.getContext();
  Location loc = kernel.getLoc();
  auto workgroup =
      gpu::AddressSpaceAttr::get(ctx, gpu::AddressSpace::Workgroup);
  auto perThread = [&](Type element) {
    auto type = MemRefType::get({threads}, element, MemRefLayoutAttrInterface{},
                                workgroup);
    return kernel.addWorkgroupAttribution(type, loc);
  };
  // The thread's linear index in its block (pure: recomputed anywhere).
  auto linearThread = [&](OpBuilder &b) -> Value {
    Value x = gpu::ThreadIdOp::create(b, loc, gpu::Dimension::x);
    Value y = gpu::ThreadIdOp::create(b, loc, gpu::Dimension::y);
    Value z = gpu::ThreadIdOp::create(b, loc, gpu::Dimension::z);
    Value bx = gpu::BlockDimOp::create(b, loc, gpu::Dimension::x);
    Value by = gpu::BlockDimOp::create(b, loc, gpu::Dimension::y);
    Value zy = arith::AddIOp::create(b, loc,
                                     arith::MulIOp::create(b, loc, z, by), y);
    return arith::AddIOp::create(b, loc,
                                 arith::MulIOp::create(b, loc, zy, bx), x);
  };

  for (gpu::ShuffleOp shuffle : shuffles) {
    if (!known)
      return needKnownSize(shuffle);
    OpBuilder b(shuffle);
    Value buffer = perThread(shuffle.getValue().getType());
    Value tid = linearThread(b);
    memref::StoreOp::create(b, loc, shuffle.getValue(), buffer, tid);
    gpu::BarrierOp::create(b, loc);
    Type index = b.getIndexType();
    auto cst = [&](int64_t v) {
      return arith::ConstantIndexOp::create(b, loc, v);
    };
    Value offset =
        arith::IndexCastOp::create(b, loc, index, shuffle.getOffset());
    Value width =
        arith::IndexCastOp::create(b, loc, index, shuffle.getWidth());
    // Lanes count within a warp of 32, in groups of `width`.
    Value lane = arith::RemUIOp::create(b, loc, tid, cst(32));
    Value group = arith::MulIOp::create(
        b, loc, arith::DivUIOp::create(b, loc, lane, width), width);
    Value inGroup = arith::SubIOp::create(b, loc, lane, group);
    Value peer; // in the group
    switch (shuffle.getMode()) {
    case gpu::ShuffleMode::XOR:
      peer = arith::XOrIOp::create(b, loc, inGroup, offset);
      break;
    case gpu::ShuffleMode::DOWN:
      peer = arith::AddIOp::create(b, loc, inGroup, offset);
      break;
    case gpu::ShuffleMode::UP:
      peer = arith::SubIOp::create(b, loc, inGroup, offset);
      break;
    case gpu::ShuffleMode::IDX:
      peer = offset;
      break;
    }
    // UP below 0 wraps to a huge index: out of range too.
    Value valid =
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, peer, width);
    Value peerThread = arith::AddIOp::create(
        b, loc, arith::SubIOp::create(b, loc, tid, inGroup), peer);
    Value from = arith::SelectOp::create(b, loc, valid, peerThread, tid);
    Value value = memref::LoadOp::create(b, loc, buffer, from);
    shuffle.getShuffleResult().replaceAllUsesWith(value);
    shuffle.getValid().replaceAllUsesWith(valid);
    shuffle.erase();
  }

  // The stretch of each top-level op.
  llvm::DenseMap<Operation *, unsigned> stretchOf;
  SmallVector<gpu::BarrierOp> barriers;
  for (Operation &op : *entry) {
    if (auto barrier = dyn_cast<gpu::BarrierOp>(op))
      barriers.push_back(barrier);
    stretchOf[&op] = barriers.size();
  }
  llvm::DenseMap<Value, bool> memo;
  SmallVector<Operation *> top = llvm::map_to_vector(
      *entry, [](Operation &op) { return &op; });
  for (Operation *op : top) {
    for (Value v : op->getResults()) {
      if (isRecomputable(v, entry, memo) || !v.getType().isIntOrIndexOrFloat())
        continue;
      // Its uses by stretch, the top-level op holding each.
      llvm::MapVector<unsigned, SmallVector<OpOperand *>> later;
      for (OpOperand &use : v.getUses()) {
        Operation *holder = entry->findAncestorOpInBlock(*use.getOwner());
        unsigned at = stretchOf.lookup(holder);
        if (at > stretchOf.lookup(op))
          later[at].push_back(&use);
      }
      if (later.empty())
        continue;
      if (!known)
        return needKnownSize(op);
      Value buffer = perThread(v.getType());
      OpBuilder b = OpBuilder::atBlockBegin(entry);
      b.setInsertionPointAfter(op);
      memref::StoreOp::create(b, loc, v, buffer, linearThread(b));
      for (auto &[at, uses] : later) {
        b.setInsertionPointAfter(barriers[at - 1]);
        Value reloaded =
            memref::LoadOp::create(b, loc, buffer, linearThread(b));
        for (OpOperand *use : uses)
          use->set(reloaded);
      }
    }
  }
  return success();
}

/// `type` in the host's memory (a workgroup buffer's memory space gone).
Type inHostMemory(Type type) {
  auto memref = dyn_cast<MemRefType>(type);
  if (!memref || !memref.getMemorySpace())
    return type;
  return MemRefType::get(memref.getShape(), memref.getElementType(),
                         memref.getLayout());
}

/// A kernel's emulation: host functions run one after the other by every
/// thread of a block (one per stretch between the kernel's barriers),
/// taking the block and thread indices, the grid and block sizes, the
/// kernel's arguments and its workgroup buffers (one per block, `shared`).
struct EmulatedKernel {
  SmallVector<func::FuncOp> stretches;
  SmallVector<Type> shared;
};

/// The host function running stretch `stretch` (of `numStretches`) of
/// `kernel` for one thread: the kernel's body without the other stretches,
/// but with what this one uses of the earlier ones recomputed (values
/// crossing a barrier must be pure: indices, constants).
FailureOr<func::FuncOp> emulateStretch(OpBuilder &b, gpu::GPUModuleOp module,
                                       gpu::GPUFuncOp kernel,
                                       unsigned stretch,
                                       unsigned numStretches) {
  MLIRContext *ctx = b.getContext();
  SmallVector<Type> inputs(kNumLaunchArgs, b.getIndexType());
  llvm::append_range(inputs, kernel.getArgumentTypes());
  for (BlockArgument buffer : kernel.getWorkgroupAttributions())
    inputs.push_back(inHostMemory(buffer.getType()));
  std::string name = (telar::kEmulatedThreadPrefix + module.getName() + "_" +
                      kernel.getName())
                         .str();
  if (numStretches > 1)
    name += "_s" + std::to_string(stretch);
  auto fn = func::FuncOp::create(b, kernel.getLoc(), name,
                                 FunctionType::get(ctx, inputs, {}));
  fn.setPrivate();
  IRMapping mapping;
  kernel.getBody().cloneInto(&fn.getBody(), mapping);
  Block &entry = fn.getBody().front();
  for (unsigned i = 0; i < kNumLaunchArgs; ++i)
    entry.insertArgument(i, b.getIndexType(), kernel.getLoc());
  // Workgroup buffers are the host's memory.
  for (BlockArgument arg : entry.getArguments())
    arg.setType(inHostMemory(arg.getType()));
  fn.walk([](Operation *op) {
    for (Value result : op->getResults())
      result.setType(inHostMemory(result.getType()));
  });

  // Keep this stretch's ops and what they use of the earlier ones.
  if (numStretches > 1) {
    SmallVector<Operation *> top;
    for (Operation &op : entry)
      top.push_back(&op);
    llvm::SmallPtrSet<Operation *, 32> needed;
    SmallVector<Operation *> work;
    unsigned at = 0;
    for (Operation *op : top) {
      if (isa<gpu::BarrierOp>(op)) {
        ++at;
        continue;
      }
      if (at == stretch || op->hasTrait<OpTrait::IsTerminator>()) {
        needed.insert(op);
        work.push_back(op);
      }
    }
    while (!work.empty()) {
      Operation *op = work.pop_back_val();
      Operation *unpure = nullptr;
      op->walk([&](Operation *nested) {
        for (Value v : nested->getOperands()) {
          Operation *def = v.getDefiningOp();
          if (!def || def->getBlock() != &entry || needed.contains(def))
            continue;
          if (!isMemoryEffectFree(def) || def->getNumRegions()) {
            unpure = def;
            return WalkResult::interrupt();
          }
          needed.insert(def);
          work.push_back(def);
        }
        return WalkResult::advance();
      });
      if (unpure) {
        fn.erase();
        return kernel.emitError()
               << "kernel '" << module.getName() << "::" << kernel.getName()
               << "' cannot be emulated on the CPU: a value of '"
               << unpure->getName().getStringRef()
               << "' is used across a barrier (only indices and other pure "
                  "values are recomputed; pass it through shared memory)";
      }
    }
    for (Operation *op : llvm::reverse(top))
      if (!needed.contains(op))
        op->erase();
  }

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

/// The host functions of `kernel`'s emulation.
FailureOr<EmulatedKernel> emulateKernel(OpBuilder &b, gpu::GPUModuleOp module,
                                        gpu::GPUFuncOp kernel) {
  if (failed(prepareForEmulation(kernel, module.getName())))
    return failure();
  Operation *where = nullptr;
  std::string why = whyNotEmulated(kernel, where);
  if (!why.empty())
    return where->emitError() << "kernel '" << module.getName()
                              << "::" << kernel.getName()
                              << "' cannot be emulated on the CPU: " << why;
  EmulatedKernel emulated;
  for (BlockArgument buffer : kernel.getWorkgroupAttributions())
    emulated.shared.push_back(inHostMemory(buffer.getType()));
  unsigned barriers = 0;
  for (Operation &op : kernel.getBody().front())
    barriers += isa<gpu::BarrierOp>(op);
  for (unsigned i = 0; i <= barriers; ++i) {
    FailureOr<func::FuncOp> fn =
        emulateStretch(b, module, kernel, i, barriers + 1);
    if (failed(fn))
      return failure();
    emulated.stretches.push_back(*fn);
  }
  return emulated;
}

/// Loops over the blocks of a `grid` (parallel) and, per block, its
/// workgroup buffers and for each stretch of the kernel the threads of a
/// `block` (x, y, z each) calling it with `operands`: every thread reaches
/// a barrier before any passes it, as on a GPU.
void buildLaunchLoops(OpBuilder &b, Location loc,
                      const EmulatedKernel &kernel, ArrayRef<Value> grid,
                      ArrayRef<Value> block, ValueRange operands) {
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
  SmallVector<Value> shared;
  for (Type type : kernel.shared)
    shared.push_back(memref::AllocOp::create(b, loc, cast<MemRefType>(type)));
  for (func::FuncOp fn : kernel.stretches)
    scf::buildLoopNest(
        b, loc, zeros, blockSizes, ones,
        [&](OpBuilder &nb, Location, ValueRange threadIvs) {
          SmallVector<Value> args = {blockIvs[2],  blockIvs[1],
                                     blockIvs[0],  threadIvs[2],
                                     threadIvs[1], threadIvs[0]};
          llvm::append_range(args, dims);
          llvm::append_range(args, operands);
          llvm::append_range(args, shared);
          func::CallOp::create(nb, loc, fn, args);
        });
  for (Value buffer : shared)
    memref::DeallocOp::create(b, loc, buffer);
}

/// `launch` as loops over its blocks (parallel) and threads calling `fn`.
LogicalResult emulateLaunch(gpu::LaunchFuncOp launch,
                            const EmulatedKernel &kernel) {
  if (launch.getAsyncToken() || !launch.getAsyncDependencies().empty())
    return launch.emitError("an asynchronous launch cannot be emulated");
  if (launch.getClusterSizeX())
    return launch.emitError("a launch with clusters cannot be emulated");
  OpBuilder b(launch);
  gpu::KernelDim3 grid = launch.getGridSizeOperandValues();
  gpu::KernelDim3 block = launch.getBlockSizeOperandValues();
  buildLaunchLoops(b, launch.getLoc(), kernel, {grid.x, grid.y, grid.z},
                   {block.x, block.y, block.z}, launch.getKernelOperands());
  launch.erase();
  return success();
}

/// The public launcher of a kernel's emulation (library mode): the grid and
/// block sizes (x, y, z) and the kernel's arguments, running every thread.
func::FuncOp buildLauncher(OpBuilder &b, gpu::GPUModuleOp module,
                           gpu::GPUFuncOp kernel,
                           const EmulatedKernel &emulated) {
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
  buildLaunchLoops(body, loc, emulated, ArrayRef(args).take_front(3),
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
    llvm::StringMap<EmulatedKernel> emulated; // "module::kernel"
    SmallVector<gpu::GPUModuleOp> gpuModules(module.getOps<gpu::GPUModuleOp>());
    for (gpu::GPUModuleOp gpuModule : gpuModules)
      for (gpu::GPUFuncOp kernel : gpuModule.getOps<gpu::GPUFuncOp>()) {
        if (!kernel.isKernel()) {
          kernel.emitError("device functions are not emulated yet");
          return signalPassFailure();
        }
        FailureOr<EmulatedKernel> fn = emulateKernel(b, gpuModule, kernel);
        if (failed(fn))
          return signalPassFailure();
        if (library)
          buildLauncher(b, gpuModule, kernel, *fn);
        emulated[(gpuModule.getName() + "::" + kernel.getName()).str()] =
            std::move(*fn);
      }
    if (library) {
      // The kernels alone: the host functions (and what only they use) go.
      llvm::SmallPtrSet<Operation *, 16> keep;
      for (auto &entry : emulated)
        for (func::FuncOp fn : entry.second.stretches)
          keep.insert(fn);
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
