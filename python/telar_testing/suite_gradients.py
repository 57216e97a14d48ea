#!/usr/bin/env python3
"""Every model of the end-to-end suite trains: its gradients against onnxruntime's directional derivatives.

Usage:
    .venv/bin/python python/telar_testing/suite_gradients.py DIR [--only gpt,llama]
        [--telarc build/bin/telarc] [--telar-run PATH] [--out WORK] [--tol 1e-2]
        [--timeout 600] [-v]

DIR holds the suite's NAME.onnx and NAME.inputs.npz (run_models.py --make DIR
builds them). The suite's models have no loss, so each gets one: its float
outputs y_i summed as

    loss = Sum_i ReduceSum(y_i * R_i)      (R_i fixed, uniform in [0.5, 1.5])

with the R_i frozen. Every other float initializer is a parameter. One SGD
step with lr 1 (no momentum, no weight decay) gives the gradient g = P0 - P1
of every parameter:

    telarc WORK/NAME.loss.onnx --train --loss loss --optimizer sgd --lr 1
        --momentum 0 --weight-decay 0 --freeze R0,... --target cpu -o WORK/NAME.art -q
    telar-run WORK/NAME.art --train --steps 1 --input X=... --save-weights WORK/NAME.safetensors -q

Exact finite differences of so large a float32 model are out of reach, so
the check is directional: along each parameter's own gradient g_P / |g_P|
(the other parameters still) and along one seeded random direction over all
parameters, onnxruntime's central difference (L(P0 + h d) - L(P0 - h d)) /
2h, in float32 with graph optimisations off, must equal <g, d> within
tol * |g_P| (|g| for the random direction; tol default 5e-3) plus the
difference's rounding, 16 float32 ulps of the loss over 2h, for h = 1e-3 or,
failing that, 3e-4 or 1e-4 (the difference's rounding grows as h shrinks, its
error where ReLUs and max pools switch shrinks: resnet18 needs the smaller
step, BERT's token-type embedding the larger): a VJP that
is wrong anywhere the loss depends on moves it by much more (a wrong sign,
a missing transpose, a dropped term, a bias gradient 1% off), while fp32
rounding of g = P0 - P1 stays well inside. (The difference's own error is
O(h) where ReLUs and max pools switch: resnet18's along its whole gradient
is 2e-2 at h = 1e-2, 1.8e-3 at 1e-3, 5.7e-4 at 3e-4; along one 3x3 conv's,
1.3e-2 at 1e-3, 3e-3 at 3e-4.)

Single-element float initializers (Pow's exponent, a scale) are frozen as
well: they are constants of the model, and the exponent's gradient y log(x)
is NaN for a negative base, as in PyTorch. Initializers holding infinities
(additive masks) telarc freezes itself. telar-run's step loss must
be onnxruntime's loss at P0 (rtol 1e-4).

Prints per model: PASS/FAIL/ERROR, the parameter count, |g|, the worst
directional error as a fraction of its tolerance (and where), the compile
and run seconds. Exit 1 when any model
FAILs, else 2 when a tool failed, else 0.
"""

from __future__ import annotations

import argparse
import os
import shlex
import shutil
import sys
import time

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from run_models import first_error_line  # noqa: E402
from runner import kill_commands_on_exit, run_cmd  # noqa: E402
from train_io import parse_step_lines, read_safetensors  # noqa: E402

STEPS = (1e-3, 3e-4, 1e-4)  # finite-difference steps, each tried when the last fails
FLOATS = {TensorProto.FLOAT, TensorProto.DOUBLE, TensorProto.FLOAT16, TensorProto.BFLOAT16}


def add_loss(src, dst):
    """Writes `src` with the loss output; returns (the initializers to
    freeze: the R_i and the single-element ones, the float initializers)."""
    m = onnx.load(src)
    g = m.graph
    params = [i.name for i in g.initializer if i.data_type in FLOATS]
    rng = np.random.default_rng(0)
    nodes, sums = [], []
    frozen = [i.name for i in g.initializer
              if i.data_type in FLOATS and int(np.prod(i.dims)) == 1]
    for i, o in enumerate(g.output):
        t = o.type.tensor_type
        if t.elem_type != TensorProto.FLOAT:
            continue
        shape = [d.dim_value for d in t.shape.dim]
        r = f"R{i}"
        g.initializer.append(numpy_helper.from_array(
            rng.uniform(0.5, 1.5, shape).astype(np.float32), r))
        frozen.append(r)
        nodes += [helper.make_node("Mul", [o.name, r], [f"loss_m{i}"]),
                  helper.make_node("ReduceSum", [f"loss_m{i}"], [f"loss_s{i}"], keepdims=0)]
        sums.append(f"loss_s{i}")
    if not sums:
        raise RuntimeError(f"{src}: no float32 output to make a loss of")
    nodes.append(helper.make_node("Sum", sums, ["loss"]))
    g.node.extend(nodes)
    del g.output[:]
    g.output.append(helper.make_tensor_value_info("loss", TensorProto.FLOAT, []))
    onnx.save(m, dst)
    return frozen, params


class Loss:
    """loss(params) by onnxruntime (float32, optimisations off) with the
    parameters replaced."""

    def __init__(self, path, inputs, params):
        import onnxruntime as ort
        m = onnx.load(path)
        self.base = {i.name: numpy_helper.to_array(i) for i in m.graph.initializer
                     if i.name in params}
        # The parameters as graph inputs, so one session evaluates them all.
        keep = [i for i in m.graph.initializer if i.name not in params]
        for i in m.graph.initializer:
            if i.name in params:
                m.graph.input.append(helper.make_tensor_value_info(
                    i.name, i.data_type, list(i.dims)))
        del m.graph.initializer[:]
        m.graph.initializer.extend(keep)
        so = ort.SessionOptions()
        so.log_severity_level = 3
        so.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
        so.intra_op_num_threads = 1  # the same sums on every machine
        self.sess = ort.InferenceSession(m.SerializeToString(), so,
                                         providers=["CPUExecutionProvider"])
        self.inputs = inputs

    def __call__(self, delta=None, h=0.0):
        feeds = dict(self.inputs)
        for n, v in self.base.items():
            d = delta.get(n) if delta else None
            feeds[n] = v if d is None else (v + h * d).astype(v.dtype)
        return float(self.sess.run(["loss"], feeds)[0])


def check_model(name, a):
    t0 = time.time()
    work = os.path.join(a.out, name)
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    model = os.path.join(work, "loss.onnx")
    frozen, params = add_loss(os.path.join(a.dir, f"{name}.onnx"), model)
    inputs = dict(np.load(os.path.join(a.dir, f"{name}.inputs.npz")))
    cmd = [a.telarc, model, "--train", "--loss", "loss", "--optimizer", "sgd", "--lr", "1",
           "--momentum", "0", "--weight-decay", "0", "--freeze", ",".join(frozen),
           "--target", "cpu", "-o", os.path.join(work, "art"), "-q"]
    if a.verbose:
        print("  $ " + shlex.join(cmd), flush=True)
    rc, text, _, compile_s = run_cmd(cmd, a.timeout)
    if rc != 0:
        return "ERROR", f"telarc rc={rc}: {first_error_line(text)}", text
    run = [a.telar_run, os.path.join(work, "art"), "--train", "--steps", "1",
           "--save-weights", os.path.join(work, "trained.safetensors"), "--threads", "1", "-q"]
    for n, v in inputs.items():
        p = os.path.join(work, f"{n}.npy")
        np.save(p, v[None])
        run += ["--input", f"{n}={p}"]
    if a.verbose:
        print("  $ " + shlex.join(run), flush=True)
    rc, text, stdout, run_s = run_cmd(run, a.timeout)
    if rc != 0:
        return "ERROR", f"telar-run rc={rc}: {first_error_line(text)}", text
    trained = read_safetensors(os.path.join(work, "trained.safetensors"))
    loss = Loss(model, inputs, set(trained))
    grad = {n: (loss.base[n].astype(np.float64) - trained[n].astype(np.float64))
            for n in trained}
    norm = float(np.sqrt(sum(float((v * v).sum()) for v in grad.values())))
    problems = []
    l0 = loss()
    lines = parse_step_lines(stdout)
    got = lines.get(1, [(float("nan"), 0, 1)])[0][0]
    if not abs(got - l0) <= 1e-4 * abs(l0) + 1e-5:
        problems.append(f"step loss {got!r}, onnxruntime's {l0!r}")
    rng = np.random.default_rng(1)
    rand = {n: rng.standard_normal(v.shape) for n, v in grad.items()}
    rnorm = float(np.sqrt(sum(float((v * v).sum()) for v in rand.values())))
    directions = [("random", {n: v / rnorm for n, v in rand.items()}, norm)]
    for n, v in grad.items():
        pn = float(np.sqrt((v * v).sum()))
        if pn > 0:
            directions.append((n, {n: v / pn}, pn))
    worst, worst_name = 0.0, ""
    for what, d, scale in directions:
        dot = float(sum(float((grad[n] * d[n]).sum()) for n in d))
        for h in STEPS:
            fd = (loss(d, h) - loss(d, -h)) / (2 * h)
            # The difference's rounding: a few float32 ulps of the loss over 2h.
            allowed = a.tol * scale + 16 * np.finfo(np.float32).eps * max(abs(l0), 1.0) / (2 * h)
            err = abs(fd - dot) / allowed
            if err <= 1:
                break
        if err > worst:
            worst, worst_name = err, what
        if not err <= 1:
            problems.append(f"{what}: onnxruntime's derivative {fd:.6g}, telar's {dot:.6g} "
                            f"(allowed {allowed:.3g})")
    n_params = sum(v.size for v in grad.values())
    status = "FAIL" if problems else "PASS"
    line = (f"{len(trained)} parameters ({n_params} elements), |g| {norm:.4g}; worst "
            f"directional error {worst:.2g} of its tolerance ({worst_name}); "
            f"compile {compile_s:.1f}s, step {run_s:.1f}s [{time.time() - t0:.1f}s]")
    return status, line, "\n".join(f"    {p}" for p in problems)


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("dir", help="the suite's models (run_models.py --make DIR)")
    p.add_argument("--only", default="", help="comma-separated model names")
    p.add_argument("--bin", default="build/bin")
    p.add_argument("--telarc")
    p.add_argument("--telar-run")
    p.add_argument("--out", help="work directory (default: DIR/gradients)")
    p.add_argument("--tol", type=float, default=5e-3,
                   help="directional derivative error allowed, relative to |g| (default 5e-3)")
    p.add_argument("--timeout", type=float, default=600)
    p.add_argument("-v", "--verbose", action="store_true")
    a = p.parse_args(argv)
    a.telarc = a.telarc or os.path.join(a.bin, "telarc")
    a.telar_run = a.telar_run or os.path.join(a.bin, "telar-run")
    a.out = a.out or os.path.join(a.dir, "gradients")
    names = [n for n in a.only.split(",") if n] or sorted(
        f[:-5] for f in os.listdir(a.dir)
        if f.endswith(".onnx") and os.path.exists(os.path.join(a.dir, f[:-5] + ".inputs.npz")))
    if not names:
        p.error(f"no NAME.onnx with NAME.inputs.npz in {a.dir}")
    kill_commands_on_exit()
    counts = {"PASS": 0, "FAIL": 0, "ERROR": 0}
    for name in names:
        try:
            status, line, detail = check_model(name, a)
        except Exception as e:  # the harness's own failure
            status, line, detail = "ERROR", f"{type(e).__name__}: {e}", ""
        counts[status] += 1
        print(f"{status} {name}: {line}", flush=True)
        if detail and (status == "FAIL" or a.verbose):
            print(detail, flush=True)
    print(f"suite-gradients: {counts['PASS']} passed, {counts['FAIL']} failed, "
          f"{counts['ERROR']} tool errors")
    return 1 if counts["FAIL"] else (2 if counts["ERROR"] else 0)


if __name__ == "__main__":
    sys.exit(main())
