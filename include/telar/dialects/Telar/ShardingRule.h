//===- ShardingRule.h - Building and caching sharding rules -----*- C++ -*-===//
//
// An op's sharding rule is a #telar.sharding_rule attribute (TelarAttrs.td):
// factors with sizes and kinds, and the factors of every operand and result
// dimension. This header has the builder the per-op rules are written with,
// one builder per op family, and the cache behind
// ShardingRuleOpInterface::getShardingRule.
//
//===----------------------------------------------------------------------===//
#ifndef TELAR_DIALECTS_TELAR_SHARDINGRULE_H
#define TELAR_DIALECTS_TELAR_SHARDINGRULE_H

#include "telar/dialects/Telar/TelarAttrs.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"

#include <map>
#include <mutex>
#include <vector>

namespace mlir {
class Operation;
namespace telar {

/// The rule of `op` (a ShardingRuleOpInterface op), built on the first
/// request for ops of its signature (name, inherent attributes, operand and
/// result types), then served from the dialect's cache. The rule is a pure
/// function of that signature, so the cache is never stale: an op whose
/// types or attributes change has a new signature.
ShardingRuleAttr getCachedShardingRule(Operation *op);

/// Checks `op`'s rule against its operand and result types.
LogicalResult verifyShardingRule(Operation *op, ShardingRuleAttr rule);

/// Rules by op signature, one per context (a member of the dialect).
class ShardingRuleCache {
public:
  ShardingRuleAttr lookup(const std::vector<const void *> &key);
  void insert(std::vector<const void *> key, ShardingRuleAttr rule);
  /// The number of rules built so far.
  size_t size();

private:
  std::mutex mutex;
  std::map<std::vector<const void *>, ShardingRuleAttr> rules;
};

/// Builds a rule factor by factor, tensor by tensor:
///
///   ShardingRuleBuilder b(op);
///   int64_t i = b.addFactor(4), j = b.addFactor(8),
///           k = b.addFactor(16, FactorKind::Sum);
///   b.setOperand(0, {b.dim(i), b.dim(k)});
///   b.setOperand(1, {b.dim(k), b.dim(j)});
///   b.setResult(0, {b.dim(i), b.dim(j)});
///   return b.build();
///
/// build() drops size-1 factors from products of several factors and then
/// the factors no tensor uses, and numbers the rest in order of first use
/// (operands, then results).
class ShardingRuleBuilder {
public:
  struct Dim {
    llvm::SmallVector<int64_t, 2> factors;
    bool broadcast = false;
  };

  explicit ShardingRuleBuilder(Operation *op);

  int64_t addFactor(int64_t size, FactorKind kind = FactorKind::Parallel);
  int64_t getSize(int64_t factor) const { return sizes[factor]; }
  void setKind(int64_t factor, FactorKind kind) { kinds[factor] = kind; }

  /// A dimension that is the factor.
  static Dim dim(int64_t factor) { return Dim{{factor}, false}; }
  /// A dimension that is the product of the factors, major to minor; none
  /// for a size-1 dimension no factor indexes.
  static Dim product(llvm::ArrayRef<int64_t> factors) {
    return Dim{llvm::SmallVector<int64_t, 2>(factors), false};
  }
  static Dim unit() { return Dim{{}, false}; }
  /// A size-1 dimension broadcast against the factor.
  static Dim broadcast(int64_t factor) { return Dim{{factor}, true}; }

  void setOperand(unsigned i, llvm::ArrayRef<Dim> dims);
  void setResult(unsigned i, llvm::ArrayRef<Dim> dims);

  /// A dimension that is a need-replication factor of `size`, the same
  /// factor for every dimension asked for with the same `group` and size:
  /// an axis that stays whole (softmax's axis in its input and result).
  Dim whole(int64_t group, int64_t size);

  ShardingRuleAttr build();

private:
  MLIRContext *ctx;
  llvm::SmallVector<int64_t> sizes;
  llvm::SmallVector<FactorKind> kinds;
  llvm::SmallVector<std::optional<llvm::SmallVector<Dim>>> operands, results;
  std::map<std::pair<int64_t, int64_t>, int64_t> wholeFactors;
};

//===----------------------------------------------------------------------===//
// Partial operands
//===----------------------------------------------------------------------===//

/// The partial kind of sums alone.
constexpr PartialKindSet kPartialSum = getPartialKindBit(FactorKind::Sum);

/// `rule` for an op that takes partial operands all alike (`partial_alike`):
/// every operand partial on the same axes with the same kinds, of `kinds`.
ShardingRuleAttr withPartialAlike(ShardingRuleAttr rule, PartialKindSet kinds);

/// `rule` for an op linear in each of `operands` (all when empty) alone
/// (`partial_one`): exactly one of them partial, of `kinds`.
ShardingRuleAttr withOnePartial(ShardingRuleAttr rule, PartialKindSet kinds,
                                llvm::ArrayRef<unsigned> operands = {});

//===----------------------------------------------------------------------===//
// Rules of op families
//===----------------------------------------------------------------------===//

/// Elementwise with numpy broadcasting: one parallel factor per dimension
/// of the first result; every tensor aligns to its trailing dimensions, and
/// a size-1 dimension against a larger one is a broadcast. Also the rule of
/// ops whose results have the shape of every operand.
ShardingRuleAttr elementwiseRule(Operation *op);

/// Like elementwiseRule, except that the given axes (negative counts from
/// the back) of the first result, and the aligned dimensions of every
/// tensor, must stay whole: one need-replication factor per distinct size
/// on such an axis (concat's inputs and result differ there).
ShardingRuleAttr keepWholeRule(Operation *op, llvm::ArrayRef<int64_t> axes);

/// A reduction over `axes` (all when empty) of the first operand, whose
/// reduced factors have kind `kind`: a reduction kind when partial results
/// combine, NeedReplication when they do not (arg_max, reduce_l2, and the
/// means of integers, which do not scale exactly). Reduced axes kept as
/// size 1 (`keepDims`) are unit dimensions of the results. Other operands
/// stay whole.
ShardingRuleAttr reduceRule(Operation *op, llvm::ArrayRef<int64_t> axes,
                            bool keepDims, FactorKind kind);

/// The rule that is right for any op: every operand dimension is a
/// need-replication factor of its own, every result dimension a parallel
/// factor (results of the first result's shape share its factors). Each
/// device computes its block of the results from whole operands.
ShardingRuleAttr replicatedOperandsRule(Operation *op);

/// Pools over N x C x spatial: N and C are parallel; the input's spatial
/// dimensions are need-replication factors and the output's are parallel
/// factors of their own (a window reads a halo, which the rule does not
/// claim a split gives for free), except for windows of size 1, stride 1
/// and no padding, where input and output share the factor.
ShardingRuleAttr windowRule(Operation *op, llvm::ArrayRef<int64_t> kernel,
                            llvm::ArrayRef<int64_t> strides,
                            llvm::ArrayRef<int64_t> pads,
                            llvm::ArrayRef<int64_t> dilations);

} // namespace telar
} // namespace mlir

#endif // TELAR_DIALECTS_TELAR_SHARDINGRULE_H
