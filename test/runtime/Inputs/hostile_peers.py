#!/usr/bin/env python3
"""Runs a Gloo job (run_ranks.py) while a stranger on this machine attacks its ports.

Usage:
    hostile_peers.py --ranks N --timeout S -- COMMAND ARGS...

The job's ranks get TELAR_JOB_TOKEN (a fresh secret the stranger does not
know), a rendezvous port and a liveness port (TELAR_LIVENESS_PORT) chosen
here, so that the stranger knows where to strike. From before the job
starts until it ends, the stranger repeats, each on a connection of its own:

  rendezvous: a WAIT announcing 2^30 keys; a SET announcing a 1 GiB key; a
              GET of rank 0's join record; a forged join of rank 1 with a
              world size of 99 (none with the handshake: it has no secret);
  liveness:   "FAIL you have been stopped"; "HELLO 1" then a hang-up; 64
              MiB without a line end.

Prints what the stranger saw (whether any byte beyond the store's
challenge came back, whether the liveness endpoint cut the 64 MiB short),
then the job's output and its exit status; exits with the job's status.
"""

from __future__ import annotations

import argparse
import os
import secrets
import socket
import struct
import subprocess
import sys
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
RUN_RANKS = os.path.join(HERE, "..", "..", "..", "python", "telar_testing",
                         "run_ranks.py")
CHALLENGE = 8 + 32  # "TELARST1" and the server's nonce


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def connect(port: int) -> socket.socket | None:
    try:
        return socket.create_connection(("127.0.0.1", port), timeout=1)
    except OSError:
        return None


def read_some(s: socket.socket, seconds: float) -> bytes:
    s.settimeout(seconds)
    got = b""
    try:
        while True:
            chunk = s.recv(65536)
            if not chunk:
                break
            got += chunk
    except OSError:
        pass
    return got


class Stranger:
    def __init__(self, store_port: int, liveness_port: int):
        self.store_port, self.liveness_port = store_port, liveness_port
        self.stop = threading.Event()
        self.store_hits = self.leaks = 0
        self.liveness_hits = 0
        self.flood_cut = 0  # 64 MiB floods the endpoint cut short

    def store(self):
        s32 = lambda v: struct.pack("<I", v)
        requests = [
            b"\x03" + s32(1 << 30),
            b"\x01" + s32(1 << 30) + b"abc",
            b"\x02" + s32(12) + b"telar/join/0" + struct.pack("<Q", 0),
            b"\x01" + s32(12) + b"telar/join/1" + s32(12) + b"99 127.0.0.1",
        ]
        while not self.stop.is_set():
            for request in requests:
                s = connect(self.store_port)
                if s is None:
                    time.sleep(0.01)
                    continue
                try:
                    s.sendall(request)
                except OSError:
                    pass
                got = read_some(s, 0.3)
                s.close()
                self.store_hits += 1
                if len(got) > CHALLENGE:
                    self.leaks += 1

    def liveness(self):
        while not self.stop.is_set():
            s = connect(self.liveness_port)
            if s is None:
                time.sleep(0.01)
                continue
            try:
                s.sendall(b"FAIL you have been stopped\n")
            except OSError:
                pass
            s.close()
            s = connect(self.liveness_port)
            if s is not None:
                try:
                    s.sendall(b"HELLO 1\n")
                except OSError:
                    pass
                s.close()
            s = connect(self.liveness_port)
            if s is not None:
                sent, block = 0, b"x" * (1 << 20)
                try:
                    s.settimeout(5)
                    while sent < (64 << 20) and not self.stop.is_set():
                        s.sendall(block)
                        sent += len(block)
                except OSError:
                    self.flood_cut += 1
                s.close()
            self.liveness_hits += 1
            time.sleep(0.05)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--ranks", type=int, required=True)
    ap.add_argument("--timeout", type=float, default=120)
    ap.add_argument("command", nargs=argparse.REMAINDER)
    args = ap.parse_args()
    command = args.command[1:] if args.command[:1] == ["--"] else args.command
    store_port, liveness_port = free_port(), free_port()
    stranger = Stranger(store_port, liveness_port)
    threads = [threading.Thread(target=stranger.store, daemon=True),
               threading.Thread(target=stranger.liveness, daemon=True)]
    for t in threads:
        t.start()
    env = dict(os.environ, TELAR_JOB_TOKEN=secrets.token_hex(32),
               TELAR_LIVENESS_PORT=str(liveness_port))
    job = subprocess.run([sys.executable, RUN_RANKS, "-n", str(args.ranks),
                          "--port", str(store_port), "--timeout",
                          str(args.timeout), "--"] + command,
                         env=env, stdout=subprocess.PIPE,
                         stderr=subprocess.STDOUT, text=True)
    stranger.stop.set()
    for t in threads:
        t.join(timeout=10)
    print(f"stranger: {stranger.store_hits} rendezvous connections, "
          f"{stranger.leaks} answered beyond the challenge")
    print(f"stranger: {stranger.liveness_hits} rounds on the liveness "
          f"endpoint, {stranger.flood_cut} floods cut short")
    sys.stdout.write(job.stdout)
    print(f"job exit status: {job.returncode}")
    return job.returncode


if __name__ == "__main__":
    sys.exit(main())
