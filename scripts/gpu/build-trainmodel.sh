#!/usr/bin/env bash
# Build scripts/trainmodel to carry to a GPU machine (docs/GPU.md, "Training
# the default model on a GPU"): OpenBLAS linked statically, so the binary
# needs only libc there; the CUDA driver and cuBLAS are loaded at run time
# from the GPU machine's own libraries (AMT_CUBLAS=/path/libcublas.so.N when
# they are not on the loader's path).
#   scripts/gpu/build-trainmodel.sh [OUT]   (default bin/trainmodel-gpu)
set -euo pipefail
cd "$(dirname "$0")/../.."
exec scripts/build_static.sh ./scripts/trainmodel "${1:-bin/trainmodel-gpu}"
