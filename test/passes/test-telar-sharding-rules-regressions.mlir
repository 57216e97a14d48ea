// RUN: telar-opt %s -split-input-file -test-telar-sharding-rules -verify-diagnostics

// Rules that were once wrong or needlessly complicated, with the reason.

// Was: ([d0, d1, d2]) -> ([d0, d1, d2]). A full-size slice with step -1
// reverses the axis, so result row i is input row 9 - i: the axis must stay
// whole (SliceOp::getShardingRule only looks at the size, not the step).
func.func @slice_reverse(%x: tensor<4x10x6xf32>) -> tensor<4x10x6xf32> {
  // expected-remark @+1 {{([d0, 0, d1]) -> ([d0, 0, d1]) {parallel, parallel}}}
  %0 = telar.slice %x {axes = array<i64: 1>, starts = array<i64: -1>, ends = array<i64: -100>, steps = array<i64: -1>} : (tensor<4x10x6xf32>) -> tensor<4x10x6xf32>
  return %0 : tensor<4x10x6xf32>
}

// -----

// Was: ([d0, d1], [0]) -> ([d0, d1, d2]). Element j of the depth axis
// is `index == j`: a device holding a block of that axis needs the global j,
// which a local one_hot (depth = the block size) does not have. The depth axis
// must stay whole.
func.func @one_hot(%i: tensor<4x3xi64>, %v: tensor<2xf32>) -> tensor<4x3x8xf32> {
  // expected-remark @+1 {{([d0, d1], [0]) -> ([d0, d1, 0]) {parallel, parallel}}}
  %0 = telar.one_hot %i, %v {depth = 8 : i64} : (tensor<4x3xi64>, tensor<2xf32>) -> tensor<4x3x8xf32>
  return %0 : tensor<4x3x8xf32>
}

// -----

func.func @one_hot_inner_axis(%i: tensor<4x3xi64>, %v: tensor<2xf32>) -> tensor<4x8x3xf32> {
  // expected-remark @+1 {{([d0, d1], [0]) -> ([d0, 0, d1]) {parallel, parallel}}}
  %0 = telar.one_hot %i, %v {depth = 8 : i64, axis = 1 : i64} : (tensor<4x3xi64>, tensor<2xf32>) -> tensor<4x8x3xf32>
  return %0 : tensor<4x8x3xf32>
}

// -----

// Was: ([d0, d1, d2 * 2 + d4, d3 * 2 + d5]) -> ... The input index of
// output o and window offset w is o * stride + w * dilation - pad_begin; without
// the pad the halo a block needs is shifted by pad_begin rows.
func.func @max_pool_padded(%x: tensor<1x8x32x32xf32>) -> tensor<1x8x16x16xf32> {
  // expected-remark @+1 {{([d0, d1, d2 * 2 + d4 - 1, d3 * 2 + d5 - 1]) -> ([d0, d1, d2, d3]) {parallel, parallel, parallel, parallel, reduction:generic, reduction:generic}}}
  %0 = telar.max_pool %x {kernel_shape = array<i64: 3, 3>, strides = array<i64: 2, 2>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>} : (tensor<1x8x32x32xf32>) -> tensor<1x8x16x16xf32>
  return %0 : tensor<1x8x16x16xf32>
}

// -----

// Was (correct, not simplified): ([0, d0 mod 128, d1]) -> ([d0, d1]). Correct (d0 <
// 128), but a dimension given by the single loop d0 is what the planner
// partitions; `d0 mod 128` reads as the inner part of a split dimension. The
// mod is redundant whenever every earlier input dim of the group is 1.
func.func @reshape_drop_leading_unit(%x: tensor<1x128x768xf32>) -> tensor<128x768xf32> {
  // expected-remark @+1 {{([0, d0, d1]) -> ([d0, d1]) {parallel, parallel}}}
  %0 = telar.reshape %x {shape = array<i64: 128, 768>} : (tensor<1x128x768xf32>) -> tensor<128x768xf32>
  return %0 : tensor<128x768xf32>
}

// -----

// Was (correct, not simplified): ([d0, 0, d1 mod 8]) -> ([d0, d1]).
func.func @reshape_drop_inner_unit(%x: tensor<2x1x8xf32>) -> tensor<2x8xf32> {
  // expected-remark @+1 {{([d0, 0, d1]) -> ([d0, d1]) {parallel, parallel}}}
  %0 = telar.reshape %x {shape = array<i64: 2, 8>} : (tensor<2x1x8xf32>) -> tensor<2x8xf32>
  return %0 : tensor<2x8xf32>
}
