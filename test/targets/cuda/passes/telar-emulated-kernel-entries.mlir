// RUN: telar-opt %s -split-input-file -verify-diagnostics -telar-emulated-kernel-entries | FileCheck %s

// A launcher (after the CPU lowering with bare-pointer buffers) gets an
// exported entry point reading each argument from its 64-bit slot as its
// own type; the launcher and the threads' function become internal.
// CHECK:       llvm.func internal @__telar_emulated_k_f(
// CHECK:       llvm.func internal @__telar_launch_k_f(
// CHECK-LABEL: llvm.func @telar_emulated_k_f
// CHECK-SAME:    (%[[S:.*]]: !llvm.ptr, %[[GX:.*]]: i64, %[[GY:.*]]: i64, %[[GZ:.*]]: i64, %[[BX:.*]]: i64, %[[BY:.*]]: i64, %[[BZ:.*]]: i64)
// CHECK:         %[[A0:.*]] = llvm.getelementptr %[[S]][0] : (!llvm.ptr) -> !llvm.ptr, i64
// CHECK:         %[[P:.*]] = llvm.load %[[A0]] : !llvm.ptr -> !llvm.ptr
// CHECK:         %[[A1:.*]] = llvm.getelementptr %[[S]][1] : (!llvm.ptr) -> !llvm.ptr, i64
// CHECK:         %[[F:.*]] = llvm.load %[[A1]] : !llvm.ptr -> f32
// CHECK:         %[[A2:.*]] = llvm.getelementptr %[[S]][2] : (!llvm.ptr) -> !llvm.ptr, i64
// CHECK:         %[[N:.*]] = llvm.load %[[A2]] : !llvm.ptr -> i64
// CHECK:         llvm.call @__telar_launch_k_f(%[[GX]], %[[GY]], %[[GZ]], %[[BX]], %[[BY]], %[[BZ]], %[[P]], %[[F]], %[[N]])
// CHECK:         llvm.return
module {
  llvm.func @__telar_emulated_k_f(%p: !llvm.ptr) {
    llvm.return
  }
  llvm.func @__telar_launch_k_f(%gx: i64, %gy: i64, %gz: i64, %bx: i64, %by: i64, %bz: i64, %p: !llvm.ptr, %f: f32, %n: i64) {
    llvm.call @__telar_emulated_k_f(%p) : (!llvm.ptr) -> ()
    llvm.return
  }
}

// -----

module {
  // expected-error @+1 {{a launcher takes the grid and block sizes (six i64) first}}
  llvm.func @__telar_launch_k_g(%gx: i64, %p: !llvm.ptr) {
    llvm.return
  }
}
