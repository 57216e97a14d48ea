// RUN: telar-opt %s --telar-lower-collectives --cse | FileCheck %s

// One tensor gathered twice, with an op between that may write into a
// buffer bufferization considers free: each collective's read of %x is its
// own to_buffer (CSE keeps both), so bufferization sees %x read at the
// second gather and does not hand %x's buffer to the transpose in between.
// Before, CSE merged the two reads into the first, the transpose was
// bufferized into %x's buffer, and the second gather sent the transpose's
// values (ViT planned at batch 1 on 2 devices: wrong logits;
// test/tools/telarc/telarc-gather-twice.test runs such a program).
// CHECK-LABEL: func.func @gather_twice
// CHECK: %[[X:.+]] = linalg.copy
// CHECK: bufferization.to_buffer %[[X]] read_only {collective_read = distinct{{\[[0-9]+\]}}<>}
// CHECK: call @telarrt_all_gather
// CHECK: linalg.transpose
// CHECK: call @telarrt_all_gather
// CHECK: bufferization.to_buffer %[[X]] read_only {collective_read = distinct{{\[[0-9]+\]}}<>}
// CHECK: call @telarrt_all_gather
shard.grid @mesh(shape = 2)
func.func @gather_twice(%x0: tensor<1x4x2xf32>, %y: tensor<4x1x2xf32>) -> (tensor<1x4x4xf32>, tensor<1x4x4xf32>, tensor<1x4x4xf32>) {
  %e = tensor.empty() : tensor<1x4x2xf32>
  %x = linalg.copy ins(%x0 : tensor<1x4x2xf32>) outs(%e : tensor<1x4x2xf32>) -> tensor<1x4x2xf32>
  %a = shard.all_gather %x on @mesh grid_axes = [0] gather_axis = 2 : tensor<1x4x2xf32> -> tensor<1x4x4xf32>
  %e2 = tensor.empty() : tensor<1x4x2xf32>
  %t = linalg.transpose ins(%y : tensor<4x1x2xf32>) outs(%e2 : tensor<1x4x2xf32>) permutation = [1, 0, 2]
  %b = shard.all_gather %t on @mesh grid_axes = [0] gather_axis = 2 : tensor<1x4x2xf32> -> tensor<1x4x4xf32>
  %c = shard.all_gather %x on @mesh grid_axes = [0] gather_axis = 2 : tensor<1x4x2xf32> -> tensor<1x4x4xf32>
  return %a, %b, %c : tensor<1x4x4xf32>, tensor<1x4x4xf32>, tensor<1x4x4xf32>
}
