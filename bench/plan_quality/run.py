#!/usr/bin/env python3
"""Telar's plan against Megatron-LM's hand plan, both priced by Telar's cost model.

Usage (re-executes itself with the repo's .venv/bin/python):
    bench/plan_quality/run.py [--only 39.1B,145.6B] [--profile a100-80g]
        [--memory-limit hand|profile|BYTES] [--microbatch 1] [--dtype f16]
        [--models build/bench-models/plan_quality] [--telarc build/bin/telarc]
        [--hand-only] [--collectives] [--json out.json] [--keep-plans DIR]

The rows are Table 1 of Narayanan et al., "Efficient Large-Scale Language
Model Training on GPU Clusters Using Megatron-LM", SC'21 (arXiv:2104.04473):
GPT models with heads, hidden size, layers, tensor-parallel size t,
pipeline-parallel size p, GPUs and global batch size; the data-parallel size
is d = GPUs / (t * p). For each row:

1. builds ONE pipeline stage: layers / p GPT-3 decoder layers (a middle
   stage: hidden states in, hidden states out; no embeddings or LM head), at
   sequence 2048, with x [d * microbatch, 2048, hidden] (--microbatch rows per
   data-parallel replica, default 1: one forward pass of one microbatch,
   Megatron's unit of pipelined work), float16 weights in sparse external
   data (python/telar_testing/planner_models.py's build_gpt);
2. writes Megatron's hand plan (hand.json) on the mesh data=d,model=t: x and
   the stage's output split by batch on "data"; per layer the q/k/v weights
   and biases column-split on "model" (whole heads), the attention output
   projection row-split, the MLP's fc1 column-split, fc2 row-split (one
   all-reduce per block; the biases after a row split stay replicated);
3. prices it: `telarc STAGE --plan hand.json --mesh data=d,model=t --profile P
   --emit=plan` -> "cost"."latency_s" and "cost"."memory_bytes";
4. plans it: `telarc STAGE --devices d*t --profile P --memory-limit M
   --emit=plan` with M the hand plan's memory per device (--memory-limit hand,
   the default: the same memory budget), the profile's capacity (profile: 80
   GiB on a100-80g) or BYTES (80G, ...);
5. prints per row the hand and Telar latencies, their ratio hand / telar
   (goal >= 1.0: Telar's plan is at least as fast as the expert's), both
   memories, the mesh Telar chose. `--hand-only` skips step 4 (and runs
   without --profile: it checks that every hand plan is a valid plan today);
   `--collectives` also partitions the hand plan (`telarc --emit=mlir
   --elide-weights | telar-opt -telar-partition -test-telar-collectives`) and
   checks Megatron's 2 all-reduces per layer on "model" and nothing else.

Exit 1 when telarc fails, a hand plan is rejected, or (with --fail-below) a
ratio is below 1.0.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "python", "telar_testing"))

import plan_bench  # noqa: E402

plan_bench.use_repo_python()

from plan_bench import PlanError, fmt_bytes, fmt_seconds, mesh_text  # noqa: E402
from run_models import print_markdown_table  # noqa: E402

# Narayanan et al., SC'21, Table 1 ("Weak-scaling throughput for GPT models
# ranging from 1 billion to 1 trillion parameters"):
# (params B, attention heads, hidden size, layers, tensor-parallel t,
#  pipeline-parallel p, GPUs, global batch size)
MEGATRON_TABLE1 = [
    ("1.7B", 24, 2304, 24, 1, 1, 32, 512),
    ("3.6B", 32, 3072, 30, 2, 1, 64, 512),
    ("7.5B", 32, 4096, 36, 4, 1, 128, 512),
    ("18.4B", 48, 6144, 40, 8, 1, 256, 1024),
    ("39.1B", 64, 8192, 48, 8, 2, 512, 1536),
    ("76.1B", 80, 10240, 60, 8, 4, 1024, 1792),
    ("145.6B", 96, 12288, 80, 8, 8, 1536, 2304),
    ("310.1B", 128, 16384, 96, 8, 16, 1920, 2160),
    ("529.6B", 128, 20480, 105, 8, 35, 2520, 2520),
    ("1008.0B", 160, 25600, 128, 8, 64, 3072, 3072),
]
SEQ = 2048  # the paper's sequence length
VOCAB = 51200


class Row:
    def __init__(self, params, heads, hidden, layers, t, p, gpus, batch):
        self.name, self.heads, self.hidden, self.layers = params, heads, hidden, layers
        self.t, self.p, self.gpus, self.batch = t, p, gpus, batch
        assert gpus % (t * p) == 0 and layers % p == 0 and heads % t == 0, params
        self.d = gpus // (t * p)
        self.stage_layers = layers // p

    def mesh(self):
        return {"data": self.d, "model": self.t}


def hand_plan(row, layers):
    """Megatron's intra-stage plan on data=d, model=t (plan.json dict)."""
    sh = {"x": [["data"], [], []], f"h.{layers - 1}.y": [["data"], [], []]}
    for i in range(layers):
        p = f"h.{i}."
        for w in ("q", "k", "v"):
            sh[p + f"attn.{w}.weight"] = [[], ["model"]]    # [d, d]: columns = heads
            sh[p + f"attn.{w}.bias"] = [["model"]]
        sh[p + "attn.proj.weight"] = [["model"], []]        # rows: partial sum
        sh[p + "mlp.fc1.weight"] = [[], ["model"]]
        sh[p + "mlp.fc1.bias"] = [["model"]]
        sh[p + "mlp.fc2.weight"] = [["model"], []]
    return {"mesh": row.mesh(), "shardings": dict(sorted(sh.items()))}


def build_stage(row, a):
    import planner_models
    path = os.path.join(a.models, f"megatron-{row.name}", "model.onnx")
    b = planner_models.build_gpt(row.stage_layers, row.hidden, row.heads,
                                 batch=row.d * a.microbatch, seq=SEQ, vocab=VOCAB,
                                 dtype=a.dtype, embeddings=False,
                                 name=f"megatron-{row.name}-stage")
    b.save(os.path.dirname(path), check=True)
    return path, b


def build_full(row, a):
    """The whole model of a row (embeddings, every layer, LM head) at the
    row's global batch, weights sparse."""
    import planner_models
    path = os.path.join(a.models, f"megatron-{row.name}-full", "model.onnx")
    b = planner_models.build_gpt(row.layers, row.hidden, row.heads, batch=row.batch,
                                 seq=SEQ, vocab=VOCAB, dtype=a.dtype, embeddings=True,
                                 name=f"megatron-{row.name}-full")
    if not os.path.exists(path):
        b.save(os.path.dirname(path), check=False)
    return path, b


def full_stages_of_nodes(graph, row):
    """The pipeline stage Megatron gives each node output: layer I's to
    stage I // (layers / p) (an output without the h.I. prefix belongs to
    the layer of the node before it, in graph order), the embeddings to the
    first, ln_f and the LM head to the last."""
    out, layer = {}, None
    for node in graph.node:
        for o in node.output:
            m = re.match(r"h\.(\d+)\.", o)
            if m:
                layer = int(m.group(1))
            if o.startswith(("ln_f", "lm_head", "logits")):
                out[o] = row.p - 1
            else:
                out[o] = 0 if layer is None else layer // row.stage_layers
    return out


def full_stage_of(name, row, by_node):
    """A plan value name's stage: its node output's, or for a derived name
    ("<name>#k") that of <name>."""
    base = name.split("#")[0]
    if base in by_node:
        return by_node[base]
    m = re.match(r"h\.(\d+)\.", name)
    return int(m.group(1)) // row.stage_layers if m else 0


def full_hand_plan(row, names, weights, inputs, microbatches, by_node):
    """Megatron's whole plan (t x p x d): p stages of layers / p layers, each
    on its own submesh data=d,model=t (ranks s*d*t ...), the intra-stage
    splits of hand_plan() per layer, the LM head split by vocabulary on
    model, the stage inputs and outputs split by batch on data; the batch in
    `microbatches` microbatches (GPipe: forward-only, 1F1B's order is the
    same)."""
    if row.p == 1:
        plan = hand_plan(row, row.layers)
        del plan["shardings"]["x"]
        plan["shardings"]["input_ids"] = [["data"], []]
        plan["shardings"]["lm_head"] = [[], ["model"]]
        plan["shardings"]["logits"] = [["data"], [], ["model"]]
        return plan
    stages = []
    per = row.stage_layers
    for s in range(row.p):
        ops = [n for n in names if n not in weights and n not in inputs
               and full_stage_of(n, row, by_node) == s]
        sh = {}
        for k, v in hand_plan(row, row.layers)["shardings"].items():
            m = re.match(r"h\.(\d+)\.", k)
            if m and int(m.group(1)) // per == s and not k.endswith(".y"):
                sh[k] = v
        sh["input_ids" if s == 0 else f"h.{s * per - 1}.y"] = (
            [["data"], []] if s == 0 else [["data"], [], []])
        if s == row.p - 1:
            sh["lm_head"] = [[], ["model"]]
            sh["logits"] = [["data"], [], ["model"]]
        else:
            sh[f"h.{(s + 1) * per - 1}.y"] = [["data"], [], []]
        stages.append({"ops": ops, "mesh": row.mesh(), "first_rank": s * row.d * row.t,
                       "shardings": dict(sorted(sh.items()))})
    return {"stages": stages, "schedule": {"kind": "gpipe", "microbatches": microbatches,
                                           "virtual_stages": 1}}


def run_full(row, a, plans_dir, res):
    """The whole model: Megatron's t x p x d plan against Telar's search on
    all the row's GPUs (--microbatches the hand plan's, the profile's memory
    for both)."""
    import onnx
    model, b = build_full(row, a)
    res["params"] = b.params
    m = onnx.load(model, load_external_data=False)
    weights = {t.name for t in m.graph.initializer}
    inputs = {i.name for i in m.graph.input}
    one, _, _, _ = plan_bench.emit_plan(a.telarc, model, [],
                                        os.path.join(plans_dir, f"{row.name}.names.json"),
                                        a.timeout)
    names = sorted(one.get("shardings", {}))
    micro = row.batch // row.d if row.p > 1 else 1  # one sequence per replica
    res["microbatches"] = micro
    hp = full_hand_plan(row, names, weights, inputs, micro,
                        full_stages_of_nodes(m.graph, row))
    hand_path = os.path.join(plans_dir, f"{row.name}.full-hand.json")
    with open(hand_path, "w") as f:
        json.dump(hp, f, indent=1)
    hand_args = ["--plan", hand_path, "--profile", a.profile]
    if row.p == 1:
        hand_args += ["--mesh", mesh_text(row.mesh())]
    hand, secs, _, _ = plan_bench.emit_plan(
        a.telarc, model, hand_args,
        os.path.join(plans_dir, f"{row.name}.full-hand.priced.json"), a.timeout)
    res["hand_latency"] = plan_bench.plan_latency(hand)
    res["hand_memory"] = plan_bench.plan_memory(hand)
    res["hand_bubble"] = (hand.get("cost") or {}).get("bubble")
    limit = [] if a.memory_limit in ("hand", "profile") else ["--memory-limit", a.memory_limit]
    res["memory_limit"] = limit[1] if limit else "profile"
    args = ["--devices", str(row.gpus), "--profile", a.profile,
            "--search-time-limit", str(a.search_time_limit)] + limit + a.extra
    if row.p > 1:
        args += ["--microbatches", str(micro)]
    telar, secs, _, err = plan_bench.emit_plan(
        a.telarc, model, args, os.path.join(plans_dir, f"{row.name}.full-telar.json"),
        a.timeout)
    res["telar_mesh"] = plan_bench.plan_text(telar)
    res["telar_latency"] = plan_bench.plan_latency(telar)
    res["telar_memory"] = plan_bench.plan_memory(telar)
    res["telar_bubble"] = (telar.get("cost") or {}).get("bubble")
    res["search_seconds"] = secs
    res["ratio"] = res["hand_latency"] / res["telar_latency"]
    res["ok"] = True
    print(f"{row.name} (full, {row.t}x{row.p}x{row.d} on {row.gpus}): hand "
          f"{fmt_seconds(res['hand_latency'])}, telar {fmt_seconds(res['telar_latency'])} "
          f"({res['telar_mesh']}), ratio {res['ratio']:.2f} ({secs:.1f}s search)",
          flush=True)


def count_collectives(a, model, plan_path):
    """{(kind, axes): count} of the collectives that move bytes in the
    partitioned hand plan, and telar-opt's remarks."""
    telar_opt = plan_bench.tool("telar-opt", a.telarc)
    mlir = subprocess.run([a.telarc, model, "--plan", plan_path, "--emit=mlir",
                           "--elide-weights"], capture_output=True, text=True,
                          timeout=a.timeout)
    if mlir.returncode:
        raise PlanError(f"telarc --emit=mlir failed: {mlir.stderr.strip()}")
    r = subprocess.run([telar_opt, "-telar-partition", "-test-telar-collectives",
                        "-o", os.devnull], input=mlir.stdout, capture_output=True,
                       text=True, timeout=a.timeout)
    if r.returncode:
        raise PlanError(f"telar-opt -telar-partition failed: {r.stderr.strip()[:2000]}")
    counts = {}
    for line in r.stderr.splitlines():
        # "remark: all_reduce over [model]: [1x2048x8192] -> ... f16, 58720256 bytes per rank"
        m = re.search(r"remark: (\w+) over \[([^\]]*)\]: .*?(\d+) bytes per rank", line)
        if m and int(m.group(3)) > 0:  # 0 bytes: local slices, axes of size 1
            key = (m.group(1), m.group(2).replace(" ", ""))
            counts[key] = counts.get(key, 0) + 1
    return counts, r.stderr


def print_full(results, rows, a):
    hdr = ["model", "GPUs", "hand t x p x d", "batch", "M", "hand latency", "hand bubble",
           "hand memory", "telar plan", "telar latency", "telar bubble", "telar memory",
           "telar search", "hand / telar", "goal >= 1.0"]
    table, below = [], 0
    for r, row in zip(results, rows):
        cells = [r["row"], str(row.gpus), f"{row.t} x {row.p} x {row.d}", str(row.batch),
                 str(r.get("microbatches", "-"))]
        if r["ok"]:
            goal = "ok" if r["ratio"] >= 1.0 else "BELOW"
            below += goal == "BELOW"
            pct = lambda b: "-" if b is None else f"{100 * b:.1f} %"
            cells += [fmt_seconds(r["hand_latency"]), pct(r["hand_bubble"]),
                      fmt_bytes(r["hand_memory"]), r["telar_mesh"],
                      fmt_seconds(r["telar_latency"]), pct(r["telar_bubble"]),
                      fmt_bytes(r["telar_memory"]), f"{r['search_seconds']:.1f} s",
                      f"{r['ratio']:.2f}", goal]
        else:
            cells += ["-"] * 9 + ["FAIL"]
        table.append(cells)
    print()
    print_markdown_table(hdr, table)
    print(f"\nNarayanan et al., SC'21, Table 1: the whole models (embeddings, layers, LM "
          f"head) at the table's global batch, sequence {SEQ}, {a.dtype}; Megatron's plan "
          f"(t x p x d, one sequence per replica per microbatch: M = batch / d) and "
          f"Telar's (--devices GPUs --microbatches M) priced by the same cost model, "
          f"forward, profile {a.profile}, memory limit: the profile's; "
          f"load average {os.getloadavg()[0]:.2f}")
    if a.json:
        with open(a.json, "w") as f:
            json.dump(results, f, indent=1)
    failed = [r for r in results if not r["ok"]]
    for r in failed:
        print(f"\nFAILED {r['row']}:\n{r['error']}", file=sys.stderr)
    return 1 if failed or (a.fail_below and below) else 0


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--only", default="", help="comma-separated rows: "
                    + ",".join(r[0] for r in MEGATRON_TABLE1))
    ap.add_argument("--profile", default="a100-80g")
    ap.add_argument("--memory-limit", default="hand",
                    help="hand (the hand plan's memory per device), profile (the "
                    "profile's capacity) or bytes (80G, ...)")
    ap.add_argument("--microbatch", type=int, default=1,
                    help="rows per data-parallel replica (the stage's batch is d * this)")
    ap.add_argument("--dtype", choices=("f16", "f32"), default="f16")
    ap.add_argument("--models", default=os.path.join(ROOT, "build", "bench-models",
                                                     "plan_quality"))
    ap.add_argument("--telarc", default=os.path.join(ROOT, "build", "bin", "telarc"))
    ap.add_argument("--timeout", type=int, default=600)
    ap.add_argument("--hand-only", action="store_true",
                    help="only check the hand plans (works without the planner)")
    ap.add_argument("--collectives", action="store_true",
                    help="also check the hand plans' collectives (2 all-reduces per layer)")
    ap.add_argument("--fail-below", action="store_true", help="exit 1 when a ratio < 1.0")
    ap.add_argument("--json")
    ap.add_argument("--keep-plans", metavar="DIR")
    ap.add_argument("--full", action="store_true",
                    help="the whole models and Megatron's whole t x p x d plans "
                    "(pipelined) instead of one stage")
    ap.add_argument("--search-time-limit", type=float, default=30.0,
                    help="telarc --search-time-limit for Telar's search (--full)")
    ap.add_argument("extra", nargs="*", help="after --: more telarc flags for the search")
    a = ap.parse_args(argv)
    if not os.access(a.telarc, os.X_OK):
        print(f"plan_quality: not executable: {a.telarc}", file=sys.stderr)
        return 2
    rows = [Row(*r) for r in MEGATRON_TABLE1]
    only = [n for n in a.only.split(",") if n]
    for n in only:
        if n not in [r.name for r in rows]:
            ap.error(f"unknown row {n!r}")
    rows = [r for r in rows if not only or r.name in only]
    plans_dir = a.keep_plans or tempfile.mkdtemp(prefix="telar-plan-quality-")
    os.makedirs(plans_dir, exist_ok=True)
    results = []
    try:
        for row in rows:
            res = {"row": row.name, "t": row.t, "d": row.d, "p": row.p,
                   "batch": row.batch, "stage_layers": row.stage_layers, "ok": False}
            results.append(res)
            try:
                if a.full:
                    run_full(row, a, plans_dir, res)
                    continue
                model, b = build_stage(row, a)
                res["stage_params"] = b.params
                hp = hand_plan(row, row.stage_layers)
                hand_path = os.path.join(plans_dir, f"{row.name}.hand.json")
                with open(hand_path, "w") as f:
                    json.dump(hp, f, indent=1)
                mesh = mesh_text(row.mesh())
                hand_args = ["--plan", hand_path, "--mesh", mesh]
                if not a.hand_only:
                    hand_args += ["--profile", a.profile]
                hand, secs, _, _ = plan_bench.emit_plan(
                    a.telarc, model, hand_args,
                    os.path.join(plans_dir, f"{row.name}.hand.completed.json"), a.timeout)
                if hand.get("mesh") != row.mesh():
                    raise PlanError(f"the completed hand plan's mesh {hand.get('mesh')} "
                                    f"is not {row.mesh()}")
                if a.collectives:
                    counts, text = count_collectives(a, model, hand_path)
                    want = {("all_reduce", "model"): 2 * row.stage_layers} if row.t > 1 else {}
                    got = {k: v for k, v in counts.items()}
                    res["collectives"] = {f"{k[0]}[{k[1]}]": v for k, v in got.items()}
                    if got != want:
                        raise PlanError(f"hand plan collectives {res['collectives']}, "
                                        f"expected {want}:\n{text[:3000]}")
                if a.hand_only:
                    res["ok"] = True
                    print(f"{row.name}: hand plan on {mesh} valid ({secs:.2f}s)"
                          + (f", collectives {res['collectives']}" if a.collectives else ""),
                          flush=True)
                    continue
                res["hand_latency"] = plan_bench.plan_latency(hand)
                res["hand_memory"] = plan_bench.plan_memory(hand)
                if a.memory_limit == "hand":
                    limit = ["--memory-limit", str(int(res["hand_memory"]))]
                elif a.memory_limit == "profile":
                    limit = []
                else:
                    limit = ["--memory-limit", a.memory_limit]
                res["memory_limit"] = limit[1] if limit else "profile"
                telar, secs, _, err = plan_bench.emit_plan(
                    a.telarc, model, ["--devices", str(row.d * row.t), "--profile",
                                      a.profile] + limit + a.extra,
                    os.path.join(plans_dir, f"{row.name}.telar.json"), a.timeout)
                res["telar_mesh"] = mesh_text(telar.get("mesh", {}))
                res["telar_latency"] = plan_bench.plan_latency(telar)
                res["telar_memory"] = plan_bench.plan_memory(telar)
                res["search_seconds"] = secs
                res["ratio"] = res["hand_latency"] / res["telar_latency"]
                res["ok"] = True
                print(f"{row.name}: hand {fmt_seconds(res['hand_latency'])}, telar "
                      f"{fmt_seconds(res['telar_latency'])} on {res['telar_mesh']}, ratio "
                      f"{res['ratio']:.2f} ({secs:.1f}s search)", flush=True)
            except (PlanError, subprocess.TimeoutExpired) as e:
                res["error"] = str(e)
                print(f"FAIL {row.name}: {str(e).splitlines()[0]}", file=sys.stderr,
                      flush=True)
    finally:
        if not a.keep_plans:
            shutil.rmtree(plans_dir, ignore_errors=True)

    if a.full:
        return print_full(results, rows, a)
    hdr = ["model", "t", "d", "p", "batch", "stage layers", "stage x"]
    if not a.hand_only:
        hdr += ["hand latency", "hand memory", "telar mesh", "telar latency",
                "telar memory", "hand / telar", "goal >= 1.0"]
    elif a.collectives:
        hdr += ["hand plan collectives"]
    table, below = [], 0
    for r, row in zip(results, rows):
        cells = [r["row"], str(row.t), str(row.d), str(row.p), str(row.batch),
                 f"{row.stage_layers} of {row.layers}",
                 f"[{row.d * a.microbatch}, {SEQ}, {row.hidden}]"]
        if not a.hand_only:
            if r["ok"]:
                goal = "ok" if r["ratio"] >= 1.0 else "BELOW"
                below += goal == "BELOW"
                cells += [fmt_seconds(r["hand_latency"]), fmt_bytes(r["hand_memory"]),
                          r["telar_mesh"], fmt_seconds(r["telar_latency"]),
                          fmt_bytes(r["telar_memory"]), f"{r['ratio']:.2f}", goal]
            else:
                cells += ["-"] * 6 + ["FAIL"]
        elif a.collectives:
            cells += [", ".join(f"{k} x{v}" for k, v in r.get("collectives", {}).items())
                      or ("FAIL" if not r["ok"] else "none")]
        table.append(cells)
    print()
    print_markdown_table(hdr, table)
    print(f"\nNarayanan et al., SC'21, Table 1; one middle pipeline stage (layers / p), "
          f"sequence {SEQ}, {a.microbatch} row(s) per data-parallel replica, {a.dtype}; "
          + ("hand plans checked only" if a.hand_only else
             f"profile {a.profile}, memory limit: {a.memory_limit}"))
    if a.json:
        with open(a.json, "w") as f:
            json.dump(results, f, indent=1)
    failed = [r for r in results if not r["ok"]]
    for r in failed:
        print(f"\nFAILED {r['row']}:\n{r['error']}", file=sys.stderr)
    return 1 if failed or (a.fail_below and below) else 0


if __name__ == "__main__":
    sys.exit(main())
