//===- TcpBootstrap.cpp - Telar's TCP rendezvous --------------------------===//
//
// The join (every rank sets telar/join/<rank> to its world size and the
// address it reached rank 0 at, then waits for all) and the exchanges
// (telar/bootstrap/<n>/<rank>) over the store of TcpStore.h
// (include/telar/runtime/TcpBootstrap.h).
//
//===----------------------------------------------------------------------===//

#include "telar/runtime/TcpBootstrap.h"

#include "telar/runtime/Comm.h"

#include "Auth.h"
#include "TcpStore.h"

#include <algorithm>
#include <csignal>
#include <cstring>
#include <thread>
#include <netdb.h>
#include <sys/socket.h>
#include <unistd.h>

using namespace telar::runtime::comm;
using std::chrono::milliseconds;

namespace {

void ignoreSigpipe() {
  struct sigaction current {};
  if (::sigaction(SIGPIPE, nullptr, &current) == 0 &&
      current.sa_handler == SIG_DFL)
    std::signal(SIGPIPE, SIG_IGN);
}

/// Whether this host can listen on the numeric `address` (not one a
/// proxy or NAT answers for).
bool isLocalAddress(const std::string &address) {
  if (address.empty())
    return false;
  addrinfo hints{};
  hints.ai_flags = AI_NUMERICHOST | AI_PASSIVE;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo *found = nullptr;
  if (::getaddrinfo(address.c_str(), "0", &hints, &found) != 0)
    return false;
  bool ok = false;
  int fd = ::socket(found->ai_family, found->ai_socktype | SOCK_CLOEXEC,
                    found->ai_protocol);
  if (fd >= 0) {
    ok = ::bind(fd, found->ai_addr, found->ai_addrlen) == 0;
    ::close(fd);
  }
  ::freeaddrinfo(found);
  return ok;
}

std::string listRanks(const std::vector<int> &ranks) {
  std::string s;
  for (int r : ranks)
    s += (s.empty() ? "" : ", ") + std::to_string(r);
  return s;
}

} // namespace

TcpBootstrap::TcpBootstrap(const std::string &masterAddr, int masterPort,
                           int rank, int size, milliseconds timeout)
    : masterAddr(masterAddr),
      address(masterAddr + ":" + std::to_string(masterPort)), rank(rank),
      size(size), timeout(timeout) {
  if (size < 1 || rank < 0 || rank >= size)
    throw CommError("rank " + std::to_string(rank) +
                    " is not a rank of a world of " + std::to_string(size));
  if (timeout.count() <= 0)
    throw CommError("the rendezvous timeout must be positive");
  if (size == 1)
    return;
  // Only the job's processes get in: they prove they know its secret
  // (Auth.h). Without one, the store listens on loopback only, so a
  // rendezvous elsewhere needs it.
  std::string token = auth::getJobToken();
  if (token.empty() && !auth::isLoopbackHost(masterAddr))
    throw CommError(
        "the rendezvous at " + address + " is not on this machine's "
        "loopback and " + auth::kTokenVariable + " is not set: without a "
        "secret the rendezvous admits this machine's processes only. Set "
        "the same " + auth::kTokenVariable + " on every rank of the job "
        "(e.g. `openssl rand -hex 32`; the launch files set a fresh one per "
        "job)");
  // A write to a rank that died must be an error, not the end of this one.
  ignoreSigpipe();
  if (rank == 0) {
    try {
      // Each rank holds one connection; a few more for the slack.
      server = std::make_unique<TcpStoreServer>(masterAddr, masterPort, token,
                                                2 * size_t(size) + 16);
    } catch (const CommError &e) {
      throw CommError(std::string("rank 0 ") + e.what() +
                      " (TELAR_MASTER_PORT: another job's rendezvous, or "
                      "another program, holds it?)");
    }
  }
  client =
      std::make_unique<TcpStoreClient>(masterAddr, masterPort, timeout, token);
  address = client->getAddress();

  // Every rank says it is there, with its world size and the address it
  // reached rank 0 at; all wait for all, so that a missing rank is named.
  std::string sizeText = std::to_string(size);
  std::string joinText = sizeText + " " + client->getPeerAddress();
  client->set("telar/join/" + std::to_string(rank),
              std::vector<char>(joinText.begin(), joinText.end()));
  std::vector<std::string> keys;
  for (int r = 0; r < size; ++r)
    keys.push_back("telar/join/" + std::to_string(r));
  std::vector<std::string> missing = client->wait(keys, timeout);
  if (!missing.empty()) {
    std::vector<int> ranks;
    for (const std::string &k : missing)
      ranks.push_back(std::stoi(k.substr(std::strlen("telar/join/"))));
    throw CommError("the rendezvous at " + address + ": rank" +
                    (ranks.size() > 1 ? "s " : " ") + listRanks(ranks) +
                    " of " + sizeText + " did not join within " +
                    formatDuration(timeout) +
                    " (each rank needs the same TELAR_MASTER_ADDR and "
                    "TELAR_MASTER_PORT)");
  }
  for (int r = 0; r < size; ++r) {
    std::vector<char> v = client->get(keys[r]);
    std::string joined(v.begin(), v.end());
    size_t space = joined.find(' ');
    std::string theirs = joined.substr(0, space);
    if (r == 1 && space != std::string::npos)
      rank0Address = joined.substr(space + 1);
    if (theirs != sizeText)
      throw CommError("the rendezvous at " + address + ": rank " +
                      std::to_string(r) + " joined with a world size of " +
                      theirs + ", rank " + std::to_string(rank) + " with " +
                      sizeText + " (TELAR_WORLD_SIZE must be the same on every "
                      "rank)");
  }
}

TcpBootstrap::~TcpBootstrap() {
  if (!client)
    return;
  // Rank 0's store goes with it: it waits (a while, not for a rank that
  // died) until every rank has left, so that none is cut off in the middle
  // of its last exchange.
  try {
    std::lock_guard<std::mutex> lock(storeMutex);
    int64_t left = client->add("telar/left", 1);
    if (rank != 0)
      return;
    auto deadline = std::chrono::steady_clock::now() +
                    std::min<milliseconds>(timeout, std::chrono::seconds(5));
    while (left < size && std::chrono::steady_clock::now() < deadline) {
      std::this_thread::sleep_for(std::chrono::milliseconds(2));
      left = client->add("telar/left", 0);
    }
  } catch (const std::exception &) {
    // The store or a peer is gone already: nothing to wait for.
  }
}

std::vector<std::vector<char>>
TcpBootstrap::allGather(const std::vector<char> &bytes) {
  if (!client)
    return {bytes};
  std::lock_guard<std::mutex> lock(storeMutex);
  std::string prefix = "telar/bootstrap/" + std::to_string(exchanges++) + "/";
  client->set(prefix + std::to_string(rank), bytes);
  std::vector<std::vector<char>> all(size);
  for (int r = 0; r < size; ++r)
    all[r] = r == rank ? bytes : client->get(prefix + std::to_string(r));
  return all;
}

std::string TcpBootstrap::getListenAddress() const {
  if (!client)
    return masterAddr;
  std::string hostname = client->getLocalAddress();
  if (rank == 0 && isLocalAddress(rank0Address))
    hostname = rank0Address;
  return hostname.empty() ? masterAddr : hostname;
}
