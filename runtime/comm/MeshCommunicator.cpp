//===- MeshCommunicator.cpp - Collectives on the axes of a mesh -----------===//
//
// The [outer][G][inner] forms of Abi.h on top of a transport's contiguous
// [G][count] collectives: the blocks of each member are packed together
// before and unpacked after (no copy when outer is 1).
//
//===----------------------------------------------------------------------===//

#include "telar/runtime/Comm.h"
#include "telar/runtime/Trace.h"
#include "telar/runtime/Watchdog.h"
#include "telar/sharding/core/Reshard.h"

#include <chrono>
#include <cstring>
#include <limits>
#include <new>
#include <stdexcept>

using namespace telar::runtime::comm;

namespace {

using Clock = std::chrono::steady_clock;

int64_t checkedProduct(std::initializer_list<int64_t> factors,
                       const char *operation) {
  int64_t p = 1;
  for (int64_t f : factors) {
    if (f < 0)
      throw std::invalid_argument(std::string(operation) +
                                  ": negative element count " +
                                  std::to_string(f));
    if (f != 0 && p > std::numeric_limits<int64_t>::max() / f)
      throw std::invalid_argument(std::string(operation) +
                                  ": element count overflows");
    p *= f;
  }
  return p;
}

void checkBuffers(const void *in, const void *out, int64_t count,
                  const char *operation) {
  if (count > 0 && (!in || !out))
    throw std::invalid_argument(std::string(operation) +
                                ": null buffer for a non-empty tensor");
}

/// dst[b][a][:] = src[a][b][:] for a < A, b < B, rows of `row` bytes.
void transposeBlocks(const void *src, void *dst, int64_t a, int64_t b,
                     size_t row) {
  auto *s = static_cast<const unsigned char *>(src);
  auto *d = static_cast<unsigned char *>(dst);
  for (int64_t i = 0; i < a; ++i)
    for (int64_t j = 0; j < b; ++j)
      std::memcpy(d + (j * a + i) * row, s + (i * b + j) * row, row);
}

} // namespace

MeshCommunicator::MeshCommunicator(std::shared_ptr<Communicator> worldComm,
                                   std::vector<std::string> names,
                                   std::vector<int64_t> sizes)
    : world(std::move(worldComm)), axisNames(std::move(names)),
      axisSizes(std::move(sizes)) {
  if (!world)
    throw std::invalid_argument("a mesh communicator needs a world");
  if (axisNames.size() != axisSizes.size())
    throw std::invalid_argument("mesh: " + std::to_string(axisNames.size()) +
                                " axis names for " +
                                std::to_string(axisSizes.size()) + " sizes");
  if (axisSizes.size() > 63)
    throw std::invalid_argument("mesh: more than 63 axes");
  int64_t devices = 1;
  for (int64_t s : axisSizes) {
    if (s < 1)
      throw std::invalid_argument("mesh: axis size " + std::to_string(s));
    devices *= s;
  }
  if (devices != world->getSize())
    throw std::invalid_argument("the mesh has " + std::to_string(devices) +
                                " devices but the world " +
                                std::to_string(world->getSize()) + " ranks");
  // Row-major: the last axis varies fastest.
  coordinates.resize(axisSizes.size());
  int64_t r = world->getRank();
  for (size_t i = axisSizes.size(); i-- > 0;) {
    coordinates[i] = r % axisSizes[i];
    r /= axisSizes[i];
  }
}

MeshCommunicator::~MeshCommunicator() = default;

void MeshCommunicator::checkAxes(AxisSet axes, const char *operation) const {
  if (axisSizes.size() < 64 && (axes >> axisSizes.size()) != 0)
    throw std::invalid_argument(
        std::string(operation) + ": axis mask " + std::to_string(axes) +
        " names axes beyond the mesh's " + std::to_string(axisSizes.size()));
}

int64_t MeshCommunicator::getGroupSize(AxisSet axes) const {
  int64_t g = 1;
  for (size_t i = 0; i < axisSizes.size(); ++i)
    if (axes & (AxisSet(1) << i))
      g *= axisSizes[i];
  return g;
}

int64_t MeshCommunicator::getGroupIndex(AxisSet axes) const {
  int64_t index = 0;
  for (size_t i = 0; i < axisSizes.size(); ++i)
    if (axes & (AxisSet(1) << i))
      index = index * axisSizes[i] + coordinates[i];
  return index;
}

std::string MeshCommunicator::formatAxisSet(AxisSet axes) const {
  std::string s;
  for (size_t i = 0; i < axisSizes.size(); ++i)
    if (axes & (AxisSet(1) << i))
      s += (s.empty() ? "" : ",") + axisNames[i];
  return s;
}

const char *MeshCommunicator::getGroupLabel(AxisSet axes) {
  auto it = groupLabels.find(axes);
  if (it == groupLabels.end())
    it = groupLabels.emplace(axes, "{" + formatAxisSet(axes) + "}").first;
  return it->second.c_str();
}

Communicator &MeshCommunicator::getGroup(AxisSet axes) {
  checkAxes(axes, "group");
  auto it = groups.find(axes);
  if (it != groups.end())
    return *it->second;
  std::unique_ptr<Communicator> group;
  WaitScope wait("split (forming the group)", getGroupLabel(axes));
  if (getGroupSize(axes) == 1) {
    group = createLocalCommunicator();
  } else if (getGroupSize(axes) == world->getSize()) {
    // Every axis of size > 1: the world itself, in the same order (ranks
    // are row-major over all axes). Still a communicator of its own, so
    // that its traffic never meets the world's.
    group = world->split(0, int(world->getRank()));
  } else {
    // Color: the rank with the group's coordinates zeroed (the same for
    // exactly the members); key: the index in the group.
    int64_t color = 0;
    for (size_t i = 0; i < axisSizes.size(); ++i)
      color = color * axisSizes[i] +
              ((axes & (AxisSet(1) << i)) ? 0 : coordinates[i]);
    group = world->split(int(color), int(getGroupIndex(axes)));
  }
  if (group->getSize() != getGroupSize(axes) ||
      group->getRank() != getGroupIndex(axes))
    throw CommError("the group of axes {" + formatAxisSet(axes) + "} has " +
                    std::to_string(group->getSize()) + " members (rank " +
                    std::to_string(group->getRank()) + "), expected " +
                    std::to_string(getGroupSize(axes)) + " (index " +
                    std::to_string(getGroupIndex(axes)) + ")");
  return *groups.emplace(axes, std::move(group)).first->second;
}

void *MeshCommunicator::scratch(int index, size_t bytes) {
  Scratch &s = buffers[index];
  if (s.bytes < bytes) {
    s.data.reset();
    s.data.reset(new unsigned char[bytes]);
    s.bytes = bytes;
  }
  return s.data.get();
}

void MeshCommunicator::onQueue(
    const void *in, size_t inBytes, void *out, size_t outBytes,
    const std::function<void(const void *, void *)> &body) {
  if (!device) {
    body(in, out);
    return;
  }
  Queue &queue = device->getQueue();
  MemorySpace space = device->getMemorySpace();
  if (space == world->getMemorySpace()) {
    queue.enqueue([&] { body(in, out); });
    return;
  }
  // A host transport for a device of its own memory: the buffers through
  // host copies, once the queue has reached this point.
  void *hostIn = inBytes ? scratch(2, inBytes) : nullptr;
  void *hostOut = in == out ? hostIn : outBytes ? scratch(3, outBytes) : nullptr;
  if (inBytes)
    device->copy(hostIn, MemorySpace::Host, in, space, inBytes);
  queue.synchronize();
  body(hostIn, hostOut);
  if (outBytes) {
    device->copy(out, space, hostOut, MemorySpace::Host, outBytes);
    queue.synchronize(); // the host copy is reused by the next call
  }
}

void MeshCommunicator::record(AxisSet axes, const char *kind,
                              Clock::time_point start, int64_t bytes) {
  Clock::time_point end = Clock::now();
  AxisSetStats &s = stats[axes];
  s.calls += 1;
  s.seconds += std::chrono::duration<double>(end - start).count();
  s.bytesSent += bytes;
  // The call's index on its group, counted whether or not a trace records
  // it: every member makes the same calls on a group in the same order, so
  // equal indices are one collective (Trace.h's `match`).
  int64_t sequence = sequences[axes]++;
  if (!trace::enabled())
    return;
  trace::Span span;
  span.category = "collective";
  span.name = axes ? std::string(kind) + "[" + formatAxisSet(axes) + "]"
                   : std::string(kind);
  span.args = "\"axes\": " + trace::quote(formatAxisSet(axes)) +
              ", \"group_size\": " + std::to_string(getGroupSize(axes)) +
              ", \"bytes_sent\": " + std::to_string(bytes);
  // A collective among the group's members (not a local slice, which waits
  // for nobody, nor point to point): the group is named by its axes and
  // the rank with the group's coordinates zeroed (the same for exactly the
  // members).
  if (axes && std::strcmp(kind, "local_slice") != 0) {
    int64_t color = 0;
    for (size_t i = 0; i < axisSizes.size(); ++i)
      color = color * axisSizes[i] +
              ((axes & (AxisSet(1) << i)) ? 0 : coordinates[i]);
    span.match = formatAxisSet(axes) + "/" + std::to_string(color);
    span.sequence = sequence;
  }
  trace::record(std::move(span), start, end);
}

AxisSetStats MeshCommunicator::getTotalStats() const {
  AxisSetStats total;
  for (const auto &[axes, s] : stats) {
    total.calls += s.calls;
    total.seconds += s.seconds;
    total.bytesSent += s.bytesSent;
  }
  return total;
}

void MeshCommunicator::allReduce(AxisSet axes, DataType type, ReduceOp op,
                                 const void *in, void *out, int64_t count) {
  Clock::time_point start = Clock::now();
  checkAxes(axes, "all_reduce");
  checkedProduct({count}, "all_reduce");
  checkBuffers(in, out, count, "all_reduce");
  WaitScope wait("all_reduce", getGroupLabel(axes));
  int64_t g = getGroupSize(axes);
  int64_t bytes = count * int64_t(getDataTypeSize(type));
  Communicator &group = getGroup(axes);
  onQueue(in, size_t(bytes), out, size_t(bytes),
          [&](const void *in, void *out) {
            group.allReduce(in, out, count, type, op);
          });
  record(axes, "all_reduce", start,
         telar_sharding::getStepBytes(telar_sharding::StepKind::AllReduce, g,
                                      bytes));
}

void MeshCommunicator::allGather(AxisSet axes, DataType type, const void *in,
                                 void *out, int64_t outer, int64_t inner) {
  Clock::time_point start = Clock::now();
  checkAxes(axes, "all_gather");
  int64_t g = getGroupSize(axes);
  int64_t block = checkedProduct({outer, inner}, "all_gather");
  checkedProduct({outer, g, inner}, "all_gather");
  checkBuffers(in, out, block, "all_gather");
  WaitScope wait("all_gather", getGroupLabel(axes));
  size_t es = getDataTypeSize(type);
  Communicator &group = getGroup(axes);
  onQueue(in, size_t(block) * es, out, size_t(g * block) * es,
          [&](const void *in, void *out) {
            if (outer <= 1 || g == 1) {
              group.allGather(in, out, block, type);
              return;
            }
            // Gathered as [G][outer][inner], then [outer][G][inner].
            void *tmp = scratch(0, size_t(g * block) * es);
            group.allGather(in, tmp, block, type);
            transposeBlocks(tmp, out, g, outer, size_t(inner) * es);
          });
  record(axes, "all_gather", start,
         telar_sharding::getStepBytes(telar_sharding::StepKind::AllGather, g,
                                      block * int64_t(es)));
}

void MeshCommunicator::reduceScatter(AxisSet axes, DataType type, ReduceOp op,
                                     const void *in, void *out, int64_t outer,
                                     int64_t inner) {
  Clock::time_point start = Clock::now();
  checkAxes(axes, "reduce_scatter");
  int64_t g = getGroupSize(axes);
  int64_t block = checkedProduct({outer, inner}, "reduce_scatter");
  checkedProduct({outer, g, inner}, "reduce_scatter");
  checkBuffers(in, out, block, "reduce_scatter");
  WaitScope wait("reduce_scatter", getGroupLabel(axes));
  size_t es = getDataTypeSize(type);
  Communicator &group = getGroup(axes);
  onQueue(in, size_t(g * block) * es, out, size_t(block) * es,
          [&](const void *in, void *out) {
            if (outer <= 1 || g == 1) {
              group.reduceScatter(in, out, block, type, op);
              return;
            }
            // [outer][G][inner] packed as [G][outer][inner].
            void *tmp = scratch(0, size_t(g * block) * es);
            transposeBlocks(in, tmp, outer, g, size_t(inner) * es);
            group.reduceScatter(tmp, out, block, type, op);
          });
  record(axes, "reduce_scatter", start,
         telar_sharding::getStepBytes(telar_sharding::StepKind::ReduceScatter,
                                      g, g * block * int64_t(es)));
}

void MeshCommunicator::allToAll(AxisSet axes, DataType type, const void *in,
                                void *out, int64_t splitOuter,
                                int64_t splitInner, int64_t concatOuter,
                                int64_t concatInner) {
  Clock::time_point start = Clock::now();
  checkAxes(axes, "all_to_all");
  int64_t g = getGroupSize(axes);
  int64_t piece = checkedProduct({splitOuter, splitInner}, "all_to_all");
  int64_t received = checkedProduct({concatOuter, concatInner}, "all_to_all");
  checkedProduct({splitOuter, g, splitInner}, "all_to_all");
  checkedProduct({concatOuter, g, concatInner}, "all_to_all");
  if (piece != received)
    throw std::invalid_argument(
        "all_to_all: pieces of " + std::to_string(splitOuter) + "x" +
        std::to_string(splitInner) + " elements sent but of " +
        std::to_string(concatOuter) + "x" + std::to_string(concatInner) +
        " received");
  checkBuffers(in, out, piece, "all_to_all");
  WaitScope wait("all_to_all", getGroupLabel(axes));
  size_t es = getDataTypeSize(type);
  Communicator &group = getGroup(axes);
  size_t bytes = size_t(g * piece) * es;
  onQueue(in, bytes, out, bytes, [&](const void *in, void *out) {
    const void *send = in;
    if (splitOuter > 1 && g > 1) {
      void *tmp = scratch(0, bytes);
      transposeBlocks(in, tmp, splitOuter, g, size_t(splitInner) * es);
      send = tmp;
    }
    if (concatOuter > 1 && g > 1) {
      void *tmp = scratch(1, bytes);
      group.allToAll(send, tmp, piece, type);
      transposeBlocks(tmp, out, g, concatOuter, size_t(concatInner) * es);
    } else {
      group.allToAll(send, out, piece, type);
    }
  });
  record(axes, "all_to_all", start,
         telar_sharding::getStepBytes(telar_sharding::StepKind::AllToAll, g,
                                      g * piece * int64_t(es)));
}

void MeshCommunicator::localSlice(AxisSet axes, DataType type, const void *in,
                                  void *out, int64_t outer, int64_t inner) {
  Clock::time_point start = Clock::now();
  checkAxes(axes, "local_slice");
  int64_t g = getGroupSize(axes);
  int64_t block = checkedProduct({outer, inner}, "local_slice");
  checkedProduct({outer, g, inner}, "local_slice");
  checkBuffers(in, out, block, "local_slice");
  size_t row = size_t(inner) * getDataTypeSize(type);
  int64_t index = getGroupIndex(axes);
  onQueue(in, size_t(g * outer) * row, out, size_t(outer) * row,
          [&](const void *in, void *out) {
            auto *s = static_cast<const unsigned char *>(in);
            auto *d = static_cast<unsigned char *>(out);
            for (int64_t o = 0; o < outer && row; ++o)
              std::memcpy(d + o * row, s + (o * g + index) * row, row);
          });
  record(axes, "local_slice", start, 0);
}

void MeshCommunicator::broadcast(AxisSet axes, DataType type, void *buffer,
                                 int64_t count, int64_t root) {
  Clock::time_point start = Clock::now();
  checkAxes(axes, "broadcast");
  checkedProduct({count}, "broadcast");
  checkBuffers(buffer, buffer, count, "broadcast");
  int64_t g = getGroupSize(axes);
  if (root < 0 || root >= g)
    throw std::invalid_argument("broadcast: root " + std::to_string(root) +
                                " is not in a group of " + std::to_string(g));
  WaitScope wait("broadcast", getGroupLabel(axes));
  Communicator &group = getGroup(axes);
  size_t bytes = size_t(count) * getDataTypeSize(type);
  onQueue(buffer, bytes, buffer, bytes, [&](const void *, void *buffer) {
    group.broadcast(buffer, count, type, int(root));
  });
  record(axes, "broadcast", start,
         getGroupIndex(axes) == root ? (g - 1) * int64_t(bytes) : 0);
}

void MeshCommunicator::send(DataType type, const void *buffer, int64_t count,
                            int64_t peer, int tag) {
  Clock::time_point start = Clock::now();
  checkedProduct({count}, "send");
  checkBuffers(buffer, buffer, count, "send");
  if (peer < 0 || peer >= getWorldSize())
    throw std::invalid_argument("send: no rank " + std::to_string(peer));
  WaitScope wait("send to", "", int(peer));
  onQueue(buffer, size_t(count) * getDataTypeSize(type), nullptr, 0,
          [&](const void *buffer, void *) {
            world->send(buffer, count, type, int(peer), tag);
          });
  record(0, "send", start, count * int64_t(getDataTypeSize(type)));
}

void MeshCommunicator::recv(DataType type, void *buffer, int64_t count,
                            int64_t peer, int tag) {
  Clock::time_point start = Clock::now();
  checkedProduct({count}, "recv");
  checkBuffers(buffer, buffer, count, "recv");
  if (peer < 0 || peer >= getWorldSize())
    throw std::invalid_argument("recv: no rank " + std::to_string(peer));
  WaitScope wait("recv from", "", int(peer));
  onQueue(nullptr, 0, buffer, size_t(count) * getDataTypeSize(type),
          [&](const void *, void *buffer) {
            world->recv(buffer, count, type, int(peer), tag);
          });
  record(0, "recv", start, 0);
}

void MeshCommunicator::barrier(AxisSet axes) {
  Clock::time_point start = Clock::now();
  checkAxes(axes, "barrier");
  WaitScope wait("barrier", getGroupLabel(axes));
  Communicator &group = getGroup(axes);
  onQueue(nullptr, 0, nullptr, 0, [&](const void *, void *) { group.barrier(); });
  record(axes, "barrier", start, 0);
}
