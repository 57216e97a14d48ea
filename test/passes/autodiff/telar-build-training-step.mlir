// RUN: telar-opt %s --split-input-file --verify-diagnostics \
// RUN:   --telar-build-training-step="loss=loss optimizer=sgd lr=0.5" \
// RUN:   | FileCheck %s --check-prefix=SGD
// RUN: telar-opt %s --split-input-file --verify-diagnostics \
// RUN:   --telar-build-training-step="loss=loss optimizer=adamw" \
// RUN:   | FileCheck %s --check-prefix=ADAMW
// RUN: telar-opt %s --split-input-file --verify-diagnostics \
// RUN:   --telar-build-training-step="loss=loss optimizer=sgd microbatches=2" \
// RUN:   | FileCheck %s --check-prefix=ACCUM

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
// SGD: %[[G:.*]] = telar.reduce_sum %[[DW]] {axes = array<i64: 0>, telar.phase = "backward"}
// SGD: %[[GRAD:.*]] = telar.reshape %[[G]] {shape = array<i64: 4>, telar.phase = "backward", telar.result_names = ["w@grad"]}
// SGD: %[[STEP:.*]] = telar.mul %[[LR]], %[[GRAD]]
// SGD: %[[NEW:.*]] = telar.sub %[[W]], %[[STEP]] {telar.phase = "optimizer", telar.result_names = ["w@new"]}
// SGD: return %[[LOSS]], %[[NEW]]

// Gradient accumulation over 2 microbatches: x takes one per row; each
// microbatch's forward (the clone's values named @mb1) is followed by its
// backward, seeded 1/2; the gradients add up and the loss is the mean.
// ACCUM: microbatches = 2.000000e+00
// ACCUM: func.func @main(%[[X:[a-z0-9]+]]: tensor<2x2x4xf32> {telar.name = "x"}, %{{.*}}: tensor<f32> {telar.name = "@lr"})
// ACCUM: %[[S0:.*]] = telar.slice %[[X]] {axes = array<i64: 0>, ends = array<i64: 1>, starts = array<i64: 0>
// ACCUM: %[[X0:.*]] = telar.reshape %[[S0]] {shape = array<i64: 2, 4>}
// ACCUM: %[[S1:.*]] = telar.slice %[[X]] {axes = array<i64: 0>, ends = array<i64: 2>, starts = array<i64: 1>
// ACCUM: %[[X1:.*]] = telar.reshape %[[S1]] {shape = array<i64: 2, 4>}
// ACCUM: %[[W:.*]] = telar.variable "w"
// ACCUM: telar.mul %[[X0]], %[[W]]
// ACCUM: %[[L0:.*]] = telar.reduce_sum
// ACCUM: telar.constant dense<5.000000e-01>
// ACCUM: %[[G0:.*]] = telar.reshape {{.*}} -> tensor<4xf32>
// ACCUM: telar.mul %[[X1]], %[[W]]
// ACCUM: %[[L1:.*]] = telar.reduce_sum {{.*}} {keepdims = false, telar.result_names = ["y@mb1"]}
// ACCUM: %[[G1:.*]] = telar.reshape {{.*}} -> tensor<4xf32>
// ACCUM: telar.add %[[G0]], %[[G1]] {telar.phase = "backward", telar.result_names = ["w@grad"]}
// ACCUM: %[[SUM:.*]] = telar.add %[[L0]], %[[L1]]
// ACCUM: telar.mul %[[SUM]], %{{.*}} : (tensor<f32>, tensor<f32>) -> tensor<f32>

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
  %l = telar.reduce_sum %y {keepdims = false, telar.result_names = ["y"]} : (tensor<2x4xf32>) -> tensor<f32>
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
// SGD: telar.add %[[D1]], %[[D2]] {telar.phase = "backward", telar.result_names = ["w@grad"]}
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

// A parameter the loss does not reach (u feeds only the dropped output y)
// keeps its value: returned as it is, listed with the trained ones, so
// that it is saved and exported too.
// SGD: parameters = ["w", "u"]
// SGD: func.func @main(%{{.*}}: tensor<4xf32> {telar.name = "x"}
// SGD-SAME: -> (tensor<f32>, tensor<4xf32> {telar.updates = "w"}, tensor<4xf32> {telar.updates = "u"})
// SGD-SAME: telar.output_names = ["loss", "w@new", "u@new"]
// SGD-DAG: %[[U:.*]] = telar.variable "u"
// SGD-DAG: %[[W:.*]] = telar.variable "w"
// SGD: %[[NEW:.*]] = telar.sub %[[W]]
// SGD: return %{{.*}}, %[[NEW]], %[[U]]
func.func @main(%x: tensor<4xf32> {telar.name = "x"}) -> (tensor<4xf32>, tensor<f32>)
    attributes {telar.output_names = ["y", "loss"]} {
  %w = telar.variable "w" dense_resource<w> : tensor<4xf32>
  %u = telar.variable "u" dense_resource<w> : tensor<4xf32>
  %y = telar.mul %u, %x : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %a = telar.mul %w, %x : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
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

// -----

// Convolution and max pooling: the conv's input gradient is a transposed
// convolution (output_padding restores the 7 the stride's floor dropped),
// its weight gradient a convolution of the input by the output gradient
// (batch and channels swapped, stride and dilation traded); the pool's
// gradient goes to each window's first largest element (arg_max over the
// stacked window offsets, select_last_index false), spread back by a
// transposed convolution of one-hot kernels.
// SGD: func.func @main(%{{.*}}: tensor<2x3x7x7xf32> {telar.name = "x"}
// SGD: %[[B:.*]] = telar.variable "b"
// SGD: %[[W:.*]] = telar.variable "w"
// SGD: %[[XB:.*]] = telar.add %{{.*}}, %[[B]]
// SGD: %[[Y:.*]] = telar.conv %[[XB]], %[[W]]
// SGD: telar.concat {{.*}} -> tensor<4x2x4x2x2xf32>
// SGD: telar.arg_max %{{.*}} : (tensor<4x2x4x2x2xf32>) -> tensor<1x2x4x2x2xi64>
// SGD: telar.conv_transpose %{{.*}}, %{{.*}} {dilations = array<i64: 1, 1>, output_padding = array<i64: 0, 0>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 2, 2>, telar.phase = "backward"} : (tensor<8x4x2x2xf32>, tensor<4x1x2x2xf32>) -> tensor<8x1x4x4xf32>
// SGD: %[[DY:.*]] = telar.reshape %{{.*}} -> tensor<2x4x4x4xf32>
// SGD: telar.conv_transpose %[[DY]], %[[W]] {dilations = array<i64: 1, 1>, output_padding = array<i64: 0, 0>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>, telar.phase = "backward", telar.result_names = ["b@grad"]} {{.*}} -> tensor<2x3x7x7xf32>
// SGD: %[[XT:.*]] = telar.transpose %[[XB]] {perm = array<i64: 1, 0, 2, 3>, telar.phase = "backward"}
// SGD: %[[DYT:.*]] = telar.transpose %[[DY]] {perm = array<i64: 1, 0, 2, 3>, telar.phase = "backward"}
// SGD: %[[DW:.*]] = telar.conv %[[XT]], %[[DYT]] {dilations = array<i64: 2, 2>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>, telar.phase = "backward"} : (tensor<3x2x7x7xf32>, tensor<4x2x4x4xf32>) -> tensor<3x4x3x3xf32>
// SGD: telar.transpose %[[DW]] {perm = array<i64: 1, 0, 2, 3>, telar.phase = "backward", telar.result_names = ["w@grad"]}
func.func @main(%x: tensor<2x3x7x7xf32> {telar.name = "x"}) -> tensor<f32>
    attributes {telar.output_names = ["loss"]} {
  %b = telar.variable "b" dense<0.25> : tensor<2x3x7x7xf32>
  %w = telar.variable "w" dense<0.5> : tensor<4x3x3x3xf32>
  %xb = telar.add %x, %b : (tensor<2x3x7x7xf32>, tensor<2x3x7x7xf32>) -> tensor<2x3x7x7xf32>
  %y = telar.conv %xb, %w {strides = array<i64: 2, 2>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>} : (tensor<2x3x7x7xf32>, tensor<4x3x3x3xf32>) -> tensor<2x4x4x4xf32>
  %p = telar.max_pool %y {kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>} : (tensor<2x4x4x4xf32>) -> tensor<2x4x2x2xf32>
  %l = telar.reduce_sum %p {keepdims = false} : (tensor<2x4x2x2xf32>) -> tensor<f32>
  return %l : tensor<f32>
}

// -----

// Pooling in ceil_mode has no gradient yet.
func.func @main(%x: tensor<1x1x5x5xf32> {telar.name = "x"}) -> tensor<f32>
    attributes {telar.output_names = ["loss"]} {
  %w = telar.variable "w" dense<1.0> : tensor<1x1x5x5xf32>
  %y = telar.mul %x, %w : (tensor<1x1x5x5xf32>, tensor<1x1x5x5xf32>) -> tensor<1x1x5x5xf32>
  // expected-error @+1 {{has no gradient yet: ceil_mode pooling}}
  %p = telar.average_pool %y {kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, ceil_mode = true} : (tensor<1x1x5x5xf32>) -> tensor<1x1x3x3xf32>
  %l = telar.reduce_sum %p {keepdims = false} : (tensor<1x1x3x3xf32>) -> tensor<f32>
  return %l : tensor<f32>
}
