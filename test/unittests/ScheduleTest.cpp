//===- ScheduleTest.cpp - Pipeline schedule tables ------------------------===//
//
// Every generated table (GPipe, 1F1B, interleaved; P 1..8, V 1..4, M 1..16;
// training and inference; the chain and extra stage edges) must run under
// rendezvous send/recv (checkSchedule) and be complete and causal, which
// this file checks on its own (verifyTable), not with the library. Then the
// timing: the simulated bubble at equal stage times against the formulas,
// and the activations 1F1B keeps alive against GPipe's.
//
//===----------------------------------------------------------------------===//

#include "telar/sharding/core/Schedule.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <ostream>
#include <set>
#include <stdexcept>
#include <tuple>

using namespace telar_sharding;

namespace {

using Kind = ScheduleStep::Kind;

const ScheduleKind kKinds[] = {ScheduleKind::GPipe, ScheduleKind::OneFOneB,
                               ScheduleKind::Interleaved};

} // namespace

namespace telar_sharding {
// Readable gtest failures.
void PrintTo(const ScheduleStep &step, std::ostream *os) {
  *os << formatScheduleStep(step);
}
} // namespace telar_sharding

namespace {

ScheduleStep fwd(int64_t m, int64_t s) {
  return {Kind::Forward, m, s, -1, false};
}
ScheduleStep bwd(int64_t m, int64_t s) {
  return {Kind::Backward, m, s, -1, false};
}
ScheduleStep send(int64_t m, int64_t s, int64_t t, bool g = false) {
  return {Kind::Send, m, s, t, g};
}
ScheduleStep recv(int64_t m, int64_t s, int64_t t, bool g = false) {
  return {Kind::Recv, m, s, t, g};
}

std::string str(const PipelineSchedule &schedule) {
  std::string s;
  for (size_t p = 0; p < schedule.steps.size(); ++p) {
    s += "position " + std::to_string(p) + ":";
    for (const ScheduleStep &step : schedule.steps[p])
      s += " [" + formatScheduleStep(step) + "]";
    s += "\n";
  }
  return s;
}

/// Completeness and causality, independently of the library: every
/// microbatch's forward (and, training, backward) of every stage exactly
/// once on its position; exactly the transfers the edges call for, each
/// with one Send and one Recv; and on each position the order a dataflow
/// needs (a Send after the compute producing it, a Recv before the one
/// consuming it, a backward after its forward). Returns "" or the failure.
std::string verifyTable(const PipelineSchedule &sc,
                        const std::vector<StageEdge> &edges) {
  const int64_t P = sc.positions, S = sc.getNumStages(), M = sc.microbatches;
  if (int64_t(sc.steps.size()) != P)
    return "wrong number of positions";
  // (kind, m, stage, peer, gradient) -> (position, index), each once.
  std::map<std::tuple<int, int64_t, int64_t, int64_t, bool>,
           std::pair<int64_t, size_t>>
      at;
  for (int64_t p = 0; p < P; ++p)
    for (size_t i = 0; i < sc.steps[size_t(p)].size(); ++i) {
      const ScheduleStep &st = sc.steps[size_t(p)][i];
      if (st.stage % P != p)
        return "stage " + std::to_string(st.stage) + " on position " +
               std::to_string(p);
      bool transfer = st.kind == Kind::Send || st.kind == Kind::Recv;
      auto key = std::make_tuple(int(st.kind), st.microbatch, st.stage,
                                 transfer ? st.peerStage : -1, st.gradient);
      if (!at.emplace(key, std::make_pair(p, i)).second)
        return "repeated step " + formatScheduleStep(st);
    }
  size_t expected = 0;
  auto indexOf = [&](Kind kind, int64_t m, int64_t s, int64_t peer,
                     bool g) -> std::optional<size_t> {
    auto it = at.find(std::make_tuple(int(kind), m, s, peer, g));
    if (it == at.end())
      return std::nullopt;
    return it->second.second;
  };
  for (int64_t m = 0; m < M; ++m)
    for (int64_t s = 0; s < S; ++s) {
      auto f = indexOf(Kind::Forward, m, s, -1, false);
      if (!f)
        return "no forward of mb " + std::to_string(m) + " stage " +
               std::to_string(s);
      ++expected;
      if (sc.forwardOnly)
        continue;
      auto b = indexOf(Kind::Backward, m, s, -1, false);
      if (!b)
        return "no backward of mb " + std::to_string(m) + " stage " +
               std::to_string(s);
      if (*b < *f)
        return "backward before forward, mb " + std::to_string(m) + " stage " +
               std::to_string(s);
      ++expected;
    }
  for (const StageEdge &e : edges)
    for (int64_t m = 0; m < M; ++m)
      for (bool g : {false, true}) {
        if (g && sc.forwardOnly)
          continue;
        int64_t from = g ? e.to : e.from, to = g ? e.from : e.to;
        Kind compute = g ? Kind::Backward : Kind::Forward;
        std::string what = std::string(g ? "gradient " : "") + "mb " +
                           std::to_string(m) + " " + std::to_string(from) +
                           " -> " + std::to_string(to);
        auto s = indexOf(Kind::Send, m, from, to, g);
        auto r = indexOf(Kind::Recv, m, to, from, g);
        if (!s || !r)
          return "missing send or recv of " + what;
        if (*s < *indexOf(compute, m, from, -1, false))
          return "send before its compute: " + what;
        if (*r > *indexOf(compute, m, to, -1, false))
          return "recv after the compute needing it: " + what;
        // Within one position, the pair is one exchange: adjacent.
        if (from % P == to % P && *r != *s + 1)
          return "send and recv within a position not adjacent: " + what;
        expected += 2;
      }
  if (at.size() != expected)
    return std::to_string(at.size() - expected) + " steps too many";
  return "";
}

/// Per stage and microbatch, the values it receives come in ascending
/// producer stage and those it sends in ascending consumer stage.
std::string checkAscending(const PipelineSchedule &sc) {
  for (const auto &list : sc.steps) {
    std::map<std::tuple<int64_t, int64_t, bool>, int64_t> last;
    for (const ScheduleStep &st : list) {
      if ((st.kind != Kind::Send && st.kind != Kind::Recv) || st.gradient)
        continue;
      auto key =
          std::make_tuple(st.microbatch, st.stage, st.kind == Kind::Send);
      auto it = last.find(key);
      if (it != last.end() && it->second > st.peerStage)
        return formatScheduleStep(st) + " after peer stage " +
               std::to_string(it->second);
      last[key] = st.peerStage;
    }
  }
  return "";
}

/// The edge sets tried: the chain, the chain with skips (stage 0 used by
/// stage 2 and by the last, and by the next stage on its own position), and
/// (withPartial) a set without part of the chain, which shortens the
/// critical path.
std::vector<std::vector<StageEdge>> edgeSets(int64_t S, int64_t P,
                                             bool withPartial = true) {
  std::vector<std::vector<StageEdge>> sets{{}};
  if (S < 3)
    return sets;
  std::vector<StageEdge> chain;
  for (int64_t s = 0; s + 1 < S; ++s)
    chain.push_back({s, s + 1});
  std::vector<StageEdge> skips = chain;
  skips.push_back({0, 2});
  skips.push_back({0, S - 1});
  if (P < S)
    skips.push_back({0, P});
  skips.push_back({0, 2}); // repeats are dropped
  sets.push_back(skips);
  if (!withPartial)
    return sets;
  std::vector<StageEdge> partial;
  for (const StageEdge &e : chain)
    if (e.from != 1)
      partial.push_back(e);
  partial.push_back({0, 2});
  sets.push_back(partial);
  return sets;
}

std::vector<StageEdge> effectiveEdges(std::vector<StageEdge> edges, int64_t S) {
  if (edges.empty())
    for (int64_t s = 0; s + 1 < S; ++s)
      edges.push_back({s, s + 1});
  std::set<std::pair<int64_t, int64_t>> unique;
  std::vector<StageEdge> out;
  for (const StageEdge &e : edges)
    if (unique.insert({e.from, e.to}).second)
      out.push_back(e);
  return out;
}

TEST(Schedule, Names) {
  for (ScheduleKind kind : kKinds)
    EXPECT_EQ(parseScheduleKindName(getScheduleKindName(kind)), kind);
  EXPECT_STREQ(getScheduleKindName(ScheduleKind::OneFOneB), "1f1b");
  EXPECT_FALSE(parseScheduleKindName("GPipe"));
  EXPECT_FALSE(parseScheduleKindName("1F1B"));
  for (Kind kind : {Kind::Forward, Kind::Backward, Kind::Optimizer,
                    Kind::Send, Kind::Recv})
    EXPECT_EQ(parsePipelineStepKindName(getPipelineStepKindName(kind)), kind);
  EXPECT_STREQ(getPipelineStepKindName(Kind::Recv), "recv");
  EXPECT_FALSE(parsePipelineStepKindName("receive"));
  EXPECT_EQ(formatScheduleStep(send(0, 0, 2)), "send mb 0 stage 0 -> 2");
  EXPECT_EQ(formatScheduleStep(recv(3, 0, 1, true)),
            "recv gradient mb 3 stage 0 <- 1");
  EXPECT_EQ(formatScheduleStep(fwd(2, 1)), "forward mb 2 stage 1");
}

TEST(Schedule, Errors) {
  std::string error;
  EXPECT_FALSE(
      buildSchedule(ScheduleKind::Interleaved, 2, 2, 3, true, {}, error));
  EXPECT_EQ(error, "the interleaved schedule needs the microbatches (3) to be "
                   "a multiple of the positions (2)");
  EXPECT_FALSE(
      buildSchedule(ScheduleKind::Interleaved, 2, 1, 4, true, {}, error));
  EXPECT_NE(error.find("at least 2 virtual stages"), std::string::npos)
      << error;
  EXPECT_FALSE(
      buildSchedule(ScheduleKind::Interleaved, 1, 2, 4, true, {}, error));
  EXPECT_NE(error.find("at least 2 positions"), std::string::npos) << error;
  EXPECT_FALSE(buildSchedule(ScheduleKind::GPipe, 2, 2, 4, true, {}, error));
  EXPECT_NE(error.find("no virtual stages"), std::string::npos) << error;
  EXPECT_FALSE(
      buildSchedule(ScheduleKind::OneFOneB, 2, 2, 4, false, {}, error));
  EXPECT_FALSE(buildSchedule(ScheduleKind::GPipe, 0, 1, 4, true, {}, error));
  EXPECT_FALSE(buildSchedule(ScheduleKind::GPipe, 2, 1, 0, true, {}, error));
  EXPECT_FALSE(
      buildSchedule(ScheduleKind::GPipe, 3, 1, 2, true, {{2, 1}}, error));
  EXPECT_EQ(error, "stage edge 2 -> 1 does not go forward");
  EXPECT_FALSE(
      buildSchedule(ScheduleKind::GPipe, 3, 1, 2, true, {{1, 1}}, error));
  EXPECT_FALSE(
      buildSchedule(ScheduleKind::GPipe, 3, 1, 2, true, {{0, 3}}, error));
  EXPECT_EQ(error, "stage edge 0 -> 3 names a stage outside [0, 3)");
  EXPECT_FALSE(
      buildSchedule(ScheduleKind::GPipe, 3, 1, 2, true, {{-1, 1}}, error));
  EXPECT_THROW(getTheoreticalBubble(ScheduleKind::GPipe, 0, 1, 1),
               std::invalid_argument);
}

TEST(Schedule, SmallTablesByHand) {
  std::string error;
  // GPipe, 2 stages, 2 microbatches, inference: a pipeline.
  auto g = buildSchedule(ScheduleKind::GPipe, 2, 1, 2, true, {}, error);
  ASSERT_TRUE(g) << error;
  EXPECT_EQ(g->edges, (std::vector<StageEdge>{{0, 1}}));
  EXPECT_EQ(g->steps[0], (std::vector<ScheduleStep>{fwd(0, 0), send(0, 0, 1),
                                                    fwd(1, 0), send(1, 0, 1)}));
  EXPECT_EQ(g->steps[1], (std::vector<ScheduleStep>{recv(0, 1, 0), fwd(0, 1),
                                                    recv(1, 1, 0), fwd(1, 1)}));
  // 1F1B training, 2 stages, 3 microbatches: position 0 warms up with one
  // forward; it hands microbatch 1 over when position 1 is done with
  // microbatch 0's backward (the first time both are between computes),
  // then takes that gradient. A naive "send right after the forward" would
  // deadlock there (BrokenTablesAreReported).
  auto f = buildSchedule(ScheduleKind::OneFOneB, 2, 1, 3, false, {}, error);
  ASSERT_TRUE(f) << error;
  EXPECT_EQ(f->steps[0], (std::vector<ScheduleStep>{
                             fwd(0, 0), send(0, 0, 1), fwd(1, 0), send(1, 0, 1),
                             recv(0, 0, 1, true), bwd(0, 0), fwd(2, 0),
                             send(2, 0, 1), recv(1, 0, 1, true), bwd(1, 0),
                             recv(2, 0, 1, true), bwd(2, 0)}))
      << str(*f);
  EXPECT_EQ(f->steps[1], (std::vector<ScheduleStep>{
                             recv(0, 1, 0), fwd(0, 1), bwd(0, 1), recv(1, 1, 0),
                             send(0, 1, 0, true), fwd(1, 1), bwd(1, 1),
                             recv(2, 1, 0), send(1, 1, 0, true), fwd(2, 1),
                             bwd(2, 1), send(2, 1, 0, true)}))
      << str(*f);
  EXPECT_EQ(checkSchedule(*f), "");
  // Interleaved inference, 2 positions x 2 virtual stages, 2 microbatches:
  // position 0 runs stage 0 on both microbatches, then stage 2; position 1
  // stage 1, then stage 3.
  auto i = buildSchedule(ScheduleKind::Interleaved, 2, 2, 2, true, {}, error);
  ASSERT_TRUE(i) << error;
  EXPECT_EQ(i->steps[0], (std::vector<ScheduleStep>{
                             fwd(0, 0), send(0, 0, 1), fwd(1, 0), send(1, 0, 1),
                             recv(0, 2, 1), fwd(0, 2), recv(1, 2, 1),
                             send(0, 2, 3), fwd(1, 2), send(1, 2, 3)}))
      << str(*i);
  EXPECT_EQ(i->steps[1],
            (std::vector<ScheduleStep>{recv(0, 1, 0), fwd(0, 1), recv(1, 1, 0),
                                       send(0, 1, 2), fwd(1, 1), send(1, 1, 2),
                                       recv(0, 3, 2), fwd(0, 3), recv(1, 3, 2),
                                       fwd(1, 3)}))
      << str(*i);
  EXPECT_EQ(checkSchedule(*i), "");
}

TEST(Schedule, EveryTableIsCompleteAndDeadlockFree) {
  int tables = 0;
  for (ScheduleKind kind : kKinds)
    for (int64_t P = 1; P <= 8; ++P)
      for (int64_t V = 1; V <= 4; ++V)
        for (int64_t M = 1; M <= 16; ++M) {
          bool valid = kind == ScheduleKind::Interleaved
                           ? P >= 2 && V >= 2 && M % P == 0
                           : V == 1;
          for (bool forwardOnly : {true, false})
            for (const auto &edges : edgeSets(P * V, P)) {
              std::string error;
              auto schedule =
                  buildSchedule(kind, P, V, M, forwardOnly, edges, error);
              std::string label = std::string(getScheduleKindName(kind)) +
                                  " P=" + std::to_string(P) +
                                  " V=" + std::to_string(V) +
                                  " M=" + std::to_string(M) +
                                  (forwardOnly ? " inference" : " training") +
                                  " edges=" + std::to_string(edges.size());
              if (!valid) {
                EXPECT_FALSE(schedule) << label;
                EXPECT_FALSE(error.empty()) << label;
                continue;
              }
              ASSERT_TRUE(schedule) << label << ": " << error;
              auto effective = effectiveEdges(edges, P * V);
              ASSERT_EQ(schedule->edges.size(), effective.size()) << label;
              ASSERT_EQ(checkSchedule(*schedule), "") << label << "\n"
                                                      << str(*schedule);
              ASSERT_EQ(verifyTable(*schedule, effective), "")
                  << label << "\n"
                  << str(*schedule);
              if (forwardOnly || edges.empty())
                ASSERT_EQ(checkAscending(*schedule), "") << label << "\n"
                                                         << str(*schedule);
              ++tables;
            }
        }
  // All three kinds with and without skips, training and inference.
  EXPECT_GT(tables, 1000);
}

/// Equal stages: forward 1 and backward `ratio` per position's share of the
/// model (split over its V virtual stages).
ScheduleTiming simulateEqual(const PipelineSchedule &sc, double ratio) {
  int64_t S = sc.getNumStages();
  double share = 1.0 / double(sc.virtualStages);
  std::vector<double> forward(size_t(S), share), backward;
  if (!sc.forwardOnly)
    backward.assign(size_t(S), ratio * share);
  return simulateSchedule(sc, forward, backward);
}

TEST(Schedule, BubbleMatchesTheoryForGPipeAnd1F1B) {
  for (ScheduleKind kind : {ScheduleKind::GPipe, ScheduleKind::OneFOneB})
    for (int64_t P = 1; P <= 8; ++P)
      for (int64_t M = 1; M <= 16; ++M)
        for (bool forwardOnly : {true, false})
          for (const auto &edges : edgeSets(P, P, /*withPartial=*/false))
            for (double ratio : {1.0, 2.0, 3.0}) {
              std::string error;
              auto sc = buildSchedule(kind, P, 1, M, forwardOnly, edges, error);
              ASSERT_TRUE(sc) << error;
              ScheduleTiming t = simulateEqual(*sc, ratio);
              double theory = getTheoreticalBubble(kind, P, 1, M);
              std::string label = std::string(getScheduleKindName(kind)) +
                                  " P=" + std::to_string(P) +
                                  " M=" + std::to_string(M) +
                                  (forwardOnly ? " inference" : " training") +
                                  " edges=" + std::to_string(edges.size()) +
                                  " backward=" + std::to_string(ratio);
              double perMicrobatch = forwardOnly ? 1 : 1 + ratio;
              for (int64_t p = 0; p < P; ++p) {
                EXPECT_NEAR(t.busy[size_t(p)], double(M) * perMicrobatch, 1e-9);
                EXPECT_NEAR(t.idle[size_t(p)], t.makespan - t.busy[size_t(p)],
                            1e-12);
              }
              // Nothing beats the formula at equal stages.
              EXPECT_GE(t.bubbleFraction, theory - 1e-9) << label;
              // 1F1B training with skip edges stalls under rendezvous
              // send/recv (Schedule.h): the two ends of a skip are never
              // between computes at once in the steady state.
              if (kind == ScheduleKind::OneFOneB && !forwardOnly &&
                  !edges.empty())
                continue;
              EXPECT_NEAR(t.bubbleFraction, theory, 1e-9) << label;
              EXPECT_NEAR(t.makespan, double(M + P - 1) * perMicrobatch, 1e-9)
                  << label;
              if (forwardOnly)
                break; // the ratio does not matter
            }
}

TEST(Schedule, OneFOneBKeepsAtMostPMicrobatchesInFlight) {
  std::string error;
  for (int64_t P = 2; P <= 8; ++P)
    for (int64_t M = 1; M <= 16; ++M) {
      auto f = buildSchedule(ScheduleKind::OneFOneB, P, 1, M, false, {}, error);
      auto g = buildSchedule(ScheduleKind::GPipe, P, 1, M, false, {}, error);
      ASSERT_TRUE(f && g) << error;
      std::vector<int64_t> inFlight = getMaxInFlight(*f);
      std::vector<int64_t> gpipe = getMaxInFlight(*g);
      ASSERT_EQ(inFlight.size(), size_t(P));
      for (int64_t p = 0; p < P; ++p) {
        EXPECT_EQ(inFlight[size_t(p)], std::min(P - p, M))
            << "1f1b P=" << P << " M=" << M << " position " << p;
        EXPECT_LE(inFlight[size_t(p)], P);
        // GPipe stashes every microbatch before the first backward.
        EXPECT_EQ(gpipe[size_t(p)], M);
      }
      if (M > P) {
        EXPECT_GT(gpipe[0], P);
      }
      EXPECT_EQ(getMaxInFlightPerStage(*f), inFlight);
    }
  // Inference stashes nothing: one microbatch at a time.
  auto inference = buildSchedule(ScheduleKind::GPipe, 4, 1, 8, true, {}, error);
  ASSERT_TRUE(inference);
  EXPECT_EQ(getMaxInFlight(*inference), (std::vector<int64_t>{1, 1, 1, 1}));
  // Interleaved: each position's stashed activations, over its chunks.
  auto interleaved =
      buildSchedule(ScheduleKind::Interleaved, 4, 2, 8, false, {}, error);
  ASSERT_TRUE(interleaved) << error;
  std::vector<int64_t> perPosition = getMaxInFlight(*interleaved);
  std::vector<int64_t> perStage = getMaxInFlightPerStage(*interleaved);
  for (int64_t p = 0; p < 4; ++p) {
    EXPECT_LE(perPosition[size_t(p)],
              perStage[size_t(p)] + perStage[size_t(p + 4)]);
    // Megatron's warm-up: (P - p - 1) * 2 + (V - 1) * P, plus the one in
    // the first steady step.
    EXPECT_EQ(perPosition[size_t(p)], (4 - p - 1) * 2 + 4 + 1) << p;
  }
}

TEST(Schedule, InterleavedBubble) {
  // The formula.
  EXPECT_DOUBLE_EQ(getTheoreticalBubble(ScheduleKind::Interleaved, 4, 2, 8),
                   3.0 / 19.0);
  EXPECT_DOUBLE_EQ(getTheoreticalBubble(ScheduleKind::GPipe, 4, 1, 8),
                   3.0 / 11.0);
  EXPECT_DOUBLE_EQ(getTheoreticalBubble(ScheduleKind::OneFOneB, 4, 1, 8),
                   3.0 / 11.0);
  EXPECT_DOUBLE_EQ(getTheoreticalBubble(ScheduleKind::Interleaved, 2, 4, 2),
                   1.0 / 9.0);
  EXPECT_DOUBLE_EQ(getTheoreticalBubble(ScheduleKind::GPipe, 1, 1, 5), 0.0);
  // V virtual stages cut the bubble V-fold in units of the whole model's
  // time per microbatch: (P-1)/V of M.
  for (int64_t P : {2, 4, 8})
    for (int64_t V : {2, 3, 4})
      for (int64_t M : {P, 2 * P}) {
        double b = getTheoreticalBubble(ScheduleKind::Interleaved, P, V, M);
        EXPECT_NEAR(b / (1 - b), double(P - 1) / double(V * M), 1e-12);
        EXPECT_LT(b, getTheoreticalBubble(ScheduleKind::GPipe, P, 1, M));
      }
  // The simulated tables: inference reaches the formula exactly, with or
  // without skip edges. Training cannot beat it; under rendezvous send/recv
  // interleaved's steady state stalls (Schedule.h), so it is not asserted
  // to reach it.
  std::string error;
  for (int64_t P = 2; P <= 8; ++P)
    for (int64_t V = 2; V <= 4; ++V)
      for (int64_t M = P; M <= 16; M += P)
        for (bool forwardOnly : {true, false})
          for (const auto &edges : edgeSets(P * V, P, /*withPartial=*/false)) {
            auto sc = buildSchedule(ScheduleKind::Interleaved, P, V, M,
                                    forwardOnly, edges, error);
            ASSERT_TRUE(sc) << error;
            double simulated = simulateEqual(*sc, 2.0).bubbleFraction;
            double theory =
                getTheoreticalBubble(ScheduleKind::Interleaved, P, V, M);
            std::string label = "P=" + std::to_string(P) +
                                " V=" + std::to_string(V) +
                                " M=" + std::to_string(M) +
                                " edges=" + std::to_string(edges.size());
            if (forwardOnly) {
              EXPECT_NEAR(simulated, theory, 1e-9) << label;
            } else {
              EXPECT_GE(simulated, theory - 1e-9) << label;
            }
          }
}

TEST(Schedule, SimulateByHand) {
  // GPipe inference, 2 stages (1 s and 2 s), 2 microbatches: position 0's
  // second send waits for position 1 to finish microbatch 0 (rendezvous).
  std::string error;
  auto g = buildSchedule(ScheduleKind::GPipe, 2, 1, 2, true, {}, error);
  ASSERT_TRUE(g);
  ScheduleTiming t = simulateSchedule(*g, {1, 2}, {});
  EXPECT_DOUBLE_EQ(t.makespan, 5);
  EXPECT_EQ(t.busy, (std::vector<double>{2, 4}));
  EXPECT_EQ(t.idle, (std::vector<double>{3, 1}));
  EXPECT_DOUBLE_EQ(t.bubbleFraction, 0.4);
  // The Gantt chart: stage 0 (1 s) computes both microbatches and sends
  // each as soon as it is done; stage 1 (2 s) waits 1 s for the first and
  // has the second waiting for it when it is done with the first.
  auto times = [](const std::vector<TimedStep> &steps) {
    std::vector<std::tuple<std::string, double, double>> out;
    for (const TimedStep &t : steps)
      out.emplace_back(formatScheduleStep(t.step), t.start, t.end);
    return out;
  };
  using Row = std::tuple<std::string, double, double>;
  ASSERT_EQ(t.steps.size(), 2u);
  EXPECT_EQ(times(t.steps[0]),
            (std::vector<Row>{{"forward mb 0 stage 0", 0, 1},
                              {"send mb 0 stage 0 -> 1", 1, 1},
                              {"forward mb 1 stage 0", 1, 2},
                              {"send mb 1 stage 0 -> 1", 2, 3}}));
  EXPECT_EQ(times(t.steps[1]),
            (std::vector<Row>{{"recv mb 0 stage 1 <- 0", 0, 1},
                              {"forward mb 0 stage 1", 1, 3},
                              {"recv mb 1 stage 1 <- 0", 3, 3},
                              {"forward mb 1 stage 1", 3, 5}}));
  EXPECT_THROW(simulateSchedule(*g, {1}, {}), std::invalid_argument);
  auto training = buildSchedule(ScheduleKind::GPipe, 2, 1, 2, false, {}, error);
  ASSERT_TRUE(training);
  EXPECT_THROW(simulateSchedule(*training, {1, 1}, {}), std::invalid_argument);
  // Training: forward 1, backward 2 per stage: (M + P - 1) * 3.
  EXPECT_DOUBLE_EQ(simulateSchedule(*training, {1, 1}, {2, 2}).makespan, 9);
}

TEST(Schedule, BrokenTablesAreReported) {
  // The naive 1F1B (every send right after its compute) deadlocks: position
  // 0 sends microbatch 1 while position 1 sends the gradient of microbatch
  // 0, and each waits for the other's receive.
  PipelineSchedule naive;
  naive.kind = ScheduleKind::OneFOneB;
  naive.positions = 2;
  naive.microbatches = 2;
  naive.forwardOnly = false;
  naive.edges = {{0, 1}};
  naive.steps = {{fwd(0, 0), send(0, 0, 1), fwd(1, 0), send(1, 0, 1),
                  recv(0, 0, 1, true), bwd(0, 0), recv(1, 0, 1, true),
                  bwd(1, 0)},
                 {recv(0, 1, 0), fwd(0, 1), bwd(0, 1), send(0, 1, 0, true),
                  recv(1, 1, 0), fwd(1, 1), bwd(1, 1), send(1, 1, 0, true)}};
  EXPECT_EQ(checkSchedule(naive),
            "the schedule deadlocks: position 0 is stuck at step 3 (send mb "
            "1 stage 0 -> 1), position 1 is at step 3 (send gradient mb 0 "
            "stage 1 -> 0); position 1 is stuck at step 3 (send gradient mb "
            "0 stage 1 -> 0), position 0 is at step 3 (send mb 1 stage 0 -> "
            "1)");
  EXPECT_THROW(simulateSchedule(naive, {1, 1}, {2, 2}), std::invalid_argument);

  // Generated tables broken on purpose: two receives swapped (out of
  // order), a receive dropped, a step repeated, one on the wrong position,
  // a forward before its input, a missing forward.
  std::string error;
  auto good = buildSchedule(ScheduleKind::GPipe, 3, 1, 3, true, {}, error);
  ASSERT_TRUE(good);
  ASSERT_EQ(checkSchedule(*good), "");
  auto find = [](std::vector<ScheduleStep> &list, const ScheduleStep &step) {
    auto it = std::find(list.begin(), list.end(), step);
    EXPECT_NE(it, list.end()) << formatScheduleStep(step);
    return it;
  };
  PipelineSchedule swapped = *good;
  std::iter_swap(find(swapped.steps[1], recv(0, 1, 0)),
                 find(swapped.steps[1], recv(1, 1, 0)));
  EXPECT_EQ(checkSchedule(swapped),
            "the schedule deadlocks: position 0 is stuck at step 1 (send mb 0 "
            "stage 0 -> 1), position 1 is at step 0 (recv mb 1 stage 1 <- 0); "
            "position 1 is stuck at step 0 (recv mb 1 stage 1 <- 0), position "
            "0 is at step 1 (send mb 0 stage 0 -> 1); position 2 is stuck at "
            "step 0 (recv mb 0 stage 2 <- 1), position 1 is at step 0 (recv mb "
            "1 stage 1 <- 0)")
      << str(swapped);

  PipelineSchedule dropped = *good;
  dropped.steps[2].erase(find(dropped.steps[2], recv(0, 2, 1)));
  EXPECT_EQ(checkSchedule(dropped),
            "position 2 step 0 (forward mb 0 stage 2): its input from stage 1 "
            "has not arrived")
      << str(dropped);
  // The receive and the forward dropped: the send is stuck, its peer done.
  dropped.steps[2].erase(find(dropped.steps[2], fwd(0, 2)));
  PipelineSchedule tail = dropped;
  EXPECT_NE(checkSchedule(tail).find("(send mb 0 stage 1 -> 2), position 2 "
                                     "is at step 0 (recv mb 1 stage 2 <- 1)"),
            std::string::npos)
      << checkSchedule(tail);
  PipelineSchedule lonely = *good;
  lonely.steps[0].push_back(send(2, 0, 1));
  EXPECT_NE(checkSchedule(lonely).find("position 1 has finished"),
            std::string::npos)
      << checkSchedule(lonely);

  PipelineSchedule twice = *good;
  twice.steps[0].push_back(fwd(0, 0));
  EXPECT_EQ(checkSchedule(twice),
            "position 0 step 6 (forward mb 0 stage 0): runs twice");
  PipelineSchedule misplaced = *good;
  misplaced.steps[0].push_back(fwd(0, 1));
  EXPECT_EQ(checkSchedule(misplaced),
            "position 0 step 6 (forward mb 0 stage 1): stage 1 runs on "
            "position 1");
  PipelineSchedule missing = *good;
  missing.steps[0].erase(find(missing.steps[0], fwd(2, 0)));
  EXPECT_EQ(checkSchedule(missing),
            "position 0 step 4 (send mb 2 stage 0 -> 1): sent before its "
            "forward ran");
  PipelineSchedule skipped = *good;
  skipped.steps[2].pop_back(); // the forward of mb 2 on stage 2
  EXPECT_EQ(checkSchedule(skipped), "the forward of mb 2 stage 2 never runs");
  PipelineSchedule noEdge = *good;
  noEdge.edges = {{0, 1}};
  EXPECT_EQ(checkSchedule(noEdge),
            "position 1 step 3 (send mb 0 stage 1 -> 2): no stage edge "
            "between 1 and 2")
      << str(*good);
  PipelineSchedule short_ = *good;
  short_.steps.pop_back();
  EXPECT_EQ(checkSchedule(short_),
            "the schedule has steps for 2 positions, not 3");
  // Training: a backward before the gradient it needs.
  auto training =
      buildSchedule(ScheduleKind::OneFOneB, 2, 1, 2, false, {}, error);
  ASSERT_TRUE(training);
  ASSERT_EQ(checkSchedule(*training), "");
  PipelineSchedule early = *training;
  auto &zeroList = early.steps[0];
  auto b0 = find(zeroList, bwd(0, 0));
  ScheduleStep b = *b0;
  zeroList.erase(b0);
  zeroList.insert(find(zeroList, recv(0, 0, 1, true)), b);
  EXPECT_EQ(checkSchedule(early).substr(checkSchedule(early).find(": ")),
            ": the gradient from stage 1 has not arrived")
      << checkSchedule(early);

  // A buffered transfer within one position needs its send first.
  auto skip = buildSchedule(ScheduleKind::Interleaved, 2, 2, 2, true,
                            {{0, 1}, {1, 2}, {2, 3}, {0, 2}}, error);
  ASSERT_TRUE(skip) << error;
  ASSERT_EQ(checkSchedule(*skip), "") << str(*skip);
  PipelineSchedule buffered = *skip;
  auto &zero = buffered.steps[0];
  auto sendIt = std::find(zero.begin(), zero.end(), send(0, 0, 2));
  ASSERT_NE(sendIt, zero.end()) << str(*skip);
  ScheduleStep moved = *sendIt;
  zero.erase(sendIt);
  zero.push_back(moved);
  std::string report = checkSchedule(buffered);
  EXPECT_NE(report.find("(recv mb 0 stage 2 <- 0), with no earlier send on "
                        "this position"),
            std::string::npos)
      << report << "\n"
      << str(buffered);
}

} // namespace
