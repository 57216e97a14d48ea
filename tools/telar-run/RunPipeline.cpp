//===- RunPipeline.cpp - telar-run's runs of a pipelined artifact ---------===//
//
// Run.h's runPipeline: each run follows this rank's schedule steps once.
//
//===----------------------------------------------------------------------===//

#include "Run.h"

#include "Report.h"
#include "TensorIO.h"
#include "Trace.h"

#include "telar/runtime/Abi.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <cinttypes>

using namespace telar::runtime;

namespace telar::tools::run {

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
      failRank(job, e.what(), e.getStatus() == TELAR_STATUS_COMM_ERROR, 3);
      throw;
    }
  };

  std::vector<double> times;
  double busy = 0, wait = 0, own = 0, bytesSent = 0, messages = 0;
  startTrace(o, job);
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
    Clock::time_point begin = Clock::now();
    PipelineStats stats = runOnce();
    traceRun(run, !o.bench ? "run" : timed ? "timed" : "warmup", begin,
             Clock::now());
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
  double runsSeconds =
      std::chrono::duration<double>(Clock::now() - runsStart).count();
  finishTrace(o, job);
  std::vector<double> perRankSeconds =
      allGather<double>(job, {runsSeconds}, comm::DataType::F64);
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
  writeOutputs(o, p.outputPaths, m, global);
  printPeakMemory(o, job.multi(), m, maxPeak);

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
    writeReport(p.report, o.report, j);
  }
  return 0;
}

} // namespace telar::tools::run
