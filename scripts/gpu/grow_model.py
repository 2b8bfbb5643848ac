#!/usr/bin/python3
"""Grow a trained model to a larger shape for timing (docs/BENCHMARKS.md,
"The next default model's size"): the new shape's cost per token with the
shipped model's workload (its tokens per 16 bars), without training it.

    grow_model.py SRC DST --layers L --width W

Layers beyond SRC's are identities (their two output projections and biases
zero, so the residual stream passes unchanged; the other weights are a copy
of the last layer's so the products are real work). A width of 2x SRC's is
exact: the residual stream is [h, h], every product takes half of each copy,
heads and MLP units are duplicated, ln_f halves, so the logits are SRC's
(up to rounding). Any other wider width pads the stream with zeros and
scales the layer norms by sqrt(W_src/W) to keep their output near SRC's: an
approximation (the mean of a padded row moves), so such a model writes about,
not exactly, SRC's tokens; the timing table reports the tokens each wrote.
Head size stays 64 (n_head = W/64): what the GPU's tensor-core attention
takes. float16 safetensors in and out; numpy only.
"""
import argparse
import json
import os
import shutil
import struct

import numpy as np


def read_st(path):
    with open(path, "rb") as f:
        n = struct.unpack("<Q", f.read(8))[0]
        head = json.loads(f.read(n))
        blob = f.read()
    out = {}
    for k, v in head.items():
        if k == "__metadata__":
            continue
        assert v["dtype"] == "F16", (path, k, v["dtype"])
        a, b = v["data_offsets"]
        out[k] = np.frombuffer(blob[a:b], dtype=np.float16).reshape(v["shape"]).astype(np.float32)
    return out


def write_st(path, tensors):
    head, off, parts = {"__metadata__": {"format": "pt"}}, 0, []
    for k in sorted(tensors):
        b = np.ascontiguousarray(tensors[k].astype(np.float16)).tobytes()
        head[k] = {"dtype": "F16", "shape": list(tensors[k].shape), "data_offsets": [off, off + len(b)]}
        parts.append(b)
        off += len(b)
    hb = json.dumps(head, separators=(",", ":")).encode()
    hb += b" " * (-len(hb) % 8)
    tmp = path + ".tmp"
    with open(tmp, "wb") as f:
        f.write(struct.pack("<Q", len(hb)) + hb + b"".join(parts))
    os.replace(tmp, path)


def widen_double(t, L, C):
    """Exact: residual [h, h]."""
    o = {}
    dup = lambda v: np.concatenate([v, v], axis=-1)
    o["transformer.wte.weight"] = dup(t["transformer.wte.weight"])
    o["transformer.wpe.weight"] = dup(t["transformer.wpe.weight"])
    o["transformer.ln_f.weight"] = dup(t["transformer.ln_f.weight"]) / 2
    o["transformer.ln_f.bias"] = dup(t["transformer.ln_f.bias"]) / 2
    for i in range(L):
        p = f"transformer.h.{i}."
        for ln in ("ln_1", "ln_2"):
            o[p + ln + ".weight"] = dup(t[p + ln + ".weight"])
            o[p + ln + ".bias"] = dup(t[p + ln + ".bias"])
        w, b = t[p + "attn.c_attn.weight"], t[p + "attn.c_attn.bias"]  # (C, 3C)
        cols, bias = [], []
        for part in range(3):  # q, k, v: heads 1..H then their copies
            cols.append(dup(w[:, part * C:(part + 1) * C]))
            bias.append(dup(b[part * C:(part + 1) * C]))
        wq = np.concatenate(cols, axis=1)  # (C, 6C)
        o[p + "attn.c_attn.weight"] = np.concatenate([wq, wq], axis=0) / 2
        o[p + "attn.c_attn.bias"] = np.concatenate(bias)
        for proj in ("attn.c_proj", "mlp.c_proj"):
            w = t[p + proj + ".weight"]
            half = dup(w) / 2
            o[p + proj + ".weight"] = np.concatenate([half, half], axis=0)
            o[p + proj + ".bias"] = dup(t[p + proj + ".bias"])
        w = t[p + "mlp.c_fc.weight"]
        half = dup(w) / 2
        o[p + "mlp.c_fc.weight"] = np.concatenate([half, half], axis=0)
        o[p + "mlp.c_fc.bias"] = dup(t[p + "mlp.c_fc.bias"])
    return o


def widen_pad(t, L, C, W):
    """Approximate: residual [h, 0], layer norms scaled by sqrt(C/W)."""
    o, s = {}, np.sqrt(C / W)

    def pad(v, n, axis=-1):
        shape = list(v.shape)
        shape[axis] = n - shape[axis]
        return np.concatenate([v, np.zeros(shape, np.float32)], axis=axis)

    o["transformer.wte.weight"] = pad(t["transformer.wte.weight"], W)
    o["transformer.wpe.weight"] = pad(t["transformer.wpe.weight"], W)
    o["transformer.ln_f.weight"] = pad(t["transformer.ln_f.weight"] * s, W)
    o["transformer.ln_f.bias"] = pad(t["transformer.ln_f.bias"], W)
    for i in range(L):
        p = f"transformer.h.{i}."
        for ln in ("ln_1", "ln_2"):
            o[p + ln + ".weight"] = pad(t[p + ln + ".weight"] * s, W)
            o[p + ln + ".bias"] = pad(t[p + ln + ".bias"], W)
        w, b = t[p + "attn.c_attn.weight"], t[p + "attn.c_attn.bias"]
        cols, bias = [], []
        for part in range(3):  # the old heads first, new heads zero
            cols.append(pad(w[:, part * C:(part + 1) * C], W, axis=1))
            bias.append(pad(b[part * C:(part + 1) * C], W))
        o[p + "attn.c_attn.weight"] = pad(np.concatenate(cols, axis=1), W, axis=0)
        o[p + "attn.c_attn.bias"] = np.concatenate(bias)
        for proj in ("attn.c_proj", "mlp.c_proj"):
            w = t[p + proj + ".weight"]
            o[p + proj + ".weight"] = pad(pad(w, W, axis=1), w.shape[0] * W // C, axis=0)
            o[p + proj + ".bias"] = pad(t[p + proj + ".bias"], W)
        w = t[p + "mlp.c_fc.weight"]
        o[p + "mlp.c_fc.weight"] = pad(pad(w, 4 * W, axis=1), W, axis=0)
        o[p + "mlp.c_fc.bias"] = pad(t[p + "mlp.c_fc.bias"], 4 * W)
    return o


def deepen(t, L, NL):
    last = L - 1
    for i in range(L, NL):
        for k in [k for k in t if k.startswith(f"transformer.h.{last}.")]:
            nk = k.replace(f"transformer.h.{last}.", f"transformer.h.{i}.", 1)
            v = t[k].copy()
            if ".c_proj." in k:
                v[:] = 0  # identity: nothing added to the residual stream
            t[nk] = v
    return t


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("src")
    ap.add_argument("dst")
    ap.add_argument("--layers", type=int, required=True)
    ap.add_argument("--width", type=int, required=True)
    a = ap.parse_args()
    cfg = json.load(open(os.path.join(a.src, "config.json")))
    L, C = cfg["n_layer"], cfg["n_embd"]
    if a.layers < L or a.width < C or a.width % 64:
        raise SystemExit(f"grow_model: {a.layers}x{a.width}: want at least {L}x{C}, width a multiple of 64")
    t = read_st(os.path.join(a.src, "model.safetensors"))
    if a.width == 2 * C:
        t = widen_double(t, L, C)
    elif a.width != C:
        t = widen_pad(t, L, C, a.width)
    t = deepen(t, L, a.layers)
    os.makedirs(a.dst, exist_ok=True)
    cfg.update(n_layer=a.layers, n_embd=a.width, n_head=a.width // 64)
    with open(os.path.join(a.dst, "config.json"), "w") as f:
        json.dump(cfg, f, indent=2)
    shutil.copy(os.path.join(a.src, "vocab.json"), os.path.join(a.dst, "vocab.json"))
    write_st(os.path.join(a.dst, "model.safetensors"), t)
    n = sum(v.size for v in t.values())
    print(f"{a.dst}: {a.layers} layers x {a.width} ({a.width // 64} heads), {n / 1e6:.2f} M parameters")


if __name__ == "__main__":
    main()
