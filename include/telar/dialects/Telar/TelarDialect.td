//===- TelarDialect.td - The telar dialect definition ------*- tablegen -*-===//

#ifndef TELAR_DIALECT_TD
#define TELAR_DIALECT_TD

include "mlir/IR/OpBase.td"

def Telar_Dialect : Dialect {
  let name = "telar";
  let cppNamespace = "::mlir::telar";
  // The discardable attributes the importer attaches and later stages read
  // (`telar.<name>`). Each gets a generated `<Name>AttrHelper` on the dialect
  // class; its static `getNameStr()` is the one spelling of the name in C++.
  // The argument attributes (`name`, `weight`) use only `getNameStr()`: the
  // helpers' typed accessors are for attributes on operations. Where each
  // may appear and what it holds is checked in TelarDialect.cpp.
  let discardableAttrs = (ins
    "::mlir::IntegerAttr":$opset,
    "::mlir::StringAttr":$producer,
    "::mlir::ArrayAttr":$output_names,
    "::mlir::StringAttr":$name,
    "::mlir::StringAttr":$weight,
    "::mlir::UnitAttr":$runtime_context,
    "::mlir::UnitAttr":$runtime_status,
    "::mlir::ArrayAttr":$result_names,
    "::mlir::ArrayAttr":$axis_names,
    "::mlir::DictionaryAttr":$partial,
    "::mlir::ArrayAttr":$sharding,
    "::mlir::DenseI64ArrayAttr":$global_shape,
    "::mlir::IntegerAttr":$bytes,
    "::mlir::Attribute":$target,
    "::mlir::StringAttr":$updates,
    "::mlir::DictionaryAttr":$training,
    "::mlir::StringAttr":$phase,
    "::mlir::ArrayAttr":$gpu_kernels
  );
  let hasOperationAttrVerify = 1;
  let hasRegionArgAttrVerify = 1;
  let hasRegionResultAttrVerify = 1;
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

    Besides its ops the dialect owns a few discardable attributes, the
    contract between the importer and the stages after it; the dialect
    verifies where each sits and what it holds:

    | attribute | on | holds |
    | --- | --- | --- |
    | `telar.opset` | the module | the model's ONNX opset (a positive `i64`) |
    | `telar.producer` | the module | the model's producer name and version (a string) |
    | `telar.target` | the module | the code target the program is translated for (a `#telar.target`), attached by the target's translation |
    | `telar.output_names` | a function | the ONNX output names (strings), one per result; once results became out-parameters (the function returns nothing), one per trailing argument |
    | `telar.name` | a function argument | the ONNX input it binds (a string, unique among the arguments) |
    | `telar.weight` | a function argument | the weight resource it binds (a non-empty string); not on an input (`telar.name`) |
    | `telar.runtime_context` | a function argument | unit: the runtime context pointer (`!llvm.ptr`) of a lowered program (`telar-add-runtime-context`); on a declaration's argument, where callers pass theirs (`telar-lower-collectives`) |
    | `telar.runtime_status` | a function | unit: a runtime function returning an `i32` status (`telar-linalg-to-library-calls`) |
    | `telar.result_names` | an operation | the ONNX tensor names of its results (strings, one per result; `""` for a result that is no ONNX value), so that plans can name values |
    | `telar.axis_names` | a `shard.grid` | the mesh axis names (strings, one per grid axis, unique) |
    | `telar.partial` | a `shard.sharding` | the axes whose reduction is pending: axis name to `"sum"`, `"max"` or `"min"` |
    | `telar.sharding` | a function argument or result | of a partitioned program: the mesh axes (names) that split each dimension of the global tensor, major to minor |
    | `telar.global_shape` | a function argument or result | of a partitioned program: the tensor's global shape (`array<i64: ...>`) |
    | `telar.updates` | a function result (an out-parameter once results became ones) | of a training step: the `telar.variable` (its name) whose value the result replaces once the step has run |
    | `telar.training` | the module | of a training step: the loss (`loss`, the output name), the optimizer (`optimizer`), its hyper-parameters (numbers) and the trained parameters (`parameters`, their variables' names), as `telar-build-training-step` built it; the artifact's manifest records it |
    | `telar.phase` | an operation | of a training step: `"backward"` or `"optimizer"`, the phase of the step that built it (the forward's ops have none), for `telarc --explain` |
    | `telar.gpu_kernels` | the module | of a GPU program's host code: its kernel table (`@module::@function` symbol references, each once), whose indices its `telarrt_gpu_launch` calls pass (`telar-gpu-launches-to-runtime`); the artifact's manifest lists it |
    | `telar.bytes` | a `shard` collective | of a partitioned program: the bytes each rank sends in it (a non-negative `i64`), as the resharding step it comes from priced it |

    Any other `telar.*` attribute is an error, as is one of these elsewhere.
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
