#!/usr/bin/env python3
"""Numeric gradient checks of telarc --train, one tiny float64 model per op family.

Usage:
    .venv/bin/python python/telar_testing/grad_check.py [--bin build/bin] [--out DIR]
        [--telarc PATH] [--telar-run PATH] [--no-freeze-ints]
        [--only matmul,softmax] [--allow-unsupported erf,where*] [--rtol 1e-6]
        [--atol 1e-8] [--timeout 120] [-v]
    .venv/bin/python python/telar_testing/grad_check.py --reference-only [--only ...]
    .venv/bin/python python/telar_testing/grad_check.py --list

Each case is an onnx.helper model (opset 17, DOUBLE): graph inputs (x, and
int64 ids/labels/indices where the op needs them; fixed seeded values),
parameter initializers P... (a few to ~40 elements each), the op under test,
and

    loss = ReduceSum(Mul(y, R))       (summed over the op's outputs y)

with R a fixed random tensor per output (|R| in [0.5, 1.5]), an initializer
that must not be trained: R and every other initializer that is not a parameter (integer
shapes/axes/indices, bool masks, Pow's exponent, Where's zero, ...) go to
--freeze (the integer and bool ones not with --no-freeze-ints). The
parameter values keep non-smooth ops (Relu, Abs, LeakyRelu, Max/Min,
ReduceMax) at least 0.1 away from their kinks. For each case:

    telarc DIR/CASE.onnx --train --loss loss --optimizer sgd --lr 1
        --momentum 0 --weight-decay 0 --freeze R0,... --target cpu -o DIR/CASE.art -q
    telar-run DIR/CASE.art --train --steps 1 --input x=DIR/CASE.x.npy ...
        --save-weights DIR/CASE.safetensors -q

(inputs saved with a leading steps dimension of 1): one SGD step with lr 1, so
the gradient is P0 - P1. It is compared with central finite differences (h =
1e-6) of the loss evaluated by onnxruntime (CPU, graph optimizations off) on
the same model with the parameters as graph inputs, or, where onnxruntime has
no float64 kernel for an op, by onnx.reference.ReferenceEvaluator (numpy):
every element within atol + rtol * |fd| (defaults 1e-8 and 1e-6; atol raised
to 10 * eps64 * |loss| / h when the loss is large, the finite differences'
rounding error). telar-run's "step 1/1 loss X" line must give the loss too.
The saved weights must hold every parameter (float64, its shape) and no frozen
initializer.

Prints one line per case: PASS/FAIL/ERROR, name, max abs err, max rel err
(max |d| / max |fd|), what went wrong. ERROR is a tool failure (its first
error line; -v prints all its output); the summary lists the cases that
telarc or telar-run could not do, with their error lines: which op gradients
are unsupported. --allow-unsupported CASES (comma-separated names or fnmatch
patterns) lets those fail cleanly (exit status 1 from the tool, not a crash or
timeout) without failing the run. Exit 1 when any case FAILs (a wrong
gradient), else 2 when a tool failed on a case not allowed, else 0.

--reference-only builds every case and evaluates only the finite
differences: per case the evaluator, the loss, max |gradient|, and how well
the finite differences agree with themselves (h = 1e-6 against h = 1e-5: must
be well inside the tolerance; else a kink is too close) and, where both run,
onnxruntime's loss against onnx.reference's. Exit 1 when any case cannot be
built or evaluated, or its finite differences are unreliable.
"""

from __future__ import annotations

import argparse
import fnmatch
import os
import shlex
import shutil
import sys
import tempfile
import time
import zlib

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from run_models import first_error_line  # noqa: E402
from runner import kill_commands_on_exit, run_cmd  # noqa: E402
from train_io import parse_step_lines, read_safetensors  # noqa: E402

OPSET = 17
LOSS = "loss"
H = 1e-6          # finite-difference step
H_CHECK = 1e-5    # second step for --reference-only's self-consistency check
EPS64 = float(np.finfo(np.float64).eps)
I64_MAX = np.iinfo(np.int64).max


# --------------------------------------------------------------------------- case builder
class Graph:
    """A case under construction: nodes, graph inputs, parameters (trained)
    and constants (frozen initializers); values from the case's own rng."""

    def __init__(self, name):
        self.name = name
        self.rng = np.random.default_rng(zlib.crc32(name.encode()))
        self.nodes, self.inputs, self.params, self.consts = [], {}, {}, {}
        self._n = 0
        self.opset = OPSET  # a case of a newer op raises it
        self.why_not_ort = ""  # set: onnxruntime cannot be the evaluator

    def u(self, shape, lo=-1.0, hi=1.0):
        return self.rng.uniform(lo, hi, shape).astype(np.float64)

    def input(self, name, value):
        self.inputs[name] = np.asarray(value)
        return name

    def param(self, name, value):
        self.params[name] = np.asarray(value, dtype=np.float64)
        return name

    def const(self, name, value):
        self.consts[name] = np.asarray(value)
        return name

    def i64(self, name, values):
        return self.const(name, np.asarray(values, dtype=np.int64))

    def node(self, op, inputs, outputs=1, **attrs):
        """Adds a node; returns its output name (a list when outputs > 1)."""
        self._n += 1
        outs = [f"{op.lower()}{self._n}_{k}" for k in range(outputs)]
        self.nodes.append(helper.make_node(op, list(inputs), outs, **attrs))
        return outs if outputs > 1 else outs[0]


def away_from(g, values, kinks, margin=0.1):
    """`values` with every element at least `margin` from each kink
    (pushed outwards by a random amount)."""
    v = np.array(values, dtype=np.float64)
    for k in np.atleast_1d(kinks):
        d = v - k
        close = np.abs(d) < margin
        sign = np.where(d >= 0, 1.0, -1.0)
        v = np.where(close, k + sign * (margin + g.rng.uniform(0, margin, v.shape)), v)
    return v


CASES = {}  # name -> (description, builder(g) -> op outputs)


def case(name, desc):
    def register(fn):
        assert name not in CASES, name
        CASES[name] = (desc, fn)
        return fn
    return register


def unary(name, op, desc, lo=-1.5, hi=1.5, kink=None, **attrs):
    """op(x + P), x and P [3, 4]; x + P within [lo, hi] (and away from kink)."""
    def build(g):
        x = g.u((3, 4), lo / 2, hi / 2)
        p = g.u((3, 4), lo / 2, hi / 2)
        if kink is not None:
            p = away_from(g, x + p, kink) - x
        s = g.node("Add", [g.input("x", x), g.param("P", p)])
        return [g.node(op, [s], **attrs)]
    case(name, desc)(build)


# --------------------------------------------------------------------------- cases
@case("matmul_2d", "MatMul(x[3,4], P[4,5])")
def _(g):
    return [g.node("MatMul", [g.input("x", g.u((3, 4))), g.param("P", g.u((4, 5)))])]


@case("einsum_matmul", "Einsum('ij,jk->ik', x[3,4], P[4,5])")
def _(g):
    return [g.node("Einsum", [g.input("x", g.u((3, 4))), g.param("P", g.u((4, 5)))],
                   equation="ij,jk->ik")]


@case("einsum_experts", "Einsum('bsd,edh->bseh', x[2,3,4], P[2,4,3]): both operands params")
def _(g):
    a = g.node("Add", [g.input("x", g.u((2, 3, 4))), g.param("A", g.u((2, 3, 4)))])
    return [g.node("Einsum", [a, g.param("P", g.u((2, 4, 3)))], equation="bsd,edh->bseh")]


@case("einsum_summed_alone", "Einsum('ij,k->i', P[3,4], Q[2]): j and k summed within one operand")
def _(g):
    p = g.node("Mul", [g.input("x", g.u((3, 4))), g.param("P", g.u((3, 4)))])
    return [g.node("Einsum", [p, g.param("Q", g.u((2,)))], equation="ij,k->i")]


@case("matmul_2d_param_lhs", "MatMul(P[2,3], x[3,4])")
def _(g):
    return [g.node("MatMul", [g.param("P", g.u((2, 3))), g.input("x", g.u((3, 4)))])]


@case("matmul_batched_bcast", "MatMul(x[2,3,4], P[4,5]): P broadcast over the batch")
def _(g):
    return [g.node("MatMul", [g.input("x", g.u((2, 3, 4))), g.param("P", g.u((4, 5)))])]


@case("matmul_batched_params", "MatMul(x[2,3,4] + A[2,3,4], B[1,4,2]): batch dim 1 broadcast")
def _(g):
    a = g.node("Add", [g.input("x", g.u((2, 3, 4))), g.param("A", g.u((2, 3, 4)))])
    return [g.node("MatMul", [a, g.param("B", g.u((1, 4, 2)))])]


@case("matmul_vector", "MatMul(x[3,4], P[4]) -> [3]")
def _(g):
    return [g.node("MatMul", [g.input("x", g.u((3, 4))), g.param("P", g.u((4,)))])]


@case("gemm_transb_bias", "Gemm(x[3,4], W[5,4], C[5], transB=1)")
def _(g):
    return [g.node("Gemm", [g.input("x", g.u((3, 4))), g.param("W", g.u((5, 4))),
                            g.param("C", g.u((5,)))], transB=1)]


@case("gemm_transa_alpha_beta", "Gemm(x[4,3], W[4,5], C[1,5], transA=1, alpha=0.5, beta=2)")
def _(g):
    return [g.node("Gemm", [g.input("x", g.u((4, 3))), g.param("W", g.u((4, 5))),
                            g.param("C", g.u((1, 5)))], transA=1, alpha=0.5, beta=2.0)]


@case("gemm_param_a", "Gemm(P[3,4], x[4,5]) (no C)")
def _(g):
    return [g.node("Gemm", [g.param("P", g.u((3, 4))), g.input("x", g.u((4, 5)))])]


@case("add_bcast", "Add(x[3,4], P[1,4])")
def _(g):
    return [g.node("Add", [g.input("x", g.u((3, 4))), g.param("P", g.u((1, 4)))])]


@case("sub_bcast", "Sub(x[3,4], P[4])")
def _(g):
    return [g.node("Sub", [g.input("x", g.u((3, 4))), g.param("P", g.u((4,)))])]


@case("sub_param_lhs", "Sub(P[3,1], x[3,4])")
def _(g):
    return [g.node("Sub", [g.param("P", g.u((3, 1))), g.input("x", g.u((3, 4)))])]


@case("mul_bcast", "Mul(x[3,4], P[1,4])")
def _(g):
    return [g.node("Mul", [g.input("x", g.u((3, 4))), g.param("P", g.u((1, 4)))])]


@case("mul_params", "Mul(x[3,4] + A[3,4], B[4]): both operands trained")
def _(g):
    a = g.node("Add", [g.input("x", g.u((3, 4))), g.param("A", g.u((3, 4)))])
    return [g.node("Mul", [a, g.param("B", g.u((4,)))])]


@case("mul_scalar_param", "Mul(x[3,4], P[]) (a 0-d parameter)")
def _(g):
    return [g.node("Mul", [g.input("x", g.u((3, 4))), g.param("P", g.u(()))])]


@case("div_bcast_denominator", "Div(x[3,4], P[4]), |P| in [0.5, 1.5]")
def _(g):
    p = g.u((4,), 0.5, 1.5) * g.rng.choice([-1.0, 1.0], 4)
    return [g.node("Div", [g.input("x", g.u((3, 4))), g.param("P", p)])]


@case("div_param_numerator", "Div(P[1,4], x[3,4]), x in [0.5, 1.5]")
def _(g):
    return [g.node("Div", [g.param("P", g.u((1, 4))), g.input("x", g.u((3, 4), 0.5, 1.5))])]


@case("pow_cube", "Pow(x + P, 3.0) (exponent: a frozen float64 scalar initializer)")
def _(g):
    s = g.node("Add", [g.input("x", g.u((3, 4), -0.7, 0.7)), g.param("P", g.u((3, 4), -0.7, 0.7))])
    return [g.node("Pow", [s, g.const("exponent", np.array(3.0))])]


unary("neg", "Neg", "Neg(x + P)")
unary("exp", "Exp", "Exp(x + P)")
unary("log", "Log", "Log(x + P), x + P in [0.5, 2]", lo=1.0, hi=4.0)
unary("sqrt", "Sqrt", "Sqrt(x + P), x + P in [0.5, 2]", lo=1.0, hi=4.0)
unary("reciprocal", "Reciprocal", "Reciprocal(x + P), x + P in [0.5, 2]", lo=1.0, hi=4.0)
unary("tanh", "Tanh", "Tanh(x + P)")
unary("sigmoid", "Sigmoid", "Sigmoid(x + P)")
unary("relu", "Relu", "Relu(x + P), x + P away from 0", kink=0.0)
unary("erf", "Erf", "Erf(x + P)")
unary("abs", "Abs", "Abs(x + P), x + P away from 0", kink=0.0)
unary("leaky_relu", "LeakyRelu", "LeakyRelu(x + P, alpha=0.1), x + P away from 0", kink=0.0,
      alpha=0.1)
unary("cast_noop", "Cast", "Cast(x + P, to=DOUBLE) (a no-op cast)", to=TensorProto.DOUBLE)


@case("where_greater", "Where(Greater(x, 0), x * A[3,4], B[4])")
def _(g):
    x = g.input("x", away_from(g, g.u((3, 4)), 0.0))
    cond = g.node("Greater", [x, g.const("zero", np.array(0.0))])
    xa = g.node("Mul", [x, g.param("A", g.u((3, 4)))])
    return [g.node("Where", [cond, xa, g.param("B", g.u((4,)))])]


@case("max_elementwise", "Max(x[3,4], P[3,4]), |x - P| >= 0.1")
def _(g):
    x = g.u((3, 4))
    p = away_from(g, g.u((3, 4)) - x, 0.0) + x
    return [g.node("Max", [g.input("x", x), g.param("P", p)])]


@case("min_bcast", "Min(P[4], x[3,4]), P at least 0.1 from every x of its column")
def _(g):
    x = g.u((3, 4))
    for _ in range(1000):
        p = g.u((4,))
        if np.all(np.abs(x - p) >= 0.1):
            break
    else:
        raise RuntimeError("no well-separated values")
    return [g.node("Min", [g.param("P", p), g.input("x", x)])]


@case("max_variadic", "Max(x[3,4], A[3,4], B[4]) (three inputs), pairwise >= 0.1 apart")
def _(g):
    x = g.u((3, 4))
    for _ in range(1000):
        a, b = g.u((3, 4)), g.u((4,))
        bb = np.broadcast_to(b, (3, 4))
        if min(np.abs(x - a).min(), np.abs(x - bb).min(), np.abs(a - bb).min()) >= 0.1:
            break
    else:
        raise RuntimeError("no well-separated values")
    return [g.node("Max", [g.input("x", x), g.param("A", a), g.param("B", b)])]


@case("reduce_sum_keepdims0", "ReduceSum(x[3,4] * P[3,4], axes=[1], keepdims=0)")
def _(g):
    m = g.node("Mul", [g.input("x", g.u((3, 4))), g.param("P", g.u((3, 4)))])
    return [g.node("ReduceSum", [m, g.i64("axes", [1])], keepdims=0)]


@case("reduce_sum_keepdims1", "ReduceSum(x[2,3,4] * P[2,3,4], axes=[0,2], keepdims=1)")
def _(g):
    m = g.node("Mul", [g.input("x", g.u((2, 3, 4))), g.param("P", g.u((2, 3, 4)))])
    return [g.node("ReduceSum", [m, g.i64("axes", [0, 2])], keepdims=1)]


@case("reduce_mean_keepdims0", "ReduceMean(x[3,4] * P[3,4], axes=[-1], keepdims=0)")
def _(g):
    m = g.node("Mul", [g.input("x", g.u((3, 4))), g.param("P", g.u((3, 4)))])
    return [g.node("ReduceMean", [m], axes=[-1], keepdims=0)]


@case("reduce_mean_keepdims1", "ReduceMean(x[2,3,4] * P[2,3,4], axes=[1], keepdims=1)")
def _(g):
    m = g.node("Mul", [g.input("x", g.u((2, 3, 4))), g.param("P", g.u((2, 3, 4)))])
    return [g.node("ReduceMean", [m], axes=[1], keepdims=1)]


@case("reduce_mean_all", "ReduceMean(x[3,4] * P[3,4]) (no axes: every axis, keepdims=1)")
def _(g):
    m = g.node("Mul", [g.input("x", g.u((3, 4))), g.param("P", g.u((3, 4)))])
    return [g.node("ReduceMean", [m])]


def _unique_max_rows(g, shape, axis):
    """Values whose max along `axis` leads the runner-up by >= 0.1."""
    for _ in range(1000):
        v = g.u(shape, -1.5, 1.5)
        s = np.sort(v, axis=axis)
        if np.all(np.take(s, -1, axis=axis) - np.take(s, -2, axis=axis) >= 0.1):
            return v
    raise RuntimeError("no unique maxima")


@case("reduce_max_keepdims0", "ReduceMax(x[3,4] + P[3,4], axes=[1], keepdims=0), unique maxima")
def _(g):
    x = g.u((3, 4), -0.5, 0.5)
    p = _unique_max_rows(g, (3, 4), 1) - x
    s = g.node("Add", [g.input("x", x), g.param("P", p)])
    return [g.node("ReduceMax", [s], axes=[1], keepdims=0)]


@case("reduce_max_keepdims1", "ReduceMax(x[3,4] + P[3,4], axes=[0], keepdims=1), unique maxima")
def _(g):
    x = g.u((3, 4), -0.5, 0.5)
    p = _unique_max_rows(g, (3, 4), 0) - x
    s = g.node("Add", [g.input("x", x), g.param("P", p)])
    return [g.node("ReduceMax", [s], axes=[0], keepdims=1)]


@case("softmax_last", "Softmax(x[3,4] + P[3,4], axis=-1)")
def _(g):
    s = g.node("Add", [g.input("x", g.u((3, 4))), g.param("P", g.u((3, 4)))])
    return [g.node("Softmax", [s], axis=-1)]


@case("softmax_3d", "Softmax(x[2,3,4] * P[4], axis=-1)")
def _(g):
    s = g.node("Mul", [g.input("x", g.u((2, 3, 4), -2, 2)), g.param("P", g.u((4,)))])
    return [g.node("Softmax", [s], axis=-1)]


@case("softmax_axis0", "Softmax(x[3,4] + P[3,4], axis=0)")
def _(g):
    s = g.node("Add", [g.input("x", g.u((3, 4))), g.param("P", g.u((3, 4)))])
    return [g.node("Softmax", [s], axis=0)]


@case("log_softmax_last", "LogSoftmax(x[3,4] + P[3,4], axis=-1)")
def _(g):
    s = g.node("Add", [g.input("x", g.u((3, 4))), g.param("P", g.u((3, 4)))])
    return [g.node("LogSoftmax", [s], axis=-1)]


@case("layernorm_2d", "LayerNormalization(x[3,4] + A[3,4], scale S[4], bias B[4], axis=-1, eps 1e-5)")
def _(g):
    s = g.node("Add", [g.input("x", g.u((3, 4))), g.param("A", g.u((3, 4)))])
    return [g.node("LayerNormalization", [s, g.param("S", g.u((4,), 0.5, 1.5)),
                                          g.param("B", g.u((4,)))], axis=-1, epsilon=1e-5)]


@case("layernorm_3d", "LayerNormalization(x[2,3,4] * A[4], scale S[4], bias B[4], axis=-1)")
def _(g):
    s = g.node("Mul", [g.input("x", g.u((2, 3, 4))), g.param("A", g.u((4,), 0.5, 1.5))])
    return [g.node("LayerNormalization", [s, g.param("S", g.u((4,), 0.5, 1.5)),
                                          g.param("B", g.u((4,)))], axis=-1, epsilon=1e-5)]


@case("reshape", "Reshape(x[3,4] + P, [2,6])")
def _(g):
    s = g.node("Add", [g.input("x", g.u((3, 4))), g.param("P", g.u((3, 4)))])
    return [g.node("Reshape", [s, g.i64("shape", [2, 6])])]


@case("reshape_zero_infer", "Reshape(x[2,3,4] + P, [0,-1]) -> [2,12]")
def _(g):
    s = g.node("Add", [g.input("x", g.u((2, 3, 4))), g.param("P", g.u((2, 3, 4)))])
    return [g.node("Reshape", [s, g.i64("shape", [0, -1])])]


@case("transpose_3d", "Transpose(x[2,3,4] + P, perm=[2,0,1])")
def _(g):
    s = g.node("Add", [g.input("x", g.u((2, 3, 4))), g.param("P", g.u((2, 3, 4)))])
    return [g.node("Transpose", [s], perm=[2, 0, 1])]


@case("transpose_default", "Transpose(x[3,4] * P) (no perm: reversed)")
def _(g):
    s = g.node("Mul", [g.input("x", g.u((3, 4))), g.param("P", g.u((3, 4)))])
    return [g.node("Transpose", [s])]


@case("squeeze", "Squeeze(x[3,1,4] + P, axes=[1])")
def _(g):
    s = g.node("Add", [g.input("x", g.u((3, 1, 4))), g.param("P", g.u((3, 1, 4)))])
    return [g.node("Squeeze", [s, g.i64("axes", [1])])]


@case("unsqueeze", "Unsqueeze(x[3,4] + P, axes=[0,2]) -> [1,3,1,4]")
def _(g):
    s = g.node("Add", [g.input("x", g.u((3, 4))), g.param("P", g.u((3, 4)))])
    return [g.node("Unsqueeze", [s, g.i64("axes", [0, 2])])]


@case("concat_axis0", "Concat(x[3,4], P[2,4], axis=0)")
def _(g):
    return [g.node("Concat", [g.input("x", g.u((3, 4))), g.param("P", g.u((2, 4)))], axis=0)]


@case("concat_axis1_params", "Concat(A[3,2], x[3,4], B[3,1], axis=1)")
def _(g):
    return [g.node("Concat", [g.param("A", g.u((3, 2))), g.input("x", g.u((3, 4))),
                              g.param("B", g.u((3, 1)))], axis=1)]


@case("split_sizes", "Split(x[3,6] + P, split=[2,4], axis=1): both outputs used")
def _(g):
    s = g.node("Add", [g.input("x", g.u((3, 6))), g.param("P", g.u((3, 6)))])
    return g.node("Split", [s, g.i64("split", [2, 4])], outputs=2, axis=1)


@case("split_equal", "Split(x[6,2] + P, axis=0) into 3 equal parts")
def _(g):
    s = g.node("Add", [g.input("x", g.u((6, 2))), g.param("P", g.u((6, 2)))])
    return g.node("Split", [s], outputs=3, axis=0)


@case("split_unused_output", "Split(x[3,6] * P, axis=1) into 2; only the second output used")
def _(g):
    s = g.node("Mul", [g.input("x", g.u((3, 6))), g.param("P", g.u((3, 6)))])
    return g.node("Split", [s], outputs=2, axis=1)[1:]


@case("slice_start", "Slice(x[4,6] + P, starts=[1,2], ends=[3,6], axes=[0,1], steps=[1,1])")
def _(g):
    s = g.node("Add", [g.input("x", g.u((4, 6))), g.param("P", g.u((4, 6)))])
    return [g.node("Slice", [s, g.i64("starts", [1, 2]), g.i64("ends", [3, 6]),
                             g.i64("axes", [0, 1]), g.i64("steps", [1, 1])])]


@case("slice_negative", "Slice(x[3,5] * P, starts=[-3], ends=[INT64_MAX], axes=[1])")
def _(g):
    s = g.node("Mul", [g.input("x", g.u((3, 5))), g.param("P", g.u((3, 5)))])
    return [g.node("Slice", [s, g.i64("starts", [-3]), g.i64("ends", [I64_MAX]),
                             g.i64("axes", [1])])]


@case("slice_step2", "Slice(x[3,6] + P, starts=[1], ends=[6], axes=[1], steps=[2])")
def _(g):
    s = g.node("Add", [g.input("x", g.u((3, 6))), g.param("P", g.u((3, 6)))])
    return [g.node("Slice", [s, g.i64("starts", [1]), g.i64("ends", [6]), g.i64("axes", [1]),
                             g.i64("steps", [2])])]


@case("expand", "Mul(Expand(P[1,4], [3,4]), x[3,4])")
def _(g):
    e = g.node("Expand", [g.param("P", g.u((1, 4))), g.i64("shape", [3, 4])])
    return [g.node("Mul", [e, g.input("x", g.u((3, 4)))])]


@case("expand_rank", "Mul(Expand(P[3,1], [2,3,4]), x[2,3,4]) (rank grows)")
def _(g):
    e = g.node("Expand", [g.param("P", g.u((3, 1))), g.i64("shape", [2, 3, 4])])
    return [g.node("Mul", [e, g.input("x", g.u((2, 3, 4)))])]


@case("gather_embedding", "Gather(table P[6,4], ids int64 [5] = [1,3,1,0,3], axis=0)")
def _(g):
    ids = g.input("ids", np.array([1, 3, 1, 0, 3], dtype=np.int64))
    return [g.node("Gather", [g.param("P", g.u((6, 4))), ids], axis=0)]


@case("gather_embedding_2d", "Gather(table P[5,3], ids int64 [2,3] with repeats, axis=0)")
def _(g):
    ids = g.input("ids", np.array([[4, 0, 4], [2, 4, 0]], dtype=np.int64))
    return [g.node("Gather", [g.param("P", g.u((5, 3))), ids], axis=0)]


@case("gather_axis1", "Gather(x[3,5] + P, indices [4,0,4] (frozen initializer), axis=1)")
def _(g):
    s = g.node("Add", [g.input("x", g.u((3, 5))), g.param("P", g.u((3, 5)))])
    return [g.node("Gather", [s, g.i64("indices", [4, 0, 4])], axis=1)]


@case("gather_elements", "GatherElements(x[3,4] + P, idx int64 [3,2] with repeats, axis=1)")
def _(g):
    s = g.node("Add", [g.input("x", g.u((3, 4))), g.param("P", g.u((3, 4)))])
    idx = g.input("idx", np.array([[0, 0], [3, 1], [2, 2]], dtype=np.int64))
    return [g.node("GatherElements", [s, idx], axis=1)]


@case("rmsnorm", "RMSNormalization(x[2,3,4] * A, scale P[4], axis=-1) (opset 23)")
def _(g):
    g.opset = 23
    s = g.node("Mul", [g.input("x", g.u((2, 3, 4))), g.param("A", g.u((2, 3, 4), 0.5, 1.5))])
    return [g.node("RMSNormalization", [s, g.param("P", g.u((4,), 0.5, 1.5))],
                   axis=-1, epsilon=1e-5)]


@case("conv_stride_pad", "Conv(x[2,3,7,7] + A, W[4,3,3,3], bias B[4], strides 2, pads 1)")
def _(g):
    s = g.node("Add", [g.input("x", g.u((2, 3, 7, 7))), g.param("A", g.u((2, 3, 7, 7)))])
    return [g.node("Conv", [s, g.param("W", g.u((4, 3, 3, 3))), g.param("B", g.u((4,)))],
                   strides=[2, 2], pads=[1, 1, 1, 1])]


@case("conv_grouped_dilated", "Conv(x[1,4,8,8] * A, W[6,2,3,3], group 2, dilations 2, "
      "strides [1,2], pads [1,0,2,1])")
def _(g):
    s = g.node("Mul", [g.input("x", g.u((1, 4, 8, 8))), g.param("A", g.u((1, 4, 8, 8), 0.5, 1.5))])
    return [g.node("Conv", [s, g.param("W", g.u((6, 2, 3, 3)))], group=2,
                   dilations=[2, 2], strides=[1, 2], pads=[1, 0, 2, 1])]


@case("conv_depthwise", "Conv(x[2,3,6,6] + A, W[3,1,3,3], group 3, strides 2) (depthwise)")
def _(g):
    s = g.node("Add", [g.input("x", g.u((2, 3, 6, 6))), g.param("A", g.u((2, 3, 6, 6)))])
    return [g.node("Conv", [s, g.param("W", g.u((3, 1, 3, 3)))], group=3, strides=[2, 2])]


@case("conv_1d", "Conv(x[2,3,9] + A, W[2,3,4], B[2], strides 2, pads [1,2]) (1-D)")
def _(g):
    s = g.node("Add", [g.input("x", g.u((2, 3, 9))), g.param("A", g.u((2, 3, 9)))])
    return [g.node("Conv", [s, g.param("W", g.u((2, 3, 4))), g.param("B", g.u((2,)))],
                   strides=[2], pads=[1, 2])]


@case("conv_transpose", "ConvTranspose(x[1,2,4,4] + A, W[2,3,3,3], B[3], strides 2, pads 1, "
      "output_padding 1)")
def _(g):
    s = g.node("Add", [g.input("x", g.u((1, 2, 4, 4))), g.param("A", g.u((1, 2, 4, 4)))])
    return [g.node("ConvTranspose", [s, g.param("W", g.u((2, 3, 3, 3))), g.param("B", g.u((3,)))],
                   strides=[2, 2], pads=[1, 1, 1, 1], output_padding=[1, 1])]


@case("avgpool_exclude_pad", "AveragePool(x[2,2,7,7] * A, kernel 3, strides 2, pads 1, "
      "count_include_pad 0)")
def _(g):
    s = g.node("Mul", [g.input("x", g.u((2, 2, 7, 7))), g.param("A", g.u((2, 2, 7, 7), 0.5, 1.5))])
    return [g.node("AveragePool", [s], kernel_shape=[3, 3], strides=[2, 2], pads=[1, 1, 1, 1],
                   count_include_pad=0)]


@case("avgpool_include_pad", "AveragePool(x[1,2,6,6] + A, kernel [2,3], strides [2,1], "
      "pads [0,1,1,1], count_include_pad 1)")
def _(g):
    s = g.node("Add", [g.input("x", g.u((1, 2, 6, 6))), g.param("A", g.u((1, 2, 6, 6)))])
    return [g.node("AveragePool", [s], kernel_shape=[2, 3], strides=[2, 1], pads=[0, 1, 1, 1],
                   count_include_pad=1)]


@case("maxpool_overlapping", "MaxPool(x[2,2,7,7] + A, kernel 3, strides 2, pads 1), distinct "
      "values 0.01 apart")
def _(g):
    # A permutation of a grid 0.01 apart: every window's maximum is unique
    # and h = 1e-6 cannot change which element it is.
    v = (g.rng.permutation(2 * 2 * 7 * 7).reshape(2, 2, 7, 7) * 0.01 - 0.98).astype(np.float64)
    x = g.u((2, 2, 7, 7), -0.002, 0.002)
    s = g.node("Add", [g.input("x", x), g.param("A", v - x)])
    return [g.node("MaxPool", [s], kernel_shape=[3, 3], strides=[2, 2], pads=[1, 1, 1, 1])]


@case("batchnorm_inference", "BatchNormalization(x[2,3,4,4] * A, scale S[3], bias B[3], "
      "mean M[3], var V[3] in [0.5, 1.5]) (every operand trained)")
def _(g):
    s = g.node("Mul", [g.input("x", g.u((2, 3, 4, 4))), g.param("A", g.u((2, 3, 4, 4), 0.5, 1.5))])
    return [g.node("BatchNormalization",
                   [s, g.param("S", g.u((3,), 0.5, 1.5)), g.param("B", g.u((3,))),
                    g.param("M", g.u((3,))), g.param("V", g.u((3,), 0.5, 1.5))], epsilon=1e-5)]


@case("batchnorm_training", "BatchNormalization(x[4,3,3,3] + A, scale S[3], bias B[3], "
      "training_mode 1): the batch's statistics; the running mean and variance in the loss too")
def _(g):
    g.why_not_ort = ("onnxruntime updates the running statistics in place: each run "
                     "of a session sees the last one's")
    s = g.node("Add", [g.input("x", g.u((4, 3, 3, 3))), g.param("A", g.u((4, 3, 3, 3)))])
    return g.node("BatchNormalization",
                  [s, g.param("S", g.u((3,), 0.5, 1.5)), g.param("B", g.u((3,))),
                   g.const("M", g.u((3,))), g.const("V", g.u((3,), 0.5, 1.5))],
                  outputs=3, epsilon=1e-5, momentum=0.8, training_mode=1)


@case("gather_nd", "GatherND(x[3,4] + P, idx int64 [3,2] with a repeat)")
def _(g):
    s = g.node("Add", [g.input("x", g.u((3, 4))), g.param("P", g.u((3, 4)))])
    idx = g.i64("idx", [[0, 1], [2, 3], [0, 1]])
    return [g.node("GatherND", [s, idx])]


@case("scatter_elements", "ScatterElements(x[3,4] * P, idx [3,2], u[3,2] * Q, axis=1): data and updates")
def _(g):
    d = g.node("Mul", [g.input("x", g.u((3, 4))), g.param("P", g.u((3, 4)))])
    u = g.node("Mul", [g.input("y", g.u((3, 2))), g.param("Q", g.u((3, 2)))])
    idx = g.i64("idx", [[0, 2], [3, 1], [1, 0]])
    return [g.node("ScatterElements", [d, idx, u], axis=1)]


@case("scatter_elements_add", "ScatterElements(reduction='add') with a repeated index")
def _(g):
    d = g.node("Mul", [g.input("x", g.u((3, 4))), g.param("P", g.u((3, 4)))])
    u = g.node("Mul", [g.input("y", g.u((3, 2))), g.param("Q", g.u((3, 2)))])
    idx = g.i64("idx", [[0, 0], [3, 1], [1, 2]])
    return [g.node("ScatterElements", [d, idx, u], axis=1, reduction="add")]


@case("scatter_nd", "ScatterND(x[4,3] * P, idx [2,1], u[2,3] * Q): rows replaced")
def _(g):
    d = g.node("Mul", [g.input("x", g.u((4, 3))), g.param("P", g.u((4, 3)))])
    u = g.node("Mul", [g.input("y", g.u((2, 3))), g.param("Q", g.u((2, 3)))])
    idx = g.i64("idx", [[2], [0]])
    return [g.node("ScatterND", [d, idx, u])]


@case("topk", "TopK(x[3,5] * P, k=2, axis=1): the MoE router's values")
def _(g):
    v = g.node("Mul", [g.input("x", g.u((3, 5), 0.5, 1.5)), g.param("P", g.u((3, 5), 0.5, 1.5))])
    k = g.i64("k", [2])
    return [g.node("TopK", [v, k], outputs=2, axis=1)[0]]


@case("masked_softmax",
      "Softmax(Where(causal bool [4,4] (frozen), -inf, x[4,4] * P), axis=-1): torch's causal mask")
def _(g):
    mask = g.const("causal", np.triu(np.ones((4, 4), dtype=np.bool_), 1))
    s = g.node("Mul", [g.input("x", g.u((4, 4), -2, 2)), g.param("P", g.u((4, 4)))])
    w = g.node("Where", [mask, g.const("neg_inf", np.array(-np.inf)), s])
    return [g.node("Softmax", [w], axis=-1)]


@case("gelu_erf", "Mul(Mul(s, Add(Erf(Div(s, sqrt 2)), 1)), 0.5), s = x + P: torch's exact GELU")
def _(g):
    s = g.node("Add", [g.input("x", g.u((3, 4), -1.5, 1.5)), g.param("P", g.u((3, 4), -1.5, 1.5))])
    e = g.node("Erf", [g.node("Div", [s, g.const("sqrt2", np.array(np.sqrt(2.0)))])])
    m = g.node("Mul", [s, g.node("Add", [e, g.const("one", np.array(1.0))])])
    return [g.node("Mul", [m, g.const("half", np.array(0.5))])]


def _ce(g, reduction, labels, ignore_index=None, shape=(4, 5), op="SoftmaxCrossEntropyLoss",
        log_softmax=False):
    s = g.node("Add", [g.input("x", g.u(shape, -2, 2)), g.param("P", g.u(shape))])
    if log_softmax:
        s = g.node("LogSoftmax", [s], axis=1)
    lab = g.input("labels", np.array(labels, dtype=np.int64))
    attrs = {"reduction": reduction}
    if ignore_index is not None:
        attrs["ignore_index"] = ignore_index
    return [g.node(op, [s, lab], **attrs)]


@case("softmax_ce_mean", "SoftmaxCrossEntropyLoss(x[4,5] + P, labels [4], reduction=mean)")
def _(g):
    return _ce(g, "mean", [1, 4, 0, 1])


@case("softmax_ce_ignore_index",
      "SoftmaxCrossEntropyLoss(x[4,5] + P, labels [4], mean, ignore_index=-100, one label -100)")
def _(g):
    return _ce(g, "mean", [2, -100, 0, 4], ignore_index=-100)


@case("softmax_ce_ignore_index_in_range",
      "SoftmaxCrossEntropyLoss(x[4,5] + P, labels [4], mean, ignore_index=3, one label 3)")
def _(g):
    return _ce(g, "mean", [2, 3, 0, 4], ignore_index=3)


@case("softmax_ce_sum", "SoftmaxCrossEntropyLoss(x[4,5] + P, labels [4], reduction=sum)")
def _(g):
    return _ce(g, "sum", [3, 3, 0, 2])


@case("softmax_ce_none", "SoftmaxCrossEntropyLoss(x[4,5] + P, labels [4], reduction=none) -> [4]")
def _(g):
    return _ce(g, "none", [0, 4, 1, 1])


@case("softmax_ce_3d", "SoftmaxCrossEntropyLoss(x[2,5,3] + P (N,C,D), labels [2,3], mean)")
def _(g):
    return _ce(g, "mean", [[0, 4, 2], [1, 1, 3]], shape=(2, 5, 3))


@case("nll_mean", "NegativeLogLikelihoodLoss(x[4,5] + P, labels [4], reduction=mean)")
def _(g):
    return _ce(g, "mean", [1, 4, 0, 1], op="NegativeLogLikelihoodLoss")


@case("nll_sum", "NegativeLogLikelihoodLoss(x[4,5] + P, labels [4], reduction=sum)")
def _(g):
    return _ce(g, "sum", [2, 0, 0, 3], op="NegativeLogLikelihoodLoss")


@case("nll_ignore_index",
      "NegativeLogLikelihoodLoss(x[4,5] + P, labels [4], mean, ignore_index=1, one label 1)")
def _(g):
    return _ce(g, "mean", [1, 4, 0, 2], ignore_index=1, op="NegativeLogLikelihoodLoss")


@case("nll_log_softmax", "NegativeLogLikelihoodLoss(LogSoftmax(x[4,5] + P, axis=1), labels, mean)")
def _(g):
    return _ce(g, "mean", [3, 0, 4, 4], op="NegativeLogLikelihoodLoss", log_softmax=True)


# --------------------------------------------------------------------------- models
ONNX_TYPES = {np.dtype(np.float64): TensorProto.DOUBLE, np.dtype(np.int64): TensorProto.INT64,
              np.dtype(np.bool_): TensorProto.BOOL, np.dtype(np.float32): TensorProto.FLOAT}


def op_outputs(g, outs):
    """The op outputs' values at the case's values (onnx.reference)."""
    from onnx.reference import ReferenceEvaluator
    m = make_model(g, outs, params_as_inputs=True, with_loss=False)
    ev = ReferenceEvaluator(m)
    return ev.run(outs, {**g.inputs, **g.params})


def make_model(g, outs, params_as_inputs, with_loss=True):
    """The case's model: loss = sum_i ReduceSum(Mul(out_i, R_i)); the
    parameters as initializers, or as graph inputs (for the evaluators)."""
    nodes = list(g.nodes)
    inits = [numpy_helper.from_array(v, n) for n, v in g.consts.items()]
    vin = lambda n, v: helper.make_tensor_value_info(n, ONNX_TYPES[v.dtype], v.shape)  # noqa: E731
    inputs = [vin(n, v) for n, v in g.inputs.items()]
    if params_as_inputs:
        inputs += [vin(n, v) for n, v in g.params.items()]
    else:
        inits += [numpy_helper.from_array(v, n) for n, v in g.params.items()]
    if with_loss:
        terms = []
        for i, o in enumerate(outs):
            r = f"R{i}"
            inits.append(numpy_helper.from_array(g.consts_r[r], r))
            nodes.append(helper.make_node("Mul", [o, r], [f"weighted{i}"]))
            nodes.append(helper.make_node("ReduceSum", [f"weighted{i}"], [f"term{i}"], keepdims=0))
            terms.append(f"term{i}")
        if len(terms) == 1:
            nodes[-1].output[0] = LOSS
        else:
            nodes.append(helper.make_node("Sum", terms, [LOSS]))
        outputs = [helper.make_tensor_value_info(LOSS, TensorProto.DOUBLE, [])]
    else:
        outputs = [helper.make_tensor_value_info(o, TensorProto.DOUBLE, None) for o in outs]
    graph = helper.make_graph(nodes, g.name, inputs, outputs, inits)
    m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", g.opset)],
                          producer_name="telar grad_check")
    m.ir_version = 8 if g.opset <= 18 else 10
    return m


def build_case(name):
    """(graph, op outputs, model with parameter initializers, model with the
    parameters as inputs); raises on a broken case."""
    g = Graph(name)
    outs = CASES[name][1](g)
    vals = op_outputs(g, outs)
    g.consts_r = {}
    for i, v in enumerate(vals):
        if v.dtype != np.float64:
            raise RuntimeError(f"output {outs[i]} is {v.dtype}, not float64")
        # |R| in [0.5, 1.5]: no output's gradient is scaled down to nothing.
        g.consts_r[f"R{i}"] = g.u(v.shape, 0.5, 1.5) * g.rng.choice([-1.0, 1.0], v.shape)
    train = make_model(g, outs, params_as_inputs=False)
    evalm = make_model(g, outs, params_as_inputs=True)
    onnx.checker.check_model(train, full_check=True)
    onnx.checker.check_model(evalm, full_check=True)
    return g, train, evalm


class Evaluator:
    """loss(params) of the model with the parameters as inputs: onnxruntime,
    else onnx.reference (`kind`; `why` says why onnxruntime was not used)."""

    def __init__(self, model, inputs, why_not_ort=""):
        self.inputs = inputs
        self.why = why_not_ort
        data = model.SerializeToString()
        from onnx.reference import ReferenceEvaluator
        self.ref = ReferenceEvaluator(model)
        self.sess, self.kind = None, "onnx.reference"
        try:
            if why_not_ort:
                raise RuntimeError(why_not_ort)
            import onnxruntime as ort
            so = ort.SessionOptions()
            so.log_severity_level = 4
            so.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
            so.intra_op_num_threads = 1
            so.inter_op_num_threads = 1
            self.sess = ort.InferenceSession(data, so, providers=["CPUExecutionProvider"])
            self.kind = "onnxruntime"
        except Exception as e:  # no float64 kernel, typically
            self.why = first_error_line(str(e))

    def __call__(self, params, use_reference=False):
        feeds = {**self.inputs, **params}
        if self.sess is not None and not use_reference:
            return float(self.sess.run([LOSS], feeds)[0])
        return float(self.ref.run([LOSS], feeds)[0])


def finite_differences(f, params, h):
    """Central differences of f(params) for every parameter element."""
    work = {n: v.copy() for n, v in params.items()}
    grads = {}
    for n, v in params.items():
        g = np.zeros_like(v)
        w = work[n].reshape(-1)
        for j in range(v.size):
            orig = w[j]
            w[j] = orig + h
            up = f(work)
            w[j] = orig - h
            down = f(work)
            w[j] = orig
            g.reshape(-1)[j] = (up - down) / (2 * h)
        grads[n] = g
    return grads


# --------------------------------------------------------------------------- checks
def compare_grads(got, ref, rtol, atol):
    """(ok, max abs err, max rel err = max|d| / max|ref|) over every parameter."""
    ok, max_abs, max_ref = True, 0.0, 0.0
    for n, r in ref.items():
        d = np.abs(got[n] - r)
        d = np.where(np.isfinite(d), d, np.inf)
        if d.size:
            ok = ok and bool(np.all(d <= atol + rtol * np.abs(r)))
            max_abs = max(max_abs, float(d.max()))
            max_ref = max(max_ref, float(np.abs(r).max()))
    return ok, max_abs, max_abs / max_ref if max_ref else (0.0 if max_abs == 0 else np.inf)


def case_atol(a, loss0):
    return max(a.atol, 10 * EPS64 * max(abs(loss0), 1.0) / H)


def reference_case(name, a):
    """--reference-only: (ok, line)."""
    g, _, evalm = build_case(name)
    ev = Evaluator(evalm, g.inputs, g.why_not_ort)
    loss0 = ev(g.params)
    fd = finite_differences(ev, g.params, H)
    fd2 = finite_differences(ev, g.params, H_CHECK)
    atol = case_atol(a, loss0)
    ok, self_abs, _ = compare_grads(fd2, fd, a.rtol / 4, atol / 4)
    n = sum(v.size for v in g.params.values())
    gmax = max(float(np.abs(v).max()) for v in fd.values())
    notes = []
    if ev.sess is not None:
        ref_loss = ev(g.params, use_reference=True)
        diff = abs(ref_loss - loss0)
        notes.append(f"onnx.reference loss differs by {diff:.2g}")
        if diff > 1e-12 * max(1.0, abs(loss0)):
            ok = False
    else:
        notes.append(f"onnxruntime: {ev.why[:120]}")
    status = "OK" if ok else "BAD"
    return ok, (f"{status:4} {name:34} {ev.kind:14} {n:3} elements, loss {loss0: .6f}, "
                f"max|grad| {gmax:.3g}, fd h={H:g} vs {H_CHECK:g}: {self_abs:.2g} "
                f"(atol {atol:.2g}); {'; '.join(notes)}")


def check_case(name, a):
    """Compiles and runs one case; returns a result dict: status PASS, FAIL or
    ERROR (a tool failed; `unsupported`: a clean failure, exit status 1)."""
    res = {"name": name, "status": "ERROR", "max_abs": None, "max_rel": None, "message": "",
           "stage": None, "unsupported": False, "output": ""}
    try:
        g, train, evalm = build_case(name)
        ev = Evaluator(evalm, g.inputs, g.why_not_ort)
        loss0 = ev(g.params)
        fd = finite_differences(ev, g.params, H)
    except Exception as e:
        res.update(stage="reference", message=f"{type(e).__name__}: {e}")
        return res
    d = os.path.join(a.out, name)
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(d)
    model = os.path.join(d, "case.onnx")
    onnx.save(train, model)
    art = os.path.join(d, "art")
    frozen = [n for n, v in g.consts.items() if a.freeze_ints or v.dtype.kind == "f"]
    frozen += list(g.consts_r)
    cmd = [a.telarc, model, "--train", "--loss", LOSS, "--optimizer", "sgd", "--lr", "1",
           "--momentum", "0", "--weight-decay", "0"]
    if frozen:
        cmd += ["--freeze", ",".join(frozen)]
    cmd += ["--target", "cpu", "-o", art, "-q"]
    if a.verbose:
        print("  $ " + shlex.join(cmd), flush=True)
    rc, text, _, _ = run_cmd(cmd, a.timeout)
    if rc != 0:
        res.update(stage="telarc", unsupported=rc is not None and rc > 0,
                   message=f"telarc rc={rc}: {first_error_line(text)}",
                   output=f"$ {shlex.join(cmd)}\n{text.rstrip()}")
        return res
    wfile = os.path.join(d, "weights.safetensors")
    cmd = [a.telar_run, art, "--train", "--steps", "1"]
    for n, v in g.inputs.items():
        p = os.path.join(d, f"{n}.npy")
        np.save(p, v[None])
        cmd += ["--input", f"{n}={p}"]
    cmd += ["--save-weights", wfile, "-q"]
    if a.verbose:
        print("  $ " + shlex.join(cmd), flush=True)
    rc, text, stdout, _ = run_cmd(cmd, a.timeout)
    if rc != 0:
        res.update(stage="telar-run", unsupported=rc is not None and rc > 0,
                   message=f"telar-run rc={rc}: {first_error_line(text)}",
                   output=f"$ {shlex.join(cmd)}\n{text.rstrip()}")
        return res
    try:
        saved = read_safetensors(wfile)
    except (OSError, ValueError) as e:
        res.update(stage="telar-run", message=f"cannot read the saved weights: {e}",
                   output=text.rstrip())
        return res

    problems = []
    grads = {}
    for n, p0 in g.params.items():
        if n not in saved:
            problems.append(f"no {n} in the saved weights")
            grads[n] = np.full(p0.shape, np.nan)
            continue
        p1 = saved[n]
        if p1.shape != p0.shape or p1.dtype != np.float64:
            problems.append(f"saved {n} is {p1.dtype}{list(p1.shape)}, "
                            f"expected float64{list(p0.shape)}")
            grads[n] = np.full(p0.shape, np.nan)
            continue
        grads[n] = p0 - p1
    extra = sorted(set(saved) - set(g.params))
    if extra:
        problems.append(f"saved weights include frozen/unknown tensors: {', '.join(extra)}")
    atol = case_atol(a, loss0)
    ok, max_abs, max_rel = compare_grads(grads, fd, a.rtol, atol)
    res.update(max_abs=max_abs, max_rel=max_rel)
    if not ok:
        worst = []
        for n in fd:
            dd = np.abs(grads[n] - fd[n])
            if dd.size and not np.all(dd <= atol + a.rtol * np.abs(fd[n])):
                k = int(np.nanargmax(np.where(np.isfinite(dd), dd, np.inf)))
                idx = list(np.unravel_index(k, dd.shape))
                worst.append(f"{n}{idx}: telar {grads[n].flat[k]:.9g} fd {fd[n].flat[k]:.9g}")
        problems.append("gradient differs: " + "; ".join(worst))
    lines = parse_step_lines(stdout).get(1, [])
    if not lines:
        problems.append("no 'step 1/1 loss X' line on stdout")
    for v, ulp, total in lines:
        if not (np.isfinite(v) and abs(v - loss0) <= 1e-9 * max(1.0, abs(loss0)) + ulp):
            problems.append(f"stdout loss {v!r}, reference {loss0!r}")
    res.update(status="FAIL" if problems else "PASS", message="; ".join(problems))
    return res


# --------------------------------------------------------------------------- main
def select(names, only):
    pats = [p for p in only.split(",") if p]
    return [n for n in names if not pats or any(p in n for p in pats)]


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--bin", default="build/bin", help="directory of telarc and telar-run")
    p.add_argument("--telarc", help="telarc to run (default: BIN/telarc)")
    p.add_argument("--telar-run", help="telar-run to run (default: BIN/telar-run)")
    p.add_argument("--out", help="work directory (kept; default: a temporary one, removed)")
    p.add_argument("--only", default="", help="comma-separated substrings of case names")
    p.add_argument("--list", action="store_true", help="list the cases and exit")
    p.add_argument("--allow-unsupported", default="",
                   help="comma-separated case names or fnmatch patterns whose tool failures "
                        "(clean, exit status 1) do not fail the run")
    p.add_argument("--no-freeze-ints", dest="freeze_ints", action="store_false",
                   help="do not list the integer and bool initializers in --freeze "
                        "(never trained anyway)")
    p.add_argument("--rtol", type=float, default=1e-6)
    p.add_argument("--atol", type=float, default=1e-8)
    p.add_argument("--timeout", type=float, default=120, help="seconds per command")
    p.add_argument("--reference-only", action="store_true",
                   help="only build the cases and evaluate their finite differences")
    p.add_argument("-v", "--verbose", action="store_true",
                   help="print the commands and the whole output of failing tools")
    a = p.parse_args(argv)

    names = select(list(CASES), a.only)
    if a.list:
        for n in names:
            print(f"{n:34} {CASES[n][0]}")
        return 0
    if not names:
        p.error(f"--only {a.only!r} matches no case (see --list)")
    allowed_pats = [x for x in a.allow_unsupported.split(",") if x]
    allowed = lambda n: any(fnmatch.fnmatchcase(n, pat) for pat in allowed_pats)  # noqa: E731

    if a.reference_only:
        bad = 0
        for n in names:
            try:
                ok, line = reference_case(n, a)
            except Exception as e:
                ok, line = False, f"BAD  {n:34} {type(e).__name__}: {e}"
            bad += not ok
            print(line, flush=True)
        print(f"grad-check: reference only, {len(names) - bad} of {len(names)} cases OK")
        return 1 if bad else 0

    a.telarc = a.telarc or os.path.join(a.bin, "telarc")
    a.telar_run = a.telar_run or os.path.join(a.bin, "telar-run")
    for tool in (a.telarc, a.telar_run):
        if not os.access(tool, os.X_OK):
            print(f"grad-check: {tool} is not an executable (use --bin DIR or --telarc/--telar-run)", file=sys.stderr)
            return 2
    kill_commands_on_exit()
    temp = a.out is None
    a.out = a.out or tempfile.mkdtemp(prefix="telar-gradcheck-")
    os.makedirs(a.out, exist_ok=True)
    results = []
    t_all = time.time()
    try:
        for n in names:
            t0 = time.time()
            r = check_case(n, a)
            results.append(r)
            fmt = lambda v: "-" if v is None else f"{v:.2g}"  # noqa: E731
            tag = r["status"]
            if tag == "ERROR" and r["unsupported"] and allowed(n):
                tag = "ERROR(allowed)"
            print(f"{tag:14} {n:34} max abs err {fmt(r['max_abs']):>8}  max rel err "
                  f"{fmt(r['max_rel']):>8}  [{time.time() - t0:.1f}s]"
                  + (f"  {r['message']}" if r["message"] else ""), flush=True)
            if r["status"] == "ERROR" and r["output"] and (a.verbose or not allowed(n)):
                out = r["output"] if a.verbose else "\n".join(r["output"].splitlines()[:12])
                print("    " + out.replace("\n", "\n    "), flush=True)
    finally:
        if temp:
            shutil.rmtree(a.out, ignore_errors=True)

    passed = [r for r in results if r["status"] == "PASS"]
    failed = [r for r in results if r["status"] == "FAIL"]
    errors = [r for r in results if r["status"] == "ERROR"]
    ok_errors = [r for r in errors if r["unsupported"] and allowed(r["name"])]
    bad_errors = [r for r in errors if r not in ok_errors]
    if errors:
        print("could not compile or run (from the tools' first error line):")
        for r in errors:
            note = " (allowed)" if r in ok_errors else ""
            print(f"  {r['name']}{note}: {r['message']}")
    if failed:
        print("failed (wrong gradient or output): " + ", ".join(r["name"] for r in failed))
    stale = [pat for pat in allowed_pats
             if not any(fnmatch.fnmatchcase(r["name"], pat) for r in ok_errors)]
    if stale:
        print("--allow-unsupported entries that no longer fail (or match nothing here): "
              + ", ".join(stale))
    print(f"grad-check: {len(passed)} passed, {len(failed)} failed, {len(bad_errors)} tool "
          f"errors, {len(ok_errors)} allowed unsupported ({time.time() - t_all:.1f}s)")
    if failed:
        return 1
    return 2 if bad_errors else 0


if __name__ == "__main__":
    sys.exit(main())
