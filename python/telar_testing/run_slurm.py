#!/usr/bin/env python3
"""A 4-rank artifact's launch/slurm.sbatch submitted to a real Slurm, outputs
checked against the single-device run.

Usage:
    .venv/bin/python python/telar_testing/run_slurm.py --dir DIR
        [--telarc build/bin/telarc] [--telar-run build/bin/telar-run]
        [--slurm-mpi pmix,none] [--sbatch FILE]
        [--start-cluster scripts/slurm-local.sh] [--keep-cluster] [--timeout 120]

Steps (every command under --timeout seconds: a hang is a failure):

    make_models.py gpt (batch 2) into DIR/b2/, with onnxruntime's outputs
    telarc gpt.onnx -o DIR/b2/gpt.single --target cpu -q; telar-run it (the reference)
    for each M of --slurm-mpi (default: one case, telarc's default):
      telarc gpt.onnx --target cpu --devices 4 [--slurm-mpi M] -o DIR/mpi-M/gpt.artifact -q
      (after the first: --plan FIRST/gpt.artifact/plan.json instead of --devices 4,
      the same program without a second search)
    scripts/slurm-local.sh start                  (with --start-cluster)
    for each M:
      sbatch --parsable --chdir DIR/mpi-M DIR/mpi-M/gpt.artifact/launch/slurm.sbatch \\
          --input input_ids=DIR/mpi-M/in/input_ids.npy --output-dir DIR/mpi-M/out --verbose
      scontrol show job ID, every 0.2 s, until the job has ended (scancel on a timeout)
    scripts/slurm-local.sh stop                   (when this run started it)

Each job must have COMPLETED with exit code 0:0; its output must hold one
`telar-run: rank i of 4 (...), backend B` line per rank (telar-run --verbose:
how each rank joined the job, e.g. `rank from SLURM_PROCID, srun`, backend mpi
under PMIx); every output in DIR/mpi-M/out must match the single-device run's
and onnxruntime's (tensor_compare.compare, rtol 1e-4, atol 1e-4). The job's
output and error files are printed when something fails.

--sbatch FILE submits FILE instead of the artifact's launch/slurm.sbatch, with
TELAR_ARTIFACT naming the artifact.
--start-cluster SCRIPT starts the local Slurm with `SCRIPT start` (a failure to
start is this script's failure, with the daemon's log, never a skip) and stops
it at the end unless it was already running or --keep-cluster; the run holds
the lock file $TELAR_SLURM_DIR.lock (default /tmp/telar-slurm.lock) from the
start to the stop, so that concurrent runs use the cluster one at a time.
Without --start-cluster, the Slurm that SLURM_CONF (or /etc/slurm) names is
used.

Timing (printed): the cluster's start and stop, sbatch to the job's end, and
srun's start of the ranks: srun runs SLURM_PROLOG (a script here that records
the time) just before it launches the step's tasks, and TELAR_RUN (which the
sbatch file runs in place of telar-run) is a wrapper recording each rank's
start before it execs telar-run: `srun: 4 ranks started in X ms` is the time
from the prolog to the last rank's start, `step done in Y s` the time from the
prolog to the job's end seen by scontrol (the ranks' MPI start, the run, the
exit, the polling).

Prints one `PASS slurm gpt --slurm-mpi M: ...` or `FAIL slurm gpt --slurm-mpi M:
STAGE: message` line per case, last `run-slurm: N passed, N failed`; exits 1
when a case fails (2 on usage errors).
"""

from __future__ import annotations

import argparse
import fcntl
import json
import os
import re
import shutil
import stat
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from runner import Runner, input_args, kill_commands_on_exit, run_cmd  # noqa: E402
from run_models import first_error_line  # noqa: E402
from run_ranks import free_port  # noqa: E402

MODEL, BATCH, RANKS = "gpt", 2, 4
ENDED = {"COMPLETED", "FAILED", "CANCELLED", "TIMEOUT", "NODE_FAIL", "PREEMPTED",
         "OUT_OF_MEMORY", "BOOT_FAIL", "DEADLINE"}


class Failure(Exception):
    def __init__(self, stage, message):
        super().__init__(f"{stage}: {message}")


def log(msg):
    print(f"run-slurm: {msg}", flush=True)


def tool(name):
    path = shutil.which(name)
    if path is None:
        raise Failure("setup", f"{name} not found (PATH or an absolute path)")
    return os.path.abspath(path)


def write_script(path, text):
    with open(path, "w") as f:
        f.write(text)
    os.chmod(path, os.stat(path).st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)


def job_fields(job_id, env):
    """scontrol's `Key=Value` fields of the job, {} when Slurm no longer knows it."""
    p = subprocess.run(["scontrol", "show", "job", "-o", job_id], capture_output=True,
                       text=True, env=env, timeout=30)
    if p.returncode != 0:
        return {}
    return dict(re.findall(r"(\w+)=(\S*)", p.stdout))


def show_file(label, path):
    if not os.path.exists(path):
        log(f"{label}: {path} does not exist")
        return
    text = open(path, errors="replace").read()
    log(f"{label} ({path}):")
    for line in text.splitlines()[-40:]:
        print(f"  {line}", flush=True)


class Cluster:
    """The local Slurm of scripts/slurm-local.sh, held under a lock."""

    def __init__(self, script, keep):
        self.script, self.keep = script, keep
        d = os.environ.get("TELAR_SLURM_DIR", "/tmp/telar-slurm")
        self.lock_path = d.rstrip("/") + ".lock"
        self.started = False
        self.lock = None

    def start(self, timeout):
        self.lock = open(self.lock_path, "w")
        t0 = time.time()
        while True:
            try:
                fcntl.flock(self.lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.time() - t0 > timeout:
                    raise Failure("cluster", f"{self.lock_path} still held by another run "
                                  f"after {timeout} s")
                time.sleep(0.5)
        waited = time.time() - t0
        if waited > 1:
            log(f"waited {waited:.1f} s for {self.lock_path}")
        was_running = subprocess.run([self.script, "status"], capture_output=True,
                                     timeout=60).returncode == 0
        t0 = time.time()
        rc, text, _, _ = run_cmd([self.script, "start"], timeout)
        if rc != 0:
            if not was_running:  # the daemons that did start
                run_cmd([self.script, "stop"], 120)
            raise Failure("cluster", f"`{self.script} start` failed (rc={rc}):\n{text.rstrip()}")
        self.started = not was_running
        log(f"cluster {'started' if self.started else 'already running'} in "
            f"{time.time() - t0:.2f} s")
        env = subprocess.run([self.script, "env"], capture_output=True, text=True,
                             timeout=60).stdout
        m = re.search(r"SLURM_CONF=(\S+)", env)
        if m is None:
            raise Failure("cluster", f"`{self.script} env` printed no SLURM_CONF: {env!r}")
        return m.group(1)

    def stop(self):
        if self.started and not self.keep:
            t0 = time.time()
            rc, text, _, _ = run_cmd([self.script, "stop"], 120)
            if rc != 0:
                log(f"`{self.script} stop` failed (rc={rc}): {text.strip()}")
            else:
                log(f"cluster stopped in {time.time() - t0:.2f} s")
        if self.lock is not None:
            self.lock.close()
            self.lock = None


def run(a, results):
    a.telarc, a.telar_run = tool(a.telarc), tool(a.telar_run)
    for t in ("sbatch", "scontrol", "scancel"):
        tool(t)
    a.dir = os.path.abspath(a.dir)
    os.makedirs(a.dir, exist_ok=True)
    a.parallel_runs, a.rtol, a.atol = 1, 1e-4, 1e-4
    r = Runner(a)

    # The model and the single-device reference.
    class Want:
        model, batch = MODEL, BATCH
    if r.make_models([Want]):
        raise Failure("make-models", f"make_models.py {MODEL} failed")
    single = r.single_device(MODEL, BATCH)
    if isinstance(single, str):
        raise Failure("single-device", single)

    # The artifacts (before the cluster starts: concurrent runs hold it one at a time).
    plan = None
    for mpi in a.slurm_mpi.split(","):
        res = {"mpi": mpi or "default"}
        results.append(res)
        try:
            compile_case(a, r, mpi, res, plan)
            plan = plan or res["plan"]
        except Failure as e:
            res["failure"] = str(e)

    cluster = Cluster(os.path.abspath(a.start_cluster), a.keep_cluster) \
        if a.start_cluster else None
    env = dict(os.environ)
    try:
        if cluster is not None:
            env["SLURM_CONF"] = cluster.start(a.timeout)
        for res in results:
            if "failure" in res:
                continue
            try:
                run_case(a, r, env, single, res)
            except Failure as e:
                res["failure"] = str(e)
    finally:
        if cluster is not None:
            cluster.stop()


def compile_case(a, r, mpi, res, plan):
    """The 4-rank artifact, compiled with telarc --slurm-mpi MPI (and --plan
    PLAN when given)."""
    case_dir = os.path.join(a.dir, f"mpi-{mpi or 'default'}")
    shutil.rmtree(case_dir, ignore_errors=True)
    os.makedirs(case_dir)
    onnx_path = os.path.join(r.model_dir(BATCH), f"{MODEL}.onnx")
    art = os.path.join(case_dir, f"{MODEL}.artifact")
    cmd = [a.telarc, onnx_path, "--target", "cpu", "-o", art, "-q"]
    # The first case plans (--devices 4), later ones reuse its plan: the same
    # program, only the launch files differ (and the planner's search is most
    # of the compile time).
    cmd += ["--plan", plan] if plan else ["--devices", str(RANKS)]
    if mpi:
        cmd += ["--slurm-mpi", mpi]
    rc, err, _, secs = run_cmd(cmd, a.timeout)
    if rc != 0:
        raise Failure("telarc", f"rc={rc}: {first_error_line(err)}")
    log(f"[{res['mpi']}] compiled the {RANKS}-rank artifact in {secs:.1f} s")
    res.update(case_dir=case_dir, art=art, plan=os.path.join(art, "plan.json"))


def run_case(a, r, env, single, res):
    """Submits the artifact's slurm.sbatch, waits, checks the job, the ranks
    and the outputs."""
    case_dir, art = res["case_dir"], res["art"]
    manifest = json.load(open(os.path.join(art, "manifest.json")))
    sbatch_file = os.path.abspath(a.sbatch or os.path.join(art, "launch", "slurm.sbatch"))
    if not os.path.exists(sbatch_file):
        raise Failure("artifact", f"{sbatch_file} does not exist")
    in_args = input_args(manifest, r.inputs(MODEL, BATCH), os.path.join(case_dir, "in"))

    # The probes: srun's prolog and a telar-run wrapper record the times.
    stamps = os.path.join(case_dir, "stamps")
    prolog = os.path.join(case_dir, "srun-prolog.sh")
    write_script(prolog, f"#!/bin/sh\ndate +%s.%N > {stamps}.srun\n")
    wrapper = os.path.join(case_dir, "telar-run-stamped.sh")
    write_script(wrapper, "#!/bin/sh\n"
                 f"echo \"$SLURM_PROCID $(date +%s.%N)\" > {stamps}.rank$SLURM_PROCID\n"
                 f"exec {a.telar_run} \"$@\"\n")
    # TELAR_MASTER_PORT: the rendezvous port of --slurm-mpi none, a free one
    # (other tests may run rendezvous at the default port meanwhile).
    env = dict(env, TELAR_RUN=wrapper, SLURM_PROLOG=prolog, TELAR_MASTER_PORT=str(free_port("")))
    if a.sbatch:
        env["TELAR_ARTIFACT"] = art

    out_dir = os.path.join(case_dir, "out")
    job_cmd = ["sbatch", "--parsable", "--chdir", case_dir, sbatch_file] + in_args + \
        ["--output-dir", out_dir, "--verbose"]
    log(f"[{res['mpi']}] $ " + " ".join(job_cmd))
    t_submit = time.time()
    rc, err, out, _ = run_cmd(job_cmd, a.timeout, env)
    if rc != 0:
        raise Failure("sbatch", f"rc={rc}: {err.strip()}")
    job_id = out.strip().split(";")[0]
    fields = {}
    while True:
        fields = job_fields(job_id, env)
        state = fields.get("JobState", "")
        if state in ENDED or not fields:
            break
        if time.time() - t_submit > a.timeout:
            subprocess.run(["scancel", job_id], env=env, timeout=30)
            show_job_files(fields, case_dir, job_id)
            raise Failure("wait", f"job {job_id} still {state} after {a.timeout} s "
                          f"(cancelled); {fields.get('Reason', '')}")
        time.sleep(0.2)
    t_end = time.time()
    res["job_s"] = t_end - t_submit
    state, code = fields.get("JobState", "(gone)"), fields.get("ExitCode", "?")
    log(f"[{res['mpi']}] job {job_id}: {state}, exit code {code}, "
        f"{fields.get('NumTasks', '?')} tasks on {fields.get('NodeList', '?')}, "
        f"{res['job_s']:.2f} s from sbatch to the end")
    if state != "COMPLETED" or code != "0:0":
        show_job_files(fields, case_dir, job_id)
        raise Failure("job", f"job {job_id} {state}, exit code {code}")

    # The ranks: each started through srun, each says how it joined the job.
    starts = {}
    for i in range(RANKS):
        try:
            rank, t = open(f"{stamps}.rank{i}").read().split()
            starts[int(rank)] = float(t)
        except (OSError, ValueError):
            pass
    if sorted(starts) != list(range(RANKS)):
        raise Failure("ranks", f"ranks {sorted(starts)} started, expected 0..{RANKS - 1} "
                      f"(the sbatch file runs ${{TELAR_RUN:-telar-run}}?)")
    text = "".join(open(p, errors="replace").read()
                   for p in job_files(fields, case_dir) if os.path.exists(p))
    joined = sorted(re.findall(r"^telar-run: rank (\d+) of (\d+) \(([^)]*)\), backend (\w+)",
                               text, re.M))
    for rank, size, how, backend in joined:
        log(f"[{res['mpi']}] rank {rank} of {size} ({how}), backend {backend}")
    if sorted(int(j[0]) for j in joined) != list(range(RANKS)) or \
            any(int(j[1]) != RANKS for j in joined):
        show_job_files(fields, case_dir, job_id)
        raise Failure("ranks", f"the job's output has {len(joined)} `telar-run: rank i of "
                      f"{RANKS}` lines (--verbose), expected one per rank")
    res["backend"] = ",".join(sorted({j[3] for j in joined}))
    try:
        t_srun = float(open(f"{stamps}.srun").read())
        res["srun_start_ms"] = (max(starts.values()) - t_srun) * 1e3
        res["step_s"] = t_end - t_srun
        log(f"[{res['mpi']}] srun: {RANKS} ranks started in {res['srun_start_ms']:.0f} ms "
            f"(srun prolog to the last rank's exec), step done in {res['step_s']:.2f} s")
    except (OSError, ValueError):
        log(f"[{res['mpi']}] srun ran no SLURM_PROLOG: no launch time")

    # The outputs.
    refs = {"ort": r.ort_outputs(MODEL, BATCH), "telar-1": single}
    rows = []
    problems = r.compare(manifest, out_dir, refs, rows)
    if problems:
        raise Failure("compare", "; ".join(problems))
    res["outputs"] = rows


def job_files(fields, work_dir):
    return [p if os.path.isabs(p) else os.path.join(work_dir, p)
            for p in (fields.get("StdOut"), fields.get("StdErr")) if p]


def show_job_files(fields, work_dir, job_id):
    for path in job_files(fields, work_dir):
        show_file(f"job {job_id}", path)


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--dir", required=True, help="work directory (created)")
    p.add_argument("--telarc", default="telarc")
    p.add_argument("--telar-run", default="telar-run")
    p.add_argument("--slurm-mpi", default="",
                   help="telarc --slurm-mpi values, comma-separated, one job each "
                   "(default: one job, telarc's default)")
    p.add_argument("--sbatch", default="", help="submit this file instead of the "
                   "artifact's launch/slurm.sbatch")
    p.add_argument("--start-cluster", default="", metavar="SCRIPT",
                   help="scripts/slurm-local.sh: start (and stop) the local Slurm")
    p.add_argument("--keep-cluster", action="store_true",
                   help="leave the local Slurm running at the end")
    p.add_argument("--timeout", type=float, default=120)
    a = p.parse_args(argv)
    kill_commands_on_exit()
    results = []
    t0 = time.time()
    try:
        run(a, results)
    except Failure as e:
        print(f"FAIL slurm {MODEL}: {e}", flush=True)
        return 1
    failed = 0
    for res in results:
        if "failure" in res:
            failed += 1
            print(f"FAIL slurm {MODEL} --slurm-mpi {res['mpi']}: {res['failure']}", flush=True)
            continue
        worst = max((o[k]["max_abs"] for o in res["outputs"] for k in ("ort", "telar-1")),
                    default=0.0)
        print(f"PASS slurm {MODEL} --slurm-mpi {res['mpi']}: {RANKS} ranks, backend "
              f"{res['backend']} (max abs err {worst:.2g} vs single-device and onnxruntime; "
              f"sbatch to the job's end {res['job_s']:.2f} s, srun start "
              f"{res.get('srun_start_ms', float('nan')):.0f} ms, step "
              f"{res.get('step_s', float('nan')):.2f} s)", flush=True)
    print(f"run-slurm: {len(results) - failed} passed, {failed} failed "
          f"({time.time() - t0:.1f} s)", flush=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
