//===- TestLiveSet.cpp - Print the live-set analysis as remarks -----------===//

#include "TestPasses.h"
#include "telar/analysis/LiveSet.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

namespace mlir::telar {
#define GEN_PASS_DEF_TESTTELARLIVESET
#include "TestPasses.h.inc"
} // namespace mlir::telar

using namespace mlir;

namespace {
struct TestTelarLiveSet
    : public telar::impl::TestTelarLiveSetBase<TestTelarLiveSet> {
  void runOnOperation() override {
    func::FuncOp func = getOperation();
    if (func.isExternal())
      return;
    const auto &liveSet = getAnalysis<telar::LiveSetAnalysis>();
    for (Operation &op : func.getBody().front().without_terminator()) {
      InFlightDiagnostic remark = op.emitRemark()
                                  << "live: " << liveSet.getLiveBytes(&op)
                                  << " bytes";
      if (&op == liveSet.getPeakOp())
        remark << " (largest)";
      remark << "; defines: " << liveSet.getDefinedBytes(&op) << " bytes";
    }
    func.emitRemark() << "largest live set: "
                      << liveSet.getLargestLiveSetBytes() << " bytes";
    markAllAnalysesPreserved();
  }
};
} // namespace
