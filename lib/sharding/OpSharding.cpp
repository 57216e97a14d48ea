//===- OpSharding.cpp - What one op becomes on a mesh ---------------------===//
//
// From an op's sharding rule and the shardings its operands arrive with:
// the factors it keeps whole, each factor's mesh axes, the shardings its
// operands are resharded to and its results come out with, and its local
// attributes. telar-partition, the microbatch program and the planner (the
// cost model, the search) all call these, so what is priced is what is
// emitted.
//
//===----------------------------------------------------------------------===//

#include "telar/sharding/OpSharding.h"
#include "telar/dialects/Telar/TelarOps.h"

#include "llvm/Support/raw_ostream.h"

#include <algorithm>

using namespace mlir;
using namespace mlir::telar;
using telar_sharding::Mesh;
using telar_sharding::ReductionKind;
using telar_sharding::Sharding;

std::optional<ReductionKind> mlir::telar::getPartialKind(FactorKind kind) {
  switch (kind) {
  case FactorKind::Sum:
  case FactorKind::Mean: // Partial means are scaled into partial sums.
    return ReductionKind::Sum;
  case FactorKind::Max:
    return ReductionKind::Max;
  case FactorKind::Min:
    return ReductionKind::Min;
  default:
    return std::nullopt;
  }
}

/// The factor kind a pending reduction of `kind` is (the bit it has in a
/// rule's partial kinds).
static FactorKind toFactorKind(ReductionKind kind) {
  switch (kind) {
  case ReductionKind::Sum:
    return FactorKind::Sum;
  case ReductionKind::Max:
    return FactorKind::Max;
  case ReductionKind::Min:
    return FactorKind::Min;
  case ReductionKind::Prod:
    return FactorKind::Prod;
  }
  llvm_unreachable("unknown reduction kind");
}

static std::string format(const Sharding &sharding, const Mesh &mesh) {
  return telar_sharding::formatSharding(sharding, mesh);
}

static std::string formatAxes(ArrayRef<int64_t> axes, const Mesh &mesh) {
  std::string s = "[";
  for (auto [i, a] : llvm::enumerate(axes)) {
    if (i)
      s += ", ";
    s += "\"" + mesh.axisNames[a] + "\"";
  }
  return s + "]";
}

static int64_t getSplit(ArrayRef<int64_t> axes, const Mesh &mesh) {
  int64_t split = 1;
  for (int64_t axis : axes)
    split *= mesh.axisSizes[axis];
  return split;
}

SmallVector<bool> mlir::telar::getWholeFactors(ShardingRuleAttr rule) {
  SmallVector<bool> whole;
  for (int64_t f = 0, e = rule.getNumFactors(); f < e; ++f)
    whole.push_back(rule.isWholeFactor(f));
  return whole;
}

bool mlir::telar::acceptsPartialOperands(ShardingRuleAttr rule,
                                         ArrayRef<Sharding> operands) {
  if (!rule.acceptsPartialOperands() ||
      operands.size() != rule.getOperandMappings().size())
    return false;
  // Every pending reduction of `s` of a kind operand `i` may carry.
  auto kindsFit = [&](unsigned i, const Sharding &s) {
    PartialKindSet kinds = rule.getPartialKindsOf(i);
    return llvm::all_of(s.partial, [&](auto &p) {
      return (kinds & getPartialKindBit(toFactorKind(p.second))) != 0;
    });
  };
  if (rule.getOnePartial()) {
    // Linear in each listed operand alone: exactly one of them partial.
    int64_t count = 0;
    for (auto [i, s] : llvm::enumerate(operands)) {
      if (!s.isPartial())
        continue;
      if (!kindsFit(i, s))
        return false;
      ++count;
    }
    return count == 1;
  }
  // Alike: every operand partial on the same axes with the same kinds (a
  // whole operand among partial ones would enter the reduction once per
  // term).
  for (const Sharding &s : operands)
    if (!s.isPartial() || s.partial != operands.front().partial)
      return false;
  return kindsFit(0, operands.front());
}

FailureOr<LocalAssignment>
mlir::telar::getLocalAssignment(Operation *op, ArrayRef<Sharding> wanted,
                                const Mesh &mesh, std::string &error) {
  llvm::raw_string_ostream os(error);
  auto rule_ = dyn_cast<ShardingRuleOpInterface>(op);
  if (!rule_) {
    os << "'" << op->getName() << "' has no sharding rule";
    return failure();
  }
  ShardingRuleAttr rule = rule_.getShardingRule();
  int64_t numFactors = rule.getNumFactors();
  ArrayRef<int64_t> sizes = rule.getFactorSizes();
  if (wanted.size() != rule.getOperandMappings().size()) {
    os << "has " << rule.getOperandMappings().size()
       << " operands in its sharding rule but " << wanted.size()
       << " operand shardings";
    return failure();
  }
  SmallVector<bool> whole = getWholeFactors(rule);

  // Each factor's axes from the operand dims that hold it: greedily, major
  // to minor, an axis goes to the factor whose remaining size it divides;
  // the factors after one not split completely get none. Axes that do not
  // fit (a block that straddles factors) are gathered.
  LocalAssignment p;
  p.factorAxes.resize(numFactors);
  SmallVector<int> source(numFactors, -1); // The operand that set it.
  for (auto [i, mapping] : llvm::enumerate(rule.getOperandMappings())) {
    if (wanted[i].getRank() != int64_t(mapping.getRank())) {
      os << "operand " << i << " has a sharding of rank "
         << wanted[i].getRank() << ", its rule rank " << mapping.getRank();
      return failure();
    }
    for (auto [d, dim] : llvm::enumerate(mapping.getDims())) {
      if (dim.getBroadcast())
        continue;
      ArrayRef<int64_t> axes = wanted[i].dims[d];
      size_t next = 0;
      bool complete = true;
      for (int64_t f : dim.getFactors()) {
        std::vector<int64_t> assigned;
        if (complete) {
          int64_t remaining = sizes[f];
          while (next < axes.size() &&
                 remaining % mesh.axisSizes[axes[next]] == 0) {
            remaining /= mesh.axisSizes[axes[next]];
            assigned.push_back(axes[next++]);
          }
          complete = remaining == 1;
        }
        if (whole[f])
          continue;
        if (source[f] >= 0 && p.factorAxes[f] != assigned) {
          os << "inconsistent operand shardings: operand " << source[f]
             << " is " << format(wanted[source[f]], mesh) << " and operand "
             << i << " is " << format(wanted[i], mesh) << ", which split loop "
             << ShardingRuleAttr::getFactorName(f) << " of " << Attribute(rule)
             << " differently (" << formatAxes(p.factorAxes[f], mesh)
             << " and " << formatAxes(assigned, mesh) << ")";
          return failure();
        }
        source[f] = i;
        p.factorAxes[f] = assigned;
      }
    }
  }

  // A mesh axis splits one loop.
  SmallVector<int64_t> owner(mesh.getNumAxes(), -1);
  for (int64_t f = 0; f < numFactors; ++f)
    for (int64_t a : p.factorAxes[f]) {
      if (owner[a] >= 0) {
        os << "inconsistent operand shardings: mesh axis '"
           << mesh.axisNames[a] << "' splits both loop "
           << ShardingRuleAttr::getFactorName(owner[a]) << " and loop "
           << ShardingRuleAttr::getFactorName(f) << " of " << Attribute(rule);
        return failure();
      }
      owner[a] = f;
    }

  // In a product dim, a split minor factor under a major one not split
  // completely is no block of the dim: such factors stay whole.
  auto allTensors = llvm::concat<const TensorMappingAttr>(
      rule.getOperandMappings(), rule.getResultMappings());
  bool changed = true;
  while (changed) {
    changed = false;
    for (TensorMappingAttr tensor : allTensors)
      for (DimMappingAttr dim : tensor.getDims()) {
        bool complete = true;
        for (int64_t f : dim.getFactors()) {
          if (!complete && !p.factorAxes[f].empty()) {
            p.factorAxes[f].clear();
            changed = true;
          }
          complete = complete && getSplit(p.factorAxes[f], mesh) == sizes[f];
        }
      }
  }

  // Partial operands.
  std::vector<std::pair<int64_t, ReductionKind>> carried;
  for (auto [i, s] : llvm::enumerate(wanted)) {
    if (!s.isPartial())
      continue;
    if (!acceptsPartialOperands(rule, wanted)) {
      os << "operand " << i << " is partial (" << format(s, mesh)
         << "), which '" << op->getName() << "' cannot take";
      return failure();
    }
    carried = s.partial;
  }

  auto shardingOf = [&](TensorMappingAttr tensor) {
    Sharding s = Sharding::getReplicated(tensor.getRank());
    for (auto [d, dim] : llvm::enumerate(tensor.getDims()))
      if (!dim.getBroadcast())
        for (int64_t f : dim.getFactors())
          llvm::append_range(s.dims[d], p.factorAxes[f]);
    return s;
  };
  for (auto [i, mapping] : llvm::enumerate(rule.getOperandMappings())) {
    Sharding s = shardingOf(mapping);
    s.partial = wanted[i].partial;
    p.operands.push_back(s);
  }
  std::vector<std::pair<int64_t, ReductionKind>> reduced = carried;
  for (int64_t f = 0; f < numFactors; ++f)
    if (isReduction(rule.getKind(f)))
      for (int64_t a : p.factorAxes[f])
        reduced.push_back({a, *getPartialKind(rule.getKind(f))});
  llvm::sort(reduced, [](auto &a, auto &b) { return a.first < b.first; });
  for (auto [j, mapping] : llvm::enumerate(rule.getResultMappings())) {
    Sharding s = shardingOf(mapping);
    s.partial = reduced;
    auto type = cast<RankedTensorType>(op->getResult(j).getType());
    std::vector<int64_t> shape(type.getShape().begin(), type.getShape().end());
    std::string message = telar_sharding::verifySharding(s, mesh, shape);
    if (!message.empty()) {
      os << "result " << j << " would be " << format(s, mesh) << ": "
         << message;
      return failure();
    }
    p.results.push_back(s);
  }
  return p;
}

int64_t mlir::telar::getElementBytes(Type type) {
  if (!type.isIntOrFloat())
    return 8; // index and other element types: a 64-bit word.
  return std::max<int64_t>(1, (type.getIntOrFloatBitWidth() + 7) / 8);
}

RankedTensorType mlir::telar::getLocalType(RankedTensorType globalType,
                                          const Sharding &sharding,
                                          const Mesh &mesh) {
  std::vector<int64_t> shape(globalType.getShape().begin(),
                             globalType.getShape().end());
  std::vector<int64_t> local =
      telar_sharding::getLocalShape(shape, sharding, mesh);
  return RankedTensorType::get(local, globalType.getElementType());
}

std::optional<std::vector<telar_sharding::ReshardStep>>
mlir::telar::getReshardSteps(RankedTensorType globalType, const Sharding &from,
                             const Sharding &to, const Mesh &mesh,
                             std::string &error) {
  if (from == to)
    return std::vector<telar_sharding::ReshardStep>();
  std::vector<int64_t> shape(globalType.getShape().begin(),
                             globalType.getShape().end());
  return telar_sharding::reshard(
      shape, getElementBytes(globalType.getElementType()), from, to, mesh,
      error);
}

FailureOr<std::vector<telar_sharding::ReshardStep>>
mlir::telar::getResultSliceSteps(Operation *op, unsigned j,
                                 const Sharding &produced,
                                 const Sharding &annotated, const Mesh &mesh) {
  auto type = cast<RankedTensorType>(op->getResult(j).getType());
  std::string error;
  auto steps = getReshardSteps(type, produced, annotated, mesh, error);
  auto communicates = [](const telar_sharding::ReshardStep &step) {
    return step.kind != telar_sharding::StepKind::LocalSlice;
  };
  if (steps && llvm::none_of(*steps, communicates))
    return std::move(*steps);
  InFlightDiagnostic diag =
      op->emitError("result ")
      << j << " is annotated "
      << telar_sharding::formatSharding(annotated, mesh)
      << ", but its operands give "
      << telar_sharding::formatSharding(produced, mesh) << ": ";
  if (!steps)
    diag << error;
  else
    diag << "that takes a "
         << telar_sharding::getStepKindName(
                llvm::find_if(*steps, communicates)->kind)
         << ", not only local slices";
  return failure();
}

//===----------------------------------------------------------------------===//
// Local attributes
//===----------------------------------------------------------------------===//

// The rules keep whole every axis whose elements move between blocks, so
// the attributes on those axes stay global and right; what is rewritten
// here are the attributes that hold sizes of axes a rule lets split.

LogicalResult mlir::telar::localizeAttributes(Operation *local,
                                              Operation *global,
                                              const LocalAssignment &a,
                                              const Mesh &mesh) {
  auto localResultType = [&](unsigned j) {
    return getLocalType(cast<RankedTensorType>(global->getResult(j).getType()),
                        a.results[j], mesh);
  };
  // Reshape's and expand's target shapes are the local result shape.
  if (isa<ReshapeOp, ExpandOp>(local)) {
    local->setAttr("shape", DenseI64ArrayAttr::get(
                                local->getContext(),
                                localResultType(0).getShape()));
    return success();
  }
  // Slice axes kept at full range (start 0, step 1: what the rule lets
  // split) get the local extent.
  if (auto op = dyn_cast<SliceOp>(local)) {
    auto in = cast<RankedTensorType>(op.getInput().getType());
    auto globalIn = cast<RankedTensorType>(global->getOperand(0).getType());
    auto globalOut = cast<RankedTensorType>(global->getResult(0).getType());
    SmallVector<int64_t> starts(op.getStarts()), ends(op.getEnds());
    for (auto [i, axis] : llvm::enumerate(op.getAxes())) {
      int64_t d = axis < 0 ? axis + in.getRank() : axis;
      if (in.getDimSize(d) == globalIn.getDimSize(d))
        continue; // Whole: the global bounds are the local ones.
      if (globalOut.getDimSize(d) != globalIn.getDimSize(d) ||
          op.getSteps()[i] != 1)
        return global->emitError("slices split axis ") << d;
      starts[i] = 0;
      ends[i] = in.getDimSize(d);
    }
    op.setStarts(starts);
    op.setEnds(ends);
    return success();
  }
  // Resize's explicit sizes are the local output shape.
  if (isa<ResizeOp>(local)) {
    auto sizes = local->getAttrOfType<DenseI64ArrayAttr>("sizes");
    if (sizes && !sizes.empty())
      local->setAttr("sizes", DenseI64ArrayAttr::get(
                                  local->getContext(),
                                  localResultType(0).getShape()));
    return success();
  }
  // A convolution's group factor is the major factor of its output
  // channels (pruned when there is one group): split, each rank runs its
  // share of the groups.
  if (isa<ConvOp, ConvTransposeOp>(local)) {
    auto group = local->getAttrOfType<IntegerAttr>("group");
    if (!group || group.getInt() <= 1)
      return success();
    ShardingRuleAttr rule =
        cast<ShardingRuleOpInterface>(global).getShardingRule();
    DimMappingAttr channels = rule.getResultMappings()[0].getDims()[1];
    if (channels.getFactors().empty())
      return success();
    int64_t g = channels.getFactors().front();
    if (rule.getFactorSizes()[g] != group.getInt())
      return success(); // Not the group factor (a fallback rule).
    int64_t split = getSplit(a.factorAxes[g], mesh);
    local->setAttr("group", IntegerAttr::get(group.getType(),
                                             group.getInt() / split));
    return success();
  }
  return success();
}
