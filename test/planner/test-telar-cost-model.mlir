// RUN: telar-opt %s -split-input-file -test-telar-cost-model=profile=%S/Inputs/round-profile.json 2>&1 >/dev/null | FileCheck %s

// The profile (Inputs/round-profile.json): 1e9 FLOP/s (f32), 1e9 B/s of
// memory bandwidth, 1e-6 s per op; nodes of 2 devices (1e9 B/s, 1e-6 s
// latency), a network above them (1e8 B/s, 1e-5 s; its all_reduce fit:
// alpha 2e-5 s, beta 5e7 B/s). Compute = 1e-6 + max(flops, bytes) * 1e-9.
// On data=2 x model=2 (row-major, model minor): model has stride 1, a group
// spans 2 ranks (within a node); data has stride 2, a group spans 4 ranks
// (the network).

// Megatron MLP on data x model: x [8x16] split by data, w1 column-split and
// w2 row-split by model. Local: x [4x16], w1 [16x16], h, g [4x16], w2
// [16x16], y [4x16] partial over model.
// w1, w2: constants, computed whole and sliced (a local slice, 0 s).
// CHECK: remark: compute 0 s, 0 flops, 0 bytes; local_slice over [model]: [16x32] -> [16x16], 0 bytes, 0 s
// matmul 1: 2 * 4*16*16 = 2048 flops; (64 + 256 + 64) * 4 = 1536 bytes:
// 1e-6 + 2048e-9 = 3.048e-6 s.
// CHECK: remark: compute 3.048e-06 s, 2048 flops, 1536 bytes
// gelu: 64 elements, 2 * 64 * 4 = 512 bytes: 1e-6 + 512e-9.
// CHECK: remark: compute 1.512e-06 s, 64 flops, 512 bytes
// CHECK: remark: compute 0 s, 0 flops, 0 bytes; local_slice over [model]: [32x16] -> [16x16], 0 bytes, 0 s
// CHECK: remark: compute 3.048e-06 s, 2048 flops, 1536 bytes
// The output is resolved at the return: an all-reduce over model of the
// 256-byte block, 2 (G-1)/G * 256 = 256 bytes, within a node:
// 1e-6 + 256e-9 = 1.256e-6 s.
// CHECK: remark: compute 0 s, 0 flops, 0 bytes; all_reduce over [model]: [4x16] -> [4x16], 256 bytes, 1.256e-06 s
// Compute 3.048 + 1.512 + 3.048 = 7.608 us. Weights: the two 1024-byte
// shards. Activations (256-byte blocks): x and h alive at matmul 1, h and g
// at gelu, g and y at matmul 2, y and its all-reduced copy at the return:
// 512.
// CHECK: remark: latency 8.864e-06 s (compute 7.608e-06 s, communication 1.256e-06 s); memory 2560 bytes per device (weights 2048, peak activations 512); [model] 256 bytes
module attributes {test.plan = "{\"mesh\": {\"data\": 2, \"model\": 2}, \"shardings\": {\"x\": [[\"data\"], []], \"w1\": [[], [\"model\"]], \"w2\": [[\"model\"], []]}}"} {
  func.func @main(%x: tensor<8x16xf32> {telar.name = "x"}) -> tensor<8x16xf32> {
    %w1 = telar.constant {telar.result_names = ["w1"]} dense<1.0> : tensor<16x32xf32>
    %h = telar.matmul %x, %w1 : (tensor<8x16xf32>, tensor<16x32xf32>) -> tensor<8x32xf32>
    %g = telar.gelu %h {approximate = "none"} : (tensor<8x32xf32>) -> tensor<8x32xf32>
    %w2 = telar.constant {telar.result_names = ["w2"]} dense<1.0> : tensor<32x16xf32>
    %y = telar.matmul %g, %w2 : (tensor<8x32xf32>, tensor<32x16xf32>) -> tensor<8x16xf32>
    return %y : tensor<8x16xf32>
  }
}

// -----

// Data parallel matmul: x [8x16] split by data, the weight [16x4]
// replicated, the output stays split: no communication. Local x [4x16],
// y [4x4]: 2 * 4*16*4 = 512 flops; (64 + 64 + 16) * 4 = 576 bytes.
// CHECK: remark: compute 0 s, 0 flops, 0 bytes{{$}}
// CHECK: remark: compute 1.576e-06 s, 512 flops, 576 bytes{{$}}
// CHECK: remark: compute 0 s, 0 flops, 0 bytes{{$}}
// Weights 256 bytes (replicated); x (256) and y (64) alive at the matmul.
// CHECK: remark: latency 1.576e-06 s (compute 1.576e-06 s, communication 0 s); memory 576 bytes per device (weights 256, peak activations 320){{$}}
module attributes {test.plan = "{\"mesh\": {\"data\": 2}, \"shardings\": {\"x\": [[\"data\"], []]}}"} {
  func.func @main(%x: tensor<8x16xf32> {telar.name = "x"}) -> tensor<8x4xf32> {
    %w = telar.constant dense<1.0> : tensor<16x4xf32>
    %y = telar.matmul %x, %w : (tensor<8x16xf32>, tensor<16x4xf32>) -> tensor<8x4xf32>
    return %y : tensor<8x4xf32>
  }
}

// -----

// A contraction split over data, which crosses nodes: x [8x16] split by
// data on its columns, w [16x4] on its rows; y [8x4] is partial over data,
// all-reduced at the return: 2 (G-1)/G * 128 = 128 bytes, on the network
// with its all_reduce fit: 2e-5 + 128 / 5e7 = 2.256e-5 s.
// Local matmul: x [8x8], w [8x4], y [8x4]: 2 * 8*8*4 = 512 flops;
// (256 + 128 + 128) = 512 bytes. Memory: w's 128-byte shard; x (256) and
// y (128) alive at the matmul: 384.
// CHECK: remark: compute 0 s, 0 flops, 0 bytes; local_slice over [data]: [16x4] -> [8x4], 0 bytes, 0 s
// CHECK: remark: compute 1.512e-06 s, 512 flops, 512 bytes
// CHECK: remark: compute 0 s, 0 flops, 0 bytes; all_reduce over [data]: [8x4] -> [8x4], 128 bytes, 2.256e-05 s
// CHECK: remark: latency 2.4072e-05 s (compute 1.512e-06 s, communication 2.256e-05 s); memory 512 bytes per device (weights 128, peak activations 384); [data] 128 bytes
module attributes {test.plan = "{\"mesh\": {\"data\": 2, \"model\": 2}, \"shardings\": {\"x\": [[], [\"data\"]], \"w\": [[\"data\"], []]}}"} {
  func.func @main(%x: tensor<8x16xf32> {telar.name = "x"}) -> tensor<8x4xf32> {
    %w = telar.constant {telar.result_names = ["w"]} dense<1.0> : tensor<16x4xf32>
    %y = telar.matmul %x, %w : (tensor<8x16xf32>, tensor<16x4xf32>) -> tensor<8x4xf32>
    return %y : tensor<8x4xf32>
  }
}

// -----

// A reshape [2x6] -> [12] of x split on its minor dim: a block of the
// result would straddle rows, so x is gathered first: 1 * 24 bytes (the
// local [2x3] f32 block, G - 1 = 1), within the node: 1e-6 + 24e-9. The
// completed plan gathers x at its use (telar-partition's own gather of the
// same, when the use is not annotated, is in
// test-telar-cost-model-drop-uses.mlir).
// CHECK: remark: compute 0 s, 0 flops, 0 bytes; all_gather over [model]: [2x3] -> [2x6], 24 bytes, 1.024e-06 s
// exp of [12] replicated: 12 flops, 96 bytes.
// CHECK: remark: compute 1.096e-06 s, 12 flops, 96 bytes
// CHECK: remark: compute 0 s, 0 flops, 0 bytes{{$}}
// Memory: the gathered copy is the reshape's result (48 bytes) next to x's
// 24-byte block; then it and the exp's 48 bytes: peak 96.
// CHECK: remark: latency 2.12e-06 s (compute 1.096e-06 s, communication 1.024e-06 s); memory 96 bytes per device (weights 0, peak activations 96); [model] 24 bytes
module attributes {test.plan = "{\"mesh\": {\"model\": 2}, \"shardings\": {\"x\": [[], [\"model\"]]}}"} {
  func.func @main(%x: tensor<2x6xf32> {telar.name = "x"}) -> tensor<12xf32> {
    %y = telar.reshape %x {shape = array<i64: 12>} : (tensor<2x6xf32>) -> tensor<12xf32>
    %z = telar.exp %y : (tensor<12xf32>) -> tensor<12xf32>
    return %z : tensor<12xf32>
  }
}

// -----

// Memory by liveness, on data=2 (every value split by data: 64-byte local
// blocks of [4x8] f32). Program points: 0 a = exp x, 1 b = reshape a (a
// view: nothing new, its uses keep a alive), 2 c = exp b, 3 d = reshape c,
// 4 e = add d, a, 5 f = exp e, 6 return f.
// Alive: x [0, 0], a [0, 4] (through b and the add), c [2, 4] (through d),
// e [4, 5], f [5, 6]. At 0: x + a = 128; 2, 3: a + c = 128; 4: a + c + e =
// 192 (the peak); 5: e + f = 128.
// CHECK: remark: compute 1.128e-06 s, 16 flops, 128 bytes
// CHECK:  remark: compute 0 s, 0 flops, 0 bytes
// CHECK:  remark: compute 1.128e-06 s, 16 flops, 128 bytes
// CHECK:  remark: compute 0 s, 0 flops, 0 bytes
// CHECK:  remark: compute 1.192e-06 s, 16 flops, 192 bytes
// CHECK:  remark: compute 1.128e-06 s, 16 flops, 128 bytes
// CHECK:  remark: compute 0 s, 0 flops, 0 bytes
// CHECK:  remark: latency 4.576e-06 s (compute 4.576e-06 s, communication 0 s); memory 192 bytes per device (weights 0, peak activations 192){{$}}
module attributes {test.plan = "{\"mesh\": {\"data\": 2}, \"shardings\": {\"x\": [[\"data\"], []]}}"} {
  func.func @main(%x: tensor<4x8xf32> {telar.name = "x"}) -> tensor<4x8xf32> {
    %a = telar.exp %x : (tensor<4x8xf32>) -> tensor<4x8xf32>
    %b = telar.reshape %a {shape = array<i64: 32>} : (tensor<4x8xf32>) -> tensor<32xf32>
    %c = telar.exp %b : (tensor<32xf32>) -> tensor<32xf32>
    %d = telar.reshape %c {shape = array<i64: 4, 8>} : (tensor<32xf32>) -> tensor<4x8xf32>
    %e = telar.add %d, %a : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
    %f = telar.exp %e : (tensor<4x8xf32>) -> tensor<4x8xf32>
    return %f : tensor<4x8xf32>
  }
}
