//===- OpPartition.cpp - The per-op derivation of telar-partition ---------===//
//
// From an op's sharding rule and the shardings its operands arrive with:
// the factors it keeps whole, each factor's mesh axes, the shardings its
// operands are resharded to and its results come out with. telar-partition
// (Partition.cpp) and the cost model (lib/planner) both call these, so what
// is priced is what is emitted.
//
//===----------------------------------------------------------------------===//

#include "telar/passes/partition/OpPartition.h"
#include "PartitionInternal.h"

#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace mlir::telar;
using namespace mlir::telar::partition;

const PartitionerRegistry &partition::getPartitionerRegistry() {
  // Built once (thread-safe static initialisation), read-only afterwards.
  static const PartitionerRegistry registry = [] {
    PartitionerRegistry r;
    addElementwisePartitioners(r);
    addContractionPartitioners(r);
    addReductionPartitioners(r);
    addDataMovementPartitioners(r);
    addNNPartitioners(r);
    return r;
  }();
  return registry;
}

std::optional<ReductionKind> partition::getPartialKind(FactorKind kind) {
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

SmallVector<bool> partition::getWholeFactors(Operation *op,
                                             ShardingRuleAttr rule) {
  const OpPartitioner *family = getPartitionerRegistry().lookup(op);
  int64_t numFactors = rule.getNumFactors();
  // Factors that stay whole whatever the operands say: the rule's
  // need-replication factors, products (no partial kind for them), those
  // the family names, and all of an op without a family.
  SmallVector<bool> whole(numFactors, false);
  for (int64_t f = 0; f < numFactors; ++f) {
    FactorKind kind = rule.getKind(f);
    whole[f] = !family || kind == FactorKind::NeedReplication ||
               (isReduction(kind) && !getPartialKind(kind));
  }
  if (family && family->wholeFactors) {
    SmallVector<int64_t> extra;
    family->wholeFactors(op, rule, extra);
    for (int64_t f : extra)
      whole[f] = true;
  }
  return whole;
}

FailureOr<LocalAssignment>
partition::getLocalAssignment(Operation *op, ArrayRef<Sharding> wanted,
                              const Mesh &mesh, std::string &error) {
  llvm::raw_string_ostream os(error);
  auto rule_ = dyn_cast<ShardingRuleOpInterface>(op);
  if (!rule_) {
    os << "'" << op->getName() << "' has no sharding rule";
    return failure();
  }
  ShardingRuleAttr rule = rule_.getShardingRule();
  const OpPartitioner *family = getPartitionerRegistry().lookup(op);
  int64_t numFactors = rule.getNumFactors();
  ArrayRef<int64_t> sizes = rule.getFactorSizes();
  if (wanted.size() != rule.getOperandMappings().size()) {
    os << "has " << rule.getOperandMappings().size()
       << " operands in its sharding rule but " << wanted.size()
       << " operand shardings";
    return failure();
  }
  SmallVector<bool> whole = getWholeFactors(op, rule);

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
    if (!family || !family->acceptsPartial ||
        !family->acceptsPartial(op, wanted)) {
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

int64_t partition::getElementBytes(Type type) {
  if (!type.isIntOrFloat())
    return 8; // index and other element types: a 64-bit word.
  return std::max<int64_t>(1, (type.getIntOrFloatBitWidth() + 7) / 8);
}

std::optional<std::vector<telar_sharding::ReshardStep>>
partition::getReshardSteps(RankedTensorType globalType, const Sharding &from,
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
partition::getResultSliceSteps(Operation *op, unsigned j,
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
