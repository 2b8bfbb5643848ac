"""Reader of the training examples `amt datasets --export-examples` writes
(engine/train/examples): manifest.json, vocab.json, and per split shards of
uint16 (or uint32) tokens, examples x (context+1), with uint32 lengths.

Row i of a split is one example of length L <= context+1, PAD after it. The
inputs are row[:context], the targets row[1:], with -1 (no loss) at
positions j >= L-1: the inputs and targets engine/train's example builder
made. Shards are memory-mapped, so any number of ranks read them without
loading them.
"""
import hashlib
import json
import os

import numpy as np
import torch

FORMAT, VERSION = "amt-examples", 1


class BadExamples(ValueError):
    pass


def _plain(name):
    return isinstance(name, str) and name not in ("", ".", "..") and "/" not in name and "\\" not in name


class Split:
    """The examples of one split, as one sequence of rows across shards."""

    def __init__(self, ex, name, info):
        self.name = name
        self.n = int(info.get("examples", 0))
        self.seed = info.get("seed")
        self.pieces = info.get("pieces")
        self._tokens, self._lengths, self._starts = [], [], []
        dt = {"uint16": np.uint16, "uint32": np.uint32}[ex.token_dtype]
        start = 0
        for sh in info.get("shards", []):
            n = int(sh["examples"])
            for key in ("tokens_file", "lengths_file"):
                if not _plain(sh.get(key)):
                    raise BadExamples("%s: split %s: %s %r is not a plain file name" % (ex.manifest_path, name, key, sh.get(key)))
            tp, lp = os.path.join(ex.dir, sh["tokens_file"]), os.path.join(ex.dir, sh["lengths_file"])
            want_t, want_l = n * ex.row_tokens * np.dtype(dt).itemsize, 4 * n
            for p, want in ((tp, want_t), (lp, want_l)):
                size = os.path.getsize(p)
                if size != want:
                    raise BadExamples("%s: %d bytes, %d examples need %d" % (p, size, n, want))
            self._tokens.append(np.memmap(tp, dtype=dt, mode="r", shape=(n, ex.row_tokens)))
            self._lengths.append(np.memmap(lp, dtype="<u4", mode="r", shape=(n,)))
            self._starts.append(start)
            start += n
        if start != self.n:
            raise BadExamples("%s: split %s: shards hold %d examples, the split says %d" % (ex.manifest_path, name, start, self.n))
        self.context = ex.context
        self.vocab_size = ex.vocab_size

    def __len__(self):
        return self.n

    def row(self, i):
        """(tokens int64 array of context+1, length) of example i."""
        if not 0 <= i < self.n:
            raise IndexError("example %d of split %s (%d examples)" % (i, self.name, self.n))
        s = int(np.searchsorted(self._starts, i, side="right")) - 1
        j = i - self._starts[s]
        L = int(self._lengths[s][j])
        if not 1 <= L <= self.context + 1:
            raise BadExamples("split %s: example %d has length %d, rows hold %d" % (self.name, i, L, self.context + 1))
        return np.asarray(self._tokens[s][j], dtype=np.int64), L

    def batch(self, indices):
        """Inputs and targets (len(indices), context) as int64 tensors;
        targets are -1 where the example has ended."""
        T = self.context
        rows = np.empty((len(indices), T + 1), dtype=np.int64)
        lengths = np.empty(len(indices), dtype=np.int64)
        for k, i in enumerate(indices):
            rows[k], lengths[k] = self.row(int(i))
        if rows.size and (rows.max() >= self.vocab_size or rows.min() < 0):
            raise BadExamples("split %s: token outside the vocabulary of %d in examples %s" % (self.name, self.vocab_size, list(indices)))
        x = torch.from_numpy(rows[:, :T].copy())
        y = torch.from_numpy(rows[:, 1:].copy())
        pos = torch.arange(T).unsqueeze(0)
        y[pos >= torch.from_numpy(lengths).unsqueeze(1) - 1] = -1
        return x, y


class Examples:
    """An export folder: manifest fields, .train and .val splits."""

    def __init__(self, directory, verify=False):
        self.dir = directory
        self.manifest_path = os.path.join(directory, "manifest.json")
        try:
            with open(self.manifest_path) as f:
                m = json.load(f)
        except (OSError, ValueError) as e:
            raise BadExamples("%s: %s (write it with amt datasets --export-examples)" % (self.manifest_path, e))
        if m.get("format") != FORMAT or m.get("version") != VERSION:
            raise BadExamples("%s: format %r version %r, this trainer reads %s version %d" % (
                self.manifest_path, m.get("format"), m.get("version"), FORMAT, VERSION))
        self.manifest = m
        self.context = int(m["context"])
        self.row_tokens = int(m["row_tokens"])
        if self.row_tokens != self.context + 1 or self.context < 2:
            raise BadExamples("%s: context %d with rows of %d tokens" % (self.manifest_path, self.context, self.row_tokens))
        self.token_dtype = m.get("token_dtype")
        if self.token_dtype not in ("uint16", "uint32") or m.get("length_dtype") != "uint32":
            raise BadExamples("%s: dtypes %r/%r, want uint16 or uint32 / uint32" % (self.manifest_path, self.token_dtype, m.get("length_dtype")))
        v = m["vocab"]
        self.vocab_size = int(v["size"])
        self.pad, self.bos, self.eos = int(v["pad"]), int(v["bos"]), int(v["eos"])
        if not _plain(v.get("file")):
            raise BadExamples("%s: vocabulary file %r is not a plain file name" % (self.manifest_path, v.get("file")))
        self.vocab_path = os.path.join(directory, v["file"])
        self.batch_rows = int(m.get("batch", 1))
        self.seed = m.get("seed")
        splits = m.get("splits", {})
        if "train" not in splits:
            raise BadExamples("%s: no train split" % self.manifest_path)
        self.train = Split(self, "train", splits["train"])
        self.val = Split(self, "val", splits.get("val", {"examples": 0, "shards": []}))
        if verify:
            self.verify()

    def identity(self):
        """A digest of the manifest (hashes of every file included): a
        checkpoint records it so a resume uses the same examples."""
        with open(self.manifest_path, "rb") as f:
            return hashlib.sha256(f.read()).hexdigest()

    def verify(self):
        """Check the sha256 of every file against the manifest."""
        todo = [(self.vocab_path, self.manifest["vocab"]["sha256"])]
        for sp in self.manifest["splits"].values():
            for sh in sp.get("shards", []):
                todo += [(os.path.join(self.dir, sh["tokens_file"]), sh["tokens_sha256"]),
                         (os.path.join(self.dir, sh["lengths_file"]), sh["lengths_sha256"])]
        for path, want in todo:
            h = hashlib.sha256()
            with open(path, "rb") as f:
                for chunk in iter(lambda: f.read(1 << 20), b""):
                    h.update(chunk)
            if h.hexdigest() != want:
                raise BadExamples("%s: sha256 %s, the manifest says %s" % (path, h.hexdigest(), want))


def open_examples(directory, verify=False):
    return Examples(directory, verify)
