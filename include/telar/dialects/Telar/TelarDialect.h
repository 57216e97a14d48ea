//===- TelarDialect.h - The telar graph dialect -----------------*- C++ -*-===//
#ifndef TELAR_DIALECTS_TELAR_TELARDIALECT_H
#define TELAR_DIALECTS_TELAR_TELARDIALECT_H

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/Operation.h" // the generated discardable-attribute helpers

#include "telar/dialects/Telar/ShardingRule.h"
#include "telar/dialects/Telar/TelarAttrs.h"

#include "telar/dialects/Telar/TelarDialect.h.inc"

#endif // TELAR_DIALECTS_TELAR_TELARDIALECT_H
