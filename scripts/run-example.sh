#!/usr/bin/env bash
# The README's first command: sets up and builds Telar (scripts/setup.sh),
# imports the bundled example model (a small GPT exported by torch.onnx at
# opset 17), prints its canonicalised telar IR (weights elided) and the op
# statistics, and checks that the IR round-trips through telar-opt.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
model="${1:-$root/examples/tiny_gpt.onnx}"
if [ "${TELAR_SKIP_SETUP:-0}" != 1 ]; then
  "$root/scripts/setup.sh"
fi
bin="$root/build/bin"
out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT

echo "== telarc $(basename "$model") --emit=mlir --elide-weights"
"$bin/telarc" "$model" --emit=mlir --elide-weights -o "$out/model.mlir"
cat "$out/model.mlir"
echo
echo "== op statistics"
"$bin/telar-opt" "$out/model.mlir" --print-op-stats -o /dev/null 2>&1 | sed -n '/Operations encountered/,$p'
"$bin/telarc" "$model" --emit=mlir -o "$out/full.mlir"
"$bin/telar-opt" "$out/full.mlir" -o "$out/roundtrip.mlir"
echo "== round trip through telar-opt: ok ($(wc -c < "$out/full.mlir") bytes of IR including weights)"
