#!/bin/bash
# One device call on a GPU machine (issue 26): the CUDA backend's tests, its
# training and generation benchmarks (tensor-core attention, and the old
# kernels for comparison in the same run), 16-bar pieces of the default model
# on the GPU and on this machine's CPU, the PyTorch eager and torch.compile
# baselines, and an Nsight Compute time per kernel if ncu is there. Built and
# packed by scripts/gpu/pack.sh; run from the carried folder:
#     bash bin/gpu-pack/h100-check.sh
# Everything it measures goes to $OUT (one file a step, then bundled into
# $OUT/results.tar.xz beside the summary: the device tool brings back at most
# 8 files of 16 MiB); a summary is printed at the end. Each step has its own timeout within a total budget
# (BUDGET_S, default 450 s), the most important first.
cd "$(dirname "$0")"
OUT=${OUT:-$PWD/out}
mkdir -p "$OUT"
BUDGET_S=${BUDGET_S:-450}
S=$(date +%s)
el() { echo "[$(($(date +%s) - S)) s] $*" | tee -a "$OUT/0-steps.txt"; }
# step NAME CAP_S CMD...: runs CMD under min(CAP, budget left) seconds
step() {
	local name=$1 cap=$2
	shift 2
	local left=$((BUDGET_S - ($(date +%s) - S)))
	if [ "$left" -lt 15 ]; then
		el "skip $name (budget spent)"
		return
	fi
	local t=$((cap < left ? cap : left))
	el "$name (timeout $t s)"
	timeout "$t" "$@" > "$OUT/$name.txt" 2>&1
	el "$name: rc $?"
}
for f in *.xz; do
	[ -f "$f" ] || continue
	xz -d -T8 -f "$f" 2>/dev/null || python3 -c "import lzma,sys,shutil; shutil.copyfileobj(lzma.open(sys.argv[1]), open(sys.argv[1][:-3],'wb'))" "$f"
done
chmod +x ./*.test 2>/dev/null
cat COMMIT > "$OUT/commit.txt" 2>/dev/null
nvidia-smi > "$OUT/nvidia-smi.txt" 2>&1
nproc > "$OUT/cpu.txt"; grep -m1 "model name" /proc/cpuinfo >> "$OUT/cpu.txt"
CUB=${AMT_CUBLAS:-$(find /usr/local /opt /usr/lib -name 'libcublas.so.1[0-9]*' 2>/dev/null | grep -v Lt | head -1)}
el "cublas: $CUB"
export AMT_CUBLAS=$CUB LD_LIBRARY_PATH=$PWD:$(dirname "$CUB"):${LD_LIBRARY_PATH:-}
export AMT_GPU_REQUIRED=1 PYTHONUNBUFFERED=1 AMT_BENCH_B=16 AMT_BENCH_T=1024
NCU=$(command -v ncu || ls /opt/nvidia/nsight-compute/*/ncu /usr/local/cuda*/bin/ncu 2>/dev/null | head -1)

# correctness first: every cuda-tagged test must pass on the GPU (no skips)
step 1-cuda-tests 110 ./amt-cuda.test -test.v -test.run 'GPU|Open' -test.timeout 105s
step 2-train-tests 50 ./engine-train-cuda.test -test.v -test.run GPU -test.timeout 45s
step 3-app-tests 50 ./app-cuda.test -test.v -test.run GPU -test.timeout 45s
[ -x ./trainmodel-cuda.test ] && step 3b-trainmodel-tests 40 ./trainmodel-cuda.test -test.v -test.run GPU -test.timeout 35s
# training speed, B16 T1024 bf16 (tokens/s, stage ms/step)
step 4-bench-train 70 ./amt-cuda.test -test.run '^$' -test.bench 'GPUTrain(Small|Base)$' -test.benchtime 20x -test.timeout 65s
# PyTorch eager in the same session: the floor is >= 1.0x of it
step 5-torch-eager 50 python3 bench_pytorch_gpt2.py --presets small base --batch 16 --context 1024 --amp bf16
# 16 bars of the default model, GPU against this machine's CPU (floor: >= 3x)
step 6-generate-16bars 70 ./app-cuda.test -test.run '^$' -test.bench 'GPUGenerate16Bars' -test.benchtime 16x -test.timeout 65s
step 7-bench-generate 45 ./amt-cuda.test -test.run '^$' -test.bench 'GPUGenerate' -test.benchtime 3x -test.timeout 40s
# the old attention kernels, same machine, same hour (what 2026-11-27 measured)
AMT_CUDA_ATTENTION=legacy step 8-bench-train-legacy 40 ./amt-cuda.test -test.run '^$' -test.bench 'GPUTrainBase$' -test.benchtime 5x -test.timeout 35s
if [ -n "$NCU" ]; then
	el "ncu: $NCU"
	step 9-ncu-base 100 "$NCU" --metrics gpu__time_duration.sum --csv --page raw --print-units base \
		./amt-cuda.test -test.run '^$' -test.bench 'GPUTrainBase$' -test.benchtime 1x
	python3 ncu_summary.py "$OUT/9-ncu-base.txt" > "$OUT/9-ncu-summary.txt" 2>&1
else
	el "no ncu here: no per-kernel profile"
fi
if [ -f torch_compile_bench.py ]; then
	step 10-torch-compile 70 python3 torch_compile_bench.py small base
fi
el "done"

echo "==== summary ($OUT)" | tee "$OUT/summary.txt"
{
grep -hE -- '^(--- FAIL|FAIL|ok|PASS)' "$OUT"/1-cuda-tests.txt "$OUT"/2-train-tests.txt "$OUT"/3-app-tests.txt "$OUT"/3b-trainmodel-tests.txt 2>/dev/null | sort | uniq -c
grep -hcE -- '^--- SKIP|^    --- SKIP' "$OUT"/1-cuda-tests.txt 2>/dev/null | sed 's/^/skipped tests: /'
grep -hE -- '^Benchmark' "$OUT"/4-bench-train.txt "$OUT"/6-generate-16bars.txt "$OUT"/7-bench-generate.txt "$OUT"/8-bench-train-legacy.txt 2>/dev/null
grep -h tokens_per_second "$OUT"/5-torch-eager.txt "$OUT"/10-torch-compile.txt 2>/dev/null
grep -hE 'attention share|^attention|^cuBLAS|^f32' "$OUT"/9-ncu-summary.txt 2>/dev/null
cat "$OUT/0-steps.txt"
} 2>&1 | tee -a "$OUT/summary.txt"
# at most 8 files come back: everything but the summary in one archive
(cd "$OUT" && tar -cf - --exclude=summary.txt --exclude=results.tar.xz . | xz -T0 -6 > results.tar.xz && find . -type f ! -name summary.txt ! -name results.tar.xz -delete)
