//===- Communicator.cpp - Data types and the one-process communicator -----===//

#include "telar/runtime/Comm.h"

#include <cstring>
#include <string>

using namespace telar::runtime::comm;

Communicator::~Communicator() = default;

size_t telar::runtime::comm::getDataTypeSize(DataType type) {
  switch (type) {
  case DataType::F64:
  case DataType::I64:
    return 8;
  case DataType::F32:
  case DataType::I32:
    return 4;
  case DataType::F16:
  case DataType::BF16:
    return 2;
  case DataType::I8:
  case DataType::Bool:
    return 1;
  }
  return 1;
}

const char *telar::runtime::comm::getDataTypeName(DataType type) {
  switch (type) {
  case DataType::F32:
    return "f32";
  case DataType::F16:
    return "f16";
  case DataType::BF16:
    return "bf16";
  case DataType::F64:
    return "f64";
  case DataType::I64:
    return "i64";
  case DataType::I32:
    return "i32";
  case DataType::I8:
    return "i8";
  case DataType::Bool:
    return "bool";
  }
  return "?";
}

const char *telar::runtime::comm::getReduceOpName(ReduceOp op) {
  switch (op) {
  case ReduceOp::Sum:
    return "sum";
  case ReduceOp::Max:
    return "max";
  case ReduceOp::Min:
    return "min";
  case ReduceOp::Prod:
    return "prod";
  }
  return "?";
}

namespace {

/// One process: every collective copies its input.
class LocalCommunicator final : public Communicator {
public:
  int getRank() const override { return 0; }
  int getSize() const override { return 1; }
  const char *getBackendName() const override { return "local"; }

  void allReduce(const void *in, void *out, int64_t count, DataType type,
                 ReduceOp) override {
    copy(in, out, count, type);
  }
  void allGather(const void *in, void *out, int64_t count,
                 DataType type) override {
    copy(in, out, count, type);
  }
  void reduceScatter(const void *in, void *out, int64_t count, DataType type,
                     ReduceOp) override {
    copy(in, out, count, type);
  }
  void allToAll(const void *in, void *out, int64_t count,
                DataType type) override {
    copy(in, out, count, type);
  }
  void broadcast(void *, int64_t, DataType, int root) override {
    checkPeer(root, "broadcast");
  }
  void gather(const void *in, void *out, int64_t count, DataType type,
              int root) override {
    checkPeer(root, "gather");
    copy(in, out, count, type);
  }
  void send(const void *, int64_t, DataType, int peer, int) override {
    checkPeer(peer, "send");
    // To itself: nothing could ever receive it in order on one thread.
    throw CommError("send: a one-process communicator cannot send to itself");
  }
  void recv(void *, int64_t, DataType, int peer, int) override {
    checkPeer(peer, "recv");
    throw CommError(
        "recv: a one-process communicator cannot receive from itself");
  }
  void barrier() override {}
  std::unique_ptr<Communicator> split(int, int) override {
    return std::make_unique<LocalCommunicator>();
  }

private:
  static void copy(const void *in, void *out, int64_t count, DataType type) {
    if (in != out && count > 0)
      std::memcpy(out, in, size_t(count) * getDataTypeSize(type));
  }
  static void checkPeer(int peer, const char *what) {
    if (peer != 0)
      throw CommError(std::string(what) + ": rank " + std::to_string(peer) +
                      " is not in a one-process communicator");
  }
};

} // namespace

std::unique_ptr<Communicator> telar::runtime::comm::createLocalCommunicator() {
  return std::make_unique<LocalCommunicator>();
}
