//===- Run.cpp - telar-run's runs of an artifact --------------------------===//
//
// Run.h: the checks every rank makes before anything runs, the runs of a
// program artifact, their statistics and the outputs.
//
//===----------------------------------------------------------------------===//

#include "Run.h"

#include "Report.h"
#include "TensorIO.h"
#include "Trace.h"

#include "telar/runtime/Abi.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cinttypes>
#include <cstring>
#include <filesystem>
#include <optional>

using namespace telar::runtime;

namespace telar::tools::run {
namespace {

void prepareOutputs(const Options &o, const Job &job, const Manifest &m,
                    Prepared &p) {
  p.outputPaths = prepareOutputFiles(o, job.rank, m);
  checkTraceFile(o, job);
  if (!o.report.empty() && job.rank == 0) {
    p.report.open(o.report);
    if (!p.report)
      throw Error("cannot write report '" + o.report +
                  "': " + std::strerror(errno));
  }
}

void prepare(const Options &o, const Job &job, Prepared &p) {
  checkRanks(o, job);
  p.artifact = Artifact::load(o.artifact, o.program, job.world, o.emulate);
  if (p.artifact->getManifest().isTraining())
    throw Error("'" + o.artifact +
                "' is a training artifact (telarc --train): run its steps "
                "with --train --steps N (docs/Training.md)");
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
  // Not a FIFO: opening one would wait for a writer.
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec))
    return false;
  std::ifstream in(path);
  if (!in)
    return false;
  std::string text((std::istreambuf_iterator<char>(in)),
                   std::istreambuf_iterator<char>());
  try {
    return artifact::parseManifest(text, path).isPipelined();
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

/// Statistics of one axis set, per run: calls, bytes sent, seconds.
constexpr int kStatFields = 3;

} // namespace

int run(const Options &o, const Job &job) {
  if (o.train)
    return train(o, job);
  int threads = setUpThreads(o, job);

  // Every rank checks everything, then all agree before any runs: a rank
  // that failed must not leave the others waiting in a collective. A
  // pipeline agrees twice: on its manifests before the world splits, then
  // on its stages and the inputs.
  Prepared p;
  // A step's error as every rank agrees on it ("" when none).
  std::string problem;
  auto attempt = [&](const auto &step) {
    try {
      step();
    } catch (const std::exception &e) {
      problem = e.what();
      if (problem.empty())
        problem = "unknown error";
    }
  };
  bool pipelined = false;
  attempt([&] {
    pipelined = isPipelinedArtifact(o.artifact);
    if (pipelined)
      openPipeline(o, job, p);
    else
      prepare(o, job, p);
  });
  if (!agree(job, problem))
    return 1;
  if (pipelined) {
    attempt([&] {
      if (o.profileKernels)
        throw Error("--profile-kernels does not support pipelined artifacts");
      loadPipeline(o, job, p);
    });
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
  // A GPU (or its emulator) runs on buffers in its own memory: the inputs
  // are uploaded once, the outputs copied back after the last run.
  // They count against --memory-limit: the device's memory holds them.
  std::optional<StagedBuffers> staging;
  if (context.getDevice().getMemorySpace() != MemorySpace::Host) {
    try {
      staging.emplace(context.getDevice());
      for (size_t i = 0; i < in.size(); ++i)
        in[i] = staging->upload(in[i], p.inputs[i].getByteSize(),
                                m.inputs[i].name);
      for (size_t i = 0; i < out.size(); ++i)
        out[i] =
            staging->allocate(outputs[i].getByteSize(), m.outputs[i].name);
    } catch (const RunError &e) {
      failRank(job, e.what(), false, 3);
      throw;
    }
  }

  // A run that fails on one rank would leave the others waiting in a
  // collective: it ends the whole job.
  auto runOnce = [&] {
    try {
      artifact.run(in, out);
    } catch (const RunError &e) {
      // A collective that failed because a peer did (Gloo notices a closed
      // connection): the liveness channel names that rank.
      failRank(job, e.what(), e.getStatus() == TELAR_STATUS_COMM_ERROR, 3);
      throw;
    }
  };

  using Clock = std::chrono::steady_clock;
  int iterations = o.bench ? o.bench : 1;
  int warmup = o.bench ? o.warmup : 0;
  int64_t steps = int64_t(warmup) + iterations;
  // Each run is a step: the watchdog names it, --verbose prints it.
  // The timed runs on the device's own clock too, where it keeps one (CUDA
  // events on a GPU): from the first work a run enqueues to its last, so
  // without the host's time around the runs.
  bool timeOnDevice = false;
  std::optional<double> deviceMs;
  Queue &queue = context.getDevice().getQueue();
  auto step = [&](int64_t number, const char *kind, bool begun = false) {
    if (!begun)
      comm::Watchdog::beginStep(number, steps);
    std::unique_ptr<Event> deviceStart =
        timeOnDevice ? queue.recordTimedEvent() : nullptr;
    Clock::time_point start = Clock::now();
    runOnce();
    if (deviceStart) {
      std::optional<double> ms =
          queue.recordTimedEvent()->millisecondsSince(*deviceStart);
      deviceMs = ms ? std::optional<double>(deviceMs.value_or(0) + *ms)
                    : std::nullopt;
      timeOnDevice = ms.has_value();
    }
    Clock::time_point end = Clock::now();
    traceRun(number, kind, start, end);
    double ms = std::chrono::duration<double, std::milli>(end - start).count();
    if (o.verbose)
      std::fprintf(stderr, "telar-run: %sstep %" PRId64 "/%" PRId64
                           " (%s) done in %s ms\n",
                   job.prefix().c_str(), number, steps, kind,
                   formatMs(ms).c_str());
    return ms;
  };
  startTrace(o, job);
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
  timeOnDevice = o.bench > 0;
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
  timeOnDevice = false;
  double runsSeconds =
      std::chrono::duration<double>(Clock::now() - runsStart).count();
  finishTrace(o, job);
  // Every rank's time for all its runs, warmup included.
  std::vector<double> perRankSeconds =
      allGather<double>(job, {runsSeconds}, comm::DataType::F64);
  comm::Watchdog::setPhase("collecting the statistics");
  // Intermediates only: the staged inputs and outputs were allocated
  // before the reset and live throughout.
  size_t peak = context.getPeakBytes() - (staging ? staging->getBytes() : 0);
  if (staging) {
    for (size_t i = 0; i < out.size(); ++i)
      staging->download(outputs[i].data(), out[i], outputs[i].getByteSize());
    context.getDevice().getQueue().synchronize();
  }
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
  writeOutputs(o, p.outputPaths, m, global);
  printPeakMemory(o, job.multi(), m, maxPeak);
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
    if (deviceMs)
      std::printf("device time (ms, %s events): mean %s per run\n",
                  context.getDevice().getKind(),
                  formatMs(*deviceMs / iterations).c_str());
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
    writeReport(p.report, o.report, j);
  }
  return 0;
}

} // namespace telar::tools::run
