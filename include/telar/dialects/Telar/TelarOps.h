//===- TelarOps.h - telar graph ops -----------------------------*- C++ -*-===//
#ifndef TELAR_DIALECTS_TELAR_TELAROPS_H
#define TELAR_DIALECTS_TELAR_TELAROPS_H

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "telar/dialects/Telar/ShapeInference.h"
#include "telar/dialects/Telar/ShardingRule.h"
#include "telar/dialects/Telar/TelarAttrs.h"
#include "telar/dialects/Telar/TelarDialect.h"

#include "telar/dialects/Telar/TelarInterfaces.h.inc"

#define GET_OP_CLASSES
#include "telar/dialects/Telar/TelarOps.h.inc"

#endif // TELAR_DIALECTS_TELAR_TELAROPS_H
