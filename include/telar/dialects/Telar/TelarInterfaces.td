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

def Telar_GradientOpInterface : OpInterface<"GradientOpInterface"> {
  let cppNamespace = "::mlir::telar";
  let description = [{
    An op that states its vector-Jacobian product (VJP) in telar ops: given
    the gradients of its results (the loss's derivative with respect to
    each), it builds the gradients of its operands. Reverse-mode autodiff
    (`telar-build-training-step`, passes/autodiff) calls it on every op
    between the trainable variables and the loss, last op first. The
    models are attached by the autodiff library, one file per op family
    (passes/autodiff/*Gradients.cpp), as external models: the dialect
    itself knows nothing of training.
  }];
  let methods = [
    InterfaceMethod<
      "Builds the gradients of the op's operands at the builder's insertion "
      "point. `resultGradients` has one value per result, of the result's "
      "type, or null for a result the loss does not depend on (at least one "
      "is set). Fills `operandGradients` with one value per operand, of the "
      "operand's type, or null where the operand has no gradient (integer "
      "and boolean operands, indices). Fails, with an error on the op, for "
      "a case its VJP does not cover.",
      "::llvm::LogicalResult", "buildGradients",
      (ins "::mlir::OpBuilder &":$builder,
           "::llvm::ArrayRef<::mlir::Value>":$resultGradients,
           "::llvm::SmallVectorImpl<::mlir::Value> &":$operandGradients)>,
  ];
}

#endif // TELAR_INTERFACES_TD
