//===- Options.cpp - telar-run's flags ------------------------------------===//
//
// Every flag of telar-run, declared once with its help text (the generated
// --help), its default and its checks (runtime/README.md documents them).
//
//===----------------------------------------------------------------------===//

#include "Options.h"

#include <cstdlib>

#include "telar/runtime/Abi.h"
#include "telar/runtime/Runtime.h"
#include "telar/tools/Flags.h"

#include <charconv>
#include <cinttypes>
#include <cmath>
#include <cstdio>

#ifndef TELAR_VERSION
#define TELAR_VERSION "0.0.0"
#endif

using namespace telar::runtime;
using namespace telar::tools::run;

namespace {

constexpr const char *kDescription =
    "Runs a compiled Telar artifact (the directory telarc -o writes).";

constexpr const char *kEpilog =
    R"(Ranks that no MPI launcher starts (Kubernetes pods, Ray actors, plain
processes) meet at a TCP rendezvous served by rank 0 (the Gloo backend):
  TELAR_RANK, TELAR_WORLD_SIZE  this process's rank and the number of ranks
                      (or JOB_COMPLETION_INDEX, a Kubernetes Indexed Job's)
  TELAR_MASTER_ADDR, TELAR_MASTER_PORT  rank 0's host and the port it
                      serves (default 29500)
  TELAR_BACKEND=mpi|gloo  force a backend
  TELAR_LOCAL_RANK, TELAR_LOCAL_SIZE  this rank's index among the ranks of
                      its machine, and their number (else from the
                      launcher, or the ranks' host names)

A pipelined artifact (manifest version 4: stages in sub-directories) runs
on its world size the same ways: each rank runs its stages' steps of the
schedule table; --bench times the whole batch through the pipeline (the
ranks start each run together), --report adds per rank its seconds in stage
programs and in transfers and its idle fraction, --verbose a line per step.

Exit status: 0 on success, 1 on errors (artifact, inputs, I/O), 2 on usage
errors, 3 when the program fails while running (e.g. out of memory), 4 when
another rank failed or a wait passed --timeout.
)";

/// Declares telar-run's flags on `flags`, setting `o`.
void declareFlags(telar::tools::flags::FlagParser &flags, Options &o) {
  using telar::tools::flags::UsageError;
  flags.setDescription(kDescription);
  flags.setEpilog(kEpilog);
  flags.setFlagsHeading("");
  flags.setPositionalHandler([&o](const std::string &arg) {
    if (!o.artifact.empty())
      throw UsageError("unexpected argument '" + arg +
                       "' (one artifact directory is expected)");
    o.artifact = arg;
  });
  flags.addValue({"--input"}, "NAME=FILE",
                 "value of the model input NAME, from a .npy file or an ONNX "
                 "TensorProto .pb file (by extension); one per input (the "
                 "whole tensor: each rank takes its block)",
                 [&o](const std::string &, const std::string &value) {
                   size_t eq = value.find('=');
                   if (eq == std::string::npos || eq == 0 ||
                       eq + 1 == value.size())
                     throw UsageError("--input expects NAME=FILE, got '" +
                                      value + "'");
                   o.inputs.emplace_back(value.substr(0, eq),
                                         value.substr(eq + 1));
                 });
  flags.addInt({"-n", "--ranks"}, "N", o.ranks, 1,
               "run on N ranks, started through mpirun (found on PATH, or "
               "$TELAR_MPIRUN); under a launcher (mpirun, srun) or the TELAR_* "
               "variables, N must be its number of ranks");
  flags.addString({"--program"}, "NAME", o.program,
                  "the artifact's program to run (default: 'main', or the "
                  "only one)",
                  "--program expects a program name");
  flags.addString({"--output-dir"}, "DIR", o.outputDir,
                  "write each output to DIR/<name>.<format> (characters of "
                  "the name outside [A-Za-z0-9._-] become '_'); without it, "
                  "print a summary of each output",
                  "--output-dir expects a directory");
  flags.addValue({"--format"}, "npy|pb",
                 "output file format (default: npy)",
                 [&o](const std::string &, const std::string &value) {
                   if (value != "npy" && value != "pb")
                     throw UsageError("--format expects 'npy' or 'pb', got '" +
                                      value + "'");
                   o.format = value;
                 });
  flags.addInt({"--threads"}, "N", o.threads, 1,
               "threads for parallel loops and BLAS per rank (default: the "
               "hardware threads divided among the ranks of this machine)");
  flags.addValue({"--bind-threads"}, "auto|none",
                 "auto (default): when 2 or more threads fill the CPUs this "
                 "process may use, one each (with the machine's other ranks), "
                 "pin each to its own CPU, unless OMP_PROC_BIND, OMP_PLACES, "
                 "KMP_AFFINITY or GOMP_CPU_AFFINITY places them; none: leave "
                 "them to the OS, which may keep two on one CPU",
                 [&o](const std::string &, const std::string &value) {
                   if (value != "auto" && value != "none")
                     throw UsageError("--bind-threads expects 'auto' or "
                                      "'none', got '" +
                                      value + "'");
                   o.bindThreads = value == "auto";
                 });
  flags.addInt({"--bench"}, "N", o.bench, 1,
               "time N runs after the warmup runs; print latency "
               "mean/p50/p90/min in ms (of the slowest rank) and throughput "
               "in runs/s; several ranks: each rank's latency and time inside "
               "collectives");
  flags.addInt({"--warmup"}, "N", o.warmup, 0,
               "untimed runs before --bench's timed runs (default: 3)");
  flags.addValue({"--memory-limit"}, "N",
                 "fail the run (exit 3) when its intermediates would take more "
                 "than N bytes at once (default: no limit)",
                 [&o](const std::string &, const std::string &value) {
                   size_t n = 0;
                   const char *end = value.data() + value.size();
                   auto [ptr, ec] = std::from_chars(value.data(), end, n);
                   if (value.empty() || ec != std::errc() || ptr != end)
                     throw UsageError("option '--memory-limit' expects a "
                                      "number of bytes, got '" +
                                      value + "'");
                   o.memoryLimit = n;
                 });
  flags.addString({"--report"}, "FILE", o.report,
                  "write a JSON report (latency, memory, sizes; several "
                  "ranks: per rank, and per mesh axis set the collectives' "
                  "calls, time and bytes sent, measured)",
                  "--report expects a file name");
  flags.addString({"--trace"}, "FILE", o.trace,
                  "write a Chrome trace-event / Perfetto JSON timeline of "
                  "the runs (rank 0 writes one file for the job): per rank "
                  "the runs, program calls, runtime kernels with their "
                  "shapes, collectives and pipeline steps and messages, "
                  "the time each waited for its peers, and idle time; "
                  "FILE.html: a self-contained page drawing it "
                  "(docs/Trace.md)",
                  "--trace expects a file name");
  flags.addSwitch({"--profile-kernels"}, o.profileKernels,
                  "time the runtime's kernels (matmuls, convolutions, "
                  "pooling) during the timed runs and print, per kernel and "
                  "operand shapes, ms and calls per run and the share of the "
                  "latency, and the time outside them (generated code); "
                  "--report adds them (rank 0's; not for pipelined artifacts)");
  flags.addValue({"--timeout"}, "SECONDS",
                 "the longest any rank waits for the others (in a collective, "
                 "a point-to-point transfer or the rendezvous) before every "
                 "rank stops, naming the collective it waited in (default: "
                 "300); a rank that dies or stops is named within seconds "
                 "regardless",
                 [&o](const std::string &, const std::string &value) {
                   double seconds = 0;
                   const char *end = value.data() + value.size();
                   auto [ptr, ec] = std::from_chars(value.data(), end, seconds);
                   if (value.empty() || ec != std::errc() || ptr != end ||
                       !(seconds > 0) || !std::isfinite(seconds))
                     throw UsageError("option '--timeout' expects a number of "
                                      "seconds > 0, got '" +
                                      value + "'");
                   o.timeoutSeconds = seconds;
                 });
  flags.addSwitch({"--emulate"}, o.emulate,
                  "run a GPU artifact (telarc --target cuda --emulation) "
                  "on the CUDA emulator, its kernels compiled for the CPU: "
                  "same inputs, outputs and flags, no GPU needed "
                  "(docs/Cuda.md)");
  flags.addSwitch({"--train"}, o.train,
                  "run a training artifact (telarc --train): --steps "
                  "training steps, each input file holding a leading steps "
                  "dimension (step i takes row i mod its length); prints "
                  "each step's loss (docs/Training.md)");
  flags.addInt({"--steps"}, "N", o.steps, 1,
               "with --train: the number of training steps (default: 1)");
  flags.addValue({"--lr"}, "F",
                 "with --train: the learning rate (default: the one the "
                 "artifact was compiled with)",
                 [&o](const std::string &, const std::string &value) {
                   char *end = nullptr;
                   double lr = std::strtod(value.c_str(), &end);
                   if (value.empty() || *end != '\0' || !(lr >= 0))
                     throw UsageError("--lr expects a non-negative number, "
                                      "got '" + value + "'");
                   o.learningRate = lr;
                 });
  flags.addString({"--save-weights"}, "FILE", o.saveWeights,
                  "with --train: after the last step, write every trained "
                  "parameter (whole, under its ONNX initializer name) to FILE "
                  "(safetensors)");
  flags.addString({"--export-onnx"}, "FILE", o.exportOnnx,
                  "with --train: after the last step, write the source model "
                  "with the trained parameters as its initializers to FILE "
                  "(an ONNX model onnxruntime loads)");
  flags.addString({"--checkpoint-dir"}, "DIR", o.checkpointDir,
                  "with --train: write checkpoints (parameters, optimizer "
                  "state, step) to DIR/step-S every --checkpoint-every steps "
                  "and after the last, atomically (DIR/latest names the "
                  "newest complete one)");
  flags.addInt({"--checkpoint-every"}, "K", o.checkpointEvery, 1,
               "with --checkpoint-dir: steps between checkpoints (default: "
               "only after the last step)");
  flags.addString({"--resume"}, "DIR", o.resumeDir,
                  "with --train: start from the newest checkpoint in DIR "
                  "(same artifact and ranks), at the step after it; --steps "
                  "counts from the start of training");
  flags.addSwitch({"-v", "--verbose"}, o.verbose,
                  "say how the job was formed (launcher, rank source, "
                  "backend, rendezvous, local rank) and print a progress line "
                  "per rank and step");
  flags.addSwitch({"-q", "--quiet"}, o.quiet,
                  "print only errors and --bench's statistics");
  flags.addAction({"--version"},
                  "print the version (and which kernels OpenBLAS runs)", [] {
                    std::printf("telar-run %s (artifact format version %" PRId64
                                ")\nOpenBLAS kernels: %s\n",
                                TELAR_VERSION, kArtifactFormatVersion,
                                telarrt_blas_core_name());
                  });
}

} // namespace

Options telar::tools::run::parseArguments(int argc, char **argv) {
  Options o;
  telar::tools::flags::FlagParser flags("telar-run",
                                 "ARTIFACT_DIR --input NAME=FILE ... [options]");
  declareFlags(flags, o);
  flags.parseOrExit(argc, argv);
  if (o.artifact.empty())
    flags.usageError("no artifact directory given");
  if (o.verbose && o.quiet)
    flags.usageError("--verbose and --quiet exclude each other");
  if (!o.train && (o.learningRate || !o.saveWeights.empty() ||
                   !o.exportOnnx.empty() || !o.checkpointDir.empty() ||
                   !o.resumeDir.empty()))
    flags.usageError("--lr, --save-weights, --export-onnx, --checkpoint-dir "
                     "and --resume apply to --train");
  if (o.checkpointEvery && o.checkpointDir.empty())
    flags.usageError("--checkpoint-every needs --checkpoint-dir");
  if (o.train && (o.bench || !o.outputDir.empty()))
    flags.usageError("--bench and --output-dir do not apply to --train");
  return o;
}

