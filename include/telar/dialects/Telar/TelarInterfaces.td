//===- TelarInterfaces.td - Telar op interfaces ------------*- tablegen -*-===//

#ifndef TELAR_INTERFACES_TD
#define TELAR_INTERFACES_TD

include "mlir/IR/OpBase.td"

def Telar_ShardingRuleOpInterface : OpInterface<"ShardingRuleOpInterface"> {
  let cppNamespace = "::mlir::telar";
  let description = [{
    An op that states how it may be split: its `#telar.sharding_rule`
    (factors, their sizes and kinds, and the factors of every operand and
    result dimension). The planner and the partitioner read rules only
    through `getShardingRule`, which builds an op's rule once per op
    signature (name, inherent attributes, operand and result types) and
    caches it in the dialect; `buildShardingRule` is the per-op builder.
  }];
  let methods = [
    InterfaceMethod<
      "Builds the op's sharding rule from its types and attributes (not "
      "cached: call getShardingRule).",
      "::mlir::telar::ShardingRuleAttr", "buildShardingRule">,
    InterfaceMethod<
      "The op's sharding rule, built once per op signature and cached.",
      "::mlir::telar::ShardingRuleAttr", "getShardingRule", (ins), [{}], [{
        return ::mlir::telar::getCachedShardingRule($_op.getOperation());
      }]>,
  ];
}

#endif // TELAR_INTERFACES_TD
