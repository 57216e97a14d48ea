//===- Completion.cpp - Complete a plan by propagation --------------------===//
//
// Factor-based propagation after Shardy: a tensor's sharding gives its
// dimensions' mesh axes to the factors of the op's #telar.sharding_rule; the
// op's factor assignment gives every operand the sharding it wants and
// every result the sharding it is produced with (partial along the axes of
// split reduction factors). Sweeps forward (results from operands) and
// backward (operands from results and uses) in program order until nothing
// changes; docs/Plan.md states the rules, including the conflict rule.
//
//===----------------------------------------------------------------------===//

#include "telar/sharding/Completion.h"
#include "telar/dialects/Telar/TelarDialect.h"
#include "telar/dialects/Telar/TelarOps.h"
#include "telar/sharding/OpSharding.h"
#include "telar/sharding/core/Reshard.h"

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Diagnostics.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"

#include <algorithm>
#include <limits>
#include <set>

using namespace mlir;
using namespace mlir::telar;
using telar_sharding::Mesh;
using telar_sharding::ReductionKind;
using telar_sharding::Sharding;

namespace {

using Axes = std::vector<int64_t>;
constexpr int64_t kInfeasible = std::numeric_limits<int64_t>::max() / 4;

std::string quote(StringRef s) { return "'" + s.str() + "'"; }

/// Whether a factor of this kind may take mesh axes. A partial product
/// cannot be annotated (telar.partial only has sum, max and min): product
/// reductions stay whole, like need-replication factors.
bool isSplittable(FactorKind kind) {
  return kind == FactorKind::Parallel || getPartialKind(kind).has_value();
}

Sharding resolved(Sharding s) {
  s.partial.clear();
  return s;
}

int64_t axesSize(const Mesh &mesh, const Axes &axes) {
  int64_t n = 1;
  for (int64_t a : axes)
    n *= mesh.axisSizes[a];
  return n;
}

/// The description of a sharding in diagnostics, with axis names.
std::string describe(const Sharding &s, const Mesh &mesh) {
  return telar_sharding::formatSharding(s, mesh);
}

/// Bytes per element of a value of shaped type `type`.
int64_t getValueElementBytes(Type type) {
  return getElementBytes(cast<ShapedType>(type).getElementType());
}

/// An op's factor assignment and the shardings that follow from it.
struct Assignment {
  std::vector<Axes> factorAxes;
  /// What each operand is wanted with (never partial).
  std::vector<Sharding> operands;
  /// What each result is produced with.
  std::vector<Sharding> results;
};

/// Reads and applies one op's sharding rule.
class RuleView {
public:
  RuleView(ShardingRuleAttr rule, const Mesh &mesh) : rule(rule), mesh(mesh) {}

  int64_t numFactors() const { return rule.getNumFactors(); }
  int64_t size(int64_t f) const { return rule.getFactorSizes()[f]; }
  FactorKind kind(int64_t f) const { return rule.getKind(f); }
  unsigned numOperands() const { return rule.getOperandMappings().size(); }
  unsigned numTensors() const {
    return numOperands() + rule.getResultMappings().size();
  }
  /// Tensors are numbered operands first, then results.
  TensorMappingAttr mapping(unsigned t) const {
    return t < numOperands() ? rule.getOperandMappings()[t]
                             : rule.getResultMappings()[t - numOperands()];
  }
  bool isResult(unsigned t) const { return t >= numOperands(); }

  /// The factors' axes that `sharding` of tensor `t` gives, one entry per
  /// factor it determines (empty axes included). A dimension whose axes are
  /// no block-valid assignment to its factors determines none: axes go to
  /// the major-most factor until its size is used up, a minor factor takes
  /// axes only when all factors major to it are fully split, and factors
  /// that must stay whole take none.
  std::map<int64_t, Axes> extract(unsigned t, const Sharding &sharding) const {
    std::map<int64_t, Axes> out;
    TensorMappingAttr m = mapping(t);
    if (int64_t(m.getRank()) != sharding.getRank())
      return out;
    for (int64_t d = 0; d < m.getRank(); ++d) {
      DimMappingAttr dim = m.getDims()[d];
      ArrayRef<int64_t> factors = dim.getFactors();
      if (dim.getBroadcast() || factors.empty())
        continue;
      std::map<int64_t, Axes> local;
      for (int64_t f : factors)
        local[f];
      size_t i = 0;
      int64_t remaining = size(factors[0]);
      bool valid = true;
      for (int64_t axis : sharding.dims[d]) {
        int64_t n = mesh.axisSizes[axis];
        while (i < factors.size() && remaining == 1 && n > 1) {
          if (++i < factors.size())
            remaining = size(factors[i]);
        }
        if (i >= factors.size() || !isSplittable(kind(factors[i])) ||
            remaining % n != 0) {
          valid = false;
          break;
        }
        local[factors[i]].push_back(axis);
        remaining /= n;
      }
      if (valid)
        out.insert(local.begin(), local.end());
    }
    // Partial axes of a result belong to its split reduction factors: each
    // goes to the first reduction factor of its kind that the result does
    // not hold and whose size it still divides. A known result determines
    // all such factors (an axis it does not name partial is no factor's).
    if (isResult(t)) {
      std::set<int64_t> held = heldFactors(t);
      std::map<int64_t, int64_t> remaining;
      for (int64_t f = 0; f < numFactors(); ++f)
        if (isReduction(kind(f)) && !held.count(f)) {
          out[f];
          remaining[f] = size(f);
        }
      for (auto [axis, reduction] : sharding.partial) {
        for (auto &[f, rest] : remaining) {
          int64_t n = mesh.axisSizes[axis];
          if (getPartialKind(kind(f)) == reduction && rest % n == 0) {
            out[f].push_back(axis);
            rest /= n;
            break;
          }
        }
      }
    }
    return out;
  }

  std::set<int64_t> heldFactors(unsigned t) const {
    std::set<int64_t> held;
    for (DimMappingAttr dim : mapping(t).getDims())
      for (int64_t f : dim.getFactors())
        held.insert(f);
    return held;
  }

  /// The sharding of tensor `t` under `factorAxes`; for a result, partial
  /// along the axes of the reduction factors it does not hold. Sets
  /// `invalid` to a factor whose axes the tensor cannot carry (a minor
  /// factor split while a major one is not fully split, or a factor in two
  /// dimensions of the tensor), else leaves it.
  Sharding derive(unsigned t, const std::vector<Axes> &factorAxes,
                  int64_t &invalid) const {
    Sharding s;
    TensorMappingAttr m = mapping(t);
    std::set<int64_t> seen;
    for (DimMappingAttr dim : m.getDims()) {
      Axes axes;
      bool majorWhole = true; // every factor so far fully split
      for (int64_t f : dim.getFactors()) {
        const Axes &fa = factorAxes[f];
        if (!dim.getBroadcast() && !fa.empty()) {
          if (!majorWhole || !seen.insert(f).second) {
            invalid = f;
            continue;
          }
          axes.insert(axes.end(), fa.begin(), fa.end());
        }
        if (axesSize(mesh, fa) != size(f))
          majorWhole = false;
      }
      s.dims.push_back(dim.getBroadcast() ? Axes() : axes);
    }
    if (isResult(t)) {
      std::set<int64_t> held = heldFactors(t);
      for (int64_t f = 0; f < numFactors(); ++f) {
        std::optional<ReductionKind> k = getPartialKind(kind(f));
        if (!k || held.count(f))
          continue;
        for (int64_t axis : factorAxes[f])
          s.partial.push_back({axis, *k});
      }
      std::sort(s.partial.begin(), s.partial.end());
    }
    return s;
  }

private:
  ShardingRuleAttr rule;
  const Mesh &mesh;
};

/// One tensor of an op as the assignment sees it.
struct TensorState {
  const Sharding *known = nullptr; // null: unknown
  bool fixed = false;              // named by the plan
  std::vector<int64_t> shape;
  int64_t elementBytes = 4;
};

class Completer {
public:
  Completer(func::FuncOp main, const telar_sharding::Plan &plan)
      : main(main), plan(plan), mesh(plan.mesh) {}

  FailureOr<CompletedPlan> run();

private:
  func::FuncOp main;
  const telar_sharding::Plan &plan;
  const Mesh &mesh;

  std::vector<Value> values;
  llvm::DenseMap<Value, unsigned> indexOf;
  std::vector<std::optional<Sharding>> known;
  std::vector<bool> fixed;
  std::vector<Operation *> ops;
  std::map<std::string, Value> names;

  void collect();
  LogicalResult bind();
  void propagate();
  LogicalResult materialize(CompletedPlan &out);

  std::vector<int64_t> shapeOf(Value v) const {
    auto t = cast<RankedTensorType>(v.getType());
    return std::vector<int64_t>(t.getShape().begin(), t.getShape().end());
  }
  bool isTensor(Value v) const { return isa<RankedTensorType>(v.getType()); }
  std::string nameOf(Value v) const {
    for (const auto &[name, value] : names)
      if (value == v)
        return name;
    return "";
  }
  /// "'y'" or, for a value without a name, "result 0 of telar.add".
  std::string describeValue(Value v) const {
    std::string name = nameOf(v);
    if (!name.empty())
      return quote(name);
    if (auto r = dyn_cast<OpResult>(v))
      return "result " + std::to_string(r.getResultNumber()) + " of " +
             r.getOwner()->getName().getStringRef().str();
    return "argument " +
           std::to_string(cast<BlockArgument>(v).getArgNumber());
  }

  int64_t reshardBytes(const std::vector<int64_t> &shape, int64_t elementBytes,
                       const Sharding &from, const Sharding &to) const {
    if (from == to)
      return 0;
    std::string error;
    auto steps =
        telar_sharding::reshard(shape, elementBytes, from, to, mesh, error);
    if (!steps)
      return kInfeasible;
    return telar_sharding::getBytesSent(*steps);
  }

  std::vector<TensorState> tensorStates(Operation *op) const;
  Assignment assign(const RuleView &rule,
                    const std::vector<TensorState> &tensors) const;
  int64_t cost(const RuleView &rule, const std::vector<TensorState> &tensors,
               const std::vector<Axes> &factorAxes) const;
  Assignment finish(const RuleView &rule, std::vector<Axes> factorAxes,
                    const std::vector<int64_t> &priority) const;
  /// The sharding among `proposals` (wanted by uses) that costs the
  /// fewest bytes to reshard to all of them.
  Sharding choose(Value v, const std::vector<Sharding> &proposals) const;
};

void Completer::collect() {
  Block &entry = main.getBody().front();
  for (BlockArgument arg : entry.getArguments()) {
    if (!isTensor(arg))
      continue;
    indexOf[arg] = values.size();
    values.push_back(arg);
  }
  for (Operation &op : entry) {
    ops.push_back(&op);
    for (OpResult r : op.getResults()) {
      if (!isTensor(r))
        continue;
      indexOf[r] = values.size();
      values.push_back(r);
    }
  }
  names = getValueNames(main);
  known.assign(values.size(), std::nullopt);
  fixed.assign(values.size(), false);
}

LogicalResult Completer::bind() {
  for (const auto &[name, sharding] : plan.shardings) {
    auto it = names.find(name);
    if (it == names.end()) {
      // The closest names, by edit distance.
      std::vector<std::pair<unsigned, std::string>> close;
      unsigned limit = std::max<unsigned>(2, name.size() / 3);
      for (const auto &kv : names) {
        unsigned d = StringRef(kv.first).edit_distance(name, true, limit);
        if (d <= limit)
          close.push_back({d, kv.first});
      }
      std::sort(close.begin(), close.end());
      auto diag = emitError(main.getLoc())
                  << "the plan names an unknown value " << quote(name);
      if (close.empty()) {
        diag << " (no value of the graph has a close name)";
      } else {
        diag << "; the closest names are";
        for (size_t i = 0; i < close.size() && i < 3; ++i)
          diag << (i ? ", " : " ") << quote(close[i].second);
      }
      diag.attachNote() << "values folded away at import (constant shape "
                           "computations) and aliases of other values "
                           "(Identity outputs) have no value in the IR and "
                           "cannot be named";
      return failure();
    }
    Value v = it->second;
    auto type = cast<RankedTensorType>(v.getType());
    if (sharding.getRank() != type.getRank())
      return emitError(v.getLoc())
             << "value " << quote(name) << ": the sharding has "
             << sharding.getRank() << " dimensions, but the value has "
             << type.getRank() << " (" << type << ")";
    std::string message =
        telar_sharding::verifySharding(sharding, mesh, shapeOf(v));
    if (!message.empty())
      return emitError(v.getLoc()) << "value " << quote(name) << ": "
                                   << message;
    // A graph output may be named partial: that is how its op produces it,
    // and it is resolved for the return (the completed plan of a split
    // reduction feeding an output names it so, and must read back).
    if (sharding.isPartial() && isa<BlockArgument>(v))
      return emitError(v.getLoc()) << "value " << quote(name)
                                   << " is a graph input and cannot be partial";
    unsigned i = indexOf.lookup(v);
    known[i] = sharding;
    fixed[i] = true;
  }
  return success();
}

std::vector<TensorState> Completer::tensorStates(Operation *op) const {
  std::vector<TensorState> out;
  auto add = [&](Value v) {
    TensorState t;
    auto it = indexOf.find(v);
    if (it != indexOf.end()) {
      if (known[it->second])
        t.known = &*known[it->second];
      t.fixed = fixed[it->second];
      t.shape = shapeOf(v);
      t.elementBytes = getValueElementBytes(v.getType());
    }
    out.push_back(t);
  };
  for (Value v : op->getOperands())
    add(v);
  for (Value v : op->getResults())
    add(v);
  return out;
}

int64_t Completer::cost(const RuleView &rule,
                        const std::vector<TensorState> &tensors,
                        const std::vector<Axes> &factorAxes) const {
  int64_t total = 0;
  for (unsigned t = 0; t < tensors.size(); ++t) {
    if (!tensors[t].known)
      continue;
    int64_t invalid = -1;
    Sharding derived = rule.derive(t, factorAxes, invalid);
    if (invalid >= 0)
      return kInfeasible;
    int64_t bytes =
        rule.isResult(t)
            ? reshardBytes(tensors[t].shape, tensors[t].elementBytes, derived,
                           *tensors[t].known)
            : reshardBytes(tensors[t].shape, tensors[t].elementBytes,
                           resolved(*tensors[t].known), derived);
    total = std::min(kInfeasible, total + bytes);
  }
  return total;
}

Assignment Completer::finish(const RuleView &rule,
                             std::vector<Axes> factorAxes,
                             const std::vector<int64_t> &priority) const {
  // A mesh axis serves one factor per op: in priority order, a factor keeps
  // its axes up to the first one an earlier factor took.
  std::set<int64_t> used;
  for (int64_t f : priority) {
    Axes &axes = factorAxes[f];
    size_t keep = 0;
    while (keep < axes.size() && !used.count(axes[keep]))
      ++keep;
    axes.resize(keep);
    used.insert(axes.begin(), axes.end());
  }
  // Partial results hold one kind of reduction: the first split reduction
  // factor (in priority order) sets it, others of another kind stay whole.
  std::optional<ReductionKind> partialKind;
  for (int64_t f : priority) {
    std::optional<ReductionKind> k = getPartialKind(rule.kind(f));
    if (!k || factorAxes[f].empty())
      continue;
    if (!partialKind)
      partialKind = k;
    else if (*partialKind != *k)
      factorAxes[f].clear();
  }
  // Drop the axes of factors some tensor cannot carry, until all can.
  Assignment a;
  while (true) {
    a.operands.clear();
    a.results.clear();
    int64_t invalid = -1;
    for (unsigned t = 0; t < rule.numTensors(); ++t) {
      Sharding s = rule.derive(t, factorAxes, invalid);
      if (rule.isResult(t))
        a.results.push_back(std::move(s));
      else
        a.operands.push_back(std::move(s));
    }
    if (invalid < 0)
      break;
    factorAxes[invalid].clear();
  }
  a.factorAxes = std::move(factorAxes);
  return a;
}

Assignment Completer::assign(const RuleView &rule,
                             const std::vector<TensorState> &tensors) const {
  int64_t numFactors = rule.numFactors();
  // Proposals per factor, in tensor order (operands, then results); each
  // with its tensor's class: 2 = a named result, 1 = a named operand, 0 =
  // any other known tensor.
  struct Proposal {
    Axes axes;
    unsigned tensor;
    int rank;
  };
  std::vector<std::vector<Proposal>> proposals(numFactors);
  for (unsigned t = 0; t < tensors.size(); ++t) {
    if (!tensors[t].known)
      continue;
    Sharding s = rule.isResult(t) ? *tensors[t].known
                                  : resolved(*tensors[t].known);
    int rank = tensors[t].fixed ? (rule.isResult(t) ? 2 : 1) : 0;
    for (auto &[f, axes] : rule.extract(t, s))
      proposals[f].push_back({axes, t, rank});
  }
  // Candidates per factor: the distinct proposals of the highest class
  // present, in tensor order. A named result's is final.
  std::vector<std::vector<Axes>> candidates(numFactors);
  std::vector<int> bestRank(numFactors, -1);
  for (int64_t f = 0; f < numFactors; ++f) {
    if (!isSplittable(rule.kind(f)))
      continue;
    for (const Proposal &p : proposals[f])
      bestRank[f] = std::max(bestRank[f], p.rank);
    for (const Proposal &p : proposals[f])
      if (p.rank == bestRank[f] &&
          !llvm::is_contained(candidates[f], p.axes) &&
          (bestRank[f] != 2 || candidates[f].empty()))
        candidates[f].push_back(p.axes);
  }
  std::vector<Axes> factorAxes(numFactors);
  for (int64_t f = 0; f < numFactors; ++f)
    if (!candidates[f].empty())
      factorAxes[f] = candidates[f].front();
  // Conflicts: per factor in index order, the candidate whose assignment
  // costs the fewest bytes of resharding over the op's known tensors; ties
  // go to the candidate splitting into more blocks, then to the earlier
  // proposal.
  for (int64_t f = 0; f < numFactors; ++f) {
    if (candidates[f].size() < 2)
      continue;
    int64_t bestCost = kInfeasible + 1;
    Axes best;
    for (const Axes &c : candidates[f]) {
      std::vector<Axes> trial = factorAxes;
      trial[f] = c;
      int64_t bytes = cost(rule, tensors, trial);
      if (bytes < bestCost ||
          (bytes == bestCost && axesSize(mesh, c) > axesSize(mesh, best))) {
        bestCost = bytes;
        best = c;
      }
    }
    factorAxes[f] = best;
  }
  // Priority for axis sharing: factors of named results, then of named
  // operands, then the rest; by index within each class.
  std::vector<int64_t> priority(numFactors);
  for (int64_t f = 0; f < numFactors; ++f)
    priority[f] = f;
  std::stable_sort(priority.begin(), priority.end(),
                   [&](int64_t a, int64_t b) { return bestRank[a] > bestRank[b]; });
  return finish(rule, std::move(factorAxes), priority);
}

Sharding Completer::choose(Value v, const std::vector<Sharding> &proposals) const {
  std::vector<int64_t> shape = shapeOf(v);
  int64_t elementBytes = getValueElementBytes(v.getType());
  const Sharding *best = nullptr;
  int64_t bestCost = 0, bestBlocks = 0;
  for (const Sharding &c : proposals) {
    int64_t total = 0;
    for (const Sharding &p : proposals)
      total = std::min(kInfeasible, total + reshardBytes(shape, elementBytes,
                                                         c, p));
    int64_t blocks = 1;
    for (const Axes &axes : c.dims)
      blocks *= axesSize(mesh, axes);
    if (!best || total < bestCost ||
        (total == bestCost && blocks > bestBlocks)) {
      best = &c;
      bestCost = total;
      bestBlocks = blocks;
    }
  }
  return *best;
}

/// The op's rule, or null for ops without one (and func.return).
ShardingRuleAttr getRule(Operation *op) {
  if (auto iface = dyn_cast<ShardingRuleOpInterface>(op))
    return iface.getShardingRule();
  return {};
}

void Completer::propagate() {
  bool changed = true;
  while (changed) {
    changed = false;
    // Forward: results from what is known of each op.
    for (Operation *op : ops) {
      if (isa<func::ReturnOp>(op))
        continue;
      ShardingRuleAttr rule = getRule(op);
      std::vector<TensorState> tensors = tensorStates(op);
      if (!rule) {
        for (Value r : op->getResults())
          if (isTensor(r) && !known[indexOf.lookup(r)]) {
            known[indexOf.lookup(r)] =
                Sharding::getReplicated(cast<RankedTensorType>(r.getType()).getRank());
            changed = true;
          }
        continue;
      }
      if (llvm::none_of(tensors, [](const TensorState &t) { return t.known; }))
        continue;
      Assignment a = assign(RuleView(rule, mesh), tensors);
      for (OpResult r : op->getResults()) {
        unsigned i = indexOf.lookup(r);
        if (!known[i]) {
          known[i] = a.results[r.getResultNumber()];
          changed = true;
        }
      }
    }
    // Backward: operands from their uses. All uses of a value come after
    // its definition, so they have all proposed when its producer (or, for
    // an argument, the end of the sweep) is reached.
    std::map<unsigned, std::vector<Sharding>> proposed;
    auto settle = [&](Value v) {
      unsigned i = indexOf.lookup(v);
      auto it = proposed.find(i);
      if (known[i] || it == proposed.end())
        return;
      // Proposals came in reverse program order; choose in program order.
      std::reverse(it->second.begin(), it->second.end());
      known[i] = choose(v, it->second);
      changed = true;
    };
    for (Operation *op : llvm::reverse(ops)) {
      for (Value r : op->getResults())
        if (isTensor(r))
          settle(r);
      if (isa<func::ReturnOp>(op))
        continue;
      ShardingRuleAttr rule = getRule(op);
      std::vector<TensorState> tensors = tensorStates(op);
      std::vector<Sharding> wanted;
      if (!rule) {
        for (Value v : op->getOperands())
          wanted.push_back(isTensor(v) ? Sharding::getReplicated(
                                             cast<RankedTensorType>(v.getType()).getRank())
                                       : Sharding());
      } else {
        if (llvm::none_of(tensors,
                          [](const TensorState &t) { return t.known; }))
          continue;
        wanted = assign(RuleView(rule, mesh), tensors).operands;
      }
      for (OpOperand &use : op->getOpOperands()) {
        auto it = indexOf.find(use.get());
        if (it == indexOf.end() || known[it->second])
          continue;
        proposed[it->second].push_back(wanted[use.getOperandNumber()]);
      }
    }
    for (BlockArgument arg : main.getBody().front().getArguments())
      if (isTensor(arg))
        settle(arg);
  }
  for (unsigned i = 0; i < values.size(); ++i)
    if (!known[i])
      known[i] = Sharding::getReplicated(
          cast<RankedTensorType>(values[i].getType()).getRank());
}

LogicalResult Completer::materialize(CompletedPlan &out) {
  // In program order, each op's assignment from its operands' final
  // shardings: its results are produced with what it gives them.
  for (Operation *op : ops) {
    ShardingRuleAttr rule = getRule(op);
    std::vector<Sharding> wanted;
    if (isa<func::ReturnOp>(op)) {
      // A training step's new value of a variable is returned split as the
      // variable is: the runtime stores it in the variable's blocks.
      llvm::StringMap<Value> variables;
      main.walk([&](VariableOp v) { variables[v.getName()] = v; });
      for (OpOperand &operand : op->getOpOperands()) {
        Value v = operand.get();
        auto updates = main.getResultAttrOfType<StringAttr>(
            operand.getOperandNumber(),
            TelarDialect::UpdatesAttrHelper::getNameStr());
        Value variable = updates ? variables.lookup(updates.getValue())
                                 : Value();
        wanted.push_back(variable ? *known[indexOf.lookup(variable)]
                                  : resolved(*known[indexOf.lookup(v)]));
      }
    } else if (!rule) {
      for (OpResult r : op->getResults()) {
        if (!isTensor(r))
          continue;
        unsigned i = indexOf.lookup(r);
        if (fixed[i] && !known[i]->isReplicated())
          return op->emitError()
                 << "value " << describeValue(r) << ": the plan's sharding "
                 << describe(*known[i], mesh) << " cannot be produced by "
                 << op->getName() << ", which has no sharding rule (its "
                    "results are replicated)";
      }
      for (Value v : op->getOperands())
        wanted.push_back(isTensor(v) ? Sharding::getReplicated(
                                           cast<RankedTensorType>(v.getType()).getRank())
                                     : Sharding());
    } else {
      Assignment a = assign(RuleView(rule, mesh), tensorStates(op));
      for (OpResult r : op->getResults()) {
        unsigned i = indexOf.lookup(r);
        const Sharding &produced = a.results[r.getResultNumber()];
        if (fixed[i] && produced != *known[i]) {
          if (known[i]->isPartial() || produced.isPartial())
            return op->emitError()
                   << "a partial value fed to/produced by an op that cannot "
                      "take it: value "
                   << describeValue(r) << " is named "
                   << describe(*known[i], mesh) << ", but " << op->getName()
                   << " produces it " << describe(produced, mesh)
                   << (known[i]->isPartial()
                           ? " (a partial value needs a split reduction "
                             "factor of its kind)"
                           : " (name it partial, or leave it unnamed, to let "
                             "the reduction stay split)");
          return op->emitError()
                 << "value " << describeValue(r) << ": the plan's sharding "
                 << describe(*known[i], mesh) << " cannot be produced by "
                 << op->getName() << " (it produces "
                 << describe(produced, mesh) << ")";
        }
        known[i] = produced;
      }
      wanted = a.operands;
    }
    for (OpOperand &use : op->getOpOperands()) {
      auto it = indexOf.find(use.get());
      if (it == indexOf.end())
        continue;
      if (wanted[use.getOperandNumber()] != *known[it->second])
        out.uses[&use] = wanted[use.getOperandNumber()];
    }
  }
  for (unsigned i = 0; i < values.size(); ++i)
    out.values[values[i]] = *known[i];
  return success();
}

FailureOr<CompletedPlan> Completer::run() {
  if (main.getBody().empty())
    return main.emitError() << "cannot apply a plan to a declaration";
  collect();
  if (failed(bind()))
    return failure();
  propagate();
  CompletedPlan out;
  out.mesh = mesh;
  out.names = names;
  if (failed(materialize(out)))
    return failure();
  return out;
}

} // namespace

std::map<std::string, Value> mlir::telar::getValueNames(func::FuncOp main) {
  std::map<std::string, Value> names;
  if (main.getBody().empty())
    return names;
  Block &entry = main.getBody().front();
  StringRef nameAttr = TelarDialect::NameAttrHelper::getNameStr();
  for (BlockArgument arg : entry.getArguments())
    if (auto name =
            main.getArgAttrOfType<StringAttr>(arg.getArgNumber(), nameAttr))
      names.emplace(name.getValue().str(), arg);
  StringRef resultNames = TelarDialect::ResultNamesAttrHelper::getNameStr();
  std::vector<Value> unnamed;
  for (Operation &op : entry) {
    auto opNames = op.getAttrOfType<ArrayAttr>(resultNames);
    for (OpResult r : op.getResults()) {
      if (!isa<RankedTensorType>(r.getType()))
        continue;
      StringRef name;
      if (opNames && r.getResultNumber() < opNames.size())
        if (auto s = dyn_cast<StringAttr>(opNames[r.getResultNumber()]))
          name = s.getValue();
      if (name.empty() || !names.emplace(name.str(), r).second)
        unnamed.push_back(r);
    }
  }
  // Derived names, after all ONNX names are known (so none is taken): the
  // stem is the first ONNX name of the op itself or of the next op that has
  // one (an ONNX node's ops end with the one producing its output), which
  // survives printing and parsing the IR, unlike locations.
  llvm::DenseMap<Operation *, std::string> stems;
  std::string next;
  for (Operation &op : llvm::reverse(entry)) {
    if (auto opNames = op.getAttrOfType<ArrayAttr>(resultNames))
      for (Attribute a : opNames)
        if (auto s = dyn_cast<StringAttr>(a))
          if (!s.getValue().empty()) {
            next = s.getValue().str();
            break;
          }
    stems[&op] = next;
  }
  std::map<std::string, int64_t> counts;
  for (Value v : unnamed) {
    Operation *op = v.getDefiningOp();
    std::string stem = stems.lookup(op);
    if (stem.empty())
      stem = op->getName().getStringRef().str();
    std::string name;
    do
      name = stem + "#" + std::to_string(counts[stem]++);
    while (names.count(name));
    names.emplace(name, v);
  }
  return names;
}

FailureOr<telar_sharding::Plan>
mlir::telar::loadPlan(Location loc, StringRef planFile, StringRef meshSpec) {
  std::optional<Mesh> mesh;
  if (!meshSpec.empty()) {
    std::string error;
    mesh = telar_sharding::parseMeshSpec(meshSpec.str(), error);
    if (!mesh)
      return emitError(loc) << "mesh '" << meshSpec << "': " << error;
  }
  if (planFile.empty()) {
    if (!mesh)
      return emitError(loc) << "a plan needs a plan file or a mesh";
    telar_sharding::Plan plan;
    plan.mesh = *mesh;
    return plan;
  }
  // Opening a FIFO would wait for a writer ("-" is standard input).
  llvm::sys::fs::file_status status;
  if (planFile != "-" && !llvm::sys::fs::status(planFile, status) &&
      status.type() != llvm::sys::fs::file_type::regular_file)
    return emitError(loc) << "cannot read plan '" << planFile
                          << "': not a regular file";
  auto buffer = llvm::MemoryBuffer::getFileOrSTDIN(planFile, /*IsText=*/true);
  if (!buffer)
    return emitError(loc) << "cannot read plan '" << planFile
                          << "': " << buffer.getError().message();
  std::string error;
  std::vector<std::string> warnings;
  std::optional<telar_sharding::Plan> plan = telar_sharding::parsePlanJson(
      (*buffer)->getBuffer().str(), mesh, error, warnings);
  for (const std::string &w : warnings)
    emitWarning(loc) << "plan '" << planFile << "': " << w;
  if (!plan)
    return emitError(loc) << "plan '" << planFile << "': " << error;
  return std::move(*plan);
}

FailureOr<CompletedPlan>
mlir::telar::completePlan(func::FuncOp main, const telar_sharding::Plan &plan) {
  return Completer(main, plan).run();
}

Sharding mlir::telar::deriveTensorSharding(
    ShardingRuleAttr rule, const Mesh &mesh, unsigned t,
    const std::vector<std::vector<int64_t>> &factorAxes, int64_t &invalid) {
  return RuleView(rule, mesh).derive(t, factorAxes, invalid);
}

std::map<int64_t, std::vector<int64_t>>
mlir::telar::extractFactorAxes(ShardingRuleAttr rule, const Mesh &mesh,
                               unsigned t, const Sharding &sharding) {
  return RuleView(rule, mesh).extract(t, sharding);
}

bool mlir::telar::isSplittableFactor(FactorKind kind) {
  return isSplittable(kind);
}

telar_sharding::Plan mlir::telar::getNamedPlan(const CompletedPlan &completed) {
  telar_sharding::Plan plan;
  plan.mesh = completed.mesh;
  for (const auto &[name, value] : completed.names) {
    auto it = completed.values.find(value);
    if (it != completed.values.end())
      plan.shardings[name] = it->second;
  }
  return plan;
}
