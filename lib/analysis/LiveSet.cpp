//===- LiveSet.cpp - Intermediate tensors alive at once -------------------===//

#include "telar/analysis/LiveSet.h"
#include "telar/dialects/Telar/TelarOps.h"

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "llvm/ADT/DenseSet.h"

using namespace mlir;

/// Ops whose result aliases their operand (the lowering makes them
/// reshapes of the same buffer).
static bool isView(Operation *op) {
  return isa<telar::ReshapeOp, telar::SqueezeOp, telar::UnsqueezeOp>(op);
}

int64_t telar::LiveSetAnalysis::getTensorBytes(Type type) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  if (!tensor || !tensor.hasStaticShape() ||
      !tensor.getElementType().isIntOrFloat())
    return 0;
  unsigned bits = tensor.getElementType().getIntOrFloatBitWidth();
  return tensor.getNumElements() * std::max<int64_t>(1, (bits + 7) / 8);
}

telar::LiveSetAnalysis::LiveSetAnalysis(Operation *function) {
  auto func = dyn_cast<FunctionOpInterface>(function);
  if (!func || func.isExternal())
    return;
  Block &body = func.getFunctionBody().front();
  llvm::DenseMap<Operation *, unsigned> position;
  for (auto [i, op] : llvm::enumerate(body))
    position[&op] = i;
  llvm::DenseSet<Value> returned;
  for (Value v : body.getTerminator()->getOperands())
    returned.insert(v);

  // Bytes that become live at each op and that die after it.
  size_t count = body.getOperations().size();
  SmallVector<int64_t> born(count, 0), dies(count, 0);
  for (Operation &op : body) {
    if (isa<telar::ConstantOp, telar::VariableOp>(op) || isView(&op))
      continue;
    unsigned at = position[&op];
    for (Value result : op.getResults()) {
      int64_t bytes = getTensorBytes(result.getType());
      if (bytes == 0 || returned.contains(result))
        continue;
      unsigned last = at;
      // Uses through views keep the tensor alive.
      SmallVector<Value> worklist = {result};
      while (!worklist.empty()) {
        Value v = worklist.pop_back_val();
        for (Operation *user : v.getUsers()) {
          Operation *top = body.findAncestorOpInBlock(*user);
          last = std::max(last, position.lookup(top));
          if (isView(user))
            worklist.append(user->result_begin(), user->result_end());
        }
      }
      born[at] += bytes;
      dies[last] += bytes;
      defined[&op] += bytes;
    }
  }
  int64_t live = 0;
  for (auto [i, op] : llvm::enumerate(body)) {
    live += born[i];
    liveAt[&op] = live;
    if (!peakOp || live > largest) {
      largest = live;
      peakOp = &op;
    }
    live -= dies[i];
  }
}
