// RUN: telar-opt %s --telar-add-runtime-context -split-input-file -verify-diagnostics | FileCheck %s

// Public definitions get the context first and an i32 status (0 at each
// return), marked telar.runtime_status; private functions and declarations
// do not.
// CHECK-LABEL: func.func @main
// CHECK-SAME: (%{{.+}}: !llvm.ptr {telar.runtime_context}, %{{.+}}: memref<4xf32> {telar.name = "x"}) -> i32
// CHECK-SAME: attributes {telar.runtime_status}
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

// -----

// A declaration whose argument is marked telar.runtime_context (a runtime
// call made before the context existed, as telar-lower-collectives makes
// them) gets the caller's context there.
// CHECK-LABEL: func.func @collective
// CHECK-SAME: (%[[CTX:.+]]: !llvm.ptr {telar.runtime_context}
// CHECK: call @telarrt_all_reduce(%[[CTX]],
func.func @collective(%p: !llvm.ptr) {
  %null = llvm.mlir.zero : !llvm.ptr
  %c0 = arith.constant 0 : i64
  %s = func.call @telarrt_all_reduce(%null, %c0, %c0, %c0, %p, %p, %c0) : (!llvm.ptr, i64, i64, i64, !llvm.ptr, !llvm.ptr, i64) -> i32
  return
}
func.func private @telarrt_all_reduce(!llvm.ptr {telar.runtime_context}, i64, i64, i64, !llvm.ptr, !llvm.ptr, i64) -> i32 attributes {telar.runtime_status}

// -----

func.func private @telarrt_all_reduce(!llvm.ptr {telar.runtime_context}, i64, i64, i64, !llvm.ptr, !llvm.ptr, i64) -> i32 attributes {telar.runtime_status}
func.func private @helper(%p: !llvm.ptr) {
  %null = llvm.mlir.zero : !llvm.ptr
  %c0 = arith.constant 0 : i64
  // expected-error @below {{calls 'telarrt_all_reduce', which takes the runtime context, in a function without one (only public functions get a context)}}
  %s = func.call @telarrt_all_reduce(%null, %c0, %c0, %c0, %p, %p, %c0) : (!llvm.ptr, i64, i64, i64, !llvm.ptr, !llvm.ptr, i64) -> i32
  return
}
