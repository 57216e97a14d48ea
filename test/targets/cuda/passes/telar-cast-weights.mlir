// RUN: telar-opt %s -split-input-file -pass-pipeline='builtin.module(func.func(telar-cast-weights))' | FileCheck %s

// An f32 matrix weight becomes bfloat16, read through a cast back to f32;
// its blob is rounded to nearest even: 1.0 stays (0x3F80), 1.00390625 (a
// tie) goes to the even 1.0, 1.0058594 (above the half) up to 0x3F81, -inf
// stays; the alignment is 2 now. Inputs, vectors (a bias) and non-float
// weights keep their types. @blob only makes the blob printed.
// CHECK-LABEL: func.func @main
// CHECK-SAME:    (%[[X:.*]]: tensor<2x2xf32> {telar.name = "x"}, %[[W:.*]]: tensor<2x2xbf16> {telar.weight = "w"}, %[[B:.*]]: tensor<2xf32> {telar.weight = "b"}, %[[I:.*]]: tensor<4xi64> {telar.weight = "i"}) -> tensor<2x2xf32>
// CHECK-NEXT:  %[[WIDE:.*]] = telar.cast %[[W]] {to = f32} : (tensor<2x2xbf16>) -> tensor<2x2xf32>
// CHECK-NEXT:  %[[S:.*]] = telar.add %[[X]], %[[WIDE]]
// CHECK-NEXT:  telar.add %[[S]], %[[B]]
// CHECK:       w: "0x02000000803F803F813F80FF"
func.func @main(%x: tensor<2x2xf32> {telar.name = "x"}, %w: tensor<2x2xf32> {telar.weight = "w"}, %b: tensor<2xf32> {telar.weight = "b"}, %i: tensor<4xi64> {telar.weight = "i"}) -> tensor<2x2xf32> {
  %0 = telar.add %x, %w : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>
  %1 = telar.add %0, %b : (tensor<2x2xf32>, tensor<2xf32>) -> tensor<2x2xf32>
  return %1 : tensor<2x2xf32>
}
func.func @blob() -> tensor<8xi8> {
  %0 = arith.constant dense_resource<w> : tensor<8xi8>
  return %0 : tensor<8xi8>
}
{-#
  dialect_resources: {
    builtin: {
      w: "0x040000000000803F0080803F00C0803F000080FF"
    }
  }
#-}

// -----

// A weight without its blob (elided IR) changes its type alone.
// CHECK-LABEL: func.func @elided
// CHECK-SAME:    tensor<2x3xbf16> {telar.weight = "missing"}
// CHECK-NEXT:  telar.cast %{{.*}} {to = f32} : (tensor<2x3xbf16>) -> tensor<2x3xf32>
func.func @elided(%w: tensor<2x3xf32> {telar.weight = "missing"}) -> tensor<2x3xf32> {
  %0 = telar.relu %w : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}
