//===- Trace.cpp - The runtime's span recorder ----------------------------===//
//
// Trace.h. Spans go into one vector under a mutex: recording is for
// understanding a run, and its cost (measured in docs/Trace.md) is paid only
// while it is on.
//
//===----------------------------------------------------------------------===//

#include "telar/runtime/Trace.h"

#include <nlohmann/json.hpp>

#include <mutex>

namespace telar::runtime::trace {

std::atomic<bool> detail::recording{false};

namespace {
struct Recorder {
  std::mutex mutex;
  std::vector<Span> spans;
  Clock::time_point epoch;
  /// Incremented by start(): a thread's number is renewed in a new
  /// recording.
  int generation = 0;
  int threads = 0;
};

Recorder &recorder() {
  static Recorder *r = new Recorder(); // never destroyed: threads may outlive
  return *r;
}

/// The calling thread's number in the current recording (under the mutex).
int threadNumber(Recorder &r) {
  thread_local int generation = -1, number = 0;
  if (generation != r.generation) {
    generation = r.generation;
    number = r.threads++;
  }
  return number;
}
} // namespace

void start(Clock::time_point epoch) {
  Recorder &r = recorder();
  std::lock_guard<std::mutex> lock(r.mutex);
  r.spans.clear();
  r.epoch = epoch;
  ++r.generation;
  r.threads = 0;
  detail::recording.store(true, std::memory_order_relaxed);
}

std::vector<Span> stop() {
  Recorder &r = recorder();
  std::lock_guard<std::mutex> lock(r.mutex);
  detail::recording.store(false, std::memory_order_relaxed);
  std::vector<Span> spans;
  spans.swap(r.spans);
  return spans;
}

void record(Span span, Clock::time_point begin, Clock::time_point end) {
  Recorder &r = recorder();
  std::lock_guard<std::mutex> lock(r.mutex);
  if (!enabled())
    return;
  span.beginNs =
      std::chrono::duration_cast<std::chrono::nanoseconds>(begin - r.epoch)
          .count();
  span.endNs =
      std::chrono::duration_cast<std::chrono::nanoseconds>(end - r.epoch)
          .count();
  span.thread = threadNumber(r);
  r.spans.push_back(std::move(span));
}

void record(const char *category, std::string name, Clock::time_point begin,
            Clock::time_point end, std::string args) {
  Span span;
  span.category = category;
  span.name = std::move(name);
  span.args = std::move(args);
  record(std::move(span), begin, end);
}

std::string quote(const std::string &text) {
  // Paths and names need not be UTF-8: bad bytes become U+FFFD.
  return nlohmann::json(text).dump(-1, ' ', false,
                                   nlohmann::json::error_handler_t::replace);
}

} // namespace telar::runtime::trace
