//===- RuntimeBootstrapTest.cpp - How the ranks meet ----------------------===//
//
// The bootstraps of telar/runtime/Bootstrap.h apart from any transport:
// the one-process bootstrap, the TCP rendezvous (TcpBootstrap.h) with
// ranks as threads of this process (exchanges of bytes of different
// lengths, broadcast from any root, its join errors), the local place of a
// rank from host names, and Gloo refusing a bootstrap it cannot meet
// through. MPI's bootstrap runs among processes in test/runtime/comm.test.
//
//===----------------------------------------------------------------------===//

#include "telar/runtime/Bootstrap.h"
#include "telar/runtime/Comm.h"
#include "telar/runtime/GlooComm.h"
#include "telar/runtime/TcpBootstrap.h"

#include "../../runtime/comm/TcpStore.h"

#include <gtest/gtest.h>

#include <chrono>
#include <functional>
#include <string>
#include <thread>
#include <vector>

using namespace telar::runtime::comm;
using namespace std::chrono_literals;

namespace {

std::vector<char> bytes(const std::string &s) {
  return std::vector<char>(s.begin(), s.end());
}

int freePort() {
  TcpStoreServer probe("127.0.0.1", 0, "", 1);
  return probe.getPort();
}

/// Runs `body` on `size` TCP-bootstrapped ranks (threads); each rank's
/// error, "" when none.
std::vector<std::string>
runRanks(int size, const std::function<void(int, Bootstrap &)> &body) {
  int port = freePort();
  std::vector<std::string> errors(size);
  std::vector<std::thread> threads;
  for (int r = 0; r < size; ++r)
    threads.emplace_back([&, r] {
      try {
        TcpBootstrap bootstrap("127.0.0.1", port, r, size, 5s);
        body(r, bootstrap);
        bootstrap.barrier();
      } catch (const std::exception &e) {
        errors[r] = e.what();
      }
    });
  for (std::thread &t : threads)
    t.join();
  return errors;
}

TEST(Bootstrap, LocalIsOneRank) {
  std::shared_ptr<Bootstrap> b = createLocalBootstrap();
  EXPECT_EQ(b->getRank(), 0);
  EXPECT_EQ(b->getSize(), 1);
  EXPECT_STREQ(b->getName(), "local");
  EXPECT_EQ(b->allGather(bytes("x")), std::vector<std::vector<char>>{bytes("x")});
  EXPECT_EQ(b->broadcast(bytes("id"), 0), bytes("id"));
  b->barrier();
  LocalPlace place = findLocalPlace(*b, "host");
  EXPECT_EQ(place.localRank, 0);
  EXPECT_EQ(place.localSize, 1);
}

TEST(Bootstrap, TcpExchanges) {
  const int size = 3;
  std::vector<std::vector<std::vector<char>>> gathered(size);
  std::vector<std::vector<char>> ids(size), fromOne(size);
  std::vector<std::string> errors = runRanks(size, [&](int r, Bootstrap &b) {
    EXPECT_EQ(b.getRank(), r);
    EXPECT_EQ(b.getSize(), size);
    EXPECT_STREQ(b.getName(), "tcp");
    // Lengths differ per rank, rank 1's is empty.
    gathered[r] = b.allGather(std::vector<char>(r == 1 ? 0 : r + 2, char('a' + r)));
    // Rank 0 makes an id (as NCCL's unique id), every rank gets it; only
    // the root's bytes count.
    ids[r] = b.broadcast(r == 0 ? bytes(std::string("id\0x", 4)) : bytes("no"), 0);
    fromOne[r] = b.broadcast(r == 1 ? bytes("one") : bytes(""), 1);
  });
  for (int r = 0; r < size; ++r) {
    EXPECT_EQ(errors[r], "") << "rank " << r;
    ASSERT_EQ(gathered[r].size(), size_t(size));
    EXPECT_EQ(gathered[r][0], bytes("aa"));
    EXPECT_TRUE(gathered[r][1].empty());
    EXPECT_EQ(gathered[r][2], bytes("cccc"));
    EXPECT_EQ(ids[r], bytes(std::string("id\0x", 4)));
    EXPECT_EQ(fromOne[r], bytes("one"));
  }
}

TEST(Bootstrap, TcpLocalPlaceFromHostNames) {
  // Ranks 0 and 2 on host "a", 1 and 3 on "b".
  std::vector<LocalPlace> places(4);
  std::vector<std::string> errors = runRanks(4, [&](int r, Bootstrap &b) {
    places[r] = findLocalPlace(b, r % 2 ? "b" : "a");
  });
  for (int r = 0; r < 4; ++r) {
    EXPECT_EQ(errors[r], "") << "rank " << r;
    EXPECT_EQ(places[r].localRank, r / 2) << "rank " << r;
    EXPECT_EQ(places[r].localSize, 2) << "rank " << r;
  }
}

TEST(Bootstrap, TcpOneRankNeedsNoStore) {
  TcpBootstrap b("unused.invalid", 1, 0, 1, 100ms);
  EXPECT_EQ(b.getStore(), nullptr);
  EXPECT_EQ(b.allGather(bytes("x")), std::vector<std::vector<char>>{bytes("x")});
}

TEST(Bootstrap, TcpRankOutsideTheWorld) {
  std::string error;
  try {
    TcpBootstrap b("h", 1, 2, 2, 100ms);
  } catch (const CommError &e) {
    error = e.what();
  }
  EXPECT_EQ(error, "rank 2 is not a rank of a world of 2");
}

TEST(Bootstrap, BroadcastRootOutsideTheWorld) {
  std::string error;
  try {
    createLocalBootstrap()->broadcast(bytes("x"), 1);
  } catch (const CommError &e) {
    error = e.what();
  }
  EXPECT_EQ(error, "bootstrap broadcast: root 1 is not a rank of 1");
}

/// Two ranks that met some other way (as MPI's bootstrap would).
class OtherBootstrap final : public Bootstrap {
public:
  int getRank() const override { return 0; }
  int getSize() const override { return 2; }
  const char *getName() const override { return "mpi"; }
  std::vector<std::vector<char>>
  allGather(const std::vector<char> &bytes) override {
    return {bytes, bytes};
  }
};

TEST(Bootstrap, GlooMeetsThroughTcpOnly) {
  std::string error;
  try {
    createGlooWorldCommunicator(std::make_shared<OtherBootstrap>(), 1s);
  } catch (const CommError &e) {
    error = e.what();
  }
  EXPECT_EQ(error, "gloo: the ranks meet through Telar's TCP rendezvous "
                   "(TELAR_MASTER_ADDR, TELAR_MASTER_PORT), not through the "
                   "mpi bootstrap");
  // One rank, whatever its bootstrap, needs no meeting.
  std::shared_ptr<Communicator> one =
      createGlooWorldCommunicator(createLocalBootstrap(), 1s);
  EXPECT_EQ(one->getSize(), 1);
}

} // namespace
