//===- GraphImporter.cpp - Walk an ONNX graph into func.func @main --------===//
//
// Steps: read the opset; inline model-local functions into a flat node list;
// report every unsupported op in one error; build @main's signature from the
// graph inputs (static shapes, fixed with ImportOptions::inputShapes);
// initializers become telar.constant; order the nodes topologically
// (dangling names and cycles are errors); convert each node, prefixing every
// diagnostic with "node 'X' (OpType, opset N): "; check the declared output
// types against the inferred ones.
//
//===----------------------------------------------------------------------===//

#include "ImporterInternal.h"
#include "telar/onnx/Importer.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "telar/dialects/Telar/TelarDialect.h"
#include "telar/dialects/Telar/TelarOps.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/GlobPattern.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

#include <cstring>
#include <queue>

using namespace mlir;
using namespace mlir::telar;
using namespace mlir::telar::onnx_import;

namespace {

constexpr int64_t kMinOpset = 11;
constexpr int64_t kMaxOpset = 23;
constexpr int kMaxInlineDepth = 16;

bool isDefaultDomain(llvm::StringRef d) { return d.empty() || d == "ai.onnx"; }

struct FlatNode {
  ::onnx::NodeProto node;
  int64_t opset;
  std::string name; // display name
};

/// Whether `d` fixes its size: a dim_value >= 0. A negative dim_value is
/// unknown, as an empty or missing dim_param is (onnxruntime reads them so).
bool isFixed(const ::onnx::TensorShapeProto_Dimension &d) {
  return d.has_dim_value() && d.dim_value() >= 0;
}

std::string describeType(const ::onnx::TypeProto_Tensor &t, MLIRContext *ctx) {
  std::string s;
  llvm::raw_string_ostream os(s);
  os << "tensor<";
  if (t.has_shape()) {
    for (const auto &d : t.shape().dim()) {
      if (isFixed(d))
        os << d.dim_value();
      else if (d.has_dim_param() && !d.dim_param().empty())
        os << d.dim_param();
      else
        os << "?";
      os << "x";
    }
  } else {
    os << "*x";
  }
  if (Type et = onnxElementType(ctx, t.elem_type()))
    os << et;
  else
    os << "onnx-type-" << t.elem_type();
  os << ">";
  return s;
}

/// Whether the declared type `tt` contradicts `actual` (symbolic or
/// missing dims and an undefined element type agree with anything).
bool contradicts(const ::onnx::TypeProto_Tensor &tt,
                        RankedTensorType actual, MLIRContext *ctx) {
  if (tt.elem_type() != 0) {
    Type et = onnxElementType(ctx, tt.elem_type());
    if (!et || et != actual.getElementType())
      return true;
  }
  if (tt.has_shape()) {
    const auto &dims = tt.shape().dim();
    if (dims.size() != actual.getRank())
      return true;
    for (int i = 0; i < dims.size(); ++i)
      if (isFixed(dims[i]) && dims[i].dim_value() != actual.getDimSize(i))
        return true;
  }
  return false;
}

std::string typeStr(Type t) {
  std::string s;
  llvm::raw_string_ostream os(s);
  os << t;
  return s;
}

/// Records `name` as the ONNX name of `v` (`telar.result_names` on its
/// defining op, "" for the op's other results), so that plans can name the
/// value. A value that already has a name keeps it: an ONNX value that is
/// another one (Identity, a fold to an existing value) is an alias, and a
/// graph input is named by its argument's telar.name.
void setResultName(Value v, llvm::StringRef name) {
  auto result = dyn_cast<OpResult>(v);
  if (!result || name.empty())
    return;
  Operation *op = result.getOwner();
  MLIRContext *ctx = op->getContext();
  llvm::StringRef attrName = TelarDialect::ResultNamesAttrHelper::getNameStr();
  SmallVector<Attribute> names;
  if (auto old = op->getAttrOfType<ArrayAttr>(attrName))
    names.assign(old.begin(), old.end());
  names.resize(op->getNumResults(), StringAttr::get(ctx, ""));
  auto &slot = names[result.getResultNumber()];
  if (!cast<StringAttr>(slot).getValue().empty())
    return;
  slot = StringAttr::get(ctx, name);
  op->setAttr(attrName, ArrayAttr::get(ctx, names));
}

class GraphImporter {
public:
  GraphImporter(MLIRContext &ctx, const ::onnx::ModelProto &model,
                llvm::StringRef baseDir, llvm::StringRef sourceName,
                const ImportOptions &options)
      : ctx(ctx), model(model), options(options),
        fileLoc(FileLineColLoc::get(&ctx, sourceName, 0, 0)),
        tensors(&ctx, baseDir) {}

  OwningOpRef<ModuleOp> run();

private:
  Location nodeLoc(const FlatNode &n) {
    return NameLoc::get(StringAttr::get(&ctx, n.name), fileLoc);
  }
  Location valueLoc(llvm::StringRef name) {
    return NameLoc::get(StringAttr::get(&ctx, name), fileLoc);
  }
  LogicalResult readOpset();
  LogicalResult flatten(const google::protobuf::RepeatedPtrField<::onnx::NodeProto> &nodes,
                        int64_t opset, const llvm::StringMap<std::string> *rename,
                        const ::onnx::NodeProto *caller, llvm::StringRef prefix,
                        int depth);
  LogicalResult checkSupported();
  FailureOr<RankedTensorType> inputType(const ::onnx::ValueInfoProto &vi,
                                        llvm::SmallVectorImpl<std::string> &symbolic);
  ElementsAttr bindInput(const ::onnx::ValueInfoProto &vi,
                         llvm::StringRef path);
  LogicalResult sortNodes(llvm::SmallVectorImpl<unsigned> &order);
  LogicalResult convertNode(OpBuilder &b, const FlatNode &n);
  LogicalResult checkOutputs(llvm::SmallVectorImpl<Value> &results);
  /// `t` as the export template holds it (ImportOptions::exportTemplate):
  /// no data when trainable, its external data read inline otherwise.
  LogicalResult exportInitializer(::onnx::TensorProto &t, ElementsAttr attr,
                                  bool trainable, Location loc);

  MLIRContext &ctx;
  const ::onnx::ModelProto &model;
  const ImportOptions &options;
  Location fileLoc;
  TensorLoader tensors;
  int64_t opset = 0;
  std::vector<FlatNode> nodes;
  llvm::StringMap<Value> values;
  llvm::StringSet<> usedNames;
  /// Declared types of intermediate values (the graph's value_info).
  llvm::StringMap<const ::onnx::TypeProto_Tensor *> valueInfo;
  unsigned inlineCounter = 0;
};

} // namespace

/// Whether a floating-point `attr` holds an infinity or a NaN (IEEE
/// formats: an exponent of all ones).
static bool hasNonFinite(ElementsAttr attr) {
  auto ft = cast<FloatType>(attr.getElementType());
  unsigned width = ft.getWidth(), mantissa = ft.getFPMantissaWidth() - 1;
  if (width != 16 && width != 32 && width != 64)
    return false;
  llvm::ArrayRef<char> raw;
  if (auto dense = dyn_cast<DenseElementsAttr>(attr))
    raw = dense.getRawData();
  else if (auto res = dyn_cast<DenseResourceElementsAttr>(attr))
    if (AsmResourceBlob *blob = res.getRawHandle().getBlob())
      raw = blob->getData();
  uint64_t exponentMask = ((uint64_t(1) << (width - 1 - mantissa)) - 1)
                          << mantissa;
  size_t bytes = width / 8;
  for (size_t i = 0; i + bytes <= raw.size(); i += bytes) {
    uint64_t bits = 0;
    std::memcpy(&bits, raw.data() + i, bytes);
    if ((bits & exponentMask) == exponentMask)
      return true;
  }
  return false;
}

LogicalResult GraphImporter::exportInitializer(::onnx::TensorProto &t,
                                               ElementsAttr attr,
                                               bool trainable, Location loc) {
  bool external = t.data_location() == ::onnx::TensorProto::EXTERNAL ||
                  t.external_data_size() > 0;
  if (!trainable && !external)
    return success();
  std::string bytes;
  if (!trainable) {
    FailureOr<llvm::ArrayRef<char>> data = tensors.externalBytes(
        t, onnxBytes(attr.getElementType(), attr.getNumElements()), loc);
    if (failed(data))
      return failure();
    bytes.assign(data->begin(), data->end());
  }
  ::onnx::TensorProto kept;
  kept.set_name(t.name());
  kept.set_data_type(t.data_type());
  *kept.mutable_dims() = t.dims();
  if (t.has_doc_string())
    kept.set_doc_string(t.doc_string());
  kept.set_raw_data(std::move(bytes));
  t = std::move(kept);
  return success();
}

LogicalResult GraphImporter::readOpset() {
  bool found = false;
  for (const auto &o : model.opset_import())
    if (isDefaultDomain(o.domain())) {
      opset = o.version();
      found = true;
    }
  if (!found) {
    // Report ops of other domains first: they are the real problem.
    if (failed(flatten(model.graph().node(), 0, nullptr, nullptr, "", 0)) ||
        failed(checkSupported()))
      return failure();
    return emitError(fileLoc)
           << "the model imports no opset of the default ONNX domain";
  }
  if (opset < kMinOpset || opset > kMaxOpset)
    return emitError(fileLoc) << "unsupported ONNX opset " << opset
                              << " (supported: " << kMinOpset << " to "
                              << kMaxOpset << ")";
  return success();
}

/// Appends `nodes` to the flat list, inlining calls of model-local
/// functions. Inside a function body, `rename` maps formal names to actual
/// ones and other names get `prefix`; `caller` supplies referenced
/// attributes.
LogicalResult GraphImporter::flatten(
    const google::protobuf::RepeatedPtrField<::onnx::NodeProto> &body,
    int64_t bodyOpset, const llvm::StringMap<std::string> *rename,
    const ::onnx::NodeProto *caller, llvm::StringRef prefix, int depth) {
  auto mapName = [&](const std::string &n) -> std::string {
    if (!rename || n.empty())
      return n;
    auto it = rename->find(n);
    if (it != rename->end())
      return it->second;
    return (prefix + n).str();
  };
  for (const auto &orig : body) {
    ::onnx::NodeProto node = orig;
    if (rename) {
      for (auto &s : *node.mutable_input())
        s = mapName(s);
      for (auto &s : *node.mutable_output())
        s = mapName(s);
      // Substitute attribute references from the caller.
      google::protobuf::RepeatedPtrField<::onnx::AttributeProto> attrs;
      for (const auto &a : node.attribute()) {
        if (a.ref_attr_name().empty()) {
          *attrs.Add() = a;
          continue;
        }
        for (const auto &ca : caller->attribute())
          if (ca.name() == a.ref_attr_name()) {
            ::onnx::AttributeProto copy = ca;
            copy.set_name(a.name());
            *attrs.Add() = copy;
            break;
          }
      }
      *node.mutable_attribute() = attrs;
      if (!node.name().empty())
        node.set_name((prefix + node.name()).str());
    }

    const ::onnx::FunctionProto *fn = nullptr;
    for (const auto &f : model.functions())
      if (f.name() == node.op_type() &&
          (f.domain() == node.domain() ||
           (isDefaultDomain(f.domain()) && isDefaultDomain(node.domain())))) {
        fn = &f;
        break;
      }
    if (!fn) {
      FlatNode flat;
      flat.opset = bodyOpset;
      flat.name = node.name().empty()
                      ? (prefix + node.op_type() + "#" +
                         llvm::Twine(static_cast<unsigned>(nodes.size())))
                            .str()
                      : node.name();
      flat.node = std::move(node);
      nodes.push_back(std::move(flat));
      continue;
    }
    if (depth >= kMaxInlineDepth)
      return emitError(valueLoc(node.name()))
             << "function '" << fn->name() << "' is nested more than "
             << kMaxInlineDepth << " levels deep (recursive function?)";
    llvm::StringMap<std::string> inner;
    for (int i = 0; i < fn->input_size(); ++i)
      inner[fn->input(i)] = i < node.input_size() ? node.input(i) : "";
    for (int i = 0; i < fn->output_size(); ++i)
      inner[fn->output(i)] = i < node.output_size() ? node.output(i) : "";
    int64_t fnOpset = bodyOpset;
    for (const auto &o : fn->opset_import())
      if (isDefaultDomain(o.domain()))
        fnOpset = o.version();
    std::string innerPrefix =
        (node.name().empty() ? fn->name() : node.name()) + "/" +
        std::to_string(inlineCounter++) + "/";
    if (failed(flatten(fn->node(), fnOpset, &inner, &node, innerPrefix,
                       depth + 1)))
      return failure();
  }
  return success();
}

LogicalResult GraphImporter::checkSupported() {
  const ConverterTable &table = getConverterTable();
  std::string list;
  unsigned count = 0;
  for (const FlatNode &n : nodes) {
    bool ok = false;
    if (isDefaultDomain(n.node.domain())) {
      auto it = table.find(n.node.op_type());
      ok = it != table.end() && n.opset >= it->second.minOpset;
    }
    if (ok)
      continue;
    ++count;
    list += "\n  ";
    if (!isDefaultDomain(n.node.domain()))
      list += n.node.domain() + ".";
    int64_t version = n.opset;
    if (!isDefaultDomain(n.node.domain()))
      for (const auto &o : model.opset_import())
        if (o.domain() == n.node.domain())
          version = o.version();
    list += n.node.op_type() + " (opset " + std::to_string(version) +
            ") in node '" + n.name + "'";
  }
  if (count == 0)
    return success();
  return emitError(fileLoc) << count << " unsupported ONNX operator"
                            << (count == 1 ? "" : "s") << ":" << list;
}

FailureOr<RankedTensorType>
GraphImporter::inputType(const ::onnx::ValueInfoProto &vi,
                         llvm::SmallVectorImpl<std::string> &symbolic) {
  Location loc = valueLoc(vi.name());
  if (!vi.type().has_tensor_type())
    return emitError(loc) << "graph input '" << vi.name()
                          << "' is not a tensor (sequence, map and optional "
                             "inputs are not supported)";
  const auto &tt = vi.type().tensor_type();
  Type et = tensors.elementType(tt.elem_type(), loc);
  if (!et) {
    emitRemark(loc) << "in graph input '" << vi.name() << "'";
    return failure();
  }
  auto it = options.inputShapes.find(vi.name());
  if (it != options.inputShapes.end()) {
    const auto &given = it->second;
    if (tt.has_shape()) {
      const auto &dims = tt.shape().dim();
      if (dims.size() != static_cast<int>(given.size()))
        return emitError(loc)
               << "--input-shape for '" << vi.name() << "' has rank "
               << given.size() << ", but the model declares rank "
               << dims.size() << " (" << describeType(tt, &ctx) << ")";
      for (int i = 0; i < dims.size(); ++i)
        if (isFixed(dims[i]) && dims[i].dim_value() != given[i])
          return emitError(loc)
                 << "--input-shape for '" << vi.name() << "' gives dim " << i
                 << " = " << given[i] << ", but the model fixes it to "
                 << dims[i].dim_value();
    }
    return RankedTensorType::get(given, et);
  }
  if (!tt.has_shape()) {
    symbolic.push_back("input '" + vi.name() + "' has no shape");
    return RankedTensorType();
  }
  llvm::SmallVector<int64_t> shape;
  bool isStatic = true;
  int i = 0;
  for (const auto &d : tt.shape().dim()) {
    if (isFixed(d)) {
      shape.push_back(d.dim_value());
    } else {
      isStatic = false;
      symbolic.push_back("input '" + vi.name() + "' dim " + std::to_string(i) +
                         " is '" +
                         (d.has_dim_param() && !d.dim_param().empty()
                              ? d.dim_param()
                              : std::string("?")) +
                         "'");
    }
    ++i;
  }
  if (!isStatic)
    return RankedTensorType();
  return RankedTensorType::get(shape, et);
}

/// Reads the value bound to graph input `vi` and checks it against the
/// input's declared element type and static dims (or its --input-shape).
ElementsAttr GraphImporter::bindInput(const ::onnx::ValueInfoProto &vi,
                                      llvm::StringRef path) {
  Location loc = valueLoc(vi.name());
  if (!vi.type().has_tensor_type()) {
    emitError(loc) << "--bind-input " << vi.name()
                   << ": the input is not a tensor";
    return {};
  }
  const auto &tt = vi.type().tensor_type();
  Type declared = tt.elem_type() != 0 ? tensors.elementType(tt.elem_type(), loc)
                                      : Type();
  if (tt.elem_type() != 0 && !declared)
    return {};
  ElementsAttr attr = loadInputValue(&ctx, vi.name(), path, declared, loc);
  if (!attr)
    return {};
  auto type = llvm::cast<RankedTensorType>(attr.getType());
  auto mismatch = [&](llvm::StringRef what) {
    emitError(loc) << "--bind-input " << vi.name() << ": '" << path
                   << "' holds " << typeStr(type) << ", but input '"
                   << vi.name() << "' is declared as " << describeType(tt, &ctx)
                   << " (" << what << " differs)";
    return ElementsAttr();
  };
  if (declared && declared != type.getElementType())
    return mismatch("element type");
  auto given = options.inputShapes.find(vi.name());
  if (given != options.inputShapes.end()) {
    if (llvm::ArrayRef<int64_t>(given->second) != type.getShape()) {
      emitError(loc) << "--bind-input " << vi.name() << ": '" << path
                     << "' holds " << typeStr(type)
                     << ", but --input-shape gives its shape as "
                     << typeStr(RankedTensorType::get(given->second,
                                                      type.getElementType()));
      return {};
    }
  } else if (tt.has_shape()) {
    const auto &dims = tt.shape().dim();
    if (dims.size() != type.getRank())
      return mismatch("rank");
    for (int i = 0; i < dims.size(); ++i)
      if (isFixed(dims[i]) && dims[i].dim_value() != type.getDimSize(i))
        return mismatch("dim " + std::to_string(i));
  }
  return attr;
}

LogicalResult GraphImporter::sortNodes(llvm::SmallVectorImpl<unsigned> &order) {
  llvm::StringMap<unsigned> producer;
  const auto &graph = model.graph();
  for (unsigned i = 0; i < nodes.size(); ++i)
    for (const auto &out : nodes[i].node.output()) {
      if (out.empty())
        continue;
      if (values.count(out) || !producer.insert({out, i}).second)
        return emitError(nodeLoc(nodes[i]))
               << "node '" << nodes[i].name << "' (" << nodes[i].node.op_type()
               << "): value '" << out
               << "' is already defined (by another node, a graph input or "
                  "an initializer)";
    }
  std::vector<llvm::SmallVector<unsigned>> users(nodes.size());
  std::vector<unsigned> pending(nodes.size(), 0);
  for (unsigned i = 0; i < nodes.size(); ++i) {
    for (const auto &in : nodes[i].node.input()) {
      if (in.empty())
        continue;
      usedNames.insert(in);
      if (values.count(in))
        continue;
      auto it = producer.find(in);
      if (it == producer.end())
        return emitError(nodeLoc(nodes[i]))
               << "node '" << nodes[i].name << "' (" << nodes[i].node.op_type()
               << "): input '" << in
               << "' is not produced by any node, graph input or initializer";
      users[it->second].push_back(i);
      ++pending[i];
    }
  }
  for (const auto &out : graph.output()) {
    usedNames.insert(out.name());
    if (!values.count(out.name()) && !producer.count(out.name()))
      return emitError(valueLoc(out.name()))
             << "graph output '" << out.name()
             << "' is not produced by any node, graph input or initializer";
  }
  std::priority_queue<unsigned, std::vector<unsigned>, std::greater<unsigned>>
      ready;
  for (unsigned i = 0; i < nodes.size(); ++i)
    if (pending[i] == 0)
      ready.push(i);
  while (!ready.empty()) {
    unsigned i = ready.top();
    ready.pop();
    order.push_back(i);
    for (unsigned u : users[i])
      if (--pending[u] == 0)
        ready.push(u);
  }
  if (order.size() == nodes.size())
    return success();
  // Walk back along unresolved inputs from a stuck node until a node
  // repeats: that loop is a cycle.
  llvm::StringMap<unsigned> producerOf;
  for (unsigned i = 0; i < nodes.size(); ++i)
    for (const auto &out : nodes[i].node.output())
      if (!out.empty())
        producerOf[out] = i;
  unsigned cur = 0;
  while (pending[cur] == 0)
    ++cur;
  llvm::SmallVector<unsigned> path;
  llvm::DenseMap<unsigned, unsigned> posInPath;
  while (!posInPath.count(cur)) {
    posInPath[cur] = path.size();
    path.push_back(cur);
    for (const auto &in : nodes[cur].node.input()) {
      auto it = producerOf.find(in);
      if (!in.empty() && it != producerOf.end() && pending[it->second] != 0) {
        cur = it->second;
        break;
      }
    }
  }
  llvm::SmallVector<unsigned> cycle(path.begin() + posInPath[cur], path.end());
  std::reverse(cycle.begin(), cycle.end());
  std::string list;
  for (unsigned i : cycle)
    list += "'" + nodes[i].name + "' (" + nodes[i].node.op_type() + ") -> ";
  list += "'" + nodes[cycle.front()].name + "'";
  return emitError(fileLoc) << "the graph has a cycle: " << list;
}

LogicalResult GraphImporter::convertNode(OpBuilder &b, const FlatNode &n) {
  const ::onnx::NodeProto &node = n.node;
  Location loc = nodeLoc(n);
  llvm::SmallVector<Value> inputs;
  for (const auto &in : node.input()) {
    if (in.empty()) {
      inputs.push_back(Value());
      continue;
    }
    Value v = values.lookup(in);
    if (!v)
      return emitError(loc) << "node '" << n.name << "' (" << node.op_type()
                            << ", opset " << n.opset << "): input '" << in
                            << "' is an output its producer does not support";
    inputs.push_back(v);
  }
  // Every supported op produces at least one value; converters rely on it.
  if (node.output_size() == 0 || node.output(0).empty())
    return emitError(loc) << "node '" << n.name << "' (" << node.op_type()
                          << ", opset " << n.opset
                          << "): has no (first) output";
  llvm::SmallVector<bool> used;
  for (const auto &out : node.output())
    used.push_back(!out.empty() && usedNames.contains(out));

  const ConverterInfo &info = getConverterTable().find(node.op_type())->second;
  std::vector<std::string> messages;
  LogicalResult result = failure();
  OpContext c(b, loc, node, n.opset, inputs, used, tensors);
  {
    ScopedDiagnosticHandler handler(&ctx, [&](Diagnostic &d) {
      if (d.getSeverity() != DiagnosticSeverity::Error)
        return failure();
      messages.push_back(d.str());
      return success();
    });
    try {
      result = info.fn(c);
    } catch (const std::exception &e) {
      messages.push_back(std::string("internal error: ") + e.what());
      result = failure();
    }
  }
  std::string prefix = "node '" + n.name + "' (" + node.op_type() +
                       ", opset " + std::to_string(n.opset) + "): ";
  if (!messages.empty() || failed(result)) {
    if (messages.empty())
      messages.push_back("conversion failed");
    for (const auto &m : messages)
      emitError(loc) << prefix << m;
    return failure();
  }
  for (int i = 0; i < node.output_size(); ++i) {
    if (!used[i])
      continue;
    if (!c.results[i])
      return emitError(loc) << prefix << "output " << i << " ('"
                            << node.output(i)
                            << "') is used but not supported by the importer";
    values[node.output(i)] = c.results[i];
    setResultName(c.results[i], node.output(i));
    auto declared = valueInfo.find(node.output(i));
    if (declared == valueInfo.end())
      continue;
    auto actual = llvm::cast<RankedTensorType>(c.results[i].getType());
    if (contradicts(*declared->second, actual, &ctx))
      return emitError(valueLoc(node.output(i)))
             << prefix << "value '" << node.output(i)
             << "' is declared (value_info) as "
             << describeType(*declared->second, &ctx)
             << " but the node computes " << typeStr(actual);
  }
  return success();
}

LogicalResult GraphImporter::checkOutputs(llvm::SmallVectorImpl<Value> &results) {
  for (const auto &out : model.graph().output()) {
    Value v = values.lookup(out.name());
    if (!v)
      return emitError(valueLoc(out.name()))
             << "graph output '" << out.name() << "' is not computed";
    results.push_back(v);
    if (!out.type().has_tensor_type())
      continue;
    const auto &tt = out.type().tensor_type();
    auto actual = llvm::cast<RankedTensorType>(v.getType());
    if (contradicts(tt, actual, &ctx))
      return emitError(valueLoc(out.name()))
             << "graph output '" << out.name() << "' is declared as "
             << describeType(tt, &ctx) << " but the graph computes "
             << typeStr(actual);
  }
  return success();
}

OwningOpRef<ModuleOp> GraphImporter::run() {
  ctx.loadDialect<telar::TelarDialect, func::FuncDialect>();
  if (failed(readOpset()))
    return {};
  const auto &graph = model.graph();
  if (failed(flatten(graph.node(), opset, nullptr, nullptr, "", 0)) ||
      failed(checkSupported()))
    return {};

  // Signature.
  llvm::StringSet<> initNames;
  for (const auto &t : graph.initializer())
    initNames.insert(t.name());
  llvm::StringSet<> inputNames;
  for (const auto &vi : graph.input())
    inputNames.insert(vi.name());
  for (const auto &kv : options.inputShapes)
    if (!inputNames.contains(kv.getKey()) || initNames.contains(kv.getKey())) {
      emitError(fileLoc) << "--input-shape names '" << kv.getKey()
                         << "', which is not a graph input";
      return {};
    }
  for (const auto &kv : options.inputValues)
    if (!inputNames.contains(kv.getKey())) {
      emitError(fileLoc) << "--bind-input names '" << kv.getKey()
                         << "', which is not a graph input";
      return {};
    }
  // Bound inputs become constants (an initializer of the same name, the
  // input's default value, is overridden).
  llvm::StringMap<ElementsAttr> bound;
  for (const auto &vi : graph.input()) {
    auto it = options.inputValues.find(vi.name());
    if (it == options.inputValues.end())
      continue;
    ElementsAttr attr = bindInput(vi, it->second);
    if (!attr)
      return {};
    bound[vi.name()] = attr;
  }
  llvm::SmallVector<Type> argTypes;
  llvm::SmallVector<std::string> argNames, symbolic;
  for (const auto &vi : graph.input()) {
    if (initNames.contains(vi.name()) || bound.count(vi.name()))
      continue;
    auto t = inputType(vi, symbolic);
    if (failed(t))
      return {};
    argTypes.push_back(*t);
    argNames.push_back(vi.name());
  }
  if (!symbolic.empty()) {
    auto diag = emitError(fileLoc)
                << "graph inputs need static shapes; give them with "
                   "--input-shape NAME=DxDx...:";
    for (const auto &s : symbolic)
      diag << "\n  " << s;
    return {};
  }

  OpBuilder b(&ctx);
  OwningOpRef<ModuleOp> module = ModuleOp::create(fileLoc);
  module->getOperation()->setAttr(TelarDialect::OpsetAttrHelper::getNameStr(),
                                  b.getI64IntegerAttr(opset));
  std::string producer = model.producer_name();
  if (!model.producer_version().empty())
    producer += (producer.empty() ? "" : " ") + model.producer_version();
  module->getOperation()->setAttr(
      TelarDialect::ProducerAttrHelper::getNameStr(),
      b.getStringAttr(producer));

  b.setInsertionPointToEnd(module->getBody());
  auto func = func::FuncOp::create(b, fileLoc, "main",
                                    b.getFunctionType(argTypes, {}));
  Block *entry = func.addEntryBlock();
  for (unsigned i = 0; i < argNames.size(); ++i) {
    func.setArgAttr(i, TelarDialect::NameAttrHelper::getNameStr(),
                    b.getStringAttr(argNames[i]));
    values[argNames[i]] = entry->getArgument(i);
  }
  b.setInsertionPointToEnd(entry);

  // Bound inputs, then initializers.
  for (const auto &vi : graph.input()) {
    auto it = bound.find(vi.name());
    if (it == bound.end() || values.count(vi.name()))
      continue;
    values[vi.name()] = telar::ConstantOp::create(b, valueLoc(vi.name()),
                                                  it->second.getType(),
                                                  it->second)
                            .getResult();
    setResultName(values[vi.name()], vi.name());
  }
  // --freeze: names, and glob patterns (those with a wildcard).
  std::vector<std::pair<std::string, llvm::GlobPattern>> frozenPatterns;
  for (const auto &entry : options.frozen) {
    llvm::StringRef text = entry.getKey();
    if (text.find_first_of("*?[") == llvm::StringRef::npos)
      continue;
    llvm::Expected<llvm::GlobPattern> pattern = llvm::GlobPattern::create(text);
    if (!pattern) {
      emitError(fileLoc) << "--freeze '" << text
                         << "': " << llvm::toString(pattern.takeError());
      return {};
    }
    frozenPatterns.push_back({text.str(), std::move(*pattern)});
  }
  llvm::StringSet<> matchedPatterns;
  auto isFrozen = [&](llvm::StringRef name) {
    bool frozen = options.frozen.contains(name);
    for (auto &[text, pattern] : frozenPatterns)
      if (pattern.match(name)) {
        matchedPatterns.insert(text);
        frozen = true;
      }
    return frozen;
  };
  std::vector<std::string> nonFinite;
  ::onnx::ModelProto exported;
  if (options.exportTemplate && options.trainableInitializers)
    exported = model;
  for (int i = 0, e = graph.initializer_size(); i < e; ++i) {
    const ::onnx::TensorProto &t = graph.initializer(i);
    if (bound.count(t.name()))
      continue;
    Location loc = valueLoc(t.name());
    ElementsAttr attr = tensors.convert(t, loc);
    if (!attr)
      return {};
    bool isFloat = isa<FloatType>(attr.getElementType());
    bool frozen = isFrozen(t.name());
    bool trainable = options.trainableInitializers && isFloat && !frozen;
    if (trainable && hasNonFinite(attr)) {
      // An additive mask (-inf where attention may not look): no parameter.
      trainable = false;
      nonFinite.push_back(t.name());
    }
    if (exported.has_graph() &&
        failed(exportInitializer(
            *exported.mutable_graph()->mutable_initializer(i), attr,
            trainable, loc)))
      return {};
    if (trainable) {
      // A trainable parameter: a variable, whose initial value is a
      // resource (the artifact's weight file holds it, however small).
      ElementsAttr initial = telar::toWeightResource(attr, t.name());
      values[t.name()] =
          telar::VariableOp::create(b, loc, b.getStringAttr(t.name()), initial)
              .getResult();
    } else {
      values[t.name()] =
          telar::ConstantOp::create(b, loc, attr.getType(), attr).getResult();
    }
    setResultName(values[t.name()], t.name());
  }
  if (!nonFinite.empty()) {
    auto diag = emitWarning(fileLoc)
                << "not trained: initializers holding infinities or NaNs "
                   "(masks), frozen like --freeze: ";
    llvm::interleaveComma(nonFinite, diag,
                          [&](const std::string &n) { diag << "'" << n << "'"; });
  }
  if (exported.has_graph()) {
    options.exportTemplate->clear();
    if (exported.ByteSizeLong() > size_t(INT32_MAX))
      emitWarning(fileLoc) << "the model's frozen initializers pass "
                              "protobuf's 2 GB limit: the trained model "
                              "cannot be exported (telar-run --export-onnx)";
    else
      exported.SerializeToString(options.exportTemplate);
  }
  for (const auto &name : options.frozen) {
    bool pattern = llvm::any_of(frozenPatterns, [&](const auto &p) {
      return p.first == name.getKey();
    });
    if (pattern && !matchedPatterns.contains(name.getKey())) {
      emitError(fileLoc) << "--freeze '" << name.getKey()
                         << "' matches no initializer of the model";
      return {};
    }
    if (!pattern && !initNames.contains(name.getKey())) {
      emitError(fileLoc) << "--freeze names '" << name.getKey()
                         << "', which is not an initializer of the model";
      return {};
    }
  }

  for (const auto &vi : graph.value_info())
    if (vi.type().has_tensor_type())
      valueInfo[vi.name()] = &vi.type().tensor_type();

  llvm::SmallVector<unsigned> order;
  if (failed(sortNodes(order)))
    return {};
  for (unsigned i : order)
    if (failed(convertNode(b, nodes[i])))
      return {};

  llvm::SmallVector<Value> results;
  if (failed(checkOutputs(results)))
    return {};
  func::ReturnOp::create(b, fileLoc, results);
  func.setFunctionType(b.getFunctionType(argTypes, ValueRange(results).getTypes()));
  llvm::SmallVector<Attribute> outNames;
  for (const auto &out : graph.output())
    outNames.push_back(b.getStringAttr(out.name()));
  func->setAttr(TelarDialect::OutputNamesAttrHelper::getNameStr(),
                b.getArrayAttr(outNames));
  if (failed(mlir::verify(*module)))
    return {};
  return module;
}

//===----------------------------------------------------------------------===//
// Public API
//===----------------------------------------------------------------------===//

OwningOpRef<ModuleOp> mlir::telar::importModelBytes(
    MLIRContext &ctx, llvm::StringRef bytes, llvm::StringRef baseDir,
    llvm::StringRef sourceName, const ImportOptions &options, bool isText) {
  ctx.loadDialect<telar::TelarDialect, func::FuncDialect>();
  Location loc = FileLineColLoc::get(&ctx, sourceName, 0, 0);
  ::onnx::ModelProto model;
  if (failed(parseModel(bytes, isText, loc, model)))
    return {};
  GraphImporter importer(ctx, model, baseDir, sourceName, options);
  try {
    return importer.run();
  } catch (const std::exception &e) {
    emitError(loc) << "internal error while importing: " << e.what();
    return {};
  }
}

OwningOpRef<ModuleOp> mlir::telar::importModelFile(MLIRContext &ctx,
                                                   llvm::StringRef path,
                                                   const ImportOptions &options) {
  Location loc = FileLineColLoc::get(&ctx, path, 0, 0);
  auto buffer = llvm::MemoryBuffer::getFileOrSTDIN(
      path, /*IsText=*/false, /*RequiresNullTerminator=*/false);
  if (!buffer) {
    emitError(loc) << "cannot open '" << path
                   << "': " << buffer.getError().message();
    return {};
  }
  llvm::SmallString<256> dir(path == "-" ? "." : path);
  if (path != "-")
    llvm::sys::path::remove_filename(dir);
  if (dir.empty())
    dir = ".";
  bool isText = llvm::sys::path::extension(path) == ".onnxtext";
  return importModelBytes(ctx, (*buffer)->getBuffer(), dir, path, options,
                          isText);
}

std::vector<std::string> mlir::telar::supportedOpTypes() {
  std::vector<std::string> out;
  for (const auto &kv : getConverterTable())
    out.push_back(kv.getKey().str());
  std::sort(out.begin(), out.end());
  return out;
}

std::string mlir::telar::parseInputShapeOption(llvm::StringRef spec,
                                               ImportOptions &options) {
  auto [name, dims] = spec.rsplit('=');
  if (name.empty() || !spec.contains('='))
    return "--input-shape expects NAME=DxDx... (e.g. input_ids=1x128), got '" +
           spec.str() + "'";
  llvm::SmallVector<int64_t> shape;
  if (!dims.empty() && dims != "scalar") {
    llvm::SmallVector<llvm::StringRef> parts;
    dims.split(parts, 'x');
    for (llvm::StringRef p : parts) {
      int64_t d;
      if (p.trim().getAsInteger(10, d) || d < 0)
        return "--input-shape '" + spec.str() + "': '" + p.str() +
               "' is not a dimension (non-negative integer)";
      shape.push_back(d);
    }
  }
  options.inputShapes[name] = shape;
  return "";
}

std::string mlir::telar::parseBindInputOption(llvm::StringRef spec,
                                              ImportOptions &options) {
  auto [name, file] = spec.split('=');
  if (name.empty() || file.empty() || !spec.contains('='))
    return "--bind-input expects NAME=FILE (a .npy file or an ONNX "
           "TensorProto .pb), got '" +
           spec.str() + "'";
  options.inputValues[name] = file.str();
  return "";
}
