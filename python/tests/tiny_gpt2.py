"""A tiny GPT-2 folder as Hugging Face saves one: config.json
(GPT2LMHeadModel, 64 tokens, 32 positions; as
test/Integration/reference/Inputs/hf-gpt2.json) and a byte-level BPE
tokenizer.json over those 64 ids built with the tokenizers package (the
weights are written by conftest.random_weights).

The vocabulary holds the two bytes of "é" (C3 A9, "Ã" and "©" in GPT-2's
byte alphabet) as tokens of their own, so that a character can take two
tokens, and id 0 is "<|endoftext|>", the eos_token_id."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Dict, List, Tuple

from tokenizers import Tokenizer, decoders, models, pre_tokenizers

EOS = "<|endoftext|>"
BASE = [EOS, "Ġ"] + list("abcdefghijklmnopqrstuvwxyz") + [".", ",", "Ã", "©"]
MERGES: List[Tuple[str, str]] = [
    ("Ġ", "t"), ("h", "e"), ("Ġt", "he"), ("a", "t"), ("Ġ", "c"), ("Ġc", "at"),
    ("Ġ", "s"), ("Ġs", "at"), ("o", "n"), ("Ġ", "on"), ("Ġ", "m"), ("Ġm", "at"),
    ("Ġ", "a"), ("Ġ", "d"), ("o", "g"), ("Ġd", "og"), ("Ã", "©"), ("c", "a"),
    ("ca", "f"), ("caf", "Ã©"), ("Ġ", "caf"), ("Ġcaf", "Ã©"), ("i", "n"), ("e", "r"),
    ("Ġ", "r"), ("Ġr", "an"), ("a", "n"), ("Ġ", "f"), ("Ġf", "ast"), ("a", "s"),
    ("as", "t"), ("Ġ", "w"),
]


def vocab() -> Dict[str, int]:
    ids = {t: i for i, t in enumerate(BASE)}
    for a, b in MERGES:
        ids.setdefault(a + b, len(ids))
    assert len(ids) == 64, len(ids)
    return ids


IDS = vocab()

CONFIG = {"model_type": "gpt2", "architectures": ["GPT2LMHeadModel"], "vocab_size": 64,
          "n_embd": 32, "n_layer": 2, "n_head": 4, "n_positions": 32,
          "activation_function": "gelu_new", "layer_norm_epsilon": 1e-05,
          "bos_token_id": 0, "eos_token_id": 0}


def make_tokenizer() -> Tokenizer:
    tok = Tokenizer(models.BPE(vocab=IDS, merges=MERGES))
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    tok.add_special_tokens([EOS])
    return tok


def make_folder(folder: Path, **config: object) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "config.json").write_text(json.dumps({**CONFIG, **config}))
    make_tokenizer().save(str(folder / "tokenizer.json"))
    return folder
