//===- OnnxExport.h - A trained model as an ONNX file -----------*- C++ -*-===//
//
// telar-run --export-onnx: a training artifact's export template (the
// source model whose trainable initializers telarc left empty, see
// ImportOptions::exportTemplate) with every trained parameter filled in,
// written as an ONNX model that onnxruntime loads. Lives in
// libtelar_runtime_onnx (protobuf).
//
//===----------------------------------------------------------------------===//

#ifndef TELAR_RUNTIME_ONNXEXPORT_H
#define TELAR_RUNTIME_ONNXEXPORT_H

#include "telar/runtime/Runtime.h"

#include <utility>
#include <vector>

namespace telar::runtime {

/// The serialized model: the ModelProto at `templatePath` with each of
/// `parameters` (name, whole tensor) stored into the initializer of that
/// name as raw_data. Throws Error when the template cannot be read, a
/// parameter names no initializer or has another type or shape than it, an
/// initializer the template left empty gets no value, or the model passes
/// protobuf's 2 GB.
std::string exportOnnxModel(
    const std::string &templatePath,
    const std::vector<std::pair<std::string, const Tensor *>> &parameters);

} // namespace telar::runtime

#endif // TELAR_RUNTIME_ONNXEXPORT_H
