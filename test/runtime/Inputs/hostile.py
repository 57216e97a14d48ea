#!/usr/bin/env python3
"""Hostile files for telar-run (test/runtime/hostile-files.test).

    hostile.py pb-huge OUT.pb          int8 [4, 2^30], no data (a few bytes)
    hostile.py pb-overflow OUT.pb      int8 [2^62, 8]: the byte count wraps
    hostile.py deep-manifest ART       a field nested 300,000 deep
    hostile.py dup-manifest ART        "inputs" twice
    hostile.py mesh-manifest ART A B   the mesh's sizes set to A and B
    hostile.py world-manifest ART N    world_size set to N
    hostile.py deep-safetensors FILE   the header nested 300,000 deep
    hostile.py dup-safetensors FILE    a tensor named twice
"""
import json
import os
import struct
import sys

DEPTH = 300_000


def tensor_proto(dims, path):
    from onnx import TensorProto
    t = TensorProto()
    t.data_type = TensorProto.INT8
    t.dims.extend(dims)
    with open(path, "wb") as f:
        f.write(t.SerializeToString())


def rewrite_manifest(art, edit):
    path = os.path.join(art, "manifest.json")
    with open(path) as f:
        text = f.read()
    with open(path, "w") as f:
        f.write(edit(text))


def rewrite_header(path, edit):
    with open(path, "rb") as f:
        data = f.read()
    (n,) = struct.unpack("<Q", data[:8])
    header = edit(data[8:8 + n].decode())
    header = header.encode()
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(header)) + header + data[8 + n:])


def main():
    kind, target = sys.argv[1], sys.argv[2]
    if kind == "pb-huge":
        tensor_proto([4, 2**30], target)
    elif kind == "pb-overflow":
        tensor_proto([2**62, 8], target)
    elif kind == "deep-manifest":
        rewrite_manifest(target, lambda t: '{"deep": ' + "[" * DEPTH +
                         "]" * DEPTH + ", " + t.lstrip()[1:])
    elif kind == "dup-manifest":
        rewrite_manifest(target, lambda t: '{"inputs": [], ' + t.lstrip()[1:])
    elif kind == "mesh-manifest":
        def edit(text):
            m = json.loads(text)
            m["mesh"]["shape"] = [int(sys.argv[3]), int(sys.argv[4])]
            return json.dumps(m)
        rewrite_manifest(target, edit)
    elif kind == "world-manifest":
        def edit(text):
            m = json.loads(text)
            m["world_size"] = int(sys.argv[3])
            return json.dumps(m)
        rewrite_manifest(target, edit)
    elif kind == "deep-safetensors":
        rewrite_header(target, lambda h: '{"deep": ' + "[" * DEPTH +
                       "]" * DEPTH + ", " + h.lstrip()[1:])
    elif kind == "dup-safetensors":
        def edit(h):
            entries = json.loads(h)
            name = next(k for k in entries if k != "__metadata__")
            entry = json.dumps(entries[name])
            return '{"%s": %s, %s' % (name, entry, h.lstrip()[1:])
        rewrite_header(target, edit)
    else:
        sys.exit(f"hostile.py: unknown kind {kind}")


if __name__ == "__main__":
    main()
