#!/usr/bin/env python3
"""Training end to end: telarc --train + telar-run --train against PyTorch.

Usage:
    .venv/bin/python python/telar_testing/train_models.py [--out DIR] [--bin build/bin]
        [--telarc PATH] [--telar-run PATH]
        [--only mlp,lm,cnn,moe] [--optimizer sgd|adamw|both] [--steps 5] [--grad-clip F] [--grad-accum K]
        [--ranks N [--data-parallel [--zero 1|3]] [--megatron]] [--telarc-arg="--devices 2" ...] [--rtol 1e-4] [--atol 1e-5]
        [--wtol 1e-4] [--outlier-frac 0.01] [--timeout 600] [-v]
    .venv/bin/python python/telar_testing/train_models.py --reference-only [--only mlp]

Models (built after torch.manual_seed(0), float32, no dropout; each module's
forward returns the loss, exported as graph output "loss"):
    mlp   Linear(16,32)-ReLU-Linear(32,10), nn.CrossEntropyLoss;
          inputs x float32 [8, 16], labels int64 [8]
    lm    a tiny GPT-like LM: token embedding (vocab 50, d 32) + learned
          position embedding (nn.Embedding over an int64 `positions` buffer,
          seq 8); one pre-LN block written by hand (LayerNorm; q/k/v Linear,
          2 heads; scores * 1/sqrt(16); causal mask: a bool `causal` buffer,
          sliced [:T, :T], masked_fill(-inf); softmax; output Linear; residual;
          LayerNorm; Linear(32,128)-GELU(exact, erf)-Linear(128,32); residual);
          final LayerNorm; LM head Linear(32,50); nn.CrossEntropyLoss over
          logits.view(-1, 50) vs targets.view(-1); inputs ids, targets int64
          [2, 8] (targets = ids shifted by one token of a random sequence).
          The key projection has no bias: softmax is invariant to it, so its
          true gradient is 0 and AdamW would turn rounding noise into +-lr
          steps that no two implementations share. LayerNorm weights/biases
          start at 1 + 0.1 N(0,1) / 0.1 N(0,1) (not 1 / 0: a stronger check,
          and equal-valued initializers are what torch's exporter merges).
    cnn   a tiny ResNet: conv 3x3 (3->8, no bias), BatchNorm2d, ReLU,
          MaxPool 3x3 stride 2 pad 1; a basic block 8->8 and one 8->16 with
          stride 2 and a projection shortcut (conv 1x1 + BN); global average
          pool, Linear(16,10); nn.NLLLoss of log(softmax) (log_softmax would
          export fused as SoftmaxCrossEntropyLoss); BN in training mode (batch
          statistics; its running statistics are buffers, frozen); inputs x
          float32 [4, 3, 16, 16], labels int64 [4]. BN scales/shifts start at
          1 + 0.1 N(0,1) / 0.1 N(0,1).

    moe   a token classifier around the suite's GShard MoE layer
          (make_torch_models.GShardMoE: softmax gating, top-2 routing by
          topk, one_hot and cumsum with a capacity (factor 1.5), einsum
          dispatch and combine, 4 experts Linear(32,64)-ReLU-Linear(64,32)):
          Linear(16,32), the MoE plus a residual, Linear(32,10),
          nn.CrossEntropyLoss per token; inputs x float32 [2, 8, 16],
          labels int64 [2, 8]. The gates' gradient reaches the router
          through topk's values.

Each model is exported with torch.onnx.export(opset_version=17,
do_constant_folding=False, training=TrainingMode.TRAINING, fixed shapes): the
float initializers then keep their state_dict names (EVAL mode would merge
initializers of equal value, e.g. every LayerNorm's ones, into one with
Identity nodes). The export is checked: every named parameter must be an
initializer of that name (else exit 2), float initializers that are not
parameters are printed and passed to --freeze, and onnxruntime's loss on the
first batch must match torch's.

For each model and optimizer config (sgd: lr 0.1, momentum 0.9, weight decay 0;
adamw: lr 1e-2, betas 0.9,0.999, eps 1e-8, weight decay 0.01; both with
--grad-clip F when given, as torch.nn.utils.clip_grad_norm_: the global L2
norm of every trainable gradient, scaled by F / (norm + 1e-6) when above F;
F = 0.5 clips every step of both models), STEPS seeded
batches are saved as DIR/MODEL/INPUT.npy with a leading steps dimension, a deep
copy of the torch model is trained (loss of each step taken before its
update) and the tools are run. With --grad-accum K each step takes K
batches (files [STEPS, K, ...]; telarc --grad-accum K; torch backpropagates
loss / K of each and steps once; the step's loss is their mean):

    telarc DIR/MODEL.onnx --train --loss loss --optimizer OPT --lr .. (every
        hyper-parameter explicit) [--grad-clip F] [--freeze A,B] --target cpu
        [--telarc-arg ...] -o DIR/MODEL.OPT.art -q
    telar-run DIR/MODEL.OPT.art --train --steps STEPS --input NAME=FILE.npy ...
        [-n RANKS] --report DIR/MODEL.OPT.report.json
        --save-weights DIR/MODEL.OPT.safetensors
        --export-onnx DIR/MODEL.OPT.trained.onnx -q

The report's "losses" (one per step) must match torch's (|d| <= atol + rtol *
|torch|, defaults 1e-4 / 1e-5) and so must the "step I/N loss X" lines of
telar-run's stdout (with half a unit of the last printed digit more; every
line for a step, should several ranks print); the saved weights must hold
every trainable parameter, and nothing else, under its initializer name with
the model's dtype and shape, each element within wtol * max|w_torch| of the
tensor (default 1e-4) of torch's final value; the exported model must pass
the ONNX checker, hold the saved weights bit for bit (the other initializers
as the source has them) and give in onnxruntime, on the first batch, the
loss of torch's trained model (rtol/atol). With AdamW, up to
max(2, outlier_frac * size) elements of a tensor (default 1%) may be further
off, though within lr * steps: AdamW divides each gradient element by its own
running RMS, so elements whose gradient is near zero, or inexact in float32
(1 + erf(x) of exact GELU in its negative tail), take implementation-specific
steps of up to lr, and the trajectories then part a little (torch's own
float64 training ends up to 1.5e-3 * max|w| from its float32 one on a few
elements of the lm; 99.9% of elements are within 6e-5). A bug in the
optimizer moves most elements (a missing weight decay: 5 * lr * wd * |w| =
5e-4 |w|); a wrong gradient shows in the SGD config, which allows no outlier.
One line per model/config: PASS/FAIL, the losses of telar and torch, the worst
weight error. Exit 1 on any mismatch, else 2 when a tool failed (its output
is printed) or the export is wrong, else 0.

--reference-only runs only the torch part (export, checks, training) and prints
the reference losses, plus how a float64 copy of the same training fares
against the checks (a stand-in for an honest implementation: it must pass).
"""

from __future__ import annotations

import argparse
import copy
import json
import math
import os
import shlex
import shutil
import sys
import tempfile
import time
import warnings

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from runner import kill_commands_on_exit, run_cmd  # noqa: E402
from train_io import parse_step_lines, read_safetensors  # noqa: E402

OPSET = 17
SEED = 0
LOSS = "loss"

# Hyper-parameters of each config; every one is passed to telarc explicitly.
CONFIGS = {
    "sgd": dict(lr=0.1, momentum=0.9, weight_decay=0.0),
    "adamw": dict(lr=1e-2, betas=(0.9, 0.999), eps=1e-8, weight_decay=0.01),
}


# --------------------------------------------------------------------------- models
class MLP(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(16, 32), nn.ReLU(), nn.Linear(32, 10))
        self.loss = nn.CrossEntropyLoss()

    def forward(self, x, labels):
        return self.loss(self.net(x), labels)


def _perturb_layernorm(ln):
    with torch.no_grad():
        ln.weight.copy_(1 + 0.1 * torch.randn_like(ln.weight))
        ln.bias.copy_(0.1 * torch.randn_like(ln.bias))
    return ln


class Block(nn.Module):
    """Pre-LN transformer block, attention and MLP written out."""

    def __init__(self, d, heads, seq):
        super().__init__()
        self.heads = heads
        self.ln1 = _perturb_layernorm(nn.LayerNorm(d))
        self.q = nn.Linear(d, d)
        self.k = nn.Linear(d, d, bias=False)  # see the docstring
        self.v = nn.Linear(d, d)
        self.proj = nn.Linear(d, d)
        self.ln2 = _perturb_layernorm(nn.LayerNorm(d))
        self.fc = nn.Linear(d, 4 * d)
        self.out = nn.Linear(4 * d, d)
        self.register_buffer(
            "causal", torch.triu(torch.ones(seq, seq, dtype=torch.bool), diagonal=1))

    def forward(self, x):
        B, T, C = x.shape
        H = self.heads
        hd = C // H
        split = lambda t: t.view(B, T, H, hd).transpose(1, 2)  # noqa: E731
        h = self.ln1(x)
        q, k, v = split(self.q(h)), split(self.k(h)), split(self.v(h))
        att = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(hd))
        att = att.masked_fill(self.causal[:T, :T], float("-inf"))
        att = F.softmax(att, dim=-1)
        y = (att @ v).transpose(1, 2).reshape(B, T, C)
        x = x + self.proj(y)
        return x + self.out(F.gelu(self.fc(self.ln2(x))))


class TinyLM(nn.Module):
    def __init__(self, vocab=50, d=32, seq=8, heads=2):
        super().__init__()
        self.vocab = vocab
        self.tok = nn.Embedding(vocab, d)
        self.pos = nn.Embedding(seq, d)
        self.register_buffer("positions", torch.arange(seq))
        self.block = Block(d, heads, seq)
        self.ln_f = _perturb_layernorm(nn.LayerNorm(d))
        self.head = nn.Linear(d, vocab)
        self.loss = nn.CrossEntropyLoss()

    def forward(self, ids, targets):
        x = self.tok(ids) + self.pos(self.positions)
        logits = self.head(self.ln_f(self.block(x)))
        return self.loss(logits.view(-1, self.vocab), targets.view(-1))


class BasicBlock(nn.Module):
    """ResNet's basic block: two 3x3 conv-BN pairs, a projection shortcut
    (1x1 conv + BN) when the shape changes."""

    def __init__(self, cin, cout, stride):
        super().__init__()
        self.conv1 = nn.Conv2d(cin, cout, 3, stride, 1, bias=False)
        self.bn1 = nn.BatchNorm2d(cout)
        self.conv2 = nn.Conv2d(cout, cout, 3, 1, 1, bias=False)
        self.bn2 = nn.BatchNorm2d(cout)
        self.down = None
        if stride != 1 or cin != cout:
            self.down = nn.Sequential(nn.Conv2d(cin, cout, 1, stride, bias=False),
                                      nn.BatchNorm2d(cout))

    def forward(self, x):
        y = F.relu(self.bn1(self.conv1(x)))
        y = self.bn2(self.conv2(y))
        return F.relu(y + (x if self.down is None else self.down(x)))


class TinyResNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(3, 8, 3, 1, 1, bias=False)
        self.bn1 = nn.BatchNorm2d(8)
        self.pool = nn.MaxPool2d(3, 2, 1)
        self.layer1 = BasicBlock(8, 8, 1)
        self.layer2 = BasicBlock(8, 16, 2)
        self.fc = nn.Linear(16, 10)
        self.loss = nn.NLLLoss()
        with torch.no_grad():  # BN's scale and shift not 1 and 0 (as _perturb_layernorm)
            for m in self.modules():
                if isinstance(m, nn.BatchNorm2d):
                    m.weight.copy_(1 + 0.1 * torch.randn_like(m.weight))
                    m.bias.copy_(0.1 * torch.randn_like(m.bias))

    def forward(self, x, labels):
        x = self.pool(F.relu(self.bn1(self.conv1(x))))
        x = self.layer2(self.layer1(x))
        logits = self.fc(torch.flatten(F.adaptive_avg_pool2d(x, 1), 1))
        # log(softmax) rather than log_softmax: the exporter fuses the
        # latter with NLLLoss into SoftmaxCrossEntropyLoss.
        return self.loss(torch.log(F.softmax(logits, dim=1)), labels)


class TinyMoE(nn.Module):
    """A token classifier around the suite's GShard MoE layer
    (make_torch_models.GShardMoE: softmax gating, top-2 routing by one_hot
    and cumsum with a capacity, einsum dispatch and combine, experts
    Linear-ReLU-Linear): Linear(16, 32) in, the MoE (4 experts, hidden 64,
    16 tokens, capacity factor 1.5) plus a residual, Linear(32, 10) out,
    nn.CrossEntropyLoss per token."""

    def __init__(self):
        super().__init__()
        from make_torch_models import GShardMoE
        self.inp = nn.Linear(16, 32)
        self.moe = GShardMoE(d=32, h=64, experts=4, k=2, capacity_factor=1.5, tokens=16)
        self.out = nn.Linear(32, 10)
        self.loss = nn.CrossEntropyLoss()

    def forward(self, x, labels):
        h = self.inp(x)
        h = h + self.moe(h)
        return self.loss(self.out(h).reshape(-1, 10), labels.reshape(-1))


def moe_batches(rng, steps):
    return {"x": rng.standard_normal((steps, 2, 8, 16)).astype(np.float32),
            "labels": rng.integers(0, 10, (steps, 2, 8)).astype(np.int64)}


def cnn_batches(rng, steps):
    return {"x": rng.standard_normal((steps, 4, 3, 16, 16)).astype(np.float32),
            "labels": rng.integers(0, 10, (steps, 4)).astype(np.int64)}


def mlp_batches(rng, steps):
    return {"x": rng.standard_normal((steps, 8, 16)).astype(np.float32),
            "labels": rng.integers(0, 10, (steps, 8)).astype(np.int64)}


def lm_batches(rng, steps, vocab=50, batch=2, seq=8):
    tokens = rng.integers(0, vocab, (steps, batch, seq + 1)).astype(np.int64)
    return {"ids": np.ascontiguousarray(tokens[:, :, :-1]),
            "targets": np.ascontiguousarray(tokens[:, :, 1:])}


# name -> (constructor, batch generator, graph input names in forward's order)
MODELS = {
    "mlp": (MLP, mlp_batches, ["x", "labels"]),
    "lm": (TinyLM, lm_batches, ["ids", "targets"]),
    "cnn": (TinyResNet, cnn_batches, ["x", "labels"]),
    "moe": (TinyMoE, moe_batches, ["x", "labels"]),
}


def build(name, steps):
    """The seeded model (float32) and its STEPS batches {input: array with a
    leading steps dimension}."""
    ctor, batches, _ = MODELS[name]
    torch.manual_seed(SEED)
    model = ctor()
    data = batches(np.random.default_rng(SEED + 1), steps)
    return model, data


def step_inputs(data, names, i, dtype=torch.float32):
    """Torch tensors of step i (row i mod its length), floats as `dtype`."""
    out = []
    for n in names:
        a = torch.from_numpy(data[n][i % len(data[n])].copy())
        out.append(a.to(dtype) if a.is_floating_point() else a)
    return out


# --------------------------------------------------------------------------- export
def export(name, model, data, path):
    """Exports `model` to `path` and checks the export; returns (onnx ops
    summary, sorted float initializers that are not parameters). Raises
    RuntimeError when a parameter is not an initializer of its own name or
    onnxruntime's loss differs from torch's."""
    import onnx
    from onnx import numpy_helper
    names = MODELS[name][2]
    args = tuple(step_inputs(data, names, 0))
    with torch.enable_grad(), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.onnx.export(
            model, args, path, opset_version=OPSET, input_names=names,
            output_names=[LOSS], do_constant_folding=False,
            training=torch.onnx.TrainingMode.TRAINING)
    m = onnx.load(path)
    onnx.checker.check_model(m)
    inits = {i.name: i for i in m.graph.initializer}
    params = dict(model.named_parameters())
    missing = [n for n in params if n not in inits]
    if missing:
        raise RuntimeError(f"{path}: parameters that are not initializers of their name: "
                           f"{', '.join(missing)} (renamed or merged by the exporter)")
    for n, p in params.items():
        got = numpy_helper.to_array(inits[n])
        if got.shape != tuple(p.shape) or not np.array_equal(got, p.detach().numpy()):
            raise RuntimeError(f"{path}: initializer {n} is not parameter {n}'s value")
    floats = {onnx.TensorProto.FLOAT, onnx.TensorProto.DOUBLE, onnx.TensorProto.FLOAT16,
              onnx.TensorProto.BFLOAT16}
    not_params = sorted(n for n, i in inits.items() if i.data_type in floats and n not in params)
    if not_params:
        print(f"{name}: float initializers that are not parameters (frozen): "
              f"{', '.join(not_params)}", flush=True)

    import onnxruntime as ort
    so = ort.SessionOptions()
    so.log_severity_level = 3
    so.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
    sess = ort.InferenceSession(path, so, providers=["CPUExecutionProvider"])
    feeds = {n: a.numpy() for n, a in zip(names, args)}
    ort_loss = float(sess.run([LOSS], feeds)[0])
    with torch.no_grad():
        torch_loss = float(model(*args))
    if not abs(ort_loss - torch_loss) <= 1e-5 + 1e-5 * abs(torch_loss):
        raise RuntimeError(f"{path}: onnxruntime's loss {ort_loss!r} != torch's {torch_loss!r}")
    return op_summary(m), not_params


def op_summary(m):
    """'Op xN, ...' of the graph, with the attributes of the loss ops."""
    from onnx import helper
    counts, notes = {}, []
    for n in m.graph.node:
        counts[n.op_type] = counts.get(n.op_type, 0) + 1
        if n.op_type in ("SoftmaxCrossEntropyLoss", "NegativeLogLikelihoodLoss", "Gemm",
                         "LayerNormalization", "Softmax") and \
                n.op_type not in {x.split("(")[0] for x in notes}:
            attrs = ", ".join(helper.printable_attribute(a) for a in n.attribute)
            notes.append(f"{n.op_type}({attrs})")
    ops = ", ".join(f"{k} x{v}" for k, v in sorted(counts.items()))
    return f"{len(m.graph.node)} nodes: {ops}" + (f"; {'; '.join(notes)}" if notes else "")


# --------------------------------------------------------------------------- torch reference
def make_optimizer(opt, params, hp):
    if opt == "sgd":
        return torch.optim.SGD(params, lr=hp["lr"], momentum=hp["momentum"], dampening=0,
                               nesterov=False, weight_decay=hp["weight_decay"])
    return torch.optim.AdamW(params, lr=hp["lr"], betas=hp["betas"], eps=hp["eps"],
                             weight_decay=hp["weight_decay"])


def train_torch(name, model, data, opt, hp, steps, grad_clip, frozen, dtype=torch.float32,
                accum=1):
    """Trains a deep copy of `model` (as `dtype`), each step accumulating
    the gradients of `accum` batches (loss / accum backward; the step's loss
    their mean); returns (losses, final {param name: array}, steps whose
    gradient norm was clipped, the trained model's loss on the first
    batch)."""
    m = copy.deepcopy(model).to(dtype)
    m.train()
    named = [(n, p) for n, p in m.named_parameters() if n not in frozen]
    params = [p for _, p in named]
    optimizer = make_optimizer(opt, params, hp)
    names = MODELS[name][2]
    losses, clipped = [], 0
    for i in range(steps):
        optimizer.zero_grad(set_to_none=True)
        loss = 0.0
        for j in range(accum):
            part = m(*step_inputs(data, names, i * accum + j, dtype))
            (part / accum).backward()
            loss += float(part) / accum
        if grad_clip:
            clipped += float(torch.nn.utils.clip_grad_norm_(params, grad_clip)) > grad_clip
        optimizer.step()
        losses.append(float(loss))
    weights = {n: p.detach().numpy().copy() for n, p in named}
    with torch.no_grad():
        after = float(m(*step_inputs(data, names, 0, dtype)))
    return losses, weights, clipped, after


def compare_weight(got, ref, opt, hp, steps, a):
    """(problem or None, worst err / tol, err, tol, outliers) of one final
    weight: every element within wtol * max |ref|; with AdamW up to
    max(2, outlier_frac * size) elements may be further off, but within lr *
    steps (see the module docstring)."""
    tol = a.wtol * max(float(np.max(np.abs(ref))), 1e-30)
    err = np.abs(got.astype(np.float64) - ref.astype(np.float64))
    err = np.where(np.isfinite(err), err, np.inf)
    k = int(np.argmax(err))
    out = err > tol
    n_out = int(np.sum(out))
    allowed, cap = 0, tol
    if opt == "adamw":
        allowed = max(2, int(a.outlier_frac * ref.size))
        cap = max(tol, hp["lr"] * steps)
    problem = None
    if n_out > allowed or err.flat[k] > cap:
        idx = list(np.unravel_index(k, ref.shape))
        problem = (f"{n_out} of {ref.size} elements off by more than {tol:.3g}"
                   + (f" ({allowed} allowed, each within {cap:.3g})" if allowed else "")
                   + f"; worst {idx}: telar {got.flat[k]!r} torch {ref.flat[k]!r} "
                   f"(err {err.flat[k]:.3g})")
    return problem, float(err.flat[k]) / tol, float(err.flat[k]), tol, n_out if allowed else 0


# --------------------------------------------------------------------------- telar
def telarc_args(opt, hp, grad_clip, grad_accum=1):
    args = ["--train", "--loss", LOSS, "--optimizer", opt, "--lr", repr(hp["lr"]),
            "--weight-decay", repr(hp["weight_decay"])]
    if opt == "sgd":
        args += ["--momentum", repr(hp["momentum"])]
    else:
        args += ["--betas", ",".join(repr(b) for b in hp["betas"]), "--eps", repr(hp["eps"])]
    if grad_clip:
        args += ["--grad-clip", repr(grad_clip)]
    if grad_accum > 1:
        args += ["--grad-accum", str(grad_accum)]
    return args


def close(got, ref, rtol, atol):
    return math.isfinite(got) and abs(got - ref) <= atol + rtol * abs(ref)


def compare_weights(saved, ref_weights, opt, hp, steps, a, what="telar"):
    """Compares the trained weights `saved` {name: array} with torch's;
    returns (problems, summary): every trainable parameter present with
    torch's dtype and shape and within compare_weight's tolerance, nothing
    else saved."""
    problems = []
    worst = (-1.0, "-", 0.0, 0.0)  # (err / tol, name, err, tol)
    outliers = 0
    for n, ref in ref_weights.items():
        if n not in saved:
            problems.append(f"{what}'s weights lack parameter {n}")
            continue
        w = saved[n]
        if w.shape != ref.shape or w.dtype != ref.dtype:
            problems.append(f"{n}: {w.dtype}{list(w.shape)}, expected "
                            f"{ref.dtype}{list(ref.shape)}")
            continue
        if not w.size:
            continue
        problem, ratio, err, tol, n_out = compare_weight(w, ref, opt, hp, steps, a)
        if problem:
            problems.append(f"{n}: {problem}")
        outliers += n_out
        if ratio > worst[0]:
            worst = (ratio, n, err, tol)
    unexpected = sorted(set(saved) - set(ref_weights))
    if unexpected:
        problems.append(f"{what}'s weights have tensors that are not trainable parameters: "
                        f"{', '.join(unexpected)}")
    summary = f"worst weight err {worst[2]:.3g} ({worst[1]}, tol {worst[3]:.3g})"
    if opt == "adamw":
        total = sum(r.size for r in ref_weights.values())
        summary += f", {outliers} of {total} elements beyond tol (AdamW outliers)"
    return problems, summary


def fmt_losses(xs):
    return " ".join(f"{x:.6f}" for x in xs)


# Megatron-LM's tensor parallelism for each model, on a "model" axis: the
# first linear of each pair split by output features (column parallel), the
# second by input features (row parallel, its result all-reduced).
MEGATRON = {
    "mlp": {"net.0.weight": [["model"], []], "net.0.bias": [["model"]],
            "net.2.weight": [[], ["model"]]},
    "lm": {"block.q.weight": [["model"], []], "block.q.bias": [["model"]],
           "block.k.weight": [["model"], []],
           "block.v.weight": [["model"], []], "block.v.bias": [["model"]],
           "block.proj.weight": [[], ["model"]],
           "block.fc.weight": [["model"], []], "block.fc.bias": [["model"]],
           "block.out.weight": [[], ["model"]]},
}

# The optimizer state telarc --train keeps per parameter (plans name it
# <parameter>@<state>).
STATE_NAMES = {"sgd": ["momentum"], "adamw": ["m", "v"]}


def graph_inputs(path):
    """{name: ValueInfoProto} of the model's graph inputs."""
    import onnx
    return {i.name: i for i in onnx.load(path, load_external_data=False).graph.input}


def check_exported(path, source, saved, data_paths, names, batch_shapes, ref_after, a):
    """Problems of telar-run's --export-onnx model: it must pass the ONNX
    checker, hold the saved (trained) weights bit for bit and the source's
    other initializers unchanged, and give in onnxruntime the trained torch
    model's loss on the first batch (rtol/atol)."""
    import onnx
    import onnxruntime as ort
    from onnx import numpy_helper
    try:
        m = onnx.load(path)
        onnx.checker.check_model(m)
    except Exception as e:
        return [f"--export-onnx model: {type(e).__name__}: {e}"]
    problems = []
    got = {i.name: numpy_helper.to_array(i) for i in m.graph.initializer}
    src = {i.name: numpy_helper.to_array(i) for i in onnx.load(source).graph.initializer}
    if sorted(got) != sorted(src):
        problems.append("--export-onnx model: initializers differ from the source's")
    for n, want in src.items():
        w = saved.get(n, want)
        if n in got and not np.array_equal(got[n], w):
            problems.append(f"--export-onnx model: initializer {n} is not the "
                            f"{'trained' if n in saved else 'source'} value")
    so = ort.SessionOptions()
    so.log_severity_level = 3
    sess = ort.InferenceSession(path, so, providers=["CPUExecutionProvider"])
    feeds = {n: np.load(data_paths[n]).reshape((-1,) + batch_shapes[n])[0] for n in names}
    loss = float(sess.run([LOSS], feeds)[0])
    if not close(loss, ref_after, a.rtol, a.atol):
        problems.append(f"--export-onnx model: onnxruntime's loss on the first batch "
                        f"{loss!r}, the trained torch model's {ref_after!r}")
    return problems


def check_config(name, opt, a, data_paths, onnx_path, ref_losses, ref_weights, frozen,
                 ref_after):
    """Runs telarc + telar-run for one config; returns (status, line, detail)
    with status 'PASS', 'FAIL' or 'ERROR' (a tool failed)."""
    hp = CONFIGS[opt]
    tag = f"{name}/{opt}"
    art = os.path.join(a.out, f"{name}.{opt}.art")
    report = os.path.join(a.out, f"{name}.{opt}.report.json")
    wfile = os.path.join(a.out, f"{name}.{opt}.safetensors")
    exported = os.path.join(a.out, f"{name}.{opt}.trained.onnx")
    for p in (art, report, wfile, exported):
        if os.path.isdir(p):
            shutil.rmtree(p)
        elif os.path.exists(p):
            os.remove(p)
    cmd = [a.telarc, onnx_path] + telarc_args(opt, hp, a.grad_clip, a.grad_accum)
    if frozen:
        cmd += ["--freeze", ",".join(frozen)]
    if a.data_parallel or a.megatron:
        # Data parallel: every input split along its batch dimension on the
        # data axis; Megatron: the model's tensor-parallel shardings on the
        # model axis; both: a data x model mesh of --ranks devices.
        data = a.ranks // 2 if a.megatron else a.ranks
        mesh = {}
        shardings = {}
        if a.data_parallel:
            mesh["data"] = data
            for inp, path in data_paths.items():
                # minus the steps dim (and the microbatches dim, which stays whole)
                rank = np.load(path, mmap_mode="r").ndim - 1 - (a.grad_accum > 1)
                shardings[inp] = ([[]] if a.grad_accum > 1 else []) + \
                    [["data"]] + [[] for _ in range(rank - 1)]
            # ZeRO-1/2: each parameter's optimizer state split along its
            # first dimension over the data axis (where it divides); ZeRO-3
            # the parameter itself too (gathered where the step uses it).
            zero_names = {1: STATE_NAMES[opt], 3: [""] + STATE_NAMES[opt]}.get(a.zero, [])
            for pname, w in ref_weights.items():
                if w.ndim and w.shape[0] % data == 0:
                    for state in zero_names:
                        shardings[pname + (f"@{state}" if state else "")] = \
                            [["data"]] + [[] for _ in range(w.ndim - 1)]
        if a.megatron:
            mesh["model"] = 2 if a.data_parallel else a.ranks
            shardings.update(MEGATRON[name])
        plan = os.path.join(a.out, f"{name}.{opt}.plan.json")
        with open(plan, "w") as f:
            json.dump({"mesh": mesh, "shardings": shardings}, f)
        cmd += ["--plan", plan]
    cmd += ["--target", "cpu"] + a.extra_telarc + ["-o", art, "-q"]
    if a.verbose:
        print("  $ " + shlex.join(cmd), flush=True)
    rc, text, _, secs = run_cmd(cmd, a.timeout)
    if rc != 0:
        return "ERROR", f"ERROR {tag}: telarc failed (rc={rc}, {secs:.1f}s)", \
            f"$ {shlex.join(cmd)}\n{text.rstrip()}"
    cmd = [a.telar_run, art, "--train", "--steps", str(a.steps)]
    for inp, p in data_paths.items():
        cmd += ["--input", f"{inp}={p}"]
    if a.ranks > 1:
        cmd += ["-n", str(a.ranks)]
    cmd += ["--report", report, "--save-weights", wfile, "--export-onnx", exported, "-q"]
    if a.verbose:
        print("  $ " + shlex.join(cmd), flush=True)
    rc, text, stdout, secs = run_cmd(cmd, a.timeout)
    if rc != 0:
        return "ERROR", f"ERROR {tag}: telar-run failed (rc={rc}, {secs:.1f}s)", \
            f"$ {shlex.join(cmd)}\n{text.rstrip()}"

    problems = []
    # Losses: the report's, then stdout's lines.
    try:
        with open(report) as f:
            got = [float(x) for x in json.load(f)["losses"]]
    except (OSError, ValueError, KeyError, TypeError) as e:
        return "ERROR", f"ERROR {tag}: no \"losses\" list in {report}: {e}", text.rstrip()
    if len(got) != a.steps:
        problems.append(f"report has {len(got)} losses, expected {a.steps}")
    bad = [i for i, (g, r) in enumerate(zip(got, ref_losses))
           if not close(g, r, a.rtol, a.atol)]
    if bad:
        problems.append("losses differ at step " + ", ".join(str(i + 1) for i in bad))
    loss_err = max((abs(g - r) / max(abs(r), 1e-30) for g, r in zip(got, ref_losses)),
                   default=float("nan"))
    lines = parse_step_lines(stdout)
    for i, r in enumerate(ref_losses, 1):
        if i not in lines:
            problems.append(f"no 'step {i}/{a.steps} loss X' line on stdout")
            continue
        for v, ulp, total in lines[i]:
            if total != a.steps:
                problems.append(f"stdout 'step {i}/{total}': expected /{a.steps}")
            if not close(v, r, a.rtol, a.atol + ulp):
                problems.append(f"stdout step {i} loss {v!r}, torch {r!r}")
    extra = sorted(set(lines) - set(range(1, a.steps + 1)))
    if extra:
        problems.append(f"stdout has step lines for steps {extra}")

    # Weights.
    try:
        saved = read_safetensors(wfile)
    except (OSError, ValueError) as e:
        return "ERROR", f"ERROR {tag}: cannot read {wfile}: {e}", text.rstrip()
    wproblems, wsummary = compare_weights(saved, ref_weights, opt, hp, a.steps, a)
    problems += wproblems
    batch_shapes = {n: tuple(d.dim_value for d in i.type.tensor_type.shape.dim)
                    for n, i in graph_inputs(onnx_path).items()}
    problems += check_exported(exported, onnx_path, saved, data_paths, MODELS[name][2],
                               batch_shapes, ref_after, a)

    status = "FAIL" if problems else "PASS"
    line = (f"{status} {tag}: losses telar [{fmt_losses(got)}] torch [{fmt_losses(ref_losses)}] "
            f"(max rel err {loss_err:.2g}); {wsummary}")
    return status, line, "\n".join(f"    {p}" for p in problems[:20])


# --------------------------------------------------------------------------- main
def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--out", help="work directory (kept; default: a temporary one, removed)")
    p.add_argument("--bin", default="build/bin", help="directory of telarc and telar-run")
    p.add_argument("--telarc", help="telarc to run (default: BIN/telarc)")
    p.add_argument("--telar-run", help="telar-run to run (default: BIN/telar-run)")
    p.add_argument("--only", default="", help="comma-separated subset of: " + ",".join(MODELS))
    p.add_argument("--optimizer", choices=["sgd", "adamw", "both"], default="both")
    p.add_argument("--steps", type=int, default=5)
    p.add_argument("--grad-clip", type=float, default=None,
                   help="clip the global gradient norm to F (torch's clip_grad_norm_; "
                        "passed to telarc as --grad-clip F)")
    p.add_argument("--grad-accum", type=int, default=1,
                   help="accumulate K microbatches per step (telarc --grad-accum K; torch: "
                        "loss / K backward K times, then one optimizer step)")
    p.add_argument("--ranks", type=int, default=1, help="telar-run -n RANKS when > 1")
    p.add_argument("--data-parallel", action="store_true",
                   help="compile with a plan that splits every input's batch "
                        "dimension on a 'data' axis of --ranks devices")
    p.add_argument("--megatron", action="store_true",
                   help="compile with Megatron-LM's tensor-parallel plan of each "
                        "model on a 'model' axis of --ranks devices")
    p.add_argument("--zero", type=int, choices=[1, 3], default=0,
                   help="with --data-parallel: also split every parameter's "
                        "optimizer state over the data axis (1: ZeRO-1/2), and "
                        "the parameters themselves (3: ZeRO-3/FSDP-style)")
    p.add_argument("--telarc-arg", action="append", default=[],
                   help="extra telarc arguments, split like a shell: "
                        "--telarc-arg='--mesh data=2' (repeatable)")
    p.add_argument("--rtol", type=float, default=1e-4, help="loss rtol (default 1e-4)")
    p.add_argument("--atol", type=float, default=1e-5, help="loss atol (default 1e-5)")
    p.add_argument("--wtol", type=float, default=1e-4,
                   help="weight tolerance relative to max |w| of each tensor (default 1e-4)")
    p.add_argument("--outlier-frac", type=float, default=0.01,
                   help="AdamW: fraction of a tensor's elements (at least 2) allowed "
                        "beyond --wtol, each within lr * steps (default 0.01)")
    p.add_argument("--timeout", type=float, default=600, help="seconds per command")
    p.add_argument("--reference-only", action="store_true",
                   help="only export, check and train with torch; print the losses")
    p.add_argument("-v", "--verbose", action="store_true", help="print the commands")
    a = p.parse_args(argv)

    names = [n for n in a.only.split(",") if n] or list(MODELS)
    for n in names:
        if n not in MODELS:
            p.error(f"unknown model {n!r}; known: {', '.join(MODELS)}")
    opts = list(CONFIGS) if a.optimizer == "both" else [a.optimizer]
    if a.steps < 1:
        p.error("--steps must be >= 1")
    if a.grad_accum < 1:
        p.error("--grad-accum must be >= 1")
    if a.data_parallel and a.ranks < 2:
        p.error("--data-parallel needs --ranks N >= 2")
    if a.megatron and a.ranks < 2:
        p.error("--megatron needs --ranks N >= 2")
    if a.megatron and a.data_parallel and (a.ranks < 4 or a.ranks % 2):
        p.error("--megatron --data-parallel (a data x model mesh, the model axis of "
                "size 2) needs an even --ranks N >= 4")
    if a.megatron and [n for n in names if n not in MEGATRON]:
        p.error(f"--megatron has plans for {', '.join(MEGATRON)} only (use --only)")
    if a.zero and (not a.data_parallel or a.megatron):
        p.error("--zero needs --data-parallel (without --megatron)")
    a.extra_telarc = [x for s in a.telarc_arg for x in shlex.split(s)]
    a.telarc = a.telarc or os.path.join(a.bin, "telarc")
    a.telar_run = a.telar_run or os.path.join(a.bin, "telar-run")
    if not a.reference_only:
        for tool in (a.telarc, a.telar_run):
            if not os.access(tool, os.X_OK):
                print(f"train-models: {tool} is not an executable (use --bin DIR or --telarc/--telar-run)",
                      file=sys.stderr)
                return 2
    kill_commands_on_exit()
    torch.set_num_threads(1)
    temp = a.out is None
    a.out = a.out or tempfile.mkdtemp(prefix="telar-train-")
    os.makedirs(a.out, exist_ok=True)

    counts = {"PASS": 0, "FAIL": 0, "ERROR": 0}
    try:
        for name in names:
            model, data = build(name, a.steps * a.grad_accum)
            onnx_path = os.path.join(a.out, f"{name}.onnx")
            try:
                summary, frozen = export(name, model, data, onnx_path)
            except Exception as e:  # a wrong export is the harness's failure
                print(f"ERROR {name}: export: {type(e).__name__}: {e}", flush=True)
                counts["ERROR"] += len(opts)
                continue
            print(f"{name}: {onnx_path}: {summary}", flush=True)
            data_dir = os.path.join(a.out, name)
            os.makedirs(data_dir, exist_ok=True)
            data_paths = {}
            for inp, arr in data.items():
                data_paths[inp] = os.path.join(data_dir, f"{inp}.npy")
                if a.grad_accum > 1:  # [steps, K, batch...]: K microbatches a step
                    arr = arr.reshape((a.steps, a.grad_accum) + arr.shape[1:])
                np.save(data_paths[inp], arr)
            for opt in opts:
                t0 = time.time()
                hp = CONFIGS[opt]
                losses, weights, clipped, after = train_torch(
                    name, model, data, opt, hp, a.steps, a.grad_clip, frozen,
                    accum=a.grad_accum)
                clip_note = f", clipped {clipped}/{a.steps} steps" if a.grad_clip else ""
                if a.reference_only:
                    # The float64 run stands in for telar: it must pass the
                    # checks with room to spare.
                    l64, w64, _, _ = train_torch(name, model, data, opt, hp, a.steps,
                                                 a.grad_clip, frozen, torch.float64,
                                                 accum=a.grad_accum)
                    dl = max(abs(x - y) / (a.atol + a.rtol * abs(y))
                             for x, y in zip(l64, losses))
                    w64 = {n: w.astype(weights[n].dtype) for n, w in w64.items()}
                    wproblems, wsummary = compare_weights(w64, weights, opt, hp, a.steps, a,
                                                          "float64 training")
                    print(f"REFERENCE {name}/{opt}: losses torch [{fmt_losses(losses)}]"
                          f"{clip_note}; float64 training vs these: loss err {dl:.2g} of its "
                          f"tolerance, {wsummary}", flush=True)
                    for pr in wproblems:
                        print(f"    float64 training would fail: {pr}", flush=True)
                    counts["PASS"] += 1
                    continue
                status, line, detail = check_config(name, opt, a, data_paths, onnx_path,
                                                    losses, weights, frozen, after)
                counts[status] += 1
                print(f"{line}{clip_note} [{time.time() - t0:.1f}s]", flush=True)
                if detail:
                    print(detail, flush=True)
    finally:
        if temp:
            shutil.rmtree(a.out, ignore_errors=True)

    if a.reference_only:
        print(f"train-models: reference only, {counts['PASS']} configs trained with torch")
        return 0
    print(f"train-models: {counts['PASS']} passed, {counts['FAIL']} failed, "
          f"{counts['ERROR']} tool errors")
    return 1 if counts["FAIL"] else (2 if counts["ERROR"] else 0)


if __name__ == "__main__":
    sys.exit(main())
