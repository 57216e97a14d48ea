#!/usr/bin/env bash
# Sets up (scripts/setup.sh), builds, and runs every Telar test through ctest:
# the lit suite (IR tests, importer tests, node-test import smoke test,
# torch-exported models) and the GoogleTest units.
#
#   scripts/test.sh                 everything
#   TELAR_SKIP_SETUP=1 scripts/test.sh   reuse the current build
#
# The lit suite needs the test environment -- the project's Python (.venv, or
# the interpreter TELAR_TEST_PYTHON names) with numpy, onnx, onnxruntime, torch
# and torchvision, and Debian's libonnx-testdata: without them it fails (lit
# stops at its config; the node tests list what did not run), it never skips.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
if [ "${TELAR_SKIP_SETUP:-0}" != 1 ]; then
  "$root/scripts/setup.sh"
else
  "$root/scripts/build.sh"
fi
cd "$root/build"
ctest --output-on-failure -j "$(nproc)" "$@"
