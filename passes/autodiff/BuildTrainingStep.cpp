//===- BuildTrainingStep.cpp - A forward program made a training step -----===//
//
// telar-build-training-step (Passes.td): reverse-mode autodiff from the
// loss through each op's GradientOpInterface, then gradient clipping and
// the optimizer update, all appended to @main as telar ops.
//
//===----------------------------------------------------------------------===//

#include "GradientBuilder.h"
#include "Optimizers.h"

#include "telar/dialects/Telar/TelarDialect.h"
#include "telar/passes/autodiff/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/ScopeExit.h"
#include "llvm/ADT/SetVector.h"

namespace mlir::telar {
#define GEN_PASS_DEF_TELARBUILDTRAININGSTEP
#include "telar/passes/autodiff/Passes.h.inc"
} // namespace mlir::telar

using namespace mlir;
using namespace mlir::telar;
using namespace mlir::telar::autodiff;

namespace {

using Dialect = TelarDialect;

/// The ONNX-level name of `v` (telar.result_names), or "".
StringRef getValueName(Value v) {
  auto result = dyn_cast<OpResult>(v);
  if (!result)
    return "";
  auto names = result.getOwner()->getAttrOfType<ArrayAttr>(
      Dialect::ResultNamesAttrHelper::getNameStr());
  if (!names || result.getResultNumber() >= names.size())
    return "";
  auto name = dyn_cast<StringAttr>(names[result.getResultNumber()]);
  return name ? name.getValue() : "";
}

/// Names `v` (an op result) `name` for plans, unless it has a name.
void setValueName(Value v, StringRef name) {
  auto result = dyn_cast<OpResult>(v);
  if (!result || !getValueName(v).empty())
    return;
  Operation *op = result.getOwner();
  MLIRContext *ctx = op->getContext();
  SmallVector<Attribute> names(op->getNumResults(), StringAttr::get(ctx, ""));
  if (auto old = op->getAttrOfType<ArrayAttr>(
          Dialect::ResultNamesAttrHelper::getNameStr()))
    for (auto [i, n] : llvm::enumerate(old))
      names[i] = n;
  names[result.getResultNumber()] = StringAttr::get(ctx, name);
  op->setAttr(Dialect::ResultNamesAttrHelper::getNameStr(),
              ArrayAttr::get(ctx, names));
}

struct TelarBuildTrainingStep
    : public telar::impl::TelarBuildTrainingStepBase<TelarBuildTrainingStep> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    auto main = module.lookupSymbol<func::FuncOp>("main");
    if (!main || main.isExternal()) {
      module.emitError("has no @main function to train");
      return signalPassFailure();
    }
    if (failed(build(module, main)))
      signalPassFailure();
  }

  LogicalResult checkOptions(Location loc, OptimizerOptions &opt,
                             double &lr) {
    opt.kind = optimizer;
    if (opt.kind != "sgd" && opt.kind != "adamw")
      return emitError(loc) << "unknown optimizer '" << opt.kind
                            << "': expected sgd or adamw";
    bool adamw = opt.kind == "adamw";
    lr = learningRate >= 0 ? learningRate : (adamw ? 1e-3 : 0.01);
    opt.momentum = momentum;
    opt.weightDecay = weightDecay >= 0 ? weightDecay : (adamw ? 0.01 : 0.0);
    opt.beta1 = beta1;
    opt.beta2 = beta2;
    opt.epsilon = epsilon;
    if (!(lr >= 0) || !(opt.weightDecay >= 0) || !(opt.momentum >= 0) ||
        !(opt.epsilon > 0) || !(opt.beta1 >= 0 && opt.beta1 < 1) ||
        !(opt.beta2 >= 0 && opt.beta2 < 1) || !(gradClip >= 0))
      return emitError(loc)
             << "invalid hyper-parameters: the learning rate, momentum, "
                "weight decay and clipping norm must be non-negative, eps "
                "positive and the betas in [0, 1)";
    if (adamw && momentum != 0)
      return emitError(loc) << "momentum applies to sgd (adamw has betas)";
    return success();
  }

  LogicalResult build(ModuleOp module, func::FuncOp main) {
    Location loc = main.getLoc();
    OptimizerOptions opt;
    double lr = 0;
    if (failed(checkOptions(loc, opt, lr)))
      return failure();

    // The loss: an output of @main, a floating-point scalar.
    auto ret = cast<func::ReturnOp>(main.getBody().front().getTerminator());
    auto outputNames =
        main->getAttrOfType<ArrayAttr>(Dialect::OutputNamesAttrHelper::getNameStr());
    Value lossValue;
    std::string available;
    for (unsigned i = 0; i < ret.getNumOperands(); ++i) {
      StringRef name = outputNames && i < outputNames.size()
                           ? cast<StringAttr>(outputNames[i]).getValue()
                           : "";
      available += (available.empty() ? "'" : ", '") + name.str() + "'";
      if (name == loss)
        lossValue = ret.getOperand(i);
    }
    if (!lossValue)
      return main.emitError() << "the loss '" << loss
                              << "' is not an output of the model (its "
                                 "outputs: "
                              << available << ")";
    auto lossType = cast<RankedTensorType>(lossValue.getType());
    if (!isa<FloatType>(lossType.getElementType()) ||
        lossType.getNumElements() != 1)
      return main.emitError() << "the loss '" << loss
                              << "' must be a floating-point scalar, but it "
                                 "is "
                              << lossType;

    // The parameters.
    SmallVector<VariableOp> params;
    main.walk([&](VariableOp v) { params.push_back(v); });
    if (params.empty())
      return main.emitError()
             << "has no trainable parameters (telar.variable ops; telarc "
                "--train makes every floating-point initializer not frozen "
                "one)";
    if (microbatches < 1)
      return main.emitError() << "microbatches must be at least 1, got "
                              << microbatches;

    // Gradient accumulation: each input one microbatch per row of a new
    // leading dimension; the forward (its ops but the variables and
    // constants) cloned per microbatch after the previous one's backward.
    OpBuilder b(ret);
    GradientBuilder g(b, loc);
    int64_t k = microbatches;
    SmallVector<Operation *> forward;
    SmallVector<SmallVector<Value>> rows(main.getNumArguments());
    if (k > 1) {
      for (Operation &op : main.getBody().front())
        if (!isa<VariableOp, ConstantOp, func::ReturnOp>(op))
          forward.push_back(&op);
      OpBuilder atStart(&main.getBody().front(),
                        main.getBody().front().begin());
      GradientBuilder start(atStart, loc);
      for (BlockArgument arg : main.getArguments()) {
        auto type = cast<RankedTensorType>(arg.getType());
        SmallVector<int64_t> shape = {k};
        shape.append(type.getShape().begin(), type.getShape().end());
        arg.setType(type.clone(shape));
        SmallPtrSet<Operation *, 8> slices;
        for (int64_t i = 0; i < k; ++i) {
          auto slice = SliceOp::create(atStart, loc, arg, ArrayRef<int64_t>{0},
                                       ArrayRef<int64_t>{i},
                                       ArrayRef<int64_t>{i + 1},
                                       ArrayRef<int64_t>{1});
          slices.insert(slice);
          rows[arg.getArgNumber()].push_back(
              start.reshape(slice, type.getShape()));
        }
        arg.replaceAllUsesExcept(rows[arg.getArgNumber()][0], slices);
      }
      main.setFunctionType(FunctionType::get(
          &getContext(), main.getBody().front().getArgumentTypes(),
          main.getResultTypes()));
    }

    // Backward of one microbatch: from `lossOf` (seeded `seed`) through the
    // ops on a path from a parameter to it, last first, the parameters'
    // gradients added into `grads`.
    DenseMap<Value, Value> grads;
    // Tags the ops between `after` and `ret` with their phase (telarc
    // --explain sums each phase's cost). Forward ops stay untagged.
    auto tagPhase = [&](Operation *after, StringRef phase) {
      for (Operation *op = after ? after->getNextNode()
                                 : &main.getBody().front().front();
           op && op != ret.getOperation(); op = op->getNextNode())
        if (!isa<VariableOp, ConstantOp>(op))
          op->setAttr(Dialect::PhaseAttrHelper::getNameStr(),
                      StringAttr::get(&getContext(), phase));
    };
    auto backward = [&](Value lossOf, double seed) -> LogicalResult {
      Operation *before = ret->getPrevNode();
      llvm::scope_exit tag([&] { tagPhase(before, "backward"); });
      // The ops a parameter's float values reach, and those the loss
      // depends on: the backward runs through both.
      auto closure = [](SmallVector<Operation *> work, auto next) {
        llvm::DenseSet<Operation *> seen;
        while (!work.empty()) {
          Operation *op = work.pop_back_val();
          if (seen.insert(op).second)
            next(op, work);
        }
        return seen;
      };
      llvm::DenseSet<Operation *> fromParams = closure(
          SmallVector<Operation *>(params.begin(), params.end()),
          [](Operation *op, SmallVector<Operation *> &work) {
            for (Value r : op->getResults())
              if (isFloatTensor(r))
                for (Operation *user : r.getUsers())
                  work.push_back(user);
          });
      SmallVector<Operation *> lossDef;
      if (Operation *def = lossOf.getDefiningOp())
        lossDef.push_back(def);
      llvm::DenseSet<Operation *> toLoss = closure(
          lossDef, [](Operation *op, SmallVector<Operation *> &work) {
            for (Value operand : op->getOperands())
              if (Operation *def = operand.getDefiningOp())
                work.push_back(def);
          });
      DenseMap<Value, Value> local;
      b.setInsertionPoint(ret);
      local[lossOf] =
          g.reshape(g.scalar(lossOf, seed), lossType.getShape());
      SmallVector<Operation *> ops;
      for (Operation &op : main.getBody().front())
        if (fromParams.contains(&op) && toLoss.contains(&op))
          ops.push_back(&op);
      for (Operation *op : llvm::reverse(ops)) {
        SmallVector<Value> dys;
        bool any = false;
        for (Value r : op->getResults()) {
          Value dy = local.lookup(r);
          dys.push_back(dy);
          any |= bool(dy);
        }
        if (!any)
          continue;
        if (auto v = dyn_cast<VariableOp>(op)) {
          Value &acc = grads[v.getResult()];
          b.setInsertionPoint(ret);
          acc = acc ? g.add(acc, dys[0]) : dys[0];
          continue;
        }
        auto iface = dyn_cast<GradientOpInterface>(op);
        if (!iface)
          return op->emitError()
                 << "has no gradient (VJP) yet, and the loss '" << loss
                 << "' depends on trainable parameters through it (freeze "
                    "them with --freeze, or see docs/Training.md for the "
                    "ops that have one)";
        b.setInsertionPoint(ret);
        SmallVector<Value> dxs;
        if (failed(iface.buildGradients(b, dys, dxs)))
          return failure();
        for (auto [operand, dx] : llvm::zip(op->getOperands(), dxs)) {
          Operation *def = operand.getDefiningOp();
          if (!dx || !def || !fromParams.contains(def))
            continue;
          Value &acc = local[operand];
          acc = acc ? g.add(acc, dx) : dx;
        }
      }
      return success();
    };

    if (failed(backward(lossValue, 1.0 / double(k))))
      return failure();
    Value meanLoss = lossValue;
    for (int64_t i = 1; i < k; ++i) {
      IRMapping mapping;
      for (SmallVector<Value> &argRows : rows)
        mapping.map(argRows[0], argRows[i]);
      b.setInsertionPoint(ret);
      std::string suffix = "@mb" + std::to_string(i);
      for (Operation *op : forward) {
        Operation *copy = b.clone(*op, mapping);
        // Microbatch i's values named apart: NAME@mb<i>.
        if (auto names = copy->getAttrOfType<ArrayAttr>(
                Dialect::ResultNamesAttrHelper::getNameStr())) {
          SmallVector<Attribute> renamed;
          for (Attribute a : names) {
            auto s = cast<StringAttr>(a);
            renamed.push_back(s.getValue().empty()
                                  ? a
                                  : StringAttr::get(&getContext(),
                                                    s.getValue() + suffix));
          }
          copy->setAttr(Dialect::ResultNamesAttrHelper::getNameStr(),
                        ArrayAttr::get(&getContext(), renamed));
        }
      }
      Value lossI = mapping.lookup(lossValue);
      if (failed(backward(lossI, 1.0 / double(k))))
        return failure();
      b.setInsertionPoint(ret);
      meanLoss = g.add(meanLoss, lossI);
    }
    if (k > 1) {
      b.setInsertionPoint(ret);
      meanLoss = g.mulScalar(meanLoss, 1.0 / double(k));
    }
    Operation *lastBackward = ret->getPrevNode();

    // The gradients, named for plans; those of unused parameters are none.
    // A parameter the loss does not reach keeps its value (PyTorch skips a
    // parameter whose grad is None): returned as it is, so that it is
    // still saved and exported with the trained ones.
    SmallVector<std::pair<VariableOp, Value>> trained;
    SmallVector<VariableOp> untouched;
    for (VariableOp v : params) {
      Value grad = grads.lookup(v.getResult());
      if (!grad) {
        untouched.push_back(v);
        continue;
      }
      setValueName(grad, (v.getName() + "@grad").str());
      trained.push_back({v, grad});
    }
    if (trained.empty())
      return main.emitError() << "the loss '" << loss
                              << "' depends on no trainable parameter";

    if (gradClip > 0) {
      // torch.nn.utils.clip_grad_norm_: g *= min(1, clip / (norm + 1e-6)).
      Type f32 = b.getF32Type();
      Value total;
      for (auto &[v, grad] : trained) {
        Value sq = g.cast(ReduceSumOp::create(b, loc, g.mul(grad, grad),
                                              ArrayRef<int64_t>{}, false),
                          f32);
        total = total ? g.add(total, sq) : sq;
      }
      Value norm = g.sqrt(total);
      Value coef = g.div(g.scalar(norm, gradClip),
                         g.add(norm, g.scalar(norm, 1e-6)));
      coef = MinOp::create(b, loc, coef, g.scalar(coef, 1.0));
      for (auto &[v, grad] : trained)
        grad = g.mul(grad, g.cast(coef, cast<ShapedType>(grad.getType())
                                            .getElementType()));
    }

    // The step's runtime scalars.
    MLIRContext *ctx = &getContext();
    auto scalarF32 = RankedTensorType::get({}, b.getF32Type());
    auto addScalarInput = [&](StringRef name) -> Value {
      unsigned index = main.getNumArguments();
      NamedAttribute attr(
          StringAttr::get(ctx, Dialect::NameAttrHelper::getNameStr()),
          StringAttr::get(ctx, name));
      if (failed(main.insertArgument(index, scalarF32,
                                     DictionaryAttr::get(ctx, attr), loc)))
        return {};
      return main.getArgument(index);
    };
    for (unsigned i = 0; i < main.getNumArguments(); ++i)
      if (auto name = main.getArgAttrOfType<StringAttr>(
              i, Dialect::NameAttrHelper::getNameStr()))
        if (name.getValue().starts_with("@"))
          return main.emitError() << "the input " << name
                                  << " has a name training reserves (names "
                                     "starting with '@')";
    Value lrValue = addScalarInput("@lr");
    Value stepValue = opt.kind == "adamw" ? addScalarInput("@step") : Value();
    if (!lrValue || (opt.kind == "adamw" && !stepValue))
      return failure();

    // The optimizer: state variables (zero) and the updates.
    SmallVector<StringRef> stateNames = getOptimizerState(opt);
    SmallVector<Value> results = {meanLoss};
    SmallVector<Attribute> names = {StringAttr::get(ctx, loss)};
    SmallVector<std::string> updated;
    for (auto &[v, grad] : trained) {
      SmallVector<Value> state;
      for (StringRef s : stateNames) {
        std::string name = (v.getName() + "@" + s).str();
        OpBuilder atStart(&main.getBody().front(),
                          main.getBody().front().begin());
        auto type = cast<RankedTensorType>(v.getType());
        auto zero = DenseElementsAttr::get(
            type, atStart.getZeroAttr(type.getElementType()));
        auto stateVar = VariableOp::create(
            atStart, v.getLoc(), atStart.getStringAttr(name),
            toWeightResource(cast<ElementsAttr>(zero), name));
        setValueName(stateVar.getResult(), name);
        state.push_back(stateVar);
      }
      b.setInsertionPoint(ret);
      SmallVector<Value> next = buildOptimizerUpdate(g, opt, v, grad, state,
                                                     lrValue, stepValue);
      updated.push_back(v.getName().str());
      for (StringRef s : stateNames)
        updated.push_back((v.getName() + "@" + s).str());
      results.append(next);
    }
    for (VariableOp v : untouched) {
      updated.push_back(v.getName().str());
      results.push_back(v.getResult());
    }
    for (size_t i = 0; i < updated.size(); ++i) {
      setValueName(results[i + 1], updated[i] + "@new");
      names.push_back(StringAttr::get(ctx, updated[i] + "@new"));
    }

    tagPhase(lastBackward, "optimizer");

    // The new signature: the loss, then the variables' new values.
    b.setInsertionPoint(ret);
    func::ReturnOp::create(b, ret.getLoc(), results);
    ret.erase();
    main.setFunctionType(FunctionType::get(
        ctx, main.getArgumentTypes(), ValueRange(results).getTypes()));
    main->setAttr(Dialect::OutputNamesAttrHelper::getNameStr(),
                  ArrayAttr::get(ctx, names));
    for (unsigned i = 0; i < main.getNumResults(); ++i)
      main.setResultAttrs(i, DictionaryAttr::get(ctx, {}));
    for (size_t i = 0; i < updated.size(); ++i)
      main.setResultAttr(i + 1, Dialect::UpdatesAttrHelper::getNameStr(),
                         StringAttr::get(ctx, updated[i]));

    // What the artifact records.
    SmallVector<NamedAttribute> training = {
        b.getNamedAttr("loss", b.getStringAttr(loss)),
        b.getNamedAttr("optimizer", b.getStringAttr(opt.kind)),
        b.getNamedAttr("lr", b.getF64FloatAttr(lr)),
        b.getNamedAttr("weight_decay", b.getF64FloatAttr(opt.weightDecay)),
        b.getNamedAttr("grad_clip", b.getF64FloatAttr(gradClip))};
    if (k > 1)
      training.push_back(b.getNamedAttr(
          "microbatches", b.getF64FloatAttr(double(k))));
    SmallVector<Attribute> paramNames;
    for (auto &[v, grad] : trained)
      paramNames.push_back(v.getNameAttr());
    for (VariableOp v : untouched)
      paramNames.push_back(v.getNameAttr());
    training.push_back(
        b.getNamedAttr("parameters", b.getArrayAttr(paramNames)));
    if (opt.kind == "sgd")
      training.push_back(
          b.getNamedAttr("momentum", b.getF64FloatAttr(opt.momentum)));
    else
      for (auto [key, value] :
           {std::pair<StringRef, double>{"beta1", opt.beta1},
            {"beta2", opt.beta2},
            {"eps", opt.epsilon}})
        training.push_back(b.getNamedAttr(key, b.getF64FloatAttr(value)));
    module->setAttr(Dialect::TrainingAttrHelper::getNameStr(),
                    b.getDictionaryAttr(training));

    // The forward outputs no longer returned are dead now.
    SmallVector<Operation *> body;
    for (Operation &op : main.getBody().front())
      body.push_back(&op);
    for (Operation *op : llvm::reverse(body))
      if (op->use_empty() && isOpTriviallyDead(op))
        op->erase();
    return success();
  }
};

} // namespace
