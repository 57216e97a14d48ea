// Bad plans: every error names the value (and the op), and plan.json's
// unknown fields are warnings. One case per file (split-file), each with its
// plan.
// RUN: split-file %s %t
// RUN: telar-opt %t/malformed.mlir --telar-apply-plan="plan=%t/malformed.json" -verify-diagnostics
// RUN: telar-opt %t/axis-twice.mlir --telar-apply-plan="plan=%t/axis-twice.json" -verify-diagnostics
// RUN: telar-opt %t/partial-twice.mlir --telar-apply-plan="plan=%t/partial-twice.json" -verify-diagnostics
// RUN: telar-opt %t/axis-unknown.mlir --telar-apply-plan="plan=%t/axis-unknown.json" -verify-diagnostics
// RUN: telar-opt %t/no-mesh.mlir --telar-apply-plan="plan=%t/no-mesh.json" -verify-diagnostics
// RUN: telar-opt %t/reduction.mlir --telar-apply-plan="plan=%t/reduction.json" -verify-diagnostics
// RUN: telar-opt %t/mesh-size.mlir --telar-apply-plan="plan=%t/mesh-size.json" -verify-diagnostics
// RUN: telar-opt %t/mesh-differs.mlir --telar-apply-plan="plan=%t/mesh-differs.json mesh=d=4" -verify-diagnostics
// RUN: telar-opt %t/unknown-fields.mlir --telar-apply-plan="plan=%t/unknown-fields.json" -verify-diagnostics
// RUN: telar-opt %t/unknown-name.mlir --telar-apply-plan="plan=%t/unknown-name.json" -verify-diagnostics
// RUN: telar-opt %t/unknown-far.mlir --telar-apply-plan="plan=%t/unknown-far.json" -verify-diagnostics
// RUN: telar-opt %t/divisible.mlir --telar-apply-plan="plan=%t/divisible.json" -verify-diagnostics
// RUN: telar-opt %t/divisible-2d.mlir --telar-apply-plan="plan=%t/divisible-2d.json" -verify-diagnostics
// RUN: telar-opt %t/rank.mlir --telar-apply-plan="plan=%t/rank.json" -verify-diagnostics
// RUN: telar-opt %t/partial-input.mlir --telar-apply-plan="plan=%t/partial-input.json" -verify-diagnostics
// RUN: telar-opt %t/partial-output.mlir --telar-apply-plan="plan=%t/partial-output.json" -verify-diagnostics
// RUN: telar-opt %t/partial-op.mlir --telar-apply-plan="plan=%t/partial-op.json" -verify-diagnostics
// RUN: telar-opt %t/partial-kind.mlir --telar-apply-plan="plan=%t/partial-kind.json" -verify-diagnostics
// RUN: telar-opt %t/whole-axis.mlir --telar-apply-plan="plan=%t/whole-axis.json" -verify-diagnostics
// RUN: telar-opt %t/applied.mlir --telar-apply-plan="plan=%t/applied.json" -verify-diagnostics
// A plan or a mesh is needed; a malformed mesh is refused.
// RUN: %expect_exit 1 telar-opt %t/malformed.mlir --telar-apply-plan 2>&1 | FileCheck %s --check-prefix=NONE
// NONE: error: a plan needs a plan file or a mesh
// RUN: %expect_exit 1 telar-opt %t/malformed.mlir --telar-apply-plan=mesh=d=x 2>&1 | FileCheck %s --check-prefix=SPEC
// SPEC: error: mesh 'd=x':
// RUN: %expect_exit 1 telar-opt %t/malformed.mlir --telar-apply-plan=plan=%t/missing.json 2>&1 | FileCheck %s --check-prefix=MISSING
// MISSING: error: cannot read plan '{{.*}}missing.json'

//--- malformed.mlir
// expected-error @+1 {{malformed JSON}}
module {
func.func @main(%x: tensor<6x16xf32> {telar.name = "x"}) -> tensor<6x16xf32> attributes {telar.output_names = ["y"]} {
  %w = telar.constant {telar.result_names = ["layer0.weight"]} dense<1.0> : tensor<16x16xf32>
  %h = telar.matmul %x, %w {telar.result_names = ["h"]} : (tensor<6x16xf32>, tensor<16x16xf32>) -> tensor<6x16xf32>
  %r = telar.relu %h {telar.result_names = ["r"]} : (tensor<6x16xf32>) -> tensor<6x16xf32>
  %y = telar.softmax %r {axis = 1 : i64, telar.result_names = ["y"]} : (tensor<6x16xf32>) -> tensor<6x16xf32>
  return %y : tensor<6x16xf32>
}
}
//--- malformed.json
{"mesh": {"d": 2}, "shardings": {
//--- axis-twice.mlir
// expected-error @+1 {{value 'x': axis 'd' is used twice in one sharding}}
module {
func.func @main(%x: tensor<6x16xf32> {telar.name = "x"}) -> tensor<6x16xf32> attributes {telar.output_names = ["y"]} {
  %w = telar.constant {telar.result_names = ["layer0.weight"]} dense<1.0> : tensor<16x16xf32>
  %h = telar.matmul %x, %w {telar.result_names = ["h"]} : (tensor<6x16xf32>, tensor<16x16xf32>) -> tensor<6x16xf32>
  %r = telar.relu %h {telar.result_names = ["r"]} : (tensor<6x16xf32>) -> tensor<6x16xf32>
  %y = telar.softmax %r {axis = 1 : i64, telar.result_names = ["y"]} : (tensor<6x16xf32>) -> tensor<6x16xf32>
  return %y : tensor<6x16xf32>
}
}
//--- axis-twice.json
{"mesh": {"d": 2}, "shardings": {"x": [["d"], ["d"]]}}
//--- partial-twice.mlir
// expected-error @+1 {{value 'h': axis 'd' is used twice in one sharding}}
module {
func.func @main(%x: tensor<6x16xf32> {telar.name = "x"}) -> tensor<6x16xf32> attributes {telar.output_names = ["y"]} {
  %w = telar.constant {telar.result_names = ["layer0.weight"]} dense<1.0> : tensor<16x16xf32>
  %h = telar.matmul %x, %w {telar.result_names = ["h"]} : (tensor<6x16xf32>, tensor<16x16xf32>) -> tensor<6x16xf32>
  %r = telar.relu %h {telar.result_names = ["r"]} : (tensor<6x16xf32>) -> tensor<6x16xf32>
  %y = telar.softmax %r {axis = 1 : i64, telar.result_names = ["y"]} : (tensor<6x16xf32>) -> tensor<6x16xf32>
  return %y : tensor<6x16xf32>
}
}
//--- partial-twice.json
{"mesh": {"d": 2}, "shardings": {"h": {"dims": [["d"], []], "partial": {"d": "sum"}}}}
//--- axis-unknown.mlir
// expected-error @+1 {{value 'x': axis 'model' is not in the mesh (the mesh has data)}}
module {
func.func @main(%x: tensor<6x16xf32> {telar.name = "x"}) -> tensor<6x16xf32> attributes {telar.output_names = ["y"]} {
  %w = telar.constant {telar.result_names = ["layer0.weight"]} dense<1.0> : tensor<16x16xf32>
  %h = telar.matmul %x, %w {telar.result_names = ["h"]} : (tensor<6x16xf32>, tensor<16x16xf32>) -> tensor<6x16xf32>
  %r = telar.relu %h {telar.result_names = ["r"]} : (tensor<6x16xf32>) -> tensor<6x16xf32>
  %y = telar.softmax %r {axis = 1 : i64, telar.result_names = ["y"]} : (tensor<6x16xf32>) -> tensor<6x16xf32>
  return %y : tensor<6x16xf32>
}
}
//--- axis-unknown.json
{"mesh": {"data": 2}, "shardings": {"x": [["model"], []]}}
//--- no-mesh.mlir
// expected-error @+1 {{value 'x': axis 'data' is not in the mesh (the plan has no mesh axes (give a "mesh" or --mesh))}}
module {
func.func @main(%x: tensor<6x16xf32> {telar.name = "x"}) -> tensor<6x16xf32> attributes {telar.output_names = ["y"]} {
  %w = telar.constant {telar.result_names = ["layer0.weight"]} dense<1.0> : tensor<16x16xf32>
  %h = telar.matmul %x, %w {telar.result_names = ["h"]} : (tensor<6x16xf32>, tensor<16x16xf32>) -> tensor<6x16xf32>
  %r = telar.relu %h {telar.result_names = ["r"]} : (tensor<6x16xf32>) -> tensor<6x16xf32>
  %y = telar.softmax %r {axis = 1 : i64, telar.result_names = ["y"]} : (tensor<6x16xf32>) -> tensor<6x16xf32>
  return %y : tensor<6x16xf32>
}
}
//--- no-mesh.json
{"shardings": {"x": [["data"], []]}}
//--- reduction.mlir
// expected-error @+1 {{value 'h': partial axis 'd': unknown reduction "avg" (expected "sum", "max" or "min")}}
module {
func.func @main(%x: tensor<6x16xf32> {telar.name = "x"}) -> tensor<6x16xf32> attributes {telar.output_names = ["y"]} {
  %w = telar.constant {telar.result_names = ["layer0.weight"]} dense<1.0> : tensor<16x16xf32>
  %h = telar.matmul %x, %w {telar.result_names = ["h"]} : (tensor<6x16xf32>, tensor<16x16xf32>) -> tensor<6x16xf32>
  %r = telar.relu %h {telar.result_names = ["r"]} : (tensor<6x16xf32>) -> tensor<6x16xf32>
  %y = telar.softmax %r {axis = 1 : i64, telar.result_names = ["y"]} : (tensor<6x16xf32>) -> tensor<6x16xf32>
  return %y : tensor<6x16xf32>
}
}
//--- reduction.json
{"mesh": {"d": 2}, "shardings": {"h": {"dims": [[], []], "partial": {"d": "avg"}}}}
//--- mesh-size.mlir
// expected-error @+1 {{mesh: the size of axis 'd' must be a positive integer}}
module {
func.func @main(%x: tensor<6x16xf32> {telar.name = "x"}) -> tensor<6x16xf32> attributes {telar.output_names = ["y"]} {
  %w = telar.constant {telar.result_names = ["layer0.weight"]} dense<1.0> : tensor<16x16xf32>
  %h = telar.matmul %x, %w {telar.result_names = ["h"]} : (tensor<6x16xf32>, tensor<16x16xf32>) -> tensor<6x16xf32>
  %r = telar.relu %h {telar.result_names = ["r"]} : (tensor<6x16xf32>) -> tensor<6x16xf32>
  %y = telar.softmax %r {axis = 1 : i64, telar.result_names = ["y"]} : (tensor<6x16xf32>) -> tensor<6x16xf32>
  return %y : tensor<6x16xf32>
}
}
//--- mesh-size.json
{"mesh": {"d": 0}, "shardings": {}}
//--- mesh-differs.mlir
// expected-error @+1 {{--mesh d=4 differs from the plan's mesh d=2}}
module {
func.func @main(%x: tensor<6x16xf32> {telar.name = "x"}) -> tensor<6x16xf32> attributes {telar.output_names = ["y"]} {
  %w = telar.constant {telar.result_names = ["layer0.weight"]} dense<1.0> : tensor<16x16xf32>
  %h = telar.matmul %x, %w {telar.result_names = ["h"]} : (tensor<6x16xf32>, tensor<16x16xf32>) -> tensor<6x16xf32>
  %r = telar.relu %h {telar.result_names = ["r"]} : (tensor<6x16xf32>) -> tensor<6x16xf32>
  %y = telar.softmax %r {axis = 1 : i64, telar.result_names = ["y"]} : (tensor<6x16xf32>) -> tensor<6x16xf32>
  return %y : tensor<6x16xf32>
}
}
//--- mesh-differs.json
{"mesh": {"d": 2}, "shardings": {}}
//--- unknown-fields.mlir
// expected-warning @+3 {{unknown field 'costs' ignored}}
// expected-warning @+2 {{value 'x': unknown field 'cost' ignored}}
// expected-error @+1 {{value 'x': axis 'e' is not in the mesh}}
module {
func.func @main(%x: tensor<6x16xf32> {telar.name = "x"}) -> tensor<6x16xf32> attributes {telar.output_names = ["y"]} {
  %w = telar.constant {telar.result_names = ["layer0.weight"]} dense<1.0> : tensor<16x16xf32>
  %h = telar.matmul %x, %w {telar.result_names = ["h"]} : (tensor<6x16xf32>, tensor<16x16xf32>) -> tensor<6x16xf32>
  %r = telar.relu %h {telar.result_names = ["r"]} : (tensor<6x16xf32>) -> tensor<6x16xf32>
  %y = telar.softmax %r {axis = 1 : i64, telar.result_names = ["y"]} : (tensor<6x16xf32>) -> tensor<6x16xf32>
  return %y : tensor<6x16xf32>
}
}
//--- unknown-fields.json
{"mesh": {"d": 2}, "costs": {"total": 1}, "shardings": {"x": {"dims": [["e"], []], "cost": 3}}}
//--- unknown-name.mlir
module {
// expected-error @+2 {{the plan names an unknown value 'layer0.wieght'; the closest names are 'layer0.weight'}}
// expected-note @+1 {{values folded away at import}}
func.func @main(%x: tensor<6x16xf32> {telar.name = "x"}) -> tensor<6x16xf32> attributes {telar.output_names = ["y"]} {
  %w = telar.constant {telar.result_names = ["layer0.weight"]} dense<1.0> : tensor<16x16xf32>
  %h = telar.matmul %x, %w {telar.result_names = ["h"]} : (tensor<6x16xf32>, tensor<16x16xf32>) -> tensor<6x16xf32>
  %r = telar.relu %h {telar.result_names = ["r"]} : (tensor<6x16xf32>) -> tensor<6x16xf32>
  %y = telar.softmax %r {axis = 1 : i64, telar.result_names = ["y"]} : (tensor<6x16xf32>) -> tensor<6x16xf32>
  return %y : tensor<6x16xf32>
}
}
//--- unknown-name.json
{"mesh": {"d": 2}, "shardings": {"layer0.wieght": [[], ["d"]]}}
//--- unknown-far.mlir
module {
// expected-error @+2 {{the plan names an unknown value 'onnx::Shape_12' (no value of the graph has a close name)}}
// expected-note @+1 {{aliases of other values}}
func.func @main(%x: tensor<6x16xf32> {telar.name = "x"}) -> tensor<6x16xf32> attributes {telar.output_names = ["y"]} {
  %w = telar.constant {telar.result_names = ["layer0.weight"]} dense<1.0> : tensor<16x16xf32>
  %h = telar.matmul %x, %w {telar.result_names = ["h"]} : (tensor<6x16xf32>, tensor<16x16xf32>) -> tensor<6x16xf32>
  %r = telar.relu %h {telar.result_names = ["r"]} : (tensor<6x16xf32>) -> tensor<6x16xf32>
  %y = telar.softmax %r {axis = 1 : i64, telar.result_names = ["y"]} : (tensor<6x16xf32>) -> tensor<6x16xf32>
  return %y : tensor<6x16xf32>
}
}
//--- unknown-far.json
{"mesh": {"d": 2}, "shardings": {"onnx::Shape_12": [[]]}}
//--- divisible.mlir
module {
// expected-error @+1 {{value 'x': dimension 0 (size 6) is not divisible by 4, the size of axes 'd'}}
func.func @main(%x: tensor<6x16xf32> {telar.name = "x"}) -> tensor<6x16xf32> attributes {telar.output_names = ["y"]} {
  %w = telar.constant {telar.result_names = ["layer0.weight"]} dense<1.0> : tensor<16x16xf32>
  %h = telar.matmul %x, %w {telar.result_names = ["h"]} : (tensor<6x16xf32>, tensor<16x16xf32>) -> tensor<6x16xf32>
  %r = telar.relu %h {telar.result_names = ["r"]} : (tensor<6x16xf32>) -> tensor<6x16xf32>
  %y = telar.softmax %r {axis = 1 : i64, telar.result_names = ["y"]} : (tensor<6x16xf32>) -> tensor<6x16xf32>
  return %y : tensor<6x16xf32>
}
}
//--- divisible.json
{"mesh": {"d": 4}, "shardings": {"x": [["d"], []]}}
//--- divisible-2d.mlir
module {
func.func @main(%x: tensor<6x16xf32> {telar.name = "x"}) -> tensor<6x16xf32> attributes {telar.output_names = ["y"]} {
  %w = telar.constant {telar.result_names = ["layer0.weight"]} dense<1.0> : tensor<16x16xf32>
  // expected-error @+1 {{value 'h': dimension 1 (size 16) is not divisible by 32, the size of axes 'a', 'b'}}
  %h = telar.matmul %x, %w {telar.result_names = ["h"]} : (tensor<6x16xf32>, tensor<16x16xf32>) -> tensor<6x16xf32>
  %r = telar.relu %h {telar.result_names = ["r"]} : (tensor<6x16xf32>) -> tensor<6x16xf32>
  %y = telar.softmax %r {axis = 1 : i64, telar.result_names = ["y"]} : (tensor<6x16xf32>) -> tensor<6x16xf32>
  return %y : tensor<6x16xf32>
}
}
//--- divisible-2d.json
{"mesh": {"a": 4, "b": 8}, "shardings": {"h": [[], ["a", "b"]]}}
//--- rank.mlir
module {
func.func @main(%x: tensor<6x16xf32> {telar.name = "x"}) -> tensor<6x16xf32> attributes {telar.output_names = ["y"]} {
  // expected-error @+1 {{value 'layer0.weight': the sharding has 1 dimensions, but the value has 2 ('tensor<16x16xf32>')}}
  %w = telar.constant {telar.result_names = ["layer0.weight"]} dense<1.0> : tensor<16x16xf32>
  %h = telar.matmul %x, %w {telar.result_names = ["h"]} : (tensor<6x16xf32>, tensor<16x16xf32>) -> tensor<6x16xf32>
  %r = telar.relu %h {telar.result_names = ["r"]} : (tensor<6x16xf32>) -> tensor<6x16xf32>
  %y = telar.softmax %r {axis = 1 : i64, telar.result_names = ["y"]} : (tensor<6x16xf32>) -> tensor<6x16xf32>
  return %y : tensor<6x16xf32>
}
}
//--- rank.json
{"mesh": {"d": 2}, "shardings": {"layer0.weight": [["d"]]}}
//--- partial-input.mlir
module {
// expected-error @+1 {{value 'x' is a graph input and cannot be partial}}
func.func @main(%x: tensor<6x16xf32> {telar.name = "x"}) -> tensor<6x16xf32> attributes {telar.output_names = ["y"]} {
  %w = telar.constant {telar.result_names = ["layer0.weight"]} dense<1.0> : tensor<16x16xf32>
  %h = telar.matmul %x, %w {telar.result_names = ["h"]} : (tensor<6x16xf32>, tensor<16x16xf32>) -> tensor<6x16xf32>
  %r = telar.relu %h {telar.result_names = ["r"]} : (tensor<6x16xf32>) -> tensor<6x16xf32>
  %y = telar.softmax %r {axis = 1 : i64, telar.result_names = ["y"]} : (tensor<6x16xf32>) -> tensor<6x16xf32>
  return %y : tensor<6x16xf32>
}
}
//--- partial-input.json
{"mesh": {"d": 2}, "shardings": {"x": {"dims": [[], []], "partial": {"d": "sum"}}}}
//--- partial-output.mlir
module {
func.func @main(%x: tensor<6x16xf32> {telar.name = "x"}) -> tensor<6x16xf32> attributes {telar.output_names = ["y"]} {
  %w = telar.constant {telar.result_names = ["layer0.weight"]} dense<1.0> : tensor<16x16xf32>
  %h = telar.matmul %x, %w {telar.result_names = ["h"]} : (tensor<6x16xf32>, tensor<16x16xf32>) -> tensor<6x16xf32>
  %r = telar.relu %h {telar.result_names = ["r"]} : (tensor<6x16xf32>) -> tensor<6x16xf32>
  // expected-error @+1 {{a partial value fed to/produced by an op that cannot take it: value 'y' is named {"dims": [[], []], "partial": {"d": "sum"}}, but telar.softmax produces it}}
  %y = telar.softmax %r {axis = 1 : i64, telar.result_names = ["y"]} : (tensor<6x16xf32>) -> tensor<6x16xf32>
  return %y : tensor<6x16xf32>
}
}
//--- partial-output.json
{"mesh": {"d": 2}, "shardings": {"y": {"dims": [[], []], "partial": {"d": "sum"}}}}
//--- partial-op.mlir
module {
func.func @main(%x: tensor<6x16xf32> {telar.name = "x"}) -> tensor<6x16xf32> attributes {telar.output_names = ["y"]} {
  %w = telar.constant {telar.result_names = ["layer0.weight"]} dense<1.0> : tensor<16x16xf32>
  %h = telar.matmul %x, %w {telar.result_names = ["h"]} : (tensor<6x16xf32>, tensor<16x16xf32>) -> tensor<6x16xf32>
  // expected-error @+1 {{a partial value fed to/produced by an op that cannot take it: value 'r' is named {"dims": [[], []], "partial": {"d": "sum"}}, but telar.relu produces it [[], []] (a partial value needs a split reduction factor of its kind)}}
  %r = telar.relu %h {telar.result_names = ["r"]} : (tensor<6x16xf32>) -> tensor<6x16xf32>
  %y = telar.softmax %r {axis = 1 : i64, telar.result_names = ["y"]} : (tensor<6x16xf32>) -> tensor<6x16xf32>
  return %y : tensor<6x16xf32>
}
}
//--- partial-op.json
{"mesh": {"d": 2}, "shardings": {"r": {"dims": [[], []], "partial": {"d": "sum"}}}}
//--- partial-kind.mlir
module {
func.func @main(%x: tensor<6x16xf32> {telar.name = "x"}) -> tensor<6x16xf32> attributes {telar.output_names = ["y"]} {
  %w = telar.constant {telar.result_names = ["layer0.weight"]} dense<1.0> : tensor<16x16xf32>
  // expected-error @+1 {{a partial value fed to/produced by an op that cannot take it: value 'h' is named {"dims": [[], []], "partial": {"d": "max"}}, but telar.matmul produces it [[], []]}}
  %h = telar.matmul %x, %w {telar.result_names = ["h"]} : (tensor<6x16xf32>, tensor<16x16xf32>) -> tensor<6x16xf32>
  %r = telar.relu %h {telar.result_names = ["r"]} : (tensor<6x16xf32>) -> tensor<6x16xf32>
  %y = telar.softmax %r {axis = 1 : i64, telar.result_names = ["y"]} : (tensor<6x16xf32>) -> tensor<6x16xf32>
  return %y : tensor<6x16xf32>
}
}
//--- partial-kind.json
{"mesh": {"d": 2}, "shardings": {"h": {"dims": [[], []], "partial": {"d": "max"}}}}
//--- whole-axis.mlir
module {
func.func @main(%x: tensor<6x16xf32> {telar.name = "x"}) -> tensor<6x16xf32> attributes {telar.output_names = ["y"]} {
  %w = telar.constant {telar.result_names = ["layer0.weight"]} dense<1.0> : tensor<16x16xf32>
  %h = telar.matmul %x, %w {telar.result_names = ["h"]} : (tensor<6x16xf32>, tensor<16x16xf32>) -> tensor<6x16xf32>
  %r = telar.relu %h {telar.result_names = ["r"]} : (tensor<6x16xf32>) -> tensor<6x16xf32>
  // expected-error @+1 {{value 'y': the plan's sharding [[], ["d"]] cannot be produced by telar.softmax (it produces [[], []])}}
  %y = telar.softmax %r {axis = 1 : i64, telar.result_names = ["y"]} : (tensor<6x16xf32>) -> tensor<6x16xf32>
  return %y : tensor<6x16xf32>
}
}
//--- whole-axis.json
{"mesh": {"d": 2}, "shardings": {"y": [[], ["d"]]}}
//--- applied.mlir
// expected-error @+1 {{the module already has a symbol @mesh (a plan was applied already?)}}
module {
  shard.grid @mesh(shape = 2)
func.func @main(%x: tensor<6x16xf32> {telar.name = "x"}) -> tensor<6x16xf32> attributes {telar.output_names = ["y"]} {
  %w = telar.constant {telar.result_names = ["layer0.weight"]} dense<1.0> : tensor<16x16xf32>
  %h = telar.matmul %x, %w {telar.result_names = ["h"]} : (tensor<6x16xf32>, tensor<16x16xf32>) -> tensor<6x16xf32>
  %r = telar.relu %h {telar.result_names = ["r"]} : (tensor<6x16xf32>) -> tensor<6x16xf32>
  %y = telar.softmax %r {axis = 1 : i64, telar.result_names = ["y"]} : (tensor<6x16xf32>) -> tensor<6x16xf32>
  return %y : tensor<6x16xf32>
}
}
//--- applied.json
{"mesh": {"d": 2}, "shardings": {}}
