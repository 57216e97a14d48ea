//===- TensorProto.cpp - ONNX TensorProto .pb files -----------------------===//

#include "telar/runtime/TensorProto.h"
#include "telar/runtime/FileUtil.h"

#include "onnx/onnx_pb.h"

#include <cstring>

using namespace telar::runtime;

namespace {

std::optional<DType> fromOnnx(int type) {
  switch (type) {
  case onnx::TensorProto::FLOAT:
    return DType::Float32;
  case onnx::TensorProto::DOUBLE:
    return DType::Float64;
  case onnx::TensorProto::FLOAT16:
    return DType::Float16;
  case onnx::TensorProto::BFLOAT16:
    return DType::BFloat16;
  case onnx::TensorProto::INT8:
    return DType::Int8;
  case onnx::TensorProto::INT16:
    return DType::Int16;
  case onnx::TensorProto::INT32:
    return DType::Int32;
  case onnx::TensorProto::INT64:
    return DType::Int64;
  case onnx::TensorProto::UINT8:
    return DType::UInt8;
  case onnx::TensorProto::UINT16:
    return DType::UInt16;
  case onnx::TensorProto::UINT32:
    return DType::UInt32;
  case onnx::TensorProto::UINT64:
    return DType::UInt64;
  case onnx::TensorProto::BOOL:
    return DType::Bool;
  default:
    return std::nullopt;
  }
}

onnx::TensorProto::DataType toOnnx(DType dtype) {
  switch (dtype) {
  case DType::Float32:
    return onnx::TensorProto::FLOAT;
  case DType::Float64:
    return onnx::TensorProto::DOUBLE;
  case DType::Float16:
    return onnx::TensorProto::FLOAT16;
  case DType::BFloat16:
    return onnx::TensorProto::BFLOAT16;
  case DType::Int8:
    return onnx::TensorProto::INT8;
  case DType::Int16:
    return onnx::TensorProto::INT16;
  case DType::Int32:
    return onnx::TensorProto::INT32;
  case DType::Int64:
    return onnx::TensorProto::INT64;
  case DType::UInt8:
    return onnx::TensorProto::UINT8;
  case DType::UInt16:
    return onnx::TensorProto::UINT16;
  case DType::UInt32:
    return onnx::TensorProto::UINT32;
  case DType::UInt64:
    return onnx::TensorProto::UINT64;
  case DType::Bool:
    return onnx::TensorProto::BOOL;
  }
  return onnx::TensorProto::UNDEFINED;
}

/// Copies the typed field `values` into `out`, converting each element to
/// the tensor's storage type `T` (ONNX packs narrow types into wider
/// fields, e.g. int8 and float16 bits into int32_data).
template <typename T, typename Field>
void copyTyped(const Field &values, Tensor &out) {
  T *dst = out.data<T>();
  for (int i = 0; i < values.size(); ++i)
    dst[i] = static_cast<T>(values.Get(i));
}

} // namespace

int telar::runtime::toOnnxDataType(DType dtype) { return toOnnx(dtype); }

Tensor telar::runtime::parseTensorProto(const std::string &bytes,
                                        const std::string &origin,
                                        std::string *name) {
  onnx::TensorProto proto;
  if (!proto.ParseFromString(bytes))
    throw Error(origin + ": not a serialized ONNX TensorProto");
  if (proto.data_location() == onnx::TensorProto::EXTERNAL ||
      proto.external_data_size() > 0)
    throw Error(origin + ": tensors with external data are not supported");
  if (proto.has_segment())
    throw Error(origin + ": segmented tensors are not supported");
  std::optional<DType> dtype = fromOnnx(proto.data_type());
  if (!dtype) {
    const std::string &typeName =
        onnx::TensorProto::DataType_Name(proto.data_type());
    throw Error(
        origin + ": unsupported tensor data type " +
        (typeName.empty() ? std::to_string(proto.data_type()) : typeName));
  }
  Shape shape;
  uint64_t numElements = 1;
  bool overflow = false;
  for (int64_t d : proto.dims()) {
    if (d < 0)
      throw Error(origin + ": negative dimension " + std::to_string(d));
    shape.push_back(d);
    overflow = overflow || __builtin_mul_overflow(numElements, uint64_t(d),
                                                  &numElements);
  }
  // The data must be there before the tensor is allocated: a few bytes can
  // declare any shape (as the .npy reader checks its data size first).
  uint64_t byteSize = 0;
  overflow = overflow || __builtin_mul_overflow(
                             numElements, uint64_t(dtypeSize(*dtype)),
                             &byteSize);
  if (overflow)
    throw Error(origin + ": the shape " + formatType(*dtype, shape) +
                " is too large");
  if (proto.has_raw_data()) {
    const std::string &raw = proto.raw_data();
    if (raw.size() != byteSize)
      throw Error(origin + ": raw_data holds " + std::to_string(raw.size()) +
                  " bytes but " + formatType(*dtype, shape) + " needs " +
                  std::to_string(byteSize));
    Tensor tensor(*dtype, shape);
    if (name)
      *name = proto.name();
    if (!raw.empty())
      std::memcpy(tensor.data(), raw.data(), raw.size());
    if (*dtype == DType::Bool)
      for (size_t i = 0; i < raw.size(); ++i)
        tensor.data<uint8_t>()[i] = tensor.data<uint8_t>()[i] != 0;
    return tensor;
  }

  // The typed field that holds this data type.
  int count;
  const char *field;
  switch (*dtype) {
  case DType::Float32:
    count = proto.float_data_size(), field = "float_data";
    break;
  case DType::Float64:
    count = proto.double_data_size(), field = "double_data";
    break;
  case DType::Int64:
    count = proto.int64_data_size(), field = "int64_data";
    break;
  case DType::UInt32:
  case DType::UInt64:
    count = proto.uint64_data_size(), field = "uint64_data";
    break;
  default:
    count = proto.int32_data_size(), field = "int32_data";
    break;
  }
  if (uint64_t(count) != numElements)
    throw Error(origin + ": " + field + " holds " + std::to_string(count) +
                " values but " + formatType(*dtype, shape) + " needs " +
                std::to_string(numElements));
  Tensor tensor(*dtype, shape);
  if (name)
    *name = proto.name();
  switch (*dtype) {
  case DType::Float32:
    copyTyped<float>(proto.float_data(), tensor);
    break;
  case DType::Float64:
    copyTyped<double>(proto.double_data(), tensor);
    break;
  case DType::Int64:
    copyTyped<int64_t>(proto.int64_data(), tensor);
    break;
  case DType::UInt32:
    copyTyped<uint32_t>(proto.uint64_data(), tensor);
    break;
  case DType::UInt64:
    copyTyped<uint64_t>(proto.uint64_data(), tensor);
    break;
  case DType::Int8:
    copyTyped<int8_t>(proto.int32_data(), tensor);
    break;
  case DType::Int16:
    copyTyped<int16_t>(proto.int32_data(), tensor);
    break;
  case DType::Int32:
    copyTyped<int32_t>(proto.int32_data(), tensor);
    break;
  case DType::UInt8:
    copyTyped<uint8_t>(proto.int32_data(), tensor);
    break;
  case DType::UInt16:
  case DType::Float16: // the bits, in the low half
  case DType::BFloat16:
    copyTyped<uint16_t>(proto.int32_data(), tensor);
    break;
  case DType::Bool: {
    uint8_t *dst = tensor.data<uint8_t>();
    for (int i = 0; i < count; ++i)
      dst[i] = proto.int32_data(i) != 0;
    break;
  }
  }
  return tensor;
}

Tensor telar::runtime::readTensorProto(const std::string &path,
                                       std::string *name) {
  return parseTensorProto(detail::readFile(path), path, name);
}

std::string telar::runtime::serializeTensorProto(const std::string &name,
                                                 DType dtype,
                                                 const Shape &shape,
                                                 const void *data) {
  onnx::TensorProto proto;
  proto.set_name(name);
  proto.set_data_type(toOnnx(dtype));
  for (int64_t d : shape)
    proto.add_dims(d);
  proto.set_raw_data(data, numElements(shape) * dtypeSize(dtype));
  std::string bytes;
  if (!proto.SerializeToString(&bytes))
    throw Error("cannot serialize tensor '" + name + "'");
  return bytes;
}

void telar::runtime::writeTensorProto(const std::string &path,
                                      const std::string &name, DType dtype,
                                      const Shape &shape, const void *data) {
  detail::writeFile(path, serializeTensorProto(name, dtype, shape, data));
}
