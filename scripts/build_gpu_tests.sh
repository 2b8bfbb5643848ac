#!/usr/bin/env bash
# Build the CUDA test binary here, to carry to a GPU machine (docs/GPU.md).
# OpenBLAS (the CPU backend the GPU is compared against) is linked
# statically, so the binary needs only libc there; the CUDA libraries are
# loaded at run time from the GPU machine's driver and cuBLAS.
#   scripts/build_gpu_tests.sh [OUT]   (default bin/amt-cuda.test)
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-bin/amt-cuda.test}
mkdir -p "$(dirname "$out")"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
a=/usr/lib/x86_64-linux-gnu/openblas-pthread/libopenblas.a
[ -f "$a" ] || a=/usr/lib/x86_64-linux-gnu/libopenblas.a
ln -s "$a" "$tmp/libopenblas.a"
CGO_LDFLAGS="-L$tmp" go test -c -tags cuda -o "$out" -ldflags "-extldflags '-lm -lpthread'" ./engine/nn/cuda
echo "built $out; shared libraries it needs:" >&2
ldd "$out" >&2 || true
