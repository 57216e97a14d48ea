// RUN: telar-opt %s --allow-unregistered-dialect | FileCheck %s
// RUN: telar-opt %s --allow-unregistered-dialect | telar-opt --allow-unregistered-dialect | FileCheck %s

// #telar.sharding_rule and #telar.einsum print as they parse. Factor names
// are canonical when printed (i, j, ... in order of declaration), whatever
// the text used; a product of one factor prints as the factor.

// CHECK: "test.rule"() {rule = #telar.sharding_rule<([i, k], [k, j]) -> ([i, j]) {i=4, j=8, k=16} reduction={k:sum}>}
"test.rule"() {rule = #telar.sharding_rule<([i, k], [k, j]) -> ([i, j]) {i=4, j=8, k=16} reduction={k:sum}>} : () -> ()

// Reshape of 128 into 4x32: one dimension (j, k) against two.
// CHECK: "test.rule"() {rule = #telar.sharding_rule<([i, (j, k)]) -> ([i, j, k]) {i=2, j=4, k=32}>}
"test.rule"() {rule = #telar.sharding_rule<([i, (j, k)]) -> ([i, j, k]) {i=2, j=4, k=32}>} : () -> ()

// Broadcast, unit dims, kept-whole factors, unknown sizes, no operands.
// CHECK: "test.rule"() {rule = #telar.sharding_rule<([i, bcast(j), ()], [j, k]) -> ([i, j, k]) {i=?, j=8, k=3} need_replication={k}>}
"test.rule"() {rule = #telar.sharding_rule<([i, bcast(j), ()], [j, k]) -> ([i, j, k]) {i=?, j=8, k=3} need_replication={k}>} : () -> ()
// CHECK: "test.rule"() {rule = #telar.sharding_rule<() -> ([]) {}>}
"test.rule"() {rule = #telar.sharding_rule<() -> ([]) {}>} : () -> ()

// Every reduction kind, and need_replication together with reductions.
// CHECK: "test.rule"() {rule = #telar.sharding_rule<([i, j, k, l, m, n]) -> ([]) {i=1, j=2, k=3, l=4, m=5, n=6} reduction={i:sum, j:max, k:min, l:mean, m:prod} need_replication={n}>}
"test.rule"() {rule = #telar.sharding_rule<([i, j, k, l, m, n]) -> ([]) {i=1, j=2, k=3, l=4, m=5, n=6} reduction={i:sum, j:max, k:min, l:mean, m:prod} need_replication={n}>} : () -> ()

// Any names parse; they print canonically, the 19th factor as i_1.
// CHECK: "test.rule"() {rule = #telar.sharding_rule<([i, j]) -> ([i]) {i=2, j=3} reduction={j:max}>}
"test.rule"() {rule = #telar.sharding_rule<([rows, (cols)]) -> ([rows]) {rows=2, cols=3} reduction={cols:max}>} : () -> ()
// CHECK: "test.rule"() {rule = #telar.sharding_rule<([i, j, k, l, m, n, o, p, q, r, s, t, u, v, w, x, y, z, i_1]) -> ([i_1]) {i=1, j=1, k=1, l=1, m=1, n=1, o=1, p=1, q=1, r=1, s=1, t=1, u=1, v=1, w=1, x=1, y=1, z=1, i_1=2} reduction={i:sum}>}
"test.rule"() {rule = #telar.sharding_rule<([a, b, c, d, e, f, g, h, i, j, k, l, m, n, o, p, q, r, s]) -> ([s]) {a=1, b=1, c=1, d=1, e=1, f=1, g=1, h=1, i=1, j=1, k=1, l=1, m=1, n=1, o=1, p=1, q=1, r=1, s=2} reduction={a:sum}>} : () -> ()

// Partial operands: all alike (`any` is every partial kind), or one at a
// time among those listed, kinds joined by `|` in the order sum, max, min,
// prod.
// CHECK: "test.rule"() {rule = #telar.sharding_rule<([i, j], [i, j]) -> ([i, j]) {i=2, j=3} partial_alike={sum}>}
"test.rule"() {rule = #telar.sharding_rule<([i, j], [i, j]) -> ([i, j]) {i=2, j=3} partial_alike={sum}>} : () -> ()
// CHECK: "test.rule"() {rule = #telar.sharding_rule<([i]) -> ([i]) {i=2} partial_alike={any}>}
"test.rule"() {rule = #telar.sharding_rule<([i]) -> ([i]) {i=2} partial_alike={prod|min|max|sum}>} : () -> ()
// CHECK: "test.rule"() {rule = #telar.sharding_rule<([i, k], [k, j]) -> ([i, j]) {i=4, j=8, k=16} reduction={k:sum} partial_one={0:sum, 1:sum}>}
"test.rule"() {rule = #telar.sharding_rule<([i, k], [k, j]) -> ([i, j]) {i=4, j=8, k=16} reduction={k:sum} partial_one={1:sum, 0:sum}>} : () -> ()
// CHECK: "test.rule"() {rule = #telar.sharding_rule<([i, j], [i]) -> ([i, j]) {i=2, j=3} need_replication={j} partial_one={0:max|min}>}
"test.rule"() {rule = #telar.sharding_rule<([i, j], [i]) -> ([i, j]) {i=2, j=3} need_replication={j} partial_one={0:min|max}>} : () -> ()

// CHECK: "test.einsum"() {equation = #telar.einsum<[b, s, d], [e, d, h] -> [b, s, e, h]>}
"test.einsum"() {equation = #telar.einsum<[b, s, d], [e, d, h] -> [b, s, e, h]>} : () -> ()
// CHECK: "test.einsum"() {equation = #telar.einsum<[i, i], [] -> []>}
"test.einsum"() {equation = #telar.einsum<[i, i], [] -> []>} : () -> ()
// CHECK: "test.einsum"() {equation = #telar.einsum<[A, Z, a, z] -> [z, Z]>}
"test.einsum"() {equation = #telar.einsum<[A, Z, a, z] -> [z, Z]>} : () -> ()
