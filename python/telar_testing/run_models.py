#!/usr/bin/env python3
"""Compile the test models (for the CPU, or the CUDA target emulated), run them with telar-run and compare with onnxruntime.

Usage:
    .venv/bin/python python/telar_testing/run_models.py --make build/models
    .venv/bin/python python/telar_testing/run_models.py build/models [--only gpt,llama]
        [--telarc build/bin/telarc] [--telar-run PATH] [--rtol 1e-4] [--atol 1e-4]
        [--threads N] [--jobs 1] [--timeout 600] [--size small|mini|bench] [--keep] [-v]
        [--target cpu|cuda] [--gpu sm_90] [--dtype fp32|tf32|bf16]

DIR (positional, or --make DIR to build the models there first with make_models.py
at --size) holds NAME.onnx, NAME.inputs.npz and, when present, NAME.ort_outputs.npz
(onnxruntime's outputs; computed here when missing) and NAME.outputs.npz (torch's or
the numpy reference's outputs). For each model (all of DIR's *.onnx with an
.inputs.npz, or --only):

    telarc NAME.onnx -o DIR/NAME.artifact --target cpu -q
    telar-run DIR/NAME.artifact --input X=DIR/NAME.in/X.npy ... \\
        --output-dir DIR/NAME.out --threads N --report DIR/NAME.report.json -q

(with --target cuda: `telarc ... --target cuda --gpu GPU --dtype DTYPE
--emulation` and `telar-run ... --emulate`: the GPU kernels, emulated on the
CPU; compare --dtype bf16 at bfloat16's tolerances, e.g. --rtol 5e-2
--atol 5e-2)

and every output (DIR/NAME.out/<name, chars outside [A-Za-z0-9._-] -> '_'>.npy)
is compared with onnxruntime's and, where present, with the framework's by
tensor_compare.compare: same shape and dtype, and |telar - ref| <= atol + rtol *
|ref| elementwise for floats (NaN only equal to NaN, an infinity only to the same
infinity), exact equality for integers and bools. Prints one line per model (PASS/FAIL, seconds) and a table: model,
compile s, run s, output, max abs err and relative err (max |d| / max |ref|,
norm-wise: elementwise ratios near zeros of the reference mean little) against
onnxruntime and the framework, telar-run's peak intermediate MB, status.
Last line: `run-models: N passed, N failed`. Exit 1 when any model fails to
compile, run or match; 2 on usage errors (tools missing).

The artifacts, inputs and outputs are removed unless --keep.
"""

from __future__ import annotations

import argparse
import concurrent.futures as cf
import json
import os
import re
import shutil
import subprocess
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from tensor_compare import compare  # noqa: E402


def target_flags(a):
    """telarc's flags for --target: the CUDA target's kernels emulated on the
    CPU (run with telar-run --emulate), for --gpu and --dtype."""
    if a.target != "cuda":
        return []
    return ["--gpu", a.gpu, "--dtype", a.dtype, "--emulation"]


def kernel_resources(art):
    """The CUDA artifact's kernels and ptxas's report of them
    (programs/*.kernels/ptxas.txt): {"kernels": N, "max_registers": R,
    "spill_bytes": S (stores + loads, all kernels), "ptxas": whether ptxas
    ran}."""
    kernels, regs, spills, assembled = 0, 0, 0, False
    programs = os.path.join(art, "programs")
    for d in sorted(os.listdir(programs)):
        if not d.endswith(".kernels"):
            continue
        kdir = os.path.join(programs, d)
        for f in os.listdir(kdir):
            if f.endswith(".ptx"):
                with open(os.path.join(kdir, f)) as ptx:
                    kernels += len(re.findall(r"^\.visible \.entry ",
                                              ptx.read(), re.M))
        report = os.path.join(kdir, "ptxas.txt")
        text = open(report).read() if os.path.exists(report) else ""
        assembled = assembled or "ptxas info" in text
        for m in re.finditer(r"Used (\d+) registers", text):
            regs = max(regs, int(m.group(1)))
        for m in re.finditer(r"(\d+) bytes spill (?:stores|loads)", text):
            spills += int(m.group(1))
    return {"kernels": kernels, "max_registers": regs, "spill_bytes": spills,
            "ptxas": assembled}


def output_file_name(name):
    """The file telar-run writes for output `name` (without the extension)."""
    return re.sub(r"[^A-Za-z0-9._-]", "_", name)


def first_error_line(text):
    lines = [l.strip() for l in text.splitlines() if l.strip()]
    for l in lines:
        if "error" in l.lower():
            return l[:400]
    return (lines[-1] if lines else "(no message)")[:400]


def run_cmd(cmd, timeout):
    t0 = time.time()
    try:
        p = subprocess.run(cmd, capture_output=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return None, f"timed out after {timeout}s", time.time() - t0
    err = p.stderr.decode("utf-8", "replace") + p.stdout.decode("utf-8", "replace")
    if p.returncode < 0:
        err = f"killed by signal {-p.returncode}\n" + err
    return p.returncode, err, time.time() - t0


def print_markdown_table(hdr, rows):
    """Prints a Markdown table with the columns padded to their widest cell."""
    widths = [max(len(h), *(len(row[j]) for row in rows)) for j, h in enumerate(hdr)]
    line = lambda cells: "| " + " | ".join(c.ljust(w) for c, w in zip(cells, widths)) + " |"
    print(line(hdr))
    print("|" + "|".join("-" * (w + 2) for w in widths) + "|")
    for row in rows:
        print(line(row))


def ort_outputs(model_dir, name, inputs):
    path = os.path.join(model_dir, f"{name}.ort_outputs.npz")
    if os.path.exists(path):
        with np.load(path) as z:
            return {k: z[k] for k in z.files}
    from make_models import run_ort
    out = run_ort(os.path.join(model_dir, f"{name}.onnx"), inputs)
    np.savez(path, **out)
    return out


def check_model(name, a):
    """Compiles, runs and compares one model; returns a result dict."""
    d = a.dir
    res = {"name": name, "ok": False, "stage": None, "message": "", "compile_s": None,
           "run_s": None, "outputs": [], "peak_mb": None, "kernels": None}
    art = os.path.join(d, f"{name}.artifact")
    in_dir = os.path.join(d, f"{name}.in")
    out_dir = os.path.join(d, f"{name}.out")
    report = os.path.join(d, f"{name}.report.json")
    try:
        for p in (art, in_dir, out_dir):
            shutil.rmtree(p, ignore_errors=True)
        with np.load(os.path.join(d, f"{name}.inputs.npz")) as z:
            inputs = {k: z[k] for k in z.files}
        refs = {"ort": ort_outputs(d, name, inputs)}
        fw = os.path.join(d, f"{name}.outputs.npz")
        if os.path.exists(fw):
            with np.load(fw) as z:
                refs["framework"] = {k: z[k] for k in z.files}

        rc, err, secs = run_cmd([a.telarc, os.path.join(d, f"{name}.onnx"), "-o", art,
                                 "--target", a.target, "-q"] + target_flags(a), a.timeout)
        res["compile_s"] = secs
        if rc != 0:
            res.update(stage="telarc", message=f"rc={rc}: {first_error_line(err)}")
            return res
        with open(os.path.join(art, "manifest.json")) as f:
            manifest = json.load(f)
        if a.target == "cuda":
            res["kernels"] = kernel_resources(art)
            if res["kernels"]["spill_bytes"]:
                res.update(stage="ptxas", message=f"kernels spill: {res['kernels']}")
                return res

        os.makedirs(in_dir)
        cmd = [a.telar_run, art, "--output-dir", out_dir, "--report", report, "-q"]
        if a.target == "cuda":
            cmd.append("--emulate")
        if a.threads:
            cmd += ["--threads", str(a.threads)]
        for inp in manifest["inputs"]:
            if inp["name"] not in inputs:
                res.update(stage="inputs", message=f"no data for input {inp['name']!r}")
                return res
            p = os.path.join(in_dir, output_file_name(inp["name"]) + ".npy")
            np.save(p, inputs[inp["name"]])
            cmd += ["--input", f"{inp['name']}={p}"]
        rc, err, secs = run_cmd(cmd, a.timeout)
        res["run_s"] = secs
        if rc != 0:
            res.update(stage="telar-run", message=f"rc={rc}: {first_error_line(err)}")
            return res
        try:
            with open(report) as f:
                res["peak_mb"] = json.load(f).get("peak_intermediate_bytes", 0) / 1e6
        except (OSError, ValueError, TypeError):
            pass

        problems = []
        for out in manifest["outputs"]:
            oname = out["name"]
            path = os.path.join(out_dir, output_file_name(oname) + ".npy")
            if not os.path.exists(path):
                problems.append(f"{oname}: telar-run wrote no {os.path.basename(path)}")
                continue
            got = np.load(path)
            row = {"output": oname, "shape": list(got.shape)}
            for kind, ref in refs.items():
                if oname not in ref:
                    continue
                ok, mabs, mrel, msg = compare(got, ref[oname], a.rtol, a.atol)
                row[kind] = {"ok": ok, "max_abs": mabs, "max_rel": mrel}
                if not ok:
                    problems.append(f"{oname} vs {kind}: {msg}")
            if "ort" not in row:
                problems.append(f"{oname}: onnxruntime has no such output")
            res["outputs"].append(row)
        missing = set(refs["ort"]) - {o["name"] for o in manifest["outputs"]}
        if missing:
            problems.append(f"manifest lacks outputs {sorted(missing)}")
        if problems:
            res.update(stage="compare", message="; ".join(problems))
            return res
        res["ok"] = True
        return res
    except Exception as e:  # a broken artifact must not stop the other models
        res.update(stage=res["stage"] or "checker", message=f"{type(e).__name__}: {e}")
        return res
    finally:
        if not a.keep:
            for p in (art, in_dir, out_dir):
                shutil.rmtree(p, ignore_errors=True)
            if os.path.exists(report):
                os.unlink(report)


def fmt(x, spec):
    return "-" if x is None else format(x, spec)


def print_table(results):
    hdr = ["model", "compile s", "run s", "output", "ort max abs", "ort rel",
           "ref max abs", "ref rel", "peak MB", "status"]
    rows = []
    for r in results:
        outs = r["outputs"] or [{"output": "-"}]
        for i, o in enumerate(outs):
            ort, fw = o.get("ort", {}), o.get("framework", {})
            rows.append([
                r["name"] if i == 0 else "",
                fmt(r["compile_s"], ".1f") if i == 0 else "",
                fmt(r["run_s"], ".2f") if i == 0 else "",
                o["output"],
                fmt(ort.get("max_abs"), ".2e"), fmt(ort.get("max_rel"), ".2e"),
                fmt(fw.get("max_abs"), ".2e"), fmt(fw.get("max_rel"), ".2e"),
                fmt(r["peak_mb"], ".2f") if i == 0 else "",
                ("PASS" if r["ok"] else f"FAIL ({r['stage']})") if i == 0 else "",
            ])
    print_markdown_table(hdr, rows)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("dir", nargs="?", help="dir with NAME.onnx / NAME.inputs.npz")
    ap.add_argument("--make", metavar="DIR", help="build the models into DIR first")
    ap.add_argument("--size", choices=("small", "mini", "bench"), default="small",
                    help="model size for --make (default small)")
    ap.add_argument("--only", default="", help="comma-separated model names")
    ap.add_argument("--telarc", default="build/bin/telarc")
    ap.add_argument("--target", choices=("cpu", "cuda"), default="cpu",
                    help="cuda: telarc --target cuda --gpu GPU --emulation, run with "
                         "telar-run --emulate (the GPU kernels on the CPU)")
    ap.add_argument("--gpu", default="sm_90", help="with --target cuda (default sm_90)")
    ap.add_argument("--dtype", default="fp32", choices=("fp32", "tf32", "bf16"),
                    help="with --target cuda: telarc's --dtype (default fp32)")
    ap.add_argument("--telar-run", help="default: telar-run next to telarc")
    ap.add_argument("--rtol", type=float, default=1e-4)
    ap.add_argument("--atol", type=float, default=1e-4)
    ap.add_argument("--threads", type=int, default=0,
                    help="telar-run --threads (default: telar-run's default)")
    ap.add_argument("--jobs", "-j", type=int, default=1, help="models checked in parallel")
    ap.add_argument("--timeout", type=int, default=600, help="seconds per command")
    ap.add_argument("--keep", action="store_true", help="keep artifacts and outputs")
    ap.add_argument("--json", help="write the per-model results here")
    ap.add_argument("-v", "--verbose", action="store_true")
    a = ap.parse_args(argv)
    if bool(a.dir) == bool(a.make):
        ap.error("give a model dir or --make DIR (one of them)")
    a.dir = a.dir or a.make
    a.telarc = shutil.which(a.telarc) or a.telarc
    a.telar_run = a.telar_run or os.path.join(os.path.dirname(os.path.abspath(a.telarc)),
                                              "telar-run")
    for tool in (a.telarc, a.telar_run):
        if not os.access(tool, os.X_OK):
            print(f"run_models: not executable: {tool}", file=sys.stderr)
            return 2
    only = [n for n in a.only.split(",") if n]
    if a.make:
        import make_models
        names = only or make_models.all_model_names()
        t0 = time.time()
        if make_models.make(names, a.dir, a.size, check=True, log=lambda s: None):
            print("run_models: building the models failed", file=sys.stderr)
            return 1
        print(f"built {len(names)} models ({a.size}) in {time.time() - t0:.1f}s", flush=True)
    else:
        names = only or sorted(f[:-5] for f in os.listdir(a.dir) if f.endswith(".onnx")
                               and os.path.exists(os.path.join(a.dir, f[:-5] + ".inputs.npz")))
    if not names:
        print(f"run_models: no models in {a.dir}", file=sys.stderr)
        return 2

    t0 = time.time()
    results = {}
    with cf.ThreadPoolExecutor(max_workers=max(1, a.jobs)) as pool:
        futs = {pool.submit(check_model, n, a): n for n in names}
        for fut in cf.as_completed(futs):
            r = fut.result()
            results[r["name"]] = r
            total = sum(x or 0 for x in (r["compile_s"], r["run_s"]))
            if r["ok"]:
                k = r.get("kernels")
                extra = (f"; {k['kernels']} kernels, at most {k['max_registers']} registers, "
                         f"{k['spill_bytes']} bytes spilled" if k and k["ptxas"] else
                         f"; {k['kernels']} kernels, no ptxas" if k else "")
                print(f"PASS {r['name']} ({total:.1f}s{extra})", flush=True)
            else:
                print(f"FAIL {r['name']} {r['stage']}: {r['message']}", flush=True)
    ordered = [results[n] for n in names]
    print()
    print_table(ordered)
    if a.json:
        with open(a.json, "w") as f:
            json.dump(ordered, f, indent=1)
    failed = sum(not r["ok"] for r in ordered)
    print(f"\nrtol {a.rtol:g}, atol {a.atol:g}; {time.time() - t0:.1f}s")
    print(f"run-models: {len(ordered) - failed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
