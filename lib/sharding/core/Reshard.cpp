//===- Reshard.cpp - THE resharding function ------------------------------===//
//
// reshard() finds the cheapest sequence of steps from the source sharding to
// the target: a shortest-path search (A*, below) over shardings, where an edge
// is one step and its cost is (bytes each device sends, 1 collective unless
// it is a local slice, 1 step), compared lexicographically: fewest bytes
// first, then the fewest collectives (the latency), then the fewest steps.
// Ties are broken by a fixed order of discovery, so the result is
// deterministic. What the search may do from a sharding S (every state it
// visits is valid for the shape: each split dimension divisible by its
// axes' sizes):
//
//  - all_reduce: a set of S's partial axes that the target does not keep
//    partial stops being partial;
//  - reduce_scatter: such an axis becomes the minor-most axis of a dimension;
//  - all_gather: the minor-most axis of a dimension stops splitting it;
//  - all_to_all: the minor-most axes of a dimension move to the minor end of
//    another one;
//  - local_slice: a free axis (neither split nor partial) becomes the
//    minor-most axis of a dimension.
//
// Several axes in one step cost fewer bytes than one step each for an
// all-reduce or an all-to-all, so the search tries those sets; for the
// others the bytes are the same, and consecutive gathers, slices or
// reduce-scatters on one dimension are merged into one step afterwards.
//
// Only the minor-most axes of a dimension can leave it, and axes join at the
// minor end: dropping the major axis of a dimension split [a, b] takes
// gathering b (or moving it elsewhere) first. The search finds those orders,
// and cheaper detours no fixed recipe would: swapping the axes of two
// dimensions through a third by three all-to-alls instead of a gather, or
// slicing an axis the target wants elsewhere so that a reduce-scatter sends
// less, then moving it.
//
// A step over several axes lists them in ascending axis order, so that a
// member's index in the group (row-major over the step's axes in its order)
// is the one Abi.h's collectives use (row-major in ascending axis order);
// axes that would join or leave a dimension out of that order go one step
// each. Only axes of the source or the target take part (an unrelated axis is
// never sliced and gathered again to shrink an intermediate step), which keeps
// the steps readable and the search small: a few hundred shardings for a
// rank-3 tensor on a 3-D mesh, well under a millisecond.
//
// The search is an A* (getLowerBound estimates the bytes still to send, so
// that it expands few shardings beyond the cheapest path's), bounded by the
// cost of a fixed recipe (getRecipe: slice what is in place, reduce-scatter
// partial axes onto ready dimensions, move axes by all-to-all, all-reduce the
// rest, gather what blocks; always valid). It falls back to that recipe when
// it would expand more than kSearchBudget shardings, which only meshes of six
// or more axes reach.
//
// Partial axes are never created: a target partial on an axis the source is
// not partial on (with the same reduction) has no sequence.
//
//===----------------------------------------------------------------------===//

#include "telar/sharding/core/Reshard.h"

#include <algorithm>
#include <queue>
#include <tuple>
#include <unordered_map>

using namespace telar_sharding;

const char *telar_sharding::getStepKindName(StepKind kind) {
  switch (kind) {
  case StepKind::AllGather:
    return "all_gather";
  case StepKind::LocalSlice:
    return "local_slice";
  case StepKind::AllToAll:
    return "all_to_all";
  case StepKind::AllReduce:
    return "all_reduce";
  case StepKind::ReduceScatter:
    return "reduce_scatter";
  }
  return "?";
}

int64_t telar_sharding::getBytesSent(const std::vector<ReshardStep> &steps) {
  int64_t bytes = 0;
  for (const ReshardStep &step : steps)
    bytes += step.bytesSent;
  return bytes;
}

namespace {

/// A step without its derived fields (shardings, shapes, bytes).
struct Move {
  StepKind kind = StepKind::AllGather;
  std::vector<int64_t> axes;
  int64_t dim = -1;
  int64_t concatDim = -1;
};

/// What a sequence costs, compared lexicographically.
struct Cost {
  int64_t bytes = 0;       // sent by each device
  int64_t collectives = 0; // steps that communicate (latency)
  int64_t steps = 0;
  auto tie() const { return std::make_tuple(bytes, collectives, steps); }
  bool operator<(const Cost &o) const { return tie() < o.tie(); }
  bool operator<=(const Cost &o) const { return tie() <= o.tie(); }
  Cost operator+(const Cost &o) const {
    return Cost{bytes + o.bytes, collectives + o.collectives, steps + o.steps};
  }
};

bool isAscending(const std::vector<int64_t> &axes) {
  return std::is_sorted(axes.begin(), axes.end()) &&
         std::adjacent_find(axes.begin(), axes.end()) == axes.end();
}

/// The nonempty subsets of `axes` (each in the order of `axes`).
std::vector<std::vector<int64_t>> getSubsets(const std::vector<int64_t> &axes) {
  std::vector<std::vector<int64_t>> subsets;
  for (uint64_t mask = 1; mask < (uint64_t(1) << axes.size()); ++mask) {
    std::vector<int64_t> subset;
    for (size_t i = 0; i < axes.size(); ++i)
      if (mask & (uint64_t(1) << i))
        subset.push_back(axes[i]);
    subsets.push_back(std::move(subset));
  }
  return subsets;
}

/// A compact key of a sharding (axis indices are small).
std::string getKey(const Sharding &sharding) {
  std::string key;
  for (const auto &axes : sharding.dims) {
    for (int64_t axis : axes)
      key += char(axis + 1);
    key += '\xff';
  }
  for (const auto &p : sharding.partial)
    key += char(p.first + 1);
  return key;
}

/// The sharding after `move` (which must be legal on `before`).
Sharding applyMove(const Sharding &before, const Move &move) {
  Sharding after = before;
  auto removeMinor = [&](int64_t dim) {
    auto &axes = after.dims[dim];
    axes.resize(axes.size() - move.axes.size());
  };
  auto removePartial = [&] {
    auto &partial = after.partial;
    partial.erase(std::remove_if(partial.begin(), partial.end(),
                                 [&](const auto &p) {
                                   return std::find(move.axes.begin(),
                                                    move.axes.end(),
                                                    p.first) != move.axes.end();
                                 }),
                  partial.end());
  };
  auto appendMinor = [&](int64_t dim) {
    after.dims[dim].insert(after.dims[dim].end(), move.axes.begin(),
                           move.axes.end());
  };
  switch (move.kind) {
  case StepKind::AllGather:
    removeMinor(move.dim);
    break;
  case StepKind::LocalSlice:
    appendMinor(move.dim);
    break;
  case StepKind::AllToAll:
    removeMinor(move.concatDim);
    appendMinor(move.dim);
    break;
  case StepKind::AllReduce:
    removePartial();
    break;
  case StepKind::ReduceScatter:
    removePartial();
    appendMinor(move.dim);
    break;
  }
  return after;
}


/// One resharding problem.
class Resharder {
public:
  Resharder(const std::vector<int64_t> &shape, int64_t elementBytes,
            const Sharding &source, const Sharding &target, const Mesh &mesh)
      : shape(shape), elementBytes(elementBytes), source(source),
        target(target), mesh(mesh) {
    for (int64_t axis = 0; axis < mesh.getNumAxes(); ++axis)
      if (source.getDimOfAxis(axis) >= 0 || source.getPartialKind(axis) ||
          target.getDimOfAxis(axis) >= 0)
        relevantAxes.push_back(axis);
    // The smallest a local block can get: split by every axis that may
    // split (all relevant ones but those the target keeps partial).
    minLocalBytes = double(elementBytes);
    for (int64_t size : shape)
      minLocalBytes *= double(size);
    for (int64_t axis : relevantAxes)
      if (!target.getPartialKind(axis))
        minLocalBytes /= double(mesh.axisSizes[axis]);
    targetLocalBytes = getLocalBytes(target);
  }

  /// The fixed recipe (always valid, not always the cheapest).
  std::optional<std::vector<Move>> getRecipe() const;
  /// The cheapest sequence, or nullopt when none costs at most `bound` or
  /// the search expands more than `budget` shardings.
  std::optional<std::vector<Move>> search(const Cost &bound,
                                          int64_t budget) const;
  Cost getCost(const std::vector<Move> &moves) const;
  std::vector<ReshardStep> buildSteps(const std::vector<Move> &moves) const;

private:
  int64_t getLocalBytes(const Sharding &sharding) const {
    int64_t n = elementBytes;
    for (size_t d = 0; d < shape.size(); ++d)
      n *= shape[d] / getAxesSize(mesh, sharding.dims[d]);
    return n;
  }
  Cost getMoveCost(const Sharding &before, const Move &move) const {
    int64_t groupSize = getAxesSize(mesh, move.axes);
    return Cost{getStepBytes(move.kind, groupSize, getLocalBytes(before)),
                move.kind == StepKind::LocalSlice ? 0 : 1, 1};
  }
  bool canAppend(const Sharding &sharding, int64_t dim,
                 const std::vector<int64_t> &axes) const {
    int64_t n = getAxesSize(mesh, sharding.dims[dim]) * getAxesSize(mesh, axes);
    return shape[dim] % n == 0;
  }
  bool isReducible(const Sharding &sharding, int64_t axis) const {
    return sharding.getPartialKind(axis) && !target.getPartialKind(axis);
  }
  bool isFree(const Sharding &sharding, int64_t axis) const {
    return sharding.getDimOfAxis(axis) < 0 && !sharding.getPartialKind(axis);
  }
  /// Whether dimension `dim`'s axes are a prefix of the target's.
  bool isReady(const Sharding &sharding, int64_t dim) const {
    const auto &cur = sharding.dims[dim];
    const auto &want = target.dims[dim];
    return cur.size() <= want.size() &&
           std::equal(cur.begin(), cur.end(), want.begin());
  }
  /// The axis the target appends next on a ready `dim`, or -1.
  int64_t getNextAxis(const Sharding &sharding, int64_t dim) const {
    if (!isReady(sharding, dim) ||
        sharding.dims[dim].size() == target.dims[dim].size())
      return -1;
    return target.dims[dim][sharding.dims[dim].size()];
  }
  std::vector<Move> getMoves(const Sharding &sharding) const;

public:
  /// The bytes still to send from `sharding` at least (the A*'s estimate).
  int64_t getLowerBound(const Sharding &sharding) const;
  /// The group sizes of the partial axes still to resolve (`reduce`) and of
  /// the split axes that must leave their dimension (`leave`) from
  /// `sharding`: both 1 when local slices reach the target.
  void getPending(const Sharding &sharding, int64_t &reduce,
                  int64_t &leave) const;

private:

  const std::vector<int64_t> &shape;
  int64_t elementBytes;
  const Sharding &source;
  const Sharding &target;
  const Mesh &mesh;
  /// The axes of the source or the target: the others stay unused.
  std::vector<int64_t> relevantAxes;
  double minLocalBytes;
  int64_t targetLocalBytes;
};

} // namespace

int64_t telar_sharding::getStepBytes(StepKind kind, int64_t groupSize,
                                     int64_t bytes) {
  switch (kind) {
  case StepKind::AllGather:
    return (groupSize - 1) * bytes;
  case StepKind::LocalSlice:
    return 0;
  case StepKind::AllToAll:
  case StepKind::ReduceScatter:
    return (groupSize - 1) * bytes / groupSize;
  case StepKind::AllReduce:
    return 2 * (groupSize - 1) * bytes / groupSize;
  }
  return 0;
}

// The recipe, one move at a time, first that applies:
//  1. slice a free axis the target appends next on a dimension whose axes
//     are a prefix of the target's ("ready"): free, and it shrinks what
//     follows;
//  2. reduce-scatter a partial axis the target appends next on a ready
//     dimension;
//  3. all-to-all the minor-most axis of a dimension that is not ready when
//     the target appends it next on another, ready, dimension;
//  4. all-reduce the partial axes still to resolve (one step);
//  5. all-gather the minor-most axis of the first dimension not ready.
// Each move keeps the sharding valid (the target's prefixes divide), and
// when none of 1-3 and 5 applies and no partial axis is left to resolve,
// every dimension is the target's: the loop ends at the target.
std::optional<std::vector<Move>> Resharder::getRecipe() const {
  std::vector<Move> moves;
  Sharding cur = source;
  int64_t rank = cur.getRank();
  auto apply = [&](Move move) {
    cur = applyMove(cur, move);
    moves.push_back(std::move(move));
  };
  while (cur != target) {
    if (moves.size() > 4 * size_t(mesh.getNumAxes() + 1))
      return std::nullopt; // cannot happen; never loop forever
    bool moved = false;
    for (int64_t d = 0; d < rank && !moved; ++d) {
      int64_t next = getNextAxis(cur, d);
      if (next >= 0 && isFree(cur, next)) {
        apply(Move{StepKind::LocalSlice, {next}, d, -1});
        moved = true;
      }
    }
    for (int64_t d = 0; d < rank && !moved; ++d) {
      int64_t next = getNextAxis(cur, d);
      if (next >= 0 && isReducible(cur, next)) {
        apply(Move{StepKind::ReduceScatter, {next}, d, -1});
        moved = true;
      }
    }
    for (int64_t c = 0; c < rank && !moved; ++c) {
      if (isReady(cur, c))
        continue;
      int64_t axis = cur.dims[c].back();
      int64_t d = target.getDimOfAxis(axis);
      if (d >= 0 && d != c && getNextAxis(cur, d) == axis) {
        apply(Move{StepKind::AllToAll, {axis}, d, c});
        moved = true;
      }
    }
    if (!moved) {
      std::vector<int64_t> reducible;
      for (const auto &p : cur.partial)
        if (isReducible(cur, p.first))
          reducible.push_back(p.first);
      if (!reducible.empty()) {
        apply(Move{StepKind::AllReduce, reducible, -1, -1});
        moved = true;
      }
    }
    for (int64_t c = 0; c < rank && !moved; ++c) {
      if (!isReady(cur, c)) {
        apply(Move{StepKind::AllGather, {cur.dims[c].back()}, c, -1});
        moved = true;
      }
    }
    if (!moved)
      return std::nullopt;
  }
  return moves;
}

std::vector<Move> Resharder::getMoves(const Sharding &s) const {
  std::vector<Move> moves;
  int64_t rank = s.getRank();

  // Partial axes to resolve (all of one reduction: verifySharding).
  std::vector<int64_t> reducible;
  for (const auto &p : s.partial)
    if (isReducible(s, p.first))
      reducible.push_back(p.first);
  for (const auto &axes : getSubsets(reducible))
    moves.push_back(Move{StepKind::AllReduce, axes, -1, -1});
  for (int64_t d = 0; d < rank; ++d)
    for (int64_t axis : reducible)
      if (canAppend(s, d, {axis}))
        moves.push_back(Move{StepKind::ReduceScatter, {axis}, d, -1});

  // Minor-most axes leaving a dimension: to another one, or gathered.
  for (int64_t c = 0; c < rank; ++c) {
    const auto &dimAxes = s.dims[c];
    for (size_t k = 1; k <= dimAxes.size(); ++k) {
      std::vector<int64_t> axes(dimAxes.end() - k, dimAxes.end());
      if (!isAscending(axes))
        break; // so is every longer suffix
      for (int64_t d = 0; d < rank; ++d)
        if (d != c && canAppend(s, d, axes))
          moves.push_back(Move{StepKind::AllToAll, axes, d, c});
    }
    if (!dimAxes.empty())
      moves.push_back(Move{StepKind::AllGather, {dimAxes.back()}, c, -1});
  }

  // Free axes sliced in.
  std::vector<int64_t> free;
  for (int64_t axis : relevantAxes)
    if (isFree(s, axis))
      free.push_back(axis);
  for (int64_t d = 0; d < rank; ++d)
    for (int64_t axis : free)
      if (canAppend(s, d, {axis}))
        moves.push_back(Move{StepKind::LocalSlice, {axis}, d, -1});
  return moves;
}

// The search's heuristic (A*): a lower bound on the bytes still to send
// from `s`. The partial axes still to resolve, of group size R, must go
// through reduce-scatters or all-reduces, and the split axes that are not in
// the common prefix of their dimension with the target's, of group size M,
// must leave it by gathers or all-to-alls; over any local block of at least
// minLocalBytes (B), those cost at least (R-1)/R B and (M-1)/M B (several
// smaller groups cost more: sum (1 - 1/Gi) >= 1 - 1/prod Gi). And only a
// gather grows a local block, sending exactly what it grows by: reaching a
// target block larger than the current one sends at least the difference,
// on top of the reductions' bytes. The bound is the larger of the two; both
// are consistent (no step lowers one by more than it costs), so the first
// time the search reaches a sharding is the cheapest.
void Resharder::getPending(const Sharding &s, int64_t &reduce,
                           int64_t &leave) const {
  reduce = 1;
  for (const auto &p : s.partial)
    if (isReducible(s, p.first))
      reduce *= mesh.axisSizes[p.first];
  leave = 1;
  for (int64_t d = 0; d < s.getRank(); ++d) {
    const auto &cur = s.dims[d];
    const auto &want = target.dims[d];
    size_t common = 0;
    while (common < cur.size() && common < want.size() &&
           cur[common] == want[common])
      ++common;
    for (size_t i = common; i < cur.size(); ++i)
      leave *= mesh.axisSizes[cur[i]];
  }
}

int64_t Resharder::getLowerBound(const Sharding &s) const {
  int64_t reduce, leave;
  getPending(s, reduce, leave);
  double reduceBytes = minLocalBytes * (1.0 - 1.0 / double(reduce));
  double leaveBytes = minLocalBytes * (1.0 - 1.0 / double(leave));
  double growBytes =
      double(std::max<int64_t>(0, targetLocalBytes - getLocalBytes(s)));
  double bound = reduceBytes + std::max(leaveBytes, growBytes);
  // Less one byte for the rounding of the steps' integer bytes.
  return std::max<int64_t>(0, int64_t(bound) - 1);
}

std::optional<std::vector<Move>> Resharder::search(const Cost &bound,
                                                   int64_t budget) const {
  struct Node {
    Sharding sharding;
    Cost cost;        // from the source
    int64_t estimate; // getLowerBound(sharding)
    int64_t parent;
    Move move;
    bool done;
  };
  std::vector<Node> nodes;
  std::unordered_map<std::string, int64_t> index;
  // (cost + estimate, node): the node index breaks ties in discovery order.
  using Entry = std::tuple<int64_t, int64_t, int64_t, int64_t>;
  std::priority_queue<Entry, std::vector<Entry>, std::greater<Entry>> queue;

  nodes.push_back(
      Node{source, Cost{}, getLowerBound(source), -1, Move{}, false});
  index.emplace(getKey(source), 0);
  queue.emplace(nodes[0].estimate, 0, 0, 0);
  std::string targetKey = getKey(target);
  int64_t found = -1;
  int64_t expanded = 0;
  while (!queue.empty()) {
    auto [bytes, collectives, steps, id] = queue.top();
    queue.pop();
    Node &node = nodes[id];
    if (node.done || Cost{bytes - node.estimate, collectives, steps}.tie() !=
                         node.cost.tie())
      continue;
    node.done = true;
    if (getKey(node.sharding) == targetKey) {
      found = id;
      break;
    }
    if (++expanded > budget)
      return std::nullopt;
    Sharding current = node.sharding;
    Cost currentCost = node.cost;
    for (Move &move : getMoves(current)) {
      Cost cost = currentCost + getMoveCost(current, move);
      if (bound < cost)
        continue;
      Sharding after = applyMove(current, move);
      auto [it, inserted] = index.try_emplace(getKey(after), nodes.size());
      int64_t estimate;
      if (inserted) {
        estimate = getLowerBound(after);
        nodes.push_back(
            Node{std::move(after), cost, estimate, id, std::move(move), false});
      } else {
        Node &old = nodes[it->second];
        if (old.done || old.cost <= cost)
          continue;
        old.cost = cost;
        old.parent = id;
        old.move = std::move(move);
        estimate = old.estimate;
      }
      Cost total{cost.bytes + estimate, cost.collectives, cost.steps};
      if (bound < total)
        continue;
      queue.emplace(total.bytes, total.collectives, total.steps, it->second);
    }
  }
  if (found < 0)
    return std::nullopt;
  std::vector<Move> moves;
  for (int64_t id = found; id > 0; id = nodes[id].parent)
    moves.push_back(nodes[id].move);
  std::reverse(moves.begin(), moves.end());
  return moves;
}

/// Merges consecutive gathers, slices and reduce-scatters on one dimension
/// into one step when their axes stay ascending: the same bytes (e.g.
/// (Gb-1)B + (Ga-1)Gb B = (GaGb-1)B for gathering b then a), one step.
static std::vector<Move> mergeMoves(const std::vector<Move> &moves) {
  std::vector<Move> merged;
  for (const Move &move : moves) {
    if (!merged.empty()) {
      Move &last = merged.back();
      bool joins = move.kind == StepKind::LocalSlice ||
                   move.kind == StepKind::ReduceScatter;
      if (last.kind == move.kind && last.dim == move.dim &&
          (joins || move.kind == StepKind::AllGather)) {
        // Joining axes append after the last step's; leaving ones come from
        // before them.
        std::vector<int64_t> axes = joins ? last.axes : move.axes;
        const std::vector<int64_t> &rest = joins ? move.axes : last.axes;
        axes.insert(axes.end(), rest.begin(), rest.end());
        if (isAscending(axes)) {
          last.axes = std::move(axes);
          continue;
        }
      }
    }
    merged.push_back(move);
  }
  return merged;
}

Cost Resharder::getCost(const std::vector<Move> &moves) const {
  Cost cost;
  Sharding cur = source;
  for (const Move &move : moves) {
    cost = cost + getMoveCost(cur, move);
    cur = applyMove(cur, move);
  }
  return cost;
}

std::vector<ReshardStep>
Resharder::buildSteps(const std::vector<Move> &moves) const {
  std::vector<ReshardStep> steps;
  Sharding cur = source;
  for (const Move &move : moves) {
    ReshardStep step;
    step.kind = move.kind;
    step.axes = move.axes;
    step.dim = move.dim;
    step.concatDim = move.concatDim;
    if (step.kind == StepKind::AllReduce ||
        step.kind == StepKind::ReduceScatter)
      step.reduction = *cur.getPartialKind(step.axes.front());
    step.before = cur;
    step.after = applyMove(cur, move);
    step.inputShape = getLocalShape(shape, step.before, mesh);
    step.outputShape = getLocalShape(shape, step.after, mesh);
    step.bytesSent = getMoveCost(cur, move).bytes;
    cur = step.after;
    steps.push_back(std::move(step));
  }
  return steps;
}

/// The checks both entry points share; "" when the pair has a sequence.
static std::string checkPair(const std::vector<int64_t> &shape,
                             int64_t elementBytes, const Sharding &source,
                             const Sharding &target, const Mesh &mesh) {
  if (elementBytes < 0)
    return "negative element size " + std::to_string(elementBytes);
  if (std::string msg = verifySharding(source, mesh, shape); !msg.empty())
    return "invalid source sharding: " + msg;
  if (std::string msg = verifySharding(target, mesh, shape); !msg.empty())
    return "invalid target sharding: " + msg;
  for (const auto &[axis, kind] : target.partial) {
    std::optional<ReductionKind> sourceKind = source.getPartialKind(axis);
    if (!sourceKind)
      return "the target is partial on axis '" + mesh.axisNames[axis] + "' (" +
             getReductionName(kind) +
             ") but the source is not: partial values are never created";
    if (*sourceKind != kind)
      return "axis '" + mesh.axisNames[axis] + "' is partial with " +
             getReductionName(*sourceKind) + " in the source but " +
             getReductionName(kind) + " in the target";
  }
  return "";
}

/// Shardings the search may expand before reshard() settles for the
/// recipe, about 100 ms. It expands at most 139 for any pair of a rank-3
/// tensor on a 3-D mesh of the property test, some 500 (4 ms) for rank-4
/// tensors on 4-D meshes, 12000 on 6-D ones.
static constexpr int64_t kSearchBudget = 10000;

std::optional<std::vector<ReshardStep>>
telar_sharding::reshard(const std::vector<int64_t> &shape, int64_t elementBytes,
                        const Sharding &source, const Sharding &target,
                        const Mesh &mesh, std::string &error) {
  if (std::string msg = checkPair(shape, elementBytes, source, target, mesh);
      !msg.empty()) {
    error = msg;
    return std::nullopt;
  }
  if (source == target)
    return std::vector<ReshardStep>{};
  Resharder resharder(shape, elementBytes, source, target, mesh);
  std::optional<std::vector<Move>> recipe = resharder.getRecipe();
  if (!recipe) {
    error = "no resharding from " + formatSharding(source, mesh) + " to " +
            formatSharding(target, mesh);
    return std::nullopt;
  }
  std::optional<std::vector<Move>> best =
      resharder.search(resharder.getCost(*recipe), kSearchBudget);
  return resharder.buildSteps(mergeMoves(best ? *best : *recipe));
}

std::optional<ReshardBound> telar_sharding::getReshardLowerBound(
    const std::vector<int64_t> &shape, int64_t elementBytes,
    const Sharding &source, const Sharding &target, const Mesh &mesh) {
  if (!checkPair(shape, elementBytes, source, target, mesh).empty())
    return std::nullopt;
  ReshardBound bound;
  if (source == target)
    return bound;
  Resharder resharder(shape, elementBytes, source, target, mesh);
  int64_t reduce, leave;
  resharder.getPending(source, reduce, leave);
  bound.communicates = reduce > 1 || leave > 1;
  bound.bytes = resharder.getLowerBound(source);
  return bound;
}

std::optional<std::vector<ReshardStep>>
telar_sharding::reshardByRecipe(const std::vector<int64_t> &shape,
                                int64_t elementBytes, const Sharding &source,
                                const Sharding &target, const Mesh &mesh,
                                std::string &error) {
  if (std::string msg = checkPair(shape, elementBytes, source, target, mesh);
      !msg.empty()) {
    error = msg;
    return std::nullopt;
  }
  Resharder resharder(shape, elementBytes, source, target, mesh);
  std::optional<std::vector<Move>> recipe = resharder.getRecipe();
  if (!recipe) {
    error = "no resharding from " + formatSharding(source, mesh) + " to " +
            formatSharding(target, mesh);
    return std::nullopt;
  }
  return resharder.buildSteps(mergeMoves(*recipe));
}
