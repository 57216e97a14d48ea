// RUN: telar-opt %s -split-input-file -verify-diagnostics -telar-gpu-launches-to-runtime | FileCheck %s

// Each launch becomes a telarrt_gpu_launch call: the kernel's index in the
// module's table (each kernel once, in the order first launched), the grid
// and block sizes, and the arguments in 64-bit slots (one alloca per
// function, as long as its largest launch): a buffer's aligned base
// pointer (a subview's offset is the kernel's to apply), an index
// sign-extended, an f32's bits zero-extended. The kernel modules go.
// CHECK:       module attributes {telar.gpu_kernels = [@k0::@scale, @k1::@shift]}
// CHECK-LABEL: func.func @main
// CHECK-SAME:    (%[[CTX:.*]]: !llvm.ptr {telar.runtime_context}, %[[X:.*]]: memref<8xf32>, %[[F:.*]]: f32)
// CHECK:         %[[SLOTS:.*]] = memref.alloca() : memref<3xi64>
// CHECK:         %[[P:.*]] = memref.extract_aligned_pointer_as_index %[[X]]
// CHECK:         %[[PI:.*]] = arith.index_cast %[[P]] : index to i64
// CHECK:         memref.store %[[PI]], %[[SLOTS]][%{{.*}}] : memref<3xi64>
// CHECK:         %[[SP:.*]] = llvm.inttoptr
// CHECK:         %[[ST:.*]] = call @telarrt_gpu_launch(%[[CTX]], %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[SP]], %{{.*}}) : (!llvm.ptr, i64, i64, i64, i64, i64, i64, i64, !llvm.ptr, i64) -> i32
// CHECK:         %[[V:.*]] = memref.subview %[[X]][4] [4] [1]
// CHECK:         memref.extract_aligned_pointer_as_index %[[V]]
// CHECK:         %[[FB:.*]] = arith.bitcast %[[F]] : f32 to i32
// CHECK:         %[[FE:.*]] = arith.extui %[[FB]] : i32 to i64
// CHECK:         memref.store %[[FE]], %[[SLOTS]]
// CHECK:         %[[B:.*]] = arith.extui %{{.*}} : i1 to i64
// CHECK:         memref.store %[[B]], %[[SLOTS]]
// CHECK:         call @telarrt_gpu_launch(%[[CTX]], %[[K1:.*]],
// CHECK:         call @telarrt_gpu_launch(%[[CTX]], %[[K0:.*]],
// CHECK-NOT:     gpu.launch_func
// CHECK:       func.func private @telarrt_gpu_launch(!llvm.ptr {telar.runtime_context}, i64, i64, i64, i64, i64, i64, i64, !llvm.ptr, i64) -> i32 attributes {telar.runtime_status}
// CHECK-NOT:   gpu.module
module attributes {gpu.container_module} {
  func.func @main(%ctx: !llvm.ptr {telar.runtime_context}, %x: memref<8xf32>, %f: f32) -> i32 {
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c4 = arith.constant 4 : index
    gpu.launch_func @k0::@scale blocks in (%c2, %c1, %c1) threads in (%c4, %c1, %c1) args(%x : memref<8xf32>)
    %v = memref.subview %x[4] [4] [1] : memref<8xf32> to memref<4xf32, strided<[1], offset: 4>>
    %true = arith.constant true
    gpu.launch_func @k1::@shift blocks in (%c1, %c1, %c1) threads in (%c4, %c1, %c1) args(%v : memref<4xf32, strided<[1], offset: 4>>, %f : f32, %true : i1)
    gpu.launch_func @k0::@scale blocks in (%c2, %c1, %c1) threads in (%c4, %c1, %c1) args(%x : memref<8xf32>)
    %ok = arith.constant 0 : i32
    return %ok : i32
  }
  gpu.module @k0 {
    gpu.func @scale(%buf: memref<8xf32>) kernel {
      gpu.return
    }
  }
  gpu.module @k1 {
    gpu.func @shift(%buf: memref<4xf32, strided<[1], offset: 4>>, %f: f32, %n: i1) kernel {
      gpu.return
    }
  }
}

// -----

// A constant buffer: a device buffer, filled by telarrt_gpu_upload from the
// host's constant where it is taken, freed at the return.
// CHECK-LABEL: func.func @main
// CHECK:         %[[G:.*]] = memref.get_global @cst : memref<4xf32>
// CHECK:         %[[B:.*]] = memref.alloc() {alignment = 64 : i64} : memref<4xf32>
// CHECK:         %[[N:.*]] = arith.constant 16 : i64
// CHECK:         call @telarrt_gpu_upload(%{{.*}}, %{{.*}}, %{{.*}}, %[[N]])
// CHECK:         memref.extract_aligned_pointer_as_index %[[B]]
// CHECK:         call @telarrt_gpu_launch
// CHECK:         memref.dealloc %[[B]]
// CHECK-NEXT:    return
module attributes {gpu.container_module} {
  memref.global "private" constant @cst : memref<4xf32> = dense<[1.0, 2.0, 3.0, 4.0]>
  func.func @main(%ctx: !llvm.ptr {telar.runtime_context}, %y: memref<4xf32>) -> i32 {
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    %g = memref.get_global @cst : memref<4xf32>
    gpu.launch_func @k::@copy blocks in (%c1, %c1, %c1) threads in (%c4, %c1, %c1) args(%g : memref<4xf32>, %y : memref<4xf32>)
    %ok = arith.constant 0 : i32
    return %ok : i32
  }
  gpu.module @k {
    gpu.func @copy(%a: memref<4xf32>, %b: memref<4xf32>) kernel {
      gpu.return
    }
  }
}

// -----

// Host code that reads a buffer (device memory) is refused.
module attributes {gpu.container_module} {
  func.func @main(%ctx: !llvm.ptr {telar.runtime_context}, %x: memref<4xf32>) -> i32 {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    gpu.launch_func @k::@f blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%x : memref<4xf32>)
    // expected-error @+1 {{host code of a GPU program reads or writes a buffer (the device's memory): only kernels may}}
    %v = memref.load %x[%c0] : memref<4xf32>
    %ok = arith.constant 0 : i32
    return %ok : i32
  }
  gpu.module @k {
    gpu.func @f(%a: memref<4xf32>) kernel {
      gpu.return
    }
  }
}

// -----

// Without the runtime context there is nothing to launch through.
module attributes {gpu.container_module} {
  // expected-error @+1 {{a GPU program's host function needs the runtime context (telar-add-runtime-context)}}
  func.func @main(%x: memref<4xf32>) {
    %c1 = arith.constant 1 : index
    gpu.launch_func @k::@f blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%x : memref<4xf32>)
    return
  }
  gpu.module @k {
    gpu.func @f(%a: memref<4xf32>) kernel {
      gpu.return
    }
  }
}

// -----

// An argument type without a slot.
module attributes {gpu.container_module} {
  func.func @main(%ctx: !llvm.ptr {telar.runtime_context}, %v: vector<4xf32>) -> i32 {
    %c1 = arith.constant 1 : index
    // expected-error @+1 {{kernel argument 0 of type 'vector<4xf32>' cannot be passed to a GPU kernel}}
    gpu.launch_func @k::@f blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%v : vector<4xf32>)
    %ok = arith.constant 0 : i32
    return %ok : i32
  }
  gpu.module @k {
    gpu.func @f(%a: vector<4xf32>) kernel {
      gpu.return
    }
  }
}
