"""tfm.TextGenerator: text in, text out, on a tiny GPT-2 folder written by
the tests (tests/tiny_gpt2.py: config.json, model.safetensors, a byte-level
BPE tokenizer.json built with the tokenizers package), checked against
Model.generate on the tokenizer's ids."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any, Dict

import pytest

import tfm
from conftest import Compiled
from tfm._text import TextStream
from tiny_gpt2 import IDS, make_folder

SAMPLINGS = [dict(), dict(top_p=1.0, temperature=2.0, seed=3), dict(top_k=8, temperature=3.0, seed=11),
             dict(top_p=0.9, temperature=5.0, seed=2)]


def variant(tiny_gpt2: Path, tmp_path: Path, **config: Any) -> Path:
    """A copy of the folder with another config.json (the same weights, so
    the compiled library fits it)."""
    folder = make_folder(tmp_path / "variant", **config)
    shutil.copyfile(tiny_gpt2 / "model.safetensors", folder / "model.safetensors")
    return folder


def test_loads_the_folder(generator: tfm.TextGenerator, tiny_gpt2: Path) -> None:
    library = Path(generator.library)
    assert library.parent == tiny_gpt2 / ".tfm-cache" and library.with_suffix(".h").is_file()
    assert "kv_cache" in generator.model.info
    assert generator.eos_ids == [0] and generator.max_seq_len == 32
    assert "tiny-gpt2" in repr(generator)
    with tfm.TextGenerator(tiny_gpt2) as again:  # the cached library
        assert again.library == generator.library


@pytest.mark.parametrize("sampling", SAMPLINGS, ids=["greedy", "top-p", "top-k", "top-p-0.9"])
def test_text_round_trip(generator: tfm.TextGenerator, sampling: Dict[str, Any]) -> None:
    prompt = "the cat sat"
    ids = generator.encode(prompt)
    assert ids == [IDS["t"], IDS["he"], IDS["Ġcat"], IDS["Ġsat"]]
    tokens = generator.model.generate([ids], 20, stop_ids=[0], **sampling)[0]
    text = generator.generate(prompt, 20, **sampling)
    assert isinstance(text, str)
    assert prompt + text == generator.decode(ids + tokens)
    # streamed: the same text, piece by piece
    pieces = list(generator.stream(prompt, 20, **sampling))
    assert "".join(pieces) == text
    assert all(pieces) and len(pieces) > 1


def test_batch_of_texts(generator: tfm.TextGenerator) -> None:
    texts = ["the cat", "a dog ran fast", "café"]
    kwargs = dict(top_k=8, temperature=3.0, seed=5)
    batch = generator.generate(texts, 10, **kwargs)
    assert isinstance(batch, list) and len(batch) == 3
    ids = [generator.encode(t) for t in texts]
    tokens = generator.model.generate(ids, 10, stop_ids=[0], **kwargs)
    assert batch == [generator.decode(i + t)[len(x):] for i, t, x in zip(ids, tokens, texts)]
    greedy = generator.generate(texts, 10)
    assert greedy == [generator.generate(t, 10) for t in texts]
    assert generator.generate([], 10) == []


def test_stops_at_eos(generator: tfm.TextGenerator, tiny_gpt2: Path, tmp_path: Path) -> None:
    kwargs = dict(top_p=1.0, temperature=3.0, seed=7)
    ids = generator.encode("the dog")
    tokens = generator.model.generate([ids], 12, **kwargs)[0]
    eos = tokens[3]
    stop = tokens.index(eos) + 1
    folder = variant(tiny_gpt2, tmp_path, eos_token_id=[63, eos])
    with tfm.TextGenerator(folder, generator.library) as gen:
        assert gen.eos_ids == [63, eos]
        text = gen.generate("the dog", 12, **kwargs)
        assert text == gen.decode(ids + tokens[:stop])[len("the dog"):]
        assert "".join(gen.stream("the dog", 12, **kwargs)) == text
    # the same as a stop id of the caller's
    assert generator.generate("the dog", 12, stop_ids=[eos], **kwargs) == text
    # generation_config.json's eos_token_id counts too
    (folder / "generation_config.json").write_text(json.dumps({"eos_token_id": 5}))
    with tfm.TextGenerator(folder, generator.library) as gen:
        assert gen.eos_ids == [63, eos, 5]


def test_multi_token_characters_stream_whole(generator: tfm.TextGenerator) -> None:
    # "é" is two byte-level tokens: nothing comes out for the first
    stream = TextStream(generator, generator.encode("the"))
    assert stream.push(IDS["Ġcat"]) == " cat"
    assert stream.push(IDS["Ã"]) == ""
    assert stream.push(IDS["©"]) == "é"
    assert stream.push(IDS["Ã"]) == ""
    assert stream.push(IDS["Ã"]) == ""
    assert stream.push(IDS["s"]) == "\ufffd\ufffds"      # invalid bytes stay replaced
    assert stream.push(IDS["©"]) == ""
    assert stream.push(0) == ""                           # the EOS decodes to nothing
    assert stream.finish() == "\ufffd"                    # what is left comes at the end
    assert stream.text == " caté\ufffd\ufffds\ufffd"


def test_errors(generator: tfm.TextGenerator, gpt: Compiled, bert_classifier: Compiled,
                tiny_gpt2: Path, tmp_path: Path) -> None:
    with pytest.raises(tfm.InvalidArgumentError, match=r"^the prompt '' has no tokens$"):
        generator.generate("", 3)
    with pytest.raises(tfm.InvalidArgumentError, match=r"\(max_new_tokens 29 at most\)$"):
        generator.generate("the cat sat", 30)
    with pytest.raises(tfm.InvalidArgumentError, match="top_p is 2, must lie in"):
        generator.stream("the cat", 3, top_p=2)  # checked before the first piece
    with pytest.raises(tfm.InvalidArgumentError, match="text must be a string, got int"):
        generator.generate([3], 3)
    with pytest.raises(NotImplementedError, match="beam search"):
        generator.generate("the cat", 3, beam=2)
    with pytest.raises(tfm.UnsupportedError,
                       match=r"model 'tiny-gpt-decoder' has no generation step.*generation=True"):
        tfm.TextGenerator(tiny_gpt2, gpt.library)
    with pytest.raises(tfm.UnsupportedError, match="text generation needs a decoder with an LM head"):
        tfm.TextGenerator(tiny_gpt2, bert_classifier.library)
    with pytest.raises(tfm.Error, match="absent: not a folder"):
        tfm.TextGenerator(tmp_path / "absent")
    folder = variant(tiny_gpt2, tmp_path, eos_token_id=64)
    with pytest.raises(tfm.InvalidArgumentError, match=r"eos_token_id 64 is outside \[0, 64\)"):
        tfm.TextGenerator(folder, generator.library)
    (folder / "tokenizer.json").unlink()
    with pytest.raises(tfm.Error, match="has no tokenizer.json"):
        tfm.TextGenerator(folder, generator.library)
