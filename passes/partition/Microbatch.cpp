//===- Microbatch.cpp - The program of one microbatch ---------------------===//
//
// makeMicrobatchProgram (include/telar/passes/partition/Microbatch.h): a
// data parallel plan on {"microbatch": M} completed, annotated and
// partitioned like any plan, refused when the SPMD program communicates,
// then stripped of the grid and the interface's sharding attributes.
//
//===----------------------------------------------------------------------===//

#include "telar/passes/partition/Microbatch.h"

#include "telar/dialects/Telar/TelarDialect.h"
#include "telar/passes/partition/Passes.h"
#include "telar/sharding/Completion.h"

#include "mlir/Dialect/Shard/IR/ShardDialect.h"
#include "mlir/Dialect/Shard/IR/ShardOps.h"
#include "mlir/IR/BuiltinOps.h"

namespace mlir::telar {
#define GEN_PASS_DEF_TELARMICROBATCH
#include "telar/passes/partition/Passes.h.inc"
} // namespace mlir::telar

using namespace mlir;
using namespace mlir::telar;
using telar_sharding::Sharding;

namespace {

/// The mesh axis of the microbatch split.
constexpr char kAxisName[] = "microbatch";
/// Marks each op of @main with its index while the partitioner clones it
/// (clones keep discardable attributes), so that the program's ops can be
/// matched with the original ones: for value names and for diagnostics.
/// Not a telar.* name: the dialect verifies its own attributes.
constexpr char kTagAttr[] = "_telar_microbatch_tag";

std::string quote(StringRef s) { return "'" + s.str() + "'"; }

int64_t getTag(Operation *op) {
  if (auto tag = op->getAttrOfType<IntegerAttr>(kTagAttr))
    return tag.getInt();
  return -1;
}

/// Where a value is: (tag of its op, result number), or (-1, argument
/// number) for an argument.
std::pair<int64_t, unsigned> getPlace(Value v) {
  if (auto arg = dyn_cast<BlockArgument>(v))
    return {-1, arg.getArgNumber()};
  auto r = cast<OpResult>(v);
  return {getTag(r.getOwner()), r.getResultNumber()};
}

/// The op a collective of the partitioned program was made for: the
/// partitioner gives a collective the location of the op it reshards an
/// operand or result of. Follows the chain of collectives to the op that
/// uses it (an operand's reshard) or the op that produced it (a result's
/// slices), preferring the one with the collective's location.
Operation *getServedOp(Operation *collective) {
  auto isShard = [](Operation *op) {
    return op && isa<shard::ShardDialect>(op->getDialect());
  };
  Operation *consumer = nullptr;
  for (Operation *op = collective; op && isShard(op);) {
    if (op->getNumResults() != 1 || op->getResult(0).use_empty())
      break;
    Operation *user = *op->getResult(0).getUsers().begin();
    if (!isShard(user)) {
      consumer = user;
      break;
    }
    op = user;
  }
  Operation *producer = nullptr;
  for (Operation *op = collective; op && isShard(op);) {
    if (op->getNumOperands() < 1)
      break;
    Operation *def = op->getOperand(0).getDefiningOp();
    if (!isShard(def)) {
      producer = def;
      break;
    }
    op = def;
  }
  // A pending reduction resolved: the op that left it partial is the one.
  if (isa<shard::AllReduceOp, shard::ReduceScatterOp>(collective) && producer)
    return producer;
  if (consumer && consumer->getLoc() == collective->getLoc())
    return consumer;
  if (producer && producer->getLoc() == collective->getLoc())
    return producer;
  return consumer ? consumer : producer;
}

} // namespace

FailureOr<MicrobatchInfo> mlir::telar::makeMicrobatchProgram(func::FuncOp main,
                                                             int64_t microbatches) {
  if (main.isExternal() || main.getBody().getBlocks().size() != 1)
    return main.emitError("microbatching needs a defined @main of one block");
  auto module = main->getParentOfType<ModuleOp>();
  if (microbatches < 1)
    return main.emitError("--microbatches ")
           << microbatches << " must be at least 1";
  if (module && !module.getOps<shard::GridOp>().empty())
    return main.emitError("cannot microbatch a partitioned program (the "
                          "module has a shard.grid)");
  using Dialect = TelarDialect;
  StringRef nameAttr = Dialect::NameAttrHelper::getNameStr();
  StringRef weightAttr = Dialect::WeightAttrHelper::getNameStr();
  Block &entry = main.getBody().front();

  // The batch: dim 0 of the first non-weight argument.
  MicrobatchInfo info;
  info.microbatches = microbatches;
  std::optional<unsigned> first;
  std::vector<unsigned> inputs;
  for (BlockArgument arg : entry.getArguments())
    if (!main.getArgAttr(arg.getArgNumber(), weightAttr))
      inputs.push_back(arg.getArgNumber());
  auto argName = [&](unsigned i) -> std::string {
    if (auto name = main.getArgAttrOfType<StringAttr>(i, nameAttr))
      return name.str();
    return "input" + std::to_string(i);
  };
  if (inputs.empty())
    return main.emitError("microbatching needs an input to take the batch "
                          "from, and @main has none");
  auto firstType = dyn_cast<RankedTensorType>(
      main.getArgument(inputs.front()).getType());
  if (!firstType || firstType.getRank() == 0 ||
      ShapedType::isDynamic(firstType.getDimSize(0)))
    return main.emitError("microbatching takes the batch from dim 0 of the "
                          "first input ")
           << quote(argName(inputs.front()))
           << ", which needs a static shape of rank >= 1 (it is "
           << main.getArgument(inputs.front()).getType() << ")";
  info.batch = firstType.getDimSize(0);
  if (info.batch % microbatches != 0)
    return main.emitError("--microbatches ")
           << microbatches << " does not divide the batch (" << info.batch
           << ", dim 0 of " << quote(argName(inputs.front())) << ")";

  // The plan: the batch inputs split along dim 0, every other argument
  // replicated (so that completion cannot split it). Arguments without a
  // name get one for as long as the plan needs it.
  telar_sharding::Plan plan;
  plan.mesh.axisNames = {kAxisName};
  plan.mesh.axisSizes = {microbatches};
  std::vector<unsigned> renamed;
  for (BlockArgument arg : entry.getArguments()) {
    unsigned i = arg.getArgNumber();
    auto type = dyn_cast<RankedTensorType>(arg.getType());
    if (!type)
      continue;
    if (!main.getArgAttr(i, nameAttr)) {
      std::string name = "_telar_microbatch_arg" + std::to_string(i);
      main.setArgAttr(i, nameAttr, StringAttr::get(main.getContext(), name));
      renamed.push_back(i);
    }
    bool isInput = llvm::is_contained(inputs, i);
    bool split = isInput && type.getRank() >= 1 &&
                 type.getDimSize(0) == info.batch;
    if (isInput)
      info.inputDims.push_back(split ? 0 : -1);
    Sharding s = Sharding::getReplicated(type.getRank());
    if (split)
      s.dims[0] = {0};
    plan.shardings[main.getArgAttrOfType<StringAttr>(i, nameAttr).str()] = s;
  }
  auto restoreNames = [&] {
    for (unsigned i : renamed)
      main.removeArgAttr(i, nameAttr);
  };

  // Tags, and the names as they are.
  int64_t nextTag = 0;
  for (Operation &op : entry)
    op.setAttr(kTagAttr, IntegerAttr::get(IntegerType::get(main.getContext(), 64),
                                          nextTag++));
  auto removeTags = [&] {
    main.walk([](Operation *op) { op->removeAttr(kTagAttr); });
  };
  // (The partitioner replaces every op: only places survive it.)
  std::map<std::string, std::pair<int64_t, unsigned>> before;
  std::map<int64_t, std::string> tagNames;
  for (const auto &[name, v] : getValueNames(main)) {
    before.emplace(name, getPlace(v));
    if (auto r = dyn_cast<OpResult>(v))
      tagNames.emplace(getTag(r.getOwner()), name);
  }

  FailureOr<CompletedPlan> completed = completePlan(main, plan);
  if (failed(completed)) {
    removeTags();
    restoreNames();
    return failure();
  }
  // The results' microbatch dims: the sharding each is returned with.
  Operation *ret = entry.getTerminator();
  for (OpOperand &use : ret->getOpOperands()) {
    auto it = completed->uses.find(&use);
    Sharding s = it != completed->uses.end()
                     ? it->second
                     : completed->values.lookup(use.get());
    info.outputDims.push_back(s.getRank() ? s.getDimOfAxis(0) : -1);
  }
  if (microbatches == 1) {
    removeTags();
    restoreNames();
    return info;
  }

  MLIRContext *ctx = main.getContext();
  ctx->getOrLoadDialect<shard::ShardDialect>();
  annotateWithPlan(module, main, *completed);
  if (failed(partitionModule(module))) {
    removeTags();
    restoreNames();
    return failure();
  }

  // Every collective mixes microbatches (an all_slice too: its block is the
  // microbatch's, which one program for all microbatches cannot know).
  Operation *collective = nullptr;
  main.walk([&](Operation *op) {
    if (isa<shard::ShardDialect>(op->getDialect()) && !collective)
      collective = op;
  });
  if (collective) {
    Operation *served = getServedOp(collective);
    InFlightDiagnostic diag =
        emitError(served ? served->getLoc() : collective->getLoc());
    if (served && isa<func::ReturnOp>(served)) {
      diag << "an output";
    } else if (served) {
      diag << quote(served->getName().getStringRef());
      auto it = tagNames.find(getTag(served));
      if (it != tagNames.end())
        diag << " (value " << quote(it->second) << ")";
    } else {
      diag << "the program";
    }
    diag << " mixes microbatches: split " << microbatches
         << " ways along the batch, it needs "
         << collective->getName().getStringRef()
         << " across the microbatches (--microbatches " << microbatches
         << " needs a program whose batch elements never meet)";
    removeTags();
    return failure();
  }

  // A plain program again: no grid, no sharded interface.
  for (auto grid : llvm::make_early_inc_range(module.getOps<shard::GridOp>()))
    grid.erase();
  for (StringRef attr : {Dialect::ShardingAttrHelper::getNameStr(),
                         Dialect::GlobalShapeAttrHelper::getNameStr()}) {
    for (unsigned i = 0; i < main.getNumArguments(); ++i)
      main.removeArgAttr(i, attr);
    for (unsigned i = 0; i < main.getNumResults(); ++i)
      main.removeResultAttr(i, StringAttr::get(ctx, attr));
  }
  restoreNames();

  // The same names for the same values (the partitioner rebuilds each op
  // once, in order, and adds no op where nothing communicates).
  std::map<std::string, Value> after = getValueNames(main);
  for (const auto &[name, place] : before) {
    if (StringRef(name).starts_with("_telar_microbatch_arg"))
      continue;
    auto it = after.find(name);
    if (it == after.end() || getPlace(it->second) != place) {
      removeTags();
      return main.emitError("internal error: the microbatch program lost the "
                            "name of value ")
             << quote(name);
    }
  }
  removeTags();
  return info;
}

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
