"""Kills, crashes or stops one rank of a running multi-rank job and checks
that every other rank ends on its own, quickly, saying why.

    .venv/bin/python python/telar_testing/fault_test.py --artifact DIR \\
        --inputs gpt.inputs.npz --work WORKDIR [--telar-run PATH] \\
        [--mode mpi|gloo] [--cases kill:2,stop:1,segv:3] [--limit 30]

Each case starts the artifact's ranks with a long `--bench` and `--verbose`
(a progress line per rank and step), waits until the chosen rank has done a
few steps, sends it the signal (SIGKILL, SIGSTOP, or SIGSEGV as a crash)
and then checks, for every other rank:

- it exits by itself, with telar-run's fault status (4), within `--limit`
  seconds of the signal;
- its stderr has the line (with `--expect timeout`: `telar-run: error:
  rank S: timed out after T s while this rank waited in ...`, or that
  another rank failed because it timed out: `rank 3 failed (it timed out
  after 3 s while ...)`) `telar-run: error: rank S: rank R failed (...)
  while this rank waited in OP on GROUP (collective #C of step K of N)`
  (or, between collectives, `... while this rank ran step K of N (after
  collective #C, OP on GROUP)`), naming the signalled rank and a
  collective.

With `--train` the job trains (`telar-run --train`, a checkpoint every 2
steps), and after the fault the artifact resumes from its last checkpoint
for 2 more steps on all ranks.

Modes: `mpi` runs `telar-run -n N` (which runs mpirun) with TELAR_MPIRUN
set to a wrapper that starts each rank under a small recorder script
(its pid, and its exit status and time, into the work directory: mpirun
itself reports one status for the job); `gloo` starts N plain processes with
TELAR_RANK/TELAR_WORLD_SIZE/TELAR_MASTER_ADDR/TELAR_MASTER_PORT.

Prints one line per case, `PASS mpi kill rank 2: ...` with each survivor's
time from the signal to its exit, or `FAIL ...` with the reason, then
`fault-test: P passed, F failed`; exits 1 when a case failed.
"""

import argparse
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import threading
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from run_ranks import free_port  # noqa: E402
from runner import run_cmd  # noqa: E402

SIGNALS = {"kill": signal.SIGKILL, "stop": signal.SIGSTOP,
           "segv": signal.SIGSEGV, "term": signal.SIGTERM}
EXIT_FAULT = 4

RECORDER = """#!/bin/sh
# One rank under mpirun, in a session of its own: once a rank fails, mpirun
# kills the processes it started (this script), and the rank's exit status
# and time must still be recorded.
exec setsid -w "{work}/record-rank.sh" "$@"
"""

RECORD_RANK = """#!/bin/sh
# The rank's pid, then its exit status and time.
# Its stderr also goes to a file: once mpirun is gone, what the rank writes
# to mpirun's pipe is lost (tee -p goes on writing the file).
r=$OMPI_COMM_WORLD_RANK
rm -f "{work}/fifo.$r"
mkfifo "{work}/fifo.$r"
tee -p "{work}/stderr.$r" <"{work}/fifo.$r" >&2 &
"$@" </dev/null 2>"{work}/fifo.$r" &
pid=$!
echo $pid > "{work}/pid.$r"
wait $pid
st=$?
echo "$st $(date +%s.%N)" > "{work}/status.$r"
exit $st
"""

WRAPPER = """#!/bin/sh
# TELAR_MPIRUN for telar-run -n: mpirun -np N <recorder> <telar-run> ...
np="$1 $2"
shift 2
exec {mpirun} $np "{work}/recorder.sh" "$@"
"""

LINE = re.compile(
    r"telar-run: error: rank (\d+): rank (\d+) failed \((.*)\) "
    r"while this rank (waited in (\S+(?: \S+)*?) (?:on \S+ )?\(collective #\d+ of step \d+ of \d+\)"
    r"|ran step \d+ of \d+ \((?:after collective #\d+, [^)]*|before its first collective)\))")

# A training job may also wait outside its steps' collectives: in the
# barriers of a checkpoint ("waited in barrier on the world (writing a
# checkpoint)").
TRAIN_LINE = re.compile(
    r"telar-run: error: rank (\d+): rank (\d+) failed \((.*)\) "
    r"while this rank (waited in \S+(?: \S+)*? \((?:collective #\d+ of step \d+ of \d+|"
    r"writing a checkpoint)\)|ran step \d+ of \d+ \()")


# --expect timeout: a wait passed --timeout (before the liveness limit).
TIMEOUT_LINE = re.compile(
    r"telar-run: error: rank (\d+): timed out after \S+ s while this rank waited in "
    r"\S+(?: \S+)*? \(collective #\d+ of step \d+ of \d+\); no rank was seen failing")


class Reader:
    """Collects a stream's lines in a thread; remembers the error lines and
    the latest step each rank reported."""

    STEP = re.compile(r"telar-run: rank (\d+): step (\d+)/")

    def __init__(self, stream, rank=None):
        self.errors, self.tail = [], []
        self.steps = {}
        self.rank = rank
        self.thread = threading.Thread(target=self._read, args=(stream,), daemon=True)
        self.thread.start()

    def _read(self, stream):
        for raw in stream:
            line = raw.decode(errors="replace").rstrip("\n")
            m = self.STEP.match(line)
            if m:
                self.steps[int(m.group(1))] = int(m.group(2))
                continue
            if line.startswith("telar-run: error:") or line.startswith("telar-run: rank"):
                self.errors.append(line)
            self.tail = (self.tail + [line])[-20:]


def write_inputs(npz, manifest, work):
    data = np.load(npz)
    args = []
    for spec in manifest["inputs"]:
        if spec["name"].startswith("@"):  # a training step's, from telar-run
            continue
        path = os.path.join(work, f"input_{len(args)}.npy")
        np.save(path, data[spec["name"]])
        args += ["--input", f"{spec['name']}={path}"]
    return args


def run_case(a, mode, kind, target, input_args, ranks):
    """Returns (ok, text)."""
    work = os.path.join(a.work, f"{mode}-{kind}-{target}")
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    if a.train:
        # A training job that checkpoints every 2 steps.
        common = [a.artifact] + input_args + [
            "--threads", "1", "--train", "--steps", "100000000", "-v",
            "--timeout", str(a.timeout), "--checkpoint-dir", os.path.join(work, "ckpt"),
            "--checkpoint-every", "2"]
    else:
        common = [a.artifact] + input_args + ["--threads", "1", "--bench", "100000000",
                                              "--warmup", "0", "-v", "--timeout",
                                              str(a.timeout)]
    env = dict(os.environ)
    procs = {}
    readers = []
    if mode == "mpi":
        mpirun = shutil.which("mpirun")
        if not mpirun:
            return False, "mpirun not found"
        with open(os.path.join(work, "recorder.sh"), "w") as f:
            f.write(RECORDER.format(work=work))
        with open(os.path.join(work, "record-rank.sh"), "w") as f:
            f.write(RECORD_RANK.format(work=work))
        with open(os.path.join(work, "mpirun.sh"), "w") as f:
            f.write(WRAPPER.format(work=work, mpirun=mpirun))
        for name in ("recorder.sh", "record-rank.sh", "mpirun.sh"):
            os.chmod(os.path.join(work, name), 0o755)
        env["TELAR_MPIRUN"] = os.path.join(work, "mpirun.sh")
        job = subprocess.Popen([a.telar_run] + common + ["-n", str(ranks)],
                               stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                               stdin=subprocess.DEVNULL, env=env)
        readers.append(Reader(job.stderr))
    else:
        env.update(TELAR_WORLD_SIZE=str(ranks), TELAR_MASTER_ADDR="127.0.0.1",
                   TELAR_MASTER_PORT=str(free_port()))
        for r in range(ranks):
            env_r = dict(env, TELAR_RANK=str(r))
            procs[r] = subprocess.Popen([a.telar_run] + common, env=env_r,
                                        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                                        stdin=subprocess.DEVNULL)
            readers.append(Reader(procs[r].stderr, r))
        job = None

    def steps_of(rank):
        return max((rd.steps.get(rank, 0) for rd in readers), default=0)

    def cleanup():
        for p in list(procs.values()) + ([job] if job else []):
            if p.poll() is None:
                try:
                    p.send_signal(signal.SIGCONT)
                    p.kill()
                except ProcessLookupError:
                    pass
                p.wait()
        if mode == "mpi":
            for r in range(ranks):
                try:
                    pid = int(open(os.path.join(work, f"pid.{r}")).read())
                    os.kill(pid, signal.SIGCONT)
                    os.kill(pid, signal.SIGKILL)
                except (OSError, ValueError):
                    pass

    try:
        # Under way: the target rank did a few steps.
        deadline = time.time() + a.start_limit
        while steps_of(target) < 3:
            if time.time() > deadline or (job and job.poll() is not None) or any(
                    p.poll() is not None for p in procs.values()):
                errs = [e for rd in readers for e in rd.errors] or [t for rd in readers for t in rd.tail]
                return False, "the ranks did not start running: " + " | ".join(errs[-5:])
            time.sleep(0.05)
        if mode == "mpi":
            pids = {}
            for r in range(ranks):
                pids[r] = int(open(os.path.join(work, f"pid.{r}")).read())
        else:
            pids = {r: p.pid for r, p in procs.items()}
        t0 = time.time()
        os.kill(pids[target], SIGNALS[kind])

        # Every other rank ends.
        survivors = [r for r in range(ranks) if r != target]
        ended = {}  # rank -> (status, seconds after the signal)
        deadline = t0 + 60
        while len(ended) < len(survivors) and time.time() < deadline:
            for r in survivors:
                if r in ended:
                    continue
                if mode == "mpi":
                    path = os.path.join(work, f"status.{r}")
                    if os.path.exists(path):
                        text = open(path).read().split()
                        if len(text) == 2:
                            ended[r] = (int(text[0]), float(text[1]) - t0)
                else:
                    rc = procs[r].poll()
                    if rc is not None:
                        ended[r] = (rc, time.time() - t0)
            time.sleep(0.01)
        if job:
            try:
                job.wait(timeout=30)
            except subprocess.TimeoutExpired:
                pass
        for rd in readers:
            rd.thread.join(timeout=5)
    finally:
        cleanup()

    errors = [e for rd in readers for e in rd.errors]
    # Under mpirun, the lines the ranks wrote after mpirun ended.
    for r in range(ranks):
        path = os.path.join(work, f"stderr.{r}")
        if mode == "mpi" and os.path.exists(path):
            with open(path, errors="replace") as f:
                errors += [line.rstrip("\n") for line in f
                           if line.startswith("telar-run: error:")]
    problems, times = [], []
    if job and job.returncode in (0, None):
        problems.append(f"telar-run -n {ranks} (mpirun) exited {job.returncode}, not non-zero")
    for r in survivors:
        if r not in ended:
            problems.append(f"rank {r} did not exit within 60 s")
            continue
        status, seconds = ended[r]
        times.append(f"rank {r} {seconds:.2f} s")
        if status != EXIT_FAULT:
            problems.append(f"rank {r} exited {status}, not {EXIT_FAULT}")
        if seconds > a.limit:
            problems.append(f"rank {r} took {seconds:.2f} s (limit {a.limit} s)")
        if a.expect == "timeout":
            if not any(m and int(m.group(1)) == r
                       for m in map(TIMEOUT_LINE.match, errors)) and not any(
                    m and int(m.group(1)) == r and m.group(3).startswith("it timed out")
                    for m in map(LINE.match, errors)):
                problems.append(f"rank {r} printed no line saying its wait timed out")
            continue
        line = TRAIN_LINE if a.train else LINE
        lines = [m for m in map(line.match, errors) if m and int(m.group(1)) == r]
        if not lines:
            problems.append(f"rank {r} printed no line naming rank {target} and a collective")
        elif int(lines[0].group(2)) != target:
            problems.append(f"rank {r} names rank {lines[0].group(2)}, not {target}")
    text = f"{mode} {kind} rank {target}: " + ", ".join(times)
    if problems:
        return False, text + ": " + "; ".join(problems) + "\n  " + "\n  ".join(errors[-8:])
    pattern = TIMEOUT_LINE if a.expect == "timeout" else (TRAIN_LINE if a.train else LINE)
    sample = next((e for e in errors
                   if pattern.match(e) and int(pattern.match(e).group(1)) != target), "")
    if a.train:
        ok, resumed = resume_training(a, work, input_args, ranks)
        if not ok:
            return False, text + ": " + resumed
        text += "; " + resumed
    return True, text + "\n  " + sample


def resume_training(a, work, input_args, ranks):
    """After a fault in a training job: resumes from its last checkpoint for
    two more steps; (ok, what happened)."""
    ckpt = os.path.join(work, "ckpt")
    try:
        with open(os.path.join(ckpt, "latest")) as f:
            step = int(f.read().strip().split("-")[1])
    except (OSError, ValueError, IndexError) as e:
        return False, f"no checkpoint to resume from ({e})"
    cmd = [a.telar_run, a.artifact] + input_args + [
        "--threads", "1", "--train", "--steps", str(step + 2), "--resume", ckpt,
        "-n", str(ranks), "-q"]
    # run_cmd: a timeout kills the whole process group (mpirun's ranks too).
    rc, text, stdout, _ = run_cmd(cmd, 300)
    last = f"step {step + 2}/{step + 2} loss"
    if rc != 0 or last not in stdout:
        return False, (f"resuming from the checkpoint of step {step} failed "
                       f"(rc={rc}): {text.strip()[-300:]}")
    return True, f"resumed from the checkpoint of step {step} to step {step + 2}"


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--artifact", required=True)
    p.add_argument("--inputs", required=True, help=".npz of the model's inputs, by name")
    p.add_argument("--work", required=True, help="a scratch directory (created)")
    p.add_argument("--telar-run", default="telar-run")
    p.add_argument("--mode", choices=["mpi", "gloo"], default="mpi")
    p.add_argument("--cases", default="kill:2,stop:1,segv:3",
                   help="comma-separated SIGNAL:RANK (signals: " + ", ".join(SIGNALS) + ")")
    p.add_argument("--limit", type=float, default=30,
                   help="the seconds within which every other rank must have exited")
    p.add_argument("--timeout", type=float, default=300, help="telar-run's --timeout")
    p.add_argument("--train", action="store_true",
                   help="a training artifact: run --train with a checkpoint every 2 "
                        "steps, and after the fault resume from the last checkpoint "
                        "for 2 more steps (the inputs hold a leading steps dimension)")
    p.add_argument("--expect", choices=["failed", "timeout"], default="failed",
                   help="what the other ranks must say: that the rank failed, or (a --timeout "
                        "below the liveness limit, with stop) that their wait timed out")
    p.add_argument("--start-limit", type=float, default=60,
                   help="the seconds the ranks may take to start running")
    a = p.parse_args(argv)
    a.telar_run = shutil.which(a.telar_run) or a.telar_run
    os.makedirs(a.work, exist_ok=True)
    with open(os.path.join(a.artifact, "manifest.json")) as f:
        manifest = json.load(f)
    ranks = int(manifest.get("world_size", 1))
    input_args = write_inputs(a.inputs, manifest, a.work)
    passed = failed = 0
    for case in a.cases.split(","):
        kind, rank = case.split(":")
        ok, text = run_case(a, a.mode, kind, int(rank), input_args, ranks)
        print(("PASS " if ok else "FAIL ") + text, flush=True)
        passed += ok
        failed += not ok
    print(f"fault-test: {passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
