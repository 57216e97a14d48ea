#!/usr/bin/env python3
"""Models for the planner's scenario tests: big enough to matter on a100-80g, free on disk.

Usage:
    .venv/bin/python python/telar_testing/planner_models.py --out DIR [--only mlp_1tok,moe]
    .venv/bin/python python/telar_testing/planner_models.py --list
    .venv/bin/python python/telar_testing/planner_models.py --out DIR --check-import \\
        [--telarc build/bin/telarc]

Every model NAME is written to DIR/NAME/model.onnx with its weights in ONE
external data file DIR/NAME/weights.bin that is created SPARSE: opened,
truncated to its size, no byte written. It reads as zeros and takes no disk
blocks, so a model of hundreds of GB costs nothing (only planning makes sense
on these models: `telarc --emit=plan|mlir --elide-weights`; compiling one with
`--target` would copy the weights). Small constants (Reshape shapes, scales)
are ordinary initializers in model.onnx. ONNX opset 18 (as make_models.py's
onnx.helper models), fp32 unless a builder says otherwise; every tensor is
static, batch 1 unless said. `--check-import` imports every model written with
`telarc model.onnx --emit=mlir --elide-weights` and prints wall time, peak RSS
and the blocks the weights file occupies before and after (an import that read
the data would page it in: RSS near the weights' size; one that wrote it would
allocate blocks).

Models (names are the ONNX value names; per-layer names with i = 0..layers-1):

  mlp_1tok     one MLP block at ONE token (no batch to split):
               x [1, 12288] -> MatMul w1 [12288, 49152] -> Relu -> MatMul w2
               [49152, 12288] -> Add residual -> y [1, 12288].  4.8 GB of weights:
               fits one device, but reading the weights is the whole latency.
  mlp_big      24 such blocks (GPT-3 175B's MLP width) at 8 tokens:
               x [8, 12288], layers.i.w1 [12288, 49152], layers.i.w2 [49152, 12288],
               116 GB of weights: beyond one 80 GiB device, 14.5 GB per device
               on 8.
  attention    a multi-head self-attention block at batch 1 (GPT-3 175B's width):
               x [1, 2048, 12288]; layers.i.{wq,wk,wv,wo} [12288, 12288]; 96 heads
               of 128; q/k/v [1, 2048, 12288] -> Reshape [1, 2048, 96, 128] ->
               Transpose to [1, 96, 2048, 128] (k to [1, 96, 128, 2048]), scores
               [1, 96, 2048, 2048] * 1/sqrt(128), Softmax, @ v, Transpose back,
               Reshape [1, 2048, 12288], @ wo, + residual. 1 layer: 2.4 GB.
  attention_big  the same block 40 times (layers.0..39): 96.6 GB of weights.
  attention_decode  the same attention at ONE token, one decoding step with a KV
               cache: x [1, 1, 12288], graph inputs past_k / past_v [1, 96, 2047,
               128]; layers.0.{wq,wk,wv,wo} [12288, 12288]; the token's k/v
               Concat-ed to the cache -> present_k / present_v [1, 96, 2048, 128]
               (outputs), scores layers.0.probs [1, 96, 1, 2048], y [1, 1, 12288].
               2.4 GB of weights, nothing to split but weights, heads or the cache.
  moe          a GShard top-2 MoE layer, grouped einsum form, 8 experts:
               x [8, 512, 16384] (8 groups of 512 tokens, d 16384), gate wg
               [16384, 8]; logits = Einsum(gsd,de->gse), Softmax, TopK k=2,
               normalised; per choice OneHot mask, CumSum slot within the group,
               capacity C = 128 per group and expert (capacity factor 1.0), drop
               overflow, OneHot slot; combine [8, 512, 8, 128] (gsec), dispatch =
               combine > 0; dispatched = Einsum(gsec,gsd->egcd) [8, 8, 128, 16384];
               expert weights w1 [8, 16384, 98304] (E, d, f) and w2 [8, 98304,
               16384]: hidden = Relu(Einsum(egcd,edf->egcf)), expert_out =
               Einsum(egcf,efd->egcd), y = Einsum(gsec,egcd->gsd) [8, 512, 16384].
               103 GB of expert weights: beyond one device, 12.9 GB per device
               with one expert per device.
  too_big      96 MLP blocks of width 16384 at one token: x [1, 16384],
               layers.i.w1 [16384, 65536], layers.i.w2 [65536, 16384]: 825 GB of
               weights, more than 8 x 80 GiB (687 GB): "does not fit" on 8
               devices (it needs at least 10).
  resnet18_b64 not built by default (needs torch; `--only resnet18_b64`):
               make_models' ResNet-18 (torchvision, --size bench: 224x224) at batch
               64 in DIR/resnet18_b64/resnet18.onnx: input [64, 3, 224, 224], logits
               [64, 1000], 47 MB of real weights (inline).

MLP node outputs per block: layers.i.h (x @ w1), layers.i.act, layers.i.out
(@ w2), layers.i.y (residual); attention's: layers.i.{q,k,v} (projections),
layers.i.{q,k,v}_split, layers.i.{q,k,v}_heads, layers.i.qk, layers.i.scores,
layers.i.probs, layers.i.context, layers.i.context_t, layers.i.context_merged,
layers.i.out, layers.i.y; the graph output y is an Identity of the last one
(a plan names the last layers.i.y, not y). `build_gpt` builds the GPT-3-style
decoders of bench/search_time and bench/plan_quality (its docstring has the
names).

Measured (`--check-import`, 2-core development machine): every model imports
in 0.04-0.05 s at ~105 MB peak RSS (telarc's own baseline: the importer
memory-maps external data and never reads it), weights.bin stays at 0 blocks.

`--expert-plans N` also writes DIR/NAME/expert_N.json, the plan an expert
writes by hand on N devices (`expert_plan`): Megatron's column-then-row
split of every MLP block on "model" (mlp_*, too_big), the head split of
attention (q/k/v weights by columns, wo by rows), expert parallelism of the
MoE (x's groups and the experts of w1/w2 on "expert"), data parallelism of
resnet18_b64 ("input" on "data"). The planner's scenario tests compare the
planner's plan with these.

Weights are zeros (sparse): every value is well defined, the numbers are
meaningless.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)

OPSET = 18
ALIGN = 64  # every external tensor starts on a 64-byte boundary (the importer
            # memory-maps aligned tensors without copying)


def onnx_dtype(name):
    from onnx import TensorProto as TP
    return {"f32": TP.FLOAT, "f16": TP.FLOAT16, "bf16": TP.BFLOAT16,
            "i64": TP.INT64}[name]


def dtype_bytes(name):
    return {"f32": 4, "f16": 2, "bf16": 2, "i64": 8}[name]


class SparseModelBuilder:
    """An ONNX graph whose big initializers live in one sparse external file.

    `weight(name, shape)` declares an external tensor (no data); `const_*`
    makes a small inline initializer; `node(op, inputs, output_name)` adds a
    node whose output is named explicitly. `save(dir)` writes dir/model.onnx
    and dir/weights.bin (sparse, truncated to the total size)."""

    def __init__(self, name, dtype="f32", weights_file="weights.bin"):
        self.name = name
        self.dtype = dtype
        self.weights_file = weights_file
        self.nodes, self.inits, self.inputs, self.outputs = [], [], [], []
        self.offset = 0
        self.weight_bytes = 0
        self.weight_count = 0
        self.params = 0
        self.names = set()
        self.counter = 0

    def _claim(self, name):
        if name in self.names:
            raise ValueError(f"{self.name}: value name {name!r} used twice")
        self.names.add(name)
        return name

    def fresh(self, hint):
        self.counter += 1
        return f"{hint}_{self.counter}"

    def weight(self, name, shape, dtype=None):
        from onnx import TensorProto
        dtype = dtype or self.dtype
        t = TensorProto()
        t.name = self._claim(name)
        t.data_type = onnx_dtype(dtype)
        t.dims.extend(int(d) for d in shape)
        n = int(np.prod(shape, dtype=np.int64))
        nbytes = n * dtype_bytes(dtype)
        self.offset = (self.offset + ALIGN - 1) // ALIGN * ALIGN
        t.data_location = TensorProto.EXTERNAL
        for k, v in (("location", self.weights_file), ("offset", str(self.offset)),
                     ("length", str(nbytes))):
            e = t.external_data.add()
            e.key, e.value = k, v
        self.offset += nbytes
        self.weight_bytes += nbytes
        self.weight_count += 1
        self.params += n
        self.inits.append(t)
        return name

    def _const(self, array, hint):
        from onnx import numpy_helper
        name = self._claim(self.fresh(hint))
        self.inits.append(numpy_helper.from_array(np.ascontiguousarray(array), name))
        return name

    def const_i64(self, values, hint="c"):
        return self._const(np.asarray(values, dtype=np.int64), hint)

    def const_float(self, values, hint="c", dtype=None):
        np_t = {"f32": np.float32, "f16": np.float16}[dtype or self.dtype]
        return self._const(np.asarray(values, dtype=np_t), hint)

    def node(self, op_type, inputs, output=None, outputs=None, **attrs):
        """Adds a node; `output` names its one output (default a fresh name
        from the op type), `outputs` names several. Returns the name(s)."""
        from onnx import helper
        names = outputs or [output or self.fresh(op_type.lower())]
        for n in names:
            self._claim(n)
        self.nodes.append(helper.make_node(op_type, list(inputs), list(names),
                                           name=f"n_{names[0]}", **attrs))
        return names if outputs else names[0]

    def input(self, name, shape, dtype=None):
        from onnx import helper
        self.inputs.append(helper.make_tensor_value_info(
            self._claim(name), onnx_dtype(dtype or self.dtype), list(shape)))
        return name

    def output(self, value, shape, dtype=None):
        """Declares `value` (a node output) a graph output."""
        from onnx import helper
        self.outputs.append(helper.make_tensor_value_info(
            value, onnx_dtype(dtype or self.dtype), list(shape)))

    def model(self):
        from onnx import helper
        g = helper.make_graph(self.nodes, self.name, self.inputs, self.outputs,
                              initializer=self.inits)
        m = helper.make_model(g, opset_imports=[helper.make_opsetid("", OPSET)],
                              producer_name="telar_testing.planner_models")
        m.ir_version = 8
        return m

    def save(self, out_dir, check=True):
        """Writes out_dir/model.onnx and the sparse out_dir/weights.bin; returns
        the model's path."""
        import onnx
        os.makedirs(out_dir, exist_ok=True)
        path = os.path.join(out_dir, "model.onnx")
        wpath = os.path.join(out_dir, self.weights_file)
        if os.path.exists(wpath):
            os.remove(wpath)  # truncate() of an existing file keeps its blocks
        with open(wpath, "wb") as f:
            f.truncate(self.offset)  # sparse: no block written, reads as zeros
        m = self.model()
        onnx.save(m, path)
        if check:
            # The path form checks the external data locations without loading them.
            onnx.checker.check_model(path)
        return path


def describe(b):
    return (f"{b.params / 1e9:.2f}B params, {b.weight_bytes / 1e9:.1f} GB of {b.dtype} "
            f"weights in {b.weight_count} external tensors, {len(b.nodes)} nodes")


# --------------------------------------------------------------------- MLP
def mlp_blocks(b, x, tokens, hidden, ffn, layers, act="relu", prefix="layers"):
    """`layers` residual MLP blocks on x [tokens, hidden]:
    x = x + act(x @ w1) @ w2 (Megatron's MLP without biases)."""
    for i in range(layers):
        p = f"{prefix}.{i}."
        w1 = b.weight(p + "w1", [hidden, ffn])
        w2 = b.weight(p + "w2", [ffn, hidden])
        h = b.node("MatMul", [x, w1], p + "h")
        a = activation(b, h, act, p + "act")
        o = b.node("MatMul", [a, w2], p + "out")
        x = b.node("Add", [x, o], p + "y")
    return x


def activation(b, h, act, name):
    if act == "relu":
        return b.node("Relu", [h], name)
    if act == "gelu":  # erf form, as torch exports nn.GELU at opset 18
        r2 = b.const_float(1.0 / np.sqrt(2.0), "inv_sqrt2")
        one = b.const_float(1.0, "one")
        half = b.const_float(0.5, "half")
        e = b.node("Erf", [b.node("Mul", [h, r2])])
        return b.node("Mul", [b.node("Mul", [h, b.node("Add", [e, one])]), half], name)
    raise ValueError(f"unknown activation {act!r}")


def build_mlp(tokens=1, hidden=12288, ffn=None, layers=1, act="relu", dtype="f32",
              name="mlp"):
    ffn = ffn or 4 * hidden
    b = SparseModelBuilder(name, dtype)
    x = b.input("x", [tokens, hidden])
    y = mlp_blocks(b, x, tokens, hidden, ffn, layers, act)
    y = b.node("Identity", [y], "y")
    b.output(y, [tokens, hidden])
    return b


# --------------------------------------------------------------- attention
def attention_block(b, x, batch, seq, d, heads, p):
    """Multi-head self-attention with a residual: x [batch, seq, d] -> [batch, seq, d]."""
    hd = d // heads
    wq, wk, wv, wo = (b.weight(p + n, [d, d]) for n in ("wq", "wk", "wv", "wo"))
    split_shape = b.const_i64([batch, seq, heads, hd], "heads_shape")
    merged_shape = b.const_i64([batch, seq, d], "merged_shape")

    def heads_of(w, n, perm):
        proj = b.node("MatMul", [x, w], p + n)                       # [B, T, d]
        r = b.node("Reshape", [proj, split_shape], p + n + "_split")   # [B, T, H, hd]
        return b.node("Transpose", [r], p + n + "_heads", perm=perm)

    q = heads_of(wq, "q", [0, 2, 1, 3])                               # [B, H, T, hd]
    kt = heads_of(wk, "k", [0, 2, 3, 1])                              # [B, H, hd, T]
    v = heads_of(wv, "v", [0, 2, 1, 3])                               # [B, H, T, hd]
    scale = b.const_float(1.0 / np.sqrt(hd), "scale")
    s = b.node("Mul", [b.node("MatMul", [q, kt], p + "qk"), scale], p + "scores")
    a = b.node("Softmax", [s], p + "probs", axis=-1)                  # [B, H, T, T]
    o = b.node("MatMul", [a, v], p + "context")                       # [B, H, T, hd]
    o = b.node("Transpose", [o], p + "context_t", perm=[0, 2, 1, 3])  # [B, T, H, hd]
    o = b.node("Reshape", [o, merged_shape], p + "context_merged")    # [B, T, d]
    o = b.node("MatMul", [o, wo], p + "out")
    return b.node("Add", [x, o], p + "y")


def build_attention(batch=1, seq=2048, d=12288, heads=96, layers=1, dtype="f32",
                    name="attention"):
    b = SparseModelBuilder(name, dtype)
    x = b.input("x", [batch, seq, d])
    for i in range(layers):
        x = attention_block(b, x, batch, seq, d, heads, f"layers.{i}.")
    b.output(b.node("Identity", [x], "y"), [batch, seq, d])
    return b


def build_attention_decode(past=2047, d=12288, heads=96, dtype="f32",
                           name="attention_decode"):
    """One decoding step of multi-head self-attention at ONE token with a KV
    cache: x [1, 1, d] (the new token), past_k / past_v [1, H, past, hd]
    (graph inputs: the cache of the earlier tokens); q/k/v projections of the
    token, its k and v appended to the cache (Concat on the sequence dim ->
    [1, H, past + 1, hd]), scores [1, H, 1, past + 1], Softmax, context, output
    projection, residual. Outputs y [1, 1, d] and the grown cache present_k /
    present_v."""
    hd = d // heads
    T = past + 1
    b = SparseModelBuilder(name, dtype)
    x = b.input("x", [1, 1, d])
    past_k = b.input("past_k", [1, heads, past, hd])
    past_v = b.input("past_v", [1, heads, past, hd])
    p = "layers.0."
    wq, wk, wv, wo = (b.weight(p + n, [d, d]) for n in ("wq", "wk", "wv", "wo"))
    split_shape = b.const_i64([1, 1, heads, hd], "heads_shape")
    merged_shape = b.const_i64([1, 1, d], "merged_shape")

    def heads_of(w, n):
        proj = b.node("MatMul", [x, w], p + n)                              # [1, 1, d]
        r = b.node("Reshape", [proj, split_shape], p + n + "_split")          # [1, 1, H, hd]
        return b.node("Transpose", [r], p + n + "_heads", perm=[0, 2, 1, 3])  # [1, H, 1, hd]

    q = heads_of(wq, "q")
    k = b.node("Concat", [past_k, heads_of(wk, "k")], "present_k", axis=2)  # [1, H, T, hd]
    v = b.node("Concat", [past_v, heads_of(wv, "v")], "present_v", axis=2)
    kt = b.node("Transpose", [k], p + "kt", perm=[0, 1, 3, 2])              # [1, H, hd, T]
    scale = b.const_float(1.0 / np.sqrt(hd), "scale")
    s = b.node("Mul", [b.node("MatMul", [q, kt], p + "qk"), scale], p + "scores")
    a = b.node("Softmax", [s], p + "probs", axis=-1)                        # [1, H, 1, T]
    o = b.node("MatMul", [a, v], p + "context")                             # [1, H, 1, hd]
    o = b.node("Transpose", [o], p + "context_t", perm=[0, 2, 1, 3])
    o = b.node("Reshape", [o, merged_shape], p + "context_merged")
    o = b.node("MatMul", [o, wo], p + "out")
    y = b.node("Add", [x, o], "y")
    b.output(y, [1, 1, d])
    b.output(k, [1, heads, T, hd])
    b.output(v, [1, heads, T, hd])
    return b


# --------------------------------------------------------------------- MoE
def build_moe(groups=8, group_size=512, d=16384, ffn=98304, experts=8, k=2,
              capacity_factor=1.0, dtype="f32", name="moe"):
    """GShard top-2 MoE layer in its grouped einsum form (per-group capacity),
    as make_torch_models.GShardGroupedMoE without biases."""
    from onnx import TensorProto as TP
    G, S, E = groups, group_size, experts
    C = int(np.ceil(capacity_factor * k * S / E))
    b = SparseModelBuilder(name, dtype)
    x = b.input("x", [G, S, d])
    wg = b.weight("wg", [d, E])
    w1 = b.weight("w1", [E, d, ffn])
    w2 = b.weight("w2", [E, ffn, d])
    logits = b.node("Einsum", [x, wg], "gate_logits", equation="gsd,de->gse")
    gates = b.node("Softmax", [logits], "gates", axis=-1)
    top_val, top_idx = b.node("TopK", [gates, b.const_i64([k], "k")],
                              outputs=["top_val", "top_idx"], axis=-1, largest=1, sorted=1)
    last = b.const_i64([-1], "last_axis")
    group_axis = b.const_i64([1], "group_axis")
    if k == 2:
        norm = b.node("ReduceSum", [top_val, last], "top_sum", keepdims=1)
        top_val = b.node("Div", [top_val, norm], "top_w")
    one_hot_e = b.const_float([0.0, 1.0], "onehot_values")
    depth_e = b.const_i64([E], "num_experts")
    depth_c = b.const_i64([C], "capacity")
    cap = b.const_float(float(C), "capacity_f")
    one = b.const_float(1.0, "one")
    combine = prior = None
    for i in range(k):
        sel = b.const_i64([i], f"choice{i}")
        idx = b.node("Squeeze", [b.node("Gather", [top_idx, sel], axis=2), last],
                     f"choice{i}.expert")                                    # [G, S]
        val = b.node("Squeeze", [b.node("Gather", [top_val, sel], axis=2), last],
                     f"choice{i}.weight")                                    # [G, S]
        mask = b.node("OneHot", [idx, depth_e, one_hot_e], f"choice{i}.mask",
                      axis=-1)                                              # [G, S, E]
        loc = b.node("Sub", [b.node("CumSum", [mask, b.const_i64(1, "axis")]), one],
                     f"choice{i}.slot")            # slot within the group's buffer
        if prior is not None:
            loc = b.node("Add", [loc, prior], f"choice{i}.slot_after_prior")
        keep = b.node("Cast", [b.node("Less", [loc, cap])], f"choice{i}.fits",
                      to=onnx_dtype(dtype))
        mask = b.node("Mul", [mask, keep], f"choice{i}.kept")           # drop overflow
        used = b.node("ReduceSum", [mask, group_axis], f"choice{i}.used", keepdims=1)
        prior = used if prior is None else b.node("Add", [prior, used], f"choice{i}.prior")
        slot = b.node("Cast", [b.node("ReduceSum", [b.node("Mul", [loc, mask]), last],
                                      keepdims=0)], f"choice{i}.slot_index", to=TP.INT64)
        slot_oh = b.node("OneHot", [slot, depth_c, one_hot_e], f"choice{i}.slot_onehot",
                         axis=-1)                                           # [G, S, C]
        gate = b.node("Mul", [val, b.node("ReduceSum", [mask, last], keepdims=0)],
                      f"choice{i}.gate")                                    # [G, S]
        term = b.node("Einsum", [gate, mask, slot_oh], f"choice{i}.combine",
                      equation="gs,gse,gsc->gsec")
        combine = term if combine is None else b.node("Add", [combine, term], "combine")
    zero = b.const_float(0.0, "zero")
    dispatch = b.node("Cast", [b.node("Greater", [combine, zero])], "dispatch",
                      to=onnx_dtype(dtype))                                 # [G, S, E, C]
    xe = b.node("Einsum", [dispatch, x], "dispatched", equation="gsec,gsd->egcd")
    hid = b.node("Relu", [b.node("Einsum", [xe, w1], "expert_h",
                                 equation="egcd,edf->egcf")], "expert_act")
    ye = b.node("Einsum", [hid, w2], "expert_out", equation="egcf,efd->egcd")
    y = b.node("Einsum", [combine, ye], "y", equation="gsec,egcd->gsd")
    b.output(y, [G, S, d])
    b.capacity = C
    return b


# --------------------------------------------------------------------- GPT
def gpt_layer(b, x, batch, seq, d, heads, ffn, p, mask):
    """One pre-LayerNorm GPT-2/3 decoder layer (Megatron-LM's layout, separate
    q/k/v weights so that a column split is a split by whole heads):
        x = x + proj(attention(ln_1(x)));  x = x + fc2(gelu(fc1(ln_2(x))))
    x [batch, seq, d]. Weights (ONNX MatMul layout [in, out]):
        p+"ln_1.weight|bias" [d]; p+"attn.{q,k,v}.weight" [d, d], .bias [d];
        p+"attn.proj.weight" [d, d], .bias [d]; p+"ln_2.weight|bias" [d];
        p+"mlp.fc1.weight" [d, ffn], .bias [ffn]; p+"mlp.fc2.weight" [ffn, d], .bias [d].
    Node outputs: p+"ln_1", p+"attn.{q,k,v}" [B, T, d] (projection + bias),
    p+"attn.{q,k,v}_heads" ([B, H, T, hd]; k as [B, H, hd, T]), p+"attn.scores",
    p+"attn.probs" [B, H, T, T], p+"attn.context" [B, H, T, hd],
    p+"attn.context_merged" [B, T, d], p+"attn.out" [B, T, d] (projection + bias),
    p+"attn.y" (residual), p+"ln_2", p+"mlp.h" [B, T, ffn] (fc1 + bias), p+"mlp.act",
    p+"mlp.out" [B, T, d] (fc2 + bias), p+"y" (residual)."""
    hd = d // heads
    W = lambda n, shape: b.weight(p + n, shape)  # noqa: E731
    split_shape = b.const_i64([batch, seq, heads, hd], "heads_shape")
    merged_shape = b.const_i64([batch, seq, d], "merged_shape")

    def layer_norm(v, name):
        return b.node("LayerNormalization", [v, W(name + ".weight", [d]),
                                              W(name + ".bias", [d])], p + name,
                      axis=-1, epsilon=1e-5)

    def linear(v, name, n_in, n_out, out):
        mm = b.node("MatMul", [v, W(name + ".weight", [n_in, n_out])], out + "_mm")
        return b.node("Add", [mm, W(name + ".bias", [n_out])], out)

    h = layer_norm(x, "ln_1")

    def heads_of(n, perm):
        proj = linear(h, f"attn.{n}", d, d, p + f"attn.{n}")
        r = b.node("Reshape", [proj, split_shape], p + f"attn.{n}_split")
        return b.node("Transpose", [r], p + f"attn.{n}_heads", perm=perm)

    q = heads_of("q", [0, 2, 1, 3])
    kt = heads_of("k", [0, 2, 3, 1])
    v = heads_of("v", [0, 2, 1, 3])
    scale = b.const_float(1.0 / np.sqrt(hd), "scale")
    s = b.node("Mul", [b.node("MatMul", [q, kt], p + "attn.qk"), scale], p + "attn.scaled")
    s = b.node("Add", [s, mask], p + "attn.scores")
    a = b.node("Softmax", [s], p + "attn.probs", axis=-1)
    o = b.node("MatMul", [a, v], p + "attn.context")
    o = b.node("Transpose", [o], p + "attn.context_t", perm=[0, 2, 1, 3])
    o = b.node("Reshape", [o, merged_shape], p + "attn.context_merged")
    o = linear(o, "attn.proj", d, d, p + "attn.out")
    x = b.node("Add", [x, o], p + "attn.y")
    h = layer_norm(x, "ln_2")
    h = linear(h, "mlp.fc1", d, ffn, p + "mlp.h")
    h = activation(b, h, "gelu", p + "mlp.act")
    h = linear(h, "mlp.fc2", ffn, d, p + "mlp.out")
    return b.node("Add", [x, h], p + "y")


def build_gpt(layers, d, heads, batch=1, seq=2048, vocab=51200, ffn=None, dtype="f16",
              embeddings=True, first_layer=0, name="gpt"):
    """A GPT-3-style decoder (GPT-3 paper: pre-LN, learned positions, GELU MLP
    of 4d, untied LM head here). With `embeddings`: input_ids int64 [batch, seq]
    -> Gather("wte" [vocab, d]) + "wpe" [seq, d] -> layers -> "ln_f" -> MatMul
    "lm_head" [d, vocab] -> logits [batch, seq, vocab]. Without: one pipeline
    stage's layers only, x [batch, seq, d] -> y [batch, seq, d] (hidden states
    in and out). Layers are named h.{first_layer + i}. The causal mask is the
    weight "causal_mask" [1, 1, seq, seq] (zeros here: weights are sparse)."""
    ffn = ffn or 4 * d
    b = SparseModelBuilder(name, dtype)
    if embeddings:
        ids = b.input("input_ids", [batch, seq], "i64")
        tok = b.node("Gather", [b.weight("wte", [vocab, d]), ids], "tok_emb", axis=0)
        x = b.node("Add", [tok, b.weight("wpe", [seq, d])], "emb")
    else:
        x = b.input("x", [batch, seq, d])
    mask = b.weight("causal_mask", [1, 1, seq, seq])
    for i in range(layers):
        x = gpt_layer(b, x, batch, seq, d, heads, ffn, f"h.{first_layer + i}.", mask)
    if embeddings:
        x = b.node("LayerNormalization", [x, b.weight("ln_f.weight", [d]),
                                          b.weight("ln_f.bias", [d])], "ln_f",
                   axis=-1, epsilon=1e-5)
        y = b.node("MatMul", [x, b.weight("lm_head", [d, vocab])], "logits")
        b.output(y, [batch, seq, vocab])
    else:
        y = b.node("Identity", [x], "y")
        b.output(y, [batch, seq, d])
    return b


# ---------------------------------------------------------------- registry
BUILDERS = {
    "mlp_1tok": lambda: build_mlp(tokens=1, hidden=12288, layers=1, name="mlp_1tok"),
    "mlp_big": lambda: build_mlp(tokens=8, hidden=12288, layers=24, name="mlp_big"),
    "attention": lambda: build_attention(layers=1, name="attention"),
    "attention_big": lambda: build_attention(layers=40, name="attention_big"),
    "attention_decode": lambda: build_attention_decode(),
    "moe": lambda: build_moe(),
    "too_big": lambda: build_mlp(tokens=1, hidden=16384, layers=96, name="too_big"),
}


# The plan an expert writes by hand for each scenario on `n` devices (plan.json
# dicts; the planner's scenario tests compare the planner's plan with these, by
# kind and by predicted cost). Per-layer weights are named for every layer.
def _layers(b_name):
    return {"mlp_1tok": 1, "mlp_big": 24, "attention": 1, "attention_big": 40,
            "attention_decode": 1, "too_big": 96}[b_name]


def expert_plan(name, n):
    """Megatron column-then-row for the MLPs (and too_big, which fits nowhere),
    the head split for attention (q/k/v weights by columns = whole heads, the
    output projection by rows), expert parallelism for the MoE (groups and
    experts on one axis). resnet18_b64: data parallel (see sharded_plans)."""
    sh = {}
    if name in ("mlp_1tok", "mlp_big", "too_big"):
        mesh = {"model": n}
        for i in range(_layers(name)):
            sh[f"layers.{i}.w1"] = [[], ["model"]]
            sh[f"layers.{i}.w2"] = [["model"], []]
    elif name in ("attention", "attention_big", "attention_decode"):
        mesh = {"model": n}
        for i in range(_layers(name)):
            for w in ("wq", "wk", "wv"):
                sh[f"layers.{i}.{w}"] = [[], ["model"]]
            sh[f"layers.{i}.wo"] = [["model"], []]
        if name == "attention_decode":  # the KV cache by heads
            for c in ("past_k", "past_v"):
                sh[c] = [[], ["model"], [], []]
    elif name == "moe":
        mesh = {"expert": n}
        sh = {"x": [["expert"], [], []], "w1": [["expert"], [], []],
              "w2": [["expert"], [], []]}
    elif name == "resnet18_b64":
        mesh = {"data": n}
        sh = {"input": [["data"], [], [], []]}
    else:
        raise ValueError(f"no expert plan for {name!r}")
    return {"mesh": mesh, "shardings": sh}


def write(name, out_dir, check=True):
    """Builds model `name` into out_dir/name/; returns (path, builder)."""
    b = BUILDERS[name]()
    return b.save(os.path.join(out_dir, name), check), b


def resnet18_b64(out_dir, check=False):
    """make_models' ResNet-18 (--size bench: 224x224) at batch 64 into
    out_dir/resnet18_b64/resnet18.onnx (real weights, 47 MB). Needs torch."""
    import make_models
    d = os.path.join(out_dir, "resnet18_b64")
    if make_models.make(["resnet18"], d, "bench", check=check, log=lambda s: None,
                        batch=64):
        raise RuntimeError("building resnet18 at batch 64 failed")
    return os.path.join(d, "resnet18.onnx")


def plan_text(plan):
    """plan.json text, one sharding a line (sharded_plans.plan_text)."""
    from sharded_plans import plan_text as text
    return text(plan)


def allocated_bytes(path):
    return os.stat(path).st_blocks * 512


def run_measured(cmd, timeout=600):
    """Runs `cmd`: (exit status, wall seconds, peak RSS bytes, stdout, stderr).
    The peak RSS is the child's own (wait4's rusage), not the maximum over every
    child this process ever had. Exit status 124 on a timeout."""
    import tempfile
    with tempfile.TemporaryFile("w+") as out, tempfile.TemporaryFile("w+") as err:
        t0 = time.time()
        p = subprocess.Popen(cmd, stdout=out, stderr=err, text=True)
        while True:
            pid, status, ru = os.wait4(p.pid, os.WNOHANG)
            if pid:
                break
            if time.time() - t0 > timeout:
                p.kill()
                pid, status, ru = os.wait4(p.pid, 0)
                status = 124 << 8
                break
            time.sleep(0.01)
        secs = time.time() - t0
        p.returncode = 0  # reaped by wait4; keep Popen from waiting again
        out.seek(0)
        err.seek(0)
        rc = os.waitstatus_to_exitcode(status) if status != 124 << 8 else 124
        return rc, secs, ru.ru_maxrss * 1024, out.read(), err.read()


def check_import(path, telarc, timeout=600):
    """Imports `path` with `telarc --emit=mlir --elide-weights`: (seconds, peak
    RSS bytes of telarc, allocated bytes of weights.bin before and after, the
    first error line or None)."""
    wpath = os.path.join(os.path.dirname(path), "weights.bin")
    before = allocated_bytes(wpath)
    rc, secs, rss, _, err = run_measured(
        [telarc, path, "--emit=mlir", "--elide-weights", "-o", os.devnull], timeout)
    error = None if rc == 0 else f"rc={rc}: " + (err.strip().splitlines() or ["?"])[0]
    return secs, rss, before, allocated_bytes(wpath), error


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", help="output directory (created)")
    ap.add_argument("--only", default="", help="comma-separated subset of: "
                    + ",".join(list(BUILDERS) + ["resnet18_b64"]))
    ap.add_argument("--list", action="store_true", help="print the model names and exit")
    ap.add_argument("--no-check", dest="check", action="store_false", default=True,
                    help="skip onnx.checker")
    ap.add_argument("--check-import", action="store_true",
                    help="import each model with telarc --emit=mlir --elide-weights")
    ap.add_argument("--telarc", default=os.path.join(ROOT, "build", "bin", "telarc"))
    ap.add_argument("--max-rss", type=float, default=1e9,
                    help="--check-import fails when telarc's peak RSS is above this many "
                    "bytes (default 1 GB, below every model's weights: an import that "
                    "read them would exceed it)")
    ap.add_argument("--expert-plans", type=int, metavar="N",
                    help="also write DIR/NAME/expert_N.json, the hand plan on N devices")
    a = ap.parse_args(argv)
    if a.list:
        print("\n".join(list(BUILDERS) + ["resnet18_b64"]))
        return 0
    if not a.out:
        ap.error("--out is required")
    names = [n for n in a.only.split(",") if n] or list(BUILDERS)
    failed = 0
    for n in names:
        t0 = time.time()
        try:
            if n == "resnet18_b64":
                path = resnet18_b64(a.out, a.check)
                if a.expert_plans:
                    with open(os.path.join(os.path.dirname(path),
                                           f"expert_{a.expert_plans}.json"), "w") as f:
                        f.write(plan_text(expert_plan(n, a.expert_plans)))
                print(f"{n}: wrote {path} in {time.time() - t0:.1f}s", flush=True)
                continue
            if n not in BUILDERS:
                ap.error(f"unknown model {n!r}")
            path, b = write(n, a.out, a.check)
            print(f"{n}: wrote {path} ({describe(b)}; {os.path.getsize(path) / 1e3:.0f} KB "
                  f"on disk + a sparse {b.offset / 1e9:.1f} GB weights.bin) in "
                  f"{time.time() - t0:.1f}s", flush=True)
            if a.expert_plans:
                with open(os.path.join(a.out, n, f"expert_{a.expert_plans}.json"), "w") as f:
                    f.write(plan_text(expert_plan(n, a.expert_plans)))
            if a.check_import:
                secs, rss, before, after, err = check_import(path, a.telarc)
                print(f"  import: {secs:.2f}s, peak RSS {rss / 1e6:.0f} MB, weights.bin "
                      f"blocks {before} -> {after} bytes"
                      + (f", FAILED: {err}" if err else ""), flush=True)
                if err is None and after != before:
                    print("  FAILED: the import wrote into weights.bin", flush=True)
                if err is None and rss > a.max_rss:
                    print(f"  FAILED: peak RSS above {a.max_rss / 1e6:.0f} MB: the import "
                          "read the weights", flush=True)
                failed += err is not None or after != before or rss > a.max_rss
        except Exception as e:
            failed += 1
            print(f"{n}: FAILED: {type(e).__name__}: {e}", file=sys.stderr, flush=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
