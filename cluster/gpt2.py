"""GPT-2 in PyTorch with Hugging Face tensor names, as AMT Studio's engine/gpt
computes it.

The model is Hugging Face's GPT2LMHeadModel when `transformers` is importable
(impl "auto" or "transformers"), otherwise the short GPT-2 below: pre-LN
blocks, learned positions, Conv1D weights stored (in, out), GELU tanh form,
layer-norm eps from the config, attention scale 1/sqrt(head size), output
embedding tied to the input one, no dropout. Its parameters carry exactly the
names and shapes transformers uses (transformer.wte.weight,
transformer.h.0.attn.c_attn.weight, ...), so the files written from either
are the same and engine/gpt loads them as they are.

Config dicts use the keys of GPT-2's config.json (n_layer, n_head, n_embd,
n_positions, vocab_size, layer_norm_epsilon, bos_token_id, eos_token_id).
"""
import json
import math

import torch
import torch.nn as nn
import torch.nn.functional as F

# Named sizes, as engine/gpt's presets (vocabulary from the data).
PRESETS = {
    "tiny": dict(n_layer=2, n_head=2, n_embd=32, n_positions=128),
    "small": dict(n_layer=4, n_head=4, n_embd=256, n_positions=1024),
    "base": dict(n_layer=8, n_head=8, n_embd=512, n_positions=1024),
}


def tensor_specs(cfg):
    """The parameters engine/gpt expects, in its buffer order: (name, shape)."""
    C, V, P = cfg["n_embd"], cfg["vocab_size"], cfg["n_positions"]
    decay = [("transformer.wte.weight", (V, C)), ("transformer.wpe.weight", (P, C))]
    rest = []
    for l in range(cfg["n_layer"]):
        p = "transformer.h.%d." % l
        decay += [(p + "attn.c_attn.weight", (C, 3 * C)), (p + "attn.c_proj.weight", (C, C)),
                  (p + "mlp.c_fc.weight", (C, 4 * C)), (p + "mlp.c_proj.weight", (4 * C, C))]
        rest += [(p + "ln_1.weight", (C,)), (p + "ln_1.bias", (C,)),
                 (p + "attn.c_attn.bias", (3 * C,)), (p + "attn.c_proj.bias", (C,)),
                 (p + "ln_2.weight", (C,)), (p + "ln_2.bias", (C,)),
                 (p + "mlp.c_fc.bias", (4 * C,)), (p + "mlp.c_proj.bias", (C,))]
    rest += [("transformer.ln_f.weight", (C,)), ("transformer.ln_f.bias", (C,))]
    return decay + rest


def check_config(cfg):
    for k in ("n_layer", "n_head", "n_embd", "n_positions", "vocab_size"):
        if not isinstance(cfg.get(k), int) or cfg[k] < 1:
            raise ValueError("config: %s must be an integer >= 1 (got %r)" % (k, cfg.get(k)))
    if cfg["n_embd"] % cfg["n_head"]:
        raise ValueError("config: n_embd %d is not a multiple of n_head %d" % (cfg["n_embd"], cfg["n_head"]))
    if cfg["vocab_size"] > 65536:
        raise ValueError("config: vocab_size %d exceeds 65536" % cfg["vocab_size"])


class Conv1D(nn.Module):
    """y = x W + b with W stored (in, out), as transformers' Conv1D."""

    def __init__(self, nin, nout):
        super().__init__()
        self.weight = nn.Parameter(torch.empty(nin, nout))
        self.bias = nn.Parameter(torch.zeros(nout))

    def forward(self, x):
        y = torch.addmm(self.bias, x.reshape(-1, x.shape[-1]), self.weight)
        return y.view(*x.shape[:-1], y.shape[-1])


class Attention(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        C = cfg["n_embd"]
        self.n_head = cfg["n_head"]
        self.c_attn = Conv1D(C, 3 * C)
        self.c_proj = Conv1D(C, C)

    def forward(self, x):  # (B,T,C)
        B, T, C = x.shape
        hs = C // self.n_head
        q, k, v = self.c_attn(x).split(C, dim=2)
        q = q.view(B, T, self.n_head, hs).transpose(1, 2)  # (B,NH,T,hs)
        k = k.view(B, T, self.n_head, hs).transpose(1, 2)
        v = v.view(B, T, self.n_head, hs).transpose(1, 2)
        att = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(hs))  # (B,NH,T,T)
        causal = torch.ones(T, T, dtype=torch.bool, device=x.device).tril()
        att = att.masked_fill(~causal, float("-inf"))
        att = F.softmax(att, dim=-1).to(v.dtype)
        y = (att @ v).transpose(1, 2).reshape(B, T, C)
        return self.c_proj(y)


class MLP(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        C = cfg["n_embd"]
        self.c_fc = Conv1D(C, 4 * C)
        self.c_proj = Conv1D(4 * C, C)

    def forward(self, x):
        return self.c_proj(F.gelu(self.c_fc(x), approximate="tanh"))


class Block(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        eps = cfg.get("layer_norm_epsilon", 1e-5)
        self.ln_1 = nn.LayerNorm(cfg["n_embd"], eps=eps)
        self.attn = Attention(cfg)
        self.ln_2 = nn.LayerNorm(cfg["n_embd"], eps=eps)
        self.mlp = MLP(cfg)

    def forward(self, x):
        x = x + self.attn(self.ln_1(x))
        return x + self.mlp(self.ln_2(x))


class GPT2(nn.Module):
    """The short GPT-2: forward(idx (B,T) int64) -> logits (B,T,V)."""

    def __init__(self, cfg):
        super().__init__()
        check_config(cfg)
        self.cfg = dict(cfg)
        self.transformer = nn.ModuleDict(dict(
            wte=nn.Embedding(cfg["vocab_size"], cfg["n_embd"]),
            wpe=nn.Embedding(cfg["n_positions"], cfg["n_embd"]),
            h=nn.ModuleList([Block(cfg) for _ in range(cfg["n_layer"])]),
            ln_f=nn.LayerNorm(cfg["n_embd"], eps=cfg.get("layer_norm_epsilon", 1e-5)),
        ))
        init_weights(self, cfg)

    def forward(self, idx):
        B, T = idx.shape
        if T > self.cfg["n_positions"]:
            raise ValueError("sequence of %d tokens exceeds n_positions %d" % (T, self.cfg["n_positions"]))
        tr = self.transformer
        pos = torch.arange(T, device=idx.device)
        x = tr.wte(idx) + tr.wpe(pos)
        for block in tr.h:
            x = block(x)
        x = tr.ln_f(x)
        return F.linear(x, tr.wte.weight)  # tied output embedding


def init_weights(model, cfg):
    """GPT-2's initialisation, as engine/gpt's Init (not its random stream):
    matrices and embeddings N(0, 0.02), the two residual projections of each
    block N(0, 0.02/sqrt(2 n_layer)), biases 0, layer-norm gains 1."""
    proj = 0.02 / math.sqrt(2 * cfg["n_layer"])
    with torch.no_grad():
        for name, p in model.named_parameters():
            if p.dim() == 2:
                std = proj if name.endswith("attn.c_proj.weight") or name.endswith("mlp.c_proj.weight") else 0.02
                p.normal_(0.0, std)
            elif name.endswith(".weight"):
                p.fill_(1.0)
            else:
                p.zero_()


def have_transformers():
    try:
        import transformers  # noqa: F401
    except ImportError:
        return False
    return True


def build(cfg, impl="auto"):
    """A model for cfg: transformers' GPT2LMHeadModel ("transformers", or
    "auto" when it is installed) or the short GPT-2 ("own"). Both take
    (B,T) token ids; use logits_of() on what they return."""
    check_config(cfg)
    if impl not in ("auto", "transformers", "own"):
        raise ValueError("impl %r: one of auto, transformers, own" % impl)
    if impl == "transformers" or (impl == "auto" and have_transformers()):
        try:
            from transformers import GPT2Config, GPT2LMHeadModel
        except ImportError as e:
            raise SystemExit("--impl transformers: %s (install transformers, or use --impl own)" % e)
        hc = GPT2Config(n_layer=cfg["n_layer"], n_head=cfg["n_head"], n_embd=cfg["n_embd"],
                        n_positions=cfg["n_positions"], vocab_size=cfg["vocab_size"],
                        layer_norm_epsilon=cfg.get("layer_norm_epsilon", 1e-5),
                        activation_function="gelu_new", resid_pdrop=0.0, embd_pdrop=0.0,
                        attn_pdrop=0.0, tie_word_embeddings=True,
                        bos_token_id=cfg.get("bos_token_id", 0), eos_token_id=cfg.get("eos_token_id", 0))
        m = GPT2LMHeadModel(hc)
        m.config.use_cache = False
        return m
    return GPT2(cfg)


def impl_name(model):
    m = getattr(model, "module", model)
    return "transformers.GPT2LMHeadModel" if not isinstance(m, GPT2) else "cluster/gpt2.py"


def logits_of(out):
    """Logits from a model's output (a tensor, or transformers' output)."""
    return out if torch.is_tensor(out) else out.logits


def named_tensors(model, cfg):
    """The parameters under engine/gpt's names, in its order, checked for
    presence and shape (tied lm_head.weight and mask buffers are left out)."""
    sd = getattr(model, "module", model).state_dict()
    out = {}
    for name, shape in tensor_specs(cfg):
        t = sd.get(name)
        if t is None:
            raise KeyError("model has no tensor %s" % name)
        if tuple(t.shape) != tuple(shape):
            raise ValueError("tensor %s has shape %s, want %s" % (name, tuple(t.shape), shape))
        out[name] = t
    return out


def load_tensors(model, cfg, tensors):
    """Fill a model from engine/gpt-named tensors (all must be present)."""
    m = getattr(model, "module", model)
    own = m.state_dict()
    with torch.no_grad():
        for name, shape in tensor_specs(cfg):
            if name not in tensors:
                raise KeyError("tensor %s missing" % name)
            t = tensors[name]
            if tuple(t.shape) != tuple(shape):
                raise ValueError("tensor %s has shape %s, want %s" % (name, tuple(t.shape), shape))
            own[name].copy_(t)
        extra = set(tensors) - {n for n, _ in tensor_specs(cfg)} - {"lm_head.weight"}
        extra = {n for n in extra if not n.endswith(".attn.bias") and not n.endswith(".attn.masked_bias")}
        if extra:
            raise KeyError("unexpected tensors %s" % sorted(extra))


def hf_config(cfg, train_context=0, key_frame=""):
    """config.json as engine/gpt's WriteConfig writes it (GPT-2 keys).
    key_frame "tonic": the examples were moved to C major / A minor
    (condition.Options.TonicFrame), which the app must know to move what the
    model writes to the requested key (app/compose_keyframe.go)."""
    c = {
        "n_layer": cfg["n_layer"], "n_head": cfg["n_head"], "n_embd": cfg["n_embd"],
        "n_positions": cfg["n_positions"], "vocab_size": cfg["vocab_size"],
        "layer_norm_epsilon": cfg.get("layer_norm_epsilon", 1e-5),
        "bos_token_id": cfg.get("bos_token_id", -1), "eos_token_id": cfg.get("eos_token_id", -1),
    }
    if train_context:
        c["amt_train_context"] = train_context
    if key_frame:
        c["amt_key_frame"] = key_frame
    c.update({"model_type": "gpt2", "architectures": ["GPT2LMHeadModel"], "n_ctx": cfg["n_positions"],
              "activation_function": "gelu_new", "tie_word_embeddings": True, "resid_pdrop": 0.0,
              "embd_pdrop": 0.0, "attn_pdrop": 0.0, "initializer_range": 0.02, "torch_dtype": "float32"})
    return c


def read_config(path):
    with open(path) as f:
        h = json.load(f)
    if h.get("model_type", "gpt2") != "gpt2":
        raise ValueError("%s: model_type %r, want gpt2" % (path, h.get("model_type")))
    if h.get("activation_function", "gelu_new") not in ("gelu_new", "gelu_pytorch_tanh"):
        raise ValueError("%s: activation_function %r, want gelu_new" % (path, h.get("activation_function")))
    if not h.get("tie_word_embeddings", True):
        raise ValueError("%s: untied embeddings are not supported" % path)
    cfg = {k: h[k] for k in ("n_layer", "n_head", "n_embd", "n_positions", "vocab_size") if k in h}
    cfg["layer_norm_epsilon"] = h.get("layer_norm_epsilon", 1e-5)
    cfg["bos_token_id"] = h.get("bos_token_id", -1)
    cfg["eos_token_id"] = h.get("eos_token_id", -1)
    try:
        check_config(cfg)
    except ValueError as e:
        raise ValueError("%s: %s" % (path, e))
    return cfg, h.get("amt_train_context", 0)
