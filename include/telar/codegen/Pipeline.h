//===- Pipeline.h - Telar's named pass pipelines ----------------*- C++ -*-===//
//
// One place builds the pass pipelines (IREE style), from typed pass
// constructors. telarc runs them through its target backend
// (TargetBackend.h); telar-opt registers them by name so that lit tests and
// users run exactly what telarc runs:
//
//   telar-prepare-program       target-independent: weights transposed
//                               and constants folded at compile time, then
//                               outlined into arguments
//   telar-lower-to-fused-linalg telar-prepare-program + the translation
//                               prefix every target shares: linalg on
//                               tensors, collectives as runtime calls,
//                               elementwise chains fused
//
// A target registers its own (the CPU's telar-lower-to-llvm: CpuPipeline.h).
//
//===----------------------------------------------------------------------===//
#ifndef TELAR_CODEGEN_PIPELINE_H
#define TELAR_CODEGEN_PIPELINE_H

namespace mlir {
class OpPassManager;
namespace telar {

/// What follows the import: canonicalisation (which folds the shape
/// subgraphs away) and CSE. Its result is what `telarc --emit=mlir` prints.
void buildImportCleanupPipeline(OpPassManager &pm);

/// `telar-prepare-program`: target-independent steps between the graph IR
/// and a target's translation (telar-fold-weight-transposes,
/// telar-outline-weights). Afterwards @main takes the weights as trailing
/// arguments marked `telar.weight`.
void buildProgramPreparationPipeline(OpPassManager &pm);

/// telar-prepare-program, then telar-lower-to-linalg: the program in
/// linalg/tensor/arith/math (what `telarc --emit=linalg` prints).
void buildLowerToLinalgPipeline(OpPassManager &pm);

/// The translation prefix every target shares, on a prepared program:
/// telar-lower-to-linalg, the collectives of a partitioned program as calls
/// of the collective ABI (telar-lower-collectives; `runtimeCollectives`
/// false makes a collective an error, for programs that will not get the
/// runtime context), bias and residual adds folded into the contractions'
/// inits, elementwise chains fused, CSE. Its result (linalg on tensors) is
/// what a target's TargetBackend::buildTranslationPipeline starts from.
void buildFusedLinalgPipeline(OpPassManager &pm,
                              bool runtimeCollectives = true);

/// Bufferization of the fused linalg program, as every target does it:
/// function-boundary one-shot bufferization with identity layouts
/// (arguments read-only: telar-read-only-arguments), results turned into
/// caller-provided out-params (the runtime passes the output buffers), the
/// final allocations hoisted into them.
void buildBufferizationPipeline(OpPassManager &pm);

/// `telar-lower-to-fused-linalg`: buildProgramPreparationPipeline, then
/// buildFusedLinalgPipeline.
void buildLowerToFusedLinalgPipeline(OpPassManager &pm);

/// Registers `telar-prepare-program` and `telar-lower-to-fused-linalg`.
void registerTelarPipelines();

} // namespace telar
} // namespace mlir

#endif // TELAR_CODEGEN_PIPELINE_H
