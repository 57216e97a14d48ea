//===- TelarAttrs.h - telar dialect attributes ------------------*- C++ -*-===//
//
// #telar.sharding_rule (with its parts DimMappingAttr and TensorMappingAttr),
// #telar.einsum and #telar.target; their definitions and documentation are
// in TelarAttrs.td.
//
//===----------------------------------------------------------------------===//
#ifndef TELAR_DIALECTS_TELAR_TELARATTRS_H
#define TELAR_DIALECTS_TELAR_TELARATTRS_H

#include "mlir/IR/Attributes.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectImplementation.h"
#include "mlir/IR/TypeRange.h"

#include <optional>
#include <string>

namespace mlir::telar {

/// The kind of a sharding-rule factor (see TelarAttrs.td): parallel, a
/// reduction that an all-reduce of that kind completes, or a factor that
/// must not be split.
enum class FactorKind : uint32_t {
  Parallel,
  Sum,
  Max,
  Min,
  Mean,
  Prod,
  NeedReplication,
};

inline bool isReduction(FactorKind kind) {
  return kind != FactorKind::Parallel && kind != FactorKind::NeedReplication;
}

/// A set of the reduction kinds a partial operand may carry (Sum, Max, Min,
/// Prod), one bit per kind (getPartialKindBit).
using PartialKindSet = uint32_t;

constexpr PartialKindSet getPartialKindBit(FactorKind kind) {
  return PartialKindSet(1) << static_cast<uint32_t>(kind);
}

/// Every partial kind: `any` in a rule's partial clause.
constexpr PartialKindSet kAnyPartialKind =
    getPartialKindBit(FactorKind::Sum) | getPartialKindBit(FactorKind::Max) |
    getPartialKindBit(FactorKind::Min) | getPartialKindBit(FactorKind::Prod);

/// `parallel`, `sum`, `max`, `min`, `mean`, `prod`, `need_replication`.
llvm::StringRef stringifyFactorKind(FactorKind kind);

/// The reduction kind named `name` (`sum`, `max`, `min`, `mean`, `prod`).
std::optional<FactorKind> parseReductionKind(llvm::StringRef name);

} // namespace mlir::telar

#define GET_ATTRDEF_CLASSES
#include "telar/dialects/Telar/TelarAttrs.h.inc"

#endif // TELAR_DIALECTS_TELAR_TELARATTRS_H
