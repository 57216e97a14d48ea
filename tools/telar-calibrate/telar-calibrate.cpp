//===- telar-calibrate.cpp - Measure a hardware profile -------------------===//
//
//   telar-calibrate -n N [-o profile.json] [--name NAME] [--quick]
//                   [--threads T] [--node-size K] [-q] [--help] [--version]
//
// Measures the machine it runs on and writes a hardware profile
// (docs/Profile.md) for the planner's cost model: on every rank at once (a
// device is one rank with its share of the hardware threads) the f32 GEMM
// FLOP/s of the runtime's own kernels, the memory bandwidth (STREAM copy and
// triad on buffers much larger than the caches) and the fixed cost of a tiny
// op; then, with N >= 2 ranks, the time of each collective (all_reduce,
// all_gather, reduce_scatter, all_to_all over all ranks, through the
// runtime's MeshCommunicator, as compiled programs call them) for local
// sizes from 1 KiB to 16 MiB, and per collective a least-squares fit
// time = alpha + bytesSent / beta, bytesSent as telar_sharding::getStepBytes
// counts it. `-n N` starts the ranks through mpirun (re-executing this
// program), as telar-run does; under a launcher (mpirun -np N, srun -n N)
// or the TELAR_* variables (TELAR_RANK, TELAR_WORLD_SIZE,
// TELAR_MASTER_ADDR: Gloo through the TCP rendezvous) the ranks are those
// of the job, formed as telar-run forms them (World.h). Rank 0 writes the
// profile.
//
// Exit codes: 0 success, 1 error, 2 usage error.
//
//===----------------------------------------------------------------------===//

#include "telar/planner/Profile.h"
#include "telar/runtime/Abi.h"
#include "telar/runtime/Comm.h"
#include "telar/runtime/MpiComm.h"
#include "telar/runtime/World.h"
#include "telar/sharding/core/Reshard.h"
#include "telar/tools/Flags.h"

#include <algorithm>
#include <cerrno>
#include <cstdarg>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <functional>
#include <memory>
#include <random>
#include <sstream>
#include <string>
#include <thread>
#include <unistd.h>
#include <vector>

#ifndef TELAR_VERSION
#define TELAR_VERSION "0.0.0"
#endif

namespace comm = telar::runtime::comm;
using telar_planner::LinkLevel;
using telar_planner::Profile;
using telar_sharding::StepKind;
using Clock = std::chrono::steady_clock;

/// How long the ranks wait for each other to meet, and a Gloo operation
/// for its peers (a calibration's collectives take well under a second).
constexpr std::chrono::milliseconds kConnectTimeout{300000};

namespace {

constexpr const char *kDescription =
    R"(Measures this machine and writes a hardware profile (docs/Profile.md) for
telarc's planner (--profile FILE). A device is one rank; the ranks run on
this machine (or wherever the launcher puts them) and measure at once:

  compute      f32 GEMM FLOP/s through the runtime's own GEMM kernels, the
               best of a few square-ish sizes (best of several runs each)
  memory       STREAM-like copy and triad on buffers much larger than the
               caches; the profile's memory_bandwidth is the triad's
  op overhead  the time of a tiny op as the runtime runs it (an 8x8x8
               matmul through the kernels' ABI and its output's allocation)
  collectives  (N >= 2) all_reduce, all_gather, reduce_scatter, all_to_all
               over all N ranks through the runtime's communicator, for local
               sizes from 1 KiB to 16 MiB, each fitted to
               time = alpha + bytes sent / beta)";

struct Options {
  int ranks = 0; // 0: not given
  std::string output;
  std::string name = "calibrated";
  bool quick = false;
  int threads = 0;
  int64_t nodeSize = -1; // -1: the number of ranks
  bool quiet = false;
};

Options parseArguments(int argc, char **argv) {
  using telar::tools::flags::UsageError;
  Options o;
  telar::tools::flags::FlagParser flags("telar-calibrate",
                                 "-n N [-o profile.json] [options]");
  flags.setDescription(kDescription);
  flags.setEpilog("Exit status: 0 on success, 1 on errors, 2 on usage "
                  "errors.");
  flags.addInt({"-n", "--ranks"}, "N", o.ranks, 1,
               "measure N devices: N ranks started through mpirun (found on "
               "PATH, or $TELAR_MPIRUN); under a launcher (mpirun, srun), N "
               "must be its number of ranks (default: 1, or the launcher's). "
               "With N = 1 only compute and memory are measured: collectives "
               "need N >= 2");
  flags.addValue({"-o", "--output"}, "FILE",
                 "write the profile to FILE (default: print it on standard "
                 "output, and the progress lines on standard error)",
                 [&o](const std::string &spelled, const std::string &value) {
                   if (value.empty())
                     throw UsageError("option '" + spelled +
                                      "' expects a file name");
                   o.output = value;
                 });
  flags.addString({"--name"}, "NAME", o.name,
                  "the profile's name (default: \"calibrated\")",
                  "option '--name' expects a name");
  flags.addSwitch({"--quick"}, o.quick,
                  "fewer sizes and shorter timings (a few seconds; for "
                  "tests, less precise)");
  flags.addInt({"--threads"}, "T", o.threads, 1,
               "threads per rank for the GEMM and the memory test (default: "
               "what telar-run uses: the hardware threads divided among the "
               "ranks of this machine)");
  flags.addInt64({"--node-size"}, "K", o.nodeSize, 0, INT32_MAX,
                 "devices of the profile's \"node\" level (default: N); 0 "
                 "makes it unbounded, for a machine where any number of "
                 "ranks share memory");
  flags.addSwitch({"-q", "--quiet"}, o.quiet,
                  "no progress lines (the summary is still printed)");
  flags.addAction({"--version"}, "print the version",
                  [] { std::printf("telar-calibrate %s\n", TELAR_VERSION); });
  flags.parseOrExit(argc, argv);
  return o;
}

//===----------------------------------------------------------------------===//
// The job
//===----------------------------------------------------------------------===//

/// This process's place in the job: the world (null with one process), the
/// mesh communicator the collectives run on (a 1-D mesh of every rank).
struct Job {
  std::shared_ptr<comm::Communicator> world;
  std::unique_ptr<comm::MeshCommunicator> mesh;
  int rank = 0;
  int size = 1;
  /// Progress and summary go here on rank 0 (stdout with -o, else stderr).
  FILE *out = stdout;
  bool quiet = false;

  bool multi() const { return size > 1; }
  void barrier() const {
    if (world)
      world->barrier();
  }
  /// The maximum over the ranks of each value.
  std::vector<double> max(std::vector<double> values) const {
    if (world)
      world->allReduce(values.data(), values.data(), int64_t(values.size()),
                       comm::DataType::F64, comm::ReduceOp::Max);
    return values;
  }
  std::vector<double> min(std::vector<double> values) const {
    if (world)
      world->allReduce(values.data(), values.data(), int64_t(values.size()),
                       comm::DataType::F64, comm::ReduceOp::Min);
    return values;
  }
  /// A progress line (rank 0, unless quiet).
  void progress(const char *format, ...) const
      __attribute__((format(printf, 2, 3))) {
    if (rank != 0 || quiet)
      return;
    va_list args;
    va_start(args, format);
    std::vfprintf(out, format, args);
    va_end(args);
    std::fputc('\n', out);
    std::fflush(out);
  }
};

/// Ranks on this machine (OpenMPI and Slurm say how many there are).
int localRanks(const Job &job) {
  for (const char *name : {"OMPI_COMM_WORLD_LOCAL_SIZE", "MPI_LOCALNRANKS",
                           "SLURM_NTASKS_PER_NODE"})
    if (const char *v = std::getenv(name)) {
      int n = std::atoi(v);
      if (n > 0)
        return n;
    }
  return job.size;
}

/// What telar-run uses by default: the hardware threads divided among the
/// ranks of this machine.
int defaultThreads(const Job &job) {
  int hardware = int(std::max(1u, std::thread::hardware_concurrency()));
  return std::max(1, hardware / std::max(1, localRanks(job)));
}

//===----------------------------------------------------------------------===//
// Machine facts
//===----------------------------------------------------------------------===//

std::string cpuModel() {
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  while (std::getline(in, line))
    if (line.rfind("model name", 0) == 0)
      if (size_t colon = line.find(':'); colon != std::string::npos) {
        std::string s = line.substr(colon + 1);
        s.erase(0, s.find_first_not_of(" \t"));
        return s;
      }
  return "unknown CPU";
}

/// Parses "300M", "307200K", "2048" (bytes).
double parseSize(std::string s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back())))
    s.pop_back();
  if (s.empty())
    return 0;
  double scale = 1;
  switch (s.back()) {
  case 'K':
    scale = 1024;
    break;
  case 'M':
    scale = 1024.0 * 1024;
    break;
  case 'G':
    scale = 1024.0 * 1024 * 1024;
    break;
  }
  if (scale != 1)
    s.pop_back();
  return std::atof(s.c_str()) * scale;
}

/// The largest cache of cpu0 (the last level, usually shared), in bytes.
double largestCacheBytes() {
  double largest = 0;
  for (int index = 0; index < 8; ++index) {
    std::ifstream in("/sys/devices/system/cpu/cpu0/cache/index" +
                     std::to_string(index) + "/size");
    std::string size;
    if (in >> size)
      largest = std::max(largest, parseSize(size));
  }
  // Unknown: assume a large server L3.
  return largest > 0 ? largest : 64.0 * 1024 * 1024;
}

/// Physical memory, or the cgroup's limit when smaller.
double machineMemoryBytes() {
  double bytes = double(sysconf(_SC_PHYS_PAGES)) * double(sysconf(_SC_PAGESIZE));
  for (const char *path :
       {"/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory/memory.limit_in_bytes"}) {
    std::ifstream in(path);
    std::string limit;
    if (in >> limit && limit != "max") {
      double v = std::atof(limit.c_str());
      if (v > 0 && v < bytes)
        bytes = v;
    }
  }
  return bytes;
}

std::string utcDate() {
  std::time_t now = std::time(nullptr);
  char buffer[32];
  std::strftime(buffer, sizeof(buffer), "%Y-%m-%d", std::gmtime(&now));
  return buffer;
}

std::string formatRate(double v, const char *unit) {
  const char *prefixes[] = {"", "K", "M", "G", "T", "P"};
  int p = 0;
  while (v >= 1000 && p < 5) {
    v /= 1000;
    ++p;
  }
  char buffer[48];
  std::snprintf(buffer, sizeof(buffer), "%.3g %s%s", v, prefixes[p], unit);
  return buffer;
}

std::string formatBytes(double v) {
  const char *units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  int u = 0;
  while (v >= 1024 && u < 4) {
    v /= 1024;
    ++u;
  }
  char buffer[32];
  std::snprintf(buffer, sizeof(buffer), v == std::floor(v) ? "%.0f %s" : "%.3g %s",
                v, units[u]);
  return buffer;
}

std::string formatSeconds(double s) {
  char buffer[32];
  if (s < 1e-3)
    std::snprintf(buffer, sizeof(buffer), "%.3g us", s * 1e6);
  else if (s < 1)
    std::snprintf(buffer, sizeof(buffer), "%.3g ms", s * 1e3);
  else
    std::snprintf(buffer, sizeof(buffer), "%.3g s", s);
  return buffer;
}

//===----------------------------------------------------------------------===//
// Compute: the runtime's GEMM
//===----------------------------------------------------------------------===//

/// Seconds per call of `f`: the best of `rounds` rounds of at least
/// `minTime / rounds` each (after one untimed call).
double bestTime(const std::function<void()> &f, double minTime, int rounds) {
  f();
  double best = 1e30;
  for (int round = 0; round < rounds; ++round) {
    int calls = 0;
    Clock::time_point start = Clock::now();
    double elapsed;
    do {
      f();
      ++calls;
      elapsed = std::chrono::duration<double>(Clock::now() - start).count();
    } while (elapsed < minTime / rounds);
    best = std::min(best, elapsed / calls);
  }
  return best;
}

std::vector<float> randomValues(size_t n, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(-1, 1);
  std::vector<float> v(n);
  for (float &x : v)
    x = dist(rng);
  return v;
}

const char *gemmKernelName(int kernel) {
  switch (kernel) {
  case TELARRT_GEMM_OPENBLAS:
    return "openblas";
  case TELARRT_GEMM_AVX2:
    return "avx2";
  case TELARRT_GEMM_AVX512:
    return "avx512";
  }
  return "unknown";
}

struct ContextDeleter {
  void operator()(TelarContext *ctx) const { telarrt_context_destroy(ctx); }
};
using ContextPtr = std::unique_ptr<TelarContext, ContextDeleter>;

/// c += a . b through telarrt_matmul_f32, as compiled programs call it.
void matmul(TelarContext *ctx, std::vector<float> &a, std::vector<float> &b,
            std::vector<float> &c, int64_t m, int64_t k, int64_t n) {
  TelarMemRef2F32 da{a.data(), a.data(), 0, {m, k}, {k, 1}};
  TelarMemRef2F32 db{b.data(), b.data(), 0, {k, n}, {n, 1}};
  TelarMemRef2F32 dc{c.data(), c.data(), 0, {m, n}, {n, 1}};
  if (telarrt_matmul_f32(ctx, &da, &db, &dc, TELAR_KERNEL_ACCUMULATE) !=
      TELAR_STATUS_OK)
    throw std::runtime_error(std::string("telarrt_matmul_f32 failed: ") +
                             telarrt_context_error(ctx));
}

struct ComputeResult {
  double flops = 0;      // the profile's f32 peak: best size, slowest rank
  double opOverhead = 0; // seconds
  std::string kernel;
};

ComputeResult measureCompute(const Job &job, const Options &o, int threads) {
  ContextPtr ctx(telarrt_context_create());
  if (!ctx)
    throw std::runtime_error("cannot create a runtime context (out of memory)");
  ComputeResult result;
  result.kernel = gemmKernelName(telarrt_context_get_gemm_kernel(ctx.get()));
  std::vector<int64_t> sizes =
      o.quick ? std::vector<int64_t>{256, 512}
              : std::vector<int64_t>{256, 512, 1024, 2048};
  double minTime = o.quick ? 0.15 : 0.6;
  job.progress("compute: f32 GEMM through the runtime's kernels (%s GEMM, %d "
               "thread%s per rank, %d rank%s at once)",
               result.kernel.c_str(), threads, threads == 1 ? "" : "s",
               job.size, job.size == 1 ? "" : "s");
  for (int64_t s : sizes) {
    std::vector<float> a = randomValues(size_t(s * s), 1);
    std::vector<float> b = randomValues(size_t(s * s), 2);
    std::vector<float> c(size_t(s * s), 0.0f);
    job.barrier();
    double seconds =
        bestTime([&] { matmul(ctx.get(), a, b, c, s, s, s); }, minTime, 3);
    double flops = 2.0 * double(s) * double(s) * double(s) / seconds;
    std::vector<double> low = job.min({flops}), high = job.max({flops});
    job.progress("  %lldx%lldx%lld: %s per rank%s", (long long)s,
                 (long long)s, (long long)s,
                 formatRate(low[0], "FLOP/s").c_str(),
                 job.multi() ? (" (slowest rank; fastest " +
                                formatRate(high[0], "FLOP/s") + ")")
                                   .c_str()
                             : "");
    result.flops = std::max(result.flops, low[0]);
  }

  // A tiny op as the runtime runs it: its output allocated through the
  // context, an 8x8x8 matmul through the kernels' ABI, the output freed.
  {
    constexpr int64_t kTiny = 8;
    std::vector<float> a = randomValues(kTiny * kTiny, 3);
    std::vector<float> b = randomValues(kTiny * kTiny, 4);
    job.barrier();
    double seconds = bestTime(
        [&] {
          auto *c = static_cast<float *>(
              telarrt_alloc(ctx.get(), kTiny * kTiny * sizeof(float)));
          if (!c)
            throw std::runtime_error("telarrt_alloc failed");
          std::memset(c, 0, kTiny * kTiny * sizeof(float));
          TelarMemRef2F32 da{a.data(), a.data(), 0, {kTiny, kTiny}, {kTiny, 1}};
          TelarMemRef2F32 db{b.data(), b.data(), 0, {kTiny, kTiny}, {kTiny, 1}};
          TelarMemRef2F32 dc{c, c, 0, {kTiny, kTiny}, {kTiny, 1}};
          int status = telarrt_matmul_f32(ctx.get(), &da, &db, &dc,
                                          TELAR_KERNEL_ACCUMULATE);
          telarrt_free(ctx.get(), c);
          if (status != TELAR_STATUS_OK)
            throw std::runtime_error("telarrt_matmul_f32 failed");
        },
        o.quick ? 0.05 : 0.2, 5);
    result.opOverhead = job.max({seconds})[0];
    job.progress("  op overhead (an 8x8x8 matmul and its output's "
                 "allocation): %s",
                 formatSeconds(result.opOverhead).c_str());
  }
  return result;
}

//===----------------------------------------------------------------------===//
// Memory: STREAM-like copy and triad
//===----------------------------------------------------------------------===//

struct MemoryResult {
  double copy = 0, triad = 0; // bytes/s per rank, the slowest rank
  double arrayBytes = 0;      // per array, per rank
};

/// Runs body(begin, end) on `threads` threads over [0, n).
void parallelFor(int threads, size_t n,
                 const std::function<void(size_t, size_t)> &body) {
  if (threads <= 1) {
    body(0, n);
    return;
  }
  std::vector<std::thread> pool;
  for (int t = 0; t < threads; ++t)
    pool.emplace_back([&, t] {
      body(n * size_t(t) / size_t(threads), n * size_t(t + 1) / size_t(threads));
    });
  for (std::thread &thread : pool)
    thread.join();
}

MemoryResult measureMemory(const Job &job, const Options &o, int threads) {
  // Every rank's three arrays together at least 4x (quick: 2x) the largest
  // cache, which the ranks of this machine may share; at most 1/8 of a
  // rank's share of the memory.
  double cache = largestCacheBytes();
  int local = localRanks(job);
  double perRank = (o.quick ? 2 : 4) * cache / local;
  perRank = std::max(perRank, 3 * 32.0 * 1024 * 1024);
  perRank = std::min(perRank, machineMemoryBytes() / local / 8);
  size_t n = size_t(perRank / 3 / sizeof(double));
  MemoryResult result;
  result.arrayBytes = double(n * sizeof(double));
  job.progress("memory: STREAM copy and triad, 3 arrays of %s per rank "
               "(largest cache %s), %d thread%s per rank",
               formatBytes(result.arrayBytes).c_str(),
               formatBytes(cache).c_str(), threads, threads == 1 ? "" : "s");
  std::unique_ptr<double[]> a(new double[n]), b(new double[n]),
      c(new double[n]);
  // First touch by the threads that use each part.
  parallelFor(threads, n, [&](size_t lo, size_t hi) {
    for (size_t i = lo; i < hi; ++i) {
      a[i] = 1.0;
      b[i] = 2.0;
      c[i] = 0.0;
    }
  });
  const double scalar = 3.0;
  int reps = o.quick ? 3 : 6;
  double copyBest = 1e30, triadBest = 1e30;
  for (int r = 0; r < reps; ++r) {
    job.barrier();
    Clock::time_point start = Clock::now();
    parallelFor(threads, n, [&](size_t lo, size_t hi) {
      double *__restrict dst = c.get();
      const double *__restrict src = a.get();
      for (size_t i = lo; i < hi; ++i)
        dst[i] = src[i];
    });
    copyBest = std::min(
        copyBest, std::chrono::duration<double>(Clock::now() - start).count());
    job.barrier();
    start = Clock::now();
    parallelFor(threads, n, [&](size_t lo, size_t hi) {
      double *__restrict dst = a.get();
      const double *__restrict x = b.get();
      const double *__restrict y = c.get();
      for (size_t i = lo; i < hi; ++i)
        dst[i] = x[i] + scalar * y[i];
    });
    triadBest = std::min(
        triadBest, std::chrono::duration<double>(Clock::now() - start).count());
  }
  // Keep the results observable (the loops must not be optimised away).
  volatile double sink = a[n / 2] + c[n / 3];
  (void)sink;
  double bytes = double(n * sizeof(double));
  std::vector<double> low = job.min({2 * bytes / copyBest, 3 * bytes / triadBest});
  result.copy = low[0];
  result.triad = low[1];
  job.progress("  copy %s, triad %s per rank%s",
               formatRate(result.copy, "B/s").c_str(),
               formatRate(result.triad, "B/s").c_str(),
               job.multi() ? " (slowest rank)" : "");
  return result;
}

//===----------------------------------------------------------------------===//
// Collectives
//===----------------------------------------------------------------------===//

struct Sample {
  double localBytes = 0; // the local input
  double bytesSent = 0, seconds = 0;
};

struct FitResult {
  LinkLevel::Fit fit;
  double worstError = 0; // the largest relative error over the samples
};

/// Least squares of time = alpha + bytesSent / beta minimising the relative
/// errors (each sample weighted by 1 / time^2, so that the microsecond
/// latencies of small sizes count as much as the milliseconds of large
/// ones), with alpha >= 0 and beta > 0.
FitResult fitAlphaBeta(const std::vector<Sample> &samples) {
  double sw = 0, sx = 0, sxx = 0, st = 0, sxt = 0;
  for (const Sample &s : samples) {
    double w = 1 / (s.seconds * s.seconds);
    sw += w;
    sx += w * s.bytesSent;
    sxx += w * s.bytesSent * s.bytesSent;
    st += w * s.seconds;
    sxt += w * s.bytesSent * s.seconds;
  }
  double det = sw * sxx - sx * sx;
  double alpha = 0, slope = 0;
  if (det > 0) {
    alpha = (sxx * st - sx * sxt) / det;
    slope = (sw * sxt - sx * st) / det;
  }
  if (!(alpha >= 0) || !(slope > 0)) {
    // Through the origin (alpha = 0).
    alpha = 0;
    slope = sxx > 0 ? sxt / sxx : 0;
  }
  if (!(slope > 0)) {
    // Times that do not grow with the size: the largest sample's rate.
    const Sample &last = samples.back();
    slope = last.seconds / last.bytesSent;
  }
  FitResult r;
  r.fit.alpha = alpha;
  r.fit.beta = 1 / slope;
  for (const Sample &s : samples)
    r.worstError = std::max(
        r.worstError,
        std::fabs(alpha + s.bytesSent * slope - s.seconds) / s.seconds);
  return r;
}

struct CollectiveResult {
  std::string name;
  std::vector<Sample> samples;
  FitResult fit;
};

std::vector<CollectiveResult> measureCollectives(const Job &job,
                                                 const Options &o) {
  comm::MeshCommunicator &mesh = *job.mesh;
  const int64_t g = job.size;
  const comm::AxisSet axes = 1;
  const comm::DataType f32 = comm::DataType::F32;
  const comm::ReduceOp sum = comm::ReduceOp::Sum;
  // Local input sizes (bytes), each rounded down to whole f32 blocks of the
  // group (reduce_scatter and all_to_all cut the input in g pieces).
  std::vector<int64_t> sizes;
  for (int64_t b = 1024; b <= 16 * 1024 * 1024; b *= o.quick ? 16 : 4)
    sizes.push_back(std::max<int64_t>(b / (4 * g) * 4 * g, 4 * g));
  double target = o.quick ? 0.02 : 0.1; // seconds per trial
  int trials = o.quick ? 3 : 5;

  int64_t largest = sizes.back();
  std::vector<float> in = randomValues(size_t(largest / 4), 5);
  std::vector<float> out(size_t(g * largest / 4));

  struct Kind {
    const char *name;
    StepKind step;
    std::function<void(int64_t elements)> run; // the local input's elements
  };
  std::vector<Kind> kinds = {
      {"all_reduce", StepKind::AllReduce,
       [&](int64_t e) {
         mesh.allReduce(axes, f32, sum, in.data(), out.data(), e);
       }},
      {"all_gather", StepKind::AllGather,
       [&](int64_t e) {
         mesh.allGather(axes, f32, in.data(), out.data(), 1, e);
       }},
      {"reduce_scatter", StepKind::ReduceScatter,
       [&](int64_t e) {
         mesh.reduceScatter(axes, f32, sum, in.data(), out.data(), 1, e / g);
       }},
      {"all_to_all", StepKind::AllToAll,
       [&](int64_t e) {
         mesh.allToAll(axes, f32, in.data(), out.data(), 1, e / g, 1, e / g);
       }},
  };

  std::vector<CollectiveResult> results;
  job.progress("collectives: %lld ranks through the runtime's communicator "
               "(%s), %zu local sizes from %s to %s",
               (long long)g, job.world->getBackendName(), sizes.size(),
               formatBytes(double(sizes.front())).c_str(),
               formatBytes(double(sizes.back())).c_str());
  for (const Kind &kind : kinds) {
    CollectiveResult result{kind.name};
    std::string line;
    for (int64_t bytes : sizes) {
      int64_t elements = bytes / 4;
      // Warm up (the group's communicator is created on first use), then
      // agree on a number of calls per trial from the slowest rank's time.
      kind.run(elements);
      job.barrier();
      Clock::time_point start = Clock::now();
      kind.run(elements);
      double once = job.max(
          {std::chrono::duration<double>(Clock::now() - start).count()})[0];
      int calls = int(std::clamp(target / std::max(once, 1e-9), 3.0, 2000.0));
      double best = 1e30;
      for (int t = 0; t < trials; ++t) {
        job.barrier();
        start = Clock::now();
        for (int c = 0; c < calls; ++c)
          kind.run(elements);
        double perCall =
            std::chrono::duration<double>(Clock::now() - start).count() /
            calls;
        // A collective is as slow as its slowest member.
        best = std::min(best, job.max({perCall})[0]);
      }
      double sent = double(telar_sharding::getStepBytes(kind.step, g, bytes));
      result.samples.push_back({double(bytes), sent, best});
      line += (line.empty() ? "" : ", ") + formatBytes(double(bytes)) + " " +
              formatSeconds(best);
    }
    result.fit = fitAlphaBeta(result.samples);
    job.progress("  %-14s %s", kind.name, line.c_str());
    job.progress("  %-14s fit: alpha %s, beta %s (largest error %.0f%%)", "",
                 formatSeconds(result.fit.fit.alpha).c_str(),
                 formatRate(result.fit.fit.beta, "B/s").c_str(),
                 100 * result.fit.worstError);
    results.push_back(std::move(result));
  }
  return results;
}

//===----------------------------------------------------------------------===//
// The profile
//===----------------------------------------------------------------------===//

/// `v` to 4 significant digits: what a measurement supports, and what keeps
/// the profile readable (1.098e+11 rather than 109829985154.09373).
double roundMeasured(double v) {
  char buffer[32];
  std::snprintf(buffer, sizeof(buffer), "%.4g", v);
  return std::strtod(buffer, nullptr);
}

/// The command line as it was given (for the profile's source).
std::string commandLine(int argc, char **argv) {
  std::string s = "telar-calibrate";
  for (int i = 1; i < argc; ++i)
    s += std::string(" ") + argv[i];
  return s;
}

int run(const Options &o, Job &job, int argc, char **argv) {
  if (o.ranks && o.ranks != job.size)
    throw std::runtime_error("-n " + std::to_string(o.ranks) +
                             " but this job has " + std::to_string(job.size) +
                             " rank" + (job.size == 1 ? "" : "s"));
  int threads = o.threads ? o.threads : defaultThreads(job);
  telarrt_set_num_threads(threads);
  job.progress("telar-calibrate: %d rank%s x %d thread%s on %s%s", job.size,
               job.size == 1 ? "" : "s", threads, threads == 1 ? "" : "s",
               cpuModel().c_str(), o.quick ? " (--quick)" : "");

  ComputeResult compute = measureCompute(job, o, threads);
  MemoryResult memory = measureMemory(job, o, threads);
  std::vector<CollectiveResult> collectives;
  if (job.multi())
    collectives = measureCollectives(job, o);
  else
    job.progress("collectives: not measured (they need -n >= 2)");
  if (job.rank != 0)
    return 0;

  int local = localRanks(job);
  double memoryBytes = std::floor(machineMemoryBytes() / local);
  int64_t nodeSize = o.nodeSize >= 0 ? o.nodeSize : job.size;

  Profile p;
  p.name = o.name;
  p.peakFlops["f32"] = roundMeasured(compute.flops);
  p.memoryBytes = memoryBytes;
  p.memoryBandwidth = roundMeasured(memory.triad);
  p.opOverhead = roundMeasured(compute.opOverhead);
  LinkLevel node;
  node.name = "node";
  node.devices = nodeSize;
  if (!collectives.empty()) {
    for (const CollectiveResult &c : collectives)
      node.collectives[c.name] = {roundMeasured(c.fit.fit.alpha),
                                  roundMeasured(c.fit.fit.beta)};
    const LinkLevel::Fit &allReduce = node.collectives.at("all_reduce");
    node.latency = allReduce.alpha;
    node.bandwidth = allReduce.beta;
  } else {
    // Stand-ins, said so in the description.
    node.latency = 0;
    node.bandwidth = roundMeasured(memory.copy);
  }
  p.levels.push_back(node);

  std::ostringstream d;
  d << "Measured by telar-calibrate " << TELAR_VERSION << " on " << utcDate()
    << " (UTC) on " << cpuModel() << " ("
    << std::thread::hardware_concurrency() << " hardware threads, "
    << formatBytes(machineMemoryBytes()) << " of memory): " << job.size
    << " rank" << (job.size == 1 ? "" : "s") << " of " << threads
    << " thread" << (threads == 1 ? "" : "s")
    << " each, measuring at once; a device is one rank. "
    << "peak_flops.f32: the runtime's " << compute.kernel
    << " GEMM through telarrt_matmul_f32 (the best of square sizes, the "
       "slowest rank); the other element types fall back to it. "
    << "memory_bandwidth: STREAM triad over 3 arrays of "
    << formatBytes(memory.arrayBytes) << " per rank (copy: "
    << formatRate(memory.copy, "B/s") << "). memory_bytes: the machine's "
    << "memory divided among its " << local << " rank"
    << (local == 1 ? "" : "s") << ". op_overhead: an 8x8x8 matmul through "
       "the kernels' ABI with its output's allocation. ";
  if (!collectives.empty())
    d << "levels[0]: " << job.size << " ranks through the runtime's "
      << job.world->getBackendName()
      << " communicator; collectives: alpha-beta fits over "
      << collectives[0].samples.size() << " local sizes from "
      << formatBytes(collectives[0].samples.front().localBytes) << " to "
      << formatBytes(collectives[0].samples.back().localBytes)
      << " (bytes sent as getStepBytes counts them); latency and "
         "bandwidth: the all_reduce fit";
  else
    d << "levels[0]: collectives not measured (-n 1; they need -n >= 2): "
         "latency 0 and the copy bandwidth are stand-ins";
  if (nodeSize == 0)
    d << "; devices 0 (--node-size 0): any number of ranks share this "
         "machine's memory";
  d << (o.quick ? ". Measured with --quick (less precise)." : ".");
  p.description = d.str();
  p.sources.push_back(commandLine(argc, argv) + " (measured on " +
                      cpuModel() + ", " + utcDate() + ")");

  std::string text = telar_planner::writeProfileJson(p);
  std::string error;
  if (!telar_planner::parseProfileJson(text, error))
    throw std::runtime_error("the measured profile is not valid (" + error +
                             "); measurements failed?");
  if (o.output.empty()) {
    std::fputs(text.c_str(), stdout);
    std::fflush(stdout);
  } else {
    std::ofstream file(o.output);
    if (!file)
      throw std::runtime_error("cannot write '" + o.output +
                               "': " + std::strerror(errno));
    file << text;
    file.close();
    if (!file)
      throw std::runtime_error("cannot write '" + o.output + "'");
  }

  // The summary.
  FILE *out = job.out;
  std::string nodeText =
      nodeSize == 0 ? "a node of any number of devices"
                    : "a node of " + std::to_string(nodeSize) + " device" +
                          (nodeSize == 1 ? "" : "s");
  std::fprintf(out, "profile '%s' (%s)%s%s\n", p.name.c_str(),
               nodeText.c_str(), o.output.empty() ? "" : " written to ",
               o.output.c_str());
  std::fprintf(out, "  f32 peak       %s per device (%s GEMM, %d thread%s)\n",
               formatRate(p.peakFlops["f32"], "FLOP/s").c_str(),
               compute.kernel.c_str(), threads, threads == 1 ? "" : "s");
  std::fprintf(out, "  memory         %s per device (triad; copy %s), %s per "
                    "device\n",
               formatRate(p.memoryBandwidth, "B/s").c_str(),
               formatRate(memory.copy, "B/s").c_str(),
               formatBytes(p.memoryBytes).c_str());
  std::fprintf(out, "  op overhead    %s\n", formatSeconds(p.opOverhead).c_str());
  if (collectives.empty()) {
    std::fprintf(out, "  collectives    not measured: they need -n >= 2\n");
  } else {
    std::fprintf(out, "  collectives    time = alpha + bytes sent / beta, %d "
                      "ranks:\n",
                 job.size);
    for (const CollectiveResult &c : collectives)
      std::fprintf(out, "    %-14s alpha %-9s beta %-11s (largest error "
                        "%.0f%% over %zu sizes)\n",
                   c.name.c_str(), formatSeconds(c.fit.fit.alpha).c_str(),
                   formatRate(c.fit.fit.beta, "B/s").c_str(),
                   100 * c.fit.worstError, c.samples.size());
  }
  std::fflush(out);
  return 0;
}

} // namespace

int main(int argc, char **argv) {
  Options options = parseArguments(argc, argv);
  comm::JobEnvironment env;
  try {
    env = comm::detectJobEnvironment();
  } catch (const std::exception &e) {
    std::fprintf(stderr, "telar-calibrate: error: %s\n", e.what());
    return 2;
  }
  if (options.ranks > 1 && env.transport == comm::TransportKind::Local)
    return comm::relaunchUnderMpirun(
        "telar-calibrate", options.ranks, argc, argv,
        "mpirun -np " + std::to_string(options.ranks) +
            " telar-calibrate ..., srun -n " + std::to_string(options.ranks) +
            " telar-calibrate ..., or " + std::to_string(options.ranks) +
            " processes with TELAR_RANK, TELAR_WORLD_SIZE, TELAR_MASTER_ADDR "
            "and TELAR_MASTER_PORT");

  // The job as telar-run forms it (World.h): MPI under an MPI launcher, Gloo
  // through the TCP rendezvous under the TELAR_* variables.
  Job job;
  job.quiet = options.quiet;
  job.out = options.output.empty() ? stderr : stdout;
  comm::World connection;
  try {
    connection = comm::connectWorld(env, &argc, &argv, kConnectTimeout);
    job.world = connection.communicator;
    if (job.world) {
      job.rank = job.world->getRank();
      job.size = job.world->getSize();
    }
    if (job.size > 1)
      job.mesh = std::make_unique<comm::MeshCommunicator>(
          job.world, std::vector<std::string>{"world"},
          std::vector<int64_t>{job.size});
  } catch (const std::exception &e) {
    std::fprintf(stderr, "telar-calibrate: error: %s%s\n",
                 env.size > 1 ? ("rank " + std::to_string(env.rank) + ": ").c_str()
                              : "",
                 e.what());
    return 1;
  }
  int status = 0;
  try {
    status = run(options, job, argc, argv);
  } catch (const std::exception &e) {
    std::fflush(stdout);
    std::fprintf(stderr, "telar-calibrate: error: %s%s\n",
                 job.multi() ? ("rank " + std::to_string(job.rank) + ": ").c_str()
                             : "",
                 e.what());
    if (job.multi()) {
      // The others may wait for this rank in a collective: MPI ends the
      // job; a Gloo rank exits and its peers' operations fail on the
      // closed connections.
      std::fflush(stderr);
      if (connection.transport == comm::TransportKind::Mpi)
        comm::abortMpi(1);
      std::_Exit(1);
    }
    status = 1;
  }
  // Over Gloo, no rank closes its connections while another may still read.
  if (connection.transport == comm::TransportKind::Gloo && job.world)
    job.world->barrier();
  job.mesh.reset();
  job.world.reset();
  comm::disconnectWorld(connection);
  return status;
}
