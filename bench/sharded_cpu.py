#!/usr/bin/env python3
"""The overhead of sharding on one CPU: 1 rank x 2 threads against 2 ranks x 1 thread.

Usage (the wrapper bench/sharded_cpu runs this with the project's .venv):
    bench/sharded_cpu [--only gpt,llama] [--cases 'gpt *'] [--size bench|small]
        [--iters N] [--warmup W] [--repeat R] [--models DIR] [--reuse]
        [--telarc build/bin/telarc] [--telar-run PATH] [--json out.json]
        [--goal 1.3] [--fail-over]

For each model and plan of the table below (the plans of
python/telar_testing/sharded_plans.py on a 2-device mesh):
1. builds the benchmark-size model (make_models.py --size bench --batch B:
   batch 2 for data parallel and expert parallel, 1 for tensor parallel,
   whose torch attention merges batch and heads) into DIR/b<B> (default
   build/bench-models/sharded-SIZE; --reuse keeps models already there);
2. compiles it once without a plan and once with the plan
   (`telarc NAME.onnx --target cpu [--plan P] -o ART -q`);
3. runs `telar-run ART --threads 2 --bench N --warmup W --report R` (1 rank x 2
   threads) and `telar-run ART -n 2 --threads 1 --bench N --warmup W --report
   R` (2 ranks x 1 thread), alternating --repeat times, each keeping its best
   mean (a burst of other work on the shared machine spoils one repetition,
   not one side);
4. checks the 2-rank outputs against the 1-rank ones (rtol 1e-3, atol 1e-3: a
   sanity check; python/telar_testing/run_sharded.py is the accuracy test);
5. prints a table: model, plan, batch, 1x2 ms, 2x1 ms (the slowest rank's
   mean latency), ratio = 2x1 / 1x2 (the overhead: 1.0 is no cost; sharding
   cannot win on 2 cores), the time inside collectives (the slowest rank's,
   ms per run, from the report) and its share of the latency, bytes sent per
   run and mesh axis (measured, from --report). Rows whose plan has a goal
   (DP and TP of the GPT-like model: ratio <= --goal, 1.3) say `ok` or
   `OVER`.

Exit 1 when a case fails to build, compile, run or match, or (with
--fail-over) a goal is missed; 2 when a tool is missing.
"""

from __future__ import annotations

import argparse
import fnmatch
import json
import os
import shutil
import sys
import time

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "python", "telar_testing"))

import make_models  # noqa: E402
import sharded_plans  # noqa: E402
from run_models import first_error_line, output_file_name, print_markdown_table  # noqa: E402
from runner import MPI_ENV, input_args, kill_commands_on_exit, run_cmd  # noqa: E402
from tensor_compare import compare  # noqa: E402

# model, form, mesh, batch, goal (max ratio) or None
CASES = [
    ("gpt", "dp", "data=2", 2, 1.3),
    ("gpt", "tp", "model=2", 1, 1.3),
    ("bert", "dp", "data=2", 2, None),
    ("bert", "tp", "model=2", 1, None),
    ("llama", "dp", "data=2", 2, None),
    ("llama", "tp", "model=2", 1, None),
    ("vit", "dp", "data=2", 2, None),
    ("vit", "tp", "model=2", 1, None),
    ("resnet18", "dp", "data=2", 2, None),
    ("resnet18", "ch", "model=2", 1, None),
    ("moe_einsum", "dp", "data=2", 2, None),
    ("moe_einsum", "ep", "expert=2", 2, None),
    ("moe_grouped", "dp", "data=2", 2, None),
    ("moe_grouped", "ep", "expert=2", 2, None),
    ("moe_topk", "dp", "data=2", 2, None),
    ("moe_topk", "ep", "expert=2", 2, None),
]


def collective_ms(rep):
    """The slowest rank's time inside collectives, ms per run (--report's
    "ranks"), or None."""
    ranks = rep.get("ranks")
    if not isinstance(ranks, list):
        return None
    vals = [r.get("collective_ms_per_run") for r in ranks if isinstance(r, dict)]
    vals = [float(v) for v in vals if v is not None]
    return max(vals) if vals else None


def bytes_per_axis(rep):
    """{axes: bytes the busiest rank sent per run} (--report's "collectives")."""
    colls = rep.get("collectives")
    if not isinstance(colls, list):
        return None
    return {",".join(c.get("axes", [])) or "-": c.get("bytes_sent_per_run_max_rank", 0)
            for c in colls}


def fmt_bytes(n):
    n = float(n)
    for unit, f in (("MiB", 1 << 20), ("KiB", 1 << 10)):
        if n >= f:
            return f"{n / f:.1f} {unit}"
    return f"{int(n)} B"


class Bench:
    def __init__(self, a):
        self.a = a
        self.env = dict(os.environ)
        for k, v in MPI_ENV.items():
            self.env.setdefault(k, v)
        self.single = {}

    def model_dir(self, batch):
        return os.path.join(self.a.models, f"b{batch}")

    def inputs_args(self, model, batch, manifest, in_dir):
        with np.load(os.path.join(self.model_dir(batch), f"{model}.inputs.npz")) as z:
            inputs = {k: z[k] for k in z.files}
        return input_args(manifest, inputs, in_dir)

    def compile(self, model, batch, art, plan=None):
        onnx_path = os.path.join(self.model_dir(batch), f"{model}.onnx")
        shutil.rmtree(art, ignore_errors=True)
        cmd = [self.a.telarc, onnx_path, "--target", "cpu", "-o", art, "-q"]
        if plan:
            cmd += ["--plan", plan]
        rc, err, _, secs = run_cmd(cmd, self.a.timeout)
        if rc != 0:
            raise RuntimeError(f"telarc{' --plan' if plan else ''} rc={rc}: "
                               f"{first_error_line(err)}")
        with open(os.path.join(art, "manifest.json")) as f:
            return json.load(f), secs

    def bench(self, art, ranks, threads, in_args, out_dir, report):
        cmd = [self.a.telar_run, art, "--threads", str(threads), "--bench", str(self.a.iters),
               "--warmup", str(self.a.warmup), "--report", report, "--output-dir", out_dir,
               "-q"] + in_args
        if ranks > 1:
            cmd[2:2] = ["-n", str(ranks)]
        rc, err, _, _ = run_cmd(cmd, self.a.timeout, self.env)
        if rc != 0:
            raise RuntimeError(f"telar-run{' -n %d' % ranks if ranks > 1 else ''} rc={rc}: "
                               f"{first_error_line(err)}")
        with open(report) as f:
            return json.load(f)

    def case(self, model, form, mesh, batch, goal):
        a = self.a
        name = f"{model} {form} {mesh} b{batch}"
        res = {"case": name, "model": model, "form": form, "mesh": mesh, "batch": batch,
               "goal": goal, "ok": False, "error": None}
        work = os.path.join(a.models, "runs", name.replace(" ", "_").replace(",", "_"))
        os.makedirs(work, exist_ok=True)
        try:
            onnx_path = os.path.join(self.model_dir(batch), f"{model}.onnx")
            plan = sharded_plans.make_plan(model, onnx_path, form,
                                           sharded_plans.parse_mesh(mesh))
            plan_path = os.path.join(work, "plan.json")
            with open(plan_path, "w") as f:
                f.write(sharded_plans.plan_text(plan))
            single_art = os.path.join(work, "single")
            sharded_art = os.path.join(work, "sharded")
            m1, _ = self.compile(model, batch, single_art)
            m2, _ = self.compile(model, batch, sharded_art, plan_path)
            in1 = self.inputs_args(model, batch, m1, os.path.join(work, "in"))
            in2 = self.inputs_args(model, batch, m2, os.path.join(work, "in"))
            ranks = m2.get("world_size", 2)
            best1 = best2 = None
            for _ in range(a.repeat):
                r1 = self.bench(single_art, 1, 2, in1, os.path.join(work, "out1"),
                                os.path.join(work, "r1.json"))
                r2 = self.bench(sharded_art, ranks, 1, in2, os.path.join(work, "out2"),
                                os.path.join(work, "r2.json"))
                if best1 is None or r1["latency_ms"]["mean"] < best1["latency_ms"]["mean"]:
                    best1 = r1
                if best2 is None or r2["latency_ms"]["mean"] < best2["latency_ms"]["mean"]:
                    best2 = r2
            res["one_ms"] = best1["latency_ms"]["mean"]
            res["two_ms"] = best2["latency_ms"]["mean"]
            res["ratio"] = res["two_ms"] / res["one_ms"]
            res["coll_ms"] = collective_ms(best2)
            res["bytes_per_axis"] = bytes_per_axis(best2)
            res["report"] = best2
            for o in m1["outputs"]:
                f = output_file_name(o["name"]) + ".npy"
                ok, mabs, _, msg = compare(np.load(os.path.join(work, "out2", f)),
                                           np.load(os.path.join(work, "out1", f)), 1e-3, 1e-3)
                if not ok:
                    raise RuntimeError(f"2-rank {o['name']} differs from 1 rank: {msg}")
            res["ok"] = True
        except Exception as e:
            res["error"] = f"{type(e).__name__}: {e}"
        finally:
            if not a.keep:
                shutil.rmtree(work, ignore_errors=True)
        return res


def main(argv=None):
    kill_commands_on_exit()
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--only", default="", help="comma-separated model names")
    ap.add_argument("--cases", default="", help="glob patterns on 'model form mesh bB'")
    ap.add_argument("--size", choices=("bench", "small"), default="bench")
    ap.add_argument("--iters", type=int, default=20)
    ap.add_argument("--warmup", type=int, default=3)
    ap.add_argument("--repeat", type=int, default=2)
    ap.add_argument("--models", help="default build/bench-models/sharded-SIZE")
    ap.add_argument("--reuse", action="store_true", help="keep models already built")
    ap.add_argument("--telarc", default=os.path.join(ROOT, "build", "bin", "telarc"))
    ap.add_argument("--telar-run")
    ap.add_argument("--timeout", type=int, default=600)
    ap.add_argument("--goal", type=float, default=1.3)
    ap.add_argument("--fail-over", action="store_true", help="exit 1 when a goal is missed")
    ap.add_argument("--keep", action="store_true")
    ap.add_argument("--json")
    a = ap.parse_args(argv)
    a.models = a.models or os.path.join(ROOT, "build", "bench-models", f"sharded-{a.size}")
    a.telar_run = a.telar_run or os.path.join(os.path.dirname(a.telarc), "telar-run")
    for tool in (a.telarc, a.telar_run):
        if not os.access(tool, os.X_OK):
            print(f"sharded_cpu: not executable: {tool}", file=sys.stderr)
            return 2
    only = [n for n in a.only.split(",") if n]
    pats = [p for p in a.cases.split(",") if p]
    cases = [c for c in CASES if (not only or c[0] in only) and
             (not pats or any(fnmatch.fnmatch(f"{c[0]} {c[1]} {c[2]} b{c[3]}", p)
                              for p in pats))]
    for batch in sorted({c[3] for c in cases}):
        names = sorted({c[0] for c in cases if c[3] == batch})
        d = os.path.join(a.models, f"b{batch}")
        if a.reuse:
            names = [n for n in names if not os.path.exists(os.path.join(d, f"{n}.onnx"))]
        if names and make_models.make(names, d, a.size, check=False, log=lambda s: None,
                                      batch=batch):
            print("sharded_cpu: building the models failed", file=sys.stderr)
            return 1
    b = Bench(a)
    results = []
    for c in cases:
        t0 = time.time()
        r = b.case(*c)
        results.append(r)
        if r["ok"]:
            print(f"done {r['case']}: 1x2 {r['one_ms']:.2f} ms, 2x1 {r['two_ms']:.2f} ms "
                  f"({time.time() - t0:.0f}s)", flush=True)
        else:
            print(f"FAIL {r['case']}: {r['error']}", flush=True)

    hdr = ["model", "plan", "batch", "1 rank x 2 thr ms", "2 ranks x 1 thr ms", "ratio",
           "collectives ms", "coll share", "bytes/run by axis", "goal"]
    rows, missed = [], 0
    for r in results:
        if not r["ok"]:
            rows.append([r["model"], f"{r['form']} {r['mesh']}", str(r["batch"]),
                         "-", "-", "-", "-", "-", "-", "FAIL"])
            continue
        goal = "-"
        if r["goal"] is not None:
            goal = "ok" if r["ratio"] <= r["goal"] else "OVER"
            missed += goal == "OVER"
        cm = r["coll_ms"]
        bpa = r["bytes_per_axis"]
        rows.append([r["model"], f"{r['form']} {r['mesh']}", str(r["batch"]),
                     f"{r['one_ms']:.2f}", f"{r['two_ms']:.2f}", f"{r['ratio']:.2f}",
                     "-" if cm is None else f"{cm:.2f}",
                     "-" if cm is None else f"{100 * cm / r['two_ms']:.0f} %",
                     "-" if not bpa else ", ".join(f"{k}: {fmt_bytes(v)}"
                                                  for k, v in bpa.items()),
                     goal])
    print()
    print_markdown_table(hdr, rows)
    print(f"\nratio = 2-rank latency / 1-rank latency (mean of {a.iters} runs, best of "
          f"{a.repeat}); goal: <= {a.goal:g} for the GPT-like model's DP and TP plans")
    if a.json:
        with open(a.json, "w") as f:
            json.dump(results, f, indent=1, default=str)
    failed = sum(not r["ok"] for r in results)
    return 1 if failed or (a.fail_over and missed) else 0


if __name__ == "__main__":
    sys.exit(main())
