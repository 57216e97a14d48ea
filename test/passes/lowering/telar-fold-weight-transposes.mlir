// RUN: telar-opt %s --telar-fold-weight-transposes | FileCheck %s

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
