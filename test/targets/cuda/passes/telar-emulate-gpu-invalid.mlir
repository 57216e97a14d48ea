// RUN: telar-opt %s -split-input-file -telar-emulate-gpu -verify-diagnostics

// Threads that wait for each other cannot run one after the other.
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @sync(%buf: memref<8xf32>) kernel {
      // expected-error @+1 {{kernel 'kernels::sync' cannot be emulated on the CPU: 'gpu.barrier' makes its threads depend on each other}}
      gpu.barrier
      gpu.return
    }
  }
}

// -----

module attributes {gpu.container_module} {
  gpu.module @kernels {
    // expected-error @+1 {{kernel 'kernels::shared' cannot be emulated on the CPU: it has workgroup or private memory attributions}}
    gpu.func @shared(%buf: memref<8xf32>) workgroup(%tile: memref<8xf32, #gpu.address_space<workgroup>>) kernel {
      gpu.return
    }
  }
}
