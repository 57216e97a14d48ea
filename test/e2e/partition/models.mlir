// Numeric checks of telar-partition beyond the MLP (megatron.mlir says
// how): expert parallel all-to-all, heads and batch through reshapes,
// transposes, batched matmuls and a split mean; a sequence-split
// embedding through a strided reshape, slice and concat; a channel-split
// convolution pair. Each program prints its output as written, then
// partitioned on a 2x2 mesh; the two must agree.
// RUN: telar-opt %s --verify-each=0 -telar-partition -test-telar-simulate-ranks | telar-opt %lower_standalone | %mlir_runner -e entry | FileCheck %s


// moe
// CHECK: data =
// CHECK-NEXT: {{\[}}[[MOE:.*]]
// CHECK: data =
// CHECK-NEXT: {{\[}}[[MOE]]

// attention
// CHECK: data =
// CHECK-NEXT: {{\[}}[[ATTENTION:.*]]
// CHECK: data =
// CHECK-NEXT: {{\[}}[[ATTENTION]]

// mixed
// CHECK: data =
// CHECK-NEXT: {{\[}}[[MIXED:.*]]
// CHECK: data =
// CHECK-NEXT: {{\[}}[[MIXED]]
module {
  shard.grid @mesh(shape = 2x2) {telar.axis_names = ["data", "model"]}
  func.func @moe(%x: tensor<2x4x8xf32>, %m: tensor<2x4x4x2xf32>, %w: tensor<4x8x8xf32>) -> tensor<2x4x8xf32> {
    %sg = shard.sharding @mesh split_axes = [[1]] : !shard.sharding
    %xs = shard.shard %x to %sg : tensor<2x4x8xf32>
    %ms = shard.shard %m to %sg : tensor<2x4x4x2xf32>
    %d = telar.einsum %xs, %ms {equation = #telar.einsum<[g, s, d], [g, s, e, c] -> [e, g, c, d]>} : (tensor<2x4x8xf32>, tensor<2x4x4x2xf32>) -> tensor<4x2x2x8xf32>
    %sdg = shard.sharding @mesh split_axes = [[], [1]] : !shard.sharding
    %ds = shard.shard %d to %sdg : tensor<4x2x2x8xf32>
    %de = shard.shard %ds to %sg annotate_for_users : tensor<4x2x2x8xf32>
    %ws = shard.shard %w to %sg annotate_for_users : tensor<4x8x8xf32>
    %e = telar.einsum %de, %ws {equation = #telar.einsum<[e, g, c, d], [e, d, h] -> [e, g, c, h]>} : (tensor<4x2x2x8xf32>, tensor<4x8x8xf32>) -> tensor<4x2x2x8xf32>
    %es = shard.shard %e to %sg : tensor<4x2x2x8xf32>
    %eg = shard.shard %es to %sdg annotate_for_users : tensor<4x2x2x8xf32>
    %y = telar.einsum %eg, %ms {equation = #telar.einsum<[e, g, c, h], [g, s, e, c] -> [g, s, h]>} : (tensor<4x2x2x8xf32>, tensor<2x4x4x2xf32>) -> tensor<2x4x8xf32>
    %ys = shard.shard %y to %sg : tensor<2x4x8xf32>
    return %ys : tensor<2x4x8xf32>
  }
  func.func @moe_ref(%x: tensor<2x4x8xf32>, %m: tensor<2x4x4x2xf32>, %w: tensor<4x8x8xf32>) -> tensor<2x4x8xf32> {
    %d = telar.einsum %x, %m {equation = #telar.einsum<[g, s, d], [g, s, e, c] -> [e, g, c, d]>} : (tensor<2x4x8xf32>, tensor<2x4x4x2xf32>) -> tensor<4x2x2x8xf32>
    %e = telar.einsum %d, %w {equation = #telar.einsum<[e, g, c, d], [e, d, h] -> [e, g, c, h]>} : (tensor<4x2x2x8xf32>, tensor<4x8x8xf32>) -> tensor<4x2x2x8xf32>
    %y = telar.einsum %e, %m {equation = #telar.einsum<[e, g, c, h], [g, s, e, c] -> [g, s, h]>} : (tensor<4x2x2x8xf32>, tensor<2x4x4x2xf32>) -> tensor<2x4x8xf32>
    return %y : tensor<2x4x8xf32>
  }
  func.func @attention(%x: tensor<2x4x16xf32>, %wq: tensor<16x16xf32>) -> tensor<2x4xf32> {
    %sb = shard.sharding @mesh split_axes = [[0]] : !shard.sharding
    %xs = shard.shard %x to %sb : tensor<2x4x16xf32>
    %sc = shard.sharding @mesh split_axes = [[], [1]] : !shard.sharding
    %wqs = shard.shard %wq to %sc annotate_for_users : tensor<16x16xf32>
    %q = telar.matmul %xs, %wqs : (tensor<2x4x16xf32>, tensor<16x16xf32>) -> tensor<2x4x16xf32>
    %sq = shard.sharding @mesh split_axes = [[0], [], [1]] : !shard.sharding
    %qs = shard.shard %q to %sq : tensor<2x4x16xf32>
    %h = telar.reshape %qs {shape = array<i64: 2, 4, 4, 4>} : (tensor<2x4x16xf32>) -> tensor<2x4x4x4xf32>
    %sh = shard.sharding @mesh split_axes = [[0], [], [1], []] : !shard.sharding
    %hs = shard.shard %h to %sh : tensor<2x4x4x4xf32>
    %t = telar.transpose %hs {perm = array<i64: 0, 2, 1, 3>} : (tensor<2x4x4x4xf32>) -> tensor<2x4x4x4xf32>
    %st = shard.sharding @mesh split_axes = [[0], [1], [], []] : !shard.sharding
    %ts = shard.shard %t to %st : tensor<2x4x4x4xf32>
    %tt = telar.transpose %ts {perm = array<i64: 0, 1, 3, 2>} : (tensor<2x4x4x4xf32>) -> tensor<2x4x4x4xf32>
    %tts = shard.shard %tt to %st : tensor<2x4x4x4xf32>
    %s = telar.matmul %ts, %tts : (tensor<2x4x4x4xf32>, tensor<2x4x4x4xf32>) -> tensor<2x4x4x4xf32>
    %ss = shard.shard %s to %st : tensor<2x4x4x4xf32>
    %r = telar.reduce_mean %ss {axes = array<i64: 1, 3>, keepdims = false} : (tensor<2x4x4x4xf32>) -> tensor<2x4xf32>
    %sp = shard.sharding @mesh split_axes = [[0], []] {telar.partial = {model = "sum"}} : !shard.sharding
    %rs = shard.shard %r to %sp : tensor<2x4xf32>
    %srep = shard.sharding @mesh split_axes = [[], []] : !shard.sharding
    %out = shard.shard %rs to %srep annotate_for_users : tensor<2x4xf32>
    return %out : tensor<2x4xf32>
  }
  func.func @attention_ref(%x: tensor<2x4x16xf32>, %wq: tensor<16x16xf32>) -> tensor<2x4xf32> {
    %q = telar.matmul %x, %wq : (tensor<2x4x16xf32>, tensor<16x16xf32>) -> tensor<2x4x16xf32>
    %h = telar.reshape %q {shape = array<i64: 2, 4, 4, 4>} : (tensor<2x4x16xf32>) -> tensor<2x4x4x4xf32>
    %t = telar.transpose %h {perm = array<i64: 0, 2, 1, 3>} : (tensor<2x4x4x4xf32>) -> tensor<2x4x4x4xf32>
    %tt = telar.transpose %t {perm = array<i64: 0, 1, 3, 2>} : (tensor<2x4x4x4xf32>) -> tensor<2x4x4x4xf32>
    %s = telar.matmul %t, %tt : (tensor<2x4x4x4xf32>, tensor<2x4x4x4xf32>) -> tensor<2x4x4x4xf32>
    %r = telar.reduce_mean %s {axes = array<i64: 1, 3>, keepdims = false} : (tensor<2x4x4x4xf32>) -> tensor<2x4xf32>
    return %r : tensor<2x4xf32>
  }
  func.func @mixed(%ids: tensor<2x4xi64>, %table: tensor<8x4xf32>, %img: tensor<1x4x4x4xf32>, %cw: tensor<4x4x3x3xf32>, %cv: tensor<2x4x1x1xf32>) -> tensor<1x2x4x4xf32> {
    %sseq = shard.sharding @mesh split_axes = [[], [0]] : !shard.sharding
    %idss = shard.shard %ids to %sseq : tensor<2x4xi64>
    %scol = shard.sharding @mesh split_axes = [[], [1]] : !shard.sharding
    %tabs = shard.shard %table to %scol annotate_for_users : tensor<8x4xf32>
    %e = telar.gather %tabs, %idss {axis = 0 : i64} : (tensor<8x4xf32>, tensor<2x4xi64>) -> tensor<2x4x4xf32>
    %se = shard.sharding @mesh split_axes = [[], [0], [1]] : !shard.sharding
    %es = shard.shard %e to %se : tensor<2x4x4xf32>
    %f = telar.reshape %es {shape = array<i64: 8, 4>} : (tensor<2x4x4xf32>) -> tensor<8x4xf32>
    %sf = shard.sharding @mesh split_axes = [[0], [1]] : !shard.sharding
    %fs = shard.shard %f to %sf : tensor<8x4xf32>
    %a = telar.slice %fs {axes = array<i64: 0>, starts = array<i64: 1>, ends = array<i64: 5>, steps = array<i64: 1>} : (tensor<8x4xf32>) -> tensor<4x4xf32>
    %sa = shard.sharding @mesh split_axes = [[], [1]] : !shard.sharding
    %as = shard.shard %a to %sa : tensor<4x4xf32>
    %c = telar.concat %as, %as {axis = 1 : i64} : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x8xf32>
    %cr = telar.reshape %c {shape = array<i64: 1, 2, 4, 4>} : (tensor<4x8xf32>) -> tensor<1x2x4x4xf32>
    %sch = shard.sharding @mesh split_axes = [[], [1]] : !shard.sharding
    %cws = shard.shard %cw to %sch annotate_for_users : tensor<4x4x3x3xf32>
    %sco = shard.sharding @mesh split_axes = [[1]] : !shard.sharding
    %cw2 = shard.shard %cws to %sco annotate_for_users : tensor<4x4x3x3xf32>
    %k = telar.conv %img, %cw2 {dilations = array<i64: 1, 1>, group = 1 : i64, kernel_shape = array<i64: 3, 3>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : (tensor<1x4x4x4xf32>, tensor<4x4x3x3xf32>) -> tensor<1x4x4x4xf32>
    %sk = shard.sharding @mesh split_axes = [[], [1]] : !shard.sharding
    %ks = shard.shard %k to %sk : tensor<1x4x4x4xf32>
    %cvs = shard.shard %cv to %sch annotate_for_users : tensor<2x4x1x1xf32>
    %v = telar.conv %ks, %cvs {dilations = array<i64: 1, 1>, group = 1 : i64, kernel_shape = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x4x4x4xf32>, tensor<2x4x1x1xf32>) -> tensor<1x2x4x4xf32>
    %sp = shard.sharding @mesh split_axes = [[]] {telar.partial = {model = "sum"}} : !shard.sharding
    %vs = shard.shard %v to %sp : tensor<1x2x4x4xf32>
    %srep = shard.sharding @mesh split_axes = [[]] : !shard.sharding
    %vr = shard.shard %vs to %srep annotate_for_users : tensor<1x2x4x4xf32>
    %o = telar.add %vr, %cr : (tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
    %sout = shard.sharding @mesh split_axes = [[], [], [0, 1]] : !shard.sharding
    %os = shard.shard %o to %sout : tensor<1x2x4x4xf32>
    return %os : tensor<1x2x4x4xf32>
  }
  func.func @mixed_ref(%ids: tensor<2x4xi64>, %table: tensor<8x4xf32>, %img: tensor<1x4x4x4xf32>, %cw: tensor<4x4x3x3xf32>, %cv: tensor<2x4x1x1xf32>) -> tensor<1x2x4x4xf32> {
    %e = telar.gather %table, %ids {axis = 0 : i64} : (tensor<8x4xf32>, tensor<2x4xi64>) -> tensor<2x4x4xf32>
    %f = telar.reshape %e {shape = array<i64: 8, 4>} : (tensor<2x4x4xf32>) -> tensor<8x4xf32>
    %a = telar.slice %f {axes = array<i64: 0>, starts = array<i64: 1>, ends = array<i64: 5>, steps = array<i64: 1>} : (tensor<8x4xf32>) -> tensor<4x4xf32>
    %c = telar.concat %a, %a {axis = 1 : i64} : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x8xf32>
    %cr = telar.reshape %c {shape = array<i64: 1, 2, 4, 4>} : (tensor<4x8xf32>) -> tensor<1x2x4x4xf32>
    %k = telar.conv %img, %cw {dilations = array<i64: 1, 1>, group = 1 : i64, kernel_shape = array<i64: 3, 3>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : (tensor<1x4x4x4xf32>, tensor<4x4x3x3xf32>) -> tensor<1x4x4x4xf32>
    %v = telar.conv %k, %cv {dilations = array<i64: 1, 1>, group = 1 : i64, kernel_shape = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x4x4x4xf32>, tensor<2x4x1x1xf32>) -> tensor<1x2x4x4xf32>
    %o = telar.add %v, %cr : (tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
    return %o : tensor<1x2x4x4xf32>
  }
  func.func @entry() {
    %moe_x = telar.constant dense<[[[0.0, 3.0, 1.0, 3.0, 3.0, 0.0, 0.0, 1.0], [3.0, 1.0, -2.0, -2.0, 3.0, 1.0, 0.0, 2.0], [1.0, 3.0, -2.0, -3.0, 0.0, -1.0, -2.0, -3.0], [1.0, 3.0, 2.0, 2.0, -3.0, 1.0, 0.0, 0.0]], [[2.0, 2.0, 1.0, 2.0, -2.0, 1.0, -3.0, 3.0], [1.0, -3.0, -3.0, -3.0, -2.0, -2.0, 1.0, -3.0], [3.0, 0.0, -1.0, 0.0, 1.0, 3.0, -2.0, 1.0], [-2.0, 2.0, -1.0, 0.0, -3.0, 2.0, -3.0, 0.0]]]> : tensor<2x4x8xf32>
    %moe_m = telar.constant dense<[[[[2.0, -1.0], [0.0, 1.0], [3.0, -3.0], [2.0, -1.0]], [[-1.0, 3.0], [-2.0, 1.0], [-1.0, -3.0], [-3.0, 1.0]], [[3.0, -3.0], [0.0, -3.0], [3.0, -1.0], [0.0, -3.0]], [[-3.0, 3.0], [2.0, -3.0], [-2.0, -2.0], [-3.0, 0.0]]], [[[0.0, 2.0], [0.0, 0.0], [-3.0, 1.0], [2.0, -2.0]], [[3.0, 2.0], [-1.0, -1.0], [-3.0, -1.0], [-1.0, -3.0]], [[0.0, 3.0], [-3.0, -2.0], [-2.0, 2.0], [-3.0, -3.0]], [[-3.0, 0.0], [3.0, 0.0], [-2.0, 2.0], [1.0, -2.0]]]]> : tensor<2x4x4x2xf32>
    %moe_w = telar.constant dense<[[[0.0, 1.0, -2.0, 2.0, 3.0, -2.0, 0.0, 2.0], [0.0, -3.0, 0.0, 0.0, -2.0, -3.0, -1.0, 3.0], [3.0, 1.0, -1.0, -3.0, -2.0, -2.0, 0.0, 3.0], [1.0, 2.0, 1.0, -3.0, -3.0, -2.0, -2.0, 0.0], [-1.0, -3.0, 3.0, 1.0, -1.0, 3.0, -1.0, 0.0], [-3.0, -3.0, -3.0, -2.0, 1.0, 2.0, -2.0, -3.0], [1.0, -1.0, -1.0, 1.0, 0.0, -2.0, 1.0, 0.0], [3.0, 1.0, -2.0, 3.0, 0.0, -2.0, 2.0, -2.0]], [[-1.0, -2.0, 3.0, 1.0, -2.0, 2.0, -2.0, -2.0], [2.0, 2.0, 1.0, -2.0, 2.0, 0.0, 0.0, 1.0], [-3.0, 0.0, -3.0, -3.0, -3.0, -3.0, 1.0, -1.0], [-2.0, 2.0, 2.0, 0.0, -1.0, 0.0, 3.0, 1.0], [0.0, -1.0, 1.0, -2.0, 2.0, -3.0, -2.0, -2.0], [0.0, 1.0, 2.0, 3.0, 1.0, 1.0, -3.0, -1.0], [-2.0, -2.0, 2.0, -3.0, -3.0, -1.0, 0.0, 0.0], [-2.0, -3.0, -3.0, -2.0, -1.0, -1.0, 1.0, 1.0]], [[-2.0, -3.0, -1.0, -2.0, 0.0, -1.0, 2.0, 2.0], [2.0, 1.0, 1.0, -2.0, 1.0, -3.0, -3.0, 0.0], [-1.0, 2.0, -1.0, -3.0, -3.0, 1.0, 2.0, -3.0], [0.0, -3.0, 2.0, -1.0, -1.0, -2.0, -3.0, -3.0], [0.0, 1.0, -1.0, 2.0, -3.0, 2.0, 2.0, 2.0], [-2.0, 3.0, -1.0, -1.0, -3.0, 2.0, 0.0, -3.0], [3.0, 3.0, 0.0, 3.0, -3.0, 3.0, 0.0, 1.0], [-3.0, 1.0, 2.0, 0.0, 0.0, 1.0, -3.0, 1.0]], [[-3.0, -3.0, -3.0, 2.0, -3.0, -1.0, 0.0, 2.0], [-1.0, 0.0, 2.0, 2.0, 1.0, 0.0, 0.0, 0.0], [3.0, 1.0, -3.0, 1.0, 3.0, 1.0, -3.0, -1.0], [1.0, -3.0, 0.0, -3.0, -2.0, 2.0, -3.0, 0.0], [3.0, 1.0, 2.0, 0.0, -1.0, -3.0, -1.0, -1.0], [-2.0, 2.0, 1.0, -2.0, 1.0, -2.0, 3.0, -1.0], [2.0, 0.0, 0.0, -2.0, -1.0, 0.0, 2.0, -1.0], [-2.0, 2.0, 0.0, 3.0, 3.0, 3.0, -2.0, -2.0]]]> : tensor<4x8x8xf32>
    %moe_a = call @moe_ref(%moe_x, %moe_m, %moe_w) : (tensor<2x4x8xf32>, tensor<2x4x4x2xf32>, tensor<4x8x8xf32>) -> tensor<2x4x8xf32>
    %moe_af = tensor.collapse_shape %moe_a [[0, 1, 2]] : tensor<2x4x8xf32> into tensor<64xf32>
    %moe_au = tensor.cast %moe_af : tensor<64xf32> to tensor<*xf32>
    call @printMemrefF32(%moe_au) : (tensor<*xf32>) -> ()
    %moe_b = call @moe(%moe_x, %moe_m, %moe_w) : (tensor<2x4x8xf32>, tensor<2x4x4x2xf32>, tensor<4x8x8xf32>) -> tensor<2x4x8xf32>
    %moe_bf = tensor.collapse_shape %moe_b [[0, 1, 2]] : tensor<2x4x8xf32> into tensor<64xf32>
    %moe_bu = tensor.cast %moe_bf : tensor<64xf32> to tensor<*xf32>
    call @printMemrefF32(%moe_bu) : (tensor<*xf32>) -> ()
    %attention_x = telar.constant dense<[[[0.0, -2.0, 1.0, -1.0, -2.0, -2.0, -2.0, 0.0, -1.0, 3.0, 3.0, -3.0, 2.0, -3.0, -1.0, 3.0], [-2.0, -3.0, 0.0, 0.0, -1.0, -2.0, 3.0, 0.0, 0.0, 2.0, 1.0, 0.0, 2.0, -1.0, 2.0, 3.0], [3.0, 1.0, 0.0, -1.0, -3.0, 3.0, -3.0, -1.0, 3.0, 1.0, -3.0, 2.0, 2.0, -1.0, 1.0, -1.0], [-1.0, 2.0, 3.0, 1.0, -3.0, 2.0, -2.0, 0.0, 0.0, -2.0, -3.0, 3.0, 3.0, -1.0, -2.0, 3.0]], [[-2.0, 3.0, -3.0, 2.0, -3.0, 0.0, -3.0, 2.0, 1.0, 2.0, 2.0, 3.0, -1.0, -3.0, 2.0, -2.0], [-2.0, 3.0, 0.0, -1.0, -2.0, 2.0, -3.0, 3.0, 0.0, 1.0, 2.0, -3.0, -2.0, -2.0, -1.0, 3.0], [-1.0, 1.0, 2.0, 1.0, 1.0, 1.0, 3.0, -2.0, 0.0, 3.0, 3.0, 2.0, -2.0, -3.0, 0.0, 2.0], [0.0, -2.0, 0.0, 0.0, -2.0, 2.0, -3.0, 0.0, 1.0, 1.0, 2.0, 1.0, 3.0, 3.0, -1.0, 0.0]]]> : tensor<2x4x16xf32>
    %attention_wq = telar.constant dense<[[-1.0, 2.0, -2.0, -3.0, 2.0, 3.0, 3.0, 3.0, 2.0, 2.0, -3.0, -2.0, -2.0, 0.0, -3.0, -1.0], [1.0, 3.0, -1.0, -1.0, 2.0, 3.0, -3.0, -1.0, 1.0, -3.0, -3.0, 0.0, -1.0, 1.0, 0.0, 3.0], [-1.0, 0.0, -3.0, -2.0, 3.0, 3.0, -3.0, 0.0, 3.0, -3.0, -2.0, 1.0, -1.0, 2.0, 3.0, -2.0], [0.0, -2.0, 1.0, 2.0, 1.0, 3.0, 2.0, 2.0, 0.0, 0.0, 1.0, 2.0, -3.0, 3.0, -2.0, 0.0], [1.0, 1.0, -1.0, 3.0, 2.0, 1.0, 2.0, -2.0, 1.0, 1.0, 3.0, 1.0, -1.0, -1.0, 2.0, 0.0], [3.0, 3.0, 1.0, -2.0, -1.0, 3.0, -2.0, 1.0, 1.0, -1.0, 1.0, 0.0, -2.0, 0.0, 1.0, -3.0], [1.0, -3.0, 1.0, 0.0, -3.0, 1.0, -3.0, 1.0, 0.0, 1.0, 3.0, 1.0, -3.0, 0.0, -3.0, 2.0], [-2.0, -3.0, 1.0, 0.0, 0.0, 3.0, 0.0, -1.0, -2.0, 0.0, 0.0, -2.0, -1.0, 0.0, 3.0, 0.0], [1.0, -1.0, -3.0, -2.0, 0.0, 1.0, -3.0, -1.0, -2.0, 2.0, 3.0, -3.0, -3.0, -2.0, -2.0, -2.0], [-3.0, 2.0, -1.0, -1.0, 2.0, -1.0, -2.0, 1.0, 0.0, -3.0, 0.0, 2.0, 1.0, -3.0, 3.0, 1.0], [1.0, -1.0, 2.0, -2.0, 2.0, 1.0, 0.0, -3.0, 0.0, 2.0, 0.0, 3.0, 1.0, 1.0, -2.0, 1.0], [-2.0, 3.0, 2.0, 1.0, 2.0, -2.0, 1.0, -2.0, 3.0, 1.0, 1.0, 1.0, 3.0, -2.0, -2.0, 2.0], [2.0, 3.0, -1.0, -2.0, -1.0, 1.0, -1.0, -2.0, -2.0, 3.0, -2.0, -3.0, -2.0, -2.0, -2.0, 2.0], [-3.0, -1.0, 0.0, -3.0, 0.0, 3.0, 0.0, 1.0, 3.0, 2.0, -2.0, -2.0, 0.0, 2.0, 2.0, 3.0], [-3.0, -3.0, -2.0, 1.0, 2.0, -1.0, 3.0, -1.0, -3.0, 2.0, 1.0, 2.0, 3.0, -1.0, 1.0, 2.0], [3.0, -2.0, 3.0, -3.0, 0.0, -3.0, -3.0, -3.0, 3.0, 1.0, 1.0, 1.0, 1.0, 0.0, -2.0, -2.0]]> : tensor<16x16xf32>
    %attention_a = call @attention_ref(%attention_x, %attention_wq) : (tensor<2x4x16xf32>, tensor<16x16xf32>) -> tensor<2x4xf32>
    %attention_af = tensor.collapse_shape %attention_a [[0, 1]] : tensor<2x4xf32> into tensor<8xf32>
    %attention_au = tensor.cast %attention_af : tensor<8xf32> to tensor<*xf32>
    call @printMemrefF32(%attention_au) : (tensor<*xf32>) -> ()
    %attention_b = call @attention(%attention_x, %attention_wq) : (tensor<2x4x16xf32>, tensor<16x16xf32>) -> tensor<2x4xf32>
    %attention_bf = tensor.collapse_shape %attention_b [[0, 1]] : tensor<2x4xf32> into tensor<8xf32>
    %attention_bu = tensor.cast %attention_bf : tensor<8xf32> to tensor<*xf32>
    call @printMemrefF32(%attention_bu) : (tensor<*xf32>) -> ()
    %mixed_ids = telar.constant dense<[[2, 1, 3, 2], [2, 4, 1, 0]]> : tensor<2x4xi64>
    %mixed_table = telar.constant dense<[[-2.0, 2.0, 0.0, -3.0], [3.0, -3.0, -1.0, 0.0], [0.0, 0.0, 1.0, -1.0], [0.0, -2.0, 1.0, -1.0], [-3.0, 2.0, 2.0, -3.0], [3.0, -2.0, -2.0, 0.0], [0.0, -1.0, 2.0, -1.0], [0.0, -2.0, 1.0, -2.0]]> : tensor<8x4xf32>
    %mixed_img = telar.constant dense<[[[[-3.0, 1.0, 3.0, -3.0], [-1.0, -3.0, 3.0, 3.0], [2.0, 3.0, 2.0, 0.0], [1.0, 1.0, -2.0, 1.0]], [[1.0, -1.0, 3.0, 3.0], [-1.0, -1.0, -3.0, 2.0], [2.0, 3.0, -2.0, 3.0], [0.0, -2.0, -1.0, 1.0]], [[2.0, -1.0, 3.0, 0.0], [3.0, -2.0, 0.0, -2.0], [2.0, -2.0, -3.0, 3.0], [-1.0, -1.0, 0.0, -3.0]], [[-3.0, -1.0, 2.0, 1.0], [-3.0, -2.0, -1.0, 2.0], [-1.0, -1.0, -2.0, 2.0], [0.0, 1.0, -2.0, 1.0]]]]> : tensor<1x4x4x4xf32>
    %mixed_cw = telar.constant dense<[[[[-3.0, 0.0, 1.0], [0.0, 2.0, -2.0], [2.0, -3.0, 3.0]], [[0.0, 1.0, -3.0], [-3.0, 1.0, -3.0], [2.0, -2.0, -1.0]], [[0.0, 0.0, 1.0], [-3.0, 3.0, -2.0], [2.0, 0.0, -3.0]], [[-3.0, -1.0, -1.0], [-1.0, -1.0, 1.0], [1.0, 1.0, 0.0]]], [[[1.0, 1.0, 3.0], [-3.0, 2.0, 0.0], [3.0, 2.0, -3.0]], [[1.0, 1.0, 2.0], [3.0, -3.0, 0.0], [-2.0, 0.0, 0.0]], [[-2.0, 3.0, 0.0], [1.0, 1.0, 1.0], [-3.0, 0.0, 0.0]], [[0.0, -1.0, 1.0], [0.0, 1.0, -1.0], [-1.0, 1.0, -1.0]]], [[[0.0, 2.0, -1.0], [1.0, -1.0, 2.0], [2.0, 2.0, -1.0]], [[-3.0, -3.0, 3.0], [-2.0, 1.0, -3.0], [2.0, -2.0, 0.0]], [[3.0, 2.0, 0.0], [-3.0, -1.0, 2.0], [0.0, -3.0, 1.0]], [[2.0, -1.0, -3.0], [3.0, -2.0, 0.0], [2.0, 0.0, -1.0]]], [[[3.0, -2.0, -3.0], [1.0, -3.0, 3.0], [2.0, 0.0, -2.0]], [[3.0, -2.0, 1.0], [2.0, -3.0, -3.0], [1.0, 0.0, 0.0]], [[-3.0, -2.0, 3.0], [-3.0, -1.0, 1.0], [-2.0, -3.0, -1.0]], [[0.0, -2.0, 2.0], [0.0, 0.0, 1.0], [-1.0, 2.0, 1.0]]]]> : tensor<4x4x3x3xf32>
    %mixed_cv = telar.constant dense<[[[[2.0]], [[0.0]], [[-1.0]], [[3.0]]], [[[2.0]], [[1.0]], [[3.0]], [[-2.0]]]]> : tensor<2x4x1x1xf32>
    %mixed_a = call @mixed_ref(%mixed_ids, %mixed_table, %mixed_img, %mixed_cw, %mixed_cv) : (tensor<2x4xi64>, tensor<8x4xf32>, tensor<1x4x4x4xf32>, tensor<4x4x3x3xf32>, tensor<2x4x1x1xf32>) -> tensor<1x2x4x4xf32>
    %mixed_af = tensor.collapse_shape %mixed_a [[0, 1, 2, 3]] : tensor<1x2x4x4xf32> into tensor<32xf32>
    %mixed_au = tensor.cast %mixed_af : tensor<32xf32> to tensor<*xf32>
    call @printMemrefF32(%mixed_au) : (tensor<*xf32>) -> ()
    %mixed_b = call @mixed(%mixed_ids, %mixed_table, %mixed_img, %mixed_cw, %mixed_cv) : (tensor<2x4xi64>, tensor<8x4xf32>, tensor<1x4x4x4xf32>, tensor<4x4x3x3xf32>, tensor<2x4x1x1xf32>) -> tensor<1x2x4x4xf32>
    %mixed_bf = tensor.collapse_shape %mixed_b [[0, 1, 2, 3]] : tensor<1x2x4x4xf32> into tensor<32xf32>
    %mixed_bu = tensor.cast %mixed_bf : tensor<32xf32> to tensor<*xf32>
    call @printMemrefF32(%mixed_bu) : (tensor<*xf32>) -> ()
    return
  }
  func.func private @printMemrefF32(tensor<*xf32>)
}
