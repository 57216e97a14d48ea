//===- GlooCommunicator.cpp - Collectives over Gloo -----------------------===//
//
// Each operation maps to Gloo's collective of the same name on raw bytes,
// except all_reduce (Gloo's, with a reduction function per element type
// and operation) and reduce_scatter (Gloo's all-to-all, then the blocks
// this member received reduced locally in member order: the bytes a ring
// sends). Float16 and bfloat16 reduce in float32 and round once; booleans
// reduce as "or" (sum, max) and "and" (prod, min), as over MPI.
// Point-to-point transfers use unbound buffers on a slot of their own per
// tag. The ranks meet through the TCP bootstrap (TcpBootstrap.h), whose
// store serves the world's context and every split's, under distinct key
// prefixes.
//
//===----------------------------------------------------------------------===//

#include "telar/runtime/GlooComm.h"
#include "telar/runtime/TcpBootstrap.h"

#include "HalfFloat.h"
#include "TcpStore.h"

#include <gloo/allgather.h>
#include <gloo/allreduce.h>
#include <gloo/alltoall.h>
#include <gloo/barrier.h>
#include <gloo/broadcast.h>
#include <gloo/common/error.h>
#include <gloo/gather.h>
#include <gloo/rendezvous/context.h>
#include <gloo/rendezvous/prefix_store.h>
#include <gloo/rendezvous/store.h>
#include <gloo/transport/tcp/device.h>
#include <gloo/transport/unbound_buffer.h>
#include <gloo/types.h>

#include <algorithm>
#include <cstring>
#include <mutex>
#include <new>
#include <numeric>
#include <optional>
#include <string>
#include <vector>

using namespace telar::runtime::comm;
using std::chrono::milliseconds;

namespace {

/// Gloo's message without its "[file:line] " prefix.
std::string glooMessage(const std::exception &e) {
  std::string s = e.what();
  if (!s.empty() && s[0] == '[') {
    size_t close = s.find("] ");
    if (close != std::string::npos)
      s = s.substr(close + 2);
  }
  return s;
}

/// Runs `body`, turning Gloo's exceptions into CommError naming `what`.
template <typename F> void guarded(const std::string &what, F &&body) {
  try {
    body();
  } catch (const CommError &) {
    throw;
  } catch (const std::bad_alloc &) {
    throw;
  } catch (const std::exception &e) {
    throw CommError("gloo " + what + " failed: " + glooMessage(e));
  }
}

/// Gloo's store interface over the bootstrap's store (one request at a
/// time: several communicators, and the bootstrap, share it).
class StoreAdapter final : public gloo::rendezvous::Store {
public:
  explicit StoreAdapter(TcpBootstrap &bootstrap)
      : client(*bootstrap.getStore()), mutex(bootstrap.getStoreMutex()) {}

  void set(const std::string &key, const std::vector<char> &data) override {
    std::lock_guard<std::mutex> lock(mutex);
    client.set(key, data);
  }
  std::vector<char> get(const std::string &key) override {
    std::lock_guard<std::mutex> lock(mutex);
    return client.get(key);
  }
  void wait(const std::vector<std::string> &keys) override {
    wait(keys, client.getTimeout());
  }
  void wait(const std::vector<std::string> &keys,
            const milliseconds &timeout) override {
    std::vector<std::string> missing;
    {
      std::lock_guard<std::mutex> lock(mutex);
      missing = client.wait(keys, timeout);
    }
    if (!missing.empty())
      throw CommError("the rendezvous at " + client.getAddress() + ": '" +
                      missing.front() + "' was not set within " +
                      formatDuration(timeout));
  }

private:
  TcpStoreClient &client;
  std::mutex &mutex;
};

/// What every communicator of a job shares: the bootstrap (rank 0's store
/// server, the connection to it), the TCP device. Members are destroyed
/// bottom-up: the bootstrap last.
struct Rendezvous {
  std::shared_ptr<TcpBootstrap> bootstrap;
  std::unique_ptr<StoreAdapter> store;
  std::shared_ptr<gloo::transport::Device> device;
  milliseconds timeout{0};
};

/// A slot prefix no Gloo collective uses (gloo/types.h has 0x01-0x08).
constexpr uint8_t kPointToPointSlotPrefix = 0x40;

bool isHalf(DataType type) {
  return type == DataType::F16 || type == DataType::BF16;
}

void widen(DataType type, const void *in, float *out, size_t count) {
  auto *h = static_cast<const uint16_t *>(in);
  for (size_t i = 0; i < count; ++i)
    out[i] = type == DataType::F16 ? detail::f16ToFloat(h[i])
                                   : detail::bf16ToFloat(h[i]);
}

void narrow(DataType type, const float *in, void *out, size_t count) {
  auto *h = static_cast<uint16_t *>(out);
  for (size_t i = 0; i < count; ++i)
    h[i] = type == DataType::F16 ? detail::floatToF16(in[i])
                                 : detail::floatToBf16(in[i]);
}

using ReduceFunc = void (*)(void *, const void *, const void *, size_t);

template <typename T, typename Combine>
void combine(void *c, const void *a, const void *b, size_t n) {
  auto *out = static_cast<T *>(c);
  auto *x = static_cast<const T *>(a);
  auto *y = static_cast<const T *>(b);
  for (size_t i = 0; i < n; ++i)
    out[i] = Combine::apply(x[i], y[i]);
}

struct SumOp {
  template <typename T> static T apply(T x, T y) { return T(x + y); }
};
struct ProdOp {
  template <typename T> static T apply(T x, T y) { return T(x * y); }
};
struct MaxOp {
  template <typename T> static T apply(T x, T y) { return x < y ? y : x; }
};
struct MinOp {
  template <typename T> static T apply(T x, T y) { return y < x ? y : x; }
};
struct OrOp {
  static uint8_t apply(uint8_t x, uint8_t y) { return (x || y) ? 1 : 0; }
};
struct AndOp {
  static uint8_t apply(uint8_t x, uint8_t y) { return (x && y) ? 1 : 0; }
};

template <typename T> ReduceFunc reduceFunc(ReduceOp op) {
  switch (op) {
  case ReduceOp::Sum:
    return &combine<T, SumOp>;
  case ReduceOp::Prod:
    return &combine<T, ProdOp>;
  case ReduceOp::Max:
    return &combine<T, MaxOp>;
  case ReduceOp::Min:
    return &combine<T, MinOp>;
  }
  return &combine<T, SumOp>;
}

ReduceFunc boolReduceFunc(ReduceOp op) {
  return op == ReduceOp::Sum || op == ReduceOp::Max ? &combine<uint8_t, OrOp>
                                                    : &combine<uint8_t, AndOp>;
}

class GlooCommunicator final : public Communicator {
public:
  /// `context` null: a group of one (every operation local).
  GlooCommunicator(std::shared_ptr<Rendezvous> rendezvous,
                   std::shared_ptr<gloo::Context> context, int rank, int size,
                   std::string storePrefix)
      : rendezvous(std::move(rendezvous)), context(std::move(context)),
        rank(rank), size(size), storePrefix(std::move(storePrefix)) {
    if (!this->context)
      local = createLocalCommunicator();
  }

  int getRank() const override { return rank; }
  int getSize() const override { return size; }
  const char *getBackendName() const override { return "gloo"; }

  void allReduce(const void *in, void *out, int64_t count, DataType type,
                 ReduceOp op) override {
    if (local)
      return local->allReduce(in, out, count, type, op);
    if (count <= 0)
      return;
    size_t n = size_t(count);
    if (in != out)
      std::memcpy(out, in, n * getDataTypeSize(type));
    std::string what = describe("all_reduce", count, type, op);
    if (isHalf(type)) {
      std::vector<float> wide(n);
      widen(type, out, wide.data(), n);
      reduceInPlace(wide.data(), n, reduceFunc<float>(op), what);
      narrow(type, wide.data(), out, n);
      return;
    }
    switch (type) {
    case DataType::F32:
      return reduceInPlace(static_cast<float *>(out), n, reduceFunc<float>(op),
                           what);
    case DataType::F64:
      return reduceInPlace(static_cast<double *>(out), n,
                           reduceFunc<double>(op), what);
    case DataType::I64:
      return reduceInPlace(static_cast<int64_t *>(out), n,
                           reduceFunc<int64_t>(op), what);
    case DataType::I32:
      return reduceInPlace(static_cast<int32_t *>(out), n,
                           reduceFunc<int32_t>(op), what);
    case DataType::I8:
      return reduceInPlace(static_cast<int8_t *>(out), n,
                           reduceFunc<int8_t>(op), what);
    case DataType::Bool:
      return reduceInPlace(static_cast<uint8_t *>(out), n, boolReduceFunc(op),
                           what);
    case DataType::F16:
    case DataType::BF16:
      break;
    }
  }

  void allGather(const void *in, void *out, int64_t count,
                 DataType type) override {
    if (local)
      return local->allGather(in, out, count, type);
    if (count <= 0)
      return;
    size_t bytes = size_t(count) * getDataTypeSize(type);
    guarded(describe("all_gather", count, type), [&] {
      gloo::AllgatherOptions opts(context);
      opts.setInput(bytePointer(in), bytes);
      opts.setOutput(bytePointer(out), bytes * size);
      opts.setTag(nextTag());
      gloo::allgather(opts);
    });
  }

  void reduceScatter(const void *in, void *out, int64_t count, DataType type,
                     ReduceOp op) override {
    if (local)
      return local->reduceScatter(in, out, count, type, op);
    if (count <= 0)
      return;
    size_t n = size_t(count), elementBytes = getDataTypeSize(type);
    // Block m of every member, from member m, in member order.
    std::vector<unsigned char> blocks(n * elementBytes * size);
    guarded(describe("reduce_scatter", count, type, op), [&] {
      gloo::AlltoallOptions opts(context);
      opts.setInput(bytePointer(in), blocks.size());
      opts.setOutput(reinterpret_cast<char *>(blocks.data()), blocks.size());
      opts.setTag(nextTag());
      gloo::alltoall(opts);
    });
    if (isHalf(type)) {
      std::vector<float> sum(n), next(n);
      widen(type, blocks.data(), sum.data(), n);
      ReduceFunc f = reduceFunc<float>(op);
      for (int m = 1; m < size; ++m) {
        widen(type, blocks.data() + m * n * elementBytes, next.data(), n);
        f(sum.data(), sum.data(), next.data(), n);
      }
      narrow(type, sum.data(), out, n);
      return;
    }
    ReduceFunc f = nullptr;
    switch (type) {
    case DataType::F32:
      f = reduceFunc<float>(op);
      break;
    case DataType::F64:
      f = reduceFunc<double>(op);
      break;
    case DataType::I64:
      f = reduceFunc<int64_t>(op);
      break;
    case DataType::I32:
      f = reduceFunc<int32_t>(op);
      break;
    case DataType::I8:
      f = reduceFunc<int8_t>(op);
      break;
    case DataType::Bool:
      f = boolReduceFunc(op);
      break;
    case DataType::F16:
    case DataType::BF16:
      break;
    }
    std::memcpy(out, blocks.data(), n * elementBytes);
    for (int m = 1; m < size; ++m)
      f(out, out, blocks.data() + m * n * elementBytes, n);
  }

  void allToAll(const void *in, void *out, int64_t count,
                DataType type) override {
    if (local)
      return local->allToAll(in, out, count, type);
    if (count <= 0)
      return;
    size_t bytes = size_t(count) * getDataTypeSize(type) * size;
    guarded(describe("all_to_all", count, type), [&] {
      gloo::AlltoallOptions opts(context);
      opts.setInput(bytePointer(in), bytes);
      opts.setOutput(bytePointer(out), bytes);
      opts.setTag(nextTag());
      gloo::alltoall(opts);
    });
  }

  void broadcast(void *buffer, int64_t count, DataType type,
                 int root) override {
    checkMember(root, "broadcast root");
    if (local)
      return local->broadcast(buffer, count, type, root);
    if (count <= 0)
      return;
    size_t bytes = size_t(count) * getDataTypeSize(type);
    guarded(describe("broadcast", count, type) + " from member " +
                std::to_string(root),
            [&] {
              gloo::BroadcastOptions opts(context);
              opts.setOutput(bytePointer(buffer), bytes);
              opts.setRoot(root);
              opts.setTag(nextTag());
              gloo::broadcast(opts);
            });
  }

  void gather(const void *in, void *out, int64_t count, DataType type,
              int root) override {
    checkMember(root, "gather root");
    if (local)
      return local->gather(in, out, count, type, root);
    if (count <= 0)
      return;
    size_t bytes = size_t(count) * getDataTypeSize(type);
    guarded(describe("gather", count, type) + " to member " +
                std::to_string(root),
            [&] {
              gloo::GatherOptions opts(context);
              opts.setInput(bytePointer(in), bytes);
              if (rank == root)
                opts.setOutput(bytePointer(out), bytes * size);
              opts.setRoot(root);
              opts.setTag(nextTag());
              gloo::gather(opts);
            });
  }

  void send(const void *buffer, int64_t count, DataType type, int peer,
            int tag) override {
    checkPeer(peer, "send");
    size_t bytes = size_t(std::max<int64_t>(count, 0)) * getDataTypeSize(type);
    if (bytes == 0)
      return;
    guarded(describe("send", count, type) + " to member " +
                std::to_string(peer) + " (tag " + std::to_string(tag) + ")",
            [&] {
              auto buf = context->createUnboundBuffer(
                  const_cast<void *>(buffer), bytes);
              buf->send(peer, pointToPointSlot(tag));
              if (!buf->waitSend(rendezvous->timeout))
                throw CommError("gloo send to member " + std::to_string(peer) +
                                " was aborted");
            });
  }

  void recv(void *buffer, int64_t count, DataType type, int peer,
            int tag) override {
    checkPeer(peer, "recv");
    size_t bytes = size_t(std::max<int64_t>(count, 0)) * getDataTypeSize(type);
    if (bytes == 0)
      return;
    guarded(describe("recv", count, type) + " from member " +
                std::to_string(peer) + " (tag " + std::to_string(tag) + ")",
            [&] {
              auto buf = context->createUnboundBuffer(buffer, bytes);
              buf->recv(peer, pointToPointSlot(tag));
              if (!buf->waitRecv(rendezvous->timeout))
                throw CommError("gloo recv from member " + std::to_string(peer) +
                                " was aborted");
            });
  }

  void barrier() override {
    if (local)
      return local->barrier();
    guarded("barrier of " + std::to_string(size) + " members", [&] {
      gloo::BarrierOptions opts(context);
      opts.setTag(nextTag());
      gloo::barrier(opts);
    });
  }

  std::unique_ptr<Communicator> split(int color, int key) override {
    if (local)
      return local->split(color, key);
    // Every member's (color, key), then this member's group ordered by key,
    // then rank.
    int64_t mine[2] = {color, key};
    std::vector<int64_t> all(2 * size_t(size));
    allGather(mine, all.data(), 2, DataType::I64);
    std::vector<int> members;
    for (int m = 0; m < size; ++m)
      if (all[2 * m] == color)
        members.push_back(m);
    std::stable_sort(members.begin(), members.end(), [&](int a, int b) {
      return all[2 * a + 1] < all[2 * b + 1];
    });
    int newRank = int(std::find(members.begin(), members.end(), rank) -
                      members.begin());
    int newSize = int(members.size());
    // Each split of this communicator has its own keys, each group its own.
    std::string prefix = storePrefix + "/split" + std::to_string(splits++) +
                         "/color" + std::to_string(color);
    std::shared_ptr<gloo::Context> part;
    if (newSize > 1) {
      guarded("split (connecting a group of " + std::to_string(newSize) +
                  " members)",
              [&] {
                auto ctx = std::make_shared<gloo::rendezvous::Context>(
                    newRank, newSize);
                ctx->setTimeout(rendezvous->timeout);
                gloo::rendezvous::PrefixStore store(prefix, *rendezvous->store);
                ctx->connectFullMesh(store, rendezvous->device);
                part = ctx;
              });
    }
    // No member leaves before all have read the store (rank 0's server
    // ends with its last communicator).
    barrier();
    return std::make_unique<GlooCommunicator>(rendezvous, part, newRank,
                                              newSize, prefix);
  }

private:
  static char *bytePointer(const void *p) {
    return static_cast<char *>(const_cast<void *>(p));
  }

  uint32_t nextTag() { return tag++; }

  static uint64_t pointToPointSlot(int tag) {
    return gloo::Slot::build(kPointToPointSlotPrefix, uint32_t(tag));
  }

  std::string describe(const char *operation, int64_t count, DataType type,
                       std::optional<ReduceOp> op = std::nullopt) const {
    std::string s = std::string(operation) + " (";
    if (op)
      s += std::string(getReduceOpName(*op)) + " of ";
    return s + std::to_string(count) + " " + getDataTypeName(type) + " among " +
           std::to_string(size) + " members)";
  }

  void checkMember(int member, const char *what) const {
    if (member < 0 || member >= size)
      throw CommError(std::string("gloo ") + what + " " +
                      std::to_string(member) + " is not a member (0 to " +
                      std::to_string(size - 1) + ")");
  }

  void checkPeer(int peer, const char *what) const {
    checkMember(peer, what);
    if (peer == rank)
      throw CommError(std::string("gloo ") + what + ": member " +
                      std::to_string(peer) +
                      " is this member (Gloo has no transfer to self)");
  }

  template <typename T>
  void reduceInPlace(T *data, size_t n, ReduceFunc f, const std::string &what) {
    guarded(what, [&] {
      gloo::AllreduceOptions opts(context);
      opts.setOutput(data, n);
      opts.setReduceFunction(f);
      opts.setTag(nextTag());
      gloo::allreduce(opts);
    });
  }

  std::shared_ptr<Rendezvous> rendezvous;
  std::shared_ptr<gloo::Context> context;
  std::unique_ptr<Communicator> local;
  int rank, size;
  std::string storePrefix;
  int splits = 0;
  uint32_t tag = 0;
};

} // namespace

std::shared_ptr<Communicator> telar::runtime::comm::createGlooWorldCommunicator(
    std::shared_ptr<Bootstrap> bootstrap, milliseconds timeout) {
  if (timeout.count() <= 0)
    throw CommError("gloo: the timeout must be positive");
  if (bootstrap->getSize() == 1)
    return std::make_shared<GlooCommunicator>(nullptr, nullptr, 0, 1,
                                              "telar/world");
  auto tcp = std::dynamic_pointer_cast<TcpBootstrap>(bootstrap);
  if (!tcp)
    throw CommError(std::string("gloo: the ranks meet through Telar's TCP "
                                "rendezvous (TELAR_MASTER_ADDR, "
                                "TELAR_MASTER_PORT), not through the ") +
                    bootstrap->getName() + " bootstrap");
  int rank = tcp->getRank(), size = tcp->getSize();
  auto rv = std::make_shared<Rendezvous>();
  rv->bootstrap = tcp;
  rv->timeout = timeout;
  rv->store = std::make_unique<StoreAdapter>(*tcp);
  std::shared_ptr<gloo::Context> context;
  guarded("rendezvous (connecting " + std::to_string(size) +
              " ranks through " + tcp->getAddress() + ")",
          [&] {
            // Listen on the address this host reached the store from: one
            // the other ranks can reach too.
            gloo::transport::tcp::attr attr;
            attr.hostname = tcp->getListenAddress();
            rv->device = gloo::transport::tcp::CreateDevice(attr);
            auto ctx = std::make_shared<gloo::rendezvous::Context>(rank, size);
            ctx->setTimeout(timeout);
            gloo::rendezvous::PrefixStore store("telar/world", *rv->store);
            ctx->connectFullMesh(store, rv->device);
            context = ctx;
          });
  auto world = std::make_shared<GlooCommunicator>(rv, context, rank, size,
                                                  "telar/world");
  // No rank leaves before all have read the store.
  world->barrier();
  return world;
}

std::shared_ptr<Communicator> telar::runtime::comm::createGlooWorldCommunicator(
    const std::string &masterAddr, int masterPort, int rank, int size,
    milliseconds timeout) {
  auto bootstrap = std::make_shared<TcpBootstrap>(masterAddr, masterPort,
                                                  rank, size, timeout);
  return createGlooWorldCommunicator(std::move(bootstrap), timeout);
}
