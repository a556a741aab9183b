"""Loading a compiled model library and running it through its C ABI.

The functions and their signatures are those of tfm_runtime.h (the copy in
the ``model.h`` that tfmc writes beside every library); docs/c-abi.md is the
full contract.
"""

from __future__ import annotations

import contextlib
import copy
import ctypes
import json
import os
import shutil
import tempfile
import threading
from ctypes import POINTER, byref, c_char_p, c_float, c_int, c_int32, c_int64, c_size_t, c_void_p
from typing import TYPE_CHECKING, Any, Dict, Iterator, List, Optional, Tuple, Union

import numpy as np

from ._errors import Error, InvalidArgumentError, LibraryError, UnsupportedError, error_for_status

if TYPE_CHECKING:
    from ._generate import Session

PathLike = Union[str, "os.PathLike[str]"]

_I32 = POINTER(c_int32)
_F32 = POINTER(c_float)

# name -> (restype, argtypes), exactly as tfm_runtime.h declares them
# (tfm_status is a C enum: int).
_SIGNATURES = {
    "tfm_model_create": (c_int, [c_char_p, POINTER(c_void_p)]),
    "tfm_model_destroy": (c_int, [c_void_p]),
    "tfm_model_set_num_threads": (c_int, [c_void_p, c_int]),
    "tfm_model_get_num_threads": (c_int, [c_void_p, POINTER(c_int)]),
    "tfm_model_forward": (c_int, [c_void_p, _I32, c_int64, c_int64, _I32, _F32, c_size_t]),
    "tfm_model_forward_seq2seq": (c_int, [c_void_p, _I32, c_int64, c_int64, _I32,
                                          _I32, c_int64, _I32, _F32, c_size_t]),
    "tfm_model_output_shape": (c_int, [c_void_p, c_int64, c_int64, POINTER(c_int64), POINTER(c_int)]),
    "tfm_model_info": (c_int, [c_void_p, POINTER(c_char_p)]),
    "tfm_library_info": (c_int, [POINTER(c_char_p)]),
    "tfm_last_error": (c_char_p, []),
    "tfm_status_string": (c_char_p, [c_int]),
}

_I64 = POINTER(c_int64)

# The generation sessions (tfm_runtime.h, "Generation sessions"). Libraries
# built before them do not export them: those load, and the session
# functions are None.
_SESSION_SIGNATURES = {
    "tfm_session_create": (c_int, [c_void_p, c_int64, c_int64, POINTER(c_void_p)]),
    "tfm_session_destroy": (c_int, [c_void_p]),
    "tfm_session_prefill": (c_int, [c_void_p, _I64, c_int64, _I32, c_int64, _I32, _F32, c_int64]),
    "tfm_session_decode": (c_int, [c_void_p, _I64, c_int64, _I32, _F32, c_int64]),
    "tfm_session_reset": (c_int, [c_void_p, c_int64]),
    "tfm_session_length": (c_int, [c_void_p, c_int64, _I64]),
    "tfm_session_copy_slot": (c_int, [c_void_p, c_int64, c_int64]),
    "tfm_session_encode": (c_int, [c_void_p, _I64, c_int64, _I32, c_int64, _I32]),
    # Image models; None in libraries built before them.
    "tfm_model_forward_pixels": (c_int, [c_void_p, _F32, c_int64, _F32, c_size_t]),
    # Hugging Face masks; None in libraries built before them.
    "tfm_model_forward_masked": (c_int, [c_void_p, _I32, c_int64, c_int64, _I32, _I32,
                                         _F32, c_size_t]),
}


class _Library:
    """One loaded model library with typed entry points."""

    # The C functions (ctypes function pointers), set up from _SIGNATURES.
    tfm_model_create: Any
    tfm_model_destroy: Any
    tfm_model_set_num_threads: Any
    tfm_model_get_num_threads: Any
    tfm_model_forward: Any
    tfm_model_forward_seq2seq: Any
    tfm_model_output_shape: Any
    tfm_model_info: Any
    tfm_library_info: Any
    tfm_last_error: Any
    tfm_status_string: Any
    # None in libraries built before generation sessions.
    tfm_session_create: Any
    tfm_session_destroy: Any
    tfm_session_prefill: Any
    tfm_session_decode: Any
    tfm_session_reset: Any
    tfm_session_length: Any
    tfm_session_copy_slot: Any  # also None in libraries built before it
    tfm_session_encode: Any  # also None in libraries built before it
    tfm_model_forward_pixels: Any  # None in libraries built before it
    tfm_model_forward_masked: Any  # None in libraries built before it

    def __init__(self, cdll: ctypes.CDLL, path: str) -> None:
        self.path = path
        for name, (restype, argtypes) in _SIGNATURES.items():
            try:
                fn = getattr(cdll, name)
            except AttributeError:
                raise LibraryError(
                    f"{path}: not a tfm model library: it does not export "
                    f"{name} (compile the model with tfmc)") from None
            fn.restype, fn.argtypes = restype, argtypes
            setattr(self, name, fn)
        for name, (restype, argtypes) in _SESSION_SIGNATURES.items():
            fn = getattr(cdll, name, None)
            if fn is not None:
                fn.restype, fn.argtypes = restype, argtypes
            setattr(self, name, fn)
        self._cdll = cdll  # keeps the library loaded

    def check(self, status: int) -> None:
        """Raises the exception for a non-OK status, with the message of this
        thread's last failing call."""
        if status != 0:
            message = self.tfm_last_error().decode("utf-8", "replace")
            raise error_for_status(status, message)

    def manifest(self) -> Dict[str, Any]:
        text = c_char_p()
        self.check(self.tfm_library_info(byref(text)))
        try:
            manifest: Dict[str, Any] = json.loads(text.value or b"")
            return manifest
        except ValueError as e:
            raise LibraryError(f"{self.path}: the library's manifest is not valid JSON: {e}") from None


_loaded: Dict[str, Tuple[Tuple[int, int, int, int], _Library]] = {}
_load_lock = threading.Lock()


def _load(library: PathLike) -> _Library:
    """Loads a library once per process (ctypes never unloads it).

    dlopen returns the library already loaded under a path even when the
    file has been replaced since (a recompiled model), so a library whose
    file changed after it was loaded is loaded again from a private copy."""
    path = os.fspath(library)
    if not os.path.exists(path):
        raise LibraryError(f"{path}: no such model library")
    if os.path.isdir(path):
        raise LibraryError(f"{path}: is a folder, not a model library (a .so that tfmc wrote)")
    real = os.path.realpath(path)
    st = os.stat(real)
    identity = (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns)
    with _load_lock:
        entry = _loaded.get(real)
        if entry is not None and entry[0] == identity:
            return entry[1]
        load_path, tmpdir = real, None
        if entry is not None:
            tmpdir = tempfile.mkdtemp(prefix="tfm-lib-")
            load_path = os.path.join(tmpdir, os.path.basename(real))
            shutil.copyfile(real, load_path)
        try:
            cdll = ctypes.CDLL(load_path)
        except OSError as e:
            raise LibraryError(f"{path}: cannot load the model library: {e}") from None
        finally:
            if tmpdir is not None:  # the mapping outlives the file
                shutil.rmtree(tmpdir, ignore_errors=True)
        lib = _Library(cdll, path)
        _loaded[real] = (identity, lib)
        return lib


def library_info(library: PathLike) -> Dict[str, Any]:
    """The manifest of a model library as a dict, without weights: which
    weights it needs (names, shapes), its architecture, vocabulary size,
    ``max_seq_len`` and output (``tfm_library_info``)."""
    return _load(library).manifest()


def _int32_array(value: Any, name: str, shape_doc: str, ndim: int) -> np.ndarray:
    """``value`` as a C-contiguous, aligned int32 array of rank ``ndim``;
    the array itself when it is one already (no copy)."""
    return _int_array(value, name, shape_doc, ndim, np.int32)


def _int_array(value: Any, name: str, shape_doc: str, ndim: int,
               dtype: Any = np.int32) -> np.ndarray:
    """``value`` as a C-contiguous, aligned array of the integer ``dtype``
    (int32 or int64) of rank ``ndim``; the array itself when it is one
    already (no copy). Values outside ``dtype`` are an error, not wrapped."""
    try:
        a = np.asarray(value)
    except ValueError as e:  # ragged nested lists
        raise InvalidArgumentError(f"{name} must be an array of shape {shape_doc}: {e}") from None
    if a.size == 0 and a.dtype == np.float64:  # np.asarray([]) is float64
        a = a.astype(dtype)
    if a.dtype == np.bool_ or not np.issubdtype(a.dtype, np.integer):
        raise InvalidArgumentError(
            f"{name} must hold integers, got dtype {a.dtype}")
    if a.ndim != ndim:
        hint = ""
        if ndim == 2 and a.ndim == 1:
            hint = " (for one sequence use [ids])"
        raise InvalidArgumentError(
            f"{name} must have shape {shape_doc}, got shape {list(a.shape)}{hint}")
    target = np.dtype(dtype)
    if a.dtype != target and a.size:
        info = np.iinfo(target)
        # Compared in the array's own dtype where the bound fits it (uint64
        # against int64's maximum), so that nothing wraps.
        low = a < info.min if np.iinfo(a.dtype).min < info.min else np.zeros(a.shape, bool)
        high = a > info.max if np.iinfo(a.dtype).max > info.max else np.zeros(a.shape, bool)
        bad = low | high
        if bad.any():
            index = tuple(int(i) for i in np.argwhere(bad)[0])
            where = "".join(f"[{i}]" for i in index)
            raise InvalidArgumentError(
                f"{name}{where} is {a[index]}, outside the {target.name} range of the C ABI")
    return np.require(a, dtype=target, requirements=["C_CONTIGUOUS", "ALIGNED"])


def _ptr(a: Optional[np.ndarray], kind: Any) -> Any:
    return None if a is None else a.ctypes.data_as(kind)


class Model:
    """A compiled model library with its weights bound: one ``tfm_model``.

    ``Model(library, weights)`` loads the ``.so`` that tfmc wrote, maps and
    validates the weights and prepares the model (``tfm_model_create``).
    Calling it runs the forward pass::

        with tfm.Model("gpt.so", "gpt.safetensors") as model:
            logits = model([[1, 5, 9, 2], [7, 3, 0, 0]], lengths=[4, 2])
            # float32 array [2, 4, vocab]

    Args:
        library: the model library (``model.so``).
        weights: a ``.safetensors`` file, a folder holding
            ``model.safetensors`` or a sharded checkpoint's index; ``None``
            for weights embedded with ``tfmc --embed-weights``.
        threads: threads of the forward calls; 0 (default) is one per core
            or ``$OMP_NUM_THREADS``.

    A forward call releases the GIL; one instance may be called from
    several threads at once. Every failure raises a subclass of
    :class:`tfm.Error` carrying the library's message.
    """

    def __init__(self, library: PathLike, weights: Optional[PathLike] = None,
                 threads: int = 0) -> None:
        self._handle: Optional[int] = None
        self._lock = threading.Lock()
        self._active = 0
        self._closing = False
        self.library = os.fspath(library)
        self._lib = _load(library)
        handle = c_void_p()
        arg = None if weights is None else os.fsencode(os.fspath(weights))
        self._lib.check(self._lib.tfm_model_create(arg, byref(handle)))
        self._handle = handle.value
        try:
            text = c_char_p()
            self._lib.check(self._lib.tfm_model_info(self._handle, byref(text)))
            self._info: Dict[str, Any] = json.loads(text.value or b"")
            if threads != 0:
                self.threads = threads
        except BaseException:
            self.close()
            raise

    # ----- life cycle -----------------------------------------------------

    def close(self) -> None:
        """Releases the model (``tfm_model_destroy``). Calls running on other
        threads finish first, and open generation sessions keep working
        until they are closed (the model is destroyed with the last of
        them); later calls raise :class:`tfm.Error`. Closing twice is
        allowed."""
        with self._lock:
            if self._handle is None or self._closing:
                return
            self._closing = True
            if self._active:
                return  # the last running call destroys it
            handle, self._handle = self._handle, None
        self._lib.tfm_model_destroy(handle)

    def __enter__(self) -> "Model":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def __del__(self) -> None:
        if getattr(self, "_handle", None) is not None:
            self.close()

    def _acquire(self) -> int:
        """The handle, counted as in use until :meth:`_release`: a call, or
        a generation session for its whole life."""
        with self._lock:
            if self._handle is None or self._closing:
                raise Error(f"{self.library}: the model is closed")
            self._active += 1
            return self._handle

    def _release(self, handle: int) -> None:
        with self._lock:
            self._active -= 1
            last = self._closing and self._active == 0 and self._handle is not None
            if last:
                self._handle = None
        if last:
            self._lib.tfm_model_destroy(handle)

    @contextlib.contextmanager
    def _use(self) -> Iterator[int]:
        handle = self._acquire()
        try:
            yield handle
        finally:
            self._release(handle)

    # ----- properties -----------------------------------------------------

    @property
    def info(self) -> Dict[str, Any]:
        """The manifest (docs/c-abi.md, "The manifest") as a dict:
        ``model_name``, ``architecture`` (``decoder``, ``encoder``,
        ``encoder_decoder``), ``vocab_size``, ``max_seq_len``, ``output``
        (``logits``, ``hidden``, ``classes``), ``output_dims``, ``inputs``,
        ``weights``, ``prepared``, ``device`` (CUDA models only),
        ``kv_cache`` (only with a generation step), ``image`` (image
        models: ``channels``, ``height``, ``width``)."""
        return copy.deepcopy(self._info)

    @property
    def threads(self) -> int:
        """The thread count the next forward call uses (0 resolved)."""
        n = c_int()
        with self._use() as h:
            self._lib.check(self._lib.tfm_model_get_num_threads(h, byref(n)))
        return n.value

    @threads.setter
    def threads(self, n: int) -> None:
        if not isinstance(n, (int, np.integer)) or isinstance(n, bool):
            raise InvalidArgumentError(f"threads must be an int, got {type(n).__name__}")
        if not -2**31 <= n < 2**31:
            raise InvalidArgumentError(f"threads is {n}, must lie in [0, 1024]")
        with self._use() as h:
            self._lib.check(self._lib.tfm_model_set_num_threads(h, int(n)))

    def output_shape(self, batch: int, seq: int) -> Tuple[int, ...]:
        """The output shape for ``batch`` sequences of ``seq`` tokens (for
        encoder-decoder models ``seq`` is the decoder length)."""
        shape = (c_int64 * 3)()
        rank = c_int()
        with self._use() as h:
            self._lib.check(self._lib.tfm_model_output_shape(
                h, int(batch), int(seq), shape, byref(rank)))
        return tuple(int(shape[i]) for i in range(rank.value))

    # ----- forward passes -------------------------------------------------

    def _output(self, out: Optional[np.ndarray], shape: Tuple[int, ...]) -> np.ndarray:
        if out is None:
            return np.empty(shape, dtype=np.float32)
        if not isinstance(out, np.ndarray) or out.dtype != np.float32:
            raise InvalidArgumentError(
                f"out must be a float32 numpy array, got {getattr(out, 'dtype', type(out).__name__)}")
        if out.shape != shape:
            raise InvalidArgumentError(f"out has shape {list(out.shape)}, the output is {list(shape)}")
        if not (out.flags.c_contiguous and out.flags.aligned and out.flags.writeable):
            raise InvalidArgumentError("out must be C-contiguous, aligned and writeable")
        return out

    def _takes_tokens(self) -> None:
        if "image" in self._info:
            raise UnsupportedError(
                f"model '{self._info.get('model_name')}' is an image model (it takes pixels, "
                "not token ids): call Model.images")

    def _lengths(self, lengths: Any, batch: int, name: str) -> Optional[np.ndarray]:
        if lengths is None:
            return None
        lens = _int32_array(lengths, name, "[batch]", 1)
        if lens.shape[0] != batch:
            raise InvalidArgumentError(
                f"{name} has {lens.shape[0]} entries, the batch has {batch} sequences")
        return lens

    def __call__(self, tokens: Any, lengths: Any = None, *,
                 attention_mask: Any = None, position_ids: Any = None,
                 out: Optional[np.ndarray] = None) -> np.ndarray:
        """Runs the encoder or decoder (``tfm_model_forward``, or
        ``tfm_model_forward_masked`` with ``attention_mask`` or
        ``position_ids``).

        Args:
            tokens: token ids of shape ``[batch, seq]``, any integer dtype or
                nested lists; each id must lie in ``[0, vocab_size)``.
                A C-contiguous int32 array is passed without a copy.
            lengths: ``[batch]`` counts of valid tokens, each in
                ``[1, seq]``: the tokens are right-padded, the padding is
                masked. ``None``: every token is valid.
            attention_mask: Hugging Face's ``[batch, seq]`` mask of 0 and 1
                (a tokenizer's ``attention_mask``, integers or booleans), padded on the left, the
                right or both; each row's 1s must form one run. The result
                is what the Hugging Face model gives for the same inputs;
                rows under a 0 are zeros. Not with ``lengths``.
            position_ids: Hugging Face's ``[batch, seq]`` position ids,
                counting up by one along each row's run of 1s; ``None``:
                as the Hugging Face model computes them.
            out: optional float32 C-contiguous array of the output shape to
                write into.

        Returns:
            float32 array: ``[batch, seq, vocab]`` logits, ``[batch, seq,
            hidden]`` states or ``[batch, classes]`` class scores (see
            ``info["output"]``). Rows at padded positions are unspecified.
        """
        self._takes_tokens()
        ids = _int32_array(tokens, "tokens", "[batch, seq]", 2)
        batch, seq = ids.shape
        lens = self._lengths(lengths, batch, "lengths")
        masked = attention_mask is not None or position_ids is not None
        per_token = []
        for name, value in (("attention_mask", attention_mask),
                            ("position_ids", position_ids)):
            a = None
            if value is not None:
                if name == "attention_mask" and np.asarray(value).dtype == np.bool_:
                    value = np.asarray(value, dtype=np.int32)  # e.g. ids != pad
                a = _int32_array(value, name, "[batch, seq]", 2)
                if a.shape != ids.shape:
                    raise InvalidArgumentError(
                        f"{name} has shape {list(a.shape)}, the tokens {list(ids.shape)}")
            per_token.append(a)
        if masked and lens is not None:
            raise InvalidArgumentError(
                "lengths and attention_mask/position_ids describe the same padding: "
                "give one or the other")
        if masked and self._lib.tfm_model_forward_masked is None:
            raise UnsupportedError(f"{self._lib.path} does not export "
                                   "tfm_model_forward_masked: recompile it")
        result = self._output(out, self.output_shape(batch, seq))
        with self._use() as h:
            if masked:
                self._lib.check(self._lib.tfm_model_forward_masked(
                    h, _ptr(ids, _I32), batch, seq, _ptr(per_token[0], _I32),
                    _ptr(per_token[1], _I32), _ptr(result, _F32), result.size))
            else:
                self._lib.check(self._lib.tfm_model_forward(
                    h, _ptr(ids, _I32), batch, seq, _ptr(lens, _I32),
                    _ptr(result, _F32), result.size))
        return result

    def seq2seq(self, src: Any, tgt: Any, src_lengths: Any = None,
                tgt_lengths: Any = None, *, out: Optional[np.ndarray] = None) -> np.ndarray:
        """Runs an encoder-decoder model (``tfm_model_forward_seq2seq``):
        ``src`` ``[batch, src_seq]`` feeds the encoder, ``tgt``
        ``[batch, tgt_seq]`` the decoder; lengths as for :meth:`__call__`.
        Returns the ``[batch, tgt_seq, vocab]`` logits."""
        self._takes_tokens()
        s = _int32_array(src, "src", "[batch, src_seq]", 2)
        t = _int32_array(tgt, "tgt", "[batch, tgt_seq]", 2)
        if s.shape[0] != t.shape[0]:
            raise InvalidArgumentError(
                f"src has {s.shape[0]} sequences and tgt {t.shape[0]}: the batch must match")
        batch = s.shape[0]
        slens = self._lengths(src_lengths, batch, "src_lengths")
        tlens = self._lengths(tgt_lengths, batch, "tgt_lengths")
        result = self._output(out, self.output_shape(batch, t.shape[1]))
        with self._use() as h:
            self._lib.check(self._lib.tfm_model_forward_seq2seq(
                h, _ptr(s, _I32), batch, s.shape[1], _ptr(slens, _I32),
                _ptr(t, _I32), t.shape[1], _ptr(tlens, _I32),
                _ptr(result, _F32), result.size))
        return result

    def images(self, pixels: Any, *, out: Optional[np.ndarray] = None) -> np.ndarray:
        """Runs an image model such as a ViT (``tfm_model_forward_pixels``).

        Args:
            pixels: float images ``[batch, channels, height, width]`` (or one
                image ``[channels, height, width]``) with the channels and
                size of ``info["image"]``, already normalized as the model
                expects; every value must be finite. A C-contiguous float32
                array is passed without a copy.
            out: optional float32 C-contiguous array of the output shape.

        Returns:
            float32 array: ``[batch, classes]`` class scores or ``[batch,
            tokens, hidden]`` states (tokens: the [CLS] token and one per
            patch).
        """
        image = self._info.get("image")
        if image is None:
            raise UnsupportedError(
                f"model '{self._info.get('model_name')}' takes token ids, not pixels: call the model "
                "with tokens")
        if self._lib.tfm_model_forward_pixels is None:
            raise LibraryError(f"{self._lib.path}: built by an older tfm without "
                               "tfm_model_forward_pixels: recompile it")
        try:
            px = np.asarray(pixels, dtype=np.float32)
        except (TypeError, ValueError) as e:
            raise InvalidArgumentError(f"pixels must be float images: {e}") from None
        if px.ndim == 3:
            px = px[None]
        expected = (image["channels"], image["height"], image["width"])
        if px.ndim != 4 or tuple(px.shape[1:]) != expected:
            raise InvalidArgumentError(
                f"pixels has shape {list(px.shape)}, expected [batch, {expected[0]}, "
                f"{expected[1]}, {expected[2]}] (channels, height, width)")
        px = np.ascontiguousarray(px)
        batch = px.shape[0]
        result = self._output(out, self.output_shape(batch, int(self._info["max_seq_len"])))
        with self._use() as h:
            self._lib.check(self._lib.tfm_model_forward_pixels(
                h, _ptr(px, _F32), batch, _ptr(result, _F32), result.size))
        return result

    # ----- generation -----------------------------------------------------

    def session(self, max_slots: int = 1, max_context: Optional[int] = None) -> "Session":
        """A generation session of this model (``tfm_session_create``):
        the KV cache of ``max_slots`` sequences of up to ``max_context``
        tokens each (default: ``max_seq_len``). See :class:`tfm.Session`.
        The model needs a generation step (``tfm.compile(...,
        generation=True)``); an encoder-decoder's slots get their source
        with :meth:`Session.encode` before their first prefill."""
        from ._generate import Session
        return Session(self, max_slots, max_context)

    def generate(self, prompts: Any, max_new_tokens: int, *, greedy: bool = False,
                 top_k: Optional[int] = None, top_p: Optional[float] = None,
                 temperature: float = 1.0, seed: Optional[int] = None,
                 stop_ids: Any = (), beam: Optional[int] = None,
                 length_penalty: Optional[float] = None,
                 length_penalty_form: Optional[str] = None,
                 sources: Any = None) -> "List[List[int]]":
        """Generates tokens after each prompt with a session (KV cache),
        picking them as ``tfm-run --prompt-ids`` does (same seed, same
        arguments: same tokens), or by beam search as ``tfm-run --beam``
        does.

        Args:
            prompts: a list of token id sequences (lists or 1-D arrays of
                any integer dtype; a 2-D array is a batch of equal-length
                prompts), or one sequence. Every prompt holds at least one
                token. For an encoder-decoder, each prompt is the decoder's
                prefix (at least its start token).
            max_new_tokens: tokens to generate per prompt, ``>= 0``; each
                prompt needs ``len(prompt) + max_new_tokens - 1 <=
                max_seq_len`` (the last new token is never fed back).
            greedy: pick the largest logit (the lowest id on ties). The
                default when neither ``top_k`` nor ``top_p`` is given.
            top_k: sample among the ``top_k >= 1`` most likely tokens.
            top_p: sample among the most likely tokens whose probabilities
                add up to at least ``top_p`` in ``(0, 1]`` (after top_k and
                temperature); ``top_p=1.0`` samples from every token.
            temperature: divide the logits by ``temperature > 0`` before
                sampling; only with ``top_k`` or ``top_p``.
            seed: the sampler's seed in ``[0, 2**64)`` (tfm-run ``--seed``;
                its default is 0); ``None`` draws a random one.
            stop_ids: a sequence stops after it generates one of these ids
                (which is kept in its output); the others go on.
            beam: beam search with ``beam >= 1`` beams per prompt instead of
                picking one token at a time: the new tokens of the best
                finished hypothesis, by ``sum of log-probabilities /
                lp(n)``, ``n`` its number of new tokens (docs/tfm-run.md,
                "Beam search"; the same tokens as ``tfm-run --beam``). Not
                with ``greedy``, ``top_k``, ``top_p``, ``temperature`` or
                ``seed``.
            length_penalty: the exponent ``A`` of ``lp``, a finite number
                (default 0.6 for the "gnmt" form, 1.0 for "power"; 0 ranks
                by log-probability alone, a larger ``A`` favours longer
                hypotheses); only with ``beam``.
            length_penalty_form: ``"gnmt"`` (the default), ``lp(n) = ((5 +
                n) / 6) ** A`` as in Wu et al. (2016) and the Transformer
                paper's beam search, or ``"power"``, ``lp(n) = n ** A`` as
                Hugging Face transformers' ``length_penalty``; only with
                ``beam``.
            sources: encoder-decoder models only, and required there: the
                source token ids of each prompt, in the same forms as
                ``prompts`` (one per prompt, in order; each 1 to
                ``max_seq_len`` ids in ``[0, vocab_size)``). The encoder
                reads each once, into the prompt's session slot
                (:meth:`Session.encode`), before the prompts are prefilled;
                the tokens are those of ``tfm-run --source-ids``.

        Returns:
            The new tokens of each prompt (not the prompt), one list per
            prompt in the order given (one list in a list for one
            sequence): ``max_new_tokens`` of them, fewer when a stop id
            came first.

        Raises:
            InvalidArgumentError: a bad argument, a token id outside
                ``[0, vocab_size)``, a prompt too long for the model;
                ``sources`` missing for an encoder-decoder, given for a
                decoder, or not one per prompt.
            UnsupportedError: the model is not a decoder or encoder-decoder
                with logits, or has no generation step (compile with
                ``generation=True``).
        """
        from ._generate import generate
        return generate(self, prompts, max_new_tokens, greedy=greedy, top_k=top_k,
                        top_p=top_p, temperature=temperature, seed=seed,
                        stop_ids=stop_ids, beam=beam, length_penalty=length_penalty,
                        length_penalty_form=length_penalty_form, sources=sources)

    def __repr__(self) -> str:
        i = self._info if hasattr(self, "_info") else {}
        state = "closed" if self._handle is None or self._closing else "open"
        return (f"<tfm.Model '{i.get('model_name')}' {i.get('architecture')} -> "
                f"{i.get('output')} {i.get('output_dims')}, {self.library!r}, {state}>")
