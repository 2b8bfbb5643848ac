#!/usr/bin/env python3
"""Summarise an Nsight Compute CSV (ncu --metrics gpu__time_duration.sum --csv
--page raw --print-units base) per kernel: launches, total ms, share of the
GPU time; and the shares of attention (fa_*, attn_*), cuBLAS products,
f32->bf16 conversions and the rest (issue 26: attention <= 40%).

    python3 ncu_summary.py ncu.csv
"""
import csv
import re
import sys
from collections import defaultdict


def group(name):
    if name.startswith(("fa_", "attn_")):
        return "attention"
    if name == "f32_to_bf16":
        return "f32->bf16 conversions"
    if re.search(r"gemm|nvjet|cutlass|sm\d\d_xmma|ampere_|hopper_|cublas", name, re.I):
        return "cuBLAS products"
    if name.startswith("dec_"):
        return "decoding"
    return "other kernels"


def main(path):
    rows = list(csv.reader(open(path, newline="", errors="replace")))
    head = None
    for i, r in enumerate(rows):
        if "Kernel Name" in r and any("gpu__time_duration" in c for c in r):
            head = i
            break
    if head is None:
        sys.exit(f"{path}: no header with 'Kernel Name' and gpu__time_duration")
    cols = rows[head]
    kn = cols.index("Kernel Name")
    tm = next(i for i, c in enumerate(cols) if "gpu__time_duration" in c)
    per = defaultdict(lambda: [0, 0.0])
    for r in rows[head + 1:]:
        if len(r) <= max(kn, tm):
            continue
        try:
            ns = float(r[tm].replace(",", ""))
        except ValueError:
            continue  # the units row
        name = re.sub(r"\(.*", "", r[kn]).strip()
        name = re.sub(r"^void\s+", "", name)
        per[name][0] += 1
        per[name][1] += ns
    total = sum(v[1] for v in per.values())
    if total == 0:
        sys.exit(f"{path}: no kernel times")
    print(f"{sum(v[0] for v in per.values())} kernels, {total / 1e6:.2f} ms of GPU time")
    print(f"{'kernel':48s} {'launches':>8s} {'ms':>9s} {'share':>7s}")
    for name, (n, ns) in sorted(per.items(), key=lambda kv: -kv[1][1])[:30]:
        print(f"{name[:48]:48s} {n:8d} {ns / 1e6:9.3f} {100 * ns / total:6.1f}%")
    groups = defaultdict(float)
    for name, (n, ns) in per.items():
        groups[group(name)] += ns
    print()
    for g, ns in sorted(groups.items(), key=lambda kv: -kv[1]):
        print(f"{g:24s} {ns / 1e6:9.3f} ms {100 * ns / total:6.1f}%")
    att = 100 * groups["attention"] / total
    print(f"\nattention share of the GPU time: {att:.1f}% (issue 26 floor: <= 40%)")


if __name__ == "__main__":
    main(sys.argv[1])
