// RUN: telar-opt %s | telar-opt | FileCheck %s

// CHECK-LABEL: func @gelu
// CHECK: telar.gelu %{{.*}} {approximate = "tanh"} : (tensor<2x3xf32>) -> tensor<2x3xf32>
func.func @gelu(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %y = telar.gelu %x {approximate = "tanh"} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return %y : tensor<2x3xf32>
}

// -----

// CHECK-LABEL: func @clip
// CHECK: telar.clip %{{.*}} {max = 6.000000e+00 : f64, min = 0.000000e+00 : f64} : (tensor<4xf32>) -> tensor<4xf32>
func.func @clip(%x: tensor<4xf32>) -> tensor<4xf32> {
  %y = telar.clip %x {min = 0.0 : f64, max = 6.0 : f64} : (tensor<4xf32>) -> tensor<4xf32>
  return %y : tensor<4xf32>
}

// -----

// CHECK-LABEL: func @lp_norm
// CHECK: telar.lp_norm %{{.*}} {axis = 1 : i64, p = 1 : i64} : (tensor<2x8xf32>) -> tensor<2x8xf32>
func.func @lp_norm(%x: tensor<2x8xf32>) -> tensor<2x8xf32> {
  %y = telar.lp_norm %x {axis = 1 : i64, p = 1 : i64} : (tensor<2x8xf32>) -> tensor<2x8xf32>
  return %y : tensor<2x8xf32>
}

// -----

// CHECK-LABEL: func @layer_norm
// CHECK: telar.layer_norm %{{.*}}, %{{.*}}, %{{.*}} {axis = -2 : i64} : (tensor<2x16x64xf32>, tensor<16x64xf32>, tensor<64xf32>) -> tensor<2x16x64xf32>
func.func @layer_norm(%x: tensor<2x16x64xf32>, %g: tensor<16x64xf32>, %b: tensor<64xf32>) -> tensor<2x16x64xf32> {
  %y = telar.layer_norm %x, %g, %b {axis = -2 : i64} : (tensor<2x16x64xf32>, tensor<16x64xf32>, tensor<64xf32>) -> tensor<2x16x64xf32>
  return %y : tensor<2x16x64xf32>
}

// -----

// CHECK-LABEL: func @layer_norm_no_bias_dynamic
// CHECK: telar.layer_norm %{{.*}}, %{{.*}} : (tensor<?x16x64xf32>, tensor<64xf32>) -> tensor<?x16x64xf32>
func.func @layer_norm_no_bias_dynamic(%x: tensor<?x16x64xf32>, %g: tensor<64xf32>) -> tensor<?x16x64xf32> {
  %y = telar.layer_norm %x, %g : (tensor<?x16x64xf32>, tensor<64xf32>) -> tensor<?x16x64xf32>
  return %y : tensor<?x16x64xf32>
}

// -----

// The result takes the scale's element type (ONNX RMSNormalization's V).
// CHECK-LABEL: func @rms_norm
// CHECK: telar.rms_norm %{{.*}}, %{{.*}} {epsilon = 9.99999997E-7 : f32} : (tensor<2x16x64xf32>, tensor<64xbf16>) -> tensor<2x16x64xbf16>
func.func @rms_norm(%x: tensor<2x16x64xf32>, %g: tensor<64xbf16>) -> tensor<2x16x64xbf16> {
  %y = telar.rms_norm %x, %g {epsilon = 1.0e-06 : f32} : (tensor<2x16x64xf32>, tensor<64xbf16>) -> tensor<2x16x64xbf16>
  return %y : tensor<2x16x64xbf16>
}

// -----

// CHECK-LABEL: func @batch_norm
// CHECK: telar.batch_norm %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} : (tensor<1x8x4x4xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>) -> tensor<1x8x4x4xf32>
func.func @batch_norm(%x: tensor<1x8x4x4xf32>, %s: tensor<8xf32>, %b: tensor<8xf32>, %m: tensor<8xf32>, %v: tensor<8xf32>) -> tensor<1x8x4x4xf32> {
  %y = telar.batch_norm %x, %s, %b, %m, %v {epsilon = 1.0e-05 : f32} : (tensor<1x8x4x4xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>) -> tensor<1x8x4x4xf32>
  return %y : tensor<1x8x4x4xf32>
}

// -----

// CHECK-LABEL: func @instance_norm
// CHECK: telar.instance_norm %{{.*}}, %{{.*}}, %{{.*}} : (tensor<2x8x16xf32>, tensor<8xf32>, tensor<8xf32>) -> tensor<2x8x16xf32>
func.func @instance_norm(%x: tensor<2x8x16xf32>, %s: tensor<8xf32>, %b: tensor<8xf32>) -> tensor<2x8x16xf32> {
  %y = telar.instance_norm %x, %s, %b : (tensor<2x8x16xf32>, tensor<8xf32>, tensor<8xf32>) -> tensor<2x8x16xf32>
  return %y : tensor<2x8x16xf32>
}

// -----

// CHECK-LABEL: func @group_norm
// CHECK: telar.group_norm %{{.*}}, %{{.*}}, %{{.*}} {num_groups = 2 : i64} : (tensor<1x8x4x4xf32>, tensor<8xf32>, tensor<8xf32>) -> tensor<1x8x4x4xf32>
func.func @group_norm(%x: tensor<1x8x4x4xf32>, %s: tensor<8xf32>, %b: tensor<8xf32>) -> tensor<1x8x4x4xf32> {
  %y = telar.group_norm %x, %s, %b {num_groups = 2 : i64} : (tensor<1x8x4x4xf32>, tensor<8xf32>, tensor<8xf32>) -> tensor<1x8x4x4xf32>
  return %y : tensor<1x8x4x4xf32>
}

// -----

// CHECK-LABEL: func @mean_variance_norm
// CHECK: telar.mean_variance_norm %{{.*}} {axes = array<i64: 0, 2, -1>} : (tensor<1x8x4x4xf32>) -> tensor<1x8x4x4xf32>
func.func @mean_variance_norm(%x: tensor<1x8x4x4xf32>) -> tensor<1x8x4x4xf32> {
  %y = telar.mean_variance_norm %x {axes = array<i64: 0, 2, -1>} : (tensor<1x8x4x4xf32>) -> tensor<1x8x4x4xf32>
  return %y : tensor<1x8x4x4xf32>
}

// -----

// CHECK-LABEL: func @lrn
// CHECK: telar.lrn %{{.*}} {size = 3 : i64} : (tensor<1x8x4x4xf32>) -> tensor<1x8x4x4xf32>
func.func @lrn(%x: tensor<1x8x4x4xf32>) -> tensor<1x8x4x4xf32> {
  %y = telar.lrn %x {size = 3 : i64} : (tensor<1x8x4x4xf32>) -> tensor<1x8x4x4xf32>
  return %y : tensor<1x8x4x4xf32>
}

// -----

// CHECK-LABEL: func @matmul_batched
// CHECK: telar.matmul %{{.*}}, %{{.*}} : (tensor<4x16x64xf32>, tensor<64x32xf32>) -> tensor<4x16x32xf32>
func.func @matmul_batched(%a: tensor<4x16x64xf32>, %b: tensor<64x32xf32>) -> tensor<4x16x32xf32> {
  %c = telar.matmul %a, %b : (tensor<4x16x64xf32>, tensor<64x32xf32>) -> tensor<4x16x32xf32>
  return %c : tensor<4x16x32xf32>
}

// -----

// Batch dims broadcast both ways.
// CHECK-LABEL: func @matmul_broadcast
// CHECK: telar.matmul %{{.*}}, %{{.*}} : (tensor<2x1x3x4xf32>, tensor<5x4x6xf32>) -> tensor<2x5x3x6xf32>
func.func @matmul_broadcast(%a: tensor<2x1x3x4xf32>, %b: tensor<5x4x6xf32>) -> tensor<2x5x3x6xf32> {
  %c = telar.matmul %a, %b : (tensor<2x1x3x4xf32>, tensor<5x4x6xf32>) -> tensor<2x5x3x6xf32>
  return %c : tensor<2x5x3x6xf32>
}

// -----

// CHECK-LABEL: func @matmul_vector_lhs
// CHECK: telar.matmul %{{.*}}, %{{.*}} : (tensor<64xf32>, tensor<3x64x32xf32>) -> tensor<3x32xf32>
func.func @matmul_vector_lhs(%a: tensor<64xf32>, %b: tensor<3x64x32xf32>) -> tensor<3x32xf32> {
  %c = telar.matmul %a, %b : (tensor<64xf32>, tensor<3x64x32xf32>) -> tensor<3x32xf32>
  return %c : tensor<3x32xf32>
}

// -----

// CHECK-LABEL: func @matmul_dot
// CHECK: telar.matmul %{{.*}}, %{{.*}} : (tensor<64xi32>, tensor<64xi32>) -> tensor<i32>
func.func @matmul_dot(%a: tensor<64xi32>, %b: tensor<64xi32>) -> tensor<i32> {
  %c = telar.matmul %a, %b : (tensor<64xi32>, tensor<64xi32>) -> tensor<i32>
  return %c : tensor<i32>
}

// -----

// CHECK-LABEL: func @matmul_dynamic
// CHECK: telar.matmul %{{.*}}, %{{.*}} : (tensor<?x?x64xf32>, tensor<?x32xf32>) -> tensor<?x?x32xf32>
func.func @matmul_dynamic(%a: tensor<?x?x64xf32>, %b: tensor<?x32xf32>) -> tensor<?x?x32xf32> {
  %c = telar.matmul %a, %b : (tensor<?x?x64xf32>, tensor<?x32xf32>) -> tensor<?x?x32xf32>
  return %c : tensor<?x?x32xf32>
}

// -----

// CHECK-LABEL: func @einsum
// CHECK: telar.einsum %{{.*}}, %{{.*}} {equation = #telar.einsum<[b, s, d], [e, d, h] -> [b, s, e, h]>} : (tensor<2x8x16xf32>, tensor<4x16x32xf32>) -> tensor<2x8x4x32xf32>
func.func @einsum(%x: tensor<2x8x16xf32>, %w: tensor<4x16x32xf32>) -> tensor<2x8x4x32xf32> {
  %y = telar.einsum %x, %w {equation = #telar.einsum<[b, s, d], [e, d, h] -> [b, s, e, h]>} : (tensor<2x8x16xf32>, tensor<4x16x32xf32>) -> tensor<2x8x4x32xf32>
  return %y : tensor<2x8x4x32xf32>
}

// -----

// Trace: a letter repeated in one input; spaces are ignored.
// CHECK-LABEL: func @einsum_trace
// CHECK: telar.einsum %{{.*}} {equation = #telar.einsum<[i, i] -> []>} : (tensor<5x5xf32>) -> tensor<f32>
func.func @einsum_trace(%x: tensor<5x5xf32>) -> tensor<f32> {
  %y = telar.einsum %x {equation = #telar.einsum<[i, i] -> []>} : (tensor<5x5xf32>) -> tensor<f32>
  return %y : tensor<f32>
}

// -----

// CHECK-LABEL: func @conv
// CHECK: telar.conv %{{.*}}, %{{.*}}, %{{.*}} {dilations = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>} : (tensor<1x3x32x32xf32>, tensor<16x3x3x3xf32>, tensor<16xf32>) -> tensor<1x16x16x16xf32>
func.func @conv(%x: tensor<1x3x32x32xf32>, %w: tensor<16x3x3x3xf32>, %b: tensor<16xf32>) -> tensor<1x16x16x16xf32> {
  %y = telar.conv %x, %w, %b {strides = array<i64: 2, 2>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, group = 1 : i64}
      : (tensor<1x3x32x32xf32>, tensor<16x3x3x3xf32>, tensor<16xf32>) -> tensor<1x16x16x16xf32>
  return %y : tensor<1x16x16x16xf32>
}

// -----

// Depthwise, 1-D, dilated, no bias.
// CHECK-LABEL: func @conv_depthwise
// CHECK: telar.conv %{{.*}}, %{{.*}} {dilations = array<i64: 2>, group = 8 : i64, pads = array<i64: 0, 0>, strides = array<i64: 1>} : (tensor<2x8x20xf32>, tensor<16x1x3xf32>) -> tensor<2x16x16xf32>
func.func @conv_depthwise(%x: tensor<2x8x20xf32>, %w: tensor<16x1x3xf32>) -> tensor<2x16x16xf32> {
  %y = telar.conv %x, %w {strides = array<i64: 1>, pads = array<i64: 0, 0>, dilations = array<i64: 2>, group = 8 : i64}
      : (tensor<2x8x20xf32>, tensor<16x1x3xf32>) -> tensor<2x16x16xf32>
  return %y : tensor<2x16x16xf32>
}

// -----

// CHECK-LABEL: func @conv_dynamic
// CHECK: telar.conv %{{.*}}, %{{.*}} {{.*}} : (tensor<?x3x?x32xf32>, tensor<16x3x3x3xf32>) -> tensor<?x16x?x30xf32>
func.func @conv_dynamic(%x: tensor<?x3x?x32xf32>, %w: tensor<16x3x3x3xf32>) -> tensor<?x16x?x30xf32> {
  %y = telar.conv %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>}
      : (tensor<?x3x?x32xf32>, tensor<16x3x3x3xf32>) -> tensor<?x16x?x30xf32>
  return %y : tensor<?x16x?x30xf32>
}

// -----

// CHECK-LABEL: func @conv_transpose
// CHECK: telar.conv_transpose %{{.*}}, %{{.*}} {{.*}} : (tensor<1x8x4x4xf32>, tensor<8x4x2x2xf32>) -> tensor<1x4x8x8xf32>
func.func @conv_transpose(%x: tensor<1x8x4x4xf32>, %w: tensor<8x4x2x2xf32>) -> tensor<1x4x8x8xf32> {
  %y = telar.conv_transpose %x, %w {strides = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>,
                                    dilations = array<i64: 1, 1>, output_padding = array<i64: 0, 0>, group = 1 : i64}
      : (tensor<1x8x4x4xf32>, tensor<8x4x2x2xf32>) -> tensor<1x4x8x8xf32>
  return %y : tensor<1x4x8x8xf32>
}

// -----

// 2*(5-1) + 1 + ((3-1)*1+1) - 1 - 1 = 10 along the spatial axis; 3 x 2 groups = 6 channels.
// CHECK-LABEL: func @conv_transpose_grouped
// CHECK: telar.conv_transpose %{{.*}}, %{{.*}}, %{{.*}} {{.*}} : (tensor<1x4x5xf32>, tensor<4x3x3xf32>, tensor<6xf32>) -> tensor<1x6x10xf32>
func.func @conv_transpose_grouped(%x: tensor<1x4x5xf32>, %w: tensor<4x3x3xf32>, %b: tensor<6xf32>) -> tensor<1x6x10xf32> {
  %y = telar.conv_transpose %x, %w, %b {strides = array<i64: 2>, pads = array<i64: 1, 1>,
                                        dilations = array<i64: 1>, output_padding = array<i64: 1>, group = 2 : i64}
      : (tensor<1x4x5xf32>, tensor<4x3x3xf32>, tensor<6xf32>) -> tensor<1x6x10xf32>
  return %y : tensor<1x6x10xf32>
}

// -----

// CHECK-LABEL: func @resize
// CHECK: telar.resize %{{.*}} {{.*}}sizes = array<i64: 1, 8, 8, 8>{{.*}} : (tensor<1x8x4x4xf32>) -> tensor<1x8x8x8xf32>
func.func @resize(%x: tensor<1x8x4x4xf32>) -> tensor<1x8x8x8xf32> {
  %y = telar.resize %x {scales = array<f32: 1.0, 1.0, 2.0, 2.0>, sizes = array<i64: 1, 8, 8, 8>,
                        mode = "nearest", coordinate_transformation_mode = "asymmetric",
                        nearest_mode = "floor"}
      : (tensor<1x8x4x4xf32>) -> tensor<1x8x8x8xf32>
  return %y : tensor<1x8x8x8xf32>
}

// -----

// CHECK-LABEL: func @resize_linear
// CHECK: telar.resize %{{.*}} {{.*}}mode = "linear"{{.*}} : (tensor<2x3x10xf32>) -> tensor<2x3x5xf32>
func.func @resize_linear(%x: tensor<2x3x10xf32>) -> tensor<2x3x5xf32> {
  %y = telar.resize %x {scales = array<f32: 1.0, 1.0, 0.5>, sizes = array<i64: 2, 3, 5>, mode = "linear"}
      : (tensor<2x3x10xf32>) -> tensor<2x3x5xf32>
  return %y : tensor<2x3x5xf32>
}

// -----

// CHECK-LABEL: func @depth_to_space
// CHECK: telar.depth_to_space %{{.*}} {blocksize = 2 : i64, mode = "CRD"} : (tensor<1x8x2x3xf32>) -> tensor<1x2x4x6xf32>
func.func @depth_to_space(%x: tensor<1x8x2x3xf32>) -> tensor<1x2x4x6xf32> {
  %y = telar.depth_to_space %x {blocksize = 2 : i64, mode = "CRD"} : (tensor<1x8x2x3xf32>) -> tensor<1x2x4x6xf32>
  return %y : tensor<1x2x4x6xf32>
}

// -----

// CHECK-LABEL: func @space_to_depth
// CHECK: telar.space_to_depth %{{.*}} {blocksize = 2 : i64} : (tensor<?x2x4x6xf32>) -> tensor<?x8x2x3xf32>
func.func @space_to_depth(%x: tensor<?x2x4x6xf32>) -> tensor<?x8x2x3xf32> {
  %y = telar.space_to_depth %x {blocksize = 2 : i64} : (tensor<?x2x4x6xf32>) -> tensor<?x8x2x3xf32>
  return %y : tensor<?x8x2x3xf32>
}

// -----

// CHECK-LABEL: func @rotary_embedding
// CHECK: telar.rotary_embedding %{{.*}}, %{{.*}}, %{{.*}} : (tensor<2x4x8x16xf32>, tensor<2x8x8xf32>, tensor<2x8x8xf32>) -> tensor<2x4x8x16xf32>
func.func @rotary_embedding(%x: tensor<2x4x8x16xf32>, %cos: tensor<2x8x8xf32>, %sin: tensor<2x8x8xf32>) -> tensor<2x4x8x16xf32> {
  %y = telar.rotary_embedding %x, %cos, %sin {interleaved = false, rotary_embedding_dim = 0 : i64, num_heads = 0 : i64}
      : (tensor<2x4x8x16xf32>, tensor<2x8x8xf32>, tensor<2x8x8xf32>) -> tensor<2x4x8x16xf32>
  return %y : tensor<2x4x8x16xf32>
}

// -----

// [batch, seq, hidden] with num_heads, partial rotation, caches by position.
// CHECK-LABEL: func @rotary_embedding_positions
// CHECK: telar.rotary_embedding %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} {interleaved = true, num_heads = 4 : i64, rotary_embedding_dim = 8 : i64} : (tensor<2x8x64xf16>, tensor<128x4xf16>, tensor<128x4xf16>, tensor<2x8xi64>) -> tensor<2x8x64xf16>
func.func @rotary_embedding_positions(%x: tensor<2x8x64xf16>, %cos: tensor<128x4xf16>, %sin: tensor<128x4xf16>, %pos: tensor<2x8xi64>) -> tensor<2x8x64xf16> {
  %y = telar.rotary_embedding %x, %cos, %sin, %pos {interleaved = true, rotary_embedding_dim = 8 : i64, num_heads = 4 : i64}
      : (tensor<2x8x64xf16>, tensor<128x4xf16>, tensor<128x4xf16>, tensor<2x8xi64>) -> tensor<2x8x64xf16>
  return %y : tensor<2x8x64xf16>
}

// -----

// Partial rotation (rotary_embedding_dim 4 < head size 8): the caches may
// hold rotary_embedding_dim / 2 or head_size / 2 angles (ONNX's node tests
// use the latter; the first rotary_embedding_dim / 2 are used).
// CHECK-LABEL: func @rotary_embedding_partial
func.func @rotary_embedding_partial(%x: tensor<2x3x4x8xf32>, %c2: tensor<2x4x2xf32>, %c4: tensor<50x4xf32>, %pos: tensor<2x4xi64>) -> (tensor<2x3x4x8xf32>, tensor<2x3x4x8xf32>) {
  // CHECK: telar.rotary_embedding {{.*}} : (tensor<2x3x4x8xf32>, tensor<2x4x2xf32>, tensor<2x4x2xf32>) -> tensor<2x3x4x8xf32>
  %0 = telar.rotary_embedding %x, %c2, %c2 {rotary_embedding_dim = 4 : i64}
      : (tensor<2x3x4x8xf32>, tensor<2x4x2xf32>, tensor<2x4x2xf32>) -> tensor<2x3x4x8xf32>
  // CHECK: telar.rotary_embedding {{.*}} : (tensor<2x3x4x8xf32>, tensor<50x4xf32>, tensor<50x4xf32>, tensor<2x4xi64>) -> tensor<2x3x4x8xf32>
  %1 = telar.rotary_embedding %x, %c4, %c4, %pos {rotary_embedding_dim = 4 : i64}
      : (tensor<2x3x4x8xf32>, tensor<50x4xf32>, tensor<50x4xf32>, tensor<2x4xi64>) -> tensor<2x3x4x8xf32>
  return %0, %1 : tensor<2x3x4x8xf32>, tensor<2x3x4x8xf32>
}

// -----

// min > max is valid, as in ONNX (every element becomes max).
// CHECK-LABEL: func @clip_min_above_max
// CHECK: telar.clip %{{.*}} {max = 1.000000e+00 : f64, min = 2.000000e+00 : f64}
func.func @clip_min_above_max(%x: tensor<4xf32>) -> tensor<4xf32> {
  %y = telar.clip %x {min = 2.0 : f64, max = 1.0 : f64} : (tensor<4xf32>) -> tensor<4xf32>
  return %y : tensor<4xf32>
}
