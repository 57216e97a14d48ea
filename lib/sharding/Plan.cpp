//===- Plan.cpp - plan.json, read and written by one serializer -----------===//
//
// The format is docs/Plan.md's: {"mesh": {axis: size, ...}, "shardings":
// {value: [[axes of dim 0], ...] | {"dims": [...], "partial": {axis:
// kind}}}}. Parsing uses llvm::json, except for the order of the mesh axes,
// which a JSON object does not keep: it is read from the text itself.
//
//===----------------------------------------------------------------------===//

#include "telar/sharding/Plan.h"
#include "telar/json/JsonCheck.h"
#include "telar/sharding/core/DeviceLimit.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <set>

using namespace telar_sharding;
namespace json = llvm::json;

namespace {

//===----------------------------------------------------------------------===//
// The key order of one object in valid JSON text
//===----------------------------------------------------------------------===//

/// One step of a path into JSON text: a member of an object (`key`) or an
/// element of an array (`index` >= 0).
struct PathStep {
  std::string key;
  int64_t index = -1;
};

/// A scanner over text that llvm::json already accepted, so it need not
/// diagnose anything: it finds the keys of the object at a path (the
/// top-level "mesh"), or of a member of every element of an array (each
/// stage's "mesh"), in the order the text has them. One pass each, linear
/// in the text (scanning from the start for every stage was quadratic).
class KeyOrderScanner {
public:
  explicit KeyOrderScanner(std::string_view text) : text(text) {}

  std::vector<std::string> keysAt(const std::vector<PathStep> &path) {
    if (!descend(path) || peek() != '{')
      return {};
    return readKeys();
  }

  /// For each element of the array at `path`, the keys of its member `key`
  /// if that is an object (else none).
  std::vector<std::vector<std::string>>
  keysInEach(const std::vector<PathStep> &path, const std::string &key) {
    std::vector<std::vector<std::string>> all;
    if (!descend(path) || !consume('['))
      return all;
    while (true) {
      skipSpace();
      std::vector<std::string> keys;
      if (consume('{')) {
        while (true) {
          skipSpace();
          if (peek() != '"')
            break;
          std::string name = readString();
          skipSpace();
          consume(':');
          skipSpace();
          if (name == key && peek() == '{') {
            keys = readKeys();
            skipSpace();
            consume('}');
          } else {
            skipValue();
          }
          skipSpace();
          if (!consume(','))
            break;
        }
        skipSpace();
        consume('}');
      } else {
        skipValue();
      }
      all.push_back(std::move(keys));
      skipSpace();
      if (!consume(','))
        return all;
    }
  }

private:
  std::string_view text;
  size_t pos = 0;

  /// Moves to the value at `path`; false if the text has none there.
  bool descend(const std::vector<PathStep> &path) {
    skipSpace();
    for (const PathStep &step : path) {
      if (step.index >= 0) {
        if (!consume('['))
          return {};
        for (int64_t i = 0; i < step.index; ++i) {
          skipSpace();
          skipValue();
          skipSpace();
          if (!consume(','))
            return false;
        }
        skipSpace();
        continue;
      }
      if (!consume('{'))
        return false;
      while (true) {
        skipSpace();
        if (peek() != '"')
          return false;
        std::string key = readString();
        skipSpace();
        consume(':');
        skipSpace();
        if (key == step.key)
          break;
        skipValue();
        skipSpace();
        if (!consume(','))
          return false;
      }
    }
    return true;
  }

  char peek() const { return pos < text.size() ? text[pos] : '\0'; }
  bool consume(char c) {
    if (peek() != c)
      return false;
    ++pos;
    return true;
  }
  void skipSpace() {
    while (pos < text.size() && llvm::isSpace(text[pos]))
      ++pos;
  }
  /// A string literal, decoded by llvm::json (escapes included).
  std::string readString() {
    size_t start = pos++;
    while (pos < text.size() && text[pos] != '"')
      pos += text[pos] == '\\' ? 2 : 1;
    ++pos;
    llvm::Expected<json::Value> v =
        json::parse(llvm::StringRef(text.data() + start, pos - start));
    if (!v) {
      llvm::consumeError(v.takeError());
      return "";
    }
    return v->getAsString().value_or("").str();
  }
  /// Skips one value; a scalar ends at the `,` or closing bracket after it.
  void skipValue() {
    int depth = 0;
    while (pos < text.size()) {
      char c = peek();
      if (c == '"') {
        readString();
        if (depth == 0)
          return;
        continue;
      }
      if (c == '{' || c == '[') {
        ++depth;
      } else if (c == '}' || c == ']') {
        if (depth == 0)
          return;
        if (--depth == 0) {
          ++pos;
          return;
        }
      } else if (depth == 0 && c == ',') {
        return;
      }
      ++pos;
    }
  }
  std::vector<std::string> readKeys() {
    std::vector<std::string> keys;
    consume('{');
    while (true) {
      skipSpace();
      if (peek() != '"')
        return keys;
      keys.push_back(readString());
      skipSpace();
      consume(':');
      skipSpace();
      skipValue();
      skipSpace();
      if (!consume(','))
        return keys;
    }
  }
};

//===----------------------------------------------------------------------===//
// Parsing
//===----------------------------------------------------------------------===//

std::string quote(llvm::StringRef s) { return "'" + s.str() + "'"; }

std::string axisList(const Mesh &mesh) {
  if (mesh.axisNames.empty())
    return "the plan has no mesh axes (give a \"mesh\" or --mesh)";
  std::string list;
  for (const std::string &name : mesh.axisNames)
    list += (list.empty() ? "" : ", ") + name;
  return "the mesh has " + list;
}

/// `field` names the mesh in errors ("mesh", "stages[1].mesh"); `order` is
/// the order of its axes in the text (KeyOrderScanner).
std::optional<Mesh> parseMesh(const json::Object &object,
                              std::vector<std::string> order,
                              const std::string &field, std::string &error) {
  // Before the axes are ordered (quadratic in their number).
  if (int64_t(object.size()) > kMaxMeshAxes) {
    error = field + ": the mesh has " + std::to_string(object.size()) +
            " axes, more than the " + std::to_string(kMaxMeshAxes) +
            " Telar supports";
    return std::nullopt;
  }
  Mesh mesh;
  // Should the scanner miss a key, keep the others in sorted order.
  std::vector<std::string> rest;
  for (const auto &kv : object)
    if (std::find(order.begin(), order.end(), kv.first.str()) == order.end())
      rest.push_back(kv.first.str());
  std::sort(rest.begin(), rest.end());
  order.insert(order.end(), rest.begin(), rest.end());
  for (const std::string &name : order) {
    const json::Value *size = object.get(name);
    if (!size)
      continue;
    std::optional<int64_t> n = size->getAsInteger();
    if (name.empty()) {
      error = field + ": an axis has an empty name";
      return std::nullopt;
    }
    if (!n || *n < 1) {
      error = field + ": the size of axis " + quote(name) +
              " must be a positive integer";
      return std::nullopt;
    }
    mesh.axisNames.push_back(name);
    mesh.axisSizes.push_back(*n);
  }
  if (!checkNumDevices(mesh.axisSizes, error)) {
    error = field + ": " + error;
    return std::nullopt;
  }
  return mesh;
}

/// `[["data"], []]`: one list of axis names per dimension.
bool parseDims(const json::Value &value, const Mesh &mesh,
               const std::string &where, std::set<int64_t> &used,
               Sharding &sharding, std::string &error) {
  const json::Array *dims = value.getAsArray();
  if (!dims) {
    error = where + ": expected a list with one list of mesh axes per "
                    "dimension";
    return false;
  }
  for (size_t d = 0; d < dims->size(); ++d) {
    const json::Array *axes = (*dims)[d].getAsArray();
    if (!axes) {
      error = where + ": dimension " + std::to_string(d) +
              ": expected a list of mesh axis names";
      return false;
    }
    std::vector<int64_t> indices;
    for (const json::Value &axis : *axes) {
      std::optional<llvm::StringRef> name = axis.getAsString();
      if (!name) {
        error = where + ": dimension " + std::to_string(d) +
                ": mesh axes are named by strings";
        return false;
      }
      std::optional<int64_t> index = mesh.getAxisIndex(name->str());
      if (!index) {
        error = where + ": axis " + quote(*name) + " is not in the mesh (" +
                axisList(mesh) + ")";
        return false;
      }
      if (!used.insert(*index).second) {
        error = where + ": axis " + quote(*name) +
                " is used twice in one sharding";
        return false;
      }
      indices.push_back(*index);
    }
    sharding.dims.push_back(std::move(indices));
  }
  return true;
}

std::optional<Sharding> parseSharding(const std::string &valueName,
                                      const json::Value &value,
                                      const Mesh &mesh, std::string &error,
                                      std::vector<std::string> &warnings) {
  std::string where = "value " + quote(valueName);
  Sharding sharding;
  std::set<int64_t> used;
  const json::Object *object = value.getAsObject();
  if (!object) {
    if (!parseDims(value, mesh, where, used, sharding, error))
      return std::nullopt;
    return sharding;
  }
  std::vector<std::string> unknown;
  for (const auto &kv : *object)
    if (kv.first != "dims" && kv.first != "partial")
      unknown.push_back(kv.first.str());
  std::sort(unknown.begin(), unknown.end());
  for (const std::string &field : unknown)
    warnings.push_back(where + ": unknown field " + quote(field) +
                       " ignored");
  const json::Value *dims = object->get("dims");
  if (!dims) {
    error = where + ": the object form needs \"dims\"";
    return std::nullopt;
  }
  if (!parseDims(*dims, mesh, where, used, sharding, error))
    return std::nullopt;
  if (const json::Value *partial = object->get("partial")) {
    const json::Object *axes = partial->getAsObject();
    if (!axes) {
      error = where + ": \"partial\" maps mesh axes to \"sum\", \"max\" or "
                      "\"min\"";
      return std::nullopt;
    }
    // Sorted by name first, so that errors do not depend on hash order.
    std::vector<std::string> names;
    for (const auto &kv : *axes)
      names.push_back(kv.first.str());
    std::sort(names.begin(), names.end());
    for (const std::string &name : names) {
      std::optional<int64_t> index = mesh.getAxisIndex(name);
      if (!index) {
        error = where + ": partial axis " + quote(name) +
                " is not in the mesh (" + axisList(mesh) + ")";
        return std::nullopt;
      }
      if (!used.insert(*index).second) {
        error = where + ": axis " + quote(name) +
                " is used twice in one sharding";
        return std::nullopt;
      }
      std::optional<llvm::StringRef> kindName = axes->get(name)->getAsString();
      std::optional<ReductionKind> kind;
      if (kindName && (*kindName == "sum" || *kindName == "max" ||
                       *kindName == "min"))
        kind = parseReductionName(kindName->str());
      if (!kind) {
        std::string got;
        llvm::raw_string_ostream os(got);
        os << *axes->get(name);
        error = where + ": partial axis " + quote(name) +
                ": unknown reduction " + got +
                " (expected \"sum\", \"max\" or \"min\")";
        return std::nullopt;
      }
      sharding.partial.push_back({*index, *kind});
    }
    std::sort(sharding.partial.begin(), sharding.partial.end(),
              [](const auto &a, const auto &b) { return a.first < b.first; });
  }
  return sharding;
}

/// The "shardings" object at `field` ("shardings", "stages[1].shardings");
/// messages about a value start with `prefix` ("" or "stages[1].shardings: ").
bool parseShardings(const json::Value &value, const Mesh &mesh,
                    const std::string &field, const std::string &prefix,
                    std::map<std::string, Sharding> &out, std::string &error,
                    std::vector<std::string> &warnings) {
  const json::Object *values = value.getAsObject();
  if (!values) {
    error = (prefix.empty() ? "\"" + field + "\" maps"
                            : field + ": expected an object that maps") +
            " value names to shardings";
    return false;
  }
  // In name order, so that the first error reported is deterministic.
  std::vector<std::string> names;
  for (const auto &kv : *values)
    names.push_back(kv.first.str());
  std::sort(names.begin(), names.end());
  for (const std::string &name : names) {
    std::vector<std::string> valueWarnings;
    std::optional<Sharding> sharding =
        parseSharding(name, *values->get(name), mesh, error, valueWarnings);
    for (const std::string &warning : valueWarnings)
      warnings.push_back(prefix + warning);
    if (!sharding) {
      error = prefix + error;
      return false;
    }
    out[name] = std::move(*sharding);
  }
  return true;
}

void warnUnknownFields(const json::Object &object,
                       const std::set<std::string> &known,
                       const std::string &prefix,
                       std::vector<std::string> &warnings) {
  std::vector<std::string> unknown;
  for (const auto &kv : object)
    if (!known.count(kv.first.str()))
      unknown.push_back(kv.first.str());
  std::sort(unknown.begin(), unknown.end());
  for (const std::string &field : unknown)
    warnings.push_back(prefix + "unknown field " + quote(field) + " ignored");
}

/// `meshOrder`: the order of the stage mesh's axes in the text.
std::optional<PlanStage> parseStage(const json::Value &value, int64_t index,
                                    const std::vector<std::string> &meshOrder,
                                    std::string &error,
                                    std::vector<std::string> &warnings) {
  std::string field = "stages[" + std::to_string(index) + "]";
  const json::Object *object = value.getAsObject();
  if (!object) {
    error = field + ": expected an object with \"ops\", \"mesh\", "
                    "\"first_rank\" and \"shardings\"";
    return std::nullopt;
  }
  warnUnknownFields(*object, {"ops", "mesh", "first_rank", "shardings"},
                    field + ": ", warnings);
  PlanStage stage;
  const json::Value *ops = object->get("ops");
  if (!ops) {
    error = field + ": needs \"ops\" (the names of the values it computes)";
    return std::nullopt;
  }
  const json::Array *opList = ops->getAsArray();
  if (!opList) {
    error = field + ".ops: expected a list of value names";
    return std::nullopt;
  }
  for (size_t i = 0; i < opList->size(); ++i) {
    std::optional<llvm::StringRef> name = (*opList)[i].getAsString();
    if (!name) {
      error = field + ".ops[" + std::to_string(i) +
              "]: expected a value name (a string)";
      return std::nullopt;
    }
    stage.ops.push_back(name->str());
  }
  if (const json::Value *mesh = object->get("mesh")) {
    const json::Object *axes = mesh->getAsObject();
    if (!axes) {
      error = field + ".mesh: expected an object that maps axis names to "
                      "sizes, e.g. {\"model\": 2}";
      return std::nullopt;
    }
    std::optional<Mesh> parsed =
        parseMesh(*axes, meshOrder, field + ".mesh", error);
    if (!parsed)
      return std::nullopt;
    stage.mesh = *parsed;
  }
  if (const json::Value *firstRank = object->get("first_rank")) {
    std::optional<int64_t> rank = firstRank->getAsInteger();
    if (!rank || *rank < 0) {
      error = field + ".first_rank: expected a world rank (an integer >= 0)";
      return std::nullopt;
    }
    stage.firstRank = *rank;
  }
  // The job's ranks too stay within the devices a mesh may have.
  if (stage.firstRank > kMaxDevices - stage.mesh.getNumDevices()) {
    error = field + ".first_rank: " + std::to_string(stage.firstRank) +
            " and " + std::to_string(stage.mesh.getNumDevices()) +
            " devices reach beyond the " + std::to_string(kMaxDevices) +
            " devices Telar supports";
    return std::nullopt;
  }
  if (const json::Value *shardings = object->get("shardings"))
    if (!parseShardings(*shardings, stage.mesh, field + ".shardings",
                        field + ".shardings: ", stage.shardings, error,
                        warnings))
      return std::nullopt;
  return stage;
}

std::optional<PlanSchedule> parseSchedule(const json::Value &value,
                                          std::string &error,
                                          std::vector<std::string> &warnings) {
  const json::Object *object = value.getAsObject();
  if (!object) {
    error = "schedule: expected an object with \"kind\", \"microbatches\" "
            "and \"virtual_stages\"";
    return std::nullopt;
  }
  warnUnknownFields(*object, {"kind", "microbatches", "virtual_stages"},
                    "schedule: ", warnings);
  PlanSchedule schedule;
  if (const json::Value *kind = object->get("kind")) {
    std::optional<llvm::StringRef> name = kind->getAsString();
    if (!name || (*name != "gpipe" && *name != "1f1b" &&
                  *name != "interleaved")) {
      std::string got;
      llvm::raw_string_ostream os(got);
      os << *kind;
      error = "schedule.kind: unknown schedule " + got +
              " (expected \"gpipe\", \"1f1b\" or \"interleaved\")";
      return std::nullopt;
    }
    schedule.kind = name->str();
  }
  for (auto [key, slot] :
       {std::pair<const char *, int64_t *>{"microbatches",
                                           &schedule.microbatches},
        {"virtual_stages", &schedule.virtualStages}}) {
    const json::Value *count = object->get(key);
    if (!count)
      continue;
    std::optional<int64_t> n = count->getAsInteger();
    if (!n || *n < 1) {
      error = std::string("schedule.") + key +
              ": expected a positive integer";
      return std::nullopt;
    }
    *slot = *n;
  }
  return schedule;
}

//===----------------------------------------------------------------------===//
// Writing
//===----------------------------------------------------------------------===//

std::string jsonString(llvm::StringRef s) {
  std::string out;
  llvm::raw_string_ostream os(out);
  os << json::Value(s.str());
  return out;
}

std::string writeSharding(const Sharding &sharding, const Mesh &mesh) {
  std::string dims = "[";
  for (size_t d = 0; d < sharding.dims.size(); ++d) {
    dims += d ? ", [" : "[";
    for (size_t i = 0; i < sharding.dims[d].size(); ++i)
      dims += (i ? ", " : "") +
              jsonString(mesh.axisNames[sharding.dims[d][i]]);
    dims += "]";
  }
  dims += "]";
  if (sharding.partial.empty())
    return dims;
  std::string partial = "{";
  for (size_t i = 0; i < sharding.partial.size(); ++i)
    partial += (i ? ", " : "") +
               jsonString(mesh.axisNames[sharding.partial[i].first]) + ": " +
               jsonString(getReductionName(sharding.partial[i].second));
  partial += "}";
  return "{\"dims\": " + dims + ", \"partial\": " + partial + "}";
}

std::string writeMesh(const Mesh &mesh) {
  std::string out = "{";
  for (size_t i = 0; i < mesh.axisNames.size(); ++i)
    out += (i ? ", " : "") + jsonString(mesh.axisNames[i]) + ": " +
           std::to_string(mesh.axisSizes[i]);
  return out + "}";
}

/// `{` one value per line `}`, the lines indented by `indent`.
std::string writeShardings(const std::map<std::string, Sharding> &shardings,
                           const Mesh &mesh, const std::string &indent) {
  std::string out = "{";
  bool first = true;
  for (const auto &[name, sharding] : shardings) {
    out += first ? "\n" : ",\n";
    first = false;
    out += indent + "  " + jsonString(name) + ": " +
           writeSharding(sharding, mesh);
  }
  out += first ? "}" : "\n" + indent + "}";
  return out;
}

} // namespace

std::optional<Plan>
telar_sharding::parsePlanJson(std::string_view text,
                              const std::optional<Mesh> &meshOverride,
                              std::string &error,
                              std::vector<std::string> &warnings) {
  // llvm::json's parser recurses per level: bound the depth before it runs.
  telar_json::JsonScan scan = telar_json::scanJson(text);
  if (scan.tooDeep) {
    error = "the JSON " + telar_json::describeTooDeep();
    return std::nullopt;
  }
  llvm::Expected<json::Value> parsed =
      json::parse(llvm::StringRef(text.data(), text.size()));
  if (!parsed) {
    error = "malformed JSON: " + llvm::toString(parsed.takeError());
    return std::nullopt;
  }
  // llvm::json keeps one of an object's repeated keys.
  if (scan.duplicateKey) {
    error = *scan.duplicateKey + ": the field appears twice";
    return std::nullopt;
  }
  const json::Object *top = parsed->getAsObject();
  if (!top) {
    error = "a plan is a JSON object with \"mesh\" and \"shardings\"";
    return std::nullopt;
  }
  warnUnknownFields(*top, {"mesh", "shardings", "cost", "stages", "schedule"},
                    "", warnings);

  Plan plan;
  const json::Value *stages = top->get("stages");
  if (stages) {
    // Each stage has its own mesh and shardings: the top-level ones would
    // be a second, conflicting description.
    const json::Value *mesh = top->get("mesh");
    if (mesh && !(mesh->getAsObject() && mesh->getAsObject()->empty())) {
      error = "\"mesh\": a plan with \"stages\" gives each stage's mesh "
              "there (the top-level \"mesh\" must be absent or {})";
      return std::nullopt;
    }
    const json::Value *shardings = top->get("shardings");
    if (shardings &&
        !(shardings->getAsObject() && shardings->getAsObject()->empty())) {
      error = "\"shardings\": a plan with \"stages\" gives each stage's "
              "shardings there (the top-level \"shardings\" must be absent "
              "or {})";
      return std::nullopt;
    }
    if (meshOverride) {
      error = "--mesh " + meshOverride->str() +
              " does not apply to a plan with \"stages\" (each stage names "
              "its mesh)";
      return std::nullopt;
    }
    const json::Array *list = stages->getAsArray();
    if (!list) {
      error = "stages: expected a list of stages";
      return std::nullopt;
    }
    if (list->empty()) {
      error = "stages: expected at least one stage";
      return std::nullopt;
    }
    std::vector<std::vector<std::string>> meshOrders =
        KeyOrderScanner(text).keysInEach({{"stages"}}, "mesh");
    meshOrders.resize(list->size());
    for (size_t i = 0; i < list->size(); ++i) {
      std::optional<PlanStage> stage =
          parseStage((*list)[i], int64_t(i), meshOrders[i], error, warnings);
      if (!stage)
        return std::nullopt;
      plan.stages.push_back(std::move(*stage));
    }
  } else if (const json::Value *mesh = top->get("mesh")) {
    const json::Object *axes = mesh->getAsObject();
    if (!axes) {
      error = "\"mesh\" maps axis names to sizes, e.g. {\"data\": 2}";
      return std::nullopt;
    }
    std::optional<Mesh> parsedMesh =
        parseMesh(*axes, KeyOrderScanner(text).keysAt({{"mesh"}}), "mesh",
                  error);
    if (!parsedMesh)
      return std::nullopt;
    plan.mesh = *parsedMesh;
    if (meshOverride && !(*meshOverride == plan.mesh)) {
      error = "--mesh " + meshOverride->str() + " differs from the plan's "
              "mesh " + plan.mesh.str();
      return std::nullopt;
    }
  } else if (meshOverride) {
    plan.mesh = *meshOverride;
  }

  if (const json::Value *schedule = top->get("schedule")) {
    std::optional<PlanSchedule> parsedSchedule =
        parseSchedule(*schedule, error, warnings);
    if (!parsedSchedule)
      return std::nullopt;
    plan.schedule = *parsedSchedule;
  }

  if (const json::Value *cost = top->get("cost")) {
    std::string text;
    llvm::raw_string_ostream os(text);
    os << *cost;
    plan.costJson = text;
  }

  if (!stages)
    if (const json::Value *shardings = top->get("shardings"))
      if (!parseShardings(*shardings, plan.mesh, "shardings", "",
                          plan.shardings, error, warnings))
        return std::nullopt;
  return plan;
}

std::string telar_sharding::writePlanJson(const Plan &plan) {
  std::string out = "{\n";
  if (plan.stages.empty()) {
    out += "  \"mesh\": " + writeMesh(plan.mesh) + ",\n  \"shardings\": " +
           writeShardings(plan.shardings, plan.mesh, "  ");
  } else {
    out += "  \"stages\": [";
    for (size_t s = 0; s < plan.stages.size(); ++s) {
      const PlanStage &stage = plan.stages[s];
      out += s ? ",\n" : "\n";
      out += "    {\n      \"ops\": [";
      for (size_t i = 0; i < stage.ops.size(); ++i)
        out += (i ? ", " : "") + jsonString(stage.ops[i]);
      out += "],\n      \"mesh\": " + writeMesh(stage.mesh) +
             ",\n      \"first_rank\": " + std::to_string(stage.firstRank) +
             ",\n      \"shardings\": " +
             writeShardings(stage.shardings, stage.mesh, "      ") +
             "\n    }";
    }
    out += "\n  ]";
  }
  if (plan.schedule)
    out += ",\n  \"schedule\": {\"kind\": " + jsonString(plan.schedule->kind) +
           ", \"microbatches\": " +
           std::to_string(plan.schedule->microbatches) +
           ", \"virtual_stages\": " +
           std::to_string(plan.schedule->virtualStages) + "}";
  if (!plan.costJson.empty()) {
    // Indented like the rest; text that is no JSON is written as a string
    // rather than producing an unreadable file.
    llvm::Expected<json::Value> cost = json::parse(plan.costJson);
    std::string text;
    llvm::raw_string_ostream os(text);
    if (cost)
      os << llvm::formatv("{0:2}", *cost);
    else
      os << json::Value(plan.costJson);
    llvm::consumeError(cost.takeError());
    std::string indented;
    for (char c : text) {
      indented += c;
      if (c == '\n')
        indented += "  ";
    }
    out += ",\n  \"cost\": " + indented;
  }
  out += "\n}\n";
  return out;
}
