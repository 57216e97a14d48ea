"""Writes test/e2e/lowering/{elementwise,reductions}.mlir: one function per
case applying a telar op to constant inputs and printing the result; the
lowered file is run with mlir-runner, every printed result is compared with
onnxruntime (numpy where onnxruntime lacks the case) and becomes a CHECK line.

  .venv/bin/python test/e2e/lowering/Inputs/make_checks.py elementwise test/e2e/lowering/elementwise.mlir
  .venv/bin/python test/e2e/lowering/Inputs/make_checks.py reductions test/e2e/lowering/reductions.mlir

Exits 1 when a result differs from the reference (the file is written anyway).
"""
import re, subprocess, sys
import numpy as np
import onnx
from onnx import helper, TensorProto
import onnxruntime as ort

import os
ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", "..", ".."))
BIN = os.path.join(ROOT, "build", "bin", "telar-opt")
RUNNER = ("/usr/lib/llvm-22/bin/mlir-runner -e entry -entry-point-result=void "
          "-shared-libs=/usr/lib/llvm-22/lib/libmlir_runner_utils.so,"
          "/usr/lib/llvm-22/lib/libmlir_c_runner_utils.so")
PIPE = "--telar-lower-to-llvm=library-calls=0 runtime-allocator=0 parallel=0"

MLIR_T = {np.float32: "f32", np.float64: "f64", np.float16: "f16",
          np.int32: "i32", np.int64: "i64", np.int8: "i8", np.int16: "i16",
          np.uint8: "ui8", np.uint16: "ui16", np.uint32: "ui32", np.uint64: "ui64",
          np.bool_: "i1"}
ONNX_T = {np.float32: TensorProto.FLOAT, np.float64: TensorProto.DOUBLE,
          np.float16: TensorProto.FLOAT16,
          np.int32: TensorProto.INT32, np.int64: TensorProto.INT64,
          np.int8: TensorProto.INT8, np.int16: TensorProto.INT16,
          np.uint8: TensorProto.UINT8, np.uint16: TensorProto.UINT16,
          np.uint32: TensorProto.UINT32, np.uint64: TensorProto.UINT64,
          np.bool_: TensorProto.BOOL}

def ttype(a):
    a = np.asarray(a)
    shape = "x".join(str(d) for d in a.shape)
    el = MLIR_T[a.dtype.type]
    return f"tensor<{shape}x{el}>" if a.shape else f"tensor<{el}>"

def dense(a):
    a = np.asarray(a)
    def fmt(v):
        if a.dtype == np.bool_:
            return "true" if v else "false"
        if a.dtype.kind == "f":
            if np.isnan(v): return "0x7FC00000" if a.dtype == np.float32 else "0x7FF8000000000000"
            if np.isinf(v):
                if a.dtype == np.float32:
                    return "0x7F800000" if v > 0 else "0xFF800000"
                return "0x7FF0000000000000" if v > 0 else "0xFFF0000000000000"
            return repr(float(v))
        return str(int(v))
    def rec(x):
        if x.ndim == 0: return fmt(x[()])
        return "[" + ", ".join(rec(y) for y in x) + "]"
    return f"dense<{rec(a)}>"

class Case:
    def __init__(self, name, telar, inputs, onnx_op=None, attrs=None, ref=None,
                 out_types=None, comment=None):
        # telar: op text after "telar.", e.g. 'mod %0, %1 {fmod = true}'; the
        # type signature is appended. out_types: numpy dtypes of results
        # (default: first input's), ref: numpy function giving results.
        self.name, self.telar, self.inputs = "t_" + name, telar, [np.asarray(i) for i in inputs]
        self.onnx_op, self.attrs, self.ref = onnx_op, attrs or {}, ref
        self.out_types, self.comment = out_types, comment

    def expected(self):
        if self.ref is not None:
            r = self.ref(*self.inputs)
            return list(r) if isinstance(r, tuple) else [r]
        op, attrs, extra = self.onnx_op[:3]
        names = [f"x{i}" for i in range(len(self.inputs))]
        inits = []
        for j, e in enumerate(extra):
            e = np.asarray(e); n = f"c{j}"
            inits.append(onnx.numpy_helper.from_array(e, n)); names.append(n)
        nout = len(self.out_shapes)
        node = helper.make_node(op, names[:len(self.inputs)] + names[len(self.inputs):],
                                [f"y{i}" for i in range(nout)], **attrs)
        g = helper.make_graph([node], "g",
            [helper.make_tensor_value_info(f"x{i}", ONNX_T[a.dtype.type], a.shape)
             for i, a in enumerate(self.inputs)],
            [helper.make_tensor_value_info(f"y{i}", ONNX_T[t], None)
             for i, t in enumerate(self.out_dtypes)], initializer=inits)
        opset = self.onnx_op[3] if len(self.onnx_op) > 3 else 18
        m = helper.make_model(g, opset_imports=[helper.make_opsetid("", opset)])
        m.ir_version = 8
        s = ort.InferenceSession(m.SerializeToString(), providers=["CPUExecutionProvider"])
        return s.run(None, {f"x{i}": a for i, a in enumerate(self.inputs)})

def build(cases, header):
    lines = [header, ""]
    entry = ["func.func @entry() {"]
    for ci, c in enumerate(cases):
        args = ", ".join(f"%a{i}: {ttype(a)}" for i, a in enumerate(c.inputs))
        outs = c.out_shapes
        res_types = [f"tensor<{'x'.join(map(str, s))}x{MLIR_T[t]}>" if s else f"tensor<{MLIR_T[t]}>"
                     for s, t in zip(outs, c.out_dtypes)]
        sig = "(" + ", ".join(ttype(a) for a in c.inputs) + ") -> "
        sig += res_types[0] if len(res_types) == 1 else "(" + ", ".join(res_types) + ")"
        op = c.telar
        for i in range(len(c.inputs)):
            op = op.replace(f"${i}", f"%a{i}")
        if c.comment:
            lines.append(f"// {c.comment}")
        lines.append(f"func.func @{c.name}({args}) {{")
        rnames = ", ".join(f"%r{i}" for i in range(len(outs)))
        rdecl = "%r" if len(outs) == 1 else f"%r:{len(outs)}"
        lines.append(f"  {rdecl} = telar.{op} : {sig}")
        for i, (s, t) in enumerate(zip(outs, c.out_dtypes)):
            rv = "%r" if len(outs) == 1 else f"%r#{i}"
            isf = np.dtype(t).kind == "f"
            pt = "f32" if isf else "i64"
            v = rv
            full = f"tensor<{'x'.join(map(str, s))}x{pt}>" if s else f"tensor<{pt}>"
            if MLIR_T[t] != pt:
                lines.append(f"  %c{i} = telar.cast {rv} {{to = {pt}}} : ({res_types[i]}) -> {full}")
                v = f"%c{i}"
            n = int(np.prod(s)) if s else 1
            flat = f"tensor<{n}x{pt}>"
            if len(s) == 0:
                lines.append(f"  %f{i} = tensor.expand_shape {v} [] output_shape [1] : {full} into {flat}")
                v = f"%f{i}"
            elif len(s) > 1:
                lines.append(f"  %f{i} = tensor.collapse_shape {v} [[{', '.join(map(str, range(len(s))))}]] : {full} into {flat}")
                v = f"%f{i}"
            lines.append(f"  %u{i} = tensor.cast {v} : {flat} to tensor<*x{pt}>")
            fn = "printMemrefF32" if isf else "printMemrefI64"
            lines.append(f"  call @{fn}(%u{i}) : (tensor<*x{pt}>) -> ()")
        lines.append("  return")
        lines.append("}")
        for i in range(len(outs)):
            lines.append(f"// CHECK: @@{ci}_{i}@@")
        lines.append("")
        # entry
        cargs = []
        for i, a in enumerate(c.inputs):
            unsigned = a.dtype.kind == "u"
            cop = "telar.constant" if unsigned else "arith.constant"
            entry.append(f"  %{c.name}_{i} = {cop} {dense(a)} : {ttype(a)}")
            cargs.append(f"%{c.name}_{i}")
        entry.append(f"  call @{c.name}({', '.join(cargs)}) : ({', '.join(ttype(a) for a in c.inputs)}) -> ()")
    entry += ["  return", "}", "func.func private @printMemrefF32(tensor<*xf32>)",
              "func.func private @printMemrefI64(tensor<*xi64>)"]
    return "\n".join(lines + entry) + "\n"

def parse_numbers(line):
    return [float(x) for x in re.findall(r"-?nan|-?inf|[-+]?\d+(?:\.\d*)?(?:e[-+]?\d+)?", line)]

def run(cases, header, out_path, rtol=1e-4, atol=1e-5):
    for c in cases:
        if c.out_types is None:
            c.out_dtypes = [c.inputs[0].dtype.type]
        else:
            c.out_dtypes = [np.dtype(t).type for t in c.out_types]
        if not hasattr(c, "out_shapes"):
            c.out_shapes = None
    # expected first (also gives output shapes when ref is used)
    for c in cases:
        if c.out_shapes is None:
            c.out_shapes = [None] * len(c.out_dtypes)
        try:
            exp = c.expected()
        except Exception as e:
            print("reference failed for", c.name, str(e)[:200]); raise
        c.exp = [np.asarray(e) for e in exp]
        c.out_shapes = [e.shape for e in c.exp]
    text = build(cases, header)
    lowered = subprocess.run([BIN, "-", PIPE], input=text, capture_output=True, text=True)
    if lowered.returncode:
        print(lowered.stderr[:5000]); sys.exit(1)
    r = subprocess.run(RUNNER.split(), input=lowered.stdout, capture_output=True, text=True)
    if r.returncode:
        print(r.stderr[:5000]); sys.exit(1)
    out = r.stdout.splitlines()
    ok = True
    pos = 0
    for ci, c in enumerate(cases):
        for i, e in enumerate(c.exp):
            assert out[pos].startswith("Unranked"), out[pos]
            data = out[pos + 1]
            pos += 2
            got = np.array(parse_numbers(data))
            ef = e.astype(np.float64).reshape(-1)
            if e.dtype.kind == "f":
                good = got.shape == ef.shape and np.allclose(got, ef, rtol=max(rtol, 2e-5), atol=max(atol, 1e-5) , equal_nan=True)
                # printed with 6 significant digits
            else:
                good = got.shape == ef.shape and np.array_equal(got, ef)
            if not good:
                ok = False
                print(f"MISMATCH {c.name}[{i}]: got {data}\n  expected {ef}")
            text = text.replace(f"@@{ci}_{i}@@", data.strip())
    open(out_path, "w").write(text)
    print("OK" if ok else "FAILURES", out_path)
    return ok


def elementwise(out, only=None):
    f = np.float32
    x = np.array([-2.5, -1.0, -0.5, 0.0, 0.5, 1.0, 2.5, 3.7], f)
    pos = np.array([0.1, 0.5, 1.0, 2.0, 3.0, 10.0], f)
    unit = np.array([-0.9, -0.5, -0.1, 0.0, 0.3, 0.8], f)
    ge1 = np.array([1.0, 1.5, 2.0, 5.0, 10.0, 100.0], f)
    i32 = np.array([-7, -3, -1, 0, 1, 4, 9, 100], np.int32)
    u8 = np.array([0, 1, 7, 100, 200, 255], np.uint8)
    nan = np.array([np.nan, 1.0, -np.inf, np.inf, 0.0, -3.0], f)

    C = []
    def un(name, op, inp, onnx, attrs=None, opset=18, telar_attrs="", **kw):
        C.append(Case(name, f"{op} $0{telar_attrs}", [inp], onnx_op=(onnx, attrs or {}, [], opset), **kw))
    def bi(name, op, a, b, onnx, attrs=None, opset=18, telar_attrs="", **kw):
        C.append(Case(name, f"{op} $0, $1{telar_attrs}", [a, b], onnx_op=(onnx, attrs or {}, [], opset), **kw))

    for op, onnx in [("abs", "Abs"), ("neg", "Neg"), ("sign", "Sign"), ("exp", "Exp"),
                     ("reciprocal", "Reciprocal"), ("floor", "Floor"), ("ceil", "Ceil"),
                     ("round", "Round"), ("sin", "Sin"), ("cos", "Cos"), ("tan", "Tan"),
                     ("atan", "Atan"), ("sinh", "Sinh"), ("cosh", "Cosh"), ("asinh", "Asinh"),
                     ("tanh", "Tanh"), ("sigmoid", "Sigmoid"), ("relu", "Relu"), ("erf", "Erf"),
                     ("softplus", "Softplus"), ("softsign", "Softsign"),
                     ("hard_swish", "HardSwish"), ("mish", "Mish"), ("gelu", "Gelu")]:
        un(op, op, x, onnx, opset=20 if op == "gelu" else 18)
    for op, onnx, inp in [("log", "Log", pos), ("sqrt", "Sqrt", pos), ("asin", "Asin", unit),
                          ("acos", "Acos", unit), ("atanh", "Atanh", unit), ("acosh", "Acosh", ge1)]:
        un(op, op, inp, onnx)
    un("round_halves", "round", np.array([-2.5, -1.5, -0.5, 0.5, 1.5, 2.5, 3.5, 0.49999997], f), "Round")
    un("gelu_tanh", "gelu", x, "Gelu", {"approximate": "tanh"}, 20, ' {approximate = "tanh"}')
    un("leaky_relu", "leaky_relu", x, "LeakyRelu", {"alpha": 0.1}, telar_attrs=" {alpha = 1.000000e-01 : f32}")
    un("elu", "elu", x, "Elu", {"alpha": 0.5}, telar_attrs=" {alpha = 5.000000e-01 : f32}")
    un("celu", "celu", x, "Celu", {"alpha": 2.0}, telar_attrs=" {alpha = 2.000000e+00 : f32}")
    un("selu", "selu", x, "Selu")
    un("hard_sigmoid", "hard_sigmoid", x, "HardSigmoid", {"alpha": 0.3, "beta": 0.4},
       telar_attrs=" {alpha = 3.000000e-01 : f32, beta = 4.000000e-01 : f32}")
    un("thresholded_relu", "thresholded_relu", x, "ThresholdedRelu", {"alpha": 0.5},
       telar_attrs=" {alpha = 5.000000e-01 : f32}")
    un("shrink", "shrink", x, "Shrink", {"bias": 0.5, "lambd": 0.8},
       telar_attrs=" {bias = 5.000000e-01 : f32, lambd = 8.000000e-01 : f32}")
    un("shrink_i32", "shrink", i32, "Shrink", {"bias": 1.5, "lambd": 1.0},
       telar_attrs=" {bias = 1.500000e+00 : f32, lambd = 1.000000e+00 : f32}")
    C.append(Case("clip", "clip $0 {max = 2.0 : f64, min = -1.0 : f64}", [x],
                  onnx_op=("Clip", {}, [np.array(-1, f), np.array(2, f)])))
    C.append(Case("clip_min_only", "clip $0 {min = 0.5 : f64}", [x],
                  ref=lambda a: np.maximum(a, f(0.5))))
    C.append(Case("clip_inverted", "clip $0 {max = -1.0 : f64, min = 1.0 : f64}", [x],
                  onnx_op=("Clip", {}, [np.array(1, f), np.array(-1, f)])))
    C.append(Case("clip_ui8", "clip $0 {max = 150.0 : f64, min = 5.0 : f64}", [u8],
                  onnx_op=("Clip", {}, [np.array(5, np.uint8), np.array(150, np.uint8)])))
    C.append(Case("clip_i32", "clip $0 {max = 5.0 : f64, min = -2.0 : f64}", [i32],
                  onnx_op=("Clip", {}, [np.array(-2, np.int32), np.array(5, np.int32)])))
    for op, onnx in [("abs", "Abs"), ("neg", "Neg"), ("sign", "Sign"), ("relu", "Relu"),
                     ("bitwise_not", "BitwiseNot")]:
        un(op + "_i32", op, i32, onnx)
    un("bitwise_not_ui8", "bitwise_not", u8, "BitwiseNot")
    un("not", "not", np.array([True, False, True], np.bool_), "Not")
    un("is_nan", "is_nan", nan, "IsNaN", out_types=[np.bool_])
    un("is_inf", "is_inf", nan, "IsInf", out_types=[np.bool_])
    un("is_inf_neg", "is_inf", nan, "IsInf", {"detect_positive": 0}, out_types=[np.bool_],
       telar_attrs=" {detect_positive = false}")

    a23 = np.array([[1.5, -2.0, 3.0], [0.5, 4.0, -6.0]], f)
    b3 = np.array([2.0, -0.5, 3.0], f)
    for op, onnx in [("add", "Add"), ("sub", "Sub"), ("mul", "Mul"), ("div", "Div"),
                     ("max", "Max"), ("min", "Min"), ("prelu", "PRelu")]:
        bi(op + "_bcast", op, a23, b3, onnx)
    bi("pow", "pow", np.abs(a23), b3, "Pow")
    bi("pow_neg_base", "pow", a23, np.array([2.0, 3.0, 0.5], f), "Pow")
    ia = np.array([7, -7, 7, -7, 2, -3, 0, 5], np.int32)
    ib = np.array([2, 2, -2, -2, 10, 3, 4, -3], np.int32)
    for op, onnx in [("add", "Add"), ("sub", "Sub"), ("mul", "Mul"), ("div", "Div"),
                     ("max", "Max"), ("min", "Min")]:
        bi(op + "_i32", op, ia, ib, onnx)
    bi("pow_i32", "pow", ia, np.array([2, 3, 0, 1, 3, 2, 5, 2], np.int32), "Pow")
    bi("mod_i32", "mod", ia, ib, "Mod")
    bi("fmod_i32", "mod", ia, ib, "Mod", {"fmod": 1}, telar_attrs=" {fmod = true}")
    fa = np.array([5.5, -5.5, 5.5, -5.5, 3.0, -0.0], f)
    fb = np.array([2.0, 2.0, -2.0, -2.0, 1.5, 3.0], f)
    bi("fmod_f32", "mod", fa, fb, "Mod", {"fmod": 1}, telar_attrs=" {fmod = true}")
    C.append(Case("mod_f32", "mod $0, $1", [fa, fb], ref=lambda a, b: np.mod(a, b)))
    ua = np.array([200, 7, 255, 100, 3, 0], np.uint8)
    ub = np.array([3, 200, 16, 100, 5, 9], np.uint8)
    for op, ref in [("div", np.floor_divide), ("max", np.maximum), ("min", np.minimum),
                    ("mod", np.mod), ("sub", np.subtract)]:
        C.append(Case(op + "_ui8", f"{op} $0, $1", [ua, ub], ref=ref))
    for op, onnx in [("less", "Less"), ("greater_equal", "GreaterOrEqual")]:
        bi(op + "_ui8", op, ua, ub, onnx, out_types=[np.bool_])
    for op, onnx in [("equal", "Equal"), ("less", "Less"), ("less_equal", "LessOrEqual"),
                     ("greater", "Greater"), ("greater_equal", "GreaterOrEqual")]:
        bi(op, op, a23, b3, onnx, out_types=[np.bool_])
    bi("equal_i32", "equal", ia, ib, "Equal", out_types=[np.bool_])
    bi("less_i32", "less", ia, ib, "Less", out_types=[np.bool_])
    nb = np.array([1.0, np.nan, 0.0, 2.0, np.nan, -5.0], f)
    bi("max_nan", "max", nan, nb, "Max")
    bi("min_nan", "min", nan, nb, "Min")
    pa = np.array([True, True, False, False])
    pb = np.array([True, False, True, False])
    for op, onnx in [("and", "And"), ("or", "Or"), ("xor", "Xor")]:
        bi(op, op, pa, pb, onnx)
    for op, onnx in [("bitwise_and", "BitwiseAnd"), ("bitwise_or", "BitwiseOr"), ("bitwise_xor", "BitwiseXor")]:
        bi(op, op, ia, ib, onnx)
    sa = np.array([16, 1, 255, 3], np.uint8)
    sb = np.array([2, 7, 4, 0], np.uint8)
    bi("bit_shift_left", "bit_shift", sa, sb, "BitShift", {"direction": "LEFT"})
    bi("bit_shift_right", "bit_shift", sa, sb, "BitShift", {"direction": "RIGHT"},
       telar_attrs=" {left = false}")
    C.append(Case("where", "where $0, $1, $2",
                  [np.array([[True], [False]]), a23, np.array(-1.0, f)],
                  onnx_op=("Where", {}, []), out_types=[f]))
    def cast(name, inp, to, onnx_to):
        C.append(Case(name, f"cast $0 {{to = {to}}}", [inp], onnx_op=("Cast", {"to": onnx_to}, []),
                      out_types=[{"i32": np.int32, "i1": np.bool_, "f32": f, "ui8": np.uint8,
                                  "f16": np.float16, "i64": np.int64, "i8": np.int8}[to]]))
    from onnx import TensorProto as T
    cast("cast_f32_i32", np.array([-2.7, -0.5, 0.0, 0.9, 3.99, 1e6], f), "i32", T.INT32)
    cast("cast_f32_i1", np.array([-2.7, 0.0, -0.0, 0.1, np.nan], f), "i1", T.BOOL)
    cast("cast_i1_f32", np.array([True, False, True]), "f32", T.FLOAT)
    cast("cast_ui8_f32", u8, "f32", T.FLOAT)
    cast("cast_i32_ui8", np.array([-1, 0, 255, 256, 300, -200], np.int32), "ui8", T.UINT8)
    cast("cast_ui8_i32", u8, "i32", T.INT32)
    cast("cast_i32_i1", np.array([-1, 0, 2], np.int32), "i1", T.BOOL)
    cast("cast_f32_f16", np.array([1.0, 0.1, 65504.0, 1e-3, -3.14159], f), "f16", T.FLOAT16)
    cast("cast_f32_ui8", np.array([0.0, 1.9, 200.5, 255.0], f), "ui8", T.UINT8)
    cast("cast_i64_i8", np.array([1, -1, 127, 128, -129, 1000], np.int64), "i8", T.INT8)
    C.append(Case("erf_f16", "erf $0", [np.array([-1.0, 0.0, 0.5, 2.0], np.float16)],
                  onnx_op=("Erf", {}, []), out_types=[np.float16]))
    C.append(Case("add_f16", "add $0, $1", [np.array([1.0, 0.1, 1000.0], np.float16),
                                            np.array([2.0, 0.2, 0.5], np.float16)],
                  onnx_op=("Add", {}, [])))

    header = """// Numeric checks of the elementwise lowering through MLIR's JIT runner.
// Expected values are onnxruntime's (numpy's where onnxruntime has no
// equivalent), printed with 6 significant digits. Generated by
// Inputs/make_checks.py: add cases there and regenerate.
// RUN: telar-opt %s %lower_standalone | %mlir_runner -e entry | FileCheck %s
// RUN: telar-opt %s %lower_threaded | %mlir_runner -e entry | FileCheck %s
// RUN: telar-opt %s %lower_emulated_gpu | timeout 300 %mlir_runner -e entry | FileCheck %s"""
    if only:
        C = [c for c in C if any(c.name[2:].startswith(o) for o in only)]
    return run(C, header, out)


def reductions(out, only=None):
    f = np.float32
    rng = np.random.default_rng(7)
    x = np.round(rng.standard_normal((2, 3, 4)) * 2, 2).astype(f)
    xp = np.abs(x) + f(0.5)
    i64 = lambda *v: np.array(v, np.int64)
    C = []
    def red(name, op, inp, axes, keep, onnx, opset=18, **kw):
        attrs = f"axes = array<i64{': ' + ', '.join(map(str, axes)) if axes else ''}>, keepdims = {'true' if keep else 'false'}"
        extra = [i64(*axes)] if axes else []
        C.append(Case(name, f"{op} $0 {{{attrs}}}", [inp],
                      onnx_op=(onnx, {"keepdims": int(keep)}, extra, opset), **kw))
    red("reduce_sum", "reduce_sum", x, [1], True, "ReduceSum")
    red("reduce_mean", "reduce_mean", x, [0, 2], False, "ReduceMean")
    red("reduce_max_all", "reduce_max", x, [], False, "ReduceMax")
    red("reduce_min", "reduce_min", x, [2], True, "ReduceMin")
    red("reduce_prod", "reduce_prod", x, [1], False, "ReduceProd")
    red("reduce_l1", "reduce_l1", x, [2], False, "ReduceL1")
    red("reduce_l2", "reduce_l2", x, [0], False, "ReduceL2")
    red("reduce_sum_square", "reduce_sum_square", x, [1, 2], True, "ReduceSumSquare")
    red("reduce_log_sum", "reduce_log_sum", xp, [2], False, "ReduceLogSum")
    big = np.array([[100.0, 101.0, 99.0], [-1.0, 0.0, 1.0]], f)
    red("reduce_log_sum_exp", "reduce_log_sum_exp", big, [1], False, "ReduceLogSumExp")
    red("reduce_log_sum_exp_all", "reduce_log_sum_exp", x, [], True, "ReduceLogSumExp")
    xi = np.array([[3, -7, 2], [10, 4, -1]], np.int32)
    red("reduce_sum_i32", "reduce_sum", xi, [1], False, "ReduceSum")
    red("reduce_mean_i32", "reduce_mean", xi, [0], False, "ReduceMean")
    red("reduce_max_i32", "reduce_max", xi, [1], False, "ReduceMax")
    red("reduce_min_i64", "reduce_min", xi.astype(np.int64), [0], False, "ReduceMin")
    xu = np.array([[3, 200, 2], [10, 4, 255]], np.uint8)
    red("reduce_max_ui8", "reduce_max", xu, [1], False, "ReduceMax")
    red("reduce_min_ui8", "reduce_min", xu, [0], False, "ReduceMin")
    xn = np.array([[1.0, np.nan, 3.0], [2.0, 5.0, -1.0]], f)
    C.append(Case("reduce_max_nan", "reduce_max $0 {axes = array<i64: 1>, keepdims = false}", [xn],
                  ref=lambda a: np.max(a, axis=1), comment="NaN propagates (numpy, the ONNX reference); onnxruntime 1.22 skips NaN"))
    C.append(Case("reduce_min_nan", "reduce_min $0 {axes = array<i64: 1>, keepdims = false}", [xn],
                  ref=lambda a: np.min(a, axis=1)))

    ties = np.array([[1.0, 3.0, 3.0, -2.0], [5.0, 5.0, 0.0, 5.0], [-1.0, -4.0, -4.0, 2.0]], f)
    def arg(name, op, inp, axis, keep, last, onnx):
        C.append(Case(name, f"{op} $0 {{axis = {axis} : i64, keepdims = {'true' if keep else 'false'}, select_last_index = {'true' if last else 'false'}}}",
                      [inp], onnx_op=(onnx, {"axis": axis, "keepdims": int(keep), "select_last_index": int(last)}, []),
                      out_types=[np.int64]))
    arg("arg_max", "arg_max", ties, 1, False, False, "ArgMax")
    arg("arg_max_last", "arg_max", ties, 1, True, True, "ArgMax")
    arg("arg_min_axis0", "arg_min", ties, 0, True, False, "ArgMin")
    arg("arg_min_last", "arg_min", ties, -1, False, True, "ArgMin")
    arg("arg_max_3d", "arg_max", x, 1, False, False, "ArgMax")
    arg("arg_max_i32", "arg_max", xi, 1, False, False, "ArgMax")
    arg("arg_min_ui8", "arg_min", xu, 1, False, False, "ArgMin")

    def axisop(name, op, inp, axis, onnx, opset=18, extra_attrs="", onnx_attrs=None):
        C.append(Case(name, f"{op} $0 {{axis = {axis} : i64{extra_attrs}}}", [inp],
                      onnx_op=(onnx, dict({"axis": axis}, **(onnx_attrs or {})), [], opset)))
    axisop("softmax", "softmax", x, -1, "Softmax")
    axisop("softmax_axis1", "softmax", x, 1, "Softmax")
    axisop("softmax_big", "softmax", big, 1, "Softmax")
    axisop("log_softmax", "log_softmax", x, 0, "LogSoftmax")
    axisop("log_softmax_big", "log_softmax", big, -1, "LogSoftmax")
    axisop("hardmax", "hardmax", ties, 1, "Hardmax")
    axisop("hardmax_axis0", "hardmax", ties, 0, "Hardmax")
    zrow = np.array([[3.0, -4.0, 0.0], [0.0, 0.0, 0.0], [1.0, 2.0, 2.0]], f)
    axisop("lp_norm_l2", "lp_norm", zrow, 1, "LpNormalization", extra_attrs=", p = 2 : i64", onnx_attrs={"p": 2})
    axisop("lp_norm_l1", "lp_norm", zrow, 0, "LpNormalization", extra_attrs=", p = 1 : i64", onnx_attrs={"p": 1})

    g4 = np.array([1.0, 0.5, -2.0, 1.5], f)
    b4 = np.array([0.1, -0.2, 0.0, 3.0], f)
    C.append(Case("layer_norm", "layer_norm $0, $1, $2 {axis = -1 : i64, epsilon = 1.0e-05 : f32}",
                  [x, g4, b4], onnx_op=("LayerNormalization", {"axis": -1, "epsilon": 1e-5}, [], 17)))
    g34 = np.round(rng.standard_normal((3, 4)), 2).astype(f)
    C.append(Case("layer_norm_axis1", "layer_norm $0, $1 {axis = 1 : i64, epsilon = 1.0e-03 : f32}",
                  [x, g34], onnx_op=("LayerNormalization", {"axis": 1, "epsilon": 1e-3}, [], 17)))
    def rms(x, g, axis, eps):
        axes = tuple(range(axis % x.ndim, x.ndim))
        return (x / np.sqrt(np.mean(x.astype(np.float64) ** 2, axis=axes, keepdims=True) + eps) * g).astype(f)
    C.append(Case("rms_norm", "rms_norm $0, $1 {axis = -1 : i64, epsilon = 1.0e-06 : f32}",
                  [x, g4], ref=lambda a, g: rms(a, g, -1, 1e-6)))
    C.append(Case("rms_norm_axis1", "rms_norm $0, $1 {axis = 1 : i64, epsilon = 1.0e-02 : f32}",
                  [x, g34], ref=lambda a, g: rms(a, g, 1, 1e-2)))
    xc = np.round(rng.standard_normal((2, 3, 2, 2)) * 3, 2).astype(f)
    sc = np.array([1.0, -0.5, 2.0], f); bc = np.array([0.0, 1.0, -1.0], f)
    mc = np.array([0.5, -1.0, 0.0], f); vc = np.array([1.0, 4.0, 0.25], f)
    C.append(Case("batch_norm", "batch_norm $0, $1, $2, $3, $4 {epsilon = 1.0e-05 : f32}",
                  [xc, sc, bc, mc, vc], onnx_op=("BatchNormalization", {"epsilon": 1e-5}, [], 15)))
    C.append(Case("batch_norm_2d", "batch_norm $0, $1, $2, $3, $4 {epsilon = 1.0e-02 : f32}",
                  [np.ascontiguousarray(x[0].T), sc, bc, mc, vc], onnx_op=("BatchNormalization", {"epsilon": 1e-2}, [], 15)))
    one = lambda v: np.array([v], f)
    C.append(Case("batch_norm_1d", "batch_norm $0, $1, $2, $3, $4 {epsilon = 1.0e-05 : f32}",
                  [x[0, 0], one(2.0), one(0.5), one(-1.0), one(4.0)],
                  ref=lambda a, s, b, m, v: ((a - m) / np.sqrt(v + f(1e-5)) * s + b).astype(f),
                  comment="A 1-D input is N samples of one channel (numpy)."))
    C.append(Case("instance_norm", "instance_norm $0, $1, $2 {epsilon = 1.0e-05 : f32}",
                  [xc, sc, bc], onnx_op=("InstanceNormalization", {"epsilon": 1e-5}, [])))
    x4 = np.round(rng.standard_normal((2, 4, 3)) * 2, 2).astype(f)
    s4 = np.array([1.0, 2.0, -1.0, 0.5], f); bb4 = np.array([0.0, 0.5, 1.0, -1.0], f)
    C.append(Case("group_norm", "group_norm $0, $1, $2 {num_groups = 2 : i64, epsilon = 1.0e-05 : f32}",
                  [x4, s4, bb4], onnx_op=("GroupNormalization", {"num_groups": 2, "epsilon": 1e-5}, [], 21)))
    C.append(Case("mean_variance_norm", "mean_variance_norm $0 {axes = array<i64: 0, 2, 3>}",
                  [xc], onnx_op=("MeanVarianceNormalization", {"axes": [0, 2, 3]}, [])))
    C.append(Case("mean_variance_norm_last", "mean_variance_norm $0 {axes = array<i64: 2>}",
                  [x], onnx_op=("MeanVarianceNormalization", {"axes": [2]}, [])))
    x5 = np.round(rng.standard_normal((1, 5, 2, 1)) * 3, 2).astype(f)
    C.append(Case("lrn", "lrn $0 {size = 3 : i64, alpha = 1.0e-01 : f32, beta = 7.5e-01 : f32, bias = 2.0 : f32}",
                  [x5], onnx_op=("LRN", {"size": 3, "alpha": 0.1, "beta": 0.75, "bias": 2.0}, [])))
    def onnx_ref(op, **attrs):
        from onnx import helper
        from onnx.reference import ReferenceEvaluator
        def fn(*inputs):
            node = helper.make_node(op, [f"x{i}" for i in range(len(inputs))], ["y"], **attrs)
            return ReferenceEvaluator(node).run(None, {f"x{i}": a for i, a in enumerate(inputs)})[0]
        return fn
    def lrn(x, size, alpha, beta, bias):
        # The ONNX definition (onnxruntime refuses even sizes, and the reference
        # implementation only normalises channels < N).
        sq = np.zeros(x.shape, np.float64)
        lo, hi = (size - 1) // 2, size - 1 - (size - 1) // 2
        for c in range(x.shape[1]):
            sq[:, c] = np.sum(x[:, max(0, c - lo):min(x.shape[1], c + hi + 1)].astype(np.float64) ** 2, axis=1)
        return (x / (bias + alpha / size * sq) ** beta).astype(x.dtype)
    C.append(Case("lrn_even", "lrn $0 {size = 2 : i64, alpha = 2.0e-01 : f32, beta = 5.0e-01 : f32, bias = 1.0 : f32}",
                  [x5], ref=lambda a: lrn(a, 2, 0.2, 0.5, 1.0)))

    cs = np.array([[1.0, 2.0, 3.0, 4.0], [-1.0, 0.5, 0.25, 8.0]], f)
    for ex in (0, 1):
        for rv in (0, 1):
            C.append(Case(f"cum_sum_{ex}{rv}", f"cum_sum $0 {{axis = 1 : i64, exclusive = {'true' if ex else 'false'}, reverse = {'true' if rv else 'false'}}}",
                          [cs], onnx_op=("CumSum", {"exclusive": ex, "reverse": rv}, [np.array(1, np.int64)])))
    C.append(Case("cum_sum_i64_axis0", "cum_sum $0 {axis = 0 : i64}", [np.array([[1, 2], [3, 4], [5, 6]], np.int64)],
                  onnx_op=("CumSum", {}, [np.array(0, np.int64)])))

    tk = np.array([[3.0, 1.0, 3.0, 7.0, -2.0, 7.0], [0.0, 0.0, 0.0, 1.0, -1.0, 0.0]], f)
    def topk(name, inp, k, axis, largest, out_dtype=f):
        C.append(Case(name, f"top_k $0 {{k = {k} : i64, axis = {axis} : i64, largest = {'true' if largest else 'false'}, sorted = true}}",
                      [inp], onnx_op=("TopK", {"axis": axis, "largest": int(largest), "sorted": 1}, [i64(k)]),
                      out_types=[out_dtype, np.int64]))
    topk("top_k", tk, 3, -1, True)
    topk("top_k_smallest", tk, 4, 1, False)
    topk("top_k_axis0", tk, 2, 0, True)
    topk("top_k_3d", x, 2, 1, True)
    topk("top_k_i64", np.array([[5, 1, 5, 9], [2, 2, 8, -3]], np.int64), 2, 1, False, np.int64)

    h = np.float16
    red("reduce_sum_f16", "reduce_sum", x.astype(h), [2], False, "ReduceSum")
    red("reduce_l2_i32", "reduce_l2", xi, [1], False, "ReduceL2")
    axisop("softmax_f16", "softmax", x.astype(h), -1, "Softmax")
    C.append(Case("layer_norm_f16", "layer_norm $0, $1, $2 {axis = -1 : i64, epsilon = 1.0e-05 : f32}",
                  [x.astype(h), g4.astype(h), b4.astype(h)],
                  onnx_op=("LayerNormalization", {"axis": -1, "epsilon": 1e-5}, [], 17)))
    C.append(Case("cum_sum_i32_rev", "cum_sum $0 {axis = 1 : i64, reverse = true}", [xi],
                  onnx_op=("CumSum", {"reverse": 1}, [np.array(1, np.int64)])))
    def topk_ref(a, k):
        idx = np.argsort(-a.astype(np.int64), axis=1, kind="stable")[:, :k]
        return np.take_along_axis(a, idx, 1), idx.astype(np.int64)
    C.append(Case("top_k_ui8", "top_k $0 {k = 2 : i64, axis = 1 : i64, largest = true, sorted = true}",
                  [xu], ref=lambda a: topk_ref(a, 2), out_types=[np.uint8, np.int64]))

    header = """// Numeric checks of the reduction and normalisation lowering through MLIR's
// JIT runner. Expected values are onnxruntime's (numpy's where noted),
// printed with 6 significant digits; results are flattened to 1-D.
// Generated by Inputs/make_checks.py: add cases there and regenerate.
// RUN: telar-opt %s %lower_standalone | %mlir_runner -e entry | FileCheck %s
// RUN: telar-opt %s %lower_threaded | %mlir_runner -e entry | FileCheck %s
// RUN: telar-opt %s %lower_emulated_gpu | timeout 300 %mlir_runner -e entry | FileCheck %s"""
    if only:
        C = [c for c in C if any(c.name[2:].startswith(o) for o in only)]
    return run(C, header, out)


if __name__ == "__main__":
    which, out = sys.argv[1], sys.argv[2]
    only = os.environ.get("ONLY")
    ok = {"elementwise": elementwise, "reductions": reductions}[which](
        out, only.split(",") if only else None)
    sys.exit(0 if ok else 1)
