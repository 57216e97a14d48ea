// RUN: telar-opt %s -split-input-file -telar-partition | FileCheck %s

// Splitting the hidden axis into heads: the hidden axis is the product
// (heads, head_dim), split on its major factor; the reshape's shape is the
// local one.
// CHECK-LABEL: func.func @split_heads
// CHECK: telar.reshape %{{.*}} {shape = array<i64: 2, 4, 2, 4>} : (tensor<2x4x8xf32>) -> tensor<2x4x2x4xf32>
// CHECK-NOT: shard.all
// CHECK: return
module {
  shard.grid @mesh(shape = 2) {telar.axis_names = ["model"]}
  func.func @split_heads(%arg0: tensor<2x4x16xf32>) -> tensor<2x4x4x4xf32> {
    %s = shard.sharding @mesh split_axes = [[], [], [0]] : !shard.sharding
    %x = shard.shard %arg0 to %s : tensor<2x4x16xf32>
    %y = telar.reshape %x {shape = array<i64: 2, 4, 4, 4>} : (tensor<2x4x16xf32>) -> tensor<2x4x4x4xf32>
    %sy = shard.sharding @mesh split_axes = [[], [], [0]] : !shard.sharding
    %ys = shard.shard %y to %sy : tensor<2x4x4x4xf32>
    return %ys : tensor<2x4x4x4xf32>
  }
}

// -----

// Merging batch and sequence: the split batch is the major factor of the
// merged dim, a block of it.
// CHECK-LABEL: func.func @merge
// CHECK: telar.reshape %{{.*}} {shape = array<i64: 4, 16>} : (tensor<1x4x16xf32>) -> tensor<4x16xf32>
module {
  shard.grid @mesh(shape = 2) {telar.axis_names = ["data"]}
  func.func @merge(%arg0: tensor<2x4x16xf32>) -> tensor<8x16xf32> {
    %s = shard.sharding @mesh split_axes = [[0]] : !shard.sharding
    %x = shard.shard %arg0 to %s : tensor<2x4x16xf32>
    %y = telar.reshape %x {shape = array<i64: 8, 16>} : (tensor<2x4x16xf32>) -> tensor<8x16xf32>
    %ys = shard.shard %y to %s : tensor<8x16xf32>
    return %ys : tensor<8x16xf32>
  }
}

// -----

// Merging with the minor factor split (sequence parallel, then flattening
// batch x sequence): no block of the merged dim, so the sequence is
// gathered and the result computed whole, then sliced to its annotation.
// CHECK-LABEL: func.func @strided
// CHECK: %[[G:.*]] = shard.all_gather %{{.*}} on @mesh grid_axes = [0] gather_axis = 1 {{.*}} : tensor<2x2x16xf32> -> tensor<2x4x16xf32>
// CHECK: %[[R:.*]] = telar.reshape %[[G]] {shape = array<i64: 8, 16>} : (tensor<2x4x16xf32>) -> tensor<8x16xf32>
// CHECK: shard.all_slice %[[R]] on @mesh grid_axes = [0] slice_axis = 0 {{.*}} : tensor<8x16xf32> -> tensor<4x16xf32>
module {
  shard.grid @mesh(shape = 2) {telar.axis_names = ["seq"]}
  func.func @strided(%arg0: tensor<2x4x16xf32>) -> tensor<8x16xf32> {
    %s = shard.sharding @mesh split_axes = [[], [0]] : !shard.sharding
    %x = shard.shard %arg0 to %s : tensor<2x4x16xf32>
    %y = telar.reshape %x {shape = array<i64: 8, 16>} : (tensor<2x4x16xf32>) -> tensor<8x16xf32>
    %sy = shard.sharding @mesh split_axes = [[0]] : !shard.sharding
    %ys = shard.shard %y to %sy : tensor<8x16xf32>
    return %ys : tensor<8x16xf32>
  }
}

// -----

// A reshape that is no product of factors (6x4 to 4x6) runs on the whole
// tensor.
// CHECK-LABEL: func.func @no_product
// CHECK: %[[G:.*]] = shard.all_gather %{{.*}} gather_axis = 0 {{.*}} : tensor<3x4xf32> -> tensor<6x4xf32>
// CHECK: telar.reshape %[[G]] {shape = array<i64: 4, 6>} : (tensor<6x4xf32>) -> tensor<4x6xf32>
module {
  shard.grid @mesh(shape = 2) {telar.axis_names = ["data"]}
  func.func @no_product(%arg0: tensor<6x4xf32>) -> tensor<4x6xf32> {
    %s = shard.sharding @mesh split_axes = [[0]] : !shard.sharding
    %x = shard.shard %arg0 to %s : tensor<6x4xf32>
    %y = telar.reshape %x {shape = array<i64: 4, 6>} : (tensor<6x4xf32>) -> tensor<4x6xf32>
    return %y : tensor<4x6xf32>
  }
}

// -----

// A transpose carries the split to the permuted dim.
// CHECK-LABEL: func.func @transpose
// CHECK-SAME: -> (tensor<2x2x4x4xf32> {telar.global_shape = array<i64: 2, 4, 4, 4>, telar.sharding = {{\[\[}}], ["model"], [], []]})
// CHECK: telar.transpose %{{.*}} {perm = array<i64: 0, 2, 1, 3>} : (tensor<2x4x2x4xf32>) -> tensor<2x2x4x4xf32>
module {
  shard.grid @mesh(shape = 2) {telar.axis_names = ["model"]}
  func.func @transpose(%arg0: tensor<2x4x4x4xf32>) -> tensor<2x4x4x4xf32> {
    %s = shard.sharding @mesh split_axes = [[], [], [0]] : !shard.sharding
    %x = shard.shard %arg0 to %s : tensor<2x4x4x4xf32>
    %y = telar.transpose %x {perm = array<i64: 0, 2, 1, 3>} : (tensor<2x4x4x4xf32>) -> tensor<2x4x4x4xf32>
    %sy = shard.sharding @mesh split_axes = [[], [0]] : !shard.sharding
    %ys = shard.shard %y to %sy : tensor<2x4x4x4xf32>
    return %ys : tensor<2x4x4x4xf32>
  }
}

// -----

// Slicing a whole axis of a tensor split along another: the unsliced,
// split axis's bounds become local.
// CHECK-LABEL: func.func @slice
// CHECK: telar.slice %{{.*}} {axes = array<i64: 0, 1>, ends = array<i64: 4, 6>, starts = array<i64: 0, 2>, steps = array<i64: 1, 1>} : (tensor<4x8xf32>) -> tensor<4x4xf32>
module {
  shard.grid @mesh(shape = 2) {telar.axis_names = ["data"]}
  func.func @slice(%arg0: tensor<8x8xf32>) -> tensor<8x4xf32> {
    %s = shard.sharding @mesh split_axes = [[0]] : !shard.sharding
    %x = shard.shard %arg0 to %s : tensor<8x8xf32>
    %y = telar.slice %x {axes = array<i64: 0, 1>, starts = array<i64: 0, 2>, ends = array<i64: 8, 6>, steps = array<i64: 1, 1>} : (tensor<8x8xf32>) -> tensor<8x4xf32>
    %ys = shard.shard %y to %s : tensor<8x4xf32>
    return %ys : tensor<8x4xf32>
  }
}

// -----

// Concatenating along a split axis: the axis is gathered first.
// CHECK-LABEL: func.func @concat
// CHECK: %[[A:.*]] = shard.all_gather %{{.*}} gather_axis = 1 {{.*}} : tensor<4x2xf32> -> tensor<4x4xf32>
// CHECK: %[[B:.*]] = shard.all_gather %{{.*}} gather_axis = 1 {{.*}} : tensor<4x2xf32> -> tensor<4x4xf32>
// CHECK: telar.concat %[[A]], %[[B]] {axis = 1 : i64} : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x8xf32>
module {
  shard.grid @mesh(shape = 2) {telar.axis_names = ["model"]}
  func.func @concat(%arg0: tensor<4x4xf32>, %arg1: tensor<4x4xf32>) -> tensor<4x8xf32> {
    %s = shard.sharding @mesh split_axes = [[], [0]] : !shard.sharding
    %a = shard.shard %arg0 to %s : tensor<4x4xf32>
    %b = shard.shard %arg1 to %s : tensor<4x4xf32>
    %y = telar.concat %a, %b {axis = 1 : i64} : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x8xf32>
    return %y : tensor<4x8xf32>
  }
}

// -----

// An embedding lookup: the table split by its hidden axis and the ids by
// batch; the gathered (vocabulary) axis stays whole. Each rank looks up
// its ids in its columns.
// CHECK-LABEL: func.func @embedding
// CHECK: telar.gather %{{.*}}, %{{.*}} : (tensor<16x4xf32>, tensor<1x4xi64>) -> tensor<1x4x4xf32>
// CHECK-NOT: shard.all_gather
module {
  shard.grid @mesh(shape = 2x2) {telar.axis_names = ["data", "model"]}
  func.func @embedding(%ids: tensor<2x4xi64>) -> tensor<2x4x8xf32> {
    %t = telar.constant dense_resource<wte> : tensor<16x8xf32>
    %st = shard.sharding @mesh split_axes = [[], [1]] : !shard.sharding
    %ts = shard.shard %t to %st : tensor<16x8xf32>
    %si = shard.sharding @mesh split_axes = [[0]] : !shard.sharding
    %is = shard.shard %ids to %si : tensor<2x4xi64>
    %y = telar.gather %ts, %is {axis = 0 : i64} : (tensor<16x8xf32>, tensor<2x4xi64>) -> tensor<2x4x8xf32>
    %sy = shard.sharding @mesh split_axes = [[0], [], [1]] : !shard.sharding
    %ys = shard.shard %y to %sy : tensor<2x4x8xf32>
    return %ys : tensor<2x4x8xf32>
  }
}

// -----

// A lookup in a table split along the gathered (vocabulary) axis: the
// indices are global, so the table is gathered.
// CHECK-LABEL: func.func @vocabulary_split
// CHECK: %[[S:.*]] = shard.all_slice %{{.*}} slice_axis = 0 {{.*}} : tensor<16x8xf32> -> tensor<8x8xf32>
// CHECK: %[[G:.*]] = shard.all_gather %[[S]] on @mesh grid_axes = [0] gather_axis = 0 {{.*}} : tensor<8x8xf32> -> tensor<16x8xf32>
// CHECK: telar.gather %[[G]], %{{.*}} : (tensor<16x8xf32>, tensor<2x4xi64>) -> tensor<2x4x8xf32>
module {
  shard.grid @mesh(shape = 2) {telar.axis_names = ["model"]}
  func.func @vocabulary_split(%ids: tensor<2x4xi64>) -> tensor<2x4x8xf32> {
    %t = telar.constant dense_resource<wte> : tensor<16x8xf32>
    %st = shard.sharding @mesh split_axes = [[0]] : !shard.sharding
    %ts = shard.shard %t to %st : tensor<16x8xf32>
    %y = telar.gather %ts, %ids {axis = 0 : i64} : (tensor<16x8xf32>, tensor<2x4xi64>) -> tensor<2x4x8xf32>
    return %y : tensor<2x4x8xf32>
  }
}

// -----

// Expand: the broadcast dim is computed locally at the local size of the
// split dim beside it.
// CHECK-LABEL: func.func @expand
// CHECK: telar.expand %{{.*}} {shape = array<i64: 8, 8>} : (tensor<1x8xf32>) -> tensor<8x8xf32>
module {
  shard.grid @mesh(shape = 2) {telar.axis_names = ["model"]}
  func.func @expand(%arg0: tensor<1x16xf32>) -> tensor<8x16xf32> {
    %s = shard.sharding @mesh split_axes = [[], [0]] : !shard.sharding
    %x = shard.shard %arg0 to %s : tensor<1x16xf32>
    %y = telar.expand %x {shape = array<i64: 8, 16>} : (tensor<1x16xf32>) -> tensor<8x16xf32>
    %ys = shard.shard %y to %s : tensor<8x16xf32>
    return %ys : tensor<8x16xf32>
  }
}

// -----

// A partial sum moves through a reshape and a transpose unresolved.
// CHECK-LABEL: func.func @partial_moves
// CHECK: %[[M:.*]] = telar.matmul
// CHECK-NEXT: %[[R:.*]] = telar.reshape %[[M]]
// CHECK-NEXT: %[[T:.*]] = telar.transpose %[[R]]
// CHECK-NEXT: shard.all_reduce %[[T]] on @mesh grid_axes = [0]
module {
  shard.grid @mesh(shape = 2) {telar.axis_names = ["model"]}
  func.func @partial_moves(%arg0: tensor<4x8xf32>, %arg1: tensor<8x4xf32>) -> tensor<2x4x2xf32> {
    %sk = shard.sharding @mesh split_axes = [[], [0]] : !shard.sharding
    %sr = shard.sharding @mesh split_axes = [[0], []] : !shard.sharding
    %x = shard.shard %arg0 to %sk : tensor<4x8xf32>
    %w = shard.shard %arg1 to %sr : tensor<8x4xf32>
    %m = telar.matmul %x, %w : (tensor<4x8xf32>, tensor<8x4xf32>) -> tensor<4x4xf32>
    %sp2 = shard.sharding @mesh split_axes = [[], []] {telar.partial = {model = "sum"}} : !shard.sharding
    %ms = shard.shard %m to %sp2 : tensor<4x4xf32>
    %r = telar.reshape %ms {shape = array<i64: 4, 2, 2>} : (tensor<4x4xf32>) -> tensor<4x2x2xf32>
    %sp3 = shard.sharding @mesh split_axes = [[], [], []] {telar.partial = {model = "sum"}} : !shard.sharding
    %rs = shard.shard %r to %sp3 : tensor<4x2x2xf32>
    %t = telar.transpose %rs {perm = array<i64: 1, 0, 2>} : (tensor<4x2x2xf32>) -> tensor<2x4x2xf32>
    %ts = shard.shard %t to %sp3 : tensor<2x4x2xf32>
    %srep = shard.sharding @mesh split_axes = [[], [], []] : !shard.sharding
    %y = shard.shard %ts to %srep annotate_for_users : tensor<2x4x2xf32>
    return %y : tensor<2x4x2xf32>
  }
}

// -----

// Split and top_k have several results, each with its own annotation; the
// split axis stays whole while the other dim is split.
// CHECK-LABEL: func.func @multi_result
// CHECK: %[[S:.*]]:2 = telar.split %{{.*}} {axis = 1 : i64, sizes = array<i64: 2, 6>} : (tensor<2x8xf32>) -> (tensor<2x2xf32>, tensor<2x6xf32>)
// CHECK: %{{.*}}, %{{.*}} = telar.top_k %[[S]]#1 {{.*}} : (tensor<2x6xf32>) -> (tensor<2x3xf32>, tensor<2x3xi64>)
module {
  shard.grid @mesh(shape = 2) {telar.axis_names = ["data"]}
  func.func @multi_result(%arg0: tensor<4x8xf32>) -> (tensor<4x2xf32>, tensor<4x3xf32>, tensor<4x3xi64>) {
    %s = shard.sharding @mesh split_axes = [[0]] : !shard.sharding
    %x = shard.shard %arg0 to %s : tensor<4x8xf32>
    %a:2 = telar.split %x {axis = 1 : i64, sizes = array<i64: 2, 6>} : (tensor<4x8xf32>) -> (tensor<4x2xf32>, tensor<4x6xf32>)
    %a0 = shard.shard %a#0 to %s : tensor<4x2xf32>
    %a1 = shard.shard %a#1 to %s : tensor<4x6xf32>
    %v, %i = telar.top_k %a1 {axis = 1 : i64, k = 3 : i64, largest = true, sorted = true} : (tensor<4x6xf32>) -> (tensor<4x3xf32>, tensor<4x3xi64>)
    %vs = shard.shard %v to %s : tensor<4x3xf32>
    %is = shard.shard %i to %s : tensor<4x3xi64>
    return %a0, %vs, %is : tensor<4x2xf32>, tensor<4x3xf32>, tensor<4x3xi64>
  }
}
