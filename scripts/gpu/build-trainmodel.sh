#!/usr/bin/env bash
# Build scripts/trainmodel to carry to a GPU machine (docs/GPU.md, "Training
# the default model on a GPU"): OpenBLAS linked statically, so the binary
# needs only libc there; the CUDA driver and cuBLAS are loaded at run time
# from the GPU machine's own libraries (AMT_CUBLAS=/path/libcublas.so.N when
# they are not on the loader's path).
#   scripts/gpu/build-trainmodel.sh [OUT]   (default bin/trainmodel-gpu)
# It fails when the result needs a shared library other than libc's.
set -euo pipefail
cd "$(dirname "$0")/../.."
out=${1:-bin/trainmodel-gpu}
mkdir -p "$(dirname "$out")"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
a=/usr/lib/x86_64-linux-gnu/openblas-pthread/libopenblas.a
[ -f "$a" ] || a=/usr/lib/x86_64-linux-gnu/libopenblas.a
[ -f "$a" ] || { echo "build-trainmodel: no static OpenBLAS (libopenblas.a; Debian libopenblas-dev)" >&2; exit 1; }
ln -s "$a" "$tmp/libopenblas.a"
CGO_LDFLAGS="-L$tmp" ${GO:-go} build -o "$out" -ldflags "-extldflags '-lm -lpthread'" ./scripts/trainmodel
# Only the C library's own objects may remain dynamic.
extra=$(ldd "$out" | awk '{print $1}' | grep -Ev '^(linux-vdso\.so|/lib64/ld-linux|ld-linux|libc\.so|libm\.so|libpthread\.so|libdl\.so|librt\.so)' || true)
if [ -n "$extra" ]; then
  echo "build-trainmodel: $out needs shared libraries beyond libc: $extra" >&2
  exit 1
fi
echo "built $out ($(du -h "$out" | cut -f1)); it needs only libc:" >&2
ldd "$out" >&2 || true
