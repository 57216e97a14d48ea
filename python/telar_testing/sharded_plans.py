#!/usr/bin/env python3
"""Hand-written sharding plans (plan.json) for every end-to-end model.

Usage:
    .venv/bin/python python/telar_testing/sharded_plans.py MODEL.onnx --model gpt \\
        --form tp --mesh model=2 [-o plan.json]
    .venv/bin/python python/telar_testing/sharded_plans.py --model gpt --example-case 4

A plan names values by their ONNX tensor names (graph inputs, initializers,
node outputs) and gives, for each tensor dim, the mesh axes that split it,
major to minor (docs/Plan.md):

    {"mesh": {"data": 2}, "shardings": {"input_ids": [["data"], []]}}

The names of the torch exports depend on the model's size (`onnx::MatMul_269`
is whatever number the exporter gave), so the plans are written as one Python
function per model family and parallelism form, which finds the values it
names in the graph by their role (the first MLP MatMul of every layer, the q/k/v
Slices of every attention, the conv1/conv2 of every ResNet block, ...).
Each names a handful of values; the compiler completes the rest.

Forms (the mesh axis names are part of the form):
    dp     pure data parallel: only the batch inputs, split on "data"
    tp     Megatron tensor parallel on "model": first MLP weight column-split
           and second row-split (one all-reduce per MLP); attention split by
           heads (q/k/v and the output projection's input dim)
    dp_tp  both, on a 2-D mesh {"data": D, "model": M}
    ep     expert parallel on "expert": the expert dim of the expert weights
           and the tokens on the same axis
    sp     sequence split of a transformer's activations on "seq": the token
           inputs and the logits split along the sequence
    sp_tp  the reductions model: its sequence on "seq", its hidden dim on
           "model" (a max/min over each split dim: partial max/min resolved)
    ch     channel split of the ResNet on "model": every block's conv1
           column-split (output channels), conv2 row-split (input channels)
    dp_ch  both on {"data": D, "model": M}

What is a block split and what is not (found by reading the exported graphs):
the torch GPT/BERT/ViT attention packs q, k and v into one [d, 3d] in_proj
weight, so a column split of that weight is not a split by heads (the first
rank would hold q and half of k); the tp plans leave in_proj replicated and
split the per-head q/k/v tensors instead (each rank computes the projection
whole, then keeps its heads: a local slice, no communication). A plan cannot
split the q/k/v Slice outputs themselves along the sliced dim (telar-apply-plan:
"cannot be produced by telar.slice"), so the plans name the transposes after
the view. The torch nn.MultiheadAttention merges batch and heads into one dim
(q.view(T, B * heads, head_dim)): a split of that dim in R blocks is a split
by heads only when each rank holds one batch row (B / data == 1; with B = 2
and 2 model ranks it is a split by batch rows), so the run_sharded cases use
batch 1 for tp and batch 2 for dp_tp on a 2x2 mesh, and one case runs tp at
batch 2, where the merged dim's split is a batch split. The Llama model keeps
heads as their own dim and has no such limit; its 2 kv heads cannot be split
4 ways, so its tp plan on 4 ranks splits only the q heads and the MLP.
"""

from __future__ import annotations

import argparse
import json
import re
import sys

FORMS = ("dp", "tp", "dp_tp", "ep", "sp", "sp_tp", "ch", "dp_ch")


# ---------------------------------------------------------------- the graph
class Graph:
    """The names and shapes of an ONNX model, for finding values by role."""

    def __init__(self, path):
        import onnx
        from onnx import shape_inference
        m = shape_inference.infer_shapes(onnx.load(path), data_prop=True)
        g = m.graph
        self.nodes = list(g.node)
        self.inits = {t.name: list(t.dims) for t in g.initializer}
        self.shapes = dict(self.inits)
        for vi in list(g.input) + list(g.output) + list(g.value_info):
            dims = vi.type.tensor_type.shape.dim
            if all(d.HasField("dim_value") for d in dims):
                self.shapes[vi.name] = [d.dim_value for d in dims]
        self.inputs = [i.name for i in g.input if i.name not in self.inits]
        self.path = path
        self.model = m
        self.outputs = [o.name for o in g.output]
        self.producer = {o: n for n in self.nodes for o in n.output}
        self.consumers = {}
        for n in self.nodes:
            for i in n.input:
                self.consumers.setdefault(i, []).append(n)

    def resolve(self, name):
        """`name` with Identity nodes looked through (the torch exporter
        aliases shared weights with Identity; the importer folds them)."""
        while name in self.producer and self.producer[name].op_type == "Identity":
            name = self.producer[name].input[0]
        return name

    def nodes_where(self, op_type, output_regex):
        r = re.compile(output_regex)
        return [n for n in self.nodes if n.op_type == op_type and r.search(n.output[0])]

    def shape(self, name):
        if name not in self.shapes and (name in self.producer or name in self.inputs):
            self._run_shapes()
        return self.shapes.get(name)

    def _run_shapes(self):
        """Shapes that shape inference leaves symbolic (Slice outputs whose
        bounds are computed from Shape ops): runs the model once with
        onnxruntime, every node output made a graph output, on zero inputs."""
        if getattr(self, "_ran", False):
            return
        self._ran = True
        import numpy as np
        import onnx
        import onnxruntime as ort
        m = onnx.ModelProto()
        m.CopyFrom(self.model)
        have = {o.name for o in m.graph.output}
        for n in m.graph.node:
            for o in n.output:
                if o and o not in have:
                    m.graph.output.append(onnx.ValueInfoProto(name=o))
        so = ort.SessionOptions()
        so.log_severity_level = 3
        so.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
        sess = ort.InferenceSession(m.SerializeToString(), so,
                                    providers=["CPUExecutionProvider"])
        feeds = {}
        for i in sess.get_inputs():
            dt = {"tensor(int64)": np.int64, "tensor(int32)": np.int32,
                  "tensor(bool)": np.bool_}.get(i.type, np.float32)
            feeds[i.name] = np.zeros(i.shape, dtype=dt)
        names = [o.name for o in sess.get_outputs()]
        for name, v in zip(names, sess.run(names, feeds)):
            self.shapes.setdefault(name, list(v.shape))


class PlanBuilder:
    def __init__(self, graph, mesh):
        self.g = graph
        self.mesh = dict(mesh)
        self.shardings = {}

    def set(self, name, dims):
        # The importer names an Identity's output by its source (an alias).
        name = self.g.resolve(name)
        shape = self.g.shape(name)
        if shape is None:
            raise ValueError(f"plan names {name!r}, which has no static shape in the model")
        if len(dims) != len(shape):
            raise ValueError(f"{name!r} has rank {len(shape)}, the plan gives {len(dims)} dims")
        for d, axes in enumerate(dims):
            parts = 1
            for a in axes:
                parts *= self.mesh[a]
            if shape[d] % parts:
                raise ValueError(f"{name!r} dim {d} ({shape[d]}) is not divisible by {parts}")
        if self.shardings.get(name, dims) != dims:
            raise ValueError(f"{name!r} given two shardings")
        self.shardings[name] = dims

    def split(self, name, dim, *axes):
        """Splits dim `dim` (negative counts from the end) of `name` on `axes`."""
        rank = len(self.g.shape(self.g.resolve(name)))
        dims = [[] for _ in range(rank)]
        dims[dim % rank] = list(axes)
        self.set(name, dims)

    def plan(self):
        return {"mesh": self.mesh, "shardings": dict(sorted(self.shardings.items()))}


# ------------------------------------------------------ torch transformers
def _batch(g):
    return g.shape(g.inputs[0])[0]


def _torch_mlp(g):
    """[(first MatMul node, its bias Add or None, second MatMul node)] per layer
    of a torch TransformerEncoderLayer (linear1/linear2) or torchvision ViT
    block (mlp.0/mlp.3)."""
    first = g.nodes_where("MatMul", r"/(linear1|mlp\.0)/MatMul_output_0$")
    second = g.nodes_where("MatMul", r"/(linear2|mlp\.3)/MatMul_output_0$")
    if not first or len(first) != len(second):
        raise ValueError("no torch MLP MatMuls found")
    out = []
    for f, s in zip(first, second):
        add = next((n for n in g.consumers.get(f.output[0], []) if n.op_type == "Add"), None)
        out.append((f, add, s))
    return out


def _torch_attention(g):
    """[(q, k, v per-head tensors, out_proj weight name, heads)] per
    nn.MultiheadAttention: the q/k/v Slices of the packed projection are
    reshaped to [T, B * heads, head_dim] and transposed to [B * heads, T,
    head_dim] (k to [B * heads, head_dim, T]); the transposes' outputs are
    the per-head tensors, their dim 0 the merged batch * heads."""
    out = []
    gemms = g.nodes_where("Gemm", r"/self_att(n|ention)/Gemm_output_0$")
    for gemm in gemms:
        prefix = gemm.output[0][: gemm.output[0].rindex("/") + 1]
        heads_t, heads = [], None
        for s in ("Slice_output_0", "Slice_1_output_0", "Slice_2_output_0"):
            if prefix + s not in g.producer:
                raise ValueError(f"no q/k/v Slices under {prefix}")
            reshape = next(n for n in g.consumers[prefix + s] if n.op_type == "Reshape")
            heads = g.shape(reshape.output[0])[1] // _batch(g)
            t = next(n for n in g.consumers[reshape.output[0]] if n.op_type == "Transpose")
            heads_t.append(t.output[0])
        out.append((heads_t, gemm.input[1], heads))
    if not out:
        raise ValueError("no attention found")
    return out


def _torch_tp(b, g, axis):
    """Megatron on a torch transformer: MLP column/row split (the biases follow
    by completion), attention by heads."""
    for f, _, s in _torch_mlp(g):
        b.split(f.input[1], 1, axis)        # [d, ff]: columns
        b.split(s.input[1], 0, axis)        # [ff, d]: rows
    for per_head, out_w, heads in _torch_attention(g):
        if heads % b.mesh[axis]:
            continue                        # fewer heads than ranks: attention replicated
        # [B * heads, ., .]: on data x model the data rank's rows are its
        # batch rows only when each data rank holds one batch row.
        axes = ["data", axis] if "data" in b.mesh else [axis]
        for t in per_head:
            b.split(t, 0, *axes)
        b.split(out_w, 1, axis)             # out_proj.weight [out, in]: input dim


def _dp_inputs(b, g, axis="data"):
    for name in g.inputs:
        b.split(name, 0, axis)


def plan_gpt_like(g, form, mesh):
    """gpt, bert, vit (torch exports)."""
    b = PlanBuilder(g, mesh)
    if form in ("dp", "dp_tp"):
        _dp_inputs(b, g)
    if form in ("tp", "dp_tp"):
        _torch_tp(b, g, "model")
    if form == "sp":
        for name in g.inputs:
            b.split(name, 1, "seq")
        for name in g.outputs:
            if len(g.shape(name)) == 3:
                b.split(name, 1, "seq")
    if form not in ("dp", "tp", "dp_tp", "sp"):
        raise ValueError(f"no {form} plan for this model")
    return b.plan()


# ------------------------------------------------------------------ llama
def plan_llama(g, form, mesh):
    b = PlanBuilder(g, mesh)
    layers = sorted({m.group(1) for n in g.inits
                     if (m := re.match(r"layers\.(\d+)\.wq$", n))}, key=int)
    if form in ("dp", "dp_tp"):
        _dp_inputs(b, g)
    if form in ("tp", "dp_tp"):
        ax = "model"
        # Heads are their own dim ([B, H, T, hd]): splitting a weight's columns
        # by whole heads is a block split whatever the batch.
        hd = g.shape("layers.0.wq")[1] // _llama_heads(g)
        kv_ok = (g.shape("layers.0.wk")[1] // hd) % mesh[ax] == 0
        for i in layers:
            p = f"layers.{i}."
            b.split(p + "wq", 1, ax)
            if kv_ok:
                b.split(p + "wk", 1, ax)
                b.split(p + "wv", 1, ax)
            b.split(p + "wo", 0, ax)
            b.split(p + "w_gate", 1, ax)
            b.split(p + "w_up", 1, ax)
            b.split(p + "w_down", 0, ax)
        b.split("lm_head", 1, ax)           # vocab-split LM head
    if form == "sp":
        b.split("input_ids", 1, "seq")
        b.split("logits", 1, "seq")
    if form not in ("dp", "tp", "dp_tp", "sp"):
        raise ValueError(f"no {form} plan for llama")
    return b.plan()


def _llama_heads(g):
    # The q Reshape to [B, T, H, hd] right after the first wq MatMul.
    mm = next(n for n in g.nodes if n.op_type == "MatMul" and n.input[1] == "layers.0.wq")
    rs = next(n for n in g.consumers[mm.output[0]] if n.op_type == "Reshape")
    return g.shape(rs.output[0])[2]


# -------------------------------------------------------------------- MoE
def plan_moe_einsum(g, form, mesh):
    """GShard einsum MoE: w1 [E, d, h], b1 [E, 1, h], w2 [E, h, d], b2 [E, 1, d];
    also its grouped form (moe_grouped: b1 [E, 1, 1, h], b2 [E, 1, 1, d], x's
    dim 0 the groups; ep puts the groups and the experts on one axis, so the
    dispatch result, made split on g, is resharded onto e by an all-to-all)."""
    b = PlanBuilder(g, mesh)
    e1 = g.nodes_where("Einsum", r".")
    w1 = next(n for n in e1 if n.input[-1] == "w1")
    w2 = next(n for n in e1 if n.input[-1] == "w2")
    b1 = next(i for n in g.consumers[w1.output[0]] if n.op_type == "Add"
              for i in n.input if i != w1.output[0])
    b2 = next(i for n in g.consumers[w2.output[0]] if n.op_type == "Add"
              for i in n.input if i != w2.output[0])
    if form == "dp":
        _dp_inputs(b, g)
    elif form == "ep":
        b.split("x", 0, "expert")            # tokens (batch rows) on the expert axis
        for w in ("w1", "w2", b1, b2):
            b.split(w, 0, "expert")
    elif form == "tp":                       # the experts' hidden dim
        b.split("w1", 2, "model")
        b.split(b1, len(g.shape(b1)) - 1, "model")   # h: its last dim
        b.split("w2", 1, "model")
    else:
        raise ValueError(f"no {form} plan for moe_einsum")
    return b.plan()


def plan_moe_topk(g, form, mesh):
    """Routed MoE: w_gate/w_up [E, d, h], w_down [E, h, d]."""
    b = PlanBuilder(g, mesh)
    if form == "dp":
        _dp_inputs(b, g)
    elif form == "ep":
        b.split("x", 0, "expert")
        for w in ("w_gate", "w_up", "w_down"):
            b.split(w, 0, "expert")
    elif form == "tp":
        b.split("w_gate", 2, "model")
        b.split("w_up", 2, "model")
        b.split("w_down", 1, "model")
    else:
        raise ValueError(f"no {form} plan for moe_topk")
    return b.plan()


def plan_reductions(g, form, mesh):
    """x [B, T, d] @ w_in [d, hidden]: splitting the hidden dim splits the
    written-out softmax's max and sum and the token max; splitting the
    sequence splits the max and min pools."""
    b = PlanBuilder(g, mesh)
    if form == "dp":
        _dp_inputs(b, g)
    elif form in ("tp", "sp", "sp_tp"):
        if form != "tp":
            b.split("x", 1, "seq")
        if form != "sp":
            b.split("w_in", 1, "model")
    else:
        raise ValueError(f"no {form} plan for reductions")
    return b.plan()


# ------------------------------------------------------------------ ResNet
def plan_resnet(g, form, mesh):
    b = PlanBuilder(g, mesh)
    if form in ("dp", "dp_ch"):
        _dp_inputs(b, g)
    if form in ("ch", "dp_ch"):
        ax = "model"
        for c1 in g.nodes_where("Conv", r"/conv1/Conv_output_0$"):
            if not c1.output[0].startswith("/layer"):
                continue                     # the stem conv stays whole
            c2_out = c1.output[0].replace("/conv1/", "/conv2/")
            c2 = g.producer[c2_out]
            # [Cout, Cin, kh, kw]: output channels. The biases are left to
            # completion: the exporter aliases equal biases (the folded batch
            # norms) of different convs, the stem's among them.
            b.split(c1.input[1], 0, ax)
            b.split(c2.input[1], 1, ax)      # input channels: partial, all-reduce
    if form not in ("dp", "ch", "dp_ch"):
        raise ValueError(f"no {form} plan for resnet18")
    return b.plan()


PLANNERS = {
    "gpt": plan_gpt_like, "bert": plan_gpt_like, "vit": plan_gpt_like,
    "llama": plan_llama, "moe_einsum": plan_moe_einsum,
    "moe_grouped": plan_moe_einsum, "moe_topk": plan_moe_topk,
    "resnet18": plan_resnet, "reductions": plan_reductions,
}


def example_case(model, ranks):
    """(form, mesh spec, batch) of scripts/run-example.sh MODEL --ranks N: data x
    tensor on 2 x N/2 for the language models (batch 2: one row per data rank,
    so the heads split of the torch exports is a block split), tensor (ViT) or
    channel (ResNet) parallel at batch 1, expert parallel for the MoEs, data
    parallel for the language models on an odd number of ranks."""
    if ranks < 2:
        raise ValueError("--ranks needs 2 or more")
    if model in ("gpt", "bert", "llama"):
        if ranks % 2 == 0 and ranks > 2:
            return "dp_tp", f"data=2,model={ranks // 2}", 2
        return "dp", f"data={ranks}", ranks
    if model == "vit":
        return "tp", f"model={ranks}", 1
    if model == "resnet18":
        return "ch", f"model={ranks}", 1
    if model in ("moe_einsum", "moe_grouped", "moe_topk"):
        return "ep", f"expert={ranks}", ranks
    raise ValueError(f"no example plan for {model!r}")


def make_plan(model, onnx_path, form, mesh):
    """The plan (a dict, plan.json's form) for `model` (a make_models name)."""
    return PLANNERS[model](Graph(onnx_path), form, mesh)


def plan_text(plan):
    """plan.json text, one sharding a line."""
    lines = ["{", f'  "mesh": {json.dumps(plan["mesh"])},', '  "shardings": {']
    items = list(plan["shardings"].items())
    for k, (name, dims) in enumerate(items):
        comma = "," if k + 1 < len(items) else ""
        lines.append(f"    {json.dumps(name)}: {json.dumps(dims)}{comma}")
    lines += ["  }", "}", ""]
    return "\n".join(lines)


def parse_mesh(spec):
    mesh = {}
    for part in spec.split(","):
        k, v = part.split("=")
        mesh[k] = int(v)
    return mesh


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("onnx", nargs="?")
    ap.add_argument("--model", choices=sorted(PLANNERS))
    ap.add_argument("--form", choices=FORMS)
    ap.add_argument("--mesh", help="data=2,model=2")
    ap.add_argument("-o", "--out", help="write the plan here (default: stdout)")
    ap.add_argument("--example-case", type=int, metavar="RANKS",
                    help="print scripts/run-example.sh's FORM MESH BATCH for --model "
                         "on RANKS ranks and exit")
    a = ap.parse_args(argv)
    if a.example_case:
        print(*example_case(a.model, a.example_case))
        return 0
    if not (a.onnx and a.model and a.form and a.mesh):
        ap.error("give MODEL.onnx --model NAME --form FORM --mesh SPEC")
    text = plan_text(make_plan(a.model, a.onnx, a.form, parse_mesh(a.mesh)))
    if a.out:
        with open(a.out, "w") as f:
            f.write(text)
    else:
        sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
