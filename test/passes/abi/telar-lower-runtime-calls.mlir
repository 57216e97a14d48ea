// RUN: telar-opt %s --telar-lower-runtime-calls -split-input-file -verify-diagnostics | FileCheck %s

// On the LLVM dialect: allocation through the context, checked; a null
// block returns TELAR_STATUS_OUT_OF_MEMORY (1), a kernel's non-zero status
// is returned as it is; free takes the context and is not checked.
// CHECK-LABEL: llvm.func @program
// The marker is gone afterwards (LLVM IR translation does not know it).
// CHECK-SAME: (%[[CTX:[^:]+]]: !llvm.ptr, %[[N:.+]]: i64) -> i32
// CHECK: %[[P:.+]] = llvm.call @telarrt_alloc(%[[CTX]], %[[N]]) : (!llvm.ptr, i64) -> !llvm.ptr
// CHECK: %[[NULL:.+]] = llvm.mlir.zero : !llvm.ptr
// CHECK: %[[ISNULL:.+]] = llvm.icmp "eq" %[[P]], %[[NULL]] : !llvm.ptr
// CHECK: %[[OOM:.+]] = llvm.mlir.constant(1 : i32) : i32
// CHECK: llvm.cond_br %[[ISNULL]] weights([1, 2000]), ^[[FAIL:.+]](%[[OOM]] : i32), ^[[A:.+]]
// CHECK: ^[[A]]:
// CHECK: %[[Q:.+]] = llvm.call @telarrt_aligned_alloc(%[[CTX]], %{{.+}}, %[[N]]) : (!llvm.ptr, i64, i64) -> !llvm.ptr
// CHECK: llvm.cond_br %{{.+}} weights([1, 2000]), ^[[FAIL]](%{{.+}} : i32), ^[[B:.+]]
// CHECK: ^[[B]]:
// CHECK: %[[S:.+]] = llvm.call @telarrt_matmul_f32_unpacked(%[[CTX]], %[[P]])
// CHECK: %[[ZERO:.+]] = llvm.mlir.constant(0 : i32) : i32
// CHECK: %[[BAD:.+]] = llvm.icmp "ne" %[[S]], %[[ZERO]] : i32
// CHECK: llvm.cond_br %[[BAD]] weights([1, 2000]), ^[[FAIL]](%[[S]] : i32), ^[[C:.+]]
// CHECK: ^[[C]]:
// CHECK: llvm.call @telarrt_free(%[[CTX]], %[[Q]]) : (!llvm.ptr, !llvm.ptr) -> ()
// CHECK: llvm.call @telarrt_free(%[[CTX]], %[[P]])
// CHECK-NEXT: %[[OK:.+]] = llvm.mlir.constant(0 : i32) : i32
// CHECK-NEXT: llvm.return %[[OK]] : i32
// CHECK: ^[[FAIL]](%[[CODE:.+]]: i32):
// CHECK-NEXT: llvm.return %[[CODE]] : i32
// The kernel's C interface is the runtime's telarrt_matmul_f32; the
// generic allocation functions are gone.
// CHECK: llvm.func private @telarrt_matmul_f32_unpacked(%[[UCTX:.+]]: !llvm.ptr, %[[UA:.+]]: !llvm.ptr) -> i32
// CHECK: llvm.call @telarrt_matmul_f32(%[[UCTX]], %[[UA]]) : (!llvm.ptr, !llvm.ptr) -> i32
// CHECK: llvm.func @telarrt_matmul_f32(!llvm.ptr, !llvm.ptr) -> i32
// CHECK-NOT: _mlir_
llvm.func @_mlir_memref_to_llvm_alloc(i64) -> !llvm.ptr
llvm.func @_mlir_memref_to_llvm_aligned_alloc(i64, i64) -> !llvm.ptr
llvm.func @_mlir_memref_to_llvm_free(!llvm.ptr)
llvm.func @program(%ctx: !llvm.ptr {telar.runtime_context}, %n: i64) -> i32 {
  %p = llvm.call @_mlir_memref_to_llvm_alloc(%n) : (i64) -> !llvm.ptr
  %a = llvm.mlir.constant(128 : i64) : i64
  %q = llvm.call @_mlir_memref_to_llvm_aligned_alloc(%a, %n) : (i64, i64) -> !llvm.ptr
  %s = llvm.call @telarrt_matmul_f32(%ctx, %p) : (!llvm.ptr, !llvm.ptr) -> i32
  llvm.call @_mlir_memref_to_llvm_free(%q) : (!llvm.ptr) -> ()
  llvm.call @_mlir_memref_to_llvm_free(%p) : (!llvm.ptr) -> ()
  %ok = llvm.mlir.constant(0 : i32) : i32
  llvm.return %ok : i32
}
llvm.func private @telarrt_matmul_f32(%ctx: !llvm.ptr, %a: !llvm.ptr) -> i32 attributes {llvm.emit_c_interface, telar.runtime_status} {
  %s = llvm.call @_mlir_ciface_telarrt_matmul_f32(%ctx, %a) : (!llvm.ptr, !llvm.ptr) -> i32
  llvm.return %s : i32
}
llvm.func @_mlir_ciface_telarrt_matmul_f32(!llvm.ptr, !llvm.ptr) -> i32 attributes {llvm.emit_c_interface, telar.runtime_status}

// -----

// Inside an OpenMP parallel region a failed call could not return: refused.
llvm.func @_mlir_memref_to_llvm_alloc(i64) -> !llvm.ptr
llvm.func @nested(%ctx: !llvm.ptr {telar.runtime_context}, %n: i64) -> i32 {
  omp.parallel {
    // expected-error @below {{a fallible runtime call inside a nested region (e.g. an OpenMP parallel region) cannot return its status}}
    %p = llvm.call @_mlir_memref_to_llvm_alloc(%n) : (i64) -> !llvm.ptr
    omp.terminator
  }
  %ok = llvm.mlir.constant(0 : i32) : i32
  llvm.return %ok : i32
}

// -----

// The allocator needs the context.
llvm.func @_mlir_memref_to_llvm_alloc(i64) -> !llvm.ptr
llvm.func @nocontext(%n: i64) {
  // expected-error @below {{the runtime allocator needs the runtime context, which 'nocontext' does not have}}
  %p = llvm.call @_mlir_memref_to_llvm_alloc(%n) : (i64) -> !llvm.ptr
  llvm.return
}

// -----

llvm.func @_mlir_memref_to_llvm_alloc(i64) -> !llvm.ptr
// expected-error @below {{a function with a runtime context must return an i32 status}}
llvm.func @voidresult(%ctx: !llvm.ptr {telar.runtime_context}, %n: i64) {
  %p = llvm.call @_mlir_memref_to_llvm_alloc(%n) : (i64) -> !llvm.ptr
  llvm.return
}

// -----

// Declarations that mark the argument their callers pass the context in
// (telar-lower-collectives' callees) lose the marker too; their status is
// checked.
// CHECK-LABEL: llvm.func @telarrt_all_reduce(!llvm.ptr, i64, i64, i64, !llvm.ptr, !llvm.ptr, i64) -> i32
// CHECK-LABEL: llvm.func @collective
// CHECK: %[[S:.+]] = llvm.call @telarrt_all_reduce
// CHECK: llvm.icmp "ne" %[[S]]
llvm.func @telarrt_all_reduce(!llvm.ptr {telar.runtime_context}, i64, i64, i64, !llvm.ptr, !llvm.ptr, i64) -> i32 attributes {telar.runtime_status}
llvm.func @collective(%ctx: !llvm.ptr {telar.runtime_context}, %p: !llvm.ptr) -> i32 {
  %c0 = llvm.mlir.constant(0 : i64) : i64
  %s = llvm.call @telarrt_all_reduce(%ctx, %c0, %c0, %c0, %p, %p, %c0) : (!llvm.ptr, i64, i64, i64, !llvm.ptr, !llvm.ptr, i64) -> i32
  %ok = llvm.mlir.constant(0 : i32) : i32
  llvm.return %ok : i32
}
