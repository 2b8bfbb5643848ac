#!/bin/bash
# Train the next default model on a GPU machine in one call, from what
# scripts/gpu/pack-model-data.sh packed into this folder (docs/GPU.md,
# "Training the default model on a GPU"). From the repository root there:
#   OUT=$OUT bash bin/gpu/train-default-model.sh
# 1. Unpacks trainmodel-gpu, the token shards (data/, with make model's
#    mixture in data/mixture.flags) and, when packed, amt-cli (amt without
#    the window), libasound and the corpora of the two-sample test.
# 2. A 60-step probe measures tokens/s; the run takes as many steps as
#    BUDGET_S seconds allow (or STEPS).
# 3. The recipe is make model's second run (tonic key frame, window keys,
#    split seed 1) with the mixture of data/mixture.flags, from model0/ when
#    packed, else from the tree's assets/model (the shipped model), grown to
#    GROW layers x width (default 6x256, the medium preset: the size that fits
#    the CPU's 16-bar budget, docs/BENCHMARKS.md; the new layers start as
#    identities, grow_model.py; GROW= keeps the start's shape), or from a fresh
#    initialization of PRESET when PRESET is set.
# 4. Exports the model in float16 to $OUT/model and scores the held-out
#    pieces of every source before and after (trainmodel --heldout).
# 5. With amt-cli packed (EVAL=1), the two-sample test of the new model on
#    selections 1 and 2 on the machine's cores, side by side, compared with
#    the starting model's reports when packed (ref-ts1.json, ref-ts2.json,
#    made by the same binary); nothing runs past DEADLINE_S.
# Environment: BATCH (16) CONTEXT (1024) LR (3e-4 from weights, 1e-3 fresh)
#   SEED (9) WARMUP (100) STEPS BUDGET_S (210) DEADLINE_S (560) EVAL GROW
#   PER_GROUP (40) MIX (default: the flags in data/mixture.flags) EXTRA (more
#   trainmodel flags, e.g. "--precision tf32 --loader-workers 8").
# $OUT holds at the end model/ (config.json, model.safetensors, vocab.json),
# summary.txt and results.tar.xz (probe, train log, log.jsonl, held-out
# table, two-sample reports): five files, within the device tool's eight.
# On the H100 of 2026-11-27 (16 cores) the small preset trained at 398 k
# tokens/s with 12 loader workers, trainmodel's default on 16 cores.
set -uo pipefail
cd "$(dirname "$0")"
HERE=$PWD
OUT=${OUT:-$PWD/out}
mkdir -p "$OUT"
R=$(mktemp -d)          # what results.tar.xz bundles
S=$(date +%s)
el() { echo "[$(($(date +%s) - S)) s] $*" | tee -a "$R/summary.txt"; }
left() { echo $((${DEADLINE_S:-560} - ($(date +%s) - S))); }
finish() {
  cp "$R/summary.txt" "$OUT/summary.txt"
  tar -C "$R" -cf - . | xz -T0 > "$OUT/results.tar.xz"
  ls -la "$OUT" "$OUT/model" 2>/dev/null
}
trap finish EXIT

[ -f trainmodel-gpu.xz ] && { xz -d -T0 -f trainmodel-gpu.xz; chmod +x trainmodel-gpu; }
[ -f amt-cli.xz ] && { xz -d -T0 -f amt-cli.xz; chmod +x amt-cli; }
[ -d data ] || xz -d -T0 -c data.tar.xz | tar -x
[ -f corpora.tar.xz ] && [ ! -d corpora ] && { mkdir corpora; xz -d -T0 -c corpora.tar.xz | tar -x -C corpora; }
[ -d lib ] && export LD_LIBRARY_PATH=$HERE/lib:${LD_LIBRARY_PATH:-}
if [ -z "${AMT_CUBLAS:-}" ] && ! ldconfig -p 2>/dev/null | grep -q 'libcublas\.so\.1[0-9]'; then
  CUB=$(find /usr/local /opt /usr/lib -name 'libcublas.so.1[0-9]*' 2>/dev/null | grep -v Lt | head -1)
  [ -n "$CUB" ] && export AMT_CUBLAS=$CUB LD_LIBRARY_PATH=$(dirname "$CUB"):${LD_LIBRARY_PATH:-}
fi
el "unpacked: data $(du -sh data | cut -f1), cuBLAS ${AMT_CUBLAS:-from the loader path}, $(nproc) cores"
command -v nvidia-smi > /dev/null && nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader | tee -a "$R/summary.txt"

INIT=()
FROM=
LR=${LR:-}
if [ -n "${PRESET:-}" ]; then
  INIT=(--preset "$PRESET")
  LR=${LR:-1e-3}
  el "from a fresh $PRESET"
else
  FROM=../../assets/model
  [ -d model0 ] && FROM=model0
  INIT=(--init "$FROM")
  GROW=${GROW-6x256}
  rm -rf grown
  if [ -n "$GROW" ] && [ "$(python3 -c "import json,sys; c=json.load(open(sys.argv[1])); print(f\"{c['n_layer']}x{c['n_embd']}\")" "$FROM/config.json")" != "$GROW" ]; then
    PY=python3
    $PY -c 'import numpy' 2> /dev/null || PY=/usr/bin/python3 # numpy: the GPU image's python3, Debian's here
    $PY grow_model.py "$FROM" grown --layers "${GROW%x*}" --width "${GROW#*x}" | tee -a "$R/summary.txt" || { el "grow_model failed"; exit 1; }
    INIT=(--init grown)
  fi
  el "from $FROM$([ -d grown ] && echo ", grown to $GROW")"
fi
LR=${LR:-3e-4}
MIX=${MIX-$(cat data/mixture.flags 2> /dev/null)}
el "mixture flags: ${MIX:-none}"
DEV=(--device "${DEVICE:-cuda}")
RECIPE=(--data data --batch "${BATCH:-16}" --context "${CONTEXT:-1024}" --split-seed 1 --key-labels window --key-frame tonic $MIX)
COMMON=("${DEV[@]}" "${RECIPE[@]}" "${INIT[@]}" --lr "$LR" --seed "${SEED:-9}" ${EXTRA:-})
STEPS=${STEPS:-}
if [ -z "$STEPS" ]; then
  timeout 120 ./trainmodel-gpu "${COMMON[@]}" --out "$R/probe" --steps 60 --warmup 10 --val-every 0 --checkpoint-every 0 > "$R/probe.txt" 2>&1
  el "probe rc $?: $(head -1 "$R/probe.txt")"
  TPS=$(python3 -c "import json,sys; L=[json.loads(l) for l in open(sys.argv[1])][20:]; print(int(sorted(l['tokens_per_second'] for l in L)[len(L)//2]))" "$R/probe/log.jsonl") || { el "probe failed"; tail -5 "$R/probe.txt"; exit 1; }
  STEPS=$((TPS * ${BUDGET_S:-210} / (${BATCH:-16} * ${CONTEXT:-1024})))
  rm -rf "$R/probe"
  el "median $TPS tokens/s -> $STEPS steps in ${BUDGET_S:-210} s"
fi
VE=$(((STEPS + 7) / 8))
timeout -s INT -k 20 $(($(left) - 120)) ./trainmodel-gpu "${COMMON[@]}" --out run --overwrite --steps "$STEPS" \
  --warmup "${WARMUP:-100}" --val-every "$VE" --checkpoint-every "$VE" > "$R/train.txt" 2>&1
el "train rc $?: $(grep -m1 '^mixture' "$R/train.txt")"
grep -E '^(model|done)' "$R/train.txt" | tee -a "$R/summary.txt"
cp run/log.jsonl "$R/log.jsonl"
./trainmodel-gpu --export run --to "$OUT/model" > "$R/export.txt" 2>&1 || { el "export failed"; cat "$R/export.txt"; exit 1; }
el "exported $(du -sh "$OUT/model/model.safetensors" | cut -f1)"
# before (the starting model; grown: the same function, so the same losses), after
HO=$OUT/model
[ -d grown ] && HO=grown,$HO
[ -n "$FROM" ] && HO=$FROM,$HO
timeout 90 ./trainmodel-gpu "${DEV[@]}" "${RECIPE[@]}" --heldout "$HO" --heldout-batches 8 > "$R/heldout.txt" 2>&1
el "held-out rc $?"; tee -a "$R/summary.txt" < "$R/heldout.txt"

EVAL=${EVAL:-$([ -x amt-cli ] && [ -d corpora ] && echo 1 || echo 0)}
if [ "$EVAL" = 1 ]; then
  T=$(($(left) - 20))
  el "two-sample test, selections 1 and 2 side by side, ${T} s left"
  for s in 1 2; do
    timeout -s INT -k 10 "$T" ./amt-cli eval-model --two-sample --model "$OUT/model" --corpus corpora --select-seed $s \
      --per-group "${PER_GROUP:-40}" --save "$R/ts$s.json" > "$R/ts$s.txt" 2>&1 &
  done
  wait
  for s in 1 2; do
    el "selection $s: $(grep -m3 -iE 'forest|logistic' "$R/ts$s.txt" | tr '\n' ' ')"
    [ -f "ref-ts$s.json" ] && [ -f "$R/ts$s.json" ] && ./amt-cli eval-compare "ref-ts$s.json" "$R/ts$s.json" > "$R/compare$s.txt" 2>&1 &&
      head -30 "$R/compare$s.txt" | tee -a "$R/summary.txt"
  done
fi
el "done"
