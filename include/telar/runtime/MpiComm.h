//===- MpiComm.h - The MPI transport of the communicators -------*- C++ -*-===//
//
// The MPI transport of telar/runtime/Comm.h and MPI's bootstrap
// (Bootstrap.h) (library telar_runtime_mpi; OpenMPI from Debian). MPI is
// initialised by initializeMpi, in a process started by a launcher (mpirun,
// srun) or as a singleton, and finalised by finalizeMpi once every
// communicator and bootstrap is gone. Errors come back as
// CommError (communicators use MPI_ERRORS_RETURN), never as an abort.
//
//===----------------------------------------------------------------------===//

#ifndef TELAR_RUNTIME_MPICOMM_H
#define TELAR_RUNTIME_MPICOMM_H

#include "telar/runtime/Bootstrap.h"
#include "telar/runtime/Comm.h"

#include <memory>
#include <string>

namespace telar::runtime::comm {

/// Whether the environment says this process is one rank of a job started
/// by mpirun/mpiexec (OpenMPI's OMPI_COMM_WORLD_SIZE, PMIx's PMIX_RANK, a
/// PMI launcher's PMI_SIZE) or by Slurm's srun (SLURM_STEP_ID with
/// SLURM_NTASKS or SLURM_PROCID). MPI is not needed otherwise.
bool isLaunchedAsMpiJob();

/// For a tool's `-n N` outside a launcher: runs this command again under
/// `mpirun -np N` (found on PATH, or $TELAR_MPIRUN; OpenMPI's root and
/// oversubscription settings set when absent), with the same arguments, and
/// returns mpirun's exit status (dies of its signal when mpirun did). The
/// job's OpenMPI session files go to a fresh directory under $TMPDIR (or
/// /tmp), removed afterwards, unless OMPI_MCA_orte_tmpdir_base names one:
/// mpiruns started at once would race on a shared one. SIGINT, SIGTERM,
/// SIGHUP and SIGQUIT are passed on to mpirun. Returns 1 (with an error
/// naming `tool`, and suggesting `selfStart` when mpirun is not found) when
/// mpirun cannot be started.
int relaunchUnderMpirun(const char *tool, int ranks, int argc, char **argv,
                        const std::string &selfStart);

/// Initialises MPI (MPI_THREAD_SERIALIZED: collectives come from one
/// thread at a time) unless it already is; throws CommError when it fails.
void initializeMpi(int *argc, char ***argv);
bool isMpiInitialized();
/// MPI_Finalize, when initializeMpi initialised MPI and it is not finalised
/// yet. Communicators must be destroyed first.
void finalizeMpi();
/// Ends every rank of the job (MPI_Abort): for a rank that cannot go on
/// while others may wait for it in a collective.
[[noreturn]] void abortMpi(int code);

/// The ranks of MPI's world, met (a duplicate of MPI_COMM_WORLD of its
/// own). MPI must be initialised.
std::shared_ptr<Bootstrap> createMpiBootstrap();

/// A communicator of every rank (a duplicate of MPI_COMM_WORLD returning
/// errors): the MPI transport, which meets only through MPI's bootstrap
/// (MPI_Init is both). MPI must be initialised.
std::shared_ptr<Communicator> createMpiWorldCommunicator();

} // namespace telar::runtime::comm

#endif // TELAR_RUNTIME_MPICOMM_H
