#!/usr/bin/env python3
"""Start N ranks as plain processes that meet at a TCP rendezvous (Gloo), no launcher.

Usage:
    python run_ranks.py -n 4 [--port P] [--addr 127.0.0.1] [--timeout 120]
        [--rank-var TELAR_RANK|JOB_COMPLETION_INDEX] [--prefix] -- COMMAND ARGS...

Each rank i runs COMMAND with TELAR_RANK=i (or JOB_COMPLETION_INDEX=i, as a
Kubernetes Indexed Job's pod gets it), TELAR_WORLD_SIZE=N,
TELAR_MASTER_ADDR=ADDR and TELAR_MASTER_PORT=P (default: a port free now),
and with no MPI launcher variables (OMPI_*, PMI*, SLURM_STEP_ID removed).
When every rank has exited, prints their stdout in rank order, then their
stderr in rank order (`--prefix`: each line as "[rank i] ..."). A rank still
running after --timeout seconds: every rank is killed, "run_ranks: timed out
after S s (ranks still running: ...)" on stderr, exit 124. Otherwise the exit
status is the first non-zero one in rank order (with a line "run_ranks: rank
i exited with S" on stderr for each), else 0.
"""

from __future__ import annotations

import argparse
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time

MPI_VARIABLE_PREFIXES = ("OMPI_", "PMIX_", "PMI_", "SLURM_")


def free_port(addr: str = "127.0.0.1") -> int:
    """A TCP port nothing listens on now (the system's choice)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind((addr, 0))
        return s.getsockname()[1]


def rank_env(rank: int, size: int, addr: str, port: int,
             rank_var: str = "TELAR_RANK", base: dict | None = None) -> dict:
    """The environment of one rank: no MPI launcher's variables, the TELAR_* ones."""
    env = {k: v for k, v in (base if base is not None else os.environ).items()
           if not k.startswith(MPI_VARIABLE_PREFIXES)}
    for k in ("TELAR_RANK", "JOB_COMPLETION_INDEX", "TELAR_BACKEND"):
        env.pop(k, None)
    env.update({rank_var: str(rank), "TELAR_WORLD_SIZE": str(size),
                "TELAR_MASTER_ADDR": addr, "TELAR_MASTER_PORT": str(port)})
    return env


def run_ranks(command: list[str], size: int, addr: str = "127.0.0.1",
              port: int | None = None, timeout: float = 120,
              rank_var: str = "TELAR_RANK"):
    """Runs the ranks; returns (exit codes or None when killed on the timeout,
    stdouts, stderrs, seconds)."""
    port = port or free_port()
    start = time.monotonic()
    procs, files = [], []
    for r in range(size):
        out, err = tempfile.TemporaryFile(), tempfile.TemporaryFile()
        files.append((out, err))
        procs.append(subprocess.Popen(command, stdout=out, stderr=err,
                                      env=rank_env(r, size, addr, port, rank_var),
                                      start_new_session=True))
    deadline = start + timeout
    codes = [None] * size
    try:
        while any(c is None for c in codes) and time.monotonic() < deadline:
            for r, p in enumerate(procs):
                if codes[r] is None:
                    codes[r] = p.poll()
            time.sleep(0.02)
    finally:
        for r, p in enumerate(procs):
            if p.poll() is None:
                os.killpg(p.pid, signal.SIGKILL)
                p.wait()
    seconds = time.monotonic() - start
    outs, errs = [], []
    for out, err in files:
        out.seek(0)
        err.seek(0)
        outs.append(out.read().decode(errors="replace"))
        errs.append(err.read().decode(errors="replace"))
        out.close()
        err.close()
    return codes, outs, errs, seconds


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("-n", type=int, required=True, help="number of ranks")
    ap.add_argument("--addr", default="127.0.0.1", help="TELAR_MASTER_ADDR")
    ap.add_argument("--port", type=int, default=None,
                    help="TELAR_MASTER_PORT (default: a free port)")
    ap.add_argument("--timeout", type=float, default=120)
    ap.add_argument("--rank-var", default="TELAR_RANK",
                    choices=["TELAR_RANK", "JOB_COMPLETION_INDEX"])
    ap.add_argument("--prefix", action="store_true",
                    help="prefix each output line with [rank i]")
    ap.add_argument("command", nargs=argparse.REMAINDER)
    a = ap.parse_args(argv)
    command = a.command[1:] if a.command[:1] == ["--"] else a.command
    if not command or a.n < 1:
        ap.error("expected -n N >= 1 and a command after --")
    codes, outs, errs, seconds = run_ranks(command, a.n, a.addr, a.port,
                                           a.timeout, a.rank_var)

    def emit(stream, texts):
        for r, text in enumerate(texts):
            if a.prefix:
                text = "".join(f"[rank {r}] {line}\n"
                               for line in text.splitlines())
            stream.write(text)
        stream.flush()

    emit(sys.stdout, outs)
    emit(sys.stderr, errs)
    if any(c is None for c in codes):
        running = ", ".join(str(r) for r, c in enumerate(codes) if c is None)
        print(f"run_ranks: timed out after {a.timeout:g} s (ranks still "
              f"running: {running})", file=sys.stderr)
        return 124
    status = 0
    for r, c in enumerate(codes):
        if c != 0:
            print(f"run_ranks: rank {r} exited with {c}", file=sys.stderr)
            status = status or (c if c > 0 else 128 - c)
    return status


if __name__ == "__main__":
    sys.exit(main())
