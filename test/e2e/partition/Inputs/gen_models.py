# Writes test/e2e/partition/models.mlir (python3 gen_models.py models.mlir):
# programs as written and annotated for telar-partition, with seeded
# integer-valued inputs, for the numeric check of the partitioner.
import random, re, sys
random.seed(11)
def nest(v, shp):
    if len(shp)==1: return "["+", ".join(v)+"]"
    step=len(v)//shp[0]
    return "["+", ".join(nest(v[i*step:(i+1)*step], shp[1:]) for i in range(shp[0]))+"]"
def dense(shape, lo=-3, hi=3, kind="f"):
    n=1
    for d in shape: n*=d
    vals=[random.randint(lo,hi) for _ in range(n)]
    return nest([f"{x}.0" if kind=="f" else str(x) for x in vals], shape)
def ty(shape, et="f32"): return "tensor<"+"x".join(map(str,shape))+f"x{et}>"

progs = []  # (name, annotated body, ref body, args [(name, shape, et, values)], result shape)

# 1. Expert parallel einsum MoE with all-to-all dispatch/combine on "model", tokens on "model".
progs.append(dict(name="moe", args=[("x",[2,4,8],"f32"),("m",[2,4,4,2],"f32"),("w",[4,8,8],"f32")], result=([2,4,8],"f32"),
 annotated='''
    %sg = shard.sharding @mesh split_axes = [[1]] : !shard.sharding
    %xs = shard.shard %x to %sg : tensor<2x4x8xf32>
    %ms = shard.shard %m to %sg : tensor<2x4x4x2xf32>
    %d = telar.einsum %xs, %ms {equation = #telar.einsum<[g, s, d], [g, s, e, c] -> [e, g, c, d]>} : (tensor<2x4x8xf32>, tensor<2x4x4x2xf32>) -> tensor<4x2x2x8xf32>
    %sdg = shard.sharding @mesh split_axes = [[], [1]] : !shard.sharding
    %ds = shard.shard %d to %sdg : tensor<4x2x2x8xf32>
    %de = shard.shard %ds to %sg annotate_for_users : tensor<4x2x2x8xf32>
    %ws = shard.shard %w to %sg annotate_for_users : tensor<4x8x8xf32>
    %e = telar.einsum %de, %ws {equation = #telar.einsum<[e, g, c, d], [e, d, h] -> [e, g, c, h]>} : (tensor<4x2x2x8xf32>, tensor<4x8x8xf32>) -> tensor<4x2x2x8xf32>
    %es = shard.shard %e to %sg : tensor<4x2x2x8xf32>
    %eg = shard.shard %es to %sdg annotate_for_users : tensor<4x2x2x8xf32>
    %y = telar.einsum %eg, %ms {equation = #telar.einsum<[e, g, c, h], [g, s, e, c] -> [g, s, h]>} : (tensor<4x2x2x8xf32>, tensor<2x4x4x2xf32>) -> tensor<2x4x8xf32>
    %ys = shard.shard %y to %sg : tensor<2x4x8xf32>
    return %ys : tensor<2x4x8xf32>''',
 ref='''
    %d = telar.einsum %x, %m {equation = #telar.einsum<[g, s, d], [g, s, e, c] -> [e, g, c, d]>} : (tensor<2x4x8xf32>, tensor<2x4x4x2xf32>) -> tensor<4x2x2x8xf32>
    %e = telar.einsum %d, %w {equation = #telar.einsum<[e, g, c, d], [e, d, h] -> [e, g, c, h]>} : (tensor<4x2x2x8xf32>, tensor<4x8x8xf32>) -> tensor<4x2x2x8xf32>
    %y = telar.einsum %e, %m {equation = #telar.einsum<[e, g, c, h], [g, s, e, c] -> [g, s, h]>} : (tensor<4x2x2x8xf32>, tensor<2x4x4x2xf32>) -> tensor<2x4x8xf32>
    return %y : tensor<2x4x8xf32>'''))

# 2. Attention-like data movement: heads split on "model", batch on "data"; reshape, transpose,
#    batched matmul, reduce_mean over a split axis, strided reshape.
progs.append(dict(name="attention", args=[("x",[2,4,16],"f32"),("wq",[16,16],"f32")], result=([2,4],"f32"),
 annotated='''
    %sb = shard.sharding @mesh split_axes = [[0]] : !shard.sharding
    %xs = shard.shard %x to %sb : tensor<2x4x16xf32>
    %sc = shard.sharding @mesh split_axes = [[], [1]] : !shard.sharding
    %wqs = shard.shard %wq to %sc annotate_for_users : tensor<16x16xf32>
    %q = telar.matmul %xs, %wqs : (tensor<2x4x16xf32>, tensor<16x16xf32>) -> tensor<2x4x16xf32>
    %sq = shard.sharding @mesh split_axes = [[0], [], [1]] : !shard.sharding
    %qs = shard.shard %q to %sq : tensor<2x4x16xf32>
    %h = telar.reshape %qs {shape = array<i64: 2, 4, 4, 4>} : (tensor<2x4x16xf32>) -> tensor<2x4x4x4xf32>
    %sh = shard.sharding @mesh split_axes = [[0], [], [1], []] : !shard.sharding
    %hs = shard.shard %h to %sh : tensor<2x4x4x4xf32>
    %t = telar.transpose %hs {perm = array<i64: 0, 2, 1, 3>} : (tensor<2x4x4x4xf32>) -> tensor<2x4x4x4xf32>
    %st = shard.sharding @mesh split_axes = [[0], [1], [], []] : !shard.sharding
    %ts = shard.shard %t to %st : tensor<2x4x4x4xf32>
    %tt = telar.transpose %ts {perm = array<i64: 0, 1, 3, 2>} : (tensor<2x4x4x4xf32>) -> tensor<2x4x4x4xf32>
    %tts = shard.shard %tt to %st : tensor<2x4x4x4xf32>
    %s = telar.matmul %ts, %tts : (tensor<2x4x4x4xf32>, tensor<2x4x4x4xf32>) -> tensor<2x4x4x4xf32>
    %ss = shard.shard %s to %st : tensor<2x4x4x4xf32>
    %r = telar.reduce_mean %ss {axes = array<i64: 1, 3>, keepdims = false} : (tensor<2x4x4x4xf32>) -> tensor<2x4xf32>
    %sp = shard.sharding @mesh split_axes = [[0], []] {telar.partial = {model = "sum"}} : !shard.sharding
    %rs = shard.shard %r to %sp : tensor<2x4xf32>
    %srep = shard.sharding @mesh split_axes = [[], []] : !shard.sharding
    %out = shard.shard %rs to %srep annotate_for_users : tensor<2x4xf32>
    return %out : tensor<2x4xf32>''',
 ref='''
    %q = telar.matmul %x, %wq : (tensor<2x4x16xf32>, tensor<16x16xf32>) -> tensor<2x4x16xf32>
    %h = telar.reshape %q {shape = array<i64: 2, 4, 4, 4>} : (tensor<2x4x16xf32>) -> tensor<2x4x4x4xf32>
    %t = telar.transpose %h {perm = array<i64: 0, 2, 1, 3>} : (tensor<2x4x4x4xf32>) -> tensor<2x4x4x4xf32>
    %tt = telar.transpose %t {perm = array<i64: 0, 1, 3, 2>} : (tensor<2x4x4x4xf32>) -> tensor<2x4x4x4xf32>
    %s = telar.matmul %t, %tt : (tensor<2x4x4x4xf32>, tensor<2x4x4x4xf32>) -> tensor<2x4x4x4xf32>
    %r = telar.reduce_mean %s {axes = array<i64: 1, 3>, keepdims = false} : (tensor<2x4x4x4xf32>) -> tensor<2x4xf32>
    return %r : tensor<2x4xf32>'''))

# 3. Sequence split with a strided reshape, embedding gather, slice and concat, and a conv channel split.
progs.append(dict(name="mixed", args=[("ids",[2,4],"i64"),("table",[8,4],"f32"),("img",[1,4,4,4],"f32"),("cw",[4,4,3,3],"f32"),("cv",[2,4,1,1],"f32")], result=([1,2,4,4],"f32"),
 annotated='''
    %sseq = shard.sharding @mesh split_axes = [[], [0]] : !shard.sharding
    %idss = shard.shard %ids to %sseq : tensor<2x4xi64>
    %scol = shard.sharding @mesh split_axes = [[], [1]] : !shard.sharding
    %tabs = shard.shard %table to %scol annotate_for_users : tensor<8x4xf32>
    %e = telar.gather %tabs, %idss {axis = 0 : i64} : (tensor<8x4xf32>, tensor<2x4xi64>) -> tensor<2x4x4xf32>
    %se = shard.sharding @mesh split_axes = [[], [0], [1]] : !shard.sharding
    %es = shard.shard %e to %se : tensor<2x4x4xf32>
    %f = telar.reshape %es {shape = array<i64: 8, 4>} : (tensor<2x4x4xf32>) -> tensor<8x4xf32>
    %sf = shard.sharding @mesh split_axes = [[0], [1]] : !shard.sharding
    %fs = shard.shard %f to %sf : tensor<8x4xf32>
    %a = telar.slice %fs {axes = array<i64: 0>, starts = array<i64: 1>, ends = array<i64: 5>, steps = array<i64: 1>} : (tensor<8x4xf32>) -> tensor<4x4xf32>
    %sa = shard.sharding @mesh split_axes = [[], [1]] : !shard.sharding
    %as = shard.shard %a to %sa : tensor<4x4xf32>
    %c = telar.concat %as, %as {axis = 1 : i64} : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x8xf32>
    %cr = telar.reshape %c {shape = array<i64: 1, 2, 4, 4>} : (tensor<4x8xf32>) -> tensor<1x2x4x4xf32>
    %sch = shard.sharding @mesh split_axes = [[], [1]] : !shard.sharding
    %cws = shard.shard %cw to %sch annotate_for_users : tensor<4x4x3x3xf32>
    %sco = shard.sharding @mesh split_axes = [[1]] : !shard.sharding
    %cw2 = shard.shard %cws to %sco annotate_for_users : tensor<4x4x3x3xf32>
    %k = telar.conv %img, %cw2 {dilations = array<i64: 1, 1>, group = 1 : i64, kernel_shape = array<i64: 3, 3>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : (tensor<1x4x4x4xf32>, tensor<4x4x3x3xf32>) -> tensor<1x4x4x4xf32>
    %sk = shard.sharding @mesh split_axes = [[], [1]] : !shard.sharding
    %ks = shard.shard %k to %sk : tensor<1x4x4x4xf32>
    %cvs = shard.shard %cv to %sch annotate_for_users : tensor<2x4x1x1xf32>
    %v = telar.conv %ks, %cvs {dilations = array<i64: 1, 1>, group = 1 : i64, kernel_shape = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x4x4x4xf32>, tensor<2x4x1x1xf32>) -> tensor<1x2x4x4xf32>
    %sp = shard.sharding @mesh split_axes = [[]] {telar.partial = {model = "sum"}} : !shard.sharding
    %vs = shard.shard %v to %sp : tensor<1x2x4x4xf32>
    %srep = shard.sharding @mesh split_axes = [[]] : !shard.sharding
    %vr = shard.shard %vs to %srep annotate_for_users : tensor<1x2x4x4xf32>
    %o = telar.add %vr, %cr : (tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
    %sout = shard.sharding @mesh split_axes = [[], [], [0, 1]] : !shard.sharding
    %os = shard.shard %o to %sout : tensor<1x2x4x4xf32>
    return %os : tensor<1x2x4x4xf32>''',
 ref='''
    %e = telar.gather %table, %ids {axis = 0 : i64} : (tensor<8x4xf32>, tensor<2x4xi64>) -> tensor<2x4x4xf32>
    %f = telar.reshape %e {shape = array<i64: 8, 4>} : (tensor<2x4x4xf32>) -> tensor<8x4xf32>
    %a = telar.slice %f {axes = array<i64: 0>, starts = array<i64: 1>, ends = array<i64: 5>, steps = array<i64: 1>} : (tensor<8x4xf32>) -> tensor<4x4xf32>
    %c = telar.concat %a, %a {axis = 1 : i64} : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x8xf32>
    %cr = telar.reshape %c {shape = array<i64: 1, 2, 4, 4>} : (tensor<4x8xf32>) -> tensor<1x2x4x4xf32>
    %k = telar.conv %img, %cw {dilations = array<i64: 1, 1>, group = 1 : i64, kernel_shape = array<i64: 3, 3>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : (tensor<1x4x4x4xf32>, tensor<4x4x3x3xf32>) -> tensor<1x4x4x4xf32>
    %v = telar.conv %k, %cv {dilations = array<i64: 1, 1>, group = 1 : i64, kernel_shape = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x4x4x4xf32>, tensor<2x4x1x1xf32>) -> tensor<1x2x4x4xf32>
    %o = telar.add %v, %cr : (tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
    return %o : tensor<1x2x4x4xf32>'''))

out = ['''// Numeric checks of telar-partition beyond the MLP (megatron.mlir says
// how): expert parallel all-to-all, heads and batch through reshapes,
// transposes, batched matmuls and a split mean; a sequence-split
// embedding through a strided reshape, slice and concat; a channel-split
// convolution pair. Each program prints its output as written, then
// partitioned on a 2x2 mesh; the two must agree.
// RUN: telar-opt %s --verify-each=0 -telar-partition -test-telar-simulate-ranks | telar-opt %lower_standalone | %mlir_runner -e entry | FileCheck %s
''']
for p in progs:
    out.append(f'''
// {p["name"]}
// CHECK: data =
// CHECK-NEXT: {{{{\\[}}}}[[{p["name"].upper()}:.*]]
// CHECK: data =
// CHECK-NEXT: {{{{\\[}}}}[[{p["name"].upper()}]]''')
out.append('module {\n  shard.grid @mesh(shape = 2x2) {telar.axis_names = ["data", "model"]}')
entry=[]
for p in progs:
    sig=", ".join(f"%{n}: {ty(s,e)}" for n,s,e in p["args"])
    rt=ty(*p["result"])
    out.append(f'  func.func @{p["name"]}({sig}) -> {rt} {{{p["annotated"]}\n  }}')
    out.append(f'  func.func @{p["name"]}_ref({sig}) -> {rt} {{{p["ref"]}\n  }}')
    argn=[]
    for n,s,e in p["args"]:
        if e=="i64":
            entry.append(f'    %{p["name"]}_{n} = telar.constant dense<{dense(s,0,7,"i")}> : {ty(s,e)}')
        else:
            entry.append(f'    %{p["name"]}_{n} = telar.constant dense<{dense(s)}> : {ty(s,e)}')
        argn.append(f'%{p["name"]}_{n}')
    types=", ".join(ty(s,e) for n,s,e in p["args"])
    n=1
    for d in p["result"][0]: n*=d
    rs=p["result"][0]; idx="[["+", ".join(str(i) for i in range(len(rs)))+"]]"
    for suffix,tag in (("_ref","a"),("","b")):
        v=f'%{p["name"]}_{tag}'
        entry.append(f'    {v} = call @{p["name"]}{suffix}({", ".join(argn)}) : ({types}) -> {rt}')
        entry.append(f'    {v}f = tensor.collapse_shape {v} {idx} : {rt} into tensor<{n}xf32>')
        entry.append(f'    {v}u = tensor.cast {v}f : tensor<{n}xf32> to tensor<*xf32>')
        entry.append(f'    call @printMemrefF32({v}u) : (tensor<*xf32>) -> ()')
out.append('  func.func @entry() {\n'+"\n".join(entry)+'\n    return\n  }')
out.append('  func.func private @printMemrefF32(tensor<*xf32>)\n}')
open(sys.argv[1],'w').write("\n".join(out)+"\n")
