#!/usr/bin/env bash
# Compare model presets at equal CPU time (issue 13; docs/BENCHMARKS.md,
# "Presets small against base"): ingest the real corpora as make model does
# (without the arranged corpus, to keep it short), then for each preset
# measure its training speed over 4 steps, train it for the steps that fit
# BUDGET seconds at that speed (warm-up 5%, cosine to a tenth, batch 4 ×
# 1,024) and print the final validation loss; every step's validation loss
# and elapsed time are in WORK/run-PRESET/log.jsonl. Run it alone on the
# machine. Environment:
#   AMT_PRESET_WORK  scratch folder (default /tmp/amt-preset)
#   BUDGET           seconds per preset (default 600)
#   PRESETS          presets to compare (default "small base")
set -euo pipefail
cd "$(dirname "$0")/.."
GO=${GO:-go}
DATA=${AMT_SHARED_DATA:-../shared/data}
WORK=${AMT_PRESET_WORK:-/tmp/amt-preset}
BUDGET=${BUDGET:-600}
PRESETS=${PRESETS:-small base}
if [ ! -d "$DATA/pop909" ]; then
  echo "compare_presets: no corpora in $DATA (set AMT_SHARED_DATA)" >&2
  exit 2
fi
mkdir -p "$WORK"
$GO build -o bin/amt .
$GO build -o "$WORK/trainmodel" ./scripts/trainmodel
if [ ! -d "$WORK/data" ]; then
  declare -A GENRE=([pop909]=pop [nottingham]=folk [openmsx]=game [freedoom]=game)
  for c in pop909 nottingham openmsx freedoom; do
    bin/amt ingest "$DATA/$c" --project model --home "$WORK/home" --genre "${GENRE[$c]}" >/dev/null
    bin/amt datasets --project model --home "$WORK/home" --export "$WORK/data/$c" --dataset "$c" >/dev/null
  done
fi
for p in $PRESETS; do
  rm -rf "$WORK/cal-$p" "$WORK/run-$p"
  "$WORK/trainmodel" --data "$WORK/data" --out "$WORK/cal-$p" --preset "$p" --steps 4 --batch 4 --context 1024 \
    --warmup 1 --val-every 100000 --checkpoint-every 100000 >/dev/null
  tps=$(tail -1 "$WORK/cal-$p/log.jsonl" | sed 's/.*"tokens_per_second":\([0-9.e+-]*\).*/\1/')
  steps=$(awk -v b="$BUDGET" -v t="$tps" 'BEGIN { s = int(b * t / 4096); print (s < 10 ? 10 : s) }')
  echo "$p: $tps tokens/s measured, $steps steps for $BUDGET s"
  "$WORK/trainmodel" --data "$WORK/data" --out "$WORK/run-$p" --preset "$p" --steps "$steps" --batch 4 --context 1024 \
    --warmup $((steps / 20 + 1)) --val-every $((steps / 6 + 1)) --checkpoint-every 100000 | tail -1
done
