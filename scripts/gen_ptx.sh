#!/usr/bin/env bash
# Compile the CUDA C kernels of engine/nn/cuda to PTX (run by `go generate
# ./engine/nn/cuda`, from that directory, on a machine with nvcc).
#
# Each kernels/NAME.cu becomes kernels/NAME.ptx with exactly:
#   nvcc -arch=compute_80 -code=compute_80 --ptx -O3 -std=c++14 -o kernels/NAME.ptx kernels/NAME.cu
# compute_80 PTX is JIT-compiled by the driver for the GPU present (A100 sm_80,
# H100 sm_90, ...); the committed files were made with nvcc 11.8 (PTX ISA 7.8,
# any driver >= 520 loads them). The PTX is embedded (go:embed) and loaded with
# cuModuleLoadDataEx; commit the .ptx files after running this.
set -euo pipefail
cd "$(dirname "$0")/../engine/nn/cuda"
NVCC=${NVCC:-nvcc}
if ! command -v "$NVCC" >/dev/null 2>&1; then
	echo "gen_ptx: nvcc not found (set NVCC or install the CUDA toolkit); the PTX was not regenerated" >&2
	exit 1
fi
"$NVCC" --version | tail -n 2 >&2
for cu in kernels/*.cu; do
	ptx="${cu%.cu}.ptx"
	"$NVCC" -arch=compute_80 -code=compute_80 --ptx -O3 -std=c++14 -o "$ptx.tmp" "$cu"
	mv "$ptx.tmp" "$ptx"
	echo "gen_ptx: $cu -> $ptx" >&2
done
# The sources the PTX was made from: TestPTXMatchesSources fails when a .cu
# or .cuh changes without the PTX being regenerated.
{
	echo "# nvcc $("$NVCC" --version | grep -o 'release [0-9.]*, V[0-9.]*')"
	sha256sum kernels/*.cu kernels/*.cuh | sed 's| kernels/| |'
} > kernels/ptx.sum
