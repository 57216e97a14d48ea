//===- Report.h - telar-run's statistics and --report -----------*- C++ -*-===//
//
// What telar-run says about its runs: byte and millisecond formats, the
// latency of --bench's runs, the peak memory line, --profile-kernels' table
// and the fields of --report's JSON.
//
//===----------------------------------------------------------------------===//

#ifndef TELAR_TOOLS_TELAR_RUN_REPORT_H
#define TELAR_TOOLS_TELAR_RUN_REPORT_H

#include "Options.h"

#include "telar/runtime/Runtime.h"

#include <nlohmann/json.hpp>

#include <cstddef>
#include <fstream>
#include <string>
#include <vector>

namespace telar::tools::run {

/// "1536 bytes (1.5 KiB)".
std::string formatBytes(size_t bytes);
/// Four significant digits, without switching to exponents for long runs.
std::string formatMs(double ms);

struct Latency {
  double mean = 0, p50 = 0, p90 = 0, min = 0;
};
/// Nearest-rank percentiles of the run times (milliseconds).
Latency summarizeTimes(std::vector<double> ms);

/// On rank 0, after the outputs (unless --quiet): the peak intermediate
/// memory (`maxPeak`, the most of one rank when `multi`) and the graph's
/// largest live set.
void printPeakMemory(const Options &o, bool multi, const runtime::Manifest &m,
                     size_t maxPeak);

/// The --report fields of every run (after "artifact" and its kind's own):
/// latency, runs, threads, memory and sizes. `weightsBytes` and
/// `prepackedBytes` are this rank's.
void addRunReportFields(nlohmann::ordered_json &j, const Options &o,
                        const runtime::Manifest &m, const Latency &latency,
                        int iterations, int threads, size_t maxPeak,
                        size_t weightsBytes, size_t prepackedBytes);

/// Writes --report's JSON `j` to `report` (opened by prepare) and closes
/// it; an Error naming `path` when it cannot be written.
void writeReport(std::ofstream &report, const std::string &path,
                 const nlohmann::ordered_json &j);

/// --profile-kernels: the kernels' entries by time per run, largest first.
std::vector<runtime::KernelProfileEntry>
byTime(std::vector<runtime::KernelProfileEntry> kernels);
/// --profile-kernels' table (`kernels` by time, byTime): per kernel and
/// shape, ms and calls per run and the share of this rank's mean latency;
/// then the time outside them.
void printKernelProfile(const std::vector<runtime::KernelProfileEntry> &kernels,
                        int iterations, double meanMs, bool multi);
/// --profile-kernels' --report fields (`kernels` by time, byTime).
void addKernelReportFields(
    nlohmann::ordered_json &j,
    const std::vector<runtime::KernelProfileEntry> &kernels, int iterations);

} // namespace telar::tools::run

#endif // TELAR_TOOLS_TELAR_RUN_REPORT_H
