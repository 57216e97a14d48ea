// RUN: telar-opt %s --pass-pipeline='builtin.module(func.func(telar-merge-parallel-regions))' -split-input-file | FileCheck %s

// Three regions with an allocation, a deallocation and views between
// them: one region with the three loops; the allocation and the views
// move above it, the deallocation below.
// CHECK-LABEL: func.func @three
// CHECK: memref.alloc
// CHECK: memref.collapse_shape
// CHECK: memref.collapse_shape
// CHECK: omp.parallel
// CHECK: math.exp
// CHECK: omp.wsloop
// CHECK: arith.addf
// CHECK: omp.wsloop
// CHECK: arith.mulf
// CHECK: omp.terminator
// CHECK-NOT: omp.parallel
// CHECK: memref.dealloc %[[T:.*]] :
// CHECK: memref.dealloc
// CHECK: return
func.func @three(%a: memref<64xf32>, %b: memref<64xf32>, %t: memref<64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  omp.parallel {
    omp.wsloop {
      omp.loop_nest (%i) : index = (%c0) to (%c64) step (%c1) {
        %x = memref.load %a[%i] : memref<64xf32>
        %e = math.exp %x : f32
        memref.store %e, %t[%i] : memref<64xf32>
        omp.yield
      }
    }
    omp.terminator
  }
  %u = memref.alloc() : memref<64xf32>
  omp.parallel {
    omp.wsloop {
      omp.loop_nest (%i) : index = (%c0) to (%c64) step (%c1) {
        %x = memref.load %t[%i] : memref<64xf32>
        %e = arith.addf %x, %x : f32
        memref.store %e, %u[%i] : memref<64xf32>
        omp.yield
      }
    }
    omp.terminator
  }
  memref.dealloc %t : memref<64xf32>
  %v = memref.expand_shape %u [[0, 1]] output_shape [8, 8] : memref<64xf32> into memref<8x8xf32>
  %vf = memref.collapse_shape %v [[0, 1]] : memref<8x8xf32> into memref<64xf32>
  %w = memref.expand_shape %b [[0, 1]] output_shape [8, 8] : memref<64xf32> into memref<8x8xf32>
  %wf = memref.collapse_shape %w [[0, 1]] : memref<8x8xf32> into memref<64xf32>
  omp.parallel {
    omp.wsloop {
      omp.loop_nest (%i) : index = (%c0) to (%c64) step (%c1) {
        %x = memref.load %vf[%i] : memref<64xf32>
        %e = arith.mulf %x, %x : f32
        memref.store %e, %wf[%i] : memref<64xf32>
        omp.yield
      }
    }
    omp.terminator
  }
  memref.dealloc %u : memref<64xf32>
  return
}

// -----

// A store between two regions (a sequential op touching memory) keeps
// them apart.
// CHECK-LABEL: func.func @store_between
// CHECK: omp.parallel
// CHECK: omp.terminator
// CHECK: memref.store
// CHECK: omp.parallel
func.func @store_between(%a: memref<64xf32>, %s: f32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  omp.parallel {
    omp.wsloop {
      omp.loop_nest (%i) : index = (%c0) to (%c64) step (%c1) {
        memref.store %s, %a[%i] : memref<64xf32>
        omp.yield
      }
    }
    omp.terminator
  }
  memref.store %s, %a[%c0] : memref<64xf32>
  omp.parallel {
    omp.wsloop {
      omp.loop_nest (%i) : index = (%c0) to (%c64) step (%c1) {
        memref.store %s, %a[%i] : memref<64xf32>
        omp.yield
      }
    }
    omp.terminator
  }
  return
}

// -----

// A region with a clause (num_threads) is not merged, nor is a loop
// without its end barrier (nowait).
// CHECK-LABEL: func.func @clauses
// CHECK-COUNT-3: omp.parallel
func.func @clauses(%a: memref<64xf32>, %s: f32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : i32
  %c64 = arith.constant 64 : index
  omp.parallel {
    omp.wsloop nowait {
      omp.loop_nest (%i) : index = (%c0) to (%c64) step (%c1) {
        memref.store %s, %a[%i] : memref<64xf32>
        omp.yield
      }
    }
    omp.terminator
  }
  omp.parallel {
    omp.wsloop {
      omp.loop_nest (%i) : index = (%c0) to (%c64) step (%c1) {
        memref.store %s, %a[%i] : memref<64xf32>
        omp.yield
      }
    }
    omp.terminator
  }
  omp.parallel num_threads(%c2 : i32) {
    omp.wsloop {
      omp.loop_nest (%i) : index = (%c0) to (%c64) step (%c1) {
        memref.store %s, %a[%i] : memref<64xf32>
        omp.yield
      }
    }
    omp.terminator
  }
  return
}
