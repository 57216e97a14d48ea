//===- TensorProto.h - ONNX TensorProto .pb files ---------------*- C++ -*-===//
//
// Reads and writes single ONNX TensorProto messages (the format of the
// ONNX test data sets' input_0.pb / output_0.pb). Lives in its own library,
// libtelar_runtime_onnx, so that libtelar_runtime stays free of protobuf.
//
// Reading accepts raw_data and the typed fields (float_data, int32_data for
// the <= 32-bit integer, bool, float16 and bfloat16 types, int64_data,
// double_data, uint64_data for uint32/uint64); writing always uses raw_data.
// External data, segments and string/complex/float8 types are refused.
//
//===----------------------------------------------------------------------===//

#ifndef TELAR_RUNTIME_TENSORPROTO_H
#define TELAR_RUNTIME_TENSORPROTO_H

#include "telar/runtime/Runtime.h"

namespace telar::runtime {

/// Reads a serialized TensorProto; `name`, when given, receives its name.
/// Throws Error naming the file on any problem.
Tensor readTensorProto(const std::string &path, std::string *name = nullptr);
/// Parses a serialized TensorProto image.
Tensor parseTensorProto(const std::string &bytes, const std::string &origin,
                        std::string *name = nullptr);

/// The ONNX TensorProto data type (its enum value) of `dtype`.
int toOnnxDataType(DType dtype);

/// Writes a dense C-order buffer as a TensorProto (raw_data).
void writeTensorProto(const std::string &path, const std::string &name,
                      DType dtype, const Shape &shape, const void *data);
/// The serialized TensorProto of a dense C-order buffer.
std::string serializeTensorProto(const std::string &name, DType dtype,
                                 const Shape &shape, const void *data);

} // namespace telar::runtime

#endif // TELAR_RUNTIME_TENSORPROTO_H
