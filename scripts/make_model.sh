#!/usr/bin/env bash
# Rebuild the default model (issue 8, docs/MODEL.md) from the corpora in
# ../shared/data: ingest the four corpora through the pipeline into a
# scratch store, export their token shards, train with conditioned and
# augmented examples, export float16 weights into assets/model, rebuild
# bin/amt and run the prompt suite. Beside the corpora it builds the arranged
# corpus (POP909 and Nottingham melodies over MMA grooves, engine/arrange,
# docs/DATA.md) into $AMT_MODEL_WORK/arranged, kept while its inputs do not
# change. Environment:
#   AMT_MODEL_WORK  scratch folder (default /tmp/amt-model)
#   ARRANGE_JOBS    mma processes for the arranged corpus (default 2)
#   STEPS BATCH CONTEXT PRESET  first run's shape (default 3000, 4, 1024, small)
#   STEPS2          steps of the second run (default 1200; 0: none)
#   DEVICE          where trainmodel trains: auto (default: a GPU when the
#                   CUDA backend opens, else the CPU), cpu or cuda
#   PRECISION LOADER_WORKERS PREFETCH  trainmodel's --precision,
#                   --loader-workers, --prefetch (empty: its defaults, sized
#                   from the core count on a GPU)
# With --data-only it stops once the token shards are in $AMT_MODEL_WORK/data
# (what scripts/gpu/pack-model-data.sh carries to a GPU machine).
# The default model is two runs. The first, STEPS from a fresh
# initialization, learns in every key with the piece's key as KEY label. The
# second, STEPS2 more from its weights, moves every example to C major or A
# minor by its window's own key (the tonic frame, condition.Options.TonicFrame,
# docs/MODEL.md "Key frame"), with new examples (seed 4), the same validation
# pieces (split seed 1) and a new schedule (peak LR 6e-4, 30 warm-up steps);
# the app moves what the model writes to the requested key (app/compose_keyframe.go).
set -euo pipefail
cd "$(dirname "$0")/.."
GO=${GO:-go}
DATA=${AMT_SHARED_DATA:-../shared/data}
WORK=${AMT_MODEL_WORK:-/tmp/amt-model}
STEPS=${STEPS:-3000}
BATCH=${BATCH:-4}
CONTEXT=${CONTEXT:-1024}
PRESET=${PRESET:-small}
STEPS2=${STEPS2:-1200}
DATA_ONLY=0
[ "${1:-}" = "--data-only" ] && DATA_ONLY=1
DEV=(--device "${DEVICE:-auto}")
[ -n "${PRECISION:-}" ] && DEV+=(--precision "$PRECISION")
[ -n "${LOADER_WORKERS:-}" ] && DEV+=(--loader-workers "$LOADER_WORKERS")
[ -n "${PREFETCH:-}" ] && DEV+=(--prefetch "$PREFETCH")
mkdir -p "$WORK"
$GO build -o bin/amt .
$GO build -o "$WORK/trainmodel" ./scripts/trainmodel
rm -rf "$WORK/home" "$WORK/data" "$WORK/run" "$WORK/run-f16" "$WORK/run2"
# The arranged corpus needs mma (Debian package mma).
command -v mma >/dev/null 2>&1 || scripts/setup.sh --model
$GO run ./scripts/arrange --data "$DATA" --out "$WORK/arranged" --jobs "${ARRANGE_JOBS:-2}"
# The genre of pieces whose own metadata names none (Nottingham's ABC tune
# types and the arranged corpus's sidecars name theirs).
declare -A GENRE=([pop909]=pop [nottingham]=folk [openmsx]=game [freedoom]=game)
for c in pop909 nottingham openmsx freedoom; do
  bin/amt ingest "$DATA/$c" --project model --home "$WORK/home" --genre "${GENRE[$c]}"
  bin/amt datasets --project model --home "$WORK/home" --export "$WORK/data/$c" --dataset "$c"
done
bin/amt ingest "$WORK/arranged" --project model --home "$WORK/home"
bin/amt datasets --project model --home "$WORK/home" --export "$WORK/data/arranged" --dataset arranged
if [ "$DATA_ONLY" = 1 ]; then
  echo "token shards in $WORK/data"
  exit 0
fi
"$WORK/trainmodel" --data "$WORK/data" --out "$WORK/run" --preset "$PRESET" --steps "$STEPS" \
  --batch "$BATCH" --context "$CONTEXT" --warmup 100 --val-every 100 --checkpoint-every 100 --key-labels piece "${DEV[@]}"
final="$WORK/run"
if [ "$STEPS2" -gt 0 ]; then
  # from the first run's float16 export, as the shipped model was
  "$WORK/trainmodel" --export "$WORK/run" --to "$WORK/run-f16"
  "$WORK/trainmodel" --data "$WORK/data" --out "$WORK/run2" --init "$WORK/run-f16" --steps "$STEPS2" \
    --batch "$BATCH" --context "$CONTEXT" --lr 6e-4 --seed 4 --split-seed 1 --warmup 30 --val-every 100 \
    --checkpoint-every 100 --key-labels window --key-frame tonic "${DEV[@]}"
  final="$WORK/run2"
fi
"$WORK/trainmodel" --export "$final" --to assets/model
$GO build -o bin/amt .
bin/amt eval-model --corpus "$DATA"
