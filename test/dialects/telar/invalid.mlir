// RUN: telar-opt %s -split-input-file -verify-diagnostics

// Verifier errors of the telar ops (the NN ops are tested elsewhere). A
// failed inference reports its reason, then "failed to infer returned types";
// a declared result type that differs from the inferred one reports both.

//===----------------------------------------------------------------------===//
// Constants and unary ops
//===----------------------------------------------------------------------===//

func.func @constant_index_type() {
  // expected-error @+1 {{'telar.constant' op result #0 must be ranked tensor of floating-point or integer values, but got 'tensor<2xindex>'}}
  %0 = telar.constant dense<[1, 2]> : tensor<2xindex>
  return
}

// -----

func.func @unary_wrong_result_type(%x: tensor<2x3xf32>) {
  // expected-error @+2 {{'telar.exp' op inferred type(s) 'tensor<2x3xf32>' are incompatible with return type(s) of operation 'tensor<2x3xf16>'}}
  // expected-error @+1 {{'telar.exp' op failed to infer returned types}}
  %0 = telar.exp %x : (tensor<2x3xf32>) -> tensor<2x3xf16>
  return
}

// -----

func.func @unary_wrong_result_shape(%x: tensor<2x3xf32>) {
  // expected-error @+2 {{'telar.leaky_relu' op inferred type(s) 'tensor<2x3xf32>' are incompatible with return type(s) of operation 'tensor<3x2xf32>'}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = telar.leaky_relu %x {alpha = 0.1 : f32} : (tensor<2x3xf32>) -> tensor<3x2xf32>
  return
}

// -----

func.func @float_unary_on_int(%x: tensor<2x3xi32>) {
  // expected-error @+1 {{'telar.exp' op operand #0 must be ranked tensor of floating-point values, but got 'tensor<2x3xi32>'}}
  %0 = telar.exp %x : (tensor<2x3xi32>) -> tensor<2x3xi32>
  return
}

// -----

func.func @not_on_int(%x: tensor<4xi32>) {
  // expected-error @+1 {{'telar.not' op operand #0 must be ranked tensor of 1-bit signless integer values}}
  %0 = telar.not %x : (tensor<4xi32>) -> tensor<4xi32>
  return
}

// -----

func.func @bitwise_not_on_float(%x: tensor<4xf32>) {
  // expected-error @+1 {{'telar.bitwise_not' op operand #0 must be ranked tensor of 8- to 64-bit integer values}}
  %0 = telar.bitwise_not %x : (tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @is_nan_wrong_shape(%x: tensor<4x8xf32>) {
  // expected-error @+2 {{'telar.is_nan' op inferred type(s) 'tensor<4x8xi1>' are incompatible with return type(s) of operation 'tensor<8x4xi1>'}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = telar.is_nan %x : (tensor<4x8xf32>) -> tensor<8x4xi1>
  return
}

// -----

func.func @is_inf_not_bool(%x: tensor<4x8xf32>) {
  // expected-error @+1 {{'telar.is_inf' op result #0 must be ranked tensor of 1-bit signless integer values, but got 'tensor<4x8xf32>'}}
  %0 = telar.is_inf %x : (tensor<4x8xf32>) -> tensor<4x8xf32>
  return
}

// -----

func.func @cast_result_not_to(%x: tensor<2x3xf32>) {
  // expected-error @+2 {{'telar.cast' op inferred type(s) 'tensor<2x3xi32>' are incompatible with return type(s) of operation 'tensor<2x3xi64>'}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = telar.cast %x {to = i32} : (tensor<2x3xf32>) -> tensor<2x3xi64>
  return
}

// -----

//===----------------------------------------------------------------------===//
// Binary ops and where
//===----------------------------------------------------------------------===//

func.func @binary_wrong_result_shape(%x: tensor<2x3xf32>, %y: tensor<3xf32>) {
  // expected-error @+2 {{'telar.add' op inferred type(s) 'tensor<2x3xf32>' are incompatible with return type(s) of operation 'tensor<3x3xf32>'}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = telar.add %x, %y : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<3x3xf32>
  return
}

// -----

func.func @binary_element_type_mismatch(%x: tensor<2x3xf32>, %y: tensor<3xi32>) {
  // expected-error @+2 {{operands have different element types: tensor<2x3xf32> and tensor<3xi32>}}
  // expected-error @+1 {{'telar.add' op failed to infer returned types}}
  %0 = telar.add %x, %y : (tensor<2x3xf32>, tensor<3xi32>) -> tensor<2x3xf32>
  return
}

// -----

func.func @binary_not_broadcastable(%x: tensor<2x3xf32>, %y: tensor<4xf32>) {
  // expected-error @+2 {{operand shapes do not broadcast: tensor<2x3xf32> and tensor<4xf32>}}
  // expected-error @+1 {{'telar.mul' op failed to infer returned types}}
  %0 = telar.mul %x, %y : (tensor<2x3xf32>, tensor<4xf32>) -> tensor<2x3xf32>
  return
}

// -----

func.func @predicate_not_broadcastable(%x: tensor<2x3xi64>, %y: tensor<2x1x2xi64>) {
  // expected-error @+2 {{operand shapes do not broadcast: tensor<2x3xi64> and tensor<2x1x2xi64>}}
  // expected-error @+1 {{'telar.less' op failed to infer returned types}}
  %0 = telar.less %x, %y : (tensor<2x3xi64>, tensor<2x1x2xi64>) -> tensor<2x2x3xi1>
  return
}

// -----

func.func @predicate_result_not_bool(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{'telar.equal' op result #0 must be ranked tensor of 1-bit signless integer values, but got 'tensor<2x3xf32>'}}
  %0 = telar.equal %x, %x : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  return
}

// -----

func.func @predicate_wrong_shape(%x: tensor<2x3xf32>, %y: tensor<3xf32>) {
  // expected-error @+2 {{'telar.greater' op inferred type(s) 'tensor<2x3xi1>' are incompatible with return type(s) of operation 'tensor<3xi1>'}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = telar.greater %x, %y : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<3xi1>
  return
}

// -----

func.func @mod_element_type_mismatch(%x: tensor<4x8xf32>, %y: tensor<4x8xi32>) {
  // expected-error @+2 {{operands have different element types: tensor<4x8xf32> and tensor<4x8xi32>}}
  // expected-error @+1 {{'telar.mod' op failed to infer returned types}}
  %0 = telar.mod %x, %y : (tensor<4x8xf32>, tensor<4x8xi32>) -> tensor<4x8xf32>
  return
}

// -----

func.func @bit_shift_on_float(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{'telar.bit_shift' op operand #0 must be ranked tensor of 8- to 64-bit integer values, but got 'tensor<2x3xf32>'}}
  %0 = telar.bit_shift %x, %x : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  return
}

// -----

func.func @and_on_int(%x: tensor<2xi32>) {
  // expected-error @+1 {{'telar.and' op operand #0 must be ranked tensor of 1-bit signless integer values}}
  %0 = telar.and %x, %x : (tensor<2xi32>, tensor<2xi32>) -> tensor<2xi32>
  return
}

// -----

func.func @where_condition_not_bool(%c: tensor<2x3xi32>, %x: tensor<2x3xf32>) {
  // expected-error @+1 {{'telar.where' op operand #0 must be ranked tensor of 1-bit signless integer values, but got 'tensor<2x3xi32>'}}
  %0 = telar.where %c, %x, %x : (tensor<2x3xi32>, tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  return
}

// -----

func.func @where_condition_not_broadcastable(%c: tensor<4xi1>, %x: tensor<2x3xf32>) {
  // expected-error @+2 {{condition tensor<4xi1> does not broadcast with tensor<2x3xf32>}}
  // expected-error @+1 {{'telar.where' op failed to infer returned types}}
  %0 = telar.where %c, %x, %x : (tensor<4xi1>, tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  return
}

// -----

func.func @where_values_differ(%c: tensor<4x8xi1>, %x: tensor<4x8xf32>, %y: tensor<4x8xf16>) {
  // expected-error @+2 {{operands have different element types: tensor<4x8xf32> and tensor<4x8xf16>}}
  // expected-error @+1 {{'telar.where' op failed to infer returned types}}
  %0 = telar.where %c, %x, %y : (tensor<4x8xi1>, tensor<4x8xf32>, tensor<4x8xf16>) -> tensor<4x8xf32>
  return
}

// -----

func.func @where_wrong_result(%c: tensor<2x1x1xi1>, %x: tensor<4x8xf32>) {
  // expected-error @+2 {{'telar.where' op inferred type(s) 'tensor<2x4x8xf32>' are incompatible with return type(s) of operation 'tensor<4x8xf32>'}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = telar.where %c, %x, %x : (tensor<2x1x1xi1>, tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  return
}

// -----

//===----------------------------------------------------------------------===//
// Reductions
//===----------------------------------------------------------------------===//

func.func @reduce_axis_out_of_range(%x: tensor<2x3xf32>) {
  // expected-error @+2 {{reduction axis 2 is out of range for tensor<2x3xf32>}}
  // expected-error @+1 {{'telar.reduce_sum' op failed to infer returned types}}
  %0 = telar.reduce_sum %x {axes = array<i64: 2>} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return
}

// -----

func.func @reduce_negative_axis_out_of_range(%x: tensor<2x3xf32>) {
  // expected-error @+2 {{reduction axis -3 is out of range for tensor<2x3xf32>}}
  // expected-error @+1 {{'telar.reduce_max' op failed to infer returned types}}
  %0 = telar.reduce_max %x {axes = array<i64: -3>} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return
}

// -----

func.func @reduce_repeated_axis(%x: tensor<2x3xf32>) {
  // expected-error @+2 {{reduction axis -1 is repeated}}
  // expected-error @+1 {{'telar.reduce_sum' op failed to infer returned types}}
  %0 = telar.reduce_sum %x {axes = array<i64: 1, -1>} : (tensor<2x3xf32>) -> tensor<2x1xf32>
  return
}

// -----

func.func @reduce_keepdims_false_declared_kept(%x: tensor<4x8xf32>) {
  // expected-error @+2 {{'telar.reduce_mean' op inferred type(s) 'tensor<4xf32>' are incompatible with return type(s) of operation 'tensor<4x1xf32>'}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = telar.reduce_mean %x {axes = array<i64: 1>, keepdims = false} : (tensor<4x8xf32>) -> tensor<4x1xf32>
  return
}

// -----

func.func @reduce_keepdims_default(%x: tensor<4x8xf32>) {
  // expected-error @+2 {{'telar.reduce_l2' op inferred type(s) 'tensor<1x1xf32>' are incompatible with return type(s) of operation 'tensor<f32>'}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = telar.reduce_l2 %x : (tensor<4x8xf32>) -> tensor<f32>
  return
}

// -----

func.func @arg_max_scalar(%x: tensor<f32>) {
  // expected-error @+2 {{expected a tensor of rank >= 1}}
  // expected-error @+1 {{'telar.arg_max' op failed to infer returned types}}
  %0 = telar.arg_max %x : (tensor<f32>) -> tensor<i64>
  return
}

// -----

func.func @arg_min_axis_out_of_range(%x: tensor<2x3xf32>) {
  // expected-error @+2 {{reduction axis 2 is out of range for tensor<2x3xf32>}}
  // expected-error @+1 {{'telar.arg_min' op failed to infer returned types}}
  %0 = telar.arg_min %x {axis = 2 : i64} : (tensor<2x3xf32>) -> tensor<2x3xi64>
  return
}

// -----

func.func @arg_max_not_i64(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{'telar.arg_max' op result #0 must be ranked tensor of 64-bit signless integer values, but got 'tensor<2x1xi32>'}}
  %0 = telar.arg_max %x {axis = 1 : i64} : (tensor<2x3xf32>) -> tensor<2x1xi32>
  return
}

// -----

//===----------------------------------------------------------------------===//
// Softmax family, cum_sum, trilu, top_k
//===----------------------------------------------------------------------===//

func.func @softmax_axis_out_of_range(%x: tensor<2x3xf32>) {
  // expected-error @+2 {{axis 2 is out of range for tensor<2x3xf32> (rank 2)}}
  // expected-error @+1 {{'telar.softmax' op failed to infer returned types}}
  %0 = telar.softmax %x {axis = 2 : i64} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return
}

// -----

func.func @log_softmax_negative_axis_out_of_range(%x: tensor<2x3xf32>) {
  // expected-error @+2 {{axis -3 is out of range for tensor<2x3xf32> (rank 2)}}
  // expected-error @+1 {{'telar.log_softmax' op failed to infer returned types}}
  %0 = telar.log_softmax %x {axis = -3 : i64} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return
}

// -----

func.func @hardmax_on_int(%x: tensor<2x3xi32>) {
  // expected-error @+1 {{'telar.hardmax' op operand #0 must be ranked tensor of floating-point values}}
  %0 = telar.hardmax %x : (tensor<2x3xi32>) -> tensor<2x3xi32>
  return
}

// -----

func.func @cum_sum_axis_out_of_range(%x: tensor<4x8xf32>) {
  // expected-error @+2 {{axis -3 is out of range for tensor<4x8xf32> (rank 2)}}
  // expected-error @+1 {{'telar.cum_sum' op failed to infer returned types}}
  %0 = telar.cum_sum %x {axis = -3 : i64} : (tensor<4x8xf32>) -> tensor<4x8xf32>
  return
}

// -----

func.func @trilu_rank_1(%x: tensor<3xf32>) {
  // expected-error @+2 {{trilu needs a tensor of rank >= 2, got rank 1}}
  // expected-error @+1 {{'telar.trilu' op failed to infer returned types}}
  %0 = telar.trilu %x : (tensor<3xf32>) -> tensor<3xf32>
  return
}

// -----

func.func @top_k_k_too_large(%x: tensor<4x8xf32>) {
  // expected-error @+2 {{top_k: k = 9 must be between 0 and dimension 1 of tensor<4x8xf32>}}
  // expected-error @+1 {{'telar.top_k' op failed to infer returned types}}
  %0:2 = telar.top_k %x {k = 9 : i64} : (tensor<4x8xf32>) -> (tensor<4x9xf32>, tensor<4x9xi64>)
  return
}

// -----

func.func @top_k_negative_k(%x: tensor<4x8xf32>) {
  // expected-error @+2 {{top_k: k = -1 must be between 0 and dimension 1 of tensor<4x8xf32>}}
  // expected-error @+1 {{'telar.top_k' op failed to infer returned types}}
  %0:2 = telar.top_k %x {k = -1 : i64} : (tensor<4x8xf32>) -> (tensor<4x1xf32>, tensor<4x1xi64>)
  return
}

// -----

func.func @top_k_axis_out_of_range(%x: tensor<4x8xf32>) {
  // expected-error @+2 {{top_k axis 2 is out of range for tensor<4x8xf32>}}
  // expected-error @+1 {{'telar.top_k' op failed to infer returned types}}
  %0:2 = telar.top_k %x {k = 2 : i64, axis = 2 : i64} : (tensor<4x8xf32>) -> (tensor<4x2xf32>, tensor<4x2xi64>)
  return
}

// -----

func.func @top_k_negative_axis_out_of_range(%x: tensor<4x8xf32>) {
  // expected-error @+2 {{top_k axis -3 is out of range for tensor<4x8xf32>}}
  // expected-error @+1 {{'telar.top_k' op failed to infer returned types}}
  %0:2 = telar.top_k %x {k = 2 : i64, axis = -3 : i64} : (tensor<4x8xf32>) -> (tensor<4x2xf32>, tensor<4x2xi64>)
  return
}

// -----

func.func @top_k_wrong_axis_result(%x: tensor<4x8xf32>) {
  // expected-error @+2 {{'telar.top_k' op inferred type(s) 'tensor<2x8xf32>', 'tensor<2x8xi64>' are incompatible with return type(s) of operation 'tensor<4x2xf32>', 'tensor<4x2xi64>'}}
  // expected-error @+1 {{failed to infer returned types}}
  %0:2 = telar.top_k %x {k = 2 : i64, axis = 0 : i64} : (tensor<4x8xf32>) -> (tensor<4x2xf32>, tensor<4x2xi64>)
  return
}

// -----

func.func @top_k_indices_not_i64(%x: tensor<4x8xf32>) {
  // expected-error @+1 {{'telar.top_k' op result #1 must be ranked tensor of 64-bit signless integer values, but got 'tensor<4x2xi32>'}}
  %0:2 = telar.top_k %x {k = 2 : i64} : (tensor<4x8xf32>) -> (tensor<4x2xf32>, tensor<4x2xi32>)
  return
}

// -----

//===----------------------------------------------------------------------===//
// Pooling
//===----------------------------------------------------------------------===//

func.func @pool_kernel_rank(%x: tensor<1x8x32x32xf32>) {
  // expected-error @+2 {{pooling over 2 spatial axes needs 2 kernel sizes, strides and dilations and 4 pads; got 1, 2, 2 and 4}}
  // expected-error @+1 {{'telar.max_pool' op failed to infer returned types}}
  %0 = telar.max_pool %x {kernel_shape = array<i64: 3>, strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>} : (tensor<1x8x32x32xf32>) -> tensor<1x8x30x30xf32>
  return
}

// -----

func.func @average_pool_int(%x: tensor<1x2x4x4xi8>) {
  // expected-error @+1 {{'telar.average_pool' op operand #0 must be ranked tensor of floating-point values}}
  %0 = telar.average_pool %x {kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>} : (tensor<1x2x4x4xi8>) -> tensor<1x2x2x2xi8>
  return
}

// -----

func.func @pool_pads_count(%x: tensor<1x8x32x32xf32>) {
  // expected-error @+2 {{needs 2 kernel sizes, strides and dilations and 4 pads; got 2, 2, 2 and 2}}
  // expected-error @+1 {{'telar.average_pool' op failed to infer returned types}}
  %0 = telar.average_pool %x {kernel_shape = array<i64: 2, 2>, strides = array<i64: 1, 1>, pads = array<i64: 0, 0>, dilations = array<i64: 1, 1>} : (tensor<1x8x32x32xf32>) -> tensor<1x8x31x31xf32>
  return
}

// -----

func.func @pool_window_too_large(%x: tensor<1x8x4x4xf32>) {
  // expected-error @+2 {{pooling window of 5 does not fit spatial axis 0 of tensor<1x8x4x4xf32>}}
  // expected-error @+1 {{'telar.max_pool' op failed to infer returned types}}
  %0 = telar.max_pool %x {kernel_shape = array<i64: 5, 5>, strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>} : (tensor<1x8x4x4xf32>) -> tensor<1x8x1x1xf32>
  return
}

// -----

func.func @pool_zero_kernel(%x: tensor<1x8x4x4xf32>) {
  // expected-error @+2 {{pooling kernel sizes, strides and dilations must be positive and pads non-negative}}
  // expected-error @+1 {{'telar.average_pool' op failed to infer returned types}}
  %0 = telar.average_pool %x {kernel_shape = array<i64: 0, 2>, strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>} : (tensor<1x8x4x4xf32>) -> tensor<1x8x1x1xf32>
  return
}

// -----

func.func @pool_zero_stride(%x: tensor<1x8x4x4xf32>) {
  // expected-error @+2 {{pooling kernel sizes, strides and dilations must be positive and pads non-negative}}
  // expected-error @+1 {{'telar.max_pool' op failed to infer returned types}}
  %0 = telar.max_pool %x {kernel_shape = array<i64: 2, 2>, strides = array<i64: 1, 0>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>} : (tensor<1x8x4x4xf32>) -> tensor<1x8x3x3xf32>
  return
}

// -----

func.func @pool_negative_pad(%x: tensor<1x4x8xf32>) {
  // expected-error @+2 {{pooling kernel sizes, strides and dilations must be positive and pads non-negative}}
  // expected-error @+1 {{'telar.max_pool' op failed to infer returned types}}
  %0 = telar.max_pool %x {kernel_shape = array<i64: 2>, strides = array<i64: 1>, pads = array<i64: -1, 0>, dilations = array<i64: 1>} : (tensor<1x4x8xf32>) -> tensor<1x4x6xf32>
  return
}

// -----

func.func @pool_no_spatial_axis(%x: tensor<8x4xf32>) {
  // expected-error @+2 {{pooling needs an N x C x spatial... input, got tensor<8x4xf32>}}
  // expected-error @+1 {{'telar.max_pool' op failed to infer returned types}}
  %0 = telar.max_pool %x {kernel_shape = array<i64>, strides = array<i64>, pads = array<i64>, dilations = array<i64>} : (tensor<8x4xf32>) -> tensor<8x4xf32>
  return
}

// -----

func.func @pool_wrong_result(%x: tensor<1x8x32x32xf32>) {
  // expected-error @+2 {{'telar.max_pool' op inferred type(s) 'tensor<1x8x16x16xf32>' are incompatible with return type(s) of operation 'tensor<1x8x15x15xf32>'}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = telar.max_pool %x {kernel_shape = array<i64: 3, 3>, strides = array<i64: 2, 2>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>} : (tensor<1x8x32x32xf32>) -> tensor<1x8x15x15xf32>
  return
}

// -----

//===----------------------------------------------------------------------===//
// Reshape, transpose, squeeze, unsqueeze
//===----------------------------------------------------------------------===//

func.func @reshape_count_mismatch(%x: tensor<2x8xf32>) {
  // expected-error @+2 {{cannot reshape tensor<2x8xf32> (16 elements) to [3, 5] (15 elements)}}
  // expected-error @+1 {{'telar.reshape' op failed to infer returned types}}
  %0 = telar.reshape %x {shape = array<i64: 3, 5>} : (tensor<2x8xf32>) -> tensor<3x5xf32>
  return
}

// -----

func.func @reshape_unresolved(%x: tensor<2x8xf32>) {
  // expected-error @+2 {{reshape target shape [-1, 4] must be fully resolved (no -1 or negative dims)}}
  // expected-error @+1 {{'telar.reshape' op failed to infer returned types}}
  %0 = telar.reshape %x {shape = array<i64: -1, 4>} : (tensor<2x8xf32>) -> tensor<4x4xf32>
  return
}

// -----

func.func @reshape_result_not_shape(%x: tensor<2x8xf32>) {
  // expected-error @+2 {{'telar.reshape' op inferred type(s) 'tensor<4x4xf32>' are incompatible with return type(s) of operation 'tensor<16xf32>'}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = telar.reshape %x {shape = array<i64: 4, 4>} : (tensor<2x8xf32>) -> tensor<16xf32>
  return
}

// -----

func.func @transpose_repeated(%x: tensor<2x8x4xf32>) {
  // expected-error @+2 {{transpose permutation [0, 1, 1] is not a permutation of 0..2}}
  // expected-error @+1 {{'telar.transpose' op failed to infer returned types}}
  %0 = telar.transpose %x {perm = array<i64: 0, 1, 1>} : (tensor<2x8x4xf32>) -> tensor<2x8x8xf32>
  return
}

// -----

func.func @transpose_out_of_range(%x: tensor<2x8x4xf32>) {
  // expected-error @+2 {{transpose permutation [0, 3, 1] is not a permutation of 0..2}}
  // expected-error @+1 {{'telar.transpose' op failed to infer returned types}}
  %0 = telar.transpose %x {perm = array<i64: 0, 3, 1>} : (tensor<2x8x4xf32>) -> tensor<2x8x8xf32>
  return
}

// -----

func.func @transpose_wrong_length(%x: tensor<2x8x4xf32>) {
  // expected-error @+2 {{transpose permutation [1, 0] must have one entry per dimension of tensor<2x8x4xf32>}}
  // expected-error @+1 {{'telar.transpose' op failed to infer returned types}}
  %0 = telar.transpose %x {perm = array<i64: 1, 0>} : (tensor<2x8x4xf32>) -> tensor<8x2xf32>
  return
}

// -----

func.func @transpose_wrong_result(%x: tensor<2x8x4xf32>) {
  // expected-error @+2 {{'telar.transpose' op inferred type(s) 'tensor<2x4x8xf32>' are incompatible with return type(s) of operation 'tensor<2x8x4xf32>'}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = telar.transpose %x {perm = array<i64: 0, 2, 1>} : (tensor<2x8x4xf32>) -> tensor<2x8x4xf32>
  return
}

// -----

func.func @squeeze_non_unit(%x: tensor<2x1x8xf32>) {
  // expected-error @+2 {{cannot squeeze axis 0 of tensor<2x1x8xf32>: its size is not 1}}
  // expected-error @+1 {{'telar.squeeze' op failed to infer returned types}}
  %0 = telar.squeeze %x {axes = array<i64: 0>} : (tensor<2x1x8xf32>) -> tensor<1x8xf32>
  return
}

// -----

func.func @squeeze_out_of_range(%x: tensor<2x1x8xf32>) {
  // expected-error @+2 {{squeeze axis 3 is out of range for rank 3}}
  // expected-error @+1 {{'telar.squeeze' op failed to infer returned types}}
  %0 = telar.squeeze %x {axes = array<i64: 3>} : (tensor<2x1x8xf32>) -> tensor<2x1x8xf32>
  return
}

// -----

func.func @squeeze_repeated(%x: tensor<2x1x8xf32>) {
  // expected-error @+2 {{squeeze axis -2 is repeated}}
  // expected-error @+1 {{'telar.squeeze' op failed to infer returned types}}
  %0 = telar.squeeze %x {axes = array<i64: 1, -2>} : (tensor<2x1x8xf32>) -> tensor<2x8xf32>
  return
}

// -----

func.func @unsqueeze_out_of_range(%x: tensor<8xf32>) {
  // expected-error @+2 {{unsqueeze axis 2 is out of range for rank 2}}
  // expected-error @+1 {{'telar.unsqueeze' op failed to infer returned types}}
  %0 = telar.unsqueeze %x {axes = array<i64: 2>} : (tensor<8xf32>) -> tensor<8x1xf32>
  return
}

// -----

func.func @unsqueeze_repeated(%x: tensor<8xf32>) {
  // expected-error @+2 {{unsqueeze axis -3 is repeated}}
  // expected-error @+1 {{'telar.unsqueeze' op failed to infer returned types}}
  %0 = telar.unsqueeze %x {axes = array<i64: 0, -3>} : (tensor<8xf32>) -> tensor<1x1x8xf32>
  return
}

// -----

//===----------------------------------------------------------------------===//
// Concat, split, slice
//===----------------------------------------------------------------------===//

func.func @concat_dim_mismatch(%a: tensor<2x3xf32>, %b: tensor<3x3xf32>) {
  // expected-error @+2 {{concat inputs tensor<2x3xf32> and tensor<3x3xf32> differ in dimension 0, which is not the concat axis 1}}
  // expected-error @+1 {{'telar.concat' op failed to infer returned types}}
  %0 = telar.concat %a, %b {axis = 1 : i64} : (tensor<2x3xf32>, tensor<3x3xf32>) -> tensor<2x6xf32>
  return
}

// -----

func.func @concat_element_type_mismatch(%a: tensor<2x3xf32>, %b: tensor<2x3xi32>) {
  // expected-error @+2 {{concat inputs tensor<2x3xf32> and tensor<2x3xi32> differ in rank or element type}}
  // expected-error @+1 {{'telar.concat' op failed to infer returned types}}
  %0 = telar.concat %a, %b {axis = 1 : i64} : (tensor<2x3xf32>, tensor<2x3xi32>) -> tensor<2x6xf32>
  return
}

// -----

func.func @concat_rank_mismatch(%a: tensor<2x3xf32>, %b: tensor<3xf32>) {
  // expected-error @+2 {{concat inputs tensor<2x3xf32> and tensor<3xf32> differ in rank or element type}}
  // expected-error @+1 {{'telar.concat' op failed to infer returned types}}
  %0 = telar.concat %a, %b {axis = 0 : i64} : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<3x3xf32>
  return
}

// -----

func.func @concat_axis_out_of_range(%a: tensor<2x3xf32>) {
  // expected-error @+2 {{concat axis 2 is out of range for tensor<2x3xf32>}}
  // expected-error @+1 {{'telar.concat' op failed to infer returned types}}
  %0 = telar.concat %a, %a {axis = 2 : i64} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x6xf32>
  return
}

// -----

// Negative axes are reported as written (I64Attr getters are unsigned).
func.func @concat_negative_axis_out_of_range(%a: tensor<2x3xf32>) {
  // expected-error @+2 {{concat axis -3 is out of range for tensor<2x3xf32>}}
  // expected-error @+1 {{'telar.concat' op failed to infer returned types}}
  %0 = telar.concat %a, %a {axis = -3 : i64} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x6xf32>
  return
}

// -----

func.func @concat_wrong_result(%a: tensor<2x3xf32>) {
  // expected-error @+2 {{'telar.concat' op inferred type(s) 'tensor<4x3xf32>' are incompatible with return type(s) of operation 'tensor<2x6xf32>'}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = telar.concat %a, %a {axis = -2 : i64} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x6xf32>
  return
}

// -----

func.func @split_sizes_do_not_add_up(%x: tensor<2x8xf32>) {
  // expected-error @+2 {{split sizes [3, 4] add up to 7, not to dimension 1 of tensor<2x8xf32>}}
  // expected-error @+1 {{'telar.split' op failed to infer returned types}}
  %0:2 = telar.split %x {axis = 1 : i64, sizes = array<i64: 3, 4>} : (tensor<2x8xf32>) -> (tensor<2x3xf32>, tensor<2x4xf32>)
  return
}

// -----

func.func @split_negative_size(%x: tensor<2x8xf32>) {
  // expected-error @+2 {{split sizes [10, -2] must be non-negative}}
  // expected-error @+1 {{'telar.split' op failed to infer returned types}}
  %0:2 = telar.split %x {axis = 1 : i64, sizes = array<i64: 10, -2>} : (tensor<2x8xf32>) -> (tensor<2x10xf32>, tensor<2x0xf32>)
  return
}

// -----

func.func @split_axis_out_of_range(%x: tensor<2x8xf32>) {
  // expected-error @+2 {{split axis -3 is out of range for tensor<2x8xf32>}}
  // expected-error @+1 {{'telar.split' op failed to infer returned types}}
  %0:2 = telar.split %x {axis = -3 : i64, sizes = array<i64: 1, 1>} : (tensor<2x8xf32>) -> (tensor<1x8xf32>, tensor<1x8xf32>)
  return
}

// -----

func.func @split_result_count(%x: tensor<2x8xf32>) {
  // expected-error @+2 {{'telar.split' op inferred type(s) 'tensor<2x4xf32>', 'tensor<2x4xf32>' are incompatible with return type(s) of operation 'tensor<2x4xf32>', 'tensor<2x4xf32>', 'tensor<2x0xf32>'}}
  // expected-error @+1 {{failed to infer returned types}}
  %0:3 = telar.split %x {axis = 1 : i64, sizes = array<i64: 4, 4>} : (tensor<2x8xf32>) -> (tensor<2x4xf32>, tensor<2x4xf32>, tensor<2x0xf32>)
  return
}

// -----

func.func @slice_step_zero(%x: tensor<2x8xf32>) {
  // expected-error @+2 {{slice step must not be 0}}
  // expected-error @+1 {{'telar.slice' op failed to infer returned types}}
  %0 = telar.slice %x {axes = array<i64: 1>, starts = array<i64: 0>, ends = array<i64: 4>, steps = array<i64: 0>} : (tensor<2x8xf32>) -> tensor<2x4xf32>
  return
}

// -----

func.func @slice_count_mismatch(%x: tensor<2x8xf32>) {
  // expected-error @+2 {{slice needs one start, end and step per axis; got 2 axes, 1 starts, 1 ends, 1 steps}}
  // expected-error @+1 {{'telar.slice' op failed to infer returned types}}
  %0 = telar.slice %x {axes = array<i64: 1, 0>, starts = array<i64: 0>, ends = array<i64: 4>, steps = array<i64: 1>} : (tensor<2x8xf32>) -> tensor<2x4xf32>
  return
}

// -----

func.func @slice_repeated_axis(%x: tensor<2x8xf32>) {
  // expected-error @+2 {{slice axis -1 is repeated}}
  // expected-error @+1 {{'telar.slice' op failed to infer returned types}}
  %0 = telar.slice %x {axes = array<i64: 1, -1>, starts = array<i64: 0, 0>, ends = array<i64: 4, 4>, steps = array<i64: 1, 1>} : (tensor<2x8xf32>) -> tensor<2x4xf32>
  return
}

// -----

func.func @slice_axis_out_of_range(%x: tensor<2x8xf32>) {
  // expected-error @+2 {{slice axis 2 is out of range for rank 2}}
  // expected-error @+1 {{'telar.slice' op failed to infer returned types}}
  %0 = telar.slice %x {axes = array<i64: 2>, starts = array<i64: 0>, ends = array<i64: 4>, steps = array<i64: 1>} : (tensor<2x8xf32>) -> tensor<2x4xf32>
  return
}

// -----

func.func @slice_wrong_result(%x: tensor<2x8xf32>) {
  // expected-error @+2 {{'telar.slice' op inferred type(s) 'tensor<2x3xf32>' are incompatible with return type(s) of operation 'tensor<2x4xf32>'}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = telar.slice %x {axes = array<i64: 1>, starts = array<i64: 7>, ends = array<i64: 1>, steps = array<i64: -2>} : (tensor<2x8xf32>) -> tensor<2x4xf32>
  return
}

// -----

//===----------------------------------------------------------------------===//
// Gather and scatter
//===----------------------------------------------------------------------===//

func.func @gather_axis_out_of_range(%x: tensor<4x8xf32>, %i: tensor<3xi64>) {
  // expected-error @+2 {{gather axis 2 is out of range for tensor<4x8xf32>}}
  // expected-error @+1 {{'telar.gather' op failed to infer returned types}}
  %0 = telar.gather %x, %i {axis = 2 : i64} : (tensor<4x8xf32>, tensor<3xi64>) -> tensor<4x3xf32>
  return
}

// -----

func.func @gather_negative_axis_out_of_range(%x: tensor<4x8xf32>, %i: tensor<3xi64>) {
  // expected-error @+2 {{gather axis -3 is out of range for tensor<4x8xf32>}}
  // expected-error @+1 {{'telar.gather' op failed to infer returned types}}
  %0 = telar.gather %x, %i {axis = -3 : i64} : (tensor<4x8xf32>, tensor<3xi64>) -> tensor<4x3xf32>
  return
}

// -----

func.func @gather_wrong_result(%x: tensor<4x8xf32>, %i: tensor<3xi64>) {
  // expected-error @+2 {{'telar.gather' op inferred type(s) 'tensor<4x3xf32>' are incompatible with return type(s) of operation 'tensor<3x8xf32>'}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = telar.gather %x, %i {axis = 1 : i64} : (tensor<4x8xf32>, tensor<3xi64>) -> tensor<3x8xf32>
  return
}

// -----

func.func @gather_float_indices(%x: tensor<4x8xf32>, %i: tensor<3xf32>) {
  // expected-error @+1 {{'telar.gather' op operand #1 must be ranked tensor of 32-bit signless integer or 64-bit signless integer values, but got 'tensor<3xf32>'}}
  %0 = telar.gather %x, %i : (tensor<4x8xf32>, tensor<3xf32>) -> tensor<3x8xf32>
  return
}

// -----

func.func @gather_elements_rank_mismatch(%x: tensor<4x8xf32>, %i: tensor<4xi64>) {
  // expected-error @+2 {{gather_elements data tensor<4x8xf32> and indices tensor<4xi64> must have the same rank >= 1}}
  // expected-error @+1 {{'telar.gather_elements' op failed to infer returned types}}
  %0 = telar.gather_elements %x, %i {axis = 1 : i64} : (tensor<4x8xf32>, tensor<4xi64>) -> tensor<4xf32>
  return
}

// -----

func.func @gather_elements_axis_out_of_range(%x: tensor<4x8xf32>, %i: tensor<4x2xi64>) {
  // expected-error @+2 {{axis -3 is out of range for tensor<4x8xf32> (rank 2)}}
  // expected-error @+1 {{'telar.gather_elements' op failed to infer returned types}}
  %0 = telar.gather_elements %x, %i {axis = -3 : i64} : (tensor<4x8xf32>, tensor<4x2xi64>) -> tensor<4x2xf32>
  return
}

// -----

func.func @gather_nd_index_tuple_too_long(%x: tensor<4x8xf32>, %i: tensor<3x3xi64>) {
  // expected-error @+2 {{gather_nd: the last dimension of indices tensor<3x3xi64> must be between 1 and 2}}
  // expected-error @+1 {{'telar.gather_nd' op failed to infer returned types}}
  %0 = telar.gather_nd %x, %i : (tensor<4x8xf32>, tensor<3x3xi64>) -> tensor<3xf32>
  return
}

// -----

func.func @gather_nd_batch_dim_mismatch(%x: tensor<2x5x8xf32>, %i: tensor<3x3x1xi64>) {
  // expected-error @+2 {{gather_nd: batch dimension 0 differs between data tensor<2x5x8xf32> and indices tensor<3x3x1xi64>}}
  // expected-error @+1 {{'telar.gather_nd' op failed to infer returned types}}
  %0 = telar.gather_nd %x, %i {batch_dims = 1 : i64} : (tensor<2x5x8xf32>, tensor<3x3x1xi64>) -> tensor<3x3x8xf32>
  return
}

// -----

func.func @gather_nd_too_many_batch_dims(%x: tensor<2x5x8xf32>, %i: tensor<2x1xi64>) {
  // expected-error @+2 {{gather_nd: batch_dims 2 is invalid for data tensor<2x5x8xf32> and indices tensor<2x1xi64>}}
  // expected-error @+1 {{'telar.gather_nd' op failed to infer returned types}}
  %0 = telar.gather_nd %x, %i {batch_dims = 2 : i64} : (tensor<2x5x8xf32>, tensor<2x1xi64>) -> tensor<2x8xf32>
  return
}

// -----

func.func @gather_nd_i32_indices(%x: tensor<4x8xf32>, %i: tensor<3x2xi32>) {
  // expected-error @+1 {{'telar.gather_nd' op operand #1 must be ranked tensor of 64-bit signless integer values, but got 'tensor<3x2xi32>'}}
  %0 = telar.gather_nd %x, %i : (tensor<4x8xf32>, tensor<3x2xi32>) -> tensor<3xf32>
  return
}

// -----

func.func @scatter_elements_shape_mismatch(%x: tensor<4x8xf32>, %i: tensor<4x2xi64>, %u: tensor<4x3xf32>) {
  // expected-error @+2 {{scatter_elements: indices tensor<4x2xi64> and updates tensor<4x3xf32> must have the same shape, and the rank of data tensor<4x8xf32>}}
  // expected-error @+1 {{'telar.scatter_elements' op failed to infer returned types}}
  %0 = telar.scatter_elements %x, %i, %u {axis = 1 : i64} : (tensor<4x8xf32>, tensor<4x2xi64>, tensor<4x3xf32>) -> tensor<4x8xf32>
  return
}

// -----

func.func @scatter_elements_element_type(%x: tensor<4x8xf32>, %i: tensor<4x2xi64>, %u: tensor<4x2xf16>) {
  // expected-error @+2 {{scatter_elements: updates tensor<4x2xf16> must have the element type of data tensor<4x8xf32>}}
  // expected-error @+1 {{'telar.scatter_elements' op failed to infer returned types}}
  %0 = telar.scatter_elements %x, %i, %u {axis = 1 : i64} : (tensor<4x8xf32>, tensor<4x2xi64>, tensor<4x2xf16>) -> tensor<4x8xf32>
  return
}

// -----

func.func @scatter_elements_bad_reduction(%x: tensor<4x8xf32>, %i: tensor<4x2xi64>, %u: tensor<4x2xf32>) {
  // expected-error @+2 {{scatter reduction 'sum' is not one of none, add, mul, max, min}}
  // expected-error @+1 {{'telar.scatter_elements' op failed to infer returned types}}
  %0 = telar.scatter_elements %x, %i, %u {axis = 1 : i64, reduction = "sum"} : (tensor<4x8xf32>, tensor<4x2xi64>, tensor<4x2xf32>) -> tensor<4x8xf32>
  return
}

// -----

func.func @scatter_nd_updates_shape(%x: tensor<4x8xf32>, %i: tensor<2x1xi64>, %u: tensor<2x4xf32>) {
  // expected-error @+2 {{scatter_nd: updates tensor<2x4xf32> must have shape [2, 8] and the element type of data tensor<4x8xf32>}}
  // expected-error @+1 {{'telar.scatter_nd' op failed to infer returned types}}
  %0 = telar.scatter_nd %x, %i, %u : (tensor<4x8xf32>, tensor<2x1xi64>, tensor<2x4xf32>) -> tensor<4x8xf32>
  return
}

// -----

func.func @scatter_nd_index_tuple_too_long(%x: tensor<4x8xf32>, %i: tensor<2x3xi64>, %u: tensor<2xf32>) {
  // expected-error @+2 {{scatter_nd: the last dimension of indices tensor<2x3xi64> must be between 1 and the rank of tensor<4x8xf32>}}
  // expected-error @+1 {{'telar.scatter_nd' op failed to infer returned types}}
  %0 = telar.scatter_nd %x, %i, %u : (tensor<4x8xf32>, tensor<2x3xi64>, tensor<2xf32>) -> tensor<4x8xf32>
  return
}

// -----

func.func @scatter_nd_bad_reduction(%x: tensor<4x8xf32>, %i: tensor<2x1xi64>, %u: tensor<2x8xf32>) {
  // expected-error @+2 {{scatter reduction 'avg' is not one of none, add, mul, max, min}}
  // expected-error @+1 {{'telar.scatter_nd' op failed to infer returned types}}
  %0 = telar.scatter_nd %x, %i, %u {reduction = "avg"} : (tensor<4x8xf32>, tensor<2x1xi64>, tensor<2x8xf32>) -> tensor<4x8xf32>
  return
}

// -----

//===----------------------------------------------------------------------===//
// Expand, tile, pad, one_hot
//===----------------------------------------------------------------------===//

func.func @expand_not_broadcastable(%x: tensor<3x2xf32>) {
  // expected-error @+2 {{cannot expand tensor<3x2xf32> to shape [4, 3]}}
  // expected-error @+1 {{'telar.expand' op failed to infer returned types}}
  %0 = telar.expand %x {shape = array<i64: 4, 3>} : (tensor<3x2xf32>) -> tensor<4x3xf32>
  return
}

// -----

func.func @expand_negative(%x: tensor<3x1xf32>) {
  // expected-error @+2 {{cannot expand tensor<3x1xf32> to shape [-1, 4]}}
  // expected-error @+1 {{'telar.expand' op failed to infer returned types}}
  %0 = telar.expand %x {shape = array<i64: -1, 4>} : (tensor<3x1xf32>) -> tensor<3x4xf32>
  return
}

// -----

func.func @tile_repeat_count(%x: tensor<3x2xf32>) {
  // expected-error @+2 {{tile needs one non-negative repeat count per dimension of tensor<3x2xf32>, got [2]}}
  // expected-error @+1 {{'telar.tile' op failed to infer returned types}}
  %0 = telar.tile %x {repeats = array<i64: 2>} : (tensor<3x2xf32>) -> tensor<6x2xf32>
  return
}

// -----

func.func @tile_negative_repeat(%x: tensor<3x2xf32>) {
  // expected-error @+2 {{tile needs one non-negative repeat count per dimension of tensor<3x2xf32>, got [2, -1]}}
  // expected-error @+1 {{'telar.tile' op failed to infer returned types}}
  %0 = telar.tile %x {repeats = array<i64: 2, -1>} : (tensor<3x2xf32>) -> tensor<6x2xf32>
  return
}

// -----

func.func @pad_count(%x: tensor<2x4xf32>) {
  // expected-error @+2 {{pad needs 4 pads for tensor<2x4xf32> (begin pads, then end pads), got 2}}
  // expected-error @+1 {{'telar.pad' op failed to infer returned types}}
  %0 = telar.pad %x {pads = array<i64: 1, 1>} : (tensor<2x4xf32>) -> tensor<4x4xf32>
  return
}

// -----

func.func @pad_crop_below_zero(%x: tensor<2x4xf32>) {
  // expected-error @+2 {{pads [0, -3, 0, -2] crop dimension 1 of tensor<2x4xf32> below zero}}
  // expected-error @+1 {{'telar.pad' op failed to infer returned types}}
  %0 = telar.pad %x {pads = array<i64: 0, -3, 0, -2>} : (tensor<2x4xf32>) -> tensor<2x0xf32>
  return
}

// -----

func.func @pad_bad_mode(%x: tensor<2x4xf32>) {
  // expected-error @+1 {{'telar.pad' op mode 'mirror' is not one of constant, reflect, edge, wrap}}
  %0 = telar.pad %x {pads = array<i64: 0, 1, 0, 1>, mode = "mirror"} : (tensor<2x4xf32>) -> tensor<2x6xf32>
  return
}

// -----

func.func @pad_wrong_result(%x: tensor<2x4xf32>) {
  // expected-error @+2 {{'telar.pad' op inferred type(s) 'tensor<2x6xf32>' are incompatible with return type(s) of operation 'tensor<4x4xf32>'}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = telar.pad %x {pads = array<i64: 0, 1, 0, 1>} : (tensor<2x4xf32>) -> tensor<4x4xf32>
  return
}

// -----

func.func @one_hot_three_values(%i: tensor<4xi64>, %v: tensor<3xf32>) {
  // expected-error @+2 {{one_hot values must be a 2-element [off, on] tensor, got tensor<3xf32>}}
  // expected-error @+1 {{'telar.one_hot' op failed to infer returned types}}
  %0 = telar.one_hot %i, %v {depth = 8 : i64} : (tensor<4xi64>, tensor<3xf32>) -> tensor<4x8xf32>
  return
}

// -----

func.func @one_hot_matrix_values(%i: tensor<4xi64>, %v: tensor<1x2xf32>) {
  // expected-error @+2 {{one_hot values must be a 2-element [off, on] tensor, got tensor<1x2xf32>}}
  // expected-error @+1 {{'telar.one_hot' op failed to infer returned types}}
  %0 = telar.one_hot %i, %v {depth = 8 : i64} : (tensor<4xi64>, tensor<1x2xf32>) -> tensor<4x8xf32>
  return
}

// -----

func.func @one_hot_zero_depth(%i: tensor<4xi64>, %v: tensor<2xf32>) {
  // expected-error @+2 {{one_hot depth must be positive, got 0}}
  // expected-error @+1 {{'telar.one_hot' op failed to infer returned types}}
  %0 = telar.one_hot %i, %v {depth = 0 : i64} : (tensor<4xi64>, tensor<2xf32>) -> tensor<4x0xf32>
  return
}

// -----

func.func @one_hot_axis_out_of_range(%i: tensor<4xi64>, %v: tensor<2xf32>) {
  // expected-error @+2 {{one_hot axis 2 is out of range for tensor<4xi64>}}
  // expected-error @+1 {{'telar.one_hot' op failed to infer returned types}}
  %0 = telar.one_hot %i, %v {depth = 8 : i64, axis = 2 : i64} : (tensor<4xi64>, tensor<2xf32>) -> tensor<4x8xf32>
  return
}

// -----

func.func @one_hot_negative_depth(%i: tensor<4xi64>, %v: tensor<2xf32>) {
  // expected-error @+2 {{one_hot depth must be positive, got -1}}
  // expected-error @+1 {{'telar.one_hot' op failed to infer returned types}}
  %0 = telar.one_hot %i, %v {depth = -1 : i64} : (tensor<4xi64>, tensor<2xf32>) -> tensor<4x1xf32>
  return
}

// -----

func.func @one_hot_negative_axis_out_of_range(%i: tensor<4xi64>, %v: tensor<2xf32>) {
  // expected-error @+2 {{one_hot axis -3 is out of range for tensor<4xi64>}}
  // expected-error @+1 {{'telar.one_hot' op failed to infer returned types}}
  %0 = telar.one_hot %i, %v {depth = 8 : i64, axis = -3 : i64} : (tensor<4xi64>, tensor<2xf32>) -> tensor<4x8xf32>
  return
}

// -----

func.func @one_hot_float_indices(%i: tensor<4xf32>, %v: tensor<2xf32>) {
  // expected-error @+1 {{'telar.one_hot' op operand #0 must be ranked tensor of 8- to 64-bit integer values, but got 'tensor<4xf32>'}}
  %0 = telar.one_hot %i, %v {depth = 8 : i64} : (tensor<4xf32>, tensor<2xf32>) -> tensor<4x8xf32>
  return
}
