//===- TcpBootstrap.h - Telar's TCP rendezvous ------------------*- C++ -*-===//
//
// The bootstrap (Bootstrap.h) of ranks that no MPI launcher started
// (plain processes, Kubernetes pods, Ray actors): rank 0 serves a small
// key-value store over TCP (runtime/comm/TcpStore.h), every rank connects
// to it, says it is there with its world size, and waits for all, so that
// a rank that never comes is named. Its exchanges go through the store;
// a transport that needs a store of its own (Gloo) uses the same one under
// its own keys. Library telar_runtime_tcp; plain C++17.
//
//===----------------------------------------------------------------------===//

#ifndef TELAR_RUNTIME_TCPBOOTSTRAP_H
#define TELAR_RUNTIME_TCPBOOTSTRAP_H

#include "telar/runtime/Bootstrap.h"

#include <chrono>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace telar::runtime::comm {

class TcpStoreClient;
class TcpStoreServer;

class TcpBootstrap final : public Bootstrap {
public:
  /// Rank 0 serves the store at `masterPort` (until this object is gone);
  /// every rank connects to `masterAddr:masterPort` (retrying until
  /// `timeout`), proves it knows the job's secret (TELAR_JOB_TOKEN; without
  /// one the store is on loopback only and a `masterAddr` elsewhere is
  /// refused, naming the variable) and all wait for all, up to `timeout`.
  /// CommError, naming the rendezvous ADDR:PORT, when rank 0 cannot serve
  /// the port ("... (TELAR_MASTER_PORT: another job's rendezvous, or another
  /// program, holds it?)"), rank 0 cannot be reached, ranks do not join
  /// ("rank 2 of 3 did not join within 400 ms ..."), or the ranks' world
  /// sizes differ. A size of 1 needs no rendezvous (no store: its
  /// exchanges are copies). `timeout` is also the longest an exchange
  /// waits for the other ranks. Rank 0, destroyed, keeps serving until
  /// every rank's bootstrap is gone too (at most min(timeout, 5 s)).
  TcpBootstrap(const std::string &masterAddr, int masterPort, int rank,
               int size, std::chrono::milliseconds timeout);
  ~TcpBootstrap() override;

  int getRank() const override { return rank; }
  int getSize() const override { return size; }
  const char *getName() const override { return "tcp"; }
  std::vector<std::vector<char>>
  allGather(const std::vector<char> &bytes) override;

  /// The connection to the store (null for one rank), and the lock its
  /// users hold around each request.
  TcpStoreClient *getStore() const { return client.get(); }
  std::mutex &getStoreMutex() { return storeMutex; }
  /// "ADDR:PORT" as given.
  const std::string &getAddress() const { return address; }
  const std::string &getMasterAddr() const { return masterAddr; }
  std::chrono::milliseconds getTimeout() const { return timeout; }
  /// The address of this host that the other ranks reach: the one its
  /// connection to the store left from (rank 0: the one rank 1 reached it
  /// at, when this host can listen on it: its own way to itself may be a
  /// loopback address).
  std::string getListenAddress() const;

private:
  std::string masterAddr, address;
  int rank, size;
  std::chrono::milliseconds timeout;
  std::unique_ptr<TcpStoreServer> server;
  std::unique_ptr<TcpStoreClient> client;
  std::mutex storeMutex;
  /// Rank 0's address as rank 1 reached it.
  std::string rank0Address;
  /// Exchanges so far (each under keys of its own).
  int64_t exchanges = 0;
};

} // namespace telar::runtime::comm

#endif // TELAR_RUNTIME_TCPBOOTSTRAP_H
