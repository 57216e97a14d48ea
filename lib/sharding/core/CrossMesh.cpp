//===- CrossMesh.cpp - Moving a tensor between two submeshes --------------===//
//
// For each receiver, the sender blocks its block overlaps are found per
// dimension by division (blocks are equal and contiguous), so the work is
// proportional to the messages produced, which matters on the planner's
// meshes of thousands of ranks.
//
//===----------------------------------------------------------------------===//

#include "telar/sharding/core/CrossMesh.h"

#include <algorithm>
#include <cstddef>
#include <stdexcept>
#include <string>

using namespace telar_sharding;

namespace {

/// How a sharding cuts the tensor on a mesh, precomputed once.
struct Blocking {
  const Mesh *mesh = nullptr;
  const Sharding *sharding = nullptr;
  std::vector<int64_t> blocksPerDim; // product of the dim's axes' sizes
  std::vector<int64_t> local;        // the local block's shape
  std::vector<int64_t> replicaAxes;  // axes splitting nothing, ascending
  int64_t replicas = 1;
};

Blocking getBlocking(const std::vector<int64_t> &shape, const Mesh &mesh,
                     const Sharding &sharding, const char *side) {
  if (sharding.isPartial())
    throw std::invalid_argument(
        std::string("getCrossMeshMessages: the ") + side +
        " sharding is partial (" + formatSharding(sharding, mesh) +
        "): a cross-mesh transfer moves complete values only");
  if (std::string msg = verifySharding(sharding, mesh, shape); !msg.empty())
    throw std::invalid_argument(std::string("getCrossMeshMessages: the ") +
                                side + " sharding is invalid: " + msg);
  Blocking b;
  b.mesh = &mesh;
  b.sharding = &sharding;
  b.local = getLocalShape(shape, sharding, mesh);
  for (const auto &axes : sharding.dims)
    b.blocksPerDim.push_back(getAxesSize(mesh, axes));
  for (int64_t axis = 0; axis < mesh.getNumAxes(); ++axis)
    if (sharding.getDimOfAxis(axis) < 0) {
      b.replicaAxes.push_back(axis);
      b.replicas *= mesh.axisSizes[axis];
    }
  return b;
}

} // namespace

/// Calls `visit(sender, receiver, fromOffsets, toOffsets, sizes, elements)`
/// (indices on the meshes, pointers to rank-sized arrays) for every box, in
/// ascending receiver order and, per receiver, row-major block order: the
/// one enumeration both the messages and their load come from.
template <typename Visit>
static void forEachBox(const std::vector<int64_t> &globalShape,
                       int64_t elementBytes, const Mesh &fromMesh,
                       const Sharding &from, int64_t fromFirstRank,
                       const Mesh &toMesh, const Sharding &to,
                       int64_t toFirstRank, Visit visit) {
  if (elementBytes < 1)
    throw std::invalid_argument("getCrossMeshMessages: elementBytes is " +
                                std::to_string(elementBytes));
  if (fromFirstRank < 0 || toFirstRank < 0)
    throw std::invalid_argument("getCrossMeshMessages: negative first rank");
  Blocking src = getBlocking(globalShape, fromMesh, from, "sender's");
  Blocking dst = getBlocking(globalShape, toMesh, to, "receiver's");
  const size_t rank = globalShape.size();
  for (int64_t d : globalShape)
    if (d == 0)
      return;

  std::vector<int64_t> lo(rank), hi(rank), first(rank), last(rank), block(rank),
      fromOffsets(rank), toOffsets(rank), sizes(rank),
      senderCoords(size_t(fromMesh.getNumAxes())),
      receiverCoords(size_t(toMesh.getNumAxes()));
  const int64_t receivers = toMesh.getNumDevices();
  for (int64_t receiver = 0; receiver < receivers; ++receiver) {
    // The receiver's block offsets (getBlockOffsets, without allocating),
    // then the sender blocks overlapping it: per dimension a range of block
    // indices.
    for (int64_t axis = toMesh.getNumAxes(), rest = receiver; axis-- > 0;) {
      receiverCoords[size_t(axis)] = rest % toMesh.axisSizes[size_t(axis)];
      rest /= toMesh.axisSizes[size_t(axis)];
    }
    for (size_t d = 0; d < rank; ++d) {
      int64_t index = 0;
      for (int64_t axis : to.dims[d])
        index = index * toMesh.axisSizes[size_t(axis)] +
                receiverCoords[size_t(axis)];
      lo[d] = index * dst.local[d];
      hi[d] = lo[d] + dst.local[d];
      first[d] = lo[d] / src.local[d];
      last[d] = (hi[d] - 1) / src.local[d];
      block[d] = first[d];
    }
    // The replica serving this receiver, as coordinates on the replica axes.
    int64_t replica = receiver % src.replicas;
    for (size_t i = src.replicaAxes.size(); i-- > 0;) {
      int64_t axis = src.replicaAxes[i];
      senderCoords[axis] = replica % fromMesh.axisSizes[axis];
      replica /= fromMesh.axisSizes[axis];
    }
    while (true) {
      int64_t elements = 1;
      for (size_t d = 0; d < rank; ++d) {
        int64_t blockLo = block[d] * src.local[d];
        int64_t boxLo = std::max(lo[d], blockLo);
        int64_t boxHi = std::min(hi[d], blockLo + src.local[d]);
        fromOffsets[d] = boxLo - blockLo;
        toOffsets[d] = boxLo - lo[d];
        sizes[d] = boxHi - boxLo;
        elements *= boxHi - boxLo;
        // The block index along d is row-major over the dim's axes (major
        // to minor), as getBlockOffsets reads it.
        int64_t index = block[d];
        const auto &axes = from.dims[d];
        for (size_t i = axes.size(); i-- > 0;) {
          senderCoords[axes[i]] = index % fromMesh.axisSizes[axes[i]];
          index /= fromMesh.axisSizes[axes[i]];
        }
      }
      visit(fromMesh.getRank(senderCoords), receiver, fromOffsets.data(),
            toOffsets.data(), sizes.data(), elements);
      // Next block, row-major (the last dimension fastest).
      size_t d = rank;
      while (d > 0 && block[d - 1] == last[d - 1]) {
        block[d - 1] = first[d - 1];
        --d;
      }
      if (d == 0)
        break;
      ++block[d - 1];
    }
  }
}

std::vector<BoxMessage> telar_sharding::getCrossMeshMessages(
    const std::vector<int64_t> &globalShape, int64_t elementBytes,
    const Mesh &fromMesh, const Sharding &from, int64_t fromFirstRank,
    const Mesh &toMesh, const Sharding &to, int64_t toFirstRank) {
  std::vector<BoxMessage> messages;
  const size_t rank = globalShape.size();
  forEachBox(globalShape, elementBytes, fromMesh, from, fromFirstRank, toMesh,
             to, toFirstRank,
             [&](int64_t sender, int64_t receiver, const int64_t *fromOffsets,
                 const int64_t *toOffsets, const int64_t *sizes,
                 int64_t elements) {
               BoxMessage message;
               message.fromRank = fromFirstRank + sender;
               message.toRank = toFirstRank + receiver;
               message.fromOffsets.assign(fromOffsets, fromOffsets + rank);
               message.toOffsets.assign(toOffsets, toOffsets + rank);
               message.sizes.assign(sizes, sizes + rank);
               message.bytes = elements * elementBytes;
               messages.push_back(std::move(message));
             });
  // Receivers were visited in ascending order, so a stable counting sort on
  // the sender gives (fromRank, toRank) order, in O(messages + senders).
  const int64_t senders = fromMesh.getNumDevices();
  std::vector<size_t> begin(size_t(senders) + 1, 0);
  bool sorted = true;
  for (size_t i = 0; i < messages.size(); ++i) {
    ++begin[size_t(messages[i].fromRank - fromFirstRank) + 1];
    sorted &= i == 0 || messages[i - 1].fromRank <= messages[i].fromRank;
  }
  if (sorted)
    return messages;
  for (size_t r = 0; r < size_t(senders); ++r)
    begin[r + 1] += begin[r];
  std::vector<BoxMessage> bySender(messages.size());
  for (BoxMessage &message : messages)
    bySender[begin[size_t(message.fromRank - fromFirstRank)]++] =
        std::move(message);
  return bySender;
}

int64_t
telar_sharding::getMessageBytes(const std::vector<BoxMessage> &messages) {
  int64_t bytes = 0;
  for (const BoxMessage &message : messages)
    bytes += message.bytes;
  return bytes;
}

CrossMeshLoad telar_sharding::getCrossMeshLoad(
    const std::vector<int64_t> &globalShape, int64_t elementBytes,
    const Mesh &fromMesh, const Sharding &from, int64_t fromFirstRank,
    const Mesh &toMesh, const Sharding &to, int64_t toFirstRank) {
  CrossMeshLoad load;
  std::vector<int64_t> sent(size_t(fromMesh.getNumDevices()), 0),
      received(size_t(toMesh.getNumDevices()), 0);
  forEachBox(globalShape, elementBytes, fromMesh, from, fromFirstRank, toMesh,
             to, toFirstRank,
             [&](int64_t sender, int64_t receiver, const int64_t *,
                 const int64_t *, const int64_t *, int64_t elements) {
               int64_t bytes = elements * elementBytes;
               ++load.messages;
               if (fromFirstRank + sender == toFirstRank + receiver) {
                 load.selfBytes += bytes;
                 return;
               }
               load.bytes += bytes;
               sent[size_t(sender)] += bytes;
               received[size_t(receiver)] += bytes;
             });
  for (int64_t b : sent)
    load.maxSentBytes = std::max(load.maxSentBytes, b);
  for (int64_t b : received)
    load.maxReceivedBytes = std::max(load.maxReceivedBytes, b);
  return load;
}
