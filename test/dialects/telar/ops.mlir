// RUN: telar-opt %s -split-input-file | telar-opt -split-input-file | FileCheck %s

// Round trip of the telar ops (the NN ops are tested elsewhere). Each result
// type below is the one inferred; a wrong one would not verify.

// CHECK-LABEL: func @constants
func.func @constants() -> (tensor<4xi64>, tensor<2x2xf32>, tensor<i1>, tensor<3xf16>) {
  // CHECK: telar.constant dense<[1, 128, 12, 64]> : tensor<4xi64>
  %0 = telar.constant dense<[1, 128, 12, 64]> : tensor<4xi64>
  // CHECK: telar.constant dense<{{\[}}[1.000000e+00, 2.000000e+00], [3.000000e+00, 4.000000e+00]]> : tensor<2x2xf32>
  %1 = telar.constant dense<[[1.0, 2.0], [3.0, 4.0]]> : tensor<2x2xf32>
  // CHECK: telar.constant dense<true> : tensor<i1>
  %2 = telar.constant dense<true> : tensor<i1>
  // CHECK: telar.constant dense<5.000000e-01> : tensor<3xf16>
  %3 = telar.constant dense<0.5> : tensor<3xf16>
  return %0, %1, %2, %3 : tensor<4xi64>, tensor<2x2xf32>, tensor<i1>, tensor<3xf16>
}

// -----

// CHECK-LABEL: func @resource_constant
func.func @resource_constant() -> tensor<3xi32> {
  // CHECK: telar.constant dense_resource<w0> : tensor<3xi32>
  %0 = telar.constant dense_resource<w0> : tensor<3xi32>
  return %0 : tensor<3xi32>
}

{-#
  dialect_resources: {
    builtin: {
      w0: "0x04000000010000000200000003000000"
    }
  }
#-}

// -----

// CHECK-LABEL: func @unary_float
func.func @unary_float(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  // CHECK: telar.exp %{{.*}} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %0 = telar.exp %x : (tensor<2x3xf32>) -> tensor<2x3xf32>
  // CHECK: telar.log %{{.*}} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %1 = telar.log %0 : (tensor<2x3xf32>) -> tensor<2x3xf32>
  // CHECK: telar.sqrt %{{.*}} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %2 = telar.sqrt %1 : (tensor<2x3xf32>) -> tensor<2x3xf32>
  // CHECK: telar.reciprocal %{{.*}} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %3 = telar.reciprocal %2 : (tensor<2x3xf32>) -> tensor<2x3xf32>
  // CHECK: telar.floor %{{.*}} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %4 = telar.floor %3 : (tensor<2x3xf32>) -> tensor<2x3xf32>
  // CHECK: telar.ceil %{{.*}} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %5 = telar.ceil %4 : (tensor<2x3xf32>) -> tensor<2x3xf32>
  // CHECK: telar.round %{{.*}} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %6 = telar.round %5 : (tensor<2x3xf32>) -> tensor<2x3xf32>
  // CHECK: telar.sin %{{.*}} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %7 = telar.sin %6 : (tensor<2x3xf32>) -> tensor<2x3xf32>
  // CHECK: telar.cos %{{.*}} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %8 = telar.cos %7 : (tensor<2x3xf32>) -> tensor<2x3xf32>
  // CHECK: telar.tan %{{.*}} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %9 = telar.tan %8 : (tensor<2x3xf32>) -> tensor<2x3xf32>
  // CHECK: telar.asin %{{.*}} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %10 = telar.asin %9 : (tensor<2x3xf32>) -> tensor<2x3xf32>
  // CHECK: telar.acos %{{.*}} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %11 = telar.acos %10 : (tensor<2x3xf32>) -> tensor<2x3xf32>
  // CHECK: telar.atan %{{.*}} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %12 = telar.atan %11 : (tensor<2x3xf32>) -> tensor<2x3xf32>
  // CHECK: telar.sinh %{{.*}} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %13 = telar.sinh %12 : (tensor<2x3xf32>) -> tensor<2x3xf32>
  // CHECK: telar.cosh %{{.*}} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %14 = telar.cosh %13 : (tensor<2x3xf32>) -> tensor<2x3xf32>
  // CHECK: telar.asinh %{{.*}} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %15 = telar.asinh %14 : (tensor<2x3xf32>) -> tensor<2x3xf32>
  // CHECK: telar.acosh %{{.*}} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %16 = telar.acosh %15 : (tensor<2x3xf32>) -> tensor<2x3xf32>
  // CHECK: telar.atanh %{{.*}} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %17 = telar.atanh %16 : (tensor<2x3xf32>) -> tensor<2x3xf32>
  // CHECK: telar.tanh %{{.*}} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %18 = telar.tanh %17 : (tensor<2x3xf32>) -> tensor<2x3xf32>
  // CHECK: telar.sigmoid %{{.*}} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %19 = telar.sigmoid %18 : (tensor<2x3xf32>) -> tensor<2x3xf32>
  // CHECK: telar.erf %{{.*}} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %20 = telar.erf %19 : (tensor<2x3xf32>) -> tensor<2x3xf32>
  // CHECK: telar.softplus %{{.*}} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %21 = telar.softplus %20 : (tensor<2x3xf32>) -> tensor<2x3xf32>
  // CHECK: telar.softsign %{{.*}} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %22 = telar.softsign %21 : (tensor<2x3xf32>) -> tensor<2x3xf32>
  // CHECK: telar.hard_swish %{{.*}} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %23 = telar.hard_swish %22 : (tensor<2x3xf32>) -> tensor<2x3xf32>
  // CHECK: telar.mish %{{.*}} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %24 = telar.mish %23 : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return %24 : tensor<2x3xf32>
}

// -----

// CHECK-LABEL: func @unary_any
func.func @unary_any(%x: tensor<4xi32>, %f: tensor<2x3xbf16>) -> (tensor<4xi32>, tensor<2x3xbf16>) {
  // CHECK: telar.abs %{{.*}} : (tensor<4xi32>) -> tensor<4xi32>
  %0 = telar.abs %x : (tensor<4xi32>) -> tensor<4xi32>
  // CHECK: telar.neg %{{.*}} : (tensor<4xi32>) -> tensor<4xi32>
  %1 = telar.neg %0 : (tensor<4xi32>) -> tensor<4xi32>
  // CHECK: telar.sign %{{.*}} : (tensor<4xi32>) -> tensor<4xi32>
  %2 = telar.sign %1 : (tensor<4xi32>) -> tensor<4xi32>
  // CHECK: telar.relu %{{.*}} : (tensor<4xi32>) -> tensor<4xi32>
  %3 = telar.relu %2 : (tensor<4xi32>) -> tensor<4xi32>
  // CHECK: telar.bitwise_not %{{.*}} : (tensor<4xi32>) -> tensor<4xi32>
  %4 = telar.bitwise_not %3 : (tensor<4xi32>) -> tensor<4xi32>
  // CHECK: telar.relu %{{.*}} : (tensor<2x3xbf16>) -> tensor<2x3xbf16>
  %5 = telar.relu %f : (tensor<2x3xbf16>) -> tensor<2x3xbf16>
  return %4, %5 : tensor<4xi32>, tensor<2x3xbf16>
}

// -----

// CHECK-LABEL: func @unary_bool
func.func @unary_bool(%x: tensor<2x2xi1>) -> tensor<2x2xi1> {
  // CHECK: telar.not %{{.*}} : (tensor<2x2xi1>) -> tensor<2x2xi1>
  %0 = telar.not %x : (tensor<2x2xi1>) -> tensor<2x2xi1>
  return %0 : tensor<2x2xi1>
}

// -----

// Attributes left at their defaults are not printed; set ones are.
// CHECK-LABEL: func @unary_attrs
func.func @unary_attrs(%x: tensor<8xf32>, %i: tensor<8xi32>) -> tensor<8xf32> {
  // CHECK: telar.leaky_relu %{{.*}} : (tensor<8xf32>) -> tensor<8xf32>
  %0 = telar.leaky_relu %x : (tensor<8xf32>) -> tensor<8xf32>
  // CHECK: telar.leaky_relu %{{.*}} {alpha = 2.000000e-01 : f32} : (tensor<8xf32>) -> tensor<8xf32>
  %1 = telar.leaky_relu %0 {alpha = 0.2 : f32} : (tensor<8xf32>) -> tensor<8xf32>
  // CHECK: telar.elu %{{.*}} {alpha = 5.000000e-01 : f32} : (tensor<8xf32>) -> tensor<8xf32>
  %2 = telar.elu %1 {alpha = 0.5 : f32} : (tensor<8xf32>) -> tensor<8xf32>
  // CHECK: telar.celu %{{.*}} {alpha = 2.000000e+00 : f32} : (tensor<8xf32>) -> tensor<8xf32>
  %3 = telar.celu %2 {alpha = 2.0 : f32} : (tensor<8xf32>) -> tensor<8xf32>
  // CHECK: telar.selu %{{.*}} : (tensor<8xf32>) -> tensor<8xf32>
  %4 = telar.selu %3 : (tensor<8xf32>) -> tensor<8xf32>
  // CHECK: telar.selu %{{.*}} {alpha = 1.500000e+00 : f32, gamma = 1.000000e+00 : f32} : (tensor<8xf32>) -> tensor<8xf32>
  %5 = telar.selu %4 {alpha = 1.5 : f32, gamma = 1.0 : f32} : (tensor<8xf32>) -> tensor<8xf32>
  // CHECK: telar.hard_sigmoid %{{.*}} {alpha = 1.000000e-01 : f32, beta = 2.500000e-01 : f32} : (tensor<8xf32>) -> tensor<8xf32>
  %6 = telar.hard_sigmoid %5 {alpha = 0.1 : f32, beta = 0.25 : f32} : (tensor<8xf32>) -> tensor<8xf32>
  // CHECK: telar.thresholded_relu %{{.*}} {alpha = 3.000000e+00 : f32} : (tensor<8xf32>) -> tensor<8xf32>
  %7 = telar.thresholded_relu %6 {alpha = 3.0 : f32} : (tensor<8xf32>) -> tensor<8xf32>
  // CHECK: telar.shrink %{{.*}} {bias = 1.000000e+00 : f32, lambd = 1.500000e+00 : f32} : (tensor<8xf32>) -> tensor<8xf32>
  %8 = telar.shrink %7 {bias = 1.0 : f32, lambd = 1.5 : f32} : (tensor<8xf32>) -> tensor<8xf32>
  // Shrink also takes integers.
  // CHECK: telar.shrink %{{.*}} : (tensor<8xi32>) -> tensor<8xi32>
  %9 = telar.shrink %i : (tensor<8xi32>) -> tensor<8xi32>
  return %8 : tensor<8xf32>
}

// -----

// CHECK-LABEL: func @predicates_and_cast
func.func @predicates_and_cast(%x: tensor<2x3xf32>, %i: tensor<4xi64>) -> (tensor<2x3xi1>, tensor<2x3xi1>, tensor<2x3xi1>, tensor<4xi32>, tensor<2x3xi64>, tensor<4xi1>, tensor<4xf16>) {
  // CHECK: telar.is_nan %{{.*}} : (tensor<2x3xf32>) -> tensor<2x3xi1>
  %0 = telar.is_nan %x : (tensor<2x3xf32>) -> tensor<2x3xi1>
  // CHECK: telar.is_inf %{{.*}} : (tensor<2x3xf32>) -> tensor<2x3xi1>
  %1 = telar.is_inf %x : (tensor<2x3xf32>) -> tensor<2x3xi1>
  // CHECK: telar.is_inf %{{.*}} {detect_negative = false} : (tensor<2x3xf32>) -> tensor<2x3xi1>
  %2 = telar.is_inf %x {detect_negative = false} : (tensor<2x3xf32>) -> tensor<2x3xi1>
  // CHECK: telar.cast %{{.*}} {to = i32} : (tensor<4xi64>) -> tensor<4xi32>
  %3 = telar.cast %i {to = i32} : (tensor<4xi64>) -> tensor<4xi32>
  // CHECK: telar.cast %{{.*}} {saturate = false, to = i64} : (tensor<2x3xf32>) -> tensor<2x3xi64>
  %4 = telar.cast %x {to = i64, saturate = false} : (tensor<2x3xf32>) -> tensor<2x3xi64>
  // CHECK: telar.cast %{{.*}} {to = i1} : (tensor<4xi64>) -> tensor<4xi1>
  %5 = telar.cast %i {to = i1} : (tensor<4xi64>) -> tensor<4xi1>
  // CHECK: telar.cast %{{.*}} {to = f16} : (tensor<4xi64>) -> tensor<4xf16>
  %6 = telar.cast %i {to = f16} : (tensor<4xi64>) -> tensor<4xf16>
  return %0, %1, %2, %3, %4, %5, %6 : tensor<2x3xi1>, tensor<2x3xi1>, tensor<2x3xi1>, tensor<4xi32>, tensor<2x3xi64>, tensor<4xi1>, tensor<4xf16>
}

// -----

// CHECK-LABEL: func @arith_broadcast
func.func @arith_broadcast(%a: tensor<2x3xf32>, %b: tensor<3xf32>, %c: tensor<4x1x3xf32>, %s: tensor<f32>, %one: tensor<2x1xf32>) -> (tensor<2x3xf32>, tensor<4x2x3xf32>, tensor<2x3xf32>, tensor<3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>) {
  // Trailing-dim broadcasting.
  // CHECK: telar.add %{{.*}}, %{{.*}} : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  %0 = telar.add %a, %b : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  // Rank extension plus a size-1 dim on each side.
  // CHECK: telar.sub %{{.*}}, %{{.*}} : (tensor<4x1x3xf32>, tensor<2x3xf32>) -> tensor<4x2x3xf32>
  %1 = telar.sub %c, %a : (tensor<4x1x3xf32>, tensor<2x3xf32>) -> tensor<4x2x3xf32>
  // Scalar operand.
  // CHECK: telar.mul %{{.*}}, %{{.*}} : (tensor<f32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %2 = telar.mul %s, %a : (tensor<f32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  // CHECK: telar.div %{{.*}}, %{{.*}} : (tensor<3xf32>, tensor<f32>) -> tensor<3xf32>
  %3 = telar.div %b, %s : (tensor<3xf32>, tensor<f32>) -> tensor<3xf32>
  // Size-1 dims on both operands: (2x1, 3) -> 2x3.
  // CHECK: telar.pow %{{.*}}, %{{.*}} : (tensor<2x1xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  %4 = telar.pow %one, %b : (tensor<2x1xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  // CHECK: telar.max %{{.*}}, %{{.*}} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %5 = telar.max %a, %a : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  // CHECK: telar.min %{{.*}}, %{{.*}} : (tensor<2x3xf32>, tensor<2x1xf32>) -> tensor<2x3xf32>
  %6 = telar.min %a, %one : (tensor<2x3xf32>, tensor<2x1xf32>) -> tensor<2x3xf32>
  // CHECK: telar.prelu %{{.*}}, %{{.*}} : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  %7 = telar.prelu %a, %b : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  // CHECK: telar.mod %{{.*}}, %{{.*}} {fmod = true} : (tensor<2x3xf32>, tensor<f32>) -> tensor<2x3xf32>
  %8 = telar.mod %a, %s {fmod = true} : (tensor<2x3xf32>, tensor<f32>) -> tensor<2x3xf32>
  return %0, %1, %2, %3, %4, %5, %6, %7, %8 : tensor<2x3xf32>, tensor<4x2x3xf32>, tensor<2x3xf32>, tensor<3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>
}

// -----

// CHECK-LABEL: func @int_and_bool_binary
func.func @int_and_bool_binary(%a: tensor<4xi32>, %b: tensor<i32>, %p: tensor<2x4xi1>, %q: tensor<4xi1>, %u: tensor<4xui8>) -> (tensor<4xi32>, tensor<4xi32>, tensor<4xi32>, tensor<4xi32>, tensor<4xi32>, tensor<4xui8>, tensor<4xi32>, tensor<2x4xi1>, tensor<2x4xi1>, tensor<2x4xi1>) {
  // CHECK: telar.mod %{{.*}}, %{{.*}} : (tensor<4xi32>, tensor<i32>) -> tensor<4xi32>
  %0 = telar.mod %a, %b : (tensor<4xi32>, tensor<i32>) -> tensor<4xi32>
  // CHECK: telar.bitwise_and %{{.*}}, %{{.*}} : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
  %1 = telar.bitwise_and %a, %a : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
  // CHECK: telar.bitwise_or %{{.*}}, %{{.*}} : (tensor<4xi32>, tensor<i32>) -> tensor<4xi32>
  %2 = telar.bitwise_or %a, %b : (tensor<4xi32>, tensor<i32>) -> tensor<4xi32>
  // CHECK: telar.bitwise_xor %{{.*}}, %{{.*}} : (tensor<i32>, tensor<4xi32>) -> tensor<4xi32>
  %3 = telar.bitwise_xor %b, %a : (tensor<i32>, tensor<4xi32>) -> tensor<4xi32>
  // `left` defaults to true and is not printed.
  // CHECK: telar.bit_shift %{{.*}}, %{{.*}} : (tensor<4xi32>, tensor<i32>) -> tensor<4xi32>
  %4 = telar.bit_shift %a, %b : (tensor<4xi32>, tensor<i32>) -> tensor<4xi32>
  // CHECK: telar.bit_shift %{{.*}}, %{{.*}} {left = false} : (tensor<4xui8>, tensor<4xui8>) -> tensor<4xui8>
  %5 = telar.bit_shift %u, %u {left = false} : (tensor<4xui8>, tensor<4xui8>) -> tensor<4xui8>
  // CHECK: telar.add %{{.*}}, %{{.*}} : (tensor<4xi32>, tensor<i32>) -> tensor<4xi32>
  %6 = telar.add %a, %b : (tensor<4xi32>, tensor<i32>) -> tensor<4xi32>
  // CHECK: telar.and %{{.*}}, %{{.*}} : (tensor<2x4xi1>, tensor<4xi1>) -> tensor<2x4xi1>
  %7 = telar.and %p, %q : (tensor<2x4xi1>, tensor<4xi1>) -> tensor<2x4xi1>
  // CHECK: telar.or %{{.*}}, %{{.*}} : (tensor<4xi1>, tensor<2x4xi1>) -> tensor<2x4xi1>
  %8 = telar.or %q, %p : (tensor<4xi1>, tensor<2x4xi1>) -> tensor<2x4xi1>
  // CHECK: telar.xor %{{.*}}, %{{.*}} : (tensor<2x4xi1>, tensor<2x4xi1>) -> tensor<2x4xi1>
  %9 = telar.xor %p, %p : (tensor<2x4xi1>, tensor<2x4xi1>) -> tensor<2x4xi1>
  return %0, %1, %2, %3, %4, %5, %6, %7, %8, %9 : tensor<4xi32>, tensor<4xi32>, tensor<4xi32>, tensor<4xi32>, tensor<4xi32>, tensor<4xui8>, tensor<4xi32>, tensor<2x4xi1>, tensor<2x4xi1>, tensor<2x4xi1>
}

// -----

// Comparisons yield i1 with the broadcast shape, whatever the operand type.
// CHECK-LABEL: func @comparisons
func.func @comparisons(%a: tensor<2x3xf32>, %b: tensor<3xf32>, %i: tensor<4x1xi64>, %j: tensor<5xi64>) -> (tensor<2x3xi1>, tensor<4x5xi1>, tensor<2x3xi1>, tensor<2x3xi1>, tensor<4x5xi1>) {
  // CHECK: telar.equal %{{.*}}, %{{.*}} : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xi1>
  %0 = telar.equal %a, %b : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xi1>
  // CHECK: telar.less %{{.*}}, %{{.*}} : (tensor<4x1xi64>, tensor<5xi64>) -> tensor<4x5xi1>
  %1 = telar.less %i, %j : (tensor<4x1xi64>, tensor<5xi64>) -> tensor<4x5xi1>
  // CHECK: telar.less_equal %{{.*}}, %{{.*}} : (tensor<3xf32>, tensor<2x3xf32>) -> tensor<2x3xi1>
  %2 = telar.less_equal %b, %a : (tensor<3xf32>, tensor<2x3xf32>) -> tensor<2x3xi1>
  // CHECK: telar.greater %{{.*}}, %{{.*}} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xi1>
  %3 = telar.greater %a, %a : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xi1>
  // CHECK: telar.greater_equal %{{.*}}, %{{.*}} : (tensor<5xi64>, tensor<4x1xi64>) -> tensor<4x5xi1>
  %4 = telar.greater_equal %j, %i : (tensor<5xi64>, tensor<4x1xi64>) -> tensor<4x5xi1>
  return %0, %1, %2, %3, %4 : tensor<2x3xi1>, tensor<4x5xi1>, tensor<2x3xi1>, tensor<2x3xi1>, tensor<4x5xi1>
}

// -----

// CHECK-LABEL: func @where
func.func @where(%c: tensor<4x1xi1>, %x: tensor<4x8xf32>, %y: tensor<f32>, %c3: tensor<2x1x1xi1>, %i: tensor<8xi64>) -> (tensor<4x8xf32>, tensor<2x4x8xi64>) {
  // CHECK: telar.where %{{.*}}, %{{.*}}, %{{.*}} : (tensor<4x1xi1>, tensor<4x8xf32>, tensor<f32>) -> tensor<4x8xf32>
  %0 = telar.where %c, %x, %y : (tensor<4x1xi1>, tensor<4x8xf32>, tensor<f32>) -> tensor<4x8xf32>
  // The condition alone can add dimensions.
  // CHECK: telar.where %{{.*}}, %{{.*}}, %{{.*}} : (tensor<2x1x1xi1>, tensor<8xi64>, tensor<4x1xi64>) -> tensor<2x4x8xi64>
  %i2 = telar.unsqueeze %i {axes = array<i64: 0>} : (tensor<8xi64>) -> tensor<1x8xi64>
  %i3 = telar.reshape %i {shape = array<i64: 4, 2>} : (tensor<8xi64>) -> tensor<4x2xi64>
  %i4 = telar.slice %i3 {axes = array<i64: 1>, starts = array<i64: 0>, ends = array<i64: 1>, steps = array<i64: 1>} : (tensor<4x2xi64>) -> tensor<4x1xi64>
  %1 = telar.where %c3, %i, %i4 : (tensor<2x1x1xi1>, tensor<8xi64>, tensor<4x1xi64>) -> tensor<2x4x8xi64>
  return %0, %1 : tensor<4x8xf32>, tensor<2x4x8xi64>
}

// -----

// CHECK-LABEL: func @reductions
func.func @reductions(%x: tensor<2x3x4xf32>, %i: tensor<2x3x4xi32>) -> (tensor<2x1x4xf32>, tensor<2x4xf32>, tensor<1x1x1xf32>, tensor<f32>, tensor<2x3x1xf32>, tensor<3xf32>, tensor<2x1x4xi32>) {
  // Default keepdims = true.
  // CHECK: telar.reduce_sum %{{.*}} {axes = array<i64: 1>} : (tensor<2x3x4xf32>) -> tensor<2x1x4xf32>
  %0 = telar.reduce_sum %x {axes = array<i64: 1>} : (tensor<2x3x4xf32>) -> tensor<2x1x4xf32>
  // Negative axis, keepdims = false.
  // CHECK: telar.reduce_mean %{{.*}} {axes = array<i64: -2>, keepdims = false} : (tensor<2x3x4xf32>) -> tensor<2x4xf32>
  %1 = telar.reduce_mean %x {axes = array<i64: -2>, keepdims = false} : (tensor<2x3x4xf32>) -> tensor<2x4xf32>
  // No axes: all of them.
  // CHECK: telar.reduce_max %{{.*}} : (tensor<2x3x4xf32>) -> tensor<1x1x1xf32>
  %2 = telar.reduce_max %x : (tensor<2x3x4xf32>) -> tensor<1x1x1xf32>
  // CHECK: telar.reduce_min %{{.*}} {keepdims = false} : (tensor<2x3x4xf32>) -> tensor<f32>
  %3 = telar.reduce_min %x {keepdims = false} : (tensor<2x3x4xf32>) -> tensor<f32>
  // CHECK: telar.reduce_prod %{{.*}} {axes = array<i64: -1>} : (tensor<2x3x4xf32>) -> tensor<2x3x1xf32>
  %4 = telar.reduce_prod %x {axes = array<i64: -1>} : (tensor<2x3x4xf32>) -> tensor<2x3x1xf32>
  // Several axes, unsorted, mixed signs.
  // CHECK: telar.reduce_l1 %{{.*}} {axes = array<i64: 2, 0>, keepdims = false} : (tensor<2x3x4xf32>) -> tensor<3xf32>
  %5 = telar.reduce_l1 %x {axes = array<i64: 2, 0>, keepdims = false} : (tensor<2x3x4xf32>) -> tensor<3xf32>
  // CHECK: telar.reduce_l2 %{{.*}} {axes = array<i64: -1, 0>, keepdims = false} : (tensor<2x3x4xf32>) -> tensor<3xf32>
  %6 = telar.reduce_l2 %x {axes = array<i64: -1, 0>, keepdims = false} : (tensor<2x3x4xf32>) -> tensor<3xf32>
  // CHECK: telar.reduce_sum_square %{{.*}} {axes = array<i64: 1>} : (tensor<2x3x4xf32>) -> tensor<2x1x4xf32>
  %7 = telar.reduce_sum_square %x {axes = array<i64: 1>} : (tensor<2x3x4xf32>) -> tensor<2x1x4xf32>
  // CHECK: telar.reduce_log_sum %{{.*}} {axes = array<i64: 1>} : (tensor<2x3x4xf32>) -> tensor<2x1x4xf32>
  %8 = telar.reduce_log_sum %x {axes = array<i64: 1>} : (tensor<2x3x4xf32>) -> tensor<2x1x4xf32>
  // CHECK: telar.reduce_log_sum_exp %{{.*}} {axes = array<i64: 1>} : (tensor<2x3x4xf32>) -> tensor<2x1x4xf32>
  %9 = telar.reduce_log_sum_exp %x {axes = array<i64: 1>} : (tensor<2x3x4xf32>) -> tensor<2x1x4xf32>
  // CHECK: telar.reduce_sum %{{.*}} {axes = array<i64: 1>} : (tensor<2x3x4xi32>) -> tensor<2x1x4xi32>
  %10 = telar.reduce_sum %i {axes = array<i64: 1>} : (tensor<2x3x4xi32>) -> tensor<2x1x4xi32>
  return %0, %1, %2, %3, %4, %5, %10 : tensor<2x1x4xf32>, tensor<2x4xf32>, tensor<1x1x1xf32>, tensor<f32>, tensor<2x3x1xf32>, tensor<3xf32>, tensor<2x1x4xi32>
}

// -----

// Arg reductions give i64 indices; axis defaults to 0.
// CHECK-LABEL: func @arg_reductions
func.func @arg_reductions(%x: tensor<2x3x4xf32>, %i: tensor<5xi32>) -> (tensor<1x3x4xi64>, tensor<2x3xi64>, tensor<2x1x4xi64>, tensor<i64>) {
  // CHECK: telar.arg_max %{{.*}} : (tensor<2x3x4xf32>) -> tensor<1x3x4xi64>
  %0 = telar.arg_max %x : (tensor<2x3x4xf32>) -> tensor<1x3x4xi64>
  // CHECK: telar.arg_max %{{.*}} {axis = -1 : i64, keepdims = false, select_last_index = true} : (tensor<2x3x4xf32>) -> tensor<2x3xi64>
  %1 = telar.arg_max %x {axis = -1 : i64, keepdims = false, select_last_index = true} : (tensor<2x3x4xf32>) -> tensor<2x3xi64>
  // CHECK: telar.arg_min %{{.*}} {axis = 1 : i64} : (tensor<2x3x4xf32>) -> tensor<2x1x4xi64>
  %2 = telar.arg_min %x {axis = 1 : i64} : (tensor<2x3x4xf32>) -> tensor<2x1x4xi64>
  // CHECK: telar.arg_min %{{.*}} {keepdims = false} : (tensor<5xi32>) -> tensor<i64>
  %3 = telar.arg_min %i {keepdims = false} : (tensor<5xi32>) -> tensor<i64>
  return %0, %1, %2, %3 : tensor<1x3x4xi64>, tensor<2x3xi64>, tensor<2x1x4xi64>, tensor<i64>
}

// -----

// CHECK-LABEL: func @axis_ops
func.func @axis_ops(%x: tensor<2x8xf32>, %i: tensor<4x8xi64>, %m: tensor<3x4x4xf32>) -> (tensor<2x8xf32>, tensor<2x8xf32>, tensor<2x8xf32>, tensor<4x8xi64>, tensor<2x8xf32>, tensor<3x4x4xf32>, tensor<3x4x4xf32>) {
  // The default axis (-1) is not printed.
  // CHECK: telar.softmax %{{.*}} : (tensor<2x8xf32>) -> tensor<2x8xf32>
  %0 = telar.softmax %x : (tensor<2x8xf32>) -> tensor<2x8xf32>
  // CHECK: telar.log_softmax %{{.*}} {axis = 0 : i64} : (tensor<2x8xf32>) -> tensor<2x8xf32>
  %1 = telar.log_softmax %x {axis = 0 : i64} : (tensor<2x8xf32>) -> tensor<2x8xf32>
  // CHECK: telar.hardmax %{{.*}} {axis = -2 : i64} : (tensor<2x8xf32>) -> tensor<2x8xf32>
  %2 = telar.hardmax %x {axis = -2 : i64} : (tensor<2x8xf32>) -> tensor<2x8xf32>
  // CHECK: telar.cum_sum %{{.*}} {axis = 1 : i64} : (tensor<4x8xi64>) -> tensor<4x8xi64>
  %3 = telar.cum_sum %i {axis = 1 : i64} : (tensor<4x8xi64>) -> tensor<4x8xi64>
  // CHECK: telar.cum_sum %{{.*}} {axis = -2 : i64, exclusive = true, reverse = true} : (tensor<2x8xf32>) -> tensor<2x8xf32>
  %4 = telar.cum_sum %x {axis = -2 : i64, exclusive = true, reverse = true} : (tensor<2x8xf32>) -> tensor<2x8xf32>
  // CHECK: telar.trilu %{{.*}} : (tensor<3x4x4xf32>) -> tensor<3x4x4xf32>
  %5 = telar.trilu %m : (tensor<3x4x4xf32>) -> tensor<3x4x4xf32>
  // CHECK: telar.trilu %{{.*}} {k = -1 : i64, upper = false} : (tensor<3x4x4xf32>) -> tensor<3x4x4xf32>
  %6 = telar.trilu %m {upper = false, k = -1 : i64} : (tensor<3x4x4xf32>) -> tensor<3x4x4xf32>
  return %0, %1, %2, %3, %4, %5, %6 : tensor<2x8xf32>, tensor<2x8xf32>, tensor<2x8xf32>, tensor<4x8xi64>, tensor<2x8xf32>, tensor<3x4x4xf32>, tensor<3x4x4xf32>
}

// -----

// CHECK-LABEL: func @top_k
func.func @top_k(%x: tensor<4x8xf32>, %i: tensor<5x3xi32>) -> (tensor<4x2xf32>, tensor<4x2xi64>, tensor<5x3xi32>, tensor<5x3xi64>) {
  // CHECK: %{{.*}}, %{{.*}} = telar.top_k %{{.*}} {k = 2 : i64} : (tensor<4x8xf32>) -> (tensor<4x2xf32>, tensor<4x2xi64>)
  %v, %ix = telar.top_k %x {k = 2 : i64} : (tensor<4x8xf32>) -> (tensor<4x2xf32>, tensor<4x2xi64>)
  // k may be the whole axis; axis 0 given explicitly.
  // CHECK: %{{.*}}, %{{.*}} = telar.top_k %{{.*}} {axis = 0 : i64, k = 5 : i64, largest = false, sorted = false} : (tensor<5x3xi32>) -> (tensor<5x3xi32>, tensor<5x3xi64>)
  %w, %jx = telar.top_k %i {axis = 0 : i64, k = 5 : i64, largest = false, sorted = false} : (tensor<5x3xi32>) -> (tensor<5x3xi32>, tensor<5x3xi64>)
  return %v, %ix, %w, %jx : tensor<4x2xf32>, tensor<4x2xi64>, tensor<5x3xi32>, tensor<5x3xi64>
}

// -----

// CHECK-LABEL: func @pooling
func.func @pooling(%x: tensor<1x8x32x32xf32>, %y: tensor<2x4x10xf32>) -> (tensor<1x8x16x16xf32>, tensor<1x8x16x16xf32>, tensor<2x4x4xf32>, tensor<2x4x5xf32>, tensor<1x8x28x28xf32>) {
  // CHECK: telar.max_pool %{{.*}} {dilations = array<i64: 1, 1>, kernel_shape = array<i64: 3, 3>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>} : (tensor<1x8x32x32xf32>) -> tensor<1x8x16x16xf32>
  %0 = telar.max_pool %x {kernel_shape = array<i64: 3, 3>, strides = array<i64: 2, 2>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>} : (tensor<1x8x32x32xf32>) -> tensor<1x8x16x16xf32>
  // CHECK: telar.average_pool %{{.*}} {count_include_pad = true, dilations = array<i64: 1, 1>, kernel_shape = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 2, 2>} : (tensor<1x8x32x32xf32>) -> tensor<1x8x16x16xf32>
  %1 = telar.average_pool %x {kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, count_include_pad = true} : (tensor<1x8x32x32xf32>) -> tensor<1x8x16x16xf32>
  // 1-D, floor: (10 - 3) / 2 + 1 = 4.
  // CHECK: telar.max_pool %{{.*}} : (tensor<2x4x10xf32>) -> tensor<2x4x4xf32>
  %2 = telar.max_pool %y {kernel_shape = array<i64: 3>, strides = array<i64: 2>, pads = array<i64: 0, 0>, dilations = array<i64: 1>} : (tensor<2x4x10xf32>) -> tensor<2x4x4xf32>
  // ceil_mode: ceil((10 - 3) / 2) + 1 = 5.
  // CHECK: telar.max_pool %{{.*}} {ceil_mode = true, {{.*}}} : (tensor<2x4x10xf32>) -> tensor<2x4x5xf32>
  %3 = telar.max_pool %y {kernel_shape = array<i64: 3>, strides = array<i64: 2>, pads = array<i64: 0, 0>, dilations = array<i64: 1>, ceil_mode = true} : (tensor<2x4x10xf32>) -> tensor<2x4x5xf32>
  // Dilation 2 on a 3-kernel spans 5: 32 - 5 + 1 = 28.
  // CHECK: telar.average_pool %{{.*}} : (tensor<1x8x32x32xf32>) -> tensor<1x8x28x28xf32>
  %4 = telar.average_pool %x {kernel_shape = array<i64: 3, 3>, strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 2, 2>} : (tensor<1x8x32x32xf32>) -> tensor<1x8x28x28xf32>
  return %0, %1, %2, %3, %4 : tensor<1x8x16x16xf32>, tensor<1x8x16x16xf32>, tensor<2x4x4xf32>, tensor<2x4x5xf32>, tensor<1x8x28x28xf32>
}

// -----

// ONNX MaxPool takes int8 and uint8 too.
// CHECK-LABEL: func @max_pool_int
func.func @max_pool_int(%x: tensor<1x2x4x4xi8>, %u: tensor<1x2x4x4xui8>) -> (tensor<1x2x2x2xi8>, tensor<1x2x2x2xui8>) {
  // CHECK: telar.max_pool %{{.*}} : (tensor<1x2x4x4xi8>) -> tensor<1x2x2x2xi8>
  %0 = telar.max_pool %x {kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>} : (tensor<1x2x4x4xi8>) -> tensor<1x2x2x2xi8>
  // CHECK: telar.max_pool %{{.*}} : (tensor<1x2x4x4xui8>) -> tensor<1x2x2x2xui8>
  %1 = telar.max_pool %u {kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>} : (tensor<1x2x4x4xui8>) -> tensor<1x2x2x2xui8>
  return %0, %1 : tensor<1x2x2x2xi8>, tensor<1x2x2x2xui8>
}

// -----

// CHECK-LABEL: func @reshape_transpose
func.func @reshape_transpose(%x: tensor<2x8x64xf32>, %s: tensor<i64>) -> (tensor<2x8x4x16xf32>, tensor<16x64xf32>, tensor<2x4x8x16xf32>, tensor<1xi64>, tensor<64x2x8xf32>) {
  // CHECK: telar.reshape %{{.*}} {shape = array<i64: 2, 8, 4, 16>} : (tensor<2x8x64xf32>) -> tensor<2x8x4x16xf32>
  %0 = telar.reshape %x {shape = array<i64: 2, 8, 4, 16>} : (tensor<2x8x64xf32>) -> tensor<2x8x4x16xf32>
  // CHECK: telar.reshape %{{.*}} {shape = array<i64: 16, 64>} : (tensor<2x8x64xf32>) -> tensor<16x64xf32>
  %1 = telar.reshape %x {shape = array<i64: 16, 64>} : (tensor<2x8x64xf32>) -> tensor<16x64xf32>
  // CHECK: telar.transpose %{{.*}} {perm = array<i64: 0, 2, 1, 3>} : (tensor<2x8x4x16xf32>) -> tensor<2x4x8x16xf32>
  %2 = telar.transpose %0 {perm = array<i64: 0, 2, 1, 3>} : (tensor<2x8x4x16xf32>) -> tensor<2x4x8x16xf32>
  // Scalar to 1-element vector.
  // CHECK: telar.reshape %{{.*}} {shape = array<i64: 1>} : (tensor<i64>) -> tensor<1xi64>
  %3 = telar.reshape %s {shape = array<i64: 1>} : (tensor<i64>) -> tensor<1xi64>
  // CHECK: telar.transpose %{{.*}} {perm = array<i64: 2, 0, 1>} : (tensor<2x8x64xf32>) -> tensor<64x2x8xf32>
  %4 = telar.transpose %x {perm = array<i64: 2, 0, 1>} : (tensor<2x8x64xf32>) -> tensor<64x2x8xf32>
  return %0, %1, %2, %3, %4 : tensor<2x8x4x16xf32>, tensor<16x64xf32>, tensor<2x4x8x16xf32>, tensor<1xi64>, tensor<64x2x8xf32>
}

// -----

// CHECK-LABEL: func @squeeze_unsqueeze
func.func @squeeze_unsqueeze(%x: tensor<2x1x8x1xf32>, %v: tensor<8xf32>) -> (tensor<2x8x1xf32>, tensor<2x8xf32>, tensor<2x1x8xf32>, tensor<1x8x1xf32>, tensor<8x1xf32>, tensor<1x1x8xf32>) {
  // CHECK: telar.squeeze %{{.*}} {axes = array<i64: 1>} : (tensor<2x1x8x1xf32>) -> tensor<2x8x1xf32>
  %0 = telar.squeeze %x {axes = array<i64: 1>} : (tensor<2x1x8x1xf32>) -> tensor<2x8x1xf32>
  // No axes: every size-1 dim.
  // CHECK: telar.squeeze %{{.*}} : (tensor<2x1x8x1xf32>) -> tensor<2x8xf32>
  %1 = telar.squeeze %x : (tensor<2x1x8x1xf32>) -> tensor<2x8xf32>
  // CHECK: telar.squeeze %{{.*}} {axes = array<i64: -1>} : (tensor<2x1x8x1xf32>) -> tensor<2x1x8xf32>
  %2 = telar.squeeze %x {axes = array<i64: -1>} : (tensor<2x1x8x1xf32>) -> tensor<2x1x8xf32>
  // Unsqueeze axes index the result.
  // CHECK: telar.unsqueeze %{{.*}} {axes = array<i64: 0, 2>} : (tensor<8xf32>) -> tensor<1x8x1xf32>
  %3 = telar.unsqueeze %v {axes = array<i64: 0, 2>} : (tensor<8xf32>) -> tensor<1x8x1xf32>
  // CHECK: telar.unsqueeze %{{.*}} {axes = array<i64: -1>} : (tensor<8xf32>) -> tensor<8x1xf32>
  %4 = telar.unsqueeze %v {axes = array<i64: -1>} : (tensor<8xf32>) -> tensor<8x1xf32>
  // CHECK: telar.unsqueeze %{{.*}} {axes = array<i64: 1, 0>} : (tensor<8xf32>) -> tensor<1x1x8xf32>
  %5 = telar.unsqueeze %v {axes = array<i64: 1, 0>} : (tensor<8xf32>) -> tensor<1x1x8xf32>
  return %0, %1, %2, %3, %4, %5 : tensor<2x8x1xf32>, tensor<2x8xf32>, tensor<2x1x8xf32>, tensor<1x8x1xf32>, tensor<8x1xf32>, tensor<1x1x8xf32>
}

// -----

// CHECK-LABEL: func @concat_split
func.func @concat_split(%a: tensor<2x3xf32>, %b: tensor<2x5xf32>, %c: tensor<4x3xf32>, %i: tensor<1xi64>) -> (tensor<2x8xf32>, tensor<6x3xf32>, tensor<3xi64>, tensor<2x3xf32>, tensor<2x5xf32>, tensor<2x8xf32>, tensor<2x0xf32>) {
  // CHECK: telar.concat %{{.*}}, %{{.*}} {axis = 1 : i64} : (tensor<2x3xf32>, tensor<2x5xf32>) -> tensor<2x8xf32>
  %0 = telar.concat %a, %b {axis = 1 : i64} : (tensor<2x3xf32>, tensor<2x5xf32>) -> tensor<2x8xf32>
  // CHECK: telar.concat %{{.*}}, %{{.*}} {axis = -2 : i64} : (tensor<2x3xf32>, tensor<4x3xf32>) -> tensor<6x3xf32>
  %1 = telar.concat %a, %c {axis = -2 : i64} : (tensor<2x3xf32>, tensor<4x3xf32>) -> tensor<6x3xf32>
  // CHECK: telar.concat %{{.*}}, %{{.*}}, %{{.*}} {axis = 0 : i64} : (tensor<1xi64>, tensor<1xi64>, tensor<1xi64>) -> tensor<3xi64>
  %2 = telar.concat %i, %i, %i {axis = 0 : i64} : (tensor<1xi64>, tensor<1xi64>, tensor<1xi64>) -> tensor<3xi64>
  // CHECK: %{{.*}}:2 = telar.split %{{.*}} {axis = 1 : i64, sizes = array<i64: 3, 5>} : (tensor<2x8xf32>) -> (tensor<2x3xf32>, tensor<2x5xf32>)
  %3:2 = telar.split %0 {axis = 1 : i64, sizes = array<i64: 3, 5>} : (tensor<2x8xf32>) -> (tensor<2x3xf32>, tensor<2x5xf32>)
  // One piece, and a zero-sized piece, with a negative axis.
  // CHECK: %{{.*}}:2 = telar.split %{{.*}} {axis = -1 : i64, sizes = array<i64: 8, 0>} : (tensor<2x8xf32>) -> (tensor<2x8xf32>, tensor<2x0xf32>)
  %4:2 = telar.split %0 {axis = -1 : i64, sizes = array<i64: 8, 0>} : (tensor<2x8xf32>) -> (tensor<2x8xf32>, tensor<2x0xf32>)
  return %0, %1, %2, %3#0, %3#1, %4#0, %4#1 : tensor<2x8xf32>, tensor<6x3xf32>, tensor<3xi64>, tensor<2x3xf32>, tensor<2x5xf32>, tensor<2x8xf32>, tensor<2x0xf32>
}

// -----

// CHECK-LABEL: func @slice
func.func @slice(%x: tensor<2x8xf32>, %y: tensor<4x10x6xf32>) -> (tensor<2x2xf32>, tensor<4x3x6xf32>, tensor<4x10x2xf32>, tensor<4x10x6xf32>, tensor<2x0xf32>, tensor<1x5x6xf32>) {
  // CHECK: telar.slice %{{.*}} {axes = array<i64: 1>, ends = array<i64: 4>, starts = array<i64: 0>, steps = array<i64: 2>} : (tensor<2x8xf32>) -> tensor<2x2xf32>
  %0 = telar.slice %x {axes = array<i64: 1>, starts = array<i64: 0>, ends = array<i64: 4>, steps = array<i64: 2>} : (tensor<2x8xf32>) -> tensor<2x2xf32>
  // Negative start and end: [-4, -1) of 10 is [6, 9).
  // CHECK: telar.slice %{{.*}} : (tensor<4x10x6xf32>) -> tensor<4x3x6xf32>
  %1 = telar.slice %y {axes = array<i64: 1>, starts = array<i64: -4>, ends = array<i64: -1>, steps = array<i64: 1>} : (tensor<4x10x6xf32>) -> tensor<4x3x6xf32>
  // Negative axis; end clamped (INT64_MAX style).
  // CHECK: telar.slice %{{.*}} : (tensor<4x10x6xf32>) -> tensor<4x10x2xf32>
  %2 = telar.slice %y {axes = array<i64: -1>, starts = array<i64: 4>, ends = array<i64: 9223372036854775807>, steps = array<i64: 1>} : (tensor<4x10x6xf32>) -> tensor<4x10x2xf32>
  // Full reverse with a negative step: start clamped to dim-1, end to -1.
  // CHECK: telar.slice %{{.*}} : (tensor<4x10x6xf32>) -> tensor<4x10x6xf32>
  %3 = telar.slice %y {axes = array<i64: 2>, starts = array<i64: -1>, ends = array<i64: -9223372036854775807>, steps = array<i64: -1>} : (tensor<4x10x6xf32>) -> tensor<4x10x6xf32>
  // Empty result.
  // CHECK: telar.slice %{{.*}} : (tensor<2x8xf32>) -> tensor<2x0xf32>
  %4 = telar.slice %x {axes = array<i64: 1>, starts = array<i64: 5>, ends = array<i64: 2>, steps = array<i64: 1>} : (tensor<2x8xf32>) -> tensor<2x0xf32>
  // Two axes, one with step -2: 9, 7, 5, 3, 1.
  // CHECK: telar.slice %{{.*}} {axes = array<i64: 0, 1>, ends = array<i64: 1, -100>, starts = array<i64: 0, 9>, steps = array<i64: 1, -2>} : (tensor<4x10x6xf32>) -> tensor<1x5x6xf32>
  %5 = telar.slice %y {axes = array<i64: 0, 1>, starts = array<i64: 0, 9>, ends = array<i64: 1, -100>, steps = array<i64: 1, -2>} : (tensor<4x10x6xf32>) -> tensor<1x5x6xf32>
  return %0, %1, %2, %3, %4, %5 : tensor<2x2xf32>, tensor<4x3x6xf32>, tensor<4x10x2xf32>, tensor<4x10x6xf32>, tensor<2x0xf32>, tensor<1x5x6xf32>
}

// -----

// CHECK-LABEL: func @gathers
func.func @gathers(%table: tensor<1000x64xf32>, %ids: tensor<2x16xi64>, %x: tensor<4x8xf32>, %i: tensor<4x2xi32>, %s: tensor<i64>, %t: tensor<3x2xi64>) -> (tensor<2x16x64xf32>, tensor<4x4x2xf32>, tensor<4xf32>, tensor<4x2xf32>, tensor<3xf32>, tensor<3x8xf32>) {
  // Embedding lookup.
  // CHECK: telar.gather %{{.*}}, %{{.*}} : (tensor<1000x64xf32>, tensor<2x16xi64>) -> tensor<2x16x64xf32>
  %0 = telar.gather %table, %ids : (tensor<1000x64xf32>, tensor<2x16xi64>) -> tensor<2x16x64xf32>
  // Gather along the last axis, i32 indices.
  // CHECK: telar.gather %{{.*}}, %{{.*}} {axis = -1 : i64} : (tensor<4x8xf32>, tensor<4x2xi32>) -> tensor<4x4x2xf32>
  %1 = telar.gather %x, %i {axis = -1 : i64} : (tensor<4x8xf32>, tensor<4x2xi32>) -> tensor<4x4x2xf32>
  // A scalar index removes the axis.
  // CHECK: telar.gather %{{.*}}, %{{.*}} {axis = 1 : i64} : (tensor<4x8xf32>, tensor<i64>) -> tensor<4xf32>
  %2 = telar.gather %x, %s {axis = 1 : i64} : (tensor<4x8xf32>, tensor<i64>) -> tensor<4xf32>
  // CHECK: telar.gather_elements %{{.*}}, %{{.*}} {axis = 1 : i64} : (tensor<4x8xf32>, tensor<4x2xi32>) -> tensor<4x2xf32>
  %3 = telar.gather_elements %x, %i {axis = 1 : i64} : (tensor<4x8xf32>, tensor<4x2xi32>) -> tensor<4x2xf32>
  // Full index tuples pick elements; shorter ones pick rows.
  // CHECK: telar.gather_nd %{{.*}}, %{{.*}} : (tensor<4x8xf32>, tensor<3x2xi64>) -> tensor<3xf32>
  %4 = telar.gather_nd %x, %t : (tensor<4x8xf32>, tensor<3x2xi64>) -> tensor<3xf32>
  %t1 = telar.slice %t {axes = array<i64: 1>, starts = array<i64: 0>, ends = array<i64: 1>, steps = array<i64: 1>} : (tensor<3x2xi64>) -> tensor<3x1xi64>
  // CHECK: telar.gather_nd %{{.*}}, %{{.*}} : (tensor<4x8xf32>, tensor<3x1xi64>) -> tensor<3x8xf32>
  %5 = telar.gather_nd %x, %t1 : (tensor<4x8xf32>, tensor<3x1xi64>) -> tensor<3x8xf32>
  return %0, %1, %2, %3, %4, %5 : tensor<2x16x64xf32>, tensor<4x4x2xf32>, tensor<4xf32>, tensor<4x2xf32>, tensor<3xf32>, tensor<3x8xf32>
}

// -----

// CHECK-LABEL: func @gather_nd_batch
func.func @gather_nd_batch(%x: tensor<2x5x8xf32>, %i: tensor<2x3x1xi64>) -> tensor<2x3x8xf32> {
  // CHECK: telar.gather_nd %{{.*}}, %{{.*}} {batch_dims = 1 : i64} : (tensor<2x5x8xf32>, tensor<2x3x1xi64>) -> tensor<2x3x8xf32>
  %0 = telar.gather_nd %x, %i {batch_dims = 1 : i64} : (tensor<2x5x8xf32>, tensor<2x3x1xi64>) -> tensor<2x3x8xf32>
  return %0 : tensor<2x3x8xf32>
}

// -----

// CHECK-LABEL: func @scatters
func.func @scatters(%x: tensor<4x8xf32>, %i: tensor<4x2xi64>, %u: tensor<4x2xf32>, %r: tensor<2x1xi64>, %ru: tensor<2x8xf32>, %e: tensor<3x2xi64>, %eu: tensor<3xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>) {
  // CHECK: telar.scatter_elements %{{.*}}, %{{.*}}, %{{.*}} {axis = 1 : i64, reduction = "add"} : (tensor<4x8xf32>, tensor<4x2xi64>, tensor<4x2xf32>) -> tensor<4x8xf32>
  %0 = telar.scatter_elements %x, %i, %u {axis = 1 : i64, reduction = "add"} : (tensor<4x8xf32>, tensor<4x2xi64>, tensor<4x2xf32>) -> tensor<4x8xf32>
  // CHECK: telar.scatter_elements %{{.*}}, %{{.*}}, %{{.*}} : (tensor<4x8xf32>, tensor<4x2xi64>, tensor<4x2xf32>) -> tensor<4x8xf32>
  %1 = telar.scatter_elements %x, %i, %u : (tensor<4x8xf32>, tensor<4x2xi64>, tensor<4x2xf32>) -> tensor<4x8xf32>
  // Row updates.
  // CHECK: telar.scatter_nd %{{.*}}, %{{.*}}, %{{.*}} : (tensor<4x8xf32>, tensor<2x1xi64>, tensor<2x8xf32>) -> tensor<4x8xf32>
  %2 = telar.scatter_nd %x, %r, %ru : (tensor<4x8xf32>, tensor<2x1xi64>, tensor<2x8xf32>) -> tensor<4x8xf32>
  // Element updates.
  // CHECK: telar.scatter_nd %{{.*}}, %{{.*}}, %{{.*}} {reduction = "max"} : (tensor<4x8xf32>, tensor<3x2xi64>, tensor<3xf32>) -> tensor<4x8xf32>
  %3 = telar.scatter_nd %x, %e, %eu {reduction = "max"} : (tensor<4x8xf32>, tensor<3x2xi64>, tensor<3xf32>) -> tensor<4x8xf32>
  return %0, %1, %2, %3 : tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>
}

// -----

// CHECK-LABEL: func @expand_tile_pad
func.func @expand_tile_pad(%x: tensor<3x1xf32>, %y: tensor<2x4xf32>, %i: tensor<5xi64>) -> (tensor<4x3x8xf32>, tensor<3x1xf32>, tensor<3x6xf32>, tensor<4x12xf32>, tensor<0x4xf32>, tensor<2x6xf32>, tensor<4x7xf32>, tensor<2x2xf32>, tensor<9xi64>) {
  // Expand broadcasts both ways: (3x1) with (4x1x8) gives 4x3x8.
  // CHECK: telar.expand %{{.*}} {shape = array<i64: 4, 1, 8>} : (tensor<3x1xf32>) -> tensor<4x3x8xf32>
  %0 = telar.expand %x {shape = array<i64: 4, 1, 8>} : (tensor<3x1xf32>) -> tensor<4x3x8xf32>
  // A smaller target shape keeps the input shape.
  // CHECK: telar.expand %{{.*}} {shape = array<i64: 1>} : (tensor<3x1xf32>) -> tensor<3x1xf32>
  %1 = telar.expand %x {shape = array<i64: 1>} : (tensor<3x1xf32>) -> tensor<3x1xf32>
  // CHECK: telar.expand %{{.*}} {shape = array<i64: 3, 6>} : (tensor<3x1xf32>) -> tensor<3x6xf32>
  %2 = telar.expand %x {shape = array<i64: 3, 6>} : (tensor<3x1xf32>) -> tensor<3x6xf32>
  // CHECK: telar.tile %{{.*}} {repeats = array<i64: 2, 3>} : (tensor<2x4xf32>) -> tensor<4x12xf32>
  %3 = telar.tile %y {repeats = array<i64: 2, 3>} : (tensor<2x4xf32>) -> tensor<4x12xf32>
  // CHECK: telar.tile %{{.*}} {repeats = array<i64: 0, 1>} : (tensor<2x4xf32>) -> tensor<0x4xf32>
  %4 = telar.tile %y {repeats = array<i64: 0, 1>} : (tensor<2x4xf32>) -> tensor<0x4xf32>
  // The default mode and value are not printed.
  // CHECK: telar.pad %{{.*}} {pads = array<i64: 0, 1, 0, 1>} : (tensor<2x4xf32>) -> tensor<2x6xf32>
  %5 = telar.pad %y {pads = array<i64: 0, 1, 0, 1>, mode = "constant", value = 0.0 : f64} : (tensor<2x4xf32>) -> tensor<2x6xf32>
  // CHECK: telar.pad %{{.*}} {mode = "reflect", pads = array<i64: 1, 2, 1, 1>} : (tensor<2x4xf32>) -> tensor<4x7xf32>
  %6 = telar.pad %y {pads = array<i64: 1, 2, 1, 1>, mode = "reflect"} : (tensor<2x4xf32>) -> tensor<4x7xf32>
  // Negative pads crop.
  // CHECK: telar.pad %{{.*}} {mode = "edge", pads = array<i64: 0, -1, 0, -1>} : (tensor<2x4xf32>) -> tensor<2x2xf32>
  %7 = telar.pad %y {pads = array<i64: 0, -1, 0, -1>, mode = "edge"} : (tensor<2x4xf32>) -> tensor<2x2xf32>
  // CHECK: telar.pad %{{.*}} {mode = "wrap", pads = array<i64: 2, 2>, value = 1.000000e+00 : f64} : (tensor<5xi64>) -> tensor<9xi64>
  %8 = telar.pad %i {pads = array<i64: 2, 2>, mode = "wrap", value = 1.0 : f64} : (tensor<5xi64>) -> tensor<9xi64>
  return %0, %1, %2, %3, %4, %5, %6, %7, %8 : tensor<4x3x8xf32>, tensor<3x1xf32>, tensor<3x6xf32>, tensor<4x12xf32>, tensor<0x4xf32>, tensor<2x6xf32>, tensor<4x7xf32>, tensor<2x2xf32>, tensor<9xi64>
}

// -----

// CHECK-LABEL: func @one_hot
func.func @one_hot(%i: tensor<4xi64>, %v: tensor<2xf32>, %j: tensor<2x3xi32>, %w: tensor<2xi64>) -> (tensor<4x8xf32>, tensor<8x4xf32>, tensor<2x5x3xi64>) {
  // The default axis (-1) appends the depth axis.
  // CHECK: telar.one_hot %{{.*}}, %{{.*}} {depth = 8 : i64} : (tensor<4xi64>, tensor<2xf32>) -> tensor<4x8xf32>
  %0 = telar.one_hot %i, %v {depth = 8 : i64} : (tensor<4xi64>, tensor<2xf32>) -> tensor<4x8xf32>
  // CHECK: telar.one_hot %{{.*}}, %{{.*}} {axis = 0 : i64, depth = 8 : i64} : (tensor<4xi64>, tensor<2xf32>) -> tensor<8x4xf32>
  %1 = telar.one_hot %i, %v {depth = 8 : i64, axis = 0 : i64} : (tensor<4xi64>, tensor<2xf32>) -> tensor<8x4xf32>
  // The element type is that of the values; axis -2 of a rank-3 result is 1.
  // CHECK: telar.one_hot %{{.*}}, %{{.*}} {axis = -2 : i64, depth = 5 : i64} : (tensor<2x3xi32>, tensor<2xi64>) -> tensor<2x5x3xi64>
  %2 = telar.one_hot %j, %w {depth = 5 : i64, axis = -2 : i64} : (tensor<2x3xi32>, tensor<2xi64>) -> tensor<2x5x3xi64>
  return %0, %1, %2 : tensor<4x8xf32>, tensor<8x4xf32>, tensor<2x5x3xi64>
}
