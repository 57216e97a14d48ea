//===- Search.cpp - Choosing a plan: meshes, strategies, the ILP ----------===//
//
// The problem per mesh, after Alpa's intra-operator pass:
//
//  * Weights and graph inputs with one use are decided by their consumer
//    (they take the sharding it wants; slicing a replicated constant or
//    input costs nothing), so they are no decision of their own.
//  * Repeated layers (findRepeatedLayers) are decided once: the ops of
//    layers 1.. take the strategy of their counterpart in layer 0, and the
//    costs of layer 0 count once per layer.
//  * Followers (ops without reductions whose one activation operand holds
//    all their factors: elementwise ops, reshapes, casts, softmax) join
//    their producer's decision, taking for each of its strategies their
//    cheapest answer (resharding from the producer plus compute).
//  * Every other op, and every graph input with several uses, is a node of
//    the integer program; each edge between two nodes costs the resharding
//    of the value between them, priced by the cost model from the steps of
//    telar_sharding::reshard (what telar-partition emits).
//  * Memory: at each program point, the weights plus the live activations
//    (their local bytes under the strategy that decides them) stay within
//    the limit.
//
//===----------------------------------------------------------------------===//

#include "telar/planner/Search.h"
#include "telar/dialects/Telar/TelarDialect.h"
#include "telar/dialects/Telar/TelarOps.h"
#include "telar/sharding/OpSharding.h"
#include "telar/planner/CostModel.h"
#include "telar/planner/Strategies.h"
#include "telar/sharding/Completion.h"
#include "telar/sharding/core/DeviceLimit.h"
#include "telar/sharding/core/Reshard.h"

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Matchers.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/Hashing.h"
#include "llvm/Support/FormatVariadic.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <map>
#include <set>

using namespace mlir;
using namespace mlir::telar;
using namespace mlir::telar::planner;
using telar_planner::IlpProblem;
using telar_planner::IlpSolution;
using telar_planner::Profile;
using telar_sharding::Mesh;
using telar_sharding::Plan;
using telar_sharding::Sharding;

namespace {

constexpr double kInfeasibleSeconds = 1e9;

bool isTensor(Value v) { return isa<RankedTensorType>(v.getType()); }

std::vector<int64_t> shapeOf(Value v) {
  auto t = cast<RankedTensorType>(v.getType());
  return std::vector<int64_t>(t.getShape().begin(), t.getShape().end());
}

int64_t elementBytesOf(Value v) {
  return getElementBytes(cast<ShapedType>(v.getType()).getElementType());
}

bool isStatic(Value v) {
  return cast<RankedTensorType>(v.getType()).hasStaticShape();
}

ShardingRuleAttr getRule(Operation *op) {
  if (auto iface = dyn_cast<ShardingRuleOpInterface>(op))
    return iface.getShardingRule();
  return {};
}

/// A source of weights: an op without operands (telar.constant).
bool isSourceOp(Operation *op) { return op && op->getNumOperands() == 0; }

double localBytes(const std::vector<int64_t> &shape, int64_t elementBytes,
                  const Sharding &s, const Mesh &mesh) {
  double n = double(elementBytes);
  for (int64_t d : telar_sharding::getLocalShape(shape, s, mesh))
    n *= double(d);
  return n;
}

/// A sharding as integers, for map keys.
void appendKey(std::vector<int64_t> &key, const Sharding &s) {
  key.push_back(s.getRank());
  for (const auto &axes : s.dims) {
    key.push_back(int64_t(axes.size()));
    key.insert(key.end(), axes.begin(), axes.end());
  }
  key.push_back(int64_t(s.partial.size()));
  for (auto [axis, kind] : s.partial) {
    key.push_back(axis);
    key.push_back(int64_t(kind));
  }
}

/// The one-mesh problem and its solution.
class MeshPlanner {
public:
  MeshPlanner(func::FuncOp main, const Mesh &mesh, const Profile &profile)
      : main(main), mesh(mesh), profile(profile) {}

  MeshSearch run(const std::optional<Plan> &constraints, double memoryLimit,
                 double timeLimitSeconds, double cutoff, Solver solver,
                 std::optional<int64_t> layerCount);

private:
  func::FuncOp main;
  const Mesh &mesh;
  const Profile &profile;
  /// When the time limit runs out: building the problem stops there too.
  std::chrono::steady_clock::time_point deadline;
  bool outOfTime() const {
    return std::chrono::steady_clock::now() >= deadline;
  }

  // The body, in program order (without the terminator).
  std::vector<Operation *> ops;
  llvm::DenseMap<Operation *, int64_t> opIndex;
  LayerStructure layers;
  std::vector<int64_t> rep;     // per op: its counterpart in layer 0 (or itself)
  std::vector<int64_t> instance; // per op: LayerStructure::getInstances
  std::vector<double> mult;     // per representative op: how often it occurs

  struct OpData {
    ShardingRuleAttr rule;
    std::vector<Strategy> strategies;
    std::vector<double> compute; // seconds per strategy
    int64_t group = -1;
    /// Per strategy of the group, this op's strategy.
    std::vector<unsigned> choice;
    /// The operand through which this op follows its producer, or -1.
    int64_t followOperand = -1;
  };
  std::vector<OpData> data;

  struct Group {
    std::vector<double> cost;
    int64_t size() const { return int64_t(cost.size()); }
  };
  std::vector<Group> groups;
  /// Graph inputs with several uses: their group and candidate shardings.
  llvm::DenseMap<Value, int64_t> argGroup;
  std::map<int64_t, std::vector<Sharding>> argShardings;

  std::map<std::vector<int64_t>, double> reshardCache;

  /// One use between two groups: its resharding from each strategy of the
  /// producer's group to each of the consumer's, per pair a lower bound
  /// until priced exactly. With `to` = -1, a use within group `from`
  /// (sources[s] to targets[s] under its strategy s).
  struct EdgeTerm {
    int64_t from = 0, to = 0;
    Value value;
    double count = 1;
    std::vector<Sharding> sources, targets;
    std::vector<double> cost;
    std::vector<bool> exact;
  };
  std::vector<EdgeTerm> edgeTerms;

  /// A lower bound of reshardSeconds without searching; `exact` when it is
  /// the price (no communication needed, or no resharding exists).
  double reshardLowerBound(Value v, const Sharding &from, const Sharding &to,
                           bool &exact);
  /// reshardSeconds if already computed.
  std::optional<double> lookupReshard(Value v, const Sharding &from,
                                      const Sharding &to) const;
  std::vector<int64_t> reshardKey(Value v, const Sharding &from,
                                  const Sharding &to) const;

  bool isFolded(Value v) const {
    if (!isTensor(v) || !v.hasOneUse())
      return false;
    Operation *user = *v.getUsers().begin();
    if (isa<func::ReturnOp>(user))
      return false;
    if (isa<BlockArgument>(v))
      return true;
    return isSourceOp(v.getDefiningOp());
  }

  double reshardSeconds(Value v, const Sharding &from, const Sharding &to);
  /// Both return false when the time limit ran out first.
  bool buildStrategies();
  bool buildGroups();
  /// This op's strategy under strategy `g` of its group (op: a
  /// representative).
  const Strategy &strategyOf(int64_t op, unsigned g) const {
    return data[op].strategies[data[op].choice[g]];
  }
  /// The group deciding value `v` (an op result or a graph input with
  /// several uses), and its sharding under that group's strategy `g`.
  int64_t groupOfValue(Value v) const;
  Sharding shardingOfValue(Value v, unsigned g) const;
};

std::vector<int64_t> MeshPlanner::reshardKey(Value v, const Sharding &from,
                                             const Sharding &to) const {
  std::vector<int64_t> key = shapeOf(v);
  key.push_back(elementBytesOf(v));
  appendKey(key, from);
  appendKey(key, to);
  return key;
}

std::optional<double> MeshPlanner::lookupReshard(Value v, const Sharding &from,
                                                 const Sharding &to) const {
  if (from == to)
    return 0.0;
  auto it = reshardCache.find(reshardKey(v, from, to));
  if (it == reshardCache.end())
    return std::nullopt;
  return it->second;
}

double MeshPlanner::reshardLowerBound(Value v, const Sharding &from,
                                      const Sharding &to, bool &exact) {
  exact = true;
  if (from == to)
    return 0;
  if (std::optional<double> known = lookupReshard(v, from, to))
    return *known;
  // The bound of THE resharding function's search at the fastest link it
  // may use; an invalid pair, or one without a resharding, is priced as the
  // search does, exactly.
  bool communicates = false;
  std::optional<double> bound = getReshardSecondsLowerBound(
      shapeOf(v), elementBytesOf(v), from, to, mesh, profile, &communicates);
  if (!bound)
    return reshardSeconds(v, from, to);
  if (!communicates)
    return 0; // local slices at most
  exact = false;
  return *bound;
}

double MeshPlanner::reshardSeconds(Value v, const Sharding &from,
                                   const Sharding &to) {
  if (from == to)
    return 0;
  std::vector<int64_t> key = reshardKey(v, from, to);
  auto it = reshardCache.find(key);
  if (it != reshardCache.end())
    return it->second;
  // The steps telar-partition emits for this resharding.
  std::string error;
  auto steps = getReshardSteps(cast<RankedTensorType>(v.getType()),
                                          from, to, mesh, error);
  double seconds = kInfeasibleSeconds;
  if (steps) {
    seconds = 0;
    for (const telar_sharding::ReshardStep &step : *steps)
      seconds += getStepSeconds(step, mesh, profile);
  }
  reshardCache.emplace(std::move(key), seconds);
  return seconds;
}

bool MeshPlanner::buildStrategies() {
  data.assign(ops.size(), OpData());
  for (int64_t i = 0; i < int64_t(ops.size()); ++i) {
    if (rep[i] != i)
      continue;
    if (outOfTime())
      return false;
    Operation *op = ops[i];
    OpData &d = data[i];
    bool allStatic = llvm::all_of(op->getOperands(), [](Value v) {
      return !isTensor(v) || isStatic(v);
    }) && llvm::all_of(op->getResults(), [](Value v) {
      return !isTensor(v) || isStatic(v);
    });
    d.rule = allStatic ? getRule(op) : ShardingRuleAttr();
    if (d.rule) {
      SmallVector<bool> whole = getWholeFactors(d.rule);
      for (Strategy &s : enumerateStrategies(d.rule, mesh, whole)) {
        // Keep what telar-partition runs as given: no internal gathers, no
        // results produced otherwise than the strategy says.
        std::string error;
        FailureOr<LocalAssignment> local =
            getLocalAssignment(op, s.operands, mesh, error);
        if (failed(local) || local->operands != s.operands ||
            local->results != s.results)
          continue;
        d.strategies.push_back(std::move(s));
      }
    }
    if (d.strategies.empty()) {
      // Replicated: what completion gives ops without a rule.
      Strategy s;
      for (Value v : op->getOperands())
        s.operands.push_back(isTensor(v) ? Sharding::getReplicated(
                                               shapeOf(v).size())
                                         : Sharding());
      for (Value v : op->getResults())
        s.results.push_back(isTensor(v) ? Sharding::getReplicated(
                                              shapeOf(v).size())
                                        : Sharding());
      d.strategies.push_back(std::move(s));
    }
    for (const Strategy &s : d.strategies) {
      std::vector<std::vector<int64_t>> operandShapes, resultShapes;
      for (auto [v, sharding] : llvm::zip(op->getOperands(), s.operands))
        operandShapes.push_back(
            isTensor(v) && isStatic(v)
                ? telar_sharding::getLocalShape(shapeOf(v), sharding, mesh)
                : std::vector<int64_t>());
      for (auto [v, sharding] : llvm::zip(op->getResults(), s.results))
        resultShapes.push_back(
            isTensor(v) && isStatic(v)
                ? telar_sharding::getLocalShape(shapeOf(v), sharding, mesh)
                : std::vector<int64_t>());
      d.compute.push_back(
          getComputeCost(op, operandShapes, resultShapes, profile).seconds);
    }
  }
  return true;
}

int64_t MeshPlanner::groupOfValue(Value v) const {
  if (auto arg = dyn_cast<BlockArgument>(v))
    return argGroup.lookup(v);
  return data[rep[opIndex.lookup(v.getDefiningOp())]].group;
}

Sharding MeshPlanner::shardingOfValue(Value v, unsigned g) const {
  if (isa<BlockArgument>(v))
    return argShardings.at(argGroup.lookup(v))[g];
  auto r = cast<OpResult>(v);
  int64_t i = rep[opIndex.lookup(r.getOwner())];
  return strategyOf(i, g).results[r.getResultNumber()];
}

bool MeshPlanner::buildGroups() {
  for (int64_t i = 0; i < int64_t(ops.size()); ++i) {
    if (rep[i] != i)
      continue;
    if (outOfTime())
      return false;
    Operation *op = ops[i];
    OpData &d = data[i];
    if (isSourceOp(op) &&
        llvm::all_of(op->getResults(), [&](Value r) { return isFolded(r); }))
      continue; // decided by its consumer
    // A follower: no reduction loops, one activation operand that holds
    // all its factors, produced in the same layer instance.
    int64_t follow = -1;
    if (d.rule) {
      bool reduces = false;
      for (int64_t f = 0; f < d.rule.getNumFactors(); ++f)
        if (isReduction(d.rule.getKind(f)))
          reduces = true;
      SmallVector<unsigned> activations;
      for (OpOperand &use : op->getOpOperands())
        if (isTensor(use.get()) && !isFolded(use.get()))
          activations.push_back(use.getOperandNumber());
      if (!reduces && activations.size() == 1) {
        unsigned k = activations[0];
        Operation *producer = op->getOperand(k).getDefiningOp();
        std::set<int64_t> held;
        for (DimMappingAttr dim : d.rule.getOperandMappings()[k].getDims())
          if (!dim.getBroadcast())
            held.insert(dim.getFactors().begin(), dim.getFactors().end());
        bool holdsAll = true;
        for (int64_t f = 0; f < d.rule.getNumFactors(); ++f)
          if (!held.count(f) && d.rule.getFactorSizes()[f] > 1)
            holdsAll = false;
        if (producer && holdsAll) {
          int64_t p = opIndex.lookup(producer);
          if (rep[p] == p && instance[p] == instance[i] && instance[i] >= -2 &&
              data[p].group >= 0)
            follow = p;
        }
        if (follow >= 0)
          d.followOperand = k;
      }
    }
    if (follow >= 0) {
      unsigned k = d.followOperand;
      Value in = op->getOperand(k);
      int64_t g = data[follow].group;
      d.group = g;
      // The answer depends only on the sharding produced, which many of
      // the group's strategies share.
      std::map<std::vector<int64_t>, std::pair<unsigned, double>> answers;
      for (unsigned s = 0; s < groups[g].size(); ++s) {
        if (outOfTime())
          return false;
        Sharding produced = shardingOfValue(in, s);
        std::vector<int64_t> key;
        appendKey(key, produced);
        auto [it, inserted] = answers.try_emplace(std::move(key));
        if (inserted) {
          // The cheapest answer, pricing exactly only the candidates whose
          // lower bound could still beat the best price so far.
          std::vector<std::pair<double, unsigned>> bounds;
          for (unsigned t = 0; t < d.strategies.size(); ++t) {
            bool exact = false;
            double bound = reshardLowerBound(
                in, produced, d.strategies[t].operands[k], exact);
            bounds.push_back({bound + d.compute[t], t});
          }
          std::stable_sort(bounds.begin(), bounds.end(),
                           [](auto &a, auto &b) { return a.first < b.first; });
          unsigned best = 0;
          double bestCost = std::numeric_limits<double>::infinity();
          for (auto [bound, t] : bounds) {
            if (bound >= bestCost)
              break;
            double cost =
                reshardSeconds(in, produced, d.strategies[t].operands[k]) +
                d.compute[t];
            if (cost < bestCost || (cost == bestCost && t < best)) {
              bestCost = cost;
              best = t;
            }
          }
          it->second = {best, bestCost};
        }
        d.choice.push_back(it->second.first);
        groups[g].cost[s] += mult[i] * it->second.second;
      }
      continue;
    }
    d.group = int64_t(groups.size());
    Group g;
    for (unsigned s = 0; s < d.strategies.size(); ++s) {
      d.choice.push_back(s);
      g.cost.push_back(mult[i] * d.compute[s]);
    }
    groups.push_back(std::move(g));
  }
  return true;
}

MeshSearch MeshPlanner::run(const std::optional<Plan> &constraints,
                            double memoryLimit, double timeLimitSeconds,
                            double cutoff, Solver solver,
                            std::optional<int64_t> layerCount) {
  MeshSearch result;
  auto start = std::chrono::steady_clock::now();
  deadline = start + std::chrono::duration_cast<
                            std::chrono::steady_clock::duration>(
                            std::chrono::duration<double>(timeLimitSeconds));
  result.mesh = mesh;
  Block &body = main.getBody().front();
  for (Operation &op : body.without_terminator()) {
    opIndex[&op] = int64_t(ops.size());
    ops.push_back(&op);
  }
  int64_t numOps = int64_t(ops.size());
  layers = findRepeatedLayers(main);
  rep = layers.getRepresentatives(numOps);
  instance = layers.getInstances(numOps);
  mult.assign(numOps, 1);
  // As if the layers occurred `layerCount` times (a pipeline stage of that
  // many layers planned on a function of two): layer 0's ops and the uses
  // within a layer count layerCount times, the uses of the layer before
  // layerCount - 1 times.
  double layerTimes = layers.count >= 2 && layerCount
                          ? double(*layerCount)
                          : double(layers.count);
  for (int64_t i = 0; i < numOps; ++i)
    if (instance[i] == 0)
      mult[i] = layerTimes;
  auto useFactor = [&](int64_t userInstance, int64_t valueInstance) {
    if (layers.count < 2 || !layerCount || userInstance < 0)
      return 1.0;
    if (valueInstance >= 0 && valueInstance != userInstance)
      return (layerTimes - 1) / double(layers.count - 1);
    return layerTimes / double(layers.count);
  };

  // Out of time while building: no solution (status NoSolution).
  if (!buildStrategies())
    return result;
  for (BlockArgument arg : body.getArguments()) {
    if (!isTensor(arg) || isFolded(arg) || arg.use_empty())
      continue;
    int64_t g = int64_t(groups.size());
    argGroup[arg] = g;
    argShardings[g] = isStatic(arg)
                          ? enumerateShardings(shapeOf(arg), mesh)
                          : std::vector<Sharding>{Sharding::getReplicated(
                                shapeOf(arg).size())};
    groups.push_back(Group{std::vector<double>(argShardings[g].size(), 0)});
  }
  if (!buildGroups())
    return result;

  // Edges, one matrix per pair of groups, summed over the uses between
  // them (each use of layer 0 once per layer).
  std::map<std::vector<int64_t>, double> useCounts;
  Operation *ret = body.getTerminator();
  for (int64_t v = 0; v <= numOps; ++v) {
    Operation *user = v < numOps ? ops[v] : ret;
    for (OpOperand &use : user->getOpOperands()) {
      Value value = use.get();
      if (!isTensor(value) || isFolded(value))
        continue;
      if (isa<OpResult>(value) && isSourceOp(value.getDefiningOp()) &&
          data[rep[opIndex.lookup(value.getDefiningOp())]].group < 0)
        continue;
      // Key: the representative value and the representative use.
      std::vector<int64_t> key;
      if (auto arg = dyn_cast<BlockArgument>(value)) {
        key = {-1, int64_t(arg.getArgNumber())};
      } else {
        auto r = cast<OpResult>(value);
        key = {rep[opIndex.lookup(r.getOwner())],
               int64_t(r.getResultNumber())};
      }
      key.push_back(v < numOps ? rep[v] : numOps);
      key.push_back(use.getOperandNumber());
      // The follow link (in every layer) is priced in the group.
      if (v < numOps && data[rep[v]].followOperand ==
                            int64_t(use.getOperandNumber()))
        continue;
      int64_t valueInstance =
          isa<BlockArgument>(value)
              ? -1
              : instance[opIndex.lookup(value.getDefiningOp())];
      useCounts[key] += useFactor(v < numOps ? instance[v] : -2, valueInstance);
    }
  }
  for (const auto &[key, count] : useCounts) {
    if (outOfTime())
      return result;
    Value value =
        key[0] < 0 ? Value(body.getArgument(key[1]))
                   : Value(ops[key[0]]->getResult(key[1]));
    int64_t gu = groupOfValue(value);
    // A term within one group (an output, whose partial axes are resolved
    // and the rest stays; a use in a later layer of a value of the same
    // group) prices the group's strategies one by one: a diagonal term.
    if (key[2] == numOps || gu == data[key[2]].group) {
      EdgeTerm term;
      term.from = gu;
      term.to = -1;
      term.value = value;
      term.count = count;
      for (unsigned s = 0; s < groups[gu].size(); ++s) {
        Sharding from = shardingOfValue(value, s);
        Sharding to = from;
        to.partial.clear();
        if (key[2] != numOps)
          to = strategyOf(key[2], s).operands[key[3]];
        bool exact = false;
        term.cost.push_back(reshardLowerBound(value, from, to, exact));
        term.exact.push_back(exact);
        term.sources.push_back(std::move(from));
        term.targets.push_back(std::move(to));
      }
      edgeTerms.push_back(std::move(term));
      continue;
    }
    int64_t v = key[2];
    unsigned k = unsigned(key[3]);
    int64_t gv = data[v].group;
    // Priced lazily: a lower bound now, the exact resharding once the
    // solver picks the pair (see the loop below).
    EdgeTerm term;
    term.from = gu;
    term.to = gv;
    term.value = value;
    term.count = count;
    size_t rows = groups[gu].size(), cols = groups[gv].size();
    for (unsigned s = 0; s < rows; ++s)
      term.sources.push_back(shardingOfValue(value, s));
    for (unsigned t = 0; t < cols; ++t)
      term.targets.push_back(strategyOf(v, t).operands[k]);
    term.cost.resize(rows * cols);
    term.exact.resize(rows * cols);
    for (unsigned s = 0; s < rows; ++s)
      for (unsigned t = 0; t < cols; ++t) {
        bool exact = false;
        term.cost[s * cols + t] =
            reshardLowerBound(value, term.sources[s], term.targets[t], exact);
        term.exact[s * cols + t] = exact;
      }
    edgeTerms.push_back(std::move(term));
  }

  IlpProblem problem;
  for (const Group &g : groups)
    problem.nodes.push_back({g.cost, {}});
  // One edge per pair of groups: the sum of its terms.
  std::map<std::pair<int64_t, int64_t>, size_t> edgeOf;
  for (const EdgeTerm &t : edgeTerms) {
    if (t.to < 0)
      continue;
    auto [it, inserted] = edgeOf.insert({{t.from, t.to}, problem.edges.size()});
    if (inserted)
      problem.edges.push_back({unsigned(t.from), unsigned(t.to),
                               std::vector<double>(t.cost.size(), 0)});
  }
  auto fillEdges = [&] {
    for (IlpProblem::Edge &e : problem.edges)
      std::fill(e.cost.begin(), e.cost.end(), 0);
    for (size_t g = 0; g < groups.size(); ++g)
      problem.nodes[g].cost = groups[g].cost;
    for (const EdgeTerm &t : edgeTerms) {
      if (t.to < 0) {
        std::vector<double> &cost = problem.nodes[t.from].cost;
        for (size_t i = 0; i < t.cost.size(); ++i)
          cost[i] += t.count * t.cost[i];
        continue;
      }
      IlpProblem::Edge &e = problem.edges[edgeOf.at({t.from, t.to})];
      for (size_t i = 0; i < t.cost.size(); ++i)
        e.cost[i] += t.count * t.cost[i];
    }
  };
  fillEdges();

  // Constraints from a partial plan: the named values keep their sharding.
  std::map<std::string, Value> names = getValueNames(main);

  // The sharding of any value under a choice (per group): results of
  // deciding ops, and values decided by their consumer.
  auto decidedBy = [&](Value v, std::vector<std::pair<int64_t, int64_t>>
                                    &consumer) -> int64_t {
    // Returns the group; `consumer` gets (op, operand) for folded values.
    consumer.clear();
    if (isFolded(v)) {
      OpOperand &use = *v.getUses().begin();
      int64_t c = rep[opIndex.lookup(use.getOwner())];
      consumer.push_back({c, use.getOperandNumber()});
      return data[c].group;
    }
    return groupOfValue(v);
  };
  auto shardingUnder = [&](Value v, unsigned g) -> Sharding {
    std::vector<std::pair<int64_t, int64_t>> consumer;
    decidedBy(v, consumer);
    if (!consumer.empty())
      return strategyOf(consumer[0].first, g).operands[consumer[0].second];
    return shardingOfValue(v, g);
  };
  auto valueRep = [&](Value v) -> Value {
    if (auto r = dyn_cast<OpResult>(v)) {
      int64_t i = opIndex.lookup(r.getOwner());
      return ops[rep[i]]->getResult(r.getResultNumber());
    }
    return v;
  };
  if (constraints) {
    for (const auto &[name, sharding] : constraints->shardings) {
      auto it = names.find(name);
      if (it == names.end())
        continue; // completion reports unknown names
      Value v = it->second;
      if (valueRep(v) != v)
        continue; // a later layer: its counterpart in layer 0 decides
      std::vector<std::pair<int64_t, int64_t>> consumer;
      int64_t g = decidedBy(v, consumer);
      if (g < 0)
        continue;
      IlpProblem::Node &node = problem.nodes[g];
      if (node.allowed.empty())
        node.allowed.assign(node.cost.size(), true);
      for (unsigned s = 0; s < node.cost.size(); ++s)
        if (shardingUnder(v, s) != sharding)
          node.allowed[s] = false;
    }
  }

  // Memory: the weights (every layer's), plus the live activations at each
  // program point of the representative ops.
  std::map<int64_t, std::vector<double>> weights;
  auto addTerm = [&](std::map<int64_t, std::vector<double>> &terms, Value v,
                     double factor) {
    std::vector<std::pair<int64_t, int64_t>> consumer;
    int64_t g = decidedBy(v, consumer);
    if (g < 0 || !isStatic(v))
      return;
    std::vector<double> &bytes = terms[g];
    bytes.resize(groups[g].size(), 0);
    std::vector<int64_t> shape = shapeOf(v);
    int64_t eb = elementBytesOf(v);
    for (unsigned s = 0; s < bytes.size(); ++s)
      bytes[s] += factor * localBytes(shape, eb, shardingUnder(v, s), mesh);
  };
  // With layerCount, a layer's weights count layerCount / count times (the
  // weights used only by ops of the layers, directly or through ops computed
  // from weights alone).
  auto weightFactor = [&](Value w) {
    if (layers.count < 2 || !layerCount)
      return 1.0;
    std::function<bool(Value, int)> inLayers = [&](Value v, int depth) {
      for (Operation *u : v.getUsers()) {
        if (u == ret)
          return false;
        int64_t k = instance[opIndex.lookup(u)];
        if (k >= 0)
          continue;
        if (k != -3 || depth > 2)
          return false;
        for (Value r : u->getResults())
          if (!inLayers(r, depth + 1))
            return false;
      }
      return true;
    };
    return inLayers(w, 0) ? layerTimes / double(layers.count) : 1.0;
  };
  std::vector<Value> activations;
  std::vector<std::pair<int64_t, int64_t>> lifetimes;
  for (BlockArgument arg : body.getArguments())
    if (isTensor(arg) && !arg.use_empty()) {
      int64_t last = -1;
      for (Operation *u : arg.getUsers())
        last = std::max(last, u == ret ? numOps : opIndex.lookup(u));
      activations.push_back(arg);
      lifetimes.push_back({-1, last});
    }
  for (int64_t i = 0; i < numOps; ++i) {
    if (rep[i] != i)
      continue;
    for (Value r : ops[i]->getResults()) {
      if (!isTensor(r))
        continue;
      if (isSourceOp(ops[i])) {
        addTerm(weights, r, mult[i] * weightFactor(r));
        continue;
      }
      int64_t last = i;
      for (Operation *u : r.getUsers())
        last = std::max(last, u == ret ? numOps : opIndex.lookup(u));
      activations.push_back(r);
      lifetimes.push_back({i, last});
    }
  }
  double limit = memoryLimit > 0 ? memoryLimit : profile.memoryBytes;
  double minimumMemory = 0;
  for (int64_t i = 0; i < numOps; ++i) {
    if (rep[i] != i || isSourceOp(ops[i]))
      continue;
    if (outOfTime())
      return result;
    std::map<int64_t, std::vector<double>> terms = weights;
    for (size_t a = 0; a < activations.size(); ++a)
      if (lifetimes[a].first <= i && i <= lifetimes[a].second)
        addTerm(terms, activations[a], 1);
    IlpProblem::MemoryConstraint m;
    m.limit = limit;
    double least = 0;
    for (auto &[g, bytes] : terms) {
      least += *std::min_element(bytes.begin(), bytes.end());
      m.terms.push_back({unsigned(g), std::move(bytes)});
    }
    minimumMemory = std::max(minimumMemory, least);
    if (limit > 0)
      problem.memory.push_back(std::move(m));
  }

  result.numNodes = int64_t(problem.nodes.size());
  for (const IlpProblem::Node &n : problem.nodes)
    result.numStrategies += int64_t(n.cost.size());
  result.minimumMemory = minimumMemory;
  result.buildSeconds = std::chrono::duration<double>(
                            std::chrono::steady_clock::now() - start)
                            .count();
  // Lazy pricing: solve with lower bounds for the pairs not yet priced;
  // price the pairs the solution uses exactly; repeat until it uses only
  // exact prices. Every price is at least its bound, so that solution is
  // optimal for the exact prices too. The time limit counts from the
  // start of the build.
  if (solver == Solver::BruteForce) {
    for (EdgeTerm &t : edgeTerms)
      for (size_t s = 0; s < t.sources.size(); ++s)
        for (size_t u = 0; u < t.targets.size(); ++u) {
          if (t.to < 0 && u != s)
            continue;
          size_t i = t.to < 0 ? s : s * t.targets.size() + u;
          t.cost[i] = reshardSeconds(t.value, t.sources[s], t.targets[u]);
          t.exact[i] = true;
        }
    fillEdges();
    result.solution = telar_planner::solveBruteForce(problem);
  }
  // The best solution seen with every pair it uses priced exactly (each
  // one is, once priced below): what a search out of time returns.
  telar_planner::IlpSolution bestExact;
  // With the bound of the latest solve (prices only rise between solves).
  auto keepBestExact = [&](const telar_planner::IlpSolution &latest) {
    result.solution = bestExact;
    result.solution.status = telar_planner::IlpSolution::Status::TimeLimit;
    result.solution.bound = std::min(latest.bound, bestExact.objective);
  };
  while (solver == Solver::Cbc) {
    double left =
        std::chrono::duration<double>(deadline - std::chrono::steady_clock::now())
            .count();
    telar_planner::IlpSolution found = telar_planner::solveIlp(
        problem, std::max(0.05, left),
        bestExact.hasSolution() ? &bestExact.choice : nullptr, cutoff);
    if (!found.hasSolution()) {
      // Out of time after a solution: the best one so far.
      if (found.status == telar_planner::IlpSolution::Status::NoSolution &&
          bestExact.hasSolution())
        keepBestExact(bestExact);
      else
        result.solution = found;
      break;
    }
    bool changed = false;
    const std::vector<unsigned> &c = found.choice;
    for (EdgeTerm &t : edgeTerms) {
      size_t i = t.to < 0 ? c[t.from] : c[t.from] * t.targets.size() + c[t.to];
      if (t.exact[i])
        continue;
      t.cost[i] = reshardSeconds(t.value, t.sources[c[t.from]],
                                 t.targets[t.to < 0 ? c[t.from] : c[t.to]]);
      t.exact[i] = true;
      changed = true;
    }
    if (!changed) {
      // Priced exactly throughout: optimal (or CBC's best within the time).
      result.solution = found;
      if (bestExact.hasSolution() &&
          bestExact.objective < found.objective)
        keepBestExact(found);
      break;
    }
    fillEdges();
    bool feasible = false;
    double objective = telar_planner::evaluateChoice(problem, c, feasible);
    if (feasible &&
        (!bestExact.hasSolution() || objective < bestExact.objective)) {
      bestExact = found;
      bestExact.objective = objective;
    }
    if (outOfTime()) {
      keepBestExact(found);
      break;
    }
    // Every pair of the same shardings is now known exactly.
    for (EdgeTerm &t : edgeTerms)
      for (size_t s = 0; s < t.sources.size(); ++s)
        for (size_t u = 0; u < t.targets.size(); ++u) {
          if (t.to < 0 && u != s)
            continue;
          size_t i = t.to < 0 ? s : s * t.targets.size() + u;
          if (t.exact[i])
            continue;
          if (std::optional<double> known =
                  lookupReshard(t.value, t.sources[s], t.targets[u])) {
            t.cost[i] = *known;
            t.exact[i] = true;
          }
        }
    fillEdges();
  }
  if (!result.solution.hasSolution())
    return result;

  // The plan: every named value's sharding under the choice.
  result.plan.mesh = mesh;
  const std::vector<unsigned> &choice = result.solution.choice;
  for (const auto &[name, value] : names) {
    Value r = valueRep(value);
    std::vector<std::pair<int64_t, int64_t>> consumer;
    if (isFolded(value)) {
      OpOperand &use = *value.getUses().begin();
      int64_t c = rep[opIndex.lookup(use.getOwner())];
      if (data[c].group < 0)
        continue;
      result.plan.shardings[name] = strategyOf(c, choice[data[c].group])
                                        .operands[use.getOperandNumber()];
      continue;
    }
    int64_t g = decidedBy(r, consumer);
    if (g < 0)
      continue;
    Sharding sharding = shardingOfValue(r, choice[g]);
    // A graph output is never partial: its partial axes are resolved where
    // it is produced, as the output's edge above priced.
    if (llvm::any_of(value.getUses(),
                     [&](OpOperand &use) { return use.getOwner() == ret; }))
      sharding.partial.clear();
    result.plan.shardings[name] = sharding;
  }
  return result;
}

} // namespace

std::vector<int64_t>
LayerStructure::getRepresentatives(int64_t numOps) const {
  std::vector<int64_t> rep(numOps);
  for (int64_t i = 0; i < numOps; ++i)
    rep[i] = i;
  if (count >= 2)
    for (int64_t q = start + period; q < start + period * count; ++q)
      rep[sequence[q]] = sequence[start + (q - start) % period];
  return rep;
}

std::vector<int64_t> LayerStructure::getInstances(int64_t numOps) const {
  std::vector<int64_t> instance(numOps, -3);
  for (int64_t q = 0; q < int64_t(sequence.size()); ++q) {
    if (count < 2 || q < start)
      instance[sequence[q]] = -1;
    else if (q < start + period * count)
      instance[sequence[q]] = (q - start) / period;
    else
      instance[sequence[q]] = -2;
  }
  return instance;
}

LayerStructure mlir::telar::planner::findRepeatedLayers(func::FuncOp main) {
  std::vector<Operation *> ops;
  for (Operation &op : main.getBody().front().without_terminator())
    ops.push_back(&op);
  // Ops computed from weights alone.
  llvm::DenseSet<Operation *> fromWeights;
  for (Operation *op : ops)
    if (llvm::all_of(op->getOperands(), [&](Value v) {
          Operation *d = v.getDefiningOp();
          return d && fromWeights.count(d);
        }))
      fromWeights.insert(op);
  LayerStructure best;
  llvm::DenseMap<Operation *, int64_t> position;
  for (int64_t i = 0; i < int64_t(ops.size()); ++i)
    if (!fromWeights.count(ops[i])) {
      position[ops[i]] = int64_t(best.sequence.size());
      best.sequence.push_back(i);
    }
  // Per op, a hash of what it is (name, types, attributes except names) and
  // of its operands' kinds; two ops at distance p match when their hashes
  // do and each operand comes from the op at the same distance before them,
  // or is the same value (a mask, a shared weight's transpose that every
  // layer reads), or is computed from weights of the same type.
  StringRef resultNames = TelarDialect::ResultNamesAttrHelper::getNameStr();
  std::vector<Operation *> seq;
  std::vector<llvm::hash_code> base;
  for (int64_t i : best.sequence) {
    Operation *op = ops[i];
    seq.push_back(op);
    llvm::hash_code h = llvm::hash_value(op->getName().getAsOpaquePointer());
    for (Type t : op->getResultTypes())
      h = llvm::hash_combine(h, t.getAsOpaquePointer());
    for (NamedAttribute a : op->getAttrs())
      if (a.getName() != resultNames)
        h = llvm::hash_combine(h, a.getName().getAsOpaquePointer(),
                               a.getValue().getAsOpaquePointer());
    for (Value v : op->getOperands()) {
      Operation *d = v.getDefiningOp();
      if (d && fromWeights.count(d))
        h = llvm::hash_combine(h, 2, v.getType().getAsOpaquePointer());
      else if (d)
        h = llvm::hash_combine(h, 3, cast<OpResult>(v).getResultNumber());
      else
        h = llvm::hash_combine(h, 3, 0);
    }
    base.push_back(h);
  }
  // Graph inputs sit before the sequence (input k at position -1 - k), so
  // that the first layer may read one where the others read the layer
  // before.
  auto positionOf = [&](Value v) -> int64_t {
    if (auto arg = dyn_cast<BlockArgument>(v))
      return -1 - int64_t(arg.getArgNumber());
    return position.lookup(v.getDefiningOp());
  };
  auto same = [&](int64_t i, int64_t j) {
    if (base[i] != base[j])
      return false;
    for (auto [a, b] : llvm::zip(seq[i]->getOperands(), seq[j]->getOperands())) {
      Operation *pa = a.getDefiningOp();
      if ((pa && fromWeights.count(pa)) || a == b)
        continue;
      if (i - positionOf(a) != j - positionOf(b))
        return false;
    }
    return true;
  };
  int64_t n = int64_t(seq.size());
  int64_t bestCover = 0;
  for (int64_t p = 2; p <= n / 2; ++p) {
    int64_t run = 0;
    for (int64_t i = 0; i + p < n; ++i) {
      run = same(i, i + p) ? run + 1 : 0;
      if (run >= p) {
        int64_t start = i + 1 - run;
        int64_t count = (run + p) / p;
        int64_t cover = count * p;
        if (cover > bestCover) {
          bestCover = cover;
          best.start = start;
          best.period = p;
          best.count = count;
        }
      }
    }
  }
  return best;
}

std::vector<Mesh>
mlir::telar::planner::enumerateMeshes(int64_t devices, const Profile &profile) {
  int64_t nodeSize = profile.getNodeSize();
  std::vector<std::vector<int64_t>> shapes;
  if (devices > 1)
    shapes.push_back({devices});
  for (int64_t a = 2; a < devices; ++a) {
    if (devices % a)
      continue;
    int64_t rest = devices / a;
    shapes.push_back({a, rest});
    for (int64_t b = 2; b < rest; ++b)
      if (rest % b == 0)
        shapes.push_back({a, b, rest / b});
  }
  auto allowed = [&](const std::vector<int64_t> &shape) {
    if (devices <= nodeSize || devices % nodeSize != 0)
      return true;
    int64_t stride = 1;
    for (auto it = shape.rbegin(); it != shape.rend(); ++it) {
      if (!(stride * *it <= nodeSize || stride >= nodeSize))
        return false;
      stride *= *it;
    }
    return true;
  };
  static const char *names[] = {"x", "y", "z"};
  std::vector<Mesh> out;
  for (const std::vector<int64_t> &shape : shapes) {
    if (!allowed(shape))
      continue;
    Mesh m;
    for (size_t a = 0; a < shape.size(); ++a) {
      m.axisNames.push_back(names[a]);
      m.axisSizes.push_back(shape[a]);
    }
    out.push_back(std::move(m));
  }
  return out;
}

MeshSearch mlir::telar::planner::planOnMesh(
    func::FuncOp main, const Mesh &mesh, const Profile &profile,
    const std::optional<Plan> &constraints, double memoryLimit,
    double timeLimitSeconds, double cutoff, Solver solver,
    std::optional<int64_t> layerCount) {
  return MeshPlanner(main, mesh, profile)
      .run(constraints, memoryLimit, timeLimitSeconds, cutoff, solver,
           layerCount);
}

Plan mlir::telar::planner::nameMeshAxes(func::FuncOp main, const Plan &plan) {
  StringRef nameAttr = TelarDialect::NameAttrHelper::getNameStr();
  std::vector<bool> data(plan.mesh.getNumAxes(), false);
  for (BlockArgument arg : main.getArguments()) {
    auto name = main.getArgAttrOfType<StringAttr>(arg.getArgNumber(), nameAttr);
    if (!name)
      continue;
    auto it = plan.shardings.find(name.getValue().str());
    if (it == plan.shardings.end() || it->second.dims.empty())
      continue;
    for (int64_t a : it->second.dims[0])
      data[a] = true;
  }
  Plan out = plan;
  std::map<std::string, int> used;
  for (int64_t a = 0; a < plan.mesh.getNumAxes(); ++a) {
    std::string role = data[a] ? "data" : "model";
    int n = used[role]++;
    out.mesh.axisNames[a] = n ? role + std::to_string(n + 1) : role;
  }
  return out;
}

static std::string formatBytes(double bytes) {
  const char *units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  int u = 0;
  while (bytes >= 1024 && u < 4) {
    bytes /= 1024;
    ++u;
  }
  return llvm::formatv("{0:F1} {1}", bytes, units[u]).str();
}

FailureOr<SearchResult>
mlir::telar::planner::searchPlan(func::FuncOp main, const Profile &profile,
                                 const SearchOptions &options) {
  auto start = std::chrono::steady_clock::now();
  if (options.devices < 1)
    return mlir::emitError(main.getLoc()) << "--devices must be at least 1";
  // Meshes are enumerated by trial division of the device count.
  if (options.devices > telar_sharding::kMaxDevices)
    return mlir::emitError(main.getLoc())
           << "--devices " << options.devices << " is more than the "
           << telar_sharding::kMaxDevices << " devices Telar supports";
  SearchResult result;
  for (Operation &op : main.getBody().front().without_terminator()) {
    (void)op;
    ++result.numOps;
  }
  result.layers = findRepeatedLayers(main);

  std::vector<Mesh> meshes;
  bool fixedMesh = false;
  if (options.mesh) {
    meshes.push_back(*options.mesh);
    fixedMesh = true;
  } else if (options.constraints && options.constraints->mesh.getNumAxes()) {
    meshes.push_back(options.constraints->mesh);
    fixedMesh = true;
  } else if (options.devices == 1) {
    meshes.push_back(Mesh());
  } else {
    meshes = enumerateMeshes(options.devices, profile);
    // Two axes first, then one, then three: the cheapest plans so far
    // bound the search on the larger problems of three axes.
    std::stable_sort(meshes.begin(), meshes.end(),
                     [](const Mesh &a, const Mesh &b) {
                       auto rank = [](const Mesh &m) {
                         return m.getNumAxes() == 2 ? 0
                                                    : m.getNumAxes() == 1 ? 1
                                                                          : 2;
                       };
                       return rank(a) < rank(b);
                     });
  }
  for (const Mesh &m : meshes)
    if (m.getNumDevices() != options.devices)
      return mlir::emitError(main.getLoc())
             << "the mesh " << m.str() << " has " << m.getNumDevices()
             << " devices, but --devices is " << options.devices;

  double limit =
      options.memoryLimit > 0 ? options.memoryLimit : profile.memoryBytes;
  double best = std::numeric_limits<double>::infinity();
  bool any = false;
  double lastBuild = 0; // of the last three-axis mesh
  for (size_t i = 0; i < meshes.size(); ++i) {
    double elapsed = std::chrono::duration<double>(
                         std::chrono::steady_clock::now() - start)
                         .count();
    double remaining = std::max(0.05, options.timeLimitSeconds - elapsed);
    if (any && elapsed >= options.timeLimitSeconds) {
      // The time limit is used up: the meshes left are not searched.
      MeshSearch skipped;
      skipped.mesh = meshes[i];
      skipped.skipped = true;
      result.meshes.push_back(std::move(skipped));
      continue;
    }
    if (options.progress)
      options.progress(llvm::formatv("mesh {0}/{1}: {2}", i + 1,
                                     meshes.size(),
                                     meshes[i].getNumAxes()
                                         ? meshes[i].str()
                                         : std::string("one device"))
                           .str());
    std::optional<Plan> constraints;
    if (options.constraints) {
      constraints = *options.constraints;
      constraints->mesh = meshes[i];
    }
    // The time left is shared by the meshes left, but a three-axis mesh
    // gets at least half of it (the first) or 1.5x the build time of the
    // three-axis mesh before: fewer meshes searched usefully rather than all
    // cut off while their programs are built (those the limit then leaves
    // are reported as not searched).
    double share = remaining / double(meshes.size() - i);
    if (meshes[i].getNumAxes() >= 3)
      share = std::min(remaining,
                       std::max(share, lastBuild > 0 ? 1.5 * lastBuild
                                                      : remaining / 2));
    auto meshStart = std::chrono::steady_clock::now();
    // Only plans cheaper than the best so far are of interest.
    // (A plan as cheap as the best, within rounding, may still win by
    // having fewer axes.)
    MeshSearch s = planOnMesh(main, meshes[i], profile, constraints,
                              options.memoryLimit, share,
                              best * (1 + 1e-6));
    if (meshes[i].getNumAxes() >= 3)
      lastBuild = s.buildSeconds > 0
                      ? s.buildSeconds
                      : std::chrono::duration<double>(
                            std::chrono::steady_clock::now() - meshStart)
                            .count();
    if (s.solution.hasSolution()) {
      double objective = s.solution.objective;
      bool tie = any && std::abs(objective - best) <= 1e-9 * best;
      if (!any || (objective < best && !tie) ||
          (tie && s.mesh.getNumAxes() <
                      result.meshes[result.chosen].mesh.getNumAxes())) {
        best = any ? std::min(best, objective) : objective;
        result.chosen = result.meshes.size();
        any = true;
      }
    }
    result.meshes.push_back(std::move(s));
  }
  result.seconds = std::chrono::duration<double>(
                       std::chrono::steady_clock::now() - start)
                       .count();
  if (!any) {
    bool timedOut = llvm::any_of(result.meshes, [](const MeshSearch &s) {
      return s.solution.status == IlpSolution::Status::NoSolution;
    });
    if (timedOut)
      return mlir::emitError(main.getLoc())
             << "the search found no plan within its time limit ("
             << options.timeLimitSeconds
             << " s, --search-time-limit); raise it";
    double needed = std::numeric_limits<double>::infinity();
    for (const MeshSearch &s : result.meshes)
      needed = std::min(needed, s.minimumMemory);
    return mlir::emitError(main.getLoc())
           << "does not fit: the model needs at least " << int64_t(needed)
           << " bytes (" << formatBytes(needed) << ") per device on "
           << options.devices << " devices, but a device has "
           << int64_t(limit) << " (" << formatBytes(limit) << ")";
  }
  MeshSearch &chosen = result.meshes[result.chosen];
  result.plan = fixedMesh ? chosen.plan : nameMeshAxes(main, chosen.plan);
  if (!fixedMesh)
    chosen.mesh = result.plan.mesh;
  return result;
}
