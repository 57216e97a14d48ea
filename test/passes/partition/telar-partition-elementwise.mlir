// RUN: telar-opt %s -split-input-file -telar-partition | FileCheck %s

// A bias broadcast against split rows: each rank adds the whole bias to its
// rows.
// CHECK-LABEL: func.func @bias
// CHECK: telar.add %{{.*}}, %{{.*}} : (tensor<4x16xf32>, tensor<16xf32>) -> tensor<4x16xf32>
// CHECK-NOT: shard.all
// CHECK: return
module {
  shard.grid @mesh(shape = 2) {telar.axis_names = ["data"]}
  func.func @bias(%arg0: tensor<8x16xf32>, %b: tensor<16xf32>) -> tensor<8x16xf32> {
    %s = shard.sharding @mesh split_axes = [[0]] : !shard.sharding
    %x = shard.shard %arg0 to %s : tensor<8x16xf32>
    %y = telar.add %x, %b : (tensor<8x16xf32>, tensor<16xf32>) -> tensor<8x16xf32>
    %ys = shard.shard %y to %s : tensor<8x16xf32>
    return %ys : tensor<8x16xf32>
  }
}

// -----

// The bias follows split columns: its use is annotated split, so it is
// sliced (a local slice, no communication) before the add.
// CHECK-LABEL: func.func @column_bias
// CHECK: %[[B:.*]] = shard.all_slice %{{.*}} on @mesh grid_axes = [0] slice_axis = 0 {telar.bytes = 0 : i64} : tensor<16xf32> -> tensor<8xf32>
// CHECK: telar.add %{{.*}}, %[[B]] : (tensor<8x8xf32>, tensor<8xf32>) -> tensor<8x8xf32>
module {
  shard.grid @mesh(shape = 2) {telar.axis_names = ["model"]}
  func.func @column_bias(%arg0: tensor<8x16xf32>, %b: tensor<16xf32>) -> tensor<8x16xf32> {
    %s = shard.sharding @mesh split_axes = [[], [0]] : !shard.sharding
    %x = shard.shard %arg0 to %s : tensor<8x16xf32>
    %sb = shard.sharding @mesh split_axes = [[0]] : !shard.sharding
    %bs = shard.shard %b to %sb annotate_for_users : tensor<16xf32>
    %y = telar.add %x, %bs : (tensor<8x16xf32>, tensor<16xf32>) -> tensor<8x16xf32>
    %ys = shard.shard %y to %s : tensor<8x16xf32>
    return %ys : tensor<8x16xf32>
  }
}

// -----

// A sharded dense constant is built whole and sliced to the rank's block.
// CHECK-LABEL: func.func @constant
// CHECK: %[[C:.*]] = telar.constant dense<{{.*}}> : tensor<4x2xf32>
// CHECK: %[[L:.*]] = shard.all_slice %[[C]] on @mesh grid_axes = [0] slice_axis = 0 {telar.bytes = 0 : i64} : tensor<4x2xf32> -> tensor<2x2xf32>
// CHECK: telar.mul %{{.*}}, %[[L]] : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>
module {
  shard.grid @mesh(shape = 2) {telar.axis_names = ["data"]}
  func.func @constant(%arg0: tensor<4x2xf32>) -> tensor<4x2xf32> {
    %s = shard.sharding @mesh split_axes = [[0]] : !shard.sharding
    %x = shard.shard %arg0 to %s : tensor<4x2xf32>
    %c = telar.constant dense<[[1.0, 2.0], [3.0, 4.0], [5.0, 6.0], [7.0, 8.0]]> : tensor<4x2xf32>
    %cs = shard.shard %c to %s : tensor<4x2xf32>
    %y = telar.mul %x, %cs : (tensor<4x2xf32>, tensor<4x2xf32>) -> tensor<4x2xf32>
    %ys = shard.shard %y to %s : tensor<4x2xf32>
    return %ys : tensor<4x2xf32>
  }
}

// -----

// Partial sums stay partial through add (both partial alike) and through
// mul by a replicated value; one all-reduce resolves them at the output.
// CHECK-LABEL: func.func @partial_add
// CHECK: %[[A:.*]] = telar.matmul {{.*}} -> tensor<4x4xf32>
// CHECK: %[[B:.*]] = telar.matmul {{.*}} -> tensor<4x4xf32>
// CHECK-NOT: shard.all
// CHECK: %[[S:.*]] = telar.add %[[A]], %[[B]]
// CHECK: %[[M:.*]] = telar.mul %[[S]], %{{.*}} : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
// CHECK: %[[R:.*]] = shard.all_reduce %[[M]] on @mesh grid_axes = [0] {telar.bytes = 64 : i64}
// CHECK: return %[[R]]
module {
  shard.grid @mesh(shape = 2) {telar.axis_names = ["model"]}
  func.func @partial_add(%arg0: tensor<4x8xf32>, %arg1: tensor<8x4xf32>, %arg2: tensor<4x4xf32>) -> tensor<4x4xf32> {
    %sk = shard.sharding @mesh split_axes = [[], [0]] : !shard.sharding
    %sr = shard.sharding @mesh split_axes = [[0], []] : !shard.sharding
    %sp = shard.sharding @mesh split_axes = [[], []] {telar.partial = {model = "sum"}} : !shard.sharding
    %srep = shard.sharding @mesh split_axes = [[], []] : !shard.sharding
    %x = shard.shard %arg0 to %sk : tensor<4x8xf32>
    %w = shard.shard %arg1 to %sr : tensor<8x4xf32>
    %a = telar.matmul %x, %w : (tensor<4x8xf32>, tensor<8x4xf32>) -> tensor<4x4xf32>
    %as = shard.shard %a to %sp : tensor<4x4xf32>
    %b = telar.matmul %x, %w : (tensor<4x8xf32>, tensor<8x4xf32>) -> tensor<4x4xf32>
    %bs = shard.shard %b to %sp : tensor<4x4xf32>
    %s = telar.add %as, %bs : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
    %ss = shard.shard %s to %sp : tensor<4x4xf32>
    %m = telar.mul %ss, %arg2 : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
    %ms = shard.shard %m to %sp : tensor<4x4xf32>
    %r = shard.shard %ms to %srep annotate_for_users : tensor<4x4xf32>
    return %r : tensor<4x4xf32>
  }
}

// -----

// A result annotated with more axes than its operands give is computed
// whole and then sliced.
// CHECK-LABEL: func.func @slice_result
// CHECK: %[[E:.*]] = telar.exp %{{.*}} : (tensor<8x4xf32>) -> tensor<8x4xf32>
// CHECK: shard.all_slice %[[E]] on @mesh grid_axes = [0] slice_axis = 0 {telar.bytes = 0 : i64} : tensor<8x4xf32> -> tensor<4x4xf32>
module {
  shard.grid @mesh(shape = 2) {telar.axis_names = ["data"]}
  func.func @slice_result(%arg0: tensor<8x4xf32>) -> tensor<8x4xf32> {
    %e = telar.exp %arg0 : (tensor<8x4xf32>) -> tensor<8x4xf32>
    %s = shard.sharding @mesh split_axes = [[0]] : !shard.sharding
    %es = shard.shard %e to %s : tensor<8x4xf32>
    return %es : tensor<8x4xf32>
  }
}

// -----

// A use that wants the value gathered gets an all-gather; "where" takes
// three aligned operands.
// CHECK-LABEL: func.func @gather_for_use
// CHECK: %[[W:.*]] = telar.where %{{.*}}, %{{.*}}, %{{.*}} : (tensor<4x4xi1>, tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
// CHECK: shard.all_gather %[[W]] on @mesh grid_axes = [0] gather_axis = 0 {telar.bytes = 64 : i64} : tensor<4x4xf32> -> tensor<8x4xf32>
module {
  shard.grid @mesh(shape = 2) {telar.axis_names = ["data"]}
  func.func @gather_for_use(%c: tensor<8x4xi1>, %a: tensor<8x4xf32>, %b: tensor<8x4xf32>) -> tensor<8x4xf32> {
    %s = shard.sharding @mesh split_axes = [[0]] : !shard.sharding
    %srep = shard.sharding @mesh split_axes = [[]] : !shard.sharding
    %cs = shard.shard %c to %s : tensor<8x4xi1>
    %as = shard.shard %a to %s : tensor<8x4xf32>
    %bs = shard.shard %b to %s : tensor<8x4xf32>
    %w = telar.where %cs, %as, %bs : (tensor<8x4xi1>, tensor<8x4xf32>, tensor<8x4xf32>) -> tensor<8x4xf32>
    %ws = shard.shard %w to %s : tensor<8x4xf32>
    %r = shard.shard %ws to %srep annotate_for_users : tensor<8x4xf32>
    return %r : tensor<8x4xf32>
  }
}
