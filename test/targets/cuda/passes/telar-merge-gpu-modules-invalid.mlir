// RUN: telar-opt %s -split-input-file -telar-merge-gpu-modules -verify-diagnostics

// Kernels for different GPUs cannot share a module.
module attributes {gpu.container_module} {
  gpu.module @a [#nvvm.target<chip = "sm_90">] {
    gpu.func @k() kernel {
      gpu.return
    }
  }
  // expected-error @below {{gpu.modules with different attributes (targets, offloading handlers) cannot be merged}}
  gpu.module @b [#nvvm.target<chip = "sm_80">] {
    gpu.func @k() kernel {
      gpu.return
    }
  }
}

