"""The errors the telar package raises."""

from __future__ import annotations


class CompileError(Exception):
    """telarc refused or failed to compile a model.

    ``str(error)`` is exactly what telarc prints on standard error (the
    model file, the node, its op type and opset where one is at fault);
    ``error.status`` is telarc's exit status.
    """

    def __init__(self, message: str, status: int = 1) -> None:
        super().__init__(message)
        self.message = message
        self.status = status


class RunError(Exception):
    """An artifact could not be loaded or run.

    Raised with the runtime's message (the file, tensor or rank at fault):
    in this process by the runtime library, or by telar-run for runs on
    several ranks and benchmarks (``status`` is then its exit status).
    """

    def __init__(self, message: str, status: int | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.status = status
