//===- ShapeInference.h - Shared result-type inference ----------*- C++ -*-===//
//
// Helpers shared by the ops' `inferReturnTypes`. Each reports problems with
// `emitOptionalError(location, ...)`, so a failed inference is the op's
// verifier error and, in the importer, the error shown to the user.
//
//===----------------------------------------------------------------------===//
#ifndef TELAR_DIALECTS_TELAR_SHAPEINFERENCE_H
#define TELAR_DIALECTS_TELAR_SHAPEINFERENCE_H

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Location.h"
#include "llvm/ADT/SmallVector.h"
#include <optional>
#include <string>

namespace mlir {
namespace telar {

/// `tensor<2x3xf32>`, for diagnostics.
std::string toString(Type type);
/// `[2, ?, 3]` (dynamic sizes as `?`), for diagnostics.
std::string toString(llvm::ArrayRef<int64_t> dims);

/// Numpy broadcasting of shapes; nullopt when they do not broadcast.
std::optional<llvm::SmallVector<int64_t>>
broadcastShapes(llvm::ArrayRef<int64_t> a, llvm::ArrayRef<int64_t> b);

/// Normalises a possibly negative axis against `rank`; nullopt when out of
/// range.
std::optional<int64_t> normalizeAxis(int64_t axis, int64_t rank);

/// Fails with "axis A is out of range for rank R" when `axis` is invalid.
LogicalResult checkAxis(std::optional<Location> loc, Type type, int64_t axis);

/// Result: same shape as `type`, element type `elementType`.
LogicalResult inferWithElementType(Type type, Type elementType,
                                   llvm::SmallVectorImpl<Type> &results);

/// Broadcast of all operand shapes; element type of the first operand unless
/// `resultElementType` is given. Operands must share an element type.
LogicalResult inferBroadcast(std::optional<Location> loc,
                             llvm::ArrayRef<Type> operands,
                             Type resultElementType,
                             llvm::SmallVectorImpl<Type> &results);

LogicalResult inferWhere(std::optional<Location> loc, Type cond, Type lhs,
                         Type rhs, llvm::SmallVectorImpl<Type> &results);

/// Reduction over `axes` (all when empty).
LogicalResult inferReduce(std::optional<Location> loc, Type input,
                          llvm::ArrayRef<int64_t> axes, bool keepDims,
                          Type resultElementType,
                          llvm::SmallVectorImpl<Type> &results);

LogicalResult inferArgReduce(std::optional<Location> loc, Type input,
                             int64_t axis, bool keepDims,
                             llvm::SmallVectorImpl<Type> &results);

/// Sliding windows over the spatial axes (2..rank) of an NC... tensor;
/// `pads` holds begin pads then end pads.
LogicalResult inferPool(std::optional<Location> loc, Type input,
                        llvm::ArrayRef<int64_t> kernel,
                        llvm::ArrayRef<int64_t> strides,
                        llvm::ArrayRef<int64_t> pads,
                        llvm::ArrayRef<int64_t> dilations, bool ceilMode,
                        llvm::SmallVectorImpl<Type> &results);

/// Output size of one windowed axis, or a negative value when the window
/// does not fit.
int64_t windowOutputSize(int64_t in, int64_t kernel, int64_t stride,
                         int64_t padBegin, int64_t padEnd, int64_t dilation,
                         bool ceilMode);

} // namespace telar
} // namespace mlir

#endif // TELAR_DIALECTS_TELAR_SHAPEINFERENCE_H
