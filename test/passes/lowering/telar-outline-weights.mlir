// RUN: telar-opt %s --telar-outline-weights -split-input-file -verify-diagnostics | FileCheck %s

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

// -----

// Partitioned: a weight sliced by all_slice chains becomes an argument of
// the local type with its sharding (axis names, major to minor) and global
// shape; a chain through two slices of one dim lists both axes; the same
// sharding twice is one argument; a whole use is the replicated weight.
// CHECK: shard.grid @mesh
// CHECK: func.func @main
// CHECK-SAME: (%{{[^:]+}}: tensor<8x8xf32>
// Replicated weights come first (the artifact's file order).
// CHECK-SAME: %[[WHOLE:[^:]+]]: tensor<16x32xf32> {telar.weight = "w"}
// CHECK-SAME: %[[COL:[^:]+]]: tensor<16x16xf32> {telar.global_shape = array<i64: 16, 32>, telar.sharding = {{\[}}[], ["model"]], telar.weight = "w"}
// CHECK-SAME: %[[BOTH:[^:]+]]: tensor<8x16xf32> {telar.global_shape = array<i64: 16, 32>, telar.sharding = {{\[}}["data"], ["model"]], telar.weight = "w"}
// CHECK-SAME: %[[ROW:[^:]+]]: tensor<4x8xf32> {telar.global_shape = array<i64: 16, 8>, telar.sharding = {{\[}}["model", "data"], []], telar.weight = "v"}
// CHECK-NOT: shard.all_slice
// CHECK-NOT: telar.constant
// CHECK: call @use(%[[COL]], %[[COL]], %[[BOTH]], %[[WHOLE]], %[[ROW]])
shard.grid @mesh(shape = 2x2) {telar.axis_names = ["data", "model"]}
func.func @main(%x: tensor<8x8xf32>) {
  %w = telar.constant dense_resource<w> : tensor<16x32xf32>
  %c = shard.all_slice %w on @mesh grid_axes = [1] slice_axis = 1 : tensor<16x32xf32> -> tensor<16x16xf32>
  %c2 = shard.all_slice %w on @mesh grid_axes = [1] slice_axis = 1 : tensor<16x32xf32> -> tensor<16x16xf32>
  %b = shard.all_slice %c on @mesh grid_axes = [0] slice_axis = 0 : tensor<16x16xf32> -> tensor<8x16xf32>
  %v = telar.constant dense_resource<v> : tensor<16x8xf32>
  %vm = shard.all_slice %v on @mesh grid_axes = [1] slice_axis = 0 : tensor<16x8xf32> -> tensor<8x8xf32>
  %vr = shard.all_slice %vm on @mesh grid_axes = [0] slice_axis = 0 : tensor<8x8xf32> -> tensor<4x8xf32>
  func.call @use(%c, %c2, %b, %w, %vr) : (tensor<16x16xf32>, tensor<16x16xf32>, tensor<8x16xf32>, tensor<16x32xf32>, tensor<4x8xf32>) -> ()
  return
}
func.func private @use(tensor<16x16xf32>, tensor<16x16xf32>, tensor<8x16xf32>, tensor<16x32xf32>, tensor<4x8xf32>)

// -----

// One all_slice over two axes is the same as a chain; a grid without axis
// names gives axis<i>.
// CHECK: shard.grid @grid
// CHECK: func.func @main
// CHECK-SAME: tensor<2x2xf32> {telar.global_shape = array<i64: 8, 2>, telar.sharding = {{\[}}["axis1", "axis0"], []], telar.weight = "w"}
shard.grid @grid(shape = 2x2)
func.func @main() -> tensor<2x2xf32> {
  %w = telar.constant dense_resource<w> : tensor<8x2xf32>
  %s = shard.all_slice %w on @grid grid_axes = [1, 0] slice_axis = 0 : tensor<8x2xf32> -> tensor<2x2xf32>
  return %s : tensor<2x2xf32>
}

// -----

shard.grid @mesh(shape = 2x2)
func.func @main() -> tensor<4x2xf32> {
  %w = telar.constant dense_resource<w> : tensor<8x4xf32>
  %s = shard.all_slice %w on @mesh grid_axes = [0] slice_axis = 0 : tensor<8x4xf32> -> tensor<4x4xf32>
  // expected-error @below {{slices a weight a second time along grid axis 0}}
  %t = shard.all_slice %s on @mesh grid_axes = [0] slice_axis = 1 : tensor<4x4xf32> -> tensor<4x2xf32>
  return %t : tensor<4x2xf32>
}

// -----

// A training step's variables are stored once, split as their new values
// are returned: %s (its update split on "model") becomes the sliced block,
// %r (its update replicated) the whole tensor, whose slice for a use stays
// a slice at run time.
// CHECK: func.func @main
// CHECK-SAME: %[[R:[^:]+]]: tensor<8xf32> {telar.weight = "r"}
// CHECK-SAME: %[[S:[^:]+]]: tensor<4xf32> {telar.global_shape = array<i64: 8>, telar.sharding = {{\[}}["model"]], telar.weight = "s"}
// CHECK-NOT: telar.variable
// CHECK: %[[RS:.*]] = shard.all_slice %[[R]]
// CHECK: telar.add %[[RS]], %[[S]]
// CHECK: telar.add %[[R]], %[[R]]
shard.grid @mesh(shape = 2) {telar.axis_names = ["model"]}
func.func @main() -> (tensor<4xf32> {telar.updates = "s", telar.sharding = [["model"]], telar.global_shape = array<i64: 8>},
                      tensor<8xf32> {telar.updates = "r"}) {
  %s = telar.variable "s" dense_resource<s> : tensor<8xf32>
  %sl = shard.all_slice %s on @mesh grid_axes = [0] slice_axis = 0 : tensor<8xf32> -> tensor<4xf32>
  %r = telar.variable "r" dense_resource<r> : tensor<8xf32>
  %rl = shard.all_slice %r on @mesh grid_axes = [0] slice_axis = 0 : tensor<8xf32> -> tensor<4xf32>
  %a = telar.add %rl, %sl : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %b = telar.add %r, %r : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
  return %a, %b : tensor<4xf32>, tensor<8xf32>
}

// -----

// A variable whose update is split, but which the program never slices so.
shard.grid @mesh(shape = 2) {telar.axis_names = ["model"]}
func.func @main() -> (tensor<4xf32> {telar.updates = "s", telar.sharding = [["model"]], telar.global_shape = array<i64: 8>}) {
  // expected-error @+1 {{the variable 's' is not sliced to the sharding of its new value}}
  %s = telar.variable "s" dense_resource<s> : tensor<8xf32>
  %t = telar.slice %s {axes = array<i64: 0>, starts = array<i64: 0>, ends = array<i64: 4>, steps = array<i64: 1>} : (tensor<8xf32>) -> tensor<4xf32>
  return %t : tensor<4xf32>
}
