#!/usr/bin/env bash
# Rebuild the default model (issue 8, docs/MODEL.md) from the corpora in
# ../shared/data: ingest the real corpora (POP909, Nottingham, OpenMSX,
# Freedoom, and since issue 35 the lieder, quartets, Mutopia, Groove,
# OpenEWLD, Irish tunes and, with SHARE_ALIKE=1, piano-midi.de) through the
# pipeline into a
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
#   SHARE_ALIKE     1: also train on the CC BY-SA sources (piano-midi.de and
#                   Mutopia's CC BY-SA files): the weights are then CC BY-SA
#                   too (docs/DATA.md, "Licences"); 0 (default): leave them out
#   SHARES          the mixture as shares of the examples (trainmodel
#                   --source-share; default below, by SHARE_ALIKE); the
#                   arranged corpus takes what the named sources leave
#   FLAT_VELOCITY   sources whose velocities are notation's, left out of the
#                   loss (trainmodel --flat-velocity)
# With --data-only it stops once the token shards are in $AMT_MODEL_WORK/data
# (what scripts/gpu/pack-model-data.sh carries to a GPU machine), with the
# mixture's trainmodel flags in data/mixture.flags and the card in card.md.
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
SHARE_ALIKE=${SHARE_ALIKE:-0}
# The mixture (docs/DATA.md, "What the model sees"): human-made music 60% of
# the examples, the arranged corpus the 40% left. Without the share-alike
# sources piano-midi.de's 6% goes to POP909 (+3), the lieder (+2) and the
# quartets (+1).
if [ "$SHARE_ALIKE" = 1 ]; then
  SHARES=${SHARES:-pop909=12%,nottingham=5%,openmsx=1.5%,freedoom=2.5%,lieder=8%,quartets=5%,mutopia=8%,pianomidi=6%,groove=4%,ewld=3%,irish=5%}
else
  SHARES=${SHARES:-pop909=15%,nottingham=5%,openmsx=1.5%,freedoom=2.5%,lieder=10%,quartets=6%,mutopia=8%,groove=4%,ewld=3%,irish=5%}
fi
# Notation's velocities (one a part, or a rule's accents) are not learned.
FLAT_VELOCITY=${FLAT_VELOCITY:-nottingham,lieder,quartets,mutopia,ewld,irish}
MIX=(--source-share "$SHARES" --flat-velocity "$FLAT_VELOCITY")
DATA_ONLY=0
[ "${1:-}" = "--data-only" ] && DATA_ONLY=1
DEV=(--device "${DEVICE:-auto}")
[ -n "${PRECISION:-}" ] && DEV+=(--precision "$PRECISION")
[ -n "${LOADER_WORKERS:-}" ] && DEV+=(--loader-workers "$LOADER_WORKERS")
[ -n "${PREFETCH:-}" ] && DEV+=(--prefetch "$PREFETCH")
mkdir -p "$WORK"
$GO build -o bin/amt .
$GO build -o "$WORK/trainmodel" ./scripts/trainmodel
rm -rf "$WORK/home" "$WORK/data" "$WORK/run" "$WORK/run-f16" "$WORK/run2" "$WORK/corpora"
# The arranged corpus needs mma (Debian package mma).
command -v mma >/dev/null 2>&1 || scripts/setup.sh --model
$GO run ./scripts/arrange --data "$DATA" --out "$WORK/arranged" --jobs "${ARRANGE_JOBS:-2}"
# The genre of pieces whose own metadata names none (Nottingham's ABC tune
# types, the arranged corpus's sidecars and the metadata.csv columns of the
# newer corpora name theirs: text.PieceInfo.Family); Groove and OpenEWLD
# name theirs or none.
declare -A GENRE=([pop909]=pop [nottingham]=folk [openmsx]=game [freedoom]=game [lieder]=classical
  [quartets]=classical [mutopia]=classical [pianomidi]=classical [groove]= [ewld]= [irish]=folk)
CORPORA=(pop909 nottingham openmsx freedoom lieder quartets mutopia groove ewld irish)
declare -A SRC
for c in "${CORPORA[@]}"; do SRC[$c]="$DATA/$c"; done
if [ "$SHARE_ALIKE" = 1 ]; then
  CORPORA+=(pianomidi)
  SRC[pianomidi]="$DATA/pianomidi"
else
  # Mutopia without its CC BY-SA files: links to the others and their
  # metadata (ingestion reads symlinks to regular files).
  SRC[mutopia]="$WORK/corpora/mutopia"
  mkdir -p "${SRC[mutopia]}"
  python3 - "$(cd "$DATA/mutopia" && pwd)" "${SRC[mutopia]}" <<'PY'
import csv, os, sys
src, dst = sys.argv[1], sys.argv[2]
kept = left = 0
for name in ("metadata.csv", "LICENSE.txt"):
    if os.path.exists(os.path.join(src, name)):
        os.symlink(os.path.join(src, name), os.path.join(dst, name))
for row in csv.DictReader(open(os.path.join(src, "metadata.csv"), encoding="utf-8")):
    if "BY-SA" in row["licence"].upper().replace(" ", "-"):
        left += 1
        continue
    os.symlink(os.path.join(src, row["file"]), os.path.join(dst, row["file"]))
    kept += 1
print(f"mutopia: {kept} files kept, {left} CC BY-SA files left out")
PY
fi
for c in "${CORPORA[@]}"; do
  g=()
  [ -n "${GENRE[$c]}" ] && g=(--genre "${GENRE[$c]}")
  bin/amt ingest "${SRC[$c]}" --project model --home "$WORK/home" "${g[@]}"
  bin/amt datasets --project model --home "$WORK/home" --export "$WORK/data/$c" --dataset "$c"
done
bin/amt ingest "$WORK/arranged" --project model --home "$WORK/home"
bin/amt datasets --project model --home "$WORK/home" --export "$WORK/data/arranged" --dataset arranged
# The data card's mixture table (docs/DATA.md), and the flags that make it
# for a trainer run elsewhere (scripts/gpu: EXTRA="$(cat data/mixture.flags)").
"$WORK/trainmodel" --data "$WORK/data" --card --split-seed 1 "${MIX[@]}" | tee "$WORK/card.md"
printf -- '--source-share %s --flat-velocity %s\n' "$SHARES" "$FLAT_VELOCITY" > "$WORK/data/mixture.flags"
if [ "$DATA_ONLY" = 1 ]; then
  echo "token shards in $WORK/data"
  exit 0
fi
"$WORK/trainmodel" --data "$WORK/data" --out "$WORK/run" --preset "$PRESET" --steps "$STEPS" \
  --batch "$BATCH" --context "$CONTEXT" --warmup 100 --val-every 100 --checkpoint-every 100 --key-labels piece "${MIX[@]}" "${DEV[@]}"
final="$WORK/run"
if [ "$STEPS2" -gt 0 ]; then
  # from the first run's float16 export, as the shipped model was
  "$WORK/trainmodel" --export "$WORK/run" --to "$WORK/run-f16"
  "$WORK/trainmodel" --data "$WORK/data" --out "$WORK/run2" --init "$WORK/run-f16" --steps "$STEPS2" \
    --batch "$BATCH" --context "$CONTEXT" --lr 6e-4 --seed 4 --split-seed 1 --warmup 30 --val-every 100 \
    --checkpoint-every 100 --key-labels window --key-frame tonic "${MIX[@]}" "${DEV[@]}"
  final="$WORK/run2"
fi
"$WORK/trainmodel" --export "$final" --to assets/model
$GO build -o bin/amt .
bin/amt eval-model --corpus "$DATA"
