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
// CHECK: call @telarrt_matmul_f32(%[[CTX]], %[[CA]], %[[CB]], %[[CC]]) : (!llvm.ptr, {{.*}}) -> i32
// CHECK-NOT: linalg.matmul
// CHECK: func.func private @telarrt_matmul_f32(!llvm.ptr, memref<?x?xf32, strided<[?, ?], offset: ?>>, memref<?x?xf32, strided<[?, ?], offset: ?>>, memref<?x?xf32, strided<[?, ?], offset: ?>>) -> i32 attributes {llvm.emit_c_interface, telar.runtime_status}
// Without telar-add-runtime-context first there is no context to pass.
// NOCTX: error: a runtime call needs the enclosing function's runtime context (run telar-add-runtime-context first)
func.func @matmul(%a: memref<64x64xf32>, %b: memref<64x32xf32>, %c: memref<64x32xf32>) {
  linalg.matmul ins(%a, %b : memref<64x64xf32>, memref<64x32xf32>) outs(%c : memref<64x32xf32>)
  return
}

// -----

// CHECK-LABEL: func.func @batch_matmul
// CHECK: call @telarrt_batch_matmul_f32(%{{.+}}, %{{.+}}, %{{.+}}, %{{.+}}) : (!llvm.ptr, memref<?x?x?xf32, strided<[?, ?, ?], offset: ?>>,
func.func @batch_matmul(%a: memref<8x16x32xf32>, %b: memref<8x32x16xf32>, %c: memref<8x16x16xf32>) {
  linalg.batch_matmul ins(%a, %b : memref<8x16x32xf32>, memref<8x32x16xf32>) outs(%c : memref<8x16x16xf32>)
  return
}

// -----

// Strides, then dilations, as i64 arguments.
// CHECK-LABEL: func.func @conv
// CHECK-DAG: %[[S0:.+]] = arith.constant 2 : i64
// CHECK-DAG: %[[S1:.+]] = arith.constant 1 : i64
// CHECK-DAG: %[[D0:.+]] = arith.constant 3 : i64
// CHECK-DAG: %[[D1:.+]] = arith.constant 1 : i64
// CHECK: call @telarrt_conv2d_nchw_f32(%arg0, %{{.+}}, %{{.+}}, %{{.+}}, %[[S0]], %[[S1]], %[[D0]], %[[D1]])
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
