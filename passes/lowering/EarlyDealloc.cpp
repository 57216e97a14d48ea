//===- EarlyDealloc.cpp - Free buffers right after their last use ---------===//

#include "telar/passes/lowering/Passes.h"

namespace mlir::telar {
#define GEN_PASS_DEF_TELAREARLYDEALLOC
#include "telar/passes/lowering/Passes.h.inc"
} // namespace mlir::telar

using namespace mlir;

namespace {

/// The last op of `block` that uses `buffer` or a memref derived from it.
/// Any memref result of a user counts as an alias (views, casts, loops
/// yielding it), which is conservative but safe; so does everything
/// computed from its address (memref.extract_aligned_pointer_as_index).
Operation *lastUseInBlock(Value buffer, Block *block, Operation *dealloc) {
  Operation *last = nullptr;
  SmallVector<Value> worklist = {buffer};
  llvm::DenseSet<Value> seen = {buffer};
  llvm::DenseSet<Value> pointers; // values computed from its address
  while (!worklist.empty()) {
    Value v = worklist.pop_back_val();
    for (Operation *user : v.getUsers()) {
      if (user == dealloc)
        continue;
      Operation *top = block->findAncestorOpInBlock(*user);
      if (!top)
        return nullptr; // Used outside the block: leave the dealloc alone.
      if (!last || last->isBeforeInBlock(top))
        last = top;
      // A pointer taken from the buffer (for a runtime call, as
      // telar-lower-collectives passes buffers) keeps it alive as long as
      // anything computed from it is used.
      bool pointer = isa<memref::ExtractAlignedPointerAsIndexOp>(user) ||
                     pointers.contains(v);
      for (Value result : user->getResults()) {
        bool follow = isa<BaseMemRefType>(result.getType()) || pointer;
        if (follow && seen.insert(result).second) {
          if (pointer)
            pointers.insert(result);
          worklist.push_back(result);
        }
      }
    }
  }
  return last;
}

struct TelarEarlyDealloc
    : public telar::impl::TelarEarlyDeallocBase<TelarEarlyDealloc> {
  void runOnOperation() override {
    SmallVector<memref::DeallocOp> deallocs;
    getOperation().walk([&](memref::DeallocOp op) { deallocs.push_back(op); });
    for (memref::DeallocOp dealloc : deallocs) {
      Value buffer = dealloc.getMemref();
      // Only buffers allocated in the same block: their lifetime is known.
      Operation *alloc = buffer.getDefiningOp();
      Block *block = dealloc->getBlock();
      if (!alloc || !isa<memref::AllocOp>(alloc) || alloc->getBlock() != block)
        continue;
      Operation *last = lastUseInBlock(buffer, block, dealloc);
      if (!last)
        last = alloc;
      if (last->isBeforeInBlock(dealloc))
        dealloc->moveAfter(last);
    }
  }
};

} // namespace
