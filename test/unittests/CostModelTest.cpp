//===- CostModelTest.cpp - The cost model's formulas on small cases -------===//

#include "telar/InitAllTelar.h"
#include "telar/planner/CostModel.h"
#include "telar/planner/Strategies.h"
#include "telar/sharding/Completion.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"

#include <gtest/gtest.h>

using namespace mlir;
using namespace mlir::telar;
using namespace mlir::telar::planner;
using telar_sharding::Mesh;
using telar_sharding::ReshardStep;
using telar_sharding::StepKind;

namespace {

telar_planner::LinkLevel level(const char *name, int64_t devices,
                               double bandwidth, double latency) {
  telar_planner::LinkLevel l;
  l.name = name;
  l.devices = devices;
  l.bandwidth = bandwidth;
  l.latency = latency;
  return l;
}

/// Nodes of 8 devices (NVLink-like), a network above.
Profile twoLevels() {
  Profile p;
  p.name = "test";
  p.peakFlops = {{"f32", 1e12}, {"f16", 4e12}};
  p.memoryBytes = 1e9;
  p.memoryBandwidth = 1e11;
  p.opOverhead = 2e-6;
  p.levels = {level("node", 8, 1e11, 1e-6), level("network", 0, 1e10, 1e-5)};
  return p;
}

Mesh mesh(std::vector<std::string> names, std::vector<int64_t> sizes) {
  return Mesh{std::move(names), std::move(sizes)};
}

TEST(CostModel, LinkLevelFollowsStrides) {
  Profile p = twoLevels();
  // {data: 4, model: 2}: model has stride 1 (span 2), data stride 2 (span
  // 8): all within a node of 8.
  Mesh small = mesh({"data", "model"}, {4, 2});
  EXPECT_EQ(getLinkLevel(small, {}, p), 0u);
  EXPECT_EQ(getLinkLevel(small, {1}, p), 0u);
  EXPECT_EQ(getLinkLevel(small, {0}, p), 0u);
  EXPECT_EQ(getLinkLevel(small, {0, 1}, p), 0u);
  // {data: 4, model: 4}: model spans 4 ranks (a node), data 16 (the
  // network); a group over both reaches the network.
  Mesh large = mesh({"data", "model"}, {4, 4});
  EXPECT_EQ(getLinkLevel(large, {1}, p), 0u);
  EXPECT_EQ(getLinkLevel(large, {0}, p), 1u);
  EXPECT_EQ(getLinkLevel(large, {0, 1}, p), 1u);
  // The minor axis of size 8 fills the node exactly; one more is outside.
  EXPECT_EQ(getLinkLevel(mesh({"a", "b"}, {2, 8}), {1}, p), 0u);
  EXPECT_EQ(getLinkLevel(mesh({"a", "b"}, {2, 8}), {0}, p), 1u);
  EXPECT_EQ(getLinkLevel(mesh({"a"}, {16}), {0}, p), 1u);
}

TEST(CostModel, LinkLevelThreeLevelsAndUnbounded) {
  Profile p = twoLevels();
  p.levels = {level("node", 4, 1e11, 1e-6), level("rack", 16, 5e10, 5e-6),
              level("network", 0, 1e10, 1e-5)};
  Mesh m = mesh({"a", "b", "c"}, {2, 4, 4});
  EXPECT_EQ(getLinkLevel(m, {2}, p), 0u); // span 4
  EXPECT_EQ(getLinkLevel(m, {1}, p), 1u); // stride 4, span 16
  EXPECT_EQ(getLinkLevel(m, {0}, p), 2u); // stride 16, span 32
  EXPECT_EQ(getLinkLevel(m, {1, 2}, p), 1u);
  // A profile of one unbounded level (a single machine): always level 0.
  Profile one = twoLevels();
  one.levels = {level("node", 0, 1e10, 1e-6)};
  EXPECT_EQ(getLinkLevel(m, {0, 1, 2}, one), 0u);
}

ReshardStep step(StepKind kind, std::vector<int64_t> axes, int64_t bytes) {
  ReshardStep s;
  s.kind = kind;
  s.axes = std::move(axes);
  s.bytesSent = bytes;
  return s;
}

TEST(CostModel, StepSecondsAlphaBeta) {
  Profile p = twoLevels();
  Mesh m = mesh({"data", "model"}, {4, 4});
  // Within a node: 1e-6 + 1e6 / 1e11.
  EXPECT_DOUBLE_EQ(getStepSeconds(step(StepKind::AllGather, {1}, 1000000), m, p),
                   1e-6 + 1e-5);
  // Across nodes: 1e-5 + 1e6 / 1e10.
  EXPECT_DOUBLE_EQ(getStepSeconds(step(StepKind::AllGather, {0}, 1000000), m, p),
                   1e-5 + 1e-4);
  // A local slice sends nothing and costs nothing, wherever its axes are.
  EXPECT_EQ(getStepSeconds(step(StepKind::LocalSlice, {0}, 0), m, p), 0.0);
  // A fit for the step's kind on its level overrides latency and bandwidth;
  // other kinds keep them.
  p.levels[1].collectives["all_reduce"] = {3e-5, 2e10};
  EXPECT_DOUBLE_EQ(getStepSeconds(step(StepKind::AllReduce, {0}, 1000000), m, p),
                   3e-5 + 5e-5);
  EXPECT_DOUBLE_EQ(getStepSeconds(step(StepKind::ReduceScatter, {0}, 1000000), m, p),
                   1e-5 + 1e-4);
  EXPECT_DOUBLE_EQ(getStepSeconds(step(StepKind::AllReduce, {1}, 1000000), m, p),
                   1e-6 + 1e-5);
}

TEST(CostModel, StepSecondsOfReshardSteps) {
  // The bytes are reshard()'s (getStepBytes): gathering a [8x16] f32 split
  // in 4 blocks of 128 bytes sends 3 * 128 bytes.
  Profile p = twoLevels();
  Mesh m = mesh({"data"}, {4});
  std::string error;
  auto steps = telar_sharding::reshard(
      {8, 16}, 4, telar_sharding::Sharding{{{0}, {}}, {}},
      telar_sharding::Sharding::getReplicated(2), m, error);
  ASSERT_TRUE(steps) << error;
  ASSERT_EQ(steps->size(), 1u);
  EXPECT_EQ((*steps)[0].bytesSent, 3 * 128);
  EXPECT_DOUBLE_EQ(getStepSeconds((*steps)[0], m, p), 1e-6 + 384 / 1e11);

  // Moving the split from dim 0 to dim 1 is one all_to_all: each rank keeps
  // a quarter of its 128-byte block and sends the rest, priced by latency
  // and bandwidth both (latency alone once went unseen but for one MoE
  // scenario).
  steps = telar_sharding::reshard({8, 16}, 4,
                                  telar_sharding::Sharding{{{0}, {}}, {}},
                                  telar_sharding::Sharding{{{}, {0}}, {}}, m,
                                  error);
  ASSERT_TRUE(steps) << error;
  ASSERT_EQ(steps->size(), 1u);
  EXPECT_EQ((*steps)[0].kind, StepKind::AllToAll);
  EXPECT_EQ((*steps)[0].bytesSent, 96);
  EXPECT_DOUBLE_EQ(getStepSeconds((*steps)[0], m, p), 1e-6 + 96 / 1e11);
  // Across nodes, and with a fit of its own.
  Mesh two = mesh({"data", "model"}, {4, 4});
  EXPECT_DOUBLE_EQ(
      getStepSeconds(step(StepKind::AllToAll, {0}, 1000000), two, p),
      1e-5 + 1e-4);
  p.levels[1].collectives["all_to_all"] = {2e-5, 5e9};
  EXPECT_DOUBLE_EQ(
      getStepSeconds(step(StepKind::AllToAll, {0}, 1000000), two, p),
      2e-5 + 2e-4);
}

TEST(CostModel, ReshardLowerBoundNeverAboveThePrice) {
  // Every pair of shardings (partial ones included) of a [16x8x4] tensor
  // on meshes within a node, across nodes (nodes of 2), and of three axes:
  // the bound the search prices unpriced pairs with never exceeds the
  // summed step seconds of reshard()'s steps, and is exact (0) when nothing
  // communicates.
  Profile p = twoLevels();
  p.levels[0].devices = 2;
  p.levels[1].collectives["all_gather"] = {3e-5, 5e9};
  int64_t pairs = 0, network = 0;
  for (Mesh m : {mesh({"a", "b"}, {2, 2}), mesh({"a", "b", "c"}, {2, 2, 2}),
                 mesh({"a", "b"}, {4, 2})}) {
    std::vector<int64_t> shape = {16, 8, 4};
    // Each sharding, and each with a sum pending over free axes.
    std::vector<telar_sharding::Sharding> all;
    for (const telar_sharding::Sharding &s : enumerateShardings(shape, m)) {
      std::vector<int64_t> free;
      for (int64_t a = 0; a < m.getNumAxes(); ++a)
        if (s.getDimOfAxis(a) < 0)
          free.push_back(a);
      for (uint64_t mask = 0; mask < (uint64_t(1) << free.size()); ++mask) {
        telar_sharding::Sharding t = s;
        for (size_t i = 0; i < free.size(); ++i)
          if (mask & (uint64_t(1) << i))
            t.partial.push_back({free[i], telar_sharding::ReductionKind::Sum});
        all.push_back(std::move(t));
      }
    }
    for (const telar_sharding::Sharding &from : all)
      for (const telar_sharding::Sharding &to : all) {
        std::string error;
        auto steps = telar_sharding::reshard(shape, 4, from, to, m, error);
        bool communicates = true;
        std::optional<double> bound =
            getReshardSecondsLowerBound(shape, 4, from, to, m, p,
                                        &communicates);
        ASSERT_EQ(bool(steps), bool(bound)) << error;
        if (!steps)
          continue;
        double seconds = 0;
        for (const telar_sharding::ReshardStep &step : *steps)
          seconds += getStepSeconds(step, m, p);
        ++pairs;
        std::string pair = telar_sharding::formatSharding(from, m) + " -> " +
                           telar_sharding::formatSharding(to, m) + " on " +
                           m.str();
        EXPECT_LE(*bound, seconds * (1 + 1e-12)) << pair;
        if (!communicates)
          EXPECT_EQ(seconds, 0) << pair;
        else
          EXPECT_GT(*bound, 0) << pair;
        if (*bound >= p.levels[1].latency)
          ++network;
      }
  }
  EXPECT_GT(pairs, 9000);
  // The levels matter: pairs of axes across nodes only start at the
  // network's latency.
  EXPECT_GT(network, 300);
}

class ComputeCostTest : public ::testing::Test {
protected:
  ComputeCostTest() {
    DialectRegistry registry;
    registerAllTelar(registry);
    ctx.appendDialectRegistry(registry);
    ctx.loadAllAvailableDialects();
  }
  /// The first op of @f in `body` (a function body with arguments %a, %b).
  Operation *parse(StringRef source) {
    module = parseSourceString<ModuleOp>(source, &ctx);
    EXPECT_TRUE(module);
    if (!module)
      return nullptr;
    auto f = module->lookupSymbol<func::FuncOp>("f");
    return &f.getBody().front().front();
  }
  MLIRContext ctx;
  OwningOpRef<ModuleOp> module;
  Profile profile = twoLevels();
};

TEST_F(ComputeCostTest, MatMulOnLocalShapes) {
  Operation *op = parse(R"mlir(
    func.func @f(%a: tensor<8x16xf32>, %b: tensor<16x32xf32>) -> tensor<8x32xf32> {
      %0 = telar.matmul %a, %b : (tensor<8x16xf32>, tensor<16x32xf32>) -> tensor<8x32xf32>
      return %0 : tensor<8x32xf32>
    })mlir");
  ASSERT_TRUE(op);
  // The global op: 2 * 8*16*32 FLOPs; (128 + 512 + 256) * 4 bytes.
  ComputeCost whole =
      getComputeCost(op, {{8, 16}, {16, 32}}, {{8, 32}}, profile);
  EXPECT_EQ(whole.flops, 2.0 * 8 * 16 * 32);
  EXPECT_EQ(whole.bytes, (128 + 512 + 256) * 4.0);
  EXPECT_DOUBLE_EQ(whole.seconds, 2e-6 + std::max(8192 / 1e12, 3584 / 1e11));
  // Split 4 ways on the contracted loop: a quarter of the work.
  ComputeCost split = getComputeCost(op, {{8, 4}, {4, 32}}, {{8, 32}}, profile);
  EXPECT_EQ(split.flops, 2.0 * 8 * 4 * 32);
  EXPECT_EQ(split.bytes, (32 + 128 + 256) * 4.0);
}

TEST_F(ComputeCostTest, BatchedMatMulAndEinsum) {
  Operation *op = parse(R"mlir(
    func.func @f(%a: tensor<2x4x16xf16>, %b: tensor<16x8xf16>) -> tensor<2x4x8xf16> {
      %0 = telar.matmul %a, %b : (tensor<2x4x16xf16>, tensor<16x8xf16>) -> tensor<2x4x8xf16>
      return %0 : tensor<2x4x8xf16>
    })mlir");
  ASSERT_TRUE(op);
  // The broadcast batch loop is read off the result; f16 runs at its peak.
  ComputeCost c = getComputeCost(op, {{2, 4, 16}, {16, 8}}, {{2, 4, 8}}, profile);
  EXPECT_EQ(c.flops, 2.0 * 2 * 4 * 16 * 8);
  EXPECT_EQ(c.bytes, (128 + 128 + 64) * 2.0);
  EXPECT_DOUBLE_EQ(c.seconds, 2e-6 + std::max(2048 / 4e12, 640 / 1e11));

  op = parse(R"mlir(
    func.func @f(%a: tensor<4x8x16xf32>, %b: tensor<4x16x32xf32>) -> tensor<4x8x32xf32> {
      %0 = telar.einsum %a, %b {equation = #telar.einsum<[e, c, d], [e, d, f] -> [e, c, f]>} : (tensor<4x8x16xf32>, tensor<4x16x32xf32>) -> tensor<4x8x32xf32>
      return %0 : tensor<4x8x32xf32>
    })mlir");
  ASSERT_TRUE(op);
  // Experts split 4 ways: one expert's [8x16] x [16x32].
  c = getComputeCost(op, {{1, 8, 16}, {1, 16, 32}}, {{1, 8, 32}}, profile);
  EXPECT_EQ(c.flops, 2.0 * 8 * 16 * 32);
}

TEST_F(ComputeCostTest, Convolution) {
  Operation *op = parse(R"mlir(
    func.func @f(%a: tensor<1x4x8x8xf32>, %b: tensor<8x4x3x3xf32>) -> tensor<1x8x8x8xf32> {
      %0 = telar.conv %a, %b {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : (tensor<1x4x8x8xf32>, tensor<8x4x3x3xf32>) -> tensor<1x8x8x8xf32>
      return %0 : tensor<1x8x8x8xf32>
    })mlir");
  ASSERT_TRUE(op);
  // Per output element, C_in * 3 * 3 multiply-adds; output channels split
  // in 2.
  ComputeCost c = getComputeCost(op, {{1, 4, 8, 8}, {4, 4, 3, 3}},
                                 {{1, 4, 8, 8}}, profile);
  EXPECT_EQ(c.flops, 2.0 * (4 * 8 * 8) * (4 * 3 * 3));
}

TEST_F(ComputeCostTest, ElementwiseReductionsAndViews) {
  Operation *op = parse(R"mlir(
    func.func @f(%a: tensor<8x16xf32>, %b: tensor<8x16xf32>) -> tensor<8x16xf32> {
      %0 = telar.add %a, %b : (tensor<8x16xf32>, tensor<8x16xf32>) -> tensor<8x16xf32>
      return %0 : tensor<8x16xf32>
    })mlir");
  ASSERT_TRUE(op);
  // One FLOP per result element; memory bound: 3 * 512 bytes at 1e11 B/s.
  ComputeCost add = getComputeCost(op, {{8, 16}, {8, 16}}, {{8, 16}}, profile);
  EXPECT_EQ(add.flops, 128.0);
  EXPECT_EQ(add.bytes, 1536.0);
  EXPECT_DOUBLE_EQ(add.seconds, 2e-6 + 1536 / 1e11);

  op = parse(R"mlir(
    func.func @f(%a: tensor<8x16xf32>) -> tensor<8xf32> {
      %0 = telar.reduce_sum %a {axes = array<i64: 1>, keepdims = false} : (tensor<8x16xf32>) -> tensor<8xf32>
      return %0 : tensor<8xf32>
    })mlir");
  ASSERT_TRUE(op);
  // A reduction: one per element read.
  EXPECT_EQ(getComputeCost(op, {{8, 16}}, {{8}}, profile).flops, 128.0);

  op = parse(R"mlir(
    func.func @f(%a: tensor<8x16xf32>) -> tensor<128xf32> {
      %0 = telar.reshape %a {shape = array<i64: 128>} : (tensor<8x16xf32>) -> tensor<128xf32>
      return %0 : tensor<128xf32>
    })mlir");
  ASSERT_TRUE(op);
  // A view: no kernel, no cost (not even the op overhead).
  ComputeCost view = getComputeCost(op, {{8, 16}}, {{128}}, profile);
  EXPECT_EQ(view.seconds, 0.0);
  EXPECT_EQ(view.bytes, 0.0);

  op = parse(R"mlir(
    func.func @f(%a: tensor<8x16xf32>) -> tensor<16x8xf32> {
      %0 = telar.transpose %a {perm = array<i64: 1, 0>} : (tensor<8x16xf32>) -> tensor<16x8xf32>
      return %0 : tensor<16x8xf32>
    })mlir");
  ASSERT_TRUE(op);
  // Data movement: bytes only.
  ComputeCost t = getComputeCost(op, {{8, 16}}, {{16, 8}}, profile);
  EXPECT_EQ(t.flops, 0.0);
  EXPECT_DOUBLE_EQ(t.seconds, 2e-6 + 1024 / 1e11);
}

TEST_F(ComputeCostTest, EvaluatePlanAndJson) {
  // Megatron on model=2: w1 column-split, w2 row-split; the output is
  // all-reduced at the return.
  module = parseSourceString<ModuleOp>(R"mlir(
    func.func @main(%x: tensor<4x8xf32> {telar.name = "x"}) -> tensor<4x8xf32> {
      %w1 = telar.constant {telar.result_names = ["w1"]} dense<1.0> : tensor<8x16xf32>
      %h = telar.matmul %x, %w1 {telar.result_names = ["h"]} : (tensor<4x8xf32>, tensor<8x16xf32>) -> tensor<4x16xf32>
      %w2 = telar.constant {telar.result_names = ["w2"]} dense<1.0> : tensor<16x8xf32>
      %y = telar.matmul %h, %w2 {telar.result_names = ["y"]} : (tensor<4x16xf32>, tensor<16x8xf32>) -> tensor<4x8xf32>
      return %y : tensor<4x8xf32>
    })mlir", &ctx);
  ASSERT_TRUE(module);
  auto main = module->lookupSymbol<func::FuncOp>("main");
  telar_sharding::Plan plan;
  plan.mesh = mesh({"model"}, {2});
  plan.shardings["w1"] = telar_sharding::Sharding{{{}, {0}}, {}};
  plan.shardings["w2"] = telar_sharding::Sharding{{{0}, {}}, {}};
  FailureOr<CompletedPlan> completed = completePlan(main, plan);
  ASSERT_TRUE(succeeded(completed));
  FailureOr<PlanCost> cost = evaluatePlan(main, *completed, profile);
  ASSERT_TRUE(succeeded(cost));
  ASSERT_EQ(cost->ops.size(), 5u);
  // Each matmul: 2 * 4*8*8 FLOPs on its local blocks.
  EXPECT_EQ(cost->ops[1].compute.flops, 512.0);
  EXPECT_EQ(cost->ops[3].compute.flops, 512.0);
  // The return all-reduces the [4x8] f32 partial sum: 2 (G-1)/G * 128.
  ASSERT_EQ(cost->ops[4].comm.size(), 1u);
  EXPECT_EQ(cost->ops[4].comm[0].step.kind, StepKind::AllReduce);
  EXPECT_EQ(cost->ops[4].comm[0].step.bytesSent, 128);
  EXPECT_DOUBLE_EQ(cost->commSeconds, 1e-6 + 128 / 1e11);
  EXPECT_DOUBLE_EQ(cost->latency, cost->computeSeconds + cost->commSeconds);
  EXPECT_EQ(cost->bytesPerAxes.at({0}), 128);
  // Weights: two 256-byte shards. Activations: x (128) and h (128) at the
  // first matmul, h and y (128) at the second, y and its resolved copy at
  // the return.
  EXPECT_EQ(cost->weightBytes, 512);
  EXPECT_EQ(cost->peakActivationBytes, 256);
  EXPECT_EQ(cost->memoryBytes, 768);

  llvm::json::Value json = toJson(*cost, plan.mesh);
  const llvm::json::Object *object = json.getAsObject();
  ASSERT_TRUE(object);
  EXPECT_EQ(object->getNumber("latency_s"), cost->latency);
  EXPECT_EQ(object->getInteger("memory_bytes"), 768);
  EXPECT_EQ(object->getInteger("weight_bytes"), 512);
  EXPECT_EQ(object->getInteger("peak_activation_bytes"), 256);
  const llvm::json::Array *axes = object->getArray("bytes_per_axes");
  ASSERT_TRUE(axes && axes->size() == 1);
  const llvm::json::Object *entry = (*axes)[0].getAsObject();
  EXPECT_EQ((*entry->getArray("axes"))[0].getAsString(), "model");
  EXPECT_EQ(entry->getInteger("bytes"), 128);
  const llvm::json::Array *ops = object->getArray("ops");
  ASSERT_TRUE(ops && ops->size() == 5);
  const llvm::json::Object *ret = (*ops)[4].getAsObject();
  EXPECT_EQ(ret->getString("op"), "func.return");
  const llvm::json::Object *step = (*ret->getArray("comm"))[0].getAsObject();
  EXPECT_EQ(step->getString("kind"), "all_reduce");
  EXPECT_EQ(step->getInteger("bytes"), 128);
  EXPECT_EQ((*ops)[1].getAsObject()->getString("name"), "h");
}

} // namespace
