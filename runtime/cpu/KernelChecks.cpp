//===- KernelChecks.cpp - Operand checks of the kernels' C ABI ------------===//
//
// What the kernels' entry points check before they compute (flags,
// window geometry, channel-blocked buffers, a convolution's operands),
// recording a status and message in the context when a check fails, and
// the operand descriptions of the kernel profile.
//
//===----------------------------------------------------------------------===//

#include "KernelSupport.h"

#include <string>

namespace detail = telar::runtime::detail;

namespace telar::runtime::kernels {

/// The single stride of dimensions [first, last) of a view collapsed into
/// one, or false when they do not form one evenly strided sequence.
/// Dimensions of size 1 place no constraint.
bool collapsedStride(const int64_t *sizes, const int64_t *strides, int first,
                     int last, int64_t &stride) {
  // Walk from the innermost dimension out: each non-unit dimension must
  // step over exactly the elements inside it.
  int64_t inner = 1; // elements covered so far
  int64_t unit = 0;  // stride of one step of the collapsed dimension
  bool haveUnit = false;
  for (int d = last - 1; d >= first; --d) {
    if (sizes[d] == 1)
      continue;
    if (!haveUnit) {
      unit = strides[d];
      haveUnit = true;
    } else if (strides[d] != unit * inner) {
      return false;
    }
    inner *= sizes[d];
  }
  stride = haveUnit ? unit : 1;
  return true;
}

/// Checks a kernel's flags (TELAR_KERNEL_*) against those it takes.
bool checkFlags(TelarContext *ctx, const char *kernel, int64_t flags,
                int64_t allowed) {
  if ((flags & ~allowed) == 0)
    return true;
  detail::fail(ctx, TELAR_STATUS_INVALID_ARGUMENT,
               "%s: unsupported flags 0x%llx", kernel,
               (long long)(flags & ~allowed));
  return false;
}

/// " acc", " relu", " blocked-in", " blocked-out" for a kernel's flags.
std::string flagNames(int64_t flags) {
  return std::string(flags & TELAR_KERNEL_ACCUMULATE ? " acc" : "") +
         (flags & TELAR_KERNEL_RELU ? " relu" : "") +
         (flags & TELAR_KERNEL_BLOCKED_INPUT ? " blocked-in" : "") +
         (flags & TELAR_KERNEL_BLOCKED_OUTPUT ? " blocked-out" : "");
}

/// A convolution's operands for the kernel profile.
std::string convShape(const TelarMemRef4F32 *in, const TelarMemRef4F32 *filter,
                      const TelarMemRef4F32 *out, int64_t sh, int64_t sw,
                      int64_t dh, int64_t dw, int64_t padTop, int64_t padLeft,
                      int64_t flags) {
  std::string s = dims(in) + " * " + dims(filter) + " -> " + dims(out) +
                  " stride " + std::to_string(sh) + "x" + std::to_string(sw) +
                  " pad " + std::to_string(padTop) + "x" +
                  std::to_string(padLeft);
  if (dh != 1 || dw != 1)
    s += " dilation " + std::to_string(dh) + "x" + std::to_string(dw);
  return s + flagNames(flags);
}

/// Checks a sliding window's geometry (convolutions, pooling): positive
/// strides and dilations, and each output row's (column's) window
/// overlapping the image, the padding on each side smaller than the
/// window's span.
bool checkWindow(TelarContext *ctx, const char *kernel, int64_t h,
                        int64_t w, int64_t oh, int64_t ow, int64_t kh,
                        int64_t kw, int64_t sh, int64_t sw, int64_t dh,
                        int64_t dw, int64_t padTop, int64_t padLeft) {
  if (sh < 1 || sw < 1 || dh < 1 || dw < 1) {
    detail::fail(ctx, TELAR_STATUS_INVALID_ARGUMENT,
          "%s: strides and dilations must be positive (%lld %lld %lld "
          "%lld)",
          kernel, (long long)sh, (long long)sw, (long long)dh, (long long)dw);
    return false;
  }
  int64_t spanH = (kh - 1) * dh + 1, spanW = (kw - 1) * dw + 1;
  int64_t padBottom = (oh - 1) * sh + spanH - padTop - h,
          padRight = (ow - 1) * sw + spanW - padLeft - w;
  if (oh > 0 && ow > 0 &&
      (padTop < 0 || padLeft < 0 || padTop >= spanH || padLeft >= spanW ||
       padBottom >= spanH || padRight >= spanW)) {
    detail::fail(ctx, TELAR_STATUS_INVALID_ARGUMENT,
          "%s: a %lldx%lld output with kernel %lldx%lld, strides %lldx%lld and "
          "dilations %lldx%lld needs padding %lld %lld %lld %lld (top, left, "
          "bottom, right) around the %lldx%lld input: each must be at least 0 "
          "and below the kernel's span",
          kernel, (long long)oh, (long long)ow, (long long)kh, (long long)kw,
          (long long)sh, (long long)sw, (long long)dh, (long long)dw,
          (long long)padTop, (long long)padLeft, (long long)padBottom,
          (long long)padRight, (long long)h, (long long)w);
    return false;
  }
  return true;
}

/// Whether `m` may hold channel-blocked values (TELAR_KERNEL_BLOCKED_*):
/// a dense buffer (NCHW strides) of whole channel blocks.
bool checkBlocked(TelarContext *ctx, const char *kernel,
                         const TelarMemRef4F32 *m, const char *what) {
  const int64_t *s = m->sizes, *st = m->strides;
  bool dense = st[3] == 1 && st[2] == s[3] && st[1] == s[2] * s[3] &&
               st[0] == s[1] * s[2] * s[3];
  if (dense && s[1] % detail::kChannelBlock == 0)
    return true;
  detail::fail(ctx, TELAR_STATUS_INVALID_ARGUMENT,
               "%s: a channel-blocked %s must be dense with channels in "
               "blocks of %d (%lldx%lldx%lldx%lld, strides %lld, %lld, "
               "%lld, %lld)",
               kernel, what, int(detail::kChannelBlock), (long long)s[0],
               (long long)s[1], (long long)s[2], (long long)s[3],
               (long long)st[0], (long long)st[1], (long long)st[2],
               (long long)st[3]);
  return false;
}

/// Checks a convolution's operands as telarrt_conv2d_nchw_bias_f32 takes
/// them (`biasRef` may be null); TELAR_STATUS_OK when they hold.
int checkConv(TelarContext *ctx, const char *kernel,
                     const TelarMemRef4F32 *in, const TelarMemRef4F32 *filter,
                     const TelarMemRef1F32 *biasRef,
                     const TelarMemRef4F32 *out, int64_t sh, int64_t sw,
                     int64_t dh, int64_t dw, int64_t padTop, int64_t padLeft,
                     int64_t flags) {
  const int64_t *is = in->sizes, *fs = filter->sizes, *os = out->sizes;
  int64_t n = is[0], c = is[1], h = is[2], w = is[3];
  int64_t f = fs[0], kh = fs[2], kw = fs[3];
  int64_t oh = os[2], ow = os[3];
  if (os[0] != n || fs[1] != c || os[1] != f)
    return detail::fail(ctx, TELAR_STATUS_INVALID_ARGUMENT,
          "%s: input %lldx%lldx%lldx%lld, filter %lldx%lldx%lldx%lld and output "
          "%lldx%lldx%lldx%lld do not match",
          kernel, (long long)n, (long long)c, (long long)h, (long long)w, (long long)f,
          (long long)fs[1], (long long)kh, (long long)kw, (long long)os[0],
          (long long)os[1], (long long)oh, (long long)ow);
  if (!checkWindow(ctx, kernel, h, w, oh, ow, kh, kw, sh, sw, dh, dw, padTop,
                   padLeft) ||
      !checkFlags(ctx, kernel, flags,
                  TELAR_KERNEL_ACCUMULATE | TELAR_KERNEL_RELU | kBlockedFlags))
    return TELAR_STATUS_INVALID_ARGUMENT;
  if ((flags & TELAR_KERNEL_BLOCKED_INPUT) &&
      !checkBlocked(ctx, kernel, in, "input"))
    return TELAR_STATUS_INVALID_ARGUMENT;
  if ((flags & TELAR_KERNEL_BLOCKED_OUTPUT) &&
      !checkBlocked(ctx, kernel, out, "output"))
    return TELAR_STATUS_INVALID_ARGUMENT;
  if (biasRef && biasRef->sizes[0] != f)
    return detail::fail(ctx, TELAR_STATUS_INVALID_ARGUMENT,
                        "%s: a bias of %lld values for %lld filters", kernel,
                        (long long)biasRef->sizes[0], (long long)f);
  int64_t depth = c * kh * kw, pixels = oh * ow;
  if (n != 0 && f != 0 && pixels != 0 && depth != 0 &&
      !fitsBlas(f, pixels, depth))
    return detail::fail(ctx, TELAR_STATUS_INVALID_ARGUMENT,
                        "%s: a %lldx%lldx%lld product is too large", kernel,
                        (long long)f, (long long)pixels, (long long)depth);
  return TELAR_STATUS_OK;
}

} // namespace telar::runtime::kernels
