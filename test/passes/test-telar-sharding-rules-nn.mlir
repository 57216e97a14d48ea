// RUN: telar-opt %s -test-telar-sharding-rules -split-input-file -verify-diagnostics

func.func @gelu(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  // expected-remark @+1 {{([d0, d1]) -> ([d0, d1]) {parallel, parallel}}}
  %y = telar.gelu %x {approximate = "tanh"} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return %y : tensor<2x3xf32>
}

// -----

func.func @clip(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-remark @+1 {{([d0]) -> ([d0]) {parallel}}}
  %y = telar.clip %x {min = 0.0 : f64, max = 6.0 : f64} : (tensor<4xf32>) -> tensor<4xf32>
  return %y : tensor<4xf32>
}

// -----

func.func @lp_norm(%x: tensor<2x8xf32>) -> tensor<2x8xf32> {
  // expected-remark @+1 {{([d0, 0]) -> ([d0, 0]) {parallel}}}
  %y = telar.lp_norm %x {axis = 1 : i64, p = 1 : i64} : (tensor<2x8xf32>) -> tensor<2x8xf32>
  return %y : tensor<2x8xf32>
}

// -----

func.func @layer_norm(%x: tensor<2x16x64xf32>, %g: tensor<16x64xf32>, %b: tensor<64xf32>) -> tensor<2x16x64xf32> {
  // expected-remark @+1 {{([d0, 0, 0], [0, 0], [0]) -> ([d0, 0, 0]) {parallel}}}
  %y = telar.layer_norm %x, %g, %b {axis = -2 : i64} : (tensor<2x16x64xf32>, tensor<16x64xf32>, tensor<64xf32>) -> tensor<2x16x64xf32>
  return %y : tensor<2x16x64xf32>
}

// -----

func.func @layer_norm_no_bias_dynamic(%x: tensor<?x16x64xf32>, %g: tensor<64xf32>) -> tensor<?x16x64xf32> {
  // expected-remark @+1 {{([d0, d1, 0], [0]) -> ([d0, d1, 0]) {parallel, parallel}}}
  %y = telar.layer_norm %x, %g : (tensor<?x16x64xf32>, tensor<64xf32>) -> tensor<?x16x64xf32>
  return %y : tensor<?x16x64xf32>
}

// -----

// The result takes the scale's element type (ONNX RMSNormalization's V).
func.func @rms_norm(%x: tensor<2x16x64xf32>, %g: tensor<64xbf16>) -> tensor<2x16x64xbf16> {
  // expected-remark @+1 {{([d0, d1, 0], [0]) -> ([d0, d1, 0]) {parallel, parallel}}}
  %y = telar.rms_norm %x, %g {epsilon = 1.0e-06 : f32} : (tensor<2x16x64xf32>, tensor<64xbf16>) -> tensor<2x16x64xbf16>
  return %y : tensor<2x16x64xbf16>
}

// -----

func.func @batch_norm(%x: tensor<1x8x4x4xf32>, %s: tensor<8xf32>, %b: tensor<8xf32>, %m: tensor<8xf32>, %v: tensor<8xf32>) -> tensor<1x8x4x4xf32> {
  // expected-remark @+1 {{([d0, d1, d2, d3], [d1], [d1], [d1], [d1]) -> ([d0, d1, d2, d3]) {parallel, parallel, parallel, parallel}}}
  %y = telar.batch_norm %x, %s, %b, %m, %v {epsilon = 1.0e-05 : f32} : (tensor<1x8x4x4xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>) -> tensor<1x8x4x4xf32>
  return %y : tensor<1x8x4x4xf32>
}

// -----

func.func @instance_norm(%x: tensor<2x8x16xf32>, %s: tensor<8xf32>, %b: tensor<8xf32>) -> tensor<2x8x16xf32> {
  // expected-remark @+1 {{([d0, d1, 0], [d1], [d1]) -> ([d0, d1, 0]) {parallel, parallel}}}
  %y = telar.instance_norm %x, %s, %b : (tensor<2x8x16xf32>, tensor<8xf32>, tensor<8xf32>) -> tensor<2x8x16xf32>
  return %y : tensor<2x8x16xf32>
}

// -----

func.func @group_norm(%x: tensor<1x8x4x4xf32>, %s: tensor<8xf32>, %b: tensor<8xf32>) -> tensor<1x8x4x4xf32> {
  // expected-remark @+1 {{([d0, 0, 0, 0], [0], [0]) -> ([d0, 0, 0, 0]) {parallel}}}
  %y = telar.group_norm %x, %s, %b {num_groups = 2 : i64} : (tensor<1x8x4x4xf32>, tensor<8xf32>, tensor<8xf32>) -> tensor<1x8x4x4xf32>
  return %y : tensor<1x8x4x4xf32>
}

// -----

func.func @mean_variance_norm(%x: tensor<1x8x4x4xf32>) -> tensor<1x8x4x4xf32> {
  // expected-remark @+1 {{([0, d0, 0, 0]) -> ([0, d0, 0, 0]) {parallel}}}
  %y = telar.mean_variance_norm %x {axes = array<i64: 0, 2, -1>} : (tensor<1x8x4x4xf32>) -> tensor<1x8x4x4xf32>
  return %y : tensor<1x8x4x4xf32>
}

// -----

func.func @lrn(%x: tensor<1x8x4x4xf32>) -> tensor<1x8x4x4xf32> {
  // expected-remark @+1 {{([d0, 0, d1, d2]) -> ([d0, 0, d1, d2]) {parallel, parallel, parallel}}}
  %y = telar.lrn %x {size = 3 : i64} : (tensor<1x8x4x4xf32>) -> tensor<1x8x4x4xf32>
  return %y : tensor<1x8x4x4xf32>
}

// -----

func.func @matmul_batched(%a: tensor<4x16x64xf32>, %b: tensor<64x32xf32>) -> tensor<4x16x32xf32> {
  // expected-remark @+1 {{([d0, d1, d3], [d3, d2]) -> ([d0, d1, d2]) {parallel, parallel, parallel, reduction:sum}}}
  %c = telar.matmul %a, %b : (tensor<4x16x64xf32>, tensor<64x32xf32>) -> tensor<4x16x32xf32>
  return %c : tensor<4x16x32xf32>
}

// -----

// Batch dims broadcast both ways.
func.func @matmul_broadcast(%a: tensor<2x1x3x4xf32>, %b: tensor<5x4x6xf32>) -> tensor<2x5x3x6xf32> {
  // expected-remark @+1 {{([d0, 0, d2, d4], [d1, d4, d3]) -> ([d0, d1, d2, d3]) {parallel, parallel, parallel, parallel, reduction:sum}}}
  %c = telar.matmul %a, %b : (tensor<2x1x3x4xf32>, tensor<5x4x6xf32>) -> tensor<2x5x3x6xf32>
  return %c : tensor<2x5x3x6xf32>
}

// -----

func.func @matmul_vector_lhs(%a: tensor<64xf32>, %b: tensor<3x64x32xf32>) -> tensor<3x32xf32> {
  // expected-remark @+1 {{([d2], [d0, d2, d1]) -> ([d0, d1]) {parallel, parallel, reduction:sum}}}
  %c = telar.matmul %a, %b : (tensor<64xf32>, tensor<3x64x32xf32>) -> tensor<3x32xf32>
  return %c : tensor<3x32xf32>
}

// -----

func.func @matmul_dot(%a: tensor<64xi32>, %b: tensor<64xi32>) -> tensor<i32> {
  // expected-remark @+1 {{([d0], [d0]) -> ([]) {reduction:sum}}}
  %c = telar.matmul %a, %b : (tensor<64xi32>, tensor<64xi32>) -> tensor<i32>
  return %c : tensor<i32>
}

// -----

func.func @matmul_dynamic(%a: tensor<?x?x64xf32>, %b: tensor<?x32xf32>) -> tensor<?x?x32xf32> {
  // expected-remark @+1 {{([d0, d1, d3], [d3, d2]) -> ([d0, d1, d2]) {parallel, parallel, parallel, reduction:sum}}}
  %c = telar.matmul %a, %b : (tensor<?x?x64xf32>, tensor<?x32xf32>) -> tensor<?x?x32xf32>
  return %c : tensor<?x?x32xf32>
}

// -----

func.func @einsum(%x: tensor<2x8x16xf32>, %w: tensor<4x16x32xf32>) -> tensor<2x8x4x32xf32> {
  // expected-remark @+1 {{([d0, d1, d4], [d2, d4, d3]) -> ([d0, d1, d2, d3]) {parallel, parallel, parallel, parallel, reduction:sum}}}
  %y = telar.einsum %x, %w {equation = "bsd,edh->bseh"} : (tensor<2x8x16xf32>, tensor<4x16x32xf32>) -> tensor<2x8x4x32xf32>
  return %y : tensor<2x8x4x32xf32>
}

// -----

// Trace: a letter repeated in one input; spaces are ignored.
func.func @einsum_trace(%x: tensor<5x5xf32>) -> tensor<f32> {
  // expected-remark @+1 {{([d0, d0]) -> ([]) {reduction:sum}}}
  %y = telar.einsum %x {equation = "ii -> "} : (tensor<5x5xf32>) -> tensor<f32>
  return %y : tensor<f32>
}

// -----

func.func @conv(%x: tensor<1x3x32x32xf32>, %w: tensor<16x3x3x3xf32>, %b: tensor<16xf32>) -> tensor<1x16x16x16xf32> {
  // expected-remark @+1 {{([d0, d4, d2 * 2 + d5, d3 * 2 + d6], [d1, d4, d5, d6], [d1]) -> ([d0, d1, d2, d3]) {parallel, parallel, parallel, parallel, reduction:sum, reduction:sum, reduction:sum}}}
  %y = telar.conv %x, %w, %b {strides = array<i64: 2, 2>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, group = 1 : i64}
      : (tensor<1x3x32x32xf32>, tensor<16x3x3x3xf32>, tensor<16xf32>) -> tensor<1x16x16x16xf32>
  return %y : tensor<1x16x16x16xf32>
}

// -----

// Depthwise, 1-D, dilated, no bias.
func.func @conv_depthwise(%x: tensor<2x8x20xf32>, %w: tensor<16x1x3xf32>) -> tensor<2x16x16xf32> {
  // expected-remark @+1 {{([d0, d1 floordiv 2 + d3, d2 + d4 * 2], [d1, d3, d4]) -> ([d0, d1, d2]) {parallel, parallel, parallel, reduction:sum, reduction:sum}}}
  %y = telar.conv %x, %w {strides = array<i64: 1>, pads = array<i64: 0, 0>, dilations = array<i64: 2>, group = 8 : i64}
      : (tensor<2x8x20xf32>, tensor<16x1x3xf32>) -> tensor<2x16x16xf32>
  return %y : tensor<2x16x16xf32>
}

// -----

func.func @conv_dynamic(%x: tensor<?x3x?x32xf32>, %w: tensor<16x3x3x3xf32>) -> tensor<?x16x?x30xf32> {
  // expected-remark @+1 {{([d0, d4, d2 + d5, d3 + d6], [d1, d4, d5, d6]) -> ([d0, d1, d2, d3]) {parallel, parallel, parallel, parallel, reduction:sum, reduction:sum, reduction:sum}}}
  %y = telar.conv %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>}
      : (tensor<?x3x?x32xf32>, tensor<16x3x3x3xf32>) -> tensor<?x16x?x30xf32>
  return %y : tensor<?x16x?x30xf32>
}

// -----

func.func @conv_transpose(%x: tensor<1x8x4x4xf32>, %w: tensor<8x4x2x2xf32>) -> tensor<1x4x8x8xf32> {
  // expected-remark @+1 {{([d0, 0, 0, 0], [0, d1, 0, 0]) -> ([d0, d1, d2, d3]) {parallel, parallel, parallel, parallel}}}
  %y = telar.conv_transpose %x, %w {strides = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>,
                                    dilations = array<i64: 1, 1>, output_padding = array<i64: 0, 0>, group = 1 : i64}
      : (tensor<1x8x4x4xf32>, tensor<8x4x2x2xf32>) -> tensor<1x4x8x8xf32>
  return %y : tensor<1x4x8x8xf32>
}

// -----

// 2*(5-1) + 1 + ((3-1)*1+1) - 1 - 1 = 10 along the spatial axis; 3 x 2 groups = 6 channels.
func.func @conv_transpose_grouped(%x: tensor<1x4x5xf32>, %w: tensor<4x3x3xf32>, %b: tensor<6xf32>) -> tensor<1x6x10xf32> {
  // expected-remark @+1 {{([d0, 0, 0], [0, 0, 0], [0]) -> ([d0, d1, d2]) {parallel, parallel, parallel}}}
  %y = telar.conv_transpose %x, %w, %b {strides = array<i64: 2>, pads = array<i64: 1, 1>,
                                        dilations = array<i64: 1>, output_padding = array<i64: 1>, group = 2 : i64}
      : (tensor<1x4x5xf32>, tensor<4x3x3xf32>, tensor<6xf32>) -> tensor<1x6x10xf32>
  return %y : tensor<1x6x10xf32>
}

// -----

func.func @resize(%x: tensor<1x8x4x4xf32>) -> tensor<1x8x8x8xf32> {
  // expected-remark @+1 {{([d0, d1, 0, 0]) -> ([d0, d1, d2, d3]) {parallel, parallel, parallel, parallel}}}
  %y = telar.resize %x {scales = array<f32: 1.0, 1.0, 2.0, 2.0>, sizes = array<i64: 1, 8, 8, 8>,
                        mode = "nearest", coordinate_transformation_mode = "asymmetric",
                        nearest_mode = "floor"}
      : (tensor<1x8x4x4xf32>) -> tensor<1x8x8x8xf32>
  return %y : tensor<1x8x8x8xf32>
}

// -----

func.func @resize_linear(%x: tensor<2x3x10xf32>) -> tensor<2x3x5xf32> {
  // expected-remark @+1 {{([d0, d1, 0]) -> ([d0, d1, d2]) {parallel, parallel, parallel}}}
  %y = telar.resize %x {scales = array<f32: 1.0, 1.0, 0.5>, sizes = array<i64: 2, 3, 5>, mode = "linear"}
      : (tensor<2x3x10xf32>) -> tensor<2x3x5xf32>
  return %y : tensor<2x3x5xf32>
}

// -----

func.func @depth_to_space(%x: tensor<1x8x2x3xf32>) -> tensor<1x2x4x6xf32> {
  // expected-remark @+1 {{([d0, 0, 0, 0]) -> ([d0, d1, d2, d3]) {parallel, parallel, parallel, parallel}}}
  %y = telar.depth_to_space %x {blocksize = 2 : i64, mode = "CRD"} : (tensor<1x8x2x3xf32>) -> tensor<1x2x4x6xf32>
  return %y : tensor<1x2x4x6xf32>
}

// -----

func.func @space_to_depth(%x: tensor<?x2x4x6xf32>) -> tensor<?x8x2x3xf32> {
  // expected-remark @+1 {{([d0, 0, 0, 0]) -> ([d0, d1, d2, d3]) {parallel, parallel, parallel, parallel}}}
  %y = telar.space_to_depth %x {blocksize = 2 : i64} : (tensor<?x2x4x6xf32>) -> tensor<?x8x2x3xf32>
  return %y : tensor<?x8x2x3xf32>
}

// -----

func.func @rotary_embedding(%x: tensor<2x4x8x16xf32>, %cos: tensor<2x8x8xf32>, %sin: tensor<2x8x8xf32>) -> tensor<2x4x8x16xf32> {
  // expected-remark @+1 {{([d0, d1, d2, 0], [d0, d2, 0], [d0, d2, 0]) -> ([d0, d1, d2, 0]) {parallel, parallel, parallel}}}
  %y = telar.rotary_embedding %x, %cos, %sin {interleaved = false, rotary_embedding_dim = 0 : i64, num_heads = 0 : i64}
      : (tensor<2x4x8x16xf32>, tensor<2x8x8xf32>, tensor<2x8x8xf32>) -> tensor<2x4x8x16xf32>
  return %y : tensor<2x4x8x16xf32>
}

// -----

// [batch, seq, hidden] with num_heads, partial rotation, caches by position.
func.func @rotary_embedding_positions(%x: tensor<2x8x64xf16>, %cos: tensor<128x4xf16>, %sin: tensor<128x4xf16>, %pos: tensor<2x8xi64>) -> tensor<2x8x64xf16> {
  // expected-remark @+1 {{([d0, d1, 0], [0, 0], [0, 0], [d0, d1]) -> ([d0, d1, 0]) {parallel, parallel}}}
  %y = telar.rotary_embedding %x, %cos, %sin, %pos {interleaved = true, rotary_embedding_dim = 8 : i64, num_heads = 4 : i64}
      : (tensor<2x8x64xf16>, tensor<128x4xf16>, tensor<128x4xf16>, tensor<2x8xi64>) -> tensor<2x8x64xf16>
  return %y : tensor<2x8x64xf16>
}

// -----
// Grouped convolution: the input channel is the group of oc times the
// channels per group, plus ic.
func.func @conv_grouped(%x: tensor<1x4x8xf32>, %w: tensor<6x2x3xf32>) -> tensor<1x6x6xf32> {
  // expected-remark @+1 {{([d0, (d1 floordiv 3) * 2 + d3, d2 + d4], [d1, d3, d4]) -> ([d0, d1, d2]) {parallel, parallel, parallel, reduction:sum, reduction:sum}}}
  %y = telar.conv %x, %w {strides = array<i64: 1>, pads = array<i64: 0, 0>, dilations = array<i64: 1>, group = 2 : i64}
      : (tensor<1x4x8xf32>, tensor<6x2x3xf32>) -> tensor<1x6x6xf32>
  return %y : tensor<1x6x6xf32>
}

// -----

func.func @matmul_vector_rhs(%a: tensor<1x16x64xf32>, %b: tensor<64xf32>) -> tensor<1x16xf32> {
  // expected-remark @+1 {{([d0, d1, d2], [d2]) -> ([d0, d1]) {parallel, parallel, reduction:sum}}}
  %c = telar.matmul %a, %b : (tensor<1x16x64xf32>, tensor<64xf32>) -> tensor<1x16xf32>
  return %c : tensor<1x16xf32>
}

// -----

// Loops: output letters (i, l), then reduced letters by first appearance (j, k).
func.func @einsum_chain(%a: tensor<2x3xf32>, %b: tensor<3x4xf32>, %c: tensor<4x5xf32>) -> tensor<2x5xf32> {
  // expected-remark @+1 {{([d0, d2], [d2, d3], [d3, d1]) -> ([d0, d1]) {parallel, parallel, reduction:sum, reduction:sum}}}
  %y = telar.einsum %a, %b, %c {equation = "ij,jk,kl->il"} : (tensor<2x3xf32>, tensor<3x4xf32>, tensor<4x5xf32>) -> tensor<2x5xf32>
  return %y : tensor<2x5xf32>
}

// -----

// One channel per group: channels are parallel.
func.func @group_norm_per_channel(%x: tensor<2x8x16xf32>, %s: tensor<8xf32>) -> tensor<2x8x16xf32> {
  // expected-remark @+1 {{([d0, d1, 0], [d1], [d1]) -> ([d0, d1, 0]) {parallel, parallel}}}
  %y = telar.group_norm %x, %s, %s {num_groups = 8 : i64} : (tensor<2x8x16xf32>, tensor<8xf32>, tensor<8xf32>) -> tensor<2x8x16xf32>
  return %y : tensor<2x8x16xf32>
}

// -----

// Scale broadcasting over a leading size-1 axis maps it to 0.
func.func @rms_norm_broadcast_scale(%x: tensor<2x16x64xf32>, %g: tensor<1x1x64xf32>) -> tensor<2x16x64xf32> {
  // expected-remark @+1 {{([d0, d1, 0], [0, 0, 0]) -> ([d0, d1, 0]) {parallel, parallel}}}
  %y = telar.rms_norm %x, %g : (tensor<2x16x64xf32>, tensor<1x1x64xf32>) -> tensor<2x16x64xf32>
  return %y : tensor<2x16x64xf32>
}

// -----

// An axis that keeps its size but has scale != 1 is still resampled: whole.
func.func @resize_same_size(%x: tensor<2x4x8xf32>) -> tensor<2x4x8xf32> {
  // expected-remark @+1 {{([d0, 0, d2]) -> ([d0, d1, d2]) {parallel, parallel, parallel}}}
  %y = telar.resize %x {scales = array<f32: 1.0, 1.5, 1.0>, sizes = array<i64: 2, 4, 8>, mode = "linear"}
      : (tensor<2x4x8xf32>) -> tensor<2x4x8xf32>
  return %y : tensor<2x4x8xf32>
}

// -----

// Caches shared across the batch (batch 1) are not indexed by the batch loop.
func.func @rotary_embedding_shared_cache(%x: tensor<2x4x8x16xf32>, %c: tensor<1x8x8xf32>) -> tensor<2x4x8x16xf32> {
  // expected-remark @+1 {{([d0, d1, d2, 0], [0, d2, 0], [0, d2, 0]) -> ([d0, d1, d2, 0]) {parallel, parallel, parallel}}}
  %y = telar.rotary_embedding %x, %c, %c : (tensor<2x4x8x16xf32>, tensor<1x8x8xf32>, tensor<1x8x8xf32>) -> tensor<2x4x8x16xf32>
  return %y : tensor<2x4x8x16xf32>
}
