#!/usr/bin/env python3
"""GPT-3-family ONNX graphs for the planner benchmarks, weights in sparse external data.

Usage (re-executes itself with the repo's .venv/bin/python):
    bench/search_time/make_gpt3.py [--out build/bench-models/gpt3]
        [--only gpt3-1.3b,gpt3-175b] [--batch 8] [--seq 2048] [--dtype f16] [--list]

Writes OUT/NAME/model.onnx and OUT/NAME/weights.bin for every configuration
below: the whole decoder (token + position embeddings, the layers, final
LayerNorm, untied LM head), python/telar_testing/planner_models.py's
build_gpt. weights.bin is sparse (truncated to its size, nothing written):
the 175B model's 350 GB take no disk blocks; model.onnx is ~100 KB. Only
planning (`telarc --emit=plan|mlir --elide-weights`) makes sense on them.

Configurations (layers, hidden, heads; head dim 128 except 39B's 128 as well):
    gpt3-1.3b   24 layers, hidden 2048, 16 heads   GPT-3 paper (Brown et al. 2020,
                Table 2.1, "GPT-3 XL": 24 layers, d_model 2048, d_head 128; the
                table's 24 heads x 128 do not tile 2048, so 16 heads of 128 here)
    gpt3-6.7b   32 layers, hidden 4096, 32 heads   GPT-3 paper, "GPT-3 6.7B"
    gpt3-13b    40 layers, hidden 5120, 40 heads   GPT-3 paper, "GPT-3 13B" (the
                table's d_model 5140 is a typo for 40 x 128 = 5120)
    gpt3-39b    48 layers, hidden 8192, 64 heads   Megatron-LM SC'21 (Narayanan et
                al. 2021, Table 1, the 39.1B row) and Alpa's GPT-39B
    gpt3-175b   96 layers, hidden 12288, 96 heads  GPT-3 paper, "GPT-3 175B"
    gpt3-530b   105 layers, hidden 20480, 128 heads  Megatron-LM SC'21 Table 1,
                the 529.6B row (Megatron-Turing NLG's shape)
    gpt3-1t     128 layers, hidden 25600, 160 heads  Megatron-LM SC'21 Table 1,
                the 1008.0B row
MLP width 4 x hidden, vocabulary 51200 (GPT-2's 50257 padded to a multiple of
1024 as Megatron-LM does), sequence 2048 (GPT-3's context).

Inputs and dtype (chosen for inference planning, `--batch`/`--seq`/`--dtype`
change them): input_ids int64 [8, 2048] (batch 8: enough rows for data
parallelism on one node; on 64+ devices the planner must combine it with
tensor splits), weights and activations float16 (the importer takes f16
MatMul; an A100's f16 tensor-core peak is what the a100-80g profile prices).
"""

from __future__ import annotations

import argparse
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "python", "telar_testing"))

import plan_bench  # noqa: E402

if __name__ == "__main__":
    plan_bench.use_repo_python()

import planner_models  # noqa: E402

# name: (layers, hidden, heads, source)
CONFIGS = {
    "gpt3-1.3b": (24, 2048, 16, "GPT-3 paper Table 2.1 (GPT-3 XL; 16 heads of 128)"),
    "gpt3-6.7b": (32, 4096, 32, "GPT-3 paper Table 2.1"),
    "gpt3-13b": (40, 5120, 40, "GPT-3 paper Table 2.1"),
    "gpt3-39b": (48, 8192, 64, "Megatron-LM SC'21 Table 1 (39.1B row)"),
    "gpt3-175b": (96, 12288, 96, "GPT-3 paper Table 2.1"),
    "gpt3-530b": (105, 20480, 128, "Megatron-LM SC'21 Table 1 (529.6B row)"),
    "gpt3-1t": (128, 25600, 160, "Megatron-LM SC'21 Table 1 (1008.0B row)"),
}
VOCAB = 51200
DEFAULT_BATCH = 8
DEFAULT_SEQ = 2048
DEFAULT_DTYPE = "f16"
DEFAULT_OUT = os.path.join(ROOT, "build", "bench-models", "gpt3")


def build(name, batch=DEFAULT_BATCH, seq=DEFAULT_SEQ, dtype=DEFAULT_DTYPE):
    layers, d, heads, _ = CONFIGS[name]
    return planner_models.build_gpt(layers, d, heads, batch=batch, seq=seq, vocab=VOCAB,
                                    dtype=dtype, embeddings=True, name=name)


def write(name, out, batch=DEFAULT_BATCH, seq=DEFAULT_SEQ, dtype=DEFAULT_DTYPE,
          check=True):
    """Writes out/name/model.onnx (+ sparse weights.bin); returns (path, builder)."""
    b = build(name, batch, seq, dtype)
    return b.save(os.path.join(out, name), check), b


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", default=DEFAULT_OUT)
    ap.add_argument("--only", default="", help="comma-separated subset of: "
                    + ",".join(CONFIGS))
    ap.add_argument("--batch", type=int, default=DEFAULT_BATCH)
    ap.add_argument("--seq", type=int, default=DEFAULT_SEQ)
    ap.add_argument("--dtype", choices=("f16", "f32"), default=DEFAULT_DTYPE)
    ap.add_argument("--no-check", dest="check", action="store_false", default=True)
    ap.add_argument("--list", action="store_true")
    a = ap.parse_args(argv)
    names = [n for n in a.only.split(",") if n] or list(CONFIGS)
    for n in names:
        if n not in CONFIGS:
            ap.error(f"unknown configuration {n!r}; known: {', '.join(CONFIGS)}")
    if a.list:
        for n in names:
            L, d, h, src = CONFIGS[n]
            print(f"{n}: {L} layers, hidden {d}, {h} heads ({src})")
        return 0
    for n in names:
        t0 = time.time()
        path, b = write(n, a.out, a.batch, a.seq, a.dtype, a.check)
        print(f"{n}: {path}: {planner_models.describe(b)}; input_ids [{a.batch}, {a.seq}]; "
              f"{os.path.getsize(path) / 1e3:.0f} KB + sparse {b.offset / 1e9:.0f} GB "
              f"({time.time() - t0:.1f}s)", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
