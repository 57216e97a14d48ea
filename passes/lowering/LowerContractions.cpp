//===- LowerContractions.cpp - matmul/einsum/conv/pool to linalg ----------===//
//
// Contractions become linalg named ops where one fits, so that
// telar-linalg-to-library-calls can hand the large f32 ones to the runtime's
// GEMM and convolution kernels: matmuls are reshaped into one linalg.matmul
// (batch folded into the rows when the rhs is a single matrix) or one
// linalg.batch_matmul, einsums that are batched matmuls up to transposes
// take the same road, and 2-D ungrouped convolutions become
// linalg.conv_2d_nchw_fchw. Everything else is one linalg.generic with the
// op's loops. Floats narrower than f32 accumulate in f32.
//
//===----------------------------------------------------------------------===//

#include "LoweringUtils.h"
#include "telar/dialects/Telar/TelarOps.h"
#include "telar/passes/lowering/Patterns.h"

using namespace mlir;
using namespace mlir::telar;

namespace {

int64_t product(ArrayRef<int64_t> values) {
  int64_t p = 1;
  for (int64_t v : values)
    p *= v;
  return p;
}

int64_t floorDiv(int64_t a, int64_t b) {
  return a >= 0 ? a / b : -((-a + b - 1) / b);
}

/// `v` converted elementwise to `element` (no-op when it already is).
Value convertTensor(OpBuilder &b, Location loc, Value v, Type element) {
  auto type = cast<RankedTensorType>(v.getType());
  if (type.getElementType() == element)
    return v;
  return buildElementwise(b, loc, type.clone(element), {v},
                          [&](OpBuilder &nb, Location nloc, ValueRange args) {
                            return convertScalar(nb, nloc, args[0], element);
                          });
}

/// `v` reshaped to `shape` (same number of elements).
Value reshape(OpBuilder &b, Location loc, Value v, ArrayRef<int64_t> shape) {
  return reshapeTensor(b, loc, v,
                       cast<RankedTensorType>(v.getType()).clone(shape));
}

Value zeroFilled(OpBuilder &b, Location loc, ArrayRef<int64_t> shape,
                 Type element) {
  return filledTensor(b, loc, RankedTensorType::get(shape, element),
                      scalarAttr(element, 0.0));
}

/// lhs [M, K] x rhs [K, N] (or with a leading batch dimension on both),
/// accumulated in `acc` from zero.
Value buildMatmul(OpBuilder &b, Location loc, Value lhs, Value rhs, Type acc) {
  auto lt = cast<RankedTensorType>(lhs.getType());
  auto rt = cast<RankedTensorType>(rhs.getType());
  SmallVector<int64_t> shape(lt.getShape().drop_back());
  shape.push_back(rt.getShape().back());
  Value init = zeroFilled(b, loc, shape, acc);
  Type type = init.getType();
  if (lt.getRank() == 2)
    return linalg::MatmulOp::create(b, loc, TypeRange{type},
                                    ValueRange{lhs, rhs}, ValueRange{init})
        .getResult(0);
  return linalg::BatchMatmulOp::create(b, loc, TypeRange{type},
                                       ValueRange{lhs, rhs}, ValueRange{init})
      .getResult(0);
}

/// Multiply-add of one contraction step in the accumulator type.
Value multiplyAdd(OpBuilder &b, Location loc, ValueRange factors, Value sum) {
  Type acc = sum.getType();
  Value prod;
  for (Value f : factors) {
    f = convertScalar(b, loc, f, acc);
    if (!prod)
      prod = f;
    else if (isa<FloatType>(acc))
      prod = arith::MulFOp::create(b, loc, prod, f);
    else
      prod = arith::MulIOp::create(b, loc, prod, f);
  }
  if (isa<FloatType>(acc))
    return arith::AddFOp::create(b, loc, sum, prod);
  return arith::AddIOp::create(b, loc, sum, prod);
}

//===----------------------------------------------------------------------===//
// MatMul
//===----------------------------------------------------------------------===//

/// A batched matmul operand `v` of shape [batch..., rows, cols] brought to
/// [prod(resultBatch), rows, cols]: batch dimensions it broadcasts are
/// materialised with linalg.broadcast, otherwise it is only reshaped.
Value batchOperand(OpBuilder &b, Location loc, Value v,
                   ArrayRef<int64_t> resultBatch) {
  auto type = cast<RankedTensorType>(v.getType());
  ArrayRef<int64_t> shape = type.getShape();
  int64_t rows = shape[shape.size() - 2], cols = shape.back();
  int64_t nb = resultBatch.size();
  int64_t lead = nb - (type.getRank() - 2);
  SmallVector<int64_t> kept, added;
  for (int64_t i = 0; i < nb; ++i) {
    if (i < lead) {
      added.push_back(i);
      continue;
    }
    int64_t d = shape[i - lead];
    if (d == 1 && resultBatch[i] != 1)
      added.push_back(i);
    else
      kept.push_back(d);
  }
  int64_t batch = product(resultBatch);
  bool broadcasts = llvm::any_of(
      added, [&](int64_t i) { return resultBatch[i] != 1; });
  if (!broadcasts)
    return reshape(b, loc, v, {batch, rows, cols});
  kept.append({rows, cols});
  Value source = reshape(b, loc, v, kept);
  SmallVector<int64_t> full(resultBatch);
  full.append({rows, cols});
  Value init = emptyTensor(b, loc, type.clone(full));
  Value broadcast =
      linalg::BroadcastOp::create(b, loc, source, init, added)->getResult(0);
  return reshape(b, loc, broadcast, {batch, rows, cols});
}

struct MatMulLowering : OpConversionPattern<MatMulOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(MatMulOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto resultType = cast<RankedTensorType>(
        getTypeConverter()->convertType(op.getType()));
    Type element = resultType.getElementType();
    Type acc = accumulatorType(element);
    Value lhs = adaptor.getLhs(), rhs = adaptor.getRhs();

    // Numpy promotion: a 1-D lhs is a row, a 1-D rhs a column; the added
    // dimension disappears in the final reshape to the result type.
    SmallVector<int64_t> ls(cast<RankedTensorType>(lhs.getType()).getShape());
    SmallVector<int64_t> rs(cast<RankedTensorType>(rhs.getType()).getShape());
    if (ls.size() == 1)
      ls.insert(ls.begin(), 1);
    if (rs.size() == 1)
      rs.push_back(1);
    lhs = reshape(rewriter, loc, lhs, ls);
    rhs = reshape(rewriter, loc, rhs, rs);
    int64_t m = ls[ls.size() - 2], k = ls.back(), n = rs.back();
    ArrayRef<int64_t> lb = ArrayRef(ls).drop_back(2);
    ArrayRef<int64_t> rb = ArrayRef(rs).drop_back(2);
    int64_t nb = std::max(lb.size(), rb.size());
    SmallVector<int64_t> batch(nb);
    for (int64_t i = 0; i < nb; ++i) {
      int64_t li = i - (nb - static_cast<int64_t>(lb.size()));
      int64_t ri = i - (nb - static_cast<int64_t>(rb.size()));
      int64_t l = li >= 0 ? lb[li] : 1, r = ri >= 0 ? rb[ri] : 1;
      batch[i] = l == 1 ? r : l;
    }

    Value result;
    if (product(rb) == 1) {
      // One rhs matrix: fold the lhs batch into the rows, so that the whole
      // op is a single GEMM (the transformer projection case).
      Value a = reshape(rewriter, loc, lhs, {product(lb) * m, k});
      Value b = reshape(rewriter, loc, rhs, {k, n});
      result = buildMatmul(rewriter, loc, a, b, acc);
    } else {
      Value a = batchOperand(rewriter, loc, lhs, batch);
      Value b = batchOperand(rewriter, loc, rhs, batch);
      result = buildMatmul(rewriter, loc, a, b, acc);
    }
    result = convertTensor(rewriter, loc, result, element);
    rewriter.replaceOp(op, reshape(rewriter, loc, result, resultType.getShape()));
    return success();
  }
};

//===----------------------------------------------------------------------===//
// Einsum
//===----------------------------------------------------------------------===//

/// The op's #telar.einsum labels, as letter strings for the term
/// arithmetic below (one letter per label; the attribute is verified).
struct Equation {
  SmallVector<std::string> inputs;
  std::string output;
};

Equation equationOf(EinsumEquationAttr attr) {
  auto letters = [](ArrayRef<int64_t> labels) {
    std::string s;
    for (int64_t l : labels)
      s.push_back(EinsumEquationAttr::getLabelLetter(l));
    return s;
  };
  Equation eq;
  for (size_t i = 0, e = attr.getNumInputs(); i < e; ++i)
    eq.inputs.push_back(letters(attr.getInputLabels(i)));
  eq.output = letters(attr.getOutputLabels());
  return eq;
}

bool hasRepeatedLetter(StringRef term) {
  for (size_t i = 0; i < term.size(); ++i)
    if (term.take_front(i).contains(term[i]))
      return true;
  return false;
}

/// An einsum of two operands that is a (batched) matmul up to transposes:
/// every letter is a batch letter (both inputs and the output), a row
/// letter (lhs and output), a column letter (rhs and output) or a
/// contracted letter (both inputs, not the output), and at least one is
/// contracted. Emits transposes + one linalg.matmul / linalg.batch_matmul.
FailureOr<Value> einsumAsMatmul(OpBuilder &b, Location loc, const Equation &eq,
                                Value lhs, Value rhs,
                                RankedTensorType resultType) {
  StringRef ta = eq.inputs[0], tb = eq.inputs[1], out = eq.output;
  if (hasRepeatedLetter(ta) || hasRepeatedLetter(tb))
    return failure();
  std::string batchL, rowL, colL, sumL;
  for (char ch : out) {
    bool inA = ta.contains(ch), inB = tb.contains(ch);
    (inA && inB ? batchL : inA ? rowL : colL).push_back(ch);
  }
  for (char ch : ta) {
    if (out.contains(ch))
      continue;
    if (!tb.contains(ch))
      return failure(); // Summed within one operand.
    sumL.push_back(ch);
  }
  for (char ch : tb)
    if (!out.contains(ch) && !ta.contains(ch))
      return failure();
  if (sumL.empty())
    return failure();

  auto aShape = cast<RankedTensorType>(lhs.getType()).getShape();
  auto bShape = cast<RankedTensorType>(rhs.getType()).getShape();
  auto size = [&](char ch) {
    size_t i = ta.find(ch);
    return i != StringRef::npos ? aShape[i] : bShape[tb.find(ch)];
  };
  auto sizesOf = [&](StringRef letters) {
    SmallVector<int64_t> s;
    for (char ch : letters)
      s.push_back(size(ch));
    return s;
  };
  auto permutation = [](StringRef term, StringRef order) {
    SmallVector<int64_t> perm;
    for (char ch : order)
      perm.push_back(term.find(ch));
    return perm;
  };
  int64_t nb = product(sizesOf(batchL)), m = product(sizesOf(rowL)),
          n = product(sizesOf(colL)), k = product(sizesOf(sumL));
  bool batched = !batchL.empty();
  Value a = transposeTensor(b, loc, lhs, permutation(ta, batchL + rowL + sumL));
  Value bm =
      transposeTensor(b, loc, rhs, permutation(tb, batchL + sumL + colL));
  SmallVector<int64_t> aShape2 = {m, k}, bShape2 = {k, n};
  if (batched) {
    aShape2.insert(aShape2.begin(), nb);
    bShape2.insert(bShape2.begin(), nb);
  }
  a = reshape(b, loc, a, aShape2);
  bm = reshape(b, loc, bm, bShape2);
  Type element = resultType.getElementType();
  Value result = buildMatmul(b, loc, a, bm, accumulatorType(element));
  result = convertTensor(b, loc, result, element);
  std::string produced = batchL + rowL + colL;
  result = reshape(b, loc, result, sizesOf(produced));
  return transposeTensor(b, loc, result, permutation(produced, out));
}

struct EinsumLowering : OpConversionPattern<EinsumOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(EinsumOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto resultType = cast<RankedTensorType>(
        getTypeConverter()->convertType(op.getType()));
    Type element = resultType.getElementType();
    if (element.isInteger(1))
      return rewriter.notifyMatchFailure(op, "boolean einsum is not supported");
    Equation eq = equationOf(op.getEquation());
    ValueRange inputs = adaptor.getInputs();
    if (eq.inputs.size() != inputs.size())
      return rewriter.notifyMatchFailure(op, "equation does not match inputs");

    if (inputs.size() == 2) {
      FailureOr<Value> mm =
          einsumAsMatmul(rewriter, loc, eq, inputs[0], inputs[1], resultType);
      if (succeeded(mm)) {
        rewriter.replaceOp(op, *mm);
        return success();
      }
    }

    // One generic: a loop per letter, output letters first (parallel), then
    // the summed letters. A letter repeated within a term (a diagonal) maps
    // one loop to several dimensions of that operand.
    std::string loops = eq.output;
    for (const std::string &term : eq.inputs)
      for (char ch : term)
        if (!StringRef(loops).contains(ch))
          loops.push_back(ch);
    MLIRContext *ctx = rewriter.getContext();
    int64_t numLoops = loops.size();
    SmallVector<AffineMap> maps;
    auto termMap = [&](StringRef term) {
      SmallVector<AffineExpr> exprs;
      for (char ch : term)
        exprs.push_back(getAffineDimExpr(StringRef(loops).find(ch), ctx));
      return AffineMap::get(numLoops, 0, exprs, ctx);
    };
    for (const std::string &term : eq.inputs)
      maps.push_back(termMap(term));
    maps.push_back(termMap(eq.output));
    SmallVector<utils::IteratorType> iterators(eq.output.size(),
                                               utils::IteratorType::parallel);
    iterators.resize(numLoops, utils::IteratorType::reduction);
    Type acc = accumulatorType(element);
    Value init = zeroFilled(rewriter, loc, resultType.getShape(), acc);
    auto generic = linalg::GenericOp::create(
        rewriter, loc, TypeRange{init.getType()}, inputs, ValueRange{init},
        maps, iterators, [&](OpBuilder &b, Location l, ValueRange args) {
          linalg::YieldOp::create(
              b, l, multiplyAdd(b, l, args.drop_back(), args.back()));
        });
    rewriter.replaceOp(
        op, convertTensor(rewriter, loc, generic.getResult(0), element));
    return success();
  }
};

//===----------------------------------------------------------------------===//
// Convolution
//===----------------------------------------------------------------------===//

/// `input` padded by `low`/`high` (per spatial axis) with `value`;
/// unchanged without padding.
Value padSpatial(OpBuilder &b, Location loc, Value input, ArrayRef<int64_t> low,
                 ArrayRef<int64_t> high, TypedAttr value) {
  if (llvm::all_of(low, [](int64_t p) { return p == 0; }) &&
      llvm::all_of(high, [](int64_t p) { return p == 0; }))
    return input;
  auto type = cast<RankedTensorType>(input.getType());
  SmallVector<int64_t> lo = {0, 0}, hi = {0, 0};
  lo.append(low.begin(), low.end());
  hi.append(high.begin(), high.end());
  SmallVector<int64_t> shape(type.getShape());
  for (size_t i = 0; i < shape.size(); ++i)
    shape[i] += lo[i] + hi[i];
  Value pad = arith::ConstantOp::create(b, loc, value);
  return tensor::PadOp::create(b, loc, type.clone(shape), input,
                               getAsIndexOpFoldResult(b.getContext(), lo),
                               getAsIndexOpFoldResult(b.getContext(), hi), pad)
      .getResult();
}

/// Convolution of an already padded `input` [N, C, X...] with `weight`
/// [M, C/group, K...] into `resultType` [N, M, Y...], plus `bias` [M] when
/// given: y[n, g*M/group + m, o] = sum_{c, w} x[n, g*C/group + c, o*s + w*d]
/// * weight[g*M/group + m, c, w].
Value buildConv(OpBuilder &b, Location loc, Value input, Value weight,
                Value bias, ArrayRef<int64_t> strides,
                ArrayRef<int64_t> dilations, int64_t group,
                RankedTensorType resultType) {
  MLIRContext *ctx = b.getContext();
  Type element = resultType.getElementType();
  Type acc = accumulatorType(element);
  auto accType = resultType.clone(acc);
  int64_t k = resultType.getRank() - 2;

  // The bias seeds the accumulator (the ops accumulate into their init).
  Value init;
  if (bias) {
    bias = convertTensor(b, loc, bias, acc);
    SmallVector<int64_t> dims = {0};
    for (int64_t i = 0; i < k; ++i)
      dims.push_back(2 + i);
    init = linalg::BroadcastOp::create(b, loc, bias, emptyTensor(b, loc, accType),
                                       dims)
               ->getResult(0);
  } else {
    init = zeroFilled(b, loc, resultType.getShape(), acc);
  }

  Value result;
  if (k == 2 && group == 1) {
    result = linalg::Conv2DNchwFchwOp::create(
                 b, loc, TypeRange{accType}, ValueRange{input, weight},
                 ValueRange{init}, b.getI64TensorAttr(strides),
                 b.getI64TensorAttr(dilations))
                 .getResult(0);
  } else {
    // Groups get their own dimension: x [N, G, C/G, X...], weight
    // [G, M/G, C/G, K...], y [N, G, M/G, Y...].
    auto it = cast<RankedTensorType>(input.getType());
    auto wt = cast<RankedTensorType>(weight.getType());
    int64_t n = it.getDimSize(0), c = it.getDimSize(1), m = wt.getDimSize(0);
    SmallVector<int64_t> xs = {n, group, c / group};
    xs.append(it.getShape().begin() + 2, it.getShape().end());
    SmallVector<int64_t> ws = {group, m / group};
    ws.append(wt.getShape().begin() + 1, wt.getShape().end());
    SmallVector<int64_t> ys = {n, group, m / group};
    ys.append(resultType.getShape().begin() + 2, resultType.getShape().end());
    Value x = reshape(b, loc, input, xs);
    Value w = reshape(b, loc, weight, ws);
    Value y = reshape(b, loc, init, ys);

    // Loops: n, g, m, o_1..o_k (parallel), c, w_1..w_k (reduction).
    int64_t numLoops = 4 + 2 * k;
    auto d = [&](int64_t i) { return getAffineDimExpr(i, ctx); };
    SmallVector<AffineExpr> xe = {d(0), d(1), d(3 + k)};
    SmallVector<AffineExpr> we = {d(1), d(2), d(3 + k)};
    SmallVector<AffineExpr> ye = {d(0), d(1), d(2)};
    for (int64_t i = 0; i < k; ++i) {
      xe.push_back(d(3 + i) * strides[i] + d(4 + k + i) * dilations[i]);
      we.push_back(d(4 + k + i));
      ye.push_back(d(3 + i));
    }
    SmallVector<AffineMap> maps = {AffineMap::get(numLoops, 0, xe, ctx),
                                   AffineMap::get(numLoops, 0, we, ctx),
                                   AffineMap::get(numLoops, 0, ye, ctx)};
    SmallVector<utils::IteratorType> iterators = parallelIterators(3 + k);
    iterators.resize(numLoops, utils::IteratorType::reduction);
    Value conv =
        linalg::GenericOp::create(
            b, loc, TypeRange{y.getType()}, ValueRange{x, w}, ValueRange{y},
            maps, iterators,
            [&](OpBuilder &nb, Location l, ValueRange args) {
              linalg::YieldOp::create(
                  nb, l, multiplyAdd(nb, l, args.take_front(2), args[2]));
            })
            .getResult(0);
    result = reshape(b, loc, conv, resultType.getShape());
  }
  return convertTensor(b, loc, result, element);
}

struct ConvLowering : OpConversionPattern<ConvOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(ConvOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto resultType = cast<RankedTensorType>(
        getTypeConverter()->convertType(op.getType()));
    int64_t k = resultType.getRank() - 2;
    ArrayRef<int64_t> pads = op.getPads();
    Value input = padSpatial(rewriter, loc, adaptor.getInput(),
                             pads.take_front(k), pads.drop_front(k),
                             scalarAttr(resultType.getElementType(), 0.0));
    rewriter.replaceOp(
        op, buildConv(rewriter, loc, input, adaptor.getWeight(),
                      adaptor.getBias(), op.getStrides(), op.getDilations(),
                      static_cast<int64_t>(op.getGroup()), resultType));
    return success();
  }
};

/// A transposed convolution is a convolution (stride 1, same dilation) of
/// the input spread out by the strides and padded, with the kernel flipped
/// and its channel axes swapped: y[o] = sum_w x'[o + w*d] * flip(W)[w],
/// where x'[i*s + (K-1)*d - pad_begin] = x[i] and zero elsewhere. Negative
/// paddings (pads larger than the kernel span) crop.
struct ConvTransposeLowering : OpConversionPattern<ConvTransposeOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(ConvTransposeOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    MLIRContext *ctx = rewriter.getContext();
    auto resultType = cast<RankedTensorType>(
        getTypeConverter()->convertType(op.getType()));
    Type element = resultType.getElementType();
    Value input = adaptor.getInput(), weight = adaptor.getWeight();
    auto it = cast<RankedTensorType>(input.getType());
    auto wt = cast<RankedTensorType>(weight.getType());
    int64_t k = it.getRank() - 2;
    int64_t group = static_cast<int64_t>(op.getGroup());
    ArrayRef<int64_t> strides = op.getStrides(), dilations = op.getDilations(),
                      pads = op.getPads();
    int64_t c = it.getDimSize(1), m = resultType.getDimSize(1);
    int64_t cg = c / group, mg = m / group;

    // Flipped weight [M, C/group, K...]:
    //   w'[g*mg + j, i, w] = weight[g*cg + i, j, K-1-w].
    SmallVector<int64_t> flippedShape = {m, cg};
    for (int64_t i = 0; i < k; ++i)
      flippedShape.push_back(wt.getDimSize(2 + i));
    auto d = [&](int64_t i) { return getAffineDimExpr(i, ctx); };
    SmallVector<AffineExpr> src = {d(1), d(0)};
    if (group > 1)
      src = {d(0).floorDiv(mg) * cg + d(1), d(0) % mg};
    for (int64_t i = 0; i < k; ++i)
      src.push_back(wt.getDimSize(2 + i) - 1 - d(2 + i));
    int64_t rank = k + 2;
    Value flipped =
        linalg::GenericOp::create(
            rewriter, loc, TypeRange{wt.clone(flippedShape)},
            ValueRange{weight},
            ValueRange{emptyTensor(rewriter, loc, wt.clone(flippedShape))},
            {AffineMap::get(rank, 0, src, ctx),
             AffineMap::getMultiDimIdentityMap(rank, ctx)},
            parallelIterators(rank),
            [](OpBuilder &b, Location l, ValueRange args) {
              linalg::YieldOp::create(b, l, args[0]);
            })
            .getResult(0);

    // Spread input: length out + (K-1)*d per axis; input element i lands at
    // i*s + lo, lo = (K-1)*d - pad_begin; elements landing outside are
    // cropped.
    SmallVector<int64_t> spreadShape = {it.getDimSize(0), c};
    SmallVector<int64_t> srcOffsets = {0, 0}, srcSizes = {it.getDimSize(0), c},
                         dstOffsets = {0, 0}, dstStrides = {1, 1};
    bool empty = false;
    for (int64_t i = 0; i < k; ++i) {
      int64_t span = (wt.getDimSize(2 + i) - 1) * dilations[i];
      int64_t len = resultType.getDimSize(2 + i) + span;
      int64_t lo = span - pads[i], s = strides[i];
      int64_t first = lo >= 0 ? 0 : (-lo + s - 1) / s;
      int64_t last =
          std::min(it.getDimSize(2 + i) - 1, floorDiv(len - 1 - lo, s));
      empty |= last < first;
      spreadShape.push_back(len);
      srcOffsets.push_back(first);
      srcSizes.push_back(last - first + 1);
      dstOffsets.push_back(first * s + lo);
      dstStrides.push_back(s);
    }
    Value spread = zeroFilled(rewriter, loc, spreadShape, element);
    if (!empty) {
      Value slice = input;
      if (ArrayRef(srcSizes) != it.getShape())
        slice = tensor::ExtractSliceOp::create(
            rewriter, loc, input,
            getAsIndexOpFoldResult(ctx, srcOffsets),
            getAsIndexOpFoldResult(ctx, srcSizes),
            getAsIndexOpFoldResult(ctx, SmallVector<int64_t>(rank, 1)));
      spread = tensor::InsertSliceOp::create(
          rewriter, loc, slice, spread,
          getAsIndexOpFoldResult(ctx, dstOffsets),
          getAsIndexOpFoldResult(ctx, srcSizes),
          getAsIndexOpFoldResult(ctx, dstStrides));
    }
    rewriter.replaceOp(
        op, buildConv(rewriter, loc, spread, flipped, adaptor.getBias(),
                      SmallVector<int64_t>(k, 1), dilations, group,
                      resultType));
    return success();
  }
};

//===----------------------------------------------------------------------===//
// Pooling
//===----------------------------------------------------------------------===//

/// What max and average pooling share: the input padded so that every
/// window lies inside it (with ceil_mode the last window may run past the
/// end padding; the extra elements get the same pad value, which neither
/// wins a max nor counts in an average).
template <typename OpTy>
Value padForPool(OpBuilder &b, OpTy op, Value input, RankedTensorType resultType,
                 TypedAttr padValue) {
  auto it = cast<RankedTensorType>(input.getType());
  int64_t k = it.getRank() - 2;
  ArrayRef<int64_t> kernel = op.getKernelShape(), strides = op.getStrides(),
                    pads = op.getPads(), dilations = op.getDilations();
  SmallVector<int64_t> high;
  for (int64_t i = 0; i < k; ++i) {
    int64_t needed = (resultType.getDimSize(2 + i) - 1) * strides[i] +
                     (kernel[i] - 1) * dilations[i] + 1;
    high.push_back(std::max(pads[k + i], needed - it.getDimSize(2 + i) -
                                             pads[i]));
  }
  return padSpatial(b, op.getLoc(), input, pads.take_front(k), high, padValue);
}

/// A window reduction over a padded `input` into `init` [N, C, Y...]:
/// y[n, c, o] = combine(y, x[n, c, o*s + w*d]) for every window offset w.
Value windowGeneric(OpBuilder &b, Location loc, Value input, Value init,
                    ArrayRef<int64_t> kernel, ArrayRef<int64_t> strides,
                    ArrayRef<int64_t> dilations,
                    function_ref<Value(OpBuilder &, Location, Value, Value)>
                        combine) {
  MLIRContext *ctx = b.getContext();
  int64_t k = kernel.size(), numLoops = 2 + 2 * k;
  auto d = [&](int64_t i) { return getAffineDimExpr(i, ctx); };
  SmallVector<AffineExpr> xe = {d(0), d(1)}, we, ye = {d(0), d(1)};
  for (int64_t i = 0; i < k; ++i) {
    xe.push_back(d(2 + i) * strides[i] + d(2 + k + i) * dilations[i]);
    we.push_back(d(2 + k + i));
    ye.push_back(d(2 + i));
  }
  // The window tensor only carries the window's extent, as in linalg's
  // named pooling ops.
  Type element = cast<RankedTensorType>(input.getType()).getElementType();
  Value window = tensor::EmptyOp::create(b, loc, kernel, element);
  SmallVector<utils::IteratorType> iterators = parallelIterators(2 + k);
  iterators.resize(numLoops, utils::IteratorType::reduction);
  return linalg::GenericOp::create(
             b, loc, TypeRange{init.getType()}, ValueRange{input, window},
             ValueRange{init},
             {AffineMap::get(numLoops, 0, xe, ctx),
              AffineMap::get(numLoops, 0, we, ctx),
              AffineMap::get(numLoops, 0, ye, ctx)},
             iterators,
             [&](OpBuilder &nb, Location l, ValueRange args) {
               linalg::YieldOp::create(nb, l,
                                       combine(nb, l, args[2], args[0]));
             })
      .getResult(0);
}

/// A 2-D window reduction as the linalg named pooling op `PoolOp` over a
/// padded `input` into `init`.
template <typename PoolOp>
Value namedPool2D(OpBuilder &b, Location loc, Value input, Value init,
                  ArrayRef<int64_t> kernel, ArrayRef<int64_t> strides,
                  ArrayRef<int64_t> dilations) {
  Type element = cast<RankedTensorType>(input.getType()).getElementType();
  Value window = tensor::EmptyOp::create(b, loc, kernel, element);
  return PoolOp::create(b, loc, TypeRange{init.getType()},
                        ValueRange{input, window}, ValueRange{init},
                        b.getI64TensorAttr(strides),
                        b.getI64TensorAttr(dilations))
      .getResult(0);
}

struct MaxPoolLowering : OpConversionPattern<MaxPoolOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(MaxPoolOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto resultType = cast<RankedTensorType>(
        getTypeConverter()->convertType(op.getType()));
    Type element = resultType.getElementType();
    Type original = cast<RankedTensorType>(op.getType()).getElementType();
    bool isUnsigned = original.isUnsignedInteger();
    // Padding never wins: pad with the lowest value of the original type.
    TypedAttr lowest = lowestValue(original);
    if (auto ia = dyn_cast<IntegerAttr>(lowest))
      lowest = IntegerAttr::get(element, ia.getValue());
    Value input =
        padForPool(rewriter, op, adaptor.getInput(), resultType, lowest);
    Value init = filledTensor(rewriter, loc, resultType, lowest);
    int64_t k = resultType.getRank() - 2;
    Value result;
    if (k == 2 && !isUnsigned) {
      result = namedPool2D<linalg::PoolingNchwMaxOp>(
          rewriter, loc, input, init, op.getKernelShape(), op.getStrides(),
          op.getDilations());
    } else {
      result = windowGeneric(
          rewriter, loc, input, init, op.getKernelShape(), op.getStrides(),
          op.getDilations(),
          [&](OpBuilder &b, Location l, Value acc, Value x) -> Value {
            if (isa<FloatType>(element))
              return arith::MaximumFOp::create(b, l, acc, x);
            if (isUnsigned)
              return arith::MaxUIOp::create(b, l, acc, x);
            return arith::MaxSIOp::create(b, l, acc, x);
          });
    }
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// Average pooling: a window sum, then a division by the number of window
/// elements that count: those inside the input, plus the explicit padding
/// with count_include_pad (never the extra end elements of ceil_mode).
/// That number is a product of per-axis counts known at compile time; when
/// it varies, one small constant vector per axis feeds the division.
struct AveragePoolLowering : OpConversionPattern<AveragePoolOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(AveragePoolOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    MLIRContext *ctx = rewriter.getContext();
    auto resultType = cast<RankedTensorType>(
        getTypeConverter()->convertType(op.getType()));
    Type element = resultType.getElementType();
    Type acc = accumulatorType(element);
    auto accType = resultType.clone(acc);
    Value input = padForPool(rewriter, op, adaptor.getInput(), resultType,
                             scalarAttr(element, 0.0));
    Value init = zeroFilled(rewriter, loc, resultType.getShape(), acc);
    ArrayRef<int64_t> kernel = op.getKernelShape(), strides = op.getStrides(),
                      pads = op.getPads(), dilations = op.getDilations();
    int64_t k = resultType.getRank() - 2;
    Value sum;
    if (k == 2) {
      sum = namedPool2D<linalg::PoolingNchwSumOp>(rewriter, loc, input, init,
                                                  kernel, strides, dilations);
    } else {
      sum = windowGeneric(rewriter, loc, input, init, kernel, strides,
                          dilations,
                          [&](OpBuilder &b, Location l, Value s, Value x) {
                            return arith::AddFOp::create(
                                b, l, s, convertScalar(b, l, x, acc));
                          });
    }

    // Per-axis counts of the window elements that count.
    auto inShape = cast<RankedTensorType>(adaptor.getInput().getType());
    bool includePad = op.getCountIncludePad();
    SmallVector<SmallVector<int64_t>> counts(k);
    bool uniform = true;
    for (int64_t i = 0; i < k; ++i) {
      int64_t in = inShape.getDimSize(2 + i);
      int64_t lo = includePad ? -pads[i] : 0;
      int64_t hi = includePad ? in + pads[k + i] : in;
      for (int64_t o = 0; o < resultType.getDimSize(2 + i); ++o) {
        int64_t count = 0;
        for (int64_t w = 0; w < kernel[i]; ++w) {
          int64_t p = o * strides[i] - pads[i] + w * dilations[i];
          count += p >= lo && p < hi;
        }
        counts[i].push_back(count);
        uniform &= count == kernel[i];
      }
    }
    Value result;
    if (uniform) {
      double size = static_cast<double>(product(kernel));
      result = buildElementwise(
          rewriter, loc, accType, {sum},
          [&](OpBuilder &b, Location l, ValueRange args) {
            return arith::DivFOp::create(b, l, args[0],
                                         scalarConstant(b, l, acc, size));
          });
    } else {
      int64_t rank = resultType.getRank();
      SmallVector<Value> operands = {sum};
      SmallVector<AffineMap> maps = {
          AffineMap::getMultiDimIdentityMap(rank, ctx)};
      for (int64_t i = 0; i < k; ++i) {
        auto vt = RankedTensorType::get({resultType.getDimSize(2 + i)}, acc);
        SmallVector<Attribute> values;
        for (int64_t c : counts[i])
          values.push_back(FloatAttr::get(acc, static_cast<double>(c)));
        auto attr = DenseElementsAttr::get(vt, values);
        operands.push_back(arith::ConstantOp::create(rewriter, loc, attr));
        maps.push_back(
            AffineMap::get(rank, 0, getAffineDimExpr(2 + i, ctx), ctx));
      }
      maps.push_back(AffineMap::getMultiDimIdentityMap(rank, ctx));
      result =
          linalg::GenericOp::create(
              rewriter, loc, TypeRange{accType}, operands,
              ValueRange{emptyTensor(rewriter, loc, accType)}, maps,
              parallelIterators(rank),
              [&](OpBuilder &b, Location l, ValueRange args) {
                Value divisor = args[1];
                for (Value c : args.slice(2, k - 1))
                  divisor = arith::MulFOp::create(b, l, divisor, c);
                Value mean = arith::DivFOp::create(b, l, args[0], divisor);
                linalg::YieldOp::create(b, l, mean);
              })
              .getResult(0);
    }
    rewriter.replaceOp(op, convertTensor(rewriter, loc, result, element));
    return success();
  }
};

} // namespace

void telar::populateContractionLoweringPatterns(const TypeConverter &converter,
                                                RewritePatternSet &patterns) {
  patterns.add<MatMulLowering, EinsumLowering, ConvLowering,
               ConvTransposeLowering, MaxPoolLowering, AveragePoolLowering>(
      converter, patterns.getContext());
}
