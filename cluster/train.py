#!/usr/bin/env python3
"""Train AMT Studio's music model on a cluster with PyTorch DDP.

    torchrun --standalone --nproc_per_node N cluster/train.py \\
        --examples EXAMPLES_DIR --out MODEL_DIR --steps S [--batch B] [--resume]
    torchrun ... cluster/train.py --shards SHARDS_DIR --context T [--example-seed S] ...

EXAMPLES_DIR is written by `amt datasets --export-examples` (the conditioned
examples engine/train builds, written ahead); with --shards instead, each
rank starts an example source (`amt examples --serve`, --source) over the
token shards of `amt datasets --export`, which builds the same examples as
they are asked for, so the run needs only the shards. MODEL_DIR receives model.safetensors (Hugging
Face GPT-2 names), config.json and vocab.json, which `amt generate --model
MODEL_DIR` and the Compose model picker load as they are, plus checkpoint.pt
and log.jsonl. Run without torchrun it trains in one process. See
docs/CLUSTER.md.

The run follows engine/train: AdamW (betas 0.9/0.95, weight decay on
matrices and embeddings only), linear warm-up then cosine decay to min-lr,
global gradient-norm clipping, the same defaults as `amt train`. --batch is
the global batch (sequences per optimizer step over all ranks and
micro-batches); each step takes the next --batch exported examples, so with
--batch equal to the export's batch a step sees exactly the batch engine/train
would. The loss is the mean over every target token of the global batch
(summed on each rank and divided by the global count), so the losses and
updates do not depend on how the batch is split across ranks and
micro-batches: N ranks give the losses of one process up to float rounding.

DDP uses gloo on CPU and nccl on GPU; on GPU the forward runs under bf16
autocast (fp32 master weights and optimizer). The model is transformers'
GPT2LMHeadModel when transformers is installed, else cluster/gpt2.py's GPT-2
with the same tensor names (--impl).
"""
import argparse
import contextlib
import json
import math
import os
import signal
import sys
import time

import torch
import torch.distributed as dist
import torch.nn.functional as F

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import examples as exmod  # noqa: E402
import gpt2  # noqa: E402
import stfile  # noqa: E402

CHECKPOINT = "checkpoint.pt"
WEIGHTS, CONFIG, VOCAB, LOG = "model.safetensors", "config.json", "vocab.json", "log.jsonl"


def parse_args(argv=None):
    p = argparse.ArgumentParser(description="Train AMT Studio's GPT-2 on exported examples (torchrun, DDP).")
    src = p.add_mutually_exclusive_group(required=True)
    src.add_argument("--examples", help="folder written by amt datasets --export-examples")
    src.add_argument("--shards", help="folder of token shards (amt datasets --export): examples built as training goes by --source")
    p.add_argument("--source", default=os.environ.get("AMT_EXAMPLES_SOURCE", "amt examples"),
                   help="with --shards: the example source command, run once per rank with --shards DIR --serve and the options below (default $AMT_EXAMPLES_SOURCE or 'amt examples'; 'amt-examples' for the headless build)")
    p.add_argument("--context", type=int, default=256, help="with --shards: tokens per example (the model's input length)")
    p.add_argument("--example-batch", type=int, default=0, help="with --shards: the batch examples are numbered in, as the export's --batch (default --batch)")
    p.add_argument("--example-seed", type=int, default=1, help="with --shards: seed of the examples (and of the split unless --split-seed)")
    p.add_argument("--split-seed", type=int, default=0, help="with --shards: seed of the validation split (0: --example-seed)")
    p.add_argument("--val-frac", type=float, default=0.05, help="with --shards: share of pieces held out for validation")
    p.add_argument("--key-labels", default="window", choices=["window", "piece"], help="with --shards: KEY labels of the examples")
    p.add_argument("--key-frame", default="tonic", choices=["tonic", "absolute"], help="with --shards: pitch frame of the examples")
    p.add_argument("--start-prob", type=float, default=-1, help="with --shards: share of examples opening their piece (< 0: the default)")
    p.add_argument("--loader-workers", type=int, default=0, help="with --shards: threads of each rank's source (0: the cores / ranks on this node)")
    p.add_argument("--out", required=True, help="model folder: model.safetensors, config.json, vocab.json, checkpoint.pt, log.jsonl")
    p.add_argument("--steps", type=int, required=True, help="optimizer steps in all (a resumed run counts the earlier ones)")
    p.add_argument("--batch", type=int, default=8, help="global batch: sequences per optimizer step over all ranks")
    p.add_argument("--accum", type=int, default=1, help="micro-batches per rank per step (gradient accumulation)")
    p.add_argument("--preset", default="small", choices=sorted(gpt2.PRESETS), help="model size (as amt train --preset)")
    p.add_argument("--n-layer", type=int)
    p.add_argument("--n-head", type=int)
    p.add_argument("--n-embd", type=int)
    p.add_argument("--n-positions", type=int)
    p.add_argument("--lr", type=float, default=1e-3, help="peak learning rate")
    p.add_argument("--min-lr", type=float, default=0.0, help="final learning rate (0: lr/10)")
    p.add_argument("--warmup", type=int, default=0, help="linear warm-up steps (0: steps/20, at least 1)")
    p.add_argument("--weight-decay", type=float, default=0.1)
    p.add_argument("--beta1", type=float, default=0.9)
    p.add_argument("--beta2", type=float, default=0.95)
    p.add_argument("--eps", type=float, default=1e-8)
    p.add_argument("--clip", type=float, default=1.0, help="global gradient-norm limit (0: none)")
    p.add_argument("--val-every", type=int, default=100, help="validate every N steps (0: only at the end)")
    p.add_argument("--val-examples", type=int, default=256, help="validation examples per validation (0: all)")
    p.add_argument("--checkpoint-every", type=int, default=100, help="checkpoint (and model files) every N steps (0: only at the end)")
    p.add_argument("--log-every", type=int, default=10, help="print every N steps (log.jsonl has every step)")
    p.add_argument("--seed", type=int, default=1, help="seed of the initial weights")
    p.add_argument("--resume", action="store_true", help="continue from OUT/checkpoint.pt")
    p.add_argument("--stop-after", type=int, default=0, help="end this invocation after N steps with a checkpoint (time-limited jobs; --resume continues)")
    p.add_argument("--device", default="auto", choices=["auto", "cpu", "cuda"])
    p.add_argument("--dtype", default="auto", choices=["auto", "fp32", "bf16"], help="autocast dtype (auto: bf16 on a GPU that has it, else fp32)")
    p.add_argument("--backend", default="", help="torch.distributed backend (default: nccl on GPU, gloo on CPU)")
    p.add_argument("--impl", default="auto", choices=["auto", "transformers", "own"], help="model code: transformers' GPT2LMHeadModel or cluster/gpt2.py")
    p.add_argument("--verify", action="store_true", help="check the sha256 of every example file first")
    a = p.parse_args(argv)
    if a.steps < 1 or a.batch < 1 or a.accum < 1:
        p.error("--steps, --batch and --accum must be >= 1")
    if a.shards and a.val_examples <= 0:
        p.error("--val-examples must be >= 1 with --shards (a stream has no end)")
    if a.example_batch == 0:
        a.example_batch = a.batch
    if a.min_lr == 0:
        a.min_lr = a.lr / 10
    if a.warmup == 0:
        a.warmup = max(1, a.steps // 20)
    return a


def lr_at(step, a):
    """engine/train's Options.LRAt: step is 1-based."""
    if step <= a.warmup:
        return a.lr * step / max(a.warmup, 1)
    if a.steps <= a.warmup:
        return a.lr
    r = (step - a.warmup) / (a.steps - a.warmup)
    return a.min_lr + 0.5 * (a.lr - a.min_lr) * (1 + math.cos(math.pi * min(r, 1.0)))


def make_optimizer(model, a):
    """AdamW with weight decay on matrices and embeddings (dim >= 2) only, as
    engine/train decays the tensors engine/gpt marks Decay."""
    decay, rest, seen = [], [], set()
    for _, p in model.named_parameters():
        if id(p) in seen:
            continue
        seen.add(id(p))
        (decay if p.dim() >= 2 else rest).append(p)
    return torch.optim.AdamW([{"params": decay, "weight_decay": a.weight_decay}, {"params": rest, "weight_decay": 0.0}],
                             lr=a.lr, betas=(a.beta1, a.beta2), eps=a.eps)


def clip_gradients(params, clip):
    """engine/train's clipping: the global norm (summed in float64); when
    above clip, every gradient is scaled by clip/norm. Returns the norm."""
    grads = [p.grad for p in params if p.grad is not None]
    if not grads:
        return 0.0
    norm = math.sqrt(float(torch.stack([g.detach().double().pow(2).sum() for g in grads]).sum()))
    if clip > 0 and norm > clip:
        for g in grads:
            g.mul_(clip / norm)
    return norm


def global_indices(step, batch, n):
    """Example indices of global batch `step` (1-based): batch consecutive
    examples; after a full pass of n the order wraps around (n None: a
    stream, no end)."""
    first = (step - 1) * batch
    if n is None:
        return [first + i for i in range(batch)]
    return [(first + i) % n for i in range(batch)]


def rank_share(idx, rank, share):
    """This rank's part of a global batch's indices."""
    return idx[rank * share:(rank + 1) * share]


def open_source(a, d):
    """The examples of this run: the exported folder, or this rank's
    example source over the shards."""
    if a.examples:
        return exmod.open_examples(a.examples, verify=a.verify)
    workers = a.loader_workers
    if workers <= 0:
        local = int(os.environ.get("LOCAL_WORLD_SIZE", "1"))
        workers = max(1, (os.cpu_count() or 1) // max(local, 1))
    opts = ["--context", str(a.context), "--batch", str(a.example_batch), "--seed", str(a.example_seed),
            "--split-seed", str(a.split_seed), "--val-frac", repr(a.val_frac), "--key-labels", a.key_labels,
            "--key-frame", a.key_frame, "--start-prob", repr(a.start_prob), "--workers", str(workers)]
    return exmod.open_stream(a.source, a.shards, opts)


class Dist:
    """Rank, world and device of this process; collectives are no-ops alone."""

    def __init__(self, a):
        self.world = int(os.environ.get("WORLD_SIZE", "1"))
        self.rank = int(os.environ.get("RANK", "0"))
        self.local_rank = int(os.environ.get("LOCAL_RANK", "0"))
        cuda = a.device == "cuda" or (a.device == "auto" and torch.cuda.is_available())
        if cuda and not torch.cuda.is_available():
            raise SystemExit("train: --device cuda but torch.cuda is not available")
        if cuda:
            torch.cuda.set_device(self.local_rank)
            self.device = torch.device("cuda", self.local_rank)
        else:
            self.device = torch.device("cpu")
        self.cuda = cuda
        self.backend = a.backend or ("nccl" if cuda else "gloo")
        if self.world > 1:
            dist.init_process_group(backend=self.backend)
        # gloo and nccl reduce on their own devices.
        self.coll_device = self.device if self.backend == "nccl" else torch.device("cpu")

    def sum(self, values):
        t = torch.tensor(values, dtype=torch.float64, device=self.coll_device)
        if self.world > 1:
            dist.all_reduce(t, op=dist.ReduceOp.SUM)
        return t.tolist()

    def any(self, flag):
        t = torch.tensor([1 if flag else 0], dtype=torch.int64, device=self.coll_device)
        if self.world > 1:
            dist.all_reduce(t, op=dist.ReduceOp.MAX)
        return bool(t.item())

    def barrier(self):
        if self.world > 1:
            dist.barrier()

    def close(self):
        if self.world > 1:
            dist.destroy_process_group()


def model_config(a, ex):
    cfg = dict(gpt2.PRESETS[a.preset])
    for k in ("n_layer", "n_head", "n_embd", "n_positions"):
        v = getattr(a, k)
        if v:
            cfg[k] = v
    cfg.update(vocab_size=ex.vocab_size, layer_norm_epsilon=1e-5, bos_token_id=ex.bos, eos_token_id=ex.eos)
    if ex.context > cfg["n_positions"]:
        raise SystemExit("train: the examples have context %d, the model only %d positions (--n-positions)" % (ex.context, cfg["n_positions"]))
    gpt2.check_config(cfg)
    return cfg


def key_frame(ex):
    """The pitch frame of the examples: "tonic" when the exporter moved every
    example to C major / A minor (conditioning TonicFrame), else ""."""
    cond = ex.manifest.get("conditioning") or {}
    return "tonic" if cond.get("TonicFrame") else ""


def save_model(out, model, cfg, context, vocab, frame=""):
    """model.safetensors (HF names, F32), config.json, vocab.json (the
    vocabulary file's bytes): a folder amt loads as it is."""
    stfile.save(os.path.join(out, WEIGHTS), gpt2.named_tensors(model, cfg), {"format": "pt"})
    text = json.dumps(gpt2.hf_config(cfg, context, frame), indent=2) + "\n"
    stfile.atomic_write(os.path.join(out, CONFIG), lambda f: f.write(text.encode()))
    stfile.atomic_write(os.path.join(out, VOCAB), lambda f: f.write(vocab))


def save_checkpoint(path, model, opt, cfg, a, ex, step, best_val):
    state = {"format": "amt-cluster-checkpoint", "version": 1, "step": step, "config": cfg,
             "model": gpt2.named_tensors(model, cfg), "optimizer": opt.state_dict(),
             "run": {"batch": a.batch, "seed": a.seed, "examples": ex.identity(), "impl": gpt2.impl_name(model)},
             "best_val_loss": best_val}
    stfile.atomic_write(path, lambda f: torch.save(state, f))


def load_checkpoint(path, model, opt, cfg, a, ex, device):
    st = torch.load(path, map_location=device)
    if st.get("format") != "amt-cluster-checkpoint":
        raise SystemExit("train: resume: %s is not a checkpoint of cluster/train.py" % path)
    if st["config"] != cfg:
        raise SystemExit("train: resume: %s: model %s differs from this run's %s" % (path, st["config"], cfg))
    run = st["run"]
    if run["batch"] != a.batch or run["seed"] != a.seed:
        raise SystemExit("train: resume: %s: batch %d, seed %d differ from this run's %d, %d" % (path, run["batch"], run["seed"], a.batch, a.seed))
    if run["examples"] != ex.identity():
        raise SystemExit("train: resume: %s was trained on other examples than %s" % (path, ex.dir))
    gpt2.load_tensors(model, cfg, st["model"])
    opt.load_state_dict(st["optimizer"])
    return st["step"], st.get("best_val_loss", float("inf"))


def loss_sum(model, x, y, autocast):
    """Summed cross-entropy over the targets >= 0 (float32 logits)."""
    with autocast():
        logits = gpt2.logits_of(model(x))
    return F.cross_entropy(logits.float().reshape(-1, logits.shape[-1]), y.reshape(-1), ignore_index=-1, reduction="sum")


@torch.no_grad()
def validate(model, split, a, d, micro, autocast):
    if split.size is None:  # a stream: the first --val-examples
        n = a.val_examples
    else:
        n = split.size if a.val_examples <= 0 else min(a.val_examples, split.size)
    if n == 0:
        return None
    mine = list(range(d.rank, n, d.world))
    total, count = 0.0, 0
    model.eval()
    for i in range(0, len(mine), micro):
        x, y = split.batch(mine[i:i + micro])
        x, y = x.to(d.device), y.to(d.device)
        total += float(loss_sum(model, x, y, autocast))
        count += int((y >= 0).sum())
    model.train()
    total, count = d.sum([total, count])
    return total / count if count else None


def main(argv=None):
    a = parse_args(argv)
    d = Dist(a)
    rank0 = d.rank == 0

    def say(*msg):
        if rank0:
            print(*msg, flush=True)

    if a.batch % (d.world * a.accum):
        raise SystemExit("train: --batch %d is not a multiple of ranks %d x --accum %d" % (a.batch, d.world, a.accum))
    micro = a.batch // (d.world * a.accum)
    try:
        ex = open_source(a, d)
    except exmod.BadExamples as e:
        raise SystemExit("train: %s" % e)
    try:
        return run(a, d, ex, micro, say, rank0)
    except exmod.BadExamples as e:
        raise SystemExit("train: %s" % e)
    finally:
        ex.close()


def run(a, d, ex, micro, say, rank0):
    if ex.train.size == 0:
        raise SystemExit("train: %s holds no training examples" % (a.examples or a.shards))
    cfg = model_config(a, ex)
    T = ex.context
    torch.manual_seed(a.seed)
    model = gpt2.build(cfg, a.impl).to(d.device)
    opt = make_optimizer(model, a)
    if rank0:
        os.makedirs(a.out, exist_ok=True)
    d.barrier()
    ckpt = os.path.join(a.out, CHECKPOINT)
    step, best_val = 0, float("inf")
    if a.resume:
        if not os.path.exists(ckpt):
            raise SystemExit("train: --resume: no %s" % ckpt)
        step, best_val = load_checkpoint(ckpt, model, opt, cfg, a, ex, d.device)
    ddp = model
    if d.world > 1:
        ddp = torch.nn.parallel.DistributedDataParallel(model, device_ids=[d.local_rank] if d.cuda else None)
    bf16 = a.dtype == "bf16" or (a.dtype == "auto" and d.cuda and torch.cuda.is_bf16_supported())
    dev_type = "cuda" if d.cuda else "cpu"

    def autocast():
        if bf16:
            return torch.autocast(device_type=dev_type, dtype=torch.bfloat16)
        return contextlib.nullcontext()

    params = [p for p in model.parameters()]
    nparams = sum(p.numel() for p in {id(p): p for p in params}.values())
    if ex.train.size is None:
        what = "built as asked from %d train and %d val pieces" % (ex.train.pieces, ex.val.pieces)
    else:
        what = "%d train, %d val" % (ex.train.size, ex.val.size)
    say("train: %s, %d parameters, world %d (%s on %s%s); examples: %s of %d tokens; global batch %d = %d ranks x %d accum x %d"
        % (gpt2.impl_name(model), nparams, d.world, d.backend if d.world > 1 else "one process", d.device, ", bf16" if bf16 else "",
           what, T, a.batch, d.world, a.accum, micro))
    if ex.train.size is not None and a.steps * a.batch > ex.train.size and step == 0:
        say("train: note: %d steps x batch %d = %d examples, the export has %d: examples repeat (export more with --examples)"
            % (a.steps, a.batch, a.steps * a.batch, ex.train.size))
    if step >= a.steps:
        say("train: checkpoint is at step %d of %d: nothing to do" % (step, a.steps))
    stop = {"signal": 0}

    def on_signal(signum, _frame):
        stop["signal"] = signum

    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGUSR1, on_signal)
    # A resumed run continues its log; a new run into a used folder starts
    # it again (appending mixed two runs' steps into one log: a test's retry
    # after a hung torchrun read 12 steps of a 6-step run).
    log = open(os.path.join(a.out, LOG), "a" if a.resume else "w") if rank0 else None
    tokens_per_step = a.batch * T
    start, first = time.time(), step
    ran = 0
    try:
        while step < a.steps:
            step += 1
            t0 = time.time()
            share = a.accum * micro
            mine = rank_share(global_indices(step, a.batch, ex.train.size), d.rank, share)
            mbs, local = [], 0
            for m in range(a.accum):
                x, y = ex.train.batch(mine[m * micro:(m + 1) * micro])
                local += int((y >= 0).sum())
                mbs.append((x.to(d.device, non_blocking=True), y.to(d.device, non_blocking=True)))
            if step < a.steps:  # a stream builds the next step's examples while this one trains
                nxt = rank_share(global_indices(step + 1, a.batch, ex.train.size), d.rank, share)
                for m in range(a.accum):
                    ex.train.prefetch(nxt[m * micro:(m + 1) * micro])
            (count,) = d.sum([local])
            opt.zero_grad(set_to_none=True)
            total = torch.zeros((), dtype=torch.float64, device=d.device)
            for m, (x, y) in enumerate(mbs if count > 0 else []):
                sync = contextlib.nullcontext() if (d.world == 1 or m == a.accum - 1) else ddp.no_sync()
                with sync:
                    ls = loss_sum(ddp, x, y, autocast)
                    # DDP averages gradients over ranks: x world makes their
                    # sum, / count the mean over the global batch's targets.
                    (ls * (d.world / count)).backward()
                total += ls.detach().double()
            (total,) = d.sum([float(total)])
            loss = total / count if count else float("nan")
            norm = clip_gradients(params, a.clip)
            lr = lr_at(step, a)
            for g in opt.param_groups:
                g["lr"] = lr
            if count > 0:
                opt.step()
            if d.cuda:
                torch.cuda.synchronize()
            dt = time.time() - t0
            ran += 1
            ev = {"step": step, "steps": a.steps, "loss": loss, "lr": lr, "grad_norm": norm,
                  "tokens_per_second": tokens_per_step / dt if dt > 0 else 0.0, "world_size": d.world}
            if (a.val_every > 0 and step % a.val_every == 0) or step == a.steps:
                vl = validate(model, ex.val, a, d, micro * a.accum, autocast)
                if vl is not None:
                    ev["val_loss"] = vl
                    best_val = min(best_val, vl)
            ev["elapsed_s"] = time.time() - start
            if rank0:
                log.write(json.dumps(ev) + "\n")
                log.flush()
                if step % a.log_every == 0 or step == a.steps or "val_loss" in ev or step == first + 1:
                    val = " val %.4f" % ev["val_loss"] if "val_loss" in ev else ""
                    print("step %d/%d loss %.4f%s lr %.2e norm %.3f %.0f tok/s" % (step, a.steps, loss, val, lr, norm, ev["tokens_per_second"]), flush=True)
            halt = d.any(stop["signal"] != 0 or (a.stop_after > 0 and ran >= a.stop_after and step < a.steps))
            if halt or (a.checkpoint_every > 0 and step % a.checkpoint_every == 0) or step == a.steps:
                if rank0:
                    save_checkpoint(ckpt, model, opt, cfg, a, ex, step, best_val)
                    save_model(a.out, model, cfg, T, ex.vocab_bytes(), key_frame(ex))
                d.barrier()
            if halt:
                say("train: stopped at step %d of %d with a checkpoint; --resume continues" % (step, a.steps))
                break
        elapsed = time.time() - start
        if ran:
            say("done: %d steps in %.1fs, %.0f tokens/s; model in %s" % (ran, elapsed, ran * tokens_per_step / elapsed if elapsed > 0 else 0, a.out))
    finally:
        if log:
            log.close()
        d.close()
    if stop["signal"]:
        return 128 + stop["signal"]
    return 0


if __name__ == "__main__":
    sys.exit(main())
