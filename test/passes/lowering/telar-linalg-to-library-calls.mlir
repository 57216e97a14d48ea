// RUN: telar-opt %s --telar-add-runtime-context --telar-linalg-to-library-calls -split-input-file | FileCheck %s
// RUN: not telar-opt %s --telar-linalg-to-library-calls -split-input-file -o /dev/null 2>&1 | FileCheck %s --check-prefix=NOCTX

// Operands become fully dynamic strided memrefs, so one entry point serves
// every shape; the callee gets the function's runtime context first and
// descriptors through the C interface, and returns a status.
// CHECK-LABEL: func.func @matmul
// CHECK-SAME: (%[[CTX:.+]]: !llvm.ptr {telar.runtime_context}, %[[A:.+]]: memref<64x64xf32>, %[[B:.+]]: memref<64x32xf32>, %[[C:.+]]: memref<64x32xf32>) -> i32
// CHECK: %[[CA:.+]] = memref.cast %[[A]] : memref<64x64xf32> to memref<?x?xf32, strided<[?, ?], offset: ?>>
// CHECK: %[[CB:.+]] = memref.cast %[[B]]
// CHECK: %[[CC:.+]] = memref.cast %[[C]]
// The output was not just zero-filled: the call adds to it (flags 1,
// TELAR_KERNEL_ACCUMULATE).
// CHECK: %[[ACC:.+]] = arith.constant 1 : i64
// CHECK: call @telarrt_matmul_f32(%[[CTX]], %[[CA]], %[[CB]], %[[CC]], %[[ACC]]) : (!llvm.ptr, {{.*}}, i64) -> i32
// CHECK-NOT: linalg.matmul
// CHECK: func.func private @telarrt_matmul_f32(!llvm.ptr, memref<?x?xf32, strided<[?, ?], offset: ?>>, memref<?x?xf32, strided<[?, ?], offset: ?>>, memref<?x?xf32, strided<[?, ?], offset: ?>>, i64) -> i32 attributes {llvm.emit_c_interface, telar.runtime_status}
// Without telar-add-runtime-context first there is no context to pass.
// NOCTX: error: a runtime call needs the enclosing function's runtime context (run telar-add-runtime-context first)
func.func @matmul(%a: memref<64x64xf32>, %b: memref<64x32xf32>, %c: memref<64x32xf32>) {
  linalg.matmul ins(%a, %b : memref<64x64xf32>, memref<64x32xf32>) outs(%c : memref<64x32xf32>)
  return
}

// -----

// CHECK-LABEL: func.func @batch_matmul
// CHECK: %[[ACC:.+]] = arith.constant 1 : i64
// CHECK: call @telarrt_batch_matmul_f32(%{{.+}}, %{{.+}}, %{{.+}}, %{{.+}}, %[[ACC]]) : (!llvm.ptr, memref<?x?x?xf32, strided<[?, ?, ?], offset: ?>>,
func.func @batch_matmul(%a: memref<8x16x32xf32>, %b: memref<8x32x16xf32>, %c: memref<8x16x16xf32>) {
  linalg.batch_matmul ins(%a, %b : memref<8x16x32xf32>, memref<8x32x16xf32>) outs(%c : memref<8x16x16xf32>)
  return
}

// -----

// Strides, then dilations, padding (none: the input comes padded) and the
// flags, as i64 arguments.
// CHECK-LABEL: func.func @conv
// CHECK-DAG: %[[S0:.+]] = arith.constant 2 : i64
// CHECK-DAG: %[[S1:.+]] = arith.constant 1 : i64
// CHECK-DAG: %[[D0:.+]] = arith.constant 3 : i64
// CHECK-DAG: %[[D1:.+]] = arith.constant 1 : i64
// CHECK-DAG: %[[P0:.+]] = arith.constant 0 : i64
// CHECK-DAG: %[[P1:.+]] = arith.constant 0 : i64
// CHECK-DAG: %[[F:.+]] = arith.constant 1 : i64
// CHECK: call @telarrt_conv2d_nchw_f32(%arg0, %{{.+}}, %{{.+}}, %{{.+}}, %[[S0]], %[[S1]], %[[D0]], %[[D1]], %[[P0]], %[[P1]], %[[F]])
func.func @conv(%x: memref<1x8x20x18xf32>, %w: memref<16x8x3x3xf32>, %y: memref<1x16x7x16xf32>) {
  linalg.conv_2d_nchw_fchw {strides = dense<[2, 1]> : tensor<2xi64>, dilations = dense<[3, 1]> : tensor<2xi64>}
    ins(%x, %w : memref<1x8x20x18xf32>, memref<16x8x3x3xf32>) outs(%y : memref<1x16x7x16xf32>)
  return
}

// -----

// Below min-flops (2x3x2 multiply-adds), and not f32: generated code.
// CHECK-LABEL: func.func @stays
// CHECK: linalg.matmul ins(%{{.+}}, %{{.+}} : memref<2x3xf32>, memref<3x2xf32>)
// CHECK: linalg.matmul ins(%{{.+}}, %{{.+}} : memref<64x64xf64>, memref<64x64xf64>)
// CHECK-NOT: call
func.func @stays(%a: memref<2x3xf32>, %b: memref<3x2xf32>, %c: memref<2x2xf32>,
                 %d: memref<64x64xf64>, %e: memref<64x64xf64>) {
  linalg.matmul ins(%a, %b : memref<2x3xf32>, memref<3x2xf32>) outs(%c : memref<2x2xf32>)
  linalg.matmul ins(%d, %d : memref<64x64xf64>, memref<64x64xf64>) outs(%e : memref<64x64xf64>)
  return
}

// -----

// An output zero-filled just before: the fill goes and the calls overwrite
// (flags 0), for all three kernels; -0.0 too; a view of an allocation;
// pure ops in between do not matter.
// CHECK-LABEL: func.func @overwrite
// CHECK-NOT: linalg.fill
// CHECK: %[[Z1:.+]] = arith.constant 0 : i64
// CHECK-NEXT: call @telarrt_matmul_f32(%{{.+}}, %{{.+}}, %{{.+}}, %{{.+}}, %[[Z1]])
// CHECK-NOT: linalg.fill
// CHECK: %[[Z2:.+]] = arith.constant 0 : i64
// CHECK-NEXT: call @telarrt_batch_matmul_f32(%{{.+}}, %{{.+}}, %{{.+}}, %{{.+}}, %[[Z2]])
// CHECK-NOT: linalg.fill
// CHECK: %[[P0:.+]] = arith.constant 0 : i64
// CHECK-NEXT: %[[P1:.+]] = arith.constant 0 : i64
// CHECK-NEXT: %[[Z3:.+]] = arith.constant 0 : i64
// CHECK-NEXT: call @telarrt_conv2d_nchw_f32({{.*}}, %[[P0]], %[[P1]], %[[Z3]]) :
// CHECK-NOT: linalg.fill
// CHECK: %[[Z4:.+]] = arith.constant 0 : i64
// CHECK-NEXT: call @telarrt_matmul_f32({{.*}}, %[[Z4]]) :
// CHECK-NOT: linalg.fill
// CHECK: return
func.func @overwrite(%a: memref<64x64xf32>, %b: memref<64x32xf32>, %c: memref<64x32xf32>,
                     %a3: memref<8x16x32xf32>, %b3: memref<8x32x16xf32>, %c3: memref<8x16x16xf32>,
                     %x: memref<1x8x20x18xf32>, %w: memref<16x8x3x3xf32>, %y: memref<1x16x7x16xf32>) {
  %zero = arith.constant 0.0 : f32
  %negzero = arith.constant -0.0 : f32
  linalg.fill ins(%zero : f32) outs(%c : memref<64x32xf32>)
  %unused = arith.addf %zero, %zero : f32
  linalg.matmul ins(%a, %b : memref<64x64xf32>, memref<64x32xf32>) outs(%c : memref<64x32xf32>)
  linalg.fill ins(%negzero : f32) outs(%c3 : memref<8x16x16xf32>)
  linalg.batch_matmul ins(%a3, %b3 : memref<8x16x32xf32>, memref<8x32x16xf32>) outs(%c3 : memref<8x16x16xf32>)
  linalg.fill ins(%zero : f32) outs(%y : memref<1x16x7x16xf32>)
  linalg.conv_2d_nchw_fchw {strides = dense<[2, 1]> : tensor<2xi64>, dilations = dense<[3, 1]> : tensor<2xi64>}
    ins(%x, %w : memref<1x8x20x18xf32>, memref<16x8x3x3xf32>) outs(%y : memref<1x16x7x16xf32>)
  %big = memref.alloc() : memref<64x64xf32>
  %view = memref.subview %big[0, 0] [64, 32] [1, 1] : memref<64x64xf32> to memref<64x32xf32, strided<[64, 1]>>
  linalg.fill ins(%zero : f32) outs(%view : memref<64x32xf32, strided<[64, 1]>>)
  linalg.matmul ins(%a, %b : memref<64x64xf32>, memref<64x32xf32>) outs(%view : memref<64x32xf32, strided<[64, 1]>>)
  memref.dealloc %big : memref<64x64xf32>
  return
}

// -----

// The fill stays and the calls accumulate (flags 1) when: something reads
// the filled buffer in between; a view of it is written in between; the
// fill is not of zero; the fill is of another view of the buffer; the fill
// is in another block; the buffer is a global (get_global may alias it).
// CHECK-LABEL: func.func @accumulate
// CHECK: linalg.fill
// CHECK: memref.copy
// CHECK: %[[F1:.+]] = arith.constant 1 : i64
// CHECK-NEXT: call @telarrt_matmul_f32({{.*}}, %[[F1]]) :
// CHECK: linalg.fill
// CHECK: linalg.fill
// CHECK: %[[F2:.+]] = arith.constant 1 : i64
// CHECK-NEXT: call @telarrt_matmul_f32({{.*}}, %[[F2]]) :
// CHECK: linalg.fill
// CHECK: %[[F3:.+]] = arith.constant 1 : i64
// CHECK-NEXT: call @telarrt_matmul_f32({{.*}}, %[[F3]]) :
// CHECK: linalg.fill
// CHECK: %[[F4:.+]] = arith.constant 1 : i64
// CHECK-NEXT: call @telarrt_matmul_f32({{.*}}, %[[F4]]) :
// CHECK: linalg.fill
// CHECK: scf.execute_region
// CHECK: %[[F5:.+]] = arith.constant 1 : i64
// CHECK-NEXT: call @telarrt_matmul_f32({{.*}}, %[[F5]]) :
// CHECK: linalg.fill
// CHECK: %[[F6:.+]] = arith.constant 1 : i64
// CHECK-NEXT: call @telarrt_matmul_f32({{.*}}, %[[F6]]) :
// CHECK: return
memref.global "private" @g : memref<64x32xf32> = uninitialized
func.func @accumulate(%a: memref<64x64xf32>, %b: memref<64x32xf32>, %c: memref<64x32xf32>,
                      %d: memref<64x32xf32>) {
  %zero = arith.constant 0.0 : f32
  %one = arith.constant 1.0 : f32
  // Read in between.
  linalg.fill ins(%zero : f32) outs(%c : memref<64x32xf32>)
  memref.copy %c, %d : memref<64x32xf32> to memref<64x32xf32>
  linalg.matmul ins(%a, %b : memref<64x64xf32>, memref<64x32xf32>) outs(%c : memref<64x32xf32>)
  // A view written in between.
  %big = memref.alloc() : memref<64x64xf32>
  %view = memref.subview %big[0, 0] [64, 32] [1, 1] : memref<64x64xf32> to memref<64x32xf32, strided<[64, 1]>>
  %other = memref.subview %big[0, 16] [64, 32] [1, 1] : memref<64x64xf32> to memref<64x32xf32, strided<[64, 1], offset: 16>>
  linalg.fill ins(%zero : f32) outs(%view : memref<64x32xf32, strided<[64, 1]>>)
  linalg.fill ins(%one : f32) outs(%other : memref<64x32xf32, strided<[64, 1], offset: 16>>)
  linalg.matmul ins(%a, %b : memref<64x64xf32>, memref<64x32xf32>) outs(%view : memref<64x32xf32, strided<[64, 1]>>)
  // Not zero.
  linalg.fill ins(%one : f32) outs(%c : memref<64x32xf32>)
  linalg.matmul ins(%a, %b : memref<64x64xf32>, memref<64x32xf32>) outs(%c : memref<64x32xf32>)
  // Another view (the whole buffer, but not the operand itself).
  %cast = memref.cast %c : memref<64x32xf32> to memref<64x32xf32, strided<[32, 1]>>
  linalg.fill ins(%zero : f32) outs(%cast : memref<64x32xf32, strided<[32, 1]>>)
  linalg.matmul ins(%a, %b : memref<64x64xf32>, memref<64x32xf32>) outs(%c : memref<64x32xf32>)
  // Another block.
  linalg.fill ins(%zero : f32) outs(%c : memref<64x32xf32>)
  scf.execute_region {
    linalg.matmul ins(%a, %b : memref<64x64xf32>, memref<64x32xf32>) outs(%c : memref<64x32xf32>)
    scf.yield
  }
  // A global.
  %gv = memref.get_global @g : memref<64x32xf32>
  linalg.fill ins(%zero : f32) outs(%gv : memref<64x32xf32>)
  linalg.matmul ins(%a, %b : memref<64x64xf32>, memref<64x32xf32>) outs(%gv : memref<64x32xf32>)
  memref.dealloc %big : memref<64x64xf32>
  return
}

// -----

// A zero fill shared through copies (tensor-level CSE merges equal fills;
// bufferization copies the one buffer into each output): each copy goes,
// and the fill with its buffer once nothing else reads it. The generic form
// of a zero fill (what fusion leaves) goes too. A copy from a buffer that
// was written after its fill stays.
// CHECK-LABEL: func.func @copied_fill
// CHECK-NOT: memref.copy
// CHECK-NOT: linalg.fill
// CHECK-NOT: linalg.generic
// CHECK: %[[Z1:.+]] = arith.constant 0 : i64
// CHECK-NEXT: call @telarrt_matmul_f32({{.*}}, %[[Z1]]) :
// CHECK-NOT: memref.copy
// CHECK: %[[Z2:.+]] = arith.constant 0 : i64
// CHECK-NEXT: call @telarrt_matmul_f32({{.*}}, %[[Z2]]) :
// CHECK-NOT: linalg.generic
// CHECK: %[[Z3:.+]] = arith.constant 0 : i64
// CHECK-NEXT: call @telarrt_matmul_f32({{.*}}, %[[Z3]]) :
// CHECK: %[[KEPT:.+]] = memref.alloc
// CHECK: linalg.fill ins(%{{.+}} : f32) outs(%[[KEPT]]
// CHECK: linalg.fill ins(%{{.+}} : f32) outs(%[[KEPT]]
// CHECK: memref.copy %[[KEPT]], %arg3
// CHECK: %[[F:.+]] = arith.constant 1 : i64
// CHECK-NEXT: call @telarrt_matmul_f32({{.*}}, %[[F]]) :
// CHECK: return
func.func @copied_fill(%a: memref<64x64xf32>, %b: memref<64x32xf32>, %c: memref<64x32xf32>, %d: memref<64x32xf32>) {
  %zero = arith.constant 0.0 : f32
  %one = arith.constant 1.0 : f32
  %z = memref.alloc() : memref<64x32xf32>
  linalg.fill ins(%zero : f32) outs(%z : memref<64x32xf32>)
  %c1 = memref.alloc() : memref<64x32xf32>
  memref.copy %z, %c1 : memref<64x32xf32> to memref<64x32xf32>
  linalg.matmul ins(%a, %b : memref<64x64xf32>, memref<64x32xf32>) outs(%c1 : memref<64x32xf32>)
  memref.copy %z, %c : memref<64x32xf32> to memref<64x32xf32>
  linalg.matmul ins(%a, %b : memref<64x64xf32>, memref<64x32xf32>) outs(%c : memref<64x32xf32>)
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} outs(%d : memref<64x32xf32>) {
  ^bb0(%out: f32):
    linalg.yield %zero : f32
  }
  linalg.matmul ins(%a, %b : memref<64x64xf32>, memref<64x32xf32>) outs(%d : memref<64x32xf32>)
  %kept = memref.alloc() : memref<64x32xf32>
  linalg.fill ins(%zero : f32) outs(%kept : memref<64x32xf32>)
  linalg.fill ins(%one : f32) outs(%kept : memref<64x32xf32>)
  memref.copy %kept, %c : memref<64x32xf32> to memref<64x32xf32>
  linalg.matmul ins(%a, %b : memref<64x64xf32>, memref<64x32xf32>) outs(%c : memref<64x32xf32>)
  memref.dealloc %c1 : memref<64x32xf32>
  memref.dealloc %kept : memref<64x32xf32>
  return
}

// -----

// A transpose whose output only the matmul reads: the call reads the
// transposed view of its input instead (the runtime takes any strides), and
// the copy and its buffer go. Not when the buffer has another reader, nor
// when the input is written in between.
// CHECK-LABEL: func.func @transposed_operand
// CHECK-SAME: %[[K:[^:]+]]: memref<16x8x16xf32>, %[[Q:[^:]+]]: memref<8x16x16xf32>
// CHECK-NOT: linalg.transpose
// CHECK: %[[KT:.+]] = memref.transpose %[[K]] (d0, d1, d2) -> (d1, d2, d0) : memref<16x8x16xf32> to memref<8x16x16xf32, strided<[16, 1, 128]>>
// CHECK: %[[V:.+]] = memref.cast %[[KT]]
// CHECK: call @telarrt_batch_matmul_f32(%{{.+}}, %{{.+}}, %[[V]],
// CHECK: %[[T2:.+]] = memref.alloc
// CHECK: linalg.transpose ins(%[[K]] {{.*}} outs(%[[T2]]
// CHECK: linalg.copy
// CHECK: call @telarrt_batch_matmul_f32
// CHECK: %[[T3:.+]] = memref.alloc
// CHECK: linalg.transpose ins(%[[K]] {{.*}} outs(%[[T3]]
// CHECK: linalg.fill
// CHECK: call @telarrt_batch_matmul_f32
// CHECK: return
func.func @transposed_operand(%k: memref<16x8x16xf32>, %q: memref<8x16x16xf32>, %c: memref<8x16x16xf32>, %d: memref<8x16x16xf32>) {
  %one = arith.constant 1.0 : f32
  %t = memref.alloc() : memref<8x16x16xf32>
  linalg.transpose ins(%k : memref<16x8x16xf32>) outs(%t : memref<8x16x16xf32>) permutation = [1, 2, 0]
  linalg.batch_matmul ins(%q, %t : memref<8x16x16xf32>, memref<8x16x16xf32>) outs(%c : memref<8x16x16xf32>)
  // Another reader.
  %t2 = memref.alloc() : memref<8x16x16xf32>
  linalg.transpose ins(%k : memref<16x8x16xf32>) outs(%t2 : memref<8x16x16xf32>) permutation = [1, 2, 0]
  linalg.copy ins(%t2 : memref<8x16x16xf32>) outs(%d : memref<8x16x16xf32>)
  linalg.batch_matmul ins(%q, %t2 : memref<8x16x16xf32>, memref<8x16x16xf32>) outs(%c : memref<8x16x16xf32>)
  // The input written in between.
  %t3 = memref.alloc() : memref<8x16x16xf32>
  linalg.transpose ins(%k : memref<16x8x16xf32>) outs(%t3 : memref<8x16x16xf32>) permutation = [1, 2, 0]
  linalg.fill ins(%one : f32) outs(%k : memref<16x8x16xf32>)
  linalg.batch_matmul ins(%q, %t3 : memref<8x16x16xf32>, memref<8x16x16xf32>) outs(%c : memref<8x16x16xf32>)
  return
}
