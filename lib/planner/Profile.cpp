//===- Profile.cpp - Hardware profiles: JSON, checks, search --------------===//
//
// The profile format is documented in docs/Profile.md. Parsing is strict:
// every figure is checked (positive where a zero would divide, finite),
// unknown and repeated fields are errors, and every error names the field by
// its path ("levels[1].collectives.all_reduce.beta").
//
//===----------------------------------------------------------------------===//

#include "telar/planner/Profile.h"
#include "telar/json/JsonCheck.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

using namespace telar_planner;
using json = nlohmann::json;

//===----------------------------------------------------------------------===//
// Profile
//===----------------------------------------------------------------------===//

int64_t Profile::getNodeSize() const {
  if (levels.empty())
    return INT64_MAX;
  return levels[0].devices > 0 ? levels[0].devices : INT64_MAX;
}

double Profile::getPeakFlops(const std::string &elementType) const {
  if (auto it = peakFlops.find(elementType); it != peakFlops.end())
    return it->second;
  if (auto it = peakFlops.find("f32"); it != peakFlops.end())
    return it->second;
  return 0;
}

bool telar_planner::operator==(const LinkLevel::Fit &a,
                               const LinkLevel::Fit &b) {
  return a.alpha == b.alpha && a.beta == b.beta;
}

bool telar_planner::operator==(const LinkLevel &a, const LinkLevel &b) {
  return a.name == b.name && a.devices == b.devices &&
         a.bandwidth == b.bandwidth && a.latency == b.latency &&
         a.collectives == b.collectives;
}

bool telar_planner::operator==(const Profile &a, const Profile &b) {
  return a.name == b.name && a.description == b.description &&
         a.sources == b.sources && a.peakFlops == b.peakFlops &&
         a.memoryBytes == b.memoryBytes &&
         a.memoryBandwidth == b.memoryBandwidth &&
         a.opOverhead == b.opOverhead && a.levels == b.levels;
}

const std::vector<std::string> &telar_planner::getProfileElementTypes() {
  static const std::vector<std::string> kTypes = {
      "f64", "f32", "tf32", "f16", "bf16", "i64", "i32", "i16", "i8"};
  return kTypes;
}

const std::vector<std::string> &telar_planner::getProfileCollectiveNames() {
  // telar_sharding::getStepKindName of the steps that communicate.
  static const std::vector<std::string> kNames = {
      "all_gather", "all_reduce", "reduce_scatter", "all_to_all"};
  return kNames;
}

//===----------------------------------------------------------------------===//
// Parsing
//===----------------------------------------------------------------------===//

namespace {

/// A failed check: the message already names the field.
struct ProfileError {
  std::string message;
};

[[noreturn]] void fail(const std::string &path, const std::string &message) {
  throw ProfileError{(path.empty() ? "" : path + ": ") + message};
}

std::string join(const std::vector<std::string> &items) {
  std::string s;
  for (const std::string &item : items)
    s += (s.empty() ? "" : ", ") + item;
  return s;
}

size_t editDistance(const std::string &a, const std::string &b) {
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j)
    row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diagonal = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      size_t above = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1,
                         diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = above;
    }
  }
  return row[b.size()];
}

/// "unknown field 'x' (did you mean 'y'?; known: ...)".
std::string unknown(const std::string &what, const std::string &key,
                    const std::vector<std::string> &known) {
  std::string closest;
  size_t best = std::max<size_t>(2, key.size() / 3) + 1;
  for (const std::string &k : known)
    if (size_t d = editDistance(key, k); d < best) {
      best = d;
      closest = k;
    }
  std::string s = "unknown " + what + " '" + key + "' (";
  if (!closest.empty())
    s += "did you mean '" + closest + "'? ";
  return s + "known: " + join(known) + ")";
}

std::string child(const std::string &path, const std::string &key) {
  return path.empty() ? key : path + "." + key;
}

std::string describe(const json &value) {
  std::string text = value.dump();
  if (text.size() > 40)
    text = text.substr(0, 37) + "...";
  return text;
}

const char *typeName(const json &value) {
  switch (value.type()) {
  case json::value_t::object:
    return "an object";
  case json::value_t::array:
    return "an array";
  case json::value_t::string:
    return "a string";
  case json::value_t::boolean:
    return "a boolean";
  case json::value_t::null:
    return "null";
  default:
    return "a number";
  }
}

/// Checks that `object` (at `path`) is an object whose keys are all in
/// `known`.
void checkObject(const json &object, const std::string &path,
                 const std::vector<std::string> &known) {
  if (!object.is_object())
    fail(path, std::string("expected an object, got ") + typeName(object));
  for (const auto &item : object.items())
    if (std::find(known.begin(), known.end(), item.key()) == known.end())
      fail(path, unknown("field", item.key(), known));
}

const json *find(const json &object, const std::string &key) {
  auto it = object.find(key);
  return it == object.end() ? nullptr : &*it;
}

const json &require(const json &object, const std::string &path,
                    const std::string &key) {
  const json *value = find(object, key);
  if (!value)
    fail(path, "missing field '" + key + "'");
  return *value;
}

std::string getString(const json &value, const std::string &path,
                      bool nonEmpty) {
  if (!value.is_string())
    fail(path, std::string("expected a string, got ") + typeName(value));
  std::string s = value.get<std::string>();
  if (nonEmpty && s.empty())
    fail(path, "must not be empty");
  return s;
}

enum class Bound { Positive, NonNegative };

/// A finite number (`unit` says what it counts, for the message).
double getNumber(const json &value, const std::string &path, Bound bound,
                 const char *unit) {
  if (!value.is_number())
    fail(path, std::string("expected a number (") + unit + "), got " +
                   typeName(value) + " " + describe(value));
  double v = value.get<double>();
  if (!std::isfinite(v))
    fail(path, "expected a finite number (" + std::string(unit) + "), got " +
                   describe(value));
  if (bound == Bound::Positive && !(v > 0))
    fail(path, std::string("expected a positive number (") + unit +
                   "), got " + describe(value));
  if (bound == Bound::NonNegative && v < 0)
    fail(path, std::string("expected a non-negative number (") + unit +
                   "), got " + describe(value));
  return v;
}

int64_t getCount(const json &value, const std::string &path) {
  if (!value.is_number_integer())
    fail(path, std::string("expected an integer >= 0, got ") +
                   typeName(value) + " " + describe(value));
  if (value.is_number_unsigned()) {
    if (value.get<uint64_t>() > uint64_t(INT64_MAX))
      fail(path, "too large: " + describe(value));
    return int64_t(value.get<uint64_t>());
  }
  int64_t v = value.get<int64_t>();
  if (v < 0)
    fail(path, "expected an integer >= 0, got " + describe(value));
  return v;
}

LinkLevel parseLevel(const json &object, const std::string &path) {
  checkObject(object, path,
              {"name", "devices", "bandwidth", "latency", "collectives"});
  LinkLevel level;
  level.name = getString(require(object, path, "name"), child(path, "name"),
                         /*nonEmpty=*/true);
  level.devices =
      getCount(require(object, path, "devices"), child(path, "devices"));
  level.bandwidth =
      getNumber(require(object, path, "bandwidth"), child(path, "bandwidth"),
                Bound::Positive, "bytes/s");
  level.latency =
      getNumber(require(object, path, "latency"), child(path, "latency"),
                Bound::NonNegative, "seconds");
  if (const json *collectives = find(object, "collectives")) {
    std::string cpath = child(path, "collectives");
    if (!collectives->is_object())
      fail(cpath,
           std::string("expected an object, got ") + typeName(*collectives));
    for (const auto &item : collectives->items()) {
      const std::vector<std::string> &names = getProfileCollectiveNames();
      if (std::find(names.begin(), names.end(), item.key()) == names.end())
        fail(cpath, unknown("collective", item.key(), names));
      std::string fpath = child(cpath, item.key());
      checkObject(item.value(), fpath, {"alpha", "beta"});
      LinkLevel::Fit fit;
      fit.alpha = getNumber(require(item.value(), fpath, "alpha"),
                            child(fpath, "alpha"), Bound::NonNegative,
                            "seconds");
      fit.beta = getNumber(require(item.value(), fpath, "beta"),
                           child(fpath, "beta"), Bound::Positive, "bytes/s");
      level.collectives[item.key()] = fit;
    }
  }
  return level;
}

Profile parseProfile(const json &root) {
  checkObject(root, "", {"name", "description", "sources", "device", "levels"});
  Profile p;
  p.name = getString(require(root, "", "name"), "name", /*nonEmpty=*/true);
  if (const json *d = find(root, "description"))
    p.description = getString(*d, "description", /*nonEmpty=*/false);
  if (const json *sources = find(root, "sources")) {
    if (!sources->is_array())
      fail("sources", std::string("expected an array of strings, got ") +
                          typeName(*sources));
    for (size_t i = 0; i < sources->size(); ++i)
      p.sources.push_back(getString((*sources)[i],
                                    "sources[" + std::to_string(i) + "]",
                                    /*nonEmpty=*/true));
  }

  const json &device = require(root, "", "device");
  checkObject(device, "device",
              {"peak_flops", "memory_bytes", "memory_bandwidth",
               "op_overhead"});
  const json &flops = require(device, "device", "peak_flops");
  if (!flops.is_object())
    fail("device.peak_flops",
         std::string("expected an object, got ") + typeName(flops));
  for (const auto &item : flops.items()) {
    const std::vector<std::string> &types = getProfileElementTypes();
    if (std::find(types.begin(), types.end(), item.key()) == types.end())
      fail("device.peak_flops", unknown("element type", item.key(), types));
    p.peakFlops[item.key()] =
        getNumber(item.value(), "device.peak_flops." + item.key(),
                  Bound::Positive, "FLOP/s");
  }
  if (!p.peakFlops.count("f32"))
    fail("device.peak_flops",
         "missing 'f32' (the peak other element types fall back to)");
  p.memoryBytes = getNumber(require(device, "device", "memory_bytes"),
                            "device.memory_bytes", Bound::Positive, "bytes");
  p.memoryBandwidth =
      getNumber(require(device, "device", "memory_bandwidth"),
                "device.memory_bandwidth", Bound::Positive, "bytes/s");
  if (const json *overhead = find(device, "op_overhead"))
    p.opOverhead = getNumber(*overhead, "device.op_overhead",
                             Bound::NonNegative, "seconds");

  const json &levels = require(root, "", "levels");
  if (!levels.is_array())
    fail("levels", std::string("expected an array of levels, got ") +
                       typeName(levels));
  if (levels.empty())
    fail("levels", "expected at least one level (the devices of a node)");
  std::set<std::string> names;
  for (size_t i = 0; i < levels.size(); ++i) {
    std::string path = "levels[" + std::to_string(i) + "]";
    LinkLevel level = parseLevel(levels[i], path);
    if (!names.insert(level.name).second)
      fail(path + ".name", "level '" + level.name + "' appears twice");
    bool outermost = i + 1 == levels.size();
    if (level.devices == 0 && !outermost)
      fail(path + ".devices",
           "0 (unbounded) is only allowed on the outermost level");
    if (i > 0 && level.devices != 0) {
      int64_t inner = p.levels.back().devices;
      if (level.devices <= inner || level.devices % inner != 0)
        fail(path + ".devices",
             "expected a multiple of the " + std::to_string(inner) +
                 " devices of level '" + p.levels.back().name +
                 "' larger than it, got " + std::to_string(level.devices));
    }
    p.levels.push_back(std::move(level));
  }
  return p;
}

/// "parse error at line 3, column 5: ..." without nlohmann's tag.
std::string jsonMessage(const std::exception &e) {
  std::string what = e.what();
  if (what.rfind("[json.exception.", 0) == 0)
    if (size_t close = what.find("] "); close != std::string::npos)
      what = what.substr(close + 2);
  return what;
}

} // namespace

std::optional<Profile> telar_planner::parseProfileJson(const std::string &text,
                                                       std::string &error) {
  // One linear pass first: the nesting depth before nlohmann builds the
  // tree, and the repeated keys it would keep one of silently.
  telar_json::JsonScan scan = telar_json::scanJson(text);
  if (scan.tooDeep) {
    error = "invalid JSON: it " + telar_json::describeTooDeep();
    return std::nullopt;
  }
  try {
    json root = json::parse(text);
    if (scan.duplicateKey) {
      error = *scan.duplicateKey + ": the field appears twice";
      return std::nullopt;
    }
    return parseProfile(root);
  } catch (const ProfileError &e) {
    error = e.message;
  } catch (const json::exception &e) {
    error = "invalid JSON: " + jsonMessage(e);
  }
  return std::nullopt;
}

//===----------------------------------------------------------------------===//
// Writing
//===----------------------------------------------------------------------===//

namespace {

/// The shortest "%g" form that reads back as `v` (e.g. 1.95e+13, 5e-06).
std::string formatNumber(double v) {
  char buffer[64];
  for (int precision = 1; precision <= 17; ++precision) {
    std::snprintf(buffer, sizeof(buffer), "%.*g", precision, v);
    if (std::strtod(buffer, nullptr) == v)
      break;
  }
  return buffer;
}

/// Byte counts as integers when they are whole (85899345920, not 8.59e+10).
std::string formatBytes(double v) {
  if (v == std::floor(v) && std::fabs(v) < 9.0e15) {
    char buffer[32];
    std::snprintf(buffer, sizeof(buffer), "%.0f", v);
    return buffer;
  }
  return formatNumber(v);
}

/// A JSON string; bytes that are not UTF-8 become U+FFFD (nlohmann would
/// throw, and the parser rejects them anyway).
std::string quote(const std::string &s) {
  return json(s).dump(-1, ' ', false, json::error_handler_t::replace);
}

} // namespace

std::string telar_planner::writeProfileJson(const Profile &p) {
  std::ostringstream os;
  os << "{\n  \"name\": " << quote(p.name) << ",\n";
  os << "  \"description\": " << quote(p.description) << ",\n";
  os << "  \"sources\": [";
  for (size_t i = 0; i < p.sources.size(); ++i)
    os << (i ? ",\n" : "\n") << "    " << quote(p.sources[i]);
  os << (p.sources.empty() ? "],\n" : "\n  ],\n");
  os << "  \"device\": {\n    \"peak_flops\": {";
  // In the order of getProfileElementTypes (wide to narrow), then the rest.
  std::vector<std::string> order;
  for (const std::string &t : getProfileElementTypes())
    if (p.peakFlops.count(t))
      order.push_back(t);
  for (const auto &[t, v] : p.peakFlops)
    if (std::find(order.begin(), order.end(), t) == order.end())
      order.push_back(t);
  for (size_t i = 0; i < order.size(); ++i)
    os << (i ? ", " : "") << quote(order[i]) << ": "
       << formatNumber(p.peakFlops.at(order[i]));
  os << "},\n";
  os << "    \"memory_bytes\": " << formatBytes(p.memoryBytes) << ",\n";
  os << "    \"memory_bandwidth\": " << formatNumber(p.memoryBandwidth)
     << ",\n";
  os << "    \"op_overhead\": " << formatNumber(p.opOverhead) << "\n  },\n";
  os << "  \"levels\": [";
  for (size_t i = 0; i < p.levels.size(); ++i) {
    const LinkLevel &l = p.levels[i];
    os << (i ? ",\n" : "\n") << "    {\"name\": " << quote(l.name)
       << ", \"devices\": " << l.devices
       << ", \"bandwidth\": " << formatNumber(l.bandwidth)
       << ", \"latency\": " << formatNumber(l.latency);
    if (!l.collectives.empty()) {
      os << ",\n     \"collectives\": {";
      bool first = true;
      for (const auto &[name, fit] : l.collectives) {
        os << (first ? "\n" : ",\n") << "       " << quote(name)
           << ": {\"alpha\": " << formatNumber(fit.alpha)
           << ", \"beta\": " << formatNumber(fit.beta) << "}";
        first = false;
      }
      os << "\n     }";
    }
    os << "}";
  }
  os << (p.levels.empty() ? "]\n" : "\n  ]\n") << "}\n";
  return os.str();
}

//===----------------------------------------------------------------------===//
// Loading
//===----------------------------------------------------------------------===//

namespace {

std::string executableDir() {
  std::error_code ec;
  std::filesystem::path exe = std::filesystem::read_symlink("/proc/self/exe", ec);
  return ec ? std::string() : exe.parent_path().string();
}

bool readFile(const std::string &path, std::string &text, std::string &error) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) {
    error = "cannot read profile '" + path + "': it is a directory";
    return false;
  }
  // Opening a FIFO would wait for a writer.
  if (std::filesystem::exists(path, ec) &&
      !std::filesystem::is_regular_file(path, ec)) {
    error = "cannot read profile '" + path + "': not a regular file";
    return false;
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    error = "cannot read profile '" + path + "': " + std::strerror(errno);
    return false;
  }
  std::ostringstream os;
  os << in.rdbuf();
  if (in.bad()) {
    error = "cannot read profile '" + path + "'";
    return false;
  }
  text = os.str();
  return true;
}

std::optional<Profile> loadFile(const std::string &path, std::string &error) {
  std::string text;
  if (!readFile(path, text, error))
    return std::nullopt;
  std::optional<Profile> p = parseProfileJson(text, error);
  if (!p)
    error = path + ": " + error;
  return p;
}

} // namespace

std::vector<std::string> telar_planner::getProfileSearchDirs() {
  std::vector<std::string> dirs;
  if (const char *env = std::getenv("TELAR_PROFILE_DIR"); env && *env)
    dirs.push_back(env);
  std::string exe = executableDir();
  if (!exe.empty())
    dirs.push_back(
        (std::filesystem::path(exe) / ".." / "share" / "telar" / "profiles")
            .lexically_normal()
            .string());
  return dirs;
}

std::vector<std::string>
telar_planner::getShippedProfileNames(std::string &error) {
  std::set<std::string> names;
  bool anyDir = false;
  for (const std::string &dir : getProfileSearchDirs()) {
    std::error_code ec;
    if (!std::filesystem::is_directory(dir, ec))
      continue;
    anyDir = true;
    // Iterating may throw (a folder that vanishes); callers may be built
    // without exceptions, so nothing leaves this function.
    try {
      for (const auto &entry : std::filesystem::directory_iterator(dir, ec))
        if (entry.path().extension() == ".json" && entry.is_regular_file(ec))
          names.insert(entry.path().stem().string());
    } catch (const std::filesystem::filesystem_error &) {
    }
  }
  if (!anyDir) {
    std::vector<std::string> dirs = getProfileSearchDirs();
    error = "no shipped profiles: none of these directories exists: " +
            (dirs.empty() ? std::string("(none)") : join(dirs)) +
            " (set TELAR_PROFILE_DIR to the folder of the .json profiles)";
    return {};
  }
  return {names.begin(), names.end()};
}

std::optional<Profile> telar_planner::loadProfile(const std::string &nameOrPath,
                                                  std::string &error) {
  auto endsWith = [](const std::string &s, const std::string &suffix) {
    return s.size() >= suffix.size() &&
           s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
  };
  if (nameOrPath.find('/') != std::string::npos ||
      endsWith(nameOrPath, ".json"))
    return loadFile(nameOrPath, error);
  if (nameOrPath.empty()) {
    error = "empty profile name";
    return std::nullopt;
  }
  for (const std::string &dir : getProfileSearchDirs()) {
    std::string path = (std::filesystem::path(dir) / (nameOrPath + ".json"))
                           .string();
    std::error_code ec;
    if (std::filesystem::is_regular_file(path, ec))
      return loadFile(path, error);
  }
  std::string listError;
  std::vector<std::string> names = getShippedProfileNames(listError);
  if (names.empty())
    error = "unknown profile '" + nameOrPath + "': " + listError;
  else
    error = "unknown profile '" + nameOrPath +
            "' (the shipped profiles are: " + join(names) +
            "; or give the path of a .json profile)";
  return std::nullopt;
}
