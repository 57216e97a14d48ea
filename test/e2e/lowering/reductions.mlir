// Numeric checks of the reduction and normalisation lowering through MLIR's
// JIT runner. Expected values are onnxruntime's (numpy's where noted),
// printed with 6 significant digits; results are flattened to 1-D.
// RUN: telar-opt %s %lower_standalone | %mlir_runner -e entry | FileCheck %s

func.func @t_reduce_sum(%a0: tensor<2x3x4xf32>) {
  %r = telar.reduce_sum %a0 {axes = array<i64: 1>, keepdims = true} : (tensor<2x3x4xf32>) -> tensor<2x1x4xf32>
  %f0 = tensor.collapse_shape %r [[0, 1, 2]] : tensor<2x1x4xf32> into tensor<8xf32>
  %u0 = tensor.cast %f0 : tensor<8xf32> to tensor<*xf32>
  call @printMemrefF32(%u0) : (tensor<*xf32>) -> ()
  return
}
// CHECK: [-1.89,  -2.62,  0.55,  1.61,  -6.16,  -3.25,  -6.39,  -0.65]

func.func @t_reduce_mean(%a0: tensor<2x3x4xf32>) {
  %r = telar.reduce_mean %a0 {axes = array<i64: 0, 2>, keepdims = false} : (tensor<2x3x4xf32>) -> tensor<3xf32>
  %u0 = tensor.cast %r : tensor<3xf32> to tensor<*xf32>
  call @printMemrefF32(%u0) : (tensor<*xf32>) -> ()
  return
}
// CHECK: [-0.25625,  -1.26,  -0.83375]

func.func @t_reduce_max_all(%a0: tensor<2x3x4xf32>) {
  %r = telar.reduce_max %a0 {axes = array<i64>, keepdims = false} : (tensor<2x3x4xf32>) -> tensor<f32>
  %f0 = tensor.expand_shape %r [] output_shape [1] : tensor<f32> into tensor<1xf32>
  %u0 = tensor.cast %f0 : tensor<1xf32> to tensor<*xf32>
  call @printMemrefF32(%u0) : (tensor<*xf32>) -> ()
  return
}
// CHECK: [2.68]

func.func @t_reduce_min(%a0: tensor<2x3x4xf32>) {
  %r = telar.reduce_min %a0 {axes = array<i64: 2>, keepdims = true} : (tensor<2x3x4xf32>) -> tensor<2x3x1xf32>
  %f0 = tensor.collapse_shape %r [[0, 1, 2]] : tensor<2x3x1xf32> into tensor<6xf32>
  %u0 = tensor.cast %f0 : tensor<6xf32> to tensor<*xf32>
  call @printMemrefF32(%u0) : (tensor<*xf32>) -> ()
  return
}
// CHECK: [-1.78,  -1.98,  -1.24,  -1.86,  -3.8,  -3.68]

func.func @t_reduce_prod(%a0: tensor<2x3x4xf32>) {
  %r = telar.reduce_prod %a0 {axes = array<i64: 1>, keepdims = false} : (tensor<2x3x4xf32>) -> tensor<2x4xf32>
  %f0 = tensor.collapse_shape %r [[0, 1]] : tensor<2x4xf32> into tensor<8xf32>
  %u0 = tensor.cast %f0 : tensor<8xf32> to tensor<*xf32>
  call @printMemrefF32(%u0) : (tensor<*xf32>) -> ()
  return
}
// CHECK: [0,  1.47312,  -0.06468,  -3.38698,  2.07883,  -0.804264,  -0.57684,  -1.93655]

func.func @t_reduce_l1(%a0: tensor<2x3x4xf32>) {
  %r = telar.reduce_l1 %a0 {axes = array<i64: 2>, keepdims = false} : (tensor<2x3x4xf32>) -> tensor<2x3xf32>
  %f0 = tensor.collapse_shape %r [[0, 1]] : tensor<2x3xf32> into tensor<6xf32>
  %u0 = tensor.cast %f0 : tensor<6xf32> to tensor<*xf32>
  call @printMemrefF32(%u0) : (tensor<*xf32>) -> ()
  return
}
// CHECK: [2.93,  5.69,  3.91,  3.52,  9.99,  7.22]

func.func @t_reduce_l2(%a0: tensor<2x3x4xf32>) {
  %r = telar.reduce_l2 %a0 {axes = array<i64: 0>, keepdims = false} : (tensor<2x3x4xf32>) -> tensor<3x4xf32>
  %f0 = tensor.collapse_shape %r [[0, 1]] : tensor<3x4xf32> into tensor<12xf32>
  %u0 = tensor.cast %f0 : tensor<12xf32> to tensor<*xf32>
  call @printMemrefF32(%u0) : (tensor<*xf32>) -> ()
  return
}
// CHECK: [0.21,  1.95438,  0.553263,  2.25843,  2.83975,  2.1833,  3.80189,  3.72005,  3.80825,  1.32608,  2.71317,  0.89202]

func.func @t_reduce_sum_square(%a0: tensor<2x3x4xf32>) {
  %r = telar.reduce_sum_square %a0 {axes = array<i64: 1, 2>, keepdims = true} : (tensor<2x3x4xf32>) -> tensor<2x1x1xf32>
  %f0 = tensor.collapse_shape %r [[0, 1, 2]] : tensor<2x1x1xf32> into tensor<2xf32>
  %u0 = tensor.cast %f0 : tensor<2xf32> to tensor<*xf32>
  call @printMemrefF32(%u0) : (tensor<*xf32>) -> ()
  return
}
// CHECK: [19.7387,  55.0741]

func.func @t_reduce_log_sum(%a0: tensor<2x3x4xf32>) {
  %r = telar.reduce_log_sum %a0 {axes = array<i64: 2>, keepdims = false} : (tensor<2x3x4xf32>) -> tensor<2x3xf32>
  %f0 = tensor.collapse_shape %r [[0, 1]] : tensor<2x3xf32> into tensor<6xf32>
  %u0 = tensor.cast %f0 : tensor<6xf32> to tensor<*xf32>
  call @printMemrefF32(%u0) : (tensor<*xf32>) -> ()
  return
}
// CHECK: [1.59534,  2.03992,  1.77665,  1.70838,  2.48407,  2.22137]

func.func @t_reduce_log_sum_exp(%a0: tensor<2x3xf32>) {
  %r = telar.reduce_log_sum_exp %a0 {axes = array<i64: 1>, keepdims = false} : (tensor<2x3xf32>) -> tensor<2xf32>
  %u0 = tensor.cast %r : tensor<2xf32> to tensor<*xf32>
  call @printMemrefF32(%u0) : (tensor<*xf32>) -> ()
  return
}
// CHECK: [101.408,  1.40761]

func.func @t_reduce_log_sum_exp_all(%a0: tensor<2x3x4xf32>) {
  %r = telar.reduce_log_sum_exp %a0 {axes = array<i64>, keepdims = true} : (tensor<2x3x4xf32>) -> tensor<1x1x1xf32>
  %f0 = tensor.collapse_shape %r [[0, 1, 2]] : tensor<1x1x1xf32> into tensor<1xf32>
  %u0 = tensor.cast %f0 : tensor<1xf32> to tensor<*xf32>
  call @printMemrefF32(%u0) : (tensor<*xf32>) -> ()
  return
}
// CHECK: [3.54213]

func.func @t_reduce_sum_i32(%a0: tensor<2x3xi32>) {
  %r = telar.reduce_sum %a0 {axes = array<i64: 1>, keepdims = false} : (tensor<2x3xi32>) -> tensor<2xi32>
  %c0 = telar.cast %r {to = i64} : (tensor<2xi32>) -> tensor<2xi64>
  %u0 = tensor.cast %c0 : tensor<2xi64> to tensor<*xi64>
  call @printMemrefI64(%u0) : (tensor<*xi64>) -> ()
  return
}
// CHECK: [-2,  13]

func.func @t_reduce_mean_i32(%a0: tensor<2x3xi32>) {
  %r = telar.reduce_mean %a0 {axes = array<i64: 0>, keepdims = false} : (tensor<2x3xi32>) -> tensor<3xi32>
  %c0 = telar.cast %r {to = i64} : (tensor<3xi32>) -> tensor<3xi64>
  %u0 = tensor.cast %c0 : tensor<3xi64> to tensor<*xi64>
  call @printMemrefI64(%u0) : (tensor<*xi64>) -> ()
  return
}
// CHECK: [6,  -1,  0]

func.func @t_reduce_max_i32(%a0: tensor<2x3xi32>) {
  %r = telar.reduce_max %a0 {axes = array<i64: 1>, keepdims = false} : (tensor<2x3xi32>) -> tensor<2xi32>
  %c0 = telar.cast %r {to = i64} : (tensor<2xi32>) -> tensor<2xi64>
  %u0 = tensor.cast %c0 : tensor<2xi64> to tensor<*xi64>
  call @printMemrefI64(%u0) : (tensor<*xi64>) -> ()
  return
}
// CHECK: [3,  10]

func.func @t_reduce_min_i64(%a0: tensor<2x3xi64>) {
  %r = telar.reduce_min %a0 {axes = array<i64: 0>, keepdims = false} : (tensor<2x3xi64>) -> tensor<3xi64>
  %u0 = tensor.cast %r : tensor<3xi64> to tensor<*xi64>
  call @printMemrefI64(%u0) : (tensor<*xi64>) -> ()
  return
}
// CHECK: [3,  -7,  -1]

func.func @t_reduce_max_ui8(%a0: tensor<2x3xui8>) {
  %r = telar.reduce_max %a0 {axes = array<i64: 1>, keepdims = false} : (tensor<2x3xui8>) -> tensor<2xui8>
  %c0 = telar.cast %r {to = i64} : (tensor<2xui8>) -> tensor<2xi64>
  %u0 = tensor.cast %c0 : tensor<2xi64> to tensor<*xi64>
  call @printMemrefI64(%u0) : (tensor<*xi64>) -> ()
  return
}
// CHECK: [200,  255]

func.func @t_reduce_min_ui8(%a0: tensor<2x3xui8>) {
  %r = telar.reduce_min %a0 {axes = array<i64: 0>, keepdims = false} : (tensor<2x3xui8>) -> tensor<3xui8>
  %c0 = telar.cast %r {to = i64} : (tensor<3xui8>) -> tensor<3xi64>
  %u0 = tensor.cast %c0 : tensor<3xi64> to tensor<*xi64>
  call @printMemrefI64(%u0) : (tensor<*xi64>) -> ()
  return
}
// CHECK: [3,  4,  2]

// NaN propagates (numpy, the ONNX reference); onnxruntime 1.22 skips NaN
func.func @t_reduce_max_nan(%a0: tensor<2x3xf32>) {
  %r = telar.reduce_max %a0 {axes = array<i64: 1>, keepdims = false} : (tensor<2x3xf32>) -> tensor<2xf32>
  %u0 = tensor.cast %r : tensor<2xf32> to tensor<*xf32>
  call @printMemrefF32(%u0) : (tensor<*xf32>) -> ()
  return
}
// CHECK: [nan,  5]

func.func @t_reduce_min_nan(%a0: tensor<2x3xf32>) {
  %r = telar.reduce_min %a0 {axes = array<i64: 1>, keepdims = false} : (tensor<2x3xf32>) -> tensor<2xf32>
  %u0 = tensor.cast %r : tensor<2xf32> to tensor<*xf32>
  call @printMemrefF32(%u0) : (tensor<*xf32>) -> ()
  return
}
// CHECK: [nan,  -1]

func.func @t_arg_max(%a0: tensor<3x4xf32>) {
  %r = telar.arg_max %a0 {axis = 1 : i64, keepdims = false, select_last_index = false} : (tensor<3x4xf32>) -> tensor<3xi64>
  %u0 = tensor.cast %r : tensor<3xi64> to tensor<*xi64>
  call @printMemrefI64(%u0) : (tensor<*xi64>) -> ()
  return
}
// CHECK: [1,  0,  3]

func.func @t_arg_max_last(%a0: tensor<3x4xf32>) {
  %r = telar.arg_max %a0 {axis = 1 : i64, keepdims = true, select_last_index = true} : (tensor<3x4xf32>) -> tensor<3x1xi64>
  %f0 = tensor.collapse_shape %r [[0, 1]] : tensor<3x1xi64> into tensor<3xi64>
  %u0 = tensor.cast %f0 : tensor<3xi64> to tensor<*xi64>
  call @printMemrefI64(%u0) : (tensor<*xi64>) -> ()
  return
}
// CHECK: [2,  3,  3]

func.func @t_arg_min_axis0(%a0: tensor<3x4xf32>) {
  %r = telar.arg_min %a0 {axis = 0 : i64, keepdims = true, select_last_index = false} : (tensor<3x4xf32>) -> tensor<1x4xi64>
  %f0 = tensor.collapse_shape %r [[0, 1]] : tensor<1x4xi64> into tensor<4xi64>
  %u0 = tensor.cast %f0 : tensor<4xi64> to tensor<*xi64>
  call @printMemrefI64(%u0) : (tensor<*xi64>) -> ()
  return
}
// CHECK: [2,  2,  2,  0]

func.func @t_arg_min_last(%a0: tensor<3x4xf32>) {
  %r = telar.arg_min %a0 {axis = -1 : i64, keepdims = false, select_last_index = true} : (tensor<3x4xf32>) -> tensor<3xi64>
  %u0 = tensor.cast %r : tensor<3xi64> to tensor<*xi64>
  call @printMemrefI64(%u0) : (tensor<*xi64>) -> ()
  return
}
// CHECK: [3,  2,  2]

func.func @t_arg_max_3d(%a0: tensor<2x3x4xf32>) {
  %r = telar.arg_max %a0 {axis = 1 : i64, keepdims = false, select_last_index = false} : (tensor<2x3x4xf32>) -> tensor<2x4xi64>
  %f0 = tensor.collapse_shape %r [[0, 1]] : tensor<2x4xi64> into tensor<8xi64>
  %u0 = tensor.cast %f0 : tensor<8xi64> to tensor<*xi64>
  call @printMemrefI64(%u0) : (tensor<*xi64>) -> ()
  return
}
// CHECK: [0,  0,  2,  1,  0,  2,  0,  0]

func.func @t_arg_max_i32(%a0: tensor<2x3xi32>) {
  %r = telar.arg_max %a0 {axis = 1 : i64, keepdims = false, select_last_index = false} : (tensor<2x3xi32>) -> tensor<2xi64>
  %u0 = tensor.cast %r : tensor<2xi64> to tensor<*xi64>
  call @printMemrefI64(%u0) : (tensor<*xi64>) -> ()
  return
}
// CHECK: [0,  0]

func.func @t_arg_min_ui8(%a0: tensor<2x3xui8>) {
  %r = telar.arg_min %a0 {axis = 1 : i64, keepdims = false, select_last_index = false} : (tensor<2x3xui8>) -> tensor<2xi64>
  %u0 = tensor.cast %r : tensor<2xi64> to tensor<*xi64>
  call @printMemrefI64(%u0) : (tensor<*xi64>) -> ()
  return
}
// CHECK: [2,  1]

func.func @t_softmax(%a0: tensor<2x3x4xf32>) {
  %r = telar.softmax %a0 {axis = -1 : i64} : (tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
  %f0 = tensor.collapse_shape %r [[0, 1, 2]] : tensor<2x3x4xf32> into tensor<24xf32>
  %u0 = tensor.cast %f0 : tensor<24xf32> to tensor<*xf32>
  call @printMemrefF32(%u0) : (tensor<*xf32>) -> ()
  return
}
// CHECK: [0.280292,  0.510725,  0.161714,  0.0472679,  0.0247659,  0.00849491,  0.0693708,  0.897368,  0.0699797,  0.053958,  0.496809,  0.379254,  0.194404,  0.024531,  0.148404,  0.632662,  0.12024,  0.705912,  0.0396262,  0.134221,  0.0103124,  0.255532,  0.0325685,  0.701588]

func.func @t_softmax_axis1(%a0: tensor<2x3x4xf32>) {
  %r = telar.softmax %a0 {axis = 1 : i64} : (tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
  %f0 = tensor.collapse_shape %r [[0, 1, 2]] : tensor<2x3x4xf32> into tensor<24xf32>
  %u0 = tensor.cast %f0 : tensor<24xf32> to tensor<*xf32>
  call @printMemrefF32(%u0) : (tensor<*xf32>) -> ()
  return
}
// CHECK: [0.562482,  0.809985,  0.132058,  0.0100453,  0.226413,  0.0613758,  0.258073,  0.868795,  0.211106,  0.12864,  0.609868,  0.121159,  0.929827,  0.132016,  0.902251,  0.691425,  0.0511621,  0.337959,  0.0214322,  0.0130496,  0.0190106,  0.530025,  0.0763168,  0.295525]

func.func @t_softmax_big(%a0: tensor<2x3xf32>) {
  %r = telar.softmax %a0 {axis = 1 : i64} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %f0 = tensor.collapse_shape %r [[0, 1]] : tensor<2x3xf32> into tensor<6xf32>
  %u0 = tensor.cast %f0 : tensor<6xf32> to tensor<*xf32>
  call @printMemrefF32(%u0) : (tensor<*xf32>) -> ()
  return
}
// CHECK: [0.244728,  0.665241,  0.0900306,  0.0900306,  0.244728,  0.665241]

func.func @t_log_softmax(%a0: tensor<2x3x4xf32>) {
  %r = telar.log_softmax %a0 {axis = 0 : i64} : (tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
  %f0 = tensor.collapse_shape %r [[0, 1, 2]] : tensor<2x3x4xf32> into tensor<24xf32>
  %u0 = tensor.cast %f0 : tensor<24xf32> to tensor<*xf32>
  call @printMemrefF32(%u0) : (tensor<*xf32>) -> ()
  return
}
// CHECK: [-0.80365,  -0.0819807,  -0.967864,  -3.21115,  -0.155839,  -1.35748,  -0.0196468,  -0.00518181,  -0.0650436,  -1.1505,  -0.0294588,  -0.611755,  -0.59365,  -2.54198,  -0.477864,  -0.0411454,  -1.93584,  -0.297476,  -3.93965,  -5.26518,  -2.76504,  -0.380498,  -3.53946,  -0.781755]

func.func @t_log_softmax_big(%a0: tensor<2x3xf32>) {
  %r = telar.log_softmax %a0 {axis = -1 : i64} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %f0 = tensor.collapse_shape %r [[0, 1]] : tensor<2x3xf32> into tensor<6xf32>
  %u0 = tensor.cast %f0 : tensor<6xf32> to tensor<*xf32>
  call @printMemrefF32(%u0) : (tensor<*xf32>) -> ()
  return
}
// CHECK: [-1.40761,  -0.407606,  -2.40761,  -2.40761,  -1.40761,  -0.407606]

func.func @t_hardmax(%a0: tensor<3x4xf32>) {
  %r = telar.hardmax %a0 {axis = 1 : i64} : (tensor<3x4xf32>) -> tensor<3x4xf32>
  %f0 = tensor.collapse_shape %r [[0, 1]] : tensor<3x4xf32> into tensor<12xf32>
  %u0 = tensor.cast %f0 : tensor<12xf32> to tensor<*xf32>
  call @printMemrefF32(%u0) : (tensor<*xf32>) -> ()
  return
}
// CHECK: [0,  1,  0,  0,  1,  0,  0,  0,  0,  0,  0,  1]

func.func @t_hardmax_axis0(%a0: tensor<3x4xf32>) {
  %r = telar.hardmax %a0 {axis = 0 : i64} : (tensor<3x4xf32>) -> tensor<3x4xf32>
  %f0 = tensor.collapse_shape %r [[0, 1]] : tensor<3x4xf32> into tensor<12xf32>
  %u0 = tensor.cast %f0 : tensor<12xf32> to tensor<*xf32>
  call @printMemrefF32(%u0) : (tensor<*xf32>) -> ()
  return
}
// CHECK: [0,  0,  1,  0,  1,  1,  0,  1,  0,  0,  0,  0]

func.func @t_lp_norm_l2(%a0: tensor<3x3xf32>) {
  %r = telar.lp_norm %a0 {axis = 1 : i64, p = 2 : i64} : (tensor<3x3xf32>) -> tensor<3x3xf32>
  %f0 = tensor.collapse_shape %r [[0, 1]] : tensor<3x3xf32> into tensor<9xf32>
  %u0 = tensor.cast %f0 : tensor<9xf32> to tensor<*xf32>
  call @printMemrefF32(%u0) : (tensor<*xf32>) -> ()
  return
}
// CHECK: [0.6,  -0.8,  0,  0,  0,  0,  0.333333,  0.666667,  0.666667]

func.func @t_lp_norm_l1(%a0: tensor<3x3xf32>) {
  %r = telar.lp_norm %a0 {axis = 0 : i64, p = 1 : i64} : (tensor<3x3xf32>) -> tensor<3x3xf32>
  %f0 = tensor.collapse_shape %r [[0, 1]] : tensor<3x3xf32> into tensor<9xf32>
  %u0 = tensor.cast %f0 : tensor<9xf32> to tensor<*xf32>
  call @printMemrefF32(%u0) : (tensor<*xf32>) -> ()
  return
}
// CHECK: [0.75,  -0.666667,  0,  0,  0,  0,  0.25,  0.333333,  1]

func.func @t_layer_norm(%a0: tensor<2x3x4xf32>, %a1: tensor<4xf32>, %a2: tensor<4xf32>) {
  %r = telar.layer_norm %a0, %a1, %a2 {axis = -1 : i64, epsilon = 1.0e-05 : f32} : (tensor<2x3x4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<2x3x4xf32>
  %f0 = tensor.collapse_shape %r [[0, 1, 2]] : tensor<2x3x4xf32> into tensor<24xf32>
  %u0 = tensor.cast %f0 : tensor<24xf32> to tensor<*xf32>
  call @printMemrefF32(%u0) : (tensor<*xf32>) -> ()
  return
}
// CHECK: [0.592662,  0.388062,  0.267689,  0.697587,  -0.413613,  -0.766421,  -0.164935,  5.34598,  -0.759143,  -0.761358,  -2.25557,  4.28111,  0.349273,  -0.96501,  -0.0343825,  4.89533,  -0.0872175,  0.567105,  2.53351,  2.87965,  -1.19167,  0.120659,  1.19833,  4.87427]

func.func @t_layer_norm_axis1(%a0: tensor<2x3x4xf32>, %a1: tensor<3x4xf32>) {
  %r = telar.layer_norm %a0, %a1 {axis = 1 : i64, epsilon = 1.0e-03 : f32} : (tensor<2x3x4xf32>, tensor<3x4xf32>) -> tensor<2x3x4xf32>
  %f0 = tensor.collapse_shape %r [[0, 1, 2]] : tensor<2x3x4xf32> into tensor<24xf32>
  %u0 = tensor.cast %f0 : tensor<24xf32> to tensor<*xf32>
  call @printMemrefF32(%u0) : (tensor<*xf32>) -> ()
  return
}
// CHECK: [0.024713,  -0.11926,  0.703926,  0.674704,  0.0281636,  -0.154791,  -0.381126,  -1.08874,  0.606113,  0.667074,  0.983039,  -0.578698,  0.153609,  0.0564443,  -2.00612,  -0.905406,  0.040057,  0.0301174,  2.25714,  0.352482,  1.37433,  -0.443138,  -0.74621,  -0.939977]

func.func @t_rms_norm(%a0: tensor<2x3x4xf32>, %a1: tensor<4xf32>) {
  %r = telar.rms_norm %a0, %a1 {axis = -1 : i64, epsilon = 1.0e-06 : f32} : (tensor<2x3x4xf32>, tensor<4xf32>) -> tensor<2x3x4xf32>
  %f0 = tensor.collapse_shape %r [[0, 1, 2]] : tensor<2x3x4xf32> into tensor<24xf32>
  %u0 = tensor.cast %f0 : tensor<24xf32> to tensor<*xf32>
  call @printMemrefF32(%u0) : (tensor<*xf32>) -> ()
  return
}
// CHECK: [0,  0.30655,  1.12401,  -2.72829,  -0.52659,  -0.572884,  -0.138881,  2.32626,  -0.984626,  -0.622927,  -1.96925,  1.07003,  0.180083,  -0.797512,  0.102905,  1.78797,  -0.995974,  -0.170315,  2.8139,  -1.43287,  -1.62731,  -0.103918,  2.23755,  0.358184]

func.func @t_rms_norm_axis1(%a0: tensor<2x3x4xf32>, %a1: tensor<3x4xf32>) {
  %r = telar.rms_norm %a0, %a1 {axis = 1 : i64, epsilon = 1.0e-02 : f32} : (tensor<2x3x4xf32>, tensor<3x4xf32>) -> tensor<2x3x4xf32>
  %f0 = tensor.collapse_shape %r [[0, 1, 2]] : tensor<2x3x4xf32> into tensor<24xf32>
  %u0 = tensor.cast %f0 : tensor<24xf32> to tensor<*xf32>
  call @printMemrefF32(%u0) : (tensor<*xf32>) -> ()
  return
}
// CHECK: [0,  -0.0886176,  1.0774,  0.747186,  0.0353693,  -0.169306,  -0.142721,  -0.99998,  0.746565,  0.780768,  0.807509,  -0.447053,  0.0156669,  0.164782,  0.0705011,  -0.349988,  0.0627143,  -0.0471873,  2.71094,  0.577438,  1.68158,  0.177512,  -1.25046,  -0.20395]

func.func @t_batch_norm(%a0: tensor<2x3x2x2xf32>, %a1: tensor<3xf32>, %a2: tensor<3xf32>, %a3: tensor<3xf32>, %a4: tensor<3xf32>) {
  %r = telar.batch_norm %a0, %a1, %a2, %a3, %a4 {epsilon = 1.0e-05 : f32} : (tensor<2x3x2x2xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> tensor<2x3x2x2xf32>
  %f0 = tensor.collapse_shape %r [[0, 1, 2, 3]] : tensor<2x3x2x2xf32> into tensor<24xf32>
  %u0 = tensor.cast %f0 : tensor<24xf32> to tensor<*xf32>
  call @printMemrefF32(%u0) : (tensor<*xf32>) -> ()
  return
}
// CHECK: [-0.599997,  2.14999,  -2.24999,  -0.839996,  0.6675,  0.7025,  1.67,  0.6925,  15.3197,  -19.5596,  9.31979,  0.439971,  -2.41999,  5.49997,  1.78999,  -4.09998,  0.695,  0.317501,  0.8925,  0.237501,  -1.79998,  6.99984,  16.2797,  -9.11984]

func.func @t_batch_norm_2d(%a0: tensor<4x3xf32>, %a1: tensor<3xf32>, %a2: tensor<3xf32>, %a3: tensor<3xf32>, %a4: tensor<3xf32>) {
  %r = telar.batch_norm %a0, %a1, %a2, %a3, %a4 {epsilon = 1.0e-02 : f32} : (tensor<4x3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> tensor<4x3xf32>
  %f0 = tensor.collapse_shape %r [[0, 1]] : tensor<4x3xf32> into tensor<12xf32>
  %u0 = tensor.cast %f0 : tensor<12xf32> to tensor<*xf32>
  call @printMemrefF32(%u0) : (tensor<*xf32>) -> ()
  return
}
// CHECK: [-0.497519,  0.977528,  -4.84388,  0.0995037,  1.24469,  -5.86368,  -1.04479,  0.720349,  2.84388,  -2.26868,  0.0811478,  1.78485]

func.func @t_instance_norm(%a0: tensor<2x3x2x2xf32>, %a1: tensor<3xf32>, %a2: tensor<3xf32>) {
  %r = telar.instance_norm %a0, %a1, %a2 {epsilon = 1.0e-05 : f32} : (tensor<2x3x2x2xf32>, tensor<3xf32>, tensor<3xf32>) -> tensor<2x3x2x2xf32>
  %f0 = tensor.collapse_shape %r [[0, 1, 2, 3]] : tensor<2x3x2x2xf32> into tensor<24xf32>
  %u0 = tensor.cast %f0 : tensor<24xf32> to tensor<*xf32>
  call @printMemrefF32(%u0) : (tensor<*xf32>) -> ()
  return
}
// CHECK: [-0.134918,  1.59078,  -1.17034,  -0.285524,  0.68796,  0.729076,  1.86564,  0.717329,  1.11246,  -4.17324,  0.203225,  -1.14245,  -0.698393,  1.41884,  0.427055,  -1.1475,  1.29635,  0.594406,  1.66359,  0.44565,  -2.02768,  -0.178276,  1.772,  -3.56605]

func.func @t_group_norm(%a0: tensor<2x4x3xf32>, %a1: tensor<4xf32>, %a2: tensor<4xf32>) {
  %r = telar.group_norm %a0, %a1, %a2 {num_groups = 2 : i64, epsilon = 1.0e-05 : f32} : (tensor<2x4x3xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<2x4x3xf32>
  %f0 = tensor.collapse_shape %r [[0, 1, 2]] : tensor<2x4x3xf32> into tensor<24xf32>
  %u0 = tensor.cast %f0 : tensor<24xf32> to tensor<*xf32>
  call @printMemrefF32(%u0) : (tensor<*xf32>) -> ()
  return
}
// CHECK: [1.18102,  -0.246861,  1.01053,  -3.06261,  -0.483891,  1.15711,  0.0477358,  -0.157518,  1.91177,  -1.23388,  -0.630683,  -1.73444,  -0.909594,  -0.329336,  1.78782,  2.3035,  -0.880073,  -1.02122,  1.56456,  -1.07833,  1.83257,  -1.32323,  -0.831872,  -1.1855]

func.func @t_mean_variance_norm(%a0: tensor<2x3x2x2xf32>) {
  %r = telar.mean_variance_norm %a0 {axes = array<i64: 0, 2, 3>} : (tensor<2x3x2x2xf32>) -> tensor<2x3x2x2xf32>
  %f0 = tensor.collapse_shape %r [[0, 1, 2, 3]] : tensor<2x3x2x2xf32> into tensor<24xf32>
  %u0 = tensor.cast %f0 : tensor<24xf32> to tensor<*xf32>
  call @printMemrefF32(%u0) : (tensor<*xf32>) -> ()
  return
}
// CHECK: [-0.174334,  0.777364,  -0.745353,  -0.257391,  0.164023,  0.0781794,  -2.2948,  0.102706,  1.13416,  -1.88912,  0.614104,  -0.155585,  -0.804185,  1.93671,  0.652778,  -1.38559,  0.0965746,  1.02246,  -0.387831,  1.21868,  -0.34974,  0.413014,  1.21737,  -0.984214]

func.func @t_mean_variance_norm_last(%a0: tensor<2x3x4xf32>) {
  %r = telar.mean_variance_norm %a0 {axes = array<i64: 2>} : (tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
  %f0 = tensor.collapse_shape %r [[0, 1, 2]] : tensor<2x3x4xf32> into tensor<24xf32>
  %u0 = tensor.cast %f0 : tensor<24xf32> to tensor<*xf32>
  call @printMemrefF32(%u0) : (tensor<*xf32>) -> ()
  return
}
// CHECK: [0.492666,  1.17613,  -0.133846,  -1.53495,  -0.513614,  -1.13284,  0.0824676,  1.56399,  -0.859148,  -1.12272,  1.12779,  0.854079,  0.249274,  -1.53003,  0.0171913,  1.26356,  -0.187218,  1.53422,  -1.26676,  -0.0802364,  -1.29167,  0.641319,  -0.599167,  1.24952]

func.func @t_lrn(%a0: tensor<1x5x2x1xf32>) {
  %r = telar.lrn %a0 {size = 3 : i64, alpha = 1.0e-01 : f32, beta = 7.5e-01 : f32, bias = 2.0 : f32} : (tensor<1x5x2x1xf32>) -> tensor<1x5x2x1xf32>
  %f0 = tensor.collapse_shape %r [[0, 1, 2, 3]] : tensor<1x5x2x1xf32> into tensor<10xf32>
  %u0 = tensor.cast %f0 : tensor<10xf32> to tensor<*xf32>
  call @printMemrefF32(%u0) : (tensor<*xf32>) -> ()
  return
}
// CHECK: [-0.349293,  -1.71566,  -0.0154619,  -0.657378,  1.81032,  1.04209,  -0.0358205,  0.982926,  -0.59869,  1.60506]

func.func @t_lrn_even(%a0: tensor<1x5x2x1xf32>) {
  %r = telar.lrn %a0 {size = 2 : i64, alpha = 2.0e-01 : f32, beta = 5.0e-01 : f32, bias = 1.0 : f32} : (tensor<1x5x2x1xf32>) -> tensor<1x5x2x1xf32>
  %f0 = tensor.collapse_shape %r [[0, 1, 2, 3]] : tensor<1x5x2x1xf32> into tensor<10xf32>
  %u0 = tensor.cast %f0 : tensor<10xf32> to tensor<*xf32>
  call @printMemrefF32(%u0) : (tensor<*xf32>) -> ()
  return
}
// CHECK: [-0.579966,  -2.20595,  -0.0201116,  -1.06449,  2.34615,  1.46572,  -0.0666054,  1.29676,  -0.970751,  2.23526]

func.func @t_cum_sum_00(%a0: tensor<2x4xf32>) {
  %r = telar.cum_sum %a0 {axis = 1 : i64, exclusive = false, reverse = false} : (tensor<2x4xf32>) -> tensor<2x4xf32>
  %f0 = tensor.collapse_shape %r [[0, 1]] : tensor<2x4xf32> into tensor<8xf32>
  %u0 = tensor.cast %f0 : tensor<8xf32> to tensor<*xf32>
  call @printMemrefF32(%u0) : (tensor<*xf32>) -> ()
  return
}
// CHECK: [1,  3,  6,  10,  -1,  -0.5,  -0.25,  7.75]

func.func @t_cum_sum_01(%a0: tensor<2x4xf32>) {
  %r = telar.cum_sum %a0 {axis = 1 : i64, exclusive = false, reverse = true} : (tensor<2x4xf32>) -> tensor<2x4xf32>
  %f0 = tensor.collapse_shape %r [[0, 1]] : tensor<2x4xf32> into tensor<8xf32>
  %u0 = tensor.cast %f0 : tensor<8xf32> to tensor<*xf32>
  call @printMemrefF32(%u0) : (tensor<*xf32>) -> ()
  return
}
// CHECK: [10,  9,  7,  4,  7.75,  8.75,  8.25,  8]

func.func @t_cum_sum_10(%a0: tensor<2x4xf32>) {
  %r = telar.cum_sum %a0 {axis = 1 : i64, exclusive = true, reverse = false} : (tensor<2x4xf32>) -> tensor<2x4xf32>
  %f0 = tensor.collapse_shape %r [[0, 1]] : tensor<2x4xf32> into tensor<8xf32>
  %u0 = tensor.cast %f0 : tensor<8xf32> to tensor<*xf32>
  call @printMemrefF32(%u0) : (tensor<*xf32>) -> ()
  return
}
// CHECK: [0,  1,  3,  6,  0,  -1,  -0.5,  -0.25]

func.func @t_cum_sum_11(%a0: tensor<2x4xf32>) {
  %r = telar.cum_sum %a0 {axis = 1 : i64, exclusive = true, reverse = true} : (tensor<2x4xf32>) -> tensor<2x4xf32>
  %f0 = tensor.collapse_shape %r [[0, 1]] : tensor<2x4xf32> into tensor<8xf32>
  %u0 = tensor.cast %f0 : tensor<8xf32> to tensor<*xf32>
  call @printMemrefF32(%u0) : (tensor<*xf32>) -> ()
  return
}
// CHECK: [9,  7,  4,  0,  8.75,  8.25,  8,  0]

func.func @t_cum_sum_i64_axis0(%a0: tensor<3x2xi64>) {
  %r = telar.cum_sum %a0 {axis = 0 : i64} : (tensor<3x2xi64>) -> tensor<3x2xi64>
  %f0 = tensor.collapse_shape %r [[0, 1]] : tensor<3x2xi64> into tensor<6xi64>
  %u0 = tensor.cast %f0 : tensor<6xi64> to tensor<*xi64>
  call @printMemrefI64(%u0) : (tensor<*xi64>) -> ()
  return
}
// CHECK: [1,  2,  4,  6,  9,  12]

func.func @t_top_k(%a0: tensor<2x6xf32>) {
  %r:2 = telar.top_k %a0 {k = 3 : i64, axis = -1 : i64, largest = true, sorted = true} : (tensor<2x6xf32>) -> (tensor<2x3xf32>, tensor<2x3xi64>)
  %f0 = tensor.collapse_shape %r#0 [[0, 1]] : tensor<2x3xf32> into tensor<6xf32>
  %u0 = tensor.cast %f0 : tensor<6xf32> to tensor<*xf32>
  call @printMemrefF32(%u0) : (tensor<*xf32>) -> ()
  %f1 = tensor.collapse_shape %r#1 [[0, 1]] : tensor<2x3xi64> into tensor<6xi64>
  %u1 = tensor.cast %f1 : tensor<6xi64> to tensor<*xi64>
  call @printMemrefI64(%u1) : (tensor<*xi64>) -> ()
  return
}
// CHECK: [7,  7,  3,  1,  0,  0]
// CHECK: [3,  5,  0,  3,  0,  1]

func.func @t_top_k_smallest(%a0: tensor<2x6xf32>) {
  %r:2 = telar.top_k %a0 {k = 4 : i64, axis = 1 : i64, largest = false, sorted = true} : (tensor<2x6xf32>) -> (tensor<2x4xf32>, tensor<2x4xi64>)
  %f0 = tensor.collapse_shape %r#0 [[0, 1]] : tensor<2x4xf32> into tensor<8xf32>
  %u0 = tensor.cast %f0 : tensor<8xf32> to tensor<*xf32>
  call @printMemrefF32(%u0) : (tensor<*xf32>) -> ()
  %f1 = tensor.collapse_shape %r#1 [[0, 1]] : tensor<2x4xi64> into tensor<8xi64>
  %u1 = tensor.cast %f1 : tensor<8xi64> to tensor<*xi64>
  call @printMemrefI64(%u1) : (tensor<*xi64>) -> ()
  return
}
// CHECK: [-2,  1,  3,  3,  -1,  0,  0,  0]
// CHECK: [4,  1,  0,  2,  4,  0,  1,  2]

func.func @t_top_k_axis0(%a0: tensor<2x6xf32>) {
  %r:2 = telar.top_k %a0 {k = 2 : i64, axis = 0 : i64, largest = true, sorted = true} : (tensor<2x6xf32>) -> (tensor<2x6xf32>, tensor<2x6xi64>)
  %f0 = tensor.collapse_shape %r#0 [[0, 1]] : tensor<2x6xf32> into tensor<12xf32>
  %u0 = tensor.cast %f0 : tensor<12xf32> to tensor<*xf32>
  call @printMemrefF32(%u0) : (tensor<*xf32>) -> ()
  %f1 = tensor.collapse_shape %r#1 [[0, 1]] : tensor<2x6xi64> into tensor<12xi64>
  %u1 = tensor.cast %f1 : tensor<12xi64> to tensor<*xi64>
  call @printMemrefI64(%u1) : (tensor<*xi64>) -> ()
  return
}
// CHECK: [3,  1,  3,  7,  -1,  7,  0,  0,  0,  1,  -2,  0]
// CHECK: [0,  0,  0,  0,  1,  0,  1,  1,  1,  1,  0,  1]

func.func @t_top_k_3d(%a0: tensor<2x3x4xf32>) {
  %r:2 = telar.top_k %a0 {k = 2 : i64, axis = 1 : i64, largest = true, sorted = true} : (tensor<2x3x4xf32>) -> (tensor<2x2x4xf32>, tensor<2x2x4xi64>)
  %f0 = tensor.collapse_shape %r#0 [[0, 1, 2]] : tensor<2x2x4xf32> into tensor<16xf32>
  %u0 = tensor.cast %f0 : tensor<16xf32> to tensor<*xf32>
  call @printMemrefF32(%u0) : (tensor<*xf32>) -> ()
  %f1 = tensor.collapse_shape %r#1 [[0, 1, 2]] : tensor<2x2x4xi64> into tensor<16xi64>
  %u1 = tensor.cast %f1 : tensor<16xi64> to tensor<*xi64>
  call @printMemrefI64(%u1) : (tensor<*xi64>) -> ()
  return
}
// CHECK: [0,  0.6,  0.98,  2.68,  -0.91,  -1.24,  0.12,  0.71,  0.21,  -0.47,  -0.06,  1.39,  -2.69,  -0.92,  -2.53,  0.54]
// CHECK: [0,  0,  2,  1,  1,  2,  1,  2,  0,  2,  0,  0,  1,  1,  2,  2]

func.func @t_top_k_i64(%a0: tensor<2x4xi64>) {
  %r:2 = telar.top_k %a0 {k = 2 : i64, axis = 1 : i64, largest = false, sorted = true} : (tensor<2x4xi64>) -> (tensor<2x2xi64>, tensor<2x2xi64>)
  %f0 = tensor.collapse_shape %r#0 [[0, 1]] : tensor<2x2xi64> into tensor<4xi64>
  %u0 = tensor.cast %f0 : tensor<4xi64> to tensor<*xi64>
  call @printMemrefI64(%u0) : (tensor<*xi64>) -> ()
  %f1 = tensor.collapse_shape %r#1 [[0, 1]] : tensor<2x2xi64> into tensor<4xi64>
  %u1 = tensor.cast %f1 : tensor<4xi64> to tensor<*xi64>
  call @printMemrefI64(%u1) : (tensor<*xi64>) -> ()
  return
}
// CHECK: [1,  5,  -3,  2]
// CHECK: [1,  0,  3,  0]

func.func @t_reduce_sum_f16(%a0: tensor<2x3x4xf16>) {
  %r = telar.reduce_sum %a0 {axes = array<i64: 2>, keepdims = false} : (tensor<2x3x4xf16>) -> tensor<2x3xf16>
  %c0 = telar.cast %r {to = f32} : (tensor<2x3xf16>) -> tensor<2x3xf32>
  %f0 = tensor.collapse_shape %c0 [[0, 1]] : tensor<2x3xf32> into tensor<6xf32>
  %u0 = tensor.cast %f0 : tensor<6xf32> to tensor<*xf32>
  call @printMemrefF32(%u0) : (tensor<*xf32>) -> ()
  return
}
// CHECK: [-1.73047,  -0.0909424,  -0.530273,  -0.320801,  -9.99219,  -6.14062]

func.func @t_reduce_l2_i32(%a0: tensor<2x3xi32>) {
  %r = telar.reduce_l2 %a0 {axes = array<i64: 1>, keepdims = false} : (tensor<2x3xi32>) -> tensor<2xi32>
  %c0 = telar.cast %r {to = i64} : (tensor<2xi32>) -> tensor<2xi64>
  %u0 = tensor.cast %c0 : tensor<2xi64> to tensor<*xi64>
  call @printMemrefI64(%u0) : (tensor<*xi64>) -> ()
  return
}
// CHECK: [7,  10]

func.func @t_softmax_f16(%a0: tensor<2x3x4xf16>) {
  %r = telar.softmax %a0 {axis = -1 : i64} : (tensor<2x3x4xf16>) -> tensor<2x3x4xf16>
  %c0 = telar.cast %r {to = f32} : (tensor<2x3x4xf16>) -> tensor<2x3x4xf32>
  %f0 = tensor.collapse_shape %c0 [[0, 1, 2]] : tensor<2x3x4xf32> into tensor<24xf32>
  %u0 = tensor.cast %f0 : tensor<24xf32> to tensor<*xf32>
  call @printMemrefF32(%u0) : (tensor<*xf32>) -> ()
  return
}
// CHECK: [0.280273,  0.510742,  0.161743,  0.0472412,  0.024765,  0.00849152,  0.069397,  0.897461,  0.0700073,  0.0539551,  0.496826,  0.37915,  0.194458,  0.0245209,  0.148438,  0.632812,  0.1203,  0.706055,  0.0395813,  0.134155,  0.0103149,  0.255615,  0.0325928,  0.70166]

func.func @t_layer_norm_f16(%a0: tensor<2x3x4xf16>, %a1: tensor<4xf16>, %a2: tensor<4xf16>) {
  %r = telar.layer_norm %a0, %a1, %a2 {axis = -1 : i64, epsilon = 1.0e-05 : f32} : (tensor<2x3x4xf16>, tensor<4xf16>, tensor<4xf16>) -> tensor<2x3x4xf16>
  %c0 = telar.cast %r {to = f32} : (tensor<2x3x4xf16>) -> tensor<2x3x4xf32>
  %f0 = tensor.collapse_shape %c0 [[0, 1, 2]] : tensor<2x3x4xf32> into tensor<24xf32>
  %u0 = tensor.cast %f0 : tensor<24xf32> to tensor<*xf32>
  call @printMemrefF32(%u0) : (tensor<*xf32>) -> ()
  return
}
// CHECK: [0.592773,  0.388184,  0.267334,  0.697266,  -0.413574,  -0.766602,  -0.165161,  5.34766,  -0.759277,  -0.76123,  -2.25586,  4.28125,  0.349365,  -0.964844,  -0.0346985,  4.89453,  -0.0866089,  0.566895,  2.53516,  2.87891,  -1.19141,  0.120667,  1.19824,  4.875]

func.func @t_cum_sum_i32_rev(%a0: tensor<2x3xi32>) {
  %r = telar.cum_sum %a0 {axis = 1 : i64, reverse = true} : (tensor<2x3xi32>) -> tensor<2x3xi32>
  %c0 = telar.cast %r {to = i64} : (tensor<2x3xi32>) -> tensor<2x3xi64>
  %f0 = tensor.collapse_shape %c0 [[0, 1]] : tensor<2x3xi64> into tensor<6xi64>
  %u0 = tensor.cast %f0 : tensor<6xi64> to tensor<*xi64>
  call @printMemrefI64(%u0) : (tensor<*xi64>) -> ()
  return
}
// CHECK: [-2,  -5,  2,  13,  3,  -1]

func.func @t_top_k_ui8(%a0: tensor<2x3xui8>) {
  %r:2 = telar.top_k %a0 {k = 2 : i64, axis = 1 : i64, largest = true, sorted = true} : (tensor<2x3xui8>) -> (tensor<2x2xui8>, tensor<2x2xi64>)
  %c0 = telar.cast %r#0 {to = i64} : (tensor<2x2xui8>) -> tensor<2x2xi64>
  %f0 = tensor.collapse_shape %c0 [[0, 1]] : tensor<2x2xi64> into tensor<4xi64>
  %u0 = tensor.cast %f0 : tensor<4xi64> to tensor<*xi64>
  call @printMemrefI64(%u0) : (tensor<*xi64>) -> ()
  %f1 = tensor.collapse_shape %r#1 [[0, 1]] : tensor<2x2xi64> into tensor<4xi64>
  %u1 = tensor.cast %f1 : tensor<4xi64> to tensor<*xi64>
  call @printMemrefI64(%u1) : (tensor<*xi64>) -> ()
  return
}
// CHECK: [200,  3,  255,  10]
// CHECK: [1,  0,  2,  0]

func.func @entry() {
  %t_reduce_sum_0 = arith.constant dense<[[[0.0, 0.6000000238418579, -0.550000011920929, -1.7799999713897705], [-0.9100000262260437, -1.9800000190734863, 0.11999999731779099, 2.680000066757202], [-0.9800000190734863, -1.2400000095367432, 0.9800000190734863, 0.7099999785423279]], [[0.20999999344348907, -1.8600000143051147, -0.05999999865889549, 1.3899999856948853], [-2.690000057220459, -0.9200000166893005, -3.799999952316284, -2.5799999237060547], [-3.680000066757202, -0.4699999988079071, -2.5299999713897705, 0.5400000214576721]]]> : tensor<2x3x4xf32>
  call @t_reduce_sum(%t_reduce_sum_0) : (tensor<2x3x4xf32>) -> ()
  %t_reduce_mean_0 = arith.constant dense<[[[0.0, 0.6000000238418579, -0.550000011920929, -1.7799999713897705], [-0.9100000262260437, -1.9800000190734863, 0.11999999731779099, 2.680000066757202], [-0.9800000190734863, -1.2400000095367432, 0.9800000190734863, 0.7099999785423279]], [[0.20999999344348907, -1.8600000143051147, -0.05999999865889549, 1.3899999856948853], [-2.690000057220459, -0.9200000166893005, -3.799999952316284, -2.5799999237060547], [-3.680000066757202, -0.4699999988079071, -2.5299999713897705, 0.5400000214576721]]]> : tensor<2x3x4xf32>
  call @t_reduce_mean(%t_reduce_mean_0) : (tensor<2x3x4xf32>) -> ()
  %t_reduce_max_all_0 = arith.constant dense<[[[0.0, 0.6000000238418579, -0.550000011920929, -1.7799999713897705], [-0.9100000262260437, -1.9800000190734863, 0.11999999731779099, 2.680000066757202], [-0.9800000190734863, -1.2400000095367432, 0.9800000190734863, 0.7099999785423279]], [[0.20999999344348907, -1.8600000143051147, -0.05999999865889549, 1.3899999856948853], [-2.690000057220459, -0.9200000166893005, -3.799999952316284, -2.5799999237060547], [-3.680000066757202, -0.4699999988079071, -2.5299999713897705, 0.5400000214576721]]]> : tensor<2x3x4xf32>
  call @t_reduce_max_all(%t_reduce_max_all_0) : (tensor<2x3x4xf32>) -> ()
  %t_reduce_min_0 = arith.constant dense<[[[0.0, 0.6000000238418579, -0.550000011920929, -1.7799999713897705], [-0.9100000262260437, -1.9800000190734863, 0.11999999731779099, 2.680000066757202], [-0.9800000190734863, -1.2400000095367432, 0.9800000190734863, 0.7099999785423279]], [[0.20999999344348907, -1.8600000143051147, -0.05999999865889549, 1.3899999856948853], [-2.690000057220459, -0.9200000166893005, -3.799999952316284, -2.5799999237060547], [-3.680000066757202, -0.4699999988079071, -2.5299999713897705, 0.5400000214576721]]]> : tensor<2x3x4xf32>
  call @t_reduce_min(%t_reduce_min_0) : (tensor<2x3x4xf32>) -> ()
  %t_reduce_prod_0 = arith.constant dense<[[[0.0, 0.6000000238418579, -0.550000011920929, -1.7799999713897705], [-0.9100000262260437, -1.9800000190734863, 0.11999999731779099, 2.680000066757202], [-0.9800000190734863, -1.2400000095367432, 0.9800000190734863, 0.7099999785423279]], [[0.20999999344348907, -1.8600000143051147, -0.05999999865889549, 1.3899999856948853], [-2.690000057220459, -0.9200000166893005, -3.799999952316284, -2.5799999237060547], [-3.680000066757202, -0.4699999988079071, -2.5299999713897705, 0.5400000214576721]]]> : tensor<2x3x4xf32>
  call @t_reduce_prod(%t_reduce_prod_0) : (tensor<2x3x4xf32>) -> ()
  %t_reduce_l1_0 = arith.constant dense<[[[0.0, 0.6000000238418579, -0.550000011920929, -1.7799999713897705], [-0.9100000262260437, -1.9800000190734863, 0.11999999731779099, 2.680000066757202], [-0.9800000190734863, -1.2400000095367432, 0.9800000190734863, 0.7099999785423279]], [[0.20999999344348907, -1.8600000143051147, -0.05999999865889549, 1.3899999856948853], [-2.690000057220459, -0.9200000166893005, -3.799999952316284, -2.5799999237060547], [-3.680000066757202, -0.4699999988079071, -2.5299999713897705, 0.5400000214576721]]]> : tensor<2x3x4xf32>
  call @t_reduce_l1(%t_reduce_l1_0) : (tensor<2x3x4xf32>) -> ()
  %t_reduce_l2_0 = arith.constant dense<[[[0.0, 0.6000000238418579, -0.550000011920929, -1.7799999713897705], [-0.9100000262260437, -1.9800000190734863, 0.11999999731779099, 2.680000066757202], [-0.9800000190734863, -1.2400000095367432, 0.9800000190734863, 0.7099999785423279]], [[0.20999999344348907, -1.8600000143051147, -0.05999999865889549, 1.3899999856948853], [-2.690000057220459, -0.9200000166893005, -3.799999952316284, -2.5799999237060547], [-3.680000066757202, -0.4699999988079071, -2.5299999713897705, 0.5400000214576721]]]> : tensor<2x3x4xf32>
  call @t_reduce_l2(%t_reduce_l2_0) : (tensor<2x3x4xf32>) -> ()
  %t_reduce_sum_square_0 = arith.constant dense<[[[0.0, 0.6000000238418579, -0.550000011920929, -1.7799999713897705], [-0.9100000262260437, -1.9800000190734863, 0.11999999731779099, 2.680000066757202], [-0.9800000190734863, -1.2400000095367432, 0.9800000190734863, 0.7099999785423279]], [[0.20999999344348907, -1.8600000143051147, -0.05999999865889549, 1.3899999856948853], [-2.690000057220459, -0.9200000166893005, -3.799999952316284, -2.5799999237060547], [-3.680000066757202, -0.4699999988079071, -2.5299999713897705, 0.5400000214576721]]]> : tensor<2x3x4xf32>
  call @t_reduce_sum_square(%t_reduce_sum_square_0) : (tensor<2x3x4xf32>) -> ()
  %t_reduce_log_sum_0 = arith.constant dense<[[[0.5, 1.100000023841858, 1.0499999523162842, 2.2799999713897705], [1.4100000858306885, 2.4800000190734863, 0.6200000047683716, 3.180000066757202], [1.4800000190734863, 1.7400000095367432, 1.4800000190734863, 1.2100000381469727]], [[0.7099999785423279, 2.3600001335144043, 0.5600000023841858, 1.8899999856948853], [3.190000057220459, 1.4200000762939453, 4.300000190734863, 3.0799999237060547], [4.180000305175781, 0.9700000286102295, 3.0299999713897705, 1.0399999618530273]]]> : tensor<2x3x4xf32>
  call @t_reduce_log_sum(%t_reduce_log_sum_0) : (tensor<2x3x4xf32>) -> ()
  %t_reduce_log_sum_exp_0 = arith.constant dense<[[100.0, 101.0, 99.0], [-1.0, 0.0, 1.0]]> : tensor<2x3xf32>
  call @t_reduce_log_sum_exp(%t_reduce_log_sum_exp_0) : (tensor<2x3xf32>) -> ()
  %t_reduce_log_sum_exp_all_0 = arith.constant dense<[[[0.0, 0.6000000238418579, -0.550000011920929, -1.7799999713897705], [-0.9100000262260437, -1.9800000190734863, 0.11999999731779099, 2.680000066757202], [-0.9800000190734863, -1.2400000095367432, 0.9800000190734863, 0.7099999785423279]], [[0.20999999344348907, -1.8600000143051147, -0.05999999865889549, 1.3899999856948853], [-2.690000057220459, -0.9200000166893005, -3.799999952316284, -2.5799999237060547], [-3.680000066757202, -0.4699999988079071, -2.5299999713897705, 0.5400000214576721]]]> : tensor<2x3x4xf32>
  call @t_reduce_log_sum_exp_all(%t_reduce_log_sum_exp_all_0) : (tensor<2x3x4xf32>) -> ()
  %t_reduce_sum_i32_0 = arith.constant dense<[[3, -7, 2], [10, 4, -1]]> : tensor<2x3xi32>
  call @t_reduce_sum_i32(%t_reduce_sum_i32_0) : (tensor<2x3xi32>) -> ()
  %t_reduce_mean_i32_0 = arith.constant dense<[[3, -7, 2], [10, 4, -1]]> : tensor<2x3xi32>
  call @t_reduce_mean_i32(%t_reduce_mean_i32_0) : (tensor<2x3xi32>) -> ()
  %t_reduce_max_i32_0 = arith.constant dense<[[3, -7, 2], [10, 4, -1]]> : tensor<2x3xi32>
  call @t_reduce_max_i32(%t_reduce_max_i32_0) : (tensor<2x3xi32>) -> ()
  %t_reduce_min_i64_0 = arith.constant dense<[[3, -7, 2], [10, 4, -1]]> : tensor<2x3xi64>
  call @t_reduce_min_i64(%t_reduce_min_i64_0) : (tensor<2x3xi64>) -> ()
  %t_reduce_max_ui8_0 = telar.constant dense<[[3, 200, 2], [10, 4, 255]]> : tensor<2x3xui8>
  call @t_reduce_max_ui8(%t_reduce_max_ui8_0) : (tensor<2x3xui8>) -> ()
  %t_reduce_min_ui8_0 = telar.constant dense<[[3, 200, 2], [10, 4, 255]]> : tensor<2x3xui8>
  call @t_reduce_min_ui8(%t_reduce_min_ui8_0) : (tensor<2x3xui8>) -> ()
  %t_reduce_max_nan_0 = arith.constant dense<[[1.0, 0x7FC00000, 3.0], [2.0, 5.0, -1.0]]> : tensor<2x3xf32>
  call @t_reduce_max_nan(%t_reduce_max_nan_0) : (tensor<2x3xf32>) -> ()
  %t_reduce_min_nan_0 = arith.constant dense<[[1.0, 0x7FC00000, 3.0], [2.0, 5.0, -1.0]]> : tensor<2x3xf32>
  call @t_reduce_min_nan(%t_reduce_min_nan_0) : (tensor<2x3xf32>) -> ()
  %t_arg_max_0 = arith.constant dense<[[1.0, 3.0, 3.0, -2.0], [5.0, 5.0, 0.0, 5.0], [-1.0, -4.0, -4.0, 2.0]]> : tensor<3x4xf32>
  call @t_arg_max(%t_arg_max_0) : (tensor<3x4xf32>) -> ()
  %t_arg_max_last_0 = arith.constant dense<[[1.0, 3.0, 3.0, -2.0], [5.0, 5.0, 0.0, 5.0], [-1.0, -4.0, -4.0, 2.0]]> : tensor<3x4xf32>
  call @t_arg_max_last(%t_arg_max_last_0) : (tensor<3x4xf32>) -> ()
  %t_arg_min_axis0_0 = arith.constant dense<[[1.0, 3.0, 3.0, -2.0], [5.0, 5.0, 0.0, 5.0], [-1.0, -4.0, -4.0, 2.0]]> : tensor<3x4xf32>
  call @t_arg_min_axis0(%t_arg_min_axis0_0) : (tensor<3x4xf32>) -> ()
  %t_arg_min_last_0 = arith.constant dense<[[1.0, 3.0, 3.0, -2.0], [5.0, 5.0, 0.0, 5.0], [-1.0, -4.0, -4.0, 2.0]]> : tensor<3x4xf32>
  call @t_arg_min_last(%t_arg_min_last_0) : (tensor<3x4xf32>) -> ()
  %t_arg_max_3d_0 = arith.constant dense<[[[0.0, 0.6000000238418579, -0.550000011920929, -1.7799999713897705], [-0.9100000262260437, -1.9800000190734863, 0.11999999731779099, 2.680000066757202], [-0.9800000190734863, -1.2400000095367432, 0.9800000190734863, 0.7099999785423279]], [[0.20999999344348907, -1.8600000143051147, -0.05999999865889549, 1.3899999856948853], [-2.690000057220459, -0.9200000166893005, -3.799999952316284, -2.5799999237060547], [-3.680000066757202, -0.4699999988079071, -2.5299999713897705, 0.5400000214576721]]]> : tensor<2x3x4xf32>
  call @t_arg_max_3d(%t_arg_max_3d_0) : (tensor<2x3x4xf32>) -> ()
  %t_arg_max_i32_0 = arith.constant dense<[[3, -7, 2], [10, 4, -1]]> : tensor<2x3xi32>
  call @t_arg_max_i32(%t_arg_max_i32_0) : (tensor<2x3xi32>) -> ()
  %t_arg_min_ui8_0 = telar.constant dense<[[3, 200, 2], [10, 4, 255]]> : tensor<2x3xui8>
  call @t_arg_min_ui8(%t_arg_min_ui8_0) : (tensor<2x3xui8>) -> ()
  %t_softmax_0 = arith.constant dense<[[[0.0, 0.6000000238418579, -0.550000011920929, -1.7799999713897705], [-0.9100000262260437, -1.9800000190734863, 0.11999999731779099, 2.680000066757202], [-0.9800000190734863, -1.2400000095367432, 0.9800000190734863, 0.7099999785423279]], [[0.20999999344348907, -1.8600000143051147, -0.05999999865889549, 1.3899999856948853], [-2.690000057220459, -0.9200000166893005, -3.799999952316284, -2.5799999237060547], [-3.680000066757202, -0.4699999988079071, -2.5299999713897705, 0.5400000214576721]]]> : tensor<2x3x4xf32>
  call @t_softmax(%t_softmax_0) : (tensor<2x3x4xf32>) -> ()
  %t_softmax_axis1_0 = arith.constant dense<[[[0.0, 0.6000000238418579, -0.550000011920929, -1.7799999713897705], [-0.9100000262260437, -1.9800000190734863, 0.11999999731779099, 2.680000066757202], [-0.9800000190734863, -1.2400000095367432, 0.9800000190734863, 0.7099999785423279]], [[0.20999999344348907, -1.8600000143051147, -0.05999999865889549, 1.3899999856948853], [-2.690000057220459, -0.9200000166893005, -3.799999952316284, -2.5799999237060547], [-3.680000066757202, -0.4699999988079071, -2.5299999713897705, 0.5400000214576721]]]> : tensor<2x3x4xf32>
  call @t_softmax_axis1(%t_softmax_axis1_0) : (tensor<2x3x4xf32>) -> ()
  %t_softmax_big_0 = arith.constant dense<[[100.0, 101.0, 99.0], [-1.0, 0.0, 1.0]]> : tensor<2x3xf32>
  call @t_softmax_big(%t_softmax_big_0) : (tensor<2x3xf32>) -> ()
  %t_log_softmax_0 = arith.constant dense<[[[0.0, 0.6000000238418579, -0.550000011920929, -1.7799999713897705], [-0.9100000262260437, -1.9800000190734863, 0.11999999731779099, 2.680000066757202], [-0.9800000190734863, -1.2400000095367432, 0.9800000190734863, 0.7099999785423279]], [[0.20999999344348907, -1.8600000143051147, -0.05999999865889549, 1.3899999856948853], [-2.690000057220459, -0.9200000166893005, -3.799999952316284, -2.5799999237060547], [-3.680000066757202, -0.4699999988079071, -2.5299999713897705, 0.5400000214576721]]]> : tensor<2x3x4xf32>
  call @t_log_softmax(%t_log_softmax_0) : (tensor<2x3x4xf32>) -> ()
  %t_log_softmax_big_0 = arith.constant dense<[[100.0, 101.0, 99.0], [-1.0, 0.0, 1.0]]> : tensor<2x3xf32>
  call @t_log_softmax_big(%t_log_softmax_big_0) : (tensor<2x3xf32>) -> ()
  %t_hardmax_0 = arith.constant dense<[[1.0, 3.0, 3.0, -2.0], [5.0, 5.0, 0.0, 5.0], [-1.0, -4.0, -4.0, 2.0]]> : tensor<3x4xf32>
  call @t_hardmax(%t_hardmax_0) : (tensor<3x4xf32>) -> ()
  %t_hardmax_axis0_0 = arith.constant dense<[[1.0, 3.0, 3.0, -2.0], [5.0, 5.0, 0.0, 5.0], [-1.0, -4.0, -4.0, 2.0]]> : tensor<3x4xf32>
  call @t_hardmax_axis0(%t_hardmax_axis0_0) : (tensor<3x4xf32>) -> ()
  %t_lp_norm_l2_0 = arith.constant dense<[[3.0, -4.0, 0.0], [0.0, 0.0, 0.0], [1.0, 2.0, 2.0]]> : tensor<3x3xf32>
  call @t_lp_norm_l2(%t_lp_norm_l2_0) : (tensor<3x3xf32>) -> ()
  %t_lp_norm_l1_0 = arith.constant dense<[[3.0, -4.0, 0.0], [0.0, 0.0, 0.0], [1.0, 2.0, 2.0]]> : tensor<3x3xf32>
  call @t_lp_norm_l1(%t_lp_norm_l1_0) : (tensor<3x3xf32>) -> ()
  %t_layer_norm_0 = arith.constant dense<[[[0.0, 0.6000000238418579, -0.550000011920929, -1.7799999713897705], [-0.9100000262260437, -1.9800000190734863, 0.11999999731779099, 2.680000066757202], [-0.9800000190734863, -1.2400000095367432, 0.9800000190734863, 0.7099999785423279]], [[0.20999999344348907, -1.8600000143051147, -0.05999999865889549, 1.3899999856948853], [-2.690000057220459, -0.9200000166893005, -3.799999952316284, -2.5799999237060547], [-3.680000066757202, -0.4699999988079071, -2.5299999713897705, 0.5400000214576721]]]> : tensor<2x3x4xf32>
  %t_layer_norm_1 = arith.constant dense<[1.0, 0.5, -2.0, 1.5]> : tensor<4xf32>
  %t_layer_norm_2 = arith.constant dense<[0.10000000149011612, -0.20000000298023224, 0.0, 3.0]> : tensor<4xf32>
  call @t_layer_norm(%t_layer_norm_0, %t_layer_norm_1, %t_layer_norm_2) : (tensor<2x3x4xf32>, tensor<4xf32>, tensor<4xf32>) -> ()
  %t_layer_norm_axis1_0 = arith.constant dense<[[[0.0, 0.6000000238418579, -0.550000011920929, -1.7799999713897705], [-0.9100000262260437, -1.9800000190734863, 0.11999999731779099, 2.680000066757202], [-0.9800000190734863, -1.2400000095367432, 0.9800000190734863, 0.7099999785423279]], [[0.20999999344348907, -1.8600000143051147, -0.05999999865889549, 1.3899999856948853], [-2.690000057220459, -0.9200000166893005, -3.799999952316284, -2.5799999237060547], [-3.680000066757202, -0.4699999988079071, -2.5299999713897705, 0.5400000214576721]]]> : tensor<2x3x4xf32>
  %t_layer_norm_axis1_1 = arith.constant dense<[[0.1599999964237213, -0.1899999976158142, -2.5199999809265137, -0.5400000214576721], [-0.05000000074505806, 0.10999999940395355, -1.5299999713897705, -0.47999998927116394], [-0.9800000190734863, -0.8100000023841858, 1.059999942779541, -0.8100000023841858]]> : tensor<3x4xf32>
  call @t_layer_norm_axis1(%t_layer_norm_axis1_0, %t_layer_norm_axis1_1) : (tensor<2x3x4xf32>, tensor<3x4xf32>) -> ()
  %t_rms_norm_0 = arith.constant dense<[[[0.0, 0.6000000238418579, -0.550000011920929, -1.7799999713897705], [-0.9100000262260437, -1.9800000190734863, 0.11999999731779099, 2.680000066757202], [-0.9800000190734863, -1.2400000095367432, 0.9800000190734863, 0.7099999785423279]], [[0.20999999344348907, -1.8600000143051147, -0.05999999865889549, 1.3899999856948853], [-2.690000057220459, -0.9200000166893005, -3.799999952316284, -2.5799999237060547], [-3.680000066757202, -0.4699999988079071, -2.5299999713897705, 0.5400000214576721]]]> : tensor<2x3x4xf32>
  %t_rms_norm_1 = arith.constant dense<[1.0, 0.5, -2.0, 1.5]> : tensor<4xf32>
  call @t_rms_norm(%t_rms_norm_0, %t_rms_norm_1) : (tensor<2x3x4xf32>, tensor<4xf32>) -> ()
  %t_rms_norm_axis1_0 = arith.constant dense<[[[0.0, 0.6000000238418579, -0.550000011920929, -1.7799999713897705], [-0.9100000262260437, -1.9800000190734863, 0.11999999731779099, 2.680000066757202], [-0.9800000190734863, -1.2400000095367432, 0.9800000190734863, 0.7099999785423279]], [[0.20999999344348907, -1.8600000143051147, -0.05999999865889549, 1.3899999856948853], [-2.690000057220459, -0.9200000166893005, -3.799999952316284, -2.5799999237060547], [-3.680000066757202, -0.4699999988079071, -2.5299999713897705, 0.5400000214576721]]]> : tensor<2x3x4xf32>
  %t_rms_norm_axis1_1 = arith.constant dense<[[0.1599999964237213, -0.1899999976158142, -2.5199999809265137, -0.5400000214576721], [-0.05000000074505806, 0.10999999940395355, -1.5299999713897705, -0.47999998927116394], [-0.9800000190734863, -0.8100000023841858, 1.059999942779541, -0.8100000023841858]]> : tensor<3x4xf32>
  call @t_rms_norm_axis1(%t_rms_norm_axis1_0, %t_rms_norm_axis1_1) : (tensor<2x3x4xf32>, tensor<3x4xf32>) -> ()
  %t_batch_norm_0 = arith.constant dense<[[[[-0.10000000149011612, 2.6500000953674316], [-1.75, -0.3400000035762787]], [[0.33000001311302185, 0.1899999976158142], [-3.680000066757202, 0.23000000417232513]], [[4.079999923706055, -4.639999866485596], [2.5799999237060547, 0.36000001430511475]]], [[[-1.9199999570846558, 6.0], [2.2899999618530273, -3.5999999046325684]], [[0.2199999988079071, 1.7300000190734863], [-0.5699999928474426, 2.049999952316284]], [[-0.20000000298023224, 2.0], [4.320000171661377, -2.0299999713897705]]]]> : tensor<2x3x2x2xf32>
  %t_batch_norm_1 = arith.constant dense<[1.0, -0.5, 2.0]> : tensor<3xf32>
  %t_batch_norm_2 = arith.constant dense<[0.0, 1.0, -1.0]> : tensor<3xf32>
  %t_batch_norm_3 = arith.constant dense<[0.5, -1.0, 0.0]> : tensor<3xf32>
  %t_batch_norm_4 = arith.constant dense<[1.0, 4.0, 0.25]> : tensor<3xf32>
  call @t_batch_norm(%t_batch_norm_0, %t_batch_norm_1, %t_batch_norm_2, %t_batch_norm_3, %t_batch_norm_4) : (tensor<2x3x2x2xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> ()
  %t_batch_norm_2d_0 = arith.constant dense<[[0.0, -0.9100000262260437, -0.9800000190734863], [0.6000000238418579, -1.9800000190734863, -1.2400000095367432], [-0.550000011920929, 0.11999999731779099, 0.9800000190734863], [-1.7799999713897705, 2.680000066757202, 0.7099999785423279]]> : tensor<4x3xf32>
  %t_batch_norm_2d_1 = arith.constant dense<[1.0, -0.5, 2.0]> : tensor<3xf32>
  %t_batch_norm_2d_2 = arith.constant dense<[0.0, 1.0, -1.0]> : tensor<3xf32>
  %t_batch_norm_2d_3 = arith.constant dense<[0.5, -1.0, 0.0]> : tensor<3xf32>
  %t_batch_norm_2d_4 = arith.constant dense<[1.0, 4.0, 0.25]> : tensor<3xf32>
  call @t_batch_norm_2d(%t_batch_norm_2d_0, %t_batch_norm_2d_1, %t_batch_norm_2d_2, %t_batch_norm_2d_3, %t_batch_norm_2d_4) : (tensor<4x3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> ()
  %t_instance_norm_0 = arith.constant dense<[[[[-0.10000000149011612, 2.6500000953674316], [-1.75, -0.3400000035762787]], [[0.33000001311302185, 0.1899999976158142], [-3.680000066757202, 0.23000000417232513]], [[4.079999923706055, -4.639999866485596], [2.5799999237060547, 0.36000001430511475]]], [[[-1.9199999570846558, 6.0], [2.2899999618530273, -3.5999999046325684]], [[0.2199999988079071, 1.7300000190734863], [-0.5699999928474426, 2.049999952316284]], [[-0.20000000298023224, 2.0], [4.320000171661377, -2.0299999713897705]]]]> : tensor<2x3x2x2xf32>
  %t_instance_norm_1 = arith.constant dense<[1.0, -0.5, 2.0]> : tensor<3xf32>
  %t_instance_norm_2 = arith.constant dense<[0.0, 1.0, -1.0]> : tensor<3xf32>
  call @t_instance_norm(%t_instance_norm_0, %t_instance_norm_1, %t_instance_norm_2) : (tensor<2x3x2x2xf32>, tensor<3xf32>, tensor<3xf32>) -> ()
  %t_group_norm_0 = arith.constant dense<[[[0.4099999964237213, -0.9300000071525574, 0.25], [-2.369999885559082, -1.159999966621399, -0.38999998569488525], [1.7999999523162842, 2.2899999618530273, -2.6500000953674316], [-1.590000033378601, 1.2899999618530273, -3.9800000190734863]], [[-0.9300000071525574, -0.1899999976158142, 2.509999990463257], [1.3799999952316284, -0.6499999761581421, -0.7400000095367432], [-0.5, 3.049999952316284, -0.8600000143051147], [-0.6100000143051147, 0.7099999785423279, -0.23999999463558197]]]> : tensor<2x4x3xf32>
  %t_group_norm_1 = arith.constant dense<[1.0, 2.0, -1.0, 0.5]> : tensor<4xf32>
  %t_group_norm_2 = arith.constant dense<[0.0, 0.5, 1.0, -1.0]> : tensor<4xf32>
  call @t_group_norm(%t_group_norm_0, %t_group_norm_1, %t_group_norm_2) : (tensor<2x4x3xf32>, tensor<4xf32>, tensor<4xf32>) -> ()
  %t_mean_variance_norm_0 = arith.constant dense<[[[[-0.10000000149011612, 2.6500000953674316], [-1.75, -0.3400000035762787]], [[0.33000001311302185, 0.1899999976158142], [-3.680000066757202, 0.23000000417232513]], [[4.079999923706055, -4.639999866485596], [2.5799999237060547, 0.36000001430511475]]], [[[-1.9199999570846558, 6.0], [2.2899999618530273, -3.5999999046325684]], [[0.2199999988079071, 1.7300000190734863], [-0.5699999928474426, 2.049999952316284]], [[-0.20000000298023224, 2.0], [4.320000171661377, -2.0299999713897705]]]]> : tensor<2x3x2x2xf32>
  call @t_mean_variance_norm(%t_mean_variance_norm_0) : (tensor<2x3x2x2xf32>) -> ()
  %t_mean_variance_norm_last_0 = arith.constant dense<[[[0.0, 0.6000000238418579, -0.550000011920929, -1.7799999713897705], [-0.9100000262260437, -1.9800000190734863, 0.11999999731779099, 2.680000066757202], [-0.9800000190734863, -1.2400000095367432, 0.9800000190734863, 0.7099999785423279]], [[0.20999999344348907, -1.8600000143051147, -0.05999999865889549, 1.3899999856948853], [-2.690000057220459, -0.9200000166893005, -3.799999952316284, -2.5799999237060547], [-3.680000066757202, -0.4699999988079071, -2.5299999713897705, 0.5400000214576721]]]> : tensor<2x3x4xf32>
  call @t_mean_variance_norm_last(%t_mean_variance_norm_last_0) : (tensor<2x3x4xf32>) -> ()
  %t_lrn_0 = arith.constant dense<[[[[-0.5899999737739563], [-3.3399999141693115]], [[-0.029999999329447746], [-1.3300000429153442]], [[3.5], [1.9600000381469727]], [[-0.07000000029802322], [2.009999990463257]], [[-1.0199999809265137], [3.1600000858306885]]]]> : tensor<1x5x2x1xf32>
  call @t_lrn(%t_lrn_0) : (tensor<1x5x2x1xf32>) -> ()
  %t_lrn_even_0 = arith.constant dense<[[[[-0.5899999737739563], [-3.3399999141693115]], [[-0.029999999329447746], [-1.3300000429153442]], [[3.5], [1.9600000381469727]], [[-0.07000000029802322], [2.009999990463257]], [[-1.0199999809265137], [3.1600000858306885]]]]> : tensor<1x5x2x1xf32>
  call @t_lrn_even(%t_lrn_even_0) : (tensor<1x5x2x1xf32>) -> ()
  %t_cum_sum_00_0 = arith.constant dense<[[1.0, 2.0, 3.0, 4.0], [-1.0, 0.5, 0.25, 8.0]]> : tensor<2x4xf32>
  call @t_cum_sum_00(%t_cum_sum_00_0) : (tensor<2x4xf32>) -> ()
  %t_cum_sum_01_0 = arith.constant dense<[[1.0, 2.0, 3.0, 4.0], [-1.0, 0.5, 0.25, 8.0]]> : tensor<2x4xf32>
  call @t_cum_sum_01(%t_cum_sum_01_0) : (tensor<2x4xf32>) -> ()
  %t_cum_sum_10_0 = arith.constant dense<[[1.0, 2.0, 3.0, 4.0], [-1.0, 0.5, 0.25, 8.0]]> : tensor<2x4xf32>
  call @t_cum_sum_10(%t_cum_sum_10_0) : (tensor<2x4xf32>) -> ()
  %t_cum_sum_11_0 = arith.constant dense<[[1.0, 2.0, 3.0, 4.0], [-1.0, 0.5, 0.25, 8.0]]> : tensor<2x4xf32>
  call @t_cum_sum_11(%t_cum_sum_11_0) : (tensor<2x4xf32>) -> ()
  %t_cum_sum_i64_axis0_0 = arith.constant dense<[[1, 2], [3, 4], [5, 6]]> : tensor<3x2xi64>
  call @t_cum_sum_i64_axis0(%t_cum_sum_i64_axis0_0) : (tensor<3x2xi64>) -> ()
  %t_top_k_0 = arith.constant dense<[[3.0, 1.0, 3.0, 7.0, -2.0, 7.0], [0.0, 0.0, 0.0, 1.0, -1.0, 0.0]]> : tensor<2x6xf32>
  call @t_top_k(%t_top_k_0) : (tensor<2x6xf32>) -> ()
  %t_top_k_smallest_0 = arith.constant dense<[[3.0, 1.0, 3.0, 7.0, -2.0, 7.0], [0.0, 0.0, 0.0, 1.0, -1.0, 0.0]]> : tensor<2x6xf32>
  call @t_top_k_smallest(%t_top_k_smallest_0) : (tensor<2x6xf32>) -> ()
  %t_top_k_axis0_0 = arith.constant dense<[[3.0, 1.0, 3.0, 7.0, -2.0, 7.0], [0.0, 0.0, 0.0, 1.0, -1.0, 0.0]]> : tensor<2x6xf32>
  call @t_top_k_axis0(%t_top_k_axis0_0) : (tensor<2x6xf32>) -> ()
  %t_top_k_3d_0 = arith.constant dense<[[[0.0, 0.6000000238418579, -0.550000011920929, -1.7799999713897705], [-0.9100000262260437, -1.9800000190734863, 0.11999999731779099, 2.680000066757202], [-0.9800000190734863, -1.2400000095367432, 0.9800000190734863, 0.7099999785423279]], [[0.20999999344348907, -1.8600000143051147, -0.05999999865889549, 1.3899999856948853], [-2.690000057220459, -0.9200000166893005, -3.799999952316284, -2.5799999237060547], [-3.680000066757202, -0.4699999988079071, -2.5299999713897705, 0.5400000214576721]]]> : tensor<2x3x4xf32>
  call @t_top_k_3d(%t_top_k_3d_0) : (tensor<2x3x4xf32>) -> ()
  %t_top_k_i64_0 = arith.constant dense<[[5, 1, 5, 9], [2, 2, 8, -3]]> : tensor<2x4xi64>
  call @t_top_k_i64(%t_top_k_i64_0) : (tensor<2x4xi64>) -> ()
  %t_reduce_sum_f16_0 = arith.constant dense<[[[0.0, 0.60009765625, -0.5498046875, -1.7802734375], [-0.91015625, -1.98046875, 0.1199951171875, 2.6796875], [-0.97998046875, -1.240234375, 0.97998046875, 0.7099609375]], [[0.2099609375, -1.8603515625, -0.05999755859375, 1.3896484375], [-2.689453125, -0.919921875, -3.80078125, -2.580078125], [-3.6796875, -0.469970703125, -2.529296875, 0.5400390625]]]> : tensor<2x3x4xf16>
  call @t_reduce_sum_f16(%t_reduce_sum_f16_0) : (tensor<2x3x4xf16>) -> ()
  %t_reduce_l2_i32_0 = arith.constant dense<[[3, -7, 2], [10, 4, -1]]> : tensor<2x3xi32>
  call @t_reduce_l2_i32(%t_reduce_l2_i32_0) : (tensor<2x3xi32>) -> ()
  %t_softmax_f16_0 = arith.constant dense<[[[0.0, 0.60009765625, -0.5498046875, -1.7802734375], [-0.91015625, -1.98046875, 0.1199951171875, 2.6796875], [-0.97998046875, -1.240234375, 0.97998046875, 0.7099609375]], [[0.2099609375, -1.8603515625, -0.05999755859375, 1.3896484375], [-2.689453125, -0.919921875, -3.80078125, -2.580078125], [-3.6796875, -0.469970703125, -2.529296875, 0.5400390625]]]> : tensor<2x3x4xf16>
  call @t_softmax_f16(%t_softmax_f16_0) : (tensor<2x3x4xf16>) -> ()
  %t_layer_norm_f16_0 = arith.constant dense<[[[0.0, 0.60009765625, -0.5498046875, -1.7802734375], [-0.91015625, -1.98046875, 0.1199951171875, 2.6796875], [-0.97998046875, -1.240234375, 0.97998046875, 0.7099609375]], [[0.2099609375, -1.8603515625, -0.05999755859375, 1.3896484375], [-2.689453125, -0.919921875, -3.80078125, -2.580078125], [-3.6796875, -0.469970703125, -2.529296875, 0.5400390625]]]> : tensor<2x3x4xf16>
  %t_layer_norm_f16_1 = arith.constant dense<[1.0, 0.5, -2.0, 1.5]> : tensor<4xf16>
  %t_layer_norm_f16_2 = arith.constant dense<[0.0999755859375, -0.199951171875, 0.0, 3.0]> : tensor<4xf16>
  call @t_layer_norm_f16(%t_layer_norm_f16_0, %t_layer_norm_f16_1, %t_layer_norm_f16_2) : (tensor<2x3x4xf16>, tensor<4xf16>, tensor<4xf16>) -> ()
  %t_cum_sum_i32_rev_0 = arith.constant dense<[[3, -7, 2], [10, 4, -1]]> : tensor<2x3xi32>
  call @t_cum_sum_i32_rev(%t_cum_sum_i32_rev_0) : (tensor<2x3xi32>) -> ()
  %t_top_k_ui8_0 = telar.constant dense<[[3, 200, 2], [10, 4, 255]]> : tensor<2x3xui8>
  call @t_top_k_ui8(%t_top_k_ui8_0) : (tensor<2x3xui8>) -> ()
  return
}
func.func private @printMemrefF32(tensor<*xf32>)
func.func private @printMemrefI64(tensor<*xi64>)
