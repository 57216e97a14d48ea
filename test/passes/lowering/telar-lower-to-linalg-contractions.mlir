// RUN: telar-opt %s --telar-lower-to-linalg -split-input-file -verify-diagnostics | FileCheck %s

// [B, M, K] x [K, N]: the batch folds into the rows, one GEMM.
// CHECK-LABEL: func.func @matmul_fold_batch
// CHECK: %[[A:.+]] = tensor.collapse_shape %{{.+}} {{\[}}[0, 1], [2]] : tensor<4x16x64xf32> into tensor<64x64xf32>
// CHECK: %[[FILL:.+]] = linalg.fill ins(%{{.+}} : f32) outs(%{{.+}} : tensor<64x32xf32>)
// CHECK: %[[MM:.+]] = linalg.matmul ins(%[[A]], %{{.+}} : tensor<64x64xf32>, tensor<64x32xf32>) outs(%[[FILL]] : tensor<64x32xf32>)
// CHECK: tensor.expand_shape %[[MM]] {{\[}}[0, 1], [2]] output_shape [4, 16, 32]
func.func @matmul_fold_batch(%a: tensor<4x16x64xf32>, %b: tensor<64x32xf32>) -> tensor<4x16x32xf32> {
  %0 = telar.matmul %a, %b : (tensor<4x16x64xf32>, tensor<64x32xf32>) -> tensor<4x16x32xf32>
  return %0 : tensor<4x16x32xf32>
}

// -----

// Batch dims on both sides: one batch_matmul over the collapsed batch; the
// operand with a size-1 batch dim is broadcast, the other only reshaped.
// CHECK-LABEL: func.func @matmul_broadcast_batch
// CHECK: %[[A:.+]] = tensor.collapse_shape %{{.+}} : tensor<2x1x3x4xf32> into tensor<2x3x4xf32>
// CHECK: %[[AB:.+]] = linalg.broadcast ins(%[[A]] : tensor<2x3x4xf32>) outs(%{{.+}} : tensor<2x5x3x4xf32>) dimensions = [1]
// CHECK: %[[A3:.+]] = tensor.collapse_shape %[[AB]] {{\[}}[0, 1], [2], [3]] : tensor<2x5x3x4xf32> into tensor<10x3x4xf32>
// CHECK: %[[B3:.+]] = tensor.collapse_shape %{{.+}} {{\[}}[0, 1], [2], [3]] : tensor<2x5x4x6xf32> into tensor<10x4x6xf32>
// CHECK: %[[MM:.+]] = linalg.batch_matmul ins(%[[A3]], %[[B3]] : tensor<10x3x4xf32>, tensor<10x4x6xf32>)
// CHECK: tensor.expand_shape %[[MM]] {{\[}}[0, 1], [2], [3]] output_shape [2, 5, 3, 6]
func.func @matmul_broadcast_batch(%a: tensor<2x1x3x4xf32>, %b: tensor<2x5x4x6xf32>) -> tensor<2x5x3x6xf32> {
  %0 = telar.matmul %a, %b : (tensor<2x1x3x4xf32>, tensor<2x5x4x6xf32>) -> tensor<2x5x3x6xf32>
  return %0 : tensor<2x5x3x6xf32>
}

// -----

// A 1-D rhs is a column; the added dimension goes away.
// CHECK-LABEL: func.func @matmul_vector
// CHECK: tensor.expand_shape %{{.+}} {{\[}}[0, 1]] output_shape [4, 1] : tensor<4xf32> into tensor<4x1xf32>
// CHECK: linalg.matmul ins(%{{.+}}, %{{.+}} : tensor<6x4xf32>, tensor<4x1xf32>)
// CHECK: into tensor<2x3xf32>
func.func @matmul_vector(%a: tensor<2x3x4xf32>, %b: tensor<4xf32>) -> tensor<2x3xf32> {
  %0 = telar.matmul %a, %b : (tensor<2x3x4xf32>, tensor<4xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

// Integer matmul: the same named op, integer zero.
// CHECK-LABEL: func.func @matmul_int
// CHECK: arith.constant 0 : i32
// CHECK: linalg.matmul ins(%{{.+}}, %{{.+}} : tensor<2x3xi32>, tensor<3x2xi32>) outs(%{{.+}} : tensor<2x2xi32>)
func.func @matmul_int(%a: tensor<2x3xi32>, %b: tensor<3x2xi32>) -> tensor<2x2xi32> {
  %0 = telar.matmul %a, %b : (tensor<2x3xi32>, tensor<3x2xi32>) -> tensor<2x2xi32>
  return %0 : tensor<2x2xi32>
}

// -----

// f16 accumulates in f32, then rounds once.
// CHECK-LABEL: func.func @matmul_f16
// CHECK: linalg.matmul ins(%{{.+}}, %{{.+}} : tensor<2x3xf16>, tensor<3x2xf16>) outs(%{{.+}} : tensor<2x2xf32>)
// CHECK: arith.truncf %{{.+}} : f32 to f16
func.func @matmul_f16(%a: tensor<2x3xf16>, %b: tensor<3x2xf16>) -> tensor<2x2xf16> {
  %0 = telar.matmul %a, %b : (tensor<2x3xf16>, tensor<3x2xf16>) -> tensor<2x2xf16>
  return %0 : tensor<2x2xf16>
}

// -----

// Attention scores: the rhs is transposed, then one batch_matmul.
// CHECK-LABEL: func.func @einsum_scores
// CHECK: %[[T:.+]] = linalg.transpose ins(%{{.+}} : tensor<2x4x16x8xf32>) outs(%{{.+}} : tensor<2x4x8x16xf32>) permutation = [0, 1, 3, 2]
// CHECK: %[[A:.+]] = tensor.collapse_shape %{{.+}} : tensor<2x4x10x8xf32> into tensor<8x10x8xf32>
// CHECK: %[[B:.+]] = tensor.collapse_shape %[[T]] {{.+}} into tensor<8x8x16xf32>
// CHECK: linalg.batch_matmul ins(%[[A]], %[[B]] : tensor<8x10x8xf32>, tensor<8x8x16xf32>)
// CHECK: tensor.expand_shape {{.+}} into tensor<2x4x10x16xf32>
func.func @einsum_scores(%q: tensor<2x4x10x8xf32>, %k: tensor<2x4x16x8xf32>) -> tensor<2x4x10x16xf32> {
  %0 = telar.einsum %q, %k {equation = #telar.einsum<[b, h, q, d], [b, h, k, d] -> [b, h, q, k]>} : (tensor<2x4x10x8xf32>, tensor<2x4x16x8xf32>) -> tensor<2x4x10x16xf32>
  return %0 : tensor<2x4x10x16xf32>
}

// -----

// Without batch letters: a matmul over the folded rows, then the result is
// transposed into the output's letter order.
// CHECK-LABEL: func.func @einsum_rows
// CHECK: linalg.matmul ins(%{{.+}}, %{{.+}} : tensor<6x4xf32>, tensor<4x5xf32>)
// CHECK: linalg.transpose ins(%{{.+}} : tensor<2x3x5xf32>) outs(%{{.+}} : tensor<2x5x3xf32>) permutation = [0, 2, 1]
func.func @einsum_rows(%x: tensor<2x3x4xf32>, %w: tensor<4x5xf32>) -> tensor<2x5x3xf32> {
  %0 = telar.einsum %x, %w {equation = #telar.einsum<[b, s, d], [d, h] -> [b, h, s]>} : (tensor<2x3x4xf32>, tensor<4x5xf32>) -> tensor<2x5x3xf32>
  return %0 : tensor<2x5x3xf32>
}

// -----

// A diagonal: one generic whose input map repeats a loop.
// CHECK-DAG: #[[DIAG:.+]] = affine_map<(d0) -> (d0, d0)>
// CHECK-DAG: #[[ID:.+]] = affine_map<(d0) -> (d0)>
// CHECK-LABEL: func.func @einsum_diagonal
// CHECK: linalg.generic {indexing_maps = [#[[DIAG]], #[[ID]]], iterator_types = ["parallel"]}
func.func @einsum_diagonal(%a: tensor<3x3xf32>) -> tensor<3xf32> {
  %0 = telar.einsum %a {equation = #telar.einsum<[i, i] -> [i]>} : (tensor<3x3xf32>) -> tensor<3xf32>
  return %0 : tensor<3xf32>
}

// -----

// Three operands: one generic, output letters first, then the sums.
// CHECK-DAG: #[[A:.+]] = affine_map<(d0, d1, d2, d3) -> (d0, d2)>
// CHECK-DAG: #[[B:.+]] = affine_map<(d0, d1, d2, d3) -> (d2, d3)>
// CHECK-DAG: #[[C:.+]] = affine_map<(d0, d1, d2, d3) -> (d3, d1)>
// CHECK-DAG: #[[OUT:.+]] = affine_map<(d0, d1, d2, d3) -> (d0, d1)>
// CHECK-LABEL: func.func @einsum_chain
// CHECK: linalg.generic {indexing_maps = [#[[A]], #[[B]], #[[C]], #[[OUT]]], iterator_types = ["parallel", "parallel", "reduction", "reduction"]}
// CHECK: arith.mulf
// CHECK: arith.mulf
// CHECK: arith.addf
func.func @einsum_chain(%a: tensor<2x3xf32>, %b: tensor<3x4xf32>, %c: tensor<4x5xf32>) -> tensor<2x5xf32> {
  %0 = telar.einsum %a, %b, %c {equation = #telar.einsum<[i, j], [j, k], [k, l] -> [i, l]>} : (tensor<2x3xf32>, tensor<3x4xf32>, tensor<4x5xf32>) -> tensor<2x5xf32>
  return %0 : tensor<2x5xf32>
}

// -----

// 2-D convolution: explicit pads, the bias seeds the accumulator.
// CHECK-LABEL: func.func @conv2d
// CHECK: %[[PAD:.+]] = tensor.pad %{{.+}} low[0, 0, 1, 1] high[0, 0, 1, 1]
// CHECK: tensor<1x3x32x32xf32> to tensor<1x3x34x34xf32>
// CHECK: %[[BIAS:.+]] = linalg.broadcast ins(%{{.+}} : tensor<16xf32>) outs(%{{.+}} : tensor<1x16x16x16xf32>) dimensions = [0, 2, 3]
// CHECK: linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>} ins(%[[PAD]], %{{.+}} : tensor<1x3x34x34xf32>, tensor<16x3x3x3xf32>) outs(%[[BIAS]] : tensor<1x16x16x16xf32>)
func.func @conv2d(%x: tensor<1x3x32x32xf32>, %w: tensor<16x3x3x3xf32>, %b: tensor<16xf32>) -> tensor<1x16x16x16xf32> {
  %0 = telar.conv %x, %w, %b {strides = array<i64: 2, 2>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, group = 1 : i64} : (tensor<1x3x32x32xf32>, tensor<16x3x3x3xf32>, tensor<16xf32>) -> tensor<1x16x16x16xf32>
  return %0 : tensor<1x16x16x16xf32>
}

// -----

// Depthwise: the groups get their own loop in a generic.
// CHECK-DAG: #[[X:.+]] = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d0, d1, d5, d3 + d6, d4 + d7)>
// CHECK-DAG: #[[W:.+]] = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d1, d2, d5, d6, d7)>
// CHECK-DAG: #[[Y:.+]] = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d0, d1, d2, d3, d4)>
// CHECK-LABEL: func.func @conv_depthwise
// CHECK: tensor.expand_shape %{{.+}} output_shape [1, 8, 1, 10, 10]
// CHECK: linalg.generic {indexing_maps = [#[[X]], #[[W]], #[[Y]]], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]}
// CHECK: tensor.collapse_shape %{{.+}} : tensor<1x8x1x8x8xf32> into tensor<1x8x8x8xf32>
func.func @conv_depthwise(%x: tensor<1x8x10x10xf32>, %w: tensor<8x1x3x3xf32>) -> tensor<1x8x8x8xf32> {
  %0 = telar.conv %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, group = 8 : i64} : (tensor<1x8x10x10xf32>, tensor<8x1x3x3xf32>) -> tensor<1x8x8x8xf32>
  return %0 : tensor<1x8x8x8xf32>
}

// -----

// Transposed convolution: the input spread by the strides into a zero
// tensor, the kernel flipped with its channel axes swapped, then a
// stride-1 convolution.
// CHECK-DAG: #[[FLIP:.+]] = affine_map<(d0, d1, d2, d3) -> (d1, d0, -d2 + 2, -d3 + 2)>
// CHECK-LABEL: func.func @conv_transpose
// CHECK: %[[W:.+]] = linalg.generic {indexing_maps = [#[[FLIP]], {{.+}}]} ins(%{{.+}} : tensor<8x4x3x3xf32>) outs(%{{.+}} : tensor<4x8x3x3xf32>)
// CHECK: %[[X:.+]] = tensor.insert_slice %{{.+}} into %{{.+}}[0, 0, 1, 1] [1, 8, 4, 4] [1, 1, 2, 2] : tensor<1x8x4x4xf32> into tensor<1x8x10x10xf32>
// CHECK: linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%[[X]], %[[W]] : tensor<1x8x10x10xf32>, tensor<4x8x3x3xf32>)
func.func @conv_transpose(%x: tensor<1x8x4x4xf32>, %w: tensor<8x4x3x3xf32>) -> tensor<1x4x8x8xf32> {
  %0 = telar.conv_transpose %x, %w {strides = array<i64: 2, 2>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, output_padding = array<i64: 1, 1>, group = 1 : i64} : (tensor<1x8x4x4xf32>, tensor<8x4x3x3xf32>) -> tensor<1x4x8x8xf32>
  return %0 : tensor<1x4x8x8xf32>
}

// -----

// Max pooling pads with -inf; ceil_mode pads the end further.
// CHECK-LABEL: func.func @max_pool
// CHECK: %[[NINF:.+]] = arith.constant 0xFF800000 : f32
// CHECK: %[[PAD:.+]] = tensor.pad %{{.+}} low[0, 0, 1, 1] high[0, 0, 2, 2]
// CHECK: tensor.yield %[[NINF]] : f32
// CHECK: linalg.pooling_nchw_max {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>} ins(%[[PAD]], %{{.+}} : tensor<1x8x35x35xf32>, tensor<3x3xf32>) outs(%{{.+}} : tensor<1x8x17x17xf32>)
func.func @max_pool(%x: tensor<1x8x32x32xf32>) -> tensor<1x8x17x17xf32> {
  %0 = telar.max_pool %x {kernel_shape = array<i64: 3, 3>, strides = array<i64: 2, 2>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, ceil_mode = true} : (tensor<1x8x32x32xf32>) -> tensor<1x8x17x17xf32>
  return %0 : tensor<1x8x17x17xf32>
}

// -----

// Unsigned max pooling compares unsigned and pads with 0.
// CHECK-LABEL: func.func @max_pool_u8
// CHECK: arith.constant 0 : i8
// CHECK: linalg.generic
// CHECK: arith.maxui
func.func @max_pool_u8(%x: tensor<1x1x4x4xui8>) -> tensor<1x1x2x2xui8> {
  %0 = telar.max_pool %x {kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>} : (tensor<1x1x4x4xui8>) -> tensor<1x1x2x2xui8>
  return %0 : tensor<1x1x2x2xui8>
}

// -----

// Average pooling with full windows divides by the window size.
// CHECK-LABEL: func.func @average_pool
// CHECK: linalg.pooling_nchw_sum {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>}
// CHECK: arith.constant 4.000000e+00 : f32
// CHECK: arith.divf
func.func @average_pool(%x: tensor<1x8x32x32xf32>) -> tensor<1x8x16x16xf32> {
  %0 = telar.average_pool %x {kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>} : (tensor<1x8x32x32xf32>) -> tensor<1x8x16x16xf32>
  return %0 : tensor<1x8x16x16xf32>
}

// -----

// Without count_include_pad, border windows divide by their in-input count:
// one count vector per axis.
// CHECK-LABEL: func.func @average_pool_exclude_pad
// CHECK-DAG: arith.constant dense<[2.000000e+00, 3.000000e+00, 2.000000e+00]> : tensor<3xf32>
// CHECK-DAG: arith.constant dense<[2.000000e+00, 3.000000e+00, 3.000000e+00, 2.000000e+00]> : tensor<4xf32>
// CHECK: arith.mulf
// CHECK: arith.divf
func.func @average_pool_exclude_pad(%x: tensor<1x1x3x4xf32>) -> tensor<1x1x3x4xf32> {
  %0 = telar.average_pool %x {kernel_shape = array<i64: 3, 3>, strides = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>} : (tensor<1x1x3x4xf32>) -> tensor<1x1x3x4xf32>
  return %0 : tensor<1x1x3x4xf32>
}

// -----

// ONNX Einsum has no boolean form; nothing lowers it.
func.func @einsum_bool(%a: tensor<2x3xi1>, %b: tensor<3x2xi1>) -> tensor<2x2xi1> {
  // expected-error @+1 {{failed to legalize operation 'telar.einsum'}}
  %0 = telar.einsum %a, %b {equation = #telar.einsum<[i, j], [j, k] -> [i, k]>} : (tensor<2x3xi1>, tensor<3x2xi1>) -> tensor<2x2xi1>
  return %0 : tensor<2x2xi1>
}
