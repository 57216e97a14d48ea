#!/usr/bin/env python3
"""Sharded execution end to end: every test model, hand-written plans, 2 and 4 ranks.

Usage:
    .venv/bin/python python/telar_testing/run_sharded.py --make DIR [--only gpt,llama]
        [--cases 'gpt tp*'] [--telarc build/bin/telarc] [--telar-run PATH]
        [--telar-opt PATH] [--jobs 2] [--timeout 120] [--rtol 1e-4] [--atol 1e-4]
        [--no-mpirun] [--keep] [--json out.json]
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
import atexit
import concurrent.futures as cf
import contextlib
import fnmatch
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from tensor_compare import compare  # noqa: E402
import sharded_plans  # noqa: E402
from run_models import first_error_line  # noqa: E402
from run_models import output_file_name as file_name  # noqa: E402

MPI_ENV = {
    "OMPI_ALLOW_RUN_AS_ROOT": "1",
    "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM": "1",
    "OMPI_MCA_rmaps_base_oversubscribe": "1",
}


@contextlib.contextmanager
def mpi_session(env):
    """`env` with an OpenMPI session directory of its own for one mpirun
    (OMPI_MCA_orte_tmpdir_base, removed afterwards): mpiruns started at once
    race on the shared <tmp>/ompi.<host>.<uid> ("mkdir ... File exists").
    `telar-run -n` does this itself; a direct `mpirun` needs it."""
    d = tempfile.mkdtemp(prefix="telar-mpirun-")
    try:
        yield dict(env, OMPI_MCA_orte_tmpdir_base=d)
    finally:
        shutil.rmtree(d, ignore_errors=True)


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
]


# The commands running now, by pid. Each runs in a session of its own, so
# that stopping it stops mpirun and every rank it started; the same sessions
# escape the process-group kill of a `timeout` around this script (lit's RUN
# lines), so a signal to the script stops them itself before it exits.
_live = {}
_live_lock = threading.Lock()


def _stop(p):
    """SIGTERM to the command's process group (mpirun then ends its ranks,
    which are in groups of their own), SIGKILL if it is still there after
    3 s."""
    for sig, grace in ((signal.SIGTERM, 3), (signal.SIGKILL, None)):
        try:
            os.killpg(p.pid, sig)
        except (ProcessLookupError, PermissionError):
            return
        if grace is None:
            return
        try:
            p.wait(grace)
            return
        except subprocess.TimeoutExpired:
            pass


def _stop_live():
    with _live_lock:
        running = list(_live.values())
    for p in running:
        _stop(p)


def _on_signal(signum, frame):
    _stop_live()
    os._exit(128 + signum)


def kill_commands_on_exit():
    """Kill the running commands' process groups on SIGTERM, SIGINT, SIGHUP
    and at exit (call once from a script's main thread)."""
    for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        signal.signal(sig, _on_signal)
    atexit.register(_stop_live)


def run_cmd(cmd, timeout, env=None, capture=True):
    """(returncode or None on a timeout, stderr+stdout text, stdout text,
    seconds); with capture=False the command writes to this process's
    stdout/stderr and both texts are empty."""
    t0 = time.time()
    pipe = subprocess.PIPE if capture else None
    try:
        p = subprocess.Popen(cmd, stdout=pipe, stderr=pipe, env=env,
                             start_new_session=True)
    except OSError as e:
        return 127, str(e), "", time.time() - t0
    with _live_lock:
        _live[p.pid] = p
    try:
        try:
            out, err = p.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            _stop(p)
            p.communicate()
            return None, f"timed out after {timeout}s", "", time.time() - t0
    finally:
        with _live_lock:
            _live.pop(p.pid, None)
    out_s = out.decode("utf-8", "replace") if out else ""
    text = (err.decode("utf-8", "replace") if err else "") + out_s
    if p.returncode < 0:
        text = f"killed by signal {-p.returncode}\n" + text
    return p.returncode, text, out_s, time.time() - t0


def input_args(manifest, inputs, in_dir):
    """telar-run's --input arguments for the artifact's inputs (`manifest`),
    the arrays of `inputs` written as .npy files into `in_dir`."""
    os.makedirs(in_dir, exist_ok=True)
    args = []
    for inp in manifest["inputs"]:
        p = os.path.join(in_dir, file_name(inp["name"]) + ".npy")
        np.save(p, inputs[inp["name"]])
        args += ["--input", f"{inp['name']}={p}"]
    return args


class Runner:
    def __init__(self, a):
        self.a = a
        self.env = dict(os.environ)
        for k, v in MPI_ENV.items():
            self.env.setdefault(k, v)
        self.run_slots = threading.Semaphore(max(1, a.parallel_runs))
        self.lock = threading.Lock()
        self.single = {}        # (model, batch) -> outputs dict or Exception text
        self.single_locks = {}

    # -------------------------------------------------------------- models
    def model_dir(self, batch):
        return os.path.join(self.a.dir, f"b{batch}")

    def make_models(self, cases):
        import make_models
        by_batch = {}
        for c in cases:
            by_batch.setdefault(c.batch, set()).add(c.model)
        failed = 0
        for batch, names in sorted(by_batch.items()):
            d = self.model_dir(batch)
            todo = [n for n in sorted(names)
                    if not os.path.exists(os.path.join(d, f"{n}.ort_outputs.npz"))]
            if todo:
                failed += make_models.make(todo, d, "small", check=True, log=lambda s: None,
                                           batch=batch)
        return failed

    def inputs(self, model, batch):
        with np.load(os.path.join(self.model_dir(batch), f"{model}.inputs.npz")) as z:
            return {k: z[k] for k in z.files}

    def ort_outputs(self, model, batch):
        with np.load(os.path.join(self.model_dir(batch), f"{model}.ort_outputs.npz")) as z:
            return {k: z[k] for k in z.files}


    def read_outputs(self, manifest, out_dir):
        outs = {}
        for o in manifest["outputs"]:
            p = os.path.join(out_dir, file_name(o["name"]) + ".npy")
            outs[o["name"]] = np.load(p) if os.path.exists(p) else None
        return outs

    def single_device(self, model, batch):
        """The single-device telar outputs of (model, batch), computed once."""
        key = (model, batch)
        with self.lock:
            lk = self.single_locks.setdefault(key, threading.Lock())
        with lk:
            if key in self.single:
                return self.single[key]
            d = self.model_dir(batch)
            art = os.path.join(d, f"{model}.single")
            shutil.rmtree(art, ignore_errors=True)
            rc, err, _, _ = run_cmd([self.a.telarc, os.path.join(d, f"{model}.onnx"), "-o", art,
                                     "--target", "cpu", "-q"], self.a.timeout)
            if rc != 0:
                self.single[key] = f"single-device telarc rc={rc}: {first_error_line(err)}"
                return self.single[key]
            manifest = json.load(open(os.path.join(art, "manifest.json")))
            out_dir = art + ".out"
            shutil.rmtree(out_dir, ignore_errors=True)
            cmd = [self.a.telar_run, art, "--output-dir", out_dir, "--threads", "1", "-q"]
            cmd += input_args(manifest, self.inputs(model, batch), art + ".in")
            rc, err, _, _ = run_cmd(cmd, self.a.timeout, self.env)
            if rc != 0:
                self.single[key] = f"single-device telar-run rc={rc}: {first_error_line(err)}"
            else:
                self.single[key] = self.read_outputs(manifest, out_dir)
            return self.single[key]

    # --------------------------------------------------------------- cases
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

    def run_artifact(self, res, case_dir, art, manifest, model, batch, ranks):
        """Runs artifact `art` on `ranks` ranks (telar-run -n, --report) and
        compares its outputs with onnxruntime's and the single-device run's.
        Returns (input arguments, references), or None with res's stage and
        message set."""
        a = self.a
        inputs = self.inputs(model, batch)
        in_args = input_args(manifest, inputs, os.path.join(case_dir, "in"))
        refs = {"ort": self.ort_outputs(model, batch)}
        single = self.single_device(model, batch)
        if isinstance(single, str):
            res.update(stage="single-device", message=single)
            return None
        refs["telar-1"] = single

        report = os.path.join(case_dir, "report.json")
        out_dir = os.path.join(case_dir, "out")
        cmd = [a.telar_run, art, "-n", str(ranks), "--output-dir", out_dir,
               "--threads", "1", "--report", report, "-q"] + in_args
        with self.run_slots:
            rc, err, _, secs = run_cmd(cmd, a.timeout, self.env)
        res["run_s"] = secs
        if rc != 0:
            res.update(stage="telar-run", message=f"rc={rc}: {first_error_line(err)}")
            return None
        try:
            res["report"] = json.load(open(report))
        except (OSError, ValueError):
            pass
        problems = self.compare(manifest, out_dir, refs, res["outputs"])
        if problems:
            res.update(stage="compare", message="; ".join(problems))
            return None
        return in_args, refs

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

    def compare(self, manifest, out_dir, refs, rows):
        problems = []
        got_all = self.read_outputs(manifest, out_dir)
        for oname, got in got_all.items():
            if got is None:
                problems.append(f"{oname}: telar-run wrote no {file_name(oname)}.npy")
                continue
            row = {"output": oname, "shape": list(got.shape)}
            for kind, ref in refs.items():
                if oname not in ref or ref[oname] is None:
                    problems.append(f"{oname}: no {kind} reference")
                    continue
                ok, mabs, mrel, msg = compare(got, ref[oname], self.a.rtol, self.a.atol)
                row[kind] = {"ok": ok, "max_abs": mabs, "max_rel": mrel}
                if not ok:
                    problems.append(f"{oname} vs {kind}: {msg}")
            rows.append(row)
        missing = set(refs["ort"]) - set(got_all)
        if missing:
            problems.append(f"manifest lacks outputs {sorted(missing)}")
        return problems


def _is_sharded(v):
    dims = v["dims"] if isinstance(v, dict) else v
    return any(axes for axes in dims) or (isinstance(v, dict) and bool(v.get("partial")))


# `-test-telar-collectives` remarks, e.g.
#   remark: all_reduce over [model]: [8x32] -> [8x32] f32, 1024 bytes per rank
_COLL = re.compile(r"\b(all_reduce|all_gather|reduce_scatter|all_to_all|all_slice|"
                   r"broadcast|send|recv)\b over \[([^\]]*)\].*?(\d+) bytes per rank")


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


def fmt_bytes(n):
    return f"{n / 1024:.1f} KiB" if n >= 1024 else f"{n} B"


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


def fmt(x, spec):
    return "-" if x is None else format(x, spec)


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


def write_plans(a, r, cases):
    """--plans-only: every case's plan into DIR/plans, printed."""
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
        with open(os.path.join(plans, c.slug + ".json"), "w") as f:
            f.write(text)
        print(f"plan {c.name} ({len(plan['shardings'])} values named):\n{text}", end="")
    print(f"run-sharded plans: {len(cases) - failed} written, {failed} failed")
    return 1 if failed else 0


def select(a):
    only = [n for n in a.only.split(",") if n]
    pats = [p for p in a.cases.split(",") if p]
    out = []
    for c in CASES:
        if only and c.model not in only:
            continue
        if pats and not any(fnmatch.fnmatch(c.name, p) for p in pats):
            continue
        out.append(c)
    return out


def resolve_tools(a, prog, extra=()):
    """Fills a.telar_run and a.telar_opt (next to a.telarc unless given) and
    checks that they, a.telarc and `extra` are executable; False (after a
    message) when one is not."""
    a.telarc = shutil.which(a.telarc) or a.telarc
    bindir = os.path.dirname(os.path.abspath(a.telarc))
    a.telar_run = a.telar_run or os.path.join(bindir, "telar-run")
    a.telar_opt = a.telar_opt or os.path.join(bindir, "telar-opt")
    for tool in (a.telarc, a.telar_run, a.telar_opt, *extra):
        if not os.access(tool, os.X_OK):
            print(f"{prog}: not executable: {tool}", file=sys.stderr)
            return False
    return True


def run_cases(r, cases, jobs, describe):
    """Checks every case with `jobs` threads, printing `describe(result)`
    as each ends; returns the results in case order."""
    results = {}
    with cf.ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
        futs = {pool.submit(r.check, c): c for c in cases}
        for fut in cf.as_completed(futs):
            res = fut.result()
            results[res["case"]] = res
            print(describe(res), flush=True)
    return [results[c.name] for c in cases]


def finish_cases(a, ordered, prog, footer, table=None):
    """Prints the table (`table`, default print_table), writes --json, the
    footer and the tally line; returns the exit status."""
    print()
    (table or print_table)(ordered)
    if a.json:
        with open(a.json, "w") as f:
            json.dump(ordered, f, indent=1, default=str)
    failed = sum(not x["ok"] for x in ordered)
    print(f"\n{footer}")
    print(f"{prog}: {len(ordered) - failed} passed, {failed} failed")
    return 1 if failed else 0


def main(argv=None):
    kill_commands_on_exit()
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--make", dest="dir", metavar="DIR",
                    help="work dir: models (built when missing), plans, artifacts")
    ap.add_argument("--list", action="store_true", help="list the cases and exit")
    ap.add_argument("--only", default="", help="comma-separated model names")
    ap.add_argument("--cases", default="",
                    help="comma-separated glob patterns on case names ('gpt tp*')")
    ap.add_argument("--telarc", default="build/bin/telarc")
    ap.add_argument("--telar-run", help="default: next to telarc")
    ap.add_argument("--telar-opt", help="default: next to telarc")
    ap.add_argument("--mpirun", default="mpirun")
    ap.add_argument("--rtol", type=float, default=1e-4)
    ap.add_argument("--atol", type=float, default=1e-4)
    ap.add_argument("--jobs", "-j", type=int, default=2, help="cases checked in parallel")
    ap.add_argument("--parallel-runs", type=int, default=1,
                    help="multi-rank runs at the same time (default 1)")
    ap.add_argument("--timeout", type=int, default=120, help="seconds per command")
    ap.add_argument("--no-mpirun", action="store_true", help="skip the direct mpirun runs")
    ap.add_argument("--no-collectives", action="store_true",
                    help="skip listing the collectives")
    ap.add_argument("--print-plans", action="store_true", help="print every plan")
    ap.add_argument("--plans-only", action="store_true",
                    help="only build the models and write (and print) the plans")
    ap.add_argument("--keep", action="store_true", help="keep artifacts and outputs")
    ap.add_argument("--json", help="write the per-case results here")
    a = ap.parse_args(argv)
    cases = select(a)
    if a.list:
        for c in cases:
            print(f"{c.name:40} ranks {c.ranks}{'  +mpirun' if c.mpirun else ''}"
                  f"{'  (' + c.note + ')' if c.note else ''}")
        return 0
    if not a.dir:
        ap.error("give --make DIR")
    if not cases:
        print("run_sharded: no case selected", file=sys.stderr)
        return 2
    os.makedirs(a.dir, exist_ok=True)
    r = Runner(a)
    t0 = time.time()
    if r.make_models(cases):
        print("run_sharded: building the models failed", file=sys.stderr)
        return 1
    print(f"models ready in {time.time() - t0:.1f}s", flush=True)
    if a.plans_only:
        return write_plans(a, r, cases)
    a.mpirun = shutil.which(a.mpirun) or a.mpirun
    if not resolve_tools(a, "run_sharded", [a.mpirun]):
        return 2

    def describe(res):
        if not res["ok"]:
            return f"FAIL {res['case']} {res['stage']}: {res['message']}"
        extra = f", mpirun {res['mpirun']:.1f}s" if res["mpirun"] is not None else ""
        return f"PASS {res['case']} ({res['compile_s']:.1f}s + {res['run_s']:.1f}s{extra})"

    ordered = run_cases(r, cases, a.jobs, describe)
    return finish_cases(a, ordered, "run-sharded",
                        f"plans in {os.path.join(a.dir, 'plans')}; rtol {a.rtol:g}, "
                        f"atol {a.atol:g}; {time.time() - t0:.1f}s")


if __name__ == "__main__":
    sys.exit(main())
