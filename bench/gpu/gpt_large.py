#!/usr/bin/env python3
"""The GPT-like forward of the GPU benchmark (issue "CUDA backend"): one
architecture written twice, as an ONNX graph for telarc and as a PyTorch
module for the reference, at two sizes:

  large  24 layers, hidden 2048, 16 heads, batch x sequence 16 x 2048,
         vocabulary 50304 (1.31 G parameters): fills one H100/H200
  tiny   2 layers, hidden 64, 4 heads, 2 x 16, vocabulary 128: the same
         steps on a CPU (how the script is checked without a GPU)

Pre-LayerNorm blocks: x += Wo . attention(LN(x) . Wqkv + b) + b;
x += W2 . gelu(LN(x) . W1 + b) + b (4x hidden); causal softmax attention;
the output is the final LayerNorm's mean over the sequence (batch x hidden:
small, so that no logits file dominates a run).

  gpt_large.py make DIR [--config tiny|large]
      DIR/gpt_large.onnx and DIR/gpt_large.in/input_ids.npy (seeded); the
      weights as external data: real seeded values for tiny (onnxruntime
      can check the artifact), a sparse file of zeros for large (4.8 GB
      that take no disk: compile it with telarc --random-weights, which
      never writes them)
  gpt_large.py torch [--config large] [--device cuda] [--iters 10]
      [--warmup 3] [--no-compile] [--json FILE]
      PyTorch's forward in bfloat16 (weights bfloat16, attention by
      scaled_dot_product_attention, causal), eager and torch.compile:
      the mean milliseconds per forward (CUDA events on a GPU)
  gpt_large.py same DIR [--telar-output Y.npy]
      the PyTorch module, given the tiny ONNX model's weights, computes
      onnxruntime's outputs (the two are one architecture), and so does
      telar's run of it (its y.npy, at bf16's tolerance 5e-2); exit 1 if
      not
  gpt_large.py report [--config large] --telar-ms MS --torch-json FILE
      [--peak-tflops 790]
      tokens/s and MFU (model flops / time / the chip's dense bf16 peak)
      of telar, PyTorch eager and torch.compile, and telar's ratios

Model flops per forward: 24 B S h^2 per layer for the matrix products and
4 B S^2 h for attention's two (counted whole, causal or not).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys

import numpy as np

CONFIGS = {
    "large": dict(layers=24, hidden=2048, heads=16, batch=16, seq=2048, vocab=50304),
    "tiny": dict(layers=2, hidden=64, heads=4, batch=2, seq=16, vocab=128),
}


def model_flops(c):
    b, s, h = c["batch"], c["seq"], c["hidden"]
    return c["layers"] * (24 * b * s * h * h + 4 * b * s * s * h)


def weight_shapes(c):
    """(name, shape) of every weight, in the order both models use."""
    h, v, s = c["hidden"], c["vocab"], c["seq"]
    shapes = [("tok_emb", (v, h)), ("pos_emb", (s, h))]
    for i in range(c["layers"]):
        p = f"l{i}."
        shapes += [(p + "ln1_g", (h,)), (p + "ln1_b", (h,)),
                   (p + "wqkv", (h, 3 * h)), (p + "bqkv", (3 * h,)),
                   (p + "wo", (h, h)), (p + "bo", (h,)),
                   (p + "ln2_g", (h,)), (p + "ln2_b", (h,)),
                   (p + "w1", (h, 4 * h)), (p + "b1", (4 * h,)),
                   (p + "w2", (4 * h, h)), (p + "b2", (h,))]
    return shapes + [("lnf_g", (h,)), ("lnf_b", (h,))]


def seeded_weight(name, shape):
    rng = np.random.default_rng(int.from_bytes(name.encode(), "little") % (2**32))
    if name.endswith("_g"):
        return (1.0 + 0.1 * rng.standard_normal(shape)).astype(np.float32)
    return (0.02 * rng.standard_normal(shape)).astype(np.float32)


def make(args):
    import onnx
    from onnx import TensorProto, helper

    c = CONFIGS[args.config]
    b, s, h, nh, v = c["batch"], c["seq"], c["hidden"], c["heads"], c["vocab"]
    d = h // nh
    os.makedirs(args.dir, exist_ok=True)
    data_name = "gpt_large.weights"
    data_path = os.path.join(args.dir, data_name)
    sparse = args.config == "large"
    inits = []
    offset = 0
    with open(data_path, "wb") as f:
        for name, shape in weight_shapes(c):
            t = TensorProto()
            t.name = name
            t.data_type = TensorProto.FLOAT
            t.dims.extend(shape)
            nbytes = 4 * math.prod(shape)
            if not sparse:
                f.write(seeded_weight(name, shape).tobytes())
            t.data_location = TensorProto.EXTERNAL
            for key, value in (("location", data_name), ("offset", str(offset)),
                               ("length", str(nbytes))):
                e = t.external_data.add()
                e.key, e.value = key, value
            inits.append(t)
            offset += nbytes
        if sparse:
            f.truncate(offset)  # zeros, no disk blocks
    # The causal mask (0 on and below the diagonal, -1e4 above) and shapes.
    mask = np.triu(np.full((s, s), -1e4, np.float32), 1).reshape(1, 1, s, s)
    inits.append(helper.make_tensor("mask", TensorProto.FLOAT, mask.shape,
                                    mask.tobytes(), raw=True))
    consts = {"shape_bshd": [b, s, nh, d], "shape_bsh": [b, s, h],
              "split3": [h, h, h], "axes_seq": [1]}
    for name, value in consts.items():
        inits.append(helper.make_tensor(name, TensorProto.INT64, [len(value)], value))
    scalars = {"scale": 1.0 / math.sqrt(d)}
    for name, value in scalars.items():
        inits.append(helper.make_tensor(name, TensorProto.FLOAT, [], [value]))

    nodes = []

    def node(op, inputs, outputs, **attrs):
        nodes.append(helper.make_node(op, inputs, outputs, **attrs))
        return outputs[0]

    x = node("Gather", ["tok_emb", "input_ids"], ["tok"])
    x = node("Add", [x, "pos_emb"], ["x0"])
    for i in range(c["layers"]):
        p = f"l{i}."
        a = node("LayerNormalization", [x, p + "ln1_g", p + "ln1_b"], [p + "a"], axis=-1)
        qkv = node("MatMul", [a, p + "wqkv"], [p + "qkv0"])
        qkv = node("Add", [qkv, p + "bqkv"], [p + "qkv"])
        node("Split", [qkv, "split3"], [p + "q0", p + "k0", p + "v0"], axis=-1)
        heads = {}
        for t in ("q", "k", "v"):
            r = node("Reshape", [p + t + "0", "shape_bshd"], [p + t + "r"])
            perm = [0, 2, 3, 1] if t == "k" else [0, 2, 1, 3]
            heads[t] = node("Transpose", [r], [p + t + "t"], perm=perm)
        sc = node("MatMul", [heads["q"], heads["k"]], [p + "s0"])
        sc = node("Mul", [sc, "scale"], [p + "s1"])
        sc = node("Add", [sc, "mask"], [p + "s"])
        pr = node("Softmax", [sc], [p + "p"], axis=-1)
        o = node("MatMul", [pr, heads["v"]], [p + "o0"])
        o = node("Transpose", [o], [p + "o1"], perm=[0, 2, 1, 3])
        o = node("Reshape", [o, "shape_bsh"], [p + "o2"])
        o = node("MatMul", [o, p + "wo"], [p + "o3"])
        o = node("Add", [o, p + "bo"], [p + "o"])
        x = node("Add", [x, o], [p + "x1"])
        m = node("LayerNormalization", [x, p + "ln2_g", p + "ln2_b"], [p + "m0"], axis=-1)
        m = node("MatMul", [m, p + "w1"], [p + "m1"])
        m = node("Add", [m, p + "b1"], [p + "m2"])
        m = node("Gelu", [m], [p + "m3"])
        m = node("MatMul", [m, p + "w2"], [p + "m4"])
        m = node("Add", [m, p + "b2"], [p + "m"])
        x = node("Add", [x, m], [p + "x2"])
    y = node("LayerNormalization", [x, "lnf_g", "lnf_b"], ["yn"], axis=-1)
    node("ReduceMean", [y, "axes_seq"], ["y"], keepdims=0)
    graph = helper.make_graph(
        nodes, "gpt_large",
        [helper.make_tensor_value_info("input_ids", TensorProto.INT64, [b, s])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [b, h])], inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 20)],
                              producer_name="telar gpt_large.py")
    model.ir_version = 9
    onnx.save(model, os.path.join(args.dir, "gpt_large.onnx"))
    in_dir = os.path.join(args.dir, "gpt_large.in")
    os.makedirs(in_dir, exist_ok=True)
    ids = np.random.default_rng(0).integers(0, v, (b, s), dtype=np.int64)
    np.save(os.path.join(in_dir, "input_ids.npy"), ids)
    with open(os.path.join(args.dir, "gpt_large.json"), "w") as f:
        json.dump(dict(config=args.config, flops=model_flops(c), **c), f)
    print(f"gpt_large.py: {args.config}: {sum(math.prod(s) for _, s in weight_shapes(c)) / 1e9:.3f} "
          f"G parameters, {model_flops(c) / 1e12:.2f} TFLOP a forward"
          + (" (weights: a sparse file of zeros)" if sparse else ""))


def torch_model(c, torch):
    nn, F = torch.nn, torch.nn.functional
    h, nh = c["hidden"], c["heads"]

    def attention(q, k, v):
        if hasattr(F, "scaled_dot_product_attention"):  # torch >= 2.0
            return F.scaled_dot_product_attention(q, k, v, is_causal=True)
        s = q.shape[-2]
        scores = q @ k.transpose(-1, -2) / math.sqrt(q.shape[-1])
        causal = torch.ones(s, s, dtype=torch.bool, device=q.device).triu(1)
        return scores.masked_fill(causal, float("-inf")).softmax(-1) @ v

    class Block(nn.Module):
        def __init__(self):
            super().__init__()
            self.ln1, self.ln2 = nn.LayerNorm(h), nn.LayerNorm(h)
            self.qkv, self.o = nn.Linear(h, 3 * h), nn.Linear(h, h)
            self.w1, self.w2 = nn.Linear(h, 4 * h), nn.Linear(4 * h, h)

        def forward(self, x):
            bsz, s, _ = x.shape
            q, k, v = self.qkv(self.ln1(x)).split(h, dim=-1)
            q, k, v = (t.view(bsz, s, nh, h // nh).transpose(1, 2) for t in (q, k, v))
            a = attention(q, k, v)
            x = x + self.o(a.transpose(1, 2).reshape(bsz, s, h))
            return x + self.w2(F.gelu(self.w1(self.ln2(x))))

    class GPT(nn.Module):
        def __init__(self):
            super().__init__()
            self.tok = nn.Embedding(c["vocab"], h)
            self.pos = nn.Parameter(torch.zeros(c["seq"], h))
            self.blocks = nn.ModuleList(Block() for _ in range(c["layers"]))
            self.lnf = nn.LayerNorm(h)

        def forward(self, ids):
            x = self.tok(ids) + self.pos
            for blk in self.blocks:
                x = blk(x)
            return self.lnf(x).mean(dim=1)

    return GPT()


def time_forward(fn, ids, iters, warmup, torch, device):
    with torch.no_grad():
        for _ in range(warmup):
            fn(ids)
        if device == "cuda":
            torch.cuda.synchronize()
            start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            start.record()
            for _ in range(iters):
                fn(ids)
            end.record()
            torch.cuda.synchronize()
            return start.elapsed_time(end) / iters
        import time
        t0 = time.perf_counter()
        for _ in range(iters):
            fn(ids)
        return (time.perf_counter() - t0) * 1e3 / iters


def run_torch(args):
    import torch

    c = CONFIGS[args.config]
    torch.manual_seed(0)
    dtype = torch.bfloat16
    model = torch_model(c, torch).to(device=args.device, dtype=dtype).eval()
    ids = torch.randint(0, c["vocab"], (c["batch"], c["seq"]), device=args.device)
    result = {"config": args.config, "device": args.device,
              "torch": torch.__version__}
    if args.device == "cuda":
        result["gpu"] = torch.cuda.get_device_name()
    result["eager_ms"] = time_forward(model, ids, args.iters, args.warmup, torch, args.device)
    print(f"torch eager ({args.device}, bf16): {result['eager_ms']:.3f} ms a forward")
    if args.no_compile or not hasattr(torch, "compile"):
        why = "--no-compile" if args.no_compile else f"torch {torch.__version__} has no torch.compile"
        print(f"torch.compile: skipped ({why})")
    else:
        compiled = torch.compile(model)
        result["compile_ms"] = time_forward(compiled, ids, args.iters, args.warmup, torch,
                                            args.device)
        print(f"torch.compile ({args.device}, bf16): {result['compile_ms']:.3f} ms a forward")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(result, f)


def same(args):
    """The PyTorch module with DIR's (tiny) weights computes onnxruntime's
    outputs of DIR/gpt_large.onnx: the two are one architecture."""
    import onnxruntime as ort
    import torch

    c = CONFIGS[args.config]
    model = torch_model(c, torch).eval()
    weights = {name: seeded_weight(name, shape) for name, shape in weight_shapes(c)}
    state = {"tok.weight": weights["tok_emb"], "pos": weights["pos_emb"],
             "lnf.weight": weights["lnf_g"], "lnf.bias": weights["lnf_b"]}
    for i in range(c["layers"]):
        p, q = f"l{i}.", f"blocks.{i}."
        for ln in ("ln1", "ln2"):
            state[q + ln + ".weight"], state[q + ln + ".bias"] = weights[p + ln + "_g"], weights[p + ln + "_b"]
        for lin, w, bias in (("qkv", "wqkv", "bqkv"), ("o", "wo", "bo"),
                             ("w1", "w1", "b1"), ("w2", "w2", "b2")):
            state[q + lin + ".weight"] = weights[p + w].T.copy()  # Linear: out x in
            state[q + lin + ".bias"] = weights[p + bias]
    model.load_state_dict({k: torch.from_numpy(v) for k, v in state.items()})
    ids = np.load(os.path.join(args.dir, "gpt_large.in", "input_ids.npy"))
    with torch.no_grad():
        got = model(torch.from_numpy(ids)).numpy()
    session = ort.InferenceSession(os.path.join(args.dir, "gpt_large.onnx"))
    want = session.run(None, {"input_ids": ids})[0]
    err = float(np.max(np.abs(got - want)))
    print(f"torch module vs onnxruntime ({args.config}): max abs error {err:.2e}")
    ok = err < 1e-4
    if args.telar_output:
        telar = np.load(args.telar_output)
        terr = float(np.max(np.abs(telar - want)))
        tol = 5e-2  # bf16
        print(f"telar (bf16) vs onnxruntime ({args.config}): max abs error {terr:.2e}")
        ok = ok and telar.shape == want.shape and np.allclose(telar, want, rtol=tol, atol=tol)
    return 0 if ok else 1


def report(args):
    c = CONFIGS[args.config]
    flops = model_flops(c)
    tokens = c["batch"] * c["seq"]
    with open(args.torch_json) as f:
        ref = json.load(f)
    rows = [("telar", args.telar_ms), ("torch eager", ref.get("eager_ms")),
            ("torch.compile", ref.get("compile_ms"))]
    print(f"GPT-like {args.config} forward ({c['layers']} layers, hidden {c['hidden']}, "
          f"{c['batch']} x {c['seq']} tokens, bf16; {flops / 1e12:.2f} TFLOP; "
          f"peak {args.peak_tflops:g} TFLOP/s)")
    print("| run | ms a forward | tokens/s | MFU |")
    print("|---|---|---|---|")
    for name, ms in rows:
        if ms is None:
            print(f"| {name} | - | - | - |")
            continue
        mfu = flops / (ms / 1e3) / (args.peak_tflops * 1e12)
        print(f"| {name} | {ms:.3f} | {tokens / (ms / 1e3):,.0f} | {100 * mfu:.1f} % |")
    for name, ms in rows[1:]:
        if ms:
            print(f"telar / {name} throughput: {ms / args.telar_ms:.2f}x")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="command", required=True)
    m = sub.add_parser("make")
    m.add_argument("dir")
    m.add_argument("--config", choices=CONFIGS, default="large")
    t = sub.add_parser("torch")
    t.add_argument("--config", choices=CONFIGS, default="large")
    t.add_argument("--device", default="cuda")
    t.add_argument("--iters", type=int, default=10)
    t.add_argument("--warmup", type=int, default=3)
    t.add_argument("--no-compile", action="store_true")
    t.add_argument("--json")
    q = sub.add_parser("same")
    q.add_argument("dir")
    q.add_argument("--config", choices=("tiny",), default="tiny")
    q.add_argument("--telar-output", help="telar's y.npy, compared too (bf16 tolerance)")
    r = sub.add_parser("report")
    r.add_argument("--config", choices=CONFIGS, default="large")
    r.add_argument("--telar-ms", type=float, required=True)
    r.add_argument("--torch-json", required=True)
    r.add_argument("--peak-tflops", type=float, default=790.0)
    args = ap.parse_args(argv)
    return {"make": make, "torch": run_torch, "same": same,
            "report": report}[args.command](args)


if __name__ == "__main__":
    sys.exit(main())
