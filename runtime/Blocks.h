//===- Blocks.h - Blocks of sharded tensors ---------------------*- C++ -*-===//
//
// Internal to the runtime: copying a device's block of a sharded tensor
// (where it starts and its shape from telar_sharding::getBlockOffsets and
// getLocalShape) out of, or into, a dense row-major global tensor.
//
//===----------------------------------------------------------------------===//

#ifndef TELAR_RUNTIME_BLOCKS_H
#define TELAR_RUNTIME_BLOCKS_H

#include <cstddef>
#include <cstdint>
#include <vector>

namespace telar::runtime::detail {

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
