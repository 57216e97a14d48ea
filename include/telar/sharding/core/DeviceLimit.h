//===- DeviceLimit.h - The most devices a mesh may have ---------*- C++ -*-===//
//
// Mesh sizes come from users (--mesh, --devices, plan.json) and from
// artifacts (manifest.json): their product is checked for overflow and
// against one limit before any work that grows with it.
//
//===----------------------------------------------------------------------===//

#ifndef TELAR_SHARDING_CORE_DEVICELIMIT_H
#define TELAR_SHARDING_CORE_DEVICELIMIT_H

#include <cstdint>
#include <string>
#include <vector>

namespace telar_sharding {

/// The most devices a mesh, or a job (every pipeline stage's together), may
/// have: above any cluster Telar runs on, and low enough that the work per
/// device (ranks to start, weight shards to write, schedule tables, the
/// planner's meshes) stays bounded. Larger meshes, and sizes whose product
/// overflows, are refused where they are read (--mesh, --devices, plan.json,
/// manifest.json).
constexpr int64_t kMaxDevices = 65536;

/// The most axes a mesh may have: 16 axes of size 2 are kMaxDevices
/// devices already, and readers look axes up by name (quadratic in their
/// number).
constexpr int64_t kMaxMeshAxes = 16;

/// Whether there are at most kMaxMeshAxes `sizes` (each >= 1) and they
/// multiply to at most kMaxDevices; else false with `error` set ("the mesh
/// has 2097152 devices, more than the 65536 Telar supports").
bool checkNumDevices(const std::vector<int64_t> &sizes, std::string &error);

} // namespace telar_sharding

#endif // TELAR_SHARDING_CORE_DEVICELIMIT_H
