#!/usr/bin/env python3
"""Logits of a model folder on given tokens, for checking that a model
trained here and loaded by amt computes the same thing.

    python3 cluster/logits.py --model MODEL_DIR --tokens 1,17,3,... --out logits.safetensors

The folder (config.json + model.safetensors, as cluster/train.py or amt
write it) is read from the files, not from a checkpoint; the output holds
input_ids (1,T) and logits (1,T,V) as F32.
"""
import argparse
import os
import sys

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gpt2  # noqa: E402
import stfile  # noqa: E402


def load_model(directory, impl="own"):
    cfg, _ = gpt2.read_config(os.path.join(directory, "config.json"))
    tensors, _ = stfile.load(os.path.join(directory, "model.safetensors"))
    model = gpt2.build(cfg, impl)
    gpt2.load_tensors(model, cfg, tensors)
    return model.eval(), cfg


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--model", required=True)
    p.add_argument("--tokens", required=True, help="comma-separated token ids")
    p.add_argument("--out", required=True)
    p.add_argument("--impl", default="own", choices=["auto", "transformers", "own"])
    a = p.parse_args(argv)
    model, cfg = load_model(a.model, a.impl)
    ids = torch.tensor([[int(t) for t in a.tokens.split(",")]], dtype=torch.int64)
    if ids.numel() == 0 or ids.max() >= cfg["vocab_size"] or ids.min() < 0:
        raise SystemExit("logits: tokens must lie in 0..%d" % (cfg["vocab_size"] - 1))
    with torch.no_grad():
        logits = gpt2.logits_of(model(ids)).float()
    stfile.save(a.out, {"input_ids": ids.float(), "logits": logits})
    return 0


if __name__ == "__main__":
    sys.exit(main())
