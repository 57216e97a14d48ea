#!/usr/bin/env bash
# Prepares what bench/gpu/check.sh needs on a machine with a GPU (one that
# has CUDA, PyTorch and numpy but no LLVM/MLIR, reached with at most 64 MiB):
#
#   bench/gpu/prepare.sh DIR [--gpu sm_90] [--only MODEL,...]
#                        [--gpt-large large|tiny|none] [--build BUILD_DIR]
#
#   DIR/runtime/    telar-run and the runtime (scripts/bundle-runtime.sh),
#                   libtelar_runtime_cuda.so included
#   DIR/models/     per suite model (make_models.py, small size; by default
#                   all but resnet18, whose 45 MiB of weights do not fit
#                   beside the rest: --only resnet18 for a call of its own):
#                   NAME.artifact (telarc
#                   --target cuda --gpu ARCH --emulation: PTX, cubins, the
#                   host program, the emulated kernels), NAME.in/*.npy (its
#                   inputs), NAME.ort_outputs.npz (onnxruntime's outputs);
#                   NAME_bf16.artifact, the same with --dtype bf16 (its
#                   inputs and references copied); and gpt_tf32.artifact,
#                   GPT-like with --dtype tf32 (its products on tensor
#                   cores), when gpt is among them
#   DIR/large/      check.sh's (b): gpt_large.artifact, the GPT-like forward
#                   of bench/gpu/gpt_large.py (--gpt-large: large, the
#                   default, fills a GPU; tiny runs anywhere) compiled at
#                   --dtype bf16 with --random-weights (no weight bytes:
#                   filled at load), its input, gpt_large.json (its size)
#                   and gpt_large.py (PyTorch's side)
#
# Here it also runs every artifact on the CUDA emulator against onnxruntime
# (run_models.py --target cuda; compare.py for the bf16 ones; the tiny
# gpt_large against onnxruntime and PyTorch), so a broken kernel fails
# before any device time is spent. Exit 1 when a model fails or DIR passes
# 64 MiB.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
build="$root/build"
gpu=sm_90
only=bert,gpt,llama,moe_einsum,moe_grouped,moe_topk,reductions,t5_encoder,vit
gpt_large=large
dir=""
while [ $# -gt 0 ]; do
  case "$1" in
    --gpu) gpu="$2"; shift 2 ;;
    --only) only="$2"; shift 2 ;;
    --build) build="$2"; shift 2 ;;
    --gpt-large) gpt_large="$2"; shift 2 ;;
    -h|--help) sed -n '2,32p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    -*) echo "prepare.sh: error: unknown option '$1'" >&2; exit 2 ;;
    *) dir="$1"; shift ;;
  esac
done
[ -n "$dir" ] || { echo "usage: bench/gpu/prepare.sh DIR [--gpu sm_90]" >&2; exit 2; }
py="$root/.venv/bin/python"
rm -rf "$dir" && mkdir -p "$dir/models"
"$root/scripts/bundle-runtime.sh" "$dir/runtime" --build "$build" --all > /dev/null
# The models, compiled for the GPU and checked on the emulator here.
"$py" "$root/python/telar_testing/run_models.py" --make "$dir/models" \
  --only "$only" --target cuda --gpu "$gpu" --telarc "$build/bin/telarc" \
  --telar-run "$build/bin/telar-run" --jobs 2 --keep
# Each model again at --dtype bf16, run on the emulator here.
for art in "$dir"/models/*.artifact; do
  name="$(basename "$art" .artifact)"
  "$build/bin/telarc" "$dir/models/$name.onnx" -o "$dir/models/${name}_bf16.artifact" \
    --target cuda --gpu "$gpu" --dtype bf16 --emulation -q
  cp -r "$dir/models/$name.in" "$dir/models/${name}_bf16.in"
  cp "$dir/models/$name.ort_outputs.npz" "$dir/models/${name}_bf16.ort_outputs.npz"
  mapfile -d '' inputs < <("$py" "$root/bench/gpu/compare.py" --inputs \
    "$dir/models/${name}_bf16.artifact" "$dir/models/${name}_bf16.in")
  "$build/bin/telar-run" "$dir/models/${name}_bf16.artifact" --emulate "${inputs[@]}" \
    --output-dir "$dir/models/${name}_bf16.out" -q
  "$py" "$root/bench/gpu/compare.py" "$dir/models/${name}_bf16.artifact" \
    "$dir/models/${name}_bf16.out" "$dir/models/${name}_bf16.ort_outputs.npz" "${name}_bf16"
done
# GPT-like again with TF32 products (check.sh compares it at 1e-2: TF32
# rounds the inputs on a GPU; the emulator computes fp32).
if [ -d "$dir/models/gpt.artifact" ]; then
  "$build/bin/telarc" "$dir/models/gpt.onnx" -o "$dir/models/gpt_tf32.artifact" \
    --target cuda --gpu "$gpu" --dtype tf32 --emulation -q
  cp -r "$dir/models/gpt.in" "$dir/models/gpt_tf32.in"
  cp "$dir/models/gpt.ort_outputs.npz" "$dir/models/gpt_tf32.ort_outputs.npz"
fi
# (b)'s GPT-like forward, made outside DIR (its weights are a sparse file
# of zeros at the large size) and compiled without weight bytes.
if [ "$gpt_large" != none ]; then
  work="$(mktemp -d)"
  trap 'rm -rf "$work"' EXIT
  "$py" "$root/bench/gpu/gpt_large.py" make "$work" --config "$gpt_large"
  mkdir -p "$dir/large"
  emulation=()
  [ "$gpt_large" = large ] || emulation=(--emulation)
  "$build/bin/telarc" "$work/gpt_large.onnx" -o "$dir/large/gpt_large.artifact" \
    --target cuda --gpu "$gpu" --dtype bf16 --random-weights "${emulation[@]}" -q
  cp -r "$work/gpt_large.in" "$work/gpt_large.json" "$root/bench/gpu/gpt_large.py" "$dir/large/"
  # The tiny one has real weights: the PyTorch module is the ONNX graph, and
  # telar's bf16 artifact of it (with its weights) computes onnxruntime's
  # outputs.
  if [ "$gpt_large" = tiny ]; then
    "$build/bin/telarc" "$work/gpt_large.onnx" -o "$work/check.artifact" \
      --target cuda --gpu "$gpu" --dtype bf16 --emulation -q
    "$build/bin/telar-run" "$work/check.artifact" --emulate \
      --input "input_ids=$work/gpt_large.in/input_ids.npy" --output-dir "$work/out" -q
    "$py" "$root/bench/gpu/gpt_large.py" same "$work" --telar-output "$work/out/y.npy"
  fi
fi
# Only what check.sh reads travels.
find "$dir/models" -maxdepth 1 \( -name '*.onnx' -o -name '*.onnx.data' \
  -o -name '*.inputs.npz' -o -name '*.outputs.npz' -o -name '*.out' \
  -o -name '*.report.json' \) -exec rm -rf {} +
cp "$root/bench/gpu/check.sh" "$root/bench/gpu/compare.py" "$dir/"
mib=$(du -sm "$dir" | cut -f1)
echo "prepare.sh: $dir holds ${mib} MiB: $(ls -d "$dir"/models/*.artifact | wc -l) artifacts for $gpu" \
  "(and gpt_large: $gpt_large)"
[ "$mib" -le 64 ] || { echo "prepare.sh: error: over the 64 MiB a device call carries" >&2; exit 1; }
