#!/usr/bin/env python3
"""Export small, seeded test models from PyTorch to ONNX (opset 17, static shapes).

Usage:
    .venv/bin/python python/telar_testing/make_torch_models.py --out build/models
    .venv/bin/python python/telar_testing/make_torch_models.py --out DIR --only gpt,moe_einsum
    .venv/bin/python python/telar_testing/make_torch_models.py --out DIR --no-check
    .venv/bin/python python/telar_testing/make_torch_models.py --out DIR --size mini
    .venv/bin/python python/telar_testing/make_torch_models.py --out DIR --size bench

Writes into DIR, for each model NAME:
    NAME.onnx           the model, exported by torch.onnx.export(opset_version=17),
                        fixed input shapes (no dynamic_axes), random weights
                        (torch.manual_seed(SEED) before building each model)
    NAME.inputs.npz     the inputs, keyed by ONNX graph input name
    NAME.outputs.npz    torch's outputs for those inputs, keyed by ONNX output name
    NAME.ort_outputs.npz onnxruntime's outputs (CPUExecutionProvider; with --check)

Models:
    gpt         token + position embeddings, nn.TransformerEncoder (2 layers,
                d_model 64, 4 heads) with a causal mask, final LayerNorm, LM head;
                vocab 100, input_ids int64 [2, 16] -> logits [2, 16, 100]
    bert        word + position + token-type embeddings, LayerNorm,
                nn.TransformerEncoder (2 layers, GELU), key-padding mask from
                attention_mask, pooler (dense + tanh on token 0);
                input_ids/token_type_ids/attention_mask int64 [2, 16]
                -> sequence_output [2, 16, 64], pooled_output [2, 64]
    resnet18    torchvision.models.resnet18(weights=None), input [1, 3, 64, 64]
    vit         torchvision.models.VisionTransformer(image_size=32, patch_size=8,
                num_layers=2, num_heads=2, hidden_dim=64, mlp_dim=128,
                num_classes=10), input [1, 3, 32, 32]
    moe_einsum  GShard-style top-2 mixture-of-experts FFN written with torch.einsum:
                softmax gating, topk + one_hot routing, per-expert capacity
                (cumsum positions), dispatch/combine einsums, expert weights
                [E, d, h] / [E, h, d]; x float32 [2, 8, 32] -> y [2, 8, 32]
    moe_grouped GShard's grouped form of the same layer: the batch rows are the
                groups, each with its own per-expert capacity (cumsum within the
                group, capacity factor 1), dispatch `gsec,gsd->egcd`, expert FFN on [E, G, C, d],
                combine `gsec,egcd->gsd`; x float32 [2, 8, 32] -> y [2, 8, 32]
    t5_encoder  T5's encoder, written here (no `transformers`): token embedding;
                per layer T5LayerNorm (RMS scaling with a weight, no mean
                subtraction, no bias, eps 1e-6) before self-attention and before
                the FFN; self-attention without biases and without the 1/sqrt(d)
                scaling, plus T5's bidirectional bucketed relative position bias
                (32 buckets, max distance 128, buckets computed in the graph from
                arange; the first layer's bias table shared by every layer, as in
                T5) plus the additive padding mask (1 - attention_mask) * float32
                min; ReLU FFN (wi, wo, no biases); residual adds; final
                T5LayerNorm. d_model 64, 4 heads (d_kv 16), ff 256, 2 layers,
                vocab 100; input_ids/attention_mask int64 [2, 16] (the last
                sequence's tail padded) -> last_hidden_state [2, 16, 64]

Sizes above are --size small (the default); --batch N overrides the batch
dimension of every model's inputs (the sharded tests use 1, 2 and 4).
--size mini makes small transformers as a user would first try them (the
benchmark's second size): gpt, bert and t5_encoder d_model 128, 4 heads, ff 512,
2 layers, vocab 512, [1, 32] tokens; resnet18 at [1, 3, 64, 64] (as small); vit
image 64, patch 16 (17 tokens), hidden 128, 4 heads, mlp 512, 2 layers;
moe_einsum d 128, h 512, 4 experts, x [1, 32, 128]; moe_grouped d 128, h 512,
4 experts, x [2, 16, 128] (2 groups of 16 tokens).
--size bench makes benchmark-sized variants: gpt, bert and t5_encoder d_model
512, 8 heads, 4 layers, ff 2048, vocab 2048, [1, 128] tokens; resnet18 at
[1, 3, 224, 224]; vit ViT-S/16-like (224x224, patch 16, hidden 384, 6 heads,
mlp 1536) with 4 layers; moe_einsum d 256, h 1024, 8 experts, x [1, 128, 256];
moe_grouped d 256, h 1024, 8 experts, x [4, 32, 256] (4 groups of 32 tokens).

With --check (the default) each exported model is also run with onnxruntime and
compared with torch's outputs; a mismatch is an error (exit 1).

All models are exported in eval mode. Torch 1.13's "fast path" kernels of
nn.TransformerEncoderLayer / nn.MultiheadAttention (_transformer_encoder_layer_fwd,
_native_multi_head_attention) have no ONNX symbolic; they are only taken under
no_grad, so the export runs with grad enabled (torch.onnx.export traces the
slow, decomposed path) and nested tensors are disabled.
"""

from __future__ import annotations

import argparse
import io
import math
import os
import sys
import time
import warnings

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

OPSET = 17
SEED = 0


# --------------------------------------------------------------------------- GPT
class TinyGPT(nn.Module):
    def __init__(self, vocab=100, seq=16, d_model=64, heads=4, layers=2, ff=256):
        super().__init__()
        self.tok = nn.Embedding(vocab, d_model)
        self.pos = nn.Embedding(seq, d_model)
        layer = nn.TransformerEncoderLayer(
            d_model, heads, dim_feedforward=ff, dropout=0.0, activation="gelu",
            batch_first=True, norm_first=True)
        self.blocks = nn.TransformerEncoder(layer, layers, enable_nested_tensor=False)
        self.ln_f = nn.LayerNorm(d_model)
        self.head = nn.Linear(d_model, vocab, bias=False)
        # Additive causal mask, a constant in the exported graph.
        mask = torch.triu(torch.full((seq, seq), float("-inf")), diagonal=1)
        self.register_buffer("causal_mask", mask)
        self.register_buffer("positions", torch.arange(seq).unsqueeze(0))

    def forward(self, input_ids):
        x = self.tok(input_ids) + self.pos(self.positions)
        x = self.blocks(x, mask=self.causal_mask)
        return self.head(self.ln_f(x))


# -------------------------------------------------------------------------- BERT
class TinyBERT(nn.Module):
    def __init__(self, vocab=100, seq=16, d_model=64, heads=4, layers=2, ff=256,
                 type_vocab=2):
        super().__init__()
        self.word = nn.Embedding(vocab, d_model)
        self.pos = nn.Embedding(seq, d_model)
        self.token_type = nn.Embedding(type_vocab, d_model)
        self.emb_ln = nn.LayerNorm(d_model, eps=1e-12)
        layer = nn.TransformerEncoderLayer(
            d_model, heads, dim_feedforward=ff, dropout=0.0, activation="gelu",
            batch_first=True, norm_first=False, layer_norm_eps=1e-12)
        self.encoder = nn.TransformerEncoder(layer, layers, enable_nested_tensor=False)
        self.pooler = nn.Linear(d_model, d_model)
        self.register_buffer("positions", torch.arange(seq).unsqueeze(0))

    def forward(self, input_ids, token_type_ids, attention_mask):
        x = self.word(input_ids) + self.pos(self.positions) + self.token_type(token_type_ids)
        x = self.emb_ln(x)
        # Additive float key mask [B, S] -> [B*heads, S, S] is what MHA builds from a
        # bool key_padding_mask; pass the bool mask (True = ignore).
        x = self.encoder(x, src_key_padding_mask=attention_mask == 0)
        pooled = torch.tanh(self.pooler(x[:, 0]))
        return x, pooled


# --------------------------------------------------------------------------- MoE
class GShardMoE(nn.Module):
    """Top-k (k=1 or 2) MoE FFN in GShard's einsum formulation.

    Shapes: S tokens (B*T), d model dim, E experts, C capacity, h hidden.
    """

    def __init__(self, d=32, h=64, experts=4, k=2, capacity_factor=1.5, tokens=16):
        super().__init__()
        assert k in (1, 2)
        self.k, self.E = k, experts
        self.C = int(math.ceil(capacity_factor * k * tokens / experts))
        self.wg = nn.Parameter(torch.randn(d, experts) / math.sqrt(d))
        self.w1 = nn.Parameter(torch.randn(experts, d, h) / math.sqrt(d))
        self.b1 = nn.Parameter(torch.randn(experts, h) * 0.1)
        self.w2 = nn.Parameter(torch.randn(experts, h, d) / math.sqrt(h))
        self.b2 = nn.Parameter(torch.randn(experts, d) * 0.1)

    def forward(self, x):
        B, T, d = x.shape
        s = x.reshape(B * T, d)                                  # [S, d]
        logits = torch.einsum("sd,de->se", s, self.wg)           # [S, E]
        gates = torch.softmax(logits, dim=-1)
        top_val, top_idx = torch.topk(gates, self.k, dim=-1)     # [S, k]
        if self.k == 2:  # renormalise the two chosen gates
            top_val = top_val / top_val.sum(dim=-1, keepdim=True)
        combine = None
        prior = None
        for i in range(self.k):
            mask = F.one_hot(top_idx[:, i], self.E).to(x.dtype)          # [S, E]
            # Slot of each token in its expert's buffer (GShard: cumsum - 1),
            # second choices queue behind all first choices.
            loc = torch.cumsum(mask, dim=0) - 1.0
            if prior is not None:
                loc = loc + prior
            mask = mask * (loc < self.C).to(x.dtype)                     # drop overflow
            prior = mask.sum(dim=0, keepdim=True) if prior is None else prior + mask.sum(dim=0, keepdim=True)
            loc_s = (loc * mask).sum(dim=-1).to(torch.int64)             # [S]
            loc_oh = F.one_hot(loc_s, self.C).to(x.dtype)                # [S, C]
            gate = top_val[:, i] * mask.sum(dim=-1)                      # [S]
            term = torch.einsum("s,se,sc->sec", gate, mask, loc_oh)      # [S, E, C]
            combine = term if combine is None else combine + term
        dispatch = (combine > 0).to(x.dtype)                             # [S, E, C]
        xe = torch.einsum("sec,sd->ecd", dispatch, s)                    # [E, C, d]
        hid = torch.einsum("ecd,edh->ech", xe, self.w1) + self.b1.unsqueeze(1)
        hid = F.relu(hid)
        ye = torch.einsum("ech,ehd->ecd", hid, self.w2) + self.b2.unsqueeze(1)
        y = torch.einsum("sec,ecd->sd", combine, ye)                     # [S, d]
        return y.reshape(B, T, d)


class GShardGroupedMoE(nn.Module):
    """Top-2 MoE FFN in GShard's grouped einsum form: tokens come in groups
    (G groups of S tokens; here the batch rows), each group routes its own
    tokens with its own expert capacity (cumsum within the group), so the
    dispatch `gsec,gsd->egcd` keeps the group dim and expert parallelism with
    the groups and the experts on one axis is an all-to-all.

    Shapes: G groups, S tokens per group, d model dim, E experts,
    C capacity per group and expert, h hidden.
    """

    def __init__(self, d=32, h=64, experts=4, k=2, capacity_factor=1.5, group_size=8):
        super().__init__()
        assert k in (1, 2)
        self.k, self.E = k, experts
        self.C = int(math.ceil(capacity_factor * k * group_size / experts))
        self.wg = nn.Parameter(torch.randn(d, experts) / math.sqrt(d))
        self.w1 = nn.Parameter(torch.randn(experts, d, h) / math.sqrt(d))
        self.b1 = nn.Parameter(torch.randn(experts, h) * 0.1)
        self.w2 = nn.Parameter(torch.randn(experts, h, d) / math.sqrt(h))
        self.b2 = nn.Parameter(torch.randn(experts, d) * 0.1)

    def forward(self, x):                                        # x [G, S, d]
        logits = torch.einsum("gsd,de->gse", x, self.wg)         # [G, S, E]
        gates = torch.softmax(logits, dim=-1)
        top_val, top_idx = torch.topk(gates, self.k, dim=-1)     # [G, S, k]
        if self.k == 2:
            top_val = top_val / top_val.sum(dim=-1, keepdim=True)
        combine = None
        prior = None
        for i in range(self.k):
            mask = F.one_hot(top_idx[:, :, i], self.E).to(x.dtype)       # [G, S, E]
            # Slot in the expert's buffer of this group: cumsum over the
            # group's own tokens only (GShard's per-group capacity).
            loc = torch.cumsum(mask, dim=1) - 1.0
            if prior is not None:
                loc = loc + prior
            mask = mask * (loc < self.C).to(x.dtype)                     # drop overflow
            used = mask.sum(dim=1, keepdim=True)                         # [G, 1, E]
            prior = used if prior is None else prior + used
            loc_s = (loc * mask).sum(dim=-1).to(torch.int64)             # [G, S]
            loc_oh = F.one_hot(loc_s, self.C).to(x.dtype)                # [G, S, C]
            gate = top_val[:, :, i] * mask.sum(dim=-1)                   # [G, S]
            term = torch.einsum("gs,gse,gsc->gsec", gate, mask, loc_oh)  # [G, S, E, C]
            combine = term if combine is None else combine + term
        dispatch = (combine > 0).to(x.dtype)                             # [G, S, E, C]
        xe = torch.einsum("gsec,gsd->egcd", dispatch, x)                 # [E, G, C, d]
        hid = torch.einsum("egcd,edh->egch", xe, self.w1) + self.b1[:, None, None, :]
        hid = F.relu(hid)
        ye = torch.einsum("egch,ehd->egcd", hid, self.w2) + self.b2[:, None, None, :]
        y = torch.einsum("gsec,egcd->gsd", combine, ye)                  # [G, S, d]
        # A static-shape Reshape: the exporter leaves the Einsum's dims symbolic.
        return y.reshape(x.shape[0], x.shape[1], x.shape[2])


# ------------------------------------------------------------------- T5 encoder
class T5LayerNorm(nn.Module):
    """T5's layer norm: RMS scaling with a weight, no mean subtraction, no bias."""

    def __init__(self, d, eps=1e-6):
        super().__init__()
        self.eps = eps
        # T5 initialises the weight to ones; random around 1 keeps the check honest.
        self.weight = nn.Parameter(1.0 + 0.1 * torch.randn(d))

    def forward(self, x):
        var = x.pow(2).mean(-1, keepdim=True)
        return self.weight * (x * torch.rsqrt(var + self.eps))


def t5_relative_buckets(q_len, k_len, num_buckets=32, max_distance=128):
    """T5's bidirectional relative-position buckets [q_len, k_len] (int64):
    half the buckets per direction, the first half of those exact distances,
    the rest logarithmic up to max_distance."""
    rel = torch.arange(k_len)[None, :] - torch.arange(q_len)[:, None]   # key - query
    half = num_buckets // 2
    buckets = (rel > 0).to(torch.int64) * half
    rel = rel.abs()
    max_exact = half // 2
    # clamp: the log branch is only taken for rel >= max_exact (log(0) never reaches
    # the integer cast).
    large = max_exact + (torch.log(rel.clamp(min=max_exact).to(torch.float32) / max_exact)
                         / math.log(max_distance / max_exact)
                         * (half - max_exact)).to(torch.int64)
    large = torch.clamp(large, max=half - 1)
    return buckets + torch.where(rel < max_exact, rel, large)


class T5Attention(nn.Module):
    """T5 self-attention: no biases, no 1/sqrt(d) scaling of the scores; the
    position bias (and padding mask) is added to the scores."""

    def __init__(self, d, heads, d_kv):
        super().__init__()
        self.heads, self.d_kv = heads, d_kv
        inner = heads * d_kv
        self.q = nn.Linear(d, inner, bias=False)
        self.k = nn.Linear(d, inner, bias=False)
        self.v = nn.Linear(d, inner, bias=False)
        self.o = nn.Linear(inner, d, bias=False)

    def forward(self, x, bias):
        B, T, _ = x.shape
        split = lambda t: t.view(B, T, self.heads, self.d_kv).transpose(1, 2)
        q, k, v = split(self.q(x)), split(self.k(x)), split(self.v(x))
        scores = torch.matmul(q, k.transpose(2, 3)) + bias      # [B, H, T, T]
        probs = torch.softmax(scores.float(), dim=-1).type_as(scores)
        out = torch.matmul(probs, v).transpose(1, 2).reshape(B, T, self.heads * self.d_kv)
        return self.o(out)


class T5Block(nn.Module):
    def __init__(self, d, heads, d_kv, ff):
        super().__init__()
        self.ln_attn = T5LayerNorm(d)
        self.attn = T5Attention(d, heads, d_kv)
        self.ln_ff = T5LayerNorm(d)
        self.wi = nn.Linear(d, ff, bias=False)
        self.wo = nn.Linear(ff, d, bias=False)

    def forward(self, x, bias):
        x = x + self.attn(self.ln_attn(x), bias)
        return x + self.wo(F.relu(self.wi(self.ln_ff(x))))


class T5Encoder(nn.Module):
    """T5's encoder stack: token embedding, pre-norm blocks (T5LayerNorm before
    self-attention and before the ReLU FFN, residual adds), final T5LayerNorm.
    The relative position bias (32 buckets, max distance 128) belongs to the first
    layer and is shared by all layers, as in T5; the padding mask from
    attention_mask is added to it ((1 - mask) * float32 min)."""

    def __init__(self, vocab=100, d_model=64, heads=4, layers=2, ff=256,
                 num_buckets=32, max_distance=128):
        super().__init__()
        assert d_model % heads == 0
        self.num_buckets, self.max_distance = num_buckets, max_distance
        self.embed = nn.Embedding(vocab, d_model)
        self.rel_bias = nn.Embedding(num_buckets, heads)
        self.blocks = nn.ModuleList(T5Block(d_model, heads, d_model // heads, ff)
                                    for _ in range(layers))
        self.ln_f = T5LayerNorm(d_model)

    def forward(self, input_ids, attention_mask):
        T = input_ids.shape[1]
        buckets = t5_relative_buckets(T, T, self.num_buckets, self.max_distance)
        bias = self.rel_bias(buckets).permute(2, 0, 1).unsqueeze(0)          # [1, H, T, T]
        pad = (1.0 - attention_mask[:, None, None, :].to(torch.float32)) \
            * torch.finfo(torch.float32).min                                   # [B, 1, 1, T]
        bias = bias + pad
        x = self.embed(input_ids)
        for blk in self.blocks:
            x = blk(x, bias)
        return self.ln_f(x)


# ----------------------------------------------------------------------- builders
# Three sizes: "small" (the default; CI compiles and runs every model in seconds),
# "mini" (small transformers as users try them first: hidden 128, 2 layers, 32
# tokens, batch 1; the benchmark's second size) and "bench" (closer to real
# workloads, for bench/cpu_vs_onnxruntime).
SIZES = ("small", "mini", "bench")

# gpt and bert share these; t5_encoder too (heads * d_kv = d_model).
TRANSFORMER_SIZES = {
    "small": dict(vocab=100, seq=16, d_model=64, heads=4, layers=2, ff=256, batch=2),
    "mini": dict(vocab=512, seq=32, d_model=128, heads=4, layers=2, ff=512, batch=1),
    "bench": dict(vocab=2048, seq=128, d_model=512, heads=8, layers=4, ff=2048, batch=1),
}
RESNET_HW = {"small": 64, "mini": 64, "bench": 224}
VIT_SIZES = {
    "small": dict(image_size=32, patch_size=8, num_layers=2, num_heads=2, hidden_dim=64,
                  mlp_dim=128),
    "mini": dict(image_size=64, patch_size=16, num_layers=2, num_heads=4, hidden_dim=128,
                 mlp_dim=512),
    "bench": dict(image_size=224, patch_size=16, num_layers=4, num_heads=6, hidden_dim=384,
                  mlp_dim=1536),
}
# moe_einsum: (batch, tokens, d, hidden, experts); moe_grouped: (groups, tokens per group, ...)
MOE_EINSUM_SIZES = {"small": (2, 8, 32, 64, 4), "mini": (1, 32, 128, 512, 4),
                    "bench": (1, 128, 256, 1024, 8)}
MOE_GROUPED_SIZES = {"small": (2, 8, 32, 64, 4), "mini": (2, 16, 128, 512, 4),
                     "bench": (4, 32, 256, 1024, 8)}


def build_gpt(size="small", batch=None):
    c = dict(TRANSFORMER_SIZES[size])
    default_batch = c.pop("batch")
    batch = batch or default_batch
    model = TinyGPT(**c)
    g = torch.Generator().manual_seed(SEED + 1)
    inputs = {"input_ids": torch.randint(0, c["vocab"], (batch, c["seq"]), generator=g)}
    return model, inputs, ["logits"]


def _padding_mask(batch, seq):
    attn = torch.ones(batch, seq, dtype=torch.int64)
    attn[-1, seq * 3 // 4:] = 0  # padded tail in the last sequence
    return attn


def build_bert(size="small", batch=None):
    c = dict(TRANSFORMER_SIZES[size])
    default_batch = c.pop("batch")
    batch = batch or default_batch
    seq = c["seq"]
    model = TinyBERT(**c)
    g = torch.Generator().manual_seed(SEED + 2)
    ids = torch.randint(0, c["vocab"], (batch, seq), generator=g)
    types = torch.zeros(batch, seq, dtype=torch.int64)
    types[:, seq // 2:] = 1
    inputs = {"input_ids": ids, "token_type_ids": types,
              "attention_mask": _padding_mask(batch, seq)}
    return model, inputs, ["sequence_output", "pooled_output"]


def build_t5_encoder(size="small", batch=None):
    c = dict(TRANSFORMER_SIZES[size])
    default_batch = c.pop("batch")
    batch = batch or default_batch
    seq = c.pop("seq")
    model = T5Encoder(**c)
    g = torch.Generator().manual_seed(SEED + 7)
    ids = torch.randint(0, c["vocab"], (batch, seq), generator=g)
    inputs = {"input_ids": ids, "attention_mask": _padding_mask(batch, seq)}
    return model, inputs, ["last_hidden_state"]


def build_resnet18(size="small", batch=None):
    import torchvision
    model = torchvision.models.resnet18(weights=None)
    hw = RESNET_HW[size]
    g = torch.Generator().manual_seed(SEED + 3)
    return model, {"input": torch.randn(batch or 1, 3, hw, hw, generator=g)}, ["logits"]


def build_vit(size="small", batch=None):
    import torchvision
    c = VIT_SIZES[size]
    model = torchvision.models.VisionTransformer(num_classes=10, **c)
    # torchvision zero-initialises the class token and the classifier head, which
    # would make every output 0 and the numeric check vacuous: randomise them.
    with torch.no_grad():
        model.class_token.normal_(0.0, 0.02)
        model.heads.head.weight.normal_(0.0, 0.1)
        model.heads.head.bias.normal_(0.0, 0.1)
    g = torch.Generator().manual_seed(SEED + 4)
    hw = c["image_size"]
    return model, {"input": torch.randn(batch or 1, 3, hw, hw, generator=g)}, ["logits"]


def build_moe_einsum(size="small", batch=None):
    b, t, d, h, e = MOE_EINSUM_SIZES[size]
    b = batch or b
    model = GShardMoE(d=d, h=h, experts=e, k=2, tokens=b * t)
    g = torch.Generator().manual_seed(SEED + 5)
    return model, {"x": torch.randn(b, t, d, generator=g)}, ["y"]


def build_moe_grouped(size="small", batch=None):
    # Groups are the batch rows: x [G, S, d].
    g, t, d, h, e = MOE_GROUPED_SIZES[size]
    g = batch or g
    # Capacity factor 1: some experts overflow in some groups (dropped
    # tokens), so the outputs depend on the per-group capacity.
    model = GShardGroupedMoE(d=d, h=h, experts=e, k=2, capacity_factor=1.0, group_size=t)
    gen = torch.Generator().manual_seed(SEED + 6)
    return model, {"x": torch.randn(g, t, d, generator=gen)}, ["y"]


MODELS = {
    "gpt": build_gpt,
    "bert": build_bert,
    "resnet18": build_resnet18,
    "vit": build_vit,
    "moe_einsum": build_moe_einsum,
    "moe_grouped": build_moe_grouped,
    "t5_encoder": build_t5_encoder,
}


def _as_tuple(out):
    return tuple(out) if isinstance(out, (tuple, list)) else (out,)


def export_one(name, out_dir, check, size="small", batch=None):
    torch.manual_seed(SEED)
    model, inputs, output_names = MODELS[name](size, batch)
    model.eval()
    args = tuple(inputs.values())
    with torch.no_grad():
        ref = _as_tuple(model(*args))
    assert len(ref) == len(output_names), (name, len(ref), output_names)

    path = os.path.join(out_dir, f"{name}.onnx")
    # Export with grad enabled: keeps torch 1.13 off its fused fast-path kernels
    # (no ONNX symbolic); export itself runs the model in eval mode.
    with torch.enable_grad(), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.onnx.export(
            model, args, path, opset_version=OPSET,
            input_names=list(inputs), output_names=output_names,
            do_constant_folding=True,
            training=torch.onnx.TrainingMode.EVAL)

    np.savez(os.path.join(out_dir, f"{name}.inputs.npz"),
             **{k: v.numpy() for k, v in inputs.items()})
    np.savez(os.path.join(out_dir, f"{name}.outputs.npz"),
             **{k: v.detach().numpy() for k, v in zip(output_names, ref)})

    msg = f"{os.path.getsize(path) / 1e6:.2f} MB"
    if check:
        msg += ", " + check_with_ort(path, inputs, output_names, ref,
                                     os.path.join(out_dir, f"{name}.ort_outputs.npz"))
    return path, msg


def check_with_ort(path, inputs, output_names, ref, save_to=None):
    """Runs the model with onnxruntime, compares with torch's outputs `ref` and
    saves onnxruntime's outputs to `save_to` (an .npz keyed by output name)."""
    import onnx
    import onnxruntime as ort
    m = onnx.load(path)
    onnx.checker.check_model(m)
    for vi in list(m.graph.input) + list(m.graph.output):
        for dim in vi.type.tensor_type.shape.dim:
            if not dim.HasField("dim_value"):
                raise RuntimeError(f"{path}: {vi.name} has a non-static dim")
    ops = sorted({n.op_type for n in m.graph.node})
    so = ort.SessionOptions()
    so.log_severity_level = 3
    sess = ort.InferenceSession(path, so, providers=["CPUExecutionProvider"])
    got = sess.run(output_names, {k: v.numpy() for k, v in inputs.items()})
    if save_to:
        np.savez(save_to, **dict(zip(output_names, got)))
    worst = 0.0
    for name, g, r in zip(output_names, got, ref):
        r = r.detach().numpy()
        if g.shape != r.shape:
            raise RuntimeError(f"{path}: {name} shape {g.shape} != torch {r.shape}")
        err = float(np.max(np.abs(g - r))) if g.size else 0.0
        if not np.allclose(g, r, rtol=1e-3, atol=1e-4):
            raise RuntimeError(f"{path}: onnxruntime differs from torch on {name}: "
                               f"max abs err {err:g}")
        worst = max(worst, err)
    return f"ort max abs err {worst:.2g}, {len(m.graph.node)} nodes, ops: {','.join(ops)}"


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--out", required=True, help="output directory (created)")
    p.add_argument("--only", default="", help="comma-separated subset of: " + ",".join(MODELS))
    p.add_argument("--size", choices=SIZES, default="small",
                   help="small (default; for tests), mini (hidden 128, 32 tokens) or "
                        "bench (benchmark sizes)")
    p.add_argument("--batch", type=int, default=None,
                   help="batch size of every model's inputs (default: the size's)")
    p.add_argument("--check", dest="check", action="store_true", default=True,
                   help="compare onnxruntime with torch (default)")
    p.add_argument("--no-check", dest="check", action="store_false")
    a = p.parse_args(argv)
    names = [n for n in a.only.split(",") if n] or list(MODELS)
    for n in names:
        if n not in MODELS:
            p.error(f"unknown model {n!r}; known: {', '.join(MODELS)}")
    os.makedirs(a.out, exist_ok=True)
    torch.set_num_threads(max(1, min(2, os.cpu_count() or 1)))
    t_all = time.time()
    failed = 0
    for n in names:
        t0 = time.time()
        try:
            path, msg = export_one(n, a.out, a.check, a.size, a.batch)
            print(f"{n}: wrote {path} ({msg}) in {time.time() - t0:.1f}s", flush=True)
        except Exception as e:  # report every model, then fail
            failed += 1
            print(f"{n}: FAILED: {type(e).__name__}: {e}", file=sys.stderr, flush=True)
    print(f"{len(names) - failed}/{len(names)} models written to {a.out} "
          f"in {time.time() - t_all:.1f}s")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
