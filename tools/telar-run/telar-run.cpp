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
// The runtime side does not depend on LLVM: the flags are the runtime
// tools' own (include/telar/tools/Flags.h).
//
//===----------------------------------------------------------------------===//

#include "telar/runtime/Abi.h"
#include "telar/runtime/Comm.h"
#include "telar/runtime/Launch.h"
#include "telar/runtime/MpiComm.h"
#include "telar/runtime/Npy.h"
#include "telar/runtime/Pipeline.h"
#include "telar/runtime/Runtime.h"
#include "telar/runtime/TensorProto.h"
#include "telar/runtime/Watchdog.h"
#include "telar/runtime/World.h"
#include "telar/tools/Flags.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <charconv>
#include <chrono>
#include <cinttypes>
#include <csignal>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <sys/resource.h>
#include <thread>
#include <unistd.h>

#ifndef TELAR_VERSION
#define TELAR_VERSION "0.0.0"
#endif

using namespace telar::runtime;
namespace comm = telar::runtime::comm;

namespace {

struct Options {
  std::string artifact;
  /// -n: the number of ranks (0: not given).
  int ranks = 0;
  std::vector<std::pair<std::string, std::string>> inputs;
  std::string program;
  std::optional<size_t> memoryLimit;
  std::string outputDir;
  std::string format = "npy";
  int threads = 0;
  int bench = 0;
  int warmup = 3;
  std::string report;
  /// --timeout: seconds any blocking wait may take.
  double timeoutSeconds = 300;
  bool verbose = false;
  bool quiet = false;
  bool profileKernels = false;
};

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
void declareFlags(telar::flags::FlagParser &flags, Options &o) {
  using telar::flags::UsageError;
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

Options parseArguments(int argc, char **argv) {
  Options o;
  telar::flags::FlagParser flags("telar-run",
                                 "ARTIFACT_DIR --input NAME=FILE ... [options]");
  declareFlags(flags, o);
  flags.parseOrExit(argc, argv);
  if (o.artifact.empty())
    flags.usageError("no artifact directory given");
  if (o.verbose && o.quiet)
    flags.usageError("--verbose and --quiet exclude each other");
  return o;
}

/// "x float32[2,3], flags int64[3]".
std::string listTensors(const std::vector<TensorSpec> &specs) {
  if (specs.empty())
    return "none";
  std::string s;
  for (const TensorSpec &t : specs)
    s += (s.empty() ? "" : ", ") + t.name + " " + t.typeString();
  return s;
}

std::string lowercaseExtension(const std::string &path) {
  std::string ext = std::filesystem::path(path).extension().string();
  std::transform(ext.begin(), ext.end(), ext.begin(),
                 [](unsigned char c) { return std::tolower(c); });
  return ext;
}

/// An output's file name: characters outside [A-Za-z0-9._-] become '_'.
std::string sanitize(const std::string &name) {
  std::string s = name;
  for (char &c : s)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '.' && c != '_' &&
        c != '-')
      c = '_';
  return s;
}

/// Reads and checks the inputs of manifest `m`, in manifest order: this
/// rank's blocks of them (a .npy file is read only where the block lies);
/// whole tensors without an artifact (a pipeline's graph inputs, never
/// sharded).
std::vector<Tensor> readInputs(const Options &o, const Manifest &m,
                               const Artifact *artifact) {
  auto isInput = [&](const std::string &name) {
    return std::any_of(m.inputs.begin(), m.inputs.end(),
                       [&](const TensorSpec &s) { return s.name == name; });
  };
  std::map<std::string, std::string> files;
  for (auto [name, file] : o.inputs) {
    // The argument was split at its first '='; an input name may contain
    // '=' itself: take the first split whose left side names an input.
    std::string raw = name + "=" + file;
    for (size_t eq = raw.find('='); eq != std::string::npos;
         eq = raw.find('=', eq + 1))
      if (isInput(raw.substr(0, eq))) {
        name = raw.substr(0, eq);
        file = raw.substr(eq + 1);
        break;
      }
    if (!isInput(name))
      throw Error("unknown input '" + name +
                  "' (the model's inputs are: " + listTensors(m.inputs) + ")");
    if (!files.emplace(name, file).second)
      throw Error("input '" + name + "' is given more than once");
  }
  std::vector<std::string> missing;
  for (const TensorSpec &s : m.inputs)
    if (!files.count(s.name))
      missing.push_back("'" + s.name + "'");
  if (!missing.empty()) {
    std::string names;
    for (const std::string &n : missing)
      names += (names.empty() ? "" : ", ") + n;
    throw Error(std::string("missing input") +
                (missing.size() > 1 ? "s " : " ") + names +
                " (expected inputs: " + listTensors(m.inputs) +
                "; pass each as --input NAME=FILE)");
  }

  std::vector<Tensor> inputs;
  for (size_t i = 0; i < m.inputs.size(); ++i) {
    const TensorSpec &s = m.inputs[i];
    const std::string &file = files[s.name];
    std::string ext = lowercaseExtension(file);
    if (ext != ".npy" && ext != ".pb")
      throw Error("input '" + s.name + "': cannot tell the format of '" + file +
                  "' (expected a .npy or .pb file)");
    auto check = [&](DType dtype, const Shape &shape) {
      if (dtype != s.dtype || shape != s.shape)
        throw Error("input '" + s.name + "': expected " + s.typeString() +
                    ", got " + formatType(dtype, shape) + " from " + file);
    };
    try {
      if (ext == ".npy" && s.isSharded() && artifact) {
        auto [dtype, shape] = readNpyType(file);
        check(dtype, shape);
        inputs.push_back(readNpyBlock(file,
                                      m.getBlockOffsets(s, artifact->getRank()),
                                      artifact->getLocalShape(s)));
        continue;
      }
      Tensor t = ext == ".npy" ? readNpy(file) : readTensorProto(file);
      check(t.getDType(), t.getShape());
      inputs.push_back(s.isSharded() && artifact ? artifact->sliceInput(i, t)
                                                 : std::move(t));
    } catch (const Error &e) {
      std::string what = e.what();
      if (what.rfind("input '" + s.name + "': ", 0) == 0)
        throw;
      throw Error("input '" + s.name + "': " + what);
    }
  }
  return inputs;
}

std::string formatValue(DType dtype, const void *data, int64_t i) {
  char buffer[64];
  switch (dtype) {
  case DType::Bool:
    return static_cast<const uint8_t *>(data)[i] ? "true" : "false";
  case DType::Int64:
    std::snprintf(buffer, sizeof(buffer), "%" PRId64,
                  static_cast<const int64_t *>(data)[i]);
    return buffer;
  case DType::UInt64:
    std::snprintf(buffer, sizeof(buffer), "%" PRIu64,
                  static_cast<const uint64_t *>(data)[i]);
    return buffer;
  default:
    std::snprintf(buffer, sizeof(buffer), "%g",
                  elementAsDouble(dtype, data, i));
    return buffer;
  }
}

/// "float32[2,3] = [1, 2, 3, 4, 5, 6]", the first few values only.
std::string summarize(const Tensor &t) {
  constexpr int64_t kShown = 8;
  int64_t n = t.getNumElements();
  std::string s = t.typeString() + " = [";
  for (int64_t i = 0; i < std::min(n, kShown); ++i)
    s += (i ? ", " : "") + formatValue(t.getDType(), t.data(), i);
  if (n > kShown)
    s += ", ... (" + std::to_string(n) + " values)";
  return s + "]";
}

std::string formatBytes(size_t bytes) {
  std::string s = std::to_string(bytes) + " bytes";
  if (bytes >= 1024) {
    const char *units[] = {"KiB", "MiB", "GiB", "TiB"};
    double v = bytes;
    int u = -1;
    while (v >= 1024 && u < 3) {
      v /= 1024;
      ++u;
    }
    char buffer[32];
    std::snprintf(buffer, sizeof(buffer), " (%.1f %s)", v, units[u]);
    s += buffer;
  }
  return s;
}

/// Four significant digits, without switching to exponents for long runs.
std::string formatMs(double ms) {
  char buffer[32];
  std::snprintf(buffer, sizeof(buffer), ms >= 1000 ? "%.1f" : "%.4g", ms);
  return buffer;
}

struct Latency {
  double mean = 0, p50 = 0, p90 = 0, min = 0;
};

/// Nearest-rank percentiles of the run times (milliseconds).
Latency summarizeTimes(std::vector<double> ms) {
  std::sort(ms.begin(), ms.end());
  auto rank = [&](double p) {
    size_t k = static_cast<size_t>(std::ceil(p / 100.0 * ms.size()));
    return ms[std::max<size_t>(k, 1) - 1];
  };
  Latency l;
  for (double v : ms)
    l.mean += v;
  l.mean /= ms.size();
  l.p50 = rank(50);
  l.p90 = rank(90);
  l.min = ms.front();
  return l;
}

/// This process's place in the job: the world communicator (null when no
/// launcher started it: one process), its transport, its rank and the
/// ranks on its node.
struct Job {
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
int defaultThreads(const Job &job) {
  int hardware = int(std::max(1u, std::thread::hardware_concurrency()));
  int local = job.localSize > 0 ? job.localSize : job.size;
  return std::max(1, hardware / std::max(1, local));
}

/// What happens before the program runs, on each rank; an Error when a
/// check fails.
struct Prepared {
  std::unique_ptr<Artifact> artifact;
  /// A pipelined artifact (manifest version 4) instead.
  std::unique_ptr<Pipeline> pipeline;
  std::vector<Tensor> inputs; // this rank's blocks
  std::vector<std::string> outputPaths;
  std::ofstream report;
};

void checkRanks(const Options &o, const Job &job) {
  if (o.ranks && o.ranks != job.size)
    throw Error("-n " + std::to_string(o.ranks) + " but this job has " +
                std::to_string(job.size) + " rank" +
                (job.size == 1 ? "" : "s"));
}

void prepareOutputs(const Options &o, const Job &job, const Manifest &m,
                    Prepared &p);

void prepare(const Options &o, const Job &job, Prepared &p) {
  checkRanks(o, job);
  p.artifact = Artifact::load(o.artifact, o.program, job.world);
  Context &context = p.artifact->getContext();
  if (o.memoryLimit)
    context.setMemoryLimit(*o.memoryLimit);
  const Manifest &m = p.artifact->getManifest();
  p.inputs = readInputs(o, m, p.artifact.get());
  prepareOutputs(o, job, m, p);
}

/// The artifact's manifest has a pipeline (version 4): false when it cannot
/// be read (Artifact::load then says why).
bool isPipelinedArtifact(const std::string &directory) {
  std::string path =
      (std::filesystem::path(directory) / telar_artifact::kManifestFileName)
          .string();
  std::ifstream in(path);
  if (!in)
    return false;
  std::string text((std::istreambuf_iterator<char>(in)),
                   std::istreambuf_iterator<char>());
  try {
    return Manifest::parse(text, path).isPipelined();
  } catch (const std::exception &) {
    return false;
  }
}

/// A pipeline's checks before the world splits (not collective).
void openPipeline(const Options &o, const Job &job, Prepared &p) {
  checkRanks(o, job);
  if (!o.program.empty())
    throw Error("--program does not apply to the pipelined artifact '" +
                o.artifact + "' (each of its stages has its program)");
  p.pipeline = Pipeline::open(o.artifact, job.world);
}

/// The rest, once every rank opened it: the world splits (collective), the
/// rank loads its stages and reads the inputs.
void loadPipeline(const Options &o, const Job &job, Prepared &p) {
  Pipeline &pipeline = *p.pipeline;
  pipeline.load();
  if (o.memoryLimit)
    pipeline.setMemoryLimit(*o.memoryLimit);
  const Manifest &m = pipeline.getManifest();
  p.inputs = readInputs(o, m, nullptr);
  pipeline.setInputs(p.inputs);
  prepareOutputs(o, job, m, p);
}

void prepareOutputs(const Options &o, const Job &job, const Manifest &m,
                    Prepared &p) {
  // Output files (rank 0 writes them): distinct names, a directory that
  // exists.
  if (!o.outputDir.empty()) {
    std::map<std::string, std::string> taken;
    for (const TensorSpec &s : m.outputs) {
      std::string file = sanitize(s.name) + "." + o.format;
      auto [it, fresh] = taken.emplace(file, s.name);
      if (!fresh)
        throw Error("outputs '" + it->second + "' and '" + s.name +
                    "' would both be written to " + file);
      p.outputPaths.push_back(
          (std::filesystem::path(o.outputDir) / file).string());
    }
    if (job.rank == 0) {
      std::error_code ec;
      std::filesystem::create_directories(o.outputDir, ec);
      if (ec || !std::filesystem::is_directory(o.outputDir))
        throw Error("cannot create output directory '" + o.outputDir + "'" +
                    (ec ? ": " + ec.message() : ""));
    }
  }
  if (!o.report.empty() && job.rank == 0) {
    p.report.open(o.report);
    if (!p.report)
      throw Error("cannot write report '" + o.report +
                  "': " + std::strerror(errno));
  }
}

/// Every rank says whether its checks passed (`problem` empty); when one
/// failed, each prints its own problem, or the first failed rank's, and
/// false comes back once all have (collective over the world).
bool agree(const Job &job, const std::string &problem) {
  comm::Watchdog::setPhase("agreeing that every rank passed its checks");
  std::vector<int32_t> failed =
      allGather<int32_t>(job, {problem.empty() ? 0 : 1}, comm::DataType::I32);
  std::string failedRanks;
  for (int r = 0; r < job.size; ++r)
    if (failed[r])
      failedRanks += (failedRanks.empty() ? "" : ", ") + std::to_string(r);
  // The first failed rank's problem, for the others to name (a corrupt
  // weight file of one rank: every rank says which).
  std::string firstProblem;
  int firstFailed = -1;
  for (int r = 0; r < job.size && firstFailed < 0; ++r)
    if (failed[r])
      firstFailed = r;
  if (job.world && firstFailed >= 0) {
    constexpr size_t kProblemBytes = 1024;
    std::vector<char> text(kProblemBytes, 0);
    if (job.rank == firstFailed)
      std::memcpy(text.data(), problem.data(),
                  std::min(problem.size(), kProblemBytes - 1));
    comm::WaitScope wait("broadcast", "the world");
    job.world->broadcast(text.data(), int64_t(kProblemBytes),
                         comm::DataType::I8, firstFailed);
    firstProblem = text.data();
  }
  if (!failedRanks.empty()) {
    std::fflush(stdout);
    if (!problem.empty())
      std::fprintf(stderr, "telar-run: error: %s%s\n", job.prefix().c_str(),
                   problem.c_str());
    else
      std::fprintf(stderr,
                   "telar-run: error: %snot running: rank%s %s failed "
                   "%s checks (rank %d: %s)\n",
                   job.prefix().c_str(),
                   failedRanks.find(',') == std::string::npos ? "" : "s",
                   failedRanks.c_str(),
                   failedRanks.find(',') == std::string::npos ? "its"
                                                              : "their",
                   firstFailed, firstProblem.c_str());
    // mpirun ends the job when a rank exits non-zero: none exits before
    // every rank has said what went wrong.
    std::fflush(stderr);
    if (job.world) {
      comm::WaitScope wait("barrier", "the world");
      job.world->barrier();
    }
    comm::Watchdog::endCollectives();
    return false;
  }
  return true;
}

/// On rank 0: writes or summarises the whole outputs, then the peak
/// intermediate memory line.
void printOutputs(const Options &o, const Job &job, const Prepared &p,
                  const Manifest &m, const std::vector<Tensor> &global,
                  size_t maxPeak) {
  for (size_t i = 0; i < global.size(); ++i) {
    const TensorSpec &s = m.outputs[i];
    if (!p.outputPaths.empty()) {
      if (o.format == "pb")
        writeTensorProto(p.outputPaths[i], s.name, s.dtype, s.shape,
                         global[i].data());
      else
        writeNpy(p.outputPaths[i], s.dtype, s.shape, global[i].data());
      if (!o.quiet)
        std::printf("output '%s': %s -> %s\n", s.name.c_str(),
                    s.typeString().c_str(), p.outputPaths[i].c_str());
    } else if (!o.quiet) {
      std::printf("output '%s': %s\n", s.name.c_str(),
                  summarize(global[i]).c_str());
    }
  }
  if (!o.quiet) {
    std::string peakText = formatBytes(maxPeak);
    if (job.multi())
      peakText += " (the most of one rank)";
    int64_t bound = m.largestLiveSetBytes;
    if (bound >= 0)
      std::printf("peak intermediate memory: %s (largest live set of the "
                  "graph: %s)\n",
                  peakText.c_str(), formatBytes(bound).c_str());
    else
      std::printf("peak intermediate memory: %s\n", peakText.c_str());
  }
}

/// The --report fields of every run (after "artifact" and its kind's own):
/// latency, runs, threads, memory and sizes. `weightsBytes` and
/// `prepackedBytes` are this rank's.
void addRunReportFields(nlohmann::ordered_json &j, const Options &o,
                        const Manifest &m, const Latency &latency,
                        int iterations, int threads, size_t maxPeak,
                        size_t weightsBytes, size_t prepackedBytes) {
  size_t ioBytes = 0;
  for (const TensorSpec &s : m.inputs)
    ioBytes += s.byteSize();
  for (const TensorSpec &s : m.outputs)
    ioBytes += s.byteSize();
  struct rusage usage;
  getrusage(RUSAGE_SELF, &usage);
  j["latency_ms"] = {{"mean", latency.mean},
                     {"p50", latency.p50},
                     {"p90", latency.p90},
                     {"min", latency.min}};
  j["iterations"] = iterations;
  j["warmup"] = o.bench ? o.warmup : 0;
  j["threads"] = threads;
  j["peak_intermediate_bytes"] = maxPeak;
  if (m.largestLiveSetBytes >= 0)
    j["largest_live_set_bytes"] = m.largestLiveSetBytes;
  j["weights_bytes"] = weightsBytes;
  // The weights' packed copies (GEMM operands packed once, kept).
  j["prepacked_bytes"] = prepackedBytes;
  j["io_bytes"] = ioBytes;
  // ru_maxrss is in KiB on Linux.
  j["peak_rss_bytes"] = static_cast<int64_t>(usage.ru_maxrss) * 1024;
}

int runPipeline(const Options &o, const Job &job, Prepared &p, int threads);

/// --profile-kernels: the kernels' entries by time per run, largest first.
std::vector<KernelProfileEntry>
byTime(std::vector<KernelProfileEntry> kernels) {
  std::stable_sort(kernels.begin(), kernels.end(),
                   [](const KernelProfileEntry &a, const KernelProfileEntry &b) {
                     return a.seconds > b.seconds;
                   });
  return kernels;
}

/// --profile-kernels' table (`kernels` by time, byTime): per kernel and
/// shape, ms and calls per run and the share of this rank's mean latency;
/// then the time outside them.
void printKernelProfile(const std::vector<KernelProfileEntry> &kernels,
                        int iterations, double meanMs, bool multi) {
  double totalMs = 0;
  for (const KernelProfileEntry &e : kernels)
    totalMs += e.seconds * 1e3 / iterations;
  std::printf("kernels%s, per run: %s ms of %s ms (%.1f%%) in %zu kernel "
              "shapes; %s ms outside them (generated code, allocation)\n",
              multi ? " (rank 0)" : "", formatMs(totalMs).c_str(),
              formatMs(meanMs).c_str(),
              meanMs > 0 ? 100.0 * totalMs / meanMs : 0.0, kernels.size(),
              formatMs(std::max(0.0, meanMs - totalMs)).c_str());
  std::printf("  %9s %7s %6s  %-29s %s\n", "ms/run", "calls", "%", "kernel",
              "shape");
  for (const KernelProfileEntry &e : kernels) {
    double ms = e.seconds * 1e3 / iterations;
    std::printf("  %9s %7g %6.1f  %-29s %s\n", formatMs(ms).c_str(),
                double(e.calls) / iterations,
                meanMs > 0 ? 100.0 * ms / meanMs : 0.0, e.kernel.c_str(),
                e.shape.c_str());
  }
}

/// --profile-kernels' --report fields (`kernels` by time, byTime).
void addKernelReportFields(nlohmann::ordered_json &j,
                           const std::vector<KernelProfileEntry> &kernels,
                           int iterations) {
  nlohmann::ordered_json list = nlohmann::ordered_json::array();
  double totalMs = 0;
  for (const KernelProfileEntry &e : kernels) {
    double ms = e.seconds * 1e3 / iterations;
    totalMs += ms;
    list.push_back({{"kernel", e.kernel},
                    {"shape", e.shape},
                    {"calls_per_run", double(e.calls) / iterations},
                    {"ms_per_run", ms}});
  }
  j["kernels_ms_per_run"] = totalMs;
  j["kernels"] = list;
}

/// Statistics of one axis set, per run: calls, bytes sent, seconds.
constexpr int kStatFields = 3;

int run(const Options &o, const Job &job) {
  int threads = o.threads ? o.threads : defaultThreads(job);
  telarrt_set_num_threads(threads);

  // Every rank checks everything, then all agree before any runs: a rank
  // that failed must not leave the others waiting in a collective. A
  // pipeline agrees twice: on its manifests before the world splits, then
  // on its stages and the inputs.
  Prepared p;
  std::string problem;
  bool pipelined = false;
  try {
    pipelined = isPipelinedArtifact(o.artifact);
    if (pipelined)
      openPipeline(o, job, p);
    else
      prepare(o, job, p);
  } catch (const std::exception &e) {
    problem = e.what();
    if (problem.empty())
      problem = "unknown error";
  }
  if (!agree(job, problem))
    return 1;
  if (pipelined) {
    try {
      if (o.profileKernels)
        throw Error("--profile-kernels does not support pipelined artifacts");
      loadPipeline(o, job, p);
    } catch (const std::exception &e) {
      problem = e.what();
      if (problem.empty())
        problem = "unknown error";
    }
    if (!agree(job, problem))
      return 1;
    return runPipeline(o, job, p, threads);
  }

  Artifact &artifact = *p.artifact;
  Context &context = artifact.getContext();
  const Manifest &m = artifact.getManifest();
  comm::MeshCommunicator *mesh = artifact.getMeshCommunicator();
  std::vector<Tensor> outputs = artifact.allocateOutputs();
  std::vector<const void *> in;
  std::vector<void *> out;
  for (const Tensor &t : p.inputs)
    in.push_back(t.data());
  for (Tensor &t : outputs)
    out.push_back(t.data());

  // A run that fails on one rank would leave the others waiting in a
  // collective: it ends the whole job.
  auto runOnce = [&] {
    try {
      artifact.run(in, out);
    } catch (const RunError &e) {
      // A collective failed because a peer did (Gloo notices a closed
      // connection): the liveness channel names that rank, and ends this
      // one, within moments.
      if (job.multi() && e.getStatus() == TELAR_STATUS_COMM_ERROR)
        comm::Watchdog::awaitVerdict(4.0);
      std::fflush(stdout);
      std::fprintf(stderr, "telar-run: error: %s%s\n", job.prefix().c_str(),
                   e.what());
      if (job.multi()) {
        comm::Watchdog::reportFailure(e.what());
        job.abort(3);
      }
      throw;
    }
  };

  using Clock = std::chrono::steady_clock;
  int iterations = o.bench ? o.bench : 1;
  int warmup = o.bench ? o.warmup : 0;
  int64_t steps = int64_t(warmup) + iterations;
  // Each run is a step: the watchdog names it, --verbose prints it.
  auto step = [&](int64_t number, const char *kind, bool begun = false) {
    if (!begun)
      comm::Watchdog::beginStep(number, steps);
    Clock::time_point start = Clock::now();
    runOnce();
    double ms =
        std::chrono::duration<double, std::milli>(Clock::now() - start)
            .count();
    if (o.verbose)
      std::fprintf(stderr, "telar-run: %sstep %" PRId64 "/%" PRId64
                           " (%s) done in %s ms\n",
                   job.prefix().c_str(), number, steps, kind,
                   formatMs(ms).c_str());
    return ms;
  };
  Clock::time_point runsStart = Clock::now();
  for (int i = 0; i < warmup; ++i)
    step(i + 1, "warmup");
  context.resetPeakBytes();
  if (mesh)
    mesh->resetStats();
  if (o.profileKernels)
    context.setKernelProfiling(true);
  std::vector<double> times;
  comm::Watchdog::setPhase("starting the timed runs");
  if (job.world) {
    comm::WaitScope wait("barrier", "the world");
    job.world->barrier();
  }
  Clock::time_point benchStart = Clock::now();
  for (int i = 0; i < iterations; ++i) {
    // The ranks start each timed run together.
    if (job.world && o.bench) {
      comm::Watchdog::beginStep(warmup + i + 1, steps);
      comm::WaitScope wait("barrier", "the world");
      job.world->barrier();
    }
    times.push_back(step(warmup + i + 1, o.bench ? "timed" : "run",
                         /*begun=*/job.world && o.bench));
  }
  double totalSeconds =
      std::chrono::duration<double>(Clock::now() - benchStart).count();
  // Every rank's time for all its runs, warmup included.
  std::vector<double> perRankSeconds = allGather<double>(
      job,
      {std::chrono::duration<double>(Clock::now() - runsStart).count()},
      comm::DataType::F64);
  comm::Watchdog::setPhase("collecting the statistics");
  size_t peak = context.getPeakBytes();
  Latency myLatency = summarizeTimes(times);
  std::vector<KernelProfileEntry> kernels =
      byTime(context.getKernelProfile());
  context.setKernelProfiling(false);

  // The slowest rank's time of each run; per rank its latency, time and
  // calls inside collectives and its peak memory; per axis set the
  // collectives' calls, bytes and time (per run).
  std::vector<double> slowest = times;
  if (job.world) {
    comm::WaitScope wait("all_reduce", "the world");
    job.world->allReduce(times.data(), slowest.data(), int64_t(times.size()),
                         comm::DataType::F64, comm::ReduceOp::Max);
    job.world->allReduce(&totalSeconds, &totalSeconds, 1, comm::DataType::F64,
                         comm::ReduceOp::Max);
  }
  Latency latency = summarizeTimes(slowest);
  comm::AxisSetStats total = mesh ? mesh->getTotalStats() : comm::AxisSetStats{};
  std::vector<double> mine = {myLatency.mean, total.seconds * 1e3 / iterations,
                              double(total.calls) / iterations,
                              double(total.bytesSent) / iterations,
                              double(peak)};
  std::vector<double> perRank = allGather(job, mine, comm::DataType::F64);
  size_t numSets = mesh ? size_t(1) << mesh->getAxisSizes().size() : 0;
  std::vector<double> setStats(numSets * kStatFields, 0.0);
  if (mesh)
    for (const auto &[axes, st] : mesh->getStats()) {
      setStats[axes * kStatFields + 0] = double(st.calls) / iterations;
      setStats[axes * kStatFields + 1] = double(st.bytesSent) / iterations;
      setStats[axes * kStatFields + 2] = st.seconds * 1e3 / iterations;
    }
  std::vector<double> allSets = allGather(job, setStats, comm::DataType::F64);
  const size_t kRankFields = mine.size();

  // The whole outputs, on rank 0.
  comm::Watchdog::setPhase("gathering the outputs");
  std::vector<Tensor> global;
  {
    comm::WaitScope wait("gather", "the world");
    global = artifact.gatherOutputs(outputs);
  }
  comm::Watchdog::setPhase("finishing");
  comm::Watchdog::endCollectives();
  if (job.rank != 0)
    return 0;
  // Several ranks: one line for the whole run (--verbose printed a line per
  // rank and step already).
  if (job.multi() && !o.quiet)
    std::fprintf(stderr,
                 "telar-run: %d ranks (%s): %" PRId64 " run%s in %.3f s "
                 "(the slowest rank)\n",
                 job.size, job.world->getBackendName(), steps,
                 steps == 1 ? "" : "s",
                 *std::max_element(perRankSeconds.begin(),
                                   perRankSeconds.end()));

  size_t maxPeak = 0;
  for (int r = 0; r < job.size; ++r)
    maxPeak = std::max(maxPeak, size_t(perRank[r * kRankFields + 4]));
  printOutputs(o, job, p, m, global, maxPeak);
  if (o.bench) {
    if (job.multi())
      std::printf("benchmark: %d runs after %d warmup runs, %d ranks x %d "
                  "threads\n",
                  o.bench, o.warmup, job.size, threads);
    else
      std::printf("benchmark: %d runs after %d warmup runs, %d threads\n",
                  o.bench, o.warmup, threads);
    std::printf("latency (ms%s): mean %s  p50 %s  p90 %s  min %s\n",
                job.multi() ? ", the slowest rank of each run" : "",
                formatMs(latency.mean).c_str(), formatMs(latency.p50).c_str(),
                formatMs(latency.p90).c_str(), formatMs(latency.min).c_str());
    std::printf("throughput: %.2f runs/s\n",
                totalSeconds > 0 ? iterations / totalSeconds : 0.0);
    if (mesh)
      for (int r = 0; r < job.size; ++r) {
        const double *v = &perRank[r * kRankFields];
        std::printf("rank %d: latency mean %s ms, in collectives %s ms "
                    "(%.1f%%, %g calls, %s sent) per run\n",
                    r, formatMs(v[0]).c_str(), formatMs(v[1]).c_str(),
                    v[0] > 0 ? 100.0 * v[1] / v[0] : 0.0, v[2],
                    formatBytes(size_t(v[3])).c_str());
      }
  }
  // Per axis set, summed or maxed over the ranks.
  struct SetSummary {
    comm::AxisSet axes;
    double calls = 0, bytesTotal = 0, bytesMax = 0, msMax = 0;
  };
  std::vector<SetSummary> sets;
  for (size_t a = 0; a < numSets; ++a) {
    SetSummary sum{comm::AxisSet(a)};
    for (int r = 0; r < job.size; ++r) {
      const double *v = &allSets[(r * numSets + a) * kStatFields];
      sum.calls = std::max(sum.calls, v[0]);
      sum.bytesTotal += v[1];
      sum.bytesMax = std::max(sum.bytesMax, v[1]);
      sum.msMax = std::max(sum.msMax, v[2]);
    }
    if (sum.calls > 0)
      sets.push_back(sum);
  }
  auto axisNames = [&](comm::AxisSet axes) {
    std::vector<std::string> names;
    for (size_t i = 0; i < m.mesh.axisNames.size(); ++i)
      if (axes & (comm::AxisSet(1) << i))
        names.push_back(m.mesh.axisNames[i]);
    return names;
  };
  if (o.bench && mesh)
    for (const SetSummary &sum : sets) {
      std::string names;
      for (const std::string &n : axisNames(sum.axes))
        names += (names.empty() ? "" : ",") + n;
      std::printf("collectives on {%s}: %g calls, %s sent by the busiest rank, "
                  "%s in all, %s ms (slowest rank) per run\n",
                  names.c_str(), sum.calls,
                  formatBytes(size_t(sum.bytesMax)).c_str(),
                  formatBytes(size_t(sum.bytesTotal)).c_str(),
                  formatMs(sum.msMax).c_str());
    }

  if (o.profileKernels)
    printKernelProfile(kernels, iterations, myLatency.mean, job.multi());

  if (p.report.is_open()) {
    nlohmann::ordered_json j;
    j["artifact"] = artifact.getDirectory();
    j["program"] = artifact.getProgram().name;
    addRunReportFields(j, o, m, latency, iterations, threads, maxPeak,
                       artifact.getWeightsBytes(),
                       artifact.getPrepackedBytes());
    if (o.profileKernels)
      addKernelReportFields(j, kernels, iterations);
    if (mesh) {
      j["world_size"] = job.size;
      nlohmann::ordered_json meshJson;
      for (size_t i = 0; i < m.mesh.axisNames.size(); ++i)
        meshJson[m.mesh.axisNames[i]] = m.mesh.axisSizes[i];
      j["mesh"] = meshJson;
      nlohmann::ordered_json ranks = nlohmann::ordered_json::array();
      for (int r = 0; r < job.size; ++r) {
        const double *v = &perRank[r * kRankFields];
        ranks.push_back({{"rank", r},
                         {"latency_mean_ms", v[0]},
                         {"collective_ms_per_run", v[1]},
                         {"collective_calls_per_run", v[2]},
                         {"bytes_sent_per_run", int64_t(v[3])},
                         {"peak_intermediate_bytes", int64_t(v[4])}});
      }
      j["ranks"] = ranks;
      nlohmann::ordered_json collectives = nlohmann::ordered_json::array();
      for (const SetSummary &sum : sets)
        collectives.push_back(
            {{"axes", axisNames(sum.axes)},
             {"calls_per_run", sum.calls},
             {"bytes_sent_per_run_max_rank", int64_t(sum.bytesMax)},
             {"bytes_sent_per_run_all_ranks", int64_t(sum.bytesTotal)},
             {"ms_per_run_max_rank", sum.msMax}});
      j["collectives"] = collectives;
    }
    p.report << j.dump(2) << "\n";
    p.report.close();
    if (!p.report)
      throw Error("cannot write report '" + o.report + "'");
  }
  return 0;
}

/// Runs a pipelined artifact (Pipeline.h): each run follows this rank's
/// schedule steps once; the ranks start each run together (a barrier), so
/// a run's latency -- the slowest rank's -- is the whole batch's time
/// through the pipeline.
int runPipeline(const Options &o, const Job &job, Prepared &p, int threads) {
  Pipeline &pipeline = *p.pipeline;
  const Manifest &m = pipeline.getManifest();
  const PipelineSpec &spec = pipeline.getSpec();
  using Clock = std::chrono::steady_clock;
  int iterations = o.bench ? o.bench : 1;
  int warmup = o.bench ? o.warmup : 0;
  int64_t steps = int64_t(warmup) + iterations;
  size_t numSteps = pipeline.getSteps().size();
  int64_t run = 0;
  Pipeline::StepObserver observer;
  if (o.verbose)
    observer = [&](size_t index, const PipelineStepSpec &step, double seconds) {
      std::fprintf(stderr,
                   "telar-run: %srun %" PRId64 "/%" PRId64
                   ", schedule step %zu/%zu: %s in %s ms\n",
                   job.prefix().c_str(), run, steps, index + 1, numSteps,
                   pipeline.describeStep(step).c_str(),
                   formatMs(seconds * 1e3).c_str());
    };
  // A stage program that fails on one rank would leave the others waiting
  // in a transfer: it ends the whole job (as run() does).
  auto runOnce = [&]() -> PipelineStats {
    try {
      return pipeline.run(observer);
    } catch (const RunError &e) {
      if (job.multi() && e.getStatus() == TELAR_STATUS_COMM_ERROR)
        comm::Watchdog::awaitVerdict(4.0);
      std::fflush(stdout);
      std::fprintf(stderr, "telar-run: error: %s%s\n", job.prefix().c_str(),
                   e.what());
      if (job.multi()) {
        comm::Watchdog::reportFailure(e.what());
        job.abort(3);
      }
      throw;
    }
  };

  std::vector<double> times;
  double busy = 0, wait = 0, own = 0, bytesSent = 0, messages = 0;
  Clock::time_point runsStart = Clock::now(), benchStart = runsStart;
  for (run = 1; run <= steps; ++run) {
    bool timed = run > warmup;
    if (run == warmup + 1) {
      pipeline.resetPeakBytes();
      pipeline.resetCollectiveStats();
      comm::Watchdog::setPhase("starting the timed runs");
    }
    comm::Watchdog::beginStep(run, steps);
    if (job.world) {
      comm::WaitScope scope("barrier", "the world");
      job.world->barrier();
    }
    if (run == warmup + 1)
      benchStart = Clock::now();
    PipelineStats stats = runOnce();
    if (o.verbose)
      std::fprintf(stderr,
                   "telar-run: %sstep %" PRId64 "/%" PRId64
                   " (%s) done in %s ms (in stage programs %s ms, in "
                   "transfers %s ms)\n",
                   job.prefix().c_str(), run, steps,
                   !o.bench ? "run"
                   : timed  ? "timed"
                            : "warmup",
                   formatMs(stats.wallSeconds * 1e3).c_str(),
                   formatMs(stats.busySeconds * 1e3).c_str(),
                   formatMs(stats.waitSeconds * 1e3).c_str());
    if (!timed)
      continue;
    times.push_back(stats.wallSeconds * 1e3);
    busy += stats.busySeconds;
    wait += stats.waitSeconds;
    own += stats.wallSeconds;
    bytesSent += double(stats.bytesSent);
    messages += double(stats.messagesSent);
  }
  double totalSeconds =
      std::chrono::duration<double>(Clock::now() - benchStart).count();
  std::vector<double> perRankSeconds = allGather<double>(
      job, {std::chrono::duration<double>(Clock::now() - runsStart).count()},
      comm::DataType::F64);
  comm::Watchdog::setPhase("collecting the statistics");
  // A run's latency: its slowest rank's (every rank started it together).
  std::vector<double> slowest = times;
  if (job.world) {
    comm::WaitScope scope("all_reduce", "the world");
    job.world->allReduce(times.data(), slowest.data(), int64_t(times.size()),
                         comm::DataType::F64, comm::ReduceOp::Max);
    job.world->allReduce(&totalSeconds, &totalSeconds, 1, comm::DataType::F64,
                         comm::ReduceOp::Max);
  }
  Latency latency = summarizeTimes(slowest);
  Latency myLatency = summarizeTimes(times);
  comm::AxisSetStats collectives = pipeline.getCollectiveStats();
  // Per rank, per run: own latency, seconds in stage programs, in
  // transfers, own wall, collective ms/calls/bytes, p2p bytes/messages,
  // peak.
  std::vector<double> mine = {myLatency.mean,
                              busy / iterations,
                              wait / iterations,
                              own / iterations,
                              collectives.seconds * 1e3 / iterations,
                              double(collectives.calls) / iterations,
                              double(collectives.bytesSent) / iterations,
                              bytesSent / iterations,
                              messages / iterations,
                              double(pipeline.getPeakBytes())};
  const size_t kFields = mine.size();
  std::vector<double> perRank = allGather(job, mine, comm::DataType::F64);

  comm::Watchdog::setPhase("gathering the outputs");
  std::vector<Tensor> global = pipeline.gatherOutputs();
  comm::Watchdog::setPhase("finishing");
  comm::Watchdog::endCollectives();
  if (job.rank != 0)
    return 0;
  std::string shape =
      std::to_string(spec.getNumStages()) + " stage" +
      (spec.getNumStages() == 1 ? "" : "s") + " x " +
      std::to_string(spec.microbatches) + " microbatch" +
      (spec.microbatches == 1 ? "" : "es") + " (" + spec.schedule +
      (spec.virtualStages > 1
           ? ", " + std::to_string(spec.virtualStages) + " virtual stages"
           : std::string()) +
      ")";
  if (job.multi() && !o.quiet)
    std::fprintf(
        stderr,
        "telar-run: %d ranks (%s), a pipeline of %s: %" PRId64
        " run%s in %.3f s (the slowest rank)\n",
        job.size, job.world->getBackendName(), shape.c_str(), steps,
        steps == 1 ? "" : "s",
        *std::max_element(perRankSeconds.begin(), perRankSeconds.end()));
  size_t maxPeak = 0;
  for (int r = 0; r < job.size; ++r)
    maxPeak = std::max(maxPeak, size_t(perRank[r * kFields + 9]));
  printOutputs(o, job, p, m, global, maxPeak);

  // Per rank: its stages, and the share of the batch's time (the slowest
  // rank's per run) it spent outside its stage programs.
  double wall = latency.mean / 1e3;
  auto stagesOf = [&](int r) {
    std::vector<int64_t> list;
    int64_t q = spec.getPositionOfRank(r);
    for (int64_t s = q; s < spec.getNumStages(); s += spec.getNumPositions())
      list.push_back(s);
    return list;
  };
  auto idleOf = [&](int r) {
    double b = perRank[r * kFields + 1];
    return wall > 0 ? std::max(0.0, 1.0 - b / wall) : 0.0;
  };
  if (o.bench) {
    std::printf("benchmark: %d runs after %d warmup runs, %d rank%s x %d "
                "threads, a pipeline of %s\n",
                o.bench, o.warmup, job.size, job.size == 1 ? "" : "s", threads,
                shape.c_str());
    std::printf("latency (ms, the whole batch through the pipeline): mean %s"
                "  p50 %s  p90 %s  min %s\n",
                formatMs(latency.mean).c_str(), formatMs(latency.p50).c_str(),
                formatMs(latency.p90).c_str(), formatMs(latency.min).c_str());
    std::printf("throughput: %.2f runs/s\n",
                totalSeconds > 0 ? iterations / totalSeconds : 0.0);
    for (int r = 0; r < job.size; ++r) {
      const double *v = &perRank[r * kFields];
      std::string stages;
      for (int64_t s : stagesOf(r))
        stages += (stages.empty() ? "" : ",") + std::to_string(s);
      std::printf("rank %d (stage%s %s): in stage programs %s ms, in "
                  "transfers %s ms (%g messages, %s sent), idle %.1f%% of "
                  "the batch's time, per run\n",
                  r, stagesOf(r).size() == 1 ? "" : "s", stages.c_str(),
                  formatMs(v[1] * 1e3).c_str(), formatMs(v[2] * 1e3).c_str(),
                  v[8], formatBytes(size_t(v[7])).c_str(), 100.0 * idleOf(r));
    }
  }

  if (p.report.is_open()) {
    nlohmann::ordered_json j;
    j["artifact"] = pipeline.getDirectory();
    j["pipeline"] = {{"stages", spec.getNumStages()},
                     {"microbatches", spec.microbatches},
                     {"schedule", spec.schedule},
                     {"virtual_stages", spec.virtualStages}};
    // Weights: rank 0's stages.
    addRunReportFields(j, o, m, latency, iterations, threads, maxPeak,
                       pipeline.getWeightsBytes(),
                       pipeline.getPrepackedBytes());
    j["world_size"] = job.size;
    nlohmann::ordered_json ranks = nlohmann::ordered_json::array();
    for (int r = 0; r < job.size; ++r) {
      const double *v = &perRank[r * kFields];
      ranks.push_back({{"rank", r},
                       {"stages", stagesOf(r)},
                       {"latency_mean_ms", v[0]},
                       {"collective_ms_per_run", v[4]},
                       {"collective_calls_per_run", v[5]},
                       {"bytes_sent_per_run", int64_t(v[6] + v[7])},
                       {"peak_intermediate_bytes", int64_t(v[9])},
                       {"pipeline",
                        {{"busy_s", v[1]},
                         {"wait_s", v[2]},
                         {"wall_s", wall},
                         {"idle_fraction", idleOf(r)},
                         {"own_wall_s", v[3]},
                         {"messages_per_run", v[8]},
                         {"transfer_bytes_per_run", int64_t(v[7])}}}});
    }
    j["ranks"] = ranks;
    p.report << j.dump(2) << "\n";
    p.report.close();
    if (!p.report)
      throw Error("cannot write report '" + o.report + "'");
  }
  return 0;
}

} // namespace

int main(int argc, char **argv) {
  Options options = parseArguments(argc, argv);
  // A launcher that ended first (mpirun, after another rank died) closes
  // the pipe of this rank's output: writing there must not kill the rank
  // with SIGPIPE, which would hide its own exit status.
  std::signal(SIGPIPE, SIG_IGN);
  comm::JobEnvironment env;
  try {
    env = comm::detectJobEnvironment();
  } catch (const std::exception &e) {
    std::fprintf(stderr, "telar-run: error: %s\n", e.what());
    return 2;
  }
  if (options.ranks > 1 && env.transport == comm::TransportKind::Local)
    return comm::relaunchUnderMpirun(
        "telar-run", options.ranks, argc, argv,
        "mpirun -np " + std::to_string(options.ranks) +
            " telar-run ..., srun -n " + std::to_string(options.ranks) +
            " telar-run ..., or " + std::to_string(options.ranks) +
            " processes with TELAR_RANK, TELAR_WORLD_SIZE, "
            "TELAR_MASTER_ADDR and TELAR_MASTER_PORT");

  // The job: MPI's world under an MPI launcher, Gloo's through the TCP
  // rendezvous otherwise (with the --timeout).
  Job job;
  job.transport = env.transport;
  comm::World world;
  try {
    auto timeout = std::chrono::milliseconds(std::max<int64_t>(
        1, int64_t(std::llround(options.timeoutSeconds * 1000))));
    world = comm::connectWorld(env, &argc, &argv, timeout);
    if (options.verbose)
      std::fprintf(stderr, "telar-run: %s\n",
                   comm::describeJobEnvironment(env).c_str());
    job.world = world.communicator;
    job.localSize = env.localSize;
    if (job.world) {
      job.rank = job.world->getRank();
      job.size = job.world->getSize();
    }
  } catch (const std::exception &e) {
    std::fflush(stdout);
    std::fprintf(stderr, "telar-run: error: %s%s\n",
                 env.size > 1 ? ("rank " + std::to_string(env.rank) + ": ").c_str()
                              : "",
                 e.what());
    return 1;
  }
  if (job.multi()) {
    // From here no rank waits for another longer than --timeout, and a
    // rank that dies or stops ends the others (Watchdog.h).
    try {
      comm::WatchdogOptions watch;
      watch.rank = job.rank;
      watch.size = job.size;
      watch.timeoutSeconds = options.timeoutSeconds;
      watch.rank0Host = env.masterAddr;
      watch.launcherEndsJob = env.transport == comm::TransportKind::Mpi;
      // Where the network allows only known ports, and for hosts so loaded
      // that 10 s of silence is no sign of a stopped rank.
      if (const char *v = std::getenv("TELAR_LIVENESS_PORT"); v && *v)
        watch.port = std::atoi(v);
      if (const char *v = std::getenv("TELAR_LIVENESS_SECONDS"); v && *v)
        if (double seconds = std::atof(v); seconds > 0)
          watch.livenessSeconds = seconds;
      comm::Watchdog::start(watch);
      comm::Watchdog::connect(*job.world);
      comm::Watchdog::setPhase("checking the artifact and the inputs");
    } catch (const std::exception &e) {
      std::fprintf(stderr, "telar-run: error: %s%s\n", job.prefix().c_str(),
                   e.what());
      job.abort(1);
    }
  }
  int status;
  try {
    status = run(options, job);
  } catch (const RunError &e) {
    // Printed where it happened (a single rank: nothing else runs).
    status = 3;
  } catch (const std::exception &e) {
    // A collective that failed because a peer did: the liveness channel
    // names it (and ends this process) within moments.
    if (job.multi() && dynamic_cast<const comm::CommError *>(&e))
      comm::Watchdog::awaitVerdict(4.0);
    std::fflush(stdout);
    std::fprintf(stderr, "telar-run: error: %s%s\n", job.prefix().c_str(),
                 e.what());
    // Others may wait for this rank in a collective.
    if (job.multi()) {
      comm::Watchdog::reportFailure(e.what());
      job.abort(1);
    }
    status = 1;
  }
  // Over Gloo, no rank closes its connections while rank 0 may still be
  // reading what it sent (MPI_Finalize does this under MPI).
  if (env.transport == comm::TransportKind::Gloo && job.world) {
    try {
      comm::WaitScope wait("barrier", "the world");
      job.world->barrier();
    } catch (const std::exception &e) {
      std::fprintf(stderr, "telar-run: error: %s%s\n", job.prefix().c_str(),
                   e.what());
      status = status ? status : 1;
    }
  }
  comm::Watchdog::finish();
  job.world.reset();
  comm::disconnectWorld(world);
  return status;
}
