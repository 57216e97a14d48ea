// RUN: telar-opt %s --telar-fuse-elementwise -split-input-file | FileCheck %s

#id = affine_map<(d0, d1) -> (d0, d1)>

// Two elementwise generics in a row become one.
// CHECK-LABEL: func.func @chain
// CHECK: linalg.generic
// CHECK: arith.addf
// CHECK: arith.mulf
// CHECK-NOT: linalg.generic
// CHECK: return
func.func @chain(%x: tensor<4x8xf32>, %y: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %e = tensor.empty() : tensor<4x8xf32>
  %0 = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]} ins(%x, %y : tensor<4x8xf32>, tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %s = arith.addf %a, %b : f32
    linalg.yield %s : f32
  } -> tensor<4x8xf32>
  %1 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%0 : tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%a: f32, %o: f32):
    %p = arith.mulf %a, %a : f32
    linalg.yield %p : f32
  } -> tensor<4x8xf32>
  return %1 : tensor<4x8xf32>
}

// -----

#id3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>

// A transpose that only an elementwise generic reads fuses into it (the
// generic reads the transposed input in place: attention's queries split
// into heads and scaled in one pass); one feeding a batch matmul stays a
// named op, and so does the matmul.
// CHECK: #[[PERM:.+]] = affine_map<(d0, d1, d2) -> (d1, d0, d2)>
// CHECK-LABEL: func.func @transposes
// CHECK-SAME: %[[Q:[^:]+]]: tensor<16x2x8xf32>, %[[K:[^:]+]]: tensor<16x2x8xf32>
// CHECK-NOT: linalg.transpose ins(%[[Q]]
// CHECK: %[[QS:.+]] = linalg.generic {indexing_maps = [#[[PERM]], #{{[a-z0-9_]+}}], {{.*}} ins(%[[Q]] : tensor<16x2x8xf32>)
// CHECK: arith.mulf
// CHECK: %[[KT:.+]] = linalg.transpose ins(%[[K]] : tensor<16x2x8xf32>) outs(%{{.+}} : tensor<2x8x16xf32>) permutation = [1, 2, 0]
// CHECK: linalg.batch_matmul ins(%[[QS]], %[[KT]] : tensor<2x16x8xf32>, tensor<2x8x16xf32>)
func.func @transposes(%q: tensor<16x2x8xf32>, %k: tensor<16x2x8xf32>) -> tensor<2x16x16xf32> {
  %eq = tensor.empty() : tensor<2x16x8xf32>
  %qt = linalg.transpose ins(%q : tensor<16x2x8xf32>) outs(%eq : tensor<2x16x8xf32>) permutation = [1, 0, 2]
  %half = arith.constant 0.5 : f32
  %qs = linalg.generic {indexing_maps = [#id3, #id3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%qt : tensor<2x16x8xf32>) outs(%eq : tensor<2x16x8xf32>) {
  ^bb0(%a: f32, %o: f32):
    %p = arith.mulf %a, %half : f32
    linalg.yield %p : f32
  } -> tensor<2x16x8xf32>
  %ek = tensor.empty() : tensor<2x8x16xf32>
  %kt = linalg.transpose ins(%k : tensor<16x2x8xf32>) outs(%ek : tensor<2x8x16xf32>) permutation = [1, 2, 0]
  %zero = arith.constant 0.0 : f32
  %es = tensor.empty() : tensor<2x16x16xf32>
  %init = linalg.fill ins(%zero : f32) outs(%es : tensor<2x16x16xf32>) -> tensor<2x16x16xf32>
  %s = linalg.batch_matmul ins(%qs, %kt : tensor<2x16x8xf32>, tensor<2x8x16xf32>) outs(%init : tensor<2x16x16xf32>) -> tensor<2x16x16xf32>
  return %s : tensor<2x16x16xf32>
}
