// RUN: telar-opt %s -test-telar-live-set -split-input-file -verify-diagnostics

// A chain: each intermediate lives from its definition through its last
// use; the returned value is the caller's buffer and is not counted.
// expected-remark @below {{largest live set: 64 bytes}}
func.func @chain(%x: tensor<8xf32>) -> tensor<8xf32> {
  // expected-remark @below {{live: 32 bytes; defines: 32 bytes}}
  %a = telar.exp %x : (tensor<8xf32>) -> tensor<8xf32>
  // expected-remark @below {{live: 64 bytes (largest); defines: 32 bytes}}
  %b = telar.exp %a : (tensor<8xf32>) -> tensor<8xf32>
  // expected-remark @below {{live: 64 bytes; defines: 0 bytes}}
  %c = telar.add %a, %b : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
  return %c : tensor<8xf32>
}

// -----

// A tensor dies after its last use, so a later one can take its place:
// the largest set is two tensors, not the sum of all three.
// expected-remark @below {{largest live set: 128 bytes}}
func.func @reuse(%x: tensor<16xf32>) -> tensor<16xf32> {
  // expected-remark @below {{live: 64 bytes; defines: 64 bytes}}
  %a = telar.exp %x : (tensor<16xf32>) -> tensor<16xf32>
  // expected-remark @below {{live: 128 bytes (largest); defines: 64 bytes}}
  %b = telar.neg %a : (tensor<16xf32>) -> tensor<16xf32>
  // expected-remark @below {{live: 128 bytes; defines: 64 bytes}}
  %c = telar.neg %b : (tensor<16xf32>) -> tensor<16xf32>
  // expected-remark @below {{live: 64 bytes; defines: 0 bytes}}
  %d = telar.neg %c : (tensor<16xf32>) -> tensor<16xf32>
  return %d : tensor<16xf32>
}

// -----

// Views (reshape, squeeze, unsqueeze) add nothing, and a use of a view
// keeps the viewed tensor alive; constants are not intermediates.
// expected-remark @below {{largest live set: 48 bytes}}
func.func @views(%x: tensor<2x3xf32>) -> tensor<3x2xf32> {
  // expected-remark @below {{live: 0 bytes; defines: 0 bytes}}
  %k = telar.constant dense<1.0> : tensor<3x2xf32>
  // expected-remark @below {{live: 24 bytes; defines: 24 bytes}}
  %a = telar.exp %x : (tensor<2x3xf32>) -> tensor<2x3xf32>
  // expected-remark @below {{live: 24 bytes; defines: 0 bytes}}
  %v = telar.reshape %a {shape = array<i64: 3, 2>} : (tensor<2x3xf32>) -> tensor<3x2xf32>
  // expected-remark @below {{live: 48 bytes (largest); defines: 24 bytes}}
  %b = telar.add %v, %k : (tensor<3x2xf32>, tensor<3x2xf32>) -> tensor<3x2xf32>
  // expected-remark @below {{live: 24 bytes; defines: 0 bytes}}
  %c = telar.mul %b, %k : (tensor<3x2xf32>, tensor<3x2xf32>) -> tensor<3x2xf32>
  return %c : tensor<3x2xf32>
}

// -----

// Booleans take a byte per element.
// expected-remark @below {{largest live set: 10 bytes}}
func.func @bool(%x: tensor<10xi64>, %y: tensor<10xi64>) -> tensor<10xi64> {
  // expected-remark @below {{live: 10 bytes (largest); defines: 10 bytes}}
  %m = telar.less %x, %y : (tensor<10xi64>, tensor<10xi64>) -> tensor<10xi1>
  // expected-remark @below {{live: 10 bytes; defines: 0 bytes}}
  %r = telar.where %m, %x, %y : (tensor<10xi1>, tensor<10xi64>, tensor<10xi64>) -> tensor<10xi64>
  return %r : tensor<10xi64>
}
