//===- Microbatch.cpp - telar-microbatch ----------------------------------===//
//
// The pass that rewrites @main into the program of one microbatch
// (makeMicrobatchProgram, include/telar/sharding/Microbatch.h) and reports
// the split: for tests and for looking at what a pipeline's stages run.
//
//===----------------------------------------------------------------------===//

#include "telar/passes/partition/Passes.h"
#include "telar/sharding/Microbatch.h"

#include "mlir/IR/BuiltinOps.h"

namespace mlir::telar {
#define GEN_PASS_DEF_TELARMICROBATCH
#include "telar/passes/partition/Passes.h.inc"
} // namespace mlir::telar

using namespace mlir;
using namespace mlir::telar;

namespace {

struct MicrobatchPass
    : mlir::telar::impl::TelarMicrobatchBase<MicrobatchPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    auto main = module.lookupSymbol<func::FuncOp>("main");
    if (!main || main.isExternal()) {
      module.emitError() << "telar-microbatch needs a defined @main";
      return signalPassFailure();
    }
    FailureOr<MicrobatchInfo> info = makeMicrobatchProgram(main, count);
    if (failed(info))
      return signalPassFailure();
    InFlightDiagnostic remark = emitRemark(main.getLoc());
    remark << info->microbatches << " microbatches of the batch "
           << info->batch << ": input dims [";
    llvm::interleaveComma(info->inputDims, remark);
    remark << "], output dims [";
    llvm::interleaveComma(info->outputDims, remark);
    remark << "]";
  }
};

} // namespace
