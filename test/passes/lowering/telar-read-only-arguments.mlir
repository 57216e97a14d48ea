// RUN: telar-opt %s --telar-read-only-arguments | FileCheck %s
// RUN: telar-opt %s --telar-read-only-arguments --one-shot-bufferize="bufferize-function-boundaries=1" | FileCheck %s --check-prefix=BUF

// CHECK-LABEL: func.func @scatter_into_weight(%{{.*}}: tensor<4xf32> {bufferization.writable = false, telar.weight = "zeros"}, %{{.*}}: index, %{{.*}}: f32)
// A write into the weight's buffer becomes a write into a copy.
// BUF-LABEL: func.func @scatter_into_weight
// BUF: %[[COPY:.*]] = memref.alloc
// BUF: memref.copy %{{.*}}, %[[COPY]]
// BUF: memref.store %{{.*}}, %[[COPY]]
func.func @scatter_into_weight(%w: tensor<4xf32> {telar.weight = "zeros"}, %i: index, %v: f32) -> tensor<4xf32> {
  %0 = tensor.insert %v into %w[%i] : tensor<4xf32>
  return %0 : tensor<4xf32>
}
