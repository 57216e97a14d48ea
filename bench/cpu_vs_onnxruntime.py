#!/usr/bin/env python3
"""Telar on the CPU against onnxruntime's CPUExecutionProvider, model by model.

Usage (the wrapper bench/cpu_vs_onnxruntime runs this with the project's .venv):
    bench/cpu_vs_onnxruntime [--threads T] [--iters N] [--warmup W]
        [--only gpt,llama] [--size bench|small] [--models DIR] [--reuse]
        [--repeat R] [--telarc build/bin/telarc] [--telar-run PATH] [--json out.json]
        [--telarc-arg ARG ...]
        [--flag-below 0.7] [--fail-below R]

1. Builds the benchmark-size models (python/telar_testing/make_models.py --size
   bench: gpt, bert, llama (d 512, 4 layers, 128 tokens), resnet18 at 224x224,
   vit (ViT-S/16-like, 4 layers), moe_einsum, moe_topk) into DIR (default
   build/bench-models/SIZE); --reuse keeps models already there.
2. Compiles each with `telarc NAME.onnx -o DIR/NAME.artifact --target cpu -q`.
3. Runs `telar-run ART --input ... --threads T --warmup W --bench N --report R`
   (its report gives the latency and the peak intermediate memory).
4. Runs onnxruntime (CPUExecutionProvider, intra_op_num_threads=T,
   inter_op_num_threads=1, sequential execution, all graph optimisations) on
   the same inputs: W warm-up runs, then N timed runs.
5. Checks telar's outputs against onnxruntime's (rtol 1e-3, atol 1e-3: a sanity
   check; run_models.py is the accuracy test) and prints a table: model, telar
   ms and onnxruntime ms (mean over the N runs; p50 alongside), ratio =
   ort ms / telar ms (telar's throughput relative to onnxruntime: > 1 is faster),
   telar's peak intermediate MB, the graph's largest live set MB (what the
   graph's tensors need when its ops run one by one, unfused; computed by
   telarc), weights MB, compile seconds; a ratio below
   --flag-below (0.7) is flagged `SLOW`.

With --repeat R, steps 3 and 4 alternate R times and each side keeps its best
mean (a burst of other work on a shared machine then spoils one repetition
rather than one side). T defaults to the number of cores (os.cpu_count()), N to
20, W to 3. Exit 1
when a model fails to build, compile or run, or its outputs disagree with
onnxruntime, or (with --fail-below R) its ratio is below R; 2 when a tool is
missing.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import time

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "python", "telar_testing"))

import make_models  # noqa: E402
from run_models import (first_error_line, output_file_name,  # noqa: E402
                        print_markdown_table, run_cmd)
from tensor_compare import compare  # noqa: E402


def ort_session(path, threads):
    import onnxruntime as ort
    so = ort.SessionOptions()
    so.log_severity_level = 3
    so.intra_op_num_threads = threads
    so.inter_op_num_threads = 1
    so.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
    so.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    return ort.InferenceSession(path, so, providers=["CPUExecutionProvider"])


def bench_ort(sess, inputs, iters, warmup):
    names = [o.name for o in sess.get_outputs()]
    outs = None
    for _ in range(warmup):
        outs = sess.run(names, inputs)
    lat = []
    for _ in range(iters):
        t0 = time.perf_counter()
        outs = sess.run(names, inputs)
        lat.append((time.perf_counter() - t0) * 1e3)
    lat = np.array(lat)
    return ({"mean": float(lat.mean()), "p50": float(np.median(lat)),
             "p90": float(np.percentile(lat, 90)), "min": float(lat.min())},
            dict(zip(names, outs)))


def bench_one(name, a):
    d = a.models
    res = {"name": name, "ok": False, "error": None, "compile_s": None, "telar": None,
           "ort": None, "ratio": None, "peak_mb": None, "live_mb": None,
           "weights_mb": None,
           "max_abs_err": None}
    art = os.path.join(d, f"{name}.artifact")
    in_dir = os.path.join(d, f"{name}.in")
    out_dir = os.path.join(d, f"{name}.out")
    report = os.path.join(d, f"{name}.report.json")
    with np.load(os.path.join(d, f"{name}.inputs.npz")) as z:
        inputs = {k: z[k] for k in z.files}
    shutil.rmtree(art, ignore_errors=True)
    rc, err, secs = run_cmd([a.telarc, os.path.join(d, f"{name}.onnx"), "-o", art,
                             "--target", "cpu", "-q"] + a.telarc_arg, a.timeout)
    res["compile_s"] = secs
    if rc != 0:
        res["error"] = f"telarc rc={rc}: {first_error_line(err)}"
        return res
    with open(os.path.join(art, "manifest.json")) as f:
        manifest = json.load(f)
    shutil.rmtree(in_dir, ignore_errors=True)
    shutil.rmtree(out_dir, ignore_errors=True)
    os.makedirs(in_dir)
    cmd = [a.telar_run, art, "--output-dir", out_dir, "--threads", str(a.threads),
           "--warmup", str(a.warmup), "--bench", str(a.iters), "--report", report, "-q"]
    for inp in manifest["inputs"]:
        p = os.path.join(in_dir, output_file_name(inp["name"]) + ".npy")
        np.save(p, inputs[inp["name"]])
        cmd += ["--input", f"{inp['name']}={p}"]
    sess = ort_session(os.path.join(d, f"{name}.onnx"), a.threads)
    # Alternate the two --repeat times and keep each one's best mean: on a shared
    # machine, a burst of other work then hits one repetition, not one side.
    for _ in range(a.repeat):
        rc, err, _ = run_cmd(cmd, a.timeout)
        if rc != 0:
            res["error"] = f"telar-run rc={rc}: {first_error_line(err)}"
            return res
        with open(report) as f:
            rep = json.load(f)
        if res["telar"] is None or rep["latency_ms"]["mean"] < res["telar"]["mean"]:
            res["telar"] = rep["latency_ms"]
        res["peak_mb"] = rep.get("peak_intermediate_bytes", 0) / 1e6
        res["live_mb"] = rep.get("largest_live_set_bytes", 0) / 1e6
        res["weights_mb"] = rep.get("weights_bytes", 0) / 1e6
        res["peak_rss_mb"] = rep.get("peak_rss_bytes", 0) / 1e6
        lat, ort_out = bench_ort(sess, inputs, a.iters, a.warmup)
        if res["ort"] is None or lat["mean"] < res["ort"]["mean"]:
            res["ort"] = lat
    res["ratio"] = res["ort"]["mean"] / res["telar"]["mean"] if res["telar"]["mean"] else None
    worst, problems = 0.0, []
    for out in manifest["outputs"]:
        path = os.path.join(out_dir, output_file_name(out["name"]) + ".npy")
        if not os.path.exists(path):
            problems.append(f"no output {out['name']}")
            continue
        ok, mabs, _, msg = compare(np.load(path), ort_out[out["name"]], 1e-3, 1e-3)
        worst = max(worst, mabs)
        if not ok:
            problems.append(f"{out['name']}: {msg}")
    res["max_abs_err"] = worst
    if problems:
        res["error"] = "outputs differ from onnxruntime: " + "; ".join(problems)
        return res
    res["ok"] = True
    return res


def print_table(results, a):
    hdr = ["model", "telar ms", "ort ms", "ratio", "telar p50", "ort p50",
           "peak interm. MB", "live set MB", "weights MB", "compile s", "max abs err",
           "flag"]
    rows = []
    for r in results:
        t, o = r["telar"] or {}, r["ort"] or {}
        f = lambda x, s: "-" if x is None else format(x, s)
        flag = ("FAILED" if not r["ok"] and r["error"] else
                "SLOW" if r["ratio"] is not None and r["ratio"] < a.flag_below else "")
        rows.append([r["name"], f(t.get("mean"), ".2f"), f(o.get("mean"), ".2f"),
                     f(r["ratio"], ".2f"), f(t.get("p50"), ".2f"), f(o.get("p50"), ".2f"),
                     f(r["peak_mb"], ".1f"), f(r["live_mb"], ".1f"),
                     f(r["weights_mb"], ".1f"),
                     f(r["compile_s"], ".1f"), f(r["max_abs_err"], ".1e"), flag])
    print_markdown_table(hdr, rows)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--threads", "-t", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--iters", "-n", type=int, default=20)
    ap.add_argument("--warmup", "-w", type=int, default=3)
    ap.add_argument("--repeat", "-r", type=int, default=1,
                    help="alternate telar and onnxruntime R times, keep each one's "
                    "best mean (for noisy machines; default 1)")
    ap.add_argument("--only", default="", help="comma-separated subset of: "
                    + ",".join(make_models.all_model_names()))
    ap.add_argument("--size", choices=make_models.SIZES, default="bench")
    ap.add_argument("--models", help="model dir (default build/bench-models/SIZE)")
    ap.add_argument("--reuse", action="store_true",
                    help="do not rebuild models already in the model dir")
    ap.add_argument("--telarc", default=os.path.join(ROOT, "build", "bin", "telarc"))
    ap.add_argument("--telar-run", help="default: telar-run next to telarc")
    ap.add_argument("--timeout", type=int, default=900, help="seconds per command")
    ap.add_argument("--telarc-arg", action="append", default=[], metavar="ARG",
                    help="extra telarc flag (repeatable), e.g. "
                         "--telarc-arg=--library-calls=false to time generated GEMMs")
    ap.add_argument("--flag-below", type=float, default=0.7,
                    help="flag ratios (ort ms / telar ms) below this (default 0.7)")
    ap.add_argument("--fail-below", type=float, help="exit 1 if a ratio is below this")
    ap.add_argument("--json", help="write the results here")
    a = ap.parse_args(argv)
    a.telar_run = a.telar_run or os.path.join(os.path.dirname(os.path.abspath(a.telarc)),
                                              "telar-run")
    for tool in (a.telarc, a.telar_run):
        if not os.access(tool, os.X_OK):
            print(f"cpu_vs_onnxruntime: not executable: {tool}", file=sys.stderr)
            return 2
    a.models = a.models or os.path.join(ROOT, "build", "bench-models", a.size)
    names = [n for n in a.only.split(",") if n] or make_models.all_model_names()
    for n in names:
        if n not in make_models.all_model_names():
            ap.error(f"unknown model {n!r}")

    todo = [n for n in names if not (a.reuse and os.path.exists(
        os.path.join(a.models, f"{n}.inputs.npz")))]
    if todo:
        t0 = time.time()
        if make_models.make(todo, a.models, a.size, check=False, log=lambda s: None):
            return 1
        print(f"built {len(todo)} models ({a.size}) in {a.models} in "
              f"{time.time() - t0:.1f}s", flush=True)
    print(f"threads {a.threads}, {a.warmup} warm-up + {a.iters} timed runs per model"
          + (f", best of {a.repeat} alternations" if a.repeat > 1 else ""), flush=True)
    results = []
    for n in names:
        try:
            r = bench_one(n, a)
        except Exception as e:  # keep benchmarking the others
            r = {"name": n, "ok": False, "error": f"{type(e).__name__}: {e}",
                 "compile_s": None, "telar": None, "ort": None, "ratio": None,
                 "peak_mb": None, "weights_mb": None, "max_abs_err": None}
        results.append(r)
        if r["ok"]:
            print(f"{n}: telar {r['telar']['mean']:.2f} ms, onnxruntime "
                  f"{r['ort']['mean']:.2f} ms, ratio {r['ratio']:.2f}", flush=True)
        else:
            print(f"{n}: FAILED: {r['error']}", flush=True)
    print()
    print_table(results, a)
    ok_ratios = [r["ratio"] for r in results if r["ok"] and r["ratio"]]
    if ok_ratios:
        geo = float(np.exp(np.mean(np.log(ok_ratios))))
        print(f"\nratio = onnxruntime ms / telar ms (> 1: telar is faster); geometric "
              f"mean {geo:.2f} over {len(ok_ratios)} models; SLOW: ratio < {a.flag_below}")
    if a.json:
        with open(a.json, "w") as f:
            json.dump({"threads": a.threads, "iters": a.iters, "warmup": a.warmup,
                       "size": a.size, "results": results}, f, indent=1)
    failed = [r for r in results if not r["ok"]]
    slow = [r for r in results if a.fail_below is not None and r["ratio"] is not None
            and r["ratio"] < a.fail_below]
    return 1 if failed or slow else 0


if __name__ == "__main__":
    sys.exit(main())
