"""Full fine-tuning against low-rank adapters (LoRA) on the same examples
(issue 34), with the repository's reference GPT-2 (cluster/gpt2.py) on
Debian's PyTorch, CPU.

    go run ./scripts/lora/dump --data ../shared/data/irish --out /tmp/irish-b
    /usr/bin/python3 scripts/lora/compare.py --batches /tmp/irish-b --mode full --lr 3e-4
    /usr/bin/python3 scripts/lora/compare.py --batches /tmp/irish-b --mode lora --rank 8 --lr 2e-3

Both modes start from the embedded default model (assets/model), read the
batches scripts/lora/dump wrote (the fine-tune's conditioned examples of
the training pieces, and fixed batches of the held-out pieces), and use the
fine-tune's schedule: AdamW (0.9, 0.95), a short linear warm-up, cosine to
a tenth, clipping at 1. "full" trains every weight (weight decay 0.1 on
matrices and embeddings, as engine/train); "lora" freezes them and trains
W + A B (alpha / rank) on every attention and MLP matrix (A Gaussian, B
zero, so it starts as the base). One JSON line per validation: step,
held-out loss, seconds. docs/MODEL.md, "Fine-tuning", has the figures and
the choice.
"""
import argparse
import json
import math
import os
import sys
import time

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "cluster"))
import gpt2  # noqa: E402
import stfile  # noqa: E402


class LoRA(nn.Module):
    """A frozen Conv1D plus a trainable low-rank update."""

    def __init__(self, base, rank, alpha):
        super().__init__()
        self.base = base
        for p in base.parameters():
            p.requires_grad_(False)
        nin, nout = base.weight.shape
        self.a = nn.Parameter(torch.randn(nin, rank) / math.sqrt(nin))
        self.b = nn.Parameter(torch.zeros(rank, nout))
        self.scale = alpha / rank

    def forward(self, x):
        return self.base(x) + (x @ self.a @ self.b) * self.scale


def load(split, d, B, T):
    inp = np.fromfile(os.path.join(d, split + "_inputs.i32"), dtype="<i4").reshape(-1, B, T)
    tgt = np.fromfile(os.path.join(d, split + "_targets.i32"), dtype="<i4").reshape(-1, B, T)
    return torch.from_numpy(inp.astype(np.int64)), torch.from_numpy(tgt.astype(np.int64))


def loss_of(model, x, y):
    logits = model(x)
    return F.cross_entropy(logits.view(-1, logits.shape[-1]), y.view(-1), ignore_index=-1)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--batches", required=True)
    ap.add_argument("--model", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "assets", "model"))
    ap.add_argument("--mode", choices=["full", "lora"], required=True)
    ap.add_argument("--rank", type=int, default=8)
    ap.add_argument("--alpha", type=float, default=16)
    ap.add_argument("--lr", type=float, default=3e-4)
    ap.add_argument("--warmup", type=int, default=10)
    ap.add_argument("--steps", type=int, default=0, help="0: every training batch once")
    ap.add_argument("--val-every", type=int, default=10)
    ap.add_argument("--threads", type=int, default=2)
    a = ap.parse_args()
    torch.set_num_threads(a.threads)
    torch.manual_seed(1)
    meta = json.load(open(os.path.join(a.batches, "meta.json")))
    B, T = meta["batch"], meta["context"]
    cfg, _ = gpt2.read_config(os.path.join(a.model, "config.json"))
    model = gpt2.GPT2(cfg)
    gpt2.load_tensors(model, cfg, {k: v.float() for k, v in stfile.load(os.path.join(a.model, "model.safetensors"))[0].items()})
    if a.mode == "lora":
        for p in model.parameters():
            p.requires_grad_(False)
        for blk in model.transformer.h:
            blk.attn.c_attn = LoRA(blk.attn.c_attn, a.rank, a.alpha)
            blk.attn.c_proj = LoRA(blk.attn.c_proj, a.rank, a.alpha)
            blk.mlp.c_fc = LoRA(blk.mlp.c_fc, a.rank, a.alpha)
            blk.mlp.c_proj = LoRA(blk.mlp.c_proj, a.rank, a.alpha)
        groups = [{"params": [p for p in model.parameters() if p.requires_grad], "weight_decay": 0.0}]
    else:
        decay = [p for n, p in model.named_parameters() if p.dim() == 2]
        rest = [p for n, p in model.named_parameters() if p.dim() != 2]
        groups = [{"params": decay, "weight_decay": 0.1}, {"params": rest, "weight_decay": 0.0}]
    trainable = sum(p.numel() for g in groups for p in g["params"])
    opt = torch.optim.AdamW(groups, lr=a.lr, betas=(0.9, 0.95), eps=1e-8)
    xs, ys = load("train", a.batches, B, T)
    vx, vy = load("val", a.batches, B, T)
    steps = a.steps or len(xs)

    def lr_at(step):
        if step <= a.warmup:
            return a.lr * step / max(a.warmup, 1)
        r = (step - a.warmup) / max(steps - a.warmup, 1)
        return a.lr / 10 + 0.5 * (a.lr - a.lr / 10) * (1 + math.cos(math.pi * min(r, 1)))

    def validate():
        model.eval()
        with torch.no_grad():
            v = sum(loss_of(model, vx[i], vy[i]).item() for i in range(len(vx))) / len(vx)
        model.train()
        return v

    start = time.time()
    print(json.dumps({"mode": a.mode, "rank": a.rank if a.mode == "lora" else None, "lr": a.lr, "trainable": trainable,
                      "steps": steps, "batch": B, "context": T, "step": 0, "val": validate(), "seconds": 0}), flush=True)
    for step in range(1, steps + 1):
        for g in opt.param_groups:
            g["lr"] = lr_at(step)
        loss = loss_of(model, xs[(step - 1) % len(xs)], ys[(step - 1) % len(xs)])
        opt.zero_grad()
        loss.backward()
        torch.nn.utils.clip_grad_norm_([p for g in groups for p in g["params"]], 1.0)
        opt.step()
        if step % a.val_every == 0 or step == steps:
            print(json.dumps({"step": step, "loss": loss.item(), "val": validate(), "seconds": round(time.time() - start, 1)}), flush=True)


if __name__ == "__main__":
    main()
