//===- ConvolutionGradients.cpp - VJPs of convolutions and pools ----------===//
//
// telar.conv: the input's gradient is the transposed convolution of the
// result's gradient with the same weight (output_padding restores the
// input's size where the strides dropped a remainder); the weight's is a
// convolution of the input with the result's gradient, batch and channels
// swapped (stride and dilation trade places), per group; the bias's the
// gradient summed over batch and space. telar.conv_transpose, the adjoint of
// a convolution, swaps those roles. telar.average_pool spreads each
// window's gradient evenly back (a transposed convolution with a constant
// kernel, divided by each window's count); telar.max_pool sends it to the
// window's first largest element, as PyTorch does (ties after a ReLU are
// common): an arg_max over the stacked window offsets picks it.
//
//===----------------------------------------------------------------------===//

#include "GradientBuilder.h"

#include <limits>

using namespace mlir;
using namespace mlir::telar;
using namespace mlir::telar::autodiff;

namespace {

/// The attributes every window op shares.
struct Window {
  SmallVector<int64_t> kernel, strides, pads, dilations;
  int64_t rank() const { return kernel.size(); }
  /// The elements of one window.
  int64_t elements() const {
    int64_t n = 1;
    for (int64_t k : kernel)
      n *= k;
    return n;
  }
};

/// Per spatial axis, what a transposed convolution of a `grad`-sized input
/// with `w` must add (output_padding) to reach `input`'s size.
SmallVector<int64_t> outputPadding(ArrayRef<int64_t> input,
                                   ArrayRef<int64_t> grad, const Window &w) {
  SmallVector<int64_t> extra;
  for (int64_t i = 0; i < w.rank(); ++i) {
    int64_t covered = (grad[2 + i] - 1) * w.strides[i] +
                      (w.kernel[i] - 1) * w.dilations[i] + 1 - w.pads[i] -
                      w.pads[w.rank() + i];
    extra.push_back(input[2 + i] - covered);
  }
  return extra;
}

Value convTranspose(GradientBuilder &g, Value input, Value weight,
                    const Window &w, ArrayRef<int64_t> targetShape,
                    int64_t group) {
  OpBuilder &b = g.getBuilder();
  return ConvTransposeOp::create(
      b, g.getLoc(), input, weight, Value(),
      b.getDenseI64ArrayAttr(w.strides), b.getDenseI64ArrayAttr(w.pads),
      b.getDenseI64ArrayAttr(w.dilations),
      b.getDenseI64ArrayAttr(outputPadding(targetShape, shapeOf(input), w)),
      b.getI64IntegerAttr(group));
}

/// The weight gradient of y = conv(x, W) (W: [Co, Ci/group, K...]) given
/// dy: sum over n and the output positions of dy[n,co,o] * x[n,ci,o*s +
/// k*d - p], a convolution of x with channels as batch and batch as
/// channels, by dy the same way, stride d and dilation s, cut to K.
Value convWeightGradient(GradientBuilder &g, Value x, Value dy,
                         const Window &w, int64_t group) {
  ArrayRef<int64_t> xs = shapeOf(x), ys = shapeOf(dy);
  int64_t n = xs[0], ci = xs[1], co = ys[1];
  int64_t cig = ci / group, cog = co / group, k = w.rank();
  SmallVector<int64_t> spatialX(xs.begin() + 2, xs.end()),
      spatialY(ys.begin() + 2, ys.end());
  auto concatShape = [](std::initializer_list<int64_t> lead,
                        ArrayRef<int64_t> rest) {
    SmallVector<int64_t> s(lead);
    s.append(rest.begin(), rest.end());
    return s;
  };
  auto iota = [&](std::initializer_list<int64_t> lead, int64_t from) {
    SmallVector<int64_t> perm(lead);
    for (int64_t i = 0; i < k; ++i)
      perm.push_back(from + i);
    return perm;
  };
  // x: [N, G, cig, S] -> [cig, G, N, S] -> [cig, G*N, S]; dy: [N, G, cog, T]
  // -> [G, cog, N, T] -> [G*cog, N, T]; a grouped convolution then pairs
  // group g's N input channels with its cog kernels. (One group: the
  // batch and channel axes swapped.)
  Value xt, dyt;
  if (group == 1) {
    xt = g.transpose(x, iota({1, 0}, 2));
    dyt = g.transpose(dy, iota({1, 0}, 2));
  } else {
    xt = g.reshape(
        g.transpose(g.reshape(x, concatShape({n, group, cig}, spatialX)),
                    iota({2, 1, 0}, 3)),
        concatShape({cig, group * n}, spatialX));
    dyt = g.reshape(
        g.transpose(g.reshape(dy, concatShape({n, group, cog}, spatialY)),
                    iota({1, 2, 0}, 3)),
        concatShape({co, n}, spatialY));
  }
  OpBuilder &b = g.getBuilder();
  Value r = ConvOp::create(b, g.getLoc(), xt, dyt, Value(),
                           b.getDenseI64ArrayAttr(w.dilations),
                           b.getDenseI64ArrayAttr(w.pads),
                           b.getDenseI64ArrayAttr(w.strides),
                           b.getI64IntegerAttr(group));
  // [cig, Co, K'] with K' >= K (the floor of the forward's output size).
  SmallVector<int64_t> axes, starts, ends, steps;
  for (int64_t i = 0; i < k; ++i)
    if (shapeOf(r)[2 + i] != w.kernel[i]) {
      axes.push_back(2 + i);
      starts.push_back(0);
      ends.push_back(w.kernel[i]);
      steps.push_back(1);
    }
  if (!axes.empty())
    r = SliceOp::create(b, g.getLoc(), r, axes, starts, ends, steps);
  return g.transpose(r, iota({1, 0}, 2));
}

/// Sums `dy` over every axis but the channels (a convolution's bias).
Value channelSum(GradientBuilder &g, Value dy) {
  SmallVector<int64_t> axes = {0};
  for (int64_t i = 2; i < int64_t(shapeOf(dy).size()); ++i)
    axes.push_back(i);
  return g.reduceSum(dy, axes, /*keepdims=*/false);
}

template <typename OpT> Window convWindow(OpT op) {
  Window w;
  ArrayRef<int64_t> ws = shapeOf(op.getWeight());
  w.kernel.assign(ws.begin() + 2, ws.end());
  w.strides.assign(op.getStrides().begin(), op.getStrides().end());
  w.pads.assign(op.getPads().begin(), op.getPads().end());
  w.dilations.assign(op.getDilations().begin(), op.getDilations().end());
  return w;
}

LogicalResult convVjp(Operation *op, GradientBuilder &g, ArrayRef<Value> dys,
                      SmallVectorImpl<Value> &dxs) {
  auto conv = cast<ConvOp>(op);
  Window w = convWindow(conv);
  int64_t group = int64_t(conv.getGroup());
  Value dy = dys[0];
  dxs[0] = convTranspose(g, dy, conv.getWeight(), w, shapeOf(conv.getInput()),
                         group);
  dxs[1] = convWeightGradient(g, conv.getInput(), dy, w, group);
  if (conv.getBias())
    dxs[2] = channelSum(g, dy);
  return success();
}

LogicalResult convTransposeVjp(Operation *op, GradientBuilder &g,
                               ArrayRef<Value> dys,
                               SmallVectorImpl<Value> &dxs) {
  // y = conv_transpose(x, W) is the adjoint of x' = conv(y', W): its
  // input's gradient is that convolution of dy, and its weight's is the
  // convolution's weight gradient with dy as the input and x as the
  // gradient.
  auto ct = cast<ConvTransposeOp>(op);
  Window w = convWindow(ct);
  int64_t group = int64_t(ct.getGroup());
  OpBuilder &b = g.getBuilder();
  Value dy = dys[0];
  dxs[0] = ConvOp::create(b, g.getLoc(), dy, ct.getWeight(), Value(),
                          b.getDenseI64ArrayAttr(w.strides),
                          b.getDenseI64ArrayAttr(w.pads),
                          b.getDenseI64ArrayAttr(w.dilations),
                          b.getI64IntegerAttr(group));
  // A conv of dy with output_padding's extra rows yields x's size exactly
  // (the extra rows contribute to no window of a stride-s convolution).
  if (shapeOf(dxs[0]) != shapeOf(ct.getInput()))
    return op->emitError("has no gradient yet: the convolution of its "
                         "result's gradient gives ")
           << dxs[0].getType() << ", not the input's "
           << ct.getInput().getType();
  dxs[1] = convWeightGradient(g, dy, ct.getInput(), w, group);
  if (ct.getBias())
    dxs[2] = channelSum(g, dy);
  return success();
}

template <typename OpT> FailureOr<Window> poolWindow(OpT op) {
  if (op.getCeilMode())
    return op->emitError("has no gradient yet: ceil_mode pooling");
  Window w;
  w.kernel.assign(op.getKernelShape().begin(), op.getKernelShape().end());
  w.strides.assign(op.getStrides().begin(), op.getStrides().end());
  w.pads.assign(op.getPads().begin(), op.getPads().end());
  w.dilations.assign(op.getDilations().begin(), op.getDilations().end());
  return w;
}

/// A constant of `shape` and `element` type holding `values`.
Value constant(GradientBuilder &g, ArrayRef<int64_t> shape, Type element,
               ArrayRef<float> values) {
  auto type = RankedTensorType::get(shape, element);
  SmallVector<Attribute> attrs;
  for (float v : values)
    attrs.push_back(g.getBuilder().getFloatAttr(element, v));
  return ConstantOp::create(g.getBuilder(), g.getLoc(),
                            cast<ElementsAttr>(DenseElementsAttr::get(
                                type, ArrayRef<Attribute>(attrs))));
}

/// Spreads `windows` ([N*C, K, T...]: window offset k's share of each
/// output's gradient) back onto the input [N, C, S...]: a transposed
/// convolution whose kernel k is one at offset k.
Value scatterWindows(GradientBuilder &g, Value windows, const Window &w,
                     ArrayRef<int64_t> inputShape) {
  int64_t count = w.elements();
  Type element = cast<ShapedType>(windows.getType()).getElementType();
  SmallVector<float> oneHot(count * count, 0.0f);
  for (int64_t k = 0; k < count; ++k)
    oneHot[k * count + k] = 1.0f;
  SmallVector<int64_t> kernelShape = {count, 1};
  kernelShape.append(w.kernel);
  Value kernel = constant(g, kernelShape, element, oneHot);
  SmallVector<int64_t> flatInput = {inputShape[0] * inputShape[1], 1};
  flatInput.append(inputShape.begin() + 2, inputShape.end());
  Value spread = convTranspose(g, windows, kernel, w, flatInput, 1);
  return g.reshape(spread, inputShape);
}

LogicalResult averagePoolVjp(Operation *op, GradientBuilder &g,
                             ArrayRef<Value> dys,
                             SmallVectorImpl<Value> &dxs) {
  auto pool = cast<AveragePoolOp>(op);
  FailureOr<Window> w = poolWindow(pool);
  if (failed(w))
    return failure();
  ArrayRef<int64_t> xs = shapeOf(pool.getInput());
  Value dy = dys[0];
  ArrayRef<int64_t> ys = shapeOf(dy);
  Type element = cast<ShapedType>(dy.getType()).getElementType();
  int64_t count = w->elements();
  bool padded = llvm::any_of(w->pads, [](int64_t p) { return p != 0; });
  Value share;
  if (pool.getCountIncludePad() || !padded) {
    share = g.mulScalar(dy, 1.0 / double(count));
  } else {
    // Each window's divisor: how many of its elements lie inside the input
    // (a convolution of ones by ones, the same for every batch and channel).
    SmallVector<int64_t> onesShape = {1, 1};
    onesShape.append(xs.begin() + 2, xs.end());
    int64_t spatial = 1;
    for (int64_t s : ArrayRef(onesShape).drop_front(2))
      spatial *= s;
    SmallVector<int64_t> ones = {1, 1};
    ones.append(w->kernel);
    OpBuilder &b = g.getBuilder();
    Value counts = ConvOp::create(
        b, g.getLoc(),
        constant(g, onesShape, element, SmallVector<float>(spatial, 1.0f)),
        constant(g, ones, element, SmallVector<float>(count, 1.0f)),
        Value(), b.getDenseI64ArrayAttr(w->strides),
        b.getDenseI64ArrayAttr(w->pads), b.getDenseI64ArrayAttr(w->dilations),
        b.getI64IntegerAttr(1));
    share = g.div(dy, counts);
  }
  // [N, C, T] -> [N*C, 1, T], spread over each window by a kernel of ones.
  SmallVector<int64_t> flat = {ys[0] * ys[1], 1};
  flat.append(ys.begin() + 2, ys.end());
  SmallVector<int64_t> kernelShape = {1, 1};
  kernelShape.append(w->kernel);
  SmallVector<int64_t> flatInput = {xs[0] * xs[1], 1};
  flatInput.append(xs.begin() + 2, xs.end());
  Value spread = convTranspose(
      g, g.reshape(share, flat),
      constant(g, kernelShape, element, SmallVector<float>(count, 1.0f)), *w,
      flatInput, 1);
  dxs[0] = g.reshape(spread, xs);
  return success();
}

LogicalResult maxPoolVjp(Operation *op, GradientBuilder &g,
                         ArrayRef<Value> dys, SmallVectorImpl<Value> &dxs) {
  auto pool = cast<MaxPoolOp>(op);
  Value x = pool.getInput();
  if (!isFloatTensor(x))
    return success();
  FailureOr<Window> w = poolWindow(pool);
  if (failed(w))
    return failure();
  OpBuilder &b = g.getBuilder();
  Location loc = g.getLoc();
  ArrayRef<int64_t> xs = shapeOf(x);
  Value dy = dys[0];
  ArrayRef<int64_t> ys = shapeOf(dy);
  int64_t k = w->rank();
  // The input padded with -inf: each window offset's elements, for every
  // output position, are a strided slice of it.
  SmallVector<int64_t> pads(2 * (k + 2), 0);
  for (int64_t i = 0; i < k; ++i) {
    pads[2 + i] = w->pads[i];
    pads[k + 4 + i] = w->pads[k + i];
  }
  Value padded = x;
  if (llvm::any_of(pads, [](int64_t p) { return p != 0; }))
    padded = PadOp::create(b, loc, x, b.getDenseI64ArrayAttr(pads),
                           b.getStringAttr("constant"),
                           b.getF64FloatAttr(
                               -std::numeric_limits<double>::infinity()));
  SmallVector<Value> windows;
  SmallVector<int64_t> offset(k, 0);
  int64_t count = w->elements();
  SmallVector<int64_t> unsqueezed = {1};
  unsqueezed.append(ys.begin(), ys.end());
  for (int64_t c = 0; c < count; ++c) {
    // Offsets in row-major order: the order PyTorch scans a window in.
    int64_t rest = c;
    for (int64_t i = k - 1; i >= 0; --i) {
      offset[i] = rest % w->kernel[i];
      rest /= w->kernel[i];
    }
    SmallVector<int64_t> axes, starts, ends, steps;
    for (int64_t i = 0; i < k; ++i) {
      int64_t start = offset[i] * w->dilations[i];
      axes.push_back(2 + i);
      starts.push_back(start);
      ends.push_back(start + (ys[2 + i] - 1) * w->strides[i] + 1);
      steps.push_back(w->strides[i]);
    }
    Value slice = SliceOp::create(b, loc, padded, axes, starts, ends, steps);
    windows.push_back(g.reshape(slice, unsqueezed));
  }
  Value stacked = windows.size() == 1
                      ? windows[0]
                      : Value(ConcatOp::create(b, loc, windows, 0));
  // The first largest offset of each window (ties go to the first, as in
  // PyTorch), as a one-hot mask over the offsets.
  Value first = ArgMaxOp::create(b, loc, stacked, b.getI64IntegerAttr(0),
                                 b.getBoolAttr(true), b.getBoolAttr(false));
  SmallVector<int64_t> iotaShape(ys.size() + 1, 1);
  iotaShape[0] = count;
  SmallVector<APInt> iota;
  for (int64_t c = 0; c < count; ++c)
    iota.push_back(APInt(64, c));
  Value offsets = ConstantOp::create(
      b, loc,
      cast<ElementsAttr>(DenseElementsAttr::get(
          RankedTensorType::get(iotaShape, b.getI64Type()), iota)));
  Type element = cast<ShapedType>(dy.getType()).getElementType();
  Value mask = g.cast(g.equal(first, offsets), element);
  // [K, N, C, T] -> [N, C, K, T] -> [N*C, K, T].
  Value share = g.mul(mask, g.reshape(dy, unsqueezed));
  SmallVector<int64_t> perm = {1, 2, 0};
  for (int64_t i = 0; i < k; ++i)
    perm.push_back(3 + i);
  SmallVector<int64_t> windowsShape = {ys[0] * ys[1], count};
  windowsShape.append(ys.begin() + 2, ys.end());
  dxs[0] = scatterWindows(g, g.reshape(g.transpose(share, perm), windowsShape),
                          *w, xs);
  return success();
}

} // namespace

void mlir::telar::autodiff::registerConvolutionGradients(MLIRContext *ctx) {
  attachGradient<ConvOp, convVjp>(ctx);
  attachGradient<ConvTransposeOp, convTransposeVjp>(ctx);
  attachGradient<AveragePoolOp, averagePoolVjp>(ctx);
  attachGradient<MaxPoolOp, maxPoolVjp>(ctx);
}
