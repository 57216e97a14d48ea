// RUN: telar-opt %s --telar-lower-to-linalg -split-input-file -verify-diagnostics | FileCheck %s

// CHECK-DAG: #[[ID:.+]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG: #[[ROW:.+]] = affine_map<(d0, d1) -> (d1)>
// CHECK-LABEL: func.func @broadcast_add
// CHECK: linalg.generic {indexing_maps = [#[[ID]], #[[ROW]], #[[ID]]]
// CHECK: arith.addf
func.func @broadcast_add(%a: tensor<2x3xf32>, %b: tensor<3xf32>) -> tensor<2x3xf32> {
  %0 = telar.add %a, %b : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

// Unsigned tensors become signless; the division stays unsigned.
// CHECK-LABEL: func.func @unsigned_div(%{{.*}}: tensor<4xi8>, %{{.*}}: tensor<4xi8>) -> tensor<4xi8>
// CHECK: arith.divui
func.func @unsigned_div(%a: tensor<4xui8>, %b: tensor<4xui8>) -> tensor<4xui8> {
  %0 = telar.div %a, %b : (tensor<4xui8>, tensor<4xui8>) -> tensor<4xui8>
  return %0 : tensor<4xui8>
}

// -----

// CHECK-LABEL: func.func @constants
// CHECK: arith.constant dense<[1, 2]> : tensor<2xi8>
func.func @constants() -> tensor<2xui8> {
  %0 = telar.constant dense<[1, 2]> : tensor<2xui8>
  return %0 : tensor<2xui8>
}

// -----

func.func @dynamic(%a: tensor<?xf32>) -> tensor<?xf32> {
  // expected-error @+1 {{'telar.exp' has dynamic shapes; code generation needs static shapes (give them with --input-shape)}}
  %0 = telar.exp %a : (tensor<?xf32>) -> tensor<?xf32>
  return %0 : tensor<?xf32>
}


