// RUN: telar-opt %s -split-input-file -telar-partition | FileCheck %s

// A sum over a split axis leaves a partial sum; the output wants it whole.
// CHECK-LABEL: func.func @sum
// CHECK: %[[S:.*]] = telar.reduce_sum %{{.*}} {{.*}} : (tensor<4x4xf32>) -> tensor<4xf32>
// CHECK: %[[R:.*]] = shard.all_reduce %[[S]] on @mesh grid_axes = [0] {telar.bytes = 16 : i64} : tensor<4xf32> -> tensor<4xf32>
// CHECK: return %[[R]]
module {
  shard.grid @mesh(shape = 2) {telar.axis_names = ["model"]}
  func.func @sum(%arg0: tensor<4x8xf32>) -> tensor<4xf32> {
    %s = shard.sharding @mesh split_axes = [[], [0]] : !shard.sharding
    %x = shard.shard %arg0 to %s : tensor<4x8xf32>
    %y = telar.reduce_sum %x {axes = array<i64: 1>, keepdims = false} : (tensor<4x8xf32>) -> tensor<4xf32>
    %sp = shard.sharding @mesh split_axes = [[]] {telar.partial = {model = "sum"}} : !shard.sharding
    %ys = shard.shard %y to %sp : tensor<4xf32>
    %srep = shard.sharding @mesh split_axes = [[]] : !shard.sharding
    %r = shard.shard %ys to %srep annotate_for_users : tensor<4xf32>
    return %r : tensor<4xf32>
  }
}

// -----

// A max over a split axis: a partial max, an all-reduce with max.
// CHECK-LABEL: func.func @max
// CHECK: %[[S:.*]] = telar.reduce_max %{{.*}} : (tensor<4x4xf32>) -> tensor<4x1xf32>
// CHECK: shard.all_reduce %[[S]] on @mesh grid_axes = [0] reduction = {{ *}}max {telar.bytes = 16 : i64}
module {
  shard.grid @mesh(shape = 2) {telar.axis_names = ["model"]}
  func.func @max(%arg0: tensor<4x8xf32>) -> tensor<4x1xf32> {
    %s = shard.sharding @mesh split_axes = [[], [0]] : !shard.sharding
    %x = shard.shard %arg0 to %s : tensor<4x8xf32>
    %y = telar.reduce_max %x {axes = array<i64: 1>, keepdims = true} : (tensor<4x8xf32>) -> tensor<4x1xf32>
    %sp = shard.sharding @mesh split_axes = [[], []] {telar.partial = {model = "max"}} : !shard.sharding
    %ys = shard.shard %y to %sp : tensor<4x1xf32>
    %srep = shard.sharding @mesh split_axes = [[], []] : !shard.sharding
    %r = shard.shard %ys to %srep annotate_for_users : tensor<4x1xf32>
    return %r : tensor<4x1xf32>
  }
}

// -----

// A mean over an axis split in two: local means halved are partial sums.
// CHECK-LABEL: func.func @mean
// CHECK: %[[M:.*]] = telar.reduce_mean %{{.*}} : (tensor<4x4xf32>) -> tensor<4xf32>
// CHECK: %[[H:.*]] = telar.constant dense<5.000000e-01> : tensor<f32>
// CHECK: %[[P:.*]] = telar.mul %[[M]], %[[H]] : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
// CHECK: shard.all_reduce %[[P]] on @mesh grid_axes = [0]
module {
  shard.grid @mesh(shape = 2) {telar.axis_names = ["model"]}
  func.func @mean(%arg0: tensor<4x8xf32>) -> tensor<4xf32> {
    %s = shard.sharding @mesh split_axes = [[], [0]] : !shard.sharding
    %x = shard.shard %arg0 to %s : tensor<4x8xf32>
    %y = telar.reduce_mean %x {axes = array<i64: 1>, keepdims = false} : (tensor<4x8xf32>) -> tensor<4xf32>
    %sp = shard.sharding @mesh split_axes = [[]] {telar.partial = {model = "sum"}} : !shard.sharding
    %ys = shard.shard %y to %sp : tensor<4xf32>
    %srep = shard.sharding @mesh split_axes = [[]] : !shard.sharding
    %r = shard.shard %ys to %srep annotate_for_users : tensor<4xf32>
    return %r : tensor<4xf32>
  }
}

// -----

// A product has no partial kind: its split axis is gathered first.
// CHECK-LABEL: func.func @prod
// CHECK: %[[G:.*]] = shard.all_gather %{{.*}} on @mesh grid_axes = [0] gather_axis = 1 {{.*}} : tensor<4x4xf32> -> tensor<4x8xf32>
// CHECK: telar.reduce_prod %[[G]] {{.*}} : (tensor<4x8xf32>) -> tensor<4xf32>
module {
  shard.grid @mesh(shape = 2) {telar.axis_names = ["model"]}
  func.func @prod(%arg0: tensor<4x8xf32>) -> tensor<4xf32> {
    %s = shard.sharding @mesh split_axes = [[], [0]] : !shard.sharding
    %x = shard.shard %arg0 to %s : tensor<4x8xf32>
    %y = telar.reduce_prod %x {axes = array<i64: 1>, keepdims = false} : (tensor<4x8xf32>) -> tensor<4xf32>
    return %y : tensor<4xf32>
  }
}

// -----

// Softmax over split rows runs locally; over a split axis, the axis is
// gathered (replicated statistics) and the result sliced back.
// CHECK-LABEL: func.func @softmax
// CHECK: %[[A:.*]] = telar.softmax %{{.*}} : (tensor<4x8xf32>) -> tensor<4x8xf32>
// CHECK: %[[G:.*]] = shard.all_gather %{{.*}} on @mesh grid_axes = [0] gather_axis = 1 {telar.bytes = 64 : i64} : tensor<4x4xf32> -> tensor<4x8xf32>
// CHECK: %[[B:.*]] = telar.softmax %[[G]] {axis = 1 : i64} : (tensor<4x8xf32>) -> tensor<4x8xf32>
// CHECK: shard.all_slice %[[B]] on @mesh grid_axes = [0] slice_axis = 1 {telar.bytes = 0 : i64} : tensor<4x8xf32> -> tensor<4x4xf32>
module {
  shard.grid @mesh(shape = 2) {telar.axis_names = ["model"]}
  func.func @softmax(%arg0: tensor<8x8xf32>, %arg1: tensor<4x8xf32>) -> (tensor<8x8xf32>, tensor<4x8xf32>) {
    %rows = shard.sharding @mesh split_axes = [[0]] : !shard.sharding
    %x = shard.shard %arg0 to %rows : tensor<8x8xf32>
    %a = telar.softmax %x {axis = -1 : i64} : (tensor<8x8xf32>) -> tensor<8x8xf32>
    %as = shard.shard %a to %rows : tensor<8x8xf32>
    %cols = shard.sharding @mesh split_axes = [[], [0]] : !shard.sharding
    %y = shard.shard %arg1 to %cols : tensor<4x8xf32>
    %b = telar.softmax %y {axis = 1 : i64} : (tensor<4x8xf32>) -> tensor<4x8xf32>
    %bs = shard.shard %b to %cols : tensor<4x8xf32>
    return %as, %bs : tensor<8x8xf32>, tensor<4x8xf32>
  }
}

// -----

// Layer norm over the hidden axis of a [batch, seq, hidden] activation split
// by sequence (sequence parallel): local, no collective; the scale and bias
// are replicated.
// CHECK-LABEL: func.func @layer_norm
// CHECK: telar.layer_norm %{{.*}}, %{{.*}}, %{{.*}} : (tensor<2x4x16xf32>, tensor<16xf32>, tensor<16xf32>) -> tensor<2x4x16xf32>
// CHECK-NOT: shard.all
// CHECK: return
module {
  shard.grid @mesh(shape = 2) {telar.axis_names = ["seq"]}
  func.func @layer_norm(%arg0: tensor<2x8x16xf32>, %g: tensor<16xf32>, %b: tensor<16xf32>) -> tensor<2x8x16xf32> {
    %s = shard.sharding @mesh split_axes = [[], [0]] : !shard.sharding
    %x = shard.shard %arg0 to %s : tensor<2x8x16xf32>
    %y = telar.layer_norm %x, %g, %b {axis = -1 : i64, epsilon = 1.0e-05 : f32} : (tensor<2x8x16xf32>, tensor<16xf32>, tensor<16xf32>) -> tensor<2x8x16xf32>
    %ys = shard.shard %y to %s : tensor<2x8x16xf32>
    return %ys : tensor<2x8x16xf32>
  }
}

// -----

// arg_max over a split axis: gathered (an index is no partial result).
// CHECK-LABEL: func.func @arg_max
// CHECK: %[[G:.*]] = shard.all_gather %{{.*}} gather_axis = 1 {{.*}} : tensor<4x4xf32> -> tensor<4x8xf32>
// CHECK: telar.arg_max %[[G]] {{.*}} : (tensor<4x8xf32>) -> tensor<4xi64>
module {
  shard.grid @mesh(shape = 2) {telar.axis_names = ["model"]}
  func.func @arg_max(%arg0: tensor<4x8xf32>) -> tensor<4xi64> {
    %s = shard.sharding @mesh split_axes = [[], [0]] : !shard.sharding
    %x = shard.shard %arg0 to %s : tensor<4x8xf32>
    %y = telar.arg_max %x {axis = 1 : i64, keepdims = false} : (tensor<4x8xf32>) -> tensor<4xi64>
    return %y : tensor<4xi64>
  }
}
