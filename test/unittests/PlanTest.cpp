//===- PlanTest.cpp - plan.json read and written by one serializer --------===//

#include "telar/sharding/Plan.h"

#include <gtest/gtest.h>

using namespace telar_sharding;

namespace {

std::optional<Plan> parse(const std::string &text, std::string &error,
                          std::vector<std::string> &warnings,
                          std::optional<Mesh> mesh = std::nullopt) {
  return parsePlanJson(text, mesh, error, warnings);
}

/// The error parsing `text` gives (and checks that it fails).
std::string parseError(const std::string &text,
                       std::optional<Mesh> mesh = std::nullopt) {
  std::string error;
  std::vector<std::string> warnings;
  std::optional<Plan> plan = parse(text, error, warnings, mesh);
  EXPECT_FALSE(plan.has_value()) << text;
  EXPECT_FALSE(error.empty()) << text;
  return error;
}

Mesh mesh(std::vector<std::string> names, std::vector<int64_t> sizes) {
  return Mesh{std::move(names), std::move(sizes)};
}

TEST(PlanJson, ParsesTheFixedCore) {
  std::string error;
  std::vector<std::string> warnings;
  std::optional<Plan> plan = parse(R"({
    "mesh": {"data": 2, "model": 2},
    "shardings": {
      "x": [["data"], []],
      "layers.0.0.weight": [["model"], []],
      "y": {"dims": [[], []], "partial": {"model": "sum"}}
    }
  })",
                                   error, warnings);
  ASSERT_TRUE(plan) << error;
  EXPECT_TRUE(warnings.empty());
  EXPECT_EQ(plan->mesh, mesh({"data", "model"}, {2, 2}));
  ASSERT_EQ(plan->shardings.size(), 3u);
  EXPECT_EQ(plan->shardings["x"], (Sharding{{{0}, {}}, {}}));
  EXPECT_EQ(plan->shardings["layers.0.0.weight"], (Sharding{{{1}, {}}, {}}));
  EXPECT_EQ(plan->shardings["y"],
            (Sharding{{{}, {}}, {{1, ReductionKind::Sum}}}));
}

TEST(PlanJson, KeepsTheMeshAxisOrderOfTheText) {
  // A JSON object has no order; the mesh's axes do (ranks are row-major
  // over them), so they are read in the text's order, not sorted.
  std::string error;
  std::vector<std::string> warnings;
  std::optional<Plan> plan =
      parse(R"({"shardings": {"a": [["x", "b"]]}, "mesh": {"z": 2, "b": 3, "x": 4}})",
            error, warnings);
  ASSERT_TRUE(plan) << error;
  EXPECT_EQ(plan->mesh, mesh({"z", "b", "x"}, {2, 3, 4}));
  // Axes of one dimension keep their major-to-minor order.
  EXPECT_EQ(plan->shardings["a"], (Sharding{{{2, 1}}, {}}));
}

TEST(PlanJson, RoundTrips) {
  Plan plan;
  plan.mesh = mesh({"model", "data", "pipe"}, {2, 4, 2});
  plan.shardings["x"] = Sharding{{{1}, {}, {0, 2}}, {}};
  plan.shardings["onnx::MatMul_245"] = Sharding{{{}, {0}}, {}};
  plan.shardings["scalar"] = Sharding{{}, {}};
  plan.shardings["needs \"escapes\"\\"] = Sharding{{{}}, {}};
  plan.shardings["p"] =
      Sharding{{{1}, {}}, {{0, ReductionKind::Max}, {2, ReductionKind::Max}}};
  std::string text = writePlanJson(plan);
  std::string error;
  std::vector<std::string> warnings;
  std::optional<Plan> back = parse(text, error, warnings);
  ASSERT_TRUE(back) << error << "\n" << text;
  EXPECT_TRUE(warnings.empty());
  EXPECT_EQ(back->mesh, plan.mesh);
  EXPECT_EQ(back->shardings, plan.shardings);
  // Stable: writing what was read gives the same text.
  EXPECT_EQ(writePlanJson(*back), text);
}

TEST(PlanJson, WritesOneValuePerLineSortedByName) {
  Plan plan;
  plan.mesh = mesh({"data", "model"}, {2, 2});
  plan.shardings["y"] = Sharding{{{}, {}}, {{1, ReductionKind::Sum}}};
  plan.shardings["x"] = Sharding{{{0}, {}}, {}};
  EXPECT_EQ(writePlanJson(plan), R"({
  "mesh": {"data": 2, "model": 2},
  "shardings": {
    "x": [["data"], []],
    "y": {"dims": [[], []], "partial": {"model": "sum"}}
  }
}
)");
  Plan empty;
  EXPECT_EQ(writePlanJson(empty), "{\n  \"mesh\": {},\n  \"shardings\": {}\n}\n");
  std::string error;
  std::vector<std::string> warnings;
  std::optional<Plan> back = parse(writePlanJson(empty), error, warnings);
  ASSERT_TRUE(back) << error;
  EXPECT_EQ(back->mesh.getNumAxes(), 0);
  EXPECT_TRUE(back->shardings.empty());
}

TEST(PlanJson, UnknownFieldsAreWarnedAndIgnored) {
  std::string error;
  std::vector<std::string> warnings;
  std::optional<Plan> plan = parse(R"({
    "mesh": {"d": 2}, "stages": [1, 2], "costs": {"total": 3.5},
    "shardings": {"x": {"dims": [["d"]], "bytes": 12}}
  })",
                                   error, warnings);
  ASSERT_TRUE(plan) << error;
  EXPECT_EQ(plan->shardings["x"], (Sharding{{{0}}, {}}));
  ASSERT_EQ(warnings.size(), 3u);
  EXPECT_EQ(warnings[0], "unknown field 'costs' ignored");
  EXPECT_EQ(warnings[1], "unknown field 'stages' ignored");
  EXPECT_EQ(warnings[2], "value 'x': unknown field 'bytes' ignored");
}

TEST(PlanJson, MeshOverride) {
  std::string error;
  std::vector<std::string> warnings;
  // Supplies the mesh of a plan that names none.
  std::optional<Plan> plan = parse(R"({"shardings": {"x": [["data"]]}})",
                                   error, warnings, mesh({"data"}, {4}));
  ASSERT_TRUE(plan) << error;
  EXPECT_EQ(plan->mesh, mesh({"data"}, {4}));
  // Equal to the plan's own: fine.
  plan = parse(R"({"mesh": {"data": 4}, "shardings": {}})", error, warnings,
               mesh({"data"}, {4}));
  EXPECT_TRUE(plan) << error;
  // Different: an error giving both.
  EXPECT_EQ(parseError(R"({"mesh": {"data": 2}})", mesh({"data"}, {4})),
            "--mesh data=4 differs from the plan's mesh data=2");
}

TEST(PlanJson, Errors) {
  EXPECT_NE(parseError("{\"mesh\": ").find("malformed JSON"),
            std::string::npos);
  EXPECT_EQ(parseError("[1, 2]"),
            "a plan is a JSON object with \"mesh\" and \"shardings\"");
  EXPECT_EQ(parseError(R"({"mesh": [2]})"),
            "\"mesh\" maps axis names to sizes, e.g. {\"data\": 2}");
  EXPECT_EQ(parseError(R"({"mesh": {"d": 0}})"),
            "mesh: the size of axis 'd' must be a positive integer");
  EXPECT_EQ(parseError(R"({"mesh": {"d": 1.5}})"),
            "mesh: the size of axis 'd' must be a positive integer");
  EXPECT_EQ(parseError(R"({"mesh": {"d": 2}, "shardings": []})"),
            "\"shardings\" maps value names to shardings");
  EXPECT_EQ(parseError(R"({"mesh": {"d": 2}, "shardings": {"x": "d"}})"),
            "value 'x': expected a list with one list of mesh axes per "
            "dimension");
  EXPECT_EQ(parseError(R"({"mesh": {"d": 2}, "shardings": {"x": [[], "d"]}})"),
            "value 'x': dimension 1: expected a list of mesh axis names");
  EXPECT_EQ(parseError(R"({"mesh": {"d": 2}, "shardings": {"x": [[0]]}})"),
            "value 'x': dimension 0: mesh axes are named by strings");
  EXPECT_EQ(
      parseError(R"({"mesh": {"data": 2, "model": 2}, "shardings": {"x": [["pipe"]]}})"),
      "value 'x': axis 'pipe' is not in the mesh (the mesh has data, model)");
  EXPECT_EQ(parseError(R"({"shardings": {"x": [["data"]]}})"),
            "value 'x': axis 'data' is not in the mesh (the plan has no mesh "
            "axes (give a \"mesh\" or --mesh))");
  EXPECT_EQ(parseError(R"({"mesh": {"d": 2}, "shardings": {"x": [["d"], ["d"]]}})"),
            "value 'x': axis 'd' is used twice in one sharding");
  EXPECT_EQ(parseError(R"({"mesh": {"d": 2}, "shardings": {"x": {"partial": {}}}})"),
            "value 'x': the object form needs \"dims\"");
  EXPECT_EQ(parseError(R"({"mesh": {"d": 2}, "shardings": {"x": {"dims": [["d"]], "partial": {"d": "sum"}}}})"),
            "value 'x': axis 'd' is used twice in one sharding");
  EXPECT_EQ(parseError(R"({"mesh": {"d": 2}, "shardings": {"x": {"dims": [[]], "partial": {"e": "sum"}}}})"),
            "value 'x': partial axis 'e' is not in the mesh (the mesh has d)");
  EXPECT_EQ(parseError(R"({"mesh": {"d": 2}, "shardings": {"x": {"dims": [[]], "partial": {"d": "mean"}}}})"),
            "value 'x': partial axis 'd': unknown reduction \"mean\" "
            "(expected \"sum\", \"max\" or \"min\")");
  EXPECT_EQ(parseError(R"({"mesh": {"d": 2}, "shardings": {"x": {"dims": [[]], "partial": ["d"]}}})"),
            "value 'x': \"partial\" maps mesh axes to \"sum\", \"max\" or "
            "\"min\"");
  // The first error in name order, whatever the text's order.
  EXPECT_EQ(parseError(R"({"mesh": {"d": 2}, "shardings": {"b": [["q"]], "a": [["p"]]}})"),
            "value 'a': axis 'p' is not in the mesh (the mesh has d)");
}

} // namespace
