//===- Passes.h - Telar partitioning passes ---------------------*- C++ -*-===//
#ifndef TELAR_PASSES_PARTITION_PASSES_H
#define TELAR_PASSES_PARTITION_PASSES_H

#include "telar/sharding/Plan.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Shard/IR/ShardDialect.h"
#include "mlir/Dialect/Shard/IR/ShardOps.h"
#include "mlir/Pass/Pass.h"

#include <memory>

namespace mlir::telar {

#define GEN_PASS_DECL
#include "telar/passes/partition/Passes.h.inc"

struct CompletedPlan;

/// What telar-apply-plan writes, for a plan completed already
/// (completePlan, telar/sharding/Completion.h): the grid `@mesh` with its
/// axis names, one shard.shard per value that is not replicated, one
/// annotate_for_users per use that wants another sharding.
void annotateWithPlan(ModuleOp module, func::FuncOp main,
                      const CompletedPlan &completed);

/// telar-apply-plan with an already parsed plan (its mesh included); the
/// pass's own options are then ignored.
std::unique_ptr<Pass> createTelarApplyPlan(telar_sharding::Plan plan);

#define GEN_PASS_REGISTRATION
#include "telar/passes/partition/Passes.h.inc"

} // namespace mlir::telar

#endif // TELAR_PASSES_PARTITION_PASSES_H
