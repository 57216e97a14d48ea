//===- TestCollectives.cpp - Print a partitioned program's collectives ----===//

#include "TestPasses.h"
#include "telar/dialects/Telar/TelarDialect.h"

#include "mlir/Dialect/Shard/IR/ShardOps.h"
#include "mlir/IR/SymbolTable.h"

namespace mlir::telar {
#define GEN_PASS_DEF_TESTTELARCOLLECTIVES
#include "TestPasses.h.inc"
} // namespace mlir::telar

using namespace mlir;

namespace {
struct TestTelarCollectives
    : public telar::impl::TestTelarCollectivesBase<TestTelarCollectives> {
  void runOnOperation() override {
    func::FuncOp fn = getOperation();
    int64_t count = 0, total = 0;
    bool ok = true;
    fn.walk([&](Operation *op) {
      StringRef kind;
      if (isa<shard::AllGatherOp>(op))
        kind = "all_gather";
      else if (isa<shard::AllSliceOp>(op))
        kind = "all_slice";
      else if (isa<shard::AllToAllOp>(op))
        kind = "all_to_all";
      else if (isa<shard::AllReduceOp>(op))
        kind = "all_reduce";
      else if (isa<shard::ReduceScatterOp>(op))
        kind = "reduce_scatter";
      else
        return;
      auto gridName = op->getAttrOfType<FlatSymbolRefAttr>("grid");
      auto grid = SymbolTable::lookupNearestSymbolFrom<shard::GridOp>(
          op, gridName);
      ArrayAttr names =
          grid ? grid->getAttrOfType<ArrayAttr>(
                     telar::TelarDialect::AxisNamesAttrHelper::getNameStr())
               : ArrayAttr();
      auto bytes = op->getAttrOfType<IntegerAttr>(
          telar::TelarDialect::BytesAttrHelper::getNameStr());
      if (!names || !bytes) {
        op->emitError("collective without a named grid or telar.bytes");
        ok = false;
        return;
      }
      std::string text;
      llvm::raw_string_ostream os(text);
      // A reduction other than a sum is named (a partial max resolved as a
      // sum is a wrong output, not a different cost).
      os << kind;
      std::optional<shard::ReductionKind> reduction;
      if (auto ar = dyn_cast<shard::AllReduceOp>(op))
        reduction = ar.getReduction();
      else if (auto rs = dyn_cast<shard::ReduceScatterOp>(op))
        reduction = rs.getReduction();
      if (reduction && *reduction != shard::ReductionKind::Sum)
        os << "<" << shard::stringifyReductionKind(*reduction) << ">";
      os << " over [";
      auto axes = op->getAttrOfType<DenseI16ArrayAttr>("grid_axes");
      for (auto [i, a] : llvm::enumerate(axes.asArrayRef())) {
        if (i)
          os << ", ";
        os << cast<StringAttr>(names[a]).getValue();
      }
      auto in = cast<RankedTensorType>(op->getOperand(0).getType());
      auto out = cast<RankedTensorType>(op->getResult(0).getType());
      auto dims = [&](RankedTensorType t) {
        os << "[";
        llvm::interleave(t.getShape(), os, "x");
        os << "]";
      };
      os << "]: ";
      dims(in);
      os << " -> ";
      dims(out);
      os << " " << in.getElementType() << ", " << bytes.getInt()
         << " bytes per rank";
      op->emitRemark() << text;
      ++count;
      total += bytes.getInt();
    });
    fn.emitRemark() << count << " collectives, " << total
                    << " bytes per rank";
    if (!ok)
      signalPassFailure();
  }
};
} // namespace
