#!/usr/bin/env python3
"""Run this Telar artifact on a Ray cluster: one Ray actor per rank, each running telar-run.

Usage (from anywhere; the artifact is the directory above this script):

    python launch/ray_launch.py [--address ADDR] [--spread] [--cpus-per-rank N]
        [--telar-run PATH] [--timeout S] -- <telar-run options>

    python launch/ray_launch.py -- --input input_ids=/data/ids.npy --output-dir /data/out

The world size comes from ../manifest.json. The script connects to a running
Ray cluster (--address, default $RAY_ADDRESS or "auto": the cluster started on
this machine with `ray start`), reserves one placement-group bundle of
{"CPU": N} per rank (PACK: as few nodes as fit; --spread: STRICT_SPREAD, every
rank on a node of its own) and waits --timeout seconds for it; a cluster that
cannot give it within that time is an error saying what the job needs and what
the cluster has, not a hang. Then it starts one actor per rank on its bundle;
each runs

    telar-run <this artifact> <telar-run options>

as a subprocess with TELAR_BACKEND=gloo, TELAR_RANK, TELAR_WORLD_SIZE,
TELAR_MASTER_ADDR (the IP of rank 0's node) and TELAR_MASTER_PORT (a port
free on rank 0's node): the ranks form their communicators through telar-run's
TCP rendezvous and Gloo, not MPI. The launcher variables of an enclosing job
(OMPI_*, PMI_*, PMIX_*, SLURM_*, JOB_COMPLETION_INDEX) are removed from the
ranks' environment. Without --threads among the options each rank gets
--threads N (its bundle's CPUs).

Each rank's standard output and error are relayed here, line by line, as
`[rank R] ...`. Rank 0 writes --output-dir (and --report) into a temporary
directory on its own node; its actor sends the files back and this script
writes them to the --output-dir (--report) given, on this machine. The
artifact, telar-run and the --input files must be at the same paths on every
node (a shared file system, or the same image); relative --input paths are
taken from this script's working directory.

When a rank fails, the others normally stop on their own within seconds
(telar-run names the failed rank); any still running 45 s later are stopped.
Exit status: 0 when every rank succeeded. When ranks failed, the status of
the lowest rank that failed on its own, not because another did (telar-run's:
1 error, 2 usage, 3 the program failed, 4 a wait passed telar-run's
--timeout), or 1 when it was killed or its actor died. 2 on usage errors of
this script; 5 when the cluster cannot host the job (no cluster at the
address, too few resources, actors not started within --timeout).

This file is written by telarc into every multi-rank artifact's launch/
directory, unchanged; see docs/Launch.md.
"""

import argparse
import json
import logging
import os
import secrets
import signal
import sys
import threading
import time
import warnings

ARTIFACT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# telar-run's options that take a value ("--opt VALUE" or "--opt=VALUE").
VALUE_OPTIONS = {"--input", "--output-dir", "--format", "--threads", "--bench", "--warmup",
                 "--report", "--memory-limit", "--program", "-n", "--ranks", "--timeout"}

# Variables by which telar-run would recognise an enclosing launcher (MPI,
# Slurm, a Kubernetes Indexed Job) and take its rank from there.
LAUNCHER_PREFIXES = ("OMPI_", "PMI_", "PMIX_", "SLURM_")
LAUNCHER_VARIABLES = ("JOB_COMPLETION_INDEX", "TELAR_BACKEND", "TELAR_RANK",
                      "TELAR_WORLD_SIZE", "TELAR_MASTER_ADDR", "TELAR_MASTER_PORT")

# Seconds the other ranks get to exit on their own after one failed (they
# notice within telar-run's fault timeouts, well under this) before the
# launcher stops them.
FAILURE_GRACE_S = 45.0

EXIT_USAGE = 2
# telar-run's exit status when it stopped because another rank failed (or a
# wait passed its --timeout, or it was terminated).
EXIT_FAULT = 4
EXIT_CLUSTER = 5


class UsageError(Exception):
    pass


class ClusterError(Exception):
    pass


def plural(ranks, word):
    """'rank 2', 'ranks 0, 1, 3'."""
    return f"{word}{'s' if len(ranks) != 1 else ''} {', '.join(map(str, ranks))}"


def signal_name(number):
    try:
        return signal.Signals(number).name
    except ValueError:
        return "unknown signal"


def log(message):
    print(f"ray_launch: {message}", file=sys.stderr, flush=True)


# ----------------------------------------------------------------- arguments
def split_argv(argv):
    """(this script's arguments, telar-run's): everything after the first '--'
    is telar-run's."""
    if "--" in argv:
        i = argv.index("--")
        return argv[:i], argv[i + 1:]
    return argv, []


def plan_telar_run_args(args, cpus_per_rank):
    """Checks telar-run's options and returns (options for the ranks, the
    driver's --output-dir or None, the driver's --report or None).

    In the returned options, the --output-dir and --report values are
    ("@local", NAME) markers: each rank replaces them by a path in its own
    temporary directory. --input paths are made absolute."""
    out, output_dir, report, has_threads = [], None, None, False
    i = 0
    while i < len(args):
        arg = args[i]
        name, value = arg, None
        if arg.startswith("--") and "=" in arg:
            name, value = arg.split("=", 1)
        if name in VALUE_OPTIONS:
            if value is None:
                if i + 1 >= len(args):
                    raise UsageError(f"telar-run option {name} needs a value")
                value = args[i + 1]
                i += 1
            if name in ("-n", "--ranks"):
                raise UsageError(f"{name}: this script starts the ranks itself (the artifact "
                                 f"runs on its manifest's world size); leave {name} out")
            if name == "--output-dir":
                output_dir = os.path.abspath(value)
                out += [name, ("@local", "out")]
            elif name == "--report":
                report = os.path.abspath(value)
                out += [name, ("@local", "report.json")]
            elif name == "--input":
                input_name, sep, path = value.partition("=")
                if not sep:
                    raise UsageError(f"--input expects NAME=FILE, got '{value}'")
                out += [name, f"{input_name}={os.path.abspath(path)}"]
            else:
                has_threads = has_threads or name == "--threads"
                out += [name, value]
        elif not arg.startswith("-") or arg == "-":
            raise UsageError(f"unexpected argument '{arg}' for telar-run: the artifact is "
                             f"this script's own ({ARTIFACT}); give only telar-run's "
                             f"options after '--'")
        else:
            out.append(arg)
        i += 1
    if not has_threads:
        out += ["--threads", str(cpus_per_rank)]
    return out, output_dir, report


def read_world_size():
    path = os.path.join(ARTIFACT, "manifest.json")
    try:
        with open(path) as f:
            manifest = json.load(f)
    except (OSError, ValueError) as e:
        raise UsageError(f"cannot read the artifact's manifest {path}: {e}")
    size = manifest.get("world_size", 1)
    if not isinstance(size, int) or size < 1:
        raise UsageError(f"{path}: 'world_size' is {size!r}, not a positive integer")
    return size


# ------------------------------------------------------------- one rank
class Rank:
    """The actor of one rank: runs telar-run as a subprocess on its node and
    hands its output over in pieces (poll), then rank 0's files (outputs)."""

    def __init__(self, rank, world_size):
        import tempfile
        import threading
        self.rank, self.world_size = rank, world_size
        self.tmp = tempfile.mkdtemp(prefix=f"telar-ray-rank{rank}-")
        self.proc = None
        self.exe = None
        self.returncode = None
        self.pending = []         # (stream, text) lines not yet polled
        self.open_streams = 0
        self.cond = threading.Condition()

    def node(self):
        import socket
        import ray
        return {"ip": ray.util.get_node_ip_address(), "host": socket.gethostname(),
                "pid": os.getpid()}

    def free_port(self):
        """A TCP port free on this node now, for the rendezvous rank 0's
        telar-run serves (bound on all interfaces, as telar-run binds it)."""
        import socket
        with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
            s.bind(("", 0))
            return s.getsockname()[1]

    def prepare(self, telar_run, artifact):
        """Finds telar-run and the artifact on this node; returns None, or
        what is missing."""
        import shutil
        where = f"on node {self.node()['ip']}"
        exe = telar_run if os.sep in telar_run else shutil.which(telar_run)
        if not exe or not os.access(exe, os.X_OK):
            return (f"telar-run '{telar_run}' is not an executable {where} (PATH="
                    f"{os.environ.get('PATH', '')}); pass --telar-run PATH or install "
                    f"telar-run on every node")
        if not os.path.isfile(os.path.join(artifact, "manifest.json")):
            return (f"the artifact {artifact} is not {where} (it must be at the same path "
                    f"on every node)")
        self.exe = exe
        return None

    def start(self, artifact, args, env, shown):
        """Starts telar-run (found by prepare); returns None, or a message
        when it cannot start. `shown` maps the ("@local", NAME) markers to
        the paths its lines should name instead of this rank's directory
        (the driver's)."""
        import subprocess
        import threading
        exe = self.exe
        argv = [exe, artifact] + [os.path.join(self.tmp, a[1]) if isinstance(a, tuple) else a
                                  for a in args]
        child_env = {k: v for k, v in os.environ.items()
                     if not k.startswith(LAUNCHER_PREFIXES) and k not in LAUNCHER_VARIABLES}
        child_env.update(env)
        try:
            self.proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL,
                                         stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                         env=child_env, cwd=self.tmp,
                                         preexec_fn=_die_with_parent)
        except OSError as e:
            return f"cannot start {exe} on node {self.node()['ip']}: {e}"
        self.shown = [(os.path.join(self.tmp, k), v) for k, v in shown.items()]
        self.open_streams = 2
        for stream, pipe in (("stdout", self.proc.stdout), ("stderr", self.proc.stderr)):
            threading.Thread(target=self._read, args=(stream, pipe), daemon=True).start()
        threading.Thread(target=self._wait, daemon=True).start()
        return None

    def _read(self, stream, pipe):
        for line in iter(pipe.readline, b""):
            text = line.decode("utf-8", "replace").rstrip("\n")
            for here, there in self.shown:
                text = text.replace(here, there)
            with self.cond:
                self.pending.append((stream, text))
                self.cond.notify_all()
        pipe.close()
        with self.cond:
            self.open_streams -= 1
            self.cond.notify_all()

    def _wait(self):
        rc = self.proc.wait()
        with self.cond:
            self.returncode = rc
            self.cond.notify_all()

    def _done(self):
        return self.returncode is not None and self.open_streams == 0

    def poll(self, wait_s):
        """(lines since the last poll, exit status or None while running);
        waits up to wait_s for something new."""
        with self.cond:
            if not self.pending and not self._done():
                self.cond.wait(wait_s)
            lines, self.pending = self.pending, []
            return lines, (self.returncode if self._done() else None)

    def outputs(self):
        """{path relative to the rank's directory: bytes} of the files
        telar-run wrote for --output-dir ('out/...') and --report."""
        files = {}
        for top in ("out", "report.json"):
            root = os.path.join(self.tmp, top)
            if os.path.isfile(root):
                paths = [root]
            else:
                paths = [os.path.join(d, f) for d, _, fs in os.walk(root) for f in fs]
            for p in sorted(paths):
                with open(p, "rb") as f:
                    files[os.path.relpath(p, self.tmp)] = f.read()
        return files

    def stop(self):
        """Stops telar-run if it still runs (SIGTERM, SIGKILL after 3 s) and
        removes the rank's directory."""
        import shutil
        import subprocess
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(3)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        shutil.rmtree(self.tmp, ignore_errors=True)


def _die_with_parent():
    """In the child before exec: SIGKILL telar-run when its actor's worker
    process dies (Linux), so that a killed job leaves no rank behind."""
    try:
        import ctypes
        ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
    except Exception:
        pass


# ------------------------------------------------------------- the driver
def probe_address(address, timeout, hint):
    """A clear error, fast, when nothing listens at HOST:PORT (ray.init would
    retry for minutes)."""
    import socket
    rest = address.split("://", 1)[-1]
    host, sep, port = rest.rpartition(":")
    if not sep or not port.isdigit():
        return  # not HOST:PORT: let Ray resolve it
    try:
        socket.create_connection((host.strip("[]"), int(port)), timeout=timeout).close()
    except OSError as e:
        raise ClusterError(f"cannot connect to a Ray cluster at '{address}': nothing answers "
                           f"at {host}:{port} ({e}) {hint}")


def _give_up(message):
    log(f"error: {message}")
    os._exit(EXIT_CLUSTER)


def describe_shortfall(ray, ranks, cpus, spread, timeout):
    """The error when the placement group is not ready in time: what the job
    needs, what the cluster has."""
    nodes = [n for n in ray.nodes() if n.get("Alive")]
    avail = ray.available_resources()
    total = sum(n.get("Resources", {}).get("CPU", 0) for n in nodes)
    per_node = ", ".join(f"{n.get('NodeManagerAddress')}: {n.get('Resources', {}).get('CPU', 0):g}"
                         for n in nodes)
    has = (f"the cluster has {len(nodes)} node{'s' if len(nodes) != 1 else ''} with "
           f"{total:g} CPUs in all ({per_node or 'none'}), {avail.get('CPU', 0):g} of them free")
    if spread:
        need = (f"{ranks} nodes with {cpus} free CPU{'s' if cpus != 1 else ''} each "
                f"(--spread: STRICT_SPREAD, one rank per node)")
        hint = "add nodes, or run without --spread to pack ranks onto fewer nodes"
    else:
        need = (f"{ranks} bundles of {{\"CPU\": {cpus}}}, {ranks * cpus} CPUs "
                f"(PACK: on as few nodes as fit)")
        hint = "add CPUs or nodes to the cluster, or free those other jobs hold"
    return (f"the Ray cluster cannot host the {ranks} ranks of this artifact: its placement "
            f"group was not ready after {timeout:g} s. The job needs {need}; {has}. "
            f"To run it: {hint} (or wait longer with --timeout).")


class Job:
    def __init__(self, a, args, output_dir, report, world_size):
        self.a, self.args, self.output_dir, self.report = a, args, output_dir, report
        self.n = world_size
        self.pg = None
        self.actors = []
        self.times = {}

    def run(self):
        import ray
        from ray.util.placement_group import placement_group, remove_placement_group
        from ray.util.scheduling_strategies import PlacementGroupSchedulingStrategy
        a, n = self.a, self.n
        self.remove_pg = remove_placement_group
        strategy = "STRICT_SPREAD" if a.spread else "PACK"
        t0 = time.monotonic()
        cpus = f"{a.cpus_per_rank} CPU{'s' if a.cpus_per_rank != 1 else ''}"
        log(f"{n} rank{'s' if n != 1 else ''} of {ARTIFACT}, {cpus} each, {strategy}, on the "
            f"Ray cluster at {a.address}")
        hint = ("(start one with `ray start --head`, or give its head's address with "
                "--address HOST:PORT or RAY_ADDRESS)")
        if a.address != "auto":
            os.environ["RAY_ADDRESS"] = a.address  # Ray lets it override the argument
            probe_address(a.address, min(a.timeout, 10.0), hint)
        # Ray retries an unanswered connection for minutes, in code a signal
        # cannot interrupt: give up after --timeout (at least 30 s: a cluster
        # just started, or busy, may take seconds to take a driver).
        limit = max(a.timeout, 30.0)
        watchdog = threading.Timer(limit, _give_up, [
            f"cannot connect to a Ray cluster at '{a.address}' within {limit:g} s {hint}"])
        watchdog.daemon = True
        watchdog.start()
        try:
            ray.init(address=a.address, log_to_driver=False, logging_level=logging.WARNING)
        except (ConnectionError, RuntimeError, ValueError) as e:
            raise ClusterError(f"cannot connect to a Ray cluster at '{a.address}': {e} {hint}")
        finally:
            watchdog.cancel()
        # ray.init installs a SIGTERM handler that exits at once: stop the
        # ranks first (a scheduler's time limit, `timeout`), as on Ctrl-C.
        signal.signal(signal.SIGTERM, _interrupt)
        self.times["connected"] = time.monotonic() - t0

        t = time.monotonic()
        self.pg = placement_group([{"CPU": a.cpus_per_rank}] * n, strategy=strategy)
        if not self.pg.wait(a.timeout):
            raise ClusterError(describe_shortfall(ray, n, a.cpus_per_rank, a.spread,
                                                  a.timeout))
        self.times["placement group"] = time.monotonic() - t

        t = time.monotonic()
        actor_cls = ray.remote(Rank)
        for r in range(n):
            self.actors.append(actor_cls.options(
                num_cpus=a.cpus_per_rank, max_restarts=0,
                scheduling_strategy=PlacementGroupSchedulingStrategy(
                    placement_group=self.pg, placement_group_bundle_index=r)).remote(r, n))
        try:
            nodes = ray.get([x.node.remote() for x in self.actors],
                            timeout=max(1.0, a.timeout - (time.monotonic() - t0)))
            port = ray.get(self.actors[0].free_port.remote(), timeout=a.timeout)
        except ray.exceptions.GetTimeoutError:
            raise ClusterError(f"the {n} rank actors did not start within --timeout "
                               f"{a.timeout:g} s (the cluster's workers may be slow to start: "
                               f"try a larger --timeout)")
        self.times["actors up"] = time.monotonic() - t
        master = nodes[0]["ip"]
        ips = sorted({x["ip"] for x in nodes})
        log(f"ranks on {len(ips)} node{'s' if len(ips) != 1 else ''} ({', '.join(ips)}), "
            f"rendezvous {master}:{port}")

        t = time.monotonic()
        # The job's secret, fresh for this run: the ranks prove to rank 0's
        # rendezvous that they know it (docs/Launch.md, "Trust").
        base = {"TELAR_BACKEND": "gloo", "TELAR_WORLD_SIZE": str(n),
                "TELAR_MASTER_ADDR": master, "TELAR_MASTER_PORT": str(port),
                "TELAR_JOB_TOKEN": secrets.token_hex(32)}
        shown = {}
        if self.output_dir:
            shown["out"] = self.output_dir
        if self.report:
            shown["report.json"] = self.report
        # Every rank must be able to start before any does: the others would
        # wait for it in the rendezvous until telar-run's --timeout.
        problems = ray.get([x.prepare.remote(a.telar_run, ARTIFACT) for x in self.actors])
        if not any(problems):
            problems = ray.get([x.start.remote(ARTIFACT, self.args,
                                               dict(base, TELAR_RANK=str(r)),
                                               shown if r == 0 else {})
                                for r, x in enumerate(self.actors)])
        status = {}
        for r, p in enumerate(problems):
            if p:
                log(f"rank {r}: {p}")
                status[r] = (127, "could not start telar-run")
        if status:
            ray.get([x.stop.remote() for x in self.actors], timeout=30)
            status.update({r: (EXIT_FAULT, "not started: another rank could not start")
                           for r in range(n) if r not in status})
        codes = self.relay(ray, status)
        self.times["telar-run"] = time.monotonic() - t

        failed = sorted(r for r, (rc, _) in codes.items() if rc != 0)
        written = "" if failed else self.fetch_outputs(ray)
        self.times["total"] = time.monotonic() - t0
        log("timings: " + ", ".join(f"{k} {v:.2f} s" for k, v in self.times.items()))
        if not failed:
            if written:
                log(f"wrote {written}")
            return 0
        # The ranks that failed on their own, not those that stopped because
        # another had (telar-run's exit status 4).
        culprits = [r for r in failed if codes[r][0] != EXIT_FAULT] or failed
        followers = [r for r in failed if r not in culprits]
        for r in culprits:
            log(f"rank {r} failed: {codes[r][1]}")
        if followers:
            log(f"{plural(followers, 'rank')} stopped after "
                f"{'it' if len(culprits) == 1 else 'them'} ("
                f"{'; '.join(sorted({codes[r][1] for r in followers}))})")
        ok = [r for r in range(n) if r not in failed]
        log(f"failed: {plural(culprits, 'rank')} of {n}"
            + (f"; {plural(ok, 'rank')} succeeded" if ok else ""))
        rc = codes[culprits[0]][0]
        return rc if 0 < rc <= EXIT_FAULT else 1

    def relay(self, ray, status):
        """Prints the ranks' lines as they come until every rank has exited;
        {rank: (exit status, text)}."""
        polls = {}
        for r, x in enumerate(self.actors):
            if r not in status:
                polls[x.poll.remote(1.0)] = r
        first_failure = None
        while polls:
            ready, _ = ray.wait(list(polls), num_returns=1, timeout=1.0)
            for ref in ready:
                r = polls.pop(ref)
                try:
                    lines, rc = ray.get(ref)
                except ray.exceptions.RayError as e:
                    status[r] = (1, f"its Ray actor died ({type(e).__name__}: "
                                 f"{str(e).splitlines()[0] if str(e) else ''})")
                    first_failure = first_failure or (r, time.monotonic())
                    continue
                for stream, text in lines:
                    print(f"[rank {r}] {text}", file=sys.stdout if stream == "stdout"
                          else sys.stderr, flush=True)
                if rc is None:
                    polls[self.actors[r].poll.remote(1.0)] = r
                    continue
                status[r] = (rc, f"exit status {rc}" if rc >= 0 else
                             f"killed by signal {-rc} ({signal_name(-rc)})")
                if rc != 0 and first_failure is None:
                    first_failure = (r, time.monotonic())
            if first_failure and polls and time.monotonic() - first_failure[1] > FAILURE_GRACE_S:
                for r in sorted(polls.values()):
                    log(f"rank {r} still runs {FAILURE_GRACE_S:g} s after rank "
                        f"{first_failure[0]} failed: stopping it")
                    status[r] = (EXIT_FAULT, f"stopped by ray_launch {FAILURE_GRACE_S:g} s "
                                 f"after rank {first_failure[0]} failed")
                ray.get([self.actors[r].stop.remote() for r in polls.values()], timeout=30)
                polls = {}
        return status

    def fetch_outputs(self, ray):
        """Writes rank 0's files to the driver's --output-dir and --report;
        returns a few words on what was written."""
        if not self.output_dir and not self.report:
            return ""
        files = ray.get(self.actors[0].outputs.remote(), timeout=600)
        names = []
        for rel, data in files.items():
            if rel == "report.json":
                dest = self.report
            else:
                dest = os.path.join(self.output_dir, os.path.relpath(rel, "out"))
            os.makedirs(os.path.dirname(dest) or ".", exist_ok=True)
            with open(dest, "wb") as f:
                f.write(data)
            names.append(os.path.relpath(rel, "out") if rel != "report.json" else dest)
        if self.output_dir:
            os.makedirs(self.output_dir, exist_ok=True)
        outs = [x for x in names if x != self.report]
        text = f"{len(outs)} output file{'s' if len(outs) != 1 else ''} to {self.output_dir}"
        if outs:
            text += f" ({', '.join(outs)})"
        if self.report:
            text += f", the report to {self.report}"
        return text

    def cleanup(self):
        try:
            import ray
            if not ray.is_initialized():
                return
            if self.actors:
                try:
                    ray.get([x.stop.remote() for x in self.actors], timeout=15)
                except Exception:
                    pass
                for x in self.actors:
                    try:
                        ray.kill(x)
                    except Exception:
                        pass
            if self.pg is not None:
                try:
                    self.remove_pg(self.pg)
                except Exception:
                    pass
            ray.shutdown()
        except Exception:
            pass


_signal_received = [signal.SIGINT]


def _interrupt(signum, frame):
    # KeyboardInterrupt: the one exception Ray's blocking calls pass on.
    _signal_received[0] = signum
    raise KeyboardInterrupt()


def main(argv=None):
    own, telar_args = split_argv(sys.argv[1:] if argv is None else argv)
    ap = argparse.ArgumentParser(
        usage="python launch/ray_launch.py [options] -- <telar-run options>",
        description=__doc__.split("\n\n")[0],
        epilog="Everything after '--' goes to telar-run (e.g. --input NAME=FILE "
               "--output-dir DIR); see the top of this file for details.")
    ap.add_argument("--address", default=os.environ.get("RAY_ADDRESS") or "auto",
                    help="the Ray cluster: HOST:PORT of its head, ray://HOST:PORT, or 'auto' "
                         "(the cluster started on this machine); default $RAY_ADDRESS or auto")
    ap.add_argument("--spread", action="store_true",
                    help="every rank on a different node (STRICT_SPREAD); default PACK")
    ap.add_argument("--cpus-per-rank", type=int, default=1, metavar="N",
                    help="CPUs in each rank's bundle (default 1); telar-run's --threads "
                         "unless given")
    ap.add_argument("--telar-run", default=os.environ.get("TELAR_RUN") or "telar-run",
                    metavar="PATH",
                    help="telar-run on the nodes (default $TELAR_RUN or telar-run on the "
                         "nodes' PATH)")
    ap.add_argument("--timeout", type=float, default=60.0, metavar="S",
                    help="seconds to wait for the cluster to place and start the ranks "
                         "(default 60; connecting waits at least 30)")
    a = ap.parse_args(own)
    if a.cpus_per_rank < 1:
        ap.error("--cpus-per-rank must be at least 1")
    if a.timeout <= 0:
        ap.error("--timeout must be positive")
    try:
        world_size = read_world_size()
        args, output_dir, report = plan_telar_run_args(telar_args, a.cpus_per_rank)
    except UsageError as e:
        log(f"error: {e}")
        return EXIT_USAGE
    # Ray's notice that it will stop hiding GPUs from actors that ask for
    # none (these ranks use CPUs only).
    warnings.filterwarnings("ignore", message=".*accelerator visible devices.*")
    try:
        import ray  # noqa: F401
    except ImportError:
        log("error: this script needs the Python package 'ray' (the version the cluster "
            "runs: pip install 'ray==<version>')")
        return EXIT_USAGE

    signal.signal(signal.SIGTERM, _interrupt)
    job = Job(a, args, output_dir, report, world_size)
    try:
        return job.run()
    except ClusterError as e:
        log(f"error: {e}")
        return EXIT_CLUSTER
    except KeyboardInterrupt:
        log("interrupted: stopping the ranks")
        return 128 + _signal_received[0]
    finally:
        job.cleanup()


if __name__ == "__main__":
    sys.exit(main())
