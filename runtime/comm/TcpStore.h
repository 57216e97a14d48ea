//===- TcpStore.h - A TCP key-value store for rendezvous --------*- C++ -*-===//
//
// Internal to the runtime (the Gloo backend and its tests): a small
// key-value store over TCP. Rank 0 runs a TcpStoreServer (one thread
// accepting, one per connection); every rank, rank 0 included, talks to it
// through a TcpStoreClient. Values are bytes; a get waits until its key is
// set (or the timeout passes). Keys are never deleted: a store lives as
// long as its job.
//
// A connection first proves that its client knows the job's secret (the
// handshake of Auth.h: the server sends "TELARST1" and a nonce, the client
// its nonce and HMAC(secret, "telar-store-client\0" + both nonces), the
// server 1 and its own proof, or 0 and closes); nothing is read before.
// Without a secret the store listens on loopback only.
//
// Wire format (all integers little-endian): a request is an op byte then
// its fields; a string is a u32 length then its bytes.
//   SET  key value        -> u8 1
//   GET  key u64 ms       -> u8 0 (not set), 1 then the value, or 2 (the
//                            server stops)
//   WAIT u32 n keys u64 ms-> u32 m, the m keys still missing after ms
//   ADD  key i64 delta    -> i64 the counter's new value
//
//===----------------------------------------------------------------------===//

#ifndef TELAR_RUNTIME_COMM_TCPSTORE_H
#define TELAR_RUNTIME_COMM_TCPSTORE_H

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace telar::runtime::comm {

/// Serves a store on `port` (0: one the system picks) from a thread, until
/// destroyed; requests waiting then are answered (a wait with the keys
/// still missing). With a `token` it listens on the interface `host`
/// resolves to when it is this machine's, else on every interface; without
/// one on the loopback interface only. It admits connections that prove
/// they know `token`, at most `maxConnections` at once. Throws CommError
/// when the port cannot be bound.
class TcpStoreServer {
public:
  TcpStoreServer(const std::string &host, int port, std::string token,
                 size_t maxConnections);
  ~TcpStoreServer();
  TcpStoreServer(const TcpStoreServer &) = delete;
  TcpStoreServer &operator=(const TcpStoreServer &) = delete;

  /// The port it listens on.
  int getPort() const;

  struct Impl;

private:
  std::shared_ptr<Impl> impl;
};

/// One connection to a TcpStoreServer. Calls are not thread-safe. Every
/// failure throws CommError naming ADDR:PORT.
class TcpStoreClient {
public:
  /// Connects to `host:port`, retrying (refused connections, names that
  /// do not resolve yet) until `timeout`; then CommError "cannot reach the
  /// rendezvous at HOST:PORT after N s (...)". Then the handshake over
  /// `token`: CommError when the server refuses it (another token) or
  /// cannot prove it knows it. `timeout` is also the longest get waits for
  /// a key.
  TcpStoreClient(const std::string &host, int port,
                 std::chrono::milliseconds timeout, const std::string &token);
  ~TcpStoreClient();
  TcpStoreClient(const TcpStoreClient &) = delete;
  TcpStoreClient &operator=(const TcpStoreClient &) = delete;

  void set(const std::string &key, const std::vector<char> &value);
  /// Waits until `key` is set, up to the timeout (then CommError).
  std::vector<char> get(const std::string &key);
  /// Waits until every key is set, up to `timeout`; returns those still
  /// missing then (empty: all set).
  std::vector<std::string> wait(const std::vector<std::string> &keys,
                                std::chrono::milliseconds timeout);
  /// Adds `delta` to the counter `key` (0 when unset); its new value.
  int64_t add(const std::string &key, int64_t delta);

  /// "HOST:PORT", as given.
  const std::string &getAddress() const { return address; }
  std::chrono::milliseconds getTimeout() const { return timeout; }
  /// The local address of the connection (numeric, no port): the address
  /// of this host that reaches the server.
  std::string getLocalAddress() const;
  /// The server's address as this connection reached it (numeric).
  std::string getPeerAddress() const;

private:
  /// The handshake; "" when admitted, the problem when the connection
  /// closed or went silent first (worth another connection). CommError
  /// when refused or the server cannot prove it knows `token`.
  std::string handshake(const std::string &token);
  void sendAll(const std::string &bytes);
  void recvAll(void *data, size_t size, std::chrono::milliseconds wait,
               const char *what);

  std::string address;
  std::chrono::milliseconds timeout;
  int fd = -1;
};

/// "5 s", "2.5 s", "300 ms".
std::string formatDuration(std::chrono::milliseconds duration);

} // namespace telar::runtime::comm

#endif // TELAR_RUNTIME_COMM_TCPSTORE_H
