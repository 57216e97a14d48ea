// RUN: telar-opt %s -split-input-file -telar-partition -test-telar-collectives 2>&1 >/dev/null | FileCheck %s

// Megatron on data x model: the weights' local slices (no bytes) and the
// one all-reduce over "model" of the [4x16] f32 block: 2(G-1)/G * 256 bytes.
// CHECK: remark: all_slice over [model]: [16x32] -> [16x16] f32, 0 bytes per rank
// CHECK: remark: all_slice over [model]: [32x16] -> [16x16] f32, 0 bytes per rank
// CHECK: remark: all_reduce over [model]: [4x16] -> [4x16] f32, 256 bytes per rank
// CHECK: remark: 3 collectives, 256 bytes per rank
module {
  shard.grid @mesh(shape = 2x2) {telar.axis_names = ["data", "model"]}
  func.func @main(%arg0: tensor<8x16xf32>) -> tensor<8x16xf32> {
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

// Moving an axis and gathering a sequence split on a 3-D mesh, as
// telar_sharding::reshard orders them (the all-to-all first, on the larger
// block, then the gather of the smaller one): all_to_all sends (G-1)/G * B,
// all_gather (G-1) * B, with B the local input's bytes (i64: 8 bytes an
// element).
// CHECK: remark: all_to_all over [b]: [2x2x4] -> [1x2x8] i64, 64 bytes per rank
// CHECK: remark: all_gather over [seq]: [1x2x8] -> [1x4x8] i64, 128 bytes per rank
// CHECK: remark: 2 collectives, 192 bytes per rank
module {
  shard.grid @mesh(shape = 2x1x2) {telar.axis_names = ["seq", "a", "b"]}
  func.func @main(%arg0: tensor<2x4x8xi64>) -> tensor<2x4x8xi64> {
    %s = shard.sharding @mesh split_axes = [[], [0], [2]] : !shard.sharding
    %x = shard.shard %arg0 to %s : tensor<2x4x8xi64>
    %t = shard.sharding @mesh split_axes = [[2], [], []] : !shard.sharding
    %y = shard.shard %x to %t annotate_for_users : tensor<2x4x8xi64>
    return %y : tensor<2x4x8xi64>
  }
}
