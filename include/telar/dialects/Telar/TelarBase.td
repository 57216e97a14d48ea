//===- TelarBase.td - Telar dialect and op base classes ----*- tablegen -*-===//
//
// The `telar` graph dialect: one tensor-level op per ONNX concept, normalised
// so that attribute/input variants across opsets become typed attributes.
//
// Every op carries three facts in its definition:
//  * result-type inference (static shapes, ONNX broadcasting), which is also
//    its verifier: an op whose inferred type disagrees with its declared
//    result type, or whose inference fails, does not verify;
//  * a sharding rule (iterator types plus one indexing map per operand and
//    result, einsum-like), exposed through the upstream `shard` dialect's
//    ShardingInterface so the planner needs no per-op special cases;
//  * a description with an example, from which docs/TelarDialect.md is made.
//
//===----------------------------------------------------------------------===//

#ifndef TELAR_BASE_TD
#define TELAR_BASE_TD

include "mlir/IR/OpBase.td"
include "mlir/IR/AttrTypeBase.td"
include "mlir/Interfaces/InferTypeOpInterface.td"
include "mlir/Interfaces/SideEffectInterfaces.td"
include "mlir/Dialect/Shard/Interfaces/ShardingInterface.td"

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
    "::mlir::StringAttr":$weight
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
    op with typed attributes. Each op states its sharding rule: the loops of
    its iteration space, their kinds, and how they index every operand and
    result. `telar-opt -test-telar-sharding-rules` prints them.

    Besides its ops the dialect owns a few discardable attributes, the
    contract between the importer and the stages after it; the dialect
    verifies where each sits and what it holds:

    | attribute | on | holds |
    | --- | --- | --- |
    | `telar.opset` | the module | the model's ONNX opset (a positive `i64`) |
    | `telar.producer` | the module | the model's producer name and version (a string) |
    | `telar.output_names` | a function | the ONNX output names (strings), one per result; once results became out-parameters (the function returns nothing), one per trailing argument |
    | `telar.name` | a function argument | the ONNX input it binds (a string, unique among the arguments) |
    | `telar.weight` | a function argument | the weight resource it binds (a non-empty string); not on an input (`telar.name`) |

    Any other `telar.*` attribute is an error, as is one of these elsewhere.
  }];
  let hasConstantMaterializer = 1;
  let useDefaultAttributePrinterParser = 0;
}

/// Element types a tensor may hold (ONNX's numeric and boolean types).
def Telar_Tensor : RankedTensorOf<[AnyFloat, AnyInteger]>;
def Telar_FloatTensor : RankedTensorOf<[AnyFloat]>;
/// Integers other than bool: ONNX's int8..int64 and uint8..uint64.
def Telar_Int : AnyTypeOf<[SignlessIntOfWidths<[8, 16, 32, 64]>,
                           UnsignedIntOfWidths<[8, 16, 32, 64]>],
                          "8- to 64-bit integer">;
def Telar_IntTensor : RankedTensorOf<[Telar_Int]>;
/// What arithmetic accepts: floats and integers, not bool.
def Telar_NumericTensor : RankedTensorOf<[AnyFloat, Telar_Int]>;
def Telar_BoolTensor : RankedTensorOf<[I1]>;
def Telar_IndexTensor : RankedTensorOf<[I32, I64]>;

/// Base class. `inferBody` and `ruleBody` are C++ statement bodies; when left
/// empty the op defines `inferReturnTypes` / `getShardingRule` in C++.
class Telar_Op<string mnemonic, list<Trait> traits = []>
    : Op<Telar_Dialect, mnemonic,
         traits # [Pure, InferTypeOpAdaptor,
                   DeclareOpInterfaceMethods<ShardingInterface,
                     ["getLoopIteratorTypes", "getIndexingMaps",
                      "getReductionLoopIteratorKinds"]>]> {
  code inferBody = "";
  code ruleBody = "";
  let assemblyFormat =
      "operands attr-dict `:` functional-type(operands, results)";
  let extraClassDeclaration = [{
    /// The op's sharding rule: loops, their kinds, and per-operand/result
    /// indexing maps (results after operands).
    ::mlir::telar::ShardingRule getShardingRule();
  }];
  let extraClassDefinition = !strconcat(
      !if(!empty(inferBody), "", !strconcat([{
    ::llvm::LogicalResult $cppClass::inferReturnTypes(
        ::mlir::MLIRContext *context, ::std::optional<::mlir::Location> location,
        Adaptor adaptor, ::llvm::SmallVectorImpl<::mlir::Type> &inferredReturnTypes) {
      }], inferBody, "\n}\n")),
      !if(!empty(ruleBody), "", !strconcat([{
    ::mlir::telar::ShardingRule $cppClass::getShardingRule() {
      }], ruleBody, "\n}\n")), [{
    ::llvm::SmallVector<::mlir::utils::IteratorType> $cppClass::getLoopIteratorTypes() {
      return getShardingRule().iterators;
    }
    ::llvm::SmallVector<::mlir::AffineMap> $cppClass::getIndexingMaps() {
      return getShardingRule().maps;
    }
    ::llvm::SmallVector<::mlir::shard::ReductionKind> $cppClass::getReductionLoopIteratorKinds() {
      return getShardingRule().reductionKinds;
    }
  }]);
}

#endif // TELAR_BASE_TD
