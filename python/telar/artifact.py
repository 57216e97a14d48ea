"""Artifact: a compiled model's directory, run on numpy arrays."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import tempfile
import weakref
from pathlib import Path
from typing import Any, Mapping, Sequence, Union

import numpy as np

from . import _config, _telar
from .errors import RunError

#: A run's inputs: by name, or in the manifest's order.
Inputs = Union[Mapping[str, Any], Sequence[Any]]


def tool(name: str) -> str:
    """The path of Telar's tool `name` (``telar-run``, ``telarc``): this
    build's, unless ``$TELAR_TOOLS_DIR`` names another folder."""
    folder = os.environ.get("TELAR_TOOLS_DIR") or _config.TOOLS_DIR
    path = os.path.join(folder, name)
    if not os.access(path, os.X_OK):
        raise RunError(f"{name} not found in {folder} (set TELAR_TOOLS_DIR "
                       "to the folder holding Telar's tools)")
    return path


class Artifact:
    """A compiled model: the directory ``telarc -o`` (or :func:`telar.compile`)
    writes.

    Attributes:
      directory: the artifact directory.
      manifest: its manifest.json, parsed (docs/Artifact.md).
      log: what telarc printed on standard error while compiling it
        (warnings, ``timings=True``'s table); "" for a loaded artifact.
    """

    def __init__(self, directory: str, *, explanation: str | None = None,
                 log: str = "", owned: bool = False) -> None:
        self.directory = Path(directory)
        with open(self.directory / "manifest.json") as f:
            self.manifest: dict[str, Any] = json.load(f)
        self.log = log
        self._explanation = explanation
        self._programs: dict[tuple[str, bool], Any] = {}
        if owned:
            weakref.finalize(self, shutil.rmtree, directory, True)

    def __repr__(self) -> str:
        target = self.manifest.get("target") or {}
        return (f"<telar.Artifact {self.directory} target="
                f"{target.get('kind', 'cpu')} ranks={self.world_size}>")

    @property
    def world_size(self) -> int:
        """The number of ranks it runs on."""
        return int(self.manifest.get("world_size", 1))

    @property
    def inputs(self) -> list[dict[str, Any]]:
        """The model inputs: name, dtype, (global) shape, sharding."""
        return list(self.manifest["inputs"])

    @property
    def outputs(self) -> list[dict[str, Any]]:
        """The model outputs: name, dtype, (global) shape, sharding."""
        return list(self.manifest["outputs"])

    @property
    def plan(self) -> dict[str, Any] | None:
        """The plan it was compiled with (plan.json: mesh, shardings, stages,
        predicted cost); None for a single-device artifact."""
        path = self.directory / "plan.json"
        if not path.is_file():
            return None
        with open(path) as f:
            return json.load(f)

    def explain(self) -> str:
        """The text of ``telarc --explain`` for its plan: per op the
        sharding, compute, communication and bytes, the totals, the
        runner-up plans."""
        if self._explanation is None:
            if self.plan is None:
                raise ValueError(f"{self.directory} runs on one device "
                                 "without a plan: there is nothing to "
                                 "explain (compile with devices=N)")
            raise ValueError(f"{self.directory} was loaded, not compiled "
                             "here: its explanation is telarc --explain's "
                             "(telar.compile(..., devices=N) keeps it)")
        return self._explanation

    # Runs ----------------------------------------------------------------

    def _arrays(self, inputs: Inputs,
                training: bool = False) -> list[tuple[dict, np.ndarray]]:
        """`inputs` in manifest order with their specs, as C-contiguous
        arrays of the manifest's dtypes (values of the same kind are
        converted). `training`: each with a leading dimension (the steps),
        and without the inputs telar-run --train gives (``@lr``,
        ``@step``)."""
        specs = [s for s in self.manifest["inputs"]
                 if not (training and s["name"].startswith("@"))]
        names = [s["name"] for s in specs]
        if isinstance(inputs, Mapping):
            unknown = [k for k in inputs if k not in names]
            if unknown:
                raise RunError(f"the model has no input {unknown[0]!r} "
                               f"(its inputs: {', '.join(names)})")
            missing = [n for n in names if n not in inputs]
            if missing:
                raise RunError(f"input {missing[0]!r} is missing (the model "
                               f"takes {', '.join(names)})")
            values = [inputs[n] for n in names]
        else:
            values = list(inputs)
            if len(values) != len(names):
                raise RunError(f"the model takes {len(names)} inputs "
                               f"({', '.join(names)}), {len(values)} given")
        arrays = []
        for spec, value in zip(specs, values):
            a = np.asarray(value)
            want = np.dtype(spec["dtype"]) if spec["dtype"] != "bfloat16" \
                else None
            if want is not None and a.dtype != want:
                if not np.can_cast(a.dtype, want, "same_kind"):
                    raise RunError(f"input {spec['name']!r} is {spec['dtype']}"
                                   f", got {a.dtype}")
                a = a.astype(want)
            shape = list(a.shape[1:] if training else a.shape)
            if shape != list(spec["shape"]) or (training and a.ndim == 0):
                want_shape = ("(steps, " if training else "(") + ", ".join(
                    str(d) for d in spec["shape"]) + ")"
                raise RunError(f"input {spec['name']!r} must have shape "
                               f"{want_shape}, got {a.shape}")
            arrays.append((spec, np.ascontiguousarray(a)))
        return arrays

    def _check_inference(self) -> None:
        if self.manifest.get("training"):
            raise RunError(f"{self.directory} is a training artifact "
                           "(compiled with train=True): Artifact.train runs "
                           "its steps")

    def _program(self, program: str, emulate: bool) -> Any:
        key = (program, emulate)
        if key not in self._programs:
            try:
                self._programs[key] = _telar.Program(str(self.directory),
                                                     program, emulate)
            except _telar.Error as e:
                raise RunError(str(e)) from None
        return self._programs[key]

    def run(self, inputs: Inputs, *, ranks: int | None = None,
            threads: int | None = None, program: str = "",
            emulate: bool = False,
            trace: str | os.PathLike[str] | None = None
            ) -> dict[str, np.ndarray]:
        """Runs the model once and returns its outputs by name.

        Args:
          inputs: every model input, by name or in order (whole tensors:
            each rank takes its block).
          ranks: the number of ranks; by default the artifact's. One rank
            runs in this process (the program is loaded once and kept);
            more run through ``telar-run -n RANKS`` (mpirun).
          threads: threads for parallel loops and BLAS (per rank).
          program: the artifact's program to run (default: ``main``).
          emulate: run a CUDA artifact on the CUDA emulator (compiled with
            ``emulation=True``), without a GPU.
          trace: write a Chrome trace-event file of the run there
            (``telar-run --trace``, docs/Trace.md; runs through telar-run
            even on one rank).

        Raises:
          RunError: the inputs do not fit the manifest, or the run failed.
        """
        self._check_inference()
        arrays = self._arrays(inputs)
        ranks = self.world_size if ranks is None else int(ranks)
        if ranks == 1 and self.world_size == 1 and trace is None:
            p = self._program(program, emulate)
            if threads is not None:
                _telar.set_threads(int(threads))
            try:
                outputs = p.run([a for _, a in arrays])
            except _telar.Error as e:
                raise RunError(str(e)) from None
            return {spec["name"]: a for spec, a in zip(p.outputs, outputs)}
        with tempfile.TemporaryDirectory(prefix="telar-run-") as tmp:
            args = self._run_args(arrays, tmp, ranks, threads, program,
                                  emulate, trace)
            out_dir = os.path.join(tmp, "outputs")
            self._telar_run(args + ["--output-dir", out_dir])
            return {spec["name"]: np.load(os.path.join(
                        out_dir, _file_name(spec["name"]) + ".npy"))
                    for spec in self.manifest["outputs"]}

    def bench(self, inputs: Inputs, n: int = 100, *, warmup: int = 3,
              ranks: int | None = None, threads: int | None = None,
              program: str = "", emulate: bool = False,
              trace: str | os.PathLike[str] | None = None) -> dict[str, Any]:
        """Times `n` runs after `warmup` untimed ones, as ``telar-run
        --bench N``, and returns its report (``--report``): latency_ms
        (mean, p50, p90, min; the slowest rank's), iterations, threads,
        memory figures, and with several ranks each rank's latency and time
        in collectives and the collectives per mesh axis set. `trace`:
        as :meth:`run`'s, of every run."""
        if n < 1:
            raise ValueError("n must be at least 1")
        self._check_inference()
        arrays = self._arrays(inputs)
        ranks = self.world_size if ranks is None else int(ranks)
        with tempfile.TemporaryDirectory(prefix="telar-bench-") as tmp:
            report = os.path.join(tmp, "report.json")
            args = self._run_args(arrays, tmp, ranks, threads, program,
                                  emulate, trace)
            self._telar_run(args + ["--bench", str(int(n)), "--warmup",
                                    str(int(warmup)), "--report", report])
            with open(report) as f:
                return json.load(f)

    def train(self, data: Inputs, steps: int = 1, *, lr: float | None = None,
              ranks: int | None = None, threads: int | None = None,
              save_weights: str | os.PathLike[str] | None = None,
              export_onnx: str | os.PathLike[str] | None = None,
              checkpoint_dir: str | os.PathLike[str] | None = None,
              checkpoint_every: int | None = None,
              resume: str | os.PathLike[str] | None = None,
              trace: str | os.PathLike[str] | None = None) -> list[float]:
        """Runs `steps` training steps of a training artifact (compiled with
        ``train=True``), as ``telar-run --train``, and returns each step's
        loss.

        Args:
          data: every model input with a leading steps dimension (step i
            takes row i mod its length), by name or in order.
          lr: the learning rate (default: the one compiled in).
          save_weights: write the trained parameters (safetensors).
          export_onnx: write the model with the trained parameters (ONNX).
          checkpoint_dir, checkpoint_every, resume: telar-run's checkpoints.
          trace: as :meth:`run`'s, of every step.
        """
        if steps < 1:
            raise ValueError("steps must be at least 1")
        arrays = self._arrays(data, training=True)
        ranks = self.world_size if ranks is None else int(ranks)
        with tempfile.TemporaryDirectory(prefix="telar-train-") as tmp:
            report = os.path.join(tmp, "report.json")
            args = self._run_args(arrays, tmp, ranks, threads, "", False,
                                  trace)
            args += ["--train", "--steps", str(int(steps)), "--report",
                     report]
            if lr is not None:
                args += ["--lr", repr(float(lr))]
            for flag, value in (("--save-weights", save_weights),
                                ("--export-onnx", export_onnx),
                                ("--checkpoint-dir", checkpoint_dir),
                                ("--checkpoint-every", checkpoint_every),
                                ("--resume", resume)):
                if value is not None:
                    args += [flag, os.fspath(value) if not isinstance(
                        value, int) else str(value)]
            self._telar_run(args)
            with open(report) as f:
                return [float(x) for x in json.load(f)["losses"]]

    def _run_args(self, arrays: list[tuple[dict, np.ndarray]], tmp: str,
                  ranks: int, threads: int | None, program: str,
                  emulate: bool,
                  trace: str | os.PathLike[str] | None) -> list[str]:
        args = [tool("telar-run"), str(self.directory), "-n", str(ranks),
                "-q"]
        if trace is not None:
            args += ["--trace", os.fspath(trace)]
        for i, (spec, a) in enumerate(arrays):
            path = os.path.join(tmp, f"input-{i}.npy")
            np.save(path, a)
            args += ["--input", f"{spec['name']}={path}"]
        if threads is not None:
            args += ["--threads", str(int(threads))]
        if program:
            args += ["--program", program]
        if emulate:
            args.append("--emulate")
        return args

    @staticmethod
    def _telar_run(args: list[str]) -> None:
        done = subprocess.run(args, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True)
        if done.returncode != 0:
            # telar-run's own lines (each rank's), without mpirun's banners.
            lines = done.stderr.strip().splitlines()
            own = [line for line in lines if line.startswith("telar-run")]
            message = "\n".join(own or lines)
            raise RunError(message or
                           f"telar-run exited with {done.returncode}",
                           done.returncode)


def _file_name(name: str) -> str:
    """The file name telar-run --output-dir gives output `name`."""
    return "".join(c if (c.isascii() and c.isalnum()) or c in "._-" else "_"
                   for c in name)
