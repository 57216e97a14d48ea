#!/usr/bin/env python3
"""ResNet-18's convolutions, Telar's runtime against onnxruntime, in one process.

    .venv/bin/python bench/conv_vs_onnxruntime.py [--size 224] [--threads 1,2]
        [--rounds 4] [--min-time 0.15] [--cold] [--lib build/lib/libtelar_conv_timing.so]

Each distinct convolution of ResNet-18 (torchvision's layer shapes, input
--size x --size, batch 1) with its bias and ReLU, timed under onnxruntime's
CPU provider (a one-node Conv + Relu model, NCHWc inside) and under the
runtime's telarrt_conv2d_nchw_bias_f32 with the RELU epilogue, the filter
registered as a constant as an artifact's weights are (through
libtelar_conv_timing.so, bench/conv_timing.cpp). The two take turns layer by
layer for --rounds rounds of --min-time seconds each side; each keeps its best
run, so a machine whose speed drifts (this VM's does, by 30 % and more)
affects both alike. --cold writes 64 MiB before each run (caches as cold as
in a model). Prints per thread count each layer's ms, the ratio
onnxruntime ms / Telar ms (> 1: Telar is faster) and the totals over the
network's 20 convolutions (each layer times the number of times it occurs).
Asserts nothing about speed.
"""

import argparse
import ctypes
import os
import sys
import time

import numpy as np
import onnx
import onnxruntime as ort
from onnx import TensorProto, helper, numpy_helper

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# name, input channels, filters, input size at 224, kernel, stride, pad, count
LAYERS = [
    ("conv1 7x7/2 3->64", 3, 64, 224, 7, 2, 3, 1),
    ("layer1 3x3 64->64", 64, 64, 56, 3, 1, 1, 4),
    ("layer2.0 3x3/2 64->128", 64, 128, 56, 3, 2, 1, 1),
    ("layer2 3x3 128->128", 128, 128, 28, 3, 1, 1, 3),
    ("layer2 ds 1x1/2 64->128", 64, 128, 56, 1, 2, 0, 1),
    ("layer3.0 3x3/2 128->256", 128, 256, 28, 3, 2, 1, 1),
    ("layer3 3x3 256->256", 256, 256, 14, 3, 1, 1, 3),
    ("layer3 ds 1x1/2 128->256", 128, 256, 28, 1, 2, 0, 1),
    ("layer4.0 3x3/2 256->512", 256, 512, 14, 3, 2, 1, 1),
    ("layer4 3x3 512->512", 512, 512, 7, 3, 1, 1, 3),
    ("layer4 ds 1x1/2 256->512", 256, 512, 14, 1, 2, 0, 1),
]


def ort_session(c, f, hw, k, s, p, threads):
    rng = np.random.default_rng(0)
    w = rng.uniform(-1, 1, (f, c, k, k)).astype(np.float32)
    b = rng.uniform(-1, 1, f).astype(np.float32)
    nodes = [helper.make_node("Conv", ["x", "w", "b"], ["z"], kernel_shape=[k, k],
                              strides=[s, s], pads=[p] * 4),
             helper.make_node("Relu", ["z"], ["y"])]
    graph = helper.make_graph(
        nodes, "conv", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, c, hw, hw])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)],
        [numpy_helper.from_array(w, "w"), numpy_helper.from_array(b, "b")])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8  # what onnxruntime 1.22 reads
    so = ort.SessionOptions()
    so.intra_op_num_threads = threads
    so.inter_op_num_threads = 1
    sess = ort.InferenceSession(model.SerializeToString(), so,
                                providers=["CPUExecutionProvider"])
    x = rng.uniform(-1, 1, (1, c, hw, hw)).astype(np.float32)
    return sess, x


def ort_best(sess, x, min_time, junk):
    sess.run(None, {"x": x})
    best = float("inf")
    t0 = time.perf_counter()
    while time.perf_counter() - t0 < min_time:
        if junk is not None:
            junk[::64] += 1
        a = time.perf_counter()
        sess.run(None, {"x": x})
        best = min(best, time.perf_counter() - a)
    return best


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--size", type=int, default=224, help="input size (default 224)")
    ap.add_argument("--threads", default="1,2", help="comma-separated (default 1,2)")
    ap.add_argument("--rounds", type=int, default=4, help="turns per layer (default 4)")
    ap.add_argument("--min-time", type=float, default=0.15,
                    help="seconds per side and round (default 0.15)")
    ap.add_argument("--cold", action="store_true", help="write 64 MiB before each run")
    ap.add_argument("--lib", default=os.path.join(ROOT, "build", "lib",
                                                  "libtelar_conv_timing.so"))
    a = ap.parse_args(argv)
    if not os.path.exists(a.lib):
        sys.exit(f"conv_vs_onnxruntime: {a.lib} is missing (scripts/build.sh "
                 "telar_conv_timing)")
    lib = ctypes.CDLL(a.lib)
    fn = lib.telar_bench_conv_best
    fn.restype = ctypes.c_double
    fn.argtypes = [ctypes.c_int64] * 6 + [ctypes.c_int, ctypes.c_double, ctypes.c_int]
    junk = np.zeros(64 << 20, np.uint8) if a.cold else None
    layers = [(n, c, f, max(1, hw * a.size // 224), k, s, p, cnt)
              for n, c, f, hw, k, s, p, cnt in LAYERS]
    for threads in [int(t) for t in a.threads.split(",")]:
        sessions = [ort_session(c, f, hw, k, s, p, threads)
                    for _, c, f, hw, k, s, p, _ in layers]
        best_ort = [float("inf")] * len(layers)
        best_telar = [float("inf")] * len(layers)
        for _ in range(a.rounds):
            for i, (name, c, f, hw, k, s, p, _) in enumerate(layers):
                best_ort[i] = min(best_ort[i], ort_best(*sessions[i], a.min_time, junk))
                t = fn(c, f, hw, k, s, p, threads, a.min_time, int(a.cold))
                if t < 0:
                    sys.exit(f"conv_vs_onnxruntime: the runtime failed on {name}")
                best_telar[i] = min(best_telar[i], t)
        print(f"\n{a.size}x{a.size}, {threads} thread{'s' if threads > 1 else ''}"
              f"{', cold caches' if a.cold else ''} (best of {a.rounds} rounds)")
        print(f"{'layer':28s} {'ort ms':>9s} {'telar ms':>9s} {'ratio':>6s}")
        total_o = total_t = 0.0
        for i, (name, *_, cnt) in enumerate(layers):
            total_o += best_ort[i] * cnt
            total_t += best_telar[i] * cnt
            print(f"{name:28s} {best_ort[i] * 1e3:9.3f} {best_telar[i] * 1e3:9.3f} "
                  f"{best_ort[i] / best_telar[i]:6.2f}")
        print(f"{'total (x count)':28s} {total_o * 1e3:9.3f} {total_t * 1e3:9.3f} "
              f"{total_o / total_t:6.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
