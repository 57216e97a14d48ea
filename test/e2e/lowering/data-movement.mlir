// Numeric checks of the data-movement lowering through MLIR's JIT runner.
// Expected values come from the ONNX reference evaluator, checked against
// onnxruntime (which alone gives one_hot: the reference wraps out-of-range
// indices, against the spec). Regenerate with Inputs/gen_data_movement.py.
// RUN: telar-opt %s %lower_standalone | %mlir_runner -e entry | FileCheck %s
// RUN: telar-opt %s %lower_emulated_gpu | timeout 300 %mlir_runner -e entry | FileCheck %s

// Regrouping dims that are not one collapse or expand (through 1-D).
func.func @reshape(%a0: tensor<2x3x4xf32>) {
  %r0 = telar.reshape %a0 {shape = array<i64: 4, 6>} : (tensor<2x3x4xf32>) -> tensor<4x6xf32>
  %u0 = tensor.cast %r0 : tensor<4x6xf32> to tensor<*xf32>
  call @printMemrefF32(%u0) : (tensor<*xf32>) -> ()
  return
}
// CHECK: sizes = [4, 6] strides = {{.*}} data =
// CHECK-NEXT: {{\[\[}}0,   1,   2,   3,   4,   5],
// CHECK-NEXT: [6,   7,   8,   9,   10,   11],
// CHECK-NEXT: [12,   13,   14,   15,   16,   17],
// CHECK-NEXT: [18,   19,   20,   21,   22,   23]]

func.func @transpose(%a0: tensor<2x3x4xf32>) {
  %r0 = telar.transpose %a0 {perm = array<i64: 2, 0, 1>} : (tensor<2x3x4xf32>) -> tensor<4x2x3xf32>
  %u0 = tensor.cast %r0 : tensor<4x2x3xf32> to tensor<*xf32>
  call @printMemrefF32(%u0) : (tensor<*xf32>) -> ()
  return
}
// CHECK: sizes = [4, 2, 3] strides = {{.*}} data =
// CHECK-NEXT: {{\[\[\[}}0,    4,    8],
// CHECK-NEXT: [12,    16,    20]],
// CHECK-NEXT: {{\[\[}}1,    5,    9],
// CHECK-NEXT: [13,    17,    21]],
// CHECK-NEXT: {{\[\[}}2,    6,    10],
// CHECK-NEXT: [14,    18,    22]],
// CHECK-NEXT: {{\[\[}}3,    7,    11],
// CHECK-NEXT: [15,    19,    23]]]

// Concat along axis 1, then split the result into 1, 4 and 2 columns.
func.func @concat_split(%a0: tensor<2x4xf32>, %a1: tensor<2x3xf32>) {
  %c = telar.concat %a0, %a1 {axis = 1 : i64} : (tensor<2x4xf32>, tensor<2x3xf32>) -> tensor<2x7xf32>
  %r0, %r1, %r2 = telar.split %c {axis = -1 : i64, sizes = array<i64: 1, 4, 2>} : (tensor<2x7xf32>) -> (tensor<2x1xf32>, tensor<2x4xf32>, tensor<2x2xf32>)
  %u0 = tensor.cast %r0 : tensor<2x1xf32> to tensor<*xf32>
  call @printMemrefF32(%u0) : (tensor<*xf32>) -> ()
  %u1 = tensor.cast %r1 : tensor<2x4xf32> to tensor<*xf32>
  call @printMemrefF32(%u1) : (tensor<*xf32>) -> ()
  %u2 = tensor.cast %r2 : tensor<2x2xf32> to tensor<*xf32>
  call @printMemrefF32(%u2) : (tensor<*xf32>) -> ()
  return
}
// CHECK: sizes = [2, 1] strides = {{.*}} data =
// CHECK-NEXT: {{\[\[}}1],
// CHECK-NEXT: [5]]
// CHECK: sizes = [2, 4] strides = {{.*}} data =
// CHECK-NEXT: {{\[\[}}2,   3,   4,   9],
// CHECK-NEXT: [6,   7,   8,   12]]
// CHECK: sizes = [2, 2] strides = {{.*}} data =
// CHECK-NEXT: {{\[\[}}10,   11],
// CHECK-NEXT: [13,   14]]

// A negative step on axis 1 (clamped start), a positive step on axis 2.
func.func @slice(%a0: tensor<2x3x4xf32>) {
  %r0 = telar.slice %a0 {axes = array<i64: 1, -1>, starts = array<i64: 100, 1>, ends = array<i64: -100, 4>, steps = array<i64: -2, 2>} : (tensor<2x3x4xf32>) -> tensor<2x2x2xf32>
  %u0 = tensor.cast %r0 : tensor<2x2x2xf32> to tensor<*xf32>
  call @printMemrefF32(%u0) : (tensor<*xf32>) -> ()
  return
}
// CHECK: sizes = [2, 2, 2] strides = {{.*}} data =
// CHECK-NEXT: {{\[\[\[}}9,    11],
// CHECK-NEXT: [1,    3]],
// CHECK-NEXT: {{\[\[}}21,    23],
// CHECK-NEXT: [13,    15]]]

// Indices [3, 2] along axis 1, negative ones wrap.
func.func @gather(%a0: tensor<2x3x4xf32>, %a1: tensor<3x2xi64>) {
  %r0 = telar.gather %a0, %a1 {axis = 1 : i64} : (tensor<2x3x4xf32>, tensor<3x2xi64>) -> tensor<2x3x2x4xf32>
  %u0 = tensor.cast %r0 : tensor<2x3x2x4xf32> to tensor<*xf32>
  call @printMemrefF32(%u0) : (tensor<*xf32>) -> ()
  return
}
// CHECK: sizes = [2, 3, 2, 4] strides = {{.*}} data =
// CHECK-NEXT: {{\[\[\[\[}}0,     1,     2,     3],
// CHECK-NEXT: [8,     9,     10,     11]],
// CHECK-NEXT: {{\[\[}}4,     5,     6,     7],
// CHECK-NEXT: [8,     9,     10,     11]],
// CHECK-NEXT: {{\[\[}}0,     1,     2,     3],
// CHECK-NEXT: [0,     1,     2,     3]]],
// CHECK-NEXT: {{\[\[\[}}12,     13,     14,     15],
// CHECK-NEXT: [20,     21,     22,     23]],
// CHECK-NEXT: {{\[\[}}16,     17,     18,     19],
// CHECK-NEXT: [20,     21,     22,     23]],
// CHECK-NEXT: {{\[\[}}12,     13,     14,     15],
// CHECK-NEXT: [12,     13,     14,     15]]]]

// An integer table indexed by i32 ids.
func.func @gather_embedding(%a0: tensor<5x3xi64>, %a1: tensor<3xi32>) {
  %r0 = telar.gather %a0, %a1 {axis = 0 : i64} : (tensor<5x3xi64>, tensor<3xi32>) -> tensor<3x3xi64>
  %u0 = tensor.cast %r0 : tensor<3x3xi64> to tensor<*xi64>
  call @printMemrefI64(%u0) : (tensor<*xi64>) -> ()
  return
}
// CHECK: sizes = [3, 3] strides = {{.*}} data =
// CHECK-NEXT: {{\[\[}}120,   130,   140],
// CHECK-NEXT: [0,   10,   20],
// CHECK-NEXT: [60,   70,   80]]

func.func @gather_elements(%a0: tensor<2x4xf32>, %a1: tensor<2x3xi64>) {
  %r0 = telar.gather_elements %a0, %a1 {axis = 1 : i64} : (tensor<2x4xf32>, tensor<2x3xi64>) -> tensor<2x3xf32>
  %u0 = tensor.cast %r0 : tensor<2x3xf32> to tensor<*xf32>
  call @printMemrefF32(%u0) : (tensor<*xf32>) -> ()
  return
}
// CHECK: sizes = [2, 3] strides = {{.*}} data =
// CHECK-NEXT: {{\[\[}}4,   4,   1],
// CHECK-NEXT: [6,   7,   5]]

// batch_dims = 1: indices [2, 2, 1] pick rows of each batch.
func.func @gather_nd(%a0: tensor<2x3x4xf32>, %a1: tensor<2x2x1xi64>) {
  %r0 = telar.gather_nd %a0, %a1 {batch_dims = 1 : i64} : (tensor<2x3x4xf32>, tensor<2x2x1xi64>) -> tensor<2x2x4xf32>
  %u0 = tensor.cast %r0 : tensor<2x2x4xf32> to tensor<*xf32>
  call @printMemrefF32(%u0) : (tensor<*xf32>) -> ()
  return
}
// CHECK: sizes = [2, 2, 4] strides = {{.*}} data =
// CHECK-NEXT: {{\[\[\[}}4,    5,    6,    7],
// CHECK-NEXT: [0,    1,    2,    3]],
// CHECK-NEXT: {{\[\[}}20,    21,    22,    23],
// CHECK-NEXT: [20,    21,    22,    23]]]

// A rank-0 index removes the axis.
func.func @gather_scalar_index(%a0: tensor<2x3x4xf32>, %a1: tensor<i64>) {
  %r0 = telar.gather %a0, %a1 {axis = 2 : i64} : (tensor<2x3x4xf32>, tensor<i64>) -> tensor<2x3xf32>
  %u0 = tensor.cast %r0 : tensor<2x3xf32> to tensor<*xf32>
  call @printMemrefF32(%u0) : (tensor<*xf32>) -> ()
  return
}
// CHECK: sizes = [2, 3] strides = {{.*}} data =
// CHECK-NEXT: {{\[\[}}2,   6,   10],
// CHECK-NEXT: [14,   18,   22]]

// batch_dims = 0, full index tuples: one element each.
func.func @gather_nd_full(%a0: tensor<2x3x4xf32>, %a1: tensor<2x3xi64>) {
  %r0 = telar.gather_nd %a0, %a1 : (tensor<2x3x4xf32>, tensor<2x3xi64>) -> tensor<2xf32>
  %u0 = tensor.cast %r0 : tensor<2xf32> to tensor<*xf32>
  call @printMemrefF32(%u0) : (tensor<*xf32>) -> ()
  return
}
// CHECK: sizes = [2] strides = {{.*}} data =
// CHECK-NEXT: [23,  8]

// Duplicate indices accumulate.
func.func @scatter_elements_add(%a0: tensor<2x4xf32>, %a1: tensor<2x3xi64>, %a2: tensor<2x3xf32>) {
  %r0 = telar.scatter_elements %a0, %a1, %a2 {axis = 1 : i64, reduction = "add"} : (tensor<2x4xf32>, tensor<2x3xi64>, tensor<2x3xf32>) -> tensor<2x4xf32>
  %u0 = tensor.cast %r0 : tensor<2x4xf32> to tensor<*xf32>
  call @printMemrefF32(%u0) : (tensor<*xf32>) -> ()
  return
}
// CHECK: sizes = [2, 4] strides = {{.*}} data =
// CHECK-NEXT: {{\[\[}}1,   32,   3,   34],
// CHECK-NEXT: [105,   6,   57,   8]]

// Without reduction the last duplicate wins.
func.func @scatter_elements_none(%a0: tensor<2x4xf32>, %a1: tensor<2x3xi64>, %a2: tensor<2x3xf32>) {
  %r0 = telar.scatter_elements %a0, %a1, %a2 {axis = 1 : i64} : (tensor<2x4xf32>, tensor<2x3xi64>, tensor<2x3xf32>) -> tensor<2x4xf32>
  %u0 = tensor.cast %r0 : tensor<2x4xf32> to tensor<*xf32>
  call @printMemrefF32(%u0) : (tensor<*xf32>) -> ()
  return
}
// CHECK: sizes = [2, 4] strides = {{.*}} data =
// CHECK-NEXT: {{\[\[}}1,   20,   3,   30],
// CHECK-NEXT: [60,   6,   50,   8]]

// Rows of a [2, 2, 4] tensor, one of them twice.
func.func @scatter_nd_mul(%a0: tensor<2x2x4xf32>, %a1: tensor<3x2xi64>, %a2: tensor<3x4xf32>) {
  %r0 = telar.scatter_nd %a0, %a1, %a2 {reduction = "mul"} : (tensor<2x2x4xf32>, tensor<3x2xi64>, tensor<3x4xf32>) -> tensor<2x2x4xf32>
  %u0 = tensor.cast %r0 : tensor<2x2x4xf32> to tensor<*xf32>
  call @printMemrefF32(%u0) : (tensor<*xf32>) -> ()
  return
}
// CHECK: sizes = [2, 2, 4] strides = {{.*}} data =
// CHECK-NEXT: {{\[\[\[}}0,    1,    2,    3],
// CHECK-NEXT: [80,    150,    240,    350]],
// CHECK-NEXT: {{\[\[}}72,    91,    112,    135],
// CHECK-NEXT: [16,    17,    18,    19]]]

// Integer max with whole-row updates.
func.func @scatter_nd_max_int(%a0: tensor<2x2xi64>, %a1: tensor<2x1xi64>, %a2: tensor<2x2xi64>) {
  %r0 = telar.scatter_nd %a0, %a1, %a2 {reduction = "max"} : (tensor<2x2xi64>, tensor<2x1xi64>, tensor<2x2xi64>) -> tensor<2x2xi64>
  %u0 = tensor.cast %r0 : tensor<2x2xi64> to tensor<*xi64>
  call @printMemrefI64(%u0) : (tensor<*xi64>) -> ()
  return
}
// CHECK: sizes = [2, 2] strides = {{.*}} data =
// CHECK-NEXT: {{\[\[}}5,   -3],
// CHECK-NEXT: [9,   2]]

// Full index tuples (rank-0 update slices), no reduction: the last duplicate wins.
func.func @scatter_nd_elements(%a0: tensor<2x2xi64>, %a1: tensor<3x2xi64>, %a2: tensor<3xi64>) {
  %r0 = telar.scatter_nd %a0, %a1, %a2 : (tensor<2x2xi64>, tensor<3x2xi64>, tensor<3xi64>) -> tensor<2x2xi64>
  %u0 = tensor.cast %r0 : tensor<2x2xi64> to tensor<*xi64>
  call @printMemrefI64(%u0) : (tensor<*xi64>) -> ()
  return
}
// CHECK: sizes = [2, 2] strides = {{.*}} data =
// CHECK-NEXT: {{\[\[}}5,   5],
// CHECK-NEXT: [-7,   1]]

func.func @expand(%a0: tensor<3x1xf32>) {
  %r0 = telar.expand %a0 {shape = array<i64: 2, 1, 4>} : (tensor<3x1xf32>) -> tensor<2x3x4xf32>
  %u0 = tensor.cast %r0 : tensor<2x3x4xf32> to tensor<*xf32>
  call @printMemrefF32(%u0) : (tensor<*xf32>) -> ()
  return
}
// CHECK: sizes = [2, 3, 4] strides = {{.*}} data =
// CHECK-NEXT: {{\[\[\[}}1,    1,    1,    1],
// CHECK-NEXT: [2,    2,    2,    2],
// CHECK-NEXT: [3,    3,    3,    3]],
// CHECK-NEXT: {{\[\[}}1,    1,    1,    1],
// CHECK-NEXT: [2,    2,    2,    2],
// CHECK-NEXT: [3,    3,    3,    3]]]

func.func @tile(%a0: tensor<2x4xf32>) {
  %r0 = telar.tile %a0 {repeats = array<i64: 2, 2>} : (tensor<2x4xf32>) -> tensor<4x8xf32>
  %u0 = tensor.cast %r0 : tensor<4x8xf32> to tensor<*xf32>
  call @printMemrefF32(%u0) : (tensor<*xf32>) -> ()
  return
}
// CHECK: sizes = [4, 8] strides = {{.*}} data =
// CHECK-NEXT: {{\[\[}}1,   2,   3,   4,   1,   2,   3,   4],
// CHECK-NEXT: [5,   6,   7,   8,   5,   6,   7,   8],
// CHECK-NEXT: [1,   2,   3,   4,   1,   2,   3,   4],
// CHECK-NEXT: [5,   6,   7,   8,   5,   6,   7,   8]]

// Negative pads crop before padding.
func.func @pad_constant(%a0: tensor<2x4xf32>) {
  %r0 = telar.pad %a0 {pads = array<i64: 1, -1, 0, 2>, mode = "constant", value = -1.5 : f64} : (tensor<2x4xf32>) -> tensor<3x5xf32>
  %u0 = tensor.cast %r0 : tensor<3x5xf32> to tensor<*xf32>
  call @printMemrefF32(%u0) : (tensor<*xf32>) -> ()
  return
}
// CHECK: sizes = [3, 5] strides = {{.*}} data =
// CHECK-NEXT: {{\[\[}}-1.5,   -1.5,   -1.5,   -1.5,   -1.5],
// CHECK-NEXT: [2,   3,   4,   -1.5,   -1.5],
// CHECK-NEXT: [6,   7,   8,   -1.5,   -1.5]]

// Pads larger than the axis repeat the pattern (as np.pad does).
func.func @pad_reflect(%a0: tensor<2x4xf32>) {
  %r0 = telar.pad %a0 {pads = array<i64: 1, 5, 2, 2>, mode = "reflect", value = 0.0 : f64} : (tensor<2x4xf32>) -> tensor<5x11xf32>
  %u0 = tensor.cast %r0 : tensor<5x11xf32> to tensor<*xf32>
  call @printMemrefF32(%u0) : (tensor<*xf32>) -> ()
  return
}
// CHECK: sizes = [5, 11] strides = {{.*}} data =
// CHECK-NEXT: {{\[\[}}6,   7,   8,   7,   6,   5,   6,   7,   8,   7,   6],
// CHECK-NEXT: [2,   3,   4,   3,   2,   1,   2,   3,   4,   3,   2],
// CHECK-NEXT: [6,   7,   8,   7,   6,   5,   6,   7,   8,   7,   6],
// CHECK-NEXT: [2,   3,   4,   3,   2,   1,   2,   3,   4,   3,   2],
// CHECK-NEXT: [6,   7,   8,   7,   6,   5,   6,   7,   8,   7,   6]]

func.func @pad_edge(%a0: tensor<2x4xf32>) {
  %r0 = telar.pad %a0 {pads = array<i64: 1, 5, 2, 2>, mode = "edge", value = 0.0 : f64} : (tensor<2x4xf32>) -> tensor<5x11xf32>
  %u0 = tensor.cast %r0 : tensor<5x11xf32> to tensor<*xf32>
  call @printMemrefF32(%u0) : (tensor<*xf32>) -> ()
  return
}
// CHECK: sizes = [5, 11] strides = {{.*}} data =
// CHECK-NEXT: {{\[\[}}1,   1,   1,   1,   1,   1,   2,   3,   4,   4,   4],
// CHECK-NEXT: [1,   1,   1,   1,   1,   1,   2,   3,   4,   4,   4],
// CHECK-NEXT: [5,   5,   5,   5,   5,   5,   6,   7,   8,   8,   8],
// CHECK-NEXT: [5,   5,   5,   5,   5,   5,   6,   7,   8,   8,   8],
// CHECK-NEXT: [5,   5,   5,   5,   5,   5,   6,   7,   8,   8,   8]]

func.func @pad_wrap(%a0: tensor<2x4xf32>) {
  %r0 = telar.pad %a0 {pads = array<i64: 1, 5, 2, 2>, mode = "wrap", value = 0.0 : f64} : (tensor<2x4xf32>) -> tensor<5x11xf32>
  %u0 = tensor.cast %r0 : tensor<5x11xf32> to tensor<*xf32>
  call @printMemrefF32(%u0) : (tensor<*xf32>) -> ()
  return
}
// CHECK: sizes = [5, 11] strides = {{.*}} data =
// CHECK-NEXT: {{\[\[}}8,   5,   6,   7,   8,   5,   6,   7,   8,   5,   6],
// CHECK-NEXT: [4,   1,   2,   3,   4,   1,   2,   3,   4,   1,   2],
// CHECK-NEXT: [8,   5,   6,   7,   8,   5,   6,   7,   8,   5,   6],
// CHECK-NEXT: [4,   1,   2,   3,   4,   1,   2,   3,   4,   1,   2],
// CHECK-NEXT: [8,   5,   6,   7,   8,   5,   6,   7,   8,   5,   6]]

// Negative pads crop first, then wrap reads the cropped axis (as onnxruntime does).
func.func @pad_wrap_crop(%a0: tensor<2x4xf32>) {
  %r0 = telar.pad %a0 {pads = array<i64: 0, -1, 1, 2>, mode = "wrap", value = 0.0 : f64} : (tensor<2x4xf32>) -> tensor<3x5xf32>
  %u0 = tensor.cast %r0 : tensor<3x5xf32> to tensor<*xf32>
  call @printMemrefF32(%u0) : (tensor<*xf32>) -> ()
  return
}
// CHECK: sizes = [3, 5] strides = {{.*}} data =
// CHECK-NEXT: {{\[\[}}2,   3,   4,   2,   3],
// CHECK-NEXT: [6,   7,   8,   6,   7],
// CHECK-NEXT: [2,   3,   4,   2,   3]]

// Axis 1; -1 wraps to 3, 7 is out of range (all off).
func.func @one_hot(%a0: tensor<2x2xi64>, %a1: tensor<2xf32>) {
  %r0 = telar.one_hot %a0, %a1 {depth = 4 : i64, axis = 1 : i64} : (tensor<2x2xi64>, tensor<2xf32>) -> tensor<2x4x2xf32>
  %u0 = tensor.cast %r0 : tensor<2x4x2xf32> to tensor<*xf32>
  call @printMemrefF32(%u0) : (tensor<*xf32>) -> ()
  return
}
// CHECK: sizes = [2, 4, 2] strides = {{.*}} data =
// CHECK-NEXT: {{\[\[\[}}0.5,    0.5],
// CHECK-NEXT: [2,    0.5],
// CHECK-NEXT: [0.5,    0.5],
// CHECK-NEXT: [0.5,    2]],
// CHECK-NEXT: {{\[\[}}0.5,    0.5],
// CHECK-NEXT: [0.5,    0.5],
// CHECK-NEXT: [0.5,    0.5],
// CHECK-NEXT: [2,    0.5]]]

func.func @trilu_upper(%a0: tensor<3x4xf32>) {
  %r0 = telar.trilu %a0 {upper = true, k = 1 : i64} : (tensor<3x4xf32>) -> tensor<3x4xf32>
  %u0 = tensor.cast %r0 : tensor<3x4xf32> to tensor<*xf32>
  call @printMemrefF32(%u0) : (tensor<*xf32>) -> ()
  return
}
// CHECK: sizes = [3, 4] strides = {{.*}} data =
// CHECK-NEXT: {{\[\[}}0,   2,   3,   4],
// CHECK-NEXT: [0,   0,   7,   8],
// CHECK-NEXT: [0,   0,   0,   12]]

func.func @trilu_lower(%a0: tensor<3x4xf32>) {
  %r0 = telar.trilu %a0 {upper = false, k = -1 : i64} : (tensor<3x4xf32>) -> tensor<3x4xf32>
  %u0 = tensor.cast %r0 : tensor<3x4xf32> to tensor<*xf32>
  call @printMemrefF32(%u0) : (tensor<*xf32>) -> ()
  return
}
// CHECK: sizes = [3, 4] strides = {{.*}} data =
// CHECK-NEXT: {{\[\[}}0,   0,   0,   0],
// CHECK-NEXT: [5,   0,   0,   0],
// CHECK-NEXT: [9,   10,   0,   0]]

// nearest, asymmetric, floor, scales 2 x 1.5.
func.func @resize_nearest(%a0: tensor<1x1x3x4xf32>) {
  %r0 = telar.resize %a0 {scales = array<f32: 1.0, 1.0, 2.0, 1.5>, sizes = array<i64: 1, 1, 6, 6>, mode = "nearest", coordinate_transformation_mode = "asymmetric", nearest_mode = "floor"} : (tensor<1x1x3x4xf32>) -> tensor<1x1x6x6xf32>
  %u0 = tensor.cast %r0 : tensor<1x1x6x6xf32> to tensor<*xf32>
  call @printMemrefF32(%u0) : (tensor<*xf32>) -> ()
  return
}
// CHECK: sizes = [1, 1, 6, 6] strides = {{.*}} data =
// CHECK-NEXT: {{\[\[\[\[}}1,     1,     2,     3,     3,     4],
// CHECK-NEXT: [1,     1,     2,     3,     3,     4],
// CHECK-NEXT: [5,     5,     6,     7,     7,     8],
// CHECK-NEXT: [5,     5,     6,     7,     7,     8],
// CHECK-NEXT: [9,     9,     10,     11,     11,     12],
// CHECK-NEXT: [9,     9,     10,     11,     11,     12]]]]

// nearest, half_pixel, round_prefer_ceil, downsampling to sizes.
func.func @resize_nearest_half_pixel(%a0: tensor<1x1x3x4xf32>) {
  %r0 = telar.resize %a0 {scales = array<f32: 1.0, 1.0, 0.6666666865348816, 0.75>, sizes = array<i64: 1, 1, 2, 3>, mode = "nearest", coordinate_transformation_mode = "half_pixel", nearest_mode = "round_prefer_ceil"} : (tensor<1x1x3x4xf32>) -> tensor<1x1x2x3xf32>
  %u0 = tensor.cast %r0 : tensor<1x1x2x3xf32> to tensor<*xf32>
  call @printMemrefF32(%u0) : (tensor<*xf32>) -> ()
  return
}
// CHECK: sizes = [1, 1, 2, 3] strides = {{.*}} data =
// CHECK-NEXT: {{\[\[\[\[}}1,     3,     4],
// CHECK-NEXT: [9,     11,     12]]]]

// linear, half_pixel, scales 2 x 2.
func.func @resize_linear(%a0: tensor<1x1x3x4xf32>) {
  %r0 = telar.resize %a0 {scales = array<f32: 1.0, 1.0, 2.0, 2.0>, sizes = array<i64: 1, 1, 6, 8>, mode = "linear", coordinate_transformation_mode = "half_pixel", nearest_mode = "round_prefer_floor"} : (tensor<1x1x3x4xf32>) -> tensor<1x1x6x8xf32>
  %u0 = tensor.cast %r0 : tensor<1x1x6x8xf32> to tensor<*xf32>
  call @printMemrefF32(%u0) : (tensor<*xf32>) -> ()
  return
}
// CHECK: sizes = [1, 1, 6, 8] strides = {{.*}} data =
// CHECK-NEXT: {{\[\[\[\[}}1,     1.25,     1.75,     2.25,     2.75,     3.25,     3.75,     4],
// CHECK-NEXT: [2,     2.25,     2.75,     3.25,     3.75,     4.25,     4.75,     5],
// CHECK-NEXT: [4,     4.25,     4.75,     5.25,     5.75,     6.25,     6.75,     7],
// CHECK-NEXT: [6,     6.25,     6.75,     7.25,     7.75,     8.25,     8.75,     9],
// CHECK-NEXT: [8,     8.25,     8.75,     9.25,     9.75,     10.25,     10.75,     11],
// CHECK-NEXT: [9,     9.25,     9.75,     10.25,     10.75,     11.25,     11.75,     12]]]]

// linear, align_corners, sizes.
func.func @resize_linear_align_corners(%a0: tensor<1x1x3x4xf32>) {
  %r0 = telar.resize %a0 {scales = array<f32: 1.0, 1.0, 1.6666666269302368, 0.75>, sizes = array<i64: 1, 1, 5, 3>, mode = "linear", coordinate_transformation_mode = "align_corners", nearest_mode = "round_prefer_floor"} : (tensor<1x1x3x4xf32>) -> tensor<1x1x5x3xf32>
  %u0 = tensor.cast %r0 : tensor<1x1x5x3xf32> to tensor<*xf32>
  call @printMemrefF32(%u0) : (tensor<*xf32>) -> ()
  return
}
// CHECK: sizes = [1, 1, 5, 3] strides = {{.*}} data =
// CHECK-NEXT: {{\[\[\[\[}}1,     2.5,     4],
// CHECK-NEXT: [3,     4.5,     6],
// CHECK-NEXT: [5,     6.5,     8],
// CHECK-NEXT: [7,     8.5,     10],
// CHECK-NEXT: [9,     10.5,     12]]]]

// linear, pytorch_half_pixel, downsampling to sizes (one row).
func.func @resize_linear_pytorch(%a0: tensor<1x1x3x4xf32>) {
  %r0 = telar.resize %a0 {scales = array<f32: 1.0, 1.0, 0.3333333432674408, 0.75>, sizes = array<i64: 1, 1, 1, 3>, mode = "linear", coordinate_transformation_mode = "pytorch_half_pixel", nearest_mode = "round_prefer_floor"} : (tensor<1x1x3x4xf32>) -> tensor<1x1x1x3xf32>
  %u0 = tensor.cast %r0 : tensor<1x1x1x3xf32> to tensor<*xf32>
  call @printMemrefF32(%u0) : (tensor<*xf32>) -> ()
  return
}
// CHECK: sizes = [1, 1, 1, 3] strides = {{.*}} data =
// CHECK-NEXT: {{\[\[\[\[}}1.16667,     2.5,     3.83333]]]]

// cubic, half_pixel, exclude_outside, A = -0.5.
func.func @resize_cubic(%a0: tensor<1x1x3x4xf32>) {
  %r0 = telar.resize %a0 {scales = array<f32: 1.0, 1.0, 1.3333333730697632, 1.25>, sizes = array<i64: 1, 1, 4, 5>, mode = "cubic", coordinate_transformation_mode = "half_pixel", nearest_mode = "round_prefer_floor", cubic_coeff_a = -5.000000e-01 : f32, exclude_outside = true} : (tensor<1x1x3x4xf32>) -> tensor<1x1x4x5xf32>
  %u0 = tensor.cast %r0 : tensor<1x1x4x5xf32> to tensor<*xf32>
  call @printMemrefF32(%u0) : (tensor<*xf32>) -> ()
  return
}
// CHECK: sizes = [1, 1, 4, 5] strides = {{.*}} data =
// CHECK-NEXT: {{\[\[\[\[}}0.747776,     1.43913,     2.29104,     3.14296,     3.83431],
// CHECK-NEXT: [3.18311,     3.87447,     4.72638,     5.57829,     6.26965],
// CHECK-NEXT: [6.73035,     7.42171,     8.27362,     9.12554,     9.81689],
// CHECK-NEXT: [9.16569,     9.85704,     10.709,     11.5609,     12.2522]]]]

func.func @depth_to_space_dcr(%a0: tensor<1x8x1x2xf32>) {
  %r0 = telar.depth_to_space %a0 {blocksize = 2 : i64, mode = "DCR"} : (tensor<1x8x1x2xf32>) -> tensor<1x2x2x4xf32>
  %u0 = tensor.cast %r0 : tensor<1x2x2x4xf32> to tensor<*xf32>
  call @printMemrefF32(%u0) : (tensor<*xf32>) -> ()
  return
}
// CHECK: sizes = [1, 2, 2, 4] strides = {{.*}} data =
// CHECK-NEXT: {{\[\[\[\[}}0,     4,     1,     5],
// CHECK-NEXT: [8,     12,     9,     13]],
// CHECK-NEXT: {{\[\[}}2,     6,     3,     7],
// CHECK-NEXT: [10,     14,     11,     15]]]]

func.func @depth_to_space_crd(%a0: tensor<1x8x1x2xf32>) {
  %r0 = telar.depth_to_space %a0 {blocksize = 2 : i64, mode = "CRD"} : (tensor<1x8x1x2xf32>) -> tensor<1x2x2x4xf32>
  %u0 = tensor.cast %r0 : tensor<1x2x2x4xf32> to tensor<*xf32>
  call @printMemrefF32(%u0) : (tensor<*xf32>) -> ()
  return
}
// CHECK: sizes = [1, 2, 2, 4] strides = {{.*}} data =
// CHECK-NEXT: {{\[\[\[\[}}0,     2,     1,     3],
// CHECK-NEXT: [4,     6,     5,     7]],
// CHECK-NEXT: {{\[\[}}8,     10,     9,     11],
// CHECK-NEXT: [12,     14,     13,     15]]]]

func.func @space_to_depth(%a0: tensor<1x2x4x4xf32>) {
  %r0 = telar.space_to_depth %a0 {blocksize = 2 : i64} : (tensor<1x2x4x4xf32>) -> tensor<1x8x2x2xf32>
  %u0 = tensor.cast %r0 : tensor<1x8x2x2xf32> to tensor<*xf32>
  call @printMemrefF32(%u0) : (tensor<*xf32>) -> ()
  return
}
// CHECK: sizes = [1, 8, 2, 2] strides = {{.*}} data =
// CHECK-NEXT: {{\[\[\[\[}}0,     2],
// CHECK-NEXT: [8,     10]],
// CHECK-NEXT: {{\[\[}}16,     18],
// CHECK-NEXT: [24,     26]],
// CHECK-NEXT: {{\[\[}}1,     3],
// CHECK-NEXT: [9,     11]],
// CHECK-NEXT: {{\[\[}}17,     19],
// CHECK-NEXT: [25,     27]],
// CHECK-NEXT: {{\[\[}}4,     6],
// CHECK-NEXT: [12,     14]],
// CHECK-NEXT: {{\[\[}}20,     22],
// CHECK-NEXT: [28,     30]],
// CHECK-NEXT: {{\[\[}}5,     7],
// CHECK-NEXT: [13,     15]],
// CHECK-NEXT: {{\[\[}}21,     23],
// CHECK-NEXT: [29,     31]]]]

// [B, H, S, D] input, halves rotate, caches [1, S, D/2].
func.func @rotary(%a0: tensor<1x2x3x4xf32>, %a1: tensor<1x3x2xf32>, %a2: tensor<1x3x2xf32>) {
  %r0 = telar.rotary_embedding %a0, %a1, %a2 {interleaved = false, rotary_embedding_dim = 0 : i64, num_heads = 0 : i64} : (tensor<1x2x3x4xf32>, tensor<1x3x2xf32>, tensor<1x3x2xf32>) -> tensor<1x2x3x4xf32>
  %u0 = tensor.cast %r0 : tensor<1x2x3x4xf32> to tensor<*xf32>
  call @printMemrefF32(%u0) : (tensor<*xf32>) -> ()
  return
}
// CHECK: sizes = [1, 2, 3, 4] strides = {{.*}} data =
// CHECK-NEXT: {{\[\[\[\[}}0.7634,     0.0093,     0.4447,     0.0363],
// CHECK-NEXT: [0.6076,     -0.8442,     -0.8756,     -0.6796],
// CHECK-NEXT: [0.4522,     -0.2938,     0.1382,     -0.4484]],
// CHECK-NEXT: {{\[\[}}-3.3595,     -0.1731,     1.2283,     -0.0195],
// CHECK-NEXT: [0.4652,     -0.2672,     -0.217,     -1.1296],
// CHECK-NEXT: [0.2005,     0.1754,     0.2809,     0.5702]]]]

// [B, S, hidden] input with 2 heads of 6, position ids, interleaved pairs, only the first 4 features rotate (caches hold 3 angles).
func.func @rotary_interleaved(%a0: tensor<1x2x12xf32>, %a1: tensor<5x3xf32>, %a2: tensor<5x3xf32>, %a3: tensor<1x2xi64>) {
  %r0 = telar.rotary_embedding %a0, %a1, %a2, %a3 {interleaved = true, rotary_embedding_dim = 4 : i64, num_heads = 2 : i64} : (tensor<1x2x12xf32>, tensor<5x3xf32>, tensor<5x3xf32>, tensor<1x2xi64>) -> tensor<1x2x12xf32>
  %u0 = tensor.cast %r0 : tensor<1x2x12xf32> to tensor<*xf32>
  call @printMemrefF32(%u0) : (tensor<*xf32>) -> ()
  return
}
// CHECK: sizes = [1, 2, 12] strides = {{.*}} data =
// CHECK-NEXT: {{\[\[\[}}-0.4823,    -0.9685,    0.6339,    -1.5088,    -1.26,    1.51,    0.3438,    2.5215,    -0.3937,    -0.00279999,    1.46,    1.96],
// CHECK-NEXT: [-0.966,    -0.57,    2.5388,    0.3207,    -0,    0.66,    0.625,    -0.2645,    -1.2581,    1.091,    -1.18,    -0.66]]]

func.func @entry() {
  %reshape_0 = arith.constant dense<[[[0.0, 1.0, 2.0, 3.0], [4.0, 5.0, 6.0, 7.0], [8.0, 9.0, 10.0, 11.0]], [[12.0, 13.0, 14.0, 15.0], [16.0, 17.0, 18.0, 19.0], [20.0, 21.0, 22.0, 23.0]]]> : tensor<2x3x4xf32>
  call @reshape(%reshape_0) : (tensor<2x3x4xf32>) -> ()
  %transpose_0 = arith.constant dense<[[[0.0, 1.0, 2.0, 3.0], [4.0, 5.0, 6.0, 7.0], [8.0, 9.0, 10.0, 11.0]], [[12.0, 13.0, 14.0, 15.0], [16.0, 17.0, 18.0, 19.0], [20.0, 21.0, 22.0, 23.0]]]> : tensor<2x3x4xf32>
  call @transpose(%transpose_0) : (tensor<2x3x4xf32>) -> ()
  %concat_split_0 = arith.constant dense<[[1.0, 2.0, 3.0, 4.0], [5.0, 6.0, 7.0, 8.0]]> : tensor<2x4xf32>
  %concat_split_1 = arith.constant dense<[[9.0, 10.0, 11.0], [12.0, 13.0, 14.0]]> : tensor<2x3xf32>
  call @concat_split(%concat_split_0, %concat_split_1) : (tensor<2x4xf32>, tensor<2x3xf32>) -> ()
  %slice_0 = arith.constant dense<[[[0.0, 1.0, 2.0, 3.0], [4.0, 5.0, 6.0, 7.0], [8.0, 9.0, 10.0, 11.0]], [[12.0, 13.0, 14.0, 15.0], [16.0, 17.0, 18.0, 19.0], [20.0, 21.0, 22.0, 23.0]]]> : tensor<2x3x4xf32>
  call @slice(%slice_0) : (tensor<2x3x4xf32>) -> ()
  %gather_0 = arith.constant dense<[[[0.0, 1.0, 2.0, 3.0], [4.0, 5.0, 6.0, 7.0], [8.0, 9.0, 10.0, 11.0]], [[12.0, 13.0, 14.0, 15.0], [16.0, 17.0, 18.0, 19.0], [20.0, 21.0, 22.0, 23.0]]]> : tensor<2x3x4xf32>
  %gather_1 = arith.constant dense<[[0, -1], [1, 2], [-3, 0]]> : tensor<3x2xi64>
  call @gather(%gather_0, %gather_1) : (tensor<2x3x4xf32>, tensor<3x2xi64>) -> ()
  %gather_embedding_0 = arith.constant dense<[[0, 10, 20], [30, 40, 50], [60, 70, 80], [90, 100, 110], [120, 130, 140]]> : tensor<5x3xi64>
  %gather_embedding_1 = arith.constant dense<[4, -5, 2]> : tensor<3xi32>
  call @gather_embedding(%gather_embedding_0, %gather_embedding_1) : (tensor<5x3xi64>, tensor<3xi32>) -> ()
  %gather_elements_0 = arith.constant dense<[[1.0, 2.0, 3.0, 4.0], [5.0, 6.0, 7.0, 8.0]]> : tensor<2x4xf32>
  %gather_elements_1 = arith.constant dense<[[3, -1, 0], [1, 2, -4]]> : tensor<2x3xi64>
  call @gather_elements(%gather_elements_0, %gather_elements_1) : (tensor<2x4xf32>, tensor<2x3xi64>) -> ()
  %gather_nd_0 = arith.constant dense<[[[0.0, 1.0, 2.0, 3.0], [4.0, 5.0, 6.0, 7.0], [8.0, 9.0, 10.0, 11.0]], [[12.0, 13.0, 14.0, 15.0], [16.0, 17.0, 18.0, 19.0], [20.0, 21.0, 22.0, 23.0]]]> : tensor<2x3x4xf32>
  %gather_nd_1 = arith.constant dense<[[[1], [0]], [[2], [-1]]]> : tensor<2x2x1xi64>
  call @gather_nd(%gather_nd_0, %gather_nd_1) : (tensor<2x3x4xf32>, tensor<2x2x1xi64>) -> ()
  %gather_scalar_index_0 = arith.constant dense<[[[0.0, 1.0, 2.0, 3.0], [4.0, 5.0, 6.0, 7.0], [8.0, 9.0, 10.0, 11.0]], [[12.0, 13.0, 14.0, 15.0], [16.0, 17.0, 18.0, 19.0], [20.0, 21.0, 22.0, 23.0]]]> : tensor<2x3x4xf32>
  %gather_scalar_index_1 = arith.constant dense<-2> : tensor<i64>
  call @gather_scalar_index(%gather_scalar_index_0, %gather_scalar_index_1) : (tensor<2x3x4xf32>, tensor<i64>) -> ()
  %gather_nd_full_0 = arith.constant dense<[[[0.0, 1.0, 2.0, 3.0], [4.0, 5.0, 6.0, 7.0], [8.0, 9.0, 10.0, 11.0]], [[12.0, 13.0, 14.0, 15.0], [16.0, 17.0, 18.0, 19.0], [20.0, 21.0, 22.0, 23.0]]]> : tensor<2x3x4xf32>
  %gather_nd_full_1 = arith.constant dense<[[1, 2, 3], [0, -1, 0]]> : tensor<2x3xi64>
  call @gather_nd_full(%gather_nd_full_0, %gather_nd_full_1) : (tensor<2x3x4xf32>, tensor<2x3xi64>) -> ()
  %scatter_elements_add_0 = arith.constant dense<[[1.0, 2.0, 3.0, 4.0], [5.0, 6.0, 7.0, 8.0]]> : tensor<2x4xf32>
  %scatter_elements_add_1 = arith.constant dense<[[1, 1, -1], [0, 2, 0]]> : tensor<2x3xi64>
  %scatter_elements_add_2 = arith.constant dense<[[10.0, 20.0, 30.0], [40.0, 50.0, 60.0]]> : tensor<2x3xf32>
  call @scatter_elements_add(%scatter_elements_add_0, %scatter_elements_add_1, %scatter_elements_add_2) : (tensor<2x4xf32>, tensor<2x3xi64>, tensor<2x3xf32>) -> ()
  %scatter_elements_none_0 = arith.constant dense<[[1.0, 2.0, 3.0, 4.0], [5.0, 6.0, 7.0, 8.0]]> : tensor<2x4xf32>
  %scatter_elements_none_1 = arith.constant dense<[[1, 1, -1], [0, 2, 0]]> : tensor<2x3xi64>
  %scatter_elements_none_2 = arith.constant dense<[[10.0, 20.0, 30.0], [40.0, 50.0, 60.0]]> : tensor<2x3xf32>
  call @scatter_elements_none(%scatter_elements_none_0, %scatter_elements_none_1, %scatter_elements_none_2) : (tensor<2x4xf32>, tensor<2x3xi64>, tensor<2x3xf32>) -> ()
  %scatter_nd_mul_0 = arith.constant dense<[[[0.0, 1.0, 2.0, 3.0], [4.0, 5.0, 6.0, 7.0]], [[12.0, 13.0, 14.0, 15.0], [16.0, 17.0, 18.0, 19.0]]]> : tensor<2x2x4xf32>
  %scatter_nd_mul_1 = arith.constant dense<[[0, 1], [-1, 0], [0, 1]]> : tensor<3x2xi64>
  %scatter_nd_mul_2 = arith.constant dense<[[2.0, 3.0, 4.0, 5.0], [6.0, 7.0, 8.0, 9.0], [10.0, 10.0, 10.0, 10.0]]> : tensor<3x4xf32>
  call @scatter_nd_mul(%scatter_nd_mul_0, %scatter_nd_mul_1, %scatter_nd_mul_2) : (tensor<2x2x4xf32>, tensor<3x2xi64>, tensor<3x4xf32>) -> ()
  %scatter_nd_max_int_0 = arith.constant dense<[[5, -3], [7, 1]]> : tensor<2x2xi64>
  %scatter_nd_max_int_1 = arith.constant dense<[[1], [1]]> : tensor<2x1xi64>
  %scatter_nd_max_int_2 = arith.constant dense<[[2, 2], [9, -9]]> : tensor<2x2xi64>
  call @scatter_nd_max_int(%scatter_nd_max_int_0, %scatter_nd_max_int_1, %scatter_nd_max_int_2) : (tensor<2x2xi64>, tensor<2x1xi64>, tensor<2x2xi64>) -> ()
  %scatter_nd_elements_0 = arith.constant dense<[[5, -3], [7, 1]]> : tensor<2x2xi64>
  %scatter_nd_elements_1 = arith.constant dense<[[0, 1], [1, 0], [0, 1]]> : tensor<3x2xi64>
  %scatter_nd_elements_2 = arith.constant dense<[100, -7, 5]> : tensor<3xi64>
  call @scatter_nd_elements(%scatter_nd_elements_0, %scatter_nd_elements_1, %scatter_nd_elements_2) : (tensor<2x2xi64>, tensor<3x2xi64>, tensor<3xi64>) -> ()
  %expand_0 = arith.constant dense<[[1.0], [2.0], [3.0]]> : tensor<3x1xf32>
  call @expand(%expand_0) : (tensor<3x1xf32>) -> ()
  %tile_0 = arith.constant dense<[[1.0, 2.0, 3.0, 4.0], [5.0, 6.0, 7.0, 8.0]]> : tensor<2x4xf32>
  call @tile(%tile_0) : (tensor<2x4xf32>) -> ()
  %pad_constant_0 = arith.constant dense<[[1.0, 2.0, 3.0, 4.0], [5.0, 6.0, 7.0, 8.0]]> : tensor<2x4xf32>
  call @pad_constant(%pad_constant_0) : (tensor<2x4xf32>) -> ()
  %pad_reflect_0 = arith.constant dense<[[1.0, 2.0, 3.0, 4.0], [5.0, 6.0, 7.0, 8.0]]> : tensor<2x4xf32>
  call @pad_reflect(%pad_reflect_0) : (tensor<2x4xf32>) -> ()
  %pad_edge_0 = arith.constant dense<[[1.0, 2.0, 3.0, 4.0], [5.0, 6.0, 7.0, 8.0]]> : tensor<2x4xf32>
  call @pad_edge(%pad_edge_0) : (tensor<2x4xf32>) -> ()
  %pad_wrap_0 = arith.constant dense<[[1.0, 2.0, 3.0, 4.0], [5.0, 6.0, 7.0, 8.0]]> : tensor<2x4xf32>
  call @pad_wrap(%pad_wrap_0) : (tensor<2x4xf32>) -> ()
  %pad_wrap_crop_0 = arith.constant dense<[[1.0, 2.0, 3.0, 4.0], [5.0, 6.0, 7.0, 8.0]]> : tensor<2x4xf32>
  call @pad_wrap_crop(%pad_wrap_crop_0) : (tensor<2x4xf32>) -> ()
  %one_hot_0 = arith.constant dense<[[1, -1], [3, 7]]> : tensor<2x2xi64>
  %one_hot_1 = arith.constant dense<[0.5, 2.0]> : tensor<2xf32>
  call @one_hot(%one_hot_0, %one_hot_1) : (tensor<2x2xi64>, tensor<2xf32>) -> ()
  %trilu_upper_0 = arith.constant dense<[[1.0, 2.0, 3.0, 4.0], [5.0, 6.0, 7.0, 8.0], [9.0, 10.0, 11.0, 12.0]]> : tensor<3x4xf32>
  call @trilu_upper(%trilu_upper_0) : (tensor<3x4xf32>) -> ()
  %trilu_lower_0 = arith.constant dense<[[1.0, 2.0, 3.0, 4.0], [5.0, 6.0, 7.0, 8.0], [9.0, 10.0, 11.0, 12.0]]> : tensor<3x4xf32>
  call @trilu_lower(%trilu_lower_0) : (tensor<3x4xf32>) -> ()
  %resize_nearest_0 = arith.constant dense<[[[[1.0, 2.0, 3.0, 4.0], [5.0, 6.0, 7.0, 8.0], [9.0, 10.0, 11.0, 12.0]]]]> : tensor<1x1x3x4xf32>
  call @resize_nearest(%resize_nearest_0) : (tensor<1x1x3x4xf32>) -> ()
  %resize_nearest_half_pixel_0 = arith.constant dense<[[[[1.0, 2.0, 3.0, 4.0], [5.0, 6.0, 7.0, 8.0], [9.0, 10.0, 11.0, 12.0]]]]> : tensor<1x1x3x4xf32>
  call @resize_nearest_half_pixel(%resize_nearest_half_pixel_0) : (tensor<1x1x3x4xf32>) -> ()
  %resize_linear_0 = arith.constant dense<[[[[1.0, 2.0, 3.0, 4.0], [5.0, 6.0, 7.0, 8.0], [9.0, 10.0, 11.0, 12.0]]]]> : tensor<1x1x3x4xf32>
  call @resize_linear(%resize_linear_0) : (tensor<1x1x3x4xf32>) -> ()
  %resize_linear_align_corners_0 = arith.constant dense<[[[[1.0, 2.0, 3.0, 4.0], [5.0, 6.0, 7.0, 8.0], [9.0, 10.0, 11.0, 12.0]]]]> : tensor<1x1x3x4xf32>
  call @resize_linear_align_corners(%resize_linear_align_corners_0) : (tensor<1x1x3x4xf32>) -> ()
  %resize_linear_pytorch_0 = arith.constant dense<[[[[1.0, 2.0, 3.0, 4.0], [5.0, 6.0, 7.0, 8.0], [9.0, 10.0, 11.0, 12.0]]]]> : tensor<1x1x3x4xf32>
  call @resize_linear_pytorch(%resize_linear_pytorch_0) : (tensor<1x1x3x4xf32>) -> ()
  %resize_cubic_0 = arith.constant dense<[[[[1.0, 2.0, 3.0, 4.0], [5.0, 6.0, 7.0, 8.0], [9.0, 10.0, 11.0, 12.0]]]]> : tensor<1x1x3x4xf32>
  call @resize_cubic(%resize_cubic_0) : (tensor<1x1x3x4xf32>) -> ()
  %depth_to_space_dcr_0 = arith.constant dense<[[[[0.0, 1.0]], [[2.0, 3.0]], [[4.0, 5.0]], [[6.0, 7.0]], [[8.0, 9.0]], [[10.0, 11.0]], [[12.0, 13.0]], [[14.0, 15.0]]]]> : tensor<1x8x1x2xf32>
  call @depth_to_space_dcr(%depth_to_space_dcr_0) : (tensor<1x8x1x2xf32>) -> ()
  %depth_to_space_crd_0 = arith.constant dense<[[[[0.0, 1.0]], [[2.0, 3.0]], [[4.0, 5.0]], [[6.0, 7.0]], [[8.0, 9.0]], [[10.0, 11.0]], [[12.0, 13.0]], [[14.0, 15.0]]]]> : tensor<1x8x1x2xf32>
  call @depth_to_space_crd(%depth_to_space_crd_0) : (tensor<1x8x1x2xf32>) -> ()
  %space_to_depth_0 = arith.constant dense<[[[[0.0, 1.0, 2.0, 3.0], [4.0, 5.0, 6.0, 7.0], [8.0, 9.0, 10.0, 11.0], [12.0, 13.0, 14.0, 15.0]], [[16.0, 17.0, 18.0, 19.0], [20.0, 21.0, 22.0, 23.0], [24.0, 25.0, 26.0, 27.0], [28.0, 29.0, 30.0, 31.0]]]]> : tensor<1x2x4x4xf32>
  call @space_to_depth(%space_to_depth_0) : (tensor<1x2x4x4xf32>) -> ()
  %rotary_0 = arith.constant dense<[[[[0.12999999523162842, -0.12999999523162842, 0.6399999856948853, 0.10000000149011612], [-0.5400000214576721, 0.36000001430511475, 1.2999999523162842, 0.949999988079071], [-0.699999988079071, -1.2699999809265137, -0.6200000047683716, 0.03999999910593033]], [[-2.3299999237060547, -0.2199999988079071, -1.25, -0.7300000190734863], [-0.5400000214576721, -0.3199999928474426, 0.4099999964237213, 1.0399999618530273], [-0.12999999523162842, 1.3700000047683716, -0.6700000166893005, 0.3499999940395355]]]]> : tensor<1x2x3x4xf32>
  %rotary_1 = arith.constant dense<[[[0.8999999761581421, 0.09000000357627869], [-0.7400000095367432, -0.9200000166893005], [-0.46000000834465027, 0.2199999988079071]]]> : tensor<1x3x2xf32>
  %rotary_2 = arith.constant dense<[[[-1.0099999904632568, -0.20999999344348907], [-0.1599999964237213, 0.5400000214576721], [0.20999999344348907, 0.36000001430511475]]]> : tensor<1x3x2xf32>
  call @rotary(%rotary_0, %rotary_1, %rotary_2) : (tensor<1x2x3x4xf32>, tensor<1x3x2xf32>, tensor<1x3x2xf32>) -> ()
  %rotary_interleaved_0 = arith.constant dense<[[[-0.6499999761581421, -0.12999999523162842, 0.7799999713897705, 1.4900000095367432, -1.2599999904632568, 1.5099999904632568, 1.350000023841858, 0.7799999713897705, 0.25999999046325684, -0.3100000023841858, 1.4600000381469727, 1.9600000381469727], [1.7999999523162842, 1.3200000524520874, 0.36000001430511475, -1.2100000381469727, -0.0, 0.6600000262260437, -1.2899999618530273, 0.4000000059604645, 0.4300000071525574, 0.699999988079071, -1.1799999475479126, -0.6600000262260437]]]> : tensor<1x2x12xf32>
  %rotary_interleaved_1 = arith.constant dense<[[-0.4399999976158142, -1.1699999570846558, 1.7400000095367432], [-0.5, 0.33000001311302185, -0.25999999046325684], [1.5800000429153442, 1.3200000524520874, 0.6299999952316284], [-2.200000047683716, 0.05000000074505806, 0.6800000071525574], [1.0, -0.6200000047683716, 1.8200000524520874]]> : tensor<5x3xf32>
  %rotary_interleaved_2 = arith.constant dense<[[-1.3200000524520874, -0.6600000262260437, 0.9399999976158142], [0.05000000074505806, 2.0, 0.1899999976158142], [-0.6299999952316284, -0.3799999952316284, -1.090000033378601], [-1.2799999713897705, 0.6299999952316284, 0.5799999833106995], [1.2899999618530273, -0.75, 1.690000057220459]]> : tensor<5x3xf32>
  %rotary_interleaved_3 = arith.constant dense<[[4, 1]]> : tensor<1x2xi64>
  call @rotary_interleaved(%rotary_interleaved_0, %rotary_interleaved_1, %rotary_interleaved_2, %rotary_interleaved_3) : (tensor<1x2x12xf32>, tensor<5x3xf32>, tensor<5x3xf32>, tensor<1x2xi64>) -> ()
  return
}
func.func private @printMemrefF32(tensor<*xf32>)
func.func private @printMemrefI64(tensor<*xi64>)
