#!/usr/bin/env bash
# The README's first command: sets up and builds Telar (scripts/setup.sh),
# generates the bundled example (a small GPT-2-style decoder exported by
# torch.onnx at opset 17, seeded random weights), compiles it for this CPU
# with telarc, runs it with telar-run, and compares the result and the
# latency with onnxruntime's.
#   scripts/run-example.sh [MODEL_NAME]   (default gpt; see make_models.py)
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
name="${1:-gpt}"
if [ "${TELAR_SKIP_SETUP:-0}" != 1 ]; then
  "$root/scripts/setup.sh"
fi
py="$root/.venv/bin/python"
bin="$root/build/bin"
out="$root/build/example"
mkdir -p "$out"

echo "== generating $name.onnx"
"$py" "$root/python/telar_testing/make_models.py" --out "$out" --only "$name"

echo "== telarc $name.onnx -o $name.artifact --target cpu"
"$bin/telarc" "$out/$name.onnx" -o "$out/$name.artifact" --target cpu --timings
echo "   wrote $(ls "$out/$name.artifact"/programs/*.so "$out/$name.artifact"/weights/*)"

echo "== telar-run, compared with onnxruntime"
"$py" "$root/python/telar_testing/example.py" "$out/$name.onnx" "$out/$name.artifact" \
  --telar-run "$bin/telar-run"
