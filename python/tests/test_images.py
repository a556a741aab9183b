"""Image models (ViT): Model.images against the float64 reference, and its
errors."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

import tfm
from conftest import REF_INPUTS, Compiled, assert_close_to_reference, reference


@pytest.fixture(scope="session")
def vit(tmp_path_factory: pytest.TempPathFactory) -> Compiled:
    return Compiled(REF_INPUTS / "hf-vit.json", tmp_path_factory.mktemp("vit"), 5)


@pytest.fixture(scope="session")
def vit_model_hidden(tmp_path_factory: pytest.TempPathFactory) -> Compiled:
    """ViTModel: the encoder's hidden states, no classifier."""
    work = tmp_path_factory.mktemp("vit-model")
    config = json.loads((REF_INPUTS / "hf-vit.json").read_text())
    config["architectures"] = ["ViTModel"]
    path = work / "vit-model.json"
    path.write_text(json.dumps(config))
    return Compiled(path, work, 6)


def _pixels(batch: int, seed: int) -> np.ndarray:
    return np.random.default_rng(seed).uniform(-1, 1, (batch, 3, 20, 20)).astype(np.float32)


def test_classifier_matches_reference(vit: Compiled) -> None:
    px = _pixels(3, 1)
    with tfm.Model(vit.library, vit.weights) as model:
        assert model.info["inputs"] == ["pixels"]
        assert model.info["image"] == {"channels": 3, "height": 20, "width": 20}
        out = model.images(px)
        assert out.shape == (3, 5)
        assert_close_to_reference(out, reference(vit.spec, vit.weights, px))
        # One image without the batch dimension; a caller's out array.
        single = model.images(px[1])
        np.testing.assert_array_equal(single[0], out[1])
        buf = np.empty((3, 5), dtype=np.float32)
        assert model.images(px, out=buf) is buf


def test_hidden_states_match_reference(vit_model_hidden: Compiled) -> None:
    px = _pixels(2, 2)
    with tfm.Model(vit_model_hidden.library, vit_model_hidden.weights) as model:
        out = model.images(px)
        assert out.shape == (2, 26, 40)  # [CLS] + 25 patches
        assert_close_to_reference(out, reference(vit_model_hidden.spec,
                                                 vit_model_hidden.weights, px))


def test_errors(vit: Compiled, gpt: Compiled) -> None:
    px = _pixels(2, 3)
    with tfm.Model(vit.library, vit.weights) as model:
        bad = px.copy()
        bad[1, 2, 3, 4] = np.inf
        with pytest.raises(tfm.InvalidArgumentError, match=r"pixels\[1\]\[2\]\[3\]\[4\] is infinite"):
            model.images(bad)
        with pytest.raises(tfm.InvalidArgumentError, match=r"expected \[batch, 3, 20, 20\]"):
            model.images(px[:, :, :16])
        with pytest.raises(tfm.UnsupportedError, match="is an image model"):
            model(np.zeros((1, 4), dtype=np.int32))
    with tfm.Model(gpt.library, gpt.weights) as model:
        with pytest.raises(tfm.UnsupportedError, match="takes token ids, not pixels"):
            model.images(px)
