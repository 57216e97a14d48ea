//===- Trace.h - Spans of what a run did, for telar-run --trace -*- C++ -*-===//
//
// The runtime's recorder of a run's timeline: program calls, runtime
// kernels, collectives, pipeline steps and messages, as spans on the
// recording thread. Off unless started (telar-run --trace): every hook then
// costs one relaxed atomic load. telar-run gathers the spans of every rank
// and writes one Chrome trace-event file (tools/telar-run/Trace.cpp), where
// the time a collective or a receive waited for its peers is told apart
// from the time it moved data by matching the same call on every member
// (its `match` key).
//
//===----------------------------------------------------------------------===//

#ifndef TELAR_RUNTIME_TRACE_H
#define TELAR_RUNTIME_TRACE_H

#include <atomic>
#include <chrono>
#include <cstdint>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

namespace telar::runtime::trace {

using Clock = std::chrono::steady_clock;

/// One span.
struct Span {
  /// "run", "program", "kernel", "collective", "pipeline", "send", "recv".
  std::string category;
  std::string name;
  /// Nanoseconds since the recording started (trace::start's epoch).
  int64_t beginNs = 0, endNs = 0;
  /// The recording thread: 0 for the first that recorded, then 1, 2, ...
  int thread = 0;
  /// The span's arguments, a JSON object's members ("\"bytes\": 64").
  std::string args;
  /// What pairs it with the same call on other ranks (empty: nothing). A
  /// collective: its group ("data,model/3": the axes, then the rank with
  /// the group's coordinates zeroed), `sequence` its index among the calls
  /// on that group. A message: "FROM>TO#TAG" (ranks and tag), `sequence`
  /// its index among the messages with that key; `peer` the other rank.
  std::string match;
  int64_t sequence = 0;
  int peer = -1;
};

namespace detail {
extern std::atomic<bool> recording;
} // namespace detail

/// Whether spans are being recorded.
inline bool enabled() {
  return detail::recording.load(std::memory_order_relaxed);
}

/// Starts recording, timestamps counting from `epoch` (telar-run passes
/// the instant every rank left a barrier), dropping what was recorded.
void start(Clock::time_point epoch);
/// Stops recording and returns the spans, in the order they ended.
std::vector<Span> stop();

/// Records a span that ran from `begin` to `end` on the calling thread.
void record(Span span, Clock::time_point begin, Clock::time_point end);
void record(const char *category, std::string name, Clock::time_point begin,
            Clock::time_point end, std::string args = "");

/// `text` as a JSON string literal, quotes included.
std::string quote(const std::string &text);

/// Records a span from its construction to its destruction, when
/// recording was on at construction: `describe()` then gives its name and
/// arguments (a std::pair of strings), built only then.
template <typename Describe> class Scope {
public:
  Scope(const char *category, Describe describe)
      : on(enabled()), category(category), describe(std::move(describe)) {
    if (on)
      begin = Clock::now();
  }
  ~Scope() {
    if (!on)
      return;
    Clock::time_point end = Clock::now();
    Span span;
    span.category = category;
    std::tie(span.name, span.args) = describe();
    record(std::move(span), begin, end);
  }
  Scope(const Scope &) = delete;
  Scope &operator=(const Scope &) = delete;

private:
  bool on;
  const char *category;
  Describe describe;
  Clock::time_point begin;
};
template <typename Describe>
Scope(const char *, Describe) -> Scope<Describe>;

} // namespace telar::runtime::trace

#endif // TELAR_RUNTIME_TRACE_H
