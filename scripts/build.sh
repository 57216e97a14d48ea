#!/usr/bin/env bash
# Configures (once) and builds Telar in build/. Usage: scripts/build.sh [TARGET...]
# Holds a lock so concurrent invocations queue instead of fighting over 2 cores.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${TELAR_BUILD_DIR:-$root/build}"
jobs="${TELAR_JOBS:-$(nproc)}"
exec 9>"/tmp/telar-build.lock"
flock 9
if [ ! -f "$build/build.ninja" ]; then
  cmake -G Ninja -S "$root" -B "$build" \
    -DCMAKE_BUILD_TYPE="${TELAR_BUILD_TYPE:-Release}" \
    -DMLIR_DIR=/usr/lib/llvm-22/lib/cmake/mlir \
    -DLLVM_EXTERNAL_LIT=/usr/lib/llvm-22/bin/lit \
    -DPython3_EXECUTABLE="$root/.venv/bin/python"
fi
cmake --build "$build" -j "$jobs" ${1:+--target "$@"}
