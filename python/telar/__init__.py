"""Telar: compile ONNX models (or torch modules) into sharded executables,
and run them.

    import telar
    a = telar.compile("model.onnx", devices=4)   # telarc --devices 4
    print(a.explain())                           # telarc --explain
    outputs = a.run({"input_ids": ids})          # telar-run -n 4

docs/Python.md describes the package; every telarc flag is a keyword of
:func:`compile` (:func:`flags` lists them).
"""

from .artifact import Artifact
from .compiler import (Flag, compile, emit, flags, load, supported_ops,
                       version)
from .errors import CompileError, RunError

__version__ = version()

__all__ = [
    "Artifact",
    "CompileError",
    "Flag",
    "RunError",
    "compile",
    "emit",
    "flags",
    "load",
    "supported_ops",
    "version",
]
