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
    "mesh": {"d": 2}, "pipeline": [1, 2], "costs": {"total": 3.5},
    "shardings": {"x": {"dims": [["d"]], "bytes": 12}}
  })",
                                   error, warnings);
  ASSERT_TRUE(plan) << error;
  EXPECT_EQ(plan->shardings["x"], (Sharding{{{0}}, {}}));
  ASSERT_EQ(warnings.size(), 3u);
  EXPECT_EQ(warnings[0], "unknown field 'costs' ignored");
  EXPECT_EQ(warnings[1], "unknown field 'pipeline' ignored");
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

//===----------------------------------------------------------------------===//
// Pipelined plans: stages and a schedule
//===----------------------------------------------------------------------===//

Plan stagedPlan() {
  Plan plan;
  PlanStage first;
  first.ops = {"/h.0/ln/out", "/h.0/attn/out", "needs \"escapes\""};
  first.mesh = mesh({"model", "data"}, {2, 2});
  first.firstRank = 0;
  first.shardings["/h.0/attn/out"] = Sharding{{{1}, {}, {0}}, {}};
  first.shardings["h.0.attn.c_proj.weight"] = Sharding{{{0}, {}}, {}};
  first.shardings["partial"] =
      Sharding{{{}, {}}, {{0, ReductionKind::Sum}}};
  PlanStage second;
  second.ops = {"/h.1/out", "logits"};
  second.mesh = mesh({"z", "a"}, {4, 1});  // not sorted: the text's order
  second.firstRank = 4;
  second.shardings["logits"] = Sharding{{{0}, {}}, {}};
  PlanStage third;  // one device, nothing named
  third.ops = {"tail"};
  third.firstRank = 8;
  plan.stages = {first, second, third};
  plan.schedule = PlanSchedule{"1f1b", 4, 1};
  plan.costJson = R"({"total_s": 1.5, "bubble": 0.25})";
  return plan;
}

TEST(PlanJson, StagesRoundTrip) {
  Plan plan = stagedPlan();
  std::string text = writePlanJson(plan);
  std::string error;
  std::vector<std::string> warnings;
  std::optional<Plan> back = parse(text, error, warnings);
  ASSERT_TRUE(back) << error << "\n" << text;
  EXPECT_TRUE(warnings.empty()) << warnings.front();
  ASSERT_EQ(back->stages.size(), 3u);
  for (size_t s = 0; s < 3; ++s)
    EXPECT_EQ(back->stages[s], plan.stages[s]) << "stage " << s;
  EXPECT_EQ(back->schedule, plan.schedule);
  EXPECT_EQ(back->mesh.getNumAxes(), 0);
  EXPECT_TRUE(back->shardings.empty());
  EXPECT_EQ(writePlanJson(*back), text);
}

TEST(PlanJson, WritesStagesAndSchedule) {
  Plan plan;
  PlanStage a;
  a.ops = {"x1", "x2"};
  a.mesh = mesh({"model"}, {2});
  a.shardings["x1"] = Sharding{{{}, {0}}, {}};
  PlanStage b;
  b.ops = {"y"};
  b.firstRank = 2;
  plan.stages = {a, b};
  plan.schedule = PlanSchedule{"gpipe", 4, 1};
  EXPECT_EQ(writePlanJson(plan), R"({
  "stages": [
    {
      "ops": ["x1", "x2"],
      "mesh": {"model": 2},
      "first_rank": 0,
      "shardings": {
        "x1": [[], ["model"]]
      }
    },
    {
      "ops": ["y"],
      "mesh": {},
      "first_rank": 2,
      "shardings": {}
    }
  ],
  "schedule": {"kind": "gpipe", "microbatches": 4, "virtual_stages": 1}
}
)");
}

TEST(PlanJson, ScheduleWithoutStages) {
  // One stage of every op on the top-level mesh, microbatched.
  Plan plan;
  plan.mesh = mesh({"d"}, {2});
  plan.shardings["x"] = Sharding{{{0}}, {}};
  plan.schedule = PlanSchedule{"gpipe", 2, 1};
  std::string text = writePlanJson(plan);
  EXPECT_NE(text.find("\"mesh\": {\"d\": 2}"), std::string::npos) << text;
  std::string error;
  std::vector<std::string> warnings;
  std::optional<Plan> back = parse(text, error, warnings);
  ASSERT_TRUE(back) << error;
  EXPECT_TRUE(back->stages.empty());
  EXPECT_EQ(back->mesh, plan.mesh);
  EXPECT_EQ(back->shardings, plan.shardings);
  EXPECT_EQ(back->schedule, plan.schedule);
  // Without either: as before.
  back = parse(R"({"mesh": {"d": 2}})", error, warnings);
  ASSERT_TRUE(back) << error;
  EXPECT_TRUE(back->stages.empty());
  EXPECT_FALSE(back->schedule);
}

TEST(PlanJson, StageDefaultsAndOrder) {
  std::string error;
  std::vector<std::string> warnings;
  // Mesh axes keep the text's order in every stage; first_rank, mesh and
  // shardings default to 0, one device and none; the schedule's fields to
  // gpipe, 1, 1.
  std::optional<Plan> plan = parse(R"({
    "mesh": {}, "shardings": {},
    "stages": [{"ops": ["a"], "mesh": {"y": 2, "b": 2, "a": 1},
                "shardings": {"a": [["a", "y"]]}, "notes": 1},
               {"mesh": {"q": 3, "c": 2}, "first_rank": 4, "ops": []}],
    "schedule": {"microbatches": 8}
  })",
                                   error, warnings);
  ASSERT_TRUE(plan) << error;
  ASSERT_EQ(plan->stages.size(), 2u);
  EXPECT_EQ(plan->stages[0].mesh, mesh({"y", "b", "a"}, {2, 2, 1}));
  EXPECT_EQ(plan->stages[0].firstRank, 0);
  EXPECT_EQ(plan->stages[0].shardings["a"], (Sharding{{{2, 0}}, {}}));
  EXPECT_EQ(plan->stages[1].mesh, mesh({"q", "c"}, {3, 2}));
  EXPECT_EQ(plan->stages[1].firstRank, 4);
  EXPECT_TRUE(plan->stages[1].ops.empty());
  EXPECT_EQ(plan->schedule, (PlanSchedule{"gpipe", 8, 1}));
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_EQ(warnings[0], "stages[0]: unknown field 'notes' ignored");
}

TEST(PlanJson, StageAndScheduleErrors) {
  EXPECT_EQ(parseError(R"({"stages": {}})"),
            "stages: expected a list of stages");
  EXPECT_EQ(parseError(R"({"stages": []})"),
            "stages: expected at least one stage");
  EXPECT_EQ(parseError(R"({"stages": [{"ops": []}, 3]})"),
            "stages[1]: expected an object with \"ops\", \"mesh\", "
            "\"first_rank\" and \"shardings\"");
  EXPECT_EQ(parseError(R"({"stages": [{"mesh": {}}]})"),
            "stages[0]: needs \"ops\" (the names of the values it computes)");
  EXPECT_EQ(parseError(R"({"stages": [{"ops": "a"}]})"),
            "stages[0].ops: expected a list of value names");
  EXPECT_EQ(parseError(R"({"stages": [{"ops": ["a", 2]}]})"),
            "stages[0].ops[1]: expected a value name (a string)");
  EXPECT_EQ(parseError(R"({"stages": [{"ops": [], "mesh": [2]}]})"),
            "stages[0].mesh: expected an object that maps axis names to "
            "sizes, e.g. {\"model\": 2}");
  EXPECT_EQ(parseError(R"({"stages": [{"ops": []}, {"ops": [], "mesh": {"m": 0}}]})"),
            "stages[1].mesh: the size of axis 'm' must be a positive integer");
  EXPECT_EQ(parseError(R"({"stages": [{"ops": []}, {"ops": [], "first_rank": -1}]})"),
            "stages[1].first_rank: expected a world rank (an integer >= 0)");
  EXPECT_EQ(parseError(R"({"stages": [{"ops": [], "first_rank": "2"}]})"),
            "stages[0].first_rank: expected a world rank (an integer >= 0)");
  EXPECT_EQ(parseError(R"({"stages": [{"ops": [], "shardings": []}]})"),
            "stages[0].shardings: expected an object that maps value names "
            "to shardings");
  EXPECT_EQ(parseError(R"({"stages": [{"ops": [], "mesh": {"m": 2}}, {"ops": [], "mesh": {"d": 2}, "shardings": {"x": [["m"]]}}]})"),
            "stages[1].shardings: value 'x': axis 'm' is not in the mesh "
            "(the mesh has d)");
  // The top-level mesh and shardings belong to plans without stages.
  EXPECT_EQ(parseError(R"({"mesh": {"d": 2}, "stages": [{"ops": []}]})"),
            "\"mesh\": a plan with \"stages\" gives each stage's mesh there "
            "(the top-level \"mesh\" must be absent or {})");
  EXPECT_EQ(parseError(R"({"shardings": {"x": []}, "stages": [{"ops": []}]})"),
            "\"shardings\": a plan with \"stages\" gives each stage's "
            "shardings there (the top-level \"shardings\" must be absent or "
            "{})");
  EXPECT_EQ(parseError(R"({"stages": [{"ops": []}]})", mesh({"d"}, {2})),
            "--mesh d=2 does not apply to a plan with \"stages\" (each stage "
            "names its mesh)");
  EXPECT_EQ(parseError(R"({"schedule": [1]})"),
            "schedule: expected an object with \"kind\", \"microbatches\" and "
            "\"virtual_stages\"");
  EXPECT_EQ(parseError(R"({"schedule": {"kind": "zb"}})"),
            "schedule.kind: unknown schedule \"zb\" (expected \"gpipe\", "
            "\"1f1b\" or \"interleaved\")");
  EXPECT_EQ(parseError(R"({"schedule": {"microbatches": 0}})"),
            "schedule.microbatches: expected a positive integer");
  EXPECT_EQ(parseError(R"({"schedule": {"virtual_stages": 1.5}})"),
            "schedule.virtual_stages: expected a positive integer");
  std::string error;
  std::vector<std::string> warnings;
  EXPECT_TRUE(parse(R"({"schedule": {"kind": "interleaved", "virtual_stages": 2, "stride": 1}})",
                    error, warnings))
      << error;
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_EQ(warnings[0], "schedule: unknown field 'stride' ignored");
}

} // namespace
