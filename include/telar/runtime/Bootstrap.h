//===- Bootstrap.h - How the ranks of a job meet ----------------*- C++ -*-===//
//
// A bootstrap is how the ranks of a job find each other and exchange small
// data before (and apart from) the transport that moves the collectives'
// data (Comm.h): MPI's world under mpirun/srun (MpiComm.h), Telar's TCP
// rendezvous for processes no MPI launcher started (TcpBootstrap.h: rank 0
// serves a key-value store), or a single process. A transport forms its
// world communicator through one: MPI through MPI's, Gloo through the TCP
// store; NCCL will take its unique id from either (rank 0 makes it, the
// bootstrap broadcasts it). Launch.h says which one a job's environment
// asks for.
//
// Plain C++17: nothing here includes a transport's headers.
//
//===----------------------------------------------------------------------===//

#ifndef TELAR_RUNTIME_BOOTSTRAP_H
#define TELAR_RUNTIME_BOOTSTRAP_H

#include <memory>
#include <string>
#include <vector>

namespace telar::runtime::comm {

/// The ranks of a job, met. Every rank calls the exchanges in the same
/// order; failures throw CommError (Comm.h) naming the exchange. One
/// thread at a time. Meant for a few small messages (ids, addresses,
/// host names), not for tensors.
class Bootstrap {
public:
  virtual ~Bootstrap();

  virtual int getRank() const = 0;
  virtual int getSize() const = 0;
  /// "local", "mpi", "tcp" (Launch.h's getBootstrapName).
  virtual const char *getName() const = 0;

  /// Every rank's `bytes`, in rank order, on every rank (sizes may differ).
  virtual std::vector<std::vector<char>>
  allGather(const std::vector<char> &bytes) = 0;
  /// `bytes` of `root` on every rank (the others' are ignored).
  virtual std::vector<char> broadcast(const std::vector<char> &bytes,
                                      int root);
  virtual void barrier();
};

/// The bootstrap of one process (exchanges are copies).
std::shared_ptr<Bootstrap> createLocalBootstrap();

/// This rank's index among the ranks whose `host` is its own, and their
/// number, by exchanging the host names (collective): where no launcher
/// said the local rank (Launch.h), e.g. plain processes on several hosts.
struct LocalPlace {
  int localRank = 0, localSize = 1;
};
LocalPlace findLocalPlace(Bootstrap &bootstrap, const std::string &host);

/// This machine's host name (gethostname), "" when unknown.
std::string getHostName();

} // namespace telar::runtime::comm

#endif // TELAR_RUNTIME_BOOTSTRAP_H
