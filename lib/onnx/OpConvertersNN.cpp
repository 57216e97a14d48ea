//===- OpConvertersNN.cpp - MatMul, Gemm, Einsum, Conv, pooling -----------===//

#include "ImporterInternal.h"

#include "telar/dialects/Telar/TelarOps.h"

#include "llvm/ADT/StringExtras.h"

#include <cctype>
#include <map>
#include <set>

using namespace mlir;
using namespace mlir::telar;
using namespace mlir::telar::onnx_import;

namespace {

LogicalResult convertMatMul(OpContext &c) {
  Value a = c.required(0, "A"), b = a ? c.required(1, "B") : Value();
  if (!b)
    return failure();
  return c.done(c.create<MatMulOp>({a, b}));
}

/// Gemm: Y = alpha * op(A) * op(B) + beta * C.
LogicalResult convertGemm(OpContext &c) {
  Value a = c.required(0, "A"), b = a ? c.required(1, "B") : Value();
  if (!b)
    return failure();
  if (rankOf(a) != 2 || rankOf(b) != 2)
    return c.fail("A and B must be matrices, got " + llvm::Twine(rankOf(a)) +
                  "-D and " + llvm::Twine(rankOf(b)) + "-D");
  if (c.getInt("transA", 0))
    a = c.create<TransposeOp>({a}, {c.i64s("perm", {1, 0})});
  if (a && c.getInt("transB", 0))
    b = c.create<TransposeOp>({b}, {c.i64s("perm", {1, 0})});
  Value y = a && b ? c.create<MatMulOp>({a, b}) : Value();
  if (!y)
    return failure();
  Type et = elementTypeOf(y);
  double alpha = c.getFloat("alpha", 1.0), beta = c.getFloat("beta", 1.0);
  if (alpha != 1.0) {
    Value s = c.scalar(et, alpha);
    y = s ? c.create<MulOp>({y, s}) : Value();
  }
  if (y && c.has(2) && beta != 0.0) {
    Value cc = c.in(2);
    if (beta != 1.0) {
      Value s = c.scalar(et, beta);
      cc = s ? c.create<MulOp>({cc, s}) : Value();
    }
    y = cc ? c.create<AddOp>({y, cc}) : Value();
  }
  return c.done(y);
}

/// Parses ONNX's equation into the op's #telar.einsum labels: an implicit
/// output is made explicit (the letters used once, in alphabetical order,
/// after the ellipsis dimensions) and `...` is expanded into fresh letters
/// for the inputs' ranks. This is the only place an equation is parsed.
LogicalResult convertEinsum(OpContext &c) {
  std::string eq;
  for (char ch : c.getString("equation", ""))
    if (!std::isspace(static_cast<unsigned char>(ch)))
      eq.push_back(ch);
  if (eq.empty())
    return c.fail("missing attribute 'equation'");
  llvm::SmallVector<Value> operands;
  for (unsigned i = 0; i < c.numInputs(); ++i) {
    Value v = c.required(i, "Inputs");
    if (!v)
      return failure();
    operands.push_back(v);
  }
  llvm::StringRef lhs = eq, rhs;
  bool explicitOut = false;
  size_t arrow = eq.find("->");
  if (arrow != std::string::npos) {
    lhs = llvm::StringRef(eq).take_front(arrow);
    rhs = llvm::StringRef(eq).drop_front(arrow + 2);
    explicitOut = true;
  }
  llvm::SmallVector<llvm::StringRef> terms;
  lhs.split(terms, ',');
  if (terms.size() != operands.size())
    return c.fail("equation '" + eq + "' has " + llvm::Twine(terms.size()) +
                  " input terms but the node has " +
                  llvm::Twine(operands.size()) + " inputs");
  std::set<char> used;
  for (char ch : eq)
    if (std::isalpha(static_cast<unsigned char>(ch)))
      used.insert(ch);
  // Ellipsis ranks.
  int64_t maxEll = 0;
  llvm::SmallVector<int64_t> ellRank(terms.size(), 0);
  for (size_t i = 0; i < terms.size(); ++i) {
    int64_t letters = llvm::count_if(
        terms[i], [](char ch) { return std::isalpha(static_cast<unsigned char>(ch)); });
    size_t pos = terms[i].find("...");
    if (pos != llvm::StringRef::npos) {
      ellRank[i] = rankOf(operands[i]) - letters;
      if (ellRank[i] < 0)
        return c.fail("term '" + terms[i] + "' has more letters than input " +
                      llvm::Twine(i) + " has dimensions");
    }
    maxEll = std::max(maxEll, ellRank[i]);
  }
  std::string ellLetters;
  for (char ch = 'A'; (int64_t)ellLetters.size() < maxEll && ch <= 'z'; ++ch)
    if (std::isalpha(static_cast<unsigned char>(ch)) && !used.count(ch))
      ellLetters.push_back(ch);
  if ((int64_t)ellLetters.size() < maxEll)
    return c.fail("equation '" + eq + "' uses too many dimensions");
  // The labels of `term`, its `...` standing for the last `rank` ellipsis
  // letters.
  auto labelsOf = [&](llvm::StringRef term, int64_t rank,
                      llvm::SmallVector<int64_t> &labels) -> LogicalResult {
    size_t pos = term.find("...");
    std::string letters = term.str();
    if (pos != llvm::StringRef::npos)
      letters = term.take_front(pos).str() +
                ellLetters.substr(maxEll - rank, rank) +
                term.drop_front(pos + 3).str();
    for (char ch : letters) {
      std::optional<int64_t> label = EinsumEquationAttr::getLabelOfLetter(ch);
      if (!label) {
        // Name printable characters; others (e.g. UTF-8 bytes) by code.
        std::string what =
            llvm::isPrint(ch)
                ? "'" + std::string(1, ch) + "'"
                : "byte " + llvm::utohexstr(static_cast<unsigned char>(ch));
        return c.fail("equation '" + eq + "' has " + what +
                      " where a letter is expected");
      }
      labels.push_back(*label);
    }
    return success();
  };
  llvm::SmallVector<llvm::SmallVector<int64_t>> inputs(terms.size());
  std::map<char, int> counts;
  for (size_t i = 0; i < terms.size(); ++i) {
    if (failed(labelsOf(terms[i], ellRank[i], inputs[i])))
      return failure();
    for (char ch : terms[i])
      if (std::isalpha(static_cast<unsigned char>(ch)))
        counts[ch]++;
  }
  llvm::SmallVector<int64_t> output;
  if (explicitOut) {
    if (failed(labelsOf(rhs, maxEll, output)))
      return failure();
  } else {
    std::string out = ellLetters;
    for (auto [ch, n] : counts)
      if (n == 1)
        out.push_back(ch);
    if (failed(labelsOf(out, 0, output)))
      return failure();
  }
  for (auto [i, label] : llvm::enumerate(output)) {
    std::string letter(1, EinsumEquationAttr::getLabelLetter(label));
    if (llvm::is_contained(llvm::ArrayRef(output).take_front(i), label))
      return c.fail("equation '" + eq + "': output letter '" + letter +
                    "' appears twice");
    if (llvm::none_of(inputs, [&](const llvm::SmallVector<int64_t> &t) {
          return llvm::is_contained(t, label);
        }))
      return c.fail("equation '" + eq + "': output letter '" + letter +
                    "' appears in no input");
  }
  auto equation = EinsumEquationAttr::get(c.b.getContext(), inputs, output);
  return c.done(c.create<EinsumOp>(operands, {c.named("equation", equation)}));
}

/// Strides, dilations and explicit pads of a windowed op, with auto_pad
/// resolved against the input's spatial sizes.
LogicalResult resolveWindow(OpContext &c, llvm::ArrayRef<int64_t> spatial,
                            llvm::ArrayRef<int64_t> kernel,
                            llvm::SmallVectorImpl<int64_t> &strides,
                            llvm::SmallVectorImpl<int64_t> &dilations,
                            llvm::SmallVectorImpl<int64_t> &pads) {
  size_t n = spatial.size();
  if (kernel.size() != n)
    return c.fail("kernel has " + llvm::Twine(kernel.size()) +
                  " spatial dims but the input has " + llvm::Twine(n));
  strides.assign(c.getInts("strides"));
  dilations.assign(c.getInts("dilations"));
  pads.assign(c.getInts("pads"));
  if (strides.empty())
    strides.assign(n, 1);
  if (dilations.empty())
    dilations.assign(n, 1);
  if (pads.empty())
    pads.assign(2 * n, 0);
  if (strides.size() != n || dilations.size() != n || pads.size() != 2 * n)
    return c.fail("strides, dilations and pads must have " + llvm::Twine(n) +
                  ", " + llvm::Twine(n) + " and " + llvm::Twine(2 * n) +
                  " values");
  for (size_t i = 0; i < n; ++i)
    if (strides[i] <= 0 || dilations[i] <= 0)
      return c.fail("strides and dilations must be positive");
  std::string autoPad = c.getString("auto_pad", "NOTSET");
  if (autoPad == "VALID") {
    pads.assign(2 * n, 0);
  } else if (autoPad == "SAME_UPPER" || autoPad == "SAME_LOWER") {
    for (size_t i = 0; i < n; ++i) {
      int64_t out = (spatial[i] + strides[i] - 1) / strides[i];
      int64_t total = std::max<int64_t>(
          0, (out - 1) * strides[i] + (kernel[i] - 1) * dilations[i] + 1 -
                 spatial[i]);
      int64_t small = total / 2, big = total - small;
      pads[i] = autoPad == "SAME_UPPER" ? small : big;
      pads[i + n] = autoPad == "SAME_UPPER" ? big : small;
    }
  } else if (autoPad != "NOTSET" && !autoPad.empty()) {
    return c.fail("unknown auto_pad '" + autoPad + "'");
  }
  return success();
}

LogicalResult convertConv(OpContext &c) {
  Value x = c.required(0, "X"), w = x ? c.required(1, "W") : Value();
  if (!w)
    return failure();
  if (rankOf(x) < 3 || rankOf(w) != rankOf(x))
    return c.fail("X and W must have the same rank >= 3");
  llvm::SmallVector<int64_t> kernel = c.getInts("kernel_shape");
  if (kernel.empty())
    kernel.assign(shapeOf(w).drop_front(2).begin(), shapeOf(w).end());
  llvm::SmallVector<int64_t> strides, dilations, pads;
  if (failed(resolveWindow(c, shapeOf(x).drop_front(2), kernel, strides,
                           dilations, pads)))
    return failure();
  llvm::SmallVector<Value> operands{x, w};
  if (c.has(2))
    operands.push_back(c.in(2));
  return c.done(c.create<ConvOp>(
      operands, {c.i64s("strides", strides), c.i64s("pads", pads),
                 c.i64s("dilations", dilations),
                 c.i64("group", c.getInt("group", 1))}));
}

LogicalResult convertConvTranspose(OpContext &c) {
  Value x = c.required(0, "X"), w = x ? c.required(1, "W") : Value();
  if (!w)
    return failure();
  if (rankOf(x) < 3 || rankOf(w) != rankOf(x))
    return c.fail("X and W must have the same rank >= 3");
  size_t n = rankOf(x) - 2;
  llvm::ArrayRef<int64_t> in = shapeOf(x).drop_front(2);
  llvm::SmallVector<int64_t> kernel = c.getInts("kernel_shape");
  if (kernel.empty())
    kernel.assign(shapeOf(w).drop_front(2).begin(), shapeOf(w).end());
  llvm::SmallVector<int64_t> strides = c.getInts("strides"),
                             dilations = c.getInts("dilations"),
                             pads = c.getInts("pads"),
                             outPad = c.getInts("output_padding"),
                             outShape = c.getInts("output_shape");
  if (strides.empty())
    strides.assign(n, 1);
  if (dilations.empty())
    dilations.assign(n, 1);
  if (outPad.empty())
    outPad.assign(n, 0);
  if (kernel.size() != n || strides.size() != n || dilations.size() != n ||
      outPad.size() != n || (!pads.empty() && pads.size() != 2 * n))
    return c.fail("kernel_shape, strides, dilations, output_padding and pads "
                  "must match the " + llvm::Twine(n) + " spatial dims");
  std::string autoPad = c.getString("auto_pad", "NOTSET");
  bool same = autoPad == "SAME_UPPER" || autoPad == "SAME_LOWER";
  if (outShape.size() > n) // output_shape may include N and C.
    outShape.erase(outShape.begin(), outShape.end() - n);
  if (pads.empty() && (same || !outShape.empty())) {
    if (outShape.empty())
      for (size_t i = 0; i < n; ++i)
        outShape.push_back(in[i] * strides[i]);
    if (outShape.size() != n)
      return c.fail("output_shape must have " + llvm::Twine(n) + " values");
    pads.assign(2 * n, 0);
    for (size_t i = 0; i < n; ++i) {
      int64_t total = strides[i] * (in[i] - 1) + outPad[i] +
                      (kernel[i] - 1) * dilations[i] + 1 - outShape[i];
      if (!same || total < 0) {
        // As the reference: no padding, the result is cut or extended at
        // the end to output_shape.
        if (total < 0)
          outPad[i] -= total;
        else
          pads[i + n] = total;
        continue;
      }
      int64_t half = total / 2;
      pads[i] = autoPad == "SAME_UPPER" ? half : total - half;
      pads[i + n] = autoPad == "SAME_UPPER" ? total - half : half;
    }
  }
  if (pads.empty() || autoPad == "VALID")
    pads.assign(2 * n, 0);
  llvm::SmallVector<Value> operands{x, w};
  if (c.has(2))
    operands.push_back(c.in(2));
  return c.done(c.create<ConvTransposeOp>(
      operands, {c.i64s("strides", strides), c.i64s("pads", pads),
                 c.i64s("dilations", dilations),
                 c.i64s("output_padding", outPad),
                 c.i64("group", c.getInt("group", 1))}));
}

template <typename OpTy, bool IsAverage>
LogicalResult convertPool(OpContext &c) {
  Value x = c.required(0, "X");
  if (!x)
    return failure();
  if (c.used(1))
    return c.fail("the Indices output is not supported");
  if (rankOf(x) < 3)
    return c.fail("input must have rank >= 3 (N, C, spatial...), got rank " +
                  llvm::Twine(rankOf(x)));
  llvm::SmallVector<int64_t> kernel = c.getInts("kernel_shape");
  if (kernel.empty())
    return c.fail("missing attribute 'kernel_shape'");
  llvm::SmallVector<int64_t> strides, dilations, pads;
  if (failed(resolveWindow(c, shapeOf(x).drop_front(2), kernel, strides,
                           dilations, pads)))
    return failure();
  llvm::SmallVector<NamedAttribute> attrs{
      c.i64s("kernel_shape", kernel), c.i64s("strides", strides),
      c.i64s("pads", pads), c.i64s("dilations", dilations),
      c.boolean("ceil_mode", c.getInt("ceil_mode", 0) != 0)};
  if (IsAverage)
    attrs.push_back(c.boolean("count_include_pad",
                              c.getInt("count_include_pad", 0) != 0));
  return c.done(c.create<OpTy>({x}, attrs));
}

} // namespace

void mlir::telar::onnx_import::registerNNConverters(ConverterTable &t) {
  t["MatMul"] = {convertMatMul};
  t["Gemm"] = {convertGemm};
  t["Einsum"] = {convertEinsum, 12};
  t["Conv"] = {convertConv};
  t["ConvTranspose"] = {convertConvTranspose};
  t["MaxPool"] = {convertPool<MaxPoolOp, false>};
  t["AveragePool"] = {convertPool<AveragePoolOp, true>};
}
