//===- SplitStages.h - The stages of a pipelined plan -----------*- C++ -*-===//
//
// A pipelined plan lists, per stage, the names of the values its ops
// compute (docs/Plan.md). splitStages checks those lists against @main and
// finds the boundary values (computed in one stage, used in a later one);
// buildStageModule makes the program of one stage: a module whose @main
// takes the graph inputs the stage uses and the boundary values it
// receives, and returns the boundary values it sends and the graph outputs
// it computes. Ops computed from weights and constants alone belong to no
// stage: each stage using one gets its own copy (they never cross).
//
//===----------------------------------------------------------------------===//
#ifndef TELAR_PASSES_PARTITION_SPLITSTAGES_H
#define TELAR_PASSES_PARTITION_SPLITSTAGES_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"
#include "mlir/Support/LLVM.h"

#include <cstdint>
#include <string>
#include <vector>

namespace mlir::telar {

/// A value computed in stage `fromStage` and used by the later stages
/// `toStages` (ascending).
struct StageBoundary {
  std::string name; // the plan value name (getValueNames)
  int64_t fromStage = 0;
  std::vector<int64_t> toStages;
};

struct StageSplit {
  struct Stage {
    /// The stage program's arguments: the graph inputs it uses (in @main's
    /// order), then the boundary values it receives (in the order of
    /// `boundaries`); by name.
    std::vector<std::string> inputs;
    /// Per input: the @main argument it is, or -1 for a boundary value.
    std::vector<int64_t> inputArguments;
    /// Its results: the boundary values it sends (in the order of
    /// `boundaries`), then the graph outputs it computes (in @main's
    /// order, by their output names), except a graph output that is a
    /// boundary value of the same name, returned once.
    std::vector<std::string> outputs;
    /// Per output: the @main result it is, or -1 for a boundary value.
    std::vector<int64_t> outputResults;
  };
  std::vector<Stage> stages;
  /// In program order of their definitions.
  std::vector<StageBoundary> boundaries;
  /// Per @main result: its output name and the stage returning it (a graph
  /// input or a weight-only value returned as it is: the last stage).
  std::vector<std::string> outputNames;
  std::vector<int64_t> outputStages;
  /// Per op of @main's body (block order, the terminator excluded): its
  /// stage, or -1 for an op computed from weights and constants alone.
  std::vector<int64_t> opStages;
};

/// Checks `stageOps` (per stage, value names as in PlanStage::ops) against
/// `main` and returns the split. Errors are emitted (at the op concerned,
/// naming the value) and fail: an unknown name, a graph input listed, a
/// value listed in two stages (or two results of one op in two), `value
/// 'x' is in no stage`, `value 'x' is used in stage 0 but computed in stage
/// 1`, a stage computing nothing.
FailureOr<StageSplit>
splitStages(func::FuncOp main,
            const std::vector<std::vector<std::string>> &stageOps);

/// The program of stage `stage` of `split` (made by splitStages for
/// `main`, unchanged since): a new module with the module's attributes and
/// symbols, whose @main has the stage's ops (and copies of the weight-only
/// ops they use), its arguments named by telar.name and its results by
/// telar.output_names as in `split.stages[stage]`. Every op result keeps
/// the name it has in `main`: the names are written into
/// telar.result_names, so that the stage's shardings (plan value names)
/// bind to the same values.
OwningOpRef<ModuleOp> buildStageModule(func::FuncOp main,
                                       const StageSplit &split, int64_t stage);

} // namespace mlir::telar

#endif // TELAR_PASSES_PARTITION_SPLITSTAGES_H
