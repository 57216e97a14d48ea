// RUN: telar-opt %s --pass-pipeline='builtin.module(func.func(telar-linalg-to-loops{min-parallel-work=64}))' -split-input-file | FileCheck %s

// 16x8 = 128 points of 5 (3 operands, a multiply, an add): a parallel loop over the rows; the columns (innermost,
// to be vectorised) and the reduction stay serial.
// CHECK-LABEL: func.func @large
// CHECK: scf.parallel (%{{[^,]*}}) =
// CHECK: scf.for
// CHECK: scf.for
// CHECK-NOT: linalg.
func.func @large(%a: memref<16x4xf32>, %b: memref<4x8xf32>, %c: memref<16x8xf32>) {
  linalg.matmul ins(%a, %b : memref<16x4xf32>, memref<4x8xf32>) outs(%c : memref<16x8xf32>)
  return
}

// -----

// 8x32x64: the two leading dimensions (256 points >= 64) run in parallel.
// CHECK-LABEL: func.func @three_d
// CHECK: scf.parallel (%{{.*}}, %{{.*}}) =
// CHECK-NEXT: scf.for
// CHECK-NOT: scf.for
func.func @three_d(%a: memref<8x32x64xf32>, %b: memref<8x32x64xf32>) {
  linalg.copy ins(%a : memref<8x32x64xf32>) outs(%b : memref<8x32x64xf32>)
  return
}

// -----

// 4x4 = 16 points of a copy (2 per point: 32 < 64): sequential loops.
// CHECK-LABEL: func.func @small
// CHECK-NOT: scf.parallel
// CHECK: scf.for
// CHECK: scf.for
func.func @small(%a: memref<4x4xf32>, %b: memref<4x4xf32>) {
  linalg.copy ins(%a : memref<4x4xf32>) outs(%b : memref<4x4xf32>)
  return
}

// -----

// The same 16 points with an exp in the body: 16 x (2 operands + 16) = 288
// >= 64, worth threads.
// CHECK-LABEL: func.func @small_but_costly
// CHECK: scf.parallel
// CHECK: math.exp
func.func @small_but_costly(%a: memref<4x4xf32>, %b: memref<4x4xf32>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>],
                  iterator_types = ["parallel", "parallel"]}
      ins(%a : memref<4x4xf32>) outs(%b : memref<4x4xf32>) {
  ^bb0(%x: f32, %y: f32):
    %e = math.exp %x : f32
    linalg.yield %e : f32
  }
  return
}

// -----

// memref.copy of strided views becomes loops, not a memrefCopy call.
// CHECK-LABEL: func.func @copy
// CHECK-NOT: memref.copy
// CHECK: scf.for
// CHECK: memref.load
// CHECK: memref.store
func.func @copy(%a: memref<4x8xf32>, %b: memref<4x4xf32>) {
  %v = memref.subview %a[0, 2] [4, 4] [1, 1] : memref<4x8xf32> to memref<4x4xf32, strided<[8, 1], offset: 2>>
  memref.copy %v, %b : memref<4x4xf32, strided<[8, 1], offset: 2>> to memref<4x4xf32>
  return
}

// -----

// A pool: the output's column loop moves inside the window loops, so the
// innermost loop writes the output contiguously; only the outermost loops
// are parallel.
// CHECK-LABEL: func.func @max_pool
// CHECK: scf.parallel (%{{.*}}, %{{.*}}) =
// CHECK: scf.for %[[OH:.*]] =
// CHECK: scf.for %[[KH:.*]] =
// CHECK: scf.for %[[KW:.*]] =
// CHECK: scf.for %[[OW:.*]] =
// CHECK: memref.load
// CHECK: arith.maximumf
// CHECK-NOT: scf.parallel
func.func @max_pool(%in: memref<1x64x18x18xf32>, %out: memref<1x64x8x8xf32>) {
  %w = memref.alloc() : memref<3x3xf32>
  linalg.pooling_nchw_max {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>}
    ins(%in, %w : memref<1x64x18x18xf32>, memref<3x3xf32>) outs(%out : memref<1x64x8x8xf32>)
  memref.dealloc %w : memref<3x3xf32>
  return
}
