#!/usr/bin/env bash
# Installs everything Telar needs on Debian 12 (idempotent), then configures
# and builds it in build/. Used by the README's commands and by CI.
#
#   scripts/setup.sh            apt packages + Python venv + build
#   TELAR_SKIP_APT=1 scripts/setup.sh   skip apt (packages already present)
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
log() { echo "setup: $*"; }

# Debian packages. LLVM/MLIR 22 for the compiler; libonnx for the ONNX
# protobuf classes; clang-22 + compiler-rt for the fuzzer; python3-torch and
# -torchvision to export test models; libonnx-testdata for node tests;
# OpenMPI for the runtime's collectives and multi-rank telar-run; COIN-OR CBC
# for the planner's integer program; Gloo for collectives without MPI (TCP
# rendezvous); OpenSSL's libcrypto for the HMAC of the rendezvous and the
# liveness channel; Slurm and munge for the real single-node Slurm of the launch
# tests; python3-dev for the Python package's extension (python/); Chromium
# to render the plan and trace pages headless in their tests.
APT_PACKAGES=(
  cmake ninja-build g++ ccache pkg-config
  llvm-22-dev llvm-22-tools libmlir-22-dev mlir-22-tools
  clang-22 libclang-rt-22-dev
  zlib1g-dev libzstd-dev libedit-dev libxml2-dev libcurl4-openssl-dev
  libonnx-dev libprotobuf-dev protobuf-compiler libonnx-testdata
  libgtest-dev
  liblld-22-dev
  libomp-22-dev
  libopenblas-dev
  nlohmann-json3-dev
  libssl-dev
  libopenmpi-dev openmpi-bin
  coinor-libcbc-dev
  libgloo-dev
  slurm-wlm munge
  chromium
  python3 python3-venv python3-pip python3-dev python3-torch python3-torchvision
)

if [ "${TELAR_SKIP_APT:-0}" != 1 ]; then
  missing=()
  for p in "${APT_PACKAGES[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing+=("$p")
  done
  if [ ${#missing[@]} -gt 0 ]; then
    log "installing ${#missing[@]} Debian packages: ${missing[*]}"
    sudo_cmd=""
    [ "$(id -u)" -ne 0 ] && sudo_cmd="sudo"
    $sudo_cmd apt-get update -q
    DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -q --no-install-recommends "${missing[@]}"
  else
    log "Debian packages present"
  fi
fi

"$root/scripts/setup-python.sh"

log "building (a clean build takes about 2 minutes on 2 cores; ccache makes rebuilds fast)"
"$root/scripts/build.sh"

# The Python package (python/telar, built into build/python with its
# extension) on the project environment's path: `import telar` in .venv.
venv="${TELAR_VENV:-$root/.venv}"
site="$("$venv/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')"
echo "${TELAR_BUILD_DIR:-$root/build}/python" > "$site/telar.pth"
"$venv/bin/python" -c 'import telar; print("setup: python package telar", telar.__version__, "from", telar.__file__)'
log "done: tools are in build/bin (telarc, telar-opt)"
