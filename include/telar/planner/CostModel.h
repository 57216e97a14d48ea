//===- CostModel.h - What a plan costs on a hardware profile ----*- C++ -*-===//
//
// Prices a completed plan exactly as telar-partition will emit it: per op
// the compute on its local shards (a roofline of FLOPs and bytes moved),
// per resharding step the α-β time of its collective at the interconnect
// level its mesh axes reach, per device the memory of the weight shards and
// the peak of live activations. The steps are those of the functions the
// partitioner itself calls (telar/sharding/OpSharding.h: getReshardSteps,
// getLocalAssignment), so what is priced is what runs; a test checks it
// against -test-telar-collectives for every model and plan of the suite.
//
//===----------------------------------------------------------------------===//
#ifndef TELAR_PLANNER_COSTMODEL_H
#define TELAR_PLANNER_COSTMODEL_H

#include "telar/planner/Profile.h"
#include "telar/sharding/Completion.h"
#include "telar/sharding/core/Reshard.h"
#include "telar/sharding/core/Sharding.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Operation.h"
#include "mlir/Support/LLVM.h"
#include "llvm/Support/JSON.h"

#include <map>
#include <optional>
#include <vector>

namespace mlir::telar::planner {

using telar_planner::Profile;

/// The level index (into profile.levels) a group over `axes` of `mesh`
/// reaches. Ranks are row-major over the mesh axes (the last is minor), so
/// axis a has stride = the product of the sizes of the axes after it; a
/// group stays within a group of level l (of levels[l].devices devices, 0:
/// unbounded) iff stride * size <= levels[l].devices for each of its axes.
/// The innermost such level; 0 for no axes; the outermost when none holds.
unsigned getLinkLevel(const telar_sharding::Mesh &mesh, ArrayRef<int64_t> axes,
                      const Profile &profile);

/// α-β time of one resharding step (0 for LocalSlice): alpha + bytesSent /
/// beta at its level, (alpha, beta) = the level's fit for the step's kind
/// when the profile has one, else (latency, bandwidth).
double getStepSeconds(const telar_sharding::ReshardStep &step,
                      const telar_sharding::Mesh &mesh, const Profile &profile);

/// A lower bound of the summed getStepSeconds of reshard()'s steps from
/// `from` to `to`, without searching: 0 when no step communicates, else the
/// latency plus getReshardLowerBound's bytes at the fastest fit of the
/// innermost level any axis of `from` or `to` reaches (reshard() moves only
/// those axes, and a step runs at the level of its outermost axis). nullopt
/// when the pair is invalid or has no resharding (a partial axis the
/// source lacks). `communicates` (optional) says whether any step does: when
/// not, 0 is the exact price.
std::optional<double> getReshardSecondsLowerBound(
    const std::vector<int64_t> &shape, int64_t elementBytes,
    const telar_sharding::Sharding &from, const telar_sharding::Sharding &to,
    const telar_sharding::Mesh &mesh, const Profile &profile,
    bool *communicates = nullptr);

/// Roofline compute of `op` on its local shard.
struct ComputeCost {
  double flops = 0, bytes = 0, seconds = 0;
};

/// seconds = profile.opOverhead + max(flops / peak(dtype), bytes /
/// memoryBandwidth); flops: contractions (matmul, einsum, conv,
/// conv_transpose) 2 per multiply-add of the local iteration space;
/// reductions, normalisations, softmax, pools, top_k, cum_sum 1 per element
/// of their largest operand; data movement 0; everything else 1 per result
/// element (CostModel.cpp documents each family); bytes: local operand +
/// result bytes. Views (reshape, squeeze, unsqueeze) and constants run no
/// kernel and cost nothing.
ComputeCost getComputeCost(Operation *op,
                           ArrayRef<std::vector<int64_t>> localOperandShapes,
                           ArrayRef<std::vector<int64_t>> localResultShapes,
                           const Profile &profile);

/// One priced collective, as the partitioner emits it.
struct PricedStep {
  telar_sharding::ReshardStep step;
  double seconds = 0;
};

struct OpCost {
  Operation *op = nullptr;
  ComputeCost compute;
  /// The reshard steps emitted for this op, in emission order: its uses'
  /// annotated resharding (operand order), then the op's own gathers to the
  /// shardings it runs on (operand order), then the local slices of its
  /// results to their shardings (priced 0); for func.return, the outputs'.
  std::vector<PricedStep> comm;
  double commSeconds = 0;
};

struct PlanCost {
  std::vector<OpCost> ops; // program order, return last
  double computeSeconds = 0, commSeconds = 0;
  double latency = 0;              // compute + comm (no overlap)
  int64_t weightBytes = 0;         // per device: local shards of constants / weights
  // Of weightBytes, a training step's: the parameters (telar.variable "P")
  // and the optimizer state (telar.variable "P@m", ...).
  int64_t parameterBytes = 0, optimizerStateBytes = 0;
  int64_t peakActivationBytes = 0; // per device: max over program points of live non-weight values
  int64_t memoryBytes = 0;         // weightBytes + peakActivationBytes
  std::map<std::vector<int64_t>, int64_t> bytesPerAxes; // bytes sent per device, by axis set
};

/// Prices `completed` exactly as telar-partition will emit it: for every
/// use, the steps of reshard(value's sharding -> use's sharding) and then
/// of the op's own gathers (getLocalAssignment's operand shardings), per op
/// the compute on local shapes, memory by liveness in program order. Fails
/// with an error at the op when the partitioner would reject the plan.
/// Linear in the size of @main (one assignment and a few reshards per op).
FailureOr<PlanCost> evaluatePlan(func::FuncOp main,
                                 const CompletedPlan &completed,
                                 const Profile &profile);

/// The breakdown for plan.json's "cost" object and the explain table
/// (docs/Plan.md): totals, bytes per axis set, and per op its compute and
/// its steps.
llvm::json::Value toJson(const PlanCost &cost, const telar_sharding::Mesh &mesh);

} // namespace mlir::telar::planner

#endif // TELAR_PLANNER_COSTMODEL_H
