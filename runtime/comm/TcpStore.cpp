//===- TcpStore.cpp - A TCP key-value store for rendezvous ----------------===//
//
// The store Gloo's rendezvous needs (TcpStore.h): blocking sockets, one
// server thread per connection, waits on a condition variable bounded by
// each request's timeout. Client reads are bounded by poll, so a server
// that stops answering is an error, not a hang.
//
// A process that reaches the port is hostile until it proves it knows the
// job's secret (Auth.h): nothing is read from a connection before that,
// the proof must come within kHandshakeTime, at most kMaxHandshakes
// connections wait for theirs and at most maxConnections are open; every
// length and count is bounded before anything is allocated, strings are
// read as their bytes arrive, and what a connection's thread throws drops
// that connection, never the job.
//
//===----------------------------------------------------------------------===//

#include "TcpStore.h"

#include "Auth.h"
#include "telar/runtime/Comm.h"

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <condition_variable>
#include <cstdio>
#include <cstring>
#include <list>
#include <map>
#include <mutex>
#include <stdexcept>
#include <thread>

#include <arpa/inet.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

using namespace telar::runtime::comm;
using Clock = std::chrono::steady_clock;
using std::chrono::milliseconds;

namespace {

enum Op : uint8_t { kSet = 1, kGet = 2, kWait = 3, kAdd = 4 };
/// The first byte of a GET's answer.
enum GetAnswer : uint8_t { kNotFound = 0, kFound = 1, kStopping = 2 };

void appendU32(std::string &s, uint32_t v) {
  for (int i = 0; i < 4; ++i)
    s.push_back(char((v >> (8 * i)) & 0xff));
}
void appendU64(std::string &s, uint64_t v) {
  for (int i = 0; i < 8; ++i)
    s.push_back(char((v >> (8 * i)) & 0xff));
}
void appendBytes(std::string &s, const char *data, size_t size) {
  appendU32(s, uint32_t(size));
  s.append(data, size);
}
void appendString(std::string &s, const std::string &v) {
  appendBytes(s, v.data(), v.size());
}
uint64_t decode(const unsigned char *p, int bytes) {
  uint64_t v = 0;
  for (int i = 0; i < bytes; ++i)
    v |= uint64_t(p[i]) << (8 * i);
  return v;
}

/// Blocking writes that do not raise SIGPIPE; false when the peer is gone.
bool writeAll(int fd, const char *data, size_t size) {
  while (size > 0) {
    ssize_t n = ::send(fd, data, size, MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0)
      return false;
    data += n;
    size -= size_t(n);
  }
  return true;
}

/// Reads `size` bytes within `deadline` (poll-bounded; none at
/// time_point::max()); false on EOF, an error or the deadline.
bool readWithin(int fd, void *data, size_t size, Clock::time_point deadline) {
  auto *p = static_cast<char *>(data);
  while (size > 0) {
    int wait = -1;
    if (deadline != Clock::time_point::max()) {
      auto left = std::chrono::duration_cast<milliseconds>(deadline -
                                                           Clock::now());
      if (left.count() <= 0)
        return false;
      wait = int(std::min<long long>(left.count(), 1 << 30));
    }
    pollfd pfd{fd, POLLIN, 0};
    int ready = ::poll(&pfd, 1, wait);
    if (ready < 0 && errno == EINTR)
      continue;
    if (ready <= 0)
      return false;
    ssize_t n = ::recv(fd, p, size, 0);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0)
      return false;
    p += n;
    size -= size_t(n);
  }
  return true;
}

/// Blocking reads (the server side, once a peer is admitted); false on EOF
/// or an error.
bool readAll(int fd, void *data, size_t size) {
  return readWithin(fd, data, size, Clock::time_point::max());
}

bool readU32(int fd, uint32_t &v) {
  unsigned char b[4];
  if (!readAll(fd, b, 4))
    return false;
  v = uint32_t(decode(b, 4));
  return true;
}
bool readU64(int fd, uint64_t &v) {
  unsigned char b[8];
  if (!readAll(fd, b, 8))
    return false;
  v = decode(b, 8);
  return true;
}

/// Limits of what one request may hold, checked before anything is
/// allocated (the job's own requests are far below: keys are short names,
/// values addresses and ids).
constexpr uint32_t kMaxKeyBytes = 4096;
constexpr uint32_t kMaxValueBytes = 64u << 20;
constexpr uint32_t kMaxWaitKeys = 1u << 16;
/// All keys and values together.
constexpr size_t kMaxStoreBytes = size_t(1) << 30;
/// Strings are read as their bytes arrive, this much at a time: a length
/// announced and never sent costs nothing.
constexpr size_t kReadChunk = 64 << 10;

/// A string of at most `limit` bytes.
bool readString(int fd, std::string &s, uint32_t limit) {
  uint32_t size;
  if (!readU32(fd, size) || size > limit)
    return false;
  s.clear();
  while (s.size() < size) {
    size_t old = s.size();
    s.resize(old + std::min<size_t>(kReadChunk, size - old));
    if (!readAll(fd, s.data() + old, s.size() - old))
      return false;
  }
  return true;
}

/// The handshake (Auth.h): the server's magic and nonce; the client's nonce
/// and proof; the server's verdict and, when admitted, its own proof.
constexpr char kMagic[] = "TELARST1";
constexpr size_t kMagicBytes = sizeof(kMagic) - 1;
constexpr milliseconds kHandshakeTime(5000);
constexpr size_t kMaxHandshakes = 64;
std::string clientProof(const std::string &token, const std::string &server,
                        const std::string &client) {
  return auth::hmac(token, std::string("telar-store-client", 19) + server +
                               client);
}
std::string serverProof(const std::string &token, const std::string &server,
                        const std::string &client) {
  return auth::hmac(token, std::string("telar-store-server", 19) + server +
                               client);
}

} // namespace

std::string telar::runtime::comm::formatDuration(milliseconds duration) {
  long long ms = duration.count();
  char buffer[48];
  if (ms >= 1000 && ms % 1000 == 0)
    std::snprintf(buffer, sizeof(buffer), "%lld s", ms / 1000);
  else if (ms >= 1000)
    std::snprintf(buffer, sizeof(buffer), "%.3g s", double(ms) / 1000);
  else
    std::snprintf(buffer, sizeof(buffer), "%lld ms", ms);
  return buffer;
}

//===----------------------------------------------------------------------===//
// Server
//===----------------------------------------------------------------------===//

struct TcpStoreServer::Impl {
  int listenFd = -1;
  int port = 0;
  std::string token;
  size_t maxConnections = 0;
  std::mutex mutex;
  std::condition_variable changed;
  bool stopping = false; // guarded by mutex
  std::atomic<bool> stopAccepting{false};
  std::map<std::string, std::string> data;
  /// Bytes of every key and value in `data` (guarded by mutex).
  size_t storedBytes = 0;
  /// Open connections (each closed by its thread, under the mutex).
  std::vector<int> connections;
  /// Connections still proving themselves (guarded by mutex).
  size_t handshaking = 0;
  /// One thread per connection; those done are joined by the acceptor.
  struct Connection {
    std::thread thread;
    std::atomic<bool> done{false};
  };
  std::list<std::unique_ptr<Connection>> threads;
  std::thread acceptor;

  void acceptLoop();
  void serve(int fd, Connection &self);
  /// The handshake: whether the peer proved it knows the token.
  bool admit(int fd);
  bool handle(int fd, uint8_t op);
};

void TcpStoreServer::Impl::acceptLoop() {
  while (!stopAccepting) {
    pollfd p{listenFd, POLLIN, 0};
    int ready = ::poll(&p, 1, 100);
    // The threads of closed connections.
    for (auto it = threads.begin(); it != threads.end();)
      if ((*it)->done) {
        (*it)->thread.join();
        it = threads.erase(it);
      } else {
        ++it;
      }
    if (ready <= 0)
      continue;
    int fd = ::accept4(listenFd, nullptr, nullptr, SOCK_CLOEXEC);
    if (fd < 0)
      continue;
    int one = 1;
    ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
    std::lock_guard<std::mutex> lock(mutex);
    // Beyond the limits a connection is closed unread: the job's own ranks
    // hold one each and prove themselves at once.
    if (stopping || connections.size() >= maxConnections ||
        handshaking >= kMaxHandshakes) {
      ::close(fd);
      continue;
    }
    connections.push_back(fd);
    ++handshaking;
    threads.push_back(std::make_unique<Connection>());
    Connection &c = *threads.back();
    c.thread = std::thread([this, fd, &c] { serve(fd, c); });
  }
}

bool TcpStoreServer::Impl::admit(int fd) {
  Clock::time_point deadline = Clock::now() + kHandshakeTime;
  std::string nonce = auth::randomBytes(auth::kNonceBytes);
  if (!writeAll(fd, kMagic, kMagicBytes) ||
      !writeAll(fd, nonce.data(), nonce.size()))
    return false;
  std::string reply(auth::kNonceBytes + auth::kDigestBytes, '\0');
  if (!readWithin(fd, reply.data(), reply.size(), deadline))
    return false;
  std::string theirs = reply.substr(0, auth::kNonceBytes);
  bool ok = auth::digestsEqual(reply.substr(auth::kNonceBytes),
                               clientProof(token, nonce, theirs));
  std::string verdict(1, ok ? '\1' : '\0');
  if (ok)
    verdict += serverProof(token, nonce, theirs);
  return writeAll(fd, verdict.data(), verdict.size()) && ok;
}

void TcpStoreServer::Impl::serve(int fd, Connection &self) {
  // A bad peer (a stranger, a garbled stream, a request beyond the limits,
  // memory running out) loses its connection; the store goes on.
  try {
    bool admitted = admit(fd);
    {
      std::lock_guard<std::mutex> lock(mutex);
      --handshaking;
    }
    while (admitted) {
      uint8_t op;
      if (!readAll(fd, &op, 1) || !handle(fd, op))
        break;
    }
  } catch (const std::exception &) {
  }
  {
    std::lock_guard<std::mutex> lock(mutex);
    connections.erase(std::find(connections.begin(), connections.end(), fd));
    ::close(fd);
  }
  self.done = true;
}

bool TcpStoreServer::Impl::handle(int fd, uint8_t op) {
  std::string reply;
  switch (op) {
  case kSet: {
    std::string key, value;
    if (!readString(fd, key, kMaxKeyBytes) ||
        !readString(fd, value, kMaxValueBytes))
      return false;
    {
      std::lock_guard<std::mutex> lock(mutex);
      auto it = data.find(key);
      size_t old = it == data.end() ? 0 : key.size() + it->second.size();
      if (storedBytes - old + key.size() + value.size() > kMaxStoreBytes)
        return false;
      storedBytes = storedBytes - old + key.size() + value.size();
      data[key] = std::move(value);
    }
    changed.notify_all();
    reply.push_back(1);
    break;
  }
  case kGet: {
    std::string key;
    uint64_t ms;
    if (!readString(fd, key, kMaxKeyBytes) || !readU64(fd, ms))
      return false;
    std::unique_lock<std::mutex> lock(mutex);
    changed.wait_for(lock, milliseconds(ms),
                     [&] { return stopping || data.count(key); });
    auto it = data.find(key);
    if (it != data.end()) {
      reply.push_back(kFound);
      appendString(reply, it->second);
    } else {
      reply.push_back(stopping ? kStopping : kNotFound);
    }
    break;
  }
  case kWait: {
    uint32_t n;
    if (!readU32(fd, n) || n > kMaxWaitKeys)
      return false;
    std::vector<std::string> keys;
    for (uint32_t i = 0; i < n; ++i) {
      keys.emplace_back();
      if (!readString(fd, keys.back(), kMaxKeyBytes))
        return false;
    }
    uint64_t ms;
    if (!readU64(fd, ms))
      return false;
    std::unique_lock<std::mutex> lock(mutex);
    auto allSet = [&] {
      return std::all_of(keys.begin(), keys.end(),
                         [&](const std::string &k) { return data.count(k); });
    };
    changed.wait_for(lock, milliseconds(ms),
                     [&] { return stopping || allSet(); });
    std::vector<std::string> missing;
    for (const std::string &k : keys)
      if (!data.count(k))
        missing.push_back(k);
    appendU32(reply, uint32_t(missing.size()));
    for (const std::string &k : missing)
      appendString(reply, k);
    break;
  }
  case kAdd: {
    std::string key;
    uint64_t delta;
    if (!readString(fd, key, kMaxKeyBytes) || !readU64(fd, delta))
      return false;
    int64_t value;
    {
      std::lock_guard<std::mutex> lock(mutex);
      auto it = data.find(key);
      size_t before = it == data.end() ? 0 : key.size() + it->second.size();
      if (storedBytes - before + key.size() + 8 > kMaxStoreBytes)
        return false;
      storedBytes = storedBytes - before + key.size() + 8;
      std::string &slot = data[key];
      int64_t old = slot.size() == 8
                        ? int64_t(decode(
                              reinterpret_cast<const unsigned char *>(slot.data()), 8))
                        : 0;
      value = old + int64_t(delta);
      slot.clear();
      appendU64(slot, uint64_t(value));
    }
    changed.notify_all();
    appendU64(reply, uint64_t(value));
    break;
  }
  default:
    return false; // not our protocol: drop the connection
  }
  return writeAll(fd, reply.data(), reply.size());
}

namespace {
/// A socket of `ai`'s family listening on its address; -1 with `problem`
/// and `error` set.
int listenOn(const sockaddr *address, socklen_t length, std::string &problem,
             int &error) {
  int fd = ::socket(address->sa_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) {
    error = errno;
    problem = std::strerror(error);
    return -1;
  }
  int one = 1, zero = 0;
  ::setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
  if (address->sa_family == AF_INET6)
    ::setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &zero, sizeof(zero));
  if (::bind(fd, address, length) != 0 || ::listen(fd, 1024) != 0) {
    error = errno;
    ::close(fd);
    problem = std::strerror(error);
    return -1;
  }
  return fd;
}
} // namespace

TcpStoreServer::TcpStoreServer(const std::string &host, int port,
                               std::string token, size_t maxConnections)
    : impl(std::make_shared<Impl>()) {
  impl->token = std::move(token);
  impl->maxConnections = maxConnections;
  std::string problem = "no address";
  int error = 0;
  auto tryAddress = [&](const sockaddr *a, socklen_t length) {
    if (impl->listenFd < 0)
      impl->listenFd = listenOn(a, length, problem, error);
  };
  if (impl->token.empty()) {
    // No secret: this machine's processes only.
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    a.sin_port = htons(uint16_t(port));
    tryAddress(reinterpret_cast<sockaddr *>(&a), sizeof(a));
  } else {
    // The interface the rendezvous address resolves to, when it is this
    // host's; else (a name a proxy or a Kubernetes Service answers for)
    // every interface, IPv6 and IPv4 on one socket where the system
    // allows. Connections prove themselves either way.
    addrinfo hints{};
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    hints.ai_flags = AI_PASSIVE;
    addrinfo *found = nullptr;
    std::string service = std::to_string(port);
    if (!host.empty() &&
        ::getaddrinfo(host.c_str(), service.c_str(), &hints, &found) == 0) {
      for (addrinfo *ai = found; ai && impl->listenFd < 0; ai = ai->ai_next)
        tryAddress(ai->ai_addr, ai->ai_addrlen);
      ::freeaddrinfo(found);
    }
    bool inUse = impl->listenFd < 0 && (error == EADDRINUSE || error == EACCES);
    if (!inUse) {
      sockaddr_in6 any6{};
      any6.sin6_family = AF_INET6;
      any6.sin6_addr = in6addr_any;
      any6.sin6_port = htons(uint16_t(port));
      tryAddress(reinterpret_cast<sockaddr *>(&any6), sizeof(any6));
      sockaddr_in any4{};
      any4.sin_family = AF_INET;
      any4.sin_addr.s_addr = htonl(INADDR_ANY);
      any4.sin_port = htons(uint16_t(port));
      tryAddress(reinterpret_cast<sockaddr *>(&any4), sizeof(any4));
    }
  }
  if (impl->listenFd < 0)
    throw CommError("cannot serve the rendezvous on port " +
                    std::to_string(port) + ": " + problem);
  sockaddr_storage bound{};
  socklen_t length = sizeof(bound);
  ::getsockname(impl->listenFd, reinterpret_cast<sockaddr *>(&bound), &length);
  impl->port = bound.ss_family == AF_INET6
                   ? ntohs(reinterpret_cast<sockaddr_in6 *>(&bound)->sin6_port)
                   : ntohs(reinterpret_cast<sockaddr_in *>(&bound)->sin_port);
  Impl *self = impl.get();
  impl->acceptor = std::thread([self] { self->acceptLoop(); });
}

TcpStoreServer::~TcpStoreServer() {
  impl->stopAccepting = true;
  impl->acceptor.join();
  {
    std::lock_guard<std::mutex> lock(impl->mutex);
    impl->stopping = true;
    // Wakes the threads blocked reading a request; those waiting for keys
    // still answer (what is missing, or that the store stops).
    for (int fd : impl->connections)
      ::shutdown(fd, SHUT_RD);
  }
  impl->changed.notify_all();
  for (auto &c : impl->threads)
    c->thread.join();
  ::close(impl->listenFd);
}

int TcpStoreServer::getPort() const { return impl->port; }

//===----------------------------------------------------------------------===//
// Client
//===----------------------------------------------------------------------===//

namespace {

/// One non-blocking connect attempt to `ai`, bounded by `limit`; the
/// connected (blocking) socket, or -1 with `problem` set.
int connectOnce(const addrinfo *ai, milliseconds limit, std::string &problem) {
  int fd = ::socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC,
                    ai->ai_protocol);
  if (fd < 0) {
    problem = std::strerror(errno);
    return -1;
  }
  int flags = ::fcntl(fd, F_GETFL);
  ::fcntl(fd, F_SETFL, flags | O_NONBLOCK);
  int rc = ::connect(fd, ai->ai_addr, ai->ai_addrlen);
  if (rc != 0 && errno == EINPROGRESS) {
    pollfd p{fd, POLLOUT, 0};
    rc = ::poll(&p, 1, int(std::max<long long>(1, limit.count())));
    if (rc == 0) {
      problem = "connection timed out";
      ::close(fd);
      return -1;
    }
    int error = 0;
    socklen_t length = sizeof(error);
    ::getsockopt(fd, SOL_SOCKET, SO_ERROR, &error, &length);
    rc = error ? -1 : 0;
    errno = error;
  }
  if (rc != 0) {
    problem = std::strerror(errno);
    ::close(fd);
    return -1;
  }
  ::fcntl(fd, F_SETFL, flags);
  int one = 1;
  ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
  return fd;
}

} // namespace

TcpStoreClient::TcpStoreClient(const std::string &host, int port,
                               milliseconds timeout, const std::string &token)
    : address(host + ":" + std::to_string(port)), timeout(timeout) {
  Clock::time_point deadline = Clock::now() + timeout;
  std::string problem = "no attempt";
  std::string service = std::to_string(port);
  for (;;) {
    addrinfo hints{};
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    addrinfo *found = nullptr;
    int rc = ::getaddrinfo(host.c_str(), service.c_str(), &hints, &found);
    if (rc != 0) {
      // A Kubernetes Service's name resolves once its pods exist: retry.
      problem = std::string("cannot resolve '") + host +
                "': " + ::gai_strerror(rc);
    } else {
      for (addrinfo *ai = found; ai && fd < 0; ai = ai->ai_next) {
        auto left = std::chrono::duration_cast<milliseconds>(deadline -
                                                             Clock::now());
        fd = connectOnce(ai, std::clamp(left, milliseconds(1), milliseconds(2000)),
                         problem);
      }
      ::freeaddrinfo(found);
    }
    if (fd >= 0) {
      // A server busy with others proving themselves (a flood of strangers
      // included) may close this connection unanswered: tried again.
      std::string closed = handshake(token);
      if (closed.empty())
        return;
      ::close(fd);
      fd = -1;
      problem = closed;
    }
    if (Clock::now() >= deadline)
      break;
    std::this_thread::sleep_for(
        std::min(milliseconds(100), std::chrono::duration_cast<milliseconds>(
                                        deadline - Clock::now())));
  }
  throw CommError("cannot reach the rendezvous at " + address + " after " +
                  formatDuration(timeout) +
                  " (rank 0 serves it: is it running, and is "
                  "TELAR_MASTER_ADDR:TELAR_MASTER_PORT its address? last "
                  "error: " +
                  problem + ")");
}

std::string TcpStoreClient::handshake(const std::string &token) {
  milliseconds wait = std::min(timeout, kHandshakeTime);
  std::string hello(kMagicBytes + auth::kNonceBytes, '\0');
  std::string mine;
  char verdict = 0;
  try {
    recvAll(hello.data(), hello.size(), wait, "the handshake");
    if (hello.compare(0, kMagicBytes, kMagic) != 0)
      throw std::invalid_argument("not ours");
    mine = auth::randomBytes(auth::kNonceBytes);
    sendAll(mine + clientProof(token, hello.substr(kMagicBytes), mine));
    recvAll(&verdict, 1, wait, "the handshake");
  } catch (const CommError &e) {
    return e.what();
  } catch (const std::invalid_argument &) {
    throw CommError("the rendezvous at " + address +
                    " is not a Telar rendezvous (another program holds "
                    "TELAR_MASTER_PORT?)");
  }
  if (verdict != 1)
    throw CommError("the rendezvous at " + address +
                    " refused this rank: its " +
                    std::string(auth::kTokenVariable) +
                    " is not rank 0's (every rank of a job needs the same)");
  std::string proof(auth::kDigestBytes, '\0');
  recvAll(proof.data(), proof.size(), wait, "the handshake");
  if (!auth::digestsEqual(
          proof, serverProof(token, hello.substr(kMagicBytes), mine)))
    throw CommError("the rendezvous at " + address + " does not know this "
                    "job's " + std::string(auth::kTokenVariable) +
                    ": it is not this job's rank 0");
  return "";
}

TcpStoreClient::~TcpStoreClient() {
  if (fd >= 0)
    ::close(fd);
}

void TcpStoreClient::sendAll(const std::string &bytes) {
  if (!writeAll(fd, bytes.data(), bytes.size()))
    throw CommError("the rendezvous at " + address +
                    " closed the connection (rank 0, which serves it, has "
                    "exited?): " + std::strerror(errno));
}

void TcpStoreClient::recvAll(void *data, size_t size, milliseconds wait,
                             const char *what) {
  auto *p = static_cast<char *>(data);
  Clock::time_point deadline = Clock::now() + wait;
  while (size > 0) {
    auto left =
        std::chrono::duration_cast<milliseconds>(deadline - Clock::now());
    pollfd pfd{fd, POLLIN, 0};
    int ready = left.count() > 0 ? ::poll(&pfd, 1, int(left.count())) : 0;
    if (ready < 0 && errno == EINTR)
      continue;
    if (ready == 0)
      throw CommError("the rendezvous at " + address + " did not answer " +
                      what + " within " + formatDuration(wait));
    ssize_t n = ::recv(fd, p, size, 0);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0)
      throw CommError("the rendezvous at " + address +
                      " closed the connection (rank 0, which serves it, has "
                      "exited?)");
    p += n;
    size -= size_t(n);
  }
}

namespace {
/// How much longer than the server's own wait a client waits for an
/// answer.
constexpr milliseconds kAnswerMargin(5000);
} // namespace

void TcpStoreClient::set(const std::string &key,
                         const std::vector<char> &value) {
  std::string request(1, char(kSet));
  appendString(request, key);
  appendBytes(request, value.data(), value.size());
  sendAll(request);
  char ok;
  recvAll(&ok, 1, timeout + kAnswerMargin, "a set");
}

std::vector<char> TcpStoreClient::get(const std::string &key) {
  std::string request(1, char(kGet));
  appendString(request, key);
  appendU64(request, uint64_t(timeout.count()));
  sendAll(request);
  std::string what = "a get of '" + key + "'";
  char found;
  recvAll(&found, 1, timeout + kAnswerMargin, what.c_str());
  if (found == kStopping)
    throw CommError("the rendezvous at " + address + " stopped while this "
                    "rank waited for '" + key +
                    "' (rank 0, which serves it, gave up or is exiting)");
  if (found != kFound)
    throw CommError("the rendezvous at " + address + ": '" + key +
                    "' was not set within " + formatDuration(timeout));
  unsigned char b[4];
  recvAll(b, 4, timeout + kAnswerMargin, what.c_str());
  std::vector<char> value(decode(b, 4));
  recvAll(value.data(), value.size(), timeout + kAnswerMargin, what.c_str());
  return value;
}

std::vector<std::string>
TcpStoreClient::wait(const std::vector<std::string> &keys,
                     milliseconds waitFor) {
  std::string request(1, char(kWait));
  appendU32(request, uint32_t(keys.size()));
  for (const std::string &k : keys)
    appendString(request, k);
  appendU64(request, uint64_t(std::max<long long>(0, waitFor.count())));
  sendAll(request);
  unsigned char b[4];
  recvAll(b, 4, waitFor + kAnswerMargin, "a wait");
  std::vector<std::string> missing(decode(b, 4));
  for (std::string &k : missing) {
    recvAll(b, 4, kAnswerMargin, "a wait");
    k.resize(decode(b, 4));
    recvAll(k.data(), k.size(), kAnswerMargin, "a wait");
  }
  return missing;
}

int64_t TcpStoreClient::add(const std::string &key, int64_t delta) {
  std::string request(1, char(kAdd));
  appendString(request, key);
  appendU64(request, uint64_t(delta));
  sendAll(request);
  unsigned char b[8];
  recvAll(b, 8, timeout + kAnswerMargin, "an add");
  return int64_t(decode(b, 8));
}

namespace {
/// The numeric host of a socket's local (or peer) address, "" on errors.
std::string socketAddress(int fd, bool peer) {
  sockaddr_storage addr{};
  socklen_t length = sizeof(addr);
  auto *sa = reinterpret_cast<sockaddr *>(&addr);
  if ((peer ? ::getpeername(fd, sa, &length) : ::getsockname(fd, sa, &length)) !=
      0)
    return "";
  char host[NI_MAXHOST];
  if (::getnameinfo(sa, length, host, sizeof(host), nullptr, 0,
                    NI_NUMERICHOST) != 0)
    return "";
  std::string s = host;
  // An IPv4 address through a dual-stack socket: the plain form.
  if (s.rfind("::ffff:", 0) == 0 && s.find('.') != std::string::npos)
    s = s.substr(7);
  return s;
}
} // namespace

std::string TcpStoreClient::getLocalAddress() const {
  return socketAddress(fd, /*peer=*/false);
}

std::string TcpStoreClient::getPeerAddress() const {
  return socketAddress(fd, /*peer=*/true);
}
