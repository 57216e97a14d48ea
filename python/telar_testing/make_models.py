#!/usr/bin/env python3
"""Build the end-to-end test models: the torch exports plus models written with onnx.helper.

Usage:
    .venv/bin/python python/telar_testing/make_models.py --out build/models
    .venv/bin/python python/telar_testing/make_models.py --out DIR --size mini
    .venv/bin/python python/telar_testing/make_models.py --out DIR --size bench
    .venv/bin/python python/telar_testing/make_models.py --out DIR --only llama,moe_topk
    .venv/bin/python python/telar_testing/make_models.py --out DIR --batch 4

Writes into DIR, for each model NAME:
    NAME.onnx             the model (static shapes, seeded random weights)
    NAME.inputs.npz       its inputs, keyed by graph input name
    NAME.ort_outputs.npz  onnxruntime's outputs (CPUExecutionProvider), keyed by
                          graph output name
    NAME.outputs.npz      the framework's outputs: torch's for the torch exports,
                          a plain numpy implementation's for the onnx.helper models
                          (an independent check that the graph computes what it
                          should); onnxruntime must match them (rtol 1e-3, atol 1e-4)

Models (--size small, the default, then --size mini and --size bench):
    gpt, bert, resnet18, vit, moe_einsum, moe_grouped, t5_encoder
                 torch.onnx.export at opset 17; see make_torch_models.py
    llama        Llama-style decoder with onnx.helper at opset 18: token embedding
                 (Gather); per layer RMSNorm (Pow, ReduceMean, Add, Sqrt, Div, Mul),
                 grouped-query causal attention (q/k/v MatMuls, Reshape/Transpose,
                 rotary embeddings on q and k in the rotate-half form built from
                 Slice/Neg/Concat/Mul/Add with cos/sin tables, k/v heads repeated
                 with Unsqueeze/Expand/Reshape, scaled scores + additive causal mask,
                 Softmax), SwiGLU MLP (x*Sigmoid(x) gate times up, down projection),
                 residual Adds; final RMSNorm and LM head.
                 small: vocab 128, d 64, 4 heads (2 kv heads, head dim 16),
                 ffn 176, 2 layers, input_ids int64 [2, 16] -> logits [2, 16, 128]
                 mini: vocab 512, d 128, 4 heads (2 kv heads, head dim 32),
                 ffn 352, 2 layers, input_ids [1, 32]
                 bench: vocab 2048, d 512, 8 heads (4 kv), ffn 1408, 4 layers,
                 input_ids [1, 128]
    moe_topk     Mixtral-style top-2 routed MoE layer with onnx.helper at opset 18:
                 router MatMul, TopK (k=2) of the router logits, Softmax over the
                 two chosen logits, ScatterElements of those weights into a dense
                 [tokens, experts] routing matrix, every expert's SwiGLU FFN as
                 batched MatMuls over [experts, tokens, d], outputs weighted by the
                 routing matrix and summed over experts (ReduceSum).
                 small: x float32 [2, 8, 32], 4 experts, hidden 64
                 mini: x [1, 32, 128], 4 experts, hidden 256
                 bench: x [1, 128, 256], 8 experts, hidden 512
                 The router input is drawn so that the 2nd and 3rd largest logits
                 of every token differ by at least 1e-2: rounding differences
                 between implementations cannot change which experts are chosen.

    reductions   max and min reductions with onnx.helper at opset 18: x @ w_in
                 [d, hidden], a softmax over the hidden dim written out (ReduceMax,
                 Sub, Exp, ReduceSum, Div), its max over the sequence (ReduceMax)
                 projected by w_out [hidden, d] -> y [B, d]; the hidden state's min
                 over the sequence (ReduceMin) -> min_pool [B, hidden] and max over
                 the hidden dim -> token_max [B, T] (outputs a split reduction
                 produces).
                 small: x float32 [2, 8, 16], hidden 32; mini: [1, 32, 128],
                 hidden 256; bench: [1, 128, 256], hidden 1024

Each model is checked with onnx.checker and run with onnxruntime, and
onnxruntime's outputs are compared with the reference; a failure is an error
(exit 1) unless --no-check (then no .ort_outputs.npz is written).
"""

from __future__ import annotations

import argparse
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

HELPER_OPSET = 18
SEED = 0
SIZES = ("small", "mini", "bench")


# ------------------------------------------------------------------ utilities
class GraphBuilder:
    """A thin layer over onnx.helper: unique value names, initializers, nodes."""

    def __init__(self, name):
        self.name = name
        self.nodes = []
        self.inits = []
        self.inputs = []
        self.outputs = []
        self.counter = 0

    def fresh(self, hint):
        self.counter += 1
        return f"{hint}_{self.counter}"

    def init(self, name, array):
        from onnx import numpy_helper
        self.inits.append(numpy_helper.from_array(np.ascontiguousarray(array), name))
        return name

    def const_i64(self, values, hint="c"):
        return self.init(self.fresh(hint), np.asarray(values, dtype=np.int64))

    def const_f32(self, values, hint="c"):
        return self.init(self.fresh(hint), np.asarray(values, dtype=np.float32))

    def op(self, op_type, inputs, hint=None, outputs=1, **attrs):
        from onnx import helper
        names = [self.fresh(hint or op_type.lower()) for _ in range(outputs)]
        self.nodes.append(helper.make_node(op_type, list(inputs), names,
                                           name=self.fresh("n_" + op_type), **attrs))
        return names[0] if outputs == 1 else names

    def input(self, name, dtype, shape):
        from onnx import helper
        self.inputs.append(helper.make_tensor_value_info(name, dtype, shape))
        return name

    def output(self, value, name, dtype, shape):
        from onnx import helper
        self.nodes.append(helper.make_node("Identity", [value], [name],
                                           name=self.fresh("n_out")))
        self.outputs.append(helper.make_tensor_value_info(name, dtype, shape))

    def model(self, opset):
        from onnx import helper
        g = helper.make_graph(self.nodes, self.name, self.inputs, self.outputs,
                              initializer=self.inits)
        m = helper.make_model(g, opset_imports=[helper.make_opsetid("", opset)],
                              producer_name="telar_testing.make_models")
        m.ir_version = 8  # opset 18 needs IR >= 8; keeps older runtimes happy
        return m


def _weight(rng, *shape, scale=None):
    scale = scale if scale is not None else 1.0 / np.sqrt(shape[-2] if len(shape) > 1 else 1)
    return (rng.standard_normal(shape) * scale).astype(np.float32)


# ---------------------------------------------------------------------- llama
LLAMA_SIZES = {
    "small": dict(vocab=128, d=64, heads=4, kv_heads=2, ffn=176, layers=2, batch=2, seq=16),
    "mini": dict(vocab=512, d=128, heads=4, kv_heads=2, ffn=352, layers=2, batch=1, seq=32),
    "bench": dict(vocab=2048, d=512, heads=8, kv_heads=4, ffn=1408, layers=4, batch=1,
                  seq=128),
}
RMS_EPS = 1e-5
ROPE_THETA = 10000.0


def _rope_tables(seq, hd):
    inv = 1.0 / ROPE_THETA ** (np.arange(0, hd, 2, dtype=np.float64) / hd)
    ang = np.outer(np.arange(seq, dtype=np.float64), inv)          # [T, hd/2]
    ang = np.concatenate([ang, ang], axis=-1)                      # [T, hd]
    return np.cos(ang).astype(np.float32), np.sin(ang).astype(np.float32)


def _llama_weights(c, rng):
    d, hd = c["d"], c["d"] // c["heads"]
    kvd = c["kv_heads"] * hd
    w = {"tok_emb": (rng.standard_normal((c["vocab"], d)) * 0.5).astype(np.float32)}
    for i in range(c["layers"]):
        p = f"layers.{i}."
        w[p + "attn_norm"] = (1.0 + 0.1 * rng.standard_normal(d)).astype(np.float32)
        w[p + "wq"] = _weight(rng, d, d)
        w[p + "wk"] = _weight(rng, d, kvd)
        w[p + "wv"] = _weight(rng, d, kvd)
        w[p + "wo"] = _weight(rng, d, d)
        w[p + "ffn_norm"] = (1.0 + 0.1 * rng.standard_normal(d)).astype(np.float32)
        w[p + "w_gate"] = _weight(rng, d, c["ffn"])
        w[p + "w_up"] = _weight(rng, d, c["ffn"])
        w[p + "w_down"] = _weight(rng, c["ffn"], d)
    w["norm"] = (1.0 + 0.1 * rng.standard_normal(d)).astype(np.float32)
    w["lm_head"] = _weight(rng, d, c["vocab"])
    return w


def build_llama(size, batch=None):
    import onnx
    from onnx import TensorProto as TP
    c = dict(LLAMA_SIZES[size])
    c["batch"] = batch or c["batch"]
    rng = np.random.default_rng(SEED + 10)
    w = _llama_weights(c, rng)
    B, T, d, H, KV = c["batch"], c["seq"], c["d"], c["heads"], c["kv_heads"]
    hd = d // H
    cos, sin = _rope_tables(T, hd)
    mask = np.triu(np.full((T, T), -np.inf, dtype=np.float32), k=1)

    g = GraphBuilder("llama")
    for k, v in w.items():
        g.init(k, v)
    ids = g.input("input_ids", TP.INT64, [B, T])
    cos_c = g.init("rope_cos", cos.reshape(1, 1, T, hd))
    sin_c = g.init("rope_sin", sin.reshape(1, 1, T, hd))
    mask_c = g.init("causal_mask", mask.reshape(1, 1, T, T))
    eps = g.const_f32(RMS_EPS, "eps")
    two = g.const_f32(2.0, "two")
    scale = g.const_f32(1.0 / np.sqrt(hd), "scale")
    last_axis = g.const_i64([-1], "axis")

    def rmsnorm(x, weight):
        sq = g.op("Pow", [x, two], "sq")
        ms = g.op("ReduceMean", [sq, last_axis], "ms", keepdims=1)
        rms = g.op("Sqrt", [g.op("Add", [ms, eps], "ms_eps")], "rms")
        return g.op("Mul", [g.op("Div", [x, rms], "xn"), weight], "normed")

    def heads(x, n):  # [B, T, n*hd] -> [B, n, T, hd]
        r = g.op("Reshape", [x, g.const_i64([B, T, n, hd], "shape")], "split_heads")
        return g.op("Transpose", [r], "heads", perm=[0, 2, 1, 3])

    half_lo = g.const_i64([0], "lo")
    half_mid = g.const_i64([hd // 2], "mid")
    half_hi = g.const_i64([hd], "hi")

    def rotary(x):  # x * cos + rotate_half(x) * sin
        x1 = g.op("Slice", [x, half_lo, half_mid, last_axis], "x1")
        x2 = g.op("Slice", [x, half_mid, half_hi, last_axis], "x2")
        rot = g.op("Concat", [g.op("Neg", [x2], "neg_x2"), x1], "rot_half", axis=-1)
        return g.op("Add", [g.op("Mul", [x, cos_c], "xcos"),
                            g.op("Mul", [rot, sin_c], "rsin")], "rope")

    def repeat_kv(x):  # [B, KV, T, hd] -> [B, H, T, hd]
        if KV == H:
            return x
        u = g.op("Unsqueeze", [x, g.const_i64([2], "axes")], "kv_u")
        e = g.op("Expand", [u, g.const_i64([B, KV, H // KV, T, hd], "shape")], "kv_e")
        return g.op("Reshape", [e, g.const_i64([B, H, T, hd], "shape")], "kv_rep")

    x = g.op("Gather", ["tok_emb", ids], "emb", axis=0)
    for i in range(c["layers"]):
        p = f"layers.{i}."
        xn = rmsnorm(x, p + "attn_norm")
        q = rotary(heads(g.op("MatMul", [xn, p + "wq"], "q"), H))
        k = repeat_kv(rotary(heads(g.op("MatMul", [xn, p + "wk"], "k"), KV)))
        v = repeat_kv(heads(g.op("MatMul", [xn, p + "wv"], "v"), KV))
        kt = g.op("Transpose", [k], "kt", perm=[0, 1, 3, 2])
        s = g.op("Mul", [g.op("MatMul", [q, kt], "qk"), scale], "scores")
        a = g.op("Softmax", [g.op("Add", [s, mask_c], "masked")], "probs", axis=-1)
        o = g.op("Transpose", [g.op("MatMul", [a, v], "attn")], "attn_t", perm=[0, 2, 1, 3])
        o = g.op("Reshape", [o, g.const_i64([B, T, d], "shape")], "attn_merged")
        x = g.op("Add", [x, g.op("MatMul", [o, p + "wo"], "attn_out")], "resid")
        xn = rmsnorm(x, p + "ffn_norm")
        gate = g.op("MatMul", [xn, p + "w_gate"], "gate")
        silu = g.op("Mul", [gate, g.op("Sigmoid", [gate], "sig")], "silu")
        up = g.op("MatMul", [xn, p + "w_up"], "up")
        down = g.op("MatMul", [g.op("Mul", [silu, up], "swiglu"), p + "w_down"], "down")
        x = g.op("Add", [x, down], "resid")
    logits = g.op("MatMul", [rmsnorm(x, "norm"), "lm_head"], "logits_mm")
    g.output(logits, "logits", TP.FLOAT, [B, T, c["vocab"]])
    model = g.model(HELPER_OPSET)

    ids_v = np.random.default_rng(SEED + 11).integers(0, c["vocab"], (B, T), dtype=np.int64)
    inputs = {"input_ids": ids_v}
    return model, inputs, {"logits": llama_numpy(c, w, ids_v)}


def llama_numpy(c, w, ids):
    """The Llama forward pass in numpy (float32), written independently of the graph."""
    B, T, d, H, KV = c["batch"], c["seq"], c["d"], c["heads"], c["kv_heads"]
    hd = d // H
    cos, sin = _rope_tables(T, hd)

    def rmsnorm(x, weight):
        return x / np.sqrt(np.mean(x * x, axis=-1, keepdims=True) + RMS_EPS) * weight

    def rope(x):  # [B, n, T, hd]
        x1, x2 = x[..., :hd // 2], x[..., hd // 2:]
        return x * cos + np.concatenate([-x2, x1], axis=-1) * sin

    def split(x, n):
        return x.reshape(B, T, n, hd).transpose(0, 2, 1, 3)

    causal = np.triu(np.ones((T, T), dtype=bool), k=1)
    x = w["tok_emb"][ids]
    for i in range(c["layers"]):
        p = f"layers.{i}."
        xn = rmsnorm(x, w[p + "attn_norm"])
        q = rope(split(xn @ w[p + "wq"], H))
        k = np.repeat(rope(split(xn @ w[p + "wk"], KV)), H // KV, axis=1)
        v = np.repeat(split(xn @ w[p + "wv"], KV), H // KV, axis=1)
        s = (q @ k.transpose(0, 1, 3, 2)) / np.sqrt(hd)
        s = np.where(causal, -np.inf, s)
        s = np.exp(s - s.max(axis=-1, keepdims=True))
        a = s / s.sum(axis=-1, keepdims=True)
        o = (a @ v).transpose(0, 2, 1, 3).reshape(B, T, d)
        x = x + o @ w[p + "wo"]
        xn = rmsnorm(x, w[p + "ffn_norm"])
        gate = xn @ w[p + "w_gate"]
        x = x + ((gate / (1.0 + np.exp(-gate))) * (xn @ w[p + "w_up"])) @ w[p + "w_down"]
    return (rmsnorm(x, w["norm"]) @ w["lm_head"]).astype(np.float32)


# ------------------------------------------------------------------- moe_topk
MOE_SIZES = {
    "small": dict(batch=2, seq=8, d=32, hidden=64, experts=4, k=2),
    "mini": dict(batch=1, seq=32, d=128, hidden=256, experts=4, k=2),
    "bench": dict(batch=1, seq=128, d=256, hidden=512, experts=8, k=2),
}
ROUTER_MARGIN = 1e-2


def build_moe_topk(size, batch=None):
    from onnx import TensorProto as TP
    c = dict(MOE_SIZES[size])
    c["batch"] = batch or c["batch"]
    B, T, d, h, E, K = c["batch"], c["seq"], c["d"], c["hidden"], c["experts"], c["k"]
    S = B * T
    rng = np.random.default_rng(SEED + 20)
    w = {
        "router": _weight(rng, d, E),
        "w_gate": _weight(rng, E, d, h),
        "w_up": _weight(rng, E, d, h),
        "w_down": _weight(rng, E, h, d),
    }
    g = GraphBuilder("moe_topk")
    for k, v in w.items():
        g.init(k, v)
    x = g.input("x", TP.FLOAT, [B, T, d])
    s = g.op("Reshape", [x, g.const_i64([S, d], "shape")], "tokens")
    logits = g.op("MatMul", [s, "router"], "router_logits")
    top_v, top_i = g.op("TopK", [logits, g.const_i64([K], "k")], "top", outputs=2,
                        axis=-1, largest=1, sorted=1)
    weights = g.op("Softmax", [top_v], "route_w", axis=-1)
    zeros = g.const_f32(np.zeros((S, E)), "zeros")
    routing = g.op("ScatterElements", [zeros, top_i, weights], "routing", axis=1)
    # Every expert on every token: [1, S, d] x [E, d, h] -> [E, S, h].
    s3 = g.op("Unsqueeze", [s, g.const_i64([0], "axes")], "tokens_e")
    gate = g.op("MatMul", [s3, "w_gate"], "gate")
    silu = g.op("Mul", [gate, g.op("Sigmoid", [gate], "sig")], "silu")
    up = g.op("MatMul", [s3, "w_up"], "up")
    ye = g.op("MatMul", [g.op("Mul", [silu, up], "swiglu"), "w_down"], "expert_out")
    r = g.op("Unsqueeze", [g.op("Transpose", [routing], "routing_t", perm=[1, 0]),
                           g.const_i64([2], "axes")], "routing_e")        # [E, S, 1]
    y = g.op("ReduceSum", [g.op("Mul", [ye, r], "weighted"), g.const_i64([0], "axes")],
             "combined", keepdims=0)                                      # [S, d]
    y = g.op("Reshape", [y, g.const_i64([B, T, d], "shape")], "y_r")
    g.output(y, "y", TP.FLOAT, [B, T, d])
    # Top-(k+1) gaps so that tiny rounding differences cannot flip the routing.
    xin = _router_safe_input(rng, w["router"], (B, T, d), K)
    return g.model(HELPER_OPSET), {"x": xin}, {"y": moe_topk_numpy(c, w, xin)}


def _router_safe_input(rng, router, shape, k):
    x = rng.standard_normal(shape).astype(np.float32)
    flat = x.reshape(-1, shape[-1])
    for t in range(flat.shape[0]):
        for _ in range(1000):
            srt = np.sort(flat[t] @ router)[::-1]
            if (np.min(-np.diff(srt)[:k]) >= ROUTER_MARGIN):
                break
            flat[t] = rng.standard_normal(shape[-1]).astype(np.float32)
        else:
            raise RuntimeError("could not draw a router input with distinct top-k logits")
    return flat.reshape(shape)


def moe_topk_numpy(c, w, x):
    B, T, d, E, K = c["batch"], c["seq"], c["d"], c["experts"], c["k"]
    s = x.reshape(-1, d)
    logits = s @ w["router"]
    y = np.zeros_like(s)
    for t in range(s.shape[0]):
        top = np.argsort(-logits[t])[:K]
        p = np.exp(logits[t, top] - logits[t, top].max())
        p /= p.sum()
        for e, pe in zip(top, p):
            gate = s[t] @ w["w_gate"][e]
            hid = gate / (1.0 + np.exp(-gate)) * (s[t] @ w["w_up"][e])
            y[t] += pe * (hid @ w["w_down"][e])
    return y.reshape(B, T, d).astype(np.float32)


# ----------------------------------------------------------------- reductions
REDUCTION_SIZES = {
    "small": dict(batch=2, seq=8, d=16, hidden=32),
    "mini": dict(batch=1, seq=32, d=128, hidden=256),
    "bench": dict(batch=1, seq=128, d=256, hidden=1024),
}


def build_reductions(size, batch=None):
    """Max and min reductions a plan can split: a softmax written out over the
    hidden dim, max pooling of it and min pooling of the hidden state over the
    sequence, each token's largest hidden value, a projection of the pool."""
    from onnx import TensorProto as TP
    c = dict(REDUCTION_SIZES[size])
    c["batch"] = batch or c["batch"]
    B, T, d, h = c["batch"], c["seq"], c["d"], c["hidden"]
    rng = np.random.default_rng(SEED + 30)
    w = {"w_in": _weight(rng, d, h), "w_out": _weight(rng, h, d)}
    g = GraphBuilder("reductions")
    for k, v in w.items():
        g.init(k, v)
    x = g.input("x", TP.FLOAT, [B, T, d])
    hid = g.op("MatMul", [x, "w_in"], "hidden")                           # [B, T, h]
    last = g.const_i64([-1], "axes")
    m = g.op("ReduceMax", [hid, last], "row_max", keepdims=1)
    e = g.op("Exp", [g.op("Sub", [hid, m], "shifted")], "exp")
    p = g.op("Div", [e, g.op("ReduceSum", [e, last], "row_sum", keepdims=1)], "probs")
    seq = g.const_i64([1], "axes")
    pmax = g.op("ReduceMax", [p, seq], "max_pool", keepdims=0)            # [B, h]
    pmin = g.op("ReduceMin", [hid, seq], "min_pool", keepdims=0)          # [B, h]
    top = g.op("ReduceMax", [hid, last], "token_max", keepdims=0)         # [B, T]
    y = g.op("MatMul", [pmax, "w_out"], "projected")                      # [B, d]
    g.output(y, "y", TP.FLOAT, [B, d])
    g.output(pmin, "min_pool", TP.FLOAT, [B, h])
    g.output(top, "token_max", TP.FLOAT, [B, T])
    xin = rng.standard_normal((B, T, d)).astype(np.float32)
    return g.model(HELPER_OPSET), {"x": xin}, reductions_numpy(w, xin)


def reductions_numpy(w, x):
    hid = x @ w["w_in"]
    e = np.exp(hid - hid.max(axis=-1, keepdims=True))
    p = e / e.sum(axis=-1, keepdims=True)
    return {"y": (p.max(axis=1) @ w["w_out"]).astype(np.float32),
            "min_pool": hid.min(axis=1).astype(np.float32),
            "token_max": hid.max(axis=-1).astype(np.float32)}


HELPER_MODELS = {"llama": build_llama, "moe_topk": build_moe_topk,
                 "reductions": build_reductions}


def torch_models():
    import make_torch_models
    return make_torch_models


def all_model_names():
    # The torch list is static; avoid importing torch just to list names.
    return (["gpt", "bert", "resnet18", "vit", "moe_einsum", "moe_grouped", "t5_encoder"]
            + list(HELPER_MODELS))


# ------------------------------------------------------------------- writing
def run_ort(path, inputs, threads=1):
    import onnxruntime as ort
    so = ort.SessionOptions()
    so.log_severity_level = 3
    so.intra_op_num_threads = threads
    so.inter_op_num_threads = 1
    sess = ort.InferenceSession(path, so, providers=["CPUExecutionProvider"])
    names = [o.name for o in sess.get_outputs()]
    return dict(zip(names, sess.run(names, inputs)))


def write_helper_model(name, out_dir, size, check, batch=None):
    import onnx
    model, inputs, ref = HELPER_MODELS[name](size, batch)
    path = os.path.join(out_dir, f"{name}.onnx")
    onnx.save(model, path)
    np.savez(os.path.join(out_dir, f"{name}.inputs.npz"), **inputs)
    np.savez(os.path.join(out_dir, f"{name}.outputs.npz"), **ref)
    msg = f"{os.path.getsize(path) / 1e6:.2f} MB"
    if check:
        onnx.checker.check_model(model, full_check=True)
        got = run_ort(path, inputs)
        np.savez(os.path.join(out_dir, f"{name}.ort_outputs.npz"), **got)
        worst = 0.0
        for k, r in ref.items():
            o = got[k]
            if o.shape != r.shape:
                raise RuntimeError(f"{name}: {k} shape {o.shape} != reference {r.shape}")
            err = float(np.max(np.abs(o - r))) if o.size else 0.0
            if not np.allclose(o, r, rtol=1e-3, atol=1e-4):
                raise RuntimeError(f"{name}: onnxruntime differs from the numpy "
                                   f"reference on {k}: max abs err {err:g}")
            worst = max(worst, err)
        ops = sorted({n.op_type for n in model.graph.node})
        msg += (f", ort vs numpy max abs err {worst:.2g}, {len(model.graph.node)} nodes, "
                f"ops: {','.join(ops)}")
    return path, msg


def make(names, out_dir, size="small", check=True, log=print, batch=None):
    """Writes the named models (`batch`: every input's batch dim, default the
    size's); returns the number of failures."""
    os.makedirs(out_dir, exist_ok=True)
    failed = 0
    for n in names:
        t0 = time.time()
        try:
            if n in HELPER_MODELS:
                path, msg = write_helper_model(n, out_dir, size, check, batch)
            else:
                path, msg = torch_models().export_one(n, out_dir, check, size, batch)
            log(f"{n}: wrote {path} ({msg}) in {time.time() - t0:.1f}s")
        except Exception as e:  # report every model, then fail
            failed += 1
            print(f"{n}: FAILED: {type(e).__name__}: {e}", file=sys.stderr, flush=True)
    return failed


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--out", required=True, help="output directory (created)")
    p.add_argument("--only", default="",
                   help="comma-separated subset of: " + ",".join(all_model_names()))
    p.add_argument("--size", choices=SIZES, default="small",
                   help="small (default; for tests), mini (hidden 128, 32 tokens: "
                        "the benchmark's small models) or bench")
    p.add_argument("--batch", type=int, default=None,
                   help="batch size of every model's inputs (default: the size's)")
    p.add_argument("--no-check", dest="check", action="store_false", default=True,
                   help="skip onnx.checker and onnxruntime")
    a = p.parse_args(argv)
    names = [n for n in a.only.split(",") if n] or all_model_names()
    for n in names:
        if n not in all_model_names():
            p.error(f"unknown model {n!r}; known: {', '.join(all_model_names())}")
    if any(n not in HELPER_MODELS for n in names):
        import torch
        torch.set_num_threads(max(1, min(2, os.cpu_count() or 1)))
    t0 = time.time()
    failed = make(names, a.out, a.size, a.check, log=lambda s: print(s, flush=True),
                  batch=a.batch)
    print(f"{len(names) - failed}/{len(names)} models ({a.size}) written to {a.out} "
          f"in {time.time() - t0:.1f}s")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
