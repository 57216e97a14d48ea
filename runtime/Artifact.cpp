//===- Artifact.cpp - Load and run artifacts (docs/Artifact.md) -----------===//

#include "Blocks.h"
#include "Context.h"
#include "FileUtil.h"
#include "telar/artifact/Manifest.h"
#include "telar/runtime/Comm.h"
#include "telar/runtime/Runtime.h"
#include "telar/runtime/Safetensors.h"
#include "telar/runtime/abi/Core.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstring>
#include <dlfcn.h>
#include <map>
#include <set>
#include <sys/stat.h>

using namespace telar::runtime;
using json = nlohmann::json;
namespace key = telar_artifact::key;

//===----------------------------------------------------------------------===//
// Manifest
//===----------------------------------------------------------------------===//

namespace {

/// Reads fields of one JSON object, naming `path` (e.g. "inputs[0]") and the
/// manifest file in errors.
class ObjectReader {
public:
  ObjectReader(const json &object, std::string path, const std::string &origin)
      : object(object), path(std::move(path)), origin(origin) {
    if (!object.is_object())
      throw error("is not a JSON object");
  }

  Error error(const std::string &what) const {
    return Error(origin + ": " + (path.empty() ? "" : path + " ") + what);
  }
  std::string fieldPath(const char *key) const {
    return path.empty() ? key : path + "." + key;
  }
  /// "manifest.json: field 'pipeline.stages[1].first_rank' `what`".
  Error fieldError(const char *key, const std::string &what) const {
    return Error(origin + ": field '" + fieldPath(key) + "' " + what);
  }

  const json *optional(const char *key) const {
    auto it = object.find(key);
    return it == object.end() ? nullptr : &*it;
  }
  const json &required(const char *key) const {
    if (const json *v = optional(key))
      return *v;
    throw Error(origin + ": missing field '" + fieldPath(key) + "'");
  }
  std::string string(const char *key, bool nonEmpty = true) const {
    const json &v = required(key);
    if (!v.is_string())
      throw Error(origin + ": field '" + fieldPath(key) +
                  "' must be a string, got " + v.dump());
    std::string s = v.get<std::string>();
    if (nonEmpty && s.empty())
      throw Error(origin + ": field '" + fieldPath(key) + "' is empty");
    return s;
  }
  std::string optionalString(const char *key) const {
    return optional(key) ? string(key, /*nonEmpty=*/false) : std::string();
  }
  const json &array(const char *key) const {
    const json &v = required(key);
    if (!v.is_array())
      throw Error(origin + ": field '" + fieldPath(key) +
                  "' must be an array, got " + v.dump());
    return v;
  }

private:
  const json &object;
  std::string path;
  const std::string &origin;
};

/// A relative path that stays inside the artifact directory.
std::string checkRelativePath(const ObjectReader &reader, const char *key) {
  std::string p = reader.string(key);
  bool escapes = p.front() == '/';
  size_t start = 0;
  while (!escapes && start <= p.size()) {
    size_t end = p.find('/', start);
    if (end == std::string::npos)
      end = p.size();
    escapes = p.compare(start, end - start, "..") == 0 && end - start == 2;
    start = end + 1;
  }
  if (escapes)
    throw reader.error("field '" + std::string(key) + "' ('" + p +
                       "') must be a relative path inside the artifact");
  return p;
}

std::vector<int64_t> parseShape(const ObjectReader &reader, const char *key) {
  std::vector<int64_t> shape;
  for (const json &dim : reader.array(key)) {
    if (!dim.is_number_integer() || dim.get<int64_t>() < 0)
      throw reader.error("has a bad dimension " + dim.dump() +
                         (std::string(key) == key::kTensorShape
                              ? ""
                              : " in '" + std::string(key) + "'") +
                         " (shapes are static: non-negative integers)");
    shape.push_back(dim.get<int64_t>());
  }
  return shape;
}

/// "[2,3]".
std::string shapeString(const std::vector<int64_t> &shape) {
  return formatShape(shape);
}

/// The "sharding" field of a tensor of `rank` dimensions: mesh axis names
/// per dimension, each axis at most once.
telar_sharding::Sharding parseSharding(const ObjectReader &reader,
                                       const Manifest &m, size_t rank) {
  const json *v = reader.optional(key::kTensorSharding);
  if (!v)
    return {};
  if (m.formatVersion < 3)
    throw reader.error(std::string("has field '") + key::kTensorSharding +
                       "', which needs format version 3");
  if (!m.hasMesh())
    throw reader.error(std::string("has a '") + key::kTensorSharding +
                       "' but the manifest has no mesh");
  if (!v->is_array() || v->size() != rank)
    throw reader.error(std::string("field '") + key::kTensorSharding +
                       "' must be an array of " + std::to_string(rank) +
                       " lists of mesh axis names (one per dimension), got " +
                       v->dump());
  telar_sharding::Sharding sharding;
  std::set<int64_t> used;
  for (const json &dim : *v) {
    if (!dim.is_array())
      throw reader.error(std::string("field '") + key::kTensorSharding +
                         "' must hold a list of axis names per dimension, "
                         "got " +
                         dim.dump());
    std::vector<int64_t> axes;
    for (const json &name : dim) {
      std::optional<int64_t> axis;
      if (name.is_string())
        for (size_t a = 0; a < m.mesh.axisNames.size(); ++a)
          if (m.mesh.axisNames[a] == name.get<std::string>())
            axis = int64_t(a);
      if (!axis)
        throw reader.error(std::string("field '") + key::kTensorSharding +
                           "' names " + name.dump() +
                           ", which is not an axis of the mesh (" +
                           m.mesh.str() + ")");
      if (!used.insert(*axis).second)
        throw reader.error(std::string("field '") + key::kTensorSharding +
                           "' uses mesh axis '" +
                           m.mesh.axisNames[*axis] + "' twice");
      axes.push_back(*axis);
    }
    sharding.dims.push_back(std::move(axes));
  }
  return sharding;
}

/// The sharding valid for `shape` on the mesh (telar_sharding's check:
/// every split dimension divisible by its axes' sizes).
void checkDivisible(const ObjectReader &reader, const Manifest &m,
                    const telar_sharding::Sharding &sharding,
                    const std::vector<int64_t> &shape) {
  if (sharding.dims.empty())
    return;
  std::string problem = telar_sharding::verifySharding(sharding, m.mesh, shape);
  if (!problem.empty())
    throw reader.error("is split " + m.formatSharding(sharding) + ": " +
                       problem);
}

void parseTensor(const ObjectReader &reader, const Manifest &m,
                 TensorSpec &spec) {
  spec.name = reader.string(key::kTensorName);
  std::string dtype = reader.string(key::kTensorDType);
  std::optional<DType> d = parseDType(dtype);
  if (!d)
    throw reader.error("has unknown dtype '" + dtype +
                       "' (expected a numpy name: float32, int64, bool, ...)");
  spec.dtype = *d;
  spec.shape = parseShape(reader, key::kTensorShape);
  spec.sharding = parseSharding(reader, m, spec.shape.size());
}

/// A weight's global shape, sharding and file: a sharded weight's local
/// shape is its global shape's block and it lives in a per-rank file.
void parseWeight(const ObjectReader &reader, const Manifest &m,
                 WeightSpec &spec) {
  spec.file = checkRelativePath(reader, key::kWeightFile);
  bool perRank =
      spec.file.find(telar_artifact::kRankPlaceholder) != std::string::npos;
  if (perRank && !m.hasMesh())
    throw reader.error("has the per-rank file '" + spec.file +
                       "' but the manifest has no mesh");
  spec.globalShape = spec.shape;
  if (reader.optional(key::kWeightGlobalShape)) {
    if (m.formatVersion < 3)
      throw reader.error(std::string("has field '") + key::kWeightGlobalShape +
                         "', which needs format version 3");
    spec.globalShape = parseShape(reader, key::kWeightGlobalShape);
  }
  if (spec.sharding.dims.empty()) {
    if (spec.globalShape != spec.shape)
      throw reader.error("has shape " + shapeString(spec.shape) +
                         " but global_shape " + shapeString(spec.globalShape) +
                         " without a sharding");
    return;
  }
  if (spec.globalShape.size() != spec.shape.size())
    throw reader.error("has shape " + shapeString(spec.shape) +
                       " but global_shape " + shapeString(spec.globalShape) +
                       " (a different rank)");
  checkDivisible(reader, m, spec.sharding, spec.globalShape);
  std::vector<int64_t> local =
      telar_sharding::getLocalShape(spec.globalShape, spec.sharding, m.mesh);
  if (local != spec.shape)
    throw reader.error("has shape " + shapeString(spec.shape) +
                       " but the block of its global_shape " +
                       shapeString(spec.globalShape) + " split " +
                       m.formatSharding(spec.sharding) + " is " +
                       shapeString(local));
  if (spec.isSharded() && !perRank)
    throw reader.error("is sharded but its file '" + spec.file +
                       "' is the same for every rank (a sharded weight's "
                       "file has '" +
                       telar_artifact::kRankPlaceholder + "' in its path)");
}

template <typename Spec>
std::vector<Spec> parseTensors(const ObjectReader &root, const char *field,
                               const Manifest &m, const std::string &origin) {
  std::vector<Spec> specs;
  std::set<std::string> names;
  const json &list = root.array(field);
  for (size_t i = 0; i < list.size(); ++i) {
    ObjectReader reader(
        list[i], std::string(field) + "[" + std::to_string(i) + "]", origin);
    Spec spec;
    parseTensor(reader, m, spec);
    std::string unique = spec.name;
    if constexpr (std::is_same_v<Spec, WeightSpec>) {
      parseWeight(reader, m, spec);
      unique = spec.file + "\n" + spec.name;
    } else {
      checkDivisible(reader, m, spec.sharding, spec.shape);
    }
    if (!names.insert(unique).second)
      throw reader.error("repeats the name '" + spec.name + "'");
    specs.push_back(std::move(spec));
  }
  return specs;
}

/// Version 3's mesh and world size.
void parseMesh(const ObjectReader &reader, Manifest &m,
               const std::string &origin) {
  const json *mesh = reader.optional(key::kMesh);
  const json *world = reader.optional(key::kWorldSize);
  if (m.formatVersion < 3 && (mesh || world))
    throw Error(origin + ": field '" + (mesh ? key::kMesh : key::kWorldSize) +
                "' needs format version 3");
  if (mesh) {
    ObjectReader r(*mesh, key::kMesh, origin);
    const json &axes = r.array(key::kMeshAxes);
    const json &shape = r.array(key::kMeshShape);
    if (axes.empty())
      throw r.error(std::string("field '") + key::kMeshAxes + "' is empty");
    if (axes.size() != shape.size())
      throw r.error("has " + std::to_string(axes.size()) + " axes but " +
                    std::to_string(shape.size()) + " sizes");
    std::set<std::string> seen;
    for (size_t i = 0; i < axes.size(); ++i) {
      if (!axes[i].is_string() || axes[i].get<std::string>().empty())
        throw r.error("axis " + std::to_string(i) +
                      " must be a non-empty name, got " + axes[i].dump());
      if (!seen.insert(axes[i].get<std::string>()).second)
        throw r.error("repeats the axis '" + axes[i].get<std::string>() +
                      "'");
      if (!shape[i].is_number_integer() || shape[i].get<int64_t>() < 1)
        throw r.error("axis '" + axes[i].get<std::string>() +
                      "' has a bad size " + shape[i].dump() +
                      " (an integer >= 1)");
      m.mesh.axisNames.push_back(axes[i].get<std::string>());
      m.mesh.axisSizes.push_back(shape[i].get<int64_t>());
    }
  }
  int64_t devices = 1;
  for (int64_t s : m.mesh.axisSizes)
    devices *= s;
  if (!world) {
    if (mesh)
      throw Error(origin + ": missing field '" + key::kWorldSize +
                  "' (a manifest with a mesh says its world size)");
    return;
  }
  if (!world->is_number_integer() || world->get<int64_t>() < 1)
    throw Error(origin + ": field '" + key::kWorldSize +
                "' must be an integer >= 1, got " + world->dump());
  m.worldSize = world->get<int64_t>();
  if (m.worldSize != devices)
    throw Error(origin + ": field '" + key::kWorldSize + "' is " +
                std::to_string(m.worldSize) + " but the mesh (" +
                (mesh ? m.mesh.str() : std::string("none")) + ") has " +
                std::to_string(devices) + " devices");
}

/// An integer field >= `minimum`.
int64_t integerField(const ObjectReader &reader, const char *key,
                     int64_t minimum) {
  const json &v = reader.required(key);
  if (!v.is_number_integer() || v.get<int64_t>() < minimum)
    throw reader.fieldError(key,
                            "must be an integer >= " + std::to_string(minimum) +
                                ", got " + v.dump());
  return v.get<int64_t>();
}

/// A list of `rank` integers >= 0.
Shape indexList(const ObjectReader &reader, const char *key, size_t rank,
                const char *what) {
  const json &v = reader.array(key);
  if (v.size() != rank)
    throw reader.fieldError(key, "must have " + std::to_string(rank) + " " +
                                     what +
                                     " (one per dimension of the "
                                     "value), got " +
                                     v.dump());
  Shape values;
  for (const json &x : v) {
    if (!x.is_number_integer() || x.get<int64_t>() < 0)
      throw reader.fieldError(key, "must hold non-negative integers, got " +
                                       v.dump());
    values.push_back(x.get<int64_t>());
  }
  return values;
}

/// A pipelined artifact's world: its world size, and no mesh (each stage
/// has its own).
void parsePipelineWorld(const ObjectReader &reader, Manifest &m,
                        const std::string &origin) {
  if (reader.optional(key::kMesh))
    throw Error(origin + ": field '" + key::kMesh +
                "' is not allowed in a pipelined artifact (each stage's "
                "manifest has its own)");
  const json *world = reader.optional(key::kWorldSize);
  if (!world)
    throw Error(origin + ": missing field '" + key::kWorldSize +
                "' (a pipelined artifact says its world size)");
  if (!world->is_number_integer() || world->get<int64_t>() < 1)
    throw Error(origin + ": field '" + key::kWorldSize +
                "' must be an integer >= 1, got " + world->dump());
  m.worldSize = world->get<int64_t>();
}

/// The table runs to the end when every send blocks until its receive is
/// posted (Gloo's, and MPI's for large messages): each rank's messages, in
/// step and message order, meet the peer's matching ones in order. Else an
/// error naming where each stuck rank waits.
void checkRendezvous(const PipelineSpec &p, int64_t worldSize,
                     const std::string &origin) {
  struct Op {
    int64_t peer, transfer, microbatch;
    bool send;
    size_t step;
  };
  // Per rank the point-to-point operations in order (copies to itself and
  // computations never block).
  std::vector<std::vector<Op>> ops(static_cast<size_t>(worldSize));
  for (int64_t rank = 0; rank < worldSize; ++rank) {
    const std::vector<PipelineStepSpec> &steps = p.scheduleTable[size_t(rank)];
    for (size_t i = 0; i < steps.size(); ++i) {
      bool send = steps[i].op == PipelineStepSpec::Op::Send;
      for (int64_t t : steps[i].transfers) {
        const PipelineTransferSpec &x = p.transfers[size_t(t)];
        // Between two stages of one position the recv step exchanges every
        // message (Pipeline::recv).
        bool within = p.getPosition(x.fromStage) == p.getPosition(x.toStage);
        for (const PipelineMessageSpec &msg : x.messages) {
          if (msg.fromRank == msg.toRank || (within && send))
            continue;
          if (within && msg.fromRank == rank)
            ops[size_t(rank)].push_back(
                {msg.toRank, t, steps[i].microbatch, true, i});
          else if (send && msg.fromRank == rank)
            ops[size_t(rank)].push_back(
                {msg.toRank, t, steps[i].microbatch, true, i});
          else if (!send && msg.toRank == rank)
            ops[size_t(rank)].push_back(
                {msg.fromRank, t, steps[i].microbatch, false, i});
        }
      }
    }
  }
  std::vector<size_t> next(static_cast<size_t>(worldSize), 0);
  std::vector<int64_t> work;
  for (int64_t r = 0; r < worldSize; ++r)
    work.push_back(r);
  while (!work.empty()) {
    int64_t r = work.back();
    work.pop_back();
    // Match r's next operation with its peer's, as often as they meet.
    while (next[size_t(r)] < ops[size_t(r)].size()) {
      const Op &a = ops[size_t(r)][next[size_t(r)]];
      size_t &peerNext = next[size_t(a.peer)];
      if (peerNext >= ops[size_t(a.peer)].size())
        break;
      const Op &b = ops[size_t(a.peer)][peerNext];
      if (b.peer != r || b.send == a.send || b.transfer != a.transfer ||
          b.microbatch != a.microbatch)
        break;
      ++next[size_t(r)];
      ++peerNext;
      work.push_back(a.peer);
    }
  }
  std::string stuck;
  for (int64_t r = 0; r < worldSize; ++r) {
    if (next[size_t(r)] >= ops[size_t(r)].size())
      continue;
    const Op &a = ops[size_t(r)][next[size_t(r)]];
    stuck += std::string(stuck.empty() ? "" : "; ") + "rank " +
             std::to_string(r) + " at schedule_table[" + std::to_string(r) +
             "][" + std::to_string(a.step) + "] (" +
             (a.send ? "sending" : "receiving") + " transfer " +
             std::to_string(a.transfer) + " of microbatch " +
             std::to_string(a.microbatch) + (a.send ? " to" : " from") +
             " rank " + std::to_string(a.peer) + ")";
  }
  if (!stuck.empty())
    throw Error(origin + ": field '" + std::string(key::kPipeline) + "." +
                key::kPipelineScheduleTable +
                "' deadlocks when a send waits for its receive: " + stuck);
}

/// The version-4 "pipeline" object, checked against the manifest's world
/// size, inputs and outputs.
PipelineSpec parsePipeline(const json &object, const Manifest &m,
                           const std::string &origin) {
  const std::string root = key::kPipeline;
  ObjectReader r(object, root, origin);
  PipelineSpec p;
  p.microbatches = integerField(r, key::kPipelineMicrobatches, 1);
  p.schedule = r.string(key::kPipelineSchedule);
  if (p.schedule != "gpipe" && p.schedule != "1f1b" &&
      p.schedule != "interleaved")
    throw Error(origin + ": field '" + r.fieldPath(key::kPipelineSchedule) +
                "' is '" + p.schedule +
                "' (expected 'gpipe', '1f1b' or 'interleaved')");
  p.virtualStages = integerField(r, key::kPipelineVirtualStages, 1);
  if ((p.virtualStages > 1) != (p.schedule == "interleaved"))
    throw Error(origin + ": field '" +
                r.fieldPath(key::kPipelineVirtualStages) + "' is " +
                std::to_string(p.virtualStages) + " with schedule '" +
                p.schedule +
                "' (virtual stages > 1 go with 'interleaved', and only they)");
  const int64_t M = p.microbatches;

  // Stages and positions.
  const json &stages = r.array(key::kPipelineStages);
  if (stages.empty())
    throw Error(origin + ": field '" + r.fieldPath(key::kPipelineStages) +
                "' is empty");
  std::set<std::string> directories;
  for (size_t s = 0; s < stages.size(); ++s) {
    ObjectReader sr(stages[s],
                    root + "." + key::kPipelineStages + "[" +
                        std::to_string(s) + "]",
                    origin);
    PipelineStageSpec stage;
    stage.directory = checkRelativePath(sr, key::kStageDirectory);
    stage.firstRank = integerField(sr, key::kStageFirstRank, 0);
    stage.numRanks = integerField(sr, key::kStageNumRanks, 1);
    if (stage.firstRank + stage.numRanks > m.worldSize)
      throw Error(origin + ": field '" + sr.fieldPath(key::kStageNumRanks) +
                  "': ranks " + std::to_string(stage.firstRank) + ".." +
                  std::to_string(stage.firstRank + stage.numRanks - 1) +
                  " are beyond the world of " + std::to_string(m.worldSize) +
                  " ranks");
    if (!directories.insert(stage.directory).second)
      throw sr.error("repeats the directory '" + stage.directory + "'");
    p.stages.push_back(stage);
  }
  const int64_t S = p.getNumStages();
  if (S % p.virtualStages != 0)
    throw Error(origin + ": field '" + r.fieldPath(key::kPipelineStages) +
                "' has " + std::to_string(S) +
                " stages, not a multiple of the " +
                std::to_string(p.virtualStages) + " virtual stages");
  const int64_t P = p.getNumPositions();
  if (p.virtualStages > 1 && P < 2)
    throw Error(origin + ": field '" + r.fieldPath(key::kPipelineStages) +
                "': interleaving needs at least 2 positions, got " +
                std::to_string(P));
  for (int64_t s = P; s < S; ++s)
    if (p.stages[s].firstRank != p.stages[s % P].firstRank ||
        p.stages[s].numRanks != p.stages[s % P].numRanks)
      throw Error(
          origin + ": " + root + "." + key::kPipelineStages + "[" +
          std::to_string(s) + "] is on position " + std::to_string(s % P) +
          " (stage " + std::to_string(s) + " mod " + std::to_string(P) +
          ") but its ranks differ from stage " + std::to_string(s % P) + "'s");
  std::vector<int64_t> owner(size_t(m.worldSize), -1);
  for (int64_t q = 0; q < P; ++q)
    for (int64_t k = 0; k < p.stages[q].numRanks; ++k) {
      int64_t &o = owner[size_t(p.stages[q].firstRank + k)];
      if (o >= 0)
        throw Error(origin + ": " + root + "." + key::kPipelineStages +
                    ": stages " + std::to_string(o) + " and " +
                    std::to_string(q) + " share rank " +
                    std::to_string(p.stages[q].firstRank + k) +
                    " (the positions' ranks must be disjoint)");
      o = q;
    }
  for (int64_t rank = 0; rank < m.worldSize; ++rank)
    if (owner[size_t(rank)] < 0)
      throw Error(origin + ": " + root + "." + key::kPipelineStages +
                  ": rank " + std::to_string(rank) + " of the " +
                  std::to_string(m.worldSize) +
                  " is in no stage (the stages' ranks must tile the world)");
  auto ranksOf = [&](int64_t s) {
    return "ranks " + std::to_string(p.stages[s].firstRank) + ".." +
           std::to_string(p.stages[s].firstRank + p.stages[s].numRanks - 1);
  };
  auto onStage = [&](int64_t s, int64_t rank) {
    return rank >= p.stages[s].firstRank &&
           rank < p.stages[s].firstRank + p.stages[s].numRanks;
  };

  // Graph inputs and outputs: each once, in the manifest's order, split
  // evenly into the microbatches.
  auto parseEnds = [&](const char *field, const std::vector<TensorSpec> &specs,
                       bool outputs) {
    const json &list = r.array(field);
    std::map<std::string, PipelineTensorSpec> byName;
    for (size_t i = 0; i < list.size(); ++i) {
      ObjectReader er(
          list[i], root + "." + field + "[" + std::to_string(i) + "]", origin);
      PipelineTensorSpec t;
      t.name = er.string(key::kPipelineTensorName);
      auto spec =
          std::find_if(specs.begin(), specs.end(),
                       [&](const TensorSpec &x) { return x.name == t.name; });
      if (spec == specs.end())
        throw er.error("names '" + t.name + "', which is not a top-level " +
                       (outputs ? "output" : "input"));
      const json &dim = er.required(key::kPipelineMicrobatchDim);
      int64_t rank = int64_t(spec->shape.size());
      if (!dim.is_number_integer() || dim.get<int64_t>() < -1 ||
          dim.get<int64_t>() >= rank)
        throw Error(
            origin + ": field '" + er.fieldPath(key::kPipelineMicrobatchDim) +
            "' must be a dimension of '" + t.name + "' (0.." +
            std::to_string(rank - 1) + ") or -1 (whole), got " + dim.dump());
      t.microbatchDim = dim.get<int64_t>();
      if (t.microbatchDim >= 0 && spec->shape[t.microbatchDim] % M != 0)
        throw Error(
            origin + ": field '" + er.fieldPath(key::kPipelineMicrobatchDim) +
            "': dim " + std::to_string(t.microbatchDim) + " of '" + t.name +
            "' (" + std::to_string(spec->shape[t.microbatchDim]) +
            ") is not divisible by " + std::to_string(M) + " microbatches");
      if (outputs) {
        t.stage = integerField(er, key::kPipelineOutputStage, 0);
        if (t.stage >= S)
          throw Error(origin + ": field '" +
                      er.fieldPath(key::kPipelineOutputStage) + "' is " +
                      std::to_string(t.stage) + " but there are " +
                      std::to_string(S) + " stages");
      }
      if (!byName.emplace(t.name, t).second)
        throw er.error("repeats '" + t.name + "'");
    }
    std::vector<PipelineTensorSpec> ordered;
    for (const TensorSpec &spec : specs) {
      auto it = byName.find(spec.name);
      if (it == byName.end())
        throw Error(origin + ": field '" + root + "." + field +
                    "' lacks the top-level " +
                    (outputs ? "output '" : "input '") + spec.name + "'");
      ordered.push_back(it->second);
    }
    return ordered;
  };
  p.inputs = parseEnds(key::kPipelineInputs, m.inputs, false);
  p.outputs = parseEnds(key::kPipelineOutputs, m.outputs, true);

  // Transfers.
  const json &transfers = r.array(key::kPipelineTransfers);
  for (size_t t = 0; t < transfers.size(); ++t) {
    std::string path =
        root + "." + key::kPipelineTransfers + "[" + std::to_string(t) + "]";
    ObjectReader tr(transfers[t], path, origin);
    PipelineTransferSpec x;
    x.name = tr.string(key::kTransferName);
    x.fromStage = integerField(tr, key::kTransferFromStage, 0);
    x.toStage = integerField(tr, key::kTransferToStage, 0);
    if (x.fromStage >= S || x.toStage >= S || x.fromStage >= x.toStage)
      throw Error(origin + ": " + path + " goes from stage " +
                  std::to_string(x.fromStage) + " to stage " +
                  std::to_string(x.toStage) + " (stages of the " +
                  std::to_string(S) + ", to a later one)");
    std::string dtype = tr.string(key::kTransferDType);
    std::optional<DType> d = parseDType(dtype);
    if (!d)
      throw tr.error("has unknown dtype '" + dtype + "'");
    x.dtype = *d;
    x.shape = parseShape(tr, key::kTransferShape);
    for (size_t u = 0; u < t; ++u)
      if (p.transfers[u].name == x.name && p.transfers[u].toStage == x.toStage)
        throw tr.error("repeats the transfer of '" + x.name + "' to stage " +
                       std::to_string(x.toStage) + " (transfer " +
                       std::to_string(u) + ")");
    const json &messages = tr.array(key::kTransferMessages);
    for (size_t i = 0; i < messages.size(); ++i) {
      ObjectReader mr(messages[i],
                      path + "." + key::kTransferMessages + "[" +
                          std::to_string(i) + "]",
                      origin);
      PipelineMessageSpec msg;
      msg.fromRank = integerField(mr, key::kMessageFromRank, 0);
      msg.toRank = integerField(mr, key::kMessageToRank, 0);
      if (!onStage(x.fromStage, msg.fromRank))
        throw Error(origin + ": field '" + mr.fieldPath(key::kMessageFromRank) +
                    "' is " + std::to_string(msg.fromRank) +
                    ", not a rank of stage " + std::to_string(x.fromStage) +
                    " (" + ranksOf(x.fromStage) + ")");
      if (!onStage(x.toStage, msg.toRank))
        throw Error(origin + ": field '" + mr.fieldPath(key::kMessageToRank) +
                    "' is " + std::to_string(msg.toRank) +
                    ", not a rank of stage " + std::to_string(x.toStage) +
                    " (" + ranksOf(x.toStage) + ")");
      msg.fromOffsets =
          indexList(mr, key::kMessageFromOffsets, x.shape.size(), "offsets");
      msg.toOffsets =
          indexList(mr, key::kMessageToOffsets, x.shape.size(), "offsets");
      msg.sizes = indexList(mr, key::kMessageSizes, x.shape.size(), "sizes");
      for (size_t d = 0; d < x.shape.size(); ++d)
        if (msg.fromOffsets[d] + msg.sizes[d] > x.shape[d] ||
            msg.toOffsets[d] + msg.sizes[d] > x.shape[d])
          throw mr.error("has a box beyond the value's shape " +
                         formatShape(x.shape) + " in dimension " +
                         std::to_string(d));
      if (i > 0) {
        const PipelineMessageSpec &prev = x.messages.back();
        if (std::make_pair(prev.fromRank, prev.toRank) >
            std::make_pair(msg.fromRank, msg.toRank))
          throw mr.error("is out of order (messages are sorted by "
                         "from_rank, then to_rank)");
      }
      x.messages.push_back(std::move(msg));
    }
    p.transfers.push_back(std::move(x));
  }
  const int64_t T = int64_t(p.transfers.size());

  // The schedule table: one list per world rank.
  std::string tablePath = root + "." + key::kPipelineScheduleTable;
  const json &table = r.array(key::kPipelineScheduleTable);
  if (int64_t(table.size()) != m.worldSize)
    throw Error(origin + ": field '" + tablePath + "' has " +
                std::to_string(table.size()) + " lists, but the world has " +
                std::to_string(m.worldSize) + " ranks (one list per rank)");
  for (int64_t rank = 0; rank < m.worldSize; ++rank) {
    std::string listPath = tablePath + "[" + std::to_string(rank) + "]";
    const json &list = table[size_t(rank)];
    if (!list.is_array())
      throw Error(origin + ": field '" + listPath + "' must be an array, got " +
                  list.dump());
    std::vector<PipelineStepSpec> steps;
    int64_t position = owner[size_t(rank)];
    // Per (stage, microbatch): the step that computed it (-1: not yet).
    std::map<std::pair<int64_t, int64_t>, size_t> forwarded;
    // Per (transfer, microbatch): sent / received at step.
    std::map<std::pair<int64_t, int64_t>, size_t> sent, received;
    for (size_t i = 0; i < list.size(); ++i) {
      std::string stepPath = listPath + "[" + std::to_string(i) + "]";
      ObjectReader sr(list[i], stepPath, origin);
      PipelineStepSpec step;
      std::string op = sr.string(key::kStepOp);
      if (op == "forward")
        step.op = PipelineStepSpec::Op::Forward;
      else if (op == "backward")
        step.op = PipelineStepSpec::Op::Backward;
      else if (op == "send")
        step.op = PipelineStepSpec::Op::Send;
      else if (op == "recv")
        step.op = PipelineStepSpec::Op::Recv;
      else
        throw Error(origin + ": field '" + sr.fieldPath(key::kStepOp) +
                    "' is '" + op +
                    "' (expected 'forward', 'backward', 'send' or 'recv')");
      step.microbatch = integerField(sr, key::kStepMicrobatch, 0);
      if (step.microbatch >= M)
        throw Error(origin + ": field '" + sr.fieldPath(key::kStepMicrobatch) +
                    "' is " + std::to_string(step.microbatch) +
                    " but there are " + std::to_string(M) + " microbatches");
      step.stage = integerField(sr, key::kStepStage, 0);
      if (step.stage >= S)
        throw Error(origin + ": field '" + sr.fieldPath(key::kStepStage) +
                    "' is " + std::to_string(step.stage) + " but there are " +
                    std::to_string(S) + " stages");
      if (p.getPosition(step.stage) != position)
        throw Error(origin + ": field '" + sr.fieldPath(key::kStepStage) +
                    "': stage " + std::to_string(step.stage) +
                    " does not run on rank " + std::to_string(rank) + " (" +
                    ranksOf(step.stage) + ")");
      auto key = std::make_pair(step.stage, step.microbatch);
      bool transfer = step.op == PipelineStepSpec::Op::Send ||
                      step.op == PipelineStepSpec::Op::Recv;
      if (!transfer) {
        if (sr.optional(key::kStepTransfers))
          throw sr.error("has 'transfers' but is a " + op + " step");
        if (step.op == PipelineStepSpec::Op::Forward &&
            !forwarded.emplace(key, i).second)
          throw sr.error("computes stage " + std::to_string(step.stage) +
                         " on microbatch " + std::to_string(step.microbatch) +
                         " a second time (step " +
                         std::to_string(forwarded[key]) + " did)");
        steps.push_back(std::move(step));
        continue;
      }
      bool isSend = step.op == PipelineStepSpec::Op::Send;
      const json &list = sr.array(key::kStepTransfers);
      if (list.empty())
        throw Error(origin + ": field '" + sr.fieldPath(key::kStepTransfers) +
                    "' is empty");
      int64_t peer = -1;
      for (const json &v : list) {
        std::string where = "field '" + sr.fieldPath(key::kStepTransfers) + "'";
        if (!v.is_number_integer() || v.get<int64_t>() < 0 ||
            v.get<int64_t>() >= T)
          throw Error(origin + ": " + where + " names " + v.dump() +
                      ", not a transfer (there are " + std::to_string(T) + ")");
        int64_t t = v.get<int64_t>();
        if (!step.transfers.empty() && step.transfers.back() >= t)
          throw Error(origin + ": " + where +
                      " must be ascending without repeats, got " + list.dump());
        const PipelineTransferSpec &x = p.transfers[size_t(t)];
        int64_t mine = isSend ? x.fromStage : x.toStage;
        int64_t other = isSend ? x.toStage : x.fromStage;
        if (mine != step.stage || (peer >= 0 && other != peer))
          throw Error(origin + ": " + where + " names transfer " +
                      std::to_string(t) + " (stage " +
                      std::to_string(x.fromStage) + " -> " +
                      std::to_string(x.toStage) + "), not one " +
                      (isSend ? "sent by" : "received by") + " stage " +
                      std::to_string(step.stage) +
                      (peer >= 0 ? " from the same peer stage" : ""));
        peer = other;
        bool involved =
            std::any_of(x.messages.begin(), x.messages.end(),
                        [&](const PipelineMessageSpec &msg) {
                          return (isSend ? msg.fromRank : msg.toRank) == rank;
                        });
        if (!involved)
          throw Error(origin + ": " + where + " names transfer " +
                      std::to_string(t) + ", in which rank " +
                      std::to_string(rank) + " " +
                      (isSend ? "sends" : "receives") + " nothing");
        auto &done = isSend ? sent : received;
        auto tm = std::make_pair(t, step.microbatch);
        if (!done.emplace(tm, i).second)
          throw sr.error(std::string(isSend ? "sends" : "receives") +
                         " transfer " + std::to_string(t) + " of microbatch " +
                         std::to_string(step.microbatch) +
                         " a second time (step " + std::to_string(done[tm]) +
                         " did)");
        // A send follows the computation of what it sends; a receive
        // precedes the computation that uses it.
        auto f = forwarded.find(std::make_pair(x.fromStage, step.microbatch));
        if (isSend && f == forwarded.end())
          throw sr.error("sends transfer " + std::to_string(t) +
                         " of microbatch " + std::to_string(step.microbatch) +
                         " before stage " + std::to_string(x.fromStage) +
                         " computed it");
        if (!isSend &&
            forwarded.count(std::make_pair(x.toStage, step.microbatch)))
          throw sr.error("receives transfer " + std::to_string(t) +
                         " of microbatch " + std::to_string(step.microbatch) +
                         " after stage " + std::to_string(x.toStage) +
                         " computed it");
        step.transfers.push_back(t);
      }
      steps.push_back(std::move(step));
    }
    // Every stage of this rank computed on every microbatch; every message
    // of this rank sent and received.
    for (int64_t s = position; s < S; s += P)
      for (int64_t mb = 0; mb < M; ++mb)
        if (!forwarded.count(std::make_pair(s, mb)))
          throw Error(origin + ": field '" + listPath +
                      "' never computes stage " + std::to_string(s) +
                      " on microbatch " + std::to_string(mb));
    for (int64_t t = 0; t < T; ++t) {
      const PipelineTransferSpec &x = p.transfers[size_t(t)];
      bool sends = false, receives = false;
      for (const PipelineMessageSpec &msg : x.messages) {
        sends |= msg.fromRank == rank;
        receives |= msg.toRank == rank;
      }
      if (sends && !receives &&
          p.getPosition(x.fromStage) == p.getPosition(x.toStage))
        throw Error(origin + ": " + root + "." + key::kPipelineTransfers + "[" +
                    std::to_string(t) +
                    "] is between two stages of one position, and rank " +
                    std::to_string(rank) +
                    " sends in it but receives nothing (its messages go "
                    "in the recv step's exchange)");
      for (int64_t mb = 0; mb < M; ++mb) {
        auto tm = std::make_pair(t, mb);
        if (sends && !sent.count(tm))
          throw Error(origin + ": field '" + listPath +
                      "' never sends transfer " + std::to_string(t) + " ('" +
                      x.name + "') of microbatch " + std::to_string(mb));
        if (receives && !received.count(tm))
          throw Error(origin + ": field '" + listPath +
                      "' never receives transfer " + std::to_string(t) + " ('" +
                      x.name + "') of microbatch " + std::to_string(mb));
      }
    }
    p.scheduleTable.push_back(std::move(steps));
  }
  // A message to this rank itself is sent (copied) before it is received.
  for (int64_t rank = 0; rank < m.worldSize; ++rank) {
    const std::vector<PipelineStepSpec> &steps = p.scheduleTable[size_t(rank)];
    std::set<std::pair<int64_t, int64_t>> sentSoFar;
    for (size_t i = 0; i < steps.size(); ++i)
      for (int64_t t : steps[i].transfers) {
        auto tm = std::make_pair(t, steps[i].microbatch);
        if (steps[i].op == PipelineStepSpec::Op::Send) {
          sentSoFar.insert(tm);
          continue;
        }
        for (const PipelineMessageSpec &msg : p.transfers[size_t(t)].messages)
          if (msg.fromRank == rank && msg.toRank == rank &&
              !sentSoFar.count(tm))
            throw Error(origin + ": " + tablePath + "[" + std::to_string(rank) +
                        "][" + std::to_string(i) + "] receives transfer " +
                        std::to_string(t) + " of microbatch " +
                        std::to_string(tm.second) +
                        " from this rank itself before sending it");
      }
  }
  checkRendezvous(p, m.worldSize, origin);
  return p;
}

} // namespace

Manifest Manifest::parse(std::string_view text, const std::string &origin) {
  json root;
  try {
    root = json::parse(text.begin(), text.end());
  } catch (const json::exception &e) {
    throw Error(origin + ": invalid JSON: " + e.what());
  }
  ObjectReader reader(root, "", origin);

  // The format and its version first: a future version may change anything
  // else, and its error should be the one reported.
  std::string format = reader.string(key::kFormat);
  if (format != telar_artifact::kFormatName)
    throw Error(origin + ": not a Telar artifact manifest (format is '" +
                format + "', expected '" + telar_artifact::kFormatName +
                "')");
  const json &version = reader.required(key::kFormatVersion);
  if (!version.is_number_integer())
    throw Error(origin + ": field '" + key::kFormatVersion +
                "' must be an integer, got " + version.dump());
  Manifest m;
  m.formatVersion = version.get<int64_t>();
  if (m.formatVersion < telar_artifact::kOldestReadableFormatVersion ||
      m.formatVersion > kArtifactFormatVersion)
    throw Error(origin + ": artifact format version " +
                std::to_string(m.formatVersion) +
                " is not supported (this runtime reads format versions " +
                std::to_string(telar_artifact::kOldestReadableFormatVersion) +
                " to " + std::to_string(kArtifactFormatVersion) +
                "); compile the model again with a matching telarc");

  m.telarVersion = reader.optionalString(key::kTelarVersion);
  if (const json *model = reader.optional(key::kModel)) {
    ObjectReader r(*model, key::kModel, origin);
    m.modelPath = r.optionalString(key::kModelPath);
    m.modelSha256 = r.optionalString(key::kModelSha256);
  }
  if (const json *target = reader.optional(key::kTarget)) {
    ObjectReader r(*target, key::kTarget, origin);
    m.targetKind = r.optionalString(key::kTargetKind);
    m.targetTriple = r.optionalString(key::kTargetTriple);
    m.targetChip = r.optionalString(key::kTargetChip);
    if (m.targetChip.empty()) // as written before "chip"
      m.targetChip = r.optionalString(key::kTargetCpu);
    m.targetFeatures = r.optionalString(key::kTargetFeatures);
    if (!m.targetKind.empty() && m.targetKind != "cpu")
      throw Error(origin + ": target kind '" + m.targetKind +
                  "' is not supported by this runtime (expected 'cpu')");
  }

  const json *pipeline = reader.optional(key::kPipeline);
  if (pipeline && m.formatVersion < 4)
    throw Error(origin + ": field '" + key::kPipeline +
                "' needs format version 4");
  if (pipeline)
    parsePipelineWorld(reader, m, origin);
  else
    parseMesh(reader, m, origin);
  m.inputs = parseTensors<TensorSpec>(reader, key::kInputs, m, origin);
  m.outputs = parseTensors<TensorSpec>(reader, key::kOutputs, m, origin);
  if (!pipeline || reader.optional(key::kWeights))
    m.weights = parseTensors<WeightSpec>(reader, key::kWeights, m, origin);
  std::set<std::string> weightFiles;
  for (const WeightSpec &w : m.weights)
    weightFiles.insert(w.file);

  if (pipeline) {
    // The stages hold the programs and weights.
    for (const char *field : {key::kPrograms, key::kWeights})
      if (reader.optional(field) && !reader.array(field).empty())
        throw Error(origin + ": field '" + field +
                    "' must be empty in a pipelined artifact (each stage's "
                    "directory holds its programs and weights)");
  }
  static const json kNoPrograms = json::array();
  const json &programs = pipeline && !reader.optional(key::kPrograms)
                             ? kNoPrograms
                             : reader.array(key::kPrograms);
  if (programs.empty() && !pipeline)
    throw Error(origin + ": field '" + key::kPrograms + "' is empty");
  std::set<std::string> programNames;
  for (size_t i = 0; i < programs.size(); ++i) {
    std::string path = std::string(key::kPrograms) + "[" + std::to_string(i) +
                       "]";
    ObjectReader r(programs[i], path, origin);
    ProgramSpec p;
    p.name = r.string(key::kProgramName);
    p.library = checkRelativePath(r, key::kProgramLibrary);
    p.entry = r.string(key::kProgramEntry);
    const json &files = r.array(key::kProgramWeightFiles);
    std::set<std::string> seen;
    for (size_t j = 0; j < files.size(); ++j) {
      std::string where = "field '" + r.fieldPath(key::kProgramWeightFiles) +
                          "[" + std::to_string(j) + "]'";
      if (!files[j].is_string())
        throw r.error(where + " must be a string, got " + files[j].dump());
      std::string file = files[j].get<std::string>();
      if (!weightFiles.count(file))
        throw r.error(where + " ('" + file +
                      "') is not the file of any weight");
      if (!seen.insert(file).second)
        throw r.error(where + " repeats the weight file '" + file + "'");
      p.weightFiles.push_back(std::move(file));
    }
    if (!programNames.insert(p.name).second)
      throw r.error("repeats the program name '" + p.name + "'");
    m.programs.push_back(std::move(p));
  }
  // Optional: older compilers of format version 1 did not write it.
  if (const json *memory = reader.optional(key::kMemory)) {
    const json *live =
        memory->is_object() && memory->contains(key::kMemoryLargestLiveSetBytes)
            ? &(*memory)[key::kMemoryLargestLiveSetBytes]
            : nullptr;
    if (!live || !live->is_number_integer() || live->get<int64_t>() < 0)
      throw reader.error(std::string("field '") + key::kMemory +
                         "' needs a non-negative integer '" +
                         key::kMemoryLargestLiveSetBytes + "'");
    m.largestLiveSetBytes = live->get<int64_t>();
  }
  if (pipeline)
    m.pipeline = parsePipeline(*pipeline, m, origin);
  return m;
}

const ProgramSpec &Manifest::selectProgram(const std::string &name,
                                           const std::string &origin) const {
  std::string names;
  for (const ProgramSpec &p : programs) {
    if (name.empty() ? p.name == "main" : p.name == name)
      return p;
    names += (names.empty() ? "'" : ", '") + p.name + "'";
  }
  if (name.empty() && programs.size() == 1)
    return programs.front();
  if (name.empty())
    throw Error(origin + ": none of the " + std::to_string(programs.size()) +
                " programs is called 'main'; choose one of " + names);
  throw Error(origin + ": no program '" + name + "' (the programs are " +
              names + ")");
}

const char *telar::runtime::getPipelineOpName(PipelineStepSpec::Op op) {
  switch (op) {
  case PipelineStepSpec::Op::Forward:
    return "forward";
  case PipelineStepSpec::Op::Backward:
    return "backward";
  case PipelineStepSpec::Op::Send:
    return "send";
  case PipelineStepSpec::Op::Recv:
    return "recv";
  }
  return "?";
}

int64_t PipelineSpec::getPositionOfRank(int64_t rank) const {
  for (int64_t q = 0; q < getNumPositions(); ++q)
    if (rank >= stages[q].firstRank &&
        rank < stages[q].firstRank + stages[q].numRanks)
      return q;
  return -1;
}

bool TensorSpec::isSharded() const {
  for (const std::vector<int64_t> &axes : sharding.dims)
    if (!axes.empty())
      return true;
  return false;
}

Shape Manifest::getLocalShape(const TensorSpec &spec) const {
  return telar_sharding::getLocalShape(spec.shape, spec.sharding, mesh);
}

Shape Manifest::getBlockOffsets(const TensorSpec &spec, int64_t rank) const {
  return telar_sharding::getBlockOffsets(spec.shape, spec.sharding, mesh, rank);
}

std::string
Manifest::formatSharding(const telar_sharding::Sharding &sharding) const {
  std::string s = "[";
  for (size_t d = 0; d < sharding.dims.size(); ++d) {
    s += d ? ", [" : "[";
    for (size_t i = 0; i < sharding.dims[d].size(); ++i) {
      int64_t a = sharding.dims[d][i];
      s += (i ? ", \"" : "\"") +
           (a >= 0 && a < int64_t(mesh.axisNames.size()) ? mesh.axisNames[a]
                                                         : "?") +
           "\"";
    }
    s += "]";
  }
  return s + "]";
}

std::vector<const WeightSpec *>
Manifest::weightsOf(const ProgramSpec &program) const {
  std::set<std::string> files(program.weightFiles.begin(),
                              program.weightFiles.end());
  std::vector<const WeightSpec *> result;
  for (const WeightSpec &w : weights)
    if (files.count(w.file))
      result.push_back(&w);
  return result;
}

const char *telar::runtime::statusName(int status) {
  switch (status) {
  case TELAR_STATUS_OK:
    return "ok";
  case TELAR_STATUS_OUT_OF_MEMORY:
    return "out of memory";
  case TELAR_STATUS_INVALID_ARGUMENT:
    return "invalid argument";
  case TELAR_STATUS_COMM_ERROR:
    return "communication error";
  default:
    return "unknown status";
  }
}

//===----------------------------------------------------------------------===//
// Artifact
//===----------------------------------------------------------------------===//

void telar::runtime::exposeRuntimeSymbols() {
  // dlopen(RTLD_NOLOAD | RTLD_GLOBAL) on an already loaded library promotes
  // it to the global scope, where a program's undefined symbols are looked
  // up. A no-op when the executable links these libraries directly. The
  // core's, and those of the device drivers (the CPU's kernels, libomp).
  std::vector<const void *> symbols = getDriverProgramSymbols();
  symbols.push_back(reinterpret_cast<const void *>(&telarrt_alloc));
  for (const void *symbol : symbols) {
    Dl_info info;
    if (dladdr(symbol, &info) && info.dli_fname)
      dlopen(info.dli_fname, RTLD_NOW | RTLD_GLOBAL | RTLD_NOLOAD);
  }
}

std::unique_ptr<Artifact>
Artifact::load(const std::string &directory, const std::string &programName,
               std::shared_ptr<comm::Communicator> world) {
  std::string dir = directory;
  while (dir.size() > 1 && dir.back() == '/')
    dir.pop_back();
  struct stat st;
  if (::stat(dir.c_str(), &st) != 0)
    throw Error("artifact directory '" + dir + "' does not exist");
  if (!S_ISDIR(st.st_mode))
    throw Error("'" + dir + "' is not an artifact directory");
  std::string manifestPath = dir + "/" + telar_artifact::kManifestFileName;
  if (!detail::isRegularFile(manifestPath))
    throw Error("'" + dir +
                "' is not a Telar artifact: it has no "
                "manifest.json");

  std::unique_ptr<Artifact> artifact(new Artifact());
  artifact->directory = dir;
  artifact->manifest =
      Manifest::parse(detail::readFile(manifestPath), manifestPath);
  const Manifest &m = artifact->manifest;
  if (m.isPipelined())
    throw Error("artifact '" + dir + "' is pipelined (" +
                std::to_string(m.pipeline->getNumStages()) +
                " stages, format version " + std::to_string(m.formatVersion) +
                "): it runs as a Pipeline (telar/runtime/Pipeline.h), each "
                "stage an artifact of its own");
  const ProgramSpec &program = m.selectProgram(programName, manifestPath);
  artifact->program = &program - m.programs.data();
  artifact->weights = m.weightsOf(program);

  // The world: as many ranks as the manifest says.
  int64_t ranks = world ? world->getSize() : 1;
  if (ranks != m.worldSize) {
    if (!m.hasMesh())
      throw Error("artifact '" + dir +
                  "' runs on a single device (its manifest has no mesh), "
                  "not on " +
                  std::to_string(ranks) + " ranks");
    throw Error("artifact '" + dir + "' runs on " +
                std::to_string(m.worldSize) + " ranks (mesh " +
                m.mesh.str() + "), not on " +
                std::to_string(ranks) + " (start " +
                std::to_string(m.worldSize) + " ranks: telar-run -n " +
                std::to_string(m.worldSize) + ", mpirun -np " +
                std::to_string(m.worldSize) + " or srun -n " +
                std::to_string(m.worldSize) + ")");
  }
  artifact->rank = world ? world->getRank() : 0;
  artifact->world = world;
  auto fileOf = [&](const std::string &file) {
    return telar_artifact::expandRankPath(file, artifact->rank);
  };

  // Every file the program needs must exist before anything is mapped or
  // loaded.
  if (!detail::isRegularFile(dir + "/" + program.library))
    throw Error("artifact '" + dir + "' is incomplete: program library '" +
                program.library + "' (program '" + program.name +
                "') is missing");
  for (const std::string &file : program.weightFiles)
    if (!detail::isRegularFile(dir + "/" + fileOf(file)))
      throw Error("artifact '" + dir + "' is incomplete: weights file '" +
                  fileOf(file) + "' is missing");

  // Map each of the program's weight files once and check its weights.
  std::map<std::string, SafetensorsFile *> files;
  for (const WeightSpec *w : artifact->weights) {
    SafetensorsFile *&file = files[w->file];
    if (!file) {
      artifact->weightFiles.push_back(
          SafetensorsFile::open(dir + "/" + fileOf(w->file)));
      file = artifact->weightFiles.back().get();
      // Read-only and unchanged while mapped (the device may derive
      // copies of its weights once: the CPU's packed GEMM operands).
      if (file->getMapping())
        artifact->mappingSpans.push_back(
            {file->getMapping(), file->getMappingSize()});
    }
    const SafetensorsTensor *t = file->find(w->name);
    std::string where = "weights file '" + file->getPath() + "': ";
    if (!t)
      throw Error(where + "no tensor '" + w->name +
                  "' (named by manifest.json)");
    if (t->dtype != w->dtype || t->shape != w->shape)
      throw Error(where + "tensor '" + w->name + "' is " + t->dtypeCode +
                  formatShape(t->shape) + " but manifest.json says " +
                  w->typeString());
    artifact->weightSpans.push_back({t->data, w->byteSize()});
  }
  // The device of the manifest's target kind (older manifests name none:
  // the CPU's).
  artifact->context = std::make_unique<Context>(
      createDevice(m.targetKind.empty() ? "cpu" : m.targetKind));
  // Uploaded to (for the CPU: used in place by) the context's device.
  artifact->deviceWeights = artifact->context->getDevice().loadWeights(
      artifact->weightSpans, artifact->mappingSpans, /*writable=*/false);
  if (m.hasMesh()) {
    std::shared_ptr<comm::Communicator> meshWorld = world;
    if (!meshWorld)
      meshWorld = comm::createLocalCommunicator();
    artifact->mesh = std::make_shared<comm::MeshCommunicator>(
        meshWorld, m.mesh.axisNames, m.mesh.axisSizes);
    artifact->context->setMeshCommunicator(artifact->mesh);
  }

  exposeRuntimeSymbols();
  std::string library = dir + "/" + program.library;
  // dlopen searches the library path for names without a slash; dir always
  // contributes one, but make relative paths explicit anyway.
  if (library.front() != '/' && library.compare(0, 2, "./") != 0)
    library = "./" + library;
  artifact->programHandle = dlopen(library.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!artifact->programHandle) {
    const char *why = dlerror();
    throw Error("cannot load program library '" + program.library +
                "' of artifact '" + dir +
                "': " + (why ? why : "unknown error"));
  }
  dlerror();
  void *entry = dlsym(artifact->programHandle, program.entry.c_str());
  if (!entry)
    throw Error("program library '" + program.library + "' of artifact '" +
                dir + "' does not export the entry point '" + program.entry +
                "'");
  artifact->entry = reinterpret_cast<TelarEntryFn>(entry);
  return artifact;
}

Artifact::~Artifact() {
  if (programHandle)
    dlclose(programHandle);
  // The device's weights (the CPU's packed copies) go before the mappings.
  deviceWeights.reset();
}

void Artifact::makeWeightsWritable() {
  if (deviceWeights->isWritable())
    return;
  deviceWeights = context->getDevice().loadWeights(weightSpans, mappingSpans,
                                                   /*writable=*/true);
}

size_t Artifact::getWeightsBytes() const {
  size_t bytes = 0;
  for (const WeightSpec *w : weights)
    bytes += w->byteSize();
  return bytes;
}

std::vector<Tensor> Artifact::allocateOutputs() const {
  std::vector<Tensor> outputs;
  for (const TensorSpec &o : manifest.outputs)
    outputs.emplace_back(o.dtype, getLocalShape(o));
  return outputs;
}

Tensor Artifact::sliceInput(size_t index, const Tensor &global) const {
  if (index >= manifest.inputs.size())
    throw Error("artifact '" + directory + "' has no input " +
                std::to_string(index));
  const TensorSpec &s = manifest.inputs[index];
  if (global.getDType() != s.dtype || global.getShape() != s.shape)
    throw Error("input '" + s.name + "': expected " + s.typeString() +
                ", got " + global.typeString());
  if (!s.isSharded()) {
    Tensor copy(s.dtype, s.shape);
    std::memcpy(copy.data(), global.data(), global.getByteSize());
    return copy;
  }
  Tensor local(s.dtype, getLocalShape(s));
  detail::extractBlock(global.data(), s.shape,
                       manifest.getBlockOffsets(s, rank), local.getShape(),
                       dtypeSize(s.dtype), local.data());
  return local;
}

std::vector<Tensor>
Artifact::gatherOutputs(const std::vector<Tensor> &local) const {
  if (local.size() != manifest.outputs.size())
    throw Error("artifact '" + directory + "' has " +
                std::to_string(manifest.outputs.size()) + " outputs, got " +
                std::to_string(local.size()));
  for (size_t i = 0; i < local.size(); ++i) {
    const TensorSpec &s = manifest.outputs[i];
    if (local[i].getDType() != s.dtype ||
        local[i].getShape() != getLocalShape(s))
      throw Error("output '" + s.name + "': expected this rank's block " +
                  formatType(s.dtype, getLocalShape(s)) + ", got " +
                  local[i].typeString());
  }
  std::vector<Tensor> global;
  for (size_t i = 0; i < local.size(); ++i) {
    Tensor whole = gatherOutput(i, local[i]);
    if (rank == 0)
      global.push_back(std::move(whole));
  }
  return global;
}

Tensor Artifact::gatherOutput(size_t index, const Tensor &local) const {
  if (index >= manifest.outputs.size())
    throw Error("artifact '" + directory + "' has no output " +
                std::to_string(index));
  const TensorSpec &s = manifest.outputs[index];
  if (local.getDType() != s.dtype || local.getShape() != getLocalShape(s))
    throw Error("output '" + s.name + "': expected this rank's block " +
                formatType(s.dtype, getLocalShape(s)) + ", got " +
                local.typeString());
  int64_t ranks = manifest.worldSize;
  if (!s.isSharded() || !world || ranks == 1) {
    // Replicated (every rank holds the whole), or one rank.
    if (rank != 0)
      return Tensor();
    Tensor whole(s.dtype, s.shape);
    if (!s.isSharded())
      std::memcpy(whole.data(), local.data(), whole.getByteSize());
    else
      detail::insertBlock(whole.data(), s.shape, manifest.getBlockOffsets(s, 0),
                          local.getShape(), dtypeSize(s.dtype), local.data());
    return whole;
  }
  size_t bytes = local.getByteSize();
  std::unique_ptr<unsigned char[]> all;
  if (rank == 0)
    all.reset(new unsigned char[std::max<size_t>(1, bytes * ranks)]);
  world->gather(local.data(), all.get(), int64_t(bytes), comm::DataType::I8, 0);
  if (rank != 0)
    return Tensor();
  Tensor whole(s.dtype, s.shape);
  for (int64_t r = 0; r < ranks; ++r)
    detail::insertBlock(whole.data(), s.shape, manifest.getBlockOffsets(s, r),
                        local.getShape(), dtypeSize(s.dtype),
                        all.get() + r * bytes);
  return whole;
}

void Artifact::run(Context &ctx, const std::vector<const void *> &inputs,
                   const std::vector<void *> &outputs) const {
  if (inputs.size() != manifest.inputs.size() ||
      outputs.size() != manifest.outputs.size())
    throw Error("artifact '" + directory + "' takes " +
                std::to_string(manifest.inputs.size()) + " inputs and " +
                std::to_string(manifest.outputs.size()) + " outputs, got " +
                std::to_string(inputs.size()) + " and " +
                std::to_string(outputs.size()));
  Device &device = ctx.getDevice();
  if (std::strcmp(device.getKind(), context->getDevice().getKind()) != 0)
    throw Error("artifact '" + directory + "' holds its weights on a '" +
                context->getDevice().getKind() +
                "' device and cannot run on a context of a '" +
                device.getKind() + "' device");
  // The program only reads inputs (and, unless writable, weights); the ABI
  // has no const.
  std::vector<void *> buffers;
  buffers.reserve(inputs.size() + deviceWeights->size() + outputs.size());
  for (const void *p : inputs)
    buffers.push_back(const_cast<void *>(p));
  for (size_t i = 0; i < deviceWeights->size(); ++i)
    buffers.push_back(deviceWeights->getData(i));
  for (void *p : outputs)
    buffers.push_back(p);

  TelarContext *c = ctx.get();
  telarrt_context_clear_error(c);
  const void *saved = device.setWeightsBinding(deviceWeights->getBinding());
  // A context without a mesh of its own uses the artifact's for the run.
  comm::MeshCommunicator *savedMesh = c->mesh;
  if (!c->mesh)
    c->mesh = mesh.get();
  // The entry point is host code that runs (on the CPU) or enqueues (on a
  // GPU) the program's work on the device's queue; the run ends when the
  // queue is done.
  int status = TELAR_STATUS_OK;
  Queue &queue = device.getQueue();
  try {
    queue.enqueue([&] { status = entry(c, buffers.data()); });
    if (status == TELAR_STATUS_OK)
      queue.synchronize();
  } catch (...) {
    device.setWeightsBinding(saved);
    c->mesh = savedMesh;
    throw;
  }
  device.setWeightsBinding(saved);
  c->mesh = savedMesh;
  if (status == TELAR_STATUS_OK)
    return;
  // The program returned at its first failure, before its frees.
  telarrt_context_free_live_blocks(c);
  std::string message = telarrt_context_error(c);
  if (message.empty())
    message = "no message in the context";
  throw RunError(status, "program '" + getProgram().name + "' of artifact '" +
                             directory + "' failed (status " +
                             std::to_string(status) + ", " +
                             statusName(status) + "): " + message);
}

void Artifact::run(Context &ctx, const std::vector<Tensor> &inputs,
                   std::vector<Tensor> &outputs) const {
  auto check = [&](const char *kind, const std::vector<TensorSpec> &specs,
                   size_t count) {
    if (count != specs.size())
      throw Error("artifact '" + directory + "' takes " +
                  std::to_string(specs.size()) + " " + kind + "s, got " +
                  std::to_string(count));
  };
  check("input", manifest.inputs, inputs.size());
  check("output", manifest.outputs, outputs.size());
  std::vector<const void *> in;
  std::vector<void *> out;
  // Multi-rank: the buffers are this rank's blocks.
  MemorySpace space = ctx.getDevice().getMemorySpace();
  auto checkSpace = [&](const char *kind, const TensorSpec &s,
                        const Tensor &t) {
    if (t.getMemorySpace() != space)
      throw Error(std::string(kind) + " '" + s.name + "' is in " +
                  memorySpaceName(t.getMemorySpace()) +
                  " memory, but the context's '" + ctx.getDevice().getKind() +
                  "' device takes " + memorySpaceName(space) + " memory");
  };
  for (size_t i = 0; i < inputs.size(); ++i) {
    const TensorSpec &s = manifest.inputs[i];
    checkSpace("input", s, inputs[i]);
    if (inputs[i].getDType() != s.dtype ||
        inputs[i].getShape() != getLocalShape(s))
      throw Error("input '" + s.name + "': expected " +
                  formatType(s.dtype, getLocalShape(s)) + ", got " +
                  inputs[i].typeString());
    in.push_back(inputs[i].data());
  }
  for (size_t i = 0; i < outputs.size(); ++i) {
    const TensorSpec &s = manifest.outputs[i];
    checkSpace("output", s, outputs[i]);
    if (outputs[i].getDType() != s.dtype ||
        outputs[i].getShape() != getLocalShape(s))
      throw Error("output '" + s.name + "': expected " +
                  formatType(s.dtype, getLocalShape(s)) + ", got " +
                  outputs[i].typeString());
    out.push_back(outputs[i].data());
  }
  run(ctx, in, out);
}
