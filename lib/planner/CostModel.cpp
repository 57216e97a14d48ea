//===- CostModel.cpp - What a plan costs on a hardware profile ------------===//
//
// Communication: the steps telar-partition emits, found with the functions
// it calls (OpSharding.h), each priced α-β at the interconnect level its
// axes reach. Compute: a roofline per op on its local shapes. Memory: the
// local weight shards plus the peak of live activations, op by op in
// program order.
//
//===----------------------------------------------------------------------===//

#include "telar/planner/CostModel.h"

#include "telar/dialects/Telar/TelarDialect.h"
#include "telar/dialects/Telar/TelarOps.h"
#include "telar/sharding/OpSharding.h"

#include "mlir/IR/BuiltinTypes.h"
#include "llvm/ADT/DenseMap.h"

#include <algorithm>

using namespace mlir;
using namespace mlir::telar;
using namespace mlir::telar::planner;
using telar_sharding::Mesh;
using telar_sharding::ReshardStep;
using telar_sharding::Sharding;
using telar_sharding::StepKind;

//===----------------------------------------------------------------------===//
// Communication
//===----------------------------------------------------------------------===//

unsigned planner::getLinkLevel(const Mesh &mesh, ArrayRef<int64_t> axes,
                               const Profile &profile) {
  if (profile.levels.empty())
    return 0;
  unsigned outermost = profile.levels.size() - 1;
  if (axes.empty())
    return 0;
  // The span of the group in ranks: an axis of stride s and size n moves
  // through ranks up to s * n apart (row-major, the last axis minor).
  int64_t span = 1;
  for (int64_t a : axes) {
    int64_t stride = 1;
    for (int64_t b = a + 1; b < mesh.getNumAxes(); ++b)
      stride *= mesh.axisSizes[b];
    span = std::max(span, stride * mesh.axisSizes[a]);
  }
  for (unsigned l = 0; l < outermost; ++l) {
    int64_t devices = profile.levels[l].devices;
    if (devices <= 0 || span <= devices)
      return l;
  }
  return outermost;
}

double planner::getStepSeconds(const ReshardStep &step, const Mesh &mesh,
                               const Profile &profile) {
  if (step.kind == StepKind::LocalSlice || profile.levels.empty())
    return 0;
  const telar_planner::LinkLevel &level =
      profile.levels[getLinkLevel(mesh, step.axes, profile)];
  double alpha = level.latency, beta = level.bandwidth;
  auto fit = level.collectives.find(telar_sharding::getStepKindName(step.kind));
  if (fit != level.collectives.end()) {
    alpha = fit->second.alpha;
    beta = fit->second.beta;
  }
  double seconds = alpha;
  if (step.bytesSent > 0 && beta > 0)
    seconds += double(step.bytesSent) / beta;
  return seconds;
}

std::optional<double> planner::getReshardSecondsLowerBound(
    const std::vector<int64_t> &shape, int64_t elementBytes,
    const Sharding &from, const Sharding &to, const Mesh &mesh,
    const Profile &profile, bool *communicates) {
  std::optional<telar_sharding::ReshardBound> bound =
      telar_sharding::getReshardLowerBound(shape, elementBytes, from, to,
                                           mesh);
  // nullopt also for a target partial where the source is not (checkPair).
  if (!bound)
    return std::nullopt;
  if (communicates)
    *communicates = bound->communicates;
  if (!bound->communicates || profile.levels.empty())
    return 0.0;
  unsigned level = profile.levels.size() - 1;
  auto visit = [&](const Sharding &s) {
    for (const std::vector<int64_t> &axes : s.dims)
      for (int64_t a : axes)
        level = std::min(level, getLinkLevel(mesh, {a}, profile));
    for (auto [a, kind] : s.partial)
      level = std::min(level, getLinkLevel(mesh, {a}, profile));
  };
  visit(from);
  visit(to);
  // The cheapest step at that level or beyond.
  double alpha = std::numeric_limits<double>::infinity(), beta = 0;
  for (size_t l = level; l < profile.levels.size(); ++l) {
    const telar_planner::LinkLevel &link = profile.levels[l];
    alpha = std::min(alpha, link.latency);
    beta = std::max(beta, link.bandwidth);
    for (const auto &[kind, fit] : link.collectives) {
      alpha = std::min(alpha, fit.alpha);
      beta = std::max(beta, fit.beta);
    }
  }
  if (!std::isfinite(alpha) || alpha < 0)
    alpha = 0;
  return alpha + (beta > 0 ? double(bound->bytes) / beta : 0.0);
}

//===----------------------------------------------------------------------===//
// Compute
//===----------------------------------------------------------------------===//

/// Ops whose local result aliases their local operand's buffer (the
/// lowering makes them reshapes of the same buffer; LiveSetAnalysis's rule).
static bool isView(Operation *op) {
  return isa<ReshapeOp, SqueezeOp, UnsqueezeOp>(op);
}

static int64_t product(ArrayRef<int64_t> shape) {
  int64_t n = 1;
  for (int64_t d : shape)
    n *= d;
  return n;
}

/// The profile's name of an element type: "f32", "f16", "bf16", "f64",
/// "i8", "i32", ... (getPeakFlops falls back to "f32" for the others).
static std::string getTypeName(Type type) {
  if (type.isF32())
    return "f32";
  if (type.isF16())
    return "f16";
  if (type.isBF16())
    return "bf16";
  if (type.isF64())
    return "f64";
  if (type.isInteger())
    return "i" + std::to_string(type.getIntOrFloatBitWidth());
  return "f32";
}

static Type getElementType(Value v) {
  if (auto shaped = dyn_cast<ShapedType>(v.getType()))
    return shaped.getElementType();
  return v.getType();
}

/// The multiply-adds of a contraction's local iteration space: every factor
/// of its rule at its local size, read off a dim that holds it alone (an
/// einsum label, matmul's i, j, k and batch loops); the global size where
/// no dim does.
static double getIterationSpace(Operation *op,
                                ArrayRef<std::vector<int64_t>> operands,
                                ArrayRef<std::vector<int64_t>> results) {
  auto iface = dyn_cast<ShardingRuleOpInterface>(op);
  if (!iface)
    return 0;
  ShardingRuleAttr rule = iface.getShardingRule();
  SmallVector<int64_t> local(rule.getFactorSizes());
  SmallVector<bool> found(local.size(), false);
  auto read = [&](ArrayRef<TensorMappingAttr> mappings,
                  ArrayRef<std::vector<int64_t>> shapes) {
    for (auto [t, mapping] : llvm::enumerate(mappings)) {
      if (t >= shapes.size())
        break;
      for (auto [d, dim] : llvm::enumerate(mapping.getDims())) {
        if (dim.getBroadcast() || dim.getFactors().size() != 1 ||
            d >= shapes[t].size())
          continue;
        int64_t f = dim.getFactors().front();
        if (!found[f]) {
          local[f] = shapes[t][d];
          found[f] = true;
        }
      }
    }
  };
  read(rule.getOperandMappings(), operands);
  read(rule.getResultMappings(), results);
  double space = 1;
  for (int64_t n : local)
    space *= double(n);
  return space;
}

ComputeCost planner::getComputeCost(
    Operation *op, ArrayRef<std::vector<int64_t>> localOperandShapes,
    ArrayRef<std::vector<int64_t>> localResultShapes, const Profile &profile) {
  ComputeCost cost;
  // Views of their operand's buffer and weights: no kernel runs.
  if (isView(op) || isa<ConstantOp, VariableOp>(op))
    return cost;

  auto tensorBytes = [](Value v, ArrayRef<int64_t> shape) {
    if (!isa<ShapedType>(v.getType()))
      return 0.0;
    return double(product(shape)) *
           double(getElementBytes(getElementType(v)));
  };
  double largestOperand = 0;
  for (auto [v, shape] : llvm::zip(op->getOperands(), localOperandShapes)) {
    cost.bytes += tensorBytes(v, shape);
    largestOperand = std::max(largestOperand, double(product(shape)));
  }
  double resultElements = 0;
  for (auto [v, shape] : llvm::zip(op->getResults(), localResultShapes)) {
    cost.bytes += tensorBytes(v, shape);
    resultElements += double(product(shape));
  }

  Type dtype = op->getNumResults() ? getElementType(op->getResult(0))
                                   : Type();
  if (isa<MatMulOp, EinsumOp>(op)) {
    // Two FLOPs per multiply-add over every loop of the rule.
    cost.flops = 2 * getIterationSpace(op, localOperandShapes,
                                       localResultShapes);
    dtype = getElementType(op->getOperand(0));
  } else if (isa<ConvOp>(op) && localOperandShapes.size() >= 2 &&
             !localResultShapes.empty()) {
    // Per output element, a multiply-add per weight element of one output
    // channel: [C_in / groups, k_1, ..., k_n].
    ArrayRef<int64_t> w = localOperandShapes[1];
    cost.flops = 2 * double(product(localResultShapes[0])) *
                 double(product(w.drop_front()));
    dtype = getElementType(op->getOperand(0));
  } else if (isa<ConvTransposeOp>(op) && localOperandShapes.size() >= 2) {
    // Per input element, a multiply-add per weight element of one input
    // channel: [C_out / groups, k_1, ..., k_n].
    ArrayRef<int64_t> w = localOperandShapes[1];
    cost.flops = 2 * double(product(localOperandShapes[0])) *
                 double(product(w.drop_front()));
    dtype = getElementType(op->getOperand(0));
  } else if (isa<TransposeOp, ConcatOp, SplitOp, SliceOp, GatherOp,
                 GatherElementsOp, GatherNDOp, ScatterElementsOp, ScatterNDOp,
                 ExpandOp, TileOp, PadOp, DepthToSpaceOp, SpaceToDepthOp,
                 OneHotOp>(op)) {
    // Data movement: only bytes.
    cost.flops = 0;
  } else if (isa<ReduceSumOp, ReduceMeanOp, ReduceMaxOp, ReduceMinOp,
                 ReduceProdOp, ReduceSumSquareOp, ReduceLogSumOp,
                 ReduceLogSumExpOp, ReduceL1Op, ReduceL2Op, ArgMaxOp, ArgMinOp,
                 SoftmaxOp, LogSoftmaxOp, HardmaxOp, LpNormOp, LayerNormOp,
                 RMSNormOp, BatchNormOp, InstanceNormOp, GroupNormOp,
                 MeanVarianceNormOp, LRNOp, MaxPoolOp, AveragePoolOp, TopKOp,
                 CumSumOp>(op)) {
    // Reductions and what reduces inside (statistics, windows, a sort):
    // one per element they read.
    cost.flops = largestOperand;
    if (op->getNumOperands())
      dtype = getElementType(op->getOperand(0));
  } else {
    // Elementwise (and the rest): one per result element.
    cost.flops = resultElements;
  }

  double peak = profile.getPeakFlops(dtype ? getTypeName(dtype) : "f32");
  double computeSeconds = peak > 0 ? cost.flops / peak : 0;
  double memorySeconds =
      profile.memoryBandwidth > 0 ? cost.bytes / profile.memoryBandwidth : 0;
  cost.seconds = profile.opOverhead + std::max(computeSeconds, memorySeconds);
  return cost;
}

//===----------------------------------------------------------------------===//
// The plan
//===----------------------------------------------------------------------===//

namespace {

/// Walks @main once in program order, as telar-partition does.
class PlanEvaluator {
public:
  PlanEvaluator(func::FuncOp main, const CompletedPlan &completed,
                const Profile &profile)
      : main(main), completed(completed), mesh(completed.mesh),
        profile(profile) {}

  FailureOr<PlanCost> run();

private:
  Sharding shardingOf(Value v) const {
    auto it = completed.values.find(v);
    if (it != completed.values.end())
      return it->second;
    if (auto type = dyn_cast<RankedTensorType>(v.getType()))
      return Sharding::getReplicated(type.getRank());
    return Sharding{};
  }
  std::vector<int64_t> localShape(Value v, const Sharding &s) const {
    auto type = dyn_cast<RankedTensorType>(v.getType());
    if (!type)
      return {};
    std::vector<int64_t> shape(type.getShape().begin(), type.getShape().end());
    return telar_sharding::getLocalShape(shape, s, mesh);
  }
  int64_t localBytes(Value v, const Sharding &s) const {
    if (!isa<RankedTensorType>(v.getType()))
      return 0;
    return product(localShape(v, s)) *
           getElementBytes(getElementType(v));
  }
  /// Appends the steps from `from` to `to` of tensor `v` to `cost`.
  LogicalResult addSteps(Operation *op, Value v, const Sharding &from,
                         const Sharding &to, OpCost &cost);
  LogicalResult evaluateOp(Operation *op, OpCost &cost, int64_t &transient);

  func::FuncOp main;
  const CompletedPlan &completed;
  const Mesh &mesh;
  const Profile &profile;
};

} // namespace

LogicalResult PlanEvaluator::addSteps(Operation *op, Value v,
                                      const Sharding &from, const Sharding &to,
                                      OpCost &cost) {
  if (from == to)
    return success();
  auto type = cast<RankedTensorType>(v.getType());
  std::string error;
  auto steps = getReshardSteps(type, from, to, mesh, error);
  if (!steps)
    return op->emitError() << "cannot reshard " << type << " from "
                           << telar_sharding::formatSharding(from, mesh)
                           << " to " << telar_sharding::formatSharding(to, mesh)
                           << ": " << error;
  for (ReshardStep &step : *steps) {
    double seconds = getStepSeconds(step, mesh, profile);
    cost.commSeconds += seconds;
    cost.comm.push_back({std::move(step), seconds});
  }
  return success();
}

/// The steps, compute and transient bytes (resharded operand copies and
/// results before their slices) of one op, as telar-partition emits it.
LogicalResult PlanEvaluator::evaluateOp(Operation *op, OpCost &cost,
                                        int64_t &transient) {
  // The uses annotated with another sharding (telar-apply-plan's
  // annotate_for_users, in operand order, right before the op).
  SmallVector<Sharding> arriving;
  for (OpOperand &use : op->getOpOperands()) {
    Value v = use.get();
    Sharding s = shardingOf(v);
    auto it = completed.uses.find(&use);
    if (it != completed.uses.end() && isa<RankedTensorType>(v.getType())) {
      if (failed(addSteps(op, v, s, it->second, cost)))
        return failure();
      if (it->second != s && !isView(op))
        transient += localBytes(v, it->second);
      s = it->second;
    }
    arriving.push_back(std::move(s));
  }

  if (isa<func::ReturnOp>(op)) {
    for (auto [i, s] : llvm::enumerate(arriving))
      if (s.isPartial())
        return op->emitError("result ")
               << i << " is partial ("
               << telar_sharding::formatSharding(s, mesh)
               << "): an output must be resolved";
    return success();
  }

  std::vector<std::vector<int64_t>> operandShapes, resultShapes;
  if (!isa<ShardingRuleOpInterface>(op)) {
    // Other dialects run as they are, on replicated values only.
    for (auto [v, s] : llvm::zip(op->getOperands(), arriving)) {
      if (isa<RankedTensorType>(v.getType()) && !s.isReplicated())
        return op->emitError("telar-partition cannot partition this op: only "
                             "telar ops take sharded operands");
      operandShapes.push_back(isa<RankedTensorType>(v.getType())
                                  ? localShape(v, s)
                                  : std::vector<int64_t>());
    }
    for (Value r : op->getResults()) {
      if (!isa<RankedTensorType>(r.getType())) {
        resultShapes.emplace_back();
        continue;
      }
      if (!shardingOf(r).isReplicated())
        return op->emitError("telar-partition cannot partition this op: only "
                             "telar ops have sharded results");
      resultShapes.push_back(localShape(r, shardingOf(r)));
    }
    cost.compute = getComputeCost(op, operandShapes, resultShapes, profile);
    return success();
  }

  // The op's own assignment: gathers of what it cannot run split, the local
  // op, then local slices of its results to their shardings.
  std::string error;
  FailureOr<LocalAssignment> a =
      getLocalAssignment(op, arriving, mesh, error);
  if (failed(a))
    return op->emitError(error);
  for (auto [i, v] : llvm::enumerate(op->getOperands())) {
    if (failed(addSteps(op, v, arriving[i], a->operands[i], cost)))
      return failure();
    // A view's result is its resharded operand (counted as the result).
    if (arriving[i] != a->operands[i] && !isView(op))
      transient += localBytes(v, a->operands[i]);
    operandShapes.push_back(localShape(v, a->operands[i]));
  }
  for (auto [j, r] : llvm::enumerate(op->getResults())) {
    resultShapes.push_back(localShape(r, a->results[j]));
    // Local slices only, else telar-partition rejects the plan (with this
    // message).
    Sharding annotated = shardingOf(r);
    FailureOr<std::vector<ReshardStep>> steps =
        getResultSliceSteps(op, j, a->results[j], annotated, mesh);
    if (failed(steps))
      return failure();
    for (ReshardStep &step : *steps)
      cost.comm.push_back({std::move(step), 0.0});
    if (a->results[j] != annotated && !isa<ConstantOp, VariableOp>(op))
      transient += localBytes(r, a->results[j]);
  }
  cost.compute = getComputeCost(op, operandShapes, resultShapes, profile);
  return success();
}

FailureOr<PlanCost> PlanEvaluator::run() {
  if (main.getBody().getBlocks().size() != 1)
    return main.emitError("the cost model needs a function with one block");
  Block &body = main.getBody().front();
  PlanCost plan;
  unsigned count = body.getOperations().size();
  SmallVector<int64_t> born(count, 0), dies(count, 0), transient(count, 0);

  // Communication and compute, op by op.
  for (auto [i, op] : llvm::enumerate(body)) {
    OpCost cost;
    cost.op = &op;
    if (failed(evaluateOp(&op, cost, transient[i])))
      return failure();
    plan.computeSeconds += cost.compute.seconds;
    plan.commSeconds += cost.commSeconds;
    for (const PricedStep &p : cost.comm)
      if (p.step.kind != StepKind::LocalSlice)
        plan.bytesPerAxes[p.step.axes] += p.step.bytesSent;
    plan.ops.push_back(std::move(cost));
  }
  plan.latency = plan.computeSeconds + plan.commSeconds;

  // Memory. Weights (constants, telar.weight arguments) count once, as
  // their local shards. Every other tensor is live from its definition
  // (arguments: from the start) through its last use (returned values: to
  // the end), as its local block. A view (reshape, squeeze, unsqueeze) that
  // needs no step aliases its operand's buffer (LiveSetAnalysis's rule): it
  // adds nothing, and its uses keep that buffer alive.
  StringRef weightAttr = TelarDialect::WeightAttrHelper::getNameStr();
  llvm::DenseMap<Value, Value> rootOf;
  llvm::DenseMap<Value, unsigned> lastUse; // the tracked buffers
  SmallVector<std::pair<Value, unsigned>> buffers; // with their definition
  auto root = [&](Value v) {
    auto it = rootOf.find(v);
    return it == rootOf.end() ? v : it->second;
  };
  for (BlockArgument arg : body.getArguments()) {
    if (!isa<RankedTensorType>(arg.getType()))
      continue;
    if (main.getArgAttr(arg.getArgNumber(), weightAttr)) {
      plan.weightBytes += localBytes(arg, shardingOf(arg));
      continue;
    }
    lastUse[arg] = 0;
    buffers.push_back({arg, 0});
  }
  for (auto [i, op] : llvm::enumerate(body)) {
    unsigned at = i;
    for (Value v : op.getOperands()) {
      auto it = lastUse.find(root(v));
      if (it != lastUse.end())
        it->second = isa<func::ReturnOp>(op) ? count - 1 : at;
    }
    for (Value r : op.getResults()) {
      if (!isa<RankedTensorType>(r.getType()))
        continue;
      if (isa<ConstantOp, VariableOp>(op)) {
        int64_t bytes = localBytes(r, shardingOf(r));
        plan.weightBytes += bytes;
        if (auto v = dyn_cast<VariableOp>(op))
          (v.getName().contains('@') ? plan.optimizerStateBytes
                                     : plan.parameterBytes) += bytes;
        continue;
      }
      if (isView(&op) && plan.ops[i].comm.empty()) {
        rootOf[r] = root(op.getOperand(0));
        continue;
      }
      lastUse[r] = at;
      buffers.push_back({r, at});
    }
  }
  for (auto [v, def] : buffers) {
    int64_t bytes = localBytes(v, shardingOf(v));
    born[def] += bytes;
    dies[lastUse[v]] += bytes;
  }
  int64_t live = 0;
  for (unsigned i = 0; i < count; ++i) {
    live += born[i];
    plan.peakActivationBytes =
        std::max(plan.peakActivationBytes, live + transient[i]);
    live -= dies[i];
  }
  plan.memoryBytes = plan.weightBytes + plan.peakActivationBytes;
  return plan;
}

FailureOr<PlanCost> planner::evaluatePlan(func::FuncOp main,
                                          const CompletedPlan &completed,
                                          const Profile &profile) {
  return PlanEvaluator(main, completed, profile).run();
}

//===----------------------------------------------------------------------===//
// JSON
//===----------------------------------------------------------------------===//

static llvm::json::Array axisNames(const std::vector<int64_t> &axes,
                                   const Mesh &mesh) {
  llvm::json::Array names;
  for (int64_t a : axes)
    names.push_back(mesh.axisNames[a]);
  return names;
}

llvm::json::Value planner::toJson(const PlanCost &cost, const Mesh &mesh) {
  llvm::json::Array bytesPerAxes;
  for (const auto &[axes, bytes] : cost.bytesPerAxes)
    bytesPerAxes.push_back(llvm::json::Object{
        {"axes", axisNames(axes, mesh)}, {"bytes", bytes}});
  StringRef resultNames = TelarDialect::ResultNamesAttrHelper::getNameStr();
  llvm::json::Array ops;
  for (const OpCost &op : cost.ops) {
    llvm::json::Object entry{{"op", op.op->getName().getStringRef()}};
    if (auto names = op.op->getAttrOfType<ArrayAttr>(resultNames))
      if (!names.empty())
        if (auto name = dyn_cast<StringAttr>(names[0]))
          entry["name"] = name.getValue();
    entry["flops"] = op.compute.flops;
    entry["bytes"] = op.compute.bytes;
    entry["compute_s"] = op.compute.seconds;
    entry["comm_s"] = op.commSeconds;
    llvm::json::Array comm;
    for (const PricedStep &p : op.comm)
      comm.push_back(llvm::json::Object{
          {"kind", telar_sharding::getStepKindName(p.step.kind)},
          {"axes", axisNames(p.step.axes, mesh)},
          {"bytes", p.step.bytesSent},
          {"seconds", p.seconds}});
    if (!comm.empty())
      entry["comm"] = std::move(comm);
    ops.push_back(std::move(entry));
  }
  return llvm::json::Object{
      {"latency_s", cost.latency},
      {"compute_s", cost.computeSeconds},
      {"comm_s", cost.commSeconds},
      {"memory_bytes", cost.memoryBytes},
      {"weight_bytes", cost.weightBytes},
      {"peak_activation_bytes", cost.peakActivationBytes},
      {"bytes_per_axes", std::move(bytesPerAxes)},
      {"ops", std::move(ops)},
  };
}
