#!/usr/bin/env python3
"""The cost model against the clock: predicted latency of DP / TP / EP plans vs telar-run.

Usage (re-executes itself with the repo's .venv/bin/python):
    bench/predicted_vs_measured/run.py [--profile FILE] [--cases 'gpt *,moe_einsum tp']
        [--size bench|small] [--iters 20] [--warmup 3] [--repeat 2] [--threads 1]
        [--models DIR] [--reuse] [--telarc build/bin/telarc] [--goal 0.25]
        [--fail-off] [--json out.json] [--keep]

1. the profile: --profile FILE, or `telar-calibrate -n 2 --threads T -o
   DIR/calibrated.json` (measured on this machine first: GEMM FLOP/s through the
   runtime's kernels, memory bandwidth, the collectives' alpha/beta on 2 ranks);
2. per case of the table below (make_models.py's models at --size bench, the
   hand plans of python/telar_testing/sharded_plans.py on 2 devices, as
   bench/sharded_cpu uses them):
   - predicted: `telarc MODEL --plan plan.json --profile PROFILE --emit=plan`,
     plan.json's "cost"."latency_s";
   - measured: `telarc MODEL --target cpu --plan plan.json --profile PROFILE
     -o ART` and
     `telar-run ART -n 2 --threads T --bench N --warmup W --report R` (the
     slowest rank's mean latency, best of --repeat);
3. prints per case predicted ms, measured ms, predicted / measured and `ok`
   when it is within 1 +- --goal (0.25: the issue's +-25 %), `OFF` otherwise;
   also the measured time in collectives and, when the cost object has it,
   the predicted communication time.

Exit 1 when a tool fails (printed with its message), or with --fail-off when
a ratio is off; 2 when a tool is missing.
"""

from __future__ import annotations

import argparse
import fnmatch
import json
import os
import shutil
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "python", "telar_testing"))

import plan_bench  # noqa: E402

plan_bench.use_repo_python()

import numpy as np  # noqa: E402

import make_models  # noqa: E402
import sharded_plans  # noqa: E402
from plan_bench import PlanError  # noqa: E402
from run_models import first_error_line, print_markdown_table  # noqa: E402
from runner import MPI_ENV, input_args, kill_commands_on_exit, run_cmd  # noqa: E402

# model, form, mesh, batch: the GPT-like model and the GShard MoE (global
# capacity: moe_einsum; grouped, whose expert plan is all-to-all: moe_grouped)
# with data- and tensor-parallel plans (and expert-parallel for the MoEs) on 2
# ranks. Batch 2 for data and expert parallel, 1 for tensor parallel (the torch
# attention merges batch and heads: sharded_plans.py).
CASES = [
    ("gpt", "dp", "data=2", 2),
    ("gpt", "tp", "model=2", 1),
    ("moe_einsum", "dp", "data=2", 2),
    ("moe_einsum", "tp", "model=2", 2),
    ("moe_einsum", "ep", "expert=2", 2),
    ("moe_grouped", "dp", "data=2", 2),
    ("moe_grouped", "tp", "model=2", 2),
    ("moe_grouped", "ep", "expert=2", 2),
]
class Bench:
    def __init__(self, a):
        self.a = a
        self.env = dict(os.environ)
        for k, v in MPI_ENV.items():
            self.env.setdefault(k, v)

    def model_path(self, model, batch):
        return os.path.join(self.a.models, f"b{batch}", f"{model}.onnx")

    def calibrate(self):
        out = os.path.join(self.a.models, "calibrated.json")
        cmd = [plan_bench.tool("telar-calibrate", self.a.telarc), "-n", "2", "--threads",
               str(self.a.threads), "-o", out]
        print("calibrating:", " ".join(cmd), flush=True)
        rc, text, _, secs = run_cmd(cmd, self.a.timeout, self.env)
        if rc != 0:
            raise PlanError(f"telar-calibrate failed (rc={rc}): {' '.join(cmd)}\n{text}")
        print(f"calibrated in {secs:.0f}s: {out}", flush=True)
        return out

    def case(self, model, form, mesh, batch):
        a = self.a
        name = f"{model} {form} {mesh} b{batch}"
        res = {"case": name, "model": model, "form": form, "mesh": mesh, "batch": batch,
               "ok": False}
        work = os.path.join(a.models, "runs", name.replace(" ", "_").replace(",", "_"))
        os.makedirs(work, exist_ok=True)
        try:
            onnx_path = self.model_path(model, batch)
            plan = sharded_plans.make_plan(model, onnx_path, form,
                                           sharded_plans.parse_mesh(mesh))
            plan_path = os.path.join(work, "plan.json")
            with open(plan_path, "w") as f:
                f.write(sharded_plans.plan_text(plan))
            priced, _, _, _ = plan_bench.emit_plan(
                a.telarc, onnx_path, ["--plan", plan_path, "--profile", a.profile],
                os.path.join(work, "priced.json"), a.timeout)
            res["predicted_ms"] = plan_bench.plan_latency(priced) * 1e3
            comm = plan_bench.plan_comm(priced)
            res["predicted_comm_ms"] = None if comm is None else comm * 1e3
            art = os.path.join(work, "art")
            shutil.rmtree(art, ignore_errors=True)
            rc, err, _, _ = run_cmd([a.telarc, onnx_path, "--target", "cpu", "--plan",
                                     plan_path, "--profile", a.profile, "-o", art, "-q"],
                                    a.timeout)
            if rc != 0:
                raise PlanError(f"telarc --target cpu --plan rc={rc}: {first_error_line(err)}")
            with open(os.path.join(art, "manifest.json")) as f:
                manifest = json.load(f)
            with np.load(os.path.join(a.models, f"b{batch}", f"{model}.inputs.npz")) as z:
                inputs = {k: z[k] for k in z.files}
            in_args = input_args(manifest, inputs, os.path.join(work, "in"))
            ranks = manifest.get("world_size", 2)
            best = None
            for _ in range(a.repeat):
                report = os.path.join(work, "report.json")
                cmd = [a.telar_run, art, "-n", str(ranks), "--threads", str(a.threads),
                       "--bench", str(a.iters), "--warmup", str(a.warmup), "--report",
                       report, "--output-dir", os.path.join(work, "out"), "-q"] + in_args
                rc, err, _, _ = run_cmd(cmd, a.timeout, self.env)
                if rc != 0:
                    raise PlanError(f"telar-run -n {ranks} rc={rc}: {first_error_line(err)}")
                with open(report) as f:
                    rep = json.load(f)
                if best is None or rep["latency_ms"]["mean"] < best["latency_ms"]["mean"]:
                    best = rep
            res["measured_ms"] = best["latency_ms"]["mean"]
            colls = [r.get("collective_ms_per_run") for r in best.get("ranks", [])]
            colls = [float(c) for c in colls if c is not None]
            res["measured_comm_ms"] = max(colls) if colls else None
            res["ratio"] = res["predicted_ms"] / res["measured_ms"]
            res["ok"] = True
        except (PlanError, OSError, KeyError, ValueError) as e:
            res["error"] = f"{type(e).__name__}: {e}"
        finally:
            if not a.keep:
                shutil.rmtree(work, ignore_errors=True)
        return res


def main(argv=None):
    kill_commands_on_exit()
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--profile", help="a profile (FILE or shipped name); default: "
                    "telar-calibrate -n 2 on this machine")
    ap.add_argument("--cases", default="", help="glob patterns on 'model form mesh bB'")
    ap.add_argument("--size", choices=("bench", "small"), default="bench")
    ap.add_argument("--iters", type=int, default=20)
    ap.add_argument("--warmup", type=int, default=3)
    ap.add_argument("--repeat", type=int, default=2)
    ap.add_argument("--threads", type=int, default=1, help="threads per rank")
    ap.add_argument("--models", help="default build/bench-models/predicted-SIZE")
    ap.add_argument("--reuse", action="store_true", help="keep models already built")
    ap.add_argument("--telarc", default=os.path.join(ROOT, "build", "bin", "telarc"))
    ap.add_argument("--timeout", type=int, default=600)
    ap.add_argument("--goal", type=float, default=0.25)
    ap.add_argument("--fail-off", action="store_true", help="exit 1 when a ratio is off")
    ap.add_argument("--keep", action="store_true")
    ap.add_argument("--json")
    a = ap.parse_args(argv)
    a.models = a.models or os.path.join(ROOT, "build", "bench-models", f"predicted-{a.size}")
    a.telar_run = plan_bench.tool("telar-run", a.telarc)
    tools = [a.telarc, a.telar_run]
    if not a.profile:
        tools.append(plan_bench.tool("telar-calibrate", a.telarc))
    for t in tools:
        if not os.access(t, os.X_OK):
            print(f"predicted_vs_measured: not executable: {t}", file=sys.stderr)
            return 2
    pats = [p for p in a.cases.split(",") if p]
    cases = [c for c in CASES if not pats or any(
        fnmatch.fnmatch(f"{c[0]} {c[1]} {c[2]} b{c[3]}", p) for p in pats)]
    for batch in sorted({c[3] for c in cases}):
        names = sorted({c[0] for c in cases if c[3] == batch})
        d = os.path.join(a.models, f"b{batch}")
        if a.reuse:
            names = [n for n in names if not os.path.exists(os.path.join(d, f"{n}.onnx"))]
        if names and make_models.make(names, d, a.size, check=False, log=lambda s: None,
                                      batch=batch):
            print("predicted_vs_measured: building the models failed", file=sys.stderr)
            return 1
    b = Bench(a)
    if not a.profile:
        try:
            a.profile = b.calibrate()
        except PlanError as e:
            print(f"FAIL {e}", file=sys.stderr)
            return 1
    results = []
    for c in cases:
        r = b.case(*c)
        results.append(r)
        if r["ok"]:
            print(f"done {r['case']}: predicted {r['predicted_ms']:.2f} ms, measured "
                  f"{r['measured_ms']:.2f} ms", flush=True)
        else:
            print(f"FAIL {r['case']}: {r['error'].splitlines()[0]}", file=sys.stderr,
                  flush=True)

    fmt = lambda v: "-" if v is None else f"{v:.2f}"  # noqa: E731
    hdr = ["model", "plan", "batch", "predicted ms", "measured ms", "predicted / measured",
           "predicted comm ms", "measured comm ms", f"goal +-{a.goal * 100:.0f} %"]
    rows, off = [], 0
    for r in results:
        if not r["ok"]:
            rows.append([r["model"], f"{r['form']} {r['mesh']}", str(r["batch"])]
                        + ["-"] * 5 + ["FAIL"])
            continue
        goal = "ok" if abs(r["ratio"] - 1.0) <= a.goal else "OFF"
        off += goal == "OFF"
        rows.append([r["model"], f"{r['form']} {r['mesh']}", str(r["batch"]),
                     fmt(r["predicted_ms"]), fmt(r["measured_ms"]), f"{r['ratio']:.2f}",
                     fmt(r["predicted_comm_ms"]), fmt(r["measured_comm_ms"]), goal])
    print()
    print_markdown_table(hdr, rows)
    print(f"\nprofile {a.profile}; measured: telar-run -n 2 --threads {a.threads}, mean of "
          f"{a.iters} runs (slowest rank), best of {a.repeat}")
    if a.json:
        with open(a.json, "w") as f:
            json.dump(results, f, indent=1, default=str)
    failed = [r for r in results if not r["ok"]]
    for r in failed:
        print(f"\nFAILED {r['case']}:\n{r['error']}", file=sys.stderr)
    return 1 if failed or (a.fail_off and off) else 0


if __name__ == "__main__":
    sys.exit(main())
