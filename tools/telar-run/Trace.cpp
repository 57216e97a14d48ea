//===- Trace.cpp - telar-run --trace --------------------------------------===//
//
// Trace.h. The spans travel to rank 0 as JSON text on a communicator of
// their own; rank 0 pairs the calls of one collective (the same group and
// index on every member) and the two ends of each message, and writes the
// trace-event file.
//
//===----------------------------------------------------------------------===//

#include "Trace.h"

#include "telar/runtime/Comm.h"
#include "telar/runtime/Runtime.h"
#include "telar/runtime/Watchdog.h"
#include "telar/view/Page.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <map>
#include <set>

using json = nlohmann::json;
using namespace telar::runtime;

namespace telar::tools::run {
namespace {

bool endsWith(const std::string &text, const std::string &suffix) {
  return text.size() >= suffix.size() &&
         text.compare(text.size() - suffix.size(), suffix.size(), suffix) == 0;
}

/// Gaps shorter than this inside a run are not drawn as idle time.
constexpr int64_t kMinIdleNs = 1000;

json toJson(const std::vector<trace::Span> &spans) {
  json all = json::array();
  for (const trace::Span &s : spans)
    all.push_back({{"c", s.category}, {"n", s.name}, {"b", s.beginNs},
                   {"e", s.endNs}, {"t", s.thread}, {"a", s.args},
                   {"m", s.match}, {"s", s.sequence}, {"p", s.peer}});
  return all;
}

std::vector<trace::Span> fromJson(const json &all) {
  std::vector<trace::Span> spans;
  for (const json &j : all) {
    trace::Span s;
    s.category = j.at("c").get<std::string>();
    s.name = j.at("n").get<std::string>();
    s.beginNs = j.at("b").get<int64_t>();
    s.endNs = j.at("e").get<int64_t>();
    s.thread = j.at("t").get<int>();
    s.args = j.at("a").get<std::string>();
    s.match = j.at("m").get<std::string>();
    s.sequence = j.at("s").get<int64_t>();
    s.peer = j.at("p").get<int>();
    spans.push_back(std::move(s));
  }
  return spans;
}

double us(int64_t ns) { return double(ns) / 1e3; }

json completeEvent(int rank, int thread, const std::string &name,
                   const std::string &category, int64_t beginNs,
                   int64_t endNs, json args) {
  json e = {{"ph", "X"},         {"pid", rank},
            {"tid", thread},     {"name", name},
            {"cat", category},   {"ts", us(beginNs)},
            {"dur", us(std::max<int64_t>(0, endNs - beginNs))}};
  if (!args.empty())
    e["args"] = std::move(args);
  return e;
}

/// A span by its rank and index there (rank -1: none).
struct Ref {
  int rank = -1;
  size_t index = 0;
};

/// The trace-event JSON of `ranks` (each rank's spans), as written.
std::string
formatTrace(const std::vector<std::vector<trace::Span>> &ranks,
            const std::string &artifact) {
  // The time each span waited for its peers (-1: not paired).
  std::vector<std::vector<int64_t>> waits(ranks.size());
  std::map<std::pair<std::string, int64_t>, std::vector<Ref>> collectives;
  std::map<std::pair<std::string, int64_t>, std::pair<Ref, Ref>> messages;
  for (size_t r = 0; r < ranks.size(); ++r) {
    waits[r].assign(ranks[r].size(), -1);
    for (size_t i = 0; i < ranks[r].size(); ++i) {
      const trace::Span &s = ranks[r][i];
      if (s.match.empty())
        continue;
      auto key = std::make_pair(s.match, s.sequence);
      Ref ref{int(r), i};
      if (s.category == "send")
        messages[key].first = ref;
      else if (s.category == "recv")
        messages[key].second = ref;
      else
        collectives[key].push_back(ref);
    }
  }
  auto span = [&](const Ref &ref) -> const trace::Span & {
    return ranks[size_t(ref.rank)][ref.index];
  };
  auto setWait = [&](const Ref &ref, int64_t latestBegin) {
    const trace::Span &s = span(ref);
    waits[size_t(ref.rank)][ref.index] =
        std::clamp<int64_t>(latestBegin - s.beginNs, 0, s.endNs - s.beginNs);
  };
  // A collective moves data once its last member arrived: before that, each
  // member waited.
  for (const auto &[key, members] : collectives) {
    if (members.size() < 2)
      continue;
    int64_t latest = 0;
    for (const Ref &m : members)
      latest = std::max(latest, span(m).beginNs);
    for (const Ref &m : members)
      setWait(m, latest);
  }
  // A message moves once both ends are there.
  std::vector<std::pair<Ref, Ref>> pairs;
  for (const auto &[key, ends] : messages) {
    // Both ends recorded (not so when a rank's trace misses one).
    if (ends.first.rank < 0 || ends.second.rank < 0)
      continue;
    const trace::Span &send = span(ends.first), &recv = span(ends.second);
    int64_t both = std::max(send.beginNs, recv.beginNs);
    setWait(ends.first, both);
    setWait(ends.second, both);
    pairs.push_back(ends);
  }

  json events = json::array();
  for (size_t r = 0; r < ranks.size(); ++r) {
    int rank = int(r);
    events.push_back({{"ph", "M"}, {"pid", rank}, {"name", "process_name"},
                      {"args", {{"name", "rank " + std::to_string(r)}}}});
    events.push_back({{"ph", "M"}, {"pid", rank},
                      {"name", "process_sort_index"},
                      {"args", {{"sort_index", rank}}}});
    std::set<int> threads;
    for (const trace::Span &s : ranks[r])
      threads.insert(s.thread);
    for (int t : threads)
      events.push_back(
          {{"ph", "M"}, {"pid", rank}, {"tid", t}, {"name", "thread_name"},
           {"args", {{"name", t == 0 ? std::string("main")
                                     : "thread " + std::to_string(t)}}}});

    for (size_t i = 0; i < ranks[r].size(); ++i) {
      const trace::Span &s = ranks[r][i];
      json args = s.args.empty() ? json::object()
                                 : json::parse("{" + s.args + "}");
      int64_t wait = waits[r][i];
      if (wait >= 0) {
        args["wait_us"] = us(wait);
        args["transfer_us"] = us(s.endNs - s.beginNs - wait);
      }
      events.push_back(completeEvent(rank, s.thread, s.name, s.category,
                                     s.beginNs, s.endNs, std::move(args)));
      if (wait > 0)
        events.push_back(completeEvent(
            rank, s.thread,
            s.peer >= 0 ? "waiting for rank " + std::to_string(s.peer)
                        : std::string("waiting for peers"),
            "wait", s.beginNs, s.beginNs + wait, json::object()));
    }

    // Idle time inside each run: on the thread that ran it, what no program
    // call or pipeline step covers.
    for (const trace::Span &run : ranks[r]) {
      if (run.category != "run")
        continue;
      std::vector<std::pair<int64_t, int64_t>> busy;
      for (const trace::Span &s : ranks[r])
        if (s.thread == run.thread &&
            (s.category == "program" || s.category == "pipeline") &&
            s.beginNs >= run.beginNs && s.endNs <= run.endNs)
          busy.push_back({s.beginNs, s.endNs});
      std::sort(busy.begin(), busy.end());
      int64_t cursor = run.beginNs;
      auto idle = [&](int64_t from, int64_t to) {
        if (to - from >= kMinIdleNs)
          events.push_back(completeEvent(rank, run.thread, "idle", "idle",
                                         from, to, json::object()));
      };
      for (const auto &[begin, end] : busy) {
        idle(cursor, begin);
        cursor = std::max(cursor, end);
      }
      idle(cursor, run.endNs);
    }
  }
  // Arrows from each message's send to its receive.
  int64_t id = 0;
  for (const auto &[send, recv] : pairs) {
    const trace::Span &s = span(send), &d = span(recv);
    events.push_back({{"ph", "s"}, {"id", id}, {"pid", send.rank},
                      {"tid", s.thread}, {"ts", us(s.beginNs)},
                      {"name", "message"}, {"cat", "message"}});
    events.push_back({{"ph", "f"}, {"bp", "e"}, {"id", id},
                      {"pid", recv.rank}, {"tid", d.thread},
                      {"ts", us(d.endNs)}, {"name", "message"},
                      {"cat", "message"}});
    ++id;
  }

  json file = {{"traceEvents", std::move(events)},
               {"displayTimeUnit", "ms"},
               {"otherData",
                {{"tool", "telar-run"},
                 {"version", TELAR_VERSION},
                 {"artifact", artifact},
                 {"ranks", ranks.size()},
                 {"clock", "microseconds since every rank left a barrier"}}}};
  return file.dump(1);
}

} // namespace

void traceRun(int64_t number, const char *kind, trace::Clock::time_point begin,
              trace::Clock::time_point end) {
  if (trace::enabled())
    trace::record("run", "run " + std::to_string(number) + " (" + kind + ")",
                  begin, end,
                  "\"run\": " + std::to_string(number) +
                      ", \"kind\": " + trace::quote(kind));
}

void checkTraceFile(const Options &o, const Job &job) {
  if (!o.trace.empty() && job.rank == 0 && !std::ofstream(o.trace))
    throw Error("cannot write the trace '" + o.trace +
                "': " + std::strerror(errno));
}

void startTrace(const Options &o, const Job &job) {
  if (o.trace.empty())
    return;
  if (job.world) {
    comm::WaitScope wait("barrier", "the world");
    job.world->barrier();
  }
  trace::start(trace::Clock::now());
}

void finishTrace(const Options &o, const Job &job) {
  if (o.trace.empty())
    return;
  std::vector<trace::Span> mine = trace::stop();
  std::vector<std::vector<trace::Span>> ranks;
  if (job.world && job.multi()) {
    comm::Watchdog::setPhase("gathering the trace");
    std::string text = toJson(mine).dump();
    std::vector<int64_t> sizes =
        allGather<int64_t>(job, {int64_t(text.size())}, comm::DataType::I64);
    // The spans travel apart from the program's messages: a communicator
    // of their own (collective).
    std::unique_ptr<comm::Communicator> channel;
    {
      comm::WaitScope wait("split", "the world");
      channel = job.world->split(0, job.rank);
    }
    if (job.rank != 0) {
      comm::WaitScope wait("send of the trace to", "", 0);
      channel->send(text.data(), int64_t(text.size()), comm::DataType::I8, 0,
                    0);
      return;
    }
    ranks.push_back(std::move(mine));
    for (int r = 1; r < job.size; ++r) {
      std::string other(size_t(sizes[size_t(r)]), '\0');
      comm::WaitScope wait("recv of the trace from", "", r);
      channel->recv(other.data(), int64_t(other.size()), comm::DataType::I8,
                    r, 0);
      ranks.push_back(fromJson(json::parse(other)));
    }
  } else {
    ranks.push_back(std::move(mine));
  }
  size_t count = 0;
  for (const auto &spans : ranks)
    count += spans.size();
  std::string text = formatTrace(ranks, o.artifact);
  // FILE.html: the page that draws it (lib/view), the trace inside.
  if (endsWith(o.trace, ".html"))
    text = telar_view::renderPage("telar-run trace: " + o.artifact,
                                  "{\"kind\": \"trace\", \"trace\": " +
                                      text + "}");
  std::ofstream out(o.trace, std::ios::binary);
  if (!out || !(out << text) || !out.flush())
    throw Error("cannot write the trace '" + o.trace +
                "': " + std::strerror(errno));
  if (!o.quiet)
    std::fprintf(stderr, "telar-run: wrote the trace %s (%zu spans, %d "
                         "rank%s)\n",
                 o.trace.c_str(), count, job.size, job.size == 1 ? "" : "s");
}

} // namespace telar::tools::run
