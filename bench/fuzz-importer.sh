#!/usr/bin/env bash
# Fuzzes the ONNX importer with libFuzzer + AddressSanitizer for a given time.
#
#   bench/fuzz-importer.sh [SECONDS=300] [JOBS=1]
#
# Builds build-fuzz/ with clang-22 (everything instrumented), seeds the corpus
# with the ONNX node-test models and the .onnxtext lit inputs, and runs
# telar-import-fuzzer. Crashing inputs land in build-fuzz/crashes/; the script
# exits non-zero when one was found.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
seconds="${1:-300}"
jobs="${2:-1}"
build="$root/build-fuzz"
exec 9>"/tmp/telar-build.lock"
flock 9
if [ ! -f "$build/build.ninja" ]; then
  CC=clang-22 CXX=clang++-22 cmake -G Ninja -S "$root" -B "$build" \
    -DCMAKE_BUILD_TYPE=RelWithDebInfo -DTELAR_ENABLE_FUZZER=ON -DTELAR_BUILD_TESTS=OFF \
    -DMLIR_DIR=/usr/lib/llvm-22/lib/cmake/mlir -DLLVM_EXTERNAL_LIT=/usr/lib/llvm-22/bin/lit
fi
cmake --build "$build" -j "$(nproc)" --target telar-import-fuzzer
flock -u 9

corpus="$build/corpus"
mkdir -p "$corpus" "$build/crashes"
if [ -z "$(ls -A "$corpus")" ]; then
  python="$root/.venv/bin/python"
  nodedir="$("$python" -c 'import onnx, os; print(os.path.join(os.path.dirname(onnx.__file__), "backend/test/data/node"))')"
  for m in "$nodedir"/*/model.onnx; do
    cp "$m" "$corpus/$(basename "$(dirname "$m")").onnx"
  done
  for t in "$root"/test/onnx/*.onnxtext; do
    { printf 't'; cat "$t"; } > "$corpus/$(basename "$t").txt"
  done
fi
echo "fuzz-importer: $(ls "$corpus" | wc -l) corpus inputs, running ${seconds}s"
start=$(date +%s)
status=0
cd "$build" # libFuzzer writes fuzz-N.log files to the working directory
ASAN_OPTIONS=detect_leaks=0 "$build/bin/telar-import-fuzzer" "$corpus" \
  -max_total_time="$seconds" -timeout=20 -rss_limit_mb=4096 -max_len=1000000 \
  -jobs="$jobs" -workers="$jobs" -artifact_prefix="$build/crashes/" \
  -print_final_stats=1 2>&1 | tail -n 25 || status=$?
echo "fuzz-importer: ran $(( $(date +%s) - start ))s; crashes: $(ls "$build/crashes" | wc -l) (exit $status)"
exit $status
