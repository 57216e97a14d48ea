//===- ParallelWork.h - When generated loops run on threads ----*- C++ -*-===//
//
// The default of telar-linalg-to-loops' `min-parallel-work`, which the CPU
// pipeline and `telarc --min-parallel-work` share (one value, without the
// passes' headers).
//
//===----------------------------------------------------------------------===//
#ifndef TELAR_TARGETS_CPU_PARALLELWORK_H
#define TELAR_TARGETS_CPU_PARALLELWORK_H

#include <cstdint>

namespace mlir::telar {

/// The work (iterations times operations per iteration) from which a
/// generated loop nest runs on threads unless told otherwise.
constexpr int64_t kDefaultMinParallelWork = 1 << 18;

} // namespace mlir::telar

#endif // TELAR_TARGETS_CPU_PARALLELWORK_H
