//===- RuntimeGlooTest.cpp - The TCP store and the Gloo backend -----------===//
//
// The rendezvous store (runtime/comm/TcpStore.h): values, waits, counters,
// timeouts, an address nobody serves, a port in use, a server that goes
// away. The Gloo communicator (telar/runtime/GlooComm.h) with ranks as
// threads of this process: collectives, split, and the rendezvous errors
// (a rank that never joins, sizes that differ, a peer that stops
// answering). Every collective on every element type among processes is
// test/runtime/comm-gloo.test.
//
//===----------------------------------------------------------------------===//

#include "telar/runtime/Comm.h"
#include "telar/runtime/GlooComm.h"

#include "../../runtime/comm/TcpStore.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <functional>
#include <string>
#include <thread>
#include <vector>

using namespace telar::runtime::comm;
using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

namespace {

template <typename F> std::string errorOf(F f) {
  try {
    f();
  } catch (const CommError &e) {
    return e.what();
  }
  return "";
}

bool contains(const std::string &s, const std::string &part) {
  return s.find(part) != std::string::npos;
}

std::vector<char> bytes(const std::string &s) {
  return std::vector<char>(s.begin(), s.end());
}

/// A port nobody listens on now.
int freePort() {
  TcpStoreServer probe(0);
  return probe.getPort();
}

TEST(TcpStore, SetGetWaitAdd) {
  TcpStoreServer server(0);
  ASSERT_GT(server.getPort(), 0);
  TcpStoreClient a("127.0.0.1", server.getPort(), 2s);
  TcpStoreClient b("localhost", server.getPort(), 2s);
  EXPECT_EQ(a.getAddress(), "127.0.0.1:" + std::to_string(server.getPort()));
  a.set("k", bytes("value"));
  EXPECT_EQ(b.get("k"), bytes("value"));
  // Binary values, empty ones, large ones; a set replaces.
  std::vector<char> binary = {'\0', '\x01', '\xff', '\0'};
  b.set("bin", binary);
  EXPECT_EQ(a.get("bin"), binary);
  a.set("empty", {});
  EXPECT_TRUE(b.get("empty").empty());
  std::vector<char> big(3 << 20);
  for (size_t i = 0; i < big.size(); ++i)
    big[i] = char(i * 7);
  a.set("big", big);
  EXPECT_EQ(b.get("big"), big);
  a.set("k", bytes("other"));
  EXPECT_EQ(b.get("k"), bytes("other"));

  EXPECT_TRUE(a.wait({"k", "bin"}, 0ms).empty());
  EXPECT_EQ(a.wait({"k", "x", "y"}, 50ms),
            (std::vector<std::string>{"x", "y"}));

  EXPECT_EQ(a.add("n", 5), 5);
  EXPECT_EQ(b.add("n", -2), 3);
  EXPECT_EQ(a.getLocalAddress(), "127.0.0.1");
}

TEST(TcpStore, GetWaitsForTheSet) {
  TcpStoreServer server(0);
  TcpStoreClient reader("127.0.0.1", server.getPort(), 5s);
  std::thread writer([&] {
    TcpStoreClient w("127.0.0.1", server.getPort(), 5s);
    std::this_thread::sleep_for(200ms);
    w.set("late", bytes("here"));
  });
  Clock::time_point start = Clock::now();
  EXPECT_EQ(reader.get("late"), bytes("here"));
  EXPECT_GE(Clock::now() - start, 150ms);
  writer.join();
}

TEST(TcpStore, ConcurrentCounters) {
  TcpStoreServer server(0);
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t)
    threads.emplace_back([&] {
      TcpStoreClient c("127.0.0.1", server.getPort(), 5s);
      for (int i = 0; i < 50; ++i)
        c.add("count", 1);
    });
  for (std::thread &t : threads)
    t.join();
  TcpStoreClient c("127.0.0.1", server.getPort(), 5s);
  EXPECT_EQ(c.add("count", 0), 400);
}

TEST(TcpStore, GetTimesOut) {
  TcpStoreServer server(0);
  TcpStoreClient c("127.0.0.1", server.getPort(), 300ms);
  Clock::time_point start = Clock::now();
  std::string error = errorOf([&] { c.get("never"); });
  EXPECT_TRUE(contains(error, "'never' was not set within 300 ms")) << error;
  EXPECT_GE(Clock::now() - start, 250ms);
  EXPECT_LT(Clock::now() - start, 3s);
}

TEST(TcpStore, NobodyServes) {
  int port = freePort();
  Clock::time_point start = Clock::now();
  std::string error =
      errorOf([&] { TcpStoreClient c("127.0.0.1", port, 500ms); });
  EXPECT_EQ(error.rfind("cannot reach the rendezvous at 127.0.0.1:" +
                            std::to_string(port) +
                            " after 500 ms (rank 0 serves it: is it running",
                        0),
            0u)
      << error;
  EXPECT_TRUE(contains(error, "Connection refused")) << error;
  EXPECT_GE(Clock::now() - start, 450ms);
  EXPECT_LT(Clock::now() - start, 3s);
  // A name that does not resolve (yet): retried, then said.
  error = errorOf([&] { TcpStoreClient c("no-such-host.invalid", port, 300ms); });
  EXPECT_TRUE(contains(error, "cannot resolve 'no-such-host.invalid'")) << error;
}

TEST(TcpStore, ClientBeforeServer) {
  int port = freePort();
  std::unique_ptr<TcpStoreServer> server;
  std::thread late([&] {
    std::this_thread::sleep_for(300ms);
    server = std::make_unique<TcpStoreServer>(port);
  });
  std::string error = errorOf([&] {
    TcpStoreClient c("127.0.0.1", port, 5s);
    c.set("a", bytes("b"));
    EXPECT_EQ(c.get("a"), bytes("b"));
  });
  late.join();
  EXPECT_EQ(error, "");
}

TEST(TcpStore, PortInUse) {
  TcpStoreServer first(0);
  std::string error =
      errorOf([&] { TcpStoreServer second(first.getPort()); });
  EXPECT_EQ(error, "cannot serve the rendezvous on port " +
                       std::to_string(first.getPort()) +
                       ": Address already in use");
}

TEST(TcpStore, ServerGoesAway) {
  auto server = std::make_unique<TcpStoreServer>(0);
  int port = server->getPort();
  TcpStoreClient c("127.0.0.1", port, 10s), d("127.0.0.1", port, 10s);
  std::thread stop([&] {
    std::this_thread::sleep_for(200ms);
    server.reset(); // while the clients wait
  });
  // A get waiting is told that the store stops; a wait gets what is
  // missing.
  Clock::time_point start = Clock::now();
  std::string error;
  std::thread other([&] { error = errorOf([&] { d.get("never"); }); });
  EXPECT_EQ(c.wait({"never"}, 10s), std::vector<std::string>{"never"});
  other.join();
  stop.join();
  EXPECT_TRUE(contains(error, "stopped while this rank waited for 'never'"))
      << error;
  EXPECT_LT(Clock::now() - start, 5s);
  // Then the connection is gone.
  error = errorOf([&] { c.get("k"); });
  EXPECT_TRUE(contains(error, "closed the connection")) << error;
}

/// Runs `body` on `size` ranks, each a thread with its own Gloo world
/// communicator; the error of each rank ("" when none).
std::vector<std::string>
runRanks(int size,
         const std::function<void(int rank, Communicator &world)> &body,
         std::chrono::milliseconds timeout = 10s,
         std::function<int(int rank)> sizeOf = nullptr) {
  int port = freePort();
  std::vector<std::string> errors(size);
  std::vector<std::thread> threads;
  for (int r = 0; r < size; ++r)
    threads.emplace_back([&, r] {
      try {
        std::shared_ptr<Communicator> world = createGlooWorldCommunicator(
            "127.0.0.1", port, r, sizeOf ? sizeOf(r) : size, timeout);
        body(r, *world);
      } catch (const std::exception &e) {
        errors[r] = e.what();
      }
    });
  for (std::thread &t : threads)
    t.join();
  return errors;
}

TEST(GlooCommunicator, Collectives) {
  const int n = 3;
  std::vector<std::string> errors = runRanks(n, [&](int r, Communicator &w) {
    EXPECT_EQ(w.getRank(), r);
    EXPECT_EQ(w.getSize(), n);
    EXPECT_STREQ(w.getBackendName(), "gloo");
    // all_reduce out of place and in place.
    float in[2] = {float(r), 1.0f}, out[2];
    w.allReduce(in, out, 2, DataType::F32, ReduceOp::Sum);
    EXPECT_EQ(out[0], 3.0f);
    EXPECT_EQ(out[1], 3.0f);
    int64_t m = 10 - r;
    w.allReduce(&m, &m, 1, DataType::I64, ReduceOp::Min);
    EXPECT_EQ(m, 8);
    uint8_t flags[2] = {uint8_t(r == 1), 1};
    w.allReduce(flags, flags, 2, DataType::Bool, ReduceOp::Sum); // or
    EXPECT_EQ(flags[0], 1);
    EXPECT_EQ(flags[1], 1);
    uint8_t all = uint8_t(r != 1);
    w.allReduce(&all, &all, 1, DataType::Bool, ReduceOp::Prod); // and
    EXPECT_EQ(all, 0);
    // reduce_scatter: block b of every member summed on member b.
    int32_t blocks[n * 2], mine[2];
    for (int i = 0; i < n * 2; ++i)
      blocks[i] = 100 * r + i;
    w.reduceScatter(blocks, mine, 2, DataType::I32, ReduceOp::Sum);
    EXPECT_EQ(mine[0], 300 + 3 * (2 * r));
    EXPECT_EQ(mine[1], 300 + 3 * (2 * r + 1));
    // all_to_all: block b to member b.
    int8_t send[n], recv[n];
    for (int b = 0; b < n; ++b)
      send[b] = int8_t(10 * r + b);
    w.allToAll(send, recv, 1, DataType::I8);
    for (int s = 0; s < n; ++s)
      EXPECT_EQ(recv[s], 10 * s + r);
    // broadcast, gather, all_gather.
    double v = r == 2 ? 42.5 : 0;
    w.broadcast(&v, 1, DataType::F64, 2);
    EXPECT_EQ(v, 42.5);
    int32_t one = r * r, got[n] = {-1, -1, -1};
    w.gather(&one, got, 1, DataType::I32, 1);
    if (r == 1) {
      EXPECT_EQ(std::vector<int32_t>(got, got + n),
                (std::vector<int32_t>{0, 1, 4}));
    }
    w.allGather(&one, got, 1, DataType::I32);
    EXPECT_EQ(std::vector<int32_t>(got, got + n),
              (std::vector<int32_t>{0, 1, 4}));
    // Point to point around the ring, on two tags. (A send waits for its
    // receive to be posted: no buffering to rely on, as with MPI's
    // large messages.)
    int next = (r + 1) % n, prev = (r + n - 1) % n;
    int32_t a = r, b = 100 + r, ra = -1, rb = -1;
    if (r == 0) {
      w.send(&a, 1, DataType::I32, next, 1);
      w.send(&b, 1, DataType::I32, next, 2);
      w.recv(&ra, 1, DataType::I32, prev, 1);
      w.recv(&rb, 1, DataType::I32, prev, 2);
    } else {
      w.recv(&ra, 1, DataType::I32, prev, 1);
      w.recv(&rb, 1, DataType::I32, prev, 2);
      w.send(&a, 1, DataType::I32, next, 1);
      w.send(&b, 1, DataType::I32, next, 2);
    }
    EXPECT_EQ(ra, prev);
    EXPECT_EQ(rb, 100 + prev);
    EXPECT_TRUE(contains(errorOf([&] { w.send(&a, 1, DataType::I32, r, 0); }),
                         "is this member"));
    // Zero elements: nothing to do, on every member.
    w.allReduce(nullptr, nullptr, 0, DataType::F32, ReduceOp::Sum);
    w.barrier();
  });
  for (int r = 0; r < n; ++r)
    EXPECT_EQ(errors[r], "") << "rank " << r;
}

TEST(GlooCommunicator, Split) {
  const int n = 4;
  std::vector<std::string> errors = runRanks(n, [&](int r, Communicator &w) {
    // {0, 2} and {1, 3}, ordered by descending rank; then a group of one.
    std::unique_ptr<Communicator> part = w.split(r % 2, -r);
    EXPECT_EQ(part->getSize(), 2);
    EXPECT_EQ(part->getRank(), r >= 2 ? 0 : 1);
    EXPECT_STREQ(part->getBackendName(), "gloo");
    int32_t v = r;
    part->allReduce(&v, &v, 1, DataType::I32, ReduceOp::Max);
    EXPECT_EQ(v, r % 2 ? 3 : 2);
    std::unique_ptr<Communicator> alone = w.split(r, 0);
    EXPECT_EQ(alone->getSize(), 1);
    int32_t x = 5, y = 0;
    alone->allReduce(&x, &y, 1, DataType::I32, ReduceOp::Sum);
    EXPECT_EQ(y, 5);
    // A split of a split.
    std::unique_ptr<Communicator> inner = part->split(0, 0);
    EXPECT_EQ(inner->getSize(), 2);
    inner->barrier();
  });
  for (int r = 0; r < n; ++r)
    EXPECT_EQ(errors[r], "") << "rank " << r;
}

TEST(GlooCommunicator, HalfFloatsReduceInFloat32) {
  // 1 + 3 half-ulps of float16 (2^-11 each) rounded once: 1 + 2^-9.
  std::vector<std::string> errors = runRanks(4, [&](int r, Communicator &w) {
    uint16_t v = r == 0 ? 0x3c00 : 0x1000; // 1.0, 2^-11
    w.allReduce(&v, &v, 1, DataType::F16, ReduceOp::Sum);
    EXPECT_EQ(v, 0x3c02);
  });
  for (const std::string &e : errors)
    EXPECT_EQ(e, "");
}

TEST(GlooCommunicator, RankThatNeverJoins) {
  // Ranks 0 and 1 of 3 start; rank 2 never does.
  int port = freePort();
  std::vector<std::string> errors(2);
  std::vector<std::thread> threads;
  for (int r = 0; r < 2; ++r)
    threads.emplace_back([&, r] {
      errors[r] = errorOf(
          [&] { createGlooWorldCommunicator("127.0.0.1", port, r, 3, 400ms); });
    });
  for (std::thread &t : threads)
    t.join();
  for (int r = 0; r < 2; ++r)
    EXPECT_EQ(errors[r], "the rendezvous at 127.0.0.1:" + std::to_string(port) +
                             ": rank 2 of 3 did not join within 400 ms (each "
                             "rank needs the same TELAR_MASTER_ADDR and "
                             "TELAR_MASTER_PORT)");
}

TEST(GlooCommunicator, SizesThatDiffer) {
  // Rank 1 thinks the world has 3 ranks.
  std::vector<std::string> errors = runRanks(
      2, [](int, Communicator &) {}, 500ms,
      [](int r) { return r == 1 ? 3 : 2; });
  EXPECT_EQ(errors[0].rfind(
                "the rendezvous at 127.0.0.1:", 0), 0u);
  EXPECT_TRUE(contains(errors[0], ": rank 1 joined with a world size of 3, "
                                  "rank 0 with 2 (TELAR_WORLD_SIZE must be "
                                  "the same on every rank)"))
      << errors[0];
  // Rank 1 waits for a rank 2 that never comes, until rank 0, which
  // serves the store, gives up.
  EXPECT_TRUE(contains(errors[1], "rank 2 of 3 did not join")) << errors[1];
}

TEST(GlooCommunicator, PeerThatStopsAnswering) {
  // Rank 1 joins, then does not take part in the all_reduce for longer
  // than the timeout: rank 0's call fails, naming the operation.
  std::atomic<bool> failed{false};
  std::vector<std::string> errors = runRanks(
      2,
      [&](int r, Communicator &w) {
        if (r == 1) {
          while (!failed)
            std::this_thread::sleep_for(10ms);
          return;
        }
        float v[4] = {};
        Clock::time_point start = Clock::now();
        std::string error = errorOf(
            [&] { w.allReduce(v, v, 4, DataType::F32, ReduceOp::Sum); });
        failed = true;
        EXPECT_TRUE(contains(error, "gloo all_reduce (sum of 4 f32 among 2 "
                                    "members) failed: "))
            << error;
        EXPECT_TRUE(contains(error, "Timed out")) << error;
        EXPECT_GE(Clock::now() - start, 400ms);
        EXPECT_LT(Clock::now() - start, 5s);
      },
      500ms);
  EXPECT_EQ(errors[0], "");
  EXPECT_EQ(errors[1], "");
}

TEST(GlooCommunicator, OneRankNeedsNoRendezvous) {
  // No server, no address: every collective a copy.
  std::shared_ptr<Communicator> w =
      createGlooWorldCommunicator("unused.invalid", 1, 0, 1, 100ms);
  EXPECT_EQ(w->getSize(), 1);
  float x = 2, y = 0;
  w->allReduce(&x, &y, 1, DataType::F32, ReduceOp::Sum);
  EXPECT_EQ(y, 2);
  EXPECT_TRUE(contains(errorOf([] {
                         createGlooWorldCommunicator("h", 1, 2, 2, 100ms);
                       }),
                       "rank 2 is not a rank of a world of 2"));
}

} // namespace
