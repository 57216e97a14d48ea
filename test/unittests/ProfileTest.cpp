//===- ProfileTest.cpp - Hardware profiles: parse, write, load ------------===//

#include "telar/planner/Profile.h"

#include <gtest/gtest.h>

#include <climits>
#include <cstdlib>
#include <functional>
#include <optional>
#include <filesystem>
#include <fstream>
#include <unistd.h>

using namespace telar_planner;

namespace {

/// A profile using every field.
Profile fullProfile() {
  Profile p;
  p.name = "test-gpu";
  p.description = "a \"quoted\" description\nwith a newline and \xc3\xa9";
  p.sources = {"datasheet (https://example.com/a.pdf)", "user guide"};
  p.peakFlops = {{"f64", 9.7e12}, {"f32", 19.5e12}, {"tf32", 156e12},
                 {"f16", 312e12}, {"bf16", 312e12}, {"i8", 624e12}};
  p.memoryBytes = 85899345920;
  p.memoryBandwidth = 2.039e12;
  p.opOverhead = 5e-6;
  LinkLevel node;
  node.name = "node";
  node.devices = 8;
  node.bandwidth = 300e9;
  node.latency = 1e-5;
  node.collectives["all_reduce"] = {1.0 / 3 * 1e-5, 2.0e11 / 7};
  node.collectives["all_to_all"] = {0, 1.5e11};
  LinkLevel network;
  network.name = "network";
  network.devices = 0;
  network.bandwidth = 25e9;
  network.latency = 2e-5;
  p.levels = {node, network};
  return p;
}

std::string parseError(const std::string &text) {
  std::string error;
  std::optional<Profile> p = parseProfileJson(text, error);
  EXPECT_FALSE(p.has_value()) << text;
  EXPECT_FALSE(error.empty()) << text;
  return error;
}

/// A valid profile's JSON with `device` and `levels` replaced.
std::string withParts(const std::string &device, const std::string &levels,
                      const std::string &extra = "") {
  return R"({"name": "x", )" + extra + R"("device": )" + device +
         R"(, "levels": )" + levels + "}";
}

const std::string kDevice =
    R"({"peak_flops": {"f32": 1e12}, "memory_bytes": 1e9, "memory_bandwidth": 1e10})";
const std::string kLevels =
    R"([{"name": "node", "devices": 2, "bandwidth": 1e9, "latency": 1e-6}])";

/// Sets an environment variable for the lifetime of the object.
class ScopedEnv {
public:
  ScopedEnv(const char *name, const std::string &value) : name(name) {
    if (const char *old = std::getenv(name))
      saved = old;
    setenv(name, value.c_str(), 1);
  }
  ~ScopedEnv() {
    if (saved)
      setenv(name, saved->c_str(), 1);
    else
      unsetenv(name);
  }

private:
  const char *name;
  std::optional<std::string> saved;
};

TEST(ProfileJson, RoundTripsEveryField) {
  Profile p = fullProfile();
  std::string text = writeProfileJson(p);
  std::string error;
  std::optional<Profile> back = parseProfileJson(text, error);
  ASSERT_TRUE(back) << error << "\n" << text;
  EXPECT_TRUE(*back == p) << text;
  // Writing is deterministic: the parsed copy writes the same text.
  EXPECT_EQ(writeProfileJson(*back), text);
  // Byte counts stay integers, other figures the shortest exact form.
  EXPECT_NE(text.find("\"memory_bytes\": 85899345920,"), std::string::npos)
      << text;
  EXPECT_NE(text.find("\"f32\": 1.95e+13"), std::string::npos) << text;
}

TEST(ProfileJson, RoundTripsMinimalProfile) {
  std::string error;
  std::optional<Profile> p = parseProfileJson(withParts(kDevice, kLevels), error);
  ASSERT_TRUE(p) << error;
  EXPECT_EQ(p->name, "x");
  EXPECT_EQ(p->description, "");
  EXPECT_TRUE(p->sources.empty());
  EXPECT_EQ(p->opOverhead, 0);
  EXPECT_TRUE(p->levels[0].collectives.empty());
  std::optional<Profile> back = parseProfileJson(writeProfileJson(*p), error);
  ASSERT_TRUE(back) << error;
  EXPECT_TRUE(*back == *p);
}

TEST(ProfileJson, WritesInvalidUtf8AsReplacementCharacters) {
  Profile p = fullProfile();
  p.description = "bad \xff byte";
  std::string error;
  std::optional<Profile> back = parseProfileJson(writeProfileJson(p), error);
  ASSERT_TRUE(back) << error;
  EXPECT_EQ(back->description, "bad \xef\xbf\xbd byte");
}

TEST(ProfileJson, EqualityNoticesEachField) {
  Profile a = fullProfile();
  std::vector<std::function<void(Profile &)>> changes = {
      [](Profile &p) { p.name += "x"; },
      [](Profile &p) { p.description += "x"; },
      [](Profile &p) { p.sources.pop_back(); },
      [](Profile &p) { p.peakFlops["f16"] *= 2; },
      [](Profile &p) { p.memoryBytes += 1; },
      [](Profile &p) { p.memoryBandwidth *= 2; },
      [](Profile &p) { p.opOverhead = 0; },
      [](Profile &p) { p.levels[0].devices = 4; },
      [](Profile &p) { p.levels[1].bandwidth *= 2; },
      [](Profile &p) { p.levels[1].latency *= 2; },
      [](Profile &p) { p.levels[0].collectives["all_reduce"].beta *= 2; },
      [](Profile &p) { p.levels[0].collectives.erase("all_to_all"); },
  };
  for (size_t i = 0; i < changes.size(); ++i) {
    Profile b = a;
    changes[i](b);
    EXPECT_FALSE(a == b) << "change " << i;
    // And the change survives writing and parsing.
    std::string error;
    std::optional<Profile> back = parseProfileJson(writeProfileJson(b), error);
    ASSERT_TRUE(back) << error;
    EXPECT_TRUE(*back == b) << "change " << i;
  }
}

TEST(Profile, NodeSizeAndPeaks) {
  Profile p = fullProfile();
  EXPECT_EQ(p.getNodeSize(), 8);
  EXPECT_EQ(p.getPeakFlops("bf16"), 312e12);
  EXPECT_EQ(p.getPeakFlops("f32"), 19.5e12);
  // Types without a figure fall back to f32.
  EXPECT_EQ(p.getPeakFlops("i32"), 19.5e12);
  EXPECT_EQ(p.getPeakFlops("f8E4M3FN"), 19.5e12);
  Profile one;
  one.levels.resize(1);
  one.levels[0].devices = 0;
  EXPECT_EQ(one.getNodeSize(), INT64_MAX);
  EXPECT_EQ(one.getPeakFlops("f32"), 0);
}

TEST(ProfileJson, ErrorsNameTheField) {
  struct Case {
    std::string text, expected;
  };
  std::vector<Case> cases = {
      {"{", "invalid JSON: "},
      {"[]", "expected an object, got an array"},
      {R"({"device": {}, "levels": []})", "missing field 'name'"},
      {withParts(kDevice, kLevels, R"("nmae": "y", )"),
       "unknown field 'nmae' (did you mean 'name'? known: name, description, "
       "sources, device, levels)"},
      {withParts(kDevice, kLevels, R"("name": "y", )"),
       "name: the field appears twice"},
      {withParts(kDevice, kLevels, R"("sources": "a", )"),
       "sources: expected an array of strings, got a string"},
      {withParts(kDevice, kLevels, R"("sources": ["a", 3], )"),
       "sources[1]: expected a string, got a number"},
      {withParts(kDevice, kLevels, R"("description": 1, )"),
       "description: expected a string"},
      {R"({"name": "", "device": {}, "levels": []})", "name: must not be empty"},
      {withParts(R"({"peak_flops": {"f16": 1e12}, "memory_bytes": 1, "memory_bandwidth": 1})",
                 kLevels),
       "device.peak_flops: missing 'f32'"},
      {withParts(R"({"peak_flops": {"f32": 1e12, "fp16": 2e12}, "memory_bytes": 1, "memory_bandwidth": 1})",
                 kLevels),
       "device.peak_flops: unknown element type 'fp16' (did you mean 'f16'?"},
      {withParts(R"({"peak_flops": {"f32": -1}, "memory_bytes": 1, "memory_bandwidth": 1})",
                 kLevels),
       "device.peak_flops.f32: expected a positive number (FLOP/s), got -1"},
      {withParts(R"({"peak_flops": {"f32": 1}, "memory_bytes": "8G", "memory_bandwidth": 1})",
                 kLevels),
       "device.memory_bytes: expected a number (bytes), got a string \"8G\""},
      {withParts(R"({"peak_flops": {"f32": 1}, "memory_bytes": 0, "memory_bandwidth": 1})",
                 kLevels),
       "device.memory_bytes: expected a positive number (bytes), got 0"},
      {withParts(R"({"peak_flops": {"f32": 1}, "memory_bytes": 1})", kLevels),
       "device: missing field 'memory_bandwidth'"},
      {withParts(R"({"peak_flops": {"f32": 1}, "memory_bytes": 1, "memory_bandwidth": 1, "op_overhead": -1e-6})",
                 kLevels),
       "device.op_overhead: expected a non-negative number (seconds)"},
      {withParts(R"({"peak_flops": {"f32": 1}, "memory_bytes": 1, "memory_bandwidth": 1, "memory": 1})",
                 kLevels),
       "device: unknown field 'memory'"},
      {withParts(kDevice, "[]"), "levels: expected at least one level"},
      {withParts(kDevice, "{}"), "levels: expected an array of levels"},
      {withParts(kDevice,
                 R"([{"name": "node", "devices": 2, "bandwith": 1e9, "latency": 0}])"),
       "levels[0]: unknown field 'bandwith' (did you mean 'bandwidth'?"},
      {withParts(kDevice,
                 R"([{"name": "node", "devices": 2, "latency": 0}])"),
       "levels[0]: missing field 'bandwidth'"},
      {withParts(kDevice,
                 R"([{"name": "node", "devices": 2, "bandwidth": 0, "latency": 0}])"),
       "levels[0].bandwidth: expected a positive number (bytes/s), got 0"},
      {withParts(kDevice,
                 R"([{"name": "node", "devices": 2.5, "bandwidth": 1, "latency": 0}])"),
       "levels[0].devices: expected an integer >= 0, got a number 2.5"},
      {withParts(kDevice,
                 R"([{"name": "node", "devices": -2, "bandwidth": 1, "latency": 0}])"),
       "levels[0].devices: expected an integer >= 0, got -2"},
      {withParts(kDevice,
                 R"([{"name": "node", "devices": 0, "bandwidth": 1, "latency": 0},
                     {"name": "network", "devices": 0, "bandwidth": 1, "latency": 0}])"),
       "levels[0].devices: 0 (unbounded) is only allowed on the outermost "
       "level"},
      {withParts(kDevice,
                 R"([{"name": "node", "devices": 8, "bandwidth": 1, "latency": 0},
                     {"name": "rack", "devices": 12, "bandwidth": 1, "latency": 0}])"),
       "levels[1].devices: expected a multiple of the 8 devices of level "
       "'node' larger than it, got 12"},
      {withParts(kDevice,
                 R"([{"name": "node", "devices": 8, "bandwidth": 1, "latency": 0},
                     {"name": "node", "devices": 0, "bandwidth": 1, "latency": 0}])"),
       "levels[1].name: level 'node' appears twice"},
      {withParts(kDevice,
                 R"([{"name": "node", "devices": 2, "bandwidth": 1, "latency": 0,
                      "collectives": {"allreduce": {"alpha": 0, "beta": 1}}}])"),
       "levels[0].collectives: unknown collective 'allreduce' (did you mean "
       "'all_reduce'?"},
      {withParts(kDevice,
                 R"([{"name": "node", "devices": 2, "bandwidth": 1, "latency": 0,
                      "collectives": {"all_gather": {"alpha": 0, "beta": 0}}}])"),
       "levels[0].collectives.all_gather.beta: expected a positive number "
       "(bytes/s), got 0"},
      {withParts(kDevice,
                 R"([{"name": "node", "devices": 2, "bandwidth": 1, "latency": 0,
                      "collectives": {"all_gather": {"alpha": 0}}}])"),
       "levels[0].collectives.all_gather: missing field 'beta'"},
      {withParts(kDevice,
                 R"([{"name": "node", "devices": 2, "bandwidth": 1, "latency": 0,
                      "collectives": {"all_gather": {"alpha": 0, "beta": 1, "gamma": 2}}}])"),
       "levels[0].collectives.all_gather: unknown field 'gamma'"},
      {withParts(kDevice,
                 R"([{"name": "node", "devices": 2, "bandwidth": 1, "latency": 0, "latency": 1}])"),
       "levels[0].latency: the field appears twice"},
  };
  for (const Case &c : cases) {
    std::string error = parseError(c.text);
    EXPECT_NE(error.find(c.expected), std::string::npos)
        << "input: " << c.text << "\nerror: " << error
        << "\nexpected to contain: " << c.expected;
  }
}

/// The four shipped profiles and what the planner relies on in each.
void checkShipped(const std::string &name, const Profile &p) {
  EXPECT_EQ(p.name, name);
  EXPECT_FALSE(p.description.empty()) << name;
  EXPECT_FALSE(p.sources.empty()) << name;
  EXPECT_GT(p.getPeakFlops("f32"), 0) << name;
  EXPECT_GT(p.memoryBytes, 0) << name;
  EXPECT_GT(p.memoryBandwidth, 0) << name;
  EXPECT_GT(p.opOverhead, 0) << name;
  ASSERT_FALSE(p.levels.empty()) << name;
  EXPECT_EQ(p.levels[0].name, "node") << name;
  for (const LinkLevel &l : p.levels) {
    EXPECT_GT(l.bandwidth, 0) << name;
    EXPECT_GT(l.latency, 0) << name;
  }
}

const std::vector<std::string> kShipped = {"a100-80g", "cpu", "h100-sxm",
                                           "h200-sxm"};

TEST(ProfileLoad, EveryShippedProfileLoadsFromTheBuild) {
  // TelarUnitTests lives in build/bin: ../share/telar/profiles is the
  // build's copy.
  unsetenv("TELAR_PROFILE_DIR");
  std::string error;
  EXPECT_EQ(getShippedProfileNames(error), kShipped) << error;
  for (const std::string &name : kShipped) {
    std::optional<Profile> p = loadProfile(name, error);
    ASSERT_TRUE(p) << name << ": " << error;
    checkShipped(name, *p);
    // The build's copy is the source's.
    std::optional<Profile> source = loadProfile(
        std::string(TELAR_SOURCE_PROFILE_DIR) + "/" + name + ".json", error);
    ASSERT_TRUE(source) << error;
    EXPECT_TRUE(*source == *p) << name << ": the build's copy is stale";
  }
}

TEST(ProfileLoad, ShippedFigures) {
  ScopedEnv env("TELAR_PROFILE_DIR", TELAR_SOURCE_PROFILE_DIR);
  std::string error;
  std::optional<Profile> a100 = loadProfile("a100-80g", error);
  ASSERT_TRUE(a100) << error;
  // DGX A100: 8 per node, NVLink 300 GB/s each way, HDR 200 Gb/s per GPU.
  EXPECT_EQ(a100->getNodeSize(), 8);
  ASSERT_EQ(a100->levels.size(), 2u);
  EXPECT_EQ(a100->levels[0].bandwidth, 300e9);
  EXPECT_EQ(a100->levels[1].bandwidth, 25e9);
  EXPECT_EQ(a100->levels[1].devices, 0);
  EXPECT_EQ(a100->getPeakFlops("bf16"), 312e12);
  EXPECT_EQ(a100->getPeakFlops("f32"), 19.5e12);
  EXPECT_EQ(a100->memoryBytes, 85899345920.0);
  std::optional<Profile> h100 = loadProfile("h100-sxm", error);
  ASSERT_TRUE(h100) << error;
  EXPECT_EQ(h100->levels[0].bandwidth, 450e9);
  EXPECT_EQ(h100->levels[1].bandwidth, 50e9);
  std::optional<Profile> h200 = loadProfile("h200-sxm", error);
  ASSERT_TRUE(h200) << error;
  EXPECT_EQ(h200->memoryBytes, 141e9);
  EXPECT_EQ(h200->memoryBandwidth, 4.8e12);
  EXPECT_EQ(h200->getPeakFlops("bf16"), h100->getPeakFlops("bf16"));
  // The cpu profile: measured by telar-calibrate, with collective fits, on
  // a node that any number of ranks share.
  std::optional<Profile> cpu = loadProfile("cpu", error);
  ASSERT_TRUE(cpu) << error;
  EXPECT_EQ(cpu->getNodeSize(), INT64_MAX);
  ASSERT_EQ(cpu->levels.size(), 1u);
  for (const std::string &c : getProfileCollectiveNames())
    EXPECT_TRUE(cpu->levels[0].collectives.count(c)) << c;
  EXPECT_NE(cpu->description.find("telar-calibrate"), std::string::npos);
}

TEST(ProfileLoad, SearchesTheEnvironmentFirst) {
  std::filesystem::path dir = std::filesystem::temp_directory_path() /
                              ("telar-profile-test-" + std::to_string(getpid()));
  std::filesystem::create_directories(dir);
  Profile mine = fullProfile();
  mine.name = "a100-80g";
  mine.description = "mine";
  std::ofstream(dir / "a100-80g.json") << writeProfileJson(mine);
  std::ofstream(dir / "extra.json") << writeProfileJson(fullProfile());
  std::ofstream(dir / "notes.txt") << "not a profile";
  {
    ScopedEnv env("TELAR_PROFILE_DIR", dir.string());
    std::string error;
    std::optional<Profile> p = loadProfile("a100-80g", error);
    ASSERT_TRUE(p) << error;
    EXPECT_EQ(p->description, "mine");
    // Names from both directories, each once.
    std::vector<std::string> names = getShippedProfileNames(error);
    std::vector<std::string> expected = {"a100-80g", "cpu", "extra",
                                         "h100-sxm", "h200-sxm"};
    EXPECT_EQ(names, expected);
    // Shipped names not in the environment's folder come from the build's.
    EXPECT_TRUE(loadProfile("h100-sxm", error)) << error;
  }
  std::filesystem::remove_all(dir);
}

TEST(ProfileLoad, Errors) {
  ScopedEnv env("TELAR_PROFILE_DIR", TELAR_SOURCE_PROFILE_DIR);
  std::string error;
  EXPECT_FALSE(loadProfile("a100", error));
  EXPECT_EQ(error, "unknown profile 'a100' (the shipped profiles are: "
                   "a100-80g, cpu, h100-sxm, h200-sxm; or give the path of a "
                   ".json profile)");
  EXPECT_FALSE(loadProfile("/nonexistent/p.json", error));
  EXPECT_NE(error.find("cannot read profile '/nonexistent/p.json'"),
            std::string::npos)
      << error;
  // A name ending in .json is a path, not a shipped name.
  EXPECT_FALSE(loadProfile("cpu.json", error));
  EXPECT_NE(error.find("cannot read profile 'cpu.json'"), std::string::npos)
      << error;
  // Errors in a file name the file and the field.
  std::filesystem::path file =
      std::filesystem::temp_directory_path() /
      ("telar-profile-bad-" + std::to_string(getpid()) + ".json");
  std::ofstream(file) << withParts(kDevice,
                                   R"([{"name": "node", "devices": 2, "bandwidth": -1, "latency": 0}])");
  EXPECT_FALSE(loadProfile(file.string(), error));
  EXPECT_EQ(error, file.string() +
                       ": levels[0].bandwidth: expected a positive number "
                       "(bytes/s), got -1");
  std::filesystem::remove(file);
}

TEST(ProfileLoad, NoShippedDirectory) {
  // With the environment pointing nowhere, the build's folder still counts;
  // only when neither exists are there no names.
  ScopedEnv env("TELAR_PROFILE_DIR", "/nonexistent/profiles");
  std::string error;
  std::vector<std::string> dirs = getProfileSearchDirs();
  ASSERT_EQ(dirs.size(), 2u);
  EXPECT_EQ(dirs[0], "/nonexistent/profiles");
  EXPECT_EQ(getShippedProfileNames(error), kShipped);
}

} // namespace
