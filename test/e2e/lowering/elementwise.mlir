// Numeric checks of the elementwise lowering through MLIR's JIT runner.
// Expected values are onnxruntime's (numpy's where onnxruntime has no
// equivalent), printed with 6 significant digits.
// RUN: telar-opt %s %lower_standalone | %mlir_runner -e entry | FileCheck %s

func.func @t_abs(%a0: tensor<8xf32>) {
  %r = telar.abs %a0 : (tensor<8xf32>) -> tensor<8xf32>
  %u0 = tensor.cast %r : tensor<8xf32> to tensor<*xf32>
  call @printMemrefF32(%u0) : (tensor<*xf32>) -> ()
  return
}
// CHECK: [2.5,  1,  0.5,  0,  0.5,  1,  2.5,  3.7]

func.func @t_neg(%a0: tensor<8xf32>) {
  %r = telar.neg %a0 : (tensor<8xf32>) -> tensor<8xf32>
  %u0 = tensor.cast %r : tensor<8xf32> to tensor<*xf32>
  call @printMemrefF32(%u0) : (tensor<*xf32>) -> ()
  return
}
// CHECK: [2.5,  1,  0.5,  -0,  -0.5,  -1,  -2.5,  -3.7]

func.func @t_sign(%a0: tensor<8xf32>) {
  %r = telar.sign %a0 : (tensor<8xf32>) -> tensor<8xf32>
  %u0 = tensor.cast %r : tensor<8xf32> to tensor<*xf32>
  call @printMemrefF32(%u0) : (tensor<*xf32>) -> ()
  return
}
// CHECK: [-1,  -1,  -1,  0,  1,  1,  1,  1]

func.func @t_exp(%a0: tensor<8xf32>) {
  %r = telar.exp %a0 : (tensor<8xf32>) -> tensor<8xf32>
  %u0 = tensor.cast %r : tensor<8xf32> to tensor<*xf32>
  call @printMemrefF32(%u0) : (tensor<*xf32>) -> ()
  return
}
// CHECK: [0.082085,  0.367879,  0.606531,  1,  1.64872,  2.71828,  12.1825,  40.4473]

func.func @t_reciprocal(%a0: tensor<8xf32>) {
  %r = telar.reciprocal %a0 : (tensor<8xf32>) -> tensor<8xf32>
  %u0 = tensor.cast %r : tensor<8xf32> to tensor<*xf32>
  call @printMemrefF32(%u0) : (tensor<*xf32>) -> ()
  return
}
// CHECK: [-0.4,  -1,  -2,  inf,  2,  1,  0.4,  0.27027]

func.func @t_floor(%a0: tensor<8xf32>) {
  %r = telar.floor %a0 : (tensor<8xf32>) -> tensor<8xf32>
  %u0 = tensor.cast %r : tensor<8xf32> to tensor<*xf32>
  call @printMemrefF32(%u0) : (tensor<*xf32>) -> ()
  return
}
// CHECK: [-3,  -1,  -1,  0,  0,  1,  2,  3]

func.func @t_ceil(%a0: tensor<8xf32>) {
  %r = telar.ceil %a0 : (tensor<8xf32>) -> tensor<8xf32>
  %u0 = tensor.cast %r : tensor<8xf32> to tensor<*xf32>
  call @printMemrefF32(%u0) : (tensor<*xf32>) -> ()
  return
}
// CHECK: [-2,  -1,  -0,  0,  1,  1,  3,  4]

func.func @t_round(%a0: tensor<8xf32>) {
  %r = telar.round %a0 : (tensor<8xf32>) -> tensor<8xf32>
  %u0 = tensor.cast %r : tensor<8xf32> to tensor<*xf32>
  call @printMemrefF32(%u0) : (tensor<*xf32>) -> ()
  return
}
// CHECK: [-2,  -1,  -0,  0,  0,  1,  2,  4]

func.func @t_sin(%a0: tensor<8xf32>) {
  %r = telar.sin %a0 : (tensor<8xf32>) -> tensor<8xf32>
  %u0 = tensor.cast %r : tensor<8xf32> to tensor<*xf32>
  call @printMemrefF32(%u0) : (tensor<*xf32>) -> ()
  return
}
// CHECK: [-0.598472,  -0.841471,  -0.479426,  0,  0.479426,  0.841471,  0.598472,  -0.529836]

func.func @t_cos(%a0: tensor<8xf32>) {
  %r = telar.cos %a0 : (tensor<8xf32>) -> tensor<8xf32>
  %u0 = tensor.cast %r : tensor<8xf32> to tensor<*xf32>
  call @printMemrefF32(%u0) : (tensor<*xf32>) -> ()
  return
}
// CHECK: [-0.801144,  0.540302,  0.877583,  1,  0.877583,  0.540302,  -0.801144,  -0.8481]

func.func @t_tan(%a0: tensor<8xf32>) {
  %r = telar.tan %a0 : (tensor<8xf32>) -> tensor<8xf32>
  %u0 = tensor.cast %r : tensor<8xf32> to tensor<*xf32>
  call @printMemrefF32(%u0) : (tensor<*xf32>) -> ()
  return
}
// CHECK: [0.747022,  -1.55741,  -0.546302,  0,  0.546302,  1.55741,  -0.747022,  0.624733]

func.func @t_atan(%a0: tensor<8xf32>) {
  %r = telar.atan %a0 : (tensor<8xf32>) -> tensor<8xf32>
  %u0 = tensor.cast %r : tensor<8xf32> to tensor<*xf32>
  call @printMemrefF32(%u0) : (tensor<*xf32>) -> ()
  return
}
// CHECK: [-1.19029,  -0.785398,  -0.463648,  0,  0.463648,  0.785398,  1.19029,  1.30683]

func.func @t_sinh(%a0: tensor<8xf32>) {
  %r = telar.sinh %a0 : (tensor<8xf32>) -> tensor<8xf32>
  %u0 = tensor.cast %r : tensor<8xf32> to tensor<*xf32>
  call @printMemrefF32(%u0) : (tensor<*xf32>) -> ()
  return
}
// CHECK: [-6.0502,  -1.1752,  -0.521095,  0,  0.521095,  1.1752,  6.0502,  20.2113]

func.func @t_cosh(%a0: tensor<8xf32>) {
  %r = telar.cosh %a0 : (tensor<8xf32>) -> tensor<8xf32>
  %u0 = tensor.cast %r : tensor<8xf32> to tensor<*xf32>
  call @printMemrefF32(%u0) : (tensor<*xf32>) -> ()
  return
}
// CHECK: [6.13229,  1.54308,  1.12763,  1,  1.12763,  1.54308,  6.13229,  20.236]

func.func @t_asinh(%a0: tensor<8xf32>) {
  %r = telar.asinh %a0 : (tensor<8xf32>) -> tensor<8xf32>
  %u0 = tensor.cast %r : tensor<8xf32> to tensor<*xf32>
  call @printMemrefF32(%u0) : (tensor<*xf32>) -> ()
  return
}
// CHECK: [-1.64723,  -0.881374,  -0.481212,  0,  0.481212,  0.881374,  1.64723,  2.01926]

func.func @t_tanh(%a0: tensor<8xf32>) {
  %r = telar.tanh %a0 : (tensor<8xf32>) -> tensor<8xf32>
  %u0 = tensor.cast %r : tensor<8xf32> to tensor<*xf32>
  call @printMemrefF32(%u0) : (tensor<*xf32>) -> ()
  return
}
// CHECK: [-0.986614,  -0.761594,  -0.462117,  0,  0.462117,  0.761594,  0.986614,  0.998778]

func.func @t_sigmoid(%a0: tensor<8xf32>) {
  %r = telar.sigmoid %a0 : (tensor<8xf32>) -> tensor<8xf32>
  %u0 = tensor.cast %r : tensor<8xf32> to tensor<*xf32>
  call @printMemrefF32(%u0) : (tensor<*xf32>) -> ()
  return
}
// CHECK: [0.0758582,  0.268941,  0.377541,  0.5,  0.622459,  0.731059,  0.924142,  0.975873]

func.func @t_relu(%a0: tensor<8xf32>) {
  %r = telar.relu %a0 : (tensor<8xf32>) -> tensor<8xf32>
  %u0 = tensor.cast %r : tensor<8xf32> to tensor<*xf32>
  call @printMemrefF32(%u0) : (tensor<*xf32>) -> ()
  return
}
// CHECK: [0,  0,  0,  0,  0.5,  1,  2.5,  3.7]

func.func @t_erf(%a0: tensor<8xf32>) {
  %r = telar.erf %a0 : (tensor<8xf32>) -> tensor<8xf32>
  %u0 = tensor.cast %r : tensor<8xf32> to tensor<*xf32>
  call @printMemrefF32(%u0) : (tensor<*xf32>) -> ()
  return
}
// CHECK: [-0.999593,  -0.842701,  -0.5205,  0,  0.5205,  0.842701,  0.999593,  1]

func.func @t_softplus(%a0: tensor<8xf32>) {
  %r = telar.softplus %a0 : (tensor<8xf32>) -> tensor<8xf32>
  %u0 = tensor.cast %r : tensor<8xf32> to tensor<*xf32>
  call @printMemrefF32(%u0) : (tensor<*xf32>) -> ()
  return
}
// CHECK: [0.0788897,  0.313262,  0.474077,  0.693147,  0.974077,  1.31326,  2.57889,  3.72442]

func.func @t_softsign(%a0: tensor<8xf32>) {
  %r = telar.softsign %a0 : (tensor<8xf32>) -> tensor<8xf32>
  %u0 = tensor.cast %r : tensor<8xf32> to tensor<*xf32>
  call @printMemrefF32(%u0) : (tensor<*xf32>) -> ()
  return
}
// CHECK: [-0.714286,  -0.5,  -0.333333,  0,  0.333333,  0.5,  0.714286,  0.787234]

func.func @t_hard_swish(%a0: tensor<8xf32>) {
  %r = telar.hard_swish %a0 : (tensor<8xf32>) -> tensor<8xf32>
  %u0 = tensor.cast %r : tensor<8xf32> to tensor<*xf32>
  call @printMemrefF32(%u0) : (tensor<*xf32>) -> ()
  return
}
// CHECK: [-0.208333,  -0.333333,  -0.208333,  0,  0.291667,  0.666667,  2.29167,  3.7]

func.func @t_mish(%a0: tensor<8xf32>) {
  %r = telar.mish %a0 : (tensor<8xf32>) -> tensor<8xf32>
  %u0 = tensor.cast %r : tensor<8xf32> to tensor<*xf32>
  call @printMemrefF32(%u0) : (tensor<*xf32>) -> ()
  return
}
// CHECK: [-0.196816,  -0.303401,  -0.220744,  0,  0.375245,  0.865098,  2.47139,  3.69569]

func.func @t_gelu(%a0: tensor<8xf32>) {
  %r = telar.gelu %a0 : (tensor<8xf32>) -> tensor<8xf32>
  %u0 = tensor.cast %r : tensor<8xf32> to tensor<*xf32>
  call @printMemrefF32(%u0) : (tensor<*xf32>) -> ()
  return
}
// CHECK: [-0.0155242,  -0.158655,  -0.154269,  0,  0.345731,  0.841345,  2.48448,  3.6996]

func.func @t_log(%a0: tensor<6xf32>) {
  %r = telar.log %a0 : (tensor<6xf32>) -> tensor<6xf32>
  %u0 = tensor.cast %r : tensor<6xf32> to tensor<*xf32>
  call @printMemrefF32(%u0) : (tensor<*xf32>) -> ()
  return
}
// CHECK: [-2.30259,  -0.693147,  0,  0.693147,  1.09861,  2.30259]

func.func @t_sqrt(%a0: tensor<6xf32>) {
  %r = telar.sqrt %a0 : (tensor<6xf32>) -> tensor<6xf32>
  %u0 = tensor.cast %r : tensor<6xf32> to tensor<*xf32>
  call @printMemrefF32(%u0) : (tensor<*xf32>) -> ()
  return
}
// CHECK: [0.316228,  0.707107,  1,  1.41421,  1.73205,  3.16228]

func.func @t_asin(%a0: tensor<6xf32>) {
  %r = telar.asin %a0 : (tensor<6xf32>) -> tensor<6xf32>
  %u0 = tensor.cast %r : tensor<6xf32> to tensor<*xf32>
  call @printMemrefF32(%u0) : (tensor<*xf32>) -> ()
  return
}
// CHECK: [-1.11977,  -0.523599,  -0.100167,  0,  0.304693,  0.927295]

func.func @t_acos(%a0: tensor<6xf32>) {
  %r = telar.acos %a0 : (tensor<6xf32>) -> tensor<6xf32>
  %u0 = tensor.cast %r : tensor<6xf32> to tensor<*xf32>
  call @printMemrefF32(%u0) : (tensor<*xf32>) -> ()
  return
}
// CHECK: [2.69057,  2.0944,  1.67096,  1.5708,  1.2661,  0.643501]

func.func @t_atanh(%a0: tensor<6xf32>) {
  %r = telar.atanh %a0 : (tensor<6xf32>) -> tensor<6xf32>
  %u0 = tensor.cast %r : tensor<6xf32> to tensor<*xf32>
  call @printMemrefF32(%u0) : (tensor<*xf32>) -> ()
  return
}
// CHECK: [-1.47222,  -0.549306,  -0.100335,  0,  0.30952,  1.09861]

func.func @t_acosh(%a0: tensor<6xf32>) {
  %r = telar.acosh %a0 : (tensor<6xf32>) -> tensor<6xf32>
  %u0 = tensor.cast %r : tensor<6xf32> to tensor<*xf32>
  call @printMemrefF32(%u0) : (tensor<*xf32>) -> ()
  return
}
// CHECK: [0,  0.962424,  1.31696,  2.29243,  2.99322,  5.29829]

func.func @t_round_halves(%a0: tensor<8xf32>) {
  %r = telar.round %a0 : (tensor<8xf32>) -> tensor<8xf32>
  %u0 = tensor.cast %r : tensor<8xf32> to tensor<*xf32>
  call @printMemrefF32(%u0) : (tensor<*xf32>) -> ()
  return
}
// CHECK: [-2,  -2,  -0,  0,  2,  2,  4,  0]

func.func @t_gelu_tanh(%a0: tensor<8xf32>) {
  %r = telar.gelu %a0 {approximate = "tanh"} : (tensor<8xf32>) -> tensor<8xf32>
  %u0 = tensor.cast %r : tensor<8xf32> to tensor<*xf32>
  call @printMemrefF32(%u0) : (tensor<*xf32>) -> ()
  return
}
// CHECK: [-0.0150843,  -0.158808,  -0.154286,  0,  0.345714,  0.841192,  2.48492,  3.69973]

func.func @t_leaky_relu(%a0: tensor<8xf32>) {
  %r = telar.leaky_relu %a0 {alpha = 1.000000e-01 : f32} : (tensor<8xf32>) -> tensor<8xf32>
  %u0 = tensor.cast %r : tensor<8xf32> to tensor<*xf32>
  call @printMemrefF32(%u0) : (tensor<*xf32>) -> ()
  return
}
// CHECK: [-0.25,  -0.1,  -0.05,  0,  0.5,  1,  2.5,  3.7]

func.func @t_elu(%a0: tensor<8xf32>) {
  %r = telar.elu %a0 {alpha = 5.000000e-01 : f32} : (tensor<8xf32>) -> tensor<8xf32>
  %u0 = tensor.cast %r : tensor<8xf32> to tensor<*xf32>
  call @printMemrefF32(%u0) : (tensor<*xf32>) -> ()
  return
}
// CHECK: [-0.458957,  -0.31606,  -0.196735,  0,  0.5,  1,  2.5,  3.7]

func.func @t_celu(%a0: tensor<8xf32>) {
  %r = telar.celu %a0 {alpha = 2.000000e+00 : f32} : (tensor<8xf32>) -> tensor<8xf32>
  %u0 = tensor.cast %r : tensor<8xf32> to tensor<*xf32>
  call @printMemrefF32(%u0) : (tensor<*xf32>) -> ()
  return
}
// CHECK: [-1.42699,  -0.786939,  -0.442398,  0,  0.5,  1,  2.5,  3.7]

func.func @t_selu(%a0: tensor<8xf32>) {
  %r = telar.selu %a0 : (tensor<8xf32>) -> tensor<8xf32>
  %u0 = tensor.cast %r : tensor<8xf32> to tensor<*xf32>
  call @printMemrefF32(%u0) : (tensor<*xf32>) -> ()
  return
}
// CHECK: [-1.61379,  -1.11133,  -0.691758,  0,  0.525351,  1.0507,  2.62675,  3.88759]

func.func @t_hard_sigmoid(%a0: tensor<8xf32>) {
  %r = telar.hard_sigmoid %a0 {alpha = 3.000000e-01 : f32, beta = 4.000000e-01 : f32} : (tensor<8xf32>) -> tensor<8xf32>
  %u0 = tensor.cast %r : tensor<8xf32> to tensor<*xf32>
  call @printMemrefF32(%u0) : (tensor<*xf32>) -> ()
  return
}
// CHECK: [0,  0.1,  0.25,  0.4,  0.55,  0.7,  1,  1]

func.func @t_thresholded_relu(%a0: tensor<8xf32>) {
  %r = telar.thresholded_relu %a0 {alpha = 5.000000e-01 : f32} : (tensor<8xf32>) -> tensor<8xf32>
  %u0 = tensor.cast %r : tensor<8xf32> to tensor<*xf32>
  call @printMemrefF32(%u0) : (tensor<*xf32>) -> ()
  return
}
// CHECK: [0,  0,  0,  0,  0,  1,  2.5,  3.7]

func.func @t_shrink(%a0: tensor<8xf32>) {
  %r = telar.shrink %a0 {bias = 5.000000e-01 : f32, lambd = 8.000000e-01 : f32} : (tensor<8xf32>) -> tensor<8xf32>
  %u0 = tensor.cast %r : tensor<8xf32> to tensor<*xf32>
  call @printMemrefF32(%u0) : (tensor<*xf32>) -> ()
  return
}
// CHECK: [-2,  -0.5,  0,  0,  0,  0.5,  2,  3.2]

func.func @t_shrink_i32(%a0: tensor<8xi32>) {
  %r = telar.shrink %a0 {bias = 1.500000e+00 : f32, lambd = 1.000000e+00 : f32} : (tensor<8xi32>) -> tensor<8xi32>
  %c0 = telar.cast %r {to = i64} : (tensor<8xi32>) -> tensor<8xi64>
  %u0 = tensor.cast %c0 : tensor<8xi64> to tensor<*xi64>
  call @printMemrefI64(%u0) : (tensor<*xi64>) -> ()
  return
}
// CHECK: [-5,  -1,  0,  0,  0,  2,  7,  98]

func.func @t_clip(%a0: tensor<8xf32>) {
  %r = telar.clip %a0 {max = 2.0 : f64, min = -1.0 : f64} : (tensor<8xf32>) -> tensor<8xf32>
  %u0 = tensor.cast %r : tensor<8xf32> to tensor<*xf32>
  call @printMemrefF32(%u0) : (tensor<*xf32>) -> ()
  return
}
// CHECK: [-1,  -1,  -0.5,  0,  0.5,  1,  2,  2]

func.func @t_clip_min_only(%a0: tensor<8xf32>) {
  %r = telar.clip %a0 {min = 0.5 : f64} : (tensor<8xf32>) -> tensor<8xf32>
  %u0 = tensor.cast %r : tensor<8xf32> to tensor<*xf32>
  call @printMemrefF32(%u0) : (tensor<*xf32>) -> ()
  return
}
// CHECK: [0.5,  0.5,  0.5,  0.5,  0.5,  1,  2.5,  3.7]

func.func @t_clip_inverted(%a0: tensor<8xf32>) {
  %r = telar.clip %a0 {max = -1.0 : f64, min = 1.0 : f64} : (tensor<8xf32>) -> tensor<8xf32>
  %u0 = tensor.cast %r : tensor<8xf32> to tensor<*xf32>
  call @printMemrefF32(%u0) : (tensor<*xf32>) -> ()
  return
}
// CHECK: [-1,  -1,  -1,  -1,  -1,  -1,  -1,  -1]

func.func @t_clip_ui8(%a0: tensor<6xui8>) {
  %r = telar.clip %a0 {max = 150.0 : f64, min = 5.0 : f64} : (tensor<6xui8>) -> tensor<6xui8>
  %c0 = telar.cast %r {to = i64} : (tensor<6xui8>) -> tensor<6xi64>
  %u0 = tensor.cast %c0 : tensor<6xi64> to tensor<*xi64>
  call @printMemrefI64(%u0) : (tensor<*xi64>) -> ()
  return
}
// CHECK: [5,  5,  7,  100,  150,  150]

func.func @t_clip_i32(%a0: tensor<8xi32>) {
  %r = telar.clip %a0 {max = 5.0 : f64, min = -2.0 : f64} : (tensor<8xi32>) -> tensor<8xi32>
  %c0 = telar.cast %r {to = i64} : (tensor<8xi32>) -> tensor<8xi64>
  %u0 = tensor.cast %c0 : tensor<8xi64> to tensor<*xi64>
  call @printMemrefI64(%u0) : (tensor<*xi64>) -> ()
  return
}
// CHECK: [-2,  -2,  -1,  0,  1,  4,  5,  5]

func.func @t_abs_i32(%a0: tensor<8xi32>) {
  %r = telar.abs %a0 : (tensor<8xi32>) -> tensor<8xi32>
  %c0 = telar.cast %r {to = i64} : (tensor<8xi32>) -> tensor<8xi64>
  %u0 = tensor.cast %c0 : tensor<8xi64> to tensor<*xi64>
  call @printMemrefI64(%u0) : (tensor<*xi64>) -> ()
  return
}
// CHECK: [7,  3,  1,  0,  1,  4,  9,  100]

func.func @t_neg_i32(%a0: tensor<8xi32>) {
  %r = telar.neg %a0 : (tensor<8xi32>) -> tensor<8xi32>
  %c0 = telar.cast %r {to = i64} : (tensor<8xi32>) -> tensor<8xi64>
  %u0 = tensor.cast %c0 : tensor<8xi64> to tensor<*xi64>
  call @printMemrefI64(%u0) : (tensor<*xi64>) -> ()
  return
}
// CHECK: [7,  3,  1,  0,  -1,  -4,  -9,  -100]

func.func @t_sign_i32(%a0: tensor<8xi32>) {
  %r = telar.sign %a0 : (tensor<8xi32>) -> tensor<8xi32>
  %c0 = telar.cast %r {to = i64} : (tensor<8xi32>) -> tensor<8xi64>
  %u0 = tensor.cast %c0 : tensor<8xi64> to tensor<*xi64>
  call @printMemrefI64(%u0) : (tensor<*xi64>) -> ()
  return
}
// CHECK: [-1,  -1,  -1,  0,  1,  1,  1,  1]

func.func @t_relu_i32(%a0: tensor<8xi32>) {
  %r = telar.relu %a0 : (tensor<8xi32>) -> tensor<8xi32>
  %c0 = telar.cast %r {to = i64} : (tensor<8xi32>) -> tensor<8xi64>
  %u0 = tensor.cast %c0 : tensor<8xi64> to tensor<*xi64>
  call @printMemrefI64(%u0) : (tensor<*xi64>) -> ()
  return
}
// CHECK: [0,  0,  0,  0,  1,  4,  9,  100]

func.func @t_bitwise_not_i32(%a0: tensor<8xi32>) {
  %r = telar.bitwise_not %a0 : (tensor<8xi32>) -> tensor<8xi32>
  %c0 = telar.cast %r {to = i64} : (tensor<8xi32>) -> tensor<8xi64>
  %u0 = tensor.cast %c0 : tensor<8xi64> to tensor<*xi64>
  call @printMemrefI64(%u0) : (tensor<*xi64>) -> ()
  return
}
// CHECK: [6,  2,  0,  -1,  -2,  -5,  -10,  -101]

func.func @t_bitwise_not_ui8(%a0: tensor<6xui8>) {
  %r = telar.bitwise_not %a0 : (tensor<6xui8>) -> tensor<6xui8>
  %c0 = telar.cast %r {to = i64} : (tensor<6xui8>) -> tensor<6xi64>
  %u0 = tensor.cast %c0 : tensor<6xi64> to tensor<*xi64>
  call @printMemrefI64(%u0) : (tensor<*xi64>) -> ()
  return
}
// CHECK: [255,  254,  248,  155,  55,  0]

func.func @t_not(%a0: tensor<3xi1>) {
  %r = telar.not %a0 : (tensor<3xi1>) -> tensor<3xi1>
  %c0 = telar.cast %r {to = i64} : (tensor<3xi1>) -> tensor<3xi64>
  %u0 = tensor.cast %c0 : tensor<3xi64> to tensor<*xi64>
  call @printMemrefI64(%u0) : (tensor<*xi64>) -> ()
  return
}
// CHECK: [0,  1,  0]

func.func @t_is_nan(%a0: tensor<6xf32>) {
  %r = telar.is_nan %a0 : (tensor<6xf32>) -> tensor<6xi1>
  %c0 = telar.cast %r {to = i64} : (tensor<6xi1>) -> tensor<6xi64>
  %u0 = tensor.cast %c0 : tensor<6xi64> to tensor<*xi64>
  call @printMemrefI64(%u0) : (tensor<*xi64>) -> ()
  return
}
// CHECK: [1,  0,  0,  0,  0,  0]

func.func @t_is_inf(%a0: tensor<6xf32>) {
  %r = telar.is_inf %a0 : (tensor<6xf32>) -> tensor<6xi1>
  %c0 = telar.cast %r {to = i64} : (tensor<6xi1>) -> tensor<6xi64>
  %u0 = tensor.cast %c0 : tensor<6xi64> to tensor<*xi64>
  call @printMemrefI64(%u0) : (tensor<*xi64>) -> ()
  return
}
// CHECK: [0,  0,  1,  1,  0,  0]

func.func @t_is_inf_neg(%a0: tensor<6xf32>) {
  %r = telar.is_inf %a0 {detect_positive = false} : (tensor<6xf32>) -> tensor<6xi1>
  %c0 = telar.cast %r {to = i64} : (tensor<6xi1>) -> tensor<6xi64>
  %u0 = tensor.cast %c0 : tensor<6xi64> to tensor<*xi64>
  call @printMemrefI64(%u0) : (tensor<*xi64>) -> ()
  return
}
// CHECK: [0,  0,  1,  0,  0,  0]

func.func @t_add_bcast(%a0: tensor<2x3xf32>, %a1: tensor<3xf32>) {
  %r = telar.add %a0, %a1 : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  %f0 = tensor.collapse_shape %r [[0, 1]] : tensor<2x3xf32> into tensor<6xf32>
  %u0 = tensor.cast %f0 : tensor<6xf32> to tensor<*xf32>
  call @printMemrefF32(%u0) : (tensor<*xf32>) -> ()
  return
}
// CHECK: [3.5,  -2.5,  6,  2.5,  3.5,  -3]

func.func @t_sub_bcast(%a0: tensor<2x3xf32>, %a1: tensor<3xf32>) {
  %r = telar.sub %a0, %a1 : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  %f0 = tensor.collapse_shape %r [[0, 1]] : tensor<2x3xf32> into tensor<6xf32>
  %u0 = tensor.cast %f0 : tensor<6xf32> to tensor<*xf32>
  call @printMemrefF32(%u0) : (tensor<*xf32>) -> ()
  return
}
// CHECK: [-0.5,  -1.5,  0,  -1.5,  4.5,  -9]

func.func @t_mul_bcast(%a0: tensor<2x3xf32>, %a1: tensor<3xf32>) {
  %r = telar.mul %a0, %a1 : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  %f0 = tensor.collapse_shape %r [[0, 1]] : tensor<2x3xf32> into tensor<6xf32>
  %u0 = tensor.cast %f0 : tensor<6xf32> to tensor<*xf32>
  call @printMemrefF32(%u0) : (tensor<*xf32>) -> ()
  return
}
// CHECK: [3,  1,  9,  1,  -2,  -18]

func.func @t_div_bcast(%a0: tensor<2x3xf32>, %a1: tensor<3xf32>) {
  %r = telar.div %a0, %a1 : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  %f0 = tensor.collapse_shape %r [[0, 1]] : tensor<2x3xf32> into tensor<6xf32>
  %u0 = tensor.cast %f0 : tensor<6xf32> to tensor<*xf32>
  call @printMemrefF32(%u0) : (tensor<*xf32>) -> ()
  return
}
// CHECK: [0.75,  4,  1,  0.25,  -8,  -2]

func.func @t_max_bcast(%a0: tensor<2x3xf32>, %a1: tensor<3xf32>) {
  %r = telar.max %a0, %a1 : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  %f0 = tensor.collapse_shape %r [[0, 1]] : tensor<2x3xf32> into tensor<6xf32>
  %u0 = tensor.cast %f0 : tensor<6xf32> to tensor<*xf32>
  call @printMemrefF32(%u0) : (tensor<*xf32>) -> ()
  return
}
// CHECK: [2,  -0.5,  3,  2,  4,  3]

func.func @t_min_bcast(%a0: tensor<2x3xf32>, %a1: tensor<3xf32>) {
  %r = telar.min %a0, %a1 : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  %f0 = tensor.collapse_shape %r [[0, 1]] : tensor<2x3xf32> into tensor<6xf32>
  %u0 = tensor.cast %f0 : tensor<6xf32> to tensor<*xf32>
  call @printMemrefF32(%u0) : (tensor<*xf32>) -> ()
  return
}
// CHECK: [1.5,  -2,  3,  0.5,  -0.5,  -6]

func.func @t_prelu_bcast(%a0: tensor<2x3xf32>, %a1: tensor<3xf32>) {
  %r = telar.prelu %a0, %a1 : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  %f0 = tensor.collapse_shape %r [[0, 1]] : tensor<2x3xf32> into tensor<6xf32>
  %u0 = tensor.cast %f0 : tensor<6xf32> to tensor<*xf32>
  call @printMemrefF32(%u0) : (tensor<*xf32>) -> ()
  return
}
// CHECK: [1.5,  1,  3,  0.5,  4,  -18]

func.func @t_pow(%a0: tensor<2x3xf32>, %a1: tensor<3xf32>) {
  %r = telar.pow %a0, %a1 : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  %f0 = tensor.collapse_shape %r [[0, 1]] : tensor<2x3xf32> into tensor<6xf32>
  %u0 = tensor.cast %f0 : tensor<6xf32> to tensor<*xf32>
  call @printMemrefF32(%u0) : (tensor<*xf32>) -> ()
  return
}
// CHECK: [2.25,  0.707107,  27,  0.25,  0.5,  216]

func.func @t_pow_neg_base(%a0: tensor<2x3xf32>, %a1: tensor<3xf32>) {
  %r = telar.pow %a0, %a1 : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  %f0 = tensor.collapse_shape %r [[0, 1]] : tensor<2x3xf32> into tensor<6xf32>
  %u0 = tensor.cast %f0 : tensor<6xf32> to tensor<*xf32>
  call @printMemrefF32(%u0) : (tensor<*xf32>) -> ()
  return
}
// CHECK: [2.25,  -8,  1.73205,  0.25,  64,  -nan]

func.func @t_add_i32(%a0: tensor<8xi32>, %a1: tensor<8xi32>) {
  %r = telar.add %a0, %a1 : (tensor<8xi32>, tensor<8xi32>) -> tensor<8xi32>
  %c0 = telar.cast %r {to = i64} : (tensor<8xi32>) -> tensor<8xi64>
  %u0 = tensor.cast %c0 : tensor<8xi64> to tensor<*xi64>
  call @printMemrefI64(%u0) : (tensor<*xi64>) -> ()
  return
}
// CHECK: [9,  -5,  5,  -9,  12,  0,  4,  2]

func.func @t_sub_i32(%a0: tensor<8xi32>, %a1: tensor<8xi32>) {
  %r = telar.sub %a0, %a1 : (tensor<8xi32>, tensor<8xi32>) -> tensor<8xi32>
  %c0 = telar.cast %r {to = i64} : (tensor<8xi32>) -> tensor<8xi64>
  %u0 = tensor.cast %c0 : tensor<8xi64> to tensor<*xi64>
  call @printMemrefI64(%u0) : (tensor<*xi64>) -> ()
  return
}
// CHECK: [5,  -9,  9,  -5,  -8,  -6,  -4,  8]

func.func @t_mul_i32(%a0: tensor<8xi32>, %a1: tensor<8xi32>) {
  %r = telar.mul %a0, %a1 : (tensor<8xi32>, tensor<8xi32>) -> tensor<8xi32>
  %c0 = telar.cast %r {to = i64} : (tensor<8xi32>) -> tensor<8xi64>
  %u0 = tensor.cast %c0 : tensor<8xi64> to tensor<*xi64>
  call @printMemrefI64(%u0) : (tensor<*xi64>) -> ()
  return
}
// CHECK: [14,  -14,  -14,  14,  20,  -9,  0,  -15]

func.func @t_div_i32(%a0: tensor<8xi32>, %a1: tensor<8xi32>) {
  %r = telar.div %a0, %a1 : (tensor<8xi32>, tensor<8xi32>) -> tensor<8xi32>
  %c0 = telar.cast %r {to = i64} : (tensor<8xi32>) -> tensor<8xi64>
  %u0 = tensor.cast %c0 : tensor<8xi64> to tensor<*xi64>
  call @printMemrefI64(%u0) : (tensor<*xi64>) -> ()
  return
}
// CHECK: [3,  -3,  -3,  3,  0,  -1,  0,  -1]

func.func @t_max_i32(%a0: tensor<8xi32>, %a1: tensor<8xi32>) {
  %r = telar.max %a0, %a1 : (tensor<8xi32>, tensor<8xi32>) -> tensor<8xi32>
  %c0 = telar.cast %r {to = i64} : (tensor<8xi32>) -> tensor<8xi64>
  %u0 = tensor.cast %c0 : tensor<8xi64> to tensor<*xi64>
  call @printMemrefI64(%u0) : (tensor<*xi64>) -> ()
  return
}
// CHECK: [7,  2,  7,  -2,  10,  3,  4,  5]

func.func @t_min_i32(%a0: tensor<8xi32>, %a1: tensor<8xi32>) {
  %r = telar.min %a0, %a1 : (tensor<8xi32>, tensor<8xi32>) -> tensor<8xi32>
  %c0 = telar.cast %r {to = i64} : (tensor<8xi32>) -> tensor<8xi64>
  %u0 = tensor.cast %c0 : tensor<8xi64> to tensor<*xi64>
  call @printMemrefI64(%u0) : (tensor<*xi64>) -> ()
  return
}
// CHECK: [2,  -7,  -2,  -7,  2,  -3,  0,  -3]

func.func @t_pow_i32(%a0: tensor<8xi32>, %a1: tensor<8xi32>) {
  %r = telar.pow %a0, %a1 : (tensor<8xi32>, tensor<8xi32>) -> tensor<8xi32>
  %c0 = telar.cast %r {to = i64} : (tensor<8xi32>) -> tensor<8xi64>
  %u0 = tensor.cast %c0 : tensor<8xi64> to tensor<*xi64>
  call @printMemrefI64(%u0) : (tensor<*xi64>) -> ()
  return
}
// CHECK: [49,  -343,  1,  -7,  8,  9,  0,  25]

func.func @t_mod_i32(%a0: tensor<8xi32>, %a1: tensor<8xi32>) {
  %r = telar.mod %a0, %a1 : (tensor<8xi32>, tensor<8xi32>) -> tensor<8xi32>
  %c0 = telar.cast %r {to = i64} : (tensor<8xi32>) -> tensor<8xi64>
  %u0 = tensor.cast %c0 : tensor<8xi64> to tensor<*xi64>
  call @printMemrefI64(%u0) : (tensor<*xi64>) -> ()
  return
}
// CHECK: [1,  1,  -1,  -1,  2,  0,  0,  -1]

func.func @t_fmod_i32(%a0: tensor<8xi32>, %a1: tensor<8xi32>) {
  %r = telar.mod %a0, %a1 {fmod = true} : (tensor<8xi32>, tensor<8xi32>) -> tensor<8xi32>
  %c0 = telar.cast %r {to = i64} : (tensor<8xi32>) -> tensor<8xi64>
  %u0 = tensor.cast %c0 : tensor<8xi64> to tensor<*xi64>
  call @printMemrefI64(%u0) : (tensor<*xi64>) -> ()
  return
}
// CHECK: [1,  -1,  1,  -1,  2,  0,  0,  2]

func.func @t_fmod_f32(%a0: tensor<6xf32>, %a1: tensor<6xf32>) {
  %r = telar.mod %a0, %a1 {fmod = true} : (tensor<6xf32>, tensor<6xf32>) -> tensor<6xf32>
  %u0 = tensor.cast %r : tensor<6xf32> to tensor<*xf32>
  call @printMemrefF32(%u0) : (tensor<*xf32>) -> ()
  return
}
// CHECK: [1.5,  -1.5,  1.5,  -1.5,  0,  -0]

func.func @t_mod_f32(%a0: tensor<6xf32>, %a1: tensor<6xf32>) {
  %r = telar.mod %a0, %a1 : (tensor<6xf32>, tensor<6xf32>) -> tensor<6xf32>
  %u0 = tensor.cast %r : tensor<6xf32> to tensor<*xf32>
  call @printMemrefF32(%u0) : (tensor<*xf32>) -> ()
  return
}
// CHECK: [1.5,  0.5,  -0.5,  -1.5,  0,  -0]

func.func @t_div_ui8(%a0: tensor<6xui8>, %a1: tensor<6xui8>) {
  %r = telar.div %a0, %a1 : (tensor<6xui8>, tensor<6xui8>) -> tensor<6xui8>
  %c0 = telar.cast %r {to = i64} : (tensor<6xui8>) -> tensor<6xi64>
  %u0 = tensor.cast %c0 : tensor<6xi64> to tensor<*xi64>
  call @printMemrefI64(%u0) : (tensor<*xi64>) -> ()
  return
}
// CHECK: [66,  0,  15,  1,  0,  0]

func.func @t_max_ui8(%a0: tensor<6xui8>, %a1: tensor<6xui8>) {
  %r = telar.max %a0, %a1 : (tensor<6xui8>, tensor<6xui8>) -> tensor<6xui8>
  %c0 = telar.cast %r {to = i64} : (tensor<6xui8>) -> tensor<6xi64>
  %u0 = tensor.cast %c0 : tensor<6xi64> to tensor<*xi64>
  call @printMemrefI64(%u0) : (tensor<*xi64>) -> ()
  return
}
// CHECK: [200,  200,  255,  100,  5,  9]

func.func @t_min_ui8(%a0: tensor<6xui8>, %a1: tensor<6xui8>) {
  %r = telar.min %a0, %a1 : (tensor<6xui8>, tensor<6xui8>) -> tensor<6xui8>
  %c0 = telar.cast %r {to = i64} : (tensor<6xui8>) -> tensor<6xi64>
  %u0 = tensor.cast %c0 : tensor<6xi64> to tensor<*xi64>
  call @printMemrefI64(%u0) : (tensor<*xi64>) -> ()
  return
}
// CHECK: [3,  7,  16,  100,  3,  0]

func.func @t_mod_ui8(%a0: tensor<6xui8>, %a1: tensor<6xui8>) {
  %r = telar.mod %a0, %a1 : (tensor<6xui8>, tensor<6xui8>) -> tensor<6xui8>
  %c0 = telar.cast %r {to = i64} : (tensor<6xui8>) -> tensor<6xi64>
  %u0 = tensor.cast %c0 : tensor<6xi64> to tensor<*xi64>
  call @printMemrefI64(%u0) : (tensor<*xi64>) -> ()
  return
}
// CHECK: [2,  7,  15,  0,  3,  0]

func.func @t_sub_ui8(%a0: tensor<6xui8>, %a1: tensor<6xui8>) {
  %r = telar.sub %a0, %a1 : (tensor<6xui8>, tensor<6xui8>) -> tensor<6xui8>
  %c0 = telar.cast %r {to = i64} : (tensor<6xui8>) -> tensor<6xi64>
  %u0 = tensor.cast %c0 : tensor<6xi64> to tensor<*xi64>
  call @printMemrefI64(%u0) : (tensor<*xi64>) -> ()
  return
}
// CHECK: [197,  63,  239,  0,  254,  247]

func.func @t_less_ui8(%a0: tensor<6xui8>, %a1: tensor<6xui8>) {
  %r = telar.less %a0, %a1 : (tensor<6xui8>, tensor<6xui8>) -> tensor<6xi1>
  %c0 = telar.cast %r {to = i64} : (tensor<6xi1>) -> tensor<6xi64>
  %u0 = tensor.cast %c0 : tensor<6xi64> to tensor<*xi64>
  call @printMemrefI64(%u0) : (tensor<*xi64>) -> ()
  return
}
// CHECK: [0,  1,  0,  0,  1,  1]

func.func @t_greater_equal_ui8(%a0: tensor<6xui8>, %a1: tensor<6xui8>) {
  %r = telar.greater_equal %a0, %a1 : (tensor<6xui8>, tensor<6xui8>) -> tensor<6xi1>
  %c0 = telar.cast %r {to = i64} : (tensor<6xi1>) -> tensor<6xi64>
  %u0 = tensor.cast %c0 : tensor<6xi64> to tensor<*xi64>
  call @printMemrefI64(%u0) : (tensor<*xi64>) -> ()
  return
}
// CHECK: [1,  0,  1,  1,  0,  0]

func.func @t_equal(%a0: tensor<2x3xf32>, %a1: tensor<3xf32>) {
  %r = telar.equal %a0, %a1 : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xi1>
  %c0 = telar.cast %r {to = i64} : (tensor<2x3xi1>) -> tensor<2x3xi64>
  %f0 = tensor.collapse_shape %c0 [[0, 1]] : tensor<2x3xi64> into tensor<6xi64>
  %u0 = tensor.cast %f0 : tensor<6xi64> to tensor<*xi64>
  call @printMemrefI64(%u0) : (tensor<*xi64>) -> ()
  return
}
// CHECK: [0,  0,  1,  0,  0,  0]

func.func @t_less(%a0: tensor<2x3xf32>, %a1: tensor<3xf32>) {
  %r = telar.less %a0, %a1 : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xi1>
  %c0 = telar.cast %r {to = i64} : (tensor<2x3xi1>) -> tensor<2x3xi64>
  %f0 = tensor.collapse_shape %c0 [[0, 1]] : tensor<2x3xi64> into tensor<6xi64>
  %u0 = tensor.cast %f0 : tensor<6xi64> to tensor<*xi64>
  call @printMemrefI64(%u0) : (tensor<*xi64>) -> ()
  return
}
// CHECK: [1,  1,  0,  1,  0,  1]

func.func @t_less_equal(%a0: tensor<2x3xf32>, %a1: tensor<3xf32>) {
  %r = telar.less_equal %a0, %a1 : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xi1>
  %c0 = telar.cast %r {to = i64} : (tensor<2x3xi1>) -> tensor<2x3xi64>
  %f0 = tensor.collapse_shape %c0 [[0, 1]] : tensor<2x3xi64> into tensor<6xi64>
  %u0 = tensor.cast %f0 : tensor<6xi64> to tensor<*xi64>
  call @printMemrefI64(%u0) : (tensor<*xi64>) -> ()
  return
}
// CHECK: [1,  1,  1,  1,  0,  1]

func.func @t_greater(%a0: tensor<2x3xf32>, %a1: tensor<3xf32>) {
  %r = telar.greater %a0, %a1 : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xi1>
  %c0 = telar.cast %r {to = i64} : (tensor<2x3xi1>) -> tensor<2x3xi64>
  %f0 = tensor.collapse_shape %c0 [[0, 1]] : tensor<2x3xi64> into tensor<6xi64>
  %u0 = tensor.cast %f0 : tensor<6xi64> to tensor<*xi64>
  call @printMemrefI64(%u0) : (tensor<*xi64>) -> ()
  return
}
// CHECK: [0,  0,  0,  0,  1,  0]

func.func @t_greater_equal(%a0: tensor<2x3xf32>, %a1: tensor<3xf32>) {
  %r = telar.greater_equal %a0, %a1 : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xi1>
  %c0 = telar.cast %r {to = i64} : (tensor<2x3xi1>) -> tensor<2x3xi64>
  %f0 = tensor.collapse_shape %c0 [[0, 1]] : tensor<2x3xi64> into tensor<6xi64>
  %u0 = tensor.cast %f0 : tensor<6xi64> to tensor<*xi64>
  call @printMemrefI64(%u0) : (tensor<*xi64>) -> ()
  return
}
// CHECK: [0,  0,  1,  0,  1,  0]

func.func @t_equal_i32(%a0: tensor<8xi32>, %a1: tensor<8xi32>) {
  %r = telar.equal %a0, %a1 : (tensor<8xi32>, tensor<8xi32>) -> tensor<8xi1>
  %c0 = telar.cast %r {to = i64} : (tensor<8xi1>) -> tensor<8xi64>
  %u0 = tensor.cast %c0 : tensor<8xi64> to tensor<*xi64>
  call @printMemrefI64(%u0) : (tensor<*xi64>) -> ()
  return
}
// CHECK: [0,  0,  0,  0,  0,  0,  0,  0]

func.func @t_less_i32(%a0: tensor<8xi32>, %a1: tensor<8xi32>) {
  %r = telar.less %a0, %a1 : (tensor<8xi32>, tensor<8xi32>) -> tensor<8xi1>
  %c0 = telar.cast %r {to = i64} : (tensor<8xi1>) -> tensor<8xi64>
  %u0 = tensor.cast %c0 : tensor<8xi64> to tensor<*xi64>
  call @printMemrefI64(%u0) : (tensor<*xi64>) -> ()
  return
}
// CHECK: [0,  1,  0,  1,  1,  1,  1,  0]

func.func @t_max_nan(%a0: tensor<6xf32>, %a1: tensor<6xf32>) {
  %r = telar.max %a0, %a1 : (tensor<6xf32>, tensor<6xf32>) -> tensor<6xf32>
  %u0 = tensor.cast %r : tensor<6xf32> to tensor<*xf32>
  call @printMemrefF32(%u0) : (tensor<*xf32>) -> ()
  return
}
// CHECK: [nan,  nan,  0,  inf,  nan,  -3]

func.func @t_min_nan(%a0: tensor<6xf32>, %a1: tensor<6xf32>) {
  %r = telar.min %a0, %a1 : (tensor<6xf32>, tensor<6xf32>) -> tensor<6xf32>
  %u0 = tensor.cast %r : tensor<6xf32> to tensor<*xf32>
  call @printMemrefF32(%u0) : (tensor<*xf32>) -> ()
  return
}
// CHECK: [nan,  nan,  -inf,  2,  nan,  -5]

func.func @t_and(%a0: tensor<4xi1>, %a1: tensor<4xi1>) {
  %r = telar.and %a0, %a1 : (tensor<4xi1>, tensor<4xi1>) -> tensor<4xi1>
  %c0 = telar.cast %r {to = i64} : (tensor<4xi1>) -> tensor<4xi64>
  %u0 = tensor.cast %c0 : tensor<4xi64> to tensor<*xi64>
  call @printMemrefI64(%u0) : (tensor<*xi64>) -> ()
  return
}
// CHECK: [1,  0,  0,  0]

func.func @t_or(%a0: tensor<4xi1>, %a1: tensor<4xi1>) {
  %r = telar.or %a0, %a1 : (tensor<4xi1>, tensor<4xi1>) -> tensor<4xi1>
  %c0 = telar.cast %r {to = i64} : (tensor<4xi1>) -> tensor<4xi64>
  %u0 = tensor.cast %c0 : tensor<4xi64> to tensor<*xi64>
  call @printMemrefI64(%u0) : (tensor<*xi64>) -> ()
  return
}
// CHECK: [1,  1,  1,  0]

func.func @t_xor(%a0: tensor<4xi1>, %a1: tensor<4xi1>) {
  %r = telar.xor %a0, %a1 : (tensor<4xi1>, tensor<4xi1>) -> tensor<4xi1>
  %c0 = telar.cast %r {to = i64} : (tensor<4xi1>) -> tensor<4xi64>
  %u0 = tensor.cast %c0 : tensor<4xi64> to tensor<*xi64>
  call @printMemrefI64(%u0) : (tensor<*xi64>) -> ()
  return
}
// CHECK: [0,  1,  1,  0]

func.func @t_bitwise_and(%a0: tensor<8xi32>, %a1: tensor<8xi32>) {
  %r = telar.bitwise_and %a0, %a1 : (tensor<8xi32>, tensor<8xi32>) -> tensor<8xi32>
  %c0 = telar.cast %r {to = i64} : (tensor<8xi32>) -> tensor<8xi64>
  %u0 = tensor.cast %c0 : tensor<8xi64> to tensor<*xi64>
  call @printMemrefI64(%u0) : (tensor<*xi64>) -> ()
  return
}
// CHECK: [2,  0,  6,  -8,  2,  1,  0,  5]

func.func @t_bitwise_or(%a0: tensor<8xi32>, %a1: tensor<8xi32>) {
  %r = telar.bitwise_or %a0, %a1 : (tensor<8xi32>, tensor<8xi32>) -> tensor<8xi32>
  %c0 = telar.cast %r {to = i64} : (tensor<8xi32>) -> tensor<8xi64>
  %u0 = tensor.cast %c0 : tensor<8xi64> to tensor<*xi64>
  call @printMemrefI64(%u0) : (tensor<*xi64>) -> ()
  return
}
// CHECK: [7,  -5,  -1,  -1,  10,  -1,  4,  -3]

func.func @t_bitwise_xor(%a0: tensor<8xi32>, %a1: tensor<8xi32>) {
  %r = telar.bitwise_xor %a0, %a1 : (tensor<8xi32>, tensor<8xi32>) -> tensor<8xi32>
  %c0 = telar.cast %r {to = i64} : (tensor<8xi32>) -> tensor<8xi64>
  %u0 = tensor.cast %c0 : tensor<8xi64> to tensor<*xi64>
  call @printMemrefI64(%u0) : (tensor<*xi64>) -> ()
  return
}
// CHECK: [5,  -5,  -7,  7,  8,  -2,  4,  -8]

func.func @t_bit_shift_left(%a0: tensor<4xui8>, %a1: tensor<4xui8>) {
  %r = telar.bit_shift %a0, %a1 : (tensor<4xui8>, tensor<4xui8>) -> tensor<4xui8>
  %c0 = telar.cast %r {to = i64} : (tensor<4xui8>) -> tensor<4xi64>
  %u0 = tensor.cast %c0 : tensor<4xi64> to tensor<*xi64>
  call @printMemrefI64(%u0) : (tensor<*xi64>) -> ()
  return
}
// CHECK: [64,  128,  240,  3]

func.func @t_bit_shift_right(%a0: tensor<4xui8>, %a1: tensor<4xui8>) {
  %r = telar.bit_shift %a0, %a1 {left = false} : (tensor<4xui8>, tensor<4xui8>) -> tensor<4xui8>
  %c0 = telar.cast %r {to = i64} : (tensor<4xui8>) -> tensor<4xi64>
  %u0 = tensor.cast %c0 : tensor<4xi64> to tensor<*xi64>
  call @printMemrefI64(%u0) : (tensor<*xi64>) -> ()
  return
}
// CHECK: [4,  0,  15,  3]

func.func @t_where(%a0: tensor<2x1xi1>, %a1: tensor<2x3xf32>, %a2: tensor<f32>) {
  %r = telar.where %a0, %a1, %a2 : (tensor<2x1xi1>, tensor<2x3xf32>, tensor<f32>) -> tensor<2x3xf32>
  %f0 = tensor.collapse_shape %r [[0, 1]] : tensor<2x3xf32> into tensor<6xf32>
  %u0 = tensor.cast %f0 : tensor<6xf32> to tensor<*xf32>
  call @printMemrefF32(%u0) : (tensor<*xf32>) -> ()
  return
}
// CHECK: [1.5,  -2,  3,  -1,  -1,  -1]

func.func @t_cast_f32_i32(%a0: tensor<6xf32>) {
  %r = telar.cast %a0 {to = i32} : (tensor<6xf32>) -> tensor<6xi32>
  %c0 = telar.cast %r {to = i64} : (tensor<6xi32>) -> tensor<6xi64>
  %u0 = tensor.cast %c0 : tensor<6xi64> to tensor<*xi64>
  call @printMemrefI64(%u0) : (tensor<*xi64>) -> ()
  return
}
// CHECK: [-2,  0,  0,  0,  3,  1000000]

func.func @t_cast_f32_i1(%a0: tensor<5xf32>) {
  %r = telar.cast %a0 {to = i1} : (tensor<5xf32>) -> tensor<5xi1>
  %c0 = telar.cast %r {to = i64} : (tensor<5xi1>) -> tensor<5xi64>
  %u0 = tensor.cast %c0 : tensor<5xi64> to tensor<*xi64>
  call @printMemrefI64(%u0) : (tensor<*xi64>) -> ()
  return
}
// CHECK: [1,  0,  0,  1,  1]

func.func @t_cast_i1_f32(%a0: tensor<3xi1>) {
  %r = telar.cast %a0 {to = f32} : (tensor<3xi1>) -> tensor<3xf32>
  %u0 = tensor.cast %r : tensor<3xf32> to tensor<*xf32>
  call @printMemrefF32(%u0) : (tensor<*xf32>) -> ()
  return
}
// CHECK: [1,  0,  1]

func.func @t_cast_ui8_f32(%a0: tensor<6xui8>) {
  %r = telar.cast %a0 {to = f32} : (tensor<6xui8>) -> tensor<6xf32>
  %u0 = tensor.cast %r : tensor<6xf32> to tensor<*xf32>
  call @printMemrefF32(%u0) : (tensor<*xf32>) -> ()
  return
}
// CHECK: [0,  1,  7,  100,  200,  255]

func.func @t_cast_i32_ui8(%a0: tensor<6xi32>) {
  %r = telar.cast %a0 {to = ui8} : (tensor<6xi32>) -> tensor<6xui8>
  %c0 = telar.cast %r {to = i64} : (tensor<6xui8>) -> tensor<6xi64>
  %u0 = tensor.cast %c0 : tensor<6xi64> to tensor<*xi64>
  call @printMemrefI64(%u0) : (tensor<*xi64>) -> ()
  return
}
// CHECK: [255,  0,  255,  0,  44,  56]

func.func @t_cast_ui8_i32(%a0: tensor<6xui8>) {
  %r = telar.cast %a0 {to = i32} : (tensor<6xui8>) -> tensor<6xi32>
  %c0 = telar.cast %r {to = i64} : (tensor<6xi32>) -> tensor<6xi64>
  %u0 = tensor.cast %c0 : tensor<6xi64> to tensor<*xi64>
  call @printMemrefI64(%u0) : (tensor<*xi64>) -> ()
  return
}
// CHECK: [0,  1,  7,  100,  200,  255]

func.func @t_cast_i32_i1(%a0: tensor<3xi32>) {
  %r = telar.cast %a0 {to = i1} : (tensor<3xi32>) -> tensor<3xi1>
  %c0 = telar.cast %r {to = i64} : (tensor<3xi1>) -> tensor<3xi64>
  %u0 = tensor.cast %c0 : tensor<3xi64> to tensor<*xi64>
  call @printMemrefI64(%u0) : (tensor<*xi64>) -> ()
  return
}
// CHECK: [1,  0,  1]

func.func @t_cast_f32_f16(%a0: tensor<5xf32>) {
  %r = telar.cast %a0 {to = f16} : (tensor<5xf32>) -> tensor<5xf16>
  %c0 = telar.cast %r {to = f32} : (tensor<5xf16>) -> tensor<5xf32>
  %u0 = tensor.cast %c0 : tensor<5xf32> to tensor<*xf32>
  call @printMemrefF32(%u0) : (tensor<*xf32>) -> ()
  return
}
// CHECK: [1,  0.0999756,  65504,  0.0010004,  -3.14062]

func.func @t_cast_f32_ui8(%a0: tensor<4xf32>) {
  %r = telar.cast %a0 {to = ui8} : (tensor<4xf32>) -> tensor<4xui8>
  %c0 = telar.cast %r {to = i64} : (tensor<4xui8>) -> tensor<4xi64>
  %u0 = tensor.cast %c0 : tensor<4xi64> to tensor<*xi64>
  call @printMemrefI64(%u0) : (tensor<*xi64>) -> ()
  return
}
// CHECK: [0,  1,  200,  255]

func.func @t_cast_i64_i8(%a0: tensor<6xi64>) {
  %r = telar.cast %a0 {to = i8} : (tensor<6xi64>) -> tensor<6xi8>
  %c0 = telar.cast %r {to = i64} : (tensor<6xi8>) -> tensor<6xi64>
  %u0 = tensor.cast %c0 : tensor<6xi64> to tensor<*xi64>
  call @printMemrefI64(%u0) : (tensor<*xi64>) -> ()
  return
}
// CHECK: [1,  -1,  127,  -128,  127,  -24]

func.func @t_erf_f16(%a0: tensor<4xf16>) {
  %r = telar.erf %a0 : (tensor<4xf16>) -> tensor<4xf16>
  %c0 = telar.cast %r {to = f32} : (tensor<4xf16>) -> tensor<4xf32>
  %u0 = tensor.cast %c0 : tensor<4xf32> to tensor<*xf32>
  call @printMemrefF32(%u0) : (tensor<*xf32>) -> ()
  return
}
// CHECK: [-0.842773,  0,  0.520508,  0.995117]

func.func @t_add_f16(%a0: tensor<3xf16>, %a1: tensor<3xf16>) {
  %r = telar.add %a0, %a1 : (tensor<3xf16>, tensor<3xf16>) -> tensor<3xf16>
  %c0 = telar.cast %r {to = f32} : (tensor<3xf16>) -> tensor<3xf32>
  %u0 = tensor.cast %c0 : tensor<3xf32> to tensor<*xf32>
  call @printMemrefF32(%u0) : (tensor<*xf32>) -> ()
  return
}
// CHECK: [3,  0.299805,  1000.5]

func.func @entry() {
  %t_abs_0 = arith.constant dense<[-2.5, -1.0, -0.5, 0.0, 0.5, 1.0, 2.5, 3.700000047683716]> : tensor<8xf32>
  call @t_abs(%t_abs_0) : (tensor<8xf32>) -> ()
  %t_neg_0 = arith.constant dense<[-2.5, -1.0, -0.5, 0.0, 0.5, 1.0, 2.5, 3.700000047683716]> : tensor<8xf32>
  call @t_neg(%t_neg_0) : (tensor<8xf32>) -> ()
  %t_sign_0 = arith.constant dense<[-2.5, -1.0, -0.5, 0.0, 0.5, 1.0, 2.5, 3.700000047683716]> : tensor<8xf32>
  call @t_sign(%t_sign_0) : (tensor<8xf32>) -> ()
  %t_exp_0 = arith.constant dense<[-2.5, -1.0, -0.5, 0.0, 0.5, 1.0, 2.5, 3.700000047683716]> : tensor<8xf32>
  call @t_exp(%t_exp_0) : (tensor<8xf32>) -> ()
  %t_reciprocal_0 = arith.constant dense<[-2.5, -1.0, -0.5, 0.0, 0.5, 1.0, 2.5, 3.700000047683716]> : tensor<8xf32>
  call @t_reciprocal(%t_reciprocal_0) : (tensor<8xf32>) -> ()
  %t_floor_0 = arith.constant dense<[-2.5, -1.0, -0.5, 0.0, 0.5, 1.0, 2.5, 3.700000047683716]> : tensor<8xf32>
  call @t_floor(%t_floor_0) : (tensor<8xf32>) -> ()
  %t_ceil_0 = arith.constant dense<[-2.5, -1.0, -0.5, 0.0, 0.5, 1.0, 2.5, 3.700000047683716]> : tensor<8xf32>
  call @t_ceil(%t_ceil_0) : (tensor<8xf32>) -> ()
  %t_round_0 = arith.constant dense<[-2.5, -1.0, -0.5, 0.0, 0.5, 1.0, 2.5, 3.700000047683716]> : tensor<8xf32>
  call @t_round(%t_round_0) : (tensor<8xf32>) -> ()
  %t_sin_0 = arith.constant dense<[-2.5, -1.0, -0.5, 0.0, 0.5, 1.0, 2.5, 3.700000047683716]> : tensor<8xf32>
  call @t_sin(%t_sin_0) : (tensor<8xf32>) -> ()
  %t_cos_0 = arith.constant dense<[-2.5, -1.0, -0.5, 0.0, 0.5, 1.0, 2.5, 3.700000047683716]> : tensor<8xf32>
  call @t_cos(%t_cos_0) : (tensor<8xf32>) -> ()
  %t_tan_0 = arith.constant dense<[-2.5, -1.0, -0.5, 0.0, 0.5, 1.0, 2.5, 3.700000047683716]> : tensor<8xf32>
  call @t_tan(%t_tan_0) : (tensor<8xf32>) -> ()
  %t_atan_0 = arith.constant dense<[-2.5, -1.0, -0.5, 0.0, 0.5, 1.0, 2.5, 3.700000047683716]> : tensor<8xf32>
  call @t_atan(%t_atan_0) : (tensor<8xf32>) -> ()
  %t_sinh_0 = arith.constant dense<[-2.5, -1.0, -0.5, 0.0, 0.5, 1.0, 2.5, 3.700000047683716]> : tensor<8xf32>
  call @t_sinh(%t_sinh_0) : (tensor<8xf32>) -> ()
  %t_cosh_0 = arith.constant dense<[-2.5, -1.0, -0.5, 0.0, 0.5, 1.0, 2.5, 3.700000047683716]> : tensor<8xf32>
  call @t_cosh(%t_cosh_0) : (tensor<8xf32>) -> ()
  %t_asinh_0 = arith.constant dense<[-2.5, -1.0, -0.5, 0.0, 0.5, 1.0, 2.5, 3.700000047683716]> : tensor<8xf32>
  call @t_asinh(%t_asinh_0) : (tensor<8xf32>) -> ()
  %t_tanh_0 = arith.constant dense<[-2.5, -1.0, -0.5, 0.0, 0.5, 1.0, 2.5, 3.700000047683716]> : tensor<8xf32>
  call @t_tanh(%t_tanh_0) : (tensor<8xf32>) -> ()
  %t_sigmoid_0 = arith.constant dense<[-2.5, -1.0, -0.5, 0.0, 0.5, 1.0, 2.5, 3.700000047683716]> : tensor<8xf32>
  call @t_sigmoid(%t_sigmoid_0) : (tensor<8xf32>) -> ()
  %t_relu_0 = arith.constant dense<[-2.5, -1.0, -0.5, 0.0, 0.5, 1.0, 2.5, 3.700000047683716]> : tensor<8xf32>
  call @t_relu(%t_relu_0) : (tensor<8xf32>) -> ()
  %t_erf_0 = arith.constant dense<[-2.5, -1.0, -0.5, 0.0, 0.5, 1.0, 2.5, 3.700000047683716]> : tensor<8xf32>
  call @t_erf(%t_erf_0) : (tensor<8xf32>) -> ()
  %t_softplus_0 = arith.constant dense<[-2.5, -1.0, -0.5, 0.0, 0.5, 1.0, 2.5, 3.700000047683716]> : tensor<8xf32>
  call @t_softplus(%t_softplus_0) : (tensor<8xf32>) -> ()
  %t_softsign_0 = arith.constant dense<[-2.5, -1.0, -0.5, 0.0, 0.5, 1.0, 2.5, 3.700000047683716]> : tensor<8xf32>
  call @t_softsign(%t_softsign_0) : (tensor<8xf32>) -> ()
  %t_hard_swish_0 = arith.constant dense<[-2.5, -1.0, -0.5, 0.0, 0.5, 1.0, 2.5, 3.700000047683716]> : tensor<8xf32>
  call @t_hard_swish(%t_hard_swish_0) : (tensor<8xf32>) -> ()
  %t_mish_0 = arith.constant dense<[-2.5, -1.0, -0.5, 0.0, 0.5, 1.0, 2.5, 3.700000047683716]> : tensor<8xf32>
  call @t_mish(%t_mish_0) : (tensor<8xf32>) -> ()
  %t_gelu_0 = arith.constant dense<[-2.5, -1.0, -0.5, 0.0, 0.5, 1.0, 2.5, 3.700000047683716]> : tensor<8xf32>
  call @t_gelu(%t_gelu_0) : (tensor<8xf32>) -> ()
  %t_log_0 = arith.constant dense<[0.10000000149011612, 0.5, 1.0, 2.0, 3.0, 10.0]> : tensor<6xf32>
  call @t_log(%t_log_0) : (tensor<6xf32>) -> ()
  %t_sqrt_0 = arith.constant dense<[0.10000000149011612, 0.5, 1.0, 2.0, 3.0, 10.0]> : tensor<6xf32>
  call @t_sqrt(%t_sqrt_0) : (tensor<6xf32>) -> ()
  %t_asin_0 = arith.constant dense<[-0.8999999761581421, -0.5, -0.10000000149011612, 0.0, 0.30000001192092896, 0.800000011920929]> : tensor<6xf32>
  call @t_asin(%t_asin_0) : (tensor<6xf32>) -> ()
  %t_acos_0 = arith.constant dense<[-0.8999999761581421, -0.5, -0.10000000149011612, 0.0, 0.30000001192092896, 0.800000011920929]> : tensor<6xf32>
  call @t_acos(%t_acos_0) : (tensor<6xf32>) -> ()
  %t_atanh_0 = arith.constant dense<[-0.8999999761581421, -0.5, -0.10000000149011612, 0.0, 0.30000001192092896, 0.800000011920929]> : tensor<6xf32>
  call @t_atanh(%t_atanh_0) : (tensor<6xf32>) -> ()
  %t_acosh_0 = arith.constant dense<[1.0, 1.5, 2.0, 5.0, 10.0, 100.0]> : tensor<6xf32>
  call @t_acosh(%t_acosh_0) : (tensor<6xf32>) -> ()
  %t_round_halves_0 = arith.constant dense<[-2.5, -1.5, -0.5, 0.5, 1.5, 2.5, 3.5, 0.4999999701976776]> : tensor<8xf32>
  call @t_round_halves(%t_round_halves_0) : (tensor<8xf32>) -> ()
  %t_gelu_tanh_0 = arith.constant dense<[-2.5, -1.0, -0.5, 0.0, 0.5, 1.0, 2.5, 3.700000047683716]> : tensor<8xf32>
  call @t_gelu_tanh(%t_gelu_tanh_0) : (tensor<8xf32>) -> ()
  %t_leaky_relu_0 = arith.constant dense<[-2.5, -1.0, -0.5, 0.0, 0.5, 1.0, 2.5, 3.700000047683716]> : tensor<8xf32>
  call @t_leaky_relu(%t_leaky_relu_0) : (tensor<8xf32>) -> ()
  %t_elu_0 = arith.constant dense<[-2.5, -1.0, -0.5, 0.0, 0.5, 1.0, 2.5, 3.700000047683716]> : tensor<8xf32>
  call @t_elu(%t_elu_0) : (tensor<8xf32>) -> ()
  %t_celu_0 = arith.constant dense<[-2.5, -1.0, -0.5, 0.0, 0.5, 1.0, 2.5, 3.700000047683716]> : tensor<8xf32>
  call @t_celu(%t_celu_0) : (tensor<8xf32>) -> ()
  %t_selu_0 = arith.constant dense<[-2.5, -1.0, -0.5, 0.0, 0.5, 1.0, 2.5, 3.700000047683716]> : tensor<8xf32>
  call @t_selu(%t_selu_0) : (tensor<8xf32>) -> ()
  %t_hard_sigmoid_0 = arith.constant dense<[-2.5, -1.0, -0.5, 0.0, 0.5, 1.0, 2.5, 3.700000047683716]> : tensor<8xf32>
  call @t_hard_sigmoid(%t_hard_sigmoid_0) : (tensor<8xf32>) -> ()
  %t_thresholded_relu_0 = arith.constant dense<[-2.5, -1.0, -0.5, 0.0, 0.5, 1.0, 2.5, 3.700000047683716]> : tensor<8xf32>
  call @t_thresholded_relu(%t_thresholded_relu_0) : (tensor<8xf32>) -> ()
  %t_shrink_0 = arith.constant dense<[-2.5, -1.0, -0.5, 0.0, 0.5, 1.0, 2.5, 3.700000047683716]> : tensor<8xf32>
  call @t_shrink(%t_shrink_0) : (tensor<8xf32>) -> ()
  %t_shrink_i32_0 = arith.constant dense<[-7, -3, -1, 0, 1, 4, 9, 100]> : tensor<8xi32>
  call @t_shrink_i32(%t_shrink_i32_0) : (tensor<8xi32>) -> ()
  %t_clip_0 = arith.constant dense<[-2.5, -1.0, -0.5, 0.0, 0.5, 1.0, 2.5, 3.700000047683716]> : tensor<8xf32>
  call @t_clip(%t_clip_0) : (tensor<8xf32>) -> ()
  %t_clip_min_only_0 = arith.constant dense<[-2.5, -1.0, -0.5, 0.0, 0.5, 1.0, 2.5, 3.700000047683716]> : tensor<8xf32>
  call @t_clip_min_only(%t_clip_min_only_0) : (tensor<8xf32>) -> ()
  %t_clip_inverted_0 = arith.constant dense<[-2.5, -1.0, -0.5, 0.0, 0.5, 1.0, 2.5, 3.700000047683716]> : tensor<8xf32>
  call @t_clip_inverted(%t_clip_inverted_0) : (tensor<8xf32>) -> ()
  %t_clip_ui8_0 = telar.constant dense<[0, 1, 7, 100, 200, 255]> : tensor<6xui8>
  call @t_clip_ui8(%t_clip_ui8_0) : (tensor<6xui8>) -> ()
  %t_clip_i32_0 = arith.constant dense<[-7, -3, -1, 0, 1, 4, 9, 100]> : tensor<8xi32>
  call @t_clip_i32(%t_clip_i32_0) : (tensor<8xi32>) -> ()
  %t_abs_i32_0 = arith.constant dense<[-7, -3, -1, 0, 1, 4, 9, 100]> : tensor<8xi32>
  call @t_abs_i32(%t_abs_i32_0) : (tensor<8xi32>) -> ()
  %t_neg_i32_0 = arith.constant dense<[-7, -3, -1, 0, 1, 4, 9, 100]> : tensor<8xi32>
  call @t_neg_i32(%t_neg_i32_0) : (tensor<8xi32>) -> ()
  %t_sign_i32_0 = arith.constant dense<[-7, -3, -1, 0, 1, 4, 9, 100]> : tensor<8xi32>
  call @t_sign_i32(%t_sign_i32_0) : (tensor<8xi32>) -> ()
  %t_relu_i32_0 = arith.constant dense<[-7, -3, -1, 0, 1, 4, 9, 100]> : tensor<8xi32>
  call @t_relu_i32(%t_relu_i32_0) : (tensor<8xi32>) -> ()
  %t_bitwise_not_i32_0 = arith.constant dense<[-7, -3, -1, 0, 1, 4, 9, 100]> : tensor<8xi32>
  call @t_bitwise_not_i32(%t_bitwise_not_i32_0) : (tensor<8xi32>) -> ()
  %t_bitwise_not_ui8_0 = telar.constant dense<[0, 1, 7, 100, 200, 255]> : tensor<6xui8>
  call @t_bitwise_not_ui8(%t_bitwise_not_ui8_0) : (tensor<6xui8>) -> ()
  %t_not_0 = arith.constant dense<[true, false, true]> : tensor<3xi1>
  call @t_not(%t_not_0) : (tensor<3xi1>) -> ()
  %t_is_nan_0 = arith.constant dense<[0x7FC00000, 1.0, 0xFF800000, 0x7F800000, 0.0, -3.0]> : tensor<6xf32>
  call @t_is_nan(%t_is_nan_0) : (tensor<6xf32>) -> ()
  %t_is_inf_0 = arith.constant dense<[0x7FC00000, 1.0, 0xFF800000, 0x7F800000, 0.0, -3.0]> : tensor<6xf32>
  call @t_is_inf(%t_is_inf_0) : (tensor<6xf32>) -> ()
  %t_is_inf_neg_0 = arith.constant dense<[0x7FC00000, 1.0, 0xFF800000, 0x7F800000, 0.0, -3.0]> : tensor<6xf32>
  call @t_is_inf_neg(%t_is_inf_neg_0) : (tensor<6xf32>) -> ()
  %t_add_bcast_0 = arith.constant dense<[[1.5, -2.0, 3.0], [0.5, 4.0, -6.0]]> : tensor<2x3xf32>
  %t_add_bcast_1 = arith.constant dense<[2.0, -0.5, 3.0]> : tensor<3xf32>
  call @t_add_bcast(%t_add_bcast_0, %t_add_bcast_1) : (tensor<2x3xf32>, tensor<3xf32>) -> ()
  %t_sub_bcast_0 = arith.constant dense<[[1.5, -2.0, 3.0], [0.5, 4.0, -6.0]]> : tensor<2x3xf32>
  %t_sub_bcast_1 = arith.constant dense<[2.0, -0.5, 3.0]> : tensor<3xf32>
  call @t_sub_bcast(%t_sub_bcast_0, %t_sub_bcast_1) : (tensor<2x3xf32>, tensor<3xf32>) -> ()
  %t_mul_bcast_0 = arith.constant dense<[[1.5, -2.0, 3.0], [0.5, 4.0, -6.0]]> : tensor<2x3xf32>
  %t_mul_bcast_1 = arith.constant dense<[2.0, -0.5, 3.0]> : tensor<3xf32>
  call @t_mul_bcast(%t_mul_bcast_0, %t_mul_bcast_1) : (tensor<2x3xf32>, tensor<3xf32>) -> ()
  %t_div_bcast_0 = arith.constant dense<[[1.5, -2.0, 3.0], [0.5, 4.0, -6.0]]> : tensor<2x3xf32>
  %t_div_bcast_1 = arith.constant dense<[2.0, -0.5, 3.0]> : tensor<3xf32>
  call @t_div_bcast(%t_div_bcast_0, %t_div_bcast_1) : (tensor<2x3xf32>, tensor<3xf32>) -> ()
  %t_max_bcast_0 = arith.constant dense<[[1.5, -2.0, 3.0], [0.5, 4.0, -6.0]]> : tensor<2x3xf32>
  %t_max_bcast_1 = arith.constant dense<[2.0, -0.5, 3.0]> : tensor<3xf32>
  call @t_max_bcast(%t_max_bcast_0, %t_max_bcast_1) : (tensor<2x3xf32>, tensor<3xf32>) -> ()
  %t_min_bcast_0 = arith.constant dense<[[1.5, -2.0, 3.0], [0.5, 4.0, -6.0]]> : tensor<2x3xf32>
  %t_min_bcast_1 = arith.constant dense<[2.0, -0.5, 3.0]> : tensor<3xf32>
  call @t_min_bcast(%t_min_bcast_0, %t_min_bcast_1) : (tensor<2x3xf32>, tensor<3xf32>) -> ()
  %t_prelu_bcast_0 = arith.constant dense<[[1.5, -2.0, 3.0], [0.5, 4.0, -6.0]]> : tensor<2x3xf32>
  %t_prelu_bcast_1 = arith.constant dense<[2.0, -0.5, 3.0]> : tensor<3xf32>
  call @t_prelu_bcast(%t_prelu_bcast_0, %t_prelu_bcast_1) : (tensor<2x3xf32>, tensor<3xf32>) -> ()
  %t_pow_0 = arith.constant dense<[[1.5, 2.0, 3.0], [0.5, 4.0, 6.0]]> : tensor<2x3xf32>
  %t_pow_1 = arith.constant dense<[2.0, -0.5, 3.0]> : tensor<3xf32>
  call @t_pow(%t_pow_0, %t_pow_1) : (tensor<2x3xf32>, tensor<3xf32>) -> ()
  %t_pow_neg_base_0 = arith.constant dense<[[1.5, -2.0, 3.0], [0.5, 4.0, -6.0]]> : tensor<2x3xf32>
  %t_pow_neg_base_1 = arith.constant dense<[2.0, 3.0, 0.5]> : tensor<3xf32>
  call @t_pow_neg_base(%t_pow_neg_base_0, %t_pow_neg_base_1) : (tensor<2x3xf32>, tensor<3xf32>) -> ()
  %t_add_i32_0 = arith.constant dense<[7, -7, 7, -7, 2, -3, 0, 5]> : tensor<8xi32>
  %t_add_i32_1 = arith.constant dense<[2, 2, -2, -2, 10, 3, 4, -3]> : tensor<8xi32>
  call @t_add_i32(%t_add_i32_0, %t_add_i32_1) : (tensor<8xi32>, tensor<8xi32>) -> ()
  %t_sub_i32_0 = arith.constant dense<[7, -7, 7, -7, 2, -3, 0, 5]> : tensor<8xi32>
  %t_sub_i32_1 = arith.constant dense<[2, 2, -2, -2, 10, 3, 4, -3]> : tensor<8xi32>
  call @t_sub_i32(%t_sub_i32_0, %t_sub_i32_1) : (tensor<8xi32>, tensor<8xi32>) -> ()
  %t_mul_i32_0 = arith.constant dense<[7, -7, 7, -7, 2, -3, 0, 5]> : tensor<8xi32>
  %t_mul_i32_1 = arith.constant dense<[2, 2, -2, -2, 10, 3, 4, -3]> : tensor<8xi32>
  call @t_mul_i32(%t_mul_i32_0, %t_mul_i32_1) : (tensor<8xi32>, tensor<8xi32>) -> ()
  %t_div_i32_0 = arith.constant dense<[7, -7, 7, -7, 2, -3, 0, 5]> : tensor<8xi32>
  %t_div_i32_1 = arith.constant dense<[2, 2, -2, -2, 10, 3, 4, -3]> : tensor<8xi32>
  call @t_div_i32(%t_div_i32_0, %t_div_i32_1) : (tensor<8xi32>, tensor<8xi32>) -> ()
  %t_max_i32_0 = arith.constant dense<[7, -7, 7, -7, 2, -3, 0, 5]> : tensor<8xi32>
  %t_max_i32_1 = arith.constant dense<[2, 2, -2, -2, 10, 3, 4, -3]> : tensor<8xi32>
  call @t_max_i32(%t_max_i32_0, %t_max_i32_1) : (tensor<8xi32>, tensor<8xi32>) -> ()
  %t_min_i32_0 = arith.constant dense<[7, -7, 7, -7, 2, -3, 0, 5]> : tensor<8xi32>
  %t_min_i32_1 = arith.constant dense<[2, 2, -2, -2, 10, 3, 4, -3]> : tensor<8xi32>
  call @t_min_i32(%t_min_i32_0, %t_min_i32_1) : (tensor<8xi32>, tensor<8xi32>) -> ()
  %t_pow_i32_0 = arith.constant dense<[7, -7, 7, -7, 2, -3, 0, 5]> : tensor<8xi32>
  %t_pow_i32_1 = arith.constant dense<[2, 3, 0, 1, 3, 2, 5, 2]> : tensor<8xi32>
  call @t_pow_i32(%t_pow_i32_0, %t_pow_i32_1) : (tensor<8xi32>, tensor<8xi32>) -> ()
  %t_mod_i32_0 = arith.constant dense<[7, -7, 7, -7, 2, -3, 0, 5]> : tensor<8xi32>
  %t_mod_i32_1 = arith.constant dense<[2, 2, -2, -2, 10, 3, 4, -3]> : tensor<8xi32>
  call @t_mod_i32(%t_mod_i32_0, %t_mod_i32_1) : (tensor<8xi32>, tensor<8xi32>) -> ()
  %t_fmod_i32_0 = arith.constant dense<[7, -7, 7, -7, 2, -3, 0, 5]> : tensor<8xi32>
  %t_fmod_i32_1 = arith.constant dense<[2, 2, -2, -2, 10, 3, 4, -3]> : tensor<8xi32>
  call @t_fmod_i32(%t_fmod_i32_0, %t_fmod_i32_1) : (tensor<8xi32>, tensor<8xi32>) -> ()
  %t_fmod_f32_0 = arith.constant dense<[5.5, -5.5, 5.5, -5.5, 3.0, -0.0]> : tensor<6xf32>
  %t_fmod_f32_1 = arith.constant dense<[2.0, 2.0, -2.0, -2.0, 1.5, 3.0]> : tensor<6xf32>
  call @t_fmod_f32(%t_fmod_f32_0, %t_fmod_f32_1) : (tensor<6xf32>, tensor<6xf32>) -> ()
  %t_mod_f32_0 = arith.constant dense<[5.5, -5.5, 5.5, -5.5, 3.0, -0.0]> : tensor<6xf32>
  %t_mod_f32_1 = arith.constant dense<[2.0, 2.0, -2.0, -2.0, 1.5, 3.0]> : tensor<6xf32>
  call @t_mod_f32(%t_mod_f32_0, %t_mod_f32_1) : (tensor<6xf32>, tensor<6xf32>) -> ()
  %t_div_ui8_0 = telar.constant dense<[200, 7, 255, 100, 3, 0]> : tensor<6xui8>
  %t_div_ui8_1 = telar.constant dense<[3, 200, 16, 100, 5, 9]> : tensor<6xui8>
  call @t_div_ui8(%t_div_ui8_0, %t_div_ui8_1) : (tensor<6xui8>, tensor<6xui8>) -> ()
  %t_max_ui8_0 = telar.constant dense<[200, 7, 255, 100, 3, 0]> : tensor<6xui8>
  %t_max_ui8_1 = telar.constant dense<[3, 200, 16, 100, 5, 9]> : tensor<6xui8>
  call @t_max_ui8(%t_max_ui8_0, %t_max_ui8_1) : (tensor<6xui8>, tensor<6xui8>) -> ()
  %t_min_ui8_0 = telar.constant dense<[200, 7, 255, 100, 3, 0]> : tensor<6xui8>
  %t_min_ui8_1 = telar.constant dense<[3, 200, 16, 100, 5, 9]> : tensor<6xui8>
  call @t_min_ui8(%t_min_ui8_0, %t_min_ui8_1) : (tensor<6xui8>, tensor<6xui8>) -> ()
  %t_mod_ui8_0 = telar.constant dense<[200, 7, 255, 100, 3, 0]> : tensor<6xui8>
  %t_mod_ui8_1 = telar.constant dense<[3, 200, 16, 100, 5, 9]> : tensor<6xui8>
  call @t_mod_ui8(%t_mod_ui8_0, %t_mod_ui8_1) : (tensor<6xui8>, tensor<6xui8>) -> ()
  %t_sub_ui8_0 = telar.constant dense<[200, 7, 255, 100, 3, 0]> : tensor<6xui8>
  %t_sub_ui8_1 = telar.constant dense<[3, 200, 16, 100, 5, 9]> : tensor<6xui8>
  call @t_sub_ui8(%t_sub_ui8_0, %t_sub_ui8_1) : (tensor<6xui8>, tensor<6xui8>) -> ()
  %t_less_ui8_0 = telar.constant dense<[200, 7, 255, 100, 3, 0]> : tensor<6xui8>
  %t_less_ui8_1 = telar.constant dense<[3, 200, 16, 100, 5, 9]> : tensor<6xui8>
  call @t_less_ui8(%t_less_ui8_0, %t_less_ui8_1) : (tensor<6xui8>, tensor<6xui8>) -> ()
  %t_greater_equal_ui8_0 = telar.constant dense<[200, 7, 255, 100, 3, 0]> : tensor<6xui8>
  %t_greater_equal_ui8_1 = telar.constant dense<[3, 200, 16, 100, 5, 9]> : tensor<6xui8>
  call @t_greater_equal_ui8(%t_greater_equal_ui8_0, %t_greater_equal_ui8_1) : (tensor<6xui8>, tensor<6xui8>) -> ()
  %t_equal_0 = arith.constant dense<[[1.5, -2.0, 3.0], [0.5, 4.0, -6.0]]> : tensor<2x3xf32>
  %t_equal_1 = arith.constant dense<[2.0, -0.5, 3.0]> : tensor<3xf32>
  call @t_equal(%t_equal_0, %t_equal_1) : (tensor<2x3xf32>, tensor<3xf32>) -> ()
  %t_less_0 = arith.constant dense<[[1.5, -2.0, 3.0], [0.5, 4.0, -6.0]]> : tensor<2x3xf32>
  %t_less_1 = arith.constant dense<[2.0, -0.5, 3.0]> : tensor<3xf32>
  call @t_less(%t_less_0, %t_less_1) : (tensor<2x3xf32>, tensor<3xf32>) -> ()
  %t_less_equal_0 = arith.constant dense<[[1.5, -2.0, 3.0], [0.5, 4.0, -6.0]]> : tensor<2x3xf32>
  %t_less_equal_1 = arith.constant dense<[2.0, -0.5, 3.0]> : tensor<3xf32>
  call @t_less_equal(%t_less_equal_0, %t_less_equal_1) : (tensor<2x3xf32>, tensor<3xf32>) -> ()
  %t_greater_0 = arith.constant dense<[[1.5, -2.0, 3.0], [0.5, 4.0, -6.0]]> : tensor<2x3xf32>
  %t_greater_1 = arith.constant dense<[2.0, -0.5, 3.0]> : tensor<3xf32>
  call @t_greater(%t_greater_0, %t_greater_1) : (tensor<2x3xf32>, tensor<3xf32>) -> ()
  %t_greater_equal_0 = arith.constant dense<[[1.5, -2.0, 3.0], [0.5, 4.0, -6.0]]> : tensor<2x3xf32>
  %t_greater_equal_1 = arith.constant dense<[2.0, -0.5, 3.0]> : tensor<3xf32>
  call @t_greater_equal(%t_greater_equal_0, %t_greater_equal_1) : (tensor<2x3xf32>, tensor<3xf32>) -> ()
  %t_equal_i32_0 = arith.constant dense<[7, -7, 7, -7, 2, -3, 0, 5]> : tensor<8xi32>
  %t_equal_i32_1 = arith.constant dense<[2, 2, -2, -2, 10, 3, 4, -3]> : tensor<8xi32>
  call @t_equal_i32(%t_equal_i32_0, %t_equal_i32_1) : (tensor<8xi32>, tensor<8xi32>) -> ()
  %t_less_i32_0 = arith.constant dense<[7, -7, 7, -7, 2, -3, 0, 5]> : tensor<8xi32>
  %t_less_i32_1 = arith.constant dense<[2, 2, -2, -2, 10, 3, 4, -3]> : tensor<8xi32>
  call @t_less_i32(%t_less_i32_0, %t_less_i32_1) : (tensor<8xi32>, tensor<8xi32>) -> ()
  %t_max_nan_0 = arith.constant dense<[0x7FC00000, 1.0, 0xFF800000, 0x7F800000, 0.0, -3.0]> : tensor<6xf32>
  %t_max_nan_1 = arith.constant dense<[1.0, 0x7FC00000, 0.0, 2.0, 0x7FC00000, -5.0]> : tensor<6xf32>
  call @t_max_nan(%t_max_nan_0, %t_max_nan_1) : (tensor<6xf32>, tensor<6xf32>) -> ()
  %t_min_nan_0 = arith.constant dense<[0x7FC00000, 1.0, 0xFF800000, 0x7F800000, 0.0, -3.0]> : tensor<6xf32>
  %t_min_nan_1 = arith.constant dense<[1.0, 0x7FC00000, 0.0, 2.0, 0x7FC00000, -5.0]> : tensor<6xf32>
  call @t_min_nan(%t_min_nan_0, %t_min_nan_1) : (tensor<6xf32>, tensor<6xf32>) -> ()
  %t_and_0 = arith.constant dense<[true, true, false, false]> : tensor<4xi1>
  %t_and_1 = arith.constant dense<[true, false, true, false]> : tensor<4xi1>
  call @t_and(%t_and_0, %t_and_1) : (tensor<4xi1>, tensor<4xi1>) -> ()
  %t_or_0 = arith.constant dense<[true, true, false, false]> : tensor<4xi1>
  %t_or_1 = arith.constant dense<[true, false, true, false]> : tensor<4xi1>
  call @t_or(%t_or_0, %t_or_1) : (tensor<4xi1>, tensor<4xi1>) -> ()
  %t_xor_0 = arith.constant dense<[true, true, false, false]> : tensor<4xi1>
  %t_xor_1 = arith.constant dense<[true, false, true, false]> : tensor<4xi1>
  call @t_xor(%t_xor_0, %t_xor_1) : (tensor<4xi1>, tensor<4xi1>) -> ()
  %t_bitwise_and_0 = arith.constant dense<[7, -7, 7, -7, 2, -3, 0, 5]> : tensor<8xi32>
  %t_bitwise_and_1 = arith.constant dense<[2, 2, -2, -2, 10, 3, 4, -3]> : tensor<8xi32>
  call @t_bitwise_and(%t_bitwise_and_0, %t_bitwise_and_1) : (tensor<8xi32>, tensor<8xi32>) -> ()
  %t_bitwise_or_0 = arith.constant dense<[7, -7, 7, -7, 2, -3, 0, 5]> : tensor<8xi32>
  %t_bitwise_or_1 = arith.constant dense<[2, 2, -2, -2, 10, 3, 4, -3]> : tensor<8xi32>
  call @t_bitwise_or(%t_bitwise_or_0, %t_bitwise_or_1) : (tensor<8xi32>, tensor<8xi32>) -> ()
  %t_bitwise_xor_0 = arith.constant dense<[7, -7, 7, -7, 2, -3, 0, 5]> : tensor<8xi32>
  %t_bitwise_xor_1 = arith.constant dense<[2, 2, -2, -2, 10, 3, 4, -3]> : tensor<8xi32>
  call @t_bitwise_xor(%t_bitwise_xor_0, %t_bitwise_xor_1) : (tensor<8xi32>, tensor<8xi32>) -> ()
  %t_bit_shift_left_0 = telar.constant dense<[16, 1, 255, 3]> : tensor<4xui8>
  %t_bit_shift_left_1 = telar.constant dense<[2, 7, 4, 0]> : tensor<4xui8>
  call @t_bit_shift_left(%t_bit_shift_left_0, %t_bit_shift_left_1) : (tensor<4xui8>, tensor<4xui8>) -> ()
  %t_bit_shift_right_0 = telar.constant dense<[16, 1, 255, 3]> : tensor<4xui8>
  %t_bit_shift_right_1 = telar.constant dense<[2, 7, 4, 0]> : tensor<4xui8>
  call @t_bit_shift_right(%t_bit_shift_right_0, %t_bit_shift_right_1) : (tensor<4xui8>, tensor<4xui8>) -> ()
  %t_where_0 = arith.constant dense<[[true], [false]]> : tensor<2x1xi1>
  %t_where_1 = arith.constant dense<[[1.5, -2.0, 3.0], [0.5, 4.0, -6.0]]> : tensor<2x3xf32>
  %t_where_2 = arith.constant dense<-1.0> : tensor<f32>
  call @t_where(%t_where_0, %t_where_1, %t_where_2) : (tensor<2x1xi1>, tensor<2x3xf32>, tensor<f32>) -> ()
  %t_cast_f32_i32_0 = arith.constant dense<[-2.700000047683716, -0.5, 0.0, 0.8999999761581421, 3.990000009536743, 1000000.0]> : tensor<6xf32>
  call @t_cast_f32_i32(%t_cast_f32_i32_0) : (tensor<6xf32>) -> ()
  %t_cast_f32_i1_0 = arith.constant dense<[-2.700000047683716, 0.0, -0.0, 0.10000000149011612, 0x7FC00000]> : tensor<5xf32>
  call @t_cast_f32_i1(%t_cast_f32_i1_0) : (tensor<5xf32>) -> ()
  %t_cast_i1_f32_0 = arith.constant dense<[true, false, true]> : tensor<3xi1>
  call @t_cast_i1_f32(%t_cast_i1_f32_0) : (tensor<3xi1>) -> ()
  %t_cast_ui8_f32_0 = telar.constant dense<[0, 1, 7, 100, 200, 255]> : tensor<6xui8>
  call @t_cast_ui8_f32(%t_cast_ui8_f32_0) : (tensor<6xui8>) -> ()
  %t_cast_i32_ui8_0 = arith.constant dense<[-1, 0, 255, 256, 300, -200]> : tensor<6xi32>
  call @t_cast_i32_ui8(%t_cast_i32_ui8_0) : (tensor<6xi32>) -> ()
  %t_cast_ui8_i32_0 = telar.constant dense<[0, 1, 7, 100, 200, 255]> : tensor<6xui8>
  call @t_cast_ui8_i32(%t_cast_ui8_i32_0) : (tensor<6xui8>) -> ()
  %t_cast_i32_i1_0 = arith.constant dense<[-1, 0, 2]> : tensor<3xi32>
  call @t_cast_i32_i1(%t_cast_i32_i1_0) : (tensor<3xi32>) -> ()
  %t_cast_f32_f16_0 = arith.constant dense<[1.0, 0.10000000149011612, 65504.0, 0.0010000000474974513, -3.141590118408203]> : tensor<5xf32>
  call @t_cast_f32_f16(%t_cast_f32_f16_0) : (tensor<5xf32>) -> ()
  %t_cast_f32_ui8_0 = arith.constant dense<[0.0, 1.899999976158142, 200.5, 255.0]> : tensor<4xf32>
  call @t_cast_f32_ui8(%t_cast_f32_ui8_0) : (tensor<4xf32>) -> ()
  %t_cast_i64_i8_0 = arith.constant dense<[1, -1, 127, 128, -129, 1000]> : tensor<6xi64>
  call @t_cast_i64_i8(%t_cast_i64_i8_0) : (tensor<6xi64>) -> ()
  %t_erf_f16_0 = arith.constant dense<[-1.0, 0.0, 0.5, 2.0]> : tensor<4xf16>
  call @t_erf_f16(%t_erf_f16_0) : (tensor<4xf16>) -> ()
  %t_add_f16_0 = arith.constant dense<[1.0, 0.0999755859375, 1000.0]> : tensor<3xf16>
  %t_add_f16_1 = arith.constant dense<[2.0, 0.199951171875, 0.5]> : tensor<3xf16>
  call @t_add_f16(%t_add_f16_0, %t_add_f16_1) : (tensor<3xf16>, tensor<3xf16>) -> ()
  return
}
func.func private @printMemrefF32(tensor<*xf32>)
func.func private @printMemrefI64(tensor<*xi64>)
