#!/usr/bin/env python3
"""The Ray launcher for real: a local Ray cluster, the artifact's launch/ray_launch.py, 4 ranks.

Usage:
    .venv/bin/python python/telar_testing/run_ray.py --make DIR [--telarc build/bin/telarc]
        [--telar-run PATH] [--ranks 4] [--batch 4] [--timeout 120] [--keep]

Builds the GPT-like model (make_models.py, into DIR/b<B>/), compiles it for
--ranks devices and once for one (the single-device reference, run by
telar-run: runner.Runner.single_device):

    telarc gpt.onnx --target cpu --devices 4 -o DIR/gpt.ray/artifact -q

The artifact's launch/ray_launch.py must be the one in the sources
(lib/launch/templates/ray_launch.py), byte for byte. Then, as a user would:

 1. a Ray head on this machine, as `ray start` starts one (its own
    --temp-dir under /tmp, 4 CPUs, no usage stats or dashboard, a free GCS
    port and ports of its own for the rest, a small object store), waited
    for until it says its address;
 2. `python DIR/gpt.ray/artifact/launch/ray_launch.py --address ADDR
    --telar-run TELAR_RUN --timeout 60 -- --input input_ids=... --output-dir
    DIR/gpt.ray/out --report DIR/gpt.ray/report.json -v`: every rank's lines
    come back prefixed `[rank R]`, each rank says it runs as rank R of 4 on
    the gloo backend (telar-run -v), and the outputs written on the driver
    must match the single-device run's and onnxruntime's (rtol 1e-4, atol
    1e-4);
 3. a long --bench under ray_launch, and rank 2's telar-run SIGKILLed once
    the 4 run: ray_launch must exit 1 within 30 s of the kill, say rank 2
    was killed and the others stopped after it (telar-run's exit 4), relay
    each other rank's error naming rank 2, and leave no telar-run behind;
 4. --telar-run naming no file: every rank says so, none starts, exit 1
    within 30 s;
 5. --spread on this one-node cluster: STRICT_SPREAD cannot place 4 ranks
    on 1 node, so it must fail (exit 5) within its --timeout (3 s) plus
    20 s, naming what it needs and what the cluster has;
 6. the cluster stopped, and a head with 2 CPUs started: the 4 ranks of 1
    CPU must get the same kind of error ("needs 4 bundles ... 4 CPUs; the
    cluster has ... 2 CPUs").

Prints one line per check, `PASS ray ...` or `FAIL ray ...: message`, the
time each step took (`ray timings: ...`: cluster start, then ray_launch's
own: connected, placement group ready, actors up, telar-run done, total),
and last `run-ray: N passed, N failed`. Every command runs under a timeout;
the Ray cluster is stopped at the end, also on failures and signals (its
processes are one process group of their own, started here: SIGTERM, then
SIGKILL after 3 s). Exit 1 when a check fails, 2 on usage errors.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import types

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import runner  # noqa: E402
from run_models import first_error_line  # noqa: E402
from run_ranks import free_port  # noqa: E402
from runner import Runner, input_args, run_cmd  # noqa: E402

SRC = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
LAUNCH_SOURCE = os.path.join(SRC, "lib", "launch", "templates", "ray_launch.py")
MODEL = "gpt"


class RayHead:
    """A Ray head started with `ray start --head --block` in a session (and
    process group) of its own; stop() ends every process of it."""

    def __init__(self, cpus, timeout):
        self.cpus, self.timeout = cpus, timeout
        self.proc = None
        self.temp = tempfile.mkdtemp(prefix="telar-ray.", dir="/tmp")  # short: socket paths
        self.log_path = os.path.join(self.temp, "ray-start.log")
        self.address = None

    def start(self):
        """Starts it; returns the seconds until it printed its address.
        Raises RuntimeError with the log's end when it does not come up."""
        ray_cli = os.path.join(os.path.dirname(sys.executable), "ray")
        cmd = [ray_cli, "start", "--head", "--block", "--num-cpus", str(self.cpus),
               "--temp-dir", self.temp, "--port", str(free_port("")), "--disable-usage-stats",
               "--include-dashboard=false", "--object-store-memory", str(100 * 1024 * 1024)]
        # Ports of its own, not Ray's fixed defaults (52365, workers from
        # 10002): another Ray on this machine (a second worktree's test)
        # must not take the same ones.
        low = random.randrange(10002, 19999 - 400)
        cmd += ["--dashboard-agent-listen-port", str(free_port("")), "--min-worker-port",
                str(low), "--max-worker-port", str(low + 399)]
        t0 = time.time()
        log = open(self.log_path, "wb")
        self.proc = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT,
                                     stdin=subprocess.DEVNULL, start_new_session=True)
        log.close()
        while time.time() - t0 < self.timeout:
            m = re.search(r"ray start --address='([^']+)'", self.log_text())
            if m:
                self.address = m.group(1)
                return time.time() - t0
            if self.proc.poll() is not None:
                break
            time.sleep(0.1)
        text = self.log_text().strip().splitlines()
        raise RuntimeError(f"`ray start --head` gave no address after {time.time() - t0:.0f} s"
                           f" (exit {self.proc.poll()}): {' | '.join(text[-5:])}")

    def log_text(self):
        try:
            with open(self.log_path, errors="replace") as f:
                return f.read()
        except OSError:
            return ""

    def stop(self):
        """SIGTERM to the cluster's process group, SIGKILL after 3 s; then any
        process still naming this cluster's temp dir (started by it, e.g. a
        worker in a group of its own) by its pid; removes the temp dir."""
        if self.proc is not None:
            for sig, grace in ((signal.SIGTERM, 3.0), (signal.SIGKILL, 0)):
                try:
                    os.killpg(self.proc.pid, sig)
                except (ProcessLookupError, PermissionError):
                    break
                try:
                    self.proc.wait(grace or None)
                except subprocess.TimeoutExpired:
                    pass
            try:
                self.proc.wait(5)
            except subprocess.TimeoutExpired:
                pass
            self.proc = None
        for pid in self.leftover_pids():
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass
        shutil.rmtree(self.temp, ignore_errors=True)

    def leftover_pids(self):
        mark = self.temp.encode()
        pids = []
        for d in os.listdir("/proc"):
            if d.isdigit() and int(d) != os.getpid():
                try:
                    with open(f"/proc/{d}/cmdline", "rb") as f:
                        if mark in f.read():
                            pids.append(int(d))
                except OSError:
                    pass
        return pids


_heads = []


def _stop_heads():
    while _heads:
        _heads.pop().stop()


def _on_signal(signum, frame):
    _stop_heads()
    runner._on_signal(signum, frame)


class Checks:
    def __init__(self):
        self.passed = self.failed = 0

    def report(self, ok, name, text):
        if ok:
            self.passed += 1
            print(f"PASS ray {name}: {text}", flush=True)
        else:
            self.failed += 1
            print(f"FAIL ray {name}: {text}", flush=True)
        return ok


# ray_launch.py's last lines, e.g. "ray_launch: timings: connected 0.05 s,
# placement group 0.00 s, actors up 1.93 s, telar-run 1.20 s, total 3.30 s".
_TIMINGS = re.compile(r"^ray_launch: timings: (.*)$", re.M)


def parse_timings(text):
    m = _TIMINGS.search(text)
    if not m:
        return None
    return {k: float(v) for k, v in re.findall(r"([a-z][a-z -]*?) ([0-9.]+) s", m.group(1))}


def check_shortfall(checks, name, launch, address, telar_run, in_args, out_dir, ranks, needs,
                    has, timeout):
    """ray_launch on a cluster too small for the job: exit 5 within its
    --timeout (3 s) + 20 s (Python, Ray's import, connecting), naming what it needs and what the cluster has."""
    cmd = [sys.executable, launch, "--address", address, "--telar-run", telar_run,
           "--timeout", "3"] + (["--spread"] if "spread" in name else []) + \
        ["--"] + in_args + ["--output-dir", out_dir]
    rc, text, _, secs = run_cmd(cmd, timeout)
    err = [l for l in text.splitlines() if l.startswith("ray_launch: error:")]
    problems = []
    if rc != 5:
        problems.append(f"exit {rc}, expected 5")
    if secs > 3 + 20:
        problems.append(f"took {secs:.1f} s, over its --timeout 3 s + 20 s")
    if not err:
        problems.append("no 'ray_launch: error:' line")
    else:
        for want in (f"cannot host the {ranks} ranks", needs, has):
            if want not in err[0]:
                problems.append(f"the error does not say '{want}'")
    if os.path.exists(out_dir):
        problems.append(f"{out_dir} was written")
    msg = f"exit {rc} after {secs:.1f} s: {err[0] if err else first_error_line(text)}"
    return checks.report(not problems, name, "; ".join(problems) + " -- " + msg
                         if problems else msg)


def rank_pids(art, rank):
    """The telar-run processes of artifact `art` running as `rank` (started
    by this test's Ray cluster: ray_launch sets TELAR_RANK)."""
    pids = []
    for d in os.listdir("/proc"):
        if not d.isdigit():
            continue
        try:
            with open(f"/proc/{d}/cmdline", "rb") as f:
                argv = f.read().split(b"\0")
            if len(argv) < 2 or os.path.basename(argv[0]) != b"telar-run" or \
                    argv[1] != art.encode():
                continue
            with open(f"/proc/{d}/environ", "rb") as f:
                if f"TELAR_RANK={rank}".encode() in f.read().split(b"\0"):
                    pids.append(int(d))
        except OSError:
            pass
    return pids


def check_killed_rank(checks, a, launch, head, in_args, case_dir, victim=2):
    """A long --bench under ray_launch; once the ranks run, SIGKILL rank 2's
    telar-run. ray_launch must exit 1 within 30 s of the kill, saying that
    rank 2 was killed and the others stopped after it; each other rank's
    relayed error names rank 2; no telar-run of the artifact is left."""
    art = os.path.dirname(os.path.dirname(launch))
    name = f"rank {victim} of {a.ranks} killed"
    cmd = [sys.executable, launch, "--address", head.address, "--telar-run", a.telar_run,
           "--timeout", "60", "--"] + in_args + ["--bench", "1000000", "--warmup", "0",
                                                 "--timeout", "20", "-q"]
    log_path = os.path.join(case_dir, "killed.log")
    with open(log_path, "wb") as log:
        p = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT,
                             start_new_session=True)
    runner._live[p.pid] = p
    problems, killed_at = [], None
    try:
        t0 = time.time()
        while time.time() - t0 < 60 and p.poll() is None:
            pids = rank_pids(art, victim)
            if pids and len([r for r in range(a.ranks) if rank_pids(art, r)]) == a.ranks:
                time.sleep(2)  # into the --bench loop
                os.kill(pids[0], signal.SIGKILL)
                killed_at = time.time()
                break
            time.sleep(0.2)
        if killed_at is None:
            problems.append("the 4 ranks' telar-run processes never all ran")
        try:
            rc = p.wait(60 if killed_at else 5)
        except subprocess.TimeoutExpired:
            runner._stop(p)
            rc = None
            problems.append("ray_launch still ran 60 s after the kill")
    finally:
        runner._live.pop(p.pid, None)
    secs = time.time() - killed_at if killed_at else float("nan")
    with open(log_path, errors="replace") as f:
        text = f.read()
    if rc != 1:
        problems.append(f"exit {rc}, expected 1")
    if killed_at and secs > 30:
        problems.append(f"exited {secs:.1f} s after the kill, over 30 s")
    want = [rf"^ray_launch: rank {victim} failed: killed by signal 9 \(SIGKILL\)$",
            r"^ray_launch: ranks? [0-9, ]+ stopped after it",
            rf"^ray_launch: failed: rank {victim} of {a.ranks}$"]
    want += [rf"^\[rank {r}\] telar-run: error: .*\brank {victim} failed\b"
             for r in range(a.ranks) if r != victim]
    for w in want:
        if not re.search(w, text, re.M):
            problems.append(f"no line matching '{w}'")
    left = [pid for r in range(a.ranks) for pid in rank_pids(art, r)]
    if left:
        problems.append(f"telar-run processes left: {left}")
    lines = [l for l in text.splitlines() if l.startswith("ray_launch: rank") or
             "stopped after" in l]
    msg = f"exit {rc} {secs:.1f} s after the kill: {' | '.join(lines)}"
    if problems:
        tail = "\n".join(text.strip().splitlines()[-12:])
        msg = "; ".join(problems) + f" -- {msg}\nray_launch's output ends:\n{tail}"
    return checks.report(not problems, name, msg)


def check_missing_telar_run(checks, a, launch, head, in_args, case_dir):
    """--telar-run naming nothing: every rank says so and none starts (the
    others would wait in the rendezvous); exit 1 within 30 s."""
    missing = os.path.join(case_dir, "no-such-dir", "telar-run")
    out_dir = os.path.join(case_dir, "out.missing")
    cmd = [sys.executable, launch, "--address", head.address, "--telar-run", missing,
           "--timeout", "60", "--"] + in_args + ["--output-dir", out_dir]
    rc, text, _, secs = run_cmd(cmd, a.timeout)
    problems = []
    if rc != 1:
        problems.append(f"exit {rc}, expected 1")
    if secs > 30:
        problems.append(f"took {secs:.1f} s, over 30 s")
    for r in range(a.ranks):
        if not re.search(rf"^ray_launch: rank {r}: telar-run '{re.escape(missing)}' is not "
                         rf"an executable on node ", text, re.M):
            problems.append(f"rank {r} does not say its telar-run is missing")
    if os.path.exists(out_dir):
        problems.append(f"{out_dir} was written")
    last = [l for l in text.splitlines() if l.startswith("ray_launch: failed:")]
    msg = f"exit {rc} after {secs:.1f} s: {last[0] if last else first_error_line(text)}"
    return checks.report(not problems, "telar-run missing on the node",
                         "; ".join(problems) + " -- " + msg if problems else msg)


def main(argv=None):
    runner.kill_commands_on_exit()
    for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        signal.signal(sig, _on_signal)
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--make", dest="dir", metavar="DIR", required=True,
                    help="work dir: the model, artifacts, outputs")
    ap.add_argument("--telarc", default="build/bin/telarc")
    ap.add_argument("--telar-run", help="default: next to telarc")
    ap.add_argument("--ranks", type=int, default=4)
    ap.add_argument("--batch", type=int, default=4)
    ap.add_argument("--timeout", type=int, default=120, help="seconds per command")
    ap.add_argument("--keep", action="store_true", help="keep the artifacts and outputs")
    a = ap.parse_args(argv)
    a.telarc = shutil.which(a.telarc) or a.telarc
    a.telar_run = os.path.abspath(a.telar_run or os.path.join(
        os.path.dirname(os.path.abspath(a.telarc)), "telar-run"))
    for tool in (a.telarc, a.telar_run):
        if not os.access(tool, os.X_OK):
            print(f"run_ray: not executable: {tool}", file=sys.stderr)
            return 2
    a.dir = os.path.abspath(a.dir)
    os.makedirs(a.dir, exist_ok=True)
    t0 = time.time()
    checks = Checks()
    try:
        run(a, checks)
    finally:
        _stop_heads()
    print(f"run-ray: {checks.passed} passed, {checks.failed} failed ({time.time() - t0:.1f}s)")
    return 1 if checks.failed else 0


def run(a, checks):
    # The runner of the sharded suite: models, the single-device reference,
    # the comparison.
    r = Runner(types.SimpleNamespace(dir=a.dir, telarc=a.telarc, telar_run=a.telar_run,
                                     timeout=a.timeout, parallel_runs=1, rtol=1e-4,
                                     atol=1e-4))
    if r.make_models([types.SimpleNamespace(model=MODEL, batch=a.batch)]):
        checks.report(False, "model", "make_models.py failed")
        return
    case_dir = os.path.join(a.dir, f"{MODEL}.ray")
    shutil.rmtree(case_dir, ignore_errors=True)
    os.makedirs(case_dir)
    art = os.path.join(case_dir, "artifact")
    onnx_path = os.path.join(r.model_dir(a.batch), f"{MODEL}.onnx")
    rc, err, _, secs = run_cmd([a.telarc, onnx_path, "--target", "cpu", "--devices",
                                str(a.ranks), "-o", art, "-q"], a.timeout)
    if rc != 0:
        checks.report(False, "compile", f"telarc --devices {a.ranks} rc={rc}: "
                      f"{first_error_line(err)}")
        return
    manifest = json.load(open(os.path.join(art, "manifest.json")))
    launch = os.path.join(art, "launch", "ray_launch.py")
    if not os.path.isfile(launch):
        checks.report(False, "artifact", f"telarc wrote no {launch}")
        return
    with open(launch, "rb") as f, open(LAUNCH_SOURCE, "rb") as g:
        if f.read() != g.read():
            checks.report(False, "artifact", f"{launch} differs from {LAUNCH_SOURCE}")
            return
    if manifest.get("world_size") != a.ranks:
        checks.report(False, "artifact", f"world_size {manifest.get('world_size')}")
        return
    single = r.single_device(MODEL, a.batch)
    if isinstance(single, str):
        checks.report(False, "single-device", single)
        return
    refs = {"ort": r.ort_outputs(MODEL, a.batch), "telar-1": single}
    in_args = input_args(manifest, r.inputs(MODEL, a.batch), os.path.join(case_dir, "in"))
    mesh = ",".join(f"{x}={n}" for x, n in zip(manifest["mesh"]["axes"],
                                                manifest["mesh"]["shape"]))

    # 1-2: a 4-CPU cluster, the 4 ranks.
    head = RayHead(4, a.timeout)
    _heads.append(head)
    try:
        start_s = head.start()
    except RuntimeError as e:
        checks.report(False, "cluster", str(e))
        return
    out_dir = os.path.join(case_dir, "out")
    report = os.path.join(case_dir, "report.json")
    cmd = [sys.executable, launch, "--address", head.address, "--telar-run", a.telar_run,
           "--timeout", "60", "--"] + in_args + ["--output-dir", out_dir, "--report", report,
                                                 "-v"]
    rc, text, _, wall = run_cmd(cmd, a.timeout)
    name = f"{MODEL} {a.ranks} ranks (mesh {mesh}, b{a.batch})"
    problems = []
    if rc != 0:
        problems.append(f"ray_launch rc={rc}: {first_error_line(text)}")
    else:
        rows = []
        problems += r.compare(manifest, out_dir, refs, rows)
        for rank in range(a.ranks):
            # telar-run -v on each rank, relayed: "[rank 2] telar-run: rank 2 of 4 ... gloo"
            if not re.search(rf"^\[rank {rank}\] telar-run: rank {rank} of {a.ranks}\b.*"
                             rf"\bgloo\b", text, re.M):
                problems.append(f"no '[rank {rank}] telar-run: rank {rank} of {a.ranks} ... "
                                f"gloo' line relayed")
        if not os.path.isfile(report):
            problems.append(f"no report at {report}")
    timings = parse_timings(text)
    if rc == 0 and timings is None:
        problems.append("no 'ray_launch: timings:' line")
    if problems:
        checks.report(False, name, "; ".join(problems))
        tail = "\n".join(text.strip().splitlines()[-40:])
        print(f"ray_launch's output ends:\n{tail}", flush=True)
    else:
        worst = max((row.get("telar-1", {}).get("max_abs", 0) for row in rows), default=0)
        worst_ort = max((row.get("ort", {}).get("max_abs", 0) for row in rows), default=0)
        checks.report(True, name, f"outputs match the single-device run (max abs "
                      f"{worst:.1e}) and onnxruntime ({worst_ort:.1e}) in {wall:.1f}s")
    if timings:
        print("ray timings: cluster start %.1f s, then ray_launch: %s (ray_launch's wall "
              "time %.1f s)" % (start_s, ", ".join(f"{k} {v:.2f} s" for k, v in
                                                   timings.items()), wall), flush=True)

    # 3: rank 2 killed mid-run.
    check_killed_rank(checks, a, launch, head, in_args, case_dir)

    # 4: no telar-run on the node: refused before any rank starts.
    check_missing_telar_run(checks, a, launch, head, in_args, case_dir)

    # 5: STRICT_SPREAD on one node.
    check_shortfall(checks, "--spread on 1 node", launch, head.address, a.telar_run, in_args,
                    os.path.join(case_dir, "out.spread"), a.ranks,
                    f"needs {a.ranks} nodes with 1 free CPU each", "the cluster has 1 node",
                    a.timeout)
    t = time.time()
    _heads.remove(head)
    head.stop()
    print(f"ray cluster stopped in {time.time() - t:.1f} s", flush=True)

    # 6: 2 CPUs for 4 ranks.
    small = RayHead(2, a.timeout)
    _heads.append(small)
    try:
        small.start()
    except RuntimeError as e:
        checks.report(False, "cluster (2 CPUs)", str(e))
        return
    check_shortfall(checks, f"{a.ranks} ranks on 2 CPUs", launch, small.address, a.telar_run,
                    in_args, os.path.join(case_dir, "out.small"), a.ranks,
                    f"needs {a.ranks} bundles of {{\"CPU\": 1}}, {a.ranks} CPUs",
                    "with 2 CPUs in all", a.timeout)
    if not a.keep:
        shutil.rmtree(case_dir, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
