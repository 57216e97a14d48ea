#!/usr/bin/env python3
"""The pipeline bubble measured on CPU ranks against the schedule's theoretical bubble.

Usage (with the project's Python, from the repository root):
    .venv/bin/python bench/pipeline_bubble/run.py [--stages 2,4]
        [--microbatches 1,2,3,4,5,6,8,10,12,15,16] [--layers 16] [--d 256]
        [--batch 240] [--bench 10] [--warmup 2] [--backend mpi|gloo]
        [--plans hand|planner] [--work DIR] [--telarc build/bin/telarc]
        [--telar-run PATH] [--timeout 300] [--json out.json]
    .venv/bin/python bench/pipeline_bubble/run.py --quick     (the lit test's size)

1. Builds the model: python/telar_testing/run_pipelined.py's residual MLP
   (x [batch, d] through `layers` blocks h + relu(h W1 + b1) W2 + b2, W1
   [d, 4d]), checked against numpy and onnxruntime, into WORK (default
   build/bench-models/pipeline_bubble). Every block does the same work and
   the boundary between two stages is one [batch/M, d] float32 tensor, so
   stage compute dominates transfer (at the default size a stage computes
   ~1 ms per microbatch even at M = 16, the transfer is 15 KiB).
2. Runs it once on one device (`telarc --target cpu`, `telar-run --threads
   1`): the reference outputs and the single-device latency.
3. For each stage count P and microbatch count M: a pipelined artifact of P
   stages on one device each, GPipe schedule, M microbatches. --plans hand
   (the default) writes the staged plan.json (run_pipelined.staged_plan: @main's
   ops in program order cut into P equal parts, layers % P == 0 makes the
   stages equal) and compiles it with `telarc --plan`; --plans planner asks
   the planner (`telarc --devices P --pipeline-stages P --microbatches M`).
   Then `telar-run ART -n P --threads 1 --bench N --warmup W --report R`
   (--backend mpi; gloo: P plain processes with the TELAR_* variables,
   python/telar_testing/run_ranks.py), outputs checked against the
   single-device run (rtol 1e-4, atol 1e-4).
4. Reads each rank's measured idle fraction from the report (`"ranks"[r]
   ["pipeline"]["idle_fraction"]`: 1 - busy / wall, busy the time in stage
   programs per run, mean over the --bench runs) and prints a table: P, M,
   the theoretical bubble (P-1)/(M+P-1), each rank's measured idle fraction,
   their mean and its difference from theory, the wall time per run and the
   speedup over one device.

The theoretical bubble is GPipe's (and, for forward-only schedules, 1F1B's:
the same order) idle fraction for P equal stages, (P-1)/(M+P-1) (Narayanan
et al. SC'21 section 2.2). It is computed here in Python from that formula,
the same formula as telar_sharding::getTheoreticalBubble (lib/sharding/core/
Schedule.cpp), which this script cannot call (it goes through the tools
only).

On a machine with fewer cores than ranks (4 stages on 2 cores) the ranks
share cores: a rank computing while another computes on "its" core takes
longer, which shows as busy time, and the measured idle fraction falls
below theory. The numbers are what this machine measures, not a model.

--quick: d 64, 4 layers, batch 8, 2 stages, M = 1, 2, 4, 2 runs after 1
warmup: checks that every step works and every value is in range (the lit
test test/e2e/pipeline-bubble.test), not the timings.

Exit 1 when a step fails (build, compile, run, outputs, a missing or
out-of-range report field), 2 on usage errors.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "python", "telar_testing"))

import run_pipelined  # noqa: E402
from run_models import first_error_line, print_markdown_table  # noqa: E402
from run_models import output_file_name as file_name  # noqa: E402
from run_ranks import run_ranks  # noqa: E402
from runner import MPI_ENV, input_args, kill_commands_on_exit, run_cmd  # noqa: E402
from tensor_compare import compare  # noqa: E402


def theoretical_bubble(stages, microbatches):
    """GPipe's idle fraction for equal stages: (P-1)/(M+P-1), the formula of
    getTheoreticalBubble (lib/sharding/core/Schedule.cpp), recomputed here."""
    return (stages - 1) / (microbatches + stages - 1)


def parse_list(text):
    return [int(x) for x in text.split(",") if x]


class Bench:
    def __init__(self, a):
        self.a = a
        self.env = dict(os.environ)
        for k, v in MPI_ENV.items():
            self.env.setdefault(k, v)
        self.model = os.path.join(a.work, "mlp.onnx")

    def fail(self, msg):
        raise RuntimeError(msg)

    def tool(self, cmd, what):
        rc, err, out, secs = run_cmd(cmd, self.a.timeout, self.env)
        if rc != 0:
            self.fail(f"{what}: rc={rc}: {first_error_line(err)}")
        return out, secs

    def read_outputs(self, manifest, out_dir):
        outs = {}
        for o in manifest["outputs"]:
            p = os.path.join(out_dir, file_name(o["name"]) + ".npy")
            if not os.path.exists(p):
                self.fail(f"{out_dir}: no output {o['name']}")
            outs[o["name"]] = np.load(p)
        return outs

    def prepare(self):
        a = self.a
        os.makedirs(a.work, exist_ok=True)
        run_pipelined.write_mlp(a.work, "mlp", d=a.d, layers=a.layers, batch=a.batch)
        with np.load(os.path.join(a.work, "mlp.inputs.npz")) as z:
            self.inputs = {k: z[k] for k in z.files}
        single = os.path.join(a.work, "single")
        shutil.rmtree(single, ignore_errors=True)
        self.tool([a.telarc, self.model, "--target", "cpu", "-o", single, "-q"],
                  "single-device telarc")
        manifest = json.load(open(os.path.join(single, "manifest.json")))
        self.in_args = input_args(manifest, self.inputs, os.path.join(a.work, "in"))
        out_dir = os.path.join(a.work, "single.out")
        report = os.path.join(a.work, "single.report.json")
        self.tool([a.telar_run, single, "--threads", "1", "--bench", str(a.bench),
                   "--warmup", str(a.warmup), "--report", report, "--output-dir", out_dir,
                   "-q"] + self.in_args, "single-device telar-run")
        self.single_ms = json.load(open(report))["latency_ms"]["mean"]
        self.single = self.read_outputs(manifest, out_dir)
        self.names = None
        if a.plans == "hand":
            out, _ = self.tool([a.telarc, self.model, "--emit=plan"], "telarc --emit=plan")
            self.names = list(json.loads(out)["shardings"])

    def artifact(self, stages, microbatches):
        a = self.a
        art = os.path.join(a.work, f"p{stages}.m{microbatches}")
        shutil.rmtree(art, ignore_errors=True)
        if a.plans == "hand":
            plan = run_pipelined.staged_plan("mlp", self.model, self.names, stages,
                                             microbatches, 1)
            path = art + ".plan.json"
            with open(path, "w") as f:
                f.write(run_pipelined.staged_plan_text(plan))
            cmd = [a.telarc, self.model, "--target", "cpu", "--plan", path, "-o", art, "-q"]
        else:
            cmd = [a.telarc, self.model, "--target", "cpu", "--devices", str(stages),
                   "--pipeline-stages", str(stages), "--microbatches", str(microbatches),
                   "-o", art, "-q"]
        self.tool(cmd, f"telarc P={stages} M={microbatches}")
        plan = json.load(open(os.path.join(art, "plan.json")))
        got = (len(plan.get("stages") or []), (plan.get("schedule") or {}).get("microbatches"))
        if got != (stages, microbatches):
            self.fail(f"P={stages} M={microbatches}: plan.json has {got[0]} stages, "
                      f"{got[1]} microbatches")
        return art

    def measure(self, stages, microbatches):
        a = self.a
        art = self.artifact(stages, microbatches)
        manifest = json.load(open(os.path.join(art, "manifest.json")))
        out_dir, report = art + ".out", art + ".report.json"
        shutil.rmtree(out_dir, ignore_errors=True)
        run = [a.telar_run, art, "--threads", "1", "--bench", str(a.bench), "--warmup",
               str(a.warmup), "--report", report, "--output-dir", out_dir, "-q"] + self.in_args
        if a.backend == "mpi":
            self.tool(run[:2] + ["-n", str(stages)] + run[2:], f"telar-run P={stages} "
                      f"M={microbatches}")
        else:
            codes, _, errs, _ = run_ranks(run, stages, timeout=a.timeout)
            for r, c in enumerate(codes):
                if c != 0:
                    self.fail(f"telar-run (gloo) P={stages} M={microbatches}: rank {r} "
                              f"rc={c}: {first_error_line(errs[r]) if c is not None else 'timed out'}")
        for name, got in self.read_outputs(manifest, out_dir).items():
            ok, mabs, _, msg = compare(got, self.single[name], 1e-4, 1e-4)
            if not ok:
                self.fail(f"P={stages} M={microbatches}: {name} differs from the single-device "
                          f"run: {msg}")
        rep = json.load(open(report))
        entries = run_pipelined.pipeline_reports(rep, stages)
        if isinstance(entries, str):
            self.fail(f"P={stages} M={microbatches}: {entries}")
        if not a.keep:
            shutil.rmtree(art, ignore_errors=True)
            shutil.rmtree(out_dir, ignore_errors=True)
        return {"stages": stages, "microbatches": microbatches,
                "theory": theoretical_bubble(stages, microbatches),
                "idle": [e["idle_fraction"] for e in entries],
                "busy_ms": [e["busy_s"] * 1e3 for e in entries],
                "wall_ms": max(e["wall_s"] for e in entries) * 1e3,
                "latency_ms": rep["latency_ms"]["mean"]}


def print_table(rows, single_ms):
    width = max(r["stages"] for r in rows)
    hdr = (["P", "M", "theory (P-1)/(M+P-1)"] + [f"rank {k}" for k in range(width)]
           + ["mean", "mean - theory", "wall ms/run", "speedup vs 1 device"])
    out = []
    for r in rows:
        idle = [f"{x:.3f}" for x in r["idle"]] + ["-"] * (width - len(r["idle"]))
        mean = sum(r["idle"]) / len(r["idle"])
        out.append([str(r["stages"]), str(r["microbatches"]), f"{r['theory']:.3f}"] + idle
                   + [f"{mean:.3f}", f"{mean - r['theory']:+.3f}", f"{r['wall_ms']:.2f}",
                      f"{single_ms / r['wall_ms']:.2f}x"])
    print_markdown_table(hdr, out)


def main(argv=None):
    kill_commands_on_exit()
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--quick", action="store_true",
                    help="tiny model, P=2, M=1,2,4 (the lit test)")
    ap.add_argument("--stages", default="2,4")
    ap.add_argument("--microbatches", default="1,2,3,4,5,6,8,10,12,15,16")
    ap.add_argument("--layers", type=int, default=16)
    ap.add_argument("--d", type=int, default=256)
    ap.add_argument("--batch", type=int, default=240)
    ap.add_argument("--bench", type=int, default=10, help="timed runs per configuration")
    ap.add_argument("--warmup", type=int, default=2)
    ap.add_argument("--backend", choices=["mpi", "gloo"], default="mpi")
    ap.add_argument("--plans", choices=["hand", "planner"], default="hand")
    ap.add_argument("--work", default=os.path.join(ROOT, "build", "bench-models",
                                                   "pipeline_bubble"))
    ap.add_argument("--telarc", default=os.path.join(ROOT, "build", "bin", "telarc"))
    ap.add_argument("--telar-run", help="default: next to telarc")
    ap.add_argument("--timeout", type=int, default=300, help="seconds per command")
    ap.add_argument("--keep", action="store_true", help="keep the artifacts")
    ap.add_argument("--json", help="write the rows here")
    a = ap.parse_args(argv)
    if a.quick:
        a.stages, a.microbatches = "2", "1,2,4"
        a.layers, a.d, a.batch, a.bench, a.warmup = 4, 64, 8, 2, 1
    stages, mbs = parse_list(a.stages), parse_list(a.microbatches)
    for p in stages:
        if p < 2 or a.layers % p:
            ap.error(f"--stages {p}: needs 2 or more stages dividing --layers {a.layers}")
    for m in mbs:
        if m < 1 or a.batch % m:
            ap.error(f"--microbatches {m} does not divide --batch {a.batch}")
    a.telarc = shutil.which(a.telarc) or a.telarc
    a.telar_run = a.telar_run or os.path.join(os.path.dirname(os.path.abspath(a.telarc)),
                                              "telar-run")
    for t in (a.telarc, a.telar_run):
        if not os.access(t, os.X_OK):
            print(f"pipeline_bubble: not executable: {t}", file=sys.stderr)
            return 2
    b = Bench(a)
    t0 = time.time()
    rows = []
    try:
        b.prepare()
        print(f"model: residual MLP, d {a.d}, {a.layers} layers, batch {a.batch}; "
              f"single device {b.single_ms:.2f} ms/run; {a.backend}, {a.plans} plans, GPipe, "
              f"{a.bench} runs after {a.warmup} warmup, 1 thread per rank, "
              f"{os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f}", flush=True)
        for p in stages:
            for m in mbs:
                r = b.measure(p, m)
                rows.append(r)
                print(f"P={p} M={m}: theory {r['theory']:.3f}, measured "
                      + " ".join(f"{x:.3f}" for x in r["idle"]), flush=True)
    except RuntimeError as e:
        print(f"pipeline_bubble: {e}", file=sys.stderr)
        return 1
    print()
    print_table(rows, b.single_ms)
    if a.json:
        with open(a.json, "w") as f:
            json.dump({"single_ms": b.single_ms, "rows": rows}, f, indent=1)
    print(f"\npipeline_bubble: {len(rows)} configurations in {time.time() - t0:.1f}s, load "
          f"average {os.getloadavg()[0]:.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
