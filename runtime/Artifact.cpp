//===- Artifact.cpp - Load and run artifacts (docs/Artifact.md) -----------===//

#include "Blocks.h"
#include "Context.h"
#include "FileUtil.h"
#include "telar/artifact/Manifest.h"
#include "telar/runtime/Abi.h"
#include "telar/runtime/Comm.h"
#include "telar/runtime/Runtime.h"
#include "telar/runtime/Safetensors.h"

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

extern "C" int omp_get_max_threads(void);

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
                           detail::formatMesh(m.mesh) + ")");
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

/// Every split dimension of `shape` divisible by its axes' sizes.
void checkDivisible(const ObjectReader &reader, const Manifest &m,
                    const telar_sharding::Sharding &sharding,
                    const std::vector<int64_t> &shape) {
  for (size_t d = 0; d < sharding.dims.size(); ++d) {
    int64_t n = 1;
    std::string names;
    for (int64_t a : sharding.dims[d]) {
      n *= m.mesh.axisSizes[a];
      names += (names.empty() ? "'" : ", '") + m.mesh.axisNames[a] + "'";
    }
    if (shape[d] % n != 0)
      throw reader.error("is split " + m.formatSharding(sharding) +
                         " but its dimension " + std::to_string(d) +
                         " (size " + std::to_string(shape[d]) +
                         ") is not divisible by " + std::to_string(n) +
                         ", the size of axes " + names);
  }
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
      detail::localShape(spec.globalShape, spec.sharding, m.mesh);
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
                (mesh ? detail::formatMesh(m.mesh) : std::string("none")) + ") has " +
                std::to_string(devices) + " devices");
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
    m.targetCpu = r.optionalString(key::kTargetCpu);
    m.targetFeatures = r.optionalString(key::kTargetFeatures);
    if (!m.targetKind.empty() && m.targetKind != "cpu")
      throw Error(origin + ": target kind '" + m.targetKind +
                  "' is not supported by this runtime (expected 'cpu')");
  }

  parseMesh(reader, m, origin);
  m.inputs = parseTensors<TensorSpec>(reader, key::kInputs, m, origin);
  m.outputs = parseTensors<TensorSpec>(reader, key::kOutputs, m, origin);
  m.weights = parseTensors<WeightSpec>(reader, key::kWeights, m, origin);
  std::set<std::string> weightFiles;
  for (const WeightSpec &w : m.weights)
    weightFiles.insert(w.file);

  const json &programs = reader.array(key::kPrograms);
  if (programs.empty())
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

bool TensorSpec::isSharded() const {
  for (const std::vector<int64_t> &axes : sharding.dims)
    if (!axes.empty())
      return true;
  return false;
}

Shape Manifest::getLocalShape(const TensorSpec &spec) const {
  return detail::localShape(spec.shape, spec.sharding, mesh);
}

Shape Manifest::getBlockOffsets(const TensorSpec &spec, int64_t rank) const {
  return detail::blockOffsets(spec.shape, spec.sharding, mesh, rank);
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
// Context
//===----------------------------------------------------------------------===//

Context::Context() : ctx(telarrt_context_create()) {
  if (!ctx)
    throw Error("out of memory creating a runtime context");
}

void Context::setPrepackedWeights(const PrepackedWeights *weights) {
  get()->constants = weights ? weights->getCache() : nullptr;
}

void Context::setMeshCommunicator(
    std::shared_ptr<comm::MeshCommunicator> communicator) {
  mesh = std::move(communicator);
  get()->mesh = mesh.get();
}

//===----------------------------------------------------------------------===//
// Artifact
//===----------------------------------------------------------------------===//

void telar::runtime::exposeRuntimeSymbols() {
  // dlopen(RTLD_NOLOAD | RTLD_GLOBAL) on an already loaded library promotes
  // it to the global scope, where a program's undefined symbols are looked
  // up. A no-op when the executable links these libraries directly.
  for (void *symbol : {reinterpret_cast<void *>(&telarrt_alloc),
                       reinterpret_cast<void *>(&omp_get_max_threads)}) {
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
                detail::formatMesh(m.mesh) + "), not on " +
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
      // Read-only and unchanged while mapped: GEMMs may pack its weights
      // once (the destructor unregisters it, also when loading fails).
      if (file->getMapping()) {
        artifact->constantRanges.emplace_back(file->getMapping(),
                                              file->getMappingSize());
        artifact->prepacked.registerRange(file->getMapping(),
                                          file->getMappingSize());
      }
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
    artifact->weightData.push_back(t->data);
  }
  artifact->context = std::make_unique<Context>();
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
  // Frees the packed copies of the weights (before they are unmapped).
  for (const auto &[data, bytes] : constantRanges)
    prepacked.unregisterRange(data, bytes);
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
  int64_t ranks = manifest.worldSize;
  for (size_t i = 0; i < local.size(); ++i) {
    const TensorSpec &s = manifest.outputs[i];
    if (!s.isSharded() || !world || ranks == 1) {
      // Replicated (every rank holds the whole), or one rank.
      if (rank == 0) {
        Tensor whole(s.dtype, s.shape);
        if (!s.isSharded())
          std::memcpy(whole.data(), local[i].data(), whole.getByteSize());
        else
          detail::insertBlock(whole.data(), s.shape,
                              manifest.getBlockOffsets(s, 0),
                              local[i].getShape(), dtypeSize(s.dtype),
                              local[i].data());
        global.push_back(std::move(whole));
      }
      continue;
    }
    size_t bytes = local[i].getByteSize();
    std::unique_ptr<unsigned char[]> all;
    if (rank == 0)
      all.reset(new unsigned char[std::max<size_t>(1, bytes * ranks)]);
    world->gather(local[i].data(), all.get(), int64_t(bytes),
                  comm::DataType::I8, 0);
    if (rank != 0)
      continue;
    Tensor whole(s.dtype, s.shape);
    for (int64_t r = 0; r < ranks; ++r)
      detail::insertBlock(whole.data(), s.shape,
                          manifest.getBlockOffsets(s, r), local[i].getShape(),
                          dtypeSize(s.dtype), all.get() + r * bytes);
    global.push_back(std::move(whole));
  }
  return global;
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
  // The program only reads inputs and weights; the ABI has no const.
  std::vector<void *> buffers;
  buffers.reserve(inputs.size() + weightData.size() + outputs.size());
  for (const void *p : inputs)
    buffers.push_back(const_cast<void *>(p));
  for (const void *p : weightData)
    buffers.push_back(const_cast<void *>(p));
  for (void *p : outputs)
    buffers.push_back(p);

  TelarContext *c = ctx.get();
  telarrt_context_clear_error(c);
  detail::ConstantCache *saved = c->constants;
  c->constants = prepacked.getCache();
  // A context without a mesh of its own uses the artifact's for the run.
  comm::MeshCommunicator *savedMesh = c->mesh;
  if (!c->mesh)
    c->mesh = mesh.get();
  int status = entry(c, buffers.data());
  c->constants = saved;
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
  for (size_t i = 0; i < inputs.size(); ++i) {
    const TensorSpec &s = manifest.inputs[i];
    if (inputs[i].getDType() != s.dtype ||
        inputs[i].getShape() != getLocalShape(s))
      throw Error("input '" + s.name + "': expected " +
                  formatType(s.dtype, getLocalShape(s)) + ", got " +
                  inputs[i].typeString());
    in.push_back(inputs[i].data());
  }
  for (size_t i = 0; i < outputs.size(); ++i) {
    const TensorSpec &s = manifest.outputs[i];
    if (outputs[i].getDType() != s.dtype ||
        outputs[i].getShape() != getLocalShape(s))
      throw Error("output '" + s.name + "': expected " +
                  formatType(s.dtype, getLocalShape(s)) + ", got " +
                  outputs[i].typeString());
    out.push_back(outputs[i].data());
  }
  run(ctx, in, out);
}
