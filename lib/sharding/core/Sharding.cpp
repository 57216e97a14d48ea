//===- Sharding.cpp - Meshes and shardings of tensors ---------------------===//
//
// Block math shared by the compiler and the runtime (no MLIR/LLVM here).
//
//===----------------------------------------------------------------------===//

#include "telar/sharding/core/Sharding.h"
#include "telar/sharding/core/DeviceLimit.h"

#include <algorithm>
#include <limits>

using namespace telar_sharding;

const char *telar_sharding::getReductionName(ReductionKind kind) {
  switch (kind) {
  case ReductionKind::Sum:
    return "sum";
  case ReductionKind::Max:
    return "max";
  case ReductionKind::Min:
    return "min";
  case ReductionKind::Prod:
    return "prod";
  }
  return "?";
}

std::optional<ReductionKind>
telar_sharding::parseReductionName(std::string_view name) {
  if (name == "sum")
    return ReductionKind::Sum;
  if (name == "max")
    return ReductionKind::Max;
  if (name == "min")
    return ReductionKind::Min;
  if (name == "prod")
    return ReductionKind::Prod;
  return std::nullopt;
}

//===----------------------------------------------------------------------===//
// Mesh
//===----------------------------------------------------------------------===//

int64_t Mesh::getNumDevices() const {
  int64_t n = 1;
  for (int64_t size : axisSizes)
    n *= size;
  return n;
}

bool telar_sharding::checkNumDevices(const std::vector<int64_t> &sizes,
                                     std::string &error) {
  if (int64_t(sizes.size()) > kMaxMeshAxes) {
    error = "the mesh has " + std::to_string(sizes.size()) +
            " axes, more than the " + std::to_string(kMaxMeshAxes) +
            " Telar supports";
    return false;
  }
  int64_t n = 1;
  bool overflow = false;
  for (int64_t size : sizes)
    overflow = overflow || __builtin_mul_overflow(n, size, &n);
  if (!overflow && n <= kMaxDevices)
    return true;
  error = "the mesh has " +
          (overflow ? std::string("more than 2^63") : std::to_string(n)) +
          " devices, more than the " + std::to_string(kMaxDevices) +
          " Telar supports";
  return false;
}

std::optional<int64_t> Mesh::getAxisIndex(std::string_view name) const {
  for (size_t i = 0; i < axisNames.size(); ++i)
    if (axisNames[i] == name)
      return int64_t(i);
  return std::nullopt;
}

std::vector<int64_t> Mesh::getCoordinates(int64_t rank) const {
  std::vector<int64_t> coords(axisSizes.size());
  for (size_t i = axisSizes.size(); i-- > 0;) {
    coords[i] = rank % axisSizes[i];
    rank /= axisSizes[i];
  }
  return coords;
}

int64_t Mesh::getRank(const std::vector<int64_t> &coordinates) const {
  int64_t rank = 0;
  for (size_t i = 0; i < axisSizes.size(); ++i)
    rank = rank * axisSizes[i] + coordinates[i];
  return rank;
}

std::string Mesh::str() const {
  std::string s;
  for (size_t i = 0; i < axisSizes.size(); ++i) {
    if (i)
      s += ',';
    s += axisNames[i];
    s += '=';
    s += std::to_string(axisSizes[i]);
  }
  return s;
}

static bool isNameStart(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}
static bool isNameChar(char c) {
  return isNameStart(c) || (c >= '0' && c <= '9');
}

static std::string_view trim(std::string_view s) {
  while (!s.empty() && s.front() == ' ')
    s.remove_prefix(1);
  while (!s.empty() && s.back() == ' ')
    s.remove_suffix(1);
  return s;
}

std::optional<Mesh> telar_sharding::parseMeshSpec(std::string_view spec,
                                                  std::string &error) {
  Mesh mesh;
  if (spec.empty()) {
    error = "empty mesh spec (expected name=size,...)";
    return std::nullopt;
  }
  size_t pos = 0;
  while (true) {
    size_t end = spec.find(',', pos);
    std::string_view item =
        spec.substr(pos, end == std::string_view::npos ? std::string_view::npos
                                                       : end - pos);
    size_t eq = item.find('=');
    if (eq == std::string_view::npos) {
      error =
          "mesh axis '" + std::string(item) + "' is not of the form name=size";
      return std::nullopt;
    }
    std::string_view name = trim(item.substr(0, eq));
    std::string_view size = trim(item.substr(eq + 1));
    if (name.empty() || !isNameStart(name[0]) ||
        !std::all_of(name.begin(), name.end(), isNameChar)) {
      error = "invalid mesh axis name '" + std::string(name) +
              "' (expected letters, digits and '_', not starting with a digit)";
      return std::nullopt;
    }
    if (mesh.getNumAxes() == kMaxMeshAxes) {
      error = "the mesh has more than " + std::to_string(kMaxMeshAxes) +
              " axes, the most Telar supports";
      return std::nullopt;
    }
    if (mesh.getAxisIndex(name)) {
      error = "mesh axis '" + std::string(name) + "' is repeated";
      return std::nullopt;
    }
    int64_t value = 0;
    bool ok = !size.empty();
    for (char c : size) {
      if (c < '0' || c > '9' ||
          value > (std::numeric_limits<int64_t>::max() - 9) / 10) {
        ok = false;
        break;
      }
      value = value * 10 + (c - '0');
    }
    if (!ok) {
      error = "mesh axis '" + std::string(name) + "' has invalid size '" +
              std::string(size) + "'";
      return std::nullopt;
    }
    if (value < 1) {
      error = "mesh axis '" + std::string(name) + "' has size " +
              std::to_string(value) + " (must be at least 1)";
      return std::nullopt;
    }
    mesh.axisNames.emplace_back(name);
    mesh.axisSizes.push_back(value);
    if (end == std::string_view::npos)
      break;
    pos = end + 1;
  }
  // Refused here, before any work that grows with the device count.
  if (!checkNumDevices(mesh.axisSizes, error))
    return std::nullopt;
  return mesh;
}

int64_t telar_sharding::getAxesSize(const Mesh &mesh,
                                    const std::vector<int64_t> &axes) {
  int64_t n = 1;
  for (int64_t axis : axes)
    n *= mesh.axisSizes[axis];
  return n;
}

//===----------------------------------------------------------------------===//
// Sharding
//===----------------------------------------------------------------------===//

bool Sharding::isReplicated() const {
  if (isPartial())
    return false;
  for (const auto &axes : dims)
    if (!axes.empty())
      return false;
  return true;
}

std::vector<int64_t> Sharding::getSplitAxes() const {
  std::vector<int64_t> axes;
  for (const auto &dimAxes : dims)
    axes.insert(axes.end(), dimAxes.begin(), dimAxes.end());
  return axes;
}

int64_t Sharding::getDimOfAxis(int64_t axis) const {
  for (size_t d = 0; d < dims.size(); ++d)
    if (std::find(dims[d].begin(), dims[d].end(), axis) != dims[d].end())
      return int64_t(d);
  return -1;
}

std::optional<ReductionKind> Sharding::getPartialKind(int64_t axis) const {
  for (const auto &[a, kind] : partial)
    if (a == axis)
      return kind;
  return std::nullopt;
}

static std::string axisLabel(const Mesh &mesh, int64_t axis) {
  if (axis >= 0 && axis < mesh.getNumAxes())
    return "'" + mesh.axisNames[axis] + "'";
  return std::to_string(axis);
}

std::string telar_sharding::verifySharding(const Sharding &sharding,
                                           const Mesh &mesh,
                                           const std::vector<int64_t> &shape) {
  if (sharding.getRank() != int64_t(shape.size()))
    return "sharding has " + std::to_string(sharding.getRank()) +
           " dimensions but the tensor has rank " +
           std::to_string(shape.size());
  std::vector<bool> used(mesh.axisSizes.size(), false);
  auto useAxis = [&](int64_t axis) -> std::string {
    if (axis < 0 || axis >= mesh.getNumAxes())
      return "axis " + std::to_string(axis) + " is not in the mesh (" +
             std::to_string(mesh.getNumAxes()) + " axes)";
    if (used[axis])
      return "mesh axis " + axisLabel(mesh, axis) + " is used twice";
    used[axis] = true;
    return "";
  };
  for (size_t d = 0; d < shape.size(); ++d) {
    if (shape[d] < 0)
      return "dimension " + std::to_string(d) + " has negative size " +
             std::to_string(shape[d]);
    for (int64_t axis : sharding.dims[d])
      if (std::string msg = useAxis(axis); !msg.empty())
        return msg;
  }
  for (size_t i = 0; i < sharding.partial.size(); ++i) {
    if (std::string msg = useAxis(sharding.partial[i].first); !msg.empty())
      return msg;
    if (i && sharding.partial[i - 1].first > sharding.partial[i].first)
      return "partial axes are not in ascending order";
  }
  // Reductions of different kinds do not commute (the sum of maxima is not
  // the maximum of sums), so a value pending two of them has no meaning.
  for (size_t i = 1; i < sharding.partial.size(); ++i)
    if (sharding.partial[i].second != sharding.partial[0].second)
      return "partial axes " + axisLabel(mesh, sharding.partial[0].first) +
             " (" + getReductionName(sharding.partial[0].second) + ") and " +
             axisLabel(mesh, sharding.partial[i].first) + " (" +
             getReductionName(sharding.partial[i].second) +
             ") have different reductions, which do not commute";
  for (size_t d = 0; d < shape.size(); ++d) {
    const auto &axes = sharding.dims[d];
    if (axes.empty())
      continue;
    int64_t n = getAxesSize(mesh, axes);
    if (shape[d] % n != 0) {
      std::string names;
      for (size_t i = 0; i < axes.size(); ++i)
        names += (i ? ", " : "") + axisLabel(mesh, axes[i]);
      return "dimension " + std::to_string(d) + " (size " +
             std::to_string(shape[d]) + ") is not divisible by " +
             std::to_string(n) + ", the size of axes " + names;
    }
  }
  return "";
}

std::vector<int64_t>
telar_sharding::getLocalShape(const std::vector<int64_t> &shape,
                              const Sharding &sharding, const Mesh &mesh) {
  std::vector<int64_t> local(shape);
  for (size_t d = 0; d < local.size() && d < sharding.dims.size(); ++d)
    local[d] /= getAxesSize(mesh, sharding.dims[d]);
  return local;
}

std::vector<int64_t>
telar_sharding::getBlockOffsets(const std::vector<int64_t> &shape,
                                const Sharding &sharding, const Mesh &mesh,
                                int64_t rank) {
  std::vector<int64_t> coords = mesh.getCoordinates(rank);
  std::vector<int64_t> local = getLocalShape(shape, sharding, mesh);
  std::vector<int64_t> offsets(shape.size(), 0);
  for (size_t d = 0; d < offsets.size() && d < sharding.dims.size(); ++d) {
    int64_t block = 0;
    for (int64_t axis : sharding.dims[d])
      block = block * mesh.axisSizes[axis] + coords[axis];
    offsets[d] = block * local[d];
  }
  return offsets;
}

static void appendJsonString(std::string &out, const std::string &s) {
  out += '"';
  for (char c : s) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (static_cast<unsigned char>(c) < 0x20) {
      static const char hex[] = "0123456789abcdef";
      out += "\\u00";
      out += hex[(c >> 4) & 0xf];
      out += hex[c & 0xf];
    } else {
      out += c;
    }
  }
  out += '"';
}

static void appendAxisName(std::string &out, const Mesh &mesh, int64_t axis) {
  if (axis >= 0 && axis < mesh.getNumAxes())
    appendJsonString(out, mesh.axisNames[axis]);
  else
    appendJsonString(out, "<axis " + std::to_string(axis) + ">");
}

std::string telar_sharding::formatSharding(const Sharding &sharding,
                                           const Mesh &mesh) {
  std::string dims = "[";
  for (size_t d = 0; d < sharding.dims.size(); ++d) {
    if (d)
      dims += ", ";
    dims += '[';
    for (size_t i = 0; i < sharding.dims[d].size(); ++i) {
      if (i)
        dims += ", ";
      appendAxisName(dims, mesh, sharding.dims[d][i]);
    }
    dims += ']';
  }
  dims += ']';
  if (!sharding.isPartial())
    return dims;
  std::string out = "{\"dims\": " + dims + ", \"partial\": {";
  for (size_t i = 0; i < sharding.partial.size(); ++i) {
    if (i)
      out += ", ";
    appendAxisName(out, mesh, sharding.partial[i].first);
    out += ": ";
    appendJsonString(out, getReductionName(sharding.partial[i].second));
  }
  out += "}}";
  return out;
}
