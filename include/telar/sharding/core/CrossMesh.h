//===- CrossMesh.h - Moving a tensor between two submeshes ------*- C++ -*-===//
//
// A pipeline's stages run on disjoint submeshes of the world (docs/
// Pipeline.md), each with its own sharding of a boundary value. Moving the
// value from the stage computing it to a stage using it is a set of
// point-to-point messages, each a box of the global tensor that one sender
// rank holds and one receiver rank needs. This is the one function that
// decides those messages: the compiler writes them into the manifest and the
// planner's cost model prices a boundary from them (what is priced is what
// runs, as for Reshard.h within a mesh). Plain C++17 (TelarShardingCore).
//
//===----------------------------------------------------------------------===//

#ifndef TELAR_SHARDING_CORE_CROSSMESH_H
#define TELAR_SHARDING_CORE_CROSSMESH_H

#include "telar/sharding/core/Sharding.h"

#include <cstdint>
#include <vector>

namespace telar_sharding {

/// One point-to-point message: the box `sizes` at `fromOffsets` of the
/// sender's local block goes to `toOffsets` of the receiver's local block.
struct BoxMessage {
  int64_t fromRank = 0, toRank = 0; // world ranks
  std::vector<int64_t> fromOffsets; // into the sender's local block
  std::vector<int64_t> toOffsets;   // into the receiver's local block
  std::vector<int64_t> sizes;       // the box (same on both sides)
  int64_t bytes = 0;                // elements of the box * elementBytes

  bool operator==(const BoxMessage &other) const {
    return fromRank == other.fromRank && toRank == other.toRank &&
           fromOffsets == other.fromOffsets && toOffsets == other.toOffsets &&
           sizes == other.sizes && bytes == other.bytes;
  }
};

/// The messages that move a tensor of `globalShape` (elements of
/// `elementBytes`) from `from` on `fromMesh` (ranks fromFirstRank + row-major
/// index) to `to` on `toMesh` (ranks toFirstRank + row-major index).
///
/// Neither sharding may be partial, and both must be valid for their mesh
/// and the shape (verifySharding); otherwise std::invalid_argument (as for
/// a negative first rank or elementBytes < 1).
///
/// Every receiver gets each element of its block exactly once. A block of
/// `from` is held by R replicas (R = the product of the sizes of the axes of
/// fromMesh that split no dimension); the replica that sends it to receiver
/// i (its index on toMesh) is i mod R, the replica index being row-major
/// over the replicating axes in ascending axis order. Since a sender holds
/// one block and a receiver needs one block, each (sender, receiver) pair
/// exchanges one box (their intersection) at most: one message per pair.
/// Sorted by (fromRank, toRank). A rank in both meshes that sends to itself
/// appears as a message too (the runtime copies it). A tensor with no
/// elements needs no messages.
///
/// Cost: O(messages * rank of the tensor + ranks), never
/// a scan over all (sender, receiver) pairs.
std::vector<BoxMessage> getCrossMeshMessages(
    const std::vector<int64_t> &globalShape, int64_t elementBytes,
    const Mesh &fromMesh, const Sharding &from, int64_t fromFirstRank,
    const Mesh &toMesh, const Sharding &to, int64_t toFirstRank);

/// The sum of the messages' bytes.
int64_t getMessageBytes(const std::vector<BoxMessage> &messages);

/// What getCrossMeshMessages' messages add up to, computed from the same
/// enumeration without building them (no allocation per message): what a
/// cost model needs on meshes of thousands of ranks.
struct CrossMeshLoad {
  int64_t messages = 0;     // all of them, those to the sender itself included
  int64_t bytes = 0;        // between different ranks
  int64_t selfBytes = 0;    // copies: a rank in both meshes sending to itself
  int64_t maxSentBytes = 0; // the busiest sender's (self copies excluded)
  int64_t maxReceivedBytes = 0; // the busiest receiver's (likewise)

  bool operator==(const CrossMeshLoad &other) const {
    return messages == other.messages && bytes == other.bytes &&
           selfBytes == other.selfBytes && maxSentBytes == other.maxSentBytes &&
           maxReceivedBytes == other.maxReceivedBytes;
  }
};
/// Same arguments and errors as getCrossMeshMessages.
CrossMeshLoad getCrossMeshLoad(const std::vector<int64_t> &globalShape,
                               int64_t elementBytes, const Mesh &fromMesh,
                               const Sharding &from, int64_t fromFirstRank,
                               const Mesh &toMesh, const Sharding &to,
                               int64_t toFirstRank);

} // namespace telar_sharding

#endif // TELAR_SHARDING_CORE_CROSSMESH_H
