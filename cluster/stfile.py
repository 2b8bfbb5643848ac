"""safetensors files without the safetensors package (Debian has none).

The format: an 8-byte little-endian header length, a JSON header mapping each
tensor name to {dtype, shape, data_offsets} (plus an optional
"__metadata__" string map), then the raw little-endian bytes. save() writes
float32 tensors atomically (temporary file, fsync, rename); load() reads F32,
F16, BF16 and F64 into float32 tensors, checking every offset against the
file size.
"""
import json
import os
import struct
import tempfile

import numpy as np
import torch

_MAX_HEADER = 100 << 20


def save(path, tensors, metadata=None):
    """Write {name: tensor} (in order) as F32, with string metadata."""
    header, blobs, off = {}, [], 0
    for name, t in tensors.items():
        a = t.detach().to("cpu", torch.float32).contiguous().numpy().astype("<f4", copy=False)
        b = a.tobytes()
        header[name] = {"dtype": "F32", "shape": list(a.shape), "data_offsets": [off, off + len(b)]}
        blobs.append(b)
        off += len(b)
    if metadata:
        header["__metadata__"] = {str(k): str(v) for k, v in metadata.items()}
    h = json.dumps(header, separators=(",", ":")).encode()
    h += b" " * (-len(h) % 8)

    def write(f):
        f.write(struct.pack("<Q", len(h)))
        f.write(h)
        for b in blobs:
            f.write(b)
    atomic_write(path, write)


def atomic_write(path, write):
    """Write path through a temporary file in its folder, fsync, rename."""
    d = os.path.dirname(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(prefix="." + os.path.basename(path) + ".", dir=d)
    try:
        os.chmod(tmp, 0o644)  # mkstemp makes 0600; these are ordinary files
        with os.fdopen(fd, "wb") as f:
            write(f)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def load(path):
    """Read a safetensors file: ({name: float32 tensor}, metadata)."""
    with open(path, "rb") as f:
        data = f.read()
    if len(data) < 8:
        raise ValueError("%s: %d bytes is shorter than the header length" % (path, len(data)))
    (hl,) = struct.unpack("<Q", data[:8])
    if hl > _MAX_HEADER or hl > len(data) - 8:
        raise ValueError("%s: header length %d does not fit the file of %d bytes" % (path, hl, len(data)))
    header = json.loads(data[8:8 + hl])
    body = memoryview(data)[8 + hl:]
    meta = header.pop("__metadata__", {}) or {}
    sizes = {"F32": ("<f4", 4), "F16": ("<f2", 2), "BF16": ("<u2", 2), "F64": ("<f8", 8)}
    out = {}
    for name, e in header.items():
        if e.get("dtype") not in sizes:
            raise ValueError("%s: tensor %s: dtype %r not supported" % (path, name, e.get("dtype")))
        dt, size = sizes[e["dtype"]]
        shape = [int(d) for d in e["shape"]]
        b, en = e["data_offsets"]
        n = int(np.prod(shape)) if shape else 1
        if not (0 <= b <= en <= len(body)) or en - b != n * size:
            raise ValueError("%s: tensor %s: data_offsets %s do not fit shape %s" % (path, name, [b, en], shape))
        a = np.frombuffer(body[b:en], dtype=dt)
        if e["dtype"] == "BF16":
            a = (a.astype(np.uint32) << 16).view(np.float32)
        out[name] = torch.from_numpy(a.astype(np.float32)).reshape(shape)
    return out, meta
