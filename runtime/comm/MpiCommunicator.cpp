//===- MpiCommunicator.cpp - Collectives over MPI -------------------------===//
//
// Each operation maps to one MPI call on the element type's MPI type.
// Float16 and bfloat16 reductions widen to float32, reduce, and round
// once; their other operations move 16-bit words. Booleans reduce with
// MPI_LOR (sum, max) and MPI_LAND (prod, min). MPI's bootstrap exchanges
// bytes on a duplicate of MPI_COMM_WORLD of its own.
//
//===----------------------------------------------------------------------===//

#include "telar/runtime/MpiComm.h"
#include "telar/runtime/Bootstrap.h"
#include "telar/runtime/Launch.h"

#include "HalfFloat.h"

#include <mpi.h>

#include <climits>
#include <cstdlib>
#include <string>
#include <vector>

using namespace telar::runtime::comm;

namespace {

bool initializedHere = false;

std::string mpiErrorString(int code) {
  char text[MPI_MAX_ERROR_STRING];
  int length = 0;
  if (MPI_Error_string(code, text, &length) != MPI_SUCCESS)
    return "MPI error " + std::to_string(code);
  return std::string(text, length);
}

void check(int code, const char *call) {
  if (code != MPI_SUCCESS)
    throw CommError(std::string(call) + " failed: " + mpiErrorString(code));
}

int toInt(int64_t count, const char *call) {
  if (count < 0 || count > INT_MAX)
    throw CommError(std::string(call) + ": " + std::to_string(count) +
                    " elements per member is beyond MPI's int counts");
  return int(count);
}

/// The MPI type that moves (not reduces) elements of `type`.
MPI_Datatype moveType(DataType type) {
  switch (type) {
  case DataType::F32:
    return MPI_FLOAT;
  case DataType::F64:
    return MPI_DOUBLE;
  case DataType::I64:
    return MPI_INT64_T;
  case DataType::I32:
    return MPI_INT32_T;
  case DataType::I8:
    return MPI_INT8_T;
  case DataType::Bool:
    return MPI_UINT8_T;
  case DataType::F16:
  case DataType::BF16:
    return MPI_UINT16_T;
  }
  return MPI_BYTE;
}

MPI_Op reduceOp(DataType type, ReduceOp op) {
  if (type == DataType::Bool)
    return op == ReduceOp::Sum || op == ReduceOp::Max ? MPI_LOR : MPI_LAND;
  switch (op) {
  case ReduceOp::Sum:
    return MPI_SUM;
  case ReduceOp::Max:
    return MPI_MAX;
  case ReduceOp::Min:
    return MPI_MIN;
  case ReduceOp::Prod:
    return MPI_PROD;
  }
  return MPI_SUM;
}

bool isHalf(DataType type) {
  return type == DataType::F16 || type == DataType::BF16;
}

void widen(DataType type, const void *in, float *out, int64_t count) {
  auto *h = static_cast<const uint16_t *>(in);
  if (type == DataType::F16)
    for (int64_t i = 0; i < count; ++i)
      out[i] = detail::f16ToFloat(h[i]);
  else
    for (int64_t i = 0; i < count; ++i)
      out[i] = detail::bf16ToFloat(h[i]);
}

void narrow(DataType type, const float *in, void *out, int64_t count) {
  auto *h = static_cast<uint16_t *>(out);
  if (type == DataType::F16)
    for (int64_t i = 0; i < count; ++i)
      h[i] = detail::floatToF16(in[i]);
  else
    for (int64_t i = 0; i < count; ++i)
      h[i] = detail::floatToBf16(in[i]);
}

/// An MPI communicator owned (freed unless MPI has finalized), its errors
/// returned rather than fatal, with this process's rank and the size.
class OwnedMpiComm {
protected:
  explicit OwnedMpiComm(MPI_Comm comm) : comm(comm) {
    check(MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN),
          "MPI_Comm_set_errhandler");
    check(MPI_Comm_rank(comm, &rank), "MPI_Comm_rank");
    check(MPI_Comm_size(comm, &size), "MPI_Comm_size");
  }
  ~OwnedMpiComm() {
    int finalized = 0;
    MPI_Finalized(&finalized);
    if (!finalized)
      MPI_Comm_free(&comm);
  }
  OwnedMpiComm(const OwnedMpiComm &) = delete;
  OwnedMpiComm &operator=(const OwnedMpiComm &) = delete;

  MPI_Comm comm;
  int rank = 0, size = 1;
};

/// MPI_COMM_WORLD's duplicate.
MPI_Comm dupWorld() {
  MPI_Comm comm;
  check(MPI_Comm_dup(MPI_COMM_WORLD, &comm), "MPI_Comm_dup");
  return comm;
}

class MpiCommunicator final : public Communicator, private OwnedMpiComm {
public:
  /// Takes ownership of `comm`.
  explicit MpiCommunicator(MPI_Comm comm) : OwnedMpiComm(comm) {}

  int getRank() const override { return rank; }
  int getSize() const override { return size; }
  const char *getBackendName() const override { return "mpi"; }

  void allReduce(const void *in, void *out, int64_t count, DataType type,
                 ReduceOp op) override {
    int n = toInt(count, "MPI_Allreduce");
    if (isHalf(type)) {
      std::vector<float> wide(count);
      widen(type, in, wide.data(), count);
      check(MPI_Allreduce(MPI_IN_PLACE, wide.data(), n, MPI_FLOAT,
                          reduceOp(type, op), comm),
            "MPI_Allreduce");
      narrow(type, wide.data(), out, count);
      return;
    }
    check(MPI_Allreduce(in == out ? MPI_IN_PLACE : in, out, n, moveType(type),
                        reduceOp(type, op), comm),
          "MPI_Allreduce");
  }

  void allGather(const void *in, void *out, int64_t count,
                 DataType type) override {
    int n = toInt(count, "MPI_Allgather");
    check(MPI_Allgather(in, n, moveType(type), out, n, moveType(type), comm),
          "MPI_Allgather");
  }

  void reduceScatter(const void *in, void *out, int64_t count, DataType type,
                     ReduceOp op) override {
    int n = toInt(count, "MPI_Reduce_scatter_block");
    toInt(count * size, "MPI_Reduce_scatter_block");
    if (isHalf(type)) {
      std::vector<float> wide(size_t(count) * size), result(count);
      widen(type, in, wide.data(), count * size);
      check(MPI_Reduce_scatter_block(wide.data(), result.data(), n, MPI_FLOAT,
                                     reduceOp(type, op), comm),
            "MPI_Reduce_scatter_block");
      narrow(type, result.data(), out, count);
      return;
    }
    check(MPI_Reduce_scatter_block(in, out, n, moveType(type),
                                   reduceOp(type, op), comm),
          "MPI_Reduce_scatter_block");
  }

  void allToAll(const void *in, void *out, int64_t count,
                DataType type) override {
    int n = toInt(count, "MPI_Alltoall");
    check(MPI_Alltoall(in, n, moveType(type), out, n, moveType(type), comm),
          "MPI_Alltoall");
  }

  void broadcast(void *buffer, int64_t count, DataType type,
                 int root) override {
    check(MPI_Bcast(buffer, toInt(count, "MPI_Bcast"), moveType(type), root,
                    comm),
          "MPI_Bcast");
  }

  void gather(const void *in, void *out, int64_t count, DataType type,
              int root) override {
    int n = toInt(count, "MPI_Gather");
    check(MPI_Gather(in, n, moveType(type), out, n, moveType(type), root, comm),
          "MPI_Gather");
  }

  void send(const void *buffer, int64_t count, DataType type, int peer,
            int tag) override {
    check(MPI_Send(buffer, toInt(count, "MPI_Send"), moveType(type), peer, tag,
                   comm),
          "MPI_Send");
  }

  void recv(void *buffer, int64_t count, DataType type, int peer,
            int tag) override {
    MPI_Status status;
    int n = toInt(count, "MPI_Recv");
    check(MPI_Recv(buffer, n, moveType(type), peer, tag, comm, &status),
          "MPI_Recv");
    int received = 0;
    check(MPI_Get_count(&status, moveType(type), &received), "MPI_Get_count");
    if (received != n)
      throw CommError("MPI_Recv: expected " + std::to_string(n) +
                      " elements from rank " + std::to_string(peer) + ", got " +
                      std::to_string(received));
  }

  void barrier() override { check(MPI_Barrier(comm), "MPI_Barrier"); }

  std::unique_ptr<Communicator> split(int color, int key) override {
    MPI_Comm part;
    check(MPI_Comm_split(comm, color, key, &part), "MPI_Comm_split");
    return std::make_unique<MpiCommunicator>(part);
  }
};

/// The ranks met through MPI: its exchanges are MPI_Allgather(v) of bytes.
class MpiBootstrap final : public Bootstrap, private OwnedMpiComm {
public:
  MpiBootstrap() : OwnedMpiComm(dupWorld()) {}

  int getRank() const override { return rank; }
  int getSize() const override { return size; }
  const char *getName() const override { return "mpi"; }

  std::vector<std::vector<char>>
  allGather(const std::vector<char> &bytes) override {
    int length = toInt(int64_t(bytes.size()), "bootstrap MPI_Allgather");
    std::vector<int> lengths(size), offsets(size);
    check(MPI_Allgather(&length, 1, MPI_INT, lengths.data(), 1, MPI_INT, comm),
          "bootstrap MPI_Allgather");
    int64_t total = 0;
    for (int r = 0; r < size; ++r) {
      offsets[r] = toInt(total, "bootstrap MPI_Allgatherv");
      total += lengths[r];
    }
    std::vector<char> all(size_t(total) + 1);
    check(MPI_Allgatherv(bytes.data(), length, MPI_BYTE, all.data(),
                         lengths.data(), offsets.data(), MPI_BYTE, comm),
          "bootstrap MPI_Allgatherv");
    std::vector<std::vector<char>> out(size);
    for (int r = 0; r < size; ++r)
      out[r].assign(all.begin() + offsets[r],
                    all.begin() + offsets[r] + lengths[r]);
    return out;
  }

  std::vector<char> broadcast(const std::vector<char> &bytes,
                              int root) override {
    if (root < 0 || root >= size)
      throw CommError("bootstrap broadcast: root " + std::to_string(root) +
                      " is not a rank of " + std::to_string(size));
    int length = toInt(int64_t(bytes.size()), "bootstrap MPI_Bcast");
    check(MPI_Bcast(&length, 1, MPI_INT, root, comm), "bootstrap MPI_Bcast");
    std::vector<char> out = rank == root ? bytes : std::vector<char>(length);
    check(MPI_Bcast(out.data(), length, MPI_BYTE, root, comm),
          "bootstrap MPI_Bcast");
    return out;
  }

  void barrier() override { check(MPI_Barrier(comm), "bootstrap MPI_Barrier"); }
};

} // namespace

std::shared_ptr<Bootstrap> telar::runtime::comm::createMpiBootstrap() {
  if (!isMpiInitialized())
    throw CommError("MPI is not initialised");
  return std::make_shared<MpiBootstrap>();
}

bool telar::runtime::comm::isLaunchedAsMpiJob() {
  return hasMpiLauncherEnvironment();
}

bool telar::runtime::comm::isMpiInitialized() {
  int initialized = 0;
  MPI_Initialized(&initialized);
  return initialized;
}

void telar::runtime::comm::initializeMpi(int *argc, char ***argv) {
  if (isMpiInitialized())
    return;
  int provided = 0;
  int code = MPI_Init_thread(argc, argv, MPI_THREAD_SERIALIZED, &provided);
  if (code != MPI_SUCCESS)
    throw CommError("MPI_Init_thread failed: " + mpiErrorString(code));
  initializedHere = true;
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
}

void telar::runtime::comm::finalizeMpi() {
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (initializedHere && !finalized)
    MPI_Finalize();
}

void telar::runtime::comm::abortMpi(int code) {
  MPI_Abort(MPI_COMM_WORLD, code);
  std::_Exit(code);
}

std::shared_ptr<Communicator>
telar::runtime::comm::createMpiWorldCommunicator() {
  if (!isMpiInitialized())
    throw CommError("MPI is not initialised");
  return std::make_shared<MpiCommunicator>(dupWorld());
}
