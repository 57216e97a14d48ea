// RUN: telar-opt %s -split-input-file -telar-partition | FileCheck %s

// Data parallel MLP: only the batch is split; the weights are replicated,
// so the program runs on local rows without a single collective.
// CHECK-LABEL: func.func @data_parallel
// CHECK-SAME: (%[[X:.*]]: tensor<4x16xf32> {telar.global_shape = array<i64: 8, 16>, telar.name = "x", telar.sharding = {{\[\[}}"data"], []]})
// CHECK-SAME: -> (tensor<4x8xf32> {telar.global_shape = array<i64: 8, 8>, telar.sharding = {{\[\[}}"data"], []]})
// CHECK-NOT: shard.
// CHECK: %[[H:.*]] = telar.matmul %[[X]], %{{.*}} : (tensor<4x16xf32>, tensor<16x32xf32>) -> tensor<4x32xf32>
// CHECK: telar.relu %[[H]] : (tensor<4x32xf32>) -> tensor<4x32xf32>
// CHECK: telar.matmul %{{.*}}, %{{.*}} : (tensor<4x32xf32>, tensor<32x8xf32>) -> tensor<4x8xf32>
// CHECK-NOT: shard.
// CHECK: return
module {
  shard.grid @mesh(shape = 2) {telar.axis_names = ["data"]}
  func.func @data_parallel(%arg0: tensor<8x16xf32> {telar.name = "x"}) -> tensor<8x8xf32> {
    %s = shard.sharding @mesh split_axes = [[0]] : !shard.sharding
    %x = shard.shard %arg0 to %s : tensor<8x16xf32>
    %w1 = telar.constant dense_resource<w1> : tensor<16x32xf32>
    %h = telar.matmul %x, %w1 : (tensor<8x16xf32>, tensor<16x32xf32>) -> tensor<8x32xf32>
    %hs = shard.shard %h to %s : tensor<8x32xf32>
    %r = telar.relu %hs : (tensor<8x32xf32>) -> tensor<8x32xf32>
    %rs = shard.shard %r to %s : tensor<8x32xf32>
    %w2 = telar.constant dense_resource<w2> : tensor<32x8xf32>
    %y = telar.matmul %rs, %w2 : (tensor<8x32xf32>, tensor<32x8xf32>) -> tensor<8x8xf32>
    %ys = shard.shard %y to %s : tensor<8x8xf32>
    return %ys : tensor<8x8xf32>
  }
}

// -----

// Megatron MLP: the first weight split by columns, the second by rows; the
// hidden activation stays split, the second matmul leaves a partial sum,
// resolved by the one all-reduce at the output. Weights stay global, then
// are sliced to the local block.
// CHECK-LABEL: func.func @megatron
// CHECK-SAME: (%[[X:.*]]: tensor<8x16xf32> {telar.name = "x"}) -> tensor<8x16xf32>
// CHECK: %[[W1:.*]] = telar.constant dense_resource<w1> : tensor<16x32xf32>
// CHECK: %[[W1L:.*]] = shard.all_slice %[[W1]] on @mesh grid_axes = [0] slice_axis = 1 {telar.bytes = 0 : i64} : tensor<16x32xf32> -> tensor<16x16xf32>
// CHECK: %[[H:.*]] = telar.matmul %[[X]], %[[W1L]] : (tensor<8x16xf32>, tensor<16x16xf32>) -> tensor<8x16xf32>
// CHECK: %[[G:.*]] = telar.gelu %[[H]]
// CHECK: %[[W2:.*]] = telar.constant dense_resource<w2> : tensor<32x16xf32>
// CHECK: %[[W2L:.*]] = shard.all_slice %[[W2]] on @mesh grid_axes = [0] slice_axis = 0 {telar.bytes = 0 : i64} : tensor<32x16xf32> -> tensor<16x16xf32>
// CHECK: %[[Y:.*]] = telar.matmul %[[G]], %[[W2L]] : (tensor<8x16xf32>, tensor<16x16xf32>) -> tensor<8x16xf32>
// CHECK: %[[R:.*]] = shard.all_reduce %[[Y]] on @mesh grid_axes = [0] {telar.bytes = 512 : i64} : tensor<8x16xf32> -> tensor<8x16xf32>
// CHECK-NOT: shard.
// CHECK: return %[[R]] : tensor<8x16xf32>
module {
  shard.grid @mesh(shape = 2) {telar.axis_names = ["model"]}
  func.func @megatron(%x: tensor<8x16xf32> {telar.name = "x"}) -> tensor<8x16xf32> {
    %w1 = telar.constant dense_resource<w1> : tensor<16x32xf32>
    %sc = shard.sharding @mesh split_axes = [[], [0]] : !shard.sharding
    %w1s = shard.shard %w1 to %sc : tensor<16x32xf32>
    %h = telar.matmul %x, %w1s : (tensor<8x16xf32>, tensor<16x32xf32>) -> tensor<8x32xf32>
    %hs = shard.shard %h to %sc : tensor<8x32xf32>
    %g = telar.gelu %hs {approximate = "none"} : (tensor<8x32xf32>) -> tensor<8x32xf32>
    %gs = shard.shard %g to %sc : tensor<8x32xf32>
    %w2 = telar.constant dense_resource<w2> : tensor<32x16xf32>
    %sr = shard.sharding @mesh split_axes = [[0], []] : !shard.sharding
    %w2s = shard.shard %w2 to %sr : tensor<32x16xf32>
    %y = telar.matmul %gs, %w2s : (tensor<8x32xf32>, tensor<32x16xf32>) -> tensor<8x16xf32>
    %sp = shard.sharding @mesh split_axes = [[], []] {telar.partial = {model = "sum"}} : !shard.sharding
    %ys = shard.shard %y to %sp : tensor<8x16xf32>
    %srep = shard.sharding @mesh split_axes = [[], []] : !shard.sharding
    %y2 = shard.shard %ys to %srep annotate_for_users : tensor<8x16xf32>
    return %y2 : tensor<8x16xf32>
  }
}

// -----

// Data x model on a 2x2 mesh: rows on "data", the MLP split on "model".
// The all-reduce runs over "model" only, on a [4x16] local block.
// CHECK-LABEL: func.func @data_model
// CHECK-SAME: tensor<4x16xf32> {telar.global_shape = array<i64: 8, 16>, telar.name = "x", telar.sharding = {{\[\[}}"data"], []]}
// CHECK: shard.all_slice %{{.*}} on @mesh grid_axes = [1] slice_axis = 1 {{.*}} : tensor<16x32xf32> -> tensor<16x16xf32>
// CHECK: telar.matmul {{.*}} : (tensor<4x16xf32>, tensor<16x16xf32>) -> tensor<4x16xf32>
// CHECK: shard.all_slice %{{.*}} on @mesh grid_axes = [1] slice_axis = 0 {{.*}} : tensor<32x16xf32> -> tensor<16x16xf32>
// CHECK: %[[Y:.*]] = telar.matmul {{.*}} : (tensor<4x16xf32>, tensor<16x16xf32>) -> tensor<4x16xf32>
// CHECK: %[[R:.*]] = shard.all_reduce %[[Y]] on @mesh grid_axes = [1] {telar.bytes = 256 : i64} : tensor<4x16xf32> -> tensor<4x16xf32>
// CHECK-NOT: shard.all
// CHECK: return %[[R]]
module {
  shard.grid @mesh(shape = 2x2) {telar.axis_names = ["data", "model"]}
  func.func @data_model(%arg0: tensor<8x16xf32> {telar.name = "x"}) -> tensor<8x16xf32> {
    %s0 = shard.sharding @mesh split_axes = [[0], []] : !shard.sharding
    %x = shard.shard %arg0 to %s0 : tensor<8x16xf32>
    %w1 = telar.constant dense_resource<w1> : tensor<16x32xf32>
    %sw1 = shard.sharding @mesh split_axes = [[], [1]] : !shard.sharding
    %w1s = shard.shard %w1 to %sw1 : tensor<16x32xf32>
    %h = telar.matmul %x, %w1s : (tensor<8x16xf32>, tensor<16x32xf32>) -> tensor<8x32xf32>
    %sh = shard.sharding @mesh split_axes = [[0], [1]] : !shard.sharding
    %hs = shard.shard %h to %sh : tensor<8x32xf32>
    %w2 = telar.constant dense_resource<w2> : tensor<32x16xf32>
    %sw2 = shard.sharding @mesh split_axes = [[1], []] : !shard.sharding
    %w2s = shard.shard %w2 to %sw2 : tensor<32x16xf32>
    %y = telar.matmul %hs, %w2s : (tensor<8x32xf32>, tensor<32x16xf32>) -> tensor<8x16xf32>
    %sp = shard.sharding @mesh split_axes = [[0], []] {telar.partial = {model = "sum"}} : !shard.sharding
    %ys = shard.shard %y to %sp : tensor<8x16xf32>
    %y2 = shard.shard %ys to %s0 annotate_for_users : tensor<8x16xf32>
    return %y2 : tensor<8x16xf32>
  }
}

// -----

// A consumer that wants the partial sum split gets a reduce-scatter, and
// the result is returned split.
// CHECK-LABEL: func.func @reduce_scatter
// CHECK-SAME: -> (tensor<4x16xf32> {telar.global_shape = array<i64: 8, 16>, telar.sharding = {{\[\[}}"model"], []]})
// CHECK: %[[Y:.*]] = telar.matmul {{.*}} : (tensor<8x8xf32>, tensor<8x16xf32>) -> tensor<8x16xf32>
// CHECK: %[[S:.*]] = shard.reduce_scatter %[[Y]] on @mesh grid_axes = [0] scatter_axis = 0 {telar.bytes = 256 : i64} : tensor<8x16xf32> -> tensor<4x16xf32>
// CHECK: telar.relu %[[S]] : (tensor<4x16xf32>) -> tensor<4x16xf32>
module {
  shard.grid @mesh(shape = 2) {telar.axis_names = ["model"]}
  func.func @reduce_scatter(%arg0: tensor<8x16xf32>, %arg1: tensor<16x16xf32>) -> tensor<8x16xf32> {
    %sk = shard.sharding @mesh split_axes = [[], [0]] : !shard.sharding
    %x = shard.shard %arg0 to %sk : tensor<8x16xf32>
    %sr = shard.sharding @mesh split_axes = [[0], []] : !shard.sharding
    %w = shard.shard %arg1 to %sr : tensor<16x16xf32>
    %y = telar.matmul %x, %w : (tensor<8x16xf32>, tensor<16x16xf32>) -> tensor<8x16xf32>
    %sp = shard.sharding @mesh split_axes = [[], []] {telar.partial = {model = "sum"}} : !shard.sharding
    %ys = shard.shard %y to %sp : tensor<8x16xf32>
    %y2 = shard.shard %ys to %sr annotate_for_users : tensor<8x16xf32>
    %r = telar.relu %y2 : (tensor<8x16xf32>) -> tensor<8x16xf32>
    %rs = shard.shard %r to %sr : tensor<8x16xf32>
    return %rs : tensor<8x16xf32>
  }
}

// -----

// Attention scores split by heads: a batched matmul on the local heads,
// no collective.
// CHECK-LABEL: func.func @heads
// CHECK: telar.matmul {{.*}} : (tensor<2x2x8x4xf32>, tensor<2x2x4x8xf32>) -> tensor<2x2x8x8xf32>
// CHECK-NOT: shard.
// CHECK: return
module {
  shard.grid @mesh(shape = 2) {telar.axis_names = ["model"]}
  func.func @heads(%arg0: tensor<2x4x8x4xf32>, %arg1: tensor<2x4x4x8xf32>) -> tensor<2x4x8x8xf32> {
    %s = shard.sharding @mesh split_axes = [[], [0]] : !shard.sharding
    %q = shard.shard %arg0 to %s : tensor<2x4x8x4xf32>
    %k = shard.shard %arg1 to %s : tensor<2x4x4x8xf32>
    %y = telar.matmul %q, %k : (tensor<2x4x8x4xf32>, tensor<2x4x4x8xf32>) -> tensor<2x4x8x8xf32>
    %ys = shard.shard %y to %s : tensor<2x4x8x8xf32>
    return %ys : tensor<2x4x8x8xf32>
  }
}

// -----

// Expert parallel einsum MoE: tokens grouped by "expert" axis, the experts'
// weights split by expert on the same axis. The dispatch's result is split
// by token group; the expert FFN wants it split by expert: an all-to-all
// moves the axis (split_axis = the expert dim, concat_axis = the group
// dim); the combine moves it back.
// CHECK-LABEL: func.func @moe
// CHECK: %[[D:.*]] = telar.einsum {{.*}} : (tensor<1x4x8xf32>, tensor<1x4x4x2xf32>) -> tensor<4x1x2x8xf32>
// CHECK: %[[A:.*]] = shard.all_to_all %[[D]] on @mesh grid_axes = [0] split_axis = 0 concat_axis = 1 {telar.bytes = 128 : i64} : tensor<4x1x2x8xf32> -> tensor<2x2x2x8xf32>
// CHECK: shard.all_slice %{{.*}} on @mesh grid_axes = [0] slice_axis = 0 {{.*}} : tensor<4x8x8xf32> -> tensor<2x8x8xf32>
// CHECK: %[[E:.*]] = telar.einsum %[[A]], %{{.*}} : (tensor<2x2x2x8xf32>, tensor<2x8x8xf32>) -> tensor<2x2x2x8xf32>
// CHECK: %[[B:.*]] = shard.all_to_all %[[E]] on @mesh grid_axes = [0] split_axis = 1 concat_axis = 0 {telar.bytes = 128 : i64} : tensor<2x2x2x8xf32> -> tensor<4x1x2x8xf32>
// CHECK: telar.einsum %[[B]], %{{.*}} : (tensor<4x1x2x8xf32>, tensor<1x4x4x2xf32>) -> tensor<1x4x8xf32>
module {
  shard.grid @mesh(shape = 2) {telar.axis_names = ["expert"]}
  func.func @moe(%arg0: tensor<2x4x8xf32>, %arg1: tensor<2x4x4x2xf32>) -> tensor<2x4x8xf32> {
    %sg = shard.sharding @mesh split_axes = [[0]] : !shard.sharding
    %x = shard.shard %arg0 to %sg : tensor<2x4x8xf32>
    %m = shard.shard %arg1 to %sg : tensor<2x4x4x2xf32>
    %d = telar.einsum %x, %m {equation = #telar.einsum<[g, s, d], [g, s, e, c] -> [e, g, c, d]>} : (tensor<2x4x8xf32>, tensor<2x4x4x2xf32>) -> tensor<4x2x2x8xf32>
    %sdg = shard.sharding @mesh split_axes = [[], [0]] : !shard.sharding
    %ds = shard.shard %d to %sdg : tensor<4x2x2x8xf32>
    %de = shard.shard %ds to %sg annotate_for_users : tensor<4x2x2x8xf32>
    %w = telar.constant dense_resource<experts> : tensor<4x8x8xf32>
    %ws = shard.shard %w to %sg : tensor<4x8x8xf32>
    %e = telar.einsum %de, %ws {equation = #telar.einsum<[e, g, c, d], [e, d, h] -> [e, g, c, h]>} : (tensor<4x2x2x8xf32>, tensor<4x8x8xf32>) -> tensor<4x2x2x8xf32>
    %es = shard.shard %e to %sg : tensor<4x2x2x8xf32>
    %eg = shard.shard %es to %sdg annotate_for_users : tensor<4x2x2x8xf32>
    %y = telar.einsum %eg, %m {equation = #telar.einsum<[e, g, c, h], [g, s, e, c] -> [g, s, h]>} : (tensor<4x2x2x8xf32>, tensor<2x4x4x2xf32>) -> tensor<2x4x8xf32>
    %ys = shard.shard %y to %sg : tensor<2x4x8xf32>
    return %ys : tensor<2x4x8xf32>
  }
}

// -----

// An einsum whose summed label is split leaves a partial sum; a use that
// wants the result split by sequence gets a reduce-scatter.
// CHECK-LABEL: func.func @einsum_sum
// CHECK: %[[E:.*]] = telar.einsum {{.*}} : (tensor<2x8x8xf32>, tensor<8x4xf32>) -> tensor<2x8x4xf32>
// CHECK: shard.reduce_scatter %[[E]] on @mesh grid_axes = [0] scatter_axis = 1 {telar.bytes = 128 : i64} : tensor<2x8x4xf32> -> tensor<2x4x4xf32>
module {
  shard.grid @mesh(shape = 2) {telar.axis_names = ["model"]}
  func.func @einsum_sum(%arg0: tensor<2x8x16xf32>, %arg1: tensor<16x4xf32>) -> tensor<2x8x4xf32> {
    %sx = shard.sharding @mesh split_axes = [[], [], [0]] : !shard.sharding
    %x = shard.shard %arg0 to %sx : tensor<2x8x16xf32>
    %sw = shard.sharding @mesh split_axes = [[0]] : !shard.sharding
    %w = shard.shard %arg1 to %sw : tensor<16x4xf32>
    %e = telar.einsum %x, %w {equation = #telar.einsum<[b, s, d], [d, h] -> [b, s, h]>} : (tensor<2x8x16xf32>, tensor<16x4xf32>) -> tensor<2x8x4xf32>
    %sp = shard.sharding @mesh split_axes = [[], [], []] {telar.partial = {model = "sum"}} : !shard.sharding
    %es = shard.shard %e to %sp : tensor<2x8x4xf32>
    %ss = shard.sharding @mesh split_axes = [[], [0]] : !shard.sharding
    %r = shard.shard %es to %ss annotate_for_users : tensor<2x8x4xf32>
    return %r : tensor<2x8x4xf32>
  }
}
