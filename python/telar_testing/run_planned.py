#!/usr/bin/env python3
"""Planned execution end to end: every sharded-suite model, `telarc --devices N`, 2 and 4 ranks.

Usage:
    .venv/bin/python python/telar_testing/run_planned.py --make DIR [--only gpt,llama]
        [--devices 2,4] [--batches 1,4] [--profile cpu] [--telarc build/bin/telarc]
        [--telar-run PATH] [--telar-opt PATH] [--jobs 1] [--timeout 180]
        [--rtol 1e-4] [--atol 1e-4] [--no-collectives] [--keep] [--json out.json]
    .venv/bin/python python/telar_testing/run_planned.py --list

The compiler chooses the plan (issue 9: "every model of the suite, planned with
--devices 2 and --devices 4 on the cpu profile, runs under telar-run -n and
gives the single-device outputs"). The models are those of the hand-written
sharded suite (sharded_plans.py's families: gpt, bert, vit, llama, resnet18,
moe_einsum, moe_grouped, moe_topk), built by make_models.py at each of
--batches into DIR/b<B>/ (1: no batch to split, so the planner must split
the model itself; 4: divisible by every device count) and checked against
the framework and onnxruntime; the single-device reference is runner.py's
(`telarc NAME.onnx -o NAME.single --target cpu -q`, telar-run on one rank).
For each model, batch and N in --devices:

    telarc NAME.onnx --devices N --profile cpu --target cpu -o DIR/CASE/artifact -q
    (DIR/CASE/artifact/plan.json: the chosen "mesh", "shardings" and "cost")
    telar-run DIR/CASE/artifact -n N --input X=... --output-dir DIR/CASE/out \\
        --threads 1 --report DIR/CASE/report.json -q

and every output is compared (tensor_compare.compare, rtol/atol 1e-4, the fp32
tolerance of the sharded suite) with onnxruntime's and with the single-device
telar run's. Unless --no-collectives, the collectives of the partitioned
program (`telarc NAME.onnx --plan <the artifact's plan.json> --emit=mlir
--elide-weights`, then `telar-opt -telar-partition -test-telar-collectives`)
must be those the plan's "cost" priced: the same count and bytes per rank
for each kind and set of mesh axes (a mismatch fails the case, stage
`collectives`).

Prints per case one line, `PASS gpt 4 b4 (mesh model=4, predicted 164.9 us,
4 all_to_all[model] (12.0 KiB); 1.9s + 0.8s)` or `FAIL gpt 4 b4 STAGE:
message`, then a table (model, devices, batch, mesh, predicted latency,
memory per device, the priced collectives, those measured by telar-run's
report, errors vs onnxruntime and single-device telar, status) and last
`run-planned: N passed, N failed`.
Exit 1 when a case fails, 2 on usage errors.

Every command runs under --timeout seconds in a process group of its own that
is stopped on timeouts and when this script is signalled (runner.run_cmd).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import sharded_plans  # noqa: E402
from plan_bench import fmt_seconds  # noqa: E402
from run_models import first_error_line, print_markdown_table  # noqa: E402
from run_sharded import parse_collectives, report_axes  # noqa: E402
from runner import (Runner, add_common_arguments, filter_cases, fmt,  # noqa: E402
                    fmt_bytes, kill_commands_on_exit, run_cmd, run_harness)

MODELS = tuple(sharded_plans.PLANNERS)


class Case:
    def __init__(self, model, devices, batch):
        self.model, self.devices, self.batch = model, devices, batch

    @property
    def name(self):
        return f"{self.model} {self.devices} b{self.batch}"

    @property
    def slug(self):
        return f"{self.model}.d{self.devices}.b{self.batch}"


def mesh_text(mesh):
    return ",".join(f"{k}={v}" for k, v in mesh.items()) or "-"


def priced_collectives(cost):
    """{"kind[axes]": [count, bytes per device]} of the steps the plan's "cost"
    priced (local slices move no bytes and are left out, as in the partitioned
    program's remarks)."""
    out = {}
    for op in cost.get("ops", []):
        for step in op.get("comm", []):
            if step.get("kind") == "local_slice":
                continue
            key = f"{step['kind']}[{','.join(step.get('axes', []))}]"
            e = out.setdefault(key, [0, 0])
            e[0] += 1
            e[1] += int(step.get("bytes", 0))
    return out


def coll_text(c):
    if c is None:
        return "-"
    if isinstance(c, str):
        return "n/a"
    c = {k: v for k, v in c.items() if not k.startswith("all_slice")}
    if not c:
        return "none"
    return ", ".join(f"{v[0]} {k} ({fmt_bytes(v[1])})" for k, v in sorted(c.items()))


def plan_form(plan):
    """A few words on what the plan splits: the graph inputs' split dims and how
    many values are sharded, e.g. 'inputs dim 0 on data; 120/160 values split'."""
    shardings = plan.get("shardings", {})
    split = 0
    for v in shardings.values():
        dims = v["dims"] if isinstance(v, dict) else v
        if any(dims) or (isinstance(v, dict) and v.get("partial")):
            split += 1
    return f"{split}/{len(shardings)} values split"


class PlannedRunner(Runner):
    def collectives(self, onnx_path, plan_path, case_dir):
        """{"kind[axes]": [count, bytes per rank]} of the partitioned program,
        or a message saying why not. telarc applies the plan (`--plan P
        --emit=mlir`: the plan's derived names '<node>#k' are resolved against
        the ONNX node names, which the printed IR no longer carries), then
        `telar-opt -telar-partition -test-telar-collectives`."""
        rc, err, ir, _ = run_cmd([self.a.telarc, onnx_path, "--plan", plan_path,
                                  "--emit=mlir", "--elide-weights"], self.a.timeout)
        if rc != 0:
            return f"telarc --plan --emit=mlir rc={rc}: {first_error_line(err)}"
        ir_path = os.path.join(case_dir, "planned.mlir")
        with open(ir_path, "w") as f:
            f.write(ir)
        rc, err, out, _ = run_cmd([self.a.telar_opt, ir_path, "--telar-partition",
                                   "-test-telar-collectives", "-o",
                                   os.path.join(case_dir, "partitioned.mlir")], self.a.timeout)
        if rc != 0:
            return f"telar-opt -test-telar-collectives rc={rc}: {first_error_line(err)}"
        return parse_collectives(err + out)

    def check(self, case):
        a = self.a
        res = {"case": case.name, "model": case.model, "devices": case.devices,
               "batch": case.batch, "ok": False, "stage": None, "message": "",
               "compile_s": None, "run_s": None, "outputs": [], "mesh": None,
               "latency": None, "memory": None, "priced": None, "collectives": None,
               "report": None, "form": None}
        d = self.model_dir(case.batch)
        onnx_path = os.path.join(d, f"{case.model}.onnx")
        case_dir = os.path.join(a.dir, case.slug)
        art = os.path.join(case_dir, "artifact")
        try:
            shutil.rmtree(case_dir, ignore_errors=True)
            os.makedirs(case_dir)
            rc, err, _, secs = run_cmd([a.telarc, onnx_path, "--devices", str(case.devices),
                                        "--profile", a.profile, "--target", "cpu",
                                        "--search-time-limit", str(a.search_time_limit),
                                        "-o", art, "-q"], a.timeout)
            res["compile_s"] = secs
            if rc != 0:
                res.update(stage="telarc", message=f"rc={rc}: {first_error_line(err)}")
                return res
            plan_path = os.path.join(case_dir, "plan.json")
            shutil.copy(os.path.join(art, "plan.json"), plan_path)
            plan = json.load(open(plan_path))
            cost = plan.get("cost")
            mesh = plan.get("mesh", {})
            res["mesh"] = mesh_text(mesh)
            res["form"] = plan_form(plan)
            ranks = 1
            for v in mesh.values():
                ranks *= int(v)
            if ranks != case.devices:
                res.update(stage="plan", message=f"mesh {res['mesh']} has {ranks} devices, "
                           f"asked for {case.devices}")
                return res
            if not isinstance(cost, dict) or "latency_s" not in cost:
                res.update(stage="plan", message="plan.json has no \"cost\" with latency_s")
                return res
            res["latency"] = cost["latency_s"]
            res["memory"] = cost.get("memory_bytes")
            res["priced"] = priced_collectives(cost)
            manifest = json.load(open(os.path.join(art, "manifest.json")))
            if manifest.get("world_size") != case.devices:
                res.update(stage="manifest", message=f"world_size {manifest.get('world_size')}"
                           f", expected {case.devices}")
                return res

            if not a.no_collectives:
                got = self.collectives(onnx_path, plan_path, case_dir)
                res["collectives"] = got
                if isinstance(got, str):
                    res.update(stage="collectives", message=got)
                    return res
                moved = {k: v for k, v in got.items() if not k.startswith("all_slice")}
                if moved != res["priced"]:
                    res.update(stage="collectives",
                               message=f"partitioned program has {coll_text(moved)}, the cost "
                               f"model priced {coll_text(res['priced'])}")
                    return res

            if self.run_artifact(res, case_dir, art, manifest, case.model,
                                 case.batch, case.devices) is None:
                return res
            res["ok"] = True
            return res
        except Exception as e:  # one broken case must not stop the others
            res.update(stage=res["stage"] or "checker", message=f"{type(e).__name__}: {e}")
            return res
        finally:
            if not a.keep:
                for sub in ("artifact", "in", "out"):
                    shutil.rmtree(os.path.join(case_dir, sub), ignore_errors=True)


def summary(r):
    return (f"mesh {r['mesh']}, predicted {fmt_seconds(r['latency'])}, "
            f"{coll_text(r['priced'])}")


def print_table(results):
    hdr = ["model", "devices", "batch", "mesh", "predicted", "memory/dev", "plan",
           "priced collectives (count, bytes/dev)", "measured bytes/axis", "ort max abs",
           "telar-1 max abs", "status"]
    rows = []
    for r in results:
        ort = max((o.get("ort", {}).get("max_abs", 0) for o in r["outputs"]), default=None)
        one = max((o.get("telar-1", {}).get("max_abs", 0) for o in r["outputs"]), default=None)
        rows.append([r["model"], str(r["devices"]), str(r["batch"]), r["mesh"] or "-",
                     fmt_seconds(r["latency"]),
                     fmt_bytes(r["memory"]) if r["memory"] is not None else "-",
                     r["form"] or "-", coll_text(r["priced"]), report_axes(r["report"]),
                     fmt(ort, ".1e"), fmt(one, ".1e"),
                     "PASS" if r["ok"] else f"FAIL ({r['stage']})"])
    print_markdown_table(hdr, rows)


def select(a):
    only = [n for n in a.only.split(",") if n]
    for n in only:
        if n not in MODELS:
            raise SystemExit(f"run_planned: unknown model {n!r} (models: {', '.join(MODELS)})")
    devices = [int(x) for x in a.devices.split(",") if x]
    batches = [int(x) for x in a.batches.split(",") if x]
    return filter_cases([Case(m, n, b) for m in MODELS for b in batches for n in devices], a)


def main(argv=None):
    kill_commands_on_exit()
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    add_common_arguments(ap, jobs=1, timeout=180)
    ap.add_argument("--devices", default="2,4", help="comma-separated device counts")
    ap.add_argument("--batches", default="1,4", help="comma-separated batch sizes")
    ap.add_argument("--profile", default="cpu")
    ap.add_argument("--search-time-limit", type=float, default=60)
    ap.add_argument("--no-collectives", action="store_true",
                    help="skip checking the partitioned program's collectives against the "
                    "priced ones")
    a = ap.parse_args(argv)
    cases = select(a)

    def describe(res):
        if res["ok"]:
            return (f"PASS {res['case']} ({summary(res)}; {res['compile_s']:.1f}s + "
                    f"{res['run_s']:.1f}s)")
        extra = f" ({summary(res)})" if res["mesh"] else ""
        return f"FAIL {res['case']} {res['stage']}: {res['message']}{extra}"

    return run_harness(
        ap, a, cases, "run_planned", "run-planned", PlannedRunner, describe,
        lambda secs: (f"profile {a.profile}, batches {a.batches}; rtol {a.rtol:g}, "
                      f"atol {a.atol:g}; {secs:.1f}s"),
        print_table)


if __name__ == "__main__":
    sys.exit(main())
