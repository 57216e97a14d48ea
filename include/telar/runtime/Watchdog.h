//===- Watchdog.h - No rank waits forever for another -----------*- C++ -*-===//
//
// The fault handling of a multi-rank job (runtime/README.md, "Faults"):
//
// - every blocking wait of a rank is recorded (a WaitScope: the collective,
//   its group, its number within the step), by MeshCommunicator and by the
//   tools' own collectives on the world;
// - a monitor thread per rank ends the process (exit status kExitFault)
//   with one line naming the wait when it lasts longer than the timeout;
// - a liveness channel, independent of the collective backend (MPI cannot
//   be interrupted inside MPI_Allreduce, Gloo only by its own timeouts):
//   rank 0 serves a small TCP endpoint whose address goes to every rank
//   over the world communicator; each rank keeps a connection to it and
//   both sides send a heartbeat every second. Rank 0 notices a connection
//   that closes without a goodbye (the rank crashed or was killed) or a rank
//   silent for the liveness limit (stopped), tells every other rank, and
//   all of them end naming the failed rank and the collective they were
//   waiting in; every rank notices rank 0 gone the same way;
// - SIGTERM (what mpirun sends the survivors when a rank dies) is caught:
//   the rank still prints its line, naming the failed rank when the
//   liveness channel knows it within half a second.
//
// Plain C++17 and POSIX sockets; one process-wide instance.
//
//===----------------------------------------------------------------------===//

#ifndef TELAR_RUNTIME_WATCHDOG_H
#define TELAR_RUNTIME_WATCHDOG_H

#include <cstdint>
#include <string>

namespace telar::runtime::comm {

class Communicator;

/// The exit status of a rank that stops because another rank failed, a wait
/// passed the timeout, or the launcher terminated it.
inline constexpr int kExitFault = 4;

/// Records that this thread is blocked in a collective until the scope
/// ends. `operation` ("all_reduce") and `group` ("{model}", "the world")
/// must outlive the scope (literals, or strings their owner keeps). A
/// scope inside another (a group split on first use) is described as the
/// inner one while it lasts and is not counted as another collective.
class WaitScope {
public:
  WaitScope(const char *operation, const char *group, int peer = -1);
  ~WaitScope();
  WaitScope(const WaitScope &) = delete;
  WaitScope &operator=(const WaitScope &) = delete;

private:
  bool active, outermost;
  const char *savedOperation, *savedGroup;
  int savedPeer;
};

struct WatchdogOptions {
  /// The program name that starts each line ("telar-run").
  std::string tool = "telar-run";
  int rank = 0, size = 1;
  /// The longest a wait may last (--timeout).
  double timeoutSeconds = 300;
  /// The seconds between heartbeats, and the silence after which a rank
  /// counts as stopped (far below the timeout: a stopped rank is named
  /// within seconds).
  double heartbeatSeconds = 1, livenessSeconds = 10;
  /// The launcher ends every rank when one aborts (mpirun, srun): a rank
  /// that failed on its own ends the job with its status (MPI_Abort), so
  /// the others wait up to a second for the launcher's SIGTERM before they
  /// exit themselves (the job's status stays the failed rank's).
  bool launcherEndsJob = false;
  /// The port rank 0 listens on (0: one the system picks), for networks
  /// that allow only known ports.
  int port = 0;
  /// Also tried first by the other ranks to reach rank 0's endpoint (e.g.
  /// TELAR_MASTER_ADDR); rank 0's host name and addresses follow.
  std::string rank0Host;
};

/// The process's watchdog. Every function may be called when it was never
/// started (single-process runs): then they do nothing.
class Watchdog {
public:
  /// Starts the monitor thread (wait timeouts, SIGTERM). Once.
  static void start(const WatchdogOptions &options);
  /// Collective over `world` (every rank calls it, after start): rank 0
  /// opens its endpoint and broadcasts its address; the others connect
  /// (retrying until the timeout; then CommError naming the address).
  static void connect(Communicator &world);
  static bool isStarted();

  /// What this rank does now, for the lines: `what` (a literal) says it
  /// between runs ("checking the artifact and inputs", "gathering the
  /// outputs"); beginStep marks run `step` (1-based) of `steps`, and
  /// resets the collective count.
  static void setPhase(const char *what);
  static void beginStep(int64_t step, int64_t steps);

  /// After this rank's last collective: it waits for nobody any more, so
  /// what happens to the others (rank 0 exiting first, say) no longer ends
  /// it. Rank 0 still relays failures it sees.
  static void endCollectives();
  /// Before a deliberate exit (success, or an error every rank agreed on):
  /// says goodbye on the liveness channel, so that no rank reports this
  /// one as failed, and stops the monitor thread.
  static void finish();
  /// This rank fails on its own and is about to exit (its message printed
  /// already): rank 0 names it to the others with `why`.
  static void reportFailure(const std::string &why);
  /// A collective threw (a peer's connection broke): gives the liveness
  /// channel up to `seconds` to name the failed rank (then the process
  /// ends with its line); returns when it did not.
  static void awaitVerdict(double seconds);
};

} // namespace telar::runtime::comm

#endif // TELAR_RUNTIME_WATCHDOG_H
