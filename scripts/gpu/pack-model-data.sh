#!/usr/bin/env bash
# Pack what a GPU machine needs to train the default model (docs/GPU.md,
# "Training the default model on a GPU") into one folder to carry (64 MiB in
# all for the device tool, so everything goes as xz):
#   OUT/trainmodel-gpu.xz   scripts/gpu/build-trainmodel.sh's binary (libc only)
#   OUT/data.tar.xz         the token shards of make model's five corpora
#                           (POP909, Nottingham, OpenMSX, Freedoom, the
#                           arranged corpus: 155 MB, about 18 MB as xz)
#   OUT/model0/             the weights to start from (default: assets/model,
#                           as make model's second run starts from its first)
#   OUT/train-default-model.sh  the script to run there
#   scripts/gpu/pack-model-data.sh [OUT]     (default bin/gpu)
# The shards come from scripts/make_model.sh --data-only (ingestion of
# ../shared/data into $AMT_MODEL_WORK, default /tmp/amt-model; ~15 min on
# two cores the first time, the arranged corpus is kept); set SHARDS=DIR to
# pack shards exported before instead, INIT=DIR for other starting weights
# (INIT=none: start from a fresh initialization).
set -euo pipefail
cd "$(dirname "$0")/../.."
out=${1:-bin/gpu}
mkdir -p "$out"
scripts/gpu/build-trainmodel.sh "$out/trainmodel-gpu"
xz -T0 -9 -f "$out/trainmodel-gpu"
shards=${SHARDS:-}
if [ -z "$shards" ]; then
  scripts/make_model.sh --data-only
  shards=${AMT_MODEL_WORK:-/tmp/amt-model}/data
fi
[ -d "$shards" ] || { echo "pack-model-data: no shards folder $shards" >&2; exit 1; }
n=$(find "$shards" -name '*.bin' | wc -l)
[ "$n" -gt 0 ] || { echo "pack-model-data: no token shards (NAME.bin/NAME.idx) under $shards" >&2; exit 1; }
tar -C "$(dirname "$shards")" -cf - --transform "s,^$(basename "$shards"),data," "$(basename "$shards")" | xz -T0 -9 > "$out/data.tar.xz"
rm -rf "$out/model0"
init=${INIT:-assets/model}
if [ "$init" != none ]; then
  mkdir -p "$out/model0"
  cp "$init"/config.json "$init"/vocab.json "$init"/model.safetensors "$out/model0/"
fi
cp scripts/gpu/train-default-model.sh "$out/"
echo "packed $out: $(du -sh "$out" | cut -f1) ($n shards from $shards)" >&2
ls -la "$out" >&2
