//===- Partition.cpp - telar-partition: the driver ------------------------===//
//
// Reads the annotations (shard.grid, shard.sharding, shard.shard), then
// walks each function once in order, keeping for every global value its
// local value and sharding: arguments get local types, every telar op is
// rebuilt on local operands from its sharding rule (OpSharding.h), uses
// annotated with another sharding get the
// resharding steps, results are returned local. The global ops and the
// annotations are erased at the end.
//
//===----------------------------------------------------------------------===//

#include "PartitionInternal.h"

#include "telar/dialects/Telar/TelarDialect.h"
#include "telar/passes/partition/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"

#include <algorithm>

namespace mlir::telar {
#define GEN_PASS_DEF_TELARPARTITION
#include "telar/passes/partition/Passes.h.inc"
} // namespace mlir::telar

using namespace mlir;
using namespace mlir::telar;
using namespace mlir::telar::partition;

//===----------------------------------------------------------------------===//
// OpPartition
//===----------------------------------------------------------------------===//

int64_t OpPartition::getSplit(int64_t factor) const {
  int64_t split = 1;
  for (int64_t axis : factorAxes[factor])
    split *= grid->mesh.axisSizes[axis];
  return split;
}

RankedTensorType OpPartition::getLocalResultType(unsigned i) const {
  return getLocalType(cast<RankedTensorType>(op->getResult(i).getType()),
                      results[i], grid->mesh);
}

//===----------------------------------------------------------------------===//
// Reading annotations
//===----------------------------------------------------------------------===//

namespace {

/// The local value and the sharding of a global value.
struct Local {
  Value value;
  Sharding sharding;
};

class FunctionPartitioner {
public:
  FunctionPartitioner(func::FuncOp fn, const GridInfo &grid)
      : fn(fn), grid(grid) {}

  LogicalResult run();

private:
  FailureOr<Sharding> readSharding(shard::ShardOp op);
  /// The sharding of `value` given by its one definition annotation (a
  /// shard.shard without annotate_for_users); replicated without one.
  FailureOr<Sharding> getDefinedSharding(Value value);
  LogicalResult partitionArguments();
  LogicalResult partitionShard(shard::ShardOp op);
  LogicalResult partitionOp(Operation *op);
  LogicalResult cloneReplicated(Operation *op);
  LogicalResult partitionReturn(func::ReturnOp op);
  ArrayAttr getAxisNames(const Sharding &sharding);

  func::FuncOp fn;
  const GridInfo &grid;
  llvm::DenseMap<Value, Local> locals;
};

} // namespace

FailureOr<Sharding> FunctionPartitioner::readSharding(shard::ShardOp op) {
  // The result keeps the global type (an argument source is local by now).
  auto tensor = dyn_cast<RankedTensorType>(op.getResult().getType());
  if (!tensor || !tensor.hasStaticShape())
    return op.emitError("telar-partition needs a statically shaped tensor");
  auto def = op.getSharding().getDefiningOp<shard::ShardingOp>();
  if (!def)
    return op.emitError("the sharding must come from a shard.sharding op");
  if (def.getGrid() != grid.symbol.getValue())
    return def.emitError("names grid @")
           << def.getGrid() << ", but the module's grid is " << grid.symbol;
  if (!def.getStaticHaloSizes().empty() ||
      !def.getDynamicHaloSizes().empty() ||
      !def.getStaticShardedDimsOffsets().empty() ||
      !def.getDynamicShardedDimsOffsets().empty())
    return def.emitError(
        "halo sizes and sharded dimension offsets are not supported");
  const Mesh &mesh = grid.mesh;
  int64_t rank = tensor.getRank();
  shard::GridAxesArrayAttr split = def.getSplitAxes();
  if (static_cast<int64_t>(split.size()) > rank)
    return def.emitError("splits ")
           << split.size() << " dimensions of a tensor of rank " << rank;
  Sharding s = Sharding::getReplicated(rank);
  for (auto [d, axes] : llvm::enumerate(split.getAxes()))
    for (int16_t a : axes.asArrayRef()) {
      if (a < 0 || a >= mesh.getNumAxes())
        return def.emitError("axis ") << a << " is not an axis of the grid";
      s.dims[d].push_back(a);
    }
  if (auto partial = def->getAttrOfType<DictionaryAttr>(
          TelarDialect::PartialAttrHelper::getNameStr())) {
    for (NamedAttribute entry : partial) {
      std::optional<int64_t> axis =
          mesh.getAxisIndex(entry.getName().getValue().str());
      if (!axis)
        return def.emitError("partial axis '")
               << entry.getName().getValue() << "' is not an axis of the grid";
      auto kind = telar_sharding::parseReductionName(
          cast<StringAttr>(entry.getValue()).getValue().str());
      if (!kind)
        return def.emitError("unknown reduction ") << entry.getValue();
      s.partial.push_back({*axis, *kind});
    }
    llvm::sort(s.partial,
               [](auto &a, auto &b) { return a.first < b.first; });
  }
  std::vector<int64_t> shape(tensor.getShape().begin(),
                             tensor.getShape().end());
  std::string error = telar_sharding::verifySharding(s, mesh, shape);
  if (!error.empty())
    return op.emitError("invalid sharding ")
           << format(s, mesh) << " of " << tensor << ": " << error;
  return s;
}

FailureOr<Sharding> FunctionPartitioner::getDefinedSharding(Value value) {
  for (Operation *user : value.getUsers())
    if (auto shardOp = dyn_cast<shard::ShardOp>(user))
      if (!shardOp.getAnnotateForUsers() && shardOp.getSrc() == value)
        return readSharding(shardOp);
  return Sharding::getReplicated(
      cast<RankedTensorType>(value.getType()).getRank());
}

ArrayAttr FunctionPartitioner::getAxisNames(const Sharding &sharding) {
  Builder b(fn.getContext());
  SmallVector<Attribute> dims;
  for (const std::vector<int64_t> &axes : sharding.dims) {
    SmallVector<Attribute> names;
    for (int64_t a : axes)
      names.push_back(b.getStringAttr(grid.mesh.axisNames[a]));
    dims.push_back(b.getArrayAttr(names));
  }
  return b.getArrayAttr(dims);
}

//===----------------------------------------------------------------------===//
// Arguments, annotations, results
//===----------------------------------------------------------------------===//

LogicalResult FunctionPartitioner::partitionArguments() {
  for (BlockArgument arg : fn.getArguments()) {
    auto type = dyn_cast<RankedTensorType>(arg.getType());
    if (!type) {
      locals[arg] = {arg, Sharding{}};
      continue;
    }
    FailureOr<Sharding> s = getDefinedSharding(arg);
    if (failed(s))
      return failure();
    if (s->isPartial())
      return fn.emitError("argument ")
             << arg.getArgNumber() << " cannot be partial: "
             << format(*s, grid.mesh);
    RankedTensorType local = getLocalType(type, *s, grid.mesh);
    if (!s->isReplicated()) {
      fn.setArgAttr(arg.getArgNumber(),
                    TelarDialect::ShardingAttrHelper::getNameStr(),
                    getAxisNames(*s));
      fn.setArgAttr(arg.getArgNumber(),
                    TelarDialect::GlobalShapeAttrHelper::getNameStr(),
                    DenseI64ArrayAttr::get(fn.getContext(), type.getShape()));
    }
    arg.setType(local);
    locals[arg] = {arg, *s};
  }
  return success();
}

LogicalResult FunctionPartitioner::partitionShard(shard::ShardOp op) {
  auto it = locals.find(op.getSrc());
  if (it == locals.end())
    return op.emitError("annotates a value telar-partition did not reach");
  FailureOr<Sharding> wanted = readSharding(op);
  if (failed(wanted))
    return failure();
  OpBuilder b(op);
  // A definition annotation repeats what the definition already produced
  // (partitionOp slices to it); a use annotation reshards.
  FailureOr<Value> value =
      emitReshard(b, op.getLoc(), it->second.value,
                  cast<RankedTensorType>(op.getType()), it->second.sharding,
                  *wanted, grid, op);
  if (failed(value))
    return failure();
  locals[op.getResult()] = {*value, *wanted};
  return success();
}

LogicalResult FunctionPartitioner::partitionReturn(func::ReturnOp op) {
  SmallVector<Type> resultTypes;
  for (OpOperand &operand : op->getOpOperands()) {
    unsigned i = operand.getOperandNumber();
    auto it = locals.find(operand.get());
    if (it == locals.end())
      return op.emitError("returns a value telar-partition did not reach");
    const Local &local = it->second;
    auto type = dyn_cast<RankedTensorType>(operand.get().getType());
    if (type && local.sharding.isPartial())
      return op.emitError("result ")
             << i << " is partial (" << format(local.sharding, grid.mesh)
             << "): an output must be resolved";
    if (type && !local.sharding.isReplicated()) {
      fn.setResultAttr(i, TelarDialect::ShardingAttrHelper::getNameStr(),
                       getAxisNames(local.sharding));
      fn.setResultAttr(
          i, TelarDialect::GlobalShapeAttrHelper::getNameStr(),
          DenseI64ArrayAttr::get(fn.getContext(), type.getShape()));
    }
    operand.set(local.value);
    resultTypes.push_back(local.value.getType());
  }
  fn.setType(FunctionType::get(fn.getContext(),
                               fn.front().getArgumentTypes(), resultTypes));
  return success();
}

/// An op of another dialect: kept as it is when everything it touches is
/// replicated.
LogicalResult FunctionPartitioner::cloneReplicated(Operation *op) {
  IRMapping map;
  for (Value v : op->getOperands()) {
    auto it = locals.find(v);
    if (it == locals.end() ||
        (isa<RankedTensorType>(v.getType()) &&
         !it->second.sharding.isReplicated()))
      return op->emitError("telar-partition cannot partition this op: only "
                           "telar ops take sharded operands");
    map.map(v, it->second.value);
  }
  for (Value r : op->getResults()) {
    if (!isa<RankedTensorType>(r.getType()))
      continue;
    FailureOr<Sharding> s = getDefinedSharding(r);
    if (failed(s))
      return failure();
    if (!s->isReplicated())
      return op->emitError("telar-partition cannot partition this op: only "
                           "telar ops have sharded results");
  }
  OpBuilder b(op);
  Operation *clone = b.clone(*op, map);
  for (auto [r, c] : llvm::zip(op->getResults(), clone->getResults())) {
    auto type = dyn_cast<RankedTensorType>(r.getType());
    locals[r] = {c, type ? Sharding::getReplicated(type.getRank())
                         : Sharding{}};
  }
  return success();
}

//===----------------------------------------------------------------------===//
// Telar ops
//===----------------------------------------------------------------------===//

LogicalResult FunctionPartitioner::partitionOp(Operation *op) {
  const Mesh &mesh = grid.mesh;
  ShardingRuleAttr rule = cast<ShardingRuleOpInterface>(op).getShardingRule();

  // What each operand is, as annotated for this op.
  SmallVector<Sharding> wanted;
  SmallVector<Value> operands;
  for (Value v : op->getOperands()) {
    auto it = locals.find(v);
    if (it == locals.end())
      return op->emitError("uses a value telar-partition did not reach");
    wanted.push_back(it->second.sharding);
    operands.push_back(it->second.value);
  }
  SmallVector<Sharding> annotated;
  for (Value r : op->getResults()) {
    FailureOr<Sharding> s = getDefinedSharding(r);
    if (failed(s))
      return failure();
    annotated.push_back(*s);
  }

  // The factors' axes and the operand and result shardings
  // (OpSharding.h, shared with the cost model).
  std::string error;
  FailureOr<LocalAssignment> assignment =
      getLocalAssignment(op, wanted, mesh, error);
  if (failed(assignment))
    return op->emitError(error);
  OpPartition p;
  p.op = op;
  p.rule = rule;
  p.grid = &grid;
  p.factorAxes = assignment->factorAxes;
  p.operands = assignment->operands;
  p.results = assignment->results;

  // Operands to what the op runs on (differs from the annotation only where
  // a split had to be gathered).
  OpBuilder b(op);
  Location loc = op->getLoc();
  IRMapping map;
  for (auto [i, v] : llvm::enumerate(op->getOperands())) {
    FailureOr<Value> local =
        emitReshard(b, loc, operands[i], cast<RankedTensorType>(v.getType()),
                    wanted[i], p.operands[i], grid, op);
    if (failed(local))
      return failure();
    map.map(v, *local);
  }

  // The local op: the global one on local operands, with local sizes in its
  // attributes, its result types inferred and checked.
  Operation *local = b.clone(*op, map);
  if (failed(localizeAttributes(local, op, *assignment, mesh))) {
    local->erase();
    return failure();
  }
  SmallVector<Type> inferred;
  auto infer = cast<InferTypeOpInterface>(local);
  if (failed(infer.inferReturnTypes(
          op->getContext(), loc, local->getOperands(),
          local->getRawDictionaryAttrs(), local->getPropertiesStorage(),
          local->getRegions(), inferred))) {
    local->erase();
    return op->emitError("cannot run on the local shapes");
  }
  for (auto [j, type] : llvm::enumerate(inferred)) {
    RankedTensorType expected = p.getLocalResultType(j);
    if (type != expected) {
      local->erase();
      return op->emitError("the local op infers ")
             << type << " for result " << j << ", but its sharding "
             << format(p.results[j], mesh) << " gives " << expected;
    }
    local->getResult(j).setType(type);
  }
  SmallVector<Value> results(local->getResults());
  if (isa<ReduceMeanOp>(op))
    results = scaleLocalMeans(b, local, p);

  // Results to their annotated shardings: local slices only (factors only
  // results have, or more axes than the operands give). Communication here
  // would be a step that no annotation asked for.
  for (auto [j, r] : llvm::enumerate(op->getResults())) {
    auto type = cast<RankedTensorType>(r.getType());
    FailureOr<std::vector<telar_sharding::ReshardStep>> steps =
        getResultSliceSteps(op, j, p.results[j], annotated[j], mesh);
    if (failed(steps))
      return failure();
    locals[r] = {emitSteps(b, loc, results[j], type.getElementType(), *steps,
                           grid),
                 annotated[j]};
  }
  return success();
}

//===----------------------------------------------------------------------===//
// The function and the pass
//===----------------------------------------------------------------------===//

LogicalResult FunctionPartitioner::run() {
  if (fn.getBlocks().size() != 1)
    return fn.emitError("telar-partition needs a function with one block");
  if (failed(partitionArguments()))
    return failure();
  SmallVector<Operation *> global;
  for (Operation &op : fn.front())
    global.push_back(&op);
  for (Operation *op : global) {
    LogicalResult result = success();
    if (isa<shard::ShardingOp>(op))
      continue;
    if (auto shardOp = dyn_cast<shard::ShardOp>(op))
      result = partitionShard(shardOp);
    else if (auto ret = dyn_cast<func::ReturnOp>(op))
      result = partitionReturn(ret);
    else if (isa<ShardingRuleOpInterface>(op))
      result = partitionOp(op);
    else
      result = cloneReplicated(op);
    if (failed(result))
      return failure();
  }
  for (Operation *op : llvm::reverse(global))
    if (!isa<func::ReturnOp>(op)) {
      op->dropAllUses();
      op->erase();
    }
  return success();
}

namespace {
struct TelarPartitionPass
    : public telar::impl::TelarPartitionBase<TelarPartitionPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<shard::GridOp> grids(module.getOps<shard::GridOp>());
    if (grids.empty()) {
      // Nothing annotated: a single-device program.
      WalkResult found = module.walk([](Operation *op) {
        return isa<shard::ShardOp, shard::ShardingOp>(op)
                   ? WalkResult::interrupt()
                   : WalkResult::advance();
      });
      if (found.wasInterrupted()) {
        module.emitError("shardings without a shard.grid");
        signalPassFailure();
      }
      return;
    }
    if (grids.size() > 1) {
      grids[1].emitError("telar-partition takes one shard.grid per module");
      return signalPassFailure();
    }
    shard::GridOp gridOp = grids.front();
    GridInfo grid;
    grid.symbol = FlatSymbolRefAttr::get(gridOp.getSymNameAttr());
    auto names = gridOp->getAttrOfType<ArrayAttr>(
        TelarDialect::AxisNamesAttrHelper::getNameStr());
    if (!names) {
      gridOp.emitError("needs telar.axis_names (the mesh axes' names)");
      return signalPassFailure();
    }
    for (auto [name, size] : llvm::zip(names, gridOp.getShape())) {
      if (ShapedType::isDynamic(size) || size < 1) {
        gridOp.emitError("the grid's shape must be static and positive");
        return signalPassFailure();
      }
      grid.mesh.axisNames.push_back(cast<StringAttr>(name).getValue().str());
      grid.mesh.axisSizes.push_back(size);
    }

    for (auto fn : llvm::make_early_inc_range(module.getOps<func::FuncOp>()))
      if (!fn.isExternal() && failed(FunctionPartitioner(fn, grid).run()))
        return signalPassFailure();
  }
};
} // namespace
