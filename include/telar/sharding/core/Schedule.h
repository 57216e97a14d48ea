//===- Schedule.h - Pipeline schedules as tables ----------------*- C++ -*-===//
//
// A pipelined program runs S stages on P positions (rank groups) over M
// microbatches (docs/Pipeline.md). Its schedule is data: per position, the
// ordered list of steps (compute a stage's forward or backward pass on a
// microbatch, send or receive a boundary value) that the compiler writes
// into the manifest and the runtime's executor follows. This file generates
// the GPipe, 1F1B and interleaved (virtual stages) tables, checks that a
// table cannot deadlock under blocking (rendezvous) send/recv, and times it
// (the bubble). Plain C++17 (TelarShardingCore).
//
//===----------------------------------------------------------------------===//

#ifndef TELAR_SHARDING_CORE_SCHEDULE_H
#define TELAR_SHARDING_CORE_SCHEDULE_H

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace telar_sharding {

enum class ScheduleKind { GPipe, OneFOneB, Interleaved };

/// "gpipe", "1f1b", "interleaved".
const char *getScheduleKindName(ScheduleKind kind);
std::optional<ScheduleKind> parseScheduleKindName(std::string_view name);

/// What a pipeline step does: compute a stage's forward or backward pass on
/// a microbatch, apply the optimizer to a stage's weights once every
/// microbatch's gradients are in, or send or receive boundary values (or
/// their gradients). The schedule and the artifact's schedule table
/// (include/telar/artifact/Manifest.h) both use it.
enum class PipelineStepKind { Forward, Backward, Optimizer, Send, Recv };

/// "forward", "backward", "optimizer", "send", "recv" (the manifest's step
/// ops).
const char *getPipelineStepKindName(PipelineStepKind kind);
std::optional<PipelineStepKind> parsePipelineStepKindName(std::string_view name);

struct ScheduleStep {
  using Kind = PipelineStepKind;
  Kind kind = Kind::Forward;
  int64_t microbatch = 0;
  /// Forward/Backward: the stage computed; Send: the sender; Recv: the
  /// receiver.
  int64_t stage = 0;
  /// Send: the receiving stage; Recv: the sending stage.
  int64_t peerStage = -1;
  /// A backward pass's transfer (the gradient of a boundary value, from the
  /// stage that used it to the one that computed it: to an earlier stage).
  bool gradient = false;

  bool operator==(const ScheduleStep &other) const {
    return kind == other.kind && microbatch == other.microbatch &&
           stage == other.stage && peerStage == other.peerStage &&
           gradient == other.gradient;
  }
  bool operator!=(const ScheduleStep &other) const { return !(*this == other); }
};

/// A step for messages: "forward mb 2 stage 1", "send mb 0 stage 0 -> 2",
/// "recv gradient mb 3 stage 0 <- 1".
std::string formatScheduleStep(const ScheduleStep &step);

/// Stage `to` uses values computed by stage `from` (from < to).
struct StageEdge {
  int64_t from = 0, to = 0;
  bool operator==(const StageEdge &other) const {
    return from == other.from && to == other.to;
  }
};

struct PipelineSchedule {
  ScheduleKind kind = ScheduleKind::GPipe;
  int64_t positions = 1, virtualStages = 1, microbatches = 1;
  bool forwardOnly = true;
  /// Every stage pair that exchanges values, sorted and without repeats.
  std::vector<StageEdge> edges;
  /// Per position, in execution order.
  std::vector<std::vector<ScheduleStep>> steps;

  int64_t getNumStages() const { return positions * virtualStages; }
  /// The position stage `stage` runs on: stage mod positions.
  int64_t getPosition(int64_t stage) const { return stage % positions; }
};

/// The table of a schedule of `kind` for `positions` rank groups with
/// `virtualStages` stages each (S = positions * virtualStages stages, stage
/// s on position s mod positions) and `microbatches` microbatches.
///
/// Compute order per position:
/// - GPipe: every microbatch's forward, then (training) every microbatch's
///   backward, both in microbatch order.
/// - 1F1B (PipeDream-Flush): position p runs min(P - 1 - p, M) forwards,
///   then alternates one forward and one backward, then the remaining
///   backwards; at most P - p microbatches' activations are alive on p.
///   For forward-only (inference) there is no backward to alternate with,
///   and 1F1B's order equals GPipe's.
/// - Interleaved (Narayanan et al. SC'21, Megatron-LM's order): a position's
///   k-th forward is of chunk (k / P) mod V (the stage chunk * P + p) and
///   microbatch (k / (P * V)) * P + k mod P; its k-th backward the same with
///   chunk V - 1 - (k / P) mod V; training warms up with
///   (P - p - 1) * 2 + (V - 1) * P forwards (all of them when M = P), then
///   alternates, then drains.
///
/// Transfers: per edge (a, b) and microbatch, the value goes from a to b (a
/// Send on a's position, the matching Recv on b's), and, when training, its
/// gradient from b back to a. The Recvs a compute needs come before it on
/// its position and its Sends after it; where exactly is chosen from a
/// nominal timing of the order (forward 1, backward 2 per stage; transfers
/// free) at a time both positions are between computes. Every position's
/// list is a subsequence of one global order in which each Send/Recv pair is
/// a single event, so the table is deadlock-free by construction. Transfers
/// at the same point: values before gradients, then ascending (sender
/// stage, receiver stage). So in inference tables, and in training tables of
/// the chain, a stage receives a microbatch's values in ascending producer
/// stage and sends them in ascending consumer stage; with skip edges a
/// training table may place them in another order (still deadlock-free).
///
/// At equal stage times (simulateSchedule) the tables reach
/// getTheoreticalBubble for every inference table (all kinds, with or
/// without skip edges) and for GPipe, and 1F1B on the chain, when
/// training. Training tables whose two ends of a transfer are never between
/// computes at the same moment (interleaved's steady state, 1F1B with skip
/// edges) stall under rendezvous send/recv: one side waits for the other's
/// compute to end, and the bubble is above the formula (docs/Pipeline.md).
///
/// A transfer between two stages of one position (virtual stages, an edge
/// (s, s + k*P)) is a Send immediately followed by its Recv on that
/// position's own list, right before the consumer. It stays among the same
/// ranks, so the runtime must do the pair as one exchange (a copy for a
/// message to itself, never a blocking send to a rank of its own position
/// that posts the receive only after its own send); checkSchedule treats it
/// as buffered.
///
/// `edges` empty: the chain s -> s+1. Otherwise the complete set of stage
/// pairs that exchange values (repeats removed).
///
/// Errors (nullopt, `error` set): interleaved with M % P != 0, V < 2 or
/// P < 2; non-interleaved with V != 1; P or M below 1; an edge not forward
/// (from >= to) or naming a stage outside [0, S).
std::optional<PipelineSchedule>
buildSchedule(ScheduleKind kind, int64_t positions, int64_t virtualStages,
              int64_t microbatches, bool forwardOnly,
              const std::vector<StageEdge> &edges, std::string &error);

/// "" when every position's steps run to the end with blocking
/// (rendezvous) send/recv: every Send meets the matching Recv (the same
/// microbatch, stage pair and direction) when both positions reach them, in
/// order. Otherwise a message naming the stuck steps of every position that
/// cannot go on. Transfers within one position are buffered (see
/// buildSchedule): their Recv needs an earlier Send on that position.
/// Also reported, naming the step: malformed tables (a step on the wrong
/// position, a stage, microbatch or peer out of range, steps for a position
/// count that does not match); a step that runs twice; a compute before the
/// values (or gradients) it needs arrived, a backward before its forward, a
/// Send before the compute producing it, a transfer between stages with no
/// edge (`edges` empty: the chain); and, once everything ran, a forward,
/// backward (training) or transfer that never runs.
std::string checkSchedule(const PipelineSchedule &schedule);

/// A step of a simulated table and when it ran.
struct TimedStep {
  ScheduleStep step;
  /// A compute: while it ran. A transfer: from when its position reached it
  /// to when both ends had (rendezvous; the wait is the time before both
  /// were there, the transfer itself is free).
  double start = 0, end = 0;
};

struct ScheduleTiming {
  double makespan = 0;
  std::vector<double> busy;  // per position: compute seconds
  std::vector<double> idle;  // per position: makespan - busy
  double bubbleFraction = 0; // mean idle / makespan
  /// Per position, its steps in order with their times (a Gantt chart).
  std::vector<std::vector<TimedStep>> steps;
};

/// Event simulation of the table with per-stage forward/backward seconds
/// (transfers free; a Send and its Recv complete together when both
/// positions have reached them, as under blocking send/recv).
/// `backwardSeconds` may be empty for a forward-only schedule.
/// std::invalid_argument when the table is malformed or deadlocks (with
/// checkSchedule's message for it; the dependency checks are
/// checkSchedule's only) or a vector's size is not the number of stages.
ScheduleTiming simulateSchedule(const PipelineSchedule &schedule,
                                const std::vector<double> &forwardSeconds,
                                const std::vector<double> &backwardSeconds);

/// The idle fraction the literature gives for equal stages: GPipe and 1F1B
/// (P-1)/(M+P-1), interleaved (P-1)/(V*M+P-1) (Narayanan et al. SC'21
/// §2.2). std::invalid_argument when P, V or M is below 1.
double getTheoreticalBubble(ScheduleKind kind, int64_t positions,
                            int64_t virtualStages, int64_t microbatches);

/// Per position: the most microbatch-stage activations alive at once (a
/// forward run whose backward has not run yet, counting the forward being
/// computed). Forward-only: 1 on every position that computes (activations
/// are freed once sent). What the planner multiplies a stage's activation
/// bytes by.
std::vector<int64_t> getMaxInFlight(const PipelineSchedule &schedule);

/// The same per stage.
std::vector<int64_t> getMaxInFlightPerStage(const PipelineSchedule &schedule);

} // namespace telar_sharding

#endif // TELAR_SHARDING_CORE_SCHEDULE_H
