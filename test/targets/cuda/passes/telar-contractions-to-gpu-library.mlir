// RUN: telar-opt %s -split-input-file -telar-contractions-to-gpu-library | FileCheck %s
// RUN: telar-opt %s -split-input-file -telar-contractions-to-gpu-library=min-flops=100000 | FileCheck %s --check-prefix=SMALL

// A matmul whose output was just zero-filled: one GEMM call that
// overwrites (flags 0), the fill gone; the buffers' device addresses and
// their strides in elements (no batch: batch stride 0).
// CHECK-LABEL: func.func @matmul
// CHECK-SAME:    (%[[CTX:.*]]: !llvm.ptr {telar.runtime_context}, %[[A:.*]]: memref<4x8xf32>, %[[B:.*]]: memref<8x3xf32>, %[[C:.*]]: memref<4x3xf32>)
// CHECK-NOT:   linalg.fill
// CHECK:       %[[AI:.*]] = memref.extract_aligned_pointer_as_index %[[A]]
// CHECK:       %[[AB:.*]] = arith.index_cast %[[AI]] : index to i64
// CHECK:       %[[PA:.*]] = llvm.inttoptr %[[AB]] : i64 to !llvm.ptr
// CHECK:       %[[PB:.*]] = llvm.inttoptr
// CHECK:       %[[PC:.*]] = llvm.inttoptr
// CHECK-DAG:   %[[C0:.*]] = arith.constant 0 : i64
// CHECK-DAG:   %[[C1:.*]] = arith.constant 1 : i64
// CHECK-DAG:   %[[C3:.*]] = arith.constant 3 : i64
// CHECK-DAG:   %[[C4:.*]] = arith.constant 4 : i64
// CHECK-DAG:   %[[C8:.*]] = arith.constant 8 : i64
// CHECK:       call @telarrt_gpu_matmul_f32(%[[CTX]], %[[PA]], %[[PB]], %[[PC]], %[[C1]], %[[C4]], %[[C3]], %[[C8]], %[[C0]], %[[C8]], %[[C1]], %[[C0]], %[[C3]], %[[C1]], %[[C0]], %[[C3]], %[[C1]], %[[C0]]) : (!llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64) -> i32
// CHECK-NOT:   linalg.matmul
// CHECK:       func.func private @telarrt_gpu_matmul_f32(!llvm.ptr {telar.runtime_context}, !llvm.ptr, !llvm.ptr, !llvm.ptr, i64, {{.*}}) -> i32 attributes {telar.runtime_status}
// Under min-flops the product stays a linalg op (a generated kernel).
// SMALL-LABEL: func.func @matmul
// SMALL:       linalg.fill
// SMALL:       linalg.matmul
func.func @matmul(%ctx: !llvm.ptr {telar.runtime_context}, %a: memref<4x8xf32>, %b: memref<8x3xf32>, %c: memref<4x3xf32>) {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%c : memref<4x3xf32>)
  linalg.matmul ins(%a, %b : memref<4x8xf32>, memref<8x3xf32>) outs(%c : memref<4x3xf32>)
  return
}

// -----

// A batched matmul by a transposed view (its rows contiguous along k: the
// GEMM reads it column-major), into an output holding a bias: it
// accumulates (flags 1); a view's offset moves its address (4 bytes an
// element).
// CHECK-LABEL: func.func @batch_transposed
// CHECK:       memref.copy
// CHECK:       %[[AI:.*]] = memref.extract_aligned_pointer_as_index %{{.*}} : memref<2x4x8xf32, strided<[64, 8, 1], offset: 32>>
// CHECK:       %[[AB:.*]] = arith.index_cast %[[AI]]
// CHECK:       %[[OFF:.*]] = arith.constant 128 : i64
// CHECK:       %[[AO:.*]] = arith.addi %[[AB]], %[[OFF]] : i64
// CHECK:       %[[PA:.*]] = llvm.inttoptr %[[AO]]
// CHECK:       memref.extract_aligned_pointer_as_index %{{.*}} : memref<2x8x3xf32, strided<[24, 1, 8]>>
// CHECK:       %[[PB:.*]] = llvm.inttoptr
// CHECK:       %[[PC:.*]] = llvm.inttoptr
// CHECK-DAG:   %[[C1:.*]] = arith.constant 1 : i64
// CHECK-DAG:   %[[C2:.*]] = arith.constant 2 : i64
// CHECK-DAG:   %[[C3:.*]] = arith.constant 3 : i64
// CHECK-DAG:   %[[C4:.*]] = arith.constant 4 : i64
// CHECK-DAG:   %[[C8:.*]] = arith.constant 8 : i64
// CHECK-DAG:   %[[C12:.*]] = arith.constant 12 : i64
// CHECK-DAG:   %[[C24:.*]] = arith.constant 24 : i64
// CHECK-DAG:   %[[C64:.*]] = arith.constant 64 : i64
// batch 2, 4 x 8 . 8 x 3; strides a (64, 8, 1), b (24, 1, 8), c (12, 3, 1);
// flags 1.
// CHECK:       call @telarrt_gpu_matmul_f32(%{{.*}}, %[[PA]], %[[PB]], %[[PC]], %[[C2]], %[[C4]], %[[C3]], %[[C8]], %[[C64]], %[[C8]], %[[C1]], %[[C24]], %[[C1]], %[[C8]], %[[C12]], %[[C3]], %[[C1]], %[[C1]])
// CHECK-NOT:   linalg.batch_matmul
func.func @batch_transposed(%ctx: !llvm.ptr {telar.runtime_context}, %a: memref<2x8x8xf32>, %bt: memref<2x3x8xf32>, %bias: memref<2x4x3xf32>, %c: memref<2x4x3xf32>) {
  %sub = memref.subview %a[0, 4, 0] [2, 4, 8] [1, 1, 1] : memref<2x8x8xf32> to memref<2x4x8xf32, strided<[64, 8, 1], offset: 32>>
  %b = memref.transpose %bt (d0, d1, d2) -> (d0, d2, d1) : memref<2x3x8xf32> to memref<2x8x3xf32, strided<[24, 1, 8]>>
  memref.copy %bias, %c : memref<2x4x3xf32> to memref<2x4x3xf32>
  linalg.batch_matmul ins(%sub, %b : memref<2x4x8xf32, strided<[64, 8, 1], offset: 32>>, memref<2x8x3xf32, strided<[24, 1, 8]>>) outs(%c : memref<2x4x3xf32>)
  return
}

// -----

// Neither rows nor columns contiguous (every other column of a): the GEMM
// cannot read it in place, the op stays (a generated kernel); a fill with
// another value stays too.
// CHECK-LABEL: func.func @strided
// CHECK:       linalg.fill
// CHECK:       linalg.matmul
// CHECK-NOT:   call @telarrt_gpu_matmul_f32
func.func @strided(%ctx: !llvm.ptr {telar.runtime_context}, %a: memref<4x16xf32>, %b: memref<8x3xf32>, %c: memref<4x3xf32>) {
  %one = arith.constant 1.0 : f32
  %sub = memref.subview %a[0, 0] [4, 8] [1, 2] : memref<4x16xf32> to memref<4x8xf32, strided<[16, 2]>>
  linalg.fill ins(%one : f32) outs(%c : memref<4x3xf32>)
  linalg.matmul ins(%sub, %b : memref<4x8xf32, strided<[16, 2]>>, memref<8x3xf32>) outs(%c : memref<4x3xf32>)
  return
}

// -----

// bfloat16 inputs into an f32 output (telarc --dtype bf16): flags
// TELAR_GPU_BF16 (4, with accumulation: 5); a view's offset moves its
// address by 2 bytes an element.
// CHECK-LABEL: func.func @bf16
// CHECK:       %[[AI:.*]] = memref.extract_aligned_pointer_as_index %{{.*}} : memref<4x8xbf16, strided<[8, 1], offset: 8>>
// CHECK:       %[[AB:.*]] = arith.index_cast %[[AI]] : index to i64
// CHECK:       %[[C16:.*]] = arith.constant 16 : i64
// CHECK:       arith.addi %[[AB]], %[[C16]] : i64
// CHECK:       %[[C5:.*]] = arith.constant 5 : i64
// CHECK:       call @telarrt_gpu_matmul_f32({{.*}}, %[[C5]])
// CHECK-NOT:   linalg.matmul
func.func @bf16(%ctx: !llvm.ptr {telar.runtime_context}, %a: memref<5x8xbf16>, %b: memref<8x3xbf16>, %c: memref<4x3xf32>) {
  %sub = memref.subview %a[1, 0] [4, 8] [1, 1] : memref<5x8xbf16> to memref<4x8xbf16, strided<[8, 1], offset: 8>>
  linalg.matmul ins(%sub, %b : memref<4x8xbf16, strided<[8, 1], offset: 8>>, memref<8x3xbf16>) outs(%c : memref<4x3xf32>)
  return
}

// -----

// Mixed inputs (one bfloat16, one f32) or a bfloat16 output: no GEMM takes
// them, the ops stay generated kernels.
// CHECK-LABEL: func.func @mixed
// CHECK:       linalg.matmul
// CHECK:       linalg.matmul
// CHECK-NOT:   call @telarrt_gpu_matmul_f32
func.func @mixed(%ctx: !llvm.ptr {telar.runtime_context}, %a: memref<4x8xbf16>, %b: memref<8x3xf32>, %b16: memref<8x3xbf16>, %c: memref<4x3xf32>, %c16: memref<4x3xbf16>) {
  linalg.matmul ins(%a, %b : memref<4x8xbf16>, memref<8x3xf32>) outs(%c : memref<4x3xf32>)
  linalg.matmul ins(%a, %b16 : memref<4x8xbf16>, memref<8x3xbf16>) outs(%c16 : memref<4x3xbf16>)
  return
}

// -----

#bc = affine_map<(d0, d1, d2) -> (d2)>
#id3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>

// A Linear's bias broadcast into the output just before: the GEMM's
// epilogue adds it (telarrt_gpu_matmul_bias_f32, the bias's address after
// c's; flags 0: nothing accumulates) and the broadcast kernel goes.
// CHECK-LABEL: func.func @bias_in_place
// CHECK-SAME:    %[[BIAS:[a-z0-9]+]]: memref<192xf32>
// CHECK-NOT:   linalg.generic
// CHECK:       %[[BI:.*]] = memref.extract_aligned_pointer_as_index %[[BIAS]]
// CHECK:       %[[BB:.*]] = arith.index_cast %[[BI]] : index to i64
// CHECK:       %[[PBIAS:.*]] = llvm.inttoptr %[[BB]] : i64 to !llvm.ptr
// CHECK:       %[[C0:.*]] = arith.constant 0 : i64
// CHECK:       call @telarrt_gpu_matmul_bias_f32(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[PBIAS]], {{.*}}, %[[C0]]) : (!llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr, i64,
// CHECK-NOT:   linalg.matmul
func.func @bias_in_place(%ctx: !llvm.ptr {telar.runtime_context}, %a: memref<32x64xf32>, %b: memref<64x192xf32>, %bias: memref<192xf32>) -> memref<16x2x192xf32> {
  %init = memref.alloc() : memref<16x2x192xf32>
  linalg.generic {indexing_maps = [#bc, #id3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%bias : memref<192xf32>) outs(%init : memref<16x2x192xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  }
  %c = memref.collapse_shape %init [[0, 1], [2]] : memref<16x2x192xf32> into memref<32x192xf32>
  linalg.matmul ins(%a, %b : memref<32x64xf32>, memref<64x192xf32>) outs(%c : memref<32x192xf32>)
  return %init : memref<16x2x192xf32>
}

// -----

#bc = affine_map<(d0, d1) -> (d1)>
#id2 = affine_map<(d0, d1) -> (d0, d1)>

// The init two products share, copied into each output (bufferization's
// copies): each call takes over what its copy held: the bias (its epilogue),
// or zeros (a generic yielding 0: it overwrites); a writer goes with the
// last copy that read it.
// CHECK-LABEL: func.func @bias_copies
// CHECK-NOT:   linalg.generic
// CHECK-NOT:   memref.copy
// CHECK:       call @telarrt_gpu_matmul_bias_f32({{.*}}, %c0_i64) :
// CHECK-NOT:   memref.copy
// CHECK:       call @telarrt_gpu_matmul_bias_f32({{.*}}, %c0_i64{{.*}}) :
// CHECK-NOT:   memref.copy
// CHECK:       call @telarrt_gpu_matmul_f32({{.*}}, %c0_i64{{.*}}) :
func.func @bias_copies(%ctx: !llvm.ptr {telar.runtime_context}, %a: memref<8x4xf32>, %b: memref<4x6xf32>, %bias: memref<6xf32>, %c1: memref<8x6xf32>, %c2: memref<8x6xf32>, %c3: memref<8x6xf32>) {
  %zero = arith.constant 0.0 : f32
  %init = memref.alloc() : memref<8x6xf32>
  linalg.generic {indexing_maps = [#bc, #id2], iterator_types = ["parallel", "parallel"]} ins(%bias : memref<6xf32>) outs(%init : memref<8x6xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  }
  %zeros = memref.alloc() : memref<8x6xf32>
  linalg.generic {indexing_maps = [#id2], iterator_types = ["parallel", "parallel"]} outs(%zeros : memref<8x6xf32>) {
  ^bb0(%out: f32):
    linalg.yield %zero : f32
  }
  memref.copy %init, %c1 : memref<8x6xf32> to memref<8x6xf32>
  linalg.matmul ins(%a, %b : memref<8x4xf32>, memref<4x6xf32>) outs(%c1 : memref<8x6xf32>)
  memref.copy %init, %c2 : memref<8x6xf32> to memref<8x6xf32>
  linalg.matmul ins(%a, %b : memref<8x4xf32>, memref<4x6xf32>) outs(%c2 : memref<8x6xf32>)
  memref.copy %zeros, %c3 : memref<8x6xf32> to memref<8x6xf32>
  linalg.matmul ins(%a, %b : memref<8x4xf32>, memref<4x6xf32>) outs(%c3 : memref<8x6xf32>)
  memref.dealloc %init : memref<8x6xf32>
  memref.dealloc %zeros : memref<8x6xf32>
  return
}

// -----

#bc = affine_map<(d0, d1, d2) -> (d2)>
#id3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>

// Batched: no epilogue (the bias broadcast stays, the call accumulates).
// CHECK-LABEL: func.func @bias_batched
// CHECK:       linalg.generic
// CHECK:       call @telarrt_gpu_matmul_f32({{.*}}, %c1_i64) :
func.func @bias_batched(%ctx: !llvm.ptr {telar.runtime_context}, %a: memref<2x8x4xf32>, %b: memref<2x4x6xf32>, %bias: memref<6xf32>, %c: memref<2x8x6xf32>) {
  linalg.generic {indexing_maps = [#bc, #id3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%bias : memref<6xf32>) outs(%c : memref<2x8x6xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  }
  linalg.batch_matmul ins(%a, %b : memref<2x8x4xf32>, memref<2x4x6xf32>) outs(%c : memref<2x8x6xf32>)
  return
}

// -----

#bc = affine_map<(d0, d1) -> (d1)>
#id2 = affine_map<(d0, d1) -> (d0, d1)>

// The shared init also accumulated into in place by a later product (as
// bufferization leaves the last of a bias's users): the copy's product
// takes the bias, the broadcast stays for the other, which accumulates.
// CHECK-LABEL: func.func @bias_shared
// CHECK:       linalg.generic
// CHECK-NOT:   memref.copy
// CHECK:       call @telarrt_gpu_matmul_bias_f32({{.*}}, %c0_i64) :
// CHECK:       call @telarrt_gpu_matmul_f32({{.*}}, %c1_i64{{.*}}) :
func.func @bias_shared(%ctx: !llvm.ptr {telar.runtime_context}, %a: memref<8x4xf32>, %b: memref<4x6xf32>, %bias: memref<6xf32>, %c1: memref<8x6xf32>) -> memref<8x6xf32> {
  %init = memref.alloc() : memref<8x6xf32>
  linalg.generic {indexing_maps = [#bc, #id2], iterator_types = ["parallel", "parallel"]} ins(%bias : memref<6xf32>) outs(%init : memref<8x6xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  }
  memref.copy %init, %c1 : memref<8x6xf32> to memref<8x6xf32>
  linalg.matmul ins(%a, %b : memref<8x4xf32>, memref<4x6xf32>) outs(%c1 : memref<8x6xf32>)
  linalg.matmul ins(%a, %b : memref<8x4xf32>, memref<4x6xf32>) outs(%init : memref<8x6xf32>)
  return %init : memref<8x6xf32>
}
