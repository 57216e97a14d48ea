//===- ContractionGradients.cpp - VJPs of contractions ---------------------===//
//
// telar.matmul (numpy semantics: broadcast batch dimensions, 1-D operands
// promoted to matrices): dA = dY B^T, dB = A^T dY, each summed back over
// the batch dimensions it was broadcast along (a matrix B applied to a
// batch: one product over the flattened batch); telar.einsum: each operand's
// gradient an einsum of the result's gradient with the other operands.
//
//===----------------------------------------------------------------------===//

#include "GradientBuilder.h"

#include "llvm/ADT/SmallSet.h"

using namespace mlir;
using namespace mlir::telar;
using namespace mlir::telar::autodiff;

namespace {

/// `v` with its last two dimensions swapped.
Value swapLastTwo(GradientBuilder &g, Value v) {
  int64_t rank = shapeOf(v).size();
  SmallVector<int64_t> perm;
  for (int64_t d = 0; d < rank; ++d)
    perm.push_back(d);
  std::swap(perm[rank - 1], perm[rank - 2]);
  return g.transpose(v, perm);
}

LogicalResult matmulVjp(Operation *op, GradientBuilder &g, ArrayRef<Value> dys,
                        SmallVectorImpl<Value> &dxs) {
  auto mm = cast<MatMulOp>(op);
  Value a = mm.getLhs(), c = mm.getRhs(), dy = dys[0];
  if (!isFloatTensor(a))
    return success();
  OpBuilder &b = g.getBuilder();
  // Promote 1-D operands as numpy does: [K] @ B as [1,K] @ B (the result
  // lacks that row), A @ [K] as A @ [K,1] (it lacks that column).
  ArrayRef<int64_t> aShape = shapeOf(a), cShape = shapeOf(c);
  Value a2 = a, c2 = c, dy2 = dy;
  SmallVector<int64_t> dyShape(shapeOf(dy));
  if (aShape.size() == 1) {
    a2 = g.reshape(a, {1, aShape[0]});
    dyShape.insert(dyShape.end() - (cShape.size() == 1 ? 0 : 1), 1);
  }
  if (cShape.size() == 1) {
    c2 = g.reshape(c, {cShape[0], 1});
    dyShape.push_back(1);
  }
  dy2 = g.reshape(dy, dyShape);
  Value da = MatMulOp::create(b, g.getLoc(), dy2, swapLastTwo(g, c2));
  Value dc;
  ArrayRef<int64_t> a2Shape = shapeOf(a2);
  if (shapeOf(c2).size() == 2 && a2Shape.size() > 2) {
    // A matrix applied to a batch (a linear layer on [batch, seq, features]):
    // its gradient sums A^T dY over the batch, one product of the batch
    // flattened into rows rather than a batched product and a reduction.
    int64_t rows = 1;
    for (int64_t d : a2Shape.drop_back())
      rows *= d;
    Value aFlat = g.reshape(a2, {rows, a2Shape.back()});
    Value dyFlat = g.reshape(dy2, {rows, dyShape.back()});
    dc = MatMulOp::create(b, g.getLoc(), swapLastTwo(g, aFlat), dyFlat);
  } else {
    dc = MatMulOp::create(b, g.getLoc(), swapLastTwo(g, a2), dy2);
  }
  dxs[0] = g.reshape(g.sumToShape(da, a2.getType()), aShape);
  dxs[1] = g.reshape(g.sumToShape(dc, c2.getType()), cShape);
  return success();
}

/// An einsum's operand k: the einsum of the result's gradient with the
/// other operands, onto operand k's labels. Labels of operand k found
/// nowhere else were summed over k alone: its gradient is the same along
/// them (computed without them, then broadcast back).
LogicalResult einsumVjp(Operation *op, GradientBuilder &g, ArrayRef<Value> dys,
                        SmallVectorImpl<Value> &dxs) {
  auto einsum = cast<EinsumOp>(op);
  EinsumEquationAttr eq = einsum.getEquation();
  OpBuilder &b = g.getBuilder();
  for (auto [k, operand] : llvm::enumerate(einsum.getInputs())) {
    if (!isFloatTensor(operand))
      continue;
    ArrayRef<int64_t> labels = eq.getInputLabels(k);
    llvm::SmallSet<int64_t, 8> seen, elsewhere;
    for (int64_t l : labels)
      if (!seen.insert(l).second)
        return op->emitError("has no gradient yet: operand ")
               << k << " of " << eq.str()
               << " repeats a label (a diagonal)";
    for (int64_t l : eq.getOutputLabels())
      elsewhere.insert(l);
    SmallVector<SmallVector<int64_t>> inputs = {
        SmallVector<int64_t>(eq.getOutputLabels())};
    SmallVector<Value> operands = {dys[0]};
    for (auto [j, other] : llvm::enumerate(einsum.getInputs())) {
      if (j == k)
        continue;
      inputs.push_back(SmallVector<int64_t>(eq.getInputLabels(j)));
      operands.push_back(other);
      for (int64_t l : eq.getInputLabels(j))
        elsewhere.insert(l);
    }
    SmallVector<int64_t> kept, keptShape(shapeOf(operand));
    for (auto [d, l] : llvm::enumerate(labels)) {
      if (elsewhere.contains(l))
        kept.push_back(l);
      else
        keptShape[d] = 1;
    }
    auto gradEq = EinsumEquationAttr::get(b.getContext(), inputs, kept);
    Value grad = EinsumOp::create(b, g.getLoc(), operands, gradEq);
    dxs[k] = g.expand(g.reshape(grad, keptShape), shapeOf(operand));
  }
  return success();
}

} // namespace

void mlir::telar::autodiff::registerContractionGradients(MLIRContext *ctx) {
  attachGradient<MatMulOp, matmulVjp>(ctx);
  attachGradient<EinsumOp, einsumVjp>(ctx);
}
