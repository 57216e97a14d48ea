// RUN: telar-opt %s -split-input-file -telar-contractions-to-gpu-library -verify-diagnostics

// The call takes the runtime context: a function without one is an error.
func.func @no_context(%a: memref<4x8xf32>, %b: memref<8x3xf32>, %c: memref<4x3xf32>) {
  // expected-error @below {{a GPU library call needs the enclosing function's runtime context (run telar-add-runtime-context first)}}
  linalg.matmul ins(%a, %b : memref<4x8xf32>, memref<8x3xf32>) outs(%c : memref<4x3xf32>)
  return
}
