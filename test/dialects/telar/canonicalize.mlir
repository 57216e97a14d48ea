// RUN: telar-opt %s -split-input-file -canonicalize | FileCheck %s

// Folders of the telar ops (dialects/Telar/Folders.cpp): shape math on small
// dense constants becomes one telar.constant; identities fold to the input;
// division by zero, inexact casts to floats, resources and big tensors are
// left alone.

// CHECK-LABEL: func @add_broadcast
// CHECK-NEXT: %[[C:.*]] = telar.constant dense<{{\[}}[11, 22, 33], [14, 25, 36]]> : tensor<2x3xi64>
// CHECK-NEXT: return %[[C]]
func.func @add_broadcast() -> tensor<2x3xi64> {
  %a = telar.constant dense<[[1, 2, 3], [4, 5, 6]]> : tensor<2x3xi64>
  %b = telar.constant dense<[10, 20, 30]> : tensor<3xi64>
  %0 = telar.add %a, %b : (tensor<2x3xi64>, tensor<3xi64>) -> tensor<2x3xi64>
  return %0 : tensor<2x3xi64>
}

// -----

// Both operands broadcast: (2x1) - (3) -> 2x3.
// CHECK-LABEL: func @sub_broadcast_both
// CHECK-NEXT: %[[C:.*]] = telar.constant dense<{{\[}}[-9, -19, -29], [-8, -18, -28]]> : tensor<2x3xi64>
// CHECK-NEXT: return %[[C]]
func.func @sub_broadcast_both() -> tensor<2x3xi64> {
  %a = telar.constant dense<[[1], [2]]> : tensor<2x1xi64>
  %b = telar.constant dense<[10, 20, 30]> : tensor<3xi64>
  %0 = telar.sub %a, %b : (tensor<2x1xi64>, tensor<3xi64>) -> tensor<2x3xi64>
  return %0 : tensor<2x3xi64>
}

// -----

// CHECK-LABEL: func @mul_scalar
// CHECK-NEXT: %[[C:.*]] = telar.constant dense<[2, 4, -6]> : tensor<3xi32>
// CHECK-NEXT: return %[[C]]
func.func @mul_scalar() -> tensor<3xi32> {
  %a = telar.constant dense<2> : tensor<i32>
  %b = telar.constant dense<[1, 2, -3]> : tensor<3xi32>
  %0 = telar.mul %a, %b : (tensor<i32>, tensor<3xi32>) -> tensor<3xi32>
  return %0 : tensor<3xi32>
}

// -----

// Signed integer division truncates toward zero.
// CHECK-LABEL: func @div_signed
// CHECK-NEXT: %[[C:.*]] = telar.constant dense<[3, -3, -3, 3]> : tensor<4xi64>
// CHECK-NEXT: return %[[C]]
func.func @div_signed() -> tensor<4xi64> {
  %a = telar.constant dense<[7, -7, 7, -7]> : tensor<4xi64>
  %b = telar.constant dense<[2, 2, -2, -2]> : tensor<4xi64>
  %0 = telar.div %a, %b : (tensor<4xi64>, tensor<4xi64>) -> tensor<4xi64>
  return %0 : tensor<4xi64>
}

// -----

// 200 is not -56 for ui8.
// CHECK-LABEL: func @div_unsigned
// CHECK-NEXT: %[[C:.*]] = telar.constant dense<[66, 3]> : tensor<2xui8>
// CHECK-NEXT: return %[[C]]
func.func @div_unsigned() -> tensor<2xui8> {
  %a = telar.constant dense<[200, 7]> : tensor<2xui8>
  %b = telar.constant dense<[3, 2]> : tensor<2xui8>
  %0 = telar.div %a, %b : (tensor<2xui8>, tensor<2xui8>) -> tensor<2xui8>
  return %0 : tensor<2xui8>
}

// -----

// Integer division by zero is left to run time.
// CHECK-LABEL: func @div_by_zero_stays
// CHECK-DAG: %[[A:.*]] = telar.constant dense<[7, 8]> : tensor<2xi64>
// CHECK-DAG: %[[B:.*]] = telar.constant dense<[2, 0]> : tensor<2xi64>
// CHECK: %[[D:.*]] = telar.div %[[A]], %[[B]]
// CHECK-NEXT: return %[[D]]
func.func @div_by_zero_stays() -> tensor<2xi64> {
  %a = telar.constant dense<[7, 8]> : tensor<2xi64>
  %b = telar.constant dense<[2, 0]> : tensor<2xi64>
  %0 = telar.div %a, %b : (tensor<2xi64>, tensor<2xi64>) -> tensor<2xi64>
  return %0 : tensor<2xi64>
}

// -----

// CHECK-LABEL: func @float_arith
// ((1/4 + 0.5) * 0.5 - 0.5) * 4 + 0.5 = 0 and ((3/2 + 0.5) * 0.5 - 0.5) * 2 + 0.5 = 1.5
// CHECK-NEXT: %[[C:.*]] = telar.constant dense<[0.000000e+00, 1.500000e+00]> : tensor<2xf32>
// CHECK-NEXT: return %[[C]]
func.func @float_arith() -> tensor<2xf32> {
  %a = telar.constant dense<[1.0, 3.0]> : tensor<2xf32>
  %b = telar.constant dense<[4.0, 2.0]> : tensor<2xf32>
  %h = telar.constant dense<0.5> : tensor<f32>
  %0 = telar.div %a, %b : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  %1 = telar.add %0, %h : (tensor<2xf32>, tensor<f32>) -> tensor<2xf32>
  %2 = telar.mul %1, %h : (tensor<2xf32>, tensor<f32>) -> tensor<2xf32>
  %3 = telar.sub %2, %h : (tensor<2xf32>, tensor<f32>) -> tensor<2xf32>
  %4 = telar.mul %3, %b : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  %5 = telar.add %4, %h : (tensor<2xf32>, tensor<f32>) -> tensor<2xf32>
  return %5 : tensor<2xf32>
}

// -----

// CHECK-LABEL: func @max_min
// CHECK-DAG: %[[MAX:.*]] = telar.constant dense<[3, 5, 4]> : tensor<3xi64>
// CHECK-DAG: %[[MIN:.*]] = telar.constant dense<[-1, 2, 4]> : tensor<3xi64>
// CHECK-DAG: %[[UMAX:.*]] = telar.constant dense<[200, 2]> : tensor<2xui8>
// CHECK: return %[[MAX]], %[[MIN]], %[[UMAX]]
func.func @max_min() -> (tensor<3xi64>, tensor<3xi64>, tensor<2xui8>) {
  %a = telar.constant dense<[3, 2, 4]> : tensor<3xi64>
  %b = telar.constant dense<[-1, 5, 4]> : tensor<3xi64>
  %0 = telar.max %a, %b : (tensor<3xi64>, tensor<3xi64>) -> tensor<3xi64>
  %1 = telar.min %a, %b : (tensor<3xi64>, tensor<3xi64>) -> tensor<3xi64>
  %u = telar.constant dense<[200, 1]> : tensor<2xui8>
  %v = telar.constant dense<[100, 2]> : tensor<2xui8>
  %2 = telar.max %u, %v : (tensor<2xui8>, tensor<2xui8>) -> tensor<2xui8>
  return %0, %1, %2 : tensor<3xi64>, tensor<3xi64>, tensor<2xui8>
}

// -----

// Comparisons fold to i1 constants with the broadcast shape.
// CHECK-LABEL: func @comparisons
// CHECK-DAG: %[[EQ:.*]] = telar.constant dense<[false, true, false]> : tensor<3xi1>
// CHECK-DAG: %[[LT:.*]] = telar.constant dense<[true, false, false]> : tensor<3xi1>
// CHECK-DAG: %[[LE:.*]] = telar.constant dense<[true, true, false]> : tensor<3xi1>
// CHECK-DAG: %[[GT:.*]] = telar.constant dense<[false, false, true]> : tensor<3xi1>
// CHECK-DAG: %[[GE:.*]] = telar.constant dense<[false, true, true]> : tensor<3xi1>
// CHECK: return %[[EQ]], %[[LT]], %[[LE]], %[[GT]], %[[GE]]
func.func @comparisons() -> (tensor<3xi1>, tensor<3xi1>, tensor<3xi1>, tensor<3xi1>, tensor<3xi1>) {
  %a = telar.constant dense<[1, 2, 3]> : tensor<3xi64>
  %b = telar.constant dense<2> : tensor<i64>
  %0 = telar.equal %a, %b : (tensor<3xi64>, tensor<i64>) -> tensor<3xi1>
  %1 = telar.less %a, %b : (tensor<3xi64>, tensor<i64>) -> tensor<3xi1>
  %2 = telar.less_equal %a, %b : (tensor<3xi64>, tensor<i64>) -> tensor<3xi1>
  %3 = telar.greater %a, %b : (tensor<3xi64>, tensor<i64>) -> tensor<3xi1>
  %4 = telar.greater_equal %a, %b : (tensor<3xi64>, tensor<i64>) -> tensor<3xi1>
  return %0, %1, %2, %3, %4 : tensor<3xi1>, tensor<3xi1>, tensor<3xi1>, tensor<3xi1>, tensor<3xi1>
}

// -----

// CHECK-LABEL: func @comparisons_float_unsigned_broadcast
// NaN is unordered: not equal to itself, not less-or-equal either; and
// 200 > 100 as ui8. The three equal results are one constant after CSE.
// CHECK-DAG: %[[C:.*]] = telar.constant dense<[true, false]> : tensor<2xi1>
// CHECK-DAG: %[[B:.*]] = telar.constant dense<{{\[}}[false, true, true], [false, false, true]]> : tensor<2x3xi1>
// CHECK: return %[[C]], %[[C]], %[[C]], %[[B]]
func.func @comparisons_float_unsigned_broadcast() -> (tensor<2xi1>, tensor<2xi1>, tensor<2xi1>, tensor<2x3xi1>) {
  %f = telar.constant dense<[1.0, 0x7FC00000]> : tensor<2xf32>
  %0 = telar.equal %f, %f : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xi1>
  %1 = telar.less_equal %f, %f : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xi1>
  %u = telar.constant dense<[200, 1]> : tensor<2xui8>
  %v = telar.constant dense<[100, 2]> : tensor<2xui8>
  %2 = telar.greater %u, %v : (tensor<2xui8>, tensor<2xui8>) -> tensor<2xi1>
  %c = telar.constant dense<[[1], [2]]> : tensor<2x1xi32>
  %r = telar.constant dense<[0, 2, 3]> : tensor<3xi32>
  %3 = telar.less %c, %r : (tensor<2x1xi32>, tensor<3xi32>) -> tensor<2x3xi1>
  return %0, %1, %2, %3 : tensor<2xi1>, tensor<2xi1>, tensor<2xi1>, tensor<2x3xi1>
}

// -----

// Booleans compare as 0/1 (i1 is not a signed -1/0), and cast to 0/1.
// CHECK-LABEL: func @bool_equal_and_cast
// CHECK-DAG: %[[EQ:.*]] = telar.constant dense<false> : tensor<2xi1>
// CHECK-DAG: %[[CAST:.*]] = telar.constant dense<[1, 0]> : tensor<2xi32>
// CHECK: return %[[EQ]], %[[CAST]]
func.func @bool_equal_and_cast() -> (tensor<2xi1>, tensor<2xi32>) {
  %t = telar.constant dense<[true, false]> : tensor<2xi1>
  %f = telar.constant dense<[false, true]> : tensor<2xi1>
  %0 = telar.equal %t, %f : (tensor<2xi1>, tensor<2xi1>) -> tensor<2xi1>
  %1 = telar.cast %t {to = i32} : (tensor<2xi1>) -> tensor<2xi32>
  return %0, %1 : tensor<2xi1>, tensor<2xi32>
}

// -----

// CHECK-LABEL: func @logical
// CHECK-DAG: %[[AND:.*]] = telar.constant dense<[true, false, false, false]> : tensor<4xi1>
// CHECK-DAG: %[[OR:.*]] = telar.constant dense<[true, true, true, false]> : tensor<4xi1>
// CHECK-DAG: %[[XOR:.*]] = telar.constant dense<[false, true, true, false]> : tensor<4xi1>
// CHECK: return %[[AND]], %[[OR]], %[[XOR]]
func.func @logical() -> (tensor<4xi1>, tensor<4xi1>, tensor<4xi1>) {
  %a = telar.constant dense<[true, true, false, false]> : tensor<4xi1>
  %b = telar.constant dense<[true, false, true, false]> : tensor<4xi1>
  %0 = telar.and %a, %b : (tensor<4xi1>, tensor<4xi1>) -> tensor<4xi1>
  %1 = telar.or %a, %b : (tensor<4xi1>, tensor<4xi1>) -> tensor<4xi1>
  %2 = telar.xor %a, %b : (tensor<4xi1>, tensor<4xi1>) -> tensor<4xi1>
  return %0, %1, %2 : tensor<4xi1>, tensor<4xi1>, tensor<4xi1>
}

// -----

// Pow and the bitwise ops have no folder.
// CHECK-LABEL: func @no_folder_ops
// CHECK: telar.pow
// CHECK: telar.bitwise_and
// CHECK: telar.bit_shift
func.func @no_folder_ops() -> (tensor<2xf32>, tensor<2xi64>, tensor<2xi64>) {
  %a = telar.constant dense<[7, 8]> : tensor<2xi64>
  %b = telar.constant dense<[2, 3]> : tensor<2xi64>
  %f = telar.constant dense<[2.0, 3.0]> : tensor<2xf32>
  %1 = telar.pow %f, %f : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  %2 = telar.bitwise_and %a, %b : (tensor<2xi64>, tensor<2xi64>) -> tensor<2xi64>
  %3 = telar.bit_shift %a, %b : (tensor<2xi64>, tensor<2xi64>) -> tensor<2xi64>
  return %1, %2, %3 : tensor<2xf32>, tensor<2xi64>, tensor<2xi64>
}

// -----

// Integer mod takes the divisor's sign, or the dividend's with fmod; mod by
// zero stays. Neg, abs and not fold on integer constants.
// CHECK-LABEL: func @int_unary_and_mod
// CHECK-DAG: %[[MOD:.*]] = telar.constant dense<[1, -1, -1, 1]> : tensor<4xi64>
// CHECK-DAG: %[[FMOD:.*]] = telar.constant dense<[1, -1, 1, -1]> : tensor<4xi64>
// CHECK-DAG: %[[NEG:.*]] = telar.constant dense<[-7, 7, -1, 1]> : tensor<4xi64>
// CHECK-DAG: %[[ABS:.*]] = telar.constant dense<[7, 7, 1, 1]> : tensor<4xi64>
// CHECK-DAG: %[[NOT:.*]] = telar.constant dense<[false, true]> : tensor<2xi1>
// CHECK-DAG: %[[BYZERO:.*]] = telar.mod
// CHECK: return %[[MOD]], %[[FMOD]], %[[NEG]], %[[ABS]], %[[NOT]], %[[BYZERO]]
func.func @int_unary_and_mod() -> (tensor<4xi64>, tensor<4xi64>, tensor<4xi64>, tensor<4xi64>, tensor<2xi1>, tensor<4xi64>) {
  %a = telar.constant dense<[7, -7, 1, -1]> : tensor<4xi64>
  %b = telar.constant dense<[3, -3, -2, 2]> : tensor<4xi64>
  %z = telar.constant dense<[0, 1, 1, 1]> : tensor<4xi64>
  %t = telar.constant dense<[true, false]> : tensor<2xi1>
  %0 = telar.mod %a, %b : (tensor<4xi64>, tensor<4xi64>) -> tensor<4xi64>
  %1 = telar.mod %a, %b {fmod = true} : (tensor<4xi64>, tensor<4xi64>) -> tensor<4xi64>
  %2 = telar.neg %a : (tensor<4xi64>) -> tensor<4xi64>
  %3 = telar.abs %a : (tensor<4xi64>) -> tensor<4xi64>
  %4 = telar.not %t : (tensor<2xi1>) -> tensor<2xi1>
  %5 = telar.mod %a, %z : (tensor<4xi64>, tensor<4xi64>) -> tensor<4xi64>
  return %0, %1, %2, %3, %4, %5 : tensor<4xi64>, tensor<4xi64>, tensor<4xi64>, tensor<4xi64>, tensor<2xi1>, tensor<4xi64>
}

// -----

// CHECK-LABEL: func @where
// CHECK-DAG: %[[W0:.*]] = telar.constant dense<[1, -1, 3]> : tensor<3xi64>
// A splat condition picks a whole side.
// CHECK-DAG: %[[W1:.*]] = telar.constant dense<5.000000e-01> : tensor<3xf32>
// CHECK-NOT: telar.where
// CHECK: return %[[W0]], %[[W1]]
func.func @where() -> (tensor<3xi64>, tensor<3xf32>) {
  %c = telar.constant dense<[true, false, true]> : tensor<3xi1>
  %a = telar.constant dense<[1, 2, 3]> : tensor<3xi64>
  %b = telar.constant dense<-1> : tensor<i64>
  %0 = telar.where %c, %a, %b : (tensor<3xi1>, tensor<3xi64>, tensor<i64>) -> tensor<3xi64>
  %t = telar.constant dense<false> : tensor<i1>
  %f = telar.constant dense<[1.0, 2.0, 3.0]> : tensor<3xf32>
  %g = telar.constant dense<0.5> : tensor<3xf32>
  %1 = telar.where %t, %f, %g : (tensor<i1>, tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  return %0, %1 : tensor<3xi64>, tensor<3xf32>
}

// -----

// CHECK-LABEL: func @cast_int
// Truncation wraps, i1 is "nonzero", i1 and unsigned sources zero-extend.
// CHECK-DAG: %[[I32:.*]] = telar.constant dense<[-1, 0, 300]> : tensor<3xi32>
// CHECK-DAG: %[[I1:.*]] = telar.constant dense<[true, false, true]> : tensor<3xi1>
// CHECK-DAG: %[[BACK:.*]] = telar.constant dense<[1, 0, 1]> : tensor<3xi64>
// CHECK-DAG: %[[U8:.*]] = telar.constant dense<[255, 0, 44]> : tensor<3xui8>
// CHECK-DAG: %[[ZEXT:.*]] = telar.constant dense<[255, 1]> : tensor<2xi64>
// CHECK: return %[[I32]], %[[I1]], %[[BACK]], %[[U8]], %[[ZEXT]]
func.func @cast_int() -> (tensor<3xi32>, tensor<3xi1>, tensor<3xi64>, tensor<3xui8>, tensor<2xi64>) {
  %a = telar.constant dense<[-1, 0, 300]> : tensor<3xi64>
  %0 = telar.cast %a {to = i32} : (tensor<3xi64>) -> tensor<3xi32>
  %1 = telar.cast %a {to = i1} : (tensor<3xi64>) -> tensor<3xi1>
  %2 = telar.cast %1 {to = i64} : (tensor<3xi1>) -> tensor<3xi64>
  %3 = telar.cast %a {to = ui8} : (tensor<3xi64>) -> tensor<3xui8>
  %u = telar.constant dense<[255, 1]> : tensor<2xui8>
  %4 = telar.cast %u {to = i64} : (tensor<2xui8>) -> tensor<2xi64>
  return %0, %1, %2, %3, %4 : tensor<3xi32>, tensor<3xi1>, tensor<3xi64>, tensor<3xui8>, tensor<2xi64>
}

// -----

// Float to integer casts truncate, as the runtime's do; a value out of the
// integer's range (poison at run time) keeps the cast. An integer that
// converts exactly to a float folds.
// CHECK-LABEL: func @cast_float
// CHECK-DAG: %[[C0:.*]] = telar.constant dense<[-1.000000e+00, 0.000000e+00, 3.000000e+02]> : tensor<3xf32>
// CHECK-DAG: %[[C1:.*]] = telar.constant dense<[1, -2]> : tensor<2xi64>
// CHECK-DAG: %[[BIG:.*]] = telar.constant dense<[1.000000e+00, 1.000000e+20]> : tensor<2xf32>
// CHECK-DAG: %[[C2:.*]] = telar.cast %[[BIG]] {to = i64} : (tensor<2xf32>) -> tensor<2xi64>
// CHECK: return %[[C0]], %[[C1]], %[[C2]]
func.func @cast_float() -> (tensor<3xf32>, tensor<2xi64>, tensor<2xi64>) {
  %a = telar.constant dense<[-1, 0, 300]> : tensor<3xi64>
  %0 = telar.cast %a {to = f32} : (tensor<3xi64>) -> tensor<3xf32>
  %f = telar.constant dense<[1.5, -2.5]> : tensor<2xf32>
  %1 = telar.cast %f {to = i64} : (tensor<2xf32>) -> tensor<2xi64>
  %big = telar.constant dense<[1.0, 1.0e20]> : tensor<2xf32>
  %2 = telar.cast %big {to = i64} : (tensor<2xf32>) -> tensor<2xi64>
  return %0, %1, %2 : tensor<3xf32>, tensor<2xi64>, tensor<2xi64>
}

// -----

// Clip folds on integers (whole bounds; min > max gives max everywhere)
// and floats (NaN stays NaN); a fractional bound on integers stays.
// CHECK-LABEL: func @clip
// CHECK-DAG: %[[I:.*]] = telar.constant dense<[2, 2, 5, 7, 7]> : tensor<5xi64>
// CHECK-DAG: %[[LO:.*]] = telar.constant dense<[2, 2, 5, 9, 12]> : tensor<5xi64>
// CHECK-DAG: %[[SWAP:.*]] = telar.constant dense<1> : tensor<5xi64>
// CHECK-DAG: %[[F:.*]] = telar.constant dense<[-1.000000e+00, 5.000000e-01, 0x7FC00000]> : tensor<3xf32>
// CHECK-DAG: telar.clip %{{.*}} {min = 1.500000e+00 : f64} : (tensor<5xi64>) -> tensor<5xi64>
// CHECK: return %[[I]], %[[LO]], %[[SWAP]], %[[F]]
func.func @clip() -> (tensor<5xi64>, tensor<5xi64>, tensor<5xi64>, tensor<3xf32>, tensor<5xi64>) {
  %a = telar.constant dense<[-4, 0, 5, 9, 12]> : tensor<5xi64>
  %0 = telar.clip %a {min = 2.0 : f64, max = 7.0 : f64} : (tensor<5xi64>) -> tensor<5xi64>
  %1 = telar.clip %a {min = 2.0 : f64} : (tensor<5xi64>) -> tensor<5xi64>
  %2 = telar.clip %a {min = 3.0 : f64, max = 1.0 : f64} : (tensor<5xi64>) -> tensor<5xi64>
  %f = telar.constant dense<[-3.0, 0.5, 0x7FC00000]> : tensor<3xf32>
  %3 = telar.clip %f {min = -1.0 : f64, max = 1.0 : f64} : (tensor<3xf32>) -> tensor<3xf32>
  %4 = telar.clip %a {min = 1.5 : f64} : (tensor<5xi64>) -> tensor<5xi64>
  return %0, %1, %2, %3, %4 : tensor<5xi64>, tensor<5xi64>, tensor<5xi64>, tensor<3xf32>, tensor<5xi64>
}

// -----

// Log folds with the C library's logf (which the generated code calls).
// CHECK-LABEL: func @log
// CHECK-DAG: %[[L:.*]] = telar.constant dense<[0.000000e+00, 0.99999994, 0xFF800000, 2.77258873]> : tensor<4xf32>
// CHECK: return %[[L]]
func.func @log() -> tensor<4xf32> {
  %a = telar.constant dense<[1.0, 2.71828183, 0.0, 16.0]> : tensor<4xf32>
  %0 = telar.log %a : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// CHECK-LABEL: func @reshape_squeeze_unsqueeze
// CHECK-DAG: %[[R:.*]] = telar.constant dense<{{\[}}[1, 2], [3, 4], [5, 6]]> : tensor<3x2xi64>
// CHECK-DAG: %[[S:.*]] = telar.constant dense<[1, 2, 3]> : tensor<3xi64>
// CHECK-DAG: %[[U:.*]] = telar.constant dense<{{\[}}[1], [2], [3]]> : tensor<3x1xi64>
// CHECK-NOT: telar.reshape
// CHECK-NOT: telar.squeeze
// CHECK-NOT: telar.unsqueeze
// CHECK: return %[[R]], %[[S]], %[[U]]
func.func @reshape_squeeze_unsqueeze() -> (tensor<3x2xi64>, tensor<3xi64>, tensor<3x1xi64>) {
  %a = telar.constant dense<[[1, 2, 3], [4, 5, 6]]> : tensor<2x3xi64>
  %0 = telar.reshape %a {shape = array<i64: 3, 2>} : (tensor<2x3xi64>) -> tensor<3x2xi64>
  %b = telar.constant dense<[[1, 2, 3]]> : tensor<1x3xi64>
  %1 = telar.squeeze %b {axes = array<i64: 0>} : (tensor<1x3xi64>) -> tensor<3xi64>
  %2 = telar.unsqueeze %1 {axes = array<i64: -1>} : (tensor<3xi64>) -> tensor<3x1xi64>
  return %0, %1, %2 : tensor<3x2xi64>, tensor<3xi64>, tensor<3x1xi64>
}

// -----

// Expand folds splats only.
// CHECK-LABEL: func @expand
// CHECK-DAG: %[[SPLAT:.*]] = telar.constant dense<7> : tensor<2x3xi64>
// CHECK-DAG: %[[B:.*]] = telar.constant dense<[1, 2, 3]> : tensor<3xi64>
// CHECK: %[[E:.*]] = telar.expand %[[B]] {shape = array<i64: 2, 1>} : (tensor<3xi64>) -> tensor<2x3xi64>
// CHECK: return %[[SPLAT]], %[[E]]
func.func @expand() -> (tensor<2x3xi64>, tensor<2x3xi64>) {
  %a = telar.constant dense<7> : tensor<1xi64>
  %0 = telar.expand %a {shape = array<i64: 2, 3>} : (tensor<1xi64>) -> tensor<2x3xi64>
  %b = telar.constant dense<[1, 2, 3]> : tensor<3xi64>
  %1 = telar.expand %b {shape = array<i64: 2, 1>} : (tensor<3xi64>) -> tensor<2x3xi64>
  return %0, %1 : tensor<2x3xi64>, tensor<2x3xi64>
}

// -----

// CHECK-LABEL: func @transpose
// CHECK-DAG: %[[T2:.*]] = telar.constant dense<{{\[}}[1, 4], [2, 5], [3, 6]]> : tensor<3x2xi64>
// Result [k][i][j] = in[i][j][k]: in = [[[0,1],[2,3],[4,5]]] (1x3x2) -> 2x1x3.
// CHECK-DAG: %[[T3:.*]] = telar.constant dense<{{\[}}{{\[}}[0, 2, 4]], {{\[}}[1, 3, 5]]]> : tensor<2x1x3xi64>
// CHECK-DAG: %[[SPLAT:.*]] = telar.constant dense<1.000000e+00> : tensor<3x2xf32>
// CHECK-NOT: telar.transpose
// CHECK: return %[[T2]], %[[T3]], %[[SPLAT]]
func.func @transpose() -> (tensor<3x2xi64>, tensor<2x1x3xi64>, tensor<3x2xf32>) {
  %a = telar.constant dense<[[1, 2, 3], [4, 5, 6]]> : tensor<2x3xi64>
  %0 = telar.transpose %a {perm = array<i64: 1, 0>} : (tensor<2x3xi64>) -> tensor<3x2xi64>
  %b = telar.constant dense<[[[0, 1], [2, 3], [4, 5]]]> : tensor<1x3x2xi64>
  %1 = telar.transpose %b {perm = array<i64: 2, 0, 1>} : (tensor<1x3x2xi64>) -> tensor<2x1x3xi64>
  %c = telar.constant dense<1.0> : tensor<2x3xf32>
  %2 = telar.transpose %c {perm = array<i64: 1, 0>} : (tensor<2x3xf32>) -> tensor<3x2xf32>
  return %0, %1, %2 : tensor<3x2xi64>, tensor<2x1x3xi64>, tensor<3x2xf32>
}

// -----

// CHECK-LABEL: func @slice
// Reverse the last axis with a negative step.
// CHECK-DAG: %[[REV:.*]] = telar.constant dense<{{\[}}[3, 2, 1], [6, 5, 4]]> : tensor<2x3xi64>
// Row 1, columns 2 and 0 (start 2, end -4 clamped to -1, step -2).
// CHECK-DAG: %[[PICK:.*]] = telar.constant dense<{{\[}}[6, 4]]> : tensor<1x2xi64>
// Negative start, end past the dimension.
// CHECK-DAG: %[[TAIL:.*]] = telar.constant dense<{{\[}}[2, 3], [5, 6]]> : tensor<2x2xi64>
// Step 2: columns 0 and 2.
// CHECK-DAG: %[[STEP:.*]] = telar.constant dense<{{\[}}[1, 3], [4, 6]]> : tensor<2x2xi64>
// CHECK-NOT: telar.slice
// CHECK: return %[[REV]], %[[PICK]], %[[TAIL]], %[[STEP]]
func.func @slice() -> (tensor<2x3xi64>, tensor<1x2xi64>, tensor<2x2xi64>, tensor<2x2xi64>) {
  %a = telar.constant dense<[[1, 2, 3], [4, 5, 6]]> : tensor<2x3xi64>
  %0 = telar.slice %a {axes = array<i64: 1>, starts = array<i64: -1>, ends = array<i64: -100>, steps = array<i64: -1>} : (tensor<2x3xi64>) -> tensor<2x3xi64>
  %1 = telar.slice %a {axes = array<i64: 0, 1>, starts = array<i64: 1, 2>, ends = array<i64: 2, -4>, steps = array<i64: 1, -2>} : (tensor<2x3xi64>) -> tensor<1x2xi64>
  %2 = telar.slice %a {axes = array<i64: -1>, starts = array<i64: -2>, ends = array<i64: 100>, steps = array<i64: 1>} : (tensor<2x3xi64>) -> tensor<2x2xi64>
  %3 = telar.slice %a {axes = array<i64: 1>, starts = array<i64: 0>, ends = array<i64: 3>, steps = array<i64: 2>} : (tensor<2x3xi64>) -> tensor<2x2xi64>
  return %0, %1, %2, %3 : tensor<2x3xi64>, tensor<1x2xi64>, tensor<2x2xi64>, tensor<2x2xi64>
}

// -----

// CHECK-LABEL: func @concat
// CHECK-DAG: %[[C0:.*]] = telar.constant dense<{{\[}}[1, 2], [4, 5], [7, 8], [9, 10]]> : tensor<4x2xi64>
// CHECK-DAG: %[[C1:.*]] = telar.constant dense<{{\[}}[1, 2, 7, 8], [4, 5, 9, 10]]> : tensor<2x4xi64>
// A splat input is expanded.
// CHECK-DAG: %[[C2:.*]] = telar.constant dense<[1, 2, 0, 0, 0]> : tensor<5xi64>
// CHECK-NOT: telar.concat
// CHECK: return %[[C0]], %[[C1]], %[[C2]]
func.func @concat() -> (tensor<4x2xi64>, tensor<2x4xi64>, tensor<5xi64>) {
  %a = telar.constant dense<[[1, 2], [4, 5]]> : tensor<2x2xi64>
  %b = telar.constant dense<[[7, 8], [9, 10]]> : tensor<2x2xi64>
  %0 = telar.concat %a, %b {axis = 0 : i64} : (tensor<2x2xi64>, tensor<2x2xi64>) -> tensor<4x2xi64>
  %1 = telar.concat %a, %b {axis = -1 : i64} : (tensor<2x2xi64>, tensor<2x2xi64>) -> tensor<2x4xi64>
  %c = telar.constant dense<[1, 2]> : tensor<2xi64>
  %z = telar.constant dense<0> : tensor<3xi64>
  %2 = telar.concat %c, %z {axis = 0 : i64} : (tensor<2xi64>, tensor<3xi64>) -> tensor<5xi64>
  return %0, %1, %2 : tensor<4x2xi64>, tensor<2x4xi64>, tensor<5xi64>
}

// -----

// CHECK-LABEL: func @gather
// Negative indices count from the back.
// CHECK-DAG: %[[G0:.*]] = telar.constant dense<[30, 10, 10, 20, 30]> : tensor<5xi64>
// CHECK-DAG: %[[G1:.*]] = telar.constant dense<{{\[}}{{\[}}[3, 1], [2, 2]], {{\[}}[6, 4], [5, 5]]]> : tensor<2x2x2xi64>
// A scalar index drops the axis.
// CHECK-DAG: %[[G2:.*]] = telar.constant dense<[3, 6]> : tensor<2xi64>
// CHECK-NOT: telar.gather
// CHECK: return %[[G0]], %[[G1]], %[[G2]]
func.func @gather() -> (tensor<5xi64>, tensor<2x2x2xi64>, tensor<2xi64>) {
  %v = telar.constant dense<[10, 20, 30]> : tensor<3xi64>
  %ix = telar.constant dense<[2, -3, 0, 1, -1]> : tensor<5xi64>
  %0 = telar.gather %v, %ix : (tensor<3xi64>, tensor<5xi64>) -> tensor<5xi64>
  %a = telar.constant dense<[[1, 2, 3], [4, 5, 6]]> : tensor<2x3xi64>
  %ix2 = telar.constant dense<[[2, 0], [1, 1]]> : tensor<2x2xi32>
  %1 = telar.gather %a, %ix2 {axis = 1 : i64} : (tensor<2x3xi64>, tensor<2x2xi32>) -> tensor<2x2x2xi64>
  %k = telar.constant dense<2> : tensor<i64>
  %2 = telar.gather %a, %k {axis = -1 : i64} : (tensor<2x3xi64>, tensor<i64>) -> tensor<2xi64>
  return %0, %1, %2 : tensor<5xi64>, tensor<2x2x2xi64>, tensor<2xi64>
}

// -----

// An out-of-range index is a run-time error: no fold.
// CHECK-LABEL: func @gather_out_of_range_stays
// CHECK: telar.gather
func.func @gather_out_of_range_stays() -> tensor<1xi64> {
  %v = telar.constant dense<[10, 20, 30]> : tensor<3xi64>
  %ix = telar.constant dense<[3]> : tensor<1xi64>
  %0 = telar.gather %v, %ix : (tensor<3xi64>, tensor<1xi64>) -> tensor<1xi64>
  return %0 : tensor<1xi64>
}

// -----

// An ONNX shape subgraph: Shape -> Gather -> Unsqueeze -> Concat -> Reshape
// target, then the reshape of a runtime value with it.
// CHECK-LABEL: func @shape_chain
// CHECK-NEXT: %[[T:.*]] = telar.constant dense<[2, 8, 4, 16]> : tensor<4xi64>
// CHECK-NEXT: %[[R:.*]] = telar.reshape %{{.*}} {shape = array<i64: 2, 8, 4, 16>} : (tensor<2x8x64xf32>) -> tensor<2x8x4x16xf32>
// CHECK-NEXT: return %[[R]], %[[T]]
func.func @shape_chain(%x: tensor<2x8x64xf32>) -> (tensor<2x8x4x16xf32>, tensor<4xi64>) {
  %shape = telar.constant dense<[2, 8, 64]> : tensor<3xi64>
  %i0 = telar.constant dense<0> : tensor<i64>
  %i1 = telar.constant dense<1> : tensor<i64>
  %d0 = telar.gather %shape, %i0 : (tensor<3xi64>, tensor<i64>) -> tensor<i64>
  %d1 = telar.gather %shape, %i1 : (tensor<3xi64>, tensor<i64>) -> tensor<i64>
  %u0 = telar.unsqueeze %d0 {axes = array<i64: 0>} : (tensor<i64>) -> tensor<1xi64>
  %u1 = telar.unsqueeze %d1 {axes = array<i64: 0>} : (tensor<i64>) -> tensor<1xi64>
  %heads = telar.constant dense<[4, 16]> : tensor<2xi64>
  %target = telar.concat %u0, %u1, %heads {axis = 0 : i64} : (tensor<1xi64>, tensor<1xi64>, tensor<2xi64>) -> tensor<4xi64>
  %y = telar.reshape %x {shape = array<i64: 2, 8, 4, 16>} : (tensor<2x8x64xf32>) -> tensor<2x8x4x16xf32>
  return %y, %target : tensor<2x8x4x16xf32>, tensor<4xi64>
}

// -----

// Identities fold to the operand, constant or not.
// CHECK-LABEL: func @identities
// CHECK-SAME: (%[[X:.*]]: tensor<2x3xf32>, %[[I:.*]]: tensor<4xi64>)
// CHECK-NOT: telar.
// CHECK: return %[[X]], %[[X]], %[[X]], %[[X]], %[[I]], %[[X]], %[[X]]
func.func @identities(%x: tensor<2x3xf32>, %i: tensor<4xi64>) -> (tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<4xi64>, tensor<2x3xf32>, tensor<2x3xf32>) {
  %0 = telar.reshape %x {shape = array<i64: 2, 3>} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %1 = telar.transpose %x {perm = array<i64: 0, 1>} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  // Whole slice: start clamped to 0, end to the dimension.
  %2 = telar.slice %x {axes = array<i64: 0, 1>, starts = array<i64: -10, 0>, ends = array<i64: 10, 3>, steps = array<i64: 1, 1>} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %3 = telar.concat %x {axis = 1 : i64} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %4 = telar.cast %i {to = i64} : (tensor<4xi64>) -> tensor<4xi64>
  %5 = telar.expand %x {shape = array<i64: 1, 3>} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %6 = telar.squeeze %x : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return %0, %1, %2, %3, %4, %5, %6 : tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<4xi64>, tensor<2x3xf32>, tensor<2x3xf32>
}

// -----

// A reversing slice keeps its type but is not an identity.
// CHECK-LABEL: func @reverse_is_not_identity
// CHECK: %[[S:.*]] = telar.slice
// CHECK: return %[[S]]
func.func @reverse_is_not_identity(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = telar.slice %x {axes = array<i64: 1>, starts = array<i64: -1>, ends = array<i64: -100>, steps = array<i64: -1>} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

// Constants over kMaxFoldElements (4096) are not folded.
// CHECK-LABEL: func @too_big
// CHECK: telar.add
func.func @too_big() -> tensor<4097xi32> {
  %a = telar.constant dense<1> : tensor<4097xi32>
  %0 = telar.add %a, %a : (tensor<4097xi32>, tensor<4097xi32>) -> tensor<4097xi32>
  return %0 : tensor<4097xi32>
}

// -----

// Resource (weight) constants are never folded into new constants; only the
// type identities fold, and equal resource constants are deduplicated.
// CHECK-LABEL: func @resource_not_folded
// CHECK-NEXT: %[[K:.*]] = telar.constant dense<0> : tensor<i64>
// CHECK-NEXT: %[[R:.*]] = telar.constant dense_resource<r0> : tensor<3xi32>
// CHECK-NEXT: %[[ONE:.*]] = telar.constant dense<1> : tensor<3xi32>
// CHECK-NEXT: %[[ADD:.*]] = telar.add %[[R]], %[[ONE]]
// CHECK-NEXT: %[[RESHAPE:.*]] = telar.reshape %[[R]] {shape = array<i64: 1, 3>}
// CHECK-NEXT: %[[CAST:.*]] = telar.cast %[[R]] {to = i64}
// CHECK-NEXT: %[[SLICE:.*]] = telar.slice %[[R]]
// CHECK-NEXT: %[[GATHER:.*]] = telar.gather %[[R]], %[[K]]
// CHECK-NEXT: return %[[ADD]], %[[R]], %[[RESHAPE]], %[[R]], %[[CAST]], %[[SLICE]], %[[GATHER]]
// CHECK: r0: "0x04000000010000000200000003000000"
func.func @resource_not_folded() -> (tensor<3xi32>, tensor<3xi32>, tensor<1x3xi32>, tensor<3xi32>, tensor<3xi64>, tensor<2xi32>, tensor<i32>) {
  %r = telar.constant dense_resource<r0> : tensor<3xi32>
  %r2 = telar.constant dense_resource<r0> : tensor<3xi32>
  %one = telar.constant dense<1> : tensor<3xi32>
  %0 = telar.add %r, %one : (tensor<3xi32>, tensor<3xi32>) -> tensor<3xi32>
  %1 = telar.reshape %r {shape = array<i64: 1, 3>} : (tensor<3xi32>) -> tensor<1x3xi32>
  %2 = telar.reshape %r2 {shape = array<i64: 3>} : (tensor<3xi32>) -> tensor<3xi32>
  %3 = telar.cast %r {to = i64} : (tensor<3xi32>) -> tensor<3xi64>
  %4 = telar.slice %r {axes = array<i64: 0>, starts = array<i64: 1>, ends = array<i64: 3>, steps = array<i64: 1>} : (tensor<3xi32>) -> tensor<2xi32>
  %k = telar.constant dense<0> : tensor<i64>
  %5 = telar.gather %r, %k : (tensor<3xi32>, tensor<i64>) -> tensor<i32>
  return %0, %r2, %1, %2, %3, %4, %5 : tensor<3xi32>, tensor<3xi32>, tensor<1x3xi32>, tensor<3xi32>, tensor<3xi64>, tensor<2xi32>, tensor<i32>
}

{-# dialect_resources: { builtin: { r0: "0x04000000010000000200000003000000" } } #-}

// -----

// Casts to floats fold when every value converts exactly; float to integer
// truncates (2.5 to i32 is 2).
// CHECK-LABEL: func @float_casts
// CHECK-DAG: %[[F:.*]] = telar.constant dense<[3.000000e+00, -4.000000e+00]> : tensor<2xf32>
// CHECK-DAG: %[[RT:.*]] = telar.constant dense<[2.000000e+00, -1.000000e+00]> : tensor<2xf32>
// CHECK-DAG: %[[I:.*]] = telar.constant dense<[2, -1]> : tensor<2xi32>
// CHECK-NOT: telar.cast
// CHECK: return %[[F]], %[[I]], %[[RT]]
func.func @float_casts() -> (tensor<2xf32>, tensor<2xi32>, tensor<2xf32>) {
  %a = telar.constant dense<[3, -4]> : tensor<2xi32>
  %0 = telar.cast %a {to = f32} : (tensor<2xi32>) -> tensor<2xf32>
  %b = telar.constant dense<[2.5, -1.0]> : tensor<2xf32>
  %1 = telar.cast %b {to = i32} : (tensor<2xf32>) -> tensor<2xi32>
  %c = telar.constant dense<[2.0, -1.0]> : tensor<2xf32>
  %2 = telar.cast %c {to = i32} : (tensor<2xf32>) -> tensor<2xi32>
  %3 = telar.cast %2 {to = f32} : (tensor<2xi32>) -> tensor<2xf32>
  return %0, %1, %3 : tensor<2xf32>, tensor<2xi32>, tensor<2xf32>
}

// -----

// Transposes compose: back to the input when they cancel, one transpose
// when they do not.
// CHECK-LABEL: func @transpose_of_transpose
// CHECK-SAME: (%[[X:.*]]: tensor<2x3x4xf32>)
// CHECK-NEXT: %[[T:.*]] = telar.transpose %[[X]] {perm = array<i64: 2, 0, 1>}
// CHECK-NEXT: return %[[X]], %[[T]]
func.func @transpose_of_transpose(%x: tensor<2x3x4xf32>) -> (tensor<2x3x4xf32>, tensor<4x2x3xf32>) {
  %a = telar.transpose %x {perm = array<i64: 1, 0, 2>} : (tensor<2x3x4xf32>) -> tensor<3x2x4xf32>
  %b = telar.transpose %a {perm = array<i64: 1, 0, 2>} : (tensor<3x2x4xf32>) -> tensor<2x3x4xf32>
  %c = telar.transpose %a {perm = array<i64: 2, 1, 0>} : (tensor<3x2x4xf32>) -> tensor<4x2x3xf32>
  return %b, %c : tensor<2x3x4xf32>, tensor<4x2x3xf32>
}

// -----

// (X^T dY)^T = dY^T X, the weight gradient of a linear layer: the product's
// transpose moves onto dY, X's cancels; the names go with the result.
// CHECK-LABEL: func @transpose_of_matmul
// CHECK-SAME: (%[[X:.*]]: tensor<8x16xf32>, %[[DY:.*]]: tensor<8x32xf32>)
// CHECK-NEXT: %[[T:.*]] = telar.transpose %[[DY]] {perm = array<i64: 1, 0>, telar.phase = "backward"} : (tensor<8x32xf32>) -> tensor<32x8xf32>
// CHECK-NEXT: %[[G:.*]] = telar.matmul %[[T]], %[[X]] {telar.phase = "backward", telar.result_names = ["w@grad"]} : (tensor<32x8xf32>, tensor<8x16xf32>) -> tensor<32x16xf32>
// CHECK-NEXT: return %[[G]]
func.func @transpose_of_matmul(%x: tensor<8x16xf32>, %dy: tensor<8x32xf32>) -> tensor<32x16xf32> {
  %xt = telar.transpose %x {perm = array<i64: 1, 0>} : (tensor<8x16xf32>) -> tensor<16x8xf32>
  %p = telar.matmul %xt, %dy : (tensor<16x8xf32>, tensor<8x32xf32>) -> tensor<16x32xf32>
  %g = telar.transpose %p {perm = array<i64: 1, 0>, telar.phase = "backward", telar.result_names = ["w@grad"]} : (tensor<16x32xf32>) -> tensor<32x16xf32>
  return %g : tensor<32x16xf32>
}

// -----

// A product used elsewhere too stays.
// CHECK-LABEL: func @transpose_of_shared_matmul
// CHECK: telar.matmul
// CHECK: telar.transpose
func.func @transpose_of_shared_matmul(%x: tensor<8x16xf32>, %dy: tensor<8x32xf32>) -> (tensor<32x16xf32>, tensor<16x32xf32>) {
  %xt = telar.transpose %x {perm = array<i64: 1, 0>} : (tensor<8x16xf32>) -> tensor<16x8xf32>
  %p = telar.matmul %xt, %dy : (tensor<16x8xf32>, tensor<8x32xf32>) -> tensor<16x32xf32>
  %g = telar.transpose %p {perm = array<i64: 1, 0>} : (tensor<16x32xf32>) -> tensor<32x16xf32>
  return %g, %p : tensor<32x16xf32>, tensor<16x32xf32>
}
