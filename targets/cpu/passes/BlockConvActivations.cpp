//===- BlockConvActivations.cpp - Channel-blocked buffers between convs --===//
//
// A buffer that only the runtime's convolution calls write and read (a
// CNN's activations between its residual blocks) may hold its values in
// the runtime's channel-blocked order (NCHW16c) instead of NCHW: every
// call on it then says so (TELAR_KERNEL_BLOCKED_INPUT/OUTPUT), and the
// direct kernels read and write whole pixels of 16 channels with no
// transpose in and out of their planes.
//
//===----------------------------------------------------------------------===//

#include "telar/runtime/Abi.h"
#include "telar/targets/cpu/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"

namespace mlir::telar {
#define GEN_PASS_DEF_TELARBLOCKCONVACTIVATIONS
#include "telar/targets/cpu/Passes.h.inc"
} // namespace mlir::telar

using namespace mlir;

namespace {

/// Where a convolution call (from telar-linalg-to-library-calls) takes its
/// input and output and the i64 flags that speak for each (operand
/// indices: the context, the memrefs, then the integer arguments, as
/// Abi.h lists them).
struct ConvCallee {
  StringRef name;
  unsigned in, out, inFlags, outFlags;
};

constexpr ConvCallee kConvCallees[] = {
    // in, filter, out; sh, sw, dh, dw, pad_top, pad_left, flags
    {"telarrt_conv2d_nchw_f32", 1, 3, 10, 10},
    // in, filter, bias, out; the same
    {"telarrt_conv2d_nchw_bias_f32", 1, 4, 11, 11},
    // in, filter_a, bias_a, filter_b, bias_b, out; the first's 7, then
    // mid_h, mid_w, pad_top_b, pad_left_b, flags_b
    {"telarrt_conv2d_pair_nchw_f32", 1, 6, 13, 18},
    // in, filter, bias, out; the convolution's 7, then the pooling's
    {"telarrt_conv2d_maxpool_nchw_f32", 1, 4, 11, 11},
};

const ConvCallee *convCallee(func::CallOp call) {
  for (const ConvCallee &c : kConvCallees)
    if (call.getCallee() == c.name && call.getNumOperands() > c.outFlags)
      return &c;
  return nullptr;
}

/// The flag a call taking a buffer as its operand `operand` needs, or 0
/// when it cannot take that operand blocked (a filter, a bias, not a
/// convolution).
int64_t blockedFlagFor(func::CallOp call, unsigned operand) {
  const ConvCallee *c = convCallee(call);
  if (!c)
    return 0;
  if (operand == c->in)
    return TELAR_KERNEL_BLOCKED_INPUT;
  if (operand == c->out)
    return TELAR_KERNEL_BLOCKED_OUTPUT;
  return 0;
}

/// Whether operand `index` of `call` is an i64 constant (the flags).
bool constantFlags(func::CallOp call, unsigned index) {
  auto constant = call.getOperand(index).getDefiningOp<arith::ConstantOp>();
  return constant && isa<IntegerAttr>(constant.getValue());
}

/// Sets `bits` in the i64 constant operand `index` of `call`.
void setFlags(func::CallOp call, unsigned index, int64_t bits) {
  auto constant = call.getOperand(index).getDefiningOp<arith::ConstantOp>();
  int64_t old = cast<IntegerAttr>(constant.getValue()).getInt();
  OpBuilder b(call);
  call.setOperand(index,
                  arith::ConstantOp::create(b, call.getLoc(),
                                            b.getI64IntegerAttr(old | bits)));
}

struct BlockConvActivations
    : public mlir::telar::impl::TelarBlockConvActivationsBase<
          BlockConvActivations> {
  void runOnOperation() override {
    getOperation().walk([&](memref::AllocOp alloc) {
      MemRefType type = alloc.getType();
      // One image: the runtime's direct path takes blocked operands of one
      // (others would go through NCHW copies on every call).
      if (type.getRank() != 4 || !type.hasStaticShape() ||
          !type.getLayout().isIdentity() || !type.getElementType().isF32() ||
          type.getDimSize(0) != 1 ||
          type.getDimSize(1) % TELARRT_CONV_CHANNEL_BLOCK != 0)
        return;
      // Every use: a dealloc, or a cast that only convolution calls take,
      // as their input or output, with constant flags.
      SmallVector<std::pair<func::CallOp, unsigned>> uses;
      for (Operation *user : alloc->getUsers()) {
        if (isa<memref::DeallocOp>(user))
          continue;
        auto cast = dyn_cast<memref::CastOp>(user);
        if (!cast)
          return;
        for (OpOperand &use : cast->getUses()) {
          auto call = dyn_cast<func::CallOp>(use.getOwner());
          if (!call || !blockedFlagFor(call, use.getOperandNumber()))
            return;
          const ConvCallee *c = convCallee(call);
          if (!constantFlags(call, c->inFlags) ||
              !constantFlags(call, c->outFlags))
            return;
          uses.emplace_back(call, use.getOperandNumber());
        }
      }
      for (auto [call, operand] : uses) {
        const ConvCallee *c = convCallee(call);
        int64_t flag = blockedFlagFor(call, operand);
        setFlags(call,
                 flag == TELAR_KERNEL_BLOCKED_INPUT ? c->inFlags : c->outFlags,
                 flag);
      }
    });
  }
};

} // namespace
