// RUN: telar-opt %s -split-input-file -test-telar-sharding-rules -verify-diagnostics
// Every printed rule parses back and prints the same:
// RUN: telar-opt %s -split-input-file -test-telar-sharding-rules 2>&1 >/dev/null | sed -n 's/^.*remark: //p' > %t.printed
// RUN: sed 's/.*/"test.rule"() {rule = &} : () -> ()/' %t.printed | telar-opt --allow-unregistered-dialect | sed -n 's/^ *"test.rule"() {rule = \(.*\)} : () -> ()$/\1/p' | diff %t.printed -
// RUN: grep -q '^#telar.sharding_rule<' %t.printed

// Sharding rules of the non-NN telar ops (the NN ops are in
// test-telar-sharding-rules-nn.mlir, rules that were once wrong in
// test-telar-sharding-rules-regressions.mlir). Each remark is the op's
// #telar.sharding_rule (grammar in include/telar/dialects/Telar/TelarAttrs.td):
// the factors of every operand and result dimension, the factors' sizes, and
// the factors that are reductions or must stay whole (need_replication). The
// pass also checks that each rule matches the op's types and parses back.

//===----------------------------------------------------------------------===//
// Elementwise
//===----------------------------------------------------------------------===//

// A size-1 dim against a larger result dim is a broadcast of that factor;
// missing leading dims are absent; the others are the result's factors,
// aligned from the back.
func.func @add_broadcast(%a: tensor<4x1x3xf32>, %b: tensor<2x3xf32>) -> tensor<4x2x3xf32> {
  // expected-remark @+1 {{#telar.sharding_rule<([i, bcast(j), k], [j, k]) -> ([i, j, k]) {i=4, j=2, k=3} partial_alike={sum}>}}
  %0 = telar.add %a, %b : (tensor<4x1x3xf32>, tensor<2x3xf32>) -> tensor<4x2x3xf32>
  return %0 : tensor<4x2x3xf32>
}

// -----

// A size-1 result dim is a (trivial) factor, not a broadcast.
func.func @mul_unit_dim(%a: tensor<1x3xf32>, %s: tensor<f32>) -> tensor<1x3xf32> {
  // expected-remark @+1 {{#telar.sharding_rule<([i, j], []) -> ([i, j]) {i=1, j=3} partial_one={0:sum, 1:sum}>}}
  %0 = telar.mul %a, %s : (tensor<1x3xf32>, tensor<f32>) -> tensor<1x3xf32>
  return %0 : tensor<1x3xf32>
}

// -----

func.func @less_broadcast(%a: tensor<4x1xi64>, %b: tensor<5xi64>) -> tensor<4x5xi1> {
  // expected-remark @+1 {{#telar.sharding_rule<([i, bcast(j)], [j]) -> ([i, j]) {i=4, j=5}>}}
  %0 = telar.less %a, %b : (tensor<4x1xi64>, tensor<5xi64>) -> tensor<4x5xi1>
  return %0 : tensor<4x5xi1>
}

// -----

func.func @unary(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  // expected-remark @+1 {{#telar.sharding_rule<([i, j]) -> ([i, j]) {i=2, j=3}>}}
  %0 = telar.exp %x : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

func.func @unary_attr(%x: tensor<8xf32>) -> tensor<8xf32> {
  // expected-remark @+1 {{#telar.sharding_rule<([i]) -> ([i]) {i=8}>}}
  %0 = telar.leaky_relu %x {alpha = 0.2 : f32} : (tensor<8xf32>) -> tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

func.func @cast(%x: tensor<2x3xf32>) -> tensor<2x3xi64> {
  // expected-remark @+1 {{#telar.sharding_rule<([i, j]) -> ([i, j]) {i=2, j=3}>}}
  %0 = telar.cast %x {to = i64} : (tensor<2x3xf32>) -> tensor<2x3xi64>
  return %0 : tensor<2x3xi64>
}

// -----

func.func @where(%c: tensor<4x1xi1>, %x: tensor<4x8xf32>, %y: tensor<f32>) -> tensor<4x8xf32> {
  // expected-remark @+1 {{#telar.sharding_rule<([i, bcast(j)], [i, j], []) -> ([i, j]) {i=4, j=8}>}}
  %0 = telar.where %c, %x, %y : (tensor<4x1xi1>, tensor<4x8xf32>, tensor<f32>) -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

// A constant has no operands; its result can be split anywhere.
func.func @constant() -> tensor<2x2xi64> {
  // expected-remark @+1 {{#telar.sharding_rule<() -> ([i, j]) {i=2, j=2}>}}
  %0 = telar.constant dense<[[1, 2], [3, 4]]> : tensor<2x2xi64>
  return %0 : tensor<2x2xi64>
}

// -----

// Every other elementwise op has the same rule: one factor per dim.
func.func @unary_all(%x: tensor<2x3xf32>, %b: tensor<2x3xi1>, %n: tensor<2x3xi32>) {
  // expected-remark @+1 {{#telar.sharding_rule<([i, j]) -> ([i, j]) {i=2, j=3}>}}
  %acos = telar.acos %x : (tensor<2x3xf32>) -> tensor<2x3xf32>
  // expected-remark @+1 {{#telar.sharding_rule<([i, j]) -> ([i, j]) {i=2, j=3}>}}
  %acosh = telar.acosh %x : (tensor<2x3xf32>) -> tensor<2x3xf32>
  // expected-remark @+1 {{#telar.sharding_rule<([i, j]) -> ([i, j]) {i=2, j=3}>}}
  %asin = telar.asin %x : (tensor<2x3xf32>) -> tensor<2x3xf32>
  // expected-remark @+1 {{#telar.sharding_rule<([i, j]) -> ([i, j]) {i=2, j=3}>}}
  %asinh = telar.asinh %x : (tensor<2x3xf32>) -> tensor<2x3xf32>
  // expected-remark @+1 {{#telar.sharding_rule<([i, j]) -> ([i, j]) {i=2, j=3}>}}
  %atan = telar.atan %x : (tensor<2x3xf32>) -> tensor<2x3xf32>
  // expected-remark @+1 {{#telar.sharding_rule<([i, j]) -> ([i, j]) {i=2, j=3}>}}
  %atanh = telar.atanh %x : (tensor<2x3xf32>) -> tensor<2x3xf32>
  // expected-remark @+1 {{#telar.sharding_rule<([i, j]) -> ([i, j]) {i=2, j=3}>}}
  %ceil = telar.ceil %x : (tensor<2x3xf32>) -> tensor<2x3xf32>
  // expected-remark @+1 {{#telar.sharding_rule<([i, j]) -> ([i, j]) {i=2, j=3}>}}
  %celu = telar.celu %x : (tensor<2x3xf32>) -> tensor<2x3xf32>
  // expected-remark @+1 {{#telar.sharding_rule<([i, j]) -> ([i, j]) {i=2, j=3}>}}
  %cos = telar.cos %x : (tensor<2x3xf32>) -> tensor<2x3xf32>
  // expected-remark @+1 {{#telar.sharding_rule<([i, j]) -> ([i, j]) {i=2, j=3}>}}
  %cosh = telar.cosh %x : (tensor<2x3xf32>) -> tensor<2x3xf32>
  // expected-remark @+1 {{#telar.sharding_rule<([i, j]) -> ([i, j]) {i=2, j=3}>}}
  %elu = telar.elu %x : (tensor<2x3xf32>) -> tensor<2x3xf32>
  // expected-remark @+1 {{#telar.sharding_rule<([i, j]) -> ([i, j]) {i=2, j=3}>}}
  %erf = telar.erf %x : (tensor<2x3xf32>) -> tensor<2x3xf32>
  // expected-remark @+1 {{#telar.sharding_rule<([i, j]) -> ([i, j]) {i=2, j=3}>}}
  %floor = telar.floor %x : (tensor<2x3xf32>) -> tensor<2x3xf32>
  // expected-remark @+1 {{#telar.sharding_rule<([i, j]) -> ([i, j]) {i=2, j=3}>}}
  %hard_sigmoid = telar.hard_sigmoid %x : (tensor<2x3xf32>) -> tensor<2x3xf32>
  // expected-remark @+1 {{#telar.sharding_rule<([i, j]) -> ([i, j]) {i=2, j=3}>}}
  %hard_swish = telar.hard_swish %x : (tensor<2x3xf32>) -> tensor<2x3xf32>
  // expected-remark @+1 {{#telar.sharding_rule<([i, j]) -> ([i, j]) {i=2, j=3}>}}
  %log = telar.log %x : (tensor<2x3xf32>) -> tensor<2x3xf32>
  // expected-remark @+1 {{#telar.sharding_rule<([i, j]) -> ([i, j]) {i=2, j=3}>}}
  %mish = telar.mish %x : (tensor<2x3xf32>) -> tensor<2x3xf32>
  // expected-remark @+1 {{#telar.sharding_rule<([i, j]) -> ([i, j]) {i=2, j=3}>}}
  %reciprocal = telar.reciprocal %x : (tensor<2x3xf32>) -> tensor<2x3xf32>
  // expected-remark @+1 {{#telar.sharding_rule<([i, j]) -> ([i, j]) {i=2, j=3}>}}
  %round = telar.round %x : (tensor<2x3xf32>) -> tensor<2x3xf32>
  // expected-remark @+1 {{#telar.sharding_rule<([i, j]) -> ([i, j]) {i=2, j=3}>}}
  %selu = telar.selu %x : (tensor<2x3xf32>) -> tensor<2x3xf32>
  // expected-remark @+1 {{#telar.sharding_rule<([i, j]) -> ([i, j]) {i=2, j=3}>}}
  %sigmoid = telar.sigmoid %x : (tensor<2x3xf32>) -> tensor<2x3xf32>
  // expected-remark @+1 {{#telar.sharding_rule<([i, j]) -> ([i, j]) {i=2, j=3}>}}
  %sin = telar.sin %x : (tensor<2x3xf32>) -> tensor<2x3xf32>
  // expected-remark @+1 {{#telar.sharding_rule<([i, j]) -> ([i, j]) {i=2, j=3}>}}
  %sinh = telar.sinh %x : (tensor<2x3xf32>) -> tensor<2x3xf32>
  // expected-remark @+1 {{#telar.sharding_rule<([i, j]) -> ([i, j]) {i=2, j=3}>}}
  %softplus = telar.softplus %x : (tensor<2x3xf32>) -> tensor<2x3xf32>
  // expected-remark @+1 {{#telar.sharding_rule<([i, j]) -> ([i, j]) {i=2, j=3}>}}
  %softsign = telar.softsign %x : (tensor<2x3xf32>) -> tensor<2x3xf32>
  // expected-remark @+1 {{#telar.sharding_rule<([i, j]) -> ([i, j]) {i=2, j=3}>}}
  %sqrt = telar.sqrt %x : (tensor<2x3xf32>) -> tensor<2x3xf32>
  // expected-remark @+1 {{#telar.sharding_rule<([i, j]) -> ([i, j]) {i=2, j=3}>}}
  %tan = telar.tan %x : (tensor<2x3xf32>) -> tensor<2x3xf32>
  // expected-remark @+1 {{#telar.sharding_rule<([i, j]) -> ([i, j]) {i=2, j=3}>}}
  %tanh = telar.tanh %x : (tensor<2x3xf32>) -> tensor<2x3xf32>
  // expected-remark @+1 {{#telar.sharding_rule<([i, j]) -> ([i, j]) {i=2, j=3}>}}
  %thresholded_relu = telar.thresholded_relu %x : (tensor<2x3xf32>) -> tensor<2x3xf32>
  // expected-remark @+1 {{#telar.sharding_rule<([i, j]) -> ([i, j]) {i=2, j=3}>}}
  %abs = telar.abs %x : (tensor<2x3xf32>) -> tensor<2x3xf32>
  // expected-remark @+1 {{#telar.sharding_rule<([i, j]) -> ([i, j]) {i=2, j=3} partial_alike={sum}>}}
  %neg = telar.neg %x : (tensor<2x3xf32>) -> tensor<2x3xf32>
  // expected-remark @+1 {{#telar.sharding_rule<([i, j]) -> ([i, j]) {i=2, j=3}>}}
  %relu = telar.relu %x : (tensor<2x3xf32>) -> tensor<2x3xf32>
  // expected-remark @+1 {{#telar.sharding_rule<([i, j]) -> ([i, j]) {i=2, j=3}>}}
  %shrink = telar.shrink %x : (tensor<2x3xf32>) -> tensor<2x3xf32>
  // expected-remark @+1 {{#telar.sharding_rule<([i, j]) -> ([i, j]) {i=2, j=3}>}}
  %sign = telar.sign %x : (tensor<2x3xf32>) -> tensor<2x3xf32>
  // expected-remark @+1 {{#telar.sharding_rule<([i, j]) -> ([i, j]) {i=2, j=3}>}}
  %not = telar.not %b : (tensor<2x3xi1>) -> tensor<2x3xi1>
  // expected-remark @+1 {{#telar.sharding_rule<([i, j]) -> ([i, j]) {i=2, j=3}>}}
  %bitwise_not = telar.bitwise_not %n : (tensor<2x3xi32>) -> tensor<2x3xi32>
  // expected-remark @+1 {{#telar.sharding_rule<([i, j]) -> ([i, j]) {i=2, j=3}>}}
  %is_nan = telar.is_nan %x : (tensor<2x3xf32>) -> tensor<2x3xi1>
  // expected-remark @+1 {{#telar.sharding_rule<([i, j]) -> ([i, j]) {i=2, j=3}>}}
  %is_inf = telar.is_inf %x : (tensor<2x3xf32>) -> tensor<2x3xi1>
  return
}

// -----

// Binary ops broadcast like add; the rhs here is a [3] row.
func.func @binary_all(%x: tensor<2x3xf32>, %y: tensor<3xf32>, %b: tensor<2x3xi1>, %c: tensor<3xi1>, %n: tensor<2x3xi32>, %m: tensor<3xi32>) {
  // expected-remark @+1 {{#telar.sharding_rule<([i, j], [j]) -> ([i, j]) {i=2, j=3} partial_alike={sum}>}}
  %sub = telar.sub %x, %y : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  // expected-remark @+1 {{#telar.sharding_rule<([i, j], [j]) -> ([i, j]) {i=2, j=3} partial_one={0:sum}>}}
  %div = telar.div %x, %y : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  // expected-remark @+1 {{#telar.sharding_rule<([i, j], [j]) -> ([i, j]) {i=2, j=3}>}}
  %pow = telar.pow %x, %y : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  // expected-remark @+1 {{#telar.sharding_rule<([i, j], [j]) -> ([i, j]) {i=2, j=3} partial_alike={max}>}}
  %max = telar.max %x, %y : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  // expected-remark @+1 {{#telar.sharding_rule<([i, j], [j]) -> ([i, j]) {i=2, j=3} partial_alike={min}>}}
  %min = telar.min %x, %y : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  // expected-remark @+1 {{#telar.sharding_rule<([i, j], [j]) -> ([i, j]) {i=2, j=3}>}}
  %prelu = telar.prelu %x, %y : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  // expected-remark @+1 {{#telar.sharding_rule<([i, j], [j]) -> ([i, j]) {i=2, j=3}>}}
  %mod = telar.mod %x, %y : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  // expected-remark @+1 {{#telar.sharding_rule<([i, j], [j]) -> ([i, j]) {i=2, j=3}>}}
  %equal = telar.equal %x, %y : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xi1>
  // expected-remark @+1 {{#telar.sharding_rule<([i, j], [j]) -> ([i, j]) {i=2, j=3}>}}
  %greater = telar.greater %x, %y : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xi1>
  // expected-remark @+1 {{#telar.sharding_rule<([i, j], [j]) -> ([i, j]) {i=2, j=3}>}}
  %greater_equal = telar.greater_equal %x, %y : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xi1>
  // expected-remark @+1 {{#telar.sharding_rule<([i, j], [j]) -> ([i, j]) {i=2, j=3}>}}
  %less_equal = telar.less_equal %x, %y : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xi1>
  // expected-remark @+1 {{#telar.sharding_rule<([i, j], [j]) -> ([i, j]) {i=2, j=3}>}}
  %and = telar.and %b, %c : (tensor<2x3xi1>, tensor<3xi1>) -> tensor<2x3xi1>
  // expected-remark @+1 {{#telar.sharding_rule<([i, j], [j]) -> ([i, j]) {i=2, j=3}>}}
  %or = telar.or %b, %c : (tensor<2x3xi1>, tensor<3xi1>) -> tensor<2x3xi1>
  // expected-remark @+1 {{#telar.sharding_rule<([i, j], [j]) -> ([i, j]) {i=2, j=3}>}}
  %xor = telar.xor %b, %c : (tensor<2x3xi1>, tensor<3xi1>) -> tensor<2x3xi1>
  // expected-remark @+1 {{#telar.sharding_rule<([i, j], [j]) -> ([i, j]) {i=2, j=3}>}}
  %bitwise_and = telar.bitwise_and %n, %m : (tensor<2x3xi32>, tensor<3xi32>) -> tensor<2x3xi32>
  // expected-remark @+1 {{#telar.sharding_rule<([i, j], [j]) -> ([i, j]) {i=2, j=3}>}}
  %bitwise_or = telar.bitwise_or %n, %m : (tensor<2x3xi32>, tensor<3xi32>) -> tensor<2x3xi32>
  // expected-remark @+1 {{#telar.sharding_rule<([i, j], [j]) -> ([i, j]) {i=2, j=3}>}}
  %bitwise_xor = telar.bitwise_xor %n, %m : (tensor<2x3xi32>, tensor<3xi32>) -> tensor<2x3xi32>
  // expected-remark @+1 {{#telar.sharding_rule<([i, j], [j]) -> ([i, j]) {i=2, j=3}>}}
  %bit_shift = telar.bit_shift %n, %m : (tensor<2x3xi32>, tensor<3xi32>) -> tensor<2x3xi32>
  return
}

// -----

//===----------------------------------------------------------------------===//
// Reductions
//===----------------------------------------------------------------------===//

func.func @reduce_sum_keepdims(%x: tensor<2x3x4xf32>) -> tensor<2x1x4xf32> {
  // expected-remark @+1 {{#telar.sharding_rule<([i, j, k]) -> ([i, (), k]) {i=2, j=3, k=4} reduction={j:sum} partial_alike={sum}>}}
  %0 = telar.reduce_sum %x {axes = array<i64: 1>} : (tensor<2x3x4xf32>) -> tensor<2x1x4xf32>
  return %0 : tensor<2x1x4xf32>
}

// -----

func.func @reduce_sum_no_keepdims(%x: tensor<2x3x4xf32>) -> tensor<3xf32> {
  // expected-remark @+1 {{#telar.sharding_rule<([i, j, k]) -> ([j]) {i=2, j=3, k=4} reduction={i:sum, k:sum} partial_alike={sum}>}}
  %0 = telar.reduce_sum %x {axes = array<i64: -1, 0>, keepdims = false} : (tensor<2x3x4xf32>) -> tensor<3xf32>
  return %0 : tensor<3xf32>
}

// -----

func.func @reduce_max_all(%x: tensor<2x3xf32>) -> tensor<1x1xf32> {
  // expected-remark @+1 {{#telar.sharding_rule<([i, j]) -> ([(), ()]) {i=2, j=3} reduction={i:max, j:max} partial_alike={max}>}}
  %0 = telar.reduce_max %x : (tensor<2x3xf32>) -> tensor<1x1xf32>
  return %0 : tensor<1x1xf32>
}

// -----

func.func @reduce_kinds(%x: tensor<2x3xf32>) -> (tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) {
  // expected-remark @+1 {{#telar.sharding_rule<([i, j]) -> ([i]) {i=2, j=3} reduction={j:mean} partial_alike={sum}>}}
  %0 = telar.reduce_mean %x {axes = array<i64: 1>, keepdims = false} : (tensor<2x3xf32>) -> tensor<2xf32>
  // expected-remark @+1 {{#telar.sharding_rule<([i, j]) -> ([i]) {i=2, j=3} reduction={j:min} partial_alike={min}>}}
  %1 = telar.reduce_min %x {axes = array<i64: 1>, keepdims = false} : (tensor<2x3xf32>) -> tensor<2xf32>
  // expected-remark @+1 {{#telar.sharding_rule<([i, j]) -> ([i]) {i=2, j=3} reduction={j:prod}>}}
  %2 = telar.reduce_prod %x {axes = array<i64: 1>, keepdims = false} : (tensor<2x3xf32>) -> tensor<2xf32>
  // Sums of |x| and x^2 combine by summing the partial sums.
  // expected-remark @+1 {{#telar.sharding_rule<([i, j]) -> ([i]) {i=2, j=3} reduction={j:sum}>}}
  %3 = telar.reduce_sum_square %x {axes = array<i64: 1>, keepdims = false} : (tensor<2x3xf32>) -> tensor<2xf32>
  // sqrt(sum x^2) does not combine by a plain all-reduce.
  // expected-remark @+1 {{#telar.sharding_rule<([i, j]) -> ([i]) {i=2, j=3} need_replication={j}>}}
  %4 = telar.reduce_l2 %x {axes = array<i64: 1>, keepdims = false} : (tensor<2x3xf32>) -> tensor<2xf32>
  return %0, %1, %2, %3, %4 : tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>
}

// -----

// Means of integers do not scale into partial sums exactly: the reduced
// axis stays whole; a partial input of sums still goes through.
func.func @reduce_mean_integer(%x: tensor<2x3xi32>) -> tensor<2xi32> {
  // expected-remark @+1 {{#telar.sharding_rule<([i, j]) -> ([i]) {i=2, j=3} need_replication={j} partial_alike={sum}>}}
  %0 = telar.reduce_mean %x {axes = array<i64: 1>, keepdims = false} : (tensor<2x3xi32>) -> tensor<2xi32>
  return %0 : tensor<2xi32>
}

// -----

// log(sum) and log(sum(e^x)) of blocks do not combine: the axis stays whole.
func.func @reduce_log_sums(%x: tensor<2x3xf32>) -> (tensor<2xf32>, tensor<2x1xf32>) {
  // expected-remark @+1 {{#telar.sharding_rule<([i, j]) -> ([i]) {i=2, j=3} need_replication={j}>}}
  %0 = telar.reduce_log_sum %x {axes = array<i64: 1>, keepdims = false} : (tensor<2x3xf32>) -> tensor<2xf32>
  // expected-remark @+1 {{#telar.sharding_rule<([i, j]) -> ([i, ()]) {i=2, j=3} need_replication={j}>}}
  %1 = telar.reduce_log_sum_exp %x {axes = array<i64: 1>} : (tensor<2x3xf32>) -> tensor<2x1xf32>
  return %0, %1 : tensor<2xf32>, tensor<2x1xf32>
}

// -----

// Arg reductions: the index of a block's extreme cannot be combined without
// the values, so the reduced axis must stay whole (not a reduction).
func.func @arg_max(%x: tensor<2x3x4xf32>) -> tensor<2x4xi64> {
  // expected-remark @+1 {{#telar.sharding_rule<([i, j, k]) -> ([i, k]) {i=2, j=3, k=4} need_replication={j}>}}
  %0 = telar.arg_max %x {axis = 1 : i64, keepdims = false} : (tensor<2x3x4xf32>) -> tensor<2x4xi64>
  return %0 : tensor<2x4xi64>
}

// -----

func.func @arg_min_keepdims(%x: tensor<2x3x4xf32>) -> tensor<2x3x1xi64> {
  // expected-remark @+1 {{#telar.sharding_rule<([i, j, k]) -> ([i, j, ()]) {i=2, j=3, k=4} need_replication={k}>}}
  %0 = telar.arg_min %x {axis = -1 : i64} : (tensor<2x3x4xf32>) -> tensor<2x3x1xi64>
  return %0 : tensor<2x3x1xi64>
}

// -----

//===----------------------------------------------------------------------===//
// Ops that keep an axis whole
//===----------------------------------------------------------------------===//

// The softmax axis is one factor of input and result that must stay whole.
func.func @softmax(%x: tensor<2x3x4xf32>) -> tensor<2x3x4xf32> {
  // expected-remark @+1 {{#telar.sharding_rule<([i, j, k]) -> ([i, j, k]) {i=2, j=3, k=4} need_replication={j}>}}
  %0 = telar.softmax %x {axis = 1 : i64} : (tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
  return %0 : tensor<2x3x4xf32>
}

// -----

func.func @log_softmax_default_axis(%x: tensor<2x8xf32>) -> tensor<2x8xf32> {
  // expected-remark @+1 {{#telar.sharding_rule<([i, j]) -> ([i, j]) {i=2, j=8} need_replication={j}>}}
  %0 = telar.log_softmax %x : (tensor<2x8xf32>) -> tensor<2x8xf32>
  return %0 : tensor<2x8xf32>
}

// -----

func.func @hardmax(%x: tensor<2x8xf32>) -> tensor<2x8xf32> {
  // expected-remark @+1 {{#telar.sharding_rule<([i, j]) -> ([i, j]) {i=2, j=8} need_replication={j}>}}
  %0 = telar.hardmax %x {axis = 1 : i64} : (tensor<2x8xf32>) -> tensor<2x8xf32>
  return %0 : tensor<2x8xf32>
}

// -----

func.func @cum_sum(%x: tensor<2x3x4xf32>) -> tensor<2x3x4xf32> {
  // expected-remark @+1 {{#telar.sharding_rule<([i, j, k]) -> ([i, j, k]) {i=2, j=3, k=4} need_replication={k}>}}
  %0 = telar.cum_sum %x {axis = -1 : i64} : (tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
  return %0 : tensor<2x3x4xf32>
}

// -----

func.func @trilu(%x: tensor<2x3x4xf32>) -> tensor<2x3x4xf32> {
  // expected-remark @+1 {{#telar.sharding_rule<([i, j, k]) -> ([i, j, k]) {i=2, j=3, k=4} need_replication={j, k}>}}
  %0 = telar.trilu %x : (tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
  return %0 : tensor<2x3x4xf32>
}

// -----

func.func @top_k(%x: tensor<4x8xf32>) -> (tensor<4x2xf32>, tensor<4x2xi64>) {
  // expected-remark @+1 {{#telar.sharding_rule<([i, j]) -> ([i, k], [i, k]) {i=4, j=8, k=2} need_replication={j, k}>}}
  %v, %i = telar.top_k %x {k = 2 : i64} : (tensor<4x8xf32>) -> (tensor<4x2xf32>, tensor<4x2xi64>)
  return %v, %i : tensor<4x2xf32>, tensor<4x2xi64>
}

// -----

//===----------------------------------------------------------------------===//
// Pooling
//===----------------------------------------------------------------------===//

// Windows: the input's spatial dims must stay whole; the output's are factors
// of their own (each device computes its output rows from the whole input).
func.func @max_pool(%x: tensor<1x8x32x32xf32>) -> tensor<1x8x15x15xf32> {
  // expected-remark @+1 {{#telar.sharding_rule<([i, j, k, l]) -> ([i, j, m, n]) {i=1, j=8, k=32, l=32, m=15, n=15} need_replication={k, l}>}}
  %0 = telar.max_pool %x {kernel_shape = array<i64: 3, 3>, strides = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>} : (tensor<1x8x32x32xf32>) -> tensor<1x8x15x15xf32>
  return %0 : tensor<1x8x15x15xf32>
}

// -----

func.func @average_pool_dilated(%x: tensor<1x8x32xf32>) -> tensor<1x8x28xf32> {
  // expected-remark @+1 {{#telar.sharding_rule<([i, j, k]) -> ([i, j, l]) {i=1, j=8, k=32, l=28} need_replication={k}>}}
  %0 = telar.average_pool %x {kernel_shape = array<i64: 3>, strides = array<i64: 1>, pads = array<i64: 0, 0>, dilations = array<i64: 2>} : (tensor<1x8x32xf32>) -> tensor<1x8x28xf32>
  return %0 : tensor<1x8x28xf32>
}

// -----

//===----------------------------------------------------------------------===//
// Reshape, transpose, squeeze, unsqueeze
//===----------------------------------------------------------------------===//

// Expansion: the split input dim is the product of its result dims' factors.
func.func @reshape_expand(%x: tensor<2x8x64xf32>) -> tensor<2x8x4x16xf32> {
  // expected-remark @+1 {{#telar.sharding_rule<([i, j, (k, l)]) -> ([i, j, k, l]) {i=2, j=8, k=4, l=16} partial_alike={any}>}}
  %0 = telar.reshape %x {shape = array<i64: 2, 8, 4, 16>} : (tensor<2x8x64xf32>) -> tensor<2x8x4x16xf32>
  return %0 : tensor<2x8x4x16xf32>
}

// -----

// Collapse: the merged result dim is the product of the input dims' factors.
func.func @reshape_collapse(%x: tensor<2x8x4x16xf32>) -> tensor<2x8x64xf32> {
  // expected-remark @+1 {{#telar.sharding_rule<([i, j, k, l]) -> ([i, j, (k, l)]) {i=2, j=8, k=4, l=16} partial_alike={any}>}}
  %0 = telar.reshape %x {shape = array<i64: 2, 8, 64>} : (tensor<2x8x4x16xf32>) -> tensor<2x8x64xf32>
  return %0 : tensor<2x8x64xf32>
}

// -----

func.func @reshape_flatten(%x: tensor<2x8x64xf32>) -> tensor<16x64xf32> {
  // expected-remark @+1 {{#telar.sharding_rule<([i, j, k]) -> ([(i, j), k]) {i=2, j=8, k=64} partial_alike={any}>}}
  %0 = telar.reshape %x {shape = array<i64: 16, 64>} : (tensor<2x8x64xf32>) -> tensor<16x64xf32>
  return %0 : tensor<16x64xf32>
}

// -----

// Mixed: 6x4 -> 2x12 neither splits nor merges whole dims, but 6 = 2 * 3 and
// 12 = 3 * 4 factor both sides.
func.func @reshape_mixed(%x: tensor<6x4xf32>) -> tensor<2x12xf32> {
  // expected-remark @+1 {{#telar.sharding_rule<([(i, j), k]) -> ([i, (j, k)]) {i=2, j=3, k=4} partial_alike={any}>}}
  %0 = telar.reshape %x {shape = array<i64: 2, 12>} : (tensor<6x4xf32>) -> tensor<2x12xf32>
  return %0 : tensor<2x12xf32>
}

// -----

// 6x4 -> 4x6 is no product of factors (4 does not divide 6, nor 6 4): the
// input stays whole; each device computes its block of the result.
func.func @reshape_mixed_transposed_sizes(%x: tensor<6x4xf32>) -> tensor<4x6xf32> {
  // expected-remark @+1 {{#telar.sharding_rule<([i, j]) -> ([k, l]) {i=6, j=4, k=4, l=6} need_replication={i, j} partial_alike={any}>}}
  %0 = telar.reshape %x {shape = array<i64: 4, 6>} : (tensor<6x4xf32>) -> tensor<4x6xf32>
  return %0 : tensor<4x6xf32>
}

// -----

// Unit dims added by a reshape have no factor.
func.func @reshape_add_unit_dims(%x: tensor<8xf32>) -> tensor<1x8x1xf32> {
  // expected-remark @+1 {{#telar.sharding_rule<([i]) -> ([(), i, ()]) {i=8} partial_alike={any}>}}
  %0 = telar.reshape %x {shape = array<i64: 1, 8, 1>} : (tensor<8xf32>) -> tensor<1x8x1xf32>
  return %0 : tensor<1x8x1xf32>
}

// -----

func.func @transpose(%x: tensor<2x8x4x16xf32>) -> tensor<2x4x8x16xf32> {
  // expected-remark @+1 {{#telar.sharding_rule<([i, j, k, l]) -> ([i, k, j, l]) {i=2, j=8, k=4, l=16} partial_alike={any}>}}
  %0 = telar.transpose %x {perm = array<i64: 0, 2, 1, 3>} : (tensor<2x8x4x16xf32>) -> tensor<2x4x8x16xf32>
  return %0 : tensor<2x4x8x16xf32>
}

// -----

// Result dim i is input dim perm[i]: input dim 2 (factor k) is result dim 0.
func.func @transpose_rotate(%x: tensor<2x8x64xf32>) -> tensor<64x2x8xf32> {
  // expected-remark @+1 {{#telar.sharding_rule<([i, j, k]) -> ([k, i, j]) {i=2, j=8, k=64} partial_alike={any}>}}
  %0 = telar.transpose %x {perm = array<i64: 2, 0, 1>} : (tensor<2x8x64xf32>) -> tensor<64x2x8xf32>
  return %0 : tensor<64x2x8xf32>
}

// -----

func.func @squeeze(%x: tensor<2x1x8xf32>) -> (tensor<2x8xf32>, tensor<2x8xf32>) {
  // expected-remark @+1 {{#telar.sharding_rule<([i, (), j]) -> ([i, j]) {i=2, j=8} partial_alike={any}>}}
  %0 = telar.squeeze %x {axes = array<i64: -2>} : (tensor<2x1x8xf32>) -> tensor<2x8xf32>
  // expected-remark @+1 {{#telar.sharding_rule<([i, (), j]) -> ([i, j]) {i=2, j=8} partial_alike={any}>}}
  %1 = telar.squeeze %x : (tensor<2x1x8xf32>) -> tensor<2x8xf32>
  return %0, %1 : tensor<2x8xf32>, tensor<2x8xf32>
}

// -----

func.func @unsqueeze(%x: tensor<8x4xf32>) -> tensor<1x8x1x4xf32> {
  // expected-remark @+1 {{#telar.sharding_rule<([i, j]) -> ([(), i, (), j]) {i=8, j=4} partial_alike={any}>}}
  %0 = telar.unsqueeze %x {axes = array<i64: 0, -2>} : (tensor<8x4xf32>) -> tensor<1x8x1x4xf32>
  return %0 : tensor<1x8x1x4xf32>
}

// -----

//===----------------------------------------------------------------------===//
// Concat, split, slice
//===----------------------------------------------------------------------===//

func.func @concat(%a: tensor<2x3xf32>, %b: tensor<2x5xf32>) -> tensor<2x8xf32> {
  // expected-remark @+1 {{#telar.sharding_rule<([i, j], [i, k]) -> ([i, l]) {i=2, j=3, k=5, l=8} need_replication={j, k, l} partial_alike={any}>}}
  %0 = telar.concat %a, %b {axis = 1 : i64} : (tensor<2x3xf32>, tensor<2x5xf32>) -> tensor<2x8xf32>
  return %0 : tensor<2x8xf32>
}

// -----

func.func @concat_negative_axis(%a: tensor<2x3xf32>) -> tensor<4x3xf32> {
  // expected-remark @+1 {{#telar.sharding_rule<([i, j], [i, j]) -> ([k, j]) {i=2, j=3, k=4} need_replication={i, k} partial_alike={any}>}}
  %0 = telar.concat %a, %a {axis = -2 : i64} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<4x3xf32>
  return %0 : tensor<4x3xf32>
}

// -----

func.func @split(%x: tensor<2x8xf32>) -> (tensor<2x3xf32>, tensor<2x5xf32>) {
  // expected-remark @+1 {{#telar.sharding_rule<([i, j]) -> ([i, k], [i, l]) {i=2, j=8, k=3, l=5} need_replication={j, k, l} partial_alike={any}>}}
  %0:2 = telar.split %x {axis = 1 : i64, sizes = array<i64: 3, 5>} : (tensor<2x8xf32>) -> (tensor<2x3xf32>, tensor<2x5xf32>)
  return %0#0, %0#1 : tensor<2x3xf32>, tensor<2x5xf32>
}

// -----

// Only the axes whose size changes stay whole (input and result get factors
// of their own); a listed axis sliced to its full extent with step 1 is still
// one parallel factor.
func.func @slice(%x: tensor<4x10x6xf32>) -> (tensor<4x2x6xf32>, tensor<4x10x3xf32>) {
  // expected-remark @+1 {{#telar.sharding_rule<([i, j, k]) -> ([i, l, k]) {i=4, j=10, k=6, l=2} need_replication={j, l} partial_alike={any}>}}
  %0 = telar.slice %x {axes = array<i64: 1>, starts = array<i64: 0>, ends = array<i64: 4>, steps = array<i64: 2>} : (tensor<4x10x6xf32>) -> tensor<4x2x6xf32>
  // expected-remark @+1 {{#telar.sharding_rule<([i, j, k]) -> ([i, j, l]) {i=4, j=10, k=6, l=3} need_replication={k, l} partial_alike={any}>}}
  %1 = telar.slice %x {axes = array<i64: 1, 2>, starts = array<i64: 0, 0>, ends = array<i64: 10, 3>, steps = array<i64: 1, 1>} : (tensor<4x10x6xf32>) -> tensor<4x10x3xf32>
  return %0, %1 : tensor<4x2x6xf32>, tensor<4x10x3xf32>
}

// -----

//===----------------------------------------------------------------------===//
// Gather family
//===----------------------------------------------------------------------===//

// Embedding lookup: the table's rows stay whole, its hidden dim and the ids
// can be split.
func.func @gather_embedding(%table: tensor<1000x64xf32>, %ids: tensor<2x16xi64>) -> tensor<2x16x64xf32> {
  // expected-remark @+1 {{#telar.sharding_rule<([i, j], [k, l]) -> ([k, l, j]) {i=1000, j=64, k=2, l=16} need_replication={i} partial_one={0:any}>}}
  %0 = telar.gather %table, %ids : (tensor<1000x64xf32>, tensor<2x16xi64>) -> tensor<2x16x64xf32>
  return %0 : tensor<2x16x64xf32>
}

// -----

// Inner axis: result = data[:axis] + indices + data[axis+1:].
func.func @gather_inner_axis(%x: tensor<2x4x8xf32>, %i: tensor<4x2xi64>) -> tensor<2x4x2x8xf32> {
  // expected-remark @+1 {{#telar.sharding_rule<([i, j, k], [l, m]) -> ([i, l, m, k]) {i=2, j=4, k=8, l=4, m=2} need_replication={j} partial_one={0:any}>}}
  %0 = telar.gather %x, %i {axis = 1 : i64} : (tensor<2x4x8xf32>, tensor<4x2xi64>) -> tensor<2x4x2x8xf32>
  return %0 : tensor<2x4x2x8xf32>
}

// -----

func.func @gather_scalar_index(%x: tensor<4x8xf32>, %i: tensor<i64>) -> tensor<4xf32> {
  // expected-remark @+1 {{#telar.sharding_rule<([i, j], []) -> ([i]) {i=4, j=8} need_replication={j} partial_one={0:any}>}}
  %0 = telar.gather %x, %i {axis = -1 : i64} : (tensor<4x8xf32>, tensor<i64>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @gather_elements(%x: tensor<4x8xf32>, %i: tensor<4x2xi64>) -> tensor<4x2xf32> {
  // expected-remark @+1 {{#telar.sharding_rule<([i, j], [i, k]) -> ([i, k]) {i=4, j=8, k=2} need_replication={j} partial_one={0:any}>}}
  %0 = telar.gather_elements %x, %i {axis = 1 : i64} : (tensor<4x8xf32>, tensor<4x2xi64>) -> tensor<4x2xf32>
  return %0 : tensor<4x2xf32>
}

// -----

// A non-axis dim where indices are smaller than data cannot follow the
// result's partition (the blocks differ): it stays whole.
func.func @gather_elements_smaller_indices(%x: tensor<4x8xf32>, %i: tensor<2x8xi64>) -> tensor<2x8xf32> {
  // expected-remark @+1 {{#telar.sharding_rule<([i, j], [k, l]) -> ([k, l]) {i=4, j=8, k=2, l=8} need_replication={i, j} partial_one={0:any}>}}
  %0 = telar.gather_elements %x, %i {axis = 1 : i64} : (tensor<4x8xf32>, tensor<2x8xi64>) -> tensor<2x8xf32>
  return %0 : tensor<2x8xf32>
}

// -----

// Index tuples gather from anywhere: every operand stays whole, each device
// computes its block of the result.
func.func @gather_nd(%x: tensor<4x8xf32>, %i: tensor<3x2xi64>) -> tensor<3xf32> {
  // expected-remark @+1 {{#telar.sharding_rule<([i, j], [k, l]) -> ([m]) {i=4, j=8, k=3, l=2, m=3} need_replication={i, j, k, l} partial_one={0:any}>}}
  %0 = telar.gather_nd %x, %i : (tensor<4x8xf32>, tensor<3x2xi64>) -> tensor<3xf32>
  return %0 : tensor<3xf32>
}

// -----

// Scatters write anywhere along their axes: all stay whole.
func.func @scatter_elements(%x: tensor<4x8xf32>, %i: tensor<4x2xi64>, %u: tensor<4x2xf32>) -> tensor<4x8xf32> {
  // expected-remark @+1 {{#telar.sharding_rule<([i, j], [i, k], [i, k]) -> ([i, j]) {i=4, j=8, k=2} need_replication={i, j, k}>}}
  %0 = telar.scatter_elements %x, %i, %u {axis = 1 : i64, reduction = "add"} : (tensor<4x8xf32>, tensor<4x2xi64>, tensor<4x2xf32>) -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

func.func @scatter_nd(%x: tensor<4x8xf32>, %i: tensor<2x1xi64>, %u: tensor<2x8xf32>) -> tensor<4x8xf32> {
  // expected-remark @+1 {{#telar.sharding_rule<([i, j], [k, l], [m, n]) -> ([o, p]) {i=4, j=8, k=2, l=1, m=2, n=8, o=4, p=8} need_replication={i, j, k, l, m, n}>}}
  %0 = telar.scatter_nd %x, %i, %u : (tensor<4x8xf32>, tensor<2x1xi64>, tensor<2x8xf32>) -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

//===----------------------------------------------------------------------===//
// Expand, tile, pad
//===----------------------------------------------------------------------===//

func.func @expand(%x: tensor<3x1xf32>) -> tensor<4x3x8xf32> {
  // expected-remark @+1 {{#telar.sharding_rule<([i, bcast(j)]) -> ([k, i, j]) {i=3, j=8, k=4} partial_alike={any}>}}
  %0 = telar.expand %x {shape = array<i64: 4, 1, 8>} : (tensor<3x1xf32>) -> tensor<4x3x8xf32>
  return %0 : tensor<4x3x8xf32>
}

// -----

// Tiled axes stay whole; an axis repeated once is a parallel factor.
func.func @tile(%x: tensor<2x4xf32>) -> tensor<2x12xf32> {
  // expected-remark @+1 {{#telar.sharding_rule<([i, j]) -> ([i, k]) {i=2, j=4, k=12} need_replication={j, k} partial_alike={any}>}}
  %0 = telar.tile %x {repeats = array<i64: 1, 3>} : (tensor<2x4xf32>) -> tensor<2x12xf32>
  return %0 : tensor<2x12xf32>
}

// -----

// Padded axes stay whole.
func.func @pad(%x: tensor<2x4x6xf32>) -> (tensor<2x6x6xf32>, tensor<2x4x6xf32>) {
  // expected-remark @+1 {{#telar.sharding_rule<([i, j, k]) -> ([i, l, k]) {i=2, j=4, k=6, l=6} need_replication={j, l}>}}
  %0 = telar.pad %x {pads = array<i64: 0, 1, 0, 0, 1, 0>} : (tensor<2x4x6xf32>) -> tensor<2x6x6xf32>
  // expected-remark @+1 {{#telar.sharding_rule<([i, j, k]) -> ([i, j, k]) {i=2, j=4, k=6}>}}
  %1 = telar.pad %x {pads = array<i64: 0, 0, 0, 0, 0, 0>, mode = "reflect"} : (tensor<2x4x6xf32>) -> tensor<2x4x6xf32>
  return %0, %1 : tensor<2x6x6xf32>, tensor<2x4x6xf32>
}
