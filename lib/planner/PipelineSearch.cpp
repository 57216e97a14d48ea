//===- PipelineSearch.cpp - Pipeline stages: the inter-operator search ----===//
//
// See PipelineSearch.h. The pieces, in order: stage functions (a part of
// @main as a function of its own), the DP over an abstract cost and its
// brute-force reference, then the search: units, candidate submeshes,
// stage costs (memoised per stage kind, layer count and submesh, bisected
// over the layer counts), the DP per microbatch count, and the plan.
//
//===----------------------------------------------------------------------===//

#include "telar/planner/PipelineSearch.h"
#include "telar/dialects/Telar/TelarDialect.h"
#include "telar/sharding/OpSharding.h"
#include "telar/planner/CostModel.h"
#include "telar/sharding/Completion.h"

#include "telar/sharding/Microbatch.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/IRMapping.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/Support/FormatVariadic.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <numeric>
#include <set>
#include <tuple>

using namespace mlir;
using namespace mlir::telar;
using namespace mlir::telar::planner;
using telar_planner::Profile;
using telar_sharding::Mesh;
using telar_sharding::Plan;
using telar_sharding::PlanStage;
using telar_sharding::Sharding;

//===----------------------------------------------------------------------===//
// Stage functions
//===----------------------------------------------------------------------===//

llvm::DenseSet<Operation *>
mlir::telar::planner::getWeightOnlyOps(func::FuncOp main) {
  llvm::DenseSet<Operation *> fromWeights;
  for (Operation &op : main.getBody().front().without_terminator())
    if (llvm::all_of(op.getOperands(), [&](Value v) {
          Operation *d = v.getDefiningOp();
          return d && fromWeights.count(d);
        }))
      fromWeights.insert(&op);
  return fromWeights;
}

llvm::DenseMap<Value, std::string>
mlir::telar::planner::getNamesByValue(func::FuncOp main) {
  llvm::DenseMap<Value, std::string> out;
  for (const auto &[name, value] : getValueNames(main))
    out.try_emplace(value, name);
  return out;
}

std::unique_ptr<StageFunction>
mlir::telar::planner::buildStageFunction(func::FuncOp main,
                                         ArrayRef<Operation *> stageOps) {
  MLIRContext *ctx = main.getContext();
  Block &body = main.getBody().front();
  llvm::DenseSet<Operation *> inStage(stageOps.begin(), stageOps.end());
  llvm::DenseSet<Operation *> fromWeights = getWeightOnlyOps(main);
  // The weight-only ops the stage uses, transitively.
  llvm::DenseSet<Operation *> copied;
  std::function<void(Operation *)> addDeps = [&](Operation *op) {
    for (Value v : op->getOperands()) {
      Operation *d = v.getDefiningOp();
      if (d && fromWeights.count(d) && !inStage.count(d) &&
          copied.insert(d).second)
        addDeps(d);
    }
  };
  for (Operation *op : stageOps)
    addDeps(op);
  auto included = [&](Operation *op) {
    return inStage.count(op) || copied.count(op);
  };
  llvm::SetVector<Value> inputs, outputs;
  for (Operation &op : body.without_terminator()) {
    if (!included(&op))
      continue;
    for (Value v : op.getOperands()) {
      Operation *d = v.getDefiningOp();
      if (!d || !included(d))
        inputs.insert(v);
    }
  }
  for (Operation &op : body.without_terminator()) {
    if (!inStage.count(&op))
      continue;
    for (Value r : op.getResults())
      for (Operation *user : r.getUsers())
        if (!included(user))
          outputs.insert(r);
  }

  auto stage = std::make_unique<StageFunction>();
  Location loc = main.getLoc();
  stage->module = ModuleOp::create(loc);
  OpBuilder b(ctx);
  b.setInsertionPointToEnd(stage->module->getBody());
  SmallVector<Type> inTypes, outTypes;
  for (Value v : inputs)
    inTypes.push_back(v.getType());
  for (Value v : outputs)
    outTypes.push_back(v.getType());
  auto func = func::FuncOp::create(b, loc, "main",
                                   FunctionType::get(ctx, inTypes, outTypes));
  Block *entry = func.addEntryBlock();
  IRMapping map;
  llvm::DenseMap<Value, std::string> names = getNamesByValue(main);
  StringRef nameAttr = TelarDialect::NameAttrHelper::getNameStr();
  for (auto [i, v] : llvm::enumerate(inputs)) {
    map.map(v, entry->getArgument(i));
    auto it = names.find(v);
    if (it != names.end())
      func.setArgAttr(i, nameAttr, StringAttr::get(ctx, it->second));
  }
  b.setInsertionPointToEnd(entry);
  for (Operation &op : body.without_terminator()) {
    if (!included(&op))
      continue;
    Operation *clone = b.clone(op, map);
    for (auto [a, c] : llvm::zip(op.getResults(), clone->getResults())) {
      stage->toMain[c] = a;
      stage->fromMain[a] = c;
    }
  }
  SmallVector<Value> results;
  for (Value v : outputs)
    results.push_back(map.lookup(v));
  func::ReturnOp::create(b, loc, results);
  for (auto [i, v] : llvm::enumerate(inputs)) {
    stage->toMain[entry->getArgument(i)] = v;
    stage->fromMain[v] = entry->getArgument(i);
  }
  stage->func = func;
  stage->inputs.assign(inputs.begin(), inputs.end());
  stage->outputs.assign(outputs.begin(), outputs.end());
  return stage;
}

//===----------------------------------------------------------------------===//
// The dynamic program
//===----------------------------------------------------------------------===//

double mlir::telar::planner::getPipelineLatency(
    const std::vector<double> &stageSeconds, int64_t microbatches) {
  double sum = 0, max = 0;
  for (double t : stageSeconds) {
    sum += t;
    max = std::max(max, t);
  }
  return sum + double(microbatches - 1) * max;
}

/// Whether a submesh of `size` may start at `offset`.
static bool isAligned(int64_t offset, int64_t size, int64_t nodeSize) {
  return offset % std::min(size, nodeSize) == 0;
}

std::optional<StageDpSolution>
mlir::telar::planner::solveStageDp(const StageDpProblem &p) {
  int64_t U = p.numUnits, D = p.devices;
  size_t J = p.submeshSizes.size();
  if (U < 1 || D < 1 || J == 0)
    return std::nullopt;
  int64_t g = 0;
  for (int64_t n : p.submeshSizes)
    g = std::gcd(g, n);
  if (D % g)
    return std::nullopt;
  int64_t Dg = D / g;
  int64_t maxS = std::min(p.maxStages, U);
  int64_t minS = std::max<int64_t>(p.minStages, 1);
  if (minS > maxS)
    return std::nullopt;
  // The candidates: every (begin, end, submesh) with a cost.
  struct Candidate {
    int64_t end;
    size_t j;
    double t;
  };
  std::vector<std::vector<Candidate>> from(U);
  std::vector<double> times;
  for (int64_t b = 0; b < U; ++b)
    for (int64_t e = b + 1; e <= U; ++e)
      for (size_t j = 0; j < J; ++j) {
        if (p.submeshSizes[j] > D)
          continue;
        std::optional<double> t = p.cost(b, e, j);
        if (!t || !std::isfinite(*t))
          continue;
        from[b].push_back({e, j, *t});
        times.push_back(*t);
      }
  std::sort(times.begin(), times.end());
  times.erase(std::unique(times.begin(), times.end()), times.end());
  // Many distinct times (large problems): every 1/256 quantile, and the
  // largest (exact for up to 256 distinct times).
  if (times.size() > 256) {
    std::vector<double> some;
    for (size_t i = 0; i < 256; ++i)
      some.push_back(times[i * times.size() / 256]);
    some.push_back(times.back());
    some.erase(std::unique(some.begin(), some.end()), some.end());
    times = std::move(some);
  }
  // With one microbatch only the sum counts: the largest t_max alone.
  if (p.microbatches == 1 && !times.empty())
    times = {times.back()};
  const double inf = std::numeric_limits<double>::infinity();
  // Stage counts are tracked only when bounded (else one layer of states).
  bool trackStages = minS > 1 || maxS < U;
  int64_t layersS = trackStages ? maxS + 1 : 1;
  auto index = [&](int64_t s, int64_t u, int64_t d) {
    return (s * (U + 1) + u) * (Dg + 1) + d;
  };
  size_t numStates = size_t(layersS) * (U + 1) * (Dg + 1);
  std::vector<double> G(numStates);
  struct Parent {
    int64_t state = -1;
    int32_t candidate = -1;
  };
  std::vector<Parent> parent(numStates);
  std::optional<StageDpSolution> best;
  // The least sum of all (t_max unbounded) bounds every objective below:
  // the first pass is the largest t_max, then ascending.
  double leastSum = -1;
  if (times.size() > 1)
    std::rotate(times.begin(), times.end() - 1, times.end());
  for (double tmax : times) {
    if (best && leastSum >= 0 &&
        leastSum + double(p.microbatches - 1) * tmax >= best->objective)
      break;
    std::fill(G.begin(), G.end(), inf);
    G[index(0, 0, 0)] = 0;
    for (int64_t s = 0; s < layersS; ++s)
      for (int64_t u = 0; u < U; ++u)
        for (int64_t d = 0; d < Dg; ++d) {
          double here = G[index(s, u, d)];
          if (here == inf)
            continue;
          int64_t ns = trackStages ? s + 1 : 0;
          if (trackStages && ns > maxS)
            continue;
          for (size_t c = 0; c < from[u].size(); ++c) {
            const Candidate &cand = from[u][c];
            if (cand.t > tmax)
              continue;
            int64_t n = p.submeshSizes[cand.j];
            int64_t nd = d + n / g;
            if (nd > Dg || !isAligned(d * g, n, p.nodeSize))
              continue;
            size_t to = index(ns, cand.end, nd);
            double v = here + cand.t;
            if (v < G[to]) {
              G[to] = v;
              parent[to] = {int64_t(index(s, u, d)), int32_t(c)};
            }
          }
        }
    // The end states. Without tracking, the stage count is read back.
    for (int64_t s = trackStages ? minS : 0; s < layersS; ++s) {
      size_t end = index(s, U, Dg);
      if (G[end] == inf)
        continue;
      StageDpSolution sol;
      size_t state = end;
      double realMax = 0;
      while (state != size_t(index(0, 0, 0))) {
        Parent pa = parent[state];
        int64_t prev = pa.state;
        int64_t pu = (prev / (Dg + 1)) % (U + 1);
        int64_t pd = prev % (Dg + 1);
        const Candidate &cand = from[pu][pa.candidate];
        StageDpStage st;
        st.begin = pu;
        st.end = cand.end;
        st.submesh = cand.j;
        st.firstRank = pd * g;
        st.seconds = cand.t;
        realMax = std::max(realMax, cand.t);
        sol.stages.push_back(st);
        state = size_t(prev);
      }
      std::reverse(sol.stages.begin(), sol.stages.end());
      int64_t count = int64_t(sol.stages.size());
      if (count < minS || count > maxS)
        continue;
      sol.objective = G[end] + double(p.microbatches - 1) * realMax;
      if (leastSum < 0 || G[end] < leastSum)
        leastSum = G[end];
      if (!best || sol.objective < best->objective - 1e-15)
        best = std::move(sol);
    }
  }
  return best;
}

std::optional<StageDpSolution>
mlir::telar::planner::solveStageBruteForce(const StageDpProblem &p) {
  std::optional<StageDpSolution> best;
  std::vector<StageDpStage> current;
  std::function<void(int64_t, int64_t)> recurse = [&](int64_t u,
                                                      int64_t offset) {
    if (u == p.numUnits) {
      int64_t count = int64_t(current.size());
      if (offset != p.devices || count < p.minStages || count > p.maxStages)
        return;
      std::vector<double> t;
      for (const StageDpStage &s : current)
        t.push_back(s.seconds);
      double objective = getPipelineLatency(t, p.microbatches);
      if (!best || objective < best->objective - 1e-15)
        best = StageDpSolution{current, objective};
      return;
    }
    for (int64_t e = u + 1; e <= p.numUnits; ++e)
      for (size_t j = 0; j < p.submeshSizes.size(); ++j) {
        int64_t n = p.submeshSizes[j];
        if (offset + n > p.devices || !isAligned(offset, n, p.nodeSize))
          continue;
        std::optional<double> t = p.cost(u, e, j);
        if (!t || !std::isfinite(*t))
          continue;
        current.push_back({u, e, j, offset, *t});
        recurse(e, offset + n);
        current.pop_back();
      }
  };
  recurse(0, 0);
  return best;
}

//===----------------------------------------------------------------------===//
// Microbatches
//===----------------------------------------------------------------------===//

bool mlir::telar::planner::haveMicrobatchProgram() { return true; }

LogicalResult mlir::telar::planner::makeMicrobatches(func::FuncOp main,
                                                     int64_t microbatches) {
  if (microbatches == 1)
    return success();
  return success(succeeded(makeMicrobatchProgram(main, microbatches)));
}

/// Dim 0 of the first non-weight input (the batch), or 0.
static int64_t getBatch(func::FuncOp main) {
  for (BlockArgument arg : main.getArguments()) {
    auto type = dyn_cast<RankedTensorType>(arg.getType());
    if (type && type.getRank() > 0 && !type.isDynamicDim(0))
      return type.getDimSize(0);
  }
  return 0;
}

std::vector<int64_t>
mlir::telar::planner::getMicrobatchCandidates(func::FuncOp main,
                                              const PipelineOptions &options) {
  if (options.microbatches > 0)
    return {options.microbatches};
  if (!haveMicrobatchProgram())
    return {1};
  int64_t batch = getBatch(main);
  std::vector<int64_t> out;
  for (int64_t m = 1; m <= 16 && m <= std::max<int64_t>(batch, 1); ++m)
    if (batch > 0 && batch % m == 0)
      out.push_back(m);
  if (out.empty())
    out.push_back(1);
  return out;
}

//===----------------------------------------------------------------------===//
// The search
//===----------------------------------------------------------------------===//

namespace {

double elapsedSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() -
                                       start)
      .count();
}

bool isTensorValue(Value v) { return isa<RankedTensorType>(v.getType()); }

double valueBytes(Value v) {
  auto t = cast<RankedTensorType>(v.getType());
  if (!t.hasStaticShape())
    return 0;
  return double(t.getNumElements()) *
         double(getElementBytes(t.getElementType()));
}

/// The submeshes a stage may get (Alpa's: 1 x 2^k within a node, whole
/// nodes across), at most half the devices; with many nodes, the node
/// counts that divide the node count or are powers of two.
std::vector<int64_t> getSubmeshSizes(int64_t devices, int64_t nodeSize,
                                     int64_t maxSize) {
  std::set<int64_t> sizes;
  for (int64_t n = 1; n <= std::min(nodeSize, devices); n *= 2)
    sizes.insert(n);
  if (devices > nodeSize && devices % nodeSize == 0) {
    int64_t nodes = devices / nodeSize;
    for (int64_t k = 1; k <= nodes; ++k)
      if (nodes <= 16 || nodes % k == 0 || (k & (k - 1)) == 0)
        sizes.insert(k * nodeSize);
  } else if (devices > nodeSize || nodeSize == std::numeric_limits<int64_t>::max()) {
    for (int64_t n = 1; n <= devices; ++n)
      if (devices % n == 0)
        sizes.insert(n);
  }
  std::vector<int64_t> out;
  for (int64_t n : sizes)
    if (n <= maxSize && n <= devices)
      out.push_back(n);
  return out;
}

/// The meshes a stage of `size` devices is planned on: one axis within a
/// node; (nodes, node size) across nodes.
std::vector<Mesh> getStageMeshes(int64_t size, int64_t nodeSize) {
  Mesh m;
  if (size == 1)
    return {m};
  if (size <= nodeSize || size % nodeSize != 0) {
    m.axisNames = {"x"};
    m.axisSizes = {size};
    return {m};
  }
  m.axisNames = {"x", "y"};
  m.axisSizes = {size / nodeSize, nodeSize};
  return {m};
}

/// Local names of `a` -> the local names of the same values in `b`, when
/// the two functions are the same up to names and weights (stages of equal
/// layers); nullopt otherwise.
std::optional<std::map<std::string, std::string>>
matchStageNames(const StageFunction &a, const StageFunction &b) {
  func::FuncOp fa = a.func, fb = b.func;
  Block &ba = fa.getBody().front(), &bb = fb.getBody().front();
  if (ba.getNumArguments() != bb.getNumArguments() ||
      ba.getOperations().size() != bb.getOperations().size())
    return std::nullopt;
  llvm::DenseMap<Value, Value> map;
  for (auto [x, y] : llvm::zip(ba.getArguments(), bb.getArguments())) {
    if (x.getType() != y.getType())
      return std::nullopt;
    map[x] = y;
  }
  for (auto [x, y] : llvm::zip(ba.getOperations(), bb.getOperations())) {
    if (x.getName() != y.getName() ||
        x.getNumResults() != y.getNumResults())
      return std::nullopt;
    for (auto [rx, ry] : llvm::zip(x.getResults(), y.getResults())) {
      if (rx.getType() != ry.getType())
        return std::nullopt;
      map[rx] = ry;
    }
  }
  llvm::DenseMap<Value, std::string> namesB = getNamesByValue(fb);
  std::map<std::string, std::string> out;
  for (const auto &[name, v] : getValueNames(fa)) {
    auto it = namesB.find(map.lookup(v));
    if (it != namesB.end())
      out[name] = it->second;
  }
  return out;
}

/// The search for one microbatch program.
class PipelinePlanner {
public:
  PipelinePlanner(func::FuncOp main, const Profile &profile,
                  const SearchOptions &options, int64_t microbatches,
                  std::chrono::steady_clock::time_point start)
      : main(main), profile(profile), options(options),
        microbatches(microbatches), start(start) {}

  /// nullopt: nothing fits.
  std::optional<PipelineSearchResult> run(std::string &error);

  int64_t planOnMeshCalls = 0;

private:
  func::FuncOp main;
  const Profile &profile;
  const SearchOptions &options;
  int64_t microbatches;
  std::chrono::steady_clock::time_point start;

  std::vector<Operation *> ops;                 // the body
  llvm::DenseMap<Operation *, int64_t> opIndex;
  LayerStructure layers;
  /// Units: ranges of positions in layers.sequence.
  std::vector<std::pair<int64_t, int64_t>> units;
  bool layerUnits = false;
  std::vector<int64_t> sizes;
  double memoryLimit = 0;
  int64_t nodeSize = 0;

  /// Per (kind, layers or range, submesh size index).
  struct Entry {
    bool evaluated = false;
    bool fits = false;
    double seconds = 0;     // planOnMesh's objective + sends
    std::vector<unsigned> choice;
    bool interpolated = false;
  };
  std::map<std::tuple<int, int64_t, int64_t, size_t>, Entry> cache;
  /// (kind, submesh): layer counts filled.
  std::set<std::pair<int, size_t>> filled;
  /// Large problems: the stage lengths (in units) of balanced splits only,
  /// each planned directly (no bisection) while the time lasts.
  std::set<int64_t> allowedLengths;
  bool balancedOnly = false;
  bool outOfTime() const { return elapsedSince(start) >= timeLimit; }

public:
  /// Seconds since `start` this microbatch count may use.
  double timeLimit = std::numeric_limits<double>::infinity();

private:

  std::vector<Operation *> opsOfUnits(int64_t begin, int64_t end) const {
    std::vector<Operation *> out;
    int64_t from = units[begin].first, to = units[end - 1].second;
    for (int64_t q = from; q < to; ++q)
      out.push_back(ops[layers.sequence[q]]);
    return out;
  }
  void computeUnits(int64_t wantUnits);
  /// The seconds of units [b, e) on sizes[j] (nullopt: does not fit).
  std::optional<double> stageCost(int64_t b, int64_t e, size_t j);
  Entry &evaluate(int kind, int64_t k, int64_t b, int64_t e, size_t j);
  void fillLayerCounts(int kind, size_t j, int64_t kmin, int64_t kmax);
  /// For a layer-mode key: the units the representative function holds.
  std::pair<int64_t, int64_t> representative(int kind, int64_t k) const;
  double sendSeconds(const StageFunction &stage, int64_t size) const;
  double stageLimit(const StageFunction &stage, int64_t size) const;
  MeshSearch planStage(func::FuncOp func, int64_t size, double limit,
                       std::optional<int64_t> layerCount, double &seconds);
};

void PipelinePlanner::computeUnits(int64_t wantUnits) {
  int64_t n = int64_t(layers.sequence.size());
  units.clear();
  if (layers.count >= 2 && layers.count >= wantUnits) {
    layerUnits = true;
    for (int64_t u = 0; u < layers.count; ++u) {
      int64_t from = layers.start + u * layers.period;
      int64_t to = from + layers.period;
      if (u == 0)
        from = 0;
      if (u == layers.count - 1)
        to = n;
      units.push_back({from, to});
    }
    return;
  }
  // Op-level cut points: positions in program order where the fewest
  // values (not weights, not graph inputs) cross.
  layerUnits = false;
  if (n == 0)
    return;
  llvm::DenseSet<Operation *> fromWeights = getWeightOnlyOps(main);
  std::vector<int64_t> position(ops.size(), -1);
  for (int64_t q = 0; q < n; ++q)
    position[layers.sequence[q]] = q;
  // crossing[p]: values defined before position p used at or after it.
  std::vector<int64_t> delta(n + 2, 0);
  for (int64_t q = 0; q < n; ++q) {
    Operation *op = ops[layers.sequence[q]];
    for (Value r : op->getResults()) {
      int64_t last = -1;
      for (Operation *u : r.getUsers()) {
        auto it = opIndex.find(u);
        int64_t at = it == opIndex.end() ? n : position[it->second];
        if (at < 0)
          at = n; // a weight-only user: cannot be; be safe
        last = std::max(last, at);
      }
      if (last > q) {
        delta[q + 1] += 1;
        delta[std::min(last, n) + 1] -= 1;
      }
    }
  }
  std::vector<int64_t> crossing(n + 1, 0);
  int64_t run = 0;
  for (int64_t p = 0; p <= n; ++p) {
    run += delta[p];
    crossing[p] = run;
  }
  // A few units per stage wanted, spread evenly over the program: in the
  // window around each of the evenly spaced targets the position with the
  // fewest crossings (the nearest to the target among equals). Any position
  // is a valid cut (program order is a topological order); picking per
  // window rather than among the global minima keeps the units balanced
  // when the narrowest places cluster (bert's lie at its two ends).
  const int64_t numUnits = std::min<int64_t>(std::max<int64_t>(2 * wantUnits, 8), n);
  std::vector<int64_t> chosen;
  for (int64_t i = 1; i < numUnits; ++i) {
    int64_t target = n * i / numUnits;
    int64_t lo = std::max<int64_t>(
        {int64_t(1), (2 * n * i - n) / (2 * numUnits),
         chosen.empty() ? int64_t(1) : chosen.back() + 1});
    int64_t hi = std::min<int64_t>(n - 1, (2 * n * i + n) / (2 * numUnits));
    int64_t best = -1;
    for (int64_t p = lo; p <= hi; ++p)
      if (best < 0 || crossing[p] < crossing[best] ||
          (crossing[p] == crossing[best] &&
           std::abs(p - target) < std::abs(best - target)))
        best = p;
    if (best > 0)
      chosen.push_back(best);
  }
  int64_t from = 0;
  for (int64_t c : chosen) {
    units.push_back({from, c});
    from = c;
  }
  units.push_back({from, n});
}

double PipelinePlanner::sendSeconds(const StageFunction &stage,
                                    int64_t size) const {
  // The values later stages read, sent by the stage's ranks, spread over
  // them, at the level that joins submeshes (the network beyond one node).
  double bytes = 0;
  for (Value v : stage.outputs) {
    bool toLater = llvm::any_of(v.getUsers(), [&](Operation *u) {
      return !isa<func::ReturnOp>(u);
    });
    if (toLater && isTensorValue(v))
      bytes += valueBytes(v);
  }
  if (bytes == 0)
    return 0;
  const telar_planner::LinkLevel &level =
      options.devices <= nodeSize ? profile.levels.front()
                                  : profile.levels.back();
  double bandwidth = level.bandwidth > 0 ? level.bandwidth : 1e30;
  return level.latency + bytes / double(size) / bandwidth;
}

double PipelinePlanner::stageLimit(const StageFunction &stage,
                                   int64_t size) const {
  // The graph outputs a stage computes stay with it for every microbatch
  // (they are concatenated at the end): the other M - 1 microbatches'
  // blocks, spread over its devices, come off its memory.
  double kept = 0;
  for (Value v : stage.outputs)
    if (isTensorValue(v) && llvm::any_of(v.getUsers(), [](Operation *u) {
          return isa<func::ReturnOp>(u);
        }))
      kept += valueBytes(v);
  double limit = memoryLimit - double(microbatches - 1) * kept / double(size);
  return std::max(limit, 1.0);
}

MeshSearch PipelinePlanner::planStage(func::FuncOp func, int64_t size,
                                      double limit,
                                      std::optional<int64_t> layerCount,
                                      double &seconds) {
  MeshSearch best;
  seconds = std::numeric_limits<double>::infinity();
  double remaining = std::max(
      0.05, std::min(options.timeLimitSeconds, timeLimit) - elapsedSince(start));
  for (const Mesh &mesh : getStageMeshes(size, nodeSize)) {
    ++planOnMeshCalls;
    MeshSearch s =
        planOnMesh(func, mesh, profile, std::nullopt, limit,
                   std::min(remaining, std::max(0.5, remaining / 8)),
                   std::numeric_limits<double>::infinity(), Solver::Cbc,
                   layerCount);
    if (s.solution.hasSolution() && s.solution.objective < seconds) {
      seconds = s.solution.objective;
      best = std::move(s);
    } else if (!best.solution.hasSolution()) {
      best = std::move(s);
    }
  }
  return best;
}

std::pair<int64_t, int64_t> PipelinePlanner::representative(int kind,
                                                            int64_t k) const {
  int64_t U = int64_t(units.size());
  int64_t r = std::min<int64_t>(k, 2);
  switch (kind) {
  case 0: return {1, 1 + r};   // middle
  case 1: return {0, r};       // first
  case 2: return {U - r, U};   // last
  default: return {0, U};
  }
}

PipelinePlanner::Entry &PipelinePlanner::evaluate(int kind, int64_t k,
                                                  int64_t b, int64_t e,
                                                  size_t j) {
  Entry &entry = cache[{kind, k, layerUnits ? 0 : b, j}];
  if (entry.evaluated && !entry.interpolated)
    return entry;
  if (balancedOnly && outOfTime()) {
    entry.evaluated = true;
    entry.fits = false; // not planned: the time limit was used up
    return entry;
  }
  std::optional<int64_t> layerCount;
  if (layerUnits) {
    std::tie(b, e) = representative(kind, k);
    if (k >= 2)
      layerCount = k;
  }
  std::unique_ptr<StageFunction> stage =
      buildStageFunction(main, opsOfUnits(b, e));
  double seconds = 0;
  MeshSearch s = planStage(stage->func, sizes[j],
                           stageLimit(*stage, sizes[j]), layerCount, seconds);
  entry.evaluated = true;
  entry.interpolated = false;
  entry.fits = s.solution.hasSolution();
  entry.choice = s.solution.choice;
  entry.seconds =
      entry.fits ? seconds + sendSeconds(*stage, sizes[j]) : 0;
  return entry;
}

void PipelinePlanner::fillLayerCounts(int kind, size_t j, int64_t kmin,
                                      int64_t kmax) {
  if (!filled.insert({kind, j}).second || kmin > kmax)
    return;
  // k = 1 is planned on a function of one layer, the rest on two.
  if (kmin == 1) {
    evaluate(kind, 1, 0, 0, j);
    kmin = 2;
  }
  if (kmin > kmax)
    return;
  auto key = [&](int64_t k) { return std::make_tuple(kind, k, int64_t(0), j); };
  // More layers need more memory: the counts that fit are a prefix.
  Entry &top = evaluate(kind, kmax, 0, 0, j);
  if (!top.fits) {
    Entry &bottom = evaluate(kind, kmin, 0, 0, j);
    if (!bottom.fits) {
      for (int64_t k = kmin + 1; k < kmax; ++k)
        cache[key(k)] = Entry{true, false, 0, {}, false};
      return;
    }
    int64_t lo = kmin, hi = kmax; // lo fits, hi does not
    while (hi - lo > 1) {
      int64_t mid = (lo + hi) / 2;
      (evaluate(kind, mid, 0, 0, j).fits ? lo : hi) = mid;
    }
    for (int64_t k = hi + 1; k < kmax; ++k)
      cache[key(k)] = Entry{true, false, 0, {}, false};
    kmax = lo;
  }
  // Between two counts planned alike, the plan's cost is affine in the
  // count: interpolate; else bisect.
  std::function<void(int64_t, int64_t)> fill = [&](int64_t lo, int64_t hi) {
    if (hi - lo <= 1)
      return;
    Entry &a = evaluate(kind, lo, 0, 0, j);
    Entry &c = evaluate(kind, hi, 0, 0, j);
    if (a.choice == c.choice) {
      for (int64_t k = lo + 1; k < hi; ++k) {
        Entry &m = cache[key(k)];
        if (m.evaluated)
          continue;
        m.evaluated = true;
        m.interpolated = true;
        m.fits = true;
        m.choice = a.choice;
        m.seconds = a.seconds + (c.seconds - a.seconds) * double(k - lo) /
                                    double(hi - lo);
      }
      return;
    }
    int64_t mid = (lo + hi) / 2;
    evaluate(kind, mid, 0, 0, j);
    fill(lo, mid);
    fill(mid, hi);
  };
  evaluate(kind, kmin, 0, 0, j);
  fill(kmin, kmax);
}

std::optional<double> PipelinePlanner::stageCost(int64_t b, int64_t e,
                                                 size_t j) {
  int64_t U = int64_t(units.size());
  if (b == 0 && e == U)
    return std::nullopt; // one stage: the one-stage search's
  if (!allowedLengths.empty() && !allowedLengths.count(e - b))
    return std::nullopt;
  if (layerUnits) {
    int kind = b == 0 ? 1 : e == U ? 2 : 0;
    int64_t k = e - b;
    int64_t kmax = kind == 0 ? U - 2 : U - 1;
    if (!balancedOnly)
      fillLayerCounts(kind, j, 1, kmax);
    auto it = cache.find({kind, k, 0, j});
    if (balancedOnly && it == cache.end() && !outOfTime()) {
      evaluate(kind, k, 0, 0, j);
      it = cache.find({kind, k, 0, j});
    }
    if (it == cache.end() || !it->second.fits)
      return std::nullopt;
    return it->second.seconds;
  }
  if (balancedOnly && outOfTime() && !cache.count({3, e, b, j}))
    return std::nullopt;
  Entry &entry = evaluate(3, e, b, e, j);
  if (!entry.fits)
    return std::nullopt;
  return entry.seconds;
}

std::optional<PipelineSearchResult>
PipelinePlanner::run(std::string &error) {
  for (Operation &op : main.getBody().front().without_terminator()) {
    opIndex[&op] = int64_t(ops.size());
    ops.push_back(&op);
  }
  layers = findRepeatedLayers(main);
  const PipelineOptions &po = options.pipeline;
  int64_t positions = po.stages > 0 ? po.stages / po.virtualStages : 0;
  int64_t wantStages = po.stages > 0 ? po.stages : 2;
  computeUnits(wantStages);
  int64_t U = int64_t(units.size());
  if (U < wantStages) {
    error = llvm::formatv("the program has {0} places to cut it into "
                          "stages; {1} stages need {2}",
                          U > 0 ? U - 1 : 0, wantStages, wantStages - 1)
                .str();
    return std::nullopt;
  }
  nodeSize = profile.getNodeSize();
  memoryLimit =
      options.memoryLimit > 0 ? options.memoryLimit : profile.memoryBytes;
  int64_t D = options.devices;
  int64_t V = std::max<int64_t>(po.virtualStages, 1);

  StageDpProblem problem;
  problem.numUnits = U;
  problem.nodeSize = nodeSize;
  problem.microbatches = microbatches;
  if (V > 1) {
    // Interleaved: P positions of equal submeshes, each running V stages.
    // The DP cuts S = P * V stages on the one submesh size D / P, each
    // stage costed as if it had all D / P devices.
    if (positions < 2 || D % positions) {
      error = llvm::formatv("--virtual-stages {0}: {1} devices do not "
                            "split into {2} positions",
                            V, D, positions)
                  .str();
      return std::nullopt;
    }
    sizes = {D / positions};
    problem.devices = D * V;
  } else {
    sizes = getSubmeshSizes(D, nodeSize, po.stages == 1 ? D : D / 2);
    problem.devices = D;
  }
  // Large problems (many devices or units): the stage counts S that are
  // powers of two (or the one forced) dividing the devices, each with the
  // balanced lengths floor(U / S) and ceil(U / S) and the submesh of D / S
  // devices; the DP still mixes them (stages of D / 2 and D / 4 devices,
  // ...). Stage costs are planned in the order of S until the time limit.
  if (V == 1 && (D > 16 || U * int64_t(sizes.size()) > 256)) {
    std::vector<int64_t> counts;
    if (po.stages > 0)
      counts.push_back(po.stages);
    else {
      for (int64_t S = 2; S <= U; S *= 2)
        counts.push_back(S);
      // And the stage counts of equal stages on whole nodes: S dividing
      // the units, D / S a multiple of the node size.
      for (int64_t S = 3; S <= U; ++S)
        if ((S & (S - 1)) != 0 && U % S == 0 && D % S == 0 &&
            nodeSize < std::numeric_limits<int64_t>::max() &&
            (D / S) % nodeSize == 0)
          counts.push_back(S);
    }
    std::set<int64_t> kept;
    for (int64_t S : counts) {
      if (D % S)
        continue;
      allowedLengths.insert(U / S);
      allowedLengths.insert((U + S - 1) / S);
      kept.insert(D / S);
    }
    if (kept.empty()) {
      error = llvm::formatv("{0} devices do not split into the stage "
                            "counts tried",
                            D)
                  .str();
      return std::nullopt;
    }
    sizes.assign(kept.rbegin(), kept.rend());
    balancedOnly = true;
    // In the order of S: for each its lengths and kinds.
    for (int64_t S : counts) {
      if (D % S)
        continue;
      size_t j = std::find(sizes.begin(), sizes.end(), D / S) - sizes.begin();
      for (int64_t k : {U / S, (U + S - 1) / S}) {
        if (layerUnits) {
          for (int kind : {1, 0, 2})
            if (kind != 0 || k <= U - 2)
              evaluate(kind, k, 0, 0, j);
        }
      }
    }
  }
  if (V > 1)
    memoryLimit /= double(V); // a position holds its V stages
  problem.submeshSizes = sizes;
  problem.minStages = po.stages > 0 ? po.stages : 2;
  problem.maxStages = po.stages > 0 ? po.stages : U;
  problem.cost = [&](int64_t b, int64_t e, size_t j) {
    return stageCost(b, e, j);
  };
  std::optional<StageDpSolution> sol = solveStageDp(problem);
  if (!sol)
    return std::nullopt;

  // The plan: each stage planned on its own function (stages alike share
  // the plan of the first, by position).
  PipelineSearchResult result;
  result.microbatches = microbatches;
  result.virtualStages = V;
  result.schedule = po.schedule ? *po.schedule
                                : V > 1 ? telar_sharding::ScheduleKind::Interleaved
                                        : telar_sharding::ScheduleKind::GPipe;
  result.numUnits = U;
  result.layerUnits = layerUnits;
  result.latency = sol->objective;
  llvm::DenseMap<Value, std::string> names = getNamesByValue(main);
  llvm::DenseSet<Operation *> fromWeights = getWeightOnlyOps(main);
  std::vector<double> seconds;
  // Stages of the same kind, length and submesh share one plan.
  struct Planned {
    std::unique_ptr<StageFunction> function;
    Plan named;
    double seconds = 0;
  };
  std::map<std::tuple<int, int64_t, int64_t, size_t>, Planned> planned;
  for (size_t s = 0; s < sol->stages.size(); ++s) {
    const StageDpStage &st = sol->stages[s];
    std::unique_ptr<StageFunction> stage =
        buildStageFunction(main, opsOfUnits(st.begin, st.end));
    int64_t size = sizes[st.submesh];
    int kind = st.begin == 0 ? 1 : st.end == U ? 2 : 0;
    auto key = layerUnits
                   ? std::make_tuple(kind, st.end - st.begin, int64_t(0),
                                     st.submesh)
                   : std::make_tuple(3, st.end, st.begin, st.submesh);
    Plan named;
    double t = 0;
    auto found = planned.find(key);
    std::optional<std::map<std::string, std::string>> renames;
    if (found != planned.end())
      renames = matchStageNames(*found->second.function, *stage);
    if (renames) {
      named.mesh = found->second.named.mesh;
      for (const auto &[name, sharding] : found->second.named.shardings) {
        auto it = renames->find(name);
        if (it != renames->end())
          named.shardings[it->second] = sharding;
      }
      t = found->second.seconds;
    } else {
      MeshSearch ms = planStage(stage->func, size, stageLimit(*stage, size),
                                std::nullopt, t);
      if (!ms.solution.hasSolution()) {
        error = llvm::formatv("stage {0} (units {1}-{2}) does not fit on {3} "
                              "devices when planned on its own",
                              s, st.begin, st.end - 1, size)
                    .str();
        return std::nullopt;
      }
      t += sendSeconds(*stage, size);
      named = nameMeshAxes(stage->func, ms.plan);
    }
    seconds.push_back(t);
    PlanStage ps;
    ps.mesh = named.mesh;
    ps.firstRank = V > 1 ? st.firstRank % D : st.firstRank;
    std::map<std::string, Value> localByName = getValueNames(stage->func);
    for (const auto &[local, sharding] : named.shardings) {
      auto it = localByName.find(local);
      if (it == localByName.end())
        continue;
      auto back = stage->toMain.find(it->second);
      if (back == stage->toMain.end())
        continue;
      auto global = names.find(back->second);
      if (global != names.end())
        ps.shardings[global->second] = sharding;
    }
    for (Operation *op : opsOfUnits(st.begin, st.end)) {
      if (fromWeights.count(op))
        continue;
      for (Value r : op->getResults()) {
        auto it = names.find(r);
        if (it != names.end())
          ps.ops.push_back(it->second);
      }
    }
    result.plan.stages.push_back(std::move(ps));
    if (!renames && found == planned.end())
      planned[key] = Planned{std::move(stage), named, t};
    PipelineSearchResult::Stage info;
    info.beginUnit = st.begin;
    info.endUnit = st.end;
    info.seconds = t;
    if (layerUnits) {
      info.description =
          st.end - st.begin == 1
              ? llvm::formatv("layer {0}", st.begin).str()
              : llvm::formatv("layers {0}-{1}", st.begin, st.end - 1).str();
      if (st.begin == 0 && layers.start > 0)
        info.description += llvm::formatv(" + {0} ops before", layers.start);
      int64_t after = int64_t(layers.sequence.size()) -
                      (layers.start + layers.count * layers.period);
      if (st.end == U && after > 0)
        info.description += llvm::formatv(" + {0} ops after", after);
    } else {
      info.description =
          llvm::formatv("ops {0}-{1}", units[st.begin].first,
                        units[st.end - 1].second - 1)
              .str();
    }
    result.stages.push_back(std::move(info));
  }
  result.latency = V > 1 ? result.latency : getPipelineLatency(seconds, microbatches);
  telar_sharding::PlanSchedule schedule;
  schedule.kind = telar_sharding::getScheduleKindName(result.schedule);
  schedule.microbatches = microbatches;
  schedule.virtualStages = V;
  result.plan.schedule = schedule;
  result.stageCosts = int64_t(cache.size());
  return result;
}

} // namespace

FailureOr<std::optional<PipelineSearchResult>>
mlir::telar::planner::searchPipeline(func::FuncOp main, const Profile &profile,
                                     const SearchOptions &options) {
  auto start = std::chrono::steady_clock::now();
  const PipelineOptions &po = options.pipeline;
  if (po.disabled || po.stages == 1)
    return std::optional<PipelineSearchResult>();
  int64_t V = std::max<int64_t>(po.virtualStages, 1);
  if (V > 1 && (po.stages < 2 * V || po.stages % V))
    return mlir::emitError(main.getLoc())
           << "--virtual-stages " << V
           << " needs --pipeline-stages P x " << V << " with P >= 2";
  if (options.devices < 2 && po.stages < 2)
    return std::optional<PipelineSearchResult>();
  if (po.stages / V > options.devices)
    return mlir::emitError(main.getLoc())
           << "--pipeline-stages " << po.stages << " needs at least "
           << po.stages / V << " devices (one per position); --devices is "
           << options.devices;
  std::vector<int64_t> candidates = getMicrobatchCandidates(main, po);
  std::optional<PipelineSearchResult> best;
  std::vector<std::pair<int64_t, double>> perM;
  int64_t calls = 0;
  std::string lastError;
  ModuleOp module = main->getParentOfType<ModuleOp>();
  // More microbatches first (they make the better pipelines), one last;
  // each count gets its share of the time limit.
  std::sort(candidates.begin(), candidates.end(), [](int64_t a, int64_t b) {
    return (a == 1) != (b == 1) ? b == 1 : a > b;
  });
  for (size_t i = 0; i < candidates.size(); ++i) {
    int64_t m = candidates[i];
    if (best && elapsedSince(start) >= options.timeLimitSeconds)
      break;
    if (options.progress)
      options.progress(llvm::formatv("pipelines with {0} microbatch(es)", m)
                           .str());
    OwningOpRef<ModuleOp> copy = module.clone();
    auto copyMain = copy->lookupSymbol<func::FuncOp>("main");
    if (m > 1) {
      // A microbatch count the program cannot take is no candidate
      // (unless forced: then its error is the answer).
      std::string why;
      LogicalResult made = success();
      {
        ScopedDiagnosticHandler quiet(main.getContext(), [&](Diagnostic &d) {
          if (why.empty())
            why = d.str();
          return success();
        });
        made = makeMicrobatches(copyMain, m);
      }
      if (failed(made)) {
        if (po.microbatches > 0)
          return mlir::emitError(main.getLoc()) << why;
        perM.push_back({m, std::numeric_limits<double>::infinity()});
        continue;
      }
    }
    PipelinePlanner planner(copyMain, profile, options, m, start);
    planner.timeLimit = options.timeLimitSeconds * double(i + 1) /
                        double(candidates.size());
    std::string error;
    std::optional<PipelineSearchResult> r = planner.run(error);
    calls += planner.planOnMeshCalls;
    if (!error.empty()) {
      if (po.stages > 0)
        return mlir::emitError(main.getLoc()) << "--pipeline-stages " << po.stages << ": "
                                << error;
      lastError = error;
    }
    perM.push_back({m, r ? r->latency : std::numeric_limits<double>::infinity()});
    if (r && (!best || r->latency < best->latency))
      best = std::move(r);
  }
  if (!best) {
    if (po.stages > 0)
      return mlir::emitError(main.getLoc())
             << "--pipeline-stages " << po.stages
             << ": no pipeline of that many stages fits the memory limit on "
             << options.devices << " devices";
    return std::optional<PipelineSearchResult>();
  }
  best->planOnMeshCalls = calls;
  best->perMicrobatches = perM;
  best->seconds = elapsedSince(start);
  return best;
}
