//===- TestShardingRules.cpp - Print sharding rules as remarks -----------===//

#include "telar/dialects/Telar/TelarOps.h"
#include "TestPasses.h"

#include "mlir/AsmParser/AsmParser.h"

namespace mlir::telar {
#define GEN_PASS_DEF_TESTTELARSHARDINGRULES
#include "TestPasses.h.inc"
} // namespace mlir::telar

using namespace mlir;

namespace {
struct TestTelarShardingRules
    : public telar::impl::TestTelarShardingRulesBase<TestTelarShardingRules> {
  void runOnOperation() override {
    bool ok = true;
    getOperation()->walk([&](Operation *op) {
      // A rule given by hand (on any op, e.g. an unregistered one), checked
      // against that op's types: the verifier's lit tests.
      if (auto given = op->getAttrOfType<telar::ShardingRuleAttr>(
              "sharding_rule")) {
        if (failed(telar::verifyShardingRule(op, given)))
          ok = false;
        else
          op->emitRemark() << "sharding rule matches the op's types";
      }
      if (!isa_and_nonnull<telar::TelarDialect>(op->getDialect()))
        return;
      auto shardable = dyn_cast<telar::ShardingRuleOpInterface>(op);
      if (!shardable) {
        op->emitError("telar op without a sharding rule");
        ok = false;
        return;
      }
      telar::ShardingRuleAttr rule = shardable.getShardingRule();
      if (failed(telar::verifyShardingRule(op, rule))) {
        ok = false;
        return;
      }
      std::string text;
      llvm::raw_string_ostream os(text);
      static_cast<Attribute>(rule).print(os);
      // What is printed must parse back to the same rule.
      if (parseAttribute(text, op->getContext()) != rule) {
        op->emitError("sharding rule does not round-trip: ") << text;
        ok = false;
        return;
      }
      op->emitRemark() << text;
    });
    if (!ok)
      signalPassFailure();
  }
};
} // namespace
