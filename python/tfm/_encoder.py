"""Sentence embeddings from a Hugging Face encoder folder.

The folder's ``tokenizer.json`` is read with the ``tokenizers`` package; the
pooling and normalization are those its sentence-transformers files ask for
(``modules.json``, ``1_Pooling/config.json``), as sentence-transformers
computes them.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, List, Optional, Sequence, Tuple, Union

import numpy as np

from ._errors import Error, InvalidArgumentError, UnsupportedError
from ._hf import check_folder, compile_cached, read_json
from ._model import Model
from ._tools import PathLike

# sentence-transformers' pooling modes, in the order its Pooling module
# concatenates them, with the config.json key of each.
POOLING_MODES = ("cls", "max", "mean", "mean_sqrt_len_tokens", "weightedmean", "lasttoken")
_POOLING_KEYS = {
    "cls": "pooling_mode_cls_token",
    "max": "pooling_mode_max_tokens",
    "mean": "pooling_mode_mean_tokens",
    "mean_sqrt_len_tokens": "pooling_mode_mean_sqrt_len_tokens",
    "weightedmean": "pooling_mode_weightedmean_tokens",
    "lasttoken": "pooling_mode_lasttoken",
}
_ST = "sentence_transformers.models."
_read_json = read_json


def read_sentence_transformers_config(model_dir: PathLike) -> Tuple[List[str], bool, Optional[int]]:
    """(pooling modes, normalize, max_seq_length) of a sentence-transformers
    folder; mean pooling, no normalization and no length limit for a folder
    without ``modules.json``.

    Raises:
        UnsupportedError: ``modules.json`` lists a module other than
            Transformer, Pooling and Normalize (Dense, ...), or a pooling
            mode this package does not know.
    """
    d = Path(model_dir)
    max_len = None
    st_config = d / "sentence_bert_config.json"
    if st_config.is_file():
        value = _read_json(st_config).get("max_seq_length")
        max_len = value if isinstance(value, int) and value > 0 else None
    modules_file = d / "modules.json"
    if not modules_file.is_file():
        return ["mean"], False, max_len
    modules = _read_json(modules_file)
    if not isinstance(modules, list):
        raise Error(f"{modules_file}: expected a list of modules")
    modes, normalize = ["mean"], False
    for i, module in enumerate(modules):
        kind = module.get("type", "") if isinstance(module, dict) else ""
        if kind == _ST + "Transformer":
            continue
        if kind == _ST + "Normalize":
            normalize = True
        elif kind == _ST + "Pooling":
            config_file = d / module.get("path", "") / "config.json"
            config = _read_json(config_file)
            modes = [m for m in POOLING_MODES if config.get(_POOLING_KEYS[m])]
            unknown = [k for k, v in config.items()
                       if k.startswith("pooling_mode_") and v and k not in _POOLING_KEYS.values()]
            if unknown or not modes:
                raise UnsupportedError(
                    f"{config_file}: pooling {unknown or 'none'} is not supported "
                    f"(supported: {', '.join(POOLING_MODES)})")
        else:
            where = module.get("path", "") if isinstance(module, dict) else ""
            raise UnsupportedError(
                f"{modules_file}: module {i} ({where or '?'}, type {kind or '?'}) is not "
                f"supported: tfm embeds with a Transformer, a Pooling and an optional "
                f"Normalize module")
    return modes, normalize, max_len


def pool(hidden: np.ndarray, lengths: np.ndarray, modes: Sequence[str]) -> np.ndarray:
    """Pools right-padded token states ``[batch, seq, dim]`` with ``lengths``
    valid tokens per row into ``[batch, len(modes) * dim]``, as
    sentence-transformers' Pooling does (the modes concatenated in order)."""
    h = hidden.astype(np.float64)
    batch, seq, _ = h.shape
    lens = np.asarray(lengths, dtype=np.int64)
    mask = (np.arange(seq)[None, :] < lens[:, None]).astype(np.float64)[:, :, None]
    parts = []
    for mode in modes:
        if mode == "cls":
            parts.append(h[:, 0])
        elif mode == "max":
            parts.append(np.where(mask > 0, h, -np.inf).max(axis=1))
        elif mode in ("mean", "mean_sqrt_len_tokens"):
            total = (h * mask).sum(axis=1)
            count = np.maximum(mask.sum(axis=1), 1e-9)
            parts.append(total / (count if mode == "mean" else np.sqrt(count)))
        elif mode == "weightedmean":
            w = mask * np.arange(1, seq + 1, dtype=np.float64)[None, :, None]
            parts.append((h * w).sum(axis=1) / np.maximum(w.sum(axis=1), 1e-9))
        elif mode == "lasttoken":
            parts.append(h[np.arange(batch), lens - 1])
        else:
            raise InvalidArgumentError(
                f"pooling mode {mode!r} is not known (known: {', '.join(POOLING_MODES)})")
    return np.concatenate(parts, axis=1).astype(np.float32)


class Encoder:
    """Sentence embeddings from a Hugging Face encoder folder.

    ``Encoder("all-MiniLM-L6-v2/")`` reads ``tokenizer.json`` (with the
    ``tokenizers`` package) and the sentence-transformers configuration,
    compiles the folder with tfmc unless ``library`` is given (cached in
    ``cache_dir``: by default ``<model_dir>/.tfm-cache``, or a temporary
    folder when the model folder is read-only), and loads it with the
    folder's weights::

        enc = tfm.Encoder("all-MiniLM-L6-v2")
        vectors = enc.embed(["A sentence.", "Another one."])   # [2, 384]

    The model must output hidden states (``BertModel``; a config.json
    without ``architectures`` means that too).

    Args:
        model_dir: folder with config.json, tokenizer.json and safetensors.
        library: an already compiled library of this folder.
        cache_dir: where a compiled library is kept.
        threads: threads of the forward calls (0: one per core).
        precision: compile precision (``f32``, ``bf16``, ``f16``).
        pooling: override the pooling: a mode of :data:`POOLING_MODES` or a
            list of them (concatenated).
        normalize: override the L2 normalization (``Normalize`` module).
        max_length: truncate to this many tokens (default: the folder's
            ``sentence_bert_config.json`` ``max_seq_length``, at most the
            model's ``max_seq_len``).
        bin_dir: the folder holding tfmc (see :func:`tfm.find_tool`).
    """

    def __init__(self, model_dir: PathLike, library: Optional[PathLike] = None, *,
                 cache_dir: Optional[PathLike] = None, threads: int = 0,
                 precision: str = "f32", pooling: Union[str, Sequence[str], None] = None,
                 normalize: Optional[bool] = None, max_length: Optional[int] = None,
                 bin_dir: Optional[PathLike] = None) -> None:
        from tokenizers import Tokenizer  # the only place that needs it

        d = check_folder(model_dir, "")
        self.model_dir = d
        modes, norm, st_max = read_sentence_transformers_config(d)
        if pooling is not None:
            modes = [pooling] if isinstance(pooling, str) else list(pooling)
            for m in modes:
                if m not in POOLING_MODES:
                    raise InvalidArgumentError(
                        f"pooling mode {m!r} is not known (known: {', '.join(POOLING_MODES)})")
        self.pooling: List[str] = modes
        self.normalize: bool = norm if normalize is None else bool(normalize)

        if library is None:
            library = self._compile(cache_dir, precision, bin_dir)
        self.library = os.fspath(library)
        self.model = Model(library, weights=d, threads=threads)
        try:
            info = self.model.info
            if info.get("output") != "hidden" or info.get("architecture") != "encoder":
                raise UnsupportedError(
                    f"{self.library}: model '{info.get('model_name')}' is a "
                    f"{info.get('architecture')} with output '{info.get('output')}'; embeddings "
                    f"need an encoder that outputs hidden states (config.json 'architectures': "
                    f"['BertModel'])")
            limit = int(info["max_seq_len"])
            if max_length is not None:
                if not 1 <= max_length <= limit:
                    raise InvalidArgumentError(
                        f"max_length is {max_length}, must lie in [1, {limit}] (the model's max_seq_len)")
                self.max_length = int(max_length)
            else:
                self.max_length = min(st_max or limit, limit)
            self.dimension: int = int(info["output_dims"][0]) * len(self.pooling)
            self.tokenizer = Tokenizer.from_file(str(d / "tokenizer.json"))
            # tfm takes right-padded rows with per-row lengths: pad here, not
            # in the tokenizer (whose tokenizer.json may ask for left padding).
            self.tokenizer.no_padding()
            self.tokenizer.enable_truncation(max_length=self.max_length)
        except BaseException:
            self.model.close()
            raise

    def _compile(self, cache_dir: Optional[PathLike], precision: str,
                 bin_dir: Optional[PathLike]) -> str:
        return compile_cached(self.model_dir, cache_dir, precision, bin_dir,
                              temp_prefix="tfm-encoder-")

    def tokenize(self, sentences: Sequence[str]) -> Tuple[np.ndarray, np.ndarray]:
        """Token ids ``[batch, seq]`` (int32, right-padded with 0) and the
        number of tokens of each sentence ``[batch]``, truncated to
        ``max_length`` tokens, special tokens included."""
        texts = self._texts(sentences)
        encodings = self.tokenizer.encode_batch(texts)
        lengths = np.array([len(e.ids) for e in encodings], dtype=np.int32)
        for i, n in enumerate(lengths):
            if n == 0:
                raise InvalidArgumentError(f"sentence {i} ({texts[i]!r}) has no tokens")
        ids = np.zeros((len(texts), int(lengths.max()) if len(texts) else 0), dtype=np.int32)
        for i, e in enumerate(encodings):
            ids[i, :len(e.ids)] = e.ids
        return ids, lengths

    @staticmethod
    def _texts(sentences: Sequence[str]) -> List[str]:
        if isinstance(sentences, str):
            raise InvalidArgumentError("sentences must be a list of strings, got one string")
        texts = list(sentences)
        for i, s in enumerate(texts):
            if not isinstance(s, str):
                raise InvalidArgumentError(f"sentences[{i}] is a {type(s).__name__}, not a string")
        return texts

    def embed(self, sentences: Union[str, Sequence[str]], batch_size: int = 32) -> np.ndarray:
        """Embeds sentences: float32 ``[len(sentences), dimension]`` (one
        string: ``[dimension]``). Sentences are run ``batch_size`` at a
        time, sorted by length so that little padding is computed."""
        if isinstance(sentences, str):
            one: np.ndarray = self.embed([sentences], batch_size)[0]
            return one
        if batch_size < 1:
            raise InvalidArgumentError(f"batch_size is {batch_size}, must be at least 1")
        texts = self._texts(sentences)
        result = np.empty((len(texts), self.dimension), dtype=np.float32)
        if not texts:
            return result
        ids, lengths = self.tokenize(texts)
        order = np.argsort(-lengths, kind="stable")
        for start in range(0, len(texts), batch_size):
            rows = order[start:start + batch_size]
            seq = int(lengths[rows].max())
            hidden = self.model(ids[rows, :seq], lengths[rows])
            pooled = pool(hidden, lengths[rows], self.pooling)
            if self.normalize:
                norm = np.linalg.norm(pooled.astype(np.float64), axis=1, keepdims=True)
                pooled = (pooled / np.maximum(norm, 1e-12)).astype(np.float32)
            result[rows] = pooled
        return result

    def close(self) -> None:
        """Releases the model."""
        self.model.close()

    def __enter__(self) -> "Encoder":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def __repr__(self) -> str:
        return (f"<tfm.Encoder {str(self.model_dir)!r}: {self.dimension} dims, "
                f"pooling {'+'.join(self.pooling)}{', normalized' if self.normalize else ''}, "
                f"max_length {self.max_length}>")
