//===- ApplyPlan.cpp - Attach a completed plan as shard annotations -------===//
//
// telar-apply-plan: the plan (read here, or given parsed to the factory) is
// completed (lib/sharding/Completion.cpp) and written into the IR in the
// form CONTRACTS8's "Annotated IR" fixes, the input of telar-partition.
//
//===----------------------------------------------------------------------===//

#include "telar/passes/partition/Passes.h"

#include "telar/dialects/Telar/TelarDialect.h"
#include "telar/sharding/Completion.h"

#include "mlir/Dialect/Shard/IR/ShardOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"

namespace mlir::telar {
#define GEN_PASS_DEF_TELARAPPLYPLAN
#include "telar/passes/partition/Passes.h.inc"
} // namespace mlir::telar

using namespace mlir;
using namespace mlir::telar;
using telar_sharding::Sharding;

namespace {

constexpr llvm::StringLiteral kGridName = "mesh";

} // namespace

void mlir::telar::annotateWithPlan(ModuleOp module, func::FuncOp main,
                                   const CompletedPlan &completed) {
  MLIRContext *ctx = module.getContext();
  const telar_sharding::Mesh &mesh = completed.mesh;
  OpBuilder b(ctx);
  b.setInsertionPointToStart(module.getBody());
  auto grid = shard::GridOp::create(b, module.getLoc(), kGridName,
                                    mesh.axisSizes);
  SmallVector<Attribute> axisNames;
  for (const std::string &name : mesh.axisNames)
    axisNames.push_back(StringAttr::get(ctx, name));
  grid->setAttr(TelarDialect::AxisNamesAttrHelper::getNameStr(),
                ArrayAttr::get(ctx, axisNames));

  auto makeSharding = [&](Location loc, const Sharding &s) -> Value {
    SmallVector<shard::GridAxesAttr> splitAxes;
    for (const std::vector<int64_t> &axes : s.dims) {
      SmallVector<int16_t> indices(axes.begin(), axes.end());
      splitAxes.push_back(DenseI16ArrayAttr::get(ctx, indices));
    }
    auto op = shard::ShardingOp::create(b, loc, kGridName, splitAxes);
    if (s.isPartial()) {
      SmallVector<NamedAttribute> partial;
      for (auto [axis, kind] : s.partial)
        partial.push_back(NamedAttribute(
            StringAttr::get(ctx, mesh.axisNames[axis]),
            StringAttr::get(ctx, telar_sharding::getReductionName(kind))));
      op->setAttr(TelarDialect::PartialAttrHelper::getNameStr(),
                  DictionaryAttr::get(ctx, partial));
    }
    return op.getResult();
  };

  Block &entry = main.getBody().front();
  SmallVector<Operation *> ops;
  for (Operation &op : entry)
    ops.push_back(&op);

  // Each value's own sharding, right after its definition.
  auto annotateValue = [&](Value v) {
    auto it = completed.values.find(v);
    if (it == completed.values.end() || it->second.isReplicated())
      return;
    Value sharding = makeSharding(v.getLoc(), it->second);
    auto shardOp = shard::ShardOp::create(b, v.getLoc(), v, sharding,
                                          /*annotate_for_users=*/false);
    v.replaceAllUsesExcept(shardOp.getResult(), shardOp);
  };
  b.setInsertionPointToStart(&entry);
  for (BlockArgument arg : entry.getArguments())
    annotateValue(arg);
  for (Operation *op : ops) {
    b.setInsertionPointAfter(op);
    for (Value r : op->getResults())
      annotateValue(r);
  }

  // Uses that want another sharding, right before their op.
  for (Operation *op : ops) {
    for (OpOperand &use : op->getOpOperands()) {
      auto it = completed.uses.find(&use);
      if (it == completed.uses.end())
        continue;
      b.setInsertionPoint(op);
      Value sharding = makeSharding(op->getLoc(), it->second);
      auto shardOp = shard::ShardOp::create(b, op->getLoc(), use.get(),
                                            sharding,
                                            /*annotate_for_users=*/true);
      use.set(shardOp.getResult());
    }
  }
}

namespace {

struct ApplyPlanPass : mlir::telar::impl::TelarApplyPlanBase<ApplyPlanPass> {
  using Base::Base;
  explicit ApplyPlanPass(telar_sharding::Plan plan) : given(std::move(plan)) {}

  void runOnOperation() override {
    ModuleOp module = getOperation();
    std::optional<telar_sharding::Plan> plan = given;
    if (!plan) {
      FailureOr<telar_sharding::Plan> loaded =
          loadPlan(module.getLoc(), planFile, meshSpec);
      if (failed(loaded))
        return signalPassFailure();
      plan = std::move(*loaded);
    }
    auto main = module.lookupSymbol<func::FuncOp>("main");
    if (!main || main.isDeclaration()) {
      module.emitError() << "telar-apply-plan needs a defined @main";
      return signalPassFailure();
    }
    if (module.lookupSymbol(kGridName)) {
      module.emitError() << "the module already has a symbol @" << kGridName
                         << " (a plan was applied already?)";
      return signalPassFailure();
    }
    FailureOr<CompletedPlan> completed = completePlan(main, *plan);
    if (failed(completed))
      return signalPassFailure();
    // On one device (a mesh without axes) every value is replicated and
    // the module stays as it is.
    if (plan->mesh.getNumAxes() == 0)
      return;
    annotateWithPlan(module, main, *completed);
  }

  std::optional<telar_sharding::Plan> given;
};

} // namespace

std::unique_ptr<Pass>
mlir::telar::createTelarApplyPlan(telar_sharding::Plan plan) {
  return std::make_unique<ApplyPlanPass>(std::move(plan));
}
