// RUN: telar-opt %s -split-input-file --telar-set-cpu-target=cpu=x86-64-v3 | FileCheck %s --check-prefix=V3
// RUN: telar-opt %s -split-input-file --telar-set-cpu-target | FileCheck %s --check-prefix=NATIVE
// RUN: not telar-opt %s -split-input-file --telar-set-cpu-target=cpu=not-a-cpu 2>&1 | FileCheck %s --check-prefix=UNKNOWN

// A named CPU: its own features (none added), the host's triple.
// V3: module attributes {telar.opset = 17 : i64, telar.target = #telar.target<"cpu", triple = "{{[^"]+}}", chip = "x86-64-v3", features = "">}
// The host: its CPU name and the features LLVM detects, sorted.
// NATIVE: module attributes {telar.opset = 17 : i64, telar.target = #telar.target<"cpu", triple = "{{[^"]+}}", chip = "{{[^"]+}}", features = "{{[+-][^"]*}}">}
// UNKNOWN: error: unknown CPU 'not-a-cpu' (use 'native', or an LLVM CPU name
module attributes {telar.opset = 17 : i64} {
  func.func @main(%x: tensor<2xf32>) -> tensor<2xf32> {
    return %x : tensor<2xf32>
  }
}

// -----

// A module translated for another target before is retargeted: the last
// telar-set-cpu-target wins.
// V3: module attributes {telar.target = #telar.target<"cpu", triple = "{{[^"]+}}", chip = "x86-64-v3", features = "">}
module attributes {telar.target = #telar.target<"cpu", triple = "x", chip = "znver4", features = "+avx2">} {}
