//===- ReshardTest.cpp - THE resharding function, executed ----------------===//
//
// The property test runs every step reshard() returns on a simulated mesh:
// each device holds its local block (with partial contributions that reduce
// to the global values), and the collectives move data exactly as Abi.h
// defines them ([outer][G][inner] counts derived from the local shapes, the
// member index row-major over the group's axes in ascending order). The
// simulator derives each step's sharding from the step's kind and axes on
// its own, so it is the reference the runtime and the partitioner must
// match, not a restatement of reshard().
//
//===----------------------------------------------------------------------===//

#include "telar/sharding/core/Reshard.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <iostream>
#include <map>
#include <numeric>

using namespace telar_sharding;

namespace {

using Buffer = std::vector<int64_t>;

int64_t product(const std::vector<int64_t> &v, size_t begin, size_t end) {
  int64_t n = 1;
  for (size_t i = begin; i < end; ++i)
    n *= v[i];
  return n;
}
int64_t product(const std::vector<int64_t> &v) {
  return product(v, 0, v.size());
}

uint64_t mix(uint64_t x) {
  x ^= x >> 33;
  x *= 0xff51afd7ed558ccdULL;
  x ^= x >> 33;
  x *= 0xc4ceb9fe1a85ec53ULL;
  x ^= x >> 33;
  return x;
}

int64_t globalValue(int64_t element) {
  return int64_t(mix(uint64_t(element) + 17) % 100000);
}

int64_t reduce(ReductionKind kind, int64_t a, int64_t b) {
  switch (kind) {
  case ReductionKind::Sum:
    return a + b;
  case ReductionKind::Max:
    return std::max(a, b);
  case ReductionKind::Min:
    return std::min(a, b);
  case ReductionKind::Prod:
    return a * b;
  }
  return 0;
}

/// Row-major index of `coords` over `axes` in that order.
int64_t groupIndex(const Mesh &mesh, const std::vector<int64_t> &coords,
                   const std::vector<int64_t> &axes) {
  int64_t g = 0;
  for (int64_t axis : axes)
    g = g * mesh.axisSizes[axis] + coords[axis];
  return g;
}

/// The global row-major element index of local index `local` on a device
/// whose block starts at `offsets`.
int64_t globalElement(const std::vector<int64_t> &shape,
                      const std::vector<int64_t> &localShape,
                      const std::vector<int64_t> &offsets, int64_t local) {
  int64_t element = 0;
  int64_t rest = local;
  std::vector<int64_t> index(shape.size());
  for (size_t d = shape.size(); d-- > 0;) {
    index[d] = rest % localShape[d];
    rest /= localShape[d];
  }
  for (size_t d = 0; d < shape.size(); ++d)
    element = element * shape[d] + offsets[d] + index[d];
  return element;
}

/// Every device's local block of a tensor of `shape` sharded by `sharding`,
/// partial contributions included: along partial axes, the members' blocks
/// reduce to the global values, and none of them alone holds them.
std::vector<Buffer> makeBlocks(const std::vector<int64_t> &shape,
                               const Sharding &sharding, const Mesh &mesh) {
  std::vector<int64_t> local = getLocalShape(shape, sharding, mesh);
  std::vector<int64_t> partialAxes;
  for (const auto &p : sharding.partial)
    partialAxes.push_back(p.first);
  int64_t groupSize = getAxesSize(mesh, partialAxes);
  std::vector<Buffer> blocks(mesh.getNumDevices());
  for (int64_t rank = 0; rank < mesh.getNumDevices(); ++rank) {
    std::vector<int64_t> coords = mesh.getCoordinates(rank);
    std::vector<int64_t> offsets = getBlockOffsets(shape, sharding, mesh, rank);
    int64_t c = groupIndex(mesh, coords, partialAxes);
    Buffer &block = blocks[rank];
    block.resize(product(local));
    for (int64_t i = 0; i < int64_t(block.size()); ++i) {
      int64_t e = globalElement(shape, local, offsets, i);
      int64_t x = globalValue(e);
      auto noise = [&](int64_t member) {
        return int64_t(mix(uint64_t(e) * 131 + uint64_t(member) + 7) % 101);
      };
      if (!sharding.isPartial()) {
        block[i] = x;
      } else if (sharding.partial[0].second == ReductionKind::Sum) {
        if (c > 0) {
          block[i] = noise(c) - 50;
        } else {
          block[i] = x;
          for (int64_t m = 1; m < groupSize; ++m)
            block[i] -= noise(m) - 50;
        }
      } else if (sharding.partial[0].second == ReductionKind::Prod) {
        // Signs on all but the first member, which makes up for them.
        auto sign = [&](int64_t m) { return noise(m) % 2 ? -1 : 1; };
        if (c > 0) {
          block[i] = sign(c);
        } else {
          block[i] = x;
          for (int64_t m = 1; m < groupSize; ++m)
            block[i] *= sign(m);
        }
      } else {
        // One member (by element) holds the extremum, the others less.
        int64_t holder = int64_t(mix(uint64_t(e)) % uint64_t(groupSize));
        int64_t delta = c == holder ? 0 : 1 + noise(c) % 50;
        block[i] = sharding.partial[0].second == ReductionKind::Max ? x - delta
                                                                    : x + delta;
      }
    }
  }
  return blocks;
}

/// The simulator's own reading of a step: the sharding after it, checking
/// that the step is legal on `before`. "" or what is wrong.
std::string applyStep(const ReshardStep &step, const Sharding &before,
                      const Mesh &mesh, const std::vector<int64_t> &shape,
                      Sharding &after) {
  after = before;
  if (step.axes.empty())
    return "no axes";
  if (!std::is_sorted(step.axes.begin(), step.axes.end()) ||
      std::adjacent_find(step.axes.begin(), step.axes.end()) != step.axes.end())
    return "axes not ascending (Abi.h's member order)";
  auto takeMinor = [&](int64_t dim) -> bool {
    if (dim < 0 || dim >= before.getRank())
      return false;
    auto &axes = after.dims[dim];
    if (axes.size() < step.axes.size() ||
        !std::equal(step.axes.begin(), step.axes.end(),
                    axes.end() - step.axes.size()))
      return false;
    axes.resize(axes.size() - step.axes.size());
    return true;
  };
  auto takePartial = [&]() -> bool {
    for (int64_t axis : step.axes) {
      auto kind = after.getPartialKind(axis);
      if (!kind || *kind != step.reduction)
        return false;
      after.partial.erase(
          std::find_if(after.partial.begin(), after.partial.end(),
                       [&](const auto &p) { return p.first == axis; }));
    }
    return true;
  };
  auto appendMinor = [&](int64_t dim) -> bool {
    if (dim < 0 || dim >= before.getRank())
      return false;
    for (int64_t axis : step.axes)
      if (after.getDimOfAxis(axis) >= 0 || after.getPartialKind(axis))
        return false;
    after.dims[dim].insert(after.dims[dim].end(), step.axes.begin(),
                           step.axes.end());
    return true;
  };
  switch (step.kind) {
  case StepKind::AllGather:
    if (!takeMinor(step.dim))
      return "all_gather of axes that are not the minor-most of the dim";
    break;
  case StepKind::LocalSlice:
    if (!appendMinor(step.dim))
      return "local_slice of axes in use";
    break;
  case StepKind::AllToAll:
    if (step.dim == step.concatDim || !takeMinor(step.concatDim))
      return "all_to_all of axes that are not the minor-most of concatDim";
    if (!appendMinor(step.dim))
      return "all_to_all onto a bad dim";
    break;
  case StepKind::AllReduce:
    if (step.dim != -1)
      return "all_reduce with a dim";
    if (!takePartial())
      return "all_reduce of axes not partial with its reduction";
    break;
  case StepKind::ReduceScatter:
    if (!takePartial())
      return "reduce_scatter of axes not partial with its reduction";
    if (!appendMinor(step.dim))
      return "reduce_scatter onto a bad dim";
    break;
  }
  if (std::string msg = verifySharding(after, mesh, shape); !msg.empty())
    return "invalid sharding after the step: " + msg;
  return "";
}

/// Runs `step` on every device's block, as Abi.h's collective would.
void executeStep(const ReshardStep &step, const Mesh &mesh,
                 std::vector<Buffer> &blocks) {
  const std::vector<int64_t> &in = step.inputShape;
  const std::vector<int64_t> &out = step.outputShape;
  size_t d = size_t(step.dim);
  int64_t groupSize = getAxesSize(mesh, step.axes);
  // The groups: devices equal on every other axis, by member index.
  // Abi.h: a member's index is row-major over its coordinates on the axes
  // in ascending order (the bit mask loses the step's order).
  std::vector<int64_t> ascending = step.axes;
  std::sort(ascending.begin(), ascending.end());
  std::map<std::vector<int64_t>, std::vector<int64_t>> groups;
  for (int64_t rank = 0; rank < mesh.getNumDevices(); ++rank) {
    std::vector<int64_t> coords = mesh.getCoordinates(rank);
    int64_t g = groupIndex(mesh, coords, ascending);
    for (int64_t axis : step.axes)
      coords[axis] = 0;
    auto &members = groups[coords];
    members.resize(groupSize, -1);
    members[g] = rank;
  }
  std::vector<Buffer> result(blocks.size());
  for (const auto &[key, members] : groups) {
    auto inBlock = [&](int64_t g) -> const Buffer & {
      return blocks[members[g]];
    };
    for (int64_t g = 0; g < groupSize; ++g) {
      Buffer &o = result[members[g]];
      o.assign(product(out), 0);
      switch (step.kind) {
      case StepKind::AllReduce: {
        for (size_t i = 0; i < o.size(); ++i) {
          o[i] = inBlock(0)[i];
          for (int64_t m = 1; m < groupSize; ++m)
            o[i] = reduce(step.reduction, o[i], inBlock(m)[i]);
        }
        break;
      }
      case StepKind::AllGather: {
        // in [outer][inner] -> out [outer][G][inner].
        int64_t outer = product(in, 0, d), inner = product(in, d, in.size());
        for (int64_t a = 0; a < outer; ++a)
          for (int64_t m = 0; m < groupSize; ++m)
            for (int64_t b = 0; b < inner; ++b)
              o[(a * groupSize + m) * inner + b] = inBlock(m)[a * inner + b];
        break;
      }
      case StepKind::ReduceScatter:
      case StepKind::LocalSlice: {
        // in [outer][G][inner] -> out [outer][inner], block g.
        int64_t outer = product(out, 0, d), inner = product(out, d, out.size());
        for (int64_t a = 0; a < outer; ++a)
          for (int64_t b = 0; b < inner; ++b) {
            int64_t at = (a * groupSize + g) * inner + b;
            if (step.kind == StepKind::LocalSlice) {
              o[a * inner + b] = inBlock(g)[at];
              continue;
            }
            int64_t v = inBlock(0)[at];
            for (int64_t m = 1; m < groupSize; ++m)
              v = reduce(step.reduction, v, inBlock(m)[at]);
            o[a * inner + b] = v;
          }
        break;
      }
      case StepKind::AllToAll: {
        // in [splitOuter][G][splitInner]: piece p goes to member p; out is
        // [concatOuter][G][concatInner], the piece from member p at [.][p][.].
        size_t c = size_t(step.concatDim);
        int64_t splitOuter = product(in, 0, d);
        int64_t splitInner = product(in, d, in.size()) / groupSize;
        int64_t concatOuter = product(out, 0, c);
        int64_t concatInner = product(out, c, out.size()) / groupSize;
        ASSERT_EQ(splitOuter * splitInner, concatOuter * concatInner);
        for (int64_t p = 0; p < groupSize; ++p) {
          // The piece member p sends to member g.
          Buffer piece(splitOuter * splitInner);
          for (int64_t a = 0; a < splitOuter; ++a)
            for (int64_t b = 0; b < splitInner; ++b)
              piece[a * splitInner + b] =
                  inBlock(p)[(a * groupSize + g) * splitInner + b];
          for (int64_t a = 0; a < concatOuter; ++a)
            for (int64_t b = 0; b < concatInner; ++b)
              o[(a * groupSize + p) * concatInner + b] =
                  piece[a * concatInner + b];
        }
        break;
      }
      }
    }
  }
  blocks = std::move(result);
}

/// The bytes Reshard.h gives for a step.
int64_t expectedBytes(const ReshardStep &step, const Mesh &mesh,
                      int64_t elementBytes) {
  int64_t g = getAxesSize(mesh, step.axes);
  int64_t b = product(step.inputShape) * elementBytes;
  switch (step.kind) {
  case StepKind::AllGather:
    return (g - 1) * b;
  case StepKind::LocalSlice:
    return 0;
  case StepKind::AllToAll:
  case StepKind::ReduceScatter:
    return (g - 1) * b / g;
  case StepKind::AllReduce:
    return 2 * (g - 1) * b / g;
  }
  return -1;
}

std::string describe(const std::vector<ReshardStep> &steps, const Mesh &mesh) {
  std::string s;
  for (const ReshardStep &step : steps) {
    s += std::string("  ") + getStepKindName(step.kind) + " axes [";
    for (size_t i = 0; i < step.axes.size(); ++i)
      s += (i ? "," : "") + mesh.axisNames[step.axes[i]];
    s += "] dim " + std::to_string(step.dim);
    if (step.kind == StepKind::AllToAll)
      s += " concat " + std::to_string(step.concatDim);
    s += " -> " + formatSharding(step.after, mesh) + " (" +
         std::to_string(step.bytesSent) + " B)\n";
  }
  return s;
}

/// Checks that `steps` turn `source` into `target`, executed. Returns the
/// failure, or "".
std::string checkSteps(const std::vector<int64_t> &shape, int64_t elementBytes,
                       const Sharding &source, const Sharding &target,
                       const Mesh &mesh,
                       const std::vector<ReshardStep> &steps) {
  std::vector<Buffer> blocks = makeBlocks(shape, source, mesh);
  Sharding current = source;
  for (size_t k = 0; k < steps.size(); ++k) {
    const ReshardStep &step = steps[k];
    std::string at = "step " + std::to_string(k) + ": ";
    Sharding after;
    if (std::string msg = applyStep(step, current, mesh, shape, after);
        !msg.empty())
      return at + msg;
    if (step.before != current)
      return at + "records before = " + formatSharding(step.before, mesh);
    if (step.after != after)
      return at + "records after = " + formatSharding(step.after, mesh) +
             ", the step gives " + formatSharding(after, mesh);
    if (step.inputShape != getLocalShape(shape, current, mesh) ||
        step.outputShape != getLocalShape(shape, after, mesh))
      return at + "wrong local shapes";
    if (step.bytesSent != expectedBytes(step, mesh, elementBytes))
      return at + "bytesSent " + std::to_string(step.bytesSent) +
             ", expected " +
             std::to_string(expectedBytes(step, mesh, elementBytes));
    executeStep(step, mesh, blocks);
    current = after;
  }
  if (current != target)
    return "ends at " + formatSharding(current, mesh);
  // Compare with the target's blocks (reduced along its partial axes).
  std::vector<int64_t> local = getLocalShape(shape, target, mesh);
  std::vector<int64_t> partialAxes;
  for (const auto &p : target.partial)
    partialAxes.push_back(p.first);
  for (int64_t rank = 0; rank < mesh.getNumDevices(); ++rank) {
    std::vector<int64_t> coords = mesh.getCoordinates(rank);
    if (groupIndex(mesh, coords, partialAxes) != 0)
      continue;
    Buffer value = blocks[rank];
    if (int64_t(value.size()) != product(local))
      return "device " + std::to_string(rank) + " holds a block of size " +
             std::to_string(value.size());
    // Fold in the other members of the partial group.
    int64_t groupSize = getAxesSize(mesh, partialAxes);
    for (int64_t g = 1; g < groupSize; ++g) {
      std::vector<int64_t> other = coords;
      int64_t rest = g;
      for (size_t i = partialAxes.size(); i-- > 0;) {
        other[partialAxes[i]] = rest % mesh.axisSizes[partialAxes[i]];
        rest /= mesh.axisSizes[partialAxes[i]];
      }
      const Buffer &block = blocks[mesh.getRank(other)];
      for (size_t i = 0; i < value.size(); ++i)
        value[i] = reduce(target.partial[0].second, value[i], block[i]);
    }
    std::vector<int64_t> offsets = getBlockOffsets(shape, target, mesh, rank);
    for (int64_t i = 0; i < int64_t(value.size()); ++i)
      if (value[i] != globalValue(globalElement(shape, local, offsets, i)))
        return "device " + std::to_string(rank) + " element " +
               std::to_string(i) + " is wrong";
  }
  return "";
}

/// Every sharding of a tensor of `shape` on `mesh` that verifySharding
/// accepts: each axis unused, partial (all with one of `kinds`) or splitting
/// a dim, in every order within a dim.
std::vector<Sharding> enumerateShardings(const std::vector<int64_t> &shape,
                                         const Mesh &mesh,
                                         std::vector<ReductionKind> kinds) {
  int64_t numAxes = mesh.getNumAxes();
  int64_t rank = int64_t(shape.size());
  int64_t choices = rank + 2; // unused, partial, dim 0..rank-1
  int64_t total = 1;
  for (int64_t i = 0; i < numAxes; ++i)
    total *= choices;
  std::vector<Sharding> result;
  for (int64_t code = 0; code < total; ++code) {
    std::vector<int64_t> choice(numAxes);
    int64_t rest = code;
    for (int64_t i = 0; i < numAxes; ++i) {
      choice[i] = rest % choices;
      rest /= choices;
    }
    bool partial = std::count(choice.begin(), choice.end(), 1) > 0;
    std::vector<ReductionKind> kindsHere =
        partial ? kinds : std::vector<ReductionKind>{ReductionKind::Sum};
    for (ReductionKind kind : kindsHere) {
      // Every interleaving of the axes within their dims: permute all the
      // axes and keep the permutations whose per-dim order is new.
      std::vector<int64_t> order(numAxes);
      std::iota(order.begin(), order.end(), 0);
      std::vector<Sharding> seen;
      do {
        Sharding s = Sharding::getReplicated(rank);
        for (int64_t axis : order) {
          if (choice[axis] == 1)
            s.partial.emplace_back(axis, kind);
          else if (choice[axis] >= 2)
            s.dims[choice[axis] - 2].push_back(axis);
        }
        std::sort(s.partial.begin(), s.partial.end());
        if (std::find(seen.begin(), seen.end(), s) != seen.end())
          continue;
        seen.push_back(s);
        if (verifySharding(s, mesh, shape).empty())
          result.push_back(s);
      } while (std::next_permutation(order.begin(), order.end()));
    }
  }
  return result;
}

struct PairStats {
  int64_t pairs = 0, refused = 0, steps = 0, bytes = 0, recipeBytes = 0;
};

/// The bytes of the obvious sequence, computed here on its own: all-reduce
/// what must stop being partial, gather every axis from the minor end, slice
/// the target's axes in.
int64_t getNaiveBytes(const std::vector<int64_t> &shape, int64_t elementBytes,
                      const Sharding &source, const Sharding &target,
                      const Mesh &mesh) {
  int64_t local = product(getLocalShape(shape, source, mesh)) * elementBytes;
  int64_t bytes = 0;
  std::vector<int64_t> reduced;
  for (const auto &p : source.partial)
    if (!target.getPartialKind(p.first))
      reduced.push_back(p.first);
  if (!reduced.empty()) {
    int64_t g = getAxesSize(mesh, reduced);
    bytes += 2 * (g - 1) * local / g;
  }
  for (const auto &axes : source.dims)
    for (size_t i = axes.size(); i-- > 0;) {
      bytes += (mesh.axisSizes[axes[i]] - 1) * local;
      local *= mesh.axisSizes[axes[i]];
    }
  return bytes;
}

/// The axes a sharding uses (split or partial), as a bit set.
uint64_t getAxisSet(const Sharding &s) {
  uint64_t set = 0;
  for (const auto &axes : s.dims)
    for (int64_t a : axes)
      set |= uint64_t(1) << a;
  for (const auto &p : s.partial)
    set |= uint64_t(1) << p.first;
  return set;
}

/// reshard() on every pair, executed and checked; its lower bound never
/// above what it sends; and its bytes the least: no detour through a third
/// sharding of the same axes is cheaper (what an inadmissible A* bound, or
/// a search stopped early, would show).
PairStats checkAllPairs(const std::vector<int64_t> &shape, const Mesh &mesh,
                        std::vector<ReductionKind> kinds,
                        int64_t elementBytes = 4) {
  std::vector<Sharding> all = enumerateShardings(shape, mesh, kinds);
  PairStats stats;
  size_t n = all.size();
  std::vector<int64_t> sent(n * n, -1); // -1: no sequence
  std::vector<uint64_t> axisSet;
  for (const Sharding &s : all)
    axisSet.push_back(getAxisSet(s));
  auto report = [&] {
    std::cout << "  " << mesh.str() << ", shape " << shape[0] << "x" << shape[1]
              << "x" << shape[2] << ": " << all.size() << " shardings, "
              << stats.pairs << " pairs (" << stats.refused << " refused), "
              << stats.steps << " steps, " << stats.bytes
              << " bytes (the recipe: " << stats.recipeBytes << ")\n";
  };
  for (size_t i = 0; i < n; ++i) {
    const Sharding &source = all[i];
    for (size_t j = 0; j < n; ++j) {
      const Sharding &target = all[j];
      ++stats.pairs;
      std::string error;
      auto steps = reshard(shape, elementBytes, source, target, mesh, error);
      std::string pair = formatSharding(source, mesh) + " -> " +
                         formatSharding(target, mesh) + " on " + mesh.str();
      // Reachable exactly when every partial axis of the target is partial,
      // with the same reduction, in the source.
      bool reachable = true;
      for (const auto &[axis, kind] : target.partial)
        if (source.getPartialKind(axis) != kind)
          reachable = false;
      if (!reachable) {
        EXPECT_FALSE(steps.has_value()) << pair;
        EXPECT_NE(error.find("partial"), std::string::npos) << pair << error;
        ++stats.refused;
        continue;
      }
      if (!steps) {
        ADD_FAILURE() << pair << ": " << error;
        continue;
      }
      if (source == target)
        EXPECT_TRUE(steps->empty()) << pair;
      else
        EXPECT_FALSE(steps->empty()) << pair;
      stats.steps += int64_t(steps->size());
      std::string failure =
          checkSteps(shape, elementBytes, source, target, mesh, *steps);
      if (!failure.empty()) {
        ADD_FAILURE() << pair << ": " << failure << "\n"
                      << describe(*steps, mesh);
        return stats; // one report is enough
      }
      // The fallback recipe is correct too, and never cheaper.
      auto recipe =
          reshardByRecipe(shape, elementBytes, source, target, mesh, error);
      if (!recipe) {
        ADD_FAILURE() << pair << ": recipe: " << error;
        return stats;
      }
      failure = checkSteps(shape, elementBytes, source, target, mesh, *recipe);
      if (!failure.empty()) {
        ADD_FAILURE() << pair << ": recipe: " << failure << "\n"
                      << describe(*recipe, mesh);
        return stats;
      }
      EXPECT_LE(getBytesSent(*steps), getBytesSent(*recipe))
          << pair << "\n"
          << describe(*steps, mesh) << "recipe:\n"
          << describe(*recipe, mesh);
      EXPECT_LE(getBytesSent(*steps),
                getNaiveBytes(shape, elementBytes, source, target, mesh))
          << pair;
      std::optional<ReshardBound> bound =
          getReshardLowerBound(shape, elementBytes, source, target, mesh);
      if (!bound)
        ADD_FAILURE() << pair << ": no lower bound";
      else
        EXPECT_LE(bound->bytes, getBytesSent(*steps)) << pair;
      sent[i * n + j] = getBytesSent(*steps);
      stats.recipeBytes += getBytesSent(*recipe);
      stats.bytes += getBytesSent(*steps);
    }
  }
  int64_t detours = 0;
  for (size_t i = 0; i < n; ++i)
    for (size_t j = 0; j < n; ++j) {
      int64_t direct = sent[i * n + j];
      if (direct < 0)
        continue;
      uint64_t axes = axisSet[i] | axisSet[j];
      for (size_t k = 0; k < n; ++k) {
        int64_t first = sent[i * n + k], second = sent[k * n + j];
        if (first < 0 || second < 0 || (axisSet[k] & ~axes))
          continue;
        ++detours;
        if (direct > first + second) {
          ADD_FAILURE() << formatSharding(all[i], mesh) << " -> "
                        << formatSharding(all[j], mesh) << " on "
                        << mesh.str() << " sends " << direct
                        << " bytes, but through "
                        << formatSharding(all[k], mesh) << " only "
                        << first + second;
          return stats;
        }
      }
    }
  EXPECT_GT(detours, int64_t(n));
  report();
  return stats;
}

const std::vector<ReductionKind> kSumMax = {ReductionKind::Sum,
                                            ReductionKind::Max};
const std::vector<ReductionKind> kAllKinds = {
    ReductionKind::Sum, ReductionKind::Max, ReductionKind::Min,
    ReductionKind::Prod};

TEST(ReshardProperty, Enumeration) {
  // Each axis of 2x2x2 unused, partial or on one of 3 dims, in every order:
  // 106 shardings without partial axes, 70 with (times sum and max).
  Mesh mesh{{"a", "b", "c"}, {2, 2, 2}};
  EXPECT_EQ(enumerateShardings({8, 8, 8}, mesh, kSumMax).size(), 106u + 140u);
  EXPECT_EQ(enumerateShardings({8, 8, 8}, mesh, {ReductionKind::Sum}).size(),
            106u + 70u);
  // Dims that cannot take every axis prune shardings.
  EXPECT_EQ(enumerateShardings({2, 1, 1}, Mesh{{"x"}, {2}}, kSumMax).size(),
            4u);
}

TEST(ReshardProperty, Mesh1D) {
  for (int64_t size : {2, 3, 4}) {
    Mesh mesh{{"x"}, {size}};
    // The last dim is not divisible: shardings on it are skipped.
    PairStats stats =
        checkAllPairs({size, 2 * size, size + 1}, mesh, kAllKinds);
    EXPECT_EQ(stats.pairs, 7 * 7);
    // To a partial state from any other: 4 kinds, 6 other states each.
    EXPECT_EQ(stats.refused, 4 * 6);
  }
}

TEST(ReshardProperty, Mesh2D) {
  // Dims of different divisibility: some hold both axes, some one.
  // 15 shardings without partial axes, 9 with, times 4 reductions.
  EXPECT_EQ(checkAllPairs({4, 2, 6}, Mesh{{"a", "b"}, {2, 2}}, kAllKinds).pairs,
            (15 + 9 * 4) * (15 + 9 * 4));
  EXPECT_EQ(checkAllPairs({6, 4, 3}, Mesh{{"a", "b"}, {2, 3}}, kSumMax).pairs,
            24 * 24);
  EXPECT_EQ(checkAllPairs({8, 8, 2}, Mesh{{"a", "b"}, {4, 2}}, kSumMax).pairs,
            30 * 30);
  EXPECT_EQ(
      checkAllPairs({12, 12, 12}, Mesh{{"a", "b"}, {3, 4}}, kSumMax).pairs,
      (37 + 0) * 37);
}

TEST(ReshardProperty, UnitAxis) {
  // An axis of size 1 splits nothing, but its steps still change shardings.
  PairStats stats = checkAllPairs({2, 2, 1}, Mesh{{"a", "b"}, {1, 2}}, kSumMax);
  EXPECT_GT(stats.pairs, 100);
}

TEST(ReshardProperty, Mesh3D) {
  Mesh mesh{{"a", "b", "c"}, {2, 2, 2}};
  EXPECT_EQ(checkAllPairs({8, 4, 2}, mesh, kSumMax).pairs, 204 * 204);
}

TEST(ReshardProperty, Mesh3DWithAxisOf4) {
  Mesh mesh{{"a", "b", "c"}, {2, 4, 2}};
  EXPECT_EQ(checkAllPairs({16, 4, 2}, mesh, {ReductionKind::Max}).pairs,
            106 * 106);
}

TEST(ReshardProperty, Mesh3DUneven) {
  Mesh mesh{{"a", "b", "c"}, {2, 3, 2}};
  EXPECT_EQ(checkAllPairs({12, 2, 6}, mesh, {ReductionKind::Sum}).pairs,
            116 * 116);
}

//===----------------------------------------------------------------------===//
// Single cases: what reshard() chooses, and its errors.
//===----------------------------------------------------------------------===//

constexpr ReductionKind kSum = ReductionKind::Sum;

/// reshard() of a float tensor, checked by execution.
std::vector<ReshardStep> reshardChecked(const Mesh &mesh,
                                        const std::vector<int64_t> &shape,
                                        const Sharding &source,
                                        const Sharding &target) {
  std::string error;
  auto steps = reshard(shape, 4, source, target, mesh, error);
  EXPECT_TRUE(steps.has_value()) << error;
  if (!steps)
    return {};
  std::string failure = checkSteps(shape, 4, source, target, mesh, *steps);
  EXPECT_EQ(failure, "") << describe(*steps, mesh);
  return *steps;
}

std::vector<StepKind> kinds(const std::vector<ReshardStep> &steps) {
  std::vector<StepKind> result;
  for (const ReshardStep &step : steps)
    result.push_back(step.kind);
  return result;
}

const Mesh kMesh2x2{{"data", "model"}, {2, 2}};

TEST(Reshard, StepKindNames) {
  EXPECT_STREQ(getStepKindName(StepKind::AllGather), "all_gather");
  EXPECT_STREQ(getStepKindName(StepKind::LocalSlice), "local_slice");
  EXPECT_STREQ(getStepKindName(StepKind::AllToAll), "all_to_all");
  EXPECT_STREQ(getStepKindName(StepKind::AllReduce), "all_reduce");
  EXPECT_STREQ(getStepKindName(StepKind::ReduceScatter), "reduce_scatter");
}

TEST(Reshard, Identical) {
  for (const Sharding &s :
       {Sharding::getReplicated(2), Sharding{{{1, 0}, {}}, {}},
        Sharding{{{}, {0}}, {{1, kSum}}}}) {
    std::string error;
    auto steps = reshard({8, 8}, 4, s, s, kMesh2x2, error);
    ASSERT_TRUE(steps.has_value()) << error;
    EXPECT_TRUE(steps->empty());
  }
}

TEST(Reshard, Errors) {
  auto expectError = [](const Sharding &source, const Sharding &target,
                        std::string_view message,
                        std::vector<int64_t> shape = {8, 8},
                        int64_t elementBytes = 4) {
    std::string error;
    EXPECT_FALSE(reshard(shape, elementBytes, source, target, kMesh2x2, error));
    EXPECT_EQ(error, message);
    error.clear();
    EXPECT_FALSE(
        reshardByRecipe(shape, elementBytes, source, target, kMesh2x2, error));
    EXPECT_EQ(error, message);
  };
  Sharding replicated = Sharding::getReplicated(2);
  expectError(replicated, Sharding{{{}, {}}, {{1, kSum}}},
              "the target is partial on axis 'model' (sum) but the source is "
              "not: partial values are never created");
  expectError(Sharding{{{}, {1}}, {}}, Sharding{{{}, {}}, {{1, kSum}}},
              "the target is partial on axis 'model' (sum) but the source is "
              "not: partial values are never created");
  expectError(Sharding{{{}, {}}, {{1, ReductionKind::Max}}},
              Sharding{{{}, {}}, {{1, kSum}}},
              "axis 'model' is partial with max in the source but sum in the "
              "target");
  expectError(Sharding{{{0}, {}}, {}}, replicated,
              "invalid source sharding: dimension 0 (size 3) is not "
              "divisible by 2, the size of axes 'data'",
              {3, 8});
  expectError(replicated, Sharding{{{0}}, {}},
              "invalid target sharding: sharding has 1 dimensions but the "
              "tensor has rank 2");
  expectError(replicated, replicated, "negative element size -1", {8, 8}, -1);
}

TEST(Reshard, Gather) {
  // Megatron's activations, split on data, wanted whole.
  auto steps = reshardChecked(kMesh2x2, {8, 16}, Sharding{{{0}, {}}, {}},
                              Sharding::getReplicated(2));
  ASSERT_EQ(steps.size(), 1u);
  EXPECT_EQ(steps[0].kind, StepKind::AllGather);
  EXPECT_EQ(steps[0].axes, (std::vector<int64_t>{0}));
  EXPECT_EQ(steps[0].dim, 0);
  EXPECT_EQ(steps[0].inputShape, (std::vector<int64_t>{4, 16}));
  EXPECT_EQ(steps[0].outputShape, (std::vector<int64_t>{8, 16}));
  EXPECT_EQ(steps[0].bytesSent, 4 * 16 * 4); // (G-1) B
  EXPECT_EQ(getBytesSent(steps), 4 * 16 * 4);
}

TEST(Reshard, GatherSeveralAxes) {
  // Ascending axes go in one step, over the group of 4.
  auto steps = reshardChecked(kMesh2x2, {8, 4}, Sharding{{{0, 1}, {}}, {}},
                              Sharding::getReplicated(2));
  ASSERT_EQ(steps.size(), 1u);
  EXPECT_EQ(steps[0].axes, (std::vector<int64_t>{0, 1}));
  EXPECT_EQ(steps[0].bytesSent, 3 * 2 * 4 * 4);
  // Out of Abi.h's order: one axis at a time, minor first, same bytes.
  steps = reshardChecked(kMesh2x2, {8, 4}, Sharding{{{1, 0}, {}}, {}},
                         Sharding::getReplicated(2));
  ASSERT_EQ(steps.size(), 2u);
  EXPECT_EQ(steps[0].axes, (std::vector<int64_t>{0}));
  EXPECT_EQ(steps[1].axes, (std::vector<int64_t>{1}));
  EXPECT_EQ(getBytesSent(steps), 3 * 2 * 4 * 4);
}

TEST(Reshard, Slice) {
  auto steps = reshardChecked(kMesh2x2, {8, 16}, Sharding::getReplicated(2),
                              Sharding{{{0, 1}, {}}, {}});
  ASSERT_EQ(steps.size(), 1u);
  EXPECT_EQ(steps[0].kind, StepKind::LocalSlice);
  EXPECT_EQ(steps[0].axes, (std::vector<int64_t>{0, 1}));
  EXPECT_EQ(steps[0].outputShape, (std::vector<int64_t>{2, 16}));
  EXPECT_EQ(steps[0].bytesSent, 0);
  steps = reshardChecked(kMesh2x2, {8, 16}, Sharding::getReplicated(2),
                         Sharding{{{1}, {0}}, {}});
  EXPECT_EQ(kinds(steps), (std::vector<StepKind>{StepKind::LocalSlice,
                                                 StepKind::LocalSlice}));
  EXPECT_EQ(getBytesSent(steps), 0);
}

TEST(Reshard, AllReduce) {
  // Row-parallel matmul: partial sums over model, wanted whole.
  auto steps =
      reshardChecked(kMesh2x2, {8, 16}, Sharding{{{0}, {}}, {{1, kSum}}},
                     Sharding{{{0}, {}}, {}});
  ASSERT_EQ(steps.size(), 1u);
  EXPECT_EQ(steps[0].kind, StepKind::AllReduce);
  EXPECT_EQ(steps[0].axes, (std::vector<int64_t>{1}));
  EXPECT_EQ(steps[0].dim, -1);
  EXPECT_EQ(steps[0].reduction, kSum);
  EXPECT_EQ(steps[0].bytesSent, 2 * 1 * (4 * 16 * 4) / 2); // 2(G-1)/G B
  // Two axes of one reduction: one step over the group of 4, cheaper than
  // two (1.5 B against 2 B).
  steps = reshardChecked(
      kMesh2x2, {8, 16},
      Sharding{{{}, {}}, {{0, ReductionKind::Max}, {1, ReductionKind::Max}}},
      Sharding::getReplicated(2));
  ASSERT_EQ(steps.size(), 1u);
  EXPECT_EQ(steps[0].axes, (std::vector<int64_t>{0, 1}));
  EXPECT_EQ(steps[0].reduction, ReductionKind::Max);
  EXPECT_EQ(steps[0].bytesSent, 2 * 3 * (8 * 16 * 4) / 4);
}

TEST(Reshard, ReduceScatter) {
  // Partial sums wanted split: a reduce-scatter, (G-1)/G B.
  auto steps =
      reshardChecked(kMesh2x2, {8, 16}, Sharding{{{}, {}}, {{1, kSum}}},
                     Sharding{{{}, {1}}, {}});
  ASSERT_EQ(steps.size(), 1u);
  EXPECT_EQ(steps[0].kind, StepKind::ReduceScatter);
  EXPECT_EQ(steps[0].dim, 1);
  EXPECT_EQ(steps[0].outputShape, (std::vector<int64_t>{8, 8}));
  EXPECT_EQ(steps[0].bytesSent, 8 * 16 * 4 / 2);
  // Keeping one partial axis while resolving the other.
  steps = reshardChecked(kMesh2x2, {8, 16},
                         Sharding{{{}, {}}, {{0, kSum}, {1, kSum}}},
                         Sharding{{{0}, {}}, {{1, kSum}}});
  ASSERT_EQ(steps.size(), 1u);
  EXPECT_EQ(steps[0].kind, StepKind::ReduceScatter);
  EXPECT_EQ(steps[0].axes, (std::vector<int64_t>{0}));
}

TEST(Reshard, AllToAll) {
  // An axis moving between dims.
  auto steps = reshardChecked(kMesh2x2, {8, 16}, Sharding{{{0}, {}}, {}},
                              Sharding{{{}, {0}}, {}});
  ASSERT_EQ(steps.size(), 1u);
  EXPECT_EQ(steps[0].kind, StepKind::AllToAll);
  EXPECT_EQ(steps[0].dim, 1);
  EXPECT_EQ(steps[0].concatDim, 0);
  EXPECT_EQ(steps[0].inputShape, (std::vector<int64_t>{4, 16}));
  EXPECT_EQ(steps[0].outputShape, (std::vector<int64_t>{8, 8}));
  EXPECT_EQ(steps[0].bytesSent, 4 * 16 * 4 / 2); // (G-1)/G B
}

TEST(Reshard, DropMajorAxis) {
  // [data, model] -> [model]: data is major, so model must leave first. The
  // search beats gathering both and slicing model again (3 B): move both to
  // dim 1 (0.75 B), model back (0.5 B), gather data (1 B).
  auto steps = reshardChecked(kMesh2x2, {8, 8}, Sharding{{{0, 1}, {}}, {}},
                              Sharding{{{1}, {}}, {}});
  int64_t b = 2 * 8 * 4;
  EXPECT_EQ(getBytesSent(steps), b * 9 / 4) << describe(steps, kMesh2x2);
  // Without a dim to park axes on, gather and slice.
  steps = reshardChecked(kMesh2x2, {8, 1}, Sharding{{{0, 1}, {}}, {}},
                         Sharding{{{1}, {}}, {}});
  EXPECT_EQ(getBytesSent(steps), 3 * 2 * 1 * 4) << describe(steps, kMesh2x2);
  EXPECT_EQ(steps.back().kind, StepKind::LocalSlice);
}

TEST(Reshard, SwapThroughThirdDim) {
  // Swapping the axes of two dims: three all-to-alls through dim 2 (1.5 B)
  // instead of a gather and an all-to-all (2 B).
  auto steps = reshardChecked(kMesh2x2, {8, 8, 8}, Sharding{{{0}, {1}, {}}, {}},
                              Sharding{{{1}, {0}, {}}, {}});
  int64_t b = 4 * 4 * 8 * 4;
  EXPECT_EQ(getBytesSent(steps), 3 * b / 2) << describe(steps, kMesh2x2);
  EXPECT_EQ(kinds(steps), (std::vector<StepKind>(3, StepKind::AllToAll)));
}

TEST(Reshard, Scalar) {
  auto steps =
      reshardChecked(kMesh2x2, {}, Sharding{{}, {{0, kSum}, {1, kSum}}},
                     Sharding{{}, {{1, kSum}}});
  ASSERT_EQ(steps.size(), 1u);
  EXPECT_EQ(steps[0].kind, StepKind::AllReduce);
  EXPECT_EQ(steps[0].axes, (std::vector<int64_t>{0}));
  EXPECT_EQ(steps[0].bytesSent, 4); // 2 (G-1)/G of 4 bytes
  EXPECT_TRUE(steps[0].outputShape.empty());
}

TEST(Reshard, ElementBytes) {
  std::string error;
  Sharding source{{{0}, {}}, {{1, kSum}}};
  Sharding target{{{}, {0}}, {}};
  auto f32 = reshard({8, 8}, 4, source, target, kMesh2x2, error);
  auto f64 = reshard({8, 8}, 8, source, target, kMesh2x2, error);
  ASSERT_TRUE(f32 && f64);
  EXPECT_EQ(2 * getBytesSent(*f32), getBytesSent(*f64));
  auto none = reshard({8, 8}, 0, source, target, kMesh2x2, error);
  ASSERT_TRUE(none);
  EXPECT_EQ(getBytesSent(*none), 0);
  EXPECT_EQ(checkSteps({8, 8}, 0, source, target, kMesh2x2, *none), "");
  // An empty tensor still changes sharding.
  auto empty = reshard({0, 8}, 4, source, target, kMesh2x2, error);
  ASSERT_TRUE(empty);
  EXPECT_FALSE(empty->empty());
  EXPECT_EQ(getBytesSent(*empty), 0);
}

TEST(Reshard, Deterministic) {
  Mesh mesh{{"a", "b", "c"}, {2, 3, 2}};
  Sharding source{{{0}, {2}, {}}, {{1, kSum}}};
  Sharding target{{{2, 1}, {}, {0}}, {}};
  std::string error;
  auto first = reshard({12, 4, 6}, 4, source, target, mesh, error);
  ASSERT_TRUE(first) << error;
  for (int i = 0; i < 3; ++i) {
    auto again = reshard({12, 4, 6}, 4, source, target, mesh, error);
    ASSERT_TRUE(again);
    ASSERT_EQ(again->size(), first->size());
    for (size_t k = 0; k < first->size(); ++k) {
      EXPECT_EQ((*again)[k].kind, (*first)[k].kind);
      EXPECT_EQ((*again)[k].axes, (*first)[k].axes);
      EXPECT_EQ((*again)[k].dim, (*first)[k].dim);
      EXPECT_EQ((*again)[k].after, (*first)[k].after);
    }
  }
  EXPECT_EQ(checkSteps({12, 4, 6}, 4, source, target, mesh, *first), "");
}

TEST(Reshard, LargeMeshFallsBackToRecipe) {
  // Seven axes: past the search's budget, reshard() returns the recipe's
  // steps, still correct (128 simulated devices).
  Mesh mesh{{"a", "b", "c", "d", "e", "f", "g"}, {2, 2, 2, 2, 2, 2, 2}};
  Sharding source{{{0, 1, 2}, {3, 4, 5, 6}, {}, {}}, {}};
  Sharding target{{{6, 5, 4, 3}, {2, 1, 0}, {}, {}}, {}};
  std::vector<int64_t> shape{16, 16, 2, 2};
  std::string error;
  auto steps = reshard(shape, 4, source, target, mesh, error);
  auto recipe = reshardByRecipe(shape, 4, source, target, mesh, error);
  ASSERT_TRUE(steps && recipe) << error;
  EXPECT_EQ(getBytesSent(*steps), getBytesSent(*recipe));
  EXPECT_EQ(checkSteps(shape, 4, source, target, mesh, *steps), "");
}

} // namespace
