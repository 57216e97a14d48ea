// RUN: telar-opt %s -split-input-file -telar-narrow-storage | FileCheck %s

#id2 = affine_map<(d0, d1) -> (d0, d1)>
#red = affine_map<(d0, d1) -> (d0)>

// An elementwise kernel read by a reduction and a matmul writes bfloat16
// (rounded once, before the yield); the reduction widens what it reads and
// still sums into f32; the weight's widening goes, the matmul is rebuilt
// on the two bfloat16 operands into its f32 output.
// CHECK-LABEL: func.func @chain
// CHECK-SAME:    (%[[X:.*]]: tensor<4x8xf32>, %[[W:.*]]: tensor<8x3xbf16>)
// CHECK:       %[[E16:.*]] = tensor.empty() : tensor<4x8xbf16>
// CHECK:       %[[RELU:.*]] = linalg.generic {{.*}} ins(%[[X]] : tensor<4x8xf32>) outs(%[[E16]] : tensor<4x8xbf16>)
// CHECK-NEXT:  ^bb0(%[[IN:.*]]: f32, %{{.*}}: bf16):
// CHECK:         %[[MAX:.*]] = arith.maximumf %[[IN]]
// CHECK-NEXT:    %[[R:.*]] = arith.truncf %[[MAX]] : f32 to bf16
// CHECK-NEXT:    linalg.yield %[[R]] : bf16
// CHECK:       %[[SUM:.*]] = linalg.generic {{.*}} ins(%[[RELU]] : tensor<4x8xbf16>) outs(%{{.*}} : tensor<4xf32>)
// CHECK-NEXT:  ^bb0(%[[IN2:.*]]: bf16, %[[ACC:.*]]: f32):
// CHECK-NEXT:    %[[WIDE:.*]] = arith.extf %[[IN2]] : bf16 to f32
// CHECK-NEXT:    arith.addf %[[WIDE]], %[[ACC]] : f32
// CHECK:       %[[MM:.*]] = linalg.matmul ins(%[[RELU]], %[[W]] : tensor<4x8xbf16>, tensor<8x3xbf16>) outs(%{{.*}} : tensor<4x3xf32>)
// CHECK-NEXT:  return %[[MM]], %[[SUM]]
func.func @chain(%x: tensor<4x8xf32>, %w: tensor<8x3xbf16>) -> (tensor<4x3xf32>, tensor<4xf32>) {
  %e = tensor.empty() : tensor<4x8xf32>
  %wide_w_init = tensor.empty() : tensor<8x3xf32>
  %wide_w = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]} ins(%w : tensor<8x3xbf16>) outs(%wide_w_init : tensor<8x3xf32>) {
  ^bb0(%in: bf16, %out: f32):
    %0 = arith.extf %in : bf16 to f32
    linalg.yield %0 : f32
  } -> tensor<8x3xf32>
  %relu = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]} ins(%x : tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %z = arith.constant 0.0 : f32
    %0 = arith.maximumf %in, %z : f32
    linalg.yield %0 : f32
  } -> tensor<4x8xf32>
  %zero = arith.constant 0.0 : f32
  %s0 = tensor.empty() : tensor<4xf32>
  %s = linalg.fill ins(%zero : f32) outs(%s0 : tensor<4xf32>) -> tensor<4xf32>
  %sum = linalg.generic {indexing_maps = [#id2, #red], iterator_types = ["parallel", "reduction"]} ins(%relu : tensor<4x8xf32>) outs(%s : tensor<4xf32>) {
  ^bb0(%in: f32, %out: f32):
    %0 = arith.addf %in, %out : f32
    linalg.yield %0 : f32
  } -> tensor<4xf32>
  %c0 = tensor.empty() : tensor<4x3xf32>
  %c = linalg.fill ins(%zero : f32) outs(%c0 : tensor<4x3xf32>) -> tensor<4x3xf32>
  %mm = linalg.matmul ins(%relu, %wide_w : tensor<4x8xf32>, tensor<8x3xf32>) outs(%c : tensor<4x3xf32>) -> tensor<4x3xf32>
  return %mm, %sum : tensor<4x3xf32>, tensor<4xf32>
}

// -----

#id2 = affine_map<(d0, d1) -> (d0, d1)>
#id3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>

// Through a view and a transpose (which copies bfloat16 into a bfloat16
// init of its own) into a batched matmul whose other operand, an input, is
// f32: that one is rounded by a kernel of its own, where it is made (here
// at the top: an argument), so that nothing comes between the output's
// fill and the product.
// CHECK-LABEL: func.func @views
// CHECK-SAME:    (%[[X:.*]]: tensor<2x12xf32>, %[[K:.*]]: tensor<3x4x2xf32>)
// CHECK:       %[[K16:.*]] = linalg.generic {{.*}} ins(%[[K]] : tensor<3x4x2xf32>) outs(%{{.*}} : tensor<3x4x2xbf16>)
// CHECK-NEXT:  ^bb0(%[[IN:.*]]: f32, %{{.*}}: bf16):
// CHECK-NEXT:    %[[R:.*]] = arith.truncf %[[IN]] : f32 to bf16
// CHECK-NEXT:    linalg.yield %[[R]] : bf16
// CHECK:       %[[S:.*]] = linalg.generic {{.*}} ins(%[[X]] : tensor<2x12xf32>) outs(%{{.*}} : tensor<2x12xbf16>)
// CHECK:       %[[Q:.*]] = tensor.expand_shape %[[S]] {{.*}} : tensor<2x12xbf16> into tensor<2x3x4xbf16>
// CHECK:       %[[T16:.*]] = tensor.empty() : tensor<3x2x4xbf16>
// CHECK:       %[[QT:.*]] = linalg.transpose ins(%[[Q]] : tensor<2x3x4xbf16>) outs(%[[T16]] : tensor<3x2x4xbf16>)
// CHECK:       linalg.batch_matmul ins(%[[QT]], %[[K16]] : tensor<3x2x4xbf16>, tensor<3x4x2xbf16>) outs(%{{.*}} : tensor<3x2x2xf32>)
func.func @views(%x: tensor<2x12xf32>, %k: tensor<3x4x2xf32>) -> tensor<3x2x2xf32> {
  %e = tensor.empty() : tensor<2x12xf32>
  %scaled = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]} ins(%x : tensor<2x12xf32>) outs(%e : tensor<2x12xf32>) {
  ^bb0(%in: f32, %out: f32):
    %h = arith.constant 0.5 : f32
    %0 = arith.mulf %in, %h : f32
    linalg.yield %0 : f32
  } -> tensor<2x12xf32>
  %q = tensor.expand_shape %scaled [[0], [1, 2]] output_shape [2, 3, 4] : tensor<2x12xf32> into tensor<2x3x4xf32>
  %t0 = tensor.empty() : tensor<3x2x4xf32>
  %qt = linalg.transpose ins(%q : tensor<2x3x4xf32>) outs(%t0 : tensor<3x2x4xf32>) permutation = [1, 0, 2]
  %zero = arith.constant 0.0 : f32
  %c0 = tensor.empty() : tensor<3x2x2xf32>
  %c = linalg.fill ins(%zero : f32) outs(%c0 : tensor<3x2x2xf32>) -> tensor<3x2x2xf32>
  %s = linalg.batch_matmul ins(%qt, %k : tensor<3x2x4xf32>, tensor<3x4x2xf32>) outs(%c : tensor<3x2x2xf32>) -> tensor<3x2x2xf32>
  return %s : tensor<3x2x2xf32>
}

// -----

#id2 = affine_map<(d0, d1) -> (d0, d1)>
#col = affine_map<(d0, d1) -> (d1)>

// What stays f32: a kernel's result the program returns, one a matmul
// accumulates into (its init: a broadcast bias), and a weight's widening
// for the readers that cannot take bfloat16 (the return); a gather's
// scalar read of the table is read narrow and widened.
// CHECK-LABEL: func.func @kept
// CHECK-SAME:    (%[[IDX:.*]]: tensor<2xindex>, %[[TABLE:.*]]: tensor<5x4xbf16>, %[[BIAS:.*]]: tensor<3xf32>, %[[W:.*]]: tensor<4x3xbf16>)
// CHECK:       %[[WIDE:.*]] = linalg.generic {{.*}} ins(%[[TABLE]] : tensor<5x4xbf16>) outs(%{{.*}} : tensor<5x4xf32>)
// CHECK:       %[[ROWS:.*]] = linalg.generic {{.*}} ins(%[[IDX]] : tensor<2xindex>) outs(%{{.*}} : tensor<2x4xbf16>)
// CHECK:         %[[V:.*]] = tensor.extract %[[TABLE]][%{{.*}}, %{{.*}}] : tensor<5x4xbf16>
// CHECK-NEXT:    %[[VW:.*]] = arith.extf %[[V]] : bf16 to f32
// CHECK-NEXT:    %[[T:.*]] = arith.truncf %[[VW]] : f32 to bf16
// CHECK-NEXT:    linalg.yield %[[T]] : bf16
// CHECK:       %[[B:.*]] = linalg.generic {{.*}} ins(%[[BIAS]] : tensor<3xf32>) outs(%{{.*}} : tensor<2x3xf32>)
// CHECK:       %[[MM:.*]] = linalg.matmul ins(%[[ROWS]], %[[W]] : tensor<2x4xbf16>, tensor<4x3xbf16>) outs(%[[B]] : tensor<2x3xf32>)
// CHECK:       %[[OUT:.*]] = linalg.generic {{.*}} ins(%[[MM]] : tensor<2x3xf32>) outs(%{{.*}} : tensor<2x3xf32>)
// CHECK:       return %[[OUT]], %[[WIDE]]
func.func @kept(%idx: tensor<2xindex>, %table: tensor<5x4xbf16>, %bias: tensor<3xf32>, %w: tensor<4x3xbf16>) -> (tensor<2x3xf32>, tensor<5x4xf32>) {
  %t0 = tensor.empty() : tensor<5x4xf32>
  %wide = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]} ins(%table : tensor<5x4xbf16>) outs(%t0 : tensor<5x4xf32>) {
  ^bb0(%in: bf16, %out: f32):
    %0 = arith.extf %in : bf16 to f32
    linalg.yield %0 : f32
  } -> tensor<5x4xf32>
  %w0 = tensor.empty() : tensor<4x3xf32>
  %wide_w = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]} ins(%w : tensor<4x3xbf16>) outs(%w0 : tensor<4x3xf32>) {
  ^bb0(%in: bf16, %out: f32):
    %0 = arith.extf %in : bf16 to f32
    linalg.yield %0 : f32
  } -> tensor<4x3xf32>
  %r0 = tensor.empty() : tensor<2x4xf32>
  %rows = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0)>, #id2], iterator_types = ["parallel", "parallel"]} ins(%idx : tensor<2xindex>) outs(%r0 : tensor<2x4xf32>) {
  ^bb0(%i: index, %out: f32):
    %j = linalg.index 1 : index
    %v = tensor.extract %wide[%i, %j] : tensor<5x4xf32>
    linalg.yield %v : f32
  } -> tensor<2x4xf32>
  %b0 = tensor.empty() : tensor<2x3xf32>
  %b = linalg.generic {indexing_maps = [#col, #id2], iterator_types = ["parallel", "parallel"]} ins(%bias : tensor<3xf32>) outs(%b0 : tensor<2x3xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  } -> tensor<2x3xf32>
  %mm = linalg.matmul ins(%rows, %wide_w : tensor<2x4xf32>, tensor<4x3xf32>) outs(%b : tensor<2x3xf32>) -> tensor<2x3xf32>
  %o0 = tensor.empty() : tensor<2x3xf32>
  %out = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]} ins(%mm : tensor<2x3xf32>) outs(%o0 : tensor<2x3xf32>) {
  ^bb0(%in: f32, %o: f32):
    %0 = math.tanh %in : f32
    linalg.yield %0 : f32
  } -> tensor<2x3xf32>
  return %out, %wide : tensor<2x3xf32>, tensor<5x4xf32>
}

// -----

#id4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>

// A convolution reading bfloat16 (an activation, a weight) becomes a
// generic that widens both and accumulates into its f32 output.
// CHECK-LABEL: func.func @conv
// CHECK-SAME:    (%[[X:.*]]: tensor<1x2x5x5xf32>, %[[W:.*]]: tensor<3x2x3x3xbf16>)
// CHECK:       %[[RELU:.*]] = linalg.generic {{.*}} outs(%{{.*}} : tensor<1x2x5x5xbf16>)
// CHECK-NOT:   linalg.conv_2d_nchw_fchw
// CHECK:       linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%[[RELU]], %[[W]] : tensor<1x2x5x5xbf16>, tensor<3x2x3x3xbf16>) outs(%{{.*}} : tensor<1x3x3x3xf32>)
// CHECK-NEXT:  ^bb0(%[[I:.*]]: bf16, %[[F:.*]]: bf16, %[[ACC:.*]]: f32):
// CHECK-DAG:     arith.extf %[[I]] : bf16 to f32
// CHECK-DAG:     arith.extf %[[F]] : bf16 to f32
// CHECK:         arith.mulf
// CHECK:         arith.addf %[[ACC]]
func.func @conv(%x: tensor<1x2x5x5xf32>, %w: tensor<3x2x3x3xbf16>) -> tensor<1x3x3x3xf32> {
  %e = tensor.empty() : tensor<1x2x5x5xf32>
  %relu = linalg.generic {indexing_maps = [#id4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%x : tensor<1x2x5x5xf32>) outs(%e : tensor<1x2x5x5xf32>) {
  ^bb0(%in: f32, %out: f32):
    %z = arith.constant 0.0 : f32
    %0 = arith.maximumf %in, %z : f32
    linalg.yield %0 : f32
  } -> tensor<1x2x5x5xf32>
  %w0 = tensor.empty() : tensor<3x2x3x3xf32>
  %wide_w = linalg.generic {indexing_maps = [#id4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%w : tensor<3x2x3x3xbf16>) outs(%w0 : tensor<3x2x3x3xf32>) {
  ^bb0(%in: bf16, %out: f32):
    %0 = arith.extf %in : bf16 to f32
    linalg.yield %0 : f32
  } -> tensor<3x2x3x3xf32>
  %zero = arith.constant 0.0 : f32
  %o0 = tensor.empty() : tensor<1x3x3x3xf32>
  %o = linalg.fill ins(%zero : f32) outs(%o0 : tensor<1x3x3x3xf32>) -> tensor<1x3x3x3xf32>
  %conv = linalg.conv_2d_nchw_fchw ins(%relu, %wide_w : tensor<1x2x5x5xf32>, tensor<3x2x3x3xf32>) outs(%o : tensor<1x3x3x3xf32>) -> tensor<1x3x3x3xf32>
  return %conv : tensor<1x3x3x3xf32>
}

// -----

#id4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>

// A pad passes bfloat16 on (its value rounded where it is yielded); a
// broadcast of a bfloat16 bias becomes a generic that widens it.
// CHECK-LABEL: func.func @pad_broadcast
// CHECK-SAME:    (%[[X:.*]]: tensor<1x1x2x2xf32>, %[[B:.*]]: tensor<1xbf16>)
// CHECK:       %[[RELU:.*]] = linalg.generic {{.*}} outs(%{{.*}} : tensor<1x1x2x2xbf16>)
// CHECK:       %[[PAD:.*]] = tensor.pad %[[RELU]]
// CHECK:         %[[V:.*]] = arith.truncf %{{.*}} : f32 to bf16
// CHECK-NEXT:    tensor.yield %[[V]] : bf16
// CHECK-NEXT:  } : tensor<1x1x2x2xbf16> to tensor<1x1x4x4xbf16>
// CHECK-NOT:   linalg.broadcast
// CHECK:       %[[BIAS:.*]] = linalg.generic {{.*}} ins(%[[B]] : tensor<1xbf16>) outs(%{{.*}} : tensor<1x1x4x4xf32>)
// CHECK-NEXT:  ^bb0(%[[IN:.*]]: bf16, %{{.*}}: f32):
// CHECK-NEXT:    %[[W:.*]] = arith.extf %[[IN]] : bf16 to f32
// CHECK-NEXT:    linalg.yield %[[W]] : f32
// CHECK:       linalg.generic {{.*}} ins(%[[PAD]], %[[BIAS]] : tensor<1x1x4x4xbf16>, tensor<1x1x4x4xf32>) outs(%{{.*}} : tensor<1x1x4x4xf32>)
func.func @pad_broadcast(%x: tensor<1x1x2x2xf32>, %b: tensor<1xbf16>) -> tensor<1x1x4x4xf32> {
  %e = tensor.empty() : tensor<1x1x2x2xf32>
  %relu = linalg.generic {indexing_maps = [#id4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%x : tensor<1x1x2x2xf32>) outs(%e : tensor<1x1x2x2xf32>) {
  ^bb0(%in: f32, %out: f32):
    %z = arith.constant 0.0 : f32
    %0 = arith.maximumf %in, %z : f32
    linalg.yield %0 : f32
  } -> tensor<1x1x2x2xf32>
  %zero = arith.constant 0.0 : f32
  %padded = tensor.pad %relu low[0, 0, 1, 1] high[0, 0, 1, 1] {
  ^bb0(%i: index, %j: index, %k: index, %l: index):
    tensor.yield %zero : f32
  } : tensor<1x1x2x2xf32> to tensor<1x1x4x4xf32>
  %b0 = tensor.empty() : tensor<1xf32>
  %wide_b = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%b : tensor<1xbf16>) outs(%b0 : tensor<1xf32>) {
  ^bb0(%in: bf16, %out: f32):
    %0 = arith.extf %in : bf16 to f32
    linalg.yield %0 : f32
  } -> tensor<1xf32>
  %o0 = tensor.empty() : tensor<1x1x4x4xf32>
  %bias = linalg.broadcast ins(%wide_b : tensor<1xf32>) outs(%o0 : tensor<1x1x4x4xf32>) dimensions = [0, 2, 3]
  %sum = linalg.generic {indexing_maps = [#id4, #id4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%padded, %bias : tensor<1x1x4x4xf32>, tensor<1x1x4x4xf32>) outs(%o0 : tensor<1x1x4x4xf32>) {
  ^bb0(%in: f32, %in2: f32, %out: f32):
    %0 = arith.addf %in, %in2 : f32
    linalg.yield %0 : f32
  } -> tensor<1x1x4x4xf32>
  return %sum : tensor<1x1x4x4xf32>
}
