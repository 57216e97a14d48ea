#!/usr/bin/env python3
"""The README's example after compilation: run a Telar artifact on a model's
saved inputs, compare every output with onnxruntime, and time both.

Usage: example.py MODEL.onnx ARTIFACT_DIR [--telar-run PATH] [--threads T] [--iters N]
                  [--ranks N]

Reads MODEL.inputs.npz next to the model (written by make_models.py), runs
`telar-run ARTIFACT --input ... --output-dir ... --bench N --report ...`,
runs onnxruntime's CPU provider with the same thread count on the same
inputs, prints a few output values, the largest differences and both
latencies. Exit 1 when an output differs (rtol 1e-4, atol 1e-4).

With --ranks N (a multi-rank artifact, telarc --plan) it runs `telar-run
ARTIFACT -n N --threads T ...`: N ranks started through mpirun, T threads each
(default 1); telar-run's statistics give each rank's time in collectives and
the bytes sent per mesh axis. The
OpenMPI settings for running as root on an oversubscribed machine are set
when absent.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time

import numpy as np
import onnxruntime as ort

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from run_models import output_file_name  # noqa: E402
from runner import kill_commands_on_exit, run_cmd  # noqa: E402
from tensor_compare import compare  # noqa: E402


def main() -> int:
    kill_commands_on_exit()
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("model")
    ap.add_argument("artifact")
    ap.add_argument("--telar-run", default=os.path.join(
        os.path.dirname(__file__), "..", "..", "build", "bin", "telar-run"))
    ap.add_argument("--threads", type=int, default=0,
                    help="threads (per rank with --ranks; default: the cores, 1 per rank)")
    ap.add_argument("--iters", type=int, default=20)
    ap.add_argument("--ranks", type=int, default=1, help="ranks of a multi-rank artifact")
    args = ap.parse_args()
    if not args.threads:
        args.threads = 1 if args.ranks > 1 else (os.cpu_count() or 1)
    env = dict(os.environ)
    for k in ("OMPI_ALLOW_RUN_AS_ROOT", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM",
              "OMPI_MCA_rmaps_base_oversubscribe"):
        env.setdefault(k, "1")

    inputs = dict(np.load(args.model[: -len(".onnx")] + ".inputs.npz"))
    work = tempfile.mkdtemp(prefix="telar-example-")
    cmd = [args.telar_run, args.artifact, "--output-dir", work,
           "--threads", str(args.threads), "--bench", str(args.iters),
           "--report", os.path.join(work, "report.json"), "-q"]
    if args.ranks > 1:
        cmd[2:2] = ["-n", str(args.ranks)]
    for name, value in inputs.items():
        path = os.path.join(work, f"in_{len(cmd)}.npy")
        np.save(path, value)
        cmd += ["--input", f"{name}={path}"]
    print("$ " + " ".join(cmd), flush=True)
    rc, _, _, _ = run_cmd(cmd, 600, env=env, capture=False)
    if rc != 0:
        sys.exit("example: telar-run " +
                 ("timed out after 600 s" if rc is None else f"failed (exit {rc})"))
    report = json.load(open(os.path.join(work, "report.json")))

    options = ort.SessionOptions()
    ort_threads = args.threads * args.ranks
    options.intra_op_num_threads = ort_threads
    options.inter_op_num_threads = 1
    session = ort.InferenceSession(args.model, options,
                                   providers=["CPUExecutionProvider"])
    names = [o.name for o in session.get_outputs()]
    expected = session.run(names, inputs)
    for _ in range(3):
        session.run(names, inputs)
    start = time.perf_counter()
    for _ in range(args.iters):
        session.run(names, inputs)
    ort_ms = (time.perf_counter() - start) * 1e3 / args.iters

    ok = True
    for name, ref in zip(names, expected):
        got = np.load(os.path.join(work, output_file_name(name) + ".npy"))
        close, err, _, _ = compare(got, ref, rtol=1e-4, atol=1e-4)
        ok &= bool(close)
        flat = got.reshape(-1)[:4]
        print(f"output '{name}': {got.dtype}{list(got.shape)} = "
              f"[{', '.join(f'{v:.5g}' for v in flat)}, ...]  "
              f"max |telar - onnxruntime| = {err:.3g}  "
              f"{'matches' if close else 'DIFFERS'}")
    telar_ms = report["latency_ms"]["mean"]
    where = (f"{args.ranks} ranks x {args.threads} threads against {ort_threads} threads"
             if args.ranks > 1 else f"{args.threads} threads")
    print(f"latency ({where}, mean of {args.iters} runs): "
          f"telar {telar_ms:.3f} ms, onnxruntime {ort_ms:.3f} ms, "
          f"throughput ratio {ort_ms / telar_ms:.2f}x")

    if "peak_intermediate_bytes" in report:
        print(f"telar peak intermediate memory: "
              f"{report['peak_intermediate_bytes'] / 2**20:.2f} MiB"
              f"{' (rank 0)' if args.ranks > 1 else ''}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
