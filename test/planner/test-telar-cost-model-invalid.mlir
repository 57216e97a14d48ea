// RUN: telar-opt %s -split-input-file -verify-diagnostics -test-telar-cost-model=profile=%S/Inputs/round-profile.json
// RUN: not telar-opt %s -split-input-file -test-telar-cost-model=profile=%t.missing.json 2>&1 | FileCheck %s --check-prefix=PROFILE
// RUN: not telar-opt %s -split-input-file -test-telar-cost-model="profile=%S/Inputs/round-profile.json drop-uses=all" 2>&1 | FileCheck %s --check-prefix=DROP

// PROFILE: error: profile: {{.*}}missing.json

// Plans telar-partition rejects are rejected with its message, at the op
// (the cases below). First, one it no longer gets: an integer mean stays
// whole (its means do not scale exactly), and its rule says so
// (need_replication), so completion, the cost model and the partitioner
// all gather its input instead of completion planning a partial sum that
// the partitioner would not produce.
module attributes {test.plan = "{\"mesh\": {\"model\": 2}, \"shardings\": {\"x\": [[], [\"model\"]]}}"} {
  // expected-remark @below {{latency}}
  func.func @main(%x: tensor<4x6xi64> {telar.name = "x"}) -> tensor<4x1xi64> {
    // expected-remark @below {{compute 1.224e-06 s, 24 flops, 224 bytes; all_gather over [model]: [4x3] -> [4x6], 96 bytes}}
    %y = telar.reduce_mean %x {axes = array<i64: 1>, keepdims = true} : (tensor<4x6xi64>) -> tensor<4x1xi64>
    // expected-remark @below {{compute 0 s}}
    return %y : tensor<4x1xi64>
  }
}

// -----

// A partial output: the completed plan resolves it at the return (an
// all-reduce); without its use shardings (drop-uses) it is an error.
// DROP: error: result 0 is partial ({"dims": {{\[\[}}]], "partial": {"model": "sum"}}): an output must be resolved
module attributes {test.plan = "{\"mesh\": {\"model\": 2}, \"shardings\": {\"x\": [[], [\"model\"]]}}"} {
  // expected-remark @below {{latency}}
  func.func @main(%x: tensor<4x6xf32> {telar.name = "x"}) -> tensor<4xf32> {
    // expected-remark @below {{compute 1.064e-06 s, 12 flops, 64 bytes}}
    %y = telar.reduce_sum %x {axes = array<i64: 1>, keepdims = false} : (tensor<4x6xf32>) -> tensor<4xf32>
    // expected-remark @below {{all_reduce over [model]: [4] -> [4], 16 bytes}}
    return %y : tensor<4xf32>
  }
}

// -----

// Errors of the plan itself are completion's (telar-apply-plan's).
module attributes {test.plan = "{\"mesh\": {\"model\": 2}, \"shardings\": {\"w\": [[\"model\"]]}}"} {
  // expected-error @below {{the plan names an unknown value 'w'; the closest names are 'x'}}
  // expected-note @below {{values folded away at import}}
  func.func @main(%x: tensor<4xf32> {telar.name = "x"}) -> tensor<4xf32> {
    return %x : tensor<4xf32>
  }
}
