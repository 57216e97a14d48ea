// RUN: telar-opt %s -split-input-file -telar-microbatch=count=2 -verify-diagnostics | FileCheck %s

// The program of one microbatch: the batch input split along dim 0, the
// weights and the input that is not the batch's size whole; the reshape's
// shape with the batch baked in becomes the microbatch's. Names stay.
// CHECK-LABEL: func.func @main
// CHECK-SAME: (%[[X:.*]]: tensor<2x4x16xf32> {telar.name = "x"}, %[[M:.*]]: tensor<1x16xf32> {telar.name = "mask"}) -> (tensor<8x8xf32>, tensor<1x16xf32>) attributes {telar.output_names = ["y", "n"]}
// CHECK-NOT: shard.
// CHECK-NOT: telar.sharding
// CHECK-NOT: telar.global_shape
// CHECK: %[[W:.*]] = telar.constant {telar.result_names = ["w"]} dense<1.000000e+00> : tensor<16x8xf32>
// CHECK: %[[A:.*]] = telar.add %[[X]], %[[M]] : (tensor<2x4x16xf32>, tensor<1x16xf32>) -> tensor<2x4x16xf32>
// CHECK: %[[R:.*]] = telar.reshape %[[A]] {shape = array<i64: 8, 16>, telar.result_names = ["flat"]} : (tensor<2x4x16xf32>) -> tensor<8x16xf32>
// CHECK: %[[Y:.*]] = telar.matmul %[[R]], %[[W]] {telar.result_names = ["y"]} : (tensor<8x16xf32>, tensor<16x8xf32>) -> tensor<8x8xf32>
// CHECK: %[[N:.*]] = telar.neg %[[M]] : (tensor<1x16xf32>) -> tensor<1x16xf32>
// CHECK: return %[[Y]], %[[N]]
// The batch is the first input's dim 0; the result of the mask alone is
// whole in every microbatch.
// expected-remark @below {{2 microbatches of the batch 4: input dims [0, -1], output dims [0, -1]}}
func.func @main(%x: tensor<4x4x16xf32> {telar.name = "x"}, %mask: tensor<1x16xf32> {telar.name = "mask"}) -> (tensor<16x8xf32>, tensor<1x16xf32>) attributes {telar.output_names = ["y", "n"]} {
  %w = telar.constant {telar.result_names = ["w"]} dense<1.0> : tensor<16x8xf32>
  %a = telar.add %x, %mask : (tensor<4x4x16xf32>, tensor<1x16xf32>) -> tensor<4x4x16xf32>
  %r = telar.reshape %a {shape = array<i64: 16, 16>, telar.result_names = ["flat"]} : (tensor<4x4x16xf32>) -> tensor<16x16xf32>
  %y = telar.matmul %r, %w {telar.result_names = ["y"]} : (tensor<16x16xf32>, tensor<16x8xf32>) -> tensor<16x8xf32>
  %n = telar.neg %mask : (tensor<1x16xf32>) -> tensor<1x16xf32>
  return %y, %n : tensor<16x8xf32>, tensor<1x16xf32>
}

// -----

// A reduction over the batch would need the microbatches' partial sums.
func.func @main(%x: tensor<4x8xf32> {telar.name = "x"}) -> tensor<8xf32> {
  // expected-error @below {{'telar.reduce_sum' (value 'total') mixes microbatches: the batch is its loop i (a reduction, #telar.sharding_rule<([i, j]) -> ([j]) {i=4, j=8} reduction={i:sum} partial_alike={sum}>)}}
  %s = telar.reduce_sum %x {axes = array<i64: 0>, keepdims = false, telar.result_names = ["total"]} : (tensor<4x8xf32>) -> tensor<8xf32>
  return %s : tensor<8xf32>
}

// -----

// The batch inside a dimension (a sequence-first attention's [S * B, D]):
// each op keeps microbatches apart, so the microbatch program has the
// batch's factor shrunk wherever it is; the reshapes' shapes become the
// microbatch's.
// CHECK-LABEL: func.func @main
// CHECK-SAME: (%[[X:.*]]: tensor<2x6x8xf32> {telar.name = "x"}) -> tensor<2x6x8xf32>
// CHECK: %[[T:.*]] = telar.transpose %[[X]] {{.*}} : (tensor<2x6x8xf32>) -> tensor<6x2x8xf32>
// CHECK: %[[R:.*]] = telar.reshape %[[T]] {shape = array<i64: 12, 8>, telar.result_names = ["flat"]} : (tensor<6x2x8xf32>) -> tensor<12x8xf32>
// CHECK: %[[M:.*]] = telar.matmul %[[R]], %{{.*}} : (tensor<12x8xf32>, tensor<8x8xf32>) -> tensor<12x8xf32>
// CHECK: %[[B:.*]] = telar.reshape %[[M]] {shape = array<i64: 6, 2, 8>} : (tensor<12x8xf32>) -> tensor<6x2x8xf32>
// CHECK: telar.transpose %[[B]] {{.*}} : (tensor<6x2x8xf32>) -> tensor<2x6x8xf32>
// expected-remark @below {{2 microbatches of the batch 4: input dims [0], output dims [0]}}
func.func @main(%x: tensor<4x6x8xf32> {telar.name = "x"}) -> tensor<4x6x8xf32> {
  %w = telar.constant dense<1.0> : tensor<8x8xf32>
  %t = telar.transpose %x {perm = array<i64: 1, 0, 2>} : (tensor<4x6x8xf32>) -> tensor<6x4x8xf32>
  %r = telar.reshape %t {shape = array<i64: 24, 8>, telar.result_names = ["flat"]} : (tensor<6x4x8xf32>) -> tensor<24x8xf32>
  %m = telar.matmul %r, %w : (tensor<24x8xf32>, tensor<8x8xf32>) -> tensor<24x8xf32>
  %b = telar.reshape %m {shape = array<i64: 6, 4, 8>} : (tensor<24x8xf32>) -> tensor<6x4x8xf32>
  %y = telar.transpose %b {perm = array<i64: 1, 0, 2>} : (tensor<6x4x8xf32>) -> tensor<4x6x8xf32>
  return %y : tensor<4x6x8xf32>
}

// -----

// Values the batch's size that do not come from the batch: a constant
// whose blocks are all alike becomes its first block, a broadcast along
// the batch broadcasts to the microbatch. Their names stay.
// CHECK-LABEL: func.func @main
// CHECK-SAME: (%[[X:.*]]: tensor<2x3xf32> {telar.name = "x"}, %[[C:.*]]: tensor<1x3xf32> {telar.name = "cls"})
// CHECK: %[[K:.*]] = telar.constant {telar.result_names = ["mask"]} dense<{{\[}}[1.000000e+00, 2.000000e+00, 3.000000e+00], [1.000000e+00, 2.000000e+00, 3.000000e+00]]> : tensor<2x3xf32>
// CHECK: %[[A:.*]] = telar.add %[[X]], %[[K]]
// CHECK: %[[E:.*]] = telar.expand %[[C]] {shape = array<i64: 2, 3>, telar.result_names = ["tokens"]} : (tensor<1x3xf32>) -> tensor<2x3xf32>
// CHECK: telar.mul %[[A]], %[[E]] {{.*}} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
// expected-remark @below {{2 microbatches of the batch 4: input dims [0, -1], output dims [0]}}
func.func @main(%x: tensor<4x3xf32> {telar.name = "x"}, %cls: tensor<1x3xf32> {telar.name = "cls"}) -> tensor<4x3xf32> {
  %k = telar.constant {telar.result_names = ["mask"]} dense<[[1.0, 2.0, 3.0], [1.0, 2.0, 3.0], [1.0, 2.0, 3.0], [1.0, 2.0, 3.0]]> : tensor<4x3xf32>
  %a = telar.add %x, %k : (tensor<4x3xf32>, tensor<4x3xf32>) -> tensor<4x3xf32>
  %e = telar.expand %cls {shape = array<i64: 4, 3>, telar.result_names = ["tokens"]} : (tensor<1x3xf32>) -> tensor<4x3xf32>
  %y = telar.mul %a, %e {telar.result_names = ["y"]} : (tensor<4x3xf32>, tensor<4x3xf32>) -> tensor<4x3xf32>
  return %y : tensor<4x3xf32>
}

// -----

// A constant that differs per batch element: each microbatch would need
// its own part of it.
func.func @main(%x: tensor<4x3xf32> {telar.name = "x"}) -> tensor<4x3xf32> {
  %k = telar.constant {telar.result_names = ["mask"]} dense<[[1.0, 2.0, 3.0], [1.0, 2.0, 3.0], [1.0, 2.0, 4.0], [1.0, 2.0, 3.0]]> : tensor<4x3xf32>
  // expected-error @below {{'telar.add' (value 'y') mixes microbatches: operand 1 has the batch's size in dim 0 but does not come from the batch inputs (each microbatch would need its own part of it)}}
  %y = telar.add %x, %k {telar.result_names = ["y"]} : (tensor<4x3xf32>, tensor<4x3xf32>) -> tensor<4x3xf32>
  return %y : tensor<4x3xf32>
}

// -----

// An output holding the batch inside a dimension: the microbatches' parts
// of it do not concatenate.
func.func @main(%x: tensor<4x8xf32> {telar.name = "x"}) -> tensor<32xf32> {
  %t = telar.transpose %x {perm = array<i64: 1, 0>, telar.result_names = ["t"]} : (tensor<4x8xf32>) -> tensor<8x4xf32>
  %r = telar.reshape %t {shape = array<i64: 32>, telar.result_names = ["r"]} : (tensor<8x4xf32>) -> tensor<32xf32>
  // expected-error @below {{output 0 holds the batch inside dim 0 (size 32, the batch 4 with stride 1, not outermost): the microbatches' parts of it do not concatenate}}
  return %r : tensor<32xf32>
}

// -----

// M must divide the batch.
// expected-error @below {{--microbatches 2 does not divide the batch (3, dim 0 of 'input_ids')}}
func.func @main(%x: tensor<3x8xi64> {telar.name = "input_ids"}) -> tensor<3x8xi64> {
  return %x : tensor<3x8xi64>
}

// -----

// The batch comes from the first input: a scalar has none.
// expected-error @below {{microbatching takes the batch from dim 0 of the first input 's', which needs a static shape of rank >= 1 (it is 'tensor<f32>')}}
func.func @main(%s: tensor<f32> {telar.name = "s"}) -> tensor<f32> {
  return %s : tensor<f32>
}
