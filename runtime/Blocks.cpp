//===- Blocks.cpp - Blocks of sharded tensors -----------------------------===//

#include "Blocks.h"

#include <cstring>

using namespace telar::runtime;

namespace {

int64_t splitFactor(const std::vector<int64_t> &axes,
                    const telar_sharding::Mesh &mesh) {
  int64_t n = 1;
  for (int64_t a : axes)
    n *= mesh.axisSizes[a];
  return n;
}

/// Copies rows of the innermost dimension between the block and the global
/// tensor; `toBlock` says which way.
void copyBlock(unsigned char *global, const std::vector<int64_t> &shape,
               const std::vector<int64_t> &offsets,
               const std::vector<int64_t> &block, size_t elementSize,
               unsigned char *dense, bool toBlock) {
  size_t rank = shape.size();
  int64_t count = 1;
  for (int64_t d : block)
    count *= d;
  if (count == 0)
    return;
  if (rank == 0) {
    toBlock ? std::memcpy(dense, global, elementSize)
            : std::memcpy(global, dense, elementSize);
    return;
  }
  // Global strides in elements.
  std::vector<int64_t> strides(rank, 1);
  for (size_t d = rank - 1; d-- > 0;)
    strides[d] = strides[d + 1] * shape[d + 1];
  size_t row = size_t(block[rank - 1]) * elementSize;
  int64_t rows = count / block[rank - 1];
  std::vector<int64_t> index(rank, 0); // over the block's outer dims
  for (int64_t r = 0; r < rows; ++r) {
    int64_t offset = 0;
    for (size_t d = 0; d < rank; ++d)
      offset += (offsets[d] + index[d]) * strides[d];
    unsigned char *g = global + size_t(offset) * elementSize;
    unsigned char *b = dense + size_t(r) * row;
    toBlock ? std::memcpy(b, g, row) : std::memcpy(g, b, row);
    for (size_t d = rank - 1; d-- > 0;) {
      if (++index[d] < block[d])
        break;
      index[d] = 0;
    }
  }
}

} // namespace

std::vector<int64_t>
detail::localShape(const std::vector<int64_t> &shape,
                   const telar_sharding::Sharding &sharding,
                   const telar_sharding::Mesh &mesh) {
  std::vector<int64_t> local = shape;
  for (size_t d = 0; d < sharding.dims.size() && d < local.size(); ++d)
    local[d] /= splitFactor(sharding.dims[d], mesh);
  return local;
}

std::vector<int64_t>
detail::blockOffsets(const std::vector<int64_t> &shape,
                     const telar_sharding::Sharding &sharding,
                     const telar_sharding::Mesh &mesh, int64_t rank) {
  // The rank's coordinates, row-major over the mesh's axes.
  std::vector<int64_t> coordinates(mesh.axisSizes.size());
  for (size_t i = mesh.axisSizes.size(); i-- > 0;) {
    coordinates[i] = rank % mesh.axisSizes[i];
    rank /= mesh.axisSizes[i];
  }
  std::vector<int64_t> offsets(shape.size(), 0);
  for (size_t d = 0; d < sharding.dims.size() && d < shape.size(); ++d) {
    int64_t index = 0;
    for (int64_t a : sharding.dims[d])
      index = index * mesh.axisSizes[a] + coordinates[a];
    offsets[d] = index * (shape[d] / splitFactor(sharding.dims[d], mesh));
  }
  return offsets;
}

std::string detail::formatMesh(const telar_sharding::Mesh &mesh) {
  std::string s;
  for (size_t i = 0; i < mesh.axisNames.size(); ++i)
    s += (i ? "," : "") + mesh.axisNames[i] + "=" +
         std::to_string(mesh.axisSizes[i]);
  return s;
}

void detail::extractBlock(const void *global, const std::vector<int64_t> &shape,
                          const std::vector<int64_t> &offsets,
                          const std::vector<int64_t> &block, size_t elementSize,
                          void *out) {
  copyBlock(
      const_cast<unsigned char *>(static_cast<const unsigned char *>(global)),
      shape, offsets, block, elementSize, static_cast<unsigned char *>(out),
      /*toBlock=*/true);
}

void detail::insertBlock(void *global, const std::vector<int64_t> &shape,
                         const std::vector<int64_t> &offsets,
                         const std::vector<int64_t> &block, size_t elementSize,
                         const void *in) {
  copyBlock(static_cast<unsigned char *>(global), shape, offsets, block,
            elementSize,
            const_cast<unsigned char *>(static_cast<const unsigned char *>(in)),
            /*toBlock=*/false);
}
