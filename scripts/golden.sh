#!/usr/bin/env bash
# The golden set: proof that a change which must not change behaviour (a
# move of code, a merge of two copies into one) did not. Issue 36.
#
#   scripts/golden.sh record DIR [AMT]   run the set with the binary AMT (default bin/amt) into DIR
#   scripts/golden.sh check DIR [AMT]    run it again and compare with DIR: every MIDI file byte for
#                                        byte, every JSON field equal except times (exit 1 on any
#                                        difference, each one listed)
#
# The set: 40 prompts (20 of the explicit suite, 20 of the free-text suite, spread over each file) × seeds
# 1 and 2 through `amt generate --json`; 5 continuations and 5 regenerations of the first five recorded
# pieces (the recorded inputs, so a check continues the same files); with GOLDEN_TWOSAMPLE=1 (the default)
# also the two-sample test's features on selection 1 (`eval-model --two-sample --save`: every generated and
# real piece's 35 features and the classifiers' figures). Outputs are deterministic for a binary, a model and a
# machine (the compact decoding takes the AVX2 path where the CPU has it), so record and check on one machine
# with the same model. About 3 minutes without the two-sample test, 8 with it, on the 2-core VM.
set -euo pipefail
cd "$(dirname "$0")/.."

mode=${1:-}
dir=${2:-}
amt=${3:-bin/amt}
if [[ "$mode" != record && "$mode" != check ]] || [[ -z "$dir" ]]; then
	sed -n '2,16p' "$0" | sed 's/^# \{0,1\}//'
	exit 2
fi
[[ -x "$amt" ]] || { echo "golden: $amt is not an executable (make build)" >&2; exit 2; }

out=$dir
if [[ "$mode" == check ]]; then
	[[ -d "$dir" ]] || { echo "golden: no recorded set at $dir" >&2; exit 2; }
	out=$(mktemp -d "${TMPDIR:-/tmp}/golden-check.XXXXXX")
	trap 'rm -rf "$out"' EXIT
else
	mkdir -p "$dir"
fi

# prompts: every Nth prompt line of a suite (comments and blank lines skipped; the free-text suite's
# expectations after '|' dropped), n of them.
prompts() { # file n
	grep -v '^[[:space:]]*#' "$1" | grep -v '^[[:space:]]*$' | sed 's/[[:space:]]*|.*$//' |
		awk -v n="$2" '{ l[NR] = $0 } END { step = NR / n; for (i = 0; i < n; i++) print l[int(i * step) + 1] }'
}

{ prompts testdata/prompts/suite.txt 20; prompts testdata/prompts/freetext.txt 20; } >"$out/prompts.txt"
if [[ "$mode" == check ]] && ! cmp -s "$out/prompts.txt" "$dir/prompts.txt"; then
	echo "golden: the prompt suites changed since the set was recorded; record it again from the old tree" >&2
	exit 1
fi

i=0
while IFS= read -r p; do
	i=$((i + 1))
	for seed in 1 2; do
		n=$(printf 'p%02d-s%d' "$i" "$seed")
		"$amt" generate "$p" --seed "$seed" -o "$out/$n.mid" --json >"$out/$n.json" 2>"$out/$n.err" || echo "exit $?" >>"$out/$n.err"
	done
done <"$out/prompts.txt"

# continuations and regenerations of the recorded pieces
for i in 1 2 3 4 5; do
	src=$(printf '%s/p%02d-s1.mid' "$dir" "$i")
	[[ -f "$src" ]] || src=$(printf '%s/p%02d-s1.mid' "$out" "$i")
	n=$(printf 'c%02d' "$i")
	"$amt" generate --continue "$src" --bars 4 --seed "$i" -o "$out/$n.mid" --json >"$out/$n.json" 2>"$out/$n.err" || echo "exit $?" >>"$out/$n.err"
	n=$(printf 'r%02d' "$i")
	"$amt" generate --regenerate 3-4 "$src" --seed "$i" -o "$out/$n.mid" --json >"$out/$n.json" 2>"$out/$n.err" || echo "exit $?" >>"$out/$n.err"
done

if [[ "${GOLDEN_TWOSAMPLE:-1}" == 1 ]]; then
	"$amt" eval-model --two-sample --select-seed 1 --save "$out/twosample.json" >"$out/twosample.out" 2>"$out/twosample.err" ||
		echo "exit $?" >>"$out/twosample.err"
fi

[[ "$mode" == record ]] && { echo "golden: recorded $(ls "$dir" | wc -l) files in $dir"; exit 0; }

python3 - "$dir" "$out" <<'EOF'
import json, os, re, sys
want, got = sys.argv[1], sys.argv[2]
# fields that are measurements of time, not behaviour
TIMES = re.compile(r'seconds|secs|elapsed|wall|per_second|(^|_)(ms|time|times|duration_s)$')
bad = []

def walk(a, b, path):
    if isinstance(a, dict) and isinstance(b, dict):
        for k in sorted(set(a) | set(b)):
            if TIMES.search(k):
                continue
            if k not in a or k not in b:
                bad.append(f"{path}.{k}: {'added' if k not in a else 'missing'}")
                continue
            walk(a[k], b[k], f"{path}.{k}")
    elif isinstance(a, list) and isinstance(b, list):
        if len(a) != len(b):
            bad.append(f"{path}: {len(a)} items, now {len(b)}")
        for i, (x, y) in enumerate(zip(a, b)):
            walk(x, y, f"{path}[{i}]")
    elif a != b:
        bad.append(f"{path}: {a!r:.80} -> {b!r:.80}")

names = sorted(n for n in os.listdir(want) if n.endswith(('.mid', '.json', '.err')))
for n in names:
    p, q = os.path.join(want, n), os.path.join(got, n)
    if not os.path.exists(q):
        bad.append(f"{n}: not produced")
        continue
    if n.endswith('.json'):
        try:
            a, b = json.load(open(p)), json.load(open(q))
        except ValueError as e:
            a, b = open(p).read(), open(q).read()
        # the out path differs between the record and the check folder
        for d in (a, b):
            if isinstance(d, dict):
                d.pop('out', None)
        before = len(bad)
        walk(a, b, n)
        del bad[before + 20:]
    elif n.endswith('.err'):
        # what a command printed on stderr, with each run's own folder named alike
        a = open(p).read().replace(want.rstrip('/'), 'DIR')
        b = open(q).read().replace(got.rstrip('/'), 'DIR')
        if a != b:
            bad.append(f"{n}: stderr differs: {a[:120]!r} -> {b[:120]!r}")
    elif open(p, 'rb').read() != open(q, 'rb').read():
        bad.append(f"{n}: bytes differ")
for line in bad:
    print("golden:", line)
print(f"golden: {len(names)} files compared, {len(bad)} differences")
sys.exit(1 if bad else 0)
EOF
