"""Shared pieces of the planner benchmarks (bench/search_time, bench/plan_quality,
bench/predicted_vs_measured): running `telarc ... --emit=plan` under a timer,
reading plan.json's mesh and "cost" object, formatting.

The "cost" object is the cost model's breakdown of a plan (CostModel.h's
toJson(PlanCost), docs/Plan.md): `plan_latency` reads its "latency_s",
`plan_memory` its per-device memory in bytes ("memory_bytes"). Both fail loudly (PlanError) when
the plan has no such field, naming the keys it has, rather than printing a
number that is not there.
"""

from __future__ import annotations

import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)



class PlanError(RuntimeError):
    pass


def use_repo_python():
    """Re-executes the calling script with the repo's .venv/bin/python when it
    runs under another interpreter (as the bench/ wrappers do)."""
    venv = os.path.join(ROOT, ".venv", "bin", "python")
    if os.path.exists(venv) and os.path.realpath(sys.prefix) != os.path.realpath(
            os.path.join(ROOT, ".venv")) and not os.environ.get("TELAR_BENCH_REEXEC"):
        os.environ["TELAR_BENCH_REEXEC"] = "1"
        os.execv(venv, [venv] + sys.argv)


def tool(name, telarc):
    """Path of build tool `name` next to `telarc`."""
    return os.path.join(os.path.dirname(os.path.abspath(telarc)), name)


def emit_plan(telarc, model, args, out_path, timeout=600):
    """Runs `telarc MODEL ARGS --emit=plan -o OUT_PATH`: (plan dict, wall
    seconds, peak RSS bytes, stderr). Raises PlanError with the command and
    telarc's own message when it fails (nonzero exit, a timeout, no plan)."""
    from planner_models import run_measured  # numpy: after use_repo_python()
    cmd = [telarc, model] + list(args) + ["--emit=plan", "-o", out_path]
    if os.path.exists(out_path):
        os.remove(out_path)
    rc, secs, rss, out, err = run_measured(cmd, timeout)
    if rc != 0:
        msg = (err or out).strip()
        raise PlanError(f"telarc failed (exit {rc}{', timed out' if rc == 124 else ''}"
                        f" after {secs:.1f}s): {' '.join(cmd)}\n{msg}")
    try:
        with open(out_path) as f:
            plan = json.load(f)
    except (OSError, ValueError) as e:
        raise PlanError(f"telarc wrote no readable plan ({e}): {' '.join(cmd)}")
    return plan, secs, rss, err


def cost_of(plan):
    cost = plan.get("cost")
    if not isinstance(cost, dict):
        raise PlanError("plan.json has no \"cost\" object (top-level keys: "
                        f"{', '.join(sorted(plan))})")
    return cost


def _field(cost, names, what):
    for n in names:
        if isinstance(cost.get(n), (int, float)):
            return float(cost[n])
    raise PlanError(f"plan.json's \"cost\" has no {what} ({' or '.join(names)}); "
                    f"its keys: {', '.join(sorted(cost))}")


def plan_latency(plan):
    """Predicted latency in seconds: plan["cost"]["latency_s"]."""
    return _field(cost_of(plan), ("latency_s", "latency"), "latency")


def plan_memory(plan):
    """Predicted memory per device in bytes: plan["cost"]["memory_bytes"]."""
    return _field(cost_of(plan), ("memory_bytes",), "memory")


def plan_comm(plan):
    """Predicted communication seconds (plan["cost"]["comm_s"]) or None."""
    v = (plan.get("cost") or {}).get("comm_s")
    return float(v) if isinstance(v, (int, float)) else None


def search_info(plan):
    """What the search reported in plan["cost"]["search"] (telarc --devices):
    {"seconds", "ops", "meshes" (tried), "variables"/"constraints" (the largest
    ILP), "limit_hit" (a mesh's solve stopped at --search-time-limit), "gap"
    (its worst gap), "layers" ("COUNT x OPS" when repeated layers were tied)},
    or {} without one."""
    s = (plan.get("cost") or {}).get("search")
    if not isinstance(s, dict):
        return {}
    meshes = [m for m in s.get("meshes", []) if isinstance(m, dict)]
    limited = [m for m in meshes if m.get("status") == "time_limit"]
    info = {"seconds": s.get("seconds"), "ops": s.get("ops"), "meshes": len(meshes),
            "variables": max((m.get("variables", 0) for m in meshes), default=None),
            "constraints": max((m.get("constraints", 0) for m in meshes), default=None),
            "limit_hit": bool(limited),
            "gap": max((m.get("gap", 0) for m in limited), default=None)}
    lay = s.get("layers")
    if isinstance(lay, dict):
        info["layers"] = f"{lay.get('count')} x {lay.get('ops')}"
    return info


def plan_text(plan):
    """The plan in a few words: its mesh ("data=8,model=8"), or for a
    pipelined plan its stages, runs of equal submeshes grouped
    ("2 x model=8 | 14 x data=2,model=8"), and its microbatches."""
    stages = plan.get("stages")
    if not stages:
        return mesh_text(plan.get("mesh", {}))
    runs = []
    for s in stages:
        m = mesh_text(s.get("mesh", {}))
        if runs and runs[-1][1] == m:
            runs[-1][0] += 1
        else:
            runs.append([1, m])
    sched = plan.get("schedule") or {}
    return (f"{len(stages)} stages: " + " | ".join(f"{n} x {m}" for n, m in runs)
            + f", M={sched.get('microbatches', 1)}")


def pipeline_info(plan):
    """cost.search.pipeline (the pipeline search's statistics) or {}."""
    s = (plan.get("cost") or {}).get("search")
    p = s.get("pipeline") if isinstance(s, dict) else None
    return p if isinstance(p, dict) else {}


def mesh_text(mesh):
    """{"data": 8, "model": 8} -> "data=8,model=8" ("1" for one device)."""
    return ",".join(f"{k}={v}" for k, v in mesh.items()) or "1"


def mesh_devices(mesh):
    n = 1
    for v in mesh.values():
        n *= int(v)
    return n


def fmt_seconds(s):
    if s is None:
        return "-"
    if s >= 1:
        return f"{s:.2f} s"
    if s >= 1e-3:
        return f"{s * 1e3:.2f} ms"
    return f"{s * 1e6:.1f} us"


def fmt_bytes(n):
    if n is None:
        return "-"
    n = float(n)
    for unit, f in (("GB", 1e9), ("MB", 1e6), ("KB", 1e3)):
        if n >= f:
            return f"{n / f:.1f} {unit}"
    return f"{int(n)} B"


def parse_bytes(text):
    """"80G", "85899345920", "1.5T" -> bytes (K, M, G, T are powers of 1024,
    as telarc's --memory-limit reads them)."""
    t = str(text).strip()
    mult = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30, "T": 1 << 40}
    if t and t[-1].upper() in mult:
        return int(float(t[:-1]) * mult[t[-1].upper()])
    return int(float(t))
