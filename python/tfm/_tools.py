"""Finding tfm's executables and running the compiler."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Optional, Sequence, Union

from ._errors import CompileError, ToolNotFoundError

PathLike = Union[str, "os.PathLike[str]"]


def find_tool(name: str = "tfmc", bin_dir: Optional[PathLike] = None) -> str:
    """The path of one of tfm's executables (``tfmc``, ``tfm-run``, ...).

    Looked for, in this order:

    1. in ``bin_dir``, when given, else in ``$TFM_BIN`` when set (a folder;
       when either is given the tool must be there, nothing else is tried);
    2. in the build tree: the first folder above this package that holds
       ``build/bin/<name>`` (a checkout with an in-place or editable install,
       or a virtual environment inside the checkout);
    3. on ``PATH``.

    Raises:
        ToolNotFoundError: naming every place that was tried.
    """
    explicit = bin_dir if bin_dir is not None else os.environ.get("TFM_BIN")
    if explicit:
        path = Path(explicit) / name
        if path.is_file() and os.access(path, os.X_OK):
            return str(path)
        source = "bin_dir" if bin_dir is not None else "$TFM_BIN"
        raise ToolNotFoundError(
            f"{name} not found: {source} is '{explicit}', which holds no "
            f"executable '{name}'")
    tried = []
    for parent in Path(__file__).resolve().parents:
        candidate = parent / "build" / "bin" / name
        if candidate.is_file() and os.access(candidate, os.X_OK):
            return str(candidate)
    tried.append(f"build/bin/{name} in the folders above {Path(__file__).parent}")
    found = shutil.which(name)
    if found:
        return found
    tried.append("PATH")
    raise ToolNotFoundError(
        f"{name} not found (tried {' and '.join(tried)}); build tfm "
        f"(scripts/build.sh) or set TFM_BIN to the folder that holds {name}")


def compile(model: PathLike, output: PathLike, *, target: str = "cpu",
            precision: str = "f32", gpu_arch: Optional[str] = None,
            dump_ir_dir: Optional[PathLike] = None, generation: bool = False,
            extra_args: Sequence[str] = (),
            bin_dir: Optional[PathLike] = None) -> str:
    """Compiles a model to a shared library with ``tfmc``.

    Args:
        model: a tfm spec (.json), a Hugging Face ``config.json``, a Hugging
            Face model folder (``config.json`` + safetensors), or a ``.mlir``
            file that tfmc emitted.
        output: the library to write (``model.so``); tfmc writes the C
            header (``model.h``) beside it.
        target: ``"cpu"`` or ``"nvptx"`` (NVIDIA GPUs, docs/gpu.md).
        precision: ``"f32"``, ``"bf16"`` or ``"f16"`` for GEMM and attention
            inputs (docs/numerics.md).
        gpu_arch: ``sm_80``, ``sm_90``, ... for ``target="nvptx"``.
        dump_ir_dir: a folder to write the IR after every pass into.
        generation: also compile a decoder's generation step (``tfmc
            --generation``): the KV cache that :class:`tfm.Session`,
            :meth:`tfm.Model.generate` and :class:`tfm.TextGenerator` need.
        extra_args: more tfmc options, e.g. ``["--embed-weights"]`` or
            ``["--weights", "w.safetensors"]`` (see ``tfmc --help``).
        bin_dir: the folder holding tfmc (default: see :func:`find_tool`).

    Returns:
        The absolute path of the library.

    Raises:
        CompileError: tfmc failed; carries its exit code and stderr.
        ToolNotFoundError: tfmc was not found.
    """
    if isinstance(extra_args, (str, bytes)):
        raise TypeError("extra_args must be a sequence of strings, not a string")
    tfmc = find_tool("tfmc", bin_dir)
    out = os.path.abspath(os.fspath(output))
    cmd = [tfmc, os.fspath(model), "-o", out, f"--target={target}",
           f"--precision={precision}", "--quiet"]
    if gpu_arch is not None:
        cmd.append(f"--gpu-arch={gpu_arch}")
    if dump_ir_dir is not None:
        cmd.append(f"--dump-ir-dir={os.fspath(dump_ir_dir)}")
    if generation:
        cmd.append("--generation")
    cmd += [str(a) for a in extra_args]
    # stdout is the caller's (--report prints there); stderr is kept for the
    # error, and passed on when tfmc succeeds with something to say.
    proc = subprocess.run(cmd, stdin=subprocess.DEVNULL,
                          stderr=subprocess.PIPE, text=True, errors="replace")
    if proc.returncode != 0:
        how = (f"exit {proc.returncode}" if proc.returncode > 0
               else f"killed by signal {-proc.returncode}")
        stderr = proc.stderr.strip()
        raise CompileError(
            f"tfmc failed on '{os.fspath(model)}' ({how}): "
            f"{stderr or '(no message)'}",
            proc.returncode, proc.stderr, cmd)
    if proc.stderr:
        sys.stderr.write(proc.stderr)
    return out
