#!/usr/bin/env python3
"""Compile time of the CUDA target against the CPU target's, per test model.

Usage (with the project's .venv):
    .venv/bin/python bench/gpu/compile_time.py [--only gpt,llama] [--repeat 3]
        [--models DIR] [--telarc build/bin/telarc] [--gpu sm_90]
        [--goal 2.0] [--fail-over] [--json out.json]

For each test model (make_models.py, small size, built into DIR, default
build/bench-models/compile-time, unless already there) it runs, alternating
--repeat times and keeping each side's best wall time (a burst of other
work on the shared machine spoils one repetition, not one side):

    telarc NAME.onnx --target cpu -o ART -q
    telarc NAME.onnx --target cuda --gpu GPU -o ART -q

and prints seconds for each, the ratio cuda / cpu (the goal of issue "CUDA
backend": within 2x), the kernel count and whether ptxas assembled them
(ptxas is part of the CUDA side's time when it is installed). The geometric
mean and the largest ratio close the table. Exit 1 when a compile fails or,
with --fail-over, a ratio passes --goal; 2 when a tool is missing.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import shutil
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "python", "telar_testing"))

from run_models import kernel_resources  # noqa: E402

MODELS = ["bert", "gpt", "llama", "moe_einsum", "moe_grouped", "moe_topk",
          "reductions", "resnet18", "t5_encoder", "vit"]


def compile_seconds(telarc, model, out, flags):
    """Wall seconds of one telarc run (the artifact rewritten each time)."""
    shutil.rmtree(out, ignore_errors=True)
    start = time.perf_counter()
    proc = subprocess.run([telarc, model, "-o", out, "-q"] + flags,
                          capture_output=True, text=True)
    seconds = time.perf_counter() - start
    if proc.returncode != 0:
        raise RuntimeError(f"telarc {' '.join(flags)} failed on {model}:\n"
                           f"{proc.stderr.strip()}")
    return seconds


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--only", default="", help="comma-separated models")
    p.add_argument("--repeat", type=int, default=3)
    p.add_argument("--models", default=os.path.join(ROOT, "build", "bench-models",
                                                    "compile-time"))
    p.add_argument("--telarc", default=os.path.join(ROOT, "build", "bin", "telarc"))
    p.add_argument("--gpu", default="sm_90")
    p.add_argument("--goal", type=float, default=2.0)
    p.add_argument("--fail-over", action="store_true")
    p.add_argument("--json", default="")
    a = p.parse_args()

    if not os.access(a.telarc, os.X_OK):
        print(f"compile_time: no telarc at {a.telarc} (build it: scripts/build.sh)",
              file=sys.stderr)
        return 2
    names = [n for n in a.only.split(",") if n] or MODELS
    unknown = sorted(set(names) - set(MODELS))
    if unknown:
        print(f"compile_time: unknown models {unknown}; known: {MODELS}",
              file=sys.stderr)
        return 2
    missing = [n for n in names
               if not os.path.exists(os.path.join(a.models, n + ".onnx"))]
    if missing:
        subprocess.run([sys.executable,
                        os.path.join(ROOT, "python", "telar_testing", "make_models.py"),
                        "--out", a.models, "--only", ",".join(missing), "--no-check"],
                       check=True, stdout=subprocess.DEVNULL)

    sides = {"cpu": ["--target", "cpu"],
             "cuda": ["--target", "cuda", "--gpu", a.gpu]}
    rows, failed = [], False
    print(f"{'model':<12} {'cpu s':>7} {'cuda s':>7} {'ratio':>6} {'kernels':>8}  ptxas")
    for name in names:
        model = os.path.join(a.models, name + ".onnx")
        best = {side: math.inf for side in sides}
        try:
            for _ in range(a.repeat):
                for side, flags in sides.items():
                    out = os.path.join(a.models, f"{name}.{side}.artifact")
                    best[side] = min(best[side],
                                     compile_seconds(a.telarc, model, out, flags))
        except RuntimeError as e:
            print(f"{name:<12} FAIL: {e}")
            failed = True
            continue
        kernels = kernel_resources(os.path.join(a.models, f"{name}.cuda.artifact"))
        ratio = best["cuda"] / best["cpu"]
        over = ratio > a.goal
        failed |= over and a.fail_over
        rows.append({"model": name, "cpu_s": best["cpu"], "cuda_s": best["cuda"],
                     "ratio": ratio, "kernels": kernels["kernels"],
                     "ptxas": kernels["ptxas"]})
        print(f"{name:<12} {best['cpu']:7.2f} {best['cuda']:7.2f} {ratio:6.2f} "
              f"{kernels['kernels']:8d}  {'yes' if kernels['ptxas'] else 'no'}"
              f"{'  OVER' if over else ''}")
    if rows:
        geomean = math.exp(sum(math.log(r["ratio"]) for r in rows) / len(rows))
        worst = max(rows, key=lambda r: r["ratio"])
        print(f"compile_time: cuda/cpu geomean {geomean:.2f}, largest "
              f"{worst['ratio']:.2f} ({worst['model']}); goal <= {a.goal:g}")
    if a.json:
        with open(a.json, "w") as f:
            json.dump(rows, f, indent=1)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
