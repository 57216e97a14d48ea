"""The one comparison of a computed tensor with its reference.

Every tool and test that checks Telar's outputs uses it: run_models.py (the
test models against onnxruntime and the framework), node_tests.py exec (the
ONNX node tests against their expected outputs), example.py and
bench/cpu_vs_onnxruntime.py.

    compare(got, ref, rtol, atol) -> Comparison(ok, max_abs, max_rel, message)

`got` matches `ref` when both have the same shape and dtype and
  - floating point: every element where `ref` is a number is a number with
    |got - ref| <= atol + rtol * |ref|; where `ref` is NaN, `got` is NaN; where
    `ref` is an infinity, `got` is the same infinity (special values exactly;
    rtol = atol = 0 asks for bit-equal values, up to the sign of zero);
  - anything else (integers, bools): every element is equal.
max_abs is the largest |got - ref| (infinite where a special value differs or
`got` is NaN/inf where `ref` is a number), max_rel = max_abs / max |ref| over
the finite reference elements (norm-wise: elementwise ratios near zeros of the
reference mean little). message is '' when ok, else one line:
`N of M elements differ (...)`, `shape [..], expected [..]` or `dtype .., expected ..`.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np


class Comparison(NamedTuple):
    ok: bool
    max_abs: float
    max_rel: float
    message: str


def _index(i):
    return tuple(int(v) for v in i)


def compare(got, ref, rtol=0.0, atol=0.0):
    """Compares `got` with the reference `ref` (numpy arrays); see the module doc."""
    nan = float("nan")
    if got.shape != ref.shape:
        return Comparison(False, nan, nan,
                          f"shape {list(got.shape)}, expected {list(ref.shape)}")
    if got.dtype != ref.dtype:
        return Comparison(False, nan, nan, f"dtype {got.dtype}, expected {ref.dtype}")
    if ref.size == 0:
        return Comparison(True, 0.0, 0.0, "")
    g, r = got.astype(np.float64), ref.astype(np.float64)
    if not np.issubdtype(ref.dtype, np.floating):
        bad = got != ref
        d = np.abs(g - r)
        max_abs = float(d.max())
        max_rel = max_abs / max(float(np.abs(r).max()), 1.0)
        n = int(np.count_nonzero(bad))
        if not n:
            return Comparison(True, max_abs, max_rel, "")
        i = np.unravel_index(int(np.argmax(bad)), ref.shape)
        return Comparison(False, max_abs, max_rel,
                          f"{n} of {ref.size} elements differ (first at {_index(i)}: "
                          f"{got[i].item()!r}, expected {ref[i].item()!r})")
    special = ~np.isfinite(r)
    same_special = (np.isnan(g) & np.isnan(r)) | (np.isinf(r) & (g == r))
    with np.errstate(invalid="ignore", over="ignore"):
        d = np.abs(g - r)
        # Where the reference is a number, a NaN or infinity in `got` is an
        # infinite error; where it is NaN or an infinity, only the same value
        # matches (no tolerance applies: inf - inf is NaN, and NaN > x is false).
        d = np.where(special, np.where(same_special, 0.0, np.inf),
                     np.where(np.isnan(d), np.inf, d))
        excess = np.where(special, np.where(same_special, -1.0, np.inf),
                          d - (atol + rtol * np.abs(np.where(special, 0.0, r))))
    bad = excess > 0
    max_abs = float(d.max())
    finite_ref = np.abs(r[~special])
    ref_max = float(finite_ref.max()) if finite_ref.size else 0.0
    max_rel = (max_abs / ref_max if ref_max > 0 else
               0.0 if max_abs == 0 else float("inf"))
    n = int(np.count_nonzero(bad))
    if not n:
        return Comparison(True, max_abs, max_rel, "")
    i = np.unravel_index(int(np.argmax(excess)), ref.shape)
    return Comparison(False, max_abs, max_rel,
                      f"{n} of {ref.size} elements differ (max abs err {max_abs:.3g}; "
                      f"worst at {_index(i)}: {got[i].item()!r}, expected {ref[i].item()!r}; "
                      f"rtol {rtol:g}, atol {atol:g})")
