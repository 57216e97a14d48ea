//===- ShardingRule.cpp - Building and caching sharding rules -------------===//

#include "telar/dialects/Telar/ShardingRule.h"
#include "telar/dialects/Telar/ShapeInference.h"
#include "telar/dialects/Telar/TelarOps.h"

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Operation.h"

using namespace mlir;

namespace mlir::telar {

//===----------------------------------------------------------------------===//
// The cache
//===----------------------------------------------------------------------===//

ShardingRuleAttr
ShardingRuleCache::lookup(const std::vector<const void *> &key) {
  std::lock_guard<std::mutex> lock(mutex);
  auto it = rules.find(key);
  return it == rules.end() ? ShardingRuleAttr() : it->second;
}

void ShardingRuleCache::insert(std::vector<const void *> key,
                               ShardingRuleAttr rule) {
  std::lock_guard<std::mutex> lock(mutex);
  rules.emplace(std::move(key), rule);
}

size_t ShardingRuleCache::size() {
  std::lock_guard<std::mutex> lock(mutex);
  return rules.size();
}

ShardingRuleAttr getCachedShardingRule(Operation *op) {
  // The signature: everything a rule builder may read. Discardable
  // attributes (telar.name, ...) are left out, so ops that differ only in
  // those share one entry. Types and attributes are uniqued in the context,
  // so their pointers identify them.
  std::vector<const void *> key;
  key.push_back(op->getName().getAsOpaquePointer());
  // Inherent attributes are the properties; an op with inherent attributes
  // but no properties keeps them in its dictionary. (An op without inherent
  // attributes has neither: telar.matmul.)
  Attribute inherent = op->getPropertiesAsAttribute();
  if (!inherent && !op->getName().getAttributeNames().empty())
    inherent = op->getRawDictionaryAttrs();
  key.push_back(inherent.getAsOpaquePointer());
  key.push_back(reinterpret_cast<const void *>(
      static_cast<uintptr_t>(op->getNumOperands())));
  for (Type t : op->getOperandTypes())
    key.push_back(t.getAsOpaquePointer());
  for (Type t : op->getResultTypes())
    key.push_back(t.getAsOpaquePointer());
  ShardingRuleCache &cache =
      op->getContext()->getOrLoadDialect<TelarDialect>()->getShardingRuleCache();
  if (ShardingRuleAttr rule = cache.lookup(key))
    return rule;
  ShardingRuleAttr rule = cast<ShardingRuleOpInterface>(op).buildShardingRule();
  cache.insert(std::move(key), rule);
  return rule;
}

LogicalResult verifyShardingRule(Operation *op, ShardingRuleAttr rule) {
  return rule.verifyTypes(op->getOperandTypes(), op->getResultTypes(),
                          [op]() { return op->emitError(); });
}

//===----------------------------------------------------------------------===//
// ShardingRuleBuilder
//===----------------------------------------------------------------------===//

ShardingRuleBuilder::ShardingRuleBuilder(Operation *op)
    : ctx(op->getContext()), operands(op->getNumOperands()),
      results(op->getNumResults()) {}

int64_t ShardingRuleBuilder::addFactor(int64_t size, FactorKind kind) {
  sizes.push_back(size);
  kinds.push_back(kind);
  return sizes.size() - 1;
}

void ShardingRuleBuilder::setOperand(unsigned i, ArrayRef<Dim> dims) {
  operands[i] = SmallVector<Dim>(dims);
}

void ShardingRuleBuilder::setResult(unsigned i, ArrayRef<Dim> dims) {
  results[i] = SmallVector<Dim>(dims);
}

ShardingRuleBuilder::Dim ShardingRuleBuilder::whole(int64_t group,
                                                    int64_t size) {
  auto [it, inserted] = wholeFactors.try_emplace({group, size}, 0);
  if (inserted)
    it->second = addFactor(size, FactorKind::NeedReplication);
  return dim(it->second);
}

ShardingRuleAttr ShardingRuleBuilder::build() {
  // Size-1 factors add nothing to a product of several.
  auto prune = [&](SmallVectorImpl<std::optional<SmallVector<Dim>>> &tensors) {
    for (auto &tensor : tensors) {
      assert(tensor && "every operand and result needs its dimensions");
      for (Dim &d : *tensor)
        if (!d.broadcast && d.factors.size() > 1)
          llvm::erase_if(d.factors, [&](int64_t f) { return sizes[f] == 1; });
    }
  };
  prune(operands);
  prune(results);
  // A factor only broadcast against is used by no tensor and goes; the
  // others are numbered in order of first mention, operands then results,
  // so that names read left to right.
  SmallVector<bool> used(sizes.size(), false);
  for (auto *tensors : {&operands, &results})
    for (auto &tensor : *tensors)
      for (Dim &d : *tensor)
        if (!d.broadcast)
          for (int64_t f : d.factors)
            used[f] = true;
  SmallVector<int64_t> renumber(sizes.size(), -1);
  SmallVector<int64_t> newSizes;
  SmallVector<FactorKind> newKinds;
  for (auto *tensors : {&operands, &results})
    for (auto &tensor : *tensors)
      for (Dim &d : *tensor)
        for (int64_t f : d.factors)
          if (used[f] && renumber[f] < 0) {
            renumber[f] = newSizes.size();
            newSizes.push_back(sizes[f]);
            newKinds.push_back(kinds[f]);
          }
  auto convert = [&](ArrayRef<std::optional<SmallVector<Dim>>> tensors) {
    SmallVector<TensorMappingAttr> out;
    for (const auto &tensor : tensors) {
      SmallVector<DimMappingAttr> dims;
      for (const Dim &d : *tensor) {
        // A broadcast against a factor nothing else uses is a plain unit
        // dimension.
        if (d.broadcast && renumber[d.factors[0]] < 0) {
          dims.push_back(DimMappingAttr::get(ctx, {}, false));
          continue;
        }
        SmallVector<int64_t> factors;
        for (int64_t f : d.factors)
          factors.push_back(renumber[f]);
        dims.push_back(DimMappingAttr::get(ctx, factors, d.broadcast));
      }
      out.push_back(TensorMappingAttr::get(ctx, dims));
    }
    return out;
  };
  return ShardingRuleAttr::get(ctx, newSizes, newKinds, convert(operands),
                               convert(results), /*partialKinds=*/{},
                               /*onePartial=*/false);
}

//===----------------------------------------------------------------------===//
// Partial operands
//===----------------------------------------------------------------------===//

ShardingRuleAttr withPartialAlike(ShardingRuleAttr rule,
                                  PartialKindSet kinds) {
  SmallVector<PartialKindSet> perOperand(rule.getOperandMappings().size(),
                                         kinds);
  return rule.withPartialOperands(perOperand, /*one=*/false);
}

ShardingRuleAttr withOnePartial(ShardingRuleAttr rule, PartialKindSet kinds,
                                ArrayRef<unsigned> operands) {
  size_t n = rule.getOperandMappings().size();
  SmallVector<PartialKindSet> perOperand(n, operands.empty() ? kinds : 0);
  for (unsigned i : operands)
    perOperand[i] = kinds;
  return rule.withPartialOperands(perOperand, /*one=*/true);
}

//===----------------------------------------------------------------------===//
// Op families
//===----------------------------------------------------------------------===//

static RankedTensorType rankedType(Value v) {
  return cast<RankedTensorType>(v.getType());
}

using Dim = ShardingRuleBuilder::Dim;

/// One parallel factor per dimension of the first result, except those in
/// `whole`; every tensor aligned to the trailing dimensions.
static ShardingRuleAttr alignedRule(Operation *op, ArrayRef<bool> whole) {
  ShardingRuleBuilder b(op);
  ArrayRef<int64_t> shape = rankedType(op->getResult(0)).getShape();
  int64_t rank = shape.size();
  SmallVector<int64_t> factors;
  for (int64_t d = 0; d < rank; ++d)
    factors.push_back(whole[d] ? -1 : b.addFactor(shape[d]));
  // Groups of whole factors: one per result dimension; tensors whose
  // dimension does not line up get their own (keyed past the rank).
  int64_t ownGroup = rank;
  auto mapValue = [&](Value v) {
    SmallVector<Dim> dims;
    ArrayRef<int64_t> s = rankedType(v).getShape();
    int64_t r = s.size();
    for (int64_t i = 0; i < r; ++i) {
      int64_t rd = rank - r + i;
      if (rd < 0)
        dims.push_back(b.whole(ownGroup++, s[i]));
      else if (whole[rd])
        dims.push_back(b.whole(rd, s[i]));
      else if (s[i] == shape[rd])
        dims.push_back(b.dim(factors[rd]));
      else if (s[i] == 1)
        dims.push_back(b.broadcast(factors[rd]));
      else
        dims.push_back(b.whole(ownGroup++, s[i]));
    }
    return dims;
  };
  for (auto [i, v] : llvm::enumerate(op->getOperands()))
    b.setOperand(i, mapValue(v));
  for (auto [i, v] : llvm::enumerate(op->getResults()))
    b.setResult(i, mapValue(v));
  return b.build();
}

ShardingRuleAttr elementwiseRule(Operation *op) {
  int64_t rank = rankedType(op->getResult(0)).getRank();
  return alignedRule(op, SmallVector<bool>(rank, false));
}

ShardingRuleAttr keepWholeRule(Operation *op, ArrayRef<int64_t> axes) {
  int64_t rank = rankedType(op->getResult(0)).getRank();
  SmallVector<bool> whole(rank, false);
  for (int64_t axis : axes)
    if (auto a = normalizeAxis(axis, rank))
      whole[*a] = true;
  return alignedRule(op, whole);
}

ShardingRuleAttr reduceRule(Operation *op, ArrayRef<int64_t> axes,
                            bool keepDims, FactorKind kind) {
  // Partial means are scaled into partial sums, which integers do not do
  // exactly: their reduced axes stay whole.
  if (kind == FactorKind::Mean &&
      !isa<FloatType>(rankedType(op->getResult(0)).getElementType()))
    kind = FactorKind::NeedReplication;
  ShardingRuleBuilder b(op);
  ArrayRef<int64_t> shape = rankedType(op->getOperand(0)).getShape();
  int64_t rank = shape.size();
  SmallVector<bool> reduced(rank, axes.empty());
  for (int64_t axis : axes)
    if (auto a = normalizeAxis(axis, rank))
      reduced[*a] = true;
  SmallVector<Dim> in, out;
  for (int64_t i = 0; i < rank; ++i) {
    int64_t f = b.addFactor(shape[i], reduced[i] ? kind : FactorKind::Parallel);
    in.push_back(b.dim(f));
    if (!reduced[i])
      out.push_back(b.dim(f));
    else if (keepDims)
      out.push_back(b.unit());
  }
  b.setOperand(0, in);
  for (unsigned i = 1, e = op->getNumOperands(); i < e; ++i) {
    SmallVector<Dim> dims;
    for (int64_t d : rankedType(op->getOperand(i)).getShape())
      dims.push_back(b.whole(-static_cast<int64_t>(i) - 1, d));
    b.setOperand(i, dims);
  }
  for (unsigned i = 0, e = op->getNumResults(); i < e; ++i)
    b.setResult(i, out);
  return b.build();
}

ShardingRuleAttr replicatedOperandsRule(Operation *op) {
  ShardingRuleBuilder b(op);
  for (auto [i, v] : llvm::enumerate(op->getOperands())) {
    SmallVector<Dim> dims;
    for (int64_t d : rankedType(v).getShape())
      dims.push_back(b.dim(b.addFactor(d, FactorKind::NeedReplication)));
    b.setOperand(i, dims);
  }
  auto first = rankedType(op->getResult(0));
  SmallVector<Dim> firstDims;
  for (int64_t d : first.getShape())
    firstDims.push_back(b.dim(b.addFactor(d)));
  for (auto [i, v] : llvm::enumerate(op->getResults())) {
    if (rankedType(v).getShape() == first.getShape()) {
      b.setResult(i, firstDims);
      continue;
    }
    SmallVector<Dim> dims;
    for (int64_t d : rankedType(v).getShape())
      dims.push_back(b.dim(b.addFactor(d)));
    b.setResult(i, dims);
  }
  return b.build();
}

ShardingRuleAttr windowRule(Operation *op, ArrayRef<int64_t> kernel,
                            ArrayRef<int64_t> strides, ArrayRef<int64_t> pads,
                            ArrayRef<int64_t> dilations) {
  auto in = rankedType(op->getOperand(0));
  auto out = rankedType(op->getResult(0));
  int64_t spatial = kernel.size();
  if (in.getRank() != spatial + 2 || out.getRank() != spatial + 2 ||
      static_cast<int64_t>(strides.size()) != spatial ||
      static_cast<int64_t>(pads.size()) != 2 * spatial)
    return replicatedOperandsRule(op);
  ShardingRuleBuilder b(op);
  int64_t n = b.addFactor(in.getDimSize(0)), c = b.addFactor(in.getDimSize(1));
  SmallVector<Dim> inDims = {b.dim(n), b.dim(c)}, outDims = inDims;
  for (int64_t i = 0; i < spatial; ++i) {
    int64_t inSize = in.getDimSize(2 + i), outSize = out.getDimSize(2 + i);
    bool pointwise = kernel[i] == 1 && strides[i] == 1 && pads[i] == 0 &&
                     pads[spatial + i] == 0 && inSize == outSize;
    if (pointwise) {
      int64_t f = b.addFactor(inSize);
      inDims.push_back(b.dim(f));
      outDims.push_back(b.dim(f));
      continue;
    }
    inDims.push_back(b.dim(b.addFactor(inSize, FactorKind::NeedReplication)));
    outDims.push_back(b.dim(b.addFactor(outSize)));
  }
  b.setOperand(0, inDims);
  b.setResult(0, outDims);
  return b.build();
}

} // namespace mlir::telar
