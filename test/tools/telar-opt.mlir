// telar-opt registers the telar dialect and the upstream dialects the
// pipeline uses, and parses what it prints.
// RUN: telar-opt %s | telar-opt | FileCheck %s
// RUN: telar-opt --help | FileCheck %s --check-prefix=HELP

// CHECK-LABEL: func.func @mixed
// CHECK: telar.add
// CHECK: arith.addf
// CHECK: linalg.fill
// CHECK: shard.grid
func.func @mixed(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xf32> {
  %0 = telar.add %a, %b : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %1 = arith.addf %0, %b : tensor<4xf32>
  %c = arith.constant 0.0 : f32
  %2 = linalg.fill ins(%c : f32) outs(%1 : tensor<4xf32>) -> tensor<4xf32>
  return %2 : tensor<4xf32>
}
shard.grid @grid(shape = 2x2)

// HELP: --convert-linalg-to-loops
// HELP: --one-shot-bufferize
// HELP: --test-telar-sharding-rules
