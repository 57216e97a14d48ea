// RUN: telar-opt %s -split-input-file -telar-emulate-gpu -verify-diagnostics

// A barrier only some threads reach (inside control flow) is not emulated.
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @sync(%buf: memref<8xf32>, %c: i1) kernel {
      scf.if %c {
        // expected-error @+1 {{kernel 'kernels::sync' cannot be emulated on the CPU: a 'gpu.barrier' inside control flow (only barriers at the kernel's top level are emulated)}}
        gpu.barrier
      }
      gpu.return
    }
  }
}

// -----

// A shuffle only some threads reach (inside control flow) cannot be an
// exchange between every thread of the block.
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @shuffle(%buf: memref<8xf32>, %v: f32, %c: i1) kernel attributes {known_block_size = array<i32: 32, 1, 1>} {
      %c1 = arith.constant 1 : i32
      %c32 = arith.constant 32 : i32
      scf.if %c {
        // expected-error @+1 {{kernel 'kernels::shuffle' cannot be emulated on the CPU: 'gpu.shuffle' makes its threads depend on each other}}
        %r, %ok = gpu.shuffle xor %v, %c1, %c32 : f32
      }
      gpu.return
    }
  }
}

// -----

// A shuffle's buffer is as long as the block: its size must be known.
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @unsized(%buf: memref<8xf32>, %v: f32) kernel {
      %c1 = arith.constant 1 : i32
      %c32 = arith.constant 32 : i32
      // expected-error @+1 {{kernel 'kernels::unsized' cannot be emulated on the CPU: its shuffles and the values its threads keep across barriers need a known block size (known_block_size)}}
      %r, %ok = gpu.shuffle xor %v, %c1, %c32 : f32
      gpu.return
    }
  }
}

// -----

module attributes {gpu.container_module} {
  gpu.module @kernels {
    // expected-error @+1 {{kernel 'kernels::private' cannot be emulated on the CPU: it has private memory attributions}}
    gpu.func @private(%buf: memref<8xf32>) private(%tile: memref<8xf32, #gpu.address_space<private>>) kernel {
      gpu.return
    }
  }
}

// -----

// A loaded value used after a barrier is kept per thread: without a known
// block size there is no buffer to keep it in.
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @across(%buf: memref<8xf32>) kernel {
      %t = gpu.thread_id x
      // expected-error @+1 {{kernel 'kernels::across' cannot be emulated on the CPU: its shuffles and the values its threads keep across barriers need a known block size (known_block_size)}}
      %v = memref.load %buf[%t] : memref<8xf32>
      gpu.barrier
      %w = arith.addf %v, %v : f32
      memref.store %w, %buf[%t] : memref<8xf32>
      gpu.return
    }
  }
}
