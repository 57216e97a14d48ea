// RUN: telar-opt %s --telar-lower-collectives -split-input-file -verify-diagnostics | FileCheck %s
// RUN: telar-opt %s --telar-lower-collectives --one-shot-bufferize="bufferize-function-boundaries function-boundary-type-conversion=identity-layout-map" --buffer-results-to-out-params="hoist-static-allocs modify-public-functions" --telar-add-runtime-context -split-input-file -verify-diagnostics | FileCheck %s --check-prefix=CTX

// An all-gather along dim 1 over axis 1 of a 2x3 grid: [outer][G][inner]
// with outer = 4 (the dims before), inner = 8 (the local dim and after).
// The input is read in place, the result is a new contiguous buffer.
// CHECK-LABEL: func.func @all_gather
// CHECK-SAME: (%[[X:.+]]: tensor<4x8xf32>)
// CHECK-DAG: %[[NULL:.+]] = llvm.mlir.zero : !llvm.ptr
// CHECK-DAG: %[[F32:.+]] = arith.constant 0 : i64
// CHECK-DAG: %[[AXES:.+]] = arith.constant 2 : i64
// CHECK-DAG: %[[OUTER:.+]] = arith.constant 4 : i64
// CHECK-DAG: %[[INNER:.+]] = arith.constant 8 : i64
// CHECK: %[[IN:.+]] = bufferization.to_buffer %[[X]] read_only {collective_read = distinct[{{[0-9]+}}]<>} : tensor<4x8xf32> to memref<4x8xf32>
// CHECK: %[[OUT:.+]] = memref.alloc() {alignment = 64 : i64} : memref<4x24xf32>
// CHECK: %[[INI:.+]] = memref.extract_aligned_pointer_as_index %[[IN]]
// CHECK: %[[INL:.+]] = arith.index_cast %[[INI]] : index to i64
// CHECK: %[[INP:.+]] = llvm.inttoptr %[[INL]] : i64 to !llvm.ptr
// CHECK: %[[OUTI:.+]] = memref.extract_aligned_pointer_as_index %[[OUT]]
// CHECK: %[[OUTL:.+]] = arith.index_cast %[[OUTI]] : index to i64
// CHECK: %[[OUTP:.+]] = llvm.inttoptr %[[OUTL]] : i64 to !llvm.ptr
// CHECK: call @telarrt_all_gather(%[[NULL]], %[[F32]], %[[AXES]], %[[INP]], %[[OUTP]], %[[OUTER]], %[[INNER]]) : (!llvm.ptr, i64, i64, !llvm.ptr, !llvm.ptr, i64, i64) -> i32
// CHECK: %[[Y:.+]] = bufferization.to_tensor %[[OUT]] restrict writable : memref<4x24xf32> to tensor<4x24xf32>
// CHECK: return %[[Y]]
// CHECK: func.func private @telarrt_all_gather(!llvm.ptr {telar.runtime_context}, i64, i64, !llvm.ptr, !llvm.ptr, i64, i64) -> i32 attributes {telar.runtime_status}
// The grid is gone once nothing refers to it.
// CHECK-NOT: shard.grid

// After bufferization the call writes into the output buffer the caller
// passes, with the function's context.
// CTX-LABEL: func.func @all_gather
// CTX-SAME: (%[[CTX:.+]]: !llvm.ptr {telar.runtime_context}, %[[X:.+]]: memref<4x8xf32>, %[[Y:.+]]: memref<4x24xf32>) -> i32
// CTX: %[[INI:.+]] = memref.extract_aligned_pointer_as_index %[[X]]
// CTX: %[[OUTI:.+]] = memref.extract_aligned_pointer_as_index %[[Y]]
// CTX: call @telarrt_all_gather(%[[CTX]],
// CTX-NOT: memref.copy
// CTX: return
shard.grid @mesh(shape = 2x3)
func.func @all_gather(%x: tensor<4x8xf32>) -> tensor<4x24xf32> {
  %y = shard.all_gather %x on @mesh grid_axes = [1] gather_axis = 1 : tensor<4x8xf32> -> tensor<4x24xf32>
  return %y : tensor<4x24xf32>
}

// -----

// A gather along the first dim: outer = 1, inner = all local elements; over
// both axes (mask 0b11, G = 6) listed in ascending order.
// CHECK-LABEL: func.func @all_gather_dim0
// CHECK-DAG: %[[F16:.+]] = arith.constant 1 : i64
// CHECK-DAG: %[[AXES:.+]] = arith.constant 3 : i64
// CHECK-DAG: %[[ONE:.+]] = arith.constant 1 : i64
// CHECK-DAG: %[[INNER:.+]] = arith.constant 30 : i64
// CHECK: memref.alloc() {alignment = 64 : i64} : memref<12x5x3xf16>
// CHECK: call @telarrt_all_gather(%{{.+}}, %[[F16]], %[[AXES]], %{{.+}}, %{{.+}}, %[[ONE]], %[[INNER]])
shard.grid @mesh(shape = 2x3)
func.func @all_gather_dim0(%x: tensor<2x5x3xf16>) -> tensor<12x5x3xf16> {
  %y = shard.all_gather %x on @mesh grid_axes = [0, 1] gather_axis = 0 : tensor<2x5x3xf16> -> tensor<12x5x3xf16>
  return %y : tensor<12x5x3xf16>
}

// -----

// All-reduce: the element count; sum, max, min and product codes; the axes
// in any order (a reduction does not depend on the members' order).
// CHECK-LABEL: func.func @all_reduce
// CHECK-DAG: %[[F32:.+]] = arith.constant 0 : i64
// CHECK-DAG: %[[SUM:.+]] = arith.constant 0 : i64
// CHECK-DAG: %[[AXIS1:.+]] = arith.constant 2 : i64
// CHECK-DAG: %[[COUNT:.+]] = arith.constant 24 : i64
// CHECK: memref.alloc() {alignment = 64 : i64} : memref<2x3x4xf32>
// CHECK: %[[A:.+]] = call @telarrt_all_reduce(%{{.+}}, %[[F32]], %[[SUM]], %[[AXIS1]], %{{.+}}, %{{.+}}, %[[COUNT]]) : (!llvm.ptr, i64, i64, i64, !llvm.ptr, !llvm.ptr, i64) -> i32
// CHECK: %[[MAX:.+]] = arith.constant 1 : i64
// CHECK: %[[BOTH:.+]] = arith.constant 3 : i64
// CHECK: call @telarrt_all_reduce(%{{.+}}, %{{.+}}, %[[MAX]], %[[BOTH]],
// CHECK: %[[MIN:.+]] = arith.constant 2 : i64
// CHECK: call @telarrt_all_reduce(%{{.+}}, %{{.+}}, %[[MIN]],
// CHECK: %[[PROD:.+]] = arith.constant 3 : i64
// CHECK: call @telarrt_all_reduce(%{{.+}}, %{{.+}}, %[[PROD]],
// CHECK: func.func private @telarrt_all_reduce(!llvm.ptr {telar.runtime_context}, i64, i64, i64, !llvm.ptr, !llvm.ptr, i64) -> i32 attributes {telar.runtime_status}
shard.grid @mesh(shape = 2x2)
func.func @all_reduce(%x: tensor<2x3x4xf32>) -> tensor<2x3x4xf32> {
  %a = shard.all_reduce %x on @mesh grid_axes = [1] : tensor<2x3x4xf32> -> tensor<2x3x4xf32>
  %b = shard.all_reduce %a on @mesh grid_axes = [1, 0] reduction = max : tensor<2x3x4xf32> -> tensor<2x3x4xf32>
  %c = shard.all_reduce %b on @mesh grid_axes = [0] reduction = min : tensor<2x3x4xf32> -> tensor<2x3x4xf32>
  %d = shard.all_reduce %c on @mesh grid_axes = [0] reduction = product : tensor<2x3x4xf32> -> tensor<2x3x4xf32>
  return %d : tensor<2x3x4xf32>
}

// -----

// Reduce-scatter along dim 1 over axis 0 (G = 2): the input is
// [outer = 2][G][inner = 3 * 4].
// CHECK-LABEL: func.func @reduce_scatter
// CHECK-DAG: %[[F64:.+]] = arith.constant 3 : i64
// CHECK-DAG: %[[SUM:.+]] = arith.constant 0 : i64
// CHECK-DAG: %[[AXIS0:.+]] = arith.constant 1 : i64
// CHECK-DAG: %[[OUTER:.+]] = arith.constant 2 : i64
// CHECK-DAG: %[[INNER:.+]] = arith.constant 12 : i64
// CHECK: memref.alloc() {alignment = 64 : i64} : memref<2x3x4xf64>
// CHECK: call @telarrt_reduce_scatter(%{{.+}}, %[[F64]], %[[SUM]], %[[AXIS0]], %{{.+}}, %{{.+}}, %[[OUTER]], %[[INNER]]) : (!llvm.ptr, i64, i64, i64, !llvm.ptr, !llvm.ptr, i64, i64) -> i32
shard.grid @mesh(shape = 2x2)
func.func @reduce_scatter(%x: tensor<2x6x4xf64>) -> tensor<2x3x4xf64> {
  %y = shard.reduce_scatter %x on @mesh grid_axes = [0] scatter_axis = 1 : tensor<2x6x4xf64> -> tensor<2x3x4xf64>
  return %y : tensor<2x3x4xf64>
}

// -----

// All-slice: the runtime's local slice (no communication), the same
// [outer][G][inner] form as a reduce-scatter; i64 elements, the last dim.
// CHECK-LABEL: func.func @all_slice
// CHECK-DAG: %[[I64:.+]] = arith.constant 4 : i64
// CHECK-DAG: %[[AXES:.+]] = arith.constant 6 : i64
// CHECK-DAG: %[[OUTER:.+]] = arith.constant 10 : i64
// CHECK-DAG: %[[INNER:.+]] = arith.constant 2 : i64
// CHECK: memref.alloc() {alignment = 64 : i64} : memref<10x2xi64>
// CHECK: call @telarrt_local_slice(%{{.+}}, %[[I64]], %[[AXES]], %{{.+}}, %{{.+}}, %[[OUTER]], %[[INNER]]) : (!llvm.ptr, i64, i64, !llvm.ptr, !llvm.ptr, i64, i64) -> i32
shard.grid @mesh(shape = 3x2x3)
func.func @all_slice(%x: tensor<10x12xi64>) -> tensor<10x2xi64> {
  %y = shard.all_slice %x on @mesh grid_axes = [1, 2] slice_axis = 1 : tensor<10x12xi64> -> tensor<10x2xi64>
  return %y : tensor<10x2xi64>
}

// -----

// All-to-all from dim 0 to dim 2 over axis 1 (G = 4): input 8x3x2 is
// [splitOuter = 1][4][splitInner = 2 * 3 * 2]; output 2x3x8 is
// [concatOuter = 2 * 3][4][concatInner = 2].
// CHECK-LABEL: func.func @all_to_all
// CHECK-DAG: %[[I32:.+]] = arith.constant 5 : i64
// CHECK-DAG: %[[AXIS1:.+]] = arith.constant 2 : i64
// CHECK-DAG: %[[SO:.+]] = arith.constant 1 : i64
// CHECK-DAG: %[[SI:.+]] = arith.constant 12 : i64
// CHECK-DAG: %[[CO:.+]] = arith.constant 6 : i64
// CHECK-DAG: %[[CI:.+]] = arith.constant 2 : i64
// CHECK: memref.alloc() {alignment = 64 : i64} : memref<2x3x8xi32>
// CHECK: call @telarrt_all_to_all(%{{.+}}, %[[I32]], %[[AXIS1]], %{{.+}}, %{{.+}}, %[[SO]], %[[SI]], %[[CO]], %[[CI]]) : (!llvm.ptr, i64, i64, !llvm.ptr, !llvm.ptr, i64, i64, i64, i64) -> i32
shard.grid @mesh(shape = 2x4)
func.func @all_to_all(%x: tensor<8x3x2xi32>) -> tensor<2x3x8xi32> {
  %y = shard.all_to_all %x on @mesh grid_axes = [1] split_axis = 0 concat_axis = 2 : tensor<8x3x2xi32> -> tensor<2x3x8xi32>
  return %y : tensor<2x3x8xi32>
}

// -----

// All-to-all from dim 2 to dim 1 over axis 0 (G = 2), bool elements:
// input 4x3x6 is [12][2][3]; output 4x6x3 is [4][2][9].
// CHECK-LABEL: func.func @all_to_all_inner
// CHECK-DAG: %[[BOOL:.+]] = arith.constant 7 : i64
// CHECK-DAG: %[[AXIS0:.+]] = arith.constant 1 : i64
// CHECK-DAG: %[[SO:.+]] = arith.constant 12 : i64
// CHECK-DAG: %[[SI:.+]] = arith.constant 3 : i64
// CHECK-DAG: %[[CO:.+]] = arith.constant 4 : i64
// CHECK-DAG: %[[CI:.+]] = arith.constant 9 : i64
// CHECK: call @telarrt_all_to_all(%{{.+}}, %[[BOOL]], %[[AXIS0]], %{{.+}}, %{{.+}}, %[[SO]], %[[SI]], %[[CO]], %[[CI]])
shard.grid @mesh(shape = 2)
func.func @all_to_all_inner(%x: tensor<4x3x6xi1>) -> tensor<4x6x3xi1> {
  %y = shard.all_to_all %x on @mesh grid_axes = [0] split_axis = 2 concat_axis = 1 : tensor<4x3x6xi1> -> tensor<4x6x3xi1>
  return %y : tensor<4x6x3xi1>
}

// -----

// Collectives chain: the first's result buffer is the second's input; the
// declaration is shared. bf16 and i8 codes.
// CHECK-LABEL: func.func @chain
// CHECK: %[[OUT1:.+]] = memref.alloc() {alignment = 64 : i64} : memref<4x4xbf16>
// CHECK: call @telarrt_all_reduce
// CHECK: %[[T:.+]] = bufferization.to_tensor %[[OUT1]]
// CHECK: bufferization.to_buffer %[[T]] read_only
// CHECK: call @telarrt_all_reduce
// CHECK: arith.constant 6 : i64
// CHECK: call @telarrt_all_gather
// CHECK-COUNT-1: func.func private @telarrt_all_reduce
shard.grid @mesh(shape = 2)
func.func @chain(%x: tensor<4x4xbf16>, %z: tensor<2xi8>) -> (tensor<4x4xbf16>, tensor<4xi8>) {
  %a = shard.all_reduce %x on @mesh grid_axes = [0] : tensor<4x4xbf16> -> tensor<4x4xbf16>
  %b = shard.all_reduce %a on @mesh grid_axes = [0] : tensor<4x4xbf16> -> tensor<4x4xbf16>
  %c = shard.all_gather %z on @mesh grid_axes = [0] gather_axis = 0 : tensor<2xi8> -> tensor<4xi8>
  return %b, %c : tensor<4x4xbf16>, tensor<4xi8>
}

// -----

// A program without collectives keeps its functions; its unreferenced grid
// goes.
// CHECK-LABEL: func.func @replicated
// CHECK-NOT: shard.grid
shard.grid @mesh(shape = 2)
func.func @replicated(%x: tensor<4xf32>) -> tensor<4xf32> {
  return %x : tensor<4xf32>
}

// -----

shard.grid @mesh(shape = 2x2)
func.func @descending(%x: tensor<4x8xf32>) -> tensor<16x8xf32> {
  // expected-error @below {{grid axes must be listed in ascending order (the runtime's member order in a group), got [1, 0]}}
  %y = shard.all_gather %x on @mesh grid_axes = [1, 0] gather_axis = 0 : tensor<4x8xf32> -> tensor<16x8xf32>
  return %y : tensor<16x8xf32>
}

// -----

shard.grid @mesh(shape = 2x2)
func.func @descending_a2a(%x: tensor<4x8xf32>) -> tensor<1x32xf32> {
  // expected-error @below {{grid axes must be listed in ascending order}}
  %y = shard.all_to_all %x on @mesh grid_axes = [1, 0] split_axis = 0 concat_axis = 1 : tensor<4x8xf32> -> tensor<1x32xf32>
  return %y : tensor<1x32xf32>
}

// -----

shard.grid @mesh(shape = 2x2)
func.func @descending_rs(%x: tensor<4x8xf32>) -> tensor<1x8xf32> {
  // expected-error @below {{grid axes must be listed in ascending order}}
  %y = shard.reduce_scatter %x on @mesh grid_axes = [1, 0] scatter_axis = 0 : tensor<4x8xf32> -> tensor<1x8xf32>
  return %y : tensor<1x8xf32>
}

// -----

shard.grid @mesh(shape = 2)
func.func @average(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @below {{the runtime has no 'average' reduction}}
  %y = shard.all_reduce %x on @mesh grid_axes = [0] reduction = average : tensor<4xf32> -> tensor<4xf32>
  return %y : tensor<4xf32>
}

// -----

shard.grid @mesh(shape = 2)
func.func @widening(%x: tensor<4xf32>) -> tensor<4xf64> {
  // expected-error @below {{a collective that changes the element type ('f32' -> 'f64') is not supported}}
  %y = shard.all_reduce %x on @mesh grid_axes = [0] : tensor<4xf32> -> tensor<4xf64>
  return %y : tensor<4xf64>
}

// -----

shard.grid @mesh(shape = 2)
func.func @i16(%x: tensor<4xi16>) -> tensor<8xi16> {
  // expected-error @below {{the runtime's collectives do not carry the element type 'i16'}}
  %y = shard.all_gather %x on @mesh grid_axes = [0] gather_axis = 0 : tensor<4xi16> -> tensor<8xi16>
  return %y : tensor<8xi16>
}

// -----

shard.grid @mesh(shape = 2)
func.func @dynamic(%x: tensor<?xf32>) -> tensor<?xf32> {
  // expected-error @below {{collectives need static shapes, got 'tensor<?xf32>' -> 'tensor<?xf32>'}}
  %y = shard.all_reduce %x on @mesh grid_axes = [0] : tensor<?xf32> -> tensor<?xf32>
  return %y : tensor<?xf32>
}

// -----

shard.grid @mesh(shape = 2)
func.func @memref(%x: memref<4xf32>) -> memref<4xf32> {
  // expected-error @below {{collectives are lowered on tensors (run telar-lower-collectives before bufferization)}}
  %y = shard.all_reduce %x on @mesh grid_axes = [0] : memref<4xf32> -> memref<4xf32>
  return %y : memref<4xf32>
}

// -----

shard.grid @mesh(shape = ?x2)
func.func @dynamic_grid(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @below {{grid axis 0 of @mesh has a dynamic size; collectives need static grids}}
  %y = shard.all_reduce %x on @mesh grid_axes = [0] : tensor<4xf32> -> tensor<4xf32>
  return %y : tensor<4xf32>
}
