#!/usr/bin/env bash
# Build here what scripts/gpu/h100-check.sh runs on a GPU machine, into one
# git-ignored folder to carry (64 MiB limit of the device tool, so the
# binaries travel as xz): the cuda-tagged test binaries of engine/nn/cuda,
# engine/train and app (OpenBLAS linked statically: they need only libc and
# libasound there), the PyTorch baselines, the check script itself.
#   scripts/gpu/pack.sh [DIR]     (default bin/gpu-pack)
# Then, with the device tool: carry ["bin/gpu-pack"], command
#   bash bin/gpu-pack/h100-check.sh
set -euo pipefail
cd "$(dirname "$0")/../.."
out=${1:-bin/gpu-pack}
rm -rf "$out"
mkdir -p "$out"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
a=/usr/lib/x86_64-linux-gnu/openblas-pthread/libopenblas.a
[ -f "$a" ] || a=/usr/lib/x86_64-linux-gnu/libopenblas.a
ln -s "$a" "$tmp/libopenblas.a"
build() { # NAME PACKAGE
	CGO_LDFLAGS="-L$tmp" go test -c -tags cuda -o "$out/$1" -ldflags "-extldflags '-lm -lpthread'" "$2"
	echo "built $1 ($(du -h "$out/$1" | cut -f1))" >&2
}
build amt-cuda.test ./engine/nn/cuda
build engine-train-cuda.test ./engine/train
build app-cuda.test ./app
build trainmodel-cuda.test ./scripts/trainmodel
for b in "$out"/*.test; do
	deps=$(ldd "$b") # whole, before grep: with pipefail an early grep exit would fail the pipe
	if grep -q "not found" <<<"$deps"; then
		echo "pack: $b needs a library that is not here:" >&2
		grep "not found" <<<"$deps" >&2
		exit 1
	fi
	# the app binary's one library beyond libc (the audio output) travels with it
	lib=$(awk '/libasound/ {print $3}' <<<"$deps")
	if [ -n "$lib" ] && [ ! -f "$out/$(basename "$lib")" ]; then
		cp -L "$lib" "$out/"
	fi
done
xz -T2 -6 "$out"/*.test
cp scripts/bench_pytorch_gpt2.py scripts/gpu/h100-check.sh scripts/gpu/ncu_summary.py "$out/"
if [ -f ../shared/gpu/torch_compile_bench.py ]; then
	cp ../shared/gpu/torch_compile_bench.py "$out/"
else
	echo "pack: ../shared/gpu/torch_compile_bench.py not found: the torch.compile baseline will be skipped" >&2
fi
git rev-parse HEAD > "$out/COMMIT"
git status --short >> "$out/COMMIT"
du -sh "$out" >&2
ls -l "$out" >&2
echo "carry [\"$out\"] and run: bash $out/h100-check.sh" >&2
