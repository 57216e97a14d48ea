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
#include "telar/planner/Search.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"

#include "gtest/gtest.h"

using namespace mlir;
using namespace mlir::telar;
using namespace mlir::telar::planner;
using telar_sharding::Mesh;

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
    for (const char *profileName : {"cpu", "a100-80g"}) {
      telar_planner::Profile profile = load(profileName);
      for (std::vector<int64_t> sizes :
           {std::vector<int64_t>{2}, {4}, {2, 2}}) {
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
  EXPECT_EQ(cases, 3 * 2 * 3 * 2);
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

} // namespace
