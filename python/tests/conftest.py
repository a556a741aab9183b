"""Shared fixtures: compiled example models with random weights, and the
in-project float64 reference (scripts/tfm_ref.py), imported, not copied.

tfmc is found as tfm.compile finds it ($TFM_BIN, then the build tree);
scripts/test.sh sets TFM_BIN to the build it just made.
"""

from __future__ import annotations

import io
import sys
from pathlib import Path
from typing import Any, List, Optional, Sequence, Tuple

import numpy as np
import pytest
from safetensors.numpy import save_file

import tfm

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "scripts"))
import tfm_ref  # noqa: E402  (the independent float64 oracle, docs/numerics.md)

EXAMPLES = REPO / "examples"
REF_INPUTS = REPO / "test" / "Integration" / "reference" / "Inputs"


def random_weights(model_path: Path, out: Path, seed: int,
                   tensors: Optional[Sequence[Tuple[str, List[int], str, int]]] = None) -> Path:
    """Writes random f32 weights for a spec or HF config with numpy and the
    safetensors package: the names and shapes the reference says the model
    needs (tfm_ref.file_tensors), values scaled like an initialized model."""
    if tensors is None:
        tensors = tfm_ref.file_tensors(tfm_ref.load_model(str(model_path)))
    rng = np.random.default_rng(seed)
    arrays = {}
    for name, shape, kind, fan_in in tensors:
        if kind == "gamma":
            a = 1.0 + 0.1 * rng.uniform(-1, 1, shape)
        elif kind in ("beta", "bias"):
            a = 0.1 * rng.uniform(-1, 1, shape)
        elif kind == "embedding":
            a = rng.normal(0.0, 1.0, shape)
        else:
            a = rng.normal(0.0, 1.0 / np.sqrt(fan_in), shape)
        arrays[name] = np.ascontiguousarray(a, dtype=np.float32)
    save_file(arrays, str(out))
    return out


def reference(model_path: Path, weights: Path, ids: Any, lengths: Any = None,
              tgt: Any = None, tgt_lengths: Any = None) -> np.ndarray:
    """The float64 reference output of scripts/tfm_ref.py."""
    tfm_ref.set_precision(None)
    m = tfm_ref.load_model(str(model_path))
    params = tfm_ref.Params(tfm_ref.logical_weights(
        m, tfm_ref.read_safetensors(str(weights)), str(weights)))
    as_list = lambda a: None if a is None else np.asarray(a).tolist()  # noqa: E731
    out = tfm_ref.forward(m, params, as_list(ids), as_list(lengths), as_list(tgt),
                          as_list(tgt_lengths))
    return np.array(out, dtype=np.float64)


def assert_close_to_reference(actual: np.ndarray, ref: np.ndarray,
                              row_lengths: Any = None, rtol: float = 1e-4,
                              atol: float = 1e-6) -> None:
    """tfm_ref's own comparison (docs/numerics.md): every element within
    atol + rtol * max|reference row|; rows at positions >= length skipped."""
    report = io.StringIO()
    ok = tfm_ref.compare(list(ref.shape), ref.ravel().tolist(), list(actual.shape),
                         actual.ravel().tolist(),
                         None if row_lengths is None else list(row_lengths),
                         rtol, atol, out=report)
    assert ok, report.getvalue()


class Compiled:
    """A model compiled once per test session, with random weights."""

    def __init__(self, spec: Path, workdir: Path, seed: int, generation: bool = False) -> None:
        self.spec = spec
        self.library = tfm.compile(spec, workdir / (spec.stem + ".so"), generation=generation)
        self.weights = random_weights(spec, workdir / (spec.stem + ".safetensors"), seed)
        self.info = tfm.library_info(self.library)

    def tokens(self, batch: int, seq: int, seed: int) -> np.ndarray:
        return np.random.default_rng(seed).integers(
            0, self.info["vocab_size"], (batch, seq), dtype=np.int32)


@pytest.fixture(scope="session")
def gpt(tmp_path_factory: pytest.TempPathFactory) -> Compiled:
    return Compiled(EXAMPLES / "tiny-gpt-decoder.json", tmp_path_factory.mktemp("gpt"), 1)


@pytest.fixture(scope="session")
def gpt_gen(tmp_path_factory: pytest.TempPathFactory) -> Compiled:
    """tiny-gpt-decoder with its generation step (tfmc --generation), and
    the same weights as the `gpt` fixture's."""
    return Compiled(EXAMPLES / "tiny-gpt-decoder.json", tmp_path_factory.mktemp("gpt-gen"), 1,
                    generation=True)


@pytest.fixture
def gen_model(gpt_gen: Compiled):
    with tfm.Model(gpt_gen.library, gpt_gen.weights) as model:
        yield model


@pytest.fixture(scope="session")
def bert_classifier(tmp_path_factory: pytest.TempPathFactory) -> Compiled:
    return Compiled(EXAMPLES / "tiny-bert-classifier.json", tmp_path_factory.mktemp("bert"), 2)


@pytest.fixture(scope="session")
def seq2seq(tmp_path_factory: pytest.TempPathFactory) -> Compiled:
    return Compiled(REF_INPUTS / "tiny-seq2seq.json", tmp_path_factory.mktemp("s2s"), 3)


@pytest.fixture
def gpt_model(gpt: Compiled):
    with tfm.Model(gpt.library, gpt.weights) as model:
        yield model


@pytest.fixture(scope="session")
def minilm(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A MiniLM-style folder (tests/tiny_bert.py): mean pooling + L2
    normalization, random weights."""
    from tiny_bert import make_folder
    folder = make_folder(tmp_path_factory.mktemp("hf") / "tiny-minilm")
    random_weights(folder, folder / "model.safetensors", seed=21)
    return folder


@pytest.fixture(scope="session")
def encoder(minilm: Path):
    with tfm.Encoder(minilm) as enc:  # compiles (cached in minilm/.tfm-cache)
        yield enc


@pytest.fixture(scope="session")
def tiny_gpt2(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A GPT-2 folder (tests/tiny_gpt2.py): GPT2LMHeadModel config.json, a
    byte-level BPE tokenizer.json, random weights."""
    from tiny_gpt2 import make_folder
    folder = make_folder(tmp_path_factory.mktemp("hf") / "tiny-gpt2")
    random_weights(folder, folder / "model.safetensors", seed=31)
    return folder


@pytest.fixture(scope="session")
def generator(tiny_gpt2: Path):
    with tfm.TextGenerator(tiny_gpt2) as gen:  # compiles (cached in tiny_gpt2/.tfm-cache)
        yield gen
