//===- Schedule.cpp - Pipeline schedules as tables ------------------------===//
//
// buildSchedule works in three steps: the compute order of each position
// (the schedule kind), a nominal timing of that order (list scheduling with
// forward 1 and backward 2 per stage, transfers free and unbuffered), and
// the placement of every transfer at a time both its positions are between
// computes. Sorting all events by time gives one global order; each
// position's list is its part of it, which is what makes the table
// deadlock-free under rendezvous send/recv.
//
//===----------------------------------------------------------------------===//

#include "telar/sharding/core/Schedule.h"

#include <algorithm>
#include <map>
#include <set>
#include <stdexcept>
#include <tuple>

using namespace telar_sharding;

const char *telar_sharding::getScheduleKindName(ScheduleKind kind) {
  switch (kind) {
  case ScheduleKind::GPipe:
    return "gpipe";
  case ScheduleKind::OneFOneB:
    return "1f1b";
  case ScheduleKind::Interleaved:
    return "interleaved";
  }
  return "?";
}

std::optional<ScheduleKind>
telar_sharding::parseScheduleKindName(std::string_view name) {
  if (name == "gpipe")
    return ScheduleKind::GPipe;
  if (name == "1f1b")
    return ScheduleKind::OneFOneB;
  if (name == "interleaved")
    return ScheduleKind::Interleaved;
  return std::nullopt;
}

const char *telar_sharding::getPipelineStepKindName(PipelineStepKind kind) {
  switch (kind) {
  case PipelineStepKind::Forward:
    return "forward";
  case PipelineStepKind::Backward:
    return "backward";
  case PipelineStepKind::Optimizer:
    return "optimizer";
  case PipelineStepKind::Send:
    return "send";
  case PipelineStepKind::Recv:
    return "recv";
  }
  return "?";
}

std::optional<PipelineStepKind>
telar_sharding::parsePipelineStepKindName(std::string_view name) {
  for (PipelineStepKind kind : {PipelineStepKind::Forward, PipelineStepKind::Backward,
                        PipelineStepKind::Optimizer, PipelineStepKind::Send, PipelineStepKind::Recv})
    if (name == getPipelineStepKindName(kind))
      return kind;
  return std::nullopt;
}

std::string telar_sharding::formatScheduleStep(const ScheduleStep &step) {
  std::string s = getPipelineStepKindName(step.kind);
  if (step.gradient)
    s += " gradient";
  s += " mb " + std::to_string(step.microbatch) + " stage " +
       std::to_string(step.stage);
  if (step.kind == ScheduleStep::Kind::Send)
    s += " -> " + std::to_string(step.peerStage);
  else if (step.kind == ScheduleStep::Kind::Recv)
    s += " <- " + std::to_string(step.peerStage);
  return s;
}

double telar_sharding::getTheoreticalBubble(ScheduleKind kind,
                                            int64_t positions,
                                            int64_t virtualStages,
                                            int64_t microbatches) {
  if (positions < 1 || virtualStages < 1 || microbatches < 1)
    throw std::invalid_argument(
        "getTheoreticalBubble: positions, virtual stages and microbatches "
        "must be at least 1");
  double p = double(positions), m = double(microbatches);
  if (kind == ScheduleKind::Interleaved)
    m *= double(virtualStages);
  return (p - 1) / (m + p - 1);
}

//===----------------------------------------------------------------------===//
// buildSchedule
//===----------------------------------------------------------------------===//

namespace {

/// One compute: a stage's forward or backward pass on a microbatch.
struct Compute {
  bool backward = false;
  int64_t microbatch = 0, stage = 0;
};

/// The compute order of each position.
std::vector<std::vector<Compute>> getComputeOrder(ScheduleKind kind, int64_t P,
                                                  int64_t V, int64_t M,
                                                  bool forwardOnly) {
  std::vector<std::vector<Compute>> order(static_cast<size_t>(P));
  for (int64_t p = 0; p < P; ++p) {
    auto &list = order[size_t(p)];
    if (kind == ScheduleKind::Interleaved) {
      const int64_t total = M * V;
      auto forward = [&](int64_t k) {
        int64_t chunk = (k / P) % V;
        return Compute{false, (k / (P * V)) * P + k % P, chunk * P + p};
      };
      auto backward = [&](int64_t k) {
        int64_t chunk = V - 1 - (k / P) % V;
        return Compute{true, (k / (P * V)) * P + k % P, chunk * P + p};
      };
      int64_t warmup = forwardOnly || M == P
                           ? total
                           : std::min(total, (P - p - 1) * 2 + (V - 1) * P);
      for (int64_t k = 0; k < warmup; ++k)
        list.push_back(forward(k));
      if (forwardOnly)
        continue;
      int64_t steady = total - warmup;
      for (int64_t i = 0; i < steady; ++i) {
        list.push_back(forward(warmup + i));
        list.push_back(backward(i));
      }
      for (int64_t i = steady; i < total; ++i)
        list.push_back(backward(i));
      continue;
    }
    if (kind == ScheduleKind::GPipe || forwardOnly) {
      for (int64_t m = 0; m < M; ++m)
        list.push_back({false, m, p});
      if (!forwardOnly)
        for (int64_t m = 0; m < M; ++m)
          list.push_back({true, m, p});
      continue;
    }
    // 1F1B.
    int64_t warmup = std::min(P - 1 - p, M);
    for (int64_t m = 0; m < warmup; ++m)
      list.push_back({false, m, p});
    for (int64_t i = 0; i < M - warmup; ++i) {
      list.push_back({false, warmup + i, p});
      list.push_back({true, i, p});
    }
    for (int64_t i = M - warmup; i < M; ++i)
      list.push_back({true, i, p});
  }
  return order;
}

/// An event of the global order: a compute on one position, or a transfer
/// (a Send on the sender's position and a Recv on the receiver's; the two
/// halves of a transfer within one position are separate events).
struct Event {
  double time = 0;
  int cls = 0; // 0: transfer, 1: compute (transfers at t go before computes
               // starting at t, after computes ending at t)
  int64_t fromStage = 0, toStage = 0, microbatch = 0;
  bool gradient = false;
  int half = 0;         // 0: both halves or the Send; 1: a buffered Recv
  int64_t position = 0; // compute only
  ScheduleStep step;    // compute only

  auto key() const {
    return std::make_tuple(time, cls, gradient, fromStage, toStage, microbatch,
                           half, position);
  }
};

} // namespace

std::optional<PipelineSchedule> telar_sharding::buildSchedule(
    ScheduleKind kind, int64_t positions, int64_t virtualStages,
    int64_t microbatches, bool forwardOnly, const std::vector<StageEdge> &edges,
    std::string &error) {
  const int64_t P = positions, V = virtualStages, M = microbatches;
  const char *name = getScheduleKindName(kind);
  if (P < 1 || M < 1 || V < 1) {
    error = std::string(name) + " schedule: positions (" + std::to_string(P) +
            "), virtual stages (" + std::to_string(V) + ") and microbatches (" +
            std::to_string(M) + ") must be at least 1";
    return std::nullopt;
  }
  if (kind == ScheduleKind::Interleaved) {
    if (P < 2) {
      error = "the interleaved schedule needs at least 2 positions (has " +
              std::to_string(P) + ")";
      return std::nullopt;
    }
    if (V < 2) {
      error = "the interleaved schedule needs at least 2 virtual stages per "
              "position (has " +
              std::to_string(V) + ")";
      return std::nullopt;
    }
    if (M % P != 0) {
      error = "the interleaved schedule needs the microbatches (" +
              std::to_string(M) + ") to be a multiple of the positions (" +
              std::to_string(P) + ")";
      return std::nullopt;
    }
  } else if (V != 1) {
    error = std::string("the ") + name +
            " schedule has no virtual stages (virtual stages " +
            std::to_string(V) + "; use interleaved)";
    return std::nullopt;
  }
  const int64_t S = P * V;

  PipelineSchedule schedule;
  schedule.kind = kind;
  schedule.positions = P;
  schedule.virtualStages = V;
  schedule.microbatches = M;
  schedule.forwardOnly = forwardOnly;
  if (edges.empty()) {
    for (int64_t s = 0; s + 1 < S; ++s)
      schedule.edges.push_back({s, s + 1});
  } else {
    for (const StageEdge &edge : edges) {
      if (edge.from < 0 || edge.to >= S || edge.from >= edge.to) {
        error = "stage edge " + std::to_string(edge.from) + " -> " +
                std::to_string(edge.to) +
                (edge.from >= edge.to && edge.from >= 0 && edge.to < S
                     ? " does not go forward"
                     : " names a stage outside [0, " + std::to_string(S) + ")");
        return std::nullopt;
      }
      schedule.edges.push_back(edge);
    }
    std::sort(schedule.edges.begin(), schedule.edges.end(),
              [](const StageEdge &a, const StageEdge &b) {
                return std::make_pair(a.from, a.to) <
                       std::make_pair(b.from, b.to);
              });
    schedule.edges.erase(
        std::unique(schedule.edges.begin(), schedule.edges.end()),
        schedule.edges.end());
  }
  std::vector<std::vector<int64_t>> producers(static_cast<size_t>(S)),
      consumers(static_cast<size_t>(S));
  for (const StageEdge &edge : schedule.edges) {
    producers[size_t(edge.to)].push_back(edge.from);
    consumers[size_t(edge.from)].push_back(edge.to);
  }

  // Nominal timing of the compute order (list scheduling): a compute starts
  // when its position is free and its inputs are done.
  std::vector<std::vector<Compute>> order =
      getComputeOrder(kind, P, V, M, forwardOnly);
  auto index = [&](bool backward, int64_t m, int64_t s) {
    return size_t(((backward ? 1 : 0) * M + m) * S + s);
  };
  const double kUndone = -1;
  std::vector<double> start(size_t(2 * M * S), kUndone),
      end(size_t(2 * M * S), kUndone);
  std::vector<size_t> next(static_cast<size_t>(P), 0);
  std::vector<double> freeAt(static_cast<size_t>(P), 0);
  size_t remaining = 0;
  for (const auto &list : order)
    remaining += list.size();
  while (remaining) {
    bool progress = false;
    for (int64_t p = 0; p < P; ++p) {
      const auto &list = order[size_t(p)];
      while (next[size_t(p)] < list.size()) {
        const Compute &c = list[next[size_t(p)]];
        double ready = freeAt[size_t(p)];
        bool blocked = false;
        auto need = [&](bool backward, int64_t s) {
          double e = end[index(backward, c.microbatch, s)];
          if (e == kUndone)
            blocked = true;
          ready = std::max(ready, e);
        };
        if (!c.backward) {
          for (int64_t a : producers[size_t(c.stage)])
            need(false, a);
        } else {
          need(false, c.stage);
          for (int64_t t : consumers[size_t(c.stage)])
            need(true, t);
        }
        if (blocked)
          break;
        size_t i = index(c.backward, c.microbatch, c.stage);
        start[i] = ready;
        end[i] = ready + (c.backward ? 2.0 : 1.0);
        freeAt[size_t(p)] = end[i];
        ++next[size_t(p)];
        --remaining;
        progress = true;
      }
    }
    if (!progress) {
      // The orders above are consistent for every valid input; this guards
      // against a change to them.
      error = std::string("internal error: the ") + name +
              " compute order is cyclic";
      return std::nullopt;
    }
  }

  // Each position's compute intervals, in time order, to tell whether it is
  // between computes at a time.
  std::vector<std::vector<std::pair<double, double>>> busy(
      static_cast<size_t>(P));
  for (int64_t p = 0; p < P; ++p)
    for (const Compute &c : order[size_t(p)]) {
      size_t i = index(c.backward, c.microbatch, c.stage);
      busy[size_t(p)].push_back({start[i], end[i]});
    }
  // When position p is next between computes at or after t.
  auto nextFree = [&](int64_t p, double t) {
    const auto &intervals = busy[size_t(p)];
    auto it = std::lower_bound(intervals.begin(), intervals.end(), t,
                               [](const std::pair<double, double> &iv,
                                  double x) { return iv.first < x; });
    if (it == intervals.begin() || std::prev(it)->second <= t)
      return t;
    return std::prev(it)->second;
  };
  // Where in [lo, hi] a transfer between positions p and q goes: the latest
  // time both are between computes. When there is none (both busy without a
  // common pause, as can happen with skip edges or few positions), the time
  // that makes the one arriving first wait least: under rendezvous the
  // transfer then really happens when the later one is free.
  auto placeTransfer = [&](int64_t p, int64_t q, double lo, double hi) {
    if (nextFree(p, hi) == hi && nextFree(q, hi) == hi)
      return hi;
    std::vector<double> candidates{hi};
    for (int64_t r : {p, q}) {
      // The intervals do not overlap, so those touching [lo, hi] are
      // consecutive: from the first ending at or after lo.
      const auto &intervals = busy[size_t(r)];
      auto it = std::lower_bound(intervals.begin(), intervals.end(), lo,
                                 [](const std::pair<double, double> &iv,
                                    double x) { return iv.second < x; });
      for (; it != intervals.end() && it->first <= hi; ++it) {
        if (it->first >= lo)
          candidates.push_back(it->first);
        if (it->second <= hi)
          candidates.push_back(it->second);
      }
    }
    std::sort(candidates.rbegin(), candidates.rend());
    double best = hi, bestWait = -1;
    for (double t : candidates) {
      double wait = std::max(nextFree(p, t), nextFree(q, t)) - t;
      if (bestWait < 0 || wait < bestWait) {
        best = t;
        bestWait = wait;
      }
      if (wait == 0)
        break;
    }
    return best;
  };

  std::vector<Event> events;
  for (int64_t p = 0; p < P; ++p)
    for (const Compute &c : order[size_t(p)]) {
      Event e;
      e.time = start[index(c.backward, c.microbatch, c.stage)];
      e.cls = 1;
      e.position = p;
      e.step.kind = c.backward ? ScheduleStep::Kind::Backward
                               : ScheduleStep::Kind::Forward;
      e.step.microbatch = c.microbatch;
      e.step.stage = c.stage;
      events.push_back(e);
    }
  auto addTransfer = [&](int64_t from, int64_t to, int64_t m, bool gradient) {
    double produced = end[index(gradient, m, from)];
    double needed = start[index(gradient, m, to)];
    Event e;
    e.fromStage = from;
    e.toStage = to;
    e.microbatch = m;
    e.gradient = gradient;
    int64_t p = schedule.getPosition(from), q = schedule.getPosition(to);
    if (p == q) {
      // Within one position: the Send right before its Recv, before the
      // consumer, so that the runtime can do the two as one exchange among
      // the position's ranks.
      e.time = needed;
      events.push_back(e);
      e.half = 1;
      events.push_back(e);
      return;
    }
    e.time = placeTransfer(p, q, produced, needed);
    events.push_back(e);
  };
  for (int64_t m = 0; m < M; ++m)
    for (const StageEdge &edge : schedule.edges) {
      addTransfer(edge.from, edge.to, m, false);
      if (!forwardOnly)
        addTransfer(edge.to, edge.from, m, true);
    }
  std::sort(events.begin(), events.end(),
            [](const Event &a, const Event &b) { return a.key() < b.key(); });

  schedule.steps.assign(size_t(P), {});
  for (const Event &e : events) {
    if (e.cls == 1) {
      schedule.steps[size_t(e.position)].push_back(e.step);
      continue;
    }
    ScheduleStep send{ScheduleStep::Kind::Send, e.microbatch, e.fromStage,
                      e.toStage, e.gradient};
    ScheduleStep recv{ScheduleStep::Kind::Recv, e.microbatch, e.toStage,
                      e.fromStage, e.gradient};
    int64_t p = schedule.getPosition(e.fromStage),
            q = schedule.getPosition(e.toStage);
    if (p == q) {
      schedule.steps[size_t(p)].push_back(e.half == 0 ? send : recv);
      continue;
    }
    schedule.steps[size_t(p)].push_back(send);
    schedule.steps[size_t(q)].push_back(recv);
  }
  return schedule;
}

//===----------------------------------------------------------------------===//
// checkSchedule and simulateSchedule
//===----------------------------------------------------------------------===//

namespace {

using Kind = ScheduleStep::Kind;

/// Runs the table under rendezvous send/recv. `onStep(p, step)` is called
/// for every step of position p as it completes (a cross-position Send just
/// before its Recv); a non-empty return stops the run with that message.
/// Returns "" or what went wrong (a malformed step, what is stuck).
template <typename StepFn>
std::string run(const PipelineSchedule &schedule, StepFn onStep) {
  const int64_t P = schedule.positions, S = schedule.getNumStages();
  if (P < 1 || schedule.virtualStages < 1 || schedule.microbatches < 1)
    return "the schedule has " + std::to_string(P) + " positions, " +
           std::to_string(schedule.virtualStages) + " virtual stages and " +
           std::to_string(schedule.microbatches) + " microbatches";
  if (int64_t(schedule.steps.size()) != P)
    return "the schedule has steps for " +
           std::to_string(schedule.steps.size()) + " positions, not " +
           std::to_string(P);
  for (int64_t p = 0; p < P; ++p)
    for (size_t i = 0; i < schedule.steps[size_t(p)].size(); ++i) {
      const ScheduleStep &step = schedule.steps[size_t(p)][i];
      std::string where = "position " + std::to_string(p) + " step " +
                          std::to_string(i) + " (" + formatScheduleStep(step) +
                          ")";
      if (step.stage < 0 || step.stage >= S)
        return where + ": stage out of range [0, " + std::to_string(S) + ")";
      if (schedule.getPosition(step.stage) != p)
        return where + ": stage " + std::to_string(step.stage) +
               " runs on position " +
               std::to_string(schedule.getPosition(step.stage));
      if (step.microbatch < 0 || step.microbatch >= schedule.microbatches)
        return where + ": microbatch out of range";
      if ((step.kind == Kind::Send || step.kind == Kind::Recv) &&
          (step.peerStage < 0 || step.peerStage >= S ||
           step.peerStage == step.stage))
        return where + ": bad peer stage";
    }

  auto matches = [](const ScheduleStep &send, const ScheduleStep &recv) {
    return recv.kind == Kind::Recv && recv.microbatch == send.microbatch &&
           recv.stage == send.peerStage && recv.peerStage == send.stage &&
           recv.gradient == send.gradient;
  };
  auto where = [&](int64_t p, size_t i) {
    return "position " + std::to_string(p) + " step " + std::to_string(i) +
           " (" + formatScheduleStep(schedule.steps[size_t(p)][i]) + ")";
  };
  std::vector<size_t> next(static_cast<size_t>(P), 0);
  // Buffered transfers within a position: (microbatch, from, to, gradient).
  std::map<std::tuple<int64_t, int64_t, int64_t, bool>, int64_t> buffered;
  while (true) {
    bool progress = false, done = true;
    for (int64_t p = 0; p < P; ++p) {
      const auto &list = schedule.steps[size_t(p)];
      while (next[size_t(p)] < list.size()) {
        size_t i = next[size_t(p)];
        const ScheduleStep &step = list[i];
        if (step.kind == Kind::Send || step.kind == Kind::Recv) {
          int64_t q = schedule.getPosition(step.peerStage);
          if (q == p) {
            if (step.kind == Kind::Send) {
              ++buffered[{step.microbatch, step.stage, step.peerStage,
                          step.gradient}];
            } else {
              auto it = buffered.find(
                  {step.microbatch, step.peerStage, step.stage, step.gradient});
              if (it == buffered.end() || it->second == 0)
                break;
              --it->second;
            }
          } else {
            // A cross-position pair completes when both are at it; the Send
            // side moves both (a Recv waits for its Send to get here).
            if (step.kind == Kind::Recv)
              break;
            const auto &peer = schedule.steps[size_t(q)];
            if (next[size_t(q)] >= peer.size() ||
                !matches(step, peer[next[size_t(q)]]))
              break;
            if (std::string error = onStep(p, step); !error.empty())
              return where(p, i) + ": " + error;
            size_t j = next[size_t(q)]++;
            if (std::string error = onStep(q, peer[j]); !error.empty())
              return where(q, j) + ": " + error;
            ++next[size_t(p)];
            progress = true;
            continue;
          }
        }
        if (std::string error = onStep(p, step); !error.empty())
          return where(p, i) + ": " + error;
        ++next[size_t(p)];
        progress = true;
      }
      if (next[size_t(p)] < list.size())
        done = false;
    }
    if (done)
      return "";
    if (progress)
      continue;
    std::string message = "the schedule deadlocks:";
    for (int64_t p = 0; p < P; ++p) {
      const auto &list = schedule.steps[size_t(p)];
      if (next[size_t(p)] >= list.size())
        continue;
      const ScheduleStep &step = list[next[size_t(p)]];
      message += " position " + std::to_string(p) + " is stuck at step " +
                 std::to_string(next[size_t(p)]) + " (" +
                 formatScheduleStep(step) + ")";
      int64_t q = schedule.getPosition(step.peerStage);
      if (q == p) {
        message += ", with no earlier send on this position;";
        continue;
      }
      const auto &peer = schedule.steps[size_t(q)];
      message +=
          ", position " + std::to_string(q) +
          (next[size_t(q)] < peer.size()
               ? " is at step " + std::to_string(next[size_t(q)]) + " (" +
                     formatScheduleStep(peer[next[size_t(q)]]) + ");"
               : " has finished;");
    }
    message.pop_back();
    return message;
  }
}

} // namespace

std::string telar_sharding::checkSchedule(const PipelineSchedule &schedule) {
  const int64_t S = schedule.getNumStages(), M = schedule.microbatches;
  std::vector<StageEdge> edges = schedule.edges;
  if (edges.empty())
    for (int64_t s = 0; s + 1 < S; ++s)
      edges.push_back({s, s + 1});
  std::map<int64_t, std::vector<int64_t>> producers, consumers;
  std::set<std::pair<int64_t, int64_t>> edgeSet;
  for (const StageEdge &edge : edges) {
    if (edge.from < 0 || edge.to >= S || edge.from >= edge.to)
      return "stage edge " + std::to_string(edge.from) + " -> " +
             std::to_string(edge.to) + " is not a forward edge of " +
             std::to_string(S) + " stages";
    if (edgeSet.insert({edge.from, edge.to}).second) {
      producers[edge.to].push_back(edge.from);
      consumers[edge.from].push_back(edge.to);
    }
  }
  // What has run: (kind, microbatch, stage, peer, gradient).
  using Key = std::tuple<int, int64_t, int64_t, int64_t, bool>;
  std::set<Key> ran;
  auto key = [](Kind kind, int64_t m, int64_t s, int64_t peer, bool g) {
    return Key{int(kind), m, s, peer, g};
  };
  auto received = [&](int64_t m, int64_t from, int64_t to, bool g) {
    return ran.count(key(Kind::Recv, m, to, from, g)) != 0;
  };
  std::string error =
      run(schedule, [&](int64_t, const ScheduleStep &step) -> std::string {
        const int64_t m = step.microbatch, s = step.stage;
        bool transfer = step.kind == Kind::Send || step.kind == Kind::Recv;
        if (!ran.insert(key(step.kind, m, s, transfer ? step.peerStage : -1,
                            step.gradient))
                 .second)
          return "runs twice";
        switch (step.kind) {
        case Kind::Forward:
          for (int64_t a : producers[s])
            if (!received(m, a, s, false))
              return "its input from stage " + std::to_string(a) +
                     " has not arrived";
          return "";
        case Kind::Backward:
          if (schedule.forwardOnly)
            return "a backward step in a forward-only schedule";
          if (!ran.count(key(Kind::Forward, m, s, -1, false)))
            return "its forward has not run";
          for (int64_t t : consumers[s])
            if (!received(m, t, s, true))
              return "the gradient from stage " + std::to_string(t) +
                     " has not arrived";
          return "";
        case Kind::Optimizer:
          // Schedules hold none yet: the training issue adds them, after a
          // stage's last backward.
          return "an optimizer step";
        case Kind::Send:
        case Kind::Recv: {
          bool isSend = step.kind == Kind::Send;
          int64_t from = isSend ? s : step.peerStage;
          int64_t to = isSend ? step.peerStage : s;
          if (step.gradient && schedule.forwardOnly)
            return "a gradient transfer in a forward-only schedule";
          if (!edgeSet.count(step.gradient ? std::make_pair(to, from)
                                           : std::make_pair(from, to)))
            return "no stage edge between " + std::to_string(from) + " and " +
                   std::to_string(to);
          if (isSend &&
              !ran.count(key(step.gradient ? Kind::Backward : Kind::Forward, m,
                             s, -1, false)))
            return std::string("sent before its ") +
                   (step.gradient ? "backward" : "forward") + " ran";
          return "";
        }
        }
        return "";
      });
  if (!error.empty())
    return error;
  // Complete: every compute and transfer the edges call for ran (each once,
  // as checked above).
  for (int64_t m = 0; m < M; ++m)
    for (int64_t s = 0; s < S; ++s) {
      std::string what =
          "mb " + std::to_string(m) + " stage " + std::to_string(s);
      if (!ran.count(key(Kind::Forward, m, s, -1, false)))
        return "the forward of " + what + " never runs";
      if (!schedule.forwardOnly &&
          !ran.count(key(Kind::Backward, m, s, -1, false)))
        return "the backward of " + what + " never runs";
    }
  for (const auto &[from, to] : edgeSet)
    for (int64_t m = 0; m < M; ++m)
      for (bool g : {false, true}) {
        if (g && schedule.forwardOnly)
          continue;
        int64_t sender = g ? to : from, receiver = g ? from : to;
        if (!received(m, sender, receiver, g))
          return std::string("the ") + (g ? "gradient" : "value") + " of mb " +
                 std::to_string(m) + " from stage " + std::to_string(sender) +
                 " to stage " + std::to_string(receiver) +
                 " is never transferred";
      }
  return "";
}

ScheduleTiming
telar_sharding::simulateSchedule(const PipelineSchedule &schedule,
                                 const std::vector<double> &forwardSeconds,
                                 const std::vector<double> &backwardSeconds) {
  const int64_t S = schedule.getNumStages();
  if (int64_t(forwardSeconds.size()) != S)
    throw std::invalid_argument(
        "simulateSchedule: " + std::to_string(forwardSeconds.size()) +
        " forward times for " + std::to_string(S) + " stages");
  bool hasBackward = false;
  for (const auto &list : schedule.steps)
    for (const ScheduleStep &step : list)
      hasBackward |= step.kind == Kind::Backward;
  if ((hasBackward || !backwardSeconds.empty()) &&
      int64_t(backwardSeconds.size()) != S)
    throw std::invalid_argument(
        "simulateSchedule: " + std::to_string(backwardSeconds.size()) +
        " backward times for " + std::to_string(S) + " stages");
  const size_t P = size_t(std::max<int64_t>(schedule.positions, 0));
  ScheduleTiming timing;
  timing.busy.assign(P, 0);
  timing.steps.resize(P);
  std::vector<double> clock(P, 0);
  // A cross-position Recv's start: its position's clock when the matching
  // Send moved both (run() reports the Send just before its Recv).
  std::vector<double> recvStart(P, -1);
  std::string error =
      run(schedule, [&](int64_t p, const ScheduleStep &step) -> std::string {
        if (step.stage < 0 || step.stage >= S)
          return "stage out of range";
        double start = clock[size_t(p)];
        if (step.kind == Kind::Forward || step.kind == Kind::Backward) {
          double seconds = step.kind == Kind::Forward
                               ? forwardSeconds[size_t(step.stage)]
                               : backwardSeconds[size_t(step.stage)];
          clock[size_t(p)] += seconds;
          timing.busy[size_t(p)] += seconds;
        } else if (step.kind == Kind::Send) {
          // Rendezvous: both go on when the later one arrives (a buffered
          // transfer within a position costs nothing).
          size_t q = size_t(schedule.getPosition(step.peerStage));
          double t = std::max(clock[size_t(p)], clock[q]);
          if (q != size_t(p))
            recvStart[q] = clock[q];
          clock[size_t(p)] = clock[q] = t;
        } else if (recvStart[size_t(p)] >= 0) {
          start = recvStart[size_t(p)];
          recvStart[size_t(p)] = -1;
        }
        timing.steps[size_t(p)].push_back({step, start, clock[size_t(p)]});
        return "";
      });
  if (!error.empty())
    throw std::invalid_argument("simulateSchedule: " + error);
  for (double t : clock)
    timing.makespan = std::max(timing.makespan, t);
  double idle = 0;
  for (size_t p = 0; p < P; ++p) {
    timing.idle.push_back(timing.makespan - timing.busy[p]);
    idle += timing.idle.back();
  }
  timing.bubbleFraction =
      timing.makespan > 0 && P ? idle / double(P) / timing.makespan : 0;
  return timing;
}

std::vector<int64_t>
telar_sharding::getMaxInFlightPerStage(const PipelineSchedule &schedule) {
  std::vector<int64_t> alive(size_t(schedule.getNumStages()), 0),
      most(alive.size(), 0);
  for (const auto &list : schedule.steps)
    for (const ScheduleStep &step : list) {
      if (step.stage < 0 || step.stage >= int64_t(alive.size()))
        continue;
      size_t s = size_t(step.stage);
      if (step.kind == Kind::Forward) {
        most[s] = std::max(most[s], ++alive[s]);
        if (schedule.forwardOnly)
          alive[s] = 0;
      } else if (step.kind == Kind::Backward) {
        --alive[s];
      }
    }
  return most;
}

std::vector<int64_t>
telar_sharding::getMaxInFlight(const PipelineSchedule &schedule) {
  std::vector<int64_t> most;
  for (const auto &list : schedule.steps) {
    int64_t alive = 0, peak = 0;
    for (const ScheduleStep &step : list) {
      if (step.kind == Kind::Forward) {
        peak = std::max(peak, ++alive);
        if (schedule.forwardOnly)
          alive = 0;
      } else if (step.kind == Kind::Backward) {
        --alive;
      }
    }
    most.push_back(peak);
  }
  return most;
}
