#!/usr/bin/env bash
# The next default model's size by measurement (issue 35, docs/BENCHMARKS.md,
# "The next default model's size"): the whole process of `amt generate` for
# 16 bars with the default decoding (compact, up to 6 candidates side by
# side, the default levers), for the shipped model and for larger shapes made
# from it by scripts/gpu/grow_model.py (so every shape writes the shipped
# model's tokens: exactly for a deeper or twice as wide model, about for
# other widths). Shapes, prompts (PROMPTS of the suite, spread evenly over it)
# and rounds are interleaved, so the machine's load reaches every shape
# alike; compare each shape with the shipped model's time in the same run.
#   scripts/gpu/size-16bars.sh [OUT]    (default /tmp/amt-size)
#   AMT=bin/amt SHAPES="6x256 8x256 6x384 8x384 6x512 8x512" PROMPTS=8 STRIDE ROUNDS=2
# On a shared machine with the kernel's autogroups (sched_autogroup_enabled)
# nice does not reach other sessions' work, which shares the cores by
# session: `AUTOGROUP_NICE=-10 setsid scripts/gpu/size-16bars.sh` gives this
# run's session the cores for its minutes, as a quiet machine would.
# Writes OUT/runs.jsonl (one line a run) and prints the table.
set -euo pipefail
cd "$(dirname "$0")/../.."
out=${1:-/tmp/amt-size}
[ -n "${AUTOGROUP_NICE:-}" ] && echo "$AUTOGROUP_NICE" > /proc/self/autogroup && echo "$(cat /proc/self/autogroup)" >&2
amt=${AMT:-bin/amt}
shapes=(4x256 ${SHAPES:-6x256 8x256 6x384 8x384 6x512 8x512})
mkdir -p "$out"
[ -x "$amt" ] || go build -o "$amt" .
for s in "${shapes[@]}"; do
  [ -f "$out/m$s/model.safetensors" ] && continue
  if [ "$s" = 4x256 ]; then mkdir -p "$out/m$s"; cp assets/model/* "$out/m$s/"; continue; fi
  scripts/gpu/grow_model.py assets/model "$out/m$s" --layers "${s%x*}" --width "${s#*x}"
done
# PROMPTS prompts of the suite, spread evenly over it (STRIDE=1: its first ones)
mapfile -t all < <(grep -v '^#' testdata/prompts/suite.txt | grep -v '^[[:space:]]*$')
stride=${STRIDE:-$((${#all[@]} / ${PROMPTS:-8}))}
prompts=()
for ((i = 0; i < ${#all[@]} && ${#prompts[@]} < ${PROMPTS:-8}; i += stride)); do prompts+=("${all[$i]}"); done
: > "$out/runs.jsonl"
for r in $(seq 1 "${ROUNDS:-2}"); do
  for i in "${!prompts[@]}"; do
    # rotate the order of the shapes by prompt and round
    n=${#shapes[@]}
    for k in $(seq 0 $((n - 1))); do
      s=${shapes[$(((k + i + r) % n))]}
      /usr/bin/time -f '%e %U %S %M' -o "$out/time.txt" "$amt" generate "${prompts[$i]}" --model "$out/m$s" \
        --bars 16 --seed "$r" -o "$out/x.mid" --json > "$out/gen.json" 2> "$out/gen.err" || { cat "$out/gen.err" >&2; exit 1; }
      python3 - "$s" "$r" "$i" "$out" >> "$out/runs.jsonl" <<'PY'
import json, sys
s, r, i, out = sys.argv[1:]
g = json.load(open(out + "/gen.json"))
wall, user, sys_, rss = open(out + "/time.txt").read().split()[-4:]
print(json.dumps({"shape": s, "round": int(r), "prompt": int(i), "wall": float(wall), "cpu": float(user) + float(sys_),
                  "rss_kb": int(rss), "gen_s": g["seconds"], "tokens": g["tokens"], "sampled": round(g["tokens_per_second"] * g["seconds"]), "candidates": g["candidates"],
                  "bars": g["measured"]["bars"]}))
PY
    done
  done
  echo "round $r done: $(uptime)" >&2
done
python3 - "$out/runs.jsonl" <<'PY'
import json, statistics as st, sys
runs = [json.loads(l) for l in open(sys.argv[1])]
shapes = list(dict.fromkeys(r["shape"] for r in runs))
base = {(r["round"], r["prompt"]): r for r in runs if r["shape"] == "4x256"}
print("| shape | pieces | whole process, s a piece: mean / median / max | over 1.5 s | CPU s a piece | ratio to 4x256 (sum of walls) | tokens kept / sampled a piece | candidates | peak RSS MB |")
print("|---|---|---|---|---|---|---|---|---|")
for s in shapes:
    R = [r for r in runs if r["shape"] == s]
    w = [r["wall"] for r in R]
    ratio = sum(w) / sum(base[(r["round"], r["prompt"])]["wall"] for r in R)
    print(f"| {s} | {len(R)} | {st.mean(w):.2f} / {st.median(w):.2f} / {max(w):.2f} | {sum(x > 1.5 for x in w)} | {st.mean(r['cpu'] for r in R):.2f} | {ratio:.2f} | "
          f"{st.mean(r['tokens'] for r in R):.0f} / {st.mean(r['sampled'] for r in R):.0f} | {st.mean(r['candidates'] for r in R):.2f} | {max(r['rss_kb'] for r in R) / 1024:.0f} |")
PY
