//===- TestShardingRules.cpp - Print sharding rules as remarks -----------===//

#include "telar/dialects/Telar/TelarOps.h"
#include "TestPasses.h"

namespace mlir::telar {
#define GEN_PASS_DEF_TESTTELARSHARDINGRULES
#include "TestPasses.h.inc"
} // namespace mlir::telar

using namespace mlir;

namespace {
struct TestTelarShardingRules
    : public telar::impl::TestTelarShardingRulesBase<TestTelarShardingRules> {
  void runOnOperation() override {
    getOperation()->walk([](Operation *op) {
      if (!isa<telar::TelarDialect>(op->getDialect()))
        return;
      auto shardable = dyn_cast<shard::ShardingInterface>(op);
      if (!shardable)
        return;
      telar::ShardingRule rule;
      rule.iterators = shardable.getLoopIteratorTypes();
      rule.maps = shardable.getIndexingMaps();
      rule.reductionKinds = shardable.getReductionLoopIteratorKinds();
      std::string text;
      llvm::raw_string_ostream os(text);
      rule.print(os, op->getNumOperands());
      op->emitRemark() << text;
    });
  }
};
} // namespace
