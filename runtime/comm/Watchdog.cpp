//===- Watchdog.cpp - Wait timeouts and the liveness channel --------------===//
//
// One monitor thread per process (Watchdog.h). It sleeps in poll() on a
// wake pipe (SIGTERM's handler and finish() write to it) and the liveness
// sockets, at most 50 ms at a time, and ends the process with one line on
// stderr when a wait passed the timeout, a rank failed, or SIGTERM came.
//
// The liveness protocol is lines of text. Rank 0 to a connection, first:
// "NONCE <hex>"; a rank to rank 0: "HELLO <rank> <hex proof>" once (the
// proof: HMAC-SHA256 under the job's liveness secret, which rank 0 drew and
// sent with its address over the job's own transport, of the nonce and the
// rank: Auth.h), "HB" every heartbeat, "FAIL <why>" when it fails on its
// own, "BYE" before a deliberate exit. Rank 0 to each rank: "HB", "FAIL
// <rank> <why>" when it found a rank failed, "BYE" when it exits.
//
// Rank 0 trusts nothing a connection says before its HELLO proves it is the
// rank it names (once per rank): a stranger's lines, its hang-up or its
// silence are nobody's failure; it is dropped after kProveSeconds, after
// more than kMaxStrangerBytes without a line end, or when more than
// kMaxStrangers wait at once. A rank's line is at most kMaxLineBytes.
// Lines are found in each byte once.
//
//===----------------------------------------------------------------------===//

#include "telar/runtime/Watchdog.h"

#include "Auth.h"
#include "telar/runtime/Comm.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <sstream>
#include <thread>
#include <vector>

using namespace telar::runtime::comm;

namespace {

using Clock = std::chrono::steady_clock;

double secondsSince(Clock::time_point t) {
  return std::chrono::duration<double>(Clock::now() - t).count();
}

/// "300 s", "2.5 s".
std::string formatSeconds(double s) {
  char buffer[32];
  std::snprintf(buffer, sizeof(buffer), "%g s", s);
  return buffer;
}

/// What the rank is doing: written by the thread running collectives, read
/// by the monitor.
struct WaitState {
  std::mutex mutex;
  const char *operation = nullptr;
  const char *group = nullptr;
  int peer = -1;
  bool waiting = false;
  Clock::time_point since;
  /// Collectives begun in this step (or phase).
  int64_t calls = 0;
  int64_t step = 0, steps = 0;
  const char *phase = "starting";
};

WaitState state;
std::atomic<bool> started{false};
/// How long a rank waits, after a peer's connection closed without a
/// goodbye, for its own collectives to end before it takes the close for
/// the peer's failure.
constexpr double kCloseGraceSeconds = 1;
/// This rank's collectives are over (Watchdog::endCollectives).
std::atomic<bool> collectivesDone{false};

/// "all_reduce on {model}", "recv from rank 3".
std::string describeOperation(const WaitState &s) {
  std::string text = s.operation ? s.operation : "a collective";
  if (s.peer >= 0)
    text += " rank " + std::to_string(s.peer);
  if (s.group && *s.group)
    text += std::string(" on ") + s.group;
  return text;
}

/// "while this rank waited in all_reduce on {model} (collective #37 of
/// step 5 of 10)", or what it did between collectives.
std::string describeWait() {
  std::lock_guard<std::mutex> lock(state.mutex);
  std::string where =
      state.step > 0 ? "step " + std::to_string(state.step) + " of " +
                           std::to_string(state.steps)
                     : std::string(state.phase);
  if (state.waiting) {
    std::string text = "while this rank waited in " + describeOperation(state);
    if (state.step > 0)
      return text + " (collective #" + std::to_string(state.calls) + " of " +
             where + ")";
    return text + " (" + where + ")";
  }
  if (state.step > 0) {
    std::string text = "while this rank ran " + where;
    if (state.calls > 0 && state.operation)
      return text + " (after collective #" + std::to_string(state.calls) +
             ", " + describeOperation(state) + ")";
    return text + " (before its first collective)";
  }
  return std::string("while this rank was ") + state.phase;
}

std::string oneLine(std::string text) {
  for (char &c : text)
    if (c == '\n' || c == '\r')
      c = ' ';
  return text;
}

void setNonBlocking(int fd) {
  int flags = ::fcntl(fd, F_GETFL, 0);
  ::fcntl(fd, F_SETFL, flags | O_NONBLOCK);
}

/// Writes a whole line, waiting at most ~100 ms for room (a stopped peer
/// must not block the monitor).
void sendLine(int fd, const std::string &line) {
  const char *p = line.data();
  size_t left = line.size();
  Clock::time_point start = Clock::now();
  while (left > 0) {
    ssize_t n = ::send(fd, p, left, MSG_NOSIGNAL | MSG_DONTWAIT);
    if (n > 0) {
      p += n;
      left -= size_t(n);
      continue;
    }
    if (n < 0 && errno == EINTR)
      continue;
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) &&
        secondsSince(start) < 0.1) {
      struct pollfd pfd = {fd, POLLOUT, 0};
      ::poll(&pfd, 1, 20);
      continue;
    }
    return;
  }
}

int wakeFds[2] = {-1, -1};

void onTerminate(int) {
  char c = 'T';
  int saved = errno;
  ssize_t ignored = ::write(wakeFds[1], &c, 1);
  (void)ignored;
  errno = saved;
}

/// What rank 0 allows a connection that has not proved itself, and a rank.
constexpr double kProveSeconds = 10;
constexpr size_t kMaxStrangerBytes = 512;
constexpr size_t kMaxStrangers = 64;
constexpr size_t kMaxLineBytes = 64 << 10;

/// The proof of a HELLO: HMAC(secret, "telar-liveness\0" nonce rank).
std::string helloProof(const std::string &secret, const std::string &nonce,
                       int rank) {
  return auth::toHex(auth::hmac(secret, std::string("telar-liveness", 15) +
                                            nonce + std::to_string(rank)));
}

/// One end of a liveness connection.
struct Peer {
  int fd = -1;
  /// Its rank (-1 until its HELLO proved it, on rank 0).
  int rank = -1;
  Clock::time_point heard;
  bool bye = false;
  std::string pending;
  /// On rank 0: the nonce sent, and when the connection came.
  std::string nonce;
  Clock::time_point since;
  /// Rank 0 drops it (a stranger, or a line beyond the limits).
  bool drop = false;
};

class Monitor {
public:
  void start(const WatchdogOptions &o);
  void connect(Communicator &world);
  void finish();
  void reportFailure(const std::string &why);
  void awaitVerdict(double seconds);

private:
  void loop();
  /// Handles one line from `peer`; may end the process.
  void handleLine(Peer &peer, const std::string &line);
  void peerClosed(Peer &peer);
  /// On rank 0: tells every rank that `rank` failed, then ends.
  void rankFailed(int rank, const std::string &why);
  /// Prints "<tool>: error: rank R: <cause> <the wait><tail>" and exits.
  /// With `tell`, the others learn why (through rank 0) before this
  /// process's connection closes.
  [[noreturn]] void end(const std::string &cause, const std::string &tail,
                        bool tell = false);

  WatchdogOptions options;
  /// The liveness secret (rank 0 draws it, the others get it with the
  /// address).
  std::string secret;
  std::thread thread;
  /// Guards the sockets (the monitor and the main thread write to them).
  std::mutex netMutex;
  int listenFd = -1;
  std::vector<Peer> peers;
  bool connected = false;
  Clock::time_point connectedAt;
  /// On rank 0: the ranks whose HELLO came.
  std::vector<bool> helloSeen;
  /// Rank 0 said goodbye (on the other ranks).
  bool rank0Done = false;
  /// The first peer whose connection closed without its BYE (on the other
  /// ranks: 0), and when; -1: none.
  int closedPeer = -1;
  Clock::time_point closedAt;
  /// A collective of this rank failed (awaitVerdict): no grace for a
  /// closed peer.
  std::atomic<bool> verdictWanted{false};
  /// This rank said goodbye (finish): a peer may now close its connection
  /// without saying its own (on rank 0: the others close on rank 0's BYE;
  /// on the others: rank 0 closes on theirs).
  bool saidBye = false;
  std::atomic<bool> stopping{false};
  /// This rank failed on its own: it prints nothing more.
  std::atomic<bool> failedHere{false};
  /// The process is ending with its line (one line only).
  std::atomic<bool> ending{false};
  /// A rank failed on its own and the launcher ends the job
  /// (launcherEndsJob): this rank ends with `deferredCause` at SIGTERM or
  /// by `deferredUntil`.
  bool deferred = false;
  std::string deferredCause;
  Clock::time_point deferredUntil;
  /// Ends now, or defers when the failure is one the launcher acts on.
  void failed(const std::string &cause, const std::string &why);
};

Monitor monitor;

void Monitor::start(const WatchdogOptions &o) {
  options = o;
  helloSeen.assign(size_t(std::max(1, o.size)), false);
  if (::pipe(wakeFds) != 0)
    throw CommError(std::string("watchdog: pipe: ") + std::strerror(errno));
  setNonBlocking(wakeFds[0]);
  setNonBlocking(wakeFds[1]);
  ::fcntl(wakeFds[0], F_SETFD, FD_CLOEXEC);
  ::fcntl(wakeFds[1], F_SETFD, FD_CLOEXEC);
  struct sigaction sa;
  std::memset(&sa, 0, sizeof(sa));
  sa.sa_handler = onTerminate;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = SA_RESTART;
  ::sigaction(SIGTERM, &sa, nullptr);
  started = true;
  thread = std::thread([this] { loop(); });
}

/// This host's IPv4 addresses, loopback excluded.
std::vector<std::string> getLocalAddresses() {
  std::vector<std::string> addresses;
  struct ifaddrs *list = nullptr;
  if (::getifaddrs(&list) != 0)
    return addresses;
  for (struct ifaddrs *a = list; a; a = a->ifa_next) {
    if (!a->ifa_addr || a->ifa_addr->sa_family != AF_INET ||
        !(a->ifa_flags & IFF_UP) || (a->ifa_flags & IFF_LOOPBACK))
      continue;
    char text[INET_ADDRSTRLEN];
    auto *in = reinterpret_cast<struct sockaddr_in *>(a->ifa_addr);
    if (::inet_ntop(AF_INET, &in->sin_addr, text, sizeof(text)))
      addresses.push_back(text);
  }
  ::freeifaddrs(list);
  return addresses;
}

std::string getHostName() {
  char name[256] = {0};
  if (::gethostname(name, sizeof(name) - 1) != 0)
    return "";
  return name;
}

/// A connected socket to host:port, or -1 (`error` says why).
int connectTo(const std::string &host, int port, double seconds,
              std::string &error) {
  struct addrinfo hints;
  std::memset(&hints, 0, sizeof(hints));
  hints.ai_family = AF_INET;
  hints.ai_socktype = SOCK_STREAM;
  struct addrinfo *found = nullptr;
  std::string service = std::to_string(port);
  if (int rc = ::getaddrinfo(host.c_str(), service.c_str(), &hints, &found)) {
    error = host + ": " + ::gai_strerror(rc);
    return -1;
  }
  int fd = -1;
  for (struct addrinfo *a = found; a && fd < 0; a = a->ai_next) {
    fd = ::socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC, 0);
    if (fd < 0)
      continue;
    setNonBlocking(fd);
    int rc = ::connect(fd, a->ai_addr, a->ai_addrlen);
    if (rc != 0 && errno == EINPROGRESS) {
      struct pollfd pfd = {fd, POLLOUT, 0};
      rc = ::poll(&pfd, 1, int(seconds * 1000)) == 1 ? 0 : -1;
      int soError = rc == 0 ? 0 : ETIMEDOUT;
      socklen_t length = sizeof(soError);
      if (rc == 0)
        ::getsockopt(fd, SOL_SOCKET, SO_ERROR, &soError, &length);
      if (soError != 0) {
        errno = soError;
        rc = -1;
      }
    }
    if (rc != 0) {
      error = host + ":" + service + ": " + std::strerror(errno);
      ::close(fd);
      fd = -1;
    }
  }
  ::freeaddrinfo(found);
  if (fd >= 0) {
    int one = 1;
    ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
  }
  return fd;
}

void Monitor::connect(Communicator &world) {
  Watchdog::setPhase("forming the liveness channel");
  constexpr int64_t kAddressBytes = 2048;
  std::vector<char> message(kAddressBytes, 0);
  if (options.rank == 0) {
    int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0)
      throw CommError(std::string("liveness endpoint: socket: ") +
                      std::strerror(errno));
    int one = 1;
    ::setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
    struct sockaddr_in address;
    std::memset(&address, 0, sizeof(address));
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_ANY);
    address.sin_port = htons(uint16_t(options.port));
    socklen_t length = sizeof(address);
    if (::bind(fd, reinterpret_cast<struct sockaddr *>(&address),
               sizeof(address)) != 0 ||
        ::listen(fd, SOMAXCONN) != 0 ||
        ::getsockname(fd, reinterpret_cast<struct sockaddr *>(&address),
                      &length) != 0) {
      int err = errno;
      ::close(fd);
      throw CommError("liveness endpoint: cannot listen on port " +
                      std::to_string(options.port) + ": " +
                      std::strerror(err));
    }
    setNonBlocking(fd);
    // "secret port host hint address...": the liveness secret (the world
    // communicator is the job's own) and where the others may reach it.
    secret = auth::randomBytes(auth::kNonceBytes);
    std::string text = auth::toHex(secret) + " " +
                       std::to_string(ntohs(address.sin_port)) + " " +
                       getHostName() + " " +
                       (options.rank0Host.empty() ? "-" : options.rank0Host);
    for (const std::string &a : getLocalAddresses())
      if (text.size() + a.size() + 2 < size_t(kAddressBytes))
        text += " " + a;
    std::memcpy(message.data(), text.data(), text.size());
    std::lock_guard<std::mutex> lock(netMutex);
    listenFd = fd;
  }
  {
    WaitScope wait("broadcast", "the world");
    world.broadcast(message.data(), kAddressBytes, DataType::I8, 0);
  }
  if (options.rank != 0) {
    std::istringstream words(std::string(message.data()));
    int port = 0;
    std::string hexSecret, host, hint, a;
    words >> hexSecret >> port >> host >> hint;
    secret = auth::fromHex(hexSecret);
    std::vector<std::string> candidates;
    if (host == getHostName())
      candidates.push_back("127.0.0.1");
    if (hint != "-")
      candidates.push_back(hint);
    while (words >> a)
      candidates.push_back(a);
    if (port <= 0 || candidates.empty() || secret.size() != auth::kNonceBytes)
      throw CommError("liveness endpoint: rank 0 sent no address");
    Clock::time_point start = Clock::now();
    std::string error;
    int fd = -1;
    while (fd < 0) {
      for (const std::string &c : candidates)
        if ((fd = connectTo(c, port, 1.0, error)) >= 0)
          break;
      if (fd >= 0)
        break;
      if (secondsSince(start) > options.timeoutSeconds) {
        std::string tried;
        for (const std::string &c : candidates)
          tried += (tried.empty() ? "" : ", ") + c;
        throw CommError("cannot reach rank 0's liveness endpoint (port " +
                        std::to_string(port) + " on " + host + ": tried " +
                        tried + ") within " +
                        formatSeconds(options.timeoutSeconds) + ": " + error);
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    // Rank 0's nonce, then the proof that this is the rank it says.
    std::string nonce;
    Clock::time_point asked = Clock::now();
    for (bool complete = false; !complete;) {
      if (secondsSince(asked) > options.timeoutSeconds ||
          nonce.size() > kMaxStrangerBytes) {
        ::close(fd);
        throw CommError("rank 0's liveness endpoint sent no challenge within " +
                        formatSeconds(options.timeoutSeconds));
      }
      struct pollfd pfd = {fd, POLLIN, 0};
      if (::poll(&pfd, 1, 100) != 1)
        continue;
      char c;
      ssize_t n = ::recv(fd, &c, 1, 0);
      if (n < 0 && (errno == EINTR || errno == EAGAIN))
        continue;
      if (n <= 0) {
        ::close(fd);
        throw CommError("rank 0's liveness endpoint closed the connection "
                        "before its challenge");
      }
      if (c == '\n')
        complete = true;
      else
        nonce.push_back(c);
    }
    if (nonce.rfind("NONCE ", 0) != 0) {
      ::close(fd);
      throw CommError("rank 0's liveness endpoint sent no challenge");
    }
    sendLine(fd, "HELLO " + std::to_string(options.rank) + " " +
                     helloProof(secret, auth::fromHex(nonce.substr(6)),
                                options.rank) +
                     "\n");
    std::lock_guard<std::mutex> lock(netMutex);
    Peer p;
    p.fd = fd;
    p.rank = 0;
    p.heard = Clock::now();
    peers.push_back(std::move(p));
  }
  std::lock_guard<std::mutex> lock(netMutex);
  connected = true;
  connectedAt = Clock::now();
}

void Monitor::loop() {
  Clock::time_point lastBeat = Clock::now();
  bool terminated = false;
  Clock::time_point terminatedAt;
  while (!stopping) {
    std::vector<struct pollfd> fds;
    fds.push_back({wakeFds[0], POLLIN, 0});
    {
      std::lock_guard<std::mutex> lock(netMutex);
      if (listenFd >= 0)
        fds.push_back({listenFd, POLLIN, 0});
      for (const Peer &p : peers)
        fds.push_back({p.fd, POLLIN, 0});
    }
    ::poll(fds.data(), fds.size(), 50);
    if (stopping)
      break;
    char bytes[64];
    ssize_t n;
    while ((n = ::read(wakeFds[0], bytes, sizeof(bytes))) > 0)
      for (ssize_t i = 0; i < n; ++i)
        if (bytes[i] == 'T' && !terminated) {
          terminated = true;
          terminatedAt = Clock::now();
        }
    if (failedHere || ending)
      continue;

    std::unique_lock<std::mutex> lock(netMutex);
    if (listenFd >= 0)
      for (;;) {
        int fd = ::accept4(listenFd, nullptr, nullptr,
                           SOCK_NONBLOCK | SOCK_CLOEXEC);
        if (fd < 0)
          break;
        size_t strangers = size_t(std::count_if(
            peers.begin(), peers.end(), [](const Peer &q) { return q.rank < 0; }));
        if (strangers >= kMaxStrangers) {
          ::close(fd);
          continue;
        }
        int one = 1;
        ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
        Peer p;
        p.fd = fd;
        p.heard = p.since = Clock::now();
        p.nonce = auth::randomBytes(auth::kNonceBytes);
        sendLine(fd, "NONCE " + auth::toHex(p.nonce) + "\n");
        peers.push_back(std::move(p));
      }
    for (size_t i = 0; i < peers.size(); ++i) {
      Peer &p = peers[i];
      char buffer[4096];
      for (;;) {
        ssize_t got = ::recv(p.fd, buffer, sizeof(buffer), MSG_DONTWAIT);
        if (got > 0) {
          // Each byte looked at once: the lines in what just came.
          size_t scanFrom = p.pending.size(), lineStart = 0;
          p.pending.append(buffer, size_t(got));
          if (p.rank >= 0)
            p.heard = Clock::now();
          for (size_t i = scanFrom; i < p.pending.size() && !p.drop; ++i)
            if (p.pending[i] == '\n') {
              handleLine(p, p.pending.substr(lineStart, i - lineStart));
              lineStart = i + 1;
            }
          p.pending.erase(0, lineStart);
          if (p.pending.size() >
              (p.rank >= 0 || options.rank != 0 ? kMaxLineBytes
                                                 : kMaxStrangerBytes))
            p.drop = true;
          if (p.drop)
            break;
          continue;
        }
        if (got < 0 && errno == EINTR)
          continue;
        if (got < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
          break;
        peerClosed(p); // may end the process
        ::close(p.fd);
        p.fd = -1;
        break;
      }
    }
    // Strangers: dropped once they break the rules or their time is up,
    // without a word (their hang-up is nobody's failure).
    for (Peer &p : peers)
      if (p.fd >= 0 && options.rank == 0 && p.rank < 0 &&
          (p.drop || secondsSince(p.since) > kProveSeconds)) {
        ::close(p.fd);
        p.fd = -1;
      } else if (p.fd >= 0 && p.drop) {
        // A rank's line beyond the limit: its connection ends, as if it
        // closed.
        peerClosed(p); // may end the process
        ::close(p.fd);
        p.fd = -1;
      }
    peers.erase(std::remove_if(peers.begin(), peers.end(),
                               [](const Peer &p) { return p.fd < 0; }),
                peers.end());

    // Heartbeats out; silent peers.
    if (secondsSince(lastBeat) >= options.heartbeatSeconds) {
      lastBeat = Clock::now();
      for (const Peer &p : peers)
        if (p.rank >= 0)
          sendLine(p.fd, "HB\n");
    }
    for (const Peer &p : peers)
      if (p.rank >= 0 && !p.bye && !(p.rank == 0 && rank0Done) &&
          !collectivesDone &&
          secondsSince(p.heard) > options.livenessSeconds) {
        std::string why = "no heartbeat for " +
                          formatSeconds(options.livenessSeconds) +
                          ": the process stopped answering";
        if (options.rank == 0)
          rankFailed(p.rank, why);
        else
          end("rank 0 failed (" + why + ")", "");
      }
    // Ranks that never reached rank 0's endpoint.
    if (options.rank == 0 && connected && !collectivesDone &&
        secondsSince(connectedAt) > options.timeoutSeconds) {
      for (int r = 1; r < options.size; ++r)
        if (!helloSeen[size_t(r)])
          rankFailed(r, "it never reached the liveness endpoint within " +
                            formatSeconds(options.timeoutSeconds));
      connected = false; // every rank came (or said goodbye already)
    }
    lock.unlock();

    bool timedOut = false;
    {
      std::lock_guard<std::mutex> wait(state.mutex);
      timedOut = state.waiting &&
                 secondsSince(state.since) > options.timeoutSeconds;
    }
    if (timedOut)
      end("timed out after " + formatSeconds(options.timeoutSeconds),
          "; no rank was seen failing (one may be stuck outside the "
          "collectives, or the ranks called different collectives)",
          /*tell=*/true);
    if (deferred && (terminated || Clock::now() > deferredUntil))
      end(deferredCause, "");
    // A peer's connection closed without its goodbye: its failure when
    // this rank's collectives go on past the grace, fail (awaitVerdict) or
    // SIGTERM comes.
    if (closedPeer >= 0 && !collectivesDone && !saidBye &&
        (terminated || verdictWanted ||
         secondsSince(closedAt) > kCloseGraceSeconds)) {
      std::string why =
          "its connection closed: the process exited or was killed";
      if (options.rank == 0)
        rankFailed(closedPeer, why);
      else
        end("rank 0 failed (" + why + ")", "");
    }
    if (terminated && secondsSince(terminatedAt) > 0.5)
      end("terminated by SIGTERM (from the launcher or a user)",
          "; no rank was seen failing", /*tell=*/true);
  }
}

void Monitor::handleLine(Peer &peer, const std::string &line) {
  std::istringstream words(line);
  std::string verb;
  words >> verb;
  std::string rest;
  std::getline(words, rest);
  if (!rest.empty() && rest[0] == ' ')
    rest.erase(0, 1);
  if (verb == "HB")
    return;
  if (options.rank == 0) {
    if (peer.rank < 0) {
      // Only a HELLO that proves its rank, once per rank.
      std::istringstream r(rest);
      int rank = -1;
      std::string proof;
      r >> rank >> proof;
      if (verb != "HELLO" || rank <= 0 || rank >= options.size ||
          helloSeen[size_t(rank)] ||
          !auth::digestsEqual(proof, helloProof(secret, peer.nonce, rank))) {
        peer.drop = true;
        return;
      }
      peer.rank = rank;
      peer.heard = Clock::now();
      helloSeen[size_t(rank)] = true;
    } else if (verb == "BYE") {
      peer.bye = true;
    } else if (verb == "FAIL") {
      rankFailed(peer.rank, rest.rfind("timed out", 0) == 0 ||
                                    rest.rfind("terminated", 0) == 0
                                ? "it " + rest
                                : "it failed: " + rest);
    }
    return;
  }
  if (verb == "BYE") {
    rank0Done = true;
  } else if (verb == "FAIL" && !collectivesDone) {
    std::istringstream r(rest);
    int rank = -1;
    r >> rank;
    std::string why;
    std::getline(r, why);
    if (!why.empty() && why[0] == ' ')
      why.erase(0, 1);
    if (rank == options.rank)
      end("the ranks stopped: rank 0 found this rank failed (" + why + ")",
          "");
    failed("rank " + std::to_string(rank) + " failed (" + why + ")", why);
  }
}

void Monitor::peerClosed(Peer &peer) {
  const std::string why =
      "its connection closed: the process exited or was killed";
  // A close without a goodbye is a failure only if this rank still waits
  // for others a while later (the loop decides): on a loaded machine a
  // peer can finish, say BYE and close while this rank's part of their
  // last collective has not returned yet, and the BYE be lost to the reset
  // of the connection. Once this rank said BYE, its peers close on it.
  if (collectivesDone || saidBye || closedPeer >= 0)
    return;
  if (options.rank == 0 ? peer.rank < 0 || peer.bye : rank0Done)
    return;
  closedPeer = options.rank == 0 ? peer.rank : 0;
  closedAt = Clock::now();
}

void Monitor::rankFailed(int rank, const std::string &why) {
  if (deferred)
    return; // told the others already
  std::string line =
      "FAIL " + std::to_string(rank) + " " + oneLine(why) + "\n";
  for (const Peer &p : peers)
    if (p.fd >= 0)
      sendLine(p.fd, line);
  failed("rank " + std::to_string(rank) + " failed (" + why + ")", why);
}

void Monitor::failed(const std::string &cause, const std::string &why) {
  if (deferred)
    return; // the first failure is the one named
  if (options.launcherEndsJob && why.rfind("it failed: ", 0) == 0) {
    deferred = true;
    deferredCause = cause;
    deferredUntil = Clock::now() + std::chrono::seconds(1);
    return;
  }
  end(cause, "");
}

void Monitor::end(const std::string &cause, const std::string &tail,
                  bool tell) {
  if (deferred && cause != deferredCause)
    end(deferredCause, ""); // the first failure is the one named
  ending = true;
  std::string wait = describeWait();
  std::string line = options.tool + ": error: rank " +
                     std::to_string(options.rank) + ": " + cause + " " +
                     wait + tail + "\n";
  if (tell) {
    // "timed out after 3 s while it waited in ...", as the others say it.
    std::string theirs = wait;
    if (theirs.rfind("while this rank", 0) == 0)
      theirs = "while it" + theirs.substr(15);
    std::string why = oneLine(cause + " " + theirs);
    for (const Peer &peer : peers)
      if (peer.fd >= 0)
        sendLine(peer.fd, options.rank == 0 ? "FAIL 0 it " + why + "\n"
                                            : "FAIL " + why + "\n");
  }
  const char *p = line.data();
  size_t left = line.size();
  while (left > 0) {
    ssize_t n = ::write(2, p, left);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0)
      break;
    p += n;
    left -= size_t(n);
  }
  // Close the connections gracefully: what was sent (rank 0's FAIL lines)
  // arrives before the end of the stream. Rank 0 waits briefly for the
  // others to close theirs (unread data at close would reset the
  // connection); the launcher may kill this process at any moment now.
  for (Peer &peer : peers)
    if (peer.fd >= 0) {
      ::shutdown(peer.fd, SHUT_WR);
      char buffer[4096];
      while (::recv(peer.fd, buffer, sizeof(buffer), MSG_DONTWAIT) > 0) {
      }
    }
  Clock::time_point start = Clock::now();
  while (options.rank == 0 && secondsSince(start) < 0.05) {
    std::vector<struct pollfd> fds;
    for (const Peer &peer : peers)
      if (peer.fd >= 0)
        fds.push_back({peer.fd, POLLIN, 0});
    if (fds.empty() || ::poll(fds.data(), fds.size(), 10) < 0)
      break;
    for (Peer &peer : peers) {
      if (peer.fd < 0)
        continue;
      char buffer[4096];
      ssize_t got = ::recv(peer.fd, buffer, sizeof(buffer), MSG_DONTWAIT);
      if (got == 0 || (got < 0 && errno != EAGAIN && errno != EWOULDBLOCK &&
                       errno != EINTR)) {
        ::close(peer.fd);
        peer.fd = -1;
      }
    }
  }
  std::_Exit(kExitFault);
}

void Monitor::finish() {
  {
    std::lock_guard<std::mutex> lock(netMutex);
    saidBye = true;
    for (Peer &p : peers) {
      sendLine(p.fd, "BYE\n");
      ::shutdown(p.fd, SHUT_WR);
    }
  }
  stopping = true;
  char c = 'S';
  ssize_t ignored = ::write(wakeFds[1], &c, 1);
  (void)ignored;
  if (thread.joinable())
    thread.join();
  std::lock_guard<std::mutex> lock(netMutex);
  for (Peer &p : peers) {
    // Unread heartbeats at close would reset the connection (and could
    // lose the goodbye): read them first.
    char buffer[4096];
    while (::recv(p.fd, buffer, sizeof(buffer), MSG_DONTWAIT) > 0) {
    }
    ::close(p.fd);
  }
  peers.clear();
  if (listenFd >= 0)
    ::close(listenFd);
  listenFd = -1;
  ::signal(SIGTERM, SIG_DFL);
}

void Monitor::reportFailure(const std::string &why) {
  failedHere = true;
  std::lock_guard<std::mutex> lock(netMutex);
  for (const Peer &p : peers)
    sendLine(p.fd, options.rank == 0 ? "FAIL 0 it failed: " + oneLine(why) + "\n"
                                     : "FAIL " + oneLine(why) + "\n");
  // The launcher's SIGTERM (MPI_Abort) ends this process.
  ::signal(SIGTERM, SIG_DFL);
}

void Monitor::awaitVerdict(double seconds) {
  // A closed connection to rank 0 is its failure now.
  verdictWanted = true;
  char c = 'V';
  ssize_t ignored = ::write(wakeFds[1], &c, 1);
  (void)ignored;
  Clock::time_point start = Clock::now();
  while (secondsSince(start) < seconds && !failedHere)
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
}

} // namespace

WaitScope::WaitScope(const char *operation, const char *group, int peer)
    : active(started.load(std::memory_order_relaxed)), outermost(false),
      savedOperation(nullptr), savedGroup(nullptr), savedPeer(-1) {
  if (!active)
    return;
  std::lock_guard<std::mutex> lock(state.mutex);
  outermost = !state.waiting;
  savedOperation = state.operation;
  savedGroup = state.group;
  savedPeer = state.peer;
  if (outermost) {
    state.waiting = true;
    state.since = Clock::now();
    ++state.calls;
  }
  state.operation = operation;
  state.group = group;
  state.peer = peer;
}

WaitScope::~WaitScope() {
  if (!active)
    return;
  std::lock_guard<std::mutex> lock(state.mutex);
  if (outermost) {
    // The finished collective stays described ("after collective #N").
    state.waiting = false;
    return;
  }
  state.operation = savedOperation;
  state.group = savedGroup;
  state.peer = savedPeer;
}

void Watchdog::start(const WatchdogOptions &options) {
  if (!started)
    monitor.start(options);
}

void Watchdog::connect(Communicator &world) {
  if (started)
    monitor.connect(world);
}

bool Watchdog::isStarted() { return started; }

void Watchdog::setPhase(const char *what) {
  std::lock_guard<std::mutex> lock(state.mutex);
  state.phase = what;
  state.step = 0;
  state.calls = 0;
  state.operation = nullptr;
  state.group = nullptr;
  state.peer = -1;
}

void Watchdog::beginStep(int64_t step, int64_t steps) {
  std::lock_guard<std::mutex> lock(state.mutex);
  state.step = step;
  state.steps = steps;
  state.calls = 0;
  state.operation = nullptr;
  state.group = nullptr;
  state.peer = -1;
}

void Watchdog::endCollectives() { collectivesDone = true; }

void Watchdog::finish() {
  if (started) {
    monitor.finish();
    started = false;
  }
}

void Watchdog::reportFailure(const std::string &why) {
  if (started)
    monitor.reportFailure(why);
}

void Watchdog::awaitVerdict(double seconds) {
  if (started)
    monitor.awaitVerdict(seconds);
}
