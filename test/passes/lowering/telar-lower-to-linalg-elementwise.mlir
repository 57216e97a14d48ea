// RUN: telar-opt %s --telar-lower-to-linalg -split-input-file | FileCheck %s

// Round is half-to-even; the scalar body sits in one all-parallel generic.
// CHECK-LABEL: func.func @round
// CHECK: linalg.generic {{.*}}iterator_types = ["parallel", "parallel"]
// CHECK: math.roundeven
func.func @round(%a: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = telar.round %a : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

// Max and min propagate NaN.
// CHECK-LABEL: func.func @max_min
// CHECK: arith.maximumf
// CHECK: arith.minimumf
func.func @max_min(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xf32> {
  %0 = telar.max %a, %b : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %1 = telar.min %0, %b : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %1 : tensor<4xf32>
}

// -----

// Unsigned operands pick unsigned arithmetic and comparisons.
// CHECK-LABEL: func.func @unsigned
// CHECK: arith.maxui
// CHECK: arith.cmpi ult
// CHECK: arith.remui
func.func @unsigned(%a: tensor<4xui8>, %b: tensor<4xui8>) -> (tensor<4xui8>, tensor<4xi1>, tensor<4xui8>) {
  %0 = telar.max %a, %b : (tensor<4xui8>, tensor<4xui8>) -> tensor<4xui8>
  %1 = telar.less %a, %b : (tensor<4xui8>, tensor<4xui8>) -> tensor<4xi1>
  %2 = telar.mod %a, %b : (tensor<4xui8>, tensor<4xui8>) -> tensor<4xui8>
  return %0, %1, %2 : tensor<4xui8>, tensor<4xi1>, tensor<4xui8>
}

// -----

// Mod without fmod: the C remainder, moved to the divisor's sign.
// CHECK-LABEL: func.func @mod
// CHECK: %[[R:.+]] = arith.remsi %[[X:.+]], %[[Y:.+]] : i32
// CHECK: arith.xori
// CHECK: %[[S:.+]] = arith.addi %[[R]], %[[Y]]
// CHECK: arith.select %{{.+}}, %[[S]], %[[R]]
// With fmod: the remainder itself.
// CHECK: linalg.generic
// CHECK: %[[F:.+]] = arith.remf
// CHECK-NEXT: linalg.yield %[[F]]
func.func @mod(%a: tensor<4xi32>, %b: tensor<4xi32>, %c: tensor<4xf32>, %d: tensor<4xf32>) -> (tensor<4xi32>, tensor<4xf32>) {
  %0 = telar.mod %a, %b : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
  %1 = telar.mod %c, %d {fmod = true} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %0, %1 : tensor<4xi32>, tensor<4xf32>
}

// -----

// Integer relu and pow (computed in f64 and truncated).
// CHECK-LABEL: func.func @integers
// CHECK: arith.maxsi
// CHECK: arith.sitofp {{.*}} : i32 to f64
// CHECK: math.powf {{.*}} : f64
// CHECK: arith.fptosi {{.*}} : f64 to i32
func.func @integers(%a: tensor<4xi32>, %b: tensor<4xi32>) -> (tensor<4xi32>, tensor<4xi32>) {
  %0 = telar.relu %a : (tensor<4xi32>) -> tensor<4xi32>
  %1 = telar.pow %a, %b : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
  return %0, %1 : tensor<4xi32>, tensor<4xi32>
}

// -----

// f16 is computed in f32 and rounded back once.
// CHECK-LABEL: func.func @gelu_f16
// CHECK: ^bb0(%[[IN:.+]]: f16, %{{.+}}: f16):
// CHECK: %[[W:.+]] = arith.extf %[[IN]] : f16 to f32
// CHECK: math.erf
// CHECK: %[[N:.+]] = arith.truncf %{{.+}} : f32 to f16
// CHECK: linalg.yield %[[N]] : f16
func.func @gelu_f16(%a: tensor<4xf16>) -> tensor<4xf16> {
  %0 = telar.gelu %a : (tensor<4xf16>) -> tensor<4xf16>
  return %0 : tensor<4xf16>
}

// -----

// where broadcasts all three operands; the scalar is read at no index.
// CHECK-DAG: #[[COL:.+]] = affine_map<(d0, d1) -> (d0, 0)>
// CHECK-DAG: #[[ID:.+]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG: #[[SCALAR:.+]] = affine_map<(d0, d1) -> ()>
// CHECK-LABEL: func.func @where
// CHECK: linalg.generic {indexing_maps = [#[[COL]], #[[ID]], #[[SCALAR]], #[[ID]]]
// CHECK: arith.select
func.func @where(%c: tensor<2x1xi1>, %a: tensor<2x3xf32>, %b: tensor<f32>) -> tensor<2x3xf32> {
  %0 = telar.where %c, %a, %b : (tensor<2x1xi1>, tensor<2x3xf32>, tensor<f32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

// Casts: unsigned sources extend with zeros, floats truncate toward zero,
// anything to bool is `!= 0`.
// CHECK-LABEL: func.func @casts
// CHECK: arith.uitofp {{.*}} : i8 to f32
// CHECK: arith.fptosi {{.*}} : f32 to i32
// CHECK: arith.cmpf une
func.func @casts(%a: tensor<4xui8>, %b: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xi32>, tensor<4xi1>) {
  %0 = telar.cast %a {to = f32} : (tensor<4xui8>) -> tensor<4xf32>
  %1 = telar.cast %b {to = i32} : (tensor<4xf32>) -> tensor<4xi32>
  %2 = telar.cast %b {to = i1} : (tensor<4xf32>) -> tensor<4xi1>
  return %0, %1, %2 : tensor<4xf32>, tensor<4xi32>, tensor<4xi1>
}

// -----

// Shifts by the bit width or more give 0 instead of LLVM's poison.
// CHECK-LABEL: func.func @bit_shift
// CHECK: %[[W:.+]] = arith.constant 8 : i8
// CHECK: %[[FAR:.+]] = arith.cmpi uge, %{{.+}}, %[[W]]
// CHECK: %[[S:.+]] = arith.shrui
// CHECK: arith.select %[[FAR]], %{{.+}}, %[[S]]
func.func @bit_shift(%a: tensor<4xui8>, %b: tensor<4xui8>) -> tensor<4xui8> {
  %0 = telar.bit_shift %a, %b {left = false} : (tensor<4xui8>, tensor<4xui8>) -> tensor<4xui8>
  return %0 : tensor<4xui8>
}
