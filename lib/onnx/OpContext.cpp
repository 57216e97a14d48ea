//===- OpContext.cpp - Helpers converters use on one ONNX node ------------===//

#include "ImporterInternal.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Matchers.h"
#include "telar/dialects/Telar/TelarOps.h"

using namespace mlir;
using namespace mlir::telar::onnx_import;

const ConverterTable &mlir::telar::onnx_import::getConverterTable() {
  static const ConverterTable table = [] {
    ConverterTable t;
    registerElementwiseConverters(t);
    registerReductionConverters(t);
    registerNNConverters(t);
    registerShapeConverters(t);
    registerMiscConverters(t);
    return t;
  }();
  return table;
}

LogicalResult OpContext::normalizeAxes(llvm::SmallVectorImpl<int64_t> &axes,
                                       int64_t rank) {
  for (int64_t &a : axes) {
    auto n = normalizeAxis(a, rank);
    if (!n)
      return fail("axis " + llvm::Twine(a) + " is out of range for rank " +
                  llvm::Twine(rank));
    a = *n;
  }
  return success();
}

Value OpContext::required(unsigned i, llvm::StringRef what) {
  Value v = in(i);
  if (!v)
    (void)fail("missing required input " + llvm::Twine(i) + " ('" + what +
               "')");
  return v;
}

const ::onnx::AttributeProto *OpContext::attr(llvm::StringRef name) const {
  for (const auto &a : node.attribute())
    if (a.name() == name)
      return &a;
  return nullptr;
}

int64_t OpContext::getInt(llvm::StringRef name, int64_t dflt) const {
  const auto *a = attr(name);
  if (!a)
    return dflt;
  if (a->type() == ::onnx::AttributeProto::FLOAT)
    return static_cast<int64_t>(a->f());
  return a->i();
}

double OpContext::getFloat(llvm::StringRef name, double dflt) const {
  const auto *a = attr(name);
  if (!a)
    return dflt;
  if (a->type() == ::onnx::AttributeProto::INT)
    return static_cast<double>(a->i());
  return a->f();
}

std::string OpContext::getString(llvm::StringRef name,
                                 llvm::StringRef dflt) const {
  const auto *a = attr(name);
  return a ? a->s() : dflt.str();
}

llvm::SmallVector<int64_t> OpContext::getInts(llvm::StringRef name) const {
  llvm::SmallVector<int64_t> out;
  if (const auto *a = attr(name)) {
    out.append(a->ints().begin(), a->ints().end());
    if (out.empty() && a->type() == ::onnx::AttributeProto::INT)
      out.push_back(a->i());
  }
  return out;
}

llvm::SmallVector<double> OpContext::getFloats(llvm::StringRef name) const {
  llvm::SmallVector<double> out;
  if (const auto *a = attr(name)) {
    for (float f : a->floats())
      out.push_back(f);
    if (out.empty() && a->type() == ::onnx::AttributeProto::FLOAT)
      out.push_back(a->f());
  }
  return out;
}

LogicalResult OpContext::fail(const llvm::Twine &msg) {
  emitError(loc) << msg;
  return failure();
}

static llvm::StringRef inputName(const ::onnx::NodeProto &node, unsigned i) {
  return i < static_cast<unsigned>(node.input_size())
             ? llvm::StringRef(node.input(i))
             : llvm::StringRef();
}

/// When `v` is a graph input, or computed (by ops that could not fold) from
/// graph inputs, names them with a hint to bind them; empty otherwise.
static std::string graphInputHint(Value v) {
  llvm::SmallVector<std::string> names;
  llvm::SmallPtrSet<void *, 16> seen;
  llvm::SmallVector<Value> worklist{v};
  unsigned budget = 4096;
  while (!worklist.empty() && budget-- > 0) {
    Value cur = worklist.pop_back_val();
    if (!seen.insert(cur.getAsOpaquePointer()).second)
      continue;
    if (auto arg = llvm::dyn_cast<BlockArgument>(cur)) {
      auto func = llvm::dyn_cast_or_null<func::FuncOp>(
          arg.getOwner()->getParentOp());
      if (!func)
        continue;
      if (auto name = func.getArgAttrOfType<StringAttr>(
              arg.getArgNumber(),
              telar::TelarDialect::NameAttrHelper::getNameStr()))
        names.push_back(name.str());
      continue;
    }
    Operation *op = cur.getDefiningOp();
    // Operands in reverse so the first operand's inputs come out first.
    for (Value operand : llvm::reverse(op->getOperands()))
      worklist.push_back(operand);
  }
  if (names.empty())
    return "";
  std::string out =
      llvm::isa<BlockArgument>(v) ? "; it is " : "; it depends on ";
  for (size_t i = 0; i < names.size(); ++i) {
    if (i)
      out += i + 1 == names.size() ? " and " : ", ";
    out += "graph input '" + names[i] + "' (bind it with --bind-input " +
           names[i] + "=FILE)";
  }
  return out;
}

/// Input `i` of `c` read as a constant through `read`, or an error naming
/// the input (and the graph input to bind, when it comes from one).
template <typename T, typename ReadFn>
static FailureOr<llvm::SmallVector<T>>
readConstInput(OpContext &c, unsigned i, llvm::StringRef what, ReadFn read) {
  Value v = c.in(i);
  if (!v) {
    (void)c.fail("missing required input '" + what + "'");
    return failure();
  }
  Attribute a;
  if (matchPattern(v, m_Constant(&a)))
    if (std::optional<llvm::SmallVector<T>> values = read(a))
      return *values;
  (void)c.fail("input '" + what + "' ('" + inputName(c.node, i) +
               "') must be a constant (static shapes required)" +
               graphInputHint(v));
  return failure();
}

FailureOr<llvm::SmallVector<int64_t>>
OpContext::constInts(unsigned i, llvm::StringRef what) {
  return readConstInput<int64_t>(*this, i, what,
                                 [](Attribute a) { return readInts(a); });
}

FailureOr<llvm::SmallVector<double>>
OpContext::constFloats(unsigned i, llvm::StringRef what) {
  return readConstInput<double>(*this, i, what,
                                [](Attribute a) { return readFloats(a); });
}

FailureOr<std::optional<llvm::SmallVector<int64_t>>>
OpContext::optConstInts(unsigned i, llvm::StringRef what) {
  if (!has(i))
    return std::optional<llvm::SmallVector<int64_t>>();
  auto v = constInts(i, what);
  if (failed(v))
    return failure();
  return std::optional<llvm::SmallVector<int64_t>>(*v);
}

Value OpContext::constant(DenseElementsAttr value) {
  return create<telar::ConstantOp>({}, {named("value", value)});
}

Value OpContext::constI64(llvm::ArrayRef<int64_t> values) {
  auto type = RankedTensorType::get({static_cast<int64_t>(values.size())},
                                    b.getI64Type());
  return constant(DenseElementsAttr::get(type, values));
}

Value OpContext::scalar(Type et, double v) {
  auto type = RankedTensorType::get({}, et);
  if (auto ft = llvm::dyn_cast<FloatType>(et)) {
    llvm::APFloat f(v);
    bool lost;
    f.convert(ft.getFloatSemantics(), llvm::APFloat::rmNearestTiesToEven,
              &lost);
    return constant(DenseElementsAttr::get(type, f));
  }
  auto it = llvm::cast<IntegerType>(et);
  llvm::APInt i(it.getWidth(), static_cast<uint64_t>(static_cast<int64_t>(v)),
                /*isSigned=*/!it.isUnsigned(), /*implicitTrunc=*/true);
  return constant(DenseElementsAttr::get(type, i));
}

llvm::SmallVector<Value> OpContext::createGeneric(
    llvm::StringRef name, ValueRange operands,
    llvm::ArrayRef<NamedAttribute> attrs, OpaqueProperties props,
    LogicalResult (*infer)(MLIRContext *, std::optional<Location>, ValueRange,
                           DictionaryAttr, OpaqueProperties, RegionRange,
                           llvm::SmallVectorImpl<Type> &)) {
  MLIRContext *ctx = getContext();
  for (Value v : operands)
    if (!v) {
      emitError(loc) << "internal error: missing operand for " << name;
      return {};
    }
  llvm::SmallVector<Type> types;
  DictionaryAttr dict = DictionaryAttr::get(ctx, attrs);
  if (failed(infer(ctx, loc, operands, dict, props, {}, types)))
    return {};
  OperationState state(loc, name);
  state.addOperands(operands);
  state.addAttributes(attrs);
  state.addTypes(types);
  Operation *op = b.create(state);
  if (failed(mlir::verify(op))) {
    op->erase();
    return {};
  }
  llvm::SmallVector<Value> folded;
  if (succeeded(b.tryFold(op, folded)) && !folded.empty()) {
    op->erase();
    return folded;
  }
  return llvm::SmallVector<Value>(op->getResults());
}
