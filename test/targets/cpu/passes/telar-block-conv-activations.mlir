// RUN: telar-opt %s -split-input-file -telar-block-conv-activations | FileCheck %s

!m4 = memref<?x?x?x?xf32, strided<[?, ?, ?, ?], offset: ?>>
!m1 = memref<?xf32, strided<[?], offset: ?>>

// ResNet's activations: the stem's pooled output %a, a residual pair in
// place on it, a pair from it into %b and the downsampling 1x1 adding into
// %b, a last pair from %b into %c, which a copy reads. %a and %b are only
// the calls' inputs and outputs: their flags get TELAR_KERNEL_BLOCKED_INPUT
// (4) on the side reading them (the pair's first flags) and
// TELAR_KERNEL_BLOCKED_OUTPUT (8) on the side writing them (the pair's
// second flags). %c stays NCHW.
// CHECK-LABEL: func.func @resnet_like
// CHECK: call @telarrt_conv2d_maxpool_nchw_f32(%arg0, %{{[^,]+}}, %{{[^,]+}}, %{{[^,]+}}, %{{[^,]+}}, %c1_i64, %c1_i64, %c1_i64, %c1_i64, %c1_i64, %c1_i64, %c10_i64{{[_0-9]*}}, %c8_i64,
// CHECK: call @telarrt_conv2d_pair_nchw_f32(%arg0, %{{[^,]+}}, %{{[^,]+}}, %{{[^,]+}}, %{{[^,]+}}, %{{[^,]+}}, %{{[^,]+}}, %c1_i64, %c1_i64, %c1_i64, %c1_i64, %c1_i64, %c1_i64, %c6_i64{{[_0-9]*}}, %c8_i64, %c8_i64, %c1_i64, %c1_i64, %c11_i64{{[_0-9]*}})
// CHECK: call @telarrt_conv2d_pair_nchw_f32(%arg0, %{{[^,]+}}, %{{[^,]+}}, %{{[^,]+}}, %{{[^,]+}}, %{{[^,]+}}, %{{[^,]+}}, %c2_i64, %c2_i64, %c1_i64, %c1_i64, %c1_i64, %c1_i64, %c6_i64{{[_0-9]*}}, %c4_i64, %c4_i64, %c1_i64, %c1_i64, %c8_i64{{[_0-9]+}})
// CHECK: call @telarrt_conv2d_nchw_bias_f32(%arg0, %{{[^,]+}}, %{{[^,]+}}, %{{[^,]+}}, %{{[^,]+}}, %c2_i64, %c2_i64, %c1_i64, %c1_i64, %c0_i64, %c0_i64, %c15_i64{{[_0-9]*}})
// CHECK: call @telarrt_conv2d_pair_nchw_f32(%arg0, %{{[^,]+}}, %{{[^,]+}}, %{{[^,]+}}, %{{[^,]+}}, %{{[^,]+}}, %{{[^,]+}}, %c1_i64, %c1_i64, %c1_i64, %c1_i64, %c1_i64, %c1_i64, %c6_i64{{[_0-9]*}}, %c4_i64, %c4_i64, %c1_i64, %c1_i64, %c0_i64)
func.func @resnet_like(%ctx: !llvm.ptr, %x: memref<1x3x16x16xf32>,
                       %w: memref<16x3x3x3xf32>, %w1: memref<16x16x3x3xf32>,
                       %w2: memref<32x16x3x3xf32>, %w3: memref<32x32x3x3xf32>,
                       %wd: memref<32x16x1x1xf32>, %bias: memref<32xf32>,
                       %y: memref<1x32x4x4xf32>) {
  %nb = memref.alloca() : memref<0xf32>
  %nbc = memref.cast %nb : memref<0xf32> to !m1
  %bc = memref.cast %bias : memref<32xf32> to !m1
  %xc = memref.cast %x : memref<1x3x16x16xf32> to !m4
  %wc = memref.cast %w : memref<16x3x3x3xf32> to !m4
  %w1c = memref.cast %w1 : memref<16x16x3x3xf32> to !m4
  %w2c = memref.cast %w2 : memref<32x16x3x3xf32> to !m4
  %w3c = memref.cast %w3 : memref<32x32x3x3xf32> to !m4
  %wdc = memref.cast %wd : memref<32x16x1x1xf32> to !m4
  %c0 = arith.constant 0 : i64
  %c1 = arith.constant 1 : i64
  %c2 = arith.constant 2 : i64
  %c3 = arith.constant 3 : i64
  %c4 = arith.constant 4 : i64
  %c8 = arith.constant 8 : i64
  %a = memref.alloc() : memref<1x16x8x8xf32>
  %a0 = memref.cast %a : memref<1x16x8x8xf32> to !m4
  %s0 = call @telarrt_conv2d_maxpool_nchw_f32(%ctx, %xc, %wc, %nbc, %a0, %c1, %c1, %c1, %c1, %c1, %c1, %c2, %c8, %c8, %c3, %c3, %c1, %c1, %c1, %c1) : (!llvm.ptr, !m4, !m4, !m1, !m4, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64) -> i32
  %a1 = memref.cast %a : memref<1x16x8x8xf32> to !m4
  %a2 = memref.cast %a : memref<1x16x8x8xf32> to !m4
  %s1 = call @telarrt_conv2d_pair_nchw_f32(%ctx, %a1, %w1c, %nbc, %w1c, %nbc, %a2, %c1, %c1, %c1, %c1, %c1, %c1, %c2, %c8, %c8, %c1, %c1, %c3) : (!llvm.ptr, !m4, !m4, !m1, !m4, !m1, !m4, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64) -> i32
  %b = memref.alloc() : memref<1x32x4x4xf32>
  %a3 = memref.cast %a : memref<1x16x8x8xf32> to !m4
  %b0 = memref.cast %b : memref<1x32x4x4xf32> to !m4
  %s2 = call @telarrt_conv2d_pair_nchw_f32(%ctx, %a3, %w2c, %nbc, %w3c, %nbc, %b0, %c2, %c2, %c1, %c1, %c1, %c1, %c2, %c4, %c4, %c1, %c1, %c0) : (!llvm.ptr, !m4, !m4, !m1, !m4, !m1, !m4, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64) -> i32
  %a4 = memref.cast %a : memref<1x16x8x8xf32> to !m4
  %b1 = memref.cast %b : memref<1x32x4x4xf32> to !m4
  %s3 = call @telarrt_conv2d_nchw_bias_f32(%ctx, %a4, %wdc, %bc, %b1, %c2, %c2, %c1, %c1, %c0, %c0, %c3) : (!llvm.ptr, !m4, !m4, !m1, !m4, i64, i64, i64, i64, i64, i64, i64) -> i32
  memref.dealloc %a : memref<1x16x8x8xf32>
  %c = memref.alloc() : memref<1x32x4x4xf32>
  %b2 = memref.cast %b : memref<1x32x4x4xf32> to !m4
  %cc = memref.cast %c : memref<1x32x4x4xf32> to !m4
  %s4 = call @telarrt_conv2d_pair_nchw_f32(%ctx, %b2, %w3c, %nbc, %w3c, %nbc, %cc, %c1, %c1, %c1, %c1, %c1, %c1, %c2, %c4, %c4, %c1, %c1, %c0) : (!llvm.ptr, !m4, !m4, !m1, !m4, !m1, !m4, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64) -> i32
  memref.copy %c, %y : memref<1x32x4x4xf32> to memref<1x32x4x4xf32>
  return
}
func.func private @telarrt_conv2d_maxpool_nchw_f32(!llvm.ptr, !m4, !m4, !m1, !m4, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64) -> i32
func.func private @telarrt_conv2d_pair_nchw_f32(!llvm.ptr, !m4, !m4, !m1, !m4, !m1, !m4, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64) -> i32
func.func private @telarrt_conv2d_nchw_bias_f32(!llvm.ptr, !m4, !m4, !m1, !m4, i64, i64, i64, i64, i64, i64, i64) -> i32

// -----

!m4 = memref<?x?x?x?xf32, strided<[?, ?, ?, ?], offset: ?>>
!m1 = memref<?xf32, strided<[?], offset: ?>>

// A buffer stays NCHW when anything but a convolution call's input or
// output uses it: a copy (@copied), a view (@viewed), a call taking it as
// its filter (@as_filter), another callee (@other_callee); or when its
// channels are not whole blocks of 16 (@channels), or it holds two images
// (@batch).
// CHECK-LABEL: func.func @copied
// CHECK: call @telarrt_conv2d_nchw_f32({{.*}}, %c2_i64)
// CHECK-NOT: arith.constant 8 : i64
// CHECK-LABEL: func.func @viewed
// CHECK: call @telarrt_conv2d_nchw_f32({{.*}}, %c2_i64)
// CHECK-LABEL: func.func @as_filter
// CHECK: call @telarrt_conv2d_nchw_f32({{.*}}, %c2_i64)
// CHECK: call @telarrt_conv2d_nchw_f32({{.*}}, %c2_i64)
// CHECK-LABEL: func.func @other_callee
// CHECK: call @telarrt_conv2d_nchw_f32({{.*}}, %c2_i64)
// CHECK-LABEL: func.func @channels
// CHECK: call @telarrt_conv2d_nchw_f32({{.*}}, %c2_i64)
// CHECK: call @telarrt_conv2d_nchw_f32({{.*}}, %c2_i64)
// CHECK-LABEL: func.func @batch
// CHECK: call @telarrt_conv2d_nchw_f32({{.*}}, %c2_i64)
// CHECK: call @telarrt_conv2d_nchw_f32({{.*}}, %c2_i64)
// CHECK-NOT: arith.constant {{[0-9]+}} : i64
func.func @copied(%ctx: !llvm.ptr, %x: !m4, %w: !m4, %y: memref<1x16x4x4xf32>) {
  %c1 = arith.constant 1 : i64
  %c2 = arith.constant 2 : i64
  %a = memref.alloc() : memref<1x16x4x4xf32>
  %ac = memref.cast %a : memref<1x16x4x4xf32> to !m4
  %s = call @telarrt_conv2d_nchw_f32(%ctx, %x, %w, %ac, %c1, %c1, %c1, %c1, %c1, %c1, %c2) : (!llvm.ptr, !m4, !m4, !m4, i64, i64, i64, i64, i64, i64, i64) -> i32
  memref.copy %a, %y : memref<1x16x4x4xf32> to memref<1x16x4x4xf32>
  return
}
func.func @viewed(%ctx: !llvm.ptr, %x: !m4, %w: !m4) {
  %c1 = arith.constant 1 : i64
  %c2 = arith.constant 2 : i64
  %a = memref.alloc() : memref<1x16x4x4xf32>
  %ac = memref.cast %a : memref<1x16x4x4xf32> to !m4
  %s = call @telarrt_conv2d_nchw_f32(%ctx, %x, %w, %ac, %c1, %c1, %c1, %c1, %c1, %c1, %c2) : (!llvm.ptr, !m4, !m4, !m4, i64, i64, i64, i64, i64, i64, i64) -> i32
  %v = memref.subview %a[0, 0, 0, 0] [1, 16, 2, 2] [1, 1, 1, 1] : memref<1x16x4x4xf32> to memref<1x16x2x2xf32, strided<[256, 16, 4, 1]>>
  return
}
func.func @as_filter(%ctx: !llvm.ptr, %x: !m4, %w: !m4, %y: !m4) {
  %c1 = arith.constant 1 : i64
  %c2 = arith.constant 2 : i64
  %a = memref.alloc() : memref<16x16x1x1xf32>
  %ac = memref.cast %a : memref<16x16x1x1xf32> to !m4
  %s = call @telarrt_conv2d_nchw_f32(%ctx, %x, %w, %ac, %c1, %c1, %c1, %c1, %c1, %c1, %c2) : (!llvm.ptr, !m4, !m4, !m4, i64, i64, i64, i64, i64, i64, i64) -> i32
  %af = memref.cast %a : memref<16x16x1x1xf32> to !m4
  %t = call @telarrt_conv2d_nchw_f32(%ctx, %x, %af, %y, %c1, %c1, %c1, %c1, %c1, %c1, %c2) : (!llvm.ptr, !m4, !m4, !m4, i64, i64, i64, i64, i64, i64, i64) -> i32
  return
}
func.func @other_callee(%ctx: !llvm.ptr, %x: !m4, %w: !m4) {
  %c1 = arith.constant 1 : i64
  %c2 = arith.constant 2 : i64
  %a = memref.alloc() : memref<1x16x4x4xf32>
  %ac = memref.cast %a : memref<1x16x4x4xf32> to !m4
  %s = call @telarrt_conv2d_nchw_f32(%ctx, %x, %w, %ac, %c1, %c1, %c1, %c1, %c1, %c1, %c2) : (!llvm.ptr, !m4, !m4, !m4, i64, i64, i64, i64, i64, i64, i64) -> i32
  %ad = memref.cast %a : memref<1x16x4x4xf32> to !m4
  %t = call @telarrt_maxpool2d_nchw_f32(%ctx, %ad, %ad, %c1, %c1, %c1, %c1, %c1, %c1, %c1, %c1) : (!llvm.ptr, !m4, !m4, i64, i64, i64, i64, i64, i64, i64, i64) -> i32
  return
}
func.func @channels(%ctx: !llvm.ptr, %x: !m4, %w: !m4, %y: !m4) {
  %c1 = arith.constant 1 : i64
  %c2 = arith.constant 2 : i64
  %a = memref.alloc() : memref<1x8x4x4xf32>
  %ac = memref.cast %a : memref<1x8x4x4xf32> to !m4
  %s = call @telarrt_conv2d_nchw_f32(%ctx, %x, %w, %ac, %c1, %c1, %c1, %c1, %c1, %c1, %c2) : (!llvm.ptr, !m4, !m4, !m4, i64, i64, i64, i64, i64, i64, i64) -> i32
  %ai = memref.cast %a : memref<1x8x4x4xf32> to !m4
  %t = call @telarrt_conv2d_nchw_f32(%ctx, %ai, %w, %y, %c1, %c1, %c1, %c1, %c1, %c1, %c2) : (!llvm.ptr, !m4, !m4, !m4, i64, i64, i64, i64, i64, i64, i64) -> i32
  return
}
func.func @batch(%ctx: !llvm.ptr, %x: !m4, %w: !m4, %y: !m4) {
  %c1 = arith.constant 1 : i64
  %c2 = arith.constant 2 : i64
  %a = memref.alloc() : memref<2x16x4x4xf32>
  %ac = memref.cast %a : memref<2x16x4x4xf32> to !m4
  %s = call @telarrt_conv2d_nchw_f32(%ctx, %x, %w, %ac, %c1, %c1, %c1, %c1, %c1, %c1, %c2) : (!llvm.ptr, !m4, !m4, !m4, i64, i64, i64, i64, i64, i64, i64) -> i32
  %ai = memref.cast %a : memref<2x16x4x4xf32> to !m4
  %t = call @telarrt_conv2d_nchw_f32(%ctx, %ai, %w, %y, %c1, %c1, %c1, %c1, %c1, %c1, %c2) : (!llvm.ptr, !m4, !m4, !m4, i64, i64, i64, i64, i64, i64, i64) -> i32
  return
}
func.func private @telarrt_conv2d_nchw_f32(!llvm.ptr, !m4, !m4, !m4, i64, i64, i64, i64, i64, i64, i64) -> i32
func.func private @telarrt_maxpool2d_nchw_f32(!llvm.ptr, !m4, !m4, i64, i64, i64, i64, i64, i64, i64, i64) -> i32
