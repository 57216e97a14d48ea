// RUN: telar-opt %s --telar-lower-to-linalg -split-input-file | FileCheck %s

// A reduction accumulates into the kept dimensions; the mean's division is
// a separate elementwise generic and keepdims an expand_shape.
// CHECK-DAG: #[[ID:.+]] = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
// CHECK-DAG: #[[KEPT:.+]] = affine_map<(d0, d1, d2) -> (d0, d2)>
// CHECK-LABEL: func.func @reduce_mean
// CHECK: %[[ZERO:.+]] = linalg.fill ins(%{{.+}} : f32) outs(%{{.+}} : tensor<2x4xf32>)
// CHECK: %[[SUM:.+]] = linalg.generic {indexing_maps = [#[[ID]], #[[KEPT]]], iterator_types = ["parallel", "reduction", "parallel"]}
// CHECK-SAME: outs(%[[ZERO]] : tensor<2x4xf32>)
// CHECK: arith.addf
// CHECK: %[[MEAN:.+]] = linalg.generic {{.*}} ins(%[[SUM]] : tensor<2x4xf32>)
// CHECK: arith.constant 3.000000e+00 : f32
// CHECK: arith.divf
// CHECK: tensor.expand_shape %[[MEAN]] {{\[\[}}0, 1], [2]] output_shape [2, 1, 4] : tensor<2x4xf32> into tensor<2x1x4xf32>
func.func @reduce_mean(%a: tensor<2x3x4xf32>) -> tensor<2x1x4xf32> {
  %0 = telar.reduce_mean %a {axes = array<i64: 1>, keepdims = true} : (tensor<2x3x4xf32>) -> tensor<2x1x4xf32>
  return %0 : tensor<2x1x4xf32>
}

// -----

// No axes: every axis; the result is rank 0. Max is seeded with -inf and
// propagates NaN.
// CHECK-LABEL: func.func @reduce_max_all
// CHECK: arith.constant 0xFF800000 : f32
// CHECK: linalg.generic {{.*}}iterator_types = ["reduction", "reduction"]{{.*}}outs(%{{.+}} : tensor<f32>)
// CHECK: arith.maximumf
func.func @reduce_max_all(%a: tensor<2x3xf32>) -> tensor<f32> {
  %0 = telar.reduce_max %a {axes = array<i64>, keepdims = false} : (tensor<2x3xf32>) -> tensor<f32>
  return %0 : tensor<f32>
}

// -----

// Unsigned integers: unsigned comparisons and an unsigned seed.
// CHECK-LABEL: func.func @reduce_min_ui8
// CHECK: arith.constant -1 : i8
// CHECK: arith.minui
func.func @reduce_min_ui8(%a: tensor<2x3xui8>) -> tensor<2xui8> {
  %0 = telar.reduce_min %a {axes = array<i64: 1>, keepdims = false} : (tensor<2x3xui8>) -> tensor<2xui8>
  return %0 : tensor<2xui8>
}

// -----

// log_sum_exp subtracts the maximum (0 when it is infinite) before exp.
// CHECK-LABEL: func.func @reduce_log_sum_exp
// CHECK: arith.maximumf
// CHECK: %[[INF:.+]] = arith.cmpf oeq
// CHECK: arith.select %[[INF]]
// CHECK: arith.subf
// CHECK: math.exp
// CHECK: math.log
func.func @reduce_log_sum_exp(%a: tensor<2x3xf32>) -> tensor<2xf32> {
  %0 = telar.reduce_log_sum_exp %a {axes = array<i64: 1>, keepdims = false} : (tensor<2x3xf32>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

// arg_max: one generic carrying the best value and its index; ties keep
// the lower index (the higher one with select_last_index).
// CHECK-LABEL: func.func @arg_max
// CHECK: %{{.+}}:2 = linalg.generic {{.*}}iterator_types = ["parallel", "reduction"]
// CHECK: %[[I:.+]] = linalg.index 1 : index
// CHECK: %[[I64:.+]] = arith.index_cast %[[I]] : index to i64
// CHECK: arith.cmpi sgt, %[[I64]]
// CHECK: arith.cmpf ogt
// CHECK: tensor.expand_shape
func.func @arg_max(%a: tensor<2x3xf32>) -> tensor<2x1xi64> {
  %0 = telar.arg_max %a {axis = -1 : i64, keepdims = true, select_last_index = true} : (tensor<2x3xf32>) -> tensor<2x1xi64>
  return %0 : tensor<2x1xi64>
}

// -----

// Softmax: max, sum of exp(x - max), then exp(x - max) / sum.
// CHECK-LABEL: func.func @softmax
// CHECK: linalg.generic {{.*}}iterator_types = ["parallel", "reduction"]
// CHECK: arith.maximumf
// CHECK: linalg.generic {{.*}}iterator_types = ["parallel", "reduction"]
// CHECK: arith.subf
// CHECK: math.exp
// CHECK: arith.addf
// CHECK: linalg.generic {{.*}}iterator_types = ["parallel", "parallel"]
// CHECK: arith.subf
// CHECK: math.exp
// CHECK: arith.divf
func.func @softmax(%a: tensor<2x8xf32>) -> tensor<2x8xf32> {
  %0 = telar.softmax %a {axis = -1 : i64} : (tensor<2x8xf32>) -> tensor<2x8xf32>
  return %0 : tensor<2x8xf32>
}

// -----

// layer_norm in f16: statistics in f32 (the stash type), two passes, the
// result rounded back to f16; scale and bias broadcast from the back.
// CHECK-DAG: #[[LAST:.+]] = affine_map<(d0, d1, d2) -> (d2)>
// CHECK-LABEL: func.func @layer_norm_f16
// CHECK: linalg.generic {{.*}}iterator_types = ["parallel", "reduction", "reduction"]
// CHECK: arith.extf {{.*}} : f16 to f32
// CHECK: linalg.generic {{.*}}iterator_types = ["parallel", "reduction", "reduction"]
// CHECK: arith.mulf
// CHECK: math.sqrt
// CHECK: linalg.generic {indexing_maps = [{{.*}}, #[[LAST]], #[[LAST]], {{.*}}], iterator_types = ["parallel", "parallel", "parallel"]}
// CHECK: arith.truncf {{.*}} : f32 to f16
func.func @layer_norm_f16(%a: tensor<2x3x4xf16>, %g: tensor<4xf16>, %b: tensor<4xf16>) -> tensor<2x3x4xf16> {
  %0 = telar.layer_norm %a, %g, %b {axis = 1 : i64, epsilon = 1.0e-05 : f32} : (tensor<2x3x4xf16>, tensor<4xf16>, tensor<4xf16>) -> tensor<2x3x4xf16>
  return %0 : tensor<2x3x4xf16>
}

// -----

// group_norm views N x C x S as N x G x C/G x S.
// CHECK-LABEL: func.func @group_norm
// CHECK: tensor.expand_shape %{{.+}} {{\[\[}}0], [1, 2], [3]] output_shape [1, 2, 2, 5] : tensor<1x4x5xf32> into tensor<1x2x2x5xf32>
// CHECK: linalg.generic {{.*}}iterator_types = ["parallel", "parallel", "reduction", "reduction"]
// CHECK: tensor.collapse_shape %{{.+}} {{\[\[}}0], [1, 2], [3]] : tensor<1x2x2x5xf32> into tensor<1x4x5xf32>
func.func @group_norm(%a: tensor<1x4x5xf32>, %s: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<1x4x5xf32> {
  %0 = telar.group_norm %a, %s, %b {num_groups = 2 : i64, epsilon = 1.0e-05 : f32} : (tensor<1x4x5xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<1x4x5xf32>
  return %0 : tensor<1x4x5xf32>
}

// -----

// cum_sum: loop d2 runs over the summed positions, masked to the prefix.
// CHECK-DAG: #[[IN:.+]] = affine_map<(d0, d1, d2) -> (d0, d2)>
// CHECK-DAG: #[[OUT:.+]] = affine_map<(d0, d1, d2) -> (d0, d1)>
// CHECK-LABEL: func.func @cum_sum
// CHECK: linalg.generic {indexing_maps = [#[[IN]], #[[OUT]]], iterator_types = ["parallel", "parallel", "reduction"]}
// CHECK: arith.cmpi slt
func.func @cum_sum(%a: tensor<2x5xf32>) -> tensor<2x5xf32> {
  %0 = telar.cum_sum %a {axis = 1 : i64, exclusive = true} : (tensor<2x5xf32>) -> tensor<2x5xf32>
  return %0 : tensor<2x5xf32>
}

// -----

// top_k: k rounds of selection in an scf.for carrying both results.
// CHECK-LABEL: func.func @top_k
// CHECK: %[[K:.+]] = arith.constant 2 : index
// CHECK: scf.for %{{.+}} = %{{.+}} to %[[K]] step %{{.+}} iter_args(%{{.+}} = %{{.+}}, %{{.+}} = %{{.+}}) -> (tensor<3x2xf32>, tensor<3x2xi64>)
// CHECK: linalg.generic {{.*}}iterator_types = ["parallel", "reduction"]
// CHECK: linalg.generic {{.*}}iterator_types = ["parallel", "reduction"]
// CHECK: %[[W:.+]]:2 = linalg.generic {{.*}}iterator_types = ["parallel", "parallel"]
// CHECK: scf.yield %[[W]]#0, %[[W]]#1
func.func @top_k(%a: tensor<3x8xf32>) -> (tensor<3x2xf32>, tensor<3x2xi64>) {
  %v, %i = telar.top_k %a {k = 2 : i64, axis = -1 : i64, largest = true, sorted = true} : (tensor<3x8xf32>) -> (tensor<3x2xf32>, tensor<3x2xi64>)
  return %v, %i : tensor<3x2xf32>, tensor<3x2xi64>
}
