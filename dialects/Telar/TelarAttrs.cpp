//===- TelarAttrs.cpp - #telar.sharding_rule and #telar.einsum ------------===//
//
// Syntax, verification and accessors of the dialect's attributes; the
// grammar is documented in TelarAttrs.td.
//
//===----------------------------------------------------------------------===//

#include "telar/dialects/Telar/TelarAttrs.h"
#include "telar/dialects/Telar/TelarDialect.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::telar;

#define GET_ATTRDEF_CLASSES
#include "telar/dialects/Telar/TelarAttrs.cpp.inc"

void TelarDialect::registerAttributes() {
  addAttributes<
#define GET_ATTRDEF_LIST
#include "telar/dialects/Telar/TelarAttrs.cpp.inc"
      >();
}

//===----------------------------------------------------------------------===//
// Factor kinds
//===----------------------------------------------------------------------===//

StringRef mlir::telar::stringifyFactorKind(FactorKind kind) {
  switch (kind) {
  case FactorKind::Parallel:
    return "parallel";
  case FactorKind::Sum:
    return "sum";
  case FactorKind::Max:
    return "max";
  case FactorKind::Min:
    return "min";
  case FactorKind::Mean:
    return "mean";
  case FactorKind::Prod:
    return "prod";
  case FactorKind::NeedReplication:
    return "need_replication";
  }
  llvm_unreachable("unknown factor kind");
}

std::optional<FactorKind> mlir::telar::parseReductionKind(StringRef name) {
  for (FactorKind k : {FactorKind::Sum, FactorKind::Max, FactorKind::Min,
                       FactorKind::Mean, FactorKind::Prod})
    if (stringifyFactorKind(k) == name)
      return k;
  return std::nullopt;
}

//===----------------------------------------------------------------------===//
// DimMappingAttr
//===----------------------------------------------------------------------===//

LogicalResult
DimMappingAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                       ArrayRef<int64_t> factors, bool broadcast) {
  if (broadcast && factors.size() != 1)
    return emitError() << "a broadcast dimension is broadcast against exactly "
                          "one factor, got "
                       << factors.size();
  return success();
}

//===----------------------------------------------------------------------===//
// ShardingRuleAttr
//===----------------------------------------------------------------------===//

std::string ShardingRuleAttr::getFactorName(int64_t i) {
  static constexpr StringLiteral letters = "ijklmnopqrstuvwxyz";
  std::string name(1, letters[i % letters.size()]);
  if (int64_t round = i / letters.size())
    name += "_" + std::to_string(round);
  return name;
}

LogicalResult
ShardingRuleAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                         ArrayRef<int64_t> sizes, ArrayRef<FactorKind> kinds,
                         ArrayRef<TensorMappingAttr> operands,
                         ArrayRef<TensorMappingAttr> results,
                         ArrayRef<PartialKindSet> partialKinds,
                         bool onePartial) {
  int64_t n = sizes.size();
  if (static_cast<int64_t>(kinds.size()) != n)
    return emitError() << "has " << n << " factor sizes but " << kinds.size()
                       << " factor kinds";
  for (auto [f, size] : llvm::enumerate(sizes))
    if (!ShapedType::isDynamic(size) && size < 1)
      return emitError() << "factor " << getFactorName(f)
                         << " must have a positive size, got " << size;
  SmallVector<bool> used(n, false);
  auto checkTensors = [&](ArrayRef<TensorMappingAttr> tensors,
                          bool isResult) -> LogicalResult {
    for (auto [t, tensor] : llvm::enumerate(tensors)) {
      auto where = [&, t = t]() {
        return emitError() << (isResult ? "result " : "operand ") << t << ": ";
      };
      SmallVector<bool> inTensor(n, false);
      for (DimMappingAttr dim : tensor.getDims()) {
        for (int64_t f : dim.getFactors()) {
          if (f < 0 || f >= n)
            return where() << "factor #" << f << " is out of range (" << n
                           << " factors)";
          if (inTensor[f])
            return where() << "factor " << getFactorName(f)
                           << " appears twice in one tensor";
          inTensor[f] = true;
          if (isResult && isReduction(kinds[f]))
            return where() << "reduction factor " << getFactorName(f)
                           << " must not index a result";
          if (ShapedType::isDynamic(sizes[f]) && dim.getFactors().size() != 1)
            return where() << "factor " << getFactorName(f)
                           << " of unknown size must be the only factor of "
                              "its dimension";
          if (!dim.getBroadcast())
            used[f] = true;
        }
      }
    }
    return success();
  };
  if (failed(checkTensors(operands, false)) ||
      failed(checkTensors(results, true)))
    return failure();
  for (int64_t f = 0; f < n; ++f)
    if (!used[f])
      return emitError() << "factor " << getFactorName(f)
                         << " is a dimension of no tensor";
  if (partialKinds.empty())
    return success();
  if (partialKinds.size() != operands.size())
    return emitError() << "has partial kinds for " << partialKinds.size()
                       << " operands but " << operands.size() << " operands";
  for (auto [i, kinds] : llvm::enumerate(partialKinds)) {
    if (kinds & ~kAnyPartialKind)
      return emitError() << "operand " << i
                         << ": partial kinds are sum, max, min and prod";
    if (!onePartial && kinds != partialKinds.front())
      return emitError() << "partial_alike: operand " << i
                         << " takes other kinds than operand 0";
  }
  if (llvm::all_of(partialKinds, [](PartialKindSet k) { return k == 0; }))
    return emitError() << "has partial kinds that accept no kind";
  return success();
}

ShardingRuleAttr
ShardingRuleAttr::withPartialOperands(ArrayRef<PartialKindSet> kinds,
                                      bool one) const {
  return get(getContext(), getFactorSizes(), getFactorKinds(),
             getOperandMappings(), getResultMappings(), kinds, one);
}

/// `any`, or the kinds joined by `|`.
static void printPartialKinds(AsmPrinter &p, PartialKindSet kinds) {
  if (kinds == kAnyPartialKind) {
    p << "any";
    return;
  }
  bool first = true;
  for (FactorKind k : {FactorKind::Sum, FactorKind::Max, FactorKind::Min,
                       FactorKind::Prod})
    if (kinds & getPartialKindBit(k)) {
      if (!first)
        p << '|';
      p << stringifyFactorKind(k);
      first = false;
    }
}

static ParseResult parsePartialKinds(AsmParser &p, PartialKindSet &kinds) {
  kinds = 0;
  if (succeeded(p.parseOptionalKeyword("any"))) {
    kinds = kAnyPartialKind;
    return success();
  }
  do {
    SMLoc loc = p.getCurrentLocation();
    StringRef name;
    if (p.parseKeyword(&name))
      return failure();
    std::optional<FactorKind> kind = parseReductionKind(name);
    if (!kind || *kind == FactorKind::Mean)
      return p.emitError(loc, "unknown partial kind '")
             << name << "' (sum, max, min, prod, any)";
    kinds |= getPartialKindBit(*kind);
  } while (succeeded(p.parseOptionalVerticalBar()));
  return success();
}

LogicalResult ShardingRuleAttr::verifyTypes(
    TypeRange operands, TypeRange results,
    function_ref<InFlightDiagnostic()> emitError) const {
  ArrayRef<int64_t> sizes = getFactorSizes();
  auto check = [&](ArrayRef<TensorMappingAttr> mappings, TypeRange types,
                   StringRef what) -> LogicalResult {
    if (mappings.size() != types.size())
      return emitError() << "sharding rule has " << mappings.size() << " "
                         << what << "s but the op has " << types.size();
    for (auto [i, mapping, type] : llvm::enumerate(mappings, types)) {
      auto tensor = dyn_cast<RankedTensorType>(type);
      if (!tensor)
        return emitError() << "sharding rule: " << what << " " << i
                           << " is not a ranked tensor";
      if (mapping.getRank() != tensor.getRank())
        return emitError() << "sharding rule: " << what << " " << i << " has "
                           << mapping.getRank() << " dimensions but its type "
                           << type << " has rank " << tensor.getRank();
      for (auto [d, dim] : llvm::enumerate(mapping.getDims())) {
        int64_t size = tensor.getDimSize(d);
        auto mismatch = [&, d = d]() {
          return emitError() << "sharding rule: dimension " << d << " of "
                             << what << " " << i << " " << type << ": ";
        };
        if (dim.getBroadcast()) {
          if (size != 1)
            return mismatch() << "a broadcast dimension must have size 1";
          continue;
        }
        ArrayRef<int64_t> factors = dim.getFactors();
        // A dimension of unknown size is one factor, whose size another
        // tensor may know (matmul's k of `?` against 64).
        if (ShapedType::isDynamic(size)) {
          if (factors.size() != 1)
            return mismatch() << "a dimension of unknown size must be one "
                                 "factor";
          continue;
        }
        int64_t product = 1;
        for (int64_t f : factors) {
          if (ShapedType::isDynamic(sizes[f]))
            return mismatch() << "factor " << getFactorName(f)
                              << " of unknown size in a static dimension";
          product *= sizes[f];
        }
        if (product != size)
          return mismatch() << "the factors' sizes multiply to " << product;
      }
    }
    return success();
  };
  if (failed(check(getOperandMappings(), operands, "operand")))
    return failure();
  return check(getResultMappings(), results, "result");
}

void ShardingRuleAttr::print(AsmPrinter &p) const {
  auto printTensors = [&](ArrayRef<TensorMappingAttr> tensors) {
    p << '(';
    llvm::interleaveComma(tensors, p, [&](TensorMappingAttr tensor) {
      p << '[';
      llvm::interleaveComma(tensor.getDims(), p, [&](DimMappingAttr dim) {
        ArrayRef<int64_t> factors = dim.getFactors();
        if (dim.getBroadcast()) {
          p << "bcast(" << getFactorName(factors[0]) << ')';
        } else if (factors.size() == 1) {
          p << getFactorName(factors[0]);
        } else {
          p << '(';
          llvm::interleaveComma(factors, p,
                                [&](int64_t f) { p << getFactorName(f); });
          p << ')';
        }
      });
      p << ']';
    });
    p << ')';
  };
  p << '<';
  printTensors(getOperandMappings());
  p << " -> ";
  printTensors(getResultMappings());
  p << " {";
  llvm::interleaveComma(llvm::enumerate(getFactorSizes()), p, [&](auto it) {
    p << getFactorName(it.index()) << '=';
    if (ShapedType::isDynamic(it.value()))
      p << '?';
    else
      p << it.value();
  });
  p << '}';
  SmallVector<int64_t> reductions, whole;
  for (auto [f, kind] : llvm::enumerate(getFactorKinds())) {
    if (isReduction(kind))
      reductions.push_back(f);
    else if (kind == FactorKind::NeedReplication)
      whole.push_back(f);
  }
  if (!reductions.empty()) {
    p << " reduction={";
    llvm::interleaveComma(reductions, p, [&](int64_t f) {
      p << getFactorName(f) << ':' << stringifyFactorKind(getKind(f));
    });
    p << '}';
  }
  if (!whole.empty()) {
    p << " need_replication={";
    llvm::interleaveComma(whole, p, [&](int64_t f) { p << getFactorName(f); });
    p << '}';
  }
  ArrayRef<PartialKindSet> partial = getPartialKinds();
  if (!partial.empty() && !getOnePartial()) {
    p << " partial_alike={";
    printPartialKinds(p, partial.front());
    p << '}';
  } else if (!partial.empty()) {
    p << " partial_one={";
    SmallVector<unsigned> listed;
    for (auto [i, kinds] : llvm::enumerate(partial))
      if (kinds)
        listed.push_back(i);
    llvm::interleaveComma(listed, p, [&](unsigned i) {
      p << i << ':';
      printPartialKinds(p, partial[i]);
    });
    p << '}';
  }
  p << '>';
}

namespace {
/// A factor named in the tensor lists, resolved once the sizes are read.
struct FactorRef {
  std::string name;
  SMLoc loc;
};
struct ParsedDim {
  SmallVector<FactorRef, 2> factors;
  bool broadcast = false;
};
using ParsedTensor = SmallVector<ParsedDim>;
} // namespace

static ParseResult parseFactorRef(AsmParser &p, FactorRef &ref) {
  ref.loc = p.getCurrentLocation();
  StringRef name;
  if (p.parseKeyword(&name))
    return failure();
  ref.name = name.str();
  return success();
}

static ParseResult parseDim(AsmParser &p, ParsedDim &dim) {
  if (succeeded(p.parseOptionalLParen())) {
    if (succeeded(p.parseOptionalRParen()))
      return success();
    do {
      if (parseFactorRef(p, dim.factors.emplace_back()))
        return failure();
    } while (succeeded(p.parseOptionalComma()));
    return p.parseRParen();
  }
  if (succeeded(p.parseOptionalKeyword("bcast"))) {
    dim.broadcast = true;
    if (p.parseLParen() || parseFactorRef(p, dim.factors.emplace_back()) ||
        p.parseRParen())
      return failure();
    return success();
  }
  return parseFactorRef(p, dim.factors.emplace_back());
}

static ParseResult parseTensors(AsmParser &p,
                                SmallVectorImpl<ParsedTensor> &tensors) {
  return p.parseCommaSeparatedList(AsmParser::Delimiter::Paren, [&]() {
    ParsedTensor &tensor = tensors.emplace_back();
    return p.parseCommaSeparatedList(AsmParser::Delimiter::Square, [&]() {
      return parseDim(p, tensor.emplace_back());
    });
  });
}

Attribute ShardingRuleAttr::parse(AsmParser &p, Type) {
  SMLoc start = p.getCurrentLocation();
  SmallVector<ParsedTensor> operands, results;
  if (p.parseLess() || parseTensors(p, operands) || p.parseArrow() ||
      parseTensors(p, results))
    return {};
  llvm::StringMap<int64_t> index;
  SmallVector<int64_t> sizes;
  if (p.parseCommaSeparatedList(AsmParser::Delimiter::Braces,
                                [&]() -> ParseResult {
        FactorRef ref;
        if (parseFactorRef(p, ref) || p.parseEqual())
          return failure();
        int64_t size = ShapedType::kDynamic;
        if (failed(p.parseOptionalQuestion()) && p.parseInteger(size))
          return failure();
        if (!index.try_emplace(ref.name, sizes.size()).second)
          return p.emitError(ref.loc, "factor '") << ref.name
                                                  << "' is declared twice";
        sizes.push_back(size);
        return success();
      }))
    return {};
  auto resolve = [&](const FactorRef &ref) -> FailureOr<int64_t> {
    auto it = index.find(ref.name);
    if (it == index.end())
      return p.emitError(ref.loc, "factor '")
             << ref.name << "' has no size in the rule's sizes block";
    return it->second;
  };
  SmallVector<FactorKind> kinds(sizes.size(), FactorKind::Parallel);
  auto setKind = [&](const FactorRef &ref, FactorKind kind) -> ParseResult {
    FailureOr<int64_t> f = resolve(ref);
    if (failed(f))
      return failure();
    if (kinds[*f] != FactorKind::Parallel)
      return p.emitError(ref.loc, "factor '")
             << ref.name << "' already has kind "
             << stringifyFactorKind(kinds[*f]);
    kinds[*f] = kind;
    return success();
  };
  if (succeeded(p.parseOptionalKeyword("reduction"))) {
    if (p.parseEqual() ||
        p.parseCommaSeparatedList(AsmParser::Delimiter::Braces,
                                  [&]() -> ParseResult {
          FactorRef ref;
          StringRef kindName;
          if (parseFactorRef(p, ref) || p.parseColon())
            return failure();
          SMLoc kindLoc = p.getCurrentLocation();
          if (p.parseKeyword(&kindName))
            return failure();
          std::optional<FactorKind> kind = parseReductionKind(kindName);
          if (!kind)
            return p.emitError(kindLoc, "unknown reduction kind '")
                   << kindName << "' (sum, max, min, mean, prod)";
          return setKind(ref, *kind);
        }))
      return {};
  }
  if (succeeded(p.parseOptionalKeyword("need_replication"))) {
    if (p.parseEqual() ||
        p.parseCommaSeparatedList(AsmParser::Delimiter::Braces,
                                  [&]() -> ParseResult {
          FactorRef ref;
          if (parseFactorRef(p, ref))
            return failure();
          return setKind(ref, FactorKind::NeedReplication);
        }))
      return {};
  }
  // Partial operands: sized to the operands once read.
  SmallVector<PartialKindSet> partialKinds;
  bool onePartial = false;
  if (succeeded(p.parseOptionalKeyword("partial_alike"))) {
    PartialKindSet kinds;
    if (p.parseEqual() || p.parseLBrace() || parsePartialKinds(p, kinds) ||
        p.parseRBrace())
      return {};
    partialKinds.assign(operands.size(), kinds);
  } else if (succeeded(p.parseOptionalKeyword("partial_one"))) {
    onePartial = true;
    partialKinds.assign(operands.size(), 0);
    if (p.parseEqual() ||
        p.parseCommaSeparatedList(AsmParser::Delimiter::Braces,
                                  [&]() -> ParseResult {
          SMLoc loc = p.getCurrentLocation();
          int64_t i;
          PartialKindSet kinds;
          if (p.parseInteger(i) || p.parseColon() ||
              parsePartialKinds(p, kinds))
            return failure();
          if (i < 0 || i >= static_cast<int64_t>(operands.size()))
            return p.emitError(loc, "partial_one: operand ")
                   << i << " of a rule with " << operands.size()
                   << " operands";
          if (partialKinds[i])
            return p.emitError(loc, "partial_one: operand ")
                   << i << " is listed twice";
          partialKinds[i] = kinds;
          return success();
        }))
      return {};
  }
  if (p.parseGreater())
    return {};

  MLIRContext *ctx = p.getContext();
  auto build = [&](ArrayRef<ParsedTensor> tensors,
                   SmallVectorImpl<TensorMappingAttr> &out) -> ParseResult {
    for (const ParsedTensor &tensor : tensors) {
      SmallVector<DimMappingAttr> dims;
      for (const ParsedDim &dim : tensor) {
        SmallVector<int64_t> factors;
        for (const FactorRef &ref : dim.factors) {
          FailureOr<int64_t> f = resolve(ref);
          if (failed(f))
            return failure();
          factors.push_back(*f);
        }
        dims.push_back(DimMappingAttr::get(ctx, factors, dim.broadcast));
      }
      out.push_back(TensorMappingAttr::get(ctx, dims));
    }
    return success();
  };
  SmallVector<TensorMappingAttr> operandMappings, resultMappings;
  if (build(operands, operandMappings) || build(results, resultMappings))
    return {};
  return p.getChecked<ShardingRuleAttr>(start, ctx, sizes, kinds,
                                        operandMappings, resultMappings,
                                        partialKinds, onePartial);
}

//===----------------------------------------------------------------------===//
// EinsumEquationAttr
//===----------------------------------------------------------------------===//

char EinsumEquationAttr::getLabelLetter(int64_t label) {
  return label < 26 ? 'a' + label : 'A' + (label - 26);
}

std::optional<int64_t> EinsumEquationAttr::getLabelOfLetter(char letter) {
  if (letter >= 'a' && letter <= 'z')
    return letter - 'a';
  if (letter >= 'A' && letter <= 'Z')
    return 26 + (letter - 'A');
  return std::nullopt;
}

EinsumEquationAttr
EinsumEquationAttr::get(MLIRContext *ctx, ArrayRef<SmallVector<int64_t>> inputs,
                        ArrayRef<int64_t> output) {
  SmallVector<Attribute> terms;
  for (const SmallVector<int64_t> &term : inputs)
    terms.push_back(DenseI64ArrayAttr::get(ctx, term));
  return get(ctx, ArrayAttr::get(ctx, terms),
             DenseI64ArrayAttr::get(ctx, output));
}

ArrayRef<int64_t> EinsumEquationAttr::getInputLabels(size_t i) const {
  return cast<DenseI64ArrayAttr>(getInputs()[i]).asArrayRef();
}

std::string EinsumEquationAttr::str() const {
  std::string s;
  for (size_t i = 0, e = getNumInputs(); i < e; ++i) {
    if (i)
      s += ',';
    for (int64_t l : getInputLabels(i))
      s += getLabelLetter(l);
  }
  s += "->";
  for (int64_t l : getOutputLabels())
    s += getLabelLetter(l);
  return s;
}

LogicalResult
EinsumEquationAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                           ArrayAttr inputs, DenseI64ArrayAttr output) {
  if (inputs.empty())
    return emitError() << "einsum: an equation needs at least one input term";
  SmallVector<bool> present(kNumLabels, false);
  auto checkLabel = [&](int64_t l) -> LogicalResult {
    if (l < 0 || l >= kNumLabels)
      return emitError() << "einsum: label " << l << " is out of range [0, "
                         << kNumLabels << ")";
    return success();
  };
  for (Attribute term : inputs) {
    auto labels = dyn_cast<DenseI64ArrayAttr>(term);
    if (!labels)
      return emitError() << "einsum: an input term must be a DenseI64ArrayAttr";
    for (int64_t l : labels.asArrayRef()) {
      if (failed(checkLabel(l)))
        return failure();
      present[l] = true;
    }
  }
  SmallVector<bool> seen(kNumLabels, false);
  for (int64_t l : output.asArrayRef()) {
    if (failed(checkLabel(l)))
      return failure();
    char letter = getLabelLetter(l);
    if (seen[l])
      return emitError() << "einsum: output label '" << StringRef(&letter, 1)
                         << "' appears twice";
    if (!present[l])
      return emitError() << "einsum: output label '" << StringRef(&letter, 1)
                         << "' appears in no input";
    seen[l] = true;
  }
  return success();
}

static ParseResult parseLabels(AsmParser &p, SmallVectorImpl<int64_t> &labels) {
  return p.parseCommaSeparatedList(AsmParser::Delimiter::Square,
                                   [&]() -> ParseResult {
    SMLoc loc = p.getCurrentLocation();
    StringRef name;
    if (p.parseKeyword(&name))
      return failure();
    std::optional<int64_t> label =
        name.size() == 1 ? EinsumEquationAttr::getLabelOfLetter(name[0])
                         : std::nullopt;
    if (!label)
      return p.emitError(loc, "einsum: a label is one letter, got '")
             << name << "'";
    labels.push_back(*label);
    return success();
  });
}

Attribute EinsumEquationAttr::parse(AsmParser &p, Type) {
  SMLoc start = p.getCurrentLocation();
  SmallVector<SmallVector<int64_t>> inputs;
  SmallVector<int64_t> output;
  if (p.parseLess())
    return {};
  do {
    if (parseLabels(p, inputs.emplace_back()))
      return {};
  } while (succeeded(p.parseOptionalComma()));
  if (p.parseArrow() || parseLabels(p, output) || p.parseGreater())
    return {};
  MLIRContext *ctx = p.getContext();
  SmallVector<Attribute> terms;
  for (const SmallVector<int64_t> &term : inputs)
    terms.push_back(DenseI64ArrayAttr::get(ctx, term));
  return p.getChecked<EinsumEquationAttr>(start, ctx,
                                          ArrayAttr::get(ctx, terms),
                                          DenseI64ArrayAttr::get(ctx, output));
}

void EinsumEquationAttr::print(AsmPrinter &p) const {
  auto printLabels = [&](ArrayRef<int64_t> labels) {
    p << '[';
    llvm::interleaveComma(labels, p,
                          [&](int64_t l) { p << getLabelLetter(l); });
    p << ']';
  };
  p << '<';
  for (size_t i = 0, e = getNumInputs(); i < e; ++i) {
    if (i)
      p << ", ";
    printLabels(getInputLabels(i));
  }
  p << " -> ";
  printLabels(getOutputLabels());
  p << '>';
}
