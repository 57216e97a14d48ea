//===- Manifest.cpp - Element types and the manifest's queries ------------===//

#include "telar/artifact/Manifest.h"

#include <set>

using namespace telar_artifact;

namespace {
struct DTypeInfo {
  DType dtype;
  const char *name;
  size_t size;
};
constexpr DTypeInfo kDTypes[] = {
    {DType::Float32, "float32", 4}, {DType::Float64, "float64", 8},
    {DType::Float16, "float16", 2}, {DType::BFloat16, "bfloat16", 2},
    {DType::Int8, "int8", 1},       {DType::Int16, "int16", 2},
    {DType::Int32, "int32", 4},     {DType::Int64, "int64", 8},
    {DType::UInt8, "uint8", 1},     {DType::UInt16, "uint16", 2},
    {DType::UInt32, "uint32", 4},   {DType::UInt64, "uint64", 8},
    {DType::Bool, "bool", 1},
};

const DTypeInfo &info(DType dtype) {
  return kDTypes[static_cast<size_t>(dtype)];
}
} // namespace

std::optional<DType> telar_artifact::parseDType(std::string_view name) {
  for (const DTypeInfo &i : kDTypes)
    if (name == i.name)
      return i.dtype;
  return std::nullopt;
}

const char *telar_artifact::dtypeName(DType dtype) { return info(dtype).name; }

size_t telar_artifact::dtypeSize(DType dtype) { return info(dtype).size; }

int64_t telar_artifact::numElements(const Shape &shape) {
  int64_t n = 1;
  for (int64_t d : shape)
    n *= d;
  return n;
}

std::string telar_artifact::formatShape(const Shape &shape) {
  std::string s = "[";
  for (size_t i = 0; i < shape.size(); ++i) {
    if (i)
      s += ",";
    s += std::to_string(shape[i]);
  }
  return s + "]";
}

std::string telar_artifact::formatType(DType dtype, const Shape &shape) {
  return dtypeName(dtype) + formatShape(shape);
}

std::string telar_artifact::expandRankPath(std::string path, int64_t rank) {
  const std::string placeholder = kRankPlaceholder;
  std::string number = std::to_string(rank);
  for (size_t p = path.find(placeholder); p != std::string::npos;
       p = path.find(placeholder, p + number.size()))
    path.replace(p, placeholder.size(), number);
  return path;
}

bool TensorSpec::isSharded() const {
  for (const std::vector<int64_t> &axes : sharding.dims)
    if (!axes.empty())
      return true;
  return false;
}

int64_t PipelineSpec::getPositionOfRank(int64_t rank) const {
  for (int64_t q = 0; q < getNumPositions(); ++q)
    if (rank >= stages[q].firstRank &&
        rank < stages[q].firstRank + stages[q].numRanks)
      return q;
  return -1;
}

bool PipelineSpec::isTraining() const {
  for (const std::vector<PipelineStepSpec> &steps : scheduleTable)
    for (const PipelineStepSpec &step : steps)
      if (step.op == PipelineStepSpec::Op::Backward)
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

bool Manifest::operator==(const Manifest &o) const {
  return formatVersion == o.formatVersion && telarVersion == o.telarVersion &&
         modelPath == o.modelPath && modelSha256 == o.modelSha256 &&
         targetKind == o.targetKind && targetTriple == o.targetTriple &&
         targetChip == o.targetChip && targetFeatures == o.targetFeatures &&
         programs == o.programs && inputs == o.inputs && outputs == o.outputs &&
         weights == o.weights && largestLiveSetBytes == o.largestLiveSetBytes &&
         mesh == o.mesh && worldSize == o.worldSize && pipeline == o.pipeline &&
         training == o.training;
}

double TrainingSpec::get(const std::string &key, double fallback) const {
  auto it = hyperparameters.find(key);
  return it == hyperparameters.end() ? fallback : it->second;
}
