// RUN: telar-opt %s -test-telar-collectives -verify-diagnostics

// A collective must say what it sends (telar.bytes, set by telar-partition).
shard.grid @mesh(shape = 2) {telar.axis_names = ["data"]}
// expected-remark @below {{0 collectives, 0 bytes per rank}}
func.func @no_bytes(%arg0: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @below {{collective without a named grid or telar.bytes}}
  %0 = shard.all_reduce %arg0 on @mesh grid_axes = [0] : tensor<4xf32> -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
