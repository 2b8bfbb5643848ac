#!/usr/bin/env bash
# Build a Go command of this repository to carry to another machine (a GPU
# machine, a cluster node): OpenBLAS linked statically, so the binary needs
# only libc there (the CUDA driver and cuBLAS, when used, are loaded at run
# time); symbols and DWARF are left out (-s -w: a quarter less to carry, panics
# still name their lines). It fails when the result needs another shared
# library.
#   scripts/build_static.sh PACKAGE OUT
#   scripts/build_static.sh ./scripts/trainmodel bin/trainmodel-gpu   (scripts/gpu/build-trainmodel.sh)
#   scripts/build_static.sh ./scripts/amt-examples bin/amt-examples        (the example source of a cluster run)
set -euo pipefail
cd "$(dirname "$0")/.."
pkg=${1:?package}
out=${2:?output file}
mkdir -p "$(dirname "$out")"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
a=/usr/lib/x86_64-linux-gnu/openblas-pthread/libopenblas.a
[ -f "$a" ] || a=/usr/lib/x86_64-linux-gnu/libopenblas.a
[ -f "$a" ] || { echo "build_static: no static OpenBLAS (libopenblas.a; Debian libopenblas-dev)" >&2; exit 1; }
ln -s "$a" "$tmp/libopenblas.a"
CGO_LDFLAGS="-L$tmp" ${GO:-go} build -o "$out" -ldflags "-s -w -extldflags '-lm -lpthread'" "$pkg"
# Only the C library's own objects may remain dynamic, and the libraries
# ALLOW names (a|b: scripts/gpu/amt-cli carries ALSA's libasound beside it).
extra=$(ldd "$out" | awk '{print $1}' | grep -Ev '^(linux-vdso\.so|/lib64/ld-linux|ld-linux|libc\.so|libm\.so|libpthread\.so|libdl\.so|librt\.so)' || true)
[ -n "${ALLOW:-}" ] && extra=$(printf '%s\n' $extra | grep -Ev "^($ALLOW)" || true)
if [ -n "$extra" ]; then
  echo "build_static: $out needs shared libraries beyond libc: $extra" >&2
  exit 1
fi
echo "built $out ($(du -h "$out" | cut -f1)); it needs only libc${ALLOW:+ and $ALLOW}:" >&2
ldd "$out" >&2 || true
