//===- telar-run.cpp - Run a Telar artifact -------------------------------===//
//
//   telar-run ARTIFACT_DIR --input NAME=FILE ... [--program NAME]
//             [--output-dir DIR] [--format npy|pb] [--threads N] [--bench N]
//             [--warmup N] [--memory-limit BYTES] [--report FILE.json] [-q]
//             [--help] [--version]
//
// Loads the artifact (docs/Artifact.md), reads the inputs (.npy or ONNX
// TensorProto .pb), runs the program and writes or summarises the outputs.
// Every check (arguments, artifact, inputs) happens before the program runs.
// Exit codes: 0 success, 1 error (artifact, inputs, I/O), 2 usage error,
// 3 the program failed while running (a status from the runtime ABI).
// The full documentation is in runtime/README.md.
//
// The runtime side does not depend on LLVM, so this tool parses its own
// arguments.
//
//===----------------------------------------------------------------------===//

#include "telar/runtime/Abi.h"
#include "telar/runtime/Npy.h"
#include "telar/runtime/Runtime.h"
#include "telar/runtime/TensorProto.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <charconv>
#include <chrono>
#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <set>
#include <sys/resource.h>
#include <thread>

#ifndef TELAR_VERSION
#define TELAR_VERSION "0.0.0"
#endif

using namespace telar::runtime;

namespace {

constexpr const char *kUsage =
    R"(usage: telar-run ARTIFACT_DIR --input NAME=FILE ... [options]

Runs a compiled Telar artifact (the directory telarc -o writes).

  --input NAME=FILE   value of the model input NAME, from a .npy file or an
                      ONNX TensorProto .pb file (by extension); one per input
  --program NAME      the artifact's program to run (default: 'main', or
                      the only one)
  --output-dir DIR    write each output to DIR/<name>.<format> (characters
                      of the name outside [A-Za-z0-9._-] become '_');
                      without it, print a summary of each output
  --format npy|pb     output file format (default: npy)
  --threads N         threads for parallel loops and BLAS (default: all
                      hardware threads, std::thread::hardware_concurrency)
  --bench N           time N runs after the warmup runs; print latency
                      mean/p50/p90/min in ms and throughput in runs/s
  --warmup N          untimed runs before --bench's timed runs (default: 3)
  --memory-limit N    fail the run (exit 3) when its intermediates would
                      take more than N bytes at once (default: no limit)
  --report FILE       write a JSON report (latency, memory, sizes)
  -q, --quiet         print only errors and --bench's statistics
  -h, --help          print this help
  --version           print the version

Exit status: 0 on success, 1 on errors (artifact, inputs, I/O), 2 on usage
errors, 3 when the program fails while running (e.g. out of memory).
)";

[[noreturn]] void usageError(const std::string &message) {
  std::fprintf(stderr,
               "telar-run: error: %s\nrun 'telar-run --help' for usage\n",
               message.c_str());
  std::exit(2);
}

struct Options {
  std::string artifact;
  std::vector<std::pair<std::string, std::string>> inputs;
  std::string program;
  std::optional<size_t> memoryLimit;
  std::string outputDir;
  std::string format = "npy";
  int threads = 0;
  int bench = 0;
  int warmup = 3;
  std::string report;
  bool quiet = false;
};

int parseCount(const std::string &option, const std::string &value,
               int minimum) {
  int n = 0;
  const char *end = value.data() + value.size();
  auto [ptr, ec] = std::from_chars(value.data(), end, n);
  if (value.empty() || ec != std::errc() || ptr != end || n < minimum)
    usageError("option '" + option + "' expects an integer >= " +
               std::to_string(minimum) + ", got '" + value + "'");
  return n;
}

Options parseArguments(int argc, char **argv) {
  Options o;
  bool positionalOnly = false;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (positionalOnly || arg.empty() || arg[0] != '-' || arg == "-") {
      if (!o.artifact.empty())
        usageError("unexpected argument '" + arg +
                   "' (one artifact directory is expected)");
      o.artifact = arg;
      continue;
    }
    if (arg == "--") {
      positionalOnly = true;
      continue;
    }
    if (arg == "-h" || arg == "--help") {
      std::fputs(kUsage, stdout);
      std::exit(0);
    }
    if (arg == "--version") {
      std::printf("telar-run %s (artifact format version %" PRId64 ")\n",
                  TELAR_VERSION, kArtifactFormatVersion);
      std::exit(0);
    }
    if (arg == "-q" || arg == "--quiet") {
      o.quiet = true;
      continue;
    }
    // Options with a value: "--opt value" or "--opt=value".
    std::string name = arg, value;
    bool inlineValue = false;
    if (size_t eq = arg.find('='); eq != std::string::npos && arg[1] == '-') {
      name = arg.substr(0, eq);
      value = arg.substr(eq + 1);
      inlineValue = true;
    }
    static const std::set<std::string> kValued = {
        "--input", "--output-dir", "--format",       "--threads", "--bench",
        "--warmup", "--report",    "--memory-limit", "--program"};
    if (!kValued.count(name))
      usageError("unknown option '" + name + "'");
    if (!inlineValue) {
      if (i + 1 >= argc)
        usageError("option '" + name + "' expects a value");
      value = argv[++i];
    }
    if (name == "--input") {
      size_t eq = value.find('=');
      if (eq == std::string::npos || eq == 0 || eq + 1 == value.size())
        usageError("--input expects NAME=FILE, got '" + value + "'");
      o.inputs.emplace_back(value.substr(0, eq), value.substr(eq + 1));
    } else if (name == "--output-dir") {
      if (value.empty())
        usageError("--output-dir expects a directory");
      o.outputDir = value;
    } else if (name == "--format") {
      if (value != "npy" && value != "pb")
        usageError("--format expects 'npy' or 'pb', got '" + value + "'");
      o.format = value;
    } else if (name == "--threads") {
      o.threads = parseCount(name, value, 1);
    } else if (name == "--bench") {
      o.bench = parseCount(name, value, 1);
    } else if (name == "--warmup") {
      o.warmup = parseCount(name, value, 0);
    } else if (name == "--program") {
      if (value.empty())
        usageError("--program expects a program name");
      o.program = value;
    } else if (name == "--memory-limit") {
      size_t n = 0;
      const char *end = value.data() + value.size();
      auto [ptr, ec] = std::from_chars(value.data(), end, n);
      if (value.empty() || ec != std::errc() || ptr != end)
        usageError("option '--memory-limit' expects a number of bytes, got '" +
                   value + "'");
      o.memoryLimit = n;
    } else if (name == "--report") {
      if (value.empty())
        usageError("--report expects a file name");
      o.report = value;
    }
  }
  if (o.artifact.empty())
    usageError("no artifact directory given");
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

/// Reads and checks the inputs, in manifest order.
std::vector<Tensor> readInputs(const Options &o, const Manifest &m) {
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
  for (const TensorSpec &s : m.inputs) {
    const std::string &file = files[s.name];
    std::string ext = lowercaseExtension(file);
    if (ext != ".npy" && ext != ".pb")
      throw Error("input '" + s.name + "': cannot tell the format of '" + file +
                  "' (expected a .npy or .pb file)");
    Tensor t;
    try {
      t = ext == ".npy" ? readNpy(file) : readTensorProto(file);
    } catch (const Error &e) {
      throw Error("input '" + s.name + "': " + e.what());
    }
    if (t.getDType() != s.dtype || t.getShape() != s.shape)
      throw Error("input '" + s.name + "': expected " + s.typeString() +
                  ", got " + t.typeString() + " from " + file);
    inputs.push_back(std::move(t));
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

int run(const Options &o) {
  int threads = o.threads;
  if (threads == 0)
    threads = std::max(1u, std::thread::hardware_concurrency());
  telarrt_set_num_threads(threads);

  std::unique_ptr<Artifact> artifact = Artifact::load(o.artifact, o.program);
  Context &context = artifact->getContext();
  if (o.memoryLimit)
    context.setMemoryLimit(*o.memoryLimit);
  const Manifest &m = artifact->getManifest();
  std::vector<Tensor> inputs = readInputs(o, m);

  // Output files: distinct names, a directory that exists.
  std::vector<std::string> outputPaths;
  if (!o.outputDir.empty()) {
    std::map<std::string, std::string> taken;
    for (const TensorSpec &s : m.outputs) {
      std::string file = sanitize(s.name) + "." + o.format;
      auto [it, fresh] = taken.emplace(file, s.name);
      if (!fresh)
        throw Error("outputs '" + it->second + "' and '" + s.name +
                    "' would both be written to " + file);
      outputPaths.push_back(
          (std::filesystem::path(o.outputDir) / file).string());
    }
    std::error_code ec;
    std::filesystem::create_directories(o.outputDir, ec);
    if (ec || !std::filesystem::is_directory(o.outputDir))
      throw Error("cannot create output directory '" + o.outputDir + "'" +
                  (ec ? ": " + ec.message() : ""));
  }
  std::ofstream report;
  if (!o.report.empty()) {
    report.open(o.report);
    if (!report)
      throw Error("cannot write report '" + o.report +
                  "': " + std::strerror(errno));
  }

  std::vector<Tensor> outputs = artifact->allocateOutputs();
  std::vector<const void *> in;
  std::vector<void *> out;
  for (const Tensor &t : inputs)
    in.push_back(t.data());
  for (Tensor &t : outputs)
    out.push_back(t.data());

  using Clock = std::chrono::steady_clock;
  int iterations = o.bench ? o.bench : 1;
  if (o.bench)
    for (int i = 0; i < o.warmup; ++i)
      artifact->run(in, out);
  context.resetPeakBytes();
  std::vector<double> times;
  Clock::time_point benchStart = Clock::now();
  for (int i = 0; i < iterations; ++i) {
    Clock::time_point start = Clock::now();
    artifact->run(in, out);
    times.push_back(
        std::chrono::duration<double, std::milli>(Clock::now() - start)
            .count());
  }
  double totalSeconds =
      std::chrono::duration<double>(Clock::now() - benchStart).count();
  size_t peak = context.getPeakBytes();
  Latency latency = summarizeTimes(times);

  for (size_t i = 0; i < outputs.size(); ++i) {
    const TensorSpec &s = m.outputs[i];
    if (!outputPaths.empty()) {
      if (o.format == "pb")
        writeTensorProto(outputPaths[i], s.name, s.dtype, s.shape,
                         outputs[i].data());
      else
        writeNpy(outputPaths[i], s.dtype, s.shape, outputs[i].data());
      if (!o.quiet)
        std::printf("output '%s': %s -> %s\n", s.name.c_str(),
                    s.typeString().c_str(), outputPaths[i].c_str());
    } else if (!o.quiet) {
      std::printf("output '%s': %s\n", s.name.c_str(),
                  summarize(outputs[i]).c_str());
    }
  }
  if (!o.quiet) {
    int64_t bound = artifact->getManifest().largestLiveSetBytes;
    if (bound >= 0)
      std::printf("peak intermediate memory: %s (largest live set of the "
                  "graph: %s)\n",
                  formatBytes(peak).c_str(), formatBytes(bound).c_str());
    else
      std::printf("peak intermediate memory: %s\n", formatBytes(peak).c_str());
  }
  if (o.bench) {
    std::printf("benchmark: %d runs after %d warmup runs, %d threads\n",
                o.bench, o.warmup, threads);
    std::printf("latency (ms): mean %s  p50 %s  p90 %s  min %s\n",
                formatMs(latency.mean).c_str(), formatMs(latency.p50).c_str(),
                formatMs(latency.p90).c_str(), formatMs(latency.min).c_str());
    std::printf("throughput: %.2f runs/s\n",
                totalSeconds > 0 ? iterations / totalSeconds : 0.0);
  }

  if (report.is_open()) {
    size_t ioBytes = 0;
    for (const Tensor &t : inputs)
      ioBytes += t.getByteSize();
    for (const Tensor &t : outputs)
      ioBytes += t.getByteSize();
    struct rusage usage;
    getrusage(RUSAGE_SELF, &usage);
    nlohmann::ordered_json j;
    j["artifact"] = artifact->getDirectory();
    j["program"] = artifact->getProgram().name;
    j["latency_ms"] = {{"mean", latency.mean},
                       {"p50", latency.p50},
                       {"p90", latency.p90},
                       {"min", latency.min}};
    j["iterations"] = iterations;
    j["warmup"] = o.bench ? o.warmup : 0;
    j["threads"] = threads;
    j["peak_intermediate_bytes"] = peak;
    if (artifact->getManifest().largestLiveSetBytes >= 0)
      j["largest_live_set_bytes"] = artifact->getManifest().largestLiveSetBytes;
    j["weights_bytes"] = artifact->getWeightsBytes();
    // The weights' packed copies (GEMM operands packed once, kept).
    j["prepacked_bytes"] = artifact->getPrepackedBytes();
    j["io_bytes"] = ioBytes;
    // ru_maxrss is in KiB on Linux.
    j["peak_rss_bytes"] = static_cast<int64_t>(usage.ru_maxrss) * 1024;
    report << j.dump(2) << "\n";
    report.close();
    if (!report)
      throw Error("cannot write report '" + o.report + "'");
  }
  return 0;
}

} // namespace

int main(int argc, char **argv) {
  Options options = parseArguments(argc, argv);
  try {
    return run(options);
  } catch (const RunError &e) {
    std::fflush(stdout);
    std::fprintf(stderr, "telar-run: error: %s\n", e.what());
    return 3;
  } catch (const std::exception &e) {
    std::fflush(stdout);
    std::fprintf(stderr, "telar-run: error: %s\n", e.what());
    return 1;
  }
}
