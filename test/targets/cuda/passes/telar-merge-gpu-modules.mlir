// RUN: telar-opt %s -split-input-file -telar-merge-gpu-modules | FileCheck %s
// RUN: telar-opt %s -split-input-file -telar-merge-gpu-modules=module-name=main_gpu | FileCheck %s --check-prefix=NAMED

// Outlining's modules (one kernel each, every kernel named after its host
// function) become one; each kernel takes its module's name, a clash in a
// module of several is renamed; a global the kernels share is kept once, a
// different one of the same name renamed with its uses; the launches
// follow.
// CHECK-LABEL: func.func @main
// CHECK:       gpu.launch_func @kernels::@main_kernel blocks
// CHECK:       gpu.launch_func @kernels::@main_kernel_0 blocks
// CHECK:       gpu.launch_func @kernels::@main_kernel_0_1 blocks
// CHECK:       gpu.launch_func @kernels::@other blocks
// CHECK-NOT:   gpu.module
// CHECK:       gpu.module @kernels {
// CHECK-NEXT:    memref.global "private" constant @cst : memref<4xf32> = dense<1.000000e+00>
// CHECK-NEXT:    gpu.func @main_kernel(
// CHECK-NEXT:      memref.get_global @cst :
// CHECK:         gpu.func @main_kernel_0(
// CHECK-NEXT:      memref.get_global @cst :
// CHECK:         memref.global "private" constant @cst_0 : memref<4xf32> = dense<2.000000e+00>
// CHECK-NEXT:    gpu.func @main_kernel_0_1(
// CHECK-NEXT:      memref.get_global @cst_0 :
// CHECK:         gpu.func @other(
// CHECK-NOT:   gpu.module
// NAMED:       gpu.launch_func @main_gpu::@main_kernel blocks
// NAMED:       gpu.module @main_gpu {
module attributes {gpu.container_module} {
  func.func @main(%a: memref<4xf32>) {
    %c1 = arith.constant 1 : index
    gpu.launch_func @main_kernel::@main_kernel blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%a : memref<4xf32>)
    gpu.launch_func @main_kernel_0::@main_kernel blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%a : memref<4xf32>)
    gpu.launch_func @two::@main_kernel_0 blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%a : memref<4xf32>)
    gpu.launch_func @two::@other blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%a : memref<4xf32>)
    return
  }
  gpu.module @main_kernel {
    memref.global "private" constant @cst : memref<4xf32> = dense<1.0>
    gpu.func @main_kernel(%a: memref<4xf32>) kernel {
      %g = memref.get_global @cst : memref<4xf32>
      gpu.return
    }
  }
  gpu.module @main_kernel_0 {
    memref.global "private" constant @cst : memref<4xf32> = dense<1.0>
    gpu.func @main_kernel(%a: memref<4xf32>) kernel {
      %g = memref.get_global @cst : memref<4xf32>
      gpu.return
    }
  }
  gpu.module @two {
    memref.global "private" constant @cst : memref<4xf32> = dense<2.0>
    gpu.func @main_kernel_0(%a: memref<4xf32>) kernel {
      %g = memref.get_global @cst : memref<4xf32>
      gpu.return
    }
    gpu.func @other(%a: memref<4xf32>) kernel {
      gpu.return
    }
  }
}

// -----

// The merged module's name is made unique in the program; the targets
// attached to the modules stay.
// CHECK-LABEL: func.func @kernels
// CHECK:       gpu.launch_func @kernels_0::@main_kernel blocks
// CHECK:       gpu.module @kernels_0 [#nvvm.target<chip = "sm_90">] {
module attributes {gpu.container_module} {
  func.func @kernels(%a: memref<4xf32>) {
    %c1 = arith.constant 1 : index
    gpu.launch_func @main_kernel::@kernels_kernel blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%a : memref<4xf32>)
    return
  }
  gpu.module @main_kernel [#nvvm.target<chip = "sm_90">] {
    gpu.func @kernels_kernel(%a: memref<4xf32>) kernel {
      gpu.return
    }
  }
}

// -----

// No kernels: nothing changes.
// CHECK-LABEL: func.func @host
// CHECK-NOT:   gpu.module
func.func @host(%a: memref<4xf32>) {
  return
}
