#!/usr/bin/env python3
"""Write malformed and unsupported ONNX models for telarc's error tests.

Usage:
    .venv/bin/python python/telar_testing/make_malformed_models.py --out DIR [--no-big]

Every model is tiny except big_external/, whose 2.2 GB weights file is SPARSE
(made with truncate; no data is written, it takes ~0 bytes of disk, reads as
zeros). --no-big skips it. DIR/MANIFEST.txt lists every file with what is wrong
with it (`path<TAB>description`). All models use opset 17, IR version 8 unless
the defect is the opset/IR itself.

Files (relative to DIR):
  truncated.onnx                 a valid model's bytes cut in half (protobuf parse error)
  garbage.onnx                   bytes that are not a protobuf
  empty.onnx                     0 bytes: parses as an empty ModelProto without a graph
  dangling_input.onnx            Add reads "missing", produced by nothing
  cycle.onnx                     Add -> Relu -> back into the Add (a cycle)
  duplicate_output.onnx          two nodes write the same value name "y"
  unsupported_foobar.onnx        op type FooBar in the default domain
  custom_domain_op.onnx          op FooBar of domain com.example (opset_import for it)
  unsupported_if.onnx            If with then/else subgraphs (control flow, not supported)
  matmul_string.onnx             MatMul on string tensors
  add_bool.onnx                  Add on bool tensors
  add_one_input.onnx             Add with a single input
  output_shape_mismatch.onnx     MatMul [2,3]x[3,2] gives [2,2]; graph output says [3,3]
  value_info_shape_mismatch.onnx same, declared in value_info on an inner value
  opset_too_new.onnx             default-domain opset 99
  raw_data_size_mismatch.onnx    initializer [4] float32 with 12 bytes of raw_data
  external_parent/model.onnx     external data location "../evil.bin" (evil.bin exists,
                                 in DIR, with valid data: only the path is wrong)
  external_absolute/model.onnx   external data location = absolute path of
                                 DIR/absolute_target.bin (exists, valid data)
  external_missing/model.onnx    external data file "nothere.bin" does not exist
  external_short/model.onnx      external data offset+length beyond the file's end
  symbolic_dim.onnx              input x: ["batch", 4] -> Relu; no shape given, so
                                 telarc needs --input-shape x=2x4
  big_external/model.onnx        W: float32 [550000000] (2.2 GB) in external
  big_external/weights.bin       sparse file; y = Add(x[4], Slice(W, 0, 4));
                                 a valid model (> 2 GB, which protobuf cannot inline)
"""

from __future__ import annotations

import argparse
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

OPSET = 17
IR_VERSION = 8
BIG_ELEMS = 550_000_000  # float32: 2.2e9 bytes > 2 GiB (2.147e9)

MANIFEST = []


def model(nodes, inputs, outputs, inits=(), value_info=(), opset=OPSET, extra_opsets=(),
          name="g"):
    g = helper.make_graph(nodes, name, inputs, outputs, initializer=list(inits),
                          value_info=list(value_info))
    opsets = [helper.make_opsetid("", opset)] + [helper.make_opsetid(d, v)
                                                  for d, v in extra_opsets]
    m = helper.make_model(g, opset_imports=opsets, producer_name="telar-malformed")
    m.ir_version = IR_VERSION
    return m


def save(out, rel, m, desc, check=False):
    path = os.path.join(out, rel)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    if check:  # self-test: models whose only defect is telarc-side must be valid ONNX
        onnx.checker.check_model(m)
    with open(path, "wb") as f:
        f.write(m.SerializeToString())
    MANIFEST.append((rel, desc))


def save_bytes(out, rel, data, desc):
    with open(os.path.join(out, rel), "wb") as f:
        f.write(data)
    MANIFEST.append((rel, desc))


def vi(name, elem, shape):
    return helper.make_tensor_value_info(name, elem, shape)


F32 = TensorProto.FLOAT


def valid_matmul():
    return model([helper.make_node("MatMul", ["a", "b"], ["y"], name="mm")],
                 [vi("a", F32, [2, 3]), vi("b", F32, [3, 2])], [vi("y", F32, [2, 2])])


def external_tensor(name, location, n, offset=0, length=None):
    t = TensorProto()
    t.name = name
    t.data_type = F32
    t.dims.extend([n])
    t.data_location = TensorProto.EXTERNAL
    for k, v in (("location", location), ("offset", str(offset)),
                 ("length", str(n * 4 if length is None else length))):
        e = t.external_data.add()
        e.key, e.value = k, v
    return t


def add_external_model(w):
    """y = x + w, x: [4], w external [4]."""
    return model([helper.make_node("Add", ["x", "w"], ["y"], name="add")],
                 [vi("x", F32, [4])], [vi("y", F32, [4])], inits=[w])


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", required=True)
    ap.add_argument("--no-big", action="store_true", help="skip big_external/")
    a = ap.parse_args(argv)
    out = a.out
    os.makedirs(out, exist_ok=True)
    MANIFEST.clear()

    # --- unparsable files
    good = valid_matmul().SerializeToString()
    save_bytes(out, "truncated.onnx", good[: len(good) // 2],
               "valid MatMul model truncated to half its bytes: protobuf parse error")
    save_bytes(out, "garbage.onnx", b"\xff\xff\xff\xffthis is not a protobuf\x00\x01" * 4,
               "not a protobuf at all")
    save_bytes(out, "empty.onnx", b"", "0 bytes: an empty ModelProto, no graph, no opset")

    # --- graph structure
    save(out, "dangling_input.onnx",
         model([helper.make_node("Add", ["x", "missing"], ["y"], name="add_dangling")],
               [vi("x", F32, [2])], [vi("y", F32, [2])]),
         'node add_dangling (Add) reads "missing", which no input, initializer or node defines')
    save(out, "cycle.onnx",
         model([helper.make_node("Add", ["x", "r"], ["s"], name="add_in_cycle"),
                helper.make_node("Relu", ["s"], ["r"], name="relu_in_cycle")],
               [vi("x", F32, [2])], [vi("r", F32, [2])]),
         "add_in_cycle reads r, relu_in_cycle reads s: a cycle")
    save(out, "duplicate_output.onnx",
         model([helper.make_node("Relu", ["x"], ["y"], name="first"),
                helper.make_node("Neg", ["x"], ["y"], name="second")],
               [vi("x", F32, [2])], [vi("y", F32, [2])]),
         'nodes first and second both define "y" (not SSA)')

    # --- unsupported ops
    save(out, "unsupported_foobar.onnx",
         model([helper.make_node("FooBar", ["x"], ["y"], name="foo")],
               [vi("x", F32, [2])], [vi("y", F32, [2])]),
         "op type FooBar (default domain) does not exist")
    save(out, "custom_domain_op.onnx",
         model([helper.make_node("FooBar", ["x"], ["y"], name="foo", domain="com.example")],
               [vi("x", F32, [2])], [vi("y", F32, [2])], extra_opsets=[("com.example", 1)]),
         "op com.example.FooBar: unknown domain", check=True)
    then_g = helper.make_graph([helper.make_node("Relu", ["x"], ["t"])], "then", [],
                               [vi("t", F32, [2])])
    else_g = helper.make_graph([helper.make_node("Neg", ["x"], ["e"])], "else", [],
                               [vi("e", F32, [2])])
    save(out, "unsupported_if.onnx",
         model([helper.make_node("If", ["c"], ["y"], name="branch",
                                 then_branch=then_g, else_branch=else_g)],
               [vi("c", TensorProto.BOOL, []), vi("x", F32, [2])], [vi("y", F32, [2])]),
         "If with subgraphs: valid ONNX, control flow is unsupported", check=True)

    # --- types and arity
    S = TensorProto.STRING
    save(out, "matmul_string.onnx",
         model([helper.make_node("MatMul", ["a", "b"], ["y"], name="mm_str")],
               [vi("a", S, [2, 2]), vi("b", S, [2, 2])], [vi("y", S, [2, 2])]),
         "MatMul on string tensors (type constraint violated)")
    B = TensorProto.BOOL
    save(out, "add_bool.onnx",
         model([helper.make_node("Add", ["a", "b"], ["y"], name="add_bool")],
               [vi("a", B, [2]), vi("b", B, [2])], [vi("y", B, [2])]),
         "Add on bool tensors (type constraint violated)")
    save(out, "add_one_input.onnx",
         model([helper.make_node("Add", ["a"], ["y"], name="add_unary")],
               [vi("a", F32, [2])], [vi("y", F32, [2])]),
         "Add with one input (needs two)")

    # --- shapes
    save(out, "output_shape_mismatch.onnx",
         model([helper.make_node("MatMul", ["a", "b"], ["y"], name="mm")],
               [vi("a", F32, [2, 3]), vi("b", F32, [3, 2])], [vi("y", F32, [3, 3])]),
         "MatMul [2,3]x[3,2] infers [2,2]; graph output y declared [3,3]", check=True)
    save(out, "value_info_shape_mismatch.onnx",
         model([helper.make_node("MatMul", ["a", "b"], ["m"], name="mm"),
                helper.make_node("Relu", ["m"], ["y"], name="relu")],
               [vi("a", F32, [2, 3]), vi("b", F32, [3, 2])], [vi("y", F32, [2, 2])],
               value_info=[vi("m", F32, [3, 3])]),
         "MatMul infers m: [2,2]; value_info declares m: [3,3]", check=True)
    save(out, "symbolic_dim.onnx",
         model([helper.make_node("Relu", ["x"], ["y"], name="relu")],
               [vi("x", F32, ["batch", 4])], [vi("y", F32, ["batch", 4])]),
         'input x has symbolic dim "batch"; needs --input-shape x=2x4', check=True)

    # --- versions and initializers
    save(out, "opset_too_new.onnx",
         model([helper.make_node("Relu", ["x"], ["y"], name="relu")],
               [vi("x", F32, [2])], [vi("y", F32, [2])], opset=99),
         "default-domain opset 99 (newer than any known)")
    bad = numpy_helper.from_array(np.ones(4, np.float32), "w")
    bad.raw_data = bad.raw_data[:12]
    save(out, "raw_data_size_mismatch.onnx",
         model([helper.make_node("Add", ["x", "w"], ["y"], name="add")],
               [vi("x", F32, [4])], [vi("y", F32, [4])], inits=[bad]),
         "initializer w: float32 [4] (16 bytes) with 12 bytes of raw_data")

    # --- external data paths (the data files exist and are valid; only paths are bad)
    data = np.arange(4, dtype=np.float32).tobytes()
    save_bytes(out, "evil.bin", data, "target of external_parent/ (valid data)")
    save(out, "external_parent/model.onnx",
         add_external_model(external_tensor("w", "../evil.bin", 4)),
         'external data location "../evil.bin" escapes the model directory')
    abs_target = os.path.abspath(os.path.join(out, "absolute_target.bin"))
    save_bytes(out, "absolute_target.bin", data, "target of external_absolute/ (valid data)")
    save(out, "external_absolute/model.onnx",
         add_external_model(external_tensor("w", abs_target, 4)),
         f"external data location is an absolute path ({abs_target})")
    save(out, "external_missing/model.onnx",
         add_external_model(external_tensor("w", "nothere.bin", 4)),
         'external data file "nothere.bin" does not exist')
    save(out, "external_short/model.onnx",
         add_external_model(external_tensor("w", "short.bin", 4, offset=8)),
         "external data offset 8 + length 16 > size 16 of short.bin")
    save_bytes(out, "external_short/short.bin", data, "16 bytes, too short for external_short/")

    # --- > 2 GB of weights, externally, sparse
    if not a.no_big:
        n = BIG_ELEMS
        i64 = lambda name, v: numpy_helper.from_array(np.array(v, np.int64), name)
        m = model(
            [helper.make_node("Slice", ["W", "starts", "ends", "axes"], ["w4"], name="slice"),
             helper.make_node("Add", ["x", "w4"], ["y"], name="add")],
            [vi("x", F32, [4])], [vi("y", F32, [4])],
            inits=[external_tensor("W", "weights.bin", n),
                   i64("starts", [0]), i64("ends", [4]), i64("axes", [0])])
        save(out, "big_external/model.onnx", m,
             f"valid: W float32 [{n}] ({n * 4 / 1e9:.1f} GB) in external weights.bin; "
             "y = x + W[0:4]")
        wpath = os.path.join(out, "big_external", "weights.bin")
        with open(wpath, "wb") as f:
            f.truncate(n * 4)  # sparse: no blocks written, reads as zeros
        onnx.checker.check_model(os.path.join(out, "big_external/model.onnx"))
        MANIFEST.append(("big_external/weights.bin",
                         f"sparse file of {n * 4} bytes (zeros), never written"))

    with open(os.path.join(out, "MANIFEST.txt"), "w") as f:
        for rel, desc in MANIFEST:
            f.write(f"{rel}\t{desc}\n")
    for rel, desc in MANIFEST:
        print(f"{rel:34s} {desc}")
    print(f"wrote {len(MANIFEST)} files to {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
