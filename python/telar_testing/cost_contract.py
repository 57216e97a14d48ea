#!/usr/bin/env python3
"""The cost model's contract: it prices exactly the collectives telar-partition emits.

Usage:
    .venv/bin/python python/telar_testing/cost_contract.py --make DIR [--only gpt,llama]
        [--cases 'gpt tp*'] [--telarc build/bin/telarc] [--telar-opt PATH]
        [--profile cpu] [--jobs 2] [--timeout 120] [--verbose]

For every case of run_sharded.py's CASES (a model of make_models.py, a batch, a
hand-written plan of sharded_plans.py on a mesh), with the models built into
DIR/b<B>/ when missing and the plans written to DIR/plans/:

    telarc NAME.onnx --emit=mlir --elide-weights  -> DIR/b<B>/NAME.mlir
    telar-opt NAME.mlir -test-telar-cost-model="plan=P profile=PROFILE"
        (what the cost model prices: one remark per op with its steps)
    telar-opt NAME.mlir --telar-apply-plan=plan=P --telar-partition -test-telar-collectives
        (what the partitioner emits: one remark per collective)

and compares the two lists of steps, each step as (kind, mesh axes, local input
shape, local output shape, bytes per rank); the cost model's local slices are
the program's shard.all_slice. They must be equal as multisets (the contract:
count, kind, axes and bytes) and, in the same program order, as sequences.
With --train-case 'ONNX,PLAN,TELARC FLAGS' (repeatable) it checks training
steps instead: the IR of `telarc ONNX --train FLAGS --emit=mlir`
(forward, backward and update in one program) under PLAN, as completed.
Prints one line per case (`PASS gpt tp model=2 b1: 14 steps, 4 collectives,
16384 bytes` or `FAIL ...` with the steps only one side has), then
`cost-contract: N passed, M failed`. Exit 1 when a case fails, 2 on usage
errors.
"""

from __future__ import annotations

import argparse
import collections
import concurrent.futures as cf
import os
import re
import shlex
import shutil
import sys
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import run_sharded  # noqa: E402
from runner import run_cmd  # noqa: E402
import sharded_plans  # noqa: E402
from run_models import first_error_line  # noqa: E402

# -test-telar-cost-model, per op:
#   remark: compute 3.048e-06 s, 2048 flops, 1536 bytes; all_reduce over [model]: [4x16] -> [4x16], 256 bytes, 1.256e-06 s
_PRICED = re.compile(r"; (\w+(?:<\w+>)?) over \[([^\]]*)\]: \[([^\]]*)\] -> \[([^\]]*)\], (\d+) bytes, ")
# -test-telar-collectives, per collective:
#   remark: all_reduce over [model]: [8x32] -> [8x32] f32, 1024 bytes per rank
#   (a reduction other than a sum named in both: all_reduce<max>)
_EMITTED = re.compile(r"remark: (\w+(?:<\w+>)?) over \[([^\]]*)\]: \[([^\]]*)\] -> \[([^\]]*)\] \S+, "
                      r"(\d+) bytes per rank")
_KINDS = {"local_slice": "all_slice"}


def _step(m):
    kind, axes, src, dst, nbytes = m.groups()
    axes = tuple(a.strip() for a in axes.split(",") if a.strip())
    return (_KINDS.get(kind, kind), axes, src, dst, int(nbytes))


def priced_steps(text):
    """The steps of every op's remark, in program order."""
    out = []
    for line in text.splitlines():
        if "remark: compute" in line:
            out += [_step(m) for m in _PRICED.finditer(line)]
    return out


def emitted_steps(text):
    return [_step(m) for m in _EMITTED.finditer(text)]


def error_message(text):
    """The first error's message, without its location."""
    for line in text.splitlines():
        m = re.search(r"\berror: (.*)$", line)
        if m:
            return m.group(1).strip()
    return first_error_line(text)


def fmt_step(s):
    kind, axes, src, dst, nbytes = s
    return f"{kind}[{','.join(axes)}] [{src}]->[{dst}] {nbytes} B"


def compare(priced, emitted):
    """'' when equal, else a message with the steps only one side has."""
    if priced == emitted:
        return ""
    p, e = collections.Counter(priced), collections.Counter(emitted)
    if p == e:
        for i, (a, b) in enumerate(zip(priced, emitted)):
            if a != b:
                return (f"same steps in another order: step {i} priced {fmt_step(a)}, "
                        f"emitted {fmt_step(b)}")
    only_p = [f"{n}x {fmt_step(s)}" for s, n in sorted((p - e).items())]
    only_e = [f"{n}x {fmt_step(s)}" for s, n in sorted((e - p).items())]
    return (f"{len(priced)} priced, {len(emitted)} emitted; priced only: "
            f"{'; '.join(only_p) or '-'}; emitted only: {'; '.join(only_e) or '-'}")


class Checker:
    def __init__(self, a):
        self.a = a
        self.lock = threading.Lock()
        self.imported = {}  # (model, batch) -> path or error message
        self.import_locks = {}

    def imported_ir(self, model, batch):
        key = (model, batch)
        with self.lock:
            lk = self.import_locks.setdefault(key, threading.Lock())
        with lk:
            if key not in self.imported:
                d = os.path.join(self.a.dir, f"b{batch}")
                path = os.path.join(d, f"{model}.mlir")
                rc, err, out, _ = run_cmd(
                    [self.a.telarc, os.path.join(d, f"{model}.onnx"), "--emit=mlir",
                     "--elide-weights"], self.a.timeout)
                if rc != 0:
                    self.imported[key] = f"error: telarc --emit=mlir rc={rc}: {first_error_line(err)}"
                else:
                    with open(path, "w") as f:
                        f.write(out)
                    self.imported[key] = path
            return self.imported[key]

    def check(self, case):
        a = self.a
        res = {"case": case.name, "ok": False, "message": ""}
        onnx_path = os.path.join(a.dir, f"b{case.batch}", f"{case.model}.onnx")
        plans = os.path.join(a.dir, "plans")
        os.makedirs(plans, exist_ok=True)
        plan_path = os.path.join(plans, case.slug + ".json")
        try:
            plan = sharded_plans.make_plan(case.model, onnx_path, case.form, case.mesh_dict)
        except Exception as e:  # noqa: BLE001 - reported as the case's failure
            res["message"] = f"plan: {type(e).__name__}: {e}"
            return res
        with open(plan_path, "w") as f:
            f.write(sharded_plans.plan_text(plan))
        ir = self.imported_ir(case.model, case.batch)
        if ir.startswith("error: "):
            res["message"] = ir[len("error: "):]
            return res
        # The plan as completed (use shardings included), then without its use
        # shardings (the partitioner's own gathers).
        messages, summaries = [], []
        for variant in ("", "unary", "all"):
            message, summary, steps = self.compare_variant(ir, plan_path, case, variant)
            label = f"drop-uses={variant}" if variant else "plan"
            if message:
                messages.append(f"{label}: {message}")
            summaries.append(summary if not variant else f"{label}: {summary}")
            if a.verbose:
                res.setdefault("steps", []).extend(f"{label}: {s}" for s in steps)
        res["summary"] = "; ".join(summaries)
        if messages:
            res["message"] = "; ".join(messages)
            return res
        res["ok"] = True
        return res

    def compare_variant(self, ir, plan_path, case, variant):
        """(what differs or '', a summary, the emitted steps) for the plan as
        completed (variant '': the cost model, then telar-apply-plan and
        telar-partition, as telarc runs them) or without some of its use
        shardings (drop-uses=unary|all: the cost model writes the plan it
        priced into the module, telar-partition partitions that)."""
        a = self.a
        cost = f"-test-telar-cost-model=plan={plan_path} profile={a.profile}"
        partition = ["--telar-partition", "-test-telar-collectives", "-o", os.devnull]
        if not variant:
            rc, err, _, _ = run_cmd([a.telar_opt, ir, cost, "-o", os.devnull],
                                                a.timeout)
            priced_error = error_message(err) if rc != 0 else None
            priced = priced_steps(err)
            rc, err, _, _ = run_cmd(
                [a.telar_opt, ir, f"--telar-apply-plan=plan={plan_path}"] + partition,
                a.timeout)
            emitted_error = error_message(err) if rc != 0 else None
            emitted = emitted_steps(err)
        else:
            # One run: the cost model's remarks (or its error: with annotate
            # the plan is written anyway), then the partitioner's.
            rc, err, _, _ = run_cmd(
                [a.telar_opt, ir, f"{cost} drop-uses={variant} annotate"] + partition,
                a.timeout)
            errors = [m.group(1).strip() for m in re.finditer(r"\berror: (.*)", err)]
            priced_ok = "remark: latency" in err
            emitted_ok = rc == 0
            if not priced_ok and not errors:
                return f"telar-opt rc={rc}: {first_error_line(err)}", "-", []
            priced_error = None if priced_ok else errors[0]
            emitted_error = None if emitted_ok else (errors[-1] if errors else f"rc={rc}")
            if not priced_ok and emitted_ok:
                emitted_error = None
            priced = priced_steps(err)
            emitted = emitted_steps(err)
        if priced_error or emitted_error:
            # A plan the partitioner rejects is rejected by the cost model,
            # with the same message.
            if priced_error == emitted_error:
                return "", f"rejected ({emitted_error})", []
            return (f"cost model: {priced_error or 'accepted'}; "
                    f"telar-partition: {emitted_error or 'accepted'}"), "-", []
        comm = [s for s in emitted if s[0] != "all_slice"]
        summary = (f"{len(emitted)} steps, {len(comm)} collectives, "
                   f"{sum(s[4] for s in comm)} bytes")
        return compare(priced, emitted), summary, [fmt_step(s) for s in emitted]


def check_training(a, spec):
    """The contract on a training step: (ok, line) for "ONNX,PLAN,FLAGS"."""
    onnx_path, plan_path, flags = spec.split(",", 2)
    name = (f"train {os.path.basename(onnx_path)} {flags} "
            f"{os.path.basename(plan_path)}")
    ir = os.path.join(a.dir, os.path.basename(plan_path) + ".train.mlir")
    rc, err, out, _ = run_cmd([a.telarc, onnx_path, "--train"] + shlex.split(flags) +
                              ["--emit=mlir", "--elide-weights"], a.timeout)
    if rc != 0:
        return False, f"FAIL {name}: telarc --train rc={rc}: {first_error_line(err)}"
    with open(ir, "w") as f:
        f.write(out)
    message, summary, steps = Checker(a).compare_variant(ir, plan_path, None, "")
    if a.verbose:
        summary += "".join(f"\n    {s}" for s in steps)
    if message:
        return False, f"FAIL {name}: {message}"
    return True, f"PASS {name}: {summary}"


def main(argv=None):
    run_sharded.kill_commands_on_exit()
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--make", dest="dir", metavar="DIR", required=True,
                    help="work dir: models (built when missing), plans, imported IR")
    ap.add_argument("--only", default="", help="comma-separated model names")
    ap.add_argument("--cases", default="",
                    help="comma-separated glob patterns on case names ('gpt tp*')")
    ap.add_argument("--telarc", default="build/bin/telarc")
    ap.add_argument("--telar-opt", help="default: next to telarc")
    ap.add_argument("--profile", default="cpu", help="the cost model's profile (name or file)")
    ap.add_argument("--jobs", "-j", type=int, default=2, help="cases checked in parallel")
    ap.add_argument("--timeout", type=int, default=120, help="seconds per command")
    ap.add_argument("--verbose", action="store_true", help="print every case's steps")
    ap.add_argument("--train-case", action="append", default=[],
                    metavar="ONNX,PLAN,FLAGS",
                    help="check a training step instead (repeatable)")
    a = ap.parse_args(argv)
    if a.train_case:
        a.telarc = shutil.which(a.telarc) or a.telarc
        a.telar_opt = a.telar_opt or os.path.join(
            os.path.dirname(os.path.abspath(a.telarc)), "telar-opt")
        os.makedirs(a.dir, exist_ok=True)
        failed = 0
        for spec in a.train_case:
            ok, line = check_training(a, spec)
            failed += not ok
            print(line, flush=True)
        print(f"cost-contract: {len(a.train_case) - failed} passed, {failed} failed")
        return 1 if failed else 0
    cases = run_sharded.select(a)
    if not cases:
        print("cost_contract: no case selected", file=sys.stderr)
        return 2
    a.telarc = shutil.which(a.telarc) or a.telarc
    a.telar_opt = a.telar_opt or os.path.join(os.path.dirname(os.path.abspath(a.telarc)),
                                              "telar-opt")
    for tool in (a.telarc, a.telar_opt):
        if not os.access(tool, os.X_OK):
            print(f"cost_contract: not executable: {tool}", file=sys.stderr)
            return 2
    os.makedirs(a.dir, exist_ok=True)
    t0 = time.time()
    runner = run_sharded.Runner(argparse.Namespace(dir=a.dir, parallel_runs=1))
    if runner.make_models(cases):
        print("cost_contract: building the models failed", file=sys.stderr)
        return 1
    print(f"models ready in {time.time() - t0:.1f}s", flush=True)
    checker = Checker(a)
    results = {}
    with cf.ThreadPoolExecutor(max_workers=max(1, a.jobs)) as pool:
        for res in pool.map(checker.check, cases):
            results[res["case"]] = res
            if res["ok"]:
                print(f"PASS {res['case']}: {res['summary']}", flush=True)
            else:
                print(f"FAIL {res['case']}: {res['message']}", flush=True)
            for s in res.get("steps", []):
                print(f"    {s}")
    failed = sum(not r["ok"] for r in results.values())
    print(f"cost-contract: {len(results) - failed} passed, {failed} failed "
          f"({time.time() - t0:.1f}s)")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
