// RUN: telar-opt %s -split-input-file -test-telar-sharding-rules -verify-diagnostics

// Sharding rules of the non-NN telar ops (the NN ops are in
// nn-sharding-rules.mlir). Each remark is `(operand maps) -> (result maps)
// {loop kinds}`; a constant 0 marks a dimension that is broadcast or must stay
// whole (see include/telar/dialects/Telar/ShardingRule.h). Known-wrong rules
// are in test-telar-sharding-rules-known-bugs.mlir.

//===----------------------------------------------------------------------===//
// Elementwise
//===----------------------------------------------------------------------===//

// Broadcast dims (size 1 against a larger result dim, or missing leading
// dims) are 0; the others follow the result loops from the back.
func.func @add_broadcast(%a: tensor<4x1x3xf32>, %b: tensor<2x3xf32>) -> tensor<4x2x3xf32> {
  // expected-remark @+1 {{([d0, 0, d2], [d1, d2]) -> ([d0, d1, d2]) {parallel, parallel, parallel}}}
  %0 = telar.add %a, %b : (tensor<4x1x3xf32>, tensor<2x3xf32>) -> tensor<4x2x3xf32>
  return %0 : tensor<4x2x3xf32>
}

// -----

// A size-1 result dim is a (trivial) loop, not a broadcast.
func.func @mul_unit_dim(%a: tensor<1x3xf32>, %s: tensor<f32>) -> tensor<1x3xf32> {
  // expected-remark @+1 {{([d0, d1], []) -> ([d0, d1]) {parallel, parallel}}}
  %0 = telar.mul %a, %s : (tensor<1x3xf32>, tensor<f32>) -> tensor<1x3xf32>
  return %0 : tensor<1x3xf32>
}

// -----

func.func @less_broadcast(%a: tensor<4x1xi64>, %b: tensor<5xi64>) -> tensor<4x5xi1> {
  // expected-remark @+1 {{([d0, 0], [d1]) -> ([d0, d1]) {parallel, parallel}}}
  %0 = telar.less %a, %b : (tensor<4x1xi64>, tensor<5xi64>) -> tensor<4x5xi1>
  return %0 : tensor<4x5xi1>
}

// -----

func.func @unary(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  // expected-remark @+1 {{([d0, d1]) -> ([d0, d1]) {parallel, parallel}}}
  %0 = telar.exp %x : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

func.func @unary_attr(%x: tensor<8xf32>) -> tensor<8xf32> {
  // expected-remark @+1 {{([d0]) -> ([d0]) {parallel}}}
  %0 = telar.leaky_relu %x {alpha = 0.2 : f32} : (tensor<8xf32>) -> tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

func.func @cast(%x: tensor<2x3xf32>) -> tensor<2x3xi64> {
  // expected-remark @+1 {{([d0, d1]) -> ([d0, d1]) {parallel, parallel}}}
  %0 = telar.cast %x {to = i64} : (tensor<2x3xf32>) -> tensor<2x3xi64>
  return %0 : tensor<2x3xi64>
}

// -----

func.func @where(%c: tensor<4x1xi1>, %x: tensor<4x8xf32>, %y: tensor<f32>) -> tensor<4x8xf32> {
  // expected-remark @+1 {{([d0, 0], [d0, d1], []) -> ([d0, d1]) {parallel, parallel}}}
  %0 = telar.where %c, %x, %y : (tensor<4x1xi1>, tensor<4x8xf32>, tensor<f32>) -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

// A constant has no operands; its result can be split anywhere.
func.func @constant() -> tensor<2x2xi64> {
  // expected-remark @+1 {{() -> ([d0, d1]) {parallel, parallel}}}
  %0 = telar.constant dense<[[1, 2], [3, 4]]> : tensor<2x2xi64>
  return %0 : tensor<2x2xi64>
}

// -----

//===----------------------------------------------------------------------===//
// Reductions
//===----------------------------------------------------------------------===//

func.func @reduce_sum_keepdims(%x: tensor<2x3x4xf32>) -> tensor<2x1x4xf32> {
  // expected-remark @+1 {{([d0, d1, d2]) -> ([d0, 0, d2]) {parallel, reduction:sum, parallel}}}
  %0 = telar.reduce_sum %x {axes = array<i64: 1>} : (tensor<2x3x4xf32>) -> tensor<2x1x4xf32>
  return %0 : tensor<2x1x4xf32>
}

// -----

func.func @reduce_sum_no_keepdims(%x: tensor<2x3x4xf32>) -> tensor<3xf32> {
  // expected-remark @+1 {{([d0, d1, d2]) -> ([d1]) {reduction:sum, parallel, reduction:sum}}}
  %0 = telar.reduce_sum %x {axes = array<i64: -1, 0>, keepdims = false} : (tensor<2x3x4xf32>) -> tensor<3xf32>
  return %0 : tensor<3xf32>
}

// -----

func.func @reduce_max_all(%x: tensor<2x3xf32>) -> tensor<1x1xf32> {
  // expected-remark @+1 {{([d0, d1]) -> ([0, 0]) {reduction:max, reduction:max}}}
  %0 = telar.reduce_max %x : (tensor<2x3xf32>) -> tensor<1x1xf32>
  return %0 : tensor<1x1xf32>
}

// -----

func.func @reduce_kinds(%x: tensor<2x3xf32>) -> (tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) {
  // expected-remark @+1 {{([d0, d1]) -> ([d0]) {parallel, reduction:average}}}
  %0 = telar.reduce_mean %x {axes = array<i64: 1>, keepdims = false} : (tensor<2x3xf32>) -> tensor<2xf32>
  // expected-remark @+1 {{([d0, d1]) -> ([d0]) {parallel, reduction:min}}}
  %1 = telar.reduce_min %x {axes = array<i64: 1>, keepdims = false} : (tensor<2x3xf32>) -> tensor<2xf32>
  // expected-remark @+1 {{([d0, d1]) -> ([d0]) {parallel, reduction:product}}}
  %2 = telar.reduce_prod %x {axes = array<i64: 1>, keepdims = false} : (tensor<2x3xf32>) -> tensor<2xf32>
  // Sums of |x| and x^2 combine by summing the partial sums.
  // expected-remark @+1 {{([d0, d1]) -> ([d0]) {parallel, reduction:sum}}}
  %3 = telar.reduce_sum_square %x {axes = array<i64: 1>, keepdims = false} : (tensor<2x3xf32>) -> tensor<2xf32>
  // sqrt(sum x^2) does not combine by a plain all-reduce.
  // expected-remark @+1 {{([d0, d1]) -> ([d0]) {parallel, reduction:generic}}}
  %4 = telar.reduce_l2 %x {axes = array<i64: 1>, keepdims = false} : (tensor<2x3xf32>) -> tensor<2xf32>
  return %0, %1, %2, %3, %4 : tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>
}

// -----

func.func @arg_max(%x: tensor<2x3x4xf32>) -> tensor<2x4xi64> {
  // expected-remark @+1 {{([d0, 0, d1]) -> ([d0, d1]) {parallel, parallel}}}
  %0 = telar.arg_max %x {axis = 1 : i64, keepdims = false} : (tensor<2x3x4xf32>) -> tensor<2x4xi64>
  return %0 : tensor<2x4xi64>
}

// -----

//===----------------------------------------------------------------------===//
// Ops that keep an axis whole
//===----------------------------------------------------------------------===//

// The softmax axis is not a loop: it stays whole on every device.
func.func @softmax(%x: tensor<2x3x4xf32>) -> tensor<2x3x4xf32> {
  // expected-remark @+1 {{([d0, 0, d1]) -> ([d0, 0, d1]) {parallel, parallel}}}
  %0 = telar.softmax %x {axis = 1 : i64} : (tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
  return %0 : tensor<2x3x4xf32>
}

// -----

func.func @log_softmax_default_axis(%x: tensor<2x8xf32>) -> tensor<2x8xf32> {
  // expected-remark @+1 {{([d0, 0]) -> ([d0, 0]) {parallel}}}
  %0 = telar.log_softmax %x : (tensor<2x8xf32>) -> tensor<2x8xf32>
  return %0 : tensor<2x8xf32>
}

// -----

func.func @cum_sum(%x: tensor<2x3x4xf32>) -> tensor<2x3x4xf32> {
  // expected-remark @+1 {{([d0, d1, 0]) -> ([d0, d1, 0]) {parallel, parallel}}}
  %0 = telar.cum_sum %x {axis = -1 : i64} : (tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
  return %0 : tensor<2x3x4xf32>
}

// -----

func.func @trilu(%x: tensor<2x3x4xf32>) -> tensor<2x3x4xf32> {
  // expected-remark @+1 {{([d0, 0, 0]) -> ([d0, 0, 0]) {parallel}}}
  %0 = telar.trilu %x : (tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
  return %0 : tensor<2x3x4xf32>
}

// -----

func.func @top_k(%x: tensor<4x8xf32>) -> (tensor<4x2xf32>, tensor<4x2xi64>) {
  // expected-remark @+1 {{([d0, 0]) -> ([d0, 0], [d0, 0]) {parallel}}}
  %v, %i = telar.top_k %x {k = 2 : i64} : (tensor<4x8xf32>) -> (tensor<4x2xf32>, tensor<4x2xi64>)
  return %v, %i : tensor<4x2xf32>, tensor<4x2xi64>
}

// -----

//===----------------------------------------------------------------------===//
// Pooling
//===----------------------------------------------------------------------===//

// Loops (n, c, oh, ow, kh, kw); input index = o * stride + k * dilation.
func.func @max_pool(%x: tensor<1x8x32x32xf32>) -> tensor<1x8x15x15xf32> {
  // expected-remark @+1 {{([d0, d1, d2 * 2 + d4, d3 * 2 + d5]) -> ([d0, d1, d2, d3]) {parallel, parallel, parallel, parallel, reduction:generic, reduction:generic}}}
  %0 = telar.max_pool %x {kernel_shape = array<i64: 3, 3>, strides = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>} : (tensor<1x8x32x32xf32>) -> tensor<1x8x15x15xf32>
  return %0 : tensor<1x8x15x15xf32>
}

// -----

func.func @average_pool_dilated(%x: tensor<1x8x32xf32>) -> tensor<1x8x28xf32> {
  // expected-remark @+1 {{([d0, d1, d2 + d3 * 2]) -> ([d0, d1, d2]) {parallel, parallel, parallel, reduction:generic}}}
  %0 = telar.average_pool %x {kernel_shape = array<i64: 3>, strides = array<i64: 1>, pads = array<i64: 0, 0>, dilations = array<i64: 2>} : (tensor<1x8x32xf32>) -> tensor<1x8x28xf32>
  return %0 : tensor<1x8x28xf32>
}

// -----

//===----------------------------------------------------------------------===//
// Reshape, transpose, squeeze, unsqueeze
//===----------------------------------------------------------------------===//

// Expansion: the split input dim is the linearised index of its result dims.
func.func @reshape_expand(%x: tensor<2x8x64xf32>) -> tensor<2x8x4x16xf32> {
  // expected-remark @+1 {{([d0, d1, d2 * 16 + d3]) -> ([d0, d1, d2, d3]) {parallel, parallel, parallel, parallel}}}
  %0 = telar.reshape %x {shape = array<i64: 2, 8, 4, 16>} : (tensor<2x8x64xf32>) -> tensor<2x8x4x16xf32>
  return %0 : tensor<2x8x4x16xf32>
}

// -----

// Collapse: each merged input dim is a floordiv/mod of the result loop.
func.func @reshape_collapse(%x: tensor<2x8x4x16xf32>) -> tensor<2x8x64xf32> {
  // expected-remark @+1 {{([d0, d1, d2 floordiv 16, d2 mod 16]) -> ([d0, d1, d2]) {parallel, parallel, parallel}}}
  %0 = telar.reshape %x {shape = array<i64: 2, 8, 64>} : (tensor<2x8x4x16xf32>) -> tensor<2x8x64xf32>
  return %0 : tensor<2x8x64xf32>
}

// -----

func.func @reshape_flatten(%x: tensor<2x8x64xf32>) -> tensor<16x64xf32> {
  // expected-remark @+1 {{([d0 floordiv 8, d0 mod 8, d1]) -> ([d0, d1]) {parallel, parallel}}}
  %0 = telar.reshape %x {shape = array<i64: 16, 64>} : (tensor<2x8x64xf32>) -> tensor<16x64xf32>
  return %0 : tensor<16x64xf32>
}

// -----

// Mixed: 6x4 -> 2x12 neither splits nor merges whole dims; linear index
// d0 * 12 + d1 gives row (d0 * 12 + d1) floordiv 4 = d0 * 3 + d1 floordiv 4.
func.func @reshape_mixed(%x: tensor<6x4xf32>) -> tensor<2x12xf32> {
  // expected-remark @+1 {{([d0 * 3 + d1 floordiv 4, d1 mod 4]) -> ([d0, d1]) {parallel, parallel}}}
  %0 = telar.reshape %x {shape = array<i64: 2, 12>} : (tensor<6x4xf32>) -> tensor<2x12xf32>
  return %0 : tensor<2x12xf32>
}

// -----

func.func @reshape_mixed_transposed_sizes(%x: tensor<6x4xf32>) -> tensor<4x6xf32> {
  // expected-remark @+1 {{([(d0 * 6 + d1) floordiv 4, (d0 * 6 + d1) mod 4]) -> ([d0, d1]) {parallel, parallel}}}
  %0 = telar.reshape %x {shape = array<i64: 4, 6>} : (tensor<6x4xf32>) -> tensor<4x6xf32>
  return %0 : tensor<4x6xf32>
}

// -----

// Unit dims added by a reshape index nothing.
func.func @reshape_add_unit_dims(%x: tensor<8xf32>) -> tensor<1x8x1xf32> {
  // expected-remark @+1 {{([d1]) -> ([d0, d1, d2]) {parallel, parallel, parallel}}}
  %0 = telar.reshape %x {shape = array<i64: 1, 8, 1>} : (tensor<8xf32>) -> tensor<1x8x1xf32>
  return %0 : tensor<1x8x1xf32>
}

// -----

func.func @transpose(%x: tensor<2x8x4x16xf32>) -> tensor<2x4x8x16xf32> {
  // expected-remark @+1 {{([d0, d2, d1, d3]) -> ([d0, d1, d2, d3]) {parallel, parallel, parallel, parallel}}}
  %0 = telar.transpose %x {perm = array<i64: 0, 2, 1, 3>} : (tensor<2x8x4x16xf32>) -> tensor<2x4x8x16xf32>
  return %0 : tensor<2x4x8x16xf32>
}

// -----

// Result dim i is input dim perm[i]: input dim 2 is loop 0.
func.func @transpose_rotate(%x: tensor<2x8x64xf32>) -> tensor<64x2x8xf32> {
  // expected-remark @+1 {{([d1, d2, d0]) -> ([d0, d1, d2]) {parallel, parallel, parallel}}}
  %0 = telar.transpose %x {perm = array<i64: 2, 0, 1>} : (tensor<2x8x64xf32>) -> tensor<64x2x8xf32>
  return %0 : tensor<64x2x8xf32>
}

// -----

func.func @squeeze(%x: tensor<2x1x8xf32>) -> (tensor<2x8xf32>, tensor<2x8xf32>) {
  // expected-remark @+1 {{([d0, 0, d1]) -> ([d0, d1]) {parallel, parallel}}}
  %0 = telar.squeeze %x {axes = array<i64: -2>} : (tensor<2x1x8xf32>) -> tensor<2x8xf32>
  // expected-remark @+1 {{([d0, 0, d1]) -> ([d0, d1]) {parallel, parallel}}}
  %1 = telar.squeeze %x : (tensor<2x1x8xf32>) -> tensor<2x8xf32>
  return %0, %1 : tensor<2x8xf32>, tensor<2x8xf32>
}

// -----

func.func @unsqueeze(%x: tensor<8x4xf32>) -> tensor<1x8x1x4xf32> {
  // expected-remark @+1 {{([d1, d3]) -> ([d0, d1, d2, d3]) {parallel, parallel, parallel, parallel}}}
  %0 = telar.unsqueeze %x {axes = array<i64: 0, -2>} : (tensor<8x4xf32>) -> tensor<1x8x1x4xf32>
  return %0 : tensor<1x8x1x4xf32>
}

// -----

//===----------------------------------------------------------------------===//
// Concat, split, slice
//===----------------------------------------------------------------------===//

func.func @concat(%a: tensor<2x3xf32>, %b: tensor<2x5xf32>) -> tensor<2x8xf32> {
  // expected-remark @+1 {{([d0, 0], [d0, 0]) -> ([d0, 0]) {parallel}}}
  %0 = telar.concat %a, %b {axis = 1 : i64} : (tensor<2x3xf32>, tensor<2x5xf32>) -> tensor<2x8xf32>
  return %0 : tensor<2x8xf32>
}

// -----

func.func @concat_negative_axis(%a: tensor<2x3xf32>) -> tensor<4x3xf32> {
  // expected-remark @+1 {{([0, d0], [0, d0]) -> ([0, d0]) {parallel}}}
  %0 = telar.concat %a, %a {axis = -2 : i64} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<4x3xf32>
  return %0 : tensor<4x3xf32>
}

// -----

func.func @split(%x: tensor<2x8xf32>) -> (tensor<2x3xf32>, tensor<2x5xf32>) {
  // expected-remark @+1 {{([d0, 0]) -> ([d0, 0], [d0, 0]) {parallel}}}
  %0:2 = telar.split %x {axis = 1 : i64, sizes = array<i64: 3, 5>} : (tensor<2x8xf32>) -> (tensor<2x3xf32>, tensor<2x5xf32>)
  return %0#0, %0#1 : tensor<2x3xf32>, tensor<2x5xf32>
}

// -----

// Only the axes whose size changes stay whole; a listed axis sliced to its
// full extent with step 1 is still a loop.
func.func @slice(%x: tensor<4x10x6xf32>) -> (tensor<4x2x6xf32>, tensor<4x10x3xf32>) {
  // expected-remark @+1 {{([d0, 0, d1]) -> ([d0, 0, d1]) {parallel, parallel}}}
  %0 = telar.slice %x {axes = array<i64: 1>, starts = array<i64: 0>, ends = array<i64: 4>, steps = array<i64: 2>} : (tensor<4x10x6xf32>) -> tensor<4x2x6xf32>
  // expected-remark @+1 {{([d0, d1, 0]) -> ([d0, d1, 0]) {parallel, parallel}}}
  %1 = telar.slice %x {axes = array<i64: 1, 2>, starts = array<i64: 0, 0>, ends = array<i64: 10, 3>, steps = array<i64: 1, 1>} : (tensor<4x10x6xf32>) -> tensor<4x10x3xf32>
  return %0, %1 : tensor<4x2x6xf32>, tensor<4x10x3xf32>
}

// -----

//===----------------------------------------------------------------------===//
// Gather family
//===----------------------------------------------------------------------===//

// Embedding lookup: the table's rows stay whole, its hidden dim and the ids
// can be split.
func.func @gather_embedding(%table: tensor<1000x64xf32>, %ids: tensor<2x16xi64>) -> tensor<2x16x64xf32> {
  // expected-remark @+1 {{([0, d2], [d0, d1]) -> ([d0, d1, d2]) {parallel, parallel, parallel}}}
  %0 = telar.gather %table, %ids : (tensor<1000x64xf32>, tensor<2x16xi64>) -> tensor<2x16x64xf32>
  return %0 : tensor<2x16x64xf32>
}

// -----

// Inner axis: result = data[:axis] + indices + data[axis+1:].
func.func @gather_inner_axis(%x: tensor<2x4x8xf32>, %i: tensor<4x2xi64>) -> tensor<2x4x2x8xf32> {
  // expected-remark @+1 {{([d0, 0, d3], [d1, d2]) -> ([d0, d1, d2, d3]) {parallel, parallel, parallel, parallel}}}
  %0 = telar.gather %x, %i {axis = 1 : i64} : (tensor<2x4x8xf32>, tensor<4x2xi64>) -> tensor<2x4x2x8xf32>
  return %0 : tensor<2x4x2x8xf32>
}

// -----

func.func @gather_scalar_index(%x: tensor<4x8xf32>, %i: tensor<i64>) -> tensor<4xf32> {
  // expected-remark @+1 {{([d0, 0], []) -> ([d0]) {parallel}}}
  %0 = telar.gather %x, %i {axis = -1 : i64} : (tensor<4x8xf32>, tensor<i64>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @gather_elements(%x: tensor<4x8xf32>, %i: tensor<4x2xi64>) -> tensor<4x2xf32> {
  // expected-remark @+1 {{([d0, 0], [d0, d1]) -> ([d0, d1]) {parallel, parallel}}}
  %0 = telar.gather_elements %x, %i {axis = 1 : i64} : (tensor<4x8xf32>, tensor<4x2xi64>) -> tensor<4x2xf32>
  return %0 : tensor<4x2xf32>
}

// -----

// A non-axis dim where indices are smaller than data cannot follow the
// result's partition (the blocks differ): it stays whole.
func.func @gather_elements_smaller_indices(%x: tensor<4x8xf32>, %i: tensor<2x8xi64>) -> tensor<2x8xf32> {
  // expected-remark @+1 {{([0, 0], [d0, d1]) -> ([d0, d1]) {parallel, parallel}}}
  %0 = telar.gather_elements %x, %i {axis = 1 : i64} : (tensor<4x8xf32>, tensor<2x8xi64>) -> tensor<2x8xf32>
  return %0 : tensor<2x8xf32>
}

// -----

//===----------------------------------------------------------------------===//
// Expand, tile, pad
//===----------------------------------------------------------------------===//

func.func @expand(%x: tensor<3x1xf32>) -> tensor<4x3x8xf32> {
  // expected-remark @+1 {{([d1, 0]) -> ([d0, d1, d2]) {parallel, parallel, parallel}}}
  %0 = telar.expand %x {shape = array<i64: 4, 1, 8>} : (tensor<3x1xf32>) -> tensor<4x3x8xf32>
  return %0 : tensor<4x3x8xf32>
}

// -----

// Tiled axes stay whole; an axis repeated once is a loop.
func.func @tile(%x: tensor<2x4xf32>) -> tensor<2x12xf32> {
  // expected-remark @+1 {{([d0, 0]) -> ([d0, 0]) {parallel}}}
  %0 = telar.tile %x {repeats = array<i64: 1, 3>} : (tensor<2x4xf32>) -> tensor<2x12xf32>
  return %0 : tensor<2x12xf32>
}

// -----

// Padded axes stay whole.
func.func @pad(%x: tensor<2x4x6xf32>) -> (tensor<2x6x6xf32>, tensor<2x4x6xf32>) {
  // expected-remark @+1 {{([d0, 0, d1]) -> ([d0, 0, d1]) {parallel, parallel}}}
  %0 = telar.pad %x {pads = array<i64: 0, 1, 0, 0, 1, 0>} : (tensor<2x4x6xf32>) -> tensor<2x6x6xf32>
  // expected-remark @+1 {{([d0, d1, d2]) -> ([d0, d1, d2]) {parallel, parallel, parallel}}}
  %1 = telar.pad %x {pads = array<i64: 0, 0, 0, 0, 0, 0>, mode = "reflect"} : (tensor<2x4x6xf32>) -> tensor<2x4x6xf32>
  return %0, %1 : tensor<2x6x6xf32>, tensor<2x4x6xf32>
}
