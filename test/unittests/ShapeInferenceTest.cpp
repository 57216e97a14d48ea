//===- ShapeInferenceTest.cpp - Unit tests of the dialect's C++ helpers ---===//

#include "telar/InitAllTelar.h"
#include "telar/dialects/Telar/TelarOps.h"
#include "telar/sharding/OpSharding.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"

#include <gtest/gtest.h>

using namespace mlir;
using namespace mlir::telar;

namespace {

TEST(ShapeInference, BroadcastShapes) {
  auto b = broadcastShapes({2, 1, 4}, {3, 1});
  ASSERT_TRUE(b.has_value());
  EXPECT_EQ(*b, (SmallVector<int64_t>{2, 3, 4}));
  EXPECT_FALSE(broadcastShapes({2, 3}, {4}).has_value());
  auto scalar = broadcastShapes({}, {5});
  ASSERT_TRUE(scalar.has_value());
  EXPECT_EQ(*scalar, (SmallVector<int64_t>{5}));
}

TEST(ShapeInference, NormalizeAxis) {
  EXPECT_EQ(normalizeAxis(-1, 3), 2);
  EXPECT_EQ(normalizeAxis(0, 3), 0);
  EXPECT_FALSE(normalizeAxis(3, 3).has_value());
  EXPECT_FALSE(normalizeAxis(-4, 3).has_value());
}

TEST(ShapeInference, WindowOutputSize) {
  // ResNet stem: 224, k7 s2 p3 -> 112; max pool k3 s2 p1 -> 56.
  EXPECT_EQ(windowOutputSize(224, 7, 2, 3, 3, 1, false), 112);
  EXPECT_EQ(windowOutputSize(112, 3, 2, 1, 1, 1, false), 56);
  // ceil_mode adds the partial window; dilation widens the kernel.
  EXPECT_EQ(windowOutputSize(5, 2, 2, 0, 0, 1, false), 2);
  EXPECT_EQ(windowOutputSize(5, 2, 2, 0, 0, 1, true), 3);
  EXPECT_EQ(windowOutputSize(7, 3, 1, 0, 0, 2, false), 3);
  EXPECT_LT(windowOutputSize(2, 5, 1, 0, 0, 1, false), 0);
}

class DialectTest : public ::testing::Test {
protected:
  DialectTest() {
    DialectRegistry registry;
    registerAllTelar(registry);
    ctx.appendDialectRegistry(registry);
    ctx.loadAllAvailableDialects();
    module = ModuleOp::create(UnknownLoc::get(&ctx));
    builder.setInsertionPointToEnd(module->getBody());
    auto func = func::FuncOp::create(builder, builder.getUnknownLoc(), "f",
                                     builder.getFunctionType({}, {}));
    body = func.addEntryBlock();
    builder.setInsertionPointToEnd(body);
  }
  Value arg(ArrayRef<int64_t> shape, Type elementType = {}) {
    if (!elementType)
      elementType = builder.getF32Type();
    auto type = RankedTensorType::get(shape, elementType);
    // Arguments of the (unverified) function stand in for graph inputs.
    return body->addArgument(type, builder.getUnknownLoc());
  }
  std::string rule(Operation *op) {
    std::string s;
    llvm::raw_string_ostream os(s);
    Attribute(cast<ShardingRuleOpInterface>(op).getShardingRule()).print(os);
    return s;
  }
  MLIRContext ctx;
  OwningOpRef<ModuleOp> module;
  OpBuilder builder{&ctx};
  Block *body = nullptr;
};

TEST_F(DialectTest, BuildersInferResultTypes) {
  Location loc = builder.getUnknownLoc();
  Value a = arg({4, 16, 64}), b = arg({64});
  auto add = AddOp::create(builder, loc, a, b);
  EXPECT_EQ(add.getType(), RankedTensorType::get({4, 16, 64}, builder.getF32Type()));
  auto sum = ReduceSumOp::create(builder, loc, add, builder.getDenseI64ArrayAttr({-1}),
                                 builder.getBoolAttr(false));
  EXPECT_EQ(sum.getType().getShape(), ArrayRef<int64_t>({4, 16}));
  auto eq = EqualOp::create(builder, loc, a, a);
  EXPECT_TRUE(eq.getType().getElementType().isInteger(1));
}

TEST_F(DialectTest, InferenceFailureIsAnError) {
  Location loc = builder.getUnknownLoc();
  Value a = arg({2, 3}), b = arg({4});
  SmallVector<Type> types;
  std::string message;
  ScopedDiagnosticHandler handler(&ctx, [&](Diagnostic &d) {
    message = d.str();
    return success();
  });
  EXPECT_TRUE(failed(inferBroadcast(loc, {a.getType(), b.getType()}, nullptr, types)));
  EXPECT_NE(message.find("do not broadcast"), std::string::npos) << message;
}

TEST_F(DialectTest, ShardingRules) {
  Location loc = builder.getUnknownLoc();
  Value x = arg({2, 8, 64}), w = arg({64});
  auto add = AddOp::create(builder, loc, x, w);
  EXPECT_EQ(rule(add), "#telar.sharding_rule<([i, j, k], [k]) -> ([i, j, k]) "
                       "{i=2, j=8, k=64} partial_alike={sum}>");
  auto reshape = ReshapeOp::create(builder, loc, add,
                                   builder.getDenseI64ArrayAttr({2, 8, 4, 16}));
  EXPECT_EQ(rule(reshape), "#telar.sharding_rule<([i, j, (k, l)]) -> "
                           "([i, j, k, l]) {i=2, j=8, k=4, l=16} "
                           "partial_alike={any}>");
  auto sum = ReduceSumOp::create(builder, loc, x, builder.getDenseI64ArrayAttr({2}),
                                 builder.getBoolAttr(true));
  EXPECT_EQ(rule(sum), "#telar.sharding_rule<([i, j, k]) -> ([i, j, ()]) "
                       "{i=2, j=8, k=64} reduction={k:sum} "
                       "partial_alike={sum}>");
  auto softmax = SoftmaxOp::create(builder, loc, x, builder.getI64IntegerAttr(-1));
  EXPECT_EQ(rule(softmax), "#telar.sharding_rule<([i, j, k]) -> ([i, j, k]) "
                           "{i=2, j=8, k=64} need_replication={k}>");
}

// The facts the partitioner and the planner read from a rule alone: which
// factors stay whole and which partial operands an op takes.
TEST_F(DialectTest, RuleFactsForPartitioning) {
  using telar_sharding::ReductionKind;
  using telar_sharding::Sharding;
  Location loc = builder.getUnknownLoc();
  auto partial = [](ReductionKind kind) {
    Sharding s = Sharding::getReplicated(2);
    s.partial = {{0, kind}};
    return s;
  };
  Sharding whole = Sharding::getReplicated(2);
  Sharding sum = partial(ReductionKind::Sum), max = partial(ReductionKind::Max);
  auto ruleOf = [](Operation *op) {
    return cast<ShardingRuleOpInterface>(op).getShardingRule();
  };

  // add: every operand partial alike, sums only.
  Value a = arg({4, 8}), b = arg({4, 8});
  ShardingRuleAttr add = ruleOf(AddOp::create(builder, loc, a, b));
  EXPECT_TRUE(acceptsPartialOperands(add, {sum, sum}));
  EXPECT_FALSE(acceptsPartialOperands(add, {sum, whole}));
  EXPECT_FALSE(acceptsPartialOperands(add, {max, max}));
  // matmul: one operand partial, a sum.
  Value w = arg({8, 4});
  ShardingRuleAttr matmul = ruleOf(MatMulOp::create(builder, loc, a, w));
  EXPECT_TRUE(acceptsPartialOperands(matmul, {whole, sum}));
  EXPECT_FALSE(acceptsPartialOperands(matmul, {sum, sum}));
  EXPECT_FALSE(acceptsPartialOperands(matmul, {max, whole}));
  // div: the dividend only.
  ShardingRuleAttr div = ruleOf(DivOp::create(builder, loc, a, b));
  EXPECT_TRUE(acceptsPartialOperands(div, {sum, whole}));
  EXPECT_FALSE(acceptsPartialOperands(div, {whole, sum}));
  // exp: none.
  ShardingRuleAttr exp = ruleOf(ExpOp::create(builder, loc, a));
  EXPECT_FALSE(acceptsPartialOperands(exp, {sum}));

  // Whole factors: need-replication factors and product reductions; the
  // means of integers are need-replication factors, those of floats not.
  auto wholeOf = [&](Operation *op) {
    SmallVector<bool> w = getWholeFactors(ruleOf(op));
    return std::vector<bool>(w.begin(), w.end());
  };
  DenseI64ArrayAttr axis1 = builder.getDenseI64ArrayAttr({1});
  BoolAttr keep = builder.getBoolAttr(false);
  EXPECT_EQ(wholeOf(ReduceProdOp::create(builder, loc, a, axis1, keep)),
            (std::vector<bool>{false, true}));
  EXPECT_EQ(wholeOf(ReduceMeanOp::create(builder, loc, a, axis1, keep)),
            (std::vector<bool>{false, false}));
  Value ints = arg({4, 8}, builder.getI32Type());
  EXPECT_EQ(wholeOf(ReduceMeanOp::create(builder, loc, ints, axis1, keep)),
            (std::vector<bool>{false, true}));
  EXPECT_EQ(wholeOf(SoftmaxOp::create(builder, loc, a,
                                      builder.getI64IntegerAttr(-1))),
            (std::vector<bool>{false, true}));
}

// A rule is built once per op signature: ops that differ only in their
// discardable attributes share it; another shape gets its own.
TEST_F(DialectTest, ShardingRulesAreCached) {
  Location loc = builder.getUnknownLoc();
  ShardingRuleCache &cache =
      ctx.getLoadedDialect<TelarDialect>()->getShardingRuleCache();
  size_t before = cache.size();
  Value a = arg({4, 16}), b = arg({16, 8});
  auto m1 = MatMulOp::create(builder, loc, a, b);
  auto m2 = MatMulOp::create(builder, loc, a, b);
  m1->setAttr("telar.name", builder.getStringAttr("first"));
  m2->setAttr("telar.name", builder.getStringAttr("second"));
  ShardingRuleAttr r1 = m1.getShardingRule();
  EXPECT_EQ(cache.size(), before + 1);
  EXPECT_EQ(m2.getShardingRule(), r1);
  EXPECT_EQ(m1.getShardingRule(), r1);
  EXPECT_EQ(cache.size(), before + 1);
  EXPECT_EQ(r1, m1.buildShardingRule());
  auto m3 = MatMulOp::create(builder, loc, b, arg({8, 2}));
  EXPECT_NE(m3.getShardingRule(), r1);
  EXPECT_EQ(cache.size(), before + 2);
  EXPECT_TRUE(succeeded(verifyShardingRule(m3, m3.getShardingRule())));
  // Inherent attributes are part of the signature: softmax over axis 1 and
  // over axis 0 of one type are two entries with two rules.
  Value x = arg({4, 8});
  auto s1 = SoftmaxOp::create(builder, loc, x, builder.getI64IntegerAttr(1));
  auto s0 = SoftmaxOp::create(builder, loc, x, builder.getI64IntegerAttr(0));
  EXPECT_NE(s1.getShardingRule(), s0.getShardingRule());
  EXPECT_EQ(cache.size(), before + 4);
  // A rule of other types does not verify against this op.
  ScopedDiagnosticHandler quiet(&ctx, [](Diagnostic &) { return success(); });
  EXPECT_TRUE(failed(verifyShardingRule(m3, r1)));
}

TEST_F(DialectTest, FoldsShapeMath) {
  Location loc = builder.getUnknownLoc();
  auto type = RankedTensorType::get({2}, builder.getI64Type());
  Value c = builder.createOrFold<ConstantOp>(
      loc, DenseElementsAttr::get(type, ArrayRef<int64_t>{3, 4}));
  Value prod = builder.createOrFold<MulOp>(loc, c, c);
  auto folded = prod.getDefiningOp<ConstantOp>();
  ASSERT_TRUE(folded);
  auto values = cast<DenseElementsAttr>(folded.getValue()).getValues<int64_t>();
  EXPECT_EQ(SmallVector<int64_t>(values.begin(), values.end()),
            (SmallVector<int64_t>{9, 16}));
}

} // namespace
