#!/usr/bin/env python3
"""Sharded execution end to end: every test model, hand-written plans, 2 and 4 ranks.

Usage:
    .venv/bin/python python/telar_testing/run_sharded.py --make DIR [--only gpt,llama]
        [--cases 'gpt tp*'] [--telarc build/bin/telarc] [--telar-run PATH]
        [--telar-opt PATH] [--jobs 2] [--timeout 120] [--rtol 1e-4] [--atol 1e-4]
        [--no-mpirun] [--keep] [--json out.json]
    .venv/bin/python python/telar_testing/run_sharded.py --make DIR --plans-only [--completed]
    .venv/bin/python python/telar_testing/run_sharded.py --list

A case is a model (make_models.py name), a batch size, a parallelism form of
sharded_plans.py and a mesh (the CASES table below). For each model and batch
the models are built into DIR/b<B>/ (make_models.py --batch B, checked against
the framework and onnxruntime), compiled and run once on one device:

    telarc NAME.onnx -o DIR/b<B>/NAME.single --target cpu -q
    telar-run DIR/b<B>/NAME.single --input ... --output-dir ... --threads 1 -q

and for each case:

    sharded_plans.py writes DIR/plans/CASE.json (printed with --print-plans)
    telarc NAME.onnx --plan DIR/plans/CASE.json --emit=plan  -> DIR/plans/CASE.completed.json
    telarc NAME.onnx --target cpu --plan DIR/plans/CASE.json -o DIR/CASE.artifact -q
    telar-run DIR/CASE.artifact -n N --input X=... --output-dir DIR/CASE.out \\
        --threads 1 --report DIR/CASE.report.json -q
    (and once per model, the case marked `mpirun` in CASES:
     mpirun -np N telar-run DIR/CASE.artifact --input ... --threads 1 -q)

--plans-only writes and prints the plans without compiling; with --completed
it prints, for each, the values telarc's completion shards (`telarc --plan P
--emit=plan`), one `"name" sharding` line each: test/e2e/sharded-plans.test
compares that with test/e2e/Inputs/completed-plans.txt, so that a change of
completion shows as the plans it changes (regenerate the file with the
command in that test, and read the diff).

Every output is compared (tensor_compare.compare, rtol 1e-4, atol 1e-4: the
fp32 tolerance of run_models.py) with onnxruntime's and with the single-device
telar run's. Every command runs under a timeout (--timeout seconds): a hang is
a failure. The collectives of each case (count and bytes per rank, by kind)
come from `telar-opt --telar-apply-plan=plan=P --telar-partition
-test-telar-collectives` on the imported IR (`telarc --emit=mlir`); the bytes
measured per mesh axis from telar-run's --report. Prints one line per case (`PASS gpt tp model=2 b1 ...`
or `FAIL ... STAGE: message`), a table, and last `run-sharded: N passed, N
failed`. Exit 1 when a case fails, 2 on usage errors.

Multi-rank runs go one at a time (at most --parallel-runs), compiles overlap
them with --jobs. The MPI environment for running as root on an
oversubscribed machine (OMPI_ALLOW_RUN_AS_ROOT=1,
OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1, OMPI_MCA_rmaps_base_oversubscribe=1) is set
when absent.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import sharded_plans  # noqa: E402
from run_models import first_error_line  # noqa: E402
from runner import (Runner, add_common_arguments, filter_cases, fmt,  # noqa: E402
                    fmt_bytes, kill_commands_on_exit, mpi_session, resolve_tools,
                    run_cmd, run_harness)

class Case:
    def __init__(self, model, form, mesh, batch, mpirun=False, note=""):
        self.model, self.form, self.mesh, self.batch = model, form, mesh, batch
        self.mpirun, self.note = mpirun, note
        self.mesh_dict = sharded_plans.parse_mesh(mesh)
        self.ranks = 1
        for v in self.mesh_dict.values():
            self.ranks *= v

    @property
    def name(self):
        return f"{self.model} {self.form} {self.mesh} b{self.batch}"

    @property
    def slug(self):
        return re.sub(r"[^A-Za-z0-9_.-]", "_", f"{self.model}.{self.form}.{self.mesh}.b{self.batch}")


# model, form, mesh, batch. Batches: dp needs the batch divisible by the ranks;
# the torch attention's heads are merged with the batch (see sharded_plans), so
# tp runs at batch 1 and dp_tp at batch 2 on a 2x2 mesh.
CASES = [
    Case("gpt", "dp", "data=2", 4),
    Case("gpt", "dp", "data=4", 4),
    Case("gpt", "tp", "model=2", 1),
    Case("gpt", "tp", "model=4", 1),
    Case("gpt", "tp", "model=2", 2, note="heads split not a block split of B*heads"),
    Case("gpt", "dp_tp", "data=2,model=2", 2, mpirun=True),
    Case("gpt", "sp", "seq=2", 2),
    Case("gpt", "sp", "seq=4", 2),
    Case("bert", "dp", "data=2", 4),
    Case("bert", "dp", "data=4", 4),
    Case("bert", "tp", "model=2", 1, mpirun=True),
    Case("bert", "tp", "model=4", 1),
    Case("bert", "dp_tp", "data=2,model=2", 2),
    Case("vit", "dp", "data=2", 4),
    Case("vit", "dp", "data=4", 4, mpirun=True),
    Case("vit", "tp", "model=2", 1),
    Case("vit", "tp", "model=4", 1, note="2 heads: attention replicated, MLP split"),
    Case("vit", "dp_tp", "data=2,model=2", 2),
    Case("llama", "dp", "data=2", 4),
    Case("llama", "dp", "data=4", 4),
    Case("llama", "tp", "model=2", 2),
    Case("llama", "tp", "model=4", 2, mpirun=True, note="2 kv heads: k/v replicated"),
    Case("llama", "dp_tp", "data=2,model=2", 2),
    Case("llama", "sp", "seq=2", 2),
    Case("llama", "sp", "seq=4", 2),
    Case("resnet18", "dp", "data=2", 4),
    Case("resnet18", "dp", "data=4", 4),
    Case("resnet18", "ch", "model=2", 1, mpirun=True),
    Case("resnet18", "ch", "model=4", 1),
    Case("resnet18", "dp_ch", "data=2,model=2", 2),
    Case("moe_einsum", "dp", "data=2", 4),
    Case("moe_einsum", "dp", "data=4", 4),
    Case("moe_einsum", "ep", "expert=2", 4),
    Case("moe_einsum", "ep", "expert=4", 4, mpirun=True),
    Case("moe_einsum", "tp", "model=2", 4),
    Case("moe_grouped", "dp", "data=2", 4),
    Case("moe_grouped", "dp", "data=4", 4),
    Case("moe_grouped", "ep", "expert=2", 4),
    Case("moe_grouped", "ep", "expert=4", 4, mpirun=True),
    Case("moe_grouped", "tp", "model=2", 4),
    Case("moe_topk", "dp", "data=2", 4),
    Case("moe_topk", "dp", "data=4", 4),
    Case("moe_topk", "ep", "expert=2", 4),
    Case("moe_topk", "ep", "expert=4", 4, mpirun=True),
    Case("moe_topk", "tp", "model=2", 4),
    Case("reductions", "tp", "model=2", 2),
    Case("reductions", "tp", "model=4", 2),
    Case("reductions", "sp", "seq=2", 2),
    Case("reductions", "sp", "seq=4", 2),
    Case("reductions", "sp_tp", "seq=2,model=2", 2, mpirun=True),
]


class ShardedRunner(Runner):
    """The hand-written plans' cases (CASES)."""

    def collectives(self, onnx_path, plan_path, case_dir):
        """{(kind, axes): [count, bytes per rank]} of the partitioned program
        (telar-apply-plan, telar-partition, -test-telar-collectives on the
        imported IR), or a message saying why not."""
        rc, err, ir, _ = run_cmd([self.a.telarc, onnx_path, "--emit=mlir", "--elide-weights"],
                                 self.a.timeout)
        if rc != 0:
            return f"telarc --emit=mlir rc={rc}: {first_error_line(err)}"
        ir_path = os.path.join(case_dir, "imported.mlir")
        with open(ir_path, "w") as f:
            f.write(ir)
        rc, err, out, _ = run_cmd([self.a.telar_opt, ir_path,
                                   f"--telar-apply-plan=plan={plan_path}", "--telar-partition",
                                   "-test-telar-collectives", "-o",
                                   os.path.join(case_dir, "partitioned.mlir")], self.a.timeout)
        if rc != 0:
            return f"telar-opt -test-telar-collectives rc={rc}: {first_error_line(err)}"
        return parse_collectives(err + out)

    def check(self, case):
        a = self.a
        res = {"case": case.name, "model": case.model, "form": case.form, "mesh": case.mesh,
               "batch": case.batch, "ranks": case.ranks, "ok": False, "stage": None,
               "message": "", "compile_s": None, "run_s": None, "outputs": [],
               "collectives": None, "report": None, "mpirun": None, "sharded_values": None}
        d = self.model_dir(case.batch)
        onnx_path = os.path.join(d, f"{case.model}.onnx")
        plans = os.path.join(a.dir, "plans")
        os.makedirs(plans, exist_ok=True)
        plan_path = os.path.join(plans, case.slug + ".json")
        case_dir = os.path.join(a.dir, case.slug)
        art = case_dir + "/artifact"
        try:
            shutil.rmtree(case_dir, ignore_errors=True)
            os.makedirs(case_dir)
            try:
                plan = sharded_plans.make_plan(case.model, onnx_path, case.form, case.mesh_dict)
            except Exception as e:
                res.update(stage="plan", message=f"{type(e).__name__}: {e}")
                return res
            text = sharded_plans.plan_text(plan)
            with open(plan_path, "w") as f:
                f.write(text)
            res["named_values"] = len(plan["shardings"])
            if a.print_plans:
                with self.lock:
                    print(f"plan {case.name}:\n{text}", end="", flush=True)

            # The completed plan (what the compiler derived from the handful named).
            rc, err, out, _ = run_cmd([a.telarc, onnx_path, "--plan", plan_path,
                                       "--emit=plan"], a.timeout)
            if rc != 0:
                res.update(stage="emit-plan", message=f"rc={rc}: {first_error_line(err)}")
                return res
            with open(os.path.join(plans, case.slug + ".completed.json"), "w") as f:
                f.write(out)
            try:
                done = json.loads(out)["shardings"]
                res["sharded_values"] = sum(1 for v in done.values() if _is_sharded(v))
            except (ValueError, KeyError, TypeError):
                pass

            if not a.no_collectives:
                res["collectives"] = self.collectives(onnx_path, plan_path, case_dir)

            rc, err, _, secs = run_cmd([a.telarc, onnx_path, "--target", "cpu", "--plan",
                                        plan_path, "-o", art, "-q"], a.timeout)
            res["compile_s"] = secs
            if rc != 0:
                res.update(stage="telarc", message=f"rc={rc}: {first_error_line(err)}")
                return res
            manifest = json.load(open(os.path.join(art, "manifest.json")))
            if manifest.get("world_size") != case.ranks:
                res.update(stage="manifest", message=f"world_size {manifest.get('world_size')}"
                           f", expected {case.ranks}")
                return res

            ran = self.run_artifact(res, case_dir, art, manifest, case.model,
                                    case.batch, case.ranks)
            if ran is None:
                return res
            in_args, refs = ran

            if case.mpirun and not a.no_mpirun:
                out2 = case_dir + "/out-mpirun"
                cmd = [a.mpirun, "-np", str(case.ranks), a.telar_run, art,
                       "--output-dir", out2, "--threads", "1", "-q"] + in_args
                with self.run_slots, mpi_session(self.env) as env:
                    rc, err, _, secs = run_cmd(cmd, a.timeout, env)
                if rc != 0:
                    res.update(stage="mpirun", message=f"rc={rc}: {first_error_line(err)}")
                    return res
                problems = self.compare(manifest, out2, refs, [])
                if problems:
                    res.update(stage="mpirun-compare", message="; ".join(problems))
                    return res
                res["mpirun"] = secs
            res["ok"] = True
            return res
        except Exception as e:  # one broken case must not stop the others
            res.update(stage=res["stage"] or "checker", message=f"{type(e).__name__}: {e}")
            return res
        finally:
            if not a.keep:
                shutil.rmtree(art, ignore_errors=True)
                for sub in ("in", "out", "out-mpirun"):
                    shutil.rmtree(os.path.join(case_dir, sub), ignore_errors=True)


def _is_sharded(v):
    dims = v["dims"] if isinstance(v, dict) else v
    return any(axes for axes in dims) or (isinstance(v, dict) and bool(v.get("partial")))


# `-test-telar-collectives` remarks, e.g.
#   remark: all_reduce over [model]: [8x32] -> [8x32] f32, 1024 bytes per rank
#   remark: all_reduce<max> over [seq]: [2x32] -> [2x32] f32, 256 bytes per rank
_COLL = re.compile(r"\b((?:all_reduce|reduce_scatter)(?:<\w+>)?|all_gather|all_to_all|"
                   r"all_slice|broadcast|send|recv) over \[([^\]]*)\].*?(\d+) bytes per rank")


def parse_collectives(text):
    """{"kind[axes]": [count, bytes per rank]} from -test-telar-collectives."""
    out = {}
    for line in text.splitlines():
        m = _COLL.search(line)
        if m:
            axes = ",".join(a.strip().strip('"') for a in m.group(2).split(",") if a.strip())
            e = out.setdefault(f"{m.group(1)}[{axes}]", [0, 0])
            e[0] += 1
            e[1] += int(m.group(3))
    return out


def coll_summary(c):
    if c is None:
        return "-"
    if isinstance(c, str):
        return "n/a"
    comm = {k: v for k, v in c.items() if not k.startswith("all_slice")}
    if not comm:
        return "none"
    return ", ".join(f"{v[0]} {k} ({fmt_bytes(v[1])})" for k, v in sorted(comm.items()))


def measured_collectives(rep):
    """{axes: (calls per run, bytes the busiest rank sent per run, ms per run of the
    slowest rank)} from telar-run's --report ("collectives": one entry per set of
    mesh axes), or None."""
    if not isinstance(rep, dict) or not isinstance(rep.get("collectives"), list):
        return None
    out = {}
    for c in rep["collectives"]:
        axes = ",".join(c.get("axes", [])) or "-"
        out[axes] = (c.get("calls_per_run", 0), c.get("bytes_sent_per_run_max_rank", 0),
                     c.get("ms_per_run_max_rank", 0.0))
    return out


def report_axes(rep):
    """'axes: calls x, bytes' per set of mesh axes, measured."""
    m = measured_collectives(rep)
    if m is None:
        return "-"
    if not m:
        return "none"
    return ", ".join(f"{k}: {v[0]:g} calls, {fmt_bytes(int(v[1]))}" for k, v in m.items())


def print_table(results):
    from run_models import print_markdown_table
    hdr = ["case", "ranks", "named/sharded", "compile s", "run s", "ort max abs",
           "telar-1 max abs", "collectives (count, bytes/rank)", "measured bytes/axis",
           "status"]
    rows = []
    for r in results:
        ort = max((o.get("ort", {}).get("max_abs", 0) for o in r["outputs"]), default=None)
        one = max((o.get("telar-1", {}).get("max_abs", 0) for o in r["outputs"]), default=None)
        rows.append([
            r["case"], str(r["ranks"]),
            f"{r.get('named_values', '-')}/{fmt(r['sharded_values'], 'd')}",
            fmt(r["compile_s"], ".1f"), fmt(r["run_s"], ".2f"),
            fmt(ort, ".1e"), fmt(one, ".1e"), coll_summary(r["collectives"]),
            report_axes(r["report"]),
            "PASS" if r["ok"] else f"FAIL ({r['stage']})",
        ])
    print_markdown_table(hdr, rows)


def completed_text(case, plan_json):
    """The completed plan of `case` (telarc --emit=plan's text) as the lines
    --completed prints: a header, then `name sharding` for every value that
    is not replicated, sorted by name."""
    done = json.loads(plan_json)["shardings"]
    sharded = [(k, v) for k, v in sorted(done.items()) if _is_sharded(v)]
    lines = [f"completed {case.name}: {len(sharded)} of {len(done)} values sharded"]
    lines += [f"  {json.dumps(k)} {json.dumps(v, separators=(',', ':'))}" for k, v in sharded]
    return "\n".join(lines) + "\n"


def write_plans(a, r, cases):
    """--plans-only: every case's plan into DIR/plans, printed; with
    --completed, what telarc completes each into instead."""
    plans = os.path.join(a.dir, "plans")
    os.makedirs(plans, exist_ok=True)
    failed = 0
    for c in cases:
        onnx_path = os.path.join(r.model_dir(c.batch), f"{c.model}.onnx")
        try:
            plan = sharded_plans.make_plan(c.model, onnx_path, c.form, c.mesh_dict)
        except Exception as e:
            failed += 1
            print(f"FAIL {c.name} plan: {type(e).__name__}: {e}")
            continue
        text = sharded_plans.plan_text(plan)
        plan_path = os.path.join(plans, c.slug + ".json")
        with open(plan_path, "w") as f:
            f.write(text)
        if not a.completed:
            print(f"plan {c.name} ({len(plan['shardings'])} values named):\n{text}", end="")
            continue
        rc, err, out, _ = run_cmd([a.telarc, onnx_path, "--plan", plan_path, "--emit=plan"],
                                  a.timeout)
        if rc != 0:
            failed += 1
            print(f"FAIL {c.name} emit-plan: rc={rc}: {first_error_line(err)}")
            continue
        print(completed_text(c, out), end="", flush=True)
    print(f"run-sharded plans: {len(cases) - failed} written, {failed} failed")
    return 1 if failed else 0


def select(a):
    """The CASES that --only and --cases select (cost_contract.py's too)."""
    return filter_cases(CASES, a)


def main(argv=None):
    kill_commands_on_exit()
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    add_common_arguments(ap, jobs=2, timeout=120)
    ap.add_argument("--mpirun", default="mpirun")
    ap.add_argument("--no-mpirun", action="store_true", help="skip the direct mpirun runs")
    ap.add_argument("--no-collectives", action="store_true",
                    help="skip listing the collectives")
    ap.add_argument("--print-plans", action="store_true", help="print every plan")
    ap.add_argument("--plans-only", action="store_true",
                    help="only build the models and write (and print) the plans")
    ap.add_argument("--completed", action="store_true",
                    help="with --plans-only: print each plan as telarc completes it "
                         "(the values it shards), not as written")
    a = ap.parse_args(argv)
    cases = select(a)

    def after_models(r):
        if a.plans_only:
            if a.completed and not resolve_tools(a, "run_sharded"):
                return 2
            return write_plans(a, r, cases)
        a.mpirun = shutil.which(a.mpirun) or a.mpirun
        return None

    def describe(res):
        if not res["ok"]:
            return f"FAIL {res['case']} {res['stage']}: {res['message']}"
        extra = f", mpirun {res['mpirun']:.1f}s" if res["mpirun"] is not None else ""
        return f"PASS {res['case']} ({res['compile_s']:.1f}s + {res['run_s']:.1f}s{extra})"

    return run_harness(
        ap, a, cases, "run_sharded", "run-sharded", ShardedRunner, describe,
        lambda secs: (f"plans in {os.path.join(a.dir, 'plans')}; rtol {a.rtol:g}, "
                      f"atol {a.atol:g}; {secs:.1f}s"),
        print_table,
        list_line=lambda c: (f"{c.name:40} ranks {c.ranks}{'  +mpirun' if c.mpirun else ''}"
                             f"{'  (' + c.note + ')' if c.note else ''}"),
        after_models=after_models, extra_tools=lambda: [a.mpirun])


if __name__ == "__main__":
    sys.exit(main())
