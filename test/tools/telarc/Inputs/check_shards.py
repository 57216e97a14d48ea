"""Checks a multi-rank artifact's weights against a single-device one.

  check_shards.py SHARDED_ARTIFACT REFERENCE_ARTIFACT

Every weight of the sharded artifact is read back from its file(s): a
replicated one must equal the reference's tensor of the same name; a
sharded one is reassembled from every rank's block (the blocks' offsets
computed here, independently of the compiler: ranks row-major over the mesh
axes, a dimension's block index row-major over its axes) and must equal the
reference's global tensor. Prints one line per weight.
"""
import json
import struct
import sys

import numpy as np

DTYPES = {"F32": np.float32, "F64": np.float64, "F16": np.float16,
          "I64": np.int64, "I32": np.int32, "I8": np.int8, "U8": np.uint8,
          "BOOL": np.bool_}


def read_safetensors(path):
    data = open(path, "rb").read()
    (n,) = struct.unpack("<Q", data[:8])
    assert (8 + n) % 64 == 0, f"{path}: data not 64-byte aligned"
    header = json.loads(data[8:8 + n])
    tensors = {}
    for name, info in header.items():
        if name == "__metadata__":
            continue
        begin, end = info["data_offsets"]
        assert begin % 64 == 0, f"{path}: {name} not aligned"
        array = np.frombuffer(data[8 + n + begin:8 + n + end],
                              DTYPES[info["dtype"]])
        tensors[name] = array.reshape(info["shape"])
    return tensors


def main(art, ref):
    manifest = json.load(open(f"{art}/manifest.json"))
    reference = read_safetensors(f"{ref}/weights/weights.safetensors")
    axes = manifest["mesh"]["axes"]
    sizes = manifest["mesh"]["shape"]
    world = manifest["world_size"]
    assert world == int(np.prod(sizes)), "world_size is not the mesh's"
    files = {}
    for w in manifest["weights"]:
        name, file = w["name"], w["file"]
        expected = reference[name]
        if "sharding" not in w:
            got = read_safetensors(f"{art}/{file}")[name]
            assert got.shape == tuple(w["shape"]), name
            assert np.array_equal(got, expected), f"{name}: differs"
            print(f"{name}: replicated ok")
            continue
        assert "{rank}" in file, f"{name}: a sharded weight's file needs {{rank}}"
        assert tuple(w["global_shape"]) == expected.shape, name
        whole = np.zeros_like(expected)
        covered = np.zeros(expected.shape, np.int32)
        for rank in range(world):
            coords, rest = [], rank
            for size in reversed(sizes):
                coords.insert(0, rest % size)
                rest //= size
            path = f"{art}/{file.replace('{rank}', str(rank))}"
            block = files.setdefault(path, read_safetensors(path))[name]
            assert block.shape == tuple(w["shape"]), f"{name}: rank {rank}"
            index = []
            for d, dim_axes in enumerate(w["sharding"]):
                b = 0
                for a in dim_axes:
                    i = axes.index(a)
                    b = b * sizes[i] + coords[i]
                index.append(slice(b * block.shape[d], (b + 1) * block.shape[d]))
            whole[tuple(index)] = block
            covered[tuple(index)] += 1
        replicas = world // int(np.prod(
            [sizes[axes.index(a)] for dim in w["sharding"] for a in dim]))
        assert (covered == replicas).all(), f"{name}: blocks do not tile it"
        assert np.array_equal(whole, expected), f"{name}: blocks differ"
        print(f"{name}: {w['sharding']} ok, {world} blocks of {w['shape']}")


if __name__ == "__main__":
    main(*sys.argv[1:])
