#!/usr/bin/env python3
"""Import the exported torch models with telarc and round-trip them through telar-opt.

Usage:
    .venv/bin/python python/telar_testing/check_models.py DIR [--telarc build/bin/telarc]
        [--telar-opt PATH] [--timeout 120] [--keep] [--only gpt,bert]

DIR is the output dir of make_torch_models.py. For each DIR/*.onnx (sorted):

    telarc NAME.onnx --emit=mlir -o DIR/NAME.mlir
    telar-opt DIR/NAME.mlir | telar-opt          (print -> parse -> print -> parse)

and prints one line per model: `PASS name (sizes, seconds)` or `FAIL name stage:
message`. Exit status 0 when all pass, 1 otherwise (2 on usage errors). The .mlir
files are removed unless --keep is given.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time


def run(cmd, timeout, stdin=None):
    t0 = time.time()
    try:
        p = subprocess.run(cmd, input=stdin, capture_output=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return None, b"", f"timed out after {timeout}s", time.time() - t0
    err = p.stderr.decode("utf-8", "replace").strip()
    if p.returncode < 0:
        err = f"killed by signal {-p.returncode}; " + err
    return p.returncode, p.stdout, err, time.time() - t0


def short(err):
    lines = [l for l in err.splitlines() if l.strip()]
    for l in lines:
        if "error" in l.lower():
            return l[:400]
    return (lines[0] if lines else "(no message)")[:400]


def check(model, telarc, telar_opt, timeout, keep):
    name = os.path.splitext(os.path.basename(model))[0]
    out = os.path.splitext(model)[0] + ".mlir"
    t0 = time.time()
    try:
        rc, _, err, _ = run([telarc, model, "--emit=mlir", "-o", out], timeout)
        if rc != 0:
            return False, f"FAIL {name} telarc (rc={rc}): {short(err)}"
        if not os.path.exists(out):
            return False, f"FAIL {name} telarc: exit 0 but no {out} written"
        with open(out, "rb") as f:
            ir = f.read()
        rc, ir2, err, _ = run([telar_opt, out], timeout)
        if rc != 0:
            return False, f"FAIL {name} telar-opt (rc={rc}): {short(err)}"
        rc, _, err, _ = run([telar_opt], timeout, stdin=ir2)
        if rc != 0:
            return False, f"FAIL {name} telar-opt|telar-opt (rc={rc}): {short(err)}"
        return True, (f"PASS {name} ({os.path.getsize(model) / 1e6:.1f} MB onnx, "
                      f"{len(ir) / 1e6:.1f} MB mlir, {time.time() - t0:.1f}s)")
    finally:
        if not keep and os.path.exists(out):
            os.unlink(out)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("dir", help="output dir of make_torch_models.py")
    ap.add_argument("--telarc", default="build/bin/telarc")
    ap.add_argument("--telar-opt", help="default: telar-opt next to telarc")
    ap.add_argument("--timeout", type=int, default=120, help="seconds per command")
    ap.add_argument("--only", default="", help="comma-separated model names")
    ap.add_argument("--keep", action="store_true", help="keep the .mlir files")
    a = ap.parse_args(argv)
    telar_opt = a.telar_opt or os.path.join(os.path.dirname(os.path.abspath(a.telarc)),
                                            "telar-opt")
    for tool in (a.telarc, telar_opt):
        if not os.access(tool, os.X_OK):
            print(f"check_models: not executable: {tool}", file=sys.stderr)
            return 2
    only = {n for n in a.only.split(",") if n}
    models = sorted(os.path.join(a.dir, f) for f in os.listdir(a.dir)
                    if f.endswith(".onnx") and (not only or f[:-5] in only))
    if not models:
        print(f"check_models: no .onnx files in {a.dir}", file=sys.stderr)
        return 2
    failed = 0
    for m in models:
        ok, line = check(m, a.telarc, telar_opt, a.timeout, a.keep)
        failed += not ok
        print(line, flush=True)
    print(f"check-models: {len(models) - failed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
