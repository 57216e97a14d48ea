#!/usr/bin/env python3
"""Training step time on the CPU: telarc --train + telar-run --train against PyTorch.

Usage (the wrapper bench/training_cpu runs this with the project's .venv):
    bench/training_cpu [--size bench|small] [--only mlp,lm] [--optimizer sgd|adamw|both]
        [--threads 1,2] [--steps N] [--warmup W] [--out DIR] [--bin build/bin]
        [--telarc PATH] [--telar-run PATH] [--rtol 1e-3] [--json out.json]
        [--timeout S]

Models (python/telar_testing/train_models.py's MLP and TinyLM, seeded the
same way, float32, the forward returning the loss):
    --size bench (default):
        mlp  Linear(512,1024)-ReLU-Linear(1024,10), CrossEntropyLoss;
             x float32 [64, 512], labels int64 [64]
        lm   TinyLM(vocab=1000, d=256, seq=64, heads=4) (one pre-LN block,
             causal attention, exact-GELU MLP, LM head); ids, targets int64
             [8, 64] (train_models.lm_batches)
    --size small: train_models' own sizes (mlp 16-32-10 at batch 8; lm vocab
        50, d 32, seq 8, 2 heads at batch 2), a quick smoke run.

For each model: the export of train_models.export (opset 17,
do_constant_folding=False, TrainingMode.TRAINING, loss output "loss"; the
export is checked against onnxruntime's loss on the first batch) and W + N
seeded batches (`.npy` files with a leading steps dimension, under
DIR/SIZE/MODEL/). For each optimizer config of train_models.CONFIGS (sgd:
lr 0.1, momentum 0.9; adamw: lr 1e-2, betas 0.9,0.999, eps 1e-8, weight
decay 0.01):
1. `telarc MODEL.onnx --train --loss loss --optimizer OPT ... --target cpu -o
   ART -q` (every hyper-parameter explicit, train_models.telarc_args; the
   compile time is reported), once for every thread count;
2. per thread count T of --threads (a comma list, default 1):
   - telar: `telar-run ART --train --steps W+N --input NAME=FILE.npy ...
     --threads T --report R -q`; the step time is the median of the report's
     "step_ms" (the program's forward, backward and optimizer update plus
     copying the updated parameters back; the step's input rows are picked
     before the clock starts) after dropping the first W steps;
   - torch: in this process with torch.set_num_threads(T), a deep copy of
     the seeded model and train_models.make_optimizer's optimizer, the same
     W + N batches (as tensors made before the clock starts); each step is
     timed around zero_grad(set_to_none=True), forward, backward and
     optimizer.step(); the step time is the median of the last N steps.
   Both sides run the same W + N steps on the same batches from the same
   weights, so their final losses (the loss of step W + N, taken before its
   update) must agree: within --rtol (default 1e-3) of torch's.

Output: one markdown table: model, optimizer, threads, telar ms/step, torch
ms/step, ratio = torch ms / telar ms (> 1: telar is faster), the final loss
of each side and whether they agree (`yes` / `NO`), telarc's compile seconds
and telar's peak intermediate memory (the report's), then the geometric mean
ratio per thread count. Timings are reported, never asserted. --json FILE
writes the rows (with every per-step time of both sides).

Exit 1 when a model fails to export, compile or run, or the final losses
disagree; 2 when a tool is missing.
"""

from __future__ import annotations

import argparse
import copy
import json
import math
import os
import shutil
import sys
import time

import numpy as np
import torch
import torch.nn as nn

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "python", "telar_testing"))

import train_models  # noqa: E402
from run_models import first_error_line, print_markdown_table  # noqa: E402
from runner import kill_commands_on_exit, run_cmd  # noqa: E402


# --------------------------------------------------------------------------- models
class BenchMLP(train_models.MLP):
    """train_models.MLP made larger: Linear(d_in, hidden)-ReLU-Linear(hidden,
    classes); the same forward (the loss)."""

    def __init__(self, d_in=512, hidden=1024, classes=10):
        nn.Module.__init__(self)
        self.net = nn.Sequential(nn.Linear(d_in, hidden), nn.ReLU(),
                                 nn.Linear(hidden, classes))
        self.loss = nn.CrossEntropyLoss()


def bench_mlp_batches(rng, steps, batch=64, d_in=512, classes=10):
    return {"x": rng.standard_normal((steps, batch, d_in)).astype(np.float32),
            "labels": rng.integers(0, classes, (steps, batch)).astype(np.int64)}


LM_BENCH = dict(vocab=1000, d=256, seq=64, heads=4)
LM_BENCH_BATCH = 8

# size -> model -> (constructor, batches(rng, steps), description)
SIZES = {
    "bench": {
        "mlp": (BenchMLP, bench_mlp_batches, "Linear(512,1024)-ReLU-Linear(1024,10), batch 64"),
        "lm": (lambda: train_models.TinyLM(**LM_BENCH),
               lambda rng, steps: train_models.lm_batches(
                   rng, steps, vocab=LM_BENCH["vocab"], batch=LM_BENCH_BATCH,
                   seq=LM_BENCH["seq"]),
               "TinyLM vocab {vocab}, d {d}, seq {seq}, {heads} heads, batch {b}".format(
                   b=LM_BENCH_BATCH, **LM_BENCH)),
    },
    "small": {
        "mlp": (train_models.MODELS["mlp"][0], train_models.MODELS["mlp"][1],
                "Linear(16,32)-ReLU-Linear(32,10), batch 8"),
        "lm": (train_models.MODELS["lm"][0], train_models.MODELS["lm"][1],
               "TinyLM vocab 50, d 32, seq 8, 2 heads, batch 2"),
    },
}


def build(size, name, steps):
    """The seeded model (as train_models.build) and its STEPS batches."""
    ctor, batches, _ = SIZES[size][name]
    torch.manual_seed(train_models.SEED)
    model = ctor()
    data = batches(np.random.default_rng(train_models.SEED + 1), steps)
    return model, data


# --------------------------------------------------------------------------- timing
class Failure(Exception):
    pass


def torch_steps(name, model, data, opt, frozen, threads, steps):
    """Trains a deep copy of `model` for `steps` steps with `threads` threads;
    returns (per-step ms, losses)."""
    torch.set_num_threads(threads)
    m = copy.deepcopy(model)
    m.train()
    params = [p for n, p in m.named_parameters() if n not in frozen]
    optimizer = train_models.make_optimizer(opt, params, train_models.CONFIGS[opt])
    names = train_models.MODELS[name][2]
    batches = [train_models.step_inputs(data, names, i) for i in range(steps)]
    times, losses = [], []
    for i in range(steps):
        t0 = time.perf_counter()
        optimizer.zero_grad(set_to_none=True)
        loss = m(*batches[i])
        loss.backward()
        optimizer.step()
        times.append((time.perf_counter() - t0) * 1e3)
        losses.append(float(loss))
    return times, losses


def compile_telar(a, name, opt, onnx_path, frozen, art):
    shutil.rmtree(art, ignore_errors=True)
    cmd = [a.telarc, onnx_path] + train_models.telarc_args(opt, train_models.CONFIGS[opt], None)
    if frozen:
        cmd += ["--freeze", ",".join(frozen)]
    cmd += ["--target", "cpu", "-o", art, "-q"]
    rc, text, _, secs = run_cmd(cmd, a.timeout)
    if rc != 0:
        raise Failure(f"telarc rc={rc}: {first_error_line(text)}")
    return secs


def telar_steps(a, art, data_paths, threads, steps, report):
    """One telar-run --train process; returns its report."""
    if os.path.exists(report):
        os.unlink(report)
    cmd = [a.telar_run, art, "--train", "--steps", str(steps)]
    for inp, p in data_paths.items():
        cmd += ["--input", f"{inp}={p}"]
    cmd += ["--threads", str(threads), "--report", report, "-q"]
    rc, text, _, _ = run_cmd(cmd, a.timeout)
    if rc != 0:
        raise Failure(f"telar-run rc={rc}: {first_error_line(text)}")
    with open(report) as f:
        rep = json.load(f)
    for key in ("losses", "step_ms"):
        if not isinstance(rep.get(key), list) or len(rep[key]) != steps:
            raise Failure(f"{report}: \"{key}\" is not a list of {steps} values")
    return rep


def median(xs):
    return float(np.median(xs))


def agree(got, ref, rtol):
    return math.isfinite(got) and abs(got - ref) <= rtol * abs(ref)


# --------------------------------------------------------------------------- one model
def bench_model(a, name, opts):
    """Rows (one per optimizer x thread count) of one model."""
    total = a.warmup + a.steps
    d = os.path.join(a.out, name)
    os.makedirs(d, exist_ok=True)
    onnx_path = os.path.join(a.out, f"{name}.onnx")
    try:
        model, data = build(a.size, name, total)
        _, frozen = train_models.export(name, model, data, onnx_path)
    except Exception as e:  # noqa: BLE001 -- every row of the model fails
        msg = f"export: {type(e).__name__}: {e}"
        return [dict(model=name, optimizer=o, threads=t, ok=False, error=msg)
                for o in opts for t in a.threads]
    n_params = sum(p.numel() for n, p in model.named_parameters() if n not in frozen)
    print(f"{name}: {SIZES[a.size][name][2]}; {n_params} trainable parameters", flush=True)
    data_paths = {}
    for inp, arr in data.items():
        data_paths[inp] = os.path.join(d, f"{inp}.npy")
        np.save(data_paths[inp], arr)

    rows = []
    for opt in opts:
        art = os.path.join(a.out, f"{name}.{opt}.art")
        try:
            compile_s = compile_telar(a, name, opt, onnx_path, frozen, art)
        except Failure as e:
            rows += [dict(model=name, optimizer=opt, threads=t, ok=False, error=str(e))
                     for t in a.threads]
            continue
        for t in a.threads:
            row = dict(model=name, optimizer=opt, threads=t, ok=False, error=None,
                       compile_s=compile_s)
            t0 = time.time()
            try:
                rep = telar_steps(a, art, data_paths, t, total,
                                  os.path.join(a.out, f"{name}.{opt}.t{t}.report.json"))
                torch_ms, torch_losses = torch_steps(name, model, data, opt, frozen, t, total)
            except Failure as e:
                row["error"] = str(e)
                rows.append(row)
                print(f"FAIL {name}/{opt} {t} thr: {e}", flush=True)
                continue
            row.update(
                telar_step_ms=[float(x) for x in rep["step_ms"]],
                torch_step_ms=torch_ms,
                telar_ms=median(rep["step_ms"][a.warmup:]),
                torch_ms=median(torch_ms[a.warmup:]),
                telar_loss=float(rep["losses"][-1]), torch_loss=torch_losses[-1],
                telar_losses=[float(x) for x in rep["losses"]], torch_losses=torch_losses,
                peak_mb=(rep["peak_intermediate_bytes"] / 1e6
                         if "peak_intermediate_bytes" in rep else None))
            row["ratio"] = row["torch_ms"] / row["telar_ms"] if row["telar_ms"] > 0 else None
            row["agree"] = agree(row["telar_loss"], row["torch_loss"], a.rtol)
            row["ok"] = row["agree"]
            if not row["agree"]:
                row["error"] = (f"final loss telar {row['telar_loss']!r} torch "
                                f"{row['torch_loss']!r} (rtol {a.rtol:g})")
            rows.append(row)
            print(f"done {name}/{opt} {t} thr: telar {row['telar_ms']:.2f} ms/step, torch "
                  f"{row['torch_ms']:.2f} ms/step ({time.time() - t0:.0f}s)", flush=True)
    return rows


def print_table(rows):
    hdr = ["model", "optimizer", "threads", "telar ms/step", "torch ms/step", "ratio",
           "telar final loss", "torch final loss", "agree", "compile s", "telar peak MB"]
    out = []
    for r in rows:
        if "telar_ms" not in r:
            out.append([r["model"], r["optimizer"], str(r["threads"]), "-", "-", "-", "-", "-",
                         "FAIL", "-" if r.get("compile_s") is None else f"{r['compile_s']:.1f}",
                         "-"])
            continue
        out.append([r["model"], r["optimizer"], str(r["threads"]), f"{r['telar_ms']:.3f}",
                    f"{r['torch_ms']:.3f}", f"{r['ratio']:.2f}", f"{r['telar_loss']:.6f}",
                    f"{r['torch_loss']:.6f}", "yes" if r["agree"] else "NO",
                    f"{r['compile_s']:.1f}",
                    "-" if r["peak_mb"] is None else f"{r['peak_mb']:.1f}"])
    print_markdown_table(hdr, out)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--size", choices=tuple(SIZES), default="bench")
    ap.add_argument("--only", default="", help="comma-separated subset of: mlp,lm")
    ap.add_argument("--optimizer", choices=["sgd", "adamw", "both"], default="both")
    ap.add_argument("--threads", default="1", help="comma list of thread counts (default 1)")
    ap.add_argument("--steps", type=int, default=10, help="timed steps (default 10)")
    ap.add_argument("--warmup", type=int, default=3,
                    help="untimed steps before them (default 3)")
    ap.add_argument("--out", help="work directory (kept; default "
                                  "build/bench-models/training-SIZE)")
    ap.add_argument("--bin", default=os.path.join(ROOT, "build", "bin"),
                    help="directory of telarc and telar-run (default build/bin)")
    ap.add_argument("--telarc", help="default BIN/telarc")
    ap.add_argument("--telar-run", help="default BIN/telar-run")
    ap.add_argument("--rtol", type=float, default=1e-3,
                    help="final-loss agreement, relative to torch's (default 1e-3)")
    ap.add_argument("--timeout", type=float, default=600, help="seconds per command")
    ap.add_argument("--json", help="write the rows (every step's time) to this file")
    a = ap.parse_args(argv)

    names = [n for n in a.only.split(",") if n] or list(SIZES[a.size])
    for n in names:
        if n not in SIZES[a.size]:
            ap.error(f"unknown model {n!r}; known: {', '.join(SIZES[a.size])}")
    opts = list(train_models.CONFIGS) if a.optimizer == "both" else [a.optimizer]
    try:
        a.threads = [int(t) for t in a.threads.split(",") if t]
    except ValueError:
        ap.error(f"--threads: not a comma list of integers: {a.threads!r}")
    if not a.threads or min(a.threads) < 1:
        ap.error("--threads needs thread counts >= 1")
    if a.steps < 1 or a.warmup < 0:
        ap.error("--steps must be >= 1 and --warmup >= 0")
    a.telarc = a.telarc or os.path.join(a.bin, "telarc")
    a.telar_run = a.telar_run or os.path.join(a.bin, "telar-run")
    for tool in (a.telarc, a.telar_run):
        if not os.access(tool, os.X_OK):
            print(f"training_cpu: not executable: {tool} (use --bin DIR)", file=sys.stderr)
            return 2
    a.out = a.out or os.path.join(ROOT, "build", "bench-models", f"training-{a.size}")
    os.makedirs(a.out, exist_ok=True)
    kill_commands_on_exit()

    t_all = time.time()
    rows = []
    for name in names:
        rows += bench_model(a, name, opts)
    for r in rows:
        if r.get("error") and "telar_ms" not in r:
            print(f"FAIL {r['model']}/{r['optimizer']} {r['threads']} thr: {r['error']}")
    print(f"\n### training step, size {a.size}: median of {a.steps} steps after {a.warmup} "
          "warm-up steps\n")
    print_table(rows)
    print(f"\nratio = torch ms / telar ms (> 1: telar is faster); agree: final losses (step "
          f"{a.warmup + a.steps}) within rtol {a.rtol:g}; compile s: telarc --train")
    for t in a.threads:
        ok = [r["ratio"] for r in rows if r["threads"] == t and r.get("ratio")]
        if ok:
            geo = float(np.exp(np.mean(np.log(ok))))
            print(f"geometric mean ratio, {t} thr: {geo:.2f} over {len(ok)} rows")
    print(f"\n{time.time() - t_all:.0f}s in all")
    if a.json:
        with open(a.json, "w") as f:
            json.dump({"config": {"size": a.size, "threads": a.threads, "steps": a.steps,
                                  "warmup": a.warmup, "telarc": a.telarc,
                                  "telar_run": a.telar_run, "rtol": a.rtol},
                       "rows": rows}, f, indent=1)
    return 1 if any(not r["ok"] for r in rows) else 0


if __name__ == "__main__":
    sys.exit(main())
