//===- InitAllTelar.h - Register everything a Telar tool uses ---*- C++ -*-===//
#ifndef TELAR_INITALLTELAR_H
#define TELAR_INITALLTELAR_H

namespace mlir {
class DialectRegistry;
namespace telar {

/// The telar dialect plus every upstream dialect and interface model the
/// pipeline uses (func, arith, math, tensor, linalg, shard, scf, memref,
/// bufferization, gpu, nvvm, llvm). Shared by telar-opt, telarc and tests.
void registerAllTelar(DialectRegistry &registry);

/// Telar's passes plus the upstream passes the pipeline uses.
void registerAllTelarPasses();

} // namespace telar
} // namespace mlir

#endif // TELAR_INITALLTELAR_H
