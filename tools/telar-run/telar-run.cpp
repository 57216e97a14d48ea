//===- telar-run.cpp - Run a Telar artifact -------------------------------===//
//
//   telar-run ARTIFACT_DIR --input NAME=FILE ... [-n N] [--program NAME]
//             [--output-dir DIR] [--format npy|pb] [--threads N] [--bench N]
//             [--warmup N] [--memory-limit BYTES] [--report FILE.json]
//             [--timeout SECONDS] [--profile-kernels] [-v|-q] [--help]
//             [--version]
//
// Loads the artifact (docs/Artifact.md), reads the inputs (.npy or ONNX
// TensorProto .pb), runs the program and writes or summarises the outputs.
// Every check (arguments, artifact, inputs) happens before the program runs.
// A multi-rank artifact runs as one process per rank: `-n N` starts them
// through mpirun (re-executing this program), or a launcher does (`mpirun
// -np N telar-run ...`, `srun -n N telar-run ...`), or plain processes
// with the TELAR_* variables meet at a TCP rendezvous (Gloo); each rank
// slices its blocks of the inputs, and rank 0 assembles and writes the
// outputs. A pipelined artifact (manifest version 4) runs its stages'
// schedule steps on each rank (runtime/Pipeline.h).
// Exit codes: 0 success, 1 error (artifact, inputs, I/O), 2 usage error,
// 3 the program failed while running (a status from the runtime ABI),
// 4 another rank failed, a wait passed --timeout, or SIGTERM came
// (runtime/comm/Watchdog.cpp).
// The full documentation is in runtime/README.md.
//
// The runtime side does not depend on LLVM. The tool's parts: Options
// (flags), TensorIO (input and output files), Report (statistics,
// --report), Ranks (the job: mpirun, meeting, watchdog, the failure path),
// Run and RunPipeline (the runs of an artifact).
//
//===----------------------------------------------------------------------===//

#include "Options.h"
#include "Ranks.h"
#include "Run.h"

#include "telar/runtime/Runtime.h"

#include <csignal>
#include <cstdio>

using namespace telar::tools::run;

int main(int argc, char **argv) {
  Options options = parseArguments(argc, argv);
  // A launcher that ended first (mpirun, after another rank died) closes
  // the pipe of this rank's output: writing there must not kill the rank
  // with SIGPIPE, which would hide its own exit status.
  std::signal(SIGPIPE, SIG_IGN);
  Job job;
  if (std::optional<int> exit = formJob(options, argc, argv, job))
    return *exit;
  int status;
  try {
    status = run(options, job);
  } catch (const telar::runtime::RunError &) {
    // Printed where it happened (a single rank: nothing else runs).
    status = 3;
  } catch (const std::exception &e) {
    // A collective that failed because a peer did: the liveness channel
    // names it (and ends this process) within moments. Others may wait for
    // this rank in a collective.
    failRank(job, e.what(), dynamic_cast<const comm::CommError *>(&e), 1);
    status = 1;
  }
  return leaveJob(job, status);
}
