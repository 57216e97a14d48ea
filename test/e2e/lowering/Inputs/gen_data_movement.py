"""Generates test/e2e/lowering/data-movement.mlir: each case is a telar op
run through the CPU pipeline (build/bin/telar-opt, mlir-runner); its output
is compared with the ONNX reference evaluator (and onnxruntime where it runs
the op) before being written as CHECK lines. Run with the project's venv:
  .venv/bin/python test/e2e/lowering/Inputs/gen_data_movement.py
"""
import os, re, subprocess, sys
import numpy as np
import onnx
from onnx import helper, TensorProto
from onnx.reference import ReferenceEvaluator

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "../../../.."))
L = "/usr/lib/llvm-22/lib"

ORT_DIFF = []
def ref(op, inputs, n_out=1, opset=23, ort_only=False, **attrs):
    names = [f"i{k}" if a is not None else "" for k, a in enumerate(inputs)]
    outs = [f"o{k}" for k in range(n_out)]
    node = helper.make_node(op, names, outs, **attrs)
    vin = [helper.make_tensor_value_info(nm, helper.np_dtype_to_tensor_dtype(a.dtype), a.shape)
           for nm, a in zip(names, inputs) if a is not None]
    vout = [onnx.ValueInfoProto(name=o) for o in outs]
    g = helper.make_graph([node], "g", vin, vout)
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", opset)])
    feeds = {nm: a for nm, a in zip(names, inputs) if a is not None}
    ort_out = None
    try:
        import onnxruntime as ort
        m.ir_version = 8
        m.opset_import[0].version = min(opset, 21)
        ort_out = ort.InferenceSession(m.SerializeToString()).run(None, feeds)
    except Exception as e:
        ORT_DIFF.append(f"{op}: onnxruntime failed: {str(e)[:100]}")
    if ort_only:
        return ort_out
    r = ReferenceEvaluator(helper.make_model(g, opset_imports=[helper.make_opsetid("", opset)])).run(None, feeds)
    if ort_out is not None:
        for a, b in zip(r, ort_out):
            if not np.allclose(a, b, rtol=1e-4, atol=1e-5):
                ORT_DIFF.append(f"{op} {attrs}: reference and onnxruntime differ")
    return r

def ty(a):
    et = {np.dtype("float32"): "f32", np.dtype("int64"): "i64", np.dtype("int32"): "i32"}[a.dtype]
    return "tensor<" + "".join(f"{d}x" for d in a.shape) + et + ">"

def lit(a):
    if a.dtype.kind == "f":
        return "dense<" + repr(a.tolist()).replace("'", "") + ">"
    return "dense<" + repr(a.tolist()) + ">"

cases = []
def case(name, comment, args, body, expected):
    """args: runtime inputs (numpy); body: telar op lines using %a0.. and
    producing %r0..; expected: list of numpy arrays."""
    cases.append((name, comment, args, body, expected))

f = np.float32
x234 = np.arange(24, dtype=f).reshape(2, 3, 4)
m24 = np.array([[1, 2, 3, 4], [5, 6, 7, 8]], dtype=f)

case("reshape", "Regrouping dims that are not one collapse or expand (through 1-D).",
     [x234], "%r0 = telar.reshape %a0 {shape = array<i64: 4, 6>} : (tensor<2x3x4xf32>) -> tensor<4x6xf32>",
     [x234.reshape(4, 6)])
case("transpose", None, [x234],
     "%r0 = telar.transpose %a0 {perm = array<i64: 2, 0, 1>} : (tensor<2x3x4xf32>) -> tensor<4x2x3xf32>",
     [x234.transpose(2, 0, 1)])
case("concat_split", "Concat along axis 1, then split the result into 1, 4 and 2 columns.",
     [m24, np.array([[9, 10, 11], [12, 13, 14]], dtype=f)],
     """%c = telar.concat %a0, %a1 {axis = 1 : i64} : (tensor<2x4xf32>, tensor<2x3xf32>) -> tensor<2x7xf32>
  %r0, %r1, %r2 = telar.split %c {axis = -1 : i64, sizes = array<i64: 1, 4, 2>} : (tensor<2x7xf32>) -> (tensor<2x1xf32>, tensor<2x4xf32>, tensor<2x2xf32>)""",
     np.split(np.concatenate([m24, np.array([[9, 10, 11], [12, 13, 14]], dtype=f)], 1), [1, 5], 1))
case("slice", "A negative step on axis 1 (clamped start), a positive step on axis 2.", [x234],
     "%r0 = telar.slice %a0 {axes = array<i64: 1, -1>, starts = array<i64: 100, 1>, ends = array<i64: -100, 4>, steps = array<i64: -2, 2>} : (tensor<2x3x4xf32>) -> tensor<2x2x2xf32>",
     ref("Slice", [x234, np.array([100, 1]), np.array([-100, 4]), np.array([1, -1]), np.array([-2, 2])]))
idx = np.array([[0, -1], [1, 2], [-3, 0]], dtype=np.int64)
case("gather", "Indices [3, 2] along axis 1, negative ones wrap.", [x234, idx],
     "%r0 = telar.gather %a0, %a1 {axis = 1 : i64} : (tensor<2x3x4xf32>, tensor<3x2xi64>) -> tensor<2x3x2x4xf32>",
     ref("Gather", [x234, idx], axis=1))
emb = np.arange(15, dtype=np.int64).reshape(5, 3) * 10
ids = np.array([4, -5, 2], dtype=np.int32)
case("gather_embedding", "An integer table indexed by i32 ids.", [emb, ids],
     "%r0 = telar.gather %a0, %a1 {axis = 0 : i64} : (tensor<5x3xi64>, tensor<3xi32>) -> tensor<3x3xi64>",
     ref("Gather", [emb, ids], axis=0))
gi = np.array([[3, -1, 0], [1, 2, -4]], dtype=np.int64)
case("gather_elements", None, [m24, gi],
     "%r0 = telar.gather_elements %a0, %a1 {axis = 1 : i64} : (tensor<2x4xf32>, tensor<2x3xi64>) -> tensor<2x3xf32>",
     ref("GatherElements", [m24, gi], axis=1))
ndi = np.array([[[1], [0]], [[2], [-1]]], dtype=np.int64)
case("gather_nd", "batch_dims = 1: indices [2, 2, 1] pick rows of each batch.", [x234, ndi],
     "%r0 = telar.gather_nd %a0, %a1 {batch_dims = 1 : i64} : (tensor<2x3x4xf32>, tensor<2x2x1xi64>) -> tensor<2x2x4xf32>",
     ref("GatherND", [x234, ndi], batch_dims=1))
case("gather_scalar_index", "A rank-0 index removes the axis.", [x234, np.array(-2, dtype=np.int64)],
     "%r0 = telar.gather %a0, %a1 {axis = 2 : i64} : (tensor<2x3x4xf32>, tensor<i64>) -> tensor<2x3xf32>",
     ref("Gather", [x234, np.array(-2, dtype=np.int64)], axis=2))
fi = np.array([[1, 2, 3], [0, -1, 0]], dtype=np.int64)
case("gather_nd_full", "batch_dims = 0, full index tuples: one element each.", [x234, fi],
     "%r0 = telar.gather_nd %a0, %a1 : (tensor<2x3x4xf32>, tensor<2x3xi64>) -> tensor<2xf32>",
     ref("GatherND", [x234, fi]))
si = np.array([[1, 1, -1], [0, 2, 0]], dtype=np.int64)
su = np.array([[10, 20, 30], [40, 50, 60]], dtype=f)
case("scatter_elements_add", "Duplicate indices accumulate.", [m24, si, su],
     """%r0 = telar.scatter_elements %a0, %a1, %a2 {axis = 1 : i64, reduction = "add"} : (tensor<2x4xf32>, tensor<2x3xi64>, tensor<2x3xf32>) -> tensor<2x4xf32>""",
     ref("ScatterElements", [m24, si, su], axis=1, reduction="add"))
case("scatter_elements_none", "Without reduction the last duplicate wins.", [m24, si, su],
     """%r0 = telar.scatter_elements %a0, %a1, %a2 {axis = 1 : i64} : (tensor<2x4xf32>, tensor<2x3xi64>, tensor<2x3xf32>) -> tensor<2x4xf32>""",
     [np.array([[1, 20, 3, 30], [60, 6, 50, 8]], dtype=f)])
di = np.array([[0, 1], [-1, 0], [0, 1]], dtype=np.int64)
du = np.array([[2, 3, 4, 5], [6, 7, 8, 9], [10, 10, 10, 10]], dtype=f)
case("scatter_nd_mul", "Rows of a [2, 2, 4] tensor, one of them twice.", [x234[:, :2, :].copy(), di, du],
     """%r0 = telar.scatter_nd %a0, %a1, %a2 {reduction = "mul"} : (tensor<2x2x4xf32>, tensor<3x2xi64>, tensor<3x4xf32>) -> tensor<2x2x4xf32>""",
     ref("ScatterND", [x234[:, :2, :].copy(), di, du], reduction="mul"))
imax = np.array([[5, -3], [7, 1]], dtype=np.int64)
case("scatter_nd_max_int", "Integer max with whole-row updates.", [imax, np.array([[1], [1]], dtype=np.int64), np.array([[2, 2], [9, -9]], dtype=np.int64)],
     """%r0 = telar.scatter_nd %a0, %a1, %a2 {reduction = "max"} : (tensor<2x2xi64>, tensor<2x1xi64>, tensor<2x2xi64>) -> tensor<2x2xi64>""",
     ref("ScatterND", [imax, np.array([[1], [1]], dtype=np.int64), np.array([[2, 2], [9, -9]], dtype=np.int64)], reduction="max"))
sfi = np.array([[0, 1], [1, 0], [0, 1]], dtype=np.int64)
sfu = np.array([100, -7, 5], dtype=np.int64)
case("scatter_nd_elements", "Full index tuples (rank-0 update slices), no reduction: the last duplicate wins.",
     [imax, sfi, sfu],
     """%r0 = telar.scatter_nd %a0, %a1, %a2 : (tensor<2x2xi64>, tensor<3x2xi64>, tensor<3xi64>) -> tensor<2x2xi64>""",
     ref("ScatterND", [imax, sfi, sfu]))
e31 = np.array([[1], [2], [3]], dtype=f)
case("expand", None, [e31],
     "%r0 = telar.expand %a0 {shape = array<i64: 2, 1, 4>} : (tensor<3x1xf32>) -> tensor<2x3x4xf32>",
     [np.broadcast_to(e31, (2, 3, 4))])
case("tile", None, [m24],
     "%r0 = telar.tile %a0 {repeats = array<i64: 2, 2>} : (tensor<2x4xf32>) -> tensor<4x8xf32>",
     [np.tile(m24, (2, 2))])
case("pad_constant", "Negative pads crop before padding.", [m24],
     """%r0 = telar.pad %a0 {pads = array<i64: 1, -1, 0, 2>, mode = "constant", value = -1.5 : f64} : (tensor<2x4xf32>) -> tensor<3x5xf32>""",
     [np.pad(m24[:, 1:], ((1, 0), (0, 2)), constant_values=-1.5)])
for mode in ["reflect", "edge", "wrap"]:
    case(f"pad_{mode}", "Pads larger than the axis repeat the pattern (as np.pad does)." if mode == "reflect" else None, [m24],
         f"""%r0 = telar.pad %a0 {{pads = array<i64: 1, 5, 2, 2>, mode = "{mode}", value = 0.0 : f64}} : (tensor<2x4xf32>) -> tensor<5x11xf32>""",
         [np.pad(m24, ((1, 2), (5, 2)), mode=mode)])
case("pad_wrap_crop", "Negative pads crop first, then wrap reads the cropped axis (as onnxruntime does).", [m24],
     """%r0 = telar.pad %a0 {pads = array<i64: 0, -1, 1, 2>, mode = "wrap", value = 0.0 : f64} : (tensor<2x4xf32>) -> tensor<3x5xf32>""",
     ref("Pad", [m24, np.array([0, -1, 1, 2])], opset=19, mode="wrap", ort_only=True))
oh = np.array([[1, -1], [3, 7]], dtype=np.int64)
case("one_hot", "Axis 1; -1 wraps to 3, 7 is out of range (all off).", [oh, np.array([0.5, 2], dtype=f)],
     "%r0 = telar.one_hot %a0, %a1 {depth = 4 : i64, axis = 1 : i64} : (tensor<2x2xi64>, tensor<2xf32>) -> tensor<2x4x2xf32>",
     # The reference evaluator wraps out-of-range indices with np.mod, against
     # the spec; onnxruntime follows the spec.
     ref("OneHot", [oh, np.array(4, dtype=np.int64), np.array([0.5, 2], dtype=f)], axis=1, ort_only=True))
tri = np.arange(1, 13, dtype=f).reshape(3, 4)
case("trilu_upper", None, [tri],
     "%r0 = telar.trilu %a0 {upper = true, k = 1 : i64} : (tensor<3x4xf32>) -> tensor<3x4xf32>",
     [np.triu(tri, 1)])
case("trilu_lower", None, [tri],
     "%r0 = telar.trilu %a0 {upper = false, k = -1 : i64} : (tensor<3x4xf32>) -> tensor<3x4xf32>",
     [np.tril(tri, -1)])
img = np.array([[[[1, 2, 3, 4], [5, 6, 7, 8], [9, 10, 11, 12]]]], dtype=f)
def resize_case(name, comment, sizes, scales, mode, ctm, nearest="round_prefer_floor", extra="", **kw):
    out = list(sizes)
    attrs = dict(mode=mode, coordinate_transformation_mode=ctm, nearest_mode=nearest, **kw)
    r = ref("Resize", [img, None, np.array(scales, dtype=f) if scales else None,
                       None if scales else np.array(sizes, dtype=np.int64)], opset=19, **attrs)
    tel_scales = scales if scales else [o / i for o, i in zip(sizes, img.shape)]
    sc = ", ".join(repr(float(np.float32(s))) for s in tel_scales)
    case(name, comment, [img],
         f"""%r0 = telar.resize %a0 {{scales = array<f32: {sc}>, sizes = array<i64: {', '.join(map(str, out))}>, mode = "{mode}", coordinate_transformation_mode = "{ctm}", nearest_mode = "{nearest}"{extra}}} : (tensor<1x1x3x4xf32>) -> tensor<1x1x{out[2]}x{out[3]}xf32>""",
         r)
resize_case("resize_nearest", "nearest, asymmetric, floor, scales 2 x 1.5.", [1, 1, 6, 6], [1, 1, 2, 1.5], "nearest", "asymmetric", "floor")
resize_case("resize_nearest_half_pixel", "nearest, half_pixel, round_prefer_ceil, downsampling to sizes.", [1, 1, 2, 3], None, "nearest", "half_pixel", "round_prefer_ceil")
resize_case("resize_linear", "linear, half_pixel, scales 2 x 2.", [1, 1, 6, 8], [1, 1, 2, 2], "linear", "half_pixel")
resize_case("resize_linear_align_corners", "linear, align_corners, sizes.", [1, 1, 5, 3], None, "linear", "align_corners")
resize_case("resize_linear_pytorch", "linear, pytorch_half_pixel, downsampling to sizes (one row).", [1, 1, 1, 3], None, "linear", "pytorch_half_pixel")
resize_case("resize_cubic", "cubic, half_pixel, exclude_outside, A = -0.5.", [1, 1, 4, 5], None, "cubic", "half_pixel",
            extra=", cubic_coeff_a = -5.000000e-01 : f32, exclude_outside = true", cubic_coeff_a=-0.5, exclude_outside=1)
d2s = np.arange(16, dtype=f).reshape(1, 8, 1, 2)
case("depth_to_space_dcr", None, [d2s],
     """%r0 = telar.depth_to_space %a0 {blocksize = 2 : i64, mode = "DCR"} : (tensor<1x8x1x2xf32>) -> tensor<1x2x2x4xf32>""",
     ref("DepthToSpace", [d2s], blocksize=2, mode="DCR"))
case("depth_to_space_crd", None, [d2s],
     """%r0 = telar.depth_to_space %a0 {blocksize = 2 : i64, mode = "CRD"} : (tensor<1x8x1x2xf32>) -> tensor<1x2x2x4xf32>""",
     ref("DepthToSpace", [d2s], blocksize=2, mode="CRD"))
s2d = np.arange(32, dtype=f).reshape(1, 2, 4, 4)
case("space_to_depth", None, [s2d],
     "%r0 = telar.space_to_depth %a0 {blocksize = 2 : i64} : (tensor<1x2x4x4xf32>) -> tensor<1x8x2x2xf32>",
     ref("SpaceToDepth", [s2d], blocksize=2))
rng = np.random.default_rng(0)
rx = rng.standard_normal((1, 2, 3, 4)).astype(f).round(2)
cosc = rng.standard_normal((1, 3, 2)).astype(f).round(2)
sinc = rng.standard_normal((1, 3, 2)).astype(f).round(2)
case("rotary", "[B, H, S, D] input, halves rotate, caches [1, S, D/2].", [rx, cosc, sinc],
     "%r0 = telar.rotary_embedding %a0, %a1, %a2 {interleaved = false, rotary_embedding_dim = 0 : i64, num_heads = 0 : i64} : (tensor<1x2x3x4xf32>, tensor<1x3x2xf32>, tensor<1x3x2xf32>) -> tensor<1x2x3x4xf32>",
     ref("RotaryEmbedding", [rx, cosc, sinc]))
rx3 = rng.standard_normal((1, 2, 12)).astype(f).round(2)
pc = rng.standard_normal((5, 3)).astype(f).round(2)
ps = rng.standard_normal((5, 3)).astype(f).round(2)
pos = np.array([[4, 1]], dtype=np.int64)
case("rotary_interleaved", "[B, S, hidden] input with 2 heads of 6, position ids, interleaved pairs, only the first 4 features rotate (caches hold 3 angles).",
     [rx3, pc, ps, pos],
     "%r0 = telar.rotary_embedding %a0, %a1, %a2, %a3 {interleaved = true, rotary_embedding_dim = 4 : i64, num_heads = 2 : i64} : (tensor<1x2x12xf32>, tensor<5x3xf32>, tensor<5x3xf32>, tensor<1x2xi64>) -> tensor<1x2x12xf32>",
     ref("RotaryEmbedding", [rx3, pc, ps, pos], interleaved=1, rotary_embedding_dim=4, num_heads=2))

def printer(a):
    return "printMemrefF32" if a.dtype.kind == "f" else "printMemrefI64"
def erased(a):
    return "tensor<*xf32>" if a.dtype.kind == "f" else "tensor<*xi64>"

def build(with_checks, outputs=None):
    lines = ["// Numeric checks of the data-movement lowering through MLIR's JIT runner.",
             "// Expected values come from the ONNX reference evaluator, checked against",
             "// onnxruntime (which alone gives one_hot: the reference wraps out-of-range",
             "// indices, against the spec). Regenerate with Inputs/gen_data_movement.py.",
             "// RUN: telar-opt %s %lower_standalone | %mlir_runner -e entry | FileCheck %s", ""]
    entry = []
    k = 0
    for name, comment, args, body, expected in cases:
        params = ", ".join(f"%a{i}: {ty(a)}" for i, a in enumerate(args))
        if comment:
            lines.append(f"// {comment}")
        lines.append(f"func.func @{name}({params}) {{")
        lines.append("  " + body)
        for j, e in enumerate(expected):
            e = np.asarray(e)
            lines.append(f"  %u{j} = tensor.cast %r{j} : {ty(e)} to {erased(e)}")
            lines.append(f"  call @{printer(e)}(%u{j}) : ({erased(e)}) -> ()")
        lines.append("  return")
        lines.append("}")
        if with_checks:
            for j, e in enumerate(expected):
                block = outputs[k]; k += 1
                head, data = block
                lines.append("// CHECK: " + re.sub(r"strides = \[[^\]]*\]", "strides = {{.*}}", head))
                for dl in data:
                    dl = re.sub(r"^\[\[+", lambda m: "{{" + "\\[" * len(m.group(0)) + "}}", dl.strip())
                    lines.append(f"// CHECK-NEXT: {dl}")
        lines.append("")
        consts = []
        for i, a in enumerate(args):
            consts.append(f"  %{name}_{i} = arith.constant {lit(a)} : {ty(a)}")
        entry += consts
        entry.append(f"  call @{name}(" + ", ".join(f"%{name}_{i}" for i in range(len(args))) + ") : (" +
                     ", ".join(ty(a) for a in args) + ") -> ()")
    lines.append("func.func @entry() {")
    lines += entry
    lines.append("  return")
    lines.append("}")
    lines.append("func.func private @printMemrefF32(tensor<*xf32>)")
    lines.append("func.func private @printMemrefI64(tensor<*xi64>)")
    return "\n".join(lines) + "\n"

print("\n".join(ORT_DIFF))
text = build(False)
p = subprocess.run(f"{ROOT}/build/bin/telar-opt - --telar-lower-to-llvm='library-calls=0 runtime-allocator=0 parallel=0' | "
                   f"/usr/lib/llvm-22/bin/mlir-runner -e entry -entry-point-result=void -shared-libs={L}/libmlir_runner_utils.so,{L}/libmlir_c_runner_utils.so",
                   shell=True, input=text, capture_output=True, text=True)
if p.returncode:
    print(p.stderr); sys.exit(1)
blocks = []
for chunk in p.stdout.split("Unranked Memref")[1:]:
    first, _, rest = chunk.partition("data = \n")
    head = re.search(r"sizes = .*strides = \[[^\]]*\]", first).group(0)
    data = [l for l in rest.splitlines() if l.strip()]
    blocks.append((head + " data =", data))
k = 0
bad = 0
for name, comment, args, body, expected in cases:
    for e in expected:
        e = np.asarray(e)
        head, data = blocks[k]; k += 1
        nums = re.findall(r"-?(?:nan|inf|[0-9.]+(?:e[-+]?[0-9]+)?)", " ".join(data))
        got = np.array([float(n) for n in nums])
        ok = got.size == e.size and np.allclose(got, e.ravel().astype(np.float64), rtol=1e-4, atol=1e-5)
        if not ok:
            bad += 1
            print("MISMATCH", name, "\n got", got, "\n want", e.ravel())
print(len(blocks), "outputs,", bad, "mismatches")
print("\n".join(ORT_DIFF))
if bad == 0:
    open(f"{ROOT}/test/e2e/lowering/data-movement.mlir", "w").write(build(True, blocks))
