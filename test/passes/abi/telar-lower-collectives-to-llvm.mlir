// RUN: telar-opt %s --telar-lower-to-llvm="parallel=false" | FileCheck %s
// RUN: not telar-opt %s --telar-lower-to-llvm="library-calls=false runtime-allocator=false" -o /dev/null 2>&1 | FileCheck %s --check-prefix=NORT

// Through the CPU pipeline: the collectives are calls of the runtime with
// the program's context, checked like the kernels. A strided slice is
// copied into a contiguous buffer first, and that buffer is freed only
// after the call that reads it.
// CHECK-LABEL: llvm.func @main
// CHECK-SAME: (%[[CTX:[^:]+]]: !llvm.ptr,
// CHECK: %[[COPY:.+]] = llvm.call @telarrt_alloc(%[[CTX]],
// CHECK: %[[S1:.+]] = llvm.call @telarrt_all_reduce(%[[CTX]],
// CHECK-NEXT: %[[F1:.+]] = llvm.icmp "ne" %[[S1]]
// CHECK-NEXT: llvm.cond_br %[[F1]] weights([1, 2000]), ^[[FAIL:bb[0-9]+]](%[[S1]] : i32)
// CHECK: llvm.call @telarrt_free(%[[CTX]], %[[COPY]])
// CHECK: %[[S2:.+]] = llvm.call @telarrt_all_reduce(%[[CTX]],
// CHECK-NEXT: %[[F2:.+]] = llvm.icmp "ne" %[[S2]]
// CHECK-NEXT: llvm.cond_br %[[F2]] weights([1, 2000]), ^[[FAIL]](%[[S2]] : i32)
// CHECK: ^[[FAIL]](%[[STATUS:.+]]: i32):
// CHECK-NEXT: llvm.return %[[STATUS]] : i32
// CHECK: llvm.func @telarrt_all_reduce(!llvm.ptr, i64, i64, i64, !llvm.ptr, !llvm.ptr, i64) -> i32
// CHECK-NOT: shard.grid
// CHECK-NOT: telar.runtime_context
// NORT: error: collectives are runtime calls: the pipeline must use the runtime (library calls or the runtime allocator)
shard.grid @mesh(shape = 2)
func.func @main(%x: tensor<4x8xf32>) -> tensor<4x4xf32> {
  %s = tensor.extract_slice %x[0, 0] [4, 4] [1, 2] : tensor<4x8xf32> to tensor<4x4xf32>
  %y = shard.all_reduce %s on @mesh grid_axes = [0] : tensor<4x4xf32> -> tensor<4x4xf32>
  %z = shard.all_reduce %y on @mesh grid_axes = [0] : tensor<4x4xf32> -> tensor<4x4xf32>
  %w = telar.add %z, %y : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
  return %w : tensor<4x4xf32>
}
