"""The exceptions of the tfm package.

Every failure of the C library maps to one subclass of :class:`Error` per
documented status code (docs/c-abi.md, "Status codes"); the message is the
library's own (``tfm_last_error()``), which names the argument, tensor or
file at fault. Checks done in Python before a call raise the same classes.
"""

from __future__ import annotations

from typing import Dict, Optional, Sequence, Type


class Error(Exception):
    """Base class of every error raised by the tfm package.

    Attributes:
        message: what went wrong, naming the file, argument or tensor.
        status: the C ABI's status code (``tfm_status``), or ``None`` when
            the error did not come from the library.
        status_name: ``"TFM_ERROR_WEIGHTS"`` etc., or ``None``.
    """

    status: Optional[int] = None
    status_name: Optional[str] = None

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class InvalidArgumentError(Error, ValueError):
    """TFM_ERROR_INVALID_ARGUMENT (1): a bad shape, dtype, token id, length
    or thread count. Python's own checks of tokens and lengths raise it too."""

    status, status_name = 1, "TFM_ERROR_INVALID_ARGUMENT"


class BufferTooSmallError(Error):
    """TFM_ERROR_BUFFER_TOO_SMALL (2): the output buffer is too small.
    The Python API sizes every buffer itself; only a bad ``out=`` can
    cause it, and that is checked before the call."""

    status, status_name = 2, "TFM_ERROR_BUFFER_TOO_SMALL"


class WeightsError(Error):
    """TFM_ERROR_WEIGHTS (3): the weights cannot be read, are not valid
    safetensors, or do not fit the model (missing tensor, other shape,
    unsupported dtype)."""

    status, status_name = 3, "TFM_ERROR_WEIGHTS"


class ModelError(Error):
    """TFM_ERROR_MODEL (4): the library's own manifest is malformed (a
    compiler bug), or a CUDA model's kernels cannot be compiled."""

    status, status_name = 4, "TFM_ERROR_MODEL"


class OutOfMemoryError(Error, MemoryError):
    """TFM_ERROR_OUT_OF_MEMORY (5): an allocation (host or device) failed."""

    status, status_name = 5, "TFM_ERROR_OUT_OF_MEMORY"


class UnsupportedError(Error):
    """TFM_ERROR_UNSUPPORTED (6): the model lacks this entry point, has no
    embedded weights when none are given, or is a CUDA model on a machine
    that cannot run it. The Python API raises it too for what it does not
    support (e.g. an encoder folder whose modules.json asks for a Dense
    layer)."""

    status, status_name = 6, "TFM_ERROR_UNSUPPORTED"


class DeviceError(Error):
    """TFM_ERROR_DEVICE (7): a CUDA driver call or kernel launch failed."""

    status, status_name = 7, "TFM_ERROR_DEVICE"


class LibraryError(Error, OSError):
    """A model library cannot be loaded: the file does not exist, is not a
    shared library, or does not export the tfm C ABI."""


class ToolNotFoundError(Error, FileNotFoundError):
    """tfmc (or another tfm tool) was found neither in ``bin_dir`` /
    ``$TFM_BIN``, nor in the build tree above the package, nor on PATH."""


class CompileError(Error):
    """tfmc failed.

    Attributes:
        returncode: tfmc's exit code (1: the model, its weights, a pass or
            the output failed; 2: a bad command line).
        stderr: everything tfmc wrote to stderr.
        command: the command line that was run.
    """

    def __init__(self, message: str, returncode: int, stderr: str,
                 command: Sequence[str]) -> None:
        super().__init__(message)
        self.returncode = returncode
        self.stderr = stderr
        self.command = list(command)


_BY_STATUS: Dict[int, Type[Error]] = {
    cls.status: cls
    for cls in (InvalidArgumentError, BufferTooSmallError, WeightsError,
                ModelError, OutOfMemoryError, UnsupportedError, DeviceError)
}


def error_for_status(status: int, message: str) -> Error:
    """The exception for a non-OK ``tfm_status`` and the library's message.

    An unknown status (a newer library) gives a plain :class:`Error` that
    still carries the number."""
    cls = _BY_STATUS.get(status)
    if cls is not None:
        return cls(message)
    err = Error(f"{message} (unknown tfm_status {status})")
    err.status = status
    return err
