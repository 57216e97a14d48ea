"""Compares an artifact's outputs (telar-run --output-dir) with onnxruntime's:
python3 compare.py ARTIFACT OUT_DIR REFERENCE.npz NAME; prints PASS/FAIL NAME
(rtol = atol = 1e-4; 1e-2 for a NAME ending in _tf32, whose matrix
products round their inputs to TF32's 10-bit mantissa on a GPU; 5e-2 for
one ending in _bf16, whose weights and intermediate tensors are bfloat16).
python3 compare.py --inputs ARTIFACT IN_DIR prints telar-run's --input
arguments (NUL-separated) for the inputs run_models.py saved in IN_DIR."""
import json
import re
import sys

import numpy as np


def file_name(name):
    return re.sub(r"[^A-Za-z0-9._-]", "_", name)


if sys.argv[1] == "--inputs":
    artifact, in_dir = sys.argv[2:4]
    with open(f"{artifact}/manifest.json") as f:
        for i in json.load(f)["inputs"]:
            sys.stdout.write(f"--input\0{i['name']}={in_dir}/{file_name(i['name'])}.npy\0")
    sys.exit(0)

artifact, out_dir, reference, name = sys.argv[1:5]
with open(f"{artifact}/manifest.json") as f:
    outputs = [o["name"] for o in json.load(f)["outputs"]]
tol = 1e-2 if name.endswith("_tf32") else 5e-2 if name.endswith("_bf16") else 1e-4
worst = 0.0
with np.load(reference) as ref:
    for o in outputs:
        got = np.load(f"{out_dir}/{file_name(o)}.npy")
        want = ref[o]
        if got.shape != want.shape or not np.allclose(got, want, rtol=tol, atol=tol):
            err = np.max(np.abs(got.astype(np.float64) - want)) if got.shape == want.shape else "shape"
            print(f"FAIL {name}: output {o!r} differs from onnxruntime (max abs error {err})")
            sys.exit(1)
        if got.size:
            worst = max(worst, float(np.max(np.abs(got.astype(np.float64) - want))))
print(f"PASS {name} (max abs error vs onnxruntime {worst:.2e})")
