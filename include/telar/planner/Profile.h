//===- Profile.h - Hardware profiles for the planner ------------*- C++ -*-===//
//
// A hardware profile describes what the cost model prices a plan with: per
// device its peak FLOP/s per element type, memory capacity and bandwidth and
// the fixed cost of one op; per level of the interconnect (innermost first:
// the devices of one node, then the network between nodes) the bandwidth and
// latency of a collective, optionally with α-β fits per collective kind as
// telar-calibrate measures them. Profiles are JSON files (docs/Profile.md);
// the shipped ones live in lib/planner/profiles/ and are copied by the build
// to build/share/telar/profiles/.
//
// Plain C++17 without MLIR/LLVM (library TelarPlannerProfile): the compiler's
// planner and the runtime-side telar-calibrate share it.
//
//===----------------------------------------------------------------------===//

#ifndef TELAR_PLANNER_PROFILE_H
#define TELAR_PLANNER_PROFILE_H

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace telar_planner {

/// One level of the interconnect, innermost first: levels[0] joins the
/// devices of one node (NVLink, shared memory), levels[1] (if any) joins
/// nodes (InfiniBand, Ethernet).
struct LinkLevel {
  std::string name; // "node", "network"
  /// Devices one group of this level joins (the node size for levels[0]);
  /// 0 on the outermost level: unbounded. Every level but the outermost has
  /// devices >= 1, and a bounded level joins a multiple of the devices of
  /// the level inside it.
  int64_t devices = 0;
  double bandwidth = 0; // bytes/s one device sends on this level (unidirectional)
  double latency = 0;   // seconds, α of one collective step on this level
  /// Optional per-collective α-β fits measured by telar-calibrate, by step
  /// kind name ("all_gather", "all_reduce", "reduce_scatter", "all_to_all"):
  /// time = alpha + bytesSent / beta, bytesSent as
  /// telar_sharding::getStepBytes counts it. Override latency/bandwidth.
  struct Fit {
    double alpha = 0, beta = 0;
  };
  std::map<std::string, Fit> collectives;
};

struct Profile {
  std::string name, description;
  std::vector<std::string> sources; // citations of the figures
  /// Per element type ("f64", "f32", "tf32", "f16", "bf16", "i8", ...):
  /// FLOP/s per device, dense (no sparsity). "f32" is always present in a
  /// parsed profile.
  std::map<std::string, double> peakFlops;
  double memoryBytes = 0;     // capacity per device
  double memoryBandwidth = 0; // bytes/s per device
  double opOverhead = 0;      // seconds of fixed cost per op (kernel launch / loop entry)
  std::vector<LinkLevel> levels; // at least one

  /// levels[0].devices, or INT64_MAX with one unbounded level.
  int64_t getNodeSize() const;
  /// The peak of `elementType`, falling back to "f32" (0 when neither is
  /// there, which a parsed profile never is).
  double getPeakFlops(const std::string &elementType) const;
};

bool operator==(const LinkLevel::Fit &a, const LinkLevel::Fit &b);
bool operator==(const LinkLevel &a, const LinkLevel &b);
bool operator==(const Profile &a, const Profile &b);
inline bool operator!=(const Profile &a, const Profile &b) { return !(a == b); }

/// The element type names a profile's "peak_flops" may hold.
const std::vector<std::string> &getProfileElementTypes();
/// The collective names a level's "collectives" may hold.
const std::vector<std::string> &getProfileCollectiveNames();

/// Parses and checks a profile (the JSON of docs/Profile.md). On failure
/// nullopt, with `error` naming the field ("levels[1].bandwidth: ...").
/// Unknown fields are errors (a misspelt field would otherwise silently
/// leave a figure at its default).
std::optional<Profile> parseProfileJson(const std::string &text,
                                        std::string &error);
/// The profile as JSON text; parseProfileJson reads it back equal.
std::string writeProfileJson(const Profile &profile);

/// `nameOrPath`: a file path (contains '/' or ends in ".json") or a shipped
/// name. Shipped profiles are searched in $TELAR_PROFILE_DIR, then
/// <dir of the running executable>/../share/telar/profiles. Errors list the
/// shipped names.
std::optional<Profile> loadProfile(const std::string &nameOrPath,
                                   std::string &error);
/// The names of the shipped profiles (file names without ".json", sorted,
/// each once) in the directories loadProfile searches; empty with `error`
/// set when none of them exists.
std::vector<std::string> getShippedProfileNames(std::string &error);
/// The directories loadProfile searches for shipped profiles, in order
/// (whether or not they exist).
std::vector<std::string> getProfileSearchDirs();

} // namespace telar_planner

#endif // TELAR_PLANNER_PROFILE_H
