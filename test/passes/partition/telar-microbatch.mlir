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
  // expected-error @below {{'telar.reduce_sum' (value 'total') mixes microbatches: split 2 ways along the batch, it needs shard.all_reduce across the microbatches}}
  %s = telar.reduce_sum %x {axes = array<i64: 0>, keepdims = false, telar.result_names = ["total"]} : (tensor<4x8xf32>) -> tensor<8xf32>
  return %s : tensor<8xf32>
}

// -----

// A reshape that merges the batch into a dimension it cannot be split
// from (the batch becomes the minor part of dim 1).
func.func @main(%x: tensor<4x8xf32> {telar.name = "x"}) -> tensor<32xf32> {
  %t = telar.transpose %x {perm = array<i64: 1, 0>, telar.result_names = ["t"]} : (tensor<4x8xf32>) -> tensor<8x4xf32>
  // expected-error @below {{mixes microbatches}}
  %r = telar.reshape %t {shape = array<i64: 32>, telar.result_names = ["r"]} : (tensor<8x4xf32>) -> tensor<32xf32>
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
