//===- Blocks.h - Blocks of sharded tensors ---------------------*- C++ -*-===//
//
// Internal to the runtime: the local shape and offsets of a device's block
// of a sharded tensor (the block math of include/telar/sharding/Sharding.h,
// for the manifest's inputs, outputs and weights), and copying a block out
// of, or into, a dense row-major global tensor.
//
//===----------------------------------------------------------------------===//

#ifndef TELAR_RUNTIME_BLOCKS_H
#define TELAR_RUNTIME_BLOCKS_H

#include "telar/sharding/Sharding.h"

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace telar::runtime::detail {

/// The shape of each device's block of a tensor of global `shape`.
std::vector<int64_t> localShape(const std::vector<int64_t> &shape,
                                const telar_sharding::Sharding &sharding,
                                const telar_sharding::Mesh &mesh);
/// Where device `rank`'s block starts in each dimension.
std::vector<int64_t> blockOffsets(const std::vector<int64_t> &shape,
                                  const telar_sharding::Sharding &sharding,
                                  const telar_sharding::Mesh &mesh,
                                  int64_t rank);

/// "data=2,model=2".
std::string formatMesh(const telar_sharding::Mesh &mesh);

/// Copies the block at `offsets` of shape `block` out of the dense global
/// tensor `global` of shape `shape` into the dense `out` (extract), or from
/// `in` into `global` (insert); elements of `elementSize` bytes.
void extractBlock(const void *global, const std::vector<int64_t> &shape,
                  const std::vector<int64_t> &offsets,
                  const std::vector<int64_t> &block, size_t elementSize,
                  void *out);
void insertBlock(void *global, const std::vector<int64_t> &shape,
                 const std::vector<int64_t> &offsets,
                 const std::vector<int64_t> &block, size_t elementSize,
                 const void *in);

} // namespace telar::runtime::detail

#endif // TELAR_RUNTIME_BLOCKS_H
