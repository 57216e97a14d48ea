// RUN: telar-opt %s -split-input-file -telar-linalg-to-gpu=block-size=4 | FileCheck %s
// RUN: telar-opt %s -split-input-file -telar-linalg-to-gpu | FileCheck %s --check-prefix=WARPS

// Ten row maxima on blocks of 4 threads: 3 blocks, the threads past row 9
// do nothing; each thread loops over its row's 3 columns, accumulating in
// place.
// CHECK-LABEL: func.func @rows
// CHECK-DAG:   %[[C3:.*]] = arith.constant 3 : index
// CHECK-DAG:   %[[C4:.*]] = arith.constant 4 : index
// CHECK:       gpu.launch blocks(%[[BX:.*]], %{{.*}}, %{{.*}}) in ({{.*}} = %[[C3]], {{.*}}) threads(%[[TX:.*]], %{{.*}}, %{{.*}}) in ({{.*}} = %[[C4]],
// CHECK:         %[[B:.*]] = arith.muli %[[BX]], %{{.*}} : index
// CHECK:         %[[P:.*]] = arith.addi %[[B]], %[[TX]] : index
// CHECK:         %[[IN:.*]] = arith.cmpi ult, %[[P]], %{{.*}} : index
// CHECK:         scf.if %[[IN]] {
// CHECK:           scf.for %[[K:.*]] = %{{.*}} to %{{.*}} step
// CHECK:             memref.load %arg0
// CHECK:             %[[ACC:.*]] = memref.load %arg1
// CHECK:             %[[M:.*]] = arith.maximumf %{{.*}}, %[[ACC]] : f32
// CHECK:             memref.store %[[M]], %arg1
// CHECK:         gpu.terminator
// CHECK-NOT:   linalg.generic
#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
func.func @rows(%x: memref<10x3xf32>, %y: memref<10xf32>) {
  linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]} ins(%x : memref<10x3xf32>) outs(%y : memref<10xf32>) {
  ^bb0(%in: f32, %out: f32):
    %m = arith.maximumf %in, %out : f32
    linalg.yield %m : f32
  }
  return
}

// -----

// 2 x 4 points: two blocks of 4 threads, no guard. The reduction (dim 1)
// moves innermost: each thread delinearises its point into (dim 0, dim 2)
// and loops over dim 1 (the interchanged maps read x[d0, d2, d1]).
// CHECK-DAG:   #[[D0:.*]] = affine_map<(d0, d1, d2) -> (d0)>
// CHECK-DAG:   #[[D2:.*]] = affine_map<(d0, d1, d2) -> (d2)>
// CHECK-LABEL: func.func @middle
// CHECK:       gpu.launch
// CHECK-NOT:     scf.if
// CHECK:         %[[COL:.*]] = arith.remui %{{.*}}, %{{.*}} : index
// CHECK:         %[[ROW:.*]] = arith.divui %{{.*}}, %{{.*}} : index
// CHECK:         scf.for %[[K:.*]] = %{{.*}} to %{{.*}} step
// CHECK:           affine.apply #[[D0]](%[[ROW]], %[[COL]], %[[K]])
// CHECK:           affine.apply #[[D2]](%[[ROW]], %[[COL]], %[[K]])
// CHECK:           memref.load %arg0
// CHECK:           memref.load %arg1
// CHECK-NEXT:      arith.addf
// CHECK-NEXT:      memref.store
#m3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#o3 = affine_map<(d0, d1, d2) -> (d0, d2)>
func.func @middle(%x: memref<2x5x4xf32>, %y: memref<2x4xf32>) {
  linalg.generic {indexing_maps = [#m3, #o3], iterator_types = ["parallel", "reduction", "parallel"]} ins(%x : memref<2x5x4xf32>) outs(%y : memref<2x4xf32>) {
  ^bb0(%in: f32, %out: f32):
    %s = arith.addf %in, %out : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// A copy and a fill are kernels too; the fill's value is a constant of
// the kernel, not an argument.
// CHECK-LABEL: func.func @copy_fill
// CHECK:       gpu.launch
// CHECK:         memref.load %arg0
// CHECK:         memref.store
// CHECK:       gpu.launch
// CHECK:         %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK:         memref.store %[[ZERO]], %arg1
// CHECK-NOT:   memref.copy
// CHECK-NOT:   linalg.fill
func.func @copy_fill(%x: memref<8xf32>, %y: memref<8xf32>) {
  memref.copy %x, %y : memref<8xf32> to memref<8xf32>
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%y : memref<8xf32>)
  return
}

// -----

// What still touches buffers on the host (a scatter's loop, no linalg op)
// runs as a kernel of one thread, in place, after the kernel before it.
// CHECK-LABEL: func.func @scatter_loop
// CHECK:       gpu.launch
// CHECK:         arith.sitofp
// CHECK:       gpu.launch blocks({{.*}}) in ({{.*}} = %[[ONE:.*]], {{.*}} = %[[ONE]], {{.*}} = %[[ONE]]) threads({{.*}}) in ({{.*}} = %[[ONE]], {{.*}} = %[[ONE]], {{.*}} = %[[ONE]])
// CHECK:         scf.for
// CHECK:           memref.load %arg1
// CHECK:           memref.store {{.*}}, %arg0
// CHECK:         gpu.terminator
// CHECK-NEXT:  }
// CHECK-NEXT:  return
func.func @scatter_loop(%y: memref<4xf32>, %idx: memref<2xindex>) {
  linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} outs(%y : memref<4xf32>) {
  ^bb0(%out: f32):
    %i = linalg.index 0 : index
    %c = arith.index_cast %i : index to i32
    %f = arith.sitofp %c : i32 to f32
    linalg.yield %f : f32
  }
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %one = arith.constant 1.0 : f32
  scf.for %k = %c0 to %c2 step %c1 {
    %j = memref.load %idx[%k] : memref<2xindex>
    memref.store %one, %y[%j] : memref<4xf32>
  }
  return
}

// -----

// A scalar read from an argument for a kernel is read by the kernel.
// CHECK-LABEL: func.func @scalar_for_kernel
// CHECK-NOT:   memref.load
// CHECK:       gpu.launch
// CHECK:         %[[V:.*]] = memref.load %arg1[
// CHECK:         memref.store %[[V]], %arg0
func.func @scalar_for_kernel(%y: memref<4xf32>, %v: memref<2xf32>) {
  %c1 = arith.constant 1 : index
  %s = memref.load %v[%c1] : memref<2xf32>
  linalg.fill ins(%s : f32) outs(%y : memref<4xf32>)
  return
}

// -----

// A reduction of rows at least row-reduction-min (32) long: one block per
// row of 4 threads (block-size), each folding a strided share from the
// identity (-inf for a max), the shares combined by a tree in shared
// memory with a barrier after each level, thread 0 folding the total into
// the output.
// CHECK-LABEL: func.func @row_max
// CHECK-DAG:   %[[C1:.*]] = arith.constant 1 : index
// CHECK-DAG:   %[[C3:.*]] = arith.constant 3 : index
// CHECK-DAG:   %[[C4:.*]] = arith.constant 4 : index
// CHECK:       gpu.launch blocks(%[[B:.*]], %{{.*}}, %{{.*}}) in (%{{.*}} = %[[C3]], %{{.*}} = %[[C1]], %{{.*}} = %[[C1]]) threads(%[[T:.*]], %{{.*}}, %{{.*}}) in (%{{.*}} = %[[C4]], %{{.*}} = %[[C1]], %{{.*}} = %[[C1]]) workgroup(%[[SH:.*]] : memref<4xf32, #gpu.address_space<workgroup>>)
// CHECK-DAG:     %[[NINF:.*]] = arith.constant 0xFF800000 : f32
// CHECK-DAG:     %[[C40:.*]] = arith.constant 40 : index
// CHECK:         %[[SHARE:.*]] = scf.for %[[R:.*]] = %[[T]] to %[[C40]] step %{{.*}} iter_args(%[[ACC:.*]] = %[[NINF]]) -> (f32) {
// CHECK:           affine.apply #{{.*}}(%[[B]], %[[R]])
// CHECK:           %[[X:.*]] = memref.load %arg0[
// CHECK:           %[[M:.*]] = arith.maximumf %[[ACC]], %[[X]] : f32
// CHECK:           scf.yield %[[M]]
// CHECK:         memref.store %[[SHARE]], %[[SH]][%[[T]]]
// CHECK-NEXT:    gpu.barrier
// CHECK:         scf.if
// CHECK:           arith.maximumf
// CHECK:         gpu.barrier
// CHECK:         scf.if
// CHECK:           arith.maximumf
// CHECK:         gpu.barrier
// CHECK:         scf.if
// CHECK:           %[[I:.*]] = affine.apply #{{.*}}(%[[B]], %{{.*}})
// CHECK:           %[[OLD:.*]] = memref.load %arg1[%[[I]]]
// CHECK:           %[[ALL:.*]] = memref.load %[[SH]][%{{.*}}]
// CHECK:           %[[NEW:.*]] = arith.maximumf %[[OLD]], %[[ALL]] : f32
// CHECK:           memref.store %[[NEW]], %arg1[%[[I]]]
// CHECK-NOT:     gpu.barrier
// CHECK:         gpu.terminator
func.func @row_max(%x: memref<3x40xf32>, %y: memref<3xf32>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%x : memref<3x40xf32>) outs(%y : memref<3xf32>) {
  ^bb0(%in: f32, %out: f32):
    %m = arith.maximumf %out, %in : f32
    linalg.yield %m : f32
  }
  return
}

// -----

// Rows of f32 on whole warps (256 threads, the default block size: 8
// warps): each warp combines its threads' shares by butterfly shuffles
// (16, 8, 4, 2, 1), its first lane writes the warp's sum to shared memory
// (8 values), one barrier, then every warp combines those 8 by shuffles
// (4, 2, 1) and thread 0 folds the total into the output.
// WARPS-LABEL: func.func @row_sum_warps
// WARPS:       gpu.launch {{.*}} workgroup(%[[SH:.*]] : memref<8xf32, #gpu.address_space<workgroup>>)
// WARPS:         %[[SHARE:.*]] = scf.for
// WARPS:         %[[R16:.*]], %{{.*}} = gpu.shuffle  xor %[[SHARE]], %c16_i32{{[_0-9]*}}, %c32_i32{{[_0-9]*}} : f32
// WARPS-NEXT:    %[[S16:.*]] = arith.addf %[[SHARE]], %[[R16]] : f32
// WARPS:         gpu.shuffle  xor %{{.*}}, %c8_i32{{[_0-9]*}}, %c32_i32{{[_0-9]*}}
// WARPS:         gpu.shuffle  xor %{{.*}}, %c4_i32{{[_0-9]*}}, %c32_i32{{[_0-9]*}}
// WARPS:         gpu.shuffle  xor %{{.*}}, %c2_i32{{[_0-9]*}}, %c32_i32{{[_0-9]*}}
// WARPS:         %[[R1:.*]], %{{.*}} = gpu.shuffle  xor %{{.*}}, %c1_i32{{[_0-9]*}}, %c32_i32{{[_0-9]*}}
// WARPS-NEXT:    %[[WARP:.*]] = arith.addf %{{.*}}, %[[R1]] : f32
// WARPS:         scf.if
// WARPS-NEXT:      memref.store %[[WARP]], %[[SH]]
// WARPS:         gpu.barrier
// WARPS:         memref.load %[[SH]]
// WARPS:         gpu.shuffle  xor %{{.*}}, %c4_i32{{[_0-9]*}}, %c32_i32{{[_0-9]*}}
// WARPS:         gpu.shuffle  xor %{{.*}}, %c2_i32{{[_0-9]*}}, %c32_i32{{[_0-9]*}}
// WARPS:         %[[L1:.*]], %{{.*}} = gpu.shuffle  xor %{{.*}}, %c1_i32{{[_0-9]*}}, %c32_i32{{[_0-9]*}}
// WARPS-NEXT:    %[[TOTAL:.*]] = arith.addf %{{.*}}, %[[L1]] : f32
// WARPS-NOT:     gpu.barrier
// WARPS:         scf.if
// WARPS:           %[[OLD:.*]] = memref.load %arg1
// WARPS:           arith.addf %[[OLD]], %[[TOTAL]] : f32
// WARPS:         gpu.terminator
func.func @row_sum_warps(%x: memref<2x512xf32>, %y: memref<2xf32>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%x : memref<2x512xf32>) outs(%y : memref<2xf32>) {
  ^bb0(%in: f32, %out: f32):
    %s = arith.addf %out, %in : f32
    linalg.yield %s : f32
  }
  return
}
