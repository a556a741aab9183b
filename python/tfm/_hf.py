"""What tfm.Encoder and tfm.TextGenerator share about Hugging Face model
folders: reading their JSON files and compiling a folder once, into a
cache."""

from __future__ import annotations

import atexit
import hashlib
import json
import os
import shutil
import tempfile
from pathlib import Path
from typing import Any, List, Optional

from ._errors import Error
from ._tools import PathLike, compile, find_tool


def read_json(path: Path) -> Any:
    try:
        with open(path, encoding="utf-8") as f:
            return json.load(f)
    except OSError as e:
        raise Error(f"{path}: cannot read: {e.strerror}") from None
    except ValueError as e:
        raise Error(f"{path}: not valid JSON: {e}") from None


def check_folder(model_dir: PathLike, what: str) -> Path:
    """The folder, which must hold config.json and tokenizer.json."""
    d = Path(model_dir)
    if not d.is_dir():
        raise Error(f"{d}: not a folder (expected a Hugging Face model folder "
                    f"with config.json, tokenizer.json and safetensors weights{what})")
    for name in ("config.json", "tokenizer.json"):
        if not (d / name).is_file():
            raise Error(f"{d}: has no {name}")
    return d


def cache_key(model_dir: Path, precision: str, tfmc: str, generation: bool = False) -> str:
    """A hash of what the compiled library depends on: the compiler binary,
    the precision (and the generation step), config.json and the weights
    files' names, sizes and modification times."""
    h = hashlib.sha256()
    st = os.stat(tfmc)
    h.update(f"{os.path.realpath(tfmc)}:{st.st_size}:{st.st_mtime_ns}:{precision}".encode())
    if generation:
        h.update(b":generation")
    h.update((model_dir / "config.json").read_bytes())
    for f in sorted(model_dir.iterdir()):
        if f.suffix == ".safetensors" or f.name.endswith(".safetensors.index.json"):
            s = f.stat()
            h.update(f"{f.name}:{s.st_size}:{s.st_mtime_ns}".encode())
    return h.hexdigest()[:16]


_temp_dirs: List[str] = []


def _remove_temp_dirs() -> None:
    for d in _temp_dirs:
        shutil.rmtree(d, ignore_errors=True)


atexit.register(_remove_temp_dirs)


def compile_cached(model_dir: Path, cache_dir: Optional[PathLike], precision: str,
                   bin_dir: Optional[PathLike], *, generation: bool = False,
                   temp_prefix: str = "tfm-") -> str:
    """Compiles a Hugging Face folder with tfmc into ``cache_dir`` (default
    ``<model_dir>/.tfm-cache``, or a temporary folder, removed at exit,
    when that cannot be created), named by :func:`cache_key`; a library
    already there is reused."""
    tfmc = find_tool("tfmc", bin_dir)
    if cache_dir is not None:
        cache = Path(cache_dir)
    else:
        cache = model_dir / ".tfm-cache"
        try:
            cache.mkdir(exist_ok=True)
        except OSError:
            cache = Path(tempfile.mkdtemp(prefix=temp_prefix))
            _temp_dirs.append(str(cache))
    cache.mkdir(parents=True, exist_ok=True)
    key = cache_key(model_dir, precision, tfmc, generation)
    target = cache / f"{model_dir.resolve().name}-{key}.so"
    if target.is_file():
        return str(target)
    # Compile into a folder of its own, then move the library into place:
    # a concurrent user of the same folder never sees half a file.
    work = tempfile.mkdtemp(prefix=".compile-", dir=cache)
    try:
        so = compile(model_dir, os.path.join(work, "model.so"), precision=precision,
                     generation=generation, bin_dir=os.path.dirname(tfmc))
        os.replace(so, target)
        shutil.move(os.path.join(work, "model.h"), target.with_suffix(".h"))
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return str(target)
