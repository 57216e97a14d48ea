//===- Launch.h - How this process's job was formed -------------*- C++ -*-===//
//
// The job environment of a rank: which launcher started this process, its
// rank and the job's size, its place on its node (local rank, ranks per
// node), and the two choices that form its communicators, kept apart:
//   - the bootstrap: how the ranks find each other and exchange small data
//     (a transport's unique id, addresses) before any transport connects:
//     MPI under mpirun/srun, Telar's TCP rendezvous (rank 0 serves a store)
//     for plain processes, Kubernetes pods and Ray actors, or none for one
//     process (Bootstrap.h);
//   - the transport (the "backend"): what moves the collectives' data: MPI
//     or Gloo now (Comm.h); NCCL, which meets through either bootstrap.
// Read from the environment only: plain C++17, no transport headers
// (runtime/README.md lists the variables).
//
//===----------------------------------------------------------------------===//

#ifndef TELAR_RUNTIME_LAUNCH_H
#define TELAR_RUNTIME_LAUNCH_H

#include <string>

namespace telar::runtime::comm {

/// How the ranks meet. Local: one process, nothing to meet.
enum class BootstrapKind { Local, Mpi, Tcp };
/// How the ranks exchange data. Local: one process (copies).
enum class TransportKind { Local, Mpi, Gloo };

/// "local", "mpi", "tcp".
const char *getBootstrapName(BootstrapKind bootstrap);
/// "local", "mpi", "gloo" (what TELAR_BACKEND names).
const char *getTransportName(TransportKind transport);

/// The rendezvous port when TELAR_MASTER_PORT is not set (PyTorch's).
inline constexpr int kDefaultMasterPort = 29500;

struct JobEnvironment {
  BootstrapKind bootstrap = BootstrapKind::Local;
  TransportKind transport = TransportKind::Local;
  /// For an MPI bootstrap: from the launcher's variables when they say;
  /// size 0 when they do not (MPI decides).
  int rank = 0, size = 1;
  /// This rank's index among the ranks of its node, and their number
  /// (a device per local rank); -1 when nothing says (localSize -1 too).
  int localRank = -1, localSize = -1;
  /// "mpirun", "srun", "Kubernetes Indexed Job", "TELAR_* variables", or
  /// "" (none).
  std::string launcher;
  /// The variable the rank came from, e.g. "OMPI_COMM_WORLD_RANK" ("" when
  /// none said it).
  std::string rankSource;
  /// The variable the local rank came from, e.g. "SLURM_LOCALID"; for a
  /// pod, "JOB_COMPLETION_INDEX" ("" when none said it).
  std::string localRankSource;
  /// TCP bootstrap only: where rank 0 serves the rendezvous (the address
  /// "" when not set: one rank needs none).
  std::string masterAddr;
  int masterPort = 0;
};

/// Whether the variables of an MPI launcher are present: OpenMPI's
/// OMPI_COMM_WORLD_SIZE, PMIx's PMIX_RANK, a PMI launcher's
/// PMI_RANK/PMI_SIZE, or Slurm's srun (SLURM_STEP_ID with SLURM_PROCID or
/// SLURM_NTASKS).
bool hasMpiLauncherEnvironment();

/// Reads the environment (an empty variable counts as unset), in this order:
///  1. TELAR_BACKEND=mpi|gloo forces the transport (and its bootstrap);
///  2. MPI (bootstrap and transport) when an MPI launcher's variables are
///     present;
///  3. the TCP bootstrap with Gloo when TELAR_RANK (with TELAR_WORLD_SIZE)
///     or JOB_COMPLETION_INDEX (a Kubernetes Indexed Job's pod; the size
///     from TELAR_WORLD_SIZE) is set: rendezvous at TELAR_MASTER_ADDR
///     (required when the size is above 1) and TELAR_MASTER_PORT (default
///     29500);
///  4. otherwise Local.
/// Gloo forced under an MPI launcher takes the rank and size from the
/// launcher's variables and meets through the TCP rendezvous.
/// The local rank and the ranks per node, first found of:
/// TELAR_LOCAL_RANK/TELAR_LOCAL_SIZE (set by hand or by a launcher script),
/// OpenMPI's OMPI_COMM_WORLD_LOCAL_RANK/_LOCAL_SIZE, MPICH's
/// MPI_LOCALRANKID/MPI_LOCALNRANKS, Slurm's SLURM_LOCALID with
/// SLURM_STEP_TASKS_PER_NODE, SLURM_TASKS_PER_NODE (this node's entry, by
/// SLURM_NODEID, of a list such as "4(x2),3") or SLURM_NTASKS_PER_NODE,
/// torchrun's and Ray Train's LOCAL_RANK/LOCAL_WORLD_SIZE, and a
/// Kubernetes pod (JOB_COMPLETION_INDEX): local rank index mod
/// TELAR_TASKS_PER_NODE, of TELAR_TASKS_PER_NODE (default 1: a pod per
/// rank). A single process is local rank 0 of 1.
/// Throws std::runtime_error naming the variable when the environment is
/// inconsistent (not a number, TELAR_RANK >= TELAR_WORLD_SIZE, a size
/// without a rank, Gloo without TELAR_MASTER_ADDR, an unknown
/// TELAR_BACKEND, TELAR_LOCAL_RANK >= TELAR_LOCAL_SIZE).
JobEnvironment detectJobEnvironment();

/// "rank 2 of 4 (rank from JOB_COMPLETION_INDEX, Kubernetes Indexed Job),
/// backend gloo, rendezvous 10.0.0.5:29500, local rank 0 of 1 (from
/// JOB_COMPLETION_INDEX)": what telar-run --verbose says.
std::string describeJobEnvironment(const JobEnvironment &env);

} // namespace telar::runtime::comm

#endif // TELAR_RUNTIME_LAUNCH_H
