// RUN: telar-opt %s -split-input-file -telar-split-stages="stages=h,t;y,z" -verify-diagnostics | FileCheck %s --check-prefix=CHECK0
// RUN: telar-opt %s -split-input-file -telar-split-stages="stages=h,t;y,z stage=0" -verify-diagnostics | FileCheck %s --check-prefix=STAGE0
// RUN: telar-opt %s -split-input-file -telar-split-stages="stages=h,t;y,z stage=1" -verify-diagnostics | FileCheck %s --check-prefix=STAGE1

// Two stages: h and t in stage 0, y and z in stage 1. The weight w and its
// transpose wt are in no stage: each stage using them has a copy. h and t
// cross to stage 1 (t is a graph output too, returned by stage 0 once).
module attributes {telar.opset = 17 : i64} {
  // expected-remark @below {{boundary 'h' from stage 0 to stage 1}}
  // expected-remark @below {{boundary 't' from stage 0 to stage 1}}
  func.func @main(%x: tensor<4x8xf32> {telar.name = "x"}, %mask: tensor<4x8xf32> {telar.name = "mask"}) -> (tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>) attributes {telar.output_names = ["z", "t", "mask"]} {
    %w = telar.constant {telar.result_names = ["w"]} dense<1.0> : tensor<8x8xf32>
    %wt = telar.transpose %w {perm = array<i64: 1, 0>} : (tensor<8x8xf32>) -> tensor<8x8xf32>
    %h = telar.matmul %x, %wt {telar.result_names = ["h"]} : (tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32>
    %t = telar.tanh %h {telar.result_names = ["t"]} : (tensor<4x8xf32>) -> tensor<4x8xf32>
    %y = telar.matmul %t, %wt {telar.result_names = ["y"]} : (tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32>
    %z = telar.add %y, %h {telar.result_names = ["z"]} : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
    return %z, %t, %mask : tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>
  }
}

// CHECK0: func.func @main(%{{.*}}: tensor<4x8xf32> {telar.name = "x"}, %{{.*}}: tensor<4x8xf32> {telar.name = "mask"})

// Stage 0 reads x and sends h and t (t is also the graph output "t").
// STAGE0:      module attributes {telar.opset = 17 : i64}
// STAGE0:      func.func @main(%[[X:.*]]: tensor<4x8xf32> {telar.name = "x"}) -> (tensor<4x8xf32>, tensor<4x8xf32>) attributes {telar.output_names = ["h", "t"]}
// STAGE0-NEXT: %[[W:.*]] = telar.constant {telar.result_names = ["w"]}
// STAGE0-NEXT: %[[WT:.*]] = telar.transpose %[[W]] {perm = array<i64: 1, 0>, telar.result_names = ["h#0"]}
// STAGE0-NEXT: %[[H:.*]] = telar.matmul %[[X]], %[[WT]] {telar.result_names = ["h"]}
// STAGE0-NEXT: %[[T:.*]] = telar.tanh %[[H]] {telar.result_names = ["t"]}
// STAGE0-NEXT: return %[[H]], %[[T]]

// Stage 1 receives h and t, has its own copy of the weight (with its name
// of the whole program), and returns z and the input mask, which the last
// stage reads.
// STAGE1:      func.func @main(%[[M:.*]]: tensor<4x8xf32> {telar.name = "mask"}, %[[H:.*]]: tensor<4x8xf32> {telar.name = "h"}, %[[T:.*]]: tensor<4x8xf32> {telar.name = "t"}) -> (tensor<4x8xf32>, tensor<4x8xf32>) attributes {telar.output_names = ["z", "mask"]}
// STAGE1-NEXT: %[[W:.*]] = telar.constant {telar.result_names = ["w"]}
// STAGE1-NEXT: %[[WT:.*]] = telar.transpose %[[W]] {perm = array<i64: 1, 0>, telar.result_names = ["h#0"]}
// STAGE1-NEXT: %[[Y:.*]] = telar.matmul %[[T]], %[[WT]] {telar.result_names = ["y"]}
// STAGE1-NEXT: %[[Z:.*]] = telar.add %[[Y]], %[[H]] {telar.result_names = ["z"]}
// STAGE1-NEXT: return %[[Z]], %[[M]]

// -----

// expected-error @below {{stages[1].ops: unknown value 'z'}}
func.func @main(%x: tensor<4xf32> {telar.name = "x"}) -> tensor<4xf32> {
  %h = telar.relu %x {telar.result_names = ["h"]} : (tensor<4xf32>) -> tensor<4xf32>
  %t = telar.tanh %h {telar.result_names = ["t"]} : (tensor<4xf32>) -> tensor<4xf32>
  %y = telar.neg %t {telar.result_names = ["y"]} : (tensor<4xf32>) -> tensor<4xf32>
  return %y : tensor<4xf32>
}

// -----

func.func @main(%x: tensor<4xf32> {telar.name = "x"}) -> tensor<4xf32> {
  %h = telar.relu %x {telar.result_names = ["h"]} : (tensor<4xf32>) -> tensor<4xf32>
  %t = telar.tanh %h {telar.result_names = ["t"]} : (tensor<4xf32>) -> tensor<4xf32>
  %y = telar.neg %t {telar.result_names = ["y"]} : (tensor<4xf32>) -> tensor<4xf32>
  // expected-error @below {{value 'u' is in no stage}}
  %u = telar.neg %y {telar.result_names = ["u"]} : (tensor<4xf32>) -> tensor<4xf32>
  %z = telar.neg %u {telar.result_names = ["z"]} : (tensor<4xf32>) -> tensor<4xf32>
  return %z : tensor<4xf32>
}

// -----

func.func @main(%x: tensor<4xf32> {telar.name = "x"}) -> tensor<4xf32> {
  %y = telar.relu %x {telar.result_names = ["y"]} : (tensor<4xf32>) -> tensor<4xf32>
  // expected-error @below {{value 'y' is used in stage 0 but computed in stage 1}}
  %h = telar.tanh %y {telar.result_names = ["h"]} : (tensor<4xf32>) -> tensor<4xf32>
  %t = telar.neg %h {telar.result_names = ["t"]} : (tensor<4xf32>) -> tensor<4xf32>
  %z = telar.neg %t {telar.result_names = ["z"]} : (tensor<4xf32>) -> tensor<4xf32>
  return %z : tensor<4xf32>
}

// -----

// Two results of one op in two stages.
func.func @main(%x: tensor<4x8xf32> {telar.name = "x"}) -> (tensor<4x2xf32>, tensor<4x2xi64>) {
  %h = telar.relu %x {telar.result_names = ["h"]} : (tensor<4x8xf32>) -> tensor<4x8xf32>
  // expected-error @below {{value 'y' is in stages 0 and 1}}
  %t:2 = telar.top_k %h {k = 2 : i64, telar.result_names = ["t", "y"]} : (tensor<4x8xf32>) -> (tensor<4x2xf32>, tensor<4x2xi64>)
  %z = telar.neg %t#0 {telar.result_names = ["z"]} : (tensor<4x2xf32>) -> tensor<4x2xf32>
  return %z, %t#1 : tensor<4x2xf32>, tensor<4x2xi64>
}

// -----

// expected-error @below {{stages[0].ops: 'h' is a graph input, which no stage computes}}
func.func @main(%x: tensor<4xf32> {telar.name = "h"}) -> tensor<4xf32> {
  %t = telar.tanh %x {telar.result_names = ["t"]} : (tensor<4xf32>) -> tensor<4xf32>
  %y = telar.neg %t {telar.result_names = ["y"]} : (tensor<4xf32>) -> tensor<4xf32>
  %z = telar.neg %y {telar.result_names = ["z"]} : (tensor<4xf32>) -> tensor<4xf32>
  return %z : tensor<4xf32>
}

// -----

// Its ops are all computed from constants.
// expected-error @below {{stages[1] computes nothing}}
func.func @main(%x: tensor<4xf32> {telar.name = "x"}) -> tensor<4xf32> {
  %y = telar.constant {telar.result_names = ["y"]} dense<1.0> : tensor<4xf32>
  %z = telar.neg %y {telar.result_names = ["z"]} : (tensor<4xf32>) -> tensor<4xf32>
  %h = telar.add %x, %y {telar.result_names = ["h"]} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %t = telar.add %h, %z {telar.result_names = ["t"]} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %t : tensor<4xf32>
}
