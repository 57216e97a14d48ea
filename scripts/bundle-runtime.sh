#!/usr/bin/env bash
# Copies telar-run and the runtime into DIR for a container image (the
# artifact's launch/Dockerfile COPYs launch/telar-runtime/):
#
#   scripts/bundle-runtime.sh DIR [--build BUILD_DIR]
#
#   DIR/bin/telar-run
#   DIR/lib/libtelar_runtime.so and every library telar-run loads that is
#                 not Debian 12's (LLVM's libomp.so.5: LLVM 22 comes from
#                 apt.llvm.org); the Debian ones are the Dockerfile's
#                 apt-get packages
#
# BUILD_DIR defaults to this checkout's build/ (scripts/build.sh telar-run).
# Prints what it copied. Exit 1 when telar-run is not built or a library
# cannot be found.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="$root/build"
dir=""
while [ $# -gt 0 ]; do
  case "$1" in
    --build) build="$2"; shift 2 ;;
    -h|--help) sed -n '2,16p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    -*) echo "bundle-runtime.sh: error: unknown option '$1'" >&2; exit 2 ;;
    *) [ -z "$dir" ] || { echo "bundle-runtime.sh: error: one DIR" >&2; exit 2; }
       dir="$1"; shift ;;
  esac
done
[ -n "$dir" ] || { echo "usage: scripts/bundle-runtime.sh DIR [--build BUILD_DIR]" >&2; exit 2; }
run="$build/bin/telar-run"
[ -x "$run" ] || { echo "bundle-runtime.sh: error: $run is not built (scripts/build.sh telar-run)" >&2; exit 1; }

mkdir -p "$dir/bin" "$dir/lib"
cp -f "$run" "$dir/bin/telar-run"
echo "bin/telar-run"
# A library is Debian's when it is in the system's library folders and a
# package owns it (dpkg registers some under /lib, some under /usr/lib).
is_debian() {
  case "$1" in
    /lib/*-linux-gnu/*|/usr/lib/*-linux-gnu/*) ;;
    *) return 1 ;;
  esac
  dpkg -S "$1" >/dev/null 2>&1 || dpkg -S "${1#/usr}" >/dev/null 2>&1 ||
    dpkg -S "/usr$1" >/dev/null 2>&1
}
missing=0
while read -r name path; do
  if [ "$path" = "not" ]; then
    echo "bundle-runtime.sh: error: $run needs $name, which is not found" >&2
    missing=1
    continue
  fi
  real="$(readlink -f "$path")"
  if ! is_debian "$real"; then
    cp -f "$real" "$dir/lib/$name"
    echo "lib/$name (from $real)"
  fi
done < <(ldd "$run" | sed -n 's/^[[:space:]]*\([^[:space:]]*\) => \([^[:space:]]*\).*/\1 \2/p')
exit "$missing"
