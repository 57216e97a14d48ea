// RUN: telar-opt %s -split-input-file -telar-partition | FileCheck %s

// Channel split of a convolution (ResNet's "channel split"): the weight's
// output channels on "model", so each rank computes its output channels
// from the whole input; then a 1x1 conv reduces over the split channels,
// leaving a partial sum.
// CHECK-LABEL: func.func @channels
// CHECK: %[[W:.*]] = shard.all_slice %{{.*}} slice_axis = 0 {{.*}} : tensor<8x4x3x3xf32> -> tensor<4x4x3x3xf32>
// CHECK: %[[C:.*]] = telar.conv %{{.*}}, %[[W]] {{.*}} : (tensor<1x4x8x8xf32>, tensor<4x4x3x3xf32>) -> tensor<1x4x8x8xf32>
// CHECK: %[[V:.*]] = shard.all_slice %{{.*}} slice_axis = 1 {{.*}} : tensor<4x8x1x1xf32> -> tensor<4x4x1x1xf32>
// CHECK: %[[D:.*]] = telar.conv %[[C]], %[[V]] {{.*}} : (tensor<1x4x8x8xf32>, tensor<4x4x1x1xf32>) -> tensor<1x4x8x8xf32>
// CHECK: shard.all_reduce %[[D]] on @mesh grid_axes = [0] {telar.bytes = 1024 : i64}
module {
  shard.grid @mesh(shape = 2) {telar.axis_names = ["model"]}
  func.func @channels(%x: tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32> {
    %w = telar.constant dense_resource<w> : tensor<8x4x3x3xf32>
    %so = shard.sharding @mesh split_axes = [[0]] : !shard.sharding
    %ws = shard.shard %w to %so : tensor<8x4x3x3xf32>
    %c = telar.conv %x, %ws {dilations = array<i64: 1, 1>, group = 1 : i64, kernel_shape = array<i64: 3, 3>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : (tensor<1x4x8x8xf32>, tensor<8x4x3x3xf32>) -> tensor<1x8x8x8xf32>
    %sc = shard.sharding @mesh split_axes = [[], [0]] : !shard.sharding
    %cs = shard.shard %c to %sc : tensor<1x8x8x8xf32>
    %v = telar.constant dense_resource<v> : tensor<4x8x1x1xf32>
    %vs = shard.shard %v to %sc : tensor<4x8x1x1xf32>
    %d = telar.conv %cs, %vs {dilations = array<i64: 1, 1>, group = 1 : i64, kernel_shape = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x8x8x8xf32>, tensor<4x8x1x1xf32>) -> tensor<1x4x8x8xf32>
    %sp = shard.sharding @mesh split_axes = [[]] {telar.partial = {model = "sum"}} : !shard.sharding
    %ds = shard.shard %d to %sp : tensor<1x4x8x8xf32>
    %srep = shard.sharding @mesh split_axes = [[]] : !shard.sharding
    %r = shard.shard %ds to %srep annotate_for_users : tensor<1x4x8x8xf32>
    return %r : tensor<1x4x8x8xf32>
  }
}

// -----

// A depthwise convolution with its channels (the groups) split: the local
// op has the local number of groups.
// CHECK-LABEL: func.func @depthwise
// CHECK: telar.conv %{{.*}}, %{{.*}} {{.*}}group = 2 : i64{{.*}} : (tensor<1x2x8x8xf32>, tensor<2x1x3x3xf32>) -> tensor<1x2x8x8xf32>
module {
  shard.grid @mesh(shape = 2) {telar.axis_names = ["model"]}
  func.func @depthwise(%arg0: tensor<1x4x8x8xf32>, %arg1: tensor<4x1x3x3xf32>) -> tensor<1x4x8x8xf32> {
    %sc = shard.sharding @mesh split_axes = [[], [0]] : !shard.sharding
    %so = shard.sharding @mesh split_axes = [[0]] : !shard.sharding
    %x = shard.shard %arg0 to %sc : tensor<1x4x8x8xf32>
    %w = shard.shard %arg1 to %so : tensor<4x1x3x3xf32>
    %c = telar.conv %x, %w {dilations = array<i64: 1, 1>, group = 4 : i64, kernel_shape = array<i64: 3, 3>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : (tensor<1x4x8x8xf32>, tensor<4x1x3x3xf32>) -> tensor<1x4x8x8xf32>
    %cs = shard.shard %c to %sc : tensor<1x4x8x8xf32>
    return %cs : tensor<1x4x8x8xf32>
  }
}

// -----

// Batch split convolution and pool (data parallel ResNet): local.
// CHECK-LABEL: func.func @batch
// CHECK: telar.conv {{.*}} : (tensor<2x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<2x4x4x4xf32>
// CHECK: telar.max_pool {{.*}} : (tensor<2x4x4x4xf32>) -> tensor<2x4x2x2xf32>
// CHECK-NOT: shard.all
// CHECK: return
module {
  shard.grid @mesh(shape = 2) {telar.axis_names = ["data"]}
  func.func @batch(%arg0: tensor<4x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) -> tensor<4x4x2x2xf32> {
    %s = shard.sharding @mesh split_axes = [[0]] : !shard.sharding
    %x = shard.shard %arg0 to %s : tensor<4x3x8x8xf32>
    %c = telar.conv %x, %w {dilations = array<i64: 1, 1>, group = 1 : i64, kernel_shape = array<i64: 3, 3>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>} : (tensor<4x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<4x4x4x4xf32>
    %cs = shard.shard %c to %s : tensor<4x4x4x4xf32>
    %p = telar.max_pool %cs {kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>} : (tensor<4x4x4x4xf32>) -> tensor<4x4x2x2xf32>
    %ps = shard.shard %p to %s : tensor<4x4x2x2xf32>
    return %ps : tensor<4x4x2x2xf32>
  }
}

// -----

// Rows of an image split (spatial split): a pool window reads a halo, so
// the rows are gathered, the pool computed whole and its output rows
// sliced back.
// CHECK-LABEL: func.func @spatial
// CHECK: %[[G:.*]] = shard.all_gather %{{.*}} gather_axis = 2 {{.*}} : tensor<1x2x4x8xf32> -> tensor<1x2x8x8xf32>
// CHECK: %[[P:.*]] = telar.average_pool %[[G]] {{.*}} : (tensor<1x2x8x8xf32>) -> tensor<1x2x4x4xf32>
// CHECK: shard.all_slice %[[P]] {{.*}} slice_axis = 2 {{.*}} : tensor<1x2x4x4xf32> -> tensor<1x2x2x4xf32>
module {
  shard.grid @mesh(shape = 2) {telar.axis_names = ["rows"]}
  func.func @spatial(%arg0: tensor<1x2x8x8xf32>) -> tensor<1x2x4x4xf32> {
    %s = shard.sharding @mesh split_axes = [[], [], [0]] : !shard.sharding
    %x = shard.shard %arg0 to %s : tensor<1x2x8x8xf32>
    %p = telar.average_pool %x {kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>} : (tensor<1x2x8x8xf32>) -> tensor<1x2x4x4xf32>
    %ps = shard.shard %p to %s : tensor<1x2x4x4xf32>
    return %ps : tensor<1x2x4x4xf32>
  }
}
