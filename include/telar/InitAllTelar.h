//===- InitAllTelar.h - Register everything a Telar tool uses ---*- C++ -*-===//
#ifndef TELAR_INITALLTELAR_H
#define TELAR_INITALLTELAR_H

namespace mlir {
class DialectRegistry;
namespace telar {

/// The telar dialect, every upstream dialect (the pipelines use func,
/// arith, math, tensor, linalg, shard, scf, memref, bufferization, omp and
/// llvm among them) with their extensions and interface models, and every
/// dialect's translation to LLVM IR. Shared by telar-opt, telarc and tests.
void registerAllTelar(DialectRegistry &registry);

/// Telar's production passes (passes/*, targets/*/passes), every upstream
/// pass, and Telar's named pipelines (telar-prepare-program,
/// telar-lower-to-fused-linalg, and the CPU target's telar-lower-to-llvm).
/// Test passes (test/lib) are telar-opt's own.
void registerAllTelarPasses();

/// Every code target telarc's --target can name (cpu).
void registerAllTargetBackends();

} // namespace telar
} // namespace mlir

#endif // TELAR_INITALLTELAR_H
