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

// Strides, then dilations, pad_top, pad_left (0: nothing to pad) and the
// flags (ACCUMULATE = 1) as i64 arguments.
// CHECK-LABEL: func.func @conv
// (The constants are named after their values.)
// CHECK: call @telarrt_conv2d_nchw_f32(%arg0, %{{[^,]+}}, %{{[^,]+}}, %{{[^,]+}}, %c2_i64{{[_0-9]*}}, %c1_i64{{[_0-9]*}}, %c3_i64{{[_0-9]*}}, %c1_i64{{[_0-9]*}}, %c0_i64{{[_0-9]*}}, %c0_i64{{[_0-9]*}}, %c1_i64{{[_0-9]*}})
// CHECK: func.func private @telarrt_conv2d_nchw_f32(!llvm.ptr, memref<?x?x?x?xf32, strided<[?, ?, ?, ?], offset: ?>>, memref<?x?x?x?xf32, strided<[?, ?, ?, ?], offset: ?>>, memref<?x?x?x?xf32, strided<[?, ?, ?, ?], offset: ?>>, i64, i64, i64, i64, i64, i64, i64) -> i32
func.func @conv(%x: memref<1x8x20x18xf32>, %w: memref<16x8x3x3xf32>, %y: memref<1x16x7x16xf32>) {
  linalg.conv_2d_nchw_fchw {strides = dense<[2, 1]> : tensor<2xi64>, dilations = dense<[3, 1]> : tensor<2xi64>}
    ins(%x, %w : memref<1x8x20x18xf32>, memref<16x8x3x3xf32>) outs(%y : memref<1x16x7x16xf32>)
  return
}

// -----

// Implicit padding: what bufferization leaves of a tensor.pad with 0 (an
// alloc zero-filled by a linalg.map, the source copied into its interior)
// goes; the kernel reads the source with pad_top 3 and pad_left 3.
// CHECK-LABEL: func.func @conv_padded
// CHECK-SAME: %[[X:[^:]+]]: memref<1x3x16x16xf32>
// CHECK-NOT: memref.alloc
// CHECK-NOT: memref.copy
// CHECK: %[[CX:.+]] = memref.cast %[[X]] : memref<1x3x16x16xf32> to memref<?x?x?x?xf32
// CHECK: call @telarrt_conv2d_nchw_f32(%arg0, %[[CX]], %{{[^,]+}}, %{{[^,]+}}, %c2_i64{{[_0-9]*}}, %c2_i64{{[_0-9]*}}, %c1_i64{{[_0-9]*}}, %c1_i64{{[_0-9]*}}, %c3_i64{{[_0-9]*}}, %c3_i64{{[_0-9]*}}, %c1_i64{{[_0-9]*}})
// CHECK-NOT: linalg.map
// CHECK: return
func.func @conv_padded(%x: memref<1x3x16x16xf32>, %w: memref<8x3x7x7xf32>, %y: memref<1x8x8x8xf32>) {
  %cst = arith.constant 0.000000e+00 : f32
  %p = memref.alloc() {alignment = 64 : i64} : memref<1x3x22x22xf32>
  linalg.map outs(%p : memref<1x3x22x22xf32>)
    (%init: f32) {
      %0 = linalg.index 0 : index
      %1 = linalg.index 3 : index
      linalg.yield %cst : f32
    }
  %sub = memref.subview %p[0, 0, 3, 3] [1, 3, 16, 16] [1, 1, 1, 1] : memref<1x3x22x22xf32> to memref<1x3x16x16xf32, strided<[1452, 484, 22, 1], offset: 69>>
  memref.copy %x, %sub : memref<1x3x16x16xf32> to memref<1x3x16x16xf32, strided<[1452, 484, 22, 1], offset: 69>>
  linalg.conv_2d_nchw_fchw {strides = dense<2> : tensor<2xi64>, dilations = dense<1> : tensor<2xi64>}
    ins(%p, %w : memref<1x3x22x22xf32>, memref<8x3x7x7xf32>) outs(%y : memref<1x8x8x8xf32>)
  return
}

// -----

// A linalg.fill of 0 too; asymmetric pads (top 2, left 0; the bottom and
// right ones follow from the output size); two convolutions read the
// padded buffer, both read the source, and the padded copy goes.
// CHECK-LABEL: func.func @conv_padded_fill
// CHECK-SAME: %[[X:[^:]+]]: memref<1x4x10x10xf32>
// CHECK-NOT: memref.alloc() : memref<1x4x13x11xf32>
// CHECK: %[[CX:.+]] = memref.cast %[[X]] : memref<1x4x10x10xf32> to memref<?x?x?x?xf32
// CHECK: call @telarrt_conv2d_nchw_f32(%arg0, %[[CX]], %{{[^,]+}}, %{{[^,]+}}, %c1_i64{{[_0-9]*}}, %c1_i64{{[_0-9]*}}, %c1_i64{{[_0-9]*}}, %c1_i64{{[_0-9]*}}, %c2_i64{{[_0-9]*}}, %c0_i64{{[_0-9]*}}, %c1_i64{{[_0-9]*}})
// CHECK: %[[CX2:.+]] = memref.cast %[[X]] : memref<1x4x10x10xf32> to memref<?x?x?x?xf32
// CHECK: call @telarrt_conv2d_nchw_f32(%arg0, %[[CX2]], %{{[^,]+}}, %{{[^,]+}}, %c1_i64{{[_0-9]*}}, %c1_i64{{[_0-9]*}}, %c1_i64{{[_0-9]*}}, %c1_i64{{[_0-9]*}}, %c2_i64{{[_0-9]*}}, %c0_i64{{[_0-9]*}}, %c1_i64{{[_0-9]*}})
// CHECK-NOT: memref.copy %arg1
// CHECK-NOT: linalg.fill
// CHECK: return
func.func @conv_padded_fill(%x: memref<1x4x10x10xf32>, %w: memref<8x4x3x3xf32>, %y: memref<1x8x11x9xf32>, %z: memref<1x8x11x9xf32>) {
  %cst = arith.constant 0.000000e+00 : f32
  %p = memref.alloc() : memref<1x4x13x11xf32>
  linalg.fill ins(%cst : f32) outs(%p : memref<1x4x13x11xf32>)
  %sub = memref.subview %p[0, 0, 2, 0] [1, 4, 10, 10] [1, 1, 1, 1] : memref<1x4x13x11xf32> to memref<1x4x10x10xf32, strided<[572, 143, 11, 1], offset: 22>>
  memref.copy %x, %sub : memref<1x4x10x10xf32> to memref<1x4x10x10xf32, strided<[572, 143, 11, 1], offset: 22>>
  // (Local outputs: a function argument might share the source's memory.)
  %a = memref.alloc() : memref<1x8x11x9xf32>
  %b = memref.alloc() : memref<1x8x11x9xf32>
  linalg.conv_2d_nchw_fchw {strides = dense<1> : tensor<2xi64>, dilations = dense<1> : tensor<2xi64>}
    ins(%p, %w : memref<1x4x13x11xf32>, memref<8x4x3x3xf32>) outs(%a : memref<1x8x11x9xf32>)
  linalg.conv_2d_nchw_fchw {strides = dense<1> : tensor<2xi64>, dilations = dense<1> : tensor<2xi64>}
    ins(%p, %w : memref<1x4x13x11xf32>, memref<8x4x3x3xf32>) outs(%b : memref<1x8x11x9xf32>)
  memref.copy %a, %y : memref<1x8x11x9xf32> to memref<1x8x11x9xf32>
  memref.copy %b, %z : memref<1x8x11x9xf32> to memref<1x8x11x9xf32>
  return
}

// -----

// Padding kept: a pad value other than 0 (@pad_value), the source written
// between the copy and the conv (@source_written), the padded buffer read
// by something else (@padded_read), a pad as wide as the kernel's span
// (@pad_too_wide).
// CHECK-LABEL: func.func @pad_value
// CHECK: memref.copy
// CHECK: call @telarrt_conv2d_nchw_f32({{.*}}, %c0_i64{{[_0-9]*}}, %c0_i64{{[_0-9]*}}, %c1_i64{{[_0-9]*}})
func.func @pad_value(%x: memref<1x4x10x10xf32>, %w: memref<8x4x3x3xf32>, %y: memref<1x8x10x10xf32>) {
  %cst = arith.constant 1.000000e+00 : f32
  %p = memref.alloc() : memref<1x4x12x12xf32>
  linalg.fill ins(%cst : f32) outs(%p : memref<1x4x12x12xf32>)
  %sub = memref.subview %p[0, 0, 1, 1] [1, 4, 10, 10] [1, 1, 1, 1] : memref<1x4x12x12xf32> to memref<1x4x10x10xf32, strided<[576, 144, 12, 1], offset: 13>>
  memref.copy %x, %sub : memref<1x4x10x10xf32> to memref<1x4x10x10xf32, strided<[576, 144, 12, 1], offset: 13>>
  linalg.conv_2d_nchw_fchw {strides = dense<1> : tensor<2xi64>, dilations = dense<1> : tensor<2xi64>}
    ins(%p, %w : memref<1x4x12x12xf32>, memref<8x4x3x3xf32>) outs(%y : memref<1x8x10x10xf32>)
  return
}

// CHECK-LABEL: func.func @source_written
// CHECK: memref.copy
// CHECK: linalg.fill
// CHECK: call @telarrt_conv2d_nchw_f32({{.*}}, %c0_i64{{[_0-9]*}}, %c0_i64{{[_0-9]*}}, %c1_i64{{[_0-9]*}})
func.func @source_written(%w: memref<8x4x3x3xf32>, %y: memref<1x8x10x10xf32>) {
  %cst = arith.constant 0.000000e+00 : f32
  %one = arith.constant 1.000000e+00 : f32
  %x = memref.alloc() : memref<1x4x10x10xf32>
  linalg.fill ins(%one : f32) outs(%x : memref<1x4x10x10xf32>)
  %p = memref.alloc() : memref<1x4x12x12xf32>
  linalg.fill ins(%cst : f32) outs(%p : memref<1x4x12x12xf32>)
  %sub = memref.subview %p[0, 0, 1, 1] [1, 4, 10, 10] [1, 1, 1, 1] : memref<1x4x12x12xf32> to memref<1x4x10x10xf32, strided<[576, 144, 12, 1], offset: 13>>
  memref.copy %x, %sub : memref<1x4x10x10xf32> to memref<1x4x10x10xf32, strided<[576, 144, 12, 1], offset: 13>>
  linalg.fill ins(%cst : f32) outs(%x : memref<1x4x10x10xf32>)
  linalg.conv_2d_nchw_fchw {strides = dense<1> : tensor<2xi64>, dilations = dense<1> : tensor<2xi64>}
    ins(%p, %w : memref<1x4x12x12xf32>, memref<8x4x3x3xf32>) outs(%y : memref<1x8x10x10xf32>)
  return
}

// CHECK-LABEL: func.func @padded_read
// CHECK: memref.copy
// CHECK: call @telarrt_conv2d_nchw_f32({{.*}}, %c0_i64{{[_0-9]*}}, %c0_i64{{[_0-9]*}}, %c1_i64{{[_0-9]*}})
// CHECK: memref.copy %{{.+}}, %arg4
func.func @padded_read(%x: memref<1x4x10x10xf32>, %w: memref<8x4x3x3xf32>, %y: memref<1x8x10x10xf32>, %q: memref<1x4x12x12xf32>) {
  %cst = arith.constant 0.000000e+00 : f32
  %p = memref.alloc() : memref<1x4x12x12xf32>
  linalg.fill ins(%cst : f32) outs(%p : memref<1x4x12x12xf32>)
  %sub = memref.subview %p[0, 0, 1, 1] [1, 4, 10, 10] [1, 1, 1, 1] : memref<1x4x12x12xf32> to memref<1x4x10x10xf32, strided<[576, 144, 12, 1], offset: 13>>
  memref.copy %x, %sub : memref<1x4x10x10xf32> to memref<1x4x10x10xf32, strided<[576, 144, 12, 1], offset: 13>>
  linalg.conv_2d_nchw_fchw {strides = dense<1> : tensor<2xi64>, dilations = dense<1> : tensor<2xi64>}
    ins(%p, %w : memref<1x4x12x12xf32>, memref<8x4x3x3xf32>) outs(%y : memref<1x8x10x10xf32>)
  memref.copy %p, %q : memref<1x4x12x12xf32> to memref<1x4x12x12xf32>
  return
}

// CHECK-LABEL: func.func @pad_too_wide
// CHECK: memref.copy
// CHECK: call @telarrt_conv2d_nchw_f32({{.*}}, %c0_i64{{[_0-9]*}}, %c0_i64{{[_0-9]*}}, %c1_i64{{[_0-9]*}})
func.func @pad_too_wide(%x: memref<1x4x10x10xf32>, %w: memref<8x4x1x1xf32>, %y: memref<1x8x12x12xf32>) {
  %cst = arith.constant 0.000000e+00 : f32
  %p = memref.alloc() : memref<1x4x12x12xf32>
  linalg.fill ins(%cst : f32) outs(%p : memref<1x4x12x12xf32>)
  %sub = memref.subview %p[0, 0, 1, 1] [1, 4, 10, 10] [1, 1, 1, 1] : memref<1x4x12x12xf32> to memref<1x4x10x10xf32, strided<[576, 144, 12, 1], offset: 13>>
  memref.copy %x, %sub : memref<1x4x10x10xf32> to memref<1x4x10x10xf32, strided<[576, 144, 12, 1], offset: 13>>
  linalg.conv_2d_nchw_fchw {strides = dense<1> : tensor<2xi64>, dilations = dense<1> : tensor<2xi64>}
    ins(%p, %w : memref<1x4x12x12xf32>, memref<8x4x1x1xf32>) outs(%y : memref<1x8x12x12xf32>)
  return
}

// -----

#id = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#bcast = affine_map<(d0, d1, d2, d3) -> (0, d1, d2, d3)>

// The ReLU epilogue: max(out, 0), the only reader of the conv's output
// (a local buffer), into a fresh buffer that the later ops then read as
// the conv's output; flags ACCUMULATE | RELU = 3. (The input map indexes
// the batch dimension of size 1 with 0, as the elementwise lowering
// writes it.)
// CHECK-LABEL: func.func @conv_relu
// CHECK: %[[OUT:.+]] = memref.alloc() : memref<1x8x8x8xf32>
// CHECK: linalg.fill ins(%{{.+}} : f32) outs(%[[OUT]] : memref<1x8x8x8xf32>)
// CHECK: call @telarrt_conv2d_nchw_f32(%arg0, %{{[^,]+}}, %{{[^,]+}}, %[[COUT:[^,]+]], %c1_i64{{[_0-9]*}}, %c1_i64{{[_0-9]*}}, %c1_i64{{[_0-9]*}}, %c1_i64{{[_0-9]*}}, %c0_i64{{[_0-9]*}}, %c0_i64{{[_0-9]*}}, %c3_i64{{[_0-9]*}})
// CHECK-NOT: linalg.generic
// CHECK-NOT: memref.alloc
// CHECK: memref.copy %[[OUT]], %arg3
func.func @conv_relu(%x: memref<1x4x10x10xf32>, %w: memref<8x4x3x3xf32>, %y: memref<1x8x8x8xf32>) {
  %cst = arith.constant 0.000000e+00 : f32
  %bias = arith.constant 5.000000e-01 : f32
  %out = memref.alloc() : memref<1x8x8x8xf32>
  linalg.fill ins(%bias : f32) outs(%out : memref<1x8x8x8xf32>)
  linalg.conv_2d_nchw_fchw {strides = dense<1> : tensor<2xi64>, dilations = dense<1> : tensor<2xi64>}
    ins(%x, %w : memref<1x4x10x10xf32>, memref<8x4x3x3xf32>) outs(%out : memref<1x8x8x8xf32>)
  %r = memref.alloc() : memref<1x8x8x8xf32>
  linalg.generic {indexing_maps = [#bcast, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
    ins(%out : memref<1x8x8x8xf32>) outs(%r : memref<1x8x8x8xf32>) {
  ^bb0(%in: f32, %o: f32):
    %m = arith.maximumf %cst, %in : f32
    linalg.yield %m : f32
  }
  memref.copy %r, %y : memref<1x8x8x8xf32> to memref<1x8x8x8xf32>
  return
}

// -----

#id = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>

// In place (the ReLU writes the conv's output itself); implicit padding and
// the epilogue together. The output was zero-filled: the call overwrites it
// (flags RELU = 2, no ACCUMULATE), as in the cases below.
// CHECK-LABEL: func.func @conv_relu_in_place
// CHECK: call @telarrt_conv2d_nchw_f32(%arg0, %{{[^,]+}}, %{{[^,]+}}, %{{[^,]+}}, %c1_i64{{[_0-9]*}}, %c1_i64{{[_0-9]*}}, %c1_i64{{[_0-9]*}}, %c1_i64{{[_0-9]*}}, %c1_i64{{[_0-9]*}}, %c1_i64{{[_0-9]*}}, %c2_i64{{[_0-9]*}})
// CHECK-NOT: linalg.generic
// CHECK: memref.copy
func.func @conv_relu_in_place(%x: memref<1x4x8x8xf32>, %w: memref<8x4x3x3xf32>, %y: memref<1x8x8x8xf32>) {
  %cst = arith.constant 0.000000e+00 : f32
  %p = memref.alloc() : memref<1x4x10x10xf32>
  linalg.fill ins(%cst : f32) outs(%p : memref<1x4x10x10xf32>)
  %sub = memref.subview %p[0, 0, 1, 1] [1, 4, 8, 8] [1, 1, 1, 1] : memref<1x4x10x10xf32> to memref<1x4x8x8xf32, strided<[400, 100, 10, 1], offset: 11>>
  memref.copy %x, %sub : memref<1x4x8x8xf32> to memref<1x4x8x8xf32, strided<[400, 100, 10, 1], offset: 11>>
  %out = memref.alloc() : memref<1x8x8x8xf32>
  linalg.fill ins(%cst : f32) outs(%out : memref<1x8x8x8xf32>)
  linalg.conv_2d_nchw_fchw {strides = dense<1> : tensor<2xi64>, dilations = dense<1> : tensor<2xi64>}
    ins(%p, %w : memref<1x4x10x10xf32>, memref<8x4x3x3xf32>) outs(%out : memref<1x8x8x8xf32>)
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
    ins(%out : memref<1x8x8x8xf32>) outs(%out : memref<1x8x8x8xf32>) {
  ^bb0(%in: f32, %o: f32):
    %m = arith.maximumf %in, %cst : f32
    linalg.yield %m : f32
  }
  memref.copy %out, %y : memref<1x8x8x8xf32> to memref<1x8x8x8xf32>
  return
}

// -----

#id = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>

// No epilogue: the output read again after the ReLU (@out_read_again), a
// maxnumf (0 for NaN, unlike the kernel; @maxnum), more than a ReLU
// (@relu_plus), the conv writing a function argument (@out_argument); each
// with a local buffer for the ReLU's result, which could become the conv's.
// CHECK-LABEL: func.func @out_read_again
// CHECK: call @telarrt_conv2d_nchw_f32({{.*}}, %c0_i64{{[_0-9]*}}, %c0_i64{{[_0-9]*}}, %c0_i64{{[_0-9]*}})
// CHECK: linalg.generic
func.func @out_read_again(%x: memref<1x4x10x10xf32>, %w: memref<8x4x3x3xf32>, %y: memref<1x8x8x8xf32>, %z: memref<1x8x8x8xf32>) {
  %cst = arith.constant 0.000000e+00 : f32
  %out = memref.alloc() : memref<1x8x8x8xf32>
  linalg.fill ins(%cst : f32) outs(%out : memref<1x8x8x8xf32>)
  linalg.conv_2d_nchw_fchw {strides = dense<1> : tensor<2xi64>, dilations = dense<1> : tensor<2xi64>}
    ins(%x, %w : memref<1x4x10x10xf32>, memref<8x4x3x3xf32>) outs(%out : memref<1x8x8x8xf32>)
  %r = memref.alloc() : memref<1x8x8x8xf32>
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
    ins(%out : memref<1x8x8x8xf32>) outs(%r : memref<1x8x8x8xf32>) {
  ^bb0(%in: f32, %o: f32):
    %m = arith.maximumf %in, %cst : f32
    linalg.yield %m : f32
  }
  memref.copy %r, %y : memref<1x8x8x8xf32> to memref<1x8x8x8xf32>
  memref.copy %out, %z : memref<1x8x8x8xf32> to memref<1x8x8x8xf32>
  return
}

// CHECK-LABEL: func.func @maxnum
// CHECK: call @telarrt_conv2d_nchw_f32({{.*}}, %c0_i64{{[_0-9]*}}, %c0_i64{{[_0-9]*}}, %c0_i64{{[_0-9]*}})
// CHECK: linalg.generic
func.func @maxnum(%x: memref<1x4x10x10xf32>, %w: memref<8x4x3x3xf32>, %y: memref<1x8x8x8xf32>) {
  %cst = arith.constant 0.000000e+00 : f32
  %out = memref.alloc() : memref<1x8x8x8xf32>
  linalg.fill ins(%cst : f32) outs(%out : memref<1x8x8x8xf32>)
  linalg.conv_2d_nchw_fchw {strides = dense<1> : tensor<2xi64>, dilations = dense<1> : tensor<2xi64>}
    ins(%x, %w : memref<1x4x10x10xf32>, memref<8x4x3x3xf32>) outs(%out : memref<1x8x8x8xf32>)
  %r = memref.alloc() : memref<1x8x8x8xf32>
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
    ins(%out : memref<1x8x8x8xf32>) outs(%r : memref<1x8x8x8xf32>) {
  ^bb0(%in: f32, %o: f32):
    %m = arith.maxnumf %in, %cst : f32
    linalg.yield %m : f32
  }
  memref.copy %r, %y : memref<1x8x8x8xf32> to memref<1x8x8x8xf32>
  return
}

// CHECK-LABEL: func.func @relu_plus
// CHECK: call @telarrt_conv2d_nchw_f32({{.*}}, %c0_i64{{[_0-9]*}}, %c0_i64{{[_0-9]*}}, %c0_i64{{[_0-9]*}})
// CHECK: linalg.generic
func.func @relu_plus(%x: memref<1x4x10x10xf32>, %w: memref<8x4x3x3xf32>, %y: memref<1x8x8x8xf32>) {
  %cst = arith.constant 0.000000e+00 : f32
  %one = arith.constant 1.000000e+00 : f32
  %out = memref.alloc() : memref<1x8x8x8xf32>
  linalg.fill ins(%cst : f32) outs(%out : memref<1x8x8x8xf32>)
  linalg.conv_2d_nchw_fchw {strides = dense<1> : tensor<2xi64>, dilations = dense<1> : tensor<2xi64>}
    ins(%x, %w : memref<1x4x10x10xf32>, memref<8x4x3x3xf32>) outs(%out : memref<1x8x8x8xf32>)
  %r = memref.alloc() : memref<1x8x8x8xf32>
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
    ins(%out : memref<1x8x8x8xf32>) outs(%r : memref<1x8x8x8xf32>) {
  ^bb0(%in: f32, %o: f32):
    %m = arith.maximumf %in, %cst : f32
    %a = arith.addf %m, %one : f32
    linalg.yield %a : f32
  }
  memref.copy %r, %y : memref<1x8x8x8xf32> to memref<1x8x8x8xf32>
  return
}

// CHECK-LABEL: func.func @out_argument
// CHECK: call @telarrt_conv2d_nchw_f32({{.*}}, %c0_i64{{[_0-9]*}}, %c0_i64{{[_0-9]*}}, %c1_i64{{[_0-9]*}})
// CHECK: linalg.generic
func.func @out_argument(%x: memref<1x4x10x10xf32>, %w: memref<8x4x3x3xf32>, %out: memref<1x8x8x8xf32>, %y: memref<1x8x8x8xf32>) {
  %cst = arith.constant 0.000000e+00 : f32
  linalg.conv_2d_nchw_fchw {strides = dense<1> : tensor<2xi64>, dilations = dense<1> : tensor<2xi64>}
    ins(%x, %w : memref<1x4x10x10xf32>, memref<8x4x3x3xf32>) outs(%out : memref<1x8x8x8xf32>)
  %r = memref.alloc() : memref<1x8x8x8xf32>
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
    ins(%out : memref<1x8x8x8xf32>) outs(%r : memref<1x8x8x8xf32>) {
  ^bb0(%in: f32, %o: f32):
    %m = arith.maximumf %in, %cst : f32
    linalg.yield %m : f32
  }
  memref.copy %r, %y : memref<1x8x8x8xf32> to memref<1x8x8x8xf32>
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

// -----

// A buffer two layers reuse (bufferization shares CSE'd tensor.empty ops):
// each transpose into it feeds one matmul, whose call reads that
// transpose's input instead; the buffer goes with its last use. Not when
// the buffer is read again after the matmul.
// CHECK-LABEL: func.func @reused_transpose_buffer
// CHECK-SAME: %[[K1:[^:]+]]: memref<16x8x16xf32>, %[[K2:[^:]+]]: memref<16x8x16xf32>
// CHECK-NOT: memref.alloc
// CHECK: memref.transpose %[[K1]]
// CHECK: call @telarrt_batch_matmul_f32
// CHECK-NOT: linalg.transpose
// CHECK: memref.transpose %[[K2]]
// CHECK: call @telarrt_batch_matmul_f32
// CHECK: %[[U:.+]] = memref.alloc
// CHECK: linalg.transpose ins(%[[K1]] {{.*}} outs(%[[U]]
// CHECK: call @telarrt_batch_matmul_f32
// CHECK: linalg.copy ins(%[[U]]
func.func @reused_transpose_buffer(%k1: memref<16x8x16xf32>, %k2: memref<16x8x16xf32>, %q: memref<8x16x16xf32>, %c: memref<8x16x16xf32>, %d: memref<8x16x16xf32>) {
  %t = memref.alloc() : memref<8x16x16xf32>
  linalg.transpose ins(%k1 : memref<16x8x16xf32>) outs(%t : memref<8x16x16xf32>) permutation = [1, 2, 0]
  linalg.batch_matmul ins(%q, %t : memref<8x16x16xf32>, memref<8x16x16xf32>) outs(%c : memref<8x16x16xf32>)
  linalg.transpose ins(%k2 : memref<16x8x16xf32>) outs(%t : memref<8x16x16xf32>) permutation = [1, 2, 0]
  linalg.batch_matmul ins(%q, %t : memref<8x16x16xf32>, memref<8x16x16xf32>) outs(%c : memref<8x16x16xf32>)
  // Read again after its matmul.
  %u = memref.alloc() : memref<8x16x16xf32>
  linalg.transpose ins(%k1 : memref<16x8x16xf32>) outs(%u : memref<8x16x16xf32>) permutation = [1, 2, 0]
  linalg.batch_matmul ins(%q, %u : memref<8x16x16xf32>, memref<8x16x16xf32>) outs(%c : memref<8x16x16xf32>)
  linalg.copy ins(%u : memref<8x16x16xf32>) outs(%d : memref<8x16x16xf32>)
  return
}

// -----

// A batch matmul whose result (overwritten: zero-filled before) only a
// transpose copies out, as attention's heads go back to tokens, writes the
// transposed view of the transpose's output (allocated after the matmul:
// the allocation moves up); the copy goes (and its buffer with
// canonicalization). Not when the result is read again after the
// transpose.
// CHECK-LABEL: func.func @transposed_result
// CHECK-SAME: %[[OUT:[^:]+]]: memref<16x8x16xf32>, %[[O2:[^:]+]]: memref<16x8x16xf32>
// CHECK-NOT: linalg.fill
// CHECK: %[[O:.+]] = memref.alloc() : memref<16x8x16xf32>
// CHECK: %[[V:.+]] = memref.transpose %[[O]] (d0, d1, d2) -> (d1, d0, d2) : memref<16x8x16xf32> to memref<8x16x16xf32, strided<[16, 128, 1]>>
// CHECK: %[[C:.+]] = memref.cast %[[V]]
// CHECK: call @telarrt_batch_matmul_f32(%{{[^,]+}}, %{{[^,]+}}, %{{[^,]+}}, %[[C]], %c0_i64
// CHECK-NOT: linalg.transpose
// CHECK: linalg.copy ins(%[[O]] {{.*}} outs(%[[OUT]]
// CHECK: %[[R2:.+]] = memref.alloc() : memref<8x16x16xf32>
// CHECK: call @telarrt_batch_matmul_f32
// CHECK: linalg.transpose ins(%[[R2]] {{.*}} outs(%[[O2]]
// CHECK: linalg.copy ins(%[[R2]]
func.func @transposed_result(%out: memref<16x8x16xf32>, %o2: memref<16x8x16xf32>, %q: memref<8x16x16xf32>, %k: memref<8x16x16xf32>, %d: memref<8x16x16xf32>) {
  %zero = arith.constant 0.0 : f32
  %r = memref.alloc() : memref<8x16x16xf32>
  linalg.fill ins(%zero : f32) outs(%r : memref<8x16x16xf32>)
  linalg.batch_matmul ins(%q, %k : memref<8x16x16xf32>, memref<8x16x16xf32>) outs(%r : memref<8x16x16xf32>)
  %o = memref.alloc() : memref<16x8x16xf32>
  linalg.transpose ins(%r : memref<8x16x16xf32>) outs(%o : memref<16x8x16xf32>) permutation = [1, 0, 2]
  linalg.copy ins(%o : memref<16x8x16xf32>) outs(%out : memref<16x8x16xf32>)
  // Read again after the transpose.
  %r2 = memref.alloc() : memref<8x16x16xf32>
  linalg.fill ins(%zero : f32) outs(%r2 : memref<8x16x16xf32>)
  linalg.batch_matmul ins(%q, %k : memref<8x16x16xf32>, memref<8x16x16xf32>) outs(%r2 : memref<8x16x16xf32>)
  linalg.transpose ins(%r2 : memref<8x16x16xf32>) outs(%o2 : memref<16x8x16xf32>) permutation = [1, 0, 2]
  linalg.copy ins(%r2 : memref<8x16x16xf32>) outs(%d : memref<8x16x16xf32>)
  return
}

// -----

// A conv output just set to its bias (linalg.broadcast along N, H and W,
// or the generic form fusion leaves) goes to telarrt_conv2d_nchw_bias_f32,
// which adds the bias itself: the broadcast goes and the call overwrites
// (flags 0), also through copies of one shared broadcast (whose buffer goes
// with its last copy), and with the ReLU epilogue (flags 2).
// CHECK-LABEL: func.func @conv_bias
// CHECK-NOT: linalg.broadcast
// CHECK-NOT: linalg.generic
// CHECK-NOT: memref.copy
// CHECK: %[[B1:.+]] = memref.cast %arg3 : memref<16xf32> to memref<?xf32, strided<[?], offset: ?>>
// CHECK: call @telarrt_conv2d_nchw_bias_f32(%arg0, %{{[^,]+}}, %{{[^,]+}}, %[[B1]], %{{[^,]+}}, {{.*}}, %c0_i64{{[_0-9]*}}, %c0_i64{{[_0-9]*}}, %c0_i64{{[_0-9]*}}) :
// CHECK: call @telarrt_conv2d_nchw_bias_f32({{.*}}, %c0_i64{{[_0-9]*}}, %c0_i64{{[_0-9]*}}, %c0_i64{{[_0-9]*}}) :
// CHECK: call @telarrt_conv2d_nchw_bias_f32({{.*}}, %c0_i64{{[_0-9]*}}, %c0_i64{{[_0-9]*}}, %c2_i64{{[_0-9]*}}) :
// CHECK-NOT: linalg.generic
// CHECK-NOT: memref.alloc
// CHECK: memref.copy
// CHECK: return
// CHECK: func.func private @telarrt_conv2d_nchw_bias_f32(!llvm.ptr, memref<?x?x?x?xf32, strided<[?, ?, ?, ?], offset: ?>>, memref<?x?x?x?xf32, strided<[?, ?, ?, ?], offset: ?>>, memref<?xf32, strided<[?], offset: ?>>, memref<?x?x?x?xf32, strided<[?, ?, ?, ?], offset: ?>>, i64, i64, i64, i64, i64, i64, i64) -> i32
func.func @conv_bias(%x: memref<1x8x10x10xf32>, %w: memref<16x8x3x3xf32>, %bias: memref<16xf32>,
                     %y: memref<1x16x8x8xf32>, %z: memref<1x16x8x8xf32>, %r: memref<1x16x8x8xf32>) {
  %zero = arith.constant 0.0 : f32
  // Shared through copies.
  %shared = memref.alloc() : memref<1x16x8x8xf32>
  linalg.broadcast ins(%bias : memref<16xf32>) outs(%shared : memref<1x16x8x8xf32>) dimensions = [0, 2, 3]
  memref.copy %shared, %y : memref<1x16x8x8xf32> to memref<1x16x8x8xf32>
  linalg.conv_2d_nchw_fchw {strides = dense<1> : tensor<2xi64>, dilations = dense<1> : tensor<2xi64>}
    ins(%x, %w : memref<1x8x10x10xf32>, memref<16x8x3x3xf32>) outs(%y : memref<1x16x8x8xf32>)
  memref.copy %shared, %z : memref<1x16x8x8xf32> to memref<1x16x8x8xf32>
  linalg.conv_2d_nchw_fchw {strides = dense<1> : tensor<2xi64>, dilations = dense<1> : tensor<2xi64>}
    ins(%x, %w : memref<1x8x10x10xf32>, memref<16x8x3x3xf32>) outs(%z : memref<1x16x8x8xf32>)
  // The generic form, then a ReLU in place.
  %out = memref.alloc() : memref<1x16x8x8xf32>
  linalg.generic {indexing_maps = [affine_map<(n, f, h, w) -> (f)>, affine_map<(n, f, h, w) -> (n, f, h, w)>],
                  iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%bias : memref<16xf32>) outs(%out : memref<1x16x8x8xf32>) {
  ^bb0(%b: f32, %o: f32):
    linalg.yield %b : f32
  }
  linalg.conv_2d_nchw_fchw {strides = dense<1> : tensor<2xi64>, dilations = dense<1> : tensor<2xi64>}
    ins(%x, %w : memref<1x8x10x10xf32>, memref<16x8x3x3xf32>) outs(%out : memref<1x16x8x8xf32>)
  %relu = memref.alloc() : memref<1x16x8x8xf32>
  linalg.generic {indexing_maps = [affine_map<(n, f, h, w) -> (n, f, h, w)>, affine_map<(n, f, h, w) -> (n, f, h, w)>],
                  iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%out : memref<1x16x8x8xf32>) outs(%relu : memref<1x16x8x8xf32>) {
  ^bb0(%o: f32, %d: f32):
    %m = arith.maximumf %o, %zero : f32
    linalg.yield %m : f32
  }
  memref.copy %relu, %r : memref<1x16x8x8xf32> to memref<1x16x8x8xf32>
  return
}

// -----

// The broadcast stays and the conv accumulates onto it (plain kernel,
// flags 1) when: the bias is written between the broadcast and the conv;
// the broadcast is along other dimensions; the output is read in between.
// CHECK-LABEL: func.func @conv_bias_stays
// CHECK: linalg.broadcast
// CHECK: linalg.fill
// CHECK: call @telarrt_conv2d_nchw_f32({{.*}}, %c0_i64{{[_0-9]*}}, %c0_i64{{[_0-9]*}}, %c1_i64{{[_0-9]*}}) :
// CHECK: linalg.broadcast
// CHECK: call @telarrt_conv2d_nchw_f32({{.*}}, %c0_i64{{[_0-9]*}}, %c0_i64{{[_0-9]*}}, %c1_i64{{[_0-9]*}}) :
// CHECK: linalg.broadcast
// CHECK: memref.copy
// CHECK: call @telarrt_conv2d_nchw_f32({{.*}}, %c0_i64{{[_0-9]*}}, %c0_i64{{[_0-9]*}}, %c1_i64{{[_0-9]*}}) :
// CHECK-NOT: bias_f32
func.func @conv_bias_stays(%x: memref<1x8x10x10xf32>, %w: memref<16x8x3x3xf32>, %bias: memref<16xf32>,
                           %rows: memref<8xf32>, %y: memref<1x16x8x8xf32>, %z: memref<1x16x8x8xf32>) {
  %one = arith.constant 1.0 : f32
  // The bias written in between.
  linalg.broadcast ins(%bias : memref<16xf32>) outs(%y : memref<1x16x8x8xf32>) dimensions = [0, 2, 3]
  linalg.fill ins(%one : f32) outs(%bias : memref<16xf32>)
  linalg.conv_2d_nchw_fchw {strides = dense<1> : tensor<2xi64>, dilations = dense<1> : tensor<2xi64>}
    ins(%x, %w : memref<1x8x10x10xf32>, memref<16x8x3x3xf32>) outs(%y : memref<1x16x8x8xf32>)
  // Along the rows, not the filters.
  linalg.broadcast ins(%rows : memref<8xf32>) outs(%y : memref<1x16x8x8xf32>) dimensions = [0, 1, 3]
  linalg.conv_2d_nchw_fchw {strides = dense<1> : tensor<2xi64>, dilations = dense<1> : tensor<2xi64>}
    ins(%x, %w : memref<1x8x10x10xf32>, memref<16x8x3x3xf32>) outs(%y : memref<1x16x8x8xf32>)
  // The output read in between.
  linalg.broadcast ins(%bias : memref<16xf32>) outs(%y : memref<1x16x8x8xf32>) dimensions = [0, 2, 3]
  memref.copy %y, %z : memref<1x16x8x8xf32> to memref<1x16x8x8xf32>
  linalg.conv_2d_nchw_fchw {strides = dense<1> : tensor<2xi64>, dilations = dense<1> : tensor<2xi64>}
    ins(%x, %w : memref<1x8x10x10xf32>, memref<16x8x3x3xf32>) outs(%y : memref<1x16x8x8xf32>)
  return
}

// -----

#id = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>

// The ReLU's buffer used before (bufferization gives the ReLUs of several
// convs one buffer): the ReLU still folds (flags 2), its readers from then
// on read the conv's output, and the earlier reader keeps the buffer.
// CHECK-LABEL: func.func @conv_relu_reused_buffer
// CHECK: %[[R:.+]] = memref.alloc() : memref<1x8x8x8xf32>
// CHECK: memref.copy %arg4, %[[R]]
// CHECK: memref.copy %[[R]], %arg5
// CHECK: %[[OUT:.+]] = memref.alloc() : memref<1x8x8x8xf32>
// CHECK: %[[COUT:.+]] = memref.cast %[[OUT]]
// CHECK: call @telarrt_conv2d_nchw_f32(%arg0, %{{[^,]+}}, %{{[^,]+}}, %[[COUT]], {{.*}}, %c2_i64{{[_0-9]*}})
// CHECK-NOT: linalg.generic
// CHECK: memref.copy %[[OUT]], %arg3
func.func @conv_relu_reused_buffer(%x: memref<1x4x10x10xf32>, %w: memref<8x4x3x3xf32>, %y: memref<1x8x8x8xf32>,
                                   %a: memref<1x8x8x8xf32>, %b: memref<1x8x8x8xf32>) {
  %cst = arith.constant 0.000000e+00 : f32
  %r = memref.alloc() : memref<1x8x8x8xf32>
  memref.copy %a, %r : memref<1x8x8x8xf32> to memref<1x8x8x8xf32>
  memref.copy %r, %b : memref<1x8x8x8xf32> to memref<1x8x8x8xf32>
  %out = memref.alloc() : memref<1x8x8x8xf32>
  linalg.fill ins(%cst : f32) outs(%out : memref<1x8x8x8xf32>)
  linalg.conv_2d_nchw_fchw {strides = dense<1> : tensor<2xi64>, dilations = dense<1> : tensor<2xi64>}
    ins(%x, %w : memref<1x4x10x10xf32>, memref<8x4x3x3xf32>) outs(%out : memref<1x8x8x8xf32>)
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
    ins(%out : memref<1x8x8x8xf32>) outs(%r : memref<1x8x8x8xf32>) {
  ^bb0(%in: f32, %o: f32):
    %m = arith.maximumf %in, %cst : f32
    linalg.yield %m : f32
  }
  memref.copy %r, %y : memref<1x8x8x8xf32> to memref<1x8x8x8xf32>
  return
}

// -----

#id = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#bcast = affine_map<(d0, d1, d2, d3) -> (0, d1, d2, d3)>

// A residual connection: the conv (which overwrote its output, with its
// bias) accumulates into the other addend's buffer instead, the ReLU after
// the sum as its epilogue (flags ACCUMULATE | RELU = 3); without a ReLU,
// either order of the addends (flags 1, then 0 + the bias). The sum and
// the conv's own output go; the sum's readers read the addend's buffer.
// CHECK-LABEL: func.func @conv_residual
// CHECK: %[[S:.+]] = memref.alloc() : memref<1x8x8x8xf32>
// CHECK: memref.copy %arg4, %[[S]]
// CHECK: %[[CS:.+]] = memref.cast %[[S]]
// CHECK: call @telarrt_conv2d_nchw_bias_f32(%arg0, %{{[^,]+}}, %{{[^,]+}}, %{{[^,]+}}, %[[CS]], {{.*}}, %c3_i64{{[_0-9]*}})
// CHECK-NOT: linalg.generic
// CHECK: memref.copy %[[S]], %arg5
// CHECK: %[[T:.+]] = memref.alloc() : memref<1x8x8x8xf32>
// CHECK: memref.copy %arg4, %[[T]]
// CHECK: %[[CT:.+]] = memref.cast %[[T]]
// CHECK: call @telarrt_conv2d_nchw_f32(%arg0, %{{[^,]+}}, %{{[^,]+}}, %[[CT]], {{.*}}, %c1_i64{{[_0-9]*}})
// CHECK-NOT: linalg.generic
// CHECK-NOT: memref.alloc
// CHECK: memref.copy %[[T]], %arg6
// CHECK: return
func.func @conv_residual(%x: memref<1x4x10x10xf32>, %w: memref<8x4x3x3xf32>, %bias: memref<8xf32>,
                         %skip: memref<1x8x8x8xf32>, %y: memref<1x8x8x8xf32>, %z: memref<1x8x8x8xf32>) {
  %cst = arith.constant 0.000000e+00 : f32
  %s = memref.alloc() : memref<1x8x8x8xf32>
  memref.copy %skip, %s : memref<1x8x8x8xf32> to memref<1x8x8x8xf32>
  %out = memref.alloc() : memref<1x8x8x8xf32>
  linalg.broadcast ins(%bias : memref<8xf32>) outs(%out : memref<1x8x8x8xf32>) dimensions = [0, 2, 3]
  linalg.conv_2d_nchw_fchw {strides = dense<1> : tensor<2xi64>, dilations = dense<1> : tensor<2xi64>}
    ins(%x, %w : memref<1x4x10x10xf32>, memref<8x4x3x3xf32>) outs(%out : memref<1x8x8x8xf32>)
  %sum = memref.alloc() : memref<1x8x8x8xf32>
  linalg.generic {indexing_maps = [#bcast, #bcast, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
    ins(%out, %s : memref<1x8x8x8xf32>, memref<1x8x8x8xf32>) outs(%sum : memref<1x8x8x8xf32>) {
  ^bb0(%in: f32, %in2: f32, %o: f32):
    %a = arith.addf %in, %in2 : f32
    %m = arith.maximumf %a, %cst : f32
    linalg.yield %m : f32
  }
  memref.copy %sum, %y : memref<1x8x8x8xf32> to memref<1x8x8x8xf32>
  // No ReLU; the addends the other way round; the sum in place.
  %t = memref.alloc() : memref<1x8x8x8xf32>
  memref.copy %skip, %t : memref<1x8x8x8xf32> to memref<1x8x8x8xf32>
  %out2 = memref.alloc() : memref<1x8x8x8xf32>
  linalg.fill ins(%cst : f32) outs(%out2 : memref<1x8x8x8xf32>)
  linalg.conv_2d_nchw_fchw {strides = dense<1> : tensor<2xi64>, dilations = dense<1> : tensor<2xi64>}
    ins(%x, %w : memref<1x4x10x10xf32>, memref<8x4x3x3xf32>) outs(%out2 : memref<1x8x8x8xf32>)
  linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
    ins(%t, %out2 : memref<1x8x8x8xf32>, memref<1x8x8x8xf32>) outs(%out2 : memref<1x8x8x8xf32>) {
  ^bb0(%in: f32, %in2: f32, %o: f32):
    %a = arith.addf %in2, %in : f32
    linalg.yield %a : f32
  }
  memref.copy %out2, %z : memref<1x8x8x8xf32> to memref<1x8x8x8xf32>
  return
}

// -----

#id = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>

// The sum stays when: the other addend is read after it
// (@residual_addend_read_after); the conv reads the addend
// (@residual_conv_reads_addend); the conv accumulates onto what its output
// held (@residual_accumulating); the addend is a function argument
// (@residual_argument).
// CHECK-LABEL: func.func @residual_addend_read_after
// CHECK: call @telarrt_conv2d_nchw_f32({{.*}}, %c0_i64{{[_0-9]*}})
// CHECK: linalg.generic
func.func @residual_addend_read_after(%x: memref<1x4x10x10xf32>, %w: memref<8x4x3x3xf32>, %skip: memref<1x8x8x8xf32>,
                                      %y: memref<1x8x8x8xf32>, %z: memref<1x8x8x8xf32>) {
  %cst = arith.constant 0.000000e+00 : f32
  %s = memref.alloc() : memref<1x8x8x8xf32>
  memref.copy %skip, %s : memref<1x8x8x8xf32> to memref<1x8x8x8xf32>
  %out = memref.alloc() : memref<1x8x8x8xf32>
  linalg.fill ins(%cst : f32) outs(%out : memref<1x8x8x8xf32>)
  linalg.conv_2d_nchw_fchw {strides = dense<1> : tensor<2xi64>, dilations = dense<1> : tensor<2xi64>}
    ins(%x, %w : memref<1x4x10x10xf32>, memref<8x4x3x3xf32>) outs(%out : memref<1x8x8x8xf32>)
  %sum = memref.alloc() : memref<1x8x8x8xf32>
  linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
    ins(%out, %s : memref<1x8x8x8xf32>, memref<1x8x8x8xf32>) outs(%sum : memref<1x8x8x8xf32>) {
  ^bb0(%in: f32, %in2: f32, %o: f32):
    %a = arith.addf %in, %in2 : f32
    linalg.yield %a : f32
  }
  memref.copy %sum, %y : memref<1x8x8x8xf32> to memref<1x8x8x8xf32>
  memref.copy %s, %z : memref<1x8x8x8xf32> to memref<1x8x8x8xf32>
  return
}

// CHECK-LABEL: func.func @residual_conv_reads_addend
// CHECK: call @telarrt_conv2d_nchw_f32({{.*}}, %c0_i64{{[_0-9]*}})
// CHECK: linalg.generic
func.func @residual_conv_reads_addend(%x: memref<1x8x8x8xf32>, %w: memref<8x8x1x1xf32>, %y: memref<1x8x8x8xf32>) {
  %cst = arith.constant 0.000000e+00 : f32
  %s = memref.alloc() : memref<1x8x8x8xf32>
  memref.copy %x, %s : memref<1x8x8x8xf32> to memref<1x8x8x8xf32>
  %out = memref.alloc() : memref<1x8x8x8xf32>
  linalg.fill ins(%cst : f32) outs(%out : memref<1x8x8x8xf32>)
  linalg.conv_2d_nchw_fchw {strides = dense<1> : tensor<2xi64>, dilations = dense<1> : tensor<2xi64>}
    ins(%s, %w : memref<1x8x8x8xf32>, memref<8x8x1x1xf32>) outs(%out : memref<1x8x8x8xf32>)
  %sum = memref.alloc() : memref<1x8x8x8xf32>
  linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
    ins(%out, %s : memref<1x8x8x8xf32>, memref<1x8x8x8xf32>) outs(%sum : memref<1x8x8x8xf32>) {
  ^bb0(%in: f32, %in2: f32, %o: f32):
    %a = arith.addf %in, %in2 : f32
    linalg.yield %a : f32
  }
  memref.copy %sum, %y : memref<1x8x8x8xf32> to memref<1x8x8x8xf32>
  return
}

// CHECK-LABEL: func.func @residual_accumulating
// CHECK: call @telarrt_conv2d_nchw_f32({{.*}}, %c1_i64{{[_0-9]*}})
// CHECK: linalg.generic
func.func @residual_accumulating(%x: memref<1x4x10x10xf32>, %w: memref<8x4x3x3xf32>, %skip: memref<1x8x8x8xf32>,
                                 %init: memref<1x8x8x8xf32>, %y: memref<1x8x8x8xf32>) {
  %s = memref.alloc() : memref<1x8x8x8xf32>
  memref.copy %skip, %s : memref<1x8x8x8xf32> to memref<1x8x8x8xf32>
  %out = memref.alloc() : memref<1x8x8x8xf32>
  memref.copy %init, %out : memref<1x8x8x8xf32> to memref<1x8x8x8xf32>
  linalg.conv_2d_nchw_fchw {strides = dense<1> : tensor<2xi64>, dilations = dense<1> : tensor<2xi64>}
    ins(%x, %w : memref<1x4x10x10xf32>, memref<8x4x3x3xf32>) outs(%out : memref<1x8x8x8xf32>)
  %sum = memref.alloc() : memref<1x8x8x8xf32>
  linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
    ins(%out, %s : memref<1x8x8x8xf32>, memref<1x8x8x8xf32>) outs(%sum : memref<1x8x8x8xf32>) {
  ^bb0(%in: f32, %in2: f32, %o: f32):
    %a = arith.addf %in, %in2 : f32
    linalg.yield %a : f32
  }
  memref.copy %sum, %y : memref<1x8x8x8xf32> to memref<1x8x8x8xf32>
  return
}

// CHECK-LABEL: func.func @residual_argument
// CHECK: call @telarrt_conv2d_nchw_f32({{.*}}, %c0_i64{{[_0-9]*}})
// CHECK: linalg.generic
func.func @residual_argument(%x: memref<1x4x10x10xf32>, %w: memref<8x4x3x3xf32>, %skip: memref<1x8x8x8xf32>,
                             %y: memref<1x8x8x8xf32>) {
  %cst = arith.constant 0.000000e+00 : f32
  %out = memref.alloc() : memref<1x8x8x8xf32>
  linalg.fill ins(%cst : f32) outs(%out : memref<1x8x8x8xf32>)
  linalg.conv_2d_nchw_fchw {strides = dense<1> : tensor<2xi64>, dilations = dense<1> : tensor<2xi64>}
    ins(%x, %w : memref<1x4x10x10xf32>, memref<8x4x3x3xf32>) outs(%out : memref<1x8x8x8xf32>)
  %sum = memref.alloc() : memref<1x8x8x8xf32>
  linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
    ins(%out, %skip : memref<1x8x8x8xf32>, memref<1x8x8x8xf32>) outs(%sum : memref<1x8x8x8xf32>) {
  ^bb0(%in: f32, %in2: f32, %o: f32):
    %a = arith.addf %in, %in2 : f32
    linalg.yield %a : f32
  }
  memref.copy %sum, %y : memref<1x8x8x8xf32> to memref<1x8x8x8xf32>
  return
}

// -----

// A bias from a constant global (never written) folds like an argument's.
// CHECK-LABEL: func.func @conv_bias_global
// CHECK-NOT: linalg.broadcast
// CHECK: %[[G:.+]] = memref.get_global @bias
// CHECK: %[[CG:.+]] = memref.cast %[[G]]
// CHECK: call @telarrt_conv2d_nchw_bias_f32(%arg0, %{{[^,]+}}, %{{[^,]+}}, %[[CG]], {{.*}}, %c0_i64{{[_0-9]*}}) :
memref.global "private" constant @bias : memref<16xf32> = dense<0.5>
func.func @conv_bias_global(%x: memref<1x8x10x10xf32>, %w: memref<16x8x3x3xf32>, %y: memref<1x16x8x8xf32>) {
  %bias = memref.get_global @bias : memref<16xf32>
  linalg.broadcast ins(%bias : memref<16xf32>) outs(%y : memref<1x16x8x8xf32>) dimensions = [0, 2, 3]
  linalg.conv_2d_nchw_fchw {strides = dense<1> : tensor<2xi64>, dilations = dense<1> : tensor<2xi64>}
    ins(%x, %w : memref<1x8x10x10xf32>, memref<16x8x3x3xf32>) outs(%y : memref<1x16x8x8xf32>)
  return
}

// -----

// A max pooling whose output was just set to -inf goes to
// telarrt_maxpool2d_nchw_f32 (window 3x3, strides 2, dilations 1, pads),
// which overwrites it: the fill goes; an input padded with -inf is read
// unpadded (pad_top = pad_left = 1) and the padded copy goes. Padded with
// anything else, the kernel reads the padded copy (pads 0).
// CHECK-LABEL: func.func @maxpool
// CHECK-NOT: linalg.fill
// CHECK-NOT: memref.copy
// CHECK: %[[IN:.+]] = memref.cast %arg1 : memref<1x8x16x16xf32> to memref<?x?x?x?xf32, strided<[?, ?, ?, ?], offset: ?>>
// CHECK: call @telarrt_maxpool2d_nchw_f32(%arg0, %[[IN]], %{{[^,]+}}, %c3_i64{{[_0-9]*}}, %c3_i64{{[_0-9]*}}, %c2_i64{{[_0-9]*}}, %c2_i64{{[_0-9]*}}, %c1_i64{{[_0-9]*}}, %c1_i64{{[_0-9]*}}, %c1_i64{{[_0-9]*}}, %c1_i64{{[_0-9]*}})
// CHECK: linalg.fill
// CHECK: memref.copy
// CHECK: call @telarrt_maxpool2d_nchw_f32({{.*}}, %c0_i64{{[_0-9]*}}, %c0_i64{{[_0-9]*}})
// CHECK-NOT: linalg.pooling_nchw_max
// CHECK: return
func.func @maxpool(%x: memref<1x8x16x16xf32>, %y: memref<1x8x8x8xf32>, %z: memref<1x8x8x8xf32>) {
  %ninf = arith.constant 0xFF800000 : f32
  %zero = arith.constant 0.0 : f32
  %p = memref.alloc() : memref<1x8x18x18xf32>
  linalg.fill ins(%ninf : f32) outs(%p : memref<1x8x18x18xf32>)
  %sub = memref.subview %p[0, 0, 1, 1] [1, 8, 16, 16] [1, 1, 1, 1] : memref<1x8x18x18xf32> to memref<1x8x16x16xf32, strided<[2592, 324, 18, 1], offset: 19>>
  memref.copy %x, %sub : memref<1x8x16x16xf32> to memref<1x8x16x16xf32, strided<[2592, 324, 18, 1], offset: 19>>
  %win = memref.alloc() : memref<3x3xf32>
  linalg.fill ins(%ninf : f32) outs(%y : memref<1x8x8x8xf32>)
  linalg.pooling_nchw_max {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>}
    ins(%p, %win : memref<1x8x18x18xf32>, memref<3x3xf32>) outs(%y : memref<1x8x8x8xf32>)
  // Padded with 0: the padding stays explicit.
  %q = memref.alloc() : memref<1x8x18x18xf32>
  linalg.fill ins(%zero : f32) outs(%q : memref<1x8x18x18xf32>)
  %sub2 = memref.subview %q[0, 0, 1, 1] [1, 8, 16, 16] [1, 1, 1, 1] : memref<1x8x18x18xf32> to memref<1x8x16x16xf32, strided<[2592, 324, 18, 1], offset: 19>>
  memref.copy %x, %sub2 : memref<1x8x16x16xf32> to memref<1x8x16x16xf32, strided<[2592, 324, 18, 1], offset: 19>>
  linalg.fill ins(%ninf : f32) outs(%z : memref<1x8x8x8xf32>)
  linalg.pooling_nchw_max {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>}
    ins(%q, %win : memref<1x8x18x18xf32>, memref<3x3xf32>) outs(%z : memref<1x8x8x8xf32>)
  return
}

// -----

// The pooling stays when its output held something else than -inf (here
// 0: the max then includes it).
// CHECK-LABEL: func.func @maxpool_stays
// CHECK: linalg.pooling_nchw_max
// CHECK-NOT: telarrt_maxpool2d_nchw_f32
func.func @maxpool_stays(%x: memref<1x8x17x17xf32>, %y: memref<1x8x8x8xf32>) {
  %zero = arith.constant 0.0 : f32
  %win = memref.alloc() : memref<3x3xf32>
  linalg.fill ins(%zero : f32) outs(%y : memref<1x8x8x8xf32>)
  linalg.pooling_nchw_max {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>}
    ins(%x, %win : memref<1x8x17x17xf32>, memref<3x3xf32>) outs(%y : memref<1x8x8x8xf32>)
  return
}

// -----

#id = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>

// Two convs in a row, the second reading (through its zero padding) what
// the first wrote and nothing else reads, one image of 32 channels: one
// call for both where the second was, the first's operands (its bias, the
// ReLU after it: flags 2), the intermediate's 8x8, the second's padding
// and flags (0: it overwrites), a bias with no elements for the second's
// none. The intermediate, its padded copy and the ReLU go.
// CHECK-LABEL: func.func @conv_pair
// CHECK-NOT: linalg.conv_2d_nchw_fchw
// CHECK: %[[NOBIAS:.+]] = memref.alloca() : memref<0xf32>
// CHECK: %[[X:.+]] = memref.cast %arg1 :
// CHECK: %[[W1:.+]] = memref.cast %arg2 :
// CHECK: %[[B1:.+]] = memref.cast %arg3 :
// CHECK: %[[W2:.+]] = memref.cast %arg4 :
// CHECK: %[[NB:.+]] = memref.cast %[[NOBIAS]] :
// CHECK: %[[OUT:.+]] = memref.cast %[[ALLOC:.+]] :
// CHECK: call @telarrt_conv2d_pair_nchw_f32(%arg0, %[[X]], %[[W1]], %[[B1]], %[[W2]], %[[NB]], %[[OUT]], %c1_i64{{[_0-9]*}}, %c1_i64{{[_0-9]*}}, %c1_i64{{[_0-9]*}}, %c1_i64{{[_0-9]*}}, %c0_i64{{[_0-9]*}}, %c0_i64{{[_0-9]*}}, %c2_i64{{[_0-9]*}}, %c8_i64{{[_0-9]*}}, %c8_i64{{[_0-9]*}}, %c1_i64{{[_0-9]*}}, %c1_i64{{[_0-9]*}}, %c0_i64{{[_0-9]*}})
// CHECK-NOT: linalg.generic
// CHECK-NOT: telarrt_conv2d_nchw
// CHECK: memref.copy %[[ALLOC]], %arg5
// CHECK: func.func private @telarrt_conv2d_pair_nchw_f32(!llvm.ptr, memref<?x?x?x?xf32, strided<[?, ?, ?, ?], offset: ?>>, memref<?x?x?x?xf32, strided<[?, ?, ?, ?], offset: ?>>, memref<?xf32, strided<[?], offset: ?>>, memref<?x?x?x?xf32, strided<[?, ?, ?, ?], offset: ?>>, memref<?xf32, strided<[?], offset: ?>>, memref<?x?x?x?xf32, strided<[?, ?, ?, ?], offset: ?>>, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64) -> i32
func.func @conv_pair(%x: memref<1x16x10x10xf32>, %w1: memref<32x16x3x3xf32>, %b1: memref<32xf32>,
                     %w2: memref<16x32x3x3xf32>, %y: memref<1x16x8x8xf32>) {
  %zero = arith.constant 0.0 : f32
  %mid = memref.alloc() : memref<1x32x8x8xf32>
  linalg.broadcast ins(%b1 : memref<32xf32>) outs(%mid : memref<1x32x8x8xf32>) dimensions = [0, 2, 3]
  linalg.conv_2d_nchw_fchw {strides = dense<1> : tensor<2xi64>, dilations = dense<1> : tensor<2xi64>}
    ins(%x, %w1 : memref<1x16x10x10xf32>, memref<32x16x3x3xf32>) outs(%mid : memref<1x32x8x8xf32>)
  %relu = memref.alloc() : memref<1x32x8x8xf32>
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%mid : memref<1x32x8x8xf32>) outs(%relu : memref<1x32x8x8xf32>) {
  ^bb0(%o: f32, %d: f32):
    %m = arith.maximumf %o, %zero : f32
    linalg.yield %m : f32
  }
  %p = memref.alloc() : memref<1x32x10x10xf32>
  linalg.fill ins(%zero : f32) outs(%p : memref<1x32x10x10xf32>)
  %sub = memref.subview %p[0, 0, 1, 1] [1, 32, 8, 8] [1, 1, 1, 1] : memref<1x32x10x10xf32> to memref<1x32x8x8xf32, strided<[3200, 100, 10, 1], offset: 11>>
  memref.copy %relu, %sub : memref<1x32x8x8xf32> to memref<1x32x8x8xf32, strided<[3200, 100, 10, 1], offset: 11>>
  %out = memref.alloc() : memref<1x16x8x8xf32>
  linalg.fill ins(%zero : f32) outs(%out : memref<1x16x8x8xf32>)
  linalg.conv_2d_nchw_fchw {strides = dense<1> : tensor<2xi64>, dilations = dense<1> : tensor<2xi64>}
    ins(%p, %w2 : memref<1x32x10x10xf32>, memref<16x32x3x3xf32>) outs(%out : memref<1x16x8x8xf32>)
  memref.copy %out, %y : memref<1x16x8x8xf32> to memref<1x16x8x8xf32>
  return
}

// -----

// No pair when: the intermediate is read after the second conv too
// (@pair_mid_read); the second conv is strided (@pair_strided); the
// intermediate's 8 channels are not a block of 16 (@pair_channels); the
// first conv adds to what its output held (@pair_first_accumulates);
// something writes memory in between (@pair_write_between).
// CHECK-LABEL: func.func @pair_mid_read
// CHECK-COUNT-2: call @telarrt_conv2d_nchw_f32(
// CHECK-LABEL: func.func @pair_strided
// CHECK-COUNT-2: call @telarrt_conv2d_nchw_f32(
// CHECK-LABEL: func.func @pair_channels
// CHECK-COUNT-2: call @telarrt_conv2d_nchw_f32(
// CHECK-LABEL: func.func @pair_first_accumulates
// CHECK-COUNT-2: call @telarrt_conv2d_nchw_f32(
// CHECK-LABEL: func.func @pair_write_between
// CHECK-COUNT-2: call @telarrt_conv2d_nchw_f32(
// CHECK-NOT: telarrt_conv2d_pair_nchw_f32
func.func @pair_mid_read(%x: memref<1x16x10x10xf32>, %w1: memref<32x16x3x3xf32>,
                         %w2: memref<16x32x3x3xf32>, %y: memref<1x16x6x6xf32>, %z: memref<1x32x8x8xf32>) {
  %zero = arith.constant 0.0 : f32
  %mid = memref.alloc() : memref<1x32x8x8xf32>
  linalg.fill ins(%zero : f32) outs(%mid : memref<1x32x8x8xf32>)
  linalg.conv_2d_nchw_fchw {strides = dense<1> : tensor<2xi64>, dilations = dense<1> : tensor<2xi64>}
    ins(%x, %w1 : memref<1x16x10x10xf32>, memref<32x16x3x3xf32>) outs(%mid : memref<1x32x8x8xf32>)
  %out = memref.alloc() : memref<1x16x6x6xf32>
  linalg.fill ins(%zero : f32) outs(%out : memref<1x16x6x6xf32>)
  linalg.conv_2d_nchw_fchw {strides = dense<1> : tensor<2xi64>, dilations = dense<1> : tensor<2xi64>}
    ins(%mid, %w2 : memref<1x32x8x8xf32>, memref<16x32x3x3xf32>) outs(%out : memref<1x16x6x6xf32>)
  memref.copy %out, %y : memref<1x16x6x6xf32> to memref<1x16x6x6xf32>
  memref.copy %mid, %z : memref<1x32x8x8xf32> to memref<1x32x8x8xf32>
  return
}
func.func @pair_strided(%x: memref<1x16x10x10xf32>, %w1: memref<32x16x3x3xf32>,
                        %w2: memref<16x32x3x3xf32>, %y: memref<1x16x3x3xf32>) {
  %zero = arith.constant 0.0 : f32
  %mid = memref.alloc() : memref<1x32x8x8xf32>
  linalg.fill ins(%zero : f32) outs(%mid : memref<1x32x8x8xf32>)
  linalg.conv_2d_nchw_fchw {strides = dense<1> : tensor<2xi64>, dilations = dense<1> : tensor<2xi64>}
    ins(%x, %w1 : memref<1x16x10x10xf32>, memref<32x16x3x3xf32>) outs(%mid : memref<1x32x8x8xf32>)
  %out = memref.alloc() : memref<1x16x3x3xf32>
  linalg.fill ins(%zero : f32) outs(%out : memref<1x16x3x3xf32>)
  linalg.conv_2d_nchw_fchw {strides = dense<2> : tensor<2xi64>, dilations = dense<1> : tensor<2xi64>}
    ins(%mid, %w2 : memref<1x32x8x8xf32>, memref<16x32x3x3xf32>) outs(%out : memref<1x16x3x3xf32>)
  memref.copy %out, %y : memref<1x16x3x3xf32> to memref<1x16x3x3xf32>
  return
}
func.func @pair_channels(%x: memref<1x16x10x10xf32>, %w1: memref<8x16x3x3xf32>,
                         %w2: memref<16x8x3x3xf32>, %y: memref<1x16x6x6xf32>) {
  %zero = arith.constant 0.0 : f32
  %mid = memref.alloc() : memref<1x8x8x8xf32>
  linalg.fill ins(%zero : f32) outs(%mid : memref<1x8x8x8xf32>)
  linalg.conv_2d_nchw_fchw {strides = dense<1> : tensor<2xi64>, dilations = dense<1> : tensor<2xi64>}
    ins(%x, %w1 : memref<1x16x10x10xf32>, memref<8x16x3x3xf32>) outs(%mid : memref<1x8x8x8xf32>)
  %out = memref.alloc() : memref<1x16x6x6xf32>
  linalg.fill ins(%zero : f32) outs(%out : memref<1x16x6x6xf32>)
  linalg.conv_2d_nchw_fchw {strides = dense<1> : tensor<2xi64>, dilations = dense<1> : tensor<2xi64>}
    ins(%mid, %w2 : memref<1x8x8x8xf32>, memref<16x8x3x3xf32>) outs(%out : memref<1x16x6x6xf32>)
  memref.copy %out, %y : memref<1x16x6x6xf32> to memref<1x16x6x6xf32>
  return
}
func.func @pair_first_accumulates(%x: memref<1x16x10x10xf32>, %w1: memref<32x16x3x3xf32>,
                                  %w2: memref<16x32x3x3xf32>, %y: memref<1x16x6x6xf32>, %init: memref<1x32x8x8xf32>) {
  %zero = arith.constant 0.0 : f32
  %mid = memref.alloc() : memref<1x32x8x8xf32>
  memref.copy %init, %mid : memref<1x32x8x8xf32> to memref<1x32x8x8xf32>
  linalg.conv_2d_nchw_fchw {strides = dense<1> : tensor<2xi64>, dilations = dense<1> : tensor<2xi64>}
    ins(%x, %w1 : memref<1x16x10x10xf32>, memref<32x16x3x3xf32>) outs(%mid : memref<1x32x8x8xf32>)
  %out = memref.alloc() : memref<1x16x6x6xf32>
  linalg.fill ins(%zero : f32) outs(%out : memref<1x16x6x6xf32>)
  linalg.conv_2d_nchw_fchw {strides = dense<1> : tensor<2xi64>, dilations = dense<1> : tensor<2xi64>}
    ins(%mid, %w2 : memref<1x32x8x8xf32>, memref<16x32x3x3xf32>) outs(%out : memref<1x16x6x6xf32>)
  memref.copy %out, %y : memref<1x16x6x6xf32> to memref<1x16x6x6xf32>
  return
}
func.func @pair_write_between(%x: memref<1x16x10x10xf32>, %w1: memref<32x16x3x3xf32>,
                              %w2: memref<16x32x3x3xf32>, %y: memref<1x16x6x6xf32>) {
  %zero = arith.constant 0.0 : f32
  %mid = memref.alloc() : memref<1x32x8x8xf32>
  linalg.fill ins(%zero : f32) outs(%mid : memref<1x32x8x8xf32>)
  linalg.conv_2d_nchw_fchw {strides = dense<1> : tensor<2xi64>, dilations = dense<1> : tensor<2xi64>}
    ins(%x, %w1 : memref<1x16x10x10xf32>, memref<32x16x3x3xf32>) outs(%mid : memref<1x32x8x8xf32>)
  // The first's input changes after it: the call cannot move it.
  linalg.fill ins(%zero : f32) outs(%x : memref<1x16x10x10xf32>)
  %out = memref.alloc() : memref<1x16x6x6xf32>
  linalg.fill ins(%zero : f32) outs(%out : memref<1x16x6x6xf32>)
  linalg.conv_2d_nchw_fchw {strides = dense<1> : tensor<2xi64>, dilations = dense<1> : tensor<2xi64>}
    ins(%mid, %w2 : memref<1x32x8x8xf32>, memref<16x32x3x3xf32>) outs(%out : memref<1x16x6x6xf32>)
  memref.copy %out, %y : memref<1x16x6x6xf32> to memref<1x16x6x6xf32>
  return
}

// -----

#id = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>

// A conv whose output only a max pooling reads (through its -inf padding),
// one image: one call where the pooling was, the conv's operands, bias and
// flags (2: its ReLU), its output's 16x16, the pooling's window, strides and
// pads. The conv's output, the padded copy and the fills go.
// CHECK-LABEL: func.func @conv_maxpool
// CHECK-NOT: linalg.conv_2d_nchw_fchw
// CHECK: %[[X:.+]] = memref.cast %arg1 :
// CHECK: %[[W:.+]] = memref.cast %arg2 :
// CHECK: %[[B:.+]] = memref.cast %arg3 :
// CHECK: %[[Y:.+]] = memref.cast %arg4 :
// CHECK: call @telarrt_conv2d_maxpool_nchw_f32(%arg0, %[[X]], %[[W]], %[[B]], %[[Y]], %c2_i64{{[_0-9]*}}, %c2_i64{{[_0-9]*}}, %c1_i64{{[_0-9]*}}, %c1_i64{{[_0-9]*}}, %c0_i64{{[_0-9]*}}, %c0_i64{{[_0-9]*}}, %c2_i64{{[_0-9]*}}, %c16_i64{{[_0-9]*}}, %c16_i64{{[_0-9]*}}, %c3_i64{{[_0-9]*}}, %c3_i64{{[_0-9]*}}, %c2_i64{{[_0-9]*}}, %c2_i64{{[_0-9]*}}, %c1_i64{{[_0-9]*}}, %c1_i64{{[_0-9]*}})
// CHECK-NOT: linalg.
// CHECK-NOT: memref.copy
// CHECK: return
// CHECK: func.func private @telarrt_conv2d_maxpool_nchw_f32(!llvm.ptr, memref<?x?x?x?xf32, strided<[?, ?, ?, ?], offset: ?>>, memref<?x?x?x?xf32, strided<[?, ?, ?, ?], offset: ?>>, memref<?xf32, strided<[?], offset: ?>>, memref<?x?x?x?xf32, strided<[?, ?, ?, ?], offset: ?>>, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64) -> i32
func.func @conv_maxpool(%x: memref<1x3x37x37xf32>, %w: memref<32x3x7x7xf32>, %b: memref<32xf32>,
                        %y: memref<1x32x8x8xf32>) {
  %zero = arith.constant 0.0 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %c = memref.alloc() : memref<1x32x16x16xf32>
  linalg.broadcast ins(%b : memref<32xf32>) outs(%c : memref<1x32x16x16xf32>) dimensions = [0, 2, 3]
  linalg.conv_2d_nchw_fchw {strides = dense<2> : tensor<2xi64>, dilations = dense<1> : tensor<2xi64>}
    ins(%x, %w : memref<1x3x37x37xf32>, memref<32x3x7x7xf32>) outs(%c : memref<1x32x16x16xf32>)
  %relu = memref.alloc() : memref<1x32x16x16xf32>
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%c : memref<1x32x16x16xf32>) outs(%relu : memref<1x32x16x16xf32>) {
  ^bb0(%o: f32, %d: f32):
    %m = arith.maximumf %o, %zero : f32
    linalg.yield %m : f32
  }
  %p = memref.alloc() : memref<1x32x18x18xf32>
  linalg.fill ins(%ninf : f32) outs(%p : memref<1x32x18x18xf32>)
  %sub = memref.subview %p[0, 0, 1, 1] [1, 32, 16, 16] [1, 1, 1, 1] : memref<1x32x18x18xf32> to memref<1x32x16x16xf32, strided<[10368, 324, 18, 1], offset: 19>>
  memref.copy %relu, %sub : memref<1x32x16x16xf32> to memref<1x32x16x16xf32, strided<[10368, 324, 18, 1], offset: 19>>
  %win = memref.alloc() : memref<3x3xf32>
  linalg.fill ins(%ninf : f32) outs(%y : memref<1x32x8x8xf32>)
  linalg.pooling_nchw_max {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>}
    ins(%p, %win : memref<1x32x18x18xf32>, memref<3x3xf32>) outs(%y : memref<1x32x8x8xf32>)
  return
}

// -----

// The conv and the pooling stay two calls when: the conv's output is read
// after the pooling too (@conv_maxpool_output_read); the pooling is dilated
// (@conv_maxpool_dilated); two images (@conv_maxpool_batch).
// CHECK-LABEL: func.func @conv_maxpool_output_read
// CHECK: call @telarrt_conv2d_nchw_f32(
// CHECK: call @telarrt_maxpool2d_nchw_f32(
// CHECK-LABEL: func.func @conv_maxpool_dilated
// CHECK: call @telarrt_conv2d_nchw_f32(
// CHECK: call @telarrt_maxpool2d_nchw_f32(
// CHECK-LABEL: func.func @conv_maxpool_batch
// CHECK: call @telarrt_conv2d_nchw_f32(
// CHECK: call @telarrt_maxpool2d_nchw_f32(
// CHECK-NOT: telarrt_conv2d_maxpool_nchw_f32
func.func @conv_maxpool_output_read(%x: memref<1x3x37x37xf32>, %w: memref<32x3x7x7xf32>,
                                    %y: memref<1x32x7x7xf32>, %z: memref<1x32x16x16xf32>) {
  %zero = arith.constant 0.0 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %c = memref.alloc() : memref<1x32x16x16xf32>
  linalg.fill ins(%zero : f32) outs(%c : memref<1x32x16x16xf32>)
  linalg.conv_2d_nchw_fchw {strides = dense<2> : tensor<2xi64>, dilations = dense<1> : tensor<2xi64>}
    ins(%x, %w : memref<1x3x37x37xf32>, memref<32x3x7x7xf32>) outs(%c : memref<1x32x16x16xf32>)
  %win = memref.alloc() : memref<3x3xf32>
  linalg.fill ins(%ninf : f32) outs(%y : memref<1x32x7x7xf32>)
  linalg.pooling_nchw_max {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>}
    ins(%c, %win : memref<1x32x16x16xf32>, memref<3x3xf32>) outs(%y : memref<1x32x7x7xf32>)
  memref.copy %c, %z : memref<1x32x16x16xf32> to memref<1x32x16x16xf32>
  return
}
func.func @conv_maxpool_dilated(%x: memref<1x3x37x37xf32>, %w: memref<32x3x7x7xf32>,
                                %y: memref<1x32x6x6xf32>) {
  %zero = arith.constant 0.0 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %c = memref.alloc() : memref<1x32x16x16xf32>
  linalg.fill ins(%zero : f32) outs(%c : memref<1x32x16x16xf32>)
  linalg.conv_2d_nchw_fchw {strides = dense<2> : tensor<2xi64>, dilations = dense<1> : tensor<2xi64>}
    ins(%x, %w : memref<1x3x37x37xf32>, memref<32x3x7x7xf32>) outs(%c : memref<1x32x16x16xf32>)
  %win = memref.alloc() : memref<3x3xf32>
  linalg.fill ins(%ninf : f32) outs(%y : memref<1x32x6x6xf32>)
  linalg.pooling_nchw_max {dilations = dense<2> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>}
    ins(%c, %win : memref<1x32x16x16xf32>, memref<3x3xf32>) outs(%y : memref<1x32x6x6xf32>)
  return
}
func.func @conv_maxpool_batch(%x: memref<2x3x37x37xf32>, %w: memref<32x3x7x7xf32>,
                              %y: memref<2x32x7x7xf32>) {
  %zero = arith.constant 0.0 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %c = memref.alloc() : memref<2x32x16x16xf32>
  linalg.fill ins(%zero : f32) outs(%c : memref<2x32x16x16xf32>)
  linalg.conv_2d_nchw_fchw {strides = dense<2> : tensor<2xi64>, dilations = dense<1> : tensor<2xi64>}
    ins(%x, %w : memref<2x3x37x37xf32>, memref<32x3x7x7xf32>) outs(%c : memref<2x32x16x16xf32>)
  %win = memref.alloc() : memref<3x3xf32>
  linalg.fill ins(%ninf : f32) outs(%y : memref<2x32x7x7xf32>)
  linalg.pooling_nchw_max {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>}
    ins(%c, %win : memref<2x32x16x16xf32>, memref<3x3xf32>) outs(%y : memref<2x32x7x7xf32>)
  return
}
