// RUN: telar-opt %s -split-input-file -telar-emulate-gpu | FileCheck %s
// RUN: telar-opt %s -split-input-file -telar-emulate-gpu=library=true | FileCheck %s --check-prefix=LIB

// The kernel becomes a host function of the block and thread indices and
// the grid and block sizes, then its own arguments; the launch loops over
// the blocks (parallel: z, y, x) and the block's threads (z, y, x).
// CHECK-LABEL: func.func @host
// CHECK-SAME:    (%[[X:.*]]: memref<8xf32>)
// CHECK-DAG:     %[[C0:.*]] = arith.constant 0 : index
// CHECK-DAG:     %[[C1:.*]] = arith.constant 1 : index
// CHECK-DAG:     %[[C2:.*]] = arith.constant 2 : index
// CHECK-DAG:     %[[C4:.*]] = arith.constant 4 : index
// CHECK:         scf.parallel (%[[BZ:.*]], %[[BY:.*]], %[[BX:.*]]) = (%[[C0]], %[[C0]], %[[C0]]) to (%[[C1]], %[[C1]], %[[C2]])
// CHECK:           scf.for %[[TZ:.*]] = %[[C0]] to %[[C1]]
// CHECK:             scf.for %[[TY:.*]] = %[[C0]] to %[[C1]]
// CHECK:               scf.for %[[TX:.*]] = %[[C0]] to %[[C4]]
// CHECK:                 func.call @__telar_emulated_kernels_scale(%[[BX]], %[[BY]], %[[BZ]], %[[TX]], %[[TY]], %[[TZ]], %[[C2]], %[[C1]], %[[C1]], %[[C4]], %[[C1]], %[[C1]], %[[X]])
// CHECK-NOT:     gpu.launch_func
// CHECK-NOT:   gpu.module
// CHECK:       func.func private @__telar_emulated_kernels_scale(%[[A0:.*]]: index, %{{.*}}: index, %{{.*}}: index, %[[A3:.*]]: index, %{{.*}}: index, %{{.*}}: index, %{{.*}}: index, %{{.*}}: index, %{{.*}}: index, %[[A9:.*]]: index, %{{.*}}: index, %{{.*}}: index, %[[BUF:.*]]: memref<8xf32>)
// CHECK:         %[[P:.*]] = arith.muli %[[A0]], %[[A9]] : index
// CHECK:         %[[I:.*]] = arith.addi %[[P]], %[[A3]] : index
// CHECK:         memref.load %[[BUF]][%[[I]]]
// CHECK:         return

// The kernel library of the CUDA emulator: the host functions go; each
// kernel gets a public launcher of the grid and block sizes and its own
// arguments, running the same loops.
// LIB-NOT:     func.func @host
// LIB:         func.func private @__telar_emulated_kernels_scale(
// LIB-LABEL:   func.func @__telar_launch_kernels_scale
// LIB-SAME:      (%[[GX:.*]]: index, %[[GY:.*]]: index, %[[GZ:.*]]: index, %[[BX:.*]]: index, %[[BY:.*]]: index, %[[BZ:.*]]: index, %[[BUF:.*]]: memref<8xf32>)
// LIB:           scf.parallel (%[[IZ:.*]], %[[IY:.*]], %[[IX:.*]]) = ({{.*}}) to (%[[GZ]], %[[GY]], %[[GX]])
// LIB:             scf.for %[[TZ:.*]] = %{{.*}} to %[[BZ]]
// LIB:               scf.for %[[TY:.*]] = %{{.*}} to %[[BY]]
// LIB:                 scf.for %[[TX:.*]] = %{{.*}} to %[[BX]]
// LIB:                   func.call @__telar_emulated_kernels_scale(%[[IX]], %[[IY]], %[[IZ]], %[[TX]], %[[TY]], %[[TZ]], %[[GX]], %[[GY]], %[[GZ]], %[[BX]], %[[BY]], %[[BZ]], %[[BUF]])
// LIB-NOT:     gpu.module
module attributes {gpu.container_module} {
  func.func @host(%x: memref<8xf32>) {
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c4 = arith.constant 4 : index
    gpu.launch_func @kernels::@scale blocks in (%c2, %c1, %c1) threads in (%c4, %c1, %c1) args(%x : memref<8xf32>)
    return
  }
  gpu.module @kernels {
    gpu.func @scale(%buf: memref<8xf32>) kernel {
      %b = gpu.block_id x
      %t = gpu.thread_id x
      %n = gpu.block_dim x
      %p = arith.muli %b, %n : index
      %i = arith.addi %p, %t : index
      %v = memref.load %buf[%i] : memref<8xf32>
      %w = arith.addf %v, %v : f32
      memref.store %w, %buf[%i] : memref<8xf32>
      gpu.return
    }
  }
}

// -----

// A kernel with a barrier at its top level and a workgroup buffer: one host
// function per stretch (s0 before the barrier, s1 after), the buffer host
// memory passed to both; each block allocates it and runs all its threads
// through s0, then through s1. What s1 uses of s0 is pure (the index) and
// recomputed; the loaded value crosses through the buffer.
// CHECK-LABEL: func.func @host
// CHECK:         scf.parallel
// CHECK:           %[[TILE:.*]] = memref.alloc() : memref<4xf32>
// CHECK:           scf.for
// CHECK:             scf.for
// CHECK:               scf.for
// CHECK:                 func.call @__telar_emulated_kernels_reverse_s0({{.*}}, %[[TILE]])
// CHECK:           scf.for
// CHECK:             scf.for
// CHECK:               scf.for
// CHECK:                 func.call @__telar_emulated_kernels_reverse_s1({{.*}}, %[[TILE]])
// CHECK:           memref.dealloc %[[TILE]]
// CHECK:       func.func private @__telar_emulated_kernels_reverse_s0(%{{[a-z0-9]+}}: index, %{{[a-z0-9]+}}: index, %{{[a-z0-9]+}}: index, %[[T:[a-z0-9]+]]: index, {{.*}}, %[[BUF:[a-z0-9]+]]: memref<4xf32>, %[[SH:[a-z0-9]+]]: memref<4xf32>)
// CHECK:         %[[V:.*]] = memref.load %[[BUF]][%[[T]]]
// CHECK-NEXT:    memref.store %[[V]], %[[SH]][%[[T]]]
// CHECK-NEXT:    return
// CHECK:       func.func private @__telar_emulated_kernels_reverse_s1(%{{[a-z0-9]+}}: index, %{{[a-z0-9]+}}: index, %{{[a-z0-9]+}}: index, %[[T:[a-z0-9]+]]: index, {{.*}}, %[[BUF:[a-z0-9]+]]: memref<4xf32>, %[[SH:[a-z0-9]+]]: memref<4xf32>)
// CHECK-DAG:     %[[C3:.*]] = arith.constant 3 : index
// CHECK:         %[[R:.*]] = arith.subi %[[C3]], %[[T]]
// CHECK-NEXT:    %[[W:.*]] = memref.load %[[SH]][%[[R]]]
// CHECK-NEXT:    memref.store %[[W]], %[[BUF]][%[[T]]]
// CHECK-NEXT:    return
// CHECK-NOT:   gpu.barrier
// LIB-LABEL:   func.func @__telar_launch_kernels_reverse
// LIB:           memref.alloc() : memref<4xf32>
// LIB:           func.call @__telar_emulated_kernels_reverse_s0(
// LIB:           func.call @__telar_emulated_kernels_reverse_s1(
module attributes {gpu.container_module} {
  func.func @host(%x: memref<4xf32>) {
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    gpu.launch_func @kernels::@reverse blocks in (%c1, %c1, %c1) threads in (%c4, %c1, %c1) args(%x : memref<4xf32>)
    return
  }
  gpu.module @kernels {
    gpu.func @reverse(%buf: memref<4xf32>) workgroup(%tile: memref<4xf32, #gpu.address_space<workgroup>>) kernel {
      %c3 = arith.constant 3 : index
      %t = gpu.thread_id x
      %r = arith.subi %c3, %t : index
      %v = memref.load %buf[%t] : memref<4xf32>
      memref.store %v, %tile[%t] : memref<4xf32, #gpu.address_space<workgroup>>
      gpu.barrier
      %w = memref.load %tile[%r] : memref<4xf32, #gpu.address_space<workgroup>>
      memref.store %w, %buf[%t] : memref<4xf32>
      gpu.return
    }
  }
}

// -----

// A shuffle at the top level: an exchange through a block-wide buffer (the
// value stored at the thread's linear index, a barrier, the partner lane's
// loaded: lane ^ 16 in its group of 32); the loaded value the thread keeps
// across that barrier is kept in a block-local buffer of its own. Both
// buffers are the block's (32 threads: known_block_size).
// CHECK-LABEL: func.func @host_shuffle
// CHECK:         scf.parallel
// CHECK:           %[[XCHG:.*]] = memref.alloc() : memref<32xf32>
// CHECK:           %[[KEEP:.*]] = memref.alloc() : memref<32xf32>
// CHECK:           func.call @__telar_emulated_kernels_warp_sum_s0({{.*}}, %[[XCHG]], %[[KEEP]])
// CHECK:           func.call @__telar_emulated_kernels_warp_sum_s1({{.*}}, %[[XCHG]], %[[KEEP]])
// CHECK:       func.func private @__telar_emulated_kernels_warp_sum_s0({{.*}}, %[[BUF:[a-z0-9]+]]: memref<32xf32>, %[[X0:[a-z0-9]+]]: memref<32xf32>, %[[K0:[a-z0-9]+]]: memref<32xf32>)
// CHECK:         %[[V:.*]] = memref.load %[[BUF]]
// CHECK:         memref.store %[[V]], %[[K0]]
// CHECK:         memref.store %[[V]], %[[X0]]
// CHECK:         return
// CHECK:       func.func private @__telar_emulated_kernels_warp_sum_s1({{.*}}, %[[BUF1:[a-z0-9]+]]: memref<32xf32>, %[[X1:[a-z0-9]+]]: memref<32xf32>, %[[K1:[a-z0-9]+]]: memref<32xf32>)
// CHECK:         %[[MINE:.*]] = memref.load %[[K1]]
// CHECK:         %[[LANE:.*]] = arith.remui
// CHECK:         %[[PEER:.*]] = arith.xori
// CHECK:         %[[OK:.*]] = arith.cmpi ult, %[[PEER]]
// CHECK:         %[[FROM:.*]] = arith.select %[[OK]]
// CHECK:         %[[THEIRS:.*]] = memref.load %[[X1]][%[[FROM]]]
// CHECK:         %[[SUM:.*]] = arith.addf %[[MINE]], %[[THEIRS]]
// CHECK:         memref.store %[[SUM]], %[[BUF1]]
module attributes {gpu.container_module} {
  func.func @host_shuffle(%x: memref<32xf32>) {
    %c1 = arith.constant 1 : index
    %c32 = arith.constant 32 : index
    gpu.launch_func @kernels::@warp_sum blocks in (%c1, %c1, %c1) threads in (%c32, %c1, %c1) args(%x : memref<32xf32>)
    return
  }
  gpu.module @kernels {
    gpu.func @warp_sum(%buf: memref<32xf32>) kernel attributes {known_block_size = array<i32: 32, 1, 1>} {
      %t = gpu.thread_id x
      %v = memref.load %buf[%t] : memref<32xf32>
      %c16 = arith.constant 16 : i32
      %c32 = arith.constant 32 : i32
      %r, %ok = gpu.shuffle xor %v, %c16, %c32 : f32
      %s = arith.addf %v, %r : f32
      memref.store %s, %buf[%t] : memref<32xf32>
      gpu.return
    }
  }
}
