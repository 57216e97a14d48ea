#!/bin/bash
# check-blas-kernels.sh VERSION_TXT: the "OpenBLAS kernels:" line of
# `telar-run --version` (run without OPENBLAS_CORETYPE) names the kernels of
# this CPU's vector extensions: SkylakeX with AVX-512 (F, BW, VL, DQ, CD),
# else Haswell with AVX2 and FMA; on other CPUs anything goes.
set -u
flags=" $(grep -m1 '^flags' /proc/cpuinfo) "
has() { [[ "$flags" == *" $1 "* ]]; }
if has avx512f && has avx512bw && has avx512vl && has avx512dq && has avx512cd; then
  want=SkylakeX
elif has avx2 && has fma; then
  want=Haswell
else
  exit 0
fi
if ! grep -qx "OpenBLAS kernels: $want" "$1"; then
  echo "expected OpenBLAS kernels: $want, got:" >&2
  cat "$1" >&2
  exit 1
fi
