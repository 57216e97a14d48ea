"""Artifacts, inputs and checks for the runtime's lit tests.

The artifact wraps fake_program.so (a hand-written stand-in for a compiled
program, see fake_program.c) with a manifest and a safetensors file written
here independently of the C++ runtime:

  fixture.py artifact DIR --program SO [--variant NAME]
  fixture.py inputs DIR            x / flags as .npy and .pb, plus bad files
  fixture.py check OUT_DIR IN_DIR [--format npy|pb]
  fixture.py report FILE           checks a --report JSON
  fixture.py spmd-artifact DIR --program SO [--variant NAME]
                                   a version-3 artifact of 4 ranks around
                                   fake_spmd_program.so (a 2x2 mesh)
  fixture.py spmd-inputs DIR       its global input x (and a bad one)
  fixture.py spmd-check OUT_DIR IN_DIR   its assembled outputs vs numpy
  fixture.py spmd-report FILE      a multi-rank --report's collectives
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


# The SPMD program of fake_spmd_program.c: mesh data=2, model=2.
SPMD_X = (np.arange(32, dtype=np.float32) * 0.25 - 3).reshape(8, 4)
SPMD_W = (np.arange(32, dtype=np.float32) % 7 - 2).reshape(4, 8)
SPMD_B = np.array([10, 20, 30, 40], dtype=np.float32)
SPMD_VARIANTS = ["ok", "missing-shard", "world-size", "shard-shape",
                 "bad-axes"]


def spmd_manifest():
    t = lambda name, shape, sharding=None: dict(
        {"name": name, "dtype": "float32", "shape": shape},
        **({"sharding": sharding} if sharding is not None else {}))
    return {
        "format": "telar-artifact",
        "format_version": 3,
        "telar_version": "0.1.0",
        "model": {"path": "fake.onnx", "sha256": "0" * 64},
        "target": {"kind": "cpu", "triple": "x86_64-unknown-linux-gnu",
                   "cpu": "generic", "features": ""},
        "mesh": {"axes": ["data", "model"], "shape": [2, 2]},
        "world_size": 4,
        "programs": [{"name": "main", "library": "programs/main.so",
                      "entry": "telar_entry",
                      "weight_files": ["weights/weights.safetensors",
                                       "weights/shard-{rank}.safetensors"]}],
        "inputs": [t("x", [8, 4], [["data"], []])],
        "outputs": [t("y", [8, 8], [["data"], ["model"]]),
                    t("rows", [8, 8], [["data"], []]),
                    t("total", [4]), t("xmax", []),
                    t("scattered", [8, 4], [["data"], ["model"]]),
                    t("yt", [8, 8], [["data", "model"], []])],
        "weights": [dict(t("b", [4]), file="weights/weights.safetensors"),
                    dict(t("w", [4, 4], [[], ["model"]]),
                         global_shape=[4, 8],
                         file="weights/shard-{rank}.safetensors")],
    }


def write_spmd_artifact(out, program, variant):
    shutil.rmtree(out, ignore_errors=True)
    os.makedirs(os.path.join(out, "programs"))
    os.makedirs(os.path.join(out, "weights"))
    m = spmd_manifest()
    if variant == "world-size":
        m["world_size"] = 2
    elif variant == "bad-axes":
        m["programs"][0]["entry"] = "telar_entry_bad_axes"
    shutil.copy(program, os.path.join(out, "programs", "main.so"))
    with open(os.path.join(out, "weights", "weights.safetensors"), "wb") as f:
        f.write(safetensors_bytes([("b", SPMD_B)]))
    for rank in range(4):
        if variant == "missing-shard" and rank == 3:
            continue
        model = rank % 2
        block = SPMD_W[:, model * 4:(model + 1) * 4]
        if variant == "shard-shape" and rank == 1:
            block = SPMD_W[:, :6]
        with open(os.path.join(out, "weights", f"shard-{rank}.safetensors"),
                  "wb") as f:
            f.write(safetensors_bytes([("w", block)]))
    with open(os.path.join(out, "manifest.json"), "w") as f:
        f.write(json.dumps(m, indent=2))


def write_spmd_inputs(out):
    os.makedirs(out, exist_ok=True)
    np.save(os.path.join(out, "x.npy"), SPMD_X)
    np.save(os.path.join(out, "x_small.npy"), SPMD_X[:6])


def spmd_check(out, inputs):
    x = np.load(os.path.join(inputs, "x.npy"))
    y = x @ SPMD_W
    want = {"y": y, "rows": y, "total": x.sum(axis=0) + SPMD_B,
            "xmax": np.array(x.max(), dtype=np.float32),
            "scattered": 3 * x, "yt": y}
    for name, w in want.items():
        got = np.load(os.path.join(out, name + ".npy"))
        if got.dtype != w.dtype or got.shape != w.shape:
            sys.exit(f"{name}: got {got.dtype}{list(got.shape)}, expected "
                     f"{w.dtype}{list(w.shape)}")
        if not np.allclose(got, w, rtol=1e-6, atol=1e-6):
            sys.exit(f"{name}: got {got}, expected {w}")
        print(f"{name}: ok")


def spmd_report(path):
    with open(path) as f:
        r = json.load(f)
    assert r["world_size"] == 4, r
    assert r["mesh"] == {"data": 2, "model": 2}, r["mesh"]
    assert [k["rank"] for k in r["ranks"]] == [0, 1, 2, 3], r["ranks"]
    for k in r["ranks"]:
        assert k["collective_calls_per_run"] == 6, k
        assert 0 < k["collective_ms_per_run"] <= k["latency_mean_ms"], k
    for c in r["collectives"]:
        print(f"{c['axes']}: {c['calls_per_run']:g} calls, "
              f"{c['bytes_sent_per_run_max_rank']} bytes per rank, "
              f"{c['bytes_sent_per_run_all_ranks']} in all")


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
    sa = sub.add_parser("spmd-artifact")
    sa.add_argument("out")
    sa.add_argument("--program", required=True)
    sa.add_argument("--variant", default="ok", choices=SPMD_VARIANTS)
    si = sub.add_parser("spmd-inputs")
    si.add_argument("out")
    sc = sub.add_parser("spmd-check")
    sc.add_argument("out")
    sc.add_argument("inputs")
    sr = sub.add_parser("spmd-report")
    sr.add_argument("file")
    args = p.parse_args()
    if args.cmd == "artifact":
        write_artifact(args.out, args.program, args.variant)
    elif args.cmd == "inputs":
        write_inputs(args.out)
    elif args.cmd == "check":
        check(args.out, args.inputs, args.format)
    elif args.cmd == "spmd-artifact":
        write_spmd_artifact(args.out, args.program, args.variant)
    elif args.cmd == "spmd-inputs":
        write_spmd_inputs(args.out)
    elif args.cmd == "spmd-check":
        spmd_check(args.out, args.inputs)
    elif args.cmd == "spmd-report":
        spmd_report(args.file)
    else:
        check_report(args.file)


if __name__ == "__main__":
    main()
