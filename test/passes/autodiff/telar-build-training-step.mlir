// RUN: telar-opt %s --split-input-file --verify-diagnostics \
// RUN:   --telar-build-training-step="loss=loss optimizer=sgd lr=0.5" \
// RUN:   | FileCheck %s --check-prefix=SGD
// RUN: telar-opt %s --split-input-file --verify-diagnostics \
// RUN:   --telar-build-training-step="loss=loss optimizer=adamw" \
// RUN:   | FileCheck %s --check-prefix=ADAMW

// loss = sum(x * w): dloss/dw = x (summed over the batch), named w@grad.
// With sgd, w@new = w - lr * grad; the learning rate is the input @lr.
// SGD: module attributes {telar.training = {grad_clip = 0.000000e+00 : f64, loss = "loss", lr = 5.000000e-01 : f64, momentum = 0.000000e+00 : f64, optimizer = "sgd", parameters = ["w"], weight_decay = 0.000000e+00 : f64}}
// SGD: func.func @main(%[[X:[a-z0-9]+]]: tensor<2x4xf32> {telar.name = "x"}, %[[LR:[a-z0-9]+]]: tensor<f32> {telar.name = "@lr"})
// SGD-SAME: -> (tensor<f32>, tensor<4xf32> {telar.updates = "w"})
// SGD-SAME: telar.output_names = ["loss", "w@new"]
// SGD: %[[W:.*]] = telar.variable "w"
// SGD: %[[Y:.*]] = telar.mul %[[X]], %[[W]]
// SGD: %[[LOSS:.*]] = telar.reduce_sum %[[Y]]
// SGD: %[[DY:.*]] = telar.expand
// SGD: %[[DW:.*]] = telar.mul %[[DY]], %[[X]]
// SGD: %[[G:.*]] = telar.reduce_sum %[[DW]] {axes = array<i64: 0>}
// SGD: %[[GRAD:.*]] = telar.reshape %[[G]] {shape = array<i64: 4>, telar.result_names = ["w@grad"]}
// SGD: %[[STEP:.*]] = telar.mul %[[LR]], %[[GRAD]]
// SGD: %[[NEW:.*]] = telar.sub %[[W]], %[[STEP]] {telar.result_names = ["w@new"]}
// SGD: return %[[LOSS]], %[[NEW]]

// With adamw, the state w@m and w@v, zero, and the step number @step.
// ADAMW: func.func @main(%{{.*}}: tensor<2x4xf32> {telar.name = "x"}, %{{.*}}: tensor<f32> {telar.name = "@lr"}, %[[T:[a-z0-9]+]]: tensor<f32> {telar.name = "@step"})
// ADAMW-SAME: -> (tensor<f32>, tensor<4xf32> {telar.updates = "w"}, tensor<4xf32> {telar.updates = "w@m"}, tensor<4xf32> {telar.updates = "w@v"})
// ADAMW-SAME: telar.output_names = ["loss", "w@new", "w@m@new", "w@v@new"]
// ADAMW-DAG: telar.variable "w@m" {telar.result_names = ["w@m"]} dense_resource<w_m>
// ADAMW-DAG: telar.variable "w@v" {telar.result_names = ["w@v"]} dense_resource<w_v>
// ADAMW: telar.pow %{{.*}}, %[[T]]
// ADAMW: telar.sqrt
func.func @main(%x: tensor<2x4xf32> {telar.name = "x"}) -> tensor<f32>
    attributes {telar.output_names = ["loss"]} {
  %w = telar.variable "w" dense_resource<w> : tensor<4xf32>
  %y = telar.mul %x, %w : (tensor<2x4xf32>, tensor<4xf32>) -> tensor<2x4xf32>
  %l = telar.reduce_sum %y {keepdims = false} : (tensor<2x4xf32>) -> tensor<f32>
  return %l : tensor<f32>
}

{-#
  dialect_resources: {
    builtin: {
      w: "0x040000000000803F0000803F0000803F0000803F"
    }
  }
#-}

// -----

// A value used twice gets the sum of its uses' gradients; the model's other
// outputs are dropped.
// SGD: func.func @main(%{{.*}}: tensor<4xf32> {telar.name = "x"}
// SGD-SAME: -> (tensor<f32>, tensor<4xf32> {telar.updates = "w"})
// SGD: %[[W:.*]] = telar.variable "w"
// SGD: %[[A:.*]] = telar.mul %[[W]], %[[W]]
// SGD: %[[D1:.*]] = telar.mul %{{.*}}, %[[W]]
// SGD: %[[D2:.*]] = telar.mul %{{.*}}, %[[W]]
// SGD: telar.add %[[D1]], %[[D2]] {telar.result_names = ["w@grad"]}
func.func @main(%x: tensor<4xf32> {telar.name = "x"}) -> (tensor<4xf32>, tensor<f32>)
    attributes {telar.output_names = ["y", "loss"]} {
  %w = telar.variable "w" dense_resource<w> : tensor<4xf32>
  %a = telar.mul %w, %w : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %y = telar.add %a, %x : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %l = telar.reduce_sum %a {keepdims = false} : (tensor<4xf32>) -> tensor<f32>
  return %y, %l : tensor<4xf32>, tensor<f32>
}

{-#
  dialect_resources: {
    builtin: {
      w: "0x040000000000803F0000803F0000803F0000803F"
    }
  }
#-}

// -----

// expected-error @+1 {{the loss 'loss' is not an output of the model (its outputs: 'y')}}
func.func @main(%x: tensor<4xf32> {telar.name = "x"}) -> tensor<4xf32>
    attributes {telar.output_names = ["y"]} {
  return %x : tensor<4xf32>
}

// -----

// expected-error @+1 {{the loss 'loss' must be a floating-point scalar, but it is 'tensor<4xf32>'}}
func.func @main(%x: tensor<4xf32> {telar.name = "x"}) -> tensor<4xf32>
    attributes {telar.output_names = ["loss"]} {
  return %x : tensor<4xf32>
}

// -----

// expected-error @+1 {{has no trainable parameters}}
func.func @main(%x: tensor<4xf32> {telar.name = "x"}) -> tensor<f32>
    attributes {telar.output_names = ["loss"]} {
  %l = telar.reduce_sum %x {keepdims = false} : (tensor<4xf32>) -> tensor<f32>
  return %l : tensor<f32>
}

// -----

// An op on the path from a parameter to the loss without a VJP.
func.func @main(%x: tensor<1x4x2x2xf32> {telar.name = "x"}) -> tensor<f32>
    attributes {telar.output_names = ["loss"]} {
  %w = telar.variable "w" dense<1.0> : tensor<1x4x2x2xf32>
  %y = telar.mul %x, %w : (tensor<1x4x2x2xf32>, tensor<1x4x2x2xf32>) -> tensor<1x4x2x2xf32>
  // expected-error @+1 {{has no gradient (VJP) yet, and the loss 'loss' depends on trainable parameters through it}}
  %z = telar.lrn %y {size = 3 : i64} : (tensor<1x4x2x2xf32>) -> tensor<1x4x2x2xf32>
  %l = telar.reduce_sum %z {keepdims = false} : (tensor<1x4x2x2xf32>) -> tensor<f32>
  return %l : tensor<f32>
}

// -----

// The loss does not depend on the parameter.
// expected-error @+1 {{the loss 'loss' depends on no trainable parameter}}
func.func @main(%x: tensor<4xf32> {telar.name = "x"}) -> (tensor<f32>, tensor<4xf32>)
    attributes {telar.output_names = ["loss", "y"]} {
  %w = telar.variable "w" dense<1.0> : tensor<4xf32>
  %y = telar.mul %x, %w : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %l = telar.reduce_sum %x {keepdims = false} : (tensor<4xf32>) -> tensor<f32>
  return %l, %y : tensor<f32>, tensor<4xf32>
}
