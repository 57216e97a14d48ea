//===- Report.cpp - telar-run's statistics and --report -------------------===//
//
// Report.h.
//
//===----------------------------------------------------------------------===//

#include "Report.h"
#include "Ranks.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <sys/resource.h>

using namespace telar::runtime;

namespace telar::tools::run {

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

std::string formatMs(double ms) {
  char buffer[32];
  std::snprintf(buffer, sizeof(buffer), ms >= 1000 ? "%.1f" : "%.4g", ms);
  return buffer;
}

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
  // Where they ran: one CPU each when pinned (--bind-threads), else [].
  j["thread_cpus"] = pinnedThreadCpus();
  j["peak_intermediate_bytes"] = maxPeak;
  if (m.largestLiveSetBytes >= 0)
    j["largest_live_set_bytes"] = m.largestLiveSetBytes;
  j["weights_bytes"] = weightsBytes;
  // The weights' packed copies (GEMM operands packed once, kept).
  j["prepacked_bytes"] = prepackedBytes;
  j["io_bytes"] = ioBytes;
  // ru_maxrss is in KiB on Linux.
  j["peak_rss_bytes"] = static_cast<int64_t>(usage.ru_maxrss) * 1024;
  // The process's thread switches so far: involuntary ones pile up (one or
  // two a parallel region) when two of its threads share a CPU.
  j["context_switches"] = {{"voluntary", int64_t(usage.ru_nvcsw)},
                           {"involuntary", int64_t(usage.ru_nivcsw)}};
}


std::vector<KernelProfileEntry>
byTime(std::vector<KernelProfileEntry> kernels) {
  std::stable_sort(kernels.begin(), kernels.end(),
                   [](const KernelProfileEntry &a, const KernelProfileEntry &b) {
                     return a.seconds > b.seconds;
                   });
  return kernels;
}

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

void printPeakMemory(const Options &o, bool multi, const Manifest &m,
                     size_t maxPeak) {
  if (o.quiet)
    return;
  std::string peakText = formatBytes(maxPeak);
  if (multi)
    peakText += " (the most of one rank)";
  int64_t bound = m.largestLiveSetBytes;
  if (bound >= 0)
    std::printf("peak intermediate memory: %s (largest live set of the "
                "graph: %s)\n",
                peakText.c_str(), formatBytes(bound).c_str());
  else
    std::printf("peak intermediate memory: %s\n", peakText.c_str());
}

void writeReport(std::ofstream &report, const std::string &path,
                 const nlohmann::ordered_json &j) {
  report << j.dump(2) << "\n";
  report.close();
  if (!report)
    throw Error("cannot write report '" + path + "'");
}

} // namespace telar::tools::run
