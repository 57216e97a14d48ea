#!/usr/bin/env bash
# Copies telar-run and the runtime into DIR for a container image (the
# artifact's launch/Dockerfile COPYs launch/telar-runtime/):
#
#   scripts/bundle-runtime.sh DIR [--build BUILD_DIR] [--all]
#
#   DIR/bin/telar-run
#   DIR/lib/libtelar_runtime.so (the core), libtelar_runtime_cpu.so (the CPU
#                 device) and every other library telar-run loads
#                 that is not a Debian 12 package's on the loader's path
#                 (those come from the Dockerfile's apt-get packages);
#                 with --all, every one but the C library's own (for a
#                 machine that is not Debian 12: bench/gpu/prepare.sh)
#   DIR/lib/libtelar_runtime_cuda.so, the CUDA devices (loaded on first
#                 use of a CUDA artifact, so not in ldd's list)
#
# BUILD_DIR defaults to this checkout's build/ (scripts/build.sh telar-run).
# Prints what it copied. Exit 1 when telar-run is not built or a library
# cannot be found.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="$root/build"
dir=""
all=0
while [ $# -gt 0 ]; do
  case "$1" in
    --build) build="$2"; shift 2 ;;
    --all) all=1; shift ;;
    -h|--help) sed -n '2,19p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
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
# A library is Debian's when a package from Debian's archive owns it and
# the loader finds it without a path (ld.so.cache names this same file):
# the image then gets it from the Dockerfile's apt-get packages.
cache="$(ldconfig -p)"
owner_of() {  # the package owning file $1 (dpkg records some paths without /usr)
  local path out
  for path in "$1" "${1#/usr}" "/usr$1"; do
    if out="$(dpkg -S "$path" 2>/dev/null)"; then
      echo "${out%%:*}"
      return
    fi
  done
}
in_cache() {  # soname $1 resolves through ld.so.cache to real file $2
  local soname rest target
  while read -r soname rest; do
    if [ "$soname" = "$1" ]; then
      target="${rest##*=> }"
      [ "$(readlink -f "$target")" = "$2" ] && return 0
    fi
  done <<< "$cache"
  return 1
}
names=() reals=() owners=()
missing=0
while read -r name path; do
  if [ "$path" = "not" ]; then
    echo "bundle-runtime.sh: error: $run needs $name, which is not found" >&2
    missing=1
    continue
  fi
  real="$(readlink -f "$path")"
  names+=("$name"); reals+=("$real"); owners+=("$(owner_of "$real")")
done < <(ldd "$run" | sed -n 's/^[[:space:]]*\([^[:space:]]*\) => \([^[:space:]]*\).*/\1 \2/p')
# The packages whose versions come from Debian's archive (one apt-cache call).
debian=" "
pkgs=()
for o in "${owners[@]}"; do [ -n "$o" ] && pkgs+=("$o"); done
if [ ${#pkgs[@]} -gt 0 ]; then
  current=""
  while IFS= read -r line; do
    case "$line" in
      [!\ ]*:) current="${line%:}" ;;
      *debian.org/debian*) debian+="$current " ;;
    esac
  done < <(apt-cache policy "${pkgs[@]}" 2>/dev/null)
fi
for i in "${!names[@]}"; do
  name="${names[$i]}" real="${reals[$i]}" owner="${owners[$i]}"
  if [ "$all" = 1 ]; then
    # The C library and the loader come with every Linux.
    case "$name" in
      libc.so.*|libm.so.*|libdl.so.*|librt.so.*|libpthread.so.*|ld-linux*) continue ;;
    esac
  elif [ -n "$owner" ] && [[ "$debian" == *" $owner "* ]] && in_cache "$name" "$real"; then
    continue
  fi
  cp -f "$real" "$dir/lib/$name"
  echo "lib/$name (from $real)"
done
cuda="$(dirname "$run")/../lib/libtelar_runtime_cuda.so"
if [ -f "$cuda" ]; then
  cp -f "$cuda" "$dir/lib/"
  echo "lib/libtelar_runtime_cuda.so"
fi
exit "$missing"
