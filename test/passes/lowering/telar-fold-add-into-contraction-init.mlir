// RUN: telar-opt %s --telar-fold-add-into-contraction-init -split-input-file | FileCheck %s

// A linear layer as the lowering makes it: the matmul into a zero fill,
// reshaped back to [S, B, N], then the bias added over the last dimension.
// The bias becomes the matmul's init (broadcast, reshaped to the matmul's
// shape); the add and the fill are gone.
// CHECK-DAG: #[[BIAS:.+]] = affine_map<(d0, d1, d2) -> (d2)>
// CHECK-DAG: #[[ID:.+]] = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
// CHECK-LABEL: func.func @linear
// CHECK-SAME: (%[[X:.+]]: tensor<32x64xf32>, %[[W:.+]]: tensor<64x192xf32>, %[[B:.+]]: tensor<192xf32>)
// CHECK-NOT: linalg.fill
// CHECK: %[[BC:.+]] = linalg.generic {indexing_maps = [#[[BIAS]], #[[ID]]], iterator_types = ["parallel", "parallel", "parallel"]} ins(%[[B]] : tensor<192xf32>) outs(%{{.+}} : tensor<16x2x192xf32>)
// CHECK-NEXT: ^bb0(%[[IN:.+]]: f32, %{{.+}}: f32):
// CHECK-NEXT: linalg.yield %[[IN]] : f32
// CHECK: %[[INIT:.+]] = tensor.collapse_shape %[[BC]] {{\[}}[0, 1], [2]] : tensor<16x2x192xf32> into tensor<32x192xf32>
// CHECK: %[[MM:.+]] = linalg.matmul ins(%[[X]], %[[W]] : tensor<32x64xf32>, tensor<64x192xf32>) outs(%[[INIT]] : tensor<32x192xf32>)
// CHECK: %[[R:.+]] = tensor.expand_shape %[[MM]] {{\[}}[0, 1], [2]] output_shape [16, 2, 192]
// CHECK-NOT: arith.addf
// CHECK: return %[[R]]
#id = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#bias = affine_map<(d0, d1, d2) -> (d2)>
func.func @linear(%x: tensor<32x64xf32>, %w: tensor<64x192xf32>, %b: tensor<192xf32>) -> tensor<16x2x192xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<32x192xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<32x192xf32>) -> tensor<32x192xf32>
  %mm = linalg.matmul ins(%x, %w : tensor<32x64xf32>, tensor<64x192xf32>) outs(%init : tensor<32x192xf32>) -> tensor<32x192xf32>
  %r = tensor.expand_shape %mm [[0, 1], [2]] output_shape [16, 2, 192] : tensor<32x192xf32> into tensor<16x2x192xf32>
  %e2 = tensor.empty() : tensor<16x2x192xf32>
  %add = linalg.generic {indexing_maps = [#id, #bias, #id], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%r, %b : tensor<16x2x192xf32>, tensor<192xf32>) outs(%e2 : tensor<16x2x192xf32>) {
  ^bb0(%in: f32, %in_1: f32, %out: f32):
    %s = arith.addf %in, %in_1 : f32
    linalg.yield %s : f32
  } -> tensor<16x2x192xf32>
  return %add : tensor<16x2x192xf32>
}

// -----

// A residual (same shape, identity map) on the left of the add, into a
// batch matmul: the residual itself is the init. The fill, shared with
// another batch matmul, stays for that one.
// CHECK-LABEL: func.func @residual
// CHECK-SAME: (%[[A:.+]]: tensor<4x8x16xf32>, %[[B:.+]]: tensor<4x16x8xf32>, %[[RES:.+]]: tensor<4x8x8xf32>)
// CHECK: %[[FILL:.+]] = linalg.fill
// CHECK: %[[OTHER:.+]] = linalg.batch_matmul ins(%[[A]], %[[B]] : {{.*}}) outs(%[[FILL]] : tensor<4x8x8xf32>)
// CHECK: %[[BMM:.+]] = linalg.batch_matmul ins(%[[A]], %[[B]] : {{.*}}) outs(%[[RES]] : tensor<4x8x8xf32>)
// CHECK-NOT: linalg.generic
// CHECK: return %[[BMM]], %[[OTHER]]
#id = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
func.func @residual(%a: tensor<4x8x16xf32>, %b: tensor<4x16x8xf32>, %res: tensor<4x8x8xf32>) -> (tensor<4x8x8xf32>, tensor<4x8x8xf32>) {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x8x8xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<4x8x8xf32>) -> tensor<4x8x8xf32>
  %bmm = linalg.batch_matmul ins(%a, %b : tensor<4x8x16xf32>, tensor<4x16x8xf32>) outs(%init : tensor<4x8x8xf32>) -> tensor<4x8x8xf32>
  %other = linalg.batch_matmul ins(%a, %b : tensor<4x8x16xf32>, tensor<4x16x8xf32>) outs(%init : tensor<4x8x8xf32>) -> tensor<4x8x8xf32>
  %add = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%res, %bmm : tensor<4x8x8xf32>, tensor<4x8x8xf32>) outs(%e : tensor<4x8x8xf32>) {
  ^bb0(%in: f32, %in_1: f32, %out: f32):
    %s = arith.addf %in, %in_1 : f32
    linalg.yield %s : f32
  } -> tensor<4x8x8xf32>
  return %add, %other : tensor<4x8x8xf32>, tensor<4x8x8xf32>
}

// -----

// A convolution with a zero init and a per-channel add.
// CHECK-LABEL: func.func @conv
// CHECK: %[[BC:.+]] = linalg.generic {{.*}} ins(%{{.+}} : tensor<16xf32>) outs(%{{.+}} : tensor<1x16x6x6xf32>)
// CHECK: %[[C:.+]] = linalg.conv_2d_nchw_fchw {{.*}} outs(%[[BC]] : tensor<1x16x6x6xf32>)
// CHECK: return %[[C]]
#id4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#ch = affine_map<(d0, d1, d2, d3) -> (d1)>
func.func @conv(%x: tensor<1x8x8x8xf32>, %w: tensor<16x8x3x3xf32>, %bias: tensor<16xf32>) -> tensor<1x16x6x6xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x16x6x6xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<1x16x6x6xf32>) -> tensor<1x16x6x6xf32>
  %c = linalg.conv_2d_nchw_fchw {strides = dense<1> : tensor<2xi64>, dilations = dense<1> : tensor<2xi64>}
      ins(%x, %w : tensor<1x8x8x8xf32>, tensor<16x8x3x3xf32>) outs(%init : tensor<1x16x6x6xf32>) -> tensor<1x16x6x6xf32>
  %add = linalg.generic {indexing_maps = [#id4, #ch, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%c, %bias : tensor<1x16x6x6xf32>, tensor<16xf32>) outs(%e : tensor<1x16x6x6xf32>) {
  ^bb0(%in: f32, %in_1: f32, %out: f32):
    %s = arith.addf %in, %in_1 : f32
    linalg.yield %s : f32
  } -> tensor<1x16x6x6xf32>
  return %add : tensor<1x16x6x6xf32>
}

// -----

// No fold: the matmul's result has another user (the add would reach it);
// the reshape has another user; the init is not zero; the init is not a
// fill; the op is a subtraction; something else (here a scaling, as an
// all-reduce of partial sums would be) sits between the matmul and the add.
// CHECK-LABEL: func.func @negative
// CHECK-SAME: %[[INIT1:[^:]+]]: tensor<8x8xf32>)
// CHECK: %[[Z:.+]] = linalg.fill ins(%cst :
// CHECK: %[[O:.+]] = linalg.fill ins(%cst_0 :
// CHECK: linalg.matmul {{.*}} outs(%[[Z]] :
// CHECK: arith.addf
// CHECK: linalg.matmul {{.*}} outs(%[[Z]] :
// CHECK: arith.addf
// CHECK: linalg.matmul {{.*}} outs(%[[O]] :
// CHECK: arith.addf
// CHECK: linalg.matmul {{.*}} outs(%[[INIT1]] :
// CHECK: arith.addf
// CHECK: linalg.matmul {{.*}} outs(%[[Z]] :
// CHECK: arith.subf
// CHECK: linalg.matmul {{.*}} outs(%[[Z]] :
// CHECK: arith.mulf
// CHECK: arith.addf
// CHECK: return
#id2 = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d1)>
func.func @negative(%a: tensor<8x8xf32>, %b: tensor<8x8xf32>, %bias: tensor<8xf32>, %init1: tensor<8x8xf32>)
    -> (tensor<8x8xf32>, tensor<8x8xf32>, tensor<2x4x8xf32>, tensor<4x16xf32>, tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>) {
  %zero = arith.constant 0.0 : f32
  %one = arith.constant 1.0 : f32
  %e = tensor.empty() : tensor<8x8xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<8x8xf32>) -> tensor<8x8xf32>
  %o = linalg.fill ins(%one : f32) outs(%e : tensor<8x8xf32>) -> tensor<8x8xf32>
  // Another user.
  %m1 = linalg.matmul ins(%a, %b : tensor<8x8xf32>, tensor<8x8xf32>) outs(%z : tensor<8x8xf32>) -> tensor<8x8xf32>
  %r1 = linalg.generic {indexing_maps = [#id2, #row, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%m1, %bias : tensor<8x8xf32>, tensor<8xf32>) outs(%e : tensor<8x8xf32>) {
  ^bb0(%in: f32, %in_1: f32, %out: f32):
    %s = arith.addf %in, %in_1 : f32
    linalg.yield %s : f32
  } -> tensor<8x8xf32>
  // The reshape has another user.
  %m2 = linalg.matmul ins(%a, %b : tensor<8x8xf32>, tensor<8x8xf32>) outs(%z : tensor<8x8xf32>) -> tensor<8x8xf32>
  %x2 = tensor.expand_shape %m2 [[0, 1], [2]] output_shape [2, 4, 8] : tensor<8x8xf32> into tensor<2x4x8xf32>
  %y2 = tensor.collapse_shape %x2 [[0], [1, 2]] : tensor<2x4x8xf32> into tensor<2x32xf32>
  %e2 = tensor.empty() : tensor<2x32xf32>
  %r2 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%y2, %y2 : tensor<2x32xf32>, tensor<2x32xf32>) outs(%e2 : tensor<2x32xf32>) {
  ^bb0(%in: f32, %in_1: f32, %out: f32):
    %s = arith.addf %in, %in_1 : f32
    linalg.yield %s : f32
  } -> tensor<2x32xf32>
  %r2b = tensor.expand_shape %r2 [[0], [1, 2]] output_shape [2, 2, 16] : tensor<2x32xf32> into tensor<2x2x16xf32>
  %r2c = tensor.collapse_shape %r2b [[0, 1], [2]] : tensor<2x2x16xf32> into tensor<4x16xf32>
  // The init is one.
  %m3 = linalg.matmul ins(%a, %b : tensor<8x8xf32>, tensor<8x8xf32>) outs(%o : tensor<8x8xf32>) -> tensor<8x8xf32>
  %r3 = linalg.generic {indexing_maps = [#id2, #row, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%m3, %bias : tensor<8x8xf32>, tensor<8xf32>) outs(%e : tensor<8x8xf32>) {
  ^bb0(%in: f32, %in_1: f32, %out: f32):
    %s = arith.addf %in, %in_1 : f32
    linalg.yield %s : f32
  } -> tensor<8x8xf32>
  // The init is not a fill.
  %m4 = linalg.matmul ins(%a, %b : tensor<8x8xf32>, tensor<8x8xf32>) outs(%init1 : tensor<8x8xf32>) -> tensor<8x8xf32>
  %r4 = linalg.generic {indexing_maps = [#id2, #row, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%m4, %bias : tensor<8x8xf32>, tensor<8xf32>) outs(%e : tensor<8x8xf32>) {
  ^bb0(%in: f32, %in_1: f32, %out: f32):
    %s = arith.addf %in, %in_1 : f32
    linalg.yield %s : f32
  } -> tensor<8x8xf32>
  // A subtraction.
  %m5 = linalg.matmul ins(%a, %b : tensor<8x8xf32>, tensor<8x8xf32>) outs(%z : tensor<8x8xf32>) -> tensor<8x8xf32>
  %r5 = linalg.generic {indexing_maps = [#id2, #row, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%m5, %bias : tensor<8x8xf32>, tensor<8xf32>) outs(%e : tensor<8x8xf32>) {
  ^bb0(%in: f32, %in_1: f32, %out: f32):
    %s = arith.subf %in, %in_1 : f32
    linalg.yield %s : f32
  } -> tensor<8x8xf32>
  // Something in between.
  %m6 = linalg.matmul ins(%a, %b : tensor<8x8xf32>, tensor<8x8xf32>) outs(%z : tensor<8x8xf32>) -> tensor<8x8xf32>
  %s6 = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%m6 : tensor<8x8xf32>) outs(%e : tensor<8x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %s = arith.mulf %in, %one : f32
    linalg.yield %s : f32
  } -> tensor<8x8xf32>
  %r6 = linalg.generic {indexing_maps = [#id2, #row, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%s6, %bias : tensor<8x8xf32>, tensor<8xf32>) outs(%e : tensor<8x8xf32>) {
  ^bb0(%in: f32, %in_1: f32, %out: f32):
    %s = arith.addf %in, %in_1 : f32
    linalg.yield %s : f32
  } -> tensor<8x8xf32>
  return %m1, %r1, %x2, %r2c, %r3, %r4, %r5, %r6 : tensor<8x8xf32>, tensor<8x8xf32>, tensor<2x4x8xf32>, tensor<4x16xf32>, tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>
}
