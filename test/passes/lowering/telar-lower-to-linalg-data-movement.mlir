// RUN: telar-opt %s --telar-lower-to-linalg -split-input-file -verify-diagnostics | FileCheck %s

// Reshapes regroup dims with one collapse_shape or expand_shape when they
// can, else collapse the smallest groups of dims whose sizes multiply to
// the same on both sides and expand them (attention's [tokens, 1, heads x
// dim] -> [tokens, heads, dim] keeps its tokens dim: a view of a strided
// buffer stays a view), through 1-D when the groups are everything;
// rank-0 tensors expand with no groups.
// CHECK-LABEL: func.func @reshapes
// CHECK: tensor.collapse_shape %{{.*}} {{\[\[}}0, 1], [2]] : tensor<2x3x4xf32> into tensor<6x4xf32>
// CHECK: tensor.expand_shape %{{.*}} {{\[\[}}0], [1], [2, 3]] output_shape [2, 3, 2, 2]
// CHECK: %[[FLAT:.*]] = tensor.collapse_shape %{{.*}} {{\[\[}}0, 1, 2]] : tensor<2x3x4xf32> into tensor<24xf32>
// CHECK: tensor.expand_shape %[[FLAT]] {{\[\[}}0, 1]] output_shape [4, 6]
// CHECK: tensor.expand_shape %{{.*}} [] output_shape [1, 1] : tensor<f32> into tensor<1x1xf32>
// CHECK: tensor.collapse_shape %{{.*}} {{\[\[}}0, 1], [2]] : tensor<1x3x4xf32> into tensor<3x4xf32>
// CHECK: %[[HEADS:.*]] = tensor.collapse_shape %{{.*}} {{\[\[}}0], [1, 2]] : tensor<5x1x12xf32> into tensor<5x12xf32>
// CHECK: tensor.expand_shape %[[HEADS]] {{\[\[}}0], [1, 2]] output_shape [5, 3, 4] : tensor<5x12xf32> into tensor<5x3x4xf32>
// CHECK: %[[SWAP:.*]] = tensor.collapse_shape %{{.*}} {{\[\[}}0, 1], [2]] : tensor<2x3x4xf32> into tensor<6x4xf32>
// CHECK: tensor.expand_shape %[[SWAP]] {{\[\[}}0, 1], [2]] output_shape [3, 2, 4]
// CHECK: %[[UNIT:.*]] = tensor.collapse_shape %{{.*}} {{\[\[}}0, 1], [2]] : tensor<2x3x4xf32> into tensor<6x4xf32>
// CHECK: tensor.expand_shape %[[UNIT]] {{\[\[}}0], [1, 2]] output_shape [6, 1, 4]
func.func @reshapes(%x: tensor<2x3x4xf32>, %s: tensor<f32>, %e: tensor<1x3x4xf32>, %h: tensor<5x1x12xf32>) -> (tensor<6x4xf32>, tensor<2x3x2x2xf32>, tensor<4x6xf32>, tensor<1x1xf32>, tensor<3x4xf32>, tensor<5x3x4xf32>, tensor<3x2x4xf32>, tensor<6x1x4xf32>) {
  %0 = telar.reshape %x {shape = array<i64: 6, 4>} : (tensor<2x3x4xf32>) -> tensor<6x4xf32>
  %1 = telar.reshape %x {shape = array<i64: 2, 3, 2, 2>} : (tensor<2x3x4xf32>) -> tensor<2x3x2x2xf32>
  %2 = telar.reshape %x {shape = array<i64: 4, 6>} : (tensor<2x3x4xf32>) -> tensor<4x6xf32>
  %3 = telar.unsqueeze %s {axes = array<i64: 0, 1>} : (tensor<f32>) -> tensor<1x1xf32>
  %4 = telar.squeeze %e : (tensor<1x3x4xf32>) -> tensor<3x4xf32>
  %5 = telar.reshape %h {shape = array<i64: 5, 3, 4>} : (tensor<5x1x12xf32>) -> tensor<5x3x4xf32>
  %6 = telar.reshape %x {shape = array<i64: 3, 2, 4>} : (tensor<2x3x4xf32>) -> tensor<3x2x4xf32>
  %7 = telar.reshape %x {shape = array<i64: 6, 1, 4>} : (tensor<2x3x4xf32>) -> tensor<6x1x4xf32>
  return %0, %1, %2, %3, %4, %5, %6, %7 : tensor<6x4xf32>, tensor<2x3x2x2xf32>, tensor<4x6xf32>, tensor<1x1xf32>, tensor<3x4xf32>, tensor<5x3x4xf32>, tensor<3x2x4xf32>, tensor<6x1x4xf32>
}

// -----

// CHECK-LABEL: func.func @transpose
// CHECK: %[[INIT:.*]] = tensor.empty() : tensor<2x4x8x16xf32>
// CHECK: linalg.transpose ins(%{{.*}} : tensor<2x8x4x16xf32>) outs(%[[INIT]] : tensor<2x4x8x16xf32>) permutation = [0, 2, 1, 3]
func.func @transpose(%x: tensor<2x8x4x16xf32>) -> tensor<2x4x8x16xf32> {
  %0 = telar.transpose %x {perm = array<i64: 0, 2, 1, 3>} : (tensor<2x8x4x16xf32>) -> tensor<2x4x8x16xf32>
  return %0 : tensor<2x4x8x16xf32>
}

// -----

// A transpose that only moves unit dimensions keeps the elements in order:
// a reshape, no copy.
// CHECK-LABEL: func.func @transpose_unit_dims
// CHECK-NOT: linalg.transpose
// CHECK: tensor.collapse_shape
// CHECK: tensor.expand_shape
// CHECK-NOT: linalg.transpose
func.func @transpose_unit_dims(%x: tensor<1x32x128xf32>) -> tensor<32x1x128xf32> {
  %0 = telar.transpose %x {perm = array<i64: 1, 0, 2>} : (tensor<1x32x128xf32>) -> tensor<32x1x128xf32>
  return %0 : tensor<32x1x128xf32>
}

// -----

// Concat is a chain of insert_slice into one tensor.empty (empty inputs
// skipped); split is one extract_slice per piece.
// CHECK-LABEL: func.func @concat_split
// CHECK-SAME: (%[[A:.*]]: tensor<2x3xf32>, %[[B:.*]]: tensor<2x0xf32>, %[[C:.*]]: tensor<2x5xf32>)
// CHECK: %[[INIT:.*]] = tensor.empty() : tensor<2x8xf32>
// CHECK: %[[I0:.*]] = tensor.insert_slice %[[A]] into %[[INIT]][0, 0] [2, 3] [1, 1]
// CHECK: %[[CAT:.*]] = tensor.insert_slice %[[C]] into %[[I0]][0, 3] [2, 5] [1, 1]
// CHECK: tensor.extract_slice %[[CAT]][0, 0] [2, 6] [1, 1]
// CHECK: tensor.extract_slice %[[CAT]][0, 6] [2, 2] [1, 1]
func.func @concat_split(%a: tensor<2x3xf32>, %b: tensor<2x0xf32>, %c: tensor<2x5xf32>) -> (tensor<2x6xf32>, tensor<2x2xf32>) {
  %0 = telar.concat %a, %b, %c {axis = 1 : i64} : (tensor<2x3xf32>, tensor<2x0xf32>, tensor<2x5xf32>) -> tensor<2x8xf32>
  %1, %2 = telar.split %0 {axis = 1 : i64, sizes = array<i64: 6, 2>} : (tensor<2x8xf32>) -> (tensor<2x6xf32>, tensor<2x2xf32>)
  return %1, %2 : tensor<2x6xf32>, tensor<2x2xf32>
}

// -----

// A negative step extracts with the positive stride, then a generic reads
// the axis backwards through its indexing map.
// CHECK-DAG: #[[REV:.+]] = affine_map<(d0, d1) -> (d0, -d1 + 3)>
// CHECK-DAG: #[[ID:.+]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-LABEL: func.func @slice_negative_step
// CHECK: %[[S:.*]] = tensor.extract_slice %{{.*}}[0, 1] [2, 4] [1, 2] : tensor<2x8xf32> to tensor<2x4xf32>
// CHECK: linalg.generic {indexing_maps = [#[[REV]], #[[ID]]], iterator_types = ["parallel", "parallel"]} ins(%[[S]] : tensor<2x4xf32>)
func.func @slice_negative_step(%x: tensor<2x8xf32>) -> tensor<2x4xf32> {
  %0 = telar.slice %x {axes = array<i64: 1>, starts = array<i64: -1>, ends = array<i64: -9>, steps = array<i64: -2>} : (tensor<2x8xf32>) -> tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}

// -----

// Gather reads the table with tensor.extract at the wrapped, clamped index.
// CHECK-DAG: #[[IDS:.+]] = affine_map<(d0, d1, d2) -> (d0, d1)>
// CHECK-LABEL: func.func @gather
// CHECK-SAME: (%[[T:.*]]: tensor<1000x64xf32>, %[[I:.*]]: tensor<2x16xi64>)
// CHECK: linalg.generic {indexing_maps = [#[[IDS]], #{{.*}}]{{.*}} ins(%[[I]] : tensor<2x16xi64>)
// CHECK: ^bb0(%[[IN:.*]]: i64, %{{.*}}: f32):
// CHECK: %[[D2:.*]] = linalg.index 2 : index
// CHECK: %[[IDX:.*]] = arith.index_cast %[[IN]] : i64 to index
// CHECK: %[[NEG:.*]] = arith.cmpi slt, %[[IDX]]
// CHECK: %[[WRAP:.*]] = arith.addi %[[IDX]], %c1000
// CHECK: %[[SEL:.*]] = arith.select %[[NEG]], %[[WRAP]], %[[IDX]]
// CHECK: %[[LO:.*]] = arith.maxsi %[[SEL]]
// CHECK: %[[POS:.*]] = arith.minsi %[[LO]], %c999
// CHECK: %[[V:.*]] = tensor.extract %[[T]][%[[POS]], %[[D2]]] : tensor<1000x64xf32>
// CHECK: linalg.yield %[[V]]
func.func @gather(%t: tensor<1000x64xf32>, %i: tensor<2x16xi64>) -> tensor<2x16x64xf32> {
  %0 = telar.gather %t, %i {axis = 0 : i64} : (tensor<1000x64xf32>, tensor<2x16xi64>) -> tensor<2x16x64xf32>
  return %0 : tensor<2x16x64xf32>
}

// -----

// Scatters run sequentially over the updates (duplicates apply in order).
// CHECK-LABEL: func.func @scatter_nd_add
// CHECK-SAME: (%[[D:.*]]: tensor<4x8xf32>, %[[I:.*]]: tensor<2x1xi64>, %[[U:.*]]: tensor<2x8xf32>)
// CHECK: %[[R:.*]] = scf.for %[[A:.*]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[ACC0:.*]] = %[[D]]) -> (tensor<4x8xf32>)
// CHECK: scf.for %[[B:.*]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[ACC:.*]] = %[[ACC0]]) -> (tensor<4x8xf32>)
// CHECK: tensor.extract %[[I]][%[[A]], %{{.*}}] : tensor<2x1xi64>
// CHECK: %[[UPD:.*]] = tensor.extract %[[U]][%[[A]], %[[B]]] : tensor<2x8xf32>
// CHECK: %[[OLD:.*]] = tensor.extract %[[ACC]][%[[ROW:.*]], %[[B]]] : tensor<4x8xf32>
// CHECK: %[[SUM:.*]] = arith.addf %[[OLD]], %[[UPD]] : f32
// CHECK: %[[NEW:.*]] = tensor.insert %[[SUM]] into %[[ACC]][%[[ROW]], %[[B]]] : tensor<4x8xf32>
// CHECK: scf.yield %[[NEW]]
// CHECK: return %[[R]]
func.func @scatter_nd_add(%d: tensor<4x8xf32>, %i: tensor<2x1xi64>, %u: tensor<2x8xf32>) -> tensor<4x8xf32> {
  %0 = telar.scatter_nd %d, %i, %u {reduction = "add"} : (tensor<4x8xf32>, tensor<2x1xi64>, tensor<2x8xf32>) -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

// Expand is a broadcasting generic; tile broadcasts to [r0, d0, r1, d1]
// and collapses the pairs.
// CHECK-DAG: #[[BCAST:.+]] = affine_map<(d0, d1, d2) -> (d1, 0)>
// CHECK-DAG: #[[TILE:.+]] = affine_map<(d0, d1, d2, d3) -> (d1, d3)>
// CHECK-LABEL: func.func @expand_tile
// CHECK: linalg.generic {indexing_maps = [#[[BCAST]], #{{.*}}]{{.*}} ins(%{{.*}} : tensor<3x1xf32>) outs(%{{.*}} : tensor<4x3x8xf32>)
// CHECK: %[[W:.*]] = linalg.generic {indexing_maps = [#[[TILE]], #{{.*}}]{{.*}} ins(%{{.*}} : tensor<2x4xf32>) outs(%{{.*}} : tensor<2x2x3x4xf32>)
// CHECK: tensor.collapse_shape %[[W]] {{\[\[}}0, 1], [2, 3]] : tensor<2x2x3x4xf32> into tensor<4x12xf32>
func.func @expand_tile(%x: tensor<3x1xf32>, %y: tensor<2x4xf32>) -> (tensor<4x3x8xf32>, tensor<4x12xf32>) {
  %0 = telar.expand %x {shape = array<i64: 4, 1, 8>} : (tensor<3x1xf32>) -> tensor<4x3x8xf32>
  %1 = telar.tile %y {repeats = array<i64: 2, 3>} : (tensor<2x4xf32>) -> tensor<4x12xf32>
  return %0, %1 : tensor<4x3x8xf32>, tensor<4x12xf32>
}

// -----

// Constant pads crop negative pads, then tensor.pad; unsigned element types
// pad with the signless bit pattern.
// CHECK-LABEL: func.func @pad_constant
// CHECK: %[[C:.*]] = tensor.extract_slice %{{.*}}[0, 1] [2, 3] [1, 1] : tensor<2x4xi8> to tensor<2x3xi8>
// CHECK: %[[V:.*]] = arith.constant -1 : i8
// CHECK: tensor.pad %[[C]] low[1, 0] high[0, 2]
// CHECK: tensor.yield %[[V]] : i8
// CHECK: } : tensor<2x3xi8> to tensor<3x5xi8>
func.func @pad_constant(%x: tensor<2x4xui8>) -> tensor<3x5xui8> {
  %0 = telar.pad %x {pads = array<i64: 1, -1, 0, 2>, mode = "constant", value = 255.0 : f64} : (tensor<2x4xui8>) -> tensor<3x5xui8>
  return %0 : tensor<3x5xui8>
}

// -----

// Edge padding reads the input at the clamped position.
// CHECK-LABEL: func.func @pad_edge
// CHECK: linalg.generic {{.*}} outs(%{{.*}} : tensor<2x7xf32>)
// CHECK: %[[D1:.*]] = linalg.index 1 : index
// CHECK: %[[X:.*]] = arith.subi %[[D1]], %c1
// CHECK: %[[LO:.*]] = arith.maxsi %[[X]], %c0
// CHECK: %[[HI:.*]] = arith.minsi %[[LO]], %c3
// CHECK: tensor.extract %{{.*}}[%{{.*}}, %[[HI]]] : tensor<2x4xf32>
func.func @pad_edge(%x: tensor<2x4xf32>) -> tensor<2x7xf32> {
  %0 = telar.pad %x {pads = array<i64: 0, 1, 0, 2>, mode = "edge", value = 0.0 : f64} : (tensor<2x4xf32>) -> tensor<2x7xf32>
  return %0 : tensor<2x7xf32>
}

// -----

// Nearest resize reads through per-axis index tables computed at compile
// time; the unchanged axes read their own loop index.
// CHECK-DAG: #[[H:.+]] = affine_map<(d0, d1, d2, d3) -> (d2)>
// CHECK-DAG: #[[W:.+]] = affine_map<(d0, d1, d2, d3) -> (d3)>
// CHECK-LABEL: func.func @resize_nearest
// CHECK-DAG: %[[TH:.*]] = arith.constant dense<[0, 0, 1, 1]> : tensor<4xi64>
// CHECK-DAG: %[[TW:.*]] = arith.constant dense<[0, 0, 1, 1, 2, 2]> : tensor<6xi64>
// CHECK: linalg.generic {indexing_maps = [#[[H]], #[[W]], #{{.*}}]{{.*}} ins(%[[TH]], %[[TW]] : tensor<4xi64>, tensor<6xi64>)
// CHECK: ^bb0(%[[IH:.*]]: i64, %[[IW:.*]]: i64, %{{.*}}: f32):
// CHECK: %[[N:.*]] = linalg.index 0
// CHECK: %[[C:.*]] = linalg.index 1
// CHECK: %[[Y:.*]] = arith.index_cast %[[IH]]
// CHECK: %[[X:.*]] = arith.index_cast %[[IW]]
// CHECK: tensor.extract %{{.*}}[%[[N]], %[[C]], %[[Y]], %[[X]]] : tensor<1x2x2x3xf32>
func.func @resize_nearest(%x: tensor<1x2x2x3xf32>) -> tensor<1x2x4x6xf32> {
  %0 = telar.resize %x {scales = array<f32: 1.0, 1.0, 2.0, 2.0>, sizes = array<i64: 1, 2, 4, 6>, mode = "nearest", coordinate_transformation_mode = "asymmetric", nearest_mode = "floor"} : (tensor<1x2x2x3xf32>) -> tensor<1x2x4x6xf32>
  return %0 : tensor<1x2x4x6xf32>
}

// -----

// Linear resize: two taps (index and weight tables) per resized axis; the
// unchanged axis 0 is read directly. Half-pixel positions of 4 outputs in 3
// inputs: -0.125 (both taps clamp to 0), 0.625, 1.375, 2.125.
// CHECK-DAG: #[[W:.+]] = affine_map<(d0, d1) -> (d1)>
// CHECK-LABEL: func.func @resize_linear
// CHECK-DAG: %[[I0:.*]] = arith.constant dense<[0, 0, 1, 2]> : tensor<4xi64>
// CHECK-DAG: %[[I1:.*]] = arith.constant dense<[0, 1, 2, 2]> : tensor<4xi64>
// CHECK-DAG: %[[W0:.*]] = arith.constant dense<[1.250000e-01, 3.750000e-01, 6.250000e-01, 8.750000e-01]> : tensor<4xf32>
// CHECK-DAG: %[[W1:.*]] = arith.constant dense<[8.750000e-01, 6.250000e-01, 3.750000e-01, 1.250000e-01]> : tensor<4xf32>
// CHECK: linalg.generic {indexing_maps = [#[[W]], #[[W]], #[[W]], #[[W]], #{{.*}}]{{.*}} ins(%[[I0]], %[[I1]], %[[W0]], %[[W1]] :
// CHECK-COUNT-2: tensor.extract
// CHECK-NOT: tensor.extract
// CHECK: linalg.yield
func.func @resize_linear(%x: tensor<2x3xf32>) -> tensor<2x4xf32> {
  %0 = telar.resize %x {scales = array<f32: 1.0, 1.3333334>, sizes = array<i64: 2, 4>, mode = "linear", coordinate_transformation_mode = "half_pixel"} : (tensor<2x3xf32>) -> tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}

// -----

// CHECK-LABEL: func.func @depth_to_space
// CHECK: %[[E:.*]] = tensor.expand_shape %{{.*}} {{\[\[}}0], [1, 2, 3], [4], [5]] output_shape [1, 2, 2, 2, 2, 2] : tensor<1x8x2x2xf32> into tensor<1x2x2x2x2x2xf32>
// CHECK: %[[T:.*]] = linalg.transpose ins(%[[E]] : {{.*}}) outs(%{{.*}} : {{.*}}) permutation = [0, 3, 4, 1, 5, 2]
// CHECK: tensor.collapse_shape %[[T]] {{\[\[}}0], [1], [2, 3], [4, 5]] : tensor<1x2x2x2x2x2xf32> into tensor<1x2x4x4xf32>
func.func @depth_to_space(%x: tensor<1x8x2x2xf32>) -> tensor<1x2x4x4xf32> {
  %0 = telar.depth_to_space %x {blocksize = 2 : i64, mode = "DCR"} : (tensor<1x8x2x2xf32>) -> tensor<1x2x4x4xf32>
  return %0 : tensor<1x2x4x4xf32>
}

// -----

// A result without elements is a tensor.empty.
// CHECK-LABEL: func.func @empty_result
// CHECK-NEXT: %[[E:.*]] = tensor.empty() : tensor<0x4xf32>
// CHECK-NEXT: return %[[E]]
func.func @empty_result(%t: tensor<5x4xf32>, %i: tensor<0xi64>) -> tensor<0x4xf32> {
  %0 = telar.gather %t, %i {axis = 0 : i64} : (tensor<5x4xf32>, tensor<0xi64>) -> tensor<0x4xf32>
  return %0 : tensor<0x4xf32>
}

// -----

func.func @resize_linear_int(%x: tensor<2x3xi32>) -> tensor<2x6xi32> {
  // expected-error @+2 {{'telar.resize' op mode 'linear' is only lowered for float tensors, got 'i32'}}
  // expected-error @+1 {{failed to legalize operation 'telar.resize' that was explicitly marked illegal}}
  %0 = telar.resize %x {scales = array<f32: 1.0, 2.0>, sizes = array<i64: 2, 6>, mode = "linear"} : (tensor<2x3xi32>) -> tensor<2x6xi32>
  return %0 : tensor<2x6xi32>
}
