//===- ImporterInternal.h - Shared state of the ONNX importer ---*- C++ -*-===//
//
// Private to lib/onnx. The model loader turns bytes into a ModelProto and
// TensorProtos into attributes; the graph importer walks the graph and calls
// one converter per node through the table built by the OpConverters*.cpp
// files. A converter sees the node through an OpContext: its inputs (null
// when an optional input is absent), typed attribute getters, helpers that
// create telar ops without ever aborting (type inference failures become
// diagnostics), and helpers that read inputs which must be constants.
//
//===----------------------------------------------------------------------===//
#ifndef TELAR_LIB_ONNX_IMPORTERINTERNAL_H
#define TELAR_LIB_ONNX_IMPORTERINTERNAL_H

#include "telar/dialects/Telar/ShapeInference.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/OperationSupport.h"
#include "mlir/IR/Verifier.h"
#include "llvm/ADT/StringMap.h"

#include "onnx/onnx_pb.h"

#include <functional>
#include <memory>
#include <optional>
#include <string>

namespace mlir::telar::onnx_import {

/// Tensors with at most this many elements become plain `dense` attributes
/// (so shape math folds); larger ones become blob resources.
constexpr int64_t kDenseElementLimit = 64;

//===----------------------------------------------------------------------===//
// Model loading and tensors (ModelLoader.cpp, Tensors.cpp)
//===----------------------------------------------------------------------===//

/// Parses `bytes` as a binary ModelProto, or as `.onnxtext` when `isText`.
/// Reports errors at `loc`.
LogicalResult parseModel(llvm::StringRef bytes, bool isText, Location loc,
                         ::onnx::ModelProto &model);

/// Memory-maps external data files on demand and keeps each mapping alive
/// as long as some blob refers to it.
class ExternalDataCache;

struct TensorLoader {
  TensorLoader(MLIRContext *ctx, llvm::StringRef baseDir);
  ~TensorLoader();
  /// Converts an ONNX element type; null (and an error at `loc`) when it has
  /// no telar equivalent.
  Type elementType(int32_t onnxType, Location loc);
  /// Converts a TensorProto into an elements attribute of the tensor's own
  /// dims and element type: `dense` for tiny or boolean tensors, a blob
  /// resource (named after the tensor) otherwise. The data comes from
  /// `raw_data`, the typed `*_data` fields, or, for external data, a file
  /// inside `baseDir`, memory-mapped (a large, aligned tensor's blob refers
  /// to the mapping instead of copying it). Null (and an error at `loc`
  /// naming the tensor) for string or unknown element types, negative dims,
  /// data whose size does not match the type, or an external file that
  /// cannot be read or lies outside `baseDir`. (Constant's
  /// `value_float`/`value_int(s)` attributes are no TensorProto; its
  /// converter builds those itself.)
  ElementsAttr convert(const ::onnx::TensorProto &tensor, Location loc);
  /// The `expected` bytes of a tensor held in external data, memory-mapped
  /// (the mapping lives as long as the loader, or as `owner` when given);
  /// a failure (an error at `loc`) when its file cannot be read, lies
  /// outside `baseDir` or holds another size.
  FailureOr<llvm::ArrayRef<char>>
  externalBytes(const ::onnx::TensorProto &tensor, uint64_t expected,
                Location loc, std::shared_ptr<const void> *owner = nullptr);

  MLIRContext *ctx;
  std::string baseDir;
  std::unique_ptr<ExternalDataCache> external;
};

/// Bytes `count` elements of `t` take in ONNX data (4-bit types: two per
/// byte).
uint64_t onnxBytes(Type t, int64_t count);

/// Builds an elements attribute of `type` from raw little-endian bytes:
/// dense when small (or boolean: one byte per element), else a heap blob.
ElementsAttr makeElements(RankedTensorType type, llvm::ArrayRef<char> raw,
                          llvm::StringRef blobName);

/// Reads the value bound to graph input `name` from `path`: a numpy `.npy`
/// file or a binary ONNX TensorProto. `declared` (may be null) is the
/// input's element type, used to accept raw-byte numpy dtypes. Null (and an
/// error at `loc`) when the file cannot be read.
ElementsAttr loadInputValue(MLIRContext *ctx, llvm::StringRef name,
                            llvm::StringRef path, Type declared, Location loc);

/// Element type of an ONNX `to`/`dtype` enum, or null.
Type onnxElementType(MLIRContext *ctx, int32_t onnxType);

/// Reads a constant elements attribute (dense or resource) as int64 / double
/// values; nullopt when it is not readable (e.g. too large, not numeric).
std::optional<llvm::SmallVector<int64_t>> readInts(Attribute attr);
std::optional<llvm::SmallVector<double>> readFloats(Attribute attr);

//===----------------------------------------------------------------------===//
// Converters (OpConverters*.cpp)
//===----------------------------------------------------------------------===//

class OpContext;
using Converter = LogicalResult (*)(OpContext &);

struct ConverterInfo {
  Converter fn;
  /// First opset the op exists in (the importer's range starts at 11).
  int64_t minOpset = 1;
};
using ConverterTable = llvm::StringMap<ConverterInfo>;

void registerElementwiseConverters(ConverterTable &table);
void registerReductionConverters(ConverterTable &table);
void registerNNConverters(ConverterTable &table);
void registerShapeConverters(ConverterTable &table);
void registerMiscConverters(ConverterTable &table);

/// The full table, built once.
const ConverterTable &getConverterTable();

/// What a converter sees of one node.
class OpContext {
public:
  OpContext(OpBuilder &b, Location loc, const ::onnx::NodeProto &node,
            int64_t opset, llvm::ArrayRef<Value> inputs,
            llvm::ArrayRef<bool> outputUsed, TensorLoader &tensors)
      : b(b), loc(loc), node(node), opset(opset), inputs(inputs),
        outputUsed(outputUsed), tensors(tensors),
        results(node.output_size(), Value()) {}

  OpBuilder &b;
  Location loc;
  const ::onnx::NodeProto &node;
  int64_t opset;
  llvm::ArrayRef<Value> inputs;
  llvm::ArrayRef<bool> outputUsed;
  TensorLoader &tensors;
  /// One value per node output; a converter sets those that are used.
  llvm::SmallVector<Value> results;

  MLIRContext *getContext() { return b.getContext(); }
  llvm::StringRef opType() const { return node.op_type(); }

  // --- inputs ---------------------------------------------------------
  unsigned numInputs() const { return inputs.size(); }
  /// Input `i`, or null when absent (out of range or empty name).
  Value in(unsigned i) const { return i < inputs.size() ? inputs[i] : Value(); }
  bool has(unsigned i) const { return (bool)in(i); }
  /// Input `i`, or an error naming it when absent.
  Value required(unsigned i, llvm::StringRef what);
  bool used(unsigned i) const { return i < outputUsed.size() && outputUsed[i]; }

  // --- attributes -----------------------------------------------------
  const ::onnx::AttributeProto *attr(llvm::StringRef name) const;
  bool hasAttr(llvm::StringRef name) const { return attr(name) != nullptr; }
  int64_t getInt(llvm::StringRef name, int64_t dflt) const;
  double getFloat(llvm::StringRef name, double dflt) const;
  std::string getString(llvm::StringRef name, llvm::StringRef dflt) const;
  llvm::SmallVector<int64_t> getInts(llvm::StringRef name) const;
  llvm::SmallVector<double> getFloats(llvm::StringRef name) const;

  // --- diagnostics ----------------------------------------------------
  /// Emits `msg` as an error (the importer prefixes the node) and fails.
  LogicalResult fail(const llvm::Twine &msg);
  /// Normalises possibly negative axes against `rank` in place; fails naming
  /// the first out-of-range axis.
  LogicalResult normalizeAxes(llvm::SmallVectorImpl<int64_t> &axes,
                              int64_t rank);

  // --- constants ------------------------------------------------------
  /// The integer values of input `i`, which must be a constant.
  FailureOr<llvm::SmallVector<int64_t>> constInts(unsigned i,
                                                  llvm::StringRef what);
  FailureOr<llvm::SmallVector<double>> constFloats(unsigned i,
                                                   llvm::StringRef what);
  /// Optional constant input: nullopt when absent, failure when not constant.
  FailureOr<std::optional<llvm::SmallVector<int64_t>>>
  optConstInts(unsigned i, llvm::StringRef what);
  /// A dense constant of the given shape and element type.
  Value constant(DenseElementsAttr value);
  Value constI64(llvm::ArrayRef<int64_t> values);
  /// A rank-0 constant of element type `elementType` holding `v`.
  Value scalar(Type elementType, double v);

  // --- op creation ----------------------------------------------------
  /// Creates `name` with inferred result types and folds it. On failure the
  /// dialect's diagnostic has been emitted and the result is empty.
  llvm::SmallVector<Value> createGeneric(llvm::StringRef name,
                                         mlir::ValueRange operands,
                                         llvm::ArrayRef<NamedAttribute> attrs,
                                         OpaqueProperties props,
                                         LogicalResult (*infer)(
                                             MLIRContext *, std::optional<Location>,
                                             ValueRange, DictionaryAttr,
                                             OpaqueProperties, RegionRange,
                                             llvm::SmallVectorImpl<Type> &));

  /// Creates `OpTy` with inferred result types, folding it when possible;
  /// returns the results (empty on failure).
  template <typename OpTy>
  llvm::SmallVector<Value> createMulti(mlir::ValueRange operands,
                                       llvm::ArrayRef<NamedAttribute> attrs = {}) {
    typename OpTy::Properties props;
    DictionaryAttr dict = DictionaryAttr::get(getContext(), attrs);
    auto emitErr = [&]() { return emitError(loc); };
    if (failed(OpTy::setPropertiesFromAttr(props, dict, emitErr)))
      return {};
    return createGeneric(OpTy::getOperationName(), operands, attrs,
                         OpaqueProperties(&props), &OpTy::inferReturnTypes);
  }
  template <typename OpTy>
  Value create(mlir::ValueRange operands,
               llvm::ArrayRef<NamedAttribute> attrs = {}) {
    auto results = createMulti<OpTy>(operands, attrs);
    return results.empty() ? Value() : results.front();
  }

  /// Sets output 0 to `v`; fails when `v` is null.
  LogicalResult done(Value v) {
    if (!v)
      return failure();
    results[0] = v;
    return success();
  }

  // --- attribute builders ---------------------------------------------
  NamedAttribute named(llvm::StringRef name, Attribute a) {
    return NamedAttribute(b.getStringAttr(name), a);
  }
  NamedAttribute i64(llvm::StringRef name, int64_t v) {
    return named(name, b.getI64IntegerAttr(v));
  }
  NamedAttribute f32(llvm::StringRef name, double v) {
    return named(name, b.getF32FloatAttr(v));
  }
  NamedAttribute f64(llvm::StringRef name, double v) {
    return named(name, b.getF64FloatAttr(v));
  }
  NamedAttribute boolean(llvm::StringRef name, bool v) {
    return named(name, b.getBoolAttr(v));
  }
  NamedAttribute str(llvm::StringRef name, llvm::StringRef v) {
    return named(name, b.getStringAttr(v));
  }
  NamedAttribute i64s(llvm::StringRef name, llvm::ArrayRef<int64_t> v) {
    return named(name, b.getDenseI64ArrayAttr(v));
  }
  NamedAttribute f32s(llvm::StringRef name, llvm::ArrayRef<float> v) {
    return named(name, b.getDenseF32ArrayAttr(v));
  }
};

/// Shape helpers.
inline RankedTensorType tensorType(Value v) {
  return llvm::dyn_cast<RankedTensorType>(v.getType());
}
inline llvm::ArrayRef<int64_t> shapeOf(Value v) {
  return tensorType(v).getShape();
}
inline int64_t rankOf(Value v) { return tensorType(v).getRank(); }
inline Type elementTypeOf(Value v) { return tensorType(v).getElementType(); }

/// Axes are normalised with the dialect's helper.
using mlir::telar::normalizeAxis;

} // namespace mlir::telar::onnx_import

#endif // TELAR_LIB_ONNX_IMPORTERINTERNAL_H
