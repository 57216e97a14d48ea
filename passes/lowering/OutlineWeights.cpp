//===- OutlineWeights.cpp - Weight constants become @main arguments -------===//
//
// A partitioned program keeps each weight's global constant, followed by
// shard.all_slice ops that cut the local block: those chains become
// arguments of the local type, with the sharding the chain describes, so
// that the artifact stores each rank's block and no rank slices (or maps)
// a whole weight at run time.
//
//===----------------------------------------------------------------------===//

#include "telar/dialects/Telar/TelarOps.h"
#include "telar/passes/lowering/Passes.h"

#include "mlir/Dialect/Shard/IR/ShardOps.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/DialectResourceBlobManager.h"

namespace mlir::telar {
#define GEN_PASS_DEF_TELAROUTLINEWEIGHTS
#include "telar/passes/lowering/Passes.h.inc"
} // namespace mlir::telar

using namespace mlir;

namespace {

/// Per dimension, the grid axes that split it (major to minor).
using AxesPerDim = SmallVector<SmallVector<int64_t>>;

/// A value of a weight's slice chain that non-slice ops use: the weight
/// sliced by `dims` on `grid` (null when not sliced).
struct Endpoint {
  Value value;
  shard::GridOp grid;
  AxesPerDim dims;
};

/// The axis names of `grid` (telar.axis_names; "axis<i>" when it has none).
SmallVector<StringRef> getAxisNames(shard::GridOp grid,
                                    SmallVectorImpl<std::string> &storage) {
  auto names = grid->getAttrOfType<ArrayAttr>(
      telar::TelarDialect::AxisNamesAttrHelper::getNameStr());
  SmallVector<StringRef> result;
  storage.clear();
  for (int64_t i = 0, e = grid.getRank(); i < e; ++i)
    storage.push_back(names && i < int64_t(names.size())
                          ? cast<StringAttr>(names[i]).str()
                          : "axis" + std::to_string(i));
  for (const std::string &s : storage)
    result.push_back(s);
  return result;
}

struct TelarOutlineWeights
    : public telar::impl::TelarOutlineWeightsBase<TelarOutlineWeights> {
  /// Follows the all_slice chains from `value` (the weight already sliced
  /// by `dims` on `grid`), collecting the values other ops use.
  LogicalResult collect(Value value, shard::GridOp grid, AxesPerDim dims,
                        SmallVectorImpl<Endpoint> &endpoints,
                        SymbolTableCollection &symbols) {
    bool usedWhole = false;
    for (Operation *user : value.getUsers()) {
      auto slice = dyn_cast<shard::AllSliceOp>(user);
      if (!slice) {
        usedWhole = true;
        continue;
      }
      auto sliceGrid = symbols.lookupNearestSymbolFrom<shard::GridOp>(
          slice, slice.getGridAttr());
      if (!sliceGrid)
        return slice.emitError("refers to an unknown grid");
      if (grid && sliceGrid != grid)
        return slice.emitError("slices a weight on a second grid");
      AxesPerDim sliced = dims;
      if (sliced.empty())
        sliced.resize(cast<RankedTensorType>(value.getType()).getRank());
      int64_t d = slice.getSliceAxis().getSExtValue();
      for (int16_t axis : slice.getGridAxes()) {
        if (llvm::any_of(sliced, [&](ArrayRef<int64_t> axes) {
              return llvm::is_contained(axes, axis);
            }))
          return slice.emitError("slices a weight a second time along grid "
                                 "axis ")
                 << axis;
        sliced[d].push_back(axis);
      }
      if (failed(collect(slice.getResult(), sliceGrid, sliced, endpoints,
                         symbols)))
        return failure();
    }
    if (usedWhole)
      endpoints.push_back({value, grid, dims});
    return success();
  }

  /// The block of `variable` the program stores: the value of its slice
  /// chain split as the result updating it (`telar.updates`) is (whole
  /// when no result does, or in a program without a mesh).
  FailureOr<Endpoint> findStoredBlock(func::FuncOp main,
                                      telar::VariableOp variable,
                                      SymbolTableCollection &symbols) {
    using Dialect = telar::TelarDialect;
    ArrayAttr target;
    for (unsigned i = 0; i < main.getNumResults(); ++i)
      if (auto updates = main.getResultAttrOfType<StringAttr>(
              i, Dialect::UpdatesAttrHelper::getNameStr());
          updates && updates.getValue() == variable.getName())
        target = main.getResultAttrOfType<ArrayAttr>(
            i, Dialect::ShardingAttrHelper::getNameStr());
    Endpoint end{variable.getResult(), nullptr, {}};
    auto isTarget = [&](const Endpoint &e) {
      int64_t splitDims = 0;
      for (ArrayRef<int64_t> axes : e.dims)
        splitDims += !axes.empty();
      if (!target)
        return splitDims == 0;
      SmallVector<std::string> storage;
      SmallVector<StringRef> names =
          e.grid ? getAxisNames(e.grid, storage) : SmallVector<StringRef>();
      for (auto [d, dimAttr] : llvm::enumerate(target)) {
        auto wanted = cast<ArrayAttr>(dimAttr);
        ArrayRef<int64_t> have =
            d < e.dims.size() ? ArrayRef<int64_t>(e.dims[d]) : ArrayRef<int64_t>();
        if (wanted.size() != have.size())
          return false;
        for (auto [w, h] : llvm::zip(wanted, have))
          if (cast<StringAttr>(w).getValue() != names[h])
            return false;
      }
      return true;
    };
    // The partitioner slices the variable to its own sharding first, one
    // all_slice per step; every other use reshards from there.
    while (!isTarget(end)) {
      shard::AllSliceOp next;
      for (Operation *user : end.value.getUsers())
        if (auto slice = dyn_cast<shard::AllSliceOp>(user))
          next = next ? shard::AllSliceOp() : slice;
      if (!next)
        return variable.emitError("the variable '")
               << variable.getName()
               << "' is not sliced to the sharding of its new value";
      auto grid = symbols.lookupNearestSymbolFrom<shard::GridOp>(
          next, next.getGridAttr());
      if (!grid)
        return next.emitError("refers to an unknown grid");
      if (end.dims.empty())
        end.dims.resize(cast<RankedTensorType>(end.value.getType()).getRank());
      for (int16_t axis : next.getGridAxes())
        end.dims[next.getSliceAxis().getSExtValue()].push_back(axis);
      end.grid = grid;
      end.value = next.getResult();
    }
    return end;
  }

  void runOnOperation() override {
    ModuleOp module = getOperation();
    // Without a program entry (a library of functions, as the lowering's
    // numeric tests are) there is nothing to outline.
    auto main = module.lookupSymbol<func::FuncOp>("main");
    if (!main || main.isExternal())
      return;
    Block &entry = main.getBody().front();
    MLIRContext *ctx = &getContext();
    using Dialect = telar::TelarDialect;
    auto weightAttrName =
        StringAttr::get(ctx, Dialect::WeightAttrHelper::getNameStr());
    auto shardingAttrName =
        StringAttr::get(ctx, Dialect::ShardingAttrHelper::getNameStr());
    auto globalShapeAttrName =
        StringAttr::get(ctx, Dialect::GlobalShapeAttrHelper::getNameStr());

    // Weight constants and a training step's variables (whose initial
    // values are resources too).
    SmallVector<std::pair<Operation *, DenseResourceElementsAttr>> constants;
    main.walk([&](Operation *op) {
      ElementsAttr value;
      if (auto constant = dyn_cast<telar::ConstantOp>(op))
        value = constant.getValue();
      else if (auto variable = dyn_cast<telar::VariableOp>(op))
        value = variable.getValue();
      if (auto res = dyn_cast_or_null<DenseResourceElementsAttr>(value))
        constants.push_back({op, res});
      else if (isa<telar::VariableOp>(op))
        constants.push_back({op, nullptr});
    });
    // One argument per resource, global type and sharding.
    llvm::MapVector<std::tuple<StringRef, Type, Attribute>, BlockArgument>
        args;
    SymbolTableCollection symbols;
    for (auto [op, res] : constants) {
      if (!res) {
        op->emitError("a variable's initial value must be a resource (a "
                      "weight file holds it)");
        return signalPassFailure();
      }
      StringRef name = res.getRawHandle().getKey();
      auto globalType = cast<RankedTensorType>(op->getResult(0).getType());
      SmallVector<Endpoint> endpoints;
      if (auto variable = dyn_cast<telar::VariableOp>(op)) {
        // A variable is stored once, split as its new value is returned;
        // uses that want it split otherwise slice it at run time.
        FailureOr<Endpoint> stored = findStoredBlock(main, variable, symbols);
        if (failed(stored))
          return signalPassFailure();
        endpoints.push_back(*stored);
      } else if (failed(collect(op->getResult(0), nullptr, {}, endpoints,
                                symbols))) {
        return signalPassFailure();
      }
      for (Endpoint &end : endpoints) {
        SmallVector<NamedAttribute> attrs = {
            NamedAttribute(weightAttrName, StringAttr::get(ctx, name))};
        Attribute sharding;
        if (end.grid) {
          SmallVector<std::string> storage;
          SmallVector<StringRef> axisNames = getAxisNames(end.grid, storage);
          SmallVector<Attribute> dims;
          for (ArrayRef<int64_t> axes : end.dims) {
            SmallVector<Attribute> names;
            for (int64_t axis : axes)
              names.push_back(StringAttr::get(ctx, axisNames[axis]));
            dims.push_back(ArrayAttr::get(ctx, names));
          }
          sharding = ArrayAttr::get(ctx, dims);
          attrs.push_back(NamedAttribute(shardingAttrName, sharding));
          attrs.push_back(NamedAttribute(
              globalShapeAttrName,
              DenseI64ArrayAttr::get(ctx, globalType.getShape())));
        }
        auto key = std::make_tuple(name, Type(globalType), sharding);
        auto it = args.find(key);
        if (it == args.end()) {
          // Replicated weights before sharded ones: the artifact's order of
          // weight files (and so of the program's weight buffers).
          unsigned index = main.getNumArguments();
          if (!sharding)
            for (unsigned i = 0, e = main.getNumArguments(); i < e; ++i)
              if (main.getArgAttr(i, weightAttrName) &&
                  main.getArgAttr(i, shardingAttrName)) {
                index = i;
                break;
              }
          if (failed(main.insertArgument(index, end.value.getType(),
                                         DictionaryAttr::get(ctx, attrs),
                                         op->getLoc())))
            return signalPassFailure();
          it = args.insert({key, entry.getArgument(index)}).first;
        }
        // Only the whole uses: the slices further down have their own
        // (a variable's are slices at run time).
        bool variable = isa<telar::VariableOp>(op);
        end.value.replaceUsesWithIf(it->second, [&](OpOperand &use) {
          return variable || !isa<shard::AllSliceOp>(use.getOwner());
        });
      }
      // The chain is dead now, slices from the leaves up.
      SmallVector<Operation *> dead = {op};
      for (size_t i = 0; i < dead.size(); ++i)
        for (Operation *user : dead[i]->getUsers())
          dead.push_back(user);
      for (Operation *o : llvm::reverse(dead))
        if (o->use_empty())
          o->erase();
    }
  }
};
} // namespace
