//===- TelarOps.h - telar graph ops -----------------------------*- C++ -*-===//
#ifndef TELAR_DIALECTS_TELAR_TELAROPS_H
#define TELAR_DIALECTS_TELAR_TELAROPS_H

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/Dialect/Shard/Interfaces/ShardingInterface.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "telar/dialects/Telar/ShapeInference.h"
#include "telar/dialects/Telar/ShardingRule.h"
#include "telar/dialects/Telar/TelarDialect.h"

namespace mlir::telar {
// ShardingInterface's generated method declarations name these unqualified.
using shard::ReductionKind;
} // namespace mlir::telar

#define GET_OP_CLASSES
#include "telar/dialects/Telar/TelarOps.h.inc"

#endif // TELAR_DIALECTS_TELAR_TELAROPS_H
