"""A tiny BERT folder as sentence-transformers saves one: config.json, a
WordPiece tokenizer.json built with the tokenizers package, modules.json,
1_Pooling/config.json and sentence_bert_config.json (the weights are written
by conftest.random_weights)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Dict, List

from tokenizers import Tokenizer, decoders, models, normalizers, pre_tokenizers, processors

WORDS = ["hello", "world", "the", "cat", "sat", "on", "mat", "a", "dog", "ran", "fast",
         "tfm", "compiles", "models", "to", "code", "##s", "##ing", "run", "fly", ".", ","]
VOCAB = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"] + WORDS
VOCAB += [f"[unused{i}]" for i in range(64 - len(VOCAB))]
IDS: Dict[str, int] = {t: i for i, t in enumerate(VOCAB)}

CONFIG = {"model_type": "bert", "architectures": ["BertModel"], "vocab_size": 64,
          "hidden_size": 32, "num_hidden_layers": 2, "num_attention_heads": 4,
          "intermediate_size": 64, "hidden_act": "gelu", "max_position_embeddings": 32,
          "type_vocab_size": 2, "layer_norm_eps": 1e-12}

SENTENCES = ["Hello world.", "The cat sat on the mat", "a dog", "Models run fast, cats fly.",
             "tfm compiles models to code"]


def make_tokenizer() -> Tokenizer:
    tok = Tokenizer(models.WordPiece(vocab=IDS, unk_token="[UNK]"))
    tok.normalizer = normalizers.BertNormalizer(lowercase=True)
    tok.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
    tok.post_processor = processors.TemplateProcessing(
        single="[CLS] $A [SEP]", pair="[CLS] $A [SEP] $B:1 [SEP]:1",
        special_tokens=[("[CLS]", IDS["[CLS]"]), ("[SEP]", IDS["[SEP]"])])
    tok.decoder = decoders.WordPiece()
    return tok


def write_modules(folder: Path, pooling: List[str], normalize: bool) -> None:
    modules = [{"idx": 0, "name": "0", "path": "", "type": "sentence_transformers.models.Transformer"},
               {"idx": 1, "name": "1", "path": "1_Pooling", "type": "sentence_transformers.models.Pooling"}]
    if normalize:
        modules.append({"idx": 2, "name": "2", "path": "2_Normalize",
                        "type": "sentence_transformers.models.Normalize"})
    (folder / "modules.json").write_text(json.dumps(modules))
    (folder / "1_Pooling").mkdir(exist_ok=True)
    keys = {"cls": "pooling_mode_cls_token", "mean": "pooling_mode_mean_tokens",
            "max": "pooling_mode_max_tokens", "lasttoken": "pooling_mode_lasttoken",
            "mean_sqrt_len_tokens": "pooling_mode_mean_sqrt_len_tokens",
            "weightedmean": "pooling_mode_weightedmean_tokens"}
    config = {"word_embedding_dimension": 32, **{k: m in pooling for m, k in keys.items()}}
    (folder / "1_Pooling" / "config.json").write_text(json.dumps(config))


def make_folder(folder: Path, pooling=("mean",), normalize=True, max_seq_length=12) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "config.json").write_text(json.dumps(CONFIG))
    make_tokenizer().save(str(folder / "tokenizer.json"))
    write_modules(folder, list(pooling), normalize)
    (folder / "sentence_bert_config.json").write_text(
        json.dumps({"max_seq_length": max_seq_length, "do_lower_case": False}))
    return folder
