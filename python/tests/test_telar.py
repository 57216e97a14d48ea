"""The telar package, through every entry point, errors included.

Run by test/python/telar-package.test (the README's test command):
    PYTHONPATH=build/python .venv/bin/python -m pytest python/tests
Multi-rank runs start ranks through telar-run -n N (mpirun); the lit test
sets OpenMPI's variables for running as root and oversubscribing.
"""

from __future__ import annotations

import gc
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper

import telar
from telar import _config

ROOT = Path(__file__).resolve().parents[2]
TOOLS = Path(_config.TOOLS_DIR)


@pytest.fixture(scope="session")
def models(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The suite's gpt (torch export) with its inputs and onnxruntime's
    outputs (python/telar_testing/make_models.py)."""
    out = tmp_path_factory.mktemp("models")
    subprocess.run([sys.executable,
                    str(ROOT / "python/telar_testing/make_models.py"),
                    "--out", str(out), "--only", "gpt"], check=True,
                   stdout=subprocess.DEVNULL)
    return out


@pytest.fixture(scope="session")
def gpt(models: Path) -> tuple[Path, dict, dict]:
    inputs = dict(np.load(models / "gpt.inputs.npz"))
    reference = dict(np.load(models / "gpt.ort_outputs.npz"))
    return models / "gpt.onnx", inputs, reference


@pytest.fixture(scope="session")
def gpt4(gpt: tuple[Path, dict, dict]) -> telar.Artifact:
    """gpt planned for 4 devices (the planner's choice)."""
    return telar.compile(gpt[0], devices=4, search_time_limit=5)


def assert_close(outputs: dict, reference: dict) -> None:
    assert sorted(outputs) == sorted(reference)
    for name, want in reference.items():
        np.testing.assert_allclose(outputs[name], want, rtol=1e-4,
                                   atol=1e-5, err_msg=name)


def mlp_model(opset: int = 17) -> onnx.ModelProto:
    """y = relu(x W1 + b1) W2, with seeded weights."""
    rng = np.random.default_rng(0)
    w1 = rng.standard_normal((8, 16)).astype(np.float32)
    b1 = rng.standard_normal(16).astype(np.float32)
    w2 = rng.standard_normal((16, 4)).astype(np.float32)
    graph = helper.make_graph(
        [helper.make_node("MatMul", ["x", "w1"], ["h0"], name="mm1"),
         helper.make_node("Add", ["h0", "b1"], ["h1"], name="add"),
         helper.make_node("Relu", ["h1"], ["h"], name="relu"),
         helper.make_node("MatMul", ["h", "w2"], ["y"], name="mm2")],
        "mlp",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 8])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 4])],
        [onnx.numpy_helper.from_array(w1, "w1"),
         onnx.numpy_helper.from_array(b1, "b1"),
         onnx.numpy_helper.from_array(w2, "w2")])
    return helper.make_model(graph,
                             opset_imports=[helper.make_opsetid("", opset)])


def mlp_reference(model: onnx.ModelProto, x: np.ndarray) -> np.ndarray:
    w = {i.name: onnx.numpy_helper.to_array(i)
         for i in model.graph.initializer}
    return np.maximum(x @ w["w1"] + w["b1"], 0) @ w["w2"]


# The package and its flags ------------------------------------------------


def test_version_is_telarcs() -> None:
    out = subprocess.run([str(TOOLS / "telarc"), "--version"],
                         capture_output=True, text=True, check=True).stdout
    assert out.startswith(f"telarc {telar.__version__} ")
    assert telar.version() == telar.__version__


def test_every_telarc_flag_is_a_keyword() -> None:
    help_text = subprocess.run([str(TOOLS / "telarc"), "--help"],
                               capture_output=True, text=True,
                               check=True).stdout
    listed = set(re.findall(r"^  -{1,2}([a-z][a-z0-9-]*)", help_text,
                            re.MULTILINE))
    listed -= {"help", "help-list", "version"}
    names = {f.name for f in telar.flags()}
    assert listed == names
    keywords = {f.keyword for f in telar.flags()}
    for keyword in ("devices", "search_time_limit", "pipeline_stages",
                    "train", "loss", "betas", "cpu", "gpu", "dtype", "out",
                    "quiet", "nodes", "master_port"):
        assert keyword in keywords
    kinds = {f.name: f.kind for f in telar.flags()}
    assert kinds["train"] == "bool" and kinds["devices"] == "value"
    assert kinds["input-shape"] == "list" and kinds["freeze"] == "list"


def test_supported_ops_are_list_ops() -> None:
    out = subprocess.run([str(TOOLS / "telarc"), "--list-ops"],
                         capture_output=True, text=True, check=True).stdout
    assert telar.supported_ops() == out.split()
    assert "MatMul" in telar.supported_ops()


# telar.compile and Artifact.run ------------------------------------------


def test_compile_path_and_run_in_process(gpt) -> None:
    path, inputs, reference = gpt
    a = telar.compile(path)
    assert a.world_size == 1 and a.plan is None
    assert [s["name"] for s in a.inputs] == list(inputs)
    assert_close(a.run(inputs), reference)
    # Again on the loaded program, by position, with a thread count.
    assert_close(a.run(list(inputs.values()), threads=1), reference)


def test_compile_model_proto_with_out(tmp_path: Path) -> None:
    model = mlp_model()
    out = tmp_path / "mlp.artifact"
    a = telar.compile(model, out=out)
    assert a.directory == out and (out / "manifest.json").is_file()
    x = np.random.default_rng(1).standard_normal((2, 8)).astype(np.float32)
    np.testing.assert_allclose(a.run({"x": x})["y"], mlp_reference(model, x),
                               rtol=1e-5, atol=1e-5)
    # float64 values are converted to the model's float32.
    np.testing.assert_allclose(a.run({"x": x.astype(np.float64)})["y"],
                               mlp_reference(model, x), rtol=1e-5, atol=1e-5)
    del a
    gc.collect()
    assert (out / "manifest.json").is_file(), "out= is the caller's"
    loaded = telar.load(out)
    np.testing.assert_allclose(loaded.run([x])["y"], mlp_reference(model, x),
                               rtol=1e-5, atol=1e-5)


def test_temporary_artifact_removed_with_it() -> None:
    a = telar.compile(mlp_model())
    directory = a.directory
    assert directory.is_dir()
    del a
    gc.collect()
    assert not directory.exists()


def test_compile_torch_module() -> None:
    import torch  # a dependency of the test environment: fail, not skip

    class Net(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.a = torch.nn.Linear(16, 32)
            self.b = torch.nn.Linear(32, 8)

        def forward(self, features):
            return self.b(torch.nn.functional.gelu(self.a(features)))

    torch.manual_seed(0)
    net = Net()
    x = torch.randn(4, 16)
    a = telar.compile(net, example_inputs=(x,))
    assert [s["name"] for s in a.inputs] == ["features"]
    assert [s["name"] for s in a.outputs] == ["output"]
    with torch.no_grad():
        want = net(x).numpy()
    np.testing.assert_allclose(a.run({"features": x.numpy()})["output"],
                               want, rtol=1e-4, atol=1e-5)
    # Sharded over 2 ranks, through telar-run.
    a2 = telar.compile(net, example_inputs=x, devices=2)
    assert a2.world_size == 2
    np.testing.assert_allclose(a2.run([x.numpy()])["output"], want,
                               rtol=1e-4, atol=1e-5)


def test_planned_explained_and_run_on_ranks(gpt, gpt4) -> None:
    _, inputs, reference = gpt
    assert gpt4.world_size == 4
    plan = gpt4.plan
    assert plan is not None
    assert int(np.prod(list(plan["mesh"].values()))) == 4
    text = gpt4.explain()
    assert text.startswith("Telar plan:") and "chosen" in text
    assert_close(gpt4.run(inputs), reference)


def test_run_traced(gpt, gpt4, tmp_path: Path) -> None:
    _, inputs, reference = gpt
    assert_close(gpt4.run(inputs, trace=tmp_path / "t.json"), reference)
    trace = json.loads((tmp_path / "t.json").read_text())
    ranks = {e["pid"] for e in trace["traceEvents"] if e.get("ph") == "X"}
    assert ranks == {0, 1, 2, 3}
    assert any(e.get("cat") == "collective" and "wait_us" in e["args"]
               for e in trace["traceEvents"])
    one = telar.compile(mlp_model())
    x = np.ones((2, 8), np.float32)
    one.run({"x": x}, trace=tmp_path / "one.json")
    events = json.loads((tmp_path / "one.json").read_text())["traceEvents"]
    assert [e["name"] for e in events if e.get("cat") == "program"] == ["main"]


def test_bench_report(gpt, gpt4) -> None:
    _, inputs, _ = gpt
    report = gpt4.bench(inputs, 3, warmup=1)
    assert report["iterations"] == 3 and report["warmup"] == 1
    assert report["world_size"] == 4 and len(report["ranks"]) == 4
    latency = report["latency_ms"]
    assert 0 < latency["min"] <= latency["p50"] <= latency["p90"]


def test_flags_reset_between_compiles(gpt) -> None:
    path, inputs, reference = gpt
    a = telar.compile(path, mesh={"data": 2}, quiet=True)
    assert a.world_size == 2 and a.plan["mesh"] == {"data": 2}
    # The next compilation starts from telarc's defaults again.
    b = telar.compile(path)
    assert b.world_size == 1 and b.plan is None
    assert_close(a.run(inputs), reference)


def test_plan_as_dict_and_input_shapes() -> None:
    model = mlp_model()
    for value in (model.graph.input[0], model.graph.output[0]):
        value.type.tensor_type.shape.dim[0].dim_param = "batch"
    a = telar.compile(model, input_shapes={"x": (4, 8)},
                      plan={"mesh": {"data": 2}, "shardings": {"x": [["data"],
                                                                   []]}})
    assert a.inputs[0]["shape"] == [4, 8]
    assert a.plan["shardings"]["x"] == [["data"], []]
    x = np.ones((4, 8), np.float32)
    np.testing.assert_allclose(a.run({"x": x})["y"], mlp_reference(model, x),
                               rtol=1e-5, atol=1e-5)


def test_emit_stages() -> None:
    model = mlp_model()
    assert "telar.matmul" in telar.emit(model)
    assert "linalg" in telar.emit(model, "linalg")
    plan = json.loads(telar.emit(model, "plan", mesh="data=2"))
    assert plan["mesh"] == {"data": 2}


def test_train(tmp_path: Path) -> None:
    rng = np.random.default_rng(0)
    w = rng.standard_normal((8, 3)).astype(np.float32)
    graph = helper.make_graph(
        [helper.make_node("MatMul", ["x", "w"], ["logits"]),
         helper.make_node("SoftmaxCrossEntropyLoss", ["logits", "labels"],
                          ["loss"])],
        "classifier",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [4, 8]),
         helper.make_tensor_value_info("labels", TensorProto.INT64, [4])],
        [helper.make_tensor_value_info("loss", TensorProto.FLOAT, [])],
        [onnx.numpy_helper.from_array(w, "w")])
    model = helper.make_model(graph,
                              opset_imports=[helper.make_opsetid("", 17)])
    a = telar.compile(model, train=True, loss="loss", optimizer="adamw",
                      lr=0.05, betas=(0.9, 0.99), weight_decay=0.0)
    x = rng.standard_normal((1, 4, 8)).astype(np.float32)
    labels = np.array([[0, 1, 2, 1]], np.int64)
    losses = a.train({"x": x, "labels": labels}, steps=6,
                     save_weights=tmp_path / "w.safetensors",
                     trace=tmp_path / "train.json")
    assert len(losses) == 6 and losses[-1] < losses[0]
    events = json.loads((tmp_path / "train.json").read_text())["traceEvents"]
    assert [e["name"] for e in events if e.get("cat") == "run"] == [
        f"run {i} (training)" for i in range(1, 7)]
    assert (tmp_path / "w.safetensors").stat().st_size > 0
    with pytest.raises(telar.RunError, match="training artifact"):
        a.run({"x": x[0], "labels": labels[0]})
    with pytest.raises(telar.RunError, match="must have shape"):
        a.train({"x": x[0], "labels": labels})


# Errors -------------------------------------------------------------------


def test_compile_error_is_telarcs_message(tmp_path: Path) -> None:
    model = mlp_model()
    model.graph.node[2].op_type = "NoSuchOp"
    path = tmp_path / "bad.onnx"
    onnx.save_model(model, path)
    telarc = subprocess.run([str(TOOLS / "telarc"), str(path), "--target",
                             "cpu", "-o", str(tmp_path / "out")],
                            capture_output=True, text=True)
    assert telarc.returncode == 1
    with pytest.raises(telar.CompileError) as raised:
        telar.compile(path)
    assert str(raised.value) == telarc.stderr.rstrip("\n")
    # The node, the op type and the opset.
    assert "relu" in str(raised.value) and "NoSuchOp" in str(raised.value)
    assert "17" in str(raised.value)
    assert raised.value.status == 1


def test_compile_errors(gpt) -> None:
    path = gpt[0]
    with pytest.raises(telar.CompileError, match="--devices must be at least"):
        telar.compile(path, devices=0)
    with pytest.raises(telar.CompileError, match="no such file|cannot"):
        telar.compile(str(path) + ".missing")
    with pytest.raises(TypeError, match="did you mean devices="):
        telar.compile(path, devcies=2)
    with pytest.raises(TypeError, match="is a switch"):
        telar.compile(path, no_pipeline="yes")
    with pytest.raises(TypeError, match="telar.emit"):
        telar.compile(path, emit="mlir")
    with pytest.raises(TypeError, match="must be a path"):
        telar.compile(42)
    with pytest.raises(TypeError, match="example_inputs"):
        telar.compile(path, example_inputs=(1,))


def test_torch_module_needs_example_inputs() -> None:
    import torch
    with pytest.raises(TypeError, match="needs example_inputs"):
        telar.compile(torch.nn.Linear(2, 2))


def test_run_errors(gpt, gpt4) -> None:
    _, inputs, _ = gpt
    (name, ids), = inputs.items()
    a = telar.compile(mlp_model())
    with pytest.raises(telar.RunError, match="must have shape"):
        a.run({"x": np.zeros((3, 8), np.float32)})
    with pytest.raises(telar.RunError, match="no input 'ids'"):
        a.run({"ids": np.zeros((2, 8), np.float32)})
    with pytest.raises(telar.RunError, match="is missing"):
        a.run({})
    with pytest.raises(telar.RunError, match="takes 1 inputs"):
        a.run([])
    with pytest.raises(telar.RunError, match="is int64, got float32"):
        gpt4.run({name: ids.astype(np.float32)})
    with pytest.raises(telar.RunError, match="runs on 4 ranks"):
        gpt4.run(inputs, ranks=2)
    with pytest.raises(ValueError, match="nothing to explain"):
        a.explain()
    with pytest.raises(ValueError, match="was loaded"):
        telar.load(gpt4.directory).explain()
    with pytest.raises(FileNotFoundError, match="not an artifact"):
        telar.load(gpt4.directory / "programs")


def test_output_restored_after_compile(capfd: pytest.CaptureFixture) -> None:
    with pytest.raises(telar.CompileError):
        telar.compile(mlp_model(), devices=0)
    print("after")
    os.write(2, b"stderr after\n")
    out, err = capfd.readouterr()
    assert "after" in out and "stderr after" in err
    assert "--devices" not in err, "telarc's message went to the exception"
