//===- TelarOps.td - Telar graph ops -----------------------*- tablegen -*-===//
//
// Ops are grouped in families that share inference and sharding rules. The
// C++ helpers named in `inferBody`/`ruleBody` live in dialects/Telar/.
//
//===----------------------------------------------------------------------===//

#ifndef TELAR_OPS_TD
#define TELAR_OPS_TD

include "telar/dialects/Telar/TelarBase.td"

//===----------------------------------------------------------------------===//
// Constants
//===----------------------------------------------------------------------===//

def Telar_ConstantOp : Telar_Op<"constant", [ConstantLike]> {
  let summary = "A constant tensor (ONNX Constant, initializers, folded shape math)";
  let description = [{
    Holds a constant tensor. Weights are blob resources
    (`dense_resource<...>`), memory-mapped when the model's external data is;
    small tensors produced by folding shape computations are plain `dense`.

    ```mlir
    %w = telar.constant dense_resource<w0> : tensor<768x768xf32>
    %s = telar.constant dense<[1, 128, 12, 64]> : tensor<4xi64>
    ```
  }];
  let arguments = (ins ElementsAttr:$value);
  let results = (outs Telar_Tensor:$output);
  let assemblyFormat = "attr-dict $value";
  let hasFolder = 1;
  let inferBody = [{
    inferredReturnTypes.push_back(adaptor.getValue().getType());
    return ::mlir::success();
  }];
  let ruleBody = "return ::mlir::telar::elementwiseRule(getOperation());";
}

def Telar_VariableOp : Telar_Op<"variable"> {
  let summary = "A persistent, mutable tensor of a training step (a parameter or optimizer state)";
  let description = [{
    The current value of the artifact's variable `name`: a trainable
    parameter (an ONNX initializer, `telarc --train`) or the optimizer's
    state of one (`<name>@m`, `<name>@v`, `<name>@momentum`). `value` is its
    initial value. Unlike `telar.constant` it is not constant-like, so no
    folding or constant deduplication can merge it with another tensor or
    compute with its initial value: a function result marked
    `telar.updates = "<name>"` is its value after the step, which the
    runtime stores back into it.

    ```mlir
    %w = telar.variable "fc.weight" dense_resource<fc.weight> : tensor<32x16xf32>
    ```
  }];
  let arguments = (ins StrAttr:$name, ElementsAttr:$value);
  let results = (outs Telar_FloatTensor:$output);
  let assemblyFormat = "$name attr-dict $value";
  let hasVerifier = 1;
  let inferBody = [{
    inferredReturnTypes.push_back(adaptor.getValue().getType());
    return ::mlir::success();
  }];
  let ruleBody = "return ::mlir::telar::elementwiseRule(getOperation());";
}

//===----------------------------------------------------------------------===//
// Elementwise unary
//===----------------------------------------------------------------------===//

/// Elementwise op whose result has the type of its (first) operand.
class Telar_UnaryOp<string mnemonic, Type operandType = Telar_FloatTensor,
                    list<Trait> traits = []>
    : Telar_Op<mnemonic, traits> {
  let arguments = (ins operandType:$input);
  let results = (outs operandType:$output);
  let inferBody = [{
    inferredReturnTypes.push_back(adaptor.getInput().getType());
    return ::mlir::success();
  }];
  let ruleBody = "return ::mlir::telar::elementwiseRule(getOperation());";
  let description = "Elementwise `" # mnemonic # "`; result type equals the "
    # "operand type.\n\n```mlir\n%y = telar." # mnemonic
    # " %x : (tensor<2x3xf32>) -> tensor<2x3xf32>\n```";
}

def Telar_AbsOp : Telar_UnaryOp<"abs", Telar_NumericTensor> { let summary = "|x| (ONNX Abs)"; let hasFolder = 1; }
def Telar_NegOp : Telar_UnaryOp<"neg", Telar_NumericTensor> { let summary = "-x (ONNX Neg)"; let hasFolder = 1;  let ruleBody = "return ::mlir::telar::withPartialAlike(::mlir::telar::elementwiseRule(getOperation()), ::mlir::telar::kPartialSum);"; }
def Telar_SignOp : Telar_UnaryOp<"sign", Telar_NumericTensor> { let summary = "sign(x) (ONNX Sign)"; }
def Telar_ExpOp : Telar_UnaryOp<"exp"> { let summary = "e^x (ONNX Exp)"; }
def Telar_LogOp : Telar_UnaryOp<"log"> { let summary = "ln(x) (ONNX Log)"; let hasFolder = 1; }
def Telar_SqrtOp : Telar_UnaryOp<"sqrt"> { let summary = "sqrt(x) (ONNX Sqrt)"; }
def Telar_ReciprocalOp : Telar_UnaryOp<"reciprocal"> { let summary = "1/x (ONNX Reciprocal)"; }
def Telar_FloorOp : Telar_UnaryOp<"floor"> { let summary = "floor(x) (ONNX Floor)"; }
def Telar_CeilOp : Telar_UnaryOp<"ceil"> { let summary = "ceil(x) (ONNX Ceil)"; }
def Telar_RoundOp : Telar_UnaryOp<"round"> { let summary = "round half to even (ONNX Round)"; }
def Telar_SinOp : Telar_UnaryOp<"sin"> { let summary = "sin(x) (ONNX Sin)"; }
def Telar_CosOp : Telar_UnaryOp<"cos"> { let summary = "cos(x) (ONNX Cos)"; }
def Telar_TanOp : Telar_UnaryOp<"tan"> { let summary = "tan(x) (ONNX Tan)"; }
def Telar_AsinOp : Telar_UnaryOp<"asin"> { let summary = "asin(x) (ONNX Asin)"; }
def Telar_AcosOp : Telar_UnaryOp<"acos"> { let summary = "acos(x) (ONNX Acos)"; }
def Telar_AtanOp : Telar_UnaryOp<"atan"> { let summary = "atan(x) (ONNX Atan)"; }
def Telar_SinhOp : Telar_UnaryOp<"sinh"> { let summary = "sinh(x) (ONNX Sinh)"; }
def Telar_CoshOp : Telar_UnaryOp<"cosh"> { let summary = "cosh(x) (ONNX Cosh)"; }
def Telar_AsinhOp : Telar_UnaryOp<"asinh"> { let summary = "asinh(x) (ONNX Asinh)"; }
def Telar_AcoshOp : Telar_UnaryOp<"acosh"> { let summary = "acosh(x) (ONNX Acosh)"; }
def Telar_AtanhOp : Telar_UnaryOp<"atanh"> { let summary = "atanh(x) (ONNX Atanh)"; }
def Telar_TanhOp : Telar_UnaryOp<"tanh"> { let summary = "tanh(x) (ONNX Tanh)"; }
def Telar_SigmoidOp : Telar_UnaryOp<"sigmoid"> { let summary = "1/(1+e^-x) (ONNX Sigmoid)"; }
def Telar_ReluOp : Telar_UnaryOp<"relu", Telar_NumericTensor> { let summary = "max(x, 0) (ONNX Relu)"; }
def Telar_ErfOp : Telar_UnaryOp<"erf"> { let summary = "erf(x) (ONNX Erf)"; }
def Telar_SoftplusOp : Telar_UnaryOp<"softplus"> { let summary = "ln(1+e^x) (ONNX Softplus)"; }
def Telar_SoftsignOp : Telar_UnaryOp<"softsign"> { let summary = "x/(1+|x|) (ONNX Softsign)"; }
def Telar_HardSwishOp : Telar_UnaryOp<"hard_swish"> { let summary = "x*max(0,min(1,x/6+1/2)) (ONNX HardSwish)"; }
def Telar_MishOp : Telar_UnaryOp<"mish"> { let summary = "x*tanh(softplus(x)) (ONNX Mish)"; }
def Telar_NotOp : Telar_UnaryOp<"not", Telar_BoolTensor> { let summary = "logical not (ONNX Not)"; let hasFolder = 1; }
def Telar_BitwiseNotOp : Telar_UnaryOp<"bitwise_not", Telar_IntTensor> { let summary = "~x (ONNX BitwiseNot)"; }

/// Unary ops with typed attributes.
def Telar_GeluOp : Telar_UnaryOp<"gelu"> {
  let summary = "GELU, exact (`none`) or `tanh` approximation (ONNX Gelu)";
  let arguments = (ins Telar_FloatTensor:$input,
                       DefaultValuedStrAttr<StrAttr, "none">:$approximate);
  let hasVerifier = 1;
}
def Telar_LeakyReluOp : Telar_UnaryOp<"leaky_relu"> {
  let summary = "x<0 ? alpha*x : x (ONNX LeakyRelu)";
  let arguments = (ins Telar_FloatTensor:$input,
                       DefaultValuedAttr<F32Attr, "0.01">:$alpha);
}
def Telar_EluOp : Telar_UnaryOp<"elu"> {
  let summary = "x<0 ? alpha*(e^x-1) : x (ONNX Elu)";
  let arguments = (ins Telar_FloatTensor:$input,
                       DefaultValuedAttr<F32Attr, "1.0">:$alpha);
}
def Telar_CeluOp : Telar_UnaryOp<"celu"> {
  let summary = "max(0,x)+min(0,alpha*(e^(x/alpha)-1)) (ONNX Celu)";
  let arguments = (ins Telar_FloatTensor:$input,
                       DefaultValuedAttr<F32Attr, "1.0">:$alpha);
}
def Telar_SeluOp : Telar_UnaryOp<"selu"> {
  let summary = "gamma*(x<=0 ? alpha*(e^x-1) : x) (ONNX Selu)";
  let arguments = (ins Telar_FloatTensor:$input,
                       DefaultValuedAttr<F32Attr, "1.67326319217681884765625">:$alpha,
                       DefaultValuedAttr<F32Attr, "1.05070102214813232421875">:$gamma);
}
def Telar_HardSigmoidOp : Telar_UnaryOp<"hard_sigmoid"> {
  let summary = "max(0,min(1,alpha*x+beta)) (ONNX HardSigmoid)";
  let arguments = (ins Telar_FloatTensor:$input,
                       DefaultValuedAttr<F32Attr, "0.2">:$alpha,
                       DefaultValuedAttr<F32Attr, "0.5">:$beta);
}
def Telar_ThresholdedReluOp : Telar_UnaryOp<"thresholded_relu"> {
  let summary = "x>alpha ? x : 0 (ONNX ThresholdedRelu)";
  let arguments = (ins Telar_FloatTensor:$input,
                       DefaultValuedAttr<F32Attr, "1.0">:$alpha);
}
def Telar_ShrinkOp : Telar_UnaryOp<"shrink", Telar_NumericTensor> {
  let summary = "x<-lambd ? x+bias : x>lambd ? x-bias : 0 (ONNX Shrink)";
  let arguments = (ins Telar_NumericTensor:$input,
                       DefaultValuedAttr<F32Attr, "0.0">:$bias,
                       DefaultValuedAttr<F32Attr, "0.5">:$lambd);
}
def Telar_ClipOp : Telar_UnaryOp<"clip", Telar_NumericTensor> {
  let summary = "min(max(x, min), max) (ONNX Clip, min/max as attributes in every opset)";
  let description = [{
    Clamps every element. As in ONNX, when `min` exceeds `max` every element
    becomes `max`.

    ```mlir
    %y = telar.clip %x {min = 0.0 : f64, max = 6.0 : f64} : (tensor<4xf32>) -> tensor<4xf32>
    ```
  }];
  let arguments = (ins Telar_NumericTensor:$input,
                       OptionalAttr<F64Attr>:$min, OptionalAttr<F64Attr>:$max);
  let hasFolder = 1;
}

/// Unary predicates.
def Telar_IsNaNOp : Telar_Op<"is_nan"> {
  let summary = "x is NaN (ONNX IsNaN)";
  let description = "Elementwise NaN test; the result is `i1`.";
  let arguments = (ins Telar_FloatTensor:$input);
  let results = (outs Telar_BoolTensor:$output);
  let inferBody = "return ::mlir::telar::inferWithElementType(adaptor.getInput().getType(), ::mlir::IntegerType::get(context, 1), inferredReturnTypes);";
  let ruleBody = "return ::mlir::telar::elementwiseRule(getOperation());";
}
def Telar_IsInfOp : Telar_Op<"is_inf"> {
  let summary = "x is +/-inf (ONNX IsInf)";
  let description = "Elementwise infinity test; the result is `i1`.";
  let arguments = (ins Telar_FloatTensor:$input,
                       DefaultValuedAttr<BoolAttr, "true">:$detect_positive,
                       DefaultValuedAttr<BoolAttr, "true">:$detect_negative);
  let results = (outs Telar_BoolTensor:$output);
  let inferBody = "return ::mlir::telar::inferWithElementType(adaptor.getInput().getType(), ::mlir::IntegerType::get(context, 1), inferredReturnTypes);";
  let ruleBody = "return ::mlir::telar::elementwiseRule(getOperation());";
}

def Telar_CastOp : Telar_Op<"cast"> {
  let summary = "Element type conversion (ONNX Cast, CastLike)";
  let description = [{
    Converts every element to the element type `to`. Float to integer rounds
    toward zero; any nonzero value becomes `true` for `i1`.

    ```mlir
    %y = telar.cast %x {to = i64} : (tensor<4xf32>) -> tensor<4xi64>
    ```
  }];
  let arguments = (ins Telar_Tensor:$input, TypeAttr:$to,
                       DefaultValuedAttr<BoolAttr, "true">:$saturate);
  let results = (outs Telar_Tensor:$output);
  let inferBody = "return ::mlir::telar::inferWithElementType(adaptor.getInput().getType(), adaptor.getTo(), inferredReturnTypes);";
  let ruleBody = "return ::mlir::telar::elementwiseRule(getOperation());";
  let hasFolder = 1;
}

//===----------------------------------------------------------------------===//
// Elementwise binary and ternary, with ONNX (numpy) broadcasting
//===----------------------------------------------------------------------===//

class Telar_BinaryOp<string mnemonic, Type operandType = Telar_NumericTensor,
                     bit isPredicate = 0, list<Trait> traits = []>
    : Telar_Op<mnemonic, traits> {
  let arguments = (ins operandType:$lhs, operandType:$rhs);
  let results = (outs !if(isPredicate, Telar_BoolTensor, operandType):$output);
  let inferBody = !if(isPredicate,
    "return ::mlir::telar::inferBroadcast(location, {adaptor.getLhs().getType(), adaptor.getRhs().getType()}, ::mlir::IntegerType::get(context, 1), inferredReturnTypes);",
    "return ::mlir::telar::inferBroadcast(location, {adaptor.getLhs().getType(), adaptor.getRhs().getType()}, nullptr, inferredReturnTypes);");
  let ruleBody = "return ::mlir::telar::elementwiseRule(getOperation());";
  let hasFolder = 1;
  let description = "Elementwise `" # mnemonic # "` with ONNX (numpy-style) "
    # "broadcasting; both operands have the same element type"
    # !if(isPredicate, " and the result is `i1`", "") # ".\n\n```mlir\n%z = telar."
    # mnemonic # " %x, %y : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3x"
    # !if(isPredicate, "i1", "f32") # ">\n```";
}

def Telar_AddOp : Telar_BinaryOp<"add", Telar_NumericTensor, 0, [Commutative]> { let summary = "x + y (ONNX Add, Sum)"; let ruleBody = "return ::mlir::telar::withPartialAlike(::mlir::telar::elementwiseRule(getOperation()), ::mlir::telar::kPartialSum);"; }
def Telar_SubOp : Telar_BinaryOp<"sub"> { let summary = "x - y (ONNX Sub)"; let ruleBody = "return ::mlir::telar::withPartialAlike(::mlir::telar::elementwiseRule(getOperation()), ::mlir::telar::kPartialSum);"; }
def Telar_MulOp : Telar_BinaryOp<"mul", Telar_NumericTensor, 0, [Commutative]> { let summary = "x * y (ONNX Mul)"; let ruleBody = "return ::mlir::telar::withOnePartial(::mlir::telar::elementwiseRule(getOperation()), ::mlir::telar::kPartialSum);"; }
def Telar_DivOp : Telar_BinaryOp<"div"> { let summary = "x / y, integer division truncates (ONNX Div)"; let ruleBody = "return ::mlir::telar::withOnePartial(::mlir::telar::elementwiseRule(getOperation()), ::mlir::telar::kPartialSum, {0});"; }
def Telar_PowOp : Telar_BinaryOp<"pow"> { let summary = "x ^ y (ONNX Pow, exponent cast to the base type)"; }
def Telar_MaxOp : Telar_BinaryOp<"max", Telar_NumericTensor, 0, [Commutative]> { let summary = "max(x, y), NaN-propagating (ONNX Max)"; let ruleBody = "return ::mlir::telar::withPartialAlike(::mlir::telar::elementwiseRule(getOperation()), ::mlir::telar::getPartialKindBit(::mlir::telar::FactorKind::Max));"; }
def Telar_MinOp : Telar_BinaryOp<"min", Telar_NumericTensor, 0, [Commutative]> { let summary = "min(x, y), NaN-propagating (ONNX Min)"; let ruleBody = "return ::mlir::telar::withPartialAlike(::mlir::telar::elementwiseRule(getOperation()), ::mlir::telar::getPartialKindBit(::mlir::telar::FactorKind::Min));"; }
def Telar_PReluOp : Telar_BinaryOp<"prelu", Telar_FloatTensor> { let summary = "x<0 ? slope*x : x (ONNX PRelu)"; }
def Telar_AndOp : Telar_BinaryOp<"and", Telar_BoolTensor, 0, [Commutative]> { let summary = "logical and (ONNX And)"; }
def Telar_OrOp : Telar_BinaryOp<"or", Telar_BoolTensor, 0, [Commutative]> { let summary = "logical or (ONNX Or)"; }
def Telar_XorOp : Telar_BinaryOp<"xor", Telar_BoolTensor, 0, [Commutative]> { let summary = "logical xor (ONNX Xor)"; }
def Telar_BitwiseAndOp : Telar_BinaryOp<"bitwise_and", Telar_IntTensor, 0, [Commutative]> { let summary = "x & y (ONNX BitwiseAnd)"; }
def Telar_BitwiseOrOp : Telar_BinaryOp<"bitwise_or", Telar_IntTensor, 0, [Commutative]> { let summary = "x | y (ONNX BitwiseOr)"; }
def Telar_BitwiseXorOp : Telar_BinaryOp<"bitwise_xor", Telar_IntTensor, 0, [Commutative]> { let summary = "x ^ y (ONNX BitwiseXor)"; }
def Telar_EqualOp : Telar_BinaryOp<"equal", Telar_Tensor, 1, [Commutative]> { let summary = "x == y (ONNX Equal)"; }
def Telar_LessOp : Telar_BinaryOp<"less", Telar_NumericTensor, 1> { let summary = "x < y (ONNX Less)"; }
def Telar_LessEqualOp : Telar_BinaryOp<"less_equal", Telar_NumericTensor, 1> { let summary = "x <= y (ONNX LessOrEqual)"; }
def Telar_GreaterOp : Telar_BinaryOp<"greater", Telar_NumericTensor, 1> { let summary = "x > y (ONNX Greater)"; }
def Telar_GreaterEqualOp : Telar_BinaryOp<"greater_equal", Telar_NumericTensor, 1> { let summary = "x >= y (ONNX GreaterOrEqual)"; }

def Telar_ModOp : Telar_BinaryOp<"mod"> {
  let summary = "remainder (ONNX Mod): sign of divisor, or of dividend when `fmod`";
  let arguments = (ins Telar_NumericTensor:$lhs, Telar_NumericTensor:$rhs,
                       DefaultValuedAttr<BoolAttr, "false">:$fmod);
}
def Telar_BitShiftOp : Telar_BinaryOp<"bit_shift", Telar_IntTensor> {
  let summary = "x << y or x >> y (ONNX BitShift)";
  let arguments = (ins Telar_IntTensor:$lhs, Telar_IntTensor:$rhs,
                       DefaultValuedAttr<BoolAttr, "true">:$left);
}

def Telar_WhereOp : Telar_Op<"where"> {
  let summary = "cond ? x : y with broadcasting (ONNX Where)";
  let description = [{
    ```mlir
    %z = telar.where %c, %x, %y : (tensor<4x1xi1>, tensor<4x8xf32>, tensor<f32>) -> tensor<4x8xf32>
    ```
  }];
  let arguments = (ins Telar_BoolTensor:$condition, Telar_Tensor:$lhs, Telar_Tensor:$rhs);
  let results = (outs Telar_Tensor:$output);
  let inferBody = "return ::mlir::telar::inferWhere(location, adaptor.getCondition().getType(), adaptor.getLhs().getType(), adaptor.getRhs().getType(), inferredReturnTypes);";
  let ruleBody = "return ::mlir::telar::elementwiseRule(getOperation());";
  let hasFolder = 1;
}

//===----------------------------------------------------------------------===//
// Reductions
//===----------------------------------------------------------------------===//

/// `partial`: the partial kinds the op takes its input with (a C++
/// PartialKindSet; empty: none), the reduction the op commutes with.
class Telar_ReduceOp<string mnemonic, string kind, string partial = "">
    : Telar_Op<mnemonic> {
  defvar operandType = Telar_Tensor;
  let arguments = (ins operandType:$input,
                       DefaultValuedAttr<DenseI64ArrayAttr, "{}">:$axes,
                       DefaultValuedAttr<BoolAttr, "true">:$keepdims);
  let results = (outs operandType:$output);
  let inferBody = "return ::mlir::telar::inferReduce(location, adaptor.getInput().getType(), adaptor.getAxes(), adaptor.getKeepdims(), nullptr, inferredReturnTypes);";
  defvar rule = "::mlir::telar::reduceRule(getOperation(), getAxes(), getKeepdims(), ::mlir::telar::FactorKind::" # kind # ")";
  let ruleBody = !if(!empty(partial), "return " # rule # ";",
                     "return ::mlir::telar::withPartialAlike(" # rule # ", " # partial # ");");
  let description = "Reduces `input` over `axes` (all axes when empty; negative "
    # "axes count from the back), keeping reduced axes as size 1 when `keepdims`. "
    # "Opsets that pass axes as an input import to the same op. In the "
    # "sharding rule the reduced axes are reductions of the op's kind (sum, "
    # "max, min, mean, prod; mean averages the partial means of equal blocks), "
    # "or must stay whole where partial results do not combine (reduce_l2, "
    # "reduce_log_sum, reduce_log_sum_exp, reduce_mean of integers). "
    # "reduce_sum, reduce_mean, reduce_max and reduce_min take a partial "
    # "input of sums (of maxima, minima) and give partial results "
    # "(`partial_alike`).\n\n```mlir\n"
    # "%y = telar." # mnemonic # " %x {axes = array<i64: 1>, keepdims = false} "
    # ": (tensor<2x3xf32>) -> tensor<2xf32>\n```";
}

def Telar_ReduceSumOp : Telar_ReduceOp<"reduce_sum", "Sum", "::mlir::telar::kPartialSum"> { let summary = "sum (ONNX ReduceSum, GlobalAveragePool's sum)"; }
def Telar_ReduceMeanOp : Telar_ReduceOp<"reduce_mean", "Mean", "::mlir::telar::kPartialSum"> { let summary = "mean (ONNX ReduceMean, GlobalAveragePool)"; }
def Telar_ReduceMaxOp : Telar_ReduceOp<"reduce_max", "Max", "::mlir::telar::getPartialKindBit(::mlir::telar::FactorKind::Max)"> { let summary = "max (ONNX ReduceMax, GlobalMaxPool)"; }
def Telar_ReduceMinOp : Telar_ReduceOp<"reduce_min", "Min", "::mlir::telar::getPartialKindBit(::mlir::telar::FactorKind::Min)"> { let summary = "min (ONNX ReduceMin)"; }
def Telar_ReduceProdOp : Telar_ReduceOp<"reduce_prod", "Prod"> { let summary = "product (ONNX ReduceProd)"; }
def Telar_ReduceL1Op : Telar_ReduceOp<"reduce_l1", "Sum"> { let summary = "sum of |x| (ONNX ReduceL1)"; }
def Telar_ReduceL2Op : Telar_ReduceOp<"reduce_l2", "NeedReplication"> { let summary = "sqrt of sum of x^2 (ONNX ReduceL2)"; }
def Telar_ReduceSumSquareOp : Telar_ReduceOp<"reduce_sum_square", "Sum"> { let summary = "sum of x^2 (ONNX ReduceSumSquare)"; }
def Telar_ReduceLogSumOp : Telar_ReduceOp<"reduce_log_sum", "NeedReplication"> { let summary = "log of sum (ONNX ReduceLogSum)"; }
def Telar_ReduceLogSumExpOp : Telar_ReduceOp<"reduce_log_sum_exp", "NeedReplication"> { let summary = "log of sum of e^x (ONNX ReduceLogSumExp)"; }

class Telar_ArgReduceOp<string mnemonic> : Telar_Op<mnemonic> {
  let arguments = (ins Telar_Tensor:$input,
                       DefaultValuedAttr<I64Attr, "0">:$axis,
                       DefaultValuedAttr<BoolAttr, "true">:$keepdims,
                       DefaultValuedAttr<BoolAttr, "false">:$select_last_index);
  let results = (outs RankedTensorOf<[I64]>:$output);
  let inferBody = "return ::mlir::telar::inferArgReduce(location, adaptor.getInput().getType(), adaptor.getAxis(), adaptor.getKeepdims(), inferredReturnTypes);";
  // Per-block indices cannot be combined without the values: the reduced
  // axis must stay whole.
  let ruleBody = "return ::mlir::telar::reduceRule(getOperation(), {static_cast<int64_t>(getAxis())}, getKeepdims(), ::mlir::telar::FactorKind::NeedReplication);";
  let description = "Index (`i64`) of the " # !if(!eq(mnemonic, "arg_max"), "largest", "smallest")
    # " element along `axis`. The axis must stay whole in the sharding rule: "
    # "blocks' indices do not combine without their values.\n\n```mlir\n%i = telar." # mnemonic
    # " %x {axis = 1 : i64, keepdims = false} : (tensor<2x3xf32>) -> tensor<2xi64>\n```";
}
def Telar_ArgMaxOp : Telar_ArgReduceOp<"arg_max"> { let summary = "index of the maximum (ONNX ArgMax)"; }
def Telar_ArgMinOp : Telar_ArgReduceOp<"arg_min"> { let summary = "index of the minimum (ONNX ArgMin)"; }

//===----------------------------------------------------------------------===//
// Normalisation and softmax
//===----------------------------------------------------------------------===//

class Telar_AxisOp<string mnemonic> : Telar_Op<mnemonic> {
  let arguments = (ins Telar_FloatTensor:$input, DefaultValuedAttr<I64Attr, "-1">:$axis);
  let results = (outs Telar_FloatTensor:$output);
  let inferBody = [{
    if (::mlir::failed(::mlir::telar::checkAxis(location, adaptor.getInput().getType(), adaptor.getAxis())))
      return ::mlir::failure();
    inferredReturnTypes.push_back(adaptor.getInput().getType());
    return ::mlir::success();
  }];
  let ruleBody = "return ::mlir::telar::keepWholeRule(getOperation(), {static_cast<int64_t>(getAxis())});";
  let description = "Normalises along one `axis` (opset-13 semantics; older "
    # "opsets' 2-D coercion is rewritten by the importer).\n\n```mlir\n%y = telar."
    # mnemonic # " %x {axis = -1 : i64} : (tensor<2x8xf32>) -> tensor<2x8xf32>\n```";
}
def Telar_SoftmaxOp : Telar_AxisOp<"softmax"> { let summary = "softmax along axis (ONNX Softmax)"; }
def Telar_LogSoftmaxOp : Telar_AxisOp<"log_softmax"> { let summary = "log-softmax along axis (ONNX LogSoftmax)"; }
def Telar_HardmaxOp : Telar_AxisOp<"hardmax"> { let summary = "one-hot of the first maximum along axis (ONNX Hardmax)"; }
def Telar_LpNormOp : Telar_AxisOp<"lp_norm"> {
  let summary = "x / ||x||_p along axis (ONNX LpNormalization)";
  let arguments = (ins Telar_FloatTensor:$input, DefaultValuedAttr<I64Attr, "-1">:$axis,
                       DefaultValuedAttr<I64Attr, "2">:$p);
  let hasVerifier = 1;
}

def Telar_LayerNormOp : Telar_Op<"layer_norm"> {
  let summary = "layer normalisation over the axes from `axis` on (ONNX LayerNormalization)";
  let description = [{
    `(x - mean) / sqrt(var + epsilon) * scale + bias`, statistics over the
    trailing axes starting at `axis`. `scale` and `bias` broadcast against
    those trailing axes.

    ```mlir
    %y = telar.layer_norm %x, %g, %b {axis = -1 : i64, epsilon = 1.0e-05 : f32}
        : (tensor<2x16x64xf32>, tensor<64xf32>, tensor<64xf32>) -> tensor<2x16x64xf32>
    ```
  }];
  let arguments = (ins Telar_FloatTensor:$input, Telar_FloatTensor:$scale,
                       Optional<Telar_FloatTensor>:$bias,
                       DefaultValuedAttr<I64Attr, "-1">:$axis,
                       DefaultValuedAttr<F32Attr, "1.0e-05">:$epsilon);
  let results = (outs Telar_FloatTensor:$output);
}

def Telar_RMSNormOp : Telar_Op<"rms_norm"> {
  let summary = "root-mean-square normalisation (ONNX RMSNormalization, Llama's RMSNorm)";
  let description = [{
    `x / sqrt(mean(x^2) + epsilon) * scale` over the trailing axes starting at
    `axis`.

    ```mlir
    %y = telar.rms_norm %x, %g {axis = -1 : i64, epsilon = 1.0e-06 : f32}
        : (tensor<2x16x64xf32>, tensor<64xf32>) -> tensor<2x16x64xf32>
    ```
  }];
  let arguments = (ins Telar_FloatTensor:$input, Telar_FloatTensor:$scale,
                       DefaultValuedAttr<I64Attr, "-1">:$axis,
                       DefaultValuedAttr<F32Attr, "1.0e-05">:$epsilon);
  let results = (outs Telar_FloatTensor:$output);
}

def Telar_BatchNormOp : Telar_Op<"batch_norm"> {
  let summary = "inference-mode batch normalisation (ONNX BatchNormalization)";
  let description = [{
    `(x - mean) / sqrt(var + epsilon) * scale + bias` per channel (axis 1),
    using the running statistics.

    ```mlir
    %y = telar.batch_norm %x, %s, %b, %m, %v {epsilon = 1.0e-05 : f32}
        : (tensor<1x8x4x4xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>) -> tensor<1x8x4x4xf32>
    ```
  }];
  let arguments = (ins Telar_FloatTensor:$input, Telar_FloatTensor:$scale,
                       Telar_FloatTensor:$bias, Telar_FloatTensor:$mean,
                       Telar_FloatTensor:$variance,
                       DefaultValuedAttr<F32Attr, "1.0e-05">:$epsilon);
  let results = (outs Telar_FloatTensor:$output);
}

def Telar_InstanceNormOp : Telar_Op<"instance_norm"> {
  let summary = "instance normalisation (ONNX InstanceNormalization)";
  let description = [{
    Normalises each (sample, channel) over the spatial axes, then scales and
    shifts per channel.

    ```mlir
    %y = telar.instance_norm %x, %s, %b {epsilon = 1.0e-05 : f32}
        : (tensor<1x8x4x4xf32>, tensor<8xf32>, tensor<8xf32>) -> tensor<1x8x4x4xf32>
    ```
  }];
  let arguments = (ins Telar_FloatTensor:$input, Telar_FloatTensor:$scale,
                       Telar_FloatTensor:$bias,
                       DefaultValuedAttr<F32Attr, "1.0e-05">:$epsilon);
  let results = (outs Telar_FloatTensor:$output);
}

def Telar_GroupNormOp : Telar_Op<"group_norm"> {
  let summary = "group normalisation (ONNX GroupNormalization, opset 21 per-channel scale)";
  let description = [{
    Normalises each sample over `num_groups` groups of channels, then scales
    and shifts per channel.

    ```mlir
    %y = telar.group_norm %x, %s, %b {num_groups = 2 : i64, epsilon = 1.0e-05 : f32}
        : (tensor<1x8x4x4xf32>, tensor<8xf32>, tensor<8xf32>) -> tensor<1x8x4x4xf32>
    ```
  }];
  let arguments = (ins Telar_FloatTensor:$input, Telar_FloatTensor:$scale,
                       Telar_FloatTensor:$bias, I64Attr:$num_groups,
                       DefaultValuedAttr<F32Attr, "1.0e-05">:$epsilon);
  let results = (outs Telar_FloatTensor:$output);
}

def Telar_MeanVarianceNormOp : Telar_Op<"mean_variance_norm"> {
  let summary = "(x - mean) / std over `axes` (ONNX MeanVarianceNormalization)";
  let description = [{
    ```mlir
    %y = telar.mean_variance_norm %x {axes = array<i64: 0, 2, 3>}
        : (tensor<1x8x4x4xf32>) -> tensor<1x8x4x4xf32>
    ```
  }];
  let arguments = (ins Telar_FloatTensor:$input, DenseI64ArrayAttr:$axes);
  let results = (outs Telar_FloatTensor:$output);
}

def Telar_LRNOp : Telar_Op<"lrn"> {
  let summary = "local response normalisation across channels (ONNX LRN)";
  let description = [{
    ```mlir
    %y = telar.lrn %x {size = 3 : i64, alpha = 1.0e-04 : f32, beta = 7.5e-01 : f32, bias = 1.0 : f32}
        : (tensor<1x8x4x4xf32>) -> tensor<1x8x4x4xf32>
    ```
  }];
  let arguments = (ins Telar_FloatTensor:$input, I64Attr:$size,
                       DefaultValuedAttr<F32Attr, "1.0e-04">:$alpha,
                       DefaultValuedAttr<F32Attr, "0.75">:$beta,
                       DefaultValuedAttr<F32Attr, "1.0">:$bias);
  let results = (outs Telar_FloatTensor:$output);
}

//===----------------------------------------------------------------------===//
// Contractions, convolution and pooling
//===----------------------------------------------------------------------===//

def Telar_MatMulOp : Telar_Op<"matmul"> {
  let summary = "matrix product with numpy semantics (ONNX MatMul, the core of Gemm)";
  let description = [{
    Batched matrix product: leading (batch) dimensions broadcast; a 1-D
    operand is promoted to a matrix and the added dimension is removed from
    the result.

    ```mlir
    %c = telar.matmul %a, %b : (tensor<4x16x64xf32>, tensor<64x32xf32>) -> tensor<4x16x32xf32>
    ```
  }];
  let arguments = (ins Telar_NumericTensor:$lhs, Telar_NumericTensor:$rhs);
  let results = (outs Telar_NumericTensor:$output);
}

def Telar_EinsumOp : Telar_Op<"einsum"> {
  let summary = "Einstein summation with an explicit, parsed equation (ONNX Einsum)";
  let description = [{
    The equation is a `#telar.einsum` attribute: one list of labels per
    input, one label per dimension, and the output's labels. The importer
    parses ONNX's string once into it (implicit outputs made explicit,
    `...` expanded into letters for the inputs' ranks); inference, the
    sharding rule and the lowering read the labels. Labels on the output
    are parallel, the others are summed; a label repeated within an input
    takes that input's diagonal.

    ```mlir
    %y = telar.einsum %x, %w {equation = #telar.einsum<[b, s, d], [e, d, h] -> [b, s, e, h]>}
        : (tensor<2x8x16xf32>, tensor<4x16x32xf32>) -> tensor<2x8x4x32xf32>
    ```
  }];
  let arguments = (ins Variadic<Telar_Tensor>:$inputs,
                       Telar_EinsumEquationAttr:$equation);
  let results = (outs Telar_Tensor:$output);
}

def Telar_ConvOp : Telar_Op<"conv"> {
  let summary = "N-d grouped convolution, NCHW (ONNX Conv)";
  let description = [{
    `pads` lists the begin pads of every spatial axis, then the end pads;
    `auto_pad` is resolved to explicit pads by the importer. Depthwise
    convolution is `group` equal to the input channels.

    ```mlir
    %y = telar.conv %x, %w, %b {strides = array<i64: 2, 2>, pads = array<i64: 1, 1, 1, 1>,
                                 dilations = array<i64: 1, 1>, group = 1 : i64}
        : (tensor<1x3x32x32xf32>, tensor<16x3x3x3xf32>, tensor<16xf32>) -> tensor<1x16x16x16xf32>
    ```
  }];
  let arguments = (ins Telar_FloatTensor:$input, Telar_FloatTensor:$weight,
                       Optional<Telar_FloatTensor>:$bias,
                       DenseI64ArrayAttr:$strides, DenseI64ArrayAttr:$pads,
                       DenseI64ArrayAttr:$dilations,
                       DefaultValuedAttr<I64Attr, "1">:$group);
  let results = (outs Telar_FloatTensor:$output);
}

def Telar_ConvTransposeOp : Telar_Op<"conv_transpose"> {
  let summary = "N-d transposed convolution, NCHW (ONNX ConvTranspose)";
  let description = [{
    Output size per spatial axis: `stride*(in-1) + output_padding +
    ((kernel-1)*dilation+1) - pad_begin - pad_end`; `output_shape` is resolved
    to pads by the importer.

    ```mlir
    %y = telar.conv_transpose %x, %w {strides = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>,
                                      dilations = array<i64: 1, 1>, output_padding = array<i64: 0, 0>,
                                      group = 1 : i64}
        : (tensor<1x8x4x4xf32>, tensor<8x4x2x2xf32>) -> tensor<1x4x8x8xf32>
    ```
  }];
  let arguments = (ins Telar_FloatTensor:$input, Telar_FloatTensor:$weight,
                       Optional<Telar_FloatTensor>:$bias,
                       DenseI64ArrayAttr:$strides, DenseI64ArrayAttr:$pads,
                       DenseI64ArrayAttr:$dilations, DenseI64ArrayAttr:$output_padding,
                       DefaultValuedAttr<I64Attr, "1">:$group);
  let results = (outs Telar_FloatTensor:$output);
}

class Telar_PoolOp<string mnemonic> : Telar_Op<mnemonic> {
  let arguments = (ins Telar_FloatTensor:$input, DenseI64ArrayAttr:$kernel_shape,
                       DenseI64ArrayAttr:$strides, DenseI64ArrayAttr:$pads,
                       DenseI64ArrayAttr:$dilations,
                       DefaultValuedAttr<BoolAttr, "false">:$ceil_mode);
  let results = (outs Telar_FloatTensor:$output);
  let inferBody = "return ::mlir::telar::inferPool(location, adaptor.getInput().getType(), adaptor.getKernelShape(), adaptor.getStrides(), adaptor.getPads(), adaptor.getDilations(), adaptor.getCeilMode(), inferredReturnTypes);";
  let ruleBody = "return ::mlir::telar::windowRule(getOperation(), getKernelShape(), getStrides(), getPads(), getDilations());";
}
def Telar_MaxPoolOp : Telar_PoolOp<"max_pool"> {
  let summary = "max pooling, NCHW (ONNX MaxPool; GlobalMaxPool becomes reduce_max)";
  let description = [{
    Takes floats and, as ONNX MaxPool does, 8-bit integers (and wider);
    padding never wins the maximum.

    ```mlir
    %y = telar.max_pool %x {kernel_shape = array<i64: 3, 3>, strides = array<i64: 2, 2>,
                            pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>}
        : (tensor<1x8x32x32xf32>) -> tensor<1x8x16x16xf32>
    ```
  }];
  let arguments = (ins Telar_NumericTensor:$input, DenseI64ArrayAttr:$kernel_shape,
                       DenseI64ArrayAttr:$strides, DenseI64ArrayAttr:$pads,
                       DenseI64ArrayAttr:$dilations,
                       DefaultValuedAttr<BoolAttr, "false">:$ceil_mode);
  let results = (outs Telar_NumericTensor:$output);
}
def Telar_AveragePoolOp : Telar_PoolOp<"average_pool"> {
  let summary = "average pooling, NCHW (ONNX AveragePool; GlobalAveragePool becomes reduce_mean)";
  let description = [{
    Padding counts toward the divisor only when `count_include_pad`.

    ```mlir
    %y = telar.average_pool %x {kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>,
                                pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>}
        : (tensor<1x8x32x32xf32>) -> tensor<1x8x16x16xf32>
    ```
  }];
  let arguments = (ins Telar_FloatTensor:$input, DenseI64ArrayAttr:$kernel_shape,
                       DenseI64ArrayAttr:$strides, DenseI64ArrayAttr:$pads,
                       DenseI64ArrayAttr:$dilations,
                       DefaultValuedAttr<BoolAttr, "false">:$ceil_mode,
                       DefaultValuedAttr<BoolAttr, "false">:$count_include_pad);
}

//===----------------------------------------------------------------------===//
// Shape and data movement
//===----------------------------------------------------------------------===//

def Telar_ReshapeOp : Telar_Op<"reshape"> {
  let summary = "reshape to a static shape (ONNX Reshape, Flatten)";
  let description = [{
    The target shape is an attribute with every dimension resolved (ONNX's
    `0` and `-1` are resolved by the importer). Its sharding rule writes
    every input and result dimension as a product of factors when the
    reshape only merges and splits dimensions (`2x12` to `6x4` is
    `([i, (j, k)]) -> ([(i, j), k])`); any other reshape keeps the input
    whole.

    ```mlir
    %y = telar.reshape %x {shape = array<i64: 2, 8, 4, 16>} : (tensor<2x8x64xf32>) -> tensor<2x8x4x16xf32>
    ```
  }];
  let arguments = (ins Telar_Tensor:$input, DenseI64ArrayAttr:$shape);
  let results = (outs Telar_Tensor:$output);
  let hasFolder = 1;
}

def Telar_TransposeOp : Telar_Op<"transpose"> {
  let summary = "permute dimensions (ONNX Transpose)";
  let description = [{
    Result dimension `i` is input dimension `perm[i]`.

    ```mlir
    %y = telar.transpose %x {perm = array<i64: 0, 2, 1, 3>} : (tensor<2x8x4x16xf32>) -> tensor<2x4x8x16xf32>
    ```
  }];
  let arguments = (ins Telar_Tensor:$input, DenseI64ArrayAttr:$perm);
  let results = (outs Telar_Tensor:$output);
  let hasFolder = 1;
  // Transposes of transposes compose (the fold); the transpose of a matrix
  // product of a transpose, (X^T Y)^T, becomes Y^T X (the weight gradient
  // of a linear layer without transposing the weight-sized product).
  let hasCanonicalizer = 1;
}

def Telar_SqueezeOp : Telar_Op<"squeeze"> {
  let summary = "remove size-1 dimensions (ONNX Squeeze, axes as input or attribute)";
  let description = [{
    Removes the listed axes (all size-1 axes when `axes` is empty).

    ```mlir
    %y = telar.squeeze %x {axes = array<i64: 1>} : (tensor<2x1x8xf32>) -> tensor<2x8xf32>
    ```
  }];
  let arguments = (ins Telar_Tensor:$input, DefaultValuedAttr<DenseI64ArrayAttr, "{}">:$axes);
  let results = (outs Telar_Tensor:$output);
  let hasFolder = 1;
}

def Telar_UnsqueezeOp : Telar_Op<"unsqueeze"> {
  let summary = "insert size-1 dimensions (ONNX Unsqueeze, axes as input or attribute)";
  let description = [{
    `axes` index the result.

    ```mlir
    %y = telar.unsqueeze %x {axes = array<i64: 0, 2>} : (tensor<8xf32>) -> tensor<1x8x1xf32>
    ```
  }];
  let arguments = (ins Telar_Tensor:$input, DenseI64ArrayAttr:$axes);
  let results = (outs Telar_Tensor:$output);
  let hasFolder = 1;
}

def Telar_ConcatOp : Telar_Op<"concat"> {
  let summary = "concatenate along an axis (ONNX Concat)";
  let description = [{
    ```mlir
    %y = telar.concat %a, %b {axis = 1 : i64} : (tensor<2x3xf32>, tensor<2x5xf32>) -> tensor<2x8xf32>
    ```
  }];
  let arguments = (ins Variadic<Telar_Tensor>:$inputs, I64Attr:$axis);
  let results = (outs Telar_Tensor:$output);
  let hasFolder = 1;
}

def Telar_SplitOp : Telar_Op<"split"> {
  let summary = "split along an axis into pieces of given sizes (ONNX Split, sizes as input or attribute)";
  let description = [{
    ```mlir
    %a, %b = telar.split %x {axis = 1 : i64, sizes = array<i64: 3, 5>} : (tensor<2x8xf32>) -> (tensor<2x3xf32>, tensor<2x5xf32>)
    ```
  }];
  let arguments = (ins Telar_Tensor:$input, I64Attr:$axis, DenseI64ArrayAttr:$sizes);
  let results = (outs Variadic<Telar_Tensor>:$outputs);
}

def Telar_SliceOp : Telar_Op<"slice"> {
  let summary = "strided slice with one (start, end, step) per listed axis (ONNX Slice)";
  let description = [{
    Starts, ends and steps are attributes, clamped to the dimension as ONNX
    specifies; axes not listed are kept whole. A negative step walks
    backward.

    ```mlir
    %y = telar.slice %x {axes = array<i64: 1>, starts = array<i64: 0>, ends = array<i64: 4>, steps = array<i64: 2>}
        : (tensor<2x8xf32>) -> tensor<2x2xf32>
    ```
  }];
  let arguments = (ins Telar_Tensor:$input, DenseI64ArrayAttr:$axes,
                       DenseI64ArrayAttr:$starts, DenseI64ArrayAttr:$ends,
                       DenseI64ArrayAttr:$steps);
  let results = (outs Telar_Tensor:$output);
  let hasFolder = 1;
}

def Telar_GatherOp : Telar_Op<"gather"> {
  let summary = "gather slices along an axis by index (ONNX Gather: embeddings)";
  let description = [{
    Result shape: `data.shape[:axis] + indices.shape + data.shape[axis+1:]`.
    Negative indices count from the back.

    ```mlir
    %e = telar.gather %table, %ids {axis = 0 : i64} : (tensor<1000x64xf32>, tensor<2x16xi64>) -> tensor<2x16x64xf32>
    ```
  }];
  let arguments = (ins Telar_Tensor:$data, Telar_IndexTensor:$indices,
                       DefaultValuedAttr<I64Attr, "0">:$axis);
  let results = (outs Telar_Tensor:$output);
  let hasFolder = 1;
}

def Telar_GatherElementsOp : Telar_Op<"gather_elements"> {
  let summary = "elementwise gather along an axis (ONNX GatherElements)";
  let description = [{
    ```mlir
    %y = telar.gather_elements %x, %i {axis = 1 : i64} : (tensor<4x8xf32>, tensor<4x2xi64>) -> tensor<4x2xf32>
    ```
  }];
  let arguments = (ins Telar_Tensor:$data, Telar_IndexTensor:$indices,
                       DefaultValuedAttr<I64Attr, "0">:$axis);
  let results = (outs Telar_Tensor:$output);
}

def Telar_GatherNDOp : Telar_Op<"gather_nd"> {
  let summary = "gather by index tuples (ONNX GatherND)";
  let description = [{
    ```mlir
    %y = telar.gather_nd %x, %i {batch_dims = 0 : i64} : (tensor<4x8xf32>, tensor<3x2xi64>) -> tensor<3xf32>
    ```
  }];
  let arguments = (ins Telar_Tensor:$data, RankedTensorOf<[I64]>:$indices,
                       DefaultValuedAttr<I64Attr, "0">:$batch_dims);
  let results = (outs Telar_Tensor:$output);
}

def Telar_ScatterElementsOp : Telar_Op<"scatter_elements"> {
  let summary = "elementwise scatter along an axis (ONNX ScatterElements, Scatter)";
  let description = [{
    `reduction` is one of `none`, `add`, `mul`, `max`, `min`.

    ```mlir
    %y = telar.scatter_elements %x, %i, %u {axis = 1 : i64, reduction = "add"}
        : (tensor<4x8xf32>, tensor<4x2xi64>, tensor<4x2xf32>) -> tensor<4x8xf32>
    ```
  }];
  let arguments = (ins Telar_Tensor:$data, Telar_IndexTensor:$indices, Telar_Tensor:$updates,
                       DefaultValuedAttr<I64Attr, "0">:$axis,
                       DefaultValuedStrAttr<StrAttr, "none">:$reduction);
  let results = (outs Telar_Tensor:$output);
}

def Telar_ScatterNDOp : Telar_Op<"scatter_nd"> {
  let summary = "scatter by index tuples (ONNX ScatterND)";
  let description = [{
    ```mlir
    %y = telar.scatter_nd %x, %i, %u {reduction = "none"}
        : (tensor<4x8xf32>, tensor<2x1xi64>, tensor<2x8xf32>) -> tensor<4x8xf32>
    ```
  }];
  let arguments = (ins Telar_Tensor:$data, RankedTensorOf<[I64]>:$indices, Telar_Tensor:$updates,
                       DefaultValuedStrAttr<StrAttr, "none">:$reduction);
  let results = (outs Telar_Tensor:$output);
}

def Telar_ExpandOp : Telar_Op<"expand"> {
  let summary = "broadcast to a shape (ONNX Expand)";
  let description = [{
    The result shape is the broadcast of the input shape with `shape`.

    ```mlir
    %y = telar.expand %x {shape = array<i64: 4, 1, 8>} : (tensor<3x1xf32>) -> tensor<4x3x8xf32>
    ```
  }];
  let arguments = (ins Telar_Tensor:$input, DenseI64ArrayAttr:$shape);
  let results = (outs Telar_Tensor:$output);
  let hasFolder = 1;
}

def Telar_TileOp : Telar_Op<"tile"> {
  let summary = "repeat the tensor along each axis (ONNX Tile)";
  let description = [{
    ```mlir
    %y = telar.tile %x {repeats = array<i64: 2, 3>} : (tensor<2x4xf32>) -> tensor<4x12xf32>
    ```
  }];
  let arguments = (ins Telar_Tensor:$input, DenseI64ArrayAttr:$repeats);
  let results = (outs Telar_Tensor:$output);
}

def Telar_PadOp : Telar_Op<"pad"> {
  let summary = "pad every axis (ONNX Pad, pads/value/axes as inputs or attributes)";
  let description = [{
    `pads` holds the begin pads of every axis, then the end pads (negative
    pads crop). `mode` is `constant`, `reflect`, `edge` or `wrap`.

    ```mlir
    %y = telar.pad %x {pads = array<i64: 0, 1, 0, 1>, mode = "constant", value = 0.0 : f64}
        : (tensor<2x4xf32>) -> tensor<2x6xf32>
    ```
  }];
  let arguments = (ins Telar_Tensor:$input, DenseI64ArrayAttr:$pads,
                       DefaultValuedStrAttr<StrAttr, "constant">:$mode,
                       DefaultValuedAttr<F64Attr, "0.0">:$value);
  let results = (outs Telar_Tensor:$output);
  let hasVerifier = 1;
}

def Telar_OneHotOp : Telar_Op<"one_hot"> {
  let summary = "one-hot encoding (ONNX OneHot)";
  let description = [{
    `values` holds `[off, on]`; a new axis of size `depth` is inserted at
    `axis`. Negative indices count from `depth`.

    ```mlir
    %y = telar.one_hot %i, %v {depth = 8 : i64, axis = -1 : i64} : (tensor<4xi64>, tensor<2xf32>) -> tensor<4x8xf32>
    ```
  }];
  let arguments = (ins Telar_IntTensor:$indices, Telar_Tensor:$values, I64Attr:$depth,
                       DefaultValuedAttr<I64Attr, "-1">:$axis);
  let results = (outs Telar_Tensor:$output);
}

def Telar_TopKOp : Telar_Op<"top_k"> {
  let summary = "k largest or smallest along an axis, with indices (ONNX TopK, k as input or attribute)";
  let description = [{
    ```mlir
    %v, %i = telar.top_k %x {k = 2 : i64, axis = -1 : i64, largest = true, sorted = true}
        : (tensor<4x8xf32>) -> (tensor<4x2xf32>, tensor<4x2xi64>)
    ```
  }];
  let arguments = (ins Telar_Tensor:$input, I64Attr:$k,
                       DefaultValuedAttr<I64Attr, "-1">:$axis,
                       DefaultValuedAttr<BoolAttr, "true">:$largest,
                       DefaultValuedAttr<BoolAttr, "true">:$sorted);
  let results = (outs Telar_Tensor:$values, RankedTensorOf<[I64]>:$indices);
}

def Telar_CumSumOp : Telar_Op<"cum_sum"> {
  let summary = "cumulative sum along an axis (ONNX CumSum)";
  let description = [{
    ```mlir
    %y = telar.cum_sum %x {axis = 1 : i64, exclusive = false, reverse = false} : (tensor<4x8xf32>) -> tensor<4x8xf32>
    ```
  }];
  let arguments = (ins Telar_Tensor:$input, I64Attr:$axis,
                       DefaultValuedAttr<BoolAttr, "false">:$exclusive,
                       DefaultValuedAttr<BoolAttr, "false">:$reverse);
  let results = (outs Telar_Tensor:$output);
  let inferBody = [{
    if (::mlir::failed(::mlir::telar::checkAxis(location, adaptor.getInput().getType(), adaptor.getAxis())))
      return ::mlir::failure();
    inferredReturnTypes.push_back(adaptor.getInput().getType());
    return ::mlir::success();
  }];
  let ruleBody = "return ::mlir::telar::keepWholeRule(getOperation(), {static_cast<int64_t>(getAxis())});";
}

def Telar_TriluOp : Telar_Op<"trilu"> {
  let summary = "keep the upper or lower triangle of the last two axes (ONNX Trilu)";
  let description = [{
    ```mlir
    %y = telar.trilu %x {upper = true, k = 0 : i64} : (tensor<8x8xf32>) -> tensor<8x8xf32>
    ```
  }];
  let arguments = (ins Telar_Tensor:$input, DefaultValuedAttr<BoolAttr, "true">:$upper,
                       DefaultValuedAttr<I64Attr, "0">:$k);
  let results = (outs Telar_Tensor:$output);
  let inferBody = [{
    auto type = ::llvm::cast<::mlir::RankedTensorType>(adaptor.getInput().getType());
    if (type.getRank() < 2)
      return ::mlir::emitOptionalError(location, "trilu needs a tensor of rank >= 2, got rank ", type.getRank());
    inferredReturnTypes.push_back(type);
    return ::mlir::success();
  }];
  let ruleBody = "return ::mlir::telar::keepWholeRule(getOperation(), {-2, -1});";
}

def Telar_ResizeOp : Telar_Op<"resize"> {
  let summary = "resize spatial axes by interpolation (ONNX Resize, Upsample)";
  let description = [{
    The output size is the result type; `scales` (one per axis) are kept
    because coordinate transforms use them. `mode` is `nearest`, `linear` or
    `cubic`.

    ```mlir
    %y = telar.resize %x {scales = array<f32: 1.0, 1.0, 2.0, 2.0>, sizes = array<i64: 1, 8, 8, 8>,
                          mode = "nearest", coordinate_transformation_mode = "asymmetric",
                          nearest_mode = "floor", cubic_coeff_a = -7.5e-01 : f32,
                          exclude_outside = false, extrapolation_value = 0.0 : f32}
        : (tensor<1x8x4x4xf32>) -> tensor<1x8x8x8xf32>
    ```
  }];
  let arguments = (ins Telar_Tensor:$input, DenseF32ArrayAttr:$scales,
                       DenseI64ArrayAttr:$sizes,
                       DefaultValuedStrAttr<StrAttr, "nearest">:$mode,
                       DefaultValuedStrAttr<StrAttr, "half_pixel">:$coordinate_transformation_mode,
                       DefaultValuedStrAttr<StrAttr, "round_prefer_floor">:$nearest_mode,
                       DefaultValuedAttr<F32Attr, "-0.75">:$cubic_coeff_a,
                       DefaultValuedAttr<BoolAttr, "false">:$exclude_outside,
                       DefaultValuedAttr<F32Attr, "0.0">:$extrapolation_value);
  let results = (outs Telar_Tensor:$output);
  let hasVerifier = 1;
}

def Telar_DepthToSpaceOp : Telar_Op<"depth_to_space"> {
  let summary = "move channel blocks to spatial blocks (ONNX DepthToSpace)";
  let description = [{
    ```mlir
    %y = telar.depth_to_space %x {blocksize = 2 : i64, mode = "DCR"} : (tensor<1x8x2x2xf32>) -> tensor<1x2x4x4xf32>
    ```
  }];
  let arguments = (ins Telar_Tensor:$input, I64Attr:$blocksize,
                       DefaultValuedStrAttr<StrAttr, "DCR">:$mode);
  let results = (outs Telar_Tensor:$output);
}

def Telar_SpaceToDepthOp : Telar_Op<"space_to_depth"> {
  let summary = "move spatial blocks to channels (ONNX SpaceToDepth)";
  let description = [{
    ```mlir
    %y = telar.space_to_depth %x {blocksize = 2 : i64} : (tensor<1x2x4x4xf32>) -> tensor<1x8x2x2xf32>
    ```
  }];
  let arguments = (ins Telar_Tensor:$input, I64Attr:$blocksize);
  let results = (outs Telar_Tensor:$output);
}

def Telar_RotaryEmbeddingOp : Telar_Op<"rotary_embedding"> {
  let summary = "rotary position embedding (ONNX RotaryEmbedding, Llama's RoPE)";
  let description = [{
    Rotates pairs of features of `input` (`[batch, heads, seq, head_dim]`, or
    `[batch, seq, hidden]` with `num_heads`) by the angles whose cosines and
    sines are given, indexed by `position_ids` when present. Pairs are
    adjacent when `interleaved`, else the two halves. Only the first
    `rotary_embedding_dim` features rotate (all when 0); the caches' last
    dim C holds the angles, `rotary_embedding_dim / 2 <= C <= head_dim / 2`,
    of which the first `rotary_embedding_dim / 2` are used. Caches are
    `[batch or 1, seq, C]`, or `[max_position, C]` with `position_ids`.

    ```mlir
    %y = telar.rotary_embedding %x, %cos, %sin {interleaved = false, rotary_embedding_dim = 0 : i64,
                                                num_heads = 0 : i64}
        : (tensor<2x4x8x16xf32>, tensor<2x8x8xf32>, tensor<2x8x8xf32>) -> tensor<2x4x8x16xf32>
    ```
  }];
  let arguments = (ins Telar_FloatTensor:$input, Telar_FloatTensor:$cos_cache,
                       Telar_FloatTensor:$sin_cache, Optional<RankedTensorOf<[I64]>>:$position_ids,
                       DefaultValuedAttr<BoolAttr, "false">:$interleaved,
                       DefaultValuedAttr<I64Attr, "0">:$rotary_embedding_dim,
                       DefaultValuedAttr<I64Attr, "0">:$num_heads);
  let results = (outs Telar_FloatTensor:$output);
}

#endif // TELAR_OPS_TD
