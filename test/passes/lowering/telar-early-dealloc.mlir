// RUN: telar-opt %s --pass-pipeline='builtin.module(func.func(telar-early-dealloc))' -split-input-file | FileCheck %s

// Each buffer is freed after its last use, through views, not at the end.
// CHECK-LABEL: func.func @chain
// CHECK: %[[A:.*]] = memref.alloc
// CHECK: linalg.fill {{.*}} outs(%[[A]]
// CHECK: %[[B:.*]] = memref.alloc
// CHECK: %[[V:.*]] = memref.collapse_shape %[[A]]
// CHECK: linalg.copy ins(%[[V]] {{.*}} outs(%[[B]]
// CHECK-NEXT: memref.dealloc %[[A]]
// CHECK: linalg.copy ins(%[[B]]
// CHECK-NEXT: memref.dealloc %[[B]]
// CHECK: return
func.func @chain(%out: memref<16xf32>) {
  %cst = arith.constant 1.0 : f32
  %a = memref.alloc() : memref<4x4xf32>
  linalg.fill ins(%cst : f32) outs(%a : memref<4x4xf32>)
  %b = memref.alloc() : memref<16xf32>
  %v = memref.collapse_shape %a [[0, 1]] : memref<4x4xf32> into memref<16xf32>
  linalg.copy ins(%v : memref<16xf32>) outs(%b : memref<16xf32>)
  %c = memref.alloc() : memref<16xf32>
  linalg.fill ins(%cst : f32) outs(%c : memref<16xf32>)
  linalg.copy ins(%b : memref<16xf32>) outs(%out : memref<16xf32>)
  memref.dealloc %a : memref<4x4xf32>
  memref.dealloc %b : memref<16xf32>
  memref.dealloc %c : memref<16xf32>
  return
}

// -----

// A buffer used inside a loop is freed after the loop.
// CHECK-LABEL: func.func @loop
// CHECK: scf.for
// CHECK: }
// CHECK-NEXT: memref.dealloc
func.func @loop(%out: memref<4xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %a = memref.alloc() : memref<4xf32>
  scf.for %i = %c0 to %c4 step %c1 {
    %x = memref.load %a[%i] : memref<4xf32>
    memref.store %x, %out[%i] : memref<4xf32>
  }
  %cst = arith.constant 1.0 : f32
  linalg.fill ins(%cst : f32) outs(%out : memref<4xf32>)
  memref.dealloc %a : memref<4xf32>
  return
}

// -----

// A pointer taken from a buffer (a runtime call's argument, as
// telar-lower-collectives passes them) keeps the buffer alive until the
// last use of anything computed from it.
// CHECK-LABEL: func.func @pointer
// CHECK: %[[A:.*]] = memref.alloc
// CHECK: call @consume
// CHECK-NEXT: memref.dealloc %[[A]]
func.func private @consume(!llvm.ptr) -> i32
func.func @pointer(%out: memref<4xf32>) {
  %a = memref.alloc() : memref<4xf32>
  %cst = arith.constant 1.0 : f32
  linalg.fill ins(%cst : f32) outs(%a : memref<4xf32>)
  %i = memref.extract_aligned_pointer_as_index %a : memref<4xf32> -> index
  %l = arith.index_cast %i : index to i64
  %p = llvm.inttoptr %l : i64 to !llvm.ptr
  %s = func.call @consume(%p) : (!llvm.ptr) -> i32
  memref.copy %out, %out : memref<4xf32> to memref<4xf32>
  memref.dealloc %a : memref<4xf32>
  return
}
