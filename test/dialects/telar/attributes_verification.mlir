// RUN: telar-opt %s -split-input-file -verify-diagnostics | FileCheck %s

// The telar dialect's discardable attributes (telar.opset, telar.producer,
// telar.output_names, telar.name, telar.weight, telar.result_names,
// telar.axis_names, telar.partial, telar.sharding, telar.global_shape,
// telar.target): where each may sit and what it holds. Valid cases print; each invalid case breaks one rule.

//===----------------------------------------------------------------------===//
// Valid
//===----------------------------------------------------------------------===//

// What the importer writes.
// CHECK: module attributes {telar.opset = 17 : i64, telar.producer = "pytorch 2.5"}
// CHECK: func.func @main(%{{.*}}: tensor<2xf32> {telar.name = "x"}, %{{.*}}: tensor<2xf32> {telar.name = "y"}) -> (tensor<2xf32>, tensor<2xf32>) attributes {telar.output_names = ["sum", "x"]}
module attributes {telar.opset = 17 : i64, telar.producer = "pytorch 2.5"} {
  func.func @main(%x: tensor<2xf32> {telar.name = "x"},
                  %y: tensor<2xf32> {telar.name = "y"})
      -> (tensor<2xf32>, tensor<2xf32>)
      attributes {telar.output_names = ["sum", "x"]} {
    %0 = telar.add %x, %y : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    return %0, %x : tensor<2xf32>, tensor<2xf32>
  }
}

// -----

// After telar-outline-weights and buffer-results-to-out-params: weights are
// arguments, the output is the last argument and nothing is returned.
// CHECK: func.func @main(%{{.*}}: memref<4xf32> {telar.name = "x"}, %{{.*}}: memref<4xf32> {telar.weight = "w0"}, %{{.*}}: memref<4xf32>) attributes {telar.output_names = ["y"]}
func.func @main(%x: memref<4xf32> {telar.name = "x"},
                %w: memref<4xf32> {telar.weight = "w0"},
                %y: memref<4xf32>) attributes {telar.output_names = ["y"]} {
  return
}

// -----

// After telar-add-runtime-context: the context is the first argument, the
// status the only result (telar.runtime_status), the outputs still
// out-parameters. A status-returning function that names outputs may name
// only its out-parameters.
// CHECK: func.func @main(%{{.*}}: !llvm.ptr {telar.runtime_context}, %{{.*}}: memref<4xf32> {telar.name = "x"}, %{{.*}}: memref<4xf32>, %{{.*}}: memref<4xf32>) -> i32 attributes {telar.output_names = ["y", "z"], telar.runtime_status}
// CHECK: func.func private @kernel(!llvm.ptr) -> i32 attributes {telar.runtime_status}
func.func @main(%ctx: !llvm.ptr {telar.runtime_context},
                %x: memref<4xf32> {telar.name = "x"},
                %y: memref<4xf32>, %z: memref<4xf32>) -> i32
    attributes {telar.output_names = ["y", "z"], telar.runtime_status} {
  %ok = arith.constant 0 : i32
  return %ok : i32
}
func.func private @kernel(!llvm.ptr) -> i32 attributes {telar.runtime_status}

// -----

// The context does not count as an out-parameter.
// expected-error @+1 {{attribute 'telar.output_names' names 2 outputs, but the function has no results and only 1 arguments to hold them as out-parameters}}
func.func @main(%ctx: !llvm.ptr {telar.runtime_context}, %y: memref<4xf32>) -> i32
    attributes {telar.output_names = ["y", "z"], telar.runtime_status} {
  %ok = arith.constant 0 : i32
  return %ok : i32
}

// -----

// Without telar.runtime_status an i32 result is an output like any other.
// expected-error @+1 {{attribute 'telar.output_names' names 2 outputs, but the function has 1 results}}
func.func @main(%ctx: !llvm.ptr {telar.runtime_context}, %y: memref<4xf32>) -> i32
    attributes {telar.output_names = ["y", "z"]} {
  %ok = arith.constant 0 : i32
  return %ok : i32
}

// -----

// expected-error @+1 {{argument #0 attribute 'telar.runtime_context' must be a unit attribute on a function argument}}
func.func @main(%ctx: !llvm.ptr {telar.runtime_context = 1 : i32}) {
  return
}

// -----

// expected-error @+1 {{attribute 'telar.runtime_status' must be a unit attribute on a function}}
module attributes {telar.runtime_status} {
}

// -----

// expected-error @+1 {{attribute 'telar.runtime_context' belongs on a function argument, not on an operation}}
func.func @main() attributes {telar.runtime_context} {
  return
}

// -----

// An LLVM function returning void, as convert-func-to-llvm leaves @main.
// CHECK: llvm.func @main(%{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr) attributes {telar.output_names = ["y"]}
llvm.func @main(%x: !llvm.ptr, %y: !llvm.ptr) attributes {telar.output_names = ["y"]} {
  llvm.return
}

// -----

// No outputs, no inputs.
// CHECK: func.func @empty() attributes {telar.output_names = []}
func.func @empty() attributes {telar.output_names = []} {
  return
}

//===----------------------------------------------------------------------===//
// telar.target: a #telar.target on the module
//===----------------------------------------------------------------------===//

// -----

// CHECK: module attributes {telar.target = #telar.target<"cpu", triple = "x86_64-pc-linux-gnu", chip = "x86-64-v3", features = "">}
module attributes {telar.target = #telar.target<"cpu", triple = "x86_64-pc-linux-gnu", chip = "x86-64-v3", features = "">} {}

// -----

// expected-error @+1 {{'builtin.module' op attribute 'telar.target' must be a #telar.target, got "cpu"}}
module attributes {telar.target = "cpu"} {}

// -----

// expected-error @+1 {{'func.func' op attribute 'telar.target' belongs on the module}}
func.func @target_on_function() attributes {telar.target = #telar.target<"cpu", triple = "", chip = "", features = "">} {
  return
}

//===----------------------------------------------------------------------===//
// telar.opset, telar.producer: on the module
//===----------------------------------------------------------------------===//

// -----

// expected-error @+1 {{'func.func' op attribute 'telar.opset' belongs on the module}}
func.func @opset_on_function() attributes {telar.opset = 17 : i64} {
  return
}

// -----

// expected-error @+1 {{'builtin.module' op attribute 'telar.opset' must be a positive i64 (the ONNX opset), got "17"}}
module attributes {telar.opset = "17"} {}

// -----

// expected-error @+1 {{attribute 'telar.opset' must be a positive i64 (the ONNX opset), got 0 : i64}}
module attributes {telar.opset = 0 : i64} {}

// -----

// expected-error @+1 {{attribute 'telar.opset' must be a positive i64 (the ONNX opset), got 17 : i32}}
module attributes {telar.opset = 17 : i32} {}

// -----

// expected-error @+1 {{'builtin.module' op attribute 'telar.producer' must be a string, got 1 : i64}}
module attributes {telar.producer = 1} {}

// -----

// expected-error @+1 {{'func.func' op attribute 'telar.producer' belongs on the module}}
func.func @producer_on_function() attributes {telar.producer = "x"} {
  return
}

//===----------------------------------------------------------------------===//
// telar.output_names: on a function, one string per output
//===----------------------------------------------------------------------===//

// -----

// expected-error @+1 {{'builtin.module' op attribute 'telar.output_names' belongs on a function}}
module attributes {telar.output_names = ["y"]} {}

// -----

// expected-error @+1 {{attribute 'telar.output_names' must be an array of strings, got "y"}}
func.func @output_names_not_array(%x: tensor<2xf32>) -> tensor<2xf32>
    attributes {telar.output_names = "y"} {
  return %x : tensor<2xf32>
}

// -----

// expected-error @+1 {{attribute 'telar.output_names' must be an array of strings, got [1]}}
func.func @output_names_not_strings(%x: tensor<2xf32>) -> tensor<2xf32>
    attributes {telar.output_names = [1]} {
  return %x : tensor<2xf32>
}

// -----

// expected-error @+1 {{'func.func' op attribute 'telar.output_names' names 1 outputs, but the function has 2 results}}
func.func @output_names_too_few(%x: tensor<2xf32>) -> (tensor<2xf32>, tensor<2xf32>)
    attributes {telar.output_names = ["y"]} {
  return %x, %x : tensor<2xf32>, tensor<2xf32>
}

// -----

// expected-error @+1 {{attribute 'telar.output_names' names 3 outputs, but the function has 1 results}}
func.func @output_names_too_many(%x: tensor<2xf32>) -> tensor<2xf32>
    attributes {telar.output_names = ["a", "b", "c"]} {
  return %x : tensor<2xf32>
}

// -----

// expected-error @+1 {{attribute 'telar.output_names' names 2 outputs, but the function has no results and only 1 arguments to hold them as out-parameters}}
func.func @output_names_no_out_params(%y: memref<2xf32>)
    attributes {telar.output_names = ["a", "b"]} {
  return
}

//===----------------------------------------------------------------------===//
// telar.name, telar.weight: on function arguments
//===----------------------------------------------------------------------===//

// -----

// expected-error @+1 {{'func.func' op attribute 'telar.name' belongs on a function argument, not on an operation}}
func.func @name_on_function() attributes {telar.name = "x"} {
  return
}

// -----

// expected-error @+1 {{'builtin.module' op attribute 'telar.weight' belongs on a function argument, not on an operation}}
module attributes {telar.weight = "w0"} {}

// -----

// expected-error @+1 {{'func.func' op argument #0 attribute 'telar.name' must be a string, got 1 : i64}}
func.func @name_not_string(%x: tensor<2xf32> {telar.name = 1}) {
  return
}

// -----

// expected-error @+1 {{'func.func' op argument #2 attribute 'telar.name' "x" is also the name of argument #0}}
func.func @name_twice(%a: tensor<2xf32> {telar.name = "x"},
                      %b: tensor<2xf32> {telar.name = "y"},
                      %c: tensor<2xf32> {telar.name = "x"}) {
  return
}

// -----

// expected-error @+1 {{'func.func' op argument #0 attribute 'telar.weight' must be a string, got unit}}
func.func @weight_not_string(%w: tensor<2xf32> {telar.weight}) {
  return
}

// -----

// expected-error @+1 {{'func.func' op argument #0 attribute 'telar.weight' must name a weight resource, got an empty string}}
func.func @weight_empty(%w: tensor<2xf32> {telar.weight = ""}) {
  return
}

// -----

// expected-error @+1 {{'func.func' op argument #1 attribute 'telar.weight' marks a weight, but the argument is also the input "w" ('telar.name'); an argument is one or the other}}
func.func @weight_and_name(%x: tensor<2xf32> {telar.name = "x"},
                           %w: tensor<2xf32> {telar.name = "w", telar.weight = "w0"}) {
  return
}

// -----

// expected-error @+1 {{'func.func' op argument #0 attribute 'telar.opset' belongs on the module}}
func.func @opset_on_argument(%x: tensor<2xf32> {telar.opset = 17 : i64}) {
  return
}

// -----

// expected-error @+1 {{'func.func' op argument #0 attribute 'telar.output_names' belongs on the function}}
func.func @output_names_on_argument(%x: tensor<2xf32> {telar.output_names = ["y"]}) {
  return
}

// -----

// expected-error @+1 {{'func.func' op result #0 attribute 'telar.name' belongs on a function argument}}
func.func @name_on_result(%x: tensor<2xf32>) -> (tensor<2xf32> {telar.name = "y"}) {
  return %x : tensor<2xf32>
}

// -----

// expected-error @+1 {{'func.func' op result #0 attribute 'telar.output_names' belongs on the function (one name per result)}}
func.func @output_names_on_result(%x: tensor<2xf32>) -> (tensor<2xf32> {telar.output_names = ["y"]}) {
  return %x : tensor<2xf32>
}

//===----------------------------------------------------------------------===//
// Unknown names
//===----------------------------------------------------------------------===//

// -----

// expected-error @+1 {{'func.func' op attribute 'telar.output_name' is not an attribute of the telar dialect}}
func.func @misspelt(%x: tensor<2xf32>) -> tensor<2xf32>
    attributes {telar.output_name = ["y"]} {
  return %x : tensor<2xf32>
}

// -----

// expected-error @+1 {{'func.func' op argument #0 attribute 'telar.names' is not an attribute of the telar dialect}}
func.func @misspelt_argument(%x: tensor<2xf32> {telar.names = "x"}) {
  return
}

// -----

// expected-error @+1 {{'func.func' op result #0 attribute 'telar.foo' is not an attribute of the telar dialect}}
func.func @unknown_result_attr(%x: tensor<2xf32>) -> (tensor<2xf32> {telar.foo}) {
  return %x : tensor<2xf32>
}

//===----------------------------------------------------------------------===//
// Names of values, meshes, partial values, partitioned interfaces
//===----------------------------------------------------------------------===//

// -----

// CHECK: shard.grid @mesh(shape = 2x2) {telar.axis_names = ["data", "model"]}
// CHECK-LABEL: @sharded_interface
// CHECK-SAME: telar.sharding = {{\[\[}}"data"], []]
// CHECK: telar.result_names = ["y"]
// CHECK: telar.partial = {model = "sum"}
shard.grid @mesh(shape = 2x2) {telar.axis_names = ["data", "model"]}
func.func @sharded_interface(
    %x: tensor<2x8xf32> {telar.name = "x", telar.sharding = [["data"], []],
                         telar.global_shape = array<i64: 4, 8>})
    -> (tensor<2x8xf32> {telar.sharding = [["data"], []],
                         telar.global_shape = array<i64: 4, 8>}) {
  %y = telar.relu %x {telar.result_names = ["y"]} : (tensor<2x8xf32>) -> tensor<2x8xf32>
  %s = shard.sharding @mesh split_axes = [[0], []] {telar.partial = {model = "sum"}} : !shard.sharding
  return %y : tensor<2x8xf32>
}

// -----

func.func @result_names_count(%x: tensor<2xf32>) -> tensor<2xf32> {
  // expected-error @+1 {{'telar.relu' op attribute 'telar.result_names' names 2 results, but the op has 1}}
  %y = telar.relu %x {telar.result_names = ["a", "b"]} : (tensor<2xf32>) -> tensor<2xf32>
  return %y : tensor<2xf32>
}

// -----

// expected-error @+1 {{'shard.grid' op attribute 'telar.axis_names' names axis "data" twice}}
shard.grid @twice(shape = 2x2) {telar.axis_names = ["data", "data"]}

// -----

// expected-error @+1 {{'shard.grid' op attribute 'telar.axis_names' names 1 axes, but the grid has 2}}
shard.grid @short(shape = 2x2) {telar.axis_names = ["data"]}

// -----

shard.grid @mesh(shape = 2) {telar.axis_names = ["model"]}
func.func @partial_kind() {
  // expected-error @+1 {{'shard.sharding' op attribute 'telar.partial' axis "model": the reduction must be "sum", "max" or "min", got "mean"}}
  %s = shard.sharding @mesh split_axes = [[]] {telar.partial = {model = "mean"}} : !shard.sharding
  return
}

// -----

// expected-error @+1 {{'func.func' op argument #0 attribute 'telar.sharding' has 1 dimensions, but the tensor has rank 2}}
func.func @sharding_rank(%x: tensor<2x8xf32> {telar.sharding = [["data"]]}) {
  return
}

// -----

// expected-error @+1 {{'func.func' op result #0 attribute 'telar.global_shape' must be an array<i64: ...> (the global shape), got [4, 8]}}
func.func @global_shape_kind(%x: tensor<2x8xf32>) -> (tensor<2x8xf32> {telar.global_shape = [4, 8]}) {
  return %x : tensor<2x8xf32>
}

// -----

func.func @partial_on_op(%x: tensor<2xf32>) -> tensor<2xf32> {
  // expected-error @+1 {{'telar.relu' op attribute 'telar.partial' belongs on a shard.sharding}}
  %y = telar.relu %x {telar.partial = {model = "sum"}} : (tensor<2xf32>) -> tensor<2xf32>
  return %y : tensor<2xf32>
}

// -----

// telar.phase marks a training step's backward and optimizer ops.
// CHECK-LABEL: func.func @phase
// CHECK: telar.neg %{{.*}} {telar.phase = "backward"}
func.func @phase(%x: tensor<2xf32>) -> tensor<2xf32> {
  %y = telar.neg %x {telar.phase = "backward"} : (tensor<2xf32>) -> tensor<2xf32>
  return %y : tensor<2xf32>
}

// -----

func.func @phase_unknown(%x: tensor<2xf32>) -> tensor<2xf32> {
  // expected-error @+1 {{'telar.neg' op attribute 'telar.phase' must be "backward" or "optimizer", got "forward"}}
  %y = telar.neg %x {telar.phase = "forward"} : (tensor<2xf32>) -> tensor<2xf32>
  return %y : tensor<2xf32>
}
