//===- TelarAttrs.td - Telar dialect attributes ------------*- tablegen -*-===//
//
// The typed attributes of the telar dialect: the sharding rule every op
// states (#telar.sharding_rule), the parsed einsum equation (#telar.einsum)
// and the code target a program is generated for (#telar.target).
//
//===----------------------------------------------------------------------===//

#ifndef TELAR_ATTRS_TD
#define TELAR_ATTRS_TD

include "telar/dialects/Telar/TelarDialect.td"
include "mlir/IR/AttrTypeBase.td"

class Telar_Attr<string name, list<Trait> traits = []>
    : AttrDef<Telar_Dialect, name, traits>;

//===----------------------------------------------------------------------===//
// Sharding rules
//===----------------------------------------------------------------------===//

def Telar_DimMappingAttr : Telar_Attr<"DimMapping"> {
  let attrName = "telar.dim_mapping";
  let summary = "the factors of one tensor dimension (part of a sharding rule)";
  let description = [{
    The factors whose product is the dimension, major to minor (no factor
    for a size-1 dimension that nothing indexes). With `broadcast`, the
    dimension has size 1 and is broadcast against its single factor: it is
    not split when that factor is, every device holds the one element.
    Printed only inside `#telar.sharding_rule`.
  }];
  let parameters = (ins ArrayRefParameter<"int64_t">:$factors,
                        "bool":$broadcast);
  let genVerifyDecl = 1;
}

def Telar_TensorMappingAttr : Telar_Attr<"TensorMapping"> {
  let attrName = "telar.tensor_mapping";
  let summary = "the factors of each dimension of one tensor (part of a sharding rule)";
  let description = [{
    One `DimMappingAttr` per dimension of an operand or result. Printed only
    inside `#telar.sharding_rule`.
  }];
  let parameters = (ins ArrayRefParameter<"DimMappingAttr">:$dims);
  let extraClassDeclaration = [{
    int64_t getRank() const { return getDims().size(); }
  }];
}

def Telar_ShardingRuleAttr : Telar_Attr<"ShardingRule"> {
  let mnemonic = "sharding_rule";
  let summary = "how an op's operands and results may be split: factors and their kinds";
  let description = [{
    An op's sharding rule, after Shardy's `OpShardingRuleAttr`: the op's
    iteration space as a list of *factors* (each with a size), and for every
    dimension of every operand and result the factors it is made of. A
    planner splits factors across mesh axes; every tensor dimension that
    holds a factor is then split with it.

    ```
    rule    ::= `<` `(` tensors? `)` `->` `(` tensors? `)` `{` sizes? `}`
                (`reduction` `=` `{` factor `:` kind (`,` factor `:` kind)* `}`)?
                (`need_replication` `=` `{` factor (`,` factor)* `}`)?
                partial? `>`
    tensors ::= tensor (`,` tensor)*
    tensor  ::= `[` (dim (`,` dim)*)? `]`           one entry per dimension
    dim     ::= factor                              the dimension is that factor
              | `(` (factor (`,` factor)*)? `)`     a product, major to minor;
                                                    `()` is a size-1 dimension
                                                    that no factor indexes
              | `bcast` `(` factor `)`              a size-1 dimension broadcast
                                                    against the factor
    sizes   ::= factor `=` (integer | `?`) (`,` factor `=` (integer | `?`))*
    kind    ::= `sum` | `max` | `min` | `mean` | `prod`
    partial ::= `partial_alike` `=` `{` kinds `}`
              | `partial_one` `=` `{` operand `:` kinds (`,` operand `:` kinds)* `}`
    kinds   ::= `any` | pkind (`|` pkind)*           `any`: sum|max|min|prod
    pkind   ::= `sum` | `max` | `min` | `prod`
    operand ::= integer                             an operand's position
    ```

    Factor names are `i`, `j`, ..., `z`, then `i_1`, ..., when printed; any
    bare identifier declared in the sizes block parses. Every factor has one
    kind:

    * *parallel* (the default): each device computes its block of the
      results from its blocks of the operands, no communication;
    * *reduction* (`reduction={k:sum}`): the factor indexes operands only
      and is summed (max, min, mean, product) away; split, each device holds
      a partial result that an all-reduce of that kind completes (`mean`
      averages partial means of equal-sized blocks);
    * *need replication* (`need_replication={k}`): the factor must not be
      split; every tensor dimension that holds it stays whole. Used for
      axes whose elements depend on the whole axis (softmax's axis, the
      reduced axis of arg_max, a non-combinable reduction such as
      reduce_l2, the depth of one_hot), for axes whose elements move
      (concat, pad, slice, gather's gathered axis), and for the input
      windows of convolutions and pools, whose input spatial dimensions are
      factors of their own, kept whole (the partitioner is never told that
      a halo-less split of a window is exact). Such an op may still have
      parallel factors of its own on the results (a pool's output rows):
      each device computes its block of the output from the whole input.

    A factor *stays whole* (the partitioner never splits it, whatever a
    plan says; the planner offers no strategy that does) when it is a
    need-replication factor or a `prod` reduction: a split product would
    leave partial products, which no sharding annotation holds. Ops whose
    partial results would not combine exactly make their reduced factors
    need-replication factors instead of reductions (reduce_mean of
    integers, reduce_l2, arg_max).

    *Partial operands.* An operand may arrive *partial*: each device holds
    a term of a pending reduction (sum, max, min or product) over some mesh
    axes, left by a split reduction factor upstream. An op takes such an
    operand without completing the reduction first only where the rule
    says so, and its results are then partial on the same axes and kinds:

    * `partial_alike={kinds}`: if any operand is partial, every operand is,
      with the same mesh axes and kinds, each kind one of `kinds` (the op
      commutes with that reduction in all its operands together: `add` and
      `sub` with sums, `max` with maxima, a reshape or concat with any
      kind; a whole operand among partial ones would enter the reduction
      once per term);
    * `partial_one={0:kinds, 1:kinds}`: exactly one operand, one of those
      listed, is partial, with one of its listed kinds (the op is linear in
      that operand alone: either side of `matmul` or `mul`, the dividend of
      `div`, the input of a convolution without bias, the data of a gather).

    Without either clause an op takes no partial operand: the reduction is
    completed (an all-reduce) before it.

    A reshape that merges or splits dimensions is a product of factors:
    `tensor<2x12>` to `tensor<6x4>` is `([i, (j, k)]) -> ([(i, j), k])`
    with `i=2, j=3, k=4`. A dimension's factors are major to minor, so
    splitting the major one is a block split of the dimension; splitting a
    minor one alone is a strided split, which the partitioner allows only
    when every more major factor of the dimension is split completely.

    Verification (here, for the attribute alone): sizes are positive or
    `?`; a factor appears at most once per tensor, in some tensor other
    than as a broadcast; a reduction factor appears in no result; a factor
    of unknown size is the only factor of its dimensions; `partial_one`
    names each operand at most once, every index an operand of the rule;
    the kinds are partial kinds (not `mean`). Against an op's
    types (`verifyShardingRule`): one tensor per operand and result, one
    entry per dimension, the product of a static dimension's factor sizes
    is its size (none of them `?`), a dimension of unknown size is one
    factor, and broadcast dimensions have size 1.

    Example, `telar.matmul` of `tensor<4x16xf32>` and `tensor<16x8xf32>`:

    ```mlir
    #telar.sharding_rule<([i, k], [k, j]) -> ([i, j]) {i=4, j=8, k=16} reduction={k:sum} partial_one={0:sum, 1:sum}>
    ```

    and `telar.add` of `tensor<4x1xf32>` and `tensor<8xf32>`:

    ```mlir
    #telar.sharding_rule<([i, bcast(j)], [j]) -> ([i, j]) {i=4, j=8} partial_alike={sum}>
    ```
  }];
  // `partialKinds`: per operand, the partial kinds it may arrive with (bits
  // getPartialKindBit), empty when no operand may be partial; `onePartial`:
  // at most one of them is (partial_one), else all alike (partial_alike).
  let parameters = (ins ArrayRefParameter<"int64_t">:$factorSizes,
                        ArrayRefParameter<"::mlir::telar::FactorKind">:$factorKinds,
                        ArrayRefParameter<"TensorMappingAttr">:$operandMappings,
                        ArrayRefParameter<"TensorMappingAttr">:$resultMappings,
                        ArrayRefParameter<"::mlir::telar::PartialKindSet">:$partialKinds,
                        "bool":$onePartial);
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    int64_t getNumFactors() const { return getFactorSizes().size(); }
    ::mlir::telar::FactorKind getKind(int64_t factor) const {
      return getFactorKinds()[factor];
    }
    /// Whether factor `factor` stays whole whatever a plan says: a
    /// need-replication factor or a product reduction.
    bool isWholeFactor(int64_t factor) const {
      ::mlir::telar::FactorKind kind = getKind(factor);
      return kind == ::mlir::telar::FactorKind::NeedReplication ||
             kind == ::mlir::telar::FactorKind::Prod;
    }
    /// The partial kinds operand `i` may arrive with (none: 0).
    ::mlir::telar::PartialKindSet getPartialKindsOf(unsigned i) const {
      return getPartialKinds().empty() ? 0 : getPartialKinds()[i];
    }
    /// Whether some operand may arrive partial.
    bool acceptsPartialOperands() const {
      return !getPartialKinds().empty();
    }
    /// This rule with the partial operands `kinds` (one set per operand,
    /// empty: none) taken alike or one at a time (`one`).
    ShardingRuleAttr
    withPartialOperands(::llvm::ArrayRef<::mlir::telar::PartialKindSet> kinds,
                        bool one) const;
    /// The printed name of factor `i`: `i`..`z`, then `i_1`, ...
    static std::string getFactorName(int64_t i);
    /// Checks the rule against the types of an op's operands and results;
    /// reports the first mismatch through `emitError`.
    ::llvm::LogicalResult
    verifyTypes(::mlir::TypeRange operands, ::mlir::TypeRange results,
                ::llvm::function_ref<::mlir::InFlightDiagnostic()> emitError) const;
  }];
}

//===----------------------------------------------------------------------===//
// Einsum equations
//===----------------------------------------------------------------------===//

def Telar_EinsumEquationAttr : Telar_Attr<"EinsumEquation"> {
  let mnemonic = "einsum";
  let summary = "an explicit einsum equation: labels per operand and of the output";
  let description = [{
    The equation of `telar.einsum`, parsed once (by the importer, from
    ONNX's string, with implicit outputs made explicit and `...` expanded
    into letters for the static ranks) and read by inference, the sharding
    rule and the lowering. Labels are the letters `a`-`z` and `A`-`Z`; each
    operand lists one label per dimension, the output lists the labels it
    keeps, each at most once and each present in some operand. Labels not
    on the output are summed.

    ```mlir
    #telar.einsum<[b, s, d], [e, d, h] -> [b, s, e, h]>
    #telar.einsum<[i, i] -> []>
    ```
  }];
  let parameters = (ins "::mlir::ArrayAttr":$inputs,
                        "::mlir::DenseI64ArrayAttr":$output);
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
  let builders = [
    AttrBuilder<(ins "::llvm::ArrayRef<::llvm::SmallVector<int64_t>>":$inputs,
                     "::llvm::ArrayRef<int64_t>":$output)>
  ];
  let extraClassDeclaration = [{
    /// Labels 0-25 are `a`-`z`, 26-51 `A`-`Z`.
    static constexpr int64_t kNumLabels = 52;
    static char getLabelLetter(int64_t label);
    static std::optional<int64_t> getLabelOfLetter(char letter);
    size_t getNumInputs() const { return getInputs().size(); }
    ::llvm::ArrayRef<int64_t> getInputLabels(size_t i) const;
    ::llvm::ArrayRef<int64_t> getOutputLabels() const { return getOutput().asArrayRef(); }
    /// The equation in ONNX's explicit form, e.g. `bsd,edh->bseh`.
    std::string str() const;
  }];
}

//===----------------------------------------------------------------------===//
// Code targets
//===----------------------------------------------------------------------===//

def Telar_TargetAttr : Telar_Attr<"Target"> {
  let mnemonic = "target";
  let summary = "the device a program's code is generated for: kind, chip, features";
  let description = [{
    What a code target generates for, after MLIR's GPU target attributes
    (`#nvvm.target<chip = ..., features = ...>`): the target's kind (the
    name `telarc --target` selects, and the runtime's device), the LLVM
    target triple, the chip (a CPU name such as `sapphirerapids` or
    `x86-64-v3` for the CPU; a GPU architecture such as `sm_90` for a GPU)
    and the LLVM features it may use (`+avx512f,-amx-tile,...`; empty: the
    chip's own). A target's translation attaches it to the module as
    `telar.target` (`telar-set-cpu-target` for the CPU) once `--cpu=native`
    or the like is resolved, so the printed IR says what it was made for;
    its code generation reads it, and the manifest records it
    (docs/Artifact.md), from which the runtime picks its device.

    ```mlir
    module attributes {telar.target = #telar.target<"cpu",
        triple = "x86_64-pc-linux-gnu", chip = "x86-64-v3", features = "">} {
    }
    ```
  }];
  let parameters = (ins StringRefParameter<"target kind">:$kind,
                        StringRefParameter<"LLVM target triple">:$triple,
                        StringRefParameter<"chip">:$chip,
                        StringRefParameter<"LLVM target features">:$features);
  let assemblyFormat = "`<` $kind `,` struct($triple, $chip, $features) `>`";
}

#endif // TELAR_ATTRS_TD
