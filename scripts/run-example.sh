#!/usr/bin/env bash
# The README's first command: sets up and builds Telar (scripts/setup.sh),
# generates the bundled example (a small GPT-2-style decoder exported by
# torch.onnx at opset 17, seeded random weights), compiles it for this CPU
# with telarc, runs it with telar-run, and compares the result and the
# latency with onnxruntime's.
#   scripts/run-example.sh [MODEL_NAME] [--ranks N]
#     MODEL_NAME  default gpt; see make_models.py
#     --ranks N   sharded over N ranks (CPU processes started through mpirun):
#                 a hand-written plan (python/telar_testing/sharded_plans.py;
#                 for gpt on 4 ranks data x tensor parallel on a 2x2 mesh) is
#                 written next to the model, `telarc --plan` compiles a
#                 multi-rank artifact and `telar-run -n N` runs it
# Writes into build/example (build/example-ranksN), or $TELAR_EXAMPLE_DIR;
# runs Python from .venv, or the interpreter $TELAR_TEST_PYTHON names.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
name=gpt
ranks=1
while [ $# -gt 0 ]; do
  case "$1" in
    --ranks) ranks="${2:?--ranks needs a number}"; shift 2 ;;
    --ranks=*) ranks="${1#--ranks=}"; shift ;;
    -h|--help) sed -n '2,15p' "$0"; exit 0 ;;
    -*) echo "run-example.sh: unknown option $1" >&2; exit 2 ;;
    *) name="$1"; shift ;;
  esac
done
if ! [[ "$ranks" =~ ^[1-9][0-9]*$ ]]; then
  echo "run-example.sh: --ranks takes a positive number, not '$ranks'" >&2
  exit 2
fi
if [ "${TELAR_SKIP_SETUP:-0}" != 1 ]; then
  "$root/scripts/setup.sh"
fi
py="${TELAR_TEST_PYTHON:-$root/.venv/bin/python}"
bin="$root/build/bin"
tt="$root/python/telar_testing"

if [ "$ranks" = 1 ]; then
  out="${TELAR_EXAMPLE_DIR:-$root/build/example}"
  mkdir -p "$out"
  echo "== generating $name.onnx"
  "$py" "$tt/make_models.py" --out "$out" --only "$name"

  echo "== telarc $name.onnx -o $name.artifact --target cpu"
  "$bin/telarc" "$out/$name.onnx" -o "$out/$name.artifact" --target cpu --timings
  echo "   wrote $(ls "$out/$name.artifact"/programs/*.so "$out/$name.artifact"/weights/*)"

  echo "== telar-run, compared with onnxruntime"
  "$py" "$tt/example.py" "$out/$name.onnx" "$out/$name.artifact" \
    --telar-run "$bin/telar-run"
  exit 0
fi

out="${TELAR_EXAMPLE_DIR:-$root/build/example-ranks$ranks}"
mkdir -p "$out"
read -r form mesh batch < <("$py" "$tt/sharded_plans.py" --model "$name" --example-case "$ranks")
echo "== generating $name.onnx (batch $batch)"
"$py" "$tt/make_models.py" --out "$out" --only "$name" --batch "$batch"

echo "== $name.plan.json: $form on the mesh $mesh"
"$py" "$tt/sharded_plans.py" "$out/$name.onnx" --model "$name" --form "$form" \
  --mesh "$mesh" -o "$out/$name.plan.json"
cat "$out/$name.plan.json"

echo "== telarc $name.onnx --plan $name.plan.json -o $name.artifact --target cpu"
"$bin/telarc" "$out/$name.onnx" --plan "$out/$name.plan.json" -o "$out/$name.artifact" \
  --target cpu --timings
echo "   wrote $(ls "$out/$name.artifact"/programs/*.so "$out/$name.artifact"/weights/*)"

echo "== telar-run -n $ranks, compared with onnxruntime"
"$py" "$tt/example.py" "$out/$name.onnx" "$out/$name.artifact" \
  --telar-run "$bin/telar-run" --ranks "$ranks"
