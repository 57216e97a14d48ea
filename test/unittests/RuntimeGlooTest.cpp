//===- RuntimeGlooTest.cpp - The TCP store and the Gloo backend -----------===//
//
// The rendezvous store (runtime/comm/TcpStore.h): values, waits, counters,
// timeouts, an address nobody serves, a port in use, a server that goes
// away; its handshake over the job's secret, and strangers and hostile
// requests that must not hurt it. The Gloo communicator (telar/runtime/GlooComm.h) with ranks as
// threads of this process: collectives, split, and the rendezvous errors
// (a rank that never joins, sizes that differ, a peer that stops
// answering). Every collective on every element type among processes is
// test/runtime/comm-gloo.test.
//
//===----------------------------------------------------------------------===//

#include "telar/runtime/Comm.h"
#include "telar/runtime/GlooComm.h"

#include "../../runtime/comm/Auth.h"
#include "../../runtime/comm/TcpStore.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstring>
#include <fstream>
#include <functional>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

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

/// The job's secret in these tests.
const std::string kToken = "test-secret";

/// A port nobody listens on now.
int freePort() {
  TcpStoreServer probe("127.0.0.1", 0, kToken, 16);
  return probe.getPort();
}

TEST(TcpStore, SetGetWaitAdd) {
  TcpStoreServer server("127.0.0.1", 0, kToken, 16);
  ASSERT_GT(server.getPort(), 0);
  TcpStoreClient a("127.0.0.1", server.getPort(), 2s, kToken);
  TcpStoreClient b("localhost", server.getPort(), 2s, kToken);
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
  TcpStoreServer server("127.0.0.1", 0, kToken, 16);
  TcpStoreClient reader("127.0.0.1", server.getPort(), 5s, kToken);
  std::thread writer([&] {
    TcpStoreClient w("127.0.0.1", server.getPort(), 5s, kToken);
    std::this_thread::sleep_for(200ms);
    w.set("late", bytes("here"));
  });
  Clock::time_point start = Clock::now();
  EXPECT_EQ(reader.get("late"), bytes("here"));
  EXPECT_GE(Clock::now() - start, 150ms);
  writer.join();
}

TEST(TcpStore, ConcurrentCounters) {
  TcpStoreServer server("127.0.0.1", 0, kToken, 16);
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t)
    threads.emplace_back([&] {
      TcpStoreClient c("127.0.0.1", server.getPort(), 5s, kToken);
      for (int i = 0; i < 50; ++i)
        c.add("count", 1);
    });
  for (std::thread &t : threads)
    t.join();
  TcpStoreClient c("127.0.0.1", server.getPort(), 5s, kToken);
  EXPECT_EQ(c.add("count", 0), 400);
}

TEST(TcpStore, GetTimesOut) {
  TcpStoreServer server("127.0.0.1", 0, kToken, 16);
  TcpStoreClient c("127.0.0.1", server.getPort(), 300ms, kToken);
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
      errorOf([&] { TcpStoreClient c("127.0.0.1", port, 500ms, kToken); });
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
  error = errorOf([&] { TcpStoreClient c("no-such-host.invalid", port, 300ms, kToken); });
  EXPECT_TRUE(contains(error, "cannot resolve 'no-such-host.invalid'")) << error;
}

TEST(TcpStore, ClientBeforeServer) {
  int port = freePort();
  std::unique_ptr<TcpStoreServer> server;
  std::thread late([&] {
    std::this_thread::sleep_for(300ms);
    server = std::make_unique<TcpStoreServer>("127.0.0.1", port, kToken, 16);
  });
  std::string error = errorOf([&] {
    TcpStoreClient c("127.0.0.1", port, 5s, kToken);
    c.set("a", bytes("b"));
    EXPECT_EQ(c.get("a"), bytes("b"));
  });
  late.join();
  EXPECT_EQ(error, "");
}

TEST(TcpStore, PortInUse) {
  TcpStoreServer first("127.0.0.1", 0, kToken, 16);
  std::string error =
      errorOf([&] { TcpStoreServer second("127.0.0.1", first.getPort(), kToken, 16); });
  EXPECT_EQ(error, "cannot serve the rendezvous on port " +
                       std::to_string(first.getPort()) +
                       ": Address already in use");
}

TEST(TcpStore, ServerGoesAway) {
  auto server = std::make_unique<TcpStoreServer>("127.0.0.1", 0, kToken, 16);
  int port = server->getPort();
  TcpStoreClient c("127.0.0.1", port, 10s, kToken), d("127.0.0.1", port, 10s, kToken);
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

//===----------------------------------------------------------------------===//
// The store against strangers (issue: hardening)
//===----------------------------------------------------------------------===//

/// A raw connection to 127.0.0.1:`port` (-1 on failure).
int rawConnect(int port) {
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  a.sin_port = htons(uint16_t(port));
  if (::connect(fd, reinterpret_cast<sockaddr *>(&a), sizeof(a)) != 0) {
    ::close(fd);
    return -1;
  }
  return fd;
}

/// Reads up to `n` bytes within `ms`; what came (shorter: closed or silent).
std::string rawRead(int fd, size_t n, int ms) {
  std::string got;
  Clock::time_point end = Clock::now() + std::chrono::milliseconds(ms);
  while (got.size() < n && Clock::now() < end) {
    pollfd p{fd, POLLIN, 0};
    if (::poll(&p, 1, 20) != 1)
      continue;
    char buffer[4096];
    ssize_t r = ::recv(fd, buffer, std::min(sizeof(buffer), n - got.size()), 0);
    if (r <= 0)
      break;
    got.append(buffer, size_t(r));
  }
  return got;
}

/// Whether the server closed `fd` within `ms`.
bool closedWithin(int fd, int ms) {
  Clock::time_point end = Clock::now() + std::chrono::milliseconds(ms);
  while (Clock::now() < end) {
    pollfd p{fd, POLLIN, 0};
    if (::poll(&p, 1, 20) == 1) {
      char c;
      if (::recv(fd, &c, 1, MSG_DONTWAIT) == 0)
        return true;
    }
  }
  return false;
}

/// The handshake done by hand with `token`: whether the server admitted it.
bool rawHandshake(int fd, const std::string &token) {
  std::string hello = rawRead(fd, 8 + auth::kNonceBytes, 2000);
  if (hello.size() != 8 + auth::kNonceBytes || hello.compare(0, 8, "TELARST1"))
    return false;
  std::string mine = auth::randomBytes(auth::kNonceBytes);
  std::string reply =
      mine + auth::hmac(token, std::string("telar-store-client", 19) +
                                   hello.substr(8) + mine);
  ::send(fd, reply.data(), reply.size(), MSG_NOSIGNAL);
  std::string verdict = rawRead(fd, 1 + auth::kDigestBytes, 2000);
  return verdict.size() == 1 + auth::kDigestBytes && verdict[0] == 1;
}

void rawSend(int fd, const std::string &bytes) {
  ::send(fd, bytes.data(), bytes.size(), MSG_NOSIGNAL);
}
std::string u32(uint32_t v) {
  std::string s(4, '\0');
  for (int i = 0; i < 4; ++i)
    s[size_t(i)] = char((v >> (8 * i)) & 0xff);
  return s;
}

/// This process's resident memory (kB).
long residentKb() {
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line))
    if (line.rfind("VmRSS:", 0) == 0)
      return std::atol(line.c_str() + 6);
  return 0;
}

TEST(TcpStore, AdmitsOnlyTheJobsSecret) {
  TcpStoreServer server("127.0.0.1", 0, kToken, 16);
  std::string error = errorOf(
      [&] { TcpStoreClient c("127.0.0.1", server.getPort(), 2s, "other"); });
  EXPECT_EQ(error, "the rendezvous at 127.0.0.1:" +
                       std::to_string(server.getPort()) +
                       " refused this rank: its TELAR_JOB_TOKEN is not rank "
                       "0's (every rank of a job needs the same)");
  // A server that does not know the secret cannot pass for rank 0's.
  TcpStoreServer impostor("127.0.0.1", 0, "", 16);
  error = errorOf(
      [&] { TcpStoreClient c("127.0.0.1", impostor.getPort(), 2s, kToken); });
  EXPECT_TRUE(contains(error, "refused this rank")) << error;
  TcpStoreClient ok("127.0.0.1", server.getPort(), 2s, kToken);
  ok.set("k", bytes("v"));
  EXPECT_EQ(ok.get("k"), bytes("v"));
}

TEST(TcpStore, StrangersLearnAndChangeNothing) {
  TcpStoreServer server("127.0.0.1", 0, kToken, 16);
  int port = server.getPort();
  TcpStoreClient job("127.0.0.1", port, 5s, kToken);
  job.set("telar/join/0", bytes("2 127.0.0.1"));

  // A GET without the handshake: the challenge, then nothing; closed
  // after the handshake time.
  int fd = rawConnect(port);
  ASSERT_GE(fd, 0);
  rawSend(fd, std::string(1, '\2') + u32(12) + "telar/join/0" +
                  std::string(8, '\0'));
  std::string got = rawRead(fd, 4096, 500);
  EXPECT_EQ(got.size(), 8 + auth::kNonceBytes); // the challenge only
  EXPECT_EQ(got.find("127.0.0.1"), std::string::npos);
  EXPECT_TRUE(closedWithin(fd, 7000));
  ::close(fd);
  // A forged join (SET without the secret) changes nothing.
  fd = rawConnect(port);
  rawSend(fd, std::string(1, '\1') + u32(12) + "telar/join/1" + u32(12) +
                  "99 127.0.0.1");
  ::close(fd);
  EXPECT_EQ(job.wait({"telar/join/1"}, 200ms),
            std::vector<std::string>{"telar/join/1"});
  EXPECT_EQ(job.get("telar/join/0"), bytes("2 127.0.0.1"));
}

TEST(TcpStore, HostileRequestsAreBoundedAndDropOnlyTheirConnection) {
  TcpStoreServer server("127.0.0.1", 0, kToken, 64);
  int port = server.getPort();
  long before = residentKb();
  // Even a peer that knows the secret (a broken rank) cannot make the
  // store allocate what it announces: a WAIT of 2^30 keys, a SET of a
  // 1 GiB key, a SET announcing a 60 MiB value and sending 10 bytes.
  for (const std::string &request :
       {std::string(1, '\3') + u32(1u << 30),
        std::string(1, '\1') + u32(1u << 30) + "abc",
        std::string(1, '\1') + u32(1) + "k" + u32(60u << 20) + "0123456789"}) {
    int fd = rawConnect(port);
    ASSERT_GE(fd, 0);
    ASSERT_TRUE(rawHandshake(fd, kToken));
    rawSend(fd, request);
    // The first two are refused at once; the third waits for its bytes.
    if (request[0] == '\3' || request.size() < 20)
      EXPECT_TRUE(closedWithin(fd, 2000));
    ::close(fd);
  }
  EXPECT_LT(residentKb() - before, 16 * 1024);
  // A flood of strangers that never prove themselves: a rank still gets in
  // within its timeout (strangers beyond the limit are closed at once, the
  // others after the handshake time).
  std::vector<int> strangers;
  for (int i = 0; i < 100; ++i)
    strangers.push_back(rawConnect(port));
  Clock::time_point start = Clock::now();
  TcpStoreClient job("127.0.0.1", port, 20s, kToken);
  job.set("after", bytes("flood"));
  EXPECT_EQ(job.get("after"), bytes("flood"));
  EXPECT_LT(Clock::now() - start, 15s);
  for (int fd : strangers) {
    if (fd >= 0)
      ::close(fd);
  }
}

// A property test of malformed messages: random requests (a random op byte,
// lengths and counts near and beyond the limits, random bytes, cut short
// at random), each on a connection of its own, some after the handshake and
// some without; the store never crashes or grows without bound, and the
// job's own client keeps working throughout.
TEST(TcpStore, RandomMalformedRequestsHurtNothing) {
  TcpStoreServer server("127.0.0.1", 0, kToken, 256);
  int port = server.getPort();
  TcpStoreClient job("127.0.0.1", port, 10s, kToken);
  std::mt19937 rng(2026);
  auto pick = [&](std::initializer_list<uint32_t> values) {
    std::vector<uint32_t> v(values);
    return v[rng() % v.size()];
  };
  long before = residentKb();
  for (int i = 0; i < 300; ++i) {
    std::string request(1, char(pick({0, 1, 2, 3, 4, 5, 255})));
    for (int field = 0, n = int(rng() % 4); field < n; ++field) {
      uint32_t length = pick({0, 1, 8, 4096, 4097, 64u << 20, (64u << 20) + 1,
                              1u << 30, 0xffffffffu, uint32_t(rng())});
      request += u32(length);
      std::string body(std::min<uint32_t>(length, rng() % 200), '\0');
      for (char &c : body)
        c = char(rng());
      request += body;
    }
    int fd = rawConnect(port);
    ASSERT_GE(fd, 0);
    if (rng() % 4 != 0 && !rawHandshake(fd, kToken)) {
      ::close(fd);
      continue; // a slot was busy: the next one
    }
    rawSend(fd, request);
    ::close(fd);
    if (i % 50 == 0) {
      job.set("alive/" + std::to_string(i), bytes("yes"));
      EXPECT_EQ(job.get("alive/" + std::to_string(i)), bytes("yes"));
    }
  }
  job.set("after", bytes("all"));
  EXPECT_EQ(job.get("after"), bytes("all"));
  EXPECT_LT(residentKb() - before, 64 * 1024);
}

} // namespace
