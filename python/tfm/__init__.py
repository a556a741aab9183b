"""tfm: compile Transformer models ahead of time and run them from Python.

- :func:`compile` runs the ``tfmc`` compiler on a tfm spec, a Hugging Face
  ``config.json`` or model folder, and returns the shared library's path.
- :class:`Model` loads such a library through its C ABI (docs/c-abi.md) and
  runs it on numpy arrays of token ids.
- :class:`Encoder` turns sentences into embeddings with a Hugging Face
  folder's ``tokenizer.json`` and sentence-transformers pooling.
- :meth:`Model.generate` generates tokens with a :class:`Session` (the KV
  cache of a decoder compiled with ``generation=True``), sampling as
  ``tfm-run`` does; :class:`TextGenerator` does it text in, text out.

Every failure raises a subclass of :class:`Error`. See docs/python.md.
"""

from typing import Any

from ._errors import (BufferTooSmallError, CompileError, DeviceError, Error,
                      InvalidArgumentError, LibraryError, ModelError,
                      OutOfMemoryError, ToolNotFoundError, UnsupportedError,
                      WeightsError)
from ._generate import Session
from ._model import Model, library_info
from ._tools import compile, find_tool

__version__ = "0.1.0"


def __getattr__(name: str) -> Any:  # these need `tokenizers`: import them lazily
    if name == "Encoder":
        from ._encoder import Encoder
        return Encoder
    if name == "TextGenerator":
        from ._text import TextGenerator
        return TextGenerator
    raise AttributeError(f"module 'tfm' has no attribute '{name}'")


__all__ = [
    "compile", "find_tool", "Model", "library_info", "Encoder", "Session",
    "TextGenerator",
    "Error", "CompileError", "LibraryError", "ToolNotFoundError",
    "InvalidArgumentError", "BufferTooSmallError", "WeightsError",
    "ModelError", "OutOfMemoryError", "UnsupportedError", "DeviceError",
]
