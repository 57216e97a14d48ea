#!/usr/bin/env bash
# The GPU check (issue "CUDA backend"), on a machine with one NVIDIA GPU,
# from what bench/gpu/prepare.sh wrote into DIR:
#
#   DIR/check.sh [--emulate] [--bench N]
#
# (a) every model's artifact runs on the GPU (telar-run: the runtime's CUDA
#     device) and its outputs match onnxruntime's (rtol 1e-4, atol 1e-4;
#     1e-2 for gpt_tf32, 5e-2 for the NAME_bf16 artifacts: compare.py);
#     `--bench N` times N runs each (after 3 warmup runs) and prints the
#     mean latency (host wall clock) and, on a GPU, the GPU time per run
#     (CUDA events);
# (b) the GPT-like forward that fills the GPU (DIR/large: prepare.sh's
#     gpt_large artifact, bf16, weights filled at load): its time a forward
#     (CUDA events; 3 warmup runs, then --bench N or 5), PyTorch's eager and
#     torch.compile forward of the same model on the same device
#     (gpt_large.py torch), and the tokens/s and MFU of each (gpt_large.py
#     report);
# (c) compute-sanitizer (memcheck) over one model's run, when the toolkit's
#     compute-sanitizer is there.
# --emulate runs everything on the CUDA emulator instead (the check of this
# script on a machine without a GPU). Prints one line per model and a
# summary; exit 1 when any check fails.
set -uo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
run="$here/runtime/bin/telar-run"
emulate=()
bench=0
while [ $# -gt 0 ]; do
  case "$1" in
    --emulate) emulate=(--emulate); shift ;;
    --bench) bench="$2"; shift 2 ;;
    -h|--help) sed -n '2,22p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "check.sh: error: unknown option '$1'" >&2; exit 2 ;;
  esac
done
# The bundled libraries for telar-run only (python keeps the machine's own;
# PYTHON: one with numpy, default python3).
py="${PYTHON:-python3}"
libs="$here/runtime/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
# cuBLASLt (the artifacts' matrix products), loaded by the runtime at run
# time: the toolkit's, else the one of PyTorch's nvidia-cublas wheel.
if [ ${#emulate[@]} -eq 0 ]; then
  for dir in /usr/local/cuda/lib64 \
      "$("$py" -c 'import nvidia.cublas as c, os; print(os.path.join(list(c.__path__)[0], "lib"))' 2>/dev/null)"; do
    if [ -n "$dir" ] && ls "$dir"/libcublasLt.so.1[23] > /dev/null 2>&1; then
      libs="$libs:$dir"
      echo "cuBLASLt from $dir"
      break
    fi
  done
fi
command -v nvidia-smi > /dev/null && nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
failed=0
models=()
for art in "$here"/models/*.artifact; do
  name="$(basename "$art" .artifact)"
  models+=("$name")
  mapfile -d '' inputs < <("$py" "$here/compare.py" --inputs "$here/models/$name.artifact" "$here/models/$name.in")
  out="$here/out/$name"
  rm -rf "$out"
  log="$(LD_LIBRARY_PATH="$libs" timeout 300 "$run" "$art" "${emulate[@]}" "${inputs[@]}" --output-dir "$out" -q 2>&1)"
  rc=$?
  if [ $rc -ne 0 ]; then
    echo "FAIL $name: telar-run exited $rc: $log"
    failed=1
    continue
  fi
  if ! "$py" "$here/compare.py" "$art" "$out" "$here/models/$name.ort_outputs.npz" "$name"; then
    failed=1
    continue
  fi
  if [ "$bench" -gt 0 ]; then
    LD_LIBRARY_PATH="$libs" timeout 300 "$run" "$art" "${emulate[@]}" "${inputs[@]}" --bench "$bench" -q 2>&1 |
      sed -n -e "s/^latency (ms): mean \([0-9.]*\).*/  $name: mean latency \1 ms ($bench runs)/p" \
        -e "s/^device time (ms, cuda events): mean \([0-9.]*\).*/  $name: GPU time \1 ms per run (CUDA events)/p"
  fi
done
# (b) the GPT-like forward against PyTorch's.
if [ -d "$here/large/gpt_large.artifact" ]; then
  config="$("$py" -c "import json, sys; print(json.load(open(sys.argv[1]))['config'])" "$here/large/gpt_large.json")"
  runs=$([ "$bench" -gt 0 ] && echo "$bench" || echo 5)
  log="$(LD_LIBRARY_PATH="$libs" timeout 600 "$run" "$here/large/gpt_large.artifact" "${emulate[@]}" \
    --input "input_ids=$here/large/gpt_large.in/input_ids.npy" --bench "$runs" --warmup 3 2>&1)"
  rc=$?
  # The GPU's time (CUDA events); the emulator has only the host's.
  ms="$(sed -n 's/^device time (ms, cuda events): mean \([0-9.]*\).*/\1/p' <<< "$log")"
  [ -n "$ms" ] || ms="$(sed -n 's/^latency (ms): mean \([0-9.]*\).*/\1/p' <<< "$log")"
  device=$([ ${#emulate[@]} -eq 0 ] && echo cuda || echo cpu)
  if [ $rc -ne 0 ] || [ -z "$ms" ]; then
    echo "FAIL gpt_large ($config): telar-run exited $rc: $log"
    failed=1
  elif ! timeout 900 "$py" "$here/large/gpt_large.py" torch --config "$config" --device "$device" \
      --iters "$runs" --json "$here/large/torch.json"; then
    echo "FAIL gpt_large ($config): the PyTorch reference failed"
    failed=1
  else
    "$py" "$here/large/gpt_large.py" report --config "$config" --telar-ms "$ms" \
      --torch-json "$here/large/torch.json"
  fi
fi
# (c) compute-sanitizer over the first model (not for the emulator).
sanitizer="$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)"
if [ ${#emulate[@]} -eq 0 ] && [ -x "$sanitizer" ] && [ ${#models[@]} -gt 0 ]; then
  name="${models[0]}"
  mapfile -d '' inputs < <("$py" "$here/compare.py" --inputs "$here/models/$name.artifact" "$here/models/$name.in")
  if LD_LIBRARY_PATH="$libs" timeout 300 "$sanitizer" --tool memcheck --error-exitcode 9 "$run" \
      "$here/models/$name.artifact" "${inputs[@]}" -q > "$here/sanitizer.log" 2>&1; then
    echo "PASS compute-sanitizer memcheck on $name"
  else
    echo "FAIL compute-sanitizer memcheck on $name:"; tail -20 "$here/sanitizer.log"
    failed=1
  fi
else
  echo "SKIP compute-sanitizer (emulated, or not installed)"
fi
[ $failed -eq 0 ] && echo "check.sh: all ${#models[@]} models pass" || echo "check.sh: FAILED"
exit $failed
