#!/usr/bin/env python3
"""PyTorch-eager baseline for the GPU engine (issue 9).

Trains transformers' GPT2LMHeadModel with the same shapes as our presets
(engine/gpt/config.go) on random tokens and prints tokens/s per preset, the
figure BenchmarkGPUTrainSmall/Base of engine/nn/cuda is compared with in the
same session on the same GPU:

    python3 scripts/bench_pytorch_gpt2.py --presets small base --batch 16 --context 1024

Eager mode (no torch.compile), AdamW (fused=False, foreach default), fp32
master weights; --amp bf16 wraps forward+loss in torch.autocast(bfloat16),
matching our default bf16 products; --tf32 allows TF32 matmuls. One JSON line
per preset: {"preset", "params", "batch", "context", "tokens_per_second",
"ms_per_step", "peak_mem_mib", "amp", "torch", "gpu"}.
"""
import argparse
import json
import time

import torch
from transformers import GPT2Config, GPT2LMHeadModel

PRESETS = {  # n_layer, n_head, n_embd; n_positions 1024 (engine/gpt presets)
    "tiny": (2, 2, 32),
    "small": (4, 4, 256),
    "base": (8, 8, 512),
}


def bench(preset, args):
    nl, nh, ne = PRESETS[preset]
    cfg = GPT2Config(vocab_size=args.vocab, n_positions=1024, n_embd=ne, n_layer=nl, n_head=nh,
                     activation_function="gelu_new", resid_pdrop=0.0, embd_pdrop=0.0, attn_pdrop=0.0,
                     layer_norm_epsilon=1e-5, tie_word_embeddings=True)
    dev = torch.device("cuda")
    model = GPT2LMHeadModel(cfg).to(dev)
    model.train()
    params = sum(p.numel() for p in model.parameters())
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4, betas=(0.9, 0.95), eps=1e-8, weight_decay=0.1)
    B, T = args.batch, args.context
    g = torch.Generator(device=dev).manual_seed(1)
    x = torch.randint(0, args.vocab, (B, T + 1), device=dev, generator=g)
    inp, tgt = x[:, :-1].contiguous(), x[:, 1:].contiguous()

    def step():
        opt.zero_grad(set_to_none=True)
        if args.amp == "bf16":
            with torch.autocast("cuda", dtype=torch.bfloat16):
                logits = model(inp).logits
                loss = torch.nn.functional.cross_entropy(logits.float().view(-1, args.vocab), tgt.view(-1))
        else:
            logits = model(inp).logits
            loss = torch.nn.functional.cross_entropy(logits.view(-1, args.vocab), tgt.view(-1))
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        return loss

    for _ in range(args.warmup):
        step()
    torch.cuda.synchronize()
    torch.cuda.reset_peak_memory_stats()
    t0 = time.perf_counter()
    for _ in range(args.steps):
        step()
    torch.cuda.synchronize()
    dt = time.perf_counter() - t0
    print(json.dumps({
        "preset": preset, "params": params, "batch": B, "context": T,
        "tokens_per_second": B * T * args.steps / dt, "ms_per_step": 1000 * dt / args.steps,
        "peak_mem_mib": torch.cuda.max_memory_allocated() / 2**20, "amp": args.amp, "tf32": args.tf32,
        "torch": torch.__version__, "gpu": torch.cuda.get_device_name(),
    }), flush=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--presets", nargs="+", default=["small", "base"], choices=sorted(PRESETS))
    ap.add_argument("--batch", type=int, default=16)
    ap.add_argument("--context", type=int, default=1024)
    ap.add_argument("--vocab", type=int, default=1030, help="token.DefaultVocab().Size() (engine/gpt benchVocab)")
    ap.add_argument("--steps", type=int, default=30)
    ap.add_argument("--warmup", type=int, default=5)
    ap.add_argument("--amp", choices=["bf16", "none"], default="bf16")
    ap.add_argument("--tf32", action="store_true")
    args = ap.parse_args()
    torch.backends.cuda.matmul.allow_tf32 = args.tf32
    torch.backends.cudnn.allow_tf32 = args.tf32
    for p in args.presets:
        bench(p, args)


if __name__ == "__main__":
    main()
