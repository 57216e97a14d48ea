// Numeric checks of the elementwise lowering through MLIR's JIT runner.
// RUN: telar-opt %s %lower_standalone | %mlir_runner -e entry | FileCheck %s

func.func @exp(%a: tensor<2x3xf32>) {
  %r = telar.exp %a : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %u = tensor.cast %r : tensor<2x3xf32> to tensor<*xf32>
  call @printMemrefF32(%u) : (tensor<*xf32>) -> ()
  return
}
// CHECK: [1,   2.71828,   7.38906]
// CHECK: [0.367879,   1.64872,   20.0855]

func.func @entry() {
  %a = arith.constant dense<[[0.0, 1.0, 2.0], [-1.0, 0.5, 3.0]]> : tensor<2x3xf32>
  call @exp(%a) : (tensor<2x3xf32>) -> ()
  return
}
func.func private @printMemrefF32(tensor<*xf32>)
