// RUN: telar-opt %s --telar-fold-weight-transposes -split-input-file | FileCheck %s

// The transposed weight is a new resource with the data permuted; the
// original stays while another op uses it.
// CHECK-LABEL: func.func @main
// CHECK-DAG: %[[W:.*]] = telar.constant dense_resource<w0> : tensor<2x3xf32>
// CHECK-DAG: %[[T:.*]] = telar.constant dense_resource<w0.transposed.1_0> : tensor<3x2xf32>
// CHECK-NOT: telar.transpose
// CHECK: telar.matmul %{{.*}}, %[[T]]
// CHECK: telar.add %{{.*}}, %[[W]]
// The 2x3 weight [[1,2,3],[4,5,6]] becomes [[1,4],[2,5],[3,6]].
// CHECK: w0.transposed.1_0: "0x400000000000803F00008040000000400000A040000040400000C040"
func.func @main(%x: tensor<4x3xf32>, %y: tensor<2x3xf32>) -> (tensor<4x2xf32>, tensor<2x3xf32>) {
  %w = telar.constant dense_resource<w0> : tensor<2x3xf32>
  %t = telar.transpose %w {perm = array<i64: 1, 0>} : (tensor<2x3xf32>) -> tensor<3x2xf32>
  %0 = telar.matmul %x, %t : (tensor<4x3xf32>, tensor<3x2xf32>) -> tensor<4x2xf32>
  %1 = telar.add %y, %w : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  return %0, %1 : tensor<4x2xf32>, tensor<2x3xf32>
}

{-#
  dialect_resources: {
    builtin: {
      w0: "0x040000000000803F0000004000004040000080400000A0400000C040"
    }
  }
#-}

// -----

// A transpose of a sharded weight's local block: the whole weight is
// transposed and the slices cut the transposed one, along the permuted
// dims (rows of the 2x4 weight split by model become columns of the 4x2
// transpose); the chain is gone when nothing else uses it.
// CHECK-LABEL: func.func @sliced
// CHECK: %[[T:.*]] = telar.constant dense_resource<w1.transposed.1_0> : tensor<4x2xf32>
// CHECK: %[[S:.*]] = shard.all_slice %[[T]] on @mesh grid_axes = [1] slice_axis = 1 : tensor<4x2xf32> -> tensor<4x1xf32>
// CHECK: %[[S2:.*]] = shard.all_slice %[[S]] on @mesh grid_axes = [0] slice_axis = 0 : tensor<4x1xf32> -> tensor<2x1xf32>
// CHECK-NOT: telar.transpose
// CHECK-NOT: dense_resource<w1>
// CHECK: telar.matmul %{{.*}}, %[[S2]]
// [[1,2,3,4],[5,6,7,8]] becomes [[1,5],[2,6],[3,7],[4,8]].
// CHECK: w1.transposed.1_0: "0x400000000000803F0000A040000000400000C040000040400000E0400000804000000041"
shard.grid @mesh(shape = 2x2) {telar.axis_names = ["data", "model"]}
func.func @sliced(%x: tensor<3x2xf32>) -> tensor<3x1xf32> {
  %w = telar.constant dense_resource<w1> : tensor<2x4xf32>
  %s = shard.all_slice %w on @mesh grid_axes = [1] slice_axis = 0 : tensor<2x4xf32> -> tensor<1x4xf32>
  %s2 = shard.all_slice %s on @mesh grid_axes = [0] slice_axis = 1 : tensor<1x4xf32> -> tensor<1x2xf32>
  %t = telar.transpose %s2 {perm = array<i64: 1, 0>} : (tensor<1x2xf32>) -> tensor<2x1xf32>
  %0 = telar.matmul %x, %t : (tensor<3x2xf32>, tensor<2x1xf32>) -> tensor<3x1xf32>
  return %0 : tensor<3x1xf32>
}

{-#
  dialect_resources: {
    builtin: {
      w1: "0x040000000000803F0000004000004040000080400000A0400000C0400000E04000000041"
    }
  }
#-}
