// RUN: telar-opt %s -test-telar-sharding-rules -split-input-file -verify-diagnostics
// Every printed rule parses back and prints the same:
// RUN: telar-opt %s -split-input-file -test-telar-sharding-rules 2>&1 >/dev/null | sed -n 's/^.*remark: //p' > %t.printed
// RUN: sed 's/.*/"test.rule"() {rule = &} : () -> ()/' %t.printed | telar-opt --allow-unregistered-dialect | sed -n 's/^ *"test.rule"() {rule = \(.*\)} : () -> ()$/\1/p' | diff %t.printed -
// RUN: grep -q '^#telar.sharding_rule<' %t.printed

func.func @gelu(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  // expected-remark @+1 {{#telar.sharding_rule<([i, j]) -> ([i, j]) {i=2, j=3}>}}
  %y = telar.gelu %x {approximate = "tanh"} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return %y : tensor<2x3xf32>
}

// -----

func.func @clip(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-remark @+1 {{#telar.sharding_rule<([i]) -> ([i]) {i=4}>}}
  %y = telar.clip %x {min = 0.0 : f64, max = 6.0 : f64} : (tensor<4xf32>) -> tensor<4xf32>
  return %y : tensor<4xf32>
}

// -----

func.func @lp_norm(%x: tensor<2x8xf32>) -> tensor<2x8xf32> {
  // expected-remark @+1 {{#telar.sharding_rule<([i, j]) -> ([i, j]) {i=2, j=8} need_replication={j}>}}
  %y = telar.lp_norm %x {axis = 1 : i64, p = 1 : i64} : (tensor<2x8xf32>) -> tensor<2x8xf32>
  return %y : tensor<2x8xf32>
}

// -----

func.func @layer_norm(%x: tensor<2x16x64xf32>, %g: tensor<16x64xf32>, %b: tensor<64xf32>) -> tensor<2x16x64xf32> {
  // expected-remark @+1 {{#telar.sharding_rule<([i, j, k], [j, k], [k]) -> ([i, j, k]) {i=2, j=16, k=64} need_replication={j, k}>}}
  %y = telar.layer_norm %x, %g, %b {axis = -2 : i64} : (tensor<2x16x64xf32>, tensor<16x64xf32>, tensor<64xf32>) -> tensor<2x16x64xf32>
  return %y : tensor<2x16x64xf32>
}

// -----

func.func @layer_norm_no_bias_dynamic(%x: tensor<?x16x64xf32>, %g: tensor<64xf32>) -> tensor<?x16x64xf32> {
  // expected-remark @+1 {{#telar.sharding_rule<([i, j, k], [k]) -> ([i, j, k]) {i=?, j=16, k=64} need_replication={k}>}}
  %y = telar.layer_norm %x, %g : (tensor<?x16x64xf32>, tensor<64xf32>) -> tensor<?x16x64xf32>
  return %y : tensor<?x16x64xf32>
}

// -----

// The result takes the scale's element type (ONNX RMSNormalization's V).
func.func @rms_norm(%x: tensor<2x16x64xf32>, %g: tensor<64xbf16>) -> tensor<2x16x64xbf16> {
  // expected-remark @+1 {{#telar.sharding_rule<([i, j, k], [k]) -> ([i, j, k]) {i=2, j=16, k=64} need_replication={k}>}}
  %y = telar.rms_norm %x, %g {epsilon = 1.0e-06 : f32} : (tensor<2x16x64xf32>, tensor<64xbf16>) -> tensor<2x16x64xbf16>
  return %y : tensor<2x16x64xbf16>
}

// -----

func.func @batch_norm(%x: tensor<1x8x4x4xf32>, %s: tensor<8xf32>, %b: tensor<8xf32>, %m: tensor<8xf32>, %v: tensor<8xf32>) -> tensor<1x8x4x4xf32> {
  // expected-remark @+1 {{#telar.sharding_rule<([i, j, k, l], [j], [j], [j], [j]) -> ([i, j, k, l]) {i=1, j=8, k=4, l=4}>}}
  %y = telar.batch_norm %x, %s, %b, %m, %v {epsilon = 1.0e-05 : f32} : (tensor<1x8x4x4xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>) -> tensor<1x8x4x4xf32>
  return %y : tensor<1x8x4x4xf32>
}

// -----

func.func @instance_norm(%x: tensor<2x8x16xf32>, %s: tensor<8xf32>, %b: tensor<8xf32>) -> tensor<2x8x16xf32> {
  // expected-remark @+1 {{#telar.sharding_rule<([i, j, k], [j], [j]) -> ([i, j, k]) {i=2, j=8, k=16} need_replication={k}>}}
  %y = telar.instance_norm %x, %s, %b : (tensor<2x8x16xf32>, tensor<8xf32>, tensor<8xf32>) -> tensor<2x8x16xf32>
  return %y : tensor<2x8x16xf32>
}

// -----

func.func @group_norm(%x: tensor<1x8x4x4xf32>, %s: tensor<8xf32>, %b: tensor<8xf32>) -> tensor<1x8x4x4xf32> {
  // expected-remark @+1 {{#telar.sharding_rule<([i, (j, k), l, m], [(j, k)], [(j, k)]) -> ([i, (j, k), l, m]) {i=1, j=2, k=4, l=4, m=4} need_replication={k, l, m}>}}
  %y = telar.group_norm %x, %s, %b {num_groups = 2 : i64} : (tensor<1x8x4x4xf32>, tensor<8xf32>, tensor<8xf32>) -> tensor<1x8x4x4xf32>
  return %y : tensor<1x8x4x4xf32>
}

// -----

func.func @mean_variance_norm(%x: tensor<1x8x4x4xf32>) -> tensor<1x8x4x4xf32> {
  // expected-remark @+1 {{#telar.sharding_rule<([i, j, k, l]) -> ([i, j, k, l]) {i=1, j=8, k=4, l=4} need_replication={i, k, l}>}}
  %y = telar.mean_variance_norm %x {axes = array<i64: 0, 2, -1>} : (tensor<1x8x4x4xf32>) -> tensor<1x8x4x4xf32>
  return %y : tensor<1x8x4x4xf32>
}

// -----

func.func @lrn(%x: tensor<1x8x4x4xf32>) -> tensor<1x8x4x4xf32> {
  // expected-remark @+1 {{#telar.sharding_rule<([i, j, k, l]) -> ([i, j, k, l]) {i=1, j=8, k=4, l=4} need_replication={j}>}}
  %y = telar.lrn %x {size = 3 : i64} : (tensor<1x8x4x4xf32>) -> tensor<1x8x4x4xf32>
  return %y : tensor<1x8x4x4xf32>
}

// -----

func.func @matmul_batched(%a: tensor<4x16x64xf32>, %b: tensor<64x32xf32>) -> tensor<4x16x32xf32> {
  // expected-remark @+1 {{#telar.sharding_rule<([i, j, k], [k, l]) -> ([i, j, l]) {i=4, j=16, k=64, l=32} reduction={k:sum} partial_one={0:sum, 1:sum}>}}
  %c = telar.matmul %a, %b : (tensor<4x16x64xf32>, tensor<64x32xf32>) -> tensor<4x16x32xf32>
  return %c : tensor<4x16x32xf32>
}

// -----

// Batch dims broadcast both ways.
func.func @matmul_broadcast(%a: tensor<2x1x3x4xf32>, %b: tensor<5x4x6xf32>) -> tensor<2x5x3x6xf32> {
  // expected-remark @+1 {{#telar.sharding_rule<([i, bcast(j), k, l], [j, l, m]) -> ([i, j, k, m]) {i=2, j=5, k=3, l=4, m=6} reduction={l:sum} partial_one={0:sum, 1:sum}>}}
  %c = telar.matmul %a, %b : (tensor<2x1x3x4xf32>, tensor<5x4x6xf32>) -> tensor<2x5x3x6xf32>
  return %c : tensor<2x5x3x6xf32>
}

// -----

func.func @matmul_vector_lhs(%a: tensor<64xf32>, %b: tensor<3x64x32xf32>) -> tensor<3x32xf32> {
  // expected-remark @+1 {{#telar.sharding_rule<([i], [j, i, k]) -> ([j, k]) {i=64, j=3, k=32} reduction={i:sum} partial_one={0:sum, 1:sum}>}}
  %c = telar.matmul %a, %b : (tensor<64xf32>, tensor<3x64x32xf32>) -> tensor<3x32xf32>
  return %c : tensor<3x32xf32>
}

// -----

func.func @matmul_dot(%a: tensor<64xi32>, %b: tensor<64xi32>) -> tensor<i32> {
  // expected-remark @+1 {{#telar.sharding_rule<([i], [i]) -> ([]) {i=64} reduction={i:sum} partial_one={0:sum, 1:sum}>}}
  %c = telar.matmul %a, %b : (tensor<64xi32>, tensor<64xi32>) -> tensor<i32>
  return %c : tensor<i32>
}

// -----

func.func @matmul_dynamic(%a: tensor<?x?x64xf32>, %b: tensor<?x32xf32>) -> tensor<?x?x32xf32> {
  // expected-remark @+1 {{#telar.sharding_rule<([i, j, k], [k, l]) -> ([i, j, l]) {i=?, j=?, k=64, l=32} reduction={k:sum} partial_one={0:sum, 1:sum}>}}
  %c = telar.matmul %a, %b : (tensor<?x?x64xf32>, tensor<?x32xf32>) -> tensor<?x?x32xf32>
  return %c : tensor<?x?x32xf32>
}

// -----

func.func @einsum(%x: tensor<2x8x16xf32>, %w: tensor<4x16x32xf32>) -> tensor<2x8x4x32xf32> {
  // expected-remark @+1 {{#telar.sharding_rule<([i, j, k], [l, k, m]) -> ([i, j, l, m]) {i=2, j=8, k=16, l=4, m=32} reduction={k:sum} partial_one={0:sum, 1:sum}>}}
  %y = telar.einsum %x, %w {equation = #telar.einsum<[b, s, d], [e, d, h] -> [b, s, e, h]>} : (tensor<2x8x16xf32>, tensor<4x16x32xf32>) -> tensor<2x8x4x32xf32>
  return %y : tensor<2x8x4x32xf32>
}

// -----

// Trace: a letter repeated in one input (a diagonal) must stay whole; its
// second occurrence is a factor of its own.
func.func @einsum_trace(%x: tensor<5x5xf32>) -> tensor<f32> {
  // expected-remark @+1 {{#telar.sharding_rule<([i, j]) -> ([]) {i=5, j=5} need_replication={i, j} partial_one={0:sum}>}}
  %y = telar.einsum %x {equation = #telar.einsum<[i, i] -> []>} : (tensor<5x5xf32>) -> tensor<f32>
  return %y : tensor<f32>
}

// -----

// Input and weight spatial dims stay whole, the output's are factors of their
// own: a window needs a halo, which a plain split does not give.
func.func @conv(%x: tensor<1x3x32x32xf32>, %w: tensor<16x3x3x3xf32>, %b: tensor<16xf32>) -> tensor<1x16x16x16xf32> {
  // expected-remark @+1 {{#telar.sharding_rule<([i, j, k, l], [m, j, n, o], [m]) -> ([i, m, p, q]) {i=1, j=3, k=32, l=32, m=16, n=3, o=3, p=16, q=16} reduction={j:sum} need_replication={k, l, n, o}>}}
  %y = telar.conv %x, %w, %b {strides = array<i64: 2, 2>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, group = 1 : i64}
      : (tensor<1x3x32x32xf32>, tensor<16x3x3x3xf32>, tensor<16xf32>) -> tensor<1x16x16x16xf32>
  return %y : tensor<1x16x16x16xf32>
}

// -----

// Depthwise, 1-D, dilated, no bias.
func.func @conv_depthwise(%x: tensor<2x8x20xf32>, %w: tensor<16x1x3xf32>) -> tensor<2x16x16xf32> {
  // expected-remark @+1 {{#telar.sharding_rule<([i, j, k], [(j, l), (), m]) -> ([i, (j, l), n]) {i=2, j=8, k=20, l=2, m=3, n=16} need_replication={k, m} partial_one={0:sum}>}}
  %y = telar.conv %x, %w {strides = array<i64: 1>, pads = array<i64: 0, 0>, dilations = array<i64: 2>, group = 8 : i64}
      : (tensor<2x8x20xf32>, tensor<16x1x3xf32>) -> tensor<2x16x16xf32>
  return %y : tensor<2x16x16xf32>
}

// -----

func.func @conv_dynamic(%x: tensor<?x3x?x32xf32>, %w: tensor<16x3x3x3xf32>) -> tensor<?x16x?x30xf32> {
  // expected-remark @+1 {{#telar.sharding_rule<([i, j, k, l], [m, j, n, o]) -> ([i, m, p, q]) {i=?, j=3, k=?, l=32, m=16, n=3, o=3, p=?, q=30} reduction={j:sum} need_replication={k, l, n, o} partial_one={0:sum}>}}
  %y = telar.conv %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>}
      : (tensor<?x3x?x32xf32>, tensor<16x3x3x3xf32>) -> tensor<?x16x?x30xf32>
  return %y : tensor<?x16x?x30xf32>
}

// -----

func.func @conv_transpose(%x: tensor<1x8x4x4xf32>, %w: tensor<8x4x2x2xf32>) -> tensor<1x4x8x8xf32> {
  // expected-remark @+1 {{#telar.sharding_rule<([i, j, k, l], [j, m, n, o]) -> ([i, m, p, q]) {i=1, j=8, k=4, l=4, m=4, n=2, o=2, p=8, q=8} reduction={j:sum} need_replication={k, l, n, o} partial_one={0:sum}>}}
  %y = telar.conv_transpose %x, %w {strides = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>,
                                    dilations = array<i64: 1, 1>, output_padding = array<i64: 0, 0>, group = 1 : i64}
      : (tensor<1x8x4x4xf32>, tensor<8x4x2x2xf32>) -> tensor<1x4x8x8xf32>
  return %y : tensor<1x4x8x8xf32>
}

// -----

// 2*(5-1) + 1 + ((3-1)*1+1) - 1 - 1 = 10 along the spatial axis; 3 x 2 groups = 6 channels.
func.func @conv_transpose_grouped(%x: tensor<1x4x5xf32>, %w: tensor<4x3x3xf32>, %b: tensor<6xf32>) -> tensor<1x6x10xf32> {
  // expected-remark @+1 {{#telar.sharding_rule<([i, (j, k), l], [(j, k), m, n], [(j, m)]) -> ([i, (j, m), o]) {i=1, j=2, k=2, l=5, m=3, n=3, o=10} reduction={k:sum} need_replication={l, n}>}}
  %y = telar.conv_transpose %x, %w, %b {strides = array<i64: 2>, pads = array<i64: 1, 1>,
                                        dilations = array<i64: 1>, output_padding = array<i64: 1>, group = 2 : i64}
      : (tensor<1x4x5xf32>, tensor<4x3x3xf32>, tensor<6xf32>) -> tensor<1x6x10xf32>
  return %y : tensor<1x6x10xf32>
}

// -----

func.func @resize(%x: tensor<1x8x4x4xf32>) -> tensor<1x8x8x8xf32> {
  // expected-remark @+1 {{#telar.sharding_rule<([i, j, k, l]) -> ([i, j, m, n]) {i=1, j=8, k=4, l=4, m=8, n=8} need_replication={k, l}>}}
  %y = telar.resize %x {scales = array<f32: 1.0, 1.0, 2.0, 2.0>, sizes = array<i64: 1, 8, 8, 8>,
                        mode = "nearest", coordinate_transformation_mode = "asymmetric",
                        nearest_mode = "floor"}
      : (tensor<1x8x4x4xf32>) -> tensor<1x8x8x8xf32>
  return %y : tensor<1x8x8x8xf32>
}

// -----

func.func @resize_linear(%x: tensor<2x3x10xf32>) -> tensor<2x3x5xf32> {
  // expected-remark @+1 {{#telar.sharding_rule<([i, j, k]) -> ([i, j, l]) {i=2, j=3, k=10, l=5} need_replication={k}>}}
  %y = telar.resize %x {scales = array<f32: 1.0, 1.0, 0.5>, sizes = array<i64: 2, 3, 5>, mode = "linear"}
      : (tensor<2x3x10xf32>) -> tensor<2x3x5xf32>
  return %y : tensor<2x3x5xf32>
}

// -----

func.func @depth_to_space(%x: tensor<1x8x2x3xf32>) -> tensor<1x2x4x6xf32> {
  // expected-remark @+1 {{#telar.sharding_rule<([i, (j, k, l), m, n]) -> ([i, j, (m, k), (n, l)]) {i=1, j=2, k=2, l=2, m=2, n=3}>}}
  %y = telar.depth_to_space %x {blocksize = 2 : i64, mode = "CRD"} : (tensor<1x8x2x3xf32>) -> tensor<1x2x4x6xf32>
  return %y : tensor<1x2x4x6xf32>
}

// -----

func.func @space_to_depth(%x: tensor<?x2x4x6xf32>) -> tensor<?x8x2x3xf32> {
  // expected-remark @+1 {{#telar.sharding_rule<([i, j, (k, l), (m, n)]) -> ([i, (l, n, j), k, m]) {i=?, j=2, k=2, l=2, m=3, n=2}>}}
  %y = telar.space_to_depth %x {blocksize = 2 : i64} : (tensor<?x2x4x6xf32>) -> tensor<?x8x2x3xf32>
  return %y : tensor<?x8x2x3xf32>
}

// -----

func.func @rotary_embedding(%x: tensor<2x4x8x16xf32>, %cos: tensor<2x8x8xf32>, %sin: tensor<2x8x8xf32>) -> tensor<2x4x8x16xf32> {
  // expected-remark @+1 {{#telar.sharding_rule<([i, j, k, l], [i, k, m], [i, k, m]) -> ([i, j, k, l]) {i=2, j=4, k=8, l=16, m=8} need_replication={l, m}>}}
  %y = telar.rotary_embedding %x, %cos, %sin {interleaved = false, rotary_embedding_dim = 0 : i64, num_heads = 0 : i64}
      : (tensor<2x4x8x16xf32>, tensor<2x8x8xf32>, tensor<2x8x8xf32>) -> tensor<2x4x8x16xf32>
  return %y : tensor<2x4x8x16xf32>
}

// -----

// [batch, seq, hidden] with num_heads, partial rotation, caches by position.
func.func @rotary_embedding_positions(%x: tensor<2x8x64xf16>, %cos: tensor<128x4xf16>, %sin: tensor<128x4xf16>, %pos: tensor<2x8xi64>) -> tensor<2x8x64xf16> {
  // expected-remark @+1 {{#telar.sharding_rule<([i, j, k], [l, m], [n, o], [i, j]) -> ([i, j, k]) {i=2, j=8, k=64, l=128, m=4, n=128, o=4} need_replication={k, l, m, n, o}>}}
  %y = telar.rotary_embedding %x, %cos, %sin, %pos {interleaved = true, rotary_embedding_dim = 8 : i64, num_heads = 4 : i64}
      : (tensor<2x8x64xf16>, tensor<128x4xf16>, tensor<128x4xf16>, tensor<2x8xi64>) -> tensor<2x8x64xf16>
  return %y : tensor<2x8x64xf16>
}

// -----
// Grouped convolution: the input channel is (group, input channel in the
// group), the output channel (group, output channel in the group); the group
// is parallel, the input channels of a group a sum.
func.func @conv_grouped(%x: tensor<1x4x8xf32>, %w: tensor<6x2x3xf32>) -> tensor<1x6x6xf32> {
  // expected-remark @+1 {{#telar.sharding_rule<([i, (j, k), l], [(j, m), k, n]) -> ([i, (j, m), o]) {i=1, j=2, k=2, l=8, m=3, n=3, o=6} reduction={k:sum} need_replication={l, n} partial_one={0:sum}>}}
  %y = telar.conv %x, %w {strides = array<i64: 1>, pads = array<i64: 0, 0>, dilations = array<i64: 1>, group = 2 : i64}
      : (tensor<1x4x8xf32>, tensor<6x2x3xf32>) -> tensor<1x6x6xf32>
  return %y : tensor<1x6x6xf32>
}

// -----

func.func @matmul_vector_rhs(%a: tensor<1x16x64xf32>, %b: tensor<64xf32>) -> tensor<1x16xf32> {
  // expected-remark @+1 {{#telar.sharding_rule<([i, j, k], [k]) -> ([i, j]) {i=1, j=16, k=64} reduction={k:sum} partial_one={0:sum, 1:sum}>}}
  %c = telar.matmul %a, %b : (tensor<1x16x64xf32>, tensor<64xf32>) -> tensor<1x16xf32>
  return %c : tensor<1x16xf32>
}

// -----

// Letters on the output are parallel, the others (j, k) sums.
func.func @einsum_chain(%a: tensor<2x3xf32>, %b: tensor<3x4xf32>, %c: tensor<4x5xf32>) -> tensor<2x5xf32> {
  // expected-remark @+1 {{#telar.sharding_rule<([i, j], [j, k], [k, l]) -> ([i, l]) {i=2, j=3, k=4, l=5} reduction={j:sum, k:sum} partial_one={0:sum, 1:sum, 2:sum}>}}
  %y = telar.einsum %a, %b, %c {equation = #telar.einsum<[i, j], [j, k], [k, l] -> [i, l]>} : (tensor<2x3xf32>, tensor<3x4xf32>, tensor<4x5xf32>) -> tensor<2x5xf32>
  return %y : tensor<2x5xf32>
}

// -----

// One channel per group: channels are parallel.
func.func @group_norm_per_channel(%x: tensor<2x8x16xf32>, %s: tensor<8xf32>) -> tensor<2x8x16xf32> {
  // expected-remark @+1 {{#telar.sharding_rule<([i, j, k], [j], [j]) -> ([i, j, k]) {i=2, j=8, k=16} need_replication={k}>}}
  %y = telar.group_norm %x, %s, %s {num_groups = 8 : i64} : (tensor<2x8x16xf32>, tensor<8xf32>, tensor<8xf32>) -> tensor<2x8x16xf32>
  return %y : tensor<2x8x16xf32>
}

// -----

// Scale broadcasting over leading size-1 axes: broadcasts of their factors.
func.func @rms_norm_broadcast_scale(%x: tensor<2x16x64xf32>, %g: tensor<1x1x64xf32>) -> tensor<2x16x64xf32> {
  // expected-remark @+1 {{#telar.sharding_rule<([i, j, k], [bcast(i), bcast(j), k]) -> ([i, j, k]) {i=2, j=16, k=64} need_replication={k}>}}
  %y = telar.rms_norm %x, %g : (tensor<2x16x64xf32>, tensor<1x1x64xf32>) -> tensor<2x16x64xf32>
  return %y : tensor<2x16x64xf32>
}

// -----

// An axis that keeps its size but has scale != 1 is still resampled: whole.
func.func @resize_same_size(%x: tensor<2x4x8xf32>) -> tensor<2x4x8xf32> {
  // expected-remark @+1 {{#telar.sharding_rule<([i, j, k]) -> ([i, l, k]) {i=2, j=4, k=8, l=4} need_replication={j}>}}
  %y = telar.resize %x {scales = array<f32: 1.0, 1.5, 1.0>, sizes = array<i64: 2, 4, 8>, mode = "linear"}
      : (tensor<2x4x8xf32>) -> tensor<2x4x8xf32>
  return %y : tensor<2x4x8xf32>
}

// -----

// Caches shared across the batch (batch 1) are broadcast against its factor.
func.func @rotary_embedding_shared_cache(%x: tensor<2x4x8x16xf32>, %c: tensor<1x8x8xf32>) -> tensor<2x4x8x16xf32> {
  // expected-remark @+1 {{#telar.sharding_rule<([i, j, k, l], [bcast(i), k, m], [bcast(i), k, m]) -> ([i, j, k, l]) {i=2, j=4, k=8, l=16, m=8} need_replication={l, m}>}}
  %y = telar.rotary_embedding %x, %c, %c : (tensor<2x4x8x16xf32>, tensor<1x8x8xf32>, tensor<1x8x8xf32>) -> tensor<2x4x8x16xf32>
  return %y : tensor<2x4x8x16xf32>
}
