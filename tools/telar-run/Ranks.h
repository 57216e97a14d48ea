//===- Ranks.h - telar-run's ranks: the job and its failure path -*- C++ -*-===//
//
// How telar-run's process becomes a rank of a job and leaves it: `-n N`
// outside a launcher runs mpirun (runtime/comm/MpiLaunch.cpp); otherwise the
// ranks meet and connect (World.h), the watchdog starts (Watchdog.h), the
// ranks agree that every one passed its checks before any runs, and a rank
// that fails ends the job (the one failure path of telar-run).
//
//===----------------------------------------------------------------------===//

#ifndef TELAR_TOOLS_TELAR_RUN_RANKS_H
#define TELAR_TOOLS_TELAR_RUN_RANKS_H

#include "Options.h"

#include "telar/runtime/Comm.h"
#include "telar/runtime/Launch.h"
#include "telar/runtime/MpiComm.h"
#include "telar/runtime/Watchdog.h"
#include "telar/runtime/World.h"

#include <cstdio>
#include <cstdlib>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace telar::tools::run {

namespace comm = telar::runtime::comm;

/// This process's place in the job: the world communicator (null when no
/// launcher started it: one process), its transport, its rank and the
/// ranks on its node.
struct Job {
  /// How the job formed (Launch.h), completed once the ranks met.
  comm::JobEnvironment env;
  /// The bootstrap and the transport (World.h); `world` is its
  /// communicator.
  comm::World connection;
  std::shared_ptr<comm::Communicator> world;
  comm::TransportKind transport = comm::TransportKind::Local;
  int rank = 0;
  int size = 1;
  /// Ranks on this machine (-1: unknown).
  int localSize = -1;
  bool multi() const { return size > 1; }
  /// Ends this rank when others may wait for it in a collective: MPI ends
  /// the whole job; a Gloo rank exits, and its peers' collectives fail on
  /// the closed connections.
  [[noreturn]] void abort(int code) const {
    std::fflush(stdout);
    std::fflush(stderr);
    if (transport == comm::TransportKind::Mpi)
      comm::abortMpi(code);
    std::_Exit(code);
  }
  /// "rank 2: " when there are several ranks.
  std::string prefix() const {
    return multi() ? "rank " + std::to_string(rank) + ": " : "";
  }
};

/// Every rank's `value` (in rank order), on every rank.
template <typename T>
std::vector<T> allGather(const Job &job, const std::vector<T> &value,
                         comm::DataType type) {
  if (!job.world)
    return value;
  std::vector<T> all(value.size() * job.size);
  comm::WaitScope wait("all_gather", "the world");
  job.world->allGather(value.data(), all.data(), int64_t(value.size()), type);
  return all;
}

/// The default threads per rank: the hardware threads divided among the
/// ranks on this machine (the job environment's ranks per node: from the
/// launcher, or the ranks' host names; all of the job's when unknown).
int defaultThreads(const Job &job);

/// The CPU each thread is pinned to (empty when they are not pinned).
std::vector<int> pinnedThreadCpus();

/// Sets this rank's threads (--threads, or defaultThreads) and, with
/// --bind-threads auto, pins them one to a CPU (telarrt_bind_threads):
/// ranks sharing a machine whose launcher left them all of its CPUs take
/// the slots from local rank x threads on; otherwise from the CPU the rank
/// runs on. --verbose says where they went. Returns the thread count.
int setUpThreads(const Options &o, const Job &job);

/// runtime::Error when -n says another number of ranks than the job has.
void checkRanks(const Options &o, const Job &job);

/// Every rank says whether its checks passed (`problem` empty); when one
/// failed, each prints its own problem, or the first failed rank's, and
/// false comes back once all have (collective over the world).
bool agree(const Job &job, const std::string &problem);

/// The failure path of a rank: when a collective failed because a peer
/// did (`peerFailed`), waits a moment for the liveness channel, which
/// names that rank (and ends this one); prints "telar-run: error: [rank R:
/// ]MESSAGE"; with several ranks, tells the others and ends the job with
/// `code` (they may wait for this rank in a collective). Returns with one
/// rank.
void failRank(const Job &job, const std::string &message, bool peerFailed,
              int code);

/// Forms this process's job as its environment says: an exit status when
/// telar-run is done (-n N outside a launcher: mpirun's; the environment or
/// the meeting failed: 2 or 1), else nothing and `job` is a rank of the
/// job, its watchdog running when there are several.
std::optional<int> formJob(const Options &o, int &argc, char **&argv,
                           Job &job);

/// Leaves the job (Gloo: after a last barrier; MPI: finalised) and returns
/// the exit status: `status`, or 1 when leaving failed.
int leaveJob(Job &job, int status);

} // namespace telar::tools::run

#endif // TELAR_TOOLS_TELAR_RUN_RANKS_H
