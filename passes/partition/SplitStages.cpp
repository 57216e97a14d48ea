//===- SplitStages.cpp - The stages of a pipelined plan -------------------===//
//
// splitStages and buildStageModule (include/telar/passes/partition/
// SplitStages.h), and telar-split-stages, the pass that shows them.
//
//===----------------------------------------------------------------------===//

#include "telar/passes/partition/SplitStages.h"

#include "telar/dialects/Telar/TelarDialect.h"
#include "telar/passes/partition/Passes.h"
#include "telar/sharding/Completion.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/StringExtras.h"

#include <set>

namespace mlir::telar {
#define GEN_PASS_DEF_TELARSPLITSTAGES
#include "telar/passes/partition/Passes.h.inc"
} // namespace mlir::telar

using namespace mlir;
using namespace mlir::telar;

namespace {

std::string quote(StringRef s) { return "'" + s.str() + "'"; }

/// The ops of @main's body computed from weights and constants alone (no
/// argument reaches them).
llvm::DenseSet<Operation *> getWeightOnlyOps(Block &entry) {
  llvm::DenseSet<Operation *> weightOnly;
  for (Operation &op : entry.without_terminator()) {
    if (op.getNumRegions() != 0)
      continue;
    bool only = llvm::all_of(op.getOperands(), [&](Value v) {
      Operation *def = v.getDefiningOp();
      return def && weightOnly.contains(def);
    });
    if (only)
      weightOnly.insert(&op);
  }
  return weightOnly;
}

/// The name of every named value of `main` (getValueNames inverted).
llvm::DenseMap<Value, std::string> getNamesByValue(func::FuncOp main) {
  llvm::DenseMap<Value, std::string> byValue;
  for (auto &[name, v] : getValueNames(main))
    byValue[v] = name;
  return byValue;
}

std::string getInputName(func::FuncOp main, unsigned i) {
  if (auto name = main.getArgAttrOfType<StringAttr>(
          i, TelarDialect::NameAttrHelper::getNameStr()))
    return name.str();
  return "input" + std::to_string(i);
}

} // namespace

FailureOr<StageSplit>
mlir::telar::splitStages(func::FuncOp main,
                         const std::vector<std::vector<std::string>> &stageOps) {
  if (main.isExternal() || main.getBody().getBlocks().size() != 1)
    return main.emitError("stages need a defined @main of one block");
  int64_t numStages = stageOps.size();
  if (numStages == 0)
    return main.emitError("a pipelined plan needs at least one stage");
  Block &entry = main.getBody().front();
  std::map<std::string, Value> names = getValueNames(main);
  llvm::DenseMap<Value, std::string> nameOf = getNamesByValue(main);
  llvm::DenseSet<Operation *> weightOnly = getWeightOnlyOps(entry);
  auto describe = [&](Operation *op) -> std::string {
    for (Value r : op->getResults())
      if (nameOf.count(r))
        return "value " + quote(nameOf.lookup(r));
    return quote(op->getName().getStringRef());
  };

  // Each listed op's stage.
  llvm::DenseMap<Operation *, int64_t> stageOf;
  for (auto [s, list] : llvm::enumerate(stageOps)) {
    for (const std::string &name : list) {
      auto it = names.find(name);
      if (it == names.end())
        return main.emitError("stages[")
               << s << "].ops: unknown value " << quote(name);
      Operation *op = it->second.getDefiningOp();
      if (!op)
        return main.emitError("stages[")
               << s << "].ops: " << quote(name)
               << " is a graph input, which no stage computes";
      if (weightOnly.contains(op))
        continue; // copied into every stage that uses it
      auto [at, inserted] = stageOf.try_emplace(op, int64_t(s));
      if (!inserted && at->second != int64_t(s))
        return op->emitError("value ")
               << quote(name) << " is in stages " << at->second << " and "
               << s;
    }
  }
  StageSplit split;
  split.stages.resize(numStages);
  for (Operation &op : entry.without_terminator()) {
    if (weightOnly.contains(&op)) {
      split.opStages.push_back(-1);
      continue;
    }
    auto it = stageOf.find(&op);
    if (it == stageOf.end())
      return op.emitError() << describe(&op) << " is in no stage";
    split.opStages.push_back(it->second);
  }

  // Values flow forward only.
  auto stageOfValue = [&](Value v) -> int64_t {
    Operation *def = v.getDefiningOp();
    if (!def || weightOnly.contains(def))
      return -1;
    return stageOf.lookup(def);
  };
  for (Operation &op : entry.without_terminator()) {
    if (weightOnly.contains(&op))
      continue;
    int64_t b = stageOf.lookup(&op);
    for (Value v : op.getOperands()) {
      int64_t a = stageOfValue(v);
      if (a > b)
        return op.emitError("value ")
               << quote(nameOf.lookup(v)) << " is used in stage " << b
               << " but computed in stage " << a;
    }
  }
  std::vector<bool> computes(numStages, false);
  for (int64_t s : split.opStages)
    if (s >= 0)
      computes[s] = true;
  for (int64_t s = 0; s < numStages; ++s)
    if (!computes[s])
      return main.emitError("stages[")
             << s << "] computes nothing (a stage needs an op that is not "
                     "computed from weights and constants alone)";

  // The graph outputs and their stages.
  Operation *ret = entry.getTerminator();
  auto outputNames = main->getAttrOfType<ArrayAttr>(
      TelarDialect::OutputNamesAttrHelper::getNameStr());
  for (auto [i, v] : llvm::enumerate(ret->getOperands())) {
    std::string name = "output" + std::to_string(i);
    if (outputNames && i < outputNames.size())
      if (auto s = dyn_cast<StringAttr>(outputNames[i]))
        name = s.str();
    split.outputNames.push_back(name);
    int64_t s = stageOfValue(v);
    split.outputStages.push_back(s < 0 ? numStages - 1 : s);
  }

  // Boundary values, in program order.
  llvm::DenseMap<Value, size_t> boundaryIndex;
  for (Operation &op : entry.without_terminator()) {
    if (weightOnly.contains(&op))
      continue;
    int64_t a = stageOf.lookup(&op);
    for (Value r : op.getResults()) {
      std::set<int64_t> to;
      for (Operation *user : r.getUsers())
        if (user != ret && stageOf.lookup(user) != a)
          to.insert(stageOf.lookup(user));
      if (to.empty())
        continue;
      boundaryIndex[r] = split.boundaries.size();
      split.boundaries.push_back(
          {nameOf.lookup(r), a, std::vector<int64_t>(to.begin(), to.end())});
    }
  }

  // Each stage's interface.
  for (int64_t s = 0; s < numStages; ++s) {
    StageSplit::Stage &stage = split.stages[s];
    for (BlockArgument arg : entry.getArguments()) {
      bool used = llvm::any_of(arg.getUses(), [&](OpOperand &use) {
        Operation *user = use.getOwner();
        if (user == ret)
          return split.outputStages[use.getOperandNumber()] == s;
        return stageOf.lookup(user) == s && !weightOnly.contains(user);
      });
      if (!used)
        continue;
      stage.inputs.push_back(getInputName(main, arg.getArgNumber()));
      stage.inputArguments.push_back(arg.getArgNumber());
    }
    for (const StageBoundary &b : split.boundaries)
      if (llvm::is_contained(b.toStages, s)) {
        stage.inputs.push_back(b.name);
        stage.inputArguments.push_back(-1);
      }
    for (const StageBoundary &b : split.boundaries)
      if (b.fromStage == s) {
        stage.outputs.push_back(b.name);
        stage.outputResults.push_back(-1);
      }
    for (auto [i, v] : llvm::enumerate(ret->getOperands())) {
      if (split.outputStages[i] != s)
        continue;
      const std::string &name = split.outputNames[i];
      // A boundary value that is a graph output of the same name: once.
      auto b = boundaryIndex.find(v);
      if (b != boundaryIndex.end() && split.boundaries[b->second].name == name)
        continue;
      if (llvm::is_contained(stage.outputs, name))
        return main.emitError("graph output ")
               << quote(name) << " is returned twice by stage " << s;
      stage.outputs.push_back(name);
      stage.outputResults.push_back(i);
    }
  }
  return split;
}

OwningOpRef<ModuleOp> mlir::telar::buildStageModule(func::FuncOp main,
                                                    const StageSplit &split,
                                                    int64_t stage) {
  MLIRContext *ctx = main.getContext();
  auto module = main->getParentOfType<ModuleOp>();
  Block &entry = main.getBody().front();
  Operation *ret = entry.getTerminator();
  std::map<std::string, Value> names = getValueNames(main);
  llvm::DenseMap<Value, std::string> nameOf = getNamesByValue(main);
  const StageSplit::Stage &info = split.stages[stage];

  OwningOpRef<ModuleOp> out = ModuleOp::create(module.getLoc());
  (*out)->setAttrs(module->getAttrDictionary());
  OpBuilder b(ctx);
  b.setInsertionPointToEnd(out->getBody());
  for (Operation &op : *module.getBody())
    if (&op != main.getOperation())
      b.clone(op);

  // The values the stage reads and returns.
  auto boundaryValue = [&](const std::string &name) {
    return names.at(name);
  };
  SmallVector<Value> inputs, outputs;
  for (auto [name, arg] : llvm::zip(info.inputs, info.inputArguments))
    inputs.push_back(arg >= 0 ? entry.getArgument(arg) : boundaryValue(name));
  for (auto [name, result] : llvm::zip(info.outputs, info.outputResults))
    outputs.push_back(result >= 0 ? ret->getOperand(result)
                                  : boundaryValue(name));

  // The ops: the stage's own, and the weight-only ones they (or its
  // results) use, transitively.
  SmallVector<Operation *> ops;
  for (Operation &op : entry.without_terminator())
    ops.push_back(&op);
  llvm::DenseMap<Operation *, int64_t> indexOf;
  for (auto [i, op] : llvm::enumerate(ops))
    indexOf[op] = i;
  std::vector<bool> take(ops.size(), false);
  SmallVector<Operation *> worklist;
  auto need = [&](Value v) {
    Operation *def = v.getDefiningOp();
    if (!def || def == ret)
      return;
    size_t i = indexOf.lookup(def);
    if (split.opStages[i] == -1 && !take[i]) {
      take[i] = true;
      worklist.push_back(def);
    }
  };
  for (auto [i, op] : llvm::enumerate(ops))
    if (split.opStages[i] == stage) {
      take[i] = true;
      for (Value v : op->getOperands())
        need(v);
    }
  for (Value v : outputs)
    need(v);
  while (!worklist.empty()) {
    Operation *op = worklist.pop_back_val();
    for (Value v : op->getOperands())
      need(v);
  }

  SmallVector<Type> inputTypes, outputTypes;
  for (Value v : inputs)
    inputTypes.push_back(v.getType());
  for (Value v : outputs)
    outputTypes.push_back(v.getType());
  auto fn = func::FuncOp::create(b, main.getLoc(), "main",
                                 FunctionType::get(ctx, inputTypes, outputTypes));
  // Discardable attributes of @main carry over; the interface is the
  // stage's.
  for (NamedAttribute attr : main->getDiscardableAttrs())
    fn->setAttr(attr.getName(), attr.getValue());
  SmallVector<Attribute> outputNames;
  for (const std::string &name : info.outputs)
    outputNames.push_back(StringAttr::get(ctx, name));
  fn->setAttr(TelarDialect::OutputNamesAttrHelper::getNameStr(),
              ArrayAttr::get(ctx, outputNames));
  Block *body = fn.addEntryBlock();
  IRMapping map;
  for (auto [i, v] : llvm::enumerate(inputs)) {
    map.map(v, body->getArgument(i));
    // A graph input keeps its attributes (its telar.name among them).
    if (info.inputArguments[i] >= 0)
      for (NamedAttribute attr :
           function_interface_impl::getArgAttrs(main, info.inputArguments[i]))
        fn.setArgAttr(i, attr.getName(), attr.getValue());
    fn.setArgAttr(i, TelarDialect::NameAttrHelper::getNameStr(),
                  StringAttr::get(ctx, info.inputs[i]));
  }
  b.setInsertionPointToEnd(body);
  StringRef resultNames = TelarDialect::ResultNamesAttrHelper::getNameStr();
  for (auto [i, op] : llvm::enumerate(ops)) {
    if (!take[i])
      continue;
    Operation *clone = b.clone(*op, map);
    // Every result named as in `main` (derived names would differ in a
    // program of other ops).
    if (clone->getNumResults() == 0)
      continue;
    SmallVector<Attribute> opNames;
    for (Value r : op->getResults())
      opNames.push_back(StringAttr::get(ctx, nameOf.lookup(r)));
    clone->setAttr(resultNames, ArrayAttr::get(ctx, opNames));
  }
  SmallVector<Value> returned;
  for (Value v : outputs)
    returned.push_back(map.lookupOrDefault(v));
  func::ReturnOp::create(b, ret->getLoc(), returned);
  return out;
}

namespace {

struct SplitStagesPass
    : mlir::telar::impl::TelarSplitStagesBase<SplitStagesPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    auto main = module.lookupSymbol<func::FuncOp>("main");
    if (!main || main.isExternal()) {
      module.emitError() << "telar-split-stages needs a defined @main";
      return signalPassFailure();
    }
    std::vector<std::vector<std::string>> lists;
    for (StringRef list : llvm::split(StringRef(stages), ';')) {
      lists.emplace_back();
      for (StringRef name : llvm::split(list, ','))
        if (!name.trim().empty())
          lists.back().push_back(name.trim().str());
    }
    FailureOr<StageSplit> split = splitStages(main, lists);
    if (failed(split))
      return signalPassFailure();
    for (const StageBoundary &b : split->boundaries) {
      InFlightDiagnostic remark = emitRemark(main.getLoc());
      remark << "boundary " << quote(b.name) << " from stage " << b.fromStage
             << " to stage" << (b.toStages.size() > 1 ? "s " : " ");
      llvm::interleaveComma(b.toStages, remark);
    }
    if (stage < 0)
      return;
    if (stage >= int64_t(lists.size())) {
      module.emitError() << "stage=" << stage << ", but there are "
                         << lists.size() << " stages";
      return signalPassFailure();
    }
    OwningOpRef<ModuleOp> program = buildStageModule(main, *split, stage);
    // The module becomes the stage's program.
    module.getBody()->clear();
    module.getBody()->getOperations().splice(
        module.getBody()->end(), program->getBody()->getOperations());
  }
};

} // namespace
