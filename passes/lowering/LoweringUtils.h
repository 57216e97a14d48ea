//===- LoweringUtils.h - Shared helpers of the linalg lowering --*- C++ -*-===//
#ifndef TELAR_PASSES_LOWERING_LOWERINGUTILS_H
#define TELAR_PASSES_LOWERING_LOWERINGUTILS_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Builders.h"
#include "mlir/Transforms/DialectConversion.h"

namespace mlir::telar {

/// Body of an elementwise generic: scalar arguments in, one scalar out.
using ScalarBuilder =
    llvm::function_ref<Value(OpBuilder &, Location, ValueRange)>;

/// The map from a result of rank `resultRank` to an operand of type
/// `operandType` under ONNX (numpy) broadcasting: trailing dimensions
/// aligned, size-1 operand dimensions read at index 0.
AffineMap broadcastMap(MLIRContext *ctx, ShapedType operandType,
                       int64_t resultRank);

/// An uninitialised tensor of the given type (tensor.empty).
Value emptyTensor(OpBuilder &b, Location loc, RankedTensorType type);

/// A tensor of the given type filled with `value` (tensor.empty + linalg.fill).
Value filledTensor(OpBuilder &b, Location loc, RankedTensorType type,
                   TypedAttr value);

/// An all-parallel linalg.generic computing `resultType` from `operands`
/// with broadcasting; `body` receives one scalar per operand.
Value buildElementwise(OpBuilder &b, Location loc, RankedTensorType resultType,
                       ValueRange operands, ScalarBuilder body);

/// A scalar constant of `type` (float, integer or index) equal to `value`.
Value scalarConstant(OpBuilder &b, Location loc, Type type, double value);

/// The attribute for `value` in `type` (float or integer).
TypedAttr scalarAttr(Type type, double value);

/// Identity / lowest / highest value of an element type, used to seed
/// reductions (for floats: -inf / +inf).
TypedAttr lowestValue(Type type);
TypedAttr highestValue(Type type);

/// Converts a scalar between (signless) element types with ONNX Cast
/// semantics: float->int truncates toward zero, x->bool is `x != 0`, bool
/// is unsigned, other integers are signed unless the flags say otherwise
/// (take them from the telar op's original `ui*` element types).
Value convertScalar(OpBuilder &b, Location loc, Value v, Type toType,
                    bool fromUnsigned = false, bool toUnsigned = false);

/// The signless type lowered code uses for a telar element type: `ui8`
/// becomes `i8` (arith only accepts signless integers); others unchanged.
Type signlessElementType(Type type);

/// The type converter of the lowering: tensors with unsigned integer
/// elements become signless, everything else stays.
class TelarTypeConverter : public TypeConverter {
public:
  TelarTypeConverter();
};

/// Whether every operand and result of `op` is a statically shaped ranked
/// tensor. telar-lower-to-linalg checks this for every op before any
/// pattern runs, so patterns may assume static shapes.
bool hasStaticShapes(Operation *op);

/// Identity indexing maps for `n` operands of rank `rank`.
SmallVector<AffineMap> identityMaps(MLIRContext *ctx, int64_t rank, int n);

/// `n` copies of the parallel iterator type.
SmallVector<utils::IteratorType> parallelIterators(int64_t n);

/// The type reductions and contractions accumulate in: floats narrower than
/// f32 in f32 (as onnxruntime's CPU kernels do), everything else in itself.
Type accumulatorType(Type element);

/// `v` reshaped to `type` (same element count): one tensor.collapse_shape or
/// tensor.expand_shape when the dimensions regroup, else through a 1-D
/// tensor; `v` itself when the shapes already agree.
Value reshapeTensor(OpBuilder &b, Location loc, Value v, RankedTensorType type);

/// linalg.transpose of `v` by `perm` (result dim i = input dim perm[i]);
/// `v` itself when `perm` is the identity.
Value transposeTensor(OpBuilder &b, Location loc, Value v,
                      ArrayRef<int64_t> perm);

} // namespace mlir::telar

#endif // TELAR_PASSES_LOWERING_LOWERINGUTILS_H
