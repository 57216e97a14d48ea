// RUN: telar-opt %s -split-input-file --allow-unregistered-dialect -test-telar-sharding-rules -verify-diagnostics

// #telar.sharding_rule's verifier: the attribute alone when parsed, then
// against the types of the op that carries it as `sharding_rule` (checked by
// -test-telar-sharding-rules).

// expected-error @+1 {{factor 'i' is declared twice}}
"test.op"() {r = #telar.sharding_rule<([i]) -> ([i]) {i=2, i=3}>} : () -> ()

// -----

// expected-error @+1 {{factor 'q' has no size in the rule's sizes block}}
"test.op"() {r = #telar.sharding_rule<([i, q]) -> ([i]) {i=2}>} : () -> ()

// -----

// expected-error @+1 {{unknown reduction kind 'avg' (sum, max, min, mean, prod)}}
"test.op"() {r = #telar.sharding_rule<([i, j]) -> ([i]) {i=2, j=3} reduction={j:avg}>} : () -> ()

// -----

// expected-error @+1 {{factor 'j' already has kind sum}}
"test.op"() {r = #telar.sharding_rule<([i, j]) -> ([i]) {i=2, j=3} reduction={j:sum} need_replication={j}>} : () -> ()

// -----

// expected-error @+1 {{unknown partial kind 'mean' (sum, max, min, prod, any)}}
"test.op"() {r = #telar.sharding_rule<([i]) -> ([i]) {i=2} partial_alike={mean}>} : () -> ()

// -----

// expected-error @+1 {{partial_one: operand 2 of a rule with 2 operands}}
"test.op"() {r = #telar.sharding_rule<([i], [i]) -> ([i]) {i=2} partial_one={2:sum}>} : () -> ()

// -----

// expected-error @+1 {{partial_one: operand 0 is listed twice}}
"test.op"() {r = #telar.sharding_rule<([i], [i]) -> ([i]) {i=2} partial_one={0:sum, 0:max}>} : () -> ()

// -----

// expected-error @+1 {{has partial kinds that accept no kind}}
"test.op"() {r = #telar.sharding_rule<([i], [i]) -> ([i]) {i=2} partial_one={}>} : () -> ()

// -----

// One clause: partial_alike and partial_one do not combine.
// expected-error @+1 {{expected '>'}}
"test.op"() {r = #telar.sharding_rule<([i], [i]) -> ([i]) {i=2} partial_alike={sum} partial_one={0:sum}>} : () -> ()

// -----

// expected-error @+1 {{factor i must have a positive size, got 0}}
"test.op"() {r = #telar.sharding_rule<([i]) -> ([i]) {i=0}>} : () -> ()

// -----

// A diagonal is two factors, not one factor twice.
// expected-error @+1 {{operand 0: factor i appears twice in one tensor}}
"test.op"() {r = #telar.sharding_rule<([i, i]) -> ([]) {i=2} need_replication={i}>} : () -> ()

// -----

// expected-error @+1 {{result 0: reduction factor j must not index a result}}
"test.op"() {r = #telar.sharding_rule<([i, j]) -> ([i, j]) {i=2, j=3} reduction={j:sum}>} : () -> ()

// -----

// expected-error @+1 {{factor j is a dimension of no tensor}}
"test.op"() {r = #telar.sharding_rule<([i]) -> ([i]) {i=2, j=3}>} : () -> ()

// -----

// A broadcast is against a factor some tensor has.
// expected-error @+1 {{factor j is a dimension of no tensor}}
"test.op"() {r = #telar.sharding_rule<([i, bcast(j)]) -> ([i]) {i=2, j=3}>} : () -> ()

// -----

// expected-error @+1 {{factor i of unknown size must be the only factor of its dimension}}
"test.op"() {r = #telar.sharding_rule<([(i, j)]) -> ([i, j]) {i=?, j=2}>} : () -> ()

// -----

// expected-error @+1 {{expected ')'}}
"test.op"() {r = #telar.sharding_rule<([bcast(i, j)]) -> ([i, j]) {i=2, j=2}>} : () -> ()

// -----

//===----------------------------------------------------------------------===//
// Against the op's types
//===----------------------------------------------------------------------===//

func.func @matches(%x: tensor<2x128xf32>, %b: tensor<1x128xf32>, %u: tensor<2x1xf32>) {
  // A reshape of 128 into 4x32 is the product (j, k) against j and k.
  // expected-remark @+1 {{sharding rule matches the op's types}}
  "test.reshape"(%x) {sharding_rule = #telar.sharding_rule<([i, (j, k)]) -> ([i, j, k]) {i=2, j=4, k=32}>} : (tensor<2x128xf32>) -> tensor<2x4x32xf32>
  // expected-remark @+1 {{sharding rule matches the op's types}}
  "test.add"(%x, %b) {sharding_rule = #telar.sharding_rule<([i, j], [bcast(i), j]) -> ([i, j]) {i=2, j=128}>} : (tensor<2x128xf32>, tensor<1x128xf32>) -> tensor<2x128xf32>
  // expected-remark @+1 {{sharding rule matches the op's types}}
  "test.squeeze"(%u) {sharding_rule = #telar.sharding_rule<([i, ()]) -> ([i]) {i=2}>} : (tensor<2x1xf32>) -> tensor<2xf32>
  return
}

// -----

func.func @operand_count(%x: tensor<4xf32>) {
  // expected-error @+1 {{sharding rule has 2 operands but the op has 1}}
  "test.op"(%x) {sharding_rule = #telar.sharding_rule<([i], [i]) -> ([i]) {i=4}>} : (tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @result_count(%x: tensor<4xf32>) {
  // expected-error @+1 {{sharding rule has 0 results but the op has 1}}
  "test.op"(%x) {sharding_rule = #telar.sharding_rule<([i]) -> () {i=4}>} : (tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @rank(%x: tensor<4x2xf32>) {
  // expected-error @+1 {{sharding rule: operand 0 has 1 dimensions but its type 'tensor<4x2xf32>' has rank 2}}
  "test.op"(%x) {sharding_rule = #telar.sharding_rule<([i]) -> ([i]) {i=4}>} : (tensor<4x2xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @product(%x: tensor<128xf32>) {
  // expected-error @+1 {{sharding rule: dimension 0 of operand 0 'tensor<128xf32>': the factors' sizes multiply to 64}}
  "test.op"(%x) {sharding_rule = #telar.sharding_rule<([(i, j)]) -> ([i, j]) {i=4, j=16}>} : (tensor<128xf32>) -> tensor<4x16xf32>
  return
}

// -----

func.func @size(%x: tensor<4xf32>) {
  // expected-error @+1 {{sharding rule: dimension 0 of result 0 'tensor<8xf32>': the factors' sizes multiply to 4}}
  "test.op"(%x) {sharding_rule = #telar.sharding_rule<([i]) -> ([i]) {i=4}>} : (tensor<4xf32>) -> tensor<8xf32>
  return
}

// -----

// A broadcast dimension has size 1; a size-2 dimension is not broadcast.
func.func @broadcast_size(%x: tensor<4x2xf32>, %y: tensor<4x8xf32>) {
  // expected-error @+1 {{sharding rule: dimension 1 of operand 0 'tensor<4x2xf32>': a broadcast dimension must have size 1}}
  "test.op"(%x, %y) {sharding_rule = #telar.sharding_rule<([i, bcast(j)], [i, j]) -> ([i, j]) {i=4, j=8}>} : (tensor<4x2xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  return
}

// -----

// A unit dimension has size 1.
func.func @unit_size(%x: tensor<4x2xf32>) {
  // expected-error @+1 {{sharding rule: dimension 1 of operand 0 'tensor<4x2xf32>': the factors' sizes multiply to 1}}
  "test.op"(%x) {sharding_rule = #telar.sharding_rule<([i, ()]) -> ([i]) {i=4}>} : (tensor<4x2xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @dynamic_product(%x: tensor<?xf32>) {
  // expected-error @+1 {{sharding rule: dimension 0 of operand 0 'tensor<?xf32>': a dimension of unknown size must be one factor}}
  "test.op"(%x) {sharding_rule = #telar.sharding_rule<([(i, j)]) -> ([i, j]) {i=4, j=2}>} : (tensor<?xf32>) -> tensor<4x2xf32>
  return
}

// -----

func.func @dynamic_factor(%x: tensor<4xf32>) {
  // expected-error @+1 {{sharding rule: dimension 0 of operand 0 'tensor<4xf32>': factor i of unknown size in a static dimension}}
  "test.op"(%x) {sharding_rule = #telar.sharding_rule<([i]) -> ([i]) {i=?}>} : (tensor<4xf32>) -> tensor<4xf32>
  return
}
