#!/usr/bin/env python3
"""The planner's scenario tests: on an 8-GPU NVLink profile, the plan an expert would choose.

Usage:
    .venv/bin/python python/telar_testing/planner_scenarios.py --models DIR
        [--only mlp_big,moe] [--devices 8] [--profile a100-80g]
        [--telarc build/bin/telarc] [--collectives] [--keep-plans DIR]

Builds planner_models.py's models into DIR (once; resnet18_b64 needs torch)
and, for each scenario below, plans it with

    telarc MODEL --devices 8 --profile a100-80g --emit=plan

and prices the expert's plan (planner_models.expert_plan) with

    telarc MODEL --plan expert_8.json --profile a100-80g --emit=plan

A scenario passes when the planner's plan is of the expected kind, or, where
it picked something else, when its predicted latency is not above the
expert plan's (both costs are printed: "the cheaper one must be the
planner's"). too_big passes when telarc refuses it with "does not fit".
`--collectives` also partitions the planner's plan (`telarc --plan P
--emit=mlir --elide-weights | telar-opt -telar-partition
-test-telar-collectives`) and prints its collectives that move bytes (one
all-reduce per MLP block, all-to-alls for the MoE, ...).

Scenarios (issue 9, section 5):
    mlp_1tok, mlp_big    column-then-row: every block's w1 split by columns and
                         w2 by rows on one axis (one all-reduce per block)
    attention, attention_big, attention_decode
                         head split: every layer's probs split on the heads dim
    moe                  expert parallelism: w1 and w2 split on the experts dim
    resnet18_b64         data parallelism: input split by batch over every device,
                         conv weights whole
    too_big              "does not fit" (with the bytes per device and the capacity)

Exit 1 when a scenario fails, 2 when telarc is missing.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)

import plan_bench  # noqa: E402

plan_bench.use_repo_python()

import planner_models  # noqa: E402
from plan_bench import PlanError, fmt_bytes, fmt_seconds, mesh_text  # noqa: E402
from run_models import print_markdown_table  # noqa: E402


def _dims(plan, name):
    """The dims list of `name`'s sharding in a completed plan, or None."""
    sh = plan.get("shardings", {}).get(name)
    if isinstance(sh, dict):
        sh = sh.get("dims")
    return sh


def _split_parts(plan, axes):
    mesh = plan.get("mesh", {})
    n = 1
    for a in axes:
        n *= int(mesh.get(a, 1))
    return n


def _layer_names(plan, suffix):
    r = re.compile(r"^layers\.(\d+)\." + re.escape(suffix) + "$")
    return sorted((n for n in plan.get("shardings", {}) if r.match(n)),
                  key=lambda n: int(r.match(n).group(1)))


def is_column_row(plan):
    """Every block: w1 split by columns and w2 by rows on the same axes (> 1 part)."""
    w1s = _layer_names(plan, "w1")
    if not w1s:
        return False, "no layers.I.w1 in the plan"
    for w1 in w1s:
        w2 = w1[:-2] + "w2"
        d1, d2 = _dims(plan, w1), _dims(plan, w2)
        if not d1 or not d2 or d1[0] or not d1[1] or d2[1] or d1[1] != d2[0] \
                or _split_parts(plan, d1[1]) < 2:
            return False, f"{w1} {d1}, {w2} {d2}"
    return True, f"{len(w1s)} blocks split column-then-row on {','.join(_dims(plan, w1s[0])[1])}"


def is_head_split(plan):
    probs = _layer_names(plan, "probs")
    if not probs:
        return False, "no layers.I.probs in the plan"
    for p in probs:
        d = _dims(plan, p)
        if not d or not d[1] or _split_parts(plan, d[1]) < 2:
            return False, f"{p} {d}"
    return True, f"{len(probs)} layers split by heads on {','.join(_dims(plan, probs[0])[1])}"


def is_expert_parallel(plan):
    d1, d2 = _dims(plan, "w1"), _dims(plan, "w2")
    if d1 and d2 and d1[0] and d1[0] == d2[0] and _split_parts(plan, d1[0]) >= 2:
        return True, f"experts of w1/w2 on {','.join(d1[0])}"
    return False, f"w1 {d1}, w2 {d2}"


def is_data_parallel(plan):
    d = _dims(plan, "input")
    n = plan_bench.mesh_devices(plan.get("mesh", {}))
    if not d or _split_parts(plan, d[0]) != n or any(d[1:]):
        return False, f"input {d} on {mesh_text(plan.get('mesh', {}))}"
    # No weight split: every initializer of a conv replicated.
    for name, sh in plan.get("shardings", {}).items():
        dims = sh.get("dims") if isinstance(sh, dict) else sh
        if name.endswith(".weight") or name.startswith("onnx::Conv"):
            if any(dims):
                return False, f"{name} split: {dims}"
    return True, f"input split by batch over {n} devices"


SCENARIOS = {
    "mlp_1tok": ("column-then-row", is_column_row),
    "mlp_big": ("column-then-row", is_column_row),
    "attention": ("head split", is_head_split),
    "attention_big": ("head split", is_head_split),
    "attention_decode": ("head split", is_head_split),
    "moe": ("expert parallel", is_expert_parallel),
    "resnet18_b64": ("data parallel", is_data_parallel),
    "too_big": ("does not fit", None),
}


def model_path(models, name):
    if name == "resnet18_b64":
        path = os.path.join(models, name, "resnet18.onnx")
        if not os.path.exists(path):
            planner_models.resnet18_b64(models, check=False)
        return path
    path = os.path.join(models, name, "model.onnx")
    if not os.path.exists(path):
        planner_models.write(name, models)
    return path


def collectives(a, model, plan_path):
    """{"kind[axes]": count} of the collectives moving bytes in the partitioned plan."""
    mlir = subprocess.run([a.telarc, model, "--plan", plan_path, "--emit=mlir",
                           "--elide-weights"], capture_output=True, text=True, timeout=a.timeout)
    if mlir.returncode:
        raise PlanError(f"telarc --emit=mlir --plan failed: {mlir.stderr.strip()[:2000]}")
    r = subprocess.run([plan_bench.tool("telar-opt", a.telarc), "-telar-partition",
                        "-test-telar-collectives", "-o", os.devnull], input=mlir.stdout,
                       capture_output=True, text=True, timeout=a.timeout)
    if r.returncode:
        raise PlanError(f"telar-opt -telar-partition failed: {r.stderr.strip()[:2000]}")
    counts = {}
    for line in r.stderr.splitlines():
        m = re.search(r"remark: (\w+) over \[([^\]]*)\]: .*?(\d+) bytes per rank", line)
        if m and int(m.group(3)) > 0:
            k = f"{m.group(1)}[{m.group(2).replace(' ', '')}]"
            counts[k] = counts.get(k, 0) + 1
    return counts


def run_scenario(a, name, work):
    kind, check = SCENARIOS[name]
    res = {"scenario": name, "expected": kind, "ok": False}
    model = model_path(a.models, name)
    args = ["--devices", str(a.devices), "--profile", a.profile]
    if check is None:  # must not fit
        cmd = [a.telarc, model] + args + ["--emit=plan", "-o", os.devnull]
        rc, secs, _, out, err = planner_models.run_measured(cmd, a.timeout)
        msg = next((l for l in (err + out).splitlines() if "does not fit" in l), None)
        res["seconds"] = secs
        res["detail"] = msg or (err.strip().splitlines() or ["(no message)"])[-1]
        res["ok"] = rc == 1 and msg is not None and re.search(r"\d", msg) is not None
        res["chosen"] = "refused" if rc else "a plan"
        return res
    planned, secs, _, _ = plan_bench.emit_plan(a.telarc, model, args,
                                               os.path.join(work, f"{name}.planner.json"),
                                               a.timeout)
    res["seconds"] = secs
    res["mesh"] = mesh_text(planned.get("mesh", {}))
    res["latency"] = plan_bench.plan_latency(planned)
    res["memory"] = plan_bench.plan_memory(planned)
    matches, detail = check(planned)
    res["chosen"] = kind if matches else "other"
    res["detail"] = detail
    expert_path = os.path.join(work, f"{name}.expert.json")
    with open(expert_path, "w") as f:
        f.write(planner_models.plan_text(planner_models.expert_plan(name, a.devices)))
    expert, _, _, _ = plan_bench.emit_plan(a.telarc, model,
                                           ["--plan", expert_path, "--profile", a.profile],
                                           os.path.join(work, f"{name}.expert.priced.json"),
                                           a.timeout)
    res["expert_latency"] = plan_bench.plan_latency(expert)
    res["expert_memory"] = plan_bench.plan_memory(expert)
    # The planner's plan is never worse than the expert's (a relative
    # tolerance for the two prices' rounding only).
    not_worse = res["latency"] <= res["expert_latency"] * (1 + 1e-9)
    res["ok"] = not_worse
    if a.collectives:
        res["collectives"] = collectives(a, model, os.path.join(work, f"{name}.planner.json"))
    return res


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--models", default=os.path.join(ROOT, "build", "planner-models"))
    ap.add_argument("--only", default="", help="comma-separated subset of: "
                    + ",".join(SCENARIOS))
    ap.add_argument("--devices", type=int, default=8)
    ap.add_argument("--profile", default="a100-80g")
    ap.add_argument("--telarc", default=os.path.join(ROOT, "build", "bin", "telarc"))
    ap.add_argument("--timeout", type=int, default=600)
    ap.add_argument("--collectives", action="store_true")
    ap.add_argument("--keep-plans", metavar="DIR")
    ap.add_argument("--json")
    a = ap.parse_args(argv)
    if not os.access(a.telarc, os.X_OK):
        print(f"planner_scenarios: not executable: {a.telarc}", file=sys.stderr)
        return 2
    names = [n for n in a.only.split(",") if n] or list(SCENARIOS)
    for n in names:
        if n not in SCENARIOS:
            ap.error(f"unknown scenario {n!r}")
    work = a.keep_plans or tempfile.mkdtemp(prefix="telar-scenarios-")
    os.makedirs(work, exist_ok=True)
    results = []
    try:
        for n in names:
            try:
                r = run_scenario(a, n, work)
            except (PlanError, subprocess.TimeoutExpired, RuntimeError, OSError) as e:
                r = {"scenario": n, "expected": SCENARIOS[n][0], "ok": False,
                     "chosen": "error", "detail": str(e)}
            results.append(r)
            print(f"{'ok  ' if r['ok'] else 'FAIL'} {n}: {r['chosen']} ({r['detail'].splitlines()[0]})",
                  flush=True)
    finally:
        if not a.keep_plans:
            shutil.rmtree(work, ignore_errors=True)
    hdr = ["scenario", "expected", "planner chose", "mesh", "planner latency",
           "expert latency", "planner memory", "expert memory", "telarc s", "result"]
    if a.collectives:
        hdr.insert(-1, "collectives")
    rows = []
    for r in results:
        row = [r["scenario"], r["expected"], r["chosen"], r.get("mesh", "-"),
               fmt_seconds(r.get("latency")), fmt_seconds(r.get("expert_latency")),
               fmt_bytes(r.get("memory")), fmt_bytes(r.get("expert_memory")),
               f"{r['seconds']:.2f}" if "seconds" in r else "-",
               "ok" if r["ok"] else "FAIL"]
        if a.collectives:
            row.insert(-1, ", ".join(f"{k} x{v}" for k, v in r.get("collectives", {}).items())
                       or "-")
        rows.append(row)
    print()
    print_markdown_table(hdr, rows)
    print(f"\n{a.devices} devices, profile {a.profile}; a scenario whose plan is not the "
          "expected kind passes only when its predicted latency is not above the expert "
          "plan's")
    if a.json:
        with open(a.json, "w") as f:
            json.dump(results, f, indent=1)
    for r in results:
        if not r["ok"]:
            print(f"\nFAILED {r['scenario']}: {r['detail']}", file=sys.stderr)
    return 0 if all(r["ok"] for r in results) else 1


if __name__ == "__main__":
    sys.exit(main())
