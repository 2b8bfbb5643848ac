#!/bin/bash
# Train the default model on a GPU machine from what scripts/gpu/pack-model-data.sh
# packed (run in that folder; docs/GPU.md, "Training the default model on a
# GPU"). The recipe is make model's second run (tonic key frame, window keys,
# split seed 1) from model0's weights, with amt's own CUDA trainer:
#   BATCH (16) CONTEXT (1024) LR (6e-4) SEED (4) WARMUP (100) set the run;
#   STEPS, or else BUDGET_S (235): a 60-step probe measures tokens/s and the
#   run takes as many steps as BUDGET_S seconds allow;
#   EXTRA: more trainmodel flags (e.g. "--precision tf32 --loader-workers 8").
# Writes to $OUT (default ./out): probe.txt, train.txt, log.jsonl and the
# float16 model in model/ (config.json, model.safetensors, vocab.json).
# On the H100 of 2026-11-27 (16 cores) this recipe ran at 398 k tokens/s with
# 12 loader workers, trainmodel's default on 16 cores.
set -uo pipefail
cd "$(dirname "$0")"
OUT=${OUT:-$PWD/out}
mkdir -p "$OUT"
S=$(date +%s); el() { echo "[$(( $(date +%s) - S )) s] $*"; }
[ -f trainmodel-gpu.xz ] && { xz -d -T0 -f trainmodel-gpu.xz; chmod +x trainmodel-gpu; }
[ -d data ] || xz -d -T0 -c data.tar.xz | tar -x
if [ -z "${AMT_CUBLAS:-}" ] && ! ldconfig -p 2>/dev/null | grep -q 'libcublas\.so\.1[0-9]'; then
  CUB=$(find /usr/local /opt /usr/lib -name 'libcublas.so.1[0-9]*' 2>/dev/null | grep -v Lt | head -1)
  [ -n "$CUB" ] && export AMT_CUBLAS=$CUB LD_LIBRARY_PATH=$(dirname "$CUB"):${LD_LIBRARY_PATH:-}
fi
el "data ready: $(du -sh data | cut -f1), cuBLAS ${AMT_CUBLAS:-from the loader path}"
INIT=()
[ -d model0 ] && INIT=(--init model0)
COMMON=(--device cuda --data data "${INIT[@]}" --batch "${BATCH:-16}" --context "${CONTEXT:-1024}" --lr "${LR:-6e-4}"
  --seed "${SEED:-4}" --split-seed 1 --key-labels window --key-frame tonic ${EXTRA:-})
STEPS=${STEPS:-}
if [ -z "$STEPS" ]; then
  timeout 90 ./trainmodel-gpu "${COMMON[@]}" --out /tmp/probe --steps 60 --warmup 10 --val-every 0 --checkpoint-every 0 > "$OUT/probe.txt" 2>&1
  el "probe rc $?"; head -2 "$OUT/probe.txt"; tail -2 "$OUT/probe.txt"
  TPS=$(python3 -c "import json; L=[json.loads(l) for l in open('/tmp/probe/log.jsonl')][20:]; print(int(sorted(l['tokens_per_second'] for l in L)[len(L)//2]))")
  STEPS=$(( TPS * ${BUDGET_S:-235} / (${BATCH:-16} * ${CONTEXT:-1024}) ))
  el "median tokens/s $TPS -> $STEPS steps"
fi
timeout -s INT -k 20 $(( ${BUDGET_S:-235} + 65 )) ./trainmodel-gpu "${COMMON[@]}" --out /tmp/run --steps "$STEPS" \
  --warmup "${WARMUP:-100}" --val-every 500 --checkpoint-every 500 > "$OUT/train.txt" 2>&1
el "train rc $?"; head -2 "$OUT/train.txt"; tail -3 "$OUT/train.txt"
./trainmodel-gpu --export /tmp/run --to "$OUT/model" > "$OUT/export.txt" 2>&1; el "export rc $?"
cp /tmp/run/log.jsonl "$OUT/log.jsonl"; ls -la "$OUT/model"
