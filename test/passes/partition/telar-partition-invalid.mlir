// RUN: telar-opt %s -split-input-file -telar-partition -verify-diagnostics

// Operands that split one loop differently: the bias is replicated while
// the activation's columns are split.
module {
  shard.grid @mesh(shape = 2) {telar.axis_names = ["model"]}
  func.func @inconsistent(%arg0: tensor<8x16xf32>, %b: tensor<8x16xf32>) -> tensor<8x16xf32> {
    %s = shard.sharding @mesh split_axes = [[], [0]] : !shard.sharding
    %x = shard.shard %arg0 to %s : tensor<8x16xf32>
    // expected-error @below {{inconsistent operand shardings: operand 0 is [[], ["model"]] and operand 1 is [[], []], which split loop j of #telar.sharding_rule<([i, j], [i, j]) -> ([i, j]) {i=8, j=16} partial_alike={sum}> differently (["model"] and [])}}
    %y = telar.add %x, %b : (tensor<8x16xf32>, tensor<8x16xf32>) -> tensor<8x16xf32>
    return %y : tensor<8x16xf32>
  }
}

// -----

// One mesh axis for two loops.
module {
  shard.grid @mesh(shape = 2) {telar.axis_names = ["data"]}
  func.func @axis_twice(%arg0: tensor<8x16xf32>, %arg1: tensor<16x8xf32>) -> tensor<8x8xf32> {
    %s0 = shard.sharding @mesh split_axes = [[0]] : !shard.sharding
    %x = shard.shard %arg0 to %s0 : tensor<8x16xf32>
    %s1 = shard.sharding @mesh split_axes = [[], [0]] : !shard.sharding
    %w = shard.shard %arg1 to %s1 : tensor<16x8xf32>
    // expected-error @below {{inconsistent operand shardings: mesh axis 'data' splits both loop i and loop k}}
    %y = telar.matmul %x, %w : (tensor<8x16xf32>, tensor<16x8xf32>) -> tensor<8x8xf32>
    return %y : tensor<8x8xf32>
  }
}

// -----

// A partial sum fed to an op that is not linear.
module {
  shard.grid @mesh(shape = 2) {telar.axis_names = ["model"]}
  func.func @partial_relu(%arg0: tensor<4x8xf32>, %arg1: tensor<8x4xf32>) -> tensor<4x4xf32> {
    %sk = shard.sharding @mesh split_axes = [[], [0]] : !shard.sharding
    %sr = shard.sharding @mesh split_axes = [[0], []] : !shard.sharding
    %x = shard.shard %arg0 to %sk : tensor<4x8xf32>
    %w = shard.shard %arg1 to %sr : tensor<8x4xf32>
    %m = telar.matmul %x, %w : (tensor<4x8xf32>, tensor<8x4xf32>) -> tensor<4x4xf32>
    %sp = shard.sharding @mesh split_axes = [[], []] {telar.partial = {model = "sum"}} : !shard.sharding
    %ms = shard.shard %m to %sp : tensor<4x4xf32>
    // expected-error @below {{operand 0 is partial ({"dims": [[], []], "partial": {"model": "sum"}}), which 'telar.relu' cannot take}}
    %r = telar.relu %ms : (tensor<4x4xf32>) -> tensor<4x4xf32>
    return %r : tensor<4x4xf32>
  }
}

// -----

// A partial sum plus a replicated bias would add the bias once per rank.
module {
  shard.grid @mesh(shape = 2) {telar.axis_names = ["model"]}
  func.func @partial_bias(%arg0: tensor<4x8xf32>, %arg1: tensor<8x4xf32>, %b: tensor<4xf32>) -> tensor<4x4xf32> {
    %sk = shard.sharding @mesh split_axes = [[], [0]] : !shard.sharding
    %sr = shard.sharding @mesh split_axes = [[0], []] : !shard.sharding
    %x = shard.shard %arg0 to %sk : tensor<4x8xf32>
    %w = shard.shard %arg1 to %sr : tensor<8x4xf32>
    %m = telar.matmul %x, %w : (tensor<4x8xf32>, tensor<8x4xf32>) -> tensor<4x4xf32>
    %sp = shard.sharding @mesh split_axes = [[], []] {telar.partial = {model = "sum"}} : !shard.sharding
    %ms = shard.shard %m to %sp : tensor<4x4xf32>
    // expected-error @below {{which 'telar.add' cannot take}}
    %r = telar.add %ms, %b : (tensor<4x4xf32>, tensor<4xf32>) -> tensor<4x4xf32>
    return %r : tensor<4x4xf32>
  }
}

// -----

// A split contraction whose result is annotated resolved: only an
// all-reduce gets there, and the annotation must say partial.
module {
  shard.grid @mesh(shape = 2) {telar.axis_names = ["model"]}
  func.func @unresolved(%arg0: tensor<4x8xf32>, %arg1: tensor<8x4xf32>) -> tensor<4x4xf32> {
    %sk = shard.sharding @mesh split_axes = [[], [0]] : !shard.sharding
    %sr = shard.sharding @mesh split_axes = [[0], []] : !shard.sharding
    %x = shard.shard %arg0 to %sk : tensor<4x8xf32>
    %w = shard.shard %arg1 to %sr : tensor<8x4xf32>
    // expected-error @below {{result 0 is annotated [[], []], but its operands give {"dims": [[], []], "partial": {"model": "sum"}}: that takes a all_reduce, not only local slices}}
    %m = telar.matmul %x, %w : (tensor<4x8xf32>, tensor<8x4xf32>) -> tensor<4x4xf32>
    return %m : tensor<4x4xf32>
  }
}

// -----

// An output must not be partial.
module {
  shard.grid @mesh(shape = 2) {telar.axis_names = ["model"]}
  func.func @partial_output(%arg0: tensor<4x8xf32>, %arg1: tensor<8x4xf32>) -> tensor<4x4xf32> {
    %sk = shard.sharding @mesh split_axes = [[], [0]] : !shard.sharding
    %sr = shard.sharding @mesh split_axes = [[0], []] : !shard.sharding
    %x = shard.shard %arg0 to %sk : tensor<4x8xf32>
    %w = shard.shard %arg1 to %sr : tensor<8x4xf32>
    %m = telar.matmul %x, %w : (tensor<4x8xf32>, tensor<8x4xf32>) -> tensor<4x4xf32>
    %sp = shard.sharding @mesh split_axes = [[], []] {telar.partial = {model = "sum"}} : !shard.sharding
    %ms = shard.shard %m to %sp : tensor<4x4xf32>
    // expected-error @below {{result 0 is partial ({"dims": [[], []], "partial": {"model": "sum"}}): an output must be resolved}}
    return %ms : tensor<4x4xf32>
  }
}

// -----

// A value cannot be made partial by an annotation.
module {
  shard.grid @mesh(shape = 2) {telar.axis_names = ["model"]}
  func.func @make_partial(%arg0: tensor<4x4xf32>) -> tensor<4x4xf32> {
    %sp = shard.sharding @mesh split_axes = [[], []] {telar.partial = {model = "sum"}} : !shard.sharding
    // expected-error @below {{cannot reshard 'tensor<4x4xf32>' from [[], []] to {"dims": [[], []], "partial": {"model": "sum"}}}}
    %x = shard.shard %arg0 to %sp annotate_for_users : tensor<4x4xf32>
    %y = telar.neg %x : (tensor<4x4xf32>) -> tensor<4x4xf32>
    return %y : tensor<4x4xf32>
  }
}

// -----

// A split the dimension does not divide.
module {
  shard.grid @mesh(shape = 4) {telar.axis_names = ["data"]}
  func.func @indivisible(%arg0: tensor<6x4xf32>) -> tensor<6x4xf32> {
    %s = shard.sharding @mesh split_axes = [[0]] : !shard.sharding
    // expected-error @below {{invalid sharding [["data"], []] of 'tensor<6x4xf32>': dimension 0 (size 6) is not divisible by 4}}
    %x = shard.shard %arg0 to %s : tensor<6x4xf32>
    return %x : tensor<6x4xf32>
  }
}

// -----

// Inputs are never partial.
module {
  shard.grid @mesh(shape = 2) {telar.axis_names = ["model"]}
  // expected-error @below {{argument 0 cannot be partial}}
  func.func @partial_input(%arg0: tensor<4x4xf32>) -> tensor<4x4xf32> {
    %sp = shard.sharding @mesh split_axes = [[], []] {telar.partial = {model = "sum"}} : !shard.sharding
    %x = shard.shard %arg0 to %sp : tensor<4x4xf32>
    %sr = shard.sharding @mesh split_axes = [[], []] : !shard.sharding
    %y = shard.shard %x to %sr annotate_for_users : tensor<4x4xf32>
    return %y : tensor<4x4xf32>
  }
}

// -----

// The grid's axes need names.
// expected-error @below {{needs telar.axis_names}}
shard.grid @mesh(shape = 2)
func.func @unnamed(%arg0: tensor<4x4xf32>) -> tensor<4x4xf32> {
  return %arg0 : tensor<4x4xf32>
}

// -----

// Halos are no sharding telar-partition handles.
module {
  shard.grid @mesh(shape = 2) {telar.axis_names = ["rows"]}
  func.func @halo(%arg0: tensor<8x4xf32>) -> tensor<8x4xf32> {
    // expected-error @below {{halo sizes and sharded dimension offsets are not supported}}
    %s = shard.sharding @mesh split_axes = [[0]] halo_sizes = [1, 1] : !shard.sharding
    %x = shard.shard %arg0 to %s : tensor<8x4xf32>
    return %x : tensor<8x4xf32>
  }
}
