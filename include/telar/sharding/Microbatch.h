//===- Microbatch.h - The program of one microbatch -------------*- C++ -*-===//
//
// A pipeline splits the batch into M microbatches that run through the
// stages one after another. Microbatching is data parallelism executed in
// sequence, with one difference: no global layout has to hold. The batch
// is followed from the inputs through each op's sharding rule: in every op
// it goes through it is (part of) one parallel factor, anywhere in its
// dimension (a sequence-first attention merges it into [S * B, D]); that
// factor shrinks M times, attributes holding its size get the local one
// (localizeAttributes, OpSharding.h: telar-partition's own), and result
// types are inferred again. An op that would make microbatches meet (the batch a
// reduction or a factor its op computes whole, a value the batch's size that
// differs per batch element without coming from the inputs, an output
// holding the batch inside a dimension) is refused, naming it. What remains
// is a plain telar program at microbatch shape, with the same value names
// (getValueNames) as before.
//
//===----------------------------------------------------------------------===//
#ifndef TELAR_SHARDING_MICROBATCH_H
#define TELAR_SHARDING_MICROBATCH_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Support/LLVM.h"

#include <cstdint>
#include <vector>

namespace mlir::telar {

struct MicrobatchInfo {
  int64_t microbatches = 1, batch = 0;
  /// Per non-weight @main argument: the split dim (0) or -1 (the input goes
  /// whole to every microbatch).
  std::vector<int64_t> inputDims;
  /// Per result: the dim the microbatches' results concatenate along, or
  /// -1 when every microbatch computes the whole result (from inputs that
  /// are not split), which is then microbatch 0's.
  std::vector<int64_t> outputDims;
};

/// Rewrites `main` in place into the program of one microbatch (local
/// shapes B/M). The batch B is dim 0 of the first non-weight argument;
/// every non-weight argument whose dim 0 is B is split along dim 0, the
/// others go whole to every microbatch. Errors are emitted and fail: M
/// that does not divide B (`--microbatches 3 does not divide the batch (4,
/// dim 0 of 'input_ids')`), a program whose microbatches would meet (at
/// the op, naming it and why), a module already partitioned. On failure the module may be left half
/// rewritten (callers that go on clone it first). M = 1 leaves the program
/// as it is and only fills in the info.
FailureOr<MicrobatchInfo> makeMicrobatchProgram(func::FuncOp main,
                                                int64_t microbatches);

} // namespace mlir::telar

#endif // TELAR_SHARDING_MICROBATCH_H
