//===- ScheduleKind.h - The pipeline schedule kinds the planner names -*- C++ -*-===//
//
// The schedule kinds are telar_sharding's (include/telar/sharding/Schedule.h,
// the schedule tables). Until that header is in the tree, the names and the
// theoretical bubble the planner needs are defined here, with the same
// spelling, so that the planner builds either way.
//
//===----------------------------------------------------------------------===//

#ifndef TELAR_PLANNER_SCHEDULEKIND_H
#define TELAR_PLANNER_SCHEDULEKIND_H

#if __has_include("telar/sharding/Schedule.h")
#include "telar/sharding/Schedule.h"
#else
#include <cstdint>
#include <optional>
#include <string_view>

namespace telar_sharding {
enum class ScheduleKind { GPipe, OneFOneB, Interleaved };
inline const char *getScheduleKindName(ScheduleKind kind) {
  switch (kind) {
  case ScheduleKind::GPipe: return "gpipe";
  case ScheduleKind::OneFOneB: return "1f1b";
  case ScheduleKind::Interleaved: return "interleaved";
  }
  return "gpipe";
}
inline std::optional<ScheduleKind> parseScheduleKindName(std::string_view name) {
  if (name == "gpipe") return ScheduleKind::GPipe;
  if (name == "1f1b") return ScheduleKind::OneFOneB;
  if (name == "interleaved") return ScheduleKind::Interleaved;
  return std::nullopt;
}
/// GPipe and 1F1B (P-1)/(M+P-1), interleaved (P-1)/(V*M+P-1) (Narayanan
/// et al. SC'21 §2.2).
inline double getTheoreticalBubble(ScheduleKind kind, int64_t positions,
                                   int64_t virtualStages,
                                   int64_t microbatches) {
  double p = double(positions), m = double(microbatches);
  double v = kind == ScheduleKind::Interleaved ? double(virtualStages) : 1.0;
  return (p - 1) / (v * m + p - 1);
}
} // namespace telar_sharding
#endif

#endif // TELAR_PLANNER_SCHEDULEKIND_H
