//===- Reshard.h - THE resharding function ----------------------*- C++ -*-===//
//
// Converts a tensor from one sharding to another as a sequence of steps,
// each a collective over mesh axes (or a local slice). This is the one
// function both the partitioner (passes/partition, which emits a shard.*
// collective per step) and the cost model (which prices the steps) call,
// so what is priced is what runs (DESIGN.md's first contract).
//
//===----------------------------------------------------------------------===//

#ifndef TELAR_SHARDING_CORE_RESHARD_H
#define TELAR_SHARDING_CORE_RESHARD_H

#include "telar/sharding/core/Sharding.h"

#include <optional>
#include <string>
#include <vector>

namespace telar_sharding {

enum class StepKind {
  /// Concatenates the group's blocks along `dim` (the `axes` were the
  /// minor-most axes splitting `dim`; after the step they no longer split).
  AllGather,
  /// Keeps this device's block along `dim`, without communication (the
  /// `axes` become the minor-most axes splitting `dim`).
  LocalSlice,
  /// Each device cuts its block along `dim` into one piece per group member,
  /// sends piece g to member g and concatenates what it receives along
  /// `concatDim`: the `axes` move from being the minor-most splitting
  /// `concatDim` to being the minor-most splitting `dim` (shard.all_to_all's
  /// split_axis = dim, concat_axis = concatDim).
  AllToAll,
  /// Combines the partial results over `axes` with `reduction`; every
  /// member gets the whole result (the axes stop being partial).
  AllReduce,
  /// Combines the partial results over `axes` with `reduction` and leaves
  /// each member its block along `dim` (the axes stop being partial and
  /// become the minor-most axes splitting `dim`).
  ReduceScatter,
};

const char *getStepKindName(StepKind kind); // "all_gather", ...

struct ReshardStep {
  StepKind kind;
  /// The mesh axes of the group: the step runs among devices whose
  /// coordinates differ only on these axes, and a member's index in the
  /// group is row-major over its coordinates on them in this order.
  std::vector<int64_t> axes;
  /// The tensor dimension the step splits or joins (see StepKind); -1 for
  /// AllReduce.
  int64_t dim = -1;
  /// AllToAll only: the dimension that is concatenated.
  int64_t concatDim = -1;
  /// AllReduce and ReduceScatter.
  ReductionKind reduction = ReductionKind::Sum;
  /// The sharding before and after the step.
  Sharding before, after;
  /// The local (per-device) shapes before and after the step.
  std::vector<int64_t> inputShape, outputShape;
  /// The bytes each device sends in this step with the usual ring and
  /// pairwise algorithms, for a group of G devices and a local input of B
  /// bytes: all-gather (G-1)*B, reduce-scatter (G-1)/G*B, all-reduce
  /// 2(G-1)/G*B, all-to-all (G-1)/G*B, local slice 0.
  int64_t bytesSent = 0;
};

/// The steps that turn a tensor of global `shape` and `elementBytes` bytes
/// per element from `source` to `target` on `mesh` (both valid for it). No
/// steps when they are equal. Deterministic. nullopt with `error` set when
/// no sequence exists (a target that makes a value partial that is not).
/// The sequence sends the fewest bytes (then takes the fewest collectives)
/// of those these steps can express (Reshard.cpp says how); a step over
/// several axes lists them in ascending order, so its member index is also
/// Abi.h's.
std::optional<std::vector<ReshardStep>>
reshard(const std::vector<int64_t> &shape, int64_t elementBytes,
        const Sharding &source, const Sharding &target, const Mesh &mesh,
        std::string &error);

/// A fixed recipe (slice what is in place, reduce-scatter or all-reduce
/// partial axes, all-to-all axes that move, gather the rest), always valid
/// but not always the cheapest: what reshard() falls back to when its search
/// would expand too many shardings, exposed for tests. Same contract.
std::optional<std::vector<ReshardStep>>
reshardByRecipe(const std::vector<int64_t> &shape, int64_t elementBytes,
                const Sharding &source, const Sharding &target,
                const Mesh &mesh, std::string &error);

/// What reshard() costs at least, without its search: the lower bound of
/// its A* (the bytes that the partial axes still to resolve and the split
/// axes that must leave their dimension move at least), and whether any
/// collective is needed (false: local slices get there, for free).
struct ReshardBound {
  int64_t bytes = 0;
  bool communicates = false;
};
/// nullopt when the pair is invalid (as reshard() would fail on it).
std::optional<ReshardBound>
getReshardLowerBound(const std::vector<int64_t> &shape, int64_t elementBytes,
                     const Sharding &source, const Sharding &target,
                     const Mesh &mesh);

/// The bytes each device sends in a step of `kind` over a group of
/// `groupSize` devices with a local input of `inputBytes` (the formulas of
/// ReshardStep::bytesSent). The runtime counts what it sends with it too.
int64_t getStepBytes(StepKind kind, int64_t groupSize, int64_t inputBytes);

/// The sum of the steps' bytesSent.
int64_t getBytesSent(const std::vector<ReshardStep> &steps);

} // namespace telar_sharding

#endif // TELAR_SHARDING_CORE_RESHARD_H
