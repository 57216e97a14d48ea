//===- LiveSet.h - Intermediate tensors alive at once -----------*- C++ -*-===//
//
// A memory analysis of a telar program: which intermediate tensors are
// alive while each op of the function's body runs, when the ops run one by
// one in program order. The artifact writer reports the largest such set
// next to the runtime's measured peak; a cost model can price memory per op
// with it.
//
//===----------------------------------------------------------------------===//
#ifndef TELAR_ANALYSIS_LIVESET_H
#define TELAR_ANALYSIS_LIVESET_H

#include "mlir/IR/Operation.h"
#include "mlir/Support/LLVM.h"
#include "llvm/ADT/DenseMap.h"

namespace mlir::telar {

/// Bytes of intermediate tensors alive at each op of a function's entry
/// block (telar tensors with static shapes). Inputs, weights (constants)
/// and returned values are the caller's buffers and are not counted;
/// reshapes, squeezes and unsqueezes are views: they add nothing, and a use
/// of a view keeps the viewed tensor alive. A tensor is alive from the op
/// that defines it through its last use (uses nested in an op's regions
/// count at that op). Fusion can go below the largest set; an unfused
/// execution needs at least that much.
///
/// An MLIR analysis: construct it on a FunctionOpInterface op, or get it
/// from a pass's analysis manager (`getAnalysis<LiveSetAnalysis>()`).
class LiveSetAnalysis {
public:
  explicit LiveSetAnalysis(Operation *function);

  /// The largest total size of the intermediates alive at one op.
  int64_t getLargestLiveSetBytes() const { return largest; }

  /// The first op of the entry block at which the largest set is alive,
  /// or null for an empty body.
  Operation *getPeakOp() const { return peakOp; }

  /// Bytes alive while `op`, an op of the entry block, runs: the tensors
  /// defined before it that are used at or after it, plus the ones it
  /// defines. 0 for an op outside the entry block.
  int64_t getLiveBytes(Operation *op) const { return liveAt.lookup(op); }

  /// Bytes `op` allocates for its results (0 for views and constants).
  int64_t getDefinedBytes(Operation *op) const { return defined.lookup(op); }

  /// The storage size of a statically shaped tensor type (sub-byte element
  /// types take a byte each), or 0 for any other type.
  static int64_t getTensorBytes(Type type);

private:
  llvm::DenseMap<Operation *, int64_t> liveAt;
  llvm::DenseMap<Operation *, int64_t> defined;
  int64_t largest = 0;
  Operation *peakOp = nullptr;
};

} // namespace mlir::telar

#endif // TELAR_ANALYSIS_LIVESET_H
