//===- Options.h - telar-run's options --------------------------*- C++ -*-===//
//
// What the command line asks for (Options.cpp declares the flags, on the
// runtime tools' flag library: include/telar/tools/Flags.h).
//
//===----------------------------------------------------------------------===//

#ifndef TELAR_TOOLS_TELAR_RUN_OPTIONS_H
#define TELAR_TOOLS_TELAR_RUN_OPTIONS_H

#include <cstddef>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace telar::tools::run {

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
  /// --bind-threads: pin the threads one to a CPU (auto) or not (none).
  bool bindThreads = true;
  int bench = 0;
  int warmup = 3;
  std::string report;
  /// --trace: the Chrome trace-event file of the runs (Trace.h).
  std::string trace;
  /// --timeout: seconds any blocking wait may take.
  double timeoutSeconds = 300;
  /// --emulate: a GPU artifact's kernels on the CPU.
  bool emulate = false;
  bool verbose = false;
  bool quiet = false;
  bool profileKernels = false;
  /// --train: run a training artifact's steps (docs/Training.md).
  bool train = false;
  int steps = 1;
  /// --lr: the learning rate instead of the artifact's.
  std::optional<double> learningRate;
  std::string saveWeights;
  std::string exportOnnx;
  /// --checkpoint-dir, --checkpoint-every, --resume.
  std::string checkpointDir;
  int checkpointEvery = 0;
  std::string resumeDir;
};


/// The options of argv; usage errors print their message and exit with 2,
/// --help and --version print and exit with 0.
Options parseArguments(int argc, char **argv);

} // namespace telar::tools::run

#endif // TELAR_TOOLS_TELAR_RUN_OPTIONS_H
