//===- Run.h - telar-run's runs of an artifact ------------------*- C++ -*-===//
//
// What a rank does with the artifact: load and check it and the inputs
// (every rank, then all agree), run the program (or follow a pipeline's
// schedule: RunPipeline.cpp) once or --bench times, and on rank 0 write
// the outputs, the statistics and --report.
//
//===----------------------------------------------------------------------===//

#ifndef TELAR_TOOLS_TELAR_RUN_RUN_H
#define TELAR_TOOLS_TELAR_RUN_RUN_H

#include "Options.h"
#include "Ranks.h"

#include "telar/runtime/Pipeline.h"
#include "telar/runtime/Runtime.h"

#include <fstream>
#include <memory>
#include <string>
#include <vector>

namespace telar::tools::run {

/// What happens before the program runs, on each rank; an Error when a
/// check fails.
struct Prepared {
  std::unique_ptr<runtime::Artifact> artifact;
  /// A pipelined artifact (manifest version 4) instead.
  std::unique_ptr<runtime::Pipeline> pipeline;
  std::vector<runtime::Tensor> inputs; // this rank's blocks
  std::vector<std::string> outputPaths;
  std::ofstream report;
};

/// Runs the artifact of `o` on this rank of `job` and returns the exit
/// status (1: a check failed on some rank, each saying which); a failed run
/// throws runtime::RunError once printed (several ranks: the job ends).
int run(const Options &o, const Job &job);

/// run() for a training artifact (--train; Train.cpp).
int train(const Options &o, const Job &job);

/// run() for a pipelined artifact (Pipeline.h), once every rank loaded it.
int runPipeline(const Options &o, const Job &job, Prepared &p, int threads);

} // namespace telar::tools::run

#endif // TELAR_TOOLS_TELAR_RUN_RUN_H
