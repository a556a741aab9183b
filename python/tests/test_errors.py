"""Every error path raises a tfm.Error subclass with a message naming what
is wrong, and none of them takes the process down."""

from __future__ import annotations

import json

import numpy as np
import pytest

import tfm
from conftest import EXAMPLES, Compiled, random_weights


# ----- loading a library ---------------------------------------------------

def test_missing_library(tmp_path) -> None:
    with pytest.raises(tfm.LibraryError, match=r"nope\.so: no such model library"):
        tfm.Model(tmp_path / "nope.so")


def test_library_is_a_folder(tmp_path) -> None:
    with pytest.raises(tfm.LibraryError, match="is a folder"):
        tfm.Model(tmp_path)


def test_library_is_not_a_shared_library(gpt: Compiled) -> None:
    header = gpt.library[:-3] + ".h"
    with pytest.raises(tfm.LibraryError, match="cannot load the model library.*invalid ELF header"):
        tfm.Model(header)


def test_shared_library_without_the_abi() -> None:
    import _ctypes  # a shared library that exports no tfm_* function
    with pytest.raises(tfm.LibraryError, match="not a tfm model library.*tfm_model_create"):
        tfm.library_info(_ctypes.__file__)


def test_library_errors_are_oserrors(tmp_path) -> None:
    with pytest.raises(OSError):
        tfm.Model(tmp_path / "nope.so")


# ----- weights ---------------------------------------------------------------

def test_missing_weights_file(gpt: Compiled, tmp_path) -> None:
    with pytest.raises(tfm.WeightsError, match=r"absent\.safetensors") as e:
        tfm.Model(gpt.library, tmp_path / "absent.safetensors")
    assert e.value.status == 3 and e.value.status_name == "TFM_ERROR_WEIGHTS"


def test_weights_not_safetensors(gpt: Compiled, tmp_path) -> None:
    bad = tmp_path / "bad.safetensors"
    bad.write_bytes(b"\x10\x00\x00\x00\x00\x00\x00\x00{not json at all}")
    with pytest.raises(tfm.WeightsError, match=r"bad\.safetensors"):
        tfm.Model(gpt.library, bad)


def test_weights_of_another_model(gpt: Compiled, bert_classifier: Compiled) -> None:
    with pytest.raises(tfm.WeightsError, match="missing weight"):
        tfm.Model(gpt.library, bert_classifier.weights)


def test_weights_with_a_wrong_shape(gpt: Compiled, tmp_path) -> None:
    import tfm_ref
    tensors = tfm_ref.file_tensors(tfm_ref.load_model(str(gpt.spec)))
    tensors = [(n, [64, 16] if n == "embed.tokens" else s, k, f) for n, s, k, f in tensors]
    w = random_weights(gpt.spec, tmp_path / "w.safetensors", 0, tensors)
    with pytest.raises(tfm.WeightsError, match=r"embed\.tokens.*expected shape \[64, 32\]"):
        tfm.Model(gpt.library, w)


def test_no_weights_and_none_embedded(gpt: Compiled) -> None:
    with pytest.raises(tfm.UnsupportedError, match="no embedded weights"):
        tfm.Model(gpt.library)


# ----- inputs ----------------------------------------------------------------

@pytest.mark.parametrize("tokens, message", [
    (np.zeros(4, np.int32), r"shape \[batch, seq\], got shape \[4\] \(for one sequence use \[ids\]\)"),
    (np.zeros((1, 2, 3), np.int32), r"shape \[batch, seq\], got shape \[1, 2, 3\]"),
    (np.zeros((0, 4), np.int32), "batch is 0"),
    (np.zeros((2, 0), np.int32), "seq is 0"),
    (np.zeros((1, 17), np.int32), r"seq is 17, must lie in \[1, 16\]"),
    ([[1, 2], [3]], "must be an array of shape"),
    (np.zeros((1, 4), np.float32), "must hold integers.*float32"),
    (np.zeros((1, 4), bool), "must hold integers.*bool"),
    ([["a", "b"]], "must hold integers"),
    (np.array([[1, 2 ** 33]]), r"tokens\[0\]\[1\] is 8589934592, outside the int32 range"),
    (np.array([[1, 2], [3, 64]]), r"ids\[1\]\[1\] .* is token id 64, outside \[0, 64\)"),
    (np.array([[-1, 2]]), r"ids\[0\]\[0\] .* is token id -1, outside \[0, 64\)"),
], ids=["rank1", "rank3", "batch0", "seq0", "too-long", "ragged", "float", "bool", "str",
        "int32-overflow", "id-too-large", "id-negative"])
def test_bad_tokens(gpt_model: tfm.Model, tokens, message: str) -> None:
    with pytest.raises(tfm.InvalidArgumentError, match=message) as e:
        gpt_model(tokens)
    assert isinstance(e.value, ValueError)


@pytest.mark.parametrize("lengths, message", [
    ([-1, 3], r"lengths\[0\] is -1, must lie in \[1, 4\]"),
    ([0, 3], r"lengths\[0\] is 0, must lie in \[1, 4\]"),
    ([4, 5], r"lengths\[1\] is 5, must lie in \[1, 4\]"),
    ([4], "lengths has 1 entries, the batch has 2"),
    ([[4, 4]], r"lengths must have shape \[batch\]"),
    ([4.0, 4.0], "must hold integers"),
], ids=["negative", "zero", "too-long", "short", "rank2", "float"])
def test_bad_lengths(gpt_model: tfm.Model, lengths, message: str) -> None:
    with pytest.raises(tfm.InvalidArgumentError, match=message):
        gpt_model(np.ones((2, 4), np.int32), lengths)


def test_seq2seq_entry_on_a_decoder(gpt_model: tfm.Model) -> None:
    ids = np.ones((1, 4), np.int32)
    with pytest.raises(tfm.UnsupportedError, match="not an encoder_decoder: call tfm_model_forward"):
        gpt_model.seq2seq(ids, ids)


@pytest.mark.parametrize("threads, error, message", [
    (-1, tfm.InvalidArgumentError, r"num_threads is -1, must lie in \[0, 1024\]"),
    (1025, tfm.InvalidArgumentError, r"num_threads is 1025"),
    (2 ** 40, tfm.InvalidArgumentError, r"must lie in \[0, 1024\]"),
    ("2", tfm.InvalidArgumentError, "threads must be an int"),
])
def test_bad_threads(gpt: Compiled, threads, error, message: str) -> None:
    with pytest.raises(error, match=message):
        tfm.Model(gpt.library, gpt.weights, threads=threads)


def test_model_still_works_after_errors(gpt: Compiled, gpt_model: tfm.Model) -> None:
    ids = gpt.tokens(2, 5, seed=2)
    before = gpt_model(ids)
    for bad in (np.full((2, 5), 99), np.zeros((2, 99), np.int32)):
        with pytest.raises(tfm.InvalidArgumentError):
            gpt_model(bad)
    assert np.array_equal(gpt_model(ids), before)


# ----- the compiler ----------------------------------------------------------

def test_compile_error_on_a_malformed_spec(tmp_path) -> None:
    spec = json.loads((EXAMPLES / "tiny-gpt-decoder.json").read_text())
    spec["num_heads"] = 5  # 32 is not a multiple of 5
    path = tmp_path / "broken.json"
    path.write_text(json.dumps(spec))
    with pytest.raises(tfm.CompileError) as e:
        tfm.compile(path, tmp_path / "broken.so")
    assert e.value.returncode == 1
    assert "broken.json" in str(e.value) and "num_heads" in e.value.stderr
    assert e.value.command[0].endswith("tfmc")
    assert not (tmp_path / "broken.so").exists()


def test_compile_error_on_invalid_json(tmp_path) -> None:
    path = tmp_path / "notjson.json"
    path.write_text("{ this is not json")
    with pytest.raises(tfm.CompileError, match=r"notjson\.json"):
        tfm.compile(path, tmp_path / "x.so")


@pytest.mark.parametrize("options, message", [
    ({"precision": "f8"}, "--precision=f8 is not a precision"),
    ({"target": "tpu"}, "--target=tpu is not a target"),
    ({"gpu_arch": "sm_90"}, "--gpu-arch needs --target=nvptx"),
    ({"extra_args": ["--no-such-option"]}, "Unknown command line argument '--no-such-option'"),
])
def test_compile_error_on_a_bad_option(gpt: Compiled, tmp_path, options, message: str) -> None:
    with pytest.raises(tfm.CompileError, match=message) as e:
        tfm.compile(gpt.spec, tmp_path / "x.so", **options)
    assert e.value.returncode in (1, 2)


def test_extra_args_must_be_a_sequence(gpt: Compiled, tmp_path) -> None:
    with pytest.raises(TypeError, match="extra_args"):
        tfm.compile(gpt.spec, tmp_path / "x.so", extra_args="--quiet")


def test_tfmc_not_found(gpt: Compiled, tmp_path, monkeypatch) -> None:
    with pytest.raises(tfm.ToolNotFoundError, match="bin_dir is .*holds no executable 'tfmc'"):
        tfm.compile(gpt.spec, tmp_path / "x.so", bin_dir=tmp_path)
    monkeypatch.setenv("TFM_BIN", str(tmp_path))
    with pytest.raises(tfm.ToolNotFoundError, match=r"\$TFM_BIN"):
        tfm.find_tool("tfmc")


def test_error_hierarchy() -> None:
    for cls in (tfm.InvalidArgumentError, tfm.BufferTooSmallError, tfm.WeightsError,
                tfm.ModelError, tfm.OutOfMemoryError, tfm.UnsupportedError, tfm.DeviceError,
                tfm.CompileError, tfm.LibraryError, tfm.ToolNotFoundError):
        assert issubclass(cls, tfm.Error)
    from tfm._errors import error_for_status
    assert [type(error_for_status(s, "m")).__name__ for s in range(1, 8)] == [
        "InvalidArgumentError", "BufferTooSmallError", "WeightsError", "ModelError",
        "OutOfMemoryError", "UnsupportedError", "DeviceError"]
    unknown = error_for_status(42, "m")
    assert type(unknown) is tfm.Error and unknown.status == 42
