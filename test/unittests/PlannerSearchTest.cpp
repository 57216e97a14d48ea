//===- PlannerSearchTest.cpp - The planner's search against brute force ---===//
//
// On small graphs (at most 8 ops) and 1-D and 2-D meshes, CBC with lazily
// priced resharding finds the optimum that trying every combination of
// strategies, every pair priced exactly, finds; and the cost model prices
// the plan the search writes exactly as the search predicted it.
//
//===----------------------------------------------------------------------===//

#include "telar/InitAllTelar.h"
#include "telar/planner/Explain.h"
#include "telar/planner/PipelineSearch.h"
#include "telar/planner/Search.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"

#include "gtest/gtest.h"

#include <random>

using namespace mlir;
using namespace mlir::telar;
using namespace mlir::telar::planner;
using telar_sharding::Mesh;
using telar_sharding::Plan;

namespace {

// Weights are dense_resource constants without data: planning reads only
// their types.
const char *kMlp = R"mlir(
  func.func @main(%x: tensor<8x16xf32> {telar.name = "x"}) -> tensor<8x16xf32> {
    %w1 = telar.constant {telar.result_names = ["w1"]} dense_resource<w1> : tensor<16x64xf32>
    %h = telar.matmul %x, %w1 {telar.result_names = ["h"]} : (tensor<8x16xf32>, tensor<16x64xf32>) -> tensor<8x64xf32>
    %a = telar.relu %h {telar.result_names = ["a"]} : (tensor<8x64xf32>) -> tensor<8x64xf32>
    %w2 = telar.constant {telar.result_names = ["w2"]} dense_resource<w2> : tensor<64x16xf32>
    %o = telar.matmul %a, %w2 {telar.result_names = ["o"]} : (tensor<8x64xf32>, tensor<64x16xf32>) -> tensor<8x16xf32>
    %y = telar.add %o, %x {telar.result_names = ["y"]} : (tensor<8x16xf32>, tensor<8x16xf32>) -> tensor<8x16xf32>
    return %y : tensor<8x16xf32>
  })mlir";

// Attention scores of two heads: batched matmuls, a transpose, a softmax.
const char *kAttention = R"mlir(
  func.func @main(%q: tensor<2x8x16xf32> {telar.name = "q"}, %k: tensor<2x8x16xf32> {telar.name = "k"}) -> tensor<2x8x16xf32> {
    %kt = telar.transpose %k {perm = array<i64: 0, 2, 1>, telar.result_names = ["kt"]} : (tensor<2x8x16xf32>) -> tensor<2x16x8xf32>
    %s = telar.matmul %q, %kt {telar.result_names = ["s"]} : (tensor<2x8x16xf32>, tensor<2x16x8xf32>) -> tensor<2x8x8xf32>
    %p = telar.softmax %s {axis = 2 : i64, telar.result_names = ["p"]} : (tensor<2x8x8xf32>) -> tensor<2x8x8xf32>
    %o = telar.matmul %p, %k {telar.result_names = ["o"]} : (tensor<2x8x8xf32>, tensor<2x8x16xf32>) -> tensor<2x8x16xf32>
    return %o : tensor<2x8x16xf32>
  })mlir";

// An expert layer in einsum form: the expert dim of the weights.
const char *kExperts = R"mlir(
  func.func @main(%x: tensor<4x8x16xf32> {telar.name = "x"}) -> tensor<4x8x16xf32> {
    %w1 = telar.constant {telar.result_names = ["w1"]} dense_resource<w1> : tensor<4x16x32xf32>
    %h = telar.einsum %x, %w1 {equation = #telar.einsum<[e, c, d], [e, d, f] -> [e, c, f]>, telar.result_names = ["h"]} : (tensor<4x8x16xf32>, tensor<4x16x32xf32>) -> tensor<4x8x32xf32>
    %a = telar.gelu %h {telar.result_names = ["a"]} : (tensor<4x8x32xf32>) -> tensor<4x8x32xf32>
    %w2 = telar.constant {telar.result_names = ["w2"]} dense_resource<w2> : tensor<4x32x16xf32>
    %y = telar.einsum %a, %w2 {equation = #telar.einsum<[e, c, f], [e, f, d] -> [e, c, d]>, telar.result_names = ["y"]} : (tensor<4x8x32xf32>, tensor<4x32x16xf32>) -> tensor<4x8x16xf32>
    %r = telar.reduce_sum %y {axes = array<i64: 0>, keepdims = true, telar.result_names = ["r"]} : (tensor<4x8x16xf32>) -> tensor<1x8x16xf32>
    %b = telar.expand %r {shape = array<i64: 4, 8, 16>, telar.result_names = ["b"]} : (tensor<1x8x16xf32>) -> tensor<4x8x16xf32>
    return %b : tensor<4x8x16xf32>
  })mlir";

class PlannerSearchTest : public ::testing::Test {
protected:
  PlannerSearchTest() {
    DialectRegistry registry;
    registerAllTelar(registry);
    ctx.appendDialectRegistry(registry);
    ctx.loadAllAvailableDialects();
  }
  func::FuncOp parse(const char *source) {
    module = parseSourceString<ModuleOp>(source, &ctx);
    if (!module)
      return {};
    return module->lookupSymbol<func::FuncOp>("main");
  }
  telar_planner::Profile load(const std::string &name) {
    std::string error;
    std::optional<telar_planner::Profile> p =
        telar_planner::loadProfile(name, error);
    EXPECT_TRUE(p) << error;
    return p ? *p : telar_planner::Profile();
  }
  static Mesh mesh(std::vector<int64_t> sizes) {
    Mesh m;
    const char *names[] = {"x", "y", "z"};
    for (size_t i = 0; i < sizes.size(); ++i) {
      m.axisNames.push_back(names[i]);
      m.axisSizes.push_back(sizes[i]);
    }
    return m;
  }

  MLIRContext ctx;
  OwningOpRef<ModuleOp> module;
};

TEST_F(PlannerSearchTest, CbcEqualsBruteForce) {
  int cases = 0;
  for (const char *source : {kMlp, kAttention, kExperts}) {
    func::FuncOp main = parse(source);
    ASSERT_TRUE(main);
    // "a100-80g/2": nodes of 2 devices, so that an axis of the 2x2 mesh
    // crosses the slower network level (the lower bounds are per level).
    for (const char *profileName : {"cpu", "a100-80g", "a100-80g/2"}) {
      StringRef name(profileName);
      telar_planner::Profile profile = load(name.split('/').first.str());
      if (name.contains('/'))
        profile.levels.front().devices = 2;
      for (std::vector<int64_t> sizes :
           {std::vector<int64_t>{2}, {4}, {2, 2}, {2, 2, 2}}) {
        // Three axes on the MLP across nodes only: brute force grows with
        // the strategy count to the power of the ops.
        if (sizes.size() == 3 && (source != kMlp || !name.contains('/')))
          continue;
        Mesh m = mesh(sizes);
        // Without a binding limit, and with one that forces splitting
        // weights (a few KiB per device).
        for (double limit : {0.0, 6000.0}) {
          MeshSearch brute = planOnMesh(main, m, profile, std::nullopt, limit,
                                        60, INFINITY, Solver::BruteForce);
          MeshSearch cbc = planOnMesh(main, m, profile, std::nullopt, limit,
                                      60, INFINITY, Solver::Cbc);
          std::string where = std::string(profileName) + " " + m.str() +
                              " limit " + std::to_string(limit);
          ASSERT_EQ(brute.solution.hasSolution(), cbc.solution.hasSolution())
              << where;
          ++cases;
          if (!brute.solution.hasSolution())
            continue;
          EXPECT_EQ(cbc.solution.status,
                    telar_planner::IlpSolution::Status::Optimal)
              << where;
          EXPECT_NEAR(cbc.solution.objective, brute.solution.objective,
                      1e-9 * brute.solution.objective)
              << where;
          // The plan written, completed and priced by the cost model, is
          // what the search predicted.
          FailureOr<PricedPlan> priced = pricePlan(main, cbc.plan, profile);
          ASSERT_TRUE(succeeded(priced)) << where;
          EXPECT_NEAR(priced->cost.latency, cbc.solution.objective,
                      1e-9 * cbc.solution.objective)
              << where;
          if (limit > 0)
            EXPECT_LE(double(priced->cost.memoryBytes), limit) << where;
        }
      }
    }
  }
  EXPECT_EQ(cases, (3 * 3 * 3 + 1) * 2);
}

// The structure the search ties: two identical layers of three ops.
TEST_F(PlannerSearchTest, FindsRepeatedLayers) {
  func::FuncOp main = parse(R"mlir(
    func.func @main(%x: tensor<8x16xf32>) -> tensor<8x16xf32> {
      %w = telar.constant dense_resource<w> : tensor<16x16xf32>
      %h0 = telar.matmul %x, %w : (tensor<8x16xf32>, tensor<16x16xf32>) -> tensor<8x16xf32>
      %a0 = telar.relu %h0 : (tensor<8x16xf32>) -> tensor<8x16xf32>
      %y0 = telar.add %a0, %x : (tensor<8x16xf32>, tensor<8x16xf32>) -> tensor<8x16xf32>
      %v = telar.constant dense_resource<v> : tensor<16x16xf32>
      %h1 = telar.matmul %y0, %v : (tensor<8x16xf32>, tensor<16x16xf32>) -> tensor<8x16xf32>
      %a1 = telar.relu %h1 : (tensor<8x16xf32>) -> tensor<8x16xf32>
      %y1 = telar.add %a1, %y0 : (tensor<8x16xf32>, tensor<8x16xf32>) -> tensor<8x16xf32>
      %z = telar.neg %y1 : (tensor<8x16xf32>) -> tensor<8x16xf32>
      return %z : tensor<8x16xf32>
    })mlir");
  ASSERT_TRUE(main);
  LayerStructure layers = findRepeatedLayers(main);
  EXPECT_EQ(layers.count, 2);
  EXPECT_EQ(layers.period, 3);
  // The constants are left out of the sequence.
  EXPECT_EQ(layers.sequence.size(), 7u);
  std::vector<int64_t> rep = layers.getRepresentatives(9);
  // %h1 (op 5) stands for %h0 (op 1).
  EXPECT_EQ(rep[5], 1);
  EXPECT_EQ(rep[7], 3);
  EXPECT_EQ(rep[8], 8);
}

TEST_F(PlannerSearchTest, MeshesRespectNodes) {
  telar_planner::Profile a100 = load("a100-80g");
  // 16 devices on nodes of 8: an axis lies within a node or spans nodes.
  std::vector<std::string> got;
  for (const Mesh &m : enumerateMeshes(16, a100))
    got.push_back(m.str());
  EXPECT_EQ(got, (std::vector<std::string>{"x=2,y=8", "x=2,y=2,z=4",
                                           "x=2,y=4,z=2"}));
  // One node: every factorisation.
  // One node: every factorisation (4, and 2x2).
  EXPECT_EQ(enumerateMeshes(4, a100).size(), 2u);
}

//===----------------------------------------------------------------------===//
// Pipelines: the inter-operator DP and the search
//===----------------------------------------------------------------------===//

/// `layers` layers of matmul (a [n, n] weight) + relu on x [8, n], then a
/// neg: repeated layers with the weights the memory limit can force apart.
std::string chain(int layers, int n = 16) {
  std::string t = "tensor<8x" + std::to_string(n) + "xf32>";
  std::string w = "tensor<" + std::to_string(n) + "x" + std::to_string(n) +
                  "xf32>";
  std::string s = "func.func @main(%x: " + t +
                  " {telar.name = \"x\"}) -> " + t + " {\n";
  std::string in = "%x";
  for (int i = 0; i < layers; ++i) {
    std::string k = std::to_string(i);
    s += "  %w" + k + " = telar.constant {telar.result_names = [\"w" + k +
         "\"]} dense_resource<w" + k + "> : " + w + "\n";
    s += "  %h" + k + " = telar.matmul " + in + ", %w" + k +
         " {telar.result_names = [\"h" + k + "\"]} : (" + t + ", " + w +
         ") -> " + t + "\n";
    s += "  %a" + k + " = telar.relu %h" + k +
         " {telar.result_names = [\"a" + k + "\"]} : (" + t + ") -> " + t +
         "\n";
    in = "%a" + k;
  }
  s += "  %z = telar.neg " + in + " {telar.result_names = [\"z\"]} : (" + t +
       ") -> " + t + "\n  return %z : " + t + "\n}\n";
  return s;
}

TEST_F(PlannerSearchTest, StageDpEqualsBruteForce) {
  std::mt19937 rng(7);
  std::uniform_real_distribution<double> time(0.5, 4.0);
  int cases = 0;
  for (int trial = 0; trial < 60; ++trial) {
    StageDpProblem p;
    p.numUnits = 2 + trial % 5;
    p.devices = trial % 3 == 0 ? 4 : trial % 3 == 1 ? 6 : 8;
    p.nodeSize = trial % 2 ? 4 : std::numeric_limits<int64_t>::max();
    p.submeshSizes = trial % 3 == 1 ? std::vector<int64_t>{1, 2, 3}
                                    : std::vector<int64_t>{1, 2, 4};
    p.microbatches = 1 + trial % 4;
    if (trial % 7 == 3)
      p.minStages = p.maxStages = 2 + trial % 2;
    // Random times, some (unit range, submesh) pairs not fitting; fewer
    // devices make a stage slower.
    std::map<std::tuple<int64_t, int64_t, size_t>, std::optional<double>> t;
    for (int64_t b = 0; b < p.numUnits; ++b)
      for (int64_t e = b + 1; e <= p.numUnits; ++e)
        for (size_t j = 0; j < p.submeshSizes.size(); ++j)
          t[{b, e, j}] = rng() % 5 == 0
                             ? std::nullopt
                             : std::optional<double>(
                                   double(e - b) * time(rng) /
                                   double(p.submeshSizes[j]));
    p.cost = [&](int64_t b, int64_t e, size_t j) { return t[{b, e, j}]; };
    std::optional<StageDpSolution> dp = solveStageDp(p);
    std::optional<StageDpSolution> brute = solveStageBruteForce(p);
    ASSERT_EQ(dp.has_value(), brute.has_value()) << "trial " << trial;
    if (!dp)
      continue;
    ++cases;
    EXPECT_NEAR(dp->objective, brute->objective, 1e-12 * brute->objective)
        << "trial " << trial;
    // The DP's stages are a valid pipeline with that objective.
    std::vector<double> seconds;
    int64_t unit = 0, rank = 0;
    for (const StageDpStage &s : dp->stages) {
      EXPECT_EQ(s.begin, unit);
      EXPECT_EQ(s.firstRank, rank);
      unit = s.end;
      rank += p.submeshSizes[s.submesh];
      seconds.push_back(*t[{s.begin, s.end, s.submesh}]);
    }
    EXPECT_EQ(unit, p.numUnits);
    EXPECT_EQ(rank, p.devices);
    EXPECT_GE(int64_t(dp->stages.size()), p.minStages);
    EXPECT_LE(int64_t(dp->stages.size()), p.maxStages);
    EXPECT_NEAR(getPipelineLatency(seconds, p.microbatches), dp->objective,
                1e-12 * dp->objective);
  }
  EXPECT_GT(cases, 30);
}

TEST_F(PlannerSearchTest, StageDpOnPlannedStagesEqualsBruteForce) {
  // The stage costs of a real program: every unit range planned on every
  // submesh (planOnMesh on the stage's own function).
  func::FuncOp main = parse(chain(4).c_str());
  ASSERT_TRUE(main);
  telar_planner::Profile profile = load("cpu");
  LayerStructure layers = findRepeatedLayers(main);
  ASSERT_EQ(layers.count, 4);
  std::vector<Operation *> ops;
  for (Operation &op : main.getBody().front().without_terminator())
    ops.push_back(&op);
  auto unitOps = [&](int64_t b, int64_t e) {
    std::vector<Operation *> out;
    int64_t from = b == 0 ? 0 : layers.start + b * layers.period;
    int64_t to = e == layers.count ? int64_t(layers.sequence.size())
                                   : layers.start + e * layers.period;
    for (int64_t q = from; q < to; ++q)
      out.push_back(ops[layers.sequence[q]]);
    return out;
  };
  StageDpProblem p;
  p.numUnits = 4;
  p.devices = 4;
  p.submeshSizes = {1, 2};
  std::map<std::tuple<int64_t, int64_t, size_t>, std::optional<double>> t;
  for (int64_t b = 0; b < 4; ++b)
    for (int64_t e = b + 1; e <= 4; ++e)
      for (size_t j = 0; j < 2; ++j) {
        std::unique_ptr<StageFunction> stage =
            buildStageFunction(main, unitOps(b, e));
        Mesh m = j == 0 ? Mesh() : mesh({2});
        MeshSearch s = planOnMesh(stage->func, m, profile, std::nullopt, 0, 60);
        ASSERT_TRUE(s.solution.hasSolution());
        t[{b, e, j}] = s.solution.objective;
      }
  p.cost = [&](int64_t b, int64_t e, size_t j) { return t[{b, e, j}]; };
  for (int64_t M : {1, 2, 4}) {
    p.microbatches = M;
    std::optional<StageDpSolution> dp = solveStageDp(p);
    std::optional<StageDpSolution> brute = solveStageBruteForce(p);
    ASSERT_TRUE(dp && brute);
    EXPECT_NEAR(dp->objective, brute->objective, 1e-12 * brute->objective)
        << "M = " << M;
  }
}

TEST_F(PlannerSearchTest, StageFunctionHoldsTheStage) {
  func::FuncOp main = parse(chain(3).c_str());
  ASSERT_TRUE(main);
  std::vector<Operation *> body;
  for (Operation &op : main.getBody().front().without_terminator())
    body.push_back(&op);
  // The ops of layer 1: its matmul and relu (its weight is copied in).
  std::unique_ptr<StageFunction> stage =
      buildStageFunction(main, {body[4], body[5]});
  func::FuncOp f = stage->func;
  ASSERT_EQ(stage->inputs.size(), 1u);
  EXPECT_EQ(stage->inputs[0], body[2]->getResult(0)); // a0
  ASSERT_EQ(stage->outputs.size(), 1u);
  EXPECT_EQ(stage->outputs[0], body[5]->getResult(0)); // a1
  EXPECT_EQ(f.getArgAttrOfType<StringAttr>(0, "telar.name").getValue(), "a0");
  // constant w1, matmul, relu, return
  EXPECT_EQ(f.getBody().front().getOperations().size(), 4u);
  std::map<std::string, Value> names = getValueNames(f);
  EXPECT_TRUE(names.count("w1") && names.count("h1") && names.count("a1") &&
              names.count("a0"));
  EXPECT_EQ(stage->toMain.lookup(names["h1"]), body[4]->getResult(0));
}

TEST_F(PlannerSearchTest, ForcedStageCounts) {
  func::FuncOp main = parse(chain(6).c_str());
  ASSERT_TRUE(main);
  telar_planner::Profile profile = load("cpu");
  for (int64_t stages : {2, 3, 4}) {
    SearchOptions options;
    options.devices = 4;
    options.pipeline.stages = stages;
    options.pipeline.microbatches = 2;
    FailureOr<std::optional<PipelineSearchResult>> r =
        searchPipeline(main, profile, options);
    ASSERT_TRUE(succeeded(r) && r->has_value()) << stages;
    const Plan &plan = (*r)->plan;
    ASSERT_EQ(int64_t(plan.stages.size()), stages);
    ASSERT_TRUE(plan.schedule);
    EXPECT_EQ(plan.schedule->microbatches, 2);
    // Stages tile the ranks in order and list every op once (weights in
    // none).
    int64_t rank = 0;
    std::set<std::string> listed;
    for (const telar_sharding::PlanStage &s : plan.stages) {
      EXPECT_EQ(s.firstRank, rank);
      rank += s.mesh.getNumDevices();
      for (const std::string &op : s.ops) {
        EXPECT_TRUE(listed.insert(op).second) << op;
        EXPECT_NE(op[0], 'w') << op;
      }
    }
    EXPECT_LE(rank, 4);
    EXPECT_EQ(listed.size(), 6u * 2 + 1);
    // Priced as a plan, it is what the search predicted.
    FailureOr<std::shared_ptr<PricedPipeline>> priced =
        pricePipelinePlan(main, plan, profile);
    ASSERT_TRUE(succeeded(priced));
    EXPECT_EQ((*priced)->stages.size(), size_t(stages));
    EXPECT_NEAR((*priced)->latency, (*r)->latency, 0.05 * (*r)->latency);
  }
  // More stages than places to cut: an error.
  SearchOptions options;
  options.devices = 4;
  options.pipeline.stages = 20;
  EXPECT_TRUE(failed(searchPipeline(main, profile, options)));
}

TEST_F(PlannerSearchTest, MemoryLimitForcesAPipeline) {
  // Weights of 15 x 15 cannot be split over 2 or 4 devices: one-stage
  // plans hold all 6 layers' weights (5400 B) on every device; a pipeline
  // spreads them over its stages.
  func::FuncOp main = parse(chain(6, 15).c_str());
  ASSERT_TRUE(main);
  telar_planner::Profile profile = load("cpu");
  SearchOptions options;
  options.devices = 4;
  options.memoryLimit = 4500;
  options.pipeline.microbatches = 1;
  options.pipeline.disabled = true;
  {
    ScopedDiagnosticHandler quiet(&ctx, [](Diagnostic &) { return success(); });
    EXPECT_TRUE(failed(planAndPrice(main, profile, std::nullopt, options,
                                    false)));
  }
  options.pipeline.disabled = false;
  FailureOr<PlanningResult> r =
      planAndPrice(main, profile, std::nullopt, options, false);
  ASSERT_TRUE(succeeded(r));
  ASSERT_TRUE(r->pipeline);
  EXPECT_GE(r->pipeline->stages.size(), 2u);
  for (const PricedPipeline::Stage &s : r->pipeline->stages)
    EXPECT_LE(double(s.priced.cost.memoryBytes), 4500.0);
  // Without the limit the one-stage plan wins (one microbatch: a pipeline
  // only adds its transfers).
  options.memoryLimit = 0;
  r = planAndPrice(main, profile, std::nullopt, options, false);
  ASSERT_TRUE(succeeded(r));
  EXPECT_FALSE(r->pipeline);
}

TEST_F(PlannerSearchTest, RepeatedLayersArePlannedOncePerSubmesh) {
  // Stage costs by planOnMesh: twice the layers, about the same calls (a
  // stage of k layers is planned on a function of two; counts between two
  // planned alike are interpolated), far fewer than the (range, submesh)
  // pairs the DP prices.
  telar_planner::Profile profile = load("cpu");
  std::vector<int64_t> calls;
  for (int layers : {8, 16}) {
    func::FuncOp main = parse(chain(layers).c_str());
    ASSERT_TRUE(main);
    SearchOptions options;
    options.devices = 4;
    options.pipeline.microbatches = 4;
    FailureOr<std::optional<PipelineSearchResult>> r =
        searchPipeline(main, profile, options);
    ASSERT_TRUE(succeeded(r) && r->has_value());
    EXPECT_TRUE((*r)->layerUnits);
    EXPECT_EQ((*r)->numUnits, layers);
    calls.push_back((*r)->planOnMeshCalls);
    // (ranges) x (submeshes 1, 2): what costing every pair would take.
    int64_t pairs = int64_t(layers) * (layers + 1) / 2 * 2;
    EXPECT_LT((*r)->planOnMeshCalls, pairs / 3) << layers;
  }
  EXPECT_LE(calls[1], calls[0] + 12);
}

} // namespace
