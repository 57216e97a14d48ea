// RUN: telar-opt %s -split-input-file -test-telar-cost-model="profile=%S/Inputs/round-profile.json drop-uses=all" 2>&1 >/dev/null | FileCheck %s
// RUN: telar-opt %s -split-input-file -test-telar-cost-model="profile=%S/Inputs/round-profile.json drop-uses=all annotate" -telar-partition -test-telar-collectives 2>&1 >/dev/null | FileCheck %s --check-prefix=EMIT

// Plans without use shardings (drop-uses): every op takes its operands as
// they are produced, and the steps are telar-partition's own, from
// getLocalAssignment. Profile: Inputs/round-profile.json (see
// test-telar-cost-model.mlir). The second run writes the same plan into the
// module (annotate) and partitions it: the collectives priced are those
// emitted.

// The reshape [2x6] -> [12] of x split on its minor dim: the partitioner
// keeps the minor factor whole under an unsplit major one (a result block
// would straddle rows) and gathers x itself: 1 * 24 bytes (the local [2x3]
// f32 block), within a node: 1e-6 + 24e-9 s. The gathered copy is the
// reshape's result (a view of it): 48 bytes next to x's 24, then with the
// exp's 48: peak 96.
// CHECK: remark: compute 0 s, 0 flops, 0 bytes; all_gather over [model]: [2x3] -> [2x6], 24 bytes, 1.024e-06 s
// CHECK: remark: compute 1.096e-06 s, 12 flops, 96 bytes{{$}}
// CHECK: remark: compute 0 s, 0 flops, 0 bytes{{$}}
// EMIT: remark: compute 0 s, 0 flops, 0 bytes; all_gather over [model]: [2x3] -> [2x6], 24 bytes, 1.024e-06 s
// EMIT: remark: all_gather over [model]: [2x3] -> [2x6] f32, 24 bytes per rank
// EMIT: remark: 1 collectives, 24 bytes per rank
// CHECK: remark: latency 2.12e-06 s (compute 1.096e-06 s, communication 1.024e-06 s); memory 96 bytes per device (weights 0, peak activations 96); [model] 24 bytes
module attributes {test.plan = "{\"mesh\": {\"model\": 2}, \"shardings\": {\"x\": [[], [\"model\"]]}}"} {
  func.func @main(%x: tensor<2x6xf32> {telar.name = "x"}) -> tensor<12xf32> {
    %y = telar.reshape %x {shape = array<i64: 12>} : (tensor<2x6xf32>) -> tensor<12xf32>
    %z = telar.exp %y : (tensor<12xf32>) -> tensor<12xf32>
    return %z : tensor<12xf32>
  }
}

// -----

// A softmax over a split axis (a need-replication factor): x [4x8] split by
// model on its columns, the result replicated; the partitioner gathers the
// local [4x4] f32 block (64 bytes, G - 1 = 1): 1e-6 + 64e-9 s. Softmax on
// [4x8]: 32 flops (one per element read), 256 bytes: 1e-6 + 256e-9 s.
// Memory: x (64), the gathered copy (128) and the result (128): 320.
// CHECK: remark: compute 1.256e-06 s, 32 flops, 256 bytes; all_gather over [model]: [4x4] -> [4x8], 64 bytes, 1.064e-06 s
// CHECK: remark: compute 0 s, 0 flops, 0 bytes{{$}}
// EMIT: remark: compute 1.256e-06 s, 32 flops, 256 bytes; all_gather over [model]: [4x4] -> [4x8], 64 bytes, 1.064e-06 s
// EMIT: remark: all_gather over [model]: [4x4] -> [4x8] f32, 64 bytes per rank
// EMIT: remark: 1 collectives, 64 bytes per rank
// CHECK: remark: latency 2.32e-06 s (compute 1.256e-06 s, communication 1.064e-06 s); memory 320 bytes per device (weights 0, peak activations 320); [model] 64 bytes
module attributes {test.plan = "{\"mesh\": {\"model\": 2}, \"shardings\": {\"x\": [[], [\"model\"]]}}"} {
  func.func @main(%x: tensor<4x8xf32> {telar.name = "x"}) -> tensor<4x8xf32> {
    %y = telar.softmax %x {axis = 1 : i64} : (tensor<4x8xf32>) -> tensor<4x8xf32>
    return %y : tensor<4x8xf32>
  }
}
