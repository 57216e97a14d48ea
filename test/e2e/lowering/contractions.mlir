// Numeric checks of the contraction lowering (matmul, einsum, conv,
// conv_transpose, pools) through MLIR's JIT runner. Expected values come
// from onnxruntime on the equivalent ONNX node (integer-valued inputs, so
// sums are exact).
// RUN: telar-opt %s %lower_standalone | %mlir_runner -e entry | FileCheck %s
// Every loop nest on OpenMP threads gives the same values:
// RUN: telar-opt %s %lower_threaded | %mlir_runner -e entry | FileCheck %s
// RUN: telar-opt %s %lower_emulated_gpu | timeout 300 %mlir_runner -e entry | FileCheck %s

// [B, M, K] x [K, N]: one GEMM over B*M rows
func.func @matmul_fold_batch(%a0: tensor<2x3x4xf32>, %a1: tensor<4x5xf32>) {
  %r = telar.matmul %a0, %a1 : (tensor<2x3x4xf32>, tensor<4x5xf32>) -> tensor<2x3x5xf32>
  %f = tensor.collapse_shape %r [[0, 1, 2]] : tensor<2x3x5xf32> into tensor<30xf32>
  %u = tensor.cast %f : tensor<30xf32> to tensor<*xf32>
  call @printMemrefF32(%u) : (tensor<*xf32>) -> ()
  return
}
// CHECK: data =
// CHECK-NEXT: [17,  -3,  4,  7,  -4,  0,  4,  9,  -2,  8,  -1,  1,  -17,  4,  -7,  12,  -9,  5,  4,  -13,  -12,  2,  -12,  -3,  9,  -4,  -7,  9,  -5,  2]

// batch dims broadcast both ways
func.func @matmul_broadcast_batch(%a0: tensor<2x1x3x4xf32>, %a1: tensor<3x4x2xf32>) {
  %r = telar.matmul %a0, %a1 : (tensor<2x1x3x4xf32>, tensor<3x4x2xf32>) -> tensor<2x3x3x2xf32>
  %f = tensor.collapse_shape %r [[0, 1, 2, 3]] : tensor<2x3x3x2xf32> into tensor<36xf32>
  %u = tensor.cast %f : tensor<36xf32> to tensor<*xf32>
  call @printMemrefF32(%u) : (tensor<*xf32>) -> ()
  return
}
// CHECK: data =
// CHECK-NEXT: [6,  13,  -15,  9,  13,  -8,  -5,  1,  -3,  12,  12,  11,  3,  -7,  -12,  -9,  -13,  8,  9,  0,  -8,  5,  -6,  18,  3,  2,  -8,  -8,  -6,  12,  -1,  2,  9,  -5,  -12,  -13]

// 1-D lhs against a batch
func.func @matmul_vector_lhs(%a0: tensor<4xf32>, %a1: tensor<2x4x3xf32>) {
  %r = telar.matmul %a0, %a1 : (tensor<4xf32>, tensor<2x4x3xf32>) -> tensor<2x3xf32>
  %f = tensor.collapse_shape %r [[0, 1]] : tensor<2x3xf32> into tensor<6xf32>
  %u = tensor.cast %f : tensor<6xf32> to tensor<*xf32>
  call @printMemrefF32(%u) : (tensor<*xf32>) -> ()
  return
}
// CHECK: data =
// CHECK-NEXT: [-11,  -5,  9,  8,  5,  -8]

// 1-D rhs
func.func @matmul_vector_rhs(%a0: tensor<2x3x4xf32>, %a1: tensor<4xf32>) {
  %r = telar.matmul %a0, %a1 : (tensor<2x3x4xf32>, tensor<4xf32>) -> tensor<2x3xf32>
  %f = tensor.collapse_shape %r [[0, 1]] : tensor<2x3xf32> into tensor<6xf32>
  %u = tensor.cast %f : tensor<6xf32> to tensor<*xf32>
  call @printMemrefF32(%u) : (tensor<*xf32>) -> ()
  return
}
// CHECK: data =
// CHECK-NEXT: [4,  -8,  1,  -12,  -2,  11]

// two vectors: a scalar
func.func @matmul_dot(%a0: tensor<5xf32>, %a1: tensor<5xf32>) {
  %r = telar.matmul %a0, %a1 : (tensor<5xf32>, tensor<5xf32>) -> tensor<f32>
  %u = tensor.cast %r : tensor<f32> to tensor<*xf32>
  call @printMemrefF32(%u) : (tensor<*xf32>) -> ()
  return
}
// CHECK: data =
// CHECK-NEXT: [9]

// integers
func.func @matmul_int(%a0: tensor<2x3xi64>, %a1: tensor<3x2xi64>) {
  %r = telar.matmul %a0, %a1 : (tensor<2x3xi64>, tensor<3x2xi64>) -> tensor<2x2xi64>
  %f = tensor.collapse_shape %r [[0, 1]] : tensor<2x2xi64> into tensor<4xi64>
  %u = tensor.cast %f : tensor<4xi64> to tensor<*xi64>
  call @printMemrefI64(%u) : (tensor<*xi64>) -> ()
  return
}
// CHECK: data =
// CHECK-NEXT: [10,  4,  -5,  5]

// attention scores: transposed rhs, batch_matmul
func.func @einsum_bhqd_bhkd__bhqk(%a0: tensor<2x2x3x4xf32>, %a1: tensor<2x2x2x4xf32>) {
  %r = telar.einsum %a0, %a1 {equation = #telar.einsum<[b, h, q, d], [b, h, k, d] -> [b, h, q, k]>} : (tensor<2x2x3x4xf32>, tensor<2x2x2x4xf32>) -> tensor<2x2x3x2xf32>
  %f = tensor.collapse_shape %r [[0, 1, 2, 3]] : tensor<2x2x3x2xf32> into tensor<24xf32>
  %u = tensor.cast %f : tensor<24xf32> to tensor<*xf32>
  call @printMemrefF32(%u) : (tensor<*xf32>) -> ()
  return
}
// CHECK: data =
// CHECK-NEXT: [9,  12,  -11,  2,  -12,  -1,  6,  9,  1,  0,  18,  -8,  12,  17,  7,  -12,  -1,  5,  -3,  -3,  4,  14,  -7,  -17]

// MoE expert batch
func.func @einsum_ecm_emh__ech(%a0: tensor<2x3x4xf32>, %a1: tensor<2x4x2xf32>) {
  %r = telar.einsum %a0, %a1 {equation = #telar.einsum<[e, c, m], [e, m, h] -> [e, c, h]>} : (tensor<2x3x4xf32>, tensor<2x4x2xf32>) -> tensor<2x3x2xf32>
  %f = tensor.collapse_shape %r [[0, 1, 2]] : tensor<2x3x2xf32> into tensor<12xf32>
  %u = tensor.cast %f : tensor<12xf32> to tensor<*xf32>
  call @printMemrefF32(%u) : (tensor<*xf32>) -> ()
  return
}
// CHECK: data =
// CHECK-NEXT: [-12,  -10,  -22,  -13,  2,  3,  15,  12,  -19,  -13,  -11,  -11]

// rows folded, output transposed
func.func @einsum_bsd_dh__bhs(%a0: tensor<2x3x4xf32>, %a1: tensor<4x2xf32>) {
  %r = telar.einsum %a0, %a1 {equation = #telar.einsum<[b, s, d], [d, h] -> [b, h, s]>} : (tensor<2x3x4xf32>, tensor<4x2xf32>) -> tensor<2x2x3xf32>
  %f = tensor.collapse_shape %r [[0, 1, 2]] : tensor<2x2x3xf32> into tensor<12xf32>
  %u = tensor.cast %f : tensor<12xf32> to tensor<*xf32>
  call @printMemrefF32(%u) : (tensor<*xf32>) -> ()
  return
}
// CHECK: data =
// CHECK-NEXT: [14,  2,  2,  7,  8,  -8,  4,  9,  11,  -11,  4,  -4]

// diagonal
func.func @einsum_ii__i(%a0: tensor<3x3xf32>) {
  %r = telar.einsum %a0 {equation = #telar.einsum<[i, i] -> [i]>} : (tensor<3x3xf32>) -> tensor<3xf32>
  %u = tensor.cast %r : tensor<3xf32> to tensor<*xf32>
  call @printMemrefF32(%u) : (tensor<*xf32>) -> ()
  return
}
// CHECK: data =
// CHECK-NEXT: [-1,  1,  3]

// trace
func.func @einsum_ii__(%a0: tensor<3x3xf32>) {
  %r = telar.einsum %a0 {equation = #telar.einsum<[i, i] -> []>} : (tensor<3x3xf32>) -> tensor<f32>
  %u = tensor.cast %r : tensor<f32> to tensor<*xf32>
  call @printMemrefF32(%u) : (tensor<*xf32>) -> ()
  return
}
// CHECK: data =
// CHECK-NEXT: [4]

// three operands: one generic
func.func @einsum_ij_jk_kl__il(%a0: tensor<2x3xf32>, %a1: tensor<3x2xf32>, %a2: tensor<2x2xf32>) {
  %r = telar.einsum %a0, %a1, %a2 {equation = #telar.einsum<[i, j], [j, k], [k, l] -> [i, l]>} : (tensor<2x3xf32>, tensor<3x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>
  %f = tensor.collapse_shape %r [[0, 1]] : tensor<2x2xf32> into tensor<4xf32>
  %u = tensor.cast %f : tensor<4xf32> to tensor<*xf32>
  call @printMemrefF32(%u) : (tensor<*xf32>) -> ()
  return
}
// CHECK: data =
// CHECK-NEXT: [22,  -20,  12,  -8]

// outer product: nothing contracted
func.func @einsum_i_j__ij(%a0: tensor<3xf32>, %a1: tensor<2xf32>) {
  %r = telar.einsum %a0, %a1 {equation = #telar.einsum<[i], [j] -> [i, j]>} : (tensor<3xf32>, tensor<2xf32>) -> tensor<3x2xf32>
  %f = tensor.collapse_shape %r [[0, 1]] : tensor<3x2xf32> into tensor<6xf32>
  %u = tensor.cast %f : tensor<6xf32> to tensor<*xf32>
  call @printMemrefF32(%u) : (tensor<*xf32>) -> ()
  return
}
// CHECK: data =
// CHECK-NEXT: [-9,  9,  -6,  6,  -6,  6]

// plain reduction
func.func @einsum_bij__bj(%a0: tensor<2x3x2xf32>) {
  %r = telar.einsum %a0 {equation = #telar.einsum<[b, i, j] -> [b, j]>} : (tensor<2x3x2xf32>) -> tensor<2x2xf32>
  %f = tensor.collapse_shape %r [[0, 1]] : tensor<2x2xf32> into tensor<4xf32>
  %u = tensor.cast %f : tensor<4xf32> to tensor<*xf32>
  call @printMemrefF32(%u) : (tensor<*xf32>) -> ()
  return
}
// CHECK: data =
// CHECK-NEXT: [8,  6,  0,  -1]

// row-wise dot: no rows or columns
func.func @einsum_ij_ij__i(%a0: tensor<2x3xf32>, %a1: tensor<2x3xf32>) {
  %r = telar.einsum %a0, %a1 {equation = #telar.einsum<[i, j], [i, j] -> [i]>} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2xf32>
  %u = tensor.cast %r : tensor<2xf32> to tensor<*xf32>
  call @printMemrefF32(%u) : (tensor<*xf32>) -> ()
  return
}
// CHECK: data =
// CHECK-NEXT: [12,  -8]

// pads, strides, bias
func.func @conv2d_pads_bias(%a0: tensor<1x2x5x5xf32>, %a1: tensor<3x2x3x3xf32>, %a2: tensor<3xf32>) {
  %r = telar.conv %a0, %a1, %a2 {strides = array<i64: 2, 2>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, group = 1 : i64} : (tensor<1x2x5x5xf32>, tensor<3x2x3x3xf32>, tensor<3xf32>) -> tensor<1x3x3x3xf32>
  %f = tensor.collapse_shape %r [[0, 1, 2, 3]] : tensor<1x3x3x3xf32> into tensor<27xf32>
  %u = tensor.cast %f : tensor<27xf32> to tensor<*xf32>
  call @printMemrefF32(%u) : (tensor<*xf32>) -> ()
  return
}
// CHECK: data =
// CHECK-NEXT: [-23,  3,  -17,  -3,  24,  -15,  -13,  -3,  9,  -22,  -8,  3,  13,  16,  16,  -8,  10,  38,  10,  -2,  -16,  -1,  0,  -8,  5,  -1,  -21]

// dilation, asymmetric pads
func.func @conv2d_dilated_asym(%a0: tensor<2x1x6x5xf32>, %a1: tensor<2x1x2x2xf32>) {
  %r = telar.conv %a0, %a1 {strides = array<i64: 1, 2>, pads = array<i64: 0, 1, 2, 0>, dilations = array<i64: 2, 1>, group = 1 : i64} : (tensor<2x1x6x5xf32>, tensor<2x1x2x2xf32>) -> tensor<2x2x6x3xf32>
  %f = tensor.collapse_shape %r [[0, 1, 2, 3]] : tensor<2x2x6x3xf32> into tensor<72xf32>
  %u = tensor.cast %f : tensor<72xf32> to tensor<*xf32>
  call @printMemrefF32(%u) : (tensor<*xf32>) -> ()
  return
}
// CHECK: data =
// CHECK-NEXT: [-4,  4,  -3,  -10,  -1,  5,  -1,  -2,  3,  8,  4,  -8,  -3,  3,  -6,  -3,  3,  9,  6,  3,  1,  0,  -4,  1,  4,  -4,  12,  -2,  2,  -12,  2,  7,  -2,  2,  -11,  0,  10,  -2,  2,  7,  15,  11,  -2,  -14,  -10,  9,  -5,  -2,  -6,  9,  6,  -9,  3,  -3,  0,  4,  13,  -8,  -8,  -7,  8,  -11,  6,  4,  -4,  4,  4,  0,  -4,  6,  -11,  5]

// groups (two filters per channel)
func.func @conv2d_depthwise(%a0: tensor<1x2x4x4xf32>, %a1: tensor<4x1x3x3xf32>, %a2: tensor<4xf32>) {
  %r = telar.conv %a0, %a1, %a2 {strides = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, group = 2 : i64} : (tensor<1x2x4x4xf32>, tensor<4x1x3x3xf32>, tensor<4xf32>) -> tensor<1x4x4x4xf32>
  %f = tensor.collapse_shape %r [[0, 1, 2, 3]] : tensor<1x4x4x4xf32> into tensor<64xf32>
  %u = tensor.cast %f : tensor<64xf32> to tensor<*xf32>
  call @printMemrefF32(%u) : (tensor<*xf32>) -> ()
  return
}
// CHECK: data =
// CHECK-NEXT: [-1,  8,  4,  1,  -7,  13,  0,  -2,  1,  -7,  -17,  12,  17,  21,  -4,  2,  -4,  9,  -5,  -10,  -5,  7,  -11,  0,  7,  28,  2,  3,  -17,  -14,  -1,  11,  0,  2,  -16,  -1,  3,  -7,  -12,  -9,  11,  -13,  4,  -19,  -6,  5,  -13,  -5,  4,  24,  -9,  2,  6,  4,  8,  -6,  24,  1,  2,  -2,  11,  0,  10,  2]

// 1-D
func.func @conv1d(%a0: tensor<1x2x7xf32>, %a1: tensor<3x2x3xf32>, %a2: tensor<3xf32>) {
  %r = telar.conv %a0, %a1, %a2 {strides = array<i64: 2>, pads = array<i64: 1, 0>, dilations = array<i64: 1>, group = 1 : i64} : (tensor<1x2x7xf32>, tensor<3x2x3xf32>, tensor<3xf32>) -> tensor<1x3x3xf32>
  %f = tensor.collapse_shape %r [[0, 1, 2]] : tensor<1x3x3xf32> into tensor<9xf32>
  %u = tensor.cast %f : tensor<9xf32> to tensor<*xf32>
  call @printMemrefF32(%u) : (tensor<*xf32>) -> ()
  return
}
// CHECK: data =
// CHECK-NEXT: [-17,  23,  5,  -4,  13,  -7,  12,  10,  -9]

// 3-D
func.func @conv3d(%a0: tensor<1x1x3x4x3xf32>, %a1: tensor<2x1x2x2x2xf32>) {
  %r = telar.conv %a0, %a1 {strides = array<i64: 1, 1, 1>, pads = array<i64: 0, 1, 0, 1, 0, 1>, dilations = array<i64: 1, 1, 1>, group = 1 : i64} : (tensor<1x1x3x4x3xf32>, tensor<2x1x2x2x2xf32>) -> tensor<1x2x3x4x3xf32>
  %f = tensor.collapse_shape %r [[0, 1, 2, 3, 4]] : tensor<1x2x3x4x3xf32> into tensor<72xf32>
  %u = tensor.cast %f : tensor<72xf32> to tensor<*xf32>
  call @printMemrefF32(%u) : (tensor<*xf32>) -> ()
  return
}
// CHECK: data =
// CHECK-NEXT: [21,  20,  -6,  -7,  10,  -15,  -20,  7,  3,  -2,  6,  6,  -7,  3,  -6,  10,  8,  0,  10,  22,  3,  -27,  28,  -9,  -12,  12,  -9,  7,  -6,  -12,  0,  -4,  0,  -3,  16,  3,  6,  11,  11,  3,  -5,  0,  -3,  -1,  -13,  -14,  2,  -6,  -16,  -14,  -9,  -3,  4,  0,  25,  7,  2,  -10,  -1,  9,  8,  0,  9,  -9,  12,  -3,  -5,  -16,  -5,  8,  0,  2]

// strides, pads, output_padding, bias
func.func @conv_transpose2d(%a0: tensor<1x2x3x3xf32>, %a1: tensor<2x3x3x3xf32>, %a2: tensor<3xf32>) {
  %r = telar.conv_transpose %a0, %a1, %a2 {strides = array<i64: 2, 2>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, group = 1 : i64, output_padding = array<i64: 1, 1>} : (tensor<1x2x3x3xf32>, tensor<2x3x3x3xf32>, tensor<3xf32>) -> tensor<1x3x6x6xf32>
  %f = tensor.collapse_shape %r [[0, 1, 2, 3]] : tensor<1x3x6x6xf32> into tensor<108xf32>
  %u = tensor.cast %f : tensor<108xf32> to tensor<*xf32>
  call @printMemrefF32(%u) : (tensor<*xf32>) -> ()
  return
}
// CHECK: data =
// CHECK-NEXT: [-5,  -12,  -8,  -2,  4,  0,  0,  1,  1,  28,  -5,  -15,  4,  -9,  -2,  -9,  -8,  -2,  3,  18,  -2,  -1,  -4,  -4,  4,  -16,  -8,  -2,  -2,  2,  -2,  -2,  -2,  2,  -2,  -6,  0,  1,  1,  10,  -5,  -9,  -9,  19,  -14,  7,  10,  -13,  -5,  -3,  3,  0,  -3,  0,  -14,  21,  3,  -4,  -3,  -4,  1,  0,  3,  5,  -7,  -9,  7,  4,  -3,  -1,  -7,  -5,  8,  7,  11,  8,  -4,  -2,  3,  -10,  11,  9,  -4,  3,  -4,  1,  11,  7,  5,  4,  4,  2,  3,  -2,  3,  -1,  5,  6,  14,  8,  -4,  -2,  -5,  -7,  4,  0,  4,  4]

// groups, dilation, stride > kernel
func.func @conv_transpose1d_group(%a0: tensor<1x4x3xf32>, %a1: tensor<4x1x2xf32>) {
  %r = telar.conv_transpose %a0, %a1 {strides = array<i64: 3>, pads = array<i64: 0, 0>, dilations = array<i64: 2>, group = 2 : i64, output_padding = array<i64: 0>} : (tensor<1x4x3xf32>, tensor<4x1x2xf32>) -> tensor<1x2x9xf32>
  %f = tensor.collapse_shape %r [[0, 1, 2]] : tensor<1x2x9xf32> into tensor<18xf32>
  %u = tensor.cast %f : tensor<18xf32> to tensor<*xf32>
  call @printMemrefF32(%u) : (tensor<*xf32>) -> ()
  return
}
// CHECK: data =
// CHECK-NEXT: [-8,  0,  -9,  -2,  0,  -6,  -1,  0,  -3,  -9,  0,  12,  1,  0,  -2,  -2,  0,  4]

// pads beyond the kernel span crop the input
func.func @conv_transpose1d_crop(%a0: tensor<1x1x4xf32>, %a1: tensor<1x1x2xf32>) {
  %r = telar.conv_transpose %a0, %a1 {strides = array<i64: 1>, pads = array<i64: 2, 1>, dilations = array<i64: 1>, group = 1 : i64, output_padding = array<i64: 0>} : (tensor<1x1x4xf32>, tensor<1x1x2xf32>) -> tensor<1x1x2xf32>
  %f = tensor.collapse_shape %r [[0, 1, 2]] : tensor<1x1x2xf32> into tensor<2xf32>
  %u = tensor.cast %f : tensor<2xf32> to tensor<*xf32>
  call @printMemrefF32(%u) : (tensor<*xf32>) -> ()
  return
}
// CHECK: data =
// CHECK-NEXT: [1,  -8]

// pads never win
func.func @max_pool2d_pads(%a0: tensor<1x2x5x5xf32>) {
  %r = telar.max_pool %a0 {kernel_shape = array<i64: 3, 3>, strides = array<i64: 2, 2>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>} : (tensor<1x2x5x5xf32>) -> tensor<1x2x3x3xf32>
  %f = tensor.collapse_shape %r [[0, 1, 2, 3]] : tensor<1x2x3x3xf32> into tensor<18xf32>
  %u = tensor.cast %f : tensor<18xf32> to tensor<*xf32>
  call @printMemrefF32(%u) : (tensor<*xf32>) -> ()
  return
}
// CHECK: data =
// CHECK-NEXT: [9,  6,  6,  9,  6,  6,  1,  5,  5,  9,  9,  6,  9,  9,  9,  8,  9,  9]

// ceil_mode
func.func @max_pool2d_ceil(%a0: tensor<1x1x5x6xf32>) {
  %r = telar.max_pool %a0 {kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, ceil_mode = true} : (tensor<1x1x5x6xf32>) -> tensor<1x1x3x3xf32>
  %f = tensor.collapse_shape %r [[0, 1, 2, 3]] : tensor<1x1x3x3xf32> into tensor<9xf32>
  %u = tensor.cast %f : tensor<9xf32> to tensor<*xf32>
  call @printMemrefF32(%u) : (tensor<*xf32>) -> ()
  return
}
// CHECK: data =
// CHECK-NEXT: [2,  8,  6,  0,  5,  7,  8,  1,  6]

// 1-D, dilation
func.func @max_pool1d_dilated(%a0: tensor<1x2x8xf32>) {
  %r = telar.max_pool %a0 {kernel_shape = array<i64: 2>, strides = array<i64: 1>, pads = array<i64: 1, 0>, dilations = array<i64: 3>} : (tensor<1x2x8xf32>) -> tensor<1x2x6xf32>
  %f = tensor.collapse_shape %r [[0, 1, 2]] : tensor<1x2x6xf32> into tensor<12xf32>
  %u = tensor.cast %f : tensor<12xf32> to tensor<*xf32>
  call @printMemrefF32(%u) : (tensor<*xf32>) -> ()
  return
}
// CHECK: data =
// CHECK-NEXT: [6,  2,  -1,  6,  2,  3,  -2,  3,  3,  1,  -2,  -2]

// divisor counts only input elements
func.func @avg_pool2d_exclude_pad(%a0: tensor<1x1x4x5xf32>) {
  %r = telar.average_pool %a0 {kernel_shape = array<i64: 3, 3>, strides = array<i64: 2, 2>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>} : (tensor<1x1x4x5xf32>) -> tensor<1x1x2x3xf32>
  %f = tensor.collapse_shape %r [[0, 1, 2, 3]] : tensor<1x1x2x3xf32> into tensor<6xf32>
  %u = tensor.cast %f : tensor<6xf32> to tensor<*xf32>
  call @printMemrefF32(%u) : (tensor<*xf32>) -> ()
  return
}
// CHECK: data =
// CHECK-NEXT: [-2.5,  2.5,  1,  -4,  -0.333333,  2.66667]

// count_include_pad
func.func @avg_pool2d_include_pad(%a0: tensor<1x1x4x5xf32>) {
  %r = telar.average_pool %a0 {kernel_shape = array<i64: 3, 3>, strides = array<i64: 2, 2>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, count_include_pad = true} : (tensor<1x1x4x5xf32>) -> tensor<1x1x2x3xf32>
  %f = tensor.collapse_shape %r [[0, 1, 2, 3]] : tensor<1x1x2x3xf32> into tensor<6xf32>
  %u = tensor.cast %f : tensor<6xf32> to tensor<*xf32>
  call @printMemrefF32(%u) : (tensor<*xf32>) -> ()
  return
}
// CHECK: data =
// CHECK-NEXT: [0.333333,  1.88889,  2.88889,  0.111111,  1.66667,  2]

// ceil_mode windows past the pads do not count
func.func @avg_pool2d_ceil(%a0: tensor<1x1x5x5xf32>) {
  %r = telar.average_pool %a0 {kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, ceil_mode = true, count_include_pad = true} : (tensor<1x1x5x5xf32>) -> tensor<1x1x3x3xf32>
  %f = tensor.collapse_shape %r [[0, 1, 2, 3]] : tensor<1x1x3x3xf32> into tensor<9xf32>
  %u = tensor.cast %f : tensor<9xf32> to tensor<*xf32>
  call @printMemrefF32(%u) : (tensor<*xf32>) -> ()
  return
}
// CHECK: data =
// CHECK-NEXT: [-1.25,  -5.5,  -2,  4.25,  -2.5,  -0.5,  7,  1.5,  7]

// 1-D, full windows
func.func @avg_pool1d(%a0: tensor<1x2x6xf32>) {
  %r = telar.average_pool %a0 {kernel_shape = array<i64: 2>, strides = array<i64: 2>, pads = array<i64: 0, 0>, dilations = array<i64: 1>} : (tensor<1x2x6xf32>) -> tensor<1x2x3xf32>
  %f = tensor.collapse_shape %r [[0, 1, 2]] : tensor<1x2x3xf32> into tensor<6xf32>
  %u = tensor.cast %f : tensor<6xf32> to tensor<*xf32>
  call @printMemrefF32(%u) : (tensor<*xf32>) -> ()
  return
}
// CHECK: data =
// CHECK-NEXT: [-2.5,  -3.5,  1.5,  4,  -1.5,  -6.5]

// 3-D
func.func @avg_pool3d(%a0: tensor<1x1x3x3x3xf32>) {
  %r = telar.average_pool %a0 {kernel_shape = array<i64: 2, 2, 2>, strides = array<i64: 1, 1, 1>, pads = array<i64: 1, 0, 0, 0, 1, 0>, dilations = array<i64: 1, 1, 1>} : (tensor<1x1x3x3x3xf32>) -> tensor<1x1x3x3x2xf32>
  %f = tensor.collapse_shape %r [[0, 1, 2, 3, 4]] : tensor<1x1x3x3x2xf32> into tensor<18xf32>
  %u = tensor.cast %f : tensor<18xf32> to tensor<*xf32>
  call @printMemrefF32(%u) : (tensor<*xf32>) -> ()
  return
}
// CHECK: data =
// CHECK-NEXT: [0.75,  -4.25,  1,  -0.25,  1.5,  3.5,  0.625,  -2.375,  1.875,  0,  3.5,  3.75,  1.375,  -0.125,  1.25,  -0.5,  1.5,  1.5]

func.func @entry() {
  %matmul_fold_batch_0 = arith.constant dense<[[[3.0, 1.0, 1.0, 3.0], [1.0, 2.0, 2.0, -2.0], [-3.0, -1.0, -2.0, 3.0]], [[3.0, -3.0, 0.0, 2.0], [-3.0, 2.0, -3.0, 0.0], [2.0, -1.0, -1.0, -2.0]]]> : tensor<2x3x4xf32>
  %matmul_fold_batch_1 = arith.constant dense<[[2.0, -2.0, 3.0, 0.0, 0.0], [0.0, 1.0, 0.0, 0.0, 3.0], [2.0, 2.0, 1.0, 1.0, -1.0], [3.0, 0.0, -2.0, 2.0, -2.0]]> : tensor<4x5xf32>
  call @matmul_fold_batch(%matmul_fold_batch_0, %matmul_fold_batch_1) : (tensor<2x3x4xf32>, tensor<4x5xf32>) -> ()
  %matmul_broadcast_batch_0 = arith.constant dense<[[[[3.0, 1.0, -3.0, -3.0], [0.0, -3.0, -3.0, 0.0], [3.0, 0.0, 2.0, 3.0]]], [[[2.0, 1.0, 0.0, 0.0], [-2.0, 0.0, -1.0, -2.0], [3.0, -3.0, -3.0, -2.0]]]]> : tensor<2x1x3x4xf32>
  %matmul_broadcast_batch_1 = arith.constant dense<[[[3.0, 1.0], [3.0, -2.0], [2.0, -1.0], [0.0, -3.0]], [[1.0, 2.0], [1.0, -2.0], [0.0, -2.0], [3.0, 3.0]], [[-2.0, 0.0], [3.0, 2.0], [1.0, 1.0], [-3.0, 2.0]]]> : tensor<3x4x2xf32>
  call @matmul_broadcast_batch(%matmul_broadcast_batch_0, %matmul_broadcast_batch_1) : (tensor<2x1x3x4xf32>, tensor<3x4x2xf32>) -> ()
  %matmul_vector_lhs_0 = arith.constant dense<[0.0, -3.0, -2.0, 0.0]> : tensor<4xf32>
  %matmul_vector_lhs_1 = arith.constant dense<[[[2.0, 0.0, 1.0], [3.0, 1.0, -1.0], [1.0, 1.0, -3.0], [-3.0, 1.0, -1.0]], [[1.0, -1.0, -2.0], [-2.0, -1.0, 2.0], [-1.0, -1.0, 1.0], [3.0, -1.0, 1.0]]]> : tensor<2x4x3xf32>
  call @matmul_vector_lhs(%matmul_vector_lhs_0, %matmul_vector_lhs_1) : (tensor<4xf32>, tensor<2x4x3xf32>) -> ()
  %matmul_vector_rhs_0 = arith.constant dense<[[[0.0, 1.0, 0.0, 1.0], [0.0, 1.0, 3.0, -2.0], [0.0, 0.0, -1.0, -2.0]], [[-3.0, -1.0, 2.0, -3.0], [-1.0, 3.0, 3.0, -2.0], [-3.0, 1.0, -3.0, -1.0]]]> : tensor<2x3x4xf32>
  %matmul_vector_rhs_1 = arith.constant dense<[0.0, 3.0, -3.0, 1.0]> : tensor<4xf32>
  call @matmul_vector_rhs(%matmul_vector_rhs_0, %matmul_vector_rhs_1) : (tensor<2x3x4xf32>, tensor<4xf32>) -> ()
  %matmul_dot_0 = arith.constant dense<[0.0, -3.0, 2.0, 2.0, 0.0]> : tensor<5xf32>
  %matmul_dot_1 = arith.constant dense<[3.0, 1.0, 3.0, 3.0, 0.0]> : tensor<5xf32>
  call @matmul_dot(%matmul_dot_0, %matmul_dot_1) : (tensor<5xf32>, tensor<5xf32>) -> ()
  %matmul_int_0 = arith.constant dense<[[-2, -2, 0], [-2, 2, 3]]> : tensor<2x3xi64>
  %matmul_int_1 = arith.constant dense<[[-2, 0], [-3, -2], [-1, 3]]> : tensor<3x2xi64>
  call @matmul_int(%matmul_int_0, %matmul_int_1) : (tensor<2x3xi64>, tensor<3x2xi64>) -> ()
  %einsum_bhqd_bhkd__bhqk_0 = arith.constant dense<[[[[3.0, 1.0, 1.0, 0.0], [-3.0, -1.0, 3.0, -1.0], [-2.0, -2.0, 1.0, -3.0]], [[3.0, 3.0, 0.0, 0.0], [2.0, 0.0, 0.0, -1.0], [0.0, 2.0, -3.0, -3.0]]], [[[2.0, -1.0, 2.0, -3.0], [3.0, -3.0, -1.0, 3.0], [-3.0, 1.0, 2.0, -1.0]], [[-3.0, 0.0, 0.0, 3.0], [1.0, -1.0, -3.0, 1.0], [-2.0, 1.0, 3.0, -1.0]]]]> : tensor<2x2x3x4xf32>
  %einsum_bhqd_bhkd__bhqk_1 = arith.constant dense<[[[[3.0, 0.0, 0.0, 2.0], [2.0, 3.0, 3.0, -2.0]], [[-1.0, 3.0, -1.0, -3.0], [1.0, 2.0, 2.0, 2.0]]], [[[1.0, -3.0, 2.0, -1.0], [2.0, 2.0, 3.0, -3.0]], [[3.0, 1.0, 0.0, 2.0], [3.0, 0.0, -3.0, 2.0]]]]> : tensor<2x2x2x4xf32>
  call @einsum_bhqd_bhkd__bhqk(%einsum_bhqd_bhkd__bhqk_0, %einsum_bhqd_bhkd__bhqk_1) : (tensor<2x2x3x4xf32>, tensor<2x2x2x4xf32>) -> ()
  %einsum_ecm_emh__ech_0 = arith.constant dense<[[[-2.0, -2.0, -2.0, -2.0], [3.0, -1.0, -3.0, -2.0], [-1.0, -1.0, -1.0, 3.0]], [[3.0, 1.0, 3.0, -1.0], [-3.0, -2.0, -3.0, 3.0], [-2.0, 0.0, -2.0, 3.0]]]> : tensor<2x3x4xf32>
  %einsum_ecm_emh__ech_1 = arith.constant dense<[[[-2.0, 0.0], [3.0, 0.0], [3.0, 3.0], [2.0, 2.0]], [[1.0, 1.0], [2.0, -1.0], [3.0, 3.0], [-1.0, -1.0]]]> : tensor<2x4x2xf32>
  call @einsum_ecm_emh__ech(%einsum_ecm_emh__ech_0, %einsum_ecm_emh__ech_1) : (tensor<2x3x4xf32>, tensor<2x4x2xf32>) -> ()
  %einsum_bsd_dh__bhs_0 = arith.constant dense<[[[2.0, 3.0, -3.0, -3.0], [-2.0, 0.0, -2.0, 0.0], [0.0, 3.0, 2.0, -2.0]], [[2.0, 2.0, 1.0, 1.0], [-1.0, 2.0, -3.0, 1.0], [3.0, 3.0, -1.0, -1.0]]]> : tensor<2x3x4xf32>
  %einsum_bsd_dh__bhs_1 = arith.constant dense<[[1.0, -1.0], [2.0, -2.0], [-2.0, -3.0], [0.0, -2.0]]> : tensor<4x2xf32>
  call @einsum_bsd_dh__bhs(%einsum_bsd_dh__bhs_0, %einsum_bsd_dh__bhs_1) : (tensor<2x3x4xf32>, tensor<4x2xf32>) -> ()
  %einsum_ii__i_0 = arith.constant dense<[[-1.0, 3.0, 2.0], [2.0, 1.0, -3.0], [2.0, 1.0, 3.0]]> : tensor<3x3xf32>
  call @einsum_ii__i(%einsum_ii__i_0) : (tensor<3x3xf32>) -> ()
  %einsum_ii___0 = arith.constant dense<[[0.0, -2.0, 1.0], [0.0, 1.0, -1.0], [-1.0, -3.0, 3.0]]> : tensor<3x3xf32>
  call @einsum_ii__(%einsum_ii___0) : (tensor<3x3xf32>) -> ()
  %einsum_ij_jk_kl__il_0 = arith.constant dense<[[2.0, 0.0, -2.0], [1.0, -1.0, 1.0]]> : tensor<2x3xf32>
  %einsum_ij_jk_kl__il_1 = arith.constant dense<[[-3.0, -2.0], [2.0, -3.0], [1.0, -1.0]]> : tensor<3x2xf32>
  %einsum_ij_jk_kl__il_2 = arith.constant dense<[[-3.0, 2.0], [1.0, 2.0]]> : tensor<2x2xf32>
  call @einsum_ij_jk_kl__il(%einsum_ij_jk_kl__il_0, %einsum_ij_jk_kl__il_1, %einsum_ij_jk_kl__il_2) : (tensor<2x3xf32>, tensor<3x2xf32>, tensor<2x2xf32>) -> ()
  %einsum_i_j__ij_0 = arith.constant dense<[3.0, 2.0, 2.0]> : tensor<3xf32>
  %einsum_i_j__ij_1 = arith.constant dense<[-3.0, 3.0]> : tensor<2xf32>
  call @einsum_i_j__ij(%einsum_i_j__ij_0, %einsum_i_j__ij_1) : (tensor<3xf32>, tensor<2xf32>) -> ()
  %einsum_bij__bj_0 = arith.constant dense<[[[3.0, 1.0], [2.0, 2.0], [3.0, 3.0]], [[0.0, 2.0], [3.0, -1.0], [-3.0, -2.0]]]> : tensor<2x3x2xf32>
  call @einsum_bij__bj(%einsum_bij__bj_0) : (tensor<2x3x2xf32>) -> ()
  %einsum_ij_ij__i_0 = arith.constant dense<[[-3.0, 0.0, -3.0], [-2.0, -2.0, 1.0]]> : tensor<2x3xf32>
  %einsum_ij_ij__i_1 = arith.constant dense<[[-2.0, 3.0, -2.0], [3.0, 0.0, -2.0]]> : tensor<2x3xf32>
  call @einsum_ij_ij__i(%einsum_ij_ij__i_0, %einsum_ij_ij__i_1) : (tensor<2x3xf32>, tensor<2x3xf32>) -> ()
  %conv2d_pads_bias_0 = arith.constant dense<[[[[-3.0, -1.0, 1.0, -3.0, -2.0], [-3.0, 1.0, -3.0, -3.0, 0.0], [-1.0, 0.0, 3.0, 3.0, 0.0], [1.0, 2.0, 0.0, 1.0, -2.0], [1.0, -2.0, -2.0, 2.0, 1.0]], [[-1.0, -3.0, -2.0, 2.0, 0.0], [3.0, 3.0, 2.0, -3.0, -3.0], [1.0, -1.0, 2.0, -1.0, -2.0], [-3.0, -1.0, 1.0, -3.0, 2.0], [-1.0, -1.0, 1.0, 3.0, 0.0]]]]> : tensor<1x2x5x5xf32>
  %conv2d_pads_bias_1 = arith.constant dense<[[[[2.0, -1.0, -3.0], [2.0, 2.0, 2.0], [3.0, 0.0, -2.0]], [[1.0, 1.0, -1.0], [1.0, -2.0, 1.0], [2.0, -3.0, 0.0]]], [[[1.0, -3.0, 1.0], [3.0, 2.0, 1.0], [2.0, -1.0, -1.0]], [[-3.0, 2.0, -1.0], [3.0, 0.0, 3.0], [-3.0, -2.0, -1.0]]], [[[-3.0, 0.0, 1.0], [1.0, -2.0, -2.0], [0.0, 1.0, 3.0]], [[3.0, -1.0, -2.0], [-2.0, 3.0, 0.0], [3.0, 1.0, 1.0]]]]> : tensor<3x2x3x3xf32>
  %conv2d_pads_bias_2 = arith.constant dense<[-3.0, 1.0, -1.0]> : tensor<3xf32>
  call @conv2d_pads_bias(%conv2d_pads_bias_0, %conv2d_pads_bias_1, %conv2d_pads_bias_2) : (tensor<1x2x5x5xf32>, tensor<3x2x3x3xf32>, tensor<3xf32>) -> ()
  %conv2d_dilated_asym_0 = arith.constant dense<[[[[2.0, -3.0, -2.0, 1.0, 1.0], [2.0, 0.0, -1.0, -1.0, -1.0], [1.0, 0.0, -1.0, -2.0, 1.0], [-2.0, -2.0, -1.0, 2.0, 0.0], [1.0, -3.0, -1.0, 2.0, 2.0], [1.0, 3.0, -1.0, -2.0, -3.0]]], [[[-2.0, 2.0, 3.0, -3.0, 0.0], [-3.0, 2.0, -3.0, 1.0, -3.0], [2.0, 3.0, 2.0, -2.0, 2.0], [-1.0, 2.0, 2.0, 0.0, 1.0], [2.0, -2.0, -3.0, 0.0, -2.0], [3.0, 3.0, -1.0, -1.0, 1.0]]]]> : tensor<2x1x6x5xf32>
  %conv2d_dilated_asym_1 = arith.constant dense<[[[[0.0, -3.0], [1.0, 2.0]]], [[[-3.0, 2.0], [0.0, 2.0]]]]> : tensor<2x1x2x2xf32>
  call @conv2d_dilated_asym(%conv2d_dilated_asym_0, %conv2d_dilated_asym_1) : (tensor<2x1x6x5xf32>, tensor<2x1x2x2xf32>) -> ()
  %conv2d_depthwise_0 = arith.constant dense<[[[[2.0, 1.0, -1.0, -1.0], [2.0, -3.0, -2.0, 0.0], [3.0, 2.0, 2.0, -2.0], [-2.0, -2.0, 2.0, 0.0]], [[-2.0, 2.0, 1.0, 3.0], [0.0, -3.0, 3.0, -2.0], [-3.0, 2.0, 0.0, 1.0], [-3.0, 2.0, -1.0, 3.0]]]]> : tensor<1x2x4x4xf32>
  %conv2d_depthwise_1 = arith.constant dense<[[[[1.0, 3.0, 2.0], [2.0, -3.0, 2.0], [1.0, -1.0, -1.0]]], [[[1.0, -2.0, -2.0], [3.0, 2.0, 1.0], [2.0, -1.0, 2.0]]], [[[-2.0, 0.0, -2.0], [-1.0, -1.0, -1.0], [0.0, -3.0, -1.0]]], [[[2.0, 0.0, 0.0], [-3.0, -1.0, 3.0], [0.0, -3.0, 2.0]]]]> : tensor<4x1x3x3xf32>
  %conv2d_depthwise_2 = arith.constant dense<[2.0, -1.0, -3.0, 2.0]> : tensor<4xf32>
  call @conv2d_depthwise(%conv2d_depthwise_0, %conv2d_depthwise_1, %conv2d_depthwise_2) : (tensor<1x2x4x4xf32>, tensor<4x1x3x3xf32>, tensor<4xf32>) -> ()
  %conv1d_0 = arith.constant dense<[[[-2.0, 3.0, -1.0, -1.0, 2.0, -3.0, -3.0], [2.0, 3.0, 3.0, -3.0, -2.0, -1.0, 1.0]]]> : tensor<1x2x7xf32>
  %conv1d_1 = arith.constant dense<[[[3.0, 2.0, -1.0], [3.0, -2.0, -3.0]], [[0.0, -3.0, 1.0], [3.0, -3.0, -3.0]], [[-2.0, -2.0, 0.0], [1.0, 3.0, 0.0]]]> : tensor<3x2x3xf32>
  %conv1d_2 = arith.constant dense<[3.0, 2.0, 2.0]> : tensor<3xf32>
  call @conv1d(%conv1d_0, %conv1d_1, %conv1d_2) : (tensor<1x2x7xf32>, tensor<3x2x3xf32>, tensor<3xf32>) -> ()
  %conv3d_0 = arith.constant dense<[[[[[-2.0, 0.0, 3.0], [2.0, -2.0, 2.0], [2.0, -2.0, -3.0], [-2.0, 0.0, -2.0]], [[-3.0, -3.0, -1.0], [-1.0, -1.0, 0.0], [2.0, -2.0, 0.0], [2.0, -3.0, 3.0]], [[3.0, -1.0, 3.0], [-2.0, 3.0, 1.0], [-2.0, -3.0, -1.0], [2.0, -2.0, 0.0]]]]]> : tensor<1x1x3x4x3xf32>
  %conv3d_1 = arith.constant dense<[[[[[-3.0, -1.0], [-3.0, 3.0]], [[0.0, 2.0], [-3.0, -2.0]]]], [[[[-2.0, 0.0], [3.0, 1.0]], [[0.0, 3.0], [-2.0, -2.0]]]]]> : tensor<2x1x2x2x2xf32>
  call @conv3d(%conv3d_0, %conv3d_1) : (tensor<1x1x3x4x3xf32>, tensor<2x1x2x2x2xf32>) -> ()
  %conv_transpose2d_0 = arith.constant dense<[[[[1.0, 2.0, -2.0], [-2.0, 0.0, 2.0], [-2.0, 2.0, 0.0]], [[1.0, 1.0, 0.0], [0.0, 3.0, -1.0], [3.0, 2.0, -2.0]]]]> : tensor<1x2x3x3xf32>
  %conv_transpose2d_1 = arith.constant dense<[[[[3.0, -1.0, -2.0], [-2.0, -3.0, -1.0], [-3.0, 0.0, 3.0]], [[3.0, 3.0, -2.0], [-2.0, 1.0, 3.0], [2.0, -2.0, 2.0]], [[0.0, 0.0, 0.0], [0.0, 3.0, 2.0], [-3.0, 2.0, -1.0]]], [[[-1.0, 1.0, 3.0], [-3.0, 0.0, -2.0], [3.0, 0.0, 2.0]], [[3.0, -3.0, 2.0], [2.0, 2.0, 3.0], [2.0, 2.0, 1.0]], [[-1.0, 2.0, 1.0], [1.0, 3.0, 2.0], [-1.0, -1.0, -1.0]]]]> : tensor<2x3x3x3xf32>
  %conv_transpose2d_2 = arith.constant dense<[-2.0, -3.0, 2.0]> : tensor<3xf32>
  call @conv_transpose2d(%conv_transpose2d_0, %conv_transpose2d_1, %conv_transpose2d_2) : (tensor<1x2x3x3xf32>, tensor<2x3x3x3xf32>, tensor<3xf32>) -> ()
  %conv_transpose1d_group_0 = arith.constant dense<[[[2.0, -2.0, -1.0], [3.0, 2.0, 1.0], [3.0, -1.0, 2.0], [3.0, 1.0, -2.0]]]> : tensor<1x4x3xf32>
  %conv_transpose1d_group_1 = arith.constant dense<[[[-1.0, 0.0]], [[-2.0, -3.0]], [[-2.0, 3.0]], [[-1.0, 1.0]]]> : tensor<4x1x2xf32>
  call @conv_transpose1d_group(%conv_transpose1d_group_0, %conv_transpose1d_group_1) : (tensor<1x4x3xf32>, tensor<4x1x2xf32>) -> ()
  %conv_transpose1d_crop_0 = arith.constant dense<[[[0.0, 2.0, -3.0, -2.0]]]> : tensor<1x1x4xf32>
  %conv_transpose1d_crop_1 = arith.constant dense<[[[1.0, 2.0]]]> : tensor<1x1x2xf32>
  call @conv_transpose1d_crop(%conv_transpose1d_crop_0, %conv_transpose1d_crop_1) : (tensor<1x1x4xf32>, tensor<1x1x2xf32>) -> ()
  %max_pool2d_pads_0 = arith.constant dense<[[[[-1.0, 4.0, 6.0, 3.0, 6.0], [9.0, -5.0, -1.0, -5.0, -2.0], [-9.0, 4.0, -5.0, 6.0, 4.0], [-3.0, -1.0, 3.0, -2.0, -6.0], [-9.0, 1.0, 1.0, 5.0, -7.0]], [[-8.0, 4.0, 4.0, 6.0, -9.0], [3.0, 9.0, 5.0, -1.0, 0.0], [-2.0, -8.0, 4.0, 1.0, 0.0], [8.0, 4.0, 9.0, -8.0, 9.0], [1.0, -2.0, 1.0, -9.0, 8.0]]]]> : tensor<1x2x5x5xf32>
  call @max_pool2d_pads(%max_pool2d_pads_0) : (tensor<1x2x5x5xf32>) -> ()
  %max_pool2d_ceil_0 = arith.constant dense<[[[[2.0, -9.0, 8.0, -1.0, -7.0, 2.0], [-8.0, 1.0, 5.0, -8.0, 6.0, 2.0], [-3.0, -5.0, -9.0, -6.0, -4.0, 7.0], [0.0, -6.0, 5.0, -1.0, 6.0, 5.0], [8.0, 4.0, -7.0, 1.0, -1.0, 6.0]]]]> : tensor<1x1x5x6xf32>
  call @max_pool2d_ceil(%max_pool2d_ceil_0) : (tensor<1x1x5x6xf32>) -> ()
  %max_pool1d_dilated_0 = arith.constant dense<[[[-7.0, -1.0, 6.0, 2.0, -9.0, 6.0, -3.0, 3.0], [3.0, 3.0, -2.0, -2.0, -8.0, 1.0, -4.0, -2.0]]]> : tensor<1x2x8xf32>
  call @max_pool1d_dilated(%max_pool1d_dilated_0) : (tensor<1x2x8xf32>) -> ()
  %avg_pool2d_exclude_pad_0 = arith.constant dense<[[[[-6.0, 5.0, 8.0, -2.0, -1.0], [-1.0, -8.0, 5.0, 7.0, 0.0], [-8.0, -3.0, -7.0, 6.0, 6.0], [-2.0, -2.0, 7.0, -8.0, 5.0]]]]> : tensor<1x1x4x5xf32>
  call @avg_pool2d_exclude_pad(%avg_pool2d_exclude_pad_0) : (tensor<1x1x4x5xf32>) -> ()
  %avg_pool2d_include_pad_0 = arith.constant dense<[[[[9.0, -1.0, 5.0, 4.0, 8.0], [-9.0, 4.0, -2.0, 7.0, 7.0], [-4.0, 2.0, 0.0, 1.0, 6.0], [3.0, 5.0, 3.0, -5.0, 2.0]]]]> : tensor<1x1x4x5xf32>
  call @avg_pool2d_include_pad(%avg_pool2d_include_pad_0) : (tensor<1x1x4x5xf32>) -> ()
  %avg_pool2d_ceil_0 = arith.constant dense<[[[[-2.0, -2.0, -7.0, -6.0, -3.0], [-4.0, 3.0, -4.0, -5.0, -1.0], [1.0, 9.0, 0.0, -3.0, -3.0], [-1.0, 8.0, -2.0, -5.0, 2.0], [5.0, 9.0, -4.0, 7.0, 7.0]]]]> : tensor<1x1x5x5xf32>
  call @avg_pool2d_ceil(%avg_pool2d_ceil_0) : (tensor<1x1x5x5xf32>) -> ()
  %avg_pool1d_0 = arith.constant dense<[[[-2.0, -3.0, -4.0, -3.0, 7.0, -4.0], [0.0, 8.0, 4.0, -7.0, -8.0, -5.0]]]> : tensor<1x2x6xf32>
  call @avg_pool1d(%avg_pool1d_0) : (tensor<1x2x6xf32>) -> ()
  %avg_pool3d_0 = arith.constant dense<[[[[[7.0, -5.0, -4.0], [1.0, 0.0, -8.0], [-6.0, 9.0, -2.0]], [[-4.0, 6.0, -1.0], [6.0, -6.0, -1.0], [6.0, 5.0, 3.0]], [[-1.0, 6.0, -2.0], [3.0, 1.0, -4.0], [-6.0, 1.0, -3.0]]]]]> : tensor<1x1x3x3x3xf32>
  call @avg_pool3d(%avg_pool3d_0) : (tensor<1x1x3x3x3xf32>) -> ()
  return
}
func.func private @printMemrefF32(tensor<*xf32>)
func.func private @printMemrefI64(tensor<*xi64>)
