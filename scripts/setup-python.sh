#!/usr/bin/env bash
# Create (or refresh) the project's Python virtual environment at .venv.
#
#   scripts/setup-python.sh            # idempotent; does nothing if .venv is current
#   TELAR_VENV=/path scripts/setup-python.sh   # another location
#   scripts/setup-python.sh --force    # recreate from scratch
#
# The venv is made from Debian's /usr/bin/python3 with --system-site-packages so
# Debian's python3-torch / python3-torchvision (apt, installed by scripts/setup.sh)
# are visible; the pinned PyPI packages of python/requirements.txt go into the
# venv. A hash of requirements.txt (and of the base interpreter's version) is kept
# in .venv/.telar-requirements.sha256: when it differs, the packages are
# reinstalled; when the interpreter changed, the venv is recreated.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
VENV="${TELAR_VENV:-$ROOT/.venv}"
REQ="$ROOT/python/requirements.txt"
PY="${TELAR_BASE_PYTHON:-/usr/bin/python3}"
STAMP="$VENV/.telar-requirements.sha256"
FORCE=0
[[ "${1:-}" == "--force" ]] && FORCE=1

log() { echo "setup-python: $*"; }

if [[ ! -x "$PY" ]]; then
  echo "setup-python: error: $PY not found (apt-get install python3 python3-venv)" >&2
  exit 1
fi
if ! "$PY" -c 'import venv, ensurepip' 2>/dev/null; then
  echo "setup-python: error: $PY lacks venv/ensurepip (apt-get install python3-venv)" >&2
  exit 1
fi

PYVER="$("$PY" -c 'import sys; print("%d.%d.%d" % sys.version_info[:3])')"
WANT="$( { echo "python $PYVER"; cat "$REQ"; } | sha256sum | cut -d' ' -f1)"

if [[ $FORCE == 1 && -d "$VENV" ]]; then
  log "--force: removing $VENV"
  rm -rf "$VENV"
fi

if [[ -x "$VENV/bin/python" ]]; then
  HAVE_VER="$("$VENV/bin/python" -c 'import sys; print("%d.%d.%d" % sys.version_info[:3])' 2>/dev/null || echo none)"
  if [[ "$HAVE_VER" != "$PYVER" ]]; then
    log "$VENV uses python $HAVE_VER, base is $PYVER: recreating"
    rm -rf "$VENV"
  fi
elif [[ -e "$VENV" ]]; then
  log "$VENV is incomplete: recreating"
  rm -rf "$VENV"
fi

if [[ ! -x "$VENV/bin/python" ]]; then
  log "creating $VENV from $PY ($PYVER) with --system-site-packages"
  "$PY" -m venv --system-site-packages "$VENV"
fi

if [[ -f "$STAMP" && "$(cat "$STAMP")" == "$WANT" ]]; then
  log "$VENV is up to date with python/requirements.txt (nothing to do)"
else
  log "installing python/requirements.txt into $VENV"
  "$VENV/bin/python" -m pip install --disable-pip-version-check --no-input -q \
      -r "$REQ"
  echo "$WANT" > "$STAMP"
  log "installed: $("$VENV/bin/python" -m pip freeze --local --disable-pip-version-check 2>/dev/null | tr '\n' ' ')"
fi

# Sanity check: everything the test scripts import.
"$VENV/bin/python" - <<'PYEOF'
import numpy, onnx, onnxruntime
msg = f"numpy {numpy.__version__}, onnx {onnx.__version__}, onnxruntime {onnxruntime.__version__}"
try:
    import torch, torchvision
    msg += f", torch {torch.__version__}, torchvision {torchvision.__version__}"
except Exception as e:  # torch is only needed by make_torch_models.py
    msg += f", torch unavailable ({type(e).__name__}: {e}; apt-get install python3-torch python3-torchvision)"
print("setup-python: ok:", msg)
PYEOF
