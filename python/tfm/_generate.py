"""Generation: sessions (the KV cache of the C ABI's tfm_session_*), token
generation with tfm-run's sampler, and tfm-run's beam search.

The sampler and the beam search are tfm-run's (tools/tfm-run/tfm-run.cpp,
``Sampler`` and ``BeamGroup``; docs/tfm-run.md, "Generating text" and "Beam
search"), reproduced operation for operation: the same seed and arguments
give the same tokens in Python and tfm-run.
"""

from __future__ import annotations

import bisect
import contextlib
import itertools
import math
import secrets
import threading
from ctypes import byref, c_int64, c_void_p
from typing import Any, Iterator, List, NamedTuple, Optional, Sequence, Set, Tuple

import numpy as np

from ._errors import Error, InvalidArgumentError, UnsupportedError, error_for_status
from ._model import _F32, _I32, _I64, Model, _int32_array, _int_array, _ptr

_INT64_MIN, _INT64_MAX = -2**63, 2**63 - 1


def _is_int(value: Any) -> bool:
    return isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_))


def _int_arg(value: Any, name: str) -> int:
    """An int argument of a C call (int64), checked so that nothing wraps."""
    if not _is_int(value):
        raise InvalidArgumentError(f"{name} must be an int, got {type(value).__name__}")
    v = int(value)
    if not _INT64_MIN <= v <= _INT64_MAX:
        raise InvalidArgumentError(f"{name} is {v}, outside the int64 range of the C ABI")
    return v


# ----- sessions ----------------------------------------------------------------


def _check_ids(ids: np.ndarray, what: str, vocab: int, name: str) -> None:
    """Raises for the first id of `ids` (called `what`) outside the
    vocabulary of the model `name`."""
    bad = np.flatnonzero((ids < 0) | (ids >= vocab))
    if bad.size:
        t = int(bad[0])
        raise InvalidArgumentError(
            f"{what}[{t}] is token id {ids[t]}, outside [0, {vocab}) "
            f"(vocab_size of {name})")


def _rows_and_lengths(value: Any, name: str, shape_doc: str, lengths: Any,
                      n: int) -> Tuple[np.ndarray, np.ndarray]:
    """`value` as int32 rows, one per listed slot, and their lengths (the
    whole row when `lengths` is None)."""
    rows = _int32_array(value, name, shape_doc, 2)
    if rows.shape[0] != n:
        raise InvalidArgumentError(
            f"{name} has {rows.shape[0]} rows, slots lists {n} slots")
    if lengths is None:
        return rows, np.full(n, rows.shape[1], dtype=np.int32)
    lens = _int32_array(lengths, "lengths", "[n]", 1)
    if lens.shape[0] != n:
        raise InvalidArgumentError(
            f"lengths has {lens.shape[0]} entries, slots lists {n} slots")
    return rows, lens


class Session:
    """A generation session: the KV cache of up to ``max_slots`` sequences
    (*slots*) of a model, each up to ``max_context`` tokens, so that a new
    token costs one step over that token instead of a forward pass over the
    whole sequence (``tfm_session_*``, docs/c-abi.md, "Generation
    sessions")::

        with model.session(max_slots=2, max_context=64) as s:
            logits = s.prefill([0, 1], [[5, 17, 3], [4, 4, 0]], lengths=[3, 2])
            nxt = logits.argmax(axis=1)                    # [2, vocab] -> [2]
            logits = s.decode([0, 1], nxt)                 # one token per slot
            s.reset(1)                                     # slot 1 is empty again

    The model must have a generation step (``tfm.compile(...,
    generation=True)``, ``tfmc --generation``) and run on the CPU. An
    encoder-decoder's slot first gets its source (:meth:`encode`: the
    encoder runs once, its cross-attention keys and values are cached in
    the slot), then the decoder's prefix (its start token) is prefilled::

        with s2s.session(max_slots=2) as s:
            s.encode([0, 1], [[5, 6, 7, 8], [40, 41]])     # one source per slot
            logits = s.prefill([0, 1], [[1], [1]])         # the start token

    Threads: the calls of one session run one after the other (a lock of
    the session; each call releases the GIL), since every call but
    :meth:`length` modifies the cache. Separate sessions, also of one model,
    run in parallel. The session keeps its model alive: ``model.close()``
    destroys the model only after the last of its sessions is closed.

    Every failure raises a subclass of :class:`tfm.Error` with the
    library's message; a failed call changes nothing.
    """

    def __init__(self, model: Model, max_slots: int = 1,
                 max_context: Optional[int] = None) -> None:
        self._handle: Optional[int] = None
        self._lock = threading.Lock()
        if not isinstance(model, Model):
            raise InvalidArgumentError(
                f"model must be a tfm.Model, got {type(model).__name__}")
        self.model = model
        info = model._info
        self.vocab_size = int(info.get("vocab_size", 0))
        slots = _int_arg(max_slots, "max_slots")
        context = _int_arg(int(info.get("max_seq_len", 0)) if max_context is None
                           else max_context, "max_context")
        lib = model._lib
        if lib.tfm_session_create is None:
            raise UnsupportedError(
                f"{model.library}: the library does not export tfm_session_create "
                f"(built by a tfm without generation sessions): recompile it with "
                f"tfm.compile(..., generation=True)")
        handle = model._acquire()
        try:
            out = c_void_p()
            status = lib.tfm_session_create(handle, slots, context, byref(out))
            if status != 0:
                message = lib.tfm_last_error().decode("utf-8", "replace")
                if status == UnsupportedError.status and "kv_cache" not in info \
                        and info.get("architecture") in ("decoder", "encoder_decoder"):
                    message += "; compile it with tfm.compile(..., generation=True)"
                raise error_for_status(status, message)
        except BaseException:
            model._release(handle)
            raise
        self._model_handle = handle
        self._handle = out.value
        self.max_slots, self.max_context = slots, context

    # ----- life cycle ---------------------------------------------------------

    def close(self) -> None:
        """Releases the cache (``tfm_session_destroy``); later calls raise
        :class:`tfm.Error`. Closing twice is allowed."""
        with self._lock:
            handle, self._handle = self._handle, None
        if handle is not None:
            self.model._lib.tfm_session_destroy(handle)
            self.model._release(self._model_handle)

    def __enter__(self) -> "Session":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def __del__(self) -> None:
        if getattr(self, "_handle", None) is not None:
            try:
                self.close()
            except Exception:  # interpreter shutdown
                pass

    @contextlib.contextmanager
    def _use(self) -> Iterator[int]:
        with self._lock:
            if self._handle is None:
                raise Error(f"{self.model.library}: the session is closed")
            yield self._handle

    # ----- calls --------------------------------------------------------------

    def prefill(self, slots: Any, ids: Any, lengths: Any = None, *,
                out: Optional[np.ndarray] = None) -> np.ndarray:
        """Appends tokens to distinct slots and returns the next-token
        logits after each one's last new token (``tfm_session_prefill``).

        Args:
            slots: ``[n]`` slot indices in ``[0, max_slots)``, no two equal,
                any order (list the slots that lie close together: one call
                is one step over the range from the lowest to the highest).
                An int: one slot, with ``ids`` one sequence ``[seq]``.
            ids: ``[n, seq]`` token ids (any integer dtype); row ``i`` is
                appended to ``slots[i]``, after the tokens it holds
                (chunked prefill).
            lengths: ``[n]`` counts in ``[1, seq]``: row ``i`` appends its
                first ``lengths[i]`` tokens (the rest is ignored). ``None``:
                every row appends all ``seq`` tokens.
            out: optional float32 C-contiguous ``[n, vocab]`` array to write
                into.

        Returns:
            float32 ``[n, vocab]`` logits (one slot: ``[vocab]``).
        """
        if _is_int(slots):
            row = _int32_array(ids, "ids", "[seq] (one slot)", 1)
            lens = None if lengths is None else [lengths]
            result = self.prefill([slots], row.reshape(1, -1), lens,
                                  out=None if out is None else out.reshape(1, -1))
            return result[0]
        slot_array = _int_array(slots, "slots", "[n]", 1, np.int64)
        n = slot_array.shape[0]
        rows, lens = _rows_and_lengths(ids, "ids", "[n, seq]", lengths, n)
        seq = rows.shape[1]
        result = self.model._output(out, (n, self.vocab_size))
        with self._use() as h:
            self.model._lib.check(self.model._lib.tfm_session_prefill(
                h, _ptr(slot_array, _I64), n, _ptr(rows, _I32), seq, _ptr(lens, _I32),
                _ptr(result, _F32), result.size))
        return result

    def decode(self, slots: Any, ids: Any, *, out: Optional[np.ndarray] = None) -> np.ndarray:
        """Appends one token to each slot and returns its next-token logits
        (``tfm_session_decode``): ``slots`` ``[n]`` distinct slots that
        hold at least one token, ``ids`` ``[n]`` one token each. An int
        slot with an int id: ``[vocab]``; else float32 ``[n, vocab]``."""
        if _is_int(slots):
            if not _is_int(ids):
                raise InvalidArgumentError(
                    f"ids must be one token id (an int) for one slot, got {type(ids).__name__}")
            result = self.decode([slots], [ids],
                                 out=None if out is None else out.reshape(1, -1))
            return result[0]
        slot_array = _int_array(slots, "slots", "[n]", 1, np.int64)
        n = slot_array.shape[0]
        tokens = _int32_array(ids, "ids", "[n]", 1)
        if tokens.shape[0] != n:
            raise InvalidArgumentError(
                f"ids has {tokens.shape[0]} tokens, slots lists {n} slots (one token per slot)")
        result = self.model._output(out, (n, self.vocab_size))
        with self._use() as h:
            self.model._lib.check(self.model._lib.tfm_session_decode(
                h, _ptr(slot_array, _I64), n, _ptr(tokens, _I32),
                _ptr(result, _F32), result.size))
        return result

    def encode(self, slots: Any, sources: Any, lengths: Any = None) -> None:
        """Encoder-decoder models: runs the encoder on one source per slot
        and caches every decoder layer's cross-attention keys and values in
        the slot (``tfm_session_encode``). The listed slots start over: no
        decoder tokens (as after :meth:`reset`), the new source; prefill the
        decoder's first tokens (its start token) next. :meth:`copy_slot`
        copies a slot's source with it, :meth:`reset` forgets it.

        Args:
            slots: ``[n]`` distinct slot indices in ``[0, max_slots)``. An
                int: one slot, with ``sources`` one sequence.
            sources: the source token ids (any integer dtype) of each slot:
                a list of ``n`` sequences, of different lengths, or an
                ``[n, src_seq]`` array (or nested lists) with ``lengths``.
                Each source has 1 to ``max_seq_len`` ids in ``[0,
                vocab_size)``.
            lengths: ``[n]`` counts in ``[1, src_seq]`` (the library's
                messages call them ``src_lengths``): row ``i`` of a 2-D
                ``sources`` is its first ``lengths[i]`` ids. ``None``: each
                sequence's own length (all of a 2-D array's row).

        Raises:
            UnsupportedError: the model is a decoder (prefill the prompt
                instead).
            InvalidArgumentError: a bad slot, length or token id (the
                library's message); a failed call changes nothing.
        """
        lib = self.model._lib
        if lib.tfm_session_encode is None:
            raise UnsupportedError(
                f"{self.model.library}: the library does not export tfm_session_encode "
                f"(built by an older tfm): recompile it")
        if _is_int(slots):
            row = _int32_array(sources, "sources", "[src_seq] (one slot)", 1)
            self.encode([slots], row.reshape(1, -1), None if lengths is None else [lengths])
            return
        slot_array = _int_array(slots, "slots", "[n]", 1, np.int64)
        n = slot_array.shape[0]
        if lengths is None and not isinstance(sources, np.ndarray):
            # A list of sequences, right-padded into one [n, src_seq] array.
            if isinstance(sources, (str, bytes)):
                raise InvalidArgumentError("sources must be token ids, got a string")
            try:
                items = list(sources)
            except TypeError:
                raise InvalidArgumentError(
                    f"sources must be a list of token id sequences or an [n, src_seq] "
                    f"array, got {type(sources).__name__}") from None
            if len(items) != n:
                raise InvalidArgumentError(
                    f"sources has {len(items)} sequences, slots lists {n} slots")
            rows = [_int32_array(item, f"sources[{i}]", "[src_len]", 1)
                    for i, item in enumerate(items)]
            src_seq = max([1] + [r.shape[0] for r in rows])
            src = np.zeros((n, src_seq), dtype=np.int32)
            for i, r in enumerate(rows):
                src[i, :r.shape[0]] = r
            lens = np.array([r.shape[0] for r in rows], dtype=np.int32)
        else:
            src, lens = _rows_and_lengths(sources, "sources", "[n, src_seq]",
                                          lengths, n)
            src_seq = src.shape[1]
        with self._use() as h:
            lib.check(lib.tfm_session_encode(
                h, _ptr(slot_array, _I64), n, _ptr(src, _I32), src_seq, _ptr(lens, _I32)))

    def reset(self, slot: int) -> None:
        """Empties one slot (``tfm_session_reset``): it holds no token
        afterwards and behaves like a slot of a new session."""
        s = _int_arg(slot, "slot")
        with self._use() as h:
            self.model._lib.check(self.model._lib.tfm_session_reset(h, s))

    def copy_slot(self, src: int, dst: int) -> None:
        """Makes slot ``dst`` a copy of slot ``src`` (``tfm_session_copy_slot``):
        the same tokens, and it continues exactly like ``src``; what ``dst``
        held is discarded, ``src`` is unchanged, ``src == dst`` does
        nothing. A copy of the cached positions, no step: beam search uses
        it to continue one sequence in several ways."""
        lib = self.model._lib
        if lib.tfm_session_copy_slot is None:
            raise UnsupportedError(
                f"{self.model.library}: the library does not export tfm_session_copy_slot "
                f"(built by an older tfm): recompile it")
        a, b = _int_arg(src, "src"), _int_arg(dst, "dst")
        with self._use() as h:
            lib.check(lib.tfm_session_copy_slot(h, a, b))

    def length(self, slot: int) -> int:
        """The number of tokens ``slot`` holds (``tfm_session_length``)."""
        s = _int_arg(slot, "slot")
        n = c_int64()
        with self._use() as h:
            self.model._lib.check(self.model._lib.tfm_session_length(h, s, byref(n)))
        return n.value

    def __repr__(self) -> str:
        state = "closed" if self._handle is None else "open"
        return (f"<tfm.Session of '{self.model._info.get('model_name')}': "
                f"{self.max_slots} slots of {self.max_context} tokens, {state}>")


# ----- the sampler -------------------------------------------------------------

_MASK64 = (1 << 64) - 1


class MT19937_64:
    """C++'s ``std::mt19937_64`` (the 64-bit Mersenne Twister whose output
    sequence the C++ standard fixes), in pure Python: ``next()`` is the
    generator's next 64-bit output for the same seed."""

    _N, _M = 312, 156
    _UPPER, _LOWER = 0xFFFFFFFF80000000, 0x7FFFFFFF
    _A = 0xB5026F5AA96619E9

    def __init__(self, seed: int = 5489) -> None:
        mt = [seed & _MASK64]
        for i in range(1, self._N):
            prev = mt[-1]
            mt.append((6364136223846793005 * (prev ^ (prev >> 62)) + i) & _MASK64)
        self._mt = mt
        self._index = self._N

    def _twist(self) -> None:
        mt, n, m = self._mt, self._N, self._M
        for i in range(n):
            x = (mt[i] & self._UPPER) | (mt[(i + 1) % n] & self._LOWER)
            y = x >> 1
            if x & 1:
                y ^= self._A
            mt[i] = mt[(i + m) % n] ^ y
        self._index = 0

    def next(self) -> int:
        if self._index >= self._N:
            self._twist()
        y = self._mt[self._index]
        self._index += 1
        y ^= (y >> 29) & 0x5555555555555555
        y ^= (y << 17) & 0x71D67FFFEDA60000
        y ^= (y << 37) & 0xFFF7EEE000000000
        y ^= y >> 43
        return y & _MASK64


class Sampler:
    """How the next token is picked from a row of logits: tfm-run's rules,
    operation for operation (docs/tfm-run.md, "Generating text").

    Greedy (neither ``top_k`` nor ``top_p``): the largest logit, the lowest
    id on ties; no draw. Sampling: the ids ordered by logit (descending,
    then by id; NaN counts as -infinity), the first ``top_k`` kept,
    probabilities ``exp(logit / T - max)`` in float64 (the C library's
    ``exp``, as ``std::exp``), then (``top_p``) the shortest prefix whose
    mass reaches ``top_p`` of the total; one draw ``u = (x >> 11) * 2**-53``
    from the next output ``x`` of ``std::mt19937_64(seed)`` picks the first
    kept id whose cumulative mass (summed in order) exceeds ``u`` times the
    kept mass. If the largest scaled logit is not finite, the first id in
    that order is taken (after the draw)."""

    def __init__(self, top_k: Optional[int] = None, top_p: Optional[float] = None,
                 temperature: float = 1.0, seed: int = 0) -> None:
        self.top_k, self.top_p, self.temperature = top_k, top_p, float(temperature)
        self.seed = seed
        self._rng = MT19937_64(seed)

    @property
    def greedy(self) -> bool:
        return self.top_k is None and self.top_p is None

    def next(self, logits: np.ndarray) -> int:
        row = np.asarray(logits, dtype=np.float32).reshape(-1)
        key = np.where(np.isnan(row), np.float32(-np.inf), row)
        if self.greedy:
            return int(np.argmax(key))  # the first of equal maxima
        vocab = key.shape[0]
        k = vocab if self.top_k is None else min(self.top_k, vocab)
        if k < vocab:
            # The k-th largest value; every id above it, and the ties in id
            # order, are the candidates: the first k of them in (logit
            # descending, id ascending) order are tfm-run's partial sort.
            threshold = np.partition(key, vocab - k)[vocab - k]
            candidates = np.flatnonzero(key >= threshold)
            order = candidates[np.argsort(-key[candidates], kind="stable")][:k]
        else:
            order = np.argsort(-key, kind="stable")
        u = (self._rng.next() >> 11) * 2.0**-53  # drawn in every case, as tfm-run
        t = self.temperature
        largest = float(key[order[0]]) / t
        if not math.isfinite(largest):
            return int(order[0])
        scaled = (key[order].astype(np.float64) / t - largest).tolist()
        cumulative = list(itertools.accumulate(map(math.exp, scaled)))
        kept = len(cumulative)
        if self.top_p is not None:
            # The shortest prefix whose mass reaches top_p of the total.
            kept = min(bisect.bisect_left(cumulative, self.top_p * cumulative[-1]) + 1, kept)
        i = bisect.bisect_right(cumulative, u * cumulative[kept - 1], 0, kept)
        return int(order[min(i, kept - 1)])


# ----- generation --------------------------------------------------------------


def check_sampling(greedy: bool, top_k: Optional[int], top_p: Optional[float],
                   temperature: float, seed: Optional[int], beam: Optional[int],
                   length_penalty: Optional[float] = None,
                   length_penalty_form: Optional[str] = None) -> Sampler:
    """The sampler for generate()'s arguments, checked as tfm-run checks
    its options."""
    if beam is not None:
        # Model.generate runs beam search itself (beam_search); only the
        # token-at-a-time generation of steps() lands here.
        raise NotImplementedError(
            "beam search runs through Model.generate(..., beam=B) only: TextGenerator "
            "and streaming generate one token at a time")
    for name, given in (("length_penalty", length_penalty),
                        ("length_penalty_form", length_penalty_form)):
        if given is not None:
            raise InvalidArgumentError(
                f"{name} only applies to beam search: pass beam=B")
    if not isinstance(greedy, (bool, np.bool_)):
        raise InvalidArgumentError(f"greedy must be a bool, got {type(greedy).__name__}")
    sampling = top_k is not None or top_p is not None
    if greedy and sampling:
        raise InvalidArgumentError(
            "greedy=True cannot be combined with top_k or top_p (which sample)")
    if top_k is not None:
        if not _is_int(top_k):
            raise InvalidArgumentError(f"top_k must be an int, got {type(top_k).__name__}")
        if top_k < 1:
            raise InvalidArgumentError(f"top_k is {top_k}, must be at least 1")
        top_k = int(top_k)
    if top_p is not None:
        if not isinstance(top_p, (int, float, np.integer, np.floating)) or \
                isinstance(top_p, (bool, np.bool_)):
            raise InvalidArgumentError(f"top_p must be a number, got {type(top_p).__name__}")
        top_p = float(top_p)
        if not 0 < top_p <= 1:
            raise InvalidArgumentError(f"top_p is {top_p:g}, must lie in (0, 1]")
    if not isinstance(temperature, (int, float, np.integer, np.floating)) or \
            isinstance(temperature, (bool, np.bool_)):
        raise InvalidArgumentError(
            f"temperature must be a number, got {type(temperature).__name__}")
    t = float(temperature)
    if not (t > 0 and math.isfinite(t)):
        raise InvalidArgumentError(f"temperature is {t:g}, must be a positive number")
    if t != 1.0 and not sampling:
        raise InvalidArgumentError(
            "temperature only applies to sampling: pass top_k or top_p "
            "(top_p=1.0 samples from every token)")
    if seed is None:
        seed = secrets.randbits(64)
    elif not _is_int(seed) or not 0 <= int(seed) < 2**64:
        raise InvalidArgumentError(f"seed is {seed!r}, must be an int in [0, 2**64)")
    return Sampler(top_k, top_p, t, int(seed))


def _prompt_rows(prompts: Any, name: str = "prompts") -> List[Any]:
    """The prompts (or sources) as a list of sequences: a list of sequences,
    a 2-D array (a batch), or one sequence (a list of ints or a 1-D
    array)."""
    if isinstance(prompts, (str, bytes)):
        raise InvalidArgumentError(
            f"{name} must be token ids (a list of sequences, or one sequence), got a "
            f"string: tokenize it first" + (", or use tfm.TextGenerator"
                                            if name == "prompts" else ""))
    if isinstance(prompts, np.ndarray):
        if prompts.ndim == 1:
            return [prompts]
        if prompts.ndim == 2:
            return list(prompts)
        raise InvalidArgumentError(
            f"{name} must be a list of token id sequences or one sequence, got an "
            f"array of shape {list(prompts.shape)}")
    try:
        items = list(prompts)
    except TypeError:
        raise InvalidArgumentError(
            f"{name} must be a list of token id sequences or one sequence, got "
            f"{type(prompts).__name__}") from None
    if items and all(_is_int(x) for x in items):
        return [items]
    return items


class Plan:
    """A checked generation: the prompts, the sampler, the stop ids and, for
    an encoder-decoder, each prompt's source (``None`` for decoders)."""

    def __init__(self, model: Model, prompts: List[List[int]], max_new_tokens: int,
                 sampler: Sampler, stop_ids: Set[int],
                 sources: Optional[List[List[int]]] = None) -> None:
        self.model, self.prompts, self.max_new_tokens = model, prompts, max_new_tokens
        self.sampler, self.stop_ids, self.sources = sampler, stop_ids, sources


def plan(model: Model, prompts: Any, max_new_tokens: int, *, greedy: bool = False,
         top_k: Optional[int] = None, top_p: Optional[float] = None,
         temperature: float = 1.0, seed: Optional[int] = None, stop_ids: Any = (),
         beam: Optional[int] = None, length_penalty: Optional[float] = None,
         length_penalty_form: Optional[str] = None, sources: Any = None) -> Plan:
    """Checks generate()'s arguments in tfm-run's order: the options, the
    model, the sources, then the prompts and stop ids against its limits."""
    n_new = _check_max_new_tokens(max_new_tokens)
    sampler = check_sampling(greedy, top_k, top_p, temperature, seed, beam, length_penalty,
                             length_penalty_form)
    rows, stops, source_rows = _check_inputs(model, prompts, n_new, stop_ids, sources)
    return Plan(model, rows, n_new, sampler, set(stops), source_rows)


def _check_max_new_tokens(max_new_tokens: Any) -> int:
    if not _is_int(max_new_tokens):
        raise InvalidArgumentError(
            f"max_new_tokens must be an int, got {type(max_new_tokens).__name__}")
    if max_new_tokens < 0:
        raise InvalidArgumentError(f"max_new_tokens is {max_new_tokens}, must be at least 0")
    return int(max_new_tokens)


def _check_inputs(model: Model, prompts: Any, n_new: int, stop_ids: Any,
                  sources: Any = None
                  ) -> Tuple[List[List[int]], List[int], Optional[List[List[int]]]]:
    """The model, its sources (encoder-decoders), then the prompts and stop
    ids against its limits, in tfm-run's order: the prompts as lists, the
    stop ids in the order given, the sources as lists (``None`` for a
    decoder)."""
    info = model._info
    name = f"model '{info.get('model_name')}'"
    arch, output = info.get("architecture"), info.get("output")
    if arch not in ("decoder", "encoder_decoder") or output != "logits":
        raise UnsupportedError(
            f"{model.library} ({name}) is not a language model ({arch} with {output} "
            f"output): generation needs a decoder or an encoder-decoder with logits")
    seq2seq = arch == "encoder_decoder"
    if seq2seq and sources is None:
        raise InvalidArgumentError(
            f"{model.library} ({name}) is an encoder-decoder: pass the source of each "
            f"prompt with sources=[...] (the prompt is the decoder's prefix, e.g. its "
            f"start token)")
    if not seq2seq and sources is not None:
        raise InvalidArgumentError(
            f"sources is for encoder-decoder models; {model.library} ({name}) is a decoder")
    source_rows: Optional[List[List[int]]] = None
    if seq2seq:
        vocab, max_len = int(info["vocab_size"]), int(info["max_seq_len"])
        given = _prompt_rows(sources, "sources")
        count = len(_prompt_rows(prompts))
        if len(given) != count:
            raise InvalidArgumentError(
                f"sources has {len(given)} sequences and prompts {count}: one source per "
                f"prompt")
        source_rows = []
        for i, source in enumerate(given):
            ids = _int_array(source, f"sources[{i}]", "[length]", 1, np.int64)
            if ids.shape[0] == 0 or ids.shape[0] > max_len:
                raise InvalidArgumentError(
                    f"sources[{i}] has {ids.shape[0]} tokens; a source has 1 to "
                    f"max_seq_len {max_len} (of {name})")
            _check_ids(ids, f"sources[{i}]", vocab, name)
            source_rows.append(ids.tolist())
    if "kv_cache" not in info:
        raise UnsupportedError(
            f"{model.library} ({name}) has no generation step: it was compiled without "
            f"generation entries; compile it with tfm.compile(..., generation=True) "
            f"(tfmc --generation)")
    vocab, max_len = int(info["vocab_size"]), int(info["max_seq_len"])

    rows = []
    for i, prompt in enumerate(_prompt_rows(prompts)):
        ids = _int_array(prompt, f"prompts[{i}]", "[length]", 1, np.int64)
        if ids.shape[0] == 0:
            raise InvalidArgumentError(f"prompts[{i}] is empty: a prompt needs at least one token")
        _check_ids(ids, f"prompts[{i}]", vocab, name)
        length = ids.shape[0]
        if length > max_len:
            raise InvalidArgumentError(
                f"prompts[{i}] has {length} tokens, more than max_seq_len {max_len} of {name}")
        needed = length + max(n_new - 1, 0)
        if needed > max_len:
            raise InvalidArgumentError(
                f"prompts[{i}] has {length} tokens: generating {n_new} more feeds the model "
                f"{needed} tokens (all but the last generated one), more than max_seq_len "
                f"{max_len} of {name} (max_new_tokens {max_len - length + 1} at most)")
        rows.append(ids.tolist())

    stops = [stop_ids] if _is_int(stop_ids) else list(stop_ids)
    for s in stops:
        if not _is_int(s):
            raise InvalidArgumentError(f"stop_ids must hold ints, got {type(s).__name__}")
        if not 0 <= s < vocab:
            raise InvalidArgumentError(
                f"stop id {s} is outside [0, {vocab}) (vocab_size of {name})")
    return rows, [int(s) for s in stops], source_rows


def steps(p: Plan) -> Iterator[List[Tuple[int, int]]]:
    """Runs a plan: one session of one slot per prompt, (encoder-decoders)
    one encode of every source, one prefill of every prompt, then one
    decode per token over the sequences still running (in prompt order,
    which is also the order of the draws). Yields the ``(prompt index,
    token)`` pairs of each step."""
    count, n_new = len(p.prompts), p.max_new_tokens
    if count == 0 or n_new == 0:
        return
    sequences = [list(prompt) for prompt in p.prompts]
    generated = [0] * count
    longest = max(len(s) for s in sequences)
    with Session(p.model, count, longest + n_new - 1) as session:
        active = list(range(count))
        first = True
        while active:
            if first:
                ids = np.zeros((count, longest), dtype=np.int32)
                for i, s in enumerate(sequences):
                    ids[i, :len(s)] = s
                lengths = np.array([len(s) for s in sequences], dtype=np.int32)
                if p.sources is not None:  # an encoder-decoder's slots get their sources
                    session.encode(active, [p.sources[i] for i in active])
                logits = session.prefill(active, ids, lengths)
                first = False
            else:
                logits = session.decode(active, [sequences[i][-1] for i in active])
            picked, running = [], []
            for j, i in enumerate(active):
                token = p.sampler.next(logits[j])
                sequences[i].append(token)
                generated[i] += 1
                picked.append((i, token))
                if token not in p.stop_ids and generated[i] < n_new:
                    running.append(i)
            active = running
            yield picked


# ----- beam search -------------------------------------------------------------


class Hypothesis(NamedTuple):
    """A finished beam search hypothesis: its new tokens (a stop id last, or
    ``max_new_tokens`` of them), the sum of their log-probabilities and its
    score, ``sum / lp(len(tokens))`` (:class:`LengthPenalty`)."""
    tokens: List[int]
    sum: float
    score: float


class LengthPenalty(NamedTuple):
    """The divisor of a hypothesis's log-probability, tfm-run's
    ``LengthPenalty``: ``((5 + n) / 6) ** alpha`` (``form`` "gnmt", Wu et
    al. 2016, the Transformer paper's beam search) or ``n ** alpha``
    ("power", Hugging Face transformers' ``length_penalty``)."""
    form: str
    alpha: float

    def __call__(self, n: float) -> float:
        base = (5.0 + n) / 6.0 if self.form == "gnmt" else n
        return math.pow(base, self.alpha)


class _Beam(NamedTuple):
    tokens: List[int]
    sum: float
    parent: int  # its index in the previous running beams


class BeamGroup:
    """One prompt's beam search: tfm-run's ``BeamGroup``
    (tools/tfm-run/tfm-run.cpp; docs/tfm-run.md, "Beam search"), operation
    for operation, so that the same logits give the same hypotheses and the
    same scores, bit for bit. It knows nothing of sessions: the caller hands
    it the next-token logits of every running beam, then gives each new beam
    the cache of its ``parent`` and feeds it its last token."""

    def __init__(self, width: int, penalty: LengthPenalty, max_new: int,
                 stops: Sequence[int], vocab: int) -> None:
        self.width, self.penalty, self.max_new, self.vocab = width, penalty, max_new, vocab
        self.stops = set(stops)
        # Before the first step, one beam without tokens: the prompt.
        self.running: List[_Beam] = [_Beam([], 0.0, 0)] if max_new > 0 else []
        self.hypotheses: List[Hypothesis] = []  # best first, at most width

    @property
    def done(self) -> bool:
        return not self.running

    def step(self, logits: np.ndarray) -> None:
        """One token more: ``logits`` ``[len(running), vocab]``."""
        count, vocab, width = len(self.running), self.vocab, self.width
        generated = len(self.running[0].tokens) + 1
        last = generated == self.max_new
        # Every (beam, token) candidate's sum: the beam's plus the token's
        # log-softmax in float64 (exp and log of the C library, the sum in
        # id order, as tfm-run), NaN logits counted as -infinity.
        sums = np.empty((count, vocab), dtype=np.float64)
        for j, beam in enumerate(self.running):
            row = np.asarray(logits[j], dtype=np.float32).astype(np.float64)
            key = np.where(np.isnan(row), -np.inf, row)
            largest = float(key.max())
            if not math.isfinite(largest):
                sums[j] = beam.sum + np.where(key == largest, 0.0, -np.inf)
                continue
            total = 0.0
            for e in map(math.exp, (key - largest).tolist()):
                total += e
            sums[j] = beam.sum + (key - (largest + math.log(total)))
        # The candidates by sum (largest first), then by beam, then by token:
        # a stable sort of the row-major sums.
        flat = sums.reshape(-1)
        considered = min(flat.shape[0], width * (1 + len(self.stops)))
        order = np.argsort(-flat, kind="stable")[:considered].tolist()
        running: List[_Beam] = []
        for rank, index in enumerate(order):
            j, token = divmod(index, vocab)
            ends = last or token in self.stops
            if (rank >= width) if ends else (len(running) >= width):
                continue
            tokens = self.running[j].tokens + [token]
            if ends:
                self._add(tokens, float(flat[index]))
            else:
                running.append(_Beam(tokens, float(flat[index]), j))
        self.running = running
        # Early stopping, exact: no running beam can beat the worst of width
        # finished hypotheses.
        if running and len(self.hypotheses) == width:
            length = float(self.max_new if self.penalty.alpha > 0 else generated + 1)
            bound = running[0].sum / self.penalty(length)
            if bound <= self.hypotheses[-1].score:
                self.running = []

    def _add(self, tokens: List[int], total: float) -> None:
        score = total / self.penalty(float(len(tokens)))
        if len(self.hypotheses) == self.width:
            if not score > self.hypotheses[-1].score:
                return
            self.hypotheses.pop()
        at = next((i for i, h in enumerate(self.hypotheses) if h.score < score),
                  len(self.hypotheses))
        self.hypotheses.insert(at, Hypothesis(tokens, total, score))


def _check_beam(beam: Any, length_penalty: Any, length_penalty_form: Any, greedy: Any,
                top_k: Any, top_p: Any, temperature: Any,
                seed: Any) -> Tuple[int, LengthPenalty]:
    """beam, length_penalty and length_penalty_form, checked as tfm-run
    checks --beam."""
    if not _is_int(beam):
        raise InvalidArgumentError(f"beam must be an int, got {type(beam).__name__}")
    if beam < 1:
        raise InvalidArgumentError(f"beam is {beam}, must be at least 1")
    unset_greedy = isinstance(greedy, (bool, np.bool_)) and not greedy
    for name, given in (("greedy", not unset_greedy), ("top_k", top_k is not None),
                        ("top_p", top_p is not None), ("temperature", temperature != 1.0),
                        ("seed", seed is not None)):
        if given:
            raise InvalidArgumentError(
                f"beam cannot be combined with {name} (beam search keeps the most likely "
                f"sequences; greedy, top_k, top_p, temperature and seed pick one token at a "
                f"time)")
    form = "gnmt" if length_penalty_form is None else length_penalty_form
    if form not in ("gnmt", "power"):
        raise InvalidArgumentError(
            f"length_penalty_form is {form!r}, must be 'gnmt' or 'power'")
    # The default exponent is the form's: 0.6 (GNMT), 1 (power).
    alpha = (0.6 if form == "gnmt" else 1.0) if length_penalty is None else length_penalty
    if not isinstance(alpha, (int, float, np.integer, np.floating)) or \
            isinstance(alpha, (bool, np.bool_)):
        raise InvalidArgumentError(
            f"length_penalty must be a number, got {type(alpha).__name__}")
    if not math.isfinite(alpha):
        raise InvalidArgumentError(f"length_penalty is {float(alpha):g}, must be a finite number")
    return int(beam), LengthPenalty(form, float(alpha))


def beam_search(model: Model, prompts: Any, max_new_tokens: int, *, beam: int,
                length_penalty: Optional[float] = None,
                length_penalty_form: Optional[str] = None, stop_ids: Any = (),
                greedy: bool = False, top_k: Optional[int] = None,
                top_p: Optional[float] = None, temperature: float = 1.0,
                seed: Optional[int] = None, sources: Any = None) -> List[List[Hypothesis]]:
    """Beam search over each prompt, as ``tfm-run --beam B`` (the same
    hypotheses, scores and session calls): one group of ``beam`` session
    slots per prompt, (encoder-decoders) the sources encoded into each
    group's first slot, the prompts prefilled together, one decode per
    token over the running beams of every group, the caches (and sources)
    moved between steps with :meth:`Session.copy_slot`. Returns each
    prompt's finished hypotheses, best first (at most ``beam``; none for
    ``max_new_tokens`` 0). The other arguments are generate()'s (the
    sampling ones only to be refused)."""
    n_new = _check_max_new_tokens(max_new_tokens)
    width, penalty = _check_beam(beam, length_penalty, length_penalty_form, greedy, top_k,
                                 top_p, temperature, seed)
    rows, stops, source_rows = _check_inputs(model, prompts, n_new, stop_ids, sources)
    vocab = int(model._info["vocab_size"])
    groups = [BeamGroup(width, penalty, n_new, stops, vocab) for _ in rows]
    if not rows or n_new == 0:
        return [[] for _ in rows]
    count, longest = len(rows), max(len(r) for r in rows)
    with Session(model, count * width, longest + n_new - 1) as session:
        slots = [[g * width] for g in range(count)]  # slots[g][j]: beam j of group g
        first = True
        while True:
            order = [(g, j) for g, group in enumerate(groups) for j in range(len(group.running))]
            if not order:
                break
            row_slots = [slots[g][j] for g, j in order]
            if first:
                ids = np.zeros((count, longest), dtype=np.int32)
                for g, prompt in enumerate(rows):
                    ids[g, :len(prompt)] = prompt
                if source_rows is not None:
                    # An encoder-decoder's first beams get their sources; the
                    # beams that branch off later copy them with the slot.
                    session.encode(row_slots, source_rows)
                logits = session.prefill(row_slots, ids, [len(r) for r in rows])
                first = False
            else:
                logits = session.decode(
                    row_slots, [groups[g].running[j].tokens[-1] for g, j in order])
            at = 0
            for g, group in enumerate(groups):
                n = len(group.running)
                if n == 0:
                    continue
                group.step(logits[at:at + n])
                at += n
                if group.done:
                    continue
                # A beam's first child keeps its slot; the others get copies
                # of it in the group's free slots, lowest first.
                old = slots[g]
                busy = [False] * width
                for b in group.running:
                    busy[old[b.parent] - g * width] = True
                taken = [False] * len(old)
                new, free = [], 0
                for b in group.running:
                    if not taken[b.parent]:
                        taken[b.parent] = True
                        new.append(old[b.parent])
                        continue
                    while busy[free]:
                        free += 1
                    busy[free] = True
                    session.copy_slot(old[b.parent], g * width + free)
                    new.append(g * width + free)
                slots[g] = new
    return [group.hypotheses for group in groups]


def generate(model: Model, prompts: Any, max_new_tokens: int, **kwargs: Any) -> List[List[int]]:
    """Model.generate (see there)."""
    if kwargs.get("beam") is not None:
        return [h[0].tokens if h else []
                for h in beam_search(model, prompts, max_new_tokens, **kwargs)]
    p = plan(model, prompts, max_new_tokens, **kwargs)
    result: List[List[int]] = [[] for _ in p.prompts]
    for picked in steps(p):
        for i, token in picked:
            result[i].append(token)
    return result

