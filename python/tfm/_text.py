"""Text in, text out: a Hugging Face decoder folder's tokenizer.json (read
with the ``tokenizers`` package) around :meth:`tfm.Model.generate`."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, Iterator, List, Optional, Sequence, Union

from ._errors import InvalidArgumentError, UnsupportedError
from ._generate import _is_int, plan, steps
from ._hf import check_folder, compile_cached, read_json
from ._model import Model, library_info
from ._tools import PathLike

REPLACEMENT = "\ufffd"  # what decoding an incomplete UTF-8 sequence gives


def eos_ids(model_dir: Path) -> List[int]:
    """The ``eos_token_id`` (an id or a list of ids) of the folder's
    config.json and, when there is one, generation_config.json."""
    ids: List[int] = []
    for name in ("config.json", "generation_config.json"):
        path = model_dir / name
        if not path.is_file():
            continue
        config = read_json(path)
        value = config.get("eos_token_id") if isinstance(config, dict) else None
        for v in value if isinstance(value, list) else [value]:
            if isinstance(v, int) and not isinstance(v, bool) and v not in ids:
                ids.append(v)
    return ids


class TextStream:
    """Incremental detokenization: the text that each new token adds after
    a prompt. ``push(token)`` returns the new text of the decoded
    continuation, holding back a trailing U+FFFD (an incomplete UTF-8
    character whose next bytes may still come); ``finish()`` returns what
    is left. The pieces join to the decoded continuation of all tokens,
    unless the tokenizer's decoder rewrites text it gave before (what was
    returned stays)."""

    def __init__(self, generator: "TextGenerator", prompt: Sequence[int]) -> None:
        self._gen = generator
        self.prompt = list(prompt)
        self._prompt_text = generator.decode(self.prompt)
        self.tokens: List[int] = []
        self.text = ""  # what push() has returned so far

    def _continuation(self) -> str:
        return self._gen._continuation(self.prompt, self._prompt_text, self.tokens)

    def push(self, token: int) -> str:
        self.tokens.append(int(token))
        text = self._continuation().rstrip(REPLACEMENT)
        if len(text) > len(self.text) and text.startswith(self.text):
            piece, self.text = text[len(self.text):], text
            return piece
        return ""

    def finish(self) -> str:
        text = self._continuation()
        keep = len(os.path.commonprefix([text, self.text]))
        piece, self.text = text[keep:], self.text + text[keep:]
        return piece


class TextGenerator:
    """Text generation with a Hugging Face decoder folder (``GPT2LMHeadModel``,
    ``LlamaForCausalLM``, ...: whatever tfmc compiles to a decoder with
    logits).

    ``TextGenerator("gpt2/")`` reads ``tokenizer.json`` (with the
    ``tokenizers`` package), compiles the folder with its generation step
    (``tfm.compile(..., generation=True)``) unless ``library`` is given,
    cached in ``cache_dir`` (by default ``<model_dir>/.tfm-cache``, or a
    temporary folder when the model folder is read-only), and loads it with
    the folder's weights::

        gen = tfm.TextGenerator("gpt2")
        print(gen.generate("The cat", max_new_tokens=20))          # greedy
        for piece in gen.stream("The cat", 20, top_p=0.9, seed=1):
            print(piece, end="", flush=True)

    Generation stops after ``max_new_tokens`` tokens or at an end of text:
    the ``eos_token_id`` of config.json (and generation_config.json), and
    any ``stop_ids`` given.

    Args:
        model_dir: folder with config.json, tokenizer.json and safetensors.
        library: an already compiled library of this folder, with its
            generation step.
        cache_dir: where a compiled library is kept.
        threads: threads of the model's calls (0: one per core).
        precision: compile precision (``f32``, ``bf16``, ``f16``).
        bin_dir: the folder holding tfmc (see :func:`tfm.find_tool`).
    """

    def __init__(self, model_dir: PathLike, library: Optional[PathLike] = None, *,
                 cache_dir: Optional[PathLike] = None, threads: int = 0,
                 precision: str = "f32", bin_dir: Optional[PathLike] = None) -> None:
        from tokenizers import Tokenizer  # the only place that needs it

        d = check_folder(model_dir, " of a decoder with an LM head")
        self.model_dir = d
        if library is None:
            library = compile_cached(d, cache_dir, precision, bin_dir, generation=True,
                                     temp_prefix="tfm-generator-")
        self.library = os.fspath(library)
        # Checked from the manifest, before any weight is read.
        info = library_info(library)
        if info.get("architecture") != "decoder" or info.get("output") != "logits":
            raise UnsupportedError(
                f"{self.library}: model '{info.get('model_name')}' is a "
                f"{info.get('architecture')} with output '{info.get('output')}'; text "
                f"generation needs a decoder with an LM head (config.json 'architectures': "
                f"['GPT2LMHeadModel'], ['LlamaForCausalLM'], ...)")
        if "kv_cache" not in info:
            raise UnsupportedError(
                f"{self.library}: model '{info.get('model_name')}' has no generation "
                f"step: it was compiled without generation entries; compile it with "
                f"tfm.compile(..., generation=True), or leave library=None")
        self.model = Model(library, weights=d, threads=threads)
        try:
            vocab = int(info["vocab_size"])
            self.eos_ids: List[int] = eos_ids(d)
            for e in self.eos_ids:
                if not 0 <= e < vocab:
                    raise InvalidArgumentError(
                        f"{d}: eos_token_id {e} is outside [0, {vocab}) (vocab_size of the model)")
            self.max_seq_len: int = int(info["max_seq_len"])
            self.tokenizer = Tokenizer.from_file(str(d / "tokenizer.json"))
            self.tokenizer.no_padding()
            self.tokenizer.no_truncation()
        except BaseException:
            self.model.close()
            raise

    # ----- tokens ---------------------------------------------------------------

    def encode(self, text: str) -> List[int]:
        """The token ids of ``text`` (with the special tokens the tokenizer
        adds, e.g. a BOS)."""
        if not isinstance(text, str):
            raise InvalidArgumentError(f"text must be a string, got {type(text).__name__}")
        ids: List[int] = self.tokenizer.encode(text).ids
        if not ids:
            raise InvalidArgumentError(f"the prompt {text!r} has no tokens")
        return ids

    def decode(self, ids: Sequence[int]) -> str:
        """The text of token ids, special tokens (EOS, ...) left out."""
        text: str = self.tokenizer.decode(list(ids), skip_special_tokens=True)
        return text

    def _continuation(self, prompt: List[int], prompt_text: str, new: List[int]) -> str:
        """The text that ``new`` adds after the prompt: decoded together with
        the prompt (a SentencePiece tokenizer drops the leading space of a
        text's first token), less the prompt's text."""
        full = self.decode(prompt + new)
        if full.startswith(prompt_text):
            return full[len(prompt_text):]
        return self.decode(new)

    # ----- generation ------------------------------------------------------------

    def _plan(self, prompts: List[List[int]], max_new_tokens: int, sampling: Any) -> Any:
        stop = sampling.pop("stop_ids", ())
        stop = [stop] if _is_int(stop) else list(stop)
        return plan(self.model, prompts, max_new_tokens,
                    stop_ids=stop + [e for e in self.eos_ids if e not in stop], **sampling)

    def generate(self, text: Union[str, Sequence[str]], max_new_tokens: int = 32,
                 **sampling: Any) -> Union[str, List[str]]:
        """The text generated after ``text`` (the continuation only); a list
        of strings gives a list, generated together (one session slot
        each).

        ``max_new_tokens`` and ``sampling`` (``greedy``, ``top_k``,
        ``top_p``, ``temperature``, ``seed``, ``stop_ids``) are those of
        :meth:`tfm.Model.generate`; greedy by default."""
        if isinstance(text, str):
            result = self.generate([text], max_new_tokens, **sampling)
            return result[0]
        texts = list(text)
        prompts = [self.encode(t) for t in texts]
        p = self._plan(prompts, max_new_tokens, dict(sampling))
        new: List[List[int]] = [[] for _ in prompts]
        for picked in steps(p):
            for i, token in picked:
                new[i].append(token)
        return [self._continuation(prompt, self.decode(prompt), n)
                for prompt, n in zip(prompts, new)]

    def stream(self, text: str, max_new_tokens: int = 32, **sampling: Any) -> Iterator[str]:
        """Generates like :meth:`generate` and yields the text as it comes:
        after each token, the new text of the decoded continuation (text
        that ends in an incomplete UTF-8 character is held back until the
        character is complete). The pieces join to :meth:`generate`'s
        text for the same arguments and seed, unless the tokenizer's
        decoder rewrites text it gave before (a stream cannot take a piece
        back). The arguments are checked here, before the first piece."""
        prompt = self.encode(text)
        p = self._plan([prompt], max_new_tokens, dict(sampling))
        return self._stream(prompt, p)

    def _stream(self, prompt: List[int], p: Any) -> Iterator[str]:
        text = TextStream(self, prompt)
        for picked in steps(p):
            for _, token in picked:
                piece = text.push(token)
                if piece:
                    yield piece
        rest = text.finish()
        if rest:
            yield rest

    # ----- life cycle --------------------------------------------------------------

    def close(self) -> None:
        """Releases the model."""
        self.model.close()

    def __enter__(self) -> "TextGenerator":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def __repr__(self) -> str:
        return (f"<tfm.TextGenerator {str(self.model_dir)!r}: "
                f"max_seq_len {self.max_seq_len}, eos {self.eos_ids}>")
