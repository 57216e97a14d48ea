"""Runs a command as N ranks of a Gloo job: N local processes with
TELAR_RANK=r, TELAR_WORLD_SIZE=N, TELAR_MASTER_ADDR=127.0.0.1 and
TELAR_MASTER_PORT (a free port), as Kubernetes pods or Ray actors would.

    .venv/bin/python python/telar_testing/run_ranks.py -n 4 [--timeout 120] -- telar-run ART ...

Prints every rank's stdout and stderr (rank by rank), then one line per rank,
`rank R: exit S`, and `ranks: all exited in T s` (or `ranks: timed out`,
the processes killed). Exits 0 whatever the ranks' statuses (the lines say
them), 1 on a timeout.
"""

import argparse
import os
import socket
import subprocess
import sys
import time


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("-n", type=int, required=True, help="the number of ranks")
    p.add_argument("--timeout", type=float, default=120)
    p.add_argument("--port", type=int, default=0, help="TELAR_MASTER_PORT (default: a free one)")
    p.add_argument("command", nargs=argparse.REMAINDER)
    a = p.parse_args(argv)
    command = a.command[1:] if a.command[:1] == ["--"] else a.command
    port = a.port
    if not port:
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            port = s.getsockname()[1]
    procs = []
    start = time.time()
    for r in range(a.n):
        env = dict(os.environ, TELAR_RANK=str(r), TELAR_WORLD_SIZE=str(a.n),
                   TELAR_MASTER_ADDR="127.0.0.1", TELAR_MASTER_PORT=str(port))
        procs.append(subprocess.Popen(command, env=env, stdin=subprocess.DEVNULL,
                                      stdout=subprocess.PIPE, stderr=subprocess.STDOUT))
    outputs, timed_out = [], False
    for proc in procs:
        try:
            out, _ = proc.communicate(timeout=max(1, a.timeout - (time.time() - start)))
        except subprocess.TimeoutExpired:
            timed_out = True
            proc.kill()
            out, _ = proc.communicate()
        outputs.append(out.decode(errors="replace"))
    for out in outputs:
        sys.stdout.write(out)
    for r, proc in enumerate(procs):
        print(f"rank {r}: exit {proc.returncode}")
    if timed_out:
        print("ranks: timed out")
        return 1
    print(f"ranks: all exited in {time.time() - start:.2f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
