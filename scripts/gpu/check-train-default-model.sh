#!/usr/bin/env bash
# Check the one-call GPU run here (docs/GPU.md, "The next default model in
# one call"): pack-model-data.sh on a tiny slice of ../shared/data, then
# train-default-model.sh twice from the pack, as the GPU machine runs it:
#   1. on the CPU, a fresh tiny model: the probe, the steps it sizes, the
#      export, the held-out table and the two-sample test of both selections
#      (3 real pieces a group);
#   2. under the CUDA emulator (make emu), the shipped model grown to 6x256
#      for 2 steps: the held-out losses of the shipped and the grown model
#      must agree (the growth keeps the function), and the emulator must
#      report no misuse or fault.
#   scripts/gpu/check-train-default-model.sh      (about 10 minutes on 2 cores)
set -euo pipefail
cd "$(dirname "$0")/../.."
data=${AMT_SHARED_DATA:-../shared/data}
[ -d "$data/pop909" ] || { echo "check: no corpora in $data (skipped)" >&2; exit 0; }
T=$(mktemp -d)
trap 'rm -rf "$T" bin/gpu-check' EXIT
go build -o "$T/amt" .
mkdir -p "$T/src/pop909" "$T/src/nottingham" "$T/corpora"/{pop909,nottingham,openmsx,freedoom}
for d in $(ls "$data/pop909" | grep -E '^[0-9]+$' | head -12); do cp "$data/pop909/$d/$d.mid" "$T/src/pop909/"; done
cp $(ls "$data"/nottingham/*.mid | head -12) "$T/src/nottingham/"
for c in pop909 nottingham; do
  "$T/amt" ingest "$T/src/$c" --project t --home "$T/home" > /dev/null
  "$T/amt" datasets --project t --home "$T/home" --export "$T/data/$c" --dataset "$c" > /dev/null
done
echo '--source-share pop909=60% --flat-velocity nottingham' > "$T/data/mixture.flags"
cp "$T/src/pop909/"00[1-6].mid "$T/corpora/pop909/"
cp $(ls "$T"/src/nottingham/*.mid | head -6) "$T/corpora/nottingham/"
cp $(ls "$data"/openmsx/*.mid | head -3) "$T/corpora/openmsx/"
cp $(ls "$data"/freedoom/*.mid | head -3) "$T/corpora/freedoom/"
SHARDS="$T/data" AMT_SHARED_DATA="$T/corpora" scripts/gpu/pack-model-data.sh bin/gpu-check 2> "$T/pack.log" ||
  { cat "$T/pack.log" >&2; exit 1; }
grep "^packed" "$T/pack.log" >&2
fail() { echo "check: $*" >&2; exit 1; }

cp -r bin/gpu-check "$T/pack-cpu"
rm -rf bin/gpu-check/{data,run,grown}
DEVICE=cpu PRESET=tiny BATCH=2 CONTEXT=64 BUDGET_S=3 PER_GROUP=3 OUT="$T/out-cpu" \
  bash "$T/pack-cpu/train-default-model.sh" > "$T/cpu.log" 2>&1 || { cat "$T/cpu.log"; fail "the CPU run failed"; }
for f in model/config.json model/model.safetensors model/vocab.json summary.txt results.tar.xz; do
  [ -s "$T/out-cpu/$f" ] || fail "the CPU run left no $f"
done
grep -q 'median [0-9]* tokens/s -> [0-9]* steps' "$T/out-cpu/summary.txt" || fail "no probe in the CPU run's summary"
grep -q '| mixture | 2 |' "$T/out-cpu/summary.txt" || fail "no held-out table in the CPU run's summary"
[ "$(grep -c 'random forest' "$T/out-cpu/summary.txt")" -ge 2 ] || fail "no two-sample result of both selections"
echo "check: CPU run ok ($(grep -m1 '^done:' "$T/cpu.log"))" >&2

make emu > /dev/null
E=$PWD/bin/cuda-emu
AMT_CUDA_DRIVER=$E/libcuda.so.1 AMT_CUBLAS=$E/libcublas.so.12 AMT_EMU_LOG="$T/emu.log" BATCH=1 CONTEXT=64 STEPS=2 \
  WARMUP=1 EVAL=0 OUT="$T/out-emu" bash bin/gpu-check/train-default-model.sh > "$T/emu-run.log" 2>&1 ||
  { cat "$T/emu-run.log"; fail "the emulated run failed"; }
grep -q 'grown to 6x256' "$T/out-emu/summary.txt" || fail "the shipped model was not grown"
grep -q 'AMT CUDA emulator' "$T/out-emu/summary.txt" || fail "the held-out scores did not run on the emulator"
python3 - "$T/out-emu/summary.txt" << 'PY' || fail "the grown model's held-out losses differ from the shipped model's"
import sys
rows = [l.split("|") for l in open(sys.argv[1]) if l.startswith("| ") and "held-out" not in l and "---" not in l]
assert rows, "no held-out rows"
for r in rows:
    shipped, grown = float(r[3]), float(r[4])
    assert abs(shipped - grown) < 2e-3, (r[1], shipped, grown)
print(f"check: shipped and grown agree on {len(rows)} rows", file=sys.stderr)
PY
if [ -f "$T/emu.log" ] && grep -E ' (misuse|fault): ' "$T/emu.log"; then fail "the CUDA emulator reported the above"; fi
echo "check: emulated run ok" >&2
