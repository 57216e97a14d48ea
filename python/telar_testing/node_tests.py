#!/usr/bin/env python3
"""ONNX backend node tests as an import smoke test for telarc.

Every node-test model (`onnx/backend/test/data/node/<test>/model.onnx` of the pip
`onnx` package, plus Debian's libonnx-testdata node dir
/usr/share/libonnx-testdata/data/node when present; de-duplicated by test name,
the pip copy wins) is imported with

    telarc <test>/model.onnx --emit=mlir        > a.mlir   (30 s limit)
    telar-opt < a.mlir                          > b.mlir   (30 s limit)
    telar-opt < b.mlir                          > /dev/null (30 s limit; --roundtrips 2)

A test PASSES when every stage exits 0. A test is ELIGIBLE when all its nodes
(including nodes in subgraphs: If/Loop/Scan bodies) are in the default ONNX
domain, their op types are in the supported set printed by
`telarc --list-ops` (one op type per line), or read from `--ops-file FILE`,
and the model's default-domain opset is in the supported range 11-23. Tests
with an unsupported op and tests outside the opset range are counted
separately ("unsupported ops", "out of opset range"); every other failure
(element types, rejected attributes, ...) counts against the rate.

Bound inputs: node tests feed some inputs that must be compile-time constants
(Reshape's shape, Slice's starts, Tile's repeats, ...) as graph inputs. When
telarc supports `--bind-input NAME=FILE` (it is in `telarc --help`) and its
error names `graph input 'X'` in a message about a constant / --bind-input,
where X is a tensor graph input of the model whose test data
`test_data_set_0/input_K.pb` exists (K = X's index among the graph inputs that
are not initializers), telarc is rerun with `--bind-input X=<that file>`,
accumulating binds for up to 8 rounds -- as a user compiling static shapes
would. A pass with binds is a pass; the allowlist records the binds
(`bind=X,Y`) and `run` passes them up front, so the result is reproducible.

Subcommands:

  run --telarc build/bin/telarc [--telar-opt PATH] [--allowlist FILE] [--jobs 2]
      [--filter REGEX] [--ops-file FILE] [--results out.json] [--roundtrips N]
      Runs all models (eligible or not) and prints a summary: eligible count, pass
      count (and how many with bound inputs), rate; failing eligible tests listed;
      unsupported op types by the number of tests they block; the out-of-opset-
      range count; then the failure summary: failures of eligible tests grouped by
      the op named in the error and by short reason (first line of the error,
      names -> '_', numbers -> N) with counts; every crash and regression; last
      line `node-tests: N passed, N failed` (eligible tests), after
      `allowlist: N tests, N pass, N regressed, N not run`. Exit status 1 when
        - a test listed in the allowlist (and matched by --filter) does not pass
          (a regression) or does not run: not found in any node-test dir, or it
          comes from Debian's libonnx-testdata (`needs=` in the op-type index) and
          that dir is absent or --no-debian (these are listed and counted), or
        - any model, eligible or not, crashes: a stage killed by a signal, a stage
          that hangs past the time limit, an exit code other than 0 or 1, or a
          crash report on stderr ("Stack dump:", "PLEASE submit a bug report",
          sanitizer reports). Unsupported models must fail with exit code 1 and a
          message, never a crash.

  update-allowlist (same options as run) [--drop]
      Runs the tests like `run` and rewrites the allowlist with every test that
      passes, plus the op-type index (see below). Exit 1 on crashes (the files are
      written all the same). When allowlisted tests no longer pass (or index
      entries are no longer found) it writes nothing and exits 1, listing them,
      unless --drop.

  docs --out docs/SupportedOps.md [--allowlist FILE] [--telarc PATH | --ops-file FILE]
      Writes the supported-ops table from the allowlist, the op-type index and the
      supported set (telarc --list-ops); imports nothing. For each supported op
      type: the opset versions where its schema changed (since_version <= 23 from
      onnx.defs.get_all_schemas_with_history(), domain ''), and the node tests
      containing that op: passing / eligible, how many of the passing ones need
      bound inputs, and a status (all pass / partial / none pass / no eligible
      test), and the same for execution from the exec allowlist (execution tests
      passing / eligible, execution status). The header has the supported-op
      count, the overall node-test import and execution rates, how they are
      computed, and the counts of tests passing with bound inputs, out of opset
      range and with unsupported ops. Output is sorted and
      does not depend on the machine, so it is reproducible.

  exec --telarc build/bin/telarc [--telar-run PATH] [--allowlist FILE]
      [--exec-allowlist FILE] [--only-exec-allowlisted] [--jobs 2] [--filter REGEX]
      [--timeout 120] [--run-threads 1] [--results out.json] [-v]
      Execution on the CPU. For every test of the (import) allowlist -- or, with
      --only-exec-allowlisted, of the exec allowlist only:
          telarc model.onnx -o ART --target cpu -q [--bind-input X=input_K.pb ...]
          telar-run ART --input NAME=test_data_set_N/input_K.pb ... --output-dir D
              --format npy|pb --threads 1 -q
      with the import test's bind logic (the allowlist's binds up front, more when
      telarc asks), NAME = the K-th graph input that is not an initializer (bound
      inputs are not passed), for every test_data_set_N (sets whose bound inputs
      differ from set 0's are skipped). Outputs (.pb when an output type has no
      .npy form: bfloat16, float8, int4, ...) are compared with output_K.pb by
      tensor_compare.compare: same shape and dtype; float32/float64 within rtol
      1e-4, atol 1e-5, float16 1e-3, bfloat16 1e-2; float8/float4, integers, bools
      and every output of a test made only of Cast/CastLike exactly; NaN matches
      NaN, an infinity only the same infinity. A test whose artifact has no
      inputs (every graph input bound, or none) runs on constants: it is
      `folded` when its imported IR (telarc --emit=mlir) is only constants, so
      nothing is computed at run time; both kinds are counted apart.
      Per-test status: pass / compile-fail / run-fail / mismatch, with the first
      error line. Runs in a process pool (--jobs). Prints counts per status, the
      compile/run times, the overall rate (passing / eligible, eligible as for the
      import test), every failing test, failures grouped by status and reason,
      crashes (not fatal), regressions, the known failures (EXEC_KNOWN_FAILURES),
      the tests that did not run; then `exec allowlist: N tests, N pass (N on
      runtime inputs, N on constants only, N folded at import), N regressed, N not
      run; known failures: N of N fail as recorded`; last line `node-tests-exec: N
      passed, N failed`. Exit 1 when an exec-allowlisted test (matched by
      --filter) does not pass or does not run (as for `run`; also when it is not in
      the import allowlist), or a known failure passes or fails otherwise.

  update-exec-allowlist (same options as exec) [--drop]
      Runs every import-allowlisted test like `exec` and rewrites the exec
      allowlist (node_tests_exec_allowlist.txt next to the allowlist, same format
      plus `folded`) with the tests that pass; refuses to drop tests (exit 1,
      nothing written) unless --drop.

  list [--ops-file FILE | --telarc PATH] [--filter REGEX]
      Prints every discovered test with its source, op types and eligibility (no
      imports); for checking discovery and eligibility without a telarc.

Exit status 2: telarc/telar-opt missing or not startable (not a test result).
Runtime: ~1-2 min for all 1471 models with --jobs 2 on 2 cores (binding reruns telarc).

Files (test/onnx/ by default):

  node_tests_allowlist.txt   one passing test per line, sorted:
                             `test_name<TAB>OpType,OpType,...` (its sorted op types),
                             plus `<TAB>bind=X,Y` when it passes only with those
                             graph inputs bound to its test data (in input order).
                             `#` starts a comment; `run` reads the name and the
                             binds, and also accepts bare test names.
  node_tests_exec_allowlist.txt  the tests that pass `exec` (same format, plus
                             `<TAB>folded` for import-time folds; written by
                             update-exec-allowlist; --exec-allowlist to change).
  node_tests_ops.txt         the op-type index: every discovered test, sorted,
                             `test_name<TAB>OpType,...<TAB>opset=N` (N: the
                             default-domain opset, `-` when none), plus
                             `<TAB>needs=libonnx-testdata` for a test found only
                             in Debian's node dir; written by
                             update-allowlist next to the allowlist (`--ops-index`
                             to change). Ops outside the default domain are written
                             `domain:OpType`; a model Python could not load is `?`.
                             `docs` counts eligible tests from this file, so the
                             table does not depend on which test data a machine has.
"""

from __future__ import annotations

import argparse
import collections
import concurrent.futures as cf
import json
import os
import re
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

DEFAULT_ALLOWLIST = "test/onnx/node_tests_allowlist.txt"
INDEX_NAME = "node_tests_ops.txt"
DEBIAN_NODE_DIR = "/usr/share/libonnx-testdata/data/node"
MIN_OPSET = 11
MAX_OPSET = 23
MAX_BIND_ROUNDS = 8
TIMEOUT_S = 30
DEFAULT_DOMAINS = ("", "ai.onnx")
UBSAN_RE = re.compile(r"\.(c|cc|cpp|cxx|h|hpp|inc):\d+:\d+: runtime error: ")
CRASH_MARKERS = (
    "PLEASE submit a bug report",
    "Stack dump:",
    "ERROR: AddressSanitizer",
    "ERROR: LeakSanitizer",
    "ERROR: ThreadSanitizer",
    "terminate called after throwing",
)


# ------------------------------------------------------------------ discovery
def pip_node_dir():
    import onnx
    return os.path.join(os.path.dirname(onnx.__file__), "backend", "test", "data", "node")


def discover(extra_dirs=(), use_debian=True):
    """Returns {test_name: (source, model_path)}; earlier dirs win on name clashes."""
    dirs = [("pip", pip_node_dir())]
    if use_debian:
        dirs.append(("debian", DEBIAN_NODE_DIR))
    dirs += [("extra", d) for d in extra_dirs]
    seen_real = set()
    tests = {}
    for source, d in dirs:
        if not os.path.isdir(d):
            continue
        real = os.path.realpath(d)
        if real in seen_real:
            continue
        seen_real.add(real)
        for name in sorted(os.listdir(d)):
            model = os.path.join(d, name, "model.onnx")
            if name not in tests and os.path.isfile(model):
                tests[name] = (source, model)
    return tests


def _graph_ops(graph, out):
    import onnx
    for node in graph.node:
        if node.domain in DEFAULT_DOMAINS:
            out.add(node.op_type)
        else:
            out.add(f"{node.domain}:{node.op_type}")
        for attr in node.attribute:
            if attr.type == onnx.AttributeProto.GRAPH:
                _graph_ops(attr.g, out)
            elif attr.type == onnx.AttributeProto.GRAPHS:
                for g in attr.graphs:
                    _graph_ops(g, out)


def model_info(path):
    """{ops, opset, inputs, outputs} of a model: sorted op types of all nodes
    (subgraphs included; ['?'] if unreadable), the default-domain opset (None if
    none), the graph inputs that are not initializers, in order, as (name,
    is_tensor), the graph outputs as (name, TensorProto elem_type or None), and
    input_types: {input name: elem_type or None}."""
    import onnx
    try:
        m = onnx.load(path, load_external_data=False)
    except Exception:
        return {"ops": ["?"], "opset": None, "inputs": [], "outputs": [], "input_types": {}}
    ops = set()
    _graph_ops(m.graph, ops)
    opsets = [o.version for o in m.opset_import if o.domain in DEFAULT_DOMAINS]
    inits = {t.name for t in m.graph.initializer}
    inputs = [(i.name, i.type.HasField("tensor_type"))
              for i in m.graph.input if i.name not in inits]
    elem = lambda v: v.type.tensor_type.elem_type if v.type.HasField("tensor_type") else None
    outputs = [(o.name, elem(o)) for o in m.graph.output]
    input_types = {i.name: elem(i) for i in m.graph.input if i.name not in inits}
    return {"ops": sorted(ops), "opset": max(opsets) if opsets else None,
            "inputs": inputs, "outputs": outputs, "input_types": input_types}


def model_ops(path):
    return model_info(path)["ops"]


def opset_in_range(opset):
    return opset is not None and MIN_OPSET <= opset <= MAX_OPSET


def ineligibility(ops, supported, opset):
    """None when eligible; else 'ops' (an op is unsupported / not in the default
    domain / the model is unreadable) or 'opset' (default-domain opset outside
    MIN_OPSET..MAX_OPSET). Unsupported ops take precedence."""
    if not ops or not all(op in supported for op in ops):
        return "ops"
    if not opset_in_range(opset):
        return "opset"
    return None


def is_eligible(ops, supported, opset):
    return ineligibility(ops, supported, opset) is None


def bindable_inputs(model, inputs):
    """{name: test_data_set_0/input_K.pb} for the tensor graph inputs whose test data
    exists and whose name can be written in `--bind-input NAME=FILE` and in the
    allowlist's `bind=` column (insertion order = input order)."""
    data = os.path.join(os.path.dirname(model), "test_data_set_0")
    out = {}
    for k, (name, is_tensor) in enumerate(inputs):
        pb = os.path.join(data, f"input_{k}.pb")
        if (is_tensor and name and not re.search(r"[=,\s#]", name)
                and os.path.isfile(pb)):
            out[name] = pb
    return out


def telarc_can_bind(telarc):
    try:
        p = subprocess.run([telarc, "--help"], capture_output=True, text=True,
                           timeout=TIMEOUT_S)
    except (OSError, subprocess.TimeoutExpired):
        return False
    return "--bind-input" in p.stdout


GRAPH_INPUT_RE = re.compile(r"graph input '([^']*)'")


def inputs_to_bind(stderr):
    """Graph inputs that telarc's error asks to bind: names in `graph input 'X'` on
    lines about a constant or --bind-input (not, e.g., "graph input 'X' is not a
    tensor"), in order of appearance."""
    names = []
    for line in stderr.splitlines():
        if "bind-input" in line or "constant" in line:
            for n in GRAPH_INPUT_RE.findall(line):
                if n not in names:
                    names.append(n)
    return names


# -------------------------------------------------------------- supported ops
def supported_ops(args):
    if getattr(args, "ops_file", None):
        with open(args.ops_file) as f:
            text = f.read()
    else:
        if not args.telarc:
            sys.exit("node_tests: need --telarc or --ops-file for the supported-op set")
        try:
            p = subprocess.run([args.telarc, "--list-ops"], capture_output=True,
                               text=True, timeout=TIMEOUT_S)
        except (OSError, subprocess.TimeoutExpired) as e:
            sys.exit(f"node_tests: cannot run {args.telarc} --list-ops: {e}")
        if p.returncode != 0:
            sys.exit(f"node_tests: {args.telarc} --list-ops exited {p.returncode}:\n{p.stderr}")
        text = p.stdout
    ops = {line.strip() for line in text.splitlines()}
    ops.discard("")
    return {op for op in ops if not op.startswith("#")}


# ------------------------------------------------------------ allowlist files
def read_tab_file(path):
    """Reads `name[<TAB>op,op,...][<TAB>key=value | flag]...` lines ->
    {name: {"ops": [ops] or None, "bind": [names], "opset": int or None,
    "has_opset": bool, "needs": package or None, "folded": bool}}."""
    out = {}
    if not os.path.exists(path):
        return out
    with open(path) as f:
        for line in f:
            line = line.split("#", 1)[0].rstrip("\n").strip()
            if not line:
                continue
            cols = [c.strip() for c in line.split("\t")]
            row = {"ops": None, "bind": [], "opset": None, "has_opset": False,
                   "needs": None, "folded": False}
            if len(cols) > 1 and cols[1]:
                row["ops"] = [o for o in cols[1].split(",") if o]
            for col in cols[2:]:
                key, _, val = col.partition("=")
                if key == "bind":
                    row["bind"] = [b for b in val.split(",") if b]
                elif key == "opset":
                    row["has_opset"] = True
                    row["opset"] = int(val) if val.isdigit() else None
                elif key == "needs":
                    row["needs"] = val or None
                elif key == "folded":
                    row["folded"] = True
            out[cols[0]] = row
    return out


def write_tab_file(path, rows, header):
    """rows: {name: [column, ...]} (columns after the name, joined by tabs)."""
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        for h in header:
            f.write(f"# {h}\n")
        for name in sorted(rows):
            cols = list(rows[name])
            cols = cols[:1] + [c for c in cols[1:] if c]  # optional key=value columns
            while cols and not cols[-1]:
                cols.pop()
            f.write("\t".join([name] + cols) + "\n")
    os.replace(tmp, path)


def index_path(args):
    return args.ops_index or os.path.join(os.path.dirname(args.allowlist) or ".", INDEX_NAME)


# Where a test's model comes from when it is not in the pip onnx package: the
# Debian package that holds it (the index's `needs=` column).
DEBIAN_PACKAGE = "libonnx-testdata"


def needs_column(source):
    return f"needs={DEBIAN_PACKAGE}" if source == "debian" else ""


def allowlisted_to_run(allow, args):
    """The allowlisted tests this invocation must run: all, or those --filter
    matches."""
    rx = re.compile(args.filter) if getattr(args, "filter", None) else None
    return sorted(n for n in allow if not rx or rx.search(n))


def not_run(expected, results, discovered, args):
    """The allowlisted tests (`expected`) without a result, by why: {"package":
    tests that need libonnx-testdata (the op-type index's `needs=`) while
    Debian's node dir is absent or ignored (--no-debian), "not found": tests in
    no node-test dir, "skipped": tests that were found but not run (for exec:
    not in the import allowlist)}. Every one is a failure: the caller lists them."""
    missing = [n for n in expected if n not in results]
    out = {"package": [], "not found": [], "skipped": []}
    if not missing:
        return out
    index = read_tab_file(index_path(args))
    debian_absent = args.no_debian or not os.path.isdir(DEBIAN_NODE_DIR)
    for n in missing:
        if n in discovered:
            out["skipped"].append(n)
        elif debian_absent and n in index and index[n]["needs"] == DEBIAN_PACKAGE:
            out["package"].append(n)
        else:
            out["not found"].append(n)
    return out


def print_not_run(p, what, missing, args, skipped_why):
    n = sum(len(v) for v in missing.values())
    if not n:
        return
    p(f"\nNOT RUN ({n} {what} tests did not run; each fails the run):")
    if missing["package"]:
        why = ("--no-debian" if args.no_debian else
               f"{DEBIAN_NODE_DIR} is absent; scripts/setup.sh installs it")
        p(f"  {len(missing['package'])} need Debian's {DEBIAN_PACKAGE} ({why}): "
          + " ".join(missing["package"]))
    if missing["not found"]:
        p(f"  {len(missing['not found'])} not found in any node-test dir: "
          + " ".join(missing["not found"]))
    if missing["skipped"]:
        p(f"  {len(missing['skipped'])} found but not run ({skipped_why}): "
          + " ".join(missing["skipped"]))


# ------------------------------------------------------------------- running
def crash_reason(rc, stderr, timed_out, timeout=TIMEOUT_S):
    if timed_out:
        return f"hang (no exit within {timeout}s)"
    if rc < 0:
        import signal
        try:
            sig = signal.Signals(-rc).name
        except ValueError:
            sig = str(-rc)
        return f"killed by signal {sig}"
    for m in CRASH_MARKERS:
        if m in stderr:
            return f"crash report on stderr ({m!r})"
    if UBSAN_RE.search(stderr):
        return "crash report on stderr (UBSan runtime error)"
    if rc not in (0, 1):
        return f"exit code {rc} (expected 0 or 1)"
    return None


class ToolError(Exception):
    """telarc / telar-opt could not be started at all (not a test failure)."""


def run_stage(cmd, stdin_path, stdout_path, timeout=TIMEOUT_S):
    t0 = time.time()
    stdin = open(stdin_path, "rb") if stdin_path else subprocess.DEVNULL
    stdout = open(stdout_path, "wb") if stdout_path else subprocess.DEVNULL
    try:
        for attempt in range(5):
            try:
                p = subprocess.run(cmd, stdin=stdin, stdout=stdout,
                                   stderr=subprocess.PIPE, timeout=timeout)
                break
            except OSError as e:  # e.g. the binary is being relinked right now
                if attempt == 4:
                    raise ToolError(f"cannot start {cmd[0]}: {e}") from e
                time.sleep(2)
        rc, err, timed_out = p.returncode, p.stderr, False
    except subprocess.TimeoutExpired as e:
        rc, err, timed_out = None, e.stderr or b"", True
    finally:
        if stdin_path:
            stdin.close()
        if stdout_path:
            stdout.close()
    err = err.decode("utf-8", "replace")
    return {"rc": rc, "stderr": err, "seconds": round(time.time() - t0, 3),
            "crash": crash_reason(rc if rc is not None else 0, err, timed_out, timeout)}


def telarc_with_binds(cmd, binds, bindable, stdout_path, timeout=TIMEOUT_S):
    """Runs telarc `cmd` plus `--bind-input X=FILE` for each of `binds`; while it
    fails asking for more graph inputs to be bound (and they are `bindable`),
    adds them and reruns (up to MAX_BIND_ROUNDS). Returns (last stage result,
    binds used)."""
    order = list(bindable or {})
    binds = list(binds)
    for rnd in range(MAX_BIND_ROUNDS + 1):
        full = list(cmd)
        for b in binds:
            full += ["--bind-input", f"{b}={bindable[b]}"]
        r = run_stage(full, None, stdout_path, timeout)
        if not r["crash"] and r["rc"] == 0:
            break
        new = [n for n in inputs_to_bind(r["stderr"])
               if bindable and n in bindable and n not in binds]
        if r["crash"] or not new or rnd == MAX_BIND_ROUNDS:
            break
        binds = sorted(binds + new, key=order.index)
    return r, binds


def run_one(name, model, telarc, telar_opt, roundtrips, tmpdir, binds=(), bindable=None):
    """binds: graph inputs to bind up front (the allowlist's bind= column);
    bindable: {input name: test data .pb} that may be bound when telarc asks for
    it, or None when telarc has no --bind-input (then nothing is retried)."""
    a = os.path.join(tmpdir, f"{name}.0.mlir")
    binds = list(binds)
    result = {"name": name, "passed": False, "stage": None, "crash": None, "message": "",
              "binds": []}

    def fail(stage, r):
        msg = first_error_line(r["stderr"].replace(model + ":", "model.onnx:"))
        result.update(stage=stage, crash=r["crash"], rc=r["rc"], message=msg)
        return result

    try:
        unbindable = [b for b in binds if not bindable or b not in bindable]
        if unbindable:
            why = ("telarc has no --bind-input" if bindable is None else
                   "no tensor test data test_data_set_0/input_K.pb for it")
            result.update(stage="telarc", rc=None, binds=binds,
                          message=f"cannot bind {','.join(unbindable)} ({why})")
            return result
        r, result["binds"] = telarc_with_binds([telarc, model, "--emit=mlir"], binds,
                                               bindable, a)
        if r["crash"] or r["rc"] != 0:
            return fail("telarc", r)
        prev = a
        for i in range(roundtrips):
            nxt = os.path.join(tmpdir, f"{name}.{i + 1}.mlir") if i + 1 < roundtrips else None
            stage = f"telar-opt#{i + 1}" if roundtrips > 1 else "telar-opt"
            r = run_stage([telar_opt], prev, nxt)
            if r["crash"] or r["rc"] != 0:
                return fail(stage, r)
            prev = nxt
        result["passed"] = True
        return result
    finally:
        for i in range(roundtrips + 1):
            try:
                os.unlink(os.path.join(tmpdir, f"{name}.{i}.mlir"))
            except FileNotFoundError:
                pass


def first_error_line(stderr):
    lines = [l.strip() for l in stderr.splitlines() if l.strip()]
    for l in lines:
        if "error" in l.lower():
            return l[:1000]
    return lines[0][:1000] if lines else "(no message on stderr)"


def run_all(args):
    telarc = os.path.abspath(args.telarc) if args.telarc else None
    if not telarc or not os.access(telarc, os.X_OK):
        sys.exit(f"node_tests: telarc not found or not executable: {args.telarc}")
    telar_opt = args.telar_opt or os.path.join(os.path.dirname(telarc), "telar-opt")
    if not os.access(telar_opt, os.X_OK):
        sys.exit(f"node_tests: telar-opt not found or not executable: {telar_opt}")
    supported = supported_ops(args)
    tests = discover(args.test_dir, use_debian=not args.no_debian)
    if args.filter:
        rx = re.compile(args.filter)
        tests = {k: v for k, v in tests.items() if rx.search(k)}
    allow = read_tab_file(args.allowlist) if args.allowlist else {}
    if args.allowlist and not os.path.exists(args.allowlist):
        print(f"note: allowlist {args.allowlist} does not exist (no regression check)",
              file=sys.stderr)
    can_bind = telarc_can_bind(telarc)
    if not can_bind and any(row["bind"] for row in allow.values()):
        print(f"note: {args.telarc} has no --bind-input; allowlisted tests with "
              f"bind= will fail", file=sys.stderr)
    info = {name: model_info(path) for name, (_, path) in tests.items()}
    ops = {name: i["ops"] for name, i in info.items()}

    t0 = time.time()
    results = {}
    with tempfile.TemporaryDirectory(prefix="telar-node-tests-") as tmp, \
            cf.ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        futs = {pool.submit(run_one, name, path, telarc, telar_opt, args.roundtrips, tmp,
                            allow[name]["bind"] if name in allow else (),
                            bindable_inputs(path, info[name]["inputs"]) if can_bind else None): name
                for name, (_, path) in tests.items()}
        done = 0
        for fut in cf.as_completed(futs):
            r = fut.result()
            results[r["name"]] = r
            done += 1
            if args.verbose:
                status = "PASS" if r["passed"] else ("CRASH" if r["crash"] else "FAIL")
                print(f"[{done}/{len(futs)}] {status} {r['name']}"
                      + (f" [bind={','.join(r['binds'])}]" if r["binds"] else "")
                      + ("" if r["passed"] else f" ({r['stage']}: {r['crash'] or r['message']})"),
                      flush=True)
            elif done % 200 == 0:
                print(f"  ... {done}/{len(futs)} models", file=sys.stderr, flush=True)
    elapsed = time.time() - t0

    for name, r in results.items():
        r["ops"] = ops[name]
        r["opset"] = info[name]["opset"]
        r["ineligible"] = ineligibility(ops[name], supported, info[name]["opset"])
        r["eligible"] = r["ineligible"] is None
        r["source"] = tests[name][0]
        r["allowlisted"] = name in allow
    return results, supported, tests, allow, elapsed


NODE_RE = re.compile(r"^node (?:'[^']*'|\S+) \((\w+), opset \d+\): ")
LOC_RE = re.compile(r"^(?:\S+?(?::\d+){0,2}: )?error: ")


def normalise(msg):
    """Names in quotes -> '_', numbers standing alone -> N (float8e4m3fn stays)."""
    msg = re.sub(r"--bind-input [^\s=]+=", "--bind-input _=", msg)
    msg = re.sub(r"'[^']*'", "'_'", msg)
    msg = re.sub(r"(?<![\w.])\d+(?![\w.])", "N", msg)
    return msg[:160]


def classify(r):
    """(op type named in the error or '(model)', normalised short reason) of a failure."""
    msg = r["message"]
    m = LOC_RE.match(msg)
    if m:
        msg = msg[m.end():]
    elif (i := msg.find("error: ")) >= 0:
        msg = msg[i + len("error: "):]
    if r["crash"]:
        return f"({r['stage']})", r["crash"]
    if r["stage"] != "telarc":
        return f"({r['stage']})", normalise(msg)
    m = NODE_RE.match(msg)
    op = m.group(1) if m else "(model)"
    if m:
        msg = msg[m.end():]
    return op, normalise(msg)


def summarize(results, supported, allow, elapsed, missing=None, args=None,
              out=sys.stdout):
    """Prints the import summary; True when no test crashed, no allowlisted test
    fails and none of `missing` (not_run()'s dict) did not run. `allow`: the
    allowlisted tests this run had to pass ({} for update-allowlist)."""
    missing = missing or {}
    eligible = sorted(n for n, r in results.items() if r["eligible"])
    passed = [n for n in eligible if results[n]["passed"]]
    passed_bound = [n for n in passed if results[n]["binds"]]
    failed = [n for n in eligible if not results[n]["passed"]]
    no_ops = sorted(n for n, r in results.items() if r["ineligible"] == "ops")
    no_opset = sorted(n for n, r in results.items() if r["ineligible"] == "opset")
    crashes = sorted(n for n, r in results.items() if r["crash"])
    regressions = sorted(n for n in allow if n in results and not results[n]["passed"])
    n_missing = sum(len(v) for v in missing.values())
    extra_pass = sorted(n for n, r in results.items() if r["passed"] and not r["eligible"])
    new_pass = sorted(n for n, r in results.items() if r["passed"] and n not in allow)

    p = lambda *a: print(*a, file=out)
    p(f"node tests: {len(results)} models run in {elapsed:.0f}s, "
      f"{len(supported)} op types supported")
    rate = 100.0 * len(passed) / len(eligible) if eligible else 0.0
    p(f"eligible: {len(eligible)}  passed: {len(passed)} "
      f"(with bound inputs: {len(passed_bound)})  rate: {rate:.1f}%")
    p(f"not eligible: {len(no_ops)} with unsupported ops, {len(no_opset)} out of "
      f"opset range (default-domain opset outside {MIN_OPSET}..{MAX_OPSET})")
    if failed:
        p(f"\nfailing eligible tests ({len(failed)}):")
        for n in failed:
            r = results[n]
            p(f"  {n} [{','.join(r['ops'])}]"
              + (f" [bind={','.join(r['binds'])}]" if r["binds"] else "")
              + f" {r['stage']}: {r['crash'] or r['message']}")
    missing_ops = collections.Counter(
        op for n in no_ops for op in set(results[n]["ops"]) - supported)
    if missing_ops:
        top = sorted(missing_ops.items(), key=lambda x: (-x[1], x[0]))[:30]
        p(f"\nunsupported op types by node tests that contain them "
          f"({len(no_ops)} tests, top {len(top)}):")
        p("  " + ", ".join(f"{op} {c}" for op, c in top))
    if no_opset:
        by_opset = collections.Counter(results[n]["opset"] for n in no_opset)
        p(f"\nout of opset range ({len(no_opset)} tests whose ops are all supported), "
          f"by default-domain opset: "
          + ", ".join(f"{'none' if v is None else v}: {c}"
                      for v, c in sorted(by_opset.items(), key=lambda x: (x[0] is None, x[0] or 0))))
    if extra_pass:
        p(f"\nnote: {len(extra_pass)} tests pass although not eligible: "
          f"{' '.join(extra_pass[:20])}" + (" ..." if len(extra_pass) > 20 else ""))
    if new_pass and allow:
        p(f"\nnote: {len(new_pass)} passing tests are not in the allowlist "
          f"(update-allowlist adds them)")
    if failed:
        by_op = collections.Counter()
        by_reason = collections.defaultdict(collections.Counter)
        for n in failed:
            op, reason = classify(results[n])
            by_op[op] += 1
            by_reason[reason][op] += 1
        p(f"\nfailure summary: {len(failed)} eligible tests fail")
        p("by op type (the op named in the error; (model) = a model-level error):")
        p("  " + ", ".join(f"{op} {c}" for op, c in
                           sorted(by_op.items(), key=lambda x: (-x[1], x[0]))))
        p("by reason (first line of the error; names -> '_', numbers -> N; "
          "[ops named in it]):")
        for reason, ops in sorted(by_reason.items(),
                                  key=lambda x: (-sum(x[1].values()), x[0])):
            opl = ", ".join(f"{o} {c}" for o, c in
                            sorted(ops.items(), key=lambda x: (-x[1], x[0])))
            p(f"  {sum(ops.values()):4d}  {reason}  [{opl}]")
    if crashes:
        p(f"\nCRASHES ({len(crashes)}; any crash fails the run, eligible or not):")
        for n in crashes:
            r = results[n]
            p(f"  {n} [{','.join(r['ops'])}] {r['stage']}: {r['crash']}: {r['message']}")
    if regressions:
        p(f"\nREGRESSIONS ({len(regressions)} allowlisted tests fail):")
        for n in regressions:
            r = results[n]
            p(f"  {n} {r['stage']}: {r['crash'] or r['message']}")
    print_not_run(p, "allowlisted", missing, args, "")
    if allow:
        n_pass = sum(1 for n in allow if n in results and results[n]["passed"])
        p(f"\nallowlist: {len(allow)} tests, {n_pass} pass, {len(regressions)} "
          f"regressed, {n_missing} not run")
    ok = not crashes and not regressions and not n_missing
    # A closing line in the "N passed, N failed" form.
    p(f"\nnode-tests: {len(passed)} passed, {len(failed)} failed")
    return ok


def write_results(path, results):
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    with open(path, "w") as f:
        json.dump({n: results[n] for n in sorted(results)}, f, indent=1)


def cmd_run(args):
    if not read_tab_file(args.allowlist):
        sys.exit(f"node_tests: the allowlist {args.allowlist} is missing or empty")
    results, supported, tests, allow, elapsed = run_all(args)
    if args.results:
        write_results(args.results, results)
    expected = allowlisted_to_run(allow, args)
    missing = not_run(expected, results, tests, args)
    ok = summarize(results, supported, {n: allow[n] for n in expected}, elapsed,
                   missing, args)
    return 0 if ok else 1


def refuse_drops(what, lost, args):
    """True (after saying why) when an update would drop `lost` tests from `what`
    without --drop: a test that stops passing (or is not found) is a regression
    to look at, not a line to delete quietly."""
    if not lost or args.drop:
        return False
    print(f"node_tests: error: {len(lost)} tests would be dropped from {what}: "
          f"{' '.join(lost)}\nnothing written; fix them, or rerun with --drop to "
          f"remove them", file=sys.stderr)
    return True


def cmd_update_allowlist(args):
    if args.filter:
        sys.exit("node_tests: update-allowlist runs every test; drop --filter")
    results, supported, tests, allow, elapsed = run_all(args)
    if args.results:
        write_results(args.results, results)
    summarize(results, supported, {}, elapsed)
    passing = {n: [",".join(r["ops"]),
                   f"bind={','.join(r['binds'])}" if r["binds"] else ""]
               for n, r in results.items() if r["passed"]}
    idx = index_path(args)
    lost = sorted(set(allow) - set(passing))
    lost_index = sorted(set(read_tab_file(idx)) - set(results))
    if refuse_drops(args.allowlist, lost, args) or refuse_drops(idx, lost_index, args):
        return 1
    write_tab_file(args.allowlist, passing, [
        "ONNX backend node tests that telarc imports and telar-opt round-trips.",
        "Generated by: python/telar_testing/node_tests.py update-allowlist",
        "Format: test_name<TAB>op types of its model (sorted)[<TAB>bind=X,Y: graph inputs",
        "bound to test_data_set_0/input_K.pb with telarc --bind-input, in input order].",
    ])
    write_tab_file(idx, {n: [",".join(r["ops"]),
                             f"opset={'-' if r['opset'] is None else r['opset']}",
                             needs_column(r["source"])]
                         for n, r in results.items()}, [
        "Op types of every ONNX backend node test (pip onnx + libonnx-testdata).",
        "Generated by: python/telar_testing/node_tests.py update-allowlist",
        "Format: test_name<TAB>op types (domain:OpType outside the default domain)"
        "<TAB>opset=N (default-domain opset; - when none)"
        f"[<TAB>needs={DEBIAN_PACKAGE}: the model comes from Debian's package].",
    ])
    n_bound = sum(1 for row in passing.values() if row[1])
    print(f"wrote {args.allowlist} ({len(passing)} tests, {n_bound} with bound inputs, "
          f"+{len(set(passing) - set(allow))} -{len(lost)}) and {idx} ({len(results)} tests)")
    if lost or lost_index:
        print("removed (--drop) from the allowlist: " + " ".join(lost)
              + "; from the index: " + " ".join(lost_index))
    crashes = [n for n, r in results.items() if r["crash"]]
    return 1 if crashes else 0


# ------------------------------------------------------------------ execution
EXEC_ALLOWLIST_NAME = "node_tests_exec_allowlist.txt"
EXEC_TIMEOUT_S = 120
EXEC_STATUSES = ("pass", "compile-fail", "run-fail", "mismatch")
# (rtol, atol) per floating-point output dtype; float8 / float4 outputs (values
# on a coarse grid, e.g. Cast results) must match exactly, as must integers and
# bools. NaN matches NaN, an infinity only the same infinity.
FLOAT_TOLERANCE = {"float32": (1e-4, 1e-5), "float64": (1e-4, 1e-5),
                   "float16": (1e-3, 1e-3), "bfloat16": (1e-2, 1e-2)}
# Tests made only of these ops compare every output exactly, whatever its type.
EXACT_OPS = {"Cast", "CastLike"}
# Tests that are expected to fail `exec`, with the status they fail with and why;
# each must fail just so (a known failure that passes or fails otherwise fails the
# run: drop it from here then).
_TRUNCATED_BF16 = ("the expected output truncates float32 to bfloat16 (onnx's test "
                   "generator keeps the upper 16 bits); Telar rounds to nearest even, "
                   "as IEEE 754 and onnxruntime do, so 5 of 12 values are 1 ulp apart")
EXEC_KNOWN_FAILURES = {
    "test_cast_FLOAT_to_BFLOAT16": ("mismatch", _TRUNCATED_BF16),
    "test_castlike_FLOAT_to_BFLOAT16": ("mismatch", _TRUNCATED_BF16),
    "test_castlike_FLOAT_to_BFLOAT16_expanded": ("mismatch", _TRUNCATED_BF16),
}
# TensorProto element types that .npy cannot hold (bfloat16, float8*, int4,
# uint4, float4e2m1, float8e8m0): such tests ask telar-run for .pb outputs.
NEEDS_PB = {16, 17, 18, 19, 20, 21, 22, 23, 24}


EXEC_ALLOWLIST_HEADER = [
    "ONNX backend node tests that compile for the CPU (telarc --target cpu), run with",
    "telar-run and match the expected outputs (fp32/fp64 rtol 1e-4 atol 1e-5, fp16",
    "rtol/atol 1e-3, bf16 1e-2; integers, bools, float8/float4 and the outputs of",
    "Cast/CastLike-only tests exactly).",
    "Generated by: python/telar_testing/node_tests.py update-exec-allowlist",
    "Format: test_name<TAB>op types of its model (sorted)[<TAB>bind=X,Y: graph inputs",
    "bound to test_data_set_0/input_K.pb with telarc --bind-input, in input order]",
    "[<TAB>folded: every input is bound and the import folds the graph to constants,",
    "so nothing is computed at run time].",
]


def exec_allowlist_path(args):
    return args.exec_allowlist or os.path.join(os.path.dirname(args.allowlist) or ".",
                                               EXEC_ALLOWLIST_NAME)


def output_file_name(name):
    """The file name telar-run gives output `name` (without the extension)."""
    return re.sub(r"[^A-Za-z0-9._-]", "_", name)


BFLOAT16, UINT16 = 16, 4


def read_proto(path):
    import onnx
    t = onnx.TensorProto()
    with open(path, "rb") as f:
        t.ParseFromString(f.read())
    return t


def read_tensor(path, elem_type=None):
    """The tensor in a .npy or TensorProto .pb file as a numpy array; bfloat16 and
    float8 tensors (which onnx gives as their bits) become float32 arrays of their
    values. `elem_type`: the graph's type for it; the node tests store bfloat16
    data as uint16 tensors of the same bits, which are read as bfloat16 then."""
    import numpy as np
    from onnx import TensorProto as TP, numpy_helper as nh
    if path.endswith(".npy"):
        return np.load(path)
    t = read_proto(path)
    if elem_type == BFLOAT16 and t.data_type == UINT16:
        t.data_type = BFLOAT16
    a = nh.to_array(t)
    if t.data_type == TP.BFLOAT16:  # the upper half of a float32
        return (a.view(np.uint16).astype(np.uint32) << 16).view(np.float32)
    import warnings
    with warnings.catch_warnings():  # onnx 1.18 deprecates these for ml_dtypes
        warnings.simplefilter("ignore", DeprecationWarning)
        if t.data_type in (TP.FLOAT8E4M3FN, TP.FLOAT8E4M3FNUZ):
            return nh.float8e4m3_to_float32(a.view(np.uint8),
                                            uz=t.data_type == TP.FLOAT8E4M3FNUZ)
        if t.data_type in (TP.FLOAT8E5M2, TP.FLOAT8E5M2FNUZ):
            uz = t.data_type == TP.FLOAT8E5M2FNUZ
            return nh.float8e5m2_to_float32(a.view(np.uint8), fn=uz, uz=uz)
    return a


def input_file(pb, elem_type, work):
    """`pb`, or when it holds a bfloat16 input as uint16 bits (as the node tests
    do), a copy in `work` that says bfloat16."""
    if elem_type != BFLOAT16:
        return pb
    t = read_proto(pb)
    if t.data_type != UINT16:
        return pb
    t.data_type = BFLOAT16
    fixed = os.path.join(work, "bf16_" + os.path.basename(os.path.dirname(pb)) + "_"
                         + os.path.basename(pb))
    with open(fixed, "wb") as f:
        f.write(t.SerializeToString())
    return fixed


def tolerance(elem_type, dtype, ops):
    """(rtol, atol) for an output: exact for integers, bools, float8/float4 and
    for every output of a test made only of EXACT_OPS (a cast is correctly
    rounded: a 1-ulp error is a bug, not noise); else FLOAT_TOLERANCE by dtype."""
    from onnx import TensorProto as TP
    if ops and set(ops) <= EXACT_OPS:
        return 0.0, 0.0
    name = ("bfloat16" if elem_type == TP.BFLOAT16 else
            "float8" if elem_type in NEEDS_PB else str(dtype))
    return FLOAT_TOLERANCE.get(name, (0.0, 0.0))


def compare_output(got, want, elem_type=None, ops=None):
    """'' when `got` matches the expected `want`, else why not (one line), by
    tensor_compare.compare with tolerance(): NaN matches NaN, an infinity only
    the same infinity. `elem_type`: the output's TensorProto type (bfloat16 /
    float8 outputs arrive as float32 values; their tolerance is taken from
    this); `ops`: the test's op types (Cast-only tests compare exactly)."""
    from tensor_compare import compare
    rtol, atol = tolerance(elem_type, want.dtype, ops)
    return compare(got, want, rtol, atol).message


def exec_one(name, model, info, telarc, telar_run, tmpdir, binds, bindable, timeout,
             threads):
    """Compiles one node test to a CPU artifact (binding inputs as the import test
    does), runs it on every test_data_set_N and compares with output_K.pb.
    Returns {name, status (EXEC_STATUSES), stage, message, crash, binds,
    compile_s, run_s, data_sets}."""
    import shutil
    work = os.path.join(tmpdir, name)
    art = os.path.join(work, "artifact")
    res = {"name": name, "status": "compile-fail", "stage": "telarc", "message": "",
           "crash": None, "binds": list(binds), "compile_s": None, "run_s": None,
           "data_sets": 0, "no_inputs": False, "folded": False}

    def fail(status, stage, message, crash=None):
        message = (message.replace(work + os.sep, "").replace(model, "model.onnx")
                   .replace(os.path.dirname(model) + os.sep, ""))
        res.update(status=status, stage=stage, message=message[:1000], crash=crash)
        return res

    try:
        os.makedirs(work)
        unbindable = [b for b in binds if not bindable or b not in bindable]
        if unbindable:
            return fail("compile-fail", "telarc",
                        f"cannot bind {','.join(unbindable)} (no test data or no "
                        f"--bind-input)")
        t0 = time.time()
        r, res["binds"] = telarc_with_binds(
            [telarc, model, "-o", art, "--target", "cpu", "-q"], binds, bindable, None,
            timeout)
        res["compile_s"] = round(time.time() - t0, 3)
        if r["crash"] or r["rc"] != 0:
            return fail("compile-fail", "telarc", first_error_line(r["stderr"]),
                        r["crash"])
        try:
            with open(os.path.join(art, "manifest.json")) as f:
                manifest = json.load(f)
        except (OSError, ValueError) as e:
            return fail("compile-fail", "telarc", f"no readable manifest.json: {e}")

        # Every input bound (or none at all): the program runs on constants;
        # when the import folded it to constants, nothing but a copy executes.
        if not manifest["inputs"]:
            res["no_inputs"] = True
            r, _ = telarc_with_binds([telarc, model, "--emit=mlir"], res["binds"],
                                     bindable, os.path.join(work, "imported.mlir"),
                                     timeout)
            if r["crash"] or r["rc"] != 0:
                return fail("compile-fail", "telarc", first_error_line(r["stderr"]),
                            r["crash"])
            with open(os.path.join(work, "imported.mlir")) as f:
                res["folded"] = folded_at_import(f.read())

        input_names = [n for n, _ in info["inputs"]]
        out_types = dict(info["outputs"])
        fmt = "pb" if any(out_types.get(o["name"]) in NEEDS_PB
                          for o in manifest["outputs"]) else "npy"
        test_dir = os.path.dirname(model)
        sets = sorted(d for d in os.listdir(test_dir) if d.startswith("test_data_set_"))
        set0 = os.path.join(test_dir, "test_data_set_0")
        run_s = 0.0
        for ds in sets:
            data = os.path.join(test_dir, ds)
            # An artifact is compiled for set 0's bound values: skip other sets
            # whose bound inputs differ.
            if data != set0 and any(
                    _file_bytes(os.path.join(data, os.path.basename(bindable[b])))
                    != _file_bytes(bindable[b]) for b in res["binds"]):
                continue
            cmd = [telar_run, art, "--output-dir", os.path.join(work, ds), "--format", fmt,
                   "--threads", str(threads), "-q"]
            for inp in manifest["inputs"]:
                if inp["name"] not in input_names:
                    return fail("run-fail", "inputs",
                                f"artifact input '{inp['name']}' is not a graph input")
                pb = os.path.join(data, f"input_{input_names.index(inp['name'])}.pb")
                if not os.path.isfile(pb):
                    return fail("run-fail", "inputs", f"no test data for input "
                                f"'{inp['name']}' ({ds}/{os.path.basename(pb)})")
                pb = input_file(pb, info["input_types"].get(inp["name"]), work)
                cmd += ["--input", f"{inp['name']}={pb}"]
            t0 = time.time()
            r = run_stage(cmd, None, None, timeout)
            run_s += time.time() - t0
            if r["crash"] or r["rc"] != 0:
                return fail("run-fail", "telar-run", first_error_line(r["stderr"]),
                            r["crash"])
            res["data_sets"] += 1
            for k, (oname, otype) in enumerate(info["outputs"]):
                want_pb = os.path.join(data, f"output_{k}.pb")
                if not oname or not os.path.isfile(want_pb):
                    continue
                got_path = os.path.join(work, ds, f"{output_file_name(oname)}.{fmt}")
                if not os.path.isfile(got_path):
                    return fail("run-fail", "telar-run",
                                f"telar-run wrote no {os.path.basename(got_path)} "
                                f"for output '{oname}'")
                try:
                    why = compare_output(read_tensor(got_path, otype),
                                         read_tensor(want_pb, otype), otype, info["ops"])
                except Exception as e:  # unreadable output file
                    why = f"cannot read {os.path.basename(got_path)}: {e}"
                if why:
                    return fail("mismatch", "compare", f"{ds} output '{oname}': {why}")
        res["run_s"] = round(run_s, 3)
        if not res["data_sets"]:
            return fail("run-fail", "inputs", "no test data set to run")
        res.update(status="pass", stage=None)
        return res
    except ToolError as e:
        return fail("run-fail" if res["compile_s"] is not None else "compile-fail",
                    "tool", str(e))
    except Exception as e:  # e.g. a malformed manifest: report, keep going
        return fail("run-fail" if res["compile_s"] is not None else "compile-fail",
                    "checker", f"{type(e).__name__}: {e}")
    finally:
        shutil.rmtree(work, ignore_errors=True)


IR_OP_RE = re.compile(r"^\s*%[^=]*= \"?([\w.]+)", re.M)


def folded_at_import(mlir):
    """True when the imported IR (telarc --emit=mlir) computes nothing: every op
    that defines a value is a telar.constant."""
    return all(op == "telar.constant" for op in IR_OP_RE.findall(mlir))


def _file_bytes(path):
    try:
        with open(path, "rb") as f:
            return f.read()
    except OSError:
        return None


def run_exec_all(args, every_allowlisted):
    """Runs the execution tests: the import-allowlisted tests (or, with
    args.only_exec_allowlisted and not every_allowlisted, only the exec-allowlisted
    ones). Returns (results, eligible test names, exec allowlist, elapsed,
    number of import-allowlisted tests)."""
    telarc = os.path.abspath(args.telarc) if args.telarc else None
    if not telarc or not os.access(telarc, os.X_OK):
        sys.exit(f"node_tests: telarc not found or not executable: {args.telarc}")
    telar_run = args.telar_run or os.path.join(os.path.dirname(telarc), "telar-run")
    if not os.access(telar_run, os.X_OK):
        sys.exit(f"node_tests: telar-run not found or not executable: {telar_run}")
    supported = supported_ops(args)
    tests = discover(args.test_dir, use_debian=not args.no_debian)
    allow = read_tab_file(args.allowlist)
    if not allow:
        sys.exit(f"node_tests: the import allowlist {args.allowlist} is missing or empty")
    exec_allow = read_tab_file(exec_allowlist_path(args))
    info = {name: model_info(path) for name, (_, path) in tests.items()}
    eligible = {n for n, i in info.items() if is_eligible(i["ops"], supported, i["opset"])}
    chosen = (set(exec_allow) | set(EXEC_KNOWN_FAILURES)
              if (args.only_exec_allowlisted and not every_allowlisted) else allow)
    names = sorted(n for n in chosen if n in tests)
    if args.filter:
        rx = re.compile(args.filter)
        names = [n for n in names if rx.search(n)]
    can_bind = telarc_can_bind(telarc)

    t0 = time.time()
    results = {}
    with tempfile.TemporaryDirectory(prefix="telar-node-exec-") as tmp, \
            cf.ProcessPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        futs = {}
        for n in names:
            path = tests[n][1]
            binds = (exec_allow.get(n) or allow[n])["bind"]
            futs[pool.submit(exec_one, n, path, info[n], telarc, telar_run, tmp, binds,
                             bindable_inputs(path, info[n]["inputs"]) if can_bind else None,
                             args.timeout, args.run_threads)] = n
        for done, fut in enumerate(cf.as_completed(futs), 1):
            r = fut.result()
            results[r["name"]] = r
            if args.verbose:
                print(f"[{done}/{len(futs)}] {r['status'].upper()} {r['name']}"
                      + (f" [bind={','.join(r['binds'])}]" if r["binds"] else "")
                      + (f" ({r['stage']}: {r['crash'] or r['message']})"
                         if r["status"] != "pass" else ""), flush=True)
            elif done % 100 == 0:
                print(f"  ... {done}/{len(futs)} tests, {time.time() - t0:.0f}s",
                      file=sys.stderr, flush=True)
    elapsed = time.time() - t0
    for n, r in results.items():
        r["ops"] = info[n]["ops"]
        r["eligible"] = n in eligible
        r["exec_allowlisted"] = n in exec_allow
    return results, eligible, exec_allow, elapsed, len(allow), tests


def summarize_exec(results, eligible, exec_allow, elapsed, jobs, n_imported,
                   missing=None, args=None, known=None, out=sys.stdout):
    """Prints the execution summary; True when no exec-allowlisted test fails,
    every `known` failure ({name: (status, why)}) fails with its status, and
    none of `missing` (not_run()'s dict) did not run. `exec_allow`: the
    exec-allowlisted tests this run had to pass ({} for update-exec-allowlist)."""
    missing = missing or {}
    known = known or {}
    p = lambda *a: print(*a, file=out)
    by_status = collections.defaultdict(list)
    for n in sorted(results):
        by_status[results[n]["status"]].append(n)
    passed = by_status["pass"]
    failed = [n for n in sorted(results) if results[n]["status"] != "pass"]
    regressions = sorted(n for n in exec_allow if n in results
                         and results[n]["status"] != "pass")
    n_missing = sum(len(v) for v in missing.values())
    crashes = sorted(n for n, r in results.items() if r["crash"])
    comp = [r["compile_s"] for r in results.values() if r["compile_s"] is not None]
    runs = [r["run_s"] for r in results.values() if r["run_s"] is not None]
    p(f"node tests (execution): {len(results)} tests run in {elapsed:.0f}s "
      f"(--jobs {jobs}); telarc --target cpu {sum(comp):.0f}s in all, mean "
      f"{(sum(comp) / len(comp) if comp else 0):.2f}s, max {max(comp, default=0):.1f}s; "
      f"telar-run mean {(sum(runs) / len(runs) if runs else 0):.2f}s")
    p("  " + ", ".join(f"{s}: {len(by_status[s])}" for s in EXEC_STATUSES)
      + f" (passing with bound inputs: {sum(1 for n in passed if results[n]['binds'])})")
    passed_el = [n for n in passed if n in eligible]
    rate = 100.0 * len(passed_el) / len(eligible) if eligible else 0.0
    p(f"overall execution pass rate: {len(passed_el)} / {len(eligible)} eligible node "
      f"tests = {rate:.1f}% ({n_imported} import today; eligible as for the import "
      f"test, every eligible test that does not pass counts against the rate)")
    folded = [n for n in passed if results[n]["folded"]]
    on_constants = [n for n in passed if results[n]["no_inputs"] and not results[n]["folded"]]
    p(f"passing without runtime inputs (every input bound, or none): "
      f"{len(folded)} fold to constants at import (nothing computes at run time): "
      f"{' '.join(folded) or '-'}; {len(on_constants)} compute on constants: "
      f"{' '.join(on_constants) or '-'}")
    if failed:
        p(f"\nfailing tests ({len(failed)}):")
        for n in failed:
            r = results[n]
            p(f"  {n} [{','.join(r['ops'])}] {r['status']}: {r['crash'] or r['message']}")
        p(f"\nfailure summary: {len(failed)} tests fail")
        for status in EXEC_STATUSES[1:]:
            group = by_status[status]
            if not group:
                continue
            by_reason = collections.defaultdict(collections.Counter)
            for n in group:
                r = results[n]
                op, reason = classify({"message": r["message"], "crash": r["crash"],
                                       "stage": "telarc" if status == "compile-fail"
                                       else r["stage"]})
                if status != "compile-fail" or op == "(model)":
                    op = ",".join(r["ops"])
                if status == "mismatch":  # drop the numbers: group by what differs
                    reason = re.sub(r" \(.*", "", reason)
                by_reason[reason][op] += 1
            p(f"{status} ({len(group)}), by reason [ops]:")
            for reason, ops in sorted(by_reason.items(),
                                      key=lambda x: (-sum(x[1].values()), x[0])):
                opl = ", ".join(f"{o} {c}" for o, c in
                                sorted(ops.items(), key=lambda x: (-x[1], x[0]))[:12])
                p(f"  {sum(ops.values()):4d}  {reason}  [{opl}]")
    if crashes:
        p(f"\ncrashes ({len(crashes)}; reported, not fatal unless allowlisted):")
        for n in crashes:
            r = results[n]
            p(f"  {n} {r['stage']}: {r['crash']}: {r['message']}")
    new_pass = [n for n in passed if n not in exec_allow]
    if new_pass and exec_allow:
        p(f"\nnote: {len(new_pass)} passing tests are not in the exec allowlist "
          f"(update-exec-allowlist adds them)")
    if regressions:
        p(f"\nREGRESSIONS ({len(regressions)} exec-allowlisted tests fail):")
        for n in regressions:
            r = results[n]
            p(f"  {n} {r['status']}: {r['crash'] or r['message']}")
    flag_changed = sorted(n for n in exec_allow if n in results
                          and results[n]["status"] == "pass"
                          and results[n]["folded"] != exec_allow[n]["folded"])
    if flag_changed:
        p(f"\nnote: {len(flag_changed)} exec-allowlisted tests changed between folding "
          f"at import and computing (update-exec-allowlist records it): "
          + " ".join(flag_changed))
    known_ok = [n for n, (status, _) in known.items()
                if n in results and results[n]["status"] == status]
    if known:
        p(f"\nknown failures ({len(known)}, node_tests.EXEC_KNOWN_FAILURES):")
        for n, (status, why) in sorted(known.items()):
            got = results[n]["status"] if n in results else "not run"
            p(f"  {n} {status}" + ("" if got == status else
                                   f" -- BUT IT IS NOW {got.upper()}") + f": {why}")
    known_changed = sorted(n for n in known if n in results and n not in known_ok)
    if known_changed:
        p(f"\nKNOWN FAILURES THAT CHANGED ({len(known_changed)}; remove them from "
          f"EXEC_KNOWN_FAILURES or fix them): {' '.join(known_changed)}")
    print_not_run(p, "exec-allowlisted or known-failing", missing, args,
                  "not in the import allowlist")
    if exec_allow:
        ok_allow = [n for n in exec_allow if n in results
                    and results[n]["status"] == "pass"]
        n_fold = sum(1 for n in ok_allow if results[n]["folded"])
        n_const = sum(1 for n in ok_allow if results[n]["no_inputs"]
                      and not results[n]["folded"])
        p(f"\nexec allowlist: {len(exec_allow)} tests, {len(ok_allow)} pass "
          f"({len(ok_allow) - n_fold - n_const} on runtime inputs, {n_const} on "
          f"constants only, {n_fold} folded at import), {len(regressions)} regressed, "
          f"{n_missing} not run; known failures: {len(known_ok)} of {len(known)} "
          f"fail as recorded")
    p(f"\nnode-tests-exec: {len(passed)} passed, {len(failed)} failed")
    return not regressions and not n_missing and not known_changed


def cmd_exec(args):
    results, eligible, exec_allow, elapsed, n_imported, tests = run_exec_all(args, False)
    if args.results:
        write_results(args.results, results)
    clash = sorted(set(exec_allow) & set(EXEC_KNOWN_FAILURES))
    if clash:
        sys.exit(f"node_tests: both exec-allowlisted and known to fail: {' '.join(clash)}")
    expected = allowlisted_to_run(exec_allow, args)
    known = allowlisted_to_run(EXEC_KNOWN_FAILURES, args)
    missing = not_run(expected + known, results, tests, args)
    ok = summarize_exec(results, eligible, {n: exec_allow[n] for n in expected},
                        elapsed, args.jobs, n_imported, missing, args,
                        {n: EXEC_KNOWN_FAILURES[n] for n in known})
    return 0 if ok else 1


def cmd_update_exec_allowlist(args):
    if args.filter:
        sys.exit("node_tests: update-exec-allowlist runs every test; drop --filter")
    results, eligible, exec_allow, elapsed, n_imported, _ = run_exec_all(args, True)
    if args.results:
        write_results(args.results, results)
    summarize_exec(results, eligible, {}, elapsed, args.jobs, n_imported)
    passing = {n: [",".join(r["ops"]),
                   f"bind={','.join(r['binds'])}" if r["binds"] else "",
                   "folded" if r["folded"] else ""]
               for n, r in results.items() if r["status"] == "pass"}
    path = exec_allowlist_path(args)
    lost = sorted(set(exec_allow) - set(passing))
    if refuse_drops(path, lost, args):
        return 1
    write_tab_file(path, passing, EXEC_ALLOWLIST_HEADER)
    print(f"wrote {path} ({len(passing)} tests, "
          f"+{len(set(passing) - set(exec_allow))} -{len(lost)})")
    if lost:
        print("removed (--drop) from the exec allowlist: " + " ".join(lost))
    return 0


def op_history():
    import onnx.defs
    hist = collections.defaultdict(set)
    for s in onnx.defs.get_all_schemas_with_history():
        if s.domain in DEFAULT_DOMAINS and s.since_version <= MAX_OPSET:
            hist[s.name].add(s.since_version)
    return hist


def cmd_docs(args):
    supported = supported_ops(args)
    allow = read_tab_file(args.allowlist)
    exec_file = exec_allowlist_path(args)
    exec_allow = read_tab_file(exec_file)
    idx_file = index_path(args)
    index = read_tab_file(idx_file)
    if not index:
        sys.exit(f"node_tests: {idx_file} is missing or empty; run update-allowlist first")
    if not any(row["has_opset"] for row in index.values()):
        sys.exit(f"node_tests: {idx_file} has no opset= column (an old index); "
                 f"rerun update-allowlist")
    for n, row in allow.items():  # allowlist rows carry ops too; prefer the index
        if n not in index and row["ops"] is not None:
            print(f"note: {n} is allowlisted but not in {idx_file} (opset unknown: "
                  f"counted as not eligible)", file=sys.stderr)
            index[n] = row
    hist = op_history()
    why = {n: ineligibility(row["ops"], supported, row["opset"]) for n, row in index.items()}
    eligible = {n for n, w in why.items() if w is None}
    n_no_ops = sum(1 for w in why.values() if w == "ops")
    n_no_opset = sum(1 for w in why.values() if w == "opset")
    passing = {n for n in allow if n in index}
    passing_el = passing & eligible
    bound_el = {n for n in passing_el if allow[n]["bind"]}
    per_op_el = collections.Counter(op for n in eligible for op in index[n]["ops"])
    per_op_pass = collections.Counter(op for n in passing_el for op in index[n]["ops"])
    per_op_bound = collections.Counter(op for n in bound_el for op in index[n]["ops"])
    exec_el = {n for n in exec_allow if n in index} & eligible
    per_op_exec = collections.Counter(op for n in exec_el for op in index[n]["ops"])
    exec_folded = {n for n in exec_el if exec_allow[n]["folded"]}
    rate = 100.0 * len(passing_el) / len(eligible) if eligible else 0.0
    exec_rate = 100.0 * len(exec_el) / len(eligible) if eligible else 0.0
    status_count = collections.Counter()
    exec_status_count = collections.Counter()

    def status(op, per_op_ok, counts):
        el, ok = per_op_el.get(op, 0), per_op_ok.get(op, 0)
        s = ("no eligible test" if not el else "all pass" if ok == el else
             "none pass" if not ok else "partial")
        counts[s] += 1
        return s

    rows = []
    for op in sorted(supported):
        vers = ", ".join(str(v) for v in sorted(hist.get(op, ()))) or "(not an ONNX op)"
        el = per_op_el.get(op, 0)
        tests = f"{per_op_pass.get(op, 0)} / {el}" if el else "-"
        bound = str(per_op_bound.get(op, 0)) if el else "-"
        exec_tests = f"{per_op_exec.get(op, 0)} / {el}" if el else "-"
        rows.append(f"| {op} | {vers} | {tests} | {bound} | "
                    f"{status(op, per_op_pass, status_count)} | {exec_tests} | "
                    f"{status(op, per_op_exec, exec_status_count)} |")

    lines = [
        "# Supported ONNX operators",
        "",
        "<!-- Generated by `python/telar_testing/node_tests.py docs`; do not edit by hand. -->",
        "<!-- Sources: `telarc --list-ops`, test/onnx/node_tests_allowlist.txt, "
        "test/onnx/node_tests_exec_allowlist.txt, test/onnx/node_tests_ops.txt. -->",
        "",
        f"telarc imports **{len(supported)}** ONNX operator types (default domain, "
        f"opsets {MIN_OPSET} to {MAX_OPSET}).",
        "",
        f"ONNX backend node tests: **{len(passing_el)} / {len(eligible)}** eligible tests "
        f"import and round-trip (**{rate:.1f}%**), {len(bound_el)} of them with bound "
        f"inputs. {len(index)} node tests exist in all (pip onnx and libonnx-testdata); "
        f"{n_no_ops} are not eligible because they contain an unsupported op (or one "
        f"outside the default domain) and {n_no_opset} because their opset is outside "
        f"{MIN_OPSET} to {MAX_OPSET}.",
        "",
        f"Execution on the CPU: **{len(exec_el)} / {len(eligible)}** eligible tests "
        f"compile with `telarc --target cpu`, run with `telar-run` and match the "
        f"expected outputs (**{exec_rate:.1f}%**); in {len(exec_folded)} of them every "
        f"input is bound and the import folds the graph to constants, so nothing is "
        f"computed at run time.",
        "",
        "How the rates are computed:",
        "",
        f"- *eligible*: every op of the model (subgraphs included) is in the default "
        f"ONNX domain and supported, and the model's default-domain opset is "
        f"{MIN_OPSET} to {MAX_OPSET}. Every other reason for a failure (unsupported "
        f"element types such as int4 or string, rejected attributes or outputs) counts "
        f"against the rate.",
        "- *passes*: `telarc --emit=mlir` succeeds (the IR verifies) and the output "
        "round-trips through `telar-opt` twice.",
        "- *bound inputs*: node tests feed some inputs that must be compile-time "
        "constants (Reshape's shape, Slice's starts, Tile's repeats, ...) as graph "
        "inputs. When telarc's error asks for such an input, it is bound to the test's "
        "own data (`test_data_set_0/input_K.pb`) with `--bind-input NAME=FILE`, as a "
        "user compiling static shapes would; the allowlist records which.",
        "- *execution passes*: the test compiles to a CPU artifact (`telarc --target "
        "cpu`, the same bound inputs), `telar-run` runs it on the test's inputs and "
        "every output matches the test's expected output: float32/float64 within "
        "rtol 1e-4, atol 1e-5 (float16 1e-3, bfloat16 1e-2), integers, bools, "
        "float8 and the outputs of Cast/CastLike-only tests exactly, NaN matching "
        "NaN and an infinity only the same infinity (`node_tests.py exec`; the "
        "passing tests are listed in test/onnx/node_tests_exec_allowlist.txt).",
        "",
        "*Opset versions* lists the opsets in which the ONNX schema of the op changed "
        f"(up to {MAX_OPSET}). *Import tests passing* counts the eligible tests that contain the op: "
        "passing / eligible (a failing test counts against every op in it, so an op can "
        "be partial because of another op's failure); *bound* how many of the passing "
        "ones need bound inputs. "
        "*Import status*: all pass / partial / none pass (of its eligible node tests), "
        "or no eligible test (import not covered by a node test): "
        + ", ".join(f"{c} {k}" for k, c in sorted(status_count.items())) + ". "
        "*Execution tests passing* and *execution status* count the same eligible "
        "tests for execution: "
        + ", ".join(f"{c} {k}" for k, c in sorted(exec_status_count.items())) + ".",
        "",
        "| Op | Opset versions | Import tests passing | Bound | Import status "
        "| Execution tests passing | Execution status |",
        "| --- | --- | --- | --- | --- | --- | --- |",
    ] + rows
    lines.append("")
    os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
    with open(args.out, "w") as f:
        f.write("\n".join(lines))
    print(f"wrote {args.out}: {len(supported)} ops, node tests {len(passing_el)}/"
          f"{len(eligible)} ({rate:.1f}%), {len(bound_el)} with bound inputs; execution "
          f"{len(exec_el)}/{len(eligible)} ({exec_rate:.1f}%)")
    return 0


def cmd_list(args):
    supported = supported_ops(args) if (args.ops_file or args.telarc) else set()
    tests = discover(args.test_dir, use_debian=not args.no_debian)
    rx = re.compile(args.filter) if args.filter else None
    counts = collections.Counter()
    by_source = collections.Counter()
    for name, (source, path) in sorted(tests.items()):
        if rx and not rx.search(name):
            continue
        info = model_info(path)
        why = ineligibility(info["ops"], supported, info["opset"])
        counts[why] += 1
        by_source[source] += 1
        el = ("eligible" if why is None else
              "unsupported-ops" if why == "ops" else "out-of-opset-range")
        opset = "-" if info["opset"] is None else info["opset"]
        print(f"{name}\t{source}\t{el}\topset={opset}\t{','.join(info['ops'])}")
    print(f"# {sum(by_source.values())} tests ({', '.join(f'{k}: {v}' for k, v in sorted(by_source.items()))}), "
          f"{counts[None]} eligible with {len(supported)} supported ops, "
          f"{counts['ops']} with unsupported ops, {counts['opset']} out of opset range "
          f"{MIN_OPSET}..{MAX_OPSET}", file=sys.stderr)
    return 0


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)

    def common(p, need_run=False):
        p.add_argument("--telarc", default="build/bin/telarc" if need_run else None,
                       help="telarc binary (default build/bin/telarc for run)")
        p.add_argument("--ops-file", help="read the supported op set from this file "
                       "instead of `telarc --list-ops` (one op per line)")
        p.add_argument("--allowlist", default=DEFAULT_ALLOWLIST)
        p.add_argument("--ops-index", help=f"op-type index (default: {INDEX_NAME} "
                       "next to the allowlist)")
        p.add_argument("--test-dir", action="append", default=[],
                       help="extra node-test dir (after pip and Debian's)")
        p.add_argument("--no-debian", action="store_true",
                       help=f"ignore {DEBIAN_NODE_DIR}")
        p.add_argument("--filter", help="only tests whose name matches this regex")

    for name, fn in (("run", cmd_run), ("update-allowlist", cmd_update_allowlist)):
        p = sub.add_parser(name)
        common(p, need_run=True)
        p.add_argument("--telar-opt", help="default: telar-opt next to telarc")
        p.add_argument("--jobs", "-j", type=int, default=2)
        p.add_argument("--roundtrips", type=int, default=2,
                       help="telar-opt stages after telarc (default 2: "
                       "telarc | telar-opt | telar-opt)")
        p.add_argument("--results", help="write per-test results as JSON here")
        p.add_argument("--verbose", "-v", action="store_true")
        if name.startswith("update-"):
            p.add_argument("--drop", action="store_true",
                           help="remove the tests that no longer pass (or are not "
                           "found) from the files; without it such an update writes "
                           "nothing and exits 1")
        p.set_defaults(fn=fn)
    for name, fn in (("exec", cmd_exec),
                     ("update-exec-allowlist", cmd_update_exec_allowlist)):
        p = sub.add_parser(name)
        common(p, need_run=True)
        p.add_argument("--telar-run", help="default: telar-run next to telarc")
        p.add_argument("--exec-allowlist", help=f"default: {EXEC_ALLOWLIST_NAME} next "
                       "to the allowlist")
        p.add_argument("--only-exec-allowlisted", action="store_true",
                       help="exec: run only the exec-allowlisted tests (the rate then "
                       "counts the others as failing)")
        p.add_argument("--jobs", "-j", type=int, default=2)
        p.add_argument("--timeout", type=int, default=EXEC_TIMEOUT_S,
                       help=f"seconds per telarc / telar-run (default {EXEC_TIMEOUT_S})")
        p.add_argument("--run-threads", type=int, default=1,
                       help="telar-run --threads (default 1)")
        p.add_argument("--results", help="write per-test results as JSON here")
        p.add_argument("--verbose", "-v", action="store_true")
        if name.startswith("update-"):
            p.add_argument("--drop", action="store_true",
                           help="remove the tests that no longer pass (or are not "
                           "found) from the files; without it such an update writes "
                           "nothing and exits 1")
        p.set_defaults(fn=fn)
    p = sub.add_parser("docs")
    common(p)
    p.add_argument("--exec-allowlist", help=f"default: {EXEC_ALLOWLIST_NAME} next to "
                   "the allowlist")
    p.add_argument("--out", default="docs/SupportedOps.md")
    p.set_defaults(fn=cmd_docs)
    p = sub.add_parser("list")
    common(p)
    p.set_defaults(fn=cmd_list)
    args = ap.parse_args(argv)
    if getattr(args, "roundtrips", 1) < 1:
        ap.error("--roundtrips must be >= 1")
    try:
        return args.fn(args)
    except ToolError as e:
        print(f"node_tests: error: {e}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
