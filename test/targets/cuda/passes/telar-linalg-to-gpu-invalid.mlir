// RUN: telar-opt %s -split-input-file -telar-linalg-to-gpu -verify-diagnostics

func.func @dynamic(%x: memref<?xf32>, %y: memref<?xf32>) {
  // expected-error @+1 {{a GPU kernel needs static loop ranges}}
  linalg.copy ins(%x : memref<?xf32>) outs(%y : memref<?xf32>)
  return
}
