//===- ModelLoader.cpp - Parse ONNX protobuf and textual models -----------===//
//
// Binary models are parsed with a size check (protobuf messages are limited
// to 2 GB; larger models must keep their weights in external data) and a
// check that the whole input was consumed, so a truncated file is reported
// as such. `.onnxtext` goes through libonnx's parser; parser exceptions are
// caught so bad text is an error, never a crash.
//
//===----------------------------------------------------------------------===//

#include "ImporterInternal.h"

#include "onnx/defs/parser.h"

#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/zero_copy_stream_impl_lite.h>

#include <climits>
#include <exception>

using namespace mlir;
using namespace mlir::telar::onnx_import;

LogicalResult mlir::telar::onnx_import::parseModel(llvm::StringRef bytes,
                                                   bool isText, Location loc,
                                                   ::onnx::ModelProto &model) {
  if (isText) {
    // Lines starting with `//` are comments too (lit RUN/CHECK lines); the
    // ONNX text syntax itself only knows `#`.
    std::string text;
    text.reserve(bytes.size());
    llvm::StringRef rest = bytes;
    while (!rest.empty()) {
      auto [line, tail] = rest.split('\n');
      if (!line.ltrim().starts_with("//"))
        text += line.str();
      text += '\n';
      rest = tail;
    }
    try {
      auto status = ::onnx::OnnxParser::Parse(model, text.c_str());
      if (!status.IsOK())
        return emitError(loc) << "cannot parse ONNX text model: "
                              << status.ErrorMessage();
    } catch (const std::exception &e) {
      return emitError(loc) << "cannot parse ONNX text model: " << e.what();
    } catch (...) {
      return emitError(loc) << "cannot parse ONNX text model";
    }
    return success();
  }

  if (bytes.empty())
    return emitError(loc) << "cannot parse ONNX model: the file is empty";
  if (bytes.size() > static_cast<size_t>(INT_MAX))
    return emitError(loc)
           << "cannot parse ONNX model: the protobuf is " << bytes.size()
           << " bytes, over protobuf's 2 GB limit (store the weights as "
              "external data)";
  google::protobuf::io::ArrayInputStream raw(bytes.data(),
                                             static_cast<int>(bytes.size()));
  google::protobuf::io::CodedInputStream coded(&raw);
  coded.SetTotalBytesLimit(INT_MAX);
  coded.SetRecursionLimit(256);
  bool ok = false;
  try {
    ok = model.ParseFromCodedStream(&coded) && coded.ConsumedEntireMessage();
  } catch (...) {
    ok = false;
  }
  if (!ok || coded.CurrentPosition() != static_cast<int>(bytes.size()))
    return emitError(loc) << "cannot parse ONNX model: not a valid ModelProto "
                             "(truncated or corrupt protobuf, "
                          << bytes.size() << " bytes)";
  if (!model.has_graph())
    return emitError(loc) << "cannot parse ONNX model: the model has no graph";
  return success();
}
