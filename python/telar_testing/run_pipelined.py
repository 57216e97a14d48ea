#!/usr/bin/env python3
"""Pipelined execution end to end: every suite model in 2 and 4 stages, planned and by hand.

Usage:
    .venv/bin/python python/telar_testing/run_pipelined.py --make DIR [--only gpt,llama]
        [--cases 'gpt auto*'] [--sources auto,hand,error,refuse,memory]
        [--telarc build/bin/telarc]
        [--telar-run PATH] [--jobs 1] [--timeout 180] [--rtol 1e-4] [--atol 1e-4]
        [--no-gloo] [--print-plans] [--keep] [--json out.json]
    .venv/bin/python python/telar_testing/run_pipelined.py --list

Everything goes through the tools users run (telarc, telar-run); nothing calls
the compiler's or the runtime's internals. A case is a model (make_models.py's
suite, sharded_plans.py's 8 families, or this file's `mlp`), a plan source, a
stage count S, a microbatch count M, a batch B and the backends it runs under
(the CASES table below; `--list` prints it). The models are built into
DIR/b<B>/ (make_models.py --batch B, checked against the framework and
onnxruntime); the single-device reference is runner.py's (`telarc
NAME.onnx -o NAME.single --target cpu -q`, telar-run on one rank, --threads 1).

Plan sources:
    auto    the planner, forced to S stages:
                telarc NAME.onnx --target cpu --devices 4 --pipeline-stages S
                    --microbatches M -o DIR/CASE/artifact -q
            (a case may add --schedule 1f1b|interleaved and --virtual-stages
            V: then S = positions x V). plan.json (in the artifact) must
            have S stages, M microbatches and that schedule.
    hand    a hand-written staged plan.json (DIR/plans/CASE.json, printed with
            --print-plans), compiled with `telarc NAME.onnx --target cpu --plan
            P -o ...`. Its stages cut @main's ops, in program order, into S
            equal parts: the value names are those `telarc NAME.onnx
            --emit=plan` lists, ordered by the ONNX graph's node order (a
            derived name `X#k` right before `X`, docs/Plan.md), graph inputs,
            weights and constant-only ops (ONNX Constant nodes and nodes whose
            operands are all weights or constants) left out of every stage
            (the compiler copies them into each stage using them, contract
            section 1). With tp 2 (`s2xtp2` in the case name) each stage is
            on {"model": 2} (first ranks 0, 2, ...) with the Megatron
            shardings of sharded_plans.py's tensor parallel plan (`tp`; `ch` for resnet18) restricted to the stage:
            the plan's values the stage computes, and the weights its ops (or
            the constant-only ops it copies) read. Without, each stage is on
            one device. The schedule is {"kind": "gpipe", "microbatches": M}.
    error   M does not divide the batch: `telarc NAME.onnx --target cpu
            --devices 4 --pipeline-stages 2 --microbatches M` must fail with
            "--microbatches M does not divide the batch (B, dim 0 of 'X')" (X:
            the first graph input), and a hand plan with that schedule must
            fail with "does not divide the batch".
    refuse  a model whose batch rows meet (REFUSED_AT: moe_einsum's CumSum
            over every token, moe_topk's ScatterElements routing): M = 2
            must be refused from the flag and from a hand plan's schedule,
            the message naming that op ("'telar.cum_sum' (value ...) mixes
            microbatches").
    memory  `telarc NAME.onnx --target cpu --devices 4 --memory-limit L` must
            choose a pipelined plan (plan.json has >= 2 stages) and run, and
            `--no-pipeline` with the same limit must fail (no plan without
            stages fits): the issue's "a model too large for one device
            group". The model is `mlp` (below) unless the case says otherwise.

Each artifact (a manifest of version 4 with S stage directories, world size
= the ranks) runs as
    telar-run DIR/CASE/artifact -n R --input X=... --output-dir .../out \\
        --threads 1 --report .../report.json -q          (MPI, mpirun)
and, for the cases marked gloo, as R plain processes with the TELAR_*
variables (run_ranks.py, the Gloo backend over a TCP rendezvous). Every
output is compared (tensor_compare.compare) with onnxruntime's and with the
single-device telar run's, both within --rtol/--atol (1e-4, the fp32 tolerance
of the sharded suite); whether it is bitwise equal to the single-device output
is reported too (column `bitwise`): stages on one device each run the same
kernels on fewer rows, tensor parallel stages add partial sums in another
order. The report must have every rank's "pipeline" entry (busy_s, wait_s,
wall_s, idle_fraction).

The `mlp` model (build_mlp): x float32 [B, D] through L residual blocks
h + W2 relu(W1 h + b1) + b2 (W1 [D, 4D], W2 [4D, D]), written with
make_models.GraphBuilder and checked against numpy; bench/pipeline_bubble
builds its models with it too.

Prints one line per case (`PASS gpt auto s2 m2 b4 (...)` or `FAIL ... STAGE:
message`), a table, and last `run-pipelined: N passed, N failed`. Exit 1 when
a case fails, 2 on usage errors. Every command runs under --timeout seconds
in a process group of its own (runner.run_cmd; the Gloo ranks under
run_ranks.run_ranks's timeout).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import sharded_plans  # noqa: E402
from run_models import first_error_line, print_markdown_table  # noqa: E402
from run_ranks import run_ranks  # noqa: E402
from runner import (Runner, add_common_arguments, filter_cases, fmt,  # noqa: E402
                    kill_commands_on_exit, run_cmd, run_harness)

SUITE = tuple(sharded_plans.PLANNERS)
# sharded_plans.py's tensor parallel form of each model.
TP_FORM = {"resnet18": "ch"}
SOURCES = ("auto", "hand", "error", "refuse", "memory")


# ------------------------------------------------------------------ the MLP
MLP_SIZES = {
    # The memory case: 16 MiB of weights, 2 MiB per [B, D] activation, 8 MiB
    # per [B, 4D] one. Under --memory-limit 8MB on 4 devices no plan without
    # stages fits (the planner: "needs at least 8.5 MiB per device"; tensor
    # parallelism splits the weights but not all activations, data
    # parallelism the activations but not the weights); 4 stages on one
    # device each hold 4 MiB of weights and activations of B/M rows.
    "memory": dict(d=256, layers=8, batch=2048),
    "small": dict(d=64, layers=4, batch=8),
}


def build_mlp(d, layers, batch, seed=0, ff=4):
    """(onnx model, inputs, numpy reference outputs) of the residual MLP:
    x [batch, d] float32 -> y [batch, d], `layers` blocks of
    h + relu(h @ W1 + b1) @ W2 + b2."""
    from onnx import TensorProto
    import make_models
    rng = np.random.default_rng(seed)
    g = make_models.GraphBuilder("mlp")
    h = g.input("x", TensorProto.FLOAT, [batch, d])
    ws = []
    for i in range(layers):
        w1 = (rng.standard_normal((d, ff * d)) / np.sqrt(d)).astype(np.float32)
        b1 = (rng.standard_normal(ff * d) * 0.1).astype(np.float32)
        w2 = (rng.standard_normal((ff * d, d)) * 0.5 / np.sqrt(ff * d)).astype(np.float32)
        b2 = (rng.standard_normal(d) * 0.1).astype(np.float32)
        ws.append((w1, b1, w2, b2))
        p = f"layers.{i}."
        a = g.op("MatMul", [h, g.init(p + "w1", w1)], hint=p + "fc1")
        a = g.op("Add", [a, g.init(p + "b1", b1)], hint=p + "fc1_bias")
        a = g.op("Relu", [a], hint=p + "relu")
        a = g.op("MatMul", [a, g.init(p + "w2", w2)], hint=p + "fc2")
        a = g.op("Add", [a, g.init(p + "b2", b2)], hint=p + "fc2_bias")
        h = g.op("Add", [h, a], hint=p + "residual")
    g.output(h, "y", TensorProto.FLOAT, [batch, d])
    x = rng.standard_normal((batch, d)).astype(np.float32)
    ref = x
    for w1, b1, w2, b2 in ws:
        ref = ref + np.maximum(ref @ w1 + b1, 0) @ w2 + b2
    return g.model(13), {"x": x}, {"y": ref.astype(np.float32)}


def write_mlp(out_dir, name="mlp", check=True, **size):
    """Writes NAME.onnx, NAME.inputs.npz, NAME.outputs.npz (numpy) and
    NAME.ort_outputs.npz (onnxruntime, checked against numpy: rtol 1e-3,
    atol 1e-4) into out_dir; returns the model's path."""
    import onnx
    import make_models
    os.makedirs(out_dir, exist_ok=True)
    model, inputs, ref = build_mlp(**size)
    path = os.path.join(out_dir, f"{name}.onnx")
    onnx.save(model, path)
    np.savez(os.path.join(out_dir, f"{name}.inputs.npz"), **inputs)
    np.savez(os.path.join(out_dir, f"{name}.outputs.npz"), **ref)
    if check:
        onnx.checker.check_model(model, full_check=True)
        got = make_models.run_ort(path, inputs)
        for k, r in ref.items():
            if not np.allclose(got[k], r, rtol=1e-3, atol=1e-4):
                raise RuntimeError(f"{name}: onnxruntime differs from numpy on {k}: max abs "
                                   f"{float(np.max(np.abs(got[k] - r))):g}")
        np.savez(os.path.join(out_dir, f"{name}.ort_outputs.npz"), **got)
    return path


# ------------------------------------------------------------------- cases
class Case:
    def __init__(self, model, source, stages=2, microbatches=1, batch=4, tp=1,
                 gloo=False, limit=None, size=None, note="", schedule=None, virtual=1):
        self.schedule, self.virtual = schedule, virtual
        self.model, self.source, self.stages = model, source, stages
        self.microbatches, self.batch, self.tp = microbatches, batch, tp
        self.gloo, self.limit, self.size, self.note = gloo, limit, size, note

    @property
    def ranks(self):
        if self.source == "hand":
            return self.stages * self.tp
        return 4

    @property
    def name(self):
        if self.source == "memory":
            return f"{self.model} memory {self.limit} b{self.batch}"
        if self.source in ("error", "refuse"):
            return f"{self.model} {self.source} m{self.microbatches} b{self.batch}"
        tp = f"xtp{self.tp}" if self.tp > 1 else ""
        v = f"v{self.virtual}" if self.virtual > 1 else ""
        sched = f" {self.schedule}" if self.schedule else ""
        return (f"{self.model} {self.source} s{self.stages}{v}{tp} m{self.microbatches} "
                f"b{self.batch}{sched}")

    @property
    def slug(self):
        return re.sub(r"[^A-Za-z0-9_.-]", "_", self.name.replace(" ", "."))


# The models whose microbatches never meet (telarc makes their microbatch
# program). The others' is refused, naming the op whose loop over the batch
# is computed whole (contract section 1): moe_einsum's capacity CumSum runs
# over every token (a real dependency between batch rows), moe_topk's
# ScatterElements routing has a sharding rule that needs its rows
# replicated.
REFUSED_AT = {"moe_einsum": "telar.cum_sum", "moe_topk": "telar.scatter_elements"}
MICROBATCHED = tuple(m for m in SUITE if m not in REFUSED_AT)


def _suite_cases():
    out = []
    for m in SUITE:
        mb = m in MICROBATCHED
        # The planner's pipelines: 2 and 4 stages over 4 devices; M = 1, 2, 4
        # where the model can be microbatched.
        out.append(Case(m, "auto", 2, 2 if mb else 1, 4,
                        gloo=m in ("gpt", "llama", "resnet18")))
        out.append(Case(m, "auto", 4, 1, 4, gloo=m in ("bert", "moe_topk")))
        if mb:
            out.append(Case(m, "auto", 4, 4, 4))
        # By hand: 2 stages x 2-way tensor parallel. The torch attention merges
        # batch and heads (sharded_plans.py), so the transformers run
        # microbatches of one row, the heads split a block split.
        if mb:
            out.append(Case(m, "hand", 2, 2, 4 if m == "moe_grouped" else 2, tp=2,
                            gloo=m in ("vit", "moe_grouped")))
        else:
            out.append(Case(m, "hand", 2, 1, 4, tp=2))
        # By hand: 2 stages on one device each (2 ranks).
        out.append(Case(m, "hand", 2, 4 if mb else 1, 4))
        if not mb:
            out.append(Case(m, "refuse", microbatches=2, batch=4))
    out += [
        Case("gpt", "hand", 4, 2, 4, note="4 stages on one device each"),
        Case("gpt", "hand", 2, 1, 1, tp=2, note="one microbatch of one row"),
        Case("bert", "hand", 4, 2, 4, note="4 stages on one device each"),
        Case("moe_einsum", "hand", 4, 1, 4, note="4 stages on one device each"),
        Case("llama", "hand", 4, 2, 4, gloo=True, note="4 stages on one device each"),
        Case("llama", "auto", 2, 1, 4),
        Case("llama", "auto", 2, 4, 4, gloo=True),
        Case("llama", "auto", 2, 4, 4, schedule="1f1b"),
        Case("gpt", "auto", 4, 4, 4, schedule="interleaved", virtual=2, gloo=True,
             note="2 positions x 2 virtual stages"),
        Case("llama", "error", microbatches=3, batch=4),
        Case("resnet18", "error", microbatches=3, batch=4),
        Case("mlp", "memory", batch=MLP_SIZES["memory"]["batch"], limit="8MB", gloo=True,
             size="memory", note="16 MiB of weights, 2-8 MiB per activation"),
    ]
    return out


CASES = _suite_cases()


# ------------------------------------------------------------- hand plans
class StagedGraph(sharded_plans.Graph):
    """The ONNX graph with what a staged plan needs: which node computes a
    plan value name, which nodes read only weights and constants."""

    def __init__(self, path):
        super().__init__(path)
        self.weights = set(self.inits)
        # Identity aliases of weights (the torch exporter's shared weights).
        self.alias = {}
        for n in self.nodes:
            if n.op_type == "Identity":
                self.alias[n.output[0]] = self.resolve(n.output[0])
        constant = set(self.inits) | set(self.alias)
        self.constant_nodes = set()
        for k, n in enumerate(self.nodes):
            if n.op_type == "Constant" or (n.op_type != "Identity" and n.input and all(
                    (not i) or i in constant for i in n.input)):
                self.constant_nodes.add(k)
                constant.update(n.output)
        self.constant = constant

    def node_of_name(self, name):
        base = name.split("#", 1)[0] if "#" in name else name
        n = self.producer.get(base)
        return self.nodes.index(n) if n is not None else None


def program_order(g, names):
    """The plan's value names an op computes, in program order: the ONNX node
    order, a derived name 'X#k' right before X (the node's ops end with the one
    producing X), names the graph does not know at the end; weights, graph
    inputs and constant-only values left out."""
    names = [n for n in names if n not in g.weights and n not in g.inputs
             and n not in g.alias]
    derived = {}
    for n in names:
        if "#" in n:
            base, k = n.rsplit("#", 1)
            derived.setdefault(base, []).append((int(k) if k.isdigit() else 0, n))
    placed, order = set(), []
    for k, node in enumerate(g.nodes):
        if k in g.constant_nodes:
            for o in node.output:
                placed.update(x for _, x in derived.get(o, []))
                placed.add(o)
            continue
        for o in node.output:
            for _, d in sorted(derived.get(o, [])):
                order.append(d)
                placed.add(d)
            if o in names and o not in placed:
                order.append(o)
                placed.add(o)
    order += [n for n in sorted(names) if n not in placed]
    return order


def staged_plan(model, onnx_path, names, stages, microbatches, tp):
    """The hand-written staged plan (plan.json's dict): `names` (telarc
    --emit=plan's value names) in program order cut into `stages` equal
    parts; with tp > 1 each stage on {"model": tp} with sharded_plans.py's
    tensor parallel shardings restricted to the stage."""
    g = StagedGraph(onnx_path)
    order = program_order(g, names)
    if len(order) < stages:
        raise ValueError(f"{len(order)} ops cannot make {stages} stages")
    cuts = [round(len(order) * s / stages) for s in range(stages + 1)]
    stage_of = {}
    plan_stages = []
    for s in range(stages):
        ops = order[cuts[s]:cuts[s + 1]]
        for o in ops:
            stage_of[o] = s
        plan_stages.append({"ops": ops, "mesh": {"model": tp} if tp > 1 else {},
                            "first_rank": s * tp, "shardings": {}})
    if tp > 1:
        form = TP_FORM.get(model, "tp")
        tp_plan = sharded_plans.make_plan(model, onnx_path, form, {"model": tp})

        def stages_reading(value, seen=()):
            """Stages whose ops read `value` (through constant-only ops, which
            every stage using them copies)."""
            out = set()
            aliases = {value} | {a for a, r in g.alias.items() if r == value}
            for v in aliases:
                for n in g.consumers.get(v, []):
                    k = g.nodes.index(n)
                    if k in g.constant_nodes:
                        for o in n.output:
                            if o not in seen:
                                out |= stages_reading(o, seen + (o,))
                        continue
                    for o in n.output:
                        cands = [o] + [x for x in stage_of if x.startswith(o + "#")]
                        out |= {stage_of[x] for x in cands if x in stage_of}
            return out

        for name, dims in tp_plan["shardings"].items():
            if name in stage_of:
                targets = {stage_of[name]}
            else:
                targets = stages_reading(name)
            for s in targets:
                plan_stages[s]["shardings"][name] = dims
    return {"stages": plan_stages,
            "schedule": {"kind": "gpipe", "microbatches": microbatches,
                         "virtual_stages": 1}}


def staged_plan_text(plan):
    """plan.json text: one stage's ops on a line each, one sharding a line."""
    lines = ["{", '  "stages": [']
    for k, st in enumerate(plan["stages"]):
        lines.append("    {")
        lines.append(f'      "mesh": {json.dumps(st["mesh"])}, "first_rank": '
                     f'{st["first_rank"]},')
        lines.append(f'      "ops": {json.dumps(st["ops"])},')
        items = sorted(st["shardings"].items())
        if not items:
            lines.append('      "shardings": {}')
        else:
            lines.append('      "shardings": {')
            for j, (name, dims) in enumerate(items):
                comma = "," if j + 1 < len(items) else ""
                lines.append(f"        {json.dumps(name)}: {json.dumps(dims)}{comma}")
            lines.append("      }")
        lines.append("    }" + ("," if k + 1 < len(plan["stages"]) else ""))
    lines.append("  ],")
    lines.append(f'  "schedule": {json.dumps(plan["schedule"])}')
    lines += ["}", ""]
    return "\n".join(lines)


# ------------------------------------------------------------------ checks
def mesh_text(mesh):
    return ",".join(f"{k}={v}" for k, v in mesh.items()) or "1"


def stages_text(plan):
    """'model=2@0 / model=2@2': each stage's submesh and first rank."""
    st = plan.get("stages") or []
    if not st:
        return f"one stage {mesh_text(plan.get('mesh', {}))}"
    return " / ".join(f"{mesh_text(s.get('mesh', {}))}@{s.get('first_rank', 0)}" for s in st)


def pipeline_reports(rep, ranks):
    """Every rank's "pipeline" entry of telar-run's --report ({"busy_s",
    "wait_s", "wall_s", "idle_fraction"}, in rank order), or a message
    saying what is missing."""
    if not isinstance(rep, dict):
        return "no report"
    entries = [r.get("pipeline") for r in rep.get("ranks", []) if isinstance(r, dict)]
    if len(entries) != ranks or any(not isinstance(e, dict) for e in entries):
        return (f"the report has {sum(isinstance(e, dict) for e in entries)} ranks' "
                f"\"pipeline\" entries, expected {ranks}")
    for r, e in enumerate(entries):
        for k in ("busy_s", "wait_s", "wall_s", "idle_fraction"):
            if not isinstance(e.get(k), (int, float)):
                return f"rank {r}'s \"pipeline\" lacks {k}"
        if not 0 <= e["idle_fraction"] <= 1:
            return f"rank {r}'s idle_fraction {e['idle_fraction']} is not in [0, 1]"
    return entries


class PipelinedRunner(Runner):
    def make_models(self, cases):
        failed = super().make_models([c for c in cases if c.model in SUITE])
        for c in cases:
            if c.model in SUITE:
                continue
            d = self.model_dir(c.batch)
            if os.path.exists(os.path.join(d, f"{c.model}.ort_outputs.npz")):
                continue
            try:
                size = dict(MLP_SIZES[c.size or "small"])
                size["batch"] = c.batch
                write_mlp(d, c.model, **size)
            except Exception as e:
                failed += 1
                print(f"{c.model}: FAILED: {type(e).__name__}: {e}", file=sys.stderr)
        return failed

    def value_names(self, onnx_path):
        rc, err, out, _ = run_cmd([self.a.telarc, onnx_path, "--emit=plan"], self.a.timeout)
        if rc != 0:
            raise RuntimeError(f"telarc --emit=plan rc={rc}: {first_error_line(err)}")
        return list(json.loads(out)["shardings"])

    def write_hand_plan(self, case, onnx_path, microbatches=None):
        plan = staged_plan(case.model, onnx_path, self.value_names(onnx_path), case.stages,
                           microbatches or case.microbatches, case.tp)
        plans = os.path.join(self.a.dir, "plans")
        os.makedirs(plans, exist_ok=True)
        path = os.path.join(plans, case.slug + (f".m{microbatches}" if microbatches else "")
                            + ".json")
        text = staged_plan_text(plan)
        with open(path, "w") as f:
            f.write(text)
        if self.a.print_plans:
            with self.lock:
                print(f"plan {case.name}:\n{text}", end="", flush=True)
        return path

    def run_gloo(self, res, art, manifest, in_args, refs, ranks, case_dir):
        out_dir = os.path.join(case_dir, "out-gloo")
        cmd = [self.a.telar_run, art, "--output-dir", out_dir, "--threads", "1", "-q"] + in_args
        with self.run_slots:
            codes, _, errs, secs = run_ranks(cmd, ranks, timeout=self.a.timeout)
        if any(c is None for c in codes):
            res.update(stage="gloo", message=f"timed out after {self.a.timeout}s")
            return False
        bad = [r for r, c in enumerate(codes) if c != 0]
        if bad:
            res.update(stage="gloo", message=f"rank {bad[0]} rc={codes[bad[0]]}: "
                       f"{first_error_line(errs[bad[0]])}")
            return False
        res["gloo_s"] = secs
        problems = self.compare(manifest, out_dir, refs, res["gloo_outputs"])
        if problems:
            res.update(stage="gloo-compare", message="; ".join(problems))
            return False
        return True

    def bitwise(self, manifest, out_dir, single):
        got = self.read_outputs(manifest, out_dir)
        return all(g is not None and g.shape == single[k].shape and g.dtype == single[k].dtype
                   and np.array_equal(g, single[k]) for k, g in got.items())

    def check(self, case):
        a = self.a
        res = {"case": case.name, "model": case.model, "source": case.source,
               "stages": case.stages, "microbatches": case.microbatches, "batch": case.batch,
               "ranks": case.ranks, "ok": False, "stage": None, "message": "",
               "compile_s": None, "run_s": None, "gloo_s": None, "outputs": [],
               "gloo_outputs": [], "report": None, "plan": None, "bitwise": None,
               "idle": None}
        d = self.model_dir(case.batch)
        onnx_path = os.path.join(d, f"{case.model}.onnx")
        case_dir = os.path.join(a.dir, case.slug)
        art = os.path.join(case_dir, "artifact")
        try:
            shutil.rmtree(case_dir, ignore_errors=True)
            os.makedirs(case_dir)
            if case.source == "error":
                return self.check_error(case, res, onnx_path, art)
            if case.source == "refuse":
                return self.check_refusal(case, res, onnx_path, art)
            if case.source == "auto":
                cmd = [a.telarc, onnx_path, "--target", "cpu", "--devices", str(case.ranks),
                       "--pipeline-stages", str(case.stages), "--microbatches",
                       str(case.microbatches), "--search-time-limit",
                       str(a.search_time_limit), "-o", art, "-q"]
                if case.schedule:
                    cmd += ["--schedule", case.schedule]
                if case.virtual > 1:
                    cmd += ["--virtual-stages", str(case.virtual)]
            elif case.source == "memory":
                # No plan without stages fits the limit...
                rc, err, _, _ = run_cmd([a.telarc, onnx_path, "--devices", str(case.ranks),
                                         "--memory-limit", case.limit, "--no-pipeline",
                                         "--search-time-limit", str(a.search_time_limit),
                                         "--emit=plan"], a.timeout)
                if rc == 0:
                    res.update(stage="no-pipeline", message=f"--no-pipeline --memory-limit "
                               f"{case.limit} found a plan: the limit does not force stages")
                    return res
                res["no_pipeline"] = first_error_line(err)
                # ... and the planner's own choice is a pipeline.
                cmd = [a.telarc, onnx_path, "--target", "cpu", "--devices", str(case.ranks),
                       "--memory-limit", case.limit, "--search-time-limit",
                       str(a.search_time_limit), "-o", art, "-q"]
            else:
                try:
                    plan_path = self.write_hand_plan(case, onnx_path)
                except Exception as e:
                    res.update(stage="plan", message=f"{type(e).__name__}: {e}")
                    return res
                cmd = [a.telarc, onnx_path, "--target", "cpu", "--plan", plan_path,
                       "-o", art, "-q"]
            rc, err, _, secs = run_cmd(cmd, a.timeout)
            res["compile_s"] = secs
            if rc != 0:
                res.update(stage="telarc", message=f"rc={rc}: {first_error_line(err)}")
                return res
            problem = self.check_artifact(case, res, art)
            if problem:
                res.update(stage="artifact", message=problem)
                return res
            manifest = json.load(open(os.path.join(art, "manifest.json")))
            ran = self.run_artifact(res, case_dir, art, manifest, case.model, case.batch,
                                    case.ranks)
            if ran is None:
                return res
            in_args, refs = ran
            entries = pipeline_reports(res["report"], case.ranks)
            if isinstance(entries, str):
                res.update(stage="report", message=entries)
                return res
            res["idle"] = [e["idle_fraction"] for e in entries]
            res["bitwise"] = self.bitwise(manifest, os.path.join(case_dir, "out"),
                                          refs["telar-1"])
            if case.gloo and not a.no_gloo:
                if not self.run_gloo(res, art, manifest, in_args, refs, case.ranks, case_dir):
                    return res
                if res["bitwise"] is not None:
                    res["bitwise"] = res["bitwise"] and self.bitwise(
                        manifest, os.path.join(case_dir, "out-gloo"), refs["telar-1"])
            res["ok"] = True
            return res
        except Exception as e:  # one broken case must not stop the others
            res.update(stage=res["stage"] or "checker", message=f"{type(e).__name__}: {e}")
            return res
        finally:
            if not a.keep:
                for sub in ("artifact", "in", "out", "out-gloo"):
                    shutil.rmtree(os.path.join(case_dir, sub), ignore_errors=True)

    def check_artifact(self, case, res, art):
        """plan.json and manifest.json of a pipelined artifact against the
        case; a message, or None when they agree."""
        try:
            plan = json.load(open(os.path.join(art, "plan.json")))
            manifest = json.load(open(os.path.join(art, "manifest.json")))
        except (OSError, ValueError) as e:
            return f"cannot read the artifact's plan.json/manifest.json: {e}"
        res["plan"] = stages_text(plan)
        stages = plan.get("stages") or []
        sched = plan.get("schedule") or {}
        res["plan_microbatches"] = sched.get("microbatches", 1)
        if case.source == "memory":
            if len(stages) < 2:
                return f"plan.json has {len(stages)} stages under --memory-limit " \
                       f"{case.limit}, expected >= 2 ({res['plan']})"
        elif len(stages) != case.stages:
            return f"plan.json has {len(stages)} stages, expected {case.stages}"
        if case.source != "memory" and res["plan_microbatches"] != case.microbatches:
            return (f"plan.json's schedule has {res['plan_microbatches']} microbatches, "
                    f"expected {case.microbatches}")
        kind = sched.get("kind", "gpipe")
        if case.schedule and kind != case.schedule:
            return f"plan.json's schedule is {kind}, expected {case.schedule}"
        if sched.get("virtual_stages", 1) != case.virtual:
            return (f"plan.json's schedule has {sched.get('virtual_stages', 1)} virtual "
                    f"stages, expected {case.virtual}")
        res["schedule"] = kind
        if manifest.get("format_version") != 4 or "pipeline" not in manifest:
            return (f"manifest format_version {manifest.get('format_version')}"
                    f"{'' if 'pipeline' in manifest else ' without a pipeline'}, expected a "
                    f"version 4 pipeline")
        if manifest.get("world_size") != case.ranks:
            return f"world_size {manifest.get('world_size')}, expected {case.ranks}"
        pipe = manifest.get("pipeline") or {}
        if len(pipe.get("stages", [])) != len(stages):
            return (f"the manifest's pipeline has {len(pipe.get('stages', []))} stages, "
                    f"plan.json {len(stages)}")
        for k, st in enumerate(pipe["stages"]):
            if not os.path.exists(os.path.join(art, st.get("directory", ""), "manifest.json")):
                return f"stage {k}'s directory {st.get('directory')!r} has no manifest.json"
        if len(pipe.get("schedule_table", [])) != case.ranks:
            return (f"schedule_table has {len(pipe.get('schedule_table', []))} lists, "
                    f"expected one per rank ({case.ranks})")
        res["transfers"] = len(pipe.get("transfers", []))
        return None

    def check_error(self, case, res, onnx_path, art):
        """M not dividing the batch: both ways of asking for it must fail
        with the contract's message."""
        a = self.a
        g = sharded_plans.Graph(onnx_path)
        first = g.inputs[0]
        want = (f"--microbatches {case.microbatches} does not divide the batch "
                f"({case.batch}, dim 0 of '{first}')")
        rc, err, _, secs = run_cmd([a.telarc, onnx_path, "--target", "cpu", "--devices", "4",
                                    "--pipeline-stages", "2", "--microbatches",
                                    str(case.microbatches), "-o", art, "-q"], a.timeout)
        res["compile_s"] = secs
        if rc == 0 or rc is None:
            res.update(stage="telarc", message=f"rc={rc}, expected an error: {want}")
            return res
        if want not in err:
            res.update(stage="telarc", message=f"rc={rc} without {want!r}: "
                       f"{first_error_line(err)}")
            return res
        res["message_seen"] = want
        hand = Case(case.model, "hand", 2, case.microbatches, case.batch)
        try:
            plan_path = self.write_hand_plan(hand, onnx_path)
        except Exception as e:
            res.update(stage="plan", message=f"{type(e).__name__}: {e}")
            return res
        rc, err, _, _ = run_cmd([a.telarc, onnx_path, "--target", "cpu", "--plan", plan_path,
                                 "-o", art + "-hand", "-q"], a.timeout)
        shutil.rmtree(art + "-hand", ignore_errors=True)
        if rc == 0 or rc is None or "does not divide the batch" not in err:
            res.update(stage="hand-plan", message=f"rc={rc}, expected 'does not divide the "
                       f"batch': {first_error_line(err)}")
            return res
        res["ok"] = True
        return res


    def check_refusal(self, case, res, onnx_path, art):
        """A model whose microbatches would meet: M > 1 must be refused, from
        the flag and from a plan's schedule, naming the op (REFUSED_AT)."""
        a = self.a
        want = re.compile(r"'([a-z_.]+)' \(value '[^']*'\) mixes microbatches")
        hand = Case(case.model, "hand", 2, case.microbatches, case.batch)
        try:
            plan_path = self.write_hand_plan(hand, onnx_path)
        except Exception as e:
            res.update(stage="plan", message=f"{type(e).__name__}: {e}")
            return res
        for how, cmd in (
                ("flag", [a.telarc, onnx_path, "--target", "cpu", "--devices", "4",
                          "--pipeline-stages", "2", "--microbatches", str(case.microbatches),
                          "--search-time-limit", str(a.search_time_limit), "-o", art, "-q"]),
                ("plan", [a.telarc, onnx_path, "--target", "cpu", "--plan", plan_path,
                          "-o", art + "-hand", "-q"])):
            rc, err, _, secs = run_cmd(cmd, a.timeout)
            res["compile_s"] = (res["compile_s"] or 0) + secs
            shutil.rmtree(art + "-hand", ignore_errors=True)
            m = want.search(err)
            if rc == 0 or rc is None or not m:
                res.update(stage=f"refusal-{how}", message=f"rc={rc}, expected '... mixes "
                           f"microbatches': {first_error_line(err)}")
                return res
            if m.group(1) != REFUSED_AT.get(case.model, m.group(1)):
                res.update(stage=f"refusal-{how}", message=f"refused at {m.group(1)}, "
                           f"expected {REFUSED_AT[case.model]}")
                return res
            res["message_seen"] = m.group(0)
        res["ok"] = True
        return res


# ------------------------------------------------------------------ output
def describe(res):
    if not res["ok"]:
        extra = f" (plan {res['plan']})" if res.get("plan") else ""
        return f"FAIL {res['case']} {res['stage']}: {res['message']}{extra}"
    if res["source"] in ("error", "refuse"):
        return f"PASS {res['case']} (error: {res['message_seen']})"
    one = max((o.get("telar-1", {}).get("max_abs", 0) for o in res["outputs"]), default=0)
    gloo = f", gloo {res['gloo_s']:.1f}s" if res["gloo_s"] is not None else ""
    return (f"PASS {res['case']} (stages {res['plan']}, M {res['plan_microbatches']}, "
            f"{res.get('schedule', 'gpipe')}, "
            f"{res.get('transfers', 0)} transfers; vs single-device "
            f"{'bitwise' if res['bitwise'] else f'max abs {one:.1e}'}; "
            f"{res['compile_s']:.1f}s + {res['run_s']:.1f}s{gloo})")


def print_table(results):
    hdr = ["case", "ranks", "stages (submesh@first rank)", "M", "transfers", "compile s",
           "run s", "gloo s", "ort max abs", "telar-1 max abs", "bitwise", "idle per rank",
           "status"]
    rows = []
    for r in results:
        ort = max((o.get("ort", {}).get("max_abs", 0) for o in r["outputs"]), default=None)
        one = max((o.get("telar-1", {}).get("max_abs", 0) for o in r["outputs"]), default=None)
        idle = " ".join(f"{x:.2f}" for x in r["idle"]) if r.get("idle") else "-"
        rows.append([r["case"], str(r["ranks"]), r.get("plan") or "-",
                     str(r.get("plan_microbatches", "-")), str(r.get("transfers", "-")),
                     fmt(r["compile_s"], ".1f"), fmt(r["run_s"], ".2f"),
                     fmt(r["gloo_s"], ".2f"), fmt(ort, ".1e"), fmt(one, ".1e"),
                     "-" if r["bitwise"] is None else ("yes" if r["bitwise"] else "no"),
                     idle, "PASS" if r["ok"] else f"FAIL ({r['stage']})"])
    print_markdown_table(hdr, rows)


def select(a):
    sources = [s for s in a.sources.split(",") if s]
    for s in sources:
        if s not in SOURCES:
            raise SystemExit(f"run_pipelined: unknown source {s!r} ({', '.join(SOURCES)})")
    return filter_cases(CASES, a, lambda c: not sources or c.source in sources)


def main(argv=None):
    kill_commands_on_exit()
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    add_common_arguments(ap, jobs=1, timeout=180)
    ap.add_argument("--sources", default="", help="comma-separated: " + ",".join(SOURCES))
    ap.add_argument("--search-time-limit", type=float, default=60)
    ap.add_argument("--no-gloo", action="store_true", help="skip the Gloo runs")
    ap.add_argument("--print-plans", action="store_true", help="print the hand plans")
    a = ap.parse_args(argv)
    return run_harness(
        ap, a, select(a), "run_pipelined", "run-pipelined", PipelinedRunner, describe,
        lambda secs: (f"plans in {os.path.join(a.dir, 'plans')}; rtol {a.rtol:g}, "
                      f"atol {a.atol:g} (vs onnxruntime and single-device); {secs:.1f}s"),
        print_table,
        list_line=lambda c: (f"{c.name:34} ranks {c.ranks}{'  +gloo' if c.gloo else ''}"
                             f"{'  (' + c.note + ')' if c.note else ''}"))


if __name__ == "__main__":
    sys.exit(main())
