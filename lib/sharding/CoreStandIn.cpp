//===- CoreStandIn.cpp - Stand-in for TelarShardingCore -------------------===//
//
// Built only while the "core" part of issue 8 (lib/sharding/Sharding.cpp,
// Reshard.cpp: TelarShardingCore) is not in the tree; see CMakeLists.txt.
// It defines just the core functions the compiler side (Plan.cpp,
// Completion.cpp) calls, with the documented behaviour; its reshard is
// valid but not minimal (resolve, gather what differs, slice). Delete it
// once TelarShardingCore lands.
//
//===----------------------------------------------------------------------===//

#include "telar/sharding/Reshard.h"

#include <algorithm>

using namespace telar_sharding;

const char *telar_sharding::getReductionName(ReductionKind kind) {
  switch (kind) {
  case ReductionKind::Sum: return "sum";
  case ReductionKind::Max: return "max";
  case ReductionKind::Min: return "min";
  case ReductionKind::Prod: return "prod";
  }
  return "sum";
}

std::optional<ReductionKind>
telar_sharding::parseReductionName(std::string_view name) {
  for (ReductionKind k : {ReductionKind::Sum, ReductionKind::Max,
                          ReductionKind::Min, ReductionKind::Prod})
    if (name == getReductionName(k))
      return k;
  return std::nullopt;
}

std::optional<int64_t> Mesh::getAxisIndex(std::string_view name) const {
  for (size_t i = 0; i < axisNames.size(); ++i)
    if (axisNames[i] == name)
      return int64_t(i);
  return std::nullopt;
}

std::string Mesh::str() const {
  std::string s;
  for (size_t i = 0; i < axisNames.size(); ++i)
    s += (i ? "," : "") + axisNames[i] + "=" + std::to_string(axisSizes[i]);
  return s;
}

std::optional<Mesh> telar_sharding::parseMeshSpec(std::string_view spec,
                                                  std::string &error) {
  Mesh mesh;
  size_t pos = 0;
  while (pos <= spec.size()) {
    size_t end = spec.find(',', pos);
    if (end == std::string_view::npos)
      end = spec.size();
    std::string_view item = spec.substr(pos, end - pos);
    size_t eq = item.find('=');
    std::string name(item.substr(0, eq == std::string_view::npos ? 0 : eq));
    int64_t size = 0;
    std::string digits(eq == std::string_view::npos ? "" : item.substr(eq + 1));
    bool ok = !name.empty() && !digits.empty() &&
              std::all_of(digits.begin(), digits.end(),
                          [](char c) { return c >= '0' && c <= '9'; });
    if (ok)
      size = std::stoll(digits);
    if (!ok || size < 1) {
      error = "expected NAME=SIZE[,NAME=SIZE...] with sizes of at least 1, "
              "got '" + std::string(item) + "'";
      return std::nullopt;
    }
    if (mesh.getAxisIndex(name)) {
      error = "axis '" + name + "' is named twice";
      return std::nullopt;
    }
    mesh.axisNames.push_back(name);
    mesh.axisSizes.push_back(size);
    pos = end + 1;
  }
  return mesh;
}

bool Sharding::isReplicated() const {
  return partial.empty() &&
         std::all_of(dims.begin(), dims.end(),
                     [](const std::vector<int64_t> &d) { return d.empty(); });
}

std::string telar_sharding::verifySharding(const Sharding &sharding,
                                           const Mesh &mesh,
                                           const std::vector<int64_t> &shape) {
  if (sharding.getRank() != int64_t(shape.size()))
    return "the sharding has " + std::to_string(sharding.getRank()) +
           " dimensions, the tensor " + std::to_string(shape.size());
  std::vector<bool> used(mesh.axisSizes.size());
  auto use = [&](int64_t axis) -> std::string {
    if (axis < 0 || axis >= mesh.getNumAxes())
      return "axis " + std::to_string(axis) + " is not in the mesh";
    if (used[axis])
      return "axis '" + mesh.axisNames[axis] + "' is used twice";
    used[axis] = true;
    return "";
  };
  for (size_t d = 0; d < shape.size(); ++d) {
    int64_t n = 1;
    std::string names;
    for (int64_t axis : sharding.dims[d]) {
      std::string e = use(axis);
      if (!e.empty())
        return e;
      n *= mesh.axisSizes[axis];
      names += (names.empty() ? "'" : ", '") + mesh.axisNames[axis] + "'";
    }
    if (shape[d] % n != 0)
      return "dimension " + std::to_string(d) + " (size " +
             std::to_string(shape[d]) + ") is not divisible by " +
             std::to_string(n) + ", the size of axes " + names;
  }
  for (auto [axis, kind] : sharding.partial) {
    std::string e = use(axis);
    if (!e.empty())
      return e;
    if (kind != sharding.partial.front().second)
      return "partial axes of different reductions";
  }
  return "";
}

std::string telar_sharding::formatSharding(const Sharding &sharding,
                                           const Mesh &mesh) {
  std::string dims = "[";
  for (size_t d = 0; d < sharding.dims.size(); ++d) {
    dims += d ? ", [" : "[";
    for (size_t i = 0; i < sharding.dims[d].size(); ++i)
      dims += (i ? ", \"" : "\"") + mesh.axisNames[sharding.dims[d][i]] + "\"";
    dims += "]";
  }
  dims += "]";
  if (sharding.partial.empty())
    return dims;
  std::string partial;
  for (auto [axis, kind] : sharding.partial)
    partial += (partial.empty() ? "\"" : ", \"") + mesh.axisNames[axis] +
               "\": \"" + getReductionName(kind) + "\"";
  return "{\"dims\": " + dims + ", \"partial\": {" + partial + "}}";
}

std::optional<std::vector<ReshardStep>>
telar_sharding::reshard(const std::vector<int64_t> &shape,
                        int64_t elementBytes, const Sharding &source,
                        const Sharding &target, const Mesh &mesh,
                        std::string &error) {
  for (auto p : target.partial)
    if (std::find(source.partial.begin(), source.partial.end(), p) ==
        source.partial.end()) {
      error = "the target makes a value partial that is not";
      return std::nullopt;
    }
  std::vector<ReshardStep> steps;
  Sharding cur = source;
  auto localBytes = [&](const Sharding &s) {
    int64_t n = elementBytes;
    for (size_t d = 0; d < shape.size(); ++d) {
      int64_t blocks = 1;
      for (int64_t a : s.dims[d])
        blocks *= mesh.axisSizes[a];
      n *= shape[d] / blocks;
    }
    return n;
  };
  auto push = [&](StepKind kind, std::vector<int64_t> axes, int64_t dim,
                  const Sharding &after, int64_t bytes) {
    ReshardStep step;
    step.kind = kind;
    step.axes = std::move(axes);
    step.dim = dim;
    step.before = cur;
    step.after = after;
    step.bytesSent = bytes;
    steps.push_back(step);
    cur = after;
  };
  // Resolve the partial axes the target does not keep.
  for (auto p : source.partial) {
    if (std::find(target.partial.begin(), target.partial.end(), p) !=
        target.partial.end())
      continue;
    Sharding after = cur;
    after.partial.erase(
        std::find(after.partial.begin(), after.partial.end(), p));
    int64_t g = mesh.axisSizes[p.first];
    push(StepKind::AllReduce, {p.first}, -1, after,
         2 * (g - 1) * localBytes(cur) / g);
    steps.back().reduction = p.second;
  }
  // Gather each dimension's axes beyond its common prefix with the target,
  // then slice what the target adds.
  for (size_t d = 0; d < shape.size(); ++d) {
    const std::vector<int64_t> &want = target.dims[d];
    while (true) {
      std::vector<int64_t> &have = cur.dims[d];
      size_t common = 0;
      while (common < have.size() && common < want.size() &&
             have[common] == want[common])
        ++common;
      if (common == have.size())
        break;
      Sharding after = cur;
      after.dims[d].pop_back();
      int64_t g = mesh.axisSizes[have.back()];
      push(StepKind::AllGather, {have.back()}, int64_t(d), after,
           (g - 1) * localBytes(cur));
    }
  }
  for (size_t d = 0; d < shape.size(); ++d)
    while (cur.dims[d].size() < target.dims[d].size()) {
      // An axis the target wants here may still split another dimension.
      int64_t axis = target.dims[d][cur.dims[d].size()];
      for (size_t e = 0; e < shape.size(); ++e)
        while (std::find(cur.dims[e].begin(), cur.dims[e].end(), axis) !=
               cur.dims[e].end()) {
          Sharding after = cur;
          after.dims[e].pop_back();
          int64_t g = mesh.axisSizes[cur.dims[e].back()];
          push(StepKind::AllGather, {cur.dims[e].back()}, int64_t(e), after,
               (g - 1) * localBytes(cur));
        }
      Sharding after = cur;
      after.dims[d].push_back(axis);
      push(StepKind::LocalSlice, {axis}, int64_t(d), after, 0);
    }
  return steps;
}

int64_t telar_sharding::getBytesSent(const std::vector<ReshardStep> &steps) {
  int64_t total = 0;
  for (const ReshardStep &s : steps)
    total += s.bytesSent;
  return total;
}
