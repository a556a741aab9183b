"""tfm.Encoder: text in, embeddings out, on a tiny BERT folder written by
the tests (tests/tiny_bert.py: config.json, model.safetensors, a WordPiece
tokenizer.json built with the tokenizers package, sentence-transformers'
modules.json and pooling config), checked against pooling computed with numpy from the float64 reference's
hidden states."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
import numpy as np
import pytest

import tfm
from conftest import Compiled, reference
from tiny_bert import IDS, SENTENCES, make_folder, make_tokenizer


def variant(minilm: Path, tmp_path: Path, **kwargs) -> Path:
    """A copy of the folder with other sentence-transformers settings."""
    folder = make_folder(tmp_path / "variant", **kwargs)
    shutil.copyfile(minilm / "model.safetensors", folder / "model.safetensors")
    return folder


def reference_states(folder: Path, ids: np.ndarray, lengths: np.ndarray) -> np.ndarray:
    return reference(folder, folder / "model.safetensors", ids, lengths)


def test_tokenize_right_pads_with_lengths(encoder: tfm.Encoder) -> None:
    ids, lengths = encoder.tokenize(["Hello world.", "a dog ran"])
    assert ids.dtype == np.int32 and lengths.tolist() == [5, 5]
    assert ids[0].tolist() == [IDS[t] for t in ["[CLS]", "hello", "world", ".", "[SEP]"]]
    ids, lengths = encoder.tokenize(["a", "the cat sat"])
    assert lengths.tolist() == [3, 5]
    assert ids.tolist() == [[2, IDS["a"], 3, 0, 0], [2, IDS["the"], IDS["cat"], IDS["sat"], 3]]


def test_embed_matches_mean_pooled_reference(encoder: tfm.Encoder, minilm: Path) -> None:
    assert (encoder.pooling, encoder.normalize, encoder.dimension) == (["mean"], True, 32)
    vectors = encoder.embed(SENTENCES)
    assert vectors.shape == (len(SENTENCES), 32) and vectors.dtype == np.float32
    ids, lengths = encoder.tokenize(SENTENCES)
    states = reference_states(minilm, ids, lengths)
    for i, n in enumerate(lengths):
        mean = states[i, :n].mean(axis=0)
        np.testing.assert_allclose(vectors[i], mean / np.linalg.norm(mean), atol=1e-4)
    np.testing.assert_allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-6)


@pytest.mark.parametrize("mode", ["cls", "max", "mean_sqrt_len_tokens", "weightedmean", "lasttoken"])
def test_other_pooling_modes(encoder: tfm.Encoder, minilm: Path, tmp_path: Path, mode: str) -> None:
    folder = variant(minilm, tmp_path, pooling=[mode], normalize=False)
    with tfm.Encoder(folder, library=encoder.library) as enc:
        assert enc.pooling == [mode] and not enc.normalize
        vectors = enc.embed(SENTENCES)
    ids, lengths = encoder.tokenize(SENTENCES)
    states = reference_states(minilm, ids, lengths)
    for i, n in enumerate(lengths):
        h = states[i, :n]
        w = np.arange(1, n + 1)[:, None]
        expected = {"cls": h[0], "max": h.max(axis=0), "mean_sqrt_len_tokens": h.sum(axis=0) / np.sqrt(n),
                    "weightedmean": (h * w).sum(axis=0) / w.sum(), "lasttoken": h[-1]}[mode]
        np.testing.assert_allclose(vectors[i], expected, atol=5e-4)


def test_concatenated_modes_and_overrides(encoder: tfm.Encoder, minilm: Path, tmp_path: Path) -> None:
    folder = variant(minilm, tmp_path, pooling=["cls", "mean"], normalize=False)
    with tfm.Encoder(folder, library=encoder.library) as enc:
        assert enc.pooling == ["cls", "mean"] and enc.dimension == 64
        both = enc.embed(SENTENCES)
    with tfm.Encoder(minilm, library=encoder.library, pooling="cls", normalize=False) as cls, \
            tfm.Encoder(minilm, library=encoder.library, normalize=False) as mean:
        np.testing.assert_array_equal(both, np.concatenate([cls.embed(SENTENCES), mean.embed(SENTENCES)], 1))


def test_default_without_modules_json_is_mean_without_normalization(
        encoder: tfm.Encoder, minilm: Path, tmp_path: Path) -> None:
    folder = variant(minilm, tmp_path)
    (folder / "modules.json").unlink()
    with tfm.Encoder(folder, library=encoder.library) as enc:
        assert (enc.pooling, enc.normalize) == (["mean"], False)
        ids, lengths = enc.tokenize(SENTENCES[:1])
        vec = enc.embed(SENTENCES[:1])
    states = reference_states(minilm, ids, lengths)
    np.testing.assert_allclose(vec[0], states[0, :lengths[0]].mean(axis=0), atol=5e-4)


def test_padding_and_batching_do_not_change_embeddings(encoder: tfm.Encoder) -> None:
    alone = np.stack([encoder.embed(s) for s in SENTENCES])
    np.testing.assert_allclose(encoder.embed(SENTENCES), alone, atol=1e-6)
    np.testing.assert_allclose(encoder.embed(SENTENCES, batch_size=2), alone, atol=1e-6)
    assert encoder.embed("Hello world.").shape == (32,)
    assert encoder.embed([]).shape == (0, 32)


def test_left_padding_tokenizer_is_padded_right(encoder: tfm.Encoder, minilm: Path, tmp_path: Path) -> None:
    folder = variant(minilm, tmp_path)
    tok = make_tokenizer()
    tok.enable_padding(direction="left", pad_id=0, pad_token="[PAD]", length=10)
    tok.save(str(folder / "tokenizer.json"))
    with tfm.Encoder(folder, library=encoder.library) as enc:
        ids, lengths = enc.tokenize(["a dog", "hello"])
        assert ids[:, 0].tolist() == [IDS["[CLS]"]] * 2 and lengths.tolist() == [4, 3]
        np.testing.assert_array_equal(enc.embed(SENTENCES), encoder.embed(SENTENCES))


def test_truncation_to_max_seq_length(encoder: tfm.Encoder) -> None:
    long = " ".join(["the cat sat on the mat"] * 5)
    ids, lengths = encoder.tokenize([long])
    assert encoder.max_length == 12 and lengths.tolist() == [12]
    assert ids[0, -1] == IDS["[SEP]"]
    assert encoder.embed(long).shape == (32,)


def test_library_is_cached(encoder: tfm.Encoder, minilm: Path) -> None:
    library = Path(encoder.library)
    assert library.parent == minilm / ".tfm-cache" and library.with_suffix(".h").is_file()
    before = library.stat().st_mtime_ns
    with tfm.Encoder(minilm) as again:
        assert again.library == encoder.library
    assert library.stat().st_mtime_ns == before


def test_errors(encoder: tfm.Encoder, minilm: Path, tmp_path: Path, bert_classifier: Compiled) -> None:
    with pytest.raises(tfm.Error, match="not a folder"):
        tfm.Encoder(tmp_path / "absent")
    empty = tmp_path / "empty"
    empty.mkdir()
    (empty / "config.json").write_text("{}")
    with pytest.raises(tfm.Error, match="has no tokenizer.json"):
        tfm.Encoder(empty)

    dense = variant(minilm, tmp_path)
    modules = json.loads((dense / "modules.json").read_text())
    modules.insert(2, {"idx": 2, "name": "2", "path": "2_Dense", "type": "sentence_transformers.models.Dense"})
    (dense / "modules.json").write_text(json.dumps(modules))
    with pytest.raises(tfm.UnsupportedError, match=r"modules.json: module 2 \(2_Dense.*Dense\) is not supported"):
        tfm.Encoder(dense, library=encoder.library)

    with pytest.raises(tfm.InvalidArgumentError, match="pooling mode 'median'"):
        tfm.Encoder(minilm, library=encoder.library, pooling="median")
    with pytest.raises(tfm.InvalidArgumentError, match=r"max_length is 99, must lie in \[1, 32\]"):
        tfm.Encoder(minilm, library=encoder.library, max_length=99)
    with pytest.raises(tfm.InvalidArgumentError, match=r"sentences\[1\] is a int"):
        encoder.embed(["fine", 3])
    with pytest.raises(tfm.InvalidArgumentError, match="batch_size"):
        encoder.embed(["fine"], batch_size=0)

    # A classifier outputs class scores, not token states.
    classifier = tmp_path / "classifier"
    make_folder(classifier)
    shutil.copyfile(bert_classifier.weights, classifier / "model.safetensors")
    with pytest.raises(tfm.UnsupportedError, match="output 'classes'.*hidden states"):
        tfm.Encoder(classifier, library=bert_classifier.library)
