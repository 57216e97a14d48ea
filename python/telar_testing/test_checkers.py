#!/usr/bin/env python3
"""Unit tests of the test checkers themselves (run by test/e2e/checkers.test).

Usage: .venv/bin/python python/telar_testing/test_checkers.py [-v]

A checker that passes what it should reject hides every bug behind it: these
tests feed the output comparison (tensor_compare), the node tests' tolerances,
their allowlist summaries, the import-fold detection and the CPU benchmark's
statistics and goal verdicts inputs they must fail.
"""

from __future__ import annotations

import contextlib
import importlib.util
import io
import json
import os
import sys
import tempfile
import types
import unittest

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import node_tests  # noqa: E402
import run_models  # noqa: E402
import tensor_compare  # noqa: E402
from tensor_compare import compare  # noqa: E402

INF, NAN = float("inf"), float("nan")


def f32(*v):
    return np.array(v, dtype=np.float32)


class TensorCompareTest(unittest.TestCase):
    def check(self, got, ref, ok, rtol=1e-4, atol=1e-4):
        c = compare(got, ref, rtol, atol)
        self.assertEqual(c.ok, ok, f"{got} vs {ref}: {c}")
        self.assertEqual(c.message == "", ok, c.message)
        return c

    def test_special_reference_values_are_exact(self):
        c = self.check(f32(1.0), f32(INF), False)  # the bug: inf - inf is NaN
        self.assertEqual(c.max_abs, INF)
        self.assertIn("1 of 1 elements differ", c.message)
        self.check(f32(INF), f32(-INF), False)
        self.check(f32(-INF), f32(INF), False)
        self.check(f32(1.0), f32(NAN), False)
        self.check(f32(INF), f32(NAN), False)
        self.check(f32(NAN), f32(INF), False)
        self.check(f32(1.0, 2.0), f32(1.0, INF), False, rtol=1e9, atol=1e9)
        self.check(f32(NAN, INF, -INF, 1.0), f32(NAN, INF, -INF, 1.0), True)

    def test_special_values_where_the_reference_is_a_number(self):
        self.check(f32(NAN), f32(1.0), False)
        self.check(f32(INF), f32(1.0), False)
        self.check(f32(-INF), f32(3e38), False, rtol=10.0, atol=10.0)

    def test_tolerance(self):
        self.check(f32(1.0001), f32(1.0), True, rtol=1e-4, atol=1e-5)
        self.check(f32(1.0002), f32(1.0), False, rtol=1e-4, atol=1e-5)
        self.check(f32(100.0), f32(100.00999), True, rtol=1e-4, atol=0.0)
        c = self.check(f32(0.0, 2.5), f32(0.0, 2.0), False)
        self.assertAlmostEqual(c.max_abs, 0.5)
        self.assertAlmostEqual(c.max_rel, 0.25)
        self.assertIn("worst at (1,): 2.5, expected 2.0", c.message)

    def test_exact_float(self):
        one = np.array([1.0], np.float16)
        next_up = np.nextafter(one, np.float16(2))
        self.check(next_up, one, False, rtol=0.0, atol=0.0)
        self.check(one, one, True, rtol=0.0, atol=0.0)
        self.check(np.array([-0.0], np.float32), f32(0.0), True, rtol=0.0, atol=0.0)

    def test_integers_and_bools_are_exact(self):
        self.check(np.array([1, 2, 4]), np.array([1, 2, 3]), False, rtol=1.0, atol=1.0)
        self.check(np.array([1, 2, 3]), np.array([1, 2, 3]), True)
        c = self.check(np.array([True, False]), np.array([True, True]), False)
        self.assertIn("1 of 2 elements differ (first at (1,): False, expected True)",
                      c.message)

    def test_shape_and_dtype(self):
        c = self.check(f32(1.0, 2.0), f32(1.0), False)
        self.assertEqual(c.message, "shape [2], expected [1]")
        c = self.check(np.array([1.0]), f32(1.0), False)
        self.assertEqual(c.message, "dtype float64, expected float32")
        self.check(np.zeros((0, 3), np.float32), np.zeros((0, 3), np.float32), True)


def load_path(name, path):
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


class OneComparisonTest(unittest.TestCase):
    def test_every_tool_uses_tensor_compare(self):
        self.assertIs(run_models.compare, tensor_compare.compare)
        example = load_path("example", os.path.join(HERE, "example.py"))
        self.assertIs(example.compare, tensor_compare.compare)
        bench = load_path("bench", os.path.join(HERE, "..", "..", "bench",
                                                "cpu_vs_onnxruntime.py"))
        self.assertIs(bench.compare, tensor_compare.compare)


class BenchStatisticsTest(unittest.TestCase):
    """bench/cpu_vs_onnxruntime's statistics and goal verdicts."""

    @classmethod
    def setUpClass(cls):
        cls.bench = load_path("bench", os.path.join(HERE, "..", "..", "bench",
                                                    "cpu_vs_onnxruntime.py"))

    def test_nearest_rank_percentiles(self):  # as telar-run's report
        s = self.bench.summarize([float(x) for x in range(10, 0, -1)])
        self.assertEqual((s["mean"], s["p50"], s["p90"], s["min"]), (5.5, 5.0, 9.0, 1.0))
        s = self.bench.summarize([3.0, 1.0, 2.0])
        self.assertEqual((s["p50"], s["p90"]), (2.0, 3.0))

    def test_aggregate_over_processes(self):
        procs = [{"mean": 1.0, "p50": 1.0, "p90": 1.1, "min": 0.9},
                 {"mean": 3.0, "p50": 2.0, "p90": 4.0, "min": 1.0},
                 {"mean": 1.2, "p50": 1.2, "p90": 1.3, "min": 1.1}]
        g = self.bench.aggregate(procs)
        self.assertEqual((g["mean"], g["p50"], g["p90"]), (1.2, 1.2, 1.3))
        self.assertAlmostEqual(g["p90_p50"], 2.0)   # the worst process
        self.assertAlmostEqual(g["spread"], 2.0)    # 3.0 / 1.0 - 1

    def test_core_round_trip_range(self):
        telar = {"processes": [{"mean": 1.0, "core_rtt_ns": 120},
                               {"mean": 1.0, "core_rtt_ns": 900}]}
        ort = {"processes": [{"mean": 1.0, "core_rtt_ns": 95}]}
        self.assertEqual(self.bench.rtt_range(telar, ort), "95-900")
        # One thread: not measured.
        one = {"processes": [{"mean": 1.0, "core_rtt_ns": None}]}
        self.assertEqual(self.bench.rtt_range(one, None), "-")

    def test_goals_take_the_worst_thread_count(self):
        def row(name, threads, ratio, telar_ms, p90_p50, spread):
            # Two processes whose means are telar_ms and telar_ms * (1 + spread).
            procs = [{"mean": telar_ms}, {"mean": telar_ms * (1 + spread)}]
            return {"size": "mini", "name": name, "threads": threads, "ok": True,
                    "ratio": ratio, "telar": {"mean": telar_ms, "p90_p50": p90_p50,
                                              "spread": spread, "processes": procs}}
        rows = [row("good", 1, 1.2, 1.0, 1.1, 0.05), row("good", 2, 1.0, 0.6, 1.25, 0.25),
                row("bad", 1, 1.3, 1.0, 1.1, 0.05), row("bad", 2, 0.9, 0.8, 1.3, 0.3)]
        good, bad = self.bench.goals(rows, None)
        self.assertTrue(good["all"])
        self.assertEqual(good["pass"], {"ratio": True, "p90_p50": True, "spread": True,
                                        "threads": True})
        # The slowest 2-thread process (0.6 x 1.25) against the fastest 1-thread one.
        self.assertAlmostEqual(good["threads_scaling"], 0.75)
        self.assertFalse(bad["all"])
        # Faster at 2 threads by the median (0.8 < 1.0), but its slowest 2-thread
        # process (1.04) is slower than the fastest 1-thread one (1.0).
        self.assertAlmostEqual(bad["threads_scaling"], 1.04)
        self.assertEqual(bad["pass"], {"ratio": False, "p90_p50": False, "spread": False,
                                       "threads": False})
        self.assertEqual((bad["ratio"], bad["ratio_threads"]), (0.9, 2))
        failed = self.bench.goals([dict(rows[0], ok=False)], None)[0]
        self.assertFalse(failed["ok"])
        self.assertEqual(self.bench.row_goals(rows[1]), "PASS")
        self.assertEqual(self.bench.row_goals(rows[3]), "MISS (ratio, p90/p50, spread)")
        self.assertEqual(self.bench.row_goals(dict(rows[0], ok=False)), "FAILED")

    def test_host_spells(self):
        # Round trips around each process; the median of all of them is 120 ns.
        def proc(mean, before, after):
            return {"mean": mean, "core_rtt_ns": before, "core_rtt_after_ns": after}
        telar = [proc(1.0, 120, 118), proc(1.1, 125, 122), proc(2.0, 50, 121),
                 proc(1.9, 121, 900)]
        ort = [proc(1.5, 119, 120), proc(1.6, 120, 123), proc(3.0, 49, 51)]
        rows = [{"ok": True, "telar": {"processes": telar}, "ort": {"processes": ort}},
                {"ok": False, "telar": None, "ort": None}]
        self.assertEqual(self.bench.mark_spells(rows), 120)
        self.assertEqual([p["host_spell"] for p in telar], [False, False, True, True])
        self.assertEqual(rows[0]["telar"]["spell_processes"], 2)
        # The spread without the spells' processes: 1.1 / 1.0 - 1.
        self.assertAlmostEqual(rows[0]["telar"]["steady_spread"], 0.1)
        self.assertAlmostEqual(rows[0]["ort"]["steady_spread"], 1.6 / 1.5 - 1)
        out = io.StringIO()
        rows[0].update(size="mini", name="gpt", threads=2)
        with contextlib.redirect_stdout(out):
            self.bench.print_processes(rows)
        self.assertEqual(out.getvalue().strip(), "- mini gpt 2 thr: telar 1.000 1.100 "
                         "2.000* 1.900* | ort 1.500 1.600 3.000*")
        # No round trips measured (a one-CPU machine): nothing to mark.
        self.assertIsNone(self.bench.mark_spells([{"ok": True, "telar": {"processes": [
            {"mean": 1.0, "core_rtt_ns": None}]}, "ort": {"processes": []}}]))

    def test_compare_before_after(self):
        def run(telar_ms, ort_ms):
            t = {"mean": telar_ms, "p90_p50": 1.1, "spread": 0.05}
            return {"config": {"telar_run": "x"}, "goals": [], "rows": [
                {"size": "mini", "name": "gpt", "threads": 2, "ok": True,
                 "ratio": ort_ms / telar_ms, "telar": t, "ort": {"mean": ort_ms}}]}
        with tempfile.TemporaryDirectory() as d:
            paths = [os.path.join(d, n) for n in ("before.json", "after.json")]
            for p, r in zip(paths, (run(2.0, 1.0), run(0.8, 1.0))):
                with open(p, "w") as f:
                    json.dump(r, f)
            out = io.StringIO()
            with contextlib.redirect_stdout(out):
                self.bench.compare_runs(*paths)
        row = [l for l in out.getvalue().splitlines() if l.startswith("| gpt")][0]
        cells = [c.strip() for c in row.strip("|").split("|")]
        # model, before, after, speedup, ort, ratio before, ratio after, ..., goals
        self.assertEqual(cells[:7], ["gpt", "2.000", "0.800", "2.50", "1.000", "0.50",
                                     "1.25"])
        self.assertEqual(cells[-1], "PASS")


class NodeTestToleranceTest(unittest.TestCase):
    BF16 = 16

    def test_casts_are_exact(self):
        want = f32(0.81640625)  # a bfloat16 value; the next one up is 0.8203125
        got = f32(0.8203125)
        self.assertIn("1 of 1 elements differ",
                      node_tests.compare_output(got, want, self.BF16, ["Cast"]))
        self.assertIn("1 of 1 elements differ",
                      node_tests.compare_output(got, want, self.BF16, ["CastLike"]))
        # The same 1-ulp difference from any other op is within bfloat16's 1e-2.
        self.assertEqual(node_tests.compare_output(got, want, self.BF16, ["Add"]), "")
        half = np.array([1.0], np.float16)
        up = np.nextafter(half, np.float16(2))
        self.assertNotEqual(node_tests.compare_output(up, half, 10, ["Cast"]), "")
        self.assertEqual(node_tests.compare_output(up, half, 10, ["Mul"]), "")
        self.assertEqual(node_tests.tolerance(1, np.dtype(np.float32), ["Cast", "Add"]),
                         node_tests.FLOAT_TOLERANCE["float32"])

    def test_special_values(self):
        self.assertNotEqual(node_tests.compare_output(f32(1.0), f32(INF), 1, ["Add"]), "")
        self.assertEqual(node_tests.compare_output(f32(NAN), f32(NAN), 1, ["Add"]), "")


def args_for(tmp, **kw):
    a = types.SimpleNamespace(filter=None, no_debian=False, ops_index=None,
                              allowlist=os.path.join(tmp, "allow.txt"))
    a.__dict__.update(kw)
    return a


def import_result(name, passed=True):
    return {"name": name, "passed": passed, "stage": None if passed else "telarc",
            "crash": None, "message": "" if passed else "error: x", "binds": [],
            "ops": ["Abs"], "opset": 17, "ineligible": None, "eligible": True,
            "source": "pip", "allowlisted": True}


def exec_result(name, status="pass", no_inputs=False, folded=False):
    return {"name": name, "status": status, "stage": None, "message": "",
            "crash": None, "binds": [], "compile_s": 0.1, "run_s": 0.1, "data_sets": 1,
            "no_inputs": no_inputs, "folded": folded, "ops": ["Abs"],
            "eligible": True, "exec_allowlisted": True}


def row(folded=False):
    return {"ops": ["Abs"], "bind": [], "opset": None, "has_opset": False,
            "needs": None, "folded": folded}


class AllowlistTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="telar-checkers-")
        with open(os.path.join(self.tmp, node_tests.INDEX_NAME), "w") as f:
            f.write("test_a\tAbs\topset=17\n"
                    "test_deb\tAbs\topset=17\tneeds=libonnx-testdata\n")

    def summarize(self, results, allow, args):
        missing = node_tests.not_run(node_tests.allowlisted_to_run(allow, args),
                                     results, set(results), args)
        out = io.StringIO()
        ok = node_tests.summarize(results, {"Abs"}, allow, 1.0, missing, args, out=out)
        return ok, out.getvalue()

    def test_all_run(self):
        ok, out = self.summarize({"test_a": import_result("test_a")},
                                 {"test_a": row()}, args_for(self.tmp))
        self.assertTrue(ok, out)
        self.assertIn("allowlist: 1 tests, 1 pass, 0 regressed, 0 not run", out)

    def test_not_found_fails(self):
        ok, out = self.summarize({"test_a": import_result("test_a")},
                                 {"test_a": row(), "test_gone": row()},
                                 args_for(self.tmp))
        self.assertFalse(ok, out)
        self.assertIn("1 not found in any node-test dir: test_gone", out)
        self.assertIn("allowlist: 2 tests, 1 pass, 0 regressed, 1 not run", out)

    def test_absent_package_is_listed_and_fails(self):
        ok, out = self.summarize({"test_a": import_result("test_a")},
                                 {"test_a": row(), "test_deb": row()},
                                 args_for(self.tmp, no_debian=True))
        self.assertFalse(ok, out)
        self.assertIn("1 need Debian's libonnx-testdata (--no-debian): test_deb", out)

    def test_filter_limits_what_must_run(self):
        args = args_for(self.tmp, filter="^test_a$")
        ok, out = self.summarize({"test_a": import_result("test_a")},
                                 {"test_a": row(), "test_gone": row()}, args)
        self.assertTrue(ok, out)

    def test_regression_fails(self):
        ok, out = self.summarize({"test_a": import_result("test_a", passed=False)},
                                 {"test_a": row()}, args_for(self.tmp))
        self.assertFalse(ok, out)

    def test_update_refuses_to_drop(self):
        err = io.StringIO()
        old, sys.stderr = sys.stderr, err
        try:
            self.assertTrue(node_tests.refuse_drops("allow.txt", ["test_a"],
                                                    types.SimpleNamespace(drop=False)))
            self.assertFalse(node_tests.refuse_drops("allow.txt", ["test_a"],
                                                     types.SimpleNamespace(drop=True)))
            self.assertFalse(node_tests.refuse_drops("allow.txt", [],
                                                     types.SimpleNamespace(drop=False)))
        finally:
            sys.stderr = old
        self.assertIn("1 tests would be dropped from allow.txt: test_a", err.getvalue())


class ExecSummaryTest(unittest.TestCase):
    def summarize(self, results, exec_allow, known=None, discovered=None):
        tmp = tempfile.mkdtemp(prefix="telar-checkers-")
        args = args_for(tmp)
        known = known or {}
        missing = node_tests.not_run(sorted(set(exec_allow) | set(known)), results,
                                     discovered or set(results), args)
        out = io.StringIO()
        ok = node_tests.summarize_exec(results, set(results), exec_allow, 1.0, 1, 1,
                                       missing, args, known, out=out)
        return ok, out.getvalue()

    def test_folds_are_counted_apart(self):
        results = {"test_a": exec_result("test_a"),
                   "test_c": exec_result("test_c", no_inputs=True),
                   "test_f": exec_result("test_f", no_inputs=True, folded=True)}
        ok, out = self.summarize(results, {n: row(n == "test_f") for n in results})
        self.assertTrue(ok, out)
        self.assertIn("exec allowlist: 3 tests, 3 pass (1 on runtime inputs, 1 on "
                      "constants only, 1 folded at import), 0 regressed, 0 not run", out)

    def test_not_run_fails(self):
        results = {"test_a": exec_result("test_a")}
        ok, out = self.summarize(results, {"test_a": row(), "test_b": row()},
                                 discovered={"test_a", "test_b"})
        self.assertFalse(ok, out)
        self.assertIn("1 found but not run (not in the import allowlist): test_b", out)

    def test_known_failure_must_fail_as_recorded(self):
        known = {"test_k": ("mismatch", "why")}
        results = {"test_a": exec_result("test_a"),
                   "test_k": exec_result("test_k", status="mismatch")}
        ok, out = self.summarize(results, {"test_a": row()}, known)
        self.assertTrue(ok, out)
        results["test_k"] = exec_result("test_k")  # now passes
        ok, out = self.summarize(results, {"test_a": row()}, known)
        self.assertFalse(ok, out)
        self.assertIn("KNOWN FAILURES THAT CHANGED (1", out)
        results["test_k"] = exec_result("test_k", status="compile-fail")
        ok, out = self.summarize(results, {"test_a": row()}, known)
        self.assertFalse(ok, out)
        del results["test_k"]
        ok, out = self.summarize(results, {"test_a": row()}, known)
        self.assertFalse(ok, out)

    def test_known_failures_are_not_allowlisted(self):
        allow = node_tests.read_tab_file(os.path.join(
            HERE, "..", "..", "test", "onnx", node_tests.EXEC_ALLOWLIST_NAME))
        self.assertTrue(allow)
        self.assertFalse(set(allow) & set(node_tests.EXEC_KNOWN_FAILURES))


class FoldDetectionTest(unittest.TestCase):
    def test_folded(self):
        self.assertTrue(node_tests.folded_at_import(
            "func.func @main() -> tensor<2xf32> {\n"
            "  %0 = telar.constant dense<[1.0, 3.0]> : tensor<2xf32>\n"
            "  return %0 : tensor<2xf32>\n}\n"))
        self.assertFalse(node_tests.folded_at_import(
            "func.func @main() -> tensor<2xf32> {\n"
            "  %0 = telar.constant dense<[1.0, 3.0]> : tensor<2xf32>\n"
            "  %1 = telar.cos %0 : (tensor<2xf32>) -> tensor<2xf32>\n"
            "  return %1 : tensor<2xf32>\n}\n"))
        self.assertFalse(node_tests.folded_at_import(
            '  %0:2 = "telar.topk"(%a, %k) : (tensor<4xf32>) -> tensor<2xf32>\n'))


if __name__ == "__main__":
    unittest.main()
