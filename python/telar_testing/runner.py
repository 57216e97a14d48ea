#!/usr/bin/env python3
"""The runner the end-to-end harnesses configure (run_sharded.py,
run_planned.py, run_pipelined.py; next the CUDA and training ones).

A harness is a list of cases (each with `name`, `model`, `batch`) and a
Runner subclass whose `check(case)` returns the case's result (a dict with
at least "case", "ok", "stage", "message"); this module gives it:

- the commands: `run_cmd` (a timeout; every command in a session of its
  own, stopped with its process group on a timeout and, after
  `kill_commands_on_exit()`, when the harness is stopped), `MPI_ENV` (what
  OpenMPI needs as root on an oversubscribed machine) and `mpi_session` (a
  session directory of its own for each direct `mpirun`);
- the models and references (`Runner`): the suite's models built per batch
  size (make_models.py) with their inputs and onnxruntime's outputs, the
  single-device telar run of each (model, batch) computed once, a
  multi-rank run (`telar-run -n`, `--report`) compared with both
  (`run_artifact`, `compare`), `input_args`;
- the command line and the flow: `add_common_arguments` (--make, --list,
  --only, --cases, the tools, tolerances, --jobs, --parallel-runs,
  --timeout, --keep, --json), `filter_cases`, `resolve_tools`, and
  `run_harness` (list, build the models, check every case with --jobs
  threads printing a line per case, the table, --json, the tally line and
  the exit status: 1 when a case failed, 2 on usage errors).
"""

from __future__ import annotations

import atexit
import concurrent.futures as cf
import contextlib
import fnmatch
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from run_models import first_error_line  # noqa: E402
from run_models import output_file_name as file_name  # noqa: E402
from tensor_compare import compare  # noqa: E402


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

    # --------------------------------------------------------------- runs
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


def fmt_bytes(n):
    return f"{n / 1024:.1f} KiB" if n >= 1024 else f"{n} B"


def fmt(x, spec):
    return "-" if x is None else format(x, spec)


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


def finish_cases(a, ordered, prog, footer, table):
    """Prints the table (`table(results)`), writes --json, the footer and
    the tally line; returns the exit status."""
    print()
    table(ordered)
    if a.json:
        with open(a.json, "w") as f:
            json.dump(ordered, f, indent=1, default=str)
    failed = sum(not x["ok"] for x in ordered)
    print(f"\n{footer}")
    print(f"{prog}: {len(ordered) - failed} passed, {failed} failed")
    return 1 if failed else 0


def add_common_arguments(ap, jobs=1, timeout=180):
    """The flags every harness has (`jobs` and `timeout`: its defaults)."""
    ap.add_argument("--make", dest="dir", metavar="DIR",
                    help="work dir: models (built when missing), plans, artifacts")
    ap.add_argument("--list", action="store_true", help="list the cases and exit")
    ap.add_argument("--only", default="", help="comma-separated model names")
    ap.add_argument("--cases", default="",
                    help="comma-separated glob patterns on case names")
    ap.add_argument("--telarc", default="build/bin/telarc")
    ap.add_argument("--telar-run", help="default: next to telarc")
    ap.add_argument("--telar-opt", help="default: next to telarc")
    ap.add_argument("--rtol", type=float, default=1e-4)
    ap.add_argument("--atol", type=float, default=1e-4)
    ap.add_argument("--jobs", "-j", type=int, default=jobs, help="cases checked in parallel")
    ap.add_argument("--parallel-runs", type=int, default=1,
                    help="multi-rank runs at the same time (default 1)")
    ap.add_argument("--timeout", type=int, default=timeout, help="seconds per command")
    ap.add_argument("--keep", action="store_true", help="keep artifacts and outputs")
    ap.add_argument("--json", help="write the per-case results here")


def filter_cases(cases, a, keep=None):
    """The cases of --only's models whose names match a --cases pattern
    (and `keep(case)`, when given)."""
    only = [n for n in a.only.split(",") if n]
    pats = [p for p in a.cases.split(",") if p]
    return [c for c in cases
            if (not only or c.model in only)
            and (not pats or any(fnmatch.fnmatch(c.name, p) for p in pats))
            and (keep is None or keep(c))]


def run_harness(ap, a, cases, prog, tally, runner_class, describe, footer, table,
                list_line=lambda c: c.name, after_models=None, extra_tools=lambda: ()):
    """A harness's main once its arguments are parsed: --list prints
    `list_line(case)` per case; else the models are built into --make, each
    case is checked (`describe(result)` printed as it ends) and
    `table(results)`, `footer(seconds)` and "TALLY: P passed, F failed"
    end the output. `prog` names the harness in errors. The tools are
    resolved first, unless `after_models(runner)` is given: it runs once
    the models are built (a status it returns ends the harness) and the
    tools are resolved then (with `extra_tools()`)."""
    if a.list:
        for c in cases:
            print(list_line(c))
        return 0
    if not a.dir:
        ap.error("give --make DIR")
    if not cases:
        print(f"{prog}: no case selected", file=sys.stderr)
        return 2
    os.makedirs(a.dir, exist_ok=True)
    if after_models is None and not resolve_tools(a, prog, extra_tools()):
        return 2
    r = runner_class(a)
    t0 = time.time()
    if r.make_models(cases):
        print(f"{prog}: building the models failed", file=sys.stderr)
        return 1
    print(f"models ready in {time.time() - t0:.1f}s", flush=True)
    if after_models is not None:
        status = after_models(r)
        if status is not None:
            return status
        if not resolve_tools(a, prog, extra_tools()):
            return 2
    ordered = run_cases(r, cases, a.jobs, describe)
    return finish_cases(a, ordered, tally, footer(time.time() - t0), table)
