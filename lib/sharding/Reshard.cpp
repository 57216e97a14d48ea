//===- Reshard.cpp - THE resharding function ------------------------------===//
//
// reshard() finds the cheapest sequence of steps from the source sharding to
// the target: a shortest-path search (Dijkstra) over shardings, where an edge
// is one step and its cost is (bytes each device sends, 1 step), compared
// lexicographically: fewest bytes first, then fewest steps. Ties are broken
// by a fixed order of discovery, so the result is deterministic. What the
// search may do from a sharding S (every state it visits is valid for the
// shape: each split dimension divisible by its axes' sizes):
//
//  - all_reduce: a set of S's partial axes that the target does not keep
//    partial stops being partial;
//  - reduce_scatter: such a set becomes the minor-most axes of a dimension;
//  - all_gather: the minor-most axes of a dimension stop splitting it;
//  - all_to_all: the minor-most axes of a dimension move to the minor end of
//    another one;
//  - local_slice: free axes (neither split nor partial) become the minor-most
//    axes of a dimension.
//
// Only the minor-most axes of a dimension can leave it, and axes join at the
// minor end: dropping the major axis of a dimension split [a, b] takes
// gathering b (or moving it elsewhere) first. The search finds those orders,
// and cheaper detours no fixed recipe would (e.g. swapping the axes of two
// dimensions through a third by three all-to-alls instead of a gather).
//
// A step over several axes lists them in ascending axis order, so that a
// member's index in the group (row-major over the step's axes in its order)
// is the one Abi.h's collectives use (row-major in ascending axis order);
// axes that would join or leave a dimension out of that order go one step
// each. Only axes of the source or the target take part (an unrelated axis is
// never sliced and gathered again to shrink an intermediate step), which keeps
// the steps readable and the search small: a few hundred states for a rank-3
// tensor on a 3-D mesh.
//
// Partial axes are never created: a target partial on an axis the source is
// not partial on (with the same reduction) has no sequence.
//
//===----------------------------------------------------------------------===//

#include "telar/sharding/Reshard.h"

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
  StepKind kind;
  std::vector<int64_t> axes;
  int64_t dim = -1;
  int64_t concatDim = -1;
};

struct Node {
  Sharding sharding;
  int64_t bytes = 0;
  int64_t steps = 0;
  int64_t parent = -1;
  Move move;
  bool done = false;
};

/// A compact key of a sharding (axis and dimension indices are small).
std::string getKey(const Sharding &sharding) {
  std::string key;
  for (const auto &axes : sharding.dims) {
    for (int64_t axis : axes)
      key += char(axis + 1);
    key += '\xff';
  }
  for (const auto &[axis, kind] : sharding.partial)
    key += char(axis + 1);
  return key;
}

bool isAscending(const std::vector<int64_t> &axes) {
  return std::is_sorted(axes.begin(), axes.end()) &&
         std::adjacent_find(axes.begin(), axes.end()) == axes.end();
}

/// The subsets of `axes` (ascending), smallest masks first.
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

class Search {
public:
  Search(const std::vector<int64_t> &shape, int64_t elementBytes,
         const Sharding &target, const Mesh &mesh,
         std::vector<int64_t> relevantAxes)
      : shape(shape), elementBytes(elementBytes), target(target), mesh(mesh),
        relevantAxes(std::move(relevantAxes)) {}

  /// nullopt when the target is unreachable (never, for the valid pairs
  /// reshard() lets through: all-reduce, gather everything, then slice).
  std::optional<std::vector<ReshardStep>> run(const Sharding &source);

private:
  int64_t getLocalBytes(const Sharding &sharding) const {
    int64_t n = elementBytes;
    for (int64_t size : getLocalShape(shape, sharding, mesh))
      n *= size;
    return n;
  }
  bool canAppend(const Sharding &sharding, int64_t dim,
                 const std::vector<int64_t> &axes) const {
    int64_t n = getAxesSize(mesh, sharding.dims[dim]) * getAxesSize(mesh, axes);
    return shape[dim] % n == 0;
  }
  std::vector<Move> getMoves(const Sharding &sharding) const;
  void relax(int64_t from, int64_t fromBytes, const Move &move);

  const std::vector<int64_t> &shape;
  int64_t elementBytes;
  const Sharding &target;
  const Mesh &mesh;
  std::vector<int64_t> relevantAxes;

  std::vector<Node> nodes;
  std::unordered_map<std::string, int64_t> index;
  // (bytes, steps, node): the node index breaks ties in discovery order.
  using Entry = std::tuple<int64_t, int64_t, int64_t>;
  std::priority_queue<Entry, std::vector<Entry>, std::greater<Entry>> queue;
};

} // namespace

/// The sharding after `move`.
static Sharding applyMove(const Sharding &before, const Move &move) {
  Sharding after = before;
  auto removeMinor = [&](int64_t dim) {
    auto &axes = after.dims[dim];
    axes.resize(axes.size() - move.axes.size());
  };
  auto removePartial = [&]() {
    auto &partial = after.partial;
    partial.erase(std::remove_if(partial.begin(), partial.end(),
                                 [&](const auto &p) {
                                   return std::find(move.axes.begin(),
                                                    move.axes.end(),
                                                    p.first) !=
                                          move.axes.end();
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

/// The bytes each device sends in a step over a group of `groupSize` with a
/// local input of `bytes` (Reshard.h).
static int64_t getStepBytes(StepKind kind, int64_t groupSize, int64_t bytes) {
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

std::vector<Move> Search::getMoves(const Sharding &s) const {
  std::vector<Move> moves;
  int64_t rank = s.getRank();

  // Partial axes to resolve (all of one reduction: verifySharding).
  std::vector<int64_t> reducible;
  for (const auto &[axis, kind] : s.partial)
    if (!target.getPartialKind(axis))
      reducible.push_back(axis);
  std::vector<std::vector<int64_t>> reducibleSets = getSubsets(reducible);
  for (const auto &axes : reducibleSets)
    moves.push_back(Move{StepKind::AllReduce, axes, -1, -1});
  for (int64_t d = 0; d < rank; ++d)
    for (const auto &axes : reducibleSets)
      if (canAppend(s, d, axes))
        moves.push_back(Move{StepKind::ReduceScatter, axes, d, -1});

  // Minor-most axes leaving a dimension: to another one, or gathered.
  for (int64_t c = 0; c < rank; ++c) {
    const auto &dimAxes = s.dims[c];
    for (size_t k = 1; k <= dimAxes.size(); ++k) {
      std::vector<int64_t> axes(dimAxes.end() - k, dimAxes.end());
      if (!isAscending(axes))
        break; // a longer suffix contains this one
      for (int64_t d = 0; d < rank; ++d)
        if (d != c && canAppend(s, d, axes))
          moves.push_back(Move{StepKind::AllToAll, axes, d, c});
      moves.push_back(Move{StepKind::AllGather, axes, c, -1});
    }
  }

  // Free axes sliced in.
  std::vector<int64_t> free;
  for (int64_t axis : relevantAxes)
    if (s.getDimOfAxis(axis) < 0 && !s.getPartialKind(axis))
      free.push_back(axis);
  std::vector<std::vector<int64_t>> freeSets = getSubsets(free);
  for (int64_t d = 0; d < rank; ++d)
    for (const auto &axes : freeSets)
      if (canAppend(s, d, axes))
        moves.push_back(Move{StepKind::LocalSlice, axes, d, -1});
  return moves;
}

void Search::relax(int64_t from, int64_t fromBytes, const Move &move) {
  Sharding after = applyMove(nodes[from].sharding, move);
  int64_t bytes = nodes[from].bytes +
                  getStepBytes(move.kind, getAxesSize(mesh, move.axes),
                               fromBytes);
  int64_t steps = nodes[from].steps + 1;
  std::string key = getKey(after);
  auto [it, inserted] = index.try_emplace(key, int64_t(nodes.size()));
  if (inserted) {
    nodes.push_back(Node{std::move(after), bytes, steps, from, move, false});
  } else {
    Node &node = nodes[it->second];
    if (node.done ||
        std::make_pair(bytes, steps) >= std::make_pair(node.bytes, node.steps))
      return;
    node.bytes = bytes;
    node.steps = steps;
    node.parent = from;
    node.move = move;
  }
  queue.emplace(bytes, steps, it->second);
}

std::optional<std::vector<ReshardStep>>
Search::run(const Sharding &source) {
  nodes.push_back(Node{source, 0, 0, -1, Move{}, false});
  index.emplace(getKey(source), 0);
  queue.emplace(0, 0, 0);
  std::string targetKey = getKey(target);
  int64_t found = -1;
  while (!queue.empty()) {
    auto [bytes, steps, id] = queue.top();
    queue.pop();
    if (nodes[id].done || bytes != nodes[id].bytes ||
        steps != nodes[id].steps)
      continue;
    nodes[id].done = true;
    if (getKey(nodes[id].sharding) == targetKey) {
      found = id;
      break;
    }
    Sharding current = nodes[id].sharding;
    int64_t localBytes = getLocalBytes(current);
    for (const Move &move : getMoves(current))
      relax(id, localBytes, move);
  }

  if (found < 0)
    return std::nullopt;
  std::vector<ReshardStep> steps;
  for (int64_t id = found; id > 0; id = nodes[id].parent) {
    const Node &node = nodes[id];
    const Sharding &before = nodes[node.parent].sharding;
    ReshardStep step;
    step.kind = node.move.kind;
    step.axes = node.move.axes;
    step.dim = node.move.dim;
    step.concatDim = node.move.concatDim;
    if (step.kind == StepKind::AllReduce ||
        step.kind == StepKind::ReduceScatter)
      step.reduction = *before.getPartialKind(step.axes.front());
    step.before = before;
    step.after = node.sharding;
    step.inputShape = getLocalShape(shape, before, mesh);
    step.outputShape = getLocalShape(shape, node.sharding, mesh);
    step.bytesSent = getStepBytes(step.kind, getAxesSize(mesh, step.axes),
                                  getLocalBytes(before));
    steps.push_back(std::move(step));
  }
  std::reverse(steps.begin(), steps.end());
  return steps;
}

std::optional<std::vector<ReshardStep>>
telar_sharding::reshard(const std::vector<int64_t> &shape,
                        int64_t elementBytes, const Sharding &source,
                        const Sharding &target, const Mesh &mesh,
                        std::string &error) {
  if (std::string msg = verifySharding(source, mesh, shape); !msg.empty()) {
    error = "invalid source sharding: " + msg;
    return std::nullopt;
  }
  if (std::string msg = verifySharding(target, mesh, shape); !msg.empty()) {
    error = "invalid target sharding: " + msg;
    return std::nullopt;
  }
  for (const auto &[axis, kind] : target.partial) {
    std::optional<ReductionKind> sourceKind = source.getPartialKind(axis);
    if (!sourceKind) {
      error = "the target is partial on axis '" + mesh.axisNames[axis] +
              "' (" + getReductionName(kind) +
              ") but the source is not: partial values are never created";
      return std::nullopt;
    }
    if (*sourceKind != kind) {
      error = "axis '" + mesh.axisNames[axis] + "' is partial with " +
              getReductionName(*sourceKind) + " in the source but " +
              getReductionName(kind) + " in the target";
      return std::nullopt;
    }
  }
  if (source == target)
    return std::vector<ReshardStep>{};

  std::vector<int64_t> relevant;
  for (int64_t axis = 0; axis < mesh.getNumAxes(); ++axis)
    if (source.getDimOfAxis(axis) >= 0 || source.getPartialKind(axis) ||
        target.getDimOfAxis(axis) >= 0)
      relevant.push_back(axis);
  Search search(shape, elementBytes, target, mesh, std::move(relevant));
  std::optional<std::vector<ReshardStep>> steps = search.run(source);
  if (!steps)
    error = "no resharding from " + formatSharding(source, mesh) + " to " +
            formatSharding(target, mesh);
  return steps;
}
