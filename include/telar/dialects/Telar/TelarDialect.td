//===- TelarDialect.td - The telar dialect definition ------*- tablegen -*-===//

#ifndef TELAR_DIALECT_TD
#define TELAR_DIALECT_TD

include "mlir/IR/OpBase.td"

def Telar_Dialect : Dialect {
  let name = "telar";
  let cppNamespace = "::mlir::telar";
  let summary = "Tensor-level graph IR for ONNX models";
  let description = [{
    The `telar` dialect holds a neural-network graph after import from ONNX.
    Ops are tensor-level and side-effect free; shapes are static. Ops are
    normalised rather than a mirror of ONNX: `Gemm` becomes `telar.transpose`,
    `telar.matmul`, `telar.mul` and `telar.add`; the opset variants of ops
    whose parameters moved from attributes to inputs (Split, Squeeze,
    Unsqueeze, the Reduce family, Pad, Slice, Clip, Resize, TopK) become one
    op with typed attributes. Each op states its sharding rule, a
    `#telar.sharding_rule` attribute (factors with their sizes and kinds,
    and the factors of every operand and result dimension) returned by
    `ShardingRuleOpInterface::getShardingRule`. `telar-opt
    -test-telar-sharding-rules` prints them.
  }];
  let hasConstantMaterializer = 1;
  let useDefaultAttributePrinterParser = 1;
  let extraClassDeclaration = [{
    /// Registers the attributes of TelarAttrs.td (TelarAttrs.cpp).
    void registerAttributes();

    /// The sharding rules built so far, by op signature (ShardingRule.cpp).
    ::mlir::telar::ShardingRuleCache &getShardingRuleCache() {
      return shardingRuleCache;
    }

  private:
    ::mlir::telar::ShardingRuleCache shardingRuleCache;

  public:
  }];
}

#endif // TELAR_DIALECT_TD
