//===- TelarDialect.cpp - The telar graph dialect -------------------------===//

#include "telar/dialects/Telar/TelarDialect.h"
#include "telar/dialects/Telar/TelarOps.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "llvm/ADT/StringSet.h"

using namespace mlir;
using namespace mlir::telar;

#include "telar/dialects/Telar/TelarDialect.cpp.inc"

void TelarDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "telar/dialects/Telar/TelarOps.cpp.inc"
      >();
  registerAttributes();
}

Operation *TelarDialect::materializeConstant(OpBuilder &builder,
                                             Attribute value, Type type,
                                             Location loc) {
  auto elements = dyn_cast<ElementsAttr>(value);
  if (!elements || elements.getType() != type)
    return nullptr;
  return ConstantOp::create(builder, loc, elements);
}

//===----------------------------------------------------------------------===//
// Discardable attributes
//===----------------------------------------------------------------------===//
//
// The importer sets these and the artifact writer and the passes read them
// (see the dialect's description for the table). Consumers read them with
// getAttrOfType / getArgAttrOfType, which return null for a wrong kind, so a
// misplaced or mistyped attribute would otherwise be silently ignored.

using OpsetAttr = TelarDialect::OpsetAttrHelper;
using ProducerAttr = TelarDialect::ProducerAttrHelper;
using OutputNamesAttr = TelarDialect::OutputNamesAttrHelper;
using NameAttr = TelarDialect::NameAttrHelper;
using WeightAttr = TelarDialect::WeightAttrHelper;
using RuntimeContextAttr = TelarDialect::RuntimeContextAttrHelper;
using RuntimeStatusAttr = TelarDialect::RuntimeStatusAttrHelper;
using ResultNamesAttr = TelarDialect::ResultNamesAttrHelper;
using AxisNamesAttr = TelarDialect::AxisNamesAttrHelper;
using PartialAttr = TelarDialect::PartialAttrHelper;
using ShardingAttr = TelarDialect::ShardingAttrHelper;
using GlobalShapeAttr = TelarDialect::GlobalShapeAttrHelper;
using BytesAttr = TelarDialect::BytesAttrHelper;
using UpdatesAttr = TelarDialect::UpdatesAttrHelper;
using TrainingAttr = TelarDialect::TrainingAttrHelper;
using PhaseAttr = TelarDialect::PhaseAttrHelper;
using GpuKernelsAttr = TelarDialect::GpuKernelsAttrHelper;

static bool isStringArray(Attribute attr) {
  auto array = dyn_cast<ArrayAttr>(attr);
  return array && llvm::all_of(array, llvm::IsaPred<StringAttr>);
}

/// The attributes a partitioned program's arguments and results carry.
static bool isPartitionedInterfaceAttr(StringRef name) {
  return name == ShardingAttr::getNameStr() ||
         name == GlobalShapeAttr::getNameStr();
}

/// telar.sharding / telar.global_shape on argument or result `index` of
/// `fn`, whose type is `type`.
static LogicalResult
verifyPartitionedInterfaceAttr(NamedAttribute attr, Type type,
                               function_ref<InFlightDiagnostic()> error) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  if (attr.getName().getValue() == GlobalShapeAttr::getNameStr()) {
    auto shape = dyn_cast<DenseI64ArrayAttr>(attr.getValue());
    if (!shape)
      return error() << "must be an array<i64: ...> (the global shape), got "
                     << attr.getValue();
    if (tensor && shape.size() != tensor.getRank())
      return error() << "has " << shape.size()
                     << " dimensions, but the tensor has rank "
                     << tensor.getRank();
    return success();
  }
  auto dims = dyn_cast<ArrayAttr>(attr.getValue());
  if (!dims || !llvm::all_of(dims, isStringArray))
    return error() << "must be an array of arrays of mesh axis names (one "
                      "per dimension), got "
                   << attr.getValue();
  if (tensor && int64_t(dims.size()) != tensor.getRank())
    return error() << "has " << dims.size()
                   << " dimensions, but the tensor has rank "
                   << tensor.getRank();
  return success();
}

static bool isArgumentAttr(StringRef name) {
  return name == NameAttr::getNameStr() || name == WeightAttr::getNameStr();
}
static bool isModuleAttr(StringRef name) {
  return name == OpsetAttr::getNameStr() || name == ProducerAttr::getNameStr();
}

LogicalResult TelarDialect::verifyOperationAttribute(Operation *op,
                                                     NamedAttribute attr) {
  StringRef name = attr.getName().getValue();
  auto error = [&]() {
    return op->emitOpError() << "attribute '" << name << "' ";
  };
  if (name == TargetAttrHelper::getNameStr()) {
    if (!isa<ModuleOp>(op))
      return error() << "belongs on the module";
    if (!isa<TargetAttr>(attr.getValue()))
      return error() << "must be a #telar.target, got " << attr.getValue();
    return success();
  }
  if (name == GpuKernelsAttr::getNameStr()) {
    if (!isa<ModuleOp>(op))
      return error() << "belongs on the module";
    auto kernels = dyn_cast<ArrayAttr>(attr.getValue());
    if (!kernels || !llvm::all_of(kernels, [](Attribute a) {
          auto ref = dyn_cast<SymbolRefAttr>(a);
          return ref && ref.getNestedReferences().size() == 1;
        }))
      return error() << "must be an array of @module::@function symbol "
                        "references, got "
                     << attr.getValue();
    return success();
  }
  if (name == TrainingAttr::getNameStr()) {
    if (!isa<ModuleOp>(op))
      return error() << "belongs on the module";
    auto dict = dyn_cast<DictionaryAttr>(attr.getValue());
    if (!dict || !isa_and_nonnull<StringAttr>(dict.get("loss")) ||
        !isa_and_nonnull<StringAttr>(dict.get("optimizer")))
      return error() << "must be a dictionary with the strings 'loss' and "
                        "'optimizer', got "
                     << attr.getValue();
    return success();
  }
  if (isModuleAttr(name)) {
    if (!isa<ModuleOp>(op))
      return error() << "belongs on the module";
    if (name == OpsetAttr::getNameStr()) {
      auto opset = dyn_cast<IntegerAttr>(attr.getValue());
      if (!opset || !opset.getType().isSignlessInteger(64) ||
          opset.getInt() < 1)
        return error() << "must be a positive i64 (the ONNX opset), got "
                       << attr.getValue();
      return success();
    }
    if (!isa<StringAttr>(attr.getValue()))
      return error() << "must be a string, got " << attr.getValue();
    return success();
  }
  if (name == OutputNamesAttr::getNameStr()) {
    auto fn = dyn_cast<FunctionOpInterface>(op);
    if (!fn)
      return error() << "belongs on a function";
    auto names = dyn_cast<ArrayAttr>(attr.getValue());
    if (!names || !llvm::all_of(names, llvm::IsaPred<StringAttr>))
      return error() << "must be an array of strings, got " << attr.getValue();
    unsigned results = fn.getNumResults(), arguments = fn.getNumArguments();
    // After buffer-results-to-out-params the outputs are the function's last
    // arguments and it returns nothing; after telar-add-runtime-context it
    // returns only its status (telar.runtime_status) and its first argument
    // is the runtime context.
    if (op->hasAttr(RuntimeStatusAttr::getNameStr())) {
      results = 0;
      arguments = arguments == 0 ? 0 : arguments - 1;
    }
    if (results != 0 && names.size() != results)
      return error() << "names " << names.size()
                     << " outputs, but the function has " << results
                     << " results";
    if (results == 0 && names.size() > arguments)
      return error() << "names " << names.size()
                     << " outputs, but the function has no results and only "
                     << arguments
                     << " arguments to hold them as out-parameters";
    return success();
  }
  if (name == RuntimeStatusAttr::getNameStr()) {
    if (!isa<FunctionOpInterface>(op) || !isa<UnitAttr>(attr.getValue()))
      return error() << "must be a unit attribute on a function";
    return success();
  }
  if (name == PhaseAttr::getNameStr()) {
    auto phase = dyn_cast<StringAttr>(attr.getValue());
    if (!phase || (phase.getValue() != "backward" &&
                   phase.getValue() != "optimizer"))
      return error() << "must be \"backward\" or \"optimizer\", got "
                     << attr.getValue();
    return success();
  }
  if (name == ResultNamesAttr::getNameStr()) {
    if (!isStringArray(attr.getValue()))
      return error() << "must be an array of strings, got " << attr.getValue();
    size_t count = cast<ArrayAttr>(attr.getValue()).size();
    if (count != op->getNumResults())
      return error() << "names " << count << " results, but the op has "
                     << op->getNumResults();
    return success();
  }
  if (name == AxisNamesAttr::getNameStr()) {
    if (op->getName().getStringRef() != "shard.grid")
      return error() << "belongs on a shard.grid";
    if (!isStringArray(attr.getValue()))
      return error() << "must be an array of strings, got " << attr.getValue();
    auto names = cast<ArrayAttr>(attr.getValue());
    llvm::StringSet<> seen;
    for (Attribute n : names)
      if (!seen.insert(cast<StringAttr>(n).getValue()).second)
        return error() << "names axis " << n << " twice";
    if (auto shape = op->getAttrOfType<DenseI64ArrayAttr>("shape"))
      if (shape.size() != int64_t(names.size()))
        return error() << "names " << names.size()
                       << " axes, but the grid has " << shape.size();
    return success();
  }
  if (name == PartialAttr::getNameStr()) {
    if (op->getName().getStringRef() != "shard.sharding")
      return error() << "belongs on a shard.sharding";
    auto axes = dyn_cast<DictionaryAttr>(attr.getValue());
    if (!axes)
      return error() << "must be a dictionary from axis name to reduction, "
                        "got "
                     << attr.getValue();
    for (NamedAttribute axis : axes) {
      auto kind = dyn_cast<StringAttr>(axis.getValue());
      if (!kind || !llvm::is_contained({"sum", "max", "min"}, kind.getValue()))
        return error() << "axis " << axis.getName()
                       << ": the reduction must be \"sum\", \"max\" or "
                          "\"min\", got "
                       << axis.getValue();
    }
    return success();
  }
  if (name == BytesAttr::getNameStr()) {
    if (!llvm::is_contained({"shard.all_gather", "shard.all_slice",
                             "shard.all_to_all", "shard.all_reduce",
                             "shard.reduce_scatter"},
                            op->getName().getStringRef()))
      return error() << "belongs on a shard collective";
    auto bytes = dyn_cast<IntegerAttr>(attr.getValue());
    if (!bytes || !bytes.getType().isSignlessInteger(64) || bytes.getInt() < 0)
      return error() << "must be a non-negative i64 (bytes sent per rank), got "
                     << attr.getValue();
    return success();
  }
  if (isArgumentAttr(name) || name == RuntimeContextAttr::getNameStr())
    return error() << "belongs on a function argument, not on an operation";
  if (isPartitionedInterfaceAttr(name))
    return error() << "belongs on a function argument or result";
  return error() << "is not an attribute of the telar dialect";
}

LogicalResult TelarDialect::verifyRegionArgAttribute(Operation *op,
                                                     unsigned regionIndex,
                                                     unsigned argIndex,
                                                     NamedAttribute attr) {
  StringRef name = attr.getName().getValue();
  auto error = [&]() {
    return op->emitOpError()
           << "argument #" << argIndex << " attribute '" << name << "' ";
  };
  if (name == RuntimeContextAttr::getNameStr()) {
    if (!isa<FunctionOpInterface>(op) || regionIndex != 0 ||
        !isa<UnitAttr>(attr.getValue()))
      return error() << "must be a unit attribute on a function argument";
    return success();
  }
  if (isPartitionedInterfaceAttr(name)) {
    auto fn = dyn_cast<FunctionOpInterface>(op);
    if (!fn || regionIndex != 0)
      return error() << "belongs on an argument of a function";
    return verifyPartitionedInterfaceAttr(attr, fn.getArgumentTypes()[argIndex],
                                          error);
  }
  // A result's, moved with it once results became out-parameters.
  if (name == UpdatesAttr::getNameStr()) {
    auto value = dyn_cast<StringAttr>(attr.getValue());
    if (!isa<FunctionOpInterface>(op) || regionIndex != 0 || !value ||
        value.empty())
      return error() << "must be a non-empty string (a variable's name) on a "
                        "function result or out-parameter";
    return success();
  }
  if (!isArgumentAttr(name)) {
    if (isModuleAttr(name))
      return error() << "belongs on the module";
    if (name == OutputNamesAttr::getNameStr())
      return error() << "belongs on the function";
    return error() << "is not an attribute of the telar dialect";
  }
  auto fn = dyn_cast<FunctionOpInterface>(op);
  if (!fn || regionIndex != 0)
    return error() << "belongs on an argument of a function";
  auto value = dyn_cast<StringAttr>(attr.getValue());
  if (!value)
    return error() << "must be a string, got " << attr.getValue();
  if (name == WeightAttr::getNameStr()) {
    if (value.empty())
      return error() << "must name a weight resource, got an empty string";
    if (Attribute input = fn.getArgAttr(argIndex, NameAttr::getNameStr()))
      return error() << "marks a weight, but the argument is also the input "
                     << input << " ('" << NameAttr::getNameStr()
                     << "'); an argument is one or the other";
    return success();
  }
  // telar.name: inputs are bound by name, so no two may share one. Reported
  // on the later of the two.
  for (unsigned i = 0; i < argIndex; ++i)
    if (fn.getArgAttr(i, NameAttr::getNameStr()) == value)
      return error() << value << " is also the name of argument #" << i;
  return success();
}

LogicalResult TelarDialect::verifyRegionResultAttribute(Operation *op,
                                                        unsigned regionIndex,
                                                        unsigned resultIndex,
                                                        NamedAttribute attr) {
  StringRef name = attr.getName().getValue();
  if (isPartitionedInterfaceAttr(name)) {
    auto fn = dyn_cast<FunctionOpInterface>(op);
    auto error = [&]() {
      return op->emitOpError()
             << "result #" << resultIndex << " attribute '" << name << "' ";
    };
    if (!fn || regionIndex != 0)
      return error() << "belongs on a result of a function";
    return verifyPartitionedInterfaceAttr(attr, fn.getResultTypes()[resultIndex],
                                          error);
  }
  auto diag = op->emitOpError()
              << "result #" << resultIndex << " attribute '" << name << "' ";
  if (name == UpdatesAttr::getNameStr()) {
    auto value = dyn_cast<StringAttr>(attr.getValue());
    if (!isa<FunctionOpInterface>(op) || regionIndex != 0 || !value ||
        value.empty()) {
      diag << "must be a non-empty string (a variable's name) on a function "
              "result";
      return failure();
    }
    diag.abandon();
    return success();
  }
  if (name == OutputNamesAttr::getNameStr())
    return diag << "belongs on the function (one name per result)";
  if (isArgumentAttr(name))
    return diag << "belongs on a function argument";
  if (isModuleAttr(name))
    return diag << "belongs on the module";
  return diag << "is not an attribute of the telar dialect";
}
