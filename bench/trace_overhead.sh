#!/usr/bin/env bash
# The cost of telar-run --trace (docs/Trace.md): the same artifact benched
# alternately without and with --trace, a few times each, and the ratio of
# their latencies (p50 of the runs, mean over the repetitions).
#
#   bench/trace_overhead.sh [RUNS] [REPEATS]    (defaults 300 and 3)
#
# Cases: examples/tiny_gpt.onnx on one rank (kernels and program spans),
# and on 2 ranks tensor parallel (collectives too). Needs the build
# (scripts/build.sh) and the project's Python (.venv).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
runs="${1:-300}"
repeats="${2:-3}"
bin="$root/build/bin"
py="${TELAR_TEST_PYTHON:-$root/.venv/bin/python}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
export OMPI_MCA_rmaps_base_oversubscribe=1
if [ "$(id -u)" = 0 ]; then
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
fi

"$py" -c "import numpy as np; np.save('$work/ids.npy', np.random.default_rng(0).integers(0, 100, (2, 16)).astype(np.int64))"
"$bin/telarc" "$root/examples/tiny_gpt.onnx" --target cpu -o "$work/one" -q
"$bin/telarc" "$root/examples/tiny_gpt.onnx" --target cpu --mesh model=2 \
  -o "$work/tp2" -q

p50() { "$py" -c "import json, sys; print(json.load(open(sys.argv[1]))['latency_ms']['p50'])" "$1"; }

printf '%-24s %12s %12s %8s\n' case "off (ms)" "on (ms)" "on/off"
for case in one:1 tp2:2; do
  name="${case%%:*}"
  ranks="${case##*:}"
  off=()
  on=()
  for ((i = 0; i < repeats; i++)); do
    timeout 600 "$bin/telar-run" "$work/$name" -n "$ranks" \
      --input "input_ids=$work/ids.npy" --bench "$runs" -q \
      --report "$work/off.json" > /dev/null
    off+=("$(p50 "$work/off.json")")
    timeout 600 "$bin/telar-run" "$work/$name" -n "$ranks" \
      --input "input_ids=$work/ids.npy" --bench "$runs" -q \
      --report "$work/on.json" --trace "$work/t.json" > /dev/null
    on+=("$(p50 "$work/on.json")")
  done
  "$py" - "$name ($ranks rank(s))" "${off[*]}" "${on[*]}" <<'PY'
import sys
name, off, on = sys.argv[1], [float(x) for x in sys.argv[2].split()], [float(x) for x in sys.argv[3].split()]
a, b = sum(off) / len(off), sum(on) / len(on)
print(f"{name:<24} {a:12.4f} {b:12.4f} {b / a:8.3f}")
PY
done
