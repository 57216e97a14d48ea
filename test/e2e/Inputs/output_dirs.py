"""The .npy files of test runs: inputs out of an .npz, output directories compared.

Usage:
    output_dirs.py split NPZ DIR            writes DIR/NAME.npy per array of NPZ
    output_dirs.py compare GOT REF [--rtol R] [--atol A]
        compares every GOT/*.npy with REF/*.npy (tensor_compare.compare, the
        one comparison of the checkers); prints "NAME: ok" or
        "NAME: MESSAGE" per file of REF, and exits 1 on any difference or
        a file missing from GOT.
"""
import argparse
import os
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "..", "..", "python", "telar_testing"))
from tensor_compare import compare  # noqa: E402

ap = argparse.ArgumentParser()
sub = ap.add_subparsers(dest="cmd", required=True)
s = sub.add_parser("split")
s.add_argument("npz")
s.add_argument("dir")
c = sub.add_parser("compare")
c.add_argument("got")
c.add_argument("ref")
c.add_argument("--rtol", type=float, default=0.0)
c.add_argument("--atol", type=float, default=0.0)
a = ap.parse_args()

if a.cmd == "split":
    os.makedirs(a.dir, exist_ok=True)
    with np.load(a.npz) as arrays:
        for name in arrays:
            np.save(os.path.join(a.dir, name + ".npy"), arrays[name])
    sys.exit(0)

bad = 0
names = sorted(f for f in os.listdir(a.ref) if f.endswith(".npy"))
if not names:
    print(f"no .npy files in {a.ref}")
    sys.exit(1)
for f in names:
    name = f[:-4]
    path = os.path.join(a.got, f)
    if not os.path.exists(path):
        print(f"{name}: missing from {a.got}")
        bad += 1
        continue
    r = compare(np.load(path), np.load(os.path.join(a.ref, f)), a.rtol, a.atol)
    print(f"{name}: " + ("ok" if r.ok else r.message))
    bad += not r.ok
sys.exit(1 if bad else 0)
