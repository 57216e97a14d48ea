#!/usr/bin/env python3
"""Hand-made pipelined artifacts (manifest version 4) for telar-run's tests.

Before telarc compiles pipelines, a pipelined artifact is put together
here from stage artifacts telarc compiles today: each stage is a small ONNX
model whose input and output names chain, compiled with `telarc --target
cpu` (a stage on several ranks with a --plan), and the top-level
manifest.json (transfers with their box messages, the schedule table) is
written by hand, as docs/Artifact.md "Pipelined artifacts" describes it.

  pipeline.py models DIR           the stage models, plans and the input x.npy
  pipeline.py assemble KIND OUT M  OUT/stage<s> (moved there beforehand) +
                                   OUT/manifest.json for M microbatches
  pipeline.py check KIND OUTDIR IN the outputs against numpy

KIND is one of
  tp           stage 0 on rank 0, stage 1 on ranks 1-2 (mesh model=2, the
               boundary value split by columns: strided boxes), 3 ranks;
               graph outputs from both stages
  interleaved  4 single-device stages on 2 ranks (virtual stages 2), with
               a value of stage 0 used by stage 2 (on the same rank: a copy)
  interleaved-tp  the same on positions of 2 ranks (mesh model=2), that
               value split by rows in stage 0 and by columns in stage 2:
               the position's ranks exchange boxes
  single       one stage on one rank, microbatched
"""

import json
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

BATCH = 4


def weight(name, shape, seed):
    rng = np.random.default_rng(seed)
    return (rng.integers(-4, 5, size=shape) / 8.0).astype(np.float32)


def save_model(path, inputs, outputs, nodes, weights):
    graph = helper.make_graph(
        nodes, os.path.basename(path).split(".")[0],
        [helper.make_tensor_value_info(n, TensorProto.FLOAT, s)
         for n, s in inputs],
        [helper.make_tensor_value_info(n, TensorProto.FLOAT, s)
         for n, s in outputs],
        [numpy_helper.from_array(w, n) for n, w in weights.items()])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    onnx.save(model, path)


# The stages of each kind at microbatch size `mb`: (inputs, outputs, nodes,
# weights), and the numpy reference of the whole batch.
def tp_stages(mb):
    w1, w2 = weight("w1", (8, 16), 1), weight("w2", (16, 8), 2)
    return [
        ([("x", [mb, 8])], [("h", [mb, 16])],
         [helper.make_node("MatMul", ["x", "w1"], ["xw"]),
          helper.make_node("Relu", ["xw"], ["h"])], {"w1": w1}),
        ([("h", [mb, 16]), ("x", [mb, 8])], [("y", [mb, 8])],
         [helper.make_node("MatMul", ["h", "w2"], ["hw"]),
          helper.make_node("Add", ["hw", "x"], ["y"])], {"w2": w2}),
    ]


def tp_reference(x):
    h = np.maximum(x @ weight("w1", (8, 16), 1), 0)
    return {"y": h @ weight("w2", (16, 8), 2) + x, "h": h}


def interleaved_stages(mb):
    w = [weight("w%d" % k, (8, 8), 10 + k) for k in range(4)]
    return [
        ([("x", [mb, 8])], [("a0", [mb, 8])],
         [helper.make_node("MatMul", ["x", "w0"], ["t0"]),
          helper.make_node("Relu", ["t0"], ["a0"])], {"w0": w[0]}),
        ([("a0", [mb, 8])], [("a1", [mb, 8])],
         [helper.make_node("MatMul", ["a0", "w1"], ["t1"]),
          helper.make_node("Relu", ["t1"], ["a1"])], {"w1": w[1]}),
        ([("a1", [mb, 8]), ("a0", [mb, 8])], [("a2", [mb, 8])],
         [helper.make_node("MatMul", ["a1", "w2"], ["t2"]),
          helper.make_node("Add", ["t2", "a0"], ["a2"])], {"w2": w[2]}),
        ([("a2", [mb, 8])], [("y", [mb, 8])],
         [helper.make_node("MatMul", ["a2", "w3"], ["y"])], {"w3": w[3]}),
    ]


def interleaved_reference(x):
    w = [weight("w%d" % k, (8, 8), 10 + k) for k in range(4)]
    a0 = np.maximum(x @ w[0], 0)
    a1 = np.maximum(a0 @ w[1], 0)
    a2 = a1 @ w[2] + a0
    return {"y": a2 @ w[3]}


KINDS = {
    # stages (first rank, ranks), world size, graph outputs (name, stage),
    # schedule, virtual stages
    "tp": dict(stages=tp_stages, reference=tp_reference,
               ranks=[(0, 1), (1, 2)], world=3,
               outputs=[("y", 1), ("h", 0)], schedule="gpipe", virtual=1),
    "interleaved": dict(stages=interleaved_stages,
                        reference=interleaved_reference,
                        ranks=[(0, 1), (1, 1), (0, 1), (1, 1)], world=2,
                        outputs=[("y", 3)], schedule="interleaved", virtual=2),
    # interleaved on positions of two ranks (mesh model=2): stage 0 keeps
    # a0 split by rows, stage 2 takes it split by columns, so the two
    # ranks of position 0 exchange boxes of it (the recv step's exchange).
    "interleaved-tp": dict(stages=interleaved_stages,
                           reference=interleaved_reference,
                           ranks=[(0, 2), (2, 2), (0, 2), (2, 2)], world=4,
                           outputs=[("y", 3)], schedule="interleaved",
                           virtual=2),
    "single": dict(stages=lambda mb: tp_stages(mb)[:1],
                   reference=tp_reference, ranks=[(0, 1)], world=1,
                   outputs=[("h", 0)], schedule="gpipe", virtual=1),
}
# The stage of the tp kind on two ranks splits its input h by columns (and
# w2 by rows: an all-reduce of partial sums).
TP_PLAN = {"mesh": {"model": 2},
           "shardings": {"h": [[], ["model"]], "w2": [["model"], []]}}


# Per stage of the interleaved-tp kind: its plan on its two ranks.
ITP_PLANS = [{"a0": [["model"], []]}, {}, {"a0": [[], ["model"]]}, {}]


def models(out, microbatches):
    os.makedirs(out, exist_ok=True)
    mb = BATCH // microbatches
    for s, shardings in enumerate(ITP_PLANS):
        with open(os.path.join(out, "interleaved-tp_s%d-plan.json" % s),
                  "w") as f:
            json.dump({"mesh": {"model": 2}, "shardings": shardings}, f)
    for kind, spec in KINDS.items():
        for s, (ins, outs, nodes, weights) in enumerate(spec["stages"](mb)):
            save_model(os.path.join(out, "%s_s%d.onnx" % (kind, s)), ins, outs,
                       nodes, weights)
    with open(os.path.join(out, "tp_s1-plan.json"), "w") as f:
        json.dump(TP_PLAN, f)
    x = (np.arange(BATCH * 8, dtype=np.float32).reshape(BATCH, 8) % 5 - 2) / 4
    np.save(os.path.join(out, "x.npy"), x)


def local_block(shape, sharding, mesh, rank):
    """Offsets and shape of `rank`'s block (row-major ranks over the mesh)."""
    axes, sizes = mesh
    coords, r = [0] * len(sizes), rank
    for i in reversed(range(len(sizes))):
        coords[i], r = r % sizes[i], r // sizes[i]
    offsets, block = [], []
    for d, n in enumerate(shape):
        names = sharding[d] if sharding else []
        parts, index = 1, 0
        for name in names:
            a = axes.index(name)
            parts, index = parts * sizes[a], index * sizes[a] + coords[a]
        offsets.append(index * (n // parts))
        block.append(n // parts)
    return offsets, block


def stage_tensor(manifest, field, name):
    spec = next(t for t in manifest[field] if t["name"] == name)
    mesh = manifest.get("mesh")
    return spec, ((mesh["axes"], mesh["shape"]) if mesh else ([], []))


def messages(from_manifest, from_first, to_manifest, to_first, name):
    """The boxes of `name` from the sender stage's blocks to the receiver
    stage's: each receiver's block intersected with each distinct sender
    block, from the holder of that block chosen by the receiver's index."""
    spec, from_mesh = stage_tensor(from_manifest, "outputs", name)
    to_spec, to_mesh = stage_tensor(to_manifest, "inputs", name)
    shape = spec["shape"]
    holders = {}
    for i in range(from_manifest.get("world_size", 1)):
        offsets, block = local_block(shape, spec.get("sharding", []),
                                     from_mesh, i)
        holders.setdefault((tuple(offsets), tuple(block)), []).append(i)
    result = []
    for r in range(to_manifest.get("world_size", 1)):
        to_offsets, to_block = local_block(shape, to_spec.get("sharding", []),
                                           to_mesh, r)
        for (offsets, block), ranks in sorted(holders.items()):
            lo = [max(a, b) for a, b in zip(offsets, to_offsets)]
            hi = [min(a + n, b + m) for a, n, b, m in
                  zip(offsets, block, to_offsets, to_block)]
            if any(h <= l for l, h in zip(lo, hi)):
                continue
            result.append({
                "from_rank": from_first + ranks[r % len(ranks)],
                "to_rank": to_first + r,
                "from_offsets": [l - o for l, o in zip(lo, offsets)],
                "to_offsets": [l - o for l, o in zip(lo, to_offsets)],
                "sizes": [h - l for l, h in zip(lo, hi)]})
    return sorted(result, key=lambda m: (m["from_rank"], m["to_rank"]))


def assemble(kind, out, microbatches):
    spec = KINDS[kind]
    stages = spec["stages"](BATCH // microbatches)
    S, W, V = len(stages), spec["world"], spec["virtual"]
    manifests = []
    for s in range(S):
        with open(os.path.join(out, "stage%d" % s, "manifest.json")) as f:
            manifests.append(json.load(f))
    # Transfers: every stage input that another stage computes.
    producer = {o[0]: s for s, st in enumerate(stages) for o in st[1]}
    transfers = []
    for s, (ins, _, _, _) in enumerate(stages):
        for name, shape in ins:
            if name not in producer:
                continue
            a = producer[name]
            af, bf = spec["ranks"][a][0], spec["ranks"][s][0]
            transfers.append({
                "name": name, "from_stage": a, "to_stage": s,
                "dtype": "float32", "shape": shape,
                "messages": messages(manifests[a], af, manifests[s], bf,
                                     name)})
    transfers.sort(key=lambda t: (t["from_stage"], t["to_stage"]))
    # The schedule: per microbatch, each of the rank's stages receives from
    # its producers (ascending), computes, sends to its consumers.
    P = S // V
    table = []
    for rank in range(W):
        steps = []
        mine = [s for s in range(S) if spec["ranks"][s][0] <= rank <
                spec["ranks"][s][0] + spec["ranks"][s][1]]
        for m in range(microbatches):
            for s in mine:
                for a in range(s):
                    ts = [i for i, t in enumerate(transfers)
                          if t["from_stage"] == a and t["to_stage"] == s and
                          any(x["to_rank"] == rank for x in t["messages"])]
                    if ts:
                        steps.append({"op": "recv", "microbatch": m,
                                      "stage": s, "transfers": ts})
                steps.append({"op": "forward", "microbatch": m, "stage": s})
                for b in range(s + 1, S):
                    ts = [i for i, t in enumerate(transfers)
                          if t["from_stage"] == s and t["to_stage"] == b and
                          any(x["from_rank"] == rank for x in t["messages"])]
                    if ts:
                        steps.append({"op": "send", "microbatch": m,
                                      "stage": s, "transfers": ts})
        table.append(steps)
    first = stages[0][0]
    inputs = [{"name": "x", "dtype": "float32", "shape": [BATCH, 8]}]
    outputs = []
    for name, s in spec["outputs"]:
        shape = next(sh for n, sh in stages[s][1] if n == name)
        outputs.append({"name": name, "dtype": "float32",
                        "shape": [BATCH] + shape[1:]})
    manifest = {
        "format": "telar-artifact", "format_version": 4,
        "model": {"path": "pipeline.py %s" % kind, "sha256": ""},
        "target": manifests[0]["target"],
        "world_size": W, "programs": [], "inputs": inputs,
        "outputs": outputs, "weights": [],
        "pipeline": {
            "microbatches": microbatches, "schedule": spec["schedule"],
            "virtual_stages": V,
            "stages": [{"directory": "stage%d" % s,
                        "first_rank": spec["ranks"][s][0],
                        "num_ranks": spec["ranks"][s][1]} for s in range(S)],
            "inputs": [{"name": "x", "microbatch_dim": 0}],
            "outputs": [{"name": n, "stage": s, "microbatch_dim": 0}
                        for n, s in spec["outputs"]],
            "transfers": transfers,
            "schedule_table": table,
        },
    }
    assert first[0][0] == "x"
    with open(os.path.join(out, "manifest.json"), "w") as f:
        json.dump(manifest, f, indent=2)


def check(kind, outdir, indir):
    x = np.load(os.path.join(indir, "x.npy"))
    reference = KINDS[kind]["reference"](x)
    for name, _ in KINDS[kind]["outputs"]:
        got = np.load(os.path.join(outdir, name + ".npy"))
        np.testing.assert_allclose(got, reference[name], rtol=1e-5, atol=1e-5)
        print("%s: ok" % name)


def main():
    command = sys.argv[1]
    if command == "models":
        models(sys.argv[2], int(sys.argv[3]) if len(sys.argv) > 3 else 2)
    elif command == "assemble":
        assemble(sys.argv[2], sys.argv[3], int(sys.argv[4]))
    elif command == "check":
        check(sys.argv[2], sys.argv[3], sys.argv[4])
    else:
        sys.exit("unknown command " + command)


if __name__ == "__main__":
    main()
