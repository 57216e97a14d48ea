//===- Trace.h - telar-run --trace: one timeline of the job -----*- C++ -*-===//
//
// Every rank records the runtime's spans (telar/runtime/Trace.h) from a
// common instant (a barrier); at the end rank 0 gathers them and writes one
// Chrome trace-event JSON file (docs/Trace.md): a process per rank, a track
// per recording thread, the runs, program calls, runtime kernels,
// collectives and pipeline steps and messages, with the time each
// collective and message waited for its peers told apart from the time it
// moved data, and the idle time inside each run.
//
//===----------------------------------------------------------------------===//

#ifndef TELAR_TOOLS_TELAR_RUN_TRACE_H
#define TELAR_TOOLS_TELAR_RUN_TRACE_H

#include "Options.h"
#include "Ranks.h"

#include "telar/runtime/Trace.h"

#include <cstdint>

namespace telar::tools::run {

/// With --trace, on rank 0: throws runtime::Error when the file cannot be
/// written (it is written after the runs: refused before they start).
void checkTraceFile(const Options &o, const Job &job);

/// With --trace: every rank starts recording as it leaves a barrier
/// (collective). Without: nothing.
void startTrace(const Options &o, const Job &job);

/// With --trace: stops recording, gathers every rank's spans on rank 0
/// (collective), which writes the file; throws runtime::Error on rank 0
/// when it cannot.
void finishTrace(const Options &o, const Job &job);

/// A span for one of telar-run's runs (--bench's warmup and timed runs).
void traceRun(int64_t number, const char *kind,
              runtime::trace::Clock::time_point begin,
              runtime::trace::Clock::time_point end);

} // namespace telar::tools::run

#endif // TELAR_TOOLS_TELAR_RUN_TRACE_H
