// The whole CPU pipeline reaches the runtime's GEMM for a large f32 matmul
// (telar-linalg-to-library-calls, with the runtime context and the status
// checks of telar-add-runtime-context and telar-lower-runtime-calls).
// RUN: telar-opt %s --telar-lower-to-llvm='runtime-allocator=0 parallel=0' -split-input-file | FileCheck %s --check-prefix=PIPE

// The runtime's symbol is telarrt_matmul_f32 (descriptor pointers after
// the context, then the flags); the status it returns is checked. The
// output's zero fill is gone (no loop before the call): the call
// overwrites it (flags 0).
// PIPE-LABEL: llvm.func @telar_matmul
// PIPE-SAME: (%[[CTX:[^:]+]]: !llvm.ptr,
// PIPE-SAME: -> i32
// PIPE-NEXT: %[[FLAGS:.+]] = llvm.mlir.constant(0 : i64) : i64
// PIPE-NEXT: llvm.mlir.constant(0 : i32)
// PIPE-NEXT: %[[S:.+]] = llvm.call @telarrt_matmul_f32_unpacked(%[[CTX]], {{.*}}, %[[FLAGS]]) :
// PIPE: %[[FAILED:.+]] = llvm.icmp "ne" %[[S]]
// PIPE: llvm.cond_br %[[FAILED]] weights([1, 2000]), ^[[FAIL:.+]](%[[S]] : i32), ^
// PIPE: ^[[FAIL]](%[[CODE:.+]]: i32):
// PIPE-NEXT: llvm.return %[[CODE]] : i32
// PIPE: llvm.func private @telarrt_matmul_f32_unpacked(%{{.+}}: !llvm.ptr,
// PIPE: llvm.call @telarrt_matmul_f32(%{{.+}}, %{{.+}}, %{{.+}}, %{{.+}}, %{{.+}}) : (!llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr, i64) -> i32
// PIPE: llvm.func @telarrt_matmul_f32(!llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr, i64) -> i32
func.func @telar_matmul(%a: tensor<64x64xf32>, %b: tensor<64x32xf32>) -> tensor<64x32xf32> {
  %0 = telar.matmul %a, %b : (tensor<64x64xf32>, tensor<64x32xf32>) -> tensor<64x32xf32>
  return %0 : tensor<64x32xf32>
}

// -----

// Through the whole pipeline, a [B, M, K] x [K, N] matmul stays one GEMM:
// elementwise fusion must not fold the batch collapse into it.
// PIPE-LABEL: llvm.func @batched_rows
// PIPE: llvm.call @telarrt_matmul_f32(
func.func @batched_rows(%a: tensor<4x16x64xf32>, %b: tensor<64x32xf32>) -> tensor<4x16x32xf32> {
  %0 = telar.matmul %a, %b : (tensor<4x16x64xf32>, tensor<64x32xf32>) -> tensor<4x16x32xf32>
  %1 = telar.relu %0 : (tensor<4x16x32xf32>) -> tensor<4x16x32xf32>
  return %1 : tensor<4x16x32xf32>
}
