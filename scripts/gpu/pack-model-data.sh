#!/usr/bin/env bash
# Pack what a GPU machine needs to train the next default model in one call
# (docs/GPU.md, "Training the default model on a GPU") into one folder to
# carry. The device tool carries the working tree and the carried folders,
# 64 MiB in all, so everything goes as xz, and the script fails when the
# folder and the tree together pass LIMIT_MB (60):
#   OUT/trainmodel-gpu.xz   scripts/gpu/build-trainmodel.sh's binary (libc only)
#   OUT/data.tar.xz         the token shards of make model's data
#                           (scripts/make_model.sh --data-only: the eleven
#                           corpora and the arranged one) with its
#                           mixture.flags (the --source-share and
#                           --flat-velocity of make model)
#   OUT/model0/             the weights to start from, only for INIT=DIR other
#                           than assets/model: the tree's assets/model travels
#                           anyway and is the script's default start
#   OUT/amt-cli.xz, OUT/lib/libasound.so.2, OUT/corpora.tar.xz
#                           (EVAL=1, the default) amt without the window and
#                           the real corpora of the two-sample test
#                           (EVAL_CORPORA; with REFS only the pieces the
#                           two selections chose), to test the model there
#   OUT/ref-ts1.json, OUT/ref-ts2.json
#                           (REFS=DIR holding ts1.json and ts2.json) the
#                           starting model's two-sample reports on selections
#                           1 and 2, made by an amt of the same commit, which
#                           the script compares with the new model's
#   OUT/train-default-model.sh, OUT/grow_model.py  the script to run there and
#                           its growth of the starting model to the new size
#   scripts/gpu/pack-model-data.sh [OUT]     (default bin/gpu)
# SHARDS=DIR packs shards exported before (default: make_model.sh
# --data-only's $AMT_MODEL_WORK/data, built when absent: ingestion of
# ../shared/data, about an hour on two cores with the arranged corpus).
set -euo pipefail
cd "$(dirname "$0")/../.."
out=${1:-bin/gpu}
limit=${LIMIT_MB:-60}
rm -rf "$out"
mkdir -p "$out"
scripts/gpu/build-trainmodel.sh "$out/trainmodel-gpu"
xz -T0 -9 -f "$out/trainmodel-gpu"
shards=${SHARDS:-${AMT_MODEL_WORK:-/tmp/amt-model}/data}
if [ -z "${SHARDS:-}" ] && [ ! -f "$shards/mixture.flags" ]; then
  scripts/make_model.sh --data-only
fi
[ -d "$shards" ] || { echo "pack-model-data: no shards folder $shards" >&2; exit 1; }
n=$(find "$shards" -name '*.bin' | wc -l)
[ "$n" -gt 0 ] || { echo "pack-model-data: no token shards (NAME.bin/NAME.idx) under $shards" >&2; exit 1; }
[ -f "$shards/mixture.flags" ] || echo "pack-model-data: $shards has no mixture.flags: the run trains on the natural mixture" >&2
tar -C "$(dirname "$shards")" -cf - --transform "s,^$(basename "$shards"),data," "$(basename "$shards")" | xz -T0 -9 > "$out/data.tar.xz"
init=${INIT:-assets/model}
if [ "$init" != none ] && [ "$(realpath "$init")" != "$(realpath assets/model)" ]; then
  mkdir -p "$out/model0"
  cp "$init"/config.json "$init"/vocab.json "$init"/model.safetensors "$out/model0/"
fi
if [ "${EVAL:-1}" = 1 ]; then
  ALLOW=libasound scripts/build_static.sh ./scripts/gpu/amt-cli "$out/amt-cli"
  mkdir -p "$out/lib"
  cp -L "$(ldd "$out/amt-cli" | awk '/libasound/ {print $3}')" "$out/lib/libasound.so.2"
  xz -T0 -9 -f "$out/amt-cli"
  data=${AMT_SHARED_DATA:-../shared/data}
  if [ -n "${REFS:-}" ]; then
    cp "$REFS/ts1.json" "$out/ref-ts1.json"
    cp "$REFS/ts2.json" "$out/ref-ts2.json"
    # Only the real pieces the two selections chose: the test orders a
    # group's files by a hash of (seed, corpus/file) and takes the first
    # that hold a full excerpt, so among these files it chooses the same.
    python3 -c 'import json, sys; print("\n".join(sorted({p["file"] for f in sys.argv[1:] for p in json.load(open(f))["pieces"]})))' \
      "$out/ref-ts1.json" "$out/ref-ts2.json" > "$out/corpora.txt"
    tar -C "$data" -cf - -T "$out/corpora.txt" | xz -T0 -9 > "$out/corpora.tar.xz"
    rm "$out/corpora.txt"
  else
    tar -C "$data" -cf - ${EVAL_CORPORA:-pop909 nottingham openmsx freedoom} | xz -T0 -9 > "$out/corpora.tar.xz"
  fi
fi
cp scripts/gpu/train-default-model.sh scripts/gpu/grow_model.py "$out/"
git rev-parse HEAD > "$out/commit.txt"
git status --short | grep -v '^??' >> "$out/commit.txt" || true
packed=$(du -sm "$out" | cut -f1)
tree=$(($(git ls-files -z -co --exclude-standard | du -cb --files0-from=- 2> /dev/null | tail -1 | cut -f1) / 1048576))
echo "packed $out: $packed MiB ($n shards from $shards), the working tree $tree MiB: $((packed + tree)) MiB of the device tool's 64" >&2
ls -la "$out" >&2
if [ $((packed + tree)) -gt "$limit" ]; then
  echo "pack-model-data: $((packed + tree)) MiB with the tree: over LIMIT_MB=$limit" >&2
  exit 1
fi
