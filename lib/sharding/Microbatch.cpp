//===- Microbatch.cpp - The program of one microbatch ---------------------===//
//
// makeMicrobatchProgram (include/telar/sharding/Microbatch.h): the batch
// followed from the inputs through every op's sharding rule as one
// parallel factor, which shrinks M times; each op rebuilt on microbatch
// shapes with the partitioner's own localisation of size attributes
// (localizeAttributes, OpSharding.h). The pass that runs it alone,
// telar-microbatch, is in passes/partition.
//
//===----------------------------------------------------------------------===//

#include "telar/sharding/Microbatch.h"

#include "telar/dialects/Telar/TelarDialect.h"
#include "telar/dialects/Telar/TelarOps.h"
#include "telar/sharding/Completion.h"
#include "telar/sharding/OpSharding.h"

#include "mlir/Dialect/Shard/IR/ShardDialect.h"
#include "mlir/Dialect/Shard/IR/ShardOps.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"

#include <cstring>

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

/// Where the batch is in a tensor: dim `dim` of global size outer * B *
/// inner holds it with stride `inner` (dim -1: nowhere). The batch inputs
/// hold it at {0, 1}; an op that merges it with other loops (a reshape of
/// [S, B, D] into [S * B, D]) moves it inside a dimension.
struct BatchPosition {
  int64_t dim = -1;
  int64_t inner = 1;
};

/// The program of one microbatch, rebuilt op by op from the ops' sharding
/// rules: the batch is (part of) one parallel factor of each op it goes
/// through, whose size shrinks M times; attributes holding that factor's
/// global size get the local one (the partitioner's own localisation, on
/// a one-axis mesh splitting the factor), result types are inferred again.
/// This is the data parallel partition without its layout constraint: a
/// factor may hold the batch anywhere in its dimension, as long as every
/// op keeps microbatches apart.
class MicrobatchRewriter {
public:
  MicrobatchRewriter(func::FuncOp main, int64_t batch, int64_t microbatches,
                     const std::map<int64_t, std::string> &tagNames)
      : main(main), B(batch), M(microbatches), tagNames(tagNames) {
    mesh.axisNames = {kAxisName};
    mesh.axisSizes = {microbatches};
  }

  /// Rewrites @main; returns the results' microbatch dims.
  FailureOr<std::vector<int64_t>> run(const std::vector<int64_t> &inputDims,
                                      const std::vector<unsigned> &inputs);

private:
  /// "'telar.reshape' (value 'x')".
  std::string describe(Operation *op) const {
    std::string out = quote(op->getName().getStringRef());
    auto it = tagNames.find(getTag(op));
    if (it != tagNames.end())
      out += " (value " + quote(it->second) + ")";
    return out;
  }
  InFlightDiagnostic mixes(Operation *op) const {
    InFlightDiagnostic diag = op->emitError();
    diag << describe(op) << " mixes microbatches: ";
    return diag;
  }
  /// The factor of `mapping` (and the stride inside it) that holds the
  /// batch at `pos`, if one factor holds all of it.
  std::optional<std::pair<int64_t, int64_t>>
  locate(ShardingRuleAttr rule, TensorMappingAttr mapping,
         BatchPosition pos) const;
  /// Where a tensor of `mapping` holds factor `f` at stride `c` inside it.
  BatchPosition place(ShardingRuleAttr rule, TensorMappingAttr mapping,
                      int64_t f, int64_t c) const;
  /// Makes the new value of `v` (no batch, but `pos` the size of the
  /// batch) the microbatch's, when every block of it is the same: a
  /// constant, or an expand broadcasting along the batch.
  LogicalResult shrinkToMicrobatch(Value v, BatchPosition pos,
                                   Operation *user, unsigned operand);
  LogicalResult rewriteOp(Operation *op);

  func::FuncOp main;
  int64_t B, M;
  const std::map<int64_t, std::string> &tagNames;
  /// One axis, the microbatches.
  telar_sharding::Mesh mesh;
  IRMapping map;
  /// Of the original values.
  llvm::DenseMap<Value, BatchPosition> positions;
  llvm::DenseMap<Operation *, ShardingRuleAttr> rules;
  OpBuilder *builder = nullptr;
};

std::optional<std::pair<int64_t, int64_t>>
MicrobatchRewriter::locate(ShardingRuleAttr rule, TensorMappingAttr mapping,
                           BatchPosition pos) const {
  DimMappingAttr dim = mapping.getDims()[pos.dim];
  if (dim.getBroadcast())
    return std::nullopt;
  ArrayRef<int64_t> sizes = rule.getFactorSizes();
  int64_t suffix = 1;
  for (int64_t f : llvm::reverse(dim.getFactors())) {
    int64_t size = sizes[f];
    if (suffix <= pos.inner && pos.inner % suffix == 0 &&
        pos.inner * B <= suffix * size) {
      int64_t c = pos.inner / suffix;
      if (size % (B * c) != 0)
        return std::nullopt;
      return std::make_pair(f, c);
    }
    suffix *= size;
  }
  return std::nullopt;
}

BatchPosition MicrobatchRewriter::place(ShardingRuleAttr rule,
                                        TensorMappingAttr mapping, int64_t f,
                                        int64_t c) const {
  ArrayRef<int64_t> sizes = rule.getFactorSizes();
  for (auto [d, dim] : llvm::enumerate(mapping.getDims())) {
    if (dim.getBroadcast() || !llvm::is_contained(dim.getFactors(), f))
      continue;
    int64_t suffix = 1;
    for (int64_t g : llvm::reverse(dim.getFactors())) {
      if (g == f)
        return {int64_t(d), c * suffix};
      suffix *= sizes[g];
    }
  }
  return {};
}

LogicalResult MicrobatchRewriter::shrinkToMicrobatch(Value v,
                                                     BatchPosition pos,
                                                     Operation *user,
                                                     unsigned operand) {
  Value local = map.lookup(v);
  Operation *def = local.getDefiningOp();
  auto type = cast<RankedTensorType>(local.getType());
  // Every use of it must want the microbatch's block: a use already
  // rebuilt took it whole.
  for (Operation *other : v.getUsers())
    if (other != user && other->isBeforeInBlock(user))
      return mixes(user) << "operand " << operand << " has the batch's size "
                         << "in dim " << pos.dim << " but is used whole by "
                         << quote(other->getName().getStringRef())
                         << " too";
  SmallVector<int64_t> shape(type.getShape());
  int64_t size = shape[pos.dim];
  int64_t outer = size / (B * pos.inner);
  shape[pos.dim] = size / M;
  auto localType = RankedTensorType::get(shape, type.getElementType());
  // A constant whose M blocks along the batch are equal: block 0.
  if (auto constant = dyn_cast_or_null<ConstantOp>(def)) {
    ArrayRef<int64_t> global = type.getShape();
    int64_t after = pos.inner;
    for (int64_t d = pos.dim + 1; d < type.getRank(); ++d)
      after *= global[d];
    int64_t before = outer;
    for (int64_t d = 0; d < pos.dim; ++d)
      before *= global[d];
    int64_t b = B / M; // batch elements of a microbatch
    // Block 0 of the elements (each `bytes` long), or none when the blocks
    // differ: element (o, m * b + k, i) for o < before, k < b, i < after.
    auto takeBlock = [&](auto equal, auto push) {
      for (int64_t o = 0; o < before; ++o)
        for (int64_t k = 0; k < b; ++k)
          for (int64_t i = 0; i < after; ++i) {
            int64_t first = (o * B + k) * after + i;
            for (int64_t m = 1; m < M; ++m)
              if (!equal(first, (o * B + m * b + k) * after + i))
                return false;
            push(first);
          }
      return true;
    };
    Attribute value = constant.getValue();
    ElementsAttr block;
    if (auto dense = dyn_cast<DenseElementsAttr>(value)) {
      if (dense.isSplat()) {
        block = DenseElementsAttr::get(localType,
                                       dense.getSplatValue<Attribute>());
      } else {
        SmallVector<Attribute> values(dense.getValues<Attribute>()), kept;
        if (takeBlock([&](int64_t x, int64_t y) { return values[x] == values[y]; },
                      [&](int64_t x) { kept.push_back(values[x]); }))
          block = DenseElementsAttr::get(localType, kept);
      }
    } else if (auto resource = dyn_cast<DenseResourceElementsAttr>(value)) {
      AsmResourceBlob *blob = resource.getRawHandle().getBlob();
      unsigned bits = type.getElementType().getIntOrFloatBitWidth();
      if (blob && bits % 8 == 0) {
        ArrayRef<char> data = blob->getData();
        size_t bytes = bits / 8;
        if (data.size() == size_t(type.getNumElements()) * bytes) {
          std::vector<char> kept;
          if (takeBlock(
                  [&](int64_t x, int64_t y) {
                    return std::memcmp(data.data() + x * bytes,
                                       data.data() + y * bytes, bytes) == 0;
                  },
                  [&](int64_t x) {
                    kept.insert(kept.end(), data.begin() + x * bytes,
                                data.begin() + (x + 1) * bytes);
                  }))
            block = DenseElementsAttr::getFromRawBuffer(localType, kept);
        }
      }
    }
    if (block) {
      OpBuilder b2(constant);
      auto replacement =
          ConstantOp::create(b2, constant.getLoc(), localType, block);
      for (NamedAttribute attr : constant->getDiscardableAttrs())
        replacement->setAttr(attr.getName(), attr.getValue());
      constant->replaceAllUsesWith(replacement);
      constant->erase();
      map.map(v, replacement.getResult());
      positions[v] = pos;
      return success();
    }
  }
  // A broadcast along the batch: the same broadcast to the microbatch.
  if (auto expand = dyn_cast_or_null<ExpandOp>(def)) {
    auto in = cast<RankedTensorType>(expand.getInput().getType());
    int64_t offset = type.getRank() - in.getRank();
    bool broadcast = pos.dim < offset || in.getDimSize(pos.dim - offset) == 1;
    SmallVector<int64_t> target(expand.getShape());
    int64_t t = pos.dim - (type.getRank() - int64_t(target.size()));
    if (broadcast && t >= 0 && target[t] == size) {
      target[t] = size / M;
      expand.setShape(target);
      expand.getResult().setType(localType);
      positions[v] = pos;
      return success();
    }
  }
  return mixes(user) << "operand " << operand << " has the batch's size in dim "
                     << pos.dim << " but does not come from the batch inputs "
                     << "(each microbatch would need its own part of it)";
}

LogicalResult MicrobatchRewriter::rewriteOp(Operation *op) {
  OpBuilder &b = *builder;
  SmallVector<unsigned> carrying;
  for (auto [i, v] : llvm::enumerate(op->getOperands()))
    if (positions.count(v))
      carrying.push_back(i);
  if (carrying.empty()) {
    b.clone(*op, map);
    return success();
  }
  ShardingRuleAttr rule = rules.lookup(op);
  if (!rule)
    return mixes(op) << "it has no sharding rule, so the batch cannot go "
                        "through it split";
  // The factor holding the batch, the same for every operand holding it.
  std::optional<std::pair<int64_t, int64_t>> factor;
  for (unsigned i : carrying) {
    std::optional<std::pair<int64_t, int64_t>> here =
        locate(rule, rule.getOperandMappings()[i], positions.lookup(op->getOperand(i)));
    if (!here)
      return mixes(op) << "operand " << i << " holds the batch across "
                          "several loops of its sharding rule "
                       << rule;
    if (factor && *factor != *here)
      return mixes(op) << "its operands hold the batch in different loops ("
                       << ShardingRuleAttr::getFactorName(factor->first)
                       << " and "
                       << ShardingRuleAttr::getFactorName(here->first) << ")";
    factor = here;
  }
  auto [f, c] = *factor;
  SmallVector<bool> whole = getWholeFactors(rule);
  FactorKind kind = rule.getKind(f);
  if (kind != FactorKind::Parallel || whole[f])
    return mixes(op) << "the batch is its loop "
                     << ShardingRuleAttr::getFactorName(f) << " ("
                     << (isReduction(kind) ? "a reduction"
                                           : "one it computes whole")
                     << ", " << rule << ")";
  // Operands of the batch's size that do not hold it.
  for (auto [i, v] : llvm::enumerate(op->getOperands())) {
    if (positions.count(v))
      continue;
    BatchPosition pos = place(rule, rule.getOperandMappings()[i], f, c);
    if (pos.dim >= 0 && failed(shrinkToMicrobatch(v, pos, op, i)))
      return failure();
  }

  LocalAssignment p;
  p.factorAxes.assign(rule.getNumFactors(), {});
  p.factorAxes[f] = {0};
  auto sharding = [&](Value v, TensorMappingAttr mapping) {
    auto type = cast<RankedTensorType>(v.getType());
    Sharding s = Sharding::getReplicated(type.getRank());
    BatchPosition pos = place(rule, mapping, f, c);
    if (pos.dim >= 0)
      s.dims[pos.dim] = {0};
    return s;
  };
  for (auto [i, v] : llvm::enumerate(op->getOperands()))
    p.operands.push_back(sharding(v, rule.getOperandMappings()[i]));
  for (auto [j, r] : llvm::enumerate(op->getResults()))
    p.results.push_back(sharding(r, rule.getResultMappings()[j]));

  Operation *local = b.clone(*op, map);
  if (failed(localizeAttributes(local, op, p, mesh))) {
    local->erase();
    return failure();
  }
  SmallVector<Type> inferred;
  auto infer = dyn_cast<InferTypeOpInterface>(local);
  if (!infer ||
      failed(infer.inferReturnTypes(
          op->getContext(), op->getLoc(), local->getOperands(),
          local->getRawDictionaryAttrs(), local->getPropertiesStorage(),
          local->getRegions(), inferred))) {
    local->erase();
    return mixes(op) << "it cannot run on the microbatch's shapes";
  }
  for (auto [j, type] : llvm::enumerate(inferred)) {
    RankedTensorType expected = getLocalType(
        cast<RankedTensorType>(op->getResult(j).getType()), p.results[j],
        mesh);
    if (type != expected) {
      local->erase();
      return op->emitError() << describe(op) << " infers " << type
                             << " for result " << j
                             << " on the microbatch's shapes, expected "
                             << expected;
    }
    local->getResult(j).setType(type);
  }
  for (auto [j, r] : llvm::enumerate(op->getResults())) {
    map.map(r, local->getResult(j));
    BatchPosition pos = place(rule, rule.getResultMappings()[j], f, c);
    if (pos.dim >= 0)
      positions[r] = pos;
  }
  return success();
}

FailureOr<std::vector<int64_t>>
MicrobatchRewriter::run(const std::vector<int64_t> &inputDims,
                        const std::vector<unsigned> &inputs) {
  Block &entry = main.getBody().front();
  // The rules of the global ops, read before anything changes.
  for (Operation &op : entry)
    if (auto ruled = dyn_cast<ShardingRuleOpInterface>(&op))
      rules[&op] = ruled.getShardingRule();

  // The new body: arguments at microbatch shape, then each op rebuilt.
  auto *body = new Block();
  main.getBody().push_back(body);
  for (BlockArgument arg : entry.getArguments()) {
    Type type = arg.getType();
    auto it = llvm::find(inputs, arg.getArgNumber());
    if (it != inputs.end() && inputDims[it - inputs.begin()] == 0) {
      auto ranked = cast<RankedTensorType>(type);
      SmallVector<int64_t> shape(ranked.getShape());
      shape[0] /= M;
      type = RankedTensorType::get(shape, ranked.getElementType());
      positions[arg] = {0, 1};
    }
    map.map(arg, body->addArgument(type, arg.getLoc()));
  }
  OpBuilder b = OpBuilder::atBlockEnd(body);
  builder = &b;
  auto abandon = [&]() -> FailureOr<std::vector<int64_t>> {
    body->dropAllDefinedValueUses();
    body->dropAllReferences();
    body->erase();
    return failure();
  };
  for (Operation &op : entry.without_terminator())
    if (failed(rewriteOp(&op)))
      return abandon();

  // The results: the microbatches' results concatenate along the batch's
  // dim, which must hold it outermost.
  Operation *ret = entry.getTerminator();
  auto outputNames = main->getAttrOfType<ArrayAttr>(
      TelarDialect::OutputNamesAttrHelper::getNameStr());
  std::vector<int64_t> outputDims;
  SmallVector<Value> results;
  for (auto [i, v] : llvm::enumerate(ret->getOperands())) {
    results.push_back(map.lookup(v));
    auto it = positions.find(v);
    if (it == positions.end()) {
      outputDims.push_back(-1);
      continue;
    }
    BatchPosition pos = it->second;
    int64_t size = cast<RankedTensorType>(v.getType()).getDimSize(pos.dim);
    if (size != B * pos.inner) {
      std::string name = "output " + std::to_string(i);
      if (outputNames && i < outputNames.size())
        if (auto s = dyn_cast<StringAttr>(outputNames[i]))
          name = "output " + quote(s.getValue());
      ret->emitError() << name << " holds the batch inside dim " << pos.dim
                       << " (size " << size << ", the batch " << B
                       << " with stride " << pos.inner
                       << ", not outermost): the microbatches' parts of it "
                          "do not concatenate";
      return abandon();
    }
    outputDims.push_back(pos.dim);
  }
  func::ReturnOp::create(b, ret->getLoc(), results);

  // The new body replaces the old one.
  for (Operation &op : llvm::make_early_inc_range(llvm::reverse(entry))) {
    op.dropAllUses();
    op.dropAllReferences();
  }
  entry.dropAllUses();
  entry.erase();
  main.setType(FunctionType::get(main.getContext(), body->getArgumentTypes(),
                                 ValueRange(results).getTypes()));
  return outputDims;
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

  // M = 1: the program as it is; the results' microbatch dims are those
  // completion gives the data parallel plan.
  if (microbatches == 1) {
    FailureOr<CompletedPlan> completed = completePlan(main, plan);
    if (succeeded(completed)) {
      Operation *ret = entry.getTerminator();
      for (OpOperand &use : ret->getOpOperands()) {
        auto it = completed->uses.find(&use);
        Sharding s = it != completed->uses.end()
                         ? it->second
                         : completed->values.lookup(use.get());
        info.outputDims.push_back(s.getRank() ? s.getDimOfAxis(0) : -1);
      }
    }
    removeTags();
    restoreNames();
    if (failed(completed))
      return failure();
    return info;
  }
  restoreNames();

  FailureOr<std::vector<int64_t>> outputDims =
      MicrobatchRewriter(main, info.batch, microbatches, tagNames).run(
          info.inputDims, inputs);
  if (failed(outputDims)) {
    removeTags();
    return failure();
  }
  info.outputDims = std::move(*outputDims);

  // The same names for the same values (each op rebuilt once, in order, at
  // its place).
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
