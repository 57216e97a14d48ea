//===- ShardingRule.h - Per-op sharding rules -------------------*- C++ -*-===//
//
// A sharding rule states how an op's iteration space maps onto its operands
// and results, einsum-like: one iterator type per loop and one affine map per
// operand, then per result, from the loops to that tensor's dimensions.
//
// Conventions the planner relies on:
//  * a tensor dimension given by a single loop `d_i` is partitioned when that
//    loop is;
//  * a dimension given by a constant (`0`) is not indexed by any loop: it is
//    either broadcast (size 1) or must stay whole (replicated) on every device
//    (e.g. the gathered axis of `telar.gather`, the normalised axis of
//    `telar.softmax`);
//  * other expressions (`d0 * 4 + d1`, `d2 floordiv 16`, `d3 + d5` for
//    convolution windows) describe reshapes and windows: partitioning the
//    outermost loop of such an expression is a block partition of the
//    dimension; windows need halos.
//
//===----------------------------------------------------------------------===//
#ifndef TELAR_DIALECTS_TELAR_SHARDINGRULE_H
#define TELAR_DIALECTS_TELAR_SHARDINGRULE_H

#include "mlir/Dialect/Shard/IR/ShardOps.h"
#include "mlir/Dialect/Utils/StructuredOpsUtils.h"
#include "mlir/IR/AffineMap.h"
#include "llvm/ADT/SmallVector.h"

namespace mlir {
class Operation;
namespace telar {

struct ShardingRule {
  llvm::SmallVector<utils::IteratorType> iterators;
  /// One map per operand, then one per result; each has iterators.size() dims.
  llvm::SmallVector<AffineMap> maps;
  /// One kind per reduction loop, in loop order.
  llvm::SmallVector<shard::ReductionKind> reductionKinds;

  /// Prints the rule on one line, e.g.
  /// `([d0, d2], [d2, d1]) -> ([d0, d1]) {parallel, parallel, reduction:sum}`.
  void print(llvm::raw_ostream &os, unsigned numOperands) const;
};

/// Elementwise with numpy broadcasting: one parallel loop per result
/// dimension; operand dimensions of size 1 that broadcast map to 0. Also the
/// rule of ops whose result has the shape of every operand.
ShardingRule elementwiseRule(Operation *op);

/// A reduction over `axes` (all when empty) of the single operand.
ShardingRule reduceRule(Operation *op, llvm::ArrayRef<int64_t> axes,
                        bool keepDims, shard::ReductionKind kind);

/// Result-shaped parallel loops, except that the given axes (negative counts
/// from the back) of every operand and result of the same rank must stay
/// whole: softmax's axis, cumsum's axis, the normalised axes of layer_norm.
ShardingRule keepWholeRule(Operation *op, llvm::ArrayRef<int64_t> axes);

/// One parallel loop per result dimension; every operand dimension is
/// constant (replicated). Correct for any op, used where nothing better is
/// stated.
ShardingRule replicatedOperandsRule(Operation *op);

/// Like reduceRule, but the reduced axes stay whole instead of being
/// reduction loops: for reductions whose per-block results cannot be
/// combined (arg_max / arg_min).
ShardingRule keepReducedWholeRule(Operation *op, llvm::ArrayRef<int64_t> axes,
                                  bool keepDims);

/// Pooling windows over NC + spatial axes: loops (n, c, o_1..o_k, w_1..w_k),
/// input spatial index = o_i * stride_i + w_i * dilation_i - pad_begin_i.
ShardingRule windowRule(Operation *op, llvm::ArrayRef<int64_t> kernel,
                        llvm::ArrayRef<int64_t> strides,
                        llvm::ArrayRef<int64_t> pads,
                        llvm::ArrayRef<int64_t> dilations);

} // namespace telar
} // namespace mlir

#endif // TELAR_DIALECTS_TELAR_SHARDINGRULE_H
