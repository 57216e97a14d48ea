// RUN: split-file %s %t
// RUN: telar-opt %t/mlp.mlir --telar-apply-plan=plan=%t/dp.json | FileCheck %s --check-prefix=DP
// RUN: telar-opt %t/mlp.mlir --telar-apply-plan=plan=%t/tp.json | FileCheck %s --check-prefix=TP
// RUN: telar-opt %t/mlp.mlir --telar-apply-plan=plan=%t/dxt.json | FileCheck %s --check-prefix=DXT
// RUN: telar-opt %t/mlp.mlir --telar-apply-plan="plan=%t/nomesh.json mesh=data=2,model=2" | FileCheck %s --check-prefix=DXT
// RUN: telar-opt %t/mlp.mlir --telar-apply-plan=plan=%t/result.json | FileCheck %s --check-prefix=RESULT
// RUN: telar-opt %t/mlp.mlir --telar-apply-plan=plan=%t/partial.json | FileCheck %s --check-prefix=PARTIAL
// RUN: telar-opt %t/mlp.mlir --telar-apply-plan=mesh=data=2 | FileCheck %s --check-prefix=MESH
// RUN: telar-opt %t/mlp.mlir --telar-apply-plan=plan=%t/one.json | FileCheck %s --check-prefix=ONE
// RUN: telar-opt %t/expert.mlir --telar-apply-plan=plan=%t/expert.json | FileCheck %s --check-prefix=EXPERT
// RUN: telar-opt %t/seq.mlir --telar-apply-plan=plan=%t/seq.json | FileCheck %s --check-prefix=SEQ
// RUN: telar-opt %t/conv.mlir --telar-apply-plan=plan=%t/conv.json | FileCheck %s --check-prefix=CHANNEL
// RUN: telar-opt %t/uses.mlir --telar-apply-plan=plan=%t/uses.json | FileCheck %s --check-prefix=USES
// RUN: telar-opt %t/tie.mlir --telar-apply-plan=plan=%t/tie.json | FileCheck %s --check-prefix=TIE
// RUN: telar-opt %t/tie-swapped.mlir --telar-apply-plan=plan=%t/tie.json | FileCheck %s --check-prefix=TIE-SWAPPED
// RUN: telar-opt %t/factor.mlir --telar-apply-plan=plan=%t/factor.json | FileCheck %s --check-prefix=FACTOR
// RUN: telar-opt %t/factor-tie.mlir --telar-apply-plan=plan=%t/factor-tie.json | FileCheck %s --check-prefix=FACTOR-TIE
// RUN: telar-opt %t/factor-blocks.mlir --telar-apply-plan=plan=%t/factor-blocks.json | FileCheck %s --check-prefix=FACTOR-BLOCKS
// RUN: telar-opt %t/whole.mlir --telar-apply-plan=plan=%t/whole.json | FileCheck %s --check-prefix=WHOLE
// Deterministic: the same plan gives the same IR.
// RUN: telar-opt %t/mlp.mlir --telar-apply-plan=plan=%t/dxt.json > %t/a.mlir
// RUN: telar-opt %t/mlp.mlir --telar-apply-plan=plan=%t/dxt.json > %t/b.mlir
// RUN: diff %t/a.mlir %t/b.mlir

// telar-apply-plan completes a plan (docs/Plan.md) and writes it as shard
// annotations: a shard.grid @mesh with the axis names, one shard.shard after
// each value that is not replicated, an annotate_for_users shard.shard where
// a use wants another sharding, telar.partial for pending reductions.

// Data parallel: only the batch of the input is named; the whole MLP follows,
// the weights stay replicated (no annotation).
// DP:      shard.grid @mesh(shape = 2) {telar.axis_names = ["data"]}
// DP:      %[[S0:.*]] = shard.sharding @mesh split_axes = {{\[}}[0], []] : !shard.sharding
// DP-NEXT: %[[X:.*]] = shard.shard %arg0 to %[[S0]] : tensor<8x16xf32>
// DP-NOT:  shard.shard %{{[0-9]+}} to
// DP:      %[[H:.*]] = telar.matmul %[[X]], %{{[0-9]+}} {telar.result_names = ["h"]}
// DP-NEXT: %[[S1:.*]] = shard.sharding @mesh split_axes = {{\[}}[0], []] : !shard.sharding
// DP-NEXT: %[[H1:.*]] = shard.shard %[[H]] to %[[S1]] : tensor<8x32xf32>
// DP-NEXT: telar.add %[[H1]], %{{[0-9]+}} {telar.result_names = ["hb"]}
// DP:      %[[Y:.*]] = telar.add %{{.*}} {telar.result_names = ["y"]}
// DP-NEXT: shard.sharding @mesh split_axes = {{\[}}[0], []] : !shard.sharding
// DP-NEXT: %[[Y1:.*]] = shard.shard %[[Y]]
// DP-NEXT: return %[[Y1]]
// DP-NOT:  annotate_for_users

// Megatron: the first weight split by columns, the second by rows; the
// second matmul's result is partial and resolved where the bias add uses it;
// the first bias follows its columns.
// TP:      shard.grid @mesh(shape = 2) {telar.axis_names = ["model"]}
// TP:      %[[W1:.*]] = telar.constant {telar.result_names = ["w1"]}
// TP-NEXT: shard.sharding @mesh split_axes = {{\[}}[], [0]]
// TP-NEXT: %[[W1S:.*]] = shard.shard %[[W1]]
// TP:      %[[B1:.*]] = telar.constant {telar.result_names = ["b1"]}
// TP-NEXT: shard.sharding @mesh split_axes = {{\[}}[0]] :
// TP-NEXT: %[[B1S:.*]] = shard.shard %[[B1]]
// TP:      %[[W2:.*]] = telar.constant {telar.result_names = ["w2"]}
// TP-NEXT: shard.sharding @mesh split_axes = {{\[}}[0], []]
// TP-NEXT: %[[W2S:.*]] = shard.shard %[[W2]]
// TP:      %[[B2:.*]] = telar.constant {telar.result_names = ["b2"]}
// TP-NEXT: telar.matmul %arg0, %[[W1S]] {telar.result_names = ["h"]}
// TP-NEXT: shard.sharding @mesh split_axes = {{\[}}[], [0]]
// TP:      %[[O:.*]] = telar.matmul %{{.*}}, %[[W2S]] {telar.result_names = ["o"]}
// TP-NEXT: %[[SP:.*]] = shard.sharding @mesh split_axes = {{\[}}[], []] {telar.partial = {model = "sum"}} : !shard.sharding
// TP-NEXT: %[[OP:.*]] = shard.shard %[[O]] to %[[SP]] : tensor<8x16xf32>
// TP-NEXT: %[[SR:.*]] = shard.sharding @mesh split_axes = {{\[}}[], []] : !shard.sharding
// TP-NEXT: %[[OR:.*]] = shard.shard %[[OP]] to %[[SR]] annotate_for_users : tensor<8x16xf32>
// TP-NEXT: %[[Y:.*]] = telar.add %[[OR]], %[[B2]] {telar.result_names = ["y"]}
// TP-NEXT: return %[[Y]]

// Data x tensor on a 2x2 mesh: both at once.
// DXT:      shard.grid @mesh(shape = 2x2) {telar.axis_names = ["data", "model"]}
// DXT:      telar.matmul {{.*}} {telar.result_names = ["h"]}
// DXT-NEXT: shard.sharding @mesh split_axes = {{\[}}[0], [1]]
// DXT:      %[[O:.*]] = telar.matmul {{.*}} {telar.result_names = ["o"]}
// DXT-NEXT: shard.sharding @mesh split_axes = {{\[}}[0], []] {telar.partial = {model = "sum"}}
// DXT-NEXT: %[[OP:.*]] = shard.shard %[[O]]
// DXT-NEXT: shard.sharding @mesh split_axes = {{\[}}[0], []] :
// DXT-NEXT: %[[OR:.*]] = shard.shard %[[OP]] to %{{.*}} annotate_for_users
// DXT-NEXT: %[[Y:.*]] = telar.add %[[OR]]
// DXT-NEXT: shard.sharding @mesh split_axes = {{\[}}[0], []] :
// DXT-NEXT: %[[YS:.*]] = shard.shard %[[Y]]
// DXT-NEXT: return %[[YS]]

// A named result is never changed: h is named replicated-rows/split-columns
// while its weight is named split by rows; the op produces h as named and
// the weight is resharded where the matmul uses it.
// RESULT:      %[[W1:.*]] = telar.constant {telar.result_names = ["w1"]}
// RESULT-NEXT: shard.sharding @mesh split_axes = {{\[}}[0], []]
// RESULT-NEXT: %[[W1S:.*]] = shard.shard %[[W1]]
// RESULT:      shard.sharding @mesh split_axes = {{\[}}[], [0]] :
// RESULT-NEXT: %[[W1U:.*]] = shard.shard %[[W1S]] to %{{.*}} annotate_for_users
// RESULT-NEXT: %[[H:.*]] = telar.matmul %arg0, %[[W1U]] {telar.result_names = ["h"]}
// RESULT-NEXT: shard.sharding @mesh split_axes = {{\[}}[], [0]] :
// RESULT-NEXT: shard.shard %[[H]]

// A value named partial, produced by a split contraction.
// PARTIAL:      telar.matmul {{.*}} {telar.result_names = ["o"]}
// PARTIAL-NEXT: shard.sharding @mesh split_axes = {{\[}}[], []] {telar.partial = {model = "sum"}}

// A mesh alone: nothing named, everything replicated.
// MESH:     shard.grid @mesh(shape = 2) {telar.axis_names = ["data"]}
// MESH-NOT: shard.shard

// A mesh of one device (no axes): the module stays as it is.
// ONE-NOT: shard.

// Expert parallel: the expert dim of the expert weights and of the tokens on
// one axis; the einsum runs locally per expert.
// EXPERT:      %[[E:.*]] = shard.shard %arg0
// EXPERT:      %[[W:.*]] = telar.constant {telar.result_names = ["experts"]}
// EXPERT-NEXT: shard.sharding @mesh split_axes = {{\[}}[0], [], []]
// EXPERT-NEXT: %[[WS:.*]] = shard.shard %[[W]]
// EXPERT-NEXT: telar.einsum %[[E]], %[[WS]] {{.*}}telar.result_names = ["y"]
// EXPERT-NEXT: shard.sharding @mesh split_axes = {{\[}}[0], [], []]
// EXPERT-NOT:  annotate_for_users

// Sequence split: the sequence dim goes through the matmul, layer norm and
// softmax (whose normalized axis stays whole).
// SEQ-COUNT-4: shard.sharding @mesh split_axes = {{\[}}[], [0], []] : !shard.sharding
// SEQ-NOT:     shard.sharding

// Channel split: the output channels of the first conv's weight; the second
// conv reduces over them, so its result is partial and resolved for relu.
// CHANNEL:      telar.conv {{.*}}telar.result_names = ["c1"]
// CHANNEL-NEXT: shard.sharding @mesh split_axes = {{\[}}[], [0], [], []] :
// CHANNEL:      telar.conv {{.*}}telar.result_names = ["c2"]
// CHANNEL-NEXT: shard.sharding @mesh split_axes = {{\[}}[], [], [], []] {telar.partial = {channel = "sum"}}
// CHANNEL-NEXT: {{.*}} = shard.shard %
// CHANNEL-NEXT: shard.sharding @mesh split_axes = {{\[}}[], [], [], []] :
// CHANNEL-NEXT: {{.*}} = shard.shard {{.*}} annotate_for_users
// CHANNEL-NEXT: telar.relu

// A value (t, unnamed) whose uses want different shardings: the one that
// costs the fewest bytes of resharding over all uses wins (two uses want
// rows split, one wants columns, and that one comes first).
// USES:      %[[T:.*]] = telar.relu %{{.*}} {telar.result_names = ["t"]}
// USES-NEXT: shard.sharding @mesh split_axes = {{\[}}[0], []] :
// USES-NEXT: %[[TS:.*]] = shard.shard %[[T]]
// USES:      telar.constant {telar.result_names = ["rows"]}
// USES-NEXT: shard.sharding @mesh split_axes = {{\[}}[0], []] :
// USES-NEXT: shard.shard %
// USES-NEXT: %[[SC:.*]] = shard.sharding @mesh split_axes = {{\[}}[], [0]] :
// USES-NEXT: %[[TU:.*]] = shard.shard %[[TS]] to %[[SC]] annotate_for_users
// USES-NEXT: telar.add %[[TU]], %{{.*}} {telar.result_names = ["a"]}
// USES:      telar.add %[[TS]], %{{.*}} {telar.result_names = ["b"]}
// USES:      telar.add %[[TS]], %{{.*}} {telar.result_names = ["c"]}

// The tie rule of two proposals for one value (docs/Plan.md): t's two uses
// want rows and columns, which cost the same (one all_to_all either way)
// and split into as many blocks; the earlier use wins, and the other gets
// its resharding. The same program with the uses swapped picks the other.
// TIE:      %[[T:.*]] = telar.relu %{{.*}} {telar.result_names = ["t"]}
// TIE-NEXT: shard.sharding @mesh split_axes = {{\[}}[], [0]] :
// TIE-NEXT: %[[TS:.*]] = shard.shard %[[T]]
// TIE:      telar.add %[[TS]], %{{.*}} {telar.result_names = ["a"]}
// TIE:      shard.sharding @mesh split_axes = {{\[}}[0], []] :
// TIE-NEXT: %[[TU:.*]] = shard.shard %[[TS]] to %{{.*}} annotate_for_users
// TIE-NEXT: telar.add %[[TU]], %{{.*}} {telar.result_names = ["b"]}
// TIE-SWAPPED:      %[[T:.*]] = telar.relu %{{.*}} {telar.result_names = ["t"]}
// TIE-SWAPPED-NEXT: shard.sharding @mesh split_axes = {{\[}}[0], []] :
// TIE-SWAPPED-NEXT: %[[TS:.*]] = shard.shard %[[T]]
// TIE-SWAPPED:      telar.add %[[TS]], %{{.*}} {telar.result_names = ["a"]}
// TIE-SWAPPED:      shard.sharding @mesh split_axes = {{\[}}[], [0]] :
// TIE-SWAPPED-NEXT: %[[TU:.*]] = shard.shard %[[TS]] to %{{.*}} annotate_for_users
// TIE-SWAPPED-NEXT: telar.add %[[TU]], %{{.*}} {telar.result_names = ["b"]}

// Two named operands disagree on a factor: a (named replicated, the first
// operand) keeps the contraction whole, b (named split by rows) splits it.
// Split, a is sliced locally (no bytes); whole, b would be gathered: the
// factor is split (a resharded where the matmul uses it), the result partial.
// FACTOR:      shard.sharding @mesh split_axes = {{\[}}[], [0]] :
// FACTOR-NEXT: %[[AU:.*]] = shard.shard %arg0 to %{{.*}} annotate_for_users : tensor<4x16xf32>
// FACTOR-NEXT: telar.matmul %[[AU]], %{{.*}} {telar.result_names = ["p"]}
// FACTOR-NEXT: shard.sharding @mesh split_axes = {{\[}}[], []] {telar.partial = {d = "sum"}}

// A factor's tie (equal bytes, equal blocks): a split on d (operand 0) or on
// e (operand 1) each reshards the other operand alike; the earlier proposal,
// operand 0's, wins (b is resharded, the sum produced split on d).
// FACTOR-TIE:      shard.sharding @mesh split_axes = {{\[}}[1], []] :
// FACTOR-TIE-NEXT: %[[B:.*]] = shard.shard %arg1
// FACTOR-TIE-NEXT: shard.sharding @mesh split_axes = {{\[}}[0], []] :
// FACTOR-TIE-NEXT: %[[BU:.*]] = shard.shard %[[B]] to %{{.*}} annotate_for_users : tensor<8x8xf32>
// FACTOR-TIE-NEXT: telar.add %{{.*}}, %[[BU]] {telar.result_names = ["s"]}
// FACTOR-TIE-NEXT: shard.sharding @mesh split_axes = {{\[}}[0], []] :

// A factor's tie on blocks: neg's operand x is [d] (its other use wants
// that), its result r [d, e] (its use wants that); either way a local slice,
// no bytes: the candidate with more blocks wins, so neg runs on [d, e]
// blocks (x sliced for it) rather than producing [d] and slicing r.
// FACTOR-BLOCKS:      telar.relu
// FACTOR-BLOCKS-NEXT: shard.sharding @mesh split_axes = {{\[}}[0], []] :
// FACTOR-BLOCKS-NEXT: %[[X:.*]] = shard.shard
// FACTOR-BLOCKS-NEXT: shard.sharding @mesh split_axes = {{\[}}[0, 1], []] :
// FACTOR-BLOCKS-NEXT: %[[XU:.*]] = shard.shard %[[X]] to %{{.*}} annotate_for_users : tensor<8x8xf32>
// FACTOR-BLOCKS-NEXT: %[[R:.*]] = telar.neg %[[XU]] {telar.result_names = ["r"]}
// FACTOR-BLOCKS-NEXT: shard.sharding @mesh split_axes = {{\[}}[0, 1], []] :
// FACTOR-BLOCKS-NEXT: shard.shard %[[R]] to %{{.*}} : tensor<8x8xf32>

// A dimension that cannot carry a sharding: a reshape merging a dim whose
// minor factor is split (the major one is not) gathers its operand. A mean
// over a split dim leaves partial sums (equal blocks), resolved for return.
// WHOLE:      shard.sharding @mesh split_axes = {{\[}}[], []] :
// WHOLE-NEXT: %[[XU:.*]] = shard.shard %{{.*}} to %{{.*}} annotate_for_users : tensor<8x6xf32>
// WHOLE-NEXT: telar.reshape %[[XU]] {{.*}}telar.result_names = ["flat"]
// WHOLE-NEXT: %[[M:.*]] = telar.reduce_mean %{{.*}} {{.*}}telar.result_names = ["m"]
// WHOLE-NEXT: shard.sharding @mesh split_axes = {{\[}}[]] {telar.partial = {d = "sum"}}
// WHOLE-NEXT: %[[MP:.*]] = shard.shard %[[M]]
// WHOLE-NEXT: shard.sharding @mesh split_axes = {{\[}}[]] :
// WHOLE-NEXT: %[[MR:.*]] = shard.shard %[[MP]] to %{{.*}} annotate_for_users
// WHOLE-NEXT: return %{{.*}}, %[[MR]]

//--- mlp.mlir
func.func @main(%x: tensor<8x16xf32> {telar.name = "x"}) -> tensor<8x16xf32> attributes {telar.output_names = ["y"]} {
  %w1 = telar.constant {telar.result_names = ["w1"]} dense<1.0> : tensor<16x32xf32>
  %b1 = telar.constant {telar.result_names = ["b1"]} dense<1.0> : tensor<32xf32>
  %w2 = telar.constant {telar.result_names = ["w2"]} dense<1.0> : tensor<32x16xf32>
  %b2 = telar.constant {telar.result_names = ["b2"]} dense<1.0> : tensor<16xf32>
  %h = telar.matmul %x, %w1 {telar.result_names = ["h"]} : (tensor<8x16xf32>, tensor<16x32xf32>) -> tensor<8x32xf32>
  %hb = telar.add %h, %b1 {telar.result_names = ["hb"]} : (tensor<8x32xf32>, tensor<32xf32>) -> tensor<8x32xf32>
  %r = telar.relu %hb {telar.result_names = ["r"]} : (tensor<8x32xf32>) -> tensor<8x32xf32>
  %o = telar.matmul %r, %w2 {telar.result_names = ["o"]} : (tensor<8x32xf32>, tensor<32x16xf32>) -> tensor<8x16xf32>
  %y = telar.add %o, %b2 {telar.result_names = ["y"]} : (tensor<8x16xf32>, tensor<16xf32>) -> tensor<8x16xf32>
  return %y : tensor<8x16xf32>
}
//--- dp.json
{"mesh": {"data": 2}, "shardings": {"x": [["data"], []]}}
//--- tp.json
{"mesh": {"model": 2}, "shardings": {"w1": [[], ["model"]], "w2": [["model"], []]}}
//--- dxt.json
{"mesh": {"data": 2, "model": 2},
 "shardings": {"x": [["data"], []], "w1": [[], ["model"]], "w2": [["model"], []]}}
//--- nomesh.json
{"shardings": {"x": [["data"], []], "w1": [[], ["model"]], "w2": [["model"], []]}}
//--- result.json
{"mesh": {"model": 2}, "shardings": {"w1": [["model"], []], "h": [[], ["model"]]}}
//--- partial.json
{"mesh": {"model": 2},
 "shardings": {"r": [[], ["model"]], "o": {"dims": [[], []], "partial": {"model": "sum"}}}}
//--- one.json
{"mesh": {}, "shardings": {"x": [[], []]}}
//--- expert.mlir
func.func @main(%tokens: tensor<4x8x16xf32> {telar.name = "tokens"}) -> tensor<4x8x32xf32> attributes {telar.output_names = ["y"]} {
  %w = telar.constant {telar.result_names = ["experts"]} dense<1.0> : tensor<4x16x32xf32>
  %y = telar.einsum %tokens, %w {equation = #telar.einsum<[e, c, d], [e, d, f] -> [e, c, f]>, telar.result_names = ["y"]} : (tensor<4x8x16xf32>, tensor<4x16x32xf32>) -> tensor<4x8x32xf32>
  return %y : tensor<4x8x32xf32>
}
//--- expert.json
{"mesh": {"expert": 4}, "shardings": {"tokens": [["expert"], [], []], "experts": [["expert"], [], []]}}
//--- seq.mlir
func.func @main(%x: tensor<2x8x16xf32> {telar.name = "x"}) -> tensor<2x8x16xf32> attributes {telar.output_names = ["y"]} {
  %w = telar.constant {telar.result_names = ["w"]} dense<1.0> : tensor<16x16xf32>
  %g = telar.constant {telar.result_names = ["g"]} dense<1.0> : tensor<16xf32>
  %h = telar.matmul %x, %w {telar.result_names = ["h"]} : (tensor<2x8x16xf32>, tensor<16x16xf32>) -> tensor<2x8x16xf32>
  %n = telar.layer_norm %h, %g {axis = 2 : i64, telar.result_names = ["n"]} : (tensor<2x8x16xf32>, tensor<16xf32>) -> tensor<2x8x16xf32>
  %s = telar.softmax %n {axis = 2 : i64, telar.result_names = ["y"]} : (tensor<2x8x16xf32>) -> tensor<2x8x16xf32>
  return %s : tensor<2x8x16xf32>
}
//--- seq.json
{"mesh": {"seq": 2}, "shardings": {"x": [[], ["seq"], []]}}
//--- conv.mlir
func.func @main(%x: tensor<1x4x8x8xf32> {telar.name = "x"}) -> tensor<1x4x8x8xf32> attributes {telar.output_names = ["y"]} {
  %w1 = telar.constant {telar.result_names = ["conv1.weight"]} dense<1.0> : tensor<8x4x3x3xf32>
  %w2 = telar.constant {telar.result_names = ["conv2.weight"]} dense<1.0> : tensor<4x8x1x1xf32>
  %c1 = telar.conv %x, %w1 {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>, telar.result_names = ["c1"]} : (tensor<1x4x8x8xf32>, tensor<8x4x3x3xf32>) -> tensor<1x8x8x8xf32>
  %c2 = telar.conv %c1, %w2 {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>, telar.result_names = ["c2"]} : (tensor<1x8x8x8xf32>, tensor<4x8x1x1xf32>) -> tensor<1x4x8x8xf32>
  %y = telar.relu %c2 {telar.result_names = ["y"]} : (tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32>
  return %y : tensor<1x4x8x8xf32>
}
//--- conv.json
{"mesh": {"channel": 2}, "shardings": {"conv1.weight": [["channel"], [], [], []]}}
//--- uses.mlir
func.func @main(%x: tensor<8x8xf32> {telar.name = "x"}) -> (tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>) attributes {telar.output_names = ["a", "b", "c"]} {
  %t = telar.relu %x {telar.result_names = ["t"]} : (tensor<8x8xf32>) -> tensor<8x8xf32>
  %cols = telar.constant {telar.result_names = ["cols"]} dense<1.0> : tensor<8x8xf32>
  %rows = telar.constant {telar.result_names = ["rows"]} dense<1.0> : tensor<8x8xf32>
  %a = telar.add %t, %cols {telar.result_names = ["a"]} : (tensor<8x8xf32>, tensor<8x8xf32>) -> tensor<8x8xf32>
  %b = telar.add %t, %rows {telar.result_names = ["b"]} : (tensor<8x8xf32>, tensor<8x8xf32>) -> tensor<8x8xf32>
  %c = telar.add %t, %rows {telar.result_names = ["c"]} : (tensor<8x8xf32>, tensor<8x8xf32>) -> tensor<8x8xf32>
  return %a, %b, %c : tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>
}
//--- uses.json
{"mesh": {"d": 2},
 "shardings": {"cols": [[], ["d"]], "rows": [["d"], []],
               "a": [[], ["d"]], "b": [["d"], []], "c": [["d"], []]}}
//--- tie.mlir
func.func @main(%x: tensor<8x8xf32> {telar.name = "x"}) -> (tensor<8x8xf32>, tensor<8x8xf32>) attributes {telar.output_names = ["a", "b"]} {
  %t = telar.relu %x {telar.result_names = ["t"]} : (tensor<8x8xf32>) -> tensor<8x8xf32>
  %cols = telar.constant {telar.result_names = ["cols"]} dense<1.0> : tensor<8x8xf32>
  %rows = telar.constant {telar.result_names = ["rows"]} dense<1.0> : tensor<8x8xf32>
  %a = telar.add %t, %cols {telar.result_names = ["a"]} : (tensor<8x8xf32>, tensor<8x8xf32>) -> tensor<8x8xf32>
  %b = telar.add %t, %rows {telar.result_names = ["b"]} : (tensor<8x8xf32>, tensor<8x8xf32>) -> tensor<8x8xf32>
  return %a, %b : tensor<8x8xf32>, tensor<8x8xf32>
}
//--- tie-swapped.mlir
func.func @main(%x: tensor<8x8xf32> {telar.name = "x"}) -> (tensor<8x8xf32>, tensor<8x8xf32>) attributes {telar.output_names = ["a", "b"]} {
  %t = telar.relu %x {telar.result_names = ["t"]} : (tensor<8x8xf32>) -> tensor<8x8xf32>
  %cols = telar.constant {telar.result_names = ["cols"]} dense<1.0> : tensor<8x8xf32>
  %rows = telar.constant {telar.result_names = ["rows"]} dense<1.0> : tensor<8x8xf32>
  %a = telar.add %t, %rows {telar.result_names = ["a"]} : (tensor<8x8xf32>, tensor<8x8xf32>) -> tensor<8x8xf32>
  %b = telar.add %t, %cols {telar.result_names = ["b"]} : (tensor<8x8xf32>, tensor<8x8xf32>) -> tensor<8x8xf32>
  return %a, %b : tensor<8x8xf32>, tensor<8x8xf32>
}
//--- tie.json
{"mesh": {"d": 2},
 "shardings": {"cols": [[], ["d"]], "rows": [["d"], []]}}
//--- factor.mlir
func.func @main(%a: tensor<4x16xf32> {telar.name = "a"}) -> tensor<4x4xf32> attributes {telar.output_names = ["p"]} {
  %b = telar.constant {telar.result_names = ["b"]} dense<1.0> : tensor<16x4xf32>
  %p = telar.matmul %a, %b {telar.result_names = ["p"]} : (tensor<4x16xf32>, tensor<16x4xf32>) -> tensor<4x4xf32>
  %q = telar.relu %p {telar.result_names = ["q"]} : (tensor<4x4xf32>) -> tensor<4x4xf32>
  return %q : tensor<4x4xf32>
}
//--- factor.json
{"mesh": {"d": 2}, "shardings": {"a": [[], []], "b": [["d"], []]}}
//--- factor-tie.mlir
func.func @main(%a: tensor<8x8xf32> {telar.name = "a"}, %b: tensor<8x8xf32> {telar.name = "b"}) -> tensor<8x8xf32> attributes {telar.output_names = ["s"]} {
  %s = telar.add %a, %b {telar.result_names = ["s"]} : (tensor<8x8xf32>, tensor<8x8xf32>) -> tensor<8x8xf32>
  return %s : tensor<8x8xf32>
}
//--- factor-tie.json
{"mesh": {"d": 2, "e": 2}, "shardings": {"a": [["d"], []], "b": [["e"], []]}}
//--- factor-blocks.mlir
func.func @main(%xin: tensor<8x8xf32> {telar.name = "xin"}) -> (tensor<8x8xf32>, tensor<8x8xf32>) attributes {telar.output_names = ["z", "w"]} {
  %c = telar.constant {telar.result_names = ["c"]} dense<1.0> : tensor<8x8xf32>
  %c2 = telar.constant {telar.result_names = ["c2"]} dense<1.0> : tensor<8x8xf32>
  %x = telar.relu %xin {telar.result_names = ["x"]} : (tensor<8x8xf32>) -> tensor<8x8xf32>
  %r = telar.neg %x {telar.result_names = ["r"]} : (tensor<8x8xf32>) -> tensor<8x8xf32>
  %z = telar.add %r, %c {telar.result_names = ["z"]} : (tensor<8x8xf32>, tensor<8x8xf32>) -> tensor<8x8xf32>
  %w = telar.add %x, %c2 {telar.result_names = ["w"]} : (tensor<8x8xf32>, tensor<8x8xf32>) -> tensor<8x8xf32>
  return %z, %w : tensor<8x8xf32>, tensor<8x8xf32>
}
//--- factor-blocks.json
{"mesh": {"d": 2, "e": 2}, "shardings": {"c": [["d", "e"], []], "c2": [["d"], []]}}
//--- whole.mlir
func.func @main(%x: tensor<8x6xf32> {telar.name = "x"}) -> (tensor<48xf32>, tensor<8xf32>) attributes {telar.output_names = ["flat", "m"]} {
  %f = telar.reshape %x {shape = array<i64: 48>, telar.result_names = ["flat"]} : (tensor<8x6xf32>) -> tensor<48xf32>
  %m = telar.reduce_mean %x {axes = array<i64: 1>, keepdims = false, telar.result_names = ["m"]} : (tensor<8x6xf32>) -> tensor<8xf32>
  return %f, %m : tensor<48xf32>, tensor<8xf32>
}
//--- whole.json
{"mesh": {"d": 2}, "shardings": {"x": [[], ["d"]]}}
