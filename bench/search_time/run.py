#!/usr/bin/env python3
"""How long the planner takes on GPT-3-sized graphs: `telarc --devices D --emit=plan`.

Usage (re-executes itself with the repo's .venv/bin/python):
    bench/search_time/run.py [--only gpt3-1.3b,gpt3-39b] [--devices 8,64,512,1024]
        [--profile a100-80g] [--models build/bench-models/gpt3] [--batch 8]
        [--telarc build/bin/telarc] [--timeout 600] [--goal 10] [--json out.json]
        [--keep-plans DIR] [-- EXTRA TELARC FLAGS]

1. writes the GPT-3-family models of make_gpt3.py (1.3B, 6.7B, 13B, 39B, 175B;
   weights in sparse external data, nothing written) into --models unless they
   are there already with the same input shape;
2. per model and device count D runs
       telarc MODEL --devices D --profile PROFILE --emit=plan -o plan.json
   (planning only: import, search, plan.json with its "cost"), timing the call
   (wall clock, and telarc's peak RSS);
3. prints a table: model, params, layers, devices, the mesh the planner chose
   (plan.json's "mesh"), telarc time (the whole call) and what the
   search itself reports in "cost"."search" (its own seconds, the meshes it
   tried, the largest ILP's variables and constraints, the repeated layers it
   tied: COUNT x OPS), the predicted latency and memory per device
   ("cost"."latency_s", "memory_bytes"), telarc's peak RSS, and `ok` or
   `SLOW` against the goal (--goal seconds, 10: the issue's goal per case).
   A search that hit --search-time-limit says so, with its gap.

Fails loudly: a telarc failure (nonzero exit, timeout, no plan, a plan
without "cost"."latency_s") prints the command and telarc's message and the
script exits 1 after the table; exit 2 when telarc is missing.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "python", "telar_testing"))
sys.path.insert(0, HERE)

import plan_bench  # noqa: E402

plan_bench.use_repo_python()

import make_gpt3  # noqa: E402
from plan_bench import PlanError, fmt_bytes, fmt_seconds, mesh_text  # noqa: E402
from run_models import print_markdown_table  # noqa: E402

DEVICES = (8, 64, 512, 1024, 3072)


def model_shape(path):
    """input_ids' [batch, seq] and dtype of a model make_gpt3 wrote, or None."""
    import onnx
    try:
        m = onnx.load(path, load_external_data=False)
    except Exception:
        return None
    dims = [d.dim_value for d in m.graph.input[0].type.tensor_type.shape.dim]
    w = next((t for t in m.graph.initializer if t.name == "wte"), None)
    return dims, (w.data_type if w is not None else None)


def ensure_model(a, name):
    import planner_models
    path = os.path.join(a.models, name, "model.onnx")
    want = ([a.batch, a.seq], planner_models.onnx_dtype(a.dtype))
    if not os.path.exists(path) or model_shape(path) != want:
        make_gpt3.write(name, a.models, a.batch, a.seq, a.dtype)
    return path


def pipeline_cell(p):
    """The pipeline search: its seconds, planOnMesh calls, the stages of its
    best pipeline and whether it was chosen."""
    if not p:
        return "-"
    return (f"{p.get('seconds', 0):.2f} s, {p.get('plan_on_mesh_calls', 0)} calls, "
            f"best {p.get('stages', '?')} stages"
            + (" (chosen)" if p.get("chosen") else ""))


def main(argv=None):
    argv = list(sys.argv[1:] if argv is None else argv)
    extra = []
    if "--" in argv:
        k = argv.index("--")
        argv, extra = argv[:k], argv[k + 1:]
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--only", default="", help="comma-separated subset of: "
                    + ",".join(make_gpt3.CONFIGS))
    ap.add_argument("--devices", default=",".join(map(str, DEVICES)))
    ap.add_argument("--profile", default="a100-80g")
    ap.add_argument("--models", default=make_gpt3.DEFAULT_OUT)
    ap.add_argument("--batch", type=int, default=make_gpt3.DEFAULT_BATCH)
    ap.add_argument("--seq", type=int, default=make_gpt3.DEFAULT_SEQ)
    ap.add_argument("--dtype", choices=("f16", "f32"), default=make_gpt3.DEFAULT_DTYPE)
    ap.add_argument("--telarc", default=os.path.join(ROOT, "build", "bin", "telarc"))
    ap.add_argument("--timeout", type=int, default=600, help="seconds per telarc call")
    ap.add_argument("--goal", type=float, default=10.0, help="seconds per case")
    ap.add_argument("--search-time-limit", type=float, default=6.0,
                    help="telarc --search-time-limit (one-stage and pipeline "
                    "search together; the best plan found by then is used)")
    ap.add_argument("--json", help="write the results here")
    ap.add_argument("--keep-plans", metavar="DIR", help="keep every plan.json in DIR")
    a = ap.parse_args(argv)
    if not os.access(a.telarc, os.X_OK):
        print(f"search_time: not executable: {a.telarc}", file=sys.stderr)
        return 2
    names = [n for n in a.only.split(",") if n] or list(make_gpt3.CONFIGS)
    for n in names:
        if n not in make_gpt3.CONFIGS:
            ap.error(f"unknown model {n!r}")
    devices = [int(d) for d in a.devices.split(",") if d]
    plans_dir = a.keep_plans or tempfile.mkdtemp(prefix="telar-search-time-")
    os.makedirs(plans_dir, exist_ok=True)

    import planner_models
    results = []
    try:
        for n in names:
            path = ensure_model(a, n)
            layers = make_gpt3.CONFIGS[n][0]
            params = make_gpt3.build(n, a.batch, a.seq, a.dtype).params
            for d in devices:
                r = {"model": n, "params": params, "layers": layers, "devices": d,
                     "ok": False}
                out = os.path.join(plans_dir, f"{n}.d{d}.plan.json")
                args = ["--devices", str(d), "--profile", a.profile,
                        "--search-time-limit", str(a.search_time_limit)] + extra
                try:
                    plan, secs, rss, err = plan_bench.emit_plan(a.telarc, path, args, out,
                                                                a.timeout)
                    info = plan_bench.search_info(plan)
                    pipe = plan_bench.pipeline_info(plan)
                    r.update(seconds=secs, rss=rss, mesh=plan_bench.plan_text(plan),
                             pipeline=pipe,
                             latency=plan_bench.plan_latency(plan),
                             memory=plan_bench.plan_memory(plan), search=info,
                             limit_hit=info.get("limit_hit", False)
                             or "time limit" in err.lower(), ok=True)
                    print(f"{n} on {d}: mesh {r['mesh']}, {secs:.2f}s, predicted "
                          f"{fmt_seconds(r['latency'])}" +
                          (" (search time limit hit)" if r["limit_hit"] else ""), flush=True)
                except PlanError as e:
                    r["error"] = str(e)
                    print(f"FAIL {n} on {d}: {str(e).splitlines()[0]}", file=sys.stderr,
                          flush=True)
                results.append(r)
    finally:
        if not a.keep_plans:
            shutil.rmtree(plans_dir, ignore_errors=True)

    hdr = ["model", "params", "layers", "devices", "plan", "telarc time", "search time",
           "meshes", "max vars / cons", "tied layers", "pipeline search",
           "predicted latency", "memory/device", "peak RSS", f"goal < {a.goal:g} s"]
    rows = []
    for r in results:
        head = [r["model"], f"{r['params'] / 1e9:.1f}B", str(r["layers"]), str(r["devices"])]
        if not r["ok"]:
            rows.append(head + ["-"] * (len(hdr) - len(head) - 1) + ["FAIL"])
            continue
        goal = "ok" if r["seconds"] < a.goal else "SLOW"
        if r["limit_hit"]:
            gap = r["search"].get("gap")
            goal += " (time limit" + (f", gap {100 * gap:.1f} %" if gap is not None else "") + ")"
        s = r["search"]
        rows.append(head + [r["mesh"], f"{r['seconds']:.2f} s",
                            "-" if s.get("seconds") is None else f"{s['seconds']:.2f} s",
                            str(s.get("meshes", "-")),
                            "-" if s.get("variables") is None else
                            f"{s['variables']} / {s['constraints']}",
                            s.get("layers", "-"), pipeline_cell(r.get("pipeline", {})),
                            fmt_seconds(r["latency"]),
                            fmt_bytes(r["memory"]), fmt_bytes(r["rss"]), goal])
    print()
    print_markdown_table(hdr, rows)
    print(f"\nprofile {a.profile}, input_ids [{a.batch}, {a.seq}], {a.dtype} weights, "
          f"--search-time-limit {a.search_time_limit:g}; telarc time = the whole "
          "`telarc --devices D --emit=plan` call, search time = cost.search.seconds "
          "(the one-stage search), pipeline search = cost.search.pipeline; load average "
          f"{os.getloadavg()[0]:.2f} at the end")
    if a.json:
        with open(a.json, "w") as f:
            json.dump(results, f, indent=1)
    failed = [r for r in results if not r["ok"]]
    for r in failed:
        print(f"\nFAILED {r['model']} on {r['devices']} devices:\n{r['error']}",
              file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
