// RUN: telar-opt %s --telar-outline-weights | FileCheck %s

// A resource used twice becomes one argument; small dense constants stay.
// CHECK: func.func @main(%[[X:.*]]: tensor<4xf32>, %[[W:.*]]: tensor<4xf32> {telar.weight = "w0"}, %[[V:.*]]: tensor<4xf32> {telar.weight = "w1"})
// CHECK: telar.constant dense<1.000000e+00>
// CHECK: telar.add %[[X]], %[[W]]
// CHECK: telar.add %{{.*}}, %[[W]]
// CHECK: telar.mul %{{.*}}, %[[V]]
func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
  %w = telar.constant dense_resource<w0> : tensor<4xf32>
  %w2 = telar.constant dense_resource<w0> : tensor<4xf32>
  %v = telar.constant dense_resource<w1> : tensor<4xf32>
  %one = telar.constant dense<1.0> : tensor<4xf32>
  %0 = telar.add %x, %w : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %1 = telar.add %0, %w2 : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %2 = telar.mul %1, %v : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %3 = telar.add %2, %one : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %3 : tensor<4xf32>
}

{-#
  dialect_resources: {
    builtin: {
      w0: "0x040000000000803F0000803F0000803F0000803F",
      w1: "0x0400000000000040000000400000004000000040"
    }
  }
#-}
