#!/usr/bin/env python3
"""Parity fixture of engine/gpt and engine/train against PyTorch (the llm.c
test_gpt2 way).

Builds a tiny GPT-2 with seeded random weights (biases and layer norms
randomised too, so every gradient is exercised): cluster/gpt2.py's model, or
transformers' GPT2LMHeadModel with --impl transformers (same tensor names).
It runs one forward and backward on seeded token ids with next-token targets
(the last positions of the second row have none, as padded examples), then
ten training steps on that batch with cluster/train.py's optimizer
(engine/train's warm-up + cosine schedule, global-norm clipping, AdamW with
weight decay on matrices and embeddings). It writes

  engine/gpt/testdata/parity/model/{config.json,model.safetensors,vocab.json?}
  engine/gpt/testdata/parity/expected.safetensors
      input_ids (B,T), targets (B,T; -1: none), logits (B,T,V), loss (1),
      grad.<HF name> for every parameter, losses (10): the loss before each
      of the ten steps; __metadata__: the hyper-parameters and versions.

engine/gpt's parity tests compare against these. Regenerate with Debian's
python3-torch (no transformers needed):

  /usr/bin/python3 scripts/gpt2_parity.py
"""
import argparse
import json
import os
import sys
import types

import torch
import torch.nn.functional as F

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
sys.path.insert(0, os.path.join(ROOT, "cluster"))
import gpt2  # noqa: E402
import stfile  # noqa: E402
import train as trainer  # noqa: E402

OUT = os.path.join(ROOT, "engine", "gpt", "testdata", "parity")
B, T = 2, 16
CFG = dict(n_layer=2, n_head=2, n_embd=32, n_positions=32, vocab_size=57, layer_norm_epsilon=1e-5,
           bos_token_id=1, eos_token_id=2)
# The run of the ten steps, in cluster/train.py's argument names.
RUN = dict(steps=10, lr=1e-2, min_lr=1e-3, warmup=2, weight_decay=0.1, beta1=0.9, beta2=0.95, eps=1e-8, clip=1.3)


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--impl", default="own", choices=["own", "transformers"])
    p.add_argument("--out", default=OUT)
    a = p.parse_args()
    torch.manual_seed(1234)
    model = gpt2.build(CFG, a.impl).float()
    with torch.no_grad():
        for _, prm in model.named_parameters():
            if prm.dim() == 1:
                prm.add_(0.1 * torch.randn_like(prm))
            else:
                prm.normal_(0.0, 0.06)
    model.train()  # no dropout: train mode only matters for transformers' flags
    seq = torch.randint(0, CFG["vocab_size"], (B, T + 1))
    ids, targets = seq[:, :T].contiguous(), seq[:, 1:].clone()
    targets[1, T - 3:] = -1

    def loss_of():
        logits = gpt2.logits_of(model(ids))
        return logits, F.cross_entropy(logits.reshape(-1, logits.shape[-1]), targets.reshape(-1), ignore_index=-1)

    logits, loss = loss_of()
    loss.backward()
    named = gpt2.named_tensors(model, CFG)
    tensors = {"input_ids": ids.float(), "targets": targets.float(), "logits": logits.detach().float(),
               "loss": loss.detach().reshape(1).float()}
    params = dict(getattr(model, "module", model).named_parameters())
    for name in named:
        tensors["grad." + name] = params[name].grad.detach().float().clone()

    # Save the weights before training (the fixture's model).
    os.makedirs(os.path.join(a.out, "model"), exist_ok=True)
    stfile.save(os.path.join(a.out, "model", "model.safetensors"), {k: v.clone() for k, v in named.items()}, {"format": "pt"})
    with open(os.path.join(a.out, "model", "config.json"), "w") as f:
        f.write(json.dumps(gpt2.hf_config(CFG), indent=2) + "\n")

    # Ten steps as cluster/train.py takes them.
    run = types.SimpleNamespace(**RUN)
    opt = trainer.make_optimizer(model, run)
    plist = list(model.parameters())
    losses, norms = [], []
    for step in range(1, run.steps + 1):
        opt.zero_grad(set_to_none=True)
        _, l = loss_of()
        l.backward()
        losses.append(float(l))
        norms.append(trainer.clip_gradients(plist, run.clip))
        for g in opt.param_groups:
            g["lr"] = trainer.lr_at(step, run)
        opt.step()
    tensors["losses"] = torch.tensor(losses)
    meta = {"impl": gpt2.impl_name(model), "torch": torch.__version__, "run": json.dumps(RUN),
            "grad_norms": json.dumps(norms)}
    stfile.save(os.path.join(a.out, "expected.safetensors"), tensors, meta)
    print("loss %.6f; ten losses %s; norms %s; written to %s" % (
        float(loss), " ".join("%.4f" % x for x in losses), " ".join("%.3f" % x for x in norms), os.path.abspath(a.out)))


if __name__ == "__main__":
    main()
