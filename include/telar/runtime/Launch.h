//===- Launch.h - How this process's job was formed -------------*- C++ -*-===//
//
// The job environment of a rank: which launcher started this process, its
// rank and the job's size, and the collective backend that forms the
// communicators (MPI under mpirun/srun, Gloo with a TCP rendezvous under
// plain processes, Kubernetes pods and Ray actors). Read from the
// environment only: plain C++17, no transport headers (runtime/README.md
// lists the variables).
//
//===----------------------------------------------------------------------===//

#ifndef TELAR_RUNTIME_LAUNCH_H
#define TELAR_RUNTIME_LAUNCH_H

#include <string>

namespace telar::runtime::comm {

/// Local: one process, no launcher.
enum class Backend { Local, Mpi, Gloo };

/// "local", "mpi", "gloo".
const char *getBackendName(Backend backend);

/// The rendezvous port when TELAR_MASTER_PORT is not set (PyTorch's).
inline constexpr int kDefaultMasterPort = 29500;

struct JobEnvironment {
  Backend backend = Backend::Local;
  /// For Mpi: from the launcher's variables when they say; size 0 when
  /// they do not (MPI decides).
  int rank = 0, size = 1;
  /// "mpirun", "srun", "Kubernetes Indexed Job", "TELAR_* variables", or
  /// "" (none).
  std::string launcher;
  /// The variable the rank came from, e.g. "OMPI_COMM_WORLD_RANK" ("" when
  /// none said it).
  std::string rankSource;
  /// Gloo only: where rank 0 serves the rendezvous (the address "" when
  /// not set: one rank needs none).
  std::string masterAddr;
  int masterPort = 0;
};

/// Whether the variables of an MPI launcher are present: OpenMPI's
/// OMPI_COMM_WORLD_SIZE, PMIx's PMIX_RANK, a PMI launcher's
/// PMI_RANK/PMI_SIZE, or Slurm's srun (SLURM_STEP_ID with SLURM_PROCID or
/// SLURM_NTASKS).
bool hasMpiLauncherEnvironment();

/// Reads the environment (an empty variable counts as unset), in this order:
///  1. TELAR_BACKEND=mpi|gloo forces the backend;
///  2. MPI when an MPI launcher's variables are present;
///  3. Gloo when TELAR_RANK (with TELAR_WORLD_SIZE) or JOB_COMPLETION_INDEX
///     (a Kubernetes Indexed Job's pod; the size from TELAR_WORLD_SIZE) is
///     set: rendezvous at TELAR_MASTER_ADDR (required when the size is
///     above 1) and TELAR_MASTER_PORT (default 29500);
///  4. otherwise Local.
/// Gloo forced under an MPI launcher takes the rank and size from the
/// launcher's variables. Throws std::runtime_error naming the variable when
/// the environment is inconsistent (not a number, TELAR_RANK >=
/// TELAR_WORLD_SIZE, a size without a rank, Gloo without TELAR_MASTER_ADDR,
/// an unknown TELAR_BACKEND).
JobEnvironment detectJobEnvironment();

/// "rank 2 of 4 (rank from JOB_COMPLETION_INDEX, Kubernetes Indexed Job),
/// backend gloo, rendezvous 10.0.0.5:29500": what telar-run --verbose says.
std::string describeJobEnvironment(const JobEnvironment &env);

} // namespace telar::runtime::comm

#endif // TELAR_RUNTIME_LAUNCH_H
