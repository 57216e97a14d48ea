//===- Comm.h - Communicators: the transport of collectives -----*- C++ -*-===//
//
// The runtime's communication layer (runtime/comm, docs/Artifact.md
// "Collectives"): a small `Communicator` interface that transports implement
// (MPI in MpiComm.h, Gloo in GlooComm.h; NCCL next, behind the same
// interface), formed through a bootstrap (Bootstrap.h: how the ranks meet),
// and a `MeshCommunicator` that runs collectives among the devices of a
// named N-D mesh whose coordinates differ only on a set of axes, with one
// sub-communicator per axis set (created on first use) and statistics per
// axis set. The collective ABI of Abi.h (telarrt_all_reduce, ...) runs on
// the MeshCommunicator its context holds, on buffers in the memory of the
// context's device, ordered on the device's queue (Device.h).
//
// Plain C++17: nothing here includes a transport's headers.
//
//===----------------------------------------------------------------------===//

#ifndef TELAR_RUNTIME_COMM_H
#define TELAR_RUNTIME_COMM_H

#include "telar/runtime/Abi.h"
#include "telar/runtime/Device.h"

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace telar::runtime::comm {

/// Element types of collective buffers (the values of Abi.h's
/// TELAR_DTYPE_*).
enum class DataType : int {
  F32 = TELAR_DTYPE_F32,
  F16 = TELAR_DTYPE_F16,
  BF16 = TELAR_DTYPE_BF16,
  F64 = TELAR_DTYPE_F64,
  I64 = TELAR_DTYPE_I64,
  I32 = TELAR_DTYPE_I32,
  I8 = TELAR_DTYPE_I8,
  /// One byte, 0 or 1. Sum and max reduce as "or", prod and min as "and".
  Bool = TELAR_DTYPE_BOOL,
};
inline constexpr int kNumDataTypes = 8;

/// Reductions (Abi.h's TELAR_REDUCE_*). Float16 and bfloat16 reduce in
/// float32 (each value widened exactly, the result rounded once, to nearest
/// even).
enum class ReduceOp : int {
  Sum = TELAR_REDUCE_SUM,
  Max = TELAR_REDUCE_MAX,
  Min = TELAR_REDUCE_MIN,
  Prod = TELAR_REDUCE_PROD,
};
inline constexpr int kNumReduceOps = 4;

size_t getDataTypeSize(DataType type);
const char *getDataTypeName(DataType type); // "f32", "bf16", "bool", ...
const char *getReduceOpName(ReduceOp op);   // "sum", ...

/// A failed collective (a transport error, a peer gone, mismatched calls
/// the transport detected): the message names the operation.
class CommError : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};

/// A group of processes and the operations among them. Counts are elements
/// of `type`; buffers are contiguous and do not overlap unless said. Every
/// member calls the collective operations in the same order with the same
/// counts. Failures throw CommError. One thread at a time per communicator.
class Communicator {
public:
  virtual ~Communicator();

  virtual int getRank() const = 0;
  virtual int getSize() const = 0;
  /// "mpi", "local", ...
  virtual const char *getBackendName() const = 0;
  /// The memory its buffers are in: the host's for MPI, Gloo and the local
  /// communicator, whose operations run on the calling thread. (A
  /// transport of a device's own memory, NCCL, takes that device's.)
  virtual MemorySpace getMemorySpace() const { return MemorySpace::Host; }

  /// out[i] = op over the members of in[i]; `in` may equal `out`.
  virtual void allReduce(const void *in, void *out, int64_t count,
                         DataType type, ReduceOp op) = 0;
  /// in: `count` elements; out: [size][count], member m's at [m].
  virtual void allGather(const void *in, void *out, int64_t count,
                         DataType type) = 0;
  /// in: [size][count]; out: `count` elements, the reduction over the
  /// members of their block [rank].
  virtual void reduceScatter(const void *in, void *out, int64_t count,
                             DataType type, ReduceOp op) = 0;
  /// in: [size][count], block [m] goes to member m; out: [size][count],
  /// the block from member m at [m].
  virtual void allToAll(const void *in, void *out, int64_t count,
                        DataType type) = 0;
  /// `buffer` of `root` to every member.
  virtual void broadcast(void *buffer, int64_t count, DataType type,
                         int root) = 0;
  /// in: `count` elements; out (on `root` only, elsewhere unused):
  /// [size][count].
  virtual void gather(const void *in, void *out, int64_t count, DataType type,
                      int root) = 0;
  /// Point to point, matched by peer and tag (for pipelines).
  virtual void send(const void *buffer, int64_t count, DataType type, int peer,
                    int tag) = 0;
  virtual void recv(void *buffer, int64_t count, DataType type, int peer,
                    int tag) = 0;
  virtual void barrier() = 0;

  /// A communicator per `color`, members ordered by `key` (then by rank);
  /// collective over this communicator (every member calls it).
  virtual std::unique_ptr<Communicator> split(int color, int key) = 0;
};

/// A communicator of one process (every collective a copy): what a
/// single-device run uses, and a MeshCommunicator's group of an empty axis
/// set.
std::unique_ptr<Communicator> createLocalCommunicator();

/// A bit mask of mesh axes (bit i: axis i).
using AxisSet = uint64_t;

/// What a MeshCommunicator did on one axis set since the last reset.
struct AxisSetStats {
  int64_t calls = 0;
  /// Wall time inside the collectives (packing included).
  double seconds = 0;
  /// Bytes this rank sent, as ring and pairwise algorithms send them
  /// (telar_sharding::ReshardStep::bytesSent), for a local input of B bytes
  /// and a group of G: all-gather (G-1)*B, reduce-scatter (G-1)*B/G,
  /// all-reduce 2*(G-1)*B/G, all-to-all (G-1)*B/G, broadcast (G-1)*B from
  /// the root, send B, local slice and barrier 0.
  int64_t bytesSent = 0;
};

/// Collectives among the devices of a mesh (named axes with sizes, ranks
/// row-major over the axes, as telar_sharding::Mesh numbers them) whose
/// coordinates differ only on an axis set. A member's index in such a
/// group is row-major over its coordinates on the set's axes in ascending
/// axis order. The group of each axis set is split from the world
/// communicator on first use (collective over the world: every rank of an
/// SPMD program reaches its first use of a set at the same call). Buffers
/// and counts are those of Abi.h's collectives. Failures throw CommError
/// (bad arguments: std::invalid_argument). Not thread-safe: one collective
/// at a time.
///
/// Bound to a device (setDevice; a context binds its own), its buffers are
/// in that device's memory and each collective is ordered on the device's
/// queue after the work enqueued before it. When the transport's memory is
/// the device's, the transport takes the buffers as they are; else (a
/// host transport, MPI or Gloo, for a device of its own memory) the queue
/// is drained and the buffers are staged through host memory, both ways.
/// Unbound, its buffers are host memory and it runs on the calling thread.
class MeshCommunicator {
public:
  /// `world` must have as many members as the mesh has devices.
  MeshCommunicator(std::shared_ptr<Communicator> world,
                   std::vector<std::string> axisNames,
                   std::vector<int64_t> axisSizes);
  ~MeshCommunicator();

  Communicator &getWorld() const { return *world; }
  /// The device whose memory the buffers are in (null: the host's).
  void setDevice(Device *d) { device = d; }
  Device *getDevice() const { return device; }
  int64_t getRank() const { return world->getRank(); }
  int64_t getWorldSize() const { return world->getSize(); }
  const std::vector<std::string> &getAxisNames() const { return axisNames; }
  const std::vector<int64_t> &getAxisSizes() const { return axisSizes; }
  /// This rank's coordinate on each axis.
  const std::vector<int64_t> &getCoordinates() const { return coordinates; }
  /// The size of the group of `axes`, and this rank's index in it.
  int64_t getGroupSize(AxisSet axes) const;
  int64_t getGroupIndex(AxisSet axes) const;
  /// "data,model" ("" for the empty set).
  std::string formatAxisSet(AxisSet axes) const;
  /// "{data,model}", kept for the life of this object (what the watchdog
  /// names as the group a collective waits in).
  const char *getGroupLabel(AxisSet axes);
  /// The group's communicator (created on first use; collective then).
  Communicator &getGroup(AxisSet axes);

  void allReduce(AxisSet axes, DataType type, ReduceOp op, const void *in,
                 void *out, int64_t count);
  void allGather(AxisSet axes, DataType type, const void *in, void *out,
                 int64_t outer, int64_t inner);
  void reduceScatter(AxisSet axes, DataType type, ReduceOp op, const void *in,
                     void *out, int64_t outer, int64_t inner);
  void allToAll(AxisSet axes, DataType type, const void *in, void *out,
                int64_t splitOuter, int64_t splitInner, int64_t concatOuter,
                int64_t concatInner);
  void localSlice(AxisSet axes, DataType type, const void *in, void *out,
                  int64_t outer, int64_t inner);
  /// From the member of index `root` in the group of `axes`.
  void broadcast(AxisSet axes, DataType type, void *buffer, int64_t count,
                 int64_t root);
  /// Point to point with world rank `peer` (counted on the empty set).
  void send(DataType type, const void *buffer, int64_t count, int64_t peer,
            int tag);
  void recv(DataType type, void *buffer, int64_t count, int64_t peer, int tag);
  void barrier(AxisSet axes);

  /// Per axis set used since the last reset.
  const std::map<AxisSet, AxisSetStats> &getStats() const { return stats; }
  AxisSetStats getTotalStats() const;
  void resetStats() { stats.clear(); }

private:
  /// Checks `axes` against the mesh (std::invalid_argument).
  void checkAxes(AxisSet axes, const char *operation) const;
  /// Scratch buffer `index` (0 or 1) of at least `bytes`, kept between
  /// calls (throws std::bad_alloc).
  void *scratch(int index, size_t bytes);
  /// Adds one call's time (since `start`) and bytes to `axes`' statistics,
  /// and its span to a trace being recorded (Trace.h; paired across ranks
  /// for a collective of a group, not for a local slice nor point to
  /// point).
  void record(AxisSet axes, const char *kind,
              std::chrono::steady_clock::time_point start, int64_t bytes);
  /// Runs `body` on host-visible views of `in` (`inBytes`) and `out`
  /// (`outBytes`; the same buffer when in == out) ordered on the device's
  /// queue: the buffers themselves when the transport takes the device's
  /// memory, else host copies (the class comment).
  void onQueue(const void *in, size_t inBytes, void *out, size_t outBytes,
               const std::function<void(const void *, void *)> &body);

  std::shared_ptr<Communicator> world;
  std::vector<std::string> axisNames;
  std::vector<int64_t> axisSizes;
  std::vector<int64_t> coordinates;
  std::map<AxisSet, std::unique_ptr<Communicator>> groups;
  std::map<AxisSet, std::string> groupLabels;
  std::map<AxisSet, AxisSetStats> stats;
  /// Calls made on each axis set, ever (not reset with the statistics).
  std::map<AxisSet, int64_t> sequences;
  Device *device = nullptr;
  struct Scratch {
    std::unique_ptr<unsigned char[]> data;
    size_t bytes = 0;
  };
  /// 0 and 1: packing; 2 and 3: staging of device buffers.
  Scratch buffers[4];
};

} // namespace telar::runtime::comm

#endif // TELAR_RUNTIME_COMM_H
