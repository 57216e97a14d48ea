//===- TestCostModel.cpp - Print what the cost model prices a plan at -----===//

#include "TestPasses.h"

#include "telar/passes/partition/Passes.h"
#include "telar/planner/CostModel.h"
#include "telar/sharding/Completion.h"
#include "telar/sharding/Plan.h"

#include "mlir/IR/BuiltinOps.h"

#include <cstdio>

namespace mlir::telar {
#define GEN_PASS_DEF_TESTTELARCOSTMODEL
#include "TestPasses.h.inc"
} // namespace mlir::telar

using namespace mlir;
using namespace mlir::telar;

namespace {

std::string seconds(double s) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.6g", s);
  return buffer;
}

std::string axisList(const std::vector<int64_t> &axes,
                     const telar_sharding::Mesh &mesh) {
  std::string s = "[";
  for (auto [i, a] : llvm::enumerate(axes))
    s += (i ? ", " : "") + mesh.axisNames[a];
  return s + "]";
}

void shape(llvm::raw_ostream &os, const std::vector<int64_t> &dims) {
  os << "[";
  llvm::interleave(dims, os, "x");
  os << "]";
}

struct TestTelarCostModel
    : public telar::impl::TestTelarCostModelBase<TestTelarCostModel> {
  using Base::Base;

  FailureOr<telar_sharding::Plan> getPlan(ModuleOp module) {
    auto text = module->getAttrOfType<StringAttr>("test.plan");
    if (!planFile.empty() || !text)
      return loadPlan(module.getLoc(), planFile, meshSpec);
    std::optional<telar_sharding::Mesh> mesh;
    std::string error;
    if (!meshSpec.empty()) {
      mesh = telar_sharding::parseMeshSpec(meshSpec, error);
      if (!mesh)
        return module.emitError("mesh: ") << error;
    }
    std::vector<std::string> warnings;
    auto plan = telar_sharding::parsePlanJson(text.getValue().str(), mesh,
                                              error, warnings);
    if (!plan)
      return module.emitError("test.plan: ") << error;
    return std::move(*plan);
  }

  void runOnOperation() override {
    ModuleOp module = getOperation();
    auto main = module.lookupSymbol<func::FuncOp>("main");
    if (!main || main.isDeclaration()) {
      module.emitError("-test-telar-cost-model needs a defined @main");
      return signalPassFailure();
    }
    std::string error;
    std::optional<telar_planner::Profile> profile =
        telar_planner::loadProfile(profileName, error);
    if (!profile) {
      module.emitError("profile: ") << error;
      return signalPassFailure();
    }
    FailureOr<telar_sharding::Plan> plan = getPlan(module);
    if (failed(plan))
      return signalPassFailure();
    FailureOr<CompletedPlan> completed = completePlan(main, *plan);
    if (failed(completed))
      return signalPassFailure();
    if (dropUses == "all") {
      completed->uses.clear();
    } else if (dropUses == "unary") {
      SmallVector<OpOperand *> drop;
      for (auto &[use, sharding] : completed->uses)
        if (use->getOwner()->getNumOperands() == 1 &&
            !isa<func::ReturnOp>(use->getOwner()))
          drop.push_back(use);
      for (OpOperand *use : drop)
        completed->uses.erase(use);
    } else if (!dropUses.empty()) {
      module.emitError("drop-uses: expected all or unary, got '")
          << dropUses << "'";
      return signalPassFailure();
    }
    FailureOr<planner::PlanCost> cost =
        planner::evaluatePlan(main, *completed, *profile);
    if (failed(cost)) {
      // With annotate, the rejected plan is still written (the error stays
      // reported), so that telar-partition shows whether it rejects it too.
      if (annotate && completed->mesh.getNumAxes() > 0)
        return annotateWithPlan(module, main, *completed);
      return signalPassFailure();
    }

    const telar_sharding::Mesh &mesh = completed->mesh;
    for (const planner::OpCost &op : cost->ops) {
      std::string text;
      llvm::raw_string_ostream os(text);
      os << "compute " << seconds(op.compute.seconds) << " s, "
         << int64_t(op.compute.flops) << " flops, "
         << int64_t(op.compute.bytes) << " bytes";
      for (const planner::PricedStep &p : op.comm) {
        os << "; " << telar_sharding::getStepKindName(p.step.kind);
        // As -test-telar-collectives names them: a reduction other than a sum.
        bool reduces = p.step.kind == telar_sharding::StepKind::AllReduce ||
                       p.step.kind == telar_sharding::StepKind::ReduceScatter;
        if (reduces && p.step.reduction != telar_sharding::ReductionKind::Sum)
          os << "<" << telar_sharding::getReductionName(p.step.reduction)
             << ">";
        os << " over " << axisList(p.step.axes, mesh) << ": ";
        shape(os, p.step.inputShape);
        os << " -> ";
        shape(os, p.step.outputShape);
        os << ", " << p.step.bytesSent << " bytes, " << seconds(p.seconds)
           << " s";
      }
      op.op->emitRemark() << text;
    }
    std::string text;
    llvm::raw_string_ostream os(text);
    os << "latency " << seconds(cost->latency) << " s (compute "
       << seconds(cost->computeSeconds) << " s, communication "
       << seconds(cost->commSeconds) << " s); memory " << cost->memoryBytes
       << " bytes per device (weights " << cost->weightBytes
       << ", peak activations " << cost->peakActivationBytes << ")";
    for (const auto &[axes, bytes] : cost->bytesPerAxes)
      os << "; " << axisList(axes, mesh) << " " << bytes << " bytes";
    main.emitRemark() << text;
    if (annotate && completed->mesh.getNumAxes() > 0)
      annotateWithPlan(module, main, *completed);
    else
      markAllAnalysesPreserved();
  }
};

} // namespace
