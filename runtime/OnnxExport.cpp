//===- OnnxExport.cpp - A trained model as an ONNX file -------------------===//

#include "telar/runtime/OnnxExport.h"
#include "telar/runtime/FileUtil.h"
#include "telar/runtime/TensorProto.h"

#include "onnx/onnx_pb.h"

#include <climits>
#include <map>

using namespace telar::runtime;

namespace {

bool hasData(const onnx::TensorProto &t) {
  return !t.raw_data().empty() || t.float_data_size() ||
         t.double_data_size() || t.int32_data_size() || t.int64_data_size() ||
         t.uint64_data_size() || t.external_data_size();
}

} // namespace

std::string telar::runtime::exportOnnxModel(
    const std::string &templatePath,
    const std::vector<std::pair<std::string, const Tensor *>> &parameters) {
  std::string bytes = detail::readFile(templatePath);
  onnx::ModelProto model;
  if (!model.ParseFromString(bytes))
    throw Error(templatePath + ": not a serialized ONNX model");
  std::map<std::string, onnx::TensorProto *> initializers;
  for (onnx::TensorProto &t : *model.mutable_graph()->mutable_initializer())
    initializers[t.name()] = &t;
  std::map<std::string, bool> filled;
  for (const auto &[name, tensor] : parameters) {
    auto it = initializers.find(name);
    if (it == initializers.end())
      throw Error(templatePath + ": the model has no initializer '" + name +
                  "' for the trained parameter of that name");
    onnx::TensorProto &t = *it->second;
    Shape dims(t.dims().begin(), t.dims().end());
    if (t.data_type() != toOnnxDataType(tensor->getDType()) ||
        dims != tensor->getShape())
      throw Error(templatePath + ": initializer '" + name + "' is " +
                  onnx::TensorProto::DataType_Name(
                      onnx::TensorProto::DataType(t.data_type())) +
                  " of " + std::to_string(dims.size()) +
                  " dims, but the trained parameter is " +
                  tensor->typeString());
    t.set_raw_data(tensor->data(), tensor->getByteSize());
    filled[name] = true;
  }
  for (const auto &[name, t] : initializers) {
    int64_t count = 1;
    for (int64_t d : t->dims())
      count *= d;
    if (!filled.count(name) && !hasData(*t) && count != 0)
      throw Error(templatePath + ": initializer '" + name +
                  "' is left empty by the template and no trained "
                  "parameter fills it");
  }
  if (model.ByteSizeLong() > size_t(INT_MAX))
    throw Error("the trained model passes protobuf's 2 GB limit for one "
                "ONNX file (use --save-weights)");
  return model.SerializeAsString();
}
