//===- Blocks.cpp - Blocks of sharded tensors -----------------------------===//

#include "Blocks.h"

#include <cstring>

using namespace telar::runtime;

namespace {

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
