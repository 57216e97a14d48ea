//===- ManifestReader.cpp - Parse and check manifest.json -----------------===//
//
// parseManifest (include/telar/artifact/Manifest.h): every field checked,
// errors naming the file and the field at fault.
//
//===----------------------------------------------------------------------===//

#include "telar/artifact/Manifest.h"
#include "telar/json/JsonCheck.h"
#include "telar/sharding/core/DeviceLimit.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cctype>
#include <map>
#include <set>

using namespace telar_artifact;
using json = nlohmann::json;

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
  spec.updates = reader.optionalString(key::kTensorUpdates);
}

/// The "training" object, checked against the outputs and weights: every
/// output's `updates` names a weight of its type and local shape, once; the
/// loss is an output; each parameter's output updates a weight.
TrainingSpec parseTraining(const json &object, const Manifest &m,
                           const std::string &origin) {
  ObjectReader reader(object, key::kTraining, origin);
  TrainingSpec t;
  t.loss = reader.string(key::kTrainingLoss);
  t.optimizer = reader.string(key::kTrainingOptimizer);
  if (const json *hp = reader.optional(key::kTrainingHyperparameters)) {
    if (!hp->is_object())
      throw reader.fieldError(key::kTrainingHyperparameters,
                              "must be an object of numbers");
    for (auto it = hp->begin(); it != hp->end(); ++it) {
      if (!it->is_number())
        throw reader.fieldError(key::kTrainingHyperparameters,
                                "'" + it.key() + "' must be a number, got " +
                                    it->dump());
      t.hyperparameters[it.key()] = it->get<double>();
    }
  }
  auto outputNamed = [&](const std::string &name) -> const TensorSpec * {
    for (const TensorSpec &o : m.outputs)
      if (o.name == name)
        return &o;
    return nullptr;
  };
  const TensorSpec *loss = outputNamed(t.loss);
  if (!loss || loss->numElements() != 1)
    throw reader.fieldError(key::kTrainingLoss,
                            "('" + t.loss + "') must name a scalar output");
  const json &params = reader.array(key::kTrainingParameters);
  for (size_t i = 0; i < params.size(); ++i) {
    ObjectReader r(params[i],
                   std::string(key::kTraining) + "." +
                       key::kTrainingParameters + "[" + std::to_string(i) +
                       "]",
                   origin);
    TrainingParameterSpec p{r.string(key::kTrainingParameterName),
                            r.string(key::kTrainingParameterOutput)};
    const TensorSpec *out = outputNamed(p.output);
    if (!out || out->updates.empty())
      throw r.fieldError(key::kTrainingParameterOutput,
                         "('" + p.output +
                             "') must name an output that updates a weight");
    t.parameters.push_back(std::move(p));
  }
  if (reader.optional(key::kTrainingExportModel))
    t.exportModel = checkRelativePath(reader, key::kTrainingExportModel);
  return t;
}

/// Each output's `updates` names a weight of the program's type, once.
void checkUpdates(const Manifest &m, const std::string &origin) {
  std::set<std::string> updated;
  for (size_t i = 0; i < m.outputs.size(); ++i) {
    const TensorSpec &o = m.outputs[i];
    if (o.updates.empty())
      continue;
    std::string where = origin + ": field 'outputs[" + std::to_string(i) +
                        "]." + key::kTensorUpdates + "' ('" + o.updates + "')";
    if (!m.training)
      throw Error(where + " needs a training artifact (field '" +
                  key::kTraining + "')");
    const WeightSpec *weight = nullptr;
    for (const WeightSpec &w : m.weights)
      if (w.name == o.updates)
        weight = &w;
    if (!weight)
      throw Error(where + " names no weight");
    if (weight->dtype != o.dtype || weight->shape != m.getLocalShape(o))
      throw Error(where + ": the weight is " + weight->typeString() +
                  " on each rank, the output " +
                  formatType(o.dtype, m.getLocalShape(o)));
    if (!(weight->sharding == o.sharding))
      throw Error(where + ": the weight is split " +
                  m.formatSharding(weight->sharding) + ", the output " +
                  m.formatSharding(o.sharding) +
                  " (a variable and its new value must be split alike)");
    if (!updated.insert(o.updates).second)
      throw Error(where + " is updated by two outputs");
  }
}

/// A weight's global shape, sharding and file: a sharded weight's local
/// shape is its global shape's block and it lives in a per-rank file.
void parseWeight(const ObjectReader &reader, const Manifest &m,
                 WeightSpec &spec) {
  spec.file = checkRelativePath(reader, key::kWeightFile);
  bool perRank =
      spec.file.find(kRankPlaceholder) != std::string::npos;
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
      throw reader.error("has shape " + formatShape(spec.shape) +
                         " but global_shape " + formatShape(spec.globalShape) +
                         " without a sharding");
    return;
  }
  if (spec.globalShape.size() != spec.shape.size())
    throw reader.error("has shape " + formatShape(spec.shape) +
                       " but global_shape " + formatShape(spec.globalShape) +
                       " (a different rank)");
  checkDivisible(reader, m, spec.sharding, spec.globalShape);
  std::vector<int64_t> local =
      telar_sharding::getLocalShape(spec.globalShape, spec.sharding, m.mesh);
  if (local != spec.shape)
    throw reader.error("has shape " + formatShape(spec.shape) +
                       " but the block of its global_shape " +
                       formatShape(spec.globalShape) + " split " +
                       m.formatSharding(spec.sharding) + " is " +
                       formatShape(local));
  if (spec.isSharded() && !perRank)
    throw reader.error("is sharded but its file '" + spec.file +
                       "' is the same for every rank (a sharded weight's "
                       "file has '" +
                       kRankPlaceholder + "' in its path)");
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

/// Per-rank tables are sized by the world: no more ranks than a mesh may
/// have devices.
void checkWorldSize(int64_t worldSize, const std::string &origin) {
  if (worldSize > telar_sharding::kMaxDevices)
    throw Error(origin + ": field '" + key::kWorldSize + "' is " +
                std::to_string(worldSize) + ", more than the " +
                std::to_string(telar_sharding::kMaxDevices) +
                " devices Telar supports");
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
    std::string error;
    if (!telar_sharding::checkNumDevices(m.mesh.axisSizes, error))
      throw Error(origin + ": field '" + key::kMesh + "': " + error);
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
  checkWorldSize(m.worldSize, origin);
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
  checkWorldSize(m.worldSize, origin);
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
    if (const json *gradient = tr.optional(key::kTransferGradient)) {
      if (!gradient->is_boolean())
        throw tr.fieldError(key::kTransferGradient,
                            "must be true or false, got " + gradient->dump());
      x.gradient = gradient->get<bool>();
    }
    // Values go to a later stage, their gradients back to an earlier one.
    if (x.fromStage >= S || x.toStage >= S ||
        (x.gradient ? x.fromStage <= x.toStage : x.fromStage >= x.toStage))
      throw Error(origin + ": " + path + " goes from stage " +
                  std::to_string(x.fromStage) + " to stage " +
                  std::to_string(x.toStage) + " (stages of the " +
                  std::to_string(S) + ", " +
                  (x.gradient ? "a gradient to an earlier one" :
                              "to a later one") + ")");
    std::string dtype = tr.string(key::kTransferDType);
    std::optional<DType> d = parseDType(dtype);
    if (!d)
      throw tr.error("has unknown dtype '" + dtype + "'");
    x.dtype = *d;
    x.shape = parseShape(tr, key::kTransferShape);
    for (size_t u = 0; u < t; ++u)
      // A value goes once to each stage using it; its gradient comes back
      // once from each (the producer sums them).
      if (p.transfers[u].name == x.name &&
          p.transfers[u].gradient == x.gradient &&
          (x.gradient ? p.transfers[u].fromStage == x.fromStage
                      : p.transfers[u].toStage == x.toStage))
        throw tr.error(
            "repeats the transfer of '" + x.name + "'" +
            (x.gradient ? "'s gradient from stage " +
                              std::to_string(x.fromStage)
                        : " to stage " + std::to_string(x.toStage)) +
            " (transfer " + std::to_string(u) + ")");
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

  // The schedule table: one list per world rank. A schedule with backward
  // steps trains: gradients flow back, each stage's optimizer may run.
  std::string tablePath = root + "." + key::kPipelineScheduleTable;
  const json &table = r.array(key::kPipelineScheduleTable);
  if (int64_t(table.size()) != m.worldSize)
    throw Error(origin + ": field '" + tablePath + "' has " +
                std::to_string(table.size()) + " lists, but the world has " +
                std::to_string(m.worldSize) + " ranks (one list per rank)");
  bool training = false;
  for (const json &list : table)
    if (list.is_array())
      for (const json &step : list)
        training |= step.is_object() && step.value(key::kStepOp, "") ==
                                            telar_sharding::getPipelineStepKindName(
                                                PipelineStepSpec::Op::Backward);
  for (int64_t t = 0; t < T; ++t)
    if (p.transfers[size_t(t)].gradient && !training)
      throw Error(origin + ": " + root + "." + key::kPipelineTransfers + "[" +
                  std::to_string(t) +
                  "] moves a gradient, but no schedule step is a backward "
                  "pass");
  using Op = PipelineStepSpec::Op;
  for (int64_t rank = 0; rank < m.worldSize; ++rank) {
    std::string listPath = tablePath + "[" + std::to_string(rank) + "]";
    const json &list = table[size_t(rank)];
    if (!list.is_array())
      throw Error(origin + ": field '" + listPath + "' must be an array, got " +
                  list.dump());
    std::vector<PipelineStepSpec> steps;
    int64_t position = owner[size_t(rank)];
    // Per (stage, microbatch): the step that computed its forward and its
    // backward pass; per stage the step that ran its optimizer.
    std::map<std::pair<int64_t, int64_t>, size_t> forwarded, backwarded;
    std::map<int64_t, size_t> optimized;
    // Per (transfer, microbatch): sent / received at step.
    std::map<std::pair<int64_t, int64_t>, size_t> sent, received;
    for (size_t i = 0; i < list.size(); ++i) {
      std::string stepPath = listPath + "[" + std::to_string(i) + "]";
      ObjectReader sr(list[i], stepPath, origin);
      PipelineStepSpec step;
      std::string op = sr.string(key::kStepOp);
      std::optional<Op> kind = telar_sharding::parsePipelineStepKindName(op);
      if (!kind)
        throw Error(origin + ": field '" + sr.fieldPath(key::kStepOp) +
                    "' is '" + op +
                    "' (expected 'forward', 'backward', 'optimizer', 'send' "
                    "or 'recv')");
      step.op = *kind;
      if (step.op == Op::Optimizer) {
        // Once per stage, over every microbatch's gradients.
        if (sr.optional(key::kStepMicrobatch))
          throw sr.error("has a 'microbatch' but is an optimizer step (it "
                         "applies every microbatch's gradients)");
        if (!training)
          throw sr.error("is an optimizer step, but no schedule step is a "
                         "backward pass");
        step.microbatch = -1;
      } else {
        step.microbatch = integerField(sr, key::kStepMicrobatch, 0);
        if (step.microbatch >= M)
          throw Error(origin + ": field '" +
                      sr.fieldPath(key::kStepMicrobatch) + "' is " +
                      std::to_string(step.microbatch) + " but there are " +
                      std::to_string(M) + " microbatches");
      }
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
      std::string on = " stage " + std::to_string(step.stage) +
                       " on microbatch " + std::to_string(step.microbatch);
      if (!step.isTransfer()) {
        if (sr.optional(key::kStepTransfers))
          throw sr.error("has 'transfers' but is a " + op + " step");
        if (step.op == Op::Forward && !forwarded.emplace(key, i).second)
          throw sr.error("computes" + on + " a second time (step " +
                         std::to_string(forwarded[key]) + " did)");
        if (step.op == Op::Backward) {
          if (!forwarded.count(key))
            throw sr.error("computes the backward pass of" + on +
                           " before its forward pass");
          if (!backwarded.emplace(key, i).second)
            throw sr.error("computes the backward pass of" + on +
                           " a second time (step " +
                           std::to_string(backwarded[key]) + " did)");
        }
        if (step.op == Op::Optimizer) {
          if (!optimized.emplace(step.stage, i).second)
            throw sr.error("runs the optimizer of stage " +
                           std::to_string(step.stage) +
                           " a second time (step " +
                           std::to_string(optimized[step.stage]) + " did)");
          for (int64_t mb = 0; mb < M; ++mb)
            if (!backwarded.count(std::make_pair(step.stage, mb)))
              throw sr.error("runs the optimizer of stage " +
                             std::to_string(step.stage) +
                             " before the backward pass of microbatch " +
                             std::to_string(mb));
        }
        steps.push_back(std::move(step));
        continue;
      }
      bool isSend = step.op == Op::Send;
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
        // The kind (values or gradients) of the step's first transfer.
        bool gradients =
            step.transfers.empty()
                ? x.gradient
                : p.transfers[size_t(step.transfers.front())].gradient;
        if (mine != step.stage || (peer >= 0 && other != peer) ||
            x.gradient != gradients)
          throw Error(origin + ": " + where + " names transfer " +
                      std::to_string(t) + " (" +
                      (x.gradient ? "gradient, " : "") + "stage " +
                      std::to_string(x.fromStage) + " -> " +
                      std::to_string(x.toStage) + "), not one " +
                      (isSend ? "sent by" : "received by") + " stage " +
                      std::to_string(step.stage) +
                      (peer >= 0 ? " from the same peer stage, of the same "
                                   "kind (values or gradients)"
                                 : ""));
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
        // A send follows the pass that computes what it sends (a value's
        // forward, a gradient's backward); a receive precedes the pass that
        // uses it.
        auto &computed = x.gradient ? backwarded : forwarded;
        const char *pass = x.gradient ? "the backward pass of" : "";
        if (isSend && !computed.count(std::make_pair(x.fromStage,
                                                     step.microbatch)))
          throw sr.error("sends transfer " + std::to_string(t) +
                         " of microbatch " + std::to_string(step.microbatch) +
                         " before " + pass + (x.gradient ? " " : "") +
                         "stage " + std::to_string(x.fromStage) +
                         " computed it");
        if (!isSend &&
            computed.count(std::make_pair(x.toStage, step.microbatch)))
          throw sr.error("receives transfer " + std::to_string(t) +
                         " of microbatch " + std::to_string(step.microbatch) +
                         " after " + pass + (x.gradient ? " " : "") +
                         "stage " + std::to_string(x.toStage) +
                         " computed it");
        step.transfers.push_back(t);
      }
      steps.push_back(std::move(step));
    }
    // Every stage of this rank computed on every microbatch (and, when
    // training, its backward pass too); every message of this rank sent
    // and received.
    for (int64_t s = position; s < S; s += P)
      for (int64_t mb = 0; mb < M; ++mb) {
        if (!forwarded.count(std::make_pair(s, mb)))
          throw Error(origin + ": field '" + listPath +
                      "' never computes stage " + std::to_string(s) +
                      " on microbatch " + std::to_string(mb));
        if (training && !backwarded.count(std::make_pair(s, mb)))
          throw Error(origin + ": field '" + listPath +
                      "' never computes the backward pass of stage " +
                      std::to_string(s) + " on microbatch " +
                      std::to_string(mb) +
                      " (the schedule trains: other steps are backward "
                      "passes)");
      }
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
        if (steps[i].op == Op::Send) {
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

Manifest telar_artifact::parseManifest(std::string_view text,
                                       const std::string &origin) {
  // Bounded nesting before nlohmann builds the tree; no repeated keys
  // (nlohmann keeps one of them silently).
  telar_json::JsonScan scan = telar_json::scanJson(text);
  if (scan.tooDeep)
    throw Error(origin + ": invalid JSON: it " + telar_json::describeTooDeep());
  json root;
  try {
    root = json::parse(text.begin(), text.end());
  } catch (const json::exception &e) {
    throw Error(origin + ": invalid JSON: " + e.what());
  }
  if (scan.duplicateKey)
    throw Error(origin + ": field '" + *scan.duplicateKey + "' appears twice");
  ObjectReader reader(root, "", origin);

  // The format and its version first: a future version may change anything
  // else, and its error should be the one reported.
  std::string format = reader.string(key::kFormat);
  if (format != kFormatName)
    throw Error(origin + ": not a Telar artifact manifest (format is '" +
                format + "', expected '" + kFormatName +
                "')");
  const json &version = reader.required(key::kFormatVersion);
  if (!version.is_number_integer())
    throw Error(origin + ": field '" + key::kFormatVersion +
                "' must be an integer, got " + version.dump());
  Manifest m;
  m.formatVersion = version.get<int64_t>();
  if (m.formatVersion < kOldestReadableFormatVersion ||
      m.formatVersion > kArtifactFormatVersion)
    throw Error(origin + ": artifact format version " +
                std::to_string(m.formatVersion) +
                " is not supported (this runtime reads format versions " +
                std::to_string(kOldestReadableFormatVersion) +
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
    if (r.optional(key::kProgramKernelDirectory)) {
      p.kernelDirectory = checkRelativePath(r, key::kProgramKernelDirectory);
      if (r.optional(key::kProgramEmulationLibrary))
        p.emulationLibrary =
            checkRelativePath(r, key::kProgramEmulationLibrary);
      const json &kernels = r.array(key::kProgramKernels);
      for (size_t j = 0; j < kernels.size(); ++j) {
        ObjectReader k(kernels[j],
                       r.fieldPath(key::kProgramKernels) + "[" +
                           std::to_string(j) + "]",
                       origin);
        KernelSpec spec{k.string(key::kProgramKernelModule),
                        k.string(key::kProgramKernelFunction)};
        // Names of files in the kernel folder and of symbols.
        for (const std::string *name : {&spec.module, &spec.function})
          if (!std::all_of(name->begin(), name->end(), [](char c) {
                return std::isalnum(static_cast<unsigned char>(c)) ||
                       c == '_';
              }))
            throw k.error("has the kernel name '" + *name +
                          "' (letters, digits and '_' only)");
        p.kernels.push_back(std::move(spec));
      }
    } else if (r.optional(key::kProgramKernels) ||
               r.optional(key::kProgramEmulationLibrary)) {
      throw r.error("has kernels but no '" +
                    std::string(key::kProgramKernelDirectory) + "'");
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
  if (const json *training = reader.optional(key::kTraining)) {
    if (pipeline)
      throw Error(origin + ": field '" + key::kTraining +
                  "' does not apply to a pipelined artifact yet");
    m.training = parseTraining(*training, m, origin);
  }
  checkUpdates(m, origin);
  return m;
}

