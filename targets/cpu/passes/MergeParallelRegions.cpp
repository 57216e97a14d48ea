//===- MergeParallelRegions.cpp - One OpenMP region for consecutive loops -===//
//
// convert-scf-to-openmp gives every parallel loop its own `omp.parallel`:
// a fork and a join of the thread team per loop. Consecutive parallel loops
// (a layer norm's reductions and scalings, an attention's softmax steps)
// can share one region instead: the worksharing loops keep their implicit
// barrier at the end, which orders them as the joins did, and a barrier
// costs a fraction of a fork-join. What lies between two regions must be
// movable: allocations and side-effect-free ops (views, index arithmetic)
// move before the first region, deallocations after the second; anything
// else (a runtime call, a sequential loop that touches memory) keeps the
// regions apart.
//
//===----------------------------------------------------------------------===//

#include "telar/targets/cpu/Passes.h"

#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/OpenMP/OpenMPDialect.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace mlir::telar {
#define GEN_PASS_DEF_TELARMERGEPARALLELREGIONS
#include "telar/targets/cpu/Passes.h.inc"
} // namespace mlir::telar

using namespace mlir;

namespace {

/// A region as convert-scf-to-openmp makes it: no clauses (threads, if,
/// private, reductions), one block without arguments, and every
/// worksharing loop in it ending with its barrier.
bool isPlainRegion(omp::ParallelOp op) {
  if (op->getNumOperands() != 0 || !op.getRegion().hasOneBlock() ||
      op.getRegion().front().getNumArguments() != 0)
    return false;
  bool plain = true;
  op.getRegion().walk([&](omp::WsloopOp loop) {
    if (loop.getNowait())
      plain = false;
  });
  return plain;
}

/// Whether `op`, between two regions, may move before the first one: it
/// allocates or has no side effects, and has no regions.
bool isHoistable(Operation *op) {
  if (op->getNumRegions() != 0)
    return false;
  if (isa<memref::AllocOp, memref::AllocaOp>(op))
    return true;
  return isMemoryEffectFree(op);
}

/// Merges `second` into `first` when the ops between them can move out of
/// the way; returns whether it did.
bool tryMerge(omp::ParallelOp first, ArrayRef<Operation *> between,
              omp::ParallelOp second) {
  SmallVector<Operation *> hoist, sink;
  llvm::SmallPtrSet<Operation *, 8> hoisted;
  for (Operation *op : between) {
    if (isa<memref::DeallocOp>(op)) {
      sink.push_back(op);
      continue;
    }
    if (!isHoistable(op))
      return false;
    // Its operands must be available before `first`: defined above it or
    // by ops that move there too.
    for (Value v : op->getOperands()) {
      Operation *def = v.getDefiningOp();
      if (def && def->getBlock() == first->getBlock() &&
          !def->isBeforeInBlock(first) && !hoisted.contains(def))
        return false;
    }
    hoist.push_back(op);
    hoisted.insert(op);
  }
  // A deallocated buffer must not be used by a hoisted op (it would not
  // be: the program frees it after its last use) nor by `second`.
  for (Operation *op : sink)
    for (Operation *user : op->getOperand(0).getUsers())
      if (second->isAncestor(user) || hoisted.contains(user))
        return false;

  for (Operation *op : hoist)
    op->moveBefore(first);
  Operation *after = second;
  for (Operation *op : sink) {
    op->moveAfter(after);
    after = op;
  }
  Block &into = first.getRegion().front();
  Block &from = second.getRegion().front();
  into.getOperations().splice(into.getTerminator()->getIterator(),
                              from.getOperations(), from.begin(),
                              from.getTerminator()->getIterator());
  second->erase();
  return true;
}

struct TelarMergeParallelRegions
    : public telar::impl::TelarMergeParallelRegionsBase<
          TelarMergeParallelRegions> {
  void runOnOperation() override {
    // Blocks outside parallel regions only: merging erases regions, and
    // with them the blocks inside.
    SmallVector<Block *> blocks;
    getOperation()->walk([&](Block *block) {
      if (!block->getParentOp()->getParentOfType<omp::ParallelOp>() &&
          !isa<omp::ParallelOp>(block->getParentOp()))
        blocks.push_back(block);
    });
    for (Block *block : blocks) {
      omp::ParallelOp open;
      SmallVector<Operation *> between;
      for (Operation &op : llvm::make_early_inc_range(*block)) {
        auto region = dyn_cast<omp::ParallelOp>(op);
        if (region && isPlainRegion(region)) {
          if (open && tryMerge(open, between, region)) {
            between.clear();
            continue;
          }
          open = region;
          between.clear();
          continue;
        }
        if (open)
          between.push_back(&op);
      }
    }
  }
};

} // namespace
