// RUN: telar-opt %s -split-input-file -test-telar-sharding-rules -verify-diagnostics
// Every printed rule parses back and prints the same:
// RUN: telar-opt %s -split-input-file -test-telar-sharding-rules 2>&1 >/dev/null | sed -n 's/^.*remark: //p' > %t.printed
// RUN: sed 's/.*/"test.rule"() {rule = &} : () -> ()/' %t.printed | telar-opt --allow-unregistered-dialect | sed -n 's/^ *"test.rule"() {rule = \(.*\)} : () -> ()$/\1/p' | diff %t.printed -
// RUN: grep -q '^#telar.sharding_rule<' %t.printed

// Rules that were once wrong or needlessly complicated, with the reason. The
// "Was:" forms are the affine-map rules that #telar.sharding_rule replaced
// (d<i> a loop, 0 a dimension broadcast or kept whole).

// Was: ([d0, d1, d2]) -> ([d0, d1, d2]). A full-size slice with step -1
// reverses the axis, so result row i is input row 9 - i: the axis must stay
// whole (the rule once looked only at the size, not the step).
func.func @slice_reverse(%x: tensor<4x10x6xf32>) -> tensor<4x10x6xf32> {
  // expected-remark @+1 {{#telar.sharding_rule<([i, j, k]) -> ([i, j, k]) {i=4, j=10, k=6} need_replication={j} partial_alike={any}>}}
  %0 = telar.slice %x {axes = array<i64: 1>, starts = array<i64: -1>, ends = array<i64: -100>, steps = array<i64: -1>} : (tensor<4x10x6xf32>) -> tensor<4x10x6xf32>
  return %0 : tensor<4x10x6xf32>
}

// -----

// Was: ([d0, d1], [0]) -> ([d0, d1, d2]). Element j of the depth axis
// is `index == j`: a device holding a block of that axis needs the global j,
// which a local one_hot (depth = the block size) does not have. The depth axis
// must stay whole.
func.func @one_hot(%i: tensor<4x3xi64>, %v: tensor<2xf32>) -> tensor<4x3x8xf32> {
  // expected-remark @+1 {{#telar.sharding_rule<([i, j], [k]) -> ([i, j, l]) {i=4, j=3, k=2, l=8} need_replication={k, l}>}}
  %0 = telar.one_hot %i, %v {depth = 8 : i64} : (tensor<4x3xi64>, tensor<2xf32>) -> tensor<4x3x8xf32>
  return %0 : tensor<4x3x8xf32>
}

// -----

func.func @one_hot_inner_axis(%i: tensor<4x3xi64>, %v: tensor<2xf32>) -> tensor<4x8x3xf32> {
  // expected-remark @+1 {{#telar.sharding_rule<([i, j], [k]) -> ([i, l, j]) {i=4, j=3, k=2, l=8} need_replication={k, l}>}}
  %0 = telar.one_hot %i, %v {depth = 8 : i64, axis = 1 : i64} : (tensor<4x3xi64>, tensor<2xf32>) -> tensor<4x8x3xf32>
  return %0 : tensor<4x8x3xf32>
}

// -----

// Was: ([d0, d1, d2 * 2 + d4, d3 * 2 + d5]) -> ..., then with `- 1` for the
// pad. The input index of output o and window offset w is o * stride +
// w * dilation - pad_begin: a block of outputs needs a halo of inputs, which
// a split of a shared factor would not give. The input's spatial dims must
// stay whole; the output's are factors of their own.
func.func @max_pool_padded(%x: tensor<1x8x32x32xf32>) -> tensor<1x8x16x16xf32> {
  // expected-remark @+1 {{#telar.sharding_rule<([i, j, k, l]) -> ([i, j, m, n]) {i=1, j=8, k=32, l=32, m=16, n=16} need_replication={k, l}>}}
  %0 = telar.max_pool %x {kernel_shape = array<i64: 3, 3>, strides = array<i64: 2, 2>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>} : (tensor<1x8x32x32xf32>) -> tensor<1x8x16x16xf32>
  return %0 : tensor<1x8x16x16xf32>
}

// -----

// Was (correct, not simplified): ([0, d0 mod 128, d1]) -> ([d0, d1]). A
// dimension given by one factor is what the planner splits; `d0 mod 128` read
// as the inner part of a split dimension. Size-1 dims are units.
func.func @reshape_drop_leading_unit(%x: tensor<1x128x768xf32>) -> tensor<128x768xf32> {
  // expected-remark @+1 {{#telar.sharding_rule<([(), i, j]) -> ([i, j]) {i=128, j=768} partial_alike={any}>}}
  %0 = telar.reshape %x {shape = array<i64: 128, 768>} : (tensor<1x128x768xf32>) -> tensor<128x768xf32>
  return %0 : tensor<128x768xf32>
}

// -----

// Was (correct, not simplified): ([d0, 0, d1 mod 8]) -> ([d0, d1]).
func.func @reshape_drop_inner_unit(%x: tensor<2x1x8xf32>) -> tensor<2x8xf32> {
  // expected-remark @+1 {{#telar.sharding_rule<([i, (), j]) -> ([i, j]) {i=2, j=8} partial_alike={any}>}}
  %0 = telar.reshape %x {shape = array<i64: 2, 8>} : (tensor<2x1x8xf32>) -> tensor<2x8xf32>
  return %0 : tensor<2x8xf32>
}

// -----

// Was: ([d0, d1]) -> ([d0]) {parallel, reduction:generic}: a reduction the
// planner could split, although sqrt(sum x^2) of blocks does not combine by
// any all-reduce. Non-combinable reductions must stay whole.
func.func @reduce_l2(%x: tensor<2x3xf32>) -> tensor<2xf32> {
  // expected-remark @+1 {{#telar.sharding_rule<([i, j]) -> ([i]) {i=2, j=3} need_replication={j}>}}
  %0 = telar.reduce_l2 %x {axes = array<i64: 1>, keepdims = false} : (tensor<2x3xf32>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

// Was: ([d0, 0, 0, 0]) -> ([d0, d1, d2, d3]): the rearranged axes kept whole.
// depth_to_space (DCR) is a product of factors: input channel (i, j, c),
// output rows (h, i) and columns (w, j).
func.func @depth_to_space_dcr(%x: tensor<1x8x2x3xf32>) -> tensor<1x2x4x6xf32> {
  // expected-remark @+1 {{#telar.sharding_rule<([i, (j, k, l), m, n]) -> ([i, l, (m, j), (n, k)]) {i=1, j=2, k=2, l=2, m=2, n=3}>}}
  %y = telar.depth_to_space %x {blocksize = 2 : i64, mode = "DCR"} : (tensor<1x8x2x3xf32>) -> tensor<1x2x4x6xf32>
  return %y : tensor<1x2x4x6xf32>
}

// -----

// Was: ([d0, 0, 0], [0, 0, 0], [0]) -> ([d0, d1, d2]): grouped transposed
// convolutions kept their channels whole. The group is a parallel factor.
func.func @conv_transpose_depthwise(%x: tensor<1x4x5xf32>, %w: tensor<4x1x1xf32>) -> tensor<1x4x5xf32> {
  // expected-remark @+1 {{#telar.sharding_rule<([i, j, k], [j, (), ()]) -> ([i, j, k]) {i=1, j=4, k=5} partial_one={0:sum}>}}
  %y = telar.conv_transpose %x, %w {strides = array<i64: 1>, pads = array<i64: 0, 0>,
                                    dilations = array<i64: 1>, output_padding = array<i64: 0>, group = 4 : i64}
      : (tensor<1x4x5xf32>, tensor<4x1x1xf32>) -> tensor<1x4x5xf32>
  return %y : tensor<1x4x5xf32>
}
