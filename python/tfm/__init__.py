"""tfm: compile Transformer models ahead of time and run them from Python.

- :func:`compile` runs the ``tfmc`` compiler on a tfm spec, a Hugging Face
  ``config.json`` or model folder, and returns the shared library's path.
- :class:`Model` loads such a library through its C ABI (docs/c-abi.md) and
  runs it on numpy arrays of token ids.
- :class:`Encoder` turns sentences into embeddings with a Hugging Face
  folder's ``tokenizer.json`` and sentence-transformers pooling.

Every failure raises a subclass of :class:`Error`. See docs/python.md.
"""

from typing import Any

from ._errors import (BufferTooSmallError, CompileError, DeviceError, Error,
                      InvalidArgumentError, LibraryError, ModelError,
                      OutOfMemoryError, ToolNotFoundError, UnsupportedError,
                      WeightsError)
from ._model import Model, library_info
from ._tools import compile, find_tool

__version__ = "0.1.0"


def __getattr__(name: str) -> Any:  # the Encoder needs `tokenizers`: import it lazily
    if name == "Encoder":
        from ._encoder import Encoder
        return Encoder
    raise AttributeError(f"module 'tfm' has no attribute '{name}'")


__all__ = [
    "compile", "find_tool", "Model", "library_info", "Encoder",
    "Error", "CompileError", "LibraryError", "ToolNotFoundError",
    "InvalidArgumentError", "BufferTooSmallError", "WeightsError",
    "ModelError", "OutOfMemoryError", "UnsupportedError", "DeviceError",
]
