//===- Sharding.h - Meshes and shardings of tensors -------------*- C++ -*-===//
//
// The vocabulary every distributed stage shares: a named N-D device mesh,
// and the sharding of one tensor on it (for each dimension the mesh axes
// that split it, major to minor, plus the axes whose reduction is still
// pending). Plain C++17 without MLIR or LLVM, so that the compiler (plans,
// partitioner, cost model) and the runtime (slicing inputs, assembling
// outputs, splitting weights) compute blocks with the same code.
//
// The namespace is telar_sharding, not telar::sharding, for the reason
// telar/artifact/Manifest.h gives (mlir::telar in the compiler).
//
//===----------------------------------------------------------------------===//

#ifndef TELAR_SHARDING_CORE_SHARDING_H
#define TELAR_SHARDING_CORE_SHARDING_H

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace telar_sharding {

/// How the pending partial results of a value combine.
enum class ReductionKind { Sum, Max, Min, Prod };

/// "sum", "max", "min", "prod".
const char *getReductionName(ReductionKind kind);
std::optional<ReductionKind> parseReductionName(std::string_view name);

/// A device mesh: named axes with sizes. Ranks are numbered row-major over
/// the axes (the first axis is the most significant): on {data: 2, model: 2}
/// rank 1 is data=0, model=1.
struct Mesh {
  std::vector<std::string> axisNames;
  std::vector<int64_t> axisSizes;

  int64_t getNumAxes() const { return int64_t(axisSizes.size()); }
  /// The number of devices (1 for a mesh without axes).
  int64_t getNumDevices() const;
  std::optional<int64_t> getAxisIndex(std::string_view name) const;
  /// `rank`'s coordinate on every axis.
  std::vector<int64_t> getCoordinates(int64_t rank) const;
  int64_t getRank(const std::vector<int64_t> &coordinates) const;
  /// "data=2,model=2" (the form telarc's --mesh takes).
  std::string str() const;
  bool operator==(const Mesh &other) const {
    return axisNames == other.axisNames && axisSizes == other.axisSizes;
  }
};

/// The product of the sizes of `axes` (1 for none): the number of blocks
/// they cut a dimension into, or the size of their group.
int64_t getAxesSize(const Mesh &mesh, const std::vector<int64_t> &axes);

/// Parses "data=2,model=2"; nullopt with `error` set on a malformed spec,
/// a repeated name or a size below 1.
std::optional<Mesh> parseMeshSpec(std::string_view spec, std::string &error);

/// The sharding of one tensor on a mesh. `dims[d]` lists the mesh axes
/// (indices into the mesh) that split dimension d, major to minor: with
/// dims[d] = {a, b}, the dimension is cut into size(a) * size(b) equal
/// blocks, and the device at coordinates (.., ca, .., cb, ..) holds block
/// ca * size(b) + cb. `partial` lists axes (ascending, disjoint from the
/// split ones) along which the devices hold partial results still to be
/// combined with the given reduction: the value is the reduction over that
/// axis's devices of their blocks. Axes in neither list replicate.
struct Sharding {
  std::vector<std::vector<int64_t>> dims;
  std::vector<std::pair<int64_t, ReductionKind>> partial;

  static Sharding getReplicated(int64_t rank) {
    return Sharding{std::vector<std::vector<int64_t>>(rank), {}};
  }
  int64_t getRank() const { return int64_t(dims.size()); }
  bool isReplicated() const;
  bool isPartial() const { return !partial.empty(); }
  /// The axes that split some dimension, in no particular order.
  std::vector<int64_t> getSplitAxes() const;
  /// The tensor dimension `axis` splits, or -1.
  int64_t getDimOfAxis(int64_t axis) const;
  /// The reduction pending along `axis`, or nullopt when it is not partial.
  std::optional<ReductionKind> getPartialKind(int64_t axis) const;
  bool operator==(const Sharding &other) const {
    return dims == other.dims && partial == other.partial;
  }
  bool operator!=(const Sharding &other) const { return !(*this == other); }
};

/// Checks `sharding` against `mesh` and the global `shape`: the rank, every
/// axis in the mesh and used at most once (split or partial), partial axes
/// ascending and all of one reduction (kinds do not commute), each split
/// dimension divisible by the product of its axes' sizes. Returns "" when
/// valid, else a message such as "dimension 1 (size 6) is not divisible by
/// 4, the size of axes 'model'" (the caller prefixes the value's name).
std::string verifySharding(const Sharding &sharding, const Mesh &mesh,
                           const std::vector<int64_t> &shape);

/// The per-device (local) shape of a tensor of global `shape`. Assumes a
/// valid sharding (verifySharding).
std::vector<int64_t> getLocalShape(const std::vector<int64_t> &shape,
                                   const Sharding &sharding, const Mesh &mesh);

/// Where device `rank`'s block starts in each dimension of the global tensor.
std::vector<int64_t> getBlockOffsets(const std::vector<int64_t> &shape,
                                     const Sharding &sharding,
                                     const Mesh &mesh, int64_t rank);

/// A sharding in the notation of plan.json and of diagnostics, with axis
/// names: `[["data"], []]`, and `{"dims": [...], "partial": {"model": "sum"}}`
/// when partial.
std::string formatSharding(const Sharding &sharding, const Mesh &mesh);

} // namespace telar_sharding

#endif // TELAR_SHARDING_CORE_SHARDING_H
