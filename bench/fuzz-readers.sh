#!/usr/bin/env bash
# Fuzzes the file readers (manifest.json, .npy, safetensors, profiles,
# plan.json, ONNX TensorProto .pb:
# test/fuzz/ReadersFuzzer.cpp) with libFuzzer, AddressSanitizer and
# UndefinedBehaviorSanitizer for a given time.
#
#   bench/fuzz-readers.sh [SECONDS=300]
#
# Builds build-fuzz-readers/telar-readers-fuzzer with clang-22 straight from
# the sources the readers need (no MLIR; LLVM's Support library for the plan
# reader's JSON, the ONNX protobuf classes for .pb: a minute, not the whole
# instrumented build of bench/fuzz-importer.sh), seeds the corpus with valid
# files (the manifests the tests wrote, .npy of each dtype from numpy, a
# safetensors file, the shipped profiles, the tests' plans, a .pb of each
# dtype from onnx.numpy_helper), runs it with a 2 GiB memory limit and a
# 10 s limit per input, and prints what it ran. Crashing inputs land in
# build-fuzz-readers/crashes/; the script exits non-zero when one was found.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
seconds="${1:-300}"
out="$root/build-fuzz-readers"
mkdir -p "$out/corpus" "$out/crashes"
sources=(
  test/fuzz/ReadersFuzzer.cpp
  lib/artifact/Manifest.cpp lib/artifact/ManifestReader.cpp
  lib/artifact/ManifestWriter.cpp lib/json/JsonCheck.cpp
  lib/sharding/core/Sharding.cpp lib/sharding/core/Reshard.cpp
  lib/sharding/core/Schedule.cpp lib/sharding/core/CrossMesh.cpp
  runtime/Npy.cpp runtime/Safetensors.cpp runtime/Tensor.cpp
  runtime/Blocks.cpp runtime/FileUtil.cpp lib/planner/Profile.cpp
  lib/sharding/Plan.cpp runtime/TensorProto.cpp
)
llvm=/usr/lib/llvm-22
echo "fuzz-readers: building"
(cd "$root" && clang++-22 -std=c++17 -O1 -g -fexceptions \
  -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
  -DONNX_ML=1 -DONNX_NAMESPACE=onnx -Iinclude -Iruntime -isystem "$llvm/include" \
  "${sources[@]}" -o "$out/telar-readers-fuzzer" \
  -L"$llvm/lib" -Wl,-rpath,"$llvm/lib" -lLLVM -lonnx_proto -lprotobuf)

# Seeds: the reader's byte first (0 manifest, 1 npy, 2 safetensors, 3
# profile, 4 plan, 5 TensorProto).
python="$root/.venv/bin/python"
"$python" - "$out/corpus" "$root" <<'PY'
import glob, io, json, os, struct, sys
import numpy as np
corpus, root = sys.argv[1], sys.argv[2]
def seed(name, kind, data):
    with open(os.path.join(corpus, name), "wb") as f:
        f.write(bytes([kind]) + data)
manifests = sorted(glob.glob(os.path.join(root, "build", "test", "**", "manifest.json"),
                             recursive=True))[:40]
for i, m in enumerate(manifests):
    seed(f"manifest-{i}", 0, open(m, "rb").read())
for dt in ("float32", "float64", "float16", "int8", "int32", "int64", "uint8", "bool"):
    b = io.BytesIO()
    np.save(b, (np.arange(12).reshape(3, 4) % 2).astype(dt))
    seed(f"npy-{dt}", 1, b.getvalue())
    b = io.BytesIO()
    np.save(b, np.asfortranarray((np.arange(6) % 2).astype(dt).reshape(2, 3)))
    seed(f"npy-fortran-{dt}", 1, b.getvalue())
header = json.dumps({"w": {"dtype": "F32", "shape": [2, 2], "data_offsets": [0, 16]},
                     "__metadata__": {"format": "pt"}}).encode()
seed("safetensors", 2, struct.pack("<Q", len(header)) + header + bytes(16))
for p in sorted(glob.glob(os.path.join(root, "lib", "planner", "profiles", "*.json"))):
    seed("profile-" + os.path.basename(p), 3, open(p, "rb").read())
plans = [p for p in sorted(glob.glob(os.path.join(root, "test", "**", "*.json"), recursive=True))
         if b'"shardings"' in open(p, "rb").read() or b'"stages"' in open(p, "rb").read()]
for i, p in enumerate(plans[:60]):
    seed(f"plan-{i}", 4, open(p, "rb").read())
from onnx import numpy_helper
for dt in ("float32", "float64", "float16", "int8", "int32", "int64", "uint8", "bool"):
    t = numpy_helper.from_array((np.arange(12).reshape(3, 4) % 2).astype(dt), "x")
    seed(f"pb-{dt}", 5, t.SerializeToString())
PY
echo "fuzz-readers: $(ls "$out/corpus" | wc -l) corpus inputs, running ${seconds}s"
status=0
(cd "$out" && ./telar-readers-fuzzer corpus -max_total_time="$seconds" \
   -rss_limit_mb=2048 -timeout=10 -max_len=65536 -artifact_prefix=crashes/ \
   -print_final_stats=1) 2> "$out/fuzz.log" || status=$?
grep -E "^stat::(number_of_executed_units|average_exec_per_sec|peak_rss_mb)|^(INFO|==).*(ERROR|crash|leak)|^SUMMARY" "$out/fuzz.log" || true
tail -n 3 "$out/fuzz.log"
found=$(ls -A "$out/crashes" | wc -l)
echo "fuzz-readers: ${seconds}s, $(ls "$out/corpus" | wc -l) corpus inputs after, $found crashing input(s) in $out/crashes"
[ "$found" -eq 0 ] && [ "$status" -eq 0 ]
