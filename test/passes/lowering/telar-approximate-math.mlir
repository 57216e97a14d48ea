// RUN: telar-opt %s --telar-approximate-math -split-input-file | FileCheck %s
// RUN: telar-opt %s --telar-approximate-math=ops=exp -split-input-file | FileCheck %s --check-prefix=EXP

// erf, exp and tanh become arith polynomials (no libm call left); others stay.
// CHECK-LABEL: func.func @approximated
// CHECK-NOT: math.erf
// CHECK-NOT: math.exp
// CHECK-NOT: math.tanh
// CHECK: math.sqrt
// EXP-LABEL: func.func @approximated
// EXP: math.erf
// EXP-NOT: math.exp
// EXP: math.tanh
func.func @approximated(%x: f32) -> (f32, f32, f32, f32) {
  %0 = math.erf %x : f32
  %1 = math.exp %x : f32
  %2 = math.tanh %x : f32
  %3 = math.sqrt %x : f32
  return %0, %1, %2, %3 : f32, f32, f32, f32
}
