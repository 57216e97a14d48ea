// RUN: telar-opt %s --telar-fold-constants -split-input-file | FileCheck %s
// RUN: telar-opt %s --telar-fold-constants=inline-elements=4 -split-input-file | FileCheck %s --check-prefix=WEIGHT
// RUN: telar-opt %s --telar-fold-constants=max-bytes=16 -split-input-file | FileCheck %s --check-prefix=LIMIT

// T5's relative position bias in small: positions (a weight) -> |p| ->
// buckets through clip, a float cast, log, a scale, a truncating cast and
// a clip -> rows of the bias table (a weight) -> transposed. All of it is
// one constant, named after the last value; the weights it read go.
// |[-3, -1, 0, 1, 2, 9]| clipped to >= 1, 2 ln(x) truncated, clipped to
// <= 3: buckets [2, 0, 0, 0, 1, 3]; table rows [0, 1], [10, 11], [20, 21],
// [30, 31].
// CHECK-LABEL: func.func @bias
// CHECK: %[[B:.*]] = telar.constant {telar.result_names = ["/bias"]} dense<{{\[\[\[}}2.000000e+01, 0.000000e+00, 0.000000e+00], [0.000000e+00, 1.000000e+01, 3.000000e+01]], {{\[\[}}2.100000e+01, 1.000000e+00, 1.000000e+00], [1.000000e+00, 1.100000e+01, 3.100000e+01]]]> : tensor<2x2x3xf32>
// CHECK-NOT: telar.
// CHECK: %[[S:.*]] = telar.add %arg0, %[[B]]
// CHECK-NEXT: return %[[S]]
// CHECK-NOT: pos:
// CHECK-NOT: table:
// Over inline-elements, the result is a weight.
// WEIGHT-LABEL: func.func @bias
// WEIGHT: %[[B:.*]] = telar.constant {telar.result_names = ["/bias"]} dense_resource<folded._bias> : tensor<2x2x3xf32>
// WEIGHT: telar.add %arg0, %[[B]]
// WEIGHT: folded._bias: "0x400000000000A041000000000000000000000000000020410000F0410000A8410000803F0000803F0000803F000030410000F841"
// Results over max-bytes (the 48-byte positions) stop the folding at once.
// LIMIT-LABEL: func.func @bias
// LIMIT: telar.abs
// LIMIT: telar.transpose
func.func @bias(%x: tensor<2x2x3xf32>) -> tensor<2x2x3xf32> {
  %p = telar.constant dense_resource<pos> : tensor<2x3xi64>
  %a = telar.abs %p : (tensor<2x3xi64>) -> tensor<2x3xi64>
  %c = telar.clip %a {min = 1.0 : f64} : (tensor<2x3xi64>) -> tensor<2x3xi64>
  %f = telar.cast %c {to = f32} : (tensor<2x3xi64>) -> tensor<2x3xf32>
  %l = telar.log %f : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %two = telar.constant dense<2.0> : tensor<f32>
  %m = telar.mul %l, %two : (tensor<2x3xf32>, tensor<f32>) -> tensor<2x3xf32>
  %i = telar.cast %m {to = i64} : (tensor<2x3xf32>) -> tensor<2x3xi64>
  %k = telar.clip %i {max = 3.0 : f64} : (tensor<2x3xi64>) -> tensor<2x3xi64>
  %t = telar.constant dense_resource<table> : tensor<4x2xf32>
  %g = telar.gather %t, %k : (tensor<4x2xf32>, tensor<2x3xi64>) -> tensor<2x3x2xf32>
  %b = telar.transpose %g {perm = array<i64: 2, 0, 1>, telar.result_names = ["/bias"]} : (tensor<2x3x2xf32>) -> tensor<2x2x3xf32>
  %s = telar.add %x, %b : (tensor<2x2x3xf32>, tensor<2x2x3xf32>) -> tensor<2x2x3xf32>
  return %s : tensor<2x2x3xf32>
}

{-#
  dialect_resources: {
    builtin: {
      pos: "0x08000000FDFFFFFFFFFFFFFFFFFFFFFFFFFFFFFF0000000000000000010000000000000002000000000000000900000000000000",
      table: "0x04000000000000000000803F00002041000030410000A0410000A8410000F0410000F841"
    }
  }
#-}

// -----

// A weight that other ops read stays; an op with an input known only at
// run time stays, and so does an op without a folder (matmul) and what
// follows it.
// CHECK-LABEL: func.func @partial
// CHECK-DAG: %[[W:.*]] = telar.constant dense_resource<w> : tensor<3xf32>
// CHECK-DAG: %[[SQ:.*]] = telar.constant dense<[1.000000e+00, 4.000000e+00, 9.000000e+00]> : tensor<3xf32>
// CHECK-DAG: %[[Y:.*]] = telar.add %arg0, %[[SQ]]
// CHECK-DAG: %[[Z:.*]] = telar.sub %arg0, %[[W]]
// CHECK-DAG: %[[ROW:.*]] = telar.constant dense<{{\[\[}}1.000000e+00, 2.000000e+00, 3.000000e+00]]> : tensor<1x3xf32>
// CHECK-DAG: %[[MM:.*]] = telar.matmul %[[ROW]], %[[W]]
// CHECK-DAG: %[[N:.*]] = telar.neg %[[MM]]
// CHECK: return %[[Y]], %[[Z]], %[[N]]
func.func @partial(%x: tensor<3xf32>) -> (tensor<3xf32>, tensor<3xf32>, tensor<1xf32>) {
  %w = telar.constant dense_resource<w> : tensor<3xf32>
  %sq = telar.mul %w, %w : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  %y = telar.add %x, %sq : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  %z = telar.sub %x, %w : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  %r = telar.reshape %w {shape = array<i64: 1, 3>} : (tensor<3xf32>) -> tensor<1x3xf32>
  %mm = telar.matmul %r, %w : (tensor<1x3xf32>, tensor<3xf32>) -> tensor<1xf32>
  %n = telar.neg %mm : (tensor<1xf32>) -> tensor<1xf32>
  return %y, %z, %n : tensor<3xf32>, tensor<3xf32>, tensor<1xf32>
}

{-#
  dialect_resources: {
    builtin: {
      w: "0x040000000000803F0000004000004040"
    }
  }
#-}
