"""telar.compile and telar.emit: telarc in this process, flags as keywords.

Every telarc flag is a keyword: its name with ``_`` for ``-`` (``--search-
time-limit 5`` is ``search_time_limit=5``), ``True``/``False`` for a switch,
a list for a repeatable flag. The keywords are read from telarc itself
(:func:`flags`), so a flag telarc gains is a keyword at once. Five flags are
the API's instead: ``-o`` is ``out=``, ``--emit`` is :func:`emit`,
``--list-ops`` is :func:`supported_ops`, ``--explain`` is always on for a
plan (:meth:`Artifact.explain`), ``-q`` is ``quiet=``.
"""

from __future__ import annotations

import difflib
import json
import os
import re
import shutil
import tempfile
from pathlib import Path
from typing import Any, Iterable, Mapping, NamedTuple, Sequence, Union

import numpy as np

from . import _config, _telar
from .artifact import Artifact
from .errors import CompileError

#: What ``model`` may be: a path to an .onnx or .onnxtext file, an
#: ``onnx.ModelProto``, or a ``torch.nn.Module`` (with ``example_inputs``).
Model = Any
PathLike = Union[str, "os.PathLike[str]"]
#: ``input_shapes=``: per input, its shape (``(4, 128)`` or ``"4x128"``).
Shapes = Mapping[str, Union[str, Sequence[int]]]


class Flag(NamedTuple):
    """One telarc flag as its ``--help`` lists it."""

    name: str  #: without dashes: ``search-time-limit``
    kind: str  #: ``bool``, ``value`` or ``list`` (repeatable)
    value: str  #: the value's name in --help (``N``, ``FILE``); "" if none
    help: str

    @property
    def keyword(self) -> str:
        """The keyword argument of :func:`compile` that gives this flag."""
        return _API_KEYWORDS.get(self.name, self.name.replace("-", "_"))


#: Flags the API gives in its own way (flag name -> keyword or function).
_API_KEYWORDS = {"o": "out", "q": "quiet"}
_NOT_KEYWORDS = {
    "emit": "use telar.emit(model, stage)",
    "list-ops": "use telar.supported_ops()",
    "explain": "always on for a plan: Artifact.explain()",
}


def flags() -> list[Flag]:
    """Every flag telarc takes (its own, the targets', training's and the
    launch files'), in name order."""
    return [Flag(*f) for f in _telar.telarc_flags()]


def _keyword_flags() -> dict[str, Flag]:
    return {f.keyword: f for f in flags() if f.name not in _NOT_KEYWORDS}


def version() -> str:
    """The version of Telar (``telarc --version``)."""
    return _telar.version()


def _run_telarc(args: list[str]) -> tuple[str, str]:
    # telarc finds its shipped profiles next to its executable; this process
    # is Python's, so the build's folder is named (unless the user did).
    if not os.environ.get("TELAR_PROFILE_DIR"):
        os.environ["TELAR_PROFILE_DIR"] = _config.PROFILE_DIR
    status, out, err = _telar.telarc(args)
    if status != 0:
        raise CompileError(err.rstrip("\n") or f"telarc exited with {status}",
                           status)
    return out, err


def supported_ops() -> list[str]:
    """The ONNX op types telarc imports (``telarc --list-ops``)."""
    out, _ = _run_telarc(["--list-ops"])
    return out.split()


def _shape_text(shape: Union[str, Sequence[int]]) -> str:
    if isinstance(shape, str):
        return shape
    return "x".join(str(int(d)) for d in shape)


def _flag_value(flag: Flag, value: Any) -> str:
    if isinstance(value, (list, tuple)):
        return ",".join(str(v) for v in value)
    if isinstance(value, bool):
        what = flag.value or "a value"
        raise TypeError(f"--{flag.name} takes a value ({what}), not {value}")
    return str(value)


class _Staging:
    """The files a compilation writes for the caller (a model exported from
    torch, a plan given as a dict, bound inputs given as arrays), in one
    temporary folder removed afterwards."""

    def __init__(self) -> None:
        self.dir: str | None = None

    def path(self, name: str) -> str:
        if self.dir is None:
            self.dir = tempfile.mkdtemp(prefix="telar-compile-")
        return os.path.join(self.dir, name)

    def close(self) -> None:
        if self.dir is not None:
            shutil.rmtree(self.dir, ignore_errors=True)


def _model_path(model: Model, example_inputs: Any, staging: _Staging,
                export_options: Mapping[str, Any] | None) -> str:
    if isinstance(model, (str, os.PathLike)):
        if example_inputs is not None:
            raise TypeError("example_inputs= applies to a torch.nn.Module")
        return os.fspath(model)
    try:
        import onnx
    except ImportError:  # pragma: no cover - onnx is a dependency
        onnx = None
    if onnx is not None and isinstance(model, onnx.ModelProto):
        if example_inputs is not None:
            raise TypeError("example_inputs= applies to a torch.nn.Module")
        # Named after its graph (telarc's messages name the file).
        name = re.sub(r"[^A-Za-z0-9._-]", "_", model.graph.name) or "model"
        path = staging.path(name + ".onnx")
        onnx.save_model(model, path)
        return path
    torch = _torch_if_module(model)
    if torch is not None:
        if example_inputs is None:
            raise TypeError("a torch.nn.Module needs example_inputs= (the "
                            "tensors torch.onnx.export traces it with)")
        args = (example_inputs if isinstance(example_inputs, tuple) else
                (example_inputs,))
        path = staging.path(type(model).__name__ + ".onnx")
        model.eval()
        options = {"opset_version": 17, "do_constant_folding": True}
        options.update(_default_names(model, args, torch))
        options.update(export_options or {})
        with torch.no_grad():
            torch.onnx.export(model, args, path, **options)
        return path
    raise TypeError("model must be a path, an onnx.ModelProto or a "
                    f"torch.nn.Module, not {type(model).__name__}")


def _default_names(model: Any, args: tuple, torch: Any) -> dict[str, Any]:
    """Input names from forward's parameters, outputs named ``output`` (or
    ``output_0``, ``output_1``, ... for several), rather than the exporter's
    numbered ones."""
    import inspect
    params = [p.name for p in inspect.signature(model.forward).parameters
              .values() if p.kind in (p.POSITIONAL_ONLY,
                                      p.POSITIONAL_OR_KEYWORD)]
    names: dict[str, Any] = {}
    if len(params) >= len(args):
        names["input_names"] = params[:len(args)]
    with torch.no_grad():
        result = model(*args)
    if isinstance(result, torch.Tensor):
        names["output_names"] = ["output"]
    elif isinstance(result, (tuple, list)) and all(
            isinstance(r, torch.Tensor) for r in result):
        names["output_names"] = [f"output_{i}" for i in range(len(result))]
    return names


def _torch_if_module(model: Any) -> Any:
    """torch, when `model` is a torch.nn.Module (torch imported only then)."""
    if "torch" not in type(model).__module__ and not any(
            c.__module__.startswith("torch") for c in type(model).__mro__):
        return None
    import torch
    return torch if isinstance(model, torch.nn.Module) else None


def _build_args(model: Model, *, example_inputs: Any,
                export_options: Mapping[str, Any] | None,
                staging: _Staging, api: Mapping[str, Any],
                options: Mapping[str, Any]) -> list[str]:
    """telarc's command line for `model`, the API's keywords and `options`
    (the other flags, by keyword)."""
    args = [_model_path(model, example_inputs, staging, export_options)]
    known = _keyword_flags()

    def add(keyword: str, value: Any) -> None:
        if value is None:
            return
        flag = known.get(keyword)
        if flag is None:
            if keyword.replace("_", "-") in _NOT_KEYWORDS:
                raise TypeError(f"{keyword}=: "
                                f"{_NOT_KEYWORDS[keyword.replace('_', '-')]}")
            close = difflib.get_close_matches(keyword, known, n=1)
            hint = f" (did you mean {close[0]}=?)" if close else ""
            raise TypeError(f"telarc has no flag --{keyword.replace('_', '-')}"
                            f" for the keyword {keyword}={hint}; "
                            "telar.flags() lists them")
        dashes = "-" if len(flag.name) == 1 else "--"
        if flag.kind == "bool":
            if not isinstance(value, bool):
                raise TypeError(f"{keyword}= is a switch (--{flag.name}): "
                                f"True or False, not {value!r}")
            args.append(f"{dashes}{flag.name}" +
                        ("" if value else "=false"))
        elif flag.kind == "list":
            values = ([value] if isinstance(value, (str, bytes)) or
                      not isinstance(value, Iterable) else list(value))
            for v in values:
                args.append(f"{dashes}{flag.name}={v}")
        else:
            args.append(f"{dashes}{flag.name}={_flag_value(flag, value)}")

    for keyword, value in api.items():
        add(keyword, value)
    for keyword, value in options.items():
        add(keyword, value)
    return args


def _api_options(*, target: str | None, devices: int | None, plan: Any,
                 mesh: Any, profile: str | None,
                 input_shapes: Mapping[str, Any] | None,
                 bind_inputs: Mapping[str, Any] | None,
                 staging: _Staging) -> dict[str, Any]:
    api: dict[str, Any] = {"target": target, "devices": devices,
                           "profile": profile}
    if isinstance(plan, Mapping):
        path = staging.path("plan.json")
        with open(path, "w") as f:
            json.dump(plan, f)
        plan = path
    api["plan"] = os.fspath(plan) if plan is not None else None
    if isinstance(mesh, Mapping):
        mesh = ",".join(f"{axis}={int(n)}" for axis, n in mesh.items())
    api["mesh"] = mesh
    if input_shapes:
        api["input_shape"] = [f"{name}={_shape_text(shape)}"
                              for name, shape in input_shapes.items()]
    if bind_inputs:
        bound = []
        for name, value in bind_inputs.items():
            if not isinstance(value, (str, os.PathLike)):
                path = staging.path(f"bind-{len(bound)}.npy")
                np.save(path, np.asarray(value))
                value = path
            bound.append(f"{name}={os.fspath(value)}")
        api["bind_input"] = bound
    return api


def compile(model: Model, *, target: str = "cpu", devices: int | None = None,
            plan: Union[PathLike, Mapping[str, Any], None] = None,
            mesh: Union[str, Mapping[str, int], None] = None,
            profile: str | None = None,
            input_shapes: Shapes | None = None,
            bind_inputs: Mapping[str, Any] | None = None,
            out: PathLike | None = None, example_inputs: Any = None,
            export_options: Mapping[str, Any] | None = None,
            **options: Any) -> Artifact:
    """Compiles `model` into an artifact directory, as ``telarc --target``.

    Args:
      model: a path to an ONNX model (.onnx, .onnxtext), an
        ``onnx.ModelProto``, or a ``torch.nn.Module`` (exported with
        ``torch.onnx.export`` on `example_inputs`, opset 17; more export
        arguments in `export_options`).
      target: ``--target`` (``cpu`` or ``cuda``).
      devices: ``--devices N``: the planner chooses a plan for N devices.
      plan: ``--plan``: a plan.json path, or the plan as a dict.
      mesh: ``--mesh``: ``"data=2,model=2"`` or ``{"data": 2, "model": 2}``.
      profile: ``--profile``: a shipped profile's name or a JSON file.
      input_shapes: ``--input-shape`` per input: ``{"ids": (4, 128)}``.
      bind_inputs: ``--bind-input`` per input: a .npy/.pb path or an array.
      out: ``-o``: the artifact directory; by default a temporary one,
        removed with the Artifact.
      **options: any other telarc flag by keyword (:func:`flags`), e.g.
        ``search_time_limit=5``, ``pipeline_stages=2``, ``train=True``,
        ``loss="loss"``, ``betas=(0.9, 0.999)``, ``cpu="x86-64-v3"``.

    Returns:
      The :class:`Artifact`, with the plan's ``--explain`` text when a plan
      was made (devices, plan or mesh).

    Raises:
      CompileError: telarc failed; its message is telarc's.
      TypeError: a keyword names no telarc flag, or a value of the wrong
        kind.
    """
    staging = _Staging()
    owned = out is None
    directory = tempfile.mkdtemp(prefix="telar-artifact-") if owned else \
        os.fspath(out)
    try:
        api = _api_options(target=target, devices=devices, plan=plan,
                           mesh=mesh, profile=profile,
                           input_shapes=input_shapes, bind_inputs=bind_inputs,
                           staging=staging)
        planned = devices is not None or plan is not None or mesh is not None
        args = _build_args(model, example_inputs=example_inputs,
                           export_options=export_options, staging=staging,
                           api=api, options=options)
        args += ["-o", directory]
        if planned:
            args.append("--explain")
        out_text, err_text = _run_telarc(args)
    except BaseException:
        if owned:
            shutil.rmtree(directory, ignore_errors=True)
        raise
    finally:
        staging.close()
    return Artifact(directory, explanation=out_text if planned else None,
                    log=err_text, owned=owned)


def emit(model: Model, stage: str = "mlir", *, example_inputs: Any = None,
         export_options: Mapping[str, Any] | None = None,
         plan: Union[PathLike, Mapping[str, Any], None] = None,
         mesh: Union[str, Mapping[str, int], None] = None,
         devices: int | None = None, profile: str | None = None,
         input_shapes: Shapes | None = None,
         bind_inputs: Mapping[str, Any] | None = None,
         **options: Any) -> str:
    """The IR of `model` at one stage, as ``telarc --emit=STAGE``.

    `stage` is one of ``mlir``, ``linalg``, ``llvm``, ``gpu``, ``ptx`` or
    ``plan`` (plan.json's text: ``json.loads`` it). The other arguments are
    :func:`compile`'s.
    """
    staging = _Staging()
    try:
        api = _api_options(target=None, devices=devices, plan=plan, mesh=mesh,
                           profile=profile, input_shapes=input_shapes,
                           bind_inputs=bind_inputs, staging=staging)
        args = _build_args(model, example_inputs=example_inputs,
                           export_options=export_options, staging=staging,
                           api=api, options=options)
        out, _ = _run_telarc(args + [f"--emit={stage}", "-o", "-"])
    finally:
        staging.close()
    return out


def load(directory: PathLike) -> Artifact:
    """The artifact telarc (or :func:`compile`) wrote in `directory`."""
    path = Path(directory)
    if not (path / "manifest.json").is_file():
        raise FileNotFoundError(f"{directory}: no manifest.json (not an "
                                "artifact directory: telarc -o writes one)")
    return Artifact(os.fspath(path))
