//===- TestSimulateRanks.cpp - Run an SPMD program's ranks in one -------===//
//
// Rewrites each partitioned function (telar-partition's output) into one
// single-device function with the global signature that runs every rank of
// the mesh side by side: the inputs are cut into each rank's block, the
// program is cloned once per rank, every shard collective becomes telar
// ops over the values of its group's members (concat for all_gather,
// slices for all_slice, an elementwise fold for all_reduce, both for
// reduce_scatter, slices and concats for all_to_all), and the outputs are
// assembled from the ranks' blocks. Running the result next to the
// original program checks the partitioner numerically, without a runtime.
// Group members are numbered row-major over their coordinates on the
// collective's grid axes, in the listed order (CONTRACTS8.md).
//
//===----------------------------------------------------------------------===//

#include "TestPasses.h"
#include "telar/dialects/Telar/TelarOps.h"
#include "telar/sharding/core/Sharding.h"

#include "mlir/Dialect/Shard/IR/ShardOps.h"
#include "mlir/IR/IRMapping.h"

#include <map>

namespace mlir::telar {
#define GEN_PASS_DEF_TESTTELARSIMULATERANKS
#include "TestPasses.h.inc"
} // namespace mlir::telar

using namespace mlir;
using namespace mlir::telar;
using telar_sharding::Mesh;
using telar_sharding::Sharding;

namespace {

class Simulator {
public:
  Simulator(OpBuilder &b, Location loc, const Mesh &mesh)
      : b(b), loc(loc), mesh(mesh) {}

  Value slice(Value v, int64_t dim, int64_t block, int64_t length) {
    return SliceOp::create(b, loc, v, b.getDenseI64ArrayAttr({dim}),
                           b.getDenseI64ArrayAttr({block * length}),
                           b.getDenseI64ArrayAttr({(block + 1) * length}),
                           b.getDenseI64ArrayAttr({1}));
  }
  Value block(Value v, ArrayRef<int64_t> offsets, ArrayRef<int64_t> sizes) {
    SmallVector<int64_t> axes, ends, steps;
    for (size_t d = 0; d < offsets.size(); ++d) {
      axes.push_back(d);
      ends.push_back(offsets[d] + sizes[d]);
      steps.push_back(1);
    }
    return SliceOp::create(b, loc, v, b.getDenseI64ArrayAttr(axes),
                           b.getDenseI64ArrayAttr(offsets),
                           b.getDenseI64ArrayAttr(ends),
                           b.getDenseI64ArrayAttr(steps));
  }
  Value concat(ArrayRef<Value> values, int64_t dim) {
    if (values.size() == 1)
      return values.front();
    return ConcatOp::create(b, loc, values, b.getI64IntegerAttr(dim));
  }

  /// The ranks of `rank`'s group over `axes`, by member index.
  SmallVector<int64_t> getMembers(int64_t rank, ArrayRef<int16_t> axes) {
    std::vector<int64_t> c = mesh.getCoordinates(rank);
    int64_t size = 1;
    for (int16_t a : axes)
      size *= mesh.axisSizes[a];
    SmallVector<int64_t> members;
    for (int64_t i = 0; i < size; ++i) {
      std::vector<int64_t> cc = c;
      int64_t rest = i;
      for (int64_t k = axes.size() - 1; k >= 0; --k) {
        cc[axes[k]] = rest % mesh.axisSizes[axes[k]];
        rest /= mesh.axisSizes[axes[k]];
      }
      members.push_back(mesh.getRank(cc));
    }
    return members;
  }
  int64_t getMemberIndex(int64_t rank, ArrayRef<int16_t> axes) {
    std::vector<int64_t> c = mesh.getCoordinates(rank);
    int64_t index = 0;
    for (int16_t a : axes)
      index = index * mesh.axisSizes[a] + c[a];
    return index;
  }

  Value reduce(shard::ReductionKind kind, ArrayRef<Value> values) {
    Value acc = values.front();
    for (Value v : values.drop_front()) {
      switch (kind) {
      case shard::ReductionKind::Sum:
        acc = AddOp::create(b, loc, acc, v);
        break;
      case shard::ReductionKind::Max:
        acc = MaxOp::create(b, loc, acc, v);
        break;
      case shard::ReductionKind::Min:
        acc = MinOp::create(b, loc, acc, v);
        break;
      case shard::ReductionKind::Product:
        acc = MulOp::create(b, loc, acc, v);
        break;
      default:
        return Value();
      }
    }
    return acc;
  }

  /// The value of collective `op` on `rank`, from the members' inputs.
  FailureOr<Value> simulate(Operation *op, int64_t rank,
                            function_ref<Value(int64_t)> inputOf) {
    auto axes = op->getAttrOfType<DenseI16ArrayAttr>("grid_axes").asArrayRef();
    SmallVector<int64_t> members = getMembers(rank, axes);
    int64_t me = getMemberIndex(rank, axes);
    SmallVector<Value> inputs;
    for (int64_t m : members)
      inputs.push_back(inputOf(m));
    auto out = cast<RankedTensorType>(op->getResult(0).getType());
    if (auto g = dyn_cast<shard::AllGatherOp>(op))
      return concat(inputs, g.getGatherAxis().getSExtValue());
    if (auto s = dyn_cast<shard::AllSliceOp>(op)) {
      int64_t d = s.getSliceAxis().getSExtValue();
      return slice(inputOf(rank), d, me, out.getDimSize(d));
    }
    if (auto r = dyn_cast<shard::AllReduceOp>(op)) {
      if (Value v = reduce(r.getReduction(), inputs))
        return v;
      return failure();
    }
    if (auto r = dyn_cast<shard::ReduceScatterOp>(op)) {
      Value v = reduce(r.getReduction(), inputs);
      if (!v)
        return failure();
      int64_t d = r.getScatterAxis().getSExtValue();
      return slice(v, d, me, out.getDimSize(d));
    }
    if (auto a = dyn_cast<shard::AllToAllOp>(op)) {
      int64_t split = a.getSplitAxis().getSExtValue();
      int64_t cat = a.getConcatAxis().getSExtValue();
      SmallVector<Value> pieces;
      for (Value in : inputs)
        pieces.push_back(slice(in, split, me, out.getDimSize(split)));
      return concat(pieces, cat);
    }
    return failure();
  }

  /// The global value assembled from the ranks' blocks.
  Value assemble(ArrayRef<Value> perRank, RankedTensorType global,
                 const Sharding &sharding) {
    std::vector<int64_t> shape(global.getShape().begin(),
                               global.getShape().end());
    std::vector<int64_t> local =
        telar_sharding::getLocalShape(shape, sharding, mesh);
    std::map<std::vector<int64_t>, Value> blocks;
    for (auto [rank, v] : llvm::enumerate(perRank))
      blocks.try_emplace(
          telar_sharding::getBlockOffsets(shape, sharding, mesh, rank), v);
    std::function<Value(size_t, std::vector<int64_t> &)> build =
        [&](size_t d, std::vector<int64_t> &offsets) -> Value {
      if (d == shape.size())
        return blocks.at(offsets);
      SmallVector<Value> parts;
      for (int64_t o = 0; o < shape[d]; o += local[d]) {
        offsets.push_back(o);
        parts.push_back(build(d + 1, offsets));
        offsets.pop_back();
      }
      return concat(parts, d);
    };
    std::vector<int64_t> offsets;
    return build(0, offsets);
  }

private:
  OpBuilder &b;
  Location loc;
  const Mesh &mesh;
};

/// The sharding a partitioned interface attribute names.
static Sharding readInterface(ArrayAttr names, const Mesh &mesh, int64_t rank) {
  Sharding s = Sharding::getReplicated(rank);
  if (!names)
    return s;
  for (auto [d, dim] : llvm::enumerate(names))
    for (Attribute n : cast<ArrayAttr>(dim))
      s.dims[d].push_back(
          *mesh.getAxisIndex(cast<StringAttr>(n).getValue().str()));
  return s;
}

struct TestTelarSimulateRanks
    : public telar::impl::TestTelarSimulateRanksBase<TestTelarSimulateRanks> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    auto grids = llvm::to_vector(module.getOps<shard::GridOp>());
    if (grids.size() != 1)
      return;
    Mesh mesh;
    auto names = grids[0]->getAttrOfType<ArrayAttr>("telar.axis_names");
    for (auto [n, s] : llvm::zip(names, grids[0].getShape())) {
      mesh.axisNames.push_back(cast<StringAttr>(n).getValue().str());
      mesh.axisSizes.push_back(s);
    }
    for (auto fn : llvm::to_vector(module.getOps<func::FuncOp>()))
      if (isPartitioned(fn) && failed(simulateFunction(fn, mesh)))
        return signalPassFailure();
    // Nothing refers to the grid any more: a single-device module.
    grids[0].erase();
  }

  /// Whether `fn` is a partitioned program: it has collectives or sharded
  /// arguments or results (other functions, such as a caller printing the
  /// results, run once as they are).
  static bool isPartitioned(func::FuncOp fn) {
    if (fn.isExternal())
      return false;
    for (unsigned i = 0; i < fn.getNumArguments(); ++i)
      if (fn.getArgAttr(i, "telar.sharding"))
        return true;
    for (unsigned i = 0; i < fn.getNumResults(); ++i)
      if (fn.getResultAttr(i, "telar.sharding"))
        return true;
    return fn.walk([](Operation *op) {
               return op->getDialect() &&
                              op->getDialect()->getNamespace() == "shard"
                          ? WalkResult::interrupt()
                          : WalkResult::advance();
             })
        .wasInterrupted();
  }

  LogicalResult simulateFunction(func::FuncOp fn, const Mesh &mesh) {
    StringRef shardingName = "telar.sharding", shapeName = "telar.global_shape";
    auto globalType = [&](Type local, DictionaryAttr attrs) -> Type {
      auto t = dyn_cast<RankedTensorType>(local);
      auto shape = attrs ? attrs.getAs<DenseI64ArrayAttr>(shapeName)
                         : DenseI64ArrayAttr();
      return t && shape ? RankedTensorType::get(shape.asArrayRef(),
                                                t.getElementType())
                        : local;
    };
    SmallVector<Type> argTypes, resultTypes;
    for (unsigned i = 0; i < fn.getNumArguments(); ++i)
      argTypes.push_back(
          globalType(fn.getArgumentTypes()[i], fn.getArgAttrDict(i)));
    for (unsigned i = 0; i < fn.getNumResults(); ++i)
      resultTypes.push_back(
          globalType(fn.getResultTypes()[i], fn.getResultAttrDict(i)));

    OpBuilder b(fn);
    auto sim = func::FuncOp::create(b, fn.getLoc(), fn.getName(),
                                    b.getFunctionType(argTypes, resultTypes));
    Block *body = sim.addEntryBlock();
    b.setInsertionPointToStart(body);
    Simulator s(b, fn.getLoc(), mesh);
    int64_t ranks = mesh.getNumDevices();
    std::vector<IRMapping> maps(ranks);
    for (unsigned i = 0; i < fn.getNumArguments(); ++i) {
      Value global = body->getArgument(i);
      auto type = dyn_cast<RankedTensorType>(argTypes[i]);
      auto names = fn.getArgAttrOfType<ArrayAttr>(i, shardingName);
      for (int64_t r = 0; r < ranks; ++r) {
        Value v = global;
        if (type && names) {
          Sharding sh = readInterface(names, mesh, type.getRank());
          std::vector<int64_t> shape(type.getShape().begin(),
                                     type.getShape().end());
          v = s.block(global,
                      telar_sharding::getBlockOffsets(shape, sh, mesh, r),
                      telar_sharding::getLocalShape(shape, sh, mesh));
        }
        maps[r].map(fn.getArgument(i), v);
      }
    }
    for (Operation &op : fn.front()) {
      if (auto ret = dyn_cast<func::ReturnOp>(op)) {
        SmallVector<Value> results;
        for (auto [i, v] : llvm::enumerate(ret.getOperands())) {
          SmallVector<Value> perRank;
          for (int64_t r = 0; r < ranks; ++r)
            perRank.push_back(maps[r].lookup(v));
          auto type = dyn_cast<RankedTensorType>(resultTypes[i]);
          auto names = fn.getResultAttrOfType<ArrayAttr>(i, shardingName);
          results.push_back(
              type && names
                  ? s.assemble(perRank, type,
                               readInterface(names, mesh, type.getRank()))
                  : perRank.front());
        }
        func::ReturnOp::create(b, ret.getLoc(), results);
        continue;
      }
      if (op.getDialect() &&
          op.getDialect()->getNamespace() == "shard" &&
          !isa<shard::GridOp>(op)) {
        std::vector<Value> values;
        for (int64_t r = 0; r < ranks; ++r) {
          FailureOr<Value> v = s.simulate(&op, r, [&](int64_t m) {
            return maps[m].lookup(op.getOperand(0));
          });
          if (failed(v))
            return op.emitError("cannot simulate this op");
          values.push_back(*v);
        }
        for (int64_t r = 0; r < ranks; ++r)
          maps[r].map(op.getResult(0), values[r]);
        continue;
      }
      for (int64_t r = 0; r < ranks; ++r)
        b.clone(op, maps[r]);
    }
    sim->setAttrs(fn->getAttrs());
    sim.setFunctionType(b.getFunctionType(argTypes, resultTypes));
    sim.setAllArgAttrs(fn.getAllArgAttrs());
    sim.setAllResultAttrs(fn.getAllResultAttrs());
    for (unsigned i = 0; i < sim.getNumArguments(); ++i) {
      sim.removeArgAttr(i, b.getStringAttr(shardingName));
      sim.removeArgAttr(i, b.getStringAttr(shapeName));
    }
    for (unsigned i = 0; i < sim.getNumResults(); ++i) {
      sim.removeResultAttr(i, b.getStringAttr(shardingName));
      sim.removeResultAttr(i, b.getStringAttr(shapeName));
    }
    fn.erase();
    return success();
  }
};

} // namespace
