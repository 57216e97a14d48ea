//===- TelarBase.td - Telar dialect and op base classes ----*- tablegen -*-===//
//
// The `telar` graph dialect: one tensor-level op per ONNX concept, normalised
// so that attribute/input variants across opsets become typed attributes.
//
// Every op carries three facts in its definition:
//  * result-type inference (static shapes, ONNX broadcasting), which is also
//    its verifier: an op whose inferred type disagrees with its declared
//    result type, or whose inference fails, does not verify;
//  * a sharding rule, a `#telar.sharding_rule` attribute (factors with
//    sizes and kinds; the factors of every operand and result dimension)
//    returned by ShardingRuleOpInterface, so the planner needs no per-op
//    special cases;
//  * a description with an example, from which docs/TelarDialect.md is made.
//
//===----------------------------------------------------------------------===//

#ifndef TELAR_BASE_TD
#define TELAR_BASE_TD

include "mlir/IR/OpBase.td"
include "mlir/Interfaces/InferTypeOpInterface.td"
include "mlir/Interfaces/SideEffectInterfaces.td"
include "telar/dialects/Telar/TelarDialect.td"
include "telar/dialects/Telar/TelarAttrs.td"
include "telar/dialects/Telar/TelarInterfaces.td"

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
/// empty the op defines `inferReturnTypes` / `buildShardingRule` in C++.
///
/// The ops do not claim upstream's `shard::ShardingInterface`: its indexing
/// maps must be projected permutations, which reshapes (products of
/// factors) and windows are not, it cannot say that a factor must stay
/// whole, and its methods left to defaults (`partition`) replicate. The
/// planner reads `ShardingRuleOpInterface` instead.
class Telar_Op<string mnemonic, list<Trait> traits = []>
    : Op<Telar_Dialect, mnemonic,
         traits # [Pure, InferTypeOpAdaptor,
                   DeclareOpInterfaceMethods<Telar_ShardingRuleOpInterface>]> {
  code inferBody = "";
  code ruleBody = "";
  let assemblyFormat =
      "operands attr-dict `:` functional-type(operands, results)";
  let extraClassDefinition = !strconcat(
      !if(!empty(inferBody), "", !strconcat([{
    ::llvm::LogicalResult $cppClass::inferReturnTypes(
        ::mlir::MLIRContext *context, ::std::optional<::mlir::Location> location,
        Adaptor adaptor, ::llvm::SmallVectorImpl<::mlir::Type> &inferredReturnTypes) {
      }], inferBody, "\n}\n")),
      !if(!empty(ruleBody), "", !strconcat([{
    ::mlir::telar::ShardingRuleAttr $cppClass::buildShardingRule() {
      }], ruleBody, "\n}\n")));
}

#endif // TELAR_BASE_TD
