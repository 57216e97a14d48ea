// The CUDA pipeline alone: a relu over 300 values is one kernel of 2
// blocks of 256 threads (the threads past 299 skip the point), compiled to
// PTX for the chosen architecture by LLVM's NVPTX back end in process; the
// kernel takes one bare pointer per buffer.
// RUN: telar-opt %s -split-input-file --telar-lower-to-ptx=gpu=sm_80 | FileCheck %s
// RUN: telar-opt %s -split-input-file --telar-lower-to-ptx | FileCheck %s --check-prefix=SM90

// CHECK:      gpu.launch_func @kernels::@main_kernel blocks in (%[[C2:.*]], %{{.*}}, %{{.*}}) threads in (%[[C256:.*]], %{{.*}}, %{{.*}}) args(%arg0 : memref<300xf32>, %arg1 : memref<300xf32>)
// CHECK:      gpu.binary @kernels [#gpu.object<#nvvm.target<O = 3, chip = "sm_80">
// CHECK-SAME: .target sm_80
// CHECK-SAME: .visible .entry main_kernel(
// CHECK-SAME: .param .u64 .ptr .align 1 main_kernel_param_0,
// CHECK-SAME: .param .u64 .ptr .align 1 main_kernel_param_1
// CHECK-SAME: .maxntid 256, 1, 1
// CHECK-SAME: %ctaid.x
// CHECK-SAME: %tid.x
// CHECK-SAME: setp.gt.u32
// CHECK-SAME: ld.global.b32
// CHECK-SAME: max.NaN.f32
// CHECK-SAME: st.global.b32
// CHECK-NOT:  gpu.module
// SM90:       chip = "sm_90"
// SM90-SAME:  .target sm_90
func.func @main(%x: tensor<300xf32> {telar.name = "x"}) -> tensor<300xf32> attributes {telar.output_names = ["y"]} {
  %r = telar.relu %x {telar.result_names = ["y"]} : (tensor<300xf32>) -> tensor<300xf32>
  return %r : tensor<300xf32>
}

// -----

// exp, approximated by telar-approximate-math with fma and floor: single
// instructions (telar-libdevice-to-intrinsics), no libdevice call.
// CHECK:      gpu.binary @kernels
// CHECK-NOT:  __nv_
// CHECK-SAME: cvt.rmi.f32.f32
// CHECK-SAME: fma.rn.f32
// CHECK-NOT:  __nv_
// SM90:       gpu.binary @kernels
func.func @main(%x: tensor<64xf32> {telar.name = "x"}) -> tensor<64xf32> attributes {telar.output_names = ["y"]} {
  %r = telar.exp %x {telar.result_names = ["y"]} : (tensor<64xf32>) -> tensor<64xf32>
  return %r : tensor<64xf32>
}

// -----

// A matmul: its fill and its contraction, two kernels of one module (one
// gpu.binary, one PTX text with both entries).
// CHECK:      gpu.launch_func @kernels::@main_kernel blocks
// CHECK:      gpu.launch_func @kernels::@main_kernel_0 blocks
// CHECK:      gpu.binary @kernels
// CHECK-SAME: .visible .entry main_kernel(
// CHECK-SAME: .visible .entry main_kernel_0(
// CHECK-NOT:  gpu.binary
// SM90:       gpu.binary @kernels
func.func @main(%a: tensor<4x8xf32> {telar.name = "a"}, %b: tensor<8x3xf32> {telar.name = "b"}) -> tensor<4x3xf32> attributes {telar.output_names = ["y"]} {
  %r = telar.matmul %a, %b {telar.result_names = ["y"]} : (tensor<4x8xf32>, tensor<8x3xf32>) -> tensor<4x3xf32>
  return %r : tensor<4x3xf32>
}
