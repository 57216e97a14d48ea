"""Artifacts, inputs and checks for the runtime's lit tests.

The artifact wraps fake_program.so (a hand-written stand-in for a compiled
program, see fake_program.c) with a manifest and a safetensors file written
here independently of the C++ runtime:

  fixture.py artifact DIR --program SO [--variant NAME]
  fixture.py inputs DIR            x / flags as .npy and .pb, plus bad files
  fixture.py check OUT_DIR IN_DIR [--format npy|pb]
  fixture.py report FILE           checks a --report JSON
  fixture.py expect-exit N -- CMD...  runs CMD (stderr merged into stdout),
                                      fails unless it exits with N
"""

import argparse
import json
import os
import shutil
import struct
import subprocess
import sys

import numpy as np

W = (np.arange(6, dtype=np.float32) * 0.5).reshape(2, 3)
M = (np.arange(12, dtype=np.float32) / 4 - 1).reshape(3, 4)
X = np.array([[1.0, -2.0, 3.0], [-4.0, 5.0, 0.0]], dtype=np.float32)
FLAGS = np.array([3, -1, 40], dtype=np.int64)

OUTPUTS = ["sum", "out/prod:0", "positive", "total"]


def expected(x, flags, w=W, m=M):
    s = x + w
    return {"sum": s, "out/prod:0": s @ m, "positive": x > 0,
            "total": np.array(flags.sum(), dtype=np.int64)}


def safetensors_bytes(tensors):
    """The safetensors image, each tensor's data 64-byte aligned."""
    codes = {np.float32: "F32", np.float64: "F64", np.int64: "I64"}
    header, data, offset = {}, b"", 0
    for name, array in tensors:
        pad = (-offset) % 64
        data += b"\0" * pad
        offset += pad
        raw = np.ascontiguousarray(array).tobytes()
        header[name] = {"dtype": codes[array.dtype.type],
                        "shape": list(array.shape),
                        "data_offsets": [offset, offset + len(raw)]}
        data += raw
        offset += len(raw)
    text = json.dumps(header).encode()
    text += b" " * ((-(8 + len(text))) % 64)
    return struct.pack("<Q", len(text)) + text + data


def manifest():
    t = lambda name, dtype, shape: {"name": name, "dtype": dtype,
                                    "shape": shape}
    w = lambda name, dtype, shape: dict(t(name, dtype, shape),
                                        file="weights/weights.safetensors")
    return {
        "format": "telar-artifact",
        "format_version": 2,
        "telar_version": "0.1.0",
        "model": {"path": "fake.onnx", "sha256": "0" * 64},
        "target": {"kind": "cpu", "triple": "x86_64-unknown-linux-gnu",
                   "cpu": "generic", "features": ""},
        "programs": [{"name": "main", "library": "programs/main.so",
                      "entry": "telar_entry",
                      "weight_files": ["weights/weights.safetensors"]}],
        "inputs": [t("x", "float32", [2, 3]), t("flags", "int64", [3])],
        "outputs": [t("sum", "float32", [2, 3]),
                    t("out/prod:0", "float32", [2, 4]),
                    t("positive", "bool", [2, 3]), t("total", "int64", [])],
        "weights": [w("w", "float32", [2, 3]), w("m", "float32", [3, 4])],
    }


VARIANTS = ["ok", "version1", "bad-format", "bad-json", "missing-inputs",
            "bad-dtype", "no-program", "no-weights", "weight-shape",
            "weight-missing", "truncated-weights", "bad-header-json",
            "bad-entry", "escaping-path", "eq-name", "two-programs",
            "bad-weight-file"]


def write_artifact(out, program, variant):
    shutil.rmtree(out, ignore_errors=True)
    os.makedirs(os.path.join(out, "programs"))
    os.makedirs(os.path.join(out, "weights"))
    m = manifest()
    tensors = [("w", W), ("m", M)]
    if variant == "version1":
        m["format_version"] = 1
    elif variant == "bad-format":
        m["format"] = "something-else"
    elif variant == "missing-inputs":
        del m["inputs"]
    elif variant == "bad-dtype":
        m["outputs"][0]["dtype"] = "float31"
    elif variant == "weight-shape":
        tensors[1] = ("m", M.reshape(4, 3))
    elif variant == "weight-missing":
        tensors = tensors[:1]
    elif variant == "bad-entry":
        m["programs"][0]["entry"] = "no_such_entry"
    elif variant == "eq-name":
        m["inputs"][1]["name"] = "flags=1"
    elif variant == "escaping-path":
        m["programs"][0]["library"] = "../main.so"
    elif variant == "two-programs":
        # "main" and "bad" (the matmul with mismatched shapes), in another
        # library; a third program reads no weights and its library is
        # missing, which only matters when it is chosen.
        m["programs"].append({"name": "bad", "library": "programs/bad.so",
                              "entry": "telar_entry_bad_matmul",
                              "weight_files": ["weights/weights.safetensors"]})
        m["programs"].append({"name": "gone", "library": "programs/gone.so",
                              "entry": "telar_entry", "weight_files": []})
    elif variant == "bad-weight-file":
        m["programs"][0]["weight_files"] = ["weights/other.safetensors"]
    if variant != "no-program":
        shutil.copy(program, os.path.join(out, "programs", "main.so"))
    if variant == "two-programs":
        shutil.copy(program, os.path.join(out, "programs", "bad.so"))
    st = safetensors_bytes(tensors)
    if variant == "truncated-weights":
        st = st[:-10]
    elif variant == "bad-header-json":
        st = st[:8] + b"[" + st[9:]
    if variant != "no-weights":
        with open(os.path.join(out, "weights", "weights.safetensors"),
                  "wb") as f:
            f.write(st)
    text = json.dumps(m, indent=2)
    if variant == "bad-json":
        text = text[:-5]
    with open(os.path.join(out, "manifest.json"), "w") as f:
        f.write(text)


def write_inputs(out):
    from onnx import numpy_helper
    os.makedirs(out, exist_ok=True)
    save = lambda name, a: np.save(os.path.join(out, name), a)
    save("x.npy", X)
    save("flags.npy", FLAGS)
    save("x_t.npy", X.T.copy())
    save("x_f64.npy", X.astype(np.float64))
    np.save(os.path.join(out, "x_fortran.npy"), np.asfortranarray(X))
    for name, a in [("x", X), ("flags", FLAGS)]:
        with open(os.path.join(out, name + ".pb"), "wb") as f:
            f.write(numpy_helper.from_array(a, name).SerializeToString())
    with open(os.path.join(out, "corrupt.npy"), "wb") as f:
        f.write(b"\x93NUMPY\x01\x00\x10\x00{'descr': '<f4'")
    with open(os.path.join(out, "corrupt.pb"), "wb") as f:
        f.write(b"\xff\xff\xff\xff garbage")
    with open(os.path.join(out, "x.txt"), "w") as f:
        f.write("1 2 3\n")


def load_output(path):
    if path.endswith(".pb"):
        import onnx
        from onnx import numpy_helper
        t = onnx.TensorProto()
        with open(path, "rb") as f:
            t.ParseFromString(f.read())
        return t.name, numpy_helper.to_array(t)
    return None, np.load(path)


def check(out, inputs, fmt):
    x = np.load(os.path.join(inputs, "x.npy"))
    flags = np.load(os.path.join(inputs, "flags.npy"))
    for name, want in expected(x, flags).items():
        file = "".join(c if c.isalnum() or c in "._-" else "_" for c in name)
        stored, got = load_output(os.path.join(out, file + "." + fmt))
        if stored is not None and stored != name:
            sys.exit(f"{file}: TensorProto name is {stored!r}, not {name!r}")
        if got.dtype != want.dtype or got.shape != want.shape:
            sys.exit(f"{name}: got {got.dtype}{list(got.shape)}, expected "
                     f"{want.dtype}{list(want.shape)}")
        if not np.allclose(got, want, rtol=1e-6, atol=1e-6):
            sys.exit(f"{name}: got {got}, expected {want}")
        print(f"{name}: ok")


def check_report(path):
    with open(path) as f:
        r = json.load(f)
    keys = ["latency_ms", "iterations", "threads", "peak_intermediate_bytes",
            "weights_bytes", "io_bytes", "peak_rss_bytes"]
    for k in keys:
        if k not in r:
            sys.exit(f"report lacks {k!r}")
    lat = r["latency_ms"]
    assert set(lat) >= {"mean", "p50", "p90", "min"}, lat
    assert lat["min"] <= lat["p50"] <= lat["p90"], lat
    assert r["peak_rss_bytes"] > 0
    for k in keys[1:-1]:
        print(f"{k}: {r[k]}")


def expect_exit(code, cmd):
    r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    sys.stdout.write(r.stdout.decode(errors="replace"))
    if r.returncode != code:
        sys.exit(f"expected exit code {code}, got {r.returncode}")


def main():
    if len(sys.argv) > 3 and sys.argv[1] == "expect-exit" and \
            sys.argv[3] == "--":
        return expect_exit(int(sys.argv[2]), sys.argv[4:])
    p = argparse.ArgumentParser()
    sub = p.add_subparsers(dest="cmd", required=True)
    a = sub.add_parser("artifact")
    a.add_argument("out")
    a.add_argument("--program", required=True)
    a.add_argument("--variant", default="ok", choices=VARIANTS)
    i = sub.add_parser("inputs")
    i.add_argument("out")
    c = sub.add_parser("check")
    c.add_argument("out")
    c.add_argument("inputs")
    c.add_argument("--format", default="npy")
    r = sub.add_parser("report")
    r.add_argument("file")
    args = p.parse_args()
    if args.cmd == "artifact":
        write_artifact(args.out, args.program, args.variant)
    elif args.cmd == "inputs":
        write_inputs(args.out)
    elif args.cmd == "check":
        check(args.out, args.inputs, args.format)
    else:
        check_report(args.file)


if __name__ == "__main__":
    main()
