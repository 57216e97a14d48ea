// RUN: telar-opt %s --telar-add-runtime-context -split-input-file -verify-diagnostics | FileCheck %s

// Public definitions get the context first and an i32 status (0 at each
// return); private functions and declarations do not.
// CHECK-LABEL: func.func @main
// CHECK-SAME: (%{{.+}}: !llvm.ptr {telar.runtime_context}, %{{.+}}: memref<4xf32> {telar.name = "x"}) -> i32
// CHECK: %[[OK:.+]] = arith.constant 0 : i32
// CHECK: return %[[OK]] : i32
// CHECK: func.func private @helper(%{{.+}}: memref<4xf32>)
// CHECK: func.func private @decl(memref<4xf32>)
func.func @main(%x: memref<4xf32> {telar.name = "x"}) {
  return
}
func.func private @helper(%x: memref<4xf32>) {
  return
}
func.func private @decl(memref<4xf32>)

// -----

// A function that already has a context is left alone (the pass is
// idempotent).
// CHECK-LABEL: func.func @again
// CHECK-SAME: (%{{.+}}: !llvm.ptr {telar.runtime_context}) -> i32
// CHECK-NOT: !llvm.ptr
func.func @again(%ctx: !llvm.ptr {telar.runtime_context}) -> i32 {
  %0 = arith.constant 0 : i32
  return %0 : i32
}

// -----

// expected-error @below {{a function given the runtime context must not have results}}
func.func @results(%x: memref<4xf32>) -> f32 {
  %0 = arith.constant 0.0 : f32
  return %0 : f32
}

// -----

// expected-error @below {{a function given the runtime context must not be called inside the module}}
func.func @callee() {
  return
}
func.func private @caller() {
  call @callee() : () -> ()
  return
}
