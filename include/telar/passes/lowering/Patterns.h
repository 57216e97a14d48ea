//===- Patterns.h - telar -> linalg lowering patterns -----------*- C++ -*-===//
//
// The lowering of telar ops to linalg/tensor/arith/math is split by op
// family, one file each in passes/lowering/. Each file contributes its
// patterns through one populate function; the telar-lower-to-linalg pass
// collects them all.
//
//===----------------------------------------------------------------------===//
#ifndef TELAR_PASSES_LOWERING_PATTERNS_H
#define TELAR_PASSES_LOWERING_PATTERNS_H

namespace mlir {
class RewritePatternSet;
class TypeConverter;
namespace telar {

/// Unary/binary elementwise ops, cast, where, is_nan/is_inf, clip.
void populateElementwiseLoweringPatterns(const TypeConverter &converter,
                                         RewritePatternSet &patterns);
/// reduce_*, arg_max/min, softmax family, norms, cum_sum, top_k, lp_norm.
void populateReductionLoweringPatterns(const TypeConverter &converter,
                                         RewritePatternSet &patterns);
/// Reshapes, transposes, slices, concat/split, gathers/scatters, pad, tile,
/// expand, one_hot, trilu, resize, depth/space, rotary_embedding.
void populateDataMovementLoweringPatterns(const TypeConverter &converter,
                                         RewritePatternSet &patterns);
/// matmul, einsum, conv, conv_transpose, pools.
void populateContractionLoweringPatterns(const TypeConverter &converter,
                                         RewritePatternSet &patterns);

} // namespace telar
} // namespace mlir

#endif // TELAR_PASSES_LOWERING_PATTERNS_H
