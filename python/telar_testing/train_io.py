"""What the training checks (train_models.py, grad_check.py) read from
`telar-run --train`: the safetensors file of --save-weights, with numpy only
(the `safetensors` package is not in the venv), and the "step I/N loss X"
lines of its stdout.

    read_safetensors(path) -> {name: np.ndarray}   (the header's order)
    write_safetensors(path, {name: np.ndarray}, metadata=None)
    parse_step_lines(stdout) -> {I: [(X, half a unit of X's last digit, N), ...]}

The format: an 8-byte little-endian header length N, N bytes of JSON
({name: {"dtype": "F32", "shape": [...], "data_offsets": [begin, end]}, ...,
optional "__metadata__": {str: str}}, padded with spaces), then the raw
little-endian, row-major data; offsets are relative to the end of the header.
read_safetensors checks what a reader must (the header length and JSON, known
dtypes, offsets inside the file, begin <= end, size = product(shape) *
itemsize, no overlap) and raises ValueError with the file and tensor named.
"""

from __future__ import annotations

import json
import re
import struct

import numpy as np

DTYPES = {
    "F64": np.float64, "F32": np.float32, "F16": np.float16,
    "I64": np.int64, "I32": np.int32, "I16": np.int16, "I8": np.int8,
    "U64": np.uint64, "U32": np.uint32, "U16": np.uint16, "U8": np.uint8,
    "BOOL": np.bool_,
}
NAMES = {np.dtype(v): k for k, v in DTYPES.items()}


def read_safetensors(path):
    with open(path, "rb") as f:
        blob = f.read()
    if len(blob) < 8:
        raise ValueError(f"{path}: {len(blob)} bytes, no safetensors header")
    (n,) = struct.unpack("<Q", blob[:8])
    if 8 + n > len(blob):
        raise ValueError(f"{path}: header length {n} runs past the file ({len(blob)} bytes)")
    try:
        header = json.loads(blob[8:8 + n].decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as e:
        raise ValueError(f"{path}: header is not JSON: {e}") from None
    if not isinstance(header, dict):
        raise ValueError(f"{path}: header is not a JSON object")
    data = memoryview(blob)[8 + n:]
    out, spans = {}, []
    for name, info in header.items():
        if name == "__metadata__":
            continue
        try:
            dtype_name, shape, (b, e) = info["dtype"], info["shape"], info["data_offsets"]
        except (KeyError, TypeError, ValueError):
            raise ValueError(f"{path}: tensor {name!r}: bad entry {info!r}") from None
        if dtype_name == "BF16":
            # bfloat16: the upper half of a float32.
            dt, itemsize = None, 2
        elif dtype_name in DTYPES:
            dt = np.dtype(DTYPES[dtype_name]).newbyteorder("<")
            itemsize = dt.itemsize
        else:
            raise ValueError(f"{path}: tensor {name!r}: unknown dtype {dtype_name!r}")
        count = int(np.prod(shape, dtype=np.int64)) if shape else 1
        if not (0 <= b <= e <= len(data)):
            raise ValueError(f"{path}: tensor {name!r}: data_offsets [{b}, {e}] outside "
                             f"the {len(data)} data bytes")
        if e - b != count * itemsize:
            raise ValueError(f"{path}: tensor {name!r}: {e - b} bytes for {dtype_name} "
                             f"shape {shape} ({count * itemsize} expected)")
        spans.append((b, e, name))
        raw = bytes(data[b:e])
        if dt is None:
            u16 = np.frombuffer(raw, dtype="<u2").astype(np.uint32) << 16
            arr = u16.view(np.float32)
        else:
            arr = np.frombuffer(raw, dtype=dt).astype(dt.newbyteorder("="))
        out[name] = arr.reshape(shape)
    spans.sort()
    for (b0, e0, n0), (b1, e1, n1) in zip(spans, spans[1:]):
        if b1 < e0 and e1 > b1:
            raise ValueError(f"{path}: tensors {n0!r} and {n1!r} overlap")
    return out


def write_safetensors(path, tensors, metadata=None):
    header, chunks, off = {}, [], 0
    if metadata:
        header["__metadata__"] = {str(k): str(v) for k, v in metadata.items()}
    for name, arr in tensors.items():
        arr = np.asarray(arr)  # (ascontiguousarray would make a 0-d array 1-d)
        dt = arr.dtype.newbyteorder("=")
        if dt not in NAMES:
            raise ValueError(f"{name}: dtype {arr.dtype} has no safetensors name")
        raw = arr.astype(dt.newbyteorder("<")).tobytes(order="C")
        header[name] = {"dtype": NAMES[dt], "shape": list(arr.shape),
                        "data_offsets": [off, off + len(raw)]}
        chunks.append(raw)
        off += len(raw)
    h = json.dumps(header, separators=(",", ":")).encode("utf-8")
    h += b" " * (-len(h) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(h)))
        f.write(h)
        for c in chunks:
            f.write(c)


# A rank prefix ("[1] step ...") is allowed.
STEP_LINE = re.compile(r"(?:^|\s)step\s+(\d+)\s*/\s*(\d+)\s+loss\s+(\S+)\s*$")


def parse_step_lines(stdout):
    """{I: [(X, half a unit of X's last printed digit, N), ...]} of the
    'step I/N loss X' lines of `stdout` (every rank's, when several print)."""
    out = {}
    for line in stdout.splitlines():
        m = STEP_LINE.search(line)
        if not m:
            continue
        text = m.group(3)
        try:
            v = float(text)
        except ValueError:
            v = float("nan")
        mant = re.match(r"[-+]?(\d*)(?:\.(\d*))?(?:[eE]([-+]?\d+))?$", text)
        if mant:
            frac = len(mant.group(2) or "")
            exp = int(mant.group(3) or 0)
            ulp = 0.5 * 10.0 ** (exp - frac)
        else:
            ulp = 0.0
        out.setdefault(int(m.group(1)), []).append((v, ulp, int(m.group(2))))
    return out
