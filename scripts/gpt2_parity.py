#!/usr/bin/env python3
"""Parity fixture for engine/gpt against Hugging Face transformers.

Builds a tiny GPT2LMHeadModel with seeded random weights (biases and layer
norms randomised too, so every gradient is exercised), runs one forward and
backward on seeded token ids with labels = input ids, and writes

  engine/gpt/testdata/parity/model/{config.json,model.safetensors}
  engine/gpt/testdata/parity/expected.safetensors
      input_ids (B,T) as F32, logits (B,T,V), loss (1), grad.<HF name> …

engine/gpt's TestParityWithTransformers compares against these when present.
Run on a machine with PyTorch and transformers:

  pip install torch transformers safetensors
  python3 scripts/gpt2_parity.py
"""
import os

import torch
from safetensors.torch import save_file
from transformers import GPT2Config, GPT2LMHeadModel

OUT = os.path.join(os.path.dirname(__file__), "..", "engine", "gpt", "testdata", "parity")
B, T = 2, 12

torch.manual_seed(1234)
cfg = GPT2Config(n_layer=2, n_head=2, n_embd=32, n_positions=128, vocab_size=57,
                 layer_norm_epsilon=1e-5, activation_function="gelu_new",
                 resid_pdrop=0.0, embd_pdrop=0.0, attn_pdrop=0.0, tie_word_embeddings=True,
                 bos_token_id=1, eos_token_id=2)
model = GPT2LMHeadModel(cfg).float()
with torch.no_grad():
    for name, p in model.named_parameters():
        if p.dim() == 1:
            p.add_(0.1 * torch.randn_like(p))
        else:
            p.normal_(0.0, 0.06)
model.train()  # dropout is 0, so train mode only enables gradients
ids = torch.randint(0, cfg.vocab_size, (B, T))
out = model(input_ids=ids, labels=ids)
out.loss.backward()

os.makedirs(os.path.join(OUT, "model"), exist_ok=True)
model.save_pretrained(os.path.join(OUT, "model"), safe_serialization=True)
tensors = {
    "input_ids": ids.float().contiguous(),
    "logits": out.logits.detach().float().contiguous(),
    "loss": out.loss.detach().reshape(1).float(),
}
for name, p in model.named_parameters():
    if p.grad is not None:
        tensors["grad." + name] = p.grad.detach().float().contiguous()
save_file(tensors, os.path.join(OUT, "expected.safetensors"))
print("loss", out.loss.item(), "written to", os.path.abspath(OUT))
