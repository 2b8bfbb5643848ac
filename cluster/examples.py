"""Training examples for cluster/train.py, from either of two sources:

- Examples: the folder `amt datasets --export-examples` (or `amt examples
  --write`) writes (engine/train/examples): manifest.json, vocab.json, and
  per split shards of uint16 (or uint32) tokens, examples x (context+1),
  with uint32 lengths. Shards are memory-mapped, so any number of ranks read
  them without loading them.
- StreamExamples: an example source process (`amt examples --serve`, or the
  headless `amt-examples`) over token shards, which builds each example as
  it is asked for (engine/train/stream's protocol): a cluster run needs only
  the shards, and the conditioning stays in one implementation, amt's.

Row i of a split is one example of length L <= context+1, PAD after it. The
inputs are row[:context], the targets row[1:], with -1 (no loss) at
positions j >= L-1: the inputs and targets engine/train's example builder
made. Both sources number examples the same way (example i is row i mod
batch of engine/train's batch i div batch), so the same numbers give the
same rows from either.
"""
import collections
import hashlib
import json
import os
import shlex
import struct
import subprocess

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

    @property
    def size(self):
        """Examples in the split (a stream's is None: unbounded)."""
        return self.n

    def prefetch(self, indices):
        """Nothing to do for files (a stream asks ahead)."""

    def batch(self, indices):
        """Inputs and targets (len(indices), context) as int64 tensors;
        targets are -1 where the example has ended."""
        T = self.context
        rows = np.empty((len(indices), T + 1), dtype=np.int64)
        lengths = np.empty(len(indices), dtype=np.int64)
        for k, i in enumerate(indices):
            rows[k], lengths[k] = self.row(int(i))
        return rows_to_batch(rows, lengths, T, self.vocab_size, self.name, indices)


def rows_to_batch(rows, lengths, T, vocab_size, name, indices):
    """Inputs and targets of stored rows (n, T+1) with their lengths: the
    one conversion both sources use."""
    if rows.size and (rows.max() >= vocab_size or rows.min() < 0):
        raise BadExamples("split %s: token outside the vocabulary of %d in examples %s" % (name, vocab_size, list(indices)))
    if lengths.size and (lengths.min() < 1 or lengths.max() > T + 1):
        raise BadExamples("split %s: a length outside 1..%d in examples %s" % (name, T + 1, list(indices)))
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

    def vocab_bytes(self):
        with open(self.vocab_path, "rb") as f:
            return f.read()

    def close(self):
        pass

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


STREAM_FORMAT, STREAM_VERSION = "amt-example-stream", 1


class StreamSplit:
    """One split of a stream: examples by number, unbounded."""

    def __init__(self, stream, name, info):
        self.stream = stream
        self.name = name
        self.pieces = int(info.get("pieces", 0))
        self.seed = info.get("seed")
        self.context = stream.context
        self.size = None if self.pieces > 0 else 0

    def __len__(self):
        raise TypeError("a stream split has no length (size is None: unbounded)")

    def prefetch(self, indices):
        """Ask for these examples now; batch(indices) collects them."""
        self.stream.request(self.name, indices)

    def batch(self, indices):
        return self.stream.fetch(self.name, indices)


def _runs(indices):
    """Example numbers as the protocol's items: I or I+N for runs."""
    items, i = [], 0
    idx = [int(x) for x in indices]
    while i < len(idx):
        j = i
        while j + 1 < len(idx) and idx[j + 1] == idx[j] + 1:
            j += 1
        items.append("%d+%d" % (idx[i], j - i + 1) if j > i else "%d" % idx[i])
        i = j + 1
    return items


class StreamExamples:
    """The examples an example source process builds from token shards as
    they are asked for (engine/train/stream): `COMMAND --shards DIR --serve
    OPTIONS`, one process per rank, requests on its stdin, rows on its
    stdout, its errors on this process's stderr. Requests may be sent ahead
    (prefetch); answers come in request order."""

    def __init__(self, command, shards, options=(), env=None):
        argv = shlex.split(command) + ["--shards", shards, "--serve"] + list(options)
        self.command = " ".join(shlex.quote(x) for x in argv)
        try:
            # Its own session: a signal to the job's process group (Ctrl-C,
            # a scheduler's warning) reaches the trainer, which checkpoints
            # and then closes the pipe; the source ends with it.
            self.proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, bufsize=0, env=env,
                                         start_new_session=True)
        except OSError as e:
            raise BadExamples("example source %s: %s (build amt, or scripts/build_static.sh ./scripts/amt-examples, and give --source)" % (self.command, e))
        self.dir = shards
        magic, version, n = struct.unpack("<4sII", self._read(12, "header"))
        if magic != b"AMTS" or version != STREAM_VERSION:
            raise BadExamples("example source %s: header %r version %d, this trainer reads %s version %d" % (self.command, magic, version, STREAM_FORMAT, STREAM_VERSION))
        raw = self._read(n, "header")
        self._identity = hashlib.sha256(raw).hexdigest()
        m = json.loads(raw)
        if m.get("format") != STREAM_FORMAT:
            raise BadExamples("example source %s: format %r" % (self.command, m.get("format")))
        self.manifest = m
        self.context = int(m["context"])
        self.row_tokens = int(m["row_tokens"])
        self.token_dtype = m["token_dtype"]
        self._dt = {"uint16": np.dtype("<u2"), "uint32": np.dtype("<u4")}[self.token_dtype]
        v = m["vocab"]
        self.vocab_size = int(v["size"])
        self.pad, self.bos, self.eos = int(v["pad"]), int(v["bos"]), int(v["eos"])
        self._vocab = m["vocab_json"].encode()
        self.batch_rows = int(m["batch"])
        self.seed = m.get("seed")
        self.max_rows = int(m["max_rows"])
        self.train = StreamSplit(self, "train", m["splits"]["train"])
        self.val = StreamSplit(self, "val", m["splits"].get("val", {}))
        self.pending = collections.deque()  # keys asked for, in order
        self.ready = {}  # key -> (x, y) read while collecting another

    def _read(self, n, what):
        buf = bytearray()
        while len(buf) < n:
            chunk = self.proc.stdout.read(n - len(buf))
            if not chunk:
                try:
                    code = self.proc.wait(timeout=10)
                except subprocess.TimeoutExpired:
                    code = "still running"
                raise BadExamples("example source %s ended during the %s (exit status %s; its error is above)" % (self.command, what, code))
            buf += chunk
        return bytes(buf)

    def identity(self):
        """A digest of the stream's header (shards' piece lengths, seeds,
        conditioning, vocabulary): a checkpoint records it."""
        return self._identity

    def vocab_bytes(self):
        return self._vocab

    def request(self, split, indices):
        key = (split, tuple(int(i) for i in indices))
        if key in self.ready or key in self.pending or not key[1]:
            return
        if len(key[1]) > self.max_rows:
            raise BadExamples("example source: %d examples in one request, at most %d" % (len(key[1]), self.max_rows))
        try:
            self.proc.stdin.write((" ".join([split] + _runs(key[1])) + "\n").encode())
            self.proc.stdin.flush()
        except (BrokenPipeError, OSError) as e:
            raise BadExamples("example source %s: %s (exit status %s; its error is above)" % (self.command, e, self.proc.poll()))
        self.pending.append(key)

    def fetch(self, split, indices):
        """Inputs and targets of these examples, as Split.batch."""
        key = (split, tuple(int(i) for i in indices))
        if not key[1]:
            T = self.context
            return torch.zeros((0, T), dtype=torch.int64), torch.zeros((0, T), dtype=torch.int64)
        if key not in self.ready and key not in self.pending:
            self.request(split, indices)
        while key not in self.ready:
            k = self.pending.popleft()
            self.ready[k] = self._answer(k)
        return self.ready.pop(key)

    def _answer(self, key):
        magic, status, n = struct.unpack("<4sII", self._read(12, "answer"))
        if magic != b"AMTR":
            raise BadExamples("example source %s: answer header %r" % (self.command, magic))
        if status != 0:
            msg = self._read(n, "error").decode("utf-8", "replace")
            raise BadExamples("example source %s: %s" % (self.command, msg))
        if n != len(key[1]):
            raise BadExamples("example source %s: %d rows for %d examples" % (self.command, n, len(key[1])))
        lengths = np.frombuffer(self._read(4 * n, "answer"), dtype="<u4").astype(np.int64)
        rows = np.frombuffer(self._read(n * self.row_tokens * self._dt.itemsize, "answer"), dtype=self._dt)
        rows = rows.reshape(n, self.row_tokens).astype(np.int64)
        return rows_to_batch(rows, lengths, self.context, self.vocab_size, key[0], list(key[1]))

    def close(self):
        """End the source: end of its input stops it."""
        if self.proc.poll() is None:
            # Closing both pipes: answers asked ahead and never read must
            # not keep the source blocked on a full pipe.
            for f in (self.proc.stdin, self.proc.stdout):
                try:
                    f.close()
                except OSError:
                    pass
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()


def open_stream(command, shards, options=(), env=None):
    return StreamExamples(command, shards, options, env)
